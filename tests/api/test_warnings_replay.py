"""Warnings that depend only on the tree (issue 38, item 2), through a real
`lectern serve` and its worker, and through `lectern check`.

A Sphinx project in the shapes real ones have is replayed one commit at a
time: reST and MyST pages, directives Sphinx does not know (in a page, in
a MyST page, in a file two pages include), references to labels and
documents that do not exist, an orphan, an autodoc import that fails (a
warning without a file) and a docstring that docutils cannot read. The
history makes a plain paragraph, fixes a directive, edits the MyST page
and the included file, adds the label a reference missed, deletes and
renames pages, fixes the docstring, breaks conf.py (the build fails) and
mends it. After each commit one project builds on what its last build
kept (Sphinx reads again only what changed) and another of the same
repository builds fresh; their records must be the same, one by one.
The plain paragraph makes nothing new and fixes nothing, and the failed
build counts nothing fixed. Then `lectern check` replays the same trees
with one warm cache and a fresh cache for each: the same records again.

Each of these failed on the main before the change: the incremental
build lost the autodoc, include and consistency records (counted as
fixed, then as new again), and the failed build counted every record of
the last good one as fixed. Found on pytest-dev/pluggy's history and
failing before their changes too: a docstring's record found while
writing (nitpicky's missing reference) was tied to a page that only
mentions the object, so it was lost when that page alone was written
again; and a module that stopped importing left viewcode's page of it in
a preview's output, whose links to the gone anchors were broken."""
import json
import os
import shutil
import subprocess
import tempfile

import fixtures
from lectern_test import BuildTestCase, main

BUILD_TIMEOUT = 240
CONFIG = ("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
          "sphinx:\n  configuration: docs/conf.py\n")
CONF = ("import os, sys\n"
        "sys.path.insert(0, os.path.abspath('..'))\n"
        "project = 'Replayed'\n"
        "extensions = ['myst_parser', 'sphinx.ext.autodoc', 'sphinx.ext.viewcode']\n"
        "nitpicky = True\n"
        "source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}\n"
        "exclude_patterns = ['_inc']\n"
        "html_theme = 'alabaster'\n")
INDEX = ("Replayed\n========\n\n"
         ".. toctree::\n   :maxdepth: 2\n\n   guide\n   usage\n   notes\n   api\n   missing\n\n"
         ".. frobnicate:: now\n\n"
         "See :ref:`nolabel` and :doc:`nodoc`.\n")
GUIDE = ("Guide\n=====\n\n.. _guide-start:\n\nStarting\n--------\n\n"
         "Read :ref:`usage-top` first, then :class:`pkg.tool.Thing`.\n\n"
         ".. include:: _inc/snippet.rst\n")
USAGE = ("Usage\n=====\n\n.. _usage-top:\n\nTop\n---\n\nUse it, see :ref:`guide-start`.\n\n"
         ".. include:: _inc/snippet.rst\n")
NOTES = ("# Notes\n\nA MyST page.\n\n```{unheardof}\nbody\n```\n\n"
         "See [nowhere](#nowhere-at-all).\n")
API = ("API\n===\n\n.. automodule:: pkg.mod\n   :members:\n\n"
       ".. autofunction:: nosuchpkg.thing\n\n"
       ".. currentmodule:: pkg.tool\n\n.. autoclass:: Thing\n")
MOD = ('"""A module."""\n\n\ndef run():\n    """Run it.\n\n      badly indented\n'
       '    text\n    """\n    return 1\n')
TOOL = ('"""Tools."""\n\n\nclass Thing:\n    """A thing, as :class:`Nowhere` would be."""\n')
START = {
    ".readthedocs.yaml": CONFIG,
    "docs/conf.py": CONF,
    "docs/index.rst": INDEX,
    "docs/guide.rst": GUIDE,
    "docs/usage.rst": USAGE,
    "docs/notes.md": NOTES,
    "docs/api.rst": API,
    "docs/orphan.rst": "Orphan\n======\n\nIn no toctree.\n",
    "docs/_inc/snippet.rst": "Shared text.\n\n.. snippetdir:: x\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": MOD,
    "pkg/tool.py": TOOL,
}

# (what the commit does, files written (None: deleted), whether the
# builds pass).
HISTORY = [
    ("a plain paragraph", {"docs/guide.rst": GUIDE + "\nA plain paragraph.\n"}, True),
    ("an unknown directive fixed",
     {"docs/index.rst": INDEX.replace(".. frobnicate:: now\n\n", "")}, True),
    ("the MyST page edited",
     {"docs/notes.md": NOTES + "\n```{neverheard}\nmore\n```\n"}, True),
    ("the included file changed",
     {"docs/_inc/snippet.rst": "Shared text.\n\n.. othersnippet:: y\n"}, True),
    ("the missing label added",
     {"docs/guide.rst": GUIDE + "\nA plain paragraph.\n\n.. _nolabel:\n\nFound\n-----\n\nHere.\n"},
     True),
    ("the orphan deleted", {"docs/orphan.rst": None}, True),
    ("a page renamed",
     {"docs/usage.rst": None, "docs/howto.rst": USAGE.replace("Usage\n=====", "Howto\n====="),
      "docs/index.rst": INDEX.replace(".. frobnicate:: now\n\n", "").replace(
          "   usage\n", "   howto\n")}, True),
    ("the docstring fixed", {"pkg/mod.py": MOD.replace("      badly", "    badly")}, True),
    ("the module no longer imports", {"pkg/mod.py": "raise ImportError('gone')\n"}, True),
    ("the module imports again", {"pkg/mod.py": MOD.replace("      badly", "    badly")}, True),
    ("conf.py broken", {"docs/conf.py": CONF + "this is not python\n"}, False),
    ("conf.py mended", {"docs/conf.py": CONF + "html_title = 'Mended'\n"}, True),
]


def record_key(w):
    return (w["file"], w["line"], w["kind"], w["message"])


class WarningsReplayTest(BuildTestCase):
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "200")
    BUILD_TIMEOUT = BUILD_TIMEOUT

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("writer")
        r = subprocess.run(["/usr/bin/python3", "-c", "import myst_parser"],
                           capture_output=True)
        assert r.returncode == 0, "Debian's python3-myst-parser is needed (packaging/deps.sh)"

    def records(self, slug, build):
        out, path = [], "/api/v3/projects/%s/builds/%d/warnings/?limit=100" % (slug, build["id"])
        while path:
            r = self.server.get(path, token=self.token)
            self.assertStatus(r, 200)
            out.extend(r.json["results"])
            path = r.json["next"]
            if path:
                path = path[path.index("/api/"):]
        return out

    def assertSameRecords(self, kept, fresh, what):
        kept_keys = sorted(record_key(w) for w in kept)
        fresh_keys = sorted(record_key(w) for w in fresh)
        self.assertEqual(kept_keys, fresh_keys, "%s:\nincremental %s\nfresh %s" % (
            what, json.dumps(kept, indent=1), json.dumps(fresh, indent=1)))

    def commit(self, repo, message, files):
        for path, text in files.items():
            full = os.path.join(repo, path)
            if text is None:
                os.unlink(full)
                continue
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        fixtures.git(repo, "add", "-A")
        fixtures.git(repo, "commit", "-q", "-m", message)

    def check(self, tree, cache):
        r = subprocess.run([os.environ["LECTERN"], "check", tree, "--json", "--cache", cache],
                           capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return json.loads(r.stdout)

    def test_incremental_builds_report_as_fresh_ones(self):
        repo = fixtures.make_repo(START)
        kept = self.import_repo("Kept", "file://" + repo)
        fresh = self.import_repo("Fresh", "file://" + repo)
        a = self.build_latest(kept, first=True)
        b = self.build_latest(fresh, first=True)
        self.assertTrue(a["success"] and b["success"], (a, b))
        first = self.records(kept, a)
        messages = "\n".join(w["message"] for w in first)
        # The shapes are there: without a file, in an included file, in
        # a MyST page, in a docstring, while writing, the consistency
        # check's.
        for part in ("nosuchpkg", "snippetdir", "unheardof", "docstring of pkg.mod",
                     "docstring of pkg.tool.Thing", "py:class reference target not found: Nowhere",
                     "undefined label", "isn't included in any toctree",
                     "nonexisting document", "frobnicate"):
            self.assertIn(part, messages, json.dumps(first, indent=1))
        self.assertEqual(sum("snippetdir" in w["message"] for w in first), 2, first)
        self.assertSameRecords(first, self.records(fresh, b), "the first build")
        for what, files, passes in HISTORY:
            self.commit(repo, what, files)
            a = self.build_latest(kept)
            b = self.build_latest(fresh, fresh=True)
            self.assertEqual((a["success"], b["success"]), (passes, passes), (what, a, b))
            if not passes:
                # It stopped in conf.py: nothing it did not get to is fixed.
                self.assertEqual(a["warnings"]["fixed"], 0, (what, a["warnings"]))
                self.assertEqual(b["warnings"]["fixed"], 0, (what, b["warnings"]))
                continue
            self.assertSameRecords(self.records(kept, a), self.records(fresh, b), what)
            if what == "a plain paragraph":
                self.assertEqual((a["warnings"]["new"], a["warnings"]["fixed"]), (0, 0),
                                 (what, a["warnings"]))
        self.assertEqual(a["warnings"]["count"], b["warnings"]["count"])

    def test_check_warm_equals_fresh(self):
        repo = fixtures.make_repo(START)
        tree = tempfile.mkdtemp(prefix="lectern-replay-")
        caches = tempfile.mkdtemp(prefix="lectern-replay-caches-")
        try:
            subprocess.run(["git", "clone", "-q", repo, tree], check=True, env=fixtures.GIT_ENV)
            warm = os.path.join(caches, "warm")
            states = [("the first tree", None, True)] + HISTORY
            for n, (what, files, passes) in enumerate(states):
                if files:
                    self.commit(tree, what, files)
                w = self.check(tree, warm)
                f = self.check(tree, os.path.join(caches, "fresh-%d" % n))
                self.assertEqual((w["built"], f["built"]), (passes, passes), (what, w, f))
                self.assertEqual(sorted(record_key(r) for r in w["results"]),
                                 sorted(record_key(r) for r in f["results"]),
                                 "%s:\nwarm %s\nfresh %s" % (what, json.dumps(w, indent=1),
                                                             json.dumps(f, indent=1)))
        finally:
            shutil.rmtree(tree, ignore_errors=True)
            shutil.rmtree(caches, ignore_errors=True)


if __name__ == "__main__":
    main()
