"""A hostile remote context for the CLI's terminal filter (Python stdlib
only): every text it sends carries escape sequences (a window title, a
clipboard write by OSC 52, a screen clear), C1 controls (as UTF-8 and as
raw bytes) and other control characters.

    python3 hostile_text.py

listens on 127.0.0.1:0, prints "listening on http://127.0.0.1:PORT/"
first, and answers what `projects`, `versions`, `warnings`, `search`,
`log`, `build --watch` and their --json ask for, as the hosted service
shapes it: a project whose name is hostile, a build with a hostile error
and commands, warnings and search results with hostile messages, and a
404 with a hostile detail for project "evil".
"""
import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# "\udc9b" goes out as the raw byte 0x9B (surrogateescape): an 8-bit CSI in
# a body that is not UTF-8 there.
EVIL = ("A\x1b]0;PWNED-TITLE\x07B\x1b]52;c;UFdORUQ=\x07C\x1b[2J\x1b[HD"
        "\u009b31mE\udc9bF\x07G\x08H\rI\u0085J\x7fK")
LOCK = threading.Lock()
TRIGGERED = []


def build(i, state="finished"):
    return {"id": i, "project": "project", "version": "latest",
            "state": {"code": state, "name": EVIL}, "success": False,
            "error": EVIL, "commit": "a1b2c3", "created": "2019-04-29T10:00:00Z",
            "finished": "2019-04-29T10:01:00Z", "duration": 60,
            "commands": [{"id": 1, "command": "sphinx-build " + EVIL,
                          "output": "out " + EVIL + "\n", "exit_code": 1}]}


def page(items):
    return {"count": len(items), "next": None, "previous": None,
            "results": items}


def answer(method, path, q):
    if path == "/api/v3/":
        return 200, {"projects": "/api/v3/projects/"}
    if path == "/api/v3/projects/":
        return 200, page([{"slug": "project", "name": EVIL,
                           "default_version": "latest",
                           "repository": {"url": EVIL, "type": "git"},
                           "language": {"code": "en", "name": EVIL}}])
    if path.startswith("/api/v3/projects/evil/"):
        return 404, {"detail": EVIL}
    if path == "/api/v3/projects/project/versions/latest/builds/" and method == "POST":
        with LOCK:
            TRIGGERED.append(3)
        return 202, {"build": build(3, "triggered")}
    if path == "/api/v3/projects/project/builds/":
        return 200, page([build(3)])
    if re.fullmatch(r"/api/(v3/projects/project/builds|v2/build)/3/", path):
        # The first poll after a trigger sees a state the remote names.
        with LOCK:
            watched = "v3" in path and TRIGGERED and TRIGGERED.pop()
        return 200, build(3, "building" + EVIL if watched else "finished")
    if path == "/api/v3/projects/project/builds/3/warnings/":
        return 200, page([{"file": "index" + EVIL + ".html", "line": 3,
                           "kind": "link", "message": "broken " + EVIL,
                           "new": True}])
    if path == "/api/v3/search/":
        return 200, {"count": 1, "next": None, "previous": None, "results": [{
            "type": "page", "project": {"slug": "project", "alias": None},
            "version": {"slug": "latest"}, "title": "T" + EVIL,
            "domain": "http://127.0.0.1", "path": "/en/latest/" + EVIL,
            "highlights": {"title": ["<span>T</span>" + EVIL]},
            "blocks": [{"type": "section", "id": "s", "title": "S" + EVIL,
                        "content": "c" + EVIL,
                        "highlights": {"title": [], "content": [
                            EVIL + "<span>word" + EVIL + "</span>" + EVIL]}}]}]}
    return 404, {"detail": "Not found."}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status, body = answer(self.command, url.path,
                              dict(urllib.parse.parse_qsl(url.query)))
        data = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogateescape")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("listening on http://127.0.0.1:%d/" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
