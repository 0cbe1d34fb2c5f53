#!/bin/sh
# The reader: a search hit opens its page at the section it named; the
# page is laid out from its HTML (headings underlined, a long code line
# kept whole and scrolled sideways, numbered links); Tab or a typed number
# selects a link and Enter follows it into the linked page at its anchor;
# `o` hands the page to $BROWSER; a resize lays the page out again; `]`
# and `[` walk the site's pages in its order and `p` lists them (the site's
# navigation), so a whole site can be read offline (issue 15, item 9).
. "$LEC_TESTS/tui/lib.sh"

long="echo $(printf 'x%.0s' $(seq 1 60)) END-OF-THE-LONG-LINE"
mkdir -p "$TMP/guide/pages"
cat >"$TMP/guide/README.md" <<MD
# Guide

Welcome. See [the setup](pages/install.md#setup).

This paragraph is long enough to need two lines at eighty columns but only one at a hundred.

## Running

Run it like this:

\`\`\`
$long $long
\`\`\`
MD
printf '# Install\n\nFirst things.\n\n## Setup\n\nSet the frobnicator up.\n' >"$TMP/guide/pages/install.md"
make_repo "$TMP/guide"
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
# A browser that writes down what it was asked to open.
printf '#!/bin/sh\nprintf "%%s\\n" "$1" >"%s/browsed"\n' "$TMP" >"$TMP/browser"
chmod +x "$TMP/browser"

tui BROWSER="$TMP/browser"
wait_for '^guide +Guide +latest +finished' "projects"
keys : s e a r c h ' ' r u n n i n g Enter
wait_for '^  Running *$' "the section found"
keys j Enter
# The page, at the section: the cursor's mark on its heading.
wait_for '^Guide  http://guide\.localhost:[0-9]+/en/latest/ *$' "the page's header"
wait_for '^▸Running *$' "the section's heading under the cursor"
wait_for '^ -------' "the heading's underline"
wait_for '^ Welcome\. See the setup\[1\]\. *$' "the numbered link"
wait_for '^ This paragraph is long enough .* only one at a hundred\. *$' "a paragraph on one line"
wait_for '^     echo x{60} END-OF-THE-LONG-LINE echo x+…$' "the code line cut at the edge, unwrapped"
keys l l l l l l l l l l l l
wait_for 'END-OF-THE-LONG-LINE *$' "the code line scrolled sideways"
keys h h h h h h h h h h h h
wait_for '^     echo x{60} END' "scrolled back"

# Links: Tab selects, Enter follows into the linked page at its anchor.
keys Tab
wait_for '^\[1\] pages/install\.html#setup \(Enter follows\)' "the selected link"
keys Enter
wait_for '^Install  http://guide\.localhost:[0-9]+/en/latest/pages/install\.html *$' "the linked page"
wait_for '^▸Setup *$' "the linked anchor under the cursor"
expect_line 1 " Lectern [t]  Projects ▸ Search: guide ▸ page ▸ install.html                      ? help  : command"
keys q
# A typed number selects the link too.
keys 1
wait_for '^\[1\] pages/install\.html#setup \(Enter follows\)' "the link picked by number"
keys o
i=0
until [ -s "$TMP/browsed" ] || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
grep -Eq '^http://guide\.localhost:[0-9]+/en/latest/$' "$TMP/browsed" && pass ||
	fail "the browser got: $(cat "$TMP/browsed" 2>&1)"

# A resize lays the page out for the new width.
t resize-window -t s -x 80 -y 24
wait_for '^     echo x{60} END-OF-T…$' "the code line at 80 columns"
# (the cursor's mark is on the link's line)
wait_for '^.Welcome\. See the setup\[1\]\. *$' "the text at 80 columns"
wait_for '^ This paragraph is long enough .*[a-z] *$' "the paragraph wrapped at 80 columns"
wait_for '^ [a-z ]*at a hundred\. *$' "the paragraph wrapped at 80 columns"
# The site's order: the next page, the previous one, the list of pages.
keys ]
wait_for '^Install  http://guide\.localhost:[0-9]+/en/latest/pages/install\.html *$' "the next page"
keys ]
wait_for "^this is the site's last page" "no page after the last"
keys [
wait_for '^Guide  http://guide\.localhost:[0-9]+/en/latest/(index\.html)? *$' "the previous page"
keys p
wait_for '▸ Pages:' "the page list"
# Addresses from the site's root (the pages' shared directory), whole.
wait_for '^Install +pages/install\.html *$' "the page list's second page"
wait_for '^Guide +(\./|index\.html) *$' "the root page"
keys / i n s t Enter
wait_gone '^Guide +(\./|index)' "the page list filtered"
keys Enter
wait_for '^Install  http://guide\.localhost:[0-9]+/en/latest/pages/install\.html *$' "the page read from the list"
keys q
wait_for '^Guide  http://guide\.localhost:[0-9]+/en/latest/(index\.html)? *$' "back on the first page"
keys ?
# The help's own filter: its long descriptions take two lines each now.
keys / n e x t - l i n k
wait_for '^<Tab> +next-link ' "the reader's help"
keys Escape / b r o w s e r
wait_for '^o +browser +open the page in \$BROWSER *$' "the reader's help"
keys Escape q
quit_tui

finish
