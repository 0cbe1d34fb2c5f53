"""Per-user quotas against a flood (issue 36, finding 9: one token imported
40 projects in 0.08 s, and nothing capped its queue of builds). Imports
past the hour's allowance are DRF's throttled 429 with Retry-After; a
trigger, an activation, an import or a webhook delivery that would queue
a build past the owner's limit is a 429 with the same shape and no
Retry-After, and changes nothing; another user is unaffected
(docs/api.md, "Quotas")."""
import re

from lectern_test import ServerTestCase, Store, main

THROTTLED = re.compile(r"Request was throttled\. Expected available in ([0-9]+) seconds?\.")
QUEUE_FULL = ("Request was throttled. This owner's projects have 2 builds waiting to start, "
              "the most one owner may queue; try again once some have started.")


class ImportLimitTest(ServerTestCase):
    # Three imports an hour: a burst of three, then one every 20 minutes.
    SERVER_ARGS = ("--import-limit", "3")

    def test_imports_past_the_hour_are_throttled(self):
        alice = self.server.token("alice")
        for i in range(3):
            self.import_project(alice, "Alice %d" % i)
        r = self.server.post("/api/v3/projects/", {
            "name": "Alice 3", "repository": {"url": "https://github.com/x/a3"}}, token=alice)
        self.assertStatus(r, 429)
        self.assertEqual(list(r.json), ["detail"])
        m = THROTTLED.fullmatch(r.json["detail"])
        self.assertIsNotNone(m, r.json)
        wait = int(m.group(1))
        self.assertEqual(r.header("Retry-After"), str(wait))
        self.assertTrue(1100 < wait <= 1200, wait)
        self.assertEqual(r.header("Content-Type"), "application/json")
        # Nothing was made, and the rate is the user's: even a body that
        # would be refused is refused for the rate first, as DRF's is.
        self.assertStatus(self.server.get("/api/v3/projects/alice-3/", token=alice), 404)
        self.assertEqual(self.server.get("/api/v3/projects/", token=alice).json["count"], 3)
        self.assertStatus(self.server.post("/api/v3/projects/", {}, token=alice), 429)
        # Another user imports as before; anonymous is still a 401.
        bob = self.server.token("bob")
        self.import_project(bob, "Bob 0")
        self.assertStatus(self.server.post("/api/v3/projects/", {"name": "anon"}), 401)


class QueueLimitTest(ServerTestCase):
    # No workers (the default of these tests): every build stays queued.
    SERVER_ARGS = ("--queue-limit", "2")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)

    def assertQueueFull(self, r):
        self.assertDetail(r, 429, QUEUE_FULL)
        self.assertIsNone(r.header("Retry-After"))

    def queued(self, username):
        return self.store.rows(
            "SELECT count(*) FROM builds b JOIN project_users pu ON pu.project_id = b.project_id"
            " JOIN users u ON u.id = pu.user_id WHERE u.username = ? AND b.state = 'triggered'",
            (username,))[0][0]

    def test_builds_past_the_owners_queue_are_refused(self):
        carol = self.server.token("carol")
        first = self.import_project(carol, "Carol 0")["slug"]
        self.import_project(carol, "Carol 1")
        self.assertEqual(self.queued("carol"), 2)
        # An import queues a build: refused, and no project is made.
        r = self.server.post("/api/v3/projects/", {
            "name": "Carol 2", "repository": {"url": "https://github.com/x/c2"}}, token=carol)
        self.assertQueueFull(r)
        self.assertStatus(self.server.get("/api/v3/projects/carol-2/", token=carol), 404)
        # A new build of a queued version replaces it: always allowed.
        builds = "/api/v3/projects/%s/versions/latest/builds/" % first
        self.assertStatus(self.server.post(builds, token=carol), 202)
        self.assertEqual(self.queued("carol"), 2)
        # Another version's build, or a version's activation: refused,
        # and the version stays as it was.
        self.store.version(first, "dev")
        self.store.version(first, "old", active=0)
        self.assertQueueFull(self.server.post(
            "/api/v3/projects/%s/versions/dev/builds/" % first, token=carol))
        path = "/api/v3/projects/%s/versions/old/" % first
        self.assertQueueFull(self.server.patch(path, {"active": True}, token=carol))
        self.assertFalse(self.server.get(path, token=carol).json["active"])
        # A webhook's builds are the owner's too.
        self.assertStatus(self.server.post("/api/v3/projects/%s/integrations/" % first,
                                           {"integration_type": "api_webhook"}, token=carol), 201)
        r = self.server.request("POST", "/api/v2/webhook/generic/%s/" % first, raw=b"{}",
                                token=carol, headers={"Content-Type": "application/json"})
        self.assertQueueFull(r)
        self.assertEqual(self.queued("carol"), 2)
        # Another user is unaffected.
        dave = self.server.token("dave")
        other = self.import_project(dave, "Dave 0")["slug"]
        self.assertStatus(self.server.post(
            "/api/v3/projects/%s/versions/latest/builds/" % other, token=dave), 202)
        # Once one of the owner's builds leaves the queue, there is room.
        build = self.server.get("/api/v3/projects/%s/builds/" % first, token=carol).json["results"][0]
        self.assertStatus(self.server.post(
            "/api/v3/projects/%s/builds/%d/cancel/" % (first, build["id"]), token=carol), 202)
        self.assertStatus(self.server.post(
            "/api/v3/projects/%s/versions/dev/builds/" % first, token=carol), 202)
        self.assertEqual(self.queued("carol"), 2)


class DefaultLimitsTest(ServerTestCase):
    """The defaults, as a plain `lectern serve` has them: 30 imports an
    hour (the flood the issue measured was 40), 50 builds waiting per
    owner."""

    def test_defaults(self):
        erin = self.server.token("erin")
        for i in range(30):
            self.import_project(erin, "Erin %02d" % i)
        r = self.server.post("/api/v3/projects/", {
            "name": "Erin 30", "repository": {"url": "https://github.com/x/e30"}}, token=erin)
        self.assertStatus(r, 429)
        self.assertIsNotNone(THROTTLED.fullmatch(r.json["detail"]), r.json)
        self.assertTrue(100 < int(r.header("Retry-After")) <= 120, r.header("Retry-After"))
        # Twenty more builds waiting, of versions that exist, make 50.
        store = Store(self.server)
        for i in range(20):
            store.version("erin-00", "v%02d" % i)
        store.execute("INSERT INTO builds (project_id, version_id, created)"
                      " SELECT project_id, id, 0 FROM versions WHERE slug LIKE 'v__'"
                      " AND project_id = (SELECT id FROM projects WHERE slug = 'erin-00')")
        store.version("erin-00", "one-more")
        r = self.server.post("/api/v3/projects/erin-00/versions/one-more/builds/", token=erin)
        self.assertDetail(r, 429, QUEUE_FULL.replace("have 2", "have 50"))
        frank = self.server.token("frank")
        self.import_project(frank, "Frank")


if __name__ == "__main__":
    main()
