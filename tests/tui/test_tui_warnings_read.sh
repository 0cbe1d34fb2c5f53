#!/bin/sh
# Reading warnings in the TUI (issue 43, item 6), at 80x24 and 200x60: a
# file:line column no record fills takes no room (the message used to be
# cut at ~40 columns at 80); the selected warning's whole message shows
# under the list when its row cuts it, and Enter shows all of it (an
# intersphinx warning's cause is on its second line); `/` on the Warnings
# tab filters the list instead of searching the log; the preview's
# warnings list filters too.
. "$LEC_TESTS/tui/lib.sh"

mkdir -p "$TMP/guide/docs"
printf '# Guide\n\nSee [gone](gone.md) and [more](more.md#x).\n' >"$TMP/guide/docs/index.md"
make_repo "$TMP/guide"
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"

# The build's records, as a Sphinx build with intersphinx and a bad
# directive gives them: none names a file.
/usr/bin/python3 - "$TMP/data/lectern.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=30)
with c:
    c.execute("DELETE FROM build_warnings WHERE build_id = 1")
    c.executemany(
        "INSERT INTO build_warnings (build_id, position, kind, file, line, message, is_new)"
        " VALUES (1, ?, ?, '', 0, ?, ?)",
        [(0, "warning", "failed to reach any of the inventories with the following issues:\n"
          "intersphinx inventory 'https://x.test/objects.inv' not fetchable due to ConnectionError", 1),
         (1, "error", "Unknown directive type \"foo\".", 0),
         (2, "warning", "duplicate label intro, other instance in the glossary", 0)])
    c.execute("INSERT OR REPLACE INTO build_warning_totals (build_id, count, new, fixed, dropped)"
              " VALUES (1, 3, 1, 0, 0)")
PY

for size in 80x24 200x60; do
	tui_at "$size"
	wait_for '^guide +Guide ' "the project at $size"
	keys : b u i l d ' ' 1 Enter
	wait_for '^ Log  +Warnings: 3 warnings, 1 new' "the tab line at $size"
	keys W
	wait_for 'Enter: open' "the Warnings tab at $size"
	# No empty file:line column: the message right after the kind.
	wait_for '^\+ warning  failed to reach any of the inventories with the following issues: *$' \
		"the whole first line at $size"
	wait_for '^  error    Unknown directive type "foo"\. *$' "a short warning at $size"
	# The selected one's second line under the list.
	wait_for "^  intersphinx inventory 'https://x\\.test/objects\\.inv' not fetchable" \
		"the cause under the list at $size"
	# Enter: all of it, until dismissed.
	keys Enter
	wait_for 'Enter, Esc or q: close' "the warning whole at $size"
	wait_for "^  warning: failed to reach any of the inventories" "its first line at $size"
	wait_for "intersphinx inventory 'https://x\\.test/objects\\.inv'" "its second line at $size"
	keys Escape
	wait_for 'Enter: open' "back on the tab at $size"
	# `/` filters the warnings, not the log.
	keys / d u p l i c a t e Enter
	wait_for '^  warning  duplicate label intro' "the filtered row at $size"
	wait_gone '^  error  ' "the rows the filter drops at $size"
	wait_for '/duplicate .*1/1 *$' "the filter shown at $size"
	screen | grep -q 'not found: duplicate' && fail "/ searched the log at $size: $(screen)" || pass
	# The log keeps its own `/`; the tab its filter.
	keys W
	wait_for '^\$ lectern markdown docs ' "the log at $size"
	screen | grep -q '/duplicate' && fail "the tab's filter shown on the log at $size" || pass
	keys W
	wait_for '/duplicate .*1/1 *$' "the tab's filter again at $size"
	keys Escape
	wait_for '^filter cleared' "Esc clears it at $size"
	wait_for '^  error    Unknown directive' "every row again at $size"
	keys q

	# The preview's list filters too.
	keys : "preview $TMP/guide" Enter
	wait_for '2 warnings \(W\)  http://127\.0\.0\.1:[0-9]+/' "the preview at $size"
	keys W
	wait_for '^Warnings of the preview: 2 warnings' "the preview's warnings at $size"
	keys / m o r e Enter
	wait_for "^  link +index\\.html:[0-9]+ +broken link .more\\.html#x." "the filtered preview row at $size"
	wait_gone 'gone\.html' "the preview rows the filter drops at $size"
	wait_for '/more .*1/1 *$' "the preview's filter shown at $size"
	quit_tui
done
finish
