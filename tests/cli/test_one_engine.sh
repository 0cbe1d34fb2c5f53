#!/bin/sh
# One engine per data directory, whoever starts it: the engine the CLI
# starts here serves the data directory's socket beside its port, so an
# ssh context's `serve --detach` (run on that machine) finds it instead of
# starting a second engine on the same store; and an engine --detach
# started is the one the CLI here then finds. Either way, what one side
# imports the other lists, and `lectern stop` stops the one engine.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
export XDG_RUNTIME_DIR="$DATA/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset LECTERN_CONTEXT NO_COLOR
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$LEC_TESTS/git.sh"
REPO="$DATA/guide.git"
mkdir -p "$REPO/docs"
printf '# Guide\n\nWelcome.\n' >"$REPO/docs/index.md"
make_repo "$REPO"

# engines: how many `lectern serve` processes use this data directory.
engines() { pgrep -f -- "--data $LECTERN_DATA serve" | wc -l; }
# over_socket PATH URL-PATH: GET through the unix socket, no token.
over_socket() { curl -sS --max-time 10 --unix-socket "$1" "http://localhost$2"; }

# ---- The CLI starts the engine: port and socket.
expect_status 0 "$LECTERN" projects
SOCK="$LECTERN_DATA/engine.sock"
[ "$(cat "$LECTERN_DATA/serve.socket" 2>/dev/null)" = "$SOCK" ] && pass ||
	fail "serve.socket does not name $SOCK"
[ -S "$SOCK" ] && [ "$(stat -c %a "$SOCK")" = 600 ] && pass || fail "no 0600 socket at $SOCK"
# An ssh context runs these on this machine: they name the running
# engine's socket, and start nothing.
[ "$("$LECTERN" serve --print-socket)" = "$SOCK" ] && pass || fail "--print-socket names another socket"
expect_status 0 "$LECTERN" serve --detach
expect_match out "^listening on unix:$SOCK\$"
[ "$(engines)" -eq 1 ] && pass || fail "$(engines) engines for one data directory"
# What the CLI imports, the socket's owner sees, without a token.
expect_status 0 "$LECTERN" import "file://$REPO" --name Guide
over_socket "$SOCK" /api/v3/projects/ >"$DATA/sock.json"
grep -q '"slug": *"guide"' "$DATA/sock.json" && pass || fail "the socket does not list the import: $(cat "$DATA/sock.json")"
first=$(cat "$LECTERN_DATA/serve.pid")
expect_status 0 "$LECTERN" stop
[ "$(engines)" -eq 0 ] && pass || fail "an engine is left after stop"
[ -e "$LECTERN_DATA/serve.socket" ] && fail "serve.socket left after stop" || pass

# ---- --detach starts it (as over ssh): the CLI here finds that one.
expect_status 0 "$LECTERN" serve --detach
XSOCK="$XDG_RUNTIME_DIR/lectern/engine.sock"
expect_match out "^listening on unix:$XSOCK\$"
pid=$(cat "$LECTERN_DATA/serve.pid" 2>/dev/null)
[ -n "$pid" ] && [ "$pid" != "$first" ] && pass || fail "the detached engine did not record itself"
[ "$(cat "$LECTERN_DATA/serve.socket" 2>/dev/null)" = "$XSOCK" ] && pass || fail "serve.socket does not name $XSOCK"
expect_status 0 "$LECTERN" projects
expect_match out '^guide +Guide'
[ "$(cat "$LECTERN_DATA/serve.pid")" = "$pid" ] && [ "$(engines)" -eq 1 ] && pass ||
	fail "the CLI started another engine: $(engines) engines"
over_socket "$XSOCK" /api/v3/projects/ | grep -q '"slug": *"guide"' && pass || fail "the detached engine's socket"
expect_status 0 "$LECTERN" stop
expect_match out "stopped the local engine \\(pid $pid\\)"
[ "$(engines)" -eq 0 ] && pass || fail "an engine is left after the second stop"
finish
