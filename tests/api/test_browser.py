"""Built documentation in a real browser: a `lectern serve` with a build
worker imports a small Sphinx project and a small Markdown project (git
repositories made at test time), builds them, and Debian's headless
Chromium opens a page of each on the docs domain
(http://<slug>.localhost:<port>/). The rendered DOM must have the page's
title and heading, a relative link that resolves to a page that loads (in
the browser and over HTTP), and a stylesheet the server sends as CSS; a
screenshot of each page is saved under the test's output directory
(output/browser/ beside the ctest working directory, or $LEC_TEST_OUTPUT)
and must be a real picture, not a blank one.

Skipped, with a message, only when /usr/bin/chromium is not installed
(packaging/deps.sh installs it)."""
import html.parser
import os
import shutil
import struct
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import zlib

import fixtures
from lectern_test import ServerTestCase, main

CHROMIUM = "/usr/bin/chromium"
# One Chromium run (start, load, dump); a cold start takes a few seconds.
BROWSER_TIMEOUT = 120
WINDOW = (1280, 900)
# A page of text has anti-aliased glyphs: far more shades than this.
MIN_COLOURS = 16


class Page(html.parser.HTMLParser):
    """The parts of a dumped DOM the checks need."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.headings = []
        self.links = []
        self.stylesheets = []
        self._in = None
        self._text = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "link" and "stylesheet" in (a.get("rel") or "").split():
            self.stylesheets.append(a.get("href"))
        if tag in ("title", "h1", "h2"):
            self._in, self._text = tag, []

    def handle_data(self, data):
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag != self._in:
            return
        text = " ".join("".join(self._text).split()).rstrip("¶").strip()
        if tag == "title":
            self.title = text
        else:
            self.headings.append(text)
        self._in = None


def png_colours(path):
    """(width, height, distinct colours) of an 8-bit RGB/RGBA PNG, decoded
    with zlib and the PNG row filters (RFC 2083 §6)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type = header[:4]
    assert depth == 8 and colour_type in (2, 6), header
    bpp = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up = prev[i]
            corner = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[i] = (row[i] + pred) & 0xFF
        if y % 4 == 0:
            for x in range(0, stride, bpp * 2):
                colours.add(bytes(row[x:x + 3]))
        prev = row
    return width, height, len(colours)


def output_dir(name="browser"):
    """Where a browser test keeps its screenshots: output/<name>/ beside
    the ctest working directory, or under $LEC_TEST_OUTPUT."""
    base = os.environ.get("LEC_TEST_OUTPUT") or os.path.join(os.getcwd(), "output")
    path = os.path.join(base, name)
    os.makedirs(path, exist_ok=True)
    return path


class ChromiumTestCase(ServerTestCase):
    """A server with build workers whose fixture repositories (cls.repos)
    and Chromium profile (cls.profile) go when the class ends."""
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "180")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "profile", ""), ignore_errors=True)
        for repo in getattr(cls, "repos", []):
            shutil.rmtree(repo, ignore_errors=True)
        super().tearDownClass()

    def url(self, slug, path):
        return "http://%s.localhost:%d%s" % (slug, self.server.port, path)


class BrowserTest(ChromiumTestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(CHROMIUM):
            raise unittest.SkipTest("%s is not installed (packaging/deps.sh installs"
                                    " Debian's chromium)" % CHROMIUM)
        super().setUpClass()
        cls.token = cls.server.token("reader")
        cls.profile = tempfile.mkdtemp(prefix="lectern-chromium-")
        cls.repos = [fixtures.make_repo(fixtures.SPHINX), fixtures.make_repo(fixtures.MARKDOWN)]
        cls.slugs = {}
        for name, repo in (("Browser Sphinx", cls.repos[0]), ("Browser Markdown", cls.repos[1])):
            r = cls.server.post("/api/v3/projects/", {"name": name, "repository": {
                "url": "file://" + repo}}, token=cls.token)
            assert r.status == 201, r
            cls.slugs[name] = r.json["slug"]
        for slug in cls.slugs.values():
            cls.wait_build(slug, cls.token)

    def chromium(self, *args):
        cmd = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
               "--user-data-dir=" + self.profile, "--no-first-run",
               "--host-resolver-rules=MAP *.localhost 127.0.0.1", *args]
        done = subprocess.run(cmd, capture_output=True, timeout=BROWSER_TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        return done.stdout.decode("utf-8")

    def dump(self, url):
        return Page(self.chromium("--dump-dom", url))

    def fetch(self, slug, absolute):
        """GET an absolute docs URL over HTTP with the docs Host header."""
        parts = urllib.parse.urlsplit(absolute)
        self.assertEqual(parts.netloc, "%s.localhost:%d" % (slug, self.server.port))
        return self.server.get(parts.path or "/", host=parts.netloc)

    def check_page(self, slug, path, title, heading, link_text_check):
        url = self.url(slug, path)
        page = self.dump(url)
        self.assertEqual(page.title, title)
        self.assertIn(heading, page.headings)
        # A relative link resolves to a page that loads, over HTTP and in
        # the browser.
        relative = [h for h in page.links
                    if not urllib.parse.urlsplit(h).scheme and not h.startswith("#")]
        self.assertTrue(relative, page.links)
        target, expected_heading = link_text_check
        matching = [h for h in relative if h.split("#")[0] == target]
        self.assertTrue(matching, relative)
        absolute = urllib.parse.urljoin(url, matching[0]).split("#")[0]
        r = self.fetch(slug, absolute)
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")
        self.assertIn(expected_heading, self.dump(absolute).headings)
        # The stylesheet the page links is served as CSS.
        self.assertTrue(page.stylesheets, "no stylesheet on %s" % url)
        sizes = []
        for href in page.stylesheets:
            r = self.fetch(slug, urllib.parse.urljoin(url, href))
            self.assertStatus(r, 200)
            self.assertEqual(r.header("Content-Type"), "text/css")
            sizes.append(len(r.body))
        # Sphinx also links an empty custom.css; the theme's has rules.
        self.assertGreater(max(sizes), 1000, page.stylesheets)
        # A screenshot that shows something.
        shot = os.path.join(output_dir(), "%s.png" % slug)
        if os.path.exists(shot):
            os.unlink(shot)
        self.chromium("--screenshot=" + shot, "--window-size=%d,%d" % WINDOW,
                      "--hide-scrollbars", url)
        print("screenshot: %s" % shot)
        self.assertGreater(os.path.getsize(shot), 5000)
        width, height, colours = png_colours(shot)
        self.assertEqual((width, height), WINDOW)
        self.assertGreaterEqual(colours, MIN_COLOURS)

    def test_sphinx_page(self):
        slug = self.slugs["Browser Sphinx"]
        self.check_page(slug, "/en/latest/", "Sphinx Fixture — Sphinx Fixture documentation",
                        "Sphinx Fixture", ("api.html", "API"))

    def test_markdown_page(self):
        slug = self.slugs["Browser Markdown"]
        self.check_page(slug, "/en/latest/", "Markdown Guide — Browser Markdown", "Markdown Guide",
                        ("install.html", "Install"))


if __name__ == "__main__":
    main()
