#!/bin/sh
# Queued builds in the TUI (issue 31, item 6), at 80x24, on an engine with
# no workers (every build waits): a waiting build shows as queued with its
# place in the instance's queue, on a project's Builds screen and on
# `:builds` alone, which lists every project's builds (newest first, the
# project in a column of its own); the Projects screen's last build says
# queued too.
WORKERS=0
. "$LEC_TESTS/tui/lib.sh"
markdown_repo
start_server
one=$(import One "$TMP/guide")
two=$(import Two "$TMP/guide")

tui
t resize-window -t s -x 80 -y 24
wait_for "^$one +One +latest +queued " "the projects' last builds queued"
keys : b u i l d s Enter
wait_for 'Builds: every project' "every project's builds"
wait_for '^# +Project +Version +State +Result +Started +Time +Error' "the columns across projects"
wait_for "^2 +$two +latest +queued #2 " "two's build, second in the queue"
wait_for "^1 +$one +latest +queued #1 " "one's build, next"
[ "$(screen | grep -n "queued #2" | cut -d: -f1)" -lt "$(screen | grep -n "queued #1" | cut -d: -f1)" ] &&
	pass || fail "not newest first: $(screen)"
# Enter opens the build, of its own project.
keys Enter
wait_for "^Build #2  $two/latest  queued" "the build's header"
keys q : b u i l d s ' ' "$one" Enter
wait_for "Builds: $one" "one project's builds"
wait_for "^1 +latest +queued #1 " "its build's place"
quit_tui
finish
