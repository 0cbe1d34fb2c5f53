#!/bin/sh
# Docs-serving benchmark (issues 5 and 19): wrk against a published 1 KB
# and a 30 KB HTML page served by `lectern serve` (build workers on and
# idle, as users run it) on the docs domain (Host: bench.localhost:<port>,
# GET /en/latest/<page>), kept alive and with Connection: close, at 64 and
# 256 connections, taking turns with Debian's nginx (2 workers, sendfile)
# serving the same published directory at the same path with the same
# request headers (lib.sh: A B A B A B, each ratio and the median).
# Targets: >= 0.9 x nginx, p99 < 5 ms at 64 connections. Then, for
# information: the 30 KB page asking for gzip (which nginx answers
# uncompressed here, no gzip module configured, and Lectern compresses),
# and the 30 KB page with one Sphinx build running (contention;
# BENCH_CONTENTION=0 skips it). BENCH_ROWS=<awk regex> runs only the rows
# whose name matches. BENCH_ADDONS=0 turns the project's reader addons
# off, so its pages are sent without the addons' script tag. The row
# "addons" answers issue 39's criterion (serving a page with the script
# injected within 5% of serving it without) in one run: the 30 KB page,
# kept alive at 64 connections, with the project's addons on and then off
# (a PATCH between the two), taking turns.
#
# The pages are planted in the data directory the way a build publishes
# them (<data>/published/<project>/<version>/html/), so no build tools
# are needed for the main rows.
#
# Usage: sh bench/docs.sh [BUILD_DIR]   (default build/plain; needs wrk, nginx)
# Loopback only; every server started here is stopped on exit.
set -eu
. "$(dirname "$0")/lib.sh"
rows=${BENCH_ROWS:-.}

bench_serve --workers 0

# The project, its active "latest" version, and the published pages.
html=$work/data/published/bench/latest/html
/usr/bin/python3 - "$base" "$token" "$work/data/lectern.db" "$html" <<'PY'
import http.client, json, os, sqlite3, sys, urllib.parse
base, token, db, html = sys.argv[1:5]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
c.request("POST", "/api/v3/projects/", body=json.dumps({"name": "bench", "repository": {
    "url": "https://github.com/example/bench.git"}}),
    headers={"Authorization": "Token " + token, "Content-Type": "application/json"})
r = c.getresponse(); r.read()
assert r.status == 201, r.status
if os.environ.get("BENCH_ADDONS") == "0":
    c.request("PATCH", "/api/v3/projects/bench/addons/", body=json.dumps({"enabled": False}),
              headers={"Authorization": "Token " + token, "Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
d = sqlite3.connect(db, timeout=30)
with d:
    n = d.execute("UPDATE versions SET active = 1, built = 1 WHERE slug = 'latest' AND"
                  " project_id = (SELECT id FROM projects WHERE slug = 'bench')").rowcount
    assert n == 1, "no latest version"
d.close()
os.makedirs(html)
head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Bench page'
        '</title><link rel="stylesheet" href="_static/style.css"></head><body>'
        '<div class="body" role="main"><section id="bench"><h1>Bench page</h1>\n')
para = ('<p>Lectern serves built documentation the way the hosted service does; this '
        'paragraph is filler text of a realistic density, with a <a href="other.html#x">'
        'link</a> and <code>inline code</code> now and then.</p>\n')
for name, kb in (("small.html", 1), ("page.html", 30)):
    body = head
    while len(body) + len(para) + 31 <= kb * 1024:
        body += para
    body += "</section></div></body></html>\n"
    with open(os.path.join(html, name), "w") as f:
        f.write(body)
PY
bench_serve_as_users
# nginx's workers run as www-data: let them through the data directory
# (which lectern creates 0700) to the published tree only.
chmod 711 "$work/data"
chmod -R a+rX "$work/data/published"

nport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	types { text/html html; text/css css; }
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$nport;
		location /en/latest/ { alias $html/; }
	}
}
NGINX
bench_nginx

host="bench.localhost:$port"
for page in small.html page.html; do
	for url in "$base/en/latest/$page" "http://127.0.0.1:$nport/en/latest/$page"; do
		code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $host" "$url")
		[ "$code" = 200 ] || { echo "bench: $url answered $code"; exit 1; }
	done
done

echo "== pages of $(wc -c <"$html/small.html") and $(wc -c <"$html/page.html") bytes, build workers idle, wrk -t2 -d${duration}s, $rounds rounds; load: $(uptime | sed 's/.*load/load/')"
row() { # name target page [wrk option...]
	r_name=$1 r_target=$2 r_page=$3
	shift 3
	echo "$r_name" | awk -v r="$rows" '$0 ~ r {f = 1} END {exit !f}' || return 0
	bench_matrix "$r_name" "$r_target" "$base/en/latest/$r_page" \
		"http://127.0.0.1:$nport/en/latest/$r_page" -H "Host: $host" "$@"
}
row "1 KB page" 0.9 small.html
row "30 KB page" 0.9 page.html
if echo gzip | awk -v r="$rows" '$0 ~ r {f = 1} END {exit !f}'; then
	bench_compare "30 KB page, gzip asked" - "$base/en/latest/page.html" \
		"http://127.0.0.1:$nport/en/latest/page.html" -H "Host: $host" \
		-H "Accept-Encoding: gzip"
fi
# The 30 KB page with the addons on (A) and off (B), same server, URL and
# headers, taking turns $rounds times; the median ratio A/B against 0.95.
addons_row() {
	echo addons | awk -v r="$rows" '$0 ~ r {f = 1} END {exit !f}' || return 0
	[ "${BENCH_ADDONS:-1}" != 0 ] || return 0
	: >"$work/pairs"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		i=$((i + 1))
		for on in true false; do
			curl -sf -o /dev/null -X PATCH -H "Authorization: Token $token" \
				-H "Content-Type: application/json" -d "{\"enabled\": $on}" \
				"$base/api/v3/projects/bench/addons/"
			tagged=$(curl -s -H "Host: $host" "$base/en/latest/page.html" | grep -c 'lectern/addons.js' || true)
			[ "$tagged" = "$([ "$on" = true ] && echo 1 || echo 0)" ] ||
				{ echo "bench: addons $on, tags on the page: $tagged"; exit 1; }
			bench_wrk "$base/en/latest/page.html" -H "Host: $host"
			[ "$on" = true ] && ra=$rps pa=$p99
		done
		echo "$ra $rps $pa $p99" >>"$work/pairs"
		awk -v i="$i" -v ra="$ra" -v rb="$rps" -v pa="$pa" -v pb="$p99" 'BEGIN {
			printf "  %-26s %d: addons on %7.0f/s p99 %6.2f ms | off %7.0f/s p99 %6.2f ms | %.2f x\n",
				"30 KB page, addons", i, ra, pa, rb, pb, ra / rb }'
	done
	awk -v r="$(awk '{print $1 / $2}' "$work/pairs" | median)" \
	    -v all="$(awk '{printf "%.2f ", $1 / $2}' "$work/pairs")" 'BEGIN {
		printf "%-26s c64  ratios %s median %.2f x addons off (target >= 0.95) %s\n",
			"30 KB page, addons", all, r, (r >= 0.95 ? "met" : "NOT met") }' | tee -a "$work/summary"
}
addons_row
if [ "${BENCH_CONTENTION:-1}" != 0 ]; then
	bench_build_start
	echo "== contention: one build running"
	bench_compare "30 KB page, one build" - "$base/en/latest/page.html" \
		"http://127.0.0.1:$nport/en/latest/page.html" -H "Host: $host"
	bench_build_running || echo "  (the build finished during the row: raise BENCH_BUSY_PAGES)"
fi
echo "== summary"
cat "$work/summary"
