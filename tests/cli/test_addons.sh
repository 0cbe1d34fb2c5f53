#!/bin/sh
# `lectern addons` against the local engine (issue 39): a project's reader
# addons settings printed one per line (the service's defaults), changed
# with NAME=VALUE (true, false, null or text), the server's message for a
# bad value, --json, and a malformed argument as a usage error.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT

. "$LEC_TESTS/git.sh"
REPO="$DATA/repo"
mkdir -p "$REPO/docs"
printf '# Guide\n' >"$REPO/docs/index.md"
make_repo "$REPO"
expect_status 0 "$LECTERN" import "file://$REPO" --name "Guide" --no-wait

expect_status 0 "$LECTERN" addons guide
expect_match out '^flyout_sorting +semver-readthedocs-compatible$'
expect_match out '^flyout_position +null$'
expect_match out '^linkpreviews_enabled +false$'
[ "$(wc -l <"$DATA/out")" -eq 23 ] && pass || fail "not 23 settings: $(cat "$DATA/out")"

expect_status 0 "$LECTERN" addons guide flyout_position=top-left linkpreviews_enabled=true
expect_match out '^flyout_position +top-left$'
expect_match out '^linkpreviews_enabled +true$'
expect_status 0 "$LECTERN" addons guide flyout_position=null --json
python3 - "$DATA/out" <<'PY' && pass || fail "addons --json: $(cat "$DATA/out")"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["flyout_position"] is None and o["linkpreviews_enabled"] is True, o
PY

expect_status 1 "$LECTERN" addons guide flyout_sorting=random
expect_match err 'flyout_sorting.*"random" is not a valid choice\.'
expect_status 2 "$LECTERN" addons guide nonsense
expect_match err "expected NAME=VALUE, not 'nonsense'"
finish
