#!/bin/sh
# The writers' preview from the TUI: `P` on the Projects screen offers
# `:preview` with the current directory; `:preview DIR` starts `lectern
# preview DIR --port 0` as a child and opens the reader on its index page.
# A save shows up in the reader without a key pressed, at the same place;
# a broken build says why in the status line and keeps the page; a fixed
# one shows again. A second `:preview` replaces the first child (its
# reader leaves the screen stack with it), a
# directory that is not there is reported, and leaving the preview's
# last screen (or quitting) stops the child.
. "$LEC_TESTS/tui/lib.sh"

# The directory names are the markers pgrep looks for.
book="$TMP/pvbook-$$"
other="$TMP/pvother-$$"
mkdir -p "$book/chapters" "$other" "$TMP/run"
{
	printf '# Preview Book\n\nFirst draft of the welcome.\n\n'
	printf 'See [the chapter](chapters/chapter.md).\n\n'
	for n in $(seq 1 40); do printf 'Filler paragraph %s.\n\n' "$n"; done
} >"$book/README.md"
printf '# Chapter\n\nThe chapter.\n' >"$book/chapters/chapter.md"
printf '# Other Tree\n\nAnother tree entirely.\n' >"$other/README.md"

# wait_fast REGEX WHAT: wait_for, looking every 10 ms, for a timing.
wait_fast() {
	i=0
	while ! screen | grep -Eq -- "$1"; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 100)) ] || { fail "$2 never showed /$1/: $(screen)"; return 1; }
		sleep 0.01
	done
	pass
}

# running DIR: the number of `lectern preview DIR` processes.
running() { pgrep -f -c -- "lectern preview $1 --port 0" || true; }

start_server
tui XDG_RUNTIME_DIR="$TMP/run"
wait_for '^ No projects yet' "the empty Projects screen"

# P: the command line, ready for the current directory.
keys P
wait_for "^:preview $TMP *\$" "the preview prompt"
keys "/pvnone-$$" Enter
wait_for "^preview stopped: lectern: cannot preview: $TMP/pvnone-$$: no such di" \
	"a missing directory"

keys : "preview $book" Enter
wait_for '^Preview Book  http://127\.0\.0\.1:[0-9]+/ *$' "the preview's page"
wait_for '^ First draft of the welcome\. *$' "the page's text"
[ "$(running "$book")" = 1 ] && pass || fail "no preview child of $book"
# The cursor seven lines down: a rebuild must leave it there.
keys j j j j j j j
wait_for '^▸Filler paragraph 1\. *$' "the cursor on the first filler line"

# A save appears without a key pressed.
start=$(date +%s%N)
sed -i 's/First draft/Second draft/' "$book/README.md"
wait_fast '^ Second draft of the welcome\. *$' "the saved text"
echo "save -> reader: $((($(date +%s%N) - start) / 1000000)) ms"
wait_for '^▸Filler paragraph 1\. *$' "the cursor kept across the rebuild"
wait_for '^preview: build [0-9]+ +8/86$' "the rebuild in the status line"

# A broken configuration: the status line says why, the page stays.
printf 'version: 2\nbuild: [\n' >"$book/.readthedocs.yaml"
wait_for '^preview: build [0-9]+ failed: ' "the failed build"
screen | grep -q '^ Second draft of the welcome\. *$' && pass ||
	fail "the page went on a failed build: $(screen)"
# Fixed again: the next build shows.
rm "$book/.readthedocs.yaml"
sed -i 's/Second draft/Third draft/' "$book/README.md"
wait_for '^ Third draft of the welcome\. *$' "the text after the fix"
wait_for '^preview: build [0-9]+ +8/86$' "the error cleared"

# A link within the preview is a preview page too: it follows saves.
keys Tab Enter
wait_for '^Chapter  http://127\.0\.0\.1:[0-9]+/chapters/chapter\.html *$' "the linked page"
printf '# Chapter\n\nThe chapter, rewritten.\n' >"$book/chapters/chapter.md"
wait_for '^ The chapter, rewritten\. *$' "the linked page's save"
keys q

# A second preview replaces the first.
keys : "preview $other" Enter
wait_for '^Other Tree  http://127\.0\.0\.1:[0-9]+/ *$' "the second preview"
[ "$(running "$book")" = 0 ] && pass || fail "the first preview still runs"
[ "$(running "$other")" = 1 ] && pass || fail "no preview child of $other"
# The first preview's reader went with its server (issue 31, item 13):
# back is the Projects screen.
wait_for '^ Lectern \[t\]  Projects ▸ preview +\? help' "one preview in the trail"
keys q
wait_for '^ No projects yet' "Projects, back from the second preview"
# Leaving its last screen stops the preview, and says so (issue 43, item
# 11: it kept rebuilding on every save until the TUI quit).
wait_for "^stopped the preview of $other \(:preview starts it again\)" "the preview stopped on leaving"
i=0
while [ "$(running "$other")" != 0 ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(running "$other")" = 0 ] && pass || fail "the preview outlived its screens"

quit_tui
i=0
while [ "$(running "$other")" != 0 ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(running "$other")" = 0 ] && pass || fail "the preview outlived the TUI"
finish
