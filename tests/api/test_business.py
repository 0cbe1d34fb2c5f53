"""The business edition's project import and expansions (contract §4.1):
import requires `organization` (one the user owns) and accepts `teams`;
`expand=organization,teams` on projects; no `users` key; organization
owners and admin teams administer the organization's projects. An offline
mirror (POST /api/v3/mirrors/) is a project too: it is refused exactly as
an import is (issue 27: a read-only team member or a user without an
organization used to create one), and joins its organization."""
import os
import sqlite3

from lectern_test import ServerTestCase, main


class BusinessImportTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.owner = s.token("owner")
        cls.stranger = s.token("stranger")
        cls.writer = s.token("writer")
        s.lectern("org", "create", "acme", "--owner", "owner")
        s.lectern("org", "create", "other", "--owner", "stranger")
        s.lectern("org", "team", "create", "acme", "Writers", "--access", "admin")
        s.lectern("org", "team", "create", "acme", "Readers")
        s.lectern("org", "team", "add", "acme", "writers", "writer")

    def body(self, name, **extra):
        b = {"name": name, "repository": {"url": "https://github.com/x/%s" % name}}
        b.update(extra)
        return b

    def count(self):
        db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        n = db.execute("SELECT count(*) FROM projects").fetchone()[0]
        db.close()
        return n

    def test_organization_is_required_and_checked(self):
        before = self.count()
        r = self.server.post("/api/v3/projects/", self.body("no-org"), token=self.owner)
        self.assertEqual((r.status, r.json), (400, {"organization": ["This field is required."]}))
        r = self.server.post("/api/v3/projects/", self.body("bad-org", organization="nope"), token=self.owner)
        self.assertEqual((r.status, r.json), (400, {"organization": ["Object with slug=nope does not exist."]}))
        # An organization the user does not own is as good as missing.
        r = self.server.post("/api/v3/projects/", self.body("not-mine", organization="other"), token=self.owner)
        self.assertEqual((r.status, r.json), (400, {"organization": ["Object with slug=other does not exist."]}))
        r = self.server.post("/api/v3/projects/", self.body("bad-team", organization="acme", teams=["ghosts"]),
                             token=self.owner)
        self.assertEqual((r.status, r.json), (400, {"teams": ["Object with slug=ghosts does not exist."]}))
        self.assertEqual(self.count(), before)

    def test_import_with_teams_and_expansions(self):
        r = self.server.post("/api/v3/projects/", self.body("biz-docs", organization="acme",
                                                            teams=["writers", "readers"]), token=self.owner)
        self.assertStatus(r, 201)
        self.assertNotIn("users", r.json)
        r = self.server.get("/api/v3/projects/biz-docs/?expand=organization,teams", token=self.owner)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        org = r.json["organization"]
        base = self.server.base + "/api/v3/organizations/acme/"
        self.assertEqual(org, {"_links": {"_self": base, "notifications": base + "notifications/",
                                          "projects": base + "projects/"}, "slug": "acme"})
        self.assertEqual([t["slug"] for t in r.json["teams"]], ["readers", "writers"])
        self.assertEqual(sorted(r.json["teams"][0]), ["access", "created", "modified", "name", "slug"])
        self.assertEqual(r.json["teams"][1]["access"], "admin")
        # The admin team's member administers the project; a stranger does not.
        self.assertStatus(self.server.patch("/api/v3/projects/biz-docs/", {"name": "Biz"}, token=self.writer), 204)
        self.assertStatus(self.server.patch("/api/v3/projects/biz-docs/", {"name": "X"}, token=self.stranger), 403)
        mine = self.server.get("/api/v3/projects/", token=self.writer).json
        self.assertEqual([p["slug"] for p in mine["results"]], ["biz-docs"])

    def test_anonymous_expansion(self):
        # Anyone may read a public project's organization.
        r = self.server.post("/api/v3/projects/", self.body("solo", organization="acme"), token=self.owner)
        self.assertStatus(r, 201)
        r = self.server.get("/api/v3/projects/solo/?expand=organization&fields=organization")
        self.assertEqual(r.json["organization"]["slug"], "acme")


class BusinessMirrorTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.owner = s.token("owner")
        cls.reader = s.token("reader")
        cls.writer = s.token("writer")
        cls.lonely = s.token("lonely")
        s.lectern("org", "create", "acme", "--owner", "owner")
        s.lectern("org", "team", "create", "acme", "Readers")
        s.lectern("org", "team", "add", "acme", "readers", "reader")
        s.lectern("org", "team", "create", "acme", "Writers", "--access", "admin")
        s.lectern("org", "team", "add", "acme", "writers", "writer")

    count = BusinessImportTest.count

    def test_a_mirror_has_the_rights_of_an_import(self):
        before = self.count()
        for token, extra in ((self.reader, {"organization": "acme"}),
                             (self.writer, {"organization": "acme"}),
                             (self.lonely, {}),
                             (self.lonely, {"organization": "acme"}),
                             (self.owner, {}),
                             (self.owner, {"organization": "nope"}),
                             (self.owner, {"organization": "acme", "teams": ["ghosts"]})):
            imported = self.server.post("/api/v3/projects/", dict(
                {"name": "Copied", "repository": {"url": "https://github.com/x/copied"}}, **extra),
                token=token)
            mirrored = self.server.post("/api/v3/mirrors/", dict(
                {"source": "https://docs.example", "project": "copied", "name": "Copied"}, **extra),
                token=token)
            self.assertEqual(imported.status, 400, (extra, imported))
            self.assertEqual((mirrored.status, mirrored.json), (imported.status, imported.json),
                             extra)
        self.assertEqual(self.count(), before)
        # The organization's owner may, and the mirror joins it.
        r = self.server.post("/api/v3/mirrors/", {
            "source": "https://docs.example", "project": "copied", "name": "Copied",
            "organization": "acme", "teams": ["readers"]}, token=self.owner)
        self.assertStatus(r, 201)
        r = self.server.get("/api/v3/projects/copied/?expand=organization,teams", token=self.owner)
        self.assertEqual(r.json["organization"]["slug"], "acme")
        self.assertEqual([t["slug"] for t in r.json["teams"]], ["readers"])
        self.assertEqual(r.json["mirror"]["source"], "https://docs.example")


if __name__ == "__main__":
    main()
