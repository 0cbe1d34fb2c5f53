#!/bin/sh
# `lectern builds` marks a pull request's build as the service's
# dashboard marks it (issue 40, item 6): a signed GitHub pull_request
# delivery for a project with external builds on builds refs/pull/7/head,
# and the table shows that build's version as "#7 (PR)" while latest's
# stays "latest"; --json carries the v3 build's version_type (Lectern's
# extension) as it came; a branch preview is "preview-fix (EV)".
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/git.sh"
. "$LEC_TESTS/forge.sh"
use_local_engine

REPO="$DATA/marked"
mkdir -p "$REPO/docs"
printf '# Marked\n\nThe published guide.\n' >"$REPO/docs/index.md"
make_repo "$REPO"
head=$(pull_request_head "$REPO" 7 docs/index.md "Pull request seven.")
git_env -C "$REPO" branch -q fix "$head"

expect_status 0 "$LECTERN" import "file://$REPO"
wait_builds marked '^[0-9]+ +latest +finished +passed '
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/marked/ -d '{"external_builds_enabled": true}'
expect_status 0 "$LECTERN" integrations marked add github
url=$(sed -n 's/^webhook URL: //p' "$DATA/out")
secret=$(sed -n 's/^secret: *//p' "$DATA/out")
github_opened "$url" "$secret" 7 "$head" >"$DATA/out"
expect_match out '"versions":\["7"\]'

wait_builds marked '^[0-9]+ +#7 \(PR\) +finished +passed '
expect_match builds '^[0-9]+ +latest +finished +passed '
expect_status 0 "$LECTERN" builds marked --json
expect_match out '"version_type": *"external"'
expect_match out '"external_forge": *"github"'
expect_match out '"version_type": *"branch"'

expect_status 0 "$LECTERN" preview-branch marked fix --exit-status
wait_builds marked '^[0-9]+ +preview-fix \(EV\) +finished +passed '
finish
