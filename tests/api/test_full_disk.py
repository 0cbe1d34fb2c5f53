"""A full disk during a build (issue 27, item 7), through a real root
`lectern serve` whose data directory is a small tmpfs: a build that fills
it cannot have its end recorded (SQLite answers "database or disk is
full"), and on the main before this the build stayed `building` forever,
holding its project, with nothing in the log. Now the worker removes what
the build kept (its tree is a cache), records the end with an error that
says what happened, logs it, and the next builds run."""
import os
import subprocess
import tempfile
import time
import unittest

import fixtures
from lectern_test import POLL_SECONDS, Server, ServerTestCase, main

BUILD_TIMEOUT = 120
# Small enough to fill in a moment, large enough for the store and a
# build of a tiny project.
DISK_MB = 24


def write_index(text):
    return "mkdir -p $READTHEDOCS_OUTPUT/html && echo %s > $READTHEDOCS_OUTPUT/html/index.html" % text


@unittest.skipUnless(os.geteuid() == 0, "mounting a small tmpfs needs root")
class FullDiskTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.mnt = tempfile.mkdtemp(prefix="lectern-full-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % DISK_MB, "tmpfs", cls.mnt],
                       check=True)
        cls.server = Server("--workers", "1", "--build-timeout", "60",
                            data=os.path.join(cls.mnt, "data"))
        cls.token = cls.server.token("filler")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        subprocess.run(["umount", "-l", cls.mnt])
        os.rmdir(cls.mnt)

    def import_repo(self, name, files):
        repo = fixtures.make_repo(files)
        r = self.server.post("/api/v3/projects/", {"name": name,
                                                   "repository": {"url": "file://" + repo}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def wait_final(self, slug):
        deadline = time.time() + BUILD_TIMEOUT
        build = None
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                     token=self.token).json["results"]
            build = builds[0] if builds else None
            if build and build["state"]["code"] in ("finished", "cancelled"):
                return build
            time.sleep(POLL_SECONDS)
        self.fail("the build of %s never ended: %r" % (slug, build))

    def test_filling_the_disk_fails_the_build_and_frees_the_queue(self):
        # Fills the disk, then writes the page (which fails or not): the
        # store cannot take the build's end.
        filler = self.import_repo("Filler", fixtures.commands_config(
            "head -c %d /dev/zero > $READTHEDOCS_OUTPUT/../big; true" % ((DISK_MB + 8) << 20),
            write_index("full")))
        first = self.wait_final(filler)
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % filler, {},
                             token=self.token)
        self.assertStatus(r, 202)
        build = self.wait_final(filler)
        failed = [b for b in (first, build) if not b["success"]]
        self.assertTrue(failed, (first, build))
        self.assertIn("disk holding Lectern's data is full", failed[-1]["error"])
        self.assertIn("recording its end failed", self.server.log())
        # The project and the queue are free: another project builds.
        other = self.import_repo("After", fixtures.commands_config(write_index("after")))
        after = self.wait_final(other)
        self.assertTrue(after["success"], after)


    def test_disk_filled_by_another_program_during_a_build(self):
        # The main before this: the build stayed `building`, its project
        # held, and a later build stayed `triggered` even once the disk
        # had room again.
        slug = self.import_repo("Victim", fixtures.commands_config("sleep 3", write_index("victim")))
        deadline = time.time() + BUILD_TIMEOUT
        while self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json[
                "results"][0]["state"]["code"] != "building" and time.time() < deadline:
            time.sleep(0.1)
        filler = os.path.join(self.mnt, "filler")
        subprocess.run(["dd", "if=/dev/zero", "of=" + filler, "bs=1M"], capture_output=True)
        try:
            build = self.wait_final(slug)
        finally:
            os.unlink(filler)
        self.assertFalse(build["success"])
        self.assertIn("disk holding Lectern's data is full", build["error"])
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, {},
                             token=self.token)
        self.assertStatus(r, 202)
        again = self.wait_final(slug)
        self.assertEqual(again["id"], r.json["build"]["id"])
        self.assertTrue(again["success"], again)


if __name__ == "__main__":
    main()
