#!/bin/sh
# A pull request's builds in the TUI at 80x24 (issue 40, item 6): a
# signed GitHub pull_request delivery for a project with external builds
# on builds refs/pull/7/head, and the Builds screen shows that build's
# version as "#7 (PR)", as the service's dashboard marks it, while
# latest's build stays "latest"; the project's Builds tab the same.
. "$LEC_TESTS/tui/lib.sh"

markdown_repo
git_env -C "$TMP/guide" checkout -q -b fix
printf '# Markdown Guide\n\nPull request seven.\n' >"$TMP/guide/README.md"
git_env -C "$TMP/guide" commit -q -am "Pull request seven"
head=$(git_env -C "$TMP/guide" rev-parse HEAD)
git_env -C "$TMP/guide" update-ref refs/pull/7/head "$head"
git_env -C "$TMP/guide" checkout -q main

start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
api PATCH "/api/v3/projects/$slug/" '{"external_builds_enabled": true}' >/dev/null
secret=$(api POST "/api/v3/projects/$slug/integrations/" '{"integration_type": "github_webhook"}' |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])')
body='{"action": "opened", "number": 7, "pull_request": {"head": {"sha": "'"$head"'", "ref": "fix"}, "base": {"ref": "main"}}, "repository": {"full_name": "example/guide"}}'
sig=$(printf '%s' "$body" | /usr/bin/python3 -c 'import hmac,hashlib,sys; print("sha256=" + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())' "$secret")
curl -s -H 'Content-Type: application/json' -H 'X-GitHub-Event: pull_request' \
	-H "X-Hub-Signature-256: $sig" -d "$body" "$URL/api/v2/webhook/github/$slug/" >"$TMP/hook"
grep -q '"versions": *\["7"\]' "$TMP/hook" && pass || fail "the delivery: $(cat "$TMP/hook")"
wait_build "$slug"

tui_at 80x24
wait_for "^$slug +Guide +" "the project"
keys : b u i l d s ' ' "$slug" Enter
wait_for '^2 +#7 \(PR\) +finished +passed ' "the pull request's build"
wait_for '^1 +latest +finished +passed ' "latest's build"
keys q
wait_for "^$slug +Guide +" "the projects again"
keys Enter
wait_for 'Versions' "the project"
keys b
wait_for '^2 +#7 \(PR\) +finished +passed ' "the pull request's build on the Builds tab"
quit_tui
finish
