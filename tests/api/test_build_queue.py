"""Lectern's builds across projects and the queue (issue 31, item 6):
GET /api/v3/builds/ lists the builds of every project the requester
administers, newest first, in the v3 build shape, with the `running`
filter and paging; GET /api/v3/builds/queue/ gives the requester's waiting
builds their place in the instance's queue (other users' builds count
there but are not shown); GET /api/v3/builds/activity/ (issue 43, item
2) gives the newest build and the unfinished ones, tagged so that a
client asking again gets a 304 until a build comes, goes or ends; all
want a token. No workers run, so every build waits."""
from lectern_test import ServerTestCase, main

BUILD_KEYS = [
    "_links", "commit", "created", "duration", "error", "finished", "id",
    "project", "state", "success", "urls", "version", "version_type",
]


class BuildQueueTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        # Imports queue a build each, in this order: alice's, bob's,
        # alice's.
        for token, name in ((cls.alice, "Alpha"), (cls.bob, "Bravo"), (cls.alice, "Charlie")):
            s.import_project(token, name)

    def trigger(self, token, slug):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=token)
        self.assertStatus(r, 202)
        return r.json["build"]["id"]

    def test_builds_across_projects(self):
        r = self.server.get("/api/v3/builds/", token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual([b["project"] for b in body["results"]], ["charlie", "alpha"])
        self.assertEqual(body["count"], 2)
        for build in body["results"]:
            self.assertEqual(sorted(build), BUILD_KEYS)
            self.assertEqual(build["version"], "latest")
            self.assertEqual(build["state"]["code"], "triggered")
        self.assertEqual(self.server.get("/api/v3/builds/", token=self.bob).json["count"], 1)
        r = self.server.get("/api/v3/builds/?running=false", token=self.alice)
        self.assertEqual(r.json["count"], 0)
        r = self.server.get("/api/v3/builds/?limit=1&offset=1", token=self.alice)
        self.assertEqual([b["project"] for b in r.json["results"]], ["alpha"])
        self.assertIsNotNone(r.json["previous"])
        self.assertStatus(self.server.get("/api/v3/builds/"), 401)

    def test_queue_places(self):
        r = self.server.get("/api/v3/builds/queue/", token=self.alice)
        self.assertStatus(r, 200)
        body = r.json
        self.assertEqual(body["count"], 3)
        self.assertEqual([(q["project"], q["position"], q["version"]) for q in body["results"]],
                         [("alpha", 1, "latest"), ("charlie", 3, "latest")])
        bob = self.server.get("/api/v3/builds/queue/", token=self.bob).json
        self.assertEqual([(q["project"], q["position"]) for q in bob["results"]], [("bravo", 2)])
        self.assertStatus(self.server.get("/api/v3/builds/queue/"), 401)
        # A new trigger of alpha supersedes its waiting build: it goes to
        # the back of the queue.
        new = self.trigger(self.alice, "alpha")
        body = self.server.get("/api/v3/builds/queue/", token=self.alice).json
        self.assertEqual(body["count"], 3)
        self.assertEqual([(q["id"], q["project"], q["position"]) for q in body["results"]][-1],
                         (new, "alpha", 3))
        self.assertEqual([(q["project"], q["position"]) for q in body["results"]],
                         [("charlie", 2), ("alpha", 3)])
        # A project's own builds list keeps the service's build shape.
        r = self.server.get("/api/v3/projects/alpha/builds/", token=self.alice)
        for build in r.json["results"]:
            self.assertEqual(sorted(build), BUILD_KEYS)

    def test_status(self):
        """GET /api/v3/status/ (issue 43, item 1): what `lectern status`
        shows of a remote engine: its version, workers and the instance's
        unfinished builds, to any authenticated user."""
        r = self.server.get("/api/v3/status/", token=self.bob)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(sorted(body), ["_links", "builds", "edition", "version", "workers"])
        self.assertEqual(body["edition"], "community")
        self.assertEqual(body["workers"], 0)
        version = self.server.lectern("--version").stdout.strip().split()[-1]
        self.assertEqual(body["version"], version)
        # The whole instance's: bob's build and alice's two wait.
        self.assertEqual(body["builds"], {"running": 0, "waiting": 3})
        self.assertTrue(body["_links"]["queue"].endswith("/api/v3/builds/queue/"), body)
        self.assertTrue(body["_links"]["builds"].endswith("/api/v3/builds/?running=true"), body)
        self.assertStatus(self.server.get("/api/v3/status/"), 401)
        self.assertStatus(self.server.post("/api/v3/status/", token=self.bob), 405)


class BuildActivityTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        for token, name in ((cls.alice, "Alpha"), (cls.bob, "Bravo"), (cls.alice, "Charlie")):
            s.import_project(token, name)

    def test_activity(self):
        r = self.server.get("/api/v3/builds/activity/", token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(sorted(r.json), ["newest", "unfinished"])
        newest = self.server.get("/api/v3/builds/?limit=1", token=self.bob).json["results"][0]["id"]
        self.assertGreaterEqual(r.json["newest"], newest)
        self.assertGreaterEqual(r.json["unfinished"], 3)
        etag = r.header("ETag")
        self.assertTrue(etag)
        again = self.server.get("/api/v3/builds/activity/", token=self.alice,
                                headers={"If-None-Match": etag})
        self.assertStatus(again, 304)
        # Bob's new build moves it for alice too: a screen of builds
        # asks for its lists again.
        r = self.server.post("/api/v3/projects/bravo/versions/latest/builds/", token=self.bob)
        self.assertStatus(r, 202)
        new = r.json["build"]["id"]
        moved = self.server.get("/api/v3/builds/activity/", token=self.alice,
                                headers={"If-None-Match": etag})
        self.assertStatus(moved, 200)
        self.assertEqual(moved.json["newest"], new)
        self.assertStatus(self.server.get("/api/v3/builds/activity/"), 401)


if __name__ == "__main__":
    main()
