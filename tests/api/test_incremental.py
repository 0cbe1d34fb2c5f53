"""Incremental rebuilds (issue 29) through a real `lectern serve` with a build
worker. A Sphinx project's history is replayed one commit at a time: an
edit within a page, a new page added to the toctree, a title change other
pages show, a page deleted, a page renamed, an edit of a Python file, a
conf.py change. After each commit one project builds it on what its last
build kept (the version's tree, Sphinx's environment and pages) and another
project of the same repository builds it fresh (the trigger's
{"fresh": true}); every published file of the two must be byte for byte the
same. Each build's `cache` (a Lectern extension of the v3 build) says what
was reused and why not: a pure edit reuses everything, a new page keeps the
environment but writes every page, conf.py's change starts Sphinx afresh,
and a fresh build reuses nothing. A build that edits its own sources, or
spoils Sphinx's kept environment, costs the next build its cache, never its
correctness."""
import filecmp
import json
import os
import time

import fixtures
from lectern_test import BuildTestCase, main

BUILD_TIMEOUT = 240
CONFIG = ("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
          "sphinx:\n  configuration: docs/conf.py\n")
CONF = "project = 'Replay'\nextensions = []\nhtml_theme = 'alabaster'\n"
START = {
    ".readthedocs.yaml": CONFIG,
    "docs/conf.py": CONF,
    "docs/index.rst": ("Replay\n======\n\n.. toctree::\n   :maxdepth: 2\n\n"
                       "   guide\n   usage\n\nWelcome.\n"),
    "docs/guide.rst": ("Guide\n=====\n\n.. _guide-start:\n\nStarting\n--------\n\n"
                       "Read :ref:`usage-top` first.\n"),
    "docs/usage.rst": ("Usage\n=====\n\n.. _usage-top:\n\nTop\n---\n\nUse it.\n"),
    "pkg/tool.py": "def run():\n    return 1\n",
}

# (what the commit does, files written (None: deleted), what the
# incremental build may reuse: {cache: reused?}).
HISTORY = [
    ("an edit within a page", {"docs/usage.rst": START["docs/usage.rst"] + "\nMore text.\n"},
     {"checkout": True, "doctrees": True, "html": True}),
    ("a new page in the toctree",
     {"docs/new.rst": "New\n===\n\nFresh page.\n",
      "docs/index.rst": START["docs/index.rst"].replace("   usage\n", "   usage\n   new\n")},
     {"checkout": True, "doctrees": True, "html": False}),
    ("a title other pages show",
     {"docs/usage.rst": START["docs/usage.rst"].replace("Top\n---", "Summit\n------")},
     {"checkout": True, "doctrees": True, "html": False}),
    ("a page deleted",
     {"docs/new.rst": None,
      "docs/index.rst": START["docs/index.rst"]},
     {"checkout": True, "doctrees": True, "html": False}),
    ("a page renamed",
     {"docs/guide.rst": None,
      "docs/handbook.rst": START["docs/guide.rst"].replace("Guide\n=====", "Handbook\n========"),
      "docs/index.rst": START["docs/index.rst"].replace("   guide\n", "   handbook\n")},
     {"checkout": True, "doctrees": True, "html": False}),
    ("a Python file", {"pkg/tool.py": "def run():\n    return 2\n"},
     {"checkout": True, "doctrees": True, "html": False}),
    ("a conf.py change", {"docs/conf.py": CONF + "html_title = 'Replayed'\n"},
     {"checkout": True, "doctrees": False, "html": False}),
]


def search_index(path):
    """Sphinx's searchindex.js as the JSON object it sets."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("(") + 1:text.rindex(")")])


def tree_files(root):
    out = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


class IncrementalTest(BuildTestCase):
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "200")
    BUILD_TIMEOUT = BUILD_TIMEOUT

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("writer")
        cls.repo = fixtures.make_repo(START)

    def import_repo(self, name):
        return super().import_repo(name, "file://" + self.repo)

    def build(self, slug, fresh=False, first=False):
        """The build's detail once it has ended, which must have passed."""
        b = self.build_latest(slug, fresh=fresh, first=first)
        self.assertTrue(b["success"], b)
        return b

    def html(self, slug):
        return os.path.join(self.server.data, "published", slug, "latest", "html")

    def assertSameSite(self, a, b, what, names=None):
        """Every published file of a and b the same; names (a's, b's)
        are the project names a site shows, which differ."""
        files_a, files_b = tree_files(self.html(a)), tree_files(self.html(b))
        self.assertEqual(files_a, files_b, what)
        _, mismatch, errors = filecmp.cmpfiles(self.html(a), self.html(b), files_a,
                                               shallow=False)
        self.assertEqual(errors, [], what)
        for name in mismatch:
            path_a, path_b = (os.path.join(self.html(x), name) for x in (a, b))
            if name == "searchindex.js":
                # Sphinx's search index is one JSON object whose keys come
                # in the order its environment met the pages.
                self.assertEqual(search_index(path_a), search_index(path_b), what)
                continue
            self.assertTrue(names, (what, mismatch))
            with open(path_a, "rb") as fa, open(path_b, "rb") as fb:
                self.assertEqual(fa.read().replace(names[0].encode(), b"NAME"),
                                 fb.read().replace(names[1].encode(), b"NAME"),
                                 (what, name))

    def assertReused(self, build, expected, what):
        cache = build.get("cache", {})
        for name, reused in expected.items():
            self.assertIn(name, cache, (what, cache))
            self.assertIs(cache[name]["reused"], reused, (what, name, cache))
            if not reused:
                self.assertTrue(cache[name]["reason"], (what, name, cache))

    def commit(self, message, files):
        for path, text in files.items():
            full = os.path.join(self.repo, path)
            if text is None:
                os.unlink(full)
                continue
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        fixtures.git(self.repo, "add", "-A")
        fixtures.git(self.repo, "commit", "-q", "-m", message)

    def test_replayed_history_builds_as_fresh_ones(self):
        incremental = self.import_repo("Kept")
        fresh = self.import_repo("Fresh")
        first = self.build(incremental, first=True)
        self.build(fresh, first=True)
        self.assertEqual(first["cache"]["checkout"]["reused"], False)
        self.assertEqual(first["cache"]["doctrees"]["reason"], "no earlier build to reuse")
        self.assertSameSite(incremental, fresh, "the first build")
        for what, files, expected in HISTORY:
            self.commit(what, files)
            kept = self.build(incremental)
            again = self.build(fresh, fresh=True)
            self.assertReused(kept, expected, what)
            self.assertReused(again, {"checkout": False, "doctrees": False, "html": False},
                              what)
            self.assertEqual(again["cache"]["checkout"]["reason"],
                             "a fresh build was asked for")
            self.assertSameSite(incremental, fresh, what)
        self.assertEqual(kept["cache"]["doctrees"]["reason"], "docs/conf.py changed")

    def test_markdown_pages_rendered_only_when_changed(self):
        files = dict(fixtures.MARKDOWN)
        repo = fixtures.make_repo(files)
        slugs = []
        for name in ("Md Kept", "Md Fresh"):
            r = self.server.post("/api/v3/projects/", {"name": name, "repository": {
                "url": "file://" + repo}}, token=self.token)
            self.assertStatus(r, 201)
            slugs.append(r.json["slug"])
            self.build(slugs[-1], first=True)
        kept, fresh = slugs
        names = ("Md Kept", "Md Fresh")
        self.assertSameSite(kept, fresh, "the first build", names)
        for what, change, reused in (
                ("an edit", {"docs/usage.md": "# Usage\n\nEdited.\n"}, True),
                ("a new page", {"docs/more.md": "# More\n\nNew.\n"}, False)):
            for path, text in change.items():
                with open(os.path.join(repo, path), "w") as f:
                    f.write(text)
            fixtures.git(repo, "add", "-A")
            fixtures.git(repo, "commit", "-q", "-m", what)
            b = self.build(kept)
            self.build(fresh, fresh=True)
            self.assertEqual(b["cache"]["markdown"]["reused"], reused, (what, b["cache"]))
            self.assertSameSite(kept, fresh, what, names)

    def test_caches_of_an_inactive_version_go(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN, branches=("dev",))
        r = self.server.post("/api/v3/projects/", {"name": "Pruned", "repository": {
            "url": "file://" + repo}}, token=self.token)
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        self.build(slug, first=True)
        dev = "/api/v3/projects/%s/versions/dev/" % slug
        self.assertStatus(self.server.patch(dev, {"active": True}, token=self.token), 204)
        builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                 token=self.token).json["results"]
        deadline = time.time() + BUILD_TIMEOUT
        while not os.path.isdir(os.path.join(self.server.data, "checkouts", slug, "dev")):
            self.assertLess(time.time(), deadline, builds)
            time.sleep(0.2)
        self.build(slug, first=True)
        self.assertStatus(self.server.patch(dev, {"active": False}, token=self.token), 204)
        self.build(slug)
        kept = sorted(os.listdir(os.path.join(self.server.data, "checkouts", slug)))
        self.assertEqual([k for k in kept if k.startswith("dev")], [], kept)
        self.assertIn("latest", kept)

    def test_fresh_must_be_a_boolean(self):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % self.import_repo("Odd"),
                             {"fresh": "perhaps"}, token=self.token)
        self.assertStatus(r, 400)
        self.assertIn("fresh", r.json)

    def spoiler(self, name, job):
        """A project whose every build ends with the shell command job."""
        files = dict(START)
        files[".readthedocs.yaml"] = CONFIG.replace(
            "    python: \"3.12\"\n",
            "    python: \"3.12\"\n  jobs:\n    post_build:\n      - \"%s\"\n" % job)
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {
            "url": "file://" + fixtures.make_repo(files)}}, token=self.token)
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        self.build(slug, first=True)
        return slug, self.build(slug)

    def test_a_build_editing_its_sources_costs_the_next_its_checkout(self):
        slug, again = self.spoiler("Editor", "echo spoiled >> docs/usage.rst")
        self.assertEqual(again["cache"]["checkout"]["reused"], False)
        self.assertEqual(again["cache"]["checkout"]["reason"],
                         "docs/usage.rst was changed since the last checkout")
        self.assertEqual(again["cache"]["doctrees"]["reason"],
                         "the tree was checked out afresh")
        with open(os.path.join(self.html(slug), "usage.html")) as f:
            self.assertNotIn("spoiled", f.read())

    def test_a_spoiled_environment_is_rebuilt_with_the_reason(self):
        slug, again = self.spoiler(
            "Pickler", "truncate -s 10 docs/_build/doctrees/environment.pickle")
        self.assertEqual(again["cache"]["checkout"]["reused"], True)
        self.assertEqual(again["cache"]["doctrees"],
                         {"reused": False,
                          "reason": "Sphinx could not read its kept environment"})
        with open(os.path.join(self.html(slug), "usage.html")) as f:
            self.assertIn("Use it.", f.read())


if __name__ == "__main__":
    main()
