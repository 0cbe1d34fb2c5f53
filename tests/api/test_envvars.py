"""v3 environment variables: the EnvironmentVariable object with absolute
_links and never a value (checked in the raw bytes of every response and
in the server's log), the service's size limits with their messages, list
order and paging, delete, no update (405), and the admin-only permission
matrix (reads included)."""
from lectern_test import ServerTestCase, main

ISO_Z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$"
KEYS = ["_links", "created", "modified", "name", "pk", "project", "public"]
SECRET = "s3cr3t-Value-that-must-never-leak"


class EnvVarTestCase(ServerTestCase):
    PROJECTS = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")
        for name in cls.PROJECTS:
            r = cls.server.post("/api/v3/projects/", {
                "name": name, "repository": {"url": "https://github.com/x/%s" % name}},
                token=cls.alice)
            assert r.status == 201, r
        r = cls.server.post("/api/v3/projects/", {
            "name": "bobs", "repository": {"url": "https://github.com/x/bobs"}}, token=cls.bob)
        assert r.status == 201, r

    def url(self, slug, pk=None):
        base = "/api/v3/projects/%s/environmentvariables/" % slug
        return base if pk is None else "%s%s/" % (base, pk)

    def assertNoSecret(self, response, secret=SECRET):
        self.assertNotIn(secret.encode("utf-8"), response.body)
        self.assertNotIn(b'"value"', response.body)

    def create(self, slug, name, value=SECRET, status=201, **extra):
        body = {"name": name, "value": value}
        body.update(extra)
        r = self.server.post(self.url(slug), body, token=self.alice)
        self.assertStatus(r, status)
        self.assertNoSecret(r, value)
        return r.json

    def listing(self, slug, query=""):
        r = self.server.get(self.url(slug) + query, token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertNoSecret(r)
        return r.json

    def expected(self, slug, got, name, public=False, origin=None):
        origin = origin or self.server.base
        return {
            "_links": {
                "_self": "%s/api/v3/projects/%s/environmentvariables/%d/" % (origin, slug, got["pk"]),
                "project": "%s/api/v3/projects/%s/" % (origin, slug),
            },
            "created": got["created"], "modified": got["modified"], "name": name,
            "pk": got["pk"], "project": slug, "public": public,
        }


class CreateReadDeleteTest(EnvVarTestCase):
    PROJECTS = ("env",)

    def test_create_without_value(self):
        r = self.server.post(self.url("env"), {"name": "TOKEN", "value": SECRET},
                             token=self.alice)
        self.assertStatus(r, 201)
        self.assertSortedKeys(r.body)
        self.assertNoSecret(r)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(list(r.json), KEYS)
        self.assertRegex(r.json["created"], ISO_Z)
        self.assertRegex(r.json["modified"], ISO_Z)
        self.assertIsInstance(r.json["pk"], int)
        self.assertEqual(r.json, self.expected("env", r.json, "TOKEN"))
        # Read back: the same object, still without the value.
        d = self.server.get(self.url("env", r.json["pk"]), token=self.alice)
        self.assertStatus(d, 200)
        self.assertSortedKeys(d.body)
        self.assertNoSecret(d)
        self.assertEqual(d.json, r.json)

    def test_public_flag(self):
        got = self.create("env", "PUBLIC_ONE", public=True)
        self.assertEqual(got, self.expected("env", got, "PUBLIC_ONE", public=True))
        got = self.create("env", "PUBLIC_WORD", public="false")
        self.assertFalse(got["public"])

    def test_links_follow_the_host_header(self):
        # Issue 16: every absolute URL uses the host the client asked
        # for, so links work through a tunnel or a proxy.
        got = self.create("env", "HOSTED")
        r = self.server.get(self.url("env", got["pk"]), token=self.alice,
                            host="docs.example.com")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["_links"],
                         self.expected("env", got, "HOSTED",
                                       origin="http://docs.example.com")["_links"])

    def test_odd_values_are_accepted_and_never_shown(self):
        # Shell-special and non-ASCII values go through untouched; the
        # response never carries them (builds get them, not the API).
        for value in ("a b 'c' $HOME; rm -rf /", "ünïcödé ✓", " padded "):
            got = self.create("env", "ODD", value=value)
            d = self.server.get(self.url("env", got["pk"]), token=self.alice)
            self.assertNoSecret(d, value)
        self.assertNotIn(SECRET, self.server.log())
        self.assertNotIn("rm -rf", self.server.log())

    def test_delete(self):
        got = self.create("env", "DOOMED")
        path = self.url("env", got["pk"])
        r = self.server.delete(path, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        self.assertDetail(self.server.get(path, token=self.alice), 404,
                          "No EnvironmentVariable matches the given query.")
        self.assertDetail(self.server.delete(path, token=self.alice), 404,
                          "No EnvironmentVariable matches the given query.")
        self.assertNotIn(got["pk"], [v["pk"] for v in self.listing("env", "?limit=1000")["results"]])

    def test_lookup_misses(self):
        other = self.server.post(self.url("bobs"), {"name": "BOBS", "value": "x"},
                                 token=self.bob).json
        for method in ("GET", "DELETE"):
            for pk in ("999999", str(other["pk"])):
                self.assertDetail(self.server.request(method, self.url("env", pk), token=self.alice),
                                  404, "No EnvironmentVariable matches the given query.")
            for pk in ("abc", "-1", "1e3"):
                self.assertDetail(self.server.request(method, self.url("env", pk), token=self.alice),
                                  404, "Not found.")
        r = self.server.get(self.url("bobs", other["pk"]), token=self.bob)
        self.assertEqual(r.json, other)


class ListTest(EnvVarTestCase):
    PROJECTS = ("listed", "empty")

    def test_creation_order_duplicates_and_pages(self):
        made = [self.create("listed", name) for name in ("B", "A", "B", "C")]
        page = self.listing("listed")
        self.assertEqual(list(page), ["count", "next", "previous", "results"])
        self.assertEqual(page["count"], 4)
        self.assertIsNone(page["next"])
        self.assertEqual(page["results"], made)
        self.assertEqual([v["name"] for v in page["results"]], ["B", "A", "B", "C"])
        page = self.listing("listed", "?limit=2&offset=1")
        self.assertEqual(page["results"], made[1:3])
        base = "http://%s:%d/api/v3/projects/listed/environmentvariables/" % (
            self.server.host, self.server.port)
        self.assertEqual(page["next"], base + "?limit=2&offset=3")
        self.assertEqual(page["previous"], base + "?limit=2")

    def test_empty(self):
        self.assertEqual(self.listing("empty"),
                         {"count": 0, "next": None, "previous": None, "results": []})


class ValidationTest(EnvVarTestCase):
    PROJECTS = ("valid", "total")

    def count(self, slug):
        return self.listing(slug)["count"]

    def assertRejected(self, body, expected, slug="valid"):
        before = self.count(slug)
        r = self.server.post(self.url(slug), body, token=self.alice)
        self.assertEqual((r.status, r.json), (400, expected), str(body)[:200])
        self.assertSortedKeys(r.body)
        self.assertNotIn(b"must-not-leak", r.body)
        self.assertEqual(self.count(slug), before)

    def test_field_errors(self):
        v = "must-not-leak"
        cases = [
            ({}, {"name": ["This field is required."]}),
            ({"value": v}, {"name": ["This field is required."]}),
            ({"name": "N"}, {"value": ["This field is required."]}),
            ({"name": None, "value": v}, {"name": ["This field may not be null."]}),
            ({"name": "N", "value": None}, {"value": ["This field may not be null."]}),
            ({"name": "", "value": v}, {"name": ["This field may not be blank."]}),
            ({"name": "N", "value": ""}, {"value": ["This field may not be blank."]}),
            ({"name": 5, "value": v}, {"name": ["Not a valid string."]}),
            ({"name": "N", "value": ["must-not-leak"]}, {"value": ["Not a valid string."]}),
            ({"name": "N" * 129, "value": v},
             {"name": ["Ensure this field has no more than 128 characters."]}),
            ({"name": "N", "value": "must-not-leak" + "x" * 47988},
             {"value": ["Ensure this field has no more than 48000 characters."]}),
            ({"name": "N", "value": v, "public": "perhaps"}, {"public": ["Must be a valid boolean."]}),
            ({"name": "N", "value": v, "public": None}, {"public": ["This field may not be null."]}),
        ]
        for body, expected in cases:
            self.assertRejected(body, expected)
        self.assertRejected(["N"], {"non_field_errors": [
            "Invalid data. Expected a dictionary, but got list."]})
        self.assertNotIn("must-not-leak", self.server.log())

    def test_lengths_count_characters(self):
        self.create("valid", "é" * 128, value="é" * 48000)
        self.assertRejected({"name": "é" * 129, "value": "v"},
                            {"name": ["Ensure this field has no more than 128 characters."]})
        self.assertRejected({"name": "N", "value": "é" * 48001},
                            {"value": ["Ensure this field has no more than 48000 characters."]})

    def test_project_total(self):
        for n in range(5):
            self.create("total", "BIG%d" % n, value="x" * 48000)
        self.create("total", "REST", value="y" * 16000)  # exactly 256000
        self.assertRejected({"name": "ONE_MORE", "value": "z"},
                            ["The total size of all environment variables in the project "
                             "cannot exceed 256 KB."], slug="total")
        # Deleting frees room again.
        pk = self.listing("total")["results"][0]["pk"]
        self.assertStatus(self.server.delete(self.url("total", pk), token=self.alice), 204)
        self.create("total", "ONE_MORE", value="z")


class PermissionTest(EnvVarTestCase):
    PROJECTS = ("perm",)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.pk = cls.server.post("/api/v3/projects/perm/environmentvariables/",
                                 {"name": "KEY", "value": SECRET}, token=cls.alice).json["pk"]

    def requests(self):
        detail = self.url("perm", self.pk)
        return [("GET", self.url("perm"), None),
                ("POST", self.url("perm"), {"name": "N", "value": SECRET}),
                ("GET", detail, None), ("DELETE", detail, None)]

    def test_matrix(self):
        before = self.listing("perm")
        for method, path, body in self.requests():
            r = self.server.request(method, path, body=body)
            self.assertDetail(r, 401, "Authentication credentials were not provided.")
            self.assertEqual(r.header("WWW-Authenticate"), "Token")
            r = self.server.request(method, path, body=body, token="not-a-token")
            self.assertDetail(r, 401, "Invalid token.")
            r = self.server.request(method, path, body=body, token=self.bob)
            self.assertDetail(r, 403, "You do not have permission to perform this action.")
        self.assertEqual(self.listing("perm"), before)
        self.assertStatus(self.server.get(self.url("bobs"), token=self.alice), 403)

    def test_unknown_project(self):
        for method, path, body in self.requests():
            path = path.replace("/perm/", "/no-such-project/")
            r = self.server.request(method, path, body=body, token=self.alice)
            self.assertDetail(r, 404, "No Project matches the given query.")
            self.assertStatus(self.server.request(method, path, body=body), 401)

    def test_no_update(self):
        path = self.url("perm", self.pk)
        for method in ("PUT", "PATCH"):
            r = self.server.request(method, path, body={"name": "KEY", "value": "new"},
                                    token=self.alice)
            self.assertDetail(r, 405, 'Method "%s" not allowed.' % method)
            self.assertEqual(r.header("Allow"), "GET, DELETE, HEAD, OPTIONS")
            self.assertStatus(self.server.request(method, path, body={}, token=self.bob), 403)
            self.assertStatus(self.server.request(method, path, body={}), 401)
        r = self.server.request("DELETE", self.url("perm"), token=self.alice)
        self.assertDetail(r, 405, 'Method "DELETE" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, POST, HEAD, OPTIONS")
        self.assertEqual(self.listing("perm")["results"][0]["name"], "KEY")


if __name__ == "__main__":
    main()
