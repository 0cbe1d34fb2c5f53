"""A preview's warnings (issue 30, item 5), as a writer sees them: a
Sphinx tree with a toctree entry for a missing page and a raw HTML link to
a missing anchor is `ready` with both in /_/preview/status (the records of
a build's warnings list, and their counts); the served page carries the
banner's script; an edit that fixes one and breaks another shows the new
one as new and the fixed one counted; an edit to another page keeps the
first page's warnings though Sphinx does not reread it; the terminal says
how many there are. Each of these failed on the main before it."""
import os
import unittest

from lectern_test import main
from test_preview import PreviewTestCase, SCRIPT_MARK, have_sphinx, write

TREE = {
    "docs/conf.py": "project = 'Previewed'\n",
    "docs/index.rst": ("Previewed\n=========\n\n.. toctree::\n\n   page\n   missing\n\n"
                       ".. raw:: html\n\n   <a href=\"page.html#nowhere\">raw</a>\n"),
    "docs/page.rst": "Page\n====\n\nText with *unclosed emphasis.\n",
}


@unittest.skipUnless(have_sphinx(), "Debian's python3-sphinx is not installed")
class SphinxPreviewWarningsTest(PreviewTestCase):
    TREE = TREE

    def warnings(self, st, part):
        return [w for w in st["warnings"] if part in w["message"]]

    def test_warnings_in_status_page_and_terminal(self):
        st = self.wait_for("the first build", lambda: (
            lambda s: s if s["state"] == "ready" and s["warning_counts"] else None)(
                self.preview.status()))
        toctree = self.warnings(st, "nonexisting document 'missing'")
        self.assertEqual(len(toctree), 1, st["warnings"])
        self.assertEqual(sorted(toctree[0]), ["file", "kind", "line", "message", "new"])
        self.assertEqual((toctree[0]["file"], toctree[0]["line"], toctree[0]["kind"]),
                         ("docs/index.rst", 4, "warning"))
        link = self.warnings(st, "'page.html#nowhere'")
        self.assertEqual((link[0]["kind"], link[0]["file"]), ("link", "index.html"))
        counts = st["warning_counts"]
        self.assertEqual(counts["count"], len(st["warnings"]))
        self.assertEqual(counts["new"], 0)  # nothing before the first build
        # The page has the script that shows the banner.
        status, headers, body = self.preview.get("/index.html")
        self.assertIn(SCRIPT_MARK, body)
        self.assertIn(b"lectern-warnings", body)
        self.assertIn("warning", self.preview.stdout())

        # Fix the toctree, break a reference: one new, one fixed.
        write(self.tree, "docs/index.rst",
              "Previewed\n=========\n\n.. toctree::\n\n   page\n\nSee :ref:`nolabel`.\n\n"
              ".. raw:: html\n\n   <a href=\"page.html#nowhere\">raw</a>\n")
        st = self.wait_for("the rebuild", lambda: (
            lambda s: s if s["state"] == "ready" and
            self.warnings(s, "undefined label") else None)(self.preview.status()))
        self.assertEqual(self.warnings(st, "nonexisting document"), [])
        self.assertTrue(self.warnings(st, "undefined label: 'nolabel'")[0]["new"])
        self.assertFalse(self.warnings(st, "'page.html#nowhere'")[0]["new"])
        self.assertEqual(st["warning_counts"]["fixed"], 1)
        # page.rst was not reread: its warning is still reported, not new.
        emphasis = self.warnings(st, "Inline emphasis start-string")
        self.assertEqual(len(emphasis), 1, st["warnings"])
        self.assertEqual((emphasis[0]["file"], emphasis[0]["new"]), ("docs/page.rst", False))
        self.assertIn("(1 new)", self.preview.stdout())


if __name__ == "__main__":
    main()
