#!/bin/sh
# `token list` and `token revoke` against a running engine (issue 36,
# finding 9): the list names tokens by id, user, age and sessions and
# never prints a secret or its hash; a token revoked by id, or every token
# of a user with --all, is refused by the running engine at its next
# request with the service's 401, the others keep working; bad ids are
# usage errors or say there is no such token; revoking the CLI's own
# token makes the next command mint a new one; `user logout` says how
# many sessions it ended.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT

# The local engine, started by the first command that needs it.
mkdir -p "$XDG_CONFIG_HOME/lectern"
printf 'local-workers = 0\n' >"$XDG_CONFIG_HOME/lectern/config"
expect_status 0 "$LECTERN" projects
port=$(cat "$LECTERN_DATA/serve.port")

# answer TOKEN: "STATUS BODY" of a v3 request made with TOKEN.
answer() {
	curl -s -o "$DATA/body" -w '%{http_code}' -H "Authorization: Token $1" \
		"http://127.0.0.1:$port/api/v3/projects/"
	printf ' %s\n' "$(cat "$DATA/body")"
}
expect_answer() { # TOKEN WHAT STATUS [BODY]
	got=$(answer "$1")
	case $got in
	"$3"*) pass ;;
	*) fail "$2: expected $3, got $got" ;;
	esac
	[ -z "${4:-}" ] || [ "$got" = "$3 $4" ] && pass || fail "$2: expected '$3 $4', got '$got'"
}

alice1=$("$LECTERN" token create alice)
alice2=$("$LECTERN" token create alice)
bob=$("$LECTERN" token create bob)
expect_answer "$alice1" "alice's first token" 200
expect_answer "$bob" "bob's token" 200

# The list: every token, and nothing of any secret.
expect_status 0 "$LECTERN" token list
expect_match out '^ID +USER +CREATED +SESSIONS$'
expect_match out '^[0-9]+ +alice +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} +0$'
expect_match out '^[0-9]+ +bob +'
# Header, the CLI's own token, alice's two and bob's.
[ "$(grep -c . "$DATA/out")" -eq 5 ] && pass || fail "token list: $(cat "$DATA/out")"
cp "$DATA/out" "$DATA/list"
expect_status 0 "$LECTERN" token list --json
cat "$DATA/out" >>"$DATA/list"
for t in "$alice1" "$alice2" "$bob" "$(cat "$LECTERN_DATA/cli-token")"; do
	hash=$(printf %s "$t" | sha256sum | cut -c1-64)
	if grep -qiE "$t|$hash|$(printf %s "$t" | cut -c1-8)" "$DATA/list"; then
		fail "token list shows a token or its hash"
	else pass; fi
done
expect_status 0 "$LECTERN" token list alice --json
expect_match out '^\[\{"id":[0-9]+,"username":"alice","created":"[^"]+Z","sessions":0\},\{"id":[0-9]+,"username":"alice",'
first=$(sed 's/^\[{"id":\([0-9]*\),.*/\1/' "$DATA/out")

# One token revoked by id: refused at once by the running engine.
expect_status 0 "$LECTERN" token revoke "$first"
expect_match out "^revoked token $first, with its sessions$"
expect_answer "$alice1" "a revoked token" 401 '{"detail":"Invalid token."}'
expect_answer "$alice2" "alice's other token" 200
expect_status 1 "$LECTERN" token revoke "$first"
expect_match err "^lectern: cannot revoke the token: no token with id $first$"

# Every token of a user.
expect_status 0 "$LECTERN" token revoke --all alice
expect_match out '^revoked 1 token of alice, with their sessions$'
expect_answer "$alice2" "alice's revoked tokens" 401 '{"detail":"Invalid token."}'
expect_answer "$bob" "bob's token after alice's were revoked" 200
expect_status 0 "$LECTERN" token list alice
[ "$(grep -c . "$DATA/out")" -eq 1 ] && pass || fail "alice still has tokens: $(cat "$DATA/out")"

# Wrong command lines.
expect_status 2 "$LECTERN" token revoke
expect_match err '^usage: lectern token revoke ID\.\.\. \| --all USER$'
expect_status 2 "$LECTERN" token revoke 12x
expect_match err "'12x' is no token id"
expect_status 2 "$LECTERN" token revoke --all
expect_status 1 "$LECTERN" token revoke --all nosuch
expect_match err "^lectern: cannot find the user: no user named 'nosuch'$"
expect_status 2 "$LECTERN" token list alice bob

# The CLI's own token revoked: the next command makes a new one.
# (Its user's token is the first made, by the first command.)
own=$(cat "$LECTERN_DATA/cli-token")
local_user=$("$LECTERN" token list | awk 'NR == 2 { print $2 }')
expect_status 0 "$LECTERN" token revoke --all "$local_user"
expect_status 0 "$LECTERN" projects
[ "$(cat "$LECTERN_DATA/cli-token")" != "$own" ] && pass || fail "cli-token was not replaced"

expect_status 0 "$LECTERN" user logout bob
expect_match out '^ended 0 sessions of bob$'
expect_answer "$bob" "bob's token after user logout" 200

finish
