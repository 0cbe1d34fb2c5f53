#!/bin/sh
# Queued builds (issue 31, item 6): the config file's local-workers sets
# the auto-started engine's build workers (0: none, so every build
# waits); a waiting build shows as queued with its place, in one
# project's list and across projects (`builds --all`); a bad value is the
# config's error with its line; with a worker again the queue drains.
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

for name in one two; do
	mkdir -p "$DATA/$name/docs"
	printf '# %s\n\nText.\n' "$name" >"$DATA/$name/docs/index.md"
	make_repo "$DATA/$name"
done
mkdir -p "$XDG_CONFIG_HOME/lectern"
printf 'local-workers = 0\n' >"$XDG_CONFIG_HOME/lectern/config"
expect_status 0 "$LECTERN" import "file://$DATA/one" --no-wait
expect_status 0 "$LECTERN" import "file://$DATA/two" --no-wait
tr '\0' ' ' <"/proc/$(cat "$LECTERN_DATA/serve.pid")/cmdline" | grep -q -- '--workers 0' &&
	pass || fail "the engine was not started with --workers 0"

expect_status 0 "$LECTERN" builds two
expect_match out '^ID +VERSION +STATE +RESULT'
expect_match out '^2 +latest +queued #2 '
expect_status 0 "$LECTERN" builds --all
expect_match out '^ID +PROJECT +VERSION +STATE +RESULT +COMMIT +CREATED +DURATION +CACHE$'
expect_match out '^2 +two +latest +queued #2 '
expect_match out '^1 +one +latest +queued #1 '
[ "$(sed -n 2p "$DATA/out" | awk '{print $2}')" = two ] && pass || fail "not newest first: $(cat "$DATA/out")"
expect_status 0 "$LECTERN" builds --all --json
expect_match out '"count":2,'
expect_status 2 "$LECTERN" builds
expect_match err "give a PROJECT, or --all"
expect_status 2 "$LECTERN" builds one --all

printf 'local-workers = 99\n' >"$XDG_CONFIG_HOME/lectern/config"
expect_status 1 "$LECTERN" projects
expect_match err ":1: local-workers wants 0 to 16"

# One worker, from the next start on: the queue drains.
printf 'local-workers = 1\n' >"$XDG_CONFIG_HOME/lectern/config"
expect_status 0 "$LECTERN" stop
i=0
until "$LECTERN" builds --all >"$DATA/out" 2>&1 && [ "$(grep -c 'finished' "$DATA/out")" -eq 2 ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || break
	sleep 0.2
done
[ "$(grep -cE 'finished +passed' "$DATA/out")" -eq 2 ] && pass || fail "the queue did not drain: $(cat "$DATA/out")"
# context add keeps the setting when it rewrites the file.
echo 0123456789abcdef >"$DATA/t.token" && chmod 600 "$DATA/t.token"
expect_status 0 "$LECTERN" context add other --url http://127.0.0.1:9 --token-file "$DATA/t.token"
grep -q '^local-workers = 1$' "$XDG_CONFIG_HOME/lectern/config" && pass || fail "context add dropped local-workers"

finish
