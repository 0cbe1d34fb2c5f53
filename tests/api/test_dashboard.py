"""The web dashboard (issue 32, item 6; docs/dashboard.md): every
dashboard URL the API emits (a project's urls.home, urls.builds and
urls.versions, a build's urls.build, a version's urls.dashboard.edit)
answers with a page, under the API's visibility rules, with the docs login
for private projects; a build's page shows what it reused (its cache) and
its log, kept current while the build runs. The Addons tab is a form for
the project's admins (issue 39), saved as the v3 PATCH saves, under the
CSRF and origin rules of the login's forms.

In a real browser, Debian's headless Chromium: a screenshot of a build's
page (a real picture in the theme's colours) and a live-log test, driven
over the DevTools protocol on a pipe (--remote-debugging-pipe): the page of
a running build is opened once, and its log must grow to the build's last
line and its state to Passed without a reload. Skipped, with a message,
only when /usr/bin/chromium is not installed (packaging/deps.sh installs
it)."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse

import fixtures
from lectern_test import BUILD_TIMEOUT, ServerTestCase, Store, main
from test_browser import CHROMIUM, WINDOW, MIN_COLOURS, output_dir, png_colours

# How long the live page may take to show what the build wrote.
LIVE_TIMEOUT = 60
# The most a live build holds between its two lines, in tenths of a
# second, should the test never let it go on.
LIVE_HOLD = 900

# A build that writes a line, holds while the file `hold` of its checkout
# is there (the browser must be looking before the second line comes: the
# test removes it then), writes another, and publishes a page. The lines
# are made by printf, so the log's command lines do not hold them.
LIVE = fixtures.commands_config(
    "printf 'al%%s\\n' pha; i=0; while [ -e hold ] && [ $i -lt %d ]; do sleep 0.1; "
    "i=$((i + 1)); done; printf 'om%%s\\n' ega" % LIVE_HOLD,
    "mkdir -p $READTHEDOCS_OUTPUT/html && echo '<h1>Live</h1>' > $READTHEDOCS_OUTPUT/html/index.html")
LIVE["hold"] = "the build holds while this is in its checkout\n"


class Links(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.links, self.text, self.title = [], [], ""
        self._title = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs).get("href"))
        self._title = tag == "title"

    def handle_data(self, data):
        if self._title:
            self.title += data
        self.text.append(data)


class Form(html.parser.HTMLParser):
    """A page's first form as a browser sends it: action and fields
    (a checked box "on", an unchecked one left out, a select's selected
    option or else its first), in order."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.action, self.fields, self._select, self._option = None, {}, None, None
        self._done = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self._done:
            return
        if tag == "form":
            self.action = a["action"]
        elif tag == "input" and a.get("type") == "checkbox":
            if "checked" in a:
                self.fields[a["name"]] = "on"
        elif tag == "input":
            self.fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select:
            self._option = a

    def handle_data(self, data):
        if self._option is not None:
            value = self._option.get("value", data)
            if "selected" in self._option or self._select not in self.fields:
                self.fields[self._select] = value
            self._option = None

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        self._done = self._done or tag == "form"


class DevTools:
    """Chromium driven over the DevTools protocol on a pipe: messages are
    JSON texts ended by a NUL, the browser reading fd 3 and writing fd 4."""

    def __init__(self, profile):
        to_chrome, self._cmd = os.pipe()
        self._events, from_chrome = os.pipe()

        def fds():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--user-data-dir=" + profile, "--no-first-run", "--remote-debugging-pipe",
             "--host-resolver-rules=MAP *.localhost 127.0.0.1", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self._next = 0
        self._buffer = b""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=WINDOW[0],
                  height=WINDOW[1], deviceScaleFactor=1, mobile=False)

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._events, 65536)
            if not chunk:
                raise AssertionError("Chromium went away")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=False, **params):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._cmd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise AssertionError("%s: %s" % (method, reply["error"]))
                return reply["result"]

    def open(self, url):
        """Navigate and wait until the page has loaded."""
        self.call("Page.navigate", session=True, url=url)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.eval("document.readyState") == "complete":
                return
            time.sleep(0.1)
        raise AssertionError("%s did not load" % url)

    def eval(self, expression):
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True)
        return result["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd)
        os.close(self._events)


class DashboardTest(ServerTestCase):
    SERVER_ARGS = ("--workers", "1", "--build-timeout", "180")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.token = s.token("alice")
        cls.other = s.token("bob")
        cls.store = Store(s)
        cls.repos = [fixtures.make_repo(fixtures.MARKDOWN)]
        r = s.post("/api/v3/projects/", {"name": "Dash Docs", "repository": {
            "url": "file://" + cls.repos[0]}}, token=cls.token)
        assert r.status == 201, r
        cls.slug = r.json["slug"]
        cls.project = r.json
        cls.wait_build(cls.slug, cls.token)

    @classmethod
    def tearDownClass(cls):
        for repo in getattr(cls, "repos", []):
            shutil.rmtree(repo, ignore_errors=True)
        super().tearDownClass()

    def path(self, url):
        parts = urllib.parse.urlsplit(url)
        self.assertEqual(parts.netloc, "%s:%d" % (self.server.host, self.server.port))
        return parts.path

    def page(self, url, status=200, **kw):
        r = self.server.get(self.path(url) if url.startswith("http") else url, **kw)
        self.assertStatus(r, status)
        self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")
        self.assertIn("Cookie", r.header("Vary"))
        return Links(r.body.decode())

    # Every URL the API emits ----------------------------------------------

    def test_every_emitted_url_is_a_page(self):
        p = self.server.get("/api/v3/projects/%s/" % self.slug, token=self.token).json
        build = self.server.get("/api/v3/projects/%s/builds/" % self.slug,
                                token=self.token).json["results"][0]
        version = self.server.get("/api/v3/projects/%s/versions/latest/" % self.slug,
                                  token=self.token).json
        urls = [p["urls"]["home"], p["urls"]["builds"], p["urls"]["versions"],
                build["urls"]["build"], build["urls"]["project"], build["urls"]["version"],
                version["urls"]["dashboard"]["edit"]]
        for url in urls:
            with self.subTest(url=url):
                page = self.page(url)
                # The project's tabs and its docs.
                self.assertIn("/projects/%s/builds/" % self.slug, page.links)
                self.assertIn(p["urls"]["documentation"], page.links)
        home = self.page(p["urls"]["home"])
        self.assertEqual(home.title.strip(), "Dash Docs \u00b7 Lectern")
        self.assertIn(self.path(build["urls"]["build"]), home.links)
        self.assertIn("/dashboard/%s/version/latest/edit/" % self.slug, home.links)

    def test_build_page_shows_cache_and_log(self):
        build = self.server.get("/api/v3/projects/%s/builds/" % self.slug,
                                token=self.token).json["results"][0]
        r = self.server.get(self.path(build["urls"]["build"]))
        text = r.body.decode()
        self.assertIn('<span class="state-ok">Passed</span>', text)
        # What it reused: each cache of the v3 build, with its reason.
        self.assertIn("<h2>Cache</h2>", text)
        for name, cache in build["cache"].items():
            self.assertIn("<td>%s</td>" % name, text)
            self.assertIn(cache["reason"] or "", text)
        self.assertIn("lectern markdown docs", text)
        self.assertIn('data-state="done"', text)
        self.assertNotIn("<script>", text)
        r = self.server.get(self.path(build["urls"]["build"]) + "live/")
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(sorted(r.json), ["done", "head", "log"])
        self.assertTrue(r.json["done"])

    def test_addons_page(self):
        """A project's reader addons' settings, as the v3 addons resource
        has them, each with what it does; a change through the API shows
        on the next load."""
        url = "/projects/%s/addons/" % self.slug
        self.assertIn(url, self.page("/projects/%s/" % self.slug).links)
        api = "/api/v3/projects/%s/addons/" % self.slug
        settings = self.server.get(api, token=self.token).json
        page = self.page(url)
        self.assertEqual(page.title.strip(), "Addons \u00b7 Lectern")
        text = self.server.get(url).body.decode()
        self.assertEqual(text.count("<tr><td><code>"), len(settings))
        for name, value in settings.items():
            shown = {True: "on", False: "off", None: "none"}.get(value, value)
            self.assertIn("<tr><td><code>%s</code></td><td>%s</td>" % (name, shown), text)
        self.assertIn('<a href="%s" class="active">Addons</a>' % url, text)
        r = self.server.patch(api, {"flyout_sorting": "calver", "linkpreviews_enabled": True},
                              token=self.token)
        self.assertStatus(r, 200)
        try:
            text = self.server.get(url).body.decode()
            self.assertIn("<td><code>flyout_sorting</code></td><td>calver</td>", text)
            self.assertIn("<td><code>linkpreviews_enabled</code></td><td>on</td>", text)
        finally:
            self.server.patch(api, {"flyout_sorting": settings["flyout_sorting"],
                                    "linkpreviews_enabled": settings["linkpreviews_enabled"]},
                              token=self.token)

    # The Addons tab's form ----------------------------------------------

    def addons_form(self, cookie, slug=None):
        """The Addons tab as a logged-in browser gets it: its form."""
        r = self.server.get("/projects/%s/addons/" % (slug or self.slug),
                            headers={"Cookie": cookie})
        self.assertStatus(r, 200)
        form = Form(r.body.decode())
        self.assertEqual(form.action, "/projects/%s/addons/" % (slug or self.slug))
        return r, form

    def send_form(self, path, fields, cookie=None, origin=True, **changes):
        """POST fields (with changes; None unchecks a box) as a form."""
        fields = dict(fields, **changes)
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if cookie:
            headers["Cookie"] = cookie
        if origin:
            headers["Origin"] = self.server.base
        body = {k: v for k, v in fields.items() if v is not None}
        return self.server.request("POST", path, raw=urllib.parse.urlencode(body).encode(),
                                   headers=headers)

    def addons_settings(self):
        return self.server.get("/api/v3/projects/%s/addons/" % self.slug, token=self.token).json

    def test_addons_form_changes_settings(self):
        """An admin changes settings with the Addons tab's form: the v3
        resource shows them, every other setting as it was, and the
        browser is sent back to the tab (303), so a reload sends nothing."""
        before = self.addons_settings()
        cookie = self.server.api_login(self.token)
        r, form = self.addons_form(cookie)
        self.assertEqual(r.header("Cache-Control"), "no-store")
        self.assertEqual(r.header("X-Frame-Options"), "DENY")
        self.assertRegex(form.fields["csrf_token"], "^[0-9a-f]{64}$")
        self.assertNotIn(b"read-only", r.body)
        # Every setting is a field, showing its value now.
        for name, value in before.items():
            shown = form.fields.get(name)
            self.assertEqual(shown, {True: "on", False: None, None: ""}.get(value, value), name)
        self.assertTrue(before["hotkeys_enabled"])
        try:
            r = self.send_form(form.action, form.fields, cookie, flyout_sorting="calver",
                               linkpreviews_enabled="on", hotkeys_enabled=None,
                               linkpreviews_selector="main a")
            self.assertStatus(r, 303)
            self.assertEqual(r.header("Location"), "/projects/%s/addons/" % self.slug)
            after = self.addons_settings()
            want = dict(before, flyout_sorting="calver", linkpreviews_enabled=True,
                        hotkeys_enabled=False, linkpreviews_selector="main a")
            self.assertEqual(after, want)
            # The tab shows what was saved.
            _, form = self.addons_form(cookie)
            self.assertEqual(form.fields["flyout_sorting"], "calver")
            self.assertEqual(form.fields["linkpreviews_enabled"], "on")
            self.assertNotIn("hotkeys_enabled", form.fields)
            # An emptied field is none again.
            self.assertStatus(self.send_form(form.action, form.fields, cookie,
                                             linkpreviews_selector=""), 303)
            self.assertIsNone(self.addons_settings()["linkpreviews_selector"])
        finally:
            self.server.patch("/api/v3/projects/%s/addons/" % self.slug, before,
                              token=self.token)

    def test_addons_form_csrf(self):
        """A post without the form's token, with a wrong one, with another
        session's, or from another site is refused (403) and changes
        nothing."""
        before = self.addons_settings()
        cookie = self.server.api_login(self.token)
        _, form = self.addons_form(cookie)
        other_session = self.server.api_login(self.token)
        change = {"flyout_sorting": "calver"}
        cases = {
            "no token": dict(cookie=cookie, csrf_token=None),
            "wrong token": dict(cookie=cookie, csrf_token="0" * 64),
            "another session's token": dict(cookie=other_session),
            "no origin": dict(cookie=cookie, origin=False),
            "no session": dict(cookie=None),
        }
        for case, kw in cases.items():
            with self.subTest(case=case):
                r = self.send_form(form.action, form.fields, **dict(change, **kw))
                self.assertStatus(r, 403)
                self.assertEqual(r.header("Content-Type"), "text/html; charset=utf-8")
                self.assertIn(b"The form has expired or came from another site.", r.body)
                self.assertIn(b"Nothing was changed.", r.body)
        self.assertEqual(self.addons_settings(), before)

    def test_addons_form_for_admins_only(self):
        """Someone who does not administer the project sees no form, and
        a post of theirs, with a valid token of their own (from a project
        they do administer), is refused (403) and changes nothing."""
        before = self.addons_settings()
        r = self.server.post("/api/v3/projects/", {"name": "Bob Docs", "repository": {
            "url": "file://" + self.repos[0]}}, token=self.other)
        self.assertStatus(r, 201)
        cookie = self.server.api_login(self.other)
        _, own = self.addons_form(cookie, r.json["slug"])
        r = self.server.get("/projects/%s/addons/" % self.slug, headers={"Cookie": cookie})
        self.assertStatus(r, 200)
        self.assertIn(b"<span>bob</span>", r.body)
        self.assertNotIn(b"<form", r.body)
        self.assertIn(b"<tr><td><code>flyout_sorting</code></td><td>", r.body)
        r = self.send_form("/projects/%s/addons/" % self.slug, own.fields, cookie,
                           flyout_sorting="calver")
        self.assertStatus(r, 403)
        self.assertIn(b"Only the project&#39;s admins change its addons.", r.body)
        self.assertEqual(self.addons_settings(), before)

    def test_addons_form_bad_value(self):
        """A value the v3 PATCH refuses is refused here with the PATCH's
        message (400): the form again, naming the setting, with what was
        sent; nothing is changed, the other settings sent included."""
        before = self.addons_settings()
        cookie = self.server.api_login(self.token)
        _, form = self.addons_form(cookie)
        patch = self.server.patch("/api/v3/projects/%s/addons/" % self.slug,
                                  {"options_base_version": "nope"}, token=self.token)
        self.assertStatus(patch, 400)
        message = patch.json["options_base_version"][0]
        for name, value in (("options_base_version", "nope"), ("flyout_position", "middle"),
                            ("flyout_sorting_custom_pattern", "x" * 33)):
            with self.subTest(name=name):
                r = self.send_form(form.action, form.fields, cookie, flyout_sorting="calver",
                                   **{name: value})
                self.assertStatus(r, 400)
                text = r.body.decode()
                self.assertIn('<p class="error">Not saved: <code>%s</code>: ' % name, text)
                self.assertIn('<tr class="error"><td><label for="%s">' % name, text)
                again = Form(text)
                self.assertEqual(again.fields["flyout_sorting"], "calver")
                if name != "flyout_position":
                    self.assertEqual(again.fields[name], value)
                self.assertEqual(self.addons_settings(), before)
        r = self.send_form(form.action, form.fields, cookie, options_base_version="nope")
        self.assertIn(message, r.body.decode())

    def test_addons_form_not_for_anonymous(self):
        """An anonymous reader sees the settings, no form; a post of theirs
        is refused."""
        before = self.addons_settings()
        text = self.server.get("/projects/%s/addons/" % self.slug).body.decode()
        self.assertNotIn("<form", text)
        self.assertNotIn("csrf_token", text)
        self.assertIn('<span class="dim">read-only</span>', text)
        r = self.send_form("/projects/%s/addons/" % self.slug,
                           {"flyout_sorting": "calver", "csrf_token": "0" * 64})
        self.assertStatus(r, 403)
        self.assertEqual(self.addons_settings(), before)

    def test_themes(self):
        for theme in ("default", "dark", "light", "high-contrast"):
            with self.subTest(theme=theme):
                r = self.server.get("/_/dashboard.css?theme=" + theme)
                self.assertStatus(r, 200)
                self.assertEqual(r.header("Content-Type"), "text/css; charset=utf-8")
                self.assertIn('"%s"' % theme, r.body.decode().splitlines()[0])
                self.assertIn(".state-ok", r.body.decode())
        # The dark theme's title bar: its xterm colours, as the TUI shows them.
        dark = self.server.get("/_/dashboard.css?theme=dark").body.decode()
        self.assertIn(".title { color: #ffffff; background: #005f87; font-weight: bold;", dark)
        # A page in a theme links its stylesheet and keeps the theme in its links.
        page = self.server.get("/projects/%s/?theme=dark" % self.slug).body.decode()
        self.assertIn('href="/_/dashboard.css?theme=dark"', page)
        self.assertIn('href="/projects/%s/builds/?theme=dark"' % self.slug, page)
        self.assertIn('href="/_/dashboard.css"', self.server.get(
            "/projects/%s/?theme=nope" % self.slug).body.decode())

    def test_private_project_and_login(self):
        self.store.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = ?",
                           (self.slug,))
        try:
            home = "/projects/%s/" % self.slug
            r = self.server.get(home)
            self.assertStatus(r, 404)
            self.assertNotIn(b"Dash Docs", r.body)
            self.assertIn(b'href="/_/login/?next=/projects/%s/"' % self.slug.encode(), r.body)
            self.assertStatus(self.server.get(home, token=self.other), 404)
            self.assertStatus(self.server.get(home + "builds/1/live/"), 404)
            # By token, and by the docs login's session on this host.
            self.assertStatus(self.server.get(home, token=self.token), 200)
            session = self.server.api_login(self.token, home)
            r = self.server.get(home, headers={"Cookie": session})
            self.assertStatus(r, 200)
            self.assertIn(b"<span>alice</span>", r.body)
            # Not kept for anyone else by the response cache.
            self.assertStatus(self.server.get(home), 404)
        finally:
            self.store.execute("UPDATE projects SET privacy_level = 'public' WHERE slug = ?",
                               (self.slug,))

    def test_private_version(self):
        self.store.version(self.slug, "secret", privacy="private")
        self.assertStatus(self.server.get("/dashboard/%s/version/secret/edit/" % self.slug), 404)
        page = self.server.get("/projects/%s/versions/" % self.slug).body.decode()
        self.assertNotIn("secret", page)
        r = self.server.get("/dashboard/%s/version/secret/edit/" % self.slug, token=self.token)
        self.assertStatus(r, 200)

    # In a browser ---------------------------------------------------------

    def chromium_available(self):
        if not os.path.exists(CHROMIUM):
            raise unittest.SkipTest("%s is not installed (packaging/deps.sh installs"
                                    " Debian's chromium)" % CHROMIUM)

    def test_screenshot(self):
        self.chromium_available()
        build = self.server.get("/api/v3/projects/%s/builds/" % self.slug,
                                token=self.token).json["results"][0]
        profile = tempfile.mkdtemp(prefix="lectern-chromium-")
        try:
            for theme, name in (("dark", "dashboard-build-dark"), ("default", "dashboard-build")):
                url = build["urls"]["build"] + ("?theme=dark" if theme == "dark" else "")
                shot = os.path.join(output_dir(), "%s.png" % name)
                if os.path.exists(shot):
                    os.unlink(shot)
                done = subprocess.run(
                    [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                     "--user-data-dir=" + profile, "--no-first-run", "--hide-scrollbars",
                     "--screenshot=" + shot, "--window-size=%d,%d" % WINDOW, url],
                    capture_output=True, timeout=120)
                self.assertEqual(done.returncode, 0, done.stderr[-2000:])
                print("screenshot: %s" % shot)
                width, height, colours = png_colours(shot)
                self.assertEqual((width, height), WINDOW)
                self.assertGreaterEqual(colours, MIN_COLOURS)
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    def test_addons_form_in_a_browser(self):
        """The form as Chromium sends it, logged in by the session cookie:
        a box checked and a choice made are saved, and the browser lands
        on the tab again, which shows them."""
        self.chromium_available()
        before = self.addons_settings()
        name, value = self.server.api_login(self.token).split("=", 1)
        url = "%s/projects/%s/addons/" % (self.server.base, self.slug)
        profile = tempfile.mkdtemp(prefix="lectern-chromium-")
        browser = DevTools(profile)
        try:
            browser.call("Network.setCookie", session=True, name=name, value=value,
                         url=self.server.base + "/")
            browser.open(url)
            browser.eval("window.sent = 'yes';"
                         "document.getElementById('linkpreviews_enabled').click();"
                         "document.getElementById('flyout_sorting').value = 'calver';"
                         "document.querySelector('form button').click()")
            deadline, shown = time.time() + 30, None
            while time.time() < deadline and shown is None:
                time.sleep(0.2)
                try:
                    shown = browser.eval(
                        "window.sent === undefined && document.readyState === 'complete' ? "
                        "[location.href, document.getElementById('flyout_sorting').value, "
                        "document.getElementById('linkpreviews_enabled').checked] : null")
                except AssertionError:  # between two pages
                    pass
            self.assertEqual(shown, [url, "calver", not before["linkpreviews_enabled"]])
            self.assertEqual(self.addons_settings(), dict(
                before, flyout_sorting="calver",
                linkpreviews_enabled=not before["linkpreviews_enabled"]))
        finally:
            browser.close()
            shutil.rmtree(profile, ignore_errors=True)
            self.server.patch("/api/v3/projects/%s/addons/" % self.slug, before,
                              token=self.token)

    def test_live_log(self):
        self.chromium_available()
        repo = fixtures.make_repo(LIVE)
        self.repos.append(repo)
        r = self.server.post("/api/v3/projects/", {"name": "Live Log", "repository": {
            "url": "file://" + repo}}, token=self.token)
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        # Wait until the build has written its first line.
        deadline = time.time() + BUILD_TIMEOUT
        build = None
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                     token=self.token).json["results"]
            if builds and builds[0]["state"]["code"] != "triggered":
                live = self.server.get(self.path(builds[0]["urls"]["build"]) + "live/").json
                if "alpha" in live["log"]:
                    build = builds[0]
                    break
            time.sleep(0.2)
        self.assertIsNotNone(build, "the build never wrote its first line")
        profile = tempfile.mkdtemp(prefix="lectern-chromium-")
        browser = DevTools(profile)
        try:
            browser.open(build["urls"]["build"])
            browser.eval("window.loadedOnce = 'yes'")
            self.assertEqual(browser.eval("document.getElementById('live').dataset.state"),
                             "running")
            log = browser.eval("document.getElementById('log').innerText")
            self.assertIn("alpha", log)
            self.assertNotIn("omega", log)
            os.unlink(os.path.join(self.server.data, "checkouts", slug, "latest", "hold"))
            deadline = time.time() + LIVE_TIMEOUT
            state = None
            while time.time() < deadline:
                state = browser.eval("document.getElementById('live').dataset.state")
                if state == "done":
                    break
                time.sleep(0.5)
            self.assertEqual(state, "done")
            log = browser.eval("document.getElementById('log').innerText")
            self.assertIn("omega", log)
            self.assertLess(log.index("alpha"), log.index("omega"))
            head = browser.eval("document.getElementById('build-head').innerText")
            self.assertIn("Passed", head)
            # The same page all along: updated in place, never reloaded.
            self.assertEqual(browser.eval("window.loadedOnce"), "yes")
            shot = browser.call("Page.captureScreenshot", session=True, format="png")["data"]
            path = os.path.join(output_dir(), "dashboard-live.png")
            import base64
            with open(path, "wb") as f:
                f.write(base64.b64decode(shot))
            print("screenshot: %s" % path)
            self.assertGreaterEqual(png_colours(path)[2], MIN_COLOURS)
        finally:
            browser.close()
            shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
