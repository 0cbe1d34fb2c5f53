#!/bin/sh
# The smaller things of issue 31 (item 13) in the TUI: the Projects rows
# are current as soon as the user goes back to them (not after the row's
# backed-off wait); every bad line of the TUI's config file is listed
# (a notice over the first screen when there are several); quitting on
# the local context says that its engine keeps running; an empty tab
# says so rather than show only its column headers; Enter on a built
# version reads its docs; a project imported elsewhere shows without R.
. "$LEC_TESTS/tui/lib.sh"
export LECTERN_DATA="$TMP/local"
cleanup_local() {
	"$LECTERN" stop >/dev/null 2>&1
	cleanup
}
trap cleanup_local EXIT

# A build that passes, until a commit makes it fail.
commands_repo "$TMP/flaky" \
	'mkdir -p $READTHEDOCS_OUTPUT/html' 'echo ok > $READTHEDOCS_OUTPUT/html/index.html'
start_server
slug=$(import Flaky "$TMP/flaky")
wait_build "$slug"

# Two TUIs side by side on one tmux server, so that their waits overlap:
# s on the test's server, l on the local context's engine (which the TUI
# starts), where a project is imported elsewhere while s idles.
tui
TUI_CONTEXT=local tui_session l "LECTERN_DATA='$LECTERN_DATA'"
wait_for "^$slug +Flaky +latest +finished +passed " "the passed project"
TUI_SESSION=l wait_for '^ No projects yet' "the local engine's empty Projects"

# ---- A project imported elsewhere (here by the CLI) shows on Projects
# without R: the list's count is polled (every 10 s). l's wait for it
# overlaps s's idle time below.
commands_repo "$TMP/other" 'mkdir -p $READTHEDOCS_OUTPUT/html'
"$LECTERN" --context local import "file://$TMP/other" --name Other --no-wait >/dev/null ||
	fail "the CLI's import into the local engine"
# s idles long enough for its row's polls to back off (3, 6, 12 s).
sleep 10
export TUI_SESSION=l
DEADLINE=40 wait_for "^other +Other " "the project imported elsewhere, without R"
port=$(cat "$LECTERN_DATA/serve.port")
quit_tui
# ---- Quitting the TUI on the local context says its engine runs on.
wait_for "^the local engine keeps running at http://127\\.0\\.0\\.1:$port \\('lectern stop' stops it\\)\$" "what quitting leaves running"
unset TUI_SESSION

# ---- Back on Projects, a build finished meanwhile shows at once.
keys Enter
wait_for '^latest +yes +no +yes +branch +#1 finished passed' "the project's versions"
printf '    - "exit 3"\n' >>"$TMP/flaky/.readthedocs.yaml"
git_env -C "$TMP/flaky" commit -qam "fail"
api POST "/api/v3/projects/$slug/versions/latest/builds/" >/dev/null
wait_build "$slug"
keys R
wait_for '^latest +yes +no +yes +branch +#2 finished failed' "the failed build on the project"
keys q
DEADLINE=2 wait_for "^$slug +Flaky +latest +finished +failed " "the failed build on Projects at once"

# ---- An empty tab says so, and how to add one, under its headers.
keys Enter
wait_for '^latest +yes ' "the project again"
keys l l
wait_for '^Alias +Project +Name *$' "the subprojects tab"
wait_for '^ No subprojects\. Press a to add one\. *$' "the empty subprojects tab"
keys l
wait_for '^ No translations\. Press a to add one\. *$' "the empty translations tab"
keys l
wait_for '^ No redirects\. Press a to add one\. *$' "the empty redirects tab"
keys l
wait_for '^ No environment variables\. Press a to add one\. *$' "the empty env vars tab"
keys h h h h
wait_for '^2 +latest +finished +failed' "the builds tab with builds"
if screen | grep -q '^ No builds'; then fail "a builds tab with builds says none"; else pass; fi
# ---- Enter on a built version reads its docs.
keys h
wait_for '^latest +yes +no +yes ' "the versions tab"
keys Enter
wait_for "^ *http://$slug\\.localhost:[0-9]+/en/latest/ *\$" "the version's docs in the reader"
wait_for '^(▸| )ok *$' "the page's text"
keys q
wait_for '^latest +yes +no +yes ' "back on the versions tab"
keys j Enter
wait_for '^main is not built yet' "an unbuilt version"
keys q
wait_for "^$slug +Flaky " "Projects"
quit_tui

# ---- Every bad line of the TUI's config file is reported, not the first.
export LECTERN_TUI_CONFIG="$TMP/tui.conf"
printf 'bind generic y frobnicate\nbind generic x quit\nset colour = red\nfrob\n' >"$LECTERN_TUI_CONFIG"
tui
wait_for "^ +$LECTERN_TUI_CONFIG:1: unknown action 'frobnicate'" "the first bad line"
wait_for "^ +$LECTERN_TUI_CONFIG:3: " "the second bad line"
wait_for "^ +$LECTERN_TUI_CONFIG:4: unknown keyword 'frob'" "the third bad line"
wait_for "^3 bad lines in $LECTERN_TUI_CONFIG \\(listed above\\)" "the status line"
keys Enter
wait_for "^$slug +Flaky " "the projects after the notice"
# The good line still applies.
keys x
wait_for '^TUI-EXIT=0( |$)' "the rebound quit"
: >"$LECTERN_TUI_CONFIG"

finish
