#!/bin/sh
# A polite TUI against the hosted service (issue 31, item 7): the real
# binary, with 32 projects on a remote that is not a Lectern
# (tests/cli/fake_service.py, FAKE_PROJECTS=30) at 80x24, asks only for
# rows on screen, and once every row on screen has its last build, its
# polls go through the budget all screens share: after the burst, one
# more per refill, where the rows alone would ask again all at once. The
# budget's schedule (at most 10 requests in any 20 s of an idle TUI,
# whatever the number of projects, on the Projects and the Builds
# screens) is tests/ui/test_polling.c's, in simulated time.
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

tui SVC_TOKEN="$SVC_TOKEN"
t resize-window -t s -x 80 -y 24
wait_for '^p01 +Project p01 +latest +finished' "the service's projects"
# Every row on screen has its last build: what is asked from now on is
# polls.
i=0
until rows=$(screen | grep -cE '^p[0-9]{2} ') && [ "$rows" -ge 15 ] &&
	[ "$(screen | grep -E '^p[0-9]{2} ' | grep -cv ' finished ')" -eq 0 ]; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { fail "the rows on screen never all showed their last build:
$(screen)"; break; }
	sleep 0.1
done
start=$(wc -l <"$LOG")
# The rows are asked again after 3 s: the burst goes at once, ...
i=0
until [ "$(($(wc -l <"$LOG") - start))" -ge 5 ]; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { fail "the rows were never asked again"; break; }
	sleep 0.1
done
# ... and the next 4.5 s hold two refills at most, where the other rows
# on screen would all have been asked.
sleep 4.5
n=$(($(wc -l <"$LOG") - start))
[ "$n" -le 7 ] && pass || fail "$n requests after the $rows rows on screen settled:
$(tail -n +"$((start + 1))" "$LOG")"
# Rows below the screen were never asked for.
grep -q '/projects/p30/\(versions/latest/\)\?builds/' "$LOG" && fail "p30, off screen, was asked" || pass
quit_tui
finish
