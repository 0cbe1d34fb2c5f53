"""Warm Sphinx generators (issue 42) through a real `lectern serve` with a
build worker. A version whose commits are watched builds through a Python
in its sandbox that has imported Sphinx and forks each build; one whose
project does not watch its commits builds cold. The incremental builds'
history (test_incremental.py) is replayed on two projects of the same
repository, one of each kind: every published file must be byte for byte
the same, and the warm project's `cache` record says its generator was
reused ("generator": {"reused": true}) from the second build on, while
the cold one's says nothing of one; `lectern status` reports the one
warm generator's memory. A conf.py that kills its warm parent
fails its own build, the next build of the version runs cold with the
reason, and the one after it warms up again. `lectern status` measures
the warm processes' memory when asked: a build holding memory shows in
it until it is stopped."""
import re
import time

import fixtures
from lectern_test import POLL_SECONDS, BuildTestCase, main
import test_incremental as incremental

KILLER = (
    "import os, signal\n"
    "project = 'Hostile'\n"
    "marker = os.path.join(os.path.dirname(os.path.abspath('conf.py')),\n"
    "                      '_build', 'killed')\n"
    "with open('/proc/%d/cmdline' % os.getppid(), 'rb') as f:\n"
    "    warm = b'warm Sphinx generator' in f.read()\n"
    "if warm and not os.path.exists(marker):\n"
    "    os.makedirs(os.path.dirname(marker), exist_ok=True)\n"
    "    open(marker, 'w').close()\n"
    "    os.kill(os.getppid(), signal.SIGKILL)\n")

# A build that holds HOG_MIB of memory until it is stopped.
HOG_MIB = 256
HOG = (
    "import time\n"
    "project = 'Hog'\n"
    "hog = b'x' * (%d * 1024 * 1024)\n"
    "while True:\n"
    "    time.sleep(0.1)\n" % HOG_MIB)


class WarmGeneratorTest(BuildTestCase):
    SERVER_ARGS = incremental.IncrementalTest.SERVER_ARGS

    html = incremental.IncrementalTest.html
    assertSameSite = incremental.IncrementalTest.assertSameSite
    commit = incremental.IncrementalTest.commit

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("writer")
        cls.repo = fixtures.make_repo(incremental.START)

    def import_repo(self, name):
        return BuildTestCase.import_repo(self, name, "file://" + self.repo)

    def build(self, slug, fresh=False, first=False, ok=True):
        if ok:
            return incremental.IncrementalTest.build(self, slug, fresh, first)
        try:
            incremental.IncrementalTest.build(self, slug, fresh, first)
        except AssertionError as e:
            return str(e)
        self.fail("the build of %s passed" % slug)

    def unwatch(self, slug):
        r = self.server.request("PATCH", "/api/v3/projects/%s/" % slug,
                                body={"watch_commits": False}, token=self.token)
        self.assertStatus(r, 204)

    def generator(self, build):
        """Whether its warm generator was reused, and why not (how it
        wrote its pages is test_build_warm's)."""
        g = build.get("cache", {}).get("generator")
        return g and {k: v for k, v in g.items()
                      if not k.startswith("parallel_write")}

    def test_replayed_history_builds_as_cold_ones(self):
        warm = self.import_repo("Warm")
        cold = self.import_repo("Cold")
        self.unwatch(cold)
        first = self.build(warm, first=True)
        self.assertEqual(self.generator(first),
                         {"reused": False, "reason": "no warm generator yet"})
        self.assertIsNone(self.generator(self.build(cold, first=True)))
        self.assertSameSite(warm, cold, "the first build", ("Warm", "Cold"))
        for what, files, _ in incremental.HISTORY:
            self.commit(what, files)
            kept = self.build(warm)
            self.assertEqual(self.generator(kept), {"reused": True}, what)
            self.assertIsNone(self.generator(self.build(cold)), what)
            self.assertSameSite(warm, cold, what, ("Warm", "Cold"))
        # Its warm generator (the cold project has none; the other test's
        # version may have one too), its memory reported by `lectern
        # status`.
        status = self.server.lectern("status").stdout
        self.assertRegex(status, r"warm generators: [12] \([1-9][0-9.]* MiB; one per "
                                 r"version being worked on\)")
        again = self.build(warm, fresh=True)
        self.assertEqual(self.generator(again), {
            "reused": False, "reason": "a fresh build was asked for"})

    def new_project(self, name, conf):
        """A project of a repository with that conf.py and an index; its
        slug (its first build starts)."""
        repo = fixtures.make_repo({"docs/conf.py": conf,
                                   "docs/index.rst": "%s\n%s\n\nText.\n"
                                                     % (name, "=" * len(name))})
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {
            "url": "file://" + repo}}, token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def test_a_damaged_parent_spoils_only_the_next_build(self):
        slug = self.new_project("Hostile", KILLER)
        error = self.build(slug, first=True, ok=False)
        self.assertIn("the warm generator stopped during the build", error)
        cold = self.build(slug)
        self.assertEqual(self.generator(cold), {
            "reused": False,
            "reason": "the warm generator was damaged: it stopped during a build"})
        self.assertEqual(self.generator(self.build(slug)),
                         {"reused": False, "reason": "no warm generator yet"})
        self.assertEqual(self.generator(self.build(slug)), {"reused": True})

    def warm_mib(self):
        status = self.server.lectern("status").stdout
        return float(re.search(r"warm generators: \d+ \(([0-9.]+) MiB", status).group(1))

    def test_status_measures_the_memory_of_the_builds_live(self):
        # The other tests' generators, idle, as they are now.
        before = self.warm_mib()
        slug = self.new_project("Hog", HOG)
        builds = "/api/v3/projects/%s/builds/" % slug
        deadline = time.time() + incremental.BUILD_TIMEOUT
        while self.warm_mib() < before + HOG_MIB and time.time() < deadline:
            time.sleep(POLL_SECONDS)
        self.assertGreaterEqual(self.warm_mib(), before + HOG_MIB)
        build = self.server.get(builds, token=self.token).json["results"][0]
        r = self.server.post(builds + "%d/cancel/" % build["id"], token=self.token)
        self.assertStatus(r, 202)
        # Its generator stays, with the memory of one that built nothing.
        while self.warm_mib() >= before + HOG_MIB and time.time() < deadline:
            time.sleep(POLL_SECONDS)
        self.assertLess(self.warm_mib(), before + HOG_MIB / 2)


if __name__ == "__main__":
    main()
