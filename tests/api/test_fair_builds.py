"""Fair builds through a real `lectern serve` with two workers: alice
queues four slow builds, then bob one, and bob's starts before alice's
third (a worker each for alice's first two, then bob's turn); and a
project never has two builds at once, even when a new trigger cancels a
running build whose sandbox is still being stopped."""
import os
import sqlite3
import time

import fixtures
from lectern_test import POLL_SECONDS, ServerTestCase, main

# A build of a tiny project takes well under this even under ASan.
BUILD_TIMEOUT = 180
# A build that holds while its checkout has the file hold (at most 90 s):
# the queue is still full when bob's build is queued, and builds() lets
# each go on.
SLOW = fixtures.commands_config(
    "i=0; while [ -e hold ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done")
SLOW["hold"] = "the build holds while this is in its checkout\n"
ALICE_PROJECTS = 4


class FairBuildsTest(ServerTestCase):
    SERVER_ARGS = ("--workers", "2", "--build-timeout", "60")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")

    def builds(self, slugs):
        """(slug, id, started, finished) of every build of these projects,
        in microseconds, once all of them have ended, each let go on once
        its checkout is there."""
        marks = ",".join("?" * len(slugs))
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            for slug in slugs:
                try:
                    os.unlink(os.path.join(self.server.data, "checkouts", slug, "latest", "hold"))
                except FileNotFoundError:
                    pass
            db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
            rows = db.execute(
                "SELECT p.slug, b.id, b.started, b.finished, b.held FROM builds b "
                "JOIN projects p ON p.id = b.project_id WHERE p.slug IN (%s) "
                "ORDER BY b.id" % marks, slugs).fetchall()
            db.close()
            if rows and all(r[3] is not None and r[4] == 0 for r in rows):
                return [r[:4] for r in rows]
            time.sleep(POLL_SECONDS)
        self.fail("builds did not end: %r" % (rows,))

    def create(self, token, name):
        repo = fixtures.make_repo(SLOW)
        r = self.server.post("/api/v3/projects/", {
            "name": name, "repository": {"url": "file://" + repo}}, token=token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def test_bob_waits_for_one_build_per_worker_at_most(self):
        alice = [self.create(self.alice, "Alice %d" % i) for i in range(ALICE_PROJECTS)]
        bob = self.create(self.bob, "Bob")
        rows = self.builds(alice + [bob])
        by_start = [r[0] for r in sorted(rows, key=lambda r: r[2])]
        # Two workers: at most alice's first two started before bob's.
        self.assertLessEqual(by_start.index(bob), 2, rows)

    def test_one_build_per_project(self):
        slug = self.create(self.alice, "Single")
        path = "/api/v3/projects/%s/builds/" % slug
        deadline = time.time() + BUILD_TIMEOUT
        while self.server.get(path, token=self.alice).json["results"][0]["state"]["code"] \
                in ("triggered", "cloning"):
            self.assertLess(time.time(), deadline)
            time.sleep(0.1)
        # A new trigger cancels the running build; the next may start only
        # once that build's worker has let go of it.
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.alice)
        self.assertStatus(r, 202)
        first, second = self.builds([slug])
        self.assertGreaterEqual(second[2], first[3], (first, second))


if __name__ == "__main__":
    main()
