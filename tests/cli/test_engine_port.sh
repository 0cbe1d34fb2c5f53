#!/bin/sh
# The local engine keeps its port for the data directory while it is free
# (issue 31, item 1), so docs URLs printed earlier keep working after a
# restart; when another program holds it, the engine takes another port
# and records it, and the next command finds it there.
. "$LEC_TESTS/cli/lib.sh"
export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

expect_status 0 "$LECTERN" projects
port=$(cat "$LECTERN_DATA/serve.port")
pid=$(cat "$LECTERN_DATA/serve.pid")
expect_status 0 "$LECTERN" stop
[ "$(cat "$LECTERN_DATA/serve.port")" = "$port" ] && pass || fail "serve.port went with the engine"
expect_status 0 "$LECTERN" projects
[ "$(cat "$LECTERN_DATA/serve.pid")" != "$pid" ] && pass || fail "no new engine"
[ "$(cat "$LECTERN_DATA/serve.port")" = "$port" ] && pass ||
	fail "the new engine took port $(cat "$LECTERN_DATA/serve.port"), not the free $port"

# Another program listens on it now: a new port, recorded and found.
expect_status 0 "$LECTERN" stop
/usr/bin/python3 -c "
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port))
s.listen()
open('$DATA/held', 'w').close()
time.sleep(600)" &
holder=$!
i=0
while [ ! -e "$DATA/held" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
expect_status 0 "$LECTERN" projects
other=$(cat "$LECTERN_DATA/serve.port")
[ "$other" != "$port" ] && pass || fail "the engine recorded the held port $port"
expect_status 0 "$LECTERN" api /api/v3/projects/
expect_match out '"count":0'
# A port the kernel would never hand out (a stale or edited file) is not
# asked for.
expect_status 0 "$LECTERN" stop
echo 80 >"$LECTERN_DATA/serve.port"
expect_status 0 "$LECTERN" projects
[ "$(cat "$LECTERN_DATA/serve.port")" != 80 ] && pass || fail "the engine took port 80"

finish
