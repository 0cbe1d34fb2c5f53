#!/bin/sh
# The notifications screen and the title bar's unread count, against a
# real `lectern serve`: a project whose version built and then failed has
# a notification in the user's feed; the title bar counts it; `!` lists
# it; Enter opens the failed build it names and marks it read (the count
# goes; issue 43, item 4); `m`
# makes it unread again (the count comes back); `d` dismisses it (it
# leaves the list); --readonly refuses the changes.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import Guide "$TMP/guide")
wait_build "$slug"
# Break the build, so the version fails after passing.
printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\n  commands:\n    - "exit 3"\n' \
	>"$TMP/guide/.readthedocs.yaml"
git_env -C "$TMP/guide" add -A
git_env -C "$TMP/guide" commit -q -m break
api POST "/api/v3/projects/$slug/versions/latest/builds/" >/dev/null
i=0
until api GET /api/v3/notifications/ | grep -q '"count": *1'; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 5)) ] || { fail "no notification was raised"; break; }
	sleep 0.2
done

tui
wait_for "^$slug +Guide " "the projects screen"
wait_for '\[1 unread\]' "the title bar's count"
keys '!'
wait_for '^ *State +On +Message' "the notifications screen"
wait_for "^unread +$slug/latest #[0-9]+ +$slug/latest: build #[0-9]+ failed; it built before" "the notification"
failed=$(screen | sed -n "s,^unread *$slug/latest #\([0-9]*\) .*,\1,p")
keys Enter
wait_for "^Build #$failed  $slug/latest  finished failed " "the failed build opened"
keys q
wait_for "^read +$slug/latest " "marked read"
wait_gone '\[1 unread\]' "the title bar's count"
keys m
wait_for "^unread +$slug/latest " "marked unread again"
wait_for '\[1 unread\]' "the count again"
keys d
wait_for 'dismissed' "the dismissal's message"
wait_gone "^(unread|read) +$slug/latest " "the dismissed notification"
wait_gone '\[1 unread\]' "the count after dismissing"
quit_tui

# Read-only: the screen lists, changes are refused.
id=$(api GET "/api/v3/projects/$slug/notifications/?state=dismissed" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])')
api PATCH "/api/v3/projects/$slug/notifications/$id/" '{"state": "unread"}' >/dev/null
tui -- --readonly
wait_for '\[1 unread\]' "the count (read-only)"
keys '!'
wait_for "^unread +$slug/latest " "the list (read-only)"
keys m
wait_for 'read-only' "the refusal"
quit_tui
finish
