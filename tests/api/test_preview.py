"""`lectern preview DIR`: the writers' preview loop, driven as a writer
would drive it. A real preview process per test class on a temporary tree;
files are edited on disk and the test polls the preview's HTTP server
until the new text is served (with a deadline). Covered: the first stdout
line, pages with the reload script, the status endpoint and its event
stream, edits, new directories, untracked files of a git checkout, bursts
coalesced, ignored paths, a broken configuration keeping the last good
output, the HTTP edges (404, 405, HEAD, a foreign Host), Sphinx rebuilds
and failures, MkDocs rebuilds, and a clean stop on SIGTERM with an event stream open (exit
0, no sanitizer report)."""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from fixtures import git, make_repo
from lectern_test import LECTERN, SERVER_TIMEOUT, main

# How long a rebuild may take to show (a sanitizer build is slow).
DEADLINE = 30
# Quiet time after which no further build may start on its own.
SETTLE = 0.6
STATUS_KEYS = ["changed", "duration_ms", "error", "generation", "generator",
               "log", "published", "state", "warning_counts", "warnings"]
SCRIPT_MARK = b'<script id="lectern-preview">'


def have_sphinx():
    return subprocess.run(["/usr/bin/python3", "-m", "sphinx", "--version"],
                          capture_output=True).returncode == 0


def write(tree, rel, text):
    path = os.path.join(tree, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class Preview:
    """A `lectern preview` process on tree; stdout goes to a file (the
    test reads the first line from it), so a chatty build never blocks on
    a full pipe."""

    def __init__(self, tree, *args, env=None):
        self.dir = tempfile.mkdtemp(prefix="lectern-preview-")
        self.out = open(os.path.join(self.dir, "stdout"), "w+")
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.proc = subprocess.Popen([LECTERN, "preview", tree, *args],
                                     stdout=self.out, stderr=self.err,
                                     env=env)
        deadline = time.time() + SERVER_TIMEOUT
        line = ""
        while time.time() < deadline and not line.endswith("\n"):
            with open(self.out.name) as f:
                line = f.readline()
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        m = re.fullmatch(r"preview: http://127\.0\.0\.1:(\d+)/\n", line)
        if not m:
            self.stop()
            raise RuntimeError("preview did not start: %r %s" % (line, self.stderr()))
        self.port = int(m.group(1))

    def stdout(self):
        with open(self.out.name) as f:
            return f.read()

    def stderr(self):
        with open(self.err.name) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(SERVER_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return -1
        return self.proc.returncode

    def cleanup(self):
        self.out.close()
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def request(self, method, path, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        result = (resp.status, dict(resp.getheaders()), resp.read())
        conn.close()
        return result

    def get(self, path):
        return self.request("GET", path)

    def status(self):
        status, headers, body = self.get("/_/preview/status")
        assert status == 200, (status, body)
        return json.loads(body)


class PreviewTestCase(unittest.TestCase):
    TREE = {}
    ARGS = ()
    ENV = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-preview-test-")
        cls.tree = cls.make_tree()
        cls.cache = os.path.join(cls.tmp, "cache")
        cls.preview = Preview(cls.tree, *cls.args(), env=cls.ENV)

    @classmethod
    def make_tree(cls):
        tree = os.path.join(cls.tmp, "tree")
        for rel, text in cls.TREE.items():
            write(tree, rel, text)
        return tree

    @classmethod
    def args(cls):
        return ("--cache", os.path.join(cls.tmp, "cache")) + tuple(cls.ARGS)

    @classmethod
    def tearDownClass(cls):
        # An open event stream must not hold up the stop.
        conn = http.client.HTTPConnection("127.0.0.1", cls.preview.port, timeout=30)
        conn.request("GET", "/_/preview/events")
        resp = conn.getresponse()
        resp.fp.readline()
        status = cls.preview.stop()
        conn.close()
        out, err = cls.preview.stdout(), cls.preview.stderr()
        cls.preview.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if status != 0:
            raise AssertionError("preview exited %s: %s %s" % (status, out, err))
        if "Sanitizer" in err or "runtime error" in err:
            raise AssertionError("sanitizer report:\n" + err)
        if not out.rstrip().endswith("preview: stopping"):
            raise AssertionError("no clean stop: " + out[-500:])

    def wait_for(self, what, predicate):
        """Poll predicate() until it returns a true value."""
        deadline = time.time() + DEADLINE
        while time.time() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.02)
        self.fail("timed out waiting for %s; status %s; stdout %s" % (
            what, self.preview.status(), self.preview.stdout()[-2000:]))

    def settled(self):
        """The status once no build is pending or running."""
        def quiet():
            before = self.preview.status()
            if before["state"] == "building":
                return None
            time.sleep(SETTLE)
            after = self.preview.status()
            return after if after == before else None
        return self.wait_for("the preview to settle", quiet)

    def wait_served(self, path, text):
        def served():
            status, headers, body = self.preview.get(path)
            return (status, headers, body) if status == 200 and text in body else None
        return self.wait_for("%r in %s" % (text, path), served)


class MarkdownPreviewTest(PreviewTestCase):
    TREE = {
        "index.md": "# Home\n\nWelcome home.\n",
        "guide/index.md": "# Guide\n\nThe guide.\n",
        "guide/page.md": "# Page\n\nFirst draft.\n",
    }

    @classmethod
    def make_tree(cls):
        # A git checkout: what is committed, modified and untracked is all
        # built as it is on disk.
        repo = make_repo(cls.TREE, root=cls.tmp)
        return repo

    def test_first_build_and_page(self):
        st = self.settled()
        self.assertGreaterEqual(st["published"], 1)
        self.assertEqual(st["generator"], "markdown")
        # No test edits guide/index.md.
        status, headers, body = self.wait_served("/guide/index.html", b"The guide.")
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        self.assertEqual(headers["Cache-Control"], "no-store")
        # The reload script, once, just before </body>, naming the build
        # the page comes from.
        self.assertEqual(body.count(SCRIPT_MARK), 1)
        self.assertIn(b"})();</script></body>", body)
        self.assertIn(b'new EventSource("/_/preview/events")', body)
        m = re.search(rb"var g=(\d+);", body)
        self.assertIsNotNone(m)
        self.assertEqual(int(m.group(1)), self.preview.status()["published"])
        status, _, body = self.preview.get("/")
        self.assertEqual(status, 200)
        self.assertIn(b"<h1", body)
        self.assertIn(SCRIPT_MARK, body)
        # Stylesheets go out untouched.
        status, headers, body = self.preview.get("/_lectern/site.css")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/css")
        self.assertNotIn(SCRIPT_MARK, body)
        # A directory without the slash: to its index, with the slash.
        status, headers, _ = self.preview.get("/guide")
        self.assertEqual(status, 302)
        self.assertEqual(headers["Location"], "/guide/")
        self.assertIn(b"The guide.", self.preview.get("/guide/")[2])

    def test_first_stdout_lines(self):
        out = self.preview.stdout()
        lines = out.splitlines()
        self.assertEqual(lines[0], "preview: http://127.0.0.1:%d/" % self.preview.port)
        self.assertTrue(lines[1].startswith("preview: watching %s;" % os.path.realpath(self.tree)),
                        lines[1])
        self.assertIn("preview:   $ lectern markdown . $READTHEDOCS_OUTPUT/html", lines)
        self.assertRegex(out, r"preview: ready in \d+ ms \(markdown, build 1\)")
        # No .readthedocs.yaml: built, and said once (not at each rebuild)
        # that the hosted service refuses it, in its words.
        self.assertRegex(out, r"(?m)^preview: the hosted service refuses this: Config file "
                              r"not found at default path: The required \.readthedocs\.yaml ")
        self.assertEqual(out.count("the hosted service refuses this"), 1, out)

    def test_edit_is_served(self):
        before = self.settled()
        write(self.tree, "guide/page.md", "# Page\n\nSecond draft.\n")
        self.wait_served("/guide/page.html", b"Second draft.")
        st = self.settled()
        self.assertEqual(sorted(st), STATUS_KEYS)
        self.assertEqual(st["state"], "ready")
        self.assertEqual(st["changed"], ["guide/page.md"])
        self.assertIsNone(st["error"])
        self.assertIsNone(st["log"])
        self.assertEqual(st["generator"], "markdown")
        self.assertEqual(st["generation"], before["generation"] + 1)
        self.assertEqual(st["published"], st["generation"])
        self.assertIsInstance(st["duration_ms"], int)

    def test_status_body(self):
        st = self.settled()
        status, headers, body = self.preview.get("/_/preview/status")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "application/json")
        self.assertEqual(headers["Cache-Control"], "no-store")
        keys = [k for k, _ in json.loads(body, object_pairs_hook=lambda p: p)]
        self.assertEqual(keys, STATUS_KEYS)
        self.assertEqual(json.loads(body), st)

    def test_untracked_file_and_new_directory(self):
        self.settled()
        write(self.tree, "notes/new.md", "# New\n\nNot committed.\n")
        self.wait_served("/notes/new.html", b"Not committed.")
        # The new directory is watched: a later edit in it rebuilds.
        write(self.tree, "notes/new.md", "# New\n\nEdited in a new dir.\n")
        self.wait_served("/notes/new.html", b"Edited in a new dir.")
        status, _, _ = self.preview.get("/notes/gone.html")
        self.assertEqual(status, 404)
        # Deleting a page removes it from the preview.
        os.unlink(os.path.join(self.tree, "notes/new.md"))
        self.wait_for("new.html to go",
                      lambda: self.preview.get("/notes/new.html")[0] == 404)

    def test_events_after_rebuild(self):
        self.settled()
        conn = http.client.HTTPConnection("127.0.0.1", self.preview.port, timeout=DEADLINE)
        conn.request("GET", "/_/preview/events")
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        self.assertEqual(resp.getheader("Cache-Control"), "no-store")

        def event():
            fields = {}
            while True:
                line = resp.fp.readline().decode("utf-8")
                if line == "":
                    self.fail("event stream ended")
                if line == "\n":
                    if "data" in fields:
                        return fields
                    continue
                if line.startswith(":"):
                    continue
                key, _, value = line.rstrip("\n").partition(": ")
                fields[key] = value
        first = event()
        self.assertEqual(first["event"], "status")
        self.assertEqual(first["retry"], "1000")
        now = json.loads(first["data"])
        self.assertEqual(now, self.preview.status())
        write(self.tree, "index.md", "# Home\n\nWelcome back.\n")
        states = []
        while True:
            data = json.loads(event()["data"])
            states.append(data["state"])
            if data["state"] == "ready":
                break
        conn.close()
        self.assertEqual(states, ["building", "ready"])
        self.assertEqual(data["generation"], now["generation"] + 1)
        self.assertEqual(data["changed"], ["index.md"])
        self.assertIn(b"Welcome back.", self.preview.get("/")[2])

    def test_burst_is_coalesced(self):
        before = self.settled()
        for i in range(20):
            write(self.tree, "guide/page.md", "# Page\n\nBurst %d.\n" % i)
        self.wait_served("/guide/page.html", b"Burst 19.")
        after = self.settled()
        builds = after["generation"] - before["generation"]
        self.assertGreaterEqual(builds, 1)
        self.assertLessEqual(builds, 2)

    def test_ignored_paths_do_not_build(self):
        before = self.settled()
        write(self.tree, ".git/lectern-test", "x")
        write(self.tree, "_build/html/index.md", "x")
        write(self.tree, "guide/.page.md.swp", "x")
        write(self.tree, "guide/page.md~", "x")
        write(self.tree, "node_modules/pkg/readme.md", "x")
        # What Python writes as a build imports the project (issue 43,
        # item 11): it built again after each such build.
        write(self.tree, "guide/__pycache__/mod.cpython-311.pyc", "x")
        write(self.tree, "guide.egg-info/PKG-INFO", "x")
        time.sleep(SETTLE)
        self.assertEqual(self.settled()["generation"], before["generation"])

    def test_temporary_file_is_no_reason(self):
        # `sed -i` writes a temporary file beside the page and renames it
        # over the page: the rebuild's reason is the page, never the
        # temporary name (issue 43, item 11); a file that came and went
        # within a burst builds nothing.
        before = self.settled()
        subprocess.run(["sed", "-i", "s/The guide./The sed guide./",
                        os.path.join(self.tree, "guide/index.md")], check=True)
        self.wait_served("/guide/index.html", b"The sed guide.")
        after = self.settled()
        self.assertEqual(after["changed"], ["guide/index.md"])
        self.assertNotIn("guide/sed", self.preview.stdout())
        tmp = os.path.join(self.tree, "guide", "draft.tmp")
        with open(tmp, "w") as f:
            f.write("x")
        os.unlink(tmp)
        time.sleep(SETTLE)
        self.assertEqual(self.settled()["generation"], after["generation"])

    def test_broken_config_keeps_old_output(self):
        before = self.settled()
        old = self.preview.get("/index.html")[2]
        write(self.tree, ".readthedocs.yaml", "version: 2\nbuild: [\n")
        write(self.tree, "index.md", "# Home\n\nNever shown.\n")
        st = self.wait_for("the failed build", lambda: (
            lambda s: s if s["state"] == "failed" else None)(self.preview.status()))
        self.assertTrue(st["error"].startswith(
            "Problem in your project's configuration. .readthedocs.yaml:3: "), st)
        self.assertEqual(st["published"], before["published"])
        self.assertEqual(st["generation"], before["generation"] + 1)
        self.assertEqual(self.preview.get("/index.html")[2], old)
        self.assertIn("still serving build %d" % before["published"],
                      self.preview.stdout())
        # Fixed: the next save builds and publishes.
        os.unlink(os.path.join(self.tree, ".readthedocs.yaml"))
        self.wait_served("/index.html", b"Never shown.")
        self.assertEqual(self.settled()["state"], "ready")

    def test_http_edges(self):
        self.settled()
        status, headers, body = self.preview.get("/no/such/page.html")
        self.assertEqual(status, 404)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        self.assertIn(SCRIPT_MARK, body)
        status, headers, body = self.preview.request("POST", "/index.html")
        self.assertEqual(status, 405)
        self.assertEqual(headers["Allow"], "GET, HEAD")
        status, headers, body = self.preview.request("HEAD", "/index.html")
        self.assertEqual(status, 200)
        self.assertEqual(body, b"")
        status, _, body = self.preview.request(
            "GET", "/index.html", headers={"Host": "evil.example:%d" % self.preview.port})
        self.assertEqual(status, 400)
        self.assertNotIn(b"Welcome", body)
        status, _, body = self.preview.request(
            "GET", "/index.html", headers={"Host": "localhost:%d" % self.preview.port})
        self.assertEqual(status, 200)
        # Nothing outside the site is reachable.
        status, _, body = self.preview.get("/../../../etc/passwd")
        self.assertEqual(status, 404)
        status, _, body = self.preview.get("/%2e%2e/%2e%2e/etc/passwd")
        self.assertEqual(status, 404)


@unittest.skipUnless(have_sphinx(), "needs /usr/bin/python3 -m sphinx")
class SphinxPreviewTest(PreviewTestCase):
    TREE = {
        "docs/conf.py": "project = 'Tiny'\nhtml_theme = 'alabaster'\n",
        "docs/index.rst": "Tiny\n====\n\n.. toctree::\n\n   one\n\nHello.\n",
        "docs/one.rst": "One\n===\n\nFirst paragraph.\n",
    }

    @classmethod
    def args(cls):
        # No --cache: the default one, under XDG_RUNTIME_DIR.
        return ()

    @classmethod
    def setUpClass(cls):
        cls.xdg = tempfile.mkdtemp(prefix="lectern-preview-xdg-")
        cls.ENV = dict(os.environ, XDG_RUNTIME_DIR=cls.xdg)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls.xdg, ignore_errors=True)

    def test_default_cache_under_runtime_dir(self):
        self.settled()
        caches = os.listdir(os.path.join(self.xdg, "lectern", "preview"))
        self.assertEqual(len(caches), 1)
        self.assertRegex(caches[0], r"^[0-9a-f]{16}$")
        cache = os.path.join(self.xdg, "lectern", "preview", caches[0])
        self.assertTrue(os.path.exists(os.path.join(cache, "doctrees", "environment.pickle")))
        self.assertTrue(os.path.islink(os.path.join(cache, "site")))

    def test_edit_rebuilds(self):
        st = self.settled()
        self.assertEqual(st["generator"], "sphinx")
        self.wait_served("/one.html", b"paragraph.")
        write(self.tree, "docs/one.rst", "One\n===\n\nSecond paragraph.\n")
        status, headers, body = self.wait_served("/one.html", b"Second paragraph.")
        self.assertIn(SCRIPT_MARK, body)
        st = self.settled()
        self.assertEqual(st["changed"], ["docs/one.rst"])
        self.assertEqual(st["state"], "ready")

    def test_sphinx_failure_keeps_old_output(self):
        self.settled()
        good = self.wait_served("/index.html", b"Hello.")[2]
        write(self.tree, "docs/conf.py", "project = 'Tiny'\nthis is not python\n")
        st = self.wait_for("the failed build", lambda: (
            lambda s: s if s["state"] == "failed" else None)(self.preview.status()))
        # The cause from Sphinx's own output first, then the command.
        self.assertRegex(st["error"], r'^\S.* \(command "python -m sphinx -T -b html -d '
                                      r'\S+/doctrees -D language=en \. \$READTHEDOCS_OUTPUT/html" '
                                      r'failed with exit code 2\)$')
        self.assertIn("this", st["error"])
        self.assertIn("conf.py", st["log"])
        self.assertEqual(self.preview.get("/index.html")[2], good)
        write(self.tree, "docs/conf.py", "project = 'Tiny'\nhtml_theme = 'alabaster'\n")
        self.wait_for("the repaired build", lambda: self.preview.status()["state"] == "ready")


def have_mkdocs():
    return subprocess.run(["/usr/bin/python3", "-m", "mkdocs", "--version"],
                          capture_output=True).returncode == 0


@unittest.skipUnless(have_mkdocs(), "needs /usr/bin/python3 -m mkdocs")
class MkDocsPreviewTest(PreviewTestCase):
    TREE = {
        "mkdocs.yml": "site_name: Tiny\nnav:\n  - Home: index.md\n  - Guide: guide.md\n",
        "docs/index.md": "# Tiny\n\nHello from MkDocs.\n",
        "docs/guide.md": "# Guide\n\nFirst guide text.\n",
    }

    def test_edit_rebuilds(self):
        st = self.settled()
        self.assertEqual(st["generator"], "mkdocs")
        self.wait_served("/guide/", b"First guide text.")
        write(self.tree, "docs/guide.md", "# Guide\n\nSecond guide text.\n")
        status, headers, body = self.wait_served("/guide/", b"Second guide text.")
        self.assertEqual(body.count(SCRIPT_MARK), 1)
        st = self.settled()
        self.assertEqual(st["changed"], ["docs/guide.md"])
        self.assertIn("preview:   $ python -m mkdocs build --clean --site-dir "
                      "$READTHEDOCS_OUTPUT/html --config-file mkdocs.yml",
                      self.preview.stdout())


class PreviewCommandLineTest(unittest.TestCase):

    def run_lectern(self, *args):
        return subprocess.run([LECTERN, *args], capture_output=True, text=True, timeout=60)

    def test_bad_arguments(self):
        r = self.run_lectern("preview", "/nonexistent/lectern-tree")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertIn("/nonexistent/lectern-tree: no such directory", r.stderr)
        r = self.run_lectern("preview", ".", "--port", "70000")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--port wants 0 to 65535, got '70000'", r.stderr)
        r = self.run_lectern("preview", ".", "--bogus")
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown option '--bogus'", r.stderr)
        r = self.run_lectern("preview", "a", "b")
        self.assertEqual(r.returncode, 1)
        self.assertIn("one directory only", r.stderr)


if __name__ == "__main__":
    main()
