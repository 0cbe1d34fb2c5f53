#!/bin/sh
# A pull request's builds in the TUI at 80x24 (issue 40, item 6): a
# signed GitHub pull_request delivery for a project with external builds
# on builds refs/pull/7/head, and the Builds screen shows that build's
# version as "#7 (PR)", as the service's dashboard marks it, while
# latest's build stays "latest"; the project's Builds tab the same. `P`
# on a branch of the Versions tab (help lists it) builds that branch as a
# preview (item 5): the status line says where it is served and the
# Builds tab shows its build, marked; on an active version it is refused
# with the server's reason.
. "$LEC_TESTS/tui/lib.sh"
. "$LEC_TESTS/forge.sh"

markdown_repo
head=$(pull_request_head "$TMP/guide" 7 README.md "Pull request seven.")
git_env -C "$TMP/guide" branch -q fix "$head"

start_server
slug=$(import "Guide" "$TMP/guide")
wait_build "$slug"
api PATCH "/api/v3/projects/$slug/" '{"external_builds_enabled": true}' >/dev/null
secret=$(api POST "/api/v3/projects/$slug/integrations/" '{"integration_type": "github_webhook"}' |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])')
github_opened "$URL/api/v2/webhook/github/$slug/" "$secret" 7 "$head" >"$TMP/hook"
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

# ---- P previews the selected branch.
keys ? / p r e v i e w - b r a n c h Enter
wait_for '^P +preview-branch +build the selected branch, not an' "P in the help"
keys Escape q
keys BTab
wait_for '^Version +Active +Hidden +Built +Type' "the Versions tab"
keys / f i x Enter
wait_for '^fix +no +no +no +branch *$' "the branch"
keys P
wait_for "preview: http://$slug--preview-fix\.external\.localhost:[0-9]+/" "the preview's host"
wait_for '^3 +preview-f.* +finished +passed ' "the preview's build on the Builds tab"
keys BTab / l a t e s t Enter
wait_for '^latest +yes +' "latest"
keys P
wait_for 'latest is an active version: t builds it' "P on latest"
quit_tui
finish
