#!/bin/sh
# How builds started, and the project's integrations tab, against a real
# `lectern serve`: a build triggered by a signed GitHub delivery reads
# "github" in the builds lists and on its screen, one started through the
# API "hand", one the engine's commit watch started "commit". The
# integrations tab lists an integration made through the API; `a` makes
# one, whose secret is shown once in a notice that stray keys do not
# close, is gone from the screen once it is closed, never appears in the
# list, and is the real one (a GitLab delivery with it builds); `d`
# deletes after asking; --readonly refuses both. Against a stand-in for
# the hosted service (tests/cli/fake_service.py), which never says how a
# build started, builds read "-", not "hand".
. "$LEC_TESTS/tui/lib.sh"

fake_pid=
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; cleanup' EXIT

# jq-less JSON: evaluate the Python expression EXPR on stdin (bound to j).
py() { /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

# never_shown TEXT: the screen does not contain TEXT right now.
never_shown() {
	if screen | grep -qF -- "$1"; then fail "the screen shows '$1':
$(screen)"; else pass; fi
}

# builds_count SLUG N: until the project has N builds.
builds_count() {
	i=0
	until [ "$(api GET "/api/v3/projects/$1/builds/" | py 'j["count"]')" = "$2" ]; do
		i=$((i + 1))
		[ $i -lt $((DEADLINE * 5)) ] || { fail "$1 never had $2 builds"; return 1; }
		sleep 0.2
	done
	pass
}

# A push of branch main as GitHub sends it (the fields the engine reads).
PUSH='{"ref": "refs/heads/main", "before": "1111111111111111111111111111111111111111", "after": "2222222222222222222222222222222222222222", "created": false, "deleted": false, "repository": {"default_branch": "main"}}'

markdown_repo
WATCH=1 start_server
slug=$(import Guide "$TMP/guide")
wait_build "$slug"
P="/api/v3/projects/$slug"

# ---- A signed GitHub delivery builds; the list says so.
secret=$(api POST "$P/integrations/" '{"integration_type": "github_webhook"}' | py 'j["secret"]')
signature=$(printf '%s' "$PUSH" | openssl dgst -sha256 -hmac "$secret" | sed 's/^.*= *//')
answer=$(curl -s -H 'Content-Type: application/json' -H 'X-GitHub-Event: push' \
	-H "X-Hub-Signature-256: sha256=$signature" --data-binary "$PUSH" \
	"$URL/api/v2/webhook/github/$slug/")
[ "$(printf '%s' "$answer" | py 'j["build_triggered"]')" = True ] && pass ||
	fail "the delivery built nothing: $answer"
builds_count "$slug" 2
wait_build "$slug"

tui
wait_for "^$slug +Guide " "the projects screen"
keys : b u i l d s ' ' "$slug" Enter
wait_for '^2 +latest +finished +passed +[0-9]+s +github +[0-9]+s ' "the webhook's build"
wait_for '^1 +latest +finished +passed +[0-9]+s +hand +[0-9]+s ' "the build started by hand"
keys Enter
wait_for "^Build #2  $slug/latest  finished passed  by github  " "the build screen's header"
keys q q

# ---- The integrations tab: the one made through the API, never its secret.
keys : p r o j e c t ' ' "$slug" Enter
wait_for '^ Versions ' "the project"
keys BTab
wait_for '^Type +URL +Created' "the integrations tab"
id=$(api GET "$P/integrations/" | py 'j["results"][0]["id"]')
wait_for "^github +http://127\\.0\\.0\\.1:[0-9]+/api/v2/webhook/$slug/$id/ +[0-9]+s ago" "the integration"
never_shown "$secret"

# ---- a: a new one; its secret shown once, until closed.
keys a
wait_for '▸ Forge +< github >' "the integration form"
keys Space
wait_for '▸ Forge +< gitlab >' "gitlab chosen"
keys Enter
wait_for '^ +Secret +[A-Za-z0-9]{32} *$' "the new secret"
wait_for '^ +URL +http://127\.0\.0\.1:[0-9]+/api/v2/webhook/' "the webhook URL"
shown=$(screen | sed -n 's/^ *Secret *\([A-Za-z0-9]*\) *$/\1/p')
keys j x Space
sleep 0.3
wait_for "Secret +$shown" "the secret after stray keys"
keys q
wait_gone 'Secret ' "the closed notice"
wait_for '^gitlab +http://' "the new integration in the list"
never_shown "$shown"
api GET "$P/integrations/" | grep -qF "$shown" && fail "the API returned the secret" || pass
# The secret shown is the real one: a GitLab delivery with it builds.
answer=$(curl -s -H 'Content-Type: application/json' -H 'X-Gitlab-Event: Push Hook' \
	-H "X-Gitlab-Token: $shown" \
	--data-binary '{"object_kind": "push", "ref": "refs/heads/main", "before": "3333333333333333333333333333333333333333", "after": "4444444444444444444444444444444444444444"}' \
	"$URL/api/v2/webhook/gitlab/$slug/")
[ "$(printf '%s' "$answer" | py 'j["build_triggered"]')" = True ] && pass ||
	fail "the GitLab delivery built nothing: $answer"
builds_count "$slug" 3
wait_build "$slug"

# ---- d: asks, then deletes.
gitlab=$(api GET "$P/integrations/" | py '[i["id"] for i in j["results"] if i["integration_type"] == "gitlab_webhook"][0]')
keys End d
wait_for "Delete integration #$gitlab \\(gitlab\\) of $slug\\? \\[y/N\\]" "the delete question"
keys n
wait_for '^kept: nothing changed' "the answer no"
[ "$(api GET "$P/integrations/" | py 'j["count"]')" = 2 ] && pass || fail "a kept integration went"
keys d
wait_for "Delete integration #$gitlab" "the question again"
keys y
wait_gone '^gitlab ' "the deleted integration"
[ "$(api GET "$P/integrations/" | py '[i["integration_type"] for i in j["results"]]')" = "['github_webhook']" ] &&
	pass || fail "integrations left: $(api GET "$P/integrations/")"

# ---- The builds tab: the GitLab delivery's build, and a commit's.
printf '\nMore.\n' >>"$TMP/guide/README.md"
git_env -C "$TMP/guide" commit -q -a -m more
builds_count "$slug" 4
wait_build "$slug"
keys b
wait_for '^4 +latest +finished +passed +[0-9]+s +commit ' "the commit's build"
wait_for '^3 +latest +finished +passed +[0-9]+s +gitlab ' "the GitLab delivery's build"
quit_tui

# ---- --readonly: neither a nor d opens anything.
tui -- --readonly
wait_for "^$slug " "the projects screen"
keys Enter
wait_for '^ Versions ' "the project"
keys BTab
wait_for '^github +http://' "the integrations tab"
keys a
wait_for '^read-only: started with --readonly' "add refused"
never_shown 'Forge'
keys d
wait_for '^read-only: started with --readonly' "delete refused"
never_shown 'Delete integration'
[ "$(api GET "$P/integrations/" | py 'j["count"]')" = 1 ] && pass || fail "a read-only TUI changed the integrations"
quit_tui

# ---- The hosted service: how its builds started is not known.
/usr/bin/python3 "$LEC_TESTS/cli/fake_service.py" "$TMP/fake.log" fake-token \
	>"$TMP/fake.out" 2>"$TMP/fake.err" &
fake_pid=$!
i=0
until grep -q '^listening on ' "$TMP/fake.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt $((DEADLINE * 10)) ] || { fail "the fake did not start: $(cat "$TMP/fake.err")"; exit 1; }
	sleep 0.1
done
"$LECTERN" context remove t >/dev/null &&
	SVC_TOKEN=fake-token "$LECTERN" context add t --url "$(sed -n 's,^listening on \(http://[^/]*\)/$,\1,p' "$TMP/fake.out")" \
		--token-env SVC_TOKEN >/dev/null || fail "the fake's context"
tui SVC_TOKEN=fake-token
wait_for '^project +project ' "the fake's projects"
keys : b u i l d s ' ' p r o j e c t Enter
wait_for '^3 +v1\.0 +finished +passed +[0-9]+[smhdy] +- +1m00s +a1b2c3 *$' "a service build, its start unknown"
never_shown hand
quit_tui

finish
