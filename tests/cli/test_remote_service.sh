#!/bin/sh
# The CLI against a remote that is not a Lectern (tests/cli/fake_service.py,
# answering like the hosted service's v3 fixtures): lists walked page by
# page, unknown fields ignored, a version's detail; search learns once that
# the remote is not a Lectern and uses the service's v3 search on the API
# host, with the token, honouring a 429's Retry-After, never the docs
# domain's v2 route; every request counted in the fake's log, so the
# command's request budget is measured.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

LOG="$DATA/requests"
: >"$LOG"
export SVC_TOKEN=0123456789abcdef
/usr/bin/python3 "$LEC_TESTS/cli/fake_service.py" "$LOG" "$SVC_TOKEN" >"$DATA/fake.out" 2>"$DATA/fake.err" &
fake_pid=$!
i=0
until grep -q '^listening on ' "$DATA/fake.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the fake did not start: $(cat "$DATA/fake.err")" >&2; exit 1; }
	sleep 0.1
done
URL=$(sed -n 's,^listening on \(http://[^/]*\)/$,\1,p' "$DATA/fake.out")
expect_status 0 "$LECTERN" context add svc --url "$URL" --token-env SVC_TOKEN --readonly

# count_requests: got = how many requests the log got since the last call.
seen=0
count_requests() {
	n=$(wc -l <"$LOG")
	got=$((n - seen))
	seen=$n
}

# ---- Lists: every page (limit 1 here), unknown fields ignored.
expect_status 0 "$LECTERN" --context svc projects
expect_match out '^project +project'
expect_match out '^other +Other project'
count_requests
[ "$got" -eq 2 ] && pass || fail "projects took other than 2 requests: $(cat "$LOG")"
expect_status 0 "$LECTERN" --context svc builds project
expect_match out '^3 '
count_requests
[ "$got" -eq 3 ] && pass || fail "builds took other than 3 requests: $(tail -n "$got" "$LOG")"
expect_status 0 "$LECTERN" --context svc api /api/v3/projects/project/versions/v1.0/
expect_match out '"slug":"v1.0"'
count_requests

# ---- Search: v3 on the API host with the token, after one 429.
start=$(date +%s)
expect_status 0 "$LECTERN" --context svc search install --project project
expect_match out 'Installation'
took=$(($(date +%s) - start))
[ "$took" -ge 1 ] && pass || fail "the 429's Retry-After was not waited for"
grep -q '^GET /api/v3/search/?q=project%3Aproject%20install auth$' "$LOG" && pass ||
	fail "no v3 search with the token: $(cat "$LOG")"
grep -q '_/api/v2/search' "$LOG" && fail "the v2 route was asked: $(cat "$LOG")" || pass
# Budget: one request learns what the remote is, then the 429 and its retry.
count_requests
[ "$got" -eq 3 ] && pass || fail "search took other than 3 requests: $(tail -5 "$LOG")"
# Every request carried the token (the fake's API host is the API's origin).
grep -q ' noauth$' "$LOG" && fail "a request went without the token" || pass

# ---- The log is v2's, which the service does not give for this build:
# the error says so and where the build's state is.
expect_status 1 "$LECTERN" --context svc log 3
expect_match err "build 3: this instance's v2 API does not show it"
expect_match err "lectern builds PROJECT"
count_requests

# ---- A write is refused before anything is sent (readonly context).
expect_status 1 "$LECTERN" --context svc build project
expect_match err "context 'svc' is read-only"
count_requests
[ "$got" -eq 0 ] && pass || fail "a refused write sent requests"

# ---- status and stop are about the context, never the local engine
# (issue 43, item 1): the service's API has no status, which is said;
# stop is refused before anything is sent (a read-only context).
expect_status 1 "$LECTERN" --context svc status
expect_match err "^lectern: status: context svc is not a Lectern: its API says nothing of workers or a queue\$"
if grep -q 'data directory' "$DATA/out"; then fail "status described the local data directory"; else pass; fi
count_requests
expect_status 1 "$LECTERN" --context svc stop
expect_match err "^lectern: context 'svc' is read-only\$"
[ ! -e "$LECTERN_DATA/serve.pid" ] && pass || fail "a local engine was started or stopped"
finish
