"""A scripted HTTP server for the API client's tests: the misbehaviours a
real instance shows only sometimes (5xx, 429 with Retry-After, malformed
JSON, slow answers) and the hosted service's response shapes, which carry
fields Lectern does not send and lack some it does.

Run with /usr/bin/python3; it listens on 127.0.0.1 on a free port and
prints "listening on http://127.0.0.1:PORT" as its first line. Per-key
counters (the `key` query parameter) let each test script its own sequence.
GET /hits?key=K answers how many requests carried that key; GET
/redirect?to=URL sends the client to URL.

Asked as localhost or a *.localhost docs host, it answers as a Lectern
(every answer carries X-Lectern); as 127.0.0.1, as the hosted service,
whose v3 search (/api/v3/search/) is on the API host and takes the token.
"""
import email.utils
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HITS = {}
LOCK = threading.Lock()


def hit(key):
    with LOCK:
        HITS[key] = HITS.get(key, 0) + 1
        return HITS[key]


# The hosted service's shapes (behaviour notes §1.5, §3.4, §4.1), with the
# extra fields Lectern does not send.
REAL_PROJECT = {
    "_links": {"_self": "/api/v3/projects/pip/", "builds": "/api/v3/projects/pip/builds/",
               "environmentvariables": "/api/v3/projects/pip/environmentvariables/",
               "notifications": "/api/v3/projects/pip/notifications/",
               "sync_versions": "/api/v3/projects/pip/sync-versions/"},
    "created": "2019-04-29T10:00:00Z", "default_branch": "main", "default_version": "stable",
    "external_builds_privacy_level": "public", "homepage": None, "id": 7,
    "language": {"code": "en", "name": "English"}, "modified": "2019-04-29T12:00:00.768630Z",
    "name": "pip", "privacy_level": "public",
    "programming_language": {"code": "py", "name": "Python"},
    "readthedocs_yaml_path": None,
    "repository": {"type": "git", "url": "https://github.com/pypa/pip"},
    "single_version": False, "slug": "pip",
    "subproject_of": {"_links": {"_self": "/api/v3/projects/pypa/"}, "slug": "pypa"},
    "tags": ["packaging", "python"], "translation_of": None,
    "urls": {"builds": "https://readthedocs.org/projects/pip/builds/",
             "documentation": "https://pip.readthedocs.io/en/stable/", "downloads": None,
             "home": "https://readthedocs.org/projects/pip/",
             "versions": "https://readthedocs.org/projects/pip/versions/"},
    "users": [{"username": "dstufft"}],
    "versioning_scheme": "multiple_versions_with_translations",
}

REAL_BUILD = {
    "_links": {"_self": "/api/v3/projects/pip/builds/99/", "notifications": "x",
               "project": "/api/v3/projects/pip/", "version": None},
    "commit": "a1b2c3", "created": "2019-04-29T10:00:00Z", "duration": None,
    "error": "", "finished": None, "id": 99, "project": "pip",
    "state": {"code": "building", "name": "Building"}, "success": None,
    "urls": {"build": "https://readthedocs.org/projects/pip/builds/99/",
             "project": "https://readthedocs.org/projects/pip/", "version": None},
    "version": None,
}

V2_BUILD = {
    "id": 7, "commands": [
        {"id": 1, "run_time": 2, "command": "git clone", "description": "", "output": "Cloning",
         "exit_code": 0, "start_time": "2019-04-29T10:00:00", "end_time": "2019-04-29T10:00:02",
         "build": 7},
        {"id": 2, "run_time": None, "command": "python -m sphinx", "description": "",
         "output": "", "exit_code": None, "start_time": "2019-04-29T10:00:03",
         "end_time": None, "build": 7}],
    "project_slug": "pip", "version_slug": "latest", "docs_url": "https://pip.readthedocs.io/en/latest/",
    "state_display": "Building", "commit_url": None, "config": {}, "type": "html",
    "state": "building", "status": None, "date": "2019-04-29T10:00:00", "healthcheck": None,
    "success": True, "commit": "a1b2c3", "version_name": "latest", "version_type": "branch",
    "length": 3, "cold_storage": False, "task_id": "t", "project": 7, "version": 12,
    "error": "",
}

ORG = {"_links": {"_self": "https://x/api/v3/organizations/acme/",
                  "projects": "https://x/api/v3/organizations/acme/projects/"},
       "created": "2019-04-29T10:00:00.123456Z", "modified": "2019-04-29T10:00:00.123456Z",
       "description": "", "disabled": False, "email": "a@example.com", "name": "Acme",
       "owners": [{"username": "alice"}, {"username": "bob"}], "slug": "acme", "url": "",
       "extra_field": {"nested": [1, 2]}}


def search_result(i):
    return {"type": "page", "project": "pip", "project_alias": None, "version": "latest",
            "title": "Page %d" % i, "domain": "https://pip.readthedocs.io",
            "path": "/en/latest/page%d.html" % i, "rank": 3,
            "highlights": {"title": ["<span>Page</span> %d" % i]},
            "blocks": [{"type": "section", "id": "install", "title": "Install",
                        "content": "pip install", "highlights": {
                            "title": [], "content": ["<span>pip</span> install"]}},
                       {"type": "domain", "role": "py:function", "name": "pip.main",
                        "id": "pip.main", "content": "Run pip.",
                        "highlights": {"name": ["<span>pip</span>.main"], "content": []}}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if status != 304:
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host == "localhost" or host.endswith(".localhost"):
            self.send_header("X-Lectern", "1")
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def page_links(self, path, params, total, limit, offset):
        base = "http://%s%s" % (self.headers["Host"], path)

        def at(off):
            p = dict(params)
            p["limit"] = str(limit)
            p["offset"] = str(off)
            return base + "?" + urllib.parse.urlencode(sorted(p.items()))
        nxt = at(offset + limit) if offset + limit < total else None
        prev = at(max(offset - limit, 0)) if offset > 0 else None
        return nxt, prev

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        path = url.path
        if path == "/hits":
            with LOCK:
                return self.send(200, {"hits": HITS.get(q["key"], 0)})
        n = hit(q.get("key", path))
        if path == "/echo" or path.startswith("/echo/"):
            return self.send(200, {
                "method": self.command, "path": url.path, "query": url.query,
                "authorization": self.headers.get("Authorization"),
                "if_none_match": self.headers.get("If-None-Match"),
                "user_agent": self.headers.get("User-Agent"),
                "content_type": self.headers.get("Content-Type"),
                "host": self.headers.get("Host"), "body": body})
        if path == "/flaky":
            # fails=N failures with status=S, then 200.
            if n <= int(q.get("fails", "1")):
                return self.send(int(q.get("status", "500")),
                                 {"detail": "Server is having a bad day."})
            return self.send(200, {"ok": True, "attempts": n})
        if path == "/throttle":
            if n <= int(q.get("fails", "1")):
                after = q.get("after", "1")
                if after == "date":
                    after = email.utils.formatdate(time.time() + 2, usegmt=True)
                hdrs = [] if after == "none" else [("Retry-After", after)]
                return self.send(429, {"detail": "Request was throttled. Expected available in 1 second."},
                                 headers=hdrs)
            return self.send(200, {"ok": True, "attempts": n})
        if path == "/status":
            code = int(q["code"])
            raw = q.get("body", "")
            return self.send(code, raw, ctype=q.get("ctype", "application/json"))
        if path == "/malformed":
            return self.send(200, '{"count": 3, "results": [', ctype="application/json")
        if path == "/html":
            return self.send(200, "<html>hello</html>", ctype="text/html")
        if path == "/redirect":
            return self.send(302, headers=[("Location", q["to"])])
        if path == "/slow":
            time.sleep(float(q.get("seconds", "2")))
            return self.send(200, {"ok": True})
        if path == "/etag":
            tag = '"v%s"' % q.get("version", "1")
            if self.headers.get("If-None-Match") == tag:
                return self.send(304, headers=[("ETag", tag)])
            return self.send(200, {"version": q.get("version", "1")}, headers=[("ETag", tag)])
        if path == "/items/":
            # A limit/offset list of `total` items, DRF-style links.
            total = int(q.get("total", "25"))
            limit = int(q.get("limit", "10"))
            offset = int(q.get("offset", "0"))
            params = {k: v for k, v in q.items() if k not in ("limit", "offset")}
            nxt, prev = self.page_links(path, params, total, limit, offset)
            items = [{"id": i, "slug": "p%d" % i, "name": "Project %d" % i, "surprise": [i]}
                     for i in range(offset, min(offset + limit, total))]
            return self.send(200, {"count": total, "next": nxt, "previous": prev,
                                   "results": items})
        if path == "/loop/":
            me = "http://%s/loop/" % self.headers["Host"]
            return self.send(200, {"count": 1, "next": me, "previous": None,
                                   "results": [{"id": 1}]})
        if path == "/api/v3/projects/pip/":
            return self.send(200, REAL_PROJECT)
        if path == "/api/v3/projects/minimal/":
            return self.send(200, {"slug": "minimal"})
        if path == "/api/v3/projects/pip/builds/99/":
            return self.send(200, REAL_BUILD)
        if path == "/api/v3/projects/pip/versions/latest/builds/":
            return self.send(202, {"build": REAL_BUILD, "project": REAL_PROJECT,
                                   "version": {"slug": "latest"}})
        if path == "/api/v2/build/7/":
            return self.send(200, V2_BUILD)
        if path == "/api/v3/organizations/acme/":
            return self.send(200, ORG)
        if path == "/api/v2/project/":
            return self.send(410, {"error": "disabled", "msg": "List endpoint have been disabled due to heavy resource usage."})
        if path == "/api/v3/embed/":
            return self.send(200, {"url": q.get("url"), "fragment": "install",
                                   "content": "<section id=\"install\">x</section>",
                                   "external": False})
        if path == "/_/api/v2/search/":
            page = int(q.get("page", "1"))
            size = int(q.get("page_size", "2"))
            total = 3
            start = (page - 1) * size
            results = [search_result(i) for i in range(start, min(start + size, total))]
            nxt = None
            if start + size < total:
                p = dict(q)
                p["page"] = str(page + 1)
                nxt = "http://%s%s?%s" % (self.headers["Host"], path,
                                          urllib.parse.urlencode(sorted(p.items())))
            return self.send(200, {"count": total, "next": nxt, "previous": None,
                                   "results": results, "host": self.headers["Host"]})
        if path == "/api/v3/search/":
            if not self.headers.get("Authorization"):
                return self.send(401, {"detail": "Authentication credentials were not provided."})
            results = [search_result(i) for i in range(2)]
            for r in results:
                r["project"] = {"slug": r.pop("project"), "alias": None}
                r["version"] = {"slug": "latest"}
            return self.send(200, {"count": 2, "next": None, "previous": None,
                                   "projects": [{"slug": "pip", "versions": [{"slug": "latest"}]}],
                                   "query": q.get("q"), "results": results})
        if path.startswith("/en/latest/"):
            tag = '"doc1"'
            if self.headers.get("If-None-Match") == tag:
                return self.send(304, headers=[("ETag", tag)])
            return self.send(200, "<h1>%s</h1>" % self.headers["Host"], ctype="text/html",
                             headers=[("ETag", tag)])
        return self.send(404, {"detail": "Not found."})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
