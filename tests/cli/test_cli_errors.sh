#!/bin/sh
# Failures against remote contexts each give one clear line on stderr and
# exit status 1, never a crash: a dead server, a 401 (bad token), a 429
# with Retry-After (retried, then reported), a malformed JSON answer, and
# bad URLs. The misbehaving server is tests/cli/fake_server.py.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
export FAKE_TOKEN=fake-token-never-printed
fake_pid=

cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# start_fake MODE: run the fake server, add context MODE pointing at it.
start_fake() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	: >"$DATA/fake.log"
	# A file per server: the background redirection may happen after the
	# loop below first looks.
	python3 "$LEC_TESTS/cli/fake_server.py" "$1" "$DATA/fake.log" >"$DATA/fake.$1" &
	fake_pid=$!
	for i in $(seq 1 100); do
		grep -q '^port ' "$DATA/fake.$1" 2>/dev/null && break
		sleep 0.05
	done
	port=$(sed -n 's/^port //p' "$DATA/fake.$1")
	"$LECTERN" context add "f$1" --url "http://127.0.0.1:$port" --token-env FAKE_TOKEN \
		>/dev/null || fail "context f$1 not added"
}

# one_line_failure: the last command exited 1 with exactly one line.
one_line_failure() {
	[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "not one line: $(cat "$DATA/err")"
	if grep -q "$FAKE_TOKEN" "$DATA/out" "$DATA/err"; then fail "token printed"; else pass; fi
	if grep -qi 'sanitizer\|runtime error' "$DATA/err"; then fail "crash: $(cat "$DATA/err")"; else pass; fi
}

# The ok mode answers an empty list: the plumbing works.
start_fake ok
expect_status 0 "$LECTERN" --context fok projects
expect_match out '^SLUG +NAME'
grep -q '^GET /api/v3/projects/ auth$' "$DATA/fake.log" && pass || fail "no authorized request: $(cat "$DATA/fake.log")"

# 401: the server's message and the status.
start_fake 401
expect_status 1 "$LECTERN" --context f401 projects
expect_match err '^lectern: Invalid token\. \(HTTP 401\)$'
one_line_failure
expect_status 1 "$LECTERN" --context f401 build some-project latest --exit-status
expect_match err '^lectern: Invalid token\. \(HTTP 401\)$'
one_line_failure
# A 401 to `api` still shows the body on stdout.
expect_status 1 "$LECTERN" --context f401 api /api/v3/projects/
expect_match out '^\{"detail":"Invalid token\."\}$'
one_line_failure

# 429 with Retry-After: retried (honouring the wait), then reported.
start_fake 429
expect_status 1 "$LECTERN" --context f429 versions some-project
expect_match err '^lectern: Request was throttled\. \(HTTP 429\)$'
one_line_failure
[ "$(grep -c . "$DATA/fake.log")" -gt 1 ] && pass || fail "429 was not retried"

# A malformed JSON answer.
start_fake badjson
expect_status 1 "$LECTERN" --context fbadjson projects
expect_match err "^lectern: invalid JSON in response from http://127\\.0\\.0\\.1:$port/api/v3/projects/"
one_line_failure
expect_status 1 "$LECTERN" --context fbadjson builds p --json
one_line_failure

# A dead server (the fake one, stopped).
kill "$fake_pid"
wait "$fake_pid" 2>/dev/null
fake_pid=
expect_status 1 "$LECTERN" --context fbadjson projects
expect_match err "^lectern: connection refused to 127\\.0\\.0\\.1:$port\$"
one_line_failure
expect_status 1 "$LECTERN" --context fbadjson log 1 --follow
one_line_failure

# Bad URLs: refused when the context is made, or named by the config.
expect_status 2 "$LECTERN" context add bad --url 'http://' --token-env FAKE_TOKEN
expect_match err '^lectern: context add: --url must be http:// or https:// and a host$'
expect_status 2 "$LECTERN" context add bad --url 'not a url' --token-env FAKE_TOKEN
expect_status 2 "$LECTERN" context add bad --url 'http://host/a b' --token-env FAKE_TOKEN
printf '[context bad]\nurl = localhost:8000\ntoken-env = FAKE_TOKEN\n' >>"$XDG_CONFIG_HOME/lectern/config"
expect_status 1 "$LECTERN" --context fok projects
expect_match err "^lectern: $XDG_CONFIG_HOME/lectern/config:[0-9]+: url: must be http:// or https:// and a host$"
one_line_failure

finish
