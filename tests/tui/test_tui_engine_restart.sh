#!/bin/sh
# The local engine going away under an open TUI (issue 31, item 1): the
# TUI finds it again or starts it, as the CLI does. Stopped, the next
# engine takes the same port (a free one), so earlier docs URLs keep
# working; R finds it. Restarted on another port, the TUI follows it. Without any key,
# a screen that polls notices an engine that died (a crash, not a stop:
# test_tui_engine_stopped.sh) and brings it back itself.
. "$LEC_TESTS/tui/lib.sh"
export LECTERN_DATA="$TMP/local"
cleanup_local() {
	"$LECTERN" stop >/dev/null 2>&1
	cleanup
}
trap cleanup_local EXIT

markdown_repo
"$LECTERN" import "file://$TMP/guide" --name Guide >"$TMP/import.out" 2>&1 ||
	{ echo "import failed: $(cat "$TMP/import.out")" >&2; exit 1; }
port=$(cat "$LECTERN_DATA/serve.port")
pid=$(cat "$LECTERN_DATA/serve.pid")

TUI_CONTEXT=local tui "LECTERN_DATA='$LECTERN_DATA'"
t resize-window -t s -x 80 -y 24
wait_for '^ *guide +Guide' "the local projects"

# Stopped: R looks for it, starts it on the same port, and reloads.
"$LECTERN" stop >/dev/null
keys R
wait_for "the local engine answers at http://127\.0\.0\.1:$port" "the engine found again"
wait_for '^ *guide +Guide' "the projects after the restart"
[ "$(cat "$LECTERN_DATA/serve.port")" = "$port" ] && pass ||
	fail "the engine came back on port $(cat "$LECTERN_DATA/serve.port"), not $port"
[ "$(cat "$LECTERN_DATA/serve.pid")" != "$pid" ] && pass || fail "no new engine"
if screen | grep -q 'connection refused'; then fail "still refused: $(screen)"; else pass; fi

# Restarted elsewhere (its port was taken meanwhile; tests/cli covers the
# taking): the TUI follows it to the new port.
"$LECTERN" stop >/dev/null
new=$(/usr/bin/python3 -c "
import socket
s = socket.socket()
s.bind(('127.0.0.1', 0))
print(s.getsockname()[1])")
echo "$new" >"$LECTERN_DATA/serve.port"
keys R
wait_for "the local engine answers at http://127\.0\.0\.1:$new" "the engine on another port"
wait_for '^ *guide +Guide' "the projects through the new port"

# No key: the Builds screen polls every second; its failed poll brings
# an engine that died back, and its rows with it.
keys : b u i l d s ' ' g u i d e Enter
wait_for '^ *1 +latest' "guide's builds"
kill -KILL "$(cat "$LECTERN_DATA/serve.pid")"
wait_for "the local engine answers at http://127\.0\.0\.1:$new" "found again without a key"
wait_for '^ *1 +latest' "guide's builds again"
quit_tui
finish
