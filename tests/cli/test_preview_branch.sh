#!/bin/sh
# Branch previews (issue 40, item 5): `lectern preview-branch PROJECT
# BRANCH` builds a branch that is not an active version the way a pull
# request's version is built, and prints the host it is served on
# (<project>--preview-<branch>.external.localhost:<port>), which serves
# the branch's pages, marked noindex, while the docs domain does not; a
# branch the repository lacks, or one that is an active version, is
# refused with the reason.
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/git.sh"
use_local_engine

REPO="$DATA/branchy"
mkdir -p "$REPO/docs"
printf '# Branchy\n\nThe published guide.\n' >"$REPO/docs/index.md"
make_repo "$REPO"
git_env -C "$REPO" checkout -q -b fix
printf '# Branchy\n\nA fix under review.\n' >"$REPO/docs/index.md"
git_env -C "$REPO" commit -q -am "A fix"
git_env -C "$REPO" checkout -q main

expect_status 0 "$LECTERN" import "file://$REPO"
wait_builds branchy '^[0-9]+ +latest +finished +passed '

expect_status 0 "$LECTERN" preview-branch branchy fix --exit-status
expect_match out "^triggered build [0-9]+ of branchy's preview of fix: http://branchy--preview-fix\.external\.localhost:[0-9]+/en/preview-fix/$"
expect_match out '^build [0-9]+ passed$'
url=$(sed -n 's/^triggered build .*: \(http.*\)$/\1/p' "$DATA/out")
curl -s -D "$DATA/headers" -o "$DATA/page" "$url"
grep -q 'A fix under review' "$DATA/page" && pass || fail "the preview at '$url' is not the branch's"
grep -qi '^X-Robots-Tag: noindex' "$DATA/headers" && pass || fail "no noindex: $(cat "$DATA/headers")"
docs=$(printf '%s' "$url" | sed 's/--preview-fix\.external\./\./')
# Its visual diff is against latest's same page on the docs domain, which
# lets the preview's host read it (another origin).
port=$(printf '%s' "$url" | sed 's|.*:\([0-9]*\)/.*|\1|')
curl -s "${url%/en/*}/_/addons/?api-version=1&client-version=1&url=$(printf '%s' "${url}index.html" | sed 's/:/%3A/g; s|/|%2F|g')" >"$DATA/addons"
base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["addons"]["doc_diff"]["base_url"])' "$DATA/addons")
[ "$base" = "http://branchy.localhost:$port/en/latest/index.html" ] && pass || fail "diff base: $base"
origin=$(curl -s -D - -o /dev/null -H "Origin: ${url%/en/*}" "$base" | tr -d '\r' | sed -n 's/^[Aa]ccess-[Cc]ontrol-[Aa]llow-[Oo]rigin: //p')
[ "$origin" = "${url%/en/*}" ] && pass || fail "the docs domain does not let the preview read latest: '$origin'"
code=$(curl -s -o /dev/null -w '%{http_code}' "$docs")
[ "$code" = 404 ] && pass || fail "the docs domain serves the preview: $code at $docs"

expect_status 1 "$LECTERN" preview-branch branchy nowhere
grep -q 'no branch "nowhere"' "$DATA/err" && pass || fail "unknown branch: $(cat "$DATA/err")"
"$LECTERN" version branchy main --active >/dev/null 2>&1
expect_status 1 "$LECTERN" preview-branch branchy main
grep -q 'is an active version' "$DATA/err" && pass || fail "active branch: $(cat "$DATA/err")"

finish
