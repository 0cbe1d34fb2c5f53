#!/bin/sh
# A remote engine back after a restart (issue 43, item 9): "no answer
# from the engine" used to stay for 12 s, until a second R. On a screen
# that polls nothing of its own, the TUI notices an engine going within
# a few seconds (the build activity it asks now and then), and from then
# asks every second, so it says the engine answers again, and drops the
# title's "(no answer)", within about a second of its return, without a
# key. A URL context (no ssh, nothing restarts the engine for the TUI), at
# 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
port=${URL##*:}

# restart: the engine again on the same port and data directory.
restart() {
	"$LECTERN" --data "$TMP/data" serve --listen "127.0.0.1:$port" --workers 1 \
		--threads 2 --local-repos "$TMP" --no-watch >"$TMP/serve.out" 2>"$TMP/serve.err" &
	server_pid=$!
	wait_listening "$TMP/serve.out" ||
		fail "the engine did not start again: $(cat "$TMP/serve.err")"
}

for size in 80x24 200x60; do
	tui_at "$size"
	wait_for "^$slug +Guide +latest +finished" "the projects at $size"
	# The help screen asks for nothing itself.
	keys '?'
	wait_for 'Help: projects' "the help at $size"
	kill "$server_pid"
	wait "$server_pid" 2>/dev/null
	wait_for '^ Lectern \[t\]  \(no answer\)' "the engine gone, without a key, at $size"
	restart
	DEADLINE=3 wait_for "^http://127\\.0\\.0\\.1:$port answers again" \
		"the engine's return said within 3 s at $size"
	DEADLINE=3 wait_gone '\(no answer\)' "the title's (no answer) within 3 s at $size"
	keys q
	wait_for "^$slug +Guide +latest +finished" "the projects again at $size"
	quit_tui
done
finish
