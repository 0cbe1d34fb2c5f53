"""Distinct search queries made from a Sphinx HTML corpus (issue 33).

Usage: python3 search_queries.py CORPUS_DIR [PER_KIND]

Prints "kind<TAB>query" lines, every query different, in a fixed shuffled
order (the same corpus gives the same list), PER_KIND (default 80) of each
kind:
  title    two words of a page title ("filesystem paths")
  object   a documented object's name as written in its id
           ("subprocess.run", "asyncio.gather")
  phrase2  two consecutive words of a section heading
  phrase3  three consecutive words of a section heading
  prefix   the first 4 to 7 letters of a module's name, as typed by a
           reader who has not finished it ("pathl", "subproc")
bench/search.sh asks each once, in Lectern and in Xapian, in the same run:
people type distinct queries, and search as you type sends a new one per
key, so a figure from repeated queries says little.
"""
import html
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "relevance"))
from prefixes import modules_of  # noqa: E402

SEED = 33
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
TAG = re.compile(r"<[^>]+>")


def pages(root):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("_"))
        for name in sorted(files):
            if name.endswith(".html") and name not in ("genindex.html", "search.html"):
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    yield f.read()


def words(text):
    return [w.lower() for w in WORD.findall(html.unescape(TAG.sub(" ", text)))]


def collect(root):
    kinds = {k: set() for k in ("title", "object", "phrase2", "phrase3", "prefix")}
    for page in pages(root):
        m = re.search(r"<title>(.*?)</title>", page, re.S)
        if m:
            t = words(m.group(1).split("&#8212;")[0])
            for i in range(len(t) - 1):
                kinds["title"].add(" ".join(t[i:i + 2]))
        for ident in re.findall(r'<dt class="sig sig-object py" id="([A-Za-z_][\w.]*)"', page):
            kinds["object"].add(ident)
        for ident in modules_of(page):
            base = ident.split(".")[0]
            for n in range(4, min(7, len(base) - 1) + 1):
                kinds["prefix"].add(base[:n])
        for h in re.findall(r"<h[2-4][^>]*>(.*?)</h[2-4]>", page, re.S):
            h = words(h)
            for n in (2, 3):
                for i in range(len(h) - n + 1):
                    kinds["phrase%d" % n].add(" ".join(h[i:i + n]))
    return kinds


def main():
    root = sys.argv[1]
    per_kind = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    rng = random.Random(SEED)
    seen, out = set(), []
    for kind, found in collect(root).items():
        pool = sorted(found - seen)
        for q in rng.sample(pool, min(per_kind, len(pool))):
            seen.add(q)
            out.append((kind, q))
    rng.shuffle(out)
    for kind, q in out:
        print("%s\t%s" % (kind, q))


if __name__ == "__main__":
    main()
