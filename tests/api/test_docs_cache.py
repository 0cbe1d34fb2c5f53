"""The docs host's per-thread cache of served pages (docs/serving.md,
"Performance"): a page asked for again at the same data version is sent
without resolving it again. These tests change what the cache must not
hide (the file on disk, the published link, database rows written by
another process, privacy, forced redirects) between repeats of one request,
and check every repeat answers what a fresh resolution would.

The server runs one thread, so every repeat meets the entry the first
request left (with several threads a repeat may land on a thread that has
not seen the page yet, and the test would prove nothing)."""
import os

from lectern_test import ServerTestCase, Store, main

NOT_FOUND_MARK = b"<h1>Not Found</h1>"
# Requests sent to warm the cache before a change.
WARM = 3


class DocsCacheTest(ServerTestCase):

    SERVER_ARGS = ("--threads", "1")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")
        cls.server.import_project(cls.alice, "Cached")
        for slug in ("latest", "secret", "linked"):
            cls.store.version("cached", slug, privacy="private"
                              if slug == "secret" else "public")
        cls.publish("latest", {"index.html": b"home",
                               "page.html": b"page one"})
        cls.publish("secret", {"index.html": b"top secret"})
        # "linked" is published the pipeline's way: a symlink to an output.
        for n in ("1", "2"):
            out = cls.outputs(n)
            os.makedirs(out)
            with open(os.path.join(out, "index.html"), "wb") as f:
                f.write(b"output " + n.encode())
        os.symlink("../../outputs/1", cls.published("linked"))

    @classmethod
    def published(cls, version):
        return os.path.join(cls.server.data, "published", "cached", version)

    @classmethod
    def outputs(cls, n):
        return os.path.join(cls.server.data, "outputs", n, "html")

    @classmethod
    def publish(cls, version, files):
        cls.store.publish("cached", version, files)

    @staticmethod
    def write(path, content):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)

    def html(self, name="", version="latest"):
        return os.path.join(self.published(version), "html", name)

    def get(self, path, **kw):
        return self.server.get(
            path, host="cached.localhost:%d" % self.server.port, **kw)

    def head(self, path, **kw):
        return self.server.request(
            "HEAD", path, host="cached.localhost:%d" % self.server.port,
            **kw)

    def assertServed(self, path, body, **kw):
        for _ in range(WARM):
            r = self.get(path, **kw)
            self.assertStatus(r, 200)
            self.assertEqual(r.body, body)
            self.assertEqual(r.header("Content-Type"),
                             "text/html; charset=utf-8")
        return r

    def assertPlain404(self, r):
        self.assertStatus(r, 404)
        self.assertIn(NOT_FOUND_MARK, r.body)

    def test_rewritten_file_is_seen(self):
        self.write(self.html("rw.html"), b"first")
        self.assertServed("/en/latest/rw.html", b"first")
        # Same size, then another size: the file is read afresh each time.
        self.write(self.html("rw.html"), b"again")
        self.assertServed("/en/latest/rw.html", b"again")
        self.write(self.html("rw.html"), b"a longer body")
        self.assertServed("/en/latest/rw.html", b"a longer body")

    def test_deleted_file_is_404(self):
        self.write(self.html("gone.html"), b"here")
        self.assertServed("/en/latest/gone.html", b"here")
        os.unlink(self.html("gone.html"))
        for _ in range(WARM):
            self.assertPlain404(self.get("/en/latest/gone.html"))

    def test_file_replaced_by_directory_redirects(self):
        self.write(self.html("moved"), b"a file")
        # Asked for without an extension: a file, served as it is.
        for _ in range(WARM):
            self.assertEqual(self.get("/en/latest/moved").body, b"a file")
        os.unlink(self.html("moved"))
        self.write(self.html("moved/index.html"), b"a directory")
        r = self.get("/en/latest/moved")
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), "/en/latest/moved/")

    def test_database_change_by_another_process(self):
        self.write(self.html("db.html"), b"db page")
        self.assertServed("/en/latest/db.html", b"db page")
        self.store.execute("UPDATE versions SET active = 0 WHERE slug ="
                           " 'latest' AND project_id = (SELECT id FROM"
                           " projects WHERE slug = 'cached')")
        try:
            for _ in range(WARM):
                self.assertPlain404(self.get("/en/latest/db.html"))
        finally:
            self.store.execute("UPDATE versions SET active = 1 WHERE slug ="
                               " 'latest'")
        self.assertServed("/en/latest/db.html", b"db page")

    def test_published_link_swapped_without_database_change(self):
        self.assertServed("/en/linked/", b"output 1")
        # What a build does: a new link renamed over the old one (the
        # version's row is written afterwards; here it is not at all).
        tmp = self.published(".linked.tmp")
        os.symlink("../../outputs/2", tmp)
        os.rename(tmp, self.published("linked"))
        try:
            self.assertServed("/en/linked/", b"output 2")
        finally:
            os.unlink(self.published("linked"))
            os.symlink("../../outputs/1", self.published("linked"))
        self.assertServed("/en/linked/", b"output 1")

    def test_private_version_not_shared_between_users(self):
        self.assertServed("/en/secret/", b"top secret", token=self.alice)
        for token in (None, self.bob, "not-a-token"):
            r = self.get("/en/secret/", token=token)
            self.assertPlain404(r)
            self.assertNotIn(b"top secret", r.body)
        r = self.assertServed("/en/secret/", b"top secret", token=self.alice)
        self.assertEqual(r.header("Cache-Control"), "private")

    def test_public_page_after_private_request(self):
        # A public page first asked for with a token is cached without
        # "Cache-Control: private" and is served to anyone.
        self.assertServed("/en/latest/page.html", b"page one",
                          token=self.alice)
        r = self.assertServed("/en/latest/page.html", b"page one")
        self.assertIsNone(r.header("Cache-Control"))

    def test_forced_redirect_added(self):
        self.write(self.html("forced.html"), b"forced")
        self.assertServed("/en/latest/forced.html", b"forced")
        r = self.server.post("/api/v3/projects/cached/redirects/", {
            "type": "page", "from_url": "/forced.html",
            "to_url": "/page.html", "force": True}, token=self.alice)
        self.assertStatus(r, 201)
        pk = r.json["pk"]
        for _ in range(WARM):
            r = self.get("/en/latest/forced.html")
            self.assertStatus(r, 302)
            self.assertEqual(r.header("X-RTD-Redirect"), "user")
            self.assertEqual(
                r.header("Location"),
                "http://cached.localhost:%d/en/latest/page.html"
                % self.server.port)
        self.assertStatus(self.server.delete(
            "/api/v3/projects/cached/redirects/%d/" % pk, token=self.alice),
            204)
        self.assertServed("/en/latest/forced.html", b"forced")

    def test_validators_range_and_head_on_a_repeat(self):
        r = self.assertServed("/en/latest/page.html", b"page one")
        etag = r.header("ETag")
        self.assertRegex(etag, r'^"[0-9a-f]+-8"$')
        self.assertTrue(r.header("Last-Modified").endswith(" GMT"))
        r = self.get("/en/latest/page.html",
                     headers={"If-None-Match": etag})
        self.assertStatus(r, 304)
        self.assertEqual(r.body, b"")
        r = self.get("/en/latest/page.html", headers={"Range": "bytes=5-7"})
        self.assertStatus(r, 206)
        self.assertEqual(r.body, b"one")
        self.assertEqual(r.header("Content-Range"), "bytes 5-7/8")
        r = self.head("/en/latest/page.html")
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"")
        self.assertEqual(r.header("Content-Length"), "8")
        self.assertEqual(r.header("ETag"), etag)

    def test_query_string_is_part_of_the_request(self):
        self.assertServed("/en/latest/page.html?a=1", b"page one")
        self.assertServed("/en/latest/page.html?a=2", b"page one")

    def test_symlinks_inside_served_outside_refused(self):
        secret = os.path.join(self.server.data, "published", "outside.html")
        self.write(secret, b"SECRET")
        html = self.html()
        links = {
            "rel-in.html": "page.html",  # relative, inside: served
            "abs-in.html": self.html("page.html"),  # absolute, inside
            "rel-out.html": "../../../outside.html",  # out of the tree
            "abs-out.html": secret,
        }
        for name, target in links.items():
            os.symlink(target, os.path.join(html, name))
            self.addCleanup(os.unlink, os.path.join(html, name))
        self.assertServed("/en/latest/rel-in.html", b"page one")
        self.assertServed("/en/latest/abs-in.html", b"page one")
        for name in ("rel-out.html", "abs-out.html"):
            for _ in range(WARM):
                r = self.get("/en/latest/" + name)
                self.assertPlain404(r)
                self.assertNotIn(b"SECRET", r.body)
        # A link swapped from inside to outside after being served.
        os.unlink(os.path.join(html, "rel-in.html"))
        os.symlink("../../../outside.html", os.path.join(html, "rel-in.html"))
        r = self.get("/en/latest/rel-in.html")
        self.assertPlain404(r)
        self.assertNotIn(b"SECRET", r.body)


if __name__ == "__main__":
    main()
