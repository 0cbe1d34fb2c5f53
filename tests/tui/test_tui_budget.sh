#!/bin/sh
# A polite TUI against the hosted service (issue 31, item 7): with 32
# projects on a remote that is not a Lectern (tests/cli/fake_service.py,
# FAKE_PROJECTS=30), an idle TUI makes at most 10 requests in 20 s
# whatever the number of projects, at 80x24 and at 200x60 (more rows on
# screen), on the Projects screen and on a Builds screen: only rows on
# screen are asked, waits grow while nothing changes, and one budget is
# shared by every screen and the unread count.
. "$LEC_TESTS/tui/lib.sh"

LOG="$TMP/requests"
: >"$LOG"
export SVC_TOKEN=0123456789abcdef
FAKE_PROJECTS=30 /usr/bin/python3 "$LEC_TESTS/cli/fake_service.py" "$LOG" "$SVC_TOKEN" \
	>"$TMP/fake.out" 2>"$TMP/fake.err" &
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

# idle_window WHAT: requests over 20 s, after the screen has settled.
idle_window() {
	sleep 3
	start=$(wc -l <"$LOG")
	sleep 20
	n=$(($(wc -l <"$LOG") - start))
	[ "$n" -le 10 ] && pass || fail "$1: $n requests in 20 s of an idle TUI:
$(tail -n +"$((start + 1))" "$LOG")"
}

for size in 80x24 200x60; do
	tui SVC_TOKEN="$SVC_TOKEN"
	t resize-window -t s -x "${size%x*}" -y "${size#*x}"
	wait_for '^p01 +Project p01 +latest +finished' "the service's projects at $size"
	idle_window "the Projects screen at $size"
	# Rows below the screen were never asked for at 80x24.
	if [ "$size" = 80x24 ]; then
		grep -q '/projects/p30/builds/' "$LOG" && fail "p30, off screen, was asked" || pass
	fi
	keys : b u i l d s ' ' p 0 1 Enter
	wait_for '^ *2 +v1\.0 +finished' "p01's builds at $size"
	idle_window "a Builds screen at $size"
	quit_tui
	: >"$LOG"
done
finish
