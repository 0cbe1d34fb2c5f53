#!/bin/sh
# Versions (issue 31, item 9): `stable` appears with the import's version
# sync and is built as the service builds it, so /en/stable/ is served;
# `lectern versions` lists them as the service's dashboard does (latest,
# stable, then the newest version first, then the other branches), while
# --json keeps the API's order (verbose_name descending, as the service's
# v3).
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

REPO="$DATA/tagged"
mkdir -p "$REPO/docs"
printf '# Tagged\n\nThe guide.\n' >"$REPO/docs/index.md"
make_repo "$REPO"
for tag in v1.0 v2.0 v10.0 v11.0rc1; do git_env -C "$REPO" tag "$tag"; done
git_env -C "$REPO" branch dev

expect_status 0 "$LECTERN" import "file://$REPO"
# The import's own build (latest) passed; stable's follows.
wait_builds tagged '^[0-9]+ +stable +finished +passed '
expect_match builds '^[0-9]+ +latest +finished +passed '
url=$("$LECTERN" api /api/v3/projects/tagged/versions/stable/ |
	sed -n 's/.*"documentation":"\([^"]*\)".*/\1/p')
code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 200 ] && pass || fail "stable's docs at '$url' answer $code"

expect_status 0 "$LECTERN" versions tagged
sed 1d "$DATA/out" | awk '{print $1}' | tr '\n' ' ' >"$DATA/order"
[ "$(cat "$DATA/order")" = "latest stable v11.0rc1 v10.0 v2.0 v1.0 main dev " ] && pass ||
	fail "versions in the order '$(cat "$DATA/order")'"
expect_status 0 "$LECTERN" versions tagged --json
tr ',' '\n' <"$DATA/out" | sed -n 's/^"slug":"\(.*\)"$/\1/p' | tr '\n' ' ' >"$DATA/order"
[ "$(cat "$DATA/order")" = "v2.0 v11.0rc1 v10.0 v1.0 stable main latest dev " ] && pass ||
	fail "--json in the order '$(cat "$DATA/order")'"

finish
