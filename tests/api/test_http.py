"""Cross-cutting HTTP behaviour of `lectern serve`: the first line and a
clean stop, bad input of every kind (each a JSON error with the right
status and nothing changed), routing rules (trailing slash, unknown paths,
405 with Allow), the API root, HEAD, concurrent writers, and one server
thread serving hundreds of busy kept-alive connections without stalling."""
import os
import signal
import socket
import threading
import time

from lectern_test import Server, ServerTestCase, main


class BadInputTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("alice")

    def count(self):
        return self.server.get("/api/v3/projects/", token=self.token).json["count"]

    def post_raw(self, raw, content_type="application/json"):
        return self.server.request("POST", "/api/v3/projects/", raw=raw, token=self.token,
                                   headers={"Content-Type": content_type})

    def test_malformed_json(self):
        before = self.count()
        r = self.post_raw(b'{"name": "x", ')
        self.assertStatus(r, 400)
        self.assertTrue(r.json["detail"].startswith("JSON parse error - "), r.json)
        r = self.post_raw(b'{"name": "x"} trailing')
        self.assertStatus(r, 400)
        self.assertTrue(r.json["detail"].startswith("JSON parse error - "), r.json)
        r = self.post_raw(b'["a list"]')
        self.assertEqual((r.status, r.json),
                         (400, {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}))
        self.assertEqual(self.count(), before)

    def test_invalid_utf8_and_deep_nesting(self):
        r = self.post_raw(b'{"name": "\xff\xfe", "repository": {"url": "https://g/x"}}')
        self.assertStatus(r, 400)
        self.assertIn("detail", r.json)
        deep = b'{"a":' * 200 + b'1' + b'}' * 200
        r = self.post_raw(deep)
        self.assertStatus(r, 400)
        self.assertIn("nesting", r.json["detail"])

    def test_wrong_content_type(self):
        # Forms are parsed (test_forms.py); other types are not.
        r = self.post_raw(b"name=x", "text/plain")
        self.assertDetail(r, 415, 'Unsupported media type "text/plain" in request.')

    def test_huge_body(self):
        before = self.count()
        r = self.post_raw(b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}')
        self.assertDetail(r, 413, "Request body too large.")
        self.assertEqual(self.count(), before)

    def test_long_uri(self):
        r = self.server.get("/api/v3/projects/?name=" + "x" * 9000, token=self.token)
        self.assertDetail(r, 414, "Request URI too long.")

    def test_bad_escapes_and_nul(self):
        self.assertDetail(self.server.get("/api/v3/projects/a%00b/"), 404, "Not found.")
        self.assertDetail(self.server.get("/api/v3/projects/a%zzb/"), 404, "Not found.")

    def test_wrong_types(self):
        r = self.server.post("/api/v3/projects/", {"name": ["x"], "repository": "https://g/x"}, token=self.token)
        self.assertStatus(r, 400)
        self.assertEqual(r.json["name"], ["Not a valid string."])
        self.assertIn("repository", r.json)


class RoutingTest(ServerTestCase):
    def test_root(self):
        r = self.server.get("/api/v3/")
        self.assertStatus(r, 200)
        base = self.server.base + "/api/v3/"
        self.assertEqual(r.json, {"projects": base + "projects/", "notifications": base + "notifications/",
                                  "remote/repositories": base + "remote/repositories/",
                                  "remote/organizations": base + "remote/organizations/"})

    def test_trailing_slash_redirect(self):
        r = self.server.get("/api/v3/projects?limit=5")
        self.assertStatus(r, 301)
        self.assertEqual(r.header("Location"), "/api/v3/projects/?limit=5")

    def test_unknown_route(self):
        self.assertDetail(self.server.get("/api/v3/nothing/here/"), 404, "Not found.")
        self.assertDetail(self.server.get("/api/v3/organizations/"), 404, "Not found.")

    def test_head(self):
        r = self.server.request("HEAD", "/api/v3/")
        self.assertStatus(r, 200)
        self.assertEqual(r.body, b"")

    def test_method_not_allowed(self):
        token = self.server.token("routing")
        self.import_project(token, "Routed")
        # An admin using a method the route lacks: 405 with Allow.
        r = self.server.post("/api/v3/projects/routed/versions/latest/", {}, token=token)
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, PUT, PATCH, HEAD, OPTIONS")
        # Permissions come first: others get 403 or 401, never 405.
        other = self.server.token("someone-else")
        self.assertStatus(self.server.post("/api/v3/projects/routed/versions/latest/", {}, token=other), 403)
        self.assertStatus(self.server.post("/api/v3/projects/routed/versions/latest/", {}), 401)
        # The projects list treats unmapped methods as read-only (notes §1.9).
        self.assertStatus(self.server.delete("/api/v3/projects/", token=token), 403)

    def test_etag_and_conditional_get(self):
        token = self.server.token("etag")
        self.import_project(token, "Tagged")
        path = "/api/v3/projects/tagged/"
        first = self.server.get(path, token=token)
        etag = first.header("ETag")
        self.assertRegex(etag, r'^"[0-9a-f]{16}"$')
        self.assertEqual(self.server.get(path, token=token).header("ETag"), etag)
        # A matching If-None-Match (strong, weak, in a list, or *) is 304, no body.
        for inm in (etag, "W/" + etag, '"0000000000000000", ' + etag, "*"):
            r = self.server.get(path, token=token, headers={"If-None-Match": inm})
            self.assertStatus(r, 304)
            self.assertEqual(r.body, b"")
            self.assertEqual(r.header("ETag"), etag)
        r = self.server.get(path, token=token, headers={"If-None-Match": '"0000000000000000"'})
        self.assertStatus(r, 200)
        self.assertEqual(r.body, first.body)
        # A change to the resource changes its tag.
        self.assertStatus(self.server.patch(path, {"homepage": "https://example.com/"}, token=token), 204)
        r = self.server.get(path, token=token, headers={"If-None-Match": etag})
        self.assertStatus(r, 200)
        self.assertNotEqual(r.header("ETag"), etag)
        # Errors carry no tag.
        self.assertIsNone(self.server.get("/api/v3/projects/nope/", token=token).header("ETag"))

    def test_host_header_drives_page_links(self):
        token = self.server.token("hosty")
        for i in range(3):
            self.import_project(token, "Hosty %d" % i)
        r = self.server.get("/api/v3/projects/?limit=1", token=token, host="docs.example:9999")
        self.assertEqual(r.json["next"], "http://docs.example:9999/api/v3/projects/?limit=1&offset=1")
        r = self.server.get("/api/v3/projects/?limit=1", token=token, host="evil.example/<x>")
        self.assertTrue(r.json["next"].startswith(self.server.base + "/"), r.json["next"])


class ConcurrencyTest(ServerTestCase):
    # Forty imports by one user, past the default hour's allowance (30),
    # which test_hostile_limits.py tests.
    SERVER_ARGS = ("--import-limit", "40")

    def test_concurrent_imports(self):
        token = self.server.token("busy")
        errors = []

        def worker(n):
            for i in range(10):
                r = self.server.post("/api/v3/projects/", {
                    "name": "conc-%d-%d" % (n, i),
                    "repository": {"url": "https://github.com/x/conc-%d-%d" % (n, i)}}, token=token)
                if r.status != 201:
                    errors.append(r)
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        r = self.server.get("/api/v3/projects/?limit=100", token=token).json
        self.assertEqual(r["count"], 40)
        self.assertEqual(len({p["id"] for p in r["results"]}), 40)


class ManyConnectionsTest(ServerTestCase):
    """libmicrohttpd 0.9.75's own event loop takes at most 128 events per
    epoll_wait and, after a batch of exactly 128, waits again with its full
    timeout: with 256 requests ready at once it takes two batches and then
    blocks with all 256 unserved (until the header deadline cuts them, 10 s
    later). The server runs the loop itself and never waits while events
    are pending (src/server/server.c, loop_main)."""

    SERVER_ARGS = ("--threads", "1")
    # Twice libmicrohttpd's batch of events.
    CONNECTIONS = 256
    ROUNDS = 10
    # A round is 256 small requests (tens of milliseconds, more in a
    # sanitizer build); a stalled one takes 10 s.
    ROUND_SECONDS = 3

    def read_response(self, s):
        """Read one response on s; its status."""
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed by the server")
            got += chunk
        head, _, body = got.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = [int(line.split(b":")[1]) for line in lines[1:]
                  if line.lower().startswith(b"content-length:")][0]
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed by the server")
            body += chunk
        return int(lines[0].split()[1])

    def test_lockstep_rounds(self):
        """Each round sends one GET on every connection, then reads every
        response. The server is stopped while the requests are sent, so
        all of them are ready at once when it resumes, as they are when a
        busy thread comes back to its loop."""
        pid = self.server.proc.pid
        conns = []
        try:
            for _ in range(self.CONNECTIONS):
                s = socket.create_connection((self.server.host, self.server.port),
                                             timeout=self.ROUND_SECONDS)
                conns.append(s)
            for n in range(self.ROUNDS):
                start = time.monotonic()
                os.kill(pid, signal.SIGSTOP)
                try:
                    for s in conns:
                        s.sendall(b"GET /api/v3/ HTTP/1.1\r\nHost: x\r\n\r\n")
                finally:
                    os.kill(pid, signal.SIGCONT)
                answered = 0
                try:
                    for s in conns:
                        s.settimeout(max(0.1, start + self.ROUND_SECONDS - time.monotonic()))
                        self.assertEqual(self.read_response(s), 200)
                        answered += 1
                except (socket.timeout, ConnectionError) as e:
                    self.fail("round %d: %d of %d answered within %d s (%s)"
                              % (n, answered, self.CONNECTIONS, self.ROUND_SECONDS, e))
        finally:
            for s in conns:
                s.close()


class LifecycleTest(ServerTestCase):
    def test_restart_keeps_data(self):
        token = self.server.token("persist")
        self.import_project(token, "Persisted")
        again = Server(data=self.server.data)
        try:
            # Both run on one store: the second sees the first's writes.
            self.assertStatus(again.get("/api/v3/projects/persisted/"), 200)
            self.import_project(token, "From Second")
        finally:
            self.assertEqual(again.stop(), 0, again.log())
            again.cleanup()
        self.assertStatus(self.server.get("/api/v3/projects/from-second/"), 200)

    def test_bad_listen_and_taken_port(self):
        done = self.server.lectern("serve", "--listen", "nonsense", check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("--listen wants HOST:PORT", done.stderr)
        done = self.server.lectern("serve", "--listen", "127.0.0.1:%d" % self.server.port, check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("cannot listen", done.stderr)


if __name__ == "__main__":
    main()
