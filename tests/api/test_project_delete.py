"""DELETE /api/v3/projects/<slug>/ (Lectern's; issue 31, item 4): the
project's admins remove it with everything of it -- versions, builds and
their logs, the repository mirror, kept trees and generator state, Python
environments and their stamps, build outputs, published docs, search
entries, notifications, integrations, webhooks, redirects, environment
variables and subproject links -- and nobody else may. A project being
built: its builds are cancelled first, and while a worker still holds one
the answer is 409 and nothing is removed; asked again once the worker has
let go, it goes."""
import os
import sqlite3
import time

import fixtures
from lectern_test import POLL_SECONDS, ServerTestCase, main

BUILD_TIMEOUT = 180


class ProjectDeleteTest(ServerTestCase):
    SERVER_ARGS = ("--build-timeout", "60", "--workers", "1")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("owner")
        cls.other = cls.server.token("stranger")

    def db(self):
        return sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)

    def count(self, sql, args=()):
        db = self.db()
        try:
            return db.execute(sql, args).fetchone()[0]
        finally:
            db.close()

    def import_repo(self, name, repo):
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": "file://" + repo}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def wait_builds(self, slug):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]
            if builds and all(b["state"]["code"] in ("finished", "cancelled") for b in builds):
                return builds
            time.sleep(POLL_SECONDS)
        self.fail("builds of %s did not finish" % slug)

    def path(self, *parts):
        return os.path.join(self.server.data, *parts)

    def test_everything_of_the_project_goes(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN, tags=["v1.0"])
        slug = self.import_repo("Doomed Guide", repo)
        child = self.import_repo("Kept Child", fixtures.make_repo(fixtures.MARKDOWN))
        parent = self.import_repo("Kept Parent", fixtures.make_repo(fixtures.MARKDOWN))
        builds = self.wait_builds(slug)
        self.wait_builds(child)
        self.wait_builds(parent)
        pid = self.count("SELECT id FROM projects WHERE slug = ?", (slug,))
        docs_host = "%s.localhost:%d" % (slug, self.server.port)
        self.assertStatus(self.server.get("/en/latest/index.html", host=docs_host), 200)
        # What hangs from it: links both ways, a redirect, a variable, an
        # integration, a webhook with a delivery, a notification.
        for path, body in (("subprojects/", {"child": child, "alias": "kid"}),
                           ("redirects/", {"type": "page", "from_url": "/a/", "to_url": "/b/"}),
                           ("environmentvariables/", {"name": "DOOMED", "value": "v"}),
                           ("integrations/", {"integration_type": "github_webhook"}),
                           ("webhooks/", {"url": "http://127.0.0.1:9/hook", "events": ["build:failed"]})):
            self.assertStatus(self.server.post("/api/v3/projects/%s/%s" % (slug, path), body,
                                               token=self.token), 201)
        db = self.db()
        with db:
            # The other way too (the API refuses a parent as a child, so
            # planted): doomed under parent.
            db.execute("INSERT INTO subprojects (parent_id, child_id, alias, created) SELECT p.id, ?,"
                       " 'doomed', 0 FROM projects p WHERE p.slug = ?", (pid, parent))
            hook = db.execute("SELECT id FROM webhooks WHERE project_id = ?", (pid,)).fetchone()[0]
            db.execute("INSERT INTO webhook_deliveries (webhook_id, event, body, state, next_attempt,"
                       " created, modified) VALUES (?, 'build:failed', '{}', 'delivered', 0, 0, 0)",
                       (hook,))
            db.execute("INSERT INTO notifications (message_id, attached_type, attached_id, project_id,"
                       " type, header, body, created, modified) VALUES ('build:failed', 'build', ?, ?,"
                       " 'error', 'h', 'b', 0, 0)", (builds[0]["id"], pid))
        db.close()
        # Caches a Python build would have made.
        for d in (("python", slug, "venvs", "latest"), ("python", ".stamps", slug)):
            os.makedirs(self.path(*d), exist_ok=True)
        files = [self.path("repos", slug + ".git"), self.path("checkouts", slug),
                 self.path("python", slug), self.path("python", ".stamps", slug),
                 self.path("published", slug)]
        files += [self.path("outputs", str(b["id"])) for b in builds if b["success"]]
        for f in files:
            self.assertTrue(os.path.exists(f), f)
        self.assertGreater(self.count("SELECT count(*) FROM search_pages p JOIN versions v"
                                      " ON v.id = p.version_id WHERE v.project_id = ?", (pid,)), 0)
        entries = self.count("SELECT count(*) FROM search_entries")

        # Others may not: anonymous 401, another user 403 (it is public).
        self.assertStatus(self.server.delete("/api/v3/projects/%s/" % slug), 401)
        self.assertStatus(self.server.delete("/api/v3/projects/%s/" % slug, token=self.other), 403)
        self.assertStatus(self.server.get("/api/v3/projects/%s/" % slug), 200)

        r = self.server.delete("/api/v3/projects/%s/" % slug, token=self.token)
        self.assertStatus(r, 204)
        self.assertStatus(self.server.get("/api/v3/projects/%s/" % slug, token=self.token), 404)
        self.assertStatus(self.server.delete("/api/v3/projects/%s/" % slug, token=self.token), 404)
        for f in files:
            self.assertFalse(os.path.exists(f), f)
        self.assertFalse(os.path.exists(self.path("repos", slug + ".git.lock")))
        for table, column in (("versions", "project_id"), ("builds", "project_id"),
                              ("redirects", "project_id"), ("env_vars", "project_id"),
                              ("integrations", "project_id"), ("webhooks", "project_id"),
                              ("notifications", "project_id"), ("subprojects", "parent_id"),
                              ("subprojects", "child_id")):
            self.assertEqual(self.count("SELECT count(*) FROM %s WHERE %s = ?" % (table, column), (pid,)),
                             0, table)
        self.assertEqual(self.count("SELECT count(*) FROM build_commands WHERE build_id IN (%s)"
                                    % ",".join(str(b["id"]) for b in builds)), 0)
        self.assertEqual(self.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?",
                                    (hook,)), 0)
        self.assertLess(self.count("SELECT count(*) FROM search_entries"), entries)
        r = self.server.get("/api/v3/search/?q=project:%s+install" % slug, token=self.token)
        self.assertEqual(r.json["results"], [])
        self.assertStatus(self.server.get("/en/latest/index.html", host=docs_host), 404)
        # The other projects stay, without their links to it.
        for kept in (child, parent):
            self.assertStatus(self.server.get("/api/v3/projects/%s/" % kept, token=self.token), 200)
        self.assertEqual(self.server.get("/api/v3/projects/%s/subprojects/" % parent,
                                         token=self.token).json["count"], 0)
        self.assertTrue(os.path.exists(self.path("repos", child + ".git")))
        # The slug is free again, with nothing left of the old project.
        again = self.import_repo("Doomed Guide", repo)
        self.assertEqual(again, slug)
        self.assertEqual(self.server.get("/api/v3/projects/%s/redirects/" % slug,
                                         token=self.token).json["count"], 0)

    def test_a_project_being_built(self):
        repo = fixtures.make_repo(fixtures.commands_config("sleep 50"))
        slug = self.import_repo("Busy Guide", repo)
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            b = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"][0]
            if b["state"]["code"] == "building":
                break
            time.sleep(0.1)
        else:
            self.fail("the build never ran")
        # Its build is cancelled, and while the worker still holds it
        # nothing is removed: 409, saying so.
        r = self.server.delete("/api/v3/projects/%s/" % slug, token=self.token)
        self.assertStatus(r, 409)
        self.assertIn("still stopping after being cancelled; try again", r.json["detail"])
        b = self.server.get("/api/v3/projects/%s/builds/%d/" % (slug, b["id"]), token=self.token).json
        self.assertEqual(b["state"]["code"], "cancelled")
        self.assertTrue(os.path.exists(self.path("repos", slug + ".git")))
        # Once the worker has let go (the sandbox stopped, not the 50 s
        # command finished), it goes.
        started = time.time()
        while r.status == 409 and time.time() - started < 30:
            time.sleep(0.2)
            r = self.server.delete("/api/v3/projects/%s/" % slug, token=self.token)
        self.assertStatus(r, 204)
        self.assertLess(time.time() - started, 30)
        self.assertFalse(os.path.exists(self.path("repos", slug + ".git")))
        self.assertFalse(os.path.exists(self.path("checkouts", slug)))
        self.assertFalse(os.path.exists(self.path("builds", str(b["id"]))))
        self.assertNoProcess("sleep 50", "the cancelled build's command outlived the project")


if __name__ == "__main__":
    main()
