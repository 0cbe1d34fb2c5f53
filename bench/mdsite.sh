#!/bin/sh
# Markdown generator benchmark (issue: from repository to built docs). Builds
# one generated 1,000-page Markdown tree (headings, paragraphs, lists, code
# blocks, tables, links between pages; 2-5 KB a page) with
#   - Lectern's built-in generator (lec_mdsite_build, through a tiny C driver
#     written and compiled here against BUILD_DIR's engine library), and
#   - MkDocs (Debian's: /usr/bin/python3 -m mkdocs build, minimal mkdocs.yml)
# in the same run, and prints both wall-clock times and the ratio.
# Target: Lectern >= 20x faster than MkDocs, and under 1 s.
#
# Each tool builds BENCH_RUNS times (default 3) into a fresh directory; the
# best run counts, so a cold page cache does not decide.
#
# --incremental times Lectern against itself instead (no MkDocs): the tree
# is built once with a state directory, one page is edited, then the same
# tree is built into fresh directories both without state (a fresh build)
# and with it (an incremental build, which renders the edited page and
# links the 1,000 others from the state), the two outputs compared byte
# for byte. Each run edits the page anew; the order of the two builds
# alternates between runs, as the first to create files after the previous
# run's were deleted pays for it on ext4.
#
# Usage: sh bench/mdsite.sh [--incremental] [BUILD_DIR]   (default
# build/plain; needs a C compiler, pkg-config, and python3-mkdocs unless
# --incremental)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mode=mkdocs
if [ "${1:-}" = --incremental ]; then
	mode=incremental
	shift
fi
build=${1:-$top/build/plain}
runs=${BENCH_RUNS:-3}
pages=1000
python=/usr/bin/python3

if [ $mode = mkdocs ] && ! "$python" -m mkdocs --version >/dev/null 2>&1; then
	echo "bench: installing mkdocs (Debian package)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mkdocs >/dev/null
fi
[ -f "$build/CMakeCache.txt" ] || { echo "bench: configure $build first"; exit 1; }
cmake --build "$build" --target lectern_engine >/dev/null

work=$(mktemp -d /tmp/lectern-bench-mdsite-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# The driver: one lec_mdsite_build call, as the build pipeline makes it
# (with a state directory when given one).
cat >"$work/driver.c" <<'EOF'
#include <stdio.h>
#include "lectern/errors.h"
#include "lectern/mdsite.h"

int main(int argc, char **argv)
{
	struct lec_mdsite_options opts = LEC_MDSITE_OPTIONS_INIT;
	struct lec_mdsite_stats st;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: driver SRC OUT [STATE]\n");
		return 2;
	}
	opts.title = "Bench";
	opts.state_dir = argc == 4 ? argv[3] : NULL;
	if (lec_mdsite_build(argv[1], argv[2], &opts, &st) != LEC_OK) {
		fprintf(stderr, "driver: %s\n", lec_error_last());
		return 1;
	}
	printf("%zu pages (%zu rendered, %zu reused: %s), %zu assets, "
	       "%zu bytes in, %zu bytes out\n",
	       st.pages, st.pages_rendered, st.pages_reused,
	       st.rebuild_reason ? st.rebuild_reason : "all reused",
	       st.assets, st.bytes_in, st.bytes_out);
	return 0;
}
EOF
# shellcheck disable=SC2046 # pkg-config output is a word list
cc -O2 -I"$top/engine/include" "$work/driver.c" "$build/engine/liblectern_engine.a" \
	$(pkg-config --libs md4c-html libxml-2.0 sqlite3 libcrypto libcjson libgit2 yaml-0.1) \
	-lunistring -lpthread -o "$work/driver"

# The sources: 20 sections of 50 pages, an index, and mkdocs.yml.
"$python" - "$work/repo" "$pages" <<'PY'
import os, random, sys
root, count = sys.argv[1], int(sys.argv[2])
docs = os.path.join(root, "docs")
random.seed(4)
words = ("build version project theme search index page module config "
         "release branch commit server client option value table output "
         "install setup guide reference api token cache worker queue").split()
def sentence(n):
    s = " ".join(random.choice(words) for _ in range(n))
    return s[0].upper() + s[1:] + "."
sections = 20
per = count // sections
def name(i):
    return "section-%02d/page-%03d.md" % (i // per, i % per)
os.makedirs(docs, exist_ok=True)
for i in range(count):
    path = os.path.join(docs, name(i))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out = ["# Page %d: %s" % (i, sentence(3)[:-1]), "", sentence(40), ""]
    for h in range(random.randint(2, 5)):
        j, k = random.randrange(count), random.randrange(count)
        out += ["## %s" % sentence(3)[:-1], "",
                "%s See [page %d](../%s) and [the details](../%s#usage)." %
                (sentence(20), j, name(j), name(k)), ""]
        out += ["- %s" % sentence(6) for _ in range(random.randint(2, 5))] + [""]
        if h % 2 == 0:
            out += ["### Usage", "", "```python",
                    "def handler(request):",
                    "    value = request.get(%r)" % random.choice(words),
                    "    return {'status': 200, 'value': value}",
                    "```", ""]
        else:
            out += ["| Option | Default | Meaning |", "|---|:-:|---|"]
            out += ["| `%s` | %d | %s |" % (random.choice(words),
                    random.randint(0, 99), sentence(5)) for _ in range(4)]
            out += [""]
        out += [sentence(30), ""]
    with open(path, "w") as f:
        f.write("\n".join(out))
with open(os.path.join(docs, "index.md"), "w") as f:
    f.write("# Bench\n\nA generated site of %d pages.\n\n" % count)
    f.write("\n".join("- [Section %d](section-%02d/page-000.md)" % (s, s)
                      for s in range(sections)) + "\n")
with open(os.path.join(root, "mkdocs.yml"), "w") as f:
    f.write("site_name: Bench\n")
PY
size=$(du -sk "$work/repo/docs" | cut -f1)
echo "sources: $pages pages + index, ${size} KB of Markdown (file system blocks)"

now() { date +%s%N; }

if [ $mode = incremental ]; then
	edited="$work/repo/docs/section-07/page-013.md"
	best_fresh=
	best_incr=
	i=0
	while [ $i -lt "$runs" ]; do
		rm -rf "$work/state" "$work/prime" "$work/fresh" "$work/incr"
		"$work/driver" "$work/repo/docs" "$work/prime" "$work/state" >/dev/null
		printf '\nA paragraph edited in run %d.\n' "$i" >>"$edited"
		orders="fresh incr"
		[ $((i % 2)) -eq 0 ] || orders="incr fresh"
		for order in $orders; do
			t0=$(now)
			if [ $order = fresh ]; then
				"$work/driver" "$work/repo/docs" "$work/fresh" >"$work/fresh.log"
			else
				"$work/driver" "$work/repo/docs" "$work/incr" "$work/state" >"$work/incr.log"
			fi
			t=$(( ($(now) - t0) / 1000 ))
			if [ $order = fresh ]; then
				if [ -z "$best_fresh" ] || [ "$t" -lt "$best_fresh" ]; then best_fresh=$t; fi
			elif [ -z "$best_incr" ] || [ "$t" -lt "$best_incr" ]; then
				best_incr=$t
			fi
		done
		diff -r "$work/fresh" "$work/incr" >/dev/null ||
			{ echo "bench: the incremental output differs from the fresh one"; exit 1; }
		i=$((i + 1))
	done
	echo "fresh:       $(cat "$work/fresh.log")"
	echo "incremental: $(cat "$work/incr.log")"
	awk -v f="$best_fresh" -v n="$best_incr" 'BEGIN {
		printf "fresh build (no state):          %8.3f s\n", f / 1e6
		printf "incremental build (1 page edited): %6.3f s\n", n / 1e6
		printf "ratio:                           %8.1f x faster\n", f / n
	}'
	exit 0
fi

best_lectern=
best_mkdocs=
i=0
while [ $i -lt "$runs" ]; do
	rm -rf "$work/lectern-out" "$work/mkdocs-out"
	t0=$(now)
	"$work/driver" "$work/repo/docs" "$work/lectern-out" >"$work/lectern.log"
	t1=$(now)
	(cd "$work/repo" && "$python" -m mkdocs build -q -d "$work/mkdocs-out" 2>"$work/mkdocs.log")
	t2=$(now)
	l=$(( (t1 - t0) / 1000 ))
	m=$(( (t2 - t1) / 1000 ))
	if [ -z "$best_lectern" ] || [ "$l" -lt "$best_lectern" ]; then best_lectern=$l; fi
	if [ -z "$best_mkdocs" ] || [ "$m" -lt "$best_mkdocs" ]; then best_mkdocs=$m; fi
	i=$((i + 1))
done
echo "lectern: $(cat "$work/lectern.log")"
echo "mkdocs:  $(find "$work/mkdocs-out" -name '*.html' | wc -l) HTML files"
awk -v l="$best_lectern" -v m="$best_mkdocs" 'BEGIN {
	printf "lectern mdsite: %8.3f s\n", l / 1e6
	printf "mkdocs build:   %8.3f s\n", m / 1e6
	printf "ratio:          %8.1f x faster (target >= 20 x, lectern < 1 s)\n", m / l
}'
