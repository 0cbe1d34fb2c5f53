"""v3 notifications against a real `lectern serve` with a build worker: a
failing build raises one notification on the build, with the service's
shape (the field sets of its v3 test responses notifications-list.json and
projects-builds-notifications-list.json); a version failing after it passed
raises one on its project, which the admin's feed lists and which is
cancelled when the version passes again; the state filters, PATCH and PUT
of the state, pagination; who may see and change what; and that the
_links.notifications of projects and builds now resolve."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import fixtures  # noqa: E402
from lectern_test import POLL_SECONDS, ServerTestCase, Store, main  # noqa: E402

BUILD_TIMEOUT = 180
# The service's fields (its v3 test responses), and Lectern's "project" and
# "build": what a notification is about (issue 43, item 4).
NOTIFICATION_KEYS = {"_links", "attached_to_content_type", "attached_to_id",
                     "build", "dismissable", "id", "message", "news", "project",
                     "state"}
MESSAGE_KEYS = {"body", "header", "icon_classes", "id", "type"}
NO_PROJECT = "No Project matches the given query."
NO_NOTIFICATION = "No Notification matches the given query."
UNAUTHENTICATED = "Authentication credentials were not provided."
FORBIDDEN = "You do not have permission to perform this action."
PASSING = fixtures.commands_config(
    "mkdir -p $READTHEDOCS_OUTPUT/html",
    "echo ok > $READTHEDOCS_OUTPUT/html/index.html")
FAILING = fixtures.commands_config("echo about to fail", "exit 3")


def eventually(check, seconds=30):
    """check() until it passes, for a few seconds: a build's notifications
    are raised just after it is final (as the service's task queue raises
    them), so a read right after the build may come first."""
    deadline = time.time() + seconds
    while True:
        try:
            return check()
        except AssertionError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


class NotificationsTest(ServerTestCase):
    SERVER_ARGS = ("--build-timeout", "30", "--workers", "1")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        # A project that fails from its first build.
        cls.broken_repo = fixtures.make_repo(FAILING)
        cls.broken = cls.import_repo("Broken", cls.broken_repo)
        cls.broken_build = cls.wait_build(cls.broken)

        def raised():
            r = s.get("/api/v3/projects/%s/builds/%d/notifications/"
                      % (cls.broken, cls.broken_build["id"]), token=cls.alice)
            assert r.json["count"] == 1, r.json
        eventually(raised)
        # A project that passes, then fails, then passes again.
        cls.flaky_repo = fixtures.make_repo(PASSING)
        cls.flaky = cls.import_repo("Flaky", cls.flaky_repo)
        cls.flaky_first = cls.wait_build(cls.flaky)

    @classmethod
    def import_repo(cls, name, repo):
        r = cls.server.post("/api/v3/projects/",
                            {"name": name, "repository": {"url": "file://" + repo}},
                            token=cls.alice)
        assert r.status == 201, r
        return r.json["slug"]

    @classmethod
    def wait_build(cls, slug, after=0):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = cls.server.get("/api/v3/projects/%s/builds/" % slug,
                                    token=cls.alice).json["results"]
            done = [b for b in builds if b["id"] > after
                    and b["state"]["code"] in ("finished", "cancelled")]
            if done:
                return done[0]
            time.sleep(POLL_SECONDS)
        raise AssertionError("no build of %s finished: %r" % (slug, builds))

    def commit(self, repo, files, message):
        for path, text in files.items():
            with open(os.path.join(repo, path), "w") as f:
                f.write(text)
        fixtures.git(repo, "commit", "-q", "-am", message)

    def rebuild(self, slug, after):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.alice)
        self.assertStatus(r, 202)
        return self.wait_build(slug, after)

    def assertShape(self, n):
        self.assertEqual(set(n), NOTIFICATION_KEYS)
        self.assertEqual(set(n["message"]), MESSAGE_KEYS)
        self.assertEqual(set(n["_links"]), {"_self"})
        self.assertIn(n["state"], ("unread", "read", "dismissed", "cancelled"))
        self.assertIs(n["dismissable"], False)
        self.assertIs(n["news"], False)

    def build_notifications(self, slug, build, token=None, query=""):
        return self.server.get("/api/v3/projects/%s/builds/%d/notifications/%s"
                               % (slug, build["id"], query), token=token)

    # A failing build raises one notification, shaped as the service's.

    def test_failing_build_raises_one(self):
        self.assertFalse(self.broken_build["success"])
        r = self.build_notifications(self.broken, self.broken_build, self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(set(r.json), {"count", "next", "previous", "results"})
        self.assertEqual(r.json["count"], 1)
        n = r.json["results"][0]
        self.assertShape(n)
        self.assertEqual(n["attached_to_content_type"], "build")
        self.assertEqual(n["attached_to_id"], self.broken_build["id"])
        self.assertEqual(n["message"]["id"], "build:user:generic")
        self.assertEqual(n["message"]["type"], "error")
        self.assertEqual(n["message"]["icon_classes"], "fas fa-circle-xmark")
        self.assertIn('Command "exit 3" failed', n["message"]["body"])
        self.assertEqual(n["state"], "unread")
        self.assertEqual(
            n["_links"]["_self"],
            "%s/api/v3/projects/%s/builds/%d/notifications/%d/"
            % (self.server.base, self.broken, self.broken_build["id"], n["id"]))
        # The link resolves to the same object.
        detail = self.server.get(n["_links"]["_self"][len(self.server.base):],
                                 token=self.alice)
        self.assertStatus(detail, 200)
        self.assertEqual(detail.json, n)
        # What it is about: its project and its build, to open.
        self.assertEqual(n["project"], self.broken)
        self.assertEqual(n["build"], {
            "id": self.broken_build["id"], "version": "latest",
            "_links": {"_self": "%s/api/v3/projects/%s/builds/%d/"
                       % (self.server.base, self.broken, self.broken_build["id"])}})
        # A passing build has none.
        r = self.build_notifications(self.flaky, self.flaky_first, self.alice)
        self.assertEqual(r.json["count"], 0)

    def test_failing_first_build_raises_one_on_the_project(self):
        """A version whose first build fails raises the project's
        notification too (issue 43, item 4): the feed lists it, naming the
        project, the version and the build."""
        def raised():
            r = self.server.get("/api/v3/projects/%s/notifications/" % self.broken,
                                token=self.alice)
            self.assertEqual(r.json["count"], 1, r.json)
            return r.json["results"][0]
        n = eventually(raised)
        self.assertShape(n)
        self.assertEqual(n["message"]["id"], "project:version:build-failing")
        self.assertEqual(n["attached_to_content_type"], "project")
        # The newest failure of the project's version (test_pagination may
        # have built it again): it names that build.
        newest = self.server.get("/api/v3/projects/%s/builds/?limit=1" % self.broken,
                                 token=self.alice).json["results"][0]
        build = n["build"]["id"]
        self.assertIn(build, (self.broken_build["id"], newest["id"]))
        self.assertEqual(n["message"]["header"],
                         "%s/latest: its first build, #%d, failed" % (self.broken, build))
        self.assertIn('of %s has not built yet' % self.broken, n["message"]["body"])
        self.assertEqual(n["project"], self.broken)
        self.assertEqual(n["build"]["version"], "latest")
        feed = self.server.get("/api/v3/notifications/", token=self.alice).json
        self.assertIn(n["id"], [x["id"] for x in feed["results"]])

    def test_links_resolve(self):
        project = self.server.get("/api/v3/projects/%s/" % self.broken,
                                  token=self.alice).json
        link = project["_links"]["notifications"]
        self.assertStatus(self.server.get(link[link.index("/api/"):],
                                          token=self.alice), 200)
        build = self.server.get("/api/v3/projects/%s/builds/%d/"
                                % (self.broken, self.broken_build["id"]),
                                token=self.alice).json
        link = build["_links"]["notifications"]
        self.assertStatus(self.server.get(link[link.index("/api/"):]), 200)

    # Regression of a version, in the project's list and the admin's feed.

    def test_version_failing_after_passing(self):
        fail = self.rebuild_with(FAILING, "break it", self.flaky_first["id"])
        self.assertFalse(fail["success"])
        def raised():
            r = self.server.get("/api/v3/projects/%s/notifications/" % self.flaky,
                                token=self.alice)
            self.assertStatus(r, 200)
            self.assertEqual(r.json["count"], 1)
            return r
        r = eventually(raised)
        n = r.json["results"][0]
        self.assertShape(n)
        self.assertEqual(n["message"]["id"], "project:version:build-failing")
        self.assertEqual(n["attached_to_content_type"], "project")
        self.assertIn("#%d" % fail["id"], n["message"]["body"])
        # It names the project, the version and the build, not an id.
        self.assertEqual(n["message"]["header"],
                         "%s/latest: build #%d failed; it built before"
                         % (self.flaky, fail["id"]))
        self.assertEqual(n["project"], self.flaky)
        self.assertEqual((n["build"]["id"], n["build"]["version"]),
                         (fail["id"], "latest"))
        feed = self.server.get("/api/v3/notifications/", token=self.alice)
        self.assertStatus(feed, 200)
        self.assertIn(n["id"], [x["id"] for x in feed.json["results"]])
        for x in feed.json["results"]:
            self.assertShape(x)
            # Build notifications are the build's, not the feed's.
            self.assertNotEqual(x["attached_to_content_type"], "build")
        # Bob administers nothing of Alice's.
        self.assertEqual(self.server.get("/api/v3/notifications/",
                                         token=self.bob).json["count"], 0)
        # Passing again cancels it: gone from the feed, kept as cancelled.
        passed = self.rebuild_with(PASSING, "fix it", fail["id"])
        self.assertTrue(passed["success"])

        def cancelled():
            feed = self.server.get("/api/v3/notifications/", token=self.alice).json
            self.assertNotIn(n["id"], [x["id"] for x in feed["results"]])
            r = self.server.get("/api/v3/projects/%s/notifications/?state=cancelled"
                                % self.flaky, token=self.alice)
            self.assertEqual([x["id"] for x in r.json["results"]], [n["id"]])
        eventually(cancelled)

    def rebuild_with(self, files, message, after):
        self.commit(self.flaky_repo, files, message)
        return self.rebuild(self.flaky, after)

    # States: PATCH and PUT, filters.

    def test_patch_state_and_filters(self):
        base = "/api/v3/projects/%s/builds/%d/notifications/" % (
            self.broken, self.broken_build["id"])
        n = self.server.get(base, token=self.alice).json["results"][0]
        url = "%s%d/" % (base, n["id"])
        # A change answers 204 with no body, as the service's UpdateMixin.
        r = self.server.patch(url, {"state": "read"}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        got = self.server.get(url, token=self.alice).json
        self.assertEqual(got["state"], "read")
        self.assertShape(got)
        r = self.server.get(base + "?state=unread", token=self.alice)
        self.assertEqual(r.json["count"], 0)
        r = self.server.get(base + "?state__in=unread,read", token=self.alice)
        self.assertEqual(r.json["count"], 1)
        r = self.server.get(base + "?state=read&state__in=dismissed", token=self.alice)
        self.assertEqual(r.json["count"], 0)
        r = self.server.get(base + "?state=bogus", token=self.alice)
        self.assertStatus(r, 400)
        self.assertIn("state", r.json)
        # Read-only fields are ignored; a bad state is the field's 400.
        r = self.server.patch(url, {"state": "gone", "news": True}, token=self.alice)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"state": ['"gone" is not a valid choice.']})
        r = self.server.put(url, {"state": "dismissed", "dismissable": True},
                            token=self.alice)
        self.assertStatus(r, 204)
        got = self.server.get(url, token=self.alice).json
        self.assertEqual(got["state"], "dismissed")
        self.assertIs(got["dismissable"], False)
        r = self.server.patch(url, {"state": "unread"}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(url, token=self.alice).json["state"],
                         "unread")
        r = self.server.patch(url, {"state": 3}, token=self.alice)
        self.assertStatus(r, 400)
        r = self.server.request("PATCH", url, raw=b"{", token=self.alice,
                                headers={"Content-Type": "application/json"})
        self.assertStatus(r, 400)
        self.assertDetail(self.server.get(base + "999999/", token=self.alice),
                          404, NO_NOTIFICATION)
        self.assertDetail(self.server.get(base + "x/", token=self.alice),
                          404, "Not found.")

    def test_pagination(self):
        # Two more builds of the broken project, each with its notification.
        last = self.broken_build["id"]
        for _ in range(2):
            last = self.rebuild(self.broken, last)["id"]
        # Each build's list has its own; the pages follow the v3 envelope.
        builds = self.server.get("/api/v3/projects/%s/builds/" % self.broken,
                                 token=self.alice).json["results"]

        def each_has_one():
            for b in builds:
                r = self.build_notifications(self.broken, b, self.alice, "?limit=1")
                self.assertEqual(r.json["count"], 1, b)
                self.assertIsNone(r.json["next"])
        eventually(each_has_one)

    # Permissions.

    def test_permissions(self):
        b = self.broken_build
        base = "/api/v3/projects/%s/builds/%d/notifications/" % (self.broken, b["id"])
        n = self.server.get(base, token=self.alice).json["results"][0]
        url = "%s%d/" % (base, n["id"])
        # A public build's notifications are anyone's to read ...
        self.assertStatus(self.server.get(base), 200)
        self.assertStatus(self.server.get(url, token=self.bob), 200)
        # ... and only its admins' to change.
        self.assertDetail(self.server.patch(url, {"state": "read"}),
                          401, UNAUTHENTICATED)
        self.assertDetail(self.server.patch(url, {"state": "read"}, token=self.bob),
                          403, FORBIDDEN)
        # A project's are its admins'.
        proj = "/api/v3/projects/%s/notifications/" % self.broken
        self.assertDetail(self.server.get(proj), 401, UNAUTHENTICATED)
        self.assertDetail(self.server.get(proj, token=self.bob), 403, FORBIDDEN)
        # The feed wants a user.
        self.assertDetail(self.server.get("/api/v3/notifications/"),
                          401, UNAUTHENTICATED)
        # Bob cannot reach Alice's through his feed either.
        self.assertDetail(self.server.get("/api/v3/notifications/%d/" % n["id"],
                                          token=self.bob), 404, NO_NOTIFICATION)
        # Another project's path does not reach this build's notification.
        self.assertDetail(self.server.get("/api/v3/projects/%s/notifications/%d/"
                                          % (self.broken, n["id"]), token=self.alice),
                          404, NO_NOTIFICATION)
        # A private project's builds are hidden from others, as the project.
        db = Store(self.server)
        db.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = ?",
                   (self.broken,))
        try:
            self.assertDetail(self.server.get(base, token=self.bob), 404, NO_PROJECT)
            self.assertStatus(self.server.get(base, token=self.alice), 200)
        finally:
            db.execute("UPDATE projects SET privacy_level = 'public' WHERE slug = ?",
                       (self.broken,))

    def test_organizations_are_business_only(self):
        self.assertDetail(self.server.get("/api/v3/organizations/acme/notifications/",
                                          token=self.alice), 404, "Not found.")


class OrganizationNotificationsTest(ServerTestCase):
    """The business edition's organization notifications: Lectern raises
    none of its own yet, so one is written into the store as the service's
    would be (its organizations-notifications-list.json)."""
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.owen = s.token("owen")
        cls.tess = s.token("tess")
        cls.zed = s.token("zed")
        s.lectern("org", "create", "acme", "--owner", "owen", "--name", "Acme")
        s.lectern("org", "team", "create", "acme", "Writers", "--access", "admin")
        s.lectern("org", "team", "add", "acme", "writers", "tess")
        db = Store(s)
        org = db.rows("SELECT id FROM organizations WHERE slug = 'acme'")[0][0]
        cls.note = db.execute(
            "INSERT INTO notifications (message_id, attached_type, attached_id,"
            " type, header, body, created, modified) VALUES"
            " ('organization:disabled', 'organization', ?, 'info',"
            " 'Your organization has been disabled', 'Renew it.', 1, 1)", (org,))
        cls.org = org

    def test_owner_lists_changes_and_feeds(self):
        base = "/api/v3/organizations/acme/notifications/"
        r = self.server.get(base, token=self.owen)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["count"], 1)
        n = r.json["results"][0]
        self.assertEqual(set(n), NOTIFICATION_KEYS)
        self.assertEqual(n["attached_to_content_type"], "organization")
        self.assertEqual(n["attached_to_id"], self.org)
        self.assertEqual(n["message"]["icon_classes"], "fas fa-circle-info")
        self.assertEqual(n["_links"]["_self"], "%s%s%d/" % (self.server.base, base, n["id"]))
        feed = self.server.get("/api/v3/notifications/", token=self.owen).json
        self.assertEqual([x["id"] for x in feed["results"]], [n["id"]])
        detail = "%s%d/" % (base, n["id"])
        r = self.server.patch(detail, {"state": "read"}, token=self.owen)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(detail, token=self.owen).json["state"], "read")
        # Through the feed's own detail too.
        r = self.server.patch("/api/v3/notifications/%d/" % n["id"], {"state": "unread"},
                              token=self.owen)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(detail, token=self.owen).json["state"], "unread")

    def test_user_notifications(self):
        db = Store(self.server)
        owen = db.rows("SELECT id FROM users WHERE username = 'owen'")[0][0]
        note = db.execute(
            "INSERT INTO notifications (message_id, attached_type, attached_id,"
            " type, header, body, created, modified) VALUES"
            " ('core:email:validation-pending', 'user', ?, 'warning',"
            " 'Email address not verified', 'Verify it.', 2, 2)", (owen,))
        base = "/api/v3/users/owen/notifications/"
        r = self.server.get(base, token=self.owen)
        self.assertStatus(r, 200)
        self.assertEqual([n["id"] for n in r.json["results"]], [note])
        n = r.json["results"][0]
        self.assertEqual(n["attached_to_content_type"], "user")
        self.assertEqual(n["message"]["icon_classes"], "fas fa-circle-exclamation")
        self.assertEqual(n["_links"]["_self"], "%s%s%d/" % (self.server.base, base, note))
        self.assertStatus(self.server.get("%s%d/" % (base, note), token=self.owen), 200)
        self.assertDetail(self.server.get(base, token=self.zed), 403, FORBIDDEN)
        self.assertIn(note, [x["id"] for x in self.server.get(
            "/api/v3/notifications/", token=self.owen).json["results"]])
        db.execute("DELETE FROM notifications WHERE id = ?", (note,))

    def test_others(self):
        base = "/api/v3/organizations/acme/notifications/"
        self.assertDetail(self.server.get(base, token=self.tess), 403, FORBIDDEN)
        self.assertDetail(self.server.get(base, token=self.zed), 404,
                          "No Organization matches the given query.")
        self.assertDetail(self.server.get("/api/v3/organizations/nope/notifications/",
                                          token=self.owen), 404,
                          "No Organization matches the given query.")
        self.assertDetail(self.server.get(base), 401, UNAUTHENTICATED)
        self.assertEqual(self.server.get("/api/v3/notifications/",
                                         token=self.tess).json["count"], 0)


if __name__ == "__main__":
    main()
