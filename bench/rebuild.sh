#!/bin/sh
# Fast rebuilds benchmark (issue 29): how long a writer waits, beside the
# same work done by hand with git and the generator, in the same run.
#
#   Markdown, local: a repository generated with git fast-import
#     (BENCH_COMMITS commits, default 20,000, each rewriting one of 50
#     pages) imported from file:// until published, beside `git clone
#     --mirror file://` + a checkout + the generator (Lectern's built-in
#     one, whose time is read from the same build's log: there is no other
#     program to run it). Target: <= 1.2 x by hand.
#   Markdown, git://: the same repository served by `git daemon`, beside
#     `git clone --mirror git://` + checkout + generator, for reference
#     (libgit2's transport is unchanged; bench/realrepo.sh holds its
#     target).
#   Sphinx, local (BENCH_SPHINX: a clone of github.com/sphinx-doc/sphinx
#     with its history; skipped without one): its docs at tag v5.3.0 (the
#     Sphinx Debian 12 has) with a .readthedocs.yaml, imported until
#     published, beside `git clone --mirror` + checkout + `python3 -m
#     sphinx` by hand (target <= 1.2 x); then BENCH_RUNS one-line commits
#     published through the commit watcher (median), each beside `git fetch` + a checkout of the
#     new commit + Sphinx's incremental build on its kept doctrees and pages
#     (target <= 1.0 x by hand: issue 42's warm generator).
#   Sphinx, generated (issue 42): an 80-page Sphinx project with
#     BENCH_COMMITS commits, imported until published (the cold first
#     build, beside clone + checkout + `python3 -m sphinx`), then
#     BENCH_RUNS one-line commits published through the watcher (median),
#     beside `git fetch` + checkout + Sphinx's incremental build (target
#     <= 1.0 x), and BENCH_RUNS new pages in the toctree (every page
#     rewritten; median) beside the same by hand with `-a` on the kept
#     doctrees (target <= 0.8 x). Every build of a watched version after the first goes
#     through its warm generator; its cache record says so.
#
# BENCH_ONLY=sphinx skips the Markdown parts (the longest).
#
# Every Lectern figure goes through a real `lectern serve` with a build
# worker and the commit watcher on, a token on every request. Each figure
# is one run (the imports take minutes); BENCH_COMMITS scales part 1.
# A commit's figure stops when the docs host serves the changed page (the
# build's output is published; by hand the generator's output is there
# when it ends); the build's end, after its search index is written, is
# printed beside it.
#
# Usage: sh bench/rebuild.sh [BUILD_DIR]  (default build/release;
#        BENCH_SPHINX=/path/to/sphinx-clone for part 3; BENCH_KEEP=1 keeps
#        the work directory)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/release}
[ -f "$build/CMakeCache.txt" ] || { echo "bench: configure $build first"; exit 1; }
cmake --build "$build" --target lectern >/dev/null
work=$(mktemp -d /tmp/lectern-bench-rebuild-XXXXXX)
cleanup() {
	if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

/usr/bin/python3 - "$build/src/lectern" "$work" "${BENCH_COMMITS:-20000}" \
	"${BENCH_SPHINX:-}" <<'PY'
import hashlib, json, os, re, signal, socket, sqlite3, subprocess, sys, time
import http.client
import urllib.request

lectern, work, commits, sphinx_src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
only = os.environ.get("BENCH_ONLY", "")
runs = int(os.environ.get("BENCH_RUNS", "5"))
PY3 = "/usr/bin/python3"
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.test",
               GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.test",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_SYSTEM="/dev/null")


def run(*argv, cwd=None):
    subprocess.run(argv, cwd=cwd, check=True, env=GIT_ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(*argv, cwd=None):
    start = time.monotonic()
    run(*argv, cwd=cwd)
    return time.monotonic() - start


def markdown_page(page, i):
    body = hashlib.sha256(b"%d" % i).hexdigest() * 18
    return "docs/page%d.md" % page, "# Page %d\n\nRevision %d.\n\n%s\n" % (page, i, body)


def markdown_start(pages):
    return {"docs/index.md": "# Generated\n\n" + "".join(
        "- [Page %d](page%d.md)\n" % (p, p) for p in range(pages))}


def sphinx_page(page, i):
    title = "Page %d" % page
    body = " ".join(hashlib.sha256(b"%d-%d" % (i, k)).hexdigest() for k in range(40))
    return ("docs/page%d.rst" % page,
            "%s\n%s\n\nRevision %d.\n\nSection\n-------\n\n%s\n" % (title, "=" * len(title),
                                                                    i, body))


def sphinx_start(pages):
    return {".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
                                 "    python: \"3.12\"\nsphinx:\n  configuration: docs/conf.py\n",
            "docs/conf.py": "project = 'Generated'\nextensions = ['sphinx.ext.todo']\n",
            "docs/index.rst": "Generated\n=========\n\n.. toctree::\n   :maxdepth: 1\n\n" +
                              "".join("   page%d\n" % p for p in range(pages))}


def fast_import(repo, n, pages=50, page_of=markdown_page, start=markdown_start):
    run("git", "init", "-q", "-b", "main", repo)
    out = []
    for i in range(n):
        path, text = page_of(i % pages, i)
        text = text.encode()
        out.append(b"commit refs/heads/main\nmark :%d\n" % (i + 1))
        out.append(b"committer Bench <b@example.test> %d +0000\n" % (1700000000 + i))
        out.append(b"data 9\nrevision\n")
        if i:
            out.append(b"from :%d\n" % i)
        else:
            for name, body in start(pages).items():
                out.append(b"M 644 inline %s\ndata %d\n%s\n"
                           % (name.encode(), len(body.encode()), body.encode()))
        out.append(b"M 644 inline %s\ndata %d\n%s\n" % (path.encode(), len(text), text))
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], input=b"".join(out),
                   check=True, env=GIT_ENV)
    run("git", "-C", repo, "checkout", "-q", "-f", "main")


class Server:
    def __init__(self):
        self.data = os.path.join(work, "data")
        self.proc = subprocess.Popen(
            [lectern, "--data", self.data, "serve", "--listen", "127.0.0.1:0",
             "--workers", "1", "--local-repos", work, "--build-timeout", "3600"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        self.base = re.search(r"http://\S+?(?=/?$)", line.strip()).group(0).rstrip("/")
        self.token = subprocess.run([lectern, "--data", self.data, "token", "create", "bench"],
                                    capture_output=True, text=True, check=True).stdout.strip()

    def call(self, method, path, body=None):
        req = urllib.request.Request(self.base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": "Token " + self.token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            data = r.read()
            return json.loads(data) if data else None

    def builds(self, slug):
        return self.call("GET", "/api/v3/projects/%s/builds/" % slug)["results"]

    def wait(self, slug, pred, timeout=3600):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for b in self.builds(slug):
                if pred(b) and b["state"]["code"] in ("finished", "cancelled"):
                    if not b["success"]:
                        raise SystemExit("build %d of %s failed: %s" % (b["id"], slug, b["error"]))
                    return b
            time.sleep(0.05)
        raise SystemExit("no build of %s finished" % slug)

    def served(self, slug, path, needle, timeout=3600):
        """Wait until the docs host serves latest's path with needle in
        it: what a reader meets, the moment the build's output is
        published (its search index is written after)."""
        host = "%s.localhost:%s" % (slug, self.base.rsplit(":", 1)[1])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            c = http.client.HTTPConnection(self.base.split("//")[1].split(":")[0],
                                           int(self.base.rsplit(":", 1)[1]), timeout=30)
            try:
                c.request("GET", "/en/latest/" + path, headers={"Host": host})
                r = c.getresponse()
                if r.status == 200 and needle.encode() in r.read():
                    return
            finally:
                c.close()
            time.sleep(0.01)
        raise SystemExit("%s never served %s" % (slug, path))

    def import_repo(self, name, url):
        start = time.monotonic()
        slug = self.call("POST", "/api/v3/projects/", {"name": name, "repository": {"url": url}})["slug"]
        b = self.wait(slug, lambda b: True)
        return slug, b, time.monotonic() - start

    def command_seconds(self, build_id, prefix):
        db = sqlite3.connect(os.path.join(self.data, "lectern.db"))
        try:
            rows = db.execute("SELECT start_time, end_time FROM build_commands "
                              "WHERE build_id = ? AND command LIKE ?",
                              (build_id, prefix + "%")).fetchall()
        finally:
            db.close()
        return sum((e - s) / 1e6 for s, e in rows)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def clone_checkout(url, name, ref="main"):
    mirror = os.path.join(work, name + ".git")
    tree = os.path.join(work, name + "-tree")
    t = timed("git", "clone", "-q", "--mirror", url, mirror)
    os.makedirs(tree)
    t += timed("git", "--git-dir", mirror, "--work-tree", tree, "checkout", "-q", "-f", ref, "--", ".")
    return mirror, tree, t


def report(what, lectern_s, hand_s, target, extra=0.0):
    ok = lectern_s <= target * hand_s + extra
    print("%-44s lectern %7.2f s   by hand %7.2f s   ratio %.2f   target <= %.1f x%s: %s"
          "   (load %.2f on %d cores)"
          % (what, lectern_s, hand_s, lectern_s / hand_s, target,
             " + %.0f s" % extra if extra else "", "met" if ok else "MISSED",
             os.getloadavg()[0], os.cpu_count()))


def git_daemon(base):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
                             "--port=%d" % port, "--base-path=" + base, base],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, port


def commit_through_watcher(server, slug, repo, files, message, page, needle):
    """Write files ({path: text}), commit; seconds from the commit made
    until the docs host serves page with needle (the watcher's build of
    the commit published), and that build once finished. The clock
    starts when `git commit` returns, as the by-hand figures start from
    the commit there (git add's index refresh of a large tree is the
    writer's either way)."""
    for path, text in files.items():
        with open(os.path.join(repo, path), "w") as f:
            f.write(text)
    run("git", "-C", repo, "add", "-A")
    run("git", "-C", repo, "commit", "-q", "-m", message)
    start = time.monotonic()
    head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    server.served(slug, page, needle)
    published = time.monotonic() - start
    b = server.wait(slug, lambda b: b.get("commit") == head)
    finished.append(time.monotonic() - start)
    return published, b, head


# Seconds from each commit to its build's end (the search index written
# too), printed beside the figures, which stop when the page is served.
finished = []


def by_hand_update(mirror, tree, head, sphinx, cwd):
    t = timed("git", "--git-dir", mirror, "fetch", "-q")
    t += timed("git", "--git-dir", mirror, "--work-tree", tree, "checkout", "-q", "-f",
               head, "--", ".")
    return t + timed(*sphinx, cwd=cwd)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def generated_sphinx(server):
    """Part 4: a generated Sphinx project with a long history."""
    pages = 80
    repo = os.path.join(work, "gensphinx")
    fast_import(repo, commits, pages, sphinx_page, sphinx_start)
    print("generated sphinx repository: %d commits, %d pages" % (commits, pages))
    slug, b, lectern_s = server.import_repo("Generated Sphinx", "file://" + repo)
    mirror, tree, hand = clone_checkout("file://" + repo, "gensphinx-by-hand")
    doctrees, out = os.path.join(work, "gen-doctrees"), os.path.join(work, "gen-out")
    sphinx = [PY3, "-m", "sphinx", "-T", "-b", "html", "-d", doctrees, "-D",
              "language=en", ".", out]
    cwd = os.path.join(tree, "docs")
    hand += timed(*sphinx, cwd=cwd)
    report("generated sphinx import -> published (cold)", lectern_s, hand, 1.2)
    lec, byh, caches = [], [], []
    for r in range(runs):
        path, text = sphinx_page((r * 7) % pages, commits + r)
        s, b, head = commit_through_watcher(server, slug, repo, {path: text}, "one page",
                                            "page%d.html" % ((r * 7) % pages),
                                            "Revision %d." % (commits + r))
        lec.append(s)
        byh.append(by_hand_update(mirror, tree, head, sphinx, cwd))
        caches.append((b.get("cache") or {}).get("generator"))
    print("  (generator of the watcher's builds: %s)" % json.dumps(caches))
    report("generated sphinx one commit -> published", median(lec), median(byh), 1.0)
    print("  (build finished, search index written: median %.2f s)" % median(finished[-runs:]))
    # BENCH_RUNS new pages, one after the other, each in the toctree.
    index = sphinx_start(pages)["docs/index.rst"]
    lec, byh = [], []
    for r in range(runs):
        index += "   new%d\n" % r
        files = {"docs/new%d.rst" % r: "New %d\n=====\n\nA new page, %d.\n" % (r, r),
                 "docs/index.rst": index}
        s, b, head = commit_through_watcher(server, slug, repo, files, "a new page",
                                            "new%d.html" % r, "A new page, %d." % r)
        lec.append(s)
        byh.append(by_hand_update(mirror, tree, head, sphinx[:4] + ["-a"] + sphinx[4:], cwd))
    print("  (cache of the last new page's build: %s)" % json.dumps(b.get("cache")))
    report("generated sphinx new page -> published", median(lec), median(byh), 0.8)
    print("  (build finished, search index written: median %.2f s)" % median(finished[-runs:]))


server = Server()
try:
    if only != "sphinx":
        # 1. Markdown, local, long history.
        md = os.path.join(work, "markdown")
        fast_import(md, commits)
        objects = subprocess.run(["git", "-C", md, "count-objects", "-v"], capture_output=True,
                                 text=True).stdout
        print("markdown repository: %d commits, %s objects" % (
            commits, re.search(r"in-pack: (\d+)", objects).group(1)))
        slug, b, lectern_s = server.import_repo("Generated", "file://" + md)
        gen = server.command_seconds(b["id"], "lectern markdown")
        _, _, hand = clone_checkout("file://" + md, "md-by-hand")
        report("markdown file:// import -> published", lectern_s, hand + gen, 1.2)
        # 2. The same over git://.
        daemon, port = git_daemon(work)
        try:
            slug2, b2, lectern_s = server.import_repo("Generated Remote",
                                                      "git://127.0.0.1:%d/markdown" % port)
            gen = server.command_seconds(b2["id"], "lectern markdown")
            _, _, hand = clone_checkout("git://127.0.0.1:%d/markdown" % port, "md-git")
            # libgit2's transport, unchanged by this work: bench/realrepo.sh
            # holds the remote target; this is the same repository's figure.
            print("%-44s lectern %7.2f s   by hand %7.2f s   ratio %.2f   (libgit2's "
                  "transport; see bench/realrepo.sh)"
                  % ("markdown git:// import -> published", lectern_s, hand + gen,
                     lectern_s / (hand + gen)))
        finally:
            daemon.terminate()
            daemon.wait()

    generated_sphinx(server)
    # 3. Sphinx's own repository and docs.
    if not sphinx_src:
        print("sphinx: skipped (set BENCH_SPHINX to a clone of sphinx-doc/sphinx)")
        raise SystemExit(0)
    repo = os.path.join(work, "sphinx")
    run("git", "clone", "-q", "--no-checkout", sphinx_src, repo)
    run("git", "-C", repo, "checkout", "-q", "-b", "lectern-bench", "v5.3.0")
    with open(os.path.join(repo, ".readthedocs.yaml"), "w") as f:
        f.write("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                "sphinx:\n  configuration: doc/conf.py\n")
    run("git", "-C", repo, "add", ".readthedocs.yaml")
    run("git", "-C", repo, "commit", "-q", "-m", "Read the Docs")
    run("git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/lectern-bench")
    count = subprocess.run(["git", "-C", repo, "rev-list", "--all", "--count"],
                           capture_output=True, text=True).stdout.strip()
    print("sphinx repository: %s commits" % count)
    slug3, b3, lectern_s = server.import_repo("Sphinx", "file://" + repo)
    mirror, tree, hand = clone_checkout("file://" + repo, "sphinx-by-hand", "lectern-bench")
    doctrees, out = os.path.join(work, "doctrees"), os.path.join(work, "out")
    sphinx = [PY3, "-m", "sphinx", "-T", "-b", "html", "-d", doctrees, "-D", "language=en",
              ".", out]
    hand += timed(*sphinx, cwd=os.path.join(tree, "doc"))
    report("sphinx file:// import -> published", lectern_s, hand, 1.2)
    # One line of one page, committed: published through the watcher;
    # BENCH_RUNS of them, the median.
    lec, byh = [], []
    for r in range(runs):
        page = os.path.join(repo, "doc", "usage", "quickstart.rst")
        with open(page) as f:
            text = f.read() + "\nOne more line, for the bench, %d.\n" % r
        s, b4, head = commit_through_watcher(server, slug3, repo,
                                             {"doc/usage/quickstart.rst": text}, "one line",
                                             "usage/quickstart.html",
                                             "One more line, for the bench, %d." % r)
        lec.append(s)
        hand = timed("git", "--git-dir", mirror, "fetch", "-q")
        hand += timed("git", "--git-dir", mirror, "--work-tree", tree, "checkout", "-q", "-f",
                      head, "--", ".")
        byh.append(hand + timed(*sphinx, cwd=os.path.join(tree, "doc")))
    print("  (cache of the watcher's last build: %s)" % json.dumps(b4.get("cache")))
    report("sphinx one commit -> published (watcher)", median(lec), median(byh), 1.0)
    print("  (build finished, search index written: median %.2f s)" % median(finished[-runs:]))
finally:
    server.stop()
PY
