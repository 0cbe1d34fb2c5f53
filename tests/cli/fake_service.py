"""A stand-in for the hosted service's API v3 (Python stdlib only), for the
CLI's tests of a remote that is not a Lectern.

    python3 fake_service.py LOGFILE TOKEN

listens on 127.0.0.1:0, prints "listening on http://127.0.0.1:PORT" first,
and appends one line per request to LOGFILE: "METHOD PATH auth|noauth".
Its answers are shaped like the service's v3 test fixtures
(readthedocs/api/v3/tests/responses/*.json: projects-list, projects-detail,
projects-builds-list, projects-versions-detail), written here from those
shapes with fields Lectern never sends, and it has what the service has
and Lectern adds nothing to: no X-Lectern header, no ETag, v3 search on the
API host (/api/v3/search/, token required), no /_/api/v2/search/ there
(404), no v2 build detail (the service's v2 cannot show a private
project's builds; the v3 build detail can). The first search is throttled once (429, Retry-After: 1), as the
service does per minute. With FAKE_PROJECTS=N in the environment it has N
more projects, p01 to pNN, each with finished builds, for counting what
an idle screen of many projects costs.
"""
import json
import os
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG, TOKEN = sys.argv[1], sys.argv[2]
EXTRA = ["p%02d" % i for i in range(1, int(os.environ.get("FAKE_PROJECTS", "0")) + 1)]
LOCK = threading.Lock()
THROTTLED = set()
BASE = ""


def project(slug, name):
    return {
        "_links": {"_self": BASE + "/api/v3/projects/%s/" % slug,
                   "builds": BASE + "/api/v3/projects/%s/builds/" % slug,
                   "environmentvariables": BASE + "/api/v3/projects/%s/environmentvariables/" % slug,
                   "notifications": BASE + "/api/v3/projects/%s/notifications/" % slug,
                   "redirects": BASE + "/api/v3/projects/%s/redirects/" % slug,
                   "subprojects": BASE + "/api/v3/projects/%s/subprojects/" % slug,
                   "superproject": BASE + "/api/v3/projects/%s/superproject/" % slug,
                   "sync_versions": BASE + "/api/v3/projects/%s/sync-versions/" % slug,
                   "translations": BASE + "/api/v3/projects/%s/translations/" % slug,
                   "versions": BASE + "/api/v3/projects/%s/versions/" % slug},
        "created": "2019-04-29T10:00:00Z", "default_branch": "main",
        "default_version": "latest", "external_builds_enabled": False,
        "external_builds_privacy_level": "public", "homepage": "http://project.com",
        "id": 1, "language": {"code": "en", "name": "English"},
        "modified": "2019-04-29T12:00:00Z", "name": name, "privacy_level": "public",
        "programming_language": {"code": "words", "name": "Only Words"},
        "repository": {"type": "git", "url": "https://github.com/rtfd/%s" % slug},
        "single_version": False, "slug": slug, "subproject_of": None, "tags": ["tag", "project"],
        "translation_of": None, "users": [{"username": "testuser"}],
        "urls": {"builds": "https://readthedocs.org/projects/%s/builds/" % slug,
                 "documentation": "http://%s.readthedocs.io/en/latest/" % slug,
                 "downloads": "https://readthedocs.org/projects/%s/downloads/" % slug,
                 "home": "https://readthedocs.org/projects/%s/" % slug,
                 "versions": "https://readthedocs.org/projects/%s/versions/" % slug},
        "versioning_scheme": "multiple_versions_with_translations",
    }


def build(slug, i):
    return {
        "_links": {"_self": BASE + "/api/v3/projects/%s/builds/%d/" % (slug, i),
                   "notifications": BASE + "/api/v3/projects/%s/builds/%d/notifications/" % (slug, i),
                   "project": BASE + "/api/v3/projects/%s/" % slug,
                   "version": BASE + "/api/v3/projects/%s/versions/v1.0/" % slug},
        "commit": "a1b2c3", "created": "2019-04-29T10:00:00Z", "duration": 60,
        "error": "", "finished": "2019-04-29T10:01:00Z", "id": i, "project": slug,
        "state": {"code": "finished", "name": "Finished"}, "success": True,
        "urls": {"build": "https://readthedocs.org/projects/%s/builds/%d/" % (slug, i),
                 "project": "https://readthedocs.org/projects/%s/" % slug,
                 "version": "https://readthedocs.org/projects/%s/v1.0/" % slug},
        "version": "v1.0",
    }


def version(slug):
    return {
        "_links": {"_self": BASE + "/api/v3/projects/%s/versions/v1.0/" % slug,
                   "builds": BASE + "/api/v3/projects/%s/versions/v1.0/builds/" % slug,
                   "project": BASE + "/api/v3/projects/%s/" % slug},
        "active": True, "aliases": [], "built": True,
        "downloads": {}, "hidden": False, "id": 3, "identifier": "a1b2c3",
        "privacy_level": "public", "ref": None, "slug": "v1.0", "type": "tag",
        "urls": {"dashboard": {"edit": "https://readthedocs.org/dashboard/%s/version/v1.0/edit/" % slug},
                 "documentation": "http://%s.readthedocs.io/en/v1.0/" % slug,
                 "vcs": "https://github.com/rtfd/%s/tree/v1.0/" % slug},
        "verbose_name": "v1.0",
    }


def projects():
    return ([project("project", "project"), project("other", "Other project")] +
            [project(slug, "Project %s" % slug) for slug in EXTRA])


def page(items, q, path):
    limit = int(q.get("limit", "1"))
    offset = int(q.get("offset", "0"))
    nxt = None
    if offset + limit < len(items):
        nxt = "%s%s?limit=%d&offset=%d" % (BASE, path, limit, offset + limit)
    return {"count": len(items), "next": nxt, "previous": None,
            "results": items[offset:offset + limit]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        q = dict(urllib.parse.parse_qsl(url.query))
        auth = self.headers.get("Authorization")
        with LOCK, open(LOG, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, "auth" if auth else "noauth"))
        if auth != "Token " + TOKEN:
            return self.send(401, {"detail": "Authentication credentials were not provided."})
        if path == "/api/v3/":
            return self.send(200, {"projects": BASE + "/api/v3/projects/"})
        if path == "/api/v3/projects/":
            return self.send(200, page(projects(), q, path))
        if path == "/api/v3/projects/project/":
            return self.send(200, projects()[0])
        if path == "/api/v3/projects/project/builds/":
            return self.send(200, page([build("project", i) for i in (3, 2, 1)], q, path))
        m = re.fullmatch(r"/api/v3/projects/(p\d\d)/builds/", path)
        if m and m.group(1) in EXTRA:
            return self.send(200, page([build(m.group(1), i) for i in (2, 1)], q, path))
        # A version's builds (the list a project's last build comes from):
        # the fake's builds are of its one version, which its default,
        # latest, stands for too.
        m = re.fullmatch(r"/api/v3/projects/(project|p\d\d)/versions/(latest|v1\.0)/builds/", path)
        if m and m.group(1) in ["project"] + EXTRA:
            ids = (3, 2, 1) if m.group(1) == "project" else (2, 1)
            return self.send(200, page([build(m.group(1), i) for i in ids], q, path))
        m = re.fullmatch(r"/api/v3/projects/project/builds/([123])/", path)
        if m:
            return self.send(200, build("project", int(m.group(1))))
        if path == "/api/v3/projects/project/versions/":
            return self.send(200, page([version("project")], q, path))
        if path == "/api/v3/projects/project/versions/v1.0/":
            return self.send(200, version("project"))
        if path == "/api/v3/search/":
            with LOCK:
                first = "search" not in THROTTLED
                THROTTLED.add("search")
            if first:
                return self.send(429, {"detail": "Request was throttled. Expected available in 1 second."},
                                 [("Retry-After", "1")])
            return self.send(200, {
                "count": 1, "next": None, "previous": None,
                "projects": [{"slug": "project", "versions": [{"slug": "latest"}]}],
                "query": q.get("q", ""),
                "results": [{
                    "type": "page", "project": {"slug": "project", "alias": None},
                    "version": {"slug": "latest"}, "title": "Installation",
                    "domain": "http://project.readthedocs.io", "path": "/en/latest/install.html",
                    "highlights": {"title": ["<span>Installation</span>"]},
                    "blocks": [{"type": "section", "id": "setup", "title": "Setup",
                                "content": "pip install project",
                                "highlights": {"title": [], "content": ["<span>install</span> project"]}}],
                }]})
        return self.send(404, {"detail": "Not found."})


def main():
    global BASE
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    BASE = "http://127.0.0.1:%d" % server.server_address[1]
    print("listening on %s/" % BASE, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
