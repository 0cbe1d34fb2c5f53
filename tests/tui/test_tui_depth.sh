#!/bin/sh
# Lists at any depth (issue 15, item 3): with 10,000 builds (written into
# the store in one transaction), `G` shows the oldest build at once, page
# jumps land on the right rows, `g` comes back to the newest, and the rows
# drawn are the server's rows at those offsets. The time `G` takes is
# bench/tui.sh's to measure; this checks the screens with a generous poll.
. "$LEC_TESTS/tui/lib.sh"

start_server
api POST /api/v3/projects/ '{"name": "Deep", "repository": {"url": "https://example.com/deep.git"}}' >/dev/null
seed_builds deep 10000
# The import's own build is the newest; the seeded ones follow, oldest last.
oldest=$(api GET '/api/v3/projects/deep/builds/?limit=1&offset=10000' |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])')
at() {
	api GET "/api/v3/projects/deep/builds/?limit=1&offset=$1" |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])'
}

tui
wait_for '^deep +Deep ' "the project"
keys : b u i l d s ' ' d e e p Enter
wait_for ' 1/10001 *$' "the whole count"
keys G
wait_for "^$oldest +latest +finished +failed +[0-9]+[smhd] +hand +1s +0000000 +seeded failure 0 *\$" "the oldest build"
wait_for ' 10001/10001 *$' "the cursor on the last row"
# cursor_row: the selected row's number (1-based) in the status line.
cursor_row() {
	screen | sed -n 's,.* \([0-9][0-9]*\)/10001 *$,\1,p' | tail -n 1
}
keys PPage
wait_gone ' 10001/10001 *$' "a page up"
n=$(cursor_row)
wait_for "^$(at $((n - 1))) +latest +finished " "the build $n rows down after a page up"
keys g
wait_for ' 1/10001 *$' "back to the newest"
# The middle of the history, by page jumps.
keys NPage NPage NPage NPage NPage
wait_gone ' 1/10001 *$' "five pages down"
sleep 0.5
n=$(cursor_row)
wait_for "^$(at $((n - 1))) +latest +finished " "the build $n rows down after five pages"
# The project's builds tab draws from the same model.
keys q
keys Enter
wait_for 'Versions' "the project"
keys b
wait_for ' 1/10001 *$' "the builds tab's count"
keys End
wait_for "^$oldest +latest +finished +failed " "the oldest build on the builds tab"
quit_tui

finish
