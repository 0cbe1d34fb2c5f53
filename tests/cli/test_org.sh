#!/bin/sh
# The engine-direct organization commands: org create, org list, org owner
# add, org team create, org team add, org project add and org team project
# add, with their errors (exit 1 and one line naming the problem on stderr)
# and their usage errors (exit 2). Projects can only be imported over the
# API, so a server runs on the data directory while two are imported.
. "$LEC_TESTS/cli/lib.sh"
PYTHON=/usr/bin/python3
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$DATA"' EXIT

# one_line_error FILE: stderr holds exactly one line.
one_line_error() {
	[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "stderr is not one line: $(cat "$DATA/err")"
}

# user_exists NAME: the user list has NAME.
user_exists() {
	"$LECTERN" user list | grep -q "^$1 "
}

# Import projects as USER through a server on the data directory.
import_projects() {
	user=$1; shift
	token=$("$LECTERN" token create "$user")
	# --workers 0: the made-up remote URLs below must never be fetched.
	"$LECTERN" serve --listen 127.0.0.1:0 --workers 0 >"$DATA/serve.out" 2>"$DATA/serve.err" &
	server_pid=$!
	tries=0
	until grep -q '^listening on ' "$DATA/serve.out" 2>/dev/null; do
		tries=$((tries + 1))
		[ $tries -gt 300 ] && { fail "server did not start"; return; }
		sleep 0.1
	done
	base=$(sed -n 's/^listening on //p' "$DATA/serve.out")
	for name in "$@"; do
		"$PYTHON" - "$base" "$token" "$name" <<'EOF' || fail "import $name"
import json, sys, urllib.request
base, token, name = sys.argv[1:4]
body = {"name": name, "repository": {"url": "https://github.com/x/%s.git" % name, "type": "git"}}
req = urllib.request.Request(base + "api/v3/projects/", data=json.dumps(body).encode(),
                             headers={"Authorization": "Token " + token,
                                      "Content-Type": "application/json"})
urllib.request.urlopen(req).read()
EOF
	done
	kill "$server_pid"
	wait "$server_pid"
	server_pid=
}

# Help -------------------------------------------------------------------------
expect_status 0 "$LECTERN" --help
for cmd in 'org create' 'org list' 'org owner add' 'org team create' \
	'org team add' 'org project add' 'org team project add'; do
	expect_match out "^  $cmd "
done
expect_status 0 "$LECTERN" org create --help
expect_match out '^usage: lectern org create SLUG --owner USER \[--name NAME\] \[--email EMAIL\]$'
expect_status 0 "$LECTERN" org team project add --help
expect_match out '^usage: lectern org team project add ORG TEAM PROJECT$'

# org create ---------------------------------------------------------------
# The slug alone on stdout; the owner is created when missing.
expect_status 0 "$LECTERN" org create acme --owner alice --name 'Acme Corp' --email docs@acme.test
[ "$(cat "$DATA/out")" = acme ] && pass || fail "org create printed '$(cat "$DATA/out")'"
user_exists alice && pass || fail "the owner was not created"
# Options in any order, --opt=value, the name defaulting to the slug.
expect_status 0 "$LECTERN" token create bob
expect_status 0 "$LECTERN" org create --owner=bob beta-org
[ "$(cat "$DATA/out")" = beta-org ] && pass || fail "org create printed '$(cat "$DATA/out")'"

# A taken slug is refused before the new owner is created.
expect_status 1 "$LECTERN" org create acme --owner carol
expect_match err "^lectern: organization 'acme' already exists$"
one_line_error
user_exists carol && fail "carol was created for a refused organization" || pass
# Invalid slugs and names name the field; the new owner is removed again.
expect_status 1 "$LECTERN" org create 'Bad Slug' --owner dave
expect_match err '^lectern: cannot create the organization: slug: "Bad Slug" is not a valid slug'
one_line_error
user_exists dave && fail "dave was left behind by a refused organization" || pass
expect_status 1 "$LECTERN" org create long --owner alice --name 'A name that is far too long, really'
expect_match err '^lectern: cannot create the organization: name: Ensure this field has no more than 32 characters\.$'
expect_status 1 "$LECTERN" org create bad-owner --owner 'bad name'
expect_match err '^lectern: cannot create the owner: invalid username'
one_line_error

# Usage errors.
expect_status 2 "$LECTERN" org create
expect_match err '^usage: lectern org create SLUG --owner USER'
expect_status 2 "$LECTERN" org create gamma
expect_status 2 "$LECTERN" org create gamma --owner
expect_status 2 "$LECTERN" org create gamma --owner alice --bogus x
expect_status 2 "$LECTERN" org create gamma delta --owner alice
expect_status 2 "$LECTERN" org
expect_match err "^  org create "
"$LECTERN" org list | grep -q '^gamma ' && fail "a usage error created gamma" || pass

# org owner add --------------------------------------------------------------
expect_status 0 "$LECTERN" org owner add acme bob
[ -s "$DATA/out" ] && fail "owner add printed something" || pass
expect_status 1 "$LECTERN" org owner add acme bob
expect_match err "^lectern: user 'bob' is already an owner of 'acme'$"
one_line_error
expect_status 1 "$LECTERN" org owner add nope bob
expect_match err "^lectern: no organization 'nope'$"
expect_status 1 "$LECTERN" org owner add acme nobody
expect_match err "^lectern: no user 'nobody'$"
user_exists nobody && fail "owner add created a user" || pass
expect_status 2 "$LECTERN" org owner add acme
expect_match err '^usage: lectern org owner add ORG USER$'
expect_status 2 "$LECTERN" org owner add acme bob carol

# org team create -------------------------------------------------------------
# The team's slug, made from its name, alone on stdout.
expect_status 0 "$LECTERN" org team create acme 'Docs Writers' --access admin
[ "$(cat "$DATA/out")" = docs-writers ] && pass || fail "team create printed '$(cat "$DATA/out")'"
expect_status 0 "$LECTERN" org team create acme Readers
[ "$(cat "$DATA/out")" = readers ] && pass || fail "team create printed '$(cat "$DATA/out")'"
expect_status 0 "$LECTERN" org team create beta-org Ops --access=readonly
expect_status 1 "$LECTERN" org team create acme readers
expect_match err '^lectern: cannot create the team: Team with slug "readers" already exists in this organization\.$'
one_line_error
expect_status 1 "$LECTERN" org team create acme Owners --access owner
expect_match err '^lectern: cannot create the team: access: "owner" is not a valid choice\.$'
one_line_error
expect_status 1 "$LECTERN" org team create nope Readers
expect_match err "^lectern: no organization 'nope'$"
expect_status 2 "$LECTERN" org team create acme
expect_match err '^usage: lectern org team create ORG TEAM \[--access readonly\|admin\]$'
expect_status 2 "$LECTERN" org team create acme Extra --access

# org team add ---------------------------------------------------------------
expect_status 0 "$LECTERN" org team add acme docs-writers alice
expect_status 0 "$LECTERN" org team add acme docs-writers bob
expect_status 1 "$LECTERN" org team add acme docs-writers alice
expect_match err "^lectern: user 'alice' is already a member of team 'docs-writers'$"
one_line_error
expect_status 1 "$LECTERN" org team add acme nope alice
expect_match err "^lectern: no team 'nope' in organization 'acme'$"
# A team of another organization is not found through this one.
expect_status 1 "$LECTERN" org team add acme ops alice
expect_match err "^lectern: no team 'ops' in organization 'acme'$"
expect_status 1 "$LECTERN" org team add acme readers nobody
expect_match err "^lectern: no user 'nobody'$"
expect_status 1 "$LECTERN" org team add nope readers alice
expect_match err "^lectern: no organization 'nope'$"
expect_status 2 "$LECTERN" org team add acme readers
expect_match err '^usage: lectern org team add ORG TEAM USER$'

# org project add ----------------------------------------------------------------
import_projects alice proj-one proj-two proj-three
expect_status 0 "$LECTERN" org project add acme proj-one
expect_status 0 "$LECTERN" org project add acme proj-three
expect_status 0 "$LECTERN" org project add beta-org proj-two
expect_status 1 "$LECTERN" org project add acme proj-one
expect_match err "^lectern: project 'proj-one' already belongs to organization 'acme'$"
one_line_error
expect_status 1 "$LECTERN" org project add acme proj-two
expect_match err "^lectern: project 'proj-two' already belongs to organization 'beta-org'$"
expect_status 1 "$LECTERN" org project add acme nope
expect_match err "^lectern: no project 'nope'$"
expect_status 1 "$LECTERN" org project add nope proj-one
expect_match err "^lectern: no organization 'nope'$"
expect_status 2 "$LECTERN" org project add acme
expect_match err '^usage: lectern org project add ORG PROJECT$'

# org team project add -------------------------------------------------------------
expect_status 0 "$LECTERN" org team project add acme docs-writers proj-one
expect_status 1 "$LECTERN" org team project add acme docs-writers proj-one
expect_match err "^lectern: project 'proj-one' is already in team 'docs-writers'$"
one_line_error
expect_status 1 "$LECTERN" org team project add acme docs-writers proj-two
expect_match err "^lectern: project 'proj-two' is not in organization 'acme'$"
one_line_error
expect_status 1 "$LECTERN" org team project add acme nope proj-one
expect_match err "^lectern: no team 'nope' in organization 'acme'$"
expect_status 1 "$LECTERN" org team project add acme readers nope
expect_match err "^lectern: no project 'nope'$"
expect_status 1 "$LECTERN" org team project add nope readers proj-one
expect_match err "^lectern: no organization 'nope'$"
expect_status 2 "$LECTERN" org team project add acme readers
expect_match err '^usage: lectern org team project add ORG TEAM PROJECT$'

# org list -------------------------------------------------------------------------
# Ordered by name: "Acme Corp" before "beta-org".
expect_status 0 "$LECTERN" org list
expect_match out '^SLUG +NAME +OWNERS$'
[ "$(sed -n 2p "$DATA/out")" = "$(printf '%-24s %-32s %s' acme 'Acme Corp' alice,bob)" ] && pass ||
	fail "org list row 1: $(sed -n 2p "$DATA/out")"
[ "$(sed -n 3p "$DATA/out")" = "$(printf '%-24s %-32s %s' beta-org beta-org bob)" ] && pass ||
	fail "org list row 2: $(sed -n 3p "$DATA/out")"
[ "$(wc -l <"$DATA/out")" -eq 3 ] && pass || fail "org list has extra lines"
expect_status 0 "$LECTERN" org list --json
sed 's/"created":"[0-9T:.-]*Z"/"created":"T"/g' "$DATA/out" >"$DATA/json"
want='[{"slug":"acme","name":"Acme Corp","email":"docs@acme.test","disabled":false,"owners":["alice","bob"],"teams":[{"slug":"docs-writers","name":"Docs Writers","access":"admin","members":["alice","bob"]},{"slug":"readers","name":"Readers","access":"readonly","members":[]}],"projects":["proj-one","proj-three"],"created":"T"},{"slug":"beta-org","name":"beta-org","email":"","disabled":false,"owners":["bob"],"teams":[{"slug":"ops","name":"Ops","access":"readonly","members":[]}],"projects":["proj-two"],"created":"T"}]'
[ "$(cat "$DATA/json")" = "$want" ] && pass || fail "org list --json: $(cat "$DATA/out")"
expect_match out '"created":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"'
expect_status 2 "$LECTERN" org list --bogus
expect_match err '^usage: lectern org list \[--json\]$'
expect_status 2 "$LECTERN" org list --json extra

# An empty store lists no organizations.
expect_status 0 "$LECTERN" --data "$DATA/empty" org list --json
[ "$(cat "$DATA/out")" = '[]' ] && pass || fail "empty org list: $(cat "$DATA/out")"

finish
