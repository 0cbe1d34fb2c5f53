"""Pull-request previews (issue 40) against a real `lectern serve` with a
build worker: a local bare repository whose refs/pull/7/head (and
refs/merge-requests/3/head) hold commits no branch has; signed GitHub
`pull_request` and GitLab `Merge Request Hook` deliveries for a project
with external builds on make an external version named by the request's
number, build its head from that ref and answer as the service does; a
push to the request builds the new head and cancels the queued build of
the old one; closing deactivates the version; without external builds
nothing is built and the answer is "Unhandled webhook event"; a payload
without the number or the head is a 400 naming the key; external
versions are left out of the v3 versions list, of stable's choice and of
the default version."""
import hashlib
import hmac
import json
import os
import subprocess
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fixtures
from lectern_test import BuildTestCase, main


def sign(secret, body):
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def request_repo():
    """A bare repository: main (and tag 1.0) with the Markdown fixture, and
    a pull request's head and a merge request's head on commits of their
    own, as GitHub and GitLab keep them (no branch names them)."""
    work = fixtures.make_repo(fixtures.MARKDOWN, tags=("1.0",))
    heads = {}
    for ref, path, text in (("refs/pull/7/head", "docs/index.md", "# Markdown Guide\n\nPull request seven.\n"),
                            ("refs/merge-requests/3/head", "docs/index.md",
                             "# Markdown Guide\n\nMerge request three.\n"),
                            # A request whose build fails: a configuration
                            # the service refuses.
                            ("refs/pull/9/head", ".readthedocs.yaml", "version: 3\n")):
        fixtures.git(work, "checkout", "-q", "-B", "side", "main")
        with open(os.path.join(work, path), "w") as f:
            f.write(text)
        fixtures.git(work, "add", "-A")
        fixtures.git(work, "commit", "-q", "-m", ref)
        heads[ref] = rev(work, "HEAD")
    fixtures.git(work, "checkout", "-q", "main")
    bare = work + ".git"
    subprocess.run(["git", "clone", "-q", "--bare", work, bare], check=True, env=fixtures.GIT_ENV)
    for ref, sha in heads.items():
        fixtures.git(bare, "update-ref", ref, sha)
    fixtures.git(bare, "branch", "-D", "side")
    return work, bare, heads


def rev(repo, what):
    return subprocess.run(["git", "-C", repo, "rev-parse", what], check=True, capture_output=True,
                          text=True).stdout.strip()


def push_request(work, bare, ref, text):
    """A new commit on the request: its head moves."""
    fixtures.git(work, "checkout", "-q", "--detach", rev(bare, ref))
    with open(os.path.join(work, "docs/index.md"), "w") as f:
        f.write("# Markdown Guide\n\n%s.\n" % text)
    fixtures.git(work, "commit", "-q", "-am", text)
    sha = rev(work, "HEAD")
    fixtures.git(work, "push", "-q", bare, "HEAD:" + ref)
    return sha


class PullRequestCase(BuildTestCase):
    def setUp(self):
        self.work, self.bare, self.heads = request_repo()
        self.slug = self.import_repo("Previews %s" % self._testMethodName[5:25], "file://" + self.bare)
        for build in self.server.get("/api/v3/projects/%s/builds/" % self.slug,
                                     token=self.token).json["results"]:
            build = self.wait_build(self.slug, build["id"])
            self.assertTrue(build["success"], build)

    def enable(self, on=True):
        r = self.server.patch("/api/v3/projects/%s/" % self.slug, {"external_builds_enabled": on},
                              token=self.token)
        self.assertStatus(r, 204)

    def integration(self, kind):
        r = self.server.post("/api/v3/projects/%s/integrations/" % self.slug, {"integration_type": kind},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["secret"]

    def github(self, secret, action, number=7, sha=None, body=None):
        if body is None:
            body = {"action": action, "number": number,
                    "pull_request": {"head": {"sha": sha or self.heads["refs/pull/7/head"],
                                              "ref": "fix-docs"},
                                     "base": {"ref": "main"}},
                    "repository": {"full_name": "example/previews"}}
        raw = json.dumps(body).encode()
        return self.server.request("POST", "/api/v2/webhook/github/%s/" % self.slug, raw=raw, headers={
            "Content-Type": "application/json", "X-GitHub-Event": "pull_request",
            "X-Hub-Signature-256": sign(secret, raw)})

    def gitlab(self, secret, action, iid=3, sha=None):
        body = {"object_kind": "merge_request", "project": {"id": 42},
                "object_attributes": {"action": action, "iid": iid,
                                      "last_commit": {"id": sha or self.heads["refs/merge-requests/3/head"]},
                                      "source_branch": "fix-docs", "target_branch": "main"}}
        return self.server.request("POST", "/api/v2/webhook/gitlab/%s/" % self.slug,
                                   raw=json.dumps(body).encode(),
                                   headers={"Content-Type": "application/json", "X-Gitlab-Token": secret})

    def version(self, slug):
        db = self.db()
        row = db.execute("SELECT v.type, v.active, v.identifier, v.verbose_name FROM versions v "
                         "JOIN projects p ON p.id = v.project_id WHERE p.slug = ? AND v.slug = ?",
                         (self.slug, slug)).fetchone()
        db.close()
        return row

    def builds_of(self, version):
        builds = self.server.get("/api/v3/projects/%s/builds/" % self.slug, token=self.token).json["results"]
        return [b for b in builds if b["version"] == version]


class GitHubPullRequestTest(PullRequestCase):
    def test_opened_builds_the_pull_request_head(self):
        secret = self.integration("github_webhook")
        self.enable()
        r = self.github(secret, "opened")
        self.assertStatus(r, 200)
        self.assertEqual(r.json, {"build_triggered": True, "project": self.slug, "versions": ["7"]})
        head = self.heads["refs/pull/7/head"]
        self.assertEqual(self.version("7"), ("external", 1, head, "7"))
        build = self.wait_build(self.slug)
        self.assertEqual(build["version"], "7")
        self.assertTrue(build["success"], build)
        self.assertEqual(build["commit"], head)
        fetched = [c for c, _, _ in self.commands(build["id"]) if "refs/pull/7/head" in c]
        self.assertTrue(fetched, self.commands(build["id"]))
        # Its clone names the head as the service's refspec does,
        # pull/7/head:external-7.
        tree = os.path.join(self.server.data, "checkouts", self.slug, "7")
        # (The tree is the build user's: git asks to be told it is safe.)
        named = subprocess.run(["git", "-c", "safe.directory=*", "-C", tree, "rev-parse", "external-7"],
                               capture_output=True, text=True)
        self.assertEqual((named.stdout.strip(), named.stderr), (head, ""))
        # The service's lists: not in the v3 versions list, never stable,
        # latest or the default version.
        listed = self.server.get("/api/v3/projects/%s/versions/?limit=100" % self.slug, token=self.token).json
        self.assertNotIn("7", [v["slug"] for v in listed["results"]])
        r = self.server.get("/api/v3/projects/%s/versions/7/" % self.slug, token=self.token)
        self.assertStatus(r, 404)
        self.assertEqual(self.version("stable")[2], rev(self.bare, "1.0"))
        self.assertEqual(self.version("latest")[:2], ("branch", 1))
        project = self.server.get("/api/v3/projects/%s/" % self.slug, token=self.token).json
        self.assertEqual(project["default_version"], "latest")
        # Search: the project's default results are latest's, never the
        # request's; asked for by name, the request's pages are found.
        r = self.server.get("/api/v3/search/?" + urllib.parse.urlencode({"q": "project:%s seven" % self.slug}))
        self.assertStatus(r, 200)
        self.assertEqual(r.json["count"], 0, r.json)
        r = self.server.get("/api/v3/search/?" + urllib.parse.urlencode({"q": "project:%s/7 seven" % self.slug}))
        self.assertGreaterEqual(r.json["count"], 1, r.json)
        # v2 shows it as the service does: type external.
        v2 = self.server.get("/api/v2/version/?project__slug=%s&limit=50" % self.slug).json
        self.assertIn(("7", "external"), [(v["slug"], v["type"]) for v in v2["results"]])
        # The same delivery again: nothing queued twice.
        before = len(self.builds_of("7"))
        self.assertEqual(self.github(secret, "opened").json["versions"], ["7"])
        again = self.wait_build(self.slug)
        self.assertLessEqual(len(self.builds_of("7")), before + 1)
        self.assertTrue(again["success"], again)

    def test_a_builds_version_type_marks_the_pull_request(self):
        # Lectern's extension (docs/decisions.md): the service's v3 build
        # has no version type and its v3 versions leave external ones
        # out, so only this says a build is a pull request's.
        self.enable()
        self.assertStatus(self.github(self.integration("github_webhook"), "opened"), 200)
        build = self.wait_build(self.slug)
        detail = self.server.get("/api/v3/projects/%s/builds/%d/" % (self.slug, build["id"]),
                                 token=self.token).json
        self.assertEqual((detail["version"], detail["version_type"], detail["external_forge"]),
                         ("7", "external", "github"))
        listed = {b["version"]: b for b in self.server.get(
            "/api/v3/projects/%s/builds/" % self.slug, token=self.token).json["results"]}
        self.assertEqual((listed["7"]["version_type"], listed["7"]["external_forge"]),
                         ("external", "github"))
        # A branch's build says so and names no forge; v2's build agrees.
        self.assertEqual(listed["latest"]["version_type"], "branch")
        self.assertNotIn("external_forge", listed["latest"])
        v2 = self.server.get("/api/v2/build/%d/" % build["id"], token=self.token).json
        self.assertEqual(v2["version_type"], "external")

    def test_synchronize_builds_the_new_head_and_closed_deactivates(self):
        secret = self.integration("github_webhook")
        self.enable()
        # A build of latest keeps the project's worker busy, so the old
        # head's build is still queued when the new head arrives.
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % self.slug, token=self.token)
        self.assertStatus(r, 202)
        self.assertStatus(self.github(secret, "opened"), 200)
        first = self.builds_of("7")[0]
        new = push_request(self.work, self.bare, "refs/pull/7/head", "Seven, amended")
        r = self.github(secret, "synchronize", sha=new)
        self.assertEqual(r.json, {"build_triggered": True, "project": self.slug, "versions": ["7"]})
        done = self.wait_build(self.slug)
        self.assertEqual((done["version"], done["commit"]), ("7", new))
        self.assertTrue(done["success"], done)
        old = self.wait_build(self.slug, first["id"])
        self.assertEqual((old["state"]["code"], old["success"]), ("cancelled", False))
        self.assertEqual(self.version("7")[2], new)
        # Closed: deactivated at once.
        r = self.github(secret, "closed", sha=new)
        self.assertStatus(r, 200)
        self.assertEqual(r.json, {"closed": True, "project": self.slug, "versions": ["7"]})
        self.assertEqual(self.version("7")[1], 0)
        r = self.github(secret, "closed", number=8, sha=new)
        self.assertEqual(r.json, {"closed": False, "project": self.slug, "versions": []})
        # Reopened: active again and built.
        r = self.github(secret, "reopened", sha=new)
        self.assertEqual(r.json["versions"], ["7"])
        self.assertEqual(self.version("7")[1], 1)
        self.assertTrue(self.wait_build(self.slug)["success"])

    def host(self, version=None):
        if version:
            return "%s--%s.external.localhost:%d" % (self.slug, version, self.server.port)
        return "%s.localhost:%d" % (self.slug, self.server.port)

    def test_served_on_its_own_host(self):
        secret = self.integration("github_webhook")
        self.enable()
        self.github(secret, "opened")
        self.assertTrue(self.wait_build(self.slug)["success"])
        r = self.server.get("/en/7/", host=self.host("7"))
        self.assertStatus(r, 200)
        self.assertIn(b"Pull request seven", r.body)
        self.assertEqual(r.header("X-Robots-Tag"), "noindex")
        # "/" leads to the request's version; no other version is served
        # there, and the docs domain serves no request's version.
        r = self.server.get("/", host=self.host("7"))
        self.assertStatus(r, 302)
        self.assertTrue(r.header("Location").endswith("/en/7/"), r.header("Location"))
        self.assertStatus(self.server.get("/en/latest/", host=self.host("7")), 404)
        self.assertStatus(self.server.get("/en/7/", host=self.host()), 404)
        self.assertStatus(self.server.get("/en/latest/", host=self.host()), 200)
        self.assertIsNone(self.server.get("/en/latest/", host=self.host()).header("X-Robots-Tag"))
        self.assertStatus(self.server.get("/en/8/", host=self.host("8")), 404)
        # The request's host may read the docs domain's pages (its visual
        # diff against latest, across origins); no other origin may.
        origin = "http://" + self.host("7")
        r = self.server.get("/en/latest/", host=self.host(), headers={"Origin": origin})
        self.assertEqual((r.header("Access-Control-Allow-Origin"), r.header("Vary")),
                         (origin, "Accept, Accept-Encoding, Origin"))
        self.assertIsNone(r.header("Access-Control-Allow-Credentials"))
        for other in ("http://other--7.external.localhost:%d" % self.server.port,
                      "http://%s.localhost:%d" % (self.slug, self.server.port),
                      "http://example.com", "null"):
            r = self.server.get("/en/latest/", host=self.host(), headers={"Origin": other})
            self.assertIsNone(r.header("Access-Control-Allow-Origin"), other)
        self.assertIsNone(self.server.get("/en/latest/", host=self.host()).header(
            "Access-Control-Allow-Origin"))
        # The build's docs URL is the request's host.
        v2 = self.server.get("/api/v2/build/?project__slug=%s" % self.slug).json["results"]
        docs = [b["docs_url"] for b in v2 if b["version_slug"] == "7"]
        self.assertEqual(docs[0], "http://%s/en/7/" % self.host("7"))
        # Private external builds: not readable anonymously.
        db = self.db()
        db.execute("UPDATE projects SET external_builds_privacy_level = 'private' WHERE slug = ?",
                   (self.slug,))
        db.commit()
        db.close()
        self.assertIn(self.server.get("/en/7/", host=self.host("7")).status, (401, 403, 404))
        self.assertStatus(self.server.get("/en/latest/", host=self.host()), 200)
        db = self.db()
        db.execute("UPDATE projects SET external_builds_privacy_level = 'public' WHERE slug = ?",
                   (self.slug,))
        db.commit()
        db.close()
        self.assertStatus(self.server.get("/en/7/", host=self.host("7")), 200)
        # Closed: its host answers 404.
        self.github(secret, "closed")
        self.assertStatus(self.server.get("/en/7/", host=self.host("7")), 404)

    def test_without_external_builds_nothing_is_built(self):
        secret = self.integration("github_webhook")
        for action in ("opened", "closed"):
            r = self.github(secret, action)
            self.assertEqual((r.status, r.json), (200, {"detail": "Unhandled webhook event"}))
        self.enable()
        r = self.github(secret, "labeled")
        self.assertEqual((r.status, r.json), (200, {"detail": "Unhandled webhook event"}))
        self.assertIsNone(self.version("7"))

    def test_bad_payloads(self):
        secret = self.integration("github_webhook")
        self.enable()
        head = self.heads["refs/pull/7/head"]
        full = {"action": "opened", "number": 7,
                "pull_request": {"head": {"sha": head, "ref": "x"}, "base": {"ref": "main"}}}
        cases = [("number", {k: v for k, v in full.items() if k != "number"}),
                 ("pull_request", {"action": "opened", "number": 7}),
                 ("sha", dict(full, pull_request={"head": {"ref": "x"}, "base": {"ref": "main"}})),
                 ("base", dict(full, pull_request={"head": {"sha": head, "ref": "x"}})),
                 ("number", dict(full, number="7; rm")),
                 ("sha", dict(full, pull_request={"head": {"sha": "../x", "ref": "x"},
                                                  "base": {"ref": "main"}}))]
        for key, body in cases:
            r = self.github(secret, "opened", body=body)
            self.assertEqual((r.status, r.json), (400, {"detail": "Invalid payload. %s is required." % key}),
                             body)
        # A bad signature: the service's 400, nothing built.
        raw = json.dumps(full).encode()
        r = self.server.request("POST", "/api/v2/webhook/github/%s/" % self.slug, raw=raw, headers={
            "Content-Type": "application/json", "X-GitHub-Event": "pull_request",
            "X-Hub-Signature-256": sign(secret + "x", raw)})
        self.assertEqual((r.status, r.json),
                         (400, {"detail": "Payload not valid, invalid or missing signature"}))
        self.assertIsNone(self.version("7"))


class GitLabMergeRequestTest(PullRequestCase):
    def test_merge_request_builds_and_merge_closes(self):
        secret = self.integration("gitlab_webhook")
        r = self.gitlab(secret, "open")
        self.assertEqual((r.status, r.json), (200, {"detail": "Unhandled webhook event"}))
        self.enable()
        r = self.gitlab(secret, "open")
        self.assertEqual(r.json, {"build_triggered": True, "project": self.slug, "versions": ["3"]})
        build = self.wait_build(self.slug)
        self.assertTrue(build["success"], build)
        self.assertEqual(build["commit"], self.heads["refs/merge-requests/3/head"])
        self.assertEqual((build["version_type"], build["external_forge"]), ("external", "gitlab"))
        new = push_request(self.work, self.bare, "refs/merge-requests/3/head", "Three, amended")
        self.assertEqual(self.gitlab(secret, "update", sha=new).json["versions"], ["3"])
        build = self.wait_build(self.slug)
        self.assertEqual((build["commit"], build["success"]), (new, True))
        r = self.gitlab(secret, "merge", sha=new)
        self.assertEqual(r.json, {"closed": True, "project": self.slug, "versions": ["3"]})
        self.assertEqual(self.version("3")[1], 0)


class GraceTest(PullRequestCase):
    SERVER_ARGS = PullRequestCase.SERVER_ARGS + ("--external-grace", "1")

    def test_closed_files_go_after_the_grace_period(self):
        secret = self.integration("github_webhook")
        self.enable()
        self.github(secret, "opened")
        build = self.wait_build(self.slug)
        self.assertTrue(build["success"], build)
        published = os.path.join(self.server.data, "published", self.slug, "7")
        self.assertTrue(os.path.islink(published))
        output = os.path.realpath(published)
        self.github(secret, "closed")
        deadline = time.time() + 30
        while self.version("7") is not None and time.time() < deadline:
            time.sleep(0.1)
        self.assertIsNone(self.version("7"))
        self.assertFalse(os.path.lexists(published))
        self.assertFalse(os.path.exists(output))
        db = self.db()
        left = db.execute("SELECT count(*) FROM search_pages WHERE version_id NOT IN "
                          "(SELECT id FROM versions)").fetchone()[0]
        kept = db.execute("SELECT version_id FROM builds WHERE id = ?", (build["id"],)).fetchone()
        db.close()
        self.assertEqual((left, kept), (0, (None,)))
        # The request opened again: a new version, built afresh.
        self.assertEqual(self.github(secret, "reopened").json["versions"], ["7"])
        self.assertTrue(self.wait_build(self.slug)["success"])


class FakeForge:
    """A forge's statuses API on loopback: every POST recorded as (path,
    Authorization, JSON body); answers `answer` (201, 500, or "hang": no
    answer until closed)."""

    def __init__(self):
        self.calls, self.answer, self.closing = [], 201, threading.Event()
        forge = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                forge.calls.append((self.path, self.headers.get("Authorization"), json.loads(body)))
                if forge.answer == "hang":
                    forge.closing.wait(30)
                    return
                self.send_response(forge.answer)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_calls(self, n, sha, timeout=60):
        """The first n statuses of commit sha (other builds of the
        project report theirs too)."""
        deadline = time.time() + timeout
        mine = []
        while time.time() < deadline:
            mine = [c for c in self.calls if c[0].endswith("/statuses/" + sha)]
            if len(mine) >= n:
                break
            time.sleep(0.05)
        return mine

    def close(self):
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class CommitStatusTest(PullRequestCase):
    SERVER_ARGS = PullRequestCase.SERVER_ARGS + ("--webhook-backoff", "100", "--webhook-timeout", "500",
                                                 "--webhook-allow", "127.0.0.0/8")

    def setUp(self):
        super().setUp()
        self.forge = FakeForge()
        self.addCleanup(self.forge.close)
        self.enable()

    def integration_with_token(self, kind):
        r = self.server.post("/api/v3/projects/%s/integrations/" % self.slug,
                             {"integration_type": kind, "token": "forge-token-1", "api_url": self.forge.url},
                             token=self.token)
        self.assertStatus(r, 201)
        self.assertNotIn(b"forge-token-1", r.body)
        self.assertEqual((r.json["has_token"], r.json["api_url"]), (True, self.forge.url))
        return r.json["secret"]

    def statuses_of(self, build_id, n, delivery):
        deadline = time.time() + 60
        shown = []
        while time.time() < deadline:
            b = self.server.get("/api/v3/projects/%s/builds/%d/" % (self.slug, build_id), token=self.token).json
            shown = b.get("commit_statuses", [])
            if len(shown) >= n and all(c["delivery"] == delivery for c in shown[:n]):
                return shown
            time.sleep(0.1)
        self.fail("statuses of build %d: %r" % (build_id, shown))

    def test_pending_then_success_with_the_preview(self):
        secret = self.integration_with_token("github_webhook")
        self.github(secret, "opened")
        build = self.wait_build(self.slug)
        self.assertTrue(build["success"], build)
        head = self.heads["refs/pull/7/head"]
        calls = self.forge.wait_calls(2, head)
        path = "/repos/example/previews/statuses/%s" % head
        preview = "http://%s--7.external.localhost:%d/en/7/" % (self.slug, self.server.port)
        self.assertEqual([(c[0], c[1], c[2]["state"]) for c in calls],
                         [(path, "Bearer forge-token-1", "pending"), (path, "Bearer forge-token-1", "success")])
        self.assertEqual(calls[1][2], {"state": "success", "target_url": preview,
                                       "description": "Read the Docs build succeeded!",
                                       "context": "docs/readthedocs:%s" % self.slug})
        self.assertTrue(calls[0][2]["target_url"].endswith("/projects/%s/builds/%d/" % (self.slug, build["id"])))
        shown = self.statuses_of(build["id"], 2, "delivered")
        self.assertEqual([(c["state"], c["status_code"]) for c in shown], [("pending", 201), ("success", 201)])
        # The token is sealed in the store, and appears nowhere it could be read.
        db = self.db()
        self.assertFalse(db.execute("SELECT count(*) FROM integrations WHERE CAST(token AS TEXT) LIKE "
                                    "'%forge-token-1%'").fetchone()[0])
        db.close()
        self.assertNotIn("forge-token-1", self.server.log())

    def test_a_failing_build_reports_failure(self):
        secret = self.integration_with_token("github_webhook")
        self.github(secret, "opened", number=9, sha=self.heads["refs/pull/9/head"])
        build = self.wait_build(self.slug)
        self.assertFalse(build["success"], build)
        calls = self.forge.wait_calls(2, self.heads["refs/pull/9/head"])
        self.assertEqual([c[2]["state"] for c in calls], ["pending", "failure"])
        self.assertEqual(calls[1][2]["description"], "Read the Docs build failed!")

    def test_a_pull_requests_build_sends_no_webhook_and_no_version_notice(self):
        """As on the service (trigger_build, send_build_notifications):
        a pull request's builds go to the forge as commit statuses only;
        the project's outgoing webhooks and its "version failing" notice
        are its own versions'."""
        r = self.server.post("/api/v3/projects/%s/webhooks/" % self.slug,
                             {"url": self.forge.url + "/hook",
                              "events": ["build:triggered", "build:passed", "build:failed"]},
                             token=self.token)
        self.assertStatus(r, 201)
        secret = self.integration_with_token("github_webhook")
        self.github(secret, "opened", number=9, sha=self.heads["refs/pull/9/head"])
        build = self.wait_build(self.slug)
        self.assertFalse(build["success"], build)
        # Its statuses went out, so its events were all handled.
        self.statuses_of(build["id"], 2, "delivered")

        def counts(build_id):
            db = self.db()
            hooks = db.execute("SELECT count(*) FROM webhook_deliveries WHERE build_id = ?",
                               (build_id,)).fetchone()[0]
            notices = db.execute("SELECT count(*) FROM notifications WHERE message_id = ? "
                                 "AND state <> 'cancelled'",
                                 ("project:version:build-failing",)).fetchone()[0]
            db.close()
            return hooks, notices

        self.assertEqual(counts(build["id"]), (0, 0))
        # The project's own version still has both.
        with open(os.path.join(self.work, ".readthedocs.yaml"), "w") as f:
            f.write("version: 3\n")
        fixtures.git(self.work, "add", "-A")
        fixtures.git(self.work, "commit", "-qm", "break latest")
        fixtures.git(self.work, "push", "-q", self.bare, "HEAD:main")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % self.slug, token=self.token)
        self.assertStatus(r, 202)
        latest = self.wait_build(self.slug, r.json["build"]["id"])
        self.assertFalse(latest["success"], latest)
        deadline = time.time() + 30
        while counts(latest["id"]) != (2, 1) and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(counts(latest["id"]), (2, 1))

    def test_gitlab_statuses(self):
        secret = self.integration_with_token("gitlab_webhook")
        self.gitlab(secret, "open")
        build = self.wait_build(self.slug)
        self.assertTrue(build["success"], build)
        calls = self.forge.wait_calls(2, self.heads["refs/merge-requests/3/head"])
        path = "/api/v4/projects/42/statuses/%s" % self.heads["refs/merge-requests/3/head"]
        self.assertEqual([(c[0], c[2]["state"]) for c in calls], [(path, "pending"), (path, "success")])

    def test_pushes_to_branches_report_too(self):
        secret = self.integration_with_token("github_webhook")
        main = rev(self.bare, "main")
        body = json.dumps({"ref": "refs/heads/main", "after": main,
                           "repository": {"full_name": "example/previews"}}).encode()
        r = self.server.request("POST", "/api/v2/webhook/github/%s/" % self.slug, raw=body, headers={
            "Content-Type": "application/json", "X-GitHub-Event": "push",
            "X-Hub-Signature-256": sign(secret, body)})
        self.assertEqual(r.json["versions"], ["latest"])
        build = self.wait_build(self.slug)
        self.assertTrue(build["success"], build)
        # The commit is known once checked out: the end's status goes,
        # linking to the version's docs.
        # (stable, on a tag of the same commit, may report it as well.)
        latest = "http://%s.localhost:%d/en/latest/" % (self.slug, self.server.port)
        deadline = time.time() + 60
        while time.time() < deadline and not any(c[2]["target_url"] == latest for c in self.forge.calls):
            time.sleep(0.05)
        calls = [c for c in self.forge.calls if c[2]["target_url"] == latest]
        self.assertEqual([(c[0], c[2]["state"]) for c in calls],
                         [("/repos/example/previews/statuses/%s" % main, "success")])

    def test_a_forge_down_never_touches_the_build(self):
        for answer in (500, "hang"):
            self.forge.answer = answer
            self.forge.calls.clear()
            secret = self.integration_with_token("github_webhook")
            self.github(secret, "opened" if answer == 500 else "synchronize",
                        sha=self.heads["refs/pull/7/head"] if answer == 500 else
                        push_request(self.work, self.bare, "refs/pull/7/head", "Again"))
            build = self.wait_build(self.slug)
            self.assertTrue(build["success"], (answer, build))
            shown = self.statuses_of(build["id"], 1, "failed")
            self.assertEqual(shown[0]["attempts"], 5)
            self.assertEqual(shown[0]["status_code"], 500 if answer == 500 else None)
            self.assertTrue(shown[0]["error"])
            db = self.db()
            db.execute("DELETE FROM integrations")
            db.commit()
            db.close()


if __name__ == "__main__":
    main()
