"""Form bodies on every write (issue 32, item 4): the service's framework
parses application/x-www-form-urlencoded and multipart/form-data as well as
JSON, with the same validation and error bodies, read as DRF reads HTML form
input: a field is its key's last value, a list field every value (or
key[0], key[1], ...), a nested object its "key.sub" fields, "" on a field
that is not required is null or absent, and a service boolean a create or
full update leaves out is false (an unchecked box). docs/api.md, "Form
bodies"."""
import json
import urllib.parse

from lectern_test import ServerTestCase, Store, main

FORM = "application/x-www-form-urlencoded"


def multipart(fields, boundary="XyZ"):
    """A multipart/form-data body of (name, value[, filename]) fields."""
    out = b""
    for field in fields:
        name, value = field[0], field[1]
        disposition = 'form-data; name="%s"' % name
        if len(field) > 2:
            disposition += '; filename="%s"' % field[2]
        out += b"--" + boundary.encode() + b"\r\nContent-Disposition: " + disposition.encode()
        out += b"\r\n\r\n" + (value.encode() if isinstance(value, str) else value) + b"\r\n"
    return out + b"--" + boundary.encode() + b"--\r\n", "multipart/form-data; boundary=" + boundary


class FormsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("alice")
        cls.store = Store(cls.server)
        cls.server.import_project(cls.token, "Base")
        cls.server.import_project(cls.token, "Child")

    def form(self, method, path, fields, content_type=FORM):
        raw = fields if isinstance(fields, bytes) else urllib.parse.urlencode(fields).encode()
        return self.server.request(method, path, raw=raw, token=self.token,
                                   headers={"Content-Type": content_type})

    def json_body(self, method, path, body):
        return self.server.request(method, path, body=body, token=self.token)

    def project(self, slug):
        return self.server.get("/api/v3/projects/%s/" % slug, token=self.token).json

    def test_import_like_json(self):
        r = self.form("POST", "/api/v3/projects/", [
            ("name", "Form Import"), ("repository.url", "https://github.com/x/form-import"),
            ("repository.type", "git"), ("tags", "b"), ("tags", "a"), ("homepage", ""),
            ("language", "de")])
        self.assertStatus(r, 201)
        self.assertSortedKeys(r.body)
        p = r.json
        self.assertEqual((p["slug"], p["repository"], p["tags"], p["homepage"], p["language"]["code"]),
                         ("form-import", {"type": "git", "url": "https://github.com/x/form-import"},
                          ["a", "b"], None, "de"))

    def test_validation_and_error_bodies(self):
        url = "/api/v3/projects/"
        cases = [
            # The same field errors as JSON, in the same bodies.
            ([("name", ""), ("repository.url", "https://github.com/x/y")],
             {"name": ["This field may not be blank."]}),
            ([("name", "Ftp"), ("repository.url", "ftp://x/y")],
             {"repository": {"url": ["Invalid scheme for URL"]}}),
            ([("name", "Base"), ("repository.url", "https://github.com/x/b")],
             {"name": ['Project with slug "base" already exists.']}),
            ([("name", "a\nb"), ("repository.url", "https://github.com/x/y")],
             {"name": ["Line breaks and other control characters are not allowed in this field."]}),
            # A form has no nested object to leave out: DRF reads an empty
            # one, whose own fields are then required.
            ([("name", "Lonely")], {"repository": {"url": ["This field is required."]}}),
        ]
        for fields, body in cases:
            with self.subTest(fields=fields):
                r = self.form("POST", url, fields)
                self.assertEqual((r.status, r.json), (400, body))
                self.assertSortedKeys(r.body)
        r = self.form("POST", url, b"name=a%00b&repository.url=x")
        self.assertEqual((r.status, r.json), (400, {"name": ["Null characters are not allowed."]}))
        r = self.form("POST", url, b"name=a%FFb")
        self.assertDetail(r, 400, "Malformed request: the body is not valid UTF-8.")
        # JSON's answers to the same mistakes, for comparison.
        r = self.json_body("POST", url, {"name": "Ftp", "repository": {"url": "ftp://x/y"}})
        self.assertEqual(r.json, cases[1][1])
        # Other types are still refused, the type shown in valid UTF-8.
        r = self.form("POST", url, b"name=x", "text/plain")
        self.assertDetail(r, 415, 'Unsupported media type "text/plain" in request.')
        r = self.form("POST", url, b"name=x", "text/pl\xe4in")
        self.assertDetail(r, 415, 'Unsupported media type "text/pl" in request.')

    def test_last_value_lists_and_partial_updates(self):
        self.server.import_project(self.token, "Patched")
        r = self.form("PATCH", "/api/v3/projects/patched/",
                      [("name", "First"), ("name", "Second"), ("tags[1]", "q"), ("tags[0]", "p"),
                       ("tags[1]", "r"), ("analytics_disabled", "on")])
        self.assertStatus(r, 204)
        p = self.project("patched")
        self.assertEqual((p["name"], p["tags"]), ("Second", ["p", "r"]))
        # A partial update leaves out what it does not name: the boolean
        # stays as it was.
        self.assertStatus(self.form("PATCH", "/api/v3/projects/patched/", [("homepage", "")]), 204)
        rows = self.store.rows("SELECT analytics_disabled FROM projects WHERE slug = 'patched'")
        self.assertEqual(rows, [(1,)])
        # A full update (PUT) without it: an unchecked box, false.
        r = self.form("PUT", "/api/v3/projects/patched/",
                      [("name", "Put"), ("repository.url", "https://github.com/x/put")])
        self.assertStatus(r, 204)
        rows = self.store.rows("SELECT analytics_disabled FROM projects WHERE slug = 'patched'")
        self.assertEqual(rows, [(0,)])
        r = self.form("PATCH", "/api/v3/projects/patched/", [("analytics_disabled", "maybe")])
        self.assertEqual((r.status, r.json), (400, {"analytics_disabled": ["Must be a valid boolean."]}))

    def test_versions_builds_subprojects(self):
        r = self.form("PATCH", "/api/v3/projects/base/versions/latest/", [("hidden", "true")])
        self.assertStatus(r, 204)
        v = self.server.get("/api/v3/projects/base/versions/latest/", token=self.token).json
        self.assertTrue(v["hidden"])
        r = self.form("PUT", "/api/v3/projects/base/versions/latest/", [("active", "true")])
        self.assertStatus(r, 204)
        v = self.server.get("/api/v3/projects/base/versions/latest/", token=self.token).json
        self.assertEqual((v["active"], v["hidden"]), (True, False))
        r = self.form("POST", "/api/v3/projects/base/versions/latest/builds/", [("fresh", "1")])
        self.assertStatus(r, 202)
        r = self.form("POST", "/api/v3/projects/base/subprojects/", [("child", "child"), ("alias", "kid")])
        self.assertStatus(r, 201)
        self.assertEqual(r.json["alias"], "kid")
        r = self.form("POST", "/api/v3/projects/base/subprojects/", [("alias", "x")])
        self.assertEqual((r.status, r.json), (400, {"child": ["This field is required."]}))

    def test_redirects(self):
        url = "/api/v3/projects/base/redirects/"
        r = self.form("POST", url, [("type", "page"), ("from_url", "/a"), ("to_url", "/b"),
                                    ("http_status", "301"), ("position", "0")])
        self.assertStatus(r, 201)
        # The service's form: a boolean left out of a create is false.
        self.assertEqual((r.json["enabled"], r.json["force"], r.json["http_status"]), (False, False, 301))
        pk = r.json["pk"]
        r = self.form("PATCH", "%s%d/" % (url, pk), [("enabled", "on"), ("description", "d")])
        self.assertStatus(r, 200)
        self.assertEqual((r.json["enabled"], r.json["description"]), (True, "d"))
        r = self.form("POST", url, [("type", "page"), ("from_url", "/c"), ("to_url", "/d"),
                                    ("http_status", "303")])
        self.assertEqual((r.status, r.json), (400, {"http_status": ['"303" is not a valid choice.']}))

    def test_multipart(self):
        url = "/api/v3/projects/base/environmentvariables/"
        body, ct = multipart([("name", "KEY"), ("value", "line one\nline two"), ("public", "true")])
        r = self.form("POST", url, body, ct)
        self.assertStatus(r, 201)
        self.assertEqual((r.json["name"], r.json["public"]), ("KEY", True))
        self.assertNotIn("value", r.json)
        # A create without the checkbox: not public.
        body, ct = multipart([("name", "OTHER"), ("value", "v")])
        self.assertFalse(self.form("POST", url, body, ct).json["public"])
        # An uploaded file is no string.
        body, ct = multipart([("name", "F", "f.txt"), ("value", "v")])
        r = self.form("POST", url, body, ct)
        self.assertEqual((r.status, r.json), (400, {"name": ["Not a valid string."]}))
        body, ct = multipart([("name", "K"), ("value", "")])
        r = self.form("POST", url, body, ct)
        self.assertEqual((r.status, r.json), (400, {"value": ["This field may not be blank."]}))
        r = self.form("POST", url, body, "multipart/form-data")
        self.assertDetail(r, 400, "Multipart form parse error - Invalid boundary in multipart: None")

    def test_generic_webhook_form(self):
        # Scripts post the generic webhook's token and branches as a form
        # (the service's view reads request.data, which forms fill).
        integration = self.json_body("POST", "/api/v3/projects/base/integrations/",
                                     {"integration_type": "api_webhook"}).json
        url = urllib.parse.urlsplit(integration["url"]).path
        r = self.server.request("POST", url, raw=urllib.parse.urlencode(
            {"token": integration["secret"], "branches": "nope"}).encode(),
            headers={"Content-Type": FORM})
        self.assertEqual((r.status, r.json),
                         (200, {"build_triggered": False, "project": "base", "versions": []}))
        r = self.server.request("POST", url, raw=b"token=wrong&branches=nope",
                                headers={"Content-Type": FORM})
        self.assertDetail(r, 400, "Payload not valid")

    def test_notifications_and_webhooks(self):
        r = self.form("POST", "/api/v3/projects/base/webhooks/",
                      [("url", "https://hooks.example/x"), ("events", "build:passed"),
                       ("events", "build:failed")])
        self.assertStatus(r, 201)
        self.assertEqual(sorted(r.json["events"]), ["build:failed", "build:passed"])
        self.assertIn("secret", r.json)
        r = self.form("PATCH", "/api/v3/projects/base/webhooks/%d/" % r.json["id"],
                      [("secret", "x")])
        self.assertEqual(r.status, 400)
        self.assertIn("secret", r.json)


if __name__ == "__main__":
    main()
