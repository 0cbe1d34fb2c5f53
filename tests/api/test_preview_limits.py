"""`lectern preview`'s server against a hostile local process (issue 36,
item 8): idle event streams, as many as the preview holds connections,
leave page requests working, and the streams of a client that left are
given back at once; connections that send nothing are cut; a flood of
clients leaving mid-request writes a few lines on the writer's terminal
and one counting the rest, not a line per connection; a path
with an encoded NUL or another control character is the same 404 the
docs host answers, never another file."""
import http.client
import json
import os
import re
import shutil
import socket
import struct
import tempfile
import time
import unittest

from lectern_test import main
from test_preview import Preview, write

# src/server/preview_daemon.c: PREVIEW_MAX_CONNECTIONS and PREVIEW_MAX_STREAMS.
MAX_CONNECTIONS = 64
MAX_STREAMS = 16
# src/server/srv_limits.h: SRV_LOG_BURST lines per SRV_LOG_WINDOW seconds,
# then one more counting those left out.
LOG_BURST = 10
LOG_WINDOW = 10
SUMMARY = re.compile(r"lectern preview: (\d+) more connection messages in 10 s not shown$")
# Clients that leave mid-request, each a libmicrohttpd message.
FLOOD = 300
# How long a page request may take while the streams are held.
PROMPT = 5
DEADLINE = 30


class PreviewLimitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-preview-limits-")
        cls.tree = os.path.join(cls.tmp, "tree")
        write(cls.tree, "index.md", "# Home\n\nWelcome home.\n")
        write(cls.tree, "index.html.txt", "not this one\n")
        cls.preview = Preview(cls.tree, "--cache", os.path.join(cls.tmp, "cache"))
        deadline = time.time() + DEADLINE
        while cls.preview.status()["state"] != "ready":
            if time.time() > deadline:
                raise AssertionError("no first build: " + cls.preview.stdout())
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        status = cls.preview.stop()
        out, err = cls.preview.stdout(), cls.preview.stderr()
        cls.preview.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if status != 0:
            raise AssertionError("preview exited %s: %s %s" % (status, out, err))
        if "Sanitizer" in err or "runtime error" in err:
            raise AssertionError("sanitizer report:\n" + err)

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.preview.port), timeout=DEADLINE)

    def open_stream(self):
        """An event stream's request: the socket and its status line's
        code, with the rest of the answer's head read."""
        s = self.connect()
        s.sendall(b"GET /_/preview/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                  % self.preview.port)
        f = s.makefile("rb")
        code = int(f.readline().split()[1])
        headers = {}
        for line in iter(f.readline, b"\r\n"):
            key, _, value = line.decode().partition(":")
            headers[key.strip().lower()] = value.strip()
        body = f.read(int(headers["content-length"])) if "content-length" in headers else b""
        return s, f, code, headers, body

    def page_promptly(self):
        start = time.time()
        status, _, body = self.preview.get("/")
        self.assertEqual(status, 200)
        self.assertIn(b"Welcome home.", body)
        self.assertLess(time.time() - start, PROMPT)

    def test_idle_streams_leave_pages_working(self):
        held = []
        try:
            answers = []
            for _ in range(MAX_CONNECTIONS):
                s, f, code, headers, body = self.open_stream()
                answers.append(code)
                if code == 200:
                    held.append((s, f))
                else:
                    # Past the cap: a clear answer, and the connection
                    # closed rather than held.
                    self.assertEqual(code, 503)
                    self.assertEqual(headers["content-type"], "application/json")
                    self.assertEqual(headers["connection"], "close")
                    self.assertIn("event streams", json.loads(body)["detail"])
                    self.assertEqual(f.read(), b"")
                    s.close()
            self.assertEqual(answers.count(200), MAX_STREAMS, answers)
            self.assertEqual(answers.count(503), MAX_CONNECTIONS - MAX_STREAMS)
            # Pages still answer, with every stream taken.
            self.page_promptly()
        finally:
            for s, f in held:
                f.close()
                s.close()
        # The streams of the clients that left are free again at once, not
        # at their next keep-alive comment (PREVIEW_KEEPALIVE_S, 15 s): each
        # is noticed within PROMPT, though not all in the same instant.
        held = []
        try:
            deadline = time.time() + PROMPT
            for _ in range(MAX_STREAMS):
                held.append(self.stream_before(deadline))
        finally:
            for s, f in held:
                f.close()
                s.close()
        self.page_promptly()

    def stream_before(self, deadline):
        """An event stream opened before the deadline, retried while the
        preview still counts a stream whose client left."""
        while True:
            s, f, code, _, _ = self.open_stream()
            if code == 200:
                return s, f
            f.close()
            s.close()
            self.assertLess(time.time(), deadline, "the left streams were not given back")
            time.sleep(0.1)

    def test_idle_connections_are_cut(self):
        # Connections that never send a request, as many as the preview
        # holds: the guard cuts them (sooner while they crowd it), so a
        # page waits a moment in the kernel's queue, is never refused.
        socks = [self.connect() for _ in range(MAX_CONNECTIONS)]
        try:
            self.page_promptly()
        finally:
            for s in socks:
                s.close()

    def test_message_flood_is_throttled(self):
        """Clients that leave in the middle of their request: a
        libmicrohttpd message each, of which the writer's terminal gets a
        few and then one line counting the rest."""
        before = len(self.preview.stderr().splitlines())
        for _ in range(FLOOD):
            s = self.connect()
            s.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Cut: "
                      % self.preview.port)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        self.page_promptly()
        # Each message is shown or counted once its window has closed.
        deadline = time.time() + LOG_WINDOW + DEADLINE
        while True:
            lines = self.preview.stderr().splitlines()[before:]
            shown = [l for l in lines if "disconnected" in l]
            counted = sum(int(m.group(1)) for m in map(SUMMARY.match, lines) if m)
            if len(shown) + counted >= FLOOD or time.time() > deadline:
                break
            time.sleep(0.1)
        # (A window's count may take in messages of the tests before.)
        self.assertGreaterEqual(len(shown) + counted, FLOOD, "\n".join(lines))
        # The flood may straddle two windows.
        self.assertLessEqual(len(lines), 2 * (LOG_BURST + 1), "\n".join(lines))
        for line in lines:
            self.assertTrue(line.startswith("lectern preview: "), line)

    def test_control_characters_in_the_path(self):
        status, _, body = self.preview.get("/index.html")
        self.assertEqual(status, 200)
        for path in ("/index.html%00.txt", "/index.html%00", "/index.html%0a.txt",
                     "/index.html%1b.txt", "/index.html%7f.txt", "/_/preview/status%00"):
            status, headers, body = self.preview.get(path)
            self.assertEqual(status, 404, path)
            self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
            self.assertNotIn(b"Welcome home.", body)
            self.assertNotIn(b"not this one", body)
        # A raw control character in the request line, too.
        s = self.connect()
        s.sendall(b"GET /index.html\x01.txt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                  b"Connection: close\r\n\r\n" % self.preview.port)
        answer = b"".join(iter(lambda: s.recv(65536), b""))
        s.close()
        self.assertNotIn(b"Welcome home.", answer)
        self.assertNotIn(b" 200 ", answer.split(b"\r\n", 1)[0])
        # An ordinary escape still names its file.
        status, _, body = self.preview.get("/index%2Ehtml")
        self.assertEqual(status, 200)
        self.assertIn(b"Welcome home.", body)


if __name__ == "__main__":
    main()
