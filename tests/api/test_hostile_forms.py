"""Form bodies with many fields (issue 36, finding 1): a body of 50,000
distinct keys, under the body limit, took 11.6 s of a core on an anonymous
webhook delivery and 8.6 s on an authenticated PATCH (each field was placed
by a scan of the ones before it). Now a form of more than 1,000 fields
(Django's DATA_UPLOAD_MAX_NUMBER_FIELDS) is refused at field 1,001 with
Django's words, on every route that reads a form; 1,000 are still taken;
and a webhook for a forge that signs its deliveries reads no body before
its project, integration and signature hold."""
import json
import time
import urllib.parse

from lectern_test import ServerTestCase, main

FORM = "application/x-www-form-urlencoded"
TOO_MANY = {"detail": "The number of GET/POST parameters exceeded "
                      "settings.DATA_UPLOAD_MAX_NUMBER_FIELDS."}
# Far above the few milliseconds a refusal takes (even under ASan), far
# below the seconds the old parser took for 50,000 fields.
QUICK_SECONDS = 1.0
FIELDS = 50000


def form_of(n, prefix="k"):
    return "&".join("%s%d=v" % (prefix, i) for i in range(n)).encode()


def multipart_of(n, boundary="B0undary"):
    parts = "".join('--%s\r\nContent-Disposition: form-data; name="k%d"\r\n\r\nv\r\n'
                    % (boundary, i) for i in range(n))
    return (parts + "--%s--\r\n" % boundary).encode(), "multipart/form-data; boundary=" + boundary


class ManyFieldsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("alice")
        cls.slug = cls.server.import_project(cls.token, "Forms")["slug"]
        cls.server.import_project(cls.token, "Forms Child")
        p = "/api/v3/projects/%s/" % cls.slug
        ids = {}
        for kind, path, body in (
                ("redirect", "redirects/", {"from_url": "/a/", "to_url": "/b/", "type": "page"}),
                ("envvar", "environmentvariables/", {"name": "A", "value": "b"}),
                ("integration", "integrations/", {"integration_type": "github_webhook"}),
                ("generic", "integrations/", {"integration_type": "api_webhook"}),
                ("webhook", "webhooks/", {"url": "http://127.0.0.1:9/h",
                                          "events": ["build:triggered"]})):
            r = cls.server.post(p + path, body, token=cls.token)
            assert r.status == 201, r
            ids[kind] = r.json.get("pk", r.json.get("id"))
        cls.ids = ids
        # Every route that reads a request body, with objects that exist,
        # so each reaches its body (a missing object is a 404 first).
        cls.routes = [
            ("POST", "/api/v3/projects/"),
            ("PATCH", p), ("PUT", p),
            ("PATCH", p + "versions/latest/"), ("PUT", p + "versions/latest/"),
            ("POST", p + "subprojects/"),
            ("POST", p + "redirects/"),
            ("PUT", p + "redirects/%d/" % ids["redirect"]),
            ("PATCH", p + "redirects/%d/" % ids["redirect"]),
            ("POST", p + "environmentvariables/"),
            ("POST", p + "integrations/"),
            ("POST", p + "webhooks/"),
            ("PATCH", p + "webhooks/%d/" % ids["webhook"]),
            ("POST", "/api/v3/mirrors/"),
            ("POST", "/api/v2/webhook/generic/%s/" % cls.slug),
            ("POST", "/api/v2/webhook/%s/%d/" % (cls.slug, ids["generic"])),
        ]

    def send(self, method, path, raw, content_type=FORM, token=True, headers=None):
        hdrs = {"Content-Type": content_type}
        hdrs.update(headers or {})
        start = time.monotonic()
        r = self.server.request(method, path, raw=raw, headers=hdrs,
                                token=self.token if token else None)
        return r, time.monotonic() - start

    def test_every_form_route_refuses_many_fields_at_once(self):
        body = form_of(FIELDS)
        multipart, multipart_type = multipart_of(5000)
        for method, path in self.routes:
            for raw, ctype in ((body, FORM), (multipart, multipart_type)):
                with self.subTest(method=method, path=path, type=ctype):
                    r, took = self.send(method, path, raw, ctype)
                    self.assertEqual((r.status, r.json), (400, TOO_MANY))
                    self.assertLess(took, QUICK_SECONDS)
        # Nothing was changed by any of them.
        project = self.server.get("/api/v3/projects/%s/" % self.slug, token=self.token).json
        self.assertEqual(project["name"], "Forms")

    def test_the_limit_is_djangos(self):
        path = "/api/v3/projects/%s/" % self.slug
        fields = [("k%d" % i, "v") for i in range(999)] + [("homepage", "https://example.com/f")]
        r, _ = self.send("PATCH", path, urllib.parse.urlencode(fields).encode())
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(path, token=self.token).json["homepage"],
                         "https://example.com/f")
        r, _ = self.send("PATCH", path, urllib.parse.urlencode(fields + [("x", "y")]).encode())
        self.assertEqual((r.status, r.json), (400, TOO_MANY))
        # A key given twice is two fields, as Django counts them.
        r, _ = self.send("PATCH", path, b"&".join([b"tags=a"] * 1001))
        self.assertEqual((r.status, r.json), (400, TOO_MANY))
        # Deeply nested keys are placed without scans too.
        nested = "&".join("a%d.%s=v" % (i, ".".join("b" * 25)) for i in range(1000)).encode()
        r, took = self.send("PATCH", path, nested)
        self.assertStatus(r, 204)
        self.assertLess(took, QUICK_SECONDS)

    def test_anonymous_webhooks_read_no_body_first(self):
        body = form_of(FIELDS)
        secret_path = "/api/v2/webhook/github/%s/" % self.slug
        for path, status, detail in (
                ("/api/v2/webhook/github/no-such-project/", 404, "Project not found"),
                ("/api/v2/webhook/gitlab/%s/" % self.slug, 404,
                 "No Integration matches the given query."),
                (secret_path, 400, "Payload not valid, invalid or missing signature"),
                ("/api/v2/webhook/%s/%d/" % (self.slug, self.ids["integration"]), 400,
                 "Payload not valid, invalid or missing signature")):
            with self.subTest(path=path):
                r, took = self.send("POST", path, body, token=False,
                                    headers={"X-Hub-Signature-256": "sha256=" + "0" * 64})
                self.assertEqual((r.status, r.json), (status, {"detail": detail}))
                self.assertLess(took, QUICK_SECONDS)
        # The generic webhook's token may be a form field: its body is
        # read first, and a long one is refused as anywhere else.
        r, took = self.send("POST", "/api/v2/webhook/generic/%s/" % self.slug, body, token=False)
        self.assertEqual((r.status, r.json), (400, TOO_MANY))
        self.assertLess(took, QUICK_SECONDS)

    def test_json_bodies_with_many_keys_stay_fast(self):
        keys = {"k%d" % i: "v" for i in range(20000)}
        keys["homepage"] = "https://example.com/j"
        r, took = self.send("PATCH", "/api/v3/projects/%s/" % self.slug,
                            json.dumps(keys).encode(), "application/json")
        self.assertStatus(r, 204)
        self.assertLess(took, QUICK_SECONDS)

    def test_login_form_refuses_many_fields(self):
        api = "localhost:%d" % self.server.port
        _, cookie, csrf = self.server.login_form(api)
        raw = ("csrf_token=%s&token=%s&" % (csrf, self.token)).encode() + form_of(FIELDS)
        start = time.monotonic()
        r = self.server.request("POST", "/_/login/", host=api, raw=raw, headers={
            "Content-Type": FORM, "Cookie": cookie, "Origin": "http://" + api})
        self.assertLess(time.monotonic() - start, QUICK_SECONDS)
        self.assertStatus(r, 400)
        self.assertIsNone(r.header("Set-Cookie"))
        self.assertIn(b"Too many fields", r.body)


if __name__ == "__main__":
    main()
