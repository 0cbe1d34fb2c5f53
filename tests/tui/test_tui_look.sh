#!/bin/sh
# How the TUI looks: resizing down to 80x24 redraws, below it a clear
# "too small" message; NO_COLOR and TERM=vt100 give attributes without
# colour; a non-UTF-8 locale gets ASCII glyphs; a theme error names the
# file and line and falls back to the default theme; the config file's
# `bind` lines change keys (and the help shows it), and a bad line there
# is reported with its file and line.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Markdown Guide" "$TMP/guide")
wait_build "$slug"
# Colour escapes (SGR 30-37, 90-97, 38;5;N) in the pane, attributes aside.
colours() { t capture-pane -p -e -t s | grep -cE "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|9[0-7]|38;5;[0-9]+)(;[0-9;]*)?m"; }

# ---- Resize: 80x24 redraws the whole screen; smaller says so.
tui -- --theme dark
wait_for '^markdown-guide +Markdown Guide +latest +finished +passed' "projects"
[ "$(colours)" -gt 0 ] && pass || fail "no colour on a 256-colour terminal"
t resize-window -t s -x 80 -y 24
wait_for '^ Lectern \[t\]  Projects {40}\? help  : command$' "the 80-column title"
expect_line 2 "Project                  Name               Default    Last build Result  Age"
wait_for '^ {76}1/1$' "the 80x24 status line"
t resize-window -t s -x 60 -y 20
wait_for '^ +Terminal too small: 60x20 \(needs 80x24\) *$' "the too-small message"
t resize-window -t s -x 100 -y 30
wait_for '^markdown-guide +Markdown Guide' "the redraw after growing"
expect_line 1 " Lectern [t]  Projects                                                            ? help  : command"
quit_tui

# ---- NO_COLOR: the same screen with attributes only.
tui NO_COLOR=1 -- --theme dark
wait_for '^markdown-guide +Markdown Guide +latest +finished +passed' "projects without colour"
[ "$(colours)" -eq 0 ] && pass || fail "colour escapes with NO_COLOR: $(t capture-pane -p -e -t s | head -3 | od -c | head)"
t capture-pane -p -e -t s | grep -q "$(printf '\033')\\[[0-9;]*7m" && pass || fail "no reverse video for the cursor with NO_COLOR"
quit_tui

# ---- 8 colours: the dark theme's 256-colour numbers become basic ones.
TUI_TERM=xterm
tui -- --theme dark
wait_for '^markdown-guide +Markdown Guide' "projects on 8 colours"
[ "$(colours)" -gt 0 ] && pass || fail "no colour on an 8-colour terminal"
t capture-pane -p -e -t s | grep -q "$(printf '\033')\\[[0-9;]*38;5;" &&
	fail "256-colour escapes on an 8-colour terminal" || pass
quit_tui

# ---- TERM=vt100 in the C locale: no colour, ASCII glyphs.
TUI_TERM=vt100
tui LANG=C LC_ALL=C -- --theme dark
wait_for '^markdown-guide +Markdown Guide' "projects on a vt100"
[ "$(colours)" -eq 0 ] && pass || fail "colour escapes on a vt100"
keys Enter
wait_for '^ Lectern \[t\]  Projects > markdown-guide ' "the ASCII trail"
quit_tui
TUI_TERM=

# ---- A theme error: file and line, and the default theme instead.
printf 'color title white blue bold\ncolor cursor purple default\n' >"$TMP/bad.theme"
tui -- --theme "$TMP/bad.theme"
wait_for "^$TMP/bad.theme:2: unknown colour 'purple' \\(using the default theme\\)" "the theme error"
wait_for '^markdown-guide +Markdown Guide' "projects with the default theme"
quit_tui
tui -- --theme no-such-theme
wait_for "^unknown theme 'no-such-theme' \\(using the default theme\\)" "an unknown theme"
quit_tui
# The shipped themes load without a word.
for theme in dark light high-contrast default; do
	tui -- --theme "$theme"
	wait_for '^markdown-guide +Markdown Guide' "projects with the $theme theme"
	screen | grep -q 'theme' && fail "the $theme theme reported: $(screen | tail -n 1)" || pass
	quit_tui
done
# The config file names the theme, too.
printf 'set theme = %s\n' "$TMP/bad.theme" >"$LECTERN_TUI_CONFIG"
tui
wait_for "^$TMP/bad.theme:2: unknown colour 'purple'" "the config's theme"
quit_tui

# ---- Key bindings from the config file, and a bad line reported.
printf '# keys\nbind generic x quit\nbind projects o open\nbind generic y frobnicate\n' >"$LECTERN_TUI_CONFIG"
tui
wait_for "^$LECTERN_TUI_CONFIG:4: unknown action 'frobnicate'" "the config error"
keys ?
wait_for '^Q x +quit +quit Lectern *$' "the help with the new key"
wait_for '^<Enter> o +open ' "the help with the view's key"
keys q o
wait_for '^ Versions  Builds ' "the rebound open"
keys x
wait_for '^TUI-EXIT=0( |$)' "the rebound quit"
[ -s "$TMP/tui.err" ] && fail "stderr: $(cat "$TMP/tui.err")" || pass
: >"$LECTERN_TUI_CONFIG"

# ---- A dead server: the error goes to the status line, keys still work.
tui
wait_for '^markdown-guide +Markdown Guide' "projects before the server stops"
kill "$server_pid"
wait "$server_pid" 2>/dev/null
server_pid=
keys R
# The list stays as it was; the status line says why it is not fresh.
wait_for '^connection refused to 127\.0\.0\.1:[0-9]+ +1/1$' "the transport error"
wait_for '^markdown-guide +Markdown Guide' "the list kept"
keys ?
wait_for '^Q +quit +quit Lectern *$' "help with the server gone"
keys q
quit_tui

finish
