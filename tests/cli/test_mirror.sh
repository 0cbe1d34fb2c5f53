#!/bin/sh
# Offline mirrors: a second `lectern serve` acts as the remote, with a
# Markdown project built there. `lectern mirror add` copies its docs into
# the local engine; `mirror update` downloads nothing when nothing changed
# (ETags) and the rewritten pages after a new build there; the TUI's `m`
# on the remote's Projects screen copies it in the background; then, with
# the remote stopped, the mirror is read, searched and embedded from the
# local engine, is diffed across its refreshes, and refuses to be built.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
REMOTE_DATA="$DATA/remote"
remote_pid=

TMUX_SOCKET="lectern-mirror-$$"
cleanup() {
	tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null
	"$LECTERN" stop >/dev/null 2>&1
	if [ -n "$remote_pid" ]; then
		kill "$remote_pid" 2>/dev/null
		wait "$remote_pid" 2>/dev/null
	fi
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$LEC_TESTS/git.sh"
REPO="$DATA/guide.git"
mkdir -p "$REPO/docs"
printf '# Mirror Guide\n\nWelcome. See [usage](usage.md).\n' >"$REPO/docs/index.md"
printf '# Usage\n\n## Calling\n\nCall it once. It returns zero.\n' >"$REPO/docs/usage.md"
make_repo "$REPO"

# ---- The remote: its own data directory, a context with a token.
"$LECTERN" --data "$REMOTE_DATA" serve --listen 127.0.0.1:0 --threads 2 --workers 1 \
	--local-repos "$DATA" >"$DATA/remote.out" 2>"$DATA/remote.err" &
remote_pid=$!
for i in $(seq 1 300); do
	grep -q '^listening on' "$DATA/remote.out" && break
	sleep 0.1
done
remote_url=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$DATA/remote.out")
[ -n "$remote_url" ] && pass || fail "remote serve did not start: $(cat "$DATA/remote.err")"
(umask 077 && "$LECTERN" --data "$REMOTE_DATA" token create alice >"$DATA/remote.token")
expect_status 0 "$LECTERN" context add far --url "$remote_url" --token-file "$DATA/remote.token"
expect_status 0 "$LECTERN" --context far import "file://$REPO" --name "Mirror Guide"
expect_status 0 "$LECTERN" --context far api -X PATCH /api/v3/projects/mirror-guide/ \
	-d '{"watch_commits": false}'

# ---- mirror add: every page reached from the root, into the local engine.
expect_status 0 "$LECTERN" mirror add far mirror-guide --interval 0
expect_match out '^mirror-guide/latest: 2 pages \(2 downloaded, 0 unchanged, 0 skipped\) as build [0-9]+$'
expect_status 0 "$LECTERN" api /api/v3/projects/mirror-guide/
expect_match out "\"mirror\":\{\"project\":\"mirror-guide\",\"source\":\"$remote_url\",\"updated\":\"20"
# Nothing changed there: nothing is downloaded again.
expect_status 0 "$LECTERN" mirror update --interval 0
expect_match out '^mirror-guide/latest: 2 pages \(0 downloaded, 2 unchanged, 0 skipped\)'
first=$(sed -n 's/.* as build \([0-9]*\)$/\1/p' "$DATA/out")

# ---- A new build there rewrote the page that changed and kept the other
# (incremental builds): Lectern's ETags are nginx's (mtime and size), so
# after a second has passed the changed one comes again, alone.
sleep 1
printf '# Usage\n\n## Calling\n\nCall it once. It returns one.\n' >"$REPO/docs/usage.md"
git_env -C "$REPO" commit -q -am "change one sentence"
expect_status 0 "$LECTERN" --context far build mirror-guide --watch --exit-status
expect_status 0 "$LECTERN" mirror update --interval 0
expect_match out '^mirror-guide/latest: 2 pages \(1 downloaded, 1 unchanged, 0 skipped\)'
second=$(sed -n 's/.* as build \([0-9]*\)$/\1/p' "$DATA/out")

# ---- m on the remote context's Projects screen copies again, detached.
builds() {
	"$LECTERN" api /api/v3/projects/mirror-guide/builds/ | sed -n 's/^{"count":\([0-9]*\).*/\1/p'
}
before=$(builds)
tmux -L "$TMUX_SOCKET" new-session -d -s m -x 120 -y 30 \
	"env LANG=C.UTF-8 TERM=tmux-256color '$LECTERN' --context far tui 2>'$DATA/tui-far.err'; sleep 60"
seen=
for i in $(seq 1 300); do
	tmux -L "$TMUX_SOCKET" capture-pane -p -t m >"$DATA/screen" 2>/dev/null
	grep -Eq '^mirror-guide +Mirror Guide ' "$DATA/screen" && seen=1 && break
	sleep 0.1
done
[ -n "$seen" ] && pass || fail "the remote's Projects screen: $(cat "$DATA/screen")"
tmux -L "$TMUX_SOCKET" send-keys -t m m
seen=
for i in $(seq 1 300); do
	tmux -L "$TMUX_SOCKET" capture-pane -p -t m >"$DATA/screen" 2>/dev/null
	grep -q 'mirroring mirror-guide into the local engine in the background' "$DATA/screen" && seen=1 && break
	sleep 0.1
done
[ -n "$seen" ] && pass || fail "m's message: $(cat "$DATA/screen")"
log="$LECTERN_DATA/mirror-mirror-guide.log"
for i in $(seq 1 300); do
	grep -q '^mirror-guide/latest: 2 pages' "$log" 2>/dev/null && break
	sleep 0.1
done
grep -q '^mirror-guide/latest: 2 pages' "$log" && pass ||
	fail "the background copy's log: $(cat "$log" 2>/dev/null)"
[ "$(builds)" -gt "$before" ] && pass || fail "m made no refresh"
tmux -L "$TMUX_SOCKET" kill-session -t m
[ ! -s "$DATA/tui-far.err" ] && pass || fail "the TUI wrote to stderr: $(cat "$DATA/tui-far.err")"

# ---- A page bigger than the local API takes is left out (skipped), and
# the pages it links to are still copied.
BIG="$DATA/big.git"
mkdir -p "$BIG/docs"
printf '# Big\n\nSee [huge](huge.md).\n' >"$BIG/docs/index.md"
{ printf '# Huge\n\nSee [tail](tail.md).\n\n'
  i=0; while [ $i -lt 9000 ]; do
	printf 'Line %d of a page far bigger than one upload may be.\n\n' $i; i=$((i + 1))
  done; } >"$BIG/docs/huge.md"
printf '# Tail\n\nThe end.\n' >"$BIG/docs/tail.md"
make_repo "$BIG"
expect_status 0 "$LECTERN" --context far import "file://$BIG" --name "Big Guide"
expect_status 0 "$LECTERN" mirror add far big-guide --interval 0
# index and tail: huge is skipped, but its link to tail was followed.
expect_match out '^big-guide/latest: 2 pages \(2 downloaded, 0 unchanged, 1 skipped\)'

# ---- The remote goes away; the mirror still reads, searches and embeds.
kill "$remote_pid"
wait "$remote_pid" 2>/dev/null
remote_pid=
port=$(cat "$LECTERN_DATA/serve.port")
docs="http://mirror-guide.localhost:$port/en/latest"
curl -s -o "$DATA/page" -w '%{http_code}' --resolve "mirror-guide.localhost:$port:127.0.0.1" \
	"$docs/usage.html" >"$DATA/code"
[ "$(cat "$DATA/code")" = 200 ] && grep -q 'It returns one.' "$DATA/page" && pass ||
	fail "the mirrored page: $(cat "$DATA/code") $(head -c 300 "$DATA/page")"
expect_status 0 "$LECTERN" search "returns" --project mirror-guide
expect_match out '^mirror-guide/latest /en/latest/usage\.html  Usage'
expect_status 0 "$LECTERN" api "/api/v3/embed/?url=$docs/usage.html"
expect_match out 'It returns one\.'
# Each refresh is a build: the diff between them is the changed sentence.
expect_status 0 "$LECTERN" diff mirror-guide "build:$first" "build:$second"
expect_match out '^-It returns zero\.$'
expect_match out '^\+It returns one\.$'
# A mirror is never built, and an unreachable source is an error.
expect_status 1 "$LECTERN" build mirror-guide
expect_match err 'mirror of another instance'
expect_status 1 "$LECTERN" mirror update --interval 0
expect_match err '2 of 2 mirrors could not be updated'
expect_status 2 "$LECTERN" mirror add far
# The TUI's Projects screen shows the mirror with its source and age.
tmux -L "$TMUX_SOCKET" new-session -d -s s -x 120 -y 30 \
	"env LANG=C.UTF-8 TERM=tmux-256color '$LECTERN' tui 2>'$DATA/tui.err'; sleep 60"
host=${remote_url#http://}
shown=
for i in $(seq 1 300); do
	tmux -L "$TMUX_SOCKET" capture-pane -p -t s >"$DATA/screen" 2>/dev/null
	if grep -Eq "^mirror-guide +Mirror Guide \(mirror of $host/mirror-guide\) +latest +mirrored +[0-9]+[smhd]" "$DATA/screen"; then
		shown=1
		break
	fi
	sleep 0.1
done
[ -n "$shown" ] && pass || fail "the Projects screen: $(cat "$DATA/screen")"
tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null
expect_status 2 "$LECTERN" mirror add far x --interval never

# The engines stopped cleanly (a sanitizer build reports leaks and errors
# into their logs).
expect_status 0 "$LECTERN" stop
if grep -q 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log" "$DATA/remote.err"; then
	fail "engine log: $(grep -A5 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log" "$DATA/remote.err")"
else pass; fi
[ ! -s "$DATA/tui.err" ] && pass || fail "the TUI wrote to stderr: $(cat "$DATA/tui.err")"

finish
