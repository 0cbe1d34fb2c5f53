#!/bin/sh
# The TUI against a remote that is not a Lectern (tests/cli/fake_service.py,
# shaped like the hosted service's v3 fixtures, no ETag, no X-Lectern):
# the projects screen's and the builds list's polling over a fixed time is
# counted in the fake's log (they back off while every build is final and
# stop on a 404, so an idle screen costs a few requests, not one per
# project every 3 s or the list every second), and
# a build v2 cannot show opens from the v3 build detail, and
# search uses the service's v3 search on the API host with the token,
# waiting out a 429's Retry-After.
. "$LEC_TESTS/tui/lib.sh"

LOG="$TMP/requests"
: >"$LOG"
export SVC_TOKEN=0123456789abcdef
/usr/bin/python3 "$LEC_TESTS/cli/fake_service.py" "$LOG" "$SVC_TOKEN" >"$TMP/fake.out" 2>"$TMP/fake.err" &
server_pid=$!
i=0
until grep -q '^listening on ' "$TMP/fake.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the fake did not start: $(cat "$TMP/fake.err")" >&2; exit 1; }
	sleep 0.1
done
URL=$(sed -n 's,^listening on \(http://[^/]*\)/$,\1,p' "$TMP/fake.out")
"$LECTERN" context add t --url "$URL" --token-env SVC_TOKEN --readonly >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }

tui SVC_TOKEN="$SVC_TOKEN"
wait_for '^project +project +latest +finished' "the service's project"
# "other" has no builds endpoint here: its 404 is said, then not asked again.
wait_for 'Not found' "the 404"
keys j
# A fixed window with nothing running: count the last-build requests.
sleep 2
start=$(wc -l <"$LOG")
sleep 24
n=$(tail -n +"$((start + 1))" "$LOG" | grep -c '/builds/?limit=1')
[ "$n" -le 4 ] && pass || fail "$n last-build requests in 24 s of an idle screen: $(tail -n +"$((start + 1))" "$LOG")"
other=$(grep -c '/projects/other/builds/' "$LOG")
[ "$other" -eq 1 ] && pass || fail "the 404 was asked $other times"

# The versions tab: expand=last_build is Lectern's; the service ignores
# it and the column says so.
keys k Enter
wait_for '^v1\.0 .*not given by this instance' "the versions tab"
keys q
wait_for '^project +project' "back on the projects"

# The builds list backs off too while every build is final.
keys : b u i l d s ' ' p r o j e c t Enter
wait_for '^ *3 +v1\.0 +finished' "the service's builds"
sleep 2
start=$(wc -l <"$LOG")
sleep 24
n=$(tail -n +"$((start + 1))" "$LOG" | grep -c '/projects/project/builds/?limit=100')
[ "$n" -le 4 ] && pass || fail "$n builds-list requests in 24 s of idle builds: $(tail -n +"$((start + 1))" "$LOG")"
# A build the service's v2 detail does not show: the v3 detail instead,
# and the screen says the log is not given rather than "Loading...".
keys Enter
wait_for 'Build #3 +project/v1\.0 +finished' "the v3 build detail"
wait_for 'commands and output not given by this instance' "the missing log said"
grep -q '^GET /api/v2/build/3/ auth$' "$LOG" && pass || fail "v2 was not asked first"
grep -q '^GET /api/v3/projects/project/builds/3/ auth$' "$LOG" && pass || fail "no v3 build detail asked"
keys q
wait_for '^ *3 +v1\.0 +finished' "back on the builds"
keys q
wait_for '^project +project' "back on the projects"

# Search: the service's v3 search with the token, after its 429.
keys : s e a r c h ' ' i n s t a l l Enter
wait_for 'Search: project ' "the search screen"
wait_for '^    install project' "a search hit"
grep -q '^GET /api/v3/search/?q=project%3Aproject%2Flatest%20install[^ ]* auth$' "$LOG" && pass ||
	fail "no v3 search with the token: $(grep search "$LOG")"
grep -q '_/api/v2/search' "$LOG" && fail "the v2 route was asked" || pass
[ "$(grep -c '/api/v3/search/' "$LOG")" -eq 2 ] && pass || fail "search was not asked twice (the 429, then after it)"
quit_tui
finish
