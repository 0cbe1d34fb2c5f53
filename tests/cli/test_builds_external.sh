#!/bin/sh
# `lectern builds` marks a pull request's build as the service's
# dashboard marks it (issue 40, item 6): a signed GitHub pull_request
# delivery for a project with external builds on builds refs/pull/7/head,
# and the table shows that build's version as "#7 (PR)" while latest's
# stays "latest"; --json carries the v3 build's version_type (Lectern's
# extension) as it came; a branch preview is "preview-fix (EV)".
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/git.sh"
export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The repository as GitHub keeps a pull request: its head on a commit
# only refs/pull/7/head names.
REPO="$DATA/marked"
mkdir -p "$REPO/docs"
printf '# Marked\n\nThe published guide.\n' >"$REPO/docs/index.md"
make_repo "$REPO"
git_env -C "$REPO" checkout -q -b fix
printf '# Marked\n\nPull request seven.\n' >"$REPO/docs/index.md"
git_env -C "$REPO" commit -q -am "Pull request seven"
head=$(git_env -C "$REPO" rev-parse HEAD)
git_env -C "$REPO" update-ref refs/pull/7/head "$head"
git_env -C "$REPO" checkout -q main

# wait_for PATTERN: until `lectern builds marked` has a line matching it.
wait_for() {
	i=0
	until "$LECTERN" builds marked >"$DATA/builds" 2>&1 && grep -Eq "$1" "$DATA/builds"; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.2
	done
	expect_match builds "$1"
}

expect_status 0 "$LECTERN" import "file://$REPO"
wait_for '^[0-9]+ +latest +finished +passed '
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/marked/ -d '{"external_builds_enabled": true}'
expect_status 0 "$LECTERN" integrations marked add github
url=$(sed -n 's/^webhook URL: //p' "$DATA/out")
secret=$(sed -n 's/^secret: *//p' "$DATA/out")
body='{"action": "opened", "number": 7, "pull_request": {"head": {"sha": "'"$head"'", "ref": "fix"}, "base": {"ref": "main"}}, "repository": {"full_name": "example/marked"}}'
sig=$(printf '%s' "$body" | python3 -c 'import hmac,hashlib,sys; print("sha256=" + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())' "$secret")
curl -s -H 'Content-Type: application/json' -H 'X-GitHub-Event: pull_request' \
	-H "X-Hub-Signature-256: $sig" -d "$body" "$url" >"$DATA/out"
expect_match out '"versions":\["7"\]'

wait_for '^[0-9]+ +#7 \(PR\) +finished +passed '
expect_match builds '^[0-9]+ +latest +finished +passed '
expect_status 0 "$LECTERN" builds marked --json
expect_match out '"version_type": *"external"'
expect_match out '"external_forge": *"github"'
expect_match out '"version_type": *"branch"'

expect_status 0 "$LECTERN" preview-branch marked fix --exit-status
wait_for '^[0-9]+ +preview-fix \(EV\) +finished +passed '
finish
