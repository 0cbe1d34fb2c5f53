"""v3 subprojects and translations: linking a child with every validation
message of the service, the Subproject object (the child without
subproject_of, its documentation under the parent's domain), the lists'
visibility (private children hidden, unknown parents the project's 404),
unlinking, and who may do what (401 / 403 / 404 / 405).

Private projects and translations have no API in the community edition,
so the tests set them up in the data directory's database directly."""
import os
import sqlite3

from lectern_test import ServerTestCase, main

ISO_Z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$"


class SubprojectTestCase(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")

    def db(self, sql, *args):
        """Change the store directly (what no community API can do)."""
        conn = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        try:
            conn.execute(sql, args)
            conn.commit()
        finally:
            conn.close()

    def project(self, name, token=None, **extra):
        return self.import_project(token or self.alice, name, **extra)

    def link(self, parent, body, token=None):
        return self.server.post("/api/v3/projects/%s/subprojects/" % parent, body,
                                token=token or self.alice)

    def subprojects(self, parent, token=None, query=""):
        r = self.server.get("/api/v3/projects/%s/subprojects/%s" % (parent, query), token=token)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        return r.json

    def expected_child(self, slug, parent, alias):
        """The child as a Subproject shows it: its own detail without
        subproject_of, documentation under the parent's domain."""
        child = self.server.get("/api/v3/projects/%s/" % slug).json
        self.assertEqual(child["subproject_of"]["slug"], parent)
        del child["subproject_of"]
        self.assertEqual(child["urls"]["documentation"],
                         "http://%s.localhost:%d/projects/%s/en/latest/"
                         % (parent, self.server.port, alias))
        return child

    def expected(self, parent, slug, alias):
        return {
            "_links": {
                "_self": "/api/v3/projects/%s/subprojects/%s/" % (parent, alias),
                "parent": "/api/v3/projects/%s/" % parent,
            },
            "alias": alias,
            "child": self.expected_child(slug, parent, alias),
        }


class CreateTest(SubprojectTestCase):
    def test_create_returns_the_subproject(self):
        self.project("create-parent")
        self.project("create-child")
        r = self.link("create-parent", {"child": "create-child", "alias": "kid"})
        self.assertStatus(r, 201)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(list(r.json), ["_links", "alias", "child"])
        self.assertNotIn("subproject_of", r.json["child"])
        self.assertRegex(r.json["child"]["created"], ISO_Z)
        self.assertRegex(r.json["child"]["modified"], ISO_Z)
        self.assertEqual(r.json, self.expected("create-parent", "create-child", "kid"))
        # The child now names its parent; the parent has no superproject.
        child = self.server.get("/api/v3/projects/create-child/").json
        self.assertEqual(child["subproject_of"]["slug"], "create-parent")
        self.assertEqual(child["subproject_of"]["_links"]["_self"],
                         "/api/v3/projects/create-parent/")
        sup = self.server.get("/api/v3/projects/create-child/superproject/")
        self.assertStatus(sup, 200)
        self.assertEqual(sup.json["slug"], "create-parent")

    def test_alias_defaults_to_the_child_slug(self):
        self.project("default-parent")
        for n, alias in enumerate([None, "", "absent"]):
            slug = "default-child-%d" % n
            self.project(slug)
            body = {"child": slug}
            if alias != "absent":
                body["alias"] = alias
            r = self.link("default-parent", body)
            self.assertStatus(r, 201)
            self.assertEqual(r.json["alias"], slug)
            self.assertEqual(r.json["_links"]["_self"],
                             "/api/v3/projects/default-parent/subprojects/%s/" % slug)
        self.assertEqual(self.subprojects("default-parent")["count"], 3)

    def test_alias_may_hold_word_characters(self):
        self.project("word-parent")
        self.project("word-child")
        r = self.link("word-parent", {"child": "word-child", "alias": "Über_docs-2"})
        self.assertStatus(r, 201)
        self.assertEqual(r.json["alias"], "Über_docs-2")
        r = self.server.get("/api/v3/projects/word-parent/subprojects/%C3%9Cber_docs-2/")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["alias"], "Über_docs-2")


class ValidationTest(SubprojectTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name in ("v-parent", "v-child", "v-free", "v-linked", "v-super", "v-super-kid"):
            cls.server.post("/api/v3/projects/", {
                "name": name, "repository": {"url": "https://github.com/x/%s" % name}},
                token=cls.alice)
        cls.server.post("/api/v3/projects/", {
            "name": "v-bobs", "repository": {"url": "https://github.com/x/bobs"}}, token=cls.bob)
        assert cls.server.post("/api/v3/projects/v-parent/subprojects/",
                               {"child": "v-linked", "alias": "taken"},
                               token=cls.alice).status == 201
        assert cls.server.post("/api/v3/projects/v-super/subprojects/",
                               {"child": "v-super-kid"}, token=cls.alice).status == 201

    def assertRejected(self, parent, body, expected):
        before = self.subprojects(parent, token=self.alice)
        r = self.link(parent, body)
        self.assertEqual((r.status, r.json), (400, expected), body)
        self.assertSortedKeys(r.body)
        self.assertEqual(self.subprojects(parent, token=self.alice), before)

    def not_valid(self, value):
        return {"child": ["Project with slug=%s is not valid as subproject" % value]}

    def test_child_field(self):
        self.assertRejected("v-parent", {}, {"child": ["This field is required."]})
        self.assertRejected("v-parent", {"alias": "x"}, {"child": ["This field is required."]})
        self.assertRejected("v-parent", {"child": None}, {"child": ["This field may not be null."]})
        self.assertRejected("v-parent", {"child": ""}, {"child": ["This field may not be null."]})
        self.assertRejected("v-parent", {"child": ["v-child"]}, {"child": ["Invalid value."]})
        self.assertRejected("v-parent", {"child": {"slug": "v-child"}}, {"child": ["Invalid value."]})
        self.assertRejected("v-parent", {"child": 5}, self.not_valid("5"))
        self.assertRejected("v-parent", {"child": True}, self.not_valid("True"))

    def test_child_must_be_a_candidate(self):
        # Unknown, the parent itself, another user's project, a project
        # already a subproject, and a project that has subprojects.
        for slug in ("no-such-project", "v-parent", "v-bobs", "v-linked", "v-super"):
            self.assertRejected("v-parent", {"child": slug}, self.not_valid(slug))

    def test_alias_rules(self):
        self.assertRejected("v-parent", {"child": "v-child", "alias": "bad alias!"},
                            {"alias": ["Aliases can contain letters, numbers, underscores, and hyphens."]})
        self.assertRejected("v-parent", {"child": "v-child", "alias": "a//b"},
                            {"alias": ["Aliases can contain letters, numbers, underscores, and hyphens."]})
        self.assertRejected("v-parent", {"child": "v-child", "alias": "x" * 256},
                            {"alias": ["Ensure this field has no more than 255 characters."]})
        self.assertRejected("v-parent", {"child": "v-child", "alias": "taken"},
                            {"alias": ["A subproject with this alias already exists"]})
        # The default alias (the child's slug) is checked the same way.
        self.assertRejected("v-super", {"child": "v-child", "alias": "v-super-kid"},
                            {"alias": ["A subproject with this alias already exists"]})
        self.assertRejected("v-parent", {"child": "v-child", "alias": 7},
                            {"alias": ["Not a valid string."]})

    def test_no_nesting(self):
        # v-linked is a subproject: it cannot have subprojects itself.
        self.assertRejected("v-linked", {"child": "v-free"},
                            {"non_field_errors": ["Subproject nesting is not supported"]})

    def test_body_must_be_an_object(self):
        self.assertRejected("v-parent", ["v-child"],
                            {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]})
        r = self.server.request("POST", "/api/v3/projects/v-parent/subprojects/",
                                raw=b'{"child": ', token=self.alice,
                                headers={"Content-Type": "application/json"})
        self.assertStatus(r, 400)
        self.assertTrue(r.json["detail"].startswith("JSON parse error - "), r.json)


class ListDetailDeleteTest(SubprojectTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name in ("l-parent", "l-one", "l-two", "l-three"):
            cls.server.post("/api/v3/projects/", {
                "name": name, "repository": {"url": "https://github.com/x/%s" % name}},
                token=cls.alice)
        for child, alias in (("l-one", "first"), ("l-two", "second"), ("l-three", "third")):
            assert cls.server.post("/api/v3/projects/l-parent/subprojects/",
                                   {"child": child, "alias": alias},
                                   token=cls.alice).status == 201

    def test_list_in_creation_order(self):
        page = self.subprojects("l-parent")
        self.assertEqual(list(page), ["count", "next", "previous", "results"])
        self.assertEqual(page["count"], 3)
        self.assertIsNone(page["next"])
        self.assertIsNone(page["previous"])
        self.assertEqual(page["results"], [self.expected("l-parent", "l-one", "first"),
                                           self.expected("l-parent", "l-two", "second"),
                                           self.expected("l-parent", "l-three", "third")])
        # Anyone may read it, with or without a token.
        self.assertEqual(self.subprojects("l-parent", token=self.bob), page)
        self.assertEqual(self.subprojects("l-parent", token=self.alice), page)

    def test_list_pages(self):
        page = self.subprojects("l-parent", query="?limit=1&offset=1")
        self.assertEqual(page["count"], 3)
        self.assertEqual([s["alias"] for s in page["results"]], ["second"])
        base = "http://%s:%d/api/v3/projects/l-parent/subprojects/" % (self.server.host,
                                                                       self.server.port)
        self.assertEqual(page["next"], base + "?limit=1&offset=2")
        self.assertEqual(page["previous"], base + "?limit=1")

    def test_unknown_parent_is_404(self):
        for token in (None, self.alice):
            self.assertDetail(self.server.get("/api/v3/projects/no-such-parent/subprojects/",
                                              token=token),
                              404, "No Project matches the given query.")
        # A project without subprojects is an empty page.
        self.assertEqual(self.subprojects("l-one"),
                         {"count": 0, "next": None, "previous": None, "results": []})

    def test_private_children_are_hidden_from_others(self):
        self.db("UPDATE projects SET privacy_level = 'private' WHERE slug = 'l-two'")
        try:
            for token in (None, self.bob):
                page = self.subprojects("l-parent", token=token)
                self.assertEqual(page["count"], 2)
                self.assertEqual([s["alias"] for s in page["results"]], ["first", "third"])
                self.assertDetail(self.server.get("/api/v3/projects/l-parent/subprojects/second/",
                                                  token=token),
                                  404, "No ProjectRelationship matches the given query.")
            page = self.subprojects("l-parent", token=self.alice)
            self.assertEqual([s["alias"] for s in page["results"]], ["first", "second", "third"])
            r = self.server.get("/api/v3/projects/l-parent/subprojects/second/", token=self.alice)
            self.assertStatus(r, 200)
            self.assertEqual(r.json["child"]["privacy_level"], "private")
        finally:
            self.db("UPDATE projects SET privacy_level = 'public' WHERE slug = 'l-two'")

    def test_detail(self):
        for token in (None, self.bob, self.alice):
            r = self.server.get("/api/v3/projects/l-parent/subprojects/third/", token=token)
            self.assertStatus(r, 200)
            self.assertSortedKeys(r.body)
            self.assertEqual(r.json, self.expected("l-parent", "l-three", "third"))

    def test_detail_misses(self):
        for path in ("/api/v3/projects/l-parent/subprojects/nope/",
                     "/api/v3/projects/l-parent/subprojects/l-one/",  # slug, not alias
                     "/api/v3/projects/l-one/subprojects/first/"):
            self.assertDetail(self.server.get(path), 404,
                              "No ProjectRelationship matches the given query.")
        self.assertDetail(self.server.get("/api/v3/projects/no-such-parent/subprojects/first/"),
                          404, "No Project matches the given query.")

    def test_bad_token_is_refused_even_for_reads(self):
        for path in ("/api/v3/projects/l-parent/subprojects/",
                     "/api/v3/projects/l-parent/subprojects/first/",
                     "/api/v3/projects/l-parent/translations/"):
            r = self.server.get(path, token="not-a-token")
            self.assertDetail(r, 401, "Invalid token.")
            self.assertEqual(r.header("WWW-Authenticate"), "Token")


class DeleteTest(SubprojectTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name in ("d-parent", "d-child", "d-bobs"):
            cls.server.post("/api/v3/projects/", {
                "name": name, "repository": {"url": "https://github.com/x/%s" % name}},
                token=cls.bob if name == "d-bobs" else cls.alice)
        assert cls.server.post("/api/v3/projects/d-parent/subprojects/",
                               {"child": "d-child", "alias": "gone"},
                               token=cls.alice).status == 201

    def test_permissions_then_delete(self):
        path = "/api/v3/projects/d-parent/subprojects/gone/"
        r = self.server.delete(path)
        self.assertDetail(r, 401, "Authentication credentials were not provided.")
        self.assertEqual(r.header("WWW-Authenticate"), "Token")
        self.assertDetail(self.server.delete(path, token="bad"), 401, "Invalid token.")
        self.assertDetail(self.server.delete(path, token=self.bob), 403,
                          "You do not have permission to perform this action.")
        self.assertEqual(self.subprojects("d-parent")["count"], 1)

        r = self.server.delete(path, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        # Only the link went: both projects stay, the child stands alone.
        self.assertEqual(self.subprojects("d-parent")["count"], 0)
        self.assertDetail(self.server.get(path), 404,
                          "No ProjectRelationship matches the given query.")
        child = self.server.get("/api/v3/projects/d-child/")
        self.assertStatus(child, 200)
        self.assertIsNone(child.json["subproject_of"])
        self.assertEqual(child.json["urls"]["documentation"],
                         "http://d-child.localhost:%d/en/latest/" % self.server.port)
        self.assertStatus(self.server.get("/api/v3/projects/d-parent/"), 200)
        r = self.server.get("/api/v3/projects/d-child/superproject/")
        self.assertStatus(r, 404)
        self.assertEqual(r.body, b"")
        self.assertDetail(self.server.delete(path, token=self.alice), 404,
                          "No ProjectRelationship matches the given query.")
        # The child can be linked again.
        r = self.link("d-parent", {"child": "d-child", "alias": "back"})
        self.assertStatus(r, 201)

    def test_create_permissions(self):
        body = {"child": "d-bobs"}
        r = self.server.post("/api/v3/projects/d-parent/subprojects/", body)
        self.assertDetail(r, 401, "Authentication credentials were not provided.")
        self.assertEqual(r.header("WWW-Authenticate"), "Token")
        self.assertDetail(self.server.post("/api/v3/projects/d-parent/subprojects/", body,
                                           token="bad"), 401, "Invalid token.")
        # Bob owns the child but not the parent.
        self.assertDetail(self.link("d-parent", body, token=self.bob), 403,
                          "You do not have permission to perform this action.")
        self.assertDetail(self.link("no-such-parent", body, token=self.bob), 404,
                          "No Project matches the given query.")
        r = self.server.post("/api/v3/projects/no-such-parent/subprojects/", body)
        self.assertStatus(r, 401)

    def test_unrouted_methods(self):
        path = "/api/v3/projects/d-parent/subprojects/gone/"
        for method in ("PUT", "PATCH", "POST"):
            r = self.server.request(method, path, body={}, token=self.alice)
            self.assertDetail(r, 405, 'Method "%s" not allowed.' % method)
            self.assertEqual(r.header("Allow"), "GET, DELETE, HEAD, OPTIONS")
            self.assertStatus(self.server.request(method, path, body={}, token=self.bob), 403)
            self.assertStatus(self.server.request(method, path, body={}), 401)
        r = self.server.request("DELETE", "/api/v3/projects/d-parent/subprojects/",
                                token=self.alice)
        self.assertDetail(r, 405, 'Method "DELETE" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, POST, HEAD, OPTIONS")


class TranslationsTest(SubprojectTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name, lang in (("t-main", "en"), ("t-spanish", "es"), ("t-german", "de"),
                           ("t-alone", "en")):
            r = cls.server.post("/api/v3/projects/", {
                "name": name, "language": lang,
                "repository": {"url": "https://github.com/x/%s" % name}}, token=cls.alice)
            assert r.status == 201, r

    def setUp(self):
        self.db("UPDATE projects SET main_language_project_id ="
                " (SELECT id FROM projects WHERE slug = 't-main')"
                " WHERE slug IN ('t-spanish', 't-german')")

    def translations(self, slug, token=None, query=""):
        r = self.server.get("/api/v3/projects/%s/translations/%s" % (slug, query), token=token)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        return r.json

    def test_full_projects_by_slug(self):
        page = self.translations("t-main")
        self.assertEqual(page["count"], 2)
        self.assertIsNone(page["next"])
        german = self.server.get("/api/v3/projects/t-german/").json
        spanish = self.server.get("/api/v3/projects/t-spanish/").json
        self.assertEqual(german["translation_of"]["slug"], "t-main")
        self.assertEqual(page["results"], [german, spanish])
        self.assertEqual(german["urls"]["documentation"],
                         "http://t-main.localhost:%d/de/latest/" % self.server.port)
        self.assertEqual(self.translations("t-main", token=self.bob), page)

    def test_fields_and_paging(self):
        page = self.translations("t-main", query="?fields=slug,language&limit=1")
        self.assertEqual(page["results"], [{"language": {"code": "de", "name": "German"},
                                            "slug": "t-german"}])
        self.assertTrue(page["next"].endswith("?fields=slug%2Clanguage&limit=1&offset=1"),
                        page["next"])

    def test_empty_and_unknown(self):
        empty = {"count": 0, "next": None, "previous": None, "results": []}
        self.assertEqual(self.translations("t-alone"), empty)
        self.assertEqual(self.translations("t-spanish"), empty)
        for token in (None, self.alice):
            self.assertDetail(self.server.get("/api/v3/projects/no-such-project/translations/",
                                              token=token),
                              404, "No Project matches the given query.")

    def test_private_translations_are_hidden_from_others(self):
        self.db("UPDATE projects SET privacy_level = 'private' WHERE slug = 't-spanish'")
        try:
            for token in (None, self.bob):
                page = self.translations("t-main", token=token)
                self.assertEqual([p["slug"] for p in page["results"]], ["t-german"])
                self.assertEqual(page["count"], 1)
            page = self.translations("t-main", token=self.alice)
            self.assertEqual([p["slug"] for p in page["results"]], ["t-german", "t-spanish"])
        finally:
            self.db("UPDATE projects SET privacy_level = 'public' WHERE slug = 't-spanish'")

    def test_read_only(self):
        path = "/api/v3/projects/t-main/translations/"
        r = self.server.post(path, {}, token=self.alice)
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, HEAD, OPTIONS")
        self.assertStatus(self.server.post(path, {}, token=self.bob), 403)
        self.assertStatus(self.server.post(path, {}), 401)


if __name__ == "__main__":
    main()
