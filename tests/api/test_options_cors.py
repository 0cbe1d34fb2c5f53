"""OPTIONS as the service's framework answers it, and the service's CORS
rules (issue 32, item 3; docs/api.md "OPTIONS and CORS").

OPTIONS is Django REST framework's SimpleMetadata: authentication and the
view's permission first (a route anyone may read answers anyone), then 200
with the view's name, description, renders and parses, and the Allow header.
CORS is django-cors-headers with the service's settings: only the search and
embed APIs (also under /_/ on docs hosts), any origin, no credentials, only
idempotent methods; a preflight there is an empty 200 answered before any
view, and a request elsewhere gets no CORS header at all."""
import json

from lectern_test import ServerTestCase, main

ORIGIN = "https://elsewhere.example"
PARSES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
ALLOW_HEADERS = ("accept, authorization, content-type, user-agent, x-csrftoken, "
                 "x-requested-with, x-hoverxref-version")


class OptionsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.owner = cls.server.token("owner")
        cls.other = cls.server.token("other")
        cls.slug = cls.server.import_project(cls.owner, "Opt")["slug"]

    def options(self, path, **kw):
        return self.server.request("OPTIONS", path, **kw)

    def test_project_routes_answer_anyone(self):
        r = self.options("/api/v3/projects/")
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.header("Allow"), "GET, POST, HEAD, OPTIONS")
        # v3 renders with sorted keys.
        self.assertEqual(r.body, json.dumps({
            "description": "", "name": "Projects List", "parses": PARSES,
            "renders": ["application/json", "text/html"]},
            separators=(",", ":")).encode())
        r = self.options("/api/v3/projects/%s/" % self.slug)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["name"], "Projects Instance")
        # DELETE is Lectern's (issue 31, item 4): the service's has none.
        self.assertEqual(r.header("Allow"),
                         "GET, PUT, PATCH, DELETE, HEAD, OPTIONS")
        # The framework answers before any object is looked up.
        self.assertEqual(self.options("/api/v3/projects/nope/versions/").json["name"],
                         "Versions List")
        r = self.options("/api/v3/projects/%s/versions/latest/builds/" % self.slug)
        self.assertEqual((r.status, r.json["name"]), (200, "Builds Create List"))
        self.assertEqual(r.header("Allow"), "GET, POST, HEAD, OPTIONS")

    def test_admin_routes_ask_what_a_read_asks(self):
        path = "/api/v3/projects/%s/redirects/" % self.slug
        self.assertDetail(self.options(path), 401, "Authentication credentials were not provided.")
        self.assertDetail(self.options(path, token=self.other), 403,
                          "You do not have permission to perform this action.")
        r = self.options(path, token=self.owner)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["name"], "Redirects List")
        self.assertDetail(self.options("/api/v3/projects/nope/redirects/", token=self.owner), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.options("/api/v3/notifications/"), 401,
                          "Authentication credentials were not provided.")
        self.assertEqual(self.options("/api/v3/notifications/", token=self.other).json["name"],
                         "Notifications For User List")

    def test_v2_and_unknown_paths(self):
        r = self.options("/api/v2/project/")
        self.assertStatus(r, 200)
        # v2 keeps the metadata's own order.
        self.assertEqual(r.body, json.dumps({
            "name": "Project List", "description": "List, filter, etc, Projects.",
            "renders": ["application/json"], "parses": PARSES}, separators=(",", ":")).encode())
        self.assertEqual(self.options("/api/v2/build/1/").json["renders"],
                         ["application/json", "text/plain"])
        self.assertDetail(self.options("/api/v3/nothing/"), 404, "Not found.")

    def test_search_serves_get_only(self):
        r = self.options("/api/v2/search/?q=x&project=%s&version=latest" % self.slug)
        self.assertDetail(r, 405, 'Method "OPTIONS" not allowed.')
        self.assertNotIn("OPTIONS", r.header("Allow"))


class CorsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.owner = cls.server.token("owner")
        cls.slug = cls.server.import_project(cls.owner, "Cors")["slug"]
        cls.docs_host = "%s.localhost:%d" % (cls.slug, cls.server.port)

    def preflight(self, path, host=None, origin=ORIGIN):
        headers = {"Access-Control-Request-Method": "GET",
                   "Access-Control-Request-Headers": "x-hoverxref-version"}
        if origin:
            headers["Origin"] = origin
        return self.server.request("OPTIONS", path, headers=headers, host=host)

    def assertPreflight(self, r):
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"")
        self.assertEqual(r.header("Content-Length"), "0")
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
        self.assertEqual(r.header("Access-Control-Allow-Methods"), "GET, OPTIONS, HEAD")
        self.assertEqual(r.header("Access-Control-Allow-Headers"), ALLOW_HEADERS)
        self.assertEqual(r.header("Access-Control-Max-Age"), "86400")
        self.assertIsNone(r.header("Access-Control-Allow-Credentials"))
        self.assertIn("Origin", r.header("Vary"))

    def test_preflights_on_search_and_embed(self):
        search = "/api/v2/search/?q=x&project=%s&version=latest" % self.slug
        for path, host in ((search, None), ("/_" + search, None), ("/_" + search, self.docs_host),
                           ("/api/v3/embed/?url=x", None), ("/_/api/v3/embed/?url=x", self.docs_host),
                           ("/api/v2/embed/", None), ("/_/api/v2/embed/", self.docs_host),
                           # Before any view: a path no route serves too.
                           ("/api/v2/docsearch/", None)):
            with self.subTest(path=path, host=host):
                self.assertPreflight(self.preflight(path, host=host))

    def test_no_cors_elsewhere(self):
        # A preflight on the rest of the API is an ordinary OPTIONS: the
        # metadata, with no CORS header, so the browser refuses the call.
        for path in ("/api/v3/projects/", "/api/v3/projects/%s/" % self.slug, "/api/v2/project/"):
            with self.subTest(path=path):
                r = self.preflight(path)
                self.assertStatus(r, 200)
                self.assertIn("name", r.json)
                self.assertIsNone(r.header("Access-Control-Allow-Origin"))
                self.assertIsNone(r.header("Access-Control-Allow-Methods"))
        # The service's paths end at a segment's end (issue 36, finding 9):
        # a longer name is another path.
        for path in ("/api/v2/searchx/", "/api/v2/embedded/", "/_/api/v3/embedding/?url=x"):
            with self.subTest(path=path):
                r = self.preflight(path)
                self.assertIsNone(r.header("Access-Control-Allow-Origin"))
                r = self.server.get(path, headers={"Origin": ORIGIN})
                self.assertIsNone(r.header("Access-Control-Allow-Origin"))
        # v3 search is not among the service's CORS paths.
        r = self.preflight("/api/v3/search/?q=x")
        self.assertStatus(r, 405)
        self.assertIsNone(r.header("Access-Control-Allow-Origin"))

    def test_simple_requests(self):
        path = "/api/v2/search/?q=x&project=%s&version=latest" % self.slug
        r = self.server.get(path, headers={"Origin": ORIGIN})
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
        self.assertIsNone(r.header("Access-Control-Allow-Methods"))
        self.assertIn("Origin", r.header("Vary"))
        # Errors too, and a preflight without an Origin gets no origin.
        r = self.server.get("/api/v2/search/?q=x&project=nope&version=latest",
                            headers={"Origin": ORIGIN})
        self.assertStatus(r, 404)
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
        r = self.preflight(path, origin=None)
        self.assertStatus(r, 200)
        self.assertIsNone(r.header("Access-Control-Allow-Origin"))
        # No browser, no CORS.
        self.assertIsNone(self.server.get(path).header("Access-Control-Allow-Origin"))


if __name__ == "__main__":
    main()
