"""Builds on commit for local repositories, through a real `lectern serve`
with build workers: a commit on a watched branch of a file:// project is
built within a few seconds, with inotify and with the polling fallback; a
branch created and deleted there adds and then removes its version; a
project whose watch_commits is off builds nothing on commit; a remote
repository whose project has a poll_interval is fetched that often and a
new commit built; an interval under a minute is refused (issue 27: it
would hammer the forge), so the test sets a short one in the store.

That nothing happened is checked after the watcher's ticks (`--watch-log`
puts each look it takes in the server's log), not after a fixed time:
the refs listed after `git pack-refs` with nothing moved, the projects
read twice since a commit to a repository no longer watched, a remote
fetched again with nothing new."""
import os
import re
import subprocess
import tempfile
import time

import fixtures
from lectern_test import POLL_SECONDS, ServerTestCase, Store, main

# A build of a tiny Markdown project takes well under this, ASan included.
BUILD_TIMEOUT = 120


class WatchCase(ServerTestCase):
    SERVER_ARGS = ("--workers", "1", "--watch-debounce", "150", "--watch-log")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("writer")

    def builds(self, slug):
        return self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]

    def wait_for(self, what, check, timeout=BUILD_TIMEOUT):
        deadline = time.time() + timeout
        while time.time() < deadline:
            result = check()
            if result:
                return result
            time.sleep(POLL_SECONDS)
        self.fail("timed out waiting for " + what)

    def ticks(self, pattern):
        """How many of the server's log lines are ticks matching the regex."""
        return sum(1 for line in self.server.log().splitlines()
                   if re.fullmatch("lectern serve: " + pattern, line))

    def wait_ticks(self, pattern, since, count=1):
        """Until count more ticks match than since did."""
        deadline = time.time() + 30
        while self.ticks(pattern) < since + count:
            if time.time() > deadline:
                self.fail("%d x %r never came:\n%s" % (count, pattern, self.server.log()))
            time.sleep(POLL_SECONDS)

    def finished(self, slug, count):
        """The newest build once there are count builds and it is final."""
        def check():
            builds = self.builds(slug)
            if len(builds) >= count and builds[0]["state"]["code"] in ("finished", "cancelled"):
                return builds[0]
            return None
        return self.wait_for("build %d of %s" % (count, slug), check)

    def imported(self, name):
        repo = fixtures.make_repo(fixtures.MARKDOWN)
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": "file://" + repo}},
                             token=self.token)
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        self.assertTrue(self.finished(slug, 1)["success"])
        return repo, slug

    def commit(self, repo, text):
        with open(os.path.join(repo, "docs", "index.md"), "w") as f:
            f.write("# Markdown Guide\n\n%s\n" % text)
        fixtures.git(repo, "commit", "-q", "-am", text)
        return subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()

    def check_commit_builds(self):
        repo, slug = self.imported("Watched %s" % type(self).__name__)
        started = time.time()
        head = self.commit(repo, "Second words.")
        build = self.finished(slug, 2)
        self.assertTrue(build["success"], build)
        self.assertEqual(build["commit"], head)
        self.assertEqual(build["triggered_by"], "commit")
        self.assertNotIn("triggered_by", self.builds(slug)[1])
        self.assertLess(time.time() - started, 30)
        html = os.path.join(self.server.data, "published", slug, "latest", "html", "index.html")
        with open(html) as f:
            self.assertIn("Second words.", f.read())
        return repo, slug


class InotifyTest(WatchCase):
    def test_commit_builds_and_branches_sync(self):
        repo, slug = self.check_commit_builds()
        versions = lambda: {v["slug"] for v in self.server.get(
            "/api/v3/projects/%s/versions/?limit=100" % slug, token=self.token).json["results"]}
        fixtures.git(repo, "branch", "feature")
        self.wait_for("the new branch's version", lambda: "feature" in versions(), timeout=30)
        fixtures.git(repo, "branch", "-D", "feature")
        self.wait_for("the deleted branch's version gone", lambda: "feature" not in versions(),
                      timeout=30)
        # git gc moves refs into packed-refs: no build, no lost version.
        # The look it causes lists the refs, finds nothing moved, and has
        # made its builds (none) by the time it says so.
        listed = "commit watch: %s: refs listed, 0 moved" % slug
        since = self.ticks(listed)
        subprocess.run(["git", "-C", repo, "pack-refs", "--all"], check=True, env=fixtures.GIT_ENV)
        self.wait_ticks(listed, since)
        self.assertEqual(self.ticks("commit watch: %s: refs listed, 1 moved" % slug), 1)
        self.assertEqual(len(self.builds(slug)), 2)
        self.assertIn("latest", versions())

    def test_watching_turned_off(self):
        repo, slug = self.imported("Not Watched")
        # Watched first (the watcher reads its projects every two
        # seconds), then no more.
        self.wait_ticks("commit watch: watching %s" % slug, 0)
        r = self.server.request("PATCH", "/api/v3/projects/%s/" % slug, body={"watch_commits": False},
                                token=self.token)
        self.assertStatus(r, 204)
        # The watcher reads its projects again within two seconds.
        self.wait_ticks("commit watch: %s no longer watched" % slug, 0)
        read, listed = r"commit watch: projects read, \d+ watched", "commit watch: %s: refs listed.*" % slug
        since, looked = self.ticks(read), self.ticks(listed)
        self.commit(repo, "Unwatched words.")
        # Twice read since: two seconds at least, where a watched
        # repository's commit is looked at within the debounce.
        self.wait_ticks(read, since, count=2)
        self.assertEqual(self.ticks(listed), looked)
        self.assertEqual(len(self.builds(slug)), 1)


class RefLandedTest(WatchCase):
    """A ref renamed into place is a finished update: its refs are listed
    at once (engine/src/watch.c: WATCH_REF_SETTLE_MS), not a whole
    debounce later; any other change in the git directory waits it out."""
    DEBOUNCE = 20
    SERVER_ARGS = ("--workers", "1", "--watch-debounce", str(DEBOUNCE * 1000), "--watch-log")

    def test_a_commit_is_looked_at_before_the_debounce(self):
        repo, slug = self.imported("Landed")
        self.wait_ticks("commit watch: watching %s" % slug, 0)
        moved = "commit watch: %s: refs listed, 1 moved" % slug
        since = self.ticks(moved)
        # Something that is not a ref first: the debounce starts.
        with open(os.path.join(repo, ".git", "description.new"), "w") as f:
            f.write("not a ref\n")
        os.rename(os.path.join(repo, ".git", "description.new"),
                  os.path.join(repo, ".git", "description"))
        started = time.time()
        self.commit(repo, "Landed words.")
        self.wait_ticks(moved, since)
        self.assertLess(time.time() - started, self.DEBOUNCE / 2)
        build = self.finished(slug, 2)
        self.assertEqual(build["triggered_by"], "commit")


class RemotePollTest(WatchCase):
    def test_remote_repository_polled(self):
        base = tempfile.mkdtemp(prefix="lectern-remote-")
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=base)
        daemon = fixtures.GitDaemon(base)
        try:
            r = self.server.post("/api/v3/projects/", {"name": "Polled", "repository": {
                "url": daemon.url(os.path.basename(repo))}}, token=self.token)
            self.assertStatus(r, 201)
            slug = r.json["slug"]
            self.assertTrue(self.finished(slug, 1)["success"])
            # The floor protects forges: a minute at least, 0 for none.
            for bad in (1, 59, -1):
                r = self.server.request("PATCH", "/api/v3/projects/%s/" % slug,
                                        body={"poll_interval": bad}, token=self.token)
                self.assertStatus(r, 400)
                self.assertEqual(list(r.json), ["poll_interval"], bad)
            r = self.server.request("PATCH", "/api/v3/projects/%s/" % slug,
                                    body={"poll_interval": 60}, token=self.token)
            self.assertStatus(r, 204)
            # A test cannot wait minutes: one second, set in the store.
            Store(self.server).execute(
                "UPDATE projects SET poll_interval = 1 WHERE slug = ?", (slug,))
            head = self.commit(repo, "Polled words.")
            build = self.finished(slug, 2)
            self.assertTrue(build["success"], build)
            self.assertEqual((build["commit"], build["triggered_by"]), (head, "poll"))
            # Nothing new: polling builds nothing more. Two fetches after
            # the build, each finding nothing moved.
            polled = "poll watch: %s: fetched, 0 moved" % slug
            self.wait_ticks(polled, self.ticks(polled), count=2)
            self.assertEqual(len(self.builds(slug)), 2)
        finally:
            daemon.close()


class PollingTest(WatchCase):
    SERVER_ARGS = ("--workers", "1", "--no-inotify", "--watch-poll", "200")

    def test_commit_builds_without_inotify(self):
        self.check_commit_builds()


if __name__ == "__main__":
    main()
