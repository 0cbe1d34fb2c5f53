#!/bin/sh
# The reader keeps prose to a readable measure (issue 43, item 12): at
# 200 columns a paragraph used to run across the whole screen, 199
# characters a line; it wraps at READER_MEASURE (100) columns whatever
# the width, as a docs theme does in a browser, while at 80 columns it
# still fills the screen. A code line stays whole, scrolled sideways.
. "$LEC_TESTS/tui/lib.sh"

words=$(seq -f 'w%03g' 1 120 | tr '\n' ' ')
long="echo $(printf 'x%.0s' $(seq 1 150)) END"
mkdir -p "$TMP/guide"
cat >"$TMP/guide/README.md" <<MD
# Measure

$words

\`\`\`
$long
\`\`\`
MD
make_repo "$TMP/guide"
start_server
slug=$(import "Measure" "$TMP/guide")
wait_build "$slug"

# widest_prose: the longest screen line of the paragraph's words.
widest_prose() {
	screen | grep -E '^ w[0-9]{3}' | sed 's/ *$//' | awk '{ if (length > m) m = length } END { print m + 0 }'
}

for size in 80x24 200x60; do
	cols=${size%x*}
	tui_at "$size"
	wait_for "^$slug +Measure " "the project at $size"
	keys : s e a r c h ' ' w 0 0 1 Enter
	wait_for '^  Measure *$' "the hit at $size"
	keys j Enter
	wait_for '^ w001 w002 ' "the paragraph at $size"
	wait_for 'w120 *$' "the paragraph's end at $size"
	most=$(widest_prose)
	# The screen's width at 80 (less the cursor's column), the measure
	# (plus that column) at 200, and filled to within a word.
	[ "$cols" -eq 80 ] && limit=80 || limit=101
	if [ "$most" -le "$limit" ] && [ "$most" -gt $((limit - 6)) ]; then pass; else
		fail "paragraph lines up to $most columns at $size (want $((limit - 5))..$limit):
$(screen)"
	fi
	# The code line is not wrapped at the measure: it runs to the edge.
	wait_for '^     echo x{20}' "the code line at $size"
	if [ "$cols" -eq 200 ]; then
		wait_for '^     echo x{150} END *$' "the code line whole at $size"
	fi
	quit_tui
done
finish
