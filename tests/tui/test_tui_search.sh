#!/bin/sh
# Search in the TUI: `:search` on the project in focus, results from the
# instance's search API with each page's sections under it and the
# matched words in the theme's match colour, `/` editing the query with
# results as you type, and Esc putting the query back. When the instance
# finds nothing, the built site's own index (an MkDocs project's
# search/search_index.json) is searched instead, and the screen says so.
. "$LEC_TESTS/tui/lib.sh"

mkdir -p "$TMP/guide/pages"
printf '# Guide\n\nHello world.\n\n## Setup\n\nInstall the frobnicator first.\n' >"$TMP/guide/README.md"
printf '# Install\n\nRun the frobnicator from bin/tools.\n' >"$TMP/guide/pages/install.md"
make_repo "$TMP/guide"
# A site whose own MkDocs-style index knows a word its pages do not show
# (the instance's search indexes the pages), so only the fallback finds it.
mkdir -p "$TMP/mk/site/search" "$TMP/mk/site/guide"
printf '<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Nothing to see.</p></main></body></html>\n' \
	>"$TMP/mk/site/index.html"
printf '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Widgets.</p></main></body></html>\n' \
	>"$TMP/mk/site/guide/index.html"
printf '{"config": {"lang": ["en"]}, "docs": [{"location": "guide/", "title": "Guide", "text": "The quuxification of widgets."}]}\n' \
	>"$TMP/mk/site/search/search_index.json"
commands_repo "$TMP/mk" 'mkdir -p $READTHEDOCS_OUTPUT/html' 'cp -r site/. $READTHEDOCS_OUTPUT/html/'
start_server
slug=$(import "Guide" "$TMP/guide")
mk=$(import "Mk" "$TMP/mk")
wait_build "$slug"
wait_build "$mk"
# The match colour (the default theme's: magenta, bold, underlined) as
# tmux reports it, before the word.
esc=$(printf '\033')
magenta_before() { t capture-pane -p -e -t s | grep -qE "$esc\\[[0-9;]*35m($esc\\[[0-9;]*m)*$1"; }

tui
wait_for '^guide +Guide +latest +finished' "projects"
# The cursor's project is the one searched.
keys : s e a r c h ' ' f r o b n i c a t o r Enter
wait_for '^2 pages of guide/latest for "frobnicator" *$' "the search header"
wait_for '^Install  /en/latest/pages/install\.html *$' "a page found"
wait_for '^  Install *$' "its section"
# The API escapes '/' as &#x2F; in highlights; the screen shows '/'.
wait_for '^    Run the frobnicator from bin/tools\. *$' "the section's text"
wait_for '^Guide  /en/latest/ *$' "another page"
wait_for '^  Setup *$' "its section"
wait_for '^    Install the frobnicator first\. *$' "the section's text"
magenta_before 'frobnicator' && pass || fail "the match is not in the match colour: $(t capture-pane -p -e -t s | grep -n 'first' | od -c | head -5)"
expect_line 1 " Lectern [t]  Projects ▸ Search: guide                                            ? help  : command"

# `/` starts from the query; each key asks again.
keys /
wait_for '^/frobnicator *$' "the query in the prompt"
# The old query starts selected: typing replaces it (issue 15).
keys w o r l d
wait_for '^1 page of guide/latest for "world" *$' "results as you type, the old query replaced"
wait_for '^    Hello world\. *$' "the new result"
magenta_before 'world' && pass || fail "the new match is not in the match colour"
keys Escape
wait_for '^2 pages of guide/latest for "frobnicator" *$' "the query put back"
keys : s e a r c h ' ' n o t h i n g h e r e Enter
wait_for '^0 pages of guide/latest for "nothinghere" *$' "no results"
# A scope written as the v3 search writes it: another project, a version.
keys : s e a r c h ' ' p r o j e c t : m k / l a t e s t ' ' w i d g e t s Enter
wait_for '^1 page of mk/latest for "widgets" *$' "a search scoped to another project"
keys : s e a r c h ' ' p r o j e c t : g u i d e / n o p e ' ' w o r l d Enter
wait_for 'No Version matches the given query\.' "an unknown version's error"
quit_tui

# ---- The fallback: a prefix the instance's search does not match, found
# in the MkDocs site's own index.
[ "$(api GET "/_/api/v2/search/?q=quuxif&project=$mk&version=latest" | grep -c '"count": *0')" -eq 1 ] &&
	pass || fail "the instance's search found the prefix: the fallback is not tested"
tui
wait_for '^mk +Mk +latest +finished' "projects"
keys j : s e a r c h ' ' q u u x i f Enter
wait_for '^1 page of mk/latest for "quuxif" \(the docs'"'"' own search/search_index\.json\) *$' "the fallback's header"
wait_for '^Guide  guide/ *$' "the page from the site's index"
keys Enter
wait_for '^Guide  http://mk\.localhost:[0-9]+/en/latest/guide/ *$' "the page in the reader"
wait_for '^ Widgets\. *$' "the page's text"
quit_tui

finish
