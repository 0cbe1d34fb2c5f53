#!/bin/sh
# Watching one build (issue 15): a running build's header shows its state,
# its time so far and the command it runs, never a result (the API's
# `success` is provisional until the build ends: item 1); a fetching
# build shows its progress as one line on the build screen and in the
# list (5); a failed build's whole error is on its screen, wrapped at
# spaces, and
# long log lines scroll sideways or wrap (4); quitting with a running
# build's log open asks once. The builds are written into the store
# directly, in the states a worker leaves them in mid-build, so the
# screens are checked without racing a real build.
. "$LEC_TESTS/tui/lib.sh"

start_server
api POST /api/v3/projects/ '{"name": "Watch", "repository": {"url": "https://example.com/watch.git"}}' >/dev/null
long_error="Error: the theme 'furo' is not installed; $(printf 'x%.0s' $(seq 120)) END-OF-ERROR (command \"python -m sphinx -b html\" failed with exit code 2)"
long_line="start-of-line $(printf 'y%.0s' $(seq 150)) end-of-line"
ids=$(/usr/bin/python3 - "$TMP/data/lectern.db" "$long_error" "$long_line" <<'PY'
import sqlite3, sys, time
db, error, line = sys.argv[1], sys.argv[2], sys.argv[3]
us = 1000000
now = int(time.time()) * us
c = sqlite3.connect(db, timeout=30)
pid = c.execute("SELECT id FROM projects WHERE slug = 'watch'").fetchone()[0]
vid = c.execute("SELECT id FROM versions WHERE project_id = ? AND slug = 'latest'", (pid,)).fetchone()[0]
def build(state, success, error=None, progress=None, ago=5, final=False):
    return c.execute(
        "INSERT INTO builds (project_id, version_id, state, success, error, commit_sha,"
        " created, started, finished, duration, progress) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (pid, vid, state, success, error, "a" * 40, now - ago * us, now - ago * us,
         now if final else None, ago if final else None, progress)).lastrowid
with c:
    failed = build("finished", 0, error=error, final=True, ago=100)
    c.execute("INSERT INTO build_commands (build_id, command, output, exit_code, start_time, end_time)"
              " VALUES (?, 'python -m sphinx -b html', ?, 2, ?, ?)", (failed, line + "\nlast\n", now, now))
    running = build("building", 1, ago=30)
    c.execute("INSERT INTO build_commands (build_id, command, output, exit_code, start_time, end_time)"
              " VALUES (?, 'git clone', '', 0, ?, ?)", (running, now - 30 * us, now - 20 * us))
    c.execute("INSERT INTO build_commands (build_id, command, output, exit_code, start_time, end_time)"
              " VALUES (?, 'make html', 'compiling page 1\n', NULL, ?, NULL)", (running, now - 20 * us))
    cloning = build("cloning", 1, progress='{"phase": "receiving", "objects": 1200,'
                    ' "total": 3000, "bytes": 2097152, "percent": 40}', ago=2)
print(failed, running, cloning)
PY
)
set -- $ids
failed=$1 running=$2 cloning=$3

tui
wait_for '^watch +Watch ' "the project"
keys : b u i l d s ' ' w a t c h Enter
# ---- 1 and 5 in the list: states without a result, the clone's progress.
# (At 100 columns the Error column keeps 18 characters: "receiving 40%, 12…".)
wait_for "^$cloning +latest +cloning +[0-9]+s +hand +[0-9]+s +aaaaaaa +receiving 40%, 12" "the cloning build's progress in the list"
wait_for "^$running +latest +building +[0-9]+s +hand +[0-9]+s +aaaaaaa *\$" "the running build without a result"
wait_for "^$failed +latest +finished +failed " "the failed build"

# ---- 1: the running build's header: state, time so far, the command.
keys : b u i l d ' ' "$running" Enter
wait_for "^Build #$running  watch/latest  building  by hand  [0-9]+s  \\\$ make html  \\[following\\]" "the running build's header"
screen | sed -n 2p | grep -q passed && fail "a running build shows a result" || pass
wait_for '^  compiling page 1 *$' "the running command's output"

# ---- quitting with the running build's log open asks once.
keys : q Enter
wait_for "^a running build's log is open: quit again to leave \\(Q quits at once\\)" "the question"
screen | grep -q 'TUI-EXIT' && fail "quit without asking" || pass
keys q
wait_for '^#  ' "back on the list"

# ---- 5: the fetching build's progress line on its screen.
keys : b u i l d ' ' "$cloning" Enter
wait_for "^Build #$cloning  watch/latest  cloning  by hand  [0-9]+s" "the cloning build's header"
wait_for '^receiving 40%, 1200/3000 objects, 2\.0 MiB *$' "the progress line"
keys q

# ---- 4: the failed build's whole error, wrapped, and its long line.
keys : b u i l d ' ' "$failed" Enter
wait_for "^Build #$failed  watch/latest  finished failed " "the failed build's header"
wait_for 'END-OF-ERROR' "the end of the error on screen"
# Broken at a space, not mid-word: the run of x's, wider than the
# screen, starts a line of its own.
wait_for "^Error: the theme 'furo' is not installed; *\$" "the error's first line, ended at a space"
wait_for 'exit code 2\) *$' "the error's last words"
wait_for '^  start-of-line y+…$' "the long line, cut"
keys j j l l
wait_for '^  yyyy+…$' "the long line scrolled sideways"
keys h h w
wait_for '^wrapping long lines' "the wrap message"
wait_for '^  y+ end-of-line *$' "the long line's end, wrapped"
wait_for '^  start-of-line y+$' "the long line's start, wrapped"
keys / l a s t Enter
wait_for '^  last *$' "search in the wrapped log"
keys s
wait_for "^saved [0-9]+ lines to $TMP/downloads/lectern-build-$failed.log" "the saved log"
grep -qx "$long_line" "$TMP/downloads/lectern-build-$failed.log" && pass ||
	fail "the saved log does not have the long line whole: $(cat "$TMP/downloads/lectern-build-$failed.log")"
quit_tui

# ---- 4: `lectern log` ends with the build's error.
"$LECTERN" --context t log "$failed" >"$TMP/log.out" 2>"$TMP/log.err"
[ "$(tail -n 1 "$TMP/log.out")" = "error: $long_error" ] && pass ||
	fail "lectern log ends with: $(tail -n 1 "$TMP/log.out")"

finish
