# What the wrk-against-nginx benchmarks (api.sh, docs.sh) share, sourced
# right after `set -eu`, with the caller's $1 the build directory (default
# build/plain). It installs wrk and nginx when missing (bench-only Debian
# packages), sets top, build, lectern, duration (BENCH_DURATION, default
# 5 s a run), rounds (BENCH_ROUNDS, default 3) and conns, makes $work (a
# temporary directory), and on exit stops every process it started and
# removes $work. Loopback only.
#
# Measured the way users run Lectern: a token on every API request, the
# build workers started (idle, or one build running for the contention
# row), and each Lectern run followed by an nginx run serving the same
# bytes with the same request headers (A B A B A B): the machine's two
# cores are shared with wrk and whatever else runs, so only ratios taken
# back to back mean much; each one is printed, then their median.
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
duration=${BENCH_DURATION:-5}
rounds=${BENCH_ROUNDS:-3}
conns=64

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
	echo "bench: installing wrk and nginx-light (Debian packages)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
fi
[ -x "$lectern" ] || { echo "bench: build first ($lectern missing)"; exit 1; }

work=$(mktemp -d /tmp/lectern-bench-XXXXXX)
chmod 755 "$work" # nginx's workers run as www-data
pids=""
serve_pid=""
cleanup() {
	for p in $serve_pid $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
: >"$work/summary"

# Starts `lectern serve` on $work/data with serve's options (none: build
# workers on, as users run it) and BENCH_SERVE_OPTIONS (to compare, say,
# --threads 1); sets base, port, and once a token.
bench_serve() { # [serve option...]
	rm -f "$work/serve.out"
	# shellcheck disable=SC2086 # options, split on purpose
	nice -n 0 "$lectern" --data "$work/data" serve --listen 127.0.0.1:0 \
		--local-repos "$work" ${BENCH_SERVE_OPTIONS:-} "$@" \
		>"$work/serve.out" 2>>"$work/serve.err" &
	serve_pid=$!
	for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
	base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
	[ -n "$base" ] || { echo "bench: lectern serve did not start"; cat "$work/serve.err"; exit 1; }
	port=${base##*:}
	token=${token:-$("$lectern" --data "$work/data" token create bench)}
}

bench_serve_stop() {
	kill "$serve_pid"
	wait "$serve_pid" 2>/dev/null || true
	serve_pid=""
}

# The benches fill the store through a server without workers (their
# projects point at made-up remote URLs, whose version syncs would only
# fail); this restarts it as users run it, build workers on and idle:
# the syncs the imports queued are dropped and their builds cancelled.
bench_serve_as_users() {
	bench_serve_stop
	/usr/bin/python3 - "$work/data/lectern.db" <<'PY'
import sqlite3, sys
d = sqlite3.connect(sys.argv[1], timeout=30)
with d:
    d.execute("DELETE FROM version_sync_requests")
    d.execute("UPDATE builds SET state = 'cancelled', success = 0, finished = created"
              " WHERE state = 'triggered'")
d.close()
PY
	bench_serve
	grep -q "builds use" "$work/serve.err" || { echo "bench: no build workers"; cat "$work/serve.err"; exit 1; }
}

# Starts nginx (2 workers, the anchor's configuration) on $work/nginx.conf,
# which must write its pid to $work/nginx.pid.
bench_nginx() {
	nice -n 0 nginx -c "$work/nginx.conf"
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

# One wrk run: sets rps, p99 (ms) and bad (non-2xx responses and socket
# errors other than the closes Connection: close asks for).
bench_wrk() { # url [wrk option...]
	url=$1
	shift
	wrk -t2 -c"$conns" -d"${duration}s" --latency "$@" "$url" >"$work/last.wrk"
	rps=$(awk '/Requests\/sec/ {print $2}' "$work/last.wrk")
	p99=$(to_ms "$(awk '$1=="99%" {print $2}' "$work/last.wrk")")
	bad=$(awk '/Non-2xx/ {n += $5} /Socket errors/ {gsub(",", ""); n += $6 + $8 + $10} END {print n + 0}' \
		"$work/last.wrk")
}

median() { # numbers on stdin
	sort -g | awk '{v[NR] = $1} END {
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# With BENCH_PERF=<directory>, each Lectern run is profiled (perf record
# -g, cpu-clock: hardware events may be denied in a VM) into
# <directory>/<row>-<round>.data, for `perf report --no-children -i`.
bench_perf_start() {
	[ -n "${BENCH_PERF:-}" ] || return 0
	mkdir -p "$BENCH_PERF"
	perf record -q -e cpu-clock -g -p "$serve_pid" \
		-o "$BENCH_PERF/$(echo "$name-c$conns-$i" | tr ' ,' '__').data" 2>/dev/null &
	perf_pid=$!
	sleep 0.5
}

bench_perf_stop() {
	[ -n "${BENCH_PERF:-}" ] || return 0
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
}

# Lectern (A) and nginx (B) take turns, $rounds times, with the same wrk
# options and $conns connections: prints each pair and its ratio, then the
# median ratio and the median p99s against the target ratio; adds that
# line to $work/summary.
bench_compare() { # name target lectern_url nginx_url [wrk option...]
	name=$1 target=$2 a=$3 b=$4
	shift 4
	: >"$work/pairs"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		i=$((i + 1))
		bench_perf_start
		bench_wrk "$a" "$@"
		bench_perf_stop
		ra=$rps pa=$p99 ba=$bad
		bench_wrk "$b" "$@"
		echo "$ra $rps $pa $p99" >>"$work/pairs"
		awk -v n="$name" -v i="$i" -v ra="$ra" -v rb="$rps" -v pa="$pa" -v pb="$p99" \
		    -v ba="$ba" -v bb="$bad" 'BEGIN {
			printf "  %-26s %d: lectern %7.0f/s p99 %6.2f ms | nginx %7.0f/s p99 %6.2f ms | %.2f x%s\n",
				n, i, ra, pa, rb, pb, ra / rb,
				(ba + bb) ? sprintf("  ERRORS lectern %d nginx %d", ba, bb) : "" }'
	done
	ratio=$(awk '{print $1 / $2}' "$work/pairs" | median)
	awk -v n="$name" -v t="$target" -v r="$ratio" \
	    -v all="$(awk '{printf "%.2f ", $1 / $2}' "$work/pairs")" \
	    -v pa="$(awk '{print $3}' "$work/pairs" | median)" \
	    -v pb="$(awk '{print $4}' "$work/pairs" | median)" \
	    -v c="$conns" 'BEGIN {
		verdict = t == "-" ? "" : (r >= t && (c != 64 || pa < 5) ? "met" : "NOT met")
		printf "%-26s c%-3d ratios %s median %.2f x (target %s) p99 lectern %.2f ms nginx %.2f ms %s\n",
			n, c, all, r, t == "-" ? "none" : ">= " t (c == 64 ? ", p99 < 5 ms" : ""), pa, pb, verdict
	}' | tee -a "$work/summary"
}

# Every row for name at 64 and 256 connections, kept alive and with
# Connection: close.
bench_matrix() { # name target lectern_url nginx_url [wrk option...]
	mx_name=$1 mx_target=$2 mx_a=$3 mx_b=$4
	shift 4
	for conns in 64 256; do
		bench_compare "$mx_name" "$mx_target" "$mx_a" "$mx_b" "$@"
		bench_compare "$mx_name close" "$mx_target" "$mx_a" "$mx_b" "$@" \
			-H "Connection: close"
	done
	conns=64
}

# The contention row's load: a Sphinx project of BENCH_BUSY_PAGES pages
# (default 2000) imported from a local repository, returning once its
# build runs (in the sandbox, on one core, as a real build would).
bench_build_start() {
	repo=$work/busy
	mkdir -p "$repo/docs"
	printf "project = 'Busy'\nextensions = []\nhtml_theme = 'alabaster'\n" >"$repo/docs/conf.py"
	printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\nsphinx:\n  configuration: docs/conf.py\n' \
		>"$repo/.readthedocs.yaml"
	/usr/bin/python3 - "$repo/docs" "${BENCH_BUSY_PAGES:-2000}" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
with open(os.path.join(d, "index.rst"), "w") as f:
    f.write("Busy\n====\n\n.. toctree::\n\n" + "".join("   p%04d\n" % i for i in range(n)))
for i in range(n):
    with open(os.path.join(d, "p%04d.rst" % i), "w") as f:
        f.write("Page %d\n=========\n\nProse with *emphasis* and :ref:`s%d`.\n\n.. _s%d:\n\n"
                "Section\n-------\n\n.. code-block:: python\n\n   def f_%d(x):\n       return x\n" % (i, i, i, i))
PY
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	git -C "$repo" -c user.name=b -c user.email=b@example.test commit -q -m docs
	/usr/bin/python3 - "$base" "$token" "file://$repo" <<'PY'
import http.client, json, sys, time, urllib.parse
base, token, repo = sys.argv[1:4]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
h = {"Authorization": "Token " + token, "Content-Type": "application/json"}
c.request("POST", "/api/v3/projects/", json.dumps({"name": "busy", "repository": {"url": repo}}), h)
r = c.getresponse(); r.read()
assert r.status == 201, r.status
for _ in range(600):
    c.request("GET", "/api/v3/projects/busy/builds/", headers=h)
    res = json.loads(c.getresponse().read())["results"]
    if res and res[0]["state"]["code"] == "building":
        break
    assert not res or res[0]["state"]["code"] != "finished", "the build finished early"
    time.sleep(0.1)
else:
    sys.exit("bench: the build did not start")
PY
}

# Whether the contention build still runs.
bench_build_running() {
	/usr/bin/python3 - "$base" "$token" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port)
c.request("GET", "/api/v3/projects/busy/builds/", headers={"Authorization": "Token " + sys.argv[2]})
sys.exit(0 if json.loads(c.getresponse().read())["results"][0]["state"]["code"] != "finished" else 1)
PY
}
