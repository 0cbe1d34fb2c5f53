#!/bin/sh
# ssh contexts against a real OpenSSH server on 127.0.0.1 (tests/sshd.sh):
# `context add --ssh`, the remote engine auto-started on its 0600 socket
# and reached through one shared master with no token, an import and a
# build followed to the end, every URL the answers carry naming the socket's
# host (no port), search over the docs host through the same socket, and
# each failure a person meets as one line and a non-zero status, within a
# bounded time: ssh missing, the host unreachable or silent, the key
# refused, the host key unknown, the remote lectern missing or too old, the
# remote engine dying and the master dropping (the next command brings both
# back).
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/sshd.sh"

export XDG_CONFIG_HOME="$DATA/config" XDG_RUNTIME_DIR="$DATA/run"
unset LECTERN_CONTEXT NO_COLOR
SSHDIR="$DATA/sshd"
silent_pid=

cleanup() {
	for ctl in "$XDG_RUNTIME_DIR"/lectern/ssh/*.ctl; do
		[ -S "$ctl" ] && ssh -S "$ctl" -O exit x >/dev/null 2>&1
	done
	pid=$(remote_engine_pid "$SSHDIR")
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null
	sshd_stop
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

sshd_start "$SSHDIR"
. "$LEC_TESTS/git.sh"
REPO="$DATA/guide"
mkdir -p "$REPO/docs"
printf '# Markdown Guide\n\nWelcome. See [install](docs/install.md).\n' >"$REPO/README.md"
printf '# Install\n\n## Setup\n\nRun the installer.\n' >"$REPO/docs/install.md"
make_repo "$REPO"

# one_line: a failure is one line on stderr.
one_line() {
	[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "more than one line: $(cat "$DATA/err")"
}

# seconds CMD...: run CMD like expect_status does, and print how long it took.
seconds() {
	start=$(date +%s)
	"$@" >"$DATA/out" 2>"$DATA/err"
	echo $(($(date +%s) - start))
}

# ---- A context is added with the target, the remote command, ssh options.
expect_status 0 "$LECTERN" context add far --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$REMOTE_LECTERN" --ssh-options "$SSH_OPTS"
expect_status 0 "$LECTERN" context list
expect_match out "far +ssh://$(id -un)@127\.0\.0\.1:$SSHD_PORT +\(socket owner\)"
expect_status 2 "$LECTERN" context add bad --ssh "-oProxyCommand=x"
expect_match err "ssh must be \[USER@\]HOST\[:PORT\]"
expect_status 2 "$LECTERN" context add bad --ssh h --token-env X
expect_match err "an ssh context needs none of them"

# ---- First use starts the remote engine on its socket; no token anywhere.
expect_status 0 "$LECTERN" --context far projects
expect_match out '^SLUG +NAME'
SOCK="$SSHDIR/remote/run/lectern/engine.sock"
[ -S "$SOCK" ] && [ "$(stat -c %a "$SOCK")" = 600 ] && pass || fail "no 0600 engine socket at $SOCK"
[ -n "$(remote_engine_pid "$SSHDIR")" ] && pass || fail "no remote engine runs"
# The remote side prints its default socket.
[ "$("$REMOTE_LECTERN" serve --print-socket)" = "$SOCK" ] && pass || fail "serve --print-socket"
# A plain local engine was not started for this.
[ ! -e "$LECTERN_DATA/serve.pid" ] && pass || fail "a local engine was started"

# ---- An import (file:// names the remote machine) waits for its build.
expect_status 0 "$LECTERN" --context far import "file://$REPO" --name Guide
expect_match err "^lectern: import: file://$REPO is a path on the remote machine of ssh context far$"
# The docs URL is the remote engine's (no port: its socket), which no
# browser here reaches: how to read it here follows (issue 43, item 9).
expect_match out '^imported guide: http://guide\.localhost/en/latest/ on ssh context far$'
expect_match out "^to read it here: ssh -N -L 8800:$SSHDIR/remote/run/lectern/engine\\.sock -p $SSHD_PORT .*127\\.0\\.0\\.1, then open http://guide\\.localhost:8800/en/latest/\$"
expect_status 0 "$LECTERN" --context far projects
expect_match out '^guide +Guide'
# ... and a build followed to its end.
expect_status 0 "$LECTERN" --context far build guide --watch --exit-status
expect_match out 'build [0-9]+: .*(success|finished)'
expect_status 0 "$LECTERN" --context far log "$(sed -n 's/^build \([0-9]*\):.*/\1/p' "$DATA/out" | head -1)"

# ---- Every URL names the socket's host, never a port.
expect_status 0 "$LECTERN" --context far api "/api/v3/projects/?limit=1&expand=active_versions"
expect_match out '"documentation":"http://guide\.localhost/en/latest/"'
grep -Eo 'https?://[^"]*' "$DATA/out" | grep -v '^http://\(guide\.\)\?localhost/' >"$DATA/odd"
[ ! -s "$DATA/odd" ] && pass || fail "URLs not on the socket's host: $(cat "$DATA/odd")"
# Search goes to the docs host (guide.localhost) over the same socket.
expect_status 0 "$LECTERN" --context far search installer --project guide
expect_match out 'install'

# ---- One master for the context, however many commands ran.
# (A master's title is "ssh: CONTROL_PATH [mux]".)
masters=$(pgrep -fc -- "$XDG_RUNTIME_DIR/lectern/ssh/far-.*\.ctl \[mux\]")
[ "$masters" -eq 1 ] && pass || fail "$masters ssh masters for far"

# ---- status and stop act on the ssh context's engine (issue 43, item 1),
# never on this machine's.
"$LECTERN" projects >/dev/null # a local engine, which must stay up
local_pid=$(cat "$LECTERN_DATA/serve.pid")
expect_status 0 "$LECTERN" --context far status
expect_match out "^context: +far \\(ssh://$(id -un)@127\\.0\\.0\\.1:$SSHD_PORT\\)\$"
expect_match out '^version: +Lectern [^ ]+ \(community\)$'
expect_match out '^workers: +[0-9]+'
expect_match out '^builds: +0 running, 0 waiting$'
if grep -q 'data directory' "$DATA/out"; then fail "status described the local data directory"; else pass; fi
pid=$(remote_engine_pid "$SSHDIR")
expect_status 0 "$LECTERN" --context far stop
expect_match out "^on $(id -un)@127\\.0\\.0\\.1:$SSHD_PORT: stopped the local engine \\(pid $pid\\)\$"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
pass
kill -0 "$local_pid" && pass || fail "stop through the ssh context stopped the local engine"
"$LECTERN" stop >/dev/null
# The next command starts the remote engine again.
expect_status 0 "$LECTERN" --context far projects
expect_match out '^guide +Guide'

# ---- The remote engine dies: the next command starts it again.
pid=$(remote_engine_pid "$SSHDIR")
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
expect_status 0 "$LECTERN" --context far projects
expect_match out '^guide +Guide'
[ -n "$(remote_engine_pid "$SSHDIR")" ] && [ "$(remote_engine_pid "$SSHDIR")" != "$pid" ] && pass ||
	fail "the remote engine was not restarted"

# ---- A mirror of the remote project in the local engine: its source is
# the ssh target (the socket's URL names no machine), so `mirror update`
# finds the context again.
expect_status 0 "$LECTERN" mirror add far guide --interval 0
expect_match out '^guide/latest: [1-9][0-9]* pages'
expect_status 0 "$LECTERN" api /api/v3/projects/guide/
expect_match out "\"source\":\"ssh://$(id -un)@127\\.0\\.0\\.1:$SSHD_PORT\""
expect_status 0 "$LECTERN" mirror update --interval 0
expect_match out '^guide/latest: [1-9][0-9]* pages \(0 downloaded'
"$LECTERN" stop >/dev/null

# ---- The master drops (killed): the next command makes a new one.
master=$(pgrep -f -- "$XDG_RUNTIME_DIR/lectern/ssh/far-.*\.ctl \[mux\]")
kill -KILL $master
expect_status 0 "$LECTERN" --context far projects
expect_match out '^guide +Guide'
again=$(pgrep -f -- "$XDG_RUNTIME_DIR/lectern/ssh/far-.*\.ctl \[mux\]")
[ -n "$again" ] && [ "$again" != "$master" ] && pass || fail "no new master (was $master, now '$again')"

# ---- ssh missing from PATH.
took=$(seconds env PATH=/nonexistent "$LECTERN" --context far projects)
expect_match err "^lectern: context 'far': ssh not found on PATH; install OpenSSH's client"
one_line

# ---- Nothing listens on the port: "cannot reach", at once.
DEAD=$(free_port)
expect_status 0 "$LECTERN" context add down --ssh "127.0.0.1:$DEAD" \
	--remote-command "$REMOTE_LECTERN" --ssh-options "$SSH_OPTS"
expect_status 1 "$LECTERN" --context down projects
expect_match err "^lectern: context 'down': cannot reach 127\.0\.0\.1:$DEAD over ssh \(.*Connection refused\)$"
one_line

# ---- A host that accepts and never speaks SSH: a bounded wait, not a hang.
SILENT=$(free_port)
/usr/bin/python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $SILENT)); s.listen(8)
held = []
while True:
    held.append(s.accept()[0])
" &
silent_pid=$!
sleep 0.3
expect_status 0 "$LECTERN" context add mute --ssh "127.0.0.1:$SILENT" \
	--remote-command "$REMOTE_LECTERN" --ssh-options "$SSH_OPTS"
took=$(seconds "$LECTERN" --context mute projects)
[ "$took" -le 15 ] && pass || fail "a silent host held the CLI for $took s"
expect_match err "^lectern: context 'mute': cannot reach 127\.0\.0\.1:$SILENT over ssh \(.*\)$"
one_line

# ---- Another key: refused.
ssh-keygen -q -t ed25519 -N '' -f "$DATA/other" </dev/null >/dev/null
expect_status 0 "$LECTERN" context add stranger --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$REMOTE_LECTERN" \
	--ssh-options "$(echo "$SSH_OPTS" | sed "s,-i $SSH_KEY,-i $DATA/other,")"
expect_status 1 "$LECTERN" --context stranger projects
expect_match err "^lectern: context 'stranger': $(id -un)@127\.0\.0\.1:$SSHD_PORT refused the ssh key \(.*Permission denied.*\)"
one_line

# ---- A host key nobody has seen: refused, never asked about (BatchMode).
: >"$DATA/empty_known_hosts"
expect_status 0 "$LECTERN" context add unknown --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$REMOTE_LECTERN" \
	--ssh-options "$(echo "$SSH_OPTS" | sed "s,UserKnownHostsFile=[^ ]*,UserKnownHostsFile=$DATA/empty_known_hosts,")"
expect_status 1 "$LECTERN" --context unknown projects
expect_match err "^lectern: context 'unknown': the host key of .* is unknown or has changed"
# The command to check it is one ssh runs as typed: the port as -p, the
# context's options kept.
grep -F "connect once with 'ssh -p $SSHD_PORT $(echo "$SSH_OPTS" | sed "s,UserKnownHostsFile=[^ ]*,UserKnownHostsFile=$DATA/empty_known_hosts,") $(id -un)@127.0.0.1' to check it" "$DATA/err" >/dev/null &&
	pass || fail "the host-key hint is not a command ssh takes: $(cat "$DATA/err")"
one_line

# ---- No lectern on the remote machine.
expect_status 0 "$LECTERN" context add bare --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command /nonexistent/lectern --ssh-options "$SSH_OPTS"
expect_status 1 "$LECTERN" --context bare projects
expect_match err "^lectern: context 'bare': no '/nonexistent/lectern' to run on .*; install Lectern there, or give its path with --remote-command$"
one_line

# ---- A remote lectern from before ssh contexts.
cat >"$DATA/old-lectern" <<'EOF'
#!/bin/sh
echo "lectern: serve: unknown option '--detach'" >&2
exit 1
EOF
chmod 755 "$DATA/old-lectern"
expect_status 0 "$LECTERN" context add old --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$DATA/old-lectern" --ssh-options "$SSH_OPTS"
expect_status 1 "$LECTERN" --context old projects
expect_match err "^lectern: context 'old': the lectern on .* is too old for ssh contexts"
one_line

# ---- A remote engine that cannot start says why.
mkdir -p "$SSHDIR/broken/data"
echo 'not a database' >"$SSHDIR/broken/data/lectern.db"
cat >"$DATA/broken-lectern" <<EOF
#!/bin/sh
export HOME=$SSHDIR/broken XDG_RUNTIME_DIR=$SSHDIR/broken/run
exec $LECTERN --data $SSHDIR/broken/data "\$@"
EOF
chmod 755 "$DATA/broken-lectern"
expect_status 0 "$LECTERN" context add broken --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$DATA/broken-lectern" --ssh-options "$SSH_OPTS"
expect_status 1 "$LECTERN" --context broken projects
expect_match err "^lectern: context 'broken': the engine on .* did not start \(lectern: the engine did not start; see $SSHDIR/broken/data/serve-socket.log\)$"
one_line
finish
