#!/bin/sh
# A mistyped name fails loudly (issue 15, item 2): against a real `lectern
# serve`, every command that reads or changes something under a project,
# version or build that does not exist exits 1 with the server's 404 in one
# line on stderr and nothing on stdout (never an empty table and status 0).
# Also: `status` with an argument is a wrong command line (status 2), and
# `lectern log` of a failed build ends with the build's error.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# No build workers: the builds below are written into the store.
"$LECTERN" serve --listen 127.0.0.1:0 --workers 0 >"$DATA/serve.out" 2>"$DATA/serve.err" &
server_pid=$!
for _ in $(seq 1 100); do grep -q '^listening on ' "$DATA/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's,^listening on \(http://[^/]*\)/*$,\1,p' "$DATA/serve.out")
"$LECTERN" token create tester >"$DATA/token"
chmod 600 "$DATA/token"
"$LECTERN" context add t --url "$url" --token-file "$DATA/token" >/dev/null || fail "context add"
"$LECTERN" --context t import https://example.com/there.git --name There --no-wait >/dev/null ||
	fail "import"

# not_found LINE CMD...: exit 1, one line naming what is missing (LINE, a
# regex after "lectern: "), no output.
not_found() {
	line=$1
	shift
	expect_status 1 "$LECTERN" --context t "$@"
	expect_match err "^lectern: $line\$"
	[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "'$*': not one line: $(cat "$DATA/err")"
	[ -s "$DATA/out" ] && fail "'$*' printed: $(cat "$DATA/out")" || pass
}

# The missing name is named (not "No Project matches the given query.").
nop="no project 'nosuch' on context t"
not_found "$nop" versions nosuch
not_found "$nop" versions nosuch --json
not_found "$nop" builds nosuch
not_found "$nop" builds nosuch --running
not_found "$nop" redirects nosuch
not_found "$nop" env nosuch
not_found "$nop" subprojects nosuch
not_found "$nop" translations nosuch
not_found "$nop" version nosuch latest
not_found "$nop" version nosuch latest --active
not_found "$nop" build nosuch
not_found "$nop" warnings nosuch
not_found "$nop" webhooks nosuch
not_found "$nop" integrations nosuch
not_found "$nop" notifications --project nosuch
not_found "no version 'nosuch' of project 'there'" version there nosuch
not_found "no version 'nosuch' of project 'there'" build there nosuch
not_found "no build 99999 on context t" log 99999
# ... and the near ones are offered, as gh and git do.
not_found "no project 'thre' on context t; did you mean 'there'\\?" versions thre
not_found "no project 'ther' on context t; did you mean 'there'\\?" builds ther
not_found "no version 'lates' of project 'there'; did you mean 'latest'\\?" build there lates
# A mistyped command or option: "did you mean", exit 2.
expect_status 2 "$LECTERN" projcts
expect_match err "^lectern: unknown command 'projcts'; did you mean 'projects'\\?\$"
expect_status 2 "$LECTERN" context lst
expect_match err "^lectern: unknown command 'lst' after 'context'; did you mean 'list'\\?\$"
expect_status 2 "$LECTERN" --context t projects --jsn
expect_match err "^lectern: projects: unknown option '--jsn'; did you mean '--json'\\?\$"
expect_status 2 "$LECTERN" --context t builds there --limt 2
expect_match err "^lectern: builds: unknown option '--limt'; did you mean '--limit'\\?\$"
expect_status 2 "$LECTERN" frobnicate
expect_match err "^lectern: unknown command 'frobnicate' \\(see 'lectern --help'\\)\$"
# `cancel BUILD`: a build waiting for a worker (this server has none) is
# cancelled by its id alone, as `log` names one.
expect_status 0 "$LECTERN" --context t build there
queued=$(sed -n 's/^triggered build \([0-9]*\) of .*/\1/p' "$DATA/out")
expect_status 0 "$LECTERN" --context t cancel "$queued"
expect_match out "^cancelled build $queued of there/latest\$"
expect_status 0 "$LECTERN" --context t builds there --limit 1
expect_match out "^$queued +latest +cancelled "
expect_status 1 "$LECTERN" --context t cancel "$queued"
# A finished one: said with its id, not the API's bare detail (issue 43).
expect_match err "^lectern: build $queued of there has already finished: nothing to cancel\$"
not_found "no build 99999 on context t" cancel 99999
expect_status 2 "$LECTERN" --context t cancel there
expect_match err "^lectern: cancel: 'there' is not a build id\$"
# The one that exists still works.
expect_status 0 "$LECTERN" --context t versions there
expect_match out '^latest '

# A wrong command line is status 2, `status` included.
expect_status 2 "$LECTERN" status now
expect_match err "^lectern: status: unexpected argument 'now'\$"

# ---- status and stop act on the context (issue 43, item 1): this URL
# context's engine through its API (version, workers, builds), never the
# local data directory; stop is refused with what to do instead, and the
# engine keeps running.
"$LECTERN" --context t build there >/dev/null
expect_status 0 env LECTERN_CONTEXT=t "$LECTERN" status
expect_match out "^context: +t \\($url\\)\$"
expect_match out '^version: +Lectern [^ ]+ \(community\)$'
expect_match out '^workers: +0 \(builds wait'
expect_match out '^builds: +0 running, 1 waiting; yours:$'
expect_match out '^  #[0-9]+ there/latest: queued #1 \(since 20[0-9: -]+\)$'
if grep -q 'data directory\|^engine:' "$DATA/out"; then fail "status described the local data directory"; else pass; fi
[ ! -e "$LECTERN_DATA/serve.pid" ] && pass || fail "status started a local engine"
expect_status 0 "$LECTERN" --context t status --json
python3 - "$DATA/out" <<'PY' && pass || fail "status --json: $(cat "$DATA/out")"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["context"] == "t" and o["local"] is None, o
assert o["status"]["workers"] == 0 and o["status"]["builds"] == {"running": 0, "waiting": 1}, o
assert o["status"]["version"], o
assert [b["project"] for b in o["builds"]] == ["there"] and o["queue"]["count"] == 1, o
PY
expect_status 1 "$LECTERN" --context t stop
expect_match err "^lectern: stop: context 't' is an instance at $url, reached by URL: stop its engine on that machine"
kill -0 "$server_pid" && pass || fail "stop through a URL context stopped its engine"
expect_status 0 "$LECTERN" --context t api /api/v3/status/
expect_match out '"workers":0'

# `log` ends with the build's error.
id=$(/usr/bin/python3 - "$LECTERN_DATA/lectern.db" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=30)
us = int(time.time()) * 1000000
pid = c.execute("SELECT id FROM projects WHERE slug = 'there'").fetchone()[0]
vid = c.execute("SELECT id FROM versions WHERE project_id = ? AND slug = 'latest'", (pid,)).fetchone()[0]
with c:
    b = c.execute("INSERT INTO builds (project_id, version_id, state, success, error, created, finished, duration)"
                  " VALUES (?, ?, 'finished', 0, 'Error: no docs here (command \"make\" failed with exit code 2)', ?, ?, 1)",
                  (pid, vid, us, us)).lastrowid
    c.execute("INSERT INTO build_commands (build_id, command, output, exit_code, start_time, end_time)"
              " VALUES (?, 'make', 'Error: no docs here\n', 2, ?, ?)", (b, us, us))
print(b)
PY
)
expect_status 0 "$LECTERN" --context t log "$id"
[ "$(tail -n 1 "$DATA/out")" = 'error: Error: no docs here (command "make" failed with exit code 2)' ] && pass ||
	fail "log ends with: $(tail -n 1 "$DATA/out")"

finish
