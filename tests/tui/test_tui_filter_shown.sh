#!/bin/sh
# An active filter is always in sight, and Esc clears it before it goes
# back or quits (issue 43, item 3): `/guide`, then removing that project
# (`D`, its slug, Enter) used to leave an empty list, 0/0 with no filter
# shown, and Esc then quit Lectern. Now the status line shows `/guide`,
# the empty list says nothing matches it, and Esc clears it (the other
# project comes back; the TUI stays). The same after another screen came
# and went over a filtered list. At 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server

for size in 80x24 200x60; do
	cols=${size%x*}
	# Names of their own at each size: a removed project's slug stays
	# taken until its files are gone.
	g=guide$cols
	o=other$cols
	import "Guide$cols" "$TMP/guide" >/dev/null
	import "Other$cols" "$TMP/guide" >/dev/null
	# A project whose build still runs is not removed (it is cancelled
	# first, and the form says to try again): builds first.
	wait_build "$g"
	wait_build "$o"
	tui_at "$size"
	wait_for "^ *$g +Guide" "the projects at $size"
	wait_for "^ *$o +Other" "the other project at $size"

	# The filter is shown while it applies, and after another screen.
	keys /; keys -l "$g"; keys Enter
	wait_gone "^ *$o +Other" "the filter at $size"
	wait_for "/$g .*1/1 *\$" "the filter in the status line at $size"
	keys Enter
	wait_for "Projects ▸ $g" "the project opened at $size"
	keys q
	wait_for "/$g .*1/1 *\$" "the filter still shown back on the list at $size"
	keys Escape
	wait_for '^filter cleared' "Esc clears the filter at $size"
	wait_for "^ *$o +Other" "every project again at $size"
	screen | grep -q "/$g" && fail "the cleared filter still shown at $size: $(screen)" || pass

	# Removing the only project the filter keeps.
	keys /; keys -l "$g"; keys Enter
	wait_gone "^ *$o +Other" "the filter again at $size"
	keys D
	wait_for "Type $g to remove it" "the removal form at $size"
	keys -l "$g"; keys Enter
	wait_for 'removed the project with everything of it' "removed at $size"
	wait_for "Nothing matches \"$g\" \\(Esc clears the filter\\)" "the empty list says why at $size"
	wait_for "/$g .*0/0 *\$" "the filter shown over the empty list at $size"
	keys R
	wait_for "Nothing matches \"$g\"" "still said after R at $size"
	keys Escape
	wait_for '^filter cleared' "Esc clears it at $size"
	wait_for "^ *$o +Other" "the other project after Esc at $size"
	screen | grep -q '^TUI-EXIT=' && fail "Esc quit Lectern at $size" || pass
	# Nothing left to clear: Esc now quits from the first screen.
	keys Escape
	wait_for '^TUI-EXIT=0( |$)' "Esc quits once nothing is left to clear at $size"
	api DELETE "/api/v3/projects/$o/" >/dev/null
done
finish
