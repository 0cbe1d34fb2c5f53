#!/bin/sh
# The first run: `lectern` with no arguments opens the TUI on the local
# engine (started in the background on a fresh data directory), whose empty
# Projects screen offers the demo. `d` imports Lectern's own documentation
# (the repository the build makes for the package, also in a git worktree
# whose history lies outside it) through the ordinary import API; its build shows live and then the
# project, its builds, search and the reader have content. Without a
# terminal a bare `lectern` says so and exits 2; the demo is not offered on
# a remote context nor once projects exist. Prints the time from `d` to the
# finished build.
. "$LEC_TESTS/tui/lib.sh"

# The repository the demo imports: the one the binary's build made (the
# tests run from that build).
DEMO=$(cd "$(dirname "$LECTERN")/../packaging/demo.git" && pwd)
export LECTERN_DATA="$TMP/local"
remote_pid=

stop_all() {
	"$LECTERN" stop >/dev/null 2>&1
	if [ -n "$remote_pid" ]; then
		kill "$remote_pid" 2>/dev/null
		wait "$remote_pid" 2>/dev/null
	fi
	cleanup
}
trap stop_all EXIT

# bare CMD...: run the shell command line CMD (a bare `lectern`, maybe with
# environment or redirections) in a fresh 100x30 tmux session named s.
bare() {
	t kill-server 2>/dev/null
	TMUX_RUN=$((TMUX_RUN + 1))
	TMUX_SOCKET="lectern-tui-$$-$TMUX_RUN"
	t new-session -d -s s -x 100 -y 30 -c "$TMP" \
		"env LANG=C.UTF-8 TERM=tmux-256color $* 2>'$TMP/tui.err'; echo \"TUI-EXIT=\$?\"; sleep 600"
}

# projects_count [GLOBAL-OPTION...]: how many projects the context has.
projects_count() {
	"$LECTERN" "$@" api /api/v3/projects/ | sed -n 's/.*"count": *\([0-9]*\).*/\1/p'
}

# ---- No terminal: one line, status 2, and no engine started.
"$LECTERN" </dev/null >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && pass || fail "a bare lectern without a terminal exited $rc"
[ -s "$TMP/out" ] && fail "it wrote to stdout: $(cat "$TMP/out")" || pass
[ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "^lectern: the TUI needs a terminal; run 'lectern serve' for the engine alone, or a command (see 'lectern --help')$" "$TMP/err" &&
	pass || fail "stderr: $(cat "$TMP/err")"
[ -e "$LECTERN_DATA/serve.pid" ] && fail "a bare lectern without a terminal started the engine" || pass
# A terminal on stdin but not on stdout is no better.
bare "'$LECTERN' >'$TMP/piped.out'"
wait_for '^TUI-EXIT=2( |$)' "a bare lectern with stdout not a terminal"
grep -q "^lectern: the TUI needs a terminal;" "$TMP/tui.err" && pass ||
	fail "stderr with stdout not a terminal: $(cat "$TMP/tui.err")"

# ---- A remote context (a second engine, without build workers): its
# empty list has no demo, and `d` imports nothing.
"$LECTERN" --data "$TMP/remote" serve --listen 127.0.0.1:0 --workers 0 \
	--threads 2 >"$TMP/remote.out" 2>"$TMP/remote.err" &
remote_pid=$!
i=0
while ! grep -q '^listening on ' "$TMP/remote.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { echo "remote did not start: $(cat "$TMP/remote.err")" >&2; exit 1; }
	sleep 0.1
done
RURL=$(sed -n 's,^listening on \(http://[^/]*\)/*$,\1,p' "$TMP/remote.out")
"$LECTERN" --data "$TMP/remote" token create tester >"$TMP/rtoken"
chmod 600 "$TMP/rtoken"
"$LECTERN" context add r --url "$RURL" --token-file "$TMP/rtoken" >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }
bare "LECTERN_CONTEXT=r '$LECTERN'"
wait_for '^ No projects yet\. Import one with `lectern import URL`\. *$' "the remote empty state"
wait_for '^ Lectern \[r\]  Projects +\? help  : command *$' "the remote title"
keys d
wait_for '^the demo is only offered on an empty local engine' "d on a remote context"
screen | grep -q 'Press d' && fail "the demo is offered on a remote context" || pass
[ "$(projects_count --context r)" = 0 ] && pass || fail "d on a remote context imported something"
quit_tui

# ---- The first run: a bare `lectern` on a fresh local engine.
bare "'$LECTERN'"
wait_for '^ No projects yet\. Press d to import a demo: Lectern'"'"'s own documentation\. *$' "the demo's offer"
wait_for "^ It is imported from $DEMO " "where the demo comes from"
wait_for '^ Lectern \[local\]  Projects +\? help  : command *$' "the local title"
# The key named is the one bound: the help screen lists it too.
keys ?
wait_for "^d +demo +import a demo: Lectern's own docs \(empty local engine\) *\$" "the demo in the help"
keys q
wait_for '^ No projects yet\. Press d' "back from help"
start=$(date +%s.%N)
keys d
# The first build, on the Builds screen (live: test_tui_builds.sh), until
# it has finished.
wait_for '▸ Builds: lectern ' "the demo's builds screen"
wait_for '^1 +latest +finished +passed ' "the demo's finished build"
end=$(date +%s.%N)
echo "demo: d to a finished build in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
keys q
wait_for '^lectern +Lectern +latest +finished +passed ' "the demo project in the list"
screen | grep -q 'No projects yet' && fail "the empty state stays with a project listed" || pass
keys Enter
wait_for '^latest +yes +no +yes +branch +#1 finished passed' "the demo project's versions"
# Search: a phrase only docs/ARCHITECTURE.md has (a single word would
# match whatever docs page uses it next), then that page read.
keys : s e a r c h ' ' '"' l e f t ' ' u n t o u c h e d '"' Enter
wait_for '^1 page of lectern/latest for ""left untouched"" *$' "the search header"
wait_for '^Architecture  /en/latest/ARCHITECTURE\.html *$' "the page found"
keys Enter
wait_for '^Architecture  http://lectern\.localhost:[0-9]+/en/latest/ARCHITECTURE\.html' "the page in the reader"
wait_for 'left untouched' "the page's text"
quit_tui
# `lectern search` on the local context finds it too (its docs host is
# <slug>.localhost:<port>).
"$LECTERN" search '"left untouched"' --project lectern >"$TMP/search.out" 2>&1 &&
	grep -q '/ARCHITECTURE' "$TMP/search.out" && pass ||
	fail "lectern search: $(cat "$TMP/search.out")"

# ---- Projects exist: no offer, and `d` imports nothing more.
bare "'$LECTERN'"
wait_for '^lectern +Lectern +latest +finished' "the list"
keys d
wait_for '^the demo is only offered on an empty local engine' "d with a project"
screen | grep -q 'No projects yet' && fail "the demo is offered with a project" || pass
[ "$(projects_count)" = 1 ] && pass || fail "d with a project imported something"
quit_tui

"$LECTERN" stop >/dev/null && pass || fail "lectern stop"
finish
