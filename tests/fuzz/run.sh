#!/bin/sh
# Runs every libFuzzer harness of a fuzz build, one target after another.
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]   long runs (default 300 s)
#   tests/fuzz/run.sh -r RUNS BUILD_DIR                 RUNS inputs per target,
#                                                       fixed seed (CI)
#
# BUILD_DIR is a build configured with -DLEC_FUZZ=ON and CC=clang (see
# README.md here). Each target starts from its seeds in corpus/<target>/
# and from what earlier long runs found, kept in BUILD_DIR/fuzz/corpus/;
# the checked-in seeds are never written to. A crash leaves its input in
# BUILD_DIR/fuzz/crashes/ and makes the script fail; the last line of each
# target says how many inputs it ran and how fast.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

# Seconds one input may take before it counts as a hang, and the memory a
# target may hold: far above what any parser needs for one input.
INPUT_TIMEOUT=10
RSS_LIMIT_MB=2048
DEFAULT_SECONDS=300
# libFuzzer's seed for CI runs, so a CI failure replays the same inputs.
CI_SEED=1

runs=""
if [ "${1:-}" = "-r" ]; then
	runs=${2:?"-r needs a number of runs"}
	shift 2
fi
build=${1:?"usage: run.sh [-r RUNS] BUILD_DIR [SECONDS_PER_TARGET]"}
seconds=${2:-$DEFAULT_SECONDS}
bin="$build/tests/fuzz"
work="$build/fuzz"
mkdir -p "$work/crashes"

# Leaks are findings too; UBSan reports abort like ASan's.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

failed=""
for seeds in "$here"/corpus/*/; do
	target=$(basename "$seeds")
	exe="$bin/fuzz_$target"
	if [ ! -x "$exe" ]; then
		echo "fuzz: $exe is missing (build the lec_fuzz target)" >&2
		exit 1
	fi
	corpus="$work/corpus/$target"
	if [ -n "$runs" ]; then
		# A fresh corpus each time: the same seeds, the same inputs.
		rm -rf "$corpus"
		set -- -runs="$runs" -seed="$CI_SEED"
	else
		set -- -max_total_time="$seconds"
	fi
	mkdir -p "$corpus"
	dict="$here/dict/$target.dict"
	[ -f "$dict" ] && set -- "$@" -dict="$dict"
	log="$work/$target.log"
	echo "== fuzz $target"
	if "$exe" "$@" -timeout="$INPUT_TIMEOUT" -rss_limit_mb="$RSS_LIMIT_MB" \
		-print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
		"$corpus" "$seeds" >"$log" 2>&1; then
		awk -v t="$target" '
			/^stat::number_of_executed_units:/ { n = $2 }
			/^stat::average_exec_per_sec:/ { s = $2 }
			/^#[0-9]+.*DONE/ { cov = $3 " " $4 }
			END { printf "%s: %s execs, %s execs/s, %s\n", t, n, s, cov }
		' "$log"
	else
		echo "fuzz $target FAILED; its log:" >&2
		grep -v '^#[0-9]' "$log" | tail -60 >&2
		failed="$failed $target"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: crashes in:$failed (inputs in $work/crashes/)" >&2
	exit 1
fi
echo "== fuzz: every target ran clean"
