"""Page diffs (Lectern's extension, docs/api.md): two real builds of a
Markdown fixture whose second commit changes one sentence of one section,
compared by version and by build; the errors for bad and unknown
references and pages; visibility as for builds; and the retention of old
outputs (--keep-builds), across a restart too."""
import os
import time

import fixtures
from lectern_test import POLL_SECONDS, Server, ServerTestCase, Store, main

BUILD_TIMEOUT = 180
GUIDE = ("# Guide\n\nIntro text.\n\n## Install\n\nRun the installer. Then restart.\n\n"
         "## Usage\n\nCall it once. It returns zero. Nothing else.\n")
FILES = {
    "docs/index.md": "# Diff Fixture\n\nWelcome. See [the guide](guide.md).\n",
    "docs/guide.md": GUIDE,
}


class DiffTest(ServerTestCase):
    SERVER_ARGS = ("--build-timeout", "60", "--workers", "1", "--keep-builds", "2")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("owner")
        cls.other = cls.server.token("stranger")
        cls.repo = fixtures.make_repo(FILES)
        r = cls.server.post("/api/v3/projects/", {"name": "Diff Fixture",
                                                  "repository": {"url": "file://" + cls.repo}},
                            token=cls.token)
        assert r.status == 201, r
        cls.slug = r.json["slug"]
        cls.first = cls.wait_build(None)
        with open(os.path.join(cls.repo, "docs/guide.md"), "w") as f:
            f.write(GUIDE.replace("It returns zero.", "It returns one."))
        fixtures.git(cls.repo, "commit", "-q", "-am", "change one section")
        cls.second = cls.build()

    @classmethod
    def build(cls):
        r = cls.server.post("/api/v3/projects/%s/versions/latest/builds/" % cls.slug,
                            token=cls.token)
        assert r.status == 202, r
        return cls.wait_build(r.json["build"]["id"])

    @classmethod
    def wait_build(cls, build_id):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = cls.server.get("/api/v3/projects/%s/builds/" % cls.slug,
                                    token=cls.token).json["results"]
            b = next((b for b in builds if build_id is None or b["id"] == build_id), None)
            if b and b["state"]["code"] in ("finished", "cancelled"):
                assert b["success"], (b, cls.server.log())
                return b["id"]
            time.sleep(POLL_SECONDS)
        raise AssertionError("build did not finish")

    def diff(self, token="owner", **query):
        """GET the diff as the owner, another user's token, or None
        (anonymous)."""
        q = "&".join("%s=%s" % kv for kv in query.items())
        return self.server.get("/api/v3/projects/%s/diff/?%s" % (self.slug, q),
                               token=self.token if token == "owner" else token)

    def test_one_changed_section(self):
        r = self.diff(base="build:%d" % self.first, head="latest")
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json["base"], {"ref": "build:%d" % self.first, "build": self.first})
        self.assertEqual(r.json["head"], {"ref": "latest", "build": self.second})
        self.assertFalse(r.json["truncated"])
        self.assertGreaterEqual(r.json["unchanged"], 1)  # index.html
        pages = r.json["pages"]
        self.assertEqual([p["path"] for p in pages], ["guide.html"], pages)
        page = pages[0]
        self.assertEqual(page["status"], "changed")
        self.assertEqual(page["title"], "Guide")
        self.assertIsNone(page["base_title"])
        self.assertEqual(len(page["sections"]), 1, page)
        section = page["sections"][0]
        self.assertEqual((section["id"], section["status"], section["title"]),
                         ("usage", "changed", "Usage"))
        self.assertEqual(section["lines"], [" Call it once.", "-It returns zero.",
                                            "+It returns one.", " Nothing else."])

    def test_reverse_and_same(self):
        r = self.diff(base="latest", head="build:%d" % self.first, path="guide")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["pages"][0]["sections"][0]["lines"][1:3],
                         ["-It returns one.", "+It returns zero."])
        r = self.diff(base="latest", head="build:%d" % self.second)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["pages"], [])
        # One page that did not change: listed as unchanged only.
        r = self.diff(base="build:%d" % self.first, head="latest", path="index.html")
        self.assertEqual((r.json["pages"], r.json["unchanged"]), ([], 1))

    def test_bad_and_unknown_references(self):
        r = self.diff(head="latest")
        self.assertStatus(r, 400)
        self.assertIn("base", r.json)
        for bad in ("build:", "build:abc", "build:-1", "build:1x"):
            r = self.diff(base=bad, head="latest")
            self.assertStatus(r, 400)
            self.assertIn("base", r.json, bad)
        r = self.diff(base="latest", head="x" * 300)
        self.assertStatus(r, 400)
        self.assertIn("head", r.json)
        self.assertDetail(self.diff(base="build:999999", head="latest"), 404,
                          "No build 999999 in this project.")
        self.assertDetail(self.diff(base="nosuch", head="latest"), 404,
                          "No Version matches the given query.")
        self.assertStatus(self.diff(base="latest", head="latest", path="nosuch.html"), 404)
        r = self.diff(base="latest", head="latest", path="../../etc/passwd")
        self.assertStatus(r, 400)
        self.assertIn("path", r.json)
        # An unknown project is the usual 404.
        r = self.server.get("/api/v3/projects/nosuch/diff/?base=latest&head=latest",
                            token=self.token)
        self.assertStatus(r, 404)

    def test_private_version_is_hidden_from_others(self):
        r = self.diff(token=None, base="build:%d" % self.first, head="latest")
        self.assertStatus(r, 200)  # public: anyone reads it
        # The community edition's API keeps versions public: set it in the
        # store, as the business edition's PATCH would.
        self.set_privacy("private")
        try:
            for token in (None, self.other):
                self.assertDetail(self.diff(token=token, base="latest", head="latest"), 404,
                                  "No Version matches the given query.")
                self.assertDetail(self.diff(token=token, base="build:%d" % self.first,
                                            head="latest"), 404,
                                  "No build %d in this project." % self.first)
            self.assertStatus(self.diff(base="latest", head="latest"), 200)
        finally:
            self.set_privacy("public")

    def set_privacy(self, level):
        Store(self.server).execute(
            "UPDATE versions SET privacy_level = ? WHERE slug = 'latest' AND project_id ="
            " (SELECT id FROM projects WHERE slug = ?)", (level, self.slug))

    def test_z_retention(self):
        """Runs last (z): a third build pushes the first output out of the
        two kept; the kept ones survive a restart."""
        outputs = os.path.join(self.server.data, "outputs")
        self.assertTrue(os.path.isdir(os.path.join(outputs, str(self.first))))
        third = self.build()
        self.assertFalse(os.path.exists(os.path.join(outputs, str(self.first))))
        self.assertTrue(os.path.isdir(os.path.join(outputs, str(self.second))))
        self.assertDetail(self.diff(base="build:%d" % self.first, head="latest"), 404,
                          "The output of build %d is no longer kept." % self.first)
        self.assertStatus(self.diff(base="build:%d" % self.second, head="latest"), 200)
        # The kept outputs count in the data directory's disk use.
        status = self.server.lectern("status").stdout
        self.assertRegex(status, r"(?m)^build outputs:  2 \([0-9.]+ MiB; published and kept")
        self.assertEqual(self.server.stop(), 0)
        again = Server("--workers", "1", data=self.server.data)
        try:
            self.assertTrue(os.path.isdir(os.path.join(outputs, str(self.second))))
            self.assertTrue(os.path.isdir(os.path.join(outputs, str(third))))
            r = again.get("/api/v3/projects/%s/diff/?base=build:%d&head=latest"
                          % (self.slug, self.second), token=self.token)
            self.assertStatus(r, 200)
        finally:
            self.assertEqual(again.stop(), 0, again.log())
            self.assertNotIn("Sanitizer", again.log())
        # A version deactivated since: its kept outputs go at the next
        # start, all but the one its link still names.
        Store(again).execute(
            "UPDATE versions SET active = 0 WHERE slug = 'latest' AND project_id ="
            " (SELECT id FROM projects WHERE slug = ?)", (self.slug,))
        last = Server("--workers", "1", data=self.server.data)
        try:
            self.assertFalse(os.path.exists(os.path.join(outputs, str(self.second))))
        finally:
            self.assertEqual(last.stop(), 0, last.log())
            self.assertNotIn("Sanitizer", last.log())
            again.cleanup()


if __name__ == "__main__":
    main()
