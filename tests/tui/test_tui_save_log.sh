#!/bin/sh
# `s` on a build (issue 43, item 12): it used to write lectern-build-ID.log
# into the TUI's working directory (often a work tree, where a stray log
# is committed or lost) and say that relative name. It saves into the
# downloads directory ($XDG_DOWNLOAD_DIR, else ~/Downloads, else the home
# directory) and names the file by its whole path (~ for the home
# directory, so it fits at 80 columns), at 80x24 and 200x60.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
mkdir -p "$TMP/home/Downloads" "$TMP/bare"

# save_at SIZE WHERE SAID ENV...: `s` on build 1, the log expected in
# WHERE, which the message names as SAID.
save_at() {
	size=$1
	where=$2
	said=$3
	shift 3
	rm -f "$where/lectern-build-1.log"
	tui_at "$size" "$@"
	wait_for "^$slug +Guide " "the project at $size"
	keys : b u i l d ' ' 1 Enter
	wait_for '^\$ lectern markdown ' "the build's log at $size"
	keys s
	wait_for "^saved [0-9]+ lines to $said/lectern-build-1\\.log " "the whole path at $size"
	grep -q '^\$ lectern markdown ' "$where/lectern-build-1.log" && pass ||
		fail "no log saved in $where at $size: $(ls "$where")"
	[ -e "$TMP/lectern-build-1.log" ] && fail "a log saved in the working directory at $size" || pass
	quit_tui
}

for size in 80x24 200x60; do
	save_at "$size" "$TMP/downloads" "$TMP/downloads"
	save_at "$size" "$TMP/home/Downloads" "~/Downloads" HOME="$TMP/home" XDG_DOWNLOAD_DIR=
	save_at "$size" "$TMP/bare" "~" HOME="$TMP/bare" XDG_DOWNLOAD_DIR=
done
finish
