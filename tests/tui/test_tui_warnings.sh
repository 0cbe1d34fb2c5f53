#!/bin/sh
# Warnings in the TUI (issue 30, item 6), at 80x24: the builds list's Warn
# column (the count, and +N new since the last good build), the build
# screen's tab line with the totals, `W` to its Warnings tab (new ones
# first) and back to the log; Enter on a broken link opens its page in the
# reader, on a generator's warning says its file:line; `a` on a removed
# page opens the redirect form filled in from it, and saving it adds the
# redirect. The preview's reader counts its build's warnings and `W` lists
# them.
. "$LEC_TESTS/tui/lib.sh"

# A Markdown project whose second commit removes a page, keeps a broken
# link and adds one.
mkdir -p "$TMP/guide/docs"
printf '# Guide\n\nSee [gone](gone.md) and [old](old.md).\n' >"$TMP/guide/docs/index.md"
printf '# Old\n\nSoon gone.\n' >"$TMP/guide/docs/old.md"
make_repo "$TMP/guide"
start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
git_env -C "$TMP/guide" rm -q docs/old.md
printf '# Guide\n\nSee [gone](gone.md) and [more](more.md#x).\n' >"$TMP/guide/docs/index.md"
git_env -C "$TMP/guide" commit -q -am "drop the old page"
api POST "/api/v3/projects/$slug/versions/latest/builds/" >/dev/null
i=0
until api GET "/api/v3/projects/$slug/builds/?limit=1" | grep -q '"code": *"finished"' &&
	api GET "/api/v3/projects/$slug/builds/?limit=1" | grep -q '"id": *2'; do
	i=$((i + 1)); [ $i -lt $((DEADLINE * 5)) ] || { fail "build 2 did not finish"; break; }
	sleep 0.2
done

tui
t resize-window -t s -x 80 -y 24
wait_for '^guide +Guide ' "the project"
keys : b u i l d s ' ' g u i d e Enter
# Build 2: three warnings, two of them new (the added link, the removed
# page); build 1's one was new then.
wait_for '^2 +latest +finished +passed .* 3\+2 *$' "build 2's warnings column"
wait_for '^1 +latest +finished +passed .* 1\+1 *$' "build 1's warnings column"
keys g Enter
wait_for '^Build #2  guide/latest  finished passed ' "the build screen"
wait_for '^ Log  +Warnings: 3 warnings, 2 new *$' "the tab line"
keys W
wait_for 'Enter: open' "the Warnings tab"
# New first (the added link, then the removed page), then the kept link.
wait_for '^\+ link +index\.html:[0-9]+ +broken link .more\.html#x.' "the new broken link"
screen | sed -n '6p' | grep -qE '^\+ removed +old\.html +removed page old\.html' && pass ||
	fail "the removed page is not second: $(screen)"
screen | sed -n '7p' | grep -qE '^  link +index\.html:[0-9]+ +broken link .gone\.html.' && pass ||
	fail "the kept link is not last: $(screen)"
# Enter on the kept link: its page in the reader.
keys G Enter
wait_for '^Guide  http://guide\.localhost:[0-9]+/en/latest/index\.html' "the page in the reader"
keys q
wait_for 'Enter: open' "back on the Warnings tab"
# `a` on the removed page: the redirect form, filled in.
keys g j a
wait_for '▸ Type +< page >' "the redirect form"
wait_for '^  From URL +/old\.html' "the removed page's URL"
keys Enter
i=0
until api GET "/api/v3/projects/$slug/redirects/" | grep -q '"from_url": *"/old.html"'; do
	i=$((i + 1)); [ $i -lt $((DEADLINE * 5)) ] || { fail "no redirect from /old.html"; break; }
	sleep 0.2
done
[ $i -lt $((DEADLINE * 5)) ] && pass
# W goes back to the log.
keys W
wait_for '^\$ lectern markdown docs ' "the log again"
keys q q

# ---- The preview's reader counts its build's warnings; W lists them.
keys : "preview $TMP/guide" Enter
wait_for '^Guide  2 warnings \(W\)  http://127\.0\.0\.1:[0-9]+/' "the preview's count"
keys W
wait_for '^Warnings of the preview: 2 warnings' "the preview's warnings"
wait_for '^  link +index\.html:[0-9]+ +broken link .gone\.html.' "a preview record"
keys q
quit_tui
finish
