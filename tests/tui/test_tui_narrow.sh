#!/bin/sh
# Nothing a user needs is cut at 80x24 (issue 31, item 11): the first-run
# hint wraps; a build's error that its Error column cuts is shown whole
# under the list when the build is selected (Builds screen and a
# project's builds tab); a form's key help wraps; the title's trail drops
# its oldest screens before the one on top. (The help screen's wrapped
# descriptions: test_tui_find; the Pages screen's addresses:
# test_tui_reader.)
. "$LEC_TESTS/tui/lib.sh"
export LECTERN_DATA="$TMP/local"
cleanup_local() {
	"$LECTERN" stop >/dev/null 2>&1
	cleanup
}
trap cleanup_local EXIT

# The first run on an empty local engine, with a demo to offer.
TUI_CONTEXT=local tui "LECTERN_DATA='$LECTERN_DATA'"
t resize-window -t s -x 80 -y 24
wait_for '^ No projects yet\. Press d to import a demo' "the first-run hint"
# Its second sentence names the demo repository (the build's), so where
# it wraps depends on the path: read it with the screen's lines joined.
wait_for 'live\. *$' "the hint's end"
demo=$(cd "$(dirname "$LECTERN")/../packaging/demo.git" && pwd)
screen | tr -s ' \n' '  ' | grep -qF "It is imported from $demo and built like any project; its build shows live." &&
	pass || fail "the hint's second sentence, wrapped whole: $(screen)"
if screen | grep -q '…'; then fail "something is cut on the first screen: $(screen)"; else pass; fi
quit_tui

commands_repo "$TMP/broken" "echo starting" "exit 3"
start_server
slug=$(import Broken "$TMP/broken")
wait_build "$slug"
tui
t resize-window -t s -x 80 -y 24
wait_for "^$slug +Broken +latest +finished +failed" "the failed project"
keys b
wait_for '^1 +latest +finished +failed' "its build"
# The selected build's error, whole, under a rule below the list.
wait_for '^Command "exit 3" failed with exit code 3\. *$' "the whole error under the list"
# The project's builds tab says the same.
keys q Enter b
wait_for '^Command "exit 3" failed with exit code 3\. *$' "the whole error on the builds tab"
# A form's key help, wrapped.
keys q a
wait_for '^Enter saves, Tab/BTab move between fields, Space or Left/Right changes a choice,' "the form's help"
wait_for '^Esc cancels *$' "its end"
keys Escape
# A deep trail: the top screen's name whole.
keys b
wait_for '^1 +latest +finished +failed' "the builds again"
keys Enter
wait_for '^Build #1 ' "the build"
keys '?'
wait_for '▸ Help: build +\? help' "the help's name whole in the trail"
# Every action's name whole in the help (trigger-fresh-build is the
# longest).
keys / f r e s h Enter
wait_for '^T +trigger-fresh-build +build it afresh' "the longest action's name whole"
quit_tui
finish
