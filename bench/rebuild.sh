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
#     sphinx` by hand (target <= 1.2 x); then a one-line commit published
#     through the commit watcher, beside `git fetch` + a checkout of the
#     new commit + Sphinx's incremental build on its kept doctrees and pages
#     (target <= 1.5 x by hand + 1 s).
#
# Every Lectern figure goes through a real `lectern serve` with a build
# worker and the commit watcher on, a token on every request. Each figure
# is one run (the imports take minutes); BENCH_COMMITS scales part 1.
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
import urllib.request

lectern, work, commits, sphinx_src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
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


def fast_import(repo, n):
    run("git", "init", "-q", "-b", "main", repo)
    out = []
    for i in range(n):
        page = i % 50
        body = hashlib.sha256(b"%d" % i).hexdigest() * 18
        text = ("# Page %d\n\nRevision %d.\n\n%s\n" % (page, i, body)).encode()
        out.append(b"commit refs/heads/main\nmark :%d\n" % (i + 1))
        out.append(b"committer Bench <b@example.test> %d +0000\n" % (1700000000 + i))
        out.append(b"data 9\nrevision\n")
        if i:
            out.append(b"from :%d\n" % i)
        else:
            index = "# Generated\n\n" + "".join("- [Page %d](page%d.md)\n" % (p, p)
                                                for p in range(50))
            out.append(b"M 644 inline docs/index.md\ndata %d\n%s\n"
                       % (len(index), index.encode()))
        out.append(b"M 644 inline docs/page%d.md\ndata %d\n%s\n" % (page, len(text), text))
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
          % (what, lectern_s, hand_s, lectern_s / hand_s, target,
             " + %.0f s" % extra if extra else "", "met" if ok else "MISSED"))


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


server = Server()
try:
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
    # One line of one page, committed: published through the watcher.
    page = os.path.join(repo, "doc", "usage", "quickstart.rst")
    with open(page, "a") as f:
        f.write("\nOne more line.\n")
    start = time.monotonic()
    run("git", "-C", repo, "commit", "-q", "-am", "one line")
    head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    b4 = server.wait(slug3, lambda b: b.get("commit") == head)
    lectern_s = time.monotonic() - start
    hand = timed("git", "--git-dir", mirror, "fetch", "-q")
    hand += timed("git", "--git-dir", mirror, "--work-tree", tree, "checkout", "-q", "-f",
                  head, "--", ".")
    hand += timed(*sphinx, cwd=os.path.join(tree, "doc"))
    print("  (cache of the watcher's build: %s)" % json.dumps(b4.get("cache")))
    report("sphinx one commit -> published (watcher)", lectern_s, hand, 1.5, 1.0)
finally:
    server.stop()
PY
