# Shared helpers for the TUI tests (sourced, not run): a real `lectern
# serve` with build workers on a temporary data directory, fixture git
# repositories made at test time, a remote-style context pointing at the
# server, and a tmux session (on its own socket) running `lectern tui`
# that the tests drive with send-keys and read with capture-pane. Every
# wait is a polling loop with a deadline, never a fixed long sleep.
set -u
: "${LECTERN:?LECTERN must name the lectern binary}"
TMP=$(mktemp -d /tmp/lectern-tui-XXXXXX)
export XDG_CONFIG_HOME="$TMP/config"
export LECTERN_TUI_CONFIG="$TMP/tui.conf"
# Where `s` saves a build's log: inside the test's directory.
export XDG_DOWNLOAD_DIR="$TMP/downloads"
mkdir -p "$XDG_DOWNLOAD_DIR"
unset LECTERN_CONTEXT NO_COLOR
# Each TUI run gets a tmux server of its own: starting one on the socket
# of a server still shutting down fails.
TMUX_RUN=0
TMUX_SOCKET="lectern-tui-$$-0"
# Seconds to wait for a screen or a build; a sanitizer build on a loaded
# two-core machine is slow.
DEADLINE=${TUI_DEADLINE:-90}
server_pid=
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

t() { tmux -L "$TMUX_SOCKET" "$@"; }

cleanup() {
	t kill-server 2>/dev/null
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# use_local_engine: the local context's engine, in a data directory of the
# test's own (the CLI and the TUI start it on first use); stopped at exit.
use_local_engine() {
	export LECTERN_DATA="$TMP/local"
	trap '"$LECTERN" stop >/dev/null 2>&1; cleanup' EXIT
}
trap 'exit 1' HUP INT PIPE TERM

# git_env and make_repo.
. "$LEC_TESTS/git.sh"

# commands_repo DIR COMMAND...: a repository whose build is just these
# shell commands (a .readthedocs.yaml with build.commands).
commands_repo() {
	dir=$1
	shift
	mkdir -p "$dir"
	printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\n  commands:\n' \
		>"$dir/.readthedocs.yaml"
	for c in "$@"; do
		printf '    - "%s"\n' "$c" >>"$dir/.readthedocs.yaml"
	done
	make_repo "$dir"
}

# A Markdown project (the built-in builder) at $TMP/guide.
markdown_repo() {
	mkdir -p "$TMP/guide/pages"
	printf '# Markdown Guide\n\nWelcome. See [install](pages/install.md).\n' >"$TMP/guide/README.md"
	printf '# Install\n\n## Setup\n\nRun it.\n' >"$TMP/guide/pages/install.md"
	make_repo "$TMP/guide"
}

# wait_listening FILE: until a server's stdout FILE says "listening on";
# 1 after the deadline.
wait_listening() {
	i=0
	until grep -q '^listening on ' "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 10)) ] || return 1
		sleep 0.1
	done
}

# start_server: `lectern serve` with one build worker (WORKERS: another
# number); sets URL, TOKEN and a context "t" in the temporary config. The commit watcher is off unless
# WATCH=1: tests commit and trigger builds themselves, and a watcher's
# build of the same commit would race theirs.
start_server() {
	"$LECTERN" --data "$TMP/data" serve --listen 127.0.0.1:0 --workers "${WORKERS:-1}" \
		--threads 2 --local-repos "$TMP" \
		$([ -n "${WATCH:-}" ] || echo --no-watch) >"$TMP/serve.out" 2>"$TMP/serve.err" &
	server_pid=$!
	wait_listening "$TMP/serve.out" ||
		{ echo "server did not start: $(cat "$TMP/serve.err")" >&2; exit 1; }
	URL=$(sed -n 's,^listening on \(http://[^/]*\)/*$,\1,p' "$TMP/serve.out")
	TOKEN=$("$LECTERN" --data "$TMP/data" token create tester)
	printf '%s\n' "$TOKEN" >"$TMP/token"
	chmod 600 "$TMP/token"
	"$LECTERN" context add t --url "$URL" --token-file "$TMP/token" >/dev/null ||
		{ echo "context add failed" >&2; exit 1; }
}

# api METHOD PATH [JSON]: the API's answer body on stdout.
api() {
	curl -s -X "$1" -H "Authorization: Token $TOKEN" \
		-H 'Content-Type: application/json' ${3:+-d "$3"} "$URL$2"
}

# import NAME REPO: import a project and print its slug.
import() {
	api POST /api/v3/projects/ "{\"name\": \"$1\", \"repository\": {\"url\": \"file://$2\"}}" |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["slug"])'
}

# wait_build SLUG: until the project's newest build has finished.
wait_build() {
	i=0
	until api GET "/api/v3/projects/$1/builds/?limit=1" | grep -q '"code": *"finished"'; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 20)) ] || { fail "build of $1 did not finish"; return 1; }
		sleep 0.05
	done
}

# seed_builds SLUG N: N finished builds of the project's latest version,
# written into the store in one SQL transaction (running N builds would
# take hours): the oldest first, a second apart and older than any build
# run by the test, every tenth one failed with an error. The store keeps
# times in microseconds.
seed_builds() {
	/usr/bin/python3 - "$TMP/data/lectern.db" "$1" "$2" <<'PY'
import sqlite3, sys, time
db, slug, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = sqlite3.connect(db, timeout=30)
pid = c.execute("SELECT id FROM projects WHERE slug = ?", (slug,)).fetchone()[0]
vid = c.execute("SELECT id FROM versions WHERE project_id = ? AND slug = 'latest'", (pid,)).fetchone()[0]
us = 1000000
now = (int(time.time()) - n - 60) * us
with c:
    c.executemany(
        "INSERT INTO builds (project_id, version_id, state, success, error, commit_sha,"
        " created, started, finished, duration) VALUES (?, ?, 'finished', ?, ?, ?, ?, ?, ?, 1)",
        ((pid, vid, 0 if i % 10 == 0 else 1,
          "seeded failure %d" % i if i % 10 == 0 else None,
          "%040x" % i, now + i * us, now + i * us, now + (i + 1) * us) for i in range(n)))
PY
}

# tui [ENV=VALUE...] [-- ARGS]: start `lectern --context t tui ARGS` in a
# 100x30 tmux session named s, with the environment given (TUI_CONTEXT
# names another context than t), on a tmux server of its own.
tui() {
	t kill-server 2>/dev/null
	TMUX_RUN=$((TMUX_RUN + 1))
	TMUX_SOCKET="lectern-tui-$$-$TMUX_RUN"
	tui_session s "$@"
}

# tui_session NAME [ENV=VALUE...] [-- ARGS]: the same in a session NAME
# of the current tmux server, beside those running; its stderr goes to
# $TMP/tui.err for s, else $TMP/tui-NAME.err. screen, keys and the waits
# read and drive the session TUI_SESSION names (s when unset).
tui_session() {
	ts_name=$1
	shift
	envs=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs="$envs $1"
		shift
	done
	[ $# -gt 0 ] && shift
	ts_err="$TMP/tui.err"
	[ "$ts_name" = s ] || ts_err="$TMP/tui-$ts_name.err"
	t new-session -d -s "$ts_name" -x 100 -y 30 -c "$TMP" \
		"env LANG=C.UTF-8 TERM=${TUI_TERM:-tmux-256color} $envs '$LECTERN' --context ${TUI_CONTEXT:-t} tui $* 2>'$ts_err'; echo \"TUI-EXIT=\$?\"; sleep 600"
}

# tui_at COLSxROWS [tui's arguments]: tui, then its window at that size
# (the tests that run at 80x24 and 200x60).
tui_at() {
	ta_size=$1
	shift
	tui "$@"
	t resize-window -t s -x "${ta_size%x*}" -y "${ta_size#*x}"
}

# The target is "=NAME:", the session of exactly that name: a bare "s"
# would also match a window whose name starts with s (a pane whose TUI has
# exited runs sleep) in the newest session.
screen() { t capture-pane -p -t "=${TUI_SESSION:-s}:"; }

# wait_for REGEX [WHAT]: until the screen matches the extended regex.
wait_for() {
	i=0
	while ! screen | grep -Eq -- "$1"; do
		i=$((i + 1))
		if [ $i -ge $((DEADLINE * 10)) ]; then
			fail "${2:-screen} never showed /$1/:
$(screen)
stderr: $(cat "$TMP/tui.err" 2>/dev/null)"
			return 1
		fi
		sleep 0.1
	done
	pass
}

# wait_gone REGEX [WHAT]: until no screen line matches.
wait_gone() {
	i=0
	while screen | grep -Eq -- "$1"; do
		i=$((i + 1))
		if [ $i -ge $((DEADLINE * 10)) ]; then
			fail "${2:-screen} still shows /$1/:
$(screen)"
			return 1
		fi
		sleep 0.1
	done
	pass
}

# expect_line N TEXT: screen line N (1-based) is exactly TEXT (trailing
# spaces ignored).
expect_line() {
	got=$(screen | sed -n "${1}p" | sed 's/ *$//')
	if [ "$got" = "$2" ]; then pass; else
		fail "line $1 is '$got', expected '$2':
$(screen)"
	fi
}

keys() { t send-keys -t "=${TUI_SESSION:-s}:" "$@"; }

# quit_tui: Q, then the exit status must be 0 and stderr empty (a
# sanitizer report lands there); of the session TUI_SESSION names, whose
# stderr tui_session put beside s's.
quit_tui() {
	qt_err="$TMP/tui.err"
	[ "${TUI_SESSION:-s}" = s ] || qt_err="$TMP/tui-$TUI_SESSION.err"
	keys Q
	wait_for '^TUI-EXIT=0( |$)' "the TUI's exit${TUI_SESSION:+ in session $TUI_SESSION}" || return 1
	if [ -s "$qt_err" ]; then
		fail "the TUI wrote to stderr: $(cat "$qt_err")"
	else
		pass
	fi
}

finish() {
	echo "$passes passed, $failures failed"
	[ "$failures" -eq 0 ]
}
