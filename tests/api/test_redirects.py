"""v3 redirects: the Redirect object (GET shows empty URLs as null, write
responses show them raw), every type spelling of the contract and of
today's service stored and returned as given, every validation message
with its field (or the bare list of a business rule), the limit of 100,
positions after inserts, moves and deletes, PUT/PATCH keeping omitted
fields, and the admin-only permission matrix (reads included)."""
import datetime

from lectern_test import ServerTestCase, main

ISO_Z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$"
KEYS = ["_links", "created", "description", "enabled", "force", "from_url", "http_status",
        "modified", "pk", "position", "project", "to_url", "type"]
SPELLINGS = ["prefix", "page", "exact", "docgen_html", "docgen_htmldir", "sphinx_html",
             "sphinx_htmldir", "clean_url_to_html", "html_to_clean_url"]


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class RedirectTestCase(ServerTestCase):
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
        base = "/api/v3/projects/%s/redirects/" % slug
        return base if pk is None else "%s%s/" % (base, pk)

    def create(self, slug, body, status=201):
        r = self.server.post(self.url(slug), body, token=self.alice)
        self.assertStatus(r, status)
        return r.json

    def listing(self, slug, query=""):
        r = self.server.get(self.url(slug) + query, token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        return r.json

    def order(self, slug):
        """(from_url, position) of every redirect in list order."""
        return [(x["from_url"], x["position"]) for x in self.listing(slug, "?limit=1000")["results"]]

    def assertRedirect(self, got, slug, **want):
        """got is a whole Redirect: exact keys, links, datetimes, values."""
        self.assertEqual(list(got), KEYS)
        self.assertRegex(got["created"], ISO_Z)
        self.assertRegex(got["modified"], ISO_Z)
        self.assertIsInstance(got["pk"], int)
        expected = {
            "_links": {"_self": "/api/v3/projects/%s/redirects/%d/" % (slug, got["pk"]),
                       "project": "/api/v3/projects/%s/" % slug},
            "created": got["created"], "modified": got["modified"], "pk": got["pk"],
            "project": slug, "description": "", "enabled": True, "force": False,
            "http_status": 302, "position": 0,
        }
        expected.update(want)
        self.assertEqual(got, expected)


class CreateTest(RedirectTestCase):
    PROJECTS = ("create", "spellings", "normal")

    def test_create_page_redirect(self):
        r = self.server.post(self.url("create"), {"type": "page", "from_url": "/docs/",
                                                  "to_url": "guide/"}, token=self.alice)
        self.assertStatus(r, 201)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertRedirect(r.json, "create", type="page", from_url="/docs", to_url="/guide/")
        self.assertEqual(r.json["created"], r.json["modified"])
        # Reading it back gives the same object.
        d = self.server.get(self.url("create", r.json["pk"]), token=self.alice)
        self.assertStatus(d, 200)
        self.assertSortedKeys(d.body)
        self.assertEqual(d.json, r.json)

    def test_every_field(self):
        body = {"type": "exact", "from_url": "/old/*", "to_url": "https://example.com/:splat",
                "force": True, "enabled": False, "description": "moved away",
                "http_status": 301, "position": 0}
        got = self.create("create", body)
        self.assertRedirect(got, "create", type="exact", from_url="/old/*",
                            to_url="https://example.com/:splat", force=True, enabled=False,
                            description="moved away", http_status=301)
        # Text forms the service's fields accept.
        got = self.create("create", {"type": "page", "from_url": "/t", "to_url": "/u",
                                     "http_status": "301", "force": "yes", "enabled": 0,
                                     "position": "0"})
        self.assertEqual((got["http_status"], got["force"], got["enabled"], got["position"]),
                         (301, True, False, 0))
        got = self.create("create", {"type": "page", "from_url": "/v", "to_url": "/w",
                                     "description": None})
        self.assertEqual(got["description"], "")

    def test_every_spelling_is_stored_as_given(self):
        for spelling in SPELLINGS:
            body = {"type": spelling, "from_url": "/from/", "to_url": "/to/"}
            r = self.server.post(self.url("spellings"), body, token=self.alice)
            self.assertStatus(r, 201)
            self.assertEqual(r.json["type"], spelling)
            got = self.server.get(self.url("spellings", r.json["pk"]), token=self.alice).json
            self.assertEqual(got["type"], spelling)
            # Only one redirect of each clean-URL kind may exist: remove it.
            self.assertStatus(self.server.delete(self.url("spellings", r.json["pk"]),
                                                 token=self.alice), 204)

    def test_normalisation(self):
        cases = [
            ("prefix", "dev/", None, "/dev/", ""),
            ("prefix", "/dev/", "/en/latest/", "/dev/", "/en/latest/"),
            ("page", "//a//", "b.html", "/a", "/b.html"),
            ("page", "", "http://example.com/x", "/", "http://example.com/x"),
            ("exact", "/x/", "//y", "/x", "/y"),
        ]
        for kind, from_url, to_url, want_from, want_to in cases:
            body = {"type": kind, "from_url": from_url}
            if to_url is not None:
                body["to_url"] = to_url
            got = self.create("normal", body)
            self.assertEqual((got["from_url"], got["to_url"]), (want_from, want_to), body)

    def test_empty_urls_are_null_on_reads_only(self):
        for spelling in ("clean_url_to_html", "html_to_clean_url"):
            got = self.create("normal", {"type": spelling, "from_url": "/ignored/",
                                         "to_url": "/ignored/"})
            self.assertRedirect(got, "normal", type=spelling, from_url="", to_url="")
            d = self.server.get(self.url("normal", got["pk"]), token=self.alice)
            self.assertRedirect(d.json, "normal", type=spelling, from_url=None, to_url=None)
            listed = [x for x in self.listing("normal", "?limit=100")["results"]
                      if x["pk"] == got["pk"]]
            self.assertEqual(listed, [d.json])
            # A write response shows them raw again.
            p = self.server.patch(self.url("normal", got["pk"]), {"description": "x"},
                                  token=self.alice)
            self.assertStatus(p, 200)
            self.assertEqual((p.json["from_url"], p.json["to_url"]), ("", ""))
        # A prefix redirect without to_url reads back null.
        got = self.create("normal", {"type": "prefix", "from_url": "/p/"})
        self.assertEqual(got["to_url"], "")
        d = self.server.get(self.url("normal", got["pk"]), token=self.alice).json
        self.assertEqual((d["from_url"], d["to_url"]), ("/p/", None))


class ValidationTest(RedirectTestCase):
    PROJECTS = ("valid", "full")

    def assertRejected(self, body, expected, slug="valid"):
        before = self.listing(slug, "?limit=1000")
        r = self.server.post(self.url(slug), body, token=self.alice)
        self.assertEqual((r.status, r.json), (400, expected), body)
        self.assertSortedKeys(r.body)
        self.assertEqual(self.listing(slug, "?limit=1000"), before)

    def test_field_errors(self):
        page = {"type": "page", "from_url": "/a", "to_url": "/b"}
        cases = [
            ({}, {"type": ["This field is required."]}),
            ({"from_url": "/a"}, {"type": ["This field is required."]}),
            ({"type": None}, {"type": ["This field may not be null."]}),
            ({"type": "bogus"}, {"type": ['"bogus" is not a valid choice.']}),
            ({"type": ""}, {"type": ['"" is not a valid choice.']}),
            ({"type": 5}, {"type": ['"5" is not a valid choice.']}),
            ({"type": True}, {"type": ['"True" is not a valid choice.']}),
            ({"type": "page", "to_url": "/b"}, {"from_url": ["This field is required."]}),
            ({"type": "exact", "to_url": "/b"}, {"from_url": ["This field is required."]}),
            ({"type": "prefix"}, {"from_url": ["This field is required."]}),
            ({"type": "page", "from_url": "/a"}, {"to_url": ["This field is required."]}),
            ({"type": "exact", "from_url": "/a"}, {"to_url": ["This field is required."]}),
            (dict(page, from_url=None), {"from_url": ["This field may not be null."]}),
            (dict(page, to_url=5), {"to_url": ["Not a valid string."]}),
            (dict(page, from_url="/" + "x" * 255),
             {"from_url": ["Ensure this field has no more than 255 characters."]}),
            (dict(page, to_url="/" + "é" * 255),
             {"to_url": ["Ensure this field has no more than 255 characters."]}),
            (dict(page, description="d" * 256),
             {"description": ["Ensure this field has no more than 255 characters."]}),
            (dict(page, http_status=303), {"http_status": ['"303" is not a valid choice.']}),
            (dict(page, http_status="303"), {"http_status": ['"303" is not a valid choice.']}),
            (dict(page, http_status="abc"), {"http_status": ['"abc" is not a valid choice.']}),
            (dict(page, http_status=301.5), {"http_status": ['"301.5" is not a valid choice.']}),
            (dict(page, http_status=True), {"http_status": ['"True" is not a valid choice.']}),
            (dict(page, http_status=None), {"http_status": ["This field may not be null."]}),
            (dict(page, position=-1),
             {"position": ["Ensure this value is greater than or equal to 0."]}),
            (dict(page, position="first"), {"position": ["A valid integer is required."]}),
            (dict(page, position=1.5), {"position": ["A valid integer is required."]}),
            (dict(page, position=None), {"position": ["This field may not be null."]}),
            (dict(page, force="maybe"), {"force": ["Must be a valid boolean."]}),
            (dict(page, enabled=None), {"enabled": ["This field may not be null."]}),
        ]
        for body, expected in cases:
            self.assertRejected(body, expected)

    def test_wildcard_rules_are_bare_lists(self):
        self.assertRejected({"type": "page", "from_url": "/one/$rest", "to_url": "/two/"},
                            ["The $rest wildcard has been removed in favor of *."])
        for kind in ("page", "exact"):
            self.assertRejected({"type": kind, "from_url": "/one/*.html", "to_url": "/two/"},
                                ["The * wildcard must be at the end of the path."])
            self.assertRejected({"type": kind, "from_url": "/one/", "to_url": "/two/:splat"},
                                ["The * wildcard must be at the end of from_url to use the "
                                 ":splat placeholder in to_url."])

    def test_one_clean_url_redirect_of_each_kind(self):
        first = self.create("valid", {"type": "sphinx_html"})
        self.assertRejected({"type": "clean_url_to_html"},
                            ["Only one redirect of type `clean_url_to_html` is allowed per project."])
        self.assertRejected({"type": "docgen_html"},
                            ["Only one redirect of type `clean_url_to_html` is allowed per project."])
        self.create("valid", {"type": "docgen_htmldir"})
        self.assertRejected({"type": "html_to_clean_url"},
                            ["Only one redirect of type `html_to_clean_url` is allowed per project."])
        # Turning another redirect into the same kind is refused too.
        other = self.create("valid", {"type": "page", "from_url": "/c", "to_url": "/d"})
        r = self.server.patch(self.url("valid", other["pk"]), {"type": "clean_url_to_html"},
                              token=self.alice)
        self.assertEqual((r.status, r.json),
                         (400, ["Only one redirect of type `clean_url_to_html` is allowed per project."]))
        # The redirect itself may be saved again.
        r = self.server.put(self.url("valid", first["pk"]), {"type": "sphinx_html",
                                                             "description": "again"},
                            token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["description"], "again")

    def test_limit_of_100(self):
        for n in range(100):
            self.create("full", {"type": "page", "from_url": "/p%d" % n, "to_url": "/q"})
        self.assertRejected({"type": "page", "from_url": "/one-more", "to_url": "/q"},
                            ["This project has reached the limit of 100 redirects. Consider "
                             "replacing some of your redirects with a wildcard redirect."],
                            slug="full")
        page = self.listing("full")
        self.assertEqual(page["count"], 100)
        self.assertEqual(len(page["results"]), 10)
        self.assertEqual(page["next"], "http://%s:%d/api/v3/projects/full/redirects/?limit=10&offset=10"
                         % (self.server.host, self.server.port))
        # The limit is on creation: updates still work.
        r = self.server.patch(self.url("full", page["results"][0]["pk"]),
                              {"to_url": "/elsewhere"}, token=self.alice)
        self.assertStatus(r, 200)

    def test_bad_bodies(self):
        self.assertRejected(["page"], {"non_field_errors": [
            "Invalid data. Expected a dictionary, but got list."]})
        r = self.server.request("POST", self.url("valid"), raw=b"type=page", token=self.alice,
                                headers={"Content-Type": "text/plain"})
        self.assertDetail(r, 415, 'Unsupported media type "text/plain" in request.')
        r = self.server.request("POST", self.url("valid"), raw=b'{"type": ', token=self.alice,
                                headers={"Content-Type": "application/json"})
        self.assertStatus(r, 400)
        self.assertTrue(r.json["detail"].startswith("JSON parse error - "), r.json)


class PositionTest(RedirectTestCase):
    PROJECTS = ("pos",)

    def page(self, path):
        return {"type": "page", "from_url": path, "to_url": "/x"}

    def test_inserts_moves_and_deletes(self):
        a = self.create("pos", self.page("/a"))
        self.assertEqual(a["position"], 0)
        b = self.create("pos", self.page("/b"))  # default 0: on top
        self.assertEqual(b["position"], 0)
        self.assertEqual(self.order("pos"), [("/b", 0), ("/a", 1)])
        c = self.create("pos", dict(self.page("/c"), position=99))  # clamped to the end
        self.assertEqual(c["position"], 2)
        d = self.create("pos", dict(self.page("/d"), position=1))
        self.assertEqual(d["position"], 1)
        self.assertEqual(self.order("pos"), [("/b", 0), ("/d", 1), ("/a", 2), ("/c", 3)])

        # PUT moves (to at most the last place) and keeps the rest.
        r = self.server.put(self.url("pos", b["pk"]), {"type": "page", "position": 50},
                            token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual((r.json["position"], r.json["from_url"]), (3, "/b"))
        self.assertEqual(self.order("pos"), [("/d", 0), ("/a", 1), ("/c", 2), ("/b", 3)])
        # PATCH moves up.
        r = self.server.patch(self.url("pos", c["pk"]), {"position": 0}, token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["position"], 0)
        self.assertEqual(self.order("pos"), [("/c", 0), ("/d", 1), ("/a", 2), ("/b", 3)])
        # An update without a position does not move.
        r = self.server.patch(self.url("pos", a["pk"]), {"description": "stay"}, token=self.alice)
        self.assertEqual(r.json["position"], 2)
        self.assertEqual(self.order("pos"), [("/c", 0), ("/d", 1), ("/a", 2), ("/b", 3)])
        # Deleting closes the gap.
        self.assertStatus(self.server.delete(self.url("pos", d["pk"]), token=self.alice), 204)
        self.assertEqual(self.order("pos"), [("/c", 0), ("/a", 1), ("/b", 2)])
        self.assertStatus(self.server.delete(self.url("pos", c["pk"]), token=self.alice), 204)
        self.assertEqual(self.order("pos"), [("/a", 0), ("/b", 1)])
        detail = self.server.get(self.url("pos", b["pk"]), token=self.alice).json
        self.assertEqual(detail["position"], 1)


class UpdateTest(RedirectTestCase):
    PROJECTS = ("upd",)

    def setUp(self):
        self.original = self.create("upd", {
            "type": "page", "from_url": "/from", "to_url": "/to", "description": "keep me",
            "force": True, "http_status": 301})
        self.path = self.url("upd", self.original["pk"])

    def tearDown(self):
        self.server.delete(self.path, token=self.alice)

    def test_put_needs_only_type_and_keeps_the_rest(self):
        r = self.server.put(self.path, {"type": "exact", "to_url": "/new/"}, token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertRedirect(r.json, "upd", type="exact", from_url="/from", to_url="/new/",
                            description="keep me", force=True, http_status=301,
                            created=self.original["created"], modified=r.json["modified"])
        self.assertGreater(parse_time(r.json["modified"]), parse_time(self.original["modified"]))
        self.assertEqual(self.server.get(self.path, token=self.alice).json, r.json)

    def test_put_without_type(self):
        r = self.server.put(self.path, {"to_url": "/new/"}, token=self.alice)
        self.assertEqual((r.status, r.json), (400, {"type": ["This field is required."]}))
        self.assertEqual(self.server.get(self.path, token=self.alice).json, self.original)

    def test_patch(self):
        r = self.server.patch(self.path, {"enabled": False, "http_status": 302}, token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertRedirect(r.json, "upd", type="page", from_url="/from", to_url="/to",
                            description="keep me", force=True, enabled=False,
                            created=self.original["created"], modified=r.json["modified"])
        # An empty PATCH changes nothing but is still 200 with the body.
        r2 = self.server.patch(self.path, {}, token=self.alice)
        self.assertStatus(r2, 200)
        self.assertEqual(dict(r2.json, modified=None), dict(r.json, modified=None))

    def test_rejected_updates_change_nothing(self):
        for method, body, expected in [
                ("PATCH", {"type": "nope"}, {"type": ['"nope" is not a valid choice.']}),
                ("PATCH", {"from_url": "/a/*/b"}, ["The * wildcard must be at the end of the path."]),
                ("PATCH", {"position": -3},
                 {"position": ["Ensure this value is greater than or equal to 0."]}),
                ("PUT", {"type": "page", "http_status": 307}, {"http_status": ['"307" is not a valid choice.']}),
                ("PATCH", {"from_url": None}, {"from_url": ["This field may not be null."]}),
        ]:
            r = self.server.request(method, self.path, body=body, token=self.alice)
            self.assertEqual((r.status, r.json), (400, expected), body)
        self.assertEqual(self.server.get(self.path, token=self.alice).json, self.original)

    def test_lookup_misses(self):
        other = self.server.post(self.url("bobs"), {"type": "page", "from_url": "/x",
                                                    "to_url": "/y"}, token=self.bob).json
        for method in ("GET", "PUT", "PATCH", "DELETE"):
            for pk in ("999999", str(other["pk"])):
                r = self.server.request(method, self.url("upd", pk), body={"type": "page"},
                                        token=self.alice)
                self.assertDetail(r, 404, "No Redirect matches the given query.")
            for pk in ("abc", "-1", "1.0"):
                r = self.server.request(method, self.url("upd", pk), body={"type": "page"},
                                        token=self.alice)
                self.assertDetail(r, 404, "Not found.")
        # Bob's redirect is untouched.
        self.assertEqual(self.server.get(self.url("bobs", other["pk"]), token=self.bob).json,
                         other)

    def test_delete(self):
        r = self.server.delete(self.path, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        self.assertDetail(self.server.get(self.path, token=self.alice), 404,
                          "No Redirect matches the given query.")
        self.assertDetail(self.server.delete(self.path, token=self.alice), 404,
                          "No Redirect matches the given query.")


class PermissionTest(RedirectTestCase):
    PROJECTS = ("perm",)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.pk = cls.server.post("/api/v3/projects/perm/redirects/", {
            "type": "page", "from_url": "/a", "to_url": "/b"}, token=cls.alice).json["pk"]

    def requests(self):
        detail = self.url("perm", self.pk)
        return [("GET", self.url("perm"), None), ("POST", self.url("perm"),
                                                  {"type": "page", "from_url": "/n", "to_url": "/m"}),
                ("GET", detail, None), ("PUT", detail, {"type": "page"}),
                ("PATCH", detail, {"description": "x"}), ("DELETE", detail, None)]

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
        # Bob cannot read his way into Alice's project, nor she into his.
        self.assertStatus(self.server.get(self.url("bobs"), token=self.alice), 403)

    def test_unknown_project(self):
        for method, path, body in self.requests():
            path = path.replace("/perm/", "/no-such-project/")
            r = self.server.request(method, path, body=body, token=self.alice)
            self.assertDetail(r, 404, "No Project matches the given query.")
            self.assertStatus(self.server.request(method, path, body=body), 401)

    def test_unrouted_methods(self):
        for method, path, allow in [("PUT", self.url("perm"), "GET, POST, HEAD, OPTIONS"),
                                    ("DELETE", self.url("perm"), "GET, POST, HEAD, OPTIONS"),
                                    ("POST", self.url("perm", self.pk),
                                     "GET, PUT, PATCH, DELETE, HEAD, OPTIONS")]:
            r = self.server.request(method, path, body={}, token=self.alice)
            self.assertDetail(r, 405, 'Method "%s" not allowed.' % method)
            self.assertEqual(r.header("Allow"), allow)
            self.assertStatus(self.server.request(method, path, body={}, token=self.bob), 403)

    def test_owner_may_read(self):
        page = self.listing("perm")
        self.assertEqual(list(page), ["count", "next", "previous", "results"])
        self.assertGreaterEqual(page["count"], 1)
        r = self.server.get(self.url("perm", self.pk), token=self.alice)
        self.assertStatus(r, 200)
        self.assertRedirect(r.json, "perm", type="page", from_url="/a", to_url="/b",
                            position=r.json["position"])


if __name__ == "__main__":
    main()
