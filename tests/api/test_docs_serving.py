"""Docs serving beyond one project's own pages (behaviour notes §7.1–7.4,
docs/serving.md): translations and old language codes, subprojects
(aliases with '/', a subproject on its own subdomain), /page/, "//"
collapsing, user redirects of every type and rule, private versions
(token, session cookie, login), downloads, Range and gzip.

Published trees are planted in the data directory and rows the API cannot
make (translations, subproject aliases with '/', private versions) are
written with SQL, as test_docs.py does."""
import gzip
import hashlib
import hmac
import os
import re
import stat
import time
import urllib.parse

from lectern_test import ServerTestCase, Store, main

T0 = 1704164645 * 1000000
NOT_FOUND_MARK = b"<h1>Not Found</h1>"
BIG_HTML = b"<html><body>" + b"<p>lectern serves docs</p>\n" * 400 + \
    b"</body></html>"
RANGE_BODY = bytes(range(256)) * 4  # 1024 bytes, binary


class DocsServingTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.alice = cls.server.token("alice")
        cls.bob = cls.server.token("bob")
        for name in ("Main", "Main ES", "Main PT", "Child", "Guides",
                     "Extra", "Flat", "Single", "Redir", "Priv"):
            cls.server.import_project(cls.alice, name)
        sql = cls.store.execute
        sql("UPDATE projects SET language = 'es', main_language_project_id ="
            " (SELECT id FROM projects WHERE slug = 'main')"
            " WHERE slug = 'main-es'")
        sql("UPDATE projects SET language = 'pt-br', main_language_project_id"
            " = (SELECT id FROM projects WHERE slug = 'main')"
            " WHERE slug = 'main-pt'")
        sql("UPDATE projects SET versioning_scheme ="
            " 'single_version_without_translations'"
            " WHERE slug IN ('extra', 'single')")
        sql("UPDATE projects SET versioning_scheme ="
            " 'multiple_versions_without_translations' WHERE slug = 'flat'")
        for child, alias in (("child", "child"), ("guides", "guides"),
                             ("extra", "guides/extra")):
            sql("INSERT INTO subprojects (parent_id, child_id, alias, created)"
                " VALUES ((SELECT id FROM projects WHERE slug = 'main'),"
                " (SELECT id FROM projects WHERE slug = ?), ?, ?)",
                (child, alias, T0))
        for slug in ("main", "main-es", "main-pt", "child", "guides", "extra",
                     "flat", "single", "redir", "priv"):
            cls.store.version(slug, "latest")
        cls.store.version("main", "secret", privacy="private")
        cls.store.execute("UPDATE projects SET privacy_level = 'private'"
                          " WHERE slug = 'priv'")

        cls.store.publish("main", "latest", {
            "index.html": b"main home", "page.html": b"main page",
            "big.html": BIG_HTML, "small.html": b"<p>small</p>",
            "big.css": BIG_HTML, "big.png": BIG_HTML, "data.bin": RANGE_BODY,
        })
        cls.store.publish("main", "secret", {"index.html": b"top secret",
                                       "404.html": b"secret 404"})
        cls.store.publish("main-es", "latest", {"index.html": b"es home"})
        cls.store.publish("main-pt", "latest", {"index.html": b"pt home",
                                          "x.html": b"pt x"})
        cls.store.publish("child", "latest", {"index.html": b"child home",
                                        "page.html": b"child page"})
        cls.store.publish("guides", "latest", {"index.html": b"guides home"})
        cls.store.publish("extra", "latest", {"index.html": b"extra home",
                                        "in.html": b"extra in"})
        cls.store.publish("flat", "latest", {"index.html": b"flat home"})
        cls.store.publish("single", "latest", {"index.html": b"single home"})
        cls.store.publish("priv", "latest", {"index.html": b"private project"})
        cls.store.publish("redir", "latest", {
            "index.html": b"redir home", "new.html": b"new page",
            "exists.html": b"exists", "guide/index.html": b"guide",
            "foo.html": b"foo", "bar/index.html": b"bar",
        })
        cls.store.publish("main", "latest", {"main.pdf": b"%PDF-1.7 main"},
                    kind="pdf")
        cls.store.publish("main", "latest", {"main.zip": b"PK zip"},
                    kind="htmlzip")
        cls.store.publish("main", "secret", {"main.epub": b"PK secret epub"},
                    kind="epub")
        cls.store.publish("main-es", "latest", {"main-es.epub": b"PK es epub"},
                    kind="epub")

    def host(self, slug="main"):
        return "%s.localhost:%d" % (slug, self.server.port)

    def origin(self, slug="main"):
        return "http://" + self.host(slug)

    def get(self, path, slug="main", **kw):
        return self.server.get(path, host=self.host(slug), **kw)

    def assertSystem(self, r, location):
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), location)
        self.assertEqual(r.header("X-RTD-Redirect"), "system")
        self.assertEqual(r.body, b"")

    def assertServed(self, r, body):
        self.assertStatus(r, 200)
        self.assertEqual(r.body, body)

    def assertPlain404(self, r):
        self.assertStatus(r, 404)
        self.assertIn(NOT_FOUND_MARK, r.body)

    # Translations and languages.

    def test_translation_served_under_its_language(self):
        self.assertServed(self.get("/es/latest/"), b"es home")
        self.assertServed(self.get("/en/latest/"), b"main home")
        self.assertSystem(self.get("/es/"), "/es/latest/")
        self.assertSystem(self.get("/es"), "/es/latest/")
        self.assertSystem(self.get("/es/latest"), "/es/latest/")
        self.assertStatus(self.get("/de/latest/"), 404)
        self.assertStatus(self.get("/es/nosuch/"), 404)

    def test_old_language_code_redirects(self):
        self.assertSystem(self.get("/pt_BR/latest/x.html?a=1"),
                          "/pt-br/latest/x.html?a=1")
        self.assertSystem(self.get("/pt_br/"), "/pt-br/")
        self.assertSystem(self.get("/PT_BR"), "/pt-br")
        self.assertServed(self.get("/pt-br/latest/x.html"), b"pt x")
        self.assertServed(self.get("/PT-BR/latest/x.html"), b"pt x")
        # Not a language at all.
        self.assertStatus(self.get("/xx_YY/latest/"), 404)

    # Subprojects.

    def test_subproject_paths(self):
        self.assertSystem(self.get("/projects/child"), "/projects/child/")
        self.assertSystem(self.get("/projects/child/"),
                          "/projects/child/en/latest/")
        self.assertSystem(self.get("/projects/child/en/"),
                          "/projects/child/en/latest/")
        self.assertSystem(self.get("/projects/child/en/latest"),
                          "/projects/child/en/latest/")
        self.assertServed(self.get("/projects/child/en/latest/"),
                          b"child home")
        self.assertServed(self.get("/projects/child/en/latest/page.html"),
                          b"child page")
        self.assertStatus(self.get("/projects/child/en/latest/nope.html"),
                          404)
        self.assertStatus(self.get("/projects/nosuch/en/latest/"), 404)

    def test_longest_alias_wins(self):
        # "guides/extra" (single version) beats "guides".
        self.assertServed(self.get("/projects/guides/extra/"), b"extra home")
        self.assertServed(self.get("/projects/guides/extra/in.html"),
                          b"extra in")
        self.assertServed(self.get("/projects/guides/en/latest/"),
                          b"guides home")
        self.assertSystem(self.get("/projects/guides/extra"),
                          "/projects/guides/extra/")
        # No nesting: a subproject's /projects/ is an ordinary path.
        self.assertStatus(self.get("/projects/child/projects/child/"), 404)

    def test_subproject_on_own_subdomain_goes_to_parent(self):
        r = self.get("/en/latest/page.html?x=1", slug="child")
        self.assertSystem(r, self.origin("main") +
                          "/projects/child/en/latest/page.html?x=1")
        r = self.get("/", slug="extra")
        self.assertSystem(r, self.origin("main") + "/projects/guides/extra/")

    # /page/ and "//".

    def test_page_redirects_to_default_version(self):
        self.assertSystem(self.get("/page/page.html"), "/en/latest/page.html")
        self.assertSystem(self.get("/page/a/b.html?q=1"),
                          "/en/latest/a/b.html?q=1")
        self.assertSystem(self.get("/projects/child/page/page.html"),
                          "/projects/child/en/latest/page.html")
        self.assertSystem(self.get("/projects/guides/extra/page/in.html"),
                          "/projects/guides/extra/in.html")
        self.assertSystem(self.get("/page/x.html", slug="flat"),
                          "/latest/x.html")
        self.assertSystem(self.get("/page/x.html", slug="single"), "/x.html")

    def test_double_slashes_collapsed(self):
        self.assertSystem(self.get("/en//latest///page.html?q=1"),
                          "/en/latest/page.html?q=1")
        self.assertSystem(self.get("//en/latest/"), "/en/latest/")
        self.assertSystem(self.get("/projects//child/"), "/projects/child/")

    # User redirects.

    def redirect(self, body):
        r = self.server.post("/api/v3/projects/redir/redirects/", body,
                             token=self.alice)
        self.assertStatus(r, 201)
        pk = r.json["pk"]
        self.addCleanup(self.server.delete,
                        "/api/v3/projects/redir/redirects/%d/" % pk,
                        token=self.alice)
        return pk

    def assertUser(self, path, location, status=302, query=""):
        r = self.get(path + query, slug="redir")
        self.assertStatus(r, status)
        self.assertEqual(r.header("Location"), location)
        self.assertEqual(r.header("X-RTD-Redirect"), "user")
        self.assertEqual(r.body, b"")

    def test_page_redirect(self):
        self.redirect({"type": "page", "from_url": "/old.html",
                       "to_url": "/new.html"})
        self.assertUser("/en/latest/old.html",
                        self.origin("redir") + "/en/latest/new.html")
        # Following it serves the page.
        self.assertServed(self.get("/en/latest/new.html", slug="redir"),
                          b"new page")
        # page matches the filename in any version, not the full path.
        self.assertPlain404(self.get("/old.html", slug="redir"))

    def test_301_and_302(self):
        self.redirect({"type": "page", "from_url": "/perm.html",
                       "to_url": "/new.html", "http_status": 301})
        self.redirect({"type": "page", "from_url": "/temp.html",
                       "to_url": "/new.html", "http_status": 302})
        self.assertUser("/en/latest/perm.html",
                        self.origin("redir") + "/en/latest/new.html", 301)
        self.assertUser("/en/latest/temp.html",
                        self.origin("redir") + "/en/latest/new.html", 302)

    def test_page_wildcard_splat(self):
        self.redirect({"type": "page", "from_url": "/api/*",
                       "to_url": "/reference/:splat"})
        self.assertUser("/en/latest/api/mod/fn.html",
                        self.origin("redir") +
                        "/en/latest/reference/mod/fn.html")

    def test_exact_redirect_and_wildcard(self):
        self.redirect({"type": "exact", "from_url": "/en/latest/gone.html",
                       "to_url": "https://example.com/gone"})
        self.redirect({"type": "exact", "from_url": "/legacy/*",
                       "to_url": "/en/latest/:splat"})
        self.assertUser("/en/latest/gone.html", "https://example.com/gone")
        self.assertUser("/legacy/foo.html",
                        self.origin("redir") + "/en/latest/foo.html")

    def test_exact_legacy_rest(self):
        self.redirect({"type": "exact", "from_url": "/en/2.0/$rest",
                       "to_url": "/en/latest/"})
        self.assertUser("/en/2.0/guide/x.html",
                        self.origin("redir") + "/en/latest/guide/x.html")

    def test_prefix(self):
        self.redirect({"type": "prefix", "from_url": "/dev/"})
        self.assertUser("/dev/foo.html",
                        self.origin("redir") + "/en/latest/foo.html")
        self.assertPlain404(self.get("/developer/foo.html", slug="redir"))

    def test_clean_url_to_html_every_spelling(self):
        for kind in ("clean_url_to_html", "docgen_html", "sphinx_html"):
            with self.subTest(kind=kind):
                pk = self.redirect({"type": kind})
                self.assertUser("/en/latest/foo/",
                                self.origin("redir") + "/en/latest/foo.html")
                self.assertUser("/en/latest/x/index.html",
                                self.origin("redir") + "/en/latest/x.html")
                # An existing page is served (the redirect is not forced).
                self.assertServed(self.get("/en/latest/bar/", slug="redir"),
                                  b"bar")
                self.server.delete("/api/v3/projects/redir/redirects/%d/"
                                   % pk, token=self.alice)

    def test_html_to_clean_url_every_spelling(self):
        for kind in ("html_to_clean_url", "docgen_htmldir", "sphinx_htmldir"):
            with self.subTest(kind=kind):
                pk = self.redirect({"type": kind})
                self.assertUser("/en/latest/bar.html",
                                self.origin("redir") + "/en/latest/bar/")
                self.assertPlain404(self.get("/en/latest/x/index.html",
                                             slug="redir"))
                self.server.delete("/api/v3/projects/redir/redirects/%d/"
                                   % pk, token=self.alice)

    def test_first_by_position(self):
        self.redirect({"type": "page", "from_url": "/p.html",
                       "to_url": "/second.html", "position": 0})
        self.redirect({"type": "page", "from_url": "/p.html",
                       "to_url": "/first.html", "position": 0})
        self.assertUser("/en/latest/p.html",
                        self.origin("redir") + "/en/latest/first.html")

    def test_forced_redirect_before_existing_page(self):
        self.assertServed(self.get("/en/latest/exists.html", slug="redir"),
                          b"exists")
        self.redirect({"type": "page", "from_url": "/exists.html",
                       "to_url": "/foo.html"})
        self.assertServed(self.get("/en/latest/exists.html", slug="redir"),
                          b"exists")
        self.redirect({"type": "page", "from_url": "/exists.html",
                       "to_url": "/new.html", "force": True,
                       "position": 5})
        self.assertUser("/en/latest/exists.html",
                        self.origin("redir") + "/en/latest/new.html")

    def test_directory_redirect_before_user_redirects(self):
        self.redirect({"type": "page", "from_url": "/guide",
                       "to_url": "/new.html"})
        self.assertSystem(self.get("/en/latest/guide", slug="redir"),
                          "/en/latest/guide/")

    def test_loop_guard(self):
        self.redirect({"type": "exact", "from_url": "/en/latest/loop.html",
                       "to_url": "/en/latest/loop.html"})
        self.assertPlain404(self.get("/en/latest/loop.html", slug="redir"))
        self.redirect({"type": "page", "from_url": "/dev/*",
                       "to_url": "/dev/new/:splat"})
        self.assertUser("/en/latest/dev/a.html",
                        self.origin("redir") + "/en/latest/dev/new/a.html")
        self.assertPlain404(self.get("/en/latest/dev/new/a.html",
                                     slug="redir"))

    def test_open_redirect_stays_on_host(self):
        self.redirect({"type": "exact", "from_url": "/evil.html",
                       "to_url": "//evil.com/x"})
        self.redirect({"type": "exact", "from_url": "/go/*",
                       "to_url": "/:splat"})
        self.assertUser("/evil.html", self.origin("redir") + "/evil.com/x")
        # "//" in the request is collapsed before any redirect runs.
        self.assertSystem(self.get("/go//evil.com", slug="redir"),
                          "/go/evil.com")
        self.assertUser("/go/evil.com", self.origin("redir") + "/evil.com")
        # An encoded backslash never reaches the redirects.
        self.assertPlain404(self.get("/go/%5Cevil.com", slug="redir"))

    def test_query_merge(self):
        self.redirect({"type": "page", "from_url": "/q.html",
                       "to_url": "/new.html?b=2#part"})
        self.assertUser("/en/latest/q.html",
                        self.origin("redir") + "/en/latest/new.html?a=1&b=2"
                        "#part", query="?a=1")

    def test_subproject_uses_its_own_redirects(self):
        r = self.server.post("/api/v3/projects/child/redirects/", {
            "type": "page", "from_url": "/old.html", "to_url": "/page.html"},
            token=self.alice)
        self.assertStatus(r, 201)
        self.addCleanup(self.server.delete,
                        "/api/v3/projects/child/redirects/%d/" % r.json["pk"],
                        token=self.alice)
        r = self.get("/projects/child/en/latest/old.html")
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), self.origin("main") +
                         "/projects/child/en/latest/page.html")
        self.assertEqual(r.header("X-RTD-Redirect"), "user")
        # The parent's own paths do not see the child's redirects.
        self.assertStatus(self.get("/en/latest/old.html"), 404)

    def test_disabled_redirect_ignored(self):
        self.redirect({"type": "page", "from_url": "/off.html",
                       "to_url": "/new.html", "enabled": False})
        self.assertPlain404(self.get("/en/latest/off.html", slug="redir"))

    # Private versions and projects.

    def test_private_version_hidden_from_others(self):
        for headers in ({}, {"Authorization": "Token " + self.bob},
                        {"Authorization": "Token " + "0" * 40},
                        {"Authorization": "Bearer " + self.alice}):
            r = self.get("/en/secret/", headers=headers)
            self.assertStatus(r, 404)
            self.assertNotIn(b"secret", r.body)
        # Its custom 404 page is not shown either.
        r = self.get("/en/secret/nope.html")
        self.assertNotIn(b"secret 404", r.body)

    def test_private_version_for_owner_by_token(self):
        r = self.get("/en/secret/", token=self.alice)
        self.assertServed(r, b"top secret")
        self.assertEqual(r.header("Cache-Control"), "private")
        self.assertIsNone(self.get("/en/latest/").header("Cache-Control"))

    def test_private_project(self):
        self.assertStatus(self.get("/en/latest/", slug="priv"), 404)
        self.assertStatus(self.get("/en/latest/", slug="priv",
                                   token=self.bob), 404)
        self.assertServed(self.get("/en/latest/", slug="priv",
                                   token=self.alice), b"private project")

    def login(self, token, nxt="/en/secret/"):
        """Log in to main's docs host as a browser does (the form is on the
        API's host, test_hostile.py tests its CSRF refusals): the docs
        host's answer to the ticket."""
        return self.server.browser_login(token, self.host(), nxt)[1]

    def cookie_of(self, r):
        return r.header("Set-Cookie").split(";")[0]

    def api_host(self):
        return "localhost:%d" % self.server.port

    def test_login_sets_session_cookie(self):
        r = self.login(self.alice)
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), "/en/secret/")
        self.assertEqual(r.header("Referrer-Policy"), "no-referrer")
        parts = [p.strip() for p in r.header("Set-Cookie").split(";")]
        self.assertTrue(parts[0].startswith("lectern_session="))
        self.assertEqual(sorted(parts[1:]), ["HttpOnly", "Max-Age=1209600",
                                             "Path=/", "SameSite=Lax"])
        self.assertNotIn(self.alice, r.header("Set-Cookie"))
        r = self.get("/en/secret/", headers={"Cookie": "a=b; " +
                                             self.cookie_of(r)})
        self.assertServed(r, b"top secret")
        key = os.path.join(self.server.data, "session.key")
        self.assertEqual(stat.S_IMODE(os.stat(key).st_mode), 0o600)
        self.assertNotIn(self.alice, self.server.log())

    def test_login_form_is_on_the_api_host(self):
        # Issue 27, item 11: a token typed into a page of the docs host
        # shares its origin with the build's output. The docs host sends
        # the browser to the API's host (the docs domain itself).
        r = self.get("/_/login/?next=/en/secret/")
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"),
                         "http://%s/_/login/?next=/en/secret/&host=%s"
                         % (self.api_host(), self.host()))
        r = self.server.request("POST", "/_/login/", host=self.host(),
                                raw=b"token=" + self.alice.encode())
        self.assertStatus(r, 405)
        self.assertEqual(r.header("Allow"), "GET, HEAD")
        self.assertIsNone(r.header("Set-Cookie"))
        # The form says where it logs in to, and may not be framed.
        form, _, _ = self.server.login_form(
            self.api_host(), "?next=/en/secret/&host=" + self.host())
        self.assertStatus(form, 200)
        self.assertIn(b"to read the docs at " + self.host().encode(), form.body)
        self.assertIn(b'name="host" value="%s"' % self.host().encode(), form.body)
        self.assertEqual(form.header("X-Frame-Options"), "DENY")
        self.assertEqual(form.header("Content-Security-Policy"), "frame-ancestors 'none'")

    def test_login_tickets(self):
        path, r = self.server.browser_login(self.alice, self.host())
        self.assertStatus(r, 302)
        # A ticket works once, on its own host only, and is not a session.
        self.assertRefusedTicket(self.get(path))
        path, _ = self.server.browser_login(self.alice, self.host())
        self.assertRefusedTicket(self.get(path, slug="main-es"))
        ticket = re.search(r"ticket=([^&]+)", path).group(1)
        self.assertStatus(self.get("/en/secret/", headers={
            "Cookie": "lectern_session=" + ticket}), 404)
        # A ticket names the login session it continues.
        alice = self.session_of(self.alice, "alice")
        expired = "7." + self.signed("ticket 7", alice, int(time.time()) - 1)
        other_random = "8." + self.signed("ticket 7", alice, int(time.time()) + 60)
        session = "7." + self.signed("session", alice, int(time.time()) + 60)
        for t in (expired, other_random, session, self.signed("ticket", alice, int(time.time()) + 60),
                  "garbage", ""):
            self.assertRefusedTicket(self.get("/_/login/?ticket=" + t))
        fresh = "7." + self.signed("ticket 7", alice, int(time.time()) + 60)
        self.assertStatus(self.get("/_/login/?ticket=" + fresh + "&next=/en/secret/"), 302)

    def test_used_ticket_in_another_spelling(self):
        # Issue 36, finding 2: a redeemed ticket's random number padded
        # with zeros was a fresh ticket (the MAC covers the number, not its
        # spelling), about 70 times over. Every number has one spelling.
        path, r = self.server.browser_login(self.alice, self.host())
        self.assertStatus(r, 302)
        ticket = re.search(r"ticket=([^&]+)", path).group(1)
        random, login, expires, mac = ticket.split(".")
        for spelling in ("0" + random, "00" + random, "+" + random, " " + random):
            with self.subTest(spelling=spelling):
                t = ".".join((spelling, login, expires, mac))
                self.assertRefusedTicket(self.get("/_/login/?ticket=" +
                                                  urllib.parse.quote(t)))
        alice = self.session_of(self.alice, "alice")
        # Signed in another spelling (the MAC right for those bytes): refused.
        later = int(time.time()) + 60
        for number_text, exp_text in (("0%d" % alice, "%d" % later),
                                      ("%d" % alice, "0%d" % later)):
            t = "9." + self.signed_text("ticket 9", number_text, exp_text)
            with self.subTest(ticket=t):
                self.assertRefusedTicket(self.get("/_/login/?ticket=" + t))
        upper = "9." + self.signed("ticket 9", alice, later).upper()
        self.assertRefusedTicket(self.get("/_/login/?ticket=" + upper))
        padded = self.signed_text("session", "0%d" % alice, "%d" % later)
        self.assertStatus(self.get("/en/secret/", headers={
            "Cookie": "lectern_session=" + padded}), 404)
        self.assertServed(self.get("/en/secret/", headers={
            "Cookie": self.session(alice, later)}), b"top secret")

    def test_login_on_the_api_host_first(self):
        # Logged in on the API's host already: on to the docs host at once.
        api = self.api_host()
        form, cookie, csrf = self.server.login_form(api)
        r = self.server.request(
            "POST", "/_/login/", host=api,
            raw=("csrf_token=%s&token=%s&next=/" % (csrf, self.alice)).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": cookie, "Origin": "http://" + api})
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), "/")
        session = self.cookie_of(r)
        r = self.server.get("/_/login/?next=/en/secret/&host=" + self.host(),
                            host=api, headers={"Cookie": session})
        self.assertStatus(r, 302)
        m = re.match(r"http://%s(/_/login/\?ticket=[0-9]+\.[0-9]+\.[0-9]+\.[0-9a-f]{64}"
                     r"&next=/en/secret/)$" % re.escape(self.host()),
                     r.header("Location"))
        self.assertIsNotNone(m, r.header("Location"))
        r = self.get(m.group(1))
        self.assertStatus(r, 302)
        self.assertServed(self.get("/en/secret/", headers={"Cookie": self.cookie_of(r)}),
                          b"top secret")
        # A host that is not one of this server's docs hosts is never sent
        # a ticket: the form is shown, for the API's host.
        for host in ("evil.com", "a/b.localhost:%d" % self.server.port,
                     "x@evil.com/.localhost:%d" % self.server.port,
                     "a.b.localhost:%d" % self.server.port):
            r = self.server.get("/_/login/?host=" + host.replace("/", "%2F"),
                                host=api, headers={"Cookie": session})
            self.assertStatus(r, 200)
            self.assertIn(b'name="host" value=""', r.body)

    def assertRefusedTicket(self, r):
        self.assertStatus(r, 403)
        self.assertIsNone(r.header("Set-Cookie"))
        self.assertIn(b"expired or was used already", r.body)

    def test_login_refusals(self):
        api = self.api_host()
        form, cookie, csrf = self.server.login_form(api)
        r = self.server.request(
            "POST", "/_/login/", host=api,
            raw=("csrf_token=%s&token=%s&host=%s" % (csrf, "0" * 40, self.host())).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": cookie, "Origin": "http://" + api})
        self.assertStatus(r, 403)
        self.assertIsNone(r.header("Set-Cookie"))
        self.assertNotIn(b"0" * 40, r.body)
        # next must stay on the docs host.
        for nxt in ("//evil.com/", "http://evil.com/", "/\\evil.com"):
            r = self.login(self.alice, nxt)
            self.assertStatus(r, 302)
            self.assertEqual(r.header("Location"), "/")
        r, _, _ = self.server.login_form(api, "?next=/en/secret/%22%3E")
        self.assertStatus(r, 200)
        self.assertIn(b'value="/en/secret/&quot;&gt;"', r.body)
        r = self.server.request("DELETE", "/_/login/", host=api)
        self.assertStatus(r, 405)
        self.assertEqual(r.header("Allow"), "GET, POST, HEAD, OPTIONS")

    def signed(self, purpose, number, expires, host=None):
        return self.signed_text(purpose, "%d" % number, "%d" % expires, host)

    def signed_text(self, purpose, number_text, expires_text, host=None):
        """A value signed with the server's key as the server signs, its
        numbers spelt as given."""
        with open(os.path.join(self.server.data, "session.key"), "rb") as f:
            key = f.read()
        value = "%s.%s" % (number_text, expires_text)
        msg = ("%s\n%s\n%s" % (purpose, host or self.host(), value)).encode()
        return "%s.%s" % (value, hmac.new(key, msg, hashlib.sha256).hexdigest())

    def session(self, sid, expires, host=None):
        return "lectern_session=" + self.signed("session", sid, expires, host)

    def session_of(self, token, username):
        """The id of a login session of username's, logging in with token
        (which also makes sure the session key exists)."""
        self.login(token)
        return self.store.rows(
            "SELECT s.id FROM sessions s JOIN tokens t ON t.id = s.token_id"
            " JOIN users u ON u.id = t.user_id WHERE u.username = ?"
            " AND s.login = s.id", (username,))[0][0]

    def test_bad_and_forged_cookies(self):
        # A cookie names a session (a row of the store) and is signed for
        # its host: neither part is any good without the other.
        alice = self.session_of(self.alice, "alice")
        bob = self.session_of(self.bob, "bob")
        good = self.session(alice, int(time.time()) + 60)
        self.assertServed(self.get("/en/secret/", headers={"Cookie": good}),
                          b"top secret")
        value = good.split("=", 1)[1]
        forged = "lectern_session=%d.%s" % (bob, value.split(".", 1)[1])
        expired = self.session(alice, int(time.time()) - 10)
        wrong_key = "lectern_session=%d.%d.%s" % (
            alice, int(time.time()) + 60, "ab" * 32)
        # Signed right, but for another docs host (issue 27, item 11: a
        # session made on one host worked on every other).
        elsewhere = self.session(alice, int(time.time()) + 60,
                                 host="other.localhost:%d" % self.server.port)
        # Signed right, for a session never made (or ended).
        never_made = self.session(12345, int(time.time()) + 60)
        for cookie in ("lectern_session=garbage", "lectern_session=",
                       forged, expired, wrong_key, elsewhere, never_made,
                       self.session(bob, int(time.time()) + 60)):
            r = self.get("/en/secret/", headers={"Cookie": cookie})
            self.assertStatus(r, 404)

    # Downloads.

    def test_downloads(self):
        r = self.get("/_/downloads/en/latest/pdf/")
        self.assertServed(r, b"%PDF-1.7 main")
        self.assertEqual(r.header("Content-Type"), "application/pdf")
        self.assertEqual(r.header("Content-Disposition"),
                         "filename=main-localhost%d-en-latest.pdf"
                         % self.server.port)
        r = self.get("/_/downloads/en/latest/htmlzip/")
        self.assertServed(r, b"PK zip")
        self.assertEqual(r.header("Content-Type"), "application/zip")
        self.assertEqual(r.header("Content-Disposition"),
                         "filename=main-localhost%d-en-latest.zip"
                         % self.server.port)
        r = self.get("/_/downloads/es/latest/epub/")
        self.assertServed(r, b"PK es epub")
        self.assertEqual(r.header("Content-Disposition"),
                         "filename=main-localhost%d-es-latest.epub"
                         % self.server.port)

    def test_downloads_missing(self):
        for path in ("/_/downloads/en/latest/epub/",
                     "/_/downloads/en/latest/html/",
                     "/_/downloads/en/nosuch/pdf/",
                     "/_/downloads/de/latest/pdf/",
                     "/_/downloads/en/latest/pdf",
                     "/_/downloads/en/latest/pdf/extra/",
                     "/_/downloads/en/secret/epub/",
                     "/_/downloads/en/../latest/pdf/",
                     "/_/nothing/"):
            self.assertPlain404(self.get(path))
        r = self.get("/_/downloads/en/secret/epub/", token=self.alice)
        self.assertServed(r, b"PK secret epub")

    # Range.

    def test_range_requests(self):
        path = "/en/latest/data.bin"
        r = self.get(path)
        self.assertServed(r, RANGE_BODY)
        self.assertEqual(r.header("Accept-Ranges"), "bytes")
        etag, modified = r.header("ETag"), r.header("Last-Modified")
        cases = {"bytes=0-9": (0, 9), "bytes=-5": (1019, 1023),
                 "bytes=1000-": (1000, 1023), "bytes=1020-5000": (1020, 1023),
                 "bytes=-5000": (0, 1023)}
        for spec, (first, last) in cases.items():
            r = self.get(path, headers={"Range": spec})
            self.assertStatus(r, 206)
            self.assertEqual(r.body, RANGE_BODY[first:last + 1], spec)
            self.assertEqual(r.header("Content-Range"),
                             "bytes %d-%d/1024" % (first, last))
            self.assertEqual(r.header("Content-Length"),
                             str(last - first + 1))
        for spec in ("bytes=1024-", "bytes=5000-6000", "bytes=-0"):
            r = self.get(path, headers={"Range": spec})
            self.assertStatus(r, 416)
            self.assertEqual(r.header("Content-Range"), "bytes */1024")
        # Several ranges, and malformed ones: the whole file.
        for spec in ("bytes=0-1,5-6", "bytes=5-2", "items=0-1", "bytes=a-b"):
            r = self.get(path, headers={"Range": spec})
            self.assertServed(r, RANGE_BODY)
        # If-Range: the range only while the validator is current.
        for validator in (etag, modified):
            r = self.get(path, headers={"Range": "bytes=0-3",
                                        "If-Range": validator})
            self.assertStatus(r, 206)
            self.assertEqual(r.body, RANGE_BODY[:4])
        for validator in ('"stale"', "W/" + etag,
                          "Mon, 01 Jan 2001 00:00:00 GMT"):
            r = self.get(path, headers={"Range": "bytes=0-3",
                                        "If-Range": validator})
            self.assertServed(r, RANGE_BODY)

    def test_range_on_download(self):
        r = self.get("/_/downloads/en/latest/pdf/",
                     headers={"Range": "bytes=0-3"})
        self.assertStatus(r, 206)
        self.assertEqual(r.body, b"%PDF")

    # Compression.

    def test_gzip_for_text(self):
        plain = self.get("/en/latest/big.html")
        self.assertServed(plain, BIG_HTML)
        self.assertIsNone(plain.header("Content-Encoding"))
        # A page is also served as Markdown (test_agents.py): it varies on
        # Accept too.
        self.assertEqual(plain.header("Vary"), "Accept, Accept-Encoding")
        r = self.get("/en/latest/big.html",
                     headers={"Accept-Encoding": "deflate, gzip;q=0.8"})
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Encoding"), "gzip")
        self.assertEqual(r.header("Vary"), "Accept, Accept-Encoding")
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")
        self.assertEqual(gzip.decompress(r.body), BIG_HTML)
        self.assertLess(len(r.body), len(BIG_HTML) // 4)
        self.assertEqual(r.header("Content-Length"), str(len(r.body)))
        self.assertNotEqual(r.header("ETag"), plain.header("ETag"))
        # Revalidating the compressed copy.
        r2 = self.get("/en/latest/big.html",
                      headers={"Accept-Encoding": "gzip",
                               "If-None-Match": r.header("ETag")})
        self.assertStatus(r2, 304)
        css = self.get("/en/latest/big.css", headers={"Accept-Encoding":
                                                       "gzip"})
        self.assertEqual(css.header("Content-Encoding"), "gzip")
        self.assertEqual(gzip.decompress(css.body), BIG_HTML)

    def test_gzip_follows_file_changes(self):
        path = os.path.join(self.server.data, "published", "main", "latest",
                            "html", "change.html")
        for n, content in enumerate((BIG_HTML, BIG_HTML.upper())):
            with open(path, "wb") as f:
                f.write(content)
            os.utime(path, (1700000000 + n, 1700000000 + n))
            for _ in range(2):  # compressed, then from the cache
                r = self.get("/en/latest/change.html",
                             headers={"Accept-Encoding": "gzip"})
                self.assertEqual(r.header("Content-Encoding"), "gzip")
                self.assertEqual(gzip.decompress(r.body), content)

    def test_no_gzip_when_not_wanted(self):
        cases = (("/en/latest/big.png", "gzip"),      # an image
                 ("/en/latest/small.html", "gzip"),   # too small
                 ("/en/latest/big.html", "gzip;q=0"),
                 ("/en/latest/big.html", "br"))
        for path, accept in cases:
            r = self.get(path, headers={"Accept-Encoding": accept})
            self.assertStatus(r, 200)
            self.assertIsNone(r.header("Content-Encoding"), path)
        self.assertNotIn("Accept-Encoding",
                         self.get("/en/latest/big.png").header("Vary"))
        # Range requests get the identity encoding.
        r = self.get("/en/latest/big.html",
                     headers={"Accept-Encoding": "gzip", "Range": "bytes=0-5"})
        self.assertStatus(r, 206)
        self.assertIsNone(r.header("Content-Encoding"))
        self.assertEqual(r.body, BIG_HTML[:6])

    def test_gzip_head(self):
        get = self.get("/en/latest/big.html",
                       headers={"Accept-Encoding": "gzip"})
        r = self.server.request("HEAD", "/en/latest/big.html",
                                host=self.host(),
                                headers={"Accept-Encoding": "gzip"})
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"")
        self.assertEqual(r.header("Content-Encoding"), "gzip")
        self.assertEqual(r.header("Content-Length"), str(len(get.body)))
        self.assertEqual(r.header("ETag"), get.header("ETag"))


if __name__ == "__main__":
    main()
