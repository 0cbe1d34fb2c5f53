#!/bin/sh
# `lectern stop` with a TUI open (issue 43, item 10): the TUI used to say
# nothing while the engine was down and then start it again on its own,
# so an admin could not keep it stopped. Now, without any key, it says
# the engine was stopped (in the title bar while it lasts, and in the
# status line), never starts it itself, finds it when someone else starts
# it, and R starts it when the user asks. An engine stopped by a signal
# (systemd's stop) counts as stopped too. At 80x24 and 200x60, side by
# side.
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

# Both sizes at once, in two sessions of one tmux server (a is 80x24, b
# 200x60): the stopped engine's quiet period is waited out once, and a
# stop, a start or R in one is seen by the other too.
SESSIONS="a:80x24 b:200x60"
t kill-server 2>/dev/null
TMUX_SOCKET="lectern-tui-$$-stopped"

# on_each FUNCTION: FUNCTION with TUI_SESSION and size set to each
# session's in turn.
on_each() {
	for session in $SESSIONS; do
		TUI_SESSION=${session%%:*}
		size=${session#*:}
		"$1"
	done
	unset TUI_SESSION
}
start_tui() {
	TUI_CONTEXT=local tui_session "$TUI_SESSION" "LECTERN_DATA='$LECTERN_DATA'"
	t resize-window -t "$TUI_SESSION" -x "${size%x*}" -y "${size#*x}"
}
projects_shown() { wait_for '^ *guide +Guide' "the local projects at $size"; }
stop_said() {
	wait_for "^ Lectern \\[local\\]  \\(engine stopped: R starts it\\)  Projects" "the title at $size"
	wait_for "^the local engine was stopped \\('lectern stop'\\): R starts it again" "the status line at $size"
}
still_stopped() {
	screen | grep -q 'engine stopped: R starts it' && pass ||
		fail "the stopped state went from the title at $size: $(screen)"
}
found_again() {
	wait_for "the local engine answers at http://127\\.0\\.0\\.1:" "found once started elsewhere at $size"
	wait_gone 'engine stopped' "the title once it runs at $size"
	wait_for '^ *guide +Guide' "the projects again at $size"
}
signal_said() { wait_for "\\(engine stopped: R starts it\\)" "the signalled stop at $size"; }

on_each start_tui
on_each projects_shown

# Stopped with no key pressed: said, and left stopped.
"$LECTERN" stop >/dev/null
on_each stop_said
# Each TUI looks again every 2 s; three looks later nothing has started
# it.
sleep 7
[ -z "$(engine_pid)" ] && pass || fail "a TUI started the stopped engine"
on_each still_stopped

# Someone else starts it: found, without a key.
"$LECTERN" projects >/dev/null 2>&1
on_each found_again

# Stopped by a signal (as systemd stops it): the same; R in either TUI
# starts it, and the other finds it.
for pressed in $SESSIONS; do
	kill -TERM "$(engine_pid)"
	on_each signal_said
	old=$(cat "$LECTERN_DATA/serve.pid" 2>/dev/null)
	TUI_SESSION=${pressed%%:*}
	keys R
	wait_for "the local engine answers at http://127\\.0\\.0\\.1:" "R starts it at ${pressed#*:}"
	unset TUI_SESSION
	[ -n "$(engine_pid)" ] && [ "$(engine_pid)" != "$old" ] && pass ||
		fail "R started no engine at ${pressed#*:}"
	on_each projects_shown
done
on_each quit_tui
finish
