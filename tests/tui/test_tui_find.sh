#!/bin/sh
# Find in the reader (issue 31, item 5), at 80x24: `/` finds as you type,
# the matches in the match colour and the cursor on the first line with
# one; n and N step through those lines, wrapping; a word not on the page
# says so; Esc (q) clears the find before it leaves the page. Help lists
# only what works on its screen: the reader's `/`, n and N; the Projects
# screen of a remote-style context without the demo, that of an ssh-less
# reader without O.
. "$LEC_TESTS/tui/lib.sh"

mkdir -p "$TMP/guide/pages"
cat >"$TMP/guide/README.md" <<'MD'
# Guide

The frobnicator is here. See [install](pages/install.md).

## Middle

Nothing to find.

## Last

Use the Frobnicator again.
MD
printf '# Install\n\nFirst things.\n' >"$TMP/guide/pages/install.md"
make_repo "$TMP/guide"
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
esc=$(printf '\033')
magenta_before() { t capture-pane -p -e -t s | grep -qE "$esc\\[[0-9;]*35m($esc\\[[0-9;]*m)*$1"; }

tui
t resize-window -t s -x 80 -y 24
wait_for '^guide +Guide +latest +finished' "projects"
# The Projects screen's help: this context is not the local engine, so no
# demo and no D for it... but D (remove) and m (mirror) are.
keys '?'
wait_for 'Help: projects' "the projects' help"
keys / d e m o
wait_for '^/demo' "the help filtered"
if screen | grep -q '^d  .*demo'; then fail "help offers the demo on a remote context"; else pass; fi
keys Escape / m i r r o r
wait_for '^m +mirror' "mirror listed on a remote context"
keys Enter Escape q
keys : s e a r c h ' ' f r o b n i c a t o r Enter
wait_for '^  Guide|^Guide  ' "a hit"
keys Enter
wait_for '^Guide  http://guide\.localhost:[0-9]+/en/latest/ *$' "the page"
# Its help: / n N, and no O without an ssh context.
keys '?'
wait_for 'Help: reader' "the reader's help"
# (Filtered: the help has grown past a screen, W among it.)
keys / m a t c h Enter
wait_for '^n +next-match' "n listed"
wait_for '^N +prev-match' "N listed"
keys Escape
wait_gone '^/match' "the help's filter cleared"
keys G
if screen | grep -q '^O '; then fail "help lists O without an ssh context"; else pass; fi
# Whole at 80 columns: a long description goes on below.
keys / f i n d
wait_for '^/ +filter +filter the list, find in the page or *$' "/ listed"
wait_for '^ +the log, or edit the search query *$' "its description whole"
keys Enter Escape q
keys g /
keys f r o b
# Said at the right of the prompt while it is typed.
wait_for '^/frob +2 lines with "frob" \(n next, N previous\)' "the lines counted as it is typed"
wait_for '^▸The frobnicator is here' "the cursor on the first match"
magenta_before 'frob' && pass || fail "the match is not in the match colour"
keys Enter
keys n
wait_for '^▸Use the Frobnicator again' "n: the next line, case ignored"
keys n
wait_for 'search wrapped' "n wraps"
wait_for '^▸The frobnicator is here' "back at the first"
keys N
wait_for '^▸Use the Frobnicator again' "N: the previous, wrapping"
# Esc clears the find before leaving the page.
keys Escape
wait_for 'filter cleared' "the find cleared"
magenta_before 'frob' && fail "the match still coloured" || pass
wait_for '^Guide  http://guide\.localhost' "still on the page"
keys /
keys z z y z x
wait_for '^/zzyzx +not found: zzyzx' "a word not on the page"
keys Escape
quit_tui
finish
