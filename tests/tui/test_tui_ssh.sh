#!/bin/sh
# The TUI at 80x24 through an ssh context (a real sshd on 127.0.0.1,
# tests/sshd.sh): the projects of the remote engine, search and the reader
# over the same forwarded socket (the page's URL names the socket's host,
# no port; `o` says which ssh -L reaches it from a browser here, `O`
# forwards a free local port itself and opens the page through it), then the remote engine killed and the ssh master killed: each
# time the status line says the link is down, the watcher brings it back,
# and the next reload shows the projects again. Nothing of ssh reaches the
# screen or stderr, and the watcher ends with the TUI.
. "$LEC_TESTS/tui/lib.sh"
. "$LEC_TESTS/sshd.sh"

export XDG_RUNTIME_DIR="$TMP/run"
SSHDIR="$TMP/sshd"
cleanup_ssh() {
	for ctl in "$XDG_RUNTIME_DIR"/lectern/ssh/*.ctl; do
		[ -S "$ctl" ] && ssh -S "$ctl" -O exit x >/dev/null 2>&1
	done
	pid=$(remote_engine_pid "$SSHDIR")
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	sshd_stop
	cleanup
}
trap cleanup_ssh EXIT

master_pid() { pgrep -f -- "$XDG_RUNTIME_DIR/lectern/ssh/tssh-.*\.ctl \[mux\]"; }

# wait_new CMD OLD WHAT: until CMD prints a pid other than OLD.
wait_new() {
	i=0
	while now=$($1) && { [ -z "$now" ] || [ "$now" = "$2" ]; }; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 10)) ] || { fail "$3 did not come back"; return 1; }
		sleep 0.1
	done
	pass
}
engine_pid() { remote_engine_pid "$SSHDIR"; }

# reload_until_ok: R (a key also clears an error) once a second until the
# status line has no link error: the watcher needs a moment after the
# process is back for the engine to listen and the forward to be made.
reload_until_ok() {
	i=0
	while keys R && sleep 1 && screen | grep -q 'no answer from the engine'; do
		i=$((i + 1))
		[ $i -lt "$DEADLINE" ] || { fail "the link never came back: $(screen)"; return 1; }
	done
	pass
}

sshd_start "$SSHDIR"
markdown_repo
"$LECTERN" context add tssh --ssh "$(id -un)@127.0.0.1:$SSHD_PORT" \
	--remote-command "$REMOTE_LECTERN" --ssh-options "$SSH_OPTS" >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }
"$LECTERN" --context tssh import "file://$TMP/guide" --name Guide >/dev/null 2>"$TMP/import.err" ||
	{ echo "import failed: $(cat "$TMP/import.err")" >&2; exit 1; }

# The browser `O` opens: it fetches what it is given, as a browser here
# would, through the port the TUI forwarded.
cat >"$TMP/browser" <<EOF
#!/bin/sh
echo "\$1" >"$TMP/browsed.url"
curl -sS "\$1" >"$TMP/browsed.html" 2>"$TMP/browsed.err"
EOF
chmod +x "$TMP/browser"

t new-session -d -s s -x 80 -y 24 -c "$TMP" \
	"env LANG=C.UTF-8 TERM=tmux-256color BROWSER='$TMP/browser' '$LECTERN' --context tssh tui 2>'$TMP/tui.err'; echo \"TUI-EXIT=\$?\"; sleep 600"
wait_for '^guide +Guide +latest +finished' "the remote project"
expect_line 1 " Lectern [tssh]  Projects                                     ? help  : command"

# Search and the reader over the socket: the docs host is guide.localhost.
keys : s e a r c h ' ' i n s t a l l Enter
wait_for '^  Install *$' "a search hit"
keys Enter
wait_for '^Install  http://guide\.localhost/en/latest/pages/install\.html *$' "the page through ssh"
# `o`: no browser here reaches the remote page; it says what to forward.
keys o
wait_for "^ssh -N -L 8800:$(echo "$SSHDIR" | cut -c1-20)" "how to forward, first at 80 columns"
t resize-window -t s -x 500 -y 24
keys o
# The context's ssh options go with the command, as any ssh of it needs.
wait_for "^ssh -N -L 8800:$SSHDIR/remote/run/lectern/engine\.sock -p $SSHD_PORT $(echo "$SSH_OPTS" | sed 's/[.]/\\./g') $(id -un)@127\.0\.0\.1, then open http://guide\.localhost:8800/en/latest/pages/install\.html \(or O: forward a port now\)" "how to forward, whole"
t resize-window -t s -x 80 -y 24
# `O`: the TUI forwards a free local port itself and the browser reads the
# remote page through it.
keys O
wait_for '^opened http://guide\.localhost:[0-9]*/en/latest/pages/install\.html in \$BROWSER' "the page opened through a forward"
i=0
until [ -s "$TMP/browsed.html" ] || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
fwd_port=$(sed -n 's,^http://guide\.localhost:\([0-9]*\)/.*,\1,p' "$TMP/browsed.url")
[ -n "$fwd_port" ] && [ "$fwd_port" != 8800 ] && pass || fail "no forwarded port in $(cat "$TMP/browsed.url")"
grep -q 'Install' "$TMP/browsed.html" && pass ||
	fail "the browser did not get the page: $(cat "$TMP/browsed.err")"
# A second `o` goes through the same forward.
keys o
wait_for "^opened http://guide\.localhost:$fwd_port/" "o through the forward"
keys q q
wait_for '^guide +Guide' "back on the projects"

# The watcher survives a SIGPIPE (issue 31, item 2: a probe or an ssh call
# writing to a link that had just died killed it, and the link never came
# back): it is the TUI's child with the TUI's command line.
watcher_pid() {
	pids=$(pgrep -f -- "^$LECTERN --context tssh tui")
	for p in $pids; do
		pp=$(ps -o ppid= -p "$p" | tr -d ' ')
		echo "$pids" | grep -qx "$pp" && echo "$p"
	done
}
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'; }
watcher=$(watcher_pid)
[ -n "$watcher" ] && kill -PIPE "$watcher"
sleep 0.5
[ -n "$watcher" ] && running "$watcher" && pass || fail "the watcher died of SIGPIPE"

# The remote engine dies: the link is reported down, then comes back,
# and the TUI says so and reloads without a key (issue 43, item 9: the
# error stayed until a second R, 12 s).
old=$(engine_pid)
kill "$old"
keys R
wait_for 'no answer from the engine through ssh context tssh' "the link down"
wait_for '^ Lectern \[tssh\]  \(no answer\)' "the link down in the title"
wait_new engine_pid "$old" "the remote engine"
back=$(date +%s%N)
wait_for '^the engine answers again through ssh context tssh' "the link back, without a key"
echo "the link's return was said $((($(date +%s%N) - back) / 1000000)) ms after the remote engine restarted"
wait_gone 'no answer' "the link's error and title, once back"
wait_for '^guide +Guide +latest +finished' "the projects again"

# The master connection drops: the same.
old=$(master_pid)
kill -KILL "$old"
keys R
wait_for 'no answer from the engine through ssh context tssh' "the master down"
wait_new master_pid "$old" "the ssh master"
reload_until_ok
wait_for '^guide +Guide +latest +finished' "the projects after the master"

# The watcher follows `:context`: gone on a context that is not ssh, back
# on the ssh one.
watchers() { pgrep -f -- "^$LECTERN --context tssh tui" | wc -l; }
# Whether the count becomes n within 10 s: a watcher stopping, or a
# child forked before its exec (it shows the TUI's command line a
# moment), takes longer than any fixed pause when the machine is loaded.
watchers_become() {
	for _ in $(seq 100); do
		[ "$(watchers)" -eq "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
watchers_become 2 && pass || fail "not one TUI and one watcher: $(watchers)"
echo 0123456789abcdef >"$TMP/nowhere.token" && chmod 600 "$TMP/nowhere.token"
"$LECTERN" context add nowhere --url http://127.0.0.1:9 --token-file "$TMP/nowhere.token" >/dev/null ||
	fail "context add nowhere"
keys : c o n t e x t ' ' n o w h e r e Enter
wait_for 'Lectern \[nowhere\]' "the other context"
watchers_become 1 && pass || fail "the watcher stayed after leaving the ssh context: $(watchers)"
keys : c o n t e x t ' ' t s s h Enter
wait_for '^guide +Guide +latest +finished' "the ssh context again"
watchers_become 2 && pass || fail "no watcher for the ssh context again: $(watchers)"

quit_tui
# The forward went with the TUI.
curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$fwd_port/" &&
	fail "port $fwd_port still forwarded after the TUI quit" || pass
# The watcher went with the TUI.
# (A context name of its own: other TUI tests run "--context t tui".)
watchers_become 0 || true
left=$(pgrep -f -- "^$LECTERN --context tssh tui" || true)
[ -z "$left" ] && pass || fail "processes left after the TUI: $(ps -o pid,args -p $left)"
finish
