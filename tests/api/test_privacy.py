"""A project made private through the API (issue 32, item 5): in the
business edition PATCH {"privacy_level": "private"} (and the import's
privacy_level) changes the project, and every visibility rule follows it at
once: the v3 routes below the project, v2, docs serving, search and embed
answer others as for a project that does not exist, while its admins and
the members of teams holding it still see it. The community edition has no
privacy fields: the key is ignored, as the service's serializer pops it."""
import urllib.parse

from lectern_test import Server, ServerTestCase, Store, main

NO_PROJECT = "No Project matches the given query."


class PrivacyTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.owner = s.token("owen")
        cls.reader = s.token("rita")
        cls.stranger = s.token("zed")
        s.lectern("org", "create", "acme", "--owner", "owen")
        s.lectern("org", "team", "create", "acme", "Readers", "--access", "readonly")
        s.lectern("org", "team", "add", "acme", "readers", "rita")
        r = s.post("/api/v3/projects/", {"name": "Hush", "organization": "acme",
                                         "repository": {"url": "https://github.com/x/hush"}},
                   token=cls.owner)
        assert r.status == 201, r
        cls.pid = r.json["id"]
        s.lectern("org", "team", "project", "add", "acme", "readers", "hush")
        cls.store = Store(s)
        cls.store.version("hush", "latest")
        cls.store.publish("hush", "latest", {
            "index.html": "<html><head><title>Hush</title></head><body><div role=\"main\">"
                          "<h1>Hush</h1><p>A quiet murmur.</p></div></body></html>"})
        s.lectern("reindex", "hush", check=False)

    def set_privacy(self, level, **extra):
        body = dict(extra, privacy_level=level)
        return self.server.patch("/api/v3/projects/hush/", body, token=self.owner)

    def docs(self, path, **kw):
        return self.server.get(path, host="hush.localhost:%d" % self.server.port, **kw)

    def visible_routes(self, token=None):
        """The status of each route that shows the project, for token."""
        s = self.server
        q = urllib.parse.urlencode({"q": "murmur", "project": "hush", "version": "latest"})
        return {
            "project": s.get("/api/v3/projects/hush/", token=token).status,
            "versions": s.get("/api/v3/projects/hush/versions/", token=token).status,
            "builds": s.get("/api/v3/projects/hush/builds/", token=token).status,
            "v2": s.get("/api/v2/project/%d/" % self.pid).status,
            "docs": self.docs("/en/latest/", token=token).status,
            "search": s.get("/api/v2/search/?" + q, token=token).status,
            "embed": s.get("/api/v3/embed/?" + urllib.parse.urlencode(
                {"url": "http://hush.localhost:%d/en/latest/" % s.port}), token=token).status,
        }

    def test_private_and_back(self):
        everything = {k: 200 for k in ("project", "versions", "builds", "v2", "docs", "search",
                                       "embed")}
        self.assertEqual(self.visible_routes(), everything)
        try:
            self.assertStatus(self.set_privacy("private"), 204)
            p = self.server.get("/api/v3/projects/hush/", token=self.owner).json
            self.assertEqual(p["privacy_level"], "private")
            # Anyone else: as a project that does not exist.
            for token in (None, self.stranger):
                with self.subTest(token=token):
                    routes = self.visible_routes(token)
                    self.assertEqual(routes, dict(everything, project=404, versions=404, builds=404,
                                                  v2=404, docs=404, search=404, embed=404))
            self.assertDetail(self.server.get("/api/v3/projects/hush/"), 404, NO_PROJECT)
            self.assertEqual(self.server.get("/api/v2/project/?slug=hush").json["count"], 0)
            # Its admin and its team's readers still see it (v2 is public
            # data only, whoever asks).
            for token in (self.owner, self.reader):
                with self.subTest(token=token):
                    self.assertEqual(self.visible_routes(token), dict(everything, v2=404))
        finally:
            self.assertStatus(self.set_privacy("public"), 204)
        self.assertEqual(self.visible_routes(), everything)

    def test_choices_and_external_builds(self):
        r = self.set_privacy("secret")
        self.assertEqual((r.status, r.json),
                         (400, {"privacy_level": ['"secret" is not a valid choice.']}))
        r = self.server.patch("/api/v3/projects/hush/", {"external_builds_privacy_level": "private"},
                              token=self.owner)
        self.assertStatus(r, 204)
        p = self.server.get("/api/v3/projects/hush/", token=self.owner).json
        self.assertEqual((p["privacy_level"], p["external_builds_privacy_level"]), ("public", "private"))
        # Only admins change it.
        r = self.server.patch("/api/v3/projects/hush/", {"privacy_level": "private"},
                              token=self.reader)
        self.assertStatus(r, 403)

    def test_import_private(self):
        r = self.server.post("/api/v3/projects/", {
            "name": "Born Private", "organization": "acme", "privacy_level": "private",
            "repository": {"url": "https://github.com/x/born"}}, token=self.owner)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["privacy_level"], "private")
        self.assertStatus(self.server.get("/api/v3/projects/born-private/"), 404)


class CommunityTest(ServerTestCase):
    def test_privacy_is_ignored(self):
        token = self.server.token("alice")
        self.server.import_project(token, "Open")
        r = self.server.patch("/api/v3/projects/open/", {"privacy_level": "private"}, token=token)
        self.assertStatus(r, 204)
        self.assertStatus(self.server.get("/api/v3/projects/open/"), 200)
        r = self.server.post("/api/v3/projects/", {
            "name": "Still Open", "privacy_level": "private",
            "repository": {"url": "https://github.com/x/still"}}, token=token)
        self.assertEqual((r.status, r.json["privacy_level"]), (201, "public"))


if __name__ == "__main__":
    main()
