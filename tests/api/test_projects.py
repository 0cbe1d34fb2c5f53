"""v3 projects: list, import, detail, update, superproject, with the
service's exact shapes (behaviour notes §1.5), filters (§2), pagination
(§1.2), fields/omit/expand (§1.3) and permissions (§1.6, §1.9)."""
import re

from lectern_test import ServerTestCase, main

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$")

PROJECT_KEYS = [
    "_links", "created", "default_branch", "default_version",
    "external_builds_privacy_level", "homepage", "id", "language", "modified",
    "name", "privacy_level", "programming_language", "readthedocs_yaml_path",
    "repository", "single_version", "slug", "subproject_of", "tags",
    "translation_of", "urls", "users", "versioning_scheme",
]


class ProjectsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")

    def test_import_returns_full_project(self):
        r = self.server.post("/api/v3/projects/", {
            "name": "Import Me", "repository": {"url": "https://github.com/x/import-me.git", "type": "git"},
            "homepage": "https://example.com/", "programming_language": "py",
            "language": "es", "tags": ["zeta", "alpha"],
        }, token=self.alice)
        self.assertStatus(r, 201)
        self.assertSortedKeys(r.body)
        p = r.json
        self.assertEqual(sorted(p), PROJECT_KEYS)
        self.assertEqual(p["slug"], "import-me")
        self.assertEqual(p["name"], "Import Me")
        self.assertEqual(p["language"], {"code": "es", "name": "Spanish"})
        self.assertEqual(p["programming_language"], {"code": "py", "name": "Python"})
        self.assertEqual(p["repository"], {"type": "git", "url": "https://github.com/x/import-me.git"})
        self.assertEqual(p["homepage"], "https://example.com/")
        self.assertEqual(p["tags"], ["alpha", "zeta"])
        self.assertEqual(p["users"], [{"username": "alice"}])
        self.assertEqual(p["default_version"], "latest")
        self.assertEqual(p["default_branch"], "master")
        self.assertEqual(p["privacy_level"], "public")
        self.assertEqual(p["versioning_scheme"], "multiple_versions_with_translations")
        self.assertIs(p["single_version"], False)
        self.assertIsNone(p["subproject_of"])
        self.assertIsNone(p["translation_of"])
        self.assertIsNone(p["readthedocs_yaml_path"])
        self.assertRegex(p["created"], ISO_Z)
        self.assertRegex(p["modified"], ISO_Z)
        self.assertEqual(p["_links"], {
            "_self": "/api/v3/projects/import-me/",
            "builds": "/api/v3/projects/import-me/builds/",
            "environmentvariables": "/api/v3/projects/import-me/environmentvariables/",
            "notifications": "/api/v3/projects/import-me/notifications/",
            "redirects": "/api/v3/projects/import-me/redirects/",
            "subprojects": "/api/v3/projects/import-me/subprojects/",
            "superproject": "/api/v3/projects/import-me/superproject/",
            "sync_versions": "/api/v3/projects/import-me/sync-versions/",
            "translations": "/api/v3/projects/import-me/translations/",
            "versions": "/api/v3/projects/import-me/versions/",
        })
        base = self.server.base
        self.assertEqual(p["urls"], {
            "builds": base + "/projects/import-me/builds/",
            "documentation": "http://import-me.localhost:%d/es/latest/" % self.server.port,
            "downloads": None,
            "home": base + "/projects/import-me/",
            "versions": base + "/projects/import-me/versions/",
        })
        # The import queued a triggered build of the default version.
        builds = self.server.get("/api/v3/projects/import-me/builds/", token=self.alice).json
        self.assertEqual(builds["count"], 1)
        self.assertEqual(builds["results"][0]["state"], {"code": "triggered", "name": "Triggered"})
        self.assertEqual(builds["results"][0]["version"], "latest")

    def test_import_validation(self):
        cases = [
            ({}, {"name": ["This field is required."], "repository": ["This field is required."]}),
            ({"name": "x"}, {"repository": ["This field is required."]}),
            ({"name": 5, "repository": {"url": "https://g/x"}}, {"name": ["Not a valid string."]}),
            ({"name": "Bad URL", "repository": {"url": "not-a-url"}},
             {"repository": {"url": ["Invalid scheme for URL"]}}),
            ({"name": "Bad URL", "repository": {"url": "https://x/y && rm"}},
             {"repository": {"url": ["Invalid character in the URL"]}}),
            ({"name": "SSH", "repository": {"url": "git@github.com:x/y.git"}},
             {"repository": {"url": ["Manual cloning via SSH is not supported"]}}),
            ({"name": "***", "repository": {"url": "https://github.com/x/y"}},
             {"name": ['Invalid project name "***": no slug generated.']}),
        ]
        before = self.server.get("/api/v3/projects/", token=self.alice).json["count"]
        for body, errors in cases:
            r = self.server.post("/api/v3/projects/", body, token=self.alice)
            self.assertStatus(r, 400)
            # Only the first failing field is reported; it must be this one.
            self.assertEqual(r.json, errors, body)
        after = self.server.get("/api/v3/projects/", token=self.alice).json["count"]
        self.assertEqual(before, after)

    def test_import_duplicate_slug(self):
        self.import_project(self.alice, "Dup Name")
        r = self.server.post("/api/v3/projects/", {"name": "dup name", "repository": {"url": "https://github.com/x/d"}},
                             token=self.bob)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"name": ['Project with slug "dup-name" already exists.']})

    def test_import_requires_token(self):
        r = self.server.post("/api/v3/projects/", {"name": "anon"})
        self.assertDetail(r, 401, "Authentication credentials were not provided.")
        self.assertEqual(r.header("WWW-Authenticate"), "Token")

    def test_list_only_own_projects_with_filters_and_pages(self):
        carol = self.server.token("carol")
        for i in range(25):
            self.import_project(carol, "Carol %02d" % i, language="fr" if i % 5 == 0 else "en")
        self.import_project(self.bob, "Not Carols")
        r = self.server.get("/api/v3/projects/", token=carol)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        page = r.json
        self.assertEqual(page["count"], 25)
        self.assertEqual(len(page["results"]), 10)
        self.assertEqual([p["slug"] for p in page["results"]][:2], ["carol-00", "carol-01"])
        self.assertIsNone(page["previous"])
        self.assertEqual(page["next"], self.server.base + "/api/v3/projects/?limit=10&offset=10")
        r = self.server.get("/api/v3/projects/?offset=20&limit=10&name=carol", token=carol).json
        self.assertEqual(len(r["results"]), 5)
        self.assertIsNone(r["next"])
        self.assertEqual(r["previous"], self.server.base + "/api/v3/projects/?limit=10&name=carol&offset=10")
        r = self.server.get("/api/v3/projects/?offset=10&limit=10", token=carol).json
        self.assertEqual(r["previous"], self.server.base + "/api/v3/projects/?limit=10")
        r = self.server.get("/api/v3/projects/?language=fr", token=carol).json
        self.assertEqual([p["slug"] for p in r["results"]],
                         ["carol-00", "carol-05", "carol-10", "carol-15", "carol-20"])
        r = self.server.get("/api/v3/projects/?slug=ROL-1&limit=3", token=carol).json
        self.assertEqual(r["count"], 10)
        self.assertEqual(len(r["results"]), 3)
        r = self.server.get("/api/v3/projects/?language=xx", token=carol)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"language": ["Select a valid choice. xx is not one of the available choices."]})
        # Lenient limit/offset: garbage falls back to the defaults.
        r = self.server.get("/api/v3/projects/?limit=abc&offset=-4", token=carol).json
        self.assertEqual(len(r["results"]), 10)
        r = self.server.get("/api/v3/projects/?offset=500", token=carol).json
        self.assertEqual((r["count"], r["results"]), (25, []))
        r = self.server.get("/api/v3/projects/", token=self.server.token("nobody")).json
        self.assertEqual(r, {"count": 0, "next": None, "previous": None, "results": []})

    def test_detail_fields_omit_expand(self):
        self.import_project(self.alice, "Flexy")
        r = self.server.get("/api/v3/projects/flexy/?fields=name,slug")
        self.assertStatus(r, 200)
        self.assertEqual(r.json, {"name": "Flexy", "slug": "flexy"})
        r = self.server.get("/api/v3/projects/flexy/?omit=urls,_links,users")
        self.assertNotIn("urls", r.json)
        self.assertIn("name", r.json)
        r = self.server.get("/api/v3/projects/flexy/?fields=")
        self.assertEqual(r.json, {})
        r = self.server.get("/api/v3/projects/flexy/?expand=permissions&fields=permissions", token=self.alice)
        self.assertEqual(r.json, {"permissions": {"admin": True}})
        r = self.server.get("/api/v3/projects/flexy/?expand=permissions&fields=permissions", token=self.bob)
        self.assertEqual(r.json, {"permissions": {"admin": False}})
        r = self.server.get("/api/v3/projects/flexy/?expand=active_versions&fields=active_versions")
        self.assertEqual(r.json, {"active_versions": {}})
        r = self.server.get("/api/v3/projects/flexy/?expand=active_versions.active_versions")
        self.assertStatus(r, 400)
        self.assertEqual(r.json, ["Recursive expansion found"])

    def test_detail_errors_and_auth(self):
        self.import_project(self.alice, "Det")
        self.assertStatus(self.server.get("/api/v3/projects/det/"), 200)
        self.assertDetail(self.server.get("/api/v3/projects/nope/"), 404, "No Project matches the given query.")
        # A bad token is refused even where anyone may read.
        r = self.server.get("/api/v3/projects/det/", token="0" * 40)
        self.assertDetail(r, 401, "Invalid token.")
        r = self.server.get("/api/v3/projects/det/", headers={"Authorization": "Token"})
        self.assertDetail(r, 401, "Invalid token header. No credentials provided.")
        r = self.server.get("/api/v3/projects/det/", headers={"Authorization": "Token a b"})
        self.assertDetail(r, 401, "Invalid token header. Token string should not contain spaces.")
        # Another scheme is ignored: the request is anonymous.
        self.assertStatus(self.server.get("/api/v3/projects/det/", headers={"Authorization": "Bearer x"}), 200)
        self.assertStatus(self.server.get("/api/v3/projects/det/", headers={"Authorization": "token " + self.alice}), 200)

    def test_delete_project_is_forbidden_not_405(self):
        # DELETE is Lectern's, for the project's admins (issue 31, item 4;
        # test_project_delete); anyone else gets 401/403, never 405.
        self.import_project(self.alice, "Undeletable")
        self.assertDetail(self.server.delete("/api/v3/projects/undeletable/"), 401,
                          "Authentication credentials were not provided.")
        self.assertDetail(self.server.delete("/api/v3/projects/undeletable/", token=self.bob), 403,
                          "You do not have permission to perform this action.")
        r = self.server.get("/api/v3/projects/undeletable/sync-versions/", token=self.alice)
        self.assertDetail(r, 405, 'Method "GET" not allowed.')
        self.assertIn("POST", r.header("Allow"))

    def test_patch_and_put(self):
        self.import_project(self.alice, "Patchy")
        path = "/api/v3/projects/patchy/"
        r = self.server.patch(path, {"name": "Patchy Renamed", "default_branch": "main", "tags": ["b", "a"],
                                     "analytics_disabled": True, "single_version": True,
                                     "programming_language": "js", "homepage": "https://h.example/"},
                              token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        p = self.server.get(path).json
        self.assertEqual(p["name"], "Patchy Renamed")
        self.assertEqual(p["slug"], "patchy")
        self.assertEqual(p["default_branch"], "main")
        self.assertEqual(p["tags"], ["a", "b"])
        self.assertIs(p["single_version"], True)
        self.assertEqual(p["versioning_scheme"], "single_version_without_translations")
        self.assertEqual(p["programming_language"]["code"], "js")
        self.assertEqual(p["urls"]["documentation"], "http://patchy.localhost:%d/" % self.server.port)
        # Validation errors leave the project as it was.
        r = self.server.patch(path, {"language": "klingon"}, token=self.alice)
        self.assertStatus(r, 400)
        self.assertIn("language", r.json)
        r = self.server.patch(path, {"analytics_disabled": "maybe"}, token=self.alice)
        self.assertEqual(r.json, {"analytics_disabled": ["Must be a valid boolean."]})
        self.assertEqual(self.server.get(path).json["name"], "Patchy Renamed")
        # PUT needs name and repository.url.
        r = self.server.put(path, {"name": "Only Name"}, token=self.alice)
        self.assertEqual(r.json, {"repository": ["This field is required."]})
        r = self.server.put(path, {"name": "Put", "repository": {"url": "https://github.com/x/put"}},
                            token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(path).json["repository"]["url"], "https://github.com/x/put")
        # Permissions: anonymous 401, another user 403, unknown project 404.
        self.assertStatus(self.server.patch(path, {"name": "x"}), 401)
        self.assertStatus(self.server.patch(path, {"name": "x"}, token=self.bob), 403)
        self.assertDetail(self.server.patch("/api/v3/projects/missing/", {"name": "x"}, token=self.bob), 404,
                          "No Project matches the given query.")

    def test_credentials_never_shown(self):
        r = self.server.post("/api/v3/projects/", {"name": "Cred", "repository": {
            "url": "https://user:s3cret-pass@github.com/x/cred.git"}}, token=self.alice)
        self.assertStatus(r, 201)
        self.assertNotIn(b"s3cret", r.body)
        self.assertEqual(r.json["repository"]["url"], "https://github.com/x/cred.git")
        for path in ("/api/v3/projects/cred/", "/api/v3/projects/cred/versions/",
                     "/api/v3/projects/cred/versions/latest/"):
            body = self.server.get(path, token=self.alice).body
            self.assertNotIn(b"s3cret", body, path)
            self.assertNotIn(b"user:", body, path)

    def test_superproject(self):
        self.import_project(self.alice, "Lonely")
        r = self.server.get("/api/v3/projects/lonely/superproject/")
        self.assertStatus(r, 404)
        self.assertEqual(r.body, b"")


if __name__ == "__main__":
    main()
