#!/bin/sh
# Real-repository benchmark (issue 13: clone at any size). A repository
# generated with git fast-import (BENCH_COMMITS commits, default 5,200, of a
# Python tree where each commit edits 14 modules in 14 packages: more than
# 150,000 objects) whose tip holds a 100-page Sphinx project, served by
# `git daemon` on loopback (git://: a file:// clone would skip the transport
# and be unrealistically fast). In one run:
#   first import: Lectern (POST /api/v3/projects/ until the build is
#                 published; a token on every request, build workers on)
#                 beside `git clone` (full) + Sphinx by hand, and beside
#                 `git clone --depth 1` + Sphinx;
#   rebuild:      Lectern (trigger a build, nothing new to fetch) beside
#                 Sphinx alone on a checkout.
# Sphinx by hand runs the service's command line (python -m sphinx -T -b
# html -d _build/doctrees -D language=en . OUT) with Debian's
# /usr/bin/python3. Targets: first import <= 1.5 x full clone by hand,
# rebuild <= 1.1 x Sphinx alone. Each side is measured BENCH_RUNS times
# (default 3, interleaved; each Lectern run imports a new project) and the
# best is compared.
#
# Usage: sh bench/realrepo.sh [BUILD_DIR]   (default build/plain; use a
# Release build; BENCH_KEEP=1 keeps the work directory)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
commits=${BENCH_COMMITS:-5200}
runs=${BENCH_RUNS:-3}
python=/usr/bin/python3
[ -x "$lectern" ] || { echo "bench: build first ($lectern missing)"; exit 1; }

work=$(mktemp -d /tmp/lectern-bench-realrepo-XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

# The repository ------------------------------------------------------------
start=$(now)
mkdir -p "$work/srv"
repo=$work/srv/big.git
git init -q --bare -b main "$repo"
"$python" - "$commits" <<'PY' | git -C "$repo" fast-import --quiet
import sys
commits = int(sys.argv[1])
PKGS, MODS, PER, LINES, PAGES = 40, 40, 14, 15, 100
out = sys.stdout.buffer

def blob(path, text):
    data = text.encode()
    out.write(b"M 644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))

def module(pkg, mod, values):
    head = '"""Module %d of package %d."""\n\n' % (mod, pkg)
    return head + "".join("VALUE_%02d = %d  # setting %d of pkg%02d.mod%02d\n" % (j, v, j, pkg, mod)
                          for j, v in enumerate(values))

def page(n, revision):
    return """Page %d
===============

Some prose for page %d with *emphasis*, **strong text** and a reference to
:ref:`section-%d` and to :doc:`index`. Revision %d.

.. _section-%d:

Section %d
---------------

.. code-block:: python

   def function_%d(value):
       return value * %d

.. py:function:: api_%d(x, y=None)

   Compute something for page %d.

- item one
- item two
""" % (n, n, n, revision, n, n, n, n, n, n)

state = {(p, m): [0] * LINES for p in range(PKGS) for m in range(MODS)}
for i in range(commits):
    msg = b"commit %d\n" % i
    out.write(b"commit refs/heads/main\nmark :%d\n" % (i + 1))
    out.write(b"committer Bench <b@example.test> %d +0000\ndata %d\n%s" % (1600000000 + i * 60, len(msg), msg))
    if i == 0:
        blob(".readthedocs.yaml", 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\n'
                                  "sphinx:\n  configuration: docs/conf.py\n")
        blob("docs/conf.py", "project = 'Bench'\nextensions = []\nhtml_theme = 'alabaster'\n")
        blob("docs/index.rst", "Bench\n=====\n\n.. toctree::\n   :maxdepth: 1\n\n" +
             "".join("   page%03d\n" % n for n in range(PAGES)))
        for n in range(PAGES):
            blob("docs/page%03d.rst" % n, page(n, 0))
        for (p, m), values in state.items():
            blob("src/pkg%02d/mod%02d.py" % (p, m), module(p, m, values))
        continue
    out.write(b"from :%d\n" % i)
    for k in range(PER):
        p, m = (i * PER + k) % PKGS, (i * 7 + k * 3) % MODS
        state[p, m][(i + k) % LINES] = i
        blob("src/pkg%02d/mod%02d.py" % (p, m), module(p, m, state[p, m]))
    if i % 20 == 0:
        n = (i // 20) % PAGES
        blob("docs/page%03d.rst" % n, page(n, i))
PY
# A served repository is packed with deltas and bitmaps, as on a forge.
git -C "$repo" repack -adbq
objects=$(git -C "$repo" count-objects -v | awk '$1 == "in-pack:" {print $2}')
packmb=$(git -C "$repo" count-objects -v | awk '$1 == "size-pack:" {printf "%.1f", $2 / 1024}')
ncommits=$(git -C "$repo" rev-list --count main)
echo "== repository: $ncommits commits, $objects objects, $packmb MiB packed (made in $(printf %.1f "$(since "$start")") s) =="
echo "== $(git --version), Sphinx $("$python" -m sphinx --version 2>&1 | awk '{print $NF}'), served by git daemon on loopback =="

# git daemon cannot bind port 0: pick a free port, retry if taken.
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
	p=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	git daemon --export-all --base-path="$work/srv" --listen=127.0.0.1 --port="$p" \
		--reuseaddr "$work/srv" 2>"$work/daemon.err" &
	dpid=$!
	for _ in $(seq 50); do
		if ! kill -0 $dpid 2>/dev/null; then break; fi
		if git ls-remote "git://127.0.0.1:$p/big.git" main >/dev/null 2>&1; then port=$p; break; fi
		sleep 0.1
	done
	if [ -n "$port" ]; then pids="$pids $dpid"; break; fi
	kill $dpid 2>/dev/null || true
done
[ -n "$port" ] || { echo "bench: git daemon did not start"; cat "$work/daemon.err"; exit 1; }
url=git://127.0.0.1:$port/big.git

sphinx() { # DOCS_DIR OUT: the service's command line
	(cd "$1" && "$python" -m sphinx -T -b html -d _build/doctrees -D language=en . "$2" >/dev/null)
}

# Warm the page cache (the served pack, Python, Sphinx's modules) so that
# no side pays it: one clone and one Sphinx build, not counted.
git clone -q --bare "$url" "$work/warm.git"
git clone -q --depth 1 "$url" "$work/warm"
sphinx "$work/warm/docs" "$work/warm/out"
rm -rf "$work/warm" "$work/warm.git"

# Lectern ------------------------------------------------------------------------
"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
pids="$pids $!"
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
token=$("$lectern" --data "$work/data" token create bench)
cat >"$work/client.py" <<'PY'
"""import NAME URL: import, wait until the first build ends; rebuild NAME:
trigger a build of latest and wait. Prints: seconds success build-id
fetch-s checkout-s sphinx-s (the build's own commands' times)."""
import http.client, json, sqlite3, sys, time, urllib.parse
base, token, db, what, name = sys.argv[1:6]
u = urllib.parse.urlparse(base)
h = {"Authorization": "Token " + token, "Content-Type": "application/json"}

def call(method, path, body=None):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None

start = time.time()
if what == "import":
    status, _ = call("POST", "/api/v3/projects/", {"name": name, "repository": {"url": sys.argv[6]}})
    assert status == 201, status
    status, builds = call("GET", "/api/v3/projects/%s/builds/" % name)
    build_id = builds["results"][0]["id"]
else:
    status, trig = call("POST", "/api/v3/projects/%s/versions/latest/builds/" % name)
    assert status == 202, status
    build_id = trig["build"]["id"]
while True:
    status, b = call("GET", "/api/v3/projects/%s/builds/%d/" % (name, build_id))
    if b["state"]["code"] in ("finished", "cancelled"):
        break
    time.sleep(0.05)
took = time.time() - start
steps = []
for prefix in ("git clone" if what == "import" else "git fetch", "git checkout", "python -m sphinx"):
    r = sqlite3.connect(db).execute("SELECT (end_time - start_time) / 1e6 FROM build_commands"
                                    " WHERE build_id = ? AND command LIKE ? ORDER BY id LIMIT 1",
                                    (build_id, prefix + "%")).fetchone()
    steps.append(r[0] if r else 0)
print("%.2f %s %d %.2f %.2f %.2f" % (took, b["success"], build_id, *steps))
PY
lectern_run() { # import NAME URL | rebuild NAME: sets lec_s, lec_fetch, lec_checkout, lec_sphinx
	set -- $("$python" "$work/client.py" "$base" "$token" "$work/data/lectern.db" "$@")
	[ "${2:-}" = True ] || { echo "bench: Lectern's build failed ($*)"; tail -20 "$work/serve.err"; exit 1; }
	lec_s=$1 lec_fetch=$4 lec_checkout=$5 lec_sphinx=$6
}

# The runs ------------------------------------------------------------------------
# Each run measures every side once, interleaved so that a burst of load
# on the machine falls on all of them; the best run of each is reported.
min() { if [ -z "$1" ]; then echo "$2"; else echo "$1 $2" | awk '{ print $2 < $1 ? $2 : $1 }'; fi; }
best_full="" best_shallow="" best_alone="" best_import="" best_rebuild="" best_checkout=""
run=1
while [ $run -le "$runs" ]; do
	rm -rf "$work/full" "$work/shallow"
	start=$(now)
	git clone -q "$url" "$work/full"
	clone_full=$(since "$start")
	sphinx "$work/full/docs" "$work/full/out/html"
	hand_full=$(since "$start")

	lectern_run import "bench-$run" "$url"
	import_s=$lec_s import_steps="fetch $lec_fetch s, checkout $lec_checkout s, sphinx $lec_sphinx s"

	start=$(now)
	git clone -q --depth 1 "$url" "$work/shallow"
	clone_shallow=$(since "$start")
	sphinx "$work/shallow/docs" "$work/shallow/out/html"
	hand_shallow=$(since "$start")

	# Sphinx alone on the checkout with a fresh doctree, as a rebuild runs it.
	rm -rf "$work/full/docs/_build"
	start=$(now)
	sphinx "$work/full/docs" "$work/full/out2/html"
	alone=$(since "$start")

	# For reference: writing the same tree by hand (a rebuild checks out).
	rm -rf "$work/co" "$work/co.index"
	mkdir "$work/co"
	start=$(now)
	GIT_INDEX_FILE=$work/co.index git --git-dir="$work/full/.git" --work-tree="$work/co" \
		checkout -f HEAD -- .
	checkout=$(since "$start")

	lectern_run rebuild "bench-$run"
	rebuild_s=$lec_s rebuild_steps="fetch $lec_fetch s, checkout $lec_checkout s, sphinx $lec_sphinx s"

	printf 'run %d: by hand full %.2f s (clone %.2f s), shallow %.2f s (clone %.2f s); lectern import %.2f s (%s)\n' \
		$run "$hand_full" "$clone_full" "$hand_shallow" "$clone_shallow" "$import_s" "$import_steps"
	printf '       sphinx alone %.2f s (git checkout of the tree by hand %.2f s); lectern rebuild %.2f s (%s)\n' \
		"$alone" "$checkout" "$rebuild_s" "$rebuild_steps"
	best_full=$(min "$best_full" "$hand_full")
	best_shallow=$(min "$best_shallow" "$hand_shallow")
	best_alone=$(min "$best_alone" "$alone")
	best_checkout=$(min "$best_checkout" "$checkout")
	best_import=$(min "$best_import" "$import_s")
	best_rebuild=$(min "$best_rebuild" "$rebuild_s")
	run=$((run + 1))
done

printf '\nfirst import (best of %d)\n' "$runs"
printf '  by hand, git clone (full) + sphinx:     %6.2f s\n' "$best_full"
printf '  by hand, git clone --depth 1 + sphinx:  %6.2f s\n' "$best_shallow"
printf '  lectern, import to published:           %6.2f s\n' "$best_import"
echo "$best_import $best_full $best_shallow" | awk '{
	printf "  ratio lectern/full clone by hand = %.2f (target <= 1.5)\n", $1 / $2
	printf "  ratio lectern/shallow clone by hand = %.2f\n", $1 / $3 }'
printf '\nrebuild, nothing new to fetch (best of %d)\n' "$runs"
printf '  sphinx alone:                           %6.2f s\n' "$best_alone"
printf '  (git checkout of the tree by hand:      %6.2f s)\n' "$best_checkout"
printf '  lectern, trigger to published:          %6.2f s\n' "$best_rebuild"
echo "$best_rebuild $best_alone" | awk '{ printf "  ratio lectern/sphinx alone = %.2f (target <= 1.1)\n", $1 / $2 }'
