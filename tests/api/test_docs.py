"""Docs serving on the docs domain (behaviour notes §7.1–7.2): a request
whose Host is "<slug>.localhost:<port>" is resolved per the project's
versioning scheme and served from <data>/published/<slug>/<version>/html/.

The published trees are written straight into the server's data directory
(the build pipeline is not needed to serve them) and versions are set up
with SQL, as in test_versions."""
import os

from lectern_test import ServerTestCase, Store, main

NOT_FOUND_MARK = b"<h1>Not Found</h1>"


class DocsTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        token = cls.server.token("alice")
        for name in ("Docs", "Flat", "Single", "Under"):
            cls.server.import_project(token, name)
        cls.store.execute("UPDATE projects SET versioning_scheme ="
                          " 'multiple_versions_without_translations' WHERE slug = 'flat'")
        cls.store.execute("UPDATE projects SET versioning_scheme ="
                          " 'single_version_without_translations' WHERE slug = 'single'")
        cls.store.execute("UPDATE projects SET slug = 'my_docs' WHERE slug = 'under'")
        for slug in ("docs", "flat", "single", "my_docs"):
            cls.store.version(slug, "latest", active=1)
        cls.store.version("docs", "v1.0", active=1)
        cls.store.version("docs", "old", active=0)
        cls.store.version("docs", "nohtml", active=1)

        site = {
            "index.html": b"<h1>home</h1>",
            "guide/index.html": b"<h1>guide</h1>",
            "page.html": b"<p>page</p>",
            "style.css": b"body{}",
            "app.js": b"1;",
            "data.json": b"{}",
            "img.png": b"\x89PNG",
            "photo.jpg": b"\xff\xd8",
            "logo.svg": b"<svg/>",
            "anim.gif": b"GIF89a",
            "favicon.ico": b"\x00\x00\x01\x00",
            "font.woff2": b"wOF2",
            "robots.txt": b"User-agent: *",
            "sitemap.xml": b"<urlset/>",
            "book.pdf": b"%PDF",
            "book.epub": b"PK",
            "site.zip": b"PK",
            "blob.bin": b"\x00\x01",
            "404.html": b"<h1>custom 404</h1>",
        }
        cls.store.publish("docs", "latest", site)
        cls.store.publish("docs", "v1.0", {"index.html": b"v1 home"})
        cls.store.publish("docs", "old", {"index.html": b"old home"})
        cls.store.publish("flat", "latest", {"index.html": b"flat home",
                                        "a/b.html": b"flat b",
                                        "a/index.html": b"flat a"})
        cls.store.publish("single", "latest", {"index.html": b"single home",
                                          "sub/index.html": b"single sub"})
        cls.store.publish("my_docs", "latest", {"index.html": b"underscore"})
        # Outside every published tree, and a symlink to it from inside.
        secret = os.path.join(cls.server.data, "published", "secret")
        with open(secret, "w") as f:
            f.write("SECRET")
        html = cls.store.published("docs", "latest")
        os.symlink(secret, os.path.join(html, "link.html"))
        os.symlink(os.path.dirname(secret), os.path.join(html, "up"))
        # A published version directory that is itself a symlink (the
        # pipeline's layout) is followed.
        outputs = os.path.join(cls.server.data, "outputs", "7", "html")
        os.makedirs(outputs)
        with open(os.path.join(outputs, "index.html"), "w") as f:
            f.write("via symlink")
        cls.store.version("flat", "v2", active=1)
        os.symlink("../../outputs/7",
                   os.path.join(cls.server.data, "published", "flat", "v2"))

    def host(self, slug="docs"):
        return "%s.localhost:%d" % (slug, self.server.port)

    def get(self, path, slug="docs", **kw):
        return self.server.get(path, host=self.host(slug), **kw)

    def assertRedirect(self, r, location):
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), location)
        self.assertEqual(r.header("X-RTD-Redirect"), "system")
        self.assertEqual(r.body, b"")

    def assertServed(self, r, body, content_type="text/html; charset=utf-8"):
        self.assertStatus(r, 200)
        self.assertEqual(r.body, body)
        self.assertEqual(r.header("Content-Type"), content_type)

    def assertPlain404(self, r):
        self.assertStatus(r, 404)
        self.assertIn(NOT_FOUND_MARK, r.body)
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")

    # Redirects.

    def test_root_redirects_to_default_version(self):
        self.assertRedirect(self.get("/"), "/en/latest/")
        self.assertRedirect(self.get("/?a=1&b=2"), "/en/latest/?a=1&b=2")

    def test_language_redirects_to_default_version(self):
        self.assertRedirect(self.get("/en/"), "/en/latest/")
        self.assertRedirect(self.get("/en"), "/en/latest/")

    def test_version_root_gets_slash(self):
        self.assertRedirect(self.get("/en/latest"), "/en/latest/")
        self.assertRedirect(self.get("/en/v1.0?x=y"), "/en/v1.0/?x=y")

    def test_directory_gets_slash(self):
        self.assertRedirect(self.get("/en/latest/guide"), "/en/latest/guide/")
        self.assertRedirect(self.get("/en/latest/guide?q=1"),
                            "/en/latest/guide/?q=1")

    def test_default_version_follows_project(self):
        self.store.execute("UPDATE projects SET default_version = 'v1.0'"
                           " WHERE slug = 'docs'")
        try:
            self.assertRedirect(self.get("/"), "/en/v1.0/")
            self.assertRedirect(self.get("/en/"), "/en/v1.0/")
        finally:
            self.store.execute("UPDATE projects SET default_version = 'latest'"
                               " WHERE slug = 'docs'")

    # Files.

    def test_index_rules(self):
        self.assertServed(self.get("/en/latest/"), b"<h1>home</h1>")
        self.assertServed(self.get("/en/latest/index.html"), b"<h1>home</h1>")
        self.assertServed(self.get("/en/latest/guide/"), b"<h1>guide</h1>")
        self.assertServed(self.get("/en/latest/page.html"), b"<p>page</p>")
        self.assertServed(self.get("/en/v1.0/"), b"v1 home")

    def test_language_case_insensitive(self):
        self.assertServed(self.get("/EN/latest/"), b"<h1>home</h1>")

    def test_content_types(self):
        expected = {
            "style.css": "text/css",
            "app.js": "application/javascript",
            "data.json": "application/json",
            "img.png": "image/png",
            "photo.jpg": "image/jpeg",
            "logo.svg": "image/svg+xml",
            "anim.gif": "image/gif",
            "favicon.ico": "image/x-icon",
            "font.woff2": "font/woff2",
            "robots.txt": "text/plain; charset=utf-8",
            "sitemap.xml": "application/xml",
            "book.pdf": "application/pdf",
            "book.epub": "application/epub+zip",
            "site.zip": "application/zip",
            "blob.bin": "application/octet-stream",
        }
        for name, ctype in expected.items():
            r = self.get("/en/latest/" + name)
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Content-Type"), ctype, name)
            with open(os.path.join(self.store.published("docs", "latest"), name),
                      "rb") as f:
                self.assertEqual(r.body, f.read(), name)

    def test_etag_and_not_modified(self):
        path = os.path.join(self.store.published("docs", "latest"), "page.html")
        os.utime(path, (1700000000, 1700000000))
        r = self.get("/en/latest/page.html")
        self.assertStatus(r, 200)
        etag = r.header("ETag")
        self.assertEqual(etag, '"%x-%x"' % (1700000000, len(b"<p>page</p>")))
        self.assertEqual(r.header("Last-Modified"),
                         "Tue, 14 Nov 2023 22:13:20 GMT")
        self.assertEqual(r.header("Content-Length"), str(len(b"<p>page</p>")))
        for match in (etag, "W/" + etag, '"other", ' + etag, "*"):
            r = self.get("/en/latest/page.html",
                         headers={"If-None-Match": match})
            self.assertStatus(r, 304)
            self.assertEqual(r.body, b"")
            self.assertEqual(r.header("ETag"), etag)
        r = self.get("/en/latest/page.html",
                     headers={"If-None-Match": '"other"'})
        self.assertServed(r, b"<p>page</p>")

    def test_head(self):
        r = self.server.request("HEAD", "/en/latest/page.html",
                                host=self.host())
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"")
        self.assertEqual(r.header("Content-Length"), str(len(b"<p>page</p>")))
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")
        self.assertIsNotNone(r.header("ETag"))

    def test_other_methods_refused(self):
        r = self.server.post("/en/latest/", {}, host=self.host())
        self.assertStatus(r, 405)
        self.assertEqual(r.header("Allow"), "GET, HEAD")

    # Not found.

    def test_missing_file_serves_custom_404(self):
        r = self.get("/en/latest/nope.html")
        self.assertStatus(r, 404)
        self.assertEqual(r.body, b"<h1>custom 404</h1>")
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")

    def test_custom_404_falls_back_to_default_version(self):
        r = self.get("/en/v1.0/nope.html")
        self.assertStatus(r, 404)
        self.assertEqual(r.body, b"<h1>custom 404</h1>")

    def test_plain_404_without_custom_page(self):
        self.assertPlain404(self.get("/nope/", slug="flat"))
        self.assertPlain404(self.get("/latest/nope.html", slug="flat"))

    def test_inactive_and_unknown_versions(self):
        r = self.get("/en/old/")
        self.assertStatus(r, 404)
        self.assertNotEqual(r.body, b"old home")
        self.assertStatus(self.get("/en/nosuch/"), 404)
        self.assertStatus(self.get("/en/nosuch"), 404)
        # Active but never published.
        self.assertStatus(self.get("/en/nohtml/"), 404)

    def test_unknown_language(self):
        self.assertStatus(self.get("/fr/latest/"), 404)
        self.assertStatus(self.get("/fr/"), 404)

    def test_unknown_project(self):
        self.assertPlain404(self.get("/", slug="nosuch"))
        self.assertPlain404(self.get("/en/latest/", slug="nosuch"))

    # Traversal.

    def test_traversal_refused(self):
        for path in ("/en/latest/../../secret",
                     "/en/latest/../latest/index.html",
                     "/en/latest/./index.html",
                     "/en/latest/%2e%2e/%2e%2e/secret",
                     "/en/latest/%2E%2E/%2E%2E/secret",
                     "/en/latest/guide%2Findex.html",
                     "/en/latest/..%2f..%2fsecret",
                     "/en/latest/index.html%00.png",
                     "/en/latest/%5c..%5csecret",
                     "/en/latest/%zz",
                     "/en/latest/guide%0d%0aX-Evil:%201",
                     "/en/latest/guide%7f",
                     "/en/latest/link.html",
                     "/en/latest/up/secret",
                     "/en/../../published/secret"):
            r = self.get(path)
            self.assertStatus(r, 404)
            self.assertNotIn(b"SECRET", r.body, path)
            self.assertNotIn(b"<h1>home</h1>", r.body, path)

    # Other schemes and hosts.

    def test_without_translations(self):
        self.assertRedirect(self.get("/", slug="flat"), "/latest/")
        self.assertRedirect(self.get("/latest", slug="flat"), "/latest/")
        self.assertServed(self.get("/latest/", slug="flat"), b"flat home")
        self.assertServed(self.get("/latest/a/b.html", slug="flat"), b"flat b")
        self.assertRedirect(self.get("/latest/a", slug="flat"), "/latest/a/")
        self.assertServed(self.get("/latest/a/", slug="flat"), b"flat a")
        self.assertStatus(self.get("/en/latest/", slug="flat"), 404)

    def test_published_symlink_followed(self):
        self.assertServed(self.get("/v2/", slug="flat"), b"via symlink")

    def test_single_version(self):
        self.assertServed(self.get("/", slug="single"), b"single home")
        self.assertServed(self.get("/index.html", slug="single"),
                          b"single home")
        self.assertServed(self.get("/sub/", slug="single"), b"single sub")
        self.assertRedirect(self.get("/sub", slug="single"), "/sub/")
        self.assertStatus(self.get("/latest/", slug="single"), 404)

    def test_host_rules(self):
        self.assertServed(self.get("/en/latest/", slug="my-docs"),
                          b"underscore")
        self.assertServed(self.get("/en/latest/", slug="my_docs"),
                          b"underscore")
        r = self.server.get("/en/latest/",
                            host="DOCS.LocalHost:%d" % self.server.port)
        self.assertServed(r, b"<h1>home</h1>")

    def test_api_on_plain_host(self):
        r = self.server.get("/api/v3/projects/docs/")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["slug"], "docs")
        r = self.server.get("/api/v3/projects/docs/",
                            host="localhost:%d" % self.server.port)
        self.assertStatus(r, 200)
        # A docs host does not answer API paths.
        r = self.get("/api/v3/projects/docs/")
        self.assertStatus(r, 404)


if __name__ == "__main__":
    main()
