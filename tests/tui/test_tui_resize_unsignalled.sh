#!/bin/sh
# A resize the TUI gets no signal for is still seen: a SIGWINCH that comes
# while curses is starting, before its handler, is lost, and the screen
# stayed drawn for the old size (tui/test_tui_find failed so once under
# load). Here the TUI runs with SIGWINCH blocked, so curses never hears of
# any resize: it must notice the terminal's new size itself.
. "$LEC_TESTS/tui/lib.sh"

mkdir -p "$TMP/guide"
printf '# Guide\n\nText.\n' >"$TMP/guide/README.md"
make_repo "$TMP/guide"
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"

# A blocked signal stays blocked across exec (curses catches SIGWINCH
# even when it is ignored, but does not unblock it): it never arrives.
LECTERN_REAL=$LECTERN
LECTERN="$TMP/block-winch"
cat >"$LECTERN" <<PY
#!/usr/bin/python3
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGWINCH})
os.execv("$LECTERN_REAL", ["$LECTERN_REAL"] + sys.argv[1:])
PY
chmod +x "$LECTERN"
tui
wait_for "^$slug +Guide +latest +finished" "projects at 100x30"
# Larger: the status line moves down to the new last line, which stays
# blank while the TUI draws for the old size.
t resize-window -t s -x 120 -y 40
i=0
until screen | sed -n 40p | grep -q '[^ ]'; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { fail "the status line did not move to line 40:
$(screen)"; break; }
	sleep 0.1
done
finish
