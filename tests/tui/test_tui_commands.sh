#!/bin/sh
# The `:` commands are rows of the TUI's action table (ui/actions.def), as
# the keys are: the `?` help lists every one of them with its arguments,
# lectern-tui(1) does too, `bind` lines still name only key actions, and
# each command runs from the command line as it did when the TUI kept a
# table of its own. The commands tried here must be the table's: a new
# row fails this test until it is tried too.
. "$LEC_TESTS/tui/lib.sh"

commands="build builds context orgs notifications preview project projects q quit search"
table=$(sed -n 's/^COMMAND([A-Z_]*, "\([a-z]*\)".*/\1/p' "$LEC_TESTS/../ui/actions.def" |
	tr '\n' ' ' | sed 's/ $//')
[ "$table" = "$commands" ] && pass ||
	fail "the table's commands are '$table', this test tries '$commands'"

# ---- The man page lists each one (when the build made it: scdoc).
page=$(dirname "$LECTERN")/../man/lectern-tui.1
if [ -f "$page" ]; then
	sed -n '/^\.SH COMMANDS/,/^\.SH KEYS/p' "$page" >"$TMP/man-commands"
	for c in $commands; do
		grep -q "^\\\\fB:$c\\\\fR\( \|$\)" "$TMP/man-commands" && pass ||
			fail "lectern-tui(1) does not list :$c: $(cat "$TMP/man-commands")"
	done
fi

markdown_repo
start_server
slug=$(import "Markdown Guide" "$TMP/guide")
wait_build "$slug"

tui
wait_for '^markdown-guide +Markdown Guide +latest +finished' "projects"

# ---- The help lists every command after the keys, with its arguments.
keys '?'
wait_for 'Help: projects' "the help"
for c in $commands; do
	keys /
	keys -l ":$c"
	wait_for "^:$c( [^ ]+)?  +[a-z]" "the help's :$c"
	keys Escape
done
keys q
wait_for '^markdown-guide +Markdown Guide' "back from the help"

# ---- Each command, as before.
keys : p r o j e c t ' ' "$slug" Enter
wait_for "Projects ▸ $slug +\\? help" ":project"
keys : b u i l d s ' ' "$slug" Enter
wait_for "▸ Builds: $slug +\\? help" ":builds SLUG"
keys : b u i l d s Enter
wait_for '▸ Builds: every project +\? help' ":builds"
keys : b u i l d ' ' 1 Enter
wait_for '▸ Build #1 +\? help' ":build"
keys : b u i l d ' ' x Enter
wait_for '^not a build number: x' ":build with a bad number"
keys : p r o j e c t Enter
wait_for '^:project needs an argument' ":project without its argument"
keys : s e a r c h ' ' p r o j e c t : "$slug" ' ' W e l c o m e Enter
wait_for "▸ Search: $slug +\\? help" ":search"
keys : o r g s Enter
wait_for '▸ Organizations +\? help' ":orgs"
keys : n o t i f i c a t i o n s Enter
wait_for '▸ Notifications +\? help' ":notifications"
keys : p r o j e c t s Enter
wait_for '^ Lectern \[t\]  Projects +\? help  : command *$' ":projects"
keys : p r e v i e w ' ' "$TMP/nowhere" Enter
wait_for '^preview stopped: ' ":preview of a directory that is not there"
keys : c o n t e x t ' ' t Enter
wait_for '^context t ' ":context"
wait_for '^markdown-guide +Markdown Guide' "projects after the switch"
keys : q u i t Enter
wait_for '^TUI-EXIT=0( |$)' ":quit"

# ---- :q, and a bind line naming a command is refused as before.
printf 'bind generic x projects\n' >"$LECTERN_TUI_CONFIG"
tui
wait_for "^$LECTERN_TUI_CONFIG:1: unknown action 'projects'" "bind naming a command"
keys : q Enter
wait_for '^TUI-EXIT=0( |$)' ":q"

finish
