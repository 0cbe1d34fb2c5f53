#!/bin/sh
# `lectern stop` with a TUI open (issue 43, item 10): the TUI used to say
# nothing while the engine was down and then start it again on its own,
# so an admin could not keep it stopped. Now, without any key, it says
# the engine was stopped (in the title bar while it lasts, and in the
# status line), never starts it itself, finds it when someone else starts
# it, and R starts it when the user asks. An engine stopped by a signal
# (systemd's stop) counts as stopped too. At 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"
export LECTERN_DATA="$TMP/local"
cleanup_local() {
	"$LECTERN" stop >/dev/null 2>&1
	cleanup
}
trap cleanup_local EXIT

# engine_pid: the recorded engine's pid while it runs, else nothing.
engine_pid() {
	p=$(cat "$LECTERN_DATA/serve.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && echo "$p"
}

markdown_repo
"$LECTERN" import "file://$TMP/guide" --name Guide >"$TMP/import.out" 2>&1 ||
	{ echo "import failed: $(cat "$TMP/import.out")" >&2; exit 1; }

for size in 80x24 200x60; do
	TUI_CONTEXT=local tui_at "$size" "LECTERN_DATA='$LECTERN_DATA'"
	wait_for '^ *guide +Guide' "the local projects at $size"

	# Stopped with no key pressed: said, and left stopped.
	"$LECTERN" stop >/dev/null
	wait_for "^ Lectern \\[local\\]  \\(engine stopped: R starts it\\)  Projects" "the title at $size"
	wait_for "^the local engine was stopped \\('lectern stop'\\): R starts it again" "the status line at $size"
	# The TUI looks again every 2 s; three looks later nothing has
	# started it.
	sleep 7
	[ -z "$(engine_pid)" ] && pass || fail "the TUI started the stopped engine at $size"
	screen | grep -q 'engine stopped: R starts it' && pass ||
		fail "the stopped state went from the title at $size: $(screen)"

	# Someone else starts it: found, without a key.
	"$LECTERN" projects >/dev/null 2>&1
	wait_for "the local engine answers at http://127\\.0\\.0\\.1:" "found once started elsewhere at $size"
	wait_gone 'engine stopped' "the title once it runs at $size"
	wait_for '^ *guide +Guide' "the projects again at $size"

	# Stopped by a signal (as systemd stops it): the same; R starts it.
	kill -TERM "$(engine_pid)"
	wait_for "\\(engine stopped: R starts it\\)" "the signalled stop at $size"
	old=$(cat "$LECTERN_DATA/serve.pid" 2>/dev/null)
	keys R
	wait_for "the local engine answers at http://127\\.0\\.0\\.1:" "R starts it at $size"
	[ -n "$(engine_pid)" ] && [ "$(engine_pid)" != "$old" ] && pass ||
		fail "R started no engine at $size"
	wait_for '^ *guide +Guide' "the projects after R at $size"
	quit_tui
done
finish
