"""Helpers for Lectern's API tests: start a real `lectern serve` on
127.0.0.1:0 with a temporary data directory, create users and tokens with
`lectern token create`, and make HTTP requests that return the status, the
headers, the raw body bytes and the parsed JSON.

Each test module subclasses ServerTestCase; one server runs per module.
The server must stop cleanly on SIGTERM (exit status 0), so a leak or crash
that a sanitizer build reports fails the test run.
"""
import http.client
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

LECTERN = os.environ.get("LECTERN", "lectern")
# How long the server may take to start or stop; a sanitizer build is slow.
SERVER_TIMEOUT = 30
# How long a killed build's processes may take to be gone.
PROCESS_GONE_SECONDS = 30
# How long a small fixture project's build may take, even under ASan.
BUILD_TIMEOUT = 240
# How often a wait for a build asks again: a test's time is the build's,
# not the wait's (a build's list is answered from the server's cache).
POLL_SECONDS = 0.05
# Options that say a test wants the commit watcher on.
WATCH_ARGS = ("--watch-debounce", "--watch-poll", "--no-inotify")


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def __repr__(self):
        return "<Response %d %r>" % (self.status, self.body[:300])


class Server:
    """A `lectern serve` process with its own data directory."""

    def __init__(self, *args, data=None, env=None):
        """Start a server; data reuses another server's data directory, env
        ({name: value}) adds to its environment."""
        self.dir = tempfile.mkdtemp(prefix="lectern-api-")
        self.data = data or os.path.join(self.dir, "data")
        self.stderr = open(os.path.join(self.dir, "stderr"), "w+")
        # No build workers unless a test asks for them: the projects most
        # tests import point at made-up remote URLs that must never be
        # fetched (tests reach nothing but 127.0.0.1).
        if "--workers" not in args:
            args = args + ("--workers", "0")
        # No commit watcher unless a test asks for it (WATCH_ARGS): tests
        # commit and then trigger builds themselves, and a watcher's build
        # of the same commit would race theirs.
        if not any(a in args for a in WATCH_ARGS):
            args = args + ("--no-watch",)
        # Fixture repositories are made under the temporary directory, so
        # file:// imports of it are allowed unless a test lists its own.
        if "--local-repos" not in args:
            args = args + ("--local-repos", tempfile.gettempdir())
        self.proc = subprocess.Popen(
            [LECTERN, "--data", self.data, "serve", "--listen",
             "127.0.0.1:0", "--threads", "2", *args],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True,
            env=dict(os.environ, **env) if env else None)
        line = self.proc.stdout.readline().strip()
        prefix = "listening on http://"
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError("server did not start: %r %s" % (line, self.log()))
        hostport = line[len(prefix):].rstrip("/")
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)
        self.base = "http://%s" % hostport

    def log(self):
        self.stderr.flush()
        with open(self.stderr.name) as f:
            return f.read()

    def lectern(self, *args, check=True):
        """Run the lectern binary on this server's data directory."""
        done = subprocess.run([LECTERN, "--data", self.data, *args],
                              capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            raise RuntimeError("lectern %s failed: %s" % (args, done.stderr))
        return done

    def token(self, user):
        return self.lectern("token", "create", user).stdout.strip()

    def stop(self):
        """SIGTERM, then the exit status (0 when it stopped cleanly)."""
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
        self.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def request(self, method, path, body=None, token=None, headers=None,
                raw=None, host=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        hdrs = dict(headers or {})
        if token is not None:
            hdrs["Authorization"] = "Token " + token
        if host is not None:
            hdrs["Host"] = host
        data = raw
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        result = Response(resp.status, resp.getheaders(), resp.read())
        conn.close()
        return result

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def login_form(self, host, query=""):
        """The docs login form on host (an API host) as a browser gets it:
        (response, its nonce cookie "lectern_csrf=...", its CSRF token)."""
        r = self.get("/_/login/" + query, host=host)
        cookie = (r.header("Set-Cookie") or "").split(";")[0]
        m = re.search(rb'name="csrf_token" value="([0-9a-f]+)"', r.body)
        return r, cookie, m.group(1).decode() if m else None

    def api_login(self, token, nxt="/"):
        """Log in on the API's host (the dashboard's) as a browser does,
        through the login form: the session cookie "lectern_session=..."."""
        _, cookie, csrf = self.login_form(None, "?next=" + urllib.parse.quote(nxt, safe=""))
        r = self.request(
            "POST", "/_/login/",
            raw=urllib.parse.urlencode({"csrf_token": csrf, "token": token,
                                        "next": nxt}).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": cookie, "Origin": self.base})
        if r.status != 302 or r.header("Location") != nxt:
            raise AssertionError("the login form's post: %s" % r)
        return r.header("Set-Cookie").split(";")[0]

    def browser_login(self, token, docs_host, nxt="/"):
        """Log in to docs_host as a browser does: the docs host sends it to
        the form on the API's host, which sends it back with a ticket.
        Returns (the ticket's URL path on docs_host, the docs host's answer
        to it: a 302 to nxt with the session cookie when all went well)."""
        r = self.get("/_/login/?next=" + urllib.parse.quote(nxt, safe=""),
                     host=docs_host)
        if r.status != 302:
            raise AssertionError("the docs host's login: %s" % r)
        form_url = urllib.parse.urlsplit(r.header("Location"))
        _, cookie, csrf = self.login_form(form_url.netloc, "?" + form_url.query)
        query = dict(urllib.parse.parse_qsl(form_url.query))
        r = self.request(
            "POST", "/_/login/", host=form_url.netloc,
            raw=urllib.parse.urlencode(dict(query, csrf_token=csrf,
                                            token=token)).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": cookie, "Origin": "http://" + form_url.netloc})
        if r.status != 302:
            raise AssertionError("the login form's post: %s" % r)
        ticket_url = urllib.parse.urlsplit(r.header("Location"))
        if ticket_url.netloc != docs_host:
            raise AssertionError("a ticket for %s" % ticket_url.netloc)
        path = ticket_url.path + "?" + ticket_url.query
        return path, self.get(path, host=docs_host)

    def import_project(self, token, name, url="https://github.com/example/%s.git", **extra):
        """Import a project (by default from a made-up repository URL named
        after it) and return its JSON; AssertionError unless it was created."""
        body = {"name": name, "repository": {"url": url % name.lower().replace(" ", "-")
                                             if "%s" in url else url, "type": "git"}}
        body.update(extra)
        r = self.post("/api/v3/projects/", body, token=token)
        if r.status != 201:
            raise AssertionError("importing %s: %s" % (name, r))
        return r.json

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


class Store:
    """Direct access to a server's database and data directory, for what no
    API call sets up (private projects, build commands, built versions and
    their published files)."""

    # created and modified of the versions planted here (2024-01-02 03:04:05Z).
    T0 = 1704164645 * 1000000

    def __init__(self, server):
        self.data = server.data
        self.path = os.path.join(server.data, "lectern.db")

    def version(self, project, slug, active=1, privacy="public"):
        """Make slug a built version of project, as a finished build leaves
        it: added, or updated in place when it exists."""
        self.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier,"
            " type, active, hidden, built, uploaded, privacy_level, machine,"
            " has_pdf, has_epub, has_htmlzip, created, modified) VALUES"
            " ((SELECT id FROM projects WHERE slug = ?), ?, ?, ?, 'branch',"
            " ?, 0, 1, 0, ?, 0, 0, 0, 0, ?, ?) ON CONFLICT (project_id, slug)"
            " DO UPDATE SET active = excluded.active, built = 1,"
            " privacy_level = excluded.privacy_level",
            (project, slug, slug, slug, active, privacy, self.T0, self.T0))

    def published(self, project, version, kind="html"):
        """Where a build publishes a version's output of one kind."""
        return os.path.join(self.data, "published", project, version, kind)

    def publish(self, project, version, files, kind="html"):
        """Write files ({name: text or bytes}) where a build publishes them."""
        for name, content in files.items():
            path = os.path.join(self.published(project, version, kind), name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content.encode("utf-8") if isinstance(content, str)
                        else content)

    def execute(self, sql, args=()):
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:
                return db.execute(sql, args).lastrowid
        finally:
            db.close()

    def rows(self, sql, args=()):
        db = sqlite3.connect(self.path, timeout=30)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()


class ServerTestCase(unittest.TestCase):
    """One server per test class; subclasses set SERVER_ARGS for options."""

    SERVER_ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.server = Server(*cls.SERVER_ARGS)
        # unittest skips tearDownClass when a subclass's setUpClass fails
        # after this (a fixture build that failed): the server is stopped
        # and its directory removed all the same (both are idempotent).
        cls.addClassCleanup(cls.server.cleanup)
        cls.addClassCleanup(cls.server.stop)

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        log = cls.server.log()
        cls.server.cleanup()
        if status != 0:
            raise AssertionError("server exited %s: %s" % (status, log))
        if "Sanitizer" in log or "runtime error" in log:
            raise AssertionError("sanitizer report:\n" + log)

    @classmethod
    def wait_build(cls, slug, token, timeout=BUILD_TIMEOUT):
        """The project's newest build once it has ended: AssertionError
        unless it passed within timeout seconds."""
        deadline = time.time() + timeout
        builds = []
        while time.time() < deadline:
            builds = cls.server.get("/api/v3/projects/%s/builds/" % slug,
                                    token=token).json["results"]
            if builds and builds[0]["state"]["code"] in ("finished", "cancelled"):
                assert builds[0]["success"], builds[0]
                return builds[0]
            time.sleep(POLL_SECONDS)
        raise AssertionError("build of %s did not finish: %r" % (slug, builds))

    # Assertions shared by the API tests.

    def assertNoProcess(self, marker, message):
        """No process whose command line has marker, within
        PROCESS_GONE_SECONDS: a killed sandbox's processes are reaped
        asynchronously, later on a loaded machine."""
        deadline = time.time() + PROCESS_GONE_SECONDS
        while True:
            ps = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
            if ps.stdout == "":
                return
            if time.time() > deadline:
                self.fail("%s: %s" % (message, ps.stdout))
            time.sleep(0.1)

    def assertStatus(self, response, status):
        self.assertEqual(response.status, status, response)

    def assertDetail(self, response, status, detail):
        self.assertStatus(response, status)
        self.assertEqual(response.json, {"detail": detail})
        self.assertEqual(response.header("Content-Type"), "application/json")

    def assertSortedKeys(self, body_bytes):
        """Every object's keys appear in sorted order in the raw bytes."""
        def check(pairs):
            keys = [k for k, _ in pairs]
            self.assertEqual(keys, sorted(keys), body_bytes[:400])
            return dict(pairs)
        json.loads(body_bytes.decode("utf-8"), object_pairs_hook=check)

    def import_project(self, token, name, url="https://github.com/example/%s.git", **extra):
        return self.server.import_project(token, name, url, **extra)


class HookReceiver:
    """An outgoing webhook's receiver on loopback: every POST's JSON body in
    `received` and its X-Lectern-Event header in `events`, in turn."""

    def __init__(self):
        received, events = self.received, self.events = [], []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                events.append(self.headers.get("X-Lectern-Event") or "")
                received.append(json.loads(body or b"{}"))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/hook" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class BuildTestCase(ServerTestCase):
    """A server with a build worker, and what its tests share: importing a
    repository, waiting for a build to end, reading its recorded
    commands."""

    SERVER_ARGS = ("--build-timeout", "20", "--workers", "1")
    # A build of a tiny project takes well under this even under ASan.
    BUILD_TIMEOUT = 180

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("builder")

    def db(self):
        return sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)

    def import_repo(self, name, repo_url):
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": repo_url}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def wait_build(self, slug, build_id=None, server=None):
        """The build (the newest without build_id) once it has ended."""
        server = server or self.server
        deadline = time.time() + self.BUILD_TIMEOUT
        builds = []
        while time.time() < deadline:
            builds = server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]
            build = next((b for b in builds if build_id is None or b["id"] == build_id), None)
            if build and build["state"]["code"] in ("finished", "cancelled"):
                return build
            time.sleep(POLL_SECONDS)
        self.fail("build of %s did not finish: %r" % (slug, builds))

    def build_latest(self, slug, fresh=False, first=False):
        """Trigger latest (fresh: a fresh build) and return the build's
        detail once it has ended; first: the import's own first build,
        none triggered."""
        if first:
            build_id = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                       token=self.token).json["results"][-1]["id"]
        else:
            r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                                 {"fresh": True} if fresh else None, token=self.token)
            self.assertStatus(r, 202)
            build_id = r.json["build"]["id"]
        deadline = time.time() + self.BUILD_TIMEOUT
        while time.time() < deadline:
            b = self.server.get("/api/v3/projects/%s/builds/%d/" % (slug, build_id),
                                token=self.token).json
            if b["state"]["code"] in ("finished", "cancelled"):
                return b
            time.sleep(POLL_SECONDS)
        self.fail("build %d of %s did not finish" % (build_id, slug))

    def commands(self, build_id):
        """(command, output, exit_code) of each recorded command."""
        db = self.db()
        rows = db.execute("SELECT command, output, exit_code FROM build_commands WHERE build_id = ? "
                          "ORDER BY id", (build_id,)).fetchall()
        db.close()
        return rows

def main():
    unittest.main(verbosity=2)
