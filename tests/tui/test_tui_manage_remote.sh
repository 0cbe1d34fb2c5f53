#!/bin/sh
# The TUI's management actions on a second engine acting as a remote
# context (business edition, no build workers, reached by `:context`):
# organizations browsed (and the community engine's 404 reported),
# writes to the remote project checked on the remote API, a queued build
# cancelled there, and a context with `readonly = true` refusing every
# write with its reason.
. "$LEC_TESTS/tui/lib.sh"

remote_pid=
cleanup_remote() {
	if [ -n "$remote_pid" ]; then
		kill "$remote_pid" 2>/dev/null
		wait "$remote_pid" 2>/dev/null
	fi
	cleanup
}
trap cleanup_remote EXIT

# api2 METHOD PATH [JSON]: the remote engine's answer.
api2() {
	curl -s -X "$1" -H "Authorization: Token $TOKEN2" \
		-H 'Content-Type: application/json' ${3:+-d "$3"} "$URL2$2"
}

# expect_api2 PATH EXPR WANT: until EXPR (Python, on j) on the remote's
# answer for PATH prints WANT.
expect_api2() {
	i=0
	while [ "$(api2 GET "$1" | /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); print($2)" 2>&1)" != "$3" ]; do
		i=$((i + 1))
		if [ $i -ge $((DEADLINE * 5)) ]; then
			fail "remote $1 $2: expected '$3', got '$(api2 GET "$1")'"
			return 1
		fi
		sleep 0.2
	done
	pass
}

markdown_repo
start_server
"$LECTERN" --data "$TMP/data2" serve --listen 127.0.0.1:0 --workers 0 \
	--edition business >"$TMP/serve2.out" 2>"$TMP/serve2.err" &
remote_pid=$!
i=0
while ! grep -q '^listening on ' "$TMP/serve2.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { echo "remote did not start: $(cat "$TMP/serve2.err")" >&2; exit 1; }
	sleep 0.1
done
URL2=$(sed -n 's,^listening on \(http://[^/]*\)/*$,\1,p' "$TMP/serve2.out")
TOKEN2=$("$LECTERN" --data "$TMP/data2" token create tester)
printf '%s\n' "$TOKEN2" >"$TMP/token2"
chmod 600 "$TMP/token2"
"$LECTERN" context add r --url "$URL2" --token-file "$TMP/token2" >/dev/null &&
	"$LECTERN" context add ro --url "$URL2" --token-file "$TMP/token2" --readonly >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }
# The business edition imports into an organization.
"$LECTERN" --data "$TMP/data2" org create docs-team --owner tester --name "Docs Team" >/dev/null ||
	{ echo "org setup failed" >&2; exit 1; }
api2 POST /api/v3/projects/ "{\"name\": \"Remote Docs\", \"organization\": \"docs-team\", \"repository\": {\"url\": \"https://git.example.test/remote-docs.git\"}}" >/dev/null
P=/api/v3/projects/remote-docs

tui
wait_for ' Lectern \[t\]  Projects ' "the local projects screen"
# ---- The community engine has no organizations: a 404, said so.
keys o
wait_for '^this instance has no organizations \(a business edition feature; HTTP 404\)' "the 404"

# ---- The remote context: organizations and their projects.
keys :
keys -l 'context r'
keys Enter
wait_for '^ Lectern \[r\]  Projects ' "the remote context"
wait_for '^remote-docs +Remote Docs' "the remote's projects"
keys o
wait_for '^Organization +Name +Owners' "the organizations"
wait_for '^docs-team +Docs Team +tester' "the organization"
keys Enter
wait_for '^ Lectern \[r\]  Projects ▸ Organizations ▸ docs-team ' "the organization's screen"
wait_for '^remote-docs +Remote Docs' "its project"
keys Enter
wait_for '▸ docs-team ▸ remote-docs ' "the project from the organization"

# ---- Writes on the remote, checked on its API.
keys Tab Tab Tab Tab
wait_for '^Type +From +To ' "the redirects tab"
keys a
wait_for '▸ Type +< page >' "the redirect form"
keys Tab
keys -l '/x'
keys Tab
keys -l '/y/'
keys Enter
wait_for '^page +/x +/y/ +302 +yes' "the remote redirect"
expect_api2 "$P/redirects/" '[(r["from_url"], r["to_url"]) for r in j["results"]]' "[('/x', '/y/')]"
keys Tab
wait_for '^Name +Public' "the env vars tab"
keys a
wait_for '▸ Name ' "the env var form"
keys -l REMOTE_KEY
keys Tab
keys -l 'remote-sekrit-value'
wait_for '\*{19}_' "the masked value"
screen | grep -q 'sekrit' && fail "the value is on screen" || pass
keys Enter
wait_for '^REMOTE_KEY +no' "the remote variable"
expect_api2 "$P/environmentvariables/" '[e["name"] for e in j["results"]]' "['REMOTE_KEY']"
# No workers here: a triggered build stays queued, and cancelling it is
# the instance's call.
keys : b u i l d s ' ' r e m o t e - d o c s Enter
# A Lectern says its place in the queue (the only build waiting).
wait_for '^[0-9]+ +latest +queued #1 ' "the remote's queued build"
keys X
wait_for 'Cancel build #[0-9]+ of remote-docs/latest\? \[y/N\]' "the cancel question"
keys y
expect_api2 "$P/builds/?limit=1" 'j["results"][0]["state"]["code"]' cancelled
wait_for '^[0-9]+ +latest +cancelled' "the cancelled build"
keys : o r g s Enter
wait_for '^docs-team +Docs Team' ":orgs"

# ---- A read-only context refuses every write and says why.
keys :
keys -l 'context ro'
keys Enter
wait_for '^ Lectern \[ro read-only\]  Projects ' "the read-only context (named so in the title)"
wait_for '^remote-docs ' "its projects"
keys a
wait_for '^read-only: context ro has readonly = true' "import refused"
keys Enter
wait_for '^ Versions ' "the project"
wait_for '^latest ' "its versions"
for k in t A H; do
	keys "$k"
	wait_for '^read-only: context ro has readonly = true' "$k refused"
done
keys Tab Tab Tab Tab
wait_for '^page +/x ' "the redirects tab"
for k in a e d K; do
	keys "$k"
	wait_for '^read-only: context ro has readonly = true' "$k refused"
done
screen | grep -q '\[y/N\]' && fail "a question in read-only mode" || pass
expect_api2 "$P/redirects/" 'j["count"]' 1
expect_api2 "$P/builds/" 'j["count"]' 1
expect_api2 "$P/versions/latest/" '(j["active"], j["hidden"])' "(True, False)"
quit_tui

finish
