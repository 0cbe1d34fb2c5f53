# Shared helpers for the CLI tests (sourced, not run): a fresh data
# directory per test, and assertions that print what went wrong.
set -u
: "${LECTERN:?LECTERN must name the lectern binary}"
DATA=$(mktemp -d /tmp/lectern-cli-XXXXXX)
trap 'rm -rf "$DATA"' EXIT
export LECTERN_DATA="$DATA/data"
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# use_local_engine: the local context's engine the CLI starts, with a
# configuration of the test's own; stopped when the test ends.
use_local_engine() {
	export XDG_CONFIG_HOME="$DATA/config"
	unset LECTERN_CONTEXT NO_COLOR
	trap '"$LECTERN" stop >/dev/null 2>&1; rm -rf "$DATA"' EXIT
	trap 'exit 1' INT TERM
}

# expect_status CODE CMD...: run CMD, check its exit status.
expect_status() {
	want=$1; shift
	"$@" >"$DATA/out" 2>"$DATA/err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass; else
		fail "'$*' exited $got, expected $want; stderr: $(cat "$DATA/err")"
	fi
}

# expect_match FILE REGEX: FILE (out or err) matches the extended regex.
expect_match() {
	if grep -Eq "$2" "$DATA/$1"; then pass; else
		fail "$1 does not match /$2/: $(cat "$DATA/$1")"
	fi
}

# wait_builds PROJECT REGEX: until a line of `lectern builds PROJECT`
# (in $DATA/builds) matches the extended regex, at most a minute.
wait_builds() {
	wb_i=0
	until "$LECTERN" builds "$1" >"$DATA/builds" 2>&1 && grep -Eq "$2" "$DATA/builds"; do
		wb_i=$((wb_i + 1))
		[ $wb_i -lt 300 ] || break
		sleep 0.2
	done
	expect_match builds "$2"
}

finish() {
	echo "$passes passed, $failures failed"
	[ "$failures" -eq 0 ]
}
