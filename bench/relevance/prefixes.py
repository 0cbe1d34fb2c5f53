"""Names as typed (issue 33): does typing the first letters of a module's or
an object's name put its page in the top 3?

Usage: python3 prefixes.py queries CORPUS_DIR > QUERIES.tsv
       python3 prefixes.py judge QUERIES.tsv RESULTS.tsv

`queries` prints "kind<TAB>prefix<TAB>page" lines from a Sphinx HTML corpus:
  module  every prefix of 4 letters or more (not the whole name) of every
          module documented (a `module-NAME` section), with its page;
  object  the first 4, 6 and all but one letters of the last part of a
          function's or class's name (asyncio.gather: "gath", "gathe"), when
          that part names one page's objects only (a prefix of a name
          defined on many pages, such as `get`, cannot say which).
`judge` reads `bench_search rank` output ("N<TAB>rank<TAB>page<TAB>anchor",
N the query's line) and prints per kind how many queries had their page
among the first 3 distinct pages, and with -v the misses.
"""
import collections
import os
import re
import sys

MIN_TYPED = 4


def pages(root):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("_"))
        for name in sorted(files):
            if name.endswith(".html"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, root), f.read()


# A module's section: Sphinx's `module-NAME` id, its heading starting with
# NAME ("pathlib — Object-oriented filesystem paths"); a section titled
# "Module Attributes" has the id module-attributes too.
MODULE = re.compile(r'<section id="module-([A-Za-z_][\w.]*)">\s*(?:<span[^>]*></span>)?<h[1-6]>(.*?)</h[1-6]>', re.S)
TAG = re.compile(r"<[^>]+>")


def modules_of(html):
    """The modules a page documents."""
    return [name for name, heading in MODULE.findall(html)
            if TAG.sub("", heading).strip().startswith(name)]


def queries(root):
    modules, objects, whole_ids = {}, collections.defaultdict(set), set()
    for rel, html in pages(root):
        for name in modules_of(html):
            modules.setdefault(name, rel)
        for ident in re.findall(
                r'<dl class="py (?:function|class)">\s*<dt class="sig sig-object py" id="([\w.]+)"', html):
            objects[ident.split(".")[-1]].add(rel)
            whole_ids.add(ident)
    # A prefix that is a whole name itself ("copy" of copyreg, "compile"
    # of compileall) is that name, not a prefix.
    whole = {n.lower() for n in modules} | {n.lower() for n in objects} | \
        {n.lower() for n in whole_ids}
    out = []
    for name, rel in sorted(modules.items()):
        for n in range(MIN_TYPED, len(name)):
            if name[:n].lower() not in whole:
                out.append(("module", name[:n], rel))
    for last, rels in sorted(objects.items()):
        if len(rels) != 1 or len(last) <= MIN_TYPED:
            continue
        for n in sorted({MIN_TYPED, 6, len(last) - 1}):
            if MIN_TYPED <= n < len(last) and last[:n].lower() not in whole:
                out.append(("object", last[:n], next(iter(rels))))
    # A prefix asked twice (two modules' names share it) is judged once,
    # by its first page.
    seen = set()
    for kind, q, rel in out:
        if q not in seen:
            seen.add(q)
            print("%s\t%s\t%s" % (kind, q, rel))


def judge(qfile, rfile, verbose):
    qs = [l.rstrip("\n").split("\t") for l in open(qfile) if l.strip()]
    got = collections.defaultdict(list)
    for line in open(rfile):
        n, _, page, _ = (line.rstrip("\n").split("\t") + [""] * 4)[:4]
        if page not in got[int(n)]:
            got[int(n)].append(page)
    hits, total, misses = collections.Counter(), collections.Counter(), []
    for i, (kind, q, page) in enumerate(qs, 1):
        total[kind] += 1
        if page in got[i][:3]:
            hits[kind] += 1
        else:
            misses.append("%s %s -> %s (got %s)" % (kind, q, page, ", ".join(got[i][:3])))
    for kind in sorted(total):
        print("%-7s page in the top 3: %d of %d (%.3f)" % (
            kind, hits[kind], total[kind], hits[kind] / total[kind]))
    if verbose:
        for m in misses:
            print("  miss: " + m)


if __name__ == "__main__":
    if sys.argv[1] == "queries":
        queries(sys.argv[2])
    else:
        args = [a for a in sys.argv[2:] if a != "-v"]
        judge(args[0], args[1], "-v" in sys.argv)
