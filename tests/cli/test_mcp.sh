#!/bin/sh
# `lectern mcp` (issue 41) driven by the protocol's reference client, the
# TypeScript SDK from the npm registry, installed here into the test's
# directory (tests/cli/mcp_client.mjs holds the checks): against the local
# engine (started by the CLI), against a second engine reached with a
# token (with --allow-write), and through an ssh context. And, with no
# client library in the way: nothing but JSON-RPC reaches standard output,
# while the local engine is started, for bad input, for errors.
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/sshd.sh"

export XDG_CONFIG_HOME="$DATA/config" XDG_RUNTIME_DIR="$DATA/run"
unset LECTERN_CONTEXT NO_COLOR
# The SDK's major version the client is written for.
SDK_VERSION=1
far_pid=

cleanup() {
	for ctl in "$XDG_RUNTIME_DIR"/lectern/ssh/*.ctl; do
		[ -S "$ctl" ] && ssh -S "$ctl" -O exit x >/dev/null 2>&1
	done
	pid=$(remote_engine_pid "$DATA/sshd")
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -n "$far_pid" ] && kill "$far_pid" 2>/dev/null
	sshd_stop
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

command -v npm >/dev/null || { echo "npm is missing (packaging/deps.sh installs it)" >&2; exit 1; }
npm install --prefix "$DATA/sdk" --no-audit --no-fund --silent \
	"@modelcontextprotocol/sdk@$SDK_VERSION" >/dev/null 2>"$DATA/npm.err" ||
	{ echo "npm install failed: $(cat "$DATA/npm.err")" >&2; exit 1; }
export MCP_SDK="$DATA/sdk/node_modules/@modelcontextprotocol/sdk"

# A Markdown project of 122 pages: the home page with a section that has
# a table and code, a long page, and 120 short ones (more than one
# resources/list answer holds).
. "$LEC_TESTS/git.sh"
REPO="$DATA/guide"
mkdir -p "$REPO/docs"
cat >"$REPO/docs/index.md" <<'MD'
# Markdown Guide

Welcome.

## Setup

Run the frobnicator once.

| a | b |
|---|---|
| 1 | 2 |

```python
print("set up")
```

## Later

Nothing else.
MD
i=0
while [ $i -lt 200 ]; do
	echo "Line $i of the long page."
	echo
	i=$((i + 1))
done | { printf '# Long\n\n'; cat; } >"$REPO/docs/long.md"
i=1
while [ $i -le 120 ]; do
	printf '# Page %d\n\nShort page %d.\n' $i $i >"$REPO/docs/p$(printf %03d $i).md"
	i=$((i + 1))
done
make_repo "$REPO"
PAGES=122

# built CONTEXT: until guide's newest build has finished.
built() {
	i=0
	until "$LECTERN" --context "$1" builds guide 2>/dev/null | grep -q ' finished '; do
		i=$((i + 1))
		[ $i -lt 600 ] || { fail "guide's build on $1 did not finish"; return 1; }
		sleep 0.2
	done
}

# ---- The local engine.
expect_status 0 "$LECTERN" import "$REPO" --name Guide
built local
node "$LEC_TESTS/cli/mcp_client.mjs" "$LECTERN" local guide $PAGES >"$DATA/mcp.out" 2>"$DATA/mcp.err" &&
	pass || fail "the local context: $(cat "$DATA/mcp.out" "$DATA/mcp.err")"

# ---- Nothing but JSON-RPC on stdout: the engine stopped (the command
# starts it, which prints), a line that is no JSON, an error.
"$LECTERN" stop >/dev/null 2>&1
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}' \
	'not json' '[1,2]' '{"jsonrpc":"2.0","id":2,"method":"nope"}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_page","arguments":{"project":"nope","path":"x.html"}}}' |
	"$LECTERN" mcp >"$DATA/raw.out" 2>"$DATA/raw.err"
/usr/bin/python3 - "$DATA/raw.out" <<'PY' && pass || fail "stdout: $(cat "$DATA/raw.out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 5, lines
msgs = [json.loads(l) for l in lines]
assert all(m.get("jsonrpc") == "2.0" for m in msgs), msgs
byid = {m.get("id"): m for m in msgs}
assert byid[1]["result"]["protocolVersion"] == "2025-11-25"
assert byid[2]["error"]["code"] == -32601
assert byid[3]["result"]["isError"] is True
codes = sorted(m["error"]["code"] for m in msgs if m.get("id") is None)
assert codes == [-32700, -32600], codes
PY
[ -s "$DATA/raw.err" ] && pass || fail "nothing on stderr: the engine's start is said there"

# ---- A second engine, with a token: another Lectern.
"$LECTERN" --data "$DATA/far" serve --listen 127.0.0.1:0 --workers 1 \
	--local-repos "$DATA" >"$DATA/far.out" 2>"$DATA/far.err" &
far_pid=$!
i=0
until grep -q listening "$DATA/far.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.1
done
far_url=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$DATA/far.out")
"$LECTERN" --data "$DATA/far" token create mcp >"$DATA/far.token"
chmod 600 "$DATA/far.token"
expect_status 0 "$LECTERN" context add far --url "$far_url" --token-file "$DATA/far.token"
expect_status 0 "$LECTERN" --context far import "file://$REPO" --name Guide
built far
node "$LEC_TESTS/cli/mcp_client.mjs" "$LECTERN" far guide $PAGES --write >"$DATA/mcp.out" 2>"$DATA/mcp.err" &&
	pass || fail "a remote context: $(cat "$DATA/mcp.out" "$DATA/mcp.err")"

# ---- Through ssh.
sshd_start "$DATA/sshd"
expect_status 0 "$LECTERN" context add box --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$REMOTE_LECTERN" --ssh-options "$SSH_OPTS"
expect_status 0 "$LECTERN" --context box import "file://$REPO" --name Guide
built box
node "$LEC_TESTS/cli/mcp_client.mjs" "$LECTERN" box guide $PAGES >"$DATA/mcp.out" 2>"$DATA/mcp.err" &&
	pass || fail "an ssh context: $(cat "$DATA/mcp.out" "$DATA/mcp.err")"

finish
