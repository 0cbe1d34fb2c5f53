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
. "$(dirname "$0")/lib.sh"
projects=1000

# The store: 1,000 projects imported through the API itself.
# No build workers: the imported projects point at made-up remote URLs.
bench_serve
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
bench_nginx

# Every request a new URI: ?nocache=<n> (ignored by the API).
cat >"$work/vary.lua" <<'LUA'
local n = 0
request = function()
	n = n + 1
	local sep = string.find(wrk.path, "?", 1, true) and "&" or "?"
	return wrk.format(nil, wrk.path .. sep .. "nocache=" .. n)
end
LUA

echo "== $projects projects, wrk -t2 -c$conns -d${duration}s, keep-alive =="
bench_run nginx_detail "http://127.0.0.1:18089/detail"
bench_run lectern_detail "$base$detail"
bench_run lectern_detail_uncached "$base$detail" -s "$work/vary.lua"
bench_run nginx_list "http://127.0.0.1:18089/list"
bench_run lectern_list "$base$list" -H "Authorization: Token $token"
bench_run lectern_list_uncached "$base$list" -H "Authorization: Token $token" \
	-s "$work/vary.lua"
awk -v a="$rps_lectern_detail" -v au="$rps_lectern_detail_uncached" -v b="$rps_nginx_detail" \
    -v c="$rps_lectern_list" -v cu="$rps_lectern_list_uncached" -v d="$rps_nginx_list" 'BEGIN {
	printf "detail: lectern/nginx = %.2f (uncached %.2f), target >= 0.5\n", a / b, au / b
	printf "list:   lectern/nginx = %.2f (uncached %.2f), target >= 0.3\n", c / d, cu / d
}'
