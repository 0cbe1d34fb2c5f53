#!/bin/sh
# The TUI's screens against a real `lectern serve` with a Markdown project
# built by the built-in builder: the projects list and its `/` filter, a
# project's tabs, its builds, a build's commands, the generated `?` help,
# saving a log, and the `:` command line with Tab completion. Screens are
# read as text from a 100x30 tmux pane.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Markdown Guide" "$TMP/guide")
[ "$slug" = markdown-guide ] && pass || fail "imported as '$slug'"
wait_build "$slug"

tui
# ---- Projects: every project with default version and last build.
wait_for '^markdown-guide +Markdown Guide +latest +finished +passed +[0-9]+s *$' "projects"
expect_line 1 " Lectern [t]  Projects                                                            ? help  : command"
expect_line 2 "Project                  Name                                   Default    Last build Result  Age"
wait_for ' 1/1 *$' "the position"
# `/` filters as you type; Esc puts the old filter back.
keys / z z z
wait_for '^/zzz' "the filter prompt"
wait_gone '^markdown-guide ' "the empty filter"
keys Escape
wait_for '^markdown-guide ' "the cancelled filter"
wait_for ' 1/1 *$' "the cancelled filter"
keys / g u i d e Enter
wait_for '^markdown-guide ' "the kept filter"

# ---- A project: tabs, versions with their last build.
keys Enter
wait_for '^latest +yes +no +yes +branch +#1 finished passed, [0-9]+s ago' "versions"
expect_line 1 " Lectern [t]  Projects ▸ markdown-guide                                           ? help  : command"
expect_line 2 " Versions  Builds  Subprojects  Translations  Redirects  Env vars  Settings  Integrations"
expect_line 3 "Version              Active Hidden Built Type    Last build"
keys Tab
wait_for '^1 +latest +finished +passed +[0-9]+s +hand +[0-9]+s +fresh +[0-9a-f]{7} *$' "the builds tab"
keys End Tab Tab Tab Tab Tab
wait_for '^repository +file://' "the settings tab"
wait_for '^default version +latest *$' "the settings tab"
keys Left Left Left Left Left
wait_for '^#  +Version +State +Result' "back on the builds tab"

# ---- A build: its commands with exit codes and times.
keys Enter
wait_for '^Build #1  markdown-guide/latest  finished passed  by hand ' "the build header"
wait_for '^\$ git clone --mirror file://.*  \[exit 0, [0-9]+s\]$' "the clone command"
wait_for '^\$ lectern markdown \. \$READTHEDOCS_OUTPUT/html  \[exit 0, [0-9]+s\]$' "the build command"
wait_for '^  2 pages, 0 other files' "the command's output"
# `/` searches the log; n goes on to the next match.
keys / m a r k d o w n Enter
wait_for 'markdown' "the search"
keys s
wait_for "saved [0-9]+ lines to $TMP/downloads/lectern-build-1.log" "the save message"
grep -q '^\$ lectern markdown \. \$READTHEDOCS_OUTPUT/html  \[exit 0' "$TMP/downloads/lectern-build-1.log" && pass ||
	fail "saved log: $(cat "$TMP/downloads/lectern-build-1.log" 2>&1)"

# ---- Help is generated from the action table and the keymaps.
keys ?
wait_for 'Help: build' "the help title"
wait_for '^f +first-failed +jump to the first failed command *$' "help"
wait_for '^<Esc> q +back +clear the filter, else go back' "help"
wait_for '^s +save-log +save the log to a file in the downloads directory *$' "help"
screen | grep -q 'toggle-running' && fail "the build's help lists a builds-only key" || pass
keys q
wait_for '^Build #1 ' "back from help"

# ---- The command line, with completion.
keys : p r o j Tab
wait_for '^:project +project projects' "completion of the command"
keys ' ' m a r Tab
wait_for '^:project markdown-guide *$' "completion of the project"
keys Enter
wait_for '▸ Build #1 ▸ markdown-guide  ' "the :project screen"
keys : b u i l d ' ' 1 Enter
wait_for '▸ markdown-guide ▸ Build #1  ' "the :build screen"
keys : n o p e Enter
wait_for '^unknown command :nope ' "an unknown command"
# Contexts: completion of their names, an unknown one reported in the
# status line, a known one reconnected to (back on the Projects screen).
keys : c o n t e x t ' ' Tab
wait_for '^:context +local t *$' "completion of the contexts"
keys n o p e Enter
wait_for "^no context 'nope' \(see 'lectern context list'\)" "an unknown context"
keys : c o n t e x t ' ' t Enter
wait_for '^context t ' "the context switch"
wait_for '^markdown-guide +Markdown Guide' "projects after the switch"
keys Enter
wait_for '^ Lectern \[t\]  Projects ▸ markdown-guide ' "a project after the switch"
keys : p r o j e c t s Enter
expect_line 1 " Lectern [t]  Projects                                                            ? help  : command"
quit_tui

finish
