#!/bin/sh
# Removing a project from the TUI (issue 31, item 4), at 80x24: D on the
# Projects screen opens a form that says what goes and wants the slug
# typed; a wrong slug sends nothing; the right one removes it (the row
# goes, the API has no such project). A project being built: its build
# is cancelled, the form says it is still stopping, and Enter again
# removes it once the worker has let go.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
commands_repo "$TMP/slow" "sleep 60"
start_server
slug=$(import Guide "$TMP/guide")
slow=$(import Slow "$TMP/slow")
wait_build "$slug"

tui
t resize-window -t s -x 80 -y 24
wait_for '^ *guide ' "the projects"
# The cursor on guide (the list is sorted by slug: guide, slow).
keys g D
wait_for 'Type guide to remove it with its versions, builds, docs, search' "the note"
keys g u i d Enter
wait_for 'type the project.s slug exactly, or Esc to keep it' "a wrong slug refused"
[ "$(api GET /api/v3/projects/guide/ | grep -c '"slug"')" -ge 1 ] && pass || fail "a wrong slug removed guide"
keys e Enter
wait_for 'removed the project with everything of it' "removed"
wait_gone '^ *guide ' "guide's row"
api GET /api/v3/projects/guide/ | grep -q 'No Project matches' && pass || fail "guide still answers"

# The slow project's build is running.
i=0
until api GET "/api/v3/projects/$slow/builds/?limit=1" | grep -q '"code": *"building"'; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { fail "the slow build never ran"; break; }
	sleep 0.1
done
keys g D
wait_for "Type $slow to remove it" "the slow project's form"
for c in $(echo "$slow" | sed 's/./& /g'); do keys "$c"; done
keys Enter
wait_for 'still stopping after being cancelled; try again' "the build still stopping"
api GET "/api/v3/projects/$slow/builds/?limit=1" | grep -q '"code": *"cancelled"' && pass ||
	fail "the build was not cancelled"
i=0
while screen | grep -q 'Remove a project' && [ $i -lt 60 ]; do
	i=$((i + 1))
	sleep 0.5
	keys Enter
done
wait_for 'removed the project with everything of it' "removed once stopped"
api GET "/api/v3/projects/$slow/" | grep -q 'No Project matches' && pass || fail "$slow still answers"
# Read-only: D says why and opens nothing.
quit_tui
import Guide "$TMP/guide" >/dev/null
tui -- --readonly
wait_for '^ *guide ' "the projects again"
keys D
wait_for 'read-only: started with --readonly' "read-only refusal"
quit_tui
finish
