"""Hostile clients and unsafe input against a real `lectern serve` (issue 14,
findings 6 and 8): a slow-client flood from one loopback address while
another is served, the per-address connection limit, headers trickled past
their deadline, Lectern's JSON answers below libmicrohttpd's own HTML ones,
405 for unknown methods, the bad-input table (NUL, control characters by
field, invalid UTF-8 in body, query and path), the rate-limited connection
log, and the CSRF token of the docs login form.

All traffic stays on loopback: every address of 127.0.0.0/8 is this host,
so the flood comes from 127.0.0.2 and the measured client from 127.0.0.1.
The test raises its own open-file limit for the flood's sockets.
"""
import json
import re
import resource
import socket
import threading
import time
import urllib.parse

from lectern_test import ServerTestCase, main

# The server's limits (src/server/srv_limits.h) the assertions depend on.
MAX_CONNECTIONS_PER_IP = 512
HEADER_SECONDS = 10
HEADER_SECONDS_CROWDED = 2
CROWDED_CONNECTIONS = 2048
LOG_BURST = 10
LOG_WINDOW = 10
MAX_URI = 8192
MAX_HEADER_BYTES = 16 * 1024
MAX_BODY = 512 * 1024

# The flood: more slow clients than the server's old connection cap, each
# sending a byte of its headers now and then.
FLOOD_CLIENTS = 2000
FLOOD_ROUNDS = 4
# Opening thousands of connections to a sanitizer build on a busy machine:
# a SYN may wait for the accept queue.
BULK_CONNECT_TIMEOUT = 15


def parse_response(data):
    """(status, headers dict with lower-case names, body bytes) of one raw
    HTTP response, or None when nothing came."""
    if not data:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


class HostileTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        super().setUpClass()
        cls.token = cls.server.token("alice")
        cls.server.import_project(cls.token, "Docs")
        cls.server.import_project(cls.token, "Other")

    # Raw HTTP, so nothing is tidied on the way.

    def connect(self, source="127.0.0.1", timeout=5):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        s.settimeout(timeout)
        s.connect((self.server.host, self.server.port))
        return s

    def exchange(self, data, source="127.0.0.1", timeout=10):
        """Send data, read until the server closes or one whole response
        (by Content-Length) is in; the parsed response."""
        s = self.connect(source, timeout)
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it may answer before reading everything
        got = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
                head, sep, body = got.partition(b"\r\n\r\n")
                m = re.search(rb"(?i)content-length: *(\d+)", head)
                if sep and m and len(body) >= int(m.group(1)):
                    break
        except ConnectionResetError:
            pass
        finally:
            s.close()
        return parse_response(got)

    def assertJsonError(self, response, status):
        self.assertIsNotNone(response)
        got_status, headers, body = response
        self.assertEqual(got_status, status, body[:200])
        self.assertEqual(headers.get("content-type"), "application/json")
        return json.loads(body.decode("utf-8"))

    def timed_get(self):
        """A normal request from 127.0.0.1: (seconds, status)."""
        start = time.monotonic()
        r = self.exchange(b"GET /api/v3/ HTTP/1.1\r\nHost: x\r\n"
                          b"Connection: close\r\n\r\n", timeout=5)
        return time.monotonic() - start, r[0] if r else None

    # Hostile clients.

    def test_slow_client_flood(self):
        """2,000 slow clients from 127.0.0.2 do not stop 127.0.0.1 being
        answered within a second."""
        flood = []
        try:
            for _ in range(FLOOD_CLIENTS):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                s.bind(("127.0.0.2", 0))
                try:
                    s.connect((self.server.host, self.server.port))
                except BlockingIOError:
                    pass
                flood.append(s)
            time.sleep(0.5)
            worst = 0
            for i in range(FLOOD_ROUNDS):
                for s in flood:
                    try:
                        s.send(b"GET /api/v3/ HTTP/1.1\r\n" if i == 0 else b"X")
                    except OSError:
                        pass  # refused by the per-address limit
                took, status = self.timed_get()
                self.assertEqual(status, 200)
                worst = max(worst, took)
                time.sleep(0.5)
            self.assertLess(worst, 1.0)
        finally:
            for s in flood:
                s.close()

    def test_crowded_deadline(self):
        """Slow clients from many addresses, more than CROWDED_CONNECTIONS
        in all: the header deadline drops to HEADER_SECONDS_CROWDED, and
        127.0.0.1 is still answered within a second."""
        addresses = ["127.0.0.%d" % (6 + i) for i in
                     range(CROWDED_CONNECTIONS // MAX_CONNECTIONS_PER_IP + 1)]
        needed = len(addresses) * MAX_CONNECTIONS_PER_IP + 100
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < needed:
            self.skipTest("needs %d open files" % needed)
        held = []
        try:
            start = time.monotonic()
            for address in addresses:
                for _ in range(MAX_CONNECTIONS_PER_IP):
                    held.append(self.connect(address, timeout=BULK_CONNECT_TIMEOUT))
            for s in held:
                s.sendall(b"GET /api/v3/ HTTP/1.1\r\n")
            took, status = self.timed_get()
            self.assertEqual(status, 200)
            self.assertLess(took, 1.0)
            # All cut well before the normal deadline.
            for s in held:
                s.settimeout(max(0.1, start + HEADER_SECONDS - 2 - time.monotonic()))
                try:
                    while s.recv(4096):
                        pass
                except ConnectionResetError:
                    pass
            self.assertLess(time.monotonic() - start, HEADER_SECONDS - 2)
        finally:
            for s in held:
                s.close()

    def test_per_address_limit(self):
        """One address holds at most MAX_CONNECTIONS_PER_IP connections;
        the others are closed at once, and other addresses still get in."""
        held = []
        try:
            for _ in range(MAX_CONNECTIONS_PER_IP + 50):
                held.append(self.connect("127.0.0.3", timeout=BULK_CONNECT_TIMEOUT))
            time.sleep(1)
            open_ = 0
            for s in held:
                s.setblocking(False)
                try:
                    if s.recv(1) != b"":
                        open_ += 1
                except BlockingIOError:
                    open_ += 1  # nothing to read: still open
                except ConnectionResetError:
                    pass
            self.assertEqual(open_, MAX_CONNECTIONS_PER_IP)
            self.assertEqual(self.timed_get()[1], 200)
        finally:
            for s in held:
                s.close()

    def test_trickled_headers_cut_off(self):
        """Headers trickled a byte every half second are cut off after
        HEADER_SECONDS (408 with a JSON body), however the bytes keep
        coming; a connection that sends nothing is closed as well."""
        trickler = self.connect("127.0.0.4", timeout=0.5)
        idle = self.connect("127.0.0.4", timeout=0.5)
        start = time.monotonic()
        trickler.sendall(b"GET /api/v3/ HTTP/1.1\r\nHost: x\r\n")
        got, idle_closed, cut_at = b"", None, None
        try:
            while time.monotonic() - start < HEADER_SECONDS + 4:
                try:
                    trickler.send(b"X")
                    chunk = trickler.recv(4096)
                    if not chunk:
                        cut_at = time.monotonic() - start
                        break
                    got += chunk
                except socket.timeout:
                    pass
                except OSError:
                    cut_at = time.monotonic() - start
                    break
                if idle_closed is None:
                    try:
                        idle.setblocking(False)
                        if idle.recv(1) == b"":
                            idle_closed = time.monotonic() - start
                    except BlockingIOError:
                        pass
            if idle_closed is None:
                # Cut by the same sweep as the trickler, most likely.
                idle.setblocking(True)
                idle.settimeout(2)
                try:
                    if idle.recv(1) == b"":
                        idle_closed = time.monotonic() - start
                except socket.timeout:
                    pass
        finally:
            trickler.close()
            idle.close()
        self.assertIsNotNone(cut_at, "still connected after %ds" % (HEADER_SECONDS + 4))
        self.assertGreater(cut_at, HEADER_SECONDS - 1)
        body = self.assertJsonError(parse_response(got), 408)
        self.assertEqual(body, {"detail": "Request headers not received in time."})
        self.assertIsNotNone(idle_closed)

    def test_limits_answer_json(self):
        """URI, header and body limits are Lectern's, below libmicrohttpd's,
        so the answer is JSON, not libmicrohttpd's HTML."""
        r = self.exchange(b"GET /api/v3/projects/?q=" + b"x" * (MAX_URI + 100) +
                          b" HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(self.assertJsonError(r, 414), {"detail": "Request URI too long."})
        big = b"X-Big: " + b"a" * (MAX_HEADER_BYTES + 100) + b"\r\n"
        many = b"".join(b"X-%d: a\r\n" % i for i in range(200))
        for extra in (big, many):
            r = self.exchange(b"GET /api/v3/ HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n")
            self.assertEqual(self.assertJsonError(r, 431),
                             {"detail": "Request header fields too large."})
        # Announced too large to a client waiting for "100 Continue":
        # refused before the body is sent.
        r = self.exchange(b"POST /api/v3/projects/ HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/json\r\n"
                          b"Expect: 100-continue\r\n"
                          b"Content-Length: 100000000\r\n\r\n")
        self.assertEqual(self.assertJsonError(r, 413), {"detail": "Request body too large."})
        # Chunked, so only counted on the way in.
        chunk = b"a" * 65536
        body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk)
                        for _ in range(MAX_BODY // len(chunk) + 2)) + b"0\r\n\r\n"
        r = self.exchange(b"POST /api/v3/projects/ HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/json\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\n" + body)
        self.assertEqual(self.assertJsonError(r, 413), {"detail": "Request body too large."})

    def test_unknown_methods_405(self):
        for method in (b"PROPFIND", b"TRACE"):
            r = self.exchange(method + b" /api/v3/projects/ HTTP/1.1\r\nHost: x\r\n\r\n")
            body = self.assertJsonError(r, 405)
            self.assertEqual(body, {"detail": 'Method "%s" not allowed.' % method.decode()})
            self.assertEqual(r[1]["allow"], "GET, POST, HEAD, OPTIONS")
        host = ("docs.localhost:%d" % self.server.port).encode()
        r = self.exchange(b"PROPFIND /en/latest/ HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        self.assertEqual(self.assertJsonError(r, 405), {"detail": 'Method "PROPFIND" not allowed.'})
        self.assertEqual(r[1]["allow"], "GET, HEAD")

    def test_connection_log_rate_limited(self):
        """Clients that drop their connection mid-request write at most
        LOG_BURST lines per LOG_WINDOW seconds, then one line counting the
        rest."""
        def aborted_lines():
            return self.server.log().count("incomplete request")

        def summaries():
            return len(re.findall(r"more connection messages in \d+ s not shown",
                                  self.server.log()))
        before, before_summaries = aborted_lines(), summaries()
        for _ in range(200):
            s = self.connect("127.0.0.5")
            s.sendall(b"GET /api/v3/ HTTP/1.1\r\nHost: x\r\n")
            s.close()
        time.sleep(1)
        self.assertLessEqual(aborted_lines() - before, LOG_BURST)
        deadline = time.monotonic() + LOG_WINDOW + 3
        while summaries() == before_summaries and time.monotonic() < deadline:
            time.sleep(0.25)
        self.assertGreater(summaries(), before_summaries, self.server.log()[-2000:])

    # Input validation.

    def count_projects(self):
        return self.server.get("/api/v3/projects/", token=self.token).json["count"]

    def post_raw(self, path, raw):
        return self.server.request("POST", path, raw=raw, token=self.token,
                                   headers={"Content-Type": "application/json"})

    def test_bad_input_table(self):
        """NUL anywhere, control characters in single-line fields: 400
        naming the field, nothing stored; free-text fields keep their
        line breaks."""
        single_line = "Line breaks and other control characters are not allowed in this field."
        nul = "Null characters are not allowed."
        repo = {"url": "https://example.com/x.git", "type": "git"}
        projects = "/api/v3/projects/"
        redirects = "/api/v3/projects/docs/redirects/"
        envvars = "/api/v3/projects/docs/environmentvariables/"
        redirect = {"from_url": "/a/", "to_url": "/b/", "type": "page"}
        table = [
            (projects, {"name": "a\u0000b", "repository": repo}, ["name"], nul),
            (projects, {"name": "a\rb", "repository": repo}, ["name"], single_line),
            (projects, {"name": "a\nb", "repository": repo}, ["name"], single_line),
            (projects, {"name": "a\tb", "repository": repo}, ["name"], single_line),
            (projects, {"name": "a\u0085b", "repository": repo}, ["name"], single_line),
            (projects, {"name": "ok", "repository": {"url": "https://e.com/\r\nX: y"}},
             ["repository", "url"], single_line),
            (projects, {"name": "ok", "repository": repo, "homepage": "https://e.com/\n"},
             ["homepage"], single_line),
            (projects, {"name": "ok", "repository": repo, "language": "en\n"},
             ["language"], single_line),
            (projects, {"name": "ok", "repository": repo, "tags": ["a", "b\nc"]},
             ["tags"], single_line),
            (redirects, dict(redirect, to_url="/b/\r\nSet-Cookie: x=1"), ["to_url"], single_line),
            (redirects, dict(redirect, from_url="/a/\n"), ["from_url"], single_line),
            (redirects, dict(redirect, description="ok\u0000"), ["description"], nul),
            (redirects, dict(redirect, description="bell\u0007"), ["description"],
             "Control characters other than line breaks and tabs are not allowed."),
            (envvars, {"name": "A\nB", "value": "v"}, ["name"], single_line),
            (envvars, {"name": "A", "value": "v\u0000"}, ["value"], nul),
        ]
        projects_before = self.count_projects()
        redirects_before = self.server.get(redirects, token=self.token).json["count"]
        for path, body, field, message in table:
            r = self.server.post(path, body, token=self.token)
            self.assertStatus(r, 400)
            expected = [message]
            for key in reversed(field):
                expected = {key: expected}
            self.assertEqual(r.json, expected, body)
        self.assertEqual(self.count_projects(), projects_before)
        self.assertEqual(self.server.get(redirects, token=self.token).json["count"],
                         redirects_before)
        # Free-text fields keep their line breaks and tabs.
        r = self.server.post(redirects, dict(redirect, from_url="/nl/",
                                             description="first\nsecond\r\n\tindented"),
                             token=self.token)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["description"], "first\nsecond\r\n\tindented")
        r = self.server.post(envvars, {"name": "PEM", "value": "-----BEGIN-----\nabc\n"},
                             token=self.token)
        self.assertStatus(r, 201)

    def test_invalid_utf8(self):
        """Invalid UTF-8 in the body, the query or the path: 400 with a
        JSON body that is itself valid UTF-8."""
        body = b'{"name": "a\xff\xfeb"}'
        cases = [
            b"GET /api/v2/search/?q=%ff%fe&project=docs&version=latest HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /api/v2/search/?q=\xff\xfe&project=docs&version=latest HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /api/v3/projects/%ff/ HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /en/%%c3%%28/ HTTP/1.1\r\nHost: docs.localhost:%d\r\n\r\n" % self.server.port,
            b"POST /api/v3/projects/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token "
            + self.token.encode() + b"\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + body,
        ]
        for raw in cases:
            r = self.exchange(raw)
            body = self.assertJsonError(r, 400)
            self.assertIn("detail", body, raw)
            self.assertIn("UTF-8", body["detail"])
        # A valid query is still served, percent-encoded UTF-8 included.
        q = urllib.parse.quote("größe")
        r = self.server.get("/api/v2/search/?q=%s&project=docs&version=latest" % q)
        self.assertNotEqual(r.status, 400, r)

    # The docs login form, on the API's host (a docs host sends browsers
    # there: test_docs_serving.py).

    def docs_host(self, slug="docs"):
        return "%s.localhost:%d" % (slug, self.server.port)

    def api_host(self, name="localhost"):
        return "%s:%d" % (name, self.server.port)

    def login_form(self, host=None):
        r, cookie, token = self.server.login_form(host or self.api_host())
        self.assertStatus(r, 200)
        self.assertTrue(cookie.startswith("lectern_csrf="), cookie)
        return cookie, token

    def login(self, fields, cookie=None, headers=None, host=None):
        hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
        if cookie:
            hdrs["Cookie"] = cookie
        hdrs.update(headers or {})
        return self.server.request("POST", "/_/login/", host=host or self.api_host(),
                                   raw=urllib.parse.urlencode(fields).encode(),
                                   headers=hdrs)

    def assertRefused(self, r):
        self.assertStatus(r, 403)
        self.assertIsNone(r.header("Set-Cookie"))

    def test_login_csrf(self):
        cookie, csrf = self.login_form()
        fields = {"token": self.token, "next": "/en/latest/", "host": self.docs_host()}
        # No token, no cookie, a token of another cookie or another host, a
        # post from another origin (a docs host's page: a build's output):
        # refused before the API token is read.
        self.assertRefused(self.login(fields))
        self.assertRefused(self.login(fields, cookie=cookie))
        self.assertRefused(self.login(dict(fields, csrf_token=csrf)))
        other_cookie, other_csrf = self.login_form()
        self.assertNotEqual(other_cookie, cookie)
        self.assertRefused(self.login(dict(fields, csrf_token=other_csrf), cookie=cookie))
        _, foreign = self.login_form(self.api_host("127.0.0.1"))
        self.assertRefused(self.login(dict(fields, csrf_token=foreign), cookie=cookie))
        self.assertRefused(self.login(dict(fields, csrf_token=csrf), cookie=cookie,
                                      headers={"Origin": "http://" + self.docs_host()}))
        # The form's own token with its cookie: logged in, and on to the
        # docs host with a ticket.
        r = self.login(dict(fields, csrf_token=csrf), cookie=cookie,
                       headers={"Origin": "http://" + self.api_host()})
        self.assertStatus(r, 302)
        self.assertTrue(r.header("Location").startswith(
            "http://%s/_/login/?ticket=" % self.docs_host()), r.header("Location"))
        self.assertTrue(r.header("Location").endswith("&next=/en/latest/"))
        self.assertTrue(r.header("Set-Cookie").startswith("lectern_session="))
        # A form shown again keeps the visitor's nonce.
        r = self.server.get("/_/login/", host=self.api_host(), headers={"Cookie": cookie})
        self.assertIsNone(r.header("Set-Cookie"))
        self.assertIn(csrf.encode(), r.body)
        self.assertEqual(r.header("Cache-Control"), "no-store")

    def test_login_csrf_second_round(self):
        # Issue 27, item 11. A post naming no origin at all (no Origin, no
        # Referer) logged a visitor in as the attacker.
        cookie, csrf = self.login_form()
        fields = {"token": self.token, "next": "/", "csrf_token": csrf}
        self.assertRefused(self.login(fields, cookie=cookie))
        self.assertRefused(self.login(fields, cookie=cookie, headers={
            "Referer": "http://%s/en/latest/" % self.docs_host()}))
        r = self.login(fields, cookie=cookie, headers={
            "Referer": "http://%s/_/login/?next=/" % self.api_host()})
        self.assertStatus(r, 302)
        # A nonce the client chose is never signed: the form replaces it.
        chosen = "lectern_csrf=" + "0" * 32
        r = self.server.get("/_/login/", host=self.api_host(), headers={"Cookie": chosen})
        self.assertTrue(r.header("Set-Cookie").startswith("lectern_csrf="))
        self.assertNotEqual(r.header("Set-Cookie").split(";")[0], chosen)
        # Nor is another host's: a nonce is signed for its host.
        other_cookie, _ = self.login_form(self.api_host("127.0.0.1"))
        r = self.server.get("/_/login/", host=self.api_host(), headers={"Cookie": other_cookie})
        self.assertIsNotNone(r.header("Set-Cookie"))

if __name__ == "__main__":
    main()
