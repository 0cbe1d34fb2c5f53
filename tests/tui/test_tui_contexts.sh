#!/bin/sh
# The command line's contexts and completion (issue 43, item 9): `:context`
# alone lists the contexts (as k9s' `:ctx`), what each talks to and which
# is current, and Enter switches to one; Tab completes a search's
# project:SLUG scope and a preview's directory, besides the commands,
# project slugs and context names it completed already. At 80x24 and
# 200x60.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Markdown Guide" "$TMP/guide")
wait_build "$slug"
echo 0123456789abcdef >"$TMP/far.token" && chmod 600 "$TMP/far.token"
"$LECTERN" context add far --url http://127.0.0.1:9 --token-file "$TMP/far.token" --readonly >/dev/null ||
	fail "context add far"
mkdir -p "$TMP/trees/docs-one" "$TMP/trees/docs-two" "$TMP/trees/other"

for size in 80x24 200x60; do
	tui_at "$size"
	wait_for '^markdown-guide +Markdown Guide' "the projects at $size"

	# `:context` alone: the list, the current one marked and selected.
	keys : c o n t e x t Enter
	wait_for 'Projects ▸ Contexts' "the contexts screen at $size"
	wait_for '^local +the local engine \(data in ' "the local context at $size"
	wait_for "^t +http://127\\.0\\.0\\.1:[0-9]+ +current *\$" "the current one at $size"
	wait_for '^far +http://127\.0\.0\.1:9 \(read-only\)' "a remote one at $size"
	screen | tail -1 | grep -q ' 2/3 *$' && pass || fail "the cursor is not on the current one at $size: $(screen)"
	keys / f a r Enter
	wait_gone '^local ' "the filter at $size"
	keys Enter
	wait_for '^ Lectern \[far read-only\]' "switched to far at $size"
	keys : c o n t e x t ' ' t Enter
	wait_for '^markdown-guide +Markdown Guide' "back on t at $size"

	# A search's scope.
	keys : s e a r c h ' ' p r o Tab
	wait_for '^:search project:markdown-guide *$' "the scope completed at $size"
	keys C-u Escape
	# A preview's directory: the common part, the choices, then one.
	keys : p r e v i e w ' '
	keys -l "$TMP/trees/d"
	keys Tab
	wait_for "^:preview $TMP/trees/docs- +docs-one/ docs-two/ *\$" "the directories offered at $size"
	keys t Tab
	wait_for "^:preview $TMP/trees/docs-two/ *\$" "the directory completed at $size"
	keys C-u Escape
	quit_tui
done
finish
