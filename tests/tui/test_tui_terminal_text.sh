#!/bin/sh
# The TUI against a hostile remote context (tests/cli/hostile_text.py,
# issue 36, item 7): a project name, a build's error and its log carry
# escape sequences (a window title, a clipboard write by OSC 52, a screen
# clear) and C1 controls. The screen shows them as text with a '?' for
# each control, a build's log without them (the terminal filter), and
# nothing of them acts on the terminal: the pane's title stays, tmux gets
# no clipboard buffer, the screen is not cleared.
. "$LEC_TESTS/tui/lib.sh"

export HOSTILE_TOKEN=hostile-token
/usr/bin/python3 "$LEC_TESTS/cli/hostile_text.py" >"$TMP/stub.out" 2>"$TMP/stub.err" &
server_pid=$!
i=0
until grep -q '^listening on ' "$TMP/stub.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the stub did not start: $(cat "$TMP/stub.err")" >&2; exit 1; }
	sleep 0.1
done
URL=$(sed -n 's,^listening on \(http://[^/]*\)/$,\1,p' "$TMP/stub.out")
"$LECTERN" context add t --url "$URL" --token-env HOSTILE_TOKEN --readonly >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }

# untouched: the terminal was not acted on.
untouched() {
	title=$(t display -p -t s '#{pane_title}')
	case $title in
	*PWNED*) fail "the pane's title was set: $title" ;;
	*) pass ;;
	esac
	[ -z "$(t list-buffers)" ] && pass || fail "a clipboard write reached tmux: $(t list-buffers)"
	screen | head -1 | grep -q 'Lectern \[t read-only\]' && pass || fail "the screen was cleared: $(screen)"
}

tui HOSTILE_TOKEN="$HOSTILE_TOKEN"
# Applications may write tmux's buffers by OSC 52 from now on.
t set -g set-clipboard on
wait_for '^project +A\?\]0;PWNED-TITLE\?B\?\]52;c;UFdORUQ=\?C\?\[' "the hostile name, drawn"
untouched
keys : b u i l d s ' ' p r o j e c t Enter
wait_for '^3 +latest +finished +failed' "the builds"
keys Enter
wait_for '^A\?\]0;PWNED-TITLE\?B\?\]52;c;UFdORUQ=\?C\?\[2J\?\[HD\?31mE\?F\?G\?H\?I\?J\?K$' "the build's error"
# The log goes through the terminal filter: its escapes go whole.
wait_for '^  out ABCD31mEFGHIJK$' "the build's log"
untouched
quit_tui
finish
