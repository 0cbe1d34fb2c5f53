#!/bin/sh
# Live builds in the TUI: a build triggered during the test is seen on the
# Builds screen going from a running state to finished (the list polls
# with its ETag every second), `r` shows running builds only, the build
# screen streams the running command's output and follows it, scrolling
# up stops following and the bottom resumes it, the header and the list
# say what a build reused of the one before and `T` builds afresh, and
# `f` jumps to the first failed command of a failed build.
. "$LEC_TESTS/tui/lib.sh"

# A build whose first command prints a line, holds while its kept tree
# has _build/hold (the generators' state, which a build keeps: the test
# puts it there and takes it away once it has seen the command running and
# its first line; at most 90 s), then prints another.
mkdir -p "$TMP/slow"
printf 'i=0\nwhile [ -e _build/hold ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done\n' \
	>"$TMP/slow/hold.sh"
commands_repo "$TMP/slow" "echo first-line && sh hold.sh && echo second-line" \
	'mkdir -p $READTHEDOCS_OUTPUT/html' 'echo ok > $READTHEDOCS_OUTPUT/html/index.html'
commands_repo "$TMP/fails" "echo before" "exit 3" "echo never"

start_server
slow=$(import "Slow" "$TMP/slow")
fails=$(import "Fails" "$TMP/fails")
wait_build "$slow"
wait_build "$fails"

tui
wait_for '^fails +Fails +latest +finished +failed ' "the failed project"
keys : b u i l d s ' ' s l o w Enter
wait_for '^1 +latest +finished +passed +[0-9]+s +hand +[0-9]+s +fresh +[0-9a-f]{7} *$' "the first build"
expect_line 2 "#       Version    State      Result Started By      Time   Cache  Commit  Warn  Error"

# ---- A build started now shows up running, then finished.
HOLD="$TMP/data/checkouts/$slow/latest/_build/hold"
mkdir -p "${HOLD%/hold}"
: >"$HOLD"
id=$(api POST "/api/v3/projects/$slow/versions/latest/builds/" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["build"]["id"])')
wait_for "^$id"' +latest +(queued( #[0-9]+)?|cloning|installing|building) +[0-9]+s +hand +[0-9]+s ' "the running build"
keys r
wait_for 'running builds only' "the running filter"
wait_gone '^1 +latest' "the running filter"
wait_for "^$id"' +latest +(queued( #[0-9]+)?|cloning|installing|building) ' "the running filter"
keys r
wait_for '^1 +latest +finished +passed' "all builds again"

# ---- The running build's log streams and is followed.
keys g Enter
wait_for "^Build #$id"'  slow/latest  (queued( #[0-9]+)?|cloning|installing|building) ' "the running build's header"
wait_for '^\$ echo first-line && sh hold\.sh && echo second-line  \[running, [0-9]+s\]$' "the running command"
wait_for '^  first-line *$' "the streamed output"
# Seen running and streaming: the build may go on.
rm "$HOLD"
wait_for '\[following\]' "following"
keys k
wait_gone '\[following\]' "scrolling up"
keys G
wait_for '\[following\]' "the bottom again"
wait_for '^  second-line *$' "the rest of the output"
wait_for "^Build #$id"'  slow/latest  finished passed ' "the finished build"
wait_for '^\$ echo first-line && sh hold\.sh && echo second-line  \[exit 0, [0-9]+s\]$' "the finished command"
# Following leaves the cursor on the last line.
total=$(screen | sed -n 's,.* \([0-9][0-9]*\)/\([0-9][0-9]*\) *$,\1 \2,p' | tail -n 1)
set -- $total
[ "${1:-x}" = "${2:-y}" ] && pass || fail "the cursor is not on the last line: $total"
# The commit did not change: the header says everything was reused.
wait_for '^cache kept *$' "the build's cache"
# ---- T builds it again afresh, and the list says so.
keys T
wait_for "^Build #$((id + 1))"'  slow/latest  finished passed ' "the fresh build"
wait_for '^cache fresh: checkout: a fresh build was asked for *$' "the fresh build's cache"
keys q q
wait_for "^$((id + 1))"' +latest +finished +passed +[0-9]+s +hand +[0-9]+s +fresh ' "the fresh build in the list"
keys q

# ---- f jumps to the first failed command.
keys : b u i l d s ' ' f a i l s Enter
wait_for '^[0-9]+ +latest +finished +failed ' "the failed build"
keys Enter
wait_for '^Build #[0-9]+  fails/latest  finished failed ' "the failed build's header"
wait_for 'Command "exit 3" failed with exit code 3' "the build's error"
keys f
lineno=$(screen | grep -nE '^\$ exit 3  \[exit 3, [0-9]+s\]' | cut -d: -f1)
# Screen line 5 is the log's first line (below the Log/Warnings tabs).
wait_for " $((lineno - 4))/[0-9]+ *$" "the cursor on the failed command"
quit_tui

finish
