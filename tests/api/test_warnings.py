"""Warnings and broken links as records (issue 30), through a real `lectern
serve` and its worker: a Sphinx build's warnings (with file and line
relative to the repository), the broken links of its HTML, raw HTML
included, and the build detail's totals; the next build compared with the
last good one (new, carried over though its line moved, fixed) with the
pages and anchors it lost as `removed`; Sphinx's kept environment (a
rebuild that rereads one page) still reporting the other pages' warnings;
the list paginated, filtered to the new ones and seen as the build is;
the build:user:new-warnings notification and the build:new-warnings
webhook event (only for webhooks that name it); MkDocs and the Markdown
builder; a build with more warnings than are kept; and a secret in a
warning masked. Each of these failed on the main before it."""
import json
import os
import time

import fixtures
from lectern_test import POLL_SECONDS, HookReceiver, ServerTestCase, Store, main

# A build of a tiny project takes well under this even under ASan.
BUILD_TIMEOUT = 180

SPHINX = {
    "docs/conf.py": "project = 'Warned'\nextensions = []\n",
    "docs/index.rst": (
        "Warned\n======\n\n"
        ".. toctree::\n\n   guide\n   missing\n\n"
        "See :ref:`nolabel`.\n\n"
        ".. raw:: html\n\n   <a href=\"guide.html#nowhere\">raw link</a>\n"),
    "docs/guide.rst": (
        "Guide\n=====\n\n.. _install:\n\nInstall\n-------\n\n"
        "Text with *unclosed emphasis.\n"),
    "docs/old.rst": ":orphan:\n\nOld\n===\n\nGoing away.\n",
}


class WarningsCase(ServerTestCase):
    SERVER_ARGS = ("--build-timeout", "120", "--workers", "1")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("writer")
        cls.other = cls.server.token("reader")

    def import_repo(self, name, files):
        repo = fixtures.make_repo(files)
        r = self.server.post("/api/v3/projects/", {"name": name,
                                                   "repository": {"url": "file://" + repo}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"], repo

    def wait_build(self, slug, after=0):
        deadline = time.time() + BUILD_TIMEOUT
        builds = []
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                     token=self.token).json["results"]
            done = [b for b in builds if b["id"] > after and
                    b["state"]["code"] in ("finished", "cancelled")]
            if done:
                return done[0]
            time.sleep(POLL_SECONDS)
        self.fail("build of %s did not finish: %r" % (slug, builds))

    def rebuild(self, slug, previous):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.token)
        self.assertStatus(r, 202)
        return self.wait_build(slug, previous["id"])

    def records(self, slug, build, query="", token=None):
        r = self.server.get("/api/v3/projects/%s/builds/%d/warnings/%s" % (slug, build["id"], query),
                            token=token or self.token)
        self.assertStatus(r, 200)
        return r.json

    def find(self, records, part, kind=None):
        found = [w for w in records if part in w["message"] and (kind is None or w["kind"] == kind)]
        self.assertTrue(found, "no record with %r in %s" % (part, json.dumps(records, indent=1)))
        return found[0]

    def log(self, build):
        r = self.server.get("/api/v2/build/%d/" % build["id"], token=self.token)
        return "\n".join((c["command"] or "") + "\n" + (c["output"] or "") for c in r.json["commands"])

    def test_sphinx_build_then_compared_with_the_last_good_one(self):
        slug, repo = self.import_repo("Warned", SPHINX)
        first = self.wait_build(slug)
        self.assertTrue(first["success"], self.log(first))
        # The build detail's totals; _links stay the service's.
        self.assertNotIn("warnings", first["_links"])
        self.assertEqual(first["warnings"]["new"], first["warnings"]["count"])
        self.assertEqual(first["warnings"]["fixed"], 0)
        body = self.records(slug, first)
        self.assertSortedKeys(json.dumps(body).encode())
        records = body["results"]
        self.assertEqual(body["count"], first["warnings"]["count"])
        self.assertEqual(sorted(records[0]), ["file", "kind", "line", "message", "new"])
        toctree = self.find(records, "nonexisting document 'missing'")
        self.assertEqual((toctree["file"], toctree["line"], toctree["kind"], toctree["new"]),
                         ("docs/index.rst", 4, "warning", True))
        label = self.find(records, "undefined label: 'nolabel'")
        self.assertEqual((label["file"], label["line"]), ("docs/index.rst", 9))
        emphasis = self.find(records, "Inline emphasis start-string")
        self.assertEqual((emphasis["file"], emphasis["line"]), ("docs/guide.rst", 9))
        # The raw HTML's link to a missing anchor: kind link, on the page.
        raw = self.find(records, "'guide.html#nowhere'", "link")
        self.assertEqual(raw["file"], "index.html")
        self.assertEqual(raw["message"],
                         "broken link 'guide.html#nowhere': no anchor #nowhere in guide.html")
        self.assertGreater(raw["line"], 0)
        # The log has the link check's summary.
        self.assertIn("link check", self.log(first))

        # Paginated as every v3 list; filtered to the new ones.
        page = self.records(slug, first, "?limit=2")
        self.assertEqual(len(page["results"]), 2)
        self.assertEqual(page["count"], first["warnings"]["count"])
        self.assertIn("offset=2", page["next"])

        # The next commit: a line above the toctree moves it, the label is
        # fixed, a new unknown document, old.rst gone, the install anchor
        # renamed.
        with open(os.path.join(repo, "docs/index.rst"), "w") as f:
            f.write("Warned\n======\n\nAn intro line.\n\n"
                    ".. toctree::\n\n   guide\n   missing\n\n"
                    "See :doc:`nodoc`.\n\n"
                    ".. raw:: html\n\n   <a href=\"guide.html#nowhere\">raw link</a>\n")
        with open(os.path.join(repo, "docs/guide.rst"), "w") as f:
            f.write("Guide\n=====\n\n.. _setup:\n\nSetup\n-----\n\n"
                    "Text with *unclosed emphasis.\n")
        os.unlink(os.path.join(repo, "docs/old.rst"))
        fixtures.git(repo, "add", "-A")
        fixtures.git(repo, "commit", "-q", "-m", "edit")
        second = self.rebuild(slug, first)
        self.assertTrue(second["success"], self.log(second))
        records = self.records(slug, second)["results"]
        moved = self.find(records, "nonexisting document 'missing'")
        self.assertEqual((moved["line"], moved["new"]), (6, False))
        self.assertFalse(self.find(records, "'guide.html#nowhere'", "link")["new"])
        nodoc = self.find(records, "unknown document: 'nodoc'")
        self.assertTrue(nodoc["new"])
        page_gone = self.find(records, "removed page old.html", "removed")
        self.assertEqual((page_gone["file"], page_gone["new"]), ("old.html", True))
        anchor_gone = self.find(records, "removed anchor #install of guide.html", "removed")
        self.assertEqual(anchor_gone["file"], "guide.html")
        self.assertEqual(second["warnings"]["fixed"], 1)
        self.assertEqual(second["warnings"]["new"],
                         sum(1 for w in records if w["new"]))
        # New ones first; ?new=true keeps only them.
        flags = [w["new"] for w in records]
        self.assertEqual(flags, sorted(flags, reverse=True))
        only_new = self.records(slug, second, "?new=true")
        self.assertEqual(only_new["count"], second["warnings"]["new"])
        self.assertTrue(all(w["new"] for w in only_new["results"]))

        # The new warnings raised the build's notification.
        r = self.server.get("/api/v3/projects/%s/builds/%d/notifications/" % (slug, second["id"]),
                            token=self.token)
        ids = [n["message"]["id"] for n in r.json["results"]]
        self.assertIn("build:user:new-warnings", ids)

        # A rebuild of one page with Sphinx's kept environment: guide.rst
        # is not reread, its warning is still there and not new.
        with open(os.path.join(repo, "docs/index.rst"), "a") as f:
            f.write("\nOne more line.\n")
        fixtures.git(repo, "commit", "-q", "-am", "touch index")
        third = self.rebuild(slug, second)
        self.assertTrue(third["success"], self.log(third))
        self.assertIn("reading sources... [100%] index", self.log(third))
        self.assertNotIn("reading sources... [ 50%] guide", self.log(third))
        records = self.records(slug, third)["results"]
        kept = self.find(records, "Inline emphasis start-string")
        self.assertEqual((kept["file"], kept["new"]), ("docs/guide.rst", False))
        self.assertEqual(third["warnings"]["new"], 0)
        self.assertEqual(third["warnings"]["fixed"], 0)

    def test_seen_as_the_build_is(self):
        slug, _ = self.import_repo("Seen", fixtures.MARKDOWN)
        build = self.wait_build(slug)
        # Another user sees a public project's build and its warnings.
        self.records(slug, build, token=self.other)
        r = self.server.get("/api/v3/projects/%s/builds/%d/warnings/" % (slug, build["id"]))
        self.assertStatus(r, 200)
        r = self.server.get("/api/v3/projects/%s/builds/999999/warnings/" % slug,
                            token=self.token)
        self.assertDetail(r, 404, "No Build matches the given query.")
        # A private project (the community edition makes none through the
        # API; the store can): its builds' warnings are its admins'.
        Store(self.server).execute("UPDATE projects SET privacy_level = 'private' "
                                   "WHERE slug = ?", (slug,))
        self.records(slug, build)
        r = self.server.get("/api/v3/projects/%s/builds/%d/warnings/" % (slug, build["id"]),
                            token=self.other)
        self.assertStatus(r, 404)

    def test_markdown_builder_broken_link(self):
        files = dict(fixtures.MARKDOWN)
        files["docs/usage.md"] = "# Usage\n\nSee [gone](gone.md) and [install](install.md#nope).\n"
        slug, _ = self.import_repo("Marked", files)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], self.log(build))
        records = self.records(slug, build)["results"]
        self.assertEqual(self.find(records, "'gone.html'", "link")["file"], "usage.html")
        self.find(records, "no anchor #nope in install.html", "link")
        self.assertEqual(build["warnings"]["count"], len(records))

    def test_mkdocs_warnings(self):
        files = dict(fixtures.MKDOCS)
        files["docs/guide.md"] = "# Guide\n\nSee [missing](missing.md).\n"
        slug, _ = self.import_repo("Mk Warned", files)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], self.log(build))
        records = self.records(slug, build)["results"]
        w = self.find(records, "missing.md", "warning")
        self.assertEqual(w["file"], "docs/guide.md")

    def test_mkdocs_warnings_in_its_docs_dir(self):
        # mkdocs.yml's docs_dir, read past MkDocs' own YAML tags, names the
        # directory a warning's page is in.
        files = {"mkdocs.yml": ("site_name: Mk Src  # a comment\n"
                                "extra:\n  where: !ENV [LECTERN_UNSET, here]\n"
                                "docs_dir: 'src'   # the pages\n"
                                "nav:\n  - Home: index.md\n  - Guide: guide.md\n"),
                 "src/index.md": "# Home\n",
                 "src/guide.md": "# Guide\n\nSee [missing](missing.md).\n"}
        slug, _ = self.import_repo("Mk Src", files)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], self.log(build))
        records = self.records(slug, build)["results"]
        self.assertEqual(self.find(records, "missing.md", "warning")["file"], "src/guide.md")

    def test_more_warnings_than_kept(self):
        refs = "".join(":ref:`nolabel%d`\n\n" % i for i in range(1200))
        files = {"docs/conf.py": "project = 'Many'\n",
                 "docs/index.rst": "Many\n====\n\n" + refs}
        slug, _ = self.import_repo("Many", files)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], self.log(build))
        # 750 of the generator's are kept: a flood of them leaves room for
        # the broken links.
        self.assertEqual(build["warnings"]["count"], 1200)
        self.assertEqual(build["warnings"]["dropped"], 450)
        self.assertEqual(self.records(slug, build, "?limit=1")["count"], 750)

    def test_secret_in_a_warning_is_masked(self):
        files = {"docs/conf.py": ("import os\nproject = 'Secret'\n"
                                  "def setup(app):\n"
                                  "    from sphinx.util import logging\n"
                                  "    logging.getLogger('x').warning('token is ' + "
                                  "os.environ.get('DEPLOY_TOKEN', 'unset'))\n"),
                 "docs/index.rst": "Secret\n======\n"}
        slug, _ = self.import_repo("Secret", files)
        r = self.server.post("/api/v3/projects/%s/environmentvariables/" % slug,
                             {"name": "DEPLOY_TOKEN", "value": "s3cr3t-value-42",
                              "public": False}, token=self.token)
        self.assertStatus(r, 201)
        first = self.wait_build(slug)
        build = self.rebuild(slug, first)
        records = self.records(slug, build)["results"]
        w = self.find(records, "token is ")
        self.assertNotIn("s3cr3t-value-42", w["message"])
        self.assertNotIn(b"s3cr3t-value-42",
                         self.server.get("/api/v3/projects/%s/builds/%d/warnings/" %
                                         (slug, build["id"]), token=self.token).body)

    def test_new_warnings_webhook_only_when_subscribed(self):
        receiver = HookReceiver()
        try:
            slug, repo = self.import_repo("Hooked", fixtures.MARKDOWN)
            first = self.wait_build(slug)
            hooks = {}
            for name, events in (("all", ["build:passed", "build:new-warnings"]),
                                 ("passed", ["build:passed"])):
                r = self.server.post("/api/v3/projects/%s/webhooks/" % slug,
                                     {"url": receiver.url + "/" + name, "events": events},
                                     token=self.token)
                self.assertStatus(r, 201)
                self.assertEqual(r.json["events"], events)
                hooks[name] = r.json["id"]
            with open(os.path.join(repo, "docs/usage.md"), "w") as f:
                f.write("# Usage\n\n[gone](gone.md)\n")
            fixtures.git(repo, "commit", "-q", "-am", "break a link")
            second = self.rebuild(slug, first)
            self.assertEqual(second["warnings"]["new"], 1)

            def deliveries(name):
                r = self.server.get("/api/v3/projects/%s/webhooks/%d/deliveries/" %
                                    (slug, hooks[name]), token=self.token)
                self.assertStatus(r, 200)
                return sorted(d["event"] for d in r.json["results"])
            deadline = time.time() + 30
            while time.time() < deadline and len(deliveries("all")) < 2:
                time.sleep(0.2)
            self.assertEqual(deliveries("all"), ["build:new-warnings", "build:passed"])
            self.assertEqual(deliveries("passed"), ["build:passed"])
        finally:
            receiver.close()


if __name__ == "__main__":
    main()
