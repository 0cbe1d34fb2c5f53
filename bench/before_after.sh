#!/bin/sh
# Before and after, in one run (issue 37: a refactor must leave serving and
# search speed within noise). Runs bench/api.sh, bench/docs.sh and
# bench/search.sh against two builds, taking turns (before, after, before,
# after), each run with the benchmarks' own comparison point (nginx,
# Xapian) measured beside it, and prints each run's summary lines under
# the build they came from. Comparing the ratios to nginx or Xapian, not
# only absolute figures, keeps a busy machine's drift out of the verdict.
#
# Usage: sh bench/before_after.sh BEFORE_BUILD [AFTER_BUILD]
#        (AFTER_BUILD defaults to build/plain; both Release-like builds
#        without sanitizers; the scripts' needs are theirs: wrk, nginx,
#        python3-doc, xapian-omega, python3-xapian).
# BENCH_ROUNDS (default 2) sets how many turns each build gets;
# BENCH_SCRIPTS (default "api docs search") which benchmarks run. The
# contention rows are skipped (BENCH_CONTENTION=0): a build's timing is
# not what this compares.
set -eu
here=$(dirname "$0")
before=${1:?usage: sh bench/before_after.sh BEFORE_BUILD [AFTER_BUILD]}
after=${2:-build/plain}
rounds=${BENCH_ROUNDS:-2}
scripts=${BENCH_SCRIPTS:-api docs search}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT INT TERM
export BENCH_CONTENTION=0

# The lines worth comparing: the medians against the comparison point and
# the search figures (p50/p99, indexing time, ratios).
summary() {
	grep -E 'median|p50|p99|index|x Xapian|ratio' "$1" | grep -v '^  ' |
		awk '!seen[$0]++' || true
}

for s in $scripts; do
	r=1
	while [ "$r" -le "$rounds" ]; do
		for which in before after; do
			eval dir=\$$which
			log=$logs/$s-$which-$r
			echo "== $s, $which ($dir), round $r; $(uptime | sed 's/.*load/load/')"
			if sh "$here/$s.sh" "$dir" >"$log" 2>&1; then
				summary "$log"
			else
				echo "bench: $s.sh failed against $dir:"
				tail -20 "$log"
				exit 1
			fi
		done
		r=$((r + 1))
	done
done
