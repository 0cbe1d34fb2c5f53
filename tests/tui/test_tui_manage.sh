#!/bin/sh
# The TUI's management actions against a real `lectern serve` (one build
# worker, a fixture Markdown repository): import through the form and
# the first build live, trigger/retry/cancel builds, version flags,
# project settings, redirects (add, edit, reorder, delete, a validation
# error next to its field, fields by type), env vars (the value masked and
# never on screen), subprojects, confirmations (no: nothing changed; yes:
# gone) and --readonly. After every action the API's state is read back
# with curl. test_tui_manage_remote.sh covers a second, remote engine.
. "$LEC_TESTS/tui/lib.sh"

# json PATH EXPR: evaluate the Python expression EXPR on the API answer
# (bound to j) and print the result.
json() {
	api GET "$1" | /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); print($2)"
}

# expect_api PATH EXPR WANT: until EXPR on PATH's answer prints WANT (the
# screen reflects a write a moment before the next poll might read it).
expect_api() {
	i=0
	while [ "$(json "$1" "$2" 2>/dev/null)" != "$3" ]; do
		i=$((i + 1))
		if [ $i -ge $((DEADLINE * 5)) ]; then
			fail "$1 $2: got '$(json "$1" "$2" 2>&1)', expected '$3'"
			return 1
		fi
		sleep 0.2
	done
	pass
}

# wait_line N REGEX [WHAT]: until screen line N matches REGEX.
wait_line() {
	i=0
	while ! screen | sed -n "${1}p" | grep -Eq -- "$2"; do
		i=$((i + 1))
		if [ $i -ge $((DEADLINE * 10)) ]; then
			fail "${3:-line $1} never showed /$2/:
$(screen)"
			return 1
		fi
		sleep 0.1
	done
	pass
}

# never_shown TEXT: the screen does not contain TEXT right now.
never_shown() {
	if screen | grep -qF -- "$1"; then fail "the screen shows '$1':
$(screen)"; else pass; fi
}

markdown_repo
commands_repo "$TMP/slow" "sleep 60"
start_server
P=/api/v3/projects

tui
wait_for ' Lectern \[t\]  Projects ' "the projects screen"

# ---- Import through the form, then the first build live.
keys a
wait_for '▸ Name ' "the import form"
wait_for '^  Repository URL' "the import form"
# Sent empty: the server's messages under the fields they name (the
# repository's nested as repository.url), the cursor on the first.
keys Enter
wait_for '^ +! This field may not be blank\.' "the messages under the fields"
screen | grep -A1 '^▸ Name' | tail -1 | grep -q '^ *! This field may not be blank\.' && pass ||
	fail "no message under Name: $(screen)"
screen | grep -A1 '^  Repository URL' | tail -1 | grep -q '^ *! ' && pass ||
	fail "no message under Repository URL: $(screen)"
expect_api "$P/" 'j["count"]' 0
keys -l 'Markdown Guide'
keys Tab
keys -l "file://$TMP/guide"
keys Enter
wait_for '^ Lectern \[t\]  Projects ▸ markdown-guide ' "the imported project"
wait_for '^ Versions  Builds ' "the project's tabs"
wait_for '^1 +latest +' "the first build on the builds tab"
expect_api "$P/markdown-guide/" 'j["repository"]["url"]' "file://$TMP/guide"
wait_build markdown-guide
wait_for '^1 +latest +finished +passed' "the first build finished, live"
child=$(import Child "$TMP/guide")
wait_build "$child"

# ---- Versions: trigger, hide/unhide, deactivate (asks), activate.
# (The tab was read when the project opened; R reads it again. The
# repository's branch main is a version too: the filter keeps latest.)
keys h R
wait_for '^latest +yes +no +yes +branch' "the versions tab"
keys /
keys -l latest
keys Enter
wait_gone '^main ' "the filter"

keys t
wait_for '^triggered a build of markdown-guide/latest' "the trigger message"
expect_api "$P/markdown-guide/builds/" 'j["count"]' 2
wait_build markdown-guide
keys H
wait_for '^latest +yes +yes +' "hidden on screen"
expect_api "$P/markdown-guide/versions/latest/" 'j["hidden"]' True
keys H
wait_for '^latest +yes +no +' "unhidden on screen"
expect_api "$P/markdown-guide/versions/latest/" 'j["hidden"]' False
keys A
wait_for 'Deactivate version latest of markdown-guide \(its docs go offline\)\? \[y/N\]' "the deactivate question"
keys n
wait_for '^kept: nothing changed' "the answer no"
expect_api "$P/markdown-guide/versions/latest/" 'j["active"]' True
keys A
wait_for 'Deactivate version latest' "the question again"
keys y
wait_for '^latest +no +' "deactivated on screen"
expect_api "$P/markdown-guide/versions/latest/" 'j["active"]' False
keys A
wait_for '^latest +yes +' "activated at once, without a question"
expect_api "$P/markdown-guide/versions/latest/" 'j["active"]' True

# ---- Builds tab: retry the selected build's version.
# (Activating a version builds it: wait for that build first.)
wait_build markdown-guide
keys Tab
wait_for '^# +Version +State ' "the builds tab"
keys /
keys -l latest
keys Enter
n=$(json "$P/markdown-guide/versions/latest/builds/" 'j["count"]')
wait_for " [0-9]+/$n *\$" "every build of latest"
keys t
wait_for '^triggered a build of markdown-guide/latest' "the retry"
expect_api "$P/markdown-guide/versions/latest/builds/" 'j["count"]' $((n + 1))
wait_build markdown-guide
wait_for " [0-9]+/$((n + 1)) *\$" "the retried build, live"
wait_gone '^[0-9]+ +latest +(queued( #[0-9]+)?|cloning|building|installing)' "the retried build finishing, live"

# ---- Redirects: add, a validation error by its field, edit, reorder,
# delete with confirmation, fields by type.
keys Tab Tab Tab
wait_for '^Type +From +To ' "the redirects tab"
keys a
wait_for '▸ Type +< page >' "the redirect form"
wait_for '^  From URL' "page redirects have URLs"
keys Tab
keys -l '/old'
keys Tab
keys -l '/new/'
keys Tab C-u
keys -l 303
keys Enter
wait_for '^ +! "303" is not a valid choice\.' "the server's message under HTTP status"
screen | grep -B1 '! "303"' | head -1 | grep -q 'HTTP status' && pass ||
	fail "the message is not next to HTTP status: $(screen)"
expect_api "$P/markdown-guide/redirects/" 'j["count"]' 0
keys C-u
keys -l 301
keys Enter
wait_for '^page +/old +/new/ +301 +yes' "the new redirect"
expect_api "$P/markdown-guide/redirects/" '[(r["type"], r["from_url"], r["to_url"], r["http_status"]) for r in j["results"]]' "[('page', '/old', '/new/', 301)]"
keys e
wait_for '▸ Type +< page >' "the edit form"
keys Tab Tab C-u
keys -l '/newer/'
keys Enter
wait_for '^page +/old +/newer/ +301' "the edited redirect"
expect_api "$P/markdown-guide/redirects/" '[r["to_url"] for r in j["results"]]' "['/newer/']"
keys a
wait_for '▸ Type +< page >' "the form again"
keys Space Space
wait_for '▸ Type +< clean_url_to_html >' "the type changed"
wait_gone '^  From URL' "the URL fields gone for clean_url_to_html"
keys Left
wait_for '▸ Type +< exact >' "back to exact"
wait_for '^  From URL' "exact redirects have URLs"
keys Tab
keys -l '/a'
keys Tab
keys -l '/b'
keys Enter
wait_for '^exact +/a +/b ' "the second redirect"
# A new redirect goes first, as on the service.
expect_api "$P/markdown-guide/redirects/" '[(r["from_url"], r["position"]) for r in j["results"]]' "[('/a', 0), ('/old', 1)]"
wait_line 4 '^exact +/a ' "the new one first on screen"
keys End K
wait_for '^redirect moved to position 0' "the move"
wait_line 4 '^page +/old ' "the new order on screen"
expect_api "$P/markdown-guide/redirects/" '[(r["from_url"], r["position"]) for r in j["results"]]' "[('/old', 0), ('/a', 1)]"
keys End d
wait_for 'Delete redirect exact /a -> /b of markdown-guide\? \[y/N\]' "the delete question"
keys Escape
wait_for '^kept: nothing changed' "Esc keeps it"
expect_api "$P/markdown-guide/redirects/" 'j["count"]' 2
keys d
wait_for 'Delete redirect exact /a -> /b' "the question again"
keys y
wait_for '^deleted redirect exact /a -> /b' "the delete"
wait_gone '^exact +/a ' "the deleted redirect"
expect_api "$P/markdown-guide/redirects/" '[r["from_url"] for r in j["results"]]' "['/old']"

# ---- Env vars: the value typed masked, never on screen; delete asks.
keys Tab
wait_for '^Name +Public' "the env vars tab"
keys a
wait_for '▸ Name ' "the env var form"
keys -l API_SECRET
keys Tab
keys -l 'hunter2-sekrit'
wait_for '^▸ Value \(masked\) +\*{14}_' "the value as stars"
never_shown hunter2
keys Tab Space
wait_for '^▸ Public +\[x\]' "public ticked"
keys Enter
wait_for '^API_SECRET +yes' "the variable"
never_shown hunter2
expect_api "$P/markdown-guide/environmentvariables/" '[(e["name"], e["public"], "value" in e) for e in j["results"]]' "[('API_SECRET', True, False)]"
keys d
wait_for 'Delete env var API_SECRET of markdown-guide\? \[y/N\]' "the delete question"
keys n
expect_api "$P/markdown-guide/environmentvariables/" 'j["count"]' 1
keys d
wait_for 'Delete env var API_SECRET' "the question again"
keys y
wait_gone '^API_SECRET ' "the deleted variable"
expect_api "$P/markdown-guide/environmentvariables/" 'j["count"]' 0

# ---- Subprojects: the child chosen from the user's projects; remove asks.
keys BTab BTab BTab
wait_for '^Alias +Project +Name' "the subprojects tab"
keys a
# The choices are the user's other projects, read when the form opens.
wait_for "▸ Project +< $child >" "the child choice"
# The only other project: Space comes back to it, never to this one.
keys Space
wait_for "▸ Project +< $child >" "the only choice"
never_shown "< markdown-guide >"
keys Tab
keys -l kid
keys Enter
wait_for "^kid +$child +Child" "the subproject"
expect_api "$P/markdown-guide/subprojects/" '[(s["alias"], s["child"]["slug"]) for s in j["results"]]' "[('kid', '$child')]"
keys d
wait_for "Delete subproject kid \($child\) of markdown-guide\? \[y/N\]" "the remove question"
keys q
expect_api "$P/markdown-guide/subprojects/" 'j["count"]' 1
keys d
wait_for 'Delete subproject kid' "the question again"
keys y
wait_gone '^kid ' "the removed subproject"
expect_api "$P/markdown-guide/subprojects/" 'j["count"]' 0

# ---- Settings: what the v3 PATCH takes, reflected at once.
keys Tab Tab Tab Tab
wait_for '^default branch ' "the settings tab"
keys e
wait_for '▸ Default version +latest_' "the settings form"
keys Tab C-u
keys -l main
keys Tab C-u
keys -l xx
keys Enter
wait_for '^not saved: language: ' "the refused language"
screen | grep -A1 '^▸ Language' | tail -1 | grep -q '^ *! ' && pass ||
	fail "no message under Language: $(screen)"
expect_api "$P/markdown-guide/" '(j["language"]["code"], j["default_branch"] == "main")' "('en', False)"
keys C-u
keys -l en
keys Tab Tab
keys -l 'https://example.test/'
keys Tab Right
wait_for '▸ Versioning +< multiple_versions_without_translations >' "the scheme choice"
keys Tab Space
keys Enter
wait_for '^settings saved' "the save"
wait_for '^homepage +https://example.test/' "the new homepage on screen"
wait_for '^versioning +multiple_versions_without_translations' "the new scheme on screen"
expect_api "$P/markdown-guide/" '(j["default_branch"], j["homepage"], j["versioning_scheme"])' "('main', 'https://example.test/', 'multiple_versions_without_translations')"
# A form cancelled with Esc sends nothing.
keys e
wait_for '▸ Default version' "the form again"
keys Tab C-u
keys -l nope
wait_for '▸ Default branch +nope_' "the typed text"
keys Escape
wait_for '^cancelled: nothing changed' "the cancel"
expect_api "$P/markdown-guide/" 'j["default_branch"]' main

# ---- Cancel a running build (asks first), then one already ended.
slow=$(import Slow "$TMP/slow")
keys : b u i l d s ' ' s l o w Enter
wait_for '^[0-9]+ +latest +(building|cloning|installing|queued( #[0-9]+)?)' "the slow build running"
keys X
wait_for "Cancel build #[0-9]+ of $slow/latest\? \[y/N\]" "the cancel question"
keys n
expect_api "$P/$slow/builds/?limit=1" 'j["results"][0]["state"]["code"] != "cancelled"' True
keys X
wait_for 'Cancel build #' "the question again"
keys y
expect_api "$P/$slow/builds/?limit=1" 'j["results"][0]["state"]["code"]' cancelled
wait_for '^[0-9]+ +latest +cancelled' "the cancelled build, live"
keys X
wait_for '^build #[0-9]+ has already ended' "an ended build"
quit_tui

# ---- --readonly: every write key says why, nothing is sent.
tui -- --readonly
wait_for '^markdown-guide ' "the projects screen"
keys a
wait_for '^read-only: started with --readonly' "import refused"
keys :
keys -l 'project markdown-guide'
keys Enter
wait_for '^ Versions ' "the project"
for k in t A H; do
	keys "$k"
	wait_for '^read-only: started with --readonly' "$k refused"
done
keys Tab Tab Tab Tab Tab Tab
wait_for '^default branch ' "the settings tab"
keys e
wait_for '^read-only: started with --readonly' "edit refused"
never_shown 'Default version'
n=$(json "$P/markdown-guide/builds/" 'j["count"]')
keys R
sleep 1
expect_api "$P/markdown-guide/builds/" 'j["count"]' "$n"
quit_tui

finish
