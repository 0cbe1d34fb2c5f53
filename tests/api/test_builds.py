"""v3 builds: a project's and a version's builds (list and detail) and the
build trigger, with the service's exact Build object (behaviour notes §1.5
and the decision table), filters (§2), ordering (§1.10), fields/omit and
expand=config (§1.3), visibility (§1.7), the trigger's cancelling of older
builds (§1.8, §5.2) and permissions (§1.6, §1.9).

Builds in every state need a build pipeline, which does not exist yet, so
most builds and versions these tests read are written into the store with
SQL."""
import os
import re
import sqlite3

from lectern_test import Store as BaseStore, ServerTestCase, main

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$")

BUILD_KEYS = [
    "_links", "commit", "created", "duration", "error", "finished", "id",
    "project", "state", "success", "urls", "version", "version_type",
]
NO_BUILD = "No Build matches the given query."
NO_VERSION = "No Version matches the given query."
NO_PROJECT = "No Project matches the given query."
UNAUTHENTICATED = "Authentication credentials were not provided."
FORBIDDEN = "You do not have permission to perform this action."
SUPERSEDED = ("This build was cancelled because a newer build of the same "
              "version was triggered.")
# 2024-01-02T03:04:05Z in microseconds; S is one second.
T0 = 1704164645 * 1000000
S = 1000000


class Store(BaseStore):
    """SQL on the server's database, for what no API call can set up."""

    def project_id(self, slug):
        return self.rows("SELECT id FROM projects WHERE slug = ?", (slug,))[0][0]

    def version_id(self, project, slug):
        return self.rows("SELECT id FROM versions WHERE project_id = ? AND slug = ?",
                         (self.project_id(project), slug))[0][0]

    def add_version(self, project, slug, type="branch", privacy="public"):
        return self.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier,"
            " type, active, privacy_level, created, modified)"
            " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)",
            (self.project_id(project), slug, slug, slug, type, privacy, T0, T0))

    def add_build(self, project, version_id, created, state="finished",
                  success=1, error=None, commit=None, started=None,
                  finished=None, duration=None, config=None):
        return self.execute(
            "INSERT INTO builds (project_id, version_id, state, success, error,"
            " commit_sha, created, started, finished, duration, config)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.project_id(project), version_id, state, success, error, commit,
             created, started, finished, duration, config))

    def builds(self, project):
        return self.rows("SELECT id, state, version_id FROM builds WHERE project_id = ?"
                         " ORDER BY id", (self.project_id(project),))


class BuildsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        for name in ("bld", "hush", "prs", "trig", "many"):
            cls.import_as(cls.alice, name)
        cls.import_as(cls.bob, "other")
        db = cls.db = Store(s)
        latest = db.version_id("bld", "latest")
        v1 = db.add_version("bld", "v1.0", "tag")
        secret = db.add_version("bld", "secret", privacy="private")
        pr = db.add_version("bld", "12", "external")
        cls.imported = db.rows("SELECT id FROM builds WHERE project_id = ?",
                               (db.project_id("bld"),))[0][0]
        b = cls.b = {}
        b["fin"] = db.add_build("bld", v1, T0 + 10 * S, commit="abc123",
                                started=T0 + 15 * S, finished=T0 + 75 * S + S // 2,
                                duration=60,
                                config='{"formats": ["pdf"], "version": 2}')
        b["fail"] = db.add_build("bld", v1, T0 + 20 * S, success=0,
                                 error="Command failed", commit="def456",
                                 started=T0 + 25 * S, finished=T0 + 50 * S,
                                 duration=25)
        b["cancelled"] = db.add_build("bld", latest, T0 + 30 * S, "cancelled",
                                      success=0, error="This build was cancelled.",
                                      finished=T0 + 31 * S, duration=0)
        b["running"] = db.add_build("bld", v1, T0 + 40 * S, "building",
                                    commit="abc123", started=T0 + 41 * S)
        b["secret"] = db.add_build("bld", secret, T0 + 50 * S, commit="abc999",
                                   started=T0 + 50 * S, finished=T0 + 55 * S,
                                   duration=5)
        b["orphan"] = db.add_build("bld", None, T0 + 60 * S, started=T0 + 60 * S,
                                   finished=T0 + 61 * S, duration=1)
        b["pr"] = db.add_build("bld", pr, T0 + 70 * S, commit="ffff",
                               started=T0 + 70 * S, finished=T0 + 71 * S,
                               duration=1)
        # Newest first (notes §1.10): the import's build is the newest.
        cls.all_ids = [cls.imported, b["pr"], b["orphan"], b["secret"],
                       b["running"], b["cancelled"], b["fail"], b["fin"]]
        # Others see neither the private version's build nor the one whose
        # version was deleted.
        cls.public_ids = [i for i in cls.all_ids
                          if i not in (b["secret"], b["orphan"])]
        db.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = 'hush'")
        # prs: pull-request builds are private.
        db.execute("UPDATE projects SET external_builds_privacy_level = 'private'"
                   " WHERE slug = 'prs'")
        cls.prs_pr = db.add_build("prs", db.add_version("prs", "3", "external"),
                                  T0, commit="aaaa")
        # trig: a pull-request version whose queued build has a commit.
        cls.trig_pr = db.add_build("trig", db.add_version("trig", "5", "external"),
                                   T0, "triggered", commit="cafe")

        # many: more builds than the server reads per query, every third
        # one of a private version.
        public = db.add_version("many", "pub")
        private = db.add_version("many", "priv", privacy="private")
        rows = [(db.project_id("many"), private if i % 3 == 0 else public,
                 "finished", T0 + i * S) for i in range(430)]
        conn = sqlite3.connect(db.path, timeout=30)
        with conn:
            conn.executemany("INSERT INTO builds (project_id, version_id, state,"
                             " created) VALUES (?, ?, ?, ?)", rows)
        conn.close()
        cls.many_public = [r[0] for r in db.rows(
            "SELECT id FROM builds WHERE project_id = ? AND (version_id <> ?"
            " OR version_id IS NULL) ORDER BY created DESC, id DESC",
            (db.project_id("many"), private))]

    @classmethod
    def import_as(cls, token, name):
        body = {"name": name, "repository": {
            "url": "https://github.com/example/%s.git" % name, "type": "git"}}
        r = cls.server.post("/api/v3/projects/", body, token=token)
        if r.status != 201:
            raise AssertionError("import %s: %r" % (name, r))

    def list_url(self, project="bld", version=None, query=""):
        if version is None:
            return "/api/v3/projects/%s/builds/%s" % (project, query)
        return "/api/v3/projects/%s/versions/%s/builds/%s" % (project, version, query)

    def detail_url(self, build_id, project="bld", version=None, query=""):
        return self.list_url(project, version) + "%s/%s" % (build_id, query)

    def ids(self, response):
        self.assertStatus(response, 200)
        return [b["id"] for b in response.json["results"]]

    # The types of the versions expected() is given (Lectern's
    # version_type; null for a deleted version).
    VERSION_TYPES = {"v1.0": "tag", "latest": "branch", None: None}

    def expected(self, build_id, version, created, **fields):
        """A Build object as the service builds it (notes §1.5), with
        Lectern's version_type."""
        base = self.server.base
        obj = {
            "_links": {
                "_self": "/api/v3/projects/bld/builds/%d/" % build_id,
                "notifications": "/api/v3/projects/bld/builds/%d/notifications/" % build_id,
                "project": "/api/v3/projects/bld/",
                "version": version and "/api/v3/projects/bld/versions/%s/" % version,
            },
            "commit": None,
            "created": created,
            "duration": None,
            "error": None,
            "finished": None,
            "id": build_id,
            "project": "bld",
            "state": {"code": "finished", "name": "Finished"},
            "success": True,
            "urls": {
                "build": "%s/projects/bld/builds/%d/" % (base, build_id),
                "project": "%s/projects/bld/" % base,
                "version": version and "%s/dashboard/bld/version/%s/edit/" % (base, version),
            },
            "version": version,
            "version_type": self.VERSION_TYPES[version],
        }
        obj.update(fields)
        return obj

    def fin(self):
        return self.expected(self.b["fin"], "v1.0", "2024-01-02T03:04:15Z",
                             commit="abc123", duration=60,
                             finished="2024-01-02T03:05:20.500000Z")

    # Objects ---------------------------------------------------------------

    def test_detail_is_the_full_object(self):
        for url in (self.detail_url(self.b["fin"]),
                    self.detail_url(self.b["fin"], version="v1.0")):
            with self.subTest(url=url):
                r = self.server.get(url, token=self.alice)
                self.assertStatus(r, 200)
                self.assertSortedKeys(r.body)
                self.assertEqual(r.header("Content-Type"), "application/json")
                self.assertEqual(r.json, self.fin())

    def test_build_states(self):
        b = self.b
        cases = [
            (b["fail"], self.expected(
                b["fail"], "v1.0", "2024-01-02T03:04:25Z", commit="def456",
                duration=25, error="Command failed", success=False,
                finished="2024-01-02T03:04:55Z")),
            (b["cancelled"], self.expected(
                b["cancelled"], "latest", "2024-01-02T03:04:35Z", duration=0,
                error="This build was cancelled.", success=False,
                finished="2024-01-02T03:04:36Z",
                state={"code": "cancelled", "name": "Cancelled"})),
            # Not final: success, finished and duration are null.
            (b["running"], self.expected(
                b["running"], "v1.0", "2024-01-02T03:04:45Z", commit="abc123",
                success=None, state={"code": "building", "name": "Building"})),
        ]
        for build_id, want in cases:
            with self.subTest(build=build_id):
                r = self.server.get(self.detail_url(build_id))
                self.assertStatus(r, 200)
                self.assertSortedKeys(r.body)
                self.assertEqual(r.json, want)

    def test_build_of_a_deleted_version(self):
        r = self.server.get(self.detail_url(self.b["orphan"]), token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual(r.json, self.expected(
            self.b["orphan"], None, "2024-01-02T03:05:05Z", duration=1,
            finished="2024-01-02T03:05:06Z"))
        for token in (None, self.bob):
            self.assertDetail(self.server.get(self.detail_url(self.b["orphan"]), token=token),
                              404, NO_BUILD)

    # Lists, ordering, pagination -------------------------------------------

    def test_list_owner_sees_every_build(self):
        r = self.server.get(self.list_url(), token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(body["count"], 8)
        self.assertIsNone(body["previous"])
        self.assertEqual(body["next"], None)
        self.assertEqual(self.ids(r), self.all_ids)
        for build in body["results"]:
            self.assertEqual(sorted(build), BUILD_KEYS)
            self.assertRegex(build["created"], ISO_Z)
        self.assertEqual(body["results"][-1], self.fin())
        # The import's build: created now, with microseconds.
        self.assertEqual(body["results"][0]["state"],
                         {"code": "triggered", "name": "Triggered"})

    def test_list_others_see_public_builds(self):
        for token in (None, self.bob):
            r = self.server.get(self.list_url(), token=token)
            self.assertEqual(self.ids(r), self.public_ids)
            self.assertEqual(r.json["count"], 6)

    def test_pagination_counts_visible_builds(self):
        r = self.server.get(self.list_url(query="?limit=2&offset=2"))
        self.assertStatus(r, 200)
        body = r.json
        self.assertEqual(body["count"], 6)
        self.assertEqual(self.ids(r), self.public_ids[2:4])
        self.assertEqual(body["next"], self.server.base + self.list_url(
            query="?limit=2&offset=4"))
        self.assertEqual(body["previous"], self.server.base + self.list_url(
            query="?limit=2"))
        r = self.server.get(self.list_url(query="?limit=4&offset=4"))
        self.assertEqual(self.ids(r), self.public_ids[4:])
        self.assertIsNone(r.json["next"])
        r = self.server.get(self.list_url(query="?offset=50"))
        self.assertEqual(r.json["count"], 6)
        self.assertEqual(r.json["results"], [])

    def test_pagination_across_many_builds(self):
        want = self.many_public
        self.assertEqual(len(want), 1 + 430 - 144)
        for limit, offset in ((10, 0), (7, 130), (25, 190), (50, 260), (1000, 0),
                              (10, 280)):
            with self.subTest(limit=limit, offset=offset):
                r = self.server.get(self.list_url(
                    "many", query="?limit=%d&offset=%d" % (limit, offset)))
                self.assertEqual(r.json["count"], len(want))
                self.assertEqual(self.ids(r), want[offset:offset + limit])
        r = self.server.get(self.list_url("many", query="?limit=1000"), token=self.alice)
        self.assertEqual(r.json["count"], 431)

    def test_version_builds(self):
        b = self.b
        r = self.server.get(self.list_url(version="v1.0"))
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(self.ids(r), [b["running"], b["fail"], b["fin"]])
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(r.json["results"][-1], self.fin())
        r = self.server.get(self.list_url(version="v1.0", query="?limit=1&offset=1"))
        self.assertEqual(self.ids(r), [b["fail"]])
        self.assertEqual(r.json["next"], self.server.base + self.list_url(
            version="v1.0", query="?limit=1&offset=2"))

    # Filters ----------------------------------------------------------------

    def test_filters(self):
        b = self.b
        finals = [b["pr"], b["orphan"], b["secret"], b["cancelled"], b["fail"], b["fin"]]
        cases = [
            ("commit=abc123", [b["running"], b["fin"]]),
            ("commit=ABC123", []),
            ("running=true", [self.imported, b["running"]]),
            ("running=0", finals),
            ("running=maybe", self.all_ids),
            ("commit=&running=", self.all_ids),
            ("commit=abc123&running=False", [b["fin"]]),
        ]
        for query, want in cases:
            with self.subTest(query=query):
                r = self.server.get(self.list_url(query="?" + query), token=self.alice)
                self.assertEqual(self.ids(r), want)
                self.assertEqual(r.json["count"], len(want))
        r = self.server.get(self.list_url(query="?running=false"))
        self.assertEqual(self.ids(r), [b["pr"], b["cancelled"], b["fail"], b["fin"]])
        r = self.server.get(self.list_url(version="v1.0", query="?running=1"))
        self.assertEqual(self.ids(r), [b["running"]])
        r = self.server.get(self.list_url(version="v1.0", query="?commit=def456"))
        self.assertEqual(self.ids(r), [b["fail"]])

    # fields / omit / expand ---------------------------------------------------

    def test_expand_config(self):
        r = self.server.get(self.detail_url(self.b["fin"], query="?expand=config"))
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        want = self.fin()
        want["config"] = {"formats": ["pdf"], "version": 2}
        self.assertEqual(r.json, want)
        # A build without a stored configuration shows {}.
        r = self.server.get(self.detail_url(self.b["fail"], version="v1.0",
                                            query="?expand=config"))
        self.assertEqual(r.json["config"], {})
        # Lists permit it; a nested path is not this level's.
        r = self.server.get(self.list_url(query="?expand=config"), token=self.alice)
        self.assertSortedKeys(r.body)
        self.assertTrue(all("config" in b for b in r.json["results"]))
        self.assertEqual(r.json["results"][-1]["config"], want["config"])
        r = self.server.get(self.list_url(version="v1.0", query="?expand=*"))
        self.assertTrue(all("config" in b for b in r.json["results"]))
        r = self.server.get(self.detail_url(self.b["fin"], query="?expand=last_build.config"))
        self.assertEqual(r.json, self.fin())

    def test_fields_and_omit(self):
        fid = self.b["fin"]
        r = self.server.get(self.detail_url(fid, query="?fields=id,state"))
        self.assertEqual(r.json, {"id": fid, "state": {"code": "finished", "name": "Finished"}})
        r = self.server.get(self.detail_url(fid, query="?omit=_links,urls,nothing"))
        want = self.fin()
        del want["_links"], want["urls"]
        self.assertEqual(r.json, want)
        r = self.server.get(self.detail_url(fid, query="?fields=config&expand=config"))
        self.assertEqual(r.json, {"config": {"formats": ["pdf"], "version": 2}})
        r = self.server.get(self.detail_url(fid, version="v1.0", query="?fields="))
        self.assertEqual(r.json, {})
        r = self.server.get(self.list_url(query="?fields=id&limit=2"))
        self.assertEqual(r.json["results"], [{"id": i} for i in self.public_ids[:2]])
        r = self.server.get(self.list_url(version="v1.0", query="?omit=urls,_links,created"))
        self.assertEqual(sorted(r.json["results"][0]),
                         [k for k in BUILD_KEYS if k not in ("urls", "_links", "created")])

    def test_recursive_expansion(self):
        for url in (self.list_url(query="?expand=config.config"),
                    self.detail_url(self.b["fin"], query="?expand=config.config")):
            r = self.server.get(url)
            self.assertStatus(r, 400)
            self.assertEqual(r.json, ["Recursive expansion found"])

    # Visibility and errors -----------------------------------------------------

    def test_detail_not_found(self):
        b = self.b
        other = self.db.rows("SELECT id FROM builds WHERE project_id = ?",
                             (self.db.project_id("other"),))[0][0]
        cases = [
            (self.detail_url(999999), NO_BUILD),
            (self.detail_url(b["fin"], project="nope"), NO_PROJECT),
            (self.detail_url(other), NO_BUILD),
            (self.detail_url(b["fin"], version="latest"), NO_BUILD),
            (self.detail_url(b["fin"], version="nope"), NO_VERSION),
            (self.detail_url(b["fin"], project="nope", version="v1.0"), NO_PROJECT),
            # The parent is looked up before the id is read.
            (self.detail_url("1.5", project="nope"), NO_PROJECT),
        ]
        for url, detail in cases:
            with self.subTest(url=url):
                self.assertDetail(self.server.get(url, token=self.alice), 404, detail)
        # An id that is not an integer fails the lookup itself.
        for url in (self.detail_url("abc"), self.detail_url("x", version="v1.0")):
            with self.subTest(url=url):
                self.assertDetail(self.server.get(url, token=self.alice), 404, "Not found.")

    def test_unknown_parents_are_404(self):
        for url, detail in ((self.list_url("nope"), NO_PROJECT),
                            (self.list_url(version="nope"), NO_VERSION),
                            (self.list_url("nope", "latest"), NO_PROJECT)):
            for token in (None, self.alice):
                with self.subTest(url=url, token=token):
                    self.assertDetail(self.server.get(url, token=token), 404, detail)

    def test_private_version_builds(self):
        sid = self.b["secret"]
        for token in (None, self.bob):
            # A version they cannot see is a parent that is not there.
            self.assertDetail(self.server.get(self.list_url(version="secret"), token=token),
                              404, NO_VERSION)
            self.assertDetail(self.server.get(self.detail_url(sid), token=token),
                              404, NO_BUILD)
            self.assertDetail(self.server.get(self.detail_url(sid, version="secret"),
                                              token=token), 404, NO_VERSION)
        self.assertEqual(self.ids(self.server.get(self.list_url(version="secret"),
                                                  token=self.alice)), [sid])
        r = self.server.get(self.detail_url(sid, version="secret"), token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["version"], "secret")

    def test_private_project_builds(self):
        imported = self.db.rows("SELECT id FROM builds WHERE project_id = ?",
                                (self.db.project_id("hush"),))[0][0]
        for token in (None, self.bob):
            with self.subTest(token=token):
                # The project's own 404, on every build route.
                for url in (self.list_url("hush"), self.list_url("hush", "latest"),
                            self.detail_url(imported, "hush"),
                            self.detail_url(imported, "hush", "latest")):
                    self.assertDetail(self.server.get(url, token=token), 404, NO_PROJECT)
        self.assertEqual(self.ids(self.server.get(self.list_url("hush"), token=self.alice)),
                         [imported])
        self.assertEqual(self.server.get(self.detail_url(imported, "hush", "latest"),
                                         token=self.alice).status, 200)

    def test_pull_request_builds_follow_external_privacy(self):
        r = self.server.get(self.list_url("prs"))
        self.assertEqual(r.json["count"], 1)
        self.assertNotIn(self.prs_pr, self.ids(r))
        self.assertDetail(self.server.get(self.detail_url(self.prs_pr, "prs")), 404, NO_BUILD)
        self.assertDetail(self.server.get(self.list_url("prs", "3")), 404, NO_VERSION)
        r = self.server.get(self.list_url("prs"), token=self.alice)
        self.assertEqual(r.json["count"], 2)
        self.assertEqual(r.json["results"][1]["version"], "3")
        # bld's pull-request builds are public.
        r = self.server.get(self.detail_url(self.b["pr"]))
        self.assertStatus(r, 200)
        self.assertEqual(r.json["version"], "12")

    def test_read_permissions(self):
        paths = [self.list_url(), self.detail_url(self.b["fin"]),
                 self.list_url(version="v1.0"),
                 self.detail_url(self.b["fin"], version="v1.0")]
        for path in paths:
            with self.subTest(path=path):
                for token in (None, self.bob, self.alice):
                    self.assertEqual(self.server.get(path, token=token).status, 200)
                r = self.server.get(path, token="not-a-token")
                self.assertDetail(r, 401, "Invalid token.")
                self.assertEqual(r.header("WWW-Authenticate"), "Token")

    def test_unrouted_methods(self):
        cases = [
            (self.list_url(), "GET, HEAD, OPTIONS"),
            (self.detail_url(self.b["fin"]), "GET, HEAD, OPTIONS"),
            (self.list_url(version="v1.0"), "GET, POST, HEAD, OPTIONS"),
            (self.detail_url(self.b["fin"], version="v1.0"), "GET, HEAD, OPTIONS"),
        ]
        for path, allow in cases:
            with self.subTest(path=path):
                r = self.server.delete(path, token=self.alice)
                self.assertDetail(r, 405, 'Method "DELETE" not allowed.')
                self.assertEqual(r.header("Allow"), allow)
                self.assertDetail(self.server.delete(path, token=self.bob), 403, FORBIDDEN)
                self.assertDetail(self.server.delete(path), 401, UNAUTHENTICATED)
        self.assertEqual(len(self.db.builds("bld")), 8)

    # Trigger -------------------------------------------------------------------

    def trigger(self, version, token=None, **kw):
        return self.server.post(self.list_url("trig", version),
                                token=self.alice if token is None else token, **kw)

    def test_trigger_permissions(self):
        before = self.db.builds("trig")
        r = self.server.post(self.list_url("trig", "latest"))
        self.assertDetail(r, 401, UNAUTHENTICATED)
        self.assertEqual(r.header("WWW-Authenticate"), "Token")
        self.assertDetail(self.trigger("latest", token="bad"), 401, "Invalid token.")
        self.assertDetail(self.trigger("latest", token=self.bob), 403, FORBIDDEN)
        self.assertDetail(self.trigger("latest", token=self.bob, body={"x": 1}), 403,
                          FORBIDDEN)
        self.assertDetail(self.server.post(self.list_url("nope", "latest"), token=self.alice),
                          404, "No Project matches the given query.")
        self.assertDetail(self.trigger("nope"), 404, NO_VERSION)
        self.assertEqual(self.db.builds("trig"), before)

    def test_trigger_answers_build_project_and_version(self):
        r = self.server.post(self.list_url("trig", "latest", "?expand=config&fields=id"),
                             token=self.alice)
        self.assertStatus(r, 202)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(sorted(body), ["build", "project", "triggered", "version"])
        self.assertIs(body["triggered"], True)
        build = body["build"]
        # Built without the request's fields/omit/expand.
        self.assertEqual(sorted(build), BUILD_KEYS)
        self.assertRegex(build["created"], ISO_Z)
        base = self.server.base
        self.assertEqual(build, {
            "_links": {
                "_self": "/api/v3/projects/trig/builds/%d/" % build["id"],
                "notifications": "/api/v3/projects/trig/builds/%d/notifications/" % build["id"],
                "project": "/api/v3/projects/trig/",
                "version": "/api/v3/projects/trig/versions/latest/",
            },
            "commit": None, "created": build["created"], "duration": None,
            "error": None, "finished": None, "id": build["id"], "project": "trig",
            "state": {"code": "triggered", "name": "Triggered"}, "success": None,
            "urls": {
                "build": "%s/projects/trig/builds/%d/" % (base, build["id"]),
                "project": "%s/projects/trig/" % base,
                "version": "%s/dashboard/trig/version/latest/edit/" % base,
            },
            "version": "latest", "version_type": "branch",
        })
        self.assertEqual(body["project"],
                         self.server.get("/api/v3/projects/trig/", token=self.alice).json)
        self.assertEqual(body["version"],
                         self.server.get("/api/v3/projects/trig/versions/latest/").json)
        r = self.server.get(self.detail_url(build["id"], "trig"), token=self.alice)
        self.assertEqual(r.json, build)

    def test_trigger_cancels_unfinished_builds_of_the_version(self):
        # The import queued a build of latest; each trigger supersedes the
        # version's unfinished builds, and only those.
        r = self.server.get(self.list_url("trig", "latest"), token=self.alice)
        older = [b["id"] for b in r.json["results"]
                 if b["state"]["code"] == "triggered"]
        self.assertTrue(older)
        first = self.trigger("latest")
        self.assertStatus(first, 202)
        # The body is ignored, even when it is not JSON.
        second = self.trigger("latest", raw=b"not json",
                              headers={"Content-Type": "application/json"})
        self.assertStatus(second, 202)
        first_id, second_id = first.json["build"]["id"], second.json["build"]["id"]
        r = self.server.get(self.list_url("trig", "latest"), token=self.alice)
        self.assertStatus(r, 200)
        by_id = {b["id"]: b for b in r.json["results"]}
        self.assertEqual(r.json["results"][0]["id"], second_id)
        self.assertEqual(by_id[second_id]["state"], {"code": "triggered", "name": "Triggered"})
        self.assertIsNone(by_id[second_id]["success"])
        for cancelled in older + [first_id]:
            b = by_id[cancelled]
            self.assertEqual(b["state"], {"code": "cancelled", "name": "Cancelled"})
            self.assertIs(b["success"], False)
            self.assertEqual(b["error"], SUPERSEDED)
            self.assertRegex(b["finished"], ISO_Z)
        # Another version's queued build is left alone.
        running = self.server.get(self.list_url("trig", query="?running=true"),
                                  token=self.alice)
        self.assertEqual(self.ids(running), [second_id, self.trig_pr])

    def test_trigger_pull_request_version_reuses_its_commit(self):
        r = self.trigger("5")
        self.assertStatus(r, 202)
        self.assertEqual(self.server.get(self.detail_url(self.trig_pr, "trig"),
                                         token=self.alice).json["error"], SUPERSEDED)
        self.assertEqual(r.json["build"]["commit"], "cafe")
        self.assertEqual(r.json["build"]["version"], "5")
        version = r.json["version"]
        self.assertEqual(version["type"], "external")
        self.assertEqual(version["urls"]["vcs"], "https://github.com/example/trig/pull/5/")


if __name__ == "__main__":
    main()
