#!/bin/sh
# The import form takes a directory as the CLI does (issue 43, item 5):
# on the local engine a path typed as a person types it ("guide", relative
# to where the TUI runs) is imported as its file:// URL; a path that is not
# there is named under the field before anything is sent; a directory
# that holds no git repository is refused by the engine, naming it, and no
# project is made. At 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"
use_local_engine

markdown_repo
mkdir -p "$TMP/plain"
echo '# Not a repository' >"$TMP/plain/README.md"

# field TEXT: clear the focused field and type TEXT.
field() {
	keys C-u
	keys -l "$1"
}

for size in 80x24 200x60; do
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$LECTERN_DATA"
	TUI_CONTEXT=local tui "LECTERN_DATA='$LECTERN_DATA'"
	t resize-window -t s -x "${size%x*}" -y "${size#*x}"
	wait_for ' Projects ' "the projects screen ($size)"
	keys a
	wait_for '^▸ Name ' "the import form ($size)"
	wait_for '^  Repository URL/path' "the repository field ($size)"
	field 'Plain Docs'
	keys Tab
	# Not there: said at once, naming the path; nothing sent.
	field nosuch
	keys Enter
	wait_for '! nosuch: no such directory' "the missing directory ($size)"
	# Plain files: the engine refuses before making a project.
	field plain
	keys Enter
	wait_for "! $TMP/plain is not a git" "the directory without git ($size)"
	n=$("$LECTERN" projects --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])')
	[ "$n" = 0 ] && pass || fail "a refused import left $n projects ($size)"
	# A repository, relative to the TUI's directory: imported as file://.
	field guide
	keys Enter
	wait_for ' Projects ▸ plain-docs ' "the imported project ($size)"
	"$LECTERN" api /api/v3/projects/plain-docs/ >"$TMP/p.json"
	grep -q "\"url\":\"file://$TMP/guide\"" "$TMP/p.json" && pass ||
		fail "the repository URL: $(cat "$TMP/p.json")"
	quit_tui
done
finish
