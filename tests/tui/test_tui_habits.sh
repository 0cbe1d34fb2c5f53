#!/bin/sh
# What a person watching builds expects of the screen around the lists
# (issue 15): a mistyped name shows the error and stays where it was
# (item 2); Esc and q clear an active filter before going back, so the
# first screen never quits with one (8); messages expire and belong to
# their screen while errors stay until a key (6, the expiry shortened by
# the config file's message-timeout); a read-only context says so in the
# title (7); `/` selects the old filter so typing replaces it (9); a
# terminal without cursor addressing is refused with one line and exit 2
# (9); a click selects a row and the wheel scrolls (SGR 1006 reports sent
# with tmux send-keys -H).
. "$LEC_TESTS/tui/lib.sh"

start_server
api POST /api/v3/projects/ '{"name": "Alpha", "repository": {"url": "https://example.com/alpha.git"}}' >/dev/null
api POST /api/v3/projects/ '{"name": "Sprocket", "repository": {"url": "https://example.com/sprocket.git"}}' >/dev/null
seed_builds alpha 50

# on_projects: the title names the Projects screen alone. The fixtures'
# first builds fail (example.com is out of reach), at a moment that
# depends on name resolution: once their notifications arrive the title
# counts them before the trail.
on_projects() {
	wait_for '^ Lectern \[t\]  (\[[0-9]+ unread\]  )?Projects +\? help  : command *$' \
		"the Projects screen alone"
}

printf 'set message-timeout = 600\n' >"$LECTERN_TUI_CONFIG"
# xterm's terminfo has SGR 1006 mouse reports (tmux's has only the old ones).
tui TERM=xterm-256color
wait_for '^sprocket +Sprocket ' "the projects"

# ---- 2: a missing project, project's builds or build: the error, and the
# Projects screen stays.
keys : p r o j e c t ' ' n o s u c h Enter
wait_for '^project nosuch: No Project matches the given query\.' "the missing project's error"
on_projects
keys : b u i l d s ' ' n o s u c h Enter
wait_for '^builds of nosuch: No Project matches the given query\.' "the missing builds' error"
on_projects
keys : b u i l d ' ' 9 9 9 9 9 Enter
wait_for '^build 99999: No Build matches the given query\.' "the missing build's error"
on_projects

# ---- 6: an error stays past the message timeout, until a key.
sleep 1
screen | grep -q '^build 99999: No Build' && pass || fail "the error went by itself"
keys j
wait_gone '^build 99999: No Build' "the error after a key"

# ---- 8: Esc and q clear the filter first; the first screen stays.
keys / s p r o Enter
wait_gone '^alpha ' "the filter"
keys Escape
wait_for '^filter cleared' "Esc clearing the filter"
wait_for '^alpha ' "the whole list again"
keys / s p r o Enter
wait_gone '^alpha ' "the filter again"
keys q
wait_for '^alpha ' "q clearing the filter"
screen | grep -q 'TUI-EXIT' && fail "q quit with a filter active" || pass

# ---- 9: `/` selects the old filter: typing replaces it.
keys / a l Enter
wait_gone '^sprocket ' "the filter al"
keys / s p Enter
wait_for '^sprocket ' "the filter sp replacing al"
wait_gone '^alpha ' "the filter sp replacing al"
keys Escape
wait_for '^alpha ' "the filter cleared"

# ---- 6: a message goes after the timeout (600 ms here) ...
keys : b u i l d s ' ' a l p h a Enter
wait_for '^1 +latest ' "alpha's builds"
keys r
wait_for '^running builds only' "the message"
wait_gone '^running builds only' "the message after its timeout"
keys r
wait_for '^1 +latest ' "all builds again"

# ---- click and wheel (xterm's SGR reports; tmux passes them as typed).
# The pane's row 5 (1-based) is the list's third row: title, header, rows.
keys -H 1b 5b 3c 30 3b 35 3b 35 4d
wait_for ' 3/51 *$' "a click on the third row"
keys -H 1b 5b 3c 36 35 3b 35 3b 35 4d
wait_for ' 6/51 *$' "the wheel down"
keys -H 1b 5b 3c 36 34 3b 35 3b 35 4d
wait_for ' 3/51 *$' "the wheel up"
keys q
wait_for '^sprocket ' "the projects again"
keys Escape
wait_for '^TUI-EXIT=0( |$)' "Esc quitting the first screen with no filter"

# ---- 6: ... and belongs to its screen (a long timeout now).
printf 'set message-timeout = 60000\n' >"$LECTERN_TUI_CONFIG"
tui
wait_for '^sprocket +Sprocket ' "the projects"
keys : b u i l d s ' ' a l p h a Enter
wait_for '^1 +latest ' "alpha's builds"
keys r
wait_for '^running builds only' "the message"
keys q
wait_for '^sprocket +Sprocket ' "the projects"
wait_gone '^running builds only' "the message on another screen"
quit_tui

# ---- 7: read-only in the title.
tui -- --readonly
wait_for '^ Lectern \[t read-only\]  (\[[0-9]+ unread\]  )?Projects ' "the read-only title"
quit_tui

# ---- 9: no cursor addressing: one line, exit 2, nothing started.
tui TERM=dumb
wait_for '^TUI-EXIT=2( |$)' "the exit status under TERM=dumb"
got=$(cat "$TMP/tui.err")
[ "$got" = "lectern: the TUI needs a terminal that can move the cursor (TERM=dumb cannot); try TERM=xterm-256color" ] &&
	pass || fail "TERM=dumb said: $got"

finish
