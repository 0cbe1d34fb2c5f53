"""The reader's addons on `lectern preview` (issue 39): every HTML page the
preview serves gets the docs host's addons tag before </head>, the script
is served from the same path, and /_/addons/ answers for the working tree
(one project named after the tree's directory, one version "working-tree")
with the keys and value types of the service's v1.json, the addons the
preview cannot serve (search, link previews, visual diff, file tree diff,
notifications) turned off, and the service's error bodies. In headless
Chromium (skipped when it is not installed) a Markdown page and a Sphinx
page of a preview show the flyout, with the working tree as the version,
and no JavaScript error."""
import json
import os
import unittest
import urllib.parse

from cdp import Browser
from lectern_test import main
from test_addons import fixture
from test_preview import PreviewTestCase, SCRIPT_MARK, have_sphinx
from test_service_conformance import differences, structure

ADDONS_TAG = b'<script async src="/_/static/lectern/addons.js"></script>'
CHROMIUM = "/usr/bin/chromium"
SHADOW = "document.querySelector('lectern-flyout')?.shadowRoot"


class PreviewAddonsTest(PreviewTestCase):
    TREE = {
        "index.md": "# Home\n\nWelcome home.\n",
        "guide/index.md": "# Guide\n\nThe guide.\n",
    }

    @classmethod
    def make_tree(cls):
        tree = os.path.join(cls.tmp, "My Notes")
        for rel, text in cls.TREE.items():
            path = os.path.join(tree, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return tree

    def addons(self, host=None, **query):
        path = "/_/addons/?" + urllib.parse.urlencode(query)
        status, headers, body = self.preview.request(
            "GET", path, {"Host": host} if host else None)
        self.assertEqual(headers["Content-Type"], "application/json")
        return status, json.loads(body)

    def origin(self):
        return "http://127.0.0.1:%d" % self.preview.port

    def test_pages_get_the_tag_before_head(self):
        _, _, body = self.wait_served("/guide/index.html", b"The guide.")
        self.assertEqual(body.count(ADDONS_TAG), 1)
        self.assertIn(ADDONS_TAG + b"</head>", body)
        # The reload script still goes before </body>.
        self.assertEqual(body.count(SCRIPT_MARK), 1)
        # The preview's own pages too (a missing page).
        status, _, body = self.preview.get("/nowhere.html")
        self.assertEqual(status, 404)
        self.assertIn(ADDONS_TAG + b"</head>", body)
        status, _, css = self.preview.get("/_lectern/site.css")
        self.assertEqual(status, 200)
        self.assertNotIn(ADDONS_TAG, css)

    def test_script_is_served(self):
        status, headers, body = self.preview.get("/_/static/lectern/addons.js")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "application/javascript")
        self.assertIn(b"readthedocs-addons-data-ready", body)

    def test_v1_has_the_service_keys(self):
        self.settled()
        status, body = self.addons(**{"api-version": "1", "client-version": "0.6.0",
                                      "url": self.origin() + "/guide/?x=1#top"})
        self.assertEqual(status, 200, body)
        self.assertEqual(differences(fixture("addons-v1.json"), structure(body)), [])
        project = body["projects"]["current"]
        self.assertEqual((project["slug"], project["name"]), ("my-notes", "My Notes"))
        self.assertEqual(project["urls"]["documentation"], self.origin() + "/")
        self.assertEqual(body["projects"]["translations"], [])
        self.assertEqual(body["versions"]["current"]["slug"], "working-tree")
        self.assertEqual([v["slug"] for v in body["versions"]["active"]], ["working-tree"])
        self.assertEqual(body["builds"]["current"]["id"], self.preview.status()["published"])
        self.assertEqual(body["readthedocs"]["resolver"]["filename"], "/guide/index.html")
        addons = body["addons"]
        self.assertTrue(addons["flyout"]["enabled"])
        # Nothing points at what the preview cannot answer.
        for name in ("search", "linkpreviews", "doc_diff", "filetreediff",
                     "notifications", "hotkeys", "analytics", "customscript"):
            self.assertFalse(addons[name]["enabled"], name)
        self.assertIsNone(addons["doc_diff"]["base_url"])
        # The origin the page was asked on.
        status, body = self.addons(host="localhost:%d" % self.preview.port,
                                   **{"api-version": "1",
                                      "url": "http://localhost:%d/" % self.preview.port})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["versions"]["current"]["urls"]["documentation"],
                         "http://localhost:%d/" % self.preview.port)
        self.assertEqual(body["readthedocs"]["resolver"]["filename"], "/index.html")

    def test_slugs_and_v2(self):
        status, body = self.addons(**{"api-version": "1", "project-slug": "my-notes",
                                      "version-slug": "working-tree"})
        self.assertEqual(status, 200, body)
        self.assertIsNone(body["readthedocs"]["resolver"]["filename"])
        # Another version: the project without one, as a docs host says.
        status, body = self.addons(**{"api-version": "1", "project-slug": "my-notes",
                                      "version-slug": "latest"})
        self.assertEqual(status, 200, body)
        self.assertIsNone(body["versions"]["current"])
        status, body = self.addons(**{"api-version": "2.0.0", "url": self.origin() + "/"})
        self.assertEqual((status, body), (200, {"api_version": "2",
                                                "comment": "Undefined yet. Use v1 for now"}))
        self.assertEqual(differences(fixture("addons-v2.json"), structure(body)), [])

    def test_errors(self):
        url = self.origin() + "/"
        cases = [
            ({"api-version": "1"}, 400, "error",
             "'project-slug' and 'version-slug' GET attributes are required when not"
             " sending 'url'"),
            ({"url": url}, 400, "error", "'api-version' GET attribute is required"),
            ({"url": url, "api-version": "x.y"}, 400, "error",
             "The version specifified in 'api-version' is invalid"),
            ({"url": url, "api-version": "3"}, 400, "error",
             "The version specified in 'api-version' is currently not supported"),
            ({"url": "http://example.com/", "api-version": "1"}, 404, "detail",
             "There is no project with the 'project-slug' requested"),
            ({"project-slug": "other", "version-slug": "working-tree", "api-version": "1"},
             404, "detail", "No Project matches the given query."),
        ]
        for query, want, key, message in cases:
            status, body = self.addons(**query)
            self.assertEqual((status, body), (want, {key: message}), query)


class PreviewAddonsBrowserMixin:
    """The flyout in Chromium on a page of the preview, with no
    JavaScript error on the page."""

    PAGE = "/"

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(CHROMIUM):
            raise unittest.SkipTest("%s is not installed" % CHROMIUM)
        super().setUpClass()
        cls.browser = Browser(CHROMIUM, None, ("--window-size=1280,900",))

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        super().tearDownClass()

    def test_flyout_shows(self):
        self.settled()
        b = self.browser
        b.navigate("http://127.0.0.1:%d%s" % (self.preview.port, self.PAGE))
        b.wait("document.documentElement.dataset.lecternAddons === 'ready'")
        b.evaluate("%s.querySelector('.toggle').click()" % SHADOW)
        b.wait("!%s.querySelector('.menu').hidden" % SHADOW)
        toggle = b.evaluate("%s.querySelector('.toggle').textContent" % SHADOW)
        self.assertTrue(toggle.startswith("%s \u00b7 working-tree" % self.SLUG), toggle)
        groups = b.evaluate("Array.from(%s.querySelectorAll('dt')).map(d => d.textContent)"
                            % SHADOW)
        self.assertEqual(groups, ["Versions", "On Lectern"])
        links = b.evaluate("Array.from(%s.querySelectorAll('a')).map(a => a.href)" % SHADOW)
        self.assertNotIn("", links)
        self.assertFalse([h for h in links if "null" in h or "undefined" in h], links)
        # The working tree's link is this page.
        self.assertEqual(links[0], b.evaluate("location.href"))
        # No search modal where there is no search.
        b.key("/", "Slash", "/")
        self.assertFalse(b.evaluate("!!document.querySelector('lectern-search')"))
        self.assertEqual(b.errors(), [])


class MarkdownPreviewAddonsBrowserTest(PreviewAddonsBrowserMixin, PreviewAddonsTest):
    SLUG = "my-notes"
    PAGE = "/guide/"

    # The HTTP tests run once, in PreviewAddonsTest.
    test_pages_get_the_tag_before_head = None
    test_script_is_served = None
    test_v1_has_the_service_keys = None
    test_slugs_and_v2 = None
    test_errors = None


@unittest.skipUnless(have_sphinx(), "needs /usr/bin/python3 -m sphinx")
class SphinxPreviewAddonsBrowserTest(PreviewAddonsBrowserMixin, PreviewTestCase):
    SLUG = "tree"
    PAGE = "/one.html"
    TREE = {
        "docs/conf.py": "project = 'Tiny'\nhtml_theme = 'alabaster'\n",
        "docs/index.rst": "Tiny\n====\n\n.. toctree::\n\n   one\n\nHello.\n",
        "docs/one.rst": "One\n===\n\nFirst paragraph.\n",
    }


if __name__ == "__main__":
    main()
