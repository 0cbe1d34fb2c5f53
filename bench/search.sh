#!/bin/sh
# Search benchmark (issues 6, 17, 33). In one run, on the HTML of Debian's
# python3-doc (/usr/share/doc/python3.11/html, 530 pages, 50 MB):
#   - Lectern: index the directory (bench_search index; 3 fresh runs,
#     median), the 20 fixed queries top 10 with highlights in-process (p50 =
#     median of per-query medians, p99 over all runs), the same through HTTP
#     (`lectern serve`, keep-alive, a no-op parameter defeating the response
#     cache), and a synthetic 100,000-section index;
#   - Xapian: `omindex --db DIR --url / CORPUS` (3 fresh runs, median) and the
#     same 20 queries in-process with python3-xapian (English stemming,
#     default OR, top 10 with document data).
# The query mix of every speed figure is the 20 fixed queries of
# bench_search (two- and three-word concepts, bench-anchors.md), each run
# REPS times; p50 is the median of the per-query medians, p99 over all
# runs. The connection remembers each query's document frequencies after
# its first run (search_rank.c): the first runs' median is printed too.
# Distinct queries (issue 33): 400 queries made from the corpus by
# bench/search_queries.py (page-title words, object names, two- and
# three-word heading phrases, module-name prefixes), each asked once, in
# Lectern in-process, over HTTP (a server that has answered nothing yet)
# and in Xapian, the same list in the same order; and 400 distinct queries
# of the synthetic index. A first-run figure: what people typing see.
# Relevance is measured apart (bench/relevance.sh).
# Prints the figures, the targets (issues 17 and 33), and the ratios to
# Xapian.
#
# Usage: sh bench/search.sh [BUILD_DIR]  (default build/plain; a Release
#        build without sanitizers). Needs python3-doc, xapian-omega,
#        python3-xapian. Loopback only; the server started here is stopped.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
bench=$build/bench/bench_search
lectern=$build/src/lectern
corpus=${BENCH_CORPUS:-/usr/share/doc/python3.11/html}
python=/usr/bin/python3
reps=${BENCH_REPS:-50}

for f in "$bench" "$lectern"; do
	[ -x "$f" ] || { echo "bench: build first ($f missing)"; exit 1; }
done
if [ ! -d "$corpus" ] || ! command -v omindex >/dev/null ||
	! "$python" -c 'import xapian' 2>/dev/null; then
	echo "bench: installing python3-doc xapian-omega python3-xapian"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-doc \
		xapian-omega python3-xapian >/dev/null
fi

work=$(mktemp -d /tmp/lectern-bench-search-XXXXXX)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# value KEY FILE: the value of a "key value" line.
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
now() { date +%s.%N; }

echo "corpus: $corpus ($(find "$corpus" -name '*.html' | wc -l) pages," \
	"$(find "$corpus" -name '*.html' -printf '%s\n' | awk '{ n += $1 } END { print n }') bytes of HTML)"

# The 20 queries, from the one list bench_search holds; the distinct ones.
"$bench" queries >"$work/queries.txt"
"$python" "$top/bench/search_queries.py" "$corpus" >"$work/distinct.tsv"

# Lectern: indexing ------------------------------------------------------------
times=
for run in 1 2 3; do
	rm -rf "$work/data"
	"$bench" index "$work/data" "$corpus" >"$work/index.out"
	times="$times $(value index_s "$work/index.out")"
done
lec_index=$(median3 $times)
echo "lectern index: ${lec_index} s (runs:$times); pages $(value pages "$work/index.out")," \
	"entries $(value entries "$work/index.out"), failed $(value failed "$work/index.out")," \
	"db $(du -sb "$work/data/lectern.db" | cut -f1) bytes"

# Lectern: queries in-process --------------------------------------------------
"$bench" distinct "$work/data" python <"$work/distinct.tsv" >"$work/distinct.out"
dis_p50=$(value distinct_p50_ms "$work/distinct.out")
dis_p99=$(value distinct_p99_ms "$work/distinct.out")
echo "lectern distinct queries (in-process, each once, top 10 + highlights): p50 ${dis_p50} ms," \
	"p99 ${dis_p99} ms, max $(value distinct_max_ms "$work/distinct.out") ms; p50 by kind:" \
	$(sed -n 's/^distinct_p50_ms_\([a-z0-9]*\) /\1 /p' "$work/distinct.out")
"$bench" query "$work/data" "$reps" >"$work/query.out"
lec_p50=$(value query_p50_ms "$work/query.out")
lec_p99=$(value query_p99_ms "$work/query.out")
echo "lectern query (in-process, top 10 + highlights): p50 ${lec_p50} ms, p99 ${lec_p99} ms;" \
	"first run of each query (no remembered document frequencies): p50 $(value query_first_p50_ms "$work/query.out") ms"

# Lectern: queries over HTTP ---------------------------------------------------
"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 --workers 0 \
	>"$work/serve.out" 2>"$work/serve.err" &
server=$!
for i in $(seq 50); do
	grep -q 'listening on' "$work/serve.out" 2>/dev/null && break
	sleep 0.1
done
base=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$work/serve.out" | sed 's:/$::')
"$python" - "$base" "$reps" "$work/queries.txt" "$work/distinct.tsv" >"$work/http.out" <<'EOF'
import http.client, statistics, sys, time, urllib.parse
base, reps, qfile, dfile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
queries = [q.strip() for q in open(qfile) if q.strip()]
distinct = [l.rstrip("\n").split("\t", 1)[1] for l in open(dfile) if l.strip()]
host = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(host.hostname, host.port)
def ask(q, n):
    path = "/api/v2/search/?" + urllib.parse.urlencode(
        {"q": q, "project": "python", "version": "latest", "page_size": 10, "n": n})
    t0 = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    assert r.status == 200, (r.status, q)
    return (time.perf_counter() - t0) * 1000
# Distinct queries first, each once, before the server has seen any.
once = sorted(ask(q, 0) for q in distinct)
print("http_distinct_p50_ms %.3f" % once[len(once) // 2])
print("http_distinct_p99_ms %.3f" % once[min(len(once) - 1, int(len(once) * 0.99))])
medians, every, n = [], [], 0
for q in queries:
    runs = []
    for _ in range(reps):
        n += 1
        runs.append(ask(q, n))
    medians.append(statistics.median(runs))
    every += runs
every.sort()
print("http_p50_ms %.3f" % statistics.median(medians))
print("http_p99_ms %.3f" % every[int(len(every) * 0.99)])
EOF
kill "$server"
wait "$server" 2>/dev/null || true
server=
http_p50=$(value http_p50_ms "$work/http.out")
http_dis_p50=$(value http_distinct_p50_ms "$work/http.out")
echo "lectern distinct queries (HTTP, keep-alive, each once): p50 ${http_dis_p50} ms," \
	"p99 $(value http_distinct_p99_ms "$work/http.out") ms"
echo "lectern query (HTTP, keep-alive): p50 ${http_p50} ms, p99 $(value http_p99_ms "$work/http.out") ms"

# Lectern: synthetic 100,000 sections ----------------------------------------
"$bench" synth "$work/synth" 100000 >"$work/synth.out"
synth_p99=$(value query_p99_ms "$work/synth.out")
synth_dis_p99=$(value synth_distinct_p99_ms "$work/synth.out")
echo "lectern synthetic: $(value synth_sections "$work/synth.out") sections indexed in" \
	"$(value synth_index_s "$work/synth.out") s; p50 $(value query_p50_ms "$work/synth.out") ms," \
	"p99 ${synth_p99} ms; distinct queries p50 $(value synth_distinct_p50_ms "$work/synth.out") ms," \
	"p99 ${synth_dis_p99} ms"

# Xapian ---------------------------------------------------------------------------
times=
for run in 1 2 3; do
	rm -rf "$work/xap"
	t0=$(now)
	omindex --db "$work/xap" --url / "$corpus" >/dev/null 2>&1
	times="$times $(echo "$(now) - $t0" | bc)"
done
xap_index=$(median3 $times)
echo "xapian omindex: ${xap_index} s (runs:$times), db $(du -sb "$work/xap" | cut -f1) bytes"
"$python" - "$work/xap" "$reps" "$work/queries.txt" >"$work/xap.out" <<'EOF'
import statistics, sys, time, xapian
db = xapian.Database(sys.argv[1])
reps = int(sys.argv[2])
queries = [q.strip() for q in open(sys.argv[3]) if q.strip()]
qp = xapian.QueryParser()
qp.set_stemmer(xapian.Stem("english"))
qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
qp.set_database(db)
medians, every = [], []
for q in queries:
    runs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        enquire = xapian.Enquire(db)
        enquire.set_query(qp.parse_query(q))
        for m in enquire.get_mset(0, 10):
            m.document.get_data()
        runs.append((time.perf_counter() - t0) * 1000)
    medians.append(statistics.median(runs))
    every += runs
every.sort()
print("xap_p50_ms %.3f" % statistics.median(medians))
print("xap_p99_ms %.3f" % every[int(len(every) * 0.99)])
EOF
"$python" - "$work/xap" "$work/distinct.tsv" >>"$work/xap.out" <<'EOF'
import sys, time, xapian
db = xapian.Database(sys.argv[1])
qp = xapian.QueryParser()
qp.set_stemmer(xapian.Stem("english"))
qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
qp.set_database(db)
by_kind, every = {}, []
for line in open(sys.argv[2]):
    kind, q = line.rstrip("\n").split("\t", 1)
    t0 = time.perf_counter()
    enquire = xapian.Enquire(db)
    enquire.set_query(qp.parse_query(q))
    for m in enquire.get_mset(0, 10):
        m.document.get_data()
    ms = (time.perf_counter() - t0) * 1000
    every.append(ms)
    by_kind.setdefault(kind, []).append(ms)
for kind, runs in by_kind.items():
    runs.sort()
    print("xap_distinct_p50_ms_%s %.3f" % (kind, runs[len(runs) // 2]))
every.sort()
print("xap_distinct_p50_ms %.3f" % every[len(every) // 2])
print("xap_distinct_p99_ms %.3f" % every[min(len(every) - 1, int(len(every) * 0.99))])
# The same queries with a highlighted snippet of each hit, as Lectern's
# results carry: MSet.snippet over the text omindex keeps (its sample).
stem, snips = xapian.Stem("english"), []
for line in open(sys.argv[2]):
    q = line.rstrip("\n").split("\t", 1)[1]
    t0 = time.perf_counter()
    enquire = xapian.Enquire(db)
    enquire.set_query(qp.parse_query(q))
    mset = enquire.get_mset(0, 10)
    for m in mset:
        data = m.document.get_data().decode("utf-8", "replace")
        sample = next((l[7:] for l in data.split("\n") if l.startswith("sample=")), "")
        mset.snippet(sample, 200, stem)
    snips.append((time.perf_counter() - t0) * 1000)
snips.sort()
print("xap_distinct_snip_p50_ms %.3f" % snips[len(snips) // 2])
print("xap_distinct_snip_p99_ms %.3f" % snips[min(len(snips) - 1, int(len(snips) * 0.99))])
EOF
xap_p50=$(value xap_p50_ms "$work/xap.out")
xap_dis_p50=$(value xap_distinct_p50_ms "$work/xap.out")
echo "xapian distinct queries (in-process, each once, top 10, no snippets): p50 ${xap_dis_p50} ms," \
	"p99 $(value xap_distinct_p99_ms "$work/xap.out") ms; p50 by kind:" \
	$(sed -n 's/^xap_distinct_p50_ms_\([a-z0-9]*\) /\1 /p' "$work/xap.out")
echo "xapian distinct queries with snippets (MSet.snippet of each hit's sample): p50" \
	"$(value xap_distinct_snip_p50_ms "$work/xap.out") ms, p99 $(value xap_distinct_snip_p99_ms "$work/xap.out") ms"
echo "xapian query (in-process, top 10, no snippets): p50 ${xap_p50} ms, p99 $(value xap_p99_ms "$work/xap.out") ms"

# Summary --------------------------------------------------------------------------
ratio() { echo "scale=2; $1 / $2" | bc; }
echo
echo "index:        lectern ${lec_index} s vs xapian ${xap_index} s (x$(ratio "$lec_index" "$xap_index")); target <= 1.5 s"
echo "query p50:    lectern ${lec_p50} ms vs xapian ${xap_p50} ms (x$(ratio "$lec_p50" "$xap_p50")); target <= 0.25 ms"
echo "query p99:    lectern ${lec_p99} ms vs xapian $(value xap_p99_ms "$work/xap.out") ms; target <= 1 ms"
echo "HTTP p50:     lectern ${http_p50} ms; target <= 0.5 ms"
echo "100k p99:     lectern ${synth_p99} ms; target <= 3 ms"
echo "distinct queries (issue 33), each asked once:"
echo "  in-process p50: lectern ${dis_p50} ms vs xapian ${xap_dis_p50} ms (x$(ratio "$dis_p50" "$xap_dis_p50")); target <= xapian's"
echo "    with highlights on both sides: xapian $(value xap_distinct_snip_p50_ms "$work/xap.out") ms" \
	"(x$(ratio "$dis_p50" "$(value xap_distinct_snip_p50_ms "$work/xap.out")"))"
echo "  in-process p99: lectern ${dis_p99} ms vs xapian $(value xap_distinct_p99_ms "$work/xap.out") ms; target <= 1 ms"
echo "  HTTP p50:       lectern ${http_dis_p50} ms; target <= 0.5 ms"
echo "  100k p99:       lectern ${synth_dis_p99} ms; target <= 3 ms"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures are only comparable on an idle machine)"
