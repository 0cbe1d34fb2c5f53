#!/bin/sh
# `lectern integrations` against the auto-started local engine: add prints
# the webhook URL and a secret once (with the loopback warning), the list
# never shows the secret, a signed GitHub push to that URL builds, remove
# deletes it, and bad arguments are usage errors.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT

REPO="$DATA/repo"
mkdir -p "$REPO/docs"
printf '# Hooked\n' >"$REPO/docs/index.md"
git -C "$REPO" init -q -b main
git -C "$REPO" add -A
git -C "$REPO" -c user.email=t@example.com -c user.name=t commit -q -m docs

expect_status 0 "$LECTERN" import "file://$REPO" --name "Hooked"
expect_status 0 "$LECTERN" integrations hooked add github
expect_match out '^webhook URL: http://127\.0\.0\.1:[0-9]+/api/v2/webhook/hooked/[0-9]+/$'
expect_match out '^secret:      [A-Za-z0-9]{32}$'
expect_match err 'loopback address'
url=$(sed -n 's/^webhook URL: //p' "$DATA/out")
secret=$(sed -n 's/^secret: *//p' "$DATA/out")

expect_status 0 "$LECTERN" integrations hooked
expect_match out '^1 +github_webhook +http://'
if grep -q "$secret" "$DATA/out"; then fail "the list shows the secret"; else pass; fi
expect_status 0 "$LECTERN" integrations hooked --json
if grep -q "$secret" "$DATA/out"; then fail "the JSON shows the secret"; else pass; fi

# A push signed with the secret, as GitHub sends it, builds latest.
body='{"ref": "refs/heads/main"}'
sig=$(printf '%s' "$body" | python3 -c 'import hmac,hashlib,sys; print("sha256=" + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())' "$secret")
curl -s -H 'Content-Type: application/json' -H "X-Hub-Signature-256: $sig" -d "$body" "$url" >"$DATA/out"
expect_match out '"build_triggered":true'
expect_match out '"versions":\["latest"\]'

expect_status 2 "$LECTERN" integrations hooked add svn
expect_status 2 "$LECTERN" integrations hooked remove one
expect_status 0 "$LECTERN" integrations hooked remove 1
expect_match out '^removed integration 1 from hooked$'
expect_status 1 "$LECTERN" integrations hooked remove 1
expect_status 0 "$LECTERN" integrations hooked
if grep -q github_webhook "$DATA/out"; then fail "still listed"; else pass; fi
finish
