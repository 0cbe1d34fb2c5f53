"""The search API through a real `lectern serve` with a build worker: a
Sphinx project (a py:function domain block, search.ignore and
search.ranking in its .readthedocs.yaml), a Markdown project that is its
subproject, and an MkDocs project, each built and indexed by the pipeline.
Exact v2 and v3 bodies, highlights and their escaping, index.html paths per
doc type, subproject results, private versions, paging links, every error
body, the /_/api/ route on docs hosts, names first with prefixes and
misspellings, 30+ hostile queries (200 or 400, never 500 nor FTS5 text),
the build's indexing command, and `lectern reindex`."""
import time
import urllib.parse

import fixtures
from lectern_test import POLL_SECONDS, ServerTestCase, Store, main

BUILD_TIMEOUT = 300

SPHINX = {
    ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                         "sphinx:\n  configuration: docs/conf.py\n"
                         "search:\n  ignore:\n    - secret.html\n    - search.html\n    - genindex.html\n"
                         "  ranking:\n    api.html: 5\n    low.html: -5\n",
    "docs/conf.py": "project = 'Search Sphinx'\nextensions = []\nhtml_theme = 'alabaster'\n",
    "docs/index.rst": "Search Sphinx\n=============\n\n.. toctree::\n\n   api\n   low\n   secret\n\n"
                      "Welcome to the gardening manual.\n",
    "docs/api.rst": "API\n===\n\n.. py:function:: prune(tree, height)\n\n   Prune *tree* to ``height``.\n\n"
                    "Watering\n--------\n\nWater the garden daily.\n",
    "docs/low.rst": "Low\n===\n\nWater the garden weekly.\n",
    "docs/secret.rst": "Secret\n======\n\nHidden gardening notes.\n",
}

MARKDOWN = {
    "README.md": "# Search Markdown\n\nWelcome. Use `a<b> & \"c\"` with care: it's fine/ok.\n",
    # No docs/ directory: the site is the whole repository.
    "guide/install.md": "# Install\n\n## Setup\n\nRun the installer.\n",
}

MKDOCS = {
    ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                         "mkdocs:\n  configuration: mkdocs.yml\n",
    "mkdocs.yml": "site_name: MkDocs Search\nnav:\n  - Home: index.md\n  - Guide: guide.md\n",
    "docs/index.md": "# MkDocs Search\n\nHello from MkDocs.\n",
    "docs/guide.md": "# Guide\n\nPlanting tulips.\n",
}

NO_PROJECT = {"detail": "No Project matches the given query."}
NO_VERSION = {"detail": "No Version matches the given query."}

HOSTILE = [
    '"', '""', '"""', "(", ")", "((((", "))))", "-", "+", "|", "*", "-*", "NOT", "AND OR",
    "garden AND", "OR garden", "NEAR(garden water, 2)", "title:garden", "content:garden", "^garden",
    "{garden water}", "gard* *en", "'", "\\", '\\"', "\x01\x02", "rowid", 'a"b"c"d', "-(-(-garden))",
    "(garden|water)(daily|weekly)", '""*', "garden~", "~", "~2", "%", ";DROP TABLE search_pages;--",
    "' OR 1=1 --", 'garden*"', "+-|()\"*~\\", "search_entries MATCH 'x'", "\ufeffgarden",
    "\U0001F600 garden", "garden " * 70, "x" * 7000, "(" * 500 + "garden", "\u2028garden\u2029",
    "NEAR(", ":", "^", "*garden", "the of and a", "...", "!!!", "_", "-X", "--", "+garden -", '"garden',
    "garden.", ".garden", "gard", "gardne", "gardne waterr", "\u00ff" * 40,
]


class SearchTest(ServerTestCase):
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "120")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("owner")
        cls.other = cls.server.token("stranger")
        cls.builds = {}
        for key, name, files in (("sph", "Search Sphinx", SPHINX), ("md", "Search Markdown", MARKDOWN),
                                 ("mk", "MkDocs Search", MKDOCS)):
            repo = fixtures.make_repo(files)
            r = cls.server.post("/api/v3/projects/", {"name": name, "repository": {"url": "file://" + repo}},
                                token=cls.token)
            assert r.status == 201, r
            setattr(cls, key, r.json["slug"])
        for slug in (cls.sph, cls.md, cls.mk):
            cls.builds[slug] = cls.wait_build(slug)
        r = cls.server.post("/api/v3/projects/%s/subprojects/" % cls.sph, {"child": cls.md, "alias": "child"},
                            token=cls.token)
        assert r.status == 201, r
        cls.docs_host = "%s.localhost:%d" % (cls.sph, cls.server.port)

    @classmethod
    def wait_build(cls, slug):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = cls.server.get("/api/v3/projects/%s/builds/" % slug, token=cls.token).json["results"]
            if builds and builds[0]["state"]["code"] == "finished":
                assert builds[0]["success"], builds[0]
                return builds[0]
            time.sleep(POLL_SECONDS)
        raise AssertionError("build of %s did not finish" % slug)

    def search(self, project, q, version="latest", **kw):
        params = {"q": q, "project": project, "version": version}
        params.update(kw.pop("params", {}))
        return self.server.get("/api/v2/search/?" + urllib.parse.urlencode(params), **kw)

    def origin(self, slug):
        return "http://%s.localhost:%d" % (slug, self.server.port)

    def prune_page(self, **where):
        """The one result for "prune" (the Sphinx project's API page), with
        `where` the project and version fields of the API version asked."""
        return dict(where, type="page", title="API", path="/en/latest/api.html",
                    domain=self.origin(self.sph), highlights={"title": []},
                    blocks=[{"type": "domain", "role": "py:function", "name": "prune", "id": "prune",
                             "content": "Prune tree to height.",
                             "highlights": {"name": ["<span>prune</span>"],
                                            "content": ["<span>Prune</span> tree to height."]}}])

    # v2 results ---------------------------------------------------------

    def test_domain_block_exact_body(self):
        r = self.search(self.sph, "prune", headers={"Origin": "https://elsewhere.example"})
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.header("Access-Control-Allow-Origin"), "*")
        self.assertEqual(r.json, {"count": 1, "next": None, "previous": None, "results": [
            self.prune_page(project=self.sph, project_alias=None, version="latest")]})
        # Field order is the serializer's, not sorted (v2 search).
        body = r.body.decode()
        self.assertLess(body.index('"count"'), body.index('"next"'))
        self.assertLess(body.index('"type":"page"'), body.index('"project"'))
        self.assertLess(body.index('"path"'), body.index('"domain"'))

    def test_ranking_and_ignore(self):
        r = self.search(self.sph, "garden")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["count"], 3)
        # api.html ranks 5 (x1.5), low.html -5 (x0.05); secret.html and
        # genindex.html are ignored.
        self.assertEqual([x["path"] for x in r.json["results"]],
                         ["/en/latest/api.html", "/en/latest/index.html", "/en/latest/low.html"])
        self.assertEqual(r.json["results"][0]["blocks"], [{
            "type": "section", "id": "watering", "title": "Watering", "content": "Water the garden daily.",
            "highlights": {"title": [], "content": ["Water the <span>garden</span> daily."]}}])
        self.assertEqual(self.search(self.sph, "hidden").json,
                         {"count": 0, "next": None, "previous": None, "results": []})

    def test_all_words_rank_above_some_words(self):
        # low.html matches both words: it comes first despite rank -5.
        r = self.search(self.sph, "garden weekly")
        self.assertEqual([x["path"] for x in r.json["results"]],
                         ["/en/latest/low.html", "/en/latest/api.html", "/en/latest/index.html"])
        self.assertEqual(self.search(self.sph, "+garden +weekly").json["count"], 1)
        self.assertEqual(self.search(self.sph, "garden -weekly").json["count"], 2)
        self.assertEqual(self.search(self.sph, '"garden daily"').json["count"], 1)
        self.assertEqual(self.search(self.sph, '"daily garden"').json["count"], 0)
        self.assertEqual(self.search(self.sph, "gard*").json["count"], 3)
        self.assertEqual(self.search(self.sph, "(weekly | daily) +water").json["count"], 2)

    def test_names_first_prefix_and_misspelling(self):
        # The domain object's name, typed whole, begun (search as you
        # type) or misspelled, gives its page with the object's block
        # first: the TUI searches as you type through this API.
        for q in ("prune", "Prune", "prun", "prnue"):
            r = self.search(self.sph, q)
            self.assertStatus(r, 200)
            self.assertEqual(r.json["results"][0]["path"], "/en/latest/api.html", q)
            self.assertEqual(r.json["results"][0]["blocks"][0]["id"], "prune", q)
        # A section title named whole comes first even on a page ranked -5.
        r = self.search(self.sph, "low")
        self.assertEqual(r.json["results"][0]["path"], "/en/latest/low.html")
        # The unfinished last word is a prefix: "water" and "watering".
        self.assertEqual(self.search(self.sph, "garden wat").json["count"], 3)
        self.assertEqual(self.search(self.sph, "+garden +wat").json["count"], 2)

    def test_highlights_are_escaped(self):
        r = self.search(self.md, "care")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["results"], [{
            "type": "page", "project": self.md, "project_alias": None, "version": "latest",
            "title": "Search Markdown", "path": "/projects/child/en/latest/",
            "domain": self.origin(self.sph), "highlights": {"title": []},
            "blocks": [{"type": "section", "id": "search-markdown", "title": "Search Markdown",
                        "content": "Welcome. Use a<b> & \"c\" with care: it's fine/ok.",
                        "highlights": {"title": [], "content": [
                            "Welcome. Use a&lt;b&gt; &amp; &quot;c&quot; with <span>care</span>: "
                            "it&#x27;s fine&#x2F;ok."]}}]}])

    def test_subproject_results_carry_the_alias(self):
        r = self.search(self.sph, "installer")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["results"], [{
            "type": "page", "project": self.md, "project_alias": "child", "version": "latest",
            "title": "Install", "path": "/projects/child/en/latest/guide/install.html",
            "domain": self.origin(self.sph), "highlights": {"title": ["<span>Install</span>"]},
            "blocks": [
                {"type": "section", "id": "install", "title": "Install", "content": "",
                 "highlights": {"title": ["<span>Install</span>"], "content": []}},
                {"type": "section", "id": "setup", "title": "Setup", "content": "Run the installer.",
                 "highlights": {"title": [], "content": ["Run the <span>installer</span>."]}}]}])
        # The subproject's own search does not include its parent.
        self.assertEqual(self.search(self.md, "garden").json["count"], 0)

    def test_directory_doc_types_drop_index_html(self):
        r = self.search(self.mk, "tulips hello")
        self.assertStatus(r, 200)
        self.assertEqual([(x["title"], x["path"], x["domain"]) for x in r.json["results"]],
                         [("Guide", "/en/latest/guide/", self.origin(self.mk)),
                          ("MkDocs Search", "/en/latest/", self.origin(self.mk))])

    def test_paging_links(self):
        base = "http://%s:%d/api/v2/search/?" % (self.server.host, self.server.port)
        common = "project=%s&q=garden&version=latest" % self.sph
        r = self.server.get("/api/v2/search/?q=garden&project=%s&version=latest&page_size=1" % self.sph)
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(len(r.json["results"]), 1)
        self.assertEqual(r.json["next"], base + "page=2&page_size=1&" + common)
        self.assertIsNone(r.json["previous"])
        r = self.server.get("/api/v2/search/?version=latest&q=garden&page=2&project=%s&page_size=1" % self.sph)
        self.assertEqual(r.json["results"][0]["path"], "/en/latest/index.html")
        self.assertEqual(r.json["next"], base + "page=3&page_size=1&" + common)
        self.assertEqual(r.json["previous"], base + "page_size=1&" + common)
        r = self.server.get("/api/v2/search/?q=garden&project=%s&version=latest&page_size=1&page=3" % self.sph)
        self.assertIsNone(r.json["next"])
        self.assertEqual(r.json["previous"], base + "page=2&page_size=1&" + common)
        r = self.server.get("/api/v2/search/?q=garden&project=%s&version=latest&page_size=1&page=9" % self.sph)
        self.assertEqual((r.json["count"], r.json["results"], r.json["next"]), (3, [], None))
        # Invalid sizes take the default; large ones are clamped to 100.
        for size in ("abc", "0", "-3", "1000"):
            r = self.search(self.sph, "garden", params={"page_size": size})
            self.assertEqual(len(r.json["results"]), 3, size)
        r = self.search(self.sph, "garden", params={"page_size": "1000", "page": "10"})
        self.assertStatus(r, 200)

    # v2 errors ----------------------------------------------------------

    def test_not_found_bodies(self):
        self.assertEqual(self.server.get("/api/v2/search/").json, NO_PROJECT)
        r = self.server.get("/api/v2/search/?q=x&project=nope&version=latest")
        self.assertDetail(r, 404, NO_PROJECT["detail"])
        r = self.server.get("/api/v2/search/?q=x&project=%s" % self.sph)
        self.assertDetail(r, 404, NO_VERSION["detail"])
        r = self.server.get("/api/v2/search/?q=x&project=%s&version=nope" % self.sph)
        self.assertDetail(r, 404, NO_VERSION["detail"])
        # Any version of the project, even one never built, is found.
        r = self.server.get("/api/v2/search/?q=x&project=%s&version=stable" % self.sph)
        self.assertIn(r.status, (200, 404))

    def test_bad_request_bodies(self):
        r = self.server.get("/api/v2/search/?project=%s&version=latest" % self.sph)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"q": ["This query param is required"]})
        self.assertEqual(self.search(self.sph, "").json["count"], 0)
        for page in ("0", "-1", "abc", "1.5", ""):
            r = self.search(self.sph, "garden", params={"page": page})
            self.assertStatus(r, 400)
            self.assertEqual(r.json, ["Invalid page"], page)
        r = self.search(self.sph, "garden", params={"page": "11", "page_size": "100"})
        self.assertEqual((r.status, r.json), (400, ["Page number is too high."]))
        r = self.search(self.sph, "garden", params={"page": "99999999999999999999999"})
        self.assertEqual((r.status, r.json), (400, ["Page number is too high."]))
        r = self.search(self.sph, "a" * 1001)
        self.assertEqual((r.status, r.json), (400, {"q": ["Ensure this field has no more than 1000 characters."]}))
        r = self.search(self.sph, "w " * 65)
        self.assertEqual((r.status, r.json), (400, {"q": ["Ensure the query has no more than 64 words."]}))

    def test_methods_tokens_and_slash(self):
        r = self.server.post("/api/v2/search/?q=x&project=%s&version=latest" % self.sph)
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        # The service's search view serves GET only: OPTIONS is not
        # allowed (CORS preflights are answered before it).
        self.assertEqual(r.header("Allow"), "GET, HEAD")
        r = self.search(self.sph, "garden", token="0" * 40)
        self.assertDetail(r, 401, "Invalid token.")
        r = self.server.get("/api/v2/search?q=garden&project=%s&version=latest" % self.sph)
        self.assertStatus(r, 301)
        self.assertEqual(r.header("Location"), "/api/v2/search/?q=garden&project=%s&version=latest" % self.sph)
        self.assertStatus(self.server.request("HEAD", "/api/v2/search/?q=garden&project=%s&version=latest"
                                              % self.sph), 200)

    def test_private_versions(self):
        store = Store(self.server)
        md = store.rows("SELECT id FROM projects WHERE slug = ?", (self.md,))[0][0]
        store.execute("UPDATE versions SET privacy_level = 'private' WHERE project_id = ? AND slug = 'latest'",
                      (md,))
        try:
            self.assertDetail(self.search(self.md, "care"), 403, "Authentication credentials were not provided.")
            self.assertDetail(self.search(self.md, "care", token=self.other), 403,
                              "You do not have permission to perform this action.")
            self.assertEqual(self.search(self.md, "care", token=self.token).json["count"], 1)
            # The parent's search leaves the private subproject version out
            # unless the requester may read it.
            self.assertEqual(self.search(self.sph, "installer").json["count"], 0)
            self.assertEqual(self.search(self.sph, "installer", token=self.other).json["count"], 0)
            self.assertEqual(self.search(self.sph, "installer", token=self.token).json["count"], 1)
        finally:
            store.execute("UPDATE versions SET privacy_level = 'public' WHERE project_id = ? AND slug = 'latest'",
                          (md,))
        self.assertEqual(self.search(self.md, "care").json["count"], 1)

    def test_docs_hosts_answer_under_underscore(self):
        path = "/_/api/v2/search/?q=prune&project=%s&version=latest" % self.sph
        on_docs = self.server.get(path, host=self.docs_host,
                                  headers={"Origin": "https://elsewhere.example"})
        self.assertStatus(on_docs, 200)
        self.assertEqual(on_docs.json, self.search(self.sph, "prune").json)
        self.assertEqual(self.server.get(path).json, on_docs.json)
        self.assertEqual(on_docs.header("Access-Control-Allow-Origin"), "*")
        r = self.server.get("/_/api/v2/search/?q=x&project=nope&version=latest", host=self.docs_host)
        self.assertDetail(r, 404, NO_PROJECT["detail"])
        # Other /_/ paths stay the docs host's.
        self.assertStatus(self.server.get("/_/nothing/", host=self.docs_host), 404)

    # v3 -----------------------------------------------------------------

    def v3(self, q, **kw):
        return self.server.get("/api/v3/search/?" + urllib.parse.urlencode({"q": q}), **kw)

    def test_v3_exact_body(self):
        r = self.v3("project:%s prune" % self.sph)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json, {
            "count": 1, "next": None, "previous": None, "query": "prune",
            "projects": [{"slug": self.sph, "versions": [{"slug": "latest"}]}],
            "results": [self.prune_page(project={"slug": self.sph, "alias": None},
                                        version={"slug": "latest"})]})
        r2 = self.server.get("/_/api/v3/search/?" + urllib.parse.urlencode({"q": "project:%s prune" % self.sph}),
                             host=self.docs_host, headers={"Origin": "https://elsewhere.example"})
        self.assertEqual(r2.json, r.json)
        self.assertIsNone(r2.header("Access-Control-Allow-Origin"))

    def test_v3_arguments(self):
        r = self.v3("subprojects:%s installer" % self.sph)
        self.assertEqual(r.json["projects"], [{"slug": self.md, "versions": [{"slug": "latest"}]},
                                              {"slug": self.sph, "versions": [{"slug": "latest"}]}])
        self.assertEqual([(x["project"], x["path"]) for x in r.json["results"]],
                         [({"slug": self.md, "alias": "child"}, "/projects/child/en/latest/guide/install.html")])
        # Subprojects are not searched without subprojects:.
        self.assertEqual(self.v3("project:%s installer" % self.sph).json["count"], 0)
        self.assertEqual(self.v3("project:%s/latest garden" % self.sph).json["count"], 3)
        for q in ("prune", "project:nope prune", "project:%s/nope prune" % self.sph, "user:@me prune"):
            r = self.v3(q)
            self.assertEqual((r.json["count"], r.json["projects"], r.json["query"]), (0, [], "prune"), q)
        r = self.v3("user:@me garden", token=self.token)
        self.assertEqual(sorted(p["slug"] for p in r.json["projects"]), sorted([self.sph, self.md, self.mk]))
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(self.v3("project:%s  project\\:x   garden" % self.sph).json["query"], "project:x garden")

    def test_v3_errors(self):
        for path in ("/api/v3/search/", "/api/v3/search/?q="):
            r = self.server.get(path)
            self.assertStatus(r, 400)
            self.assertEqual(r.json, {"q": ["This query parameter is required"]})
        r = self.server.get("/api/v3/search/?q=project:%s+garden&page=0" % self.sph)
        self.assertEqual((r.status, r.json), (400, ["Invalid page"]))
        r = self.server.get("/api/v3/search/?q=project:%s+garden&page_size=1&page=2" % self.sph)
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(r.json["previous"], "http://%s:%d/api/v3/search/?page_size=1&q=project%%3A%s+garden"
                         % (self.server.host, self.server.port, self.sph))
        self.assertDetail(self.v3("garden", token="0" * 40), 401, "Invalid token.")

    # Hostile input ----------------------------------------------------

    def test_hostile_queries(self):
        self.assertGreaterEqual(len(HOSTILE), 30)
        for q in HOSTILE:
            for path in ("/api/v2/search/?project=%s&version=latest&q=" % self.sph,
                         "/api/v3/search/?q=project:%s+" % self.sph):
                r = self.server.get(path + urllib.parse.quote(q.encode("utf-8")))
                self.assertIn(r.status, (200, 400), (q[:80], r))
                self.assertNotIn(b"fts5", r.body.lower(), (q[:80], r))
                self.assertNotIn(b"syntax error", r.body.lower(), (q[:80], r))
                if r.status == 400:
                    self.assertEqual(list(r.json), ["q"], (q[:80], r))
        # 10 KB of text is past the server's URI limit before any search.
        r = self.server.get("/api/v2/search/?project=%s&version=latest&q=%s" % (self.sph, "x" * 10240))
        self.assertDetail(r, 414, "Request URI too long.")
        # Invalid UTF-8 is refused at the boundary (docs/hardening.md), so
        # it is never echoed into a body; encoded control bytes are text.
        for raw in ("%FF%FEgarden", "%C3", "garden%E2%82", "%ED%A0%80"):
            r = self.server.get("/api/v2/search/?project=%s&version=latest&q=%s" % (self.sph, raw))
            self.assertDetail(r, 400, "Malformed request: the query string is not valid UTF-8.")
        r = self.server.get("/api/v2/search/?project=%s&version=latest&q=%%01%%02garden" % self.sph)
        self.assertStatus(r, 200)

    # Indexing -----------------------------------------------------------

    def test_build_records_the_indexing(self):
        store = Store(self.server)
        rows = store.rows("SELECT command, output, exit_code FROM build_commands WHERE build_id = ? ORDER BY id",
                          (self.builds[self.sph]["id"],))
        indexing = [r for r in rows if r[0] == "lectern reindex %s latest" % self.sph]
        self.assertEqual(len(indexing), 1, rows)
        self.assertRegex(indexing[0][1], r"^Indexed 3 pages \(\d+ sections and domain entries\); "
                                         r"3 ignored by search.ignore; 0 could not be parsed.\n$")
        self.assertEqual(indexing[0][2], 0)

    def test_zz_deactivation_drops_and_reindex_restores(self):
        store = Store(self.server)
        self.assertEqual(self.search(self.mk, "tulips").json["count"], 1)
        store.execute("UPDATE versions SET active = 0 WHERE slug = 'latest' AND project_id = "
                      "(SELECT id FROM projects WHERE slug = ?)", (self.mk,))
        self.assertEqual(self.search(self.mk, "tulips").json["count"], 0)
        self.assertEqual(store.rows("SELECT count(*) FROM search_pages p JOIN versions v ON v.id = p.version_id "
                                    "JOIN projects j ON j.id = v.project_id WHERE j.slug = ?", (self.mk,)),
                         [(0,)])
        done = self.server.lectern("reindex", self.mk, "latest")
        self.assertEqual(done.stdout, "%s/latest: 2 pages, 2 sections and domain entries, 1 ignored, "
                                      "0 unparsable\n" % self.mk)
        self.assertEqual(self.search(self.mk, "tulips").json["count"], 1)
        done = self.server.lectern("reindex", self.mk, "nope", check=False)
        self.assertEqual(done.returncode, 1)
        done = self.server.lectern("reindex", "nope", check=False)
        self.assertEqual(done.returncode, 1)
        done = self.server.lectern("reindex")
        self.assertIn("%s/latest: 3 pages" % self.sph, done.stdout)
        self.assertNotIn(self.mk, done.stdout)  # inactive: skipped


if __name__ == "__main__":
    main()
