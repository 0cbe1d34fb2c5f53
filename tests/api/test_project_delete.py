"""DELETE /api/v3/projects/<slug>/ (Lectern's; issue 31, item 4): the
project's admins remove it with everything of it -- versions, builds and
their logs, the repository cache, kept trees and generator state, Python
environments and their stamps, build outputs, published docs, search
entries, notifications, integrations, webhooks, redirects, environment
variables and subproject links -- and nobody else may. A project being
built: its builds are cancelled first, and while a worker still holds one
the answer is 409 and nothing is removed; asked again once the worker has
let go, it goes.

The answer comes once the project's rows are gone; its files go after it,
on a thread of the server (issue 36, finding 5: a 3.25 s removal held its
HTTP thread, and freed the slug before the files were gone, so a project
imported meanwhile under the same slug had its files deleted). Until they
are gone the slug stays taken, the removed builds' ids are never given
again, and a server killed meanwhile leaves a removal the next one
finishes."""
import os
import signal
import sqlite3
import threading
import time
import unittest

import fixtures
from lectern_test import POLL_SECONDS, Server, ServerTestCase, main

BUILD_TIMEOUT = 180
# Entries in a project made big: enough that deleting them takes a good
# part of a second (the removal took 3.25 s).
BIG_FILES = 20000
BEING_REMOVED = ('Project with slug "%s" already exists: it is being removed. Import it again once its '
                 'files are gone.')


def plant_tree(top, files=BIG_FILES):
    """files entries under top, 5000 to a directory: hard links to one
    file, quick to make, each one more entry to delete."""
    os.makedirs(top)
    first = os.path.join(top, "first")
    os.close(os.open(first, os.O_CREAT | os.O_WRONLY, 0o644))
    for i in range(1, files):
        d = os.path.join(top, "d%d" % (i // 5000))
        if i % 5000 == 0 or i == 1:
            os.makedirs(d, exist_ok=True)
        os.link(first, os.path.join(d, "f%04d" % (i % 5000)))


def pending_removal(data, slug):
    db = sqlite3.connect(os.path.join(data, "lectern.db"), timeout=30)
    try:
        return db.execute("SELECT count(*) FROM project_removals WHERE slug = ?", (slug,)).fetchone()[0] > 0
    finally:
        db.close()


def wait_removed(test, data, slug, timeout=BUILD_TIMEOUT):
    """Until the removal of slug has finished (its slug free again)."""
    deadline = time.time() + timeout
    while pending_removal(data, slug):
        if time.time() > deadline:
            test.fail("the removal of %s did not finish" % slug)
        time.sleep(0.05)


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
        wait_removed(self, self.server.data, slug)
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
        wait_removed(self, self.server.data, slug)
        self.assertFalse(os.path.exists(self.path("repos", slug + ".git")))
        self.assertFalse(os.path.exists(self.path("checkouts", slug)))
        self.assertFalse(os.path.exists(self.path("builds", str(b["id"]))))
        self.assertNoProcess("sleep 50", "the cancelled build's command outlived the project")


    def test_a_removed_builds_id_is_never_given_again(self):
        # Its files are named by it: a new build with the id would write
        # where the removal deletes.
        slug = self.import_repo("Short Lived", fixtures.make_repo(fixtures.MARKDOWN))
        gone = self.wait_builds(slug)[0]["id"]
        self.assertStatus(self.server.delete("/api/v3/projects/short-lived/", token=self.token), 204)
        slug = self.import_repo("Next One", fixtures.make_repo(fixtures.MARKDOWN))
        self.assertGreater(self.wait_builds(slug)[0]["id"], gone)


class SlowRemovalTest(ServerTestCase):
    """A big project's removal: the answer does not wait for its files, its
    slug stays taken until they are gone, and a new project of that slug
    then builds and keeps its files."""

    SERVER_ARGS = ("--build-timeout", "60", "--workers", "1")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("owner")

    def import_repo(self, name, repo):
        return self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": "file://" + repo}},
                                token=self.token)

    def built_big(self, name):
        """A project imported and built, then given BIG_FILES files in its
        kept tree (what a big Sphinx project leaves there)."""
        r = self.import_repo(name, fixtures.make_repo(fixtures.MARKDOWN))
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        build = self.wait_build(slug, self.token)
        # Inside the version's kept tree: the worker prunes what else is
        # in checkouts/<slug> (trees of inactive versions) after the
        # build is reported finished, and a "big" beside the tree was
        # removed while it was being planted.
        big = os.path.join(self.server.data, "checkouts", slug, "latest", "big")
        plant_tree(big)
        return slug, build, big

    def test_the_answer_does_not_wait_for_the_files(self):
        slug, build, big = self.built_big("Heavy Guide")
        output = os.path.join(self.server.data, "outputs", str(build["id"]))
        self.assertTrue(os.path.isdir(output))
        started = time.time()
        r = self.server.delete("/api/v3/projects/%s/" % slug, token=self.token)
        answered = time.time() - started
        self.assertStatus(r, 204)
        # Gone from the API at once; its files are still there, going.
        self.assertStatus(self.server.get("/api/v3/projects/%s/" % slug, token=self.token), 404)
        self.assertTrue(os.path.isdir(big), "the answer waited for the files")
        wait_removed(self, self.server.data, slug)
        removed = time.time() - started
        for path in (big, os.path.dirname(big), output,
                     os.path.join(self.server.data, "published", slug),
                     os.path.join(self.server.data, "repos", slug + ".git")):
            self.assertFalse(os.path.exists(path), path)
        # The answer's time is not the files' time (the tree still there
        # after the answer is the proof; a ratio of the two times would
        # be at the mercy of a loaded machine's scheduling).
        self.assertLess(answered, removed, (answered, removed))

    def test_a_slug_being_removed_is_not_taken(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN)
        slug, _, big = self.built_big("Reused Guide")
        answers = []
        deleting = threading.Thread(target=lambda: answers.append(
            self.server.delete("/api/v3/projects/%s/" % slug, token=self.token)))
        deleting.start()
        try:
            # Once the project is gone from the API (on the main before
            # this, its files were still being deleted in the request),
            # its slug is not free yet.
            deadline = time.time() + BUILD_TIMEOUT
            while self.server.get("/api/v3/projects/%s/" % slug, token=self.token).status != 404:
                self.assertLess(time.time(), deadline)
            r = self.import_repo("Reused Guide", repo)
            self.assertStatus(r, 400)
            self.assertEqual(r.json, {"name": [BEING_REMOVED % slug]})
        finally:
            deleting.join()
        self.assertStatus(answers[0], 204)
        wait_removed(self, self.server.data, slug)
        self.assertFalse(os.path.exists(big))
        # Free again: the new project builds, publishes, and keeps its
        # files (the issue's "Publishing the output failed: Directory not
        # empty", and a published tree deleted under it).
        r = self.import_repo("Reused Guide", repo)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["slug"], slug)
        build = self.wait_build(slug, self.token)
        self.assertTrue(build["success"], build)
        host = "%s.localhost:%d" % (slug, self.server.port)
        self.assertStatus(self.server.get("/en/latest/index.html", host=host), 200)
        for path in (os.path.join("published", slug, "latest"), os.path.join("repos", slug + ".git"),
                     os.path.join("outputs", str(build["id"]))):
            self.assertTrue(os.path.exists(os.path.join(self.server.data, path)), path)


class CrashedRemovalTest(unittest.TestCase):
    """A server killed in the middle of deleting a removed project's files:
    the removal stays recorded, its slug taken, and the next server to
    start on the data directory finishes it, touching nothing of another
    project."""

    def test_the_next_server_finishes_it(self):
        server = Server()
        again = None
        try:
            token = server.token("owner")
            for name in ("Crash Guide", "Bystander"):
                server.import_project(token, name)
            data = server.data
            db = sqlite3.connect(os.path.join(data, "lectern.db"), timeout=30)
            ids = dict(db.execute("SELECT p.slug, b.id FROM builds b JOIN projects p ON p.id = b.project_id"))
            db.close()
            # What builds would have left: a published tree, a big kept
            # tree, an output (the builds queued, no worker runs them).
            places = {}
            for slug in ("crash-guide", "bystander"):
                places[slug] = [os.path.join(data, "published", slug, "latest", "html"),
                                os.path.join(data, "outputs", str(ids[slug]), "html"),
                                os.path.join(data, "checkouts", slug, "latest")]
                for place in places[slug]:
                    os.makedirs(place)
                    with open(os.path.join(place, "index.html"), "w") as f:
                        f.write("<p>%s</p>" % slug)
            plant_tree(os.path.join(data, "checkouts", "crash-guide", "big"))
            self.assertStatus(server.delete("/api/v3/projects/crash-guide/", token=token), 204)
            # Killed once the deletion is under way (published/ goes
            # first), long before the big tree is gone.
            deadline = time.time() + BUILD_TIMEOUT
            while os.path.exists(places["crash-guide"][0]):
                self.assertLess(time.time(), deadline)
                time.sleep(0.005)
            server.proc.send_signal(signal.SIGKILL)
            server.proc.wait(30)
            self.assertTrue(pending_removal(data, "crash-guide"), "the removal ended before the kill")
            self.assertTrue(os.path.exists(os.path.join(data, "checkouts", "crash-guide")))
            again = Server(data=data)
            r = self.import_again(again, token)
            if pending_removal(data, "crash-guide"):
                self.assertEqual((r.status, r.json), (400, {"name": [BEING_REMOVED % "crash-guide"]}))
            wait_removed(self, data, "crash-guide")
            for path in places["crash-guide"] + [os.path.join(data, "checkouts", "crash-guide")]:
                self.assertFalse(os.path.exists(path), path)
            for path in places["bystander"]:
                self.assertTrue(os.path.exists(os.path.join(path, "index.html")), path)
            self.assertStatus(self.import_again(again, token), 201)
        finally:
            server.stop()
            if again:
                self.assertEqual(again.stop(), 0, again.log())
                again.cleanup()
            server.cleanup()

    def import_again(self, server, token):
        return server.post("/api/v3/projects/", {"name": "Crash Guide", "repository": {
            "url": "https://github.com/example/crash-guide.git"}}, token=token)

    def assertStatus(self, response, status):
        self.assertEqual(response.status, status, response)


if __name__ == "__main__":
    main()
