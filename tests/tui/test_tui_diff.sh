#!/bin/sh
# Page diffs in the TUI: a Markdown project built twice (its second commit
# changes one sentence of one section) and a branch left at the first
# commit. D on a build lists the pages that changed against the build
# before it, Enter shows one page's changed section inline with its
# removed and added sentences; D on a version compares it with the default
# version; D on the default version itself says why it cannot; in the
# reader, C marks the sections of a page that changed since the default
# version.
. "$LEC_TESTS/tui/lib.sh"

mkdir -p "$TMP/guide/docs"
printf '# Diff Guide\n\nWelcome.\n' >"$TMP/guide/docs/index.md"
printf '# Usage\n\n## Calling\n\nCall it once. It returns zero. Done.\n' >"$TMP/guide/docs/usage.md"
make_repo "$TMP/guide"
git_env -C "$TMP/guide" branch old

start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
api PATCH "/api/v3/projects/$slug/" '{"watch_commits": false}' >/dev/null
printf '# Usage\n\n## Calling\n\nCall it once. It returns one. Done.\n' >"$TMP/guide/docs/usage.md"
git_env -C "$TMP/guide" commit -q -am "change one sentence"
second=$(api POST "/api/v3/projects/$slug/versions/latest/builds/" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["build"]["id"])')
wait_build "$slug"
api PATCH "/api/v3/projects/$slug/versions/old/" '{"active": true}' >/dev/null
api POST "/api/v3/projects/$slug/versions/old/builds/" >/dev/null
wait_build "$slug"

tui
wait_for "^$slug +Guide " "the project"
keys : b u i l d s ' ' g u i d e Enter
wait_for "^$second +latest +finished +passed" "the second build"
# The newest build is the old branch's: go to the second one.
row=$(screen | grep -nE "^$second +latest" | cut -d: -f1)
first_row=$(screen | grep -nE '^[0-9]+ +(latest|old) +finished' | head -n 1 | cut -d: -f1)
i=$first_row
while [ "$i" -lt "$row" ]; do keys j; i=$((i + 1)); done
keys Enter
wait_for "^Build #$second  $slug/latest  finished passed" "the build screen"
keys D
wait_for '1 page differs, 1 the same' "the diff's summary"
wait_for '^changed +usage\.html +Usage +1 *$' "the changed page"
keys Enter
wait_for '^@@ #calling Calling @@ *$' "the section's hunk"
wait_for '^-It returns zero\. *$' "the removed sentence"
wait_for '^\+It returns one\. *$' "the added sentence"
wait_for '^ Call it once\. *$' "the context"
keys q q q
# ---- From a version: `old` against the default version (latest).
keys : p r o j e c t ' ' g u i d e Enter
wait_for '^old +yes ' "the versions tab"
# select_version SLUG: the cursor to SLUG's row of the versions tab.
select_version() {
	keys g
	top=$(screen | grep -nE '^[a-z0-9.-]+ +(yes|no) +(yes|no) ' | head -n 1 | cut -d: -f1)
	row=$(screen | grep -nE "^$1 +yes " | cut -d: -f1)
	i=$top
	while [ "$i" -lt "$row" ]; do keys j; i=$((i + 1)); done
}
select_version old
keys D
wait_for '^changed +usage\.html +Usage +1 *$' "the version's diff"
keys Enter
wait_for '^-It returns one\. *$' "the default version's sentence removed"
wait_for '^\+It returns zero\. *$' "the branch's sentence added"
keys q q
wait_for '^latest +yes ' "the versions tab again"
select_version latest
keys D
wait_for 'latest is the default version' "the default version's refusal"
# ---- The reader marks the sections of old's page that differ from latest.
keys : s e a r c h ' ' p r o j e c t : g u i d e / o l d ' ' r e t u r n s Enter
wait_for 'usage\.html|Usage' "the search result on old"
keys Enter
wait_for 'It returns zero\.' "old's page in the reader"
keys C
wait_for '1 sections changed or new since latest \(~ and \+ in the margin\), 0 removed' "the compare's count"
wait_for '^~ *Calling' "the changed section's mark"
quit_tui

finish
