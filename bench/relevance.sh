#!/bin/sh
# Relevance benchmark (issue 17): the judged query sets of bench/relevance/
# against, in one run and over the same HTML,
#   - Lectern: the corpus indexed by `bench_search index`, each query's top 10
#     pages (with the best section or object of each) by `bench_search rank`;
#   - Xapian: `omindex --db DIR --url / CORPUS`, then `quest` with its
#     defaults (English stemming, OR, BM25), top 100 documents of which the
#     HTML pages are kept (omindex also indexes _sources/*.txt and other
#     non-page files; those are skipped, not counted as misses);
#   - Sphinx's own search: the corpus's searchindex.js ranked by its
#     _static/searchtools.js under node (bench/relevance/sphinx_search.js;
#     Sphinx 5.3 in Debian 12's python3-doc and sphinx-doc).
# Corpora: Debian's python3-doc (/usr/share/doc/python3.11/html) and
# sphinx-doc (/usr/share/doc/sphinx-doc/html, Sphinx's own documentation,
# with std:confval, rst:directive, std:option and glossary entries).
# Prints success@1, success@3 and MRR@10 per engine at page level, and at
# section level for the engines that point into pages (bench/relevance/
# judge.py says how each is counted). BENCH_VERBOSE=1 adds per-kind figures
# and the misses. Then names as typed (issue 33): every prefix of 4 letters
# or more of each module's name, and of object names, asked of Lectern,
# judged by whether the page is in the top 3 (bench/relevance/prefixes.py).
#
# Usage: sh bench/relevance.sh [BUILD_DIR]  (default build/plain). Installs
#        python3-doc, sphinx-doc, xapian-omega, xapian-tools and nodejs when
#        missing (bench-only packages).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
bench=$build/bench/bench_search
rel=$top/bench/relevance
python=/usr/bin/python3

[ -x "$bench" ] || { echo "bench: build first ($bench missing)"; exit 1; }
if [ ! -d /usr/share/doc/python3.11/html ] || [ ! -d /usr/share/doc/sphinx-doc/html ] ||
	! command -v omindex >/dev/null || ! command -v quest >/dev/null ||
	! command -v node >/dev/null; then
	echo "bench: installing python3-doc sphinx-doc xapian-omega xapian-tools nodejs"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-doc sphinx-doc \
		xapian-omega xapian-tools nodejs >/dev/null
fi

work=$(mktemp -d /tmp/lectern-bench-relevance-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

verbose=
[ -n "${BENCH_VERBOSE:-}" ] && verbose=-v

# queries SET: the set's queries, one a line.
queries() { grep -v '^#' "$1" | grep -v '^[[:space:]]*$' | cut -f1; }

# Xapian's top 100 for each query on stdin, as "N<TAB>rank<TAB>url" lines.
xapian_rank() {
	n=0
	while IFS= read -r q; do
		n=$((n + 1))
		quest -d "$1" -m 100 -- "$q" 2>/dev/null |
			sed -n 's/^url=//p' | grep '\.html$' | grep -v '^/_' |
			awk -v n=$n '{ print n "\t" NR "\t" $0 "\t" }'
	done
}

echo "Sphinx: $(node -e 'process.stdout.write(process.version)') running" \
	"searchtools.js of Sphinx $(sed -n "s/.*VERSION: '\([^']*\)'.*/\1/p" \
		/usr/share/doc/sphinx-doc/html/_static/documentation_options.js)"
for corpus in python3-doc sphinx-doc; do
	case $corpus in
	python3-doc) html=/usr/share/doc/python3.11/html ;;
	sphinx-doc) html=/usr/share/doc/sphinx-doc/html ;;
	esac
	set_file=$rel/$corpus.tsv
	queries "$set_file" >"$work/$corpus.q"
	echo
	echo "== $corpus: $(wc -l <"$work/$corpus.q") queries, $(find "$html" -name '*.html' | wc -l) pages"

	"$bench" index "$work/lectern" "$html" "$corpus" >/dev/null
	"$bench" rank "$work/lectern" "$corpus" <"$work/$corpus.q" >"$work/$corpus.lectern"

	omindex --db "$work/$corpus.xapian" --url / "$html" >/dev/null 2>&1
	xapian_rank "$work/$corpus.xapian" <"$work/$corpus.q" >"$work/$corpus.xapian.tsv"

	node "$rel/sphinx_search.js" "$html" <"$work/$corpus.q" >"$work/$corpus.sphinx"

	"$python" "$rel/judge.py" $verbose "$html" "$set_file" \
		"lectern=$work/$corpus.lectern" \
		"xapian=$work/$corpus.xapian.tsv" \
		"sphinx-js=$work/$corpus.sphinx"

	"$python" "$rel/prefixes.py" queries "$html" >"$work/$corpus.prefixes"
	cut -f2 "$work/$corpus.prefixes" |
		"$bench" rank "$work/lectern" "$corpus" >"$work/$corpus.prefixes.lectern"
	echo "names as typed (lectern):"
	"$python" "$rel/prefixes.py" judge $verbose "$work/$corpus.prefixes" \
		"$work/$corpus.prefixes.lectern"
done
