#!/bin/sh
# The engine-direct admin commands: token create, user list, status, global
# options and error reporting (exit status and one clear line on stderr).
. "$LEC_TESTS/cli/lib.sh"

expect_status 0 "$LECTERN" --version
expect_match out '^lectern ([0-9]+\.[0-9]+\.[0-9]+|0\.0~git[0-9]{8}\.[0-9a-f]+)([+~].*)?$'
expect_status 0 "$LECTERN" --help
expect_match out 'token create'
expect_match out 'user list'
expect_status 0 "$LECTERN" token create --help
expect_match out '^usage: lectern token create USER'

# A token alone on stdout, 40 hex characters; the user is created.
expect_status 0 "$LECTERN" token create alice
expect_match out '^[0-9a-f]{40}$'
[ "$(wc -l <"$DATA/out")" -eq 1 ] && pass || fail "token output is not one line"
token1=$(cat "$DATA/out")
expect_status 0 "$LECTERN" token create alice
token2=$(cat "$DATA/out")
[ "$token1" != "$token2" ] && pass || fail "two tokens are equal"
# The store holds no plain token.
if grep -q "$token1" "$LECTERN_DATA"/lectern.db* 2>/dev/null; then
	fail "plain token found in the store"
else pass; fi
[ "$(stat -c %a "$LECTERN_DATA/lectern.db")" = 600 ] && pass || fail "store mode is not 0600"

expect_status 0 "$LECTERN" token create bob
expect_status 0 "$LECTERN" user list
expect_match out '^USERNAME +ACTIVE +CREATED'
expect_match out '^alice +yes +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$'
expect_match out '^bob +yes'
[ "$(grep -c . "$DATA/out")" -eq 3 ] && pass || fail "user list has extra lines"
expect_status 0 "$LECTERN" user list --json
expect_match out '^\[\{"username":"alice","is_active":true,"created":"[^"]+Z"\},\{"username":"bob"'

# --data wins over LECTERN_DATA.
expect_status 0 "$LECTERN" --data "$DATA/other" user list
[ "$(grep -c . "$DATA/out")" -eq 1 ] && pass || fail "--data did not select another store"
# XDG_DATA_HOME is used when LECTERN_DATA is unset.
expect_status 0 env -u LECTERN_DATA XDG_DATA_HOME="$DATA/xdg" "$LECTERN" token create carol
[ -f "$DATA/xdg/lectern/lectern.db" ] && pass || fail "XDG data dir not used"

expect_status 0 "$LECTERN" status
expect_match out "^data directory: $LECTERN_DATA"
expect_match out '^users: +2$'
expect_match out '^build caches: +0\.0 MiB$'
expect_match out '^  trees: +0\.0 MiB \(kept working trees and generator state\)$'
expect_match out '^  python: +0\.0 MiB \(Python environments\)$'
expect_match out '^  repos: +0\.0 MiB \(repository caches\)$'
# Every line fits an 80-column terminal.
awk 'length > 79 { exit 1 }' "$DATA/out" && pass ||
	fail "a status line is wider than 79 columns: $(cat "$DATA/out")"

# Errors: non-zero status, one line on stderr.
expect_status 1 "$LECTERN" token create 'bad name'
expect_match err '^lectern: cannot create the user: invalid username'
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "error is not one line"
expect_status 1 "$LECTERN" token create
expect_match err '^lectern: usage: lectern token create USER$'
expect_status 2 "$LECTERN" frobnicate
expect_match err "^lectern: unknown command 'frobnicate'"
expect_status 2 "$LECTERN" --bogus
expect_status 1 "$LECTERN" user list --bogus

# A corrupt store is refused, named, and left as it was.
mkdir -p "$DATA/bad"
echo "not a database" >"$DATA/bad/lectern.db"
expect_status 1 "$LECTERN" --data "$DATA/bad" user list
expect_match err "^lectern: cannot open the store: $DATA/bad/lectern.db: not an SQLite database"
[ "$(cat "$DATA/bad/lectern.db")" = "not a database" ] && pass || fail "corrupt store was modified"

finish
