#!/bin/sh
# The TUI against a remote that is not a Lectern (tests/cli/fake_service.py,
# shaped like the hosted service's v3 fixtures, no ETag, no X-Lectern):
# the projects screen's and the builds list's polling back off while
# every build is final (asked again after 3 s, then 6: the paces of
# ui/polling.c, whose schedule tests/ui/test_polling.c runs in simulated time;
# here the real binary, one TUI on each screen at once, timed from the
# fake's log) and stop on a 404, and
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

# stamp_log: each line the fake logs from now on, with the time (ms) it
# came, into $TMP/stamped, until the test ends.
stamp_log() {
	/usr/bin/python3 - "$LOG" "$TMP/stamped" <<'PY' &
import sys, time
log, out = sys.argv[1], sys.argv[2]
with open(log) as f, open(out, "a", buffering=1) as o:
    f.seek(0, 2)
    part = ""
    while True:
        part += f.readline()
        if not part.endswith("\n"):
            time.sleep(0.02)
            continue
        o.write("%d %s" % (time.monotonic() * 1000, part))
        part = ""
PY
	stamper=$!
}
stamper=
stop_all() {
	[ -z "$stamper" ] || kill "$stamper" 2>/dev/null
	cleanup
}
trap stop_all EXIT

# asked_at PATTERN [FROM]: the times the stamped lines matching it came
# (after the first FROM lines).
asked_at() { tail -n +"$((${2:-0} + 1))" "$TMP/stamped" | grep -E -- "$1" | cut -d' ' -f1; }

# backs_off WHAT PATTERN [FROM]: the first three requests matching
# PATTERN (after FROM stamped lines) are 3 s apart, then 6 (each to within
# the TUI's one-second tick): a poller that did not back off would ask
# again after 3 s, one that asked every tick after 1.
backs_off() {
	set -- "$1" $(asked_at "$2" "${3:-0}" | head -3)
	if [ $# -lt 4 ]; then
		fail "$1: only $(($# - 1)) requests: $(cat "$TMP/stamped")"
		return
	fi
	gap1=$(($3 - $2))
	gap2=$(($4 - $3))
	[ "$gap1" -ge 1500 ] && [ "$gap1" -le 4500 ] && [ "$gap2" -ge 4500 ] &&
		[ "$gap2" -le 7500 ] && pass ||
		fail "$1: asked again after $gap1 ms, then $gap2 ms (3 s, then 6, expected):
$(cat "$TMP/stamped")"
}

# A second TUI on the builds list first (its Projects screen, covered,
# asks no more), then the first on the Projects screen: both idle at once.
stamp_log
TUI_SESSION=b
tui_session b SVC_TOKEN="$SVC_TOKEN"
wait_for '^project +project +latest +finished' "the second TUI's projects"
keys : b u i l d s ' ' p r o j e c t Enter
wait_for '^ *3 +v1\.0 +finished' "the service's builds"
unset TUI_SESSION
first=$(wc -l <"$TMP/stamped")
tui_session s SVC_TOKEN="$SVC_TOKEN"
wait_for '^project +project +latest +finished' "the service's project"
# "other" has no builds endpoints here: its 404 is said, then not asked
# again.
wait_for 'Not found' "the 404"
keys j
LAST='/projects/project/versions/latest/builds/\?limit=1 '
LIST='/projects/project/builds/\?limit=100'
i=0
until [ "$(asked_at "$LAST" "$first" | wc -l)" -ge 3 ] && [ "$(asked_at "$LIST" | wc -l)" -ge 3 ]; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || break
	sleep 0.1
done
backs_off "a project's last build" "$LAST" "$first"
backs_off "the builds list" "$LIST"
# Each TUI asked for the 404 once, in the 9 s and more since.
other=$(grep -c '/projects/other/\(versions/latest/\)\?builds/' "$LOG")
[ "$other" -eq 2 ] && pass || fail "the 404 was asked $other times by two TUIs"
t kill-session -t b

# The versions tab: expand=last_build is Lectern's; the service ignores
# it and the column says so.
keys k Enter
wait_for '^v1\.0 .*not given by this instance' "the versions tab"
keys q
wait_for '^project +project' "back on the projects"

# The builds list, where the second TUI idled.
keys : b u i l d s ' ' p r o j e c t Enter
wait_for '^ *3 +v1\.0 +finished' "the service's builds"
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
