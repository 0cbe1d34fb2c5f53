"""Driving headless Chromium from a test over the DevTools protocol, with
nothing but the standard library: Chromium is started with a debugging
port on loopback, a page target is opened, and a minimal WebSocket client
(RFC 6455: one connection, text frames, client masking) sends commands and
reads their answers. What the addons' browser tests need: navigate, run
JavaScript (awaiting promises), press keys, click, type, take screenshots,
wait for a condition in the page rather than sleeping, and list the
page's JavaScript errors."""
import base64
import http.client
import json
import os
import re
import socket
import struct
import shutil
import subprocess
import tempfile
import threading
import time

# Everything here waits for the browser: a cold start takes seconds.
START_TIMEOUT = 60
COMMAND_TIMEOUT = 60


class CDPError(RuntimeError):
    pass


class WebSocket:
    """One client connection: send and receive text messages."""

    def __init__(self, host, port, path):
        self.sock = socket.create_connection((host, port), timeout=COMMAND_TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key))
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CDPError("the browser closed the connection")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise CDPError("no WebSocket upgrade: %r" % head[:200])

    def send(self, text):
        data = text.encode()
        n = len(data)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(header + mask + body)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise CDPError("the browser closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise CDPError("the browser closed the WebSocket")
            if opcode in (0x9, 0xA):  # ping, pong: nothing to answer here
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()

    def close(self):
        self.sock.close()


class Browser:
    """A headless Chromium with one page, closed by close(); profile None:
    one of its own, removed by close()."""

    def __init__(self, chromium, profile, extra_args=()):
        self.own_profile = None
        if profile is None:
            profile = self.own_profile = tempfile.mkdtemp(prefix="lectern-chromium-")
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--user-data-dir=" + profile, "--no-first-run", "--remote-debugging-port=0",
             "--remote-debugging-address=127.0.0.1",
             "--host-resolver-rules=MAP *.localhost 127.0.0.1", *extra_args, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + START_TIMEOUT
        while port is None and time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            m = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            self.close()
            raise CDPError("Chromium did not start")
        # Keep reading its log, so that a full pipe never stops it.
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        self.port = port
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=COMMAND_TIMEOUT)
        conn.request("PUT", "/json/new?about:blank")
        target = json.loads(conn.getresponse().read())
        conn.close()
        path = "/" + target["webSocketDebuggerUrl"].split("/", 3)[3]
        self.ws = WebSocket("127.0.0.1", port, path)
        self.next_id = 0
        self.events = []
        self.command("Page.enable")
        self.command("Runtime.enable")

    def command(self, method, **params):
        self.next_id += 1
        me = self.next_id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == me:
                if "error" in msg:
                    raise CDPError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def evaluate(self, expression):
        """The value of a JavaScript expression (a promise is awaited)."""
        r = self.command("Runtime.evaluate", expression=expression, awaitPromise=True,
                         returnByValue=True)
        if "exceptionDetails" in r:
            raise CDPError("%s: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, expression, timeout=20):
        """Wait until a JavaScript expression is true; its value."""
        deadline = time.time() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except CDPError as e:
                # A page navigating away meanwhile: ask the next one.
                if "navigated or closed" not in str(e) or time.time() > deadline:
                    raise
                value = None
            if value:
                return value
            if time.time() > deadline:
                raise CDPError("timed out waiting for %s" % expression)
            time.sleep(0.05)

    def navigate(self, url, ready="document.readyState === 'complete'"):
        self.command("Page.navigate", url=url)
        self.wait("location.href === %s && %s" % (json.dumps(url), ready))

    def key(self, key, code, text=None):
        """Press and release one key (text: the character it types)."""
        down = {"type": "keyDown", "key": key, "code": code}
        if text:
            down["text"] = text
        self.command("Input.dispatchKeyEvent", **down)
        self.command("Input.dispatchKeyEvent", type="keyUp", key=key, code=code)

    def click(self, expression):
        """A real mouse click at the middle of the element an expression
        names: whatever is drawn on top there gets it, as a reader's would."""
        box = self.evaluate("(() => { const r = (%s).getBoundingClientRect();"
                            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
                            % expression)
        for kind in ("mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                         button="left", clickCount=1)

    def type(self, text):
        for ch in text:
            self.key(ch, "Key" + ch.upper() if ch.isalpha() else "", ch)

    def screenshot(self, path):
        data = self.command("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def errors(self):
        """The page's JavaScript errors so far (uncaught exceptions and
        console.error), as text; the events that came between commands."""
        self.evaluate("0")
        out = []
        for msg in self.events:
            params = msg.get("params", {})
            if msg.get("method") == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                out.append(d.get("exception", {}).get("description") or d.get("text", ""))
            elif (msg.get("method") == "Runtime.consoleAPICalled" and
                  params.get("type") == "error"):
                out.append(" ".join(str(a.get("value", a.get("description", "")))
                                    for a in params.get("args", [])))
        return out

    def close(self):
        ws = getattr(self, "ws", None)
        if ws:
            ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.own_profile:
            shutil.rmtree(self.own_profile, ignore_errors=True)
