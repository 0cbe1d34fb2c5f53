#!/bin/sh
# `lectern check` on trees that do not build (issue 43, item 12): a tree
# of built HTML is named as one (a few "skipping" records, the rest
# counted, each said once: not again in the log on stderr), and a failing
# build's output is shown from the start of a line, with neither the
# error nor the records said twice.
. "$LEC_TESTS/cli/lib.sh"
CACHE="$DATA/cache"

# ---- A tree of built HTML: 42 pages, no sources.
mkdir -p "$DATA/site"
for i in $(seq 1 42); do
	printf '<html><body><p>page %s</p></body></html>\n' "$i" >"$DATA/site/page$i.html"
done
expect_status 1 "$LECTERN" check "$DATA/site" --cache "$CACHE/site"
[ "$(grep -c 'skipping' "$DATA/out")" -eq 3 ] && pass ||
	fail "not 3 skipping records: $(cat "$DATA/out")"
expect_match out '^page1\.html: warning: skipping page1\.html: HTML files are not published'
expect_match err '^lectern: check: the build failed: .*no documentation: .* \(only HTML: a built site\? give the tree it is built from\)$'
expect_match err '^39 more HTML files were left out, as the ones above$'
if grep -q 'skipping' "$DATA/err"; then fail "records said again on stderr: $(cat "$DATA/err")"; else pass; fi
[ "$(grep -c 'no documentation' "$DATA/err")" -eq 1 ] && pass ||
	fail "the error said twice: $(cat "$DATA/err")"

# ---- A failing build with a long output: its end from a line's start.
mkdir -p "$DATA/long"
cat >"$DATA/long/.readthedocs.yaml" <<'YAML'
version: 2
build:
  os: ubuntu-22.04
  tools: {python: "3"}
  commands:
    - for i in $(seq 1 400); do echo "line number $i of a long and chatty build"; done
    - exit 3
YAML
expect_status 1 "$LECTERN" check "$DATA/long" --cache "$CACHE/long"
sed -n 2p "$DATA/err" | grep -qx '\.\.\.' && pass || fail "no '...' before the end: $(head -3 "$DATA/err")"
sed -n 3p "$DATA/err" | grep -Eq '^line number [0-9]+ of a long and chatty build$' && pass ||
	fail "the end starts mid-line: $(sed -n 3p "$DATA/err")"
expect_match err '^line number 400 of a long and chatty build$'
finish
