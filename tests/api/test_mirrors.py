"""Offline mirrors over the API (Lectern's extension, docs/api.md
"Mirrors"): creating a mirror and who may, staging pages with the path
rules, publishing a version's page list (uploaded and kept pages, the
errors), the ETags kept for the next refresh, the mirror served on its own
docs host only and searchable, refreshes recorded as builds, and mirrors
refusing builds, and refreshes kept for diffs as --keep-builds says; a
name in a page path over 255 bytes is a 400 on the path. The client's
crawl is tested by tests/cli/test_mirror.sh, against a hostile remote by
tests/cli/test_mirror_hostile.sh."""
import os

from lectern_test import ServerTestCase, main

SOURCE = "http://remote.example:8000"
PAGE = (b"<html><head><title>Home</title></head><body><div role=\"main\">"
        b"<h1>Home</h1><p>Offline mirrors work.</p></div></body></html>")
GUIDE = (b"<html><head><title>Guide</title></head><body><div role=\"main\">"
         b"<h1>Guide</h1><p>Zebras graze here.</p></div></body></html>")
# What a served page gains: the readers' addons before </head> (issue 39).
ADDONS = b'<script async src="/_/static/lectern/addons.js"></script>'


def served(page):
    return page.replace(b"</head>", ADDONS + b"</head>", 1)


class MirrorTest(ServerTestCase):
    SERVER_ARGS = ("--keep-builds", "2")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("owner")
        cls.other = cls.server.token("other")

    def create(self, token=None, **body):
        fields = {"source": SOURCE, "project": "guide", "name": "Guide"}
        fields.update(body)
        return self.server.post("/api/v3/mirrors/", fields,
                                token=self.token if token is None else token)

    def stage(self, path, data, slug="guide", version="latest", token=None):
        return self.server.request(
            "PUT", "/api/v3/projects/%s/mirror/%s/pages/?path=%s" % (slug, version, path),
            raw=data, token=self.token if token is None else token)

    def publish(self, pages, slug="guide", version="latest"):
        return self.server.post("/api/v3/projects/%s/mirror/%s/" % (slug, version),
                                {"pages": pages}, token=self.token)

    def test_a_create(self):
        self.assertStatus(self.server.post("/api/v3/mirrors/", {}), 401)
        r = self.create()
        self.assertStatus(r, 201)
        self.assertEqual(r.json["slug"], "guide")
        self.assertEqual(r.json["mirror"], {"source": SOURCE, "project": "guide",
                                            "updated": None})
        self.assertStatus(self.create(), 200)
        self.assertDetail(self.create(token=self.other), 403,
                          "Another user's project mirrors this one.")
        for bad, field in (({"source": "ftp://x"}, "source"), ({"project": "a/b"}, "project"),
                           ({"name": ""}, "name")):
            r = self.create(**bad)
            self.assertStatus(r, 400)
            self.assertIn(field, r.json, bad)
        # A name whose slug a project that is not this mirror holds.
        r = self.create(project="other", name="Guide")
        self.assertStatus(r, 400)
        self.assertIn("name", r.json)

    def test_b_stage_and_publish(self):
        self.assertStatus(self.stage("index.html", PAGE), 204)
        for bad in ("../x.html", "/abs.html", "a//b.html", "x.txt", "./x.html",
                    "a%5Cb.html", "a/../b.html", "a%0Ab.html"):
            r = self.stage(bad, PAGE)
            self.assertStatus(r, 400)
            self.assertIn("path", r.json, bad)
        r = self.server.request("PUT", "/api/v3/projects/guide/mirror/latest/pages/",
                                raw=PAGE, token=self.token)
        self.assertStatus(r, 400)
        self.assertStatus(self.stage("index.html", PAGE, token=self.other), 403)
        self.assertStatus(self.stage("index.html", PAGE, token=""), 401)
        for bad in ({}, {"index.html": 3}, {"../x.html": ""}, {"nowhere.html": ""}):
            r = self.publish(bad)
            self.assertStatus(r, 400)
        r = self.publish({"index.html": "\"e1\""})
        self.assertStatus(r, 200)
        first = r.json["build"]
        self.assertEqual(r.json, {"build": first, "uploaded": 1, "unchanged": 0, "indexed": 1})
        # Served on its own docs host, searchable; not on the API's host.
        host = "guide.localhost:%d" % self.server.port
        r = self.server.get("/en/latest/", host=host)
        self.assertStatus(r, 200)
        self.assertEqual(r.body, served(PAGE))
        self.assertNotIn(b"Offline mirrors work", self.server.get("/en/latest/").body)
        r = self.server.get("/_/api/v2/search/?q=offline&project=guide&version=latest", host=host)
        self.assertEqual([h["path"] for h in r.json["results"]], ["/en/latest/"])
        # A second refresh: one new page, the root kept as it was.
        self.assertStatus(self.stage("guide/zebra.html", GUIDE), 204)
        r = self.publish({"index.html": "\"e1\"", "guide/zebra.html": "\"e2\""})
        self.assertStatus(r, 200)
        self.assertEqual((r.json["uploaded"], r.json["unchanged"], r.json["indexed"]), (1, 1, 2))
        self.assertGreater(r.json["build"], first)
        r = self.server.get("/api/v3/projects/guide/mirror/latest/", token=self.token)
        self.assertEqual(r.json, {"pages": {"index.html": "\"e1\"", "guide/zebra.html": "\"e2\""}})
        self.assertEqual(self.server.get("/en/latest/guide/zebra.html", host=host).body, served(GUIDE))
        r = self.server.get("/_/api/v2/search/?q=zebras&project=guide&version=latest", host=host)
        self.assertEqual(r.json["count"], 1)
        # Refreshes are builds; a new version is made on first publish.
        builds = self.server.get("/api/v3/projects/guide/builds/", token=self.token).json
        self.assertEqual([b.get("triggered_by") for b in builds["results"]], ["mirror", "mirror"])
        self.assertStatus(self.stage("index.html", PAGE, version="v2"), 204)
        self.assertStatus(self.publish({"index.html": ""}, version="v2"), 200)
        r = self.server.get("/api/v3/projects/guide/versions/v2/", token=self.token)
        self.assertTrue(r.json["active"])
        r = self.server.get("/api/v3/projects/guide/mirror/nosuch/", token=self.token)
        self.assertEqual(r.json, {"pages": {}})

    def test_b2_names_longer_than_a_file_name(self):
        # A name over 255 bytes cannot be a file: the page is refused on
        # its path, never a 500 (issue 27: it used to abort the mirror).
        for bad in ("a" * 251 + ".html", "d" * 256 + "/x.html"):
            r = self.stage(bad, PAGE)
            self.assertStatus(r, 400)
            self.assertIn("path", r.json)
            r = self.publish({bad: ""})
            self.assertStatus(r, 400)
            self.assertIn("path", r.json)
        longest = "d" * 255 + "/" + "a" * 250 + ".html"
        self.assertStatus(self.stage(longest, PAGE), 204)

    def test_c_read_only(self):
        r = self.server.post("/api/v3/projects/guide/versions/latest/builds/", token=self.token)
        self.assertStatus(r, 400)
        self.assertIn("mirror of another instance", r.body.decode())
        r = self.server.post("/api/v3/projects/guide/sync-versions/", token=self.token)
        self.assertStatus(r, 400)
        # A project built here is no mirror.
        self.import_project(self.token, "Built Here")
        r = self.stage("index.html", PAGE, slug="built-here")
        self.assertDetail(r, 400, "This project is not a mirror.")
        r = self.server.get("/api/v3/projects/built-here/", token=self.token)
        self.assertNotIn("mirror", r.json)

    def test_d_kept_refreshes(self):
        """Runs after test_b's two refreshes of latest: a third leaves the
        newest two outputs (--keep-builds 2) and the diff between them."""
        builds = self.server.get("/api/v3/projects/guide/versions/latest/builds/",
                                 token=self.token).json["results"]
        first, second = sorted(b["id"] for b in builds)
        self.assertStatus(self.stage("guide/zebra.html", GUIDE.replace(b"graze", b"sleep")), 204)
        r = self.publish({"index.html": "\"e1\"", "guide/zebra.html": "\"e3\""})
        self.assertStatus(r, 200)
        third = r.json["build"]
        outputs = os.path.join(self.server.data, "outputs")
        self.assertFalse(os.path.exists(os.path.join(outputs, str(first))))
        self.assertTrue(os.path.isdir(os.path.join(outputs, str(second))))
        r = self.server.get("/api/v3/projects/guide/diff/?base=build:%d&head=build:%d&path=guide/zebra"
                            % (second, third), token=self.token)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["pages"][0]["sections"][0]["lines"],
                         ["-Zebras graze here.", "+Zebras sleep here."])


if __name__ == "__main__":
    main()
