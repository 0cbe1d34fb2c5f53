"""The smaller differences a client of the service notices (issue 32, item
8), each as the service's current source does it: a repeated query
parameter takes its last value (Django's QueryDict); ids of deleted
redirects and environment variables are never given again (the store's
migration 13); remote/repositories/ and remote/organizations/ are an empty
page (no connected accounts); organizations/<o>/teams/ (business); v2
project/<id>/translations/, subprojects/ and canonical_url/; environment
variables' `public`; a subproject's alias left out or holding slashes."""
from lectern_test import ServerTestCase, Store, main

NO_CREDENTIALS = "Authentication credentials were not provided."


class CommunityTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.token = s.token("alice")
        cls.store = Store(s)
        for name, lang in (("Main", "en"), ("Spanish", "es"), ("Kid", "en"), ("Hidden Kid", "en"),
                           ("Slashed", "en")):
            s.import_project(cls.token, name, language=lang)
        cls.store.execute("UPDATE projects SET main_language_project_id ="
                          " (SELECT id FROM projects WHERE slug = 'main') WHERE slug = 'spanish'")
        cls.ids = dict(cls.store.rows("SELECT slug, id FROM projects"))

    def test_repeated_query_parameter_takes_the_last(self):
        r = self.server.get("/api/v3/projects/?limit=1&limit=2", token=self.token)
        self.assertEqual(len(r.json["results"]), 2)
        self.assertIn("limit=2", r.json["next"])
        r = self.server.get("/api/v3/projects/?slug=nothing&slug=spanish", token=self.token)
        self.assertEqual([p["slug"] for p in r.json["results"]], ["spanish"])
        r = self.server.get("/api/v3/projects/main/versions/?type=tag&type=branch", token=self.token)
        self.assertEqual(r.json["count"], 1)

    def test_ids_are_never_reused(self):
        url = "/api/v3/projects/main/redirects/"
        pks = [self.server.post(url, {"type": "page", "from_url": "/r%d" % i, "to_url": "/x"},
                                token=self.token).json["pk"] for i in range(2)]
        self.assertStatus(self.server.delete("%s%d/" % (url, pks[1]), token=self.token), 204)
        again = self.server.post(url, {"type": "page", "from_url": "/r9", "to_url": "/x"},
                                 token=self.token).json["pk"]
        self.assertEqual(again, pks[1] + 1)
        url = "/api/v3/projects/main/environmentvariables/"
        pks = [self.server.post(url, {"name": "V%d" % i, "value": "x"},
                                token=self.token).json["pk"] for i in range(2)]
        self.assertStatus(self.server.delete("%s%d/" % (url, pks[1]), token=self.token), 204)
        again = self.server.post(url, {"name": "V9", "value": "x"}, token=self.token).json["pk"]
        self.assertEqual(again, pks[1] + 1)

    def test_remote_lists_are_empty(self):
        for path in ("/api/v3/remote/repositories/", "/api/v3/remote/organizations/"):
            with self.subTest(path=path):
                self.assertDetail(self.server.get(path), 401, NO_CREDENTIALS)
                r = self.server.get(path + "?limit=5", token=self.token)
                self.assertStatus(r, 200)
                self.assertEqual(r.json, {"count": 0, "next": None, "previous": None, "results": []})
        # The root names them, as the service's does.
        root = self.server.get("/api/v3/").json
        base = self.server.base + "/api/v3/"
        self.assertEqual(root, {"projects": base + "projects/",
                                "notifications": base + "notifications/",
                                "remote/repositories": base + "remote/repositories/",
                                "remote/organizations": base + "remote/organizations/"})

    def test_v2_project_actions(self):
        main_id = self.ids["main"]
        r = self.server.get("/api/v2/project/%d/translations/" % main_id)
        self.assertStatus(r, 200)
        self.assertEqual(list(r.json), ["translations"])
        self.assertEqual([p["slug"] for p in r.json["translations"]], ["spanish"])
        # The same objects as the project's own detail.
        self.assertEqual(r.json["translations"][0],
                         self.server.get("/api/v2/project/%d/" % self.ids["spanish"]).json)
        self.server.post("/api/v3/projects/main/subprojects/", {"child": "kid"}, token=self.token)
        self.server.post("/api/v3/projects/main/subprojects/", {"child": "hidden-kid"},
                         token=self.token)
        self.store.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = 'hidden-kid'")
        try:
            r = self.server.get("/api/v2/project/%d/subprojects/" % main_id)
            self.assertStatus(r, 200)
            # Public data only: the private child is not there.
            self.assertEqual([p["slug"] for p in r.json["subprojects"]], ["kid"])
        finally:
            self.store.execute("UPDATE projects SET privacy_level = 'public' WHERE slug = 'hidden-kid'")
        r = self.server.get("/api/v2/project/%d/canonical_url/" % main_id)
        self.assertEqual(r.json, {"url": "http://main.localhost:%d/en/latest/" % self.server.port})
        self.assertEqual(r.json["url"],
                         self.server.get("/api/v2/project/%d/" % main_id).json["canonical_url"])
        self.assertDetail(self.server.get("/api/v2/project/999999/subprojects/"), 404,
                          "No Project matches the given query.")

    def test_envvar_public(self):
        url = "/api/v3/projects/main/environmentvariables/"
        r = self.server.post(url, {"name": "PUB", "value": "x", "public": True}, token=self.token)
        self.assertEqual((r.status, r.json["public"]), (201, True))
        r = self.server.get("%s%d/" % (url, r.json["pk"]), token=self.token)
        self.assertTrue(r.json["public"])

    def test_subproject_alias_left_out_or_with_slashes(self):
        url = "/api/v3/projects/slashed/subprojects/"
        self.server.import_project(self.token, "Plain Kid")
        r = self.server.post(url, {"child": "plain-kid"}, token=self.token)
        self.assertEqual((r.status, r.json["alias"]), (201, "plain-kid"))
        self.server.import_project(self.token, "Python Api")
        r = self.server.post(url, {"child": "python-api", "alias": "api/python"}, token=self.token)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["alias"], "api/python")
        self.assertEqual(r.json["_links"]["_self"], url + "api/python/")
        self.assertEqual(r.json["child"]["urls"]["documentation"],
                         "http://slashed.localhost:%d/projects/api/python/en/latest/" % self.server.port)
        r = self.server.get(url + "api/python/", token=self.token)
        self.assertEqual((r.status, r.json["alias"]), (200, "api/python"))
        self.assertStatus(self.server.delete(url + "api/python/", token=self.token), 204)
        self.assertDetail(self.server.get(url + "api/python/", token=self.token), 404,
                          "No ProjectRelationship matches the given query.")


class TeamsTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.tokens = {u: s.token(u) for u in ("owen", "tess", "zed")}
        s.lectern("org", "create", "acme", "--owner", "owen")
        s.lectern("org", "create", "other", "--owner", "zed")
        s.lectern("org", "team", "create", "acme", "Writers", "--access", "admin")
        s.lectern("org", "team", "create", "acme", "Readers")
        s.lectern("org", "team", "add", "acme", "writers", "tess")
        s.lectern("org", "team", "add", "acme", "writers", "owen")

    def teams(self, user, query=""):
        return self.server.get("/api/v3/organizations/acme/teams/" + query, token=self.tokens[user])

    def test_owner_lists_the_teams(self):
        r = self.teams("owen")
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json["count"], 2)
        team = r.json["results"][1]
        self.assertEqual(sorted(team), ["access", "created", "modified", "name", "slug"])
        self.assertEqual((team["name"], team["slug"], team["access"]), ("Writers", "writers", "admin"))
        r = self.teams("owen", "?expand=members&fields=slug,members")
        self.assertEqual(r.json["results"][1], {"slug": "writers", "members": [
            {"username": "owen"}, {"username": "tess"}]})
        self.assertEqual(r.json["results"][0], {"slug": "readers", "members": []})

    def test_who_may_not(self):
        self.assertDetail(self.server.get("/api/v3/organizations/acme/teams/"), 401, NO_CREDENTIALS)
        self.assertDetail(self.teams("tess"), 403,
                          "You do not have permission to perform this action.")
        self.assertDetail(self.teams("zed"), 404, "No Organization matches the given query.")
        r = self.server.get("/api/v3/organizations/nope/teams/", token=self.tokens["owen"])
        self.assertDetail(r, 404, "No Organization matches the given query.")


class CommunityTeamsTest(ServerTestCase):
    def test_no_organizations(self):
        r = self.server.get("/api/v3/organizations/acme/teams/", token=self.server.token("a"))
        self.assertDetail(r, 404, "Not found.")


if __name__ == "__main__":
    main()
