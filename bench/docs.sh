#!/bin/sh
# Docs-serving benchmark (issue 5): wrk against one published ~30 KB HTML
# page served by `lectern serve` on the docs domain
# (Host: bench.localhost:<port>, GET /en/latest/page.html), and in the same
# run Debian's nginx (2 workers, sendfile) serving the same published
# directory at the same path, so the ratio compares like with like on this
# machine. Prints req/s and p50/p99 latency of each run, the medians over
# alternating rounds (BENCH_ROUNDS, default 3) and their ratio.
# Targets (issue 5): lectern >= 0.8 x nginx req/s, lectern p99 < 10 ms.
#
# The page is planted in the data directory the way a build publishes it
# (<data>/published/<project>/<version>/html/), so no build tools are
# needed. A second pair of runs asks for gzip (Accept-Encoding), which
# nginx answers uncompressed here (no gzip module configured) and Lectern
# may compress; it is shown for information, not held to the target.
#
# Usage: sh bench/docs.sh [BUILD_DIR]   (default build/plain; needs wrk, nginx)
# Loopback only; every server started here is stopped on exit.
set -eu
. "$(dirname "$0")/lib.sh"
page_kb=30

bench_serve

# The project, its active "latest" version, and the published page.
html=$work/data/published/bench/latest/html
/usr/bin/python3 - "$base" "$token" "$work/data/lectern.db" "$html" "$page_kb" <<'PY'
import http.client, json, os, sqlite3, sys, urllib.parse
base, token, db, html, kb = sys.argv[1:6]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
c.request("POST", "/api/v3/projects/", body=json.dumps({"name": "bench", "repository": {
    "url": "https://github.com/example/bench.git"}}),
    headers={"Authorization": "Token " + token, "Content-Type": "application/json"})
r = c.getresponse(); r.read()
assert r.status == 201, r.status
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
body = head
while len(body) < int(kb) * 1024:
    body += para
body += "</section></div></body></html>\n"
with open(os.path.join(html, "page.html"), "w") as f:
    f.write(body)
PY
size=$(wc -c <"$html/page.html")
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
	types { text/html html; text/css css; }
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$nport;
		location /en/latest/ { alias $html/; }
	}
}
NGINX
bench_nginx

check() { # url [host]
	code=$(curl -s -o /dev/null -w '%{http_code}' ${2:+-H "Host: $2"} "$1")
	[ "$code" = 200 ] || { echo "bench: $1 answered $code"; exit 1; }
}
host="bench.localhost:$port"
check "$base/en/latest/page.html" "$host"
check "http://127.0.0.1:$nport/en/latest/page.html"

# The two servers share the machine's two cores with wrk, and one 10 s run
# of either swings by 2x from one run to the next here, so the servers
# take turns for several rounds and the medians are compared.
rounds=${BENCH_ROUNDS:-3}
echo "== one ${size}-byte page, wrk -t2 -c$conns -d${duration}s, keep-alive, $rounds alternating rounds =="
: >"$work/rounds"
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	bench_run nginx "http://127.0.0.1:$nport/en/latest/page.html"
	bench_run lectern "$base/en/latest/page.html" -H "Host: $host"
	echo "$rps_nginx $rps_lectern $p99_nginx $p99_lectern" >>"$work/rounds"
done
bench_run nginx_gzip_asked "http://127.0.0.1:$nport/en/latest/page.html" \
	-H "Accept-Encoding: gzip"
bench_run lectern_gzip "$base/en/latest/page.html" -H "Host: $host" \
	-H "Accept-Encoding: gzip"
median() { # column of $work/rounds
	awk -v c="$1" '{print $c}' "$work/rounds" | sort -g |
		awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
awk -v a="$(median 2)" -v b="$(median 1)" -v p="$(median 4)" -v q="$(median 3)" \
	-v r="$(awk '{print $2 / $1}' "$work/rounds" | sort -g | tr '\n' ' ')" 'BEGIN {
	printf "medians: nginx %.0f req/s p99 %.2f ms; lectern %.0f req/s p99 %.2f ms\n", b, q, a, p
	printf "lectern/nginx req/s = %.2f (target >= 0.8; per round: %s); p99 lectern %.2f ms (target < 10 ms)\n", a / b, r, p
	ok = (a / b >= 0.8 && p < 10)
	print ok ? "targets: met" : "targets: NOT met"
}'
