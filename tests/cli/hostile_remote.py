"""A hostile remote for `lectern mirror` (Python stdlib only), and the
service it wants the copy to read: a "secret" one on another loopback port,
standing for whatever listens on the user's machine or network.

    python3 hostile_remote.py SECRET_LOG TURN_FILE

listens on two ports of 127.0.0.1 and prints "remote http://127.0.0.1:PORT"
and "secret http://127.0.0.1:PORT" first. The secret answers every GET with
a page holding SECRET-PAGE and appends its path to SECRET_LOG. The remote
answers the v3 project and version details the copy asks for, for four
projects whose documentation is:
  - redirects: on the remote, whose pages redirect to the secret;
  - points: on the secret itself (the version's documentation URL);
  - longnames: on the remote, a root page linking to a page whose name is
    300 bytes long and to an ordinary one, both served;
  - turns: an ordinary page on the remote until TURN_FILE exists, then a
    redirect to the secret (a remote that turns hostile between updates).
"""
import os
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET_LOG, TURN_FILE = sys.argv[1], sys.argv[2]
LONG = "a" * 300 + ".html"


def html(body):
    return ("<html><head><title>Page</title></head><body><div role=\"main\">"
            "%s</div></body></html>" % body).encode()


class Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", kind="text/html", location=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)


class Secret(Quiet):
    def do_GET(self):
        with open(SECRET_LOG, "a") as f:
            f.write(self.path + "\n")
        self.answer(200, html("<h1>SECRET-PAGE</h1>"))


class Remote(Quiet):
    def docs(self, slug):
        if slug == "points":
            return SECRET + "/points/"
        return REMOTE + "/docs/%s/" % slug

    def do_GET(self):
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts[:3] == ["api", "v3", "projects"] and len(parts) in (4, 6):
            slug = parts[3]
            if len(parts) == 4:
                body = {"slug": slug, "name": slug.title(), "default_version": "latest",
                        "language": {"code": "en", "name": "English"}}
            else:
                body = {"slug": parts[5], "verbose_name": parts[5], "active": True,
                        "built": True, "urls": {"documentation": self.docs(slug)}}
            self.answer(200, json.dumps(body).encode(), "application/json")
        elif parts[:2] == ["docs", "redirects"] or (
                parts[:2] == ["docs", "turns"] and os.path.exists(TURN_FILE)):
            self.answer(302, location=SECRET + "/" + "/".join(parts[2:]))
        elif parts[:2] == ["docs", "turns"]:
            self.answer(200, html("<h1>Turns</h1><p>Harmless so far.</p>"))
        elif parts[:2] == ["docs", "longnames"]:
            page = parts[2] if len(parts) > 2 else "index.html"
            if page == "index.html":
                self.answer(200, html('<a href="%s">long</a> <a href="ok.html">ok</a>' % LONG))
            else:
                self.answer(200, html("<h1>%s</h1><p>Words.</p>" % page[:20]))
        else:
            self.answer(404, b"{}", "application/json")


secret = ThreadingHTTPServer(("127.0.0.1", 0), Secret)
remote = ThreadingHTTPServer(("127.0.0.1", 0), Remote)
SECRET = "http://127.0.0.1:%d" % secret.server_address[1]
REMOTE = "http://127.0.0.1:%d" % remote.server_address[1]
print("remote " + REMOTE, flush=True)
print("secret " + SECRET, flush=True)
threading.Thread(target=secret.serve_forever, daemon=True).start()
remote.serve_forever()
