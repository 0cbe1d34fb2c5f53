"""Builds of real repositories through a real `lectern serve` (issue 13):
a long history made with `git fast-import` is cloned over smart HTTP
(`git http-backend` behind a loopback server) with a live `progress` on the
running build and a log of a few lines, then fetched incrementally; git://
clones from `git daemon`; a Sphinx project's extension and theme come from
wheels made at test time (python.install, a virtualenv reused by the next
build); a generator's or pip's failure names its cause in the build's
`error`; and bad input (a URL that does not exist, an empty repository, one
with no docs, a corrupt pack, a server that never answers, an install that
hangs) fails the build with a readable `error`, keeps the last good docs
published, leaves the mirror usable and does not hold other projects' builds
past the deadline."""
import base64
import hashlib
import http.server
import io
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import tarfile
import tempfile
import threading
import time
import unittest
import zipfile

import fixtures
from lectern_test import Server, ServerTestCase, main

BUILD_WAIT = 150
# The clone step's recorded output stays under this whatever the size.
CLONE_OUTPUT_CAP = 16 * 1024


# Repositories ------------------------------------------------------------------

def fast_import(repo, commits, start=0, parent=None, branch="main", payload=1200):
    """Append `commits` commits to branch with `git fast-import`, each
    rewriting one of 50 Markdown pages under docs/ with `payload` bytes of
    text that neither compresses nor deltas much. Returns the tip's id."""
    out = []
    ident = "Fixture <f@example.test>"
    for i in range(start, start + commits):
        page = i % 50
        words = hashlib.sha256(b"%d" % i).hexdigest()
        body = "".join(hashlib.sha256(("%s%d" % (words, k)).encode()).hexdigest() + "\n"
                       for k in range(payload // 65))
        text = "# Page %d\n\nRevision %d.\n\n%s" % (page, i, body)
        data = text.encode()
        msg = b"revision %d\n" % i
        out.append(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), i + 1))
        out.append(b"committer %s %d +0000\n" % (ident.encode(), 1700000000 + i))
        out.append(b"data %d\n%s" % (len(msg), msg))
        if i == start and parent:
            out.append(b"from %s\n" % parent.encode())
        elif i > start:
            out.append(b"from :%d\n" % i)
        if i == 0:
            index = "# Long History\n\n" + "".join("- [Page %d](page%d.md)\n" % (p, p) for p in range(50))
            out.append(b"M 644 inline docs/index.md\ndata %d\n%s\n" % (len(index), index.encode()))
        out.append(b"M 644 inline docs/page%d.md\ndata %d\n%s\n" % (page, len(data), data))
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], input=b"".join(out), check=True,
                   env=fixtures.GIT_ENV)
    return rev_parse(repo, branch)


def rev_parse(repo, rev):
    return subprocess.run(["git", "-C", repo, "rev-parse", rev], check=True, capture_output=True,
                          text=True).stdout.strip()


def bare_repo(root, name):
    path = os.path.join(root, name)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", path], check=True, env=fixtures.GIT_ENV)
    return path


def object_count(repo):
    # Every object fast-import wrote is reachable from main: the clone
    # receives exactly these.
    out = subprocess.run(["git", "-C", repo, "count-objects", "-v"], check=True, capture_output=True,
                         text=True).stdout
    counts = dict(line.split(": ") for line in out.splitlines())
    return int(counts["count"]) + int(counts["in-pack"])


def commit_files(repo, files, message):
    """A new commit on a fixtures.make_repo working tree."""
    for path, text in files.items():
        full = os.path.join(repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    fixtures.git(repo, "add", "-A")
    fixtures.git(repo, "commit", "-q", "-m", message)
    return rev_parse(repo, "HEAD")


# Wheels ------------------------------------------------------------------------

def write_wheel(directory, name, files, entry_points=""):
    """A pure-Python wheel written directly (no build backend, no index):
    files {path: text}, with METADATA, WHEEL, entry points and RECORD."""
    dist = name.replace("-", "_")
    info = "%s-1.0.dist-info" % dist
    files = dict(files)
    files[info + "/METADATA"] = "Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % name
    files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: lectern-test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n")
    if entry_points:
        files[info + "/entry_points.txt"] = entry_points
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (path, digest.decode(), len(text.encode())))
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = "\n".join(record) + "\n"
    path = os.path.join(directory, "%s-1.0-py3-none-any.whl" % dist)
    with zipfile.ZipFile(path, "w") as z:
        for name_, text in files.items():
            z.writestr(name_, text)
    os.chmod(path, 0o644)
    return path


EXTENSION = {
    "lectern_fixture_ext/__init__.py": (
        "from docutils import nodes\n"
        "from sphinx.util.docutils import SphinxDirective\n\n"
        "class Stamp(SphinxDirective):\n"
        "    def run(self):\n"
        "        return [nodes.paragraph(text='Stamped by lectern_fixture_ext.')]\n\n"
        "def setup(app):\n"
        "    app.add_directive('fixture-stamp', Stamp)\n"
        "    return {'version': '1.0', 'parallel_read_safe': True}\n"),
}
THEME = {
    "lectern_fixture_theme/__init__.py": (
        "import os\n\n"
        "def setup(app):\n"
        "    app.add_html_theme('lectern_fixture_theme', os.path.dirname(__file__))\n"),
    "lectern_fixture_theme/theme.conf": "[theme]\ninherit = basic\nstylesheet = basic.css\n",
    "lectern_fixture_theme/layout.html": (
        '{% extends "basic/layout.html" %}\n'
        '{% block extrahead %}<meta name="lectern-fixture-theme" content="used">{% endblock %}\n'),
}
THEME_ENTRY = "[sphinx.html_themes]\nlectern_fixture_theme = lectern_fixture_theme\n"

SPHINX_WITH_DEPS = {
    ".readthedocs.yaml": ("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                          "sphinx:\n  configuration: docs/conf.py\npython:\n  install:\n"
                          "    - requirements: docs/requirements.txt\n"),
    "docs/requirements.txt": "lectern-fixture-ext\nlectern-fixture-theme\n",
    "docs/conf.py": ("project = 'Dependent'\nextensions = ['lectern_fixture_ext']\n"
                     "html_theme = 'lectern_fixture_theme'\n"),
    "docs/index.rst": "Dependent\n=========\n\n.. fixture-stamp::\n\nHello.\n",
}


# Servers -----------------------------------------------------------------------

class GitHTTP:
    """Smart HTTP for every repository under root: `git http-backend` run as
    a CGI program by a loopback server. Faults per repository name: slow
    (seconds to wait between 32 KiB of an upload-pack response) and corrupt
    (one byte of the pack in the response flipped)."""

    CHUNK = 32 * 1024

    def __init__(self, root):
        self.root = root
        self.slow = {}
        self.corrupt = set()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.serve(self)

            def do_POST(self):
                outer.serve(self)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name):
        return "http://127.0.0.1:%d/%s" % (self.port, name)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def read_body(h):
        if h.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(h.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    h.rfile.readline()
                    return body
                body += h.rfile.read(size)
                h.rfile.readline()
        return h.rfile.read(int(h.headers.get("Content-Length") or 0))

    def serve(self, h):
        path, _, query = h.path.partition("?")
        body = self.read_body(h) if h.command == "POST" else b""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": self.root,
               "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path, "QUERY_STRING": query,
               "REQUEST_METHOD": h.command, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": h.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null"}
        for header, var in (("Content-Encoding", "HTTP_CONTENT_ENCODING"), ("Git-Protocol", "GIT_PROTOCOL")):
            if h.headers.get(header):
                env[var] = h.headers[header]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.split(b"\r\n"):
            key, _, value = line.decode("latin-1").partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key, value.strip()))
        repo = path.strip("/").split("/")[0]
        if path.endswith("/git-upload-pack") and repo in self.corrupt:
            payload = self.flip_pack_byte(payload)
        h.send_response(status)
        for key, value in headers:
            h.send_header(key, value)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        delay = self.slow.get(repo, 0) if path.endswith("/git-upload-pack") else 0
        try:
            for i in range(0, len(payload), self.CHUNK):
                h.wfile.write(payload[i:i + self.CHUNK])
                h.wfile.flush()
                time.sleep(delay)
        except OSError:
            pass

    @staticmethod
    def flip_pack_byte(payload):
        """Flip the middle byte of the pack in side-band channel 1."""
        spans, at = [], 0
        while at + 4 <= len(payload):
            size = int(payload[at:at + 4], 16)
            if size >= 5 and payload[at + 4] == 1:
                spans.append((at + 5, at + size))
            at += max(size, 4)
        total = sum(end - start for start, end in spans)
        want = total // 2
        data = bytearray(payload)
        for start, end in spans:
            if want < end - start:
                data[start + want] ^= 0xff
                break
            want -= end - start
        return bytes(data)


class Staller:
    """A loopback TCP server that accepts connections and never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                self.held.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


# Tests -------------------------------------------------------------------------

class RealRepoCase(ServerTestCase):
    SERVER_ARGS = ("--workers", "2", "--build-timeout", "120")
    ENV = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-realrepo-")
        os.chmod(cls.tmp, 0o755)
        cls.git_root = os.path.join(cls.tmp, "git")
        os.mkdir(cls.git_root)
        cls.http = GitHTTP(cls.git_root)
        cls.prepare()
        args = cls.SERVER_ARGS + ("--local-repos", cls.tmp)
        cls.server = Server(*args, env=cls.ENV)
        cls.token = cls.server.token("writer")

    @classmethod
    def prepare(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        cls.http.close()
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def import_repo(self, name, url):
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": url}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def build_json(self, slug, build_id):
        r = self.server.get("/api/v3/projects/%s/builds/%d/" % (slug, build_id), token=self.token)
        self.assertStatus(r, 200)
        return r.json

    def first_build(self, slug):
        builds = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]
        self.assertTrue(builds, slug)
        return builds[-1]["id"]

    def trigger(self, slug):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        self.assertStatus(r, 202)
        return r.json["build"]["id"]

    def wait_build(self, slug, build_id, seen=None):
        """The finished build; seen (a list) collects every progress object
        a poll of the running build showed."""
        deadline = time.time() + BUILD_WAIT
        while time.time() < deadline:
            build = self.build_json(slug, build_id)
            if build["state"]["code"] in ("finished", "cancelled"):
                self.assertNotIn("progress", build)
                return build
            if seen is not None and "progress" in build:
                seen.append(build["progress"])
            time.sleep(0.02 if seen is not None else 0.2)
        self.fail("build %d of %s did not finish" % (build_id, slug))

    def commands(self, build_id):
        db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        try:
            return db.execute("SELECT command, output, exit_code, start_time, end_time FROM build_commands"
                              " WHERE build_id = ? ORDER BY id", (build_id,)).fetchall()
        finally:
            db.close()

    def build_times(self, build_id):
        """(started, finished) of a build as the server recorded them."""
        db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        try:
            return db.execute("SELECT started, finished FROM builds WHERE id = ?",
                              (build_id,)).fetchone()
        finally:
            db.close()

    def published(self, slug, *path):
        return os.path.join(self.server.data, "published", slug, "latest", *path)

    def read_published(self, slug, *path):
        with open(self.published(slug, "html", *path)) as f:
            return f.read()

    def assertBuilt(self, build):
        self.assertTrue(build["success"], (build, [c[:3] for c in self.commands(build["id"])]))

    def assertReadableError(self, build, *needles):
        """Failed, with an error of one printable line naming each needle."""
        self.assertFalse(build["success"], build)
        error = build["error"]
        self.assertIsInstance(error, str)
        self.assertNotIn("\x1b", error)
        self.assertNotIn("\n", error)
        self.assertLess(len(error), 600, error)
        for needle in needles:
            self.assertIn(needle.lower(), error.lower(), error)
        return error


class LongHistoryTest(RealRepoCase):
    @classmethod
    def prepare(cls):
        cls.repo = bare_repo(cls.git_root, "history.git")
        cls.tip = fast_import(cls.repo, 3000)
        cls.objects = object_count(cls.repo)
        # About 3 MB of pack sent at about 1.5 MB/s: a second or two of
        # receiving to watch.
        cls.http.slow["history.git"] = 0.02

    def test_long_history_clones_with_progress_then_fetches_incrementally(self):
        self.assertGreater(self.objects, 12000)
        slug = self.import_repo("Long History", self.http.url("history.git"))
        seen = []
        build = self.wait_build(slug, self.first_build(slug), seen)
        self.assertBuilt(build)
        self.assertEqual(build["commit"], self.tip)
        self.assertIn("Revision 2999.", self.read_published(slug, "page49.html"))
        # docs/ is the site's root: served at /en/latest/<page>.html.
        r = self.server.get("/en/latest/page49.html", host="%s.localhost:%d" % (slug, self.server.port))
        self.assertStatus(r, 200)
        self.assertIn(b"Revision 2999.", r.body)
        # The running build showed its progress while it cloned.
        self.assertTrue(seen, "no progress seen on the running build")
        for p in seen:
            self.assertEqual(set(p), {"phase", "objects", "total", "bytes", "percent"}, p)
            self.assertIn(p["phase"], ("receiving", "resolving", "checkout"), p)
        receiving = [p for p in seen if p["phase"] == "receiving"]
        self.assertTrue(receiving, seen)
        self.assertEqual(receiving[-1]["total"], self.objects, receiving[-1])
        self.assertTrue(all(0 <= p["percent"] <= 100 for p in receiving), receiving)
        self.assertTrue(any(p["bytes"] > 0 for p in receiving), receiving)
        # The log: what ran, and one summary line per phase, well under the cap.
        cmds = self.commands(build["id"])
        clone = cmds[0]
        self.assertEqual(clone[0], "git clone --mirror %s repos/%s.git" % (self.http.url("history.git"), slug))
        self.assertEqual(clone[2], 0)
        self.assertLess(len(clone[1].encode()), CLONE_OUTPUT_CAP)
        self.assertIn("Receiving objects: 100%% (%d/%d)" % (self.objects, self.objects), clone[1])
        self.assertLessEqual(len(clone[1].splitlines()), 5, clone[1])
        checkout = [c for c in cmds if c[0].startswith("git checkout --force ")]
        self.assertEqual(len(checkout), 1, cmds)
        self.assertLess(len(checkout[0][1].encode()), CLONE_OUTPUT_CAP)
        clone_us = clone[4] - clone[3]

        # Two new commits: the next build fetches only them.
        tip = fast_import(self.repo, 2, start=3000, parent=self.tip)
        second = self.wait_build(slug, self.trigger(slug))
        self.assertBuilt(second)
        self.assertEqual(second["commit"], tip)
        fetch = self.commands(second["id"])[0]
        self.assertTrue(fetch[0].startswith("git fetch --prune --force %s " % self.http.url("history.git")),
                        fetch)
        received = re.search(r"Receiving objects: 100% \((\d+)/(\d+)\)", fetch[1])
        self.assertTrue(received, fetch[1])
        self.assertLess(int(received.group(2)), 20, fetch[1])
        self.assertLess(fetch[4] - fetch[3], clone_us / 4, (fetch, clone_us))
        self.assertIn("Revision 3001.", self.read_published(slug, "page1.html"))


class TransportsTest(RealRepoCase):
    def test_git_daemon_and_http_clones(self):
        base = os.path.join(self.tmp, "daemon")
        os.mkdir(base)
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=base)
        daemon = fixtures.GitDaemon(base)
        http_repo = fixtures.make_repo(fixtures.MKDOCS, root=self.git_root)
        try:
            over_git = self.import_repo("Over Git", daemon.url(os.path.basename(repo)))
            over_http = self.import_repo("Over HTTP", self.http.url(os.path.basename(http_repo)))
            for slug, page, text in ((over_git, "usage.html", "<td>2</td>"),
                                     (over_http, "guide/index.html", "Some text.")):
                build = self.wait_build(slug, self.first_build(slug))
                self.assertBuilt(build)
                self.assertIn(text, self.read_published(slug, page))
                clone = self.commands(build["id"])[0]
                self.assertTrue(clone[0].startswith("git clone --mirror %s://127.0.0.1:"
                                                    % ("git" if slug == over_git else "http")), clone)
                self.assertRegex(clone[1], r"Receiving objects: 100% \(\d+/\d+\)")
            # A second build over git:// fetches into the same mirror.
            commit_files(repo, {"docs/usage.md": "# Usage\n\nChanged over git.\n"}, "change")
            build = self.wait_build(over_git, self.trigger(over_git))
            self.assertBuilt(build)
            self.assertTrue(self.commands(build["id"])[0][0].startswith("git fetch --prune"))
            self.assertIn("Changed over git.", self.read_published(over_git, "usage.html"))
        finally:
            daemon.close()


class DependenciesTest(RealRepoCase):
    @classmethod
    def prepare(cls):
        cls.wheels = os.path.join(cls.tmp, "wheels")
        os.mkdir(cls.wheels)
        os.chmod(cls.wheels, 0o755)
        write_wheel(cls.wheels, "lectern-fixture-ext", EXTENSION)
        write_wheel(cls.wheels, "lectern-fixture-theme", THEME, THEME_ENTRY)
        cls.ENV = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": cls.wheels}

    def test_sphinx_extension_and_theme_from_wheels(self):
        repo = fixtures.make_repo(SPHINX_WITH_DEPS, root=self.tmp)
        slug = self.import_repo("Dependent", "file://" + repo)
        build = self.wait_build(slug, self.first_build(slug))
        self.assertBuilt(build)
        html = self.read_published(slug, "index.html")
        self.assertIn("Stamped by lectern_fixture_ext.", html)
        self.assertIn('<meta name="lectern-fixture-theme" content="used">', html)
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertTrue(any(c.startswith("python -m venv --system-site-packages --without-pip") for c in cmds),
                        cmds)
        self.assertTrue(any(c.startswith("python -m pip install --no-index") and
                            c.endswith("-r docs/requirements.txt") for c in cmds), cmds)
        venv = os.path.join(self.server.data, "python", slug, "venvs", "latest")
        self.assertTrue(os.path.exists(os.path.join(venv, "bin", "python")))
        wheelhouse = os.listdir(os.path.join(self.server.data, "python", slug, "wheels"))
        self.assertIn("lectern_fixture_theme-1.0-py3-none-any.whl", wheelhouse)
        # A new commit with the same requirements: the venv is kept.
        commit_files(repo, {"docs/index.rst": "Dependent\n=========\n\n.. fixture-stamp::\n\nAgain.\n"},
                     "again")
        second = self.wait_build(slug, self.trigger(slug))
        self.assertBuilt(second)
        rows = self.commands(second["id"])
        self.assertIn(("python -m venv", "Reusing the virtualenv: its requirements are unchanged.\n"),
                      [r[:2] for r in rows])
        self.assertFalse([r[0] for r in rows if "pip" in r[0]], rows)
        html = self.read_published(slug, "index.html")
        self.assertIn("Again.", html)
        self.assertIn("Stamped by lectern_fixture_ext.", html)

    def test_missing_requirement_is_named(self):
        files = dict(SPHINX_WITH_DEPS)
        files["docs/requirements.txt"] = "lectern-fixture-ext\nlectern-no-such-package\n"
        repo = fixtures.make_repo(files, root=self.tmp)
        slug = self.import_repo("Unmet", "file://" + repo)
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build, "lectern-no-such-package", "pip install")
        self.assertFalse(os.path.exists(self.published(slug)))

    def test_missing_mkdocs_plugin_is_named(self):
        files = dict(fixtures.MKDOCS)
        files["mkdocs.yml"] += "plugins:\n  - redirects\n"
        repo = fixtures.make_repo(files, root=self.tmp)
        slug = self.import_repo("Pluginless", "file://" + repo)
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build, '"redirects" plugin is not installed', "mkdocs build")


class BadInputTest(RealRepoCase):
    def assertNextBuildWorks(self, slug, repo):
        """After a failed first import: commits appear and the next build
        clones and publishes them (no half-made mirror in the way)."""
        tip = fast_import(repo, 3)
        build = self.wait_build(slug, self.trigger(slug))
        self.assertBuilt(build)
        self.assertEqual(build["commit"], tip)
        self.assertIn("Revision 2.", self.read_published(slug, "page2.html"))

    def test_url_that_does_not_exist(self):
        slug = self.import_repo("Nowhere", self.http.url("no-such-repo.git"))
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build, "Cloning the repository failed: cannot fetch " +
                                 self.http.url("no-such-repo.git"), "404")
        self.assertFalse(os.path.exists(self.published(slug)))
        # No mirror, and no half-made one: the next clone starts afresh.
        repos = os.listdir(os.path.join(self.server.data, "repos"))
        self.assertNotIn(slug + ".git", repos)
        self.assertNotIn(slug + ".git.new", repos)
        self.assertNextBuildWorks(slug, bare_repo(self.git_root, "no-such-repo.git"))

    def test_empty_repository(self):
        repo = bare_repo(self.git_root, "empty.git")
        slug = self.import_repo("Empty", self.http.url("empty.git"))
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build, "The repository is empty")
        self.assertFalse(os.path.exists(self.published(slug)))
        self.assertNextBuildWorks(slug, repo)

    # No configuration and no Markdown: a readable error, nothing published
    # (not a site of the repository's source files).
    def test_repository_without_docs(self):
        repo = fixtures.make_repo({"src/main.c": "int main(void) { return 0; }\n",
                                   "Makefile": "all:\n\tcc src/main.c\n"}, root=self.git_root)
        slug = self.import_repo("Docless", self.http.url(os.path.basename(repo)))
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build)
        self.assertIn("no documentation", build["error"])
        self.assertFalse(os.path.exists(self.published(slug)))

    def test_failures_keep_the_last_good_docs_and_the_mirror(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=self.git_root)
        name = os.path.basename(repo)
        slug = self.import_repo("Resilient", self.http.url(name))
        build = self.wait_build(slug, self.first_build(slug))
        self.assertBuilt(build)
        good = os.readlink(self.published(slug))
        mirror = os.path.join(self.server.data, "repos", slug + ".git")

        def still_published():
            self.assertEqual(os.readlink(self.published(slug)), good)
            self.assertIn("Markdown Guide", self.read_published(slug, "index.html"))

        # A corrupt pack in the fetch of a new commit.
        tip = commit_files(repo, {"docs/usage.md": "# Usage\n\n" + "Fresh text. " * 200 + "\n"}, "fresh")
        self.http.corrupt.add(name)
        failed = self.wait_build(slug, self.trigger(slug))
        error = self.assertReadableError(failed, "Fetching the repository failed")
        self.assertEqual(self.commands(failed["id"])[0][2], 1)
        still_published()
        self.http.corrupt.discard(name)

        # The repository went away (404).
        os.rename(repo, repo + ".gone")
        failed = self.wait_build(slug, self.trigger(slug))
        self.assertReadableError(failed, "Fetching the repository failed", "404")
        self.assertNotEqual(failed["error"], error)
        still_published()
        os.rename(repo + ".gone", repo)

        # Back: the mirror takes the new commit.
        build = self.wait_build(slug, self.trigger(slug))
        self.assertBuilt(build)
        self.assertEqual(build["commit"], tip)
        self.assertTrue(self.commands(build["id"])[0][0].startswith("git fetch --prune"))
        self.assertIn("Fresh text.", self.read_published(slug, "usage.html"))
        leftovers = [f for f in os.listdir(os.path.join(mirror, "objects", "pack")) if f.startswith("pack_git2_")]
        self.assertEqual(leftovers, [])


class HangingInstallTest(RealRepoCase):
    # The test waits for the limit to pass: a few seconds, room for the
    # clone and the venv before the install hangs.
    SERVER_ARGS = ("--workers", "2", "--build-timeout", "8")
    MARK = "lectern-test-hang-%d" % os.getpid()

    @classmethod
    def prepare(cls):
        # A source distribution whose build never ends.
        cls.dists = os.path.join(cls.tmp, "dists")
        os.mkdir(cls.dists)
        os.chmod(cls.dists, 0o755)
        setup = "import os\nos.system('sleep 600 # %s')\n" % cls.MARK
        path = os.path.join(cls.dists, "lectern-hang-1.0.tar.gz")
        with tarfile.open(path, "w:gz") as tar:
            for name, text in (("setup.py", setup),
                               ("PKG-INFO", "Metadata-Version: 2.1\nName: lectern-hang\nVersion: 1.0\n")):
                info = tarfile.TarInfo("lectern-hang-1.0/" + name)
                info.size = len(text.encode())
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(text.encode()))
        os.chmod(path, 0o644)
        cls.ENV = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": cls.dists}

    def test_install_that_hangs_fails_by_the_deadline(self):
        files = dict(SPHINX_WITH_DEPS)
        files["docs/requirements.txt"] = "lectern-hang\n"
        repo = fixtures.make_repo(files, root=self.tmp)
        slug = self.import_repo("Hanging Install", "file://" + repo)
        build = self.wait_build(slug, self.first_build(slug))
        self.assertReadableError(build, "time limit of 8 seconds")
        self.assertLessEqual(build["duration"], 25, build)
        self.assertTrue(any(c[0].startswith("python -m pip wheel") for c in self.commands(build["id"])))
        self.assertNoProcess(self.MARK, "the hanging install is still running")


class StalledServerTest(RealRepoCase):
    # The stall lasts until the limit, which the builds around it (a
    # small Markdown project) stay well within, under ASan too.
    SERVER_ARGS = ("--workers", "2", "--build-timeout", "5")

    def test_stalled_server_fails_by_the_deadline_without_blocking_others(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=self.git_root)
        url = self.http.url(os.path.basename(repo))
        slug = self.import_repo("Stalled", url)
        self.assertBuilt(self.wait_build(slug, self.first_build(slug)))
        good = os.readlink(self.published(slug))
        staller = Staller()
        try:
            r = self.server.patch("/api/v3/projects/%s/" % slug,
                                  {"repository": {"url": "http://127.0.0.1:%d/stalled.git" % staller.port}},
                                  token=self.token)
            self.assertStatus(r, 204)
            stalled_id = self.trigger(slug)
            deadline = time.time() + 30
            while self.build_json(slug, stalled_id)["state"]["code"] not in ("cloning", "building"):
                self.assertLess(time.time(), deadline)
                time.sleep(0.1)
            # Another project builds meanwhile, on the second worker.
            other = fixtures.make_repo(fixtures.MARKDOWN, root=self.tmp)
            other_slug = self.import_repo("Meanwhile", "file://" + other)
            meanwhile = self.wait_build(other_slug, self.first_build(other_slug))
            self.assertBuilt(meanwhile)
            self.assertTrue(staller.held, "the build never connected to the stalled server")
            stalled = self.wait_build(slug, stalled_id)
        finally:
            staller.close()
        self.assertReadableError(stalled, "Fetching the repository failed", "time limit")
        self.assertLessEqual(stalled["duration"], 25, stalled)
        # The other build ran while the stalled one held its worker: it
        # started (as the server recorded it) before the stalled build
        # ended, however slow the machine.
        self.assertLess(self.build_times(meanwhile["id"])[0],
                        self.build_times(stalled_id)[1])
        self.assertEqual(os.readlink(self.published(slug)), good)
        # The mirror the killed fetch left behind still serves the next build.
        r = self.server.patch("/api/v3/projects/%s/" % slug, {"repository": {"url": url}}, token=self.token)
        self.assertStatus(r, 204)
        tip = commit_files(repo, {"docs/usage.md": "# Usage\n\nAfter the stall.\n"}, "after")
        build = self.wait_build(slug, self.trigger(slug))
        self.assertBuilt(build)
        self.assertEqual(build["commit"], tip)
        self.assertIn("After the stall.", self.read_published(slug, "usage.html"))


if __name__ == "__main__":
    main()
