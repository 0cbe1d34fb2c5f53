"""Scores ranked result lists against a judged query set (bench/relevance).

Usage: python3 judge.py CORPUS_DIR SET.tsv NAME=RESULTS.tsv ...

SET.tsv lines are "query<TAB>kind<TAB>pages<TAB>anchors" ('|' between
alternatives, '#' starts a comment). A RESULTS file has
"N<TAB>rank<TAB>page<TAB>anchor" lines, N the query's position in the set
from 1, in rank order. First checks that every expected page and anchor
exists in CORPUS_DIR (the set is written from the documents, and a corpus
upgrade must not silently turn its judgements into misses).

Page level: a result list is cut to its distinct pages (first occurrence
wins, as a reader skips a page seen already), the first 10 kept; a query
succeeds at k when an expected page is among the first k. Section level: a
result succeeds when its page is expected and its anchor (the section or
object it points at) is one of the expected anchors. Prints success@1,
success@3 and MRR@10 per engine and level, overall and per query kind, and
with -v the queries each engine misses at 3.
"""
import collections
import os
import re
import sys


def load_set(path):
    queries = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        q, kind, pages, anchors = line.split("\t")
        queries.append((q, kind, set(pages.split("|")), set(anchors.split("|"))))
    return queries


def check_set(corpus, queries):
    bad = []
    for q, _, pages, anchors in queries:
        found = set()
        for p in pages:
            f = os.path.join(corpus, p)
            if not os.path.isfile(f):
                bad.append("%s: no page %s" % (q, p))
                continue
            html = open(f, encoding="utf-8", errors="replace").read()
            found |= {a for a in anchors if re.search(r'id="%s"' % re.escape(a), html)}
        for a in anchors - found:
            bad.append("%s: no anchor %s in %s" % (q, a, "|".join(sorted(pages))))
    return bad


def load_results(path):
    res = collections.defaultdict(list)
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3:
            continue
        res[int(parts[0])].append((parts[2].lstrip("/"), parts[3] if len(parts) > 3 else ""))
    return res


def first_rank(results, ok, distinct_pages):
    seen, rank = set(), 0
    for page, anchor in results:
        if distinct_pages:
            if page in seen:
                continue
            seen.add(page)
        rank += 1
        if rank > 10:
            return None
        if ok(page, anchor):
            return rank
    return None


def metrics(ranks):
    n = len(ranks)
    s1 = sum(1 for r in ranks if r is not None and r <= 1) / n
    s3 = sum(1 for r in ranks if r is not None and r <= 3) / n
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return s1, s3, mrr


def main(argv):
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    corpus, setfile, engines = argv[1], argv[2], argv[3:]
    queries = load_set(setfile)
    bad = check_set(corpus, queries)
    if bad:
        print("judged set does not match the corpus:\n  " + "\n  ".join(bad))
        return 1
    kinds = sorted({k for _, k, _, _ in queries})
    print("%-22s %-8s %5s %6s %6s %6s" % ("engine", "level", "n", "s@1", "s@3", "MRR@10"))
    for spec in engines:
        name, path = spec.split("=", 1)
        res = load_results(path)
        for level in ("page", "section"):
            if level == "section" and not any(a for r in res.values() for _, a in r):
                continue
            ranks = []
            for i, (q, kind, pages, anchors) in enumerate(queries, 1):
                if level == "page":
                    ok = lambda p, a, pages=pages: p in pages
                else:
                    ok = lambda p, a, pages=pages, anchors=anchors: p in pages and a in anchors
                ranks.append((kind, q, first_rank(res.get(i, []), ok, level == "page")))
            s1, s3, mrr = metrics([r for _, _, r in ranks])
            print("%-22s %-8s %5d %6.3f %6.3f %6.3f" % (name, level, len(ranks), s1, s3, mrr))
            if verbose:
                for kind in kinds:
                    sub = [r for k, _, r in ranks if k == kind]
                    s1, s3, mrr = metrics(sub)
                    print("%-22s   %-12s %3d %6.3f %6.3f %6.3f" % ("", kind, len(sub), s1, s3, mrr))
                missed = ["%s (%s)" % (q, r if r else "-") for _, q, r in ranks if r is None or r > 3]
                if missed:
                    print("%-22s   missed@3: %s" % ("", "; ".join(missed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
