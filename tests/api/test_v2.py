"""API v2 (contract §2.10–2.12, §4.10; behaviour notes §3): projects,
versions and builds by integer id, read-only, for anyone. Checks exact
bodies and key order (the service's serializer order, not sorted), the
limit/offset envelope on every list, the filters, 404 bodies, that private
projects and versions (and their builds) never show, that a bogus
Authorization header is ignored, build commands, and the text log.
"""
import json
import os
import re
import sqlite3

from lectern_test import Store as BaseStore, ServerTestCase, main

# 2024-01-02T03:04:05 in microseconds; S is one second.
T0 = 1704164645 * 1000000
S = 1000000

PROJECT_KEYS = [
    "id", "name", "slug", "description", "language", "programming_language",
    "repo", "repo_type", "default_version", "default_branch",
    "documentation_type", "users", "canonical_url", "custom_prefix",
]
VERSION_KEYS = [
    "id", "project", "slug", "identifier", "verbose_name", "privacy_level",
    "active", "built", "downloads", "type", "has_pdf", "has_epub",
    "has_htmlzip", "documentation_type",
]
BUILD_KEYS = [
    "id", "commands", "project_slug", "version_slug", "docs_url",
    "state_display", "commit_url", "config", "type", "state", "status",
    "date", "healthcheck", "success", "error", "commit", "version_name",
    "version_type", "readthedocs_yaml_path", "length", "cold_storage",
    "task_id", "task_executed_at", "project", "version",
    "readthedocs_yaml_config",
]
COMMAND_KEYS = [
    "id", "run_time", "command", "description", "output", "exit_code",
    "start_time", "end_time", "build",
]
ENVELOPE_KEYS = ["count", "next", "previous", "results"]
NAIVE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$")


def ordered(body):
    """The body parsed with every object as a list of (key, value)."""
    return json.loads(body.decode("utf-8"), object_pairs_hook=list)


def keys(pairs):
    return [k for k, _ in pairs]


class Store(BaseStore):
    def one(self, sql, args=()):
        return self.rows(sql, args)[0][0]


class V2Test(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        for token, name in ((cls.alice, "alpha"), (cls.alice, "beta"),
                            (cls.bob, "hush")):
            body = {"name": name, "repository": {
                "url": "https://github.com/example/%s.git" % name,
                "type": "git"}}
            r = s.post("/api/v3/projects/", body, token=token)
            assert r.status == 201, r
        db = cls.db = Store(s)
        cls.pid = {n: db.one("SELECT id FROM projects WHERE slug = ?", (n,))
                   for n in ("alpha", "beta", "hush")}
        cls.uid = {n: db.one("SELECT id FROM users WHERE username = ?", (n,))
                   for n in ("alice", "bob")}
        # bob also maintains alpha: users lists both ids.
        db.execute("INSERT INTO project_users (project_id, user_id)"
                   " VALUES (?, ?)", (cls.pid["alpha"], cls.uid["bob"]))
        db.execute("UPDATE projects SET privacy_level = 'private'"
                   " WHERE slug = 'hush'")
        a = cls.pid["alpha"]
        cls.latest = db.one("SELECT id FROM versions WHERE project_id = ?"
                            " AND slug = 'latest'", (a,))
        cls.v1 = cls.add_version(a, "v1.0", "tag", built=1, pdf=1, epub=1)
        cls.old = cls.add_version(a, "old", active=0)
        cls.secret = cls.add_version(a, "secret", privacy="private")
        cls.hush_latest = db.one("SELECT id FROM versions WHERE project_id = ?",
                                 (cls.pid["hush"],))
        # Builds: the imports queued one each (no workers run them).
        cls.queued = {n: db.one("SELECT id FROM builds WHERE project_id = ?",
                                (cls.pid[n],)) for n in cls.pid}
        cls.fin = cls.add_build(a, cls.v1, T0, commit="abc123",
                                started=T0 + S, finished=T0 + 61 * S,
                                duration=60, config='{"version": 2}')
        cls.fail_id = cls.add_build(a, cls.latest, T0 + 10 * S, success=0,
                                 error="Command failed", commit="def456",
                                 started=T0 + 10 * S, finished=T0 + 20 * S,
                                 duration=10)
        cls.hidden = cls.add_build(a, cls.secret, T0 + 30 * S, commit="abc123")
        cls.cmd1 = db.execute(
            "INSERT INTO build_commands (build_id, command, description,"
            " output, exit_code, start_time, end_time)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (cls.fin, "$READTHEDOCS_VIRTUALENV_PATH/bin/python -m sphinx",
             "", "line 1\nline 2\n", 0, T0 + 2 * S, T0 + 5 * S + 500000))
        cls.cmd2 = db.execute(
            "INSERT INTO build_commands (build_id, command, description,"
            " output, exit_code, start_time, end_time)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (cls.fin, "git clone x", "Cloning", "", None, T0 + 6 * S, None))

    @classmethod
    def add_version(cls, pid, slug, type="branch", active=1, built=0,
                    privacy="public", pdf=0, epub=0):
        return cls.db.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier,"
            " type, active, built, privacy_level, has_pdf, has_epub, created,"
            " modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pid, slug, slug, slug, type, active, built, privacy, pdf, epub,
             T0, T0))

    @classmethod
    def add_build(cls, pid, vid, created, state="finished", success=1,
                  error=None, commit=None, started=None, finished=None,
                  duration=None, config=None):
        return cls.db.execute(
            "INSERT INTO builds (project_id, version_id, state, success, error,"
            " commit_sha, created, started, finished, duration, config)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pid, vid, state, success, error, commit, created, started,
             finished, duration, config))

    def base(self):
        return "http://%s:%d" % (self.server.host, self.server.port)

    def docs(self, slug, version):
        return "http://%s.localhost:%d/en/%s/" % (slug, self.server.port,
                                                  version)

    def get200(self, path, **kw):
        r = self.server.get(path, **kw)
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        return r

    def alpha(self):
        return {
            "id": self.pid["alpha"], "name": "alpha", "slug": "alpha",
            "description": "", "language": "en",
            "programming_language": "words",
            "repo": "https://github.com/example/alpha.git",
            "repo_type": "git", "default_version": "latest",
            "default_branch": None, "documentation_type": "sphinx",
            "users": sorted([self.uid["alice"], self.uid["bob"]]),
            "canonical_url": self.docs("alpha", "latest"),
            "custom_prefix": None,
        }

    # Projects -------------------------------------------------------------

    def test_project_detail_exact_body_and_key_order(self):
        r = self.get200("/api/v2/project/%d/" % self.pid["alpha"])
        got = r.json
        got["users"] = sorted(got["users"])
        self.assertEqual(got, self.alpha())
        self.assertEqual(keys(ordered(r.body)), PROJECT_KEYS)

    def test_project_list_paginated_public_only(self):
        r = self.get200("/api/v2/project/")
        pairs = ordered(r.body)
        self.assertEqual(keys(pairs), ENVELOPE_KEYS)
        body = r.json
        self.assertEqual(body["count"], 2)
        self.assertEqual([p["slug"] for p in body["results"]],
                         ["alpha", "beta"])
        self.assertIsNone(body["next"])
        self.assertIsNone(body["previous"])
        self.assertEqual(keys(dict(pairs)["results"][0]), PROJECT_KEYS)

    def test_project_list_limit_offset_links(self):
        body = self.get200("/api/v2/project/?limit=1").json
        self.assertEqual(body["count"], 2)
        self.assertEqual([p["slug"] for p in body["results"]], ["alpha"])
        self.assertEqual(body["next"],
                         self.base() + "/api/v2/project/?limit=1&offset=1")
        self.assertIsNone(body["previous"])
        body = self.get200("/api/v2/project/?limit=1&offset=1").json
        self.assertEqual([p["slug"] for p in body["results"]], ["beta"])
        self.assertIsNone(body["next"])
        self.assertEqual(body["previous"],
                         self.base() + "/api/v2/project/?limit=1")

    def test_project_list_slug_filter_is_exact(self):
        body = self.get200("/api/v2/project/?slug=alpha").json
        self.assertEqual(body["count"], 1)
        self.assertEqual(body["results"][0]["slug"], "alpha")
        self.assertEqual(self.get200("/api/v2/project/?slug=alp").json,
                         {"count": 0, "next": None, "previous": None,
                          "results": []})
        self.assertEqual(self.get200("/api/v2/project/?slug=hush").json["count"],
                         0)

    def test_project_404s(self):
        self.assertDetail(self.server.get("/api/v2/project/999999/"), 404,
                          "No Project matches the given query.")
        self.assertDetail(self.server.get("/api/v2/project/%d/" % self.pid["hush"]),
                          404, "No Project matches the given query.")
        self.assertDetail(self.server.get("/api/v2/project/alpha/"), 404,
                          "Not found.")

    def test_private_project_hidden_even_from_its_owner(self):
        r = self.server.get("/api/v2/project/%d/" % self.pid["hush"],
                            token=self.bob)
        self.assertDetail(r, 404, "No Project matches the given query.")

    def test_bogus_authorization_ignored(self):
        for path in ("/api/v2/project/", "/api/v2/project/%d/" % self.pid["alpha"],
                     "/api/v2/version/", "/api/v2/build/"):
            r = self.server.get(path, token="bogus")
            self.assertStatus(r, 200)
            self.assertIsNone(r.header("WWW-Authenticate"))

    def test_writes_refused_with_405(self):
        r = self.server.post("/api/v2/project/", {"name": "x"})
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, HEAD, OPTIONS")
        r = self.server.delete("/api/v2/project/%d/" % self.pid["alpha"])
        self.assertStatus(r, 405)
        self.assertEqual(self.get200("/api/v2/project/").json["count"], 2)

    def test_active_versions(self):
        r = self.get200("/api/v2/project/%d/active_versions/" % self.pid["alpha"])
        pairs = ordered(r.body)
        self.assertEqual(keys(pairs), ["versions"])
        versions = r.json["versions"]
        # Active and public only, -verbose_name.
        self.assertEqual([v["slug"] for v in versions], ["v1.0", "latest"])
        self.assertEqual(keys(pairs[0][1][0]), VERSION_KEYS)
        self.assertDetail(
            self.server.get("/api/v2/project/%d/active_versions/" % self.pid["hush"]),
            404, "No Project matches the given query.")
        self.assertDetail(self.server.get("/api/v2/project/x/active_versions/"),
                          404, "Not found.")

    # Versions -------------------------------------------------------------

    def test_version_detail_exact_body(self):
        r = self.get200("/api/v2/version/%d/" % self.v1)
        pairs = ordered(r.body)
        self.assertEqual(keys(pairs), VERSION_KEYS)
        self.assertEqual(keys(dict(pairs)["project"]), PROJECT_KEYS)
        self.assertEqual(keys(dict(pairs)["downloads"]), ["pdf", "epub"])
        got = r.json
        got["project"]["users"] = sorted(got["project"]["users"])
        host = "//alpha.localhost:%d" % self.server.port
        self.assertEqual(got, {
            "id": self.v1, "project": self.alpha(), "slug": "v1.0",
            "identifier": "v1.0", "verbose_name": "v1.0",
            "privacy_level": "public", "active": True, "built": True,
            "downloads": {
                "pdf": host + "/_/downloads/en/v1.0/pdf/",
                "epub": host + "/_/downloads/en/v1.0/epub/",
            },
            "type": "tag", "has_pdf": True, "has_epub": True,
            "has_htmlzip": False, "documentation_type": "sphinx",
        })

    def test_version_404s(self):
        for vid in (self.secret, self.hush_latest, 999999):
            self.assertDetail(self.server.get("/api/v2/version/%d/" % vid), 404,
                              "No Version matches the given query.")
        self.assertDetail(self.server.get("/api/v2/version/v1.0/"), 404,
                          "Not found.")

    def test_version_list_filters(self):
        body = self.get200("/api/v2/version/").json
        slugs = [(v["project"]["slug"], v["slug"]) for v in body["results"]]
        # Every public version of public projects, -verbose_name (ties:
        # newest first).
        self.assertEqual(slugs, [("alpha", "v1.0"), ("alpha", "old"),
                                 ("beta", "latest"), ("alpha", "latest")])
        self.assertEqual(body["count"], 4)
        body = self.get200("/api/v2/version/?project__slug=alpha&active=true").json
        self.assertEqual([v["slug"] for v in body["results"]],
                         ["v1.0", "latest"])
        body = self.get200("/api/v2/version/?project__slug=alpha&active=false").json
        self.assertEqual([v["slug"] for v in body["results"]], ["old"])
        body = self.get200("/api/v2/version/?project__slug=hush").json
        self.assertEqual(body, {"count": 0, "next": None, "previous": None,
                                "results": []})

    def test_version_list_pagination(self):
        r = self.get200("/api/v2/version/?limit=2&offset=1")
        self.assertEqual(keys(ordered(r.body)), ENVELOPE_KEYS)
        body = r.json
        self.assertEqual(body["count"], 4)
        self.assertEqual([(v["project"]["slug"], v["slug"])
                          for v in body["results"]],
                         [("alpha", "old"), ("beta", "latest")])
        self.assertEqual(body["next"],
                         self.base() + "/api/v2/version/?limit=2&offset=3")
        self.assertEqual(body["previous"], self.base() + "/api/v2/version/?limit=2")

    # Builds ---------------------------------------------------------------

    def fin_body(self):
        port = self.server.port
        return {
            "id": self.fin,
            "commands": [
                {"id": self.cmd1, "run_time": 3,
                 "command": "python -m sphinx", "description": "",
                 "output": "line 1\nline 2\n", "exit_code": 0,
                 "start_time": "2024-01-02T03:04:07",
                 "end_time": "2024-01-02T03:04:10.500000", "build": self.fin},
                {"id": self.cmd2, "run_time": None, "command": "git clone x",
                 "description": "Cloning", "output": "", "exit_code": None,
                 "start_time": "2024-01-02T03:04:11", "end_time": None,
                 "build": self.fin},
            ],
            "project_slug": "alpha", "version_slug": "v1.0",
            "docs_url": "http://alpha.localhost:%d/en/v1.0/" % port,
            "state_display": "Finished",
            "commit_url": "https://github.com/example/alpha/commit/abc123",
            "config": {"version": 2}, "type": "html", "state": "finished",
            "status": None, "date": "2024-01-02T03:04:05", "healthcheck": None,
            "success": True, "error": "", "commit": "abc123",
            "version_name": "v1.0", "version_type": "tag",
            "readthedocs_yaml_path": None, "length": 60,
            "cold_storage": False, "task_id": None, "task_executed_at": None,
            "project": self.pid["alpha"], "version": self.v1,
            "readthedocs_yaml_config": None,
        }

    def test_build_detail_with_commands(self):
        r = self.get200("/api/v2/build/%d/" % self.fin)
        self.assertEqual(r.json, self.fin_body())
        pairs = ordered(r.body)
        self.assertEqual(keys(pairs), BUILD_KEYS)
        for command in dict(pairs)["commands"]:
            self.assertEqual(keys(command), COMMAND_KEYS)

    def test_build_failed_has_error_and_unbuilt_docs_url(self):
        body = self.get200("/api/v2/build/%d/" % self.fail_id).json
        self.assertEqual(body["error"], "Command failed")
        self.assertIs(body["success"], False)
        self.assertEqual(body["commands"], [])
        self.assertEqual(body["docs_url"],
                         "%s/dashboard/alpha/version/latest/edit/"
                         % self.base())
        self.assertRegex(body["date"], NAIVE)

    def test_build_404s(self):
        for bid in (self.hidden, self.queued["hush"], 999999):
            self.assertDetail(self.server.get("/api/v2/build/%d/" % bid), 404,
                              "No Build matches the given query.")
        self.assertDetail(self.server.get("/api/v2/build/x/"), 404, "Not found.")

    def test_build_list_most_recent_first_public_only(self):
        r = self.get200("/api/v2/build/")
        pairs = ordered(r.body)
        self.assertEqual(keys(pairs), ENVELOPE_KEYS)
        body = r.json
        ids = [b["id"] for b in body["results"]]
        queued = sorted([self.queued["alpha"], self.queued["beta"]],
                        reverse=True)
        # The imports' builds are newer than T0 (created now).
        self.assertEqual(ids, queued + [self.fail_id, self.fin])
        self.assertEqual(body["count"], 4)
        self.assertEqual(keys(dict(pairs)["results"][0]), BUILD_KEYS)
        self.assertEqual(body["results"][-1], self.fin_body())

    def test_build_list_filters_and_pagination(self):
        body = self.get200("/api/v2/build/?project__slug=alpha&limit=1&offset=1").json
        self.assertEqual(body["count"], 3)
        self.assertEqual([b["id"] for b in body["results"]], [self.fail_id])
        self.assertEqual(body["next"], self.base() +
                         "/api/v2/build/?limit=1&offset=2&project__slug=alpha")
        body = self.get200("/api/v2/build/?commit=abc123").json
        # The private version's build with the same commit stays hidden.
        self.assertEqual([b["id"] for b in body["results"]], [self.fin])
        body = self.get200("/api/v2/build/?project__slug=hush").json
        self.assertEqual(body["count"], 0)

    def test_build_text_log(self):
        r = self.server.get("/api/v2/build/%d.txt" % self.fin)
        self.assertStatus(r, 200)
        self.assertTrue(r.header("Content-Type").startswith("text/plain"))
        self.assertEqual(r.body.decode(), (
            "Read the Docs build information\n"
            "Build id: %d\n"
            "Project: alpha\n"
            "Version: v1.0\n"
            "Commit: abc123\n"
            "Date: 2024-01-02T03:04:05\n"
            "State: finished\n"
            "Success: True\n"
            "\n"
            "[rtd-command-info] start-time: 2024-01-02T03:04:07, end-time: "
            "2024-01-02T03:04:10.500000, duration: 3, exit-code: 0\n"
            "python -m sphinx\n"
            "line 1\nline 2\n\n"
            "\n"
            "[rtd-command-info] start-time: 2024-01-02T03:04:11, end-time: "
            "None, duration: None, exit-code: None\n"
            "git clone x\n"
            "\n") % self.fin)
        # Asked again while nothing changed, it comes from the server
        # threads' response caches: still text, still the same bytes.
        for _ in range(4):
            again = self.server.get("/api/v2/build/%d.txt" % self.fin)
            self.assertStatus(again, 200)
            self.assertTrue(again.header("Content-Type").startswith("text/plain"))
            self.assertEqual(again.body, r.body)
        r = self.server.get("/api/v2/build/%d.txt" % self.hidden)
        self.assertStatus(r, 404)
        self.assertEqual(r.body, b"No Build matches the given query.")

    def test_slashless_paths_redirect(self):
        r = self.server.get("/api/v2/build/%d?x=1" % self.fin)
        self.assertStatus(r, 301)
        self.assertEqual(r.header("Location"), "/api/v2/build/%d/?x=1" % self.fin)
        r = self.server.get("/api/v2/project")
        self.assertStatus(r, 301)
        self.assertEqual(r.header("Location"), "/api/v2/project/")


if __name__ == "__main__":
    main()
