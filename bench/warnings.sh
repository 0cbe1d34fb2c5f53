#!/bin/sh
# What finding a build's warnings costs (issue 30: parsing the generator's
# output and checking the links of the published HTML add at most 5% to the
# build of a large site, python3-doc's size). In one run, with
# bench_warnings (bench/warnings_bench.c), each tree is built the way
# `lectern preview` and `lectern check` build it, into fresh caches,
# BENCH_RUNS times with warnings looked for and as many times without,
# alternating which goes first; the best of each is compared, and the
# parser and the link check are then timed alone on what the last build
# wrote and published, as a share of the build without them. Trees:
#
#   sphinx    python3-doc's own sources (Debian's python3.11-doc ships them
#             as _sources/*.rst.txt: 497 pages, 12 MB), built by Debian's
#             Sphinx with a minimal conf.py. Python's own Sphinx extensions
#             are not there, so its roles and directives are warnings: a
#             large site with thousands of them, the parser's worst case.
#   markdown  the same pages as Markdown for the built-in builder (the
#             fastest build, so the largest share for the link check), each
#             with links to its neighbours' anchors and to the site's top.
#
# Also the link check alone over Debian's published python3-doc HTML (530
# pages, 67 MB, 158,000 internal links), Python's real build.
#
# Usage: sh bench/warnings.sh [BUILD_DIR] [sphinx|markdown|links ...]
#        (default build/plain, all three; use a Release or RelWithDebInfo
#        build; BENCH_RUNS, default 2 for Sphinx, 5 for Markdown)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/plain
case ${1:-} in
/* | ./* | ../* | build*) build=$1; shift ;;
esac
what=${*:-sphinx markdown links}
docs=/usr/share/doc/python3.11-doc/html
bench=$build/bench/bench_warnings

[ -d "$docs/_sources" ] || {
	echo "bench: installing python3-doc (Debian package)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-doc >/dev/null
}
[ -f "$build/CMakeCache.txt" ] || { echo "bench: configure $build first"; exit 1; }
cmake --build "$build" --target bench_warnings >/dev/null

work=$(mktemp -d /tmp/lectern-bench-warnings-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# python3-doc's sources as a Sphinx project.
make_sphinx() {
	(cd "$docs/_sources" && find -L . -name '*.rst.txt') | while read -r f; do
		mkdir -p "$work/sphinx/$(dirname "$f")"
		cp -L "$docs/_sources/$f" "$work/sphinx/${f%.txt}"
	done
	printf "project = 'Python'\nroot_doc = 'contents'\n" >"$work/sphinx/conf.py"
}

# The same pages as Markdown: reST titles become headings (their anchors
# what the next page links to), each page links to its neighbours.
make_markdown() {
	/usr/bin/python3 - "$docs/_sources" "$work/markdown" <<'PY'
import os, re, sys
src, out = sys.argv[1], sys.argv[2]
pages = []
for root, dirs, files in os.walk(src, followlinks=True):
    for f in sorted(files):
        if f.endswith(".rst.txt"):
            pages.append(os.path.relpath(os.path.join(root, f), src)[:-len(".rst.txt")])
pages.sort()
def slug(t):  # GitHub's heading anchors, as the Markdown builder makes them
    return re.sub(r"[^\w\- ]", "", t.strip().lower()).replace(" ", "-")
titles = {}
for p in pages:
    text = open(os.path.join(src, p + ".rst.txt"), encoding="utf-8", errors="replace").read()
    lines, md, first = text.split("\n"), [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and re.fullmatch(r"([=\-~^\"*#+])\1{2,}", lines[i + 1].strip()):
            md.append("## " + line.strip())
            first = first or line.strip()
            i += 2
            continue
        md.append(line)
        i += 1
    titles[p] = (first or p, md)
for n, p in enumerate(pages):
    title, md = titles[p]
    links = []
    for q in (pages[n - 1], pages[(n + 1) % len(pages)]):
        rel = os.path.relpath(q, os.path.dirname(p) or ".")
        links.append("[%s](%s.md#%s)" % (titles[q][0], rel, slug(titles[q][0])))
    path = os.path.join(out, p + ".md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("# %s\n\nSee %s.\n\n%s\n" % (title, " and ".join(links), "\n".join(md)))
PY
}

for w in $what; do
	case $w in
	sphinx)
		make_sphinx
		echo "== Sphinx: python3-doc's sources ($(find "$work/sphinx" -name '*.rst' | wc -l) pages)"
		"$bench" build "$work/sphinx" "${BENCH_RUNS:-2}" "$work/sphinx.warnings"
		echo "  e.g. $(grep -c ': warning: ' "$work/sphinx.warnings" || true) warnings, $(grep -c ': error: ' "$work/sphinx.warnings" || true) errors, $(grep -c ': link: ' "$work/sphinx.warnings" || true) broken links kept"
		;;
	markdown)
		make_markdown
		echo "== Markdown: the same pages for the built-in builder ($(find "$work/markdown" -name '*.md' | wc -l) pages)"
		"$bench" build "$work/markdown" "${BENCH_RUNS:-5}"
		;;
	links)
		echo "== The link check alone: Debian's python3-doc HTML"
		"$bench" links "$docs/" | head -n 1
		;;
	*)
		echo "bench: unknown tree $w (sphinx, markdown, links)"
		exit 2
		;;
	esac
done
