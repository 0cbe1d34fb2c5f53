#!/bin/sh
# `lectern diff` against the auto-started local engine: a Markdown fixture
# built twice, its second commit changing one sentence of one section; the
# unified diff by build and by version, one page, --json, no change, and
# the errors for bad and unknown references.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR

cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$LEC_TESTS/git.sh"
REPO="$DATA/guide.git"
mkdir -p "$REPO/docs"
printf '# Diff Guide\n\nWelcome.\n' >"$REPO/docs/index.md"
printf '# Usage\n\n## Calling\n\nCall it once. It returns zero. Done.\n' >"$REPO/docs/usage.md"
make_repo "$REPO"

expect_status 0 "$LECTERN" import "file://$REPO" --name "Guide"
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/guide/ -d '{"watch_commits": false}'
first=$("$LECTERN" builds guide --json | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | head -n 1)
[ -n "$first" ] && pass || fail "no first build"
printf '# Usage\n\n## Calling\n\nCall it once. It returns one. Done.\n' >"$REPO/docs/usage.md"
git_env -C "$REPO" commit -q -am "change one sentence"
expect_status 0 "$LECTERN" build guide --watch --exit-status

# ---- The unified diff: one page, one hunk, the changed sentence.
expect_status 0 "$LECTERN" diff guide "build:$first" latest
cat >"$DATA/want" <<END
--- a/usage.html	(build:$first)
+++ b/usage.html	(latest)
@@ #calling Calling @@
 Call it once.
-It returns zero.
+It returns one.
 Done.
END
cmp -s "$DATA/want" "$DATA/out" && pass || fail "unified diff: $(diff "$DATA/want" "$DATA/out")"
# One page by its name, without .html; an unchanged page prints nothing.
expect_status 0 "$LECTERN" diff guide "build:$first" latest usage
cmp -s "$DATA/want" "$DATA/out" && pass || fail "one page: $(cat "$DATA/out")"
expect_status 0 "$LECTERN" diff guide "build:$first" latest index.html
[ ! -s "$DATA/out" ] && pass || fail "unchanged page printed: $(cat "$DATA/out")"
# --json: the answer as the instance sent it.
expect_status 0 "$LECTERN" diff guide latest "build:$first" --json
expect_match out '"lines":\[" Call it once.","-It returns one.","\+It returns zero."," Done."\]'
expect_match out '"unchanged":1'

# ---- Errors: a bad reference is the server's 400, an unknown one its 404.
expect_status 1 "$LECTERN" diff guide build:x latest
expect_match err 'base.*build:<id>'
expect_status 1 "$LECTERN" diff guide build:99999 latest
expect_match err 'No build 99999 in this project'
expect_status 1 "$LECTERN" diff guide nosuch latest
expect_match err 'No Version matches the given query'
expect_status 2 "$LECTERN" diff guide latest
expect_status 1 "$LECTERN" diff nosuch latest latest

# The engine stopped cleanly (a sanitizer build reports leaks and errors
# into its log).
expect_status 0 "$LECTERN" stop
if grep -q 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log"; then
	fail "engine log: $(grep -A5 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log")"
else pass; fi

finish
