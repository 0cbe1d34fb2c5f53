#!/bin/sh
# An idle screen of builds sees a build started elsewhere within 2 s on a
# Lectern (issue 43, item 2): a project's builds tab left alone backs off
# its own polls (up to 30 s), and a build triggered from the CLI showed
# 9 s after 100 s idle. Now the TUI asks the engine's build activity
# (GET /api/v3/builds/activity/, a 304 while nothing moved) once a second
# and asks for the list again as soon as it moved. At 80x24 and 200x60,
# after 15 s idle each (the back-off is at 12 s by then); the time from
# the trigger to the row on screen is printed. Both sizes idle side by
# side, so the test waits out the idle period once.
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

# Both sizes at once, each in its own session of one tmux server, so the
# idle period is waited once: a is 80x24, b is 200x60.
t kill-server 2>/dev/null
TMUX_SOCKET="lectern-tui-$$-idle"
for session in a:80x24 b:200x60; do
	name=${session%%:*}
	size=${session#*:}
	tui_session "$name"
	t resize-window -t "$name" -x "${size%x*}" -y "${size#*x}"
	export TUI_SESSION="$name"
	wait_for '^guide +Guide ' "the project at $size"
	keys Enter
	wait_for 'Projects ▸ guide' "the project screen at $size"
	keys b
	wait_for "^ *1 +latest +finished +passed" "the builds tab at $size"
done
sleep "$IDLE"
start=$(now_ms)
api POST "/api/v3/projects/$slug/versions/latest/builds/" >/dev/null
# Each session's time to the row, taken as it appears: whichever shows it
# first is timed first.
left="a b"
i=0
while [ -n "$left" ] && [ $i -lt $((DEADLINE * 100)) ]; do
	for name in $left; do
		if TUI_SESSION=$name screen | grep -Eq "^ *2 +latest "; then
			eval "took_$name=$(($(now_ms) - start))"
			left=$(echo "$left" | sed "s/$name//; s/^ *//; s/ *$//")
		fi
	done
	i=$((i + 1))
	sleep 0.01
done
for session in a:80x24 b:200x60; do
	name=${session%%:*}
	size=${session#*:}
	eval "took=\${took_$name:-never}"
	echo "a build started elsewhere showed after $took ms at $size, $IDLE s idle"
	if [ "$took" != never ] && [ "$took" -le "$LIMIT_MS" ]; then pass; else
		export TUI_SESSION="$name"
		fail "the new build took $took ms to show at $size (at most $LIMIT_MS):
$(screen)"
	fi
done
wait_build "$slug"
for name in a b; do
	export TUI_SESSION="$name"
	quit_tui
done
finish
