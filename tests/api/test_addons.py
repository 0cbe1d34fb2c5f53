"""The addons' API, /_/addons/ on a docs host (issue 39): the service's
answer for api-version 1 and 2, compared key by key with the key structure
of its own expected answers (fixtures_service/addons-v1.json and -v2.json,
from readthedocs/proxito/tests/responses/), its error bodies, the
versions the flyout lists and their order, translations, the subprojects
search filter, doc_diff's base URL, and a private version refused as its
pages are."""
import json
import os
import urllib.parse

from lectern_test import ServerTestCase, Store, main
from test_service_conformance import differences, structure

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures_service")
T0 = Store.T0
TAG = b'<script async src="/_/static/lectern/addons.js"></script>'
PAGE = ("<!DOCTYPE html><html><HEAD><title>Page</title></HEAD>"
        "<body>" + "<p>words</p>" * 100 + "</body></html>")
PR_PAGE = ("<html><head><title>T</title></head><body><div role=\"main\">"
           "<h1 id=\"t\">T</h1><p>%s</p></div></body></html>")
NEED_SLUGS = ("'project-slug' and 'version-slug' GET attributes are required"
              " when not sending 'url'")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)["keys"]


class AddonsTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.owner = cls.server.token("owner")
        for name in ("Proj", "Proj Es", "Child", "Secret"):
            cls.server.import_project(cls.owner, name)
        s = cls.store
        for slug in ("latest", "stable", "v1.0", "dev"):
            s.version("proj", slug)
        s.version("proj", "private", privacy="private")
        s.version("proj", "old")
        s.execute("UPDATE versions SET hidden = 1 WHERE slug = 'old'")
        s.version("proj", "unbuilt")
        s.execute("UPDATE versions SET built = 0 WHERE slug = 'unbuilt'")
        s.version("proj", "gone", active=0)
        s.publish("proj", "latest", {"index.html": "<h1>Home</h1>",
                                     "guide/index.html": "<h1>Guide</h1>",
                                     "page.html": PAGE})
        s.execute("UPDATE projects SET language = 'es', main_language_project_id ="
                  " (SELECT id FROM projects WHERE slug = 'proj') WHERE slug = 'proj-es'")
        s.execute("INSERT INTO subprojects (parent_id, child_id, alias, created) VALUES"
                  " ((SELECT id FROM projects WHERE slug = 'proj'),"
                  " (SELECT id FROM projects WHERE slug = 'child'), 'child', ?)", (T0,))
        cls.server.import_project(cls.owner, "Order")
        for slug in ("latest", "stable", "1.0", "1.2", "1.12", "2.0", "2020.01.05", "a-slug",
                     "z-slug"):
            s.version("order", slug)
        # The service's test_sort_versions_custom_pattern, with versions of
        # another pattern too.
        cls.server.import_project(cls.owner, "Pattern")
        for slug in ("latest", "stable", "v1.0", "v1.1", "v2.3", "v1.1.0", "v2.3rc1", "invalid",
                     "2.5.3", "2022.01.22", "1.1", "another-invalid", "1.2", "1.2.1", "1.2.1-rc",
                     "1.10", "1.2-beta"):
            s.version("pattern", slug)
        # A pull request's build (version 7) and latest, as publishing leaves
        # them: each version's link to its build's kept output.
        cls.server.import_project(cls.owner, "Pr")
        s.version("pr", "latest")
        s.version("pr", "7")
        s.execute("UPDATE versions SET type = 'external' WHERE slug = '7'")
        outputs = {900: {"index.html": PR_PAGE % "Welcome.", "gone.html": PR_PAGE % "Old.",
                         "same.html": PR_PAGE % "Same."},
                   901: {"index.html": PR_PAGE % "Welcome, changed.", "new.html": PR_PAGE % "New.",
                         "same.html": PR_PAGE % "Same."}}
        for build, files in outputs.items():
            for name, text in files.items():
                path = os.path.join(cls.server.data, "outputs", str(build), "html", name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
        os.makedirs(os.path.join(cls.server.data, "published", "pr"), exist_ok=True)
        for version, build in (("latest", 900), ("7", 901)):
            os.symlink("../../outputs/%d" % build,
                       os.path.join(cls.server.data, "published", "pr", version))
        for slug in ("proj-es", "child", "secret"):
            s.version(slug, "latest")
        s.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = 'secret'")
        s.execute("INSERT INTO builds (project_id, version_id, state, success, commit_sha,"
                  " created, finished, duration) SELECT project_id, id, 'finished', 1,"
                  " 'a1b2c3', ?, ?, 60 FROM versions WHERE slug = 'latest' AND project_id ="
                  " (SELECT id FROM projects WHERE slug = 'proj')", (T0, T0 + 60000000))
        cls.host = "proj.localhost:%d" % cls.server.port
        cls.docs = "http://%s" % cls.host

    def addons(self, token=None, host=None, **query):
        query.setdefault("api-version", "1.0.0")
        query.setdefault("client-version", "0.6.0")
        return self.server.get("/_/addons/?" + urllib.parse.urlencode(query),
                               host=host or self.host, token=token)

    def settings(self, **values):
        r = self.server.patch("/api/v3/projects/proj/addons/", values, token=self.owner)
        self.assertStatus(r, 200)
        return r.json

    def test_v1_has_the_service_keys(self):
        r = self.addons(url=self.docs + "/en/latest/")
        self.assertStatus(r, 200)
        self.assertEqual(differences(fixture("addons-v1.json"), structure(r.json)), [])
        body = r.json
        self.assertEqual(body["api_version"], "1")
        self.assertEqual(body["projects"]["current"]["slug"], "proj")
        self.assertEqual(body["versions"]["current"]["slug"], "latest")
        self.assertEqual(body["builds"]["current"]["commit"], "a1b2c3")
        self.assertEqual(body["readthedocs"]["resolver"]["filename"], "/index.html")
        self.assertEqual(body["domains"]["dashboard"], "localhost:%d" % self.server.port)
        self.assertEqual(body["addons"]["search"]["default_filter"], "project:proj/latest")
        self.assertEqual(body["addons"]["doc_diff"]["base_url"],
                         self.docs + "/en/latest/index.html")
        self.assertEqual(body["addons"]["flyout"], {"enabled": True, "position": None})
        self.assertEqual(body["addons"]["notifications"],
                         {"enabled": True, "show_on_latest": True,
                          "show_on_non_stable": True, "show_on_external": False})
        self.assertEqual(body["addons"]["linkpreviews"], {"enabled": False, "selector": None})

    def test_v2(self):
        r = self.addons(url=self.docs + "/en/latest/", **{"api-version": "2.0.0"})
        self.assertStatus(r, 200)
        self.assertEqual(r.json, {"api_version": "2",
                                    "comment": "Undefined yet. Use v1 for now"})
        self.assertEqual(differences(fixture("addons-v2.json"), structure(r.json)), [])

    def test_errors(self):
        for query in ({"project-slug": "proj"}, {"version-slug": "latest"}, {}):
            r = self.addons(**query)
            self.assertEqual((r.status, r.json), (400, {"error": NEED_SLUGS}), query)
        url = self.docs + "/en/latest/"
        cases = (("", "'api-version' GET attribute is required"),
                 ("3.0.0", "The version specified in 'api-version' is currently"
                           " not supported"),
                 ("one", "The version specifified in 'api-version' is invalid"))
        for api, message in cases:
            r = self.addons(url=url, **{"api-version": api})
            self.assertEqual((r.status, r.json), (400, {"error": message}), api)
        r = self.addons(**{"project-slug": "nope", "version-slug": "latest"})
        self.assertDetail(r, 404, "No Project matches the given query.")
        r = self.addons(url="http://nope.localhost:%d/en/latest/" % self.server.port)
        self.assertDetail(r, 404, "There is no project with the 'project-slug' requested")

    def test_without_a_version(self):
        r = self.addons(**{"project-slug": "proj", "version-slug": "not-found"})
        self.assertStatus(r, 200)
        body = r.json
        self.assertIsNone(body["versions"]["current"])
        self.assertIsNone(body["builds"]["current"])
        self.assertIsNone(body["readthedocs"]["resolver"]["filename"])
        self.assertNotIn("doc_diff", body["addons"])
        self.assertEqual(body["addons"]["search"]["default_filter"], "project:proj")
        # A URL of the project's host that names no version: the same.
        r = self.addons(url=self.docs + "/en/nothing/")
        self.assertIsNone(r.json["versions"]["current"])

    def test_active_versions_and_their_order(self):
        slugs = lambda r: [v["slug"] for v in r.json["versions"]["active"]]
        r = self.addons(url=self.docs + "/en/latest/")
        self.assertEqual(slugs(r), ["latest", "stable", "v1.0", "dev"])
        r = self.addons(url=self.docs + "/en/latest/", token=self.owner)
        self.assertEqual(slugs(r), ["latest", "stable", "v1.0", "private", "dev"])
        self.assertEqual(r.header("Cache-Control"), "private")
        self.settings(flyout_sorting="alphabetically")
        try:
            r = self.addons(url=self.docs + "/en/latest/")
            self.assertEqual(slugs(r), ["v1.0", "stable", "latest", "dev"])
        finally:
            self.store.execute("DELETE FROM project_addons")

    def test_flyout_sorting_as_the_service(self):
        """The service's test_version_ordering, case by case."""
        cases = (
            ("semver-readthedocs-compatible", True,
             "latest stable 2020.01.05 2.0 1.12 1.2 1.0 z-slug a-slug"),
            ("semver-readthedocs-compatible", False,
             "latest stable 2020.01.05 2.0 1.12 1.2 1.0 z-slug a-slug"),
            ("alphabetically", True, "z-slug stable latest a-slug 2020.01.05 2.0 1.2 1.12 1.0"),
            ("alphabetically", False, "z-slug stable latest a-slug 2020.01.05 2.0 1.2 1.12 1.0"),
            ("python-packaging", True,
             "latest stable 2020.01.05 2.0 1.12 1.2 1.0 z-slug a-slug"),
            ("python-packaging", False,
             "2020.01.05 2.0 1.12 1.2 1.0 z-slug stable latest a-slug"),
            ("calver", True, "latest stable 2020.01.05 z-slug a-slug 2.0 1.2 1.12 1.0"),
            ("calver", False, "2020.01.05 z-slug stable latest a-slug 2.0 1.2 1.12 1.0"),
        )
        docs = "http://order.localhost:%d/en/latest/" % self.server.port
        try:
            for sorting, first, want in cases:
                r = self.server.patch("/api/v3/projects/order/addons/", {
                    "flyout_sorting": sorting,
                    "flyout_sorting_latest_stable_at_beginning": first}, token=self.owner)
                self.assertStatus(r, 200)
                r = self.addons(url=docs, host="order.localhost:%d" % self.server.port)
                self.assertEqual(" ".join(v["slug"] for v in r.json["versions"]["active"]),
                                 want, (sorting, first))
        finally:
            self.store.execute("DELETE FROM project_addons")

    def test_flyout_sorting_by_custom_pattern(self):
        """The service's test_sort_versions_custom_pattern (vMAJOR.MINOR),
        then a pattern with optional parts and a tag, ordered as bumpver's
        version tuples compare (a tag as text: "rc" above "final", and
        "final" above "beta"), and a pattern that is none."""
        host = "pattern.localhost:%d" % self.server.port
        service = ("latest stable v2.3 v1.1 v1.0 v2.3rc1 v1.1.0 invalid another-invalid "
                   "2022.01.22 2.5.3 1.2.1-rc 1.2.1 1.2-beta 1.2 1.10 1.1")
        cases = (
            ("vMAJOR.MINOR", True, service),
            ("vMAJOR.MINOR", False, "v2.3 v1.1 v1.0 v2.3rc1 v1.1.0 stable latest invalid "
                                    "another-invalid 2022.01.22 2.5.3 1.2.1-rc 1.2.1 1.2-beta "
                                    "1.2 1.10 1.1"),
            ("MAJOR.MINOR[.PATCH][-TAG]", True,
             "latest stable 2022.01.22 2.5.3 1.10 1.2.1-rc 1.2.1 1.2 1.2-beta 1.1 v2.3rc1 v2.3 "
             "v1.1.0 v1.1 v1.0 invalid another-invalid"),
            ("[MAJOR", True, "latest stable v2.3rc1 v2.3 v1.1.0 v1.1 v1.0 invalid another-invalid "
                             "2022.01.22 2.5.3 1.2.1-rc 1.2.1 1.2-beta 1.2 1.10 1.1"),
        )
        try:
            for pattern, first, want in cases:
                r = self.server.patch("/api/v3/projects/pattern/addons/", {
                    "flyout_sorting": "custom-pattern",
                    "flyout_sorting_custom_pattern": pattern,
                    "flyout_sorting_latest_stable_at_beginning": first}, token=self.owner)
                self.assertStatus(r, 200)
                r = self.addons(url="http://%s/en/latest/" % host, host=host)
                self.assertEqual(" ".join(v["slug"] for v in r.json["versions"]["active"]),
                                 want, (pattern, first))
        finally:
            self.store.execute("DELETE FROM project_addons")

    def test_filetreediff_of_a_pull_request(self):
        host = "pr.localhost:%d" % self.server.port
        docs = self.url_of("pr", "7")
        r = self.addons(url=docs, host=host)
        self.assertStatus(r, 200)
        tree = r.json["addons"]["filetreediff"]
        base = self.url_of("pr", "latest")
        self.assertEqual(tree, {"enabled": True, "outdated": False, "diff": {
            "added": [{"filename": "new.html",
                       "urls": {"current": docs + "new.html", "base": base + "new.html"}}],
            "deleted": [{"filename": "gone.html",
                         "urls": {"current": docs + "gone.html", "base": base + "gone.html"}}],
            "modified": [{"filename": "index.html",
                          "urls": {"current": docs + "index.html",
                                   "base": base + "index.html"}}]}})
        # Asked again: the kept answer, the same.
        self.assertEqual(self.addons(url=docs, host=host).json["addons"]["filetreediff"], tree)
        # Not on latest itself, nor when the project turned it off.
        r = self.addons(url=base, host=host)
        self.assertEqual(r.json["addons"]["filetreediff"], {"enabled": True})
        self.assertStatus(self.server.patch("/api/v3/projects/pr/addons/",
                                            {"filetreediff_enabled": False},
                                            token=self.owner), 200)
        try:
            r = self.addons(url=docs, host=host)
            self.assertEqual(r.json["addons"]["filetreediff"], {"enabled": False})
        finally:
            self.store.execute("DELETE FROM project_addons")

    def url_of(self, project, version):
        """A version's root URL, as /_/addons/ gives it."""
        r = self.addons(host="%s.localhost:%d" % (project, self.server.port),
                        **{"project-slug": project, "version-slug": version})
        self.assertStatus(r, 200)
        return r.json["versions"]["current"]["urls"]["documentation"]

    def test_same_page_and_doc_diff(self):
        r = self.addons(url=self.docs + "/en/latest/guide/")
        body = r.json
        self.assertEqual(body["readthedocs"]["resolver"]["filename"], "/guide/index.html")
        self.assertEqual(body["addons"]["doc_diff"]["base_url"],
                         self.docs + "/en/latest/guide/index.html")
        self.assertEqual(body["versions"]["active"][0]["urls"]["documentation"],
                         self.docs + "/en/latest/")

    def test_translations(self):
        r = self.addons(url=self.docs + "/en/latest/")
        self.assertEqual([p["slug"] for p in r.json["projects"]["translations"]],
                         ["proj-es"])
        r = self.addons(url=self.docs + "/es/latest/")
        body = r.json
        self.assertEqual(body["projects"]["current"]["slug"], "proj-es")
        self.assertEqual(body["projects"]["current"]["translation_of"], {"slug": "proj"})
        self.assertEqual([p["slug"] for p in body["projects"]["translations"]], ["proj"])

    def test_subprojects_filter(self):
        want = [["Include subprojects", "subprojects:proj/latest", True]]
        r = self.addons(url=self.docs + "/en/latest/")
        self.assertEqual(r.json["addons"]["search"]["filters"], want)
        r = self.addons(url=self.docs + "/projects/child/en/latest/")
        body = r.json
        self.assertEqual(body["projects"]["current"]["slug"], "child")
        self.assertEqual(body["addons"]["search"]["filters"], want)
        r = self.addons(url=self.docs + "/es/latest/")
        self.assertEqual(r.json["addons"]["search"]["filters"], [])

    def test_private_refused_as_its_pages(self):
        url = self.docs + "/en/private/"
        page = self.server.get("/en/private/", host=self.host)
        r = self.addons(url=url)
        self.assertEqual((page.status, r.status), (404, 404))
        r = self.addons(**{"project-slug": "proj", "version-slug": "private"})
        self.assertStatus(r, 404)
        r = self.addons(url=url, token=self.owner)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["versions"]["current"]["privacy_level"], "private")
        secret = "http://secret.localhost:%d/en/latest/" % self.server.port
        r = self.addons(url=secret, host="secret.localhost:%d" % self.server.port)
        self.assertStatus(r, 404)

    def test_pages_get_the_script(self):
        page = PAGE.encode()
        want = page.replace(b"</HEAD>", TAG + b"</HEAD>", 1)
        r = self.server.get("/en/latest/page.html", host=self.host)
        self.assertEqual(r.body, want)
        self.assertTrue(r.header("ETag").endswith('-a"'), r.header("ETag"))
        again = self.server.get("/en/latest/page.html", host=self.host,
                                headers={"If-None-Match": r.header("ETag")})
        self.assertStatus(again, 304)
        # A range is of the page as sent; gzip is of it too.
        r = self.server.get("/en/latest/page.html", host=self.host,
                            headers={"Range": "bytes=60-119"})
        self.assertEqual((r.status, r.body), (206, want[60:120]))
        r = self.server.get("/en/latest/page.html", host=self.host,
                            headers={"Accept-Encoding": "gzip"})
        self.assertEqual(r.header("Content-Encoding"), "gzip")
        import gzip
        self.assertEqual(gzip.decompress(r.body), want)
        # A page without a head is sent as it is.
        r = self.server.get("/en/latest/", host=self.host)
        self.assertEqual(r.body, b"<h1>Home</h1>")
        # The script itself.
        r = self.server.get("/_/static/lectern/addons.js", host=self.host)
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "application/javascript")
        self.assertIn(b"readthedocs-addons-data-ready", r.body)

    def test_a_project_turns_them_off(self):
        self.settings(enabled=False)
        try:
            r = self.server.get("/en/latest/page.html", host=self.host)
            self.assertEqual(r.body, PAGE.encode())
            self.assertFalse(r.header("ETag").endswith('-a"'))
        finally:
            self.store.execute("DELETE FROM project_addons")
        r = self.server.get("/en/latest/page.html", host=self.host)
        self.assertIn(TAG, r.body)

    def test_settings_in_the_v3_api(self):
        path = "/api/v3/projects/proj/addons/"
        r = self.server.get(path)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["flyout_sorting"], "semver-readthedocs-compatible")
        self.assertEqual((r.json["enabled"], r.json["linkpreviews_enabled"],
                          r.json["flyout_position"]), (True, False, None))
        self.assertEqual(len(r.json), 23)
        self.assertStatus(self.server.patch(path, {"flyout_enabled": False}), 401)
        other = self.server.token("other")
        self.assertStatus(self.server.patch(path, {"flyout_enabled": False}, token=other), 403)
        self.assertStatus(self.server.get("/api/v3/projects/secret/addons/"), 404)
        try:
            body = self.settings(flyout_position="top-left", linkpreviews_enabled=True,
                                 options_base_version="v1.0", unknown="ignored")
            self.assertEqual((body["flyout_position"], body["linkpreviews_enabled"],
                              body["flyout_enabled"]), ("top-left", True, True))
            r = self.addons(url=self.docs + "/en/dev/guide/")
            self.assertEqual(r.json["addons"]["flyout"], {"enabled": True, "position": "top-left"})
            self.assertTrue(r.json["addons"]["linkpreviews"]["enabled"])
            self.assertEqual(r.json["addons"]["doc_diff"]["base_url"],
                             self.docs + "/en/v1.0/guide/index.html")
            for values, field, message in (
                    ({"flyout_sorting": "random"}, "flyout_sorting",
                     '"random" is not a valid choice.'),
                    ({"flyout_sorting": None}, "flyout_sorting", "This field may not be null."),
                    ({"options_base_version": "nope"}, "options_base_version",
                     "Select a valid choice. That choice is not one of the available choices."),
                    ({"flyout_enabled": "maybe"}, "flyout_enabled", "Must be a valid boolean.")):
                r = self.server.patch(path, values, token=self.owner)
                self.assertEqual((r.status, r.json), (400, {field: [message]}), values)
            self.assertEqual(self.server.get(path).json["flyout_position"], "top-left")
            body = self.settings(flyout_position=None)
            self.assertIsNone(body["flyout_position"])
        finally:
            self.store.execute("DELETE FROM project_addons")


if __name__ == "__main__":
    main()
