#!/bin/sh
# `lectern remove PROJECT [--yes]` (issue 31, item 4): without a terminal
# it wants --yes; on one the slug must be typed (anything else keeps the
# project); a read-only context refuses; removed, the project and its docs
# are gone and the slug can be imported again once its files are.
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/git.sh"
export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

REPO="$DATA/guide"
mkdir -p "$REPO/docs"
printf '# Guide\n\nThe guide.\n' >"$REPO/docs/index.md"
make_repo "$REPO"
expect_status 0 "$LECTERN" import "file://$REPO"
expect_match out '^imported guide: '

expect_status 2 "$LECTERN" remove guide </dev/null
expect_match err "^lectern: remove: not asking without a terminal; add --yes to remove guide\$"
expect_status 2 "$LECTERN" remove
expect_status 1 "$LECTERN" remove nosuch --yes
expect_match err "^lectern: no project 'nosuch' on the local engine\$"

# On a terminal (script(1) gives a pty): a wrong answer keeps it.
printf 'guid\n' | script -qec "\"$LECTERN\" remove guide" /dev/null >"$DATA/tty" 2>&1
grep -q 'Type guide to remove it:' "$DATA/tty" && grep -q 'kept guide: nothing removed' "$DATA/tty" &&
	pass || fail "a wrong answer: $(cat "$DATA/tty")"
expect_status 0 "$LECTERN" projects
expect_match out '^guide '
printf 'guide\n' | script -qec "\"$LECTERN\" remove guide" /dev/null >"$DATA/tty" 2>&1
grep -q 'removed project guide' "$DATA/tty" && pass || fail "typing the slug: $(cat "$DATA/tty")"
expect_status 0 "$LECTERN" projects
if grep -q '^guide ' "$DATA/out"; then fail "guide is still listed"; else pass; fi
# The files go after the answer (within a second or two), and the slug is
# taken until they have: an import of it is refused meanwhile.
gone() {
	[ ! -e "$LECTERN_DATA/repos/guide.git" ] && [ ! -e "$LECTERN_DATA/published/guide" ] &&
		[ ! -e "$LECTERN_DATA/checkouts/guide" ] && [ ! -e "$LECTERN_DATA/outputs/1" ]
}
i=0
until gone || [ $i -ge 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
gone && pass || fail "guide's files stayed: $(ls "$LECTERN_DATA"/*)"
i=0
until "$LECTERN" import "file://$REPO" >"$DATA/out" 2>"$DATA/err"; do
	grep -q 'it is being removed' "$DATA/err" || break
	i=$((i + 1))
	[ $i -lt 300 ] || break
	sleep 0.1
done
expect_match out '^imported guide: '

# Again, with --yes, after a fresh import under the same slug.
expect_status 0 "$LECTERN" remove guide --yes
expect_match out '^removed project guide$'

# A read-only context refuses before sending anything.
port=$(cat "$LECTERN_DATA/serve.port")
"$LECTERN" token create ro >"$DATA/ro.token" 2>/dev/null
chmod 600 "$DATA/ro.token"
expect_status 0 "$LECTERN" context add ro --url "http://127.0.0.1:$port" --token-file "$DATA/ro.token" --readonly
expect_status 1 "$LECTERN" --context ro remove anything --yes
expect_match err "^lectern: context 'ro' is read-only\$"

finish
