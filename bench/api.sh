#!/bin/sh
# API benchmark (issue: the API server). Measures `lectern serve` with wrk on
#   GET /api/v3/projects/<slug>/        (detail, anonymous)
#   GET /api/v3/projects/?limit=10      (the list page, with a token)
# with 1,000 projects in the store, and in the same run nginx serving the
# identical response bytes as static files, so the ratio compares like with
# like on this machine. Prints req/s, p50/p99 latency and the ratios.
#
# Lectern keeps rendered responses while the database is unchanged; the
# "uncached" rows defeat that with a distinct no-op query parameter on every
# request, so they measure the full path (auth, queries, JSON).
#
# Usage: sh bench/api.sh [BUILD_DIR]   (default build/plain; needs wrk, nginx)
# Loopback only; every server started here is stopped on exit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
duration=${BENCH_DURATION:-10}
conns=64
projects=1000

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

# The store: 1,000 projects imported through the API itself.
# No build workers: the imported projects point at made-up remote URLs.
"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 --workers 0 \
	>"$work/serve.out" 2>"$work/serve.err" &
pids="$pids $!"
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
token=$("$lectern" --data "$work/data" token create bench)
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

detail=/api/v3/projects/bench-project-0500/
list='/api/v3/projects/?limit=10'
mkdir -p "$work/www/api/v3/projects/bench-project-0500"
curl -sf "$base$detail" >"$work/www/api/v3/projects/bench-project-0500/index.json"
curl -sf -H "Authorization: Token $token" "$base$list" >"$work/www/list.json"

# nginx with 2 workers serving the same bytes (the anchor's configuration).
cat >"$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
	access_log off;
	default_type application/json;
	server {
		listen 127.0.0.1:18089;
		root $work/www;
		location = /detail { try_files /api/v3/projects/bench-project-0500/index.json =404; }
		location = /list { try_files /list.json =404; }
	}
}
NGINX
nginx -c "$work/nginx.conf"
sleep 0.3
pids="$pids $(cat "$work/nginx.pid")"

# Every request a new URI: ?nocache=<n> (ignored by the API).
cat >"$work/vary.lua" <<'LUA'
local n = 0
request = function()
	n = n + 1
	local sep = string.find(wrk.path, "?", 1, true) and "&" or "?"
	return wrk.format(nil, wrk.path .. sep .. "nocache=" .. n)
end
LUA

run() { # name url [header] [lua script]
	name=$1 url=$2 header=${3:-} script=${4:-}
	set -- -t2 -c$conns -d${duration}s --latency
	[ -n "$header" ] && set -- "$@" -H "$header"
	[ -n "$script" ] && set -- "$@" -s "$script"
	wrk "$@" "$url" >"$work/$name.wrk"
	rps=$(awk '/Requests\/sec/ {print $2}' "$work/$name.wrk")
	p50=$(awk '$1=="50%" {print $2}' "$work/$name.wrk")
	p99=$(awk '$1=="99%" {print $2}' "$work/$name.wrk")
	non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$name.wrk")
	printf '%-24s %10s req/s   p50 %-8s p99 %-8s %s\n' "$name" "$rps" "$p50" \
		"$p99" "${non2xx:+NON-2XX: $non2xx}"
	eval "rps_$name=$rps"
}

echo "== $projects projects, wrk -t2 -c$conns -d${duration}s, keep-alive =="
run nginx_detail "http://127.0.0.1:18089/detail"
run lectern_detail "$base$detail"
run lectern_detail_uncached "$base$detail" "" "$work/vary.lua"
run nginx_list "http://127.0.0.1:18089/list"
run lectern_list "$base$list" "Authorization: Token $token"
run lectern_list_uncached "$base$list" "Authorization: Token $token" "$work/vary.lua"
awk -v a="$rps_lectern_detail" -v au="$rps_lectern_detail_uncached" -v b="$rps_nginx_detail" \
    -v c="$rps_lectern_list" -v cu="$rps_lectern_list_uncached" -v d="$rps_nginx_list" 'BEGIN {
	printf "detail: lectern/nginx = %.2f (uncached %.2f), target >= 0.5\n", a / b, au / b
	printf "list:   lectern/nginx = %.2f (uncached %.2f), target >= 0.3\n", c / d, cu / d
}'
