#!/bin/sh
# `lectern notifications` and `lectern webhooks` against the local engine:
# a failing build's notification is listed on its build and marked read
# then dismissed; a webhook added prints its secret once, the list never
# shows it, a build's delivery is listed as delivered to a loopback
# receiver, remove deletes it, and bad arguments are usage errors. The
# local engine is started here, as the CLI would, but allowed to reach
# the receiver on loopback (`serve --webhook-allow`).
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
cleanup() {
	[ -n "${RECEIVER:-}" ] && kill "$RECEIVER" 2>/dev/null
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT

"$LECTERN" serve --local-engine --listen 127.0.0.1:0 --webhook-allow 127.0.0.0/8 \
	>"$DATA/engine.out" 2>"$DATA/engine.err" &
i=0
until grep -q '^listening on' "$DATA/engine.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.1
done
grep -q '^listening on' "$DATA/engine.out" && pass ||
	fail "the local engine did not start: $(cat "$DATA/engine.err")"

REPO="$DATA/repo"
mkdir -p "$REPO"
printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\n  commands:\n    - "exit 3"\n' \
	>"$REPO/.readthedocs.yaml"
git -C "$REPO" init -q -b main
git -C "$REPO" add -A
git -C "$REPO" -c user.email=t@example.com -c user.name=t commit -q -m docs

expect_status 1 "$LECTERN" import "file://$REPO" --name "Broken"
# Raised just after the build is final: asked until it shows.
i=0
until "$LECTERN" notifications --project broken --build 1 2>/dev/null | grep -q '^1 '; do
	i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.1
done
expect_status 0 "$LECTERN" notifications --project broken --build 1
# ON names the project, the version and the build (issue 43, item 4).
expect_match out '^1 +unread +broken/latest #1 +Unknown problem'
expect_status 0 "$LECTERN" notifications read 1 --project broken --build 1
expect_match out '^notification 1: read$'
expect_status 0 "$LECTERN" notifications dismiss 1 --project broken --build 1
expect_match out '^notification 1: dismissed$'
expect_status 0 "$LECTERN" notifications --project broken --build 1
if grep -q '^1 ' "$DATA/out"; then fail "a dismissed one is listed"; else pass; fi
expect_status 0 "$LECTERN" notifications --project broken --build 1 --all --json
expect_match out '"state":"dismissed"'
# The feed has the user's projects' notifications: the version's first
# build failing is one (issue 43, item 4), naming project, version, build.
expect_status 0 "$LECTERN" notifications
expect_match out '^[0-9]+ +unread +broken/latest #1 +broken/latest: its first build, #1, failed$'
expect_status 0 "$LECTERN" notifications --json
expect_match out '"build":\{"_links":\{"_self":"http://[^"]*/api/v3/projects/broken/builds/1/"\},"id":1,"version":"latest"\}'
expect_match out '"project":"broken"'
expect_status 2 "$LECTERN" notifications --build 1
expect_status 2 "$LECTERN" notifications read one
expect_status 2 "$LECTERN" notifications open 1

# A receiver on loopback that answers 200.
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()' >"$DATA/port" &
RECEIVER=$!
i=0
while [ ! -s "$DATA/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$DATA/port")

expect_status 0 "$LECTERN" webhooks broken add "http://127.0.0.1:$PORT/hook" --events build:failed
expect_match out "^webhook 1: http://127\.0\.0\.1:$PORT/hook$"
expect_match out '^secret: [A-Za-z0-9]{32}$'
secret=$(sed -n 's/^secret: //p' "$DATA/out")
expect_status 0 "$LECTERN" webhooks broken
expect_match out '^1 +build:failed +http://127'
if grep -q "$secret" "$DATA/out"; then fail "the list shows the secret"; else pass; fi
expect_status 0 "$LECTERN" webhooks broken --json
if grep -q "$secret" "$DATA/out"; then fail "the JSON shows the secret"; else pass; fi

"$LECTERN" build broken >/dev/null 2>&1
i=0
while [ $i -lt 300 ]; do
	"$LECTERN" webhooks broken deliveries 1 >"$DATA/out" 2>"$DATA/err"
	grep -q 'delivered' "$DATA/out" && break
	sleep 0.1
	i=$((i + 1))
done
expect_match out '^[0-9]+ +build:failed +2 +delivered +1 +200 '

expect_status 2 "$LECTERN" webhooks broken remove one
expect_status 2 "$LECTERN" webhooks broken drop 1
expect_status 0 "$LECTERN" webhooks broken remove 1
expect_match out '^removed webhook 1 from broken$'
expect_status 1 "$LECTERN" webhooks broken remove 1
finish
