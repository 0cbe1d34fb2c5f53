#!/bin/sh
# Pipeline benchmark (issue: from repository to built docs). On one
# generated Sphinx project (PAGES pages), in one run:
#   by hand:  git clone --depth 1 + python3 -m sphinx (the service's command)
#   Lectern:  POST /api/v3/projects/ until the build is finished and published
#             (clone, version sync, config, sandboxed Sphinx, publishing)
# Prints both wall times and the ratio (target: Lectern <= 1.1 x by hand).
#
# Usage: sh bench/pipeline.sh [BUILD_DIR]   (default build/plain)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
pages=${BENCH_PAGES:-150}
python=/usr/bin/python3
[ -x "$lectern" ] || { echo "bench: build first ($lectern missing)"; exit 1; }

work=$(mktemp -d /tmp/lectern-bench-pipeline-XXXXXX)
serve_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The project: an index with a toctree and PAGES pages of prose, code,
# cross-references and a Python domain entry each.
repo=$work/repo
mkdir -p "$repo/docs"
cat >"$repo/docs/conf.py" <<'PY'
project = 'Bench'
extensions = []
html_theme = 'alabaster'
PY
printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\nsphinx:\n  configuration: docs/conf.py\n' \
	>"$repo/.readthedocs.yaml"
{
	printf 'Bench\n=====\n\n.. toctree::\n   :maxdepth: 1\n\n'
	i=0
	while [ $i -lt "$pages" ]; do printf '   page%03d\n' $i; i=$((i + 1)); done
} >"$repo/docs/index.rst"
i=0
while [ $i -lt "$pages" ]; do
	cat >"$repo/docs/page$(printf %03d $i).rst" <<RST
Page $i
===============

Some prose for page $i with *emphasis*, **strong text** and a reference to
:ref:\`section-$i\` and to :doc:\`index\`.

.. _section-$i:

Section $i
---------------

.. code-block:: python

   def function_$i(value):
       return value * $i

.. py:function:: api_$i(x, y=None)

   Compute something for page $i.

- item one
- item two

RST
	i=$((i + 1))
done
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=b -c user.email=b@example.test commit -q -m docs

now() { date +%s.%N; }

echo "== $pages-page Sphinx project ($("$python" -m sphinx --version 2>&1)) =="

# Warm the page cache (Python, Sphinx's modules) so neither side pays it.
(cd "$repo/docs" && "$python" -m sphinx -T -q -b html -d "$work/warm/doctrees" \
	. "$work/warm/html")

# By hand.
start=$(now)
git clone -q --depth 1 "file://$repo" "$work/hand"
(cd "$work/hand/docs" && "$python" -m sphinx -T -q -b html -d _build/doctrees \
	-D language=en . "$work/hand/out/html")
hand=$(echo "$(now) - $start" | bc)
printf 'by hand (clone + sphinx): %6.2f s\n' "$hand"

# Lectern, import to published.
"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 --local-repos "$work" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
token=$("$lectern" --data "$work/data" token create bench)
result=$("$python" - "$base" "$token" "file://$repo" <<'PY'
import http.client, json, sys, time, urllib.parse
base, token, repo = sys.argv[1:4]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
h = {"Authorization": "Token " + token, "Content-Type": "application/json"}
start = time.time()
c.request("POST", "/api/v3/projects/", json.dumps({"name": "bench", "repository": {"url": repo}}), h)
r = c.getresponse(); r.read()
assert r.status == 201, r.status
while True:
    c.request("GET", "/api/v3/projects/bench/builds/", headers=h)
    b = json.loads(c.getresponse().read())["results"][0]
    if b["state"]["code"] in ("finished", "cancelled"):
        break
    time.sleep(0.02)
print("%.2f %s" % (time.time() - start, b["success"]))
PY
)
lec=${result% *}
ok=${result#* }
[ "$ok" = True ] || { echo "bench: Lectern's build failed"; cat "$work/serve.err"; exit 1; }
printf 'lectern (import to published): %6.2f s\n' "$lec"
echo "$lec $hand" | awk '{ printf "ratio lectern/hand = %.2f (target <= 1.1)\n", $1 / $2 }'
