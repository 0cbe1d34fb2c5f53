#!/bin/sh
# API benchmark (issue 19: serving speed as users run it). With 1,000
# projects in the store and `lectern serve` running with its build workers,
# wrk asks, with a token on every request,
#   GET /api/v3/projects/<slug>/        (project detail)
#   GET /api/v3/projects/?limit=10      (the list page)
# kept alive and with Connection: close, at 64 and 256 connections, taking
# turns with nginx serving the identical response bytes as static files
# (lib.sh: A B A B A B, each ratio and the median). Targets: >= 0.8 x
# nginx, p99 < 5 ms at 64 connections. A last row repeats the detail with
# one Sphinx build running (contention; no target; BENCH_CONTENTION=0
# skips it). BENCH_ROWS=<awk regex> runs only the rows whose name matches.
#
# Usage: sh bench/api.sh [BUILD_DIR]   (default build/plain; needs wrk, nginx)
# Loopback only; every server started here is stopped on exit.
set -eu
. "$(dirname "$0")/lib.sh"
projects=1000
rows=${BENCH_ROWS:-.}

# The store: 1,000 projects imported through the API itself, by one user
# (so past the default quotas on imports and queued builds). A build from
# before the quotas (bench/before_after.sh's "before") has no such options
# and needs none.
quotas=""
if "$lectern" serve --help 2>&1 | grep -q -- --import-limit; then
	quotas="--import-limit $projects --queue-limit $projects"
fi
# shellcheck disable=SC2086 # options, split on purpose
bench_serve --workers 0 $quotas
i=0
while [ $i -lt $projects ]; do
	printf '{"name":"bench-project-%04d","repository":{"url":"https://github.com/example/p%04d.git"},"tags":["docs","bench"]}\n' $i $i
	i=$((i + 1))
done >"$work/bodies"
/usr/bin/python3 - "$base" "$token" "$work/bodies" <<'PY'
import http.client, sys, urllib.parse
base, token, bodies = sys.argv[1], sys.argv[2], sys.argv[3]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
for line in open(bodies):
    c.request("POST", "/api/v3/projects/", body=line.strip(),
              headers={"Authorization": "Token " + token, "Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 201, r.status
PY
bench_serve_as_users

auth="Authorization: Token $token"
detail=/api/v3/projects/bench-project-0500/
list='/api/v3/projects/?limit=10'
mkdir -p "$work/www"
curl -sf -H "$auth" "$base$detail" >"$work/www/detail.json"
curl -sf -H "$auth" "$base$list" >"$work/www/list.json"

cat >"$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
	access_log off;
	default_type application/json;
	keepalive_requests 1000000;
	server {
		listen 127.0.0.1:18089;
		root $work/www;
		location = /detail { try_files /detail.json =404; }
		location = /list { try_files /list.json =404; }
	}
}
NGINX
bench_nginx

echo "== $projects projects, token on, build workers idle, wrk -t2 -d${duration}s, $rounds rounds; load: $(uptime | sed 's/.*load/load/')"
row() { # name target lectern_path nginx_path
	echo "$1" | awk -v r="$rows" '$0 ~ r {f = 1} END {exit !f}' || return 0
	bench_matrix "$1" "$2" "$base$3" "http://127.0.0.1:18089$4" -H "$auth"
}
row detail 0.8 "$detail" /detail
row list 0.8 "$list" /list

if [ "${BENCH_CONTENTION:-1}" != 0 ]; then
	bench_build_start
	echo "== contention: one build running"
	bench_compare "detail, one build" - "$base$detail" "http://127.0.0.1:18089/detail" -H "$auth"
	bench_build_running || echo "  (the build finished during the row: raise BENCH_BUSY_PAGES)"
fi
echo "== summary"
cat "$work/summary"
