#!/bin/sh
# Builds Lectern twice and runs the whole test suite in each build:
#   build/plain  warnings as errors, optimised with debug info
#   build/asan   AddressSanitizer + UndefinedBehaviorSanitizer, warnings as errors
# Run from anywhere; dependencies come from packaging/deps.sh (run it first).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

# Leaks are errors; UBSan findings abort with a stack trace.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

run_build() {
	name=$1; shift
	dir="$top/build/$name"
	echo "== $name build =="
	cmake -S "$top" -B "$dir" -DLEC_WERROR=ON "$@" >/dev/null
	cmake --build "$dir" -j "$jobs"
	echo "== $name tests =="
	(cd "$dir" && ctest --output-on-failure -j "$jobs")
}

run_build plain -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_build asan -DCMAKE_BUILD_TYPE=Debug -DLEC_SANITIZE=address,undefined
echo "== all tests passed in both builds =="
