#!/bin/sh
# The Pages list (`p` on the Reader) on sites whose navigation is not a
# sidebar (issue 43, item 7): MkDocs' own `mkdocs` theme puts it in its
# top bar, and a Sphinx theme whose sidebar has only the page's own
# contents (alabaster with localtoc alone) has it in the root page's
# toctree; both said "this page has no site navigation". Now the list is
# read as a browser user finds it (the nav bar, the toctree), and where
# that is thin, from the site's own page list (its search index). Real
# builds of a MkDocs and a Sphinx project, at 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"

if ! /usr/bin/python3 -c 'import sphinx, mkdocs' 2>/dev/null; then
	echo "skipped: Sphinx and MkDocs are not installed (sh packaging/deps.sh)"
	exit 0
fi

mkdir -p "$TMP/mk/docs" "$TMP/sx"
printf 'site_name: Tool\nnav:\n  - Home: index.md\n  - Guide:\n    - Install: install.md\n    - Usage: usage.md\n' >"$TMP/mk/mkdocs.yml"
printf '# Tool\n\nWelcome.\n' >"$TMP/mk/docs/index.md"
printf '# Install\n\nRun pip.\n' >"$TMP/mk/docs/install.md"
printf '# Usage\n\nRun it.\n' >"$TMP/mk/docs/usage.md"
make_repo "$TMP/mk"
printf 'project = "Tool"\nhtml_theme = "alabaster"\nhtml_sidebars = {"**": ["localtoc.html"]}\n' >"$TMP/sx/conf.py"
printf 'Tool\n====\n\nWelcome.\n\n.. toctree::\n\n   install\n   usage\n' >"$TMP/sx/index.rst"
printf 'Install\n=======\n\nRun pip.\n' >"$TMP/sx/install.rst"
printf 'Usage\n=====\n\nRun it.\n' >"$TMP/sx/usage.rst"
make_repo "$TMP/sx"
start_server
mk=$(import "Mk" "$TMP/mk")
sx=$(import "Sx" "$TMP/sx")
wait_build "$mk"
wait_build "$sx"
api GET "/api/v3/projects/$sx/builds/?limit=1" | grep -q '"success": *true' ||
	fail "the Sphinx build failed: $(api GET "/api/v3/projects/$sx/builds/?limit=1")"

# open_page PROJECT WORD: the reader on the search hit for WORD.
open_page() {
	keys :
	keys -l "search project:$1 $2"
	keys Enter
	wait_for "^Install  /en/latest/install" "the search hit in $1"
	keys Enter
	wait_for "^Install  http://$1\\.localhost:[0-9]+/en/latest/install" "the page of $1"
}

for size in 80x24 200x60; do
	tui_at "$size"
	wait_for "^$sx +Sx " "the projects at $size"

	# MkDocs' `mkdocs` theme: its top bar, in order; Home is the root.
	open_page "$mk" install
	keys p
	wait_for 'Pages: Install' "the Pages list of MkDocs at $size"
	wait_for '^Home +\./ *$' "MkDocs' home at $size"
	wait_for '^Install +install/ *$' "MkDocs' install page at $size"
	wait_for '^Usage +usage/ *$' "MkDocs' usage page at $size"
	screen | grep -q 'no site navigation' && fail "still no navigation at $size" || pass
	keys G Enter
	wait_for "^Usage  http://$mk\\.localhost:[0-9]+/en/latest/usage/" "a page from the list at $size"
	keys q q

	# Sphinx with a local table of contents only: the site's own list.
	open_page "$sx" install
	keys p
	wait_for 'Pages: Install' "the Pages list of Sphinx at $size"
	wait_for '^Tool +index\.html *$' "Sphinx's root first at $size"
	wait_for '^Install +install\.html *$' "Sphinx's install page at $size"
	wait_for '^Usage +usage\.html *$' "Sphinx's usage page at $size"
	screen | grep -q 'no site navigation' && fail "still no navigation at $size" || pass
	quit_tui
done
finish
