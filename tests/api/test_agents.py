"""Docs for agents (issue 32, item 7; docs/serving.md "Docs for agents"):
/llms.txt and /llms-full.txt at a project's docs root, from its default
version, and a page as Markdown when the request's Accept asks for
text/markdown over text/html, with headings, paragraphs, lists, code
blocks with their language, tables and links made absolute; private
versions and projects follow the docs' permissions. Real builds of a
Sphinx project and of a Markdown project (Lectern's own builder), and a
project that publishes its own llms.txt, which is served as it is."""
import shutil
import subprocess
import tempfile
import time

import fixtures
from lectern_test import BUILD_TIMEOUT, ServerTestCase, Store, main


SPHINX = {
    ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                         "sphinx:\n  configuration: docs/conf.py\n",
    "docs/conf.py": "project = 'Agent Docs'\nhtml_theme = 'alabaster'\n",
    "docs/index.rst": "Agent Docs\n==========\n\nAgent Docs explains the frobnicator. It is small.\n\n"
                      ".. toctree::\n\n   guide\n",
    "docs/guide.rst": "Guide\n=====\n\nRead :doc:`index` first. Then:\n\n* step one\n* step two\n\n"
                      ".. code-block:: python\n\n   print('hi')\n\n"
                      "=====  =====\nName   Value\n=====  =====\na      1\n=====  =====\n",
}

MARKDOWN = {
    "docs/index.md": "# Md Agents\n\nShort intro here. More words.\n\n- [Usage](usage.md)\n",
    "docs/usage.md": "# Usage\n\n```c\nint main(void);\n```\n\n> A note.\n",
}

OWN = {
    "docs/index.md": "# Own\n\nText.\n",
    "docs/llms.txt": "# Own llms\n\nWritten by hand.\n",
}


class AgentsTest(ServerTestCase):
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "180")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("alice")
        cls.other = cls.server.token("bob")
        cls.store = Store(cls.server)
        cls.repos = {}
        cls.slugs = {}
        for name, files in (("Agent Docs", SPHINX), ("Md Agents", MARKDOWN), ("Own Llms", OWN)):
            cls.repos[name] = fixtures.make_repo(files)
            r = cls.server.post("/api/v3/projects/", {
                "name": name, "repository": {"url": "file://" + cls.repos[name]}}, token=cls.token)
            assert r.status == 201, r
            cls.slugs[name] = r.json["slug"]
        for slug in cls.slugs.values():
            cls.wait_build(slug, cls.token)

    @classmethod
    def tearDownClass(cls):
        for repo in getattr(cls, "repos", {}).values():
            shutil.rmtree(repo, ignore_errors=True)
        super().tearDownClass()

    def host(self, slug):
        return "%s.localhost:%d" % (slug, self.server.port)

    def root(self, slug):
        return "http://%s/en/latest/" % self.host(slug)

    def docs(self, slug, path, accept=None, **kw):
        headers = dict(kw.pop("headers", {}))
        if accept:
            headers["Accept"] = accept
        return self.server.get(path, host=self.host(slug), headers=headers, **kw)

    def test_sphinx_page_as_markdown(self):
        slug = self.slugs["Agent Docs"]
        r = self.docs(slug, "/en/latest/guide.html", "text/markdown")
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "text/markdown; charset=utf-8")
        self.assertIn("Accept", r.header("Vary"))
        self.assertEqual(r.body.decode(), (
            "# Guide\n\n"
            "Read [Agent Docs](%sindex.html) first. Then:\n\n"
            "- step one\n- step two\n\n"
            "```python\nprint('hi')\n```\n\n"
            "| Name | Value |\n| --- | --- |\n| a | 1 |\n") % self.root(slug))
        # Its own validators: a conditional request is a 304.
        again = self.docs(slug, "/en/latest/guide.html", "text/markdown",
                          headers={"If-None-Match": r.header("ETag")})
        self.assertStatus(again, 304)
        # The HTML is another entity, and says it varies on Accept.
        html = self.docs(slug, "/en/latest/guide.html")
        self.assertEqual(html.header("Content-Type"), "text/html; charset=utf-8")
        self.assertNotEqual(html.header("ETag"), r.header("ETag"))
        self.assertEqual(html.header("Vary"), "Accept, Accept-Encoding")

    def test_negotiation(self):
        slug = self.slugs["Agent Docs"]
        for accept, markdown in (("text/markdown", True),
                                 ("text/markdown, text/html;q=0.9", True),
                                 ("text/html;q=0.5, text/markdown;q=0.6", True),
                                 ("text/html, text/markdown;q=0.9", False),
                                 ("text/html,application/xhtml+xml,*/*;q=0.8", False),
                                 ("*/*", False), ("text/*", False),
                                 ("text/markdown;q=0", False), ("text/markdown;q=bad", False)):
            with self.subTest(accept=accept):
                # Twice: a page remembered by the docs cache as HTML must
                # still be negotiated.
                for _ in range(2):
                    r = self.docs(slug, "/en/latest/", accept)
                    self.assertStatus(r, 200)
                    self.assertEqual(r.header("Content-Type").startswith("text/markdown"), markdown)
        # Not a page: as it is.
        r = self.docs(slug, "/en/latest/_static/alabaster.css", "text/markdown")
        self.assertEqual(r.header("Content-Type"), "text/css")

    def test_markdown_builder_page(self):
        slug = self.slugs["Md Agents"]
        r = self.docs(slug, "/en/latest/usage.html", "text/markdown")
        self.assertStatus(r, 200)
        body = r.body.decode()
        self.assertTrue(body.startswith("# Usage\n\n```c\nint main(void);\n```\n\n> A note.\n"), body)

    def test_llms_txt(self):
        slug = self.slugs["Agent Docs"]
        r = self.docs(slug, "/llms.txt")
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "text/plain; charset=utf-8")
        root = self.root(slug)
        self.assertEqual(r.body.decode(), (
            "# Agent Docs\n\n"
            "> Agent Docs explains the frobnicator.\n\n"
            "The documentation of Agent Docs, version latest, at %s. Each page is also served as "
            "Markdown to a request with \"Accept: text/markdown\"; /llms-full.txt holds them all.\n\n"
            "## Pages\n\n"
            "- [Agent Docs](%s): Agent Docs explains the frobnicator.\n"
            "- [Guide](%sguide.html): Read Agent Docs first.\n") % (root, root, root))

    def test_llms_full_txt(self):
        slug = self.slugs["Md Agents"]
        r = self.docs(slug, "/llms-full.txt")
        self.assertStatus(r, 200)
        body = r.body.decode()
        root = self.root(slug)
        self.assertTrue(body.startswith("# Md Agents\n\n> Short intro here.\n\n"), body)
        self.assertIn("\n---\n\nSource: %s\n\n# Md Agents\n\nShort intro here. More words.\n\n"
                      "- [Usage](%susage.html)\n" % (root, root), body)
        self.assertIn("\n---\n\nSource: %susage.html\n\n# Usage\n\n```c\n" % root, body)
        self.assertLess(body.index("Source: %s\n" % root), body.index("Source: %susage.html" % root))

    def test_own_llms_txt_is_served(self):
        slug = self.slugs["Own Llms"]
        r = self.docs(slug, "/llms.txt")
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"# Own llms\n\nWritten by hand.\n")
        # Without its own llms-full.txt, Lectern's.
        self.assertTrue(self.docs(slug, "/llms-full.txt").body.startswith(b"# Own Llms\n"))

    def test_permissions(self):
        slug = self.slugs["Md Agents"]
        page = "/en/latest/usage.html"
        self.store.execute("UPDATE versions SET privacy_level = 'private' WHERE slug = 'latest'"
                           " AND project_id = (SELECT id FROM projects WHERE slug = ?)", (slug,))
        try:
            for token in (None, self.other):
                with self.subTest(token=token):
                    self.assertStatus(self.docs(slug, page, "text/markdown", token=token), 404)
                    self.assertStatus(self.docs(slug, "/llms.txt", token=token), 404)
                    self.assertStatus(self.docs(slug, "/llms-full.txt", token=token), 404)
            r = self.docs(slug, page, "text/markdown", token=self.token)
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Cache-Control"), "private")
            r = self.docs(slug, "/llms.txt", token=self.token)
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Cache-Control"), "private")
        finally:
            self.store.execute("UPDATE versions SET privacy_level = 'public' WHERE slug = 'latest'"
                               " AND project_id = (SELECT id FROM projects WHERE slug = ?)", (slug,))
        self.store.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = ?", (slug,))
        try:
            self.assertStatus(self.docs(slug, "/llms.txt"), 404)
            self.assertStatus(self.docs(slug, page, "text/markdown"), 404)
            self.assertStatus(self.docs(slug, "/llms.txt", token=self.token), 200)
        finally:
            self.store.execute("UPDATE projects SET privacy_level = 'public' WHERE slug = ?", (slug,))
        self.assertStatus(self.docs(slug, "/llms.txt"), 200)

    def test_no_default_version_built(self):
        # A repository with no commit (import refuses a directory that is
        # no repository): nothing to build, nothing is published.
        empty = tempfile.mkdtemp(prefix="lectern-empty-repo-")
        try:
            subprocess.run(["git", "init", "-q", empty], check=True)
            r = self.server.post("/api/v3/projects/", {
                "name": "Unbuilt", "repository": {"url": "file://" + empty}}, token=self.token)
            self.assertStatus(r, 201)
            deadline = time.time() + BUILD_TIMEOUT
            while time.time() < deadline and self.server.get(
                    "/api/v3/projects/unbuilt/builds/?running=true", token=self.token).json["count"]:
                time.sleep(0.2)
            self.assertStatus(self.docs("unbuilt", "/llms.txt"), 404)
            self.assertStatus(self.docs("unbuilt", "/llms-full.txt"), 404)
        finally:
            shutil.rmtree(empty, ignore_errors=True)


if __name__ == "__main__":
    main()
