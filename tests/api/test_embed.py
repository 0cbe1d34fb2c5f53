"""The embed API (behaviour notes §3.6, decision table "embed v2"):
/api/v2/embed/ with the service's historical behaviour built from the
published HTML, and /api/v3/embed/?url=. Every error body, the section
lookups, headers, absolute links, the URL forms of each versioning scheme,
private and inactive versions, and the CORS header.

Published pages are written straight into the server's data directory
and versions set up with SQL, as in test_docs; docs/embed.md has the
decisions these tests pin down."""
import json
import os

from lectern_test import ServerTestCase, Store, main

T0 = 1704164645 * 1000000

USAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Usage</title>'
    '<link rel="stylesheet" href="../_static/style.css"></head><body>'
    '<div class="sphinxsidebar"><h3>Navigation</h3></div>'
    '<div class="body" role="main">'
    '<section id="usage"><h1>Usage<a class="headerlink" href="#usage">\u00b6</a></h1>'
    '<p>See <a href="../index.html">home</a>.</p>'
    '<section id="install"><h2>Install</h2>'
    '<p>Run <code>pip</code>. <img src="../_static/i.png"></p></section>'
    '<section id="glossary"><h2>Glossary</h2><dl class="glossary">'
    '<dt id="term-doc">doc</dt><dd><p>A page.</p></dd>'
    '<dt id="term-toc">toc</dt><dd><p>Contents.</p></dd></dl></section>'
    '<section id="module-pkg.mod"><h2>pkg.mod</h2>'
    '<dl class="py function"><dt id="pkg.mod.run">run()</dt>'
    '<dd><p>Runs.</p></dd></dl></section>'
    '</section></div></body></html>')

SETUP = (
    '<html><head><title>Setup</title></head><body><nav><a href="/">top</a></nav>'
    '<div role="main"><h1 id="setup">Setup</h1><p>Start <a href="../usage/">u</a>.</p>'
    '<h2 id="from-source">From source</h2><p>git</p></div></body></html>')

INSTALL_HTML = ('<section id="install"><h2>Install</h2><p>Run <code>pip</code>. '
                '<img src="http://emb.localhost:%d/en/latest/_static/i.png"></p></section>')


# A page on another site calling the API from a browser.
ORIGIN = "https://elsewhere.example"

class EmbedTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.owner = cls.server.token("owner")
        cls.other = cls.server.token("other")
        for name in ("Emb", "Flat", "Single", "Hidden Proj", "Emb Es", "Child"):
            cls.server.import_project(cls.owner, name)
        cls.store.execute("UPDATE projects SET versioning_scheme ="
                          " 'multiple_versions_without_translations' WHERE slug = 'flat'")
        cls.store.execute("UPDATE projects SET versioning_scheme ="
                          " 'single_version_without_translations' WHERE slug = 'single'")
        cls.store.execute("UPDATE projects SET privacy_level = 'private'"
                          " WHERE slug = 'hidden-proj'")
        for slug in ("emb", "flat", "single", "hidden-proj"):
            cls.store.version(slug, "latest", active=1)
            cls.store.publish(slug, "latest", {"guide/usage.html": USAGE,
                                         "setup/index.html": SETUP,
                                         "index.html": "<h1>Home</h1>",
                                         # Latin-1, not UTF-8, as old pages are.
                                         "latin.html": b"<h1 id=\"caf\xe9\">Caf\xe9 \xff\xfe</h1>"
                                                       b"<p>cr\xe8me \xc3(</p>"})
        # A translation served on emb's host under /es/, and a subproject
        # under /projects/sub/child/ (an alias with a '/').
        cls.store.execute("UPDATE projects SET language = 'es', main_language_project_id ="
                          " (SELECT id FROM projects WHERE slug = 'emb') WHERE slug = 'emb-es'")
        cls.store.execute("INSERT INTO subprojects (parent_id, child_id, alias, created) VALUES"
                          " ((SELECT id FROM projects WHERE slug = 'emb'),"
                          " (SELECT id FROM projects WHERE slug = 'child'), 'sub/child', ?)", (T0,))
        for slug, page in (("emb-es", '<h1 id="hola">Hola</h1>'),
                           ("child", '<h1 id="c">Child page</h1>')):
            cls.store.version(slug, "latest", active=1)
            cls.store.publish(slug, "latest", {"index.html": page})
        cls.store.version("emb", "secret", active=1, privacy="private")
        cls.store.publish("emb", "secret", {"index.html": "<h1 id=s>Secret</h1>"})
        cls.store.version("emb", "off", active=0)
        cls.store.publish("emb", "off", {"index.html": "<h1>Off</h1>"})
        cls.store.execute("UPDATE versions SET documentation_type = 'sphinx'")
        with open(os.path.join(cls.server.data, "published", "outside.html"), "w") as f:
            f.write("<h1>OUTSIDE</h1>")

    def docs(self, slug, path=""):
        return "http://%s.localhost:%d%s" % (slug, self.server.port, path)

    def get(self, path, params, **kw):
        from urllib.parse import urlencode
        # A browser's cross-origin call: CORS answers only those.
        kw.setdefault("headers", {"Origin": ORIGIN})
        return self.server.get(path + "?" + urlencode(params), **kw)

    def v2(self, **params):
        token = params.pop("token", None)
        return self.get("/api/v2/embed/", params, token=token)

    def v3(self, **params):
        token = params.pop("token", None)
        return self.get("/api/v3/embed/", params, token=token)

    def assertError(self, r, status, message):
        self.assertStatus(r, status)
        self.assertEqual(r.body, json.dumps({"error": message},
                                            separators=(",", ":")).encode())
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")

    # v2 -----------------------------------------------------------------

    def test_v2_needs_url_or_doc(self):
        msg = ('Invalid Arguments. Please provide "url" or "section" and "path"'
               ' GET arguments.')
        self.assertError(self.v2(), 400, msg)
        self.assertError(self.v2(project="emb", section="install"), 400, msg)
        self.assertError(self.v2(project="emb", doc="", path=""), 400, msg)

    def test_v2_doc_and_section_exact_body(self):
        r = self.v2(project="emb", doc="guide/usage", section="install")
        self.assertStatus(r, 200)
        url = self.docs("emb", "/en/latest/guide/usage.html")
        expected = {
            "content": [INSTALL_HTML % self.server.port],
            "headers": [{"Usage": "#"}, {"Install": "#install"},
                        {"Glossary": "#glossary"}, {"pkg.mod": "#module-pkg.mod"}],
            "url": url,
            "meta": {"project": "emb", "version": "latest",
                     "doc": "guide/usage", "section": "install"},
        }
        self.assertEqual(r.json, expected)
        # DRF's plain renderer: the view's key order, compact.
        self.assertEqual(r.body, json.dumps(expected, separators=(",", ":"),
                                            ensure_ascii=False).encode())
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")

    def test_v2_default_section_is_first_header(self):
        r = self.v2(project="emb", version="latest", path="/guide/usage.html")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["meta"], {"project": "emb", "version": "latest",
                                          "doc": "guide/usage", "section": "usage"})
        self.assertEqual(len(r.json["content"]), 1)
        content = r.json["content"][0]
        self.assertTrue(content.startswith('<section id="usage"><h1>Usage<a class="headerlink"'
                                           ' href="%s#usage">' % r.json["url"]), content)
        # Relative links made absolute against the page.
        self.assertIn('<a href="%s">home</a>' % self.docs("emb", "/en/latest/index.html"),
                      content)
        self.assertEqual(r.json["url"], self.docs("emb", "/en/latest/guide/usage.html"))

    def test_v2_section_lookups(self):
        cases = {
            # by slugified title, docutils id, module target, heading text
            "Install": '<section id="install">',
            "  Glossary!": '<section id="glossary">',
            "pkg.mod": '<section id="module-pkg.mod">',
            "lossar": '<section id="glossary">',
            # a glossary term brings its definition, a py:function its dl
            "term-toc": "<dd><p>Contents.</p></dd>",
            "pkg.mod.run": '<dl class="py function"><dt id="pkg.mod.run">run()</dt>',
        }
        for section, start in cases.items():
            r = self.v2(project="emb", doc="guide/usage", section=section)
            self.assertStatus(r, 200)
            self.assertEqual(len(r.json["content"]), 1, section)
            self.assertTrue(r.json["content"][0].startswith(start),
                            (section, r.json["content"][0]))
            self.assertEqual(r.json["meta"]["section"], section)

    def test_v2_unknown_section_is_empty_content(self):
        r = self.v2(project="emb", doc="guide/usage", section="nothing-here")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], [])
        self.assertEqual(len(r.json["headers"]), 4)

    def test_v2_url_form(self):
        url = self.docs("emb", "/en/latest/guide/usage.html#install")
        r = self.v2(url=url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["url"], url)
        self.assertEqual(r.json["content"], [INSTALL_HTML % self.server.port])
        self.assertEqual(r.json["meta"], {"project": "emb", "version": "latest",
                                          "doc": "guide/usage", "section": "install"})
        # A directory URL (MkDocs): its index.html; flat headings.
        r = self.v2(url=self.docs("emb", "/en/latest/setup/#from-source"))
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], ['<h2 id="from-source">From source</h2><p>git</p>'])
        self.assertEqual(r.json["headers"], [{"Setup": "#"}, {"From source": "#from-source"}])
        self.assertEqual(r.json["meta"]["doc"], "setup")

    def test_v2_doc_forms(self):
        # doc as an html page, a directory, or with its suffix.
        for doc, url in (("guide/usage", "/en/latest/guide/usage.html"),
                         ("setup", "/en/latest/setup/"),
                         ("guide/usage.html", "/en/latest/guide/usage.html")):
            r = self.v2(project="emb", doc=doc)
            self.assertStatus(r, 200)
            self.assertEqual(r.json["url"], self.docs("emb", url))

    def test_v2_not_found_bodies(self):
        self.assertDetail(self.v2(project="nope", doc="index"), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.v2(doc="index"), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.v2(project="emb", version="v9", doc="index"), 404,
                          "No Version matches the given query.")
        self.assertError(self.v2(project="emb", doc="missing"), 404,
                         "Can't find content for section: doc=missing path=None section=None")
        self.assertError(self.v2(project="emb", path="/nope/x.html", section="s"), 404,
                         "Can't find content for section: doc=nope/x path=/nope/x.html section=s")
        # A URL this instance does not serve names no project.
        self.assertDetail(self.v2(url="https://example.com/en/latest/x.html"), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.v2(url=self.docs("ghost", "/en/latest/")), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.v2(url=self.docs("emb", "/en/v9/")), 404,
                          "No Version matches the given query.")
        self.assertDetail(self.v2(url=self.docs("emb", "/fr/latest/")), 404,
                          "No Version matches the given query.")

    def test_v2_traversal_is_not_found(self):
        for path in ("../../outside.html", "/../../../outside.html", "guide/../../x",
                     "..", "guide/%2e%2e/x"):
            r = self.v2(project="emb", path=path)
            self.assertStatus(r, 404)
            self.assertNotIn(b"OUTSIDE", r.body)
        for path in ("/en/latest/../../../outside.html", "/en/latest/%2e%2e/%2e%2e/outside.html",
                     "/en/latest/guide%2fusage.html"):
            r = self.v2(url=self.docs("emb", path))
            self.assertIn(r.status, (404,), path)
            self.assertNotIn(b"OUTSIDE", r.body)

    def test_v2_private_inactive_and_private_project(self):
        no_version = "No Version matches the given query."
        self.assertDetail(self.v2(project="emb", version="secret", doc="index"), 404, no_version)
        self.assertDetail(self.v2(project="emb", version="secret", doc="index",
                                  token=self.other), 404, no_version)
        r = self.v2(project="emb", version="secret", doc="index", token=self.owner)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], ['<h1 id="s">Secret</h1>'])
        # The same URI asked anonymously again is not served from the
        # owner's answer.
        self.assertDetail(self.v2(project="emb", version="secret", doc="index"), 404, no_version)
        self.assertDetail(self.v2(project="emb", version="off", doc="index", token=self.owner),
                          404, no_version)
        self.assertDetail(self.v2(project="hidden-proj", doc="index"), 404,
                          "No Project matches the given query.")
        self.assertStatus(self.v2(project="hidden-proj", doc="index", token=self.owner), 200)

    def test_v2_authentication_and_methods(self):
        # Authenticated like v3, so a token that is not one is refused.
        r = self.v2(project="emb", doc="index", token="0" * 40)
        self.assertDetail(r, 401, "Invalid token.")
        r = self.server.post("/api/v2/embed/", {}, headers={"Origin": ORIGIN})
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, HEAD, OPTIONS")
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")

    def test_proxied_paths_on_docs_hosts(self):
        # /_/api/v{2,3}/embed/ answer on a docs host (and the API host) too.
        url = self.docs("emb", "/en/latest/guide/usage.html#install")
        from urllib.parse import urlencode
        for host in ("emb.localhost:%d" % self.server.port, None):
            r = self.server.get("/_/api/v3/embed/?" + urlencode({"url": url}), host=host,
                                headers={"Origin": ORIGIN})
            self.assertStatus(r, 200)
            self.assertEqual(r.json["content"], INSTALL_HTML % self.server.port)
            self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
            r = self.server.get("/_/api/v2/embed/?" + urlencode({"url": url}), host=host,
                                headers={"Origin": ORIGIN})
            self.assertStatus(r, 200)
            self.assertEqual(r.json["content"], [INSTALL_HTML % self.server.port])
            self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")

    def test_cors_only_on_embed_and_survives_the_cache(self):
        for _ in range(2):
            r = self.v2(project="emb", doc="index")
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
            r = self.v3(url=self.docs("emb", "/en/latest/"))
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
        r = self.server.get("/api/v3/projects/emb/", token=self.owner,
                            headers={"Origin": ORIGIN})
        self.assertStatus(r, 200)
        self.assertIsNone(r.header("Access-Control-Allow-Origin"))
        self.assertIsNone(self.server.get("/api/v2/project/", headers={"Origin": ORIGIN}).header(
            "Access-Control-Allow-Origin"))
        # Without an Origin (no browser), no CORS header either.
        self.assertIsNone(self.get("/api/v3/embed/", {"url": self.docs("emb", "/en/latest/")},
                                   headers={}).header("Access-Control-Allow-Origin"))

    # v3 -----------------------------------------------------------------

    def test_v3_argument_errors(self):
        self.assertError(self.v3(), 400, 'Invalid arguments. Please provide "url".')
        self.assertError(self.v3(url=""), 400, 'Invalid arguments. Please provide "url".')
        for bad in ("not a url", "/en/latest/", "http:///x", "://emb.localhost/"):
            self.assertError(self.v3(url=bad), 400,
                             "The URL requested is malformed. url=%s" % bad)
        self.assertError(self.v3(url="https://example.com/page.html#x"), 400,
                         "External domain not allowed. domain=example.com")
        # A host that merely contains the docs domain is not on it.
        host = "a.b.localhost:%d" % self.server.port
        self.assertError(self.v3(url="http://%s/" % host), 400,
                         "External domain not allowed. domain=%s" % host)

    def test_v3_fragment_exact_body(self):
        url = self.docs("emb", "/en/latest/guide/usage.html#install")
        r = self.v3(url=url)
        self.assertStatus(r, 200)
        expected = {"url": url, "fragment": "install",
                    "content": INSTALL_HTML % self.server.port, "external": False}
        self.assertEqual(r.json, expected)
        self.assertEqual(r.body, json.dumps(expected, separators=(",", ":")).encode())
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")

    def test_pages_not_in_utf8_give_valid_json(self):
        # Issue 27, item 13: the bytes went into the JSON as they were.
        for r in (self.v2(url=self.docs("emb", "/en/latest/latin.html")),
                  self.v3(url=self.docs("emb", "/en/latest/latin.html"))):
            self.assertStatus(r, 200)
            body = json.loads(r.body.decode("utf-8"))  # strict: fails on invalid bytes
            self.assertIn("Caf\ufffd \ufffd\ufffd", json.dumps(body, ensure_ascii=False))

    def test_v3_main_node_and_maincontent(self):
        url = self.docs("emb", "/en/latest/setup/")
        r = self.v3(url=url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json, {
            "url": url, "fragment": None, "external": False,
            "content": '<div role="main"><h1 id="setup">Setup</h1><p>Start <a href="%s">u</a>.'
                       '</p><h2 id="from-source">From source</h2><p>git</p></div>'
                       % self.docs("emb", "/en/latest/usage/")})
        r = self.v3(url=url, maincontent="nav")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], '<nav><a href="%s">top</a></nav>' % self.docs("emb", "/"))
        self.assertError(self.v3(url=url, maincontent="div > p"), 400,
                         "Unsupported selector: div > p")
        self.assertError(self.v3(url=url, maincontent="article"), 404,
                         "Can't find content for section: url=%s fragment= maincontent=article" % url)

    def test_v3_sphinx_glossary_and_doctool(self):
        url = self.docs("emb", "/en/latest/guide/usage.html#term-toc")
        # The version was built by Sphinx: the term with its definition.
        r = self.v3(url=url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"],
                         '<dl class="glossary"><dt id="term-toc">toc</dt><dd><p>Contents.</p></dd></dl>')
        r = self.v3(url=url, doctool="mkdocs")
        self.assertEqual(r.json["content"], '<dt id="term-toc">toc</dt>')

    def test_v3_schemes(self):
        for slug, path in (("flat", "/latest/guide/usage.html"),
                           ("single", "/guide/usage.html"),
                           ("emb", "/en/latest/guide/usage.html")):
            r = self.v3(url=self.docs(slug, path + "#install"))
            self.assertStatus(r, 200)
            self.assertTrue(r.json["content"].startswith('<section id="install">'))
        # The directory without its slash, and the project's root page.
        r = self.v3(url=self.docs("emb", "/en/latest/setup#from-source"))
        self.assertEqual(r.json["content"], '<h2 id="from-source">From source</h2>')
        # A page without [role=main] or <main>: the first h1's parent.
        r = self.v3(url=self.docs("single", "/"))
        self.assertEqual(r.json["content"], '<body><h1>Home</h1></body>')

    def test_translation_and_subproject_urls(self):
        url = self.docs("emb", "/es/latest/#hola")
        r = self.v3(url=url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], '<h1 id="hola">Hola</h1>')
        r = self.v2(url=url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["meta"], {"project": "emb-es", "version": "latest",
                                          "doc": "", "section": "hola"})
        self.assertEqual(r.json["content"], ['<h1 id="hola">Hola</h1>'])
        r = self.v3(url=self.docs("emb", "/projects/sub/child/en/latest/#c"))
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], '<h1 id="c">Child page</h1>')
        r = self.v2(url=self.docs("emb", "/projects/sub/child/en/latest/index.html#c"))
        self.assertEqual(r.json["meta"], {"project": "child", "version": "latest",
                                          "doc": "index", "section": "c"})
        # No translation in that language; an alias that is only a prefix.
        self.assertStatus(self.v3(url=self.docs("emb", "/de/latest/")), 404)
        self.assertStatus(self.v3(url=self.docs("emb", "/projects/sub/en/latest/")), 404)
        self.assertDetail(self.v2(url=self.docs("emb", "/de/latest/")), 404,
                          "No Version matches the given query.")

    def test_v3_not_found(self):
        def nf(url, fragment=""):
            self.assertError(self.v3(url=url), 404,
                             "Can't find content for section: url=%s fragment=%s maincontent=None"
                             % (url, fragment))
        nf(self.docs("emb", "/en/latest/guide/usage.html#nope"), "nope")
        nf(self.docs("emb", "/en/latest/missing.html"))
        nf(self.docs("ghost", "/en/latest/"))
        nf(self.docs("emb", "/en/v9/"))
        nf(self.docs("emb", "/en/"))
        nf(self.docs("emb", "/en/latest/../../outside.html"))
        nf(self.docs("emb", "/en/latest/%2e%2e/%2e%2e/outside.html"))
        # Private, inactive, private project: not found unless allowed.
        nf(self.docs("emb", "/en/secret/#s"), "s")
        self.assertStatus(self.v3(url=self.docs("emb", "/en/secret/#s"), token=self.other), 404)
        r = self.v3(url=self.docs("emb", "/en/secret/#s"), token=self.owner)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["content"], '<h1 id="s">Secret</h1>')
        nf(self.docs("emb", "/en/off/"))
        nf(self.docs("hidden-proj", "/en/latest/"))
        self.assertStatus(self.v3(url=self.docs("hidden-proj", "/en/latest/"),
                                  token=self.owner), 200)


if __name__ == "__main__":
    main()
