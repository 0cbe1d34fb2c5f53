#!/bin/sh
# `lectern mirror` against a hostile remote (tests/cli/hostile_remote.py),
# issue 27 item 10: a remote whose pages redirect to a service on this
# machine, and one whose documentation URL names that service, are refused
# ("refused: the address of HOST:PORT is not allowed") and the service is
# never asked for anything, by `mirror add` nor by `mirror update` once a
# remote turns hostile; a page
# whose name is over 255 bytes is left out with a note and the rest of the
# copy goes on. The context's own host:port, on loopback here, is allowed:
# the user chose it.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
remote_pid=
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	if [ -n "$remote_pid" ]; then
		kill "$remote_pid" 2>/dev/null
		wait "$remote_pid" 2>/dev/null
	fi
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

: >"$DATA/secret.log"
/usr/bin/python3 "$LEC_TESTS/cli/hostile_remote.py" "$DATA/secret.log" "$DATA/turn" \
	>"$DATA/remote.out" 2>"$DATA/remote.err" &
remote_pid=$!
for i in $(seq 1 100); do
	grep -q '^secret ' "$DATA/remote.out" && break
	sleep 0.1
done
remote_url=$(sed -n 's/^remote //p' "$DATA/remote.out")
secret_url=$(sed -n 's/^secret //p' "$DATA/remote.out")
[ -n "$secret_url" ] && pass || fail "the hostile remote did not start: $(cat "$DATA/remote.err")"
secret_host=${secret_url#http://}
(umask 077 && echo "not-a-token" >"$DATA/token")
expect_status 0 "$LECTERN" context add evil --url "$remote_url" --token-file "$DATA/token"

# Pages that redirect to the secret service: refused, nothing published.
expect_status 1 "$LECTERN" mirror add evil redirects --interval 0
expect_match err "refused: the address of $secret_host is not allowed"
# The documentation URL naming the service itself: refused the same way.
expect_status 1 "$LECTERN" mirror add evil points --interval 0
expect_match err "refused: the address of $secret_host is not allowed"
[ ! -s "$DATA/secret.log" ] && pass || fail "the secret service was asked: $(cat "$DATA/secret.log")"
for p in redirects points; do
	expect_status 0 "$LECTERN" search "SECRET-PAGE" --project $p
	grep -qx "no page matches 'SECRET-PAGE'" "$DATA/out" && pass ||
		fail "the secret page was published in $p: $(cat "$DATA/out")"
done

# A page whose name no file may have is left out; the others are copied.
expect_status 0 "$LECTERN" mirror add evil longnames --interval 0
expect_match out '^longnames/latest: 2 pages \(2 downloaded, 0 unchanged, 1 skipped\) as build [0-9]+$'
expect_match out '^longnames/latest: 1 of the skipped left out: a name in their path is over 255 bytes$'

# A remote that turns hostile after a first copy: its update is refused,
# the other mirror is refreshed, and the secret service is never asked.
expect_status 0 "$LECTERN" mirror add evil turns --interval 0
expect_match out '^turns/latest: 1 pages \(1 downloaded'
touch "$DATA/turn"
expect_status 1 "$LECTERN" mirror update --interval 0
expect_match err "refused: the address of $secret_host is not allowed"
expect_match err '1 of 4 mirrors could not be updated'
expect_match out '^longnames/latest: 2 pages'
[ ! -s "$DATA/secret.log" ] && pass || fail "the secret service was asked: $(cat "$DATA/secret.log")"
finish
