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
# Usage: sh bench/mdsite.sh [BUILD_DIR]   (default build/plain; needs a C
# compiler, pkg-config and python3-mkdocs)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
runs=${BENCH_RUNS:-3}
pages=1000
python=/usr/bin/python3

if ! "$python" -m mkdocs --version >/dev/null 2>&1; then
	echo "bench: installing mkdocs (Debian package)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mkdocs >/dev/null
fi
[ -f "$build/CMakeCache.txt" ] || { echo "bench: configure $build first"; exit 1; }
cmake --build "$build" --target lectern_engine >/dev/null

work=$(mktemp -d /tmp/lectern-bench-mdsite-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# The driver: one lec_mdsite_build call, as the build pipeline makes it.
cat >"$work/driver.c" <<'EOF'
#include <stdio.h>
#include "lectern/errors.h"
#include "lectern/mdsite.h"

int main(int argc, char **argv)
{
	struct lec_mdsite_options opts = LEC_MDSITE_OPTIONS_INIT;
	struct lec_mdsite_stats st;

	if (argc != 3) {
		fprintf(stderr, "usage: driver SRC OUT\n");
		return 2;
	}
	opts.title = "Bench";
	if (lec_mdsite_build(argv[1], argv[2], &opts, &st) != LEC_OK) {
		fprintf(stderr, "driver: %s\n", lec_error_last());
		return 1;
	}
	printf("%zu pages, %zu assets, %zu bytes in, %zu bytes out\n",
	       st.pages, st.assets, st.bytes_in, st.bytes_out);
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
