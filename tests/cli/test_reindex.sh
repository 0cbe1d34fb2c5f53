#!/bin/sh
# `lectern reindex [PROJECT [VERSION]]`: rebuilds search indexes from the
# published HTML of the data directory (set up here by hand: a project and
# versions in the store, a published tree on disk), reports what it indexed,
# skips versions without output unless named, and fails clearly on unknown
# projects and versions.
. "$LEC_TESTS/cli/lib.sh"

expect_status 0 "$LECTERN" reindex --help
expect_match out '^usage: lectern reindex \[PROJECT \[VERSION\]\]'
expect_status 0 "$LECTERN" --help
expect_match out 'reindex'
expect_status 1 "$LECTERN" reindex a b c
expect_match err '^lectern: usage: lectern reindex \[PROJECT \[VERSION\]\]$'

# An empty store: nothing to do.
expect_status 0 "$LECTERN" reindex
[ ! -s "$DATA/out" ] && pass || fail "reindex of an empty store printed $(cat "$DATA/out")"
expect_status 1 "$LECTERN" reindex nope
expect_match err '^lectern: cannot find the project: '

sqlite3 "$LECTERN_DATA/lectern.db" <<'SQL'
INSERT INTO projects (id, name, slug, repo_url, created, modified)
  VALUES (1, 'Docs', 'docs', 'https://example.org/docs.git', 0, 0);
INSERT INTO versions (project_id, slug, verbose_name, active, created, modified)
  VALUES (1, 'latest', 'latest', 1, 0, 0), (1, 'old', 'old', 1, 0, 0),
         (1, 'gone', 'gone', 0, 0, 0);
SQL
html="$LECTERN_DATA/published/docs/latest/html"
mkdir -p "$html/guide"
cat >"$html/index.html" <<'HTML'
<html><head><title>Docs</title></head><body><div role="main">
<h1 id="docs">Docs</h1><p>Welcome to the orchard.</p>
<h2 id="more">More</h2><p>Apples and pears.</p></div></body></html>
HTML
printf '<html><body><main><h1 id="g">Guide</h1><p>Pruning.</p></main></body></html>' >"$html/guide/index.html"
printf '<html><body><h1>Search</h1></body></html>' >"$html/search.html"

expect_status 0 "$LECTERN" reindex docs latest
expect_match out '^docs/latest: 2 pages, 3 sections and domain entries, 1 ignored, 0 unparsable$'
[ "$(sqlite3 "$LECTERN_DATA/lectern.db" 'SELECT group_concat(path) FROM (SELECT path FROM search_pages ORDER BY path)')" = "guide/index.html,index.html" ] \
	&& pass || fail "indexed pages differ"

# Without a version: every active version with published HTML.
rm "$html/guide/index.html"
expect_status 0 "$LECTERN" reindex docs
expect_match out '^docs/latest: 1 pages, 2 sections and domain entries, 1 ignored, 0 unparsable$'
[ "$(grep -c . "$DATA/out")" -eq 1 ] && pass || fail "versions without output were not skipped"
expect_status 0 "$LECTERN" reindex
expect_match out '^docs/latest: 1 pages'

# A named version must exist and have published HTML.
expect_status 1 "$LECTERN" reindex docs nope
expect_match err '^lectern: cannot find the version: '
expect_status 1 "$LECTERN" reindex docs old
expect_match err '^lectern: docs/old has no published HTML$'
finish
