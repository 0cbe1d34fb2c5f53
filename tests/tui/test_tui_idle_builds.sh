#!/bin/sh
# An idle screen of builds sees a build started elsewhere within 2 s on a
# Lectern (issue 43, item 2): a project's builds tab left alone backs off
# its own polls (up to 30 s), and a build triggered from the CLI showed
# 9 s after 100 s idle. Now the TUI asks the engine's build activity
# (GET /api/v3/builds/activity/, a 304 while nothing moved) once a second
# and asks for the list again as soon as it moved. At 80x24 and 200x60,
# after 15 s idle each (the back-off is at 12 s by then); the time from
# the trigger to the row on screen is printed.
. "$LEC_TESTS/tui/lib.sh"

# The longest the new row may take: the 2 s.
LIMIT_MS=2000
# Seconds left idle before the build is triggered.
IDLE=${TUI_IDLE:-15}

markdown_repo
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

next=2
for size in 80x24 200x60; do
	tui_at "$size"
	wait_for '^guide +Guide ' "the project at $size"
	keys Enter
	wait_for 'Projects ▸ guide' "the project screen at $size"
	keys b
	wait_for "^ *$((next - 1)) +latest +finished +passed" "the builds tab at $size"
	sleep "$IDLE"
	start=$(now_ms)
	api POST "/api/v3/projects/$slug/versions/latest/builds/" >/dev/null
	i=0
	until screen | grep -Eq "^ *$next +latest "; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 100)) ] || break
		sleep 0.01
	done
	took=$(($(now_ms) - start))
	echo "a build started elsewhere showed after $took ms at $size, $IDLE s idle"
	if [ "$took" -le "$LIMIT_MS" ]; then pass; else
		fail "the new build took $took ms to show at $size (at most $LIMIT_MS):
$(screen)"
	fi
	wait_build "$slug"
	quit_tui
	next=$((next + 1))
done
finish
