# What the wrk-against-nginx benchmarks (api.sh, docs.sh) share, sourced
# right after `set -eu`, with the caller's $1 the build directory (default
# build/plain). It installs wrk and nginx when missing, sets top, build,
# lectern, duration (BENCH_DURATION, default 10 s) and conns, makes $work (a
# temporary directory), and on exit stops every process in $pids and removes
# $work. Loopback only.
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
duration=${BENCH_DURATION:-10}
conns=64

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
	echo "bench: installing wrk and nginx-light (Debian packages)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
fi
[ -x "$lectern" ] || { echo "bench: build first ($lectern missing)"; exit 1; }

work=$(mktemp -d /tmp/lectern-bench-XXXXXX)
chmod 755 "$work" # nginx's workers run as www-data
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Starts `lectern serve` on $work/data with no build workers (the benches'
# projects point at made-up remote URLs); sets base, port and a token.
bench_serve() {
	"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 --workers 0 \
		>"$work/serve.out" 2>"$work/serve.err" &
	pids="$pids $!"
	for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
	base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
	port=${base##*:}
	token=$("$lectern" --data "$work/data" token create bench)
}

# Starts nginx on $work/nginx.conf (which must write its pid to
# $work/nginx.pid).
bench_nginx() {
	nginx -c "$work/nginx.conf"
	sleep 0.3
	pids="$pids $(cat "$work/nginx.pid")"
}

to_ms() { # wrk latency ("812.00us", "1.20ms", "2.01s") in milliseconds
	awk -v v="$1" 'BEGIN {
		if (v ~ /us$/) printf "%.3f", v / 1000;
		else if (v ~ /ms$/) printf "%.3f", v + 0;
		else if (v ~ /s$/) printf "%.3f", v * 1000;
		else print v }'
}

# One wrk run: prints a row and sets rps_<name> and p99_<name> (ms).
bench_run() { # name url [wrk option...]
	name=$1 url=$2
	shift 2
	set -- -t2 -c$conns -d${duration}s --latency "$@"
	wrk "$@" "$url" >"$work/$name.wrk"
	rps=$(awk '/Requests\/sec/ {print $2}' "$work/$name.wrk")
	p50=$(awk '$1=="50%" {print $2}' "$work/$name.wrk")
	p99=$(awk '$1=="99%" {print $2}' "$work/$name.wrk")
	non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$name.wrk")
	printf '%-24s %10s req/s   p50 %-8s p99 %-8s %s\n' "$name" "$rps" "$p50" \
		"$p99" "${non2xx:+NON-2XX: $non2xx}"
	eval "rps_$name=$rps"
	eval "p99_$name=$(to_ms "$p99")"
}
