"""v3 versions: list, detail, update and sync-versions, with the service's
exact Version object (behaviour notes §1.5), filters (§2), ordering
(§1.10), expand=last_build[.config] (contract §4.2), visibility (§1.7),
the update's side effects (§1.8) and permissions (§1.6, §1.9).

No API call creates branches or tags yet (the sync is the build pipeline's
work), so the versions and builds these tests read are written into the
store with SQL."""
import os
import re
import sqlite3

from lectern_test import Store as BaseStore, ServerTestCase, main

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$")

VERSION_KEYS = [
    "_links", "active", "aliases", "built", "downloads", "hidden", "id",
    "identifier", "privacy_level", "ref", "slug", "type", "urls",
    "verbose_name",
]
BUILD_KEYS = [
    "_links", "commit", "created", "duration", "error", "finished", "id",
    "project", "state", "success", "urls", "version", "version_type",
]
# verbose_name descending (notes §1.10); the pull-request version "12" is
# never listed.
ALL_SLUGS = ["v2.0rc1", "v1.0", "stable", "secret", "old-feature", "main",
             "latest"]
NO_VERSION = "No Version matches the given query."
NO_PROJECT = "No Project matches the given query."
UNAUTHENTICATED = "Authentication credentials were not provided."
FORBIDDEN = "You do not have permission to perform this action."
# 2024-01-02T03:04:05Z in microseconds.
T0 = 1704164645 * 1000000


class Store(BaseStore):
    """SQL on the server's database, for what no API call can set up."""

    def project_id(self, slug):
        return self.rows("SELECT id FROM projects WHERE slug = ?", (slug,))[0][0]

    def add_version(self, project, slug, identifier=None, type="branch",
                    active=1, hidden=0, built=0, uploaded=0,
                    privacy="public", machine=0, formats=0, name=None):
        return self.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier,"
            " type, active, hidden, built, uploaded, privacy_level, machine,"
            " has_pdf, has_epub, has_htmlzip, created, modified)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.project_id(project), slug, name or slug, identifier, type,
             active, hidden, built, uploaded, privacy, machine, formats,
             formats, formats, T0, T0))

    def add_build(self, project, version_id, created, config=None,
                  state="finished"):
        return self.execute(
            "INSERT INTO builds (project_id, version_id, state, created,"
            " config) VALUES (?, ?, ?, ?, ?)",
            (self.project_id(project), version_id, state, created, config))

    def version_row(self, project, slug):
        return self.rows(
            "SELECT active, hidden, built, privacy_level, modified FROM versions"
            " WHERE project_id = ? AND slug = ?", (self.project_id(project), slug))


class VersionsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        cls.db = Store(s)
        cls.import_as(cls.alice, "ver")
        cls.import_as(cls.alice, "mut")
        cls.import_as(cls.alice, "hush")
        db = cls.db
        ids = cls.ids = {}
        db.execute("UPDATE versions SET identifier = 'main' WHERE slug = 'latest'"
                   " AND project_id = ?", (db.project_id("ver"),))
        ids["latest"] = db.rows("SELECT id FROM versions WHERE slug = 'latest'"
                                " AND project_id = ?", (db.project_id("ver"),))[0][0]
        ids["main"] = db.add_version("ver", "main", "main")
        ids["v1.0"] = db.add_version("ver", "v1.0", "a1b2c3", "tag", built=1,
                                     formats=1)
        ids["v2.0rc1"] = db.add_version("ver", "v2.0rc1", "f00", "tag",
                                        active=0)
        ids["stable"] = db.add_version("ver", "stable", "a1b2c3", "tag",
                                       machine=1)
        ids["old-feature"] = db.add_version("ver", "old-feature", "old-feature",
                                            active=0, hidden=1, uploaded=1)
        ids["secret"] = db.add_version("ver", "secret", "secret",
                                       privacy="private")
        ids["12"] = db.add_version("ver", "12", "beef", "external")
        # Two builds of v1.0: the newer one is its last_build.
        cls.old_build = db.add_build("ver", ids["v1.0"], T0, '{"version": 1}')
        cls.new_build = db.add_build("ver", ids["v1.0"], T0 + 1000000,
                                     '{"formats": ["pdf"], "version": 2}')
        # mut: versions the update tests change.
        db.add_version("mut", "on", "on", built=1)
        db.add_version("mut", "off", "off", active=0)
        db.add_version("mut", "flags", "flags")
        db.add_version("mut", "7", "abc", "external")
        # hush: a private project with a public and a private version.
        db.execute("UPDATE projects SET privacy_level = 'private'"
                   " WHERE slug = 'hush'")
        db.add_version("hush", "internal", "internal", privacy="private")

    @classmethod
    def import_as(cls, token, name):
        body = {"name": name, "repository": {
            "url": "https://github.com/example/%s.git" % name, "type": "git"}}
        r = cls.server.post("/api/v3/projects/", body, token=token)
        if r.status != 201:
            raise AssertionError("import %s: %r" % (name, r))

    def url(self, project="ver", slug=None, query=""):
        path = "/api/v3/projects/%s/versions/" % project
        if slug is not None:
            path += slug + "/"
        return path + query

    def expected(self, slug, name=None, identifier=None, type="branch",
                 active=True, hidden=False, built=False, privacy="public",
                 downloads=None, ref=None, aliases=None, vcs_name=None,
                 project="ver"):
        """A Version object as the service builds it (notes §1.5)."""
        port = self.server.port
        base = self.server.base
        return {
            "_links": {
                "_self": "/api/v3/projects/%s/versions/%s/" % (project, slug),
                "builds": "/api/v3/projects/%s/versions/%s/builds/" % (project, slug),
                "project": "/api/v3/projects/%s/" % project,
            },
            "active": active,
            "aliases": aliases or [],
            "built": built,
            "downloads": downloads or {},
            "hidden": hidden,
            "id": self.ids[slug] if project == "ver" else None,
            "identifier": identifier,
            "privacy_level": privacy,
            "ref": ref,
            "slug": slug,
            "type": type,
            "urls": {
                "dashboard": {"edit": "%s/dashboard/%s/version/%s/edit/"
                              % (base, project, slug)},
                "documentation": "http://%s.localhost:%d/en/%s/" % (project, port, slug),
                "vcs": "https://github.com/example/%s/tree/%s/"
                       % (project, vcs_name or name or slug),
            },
            "verbose_name": name or slug,
        }

    def v1(self):
        port = self.server.port
        return self.expected(
            "v1.0", identifier="a1b2c3", type="tag", built=True,
            downloads={k: "http://ver.localhost:%d/_/downloads/en/v1.0/%s/"
                       % (port, k) for k in ("epub", "htmlzip", "pdf")})

    def slugs(self, response):
        self.assertStatus(response, 200)
        return [v["slug"] for v in response.json["results"]]

    def count(self, response):
        self.assertStatus(response, 200)
        return response.json["count"]

    # Objects ---------------------------------------------------------------

    def test_detail_is_the_full_object(self):
        # The slug "v1.0" has a dot: the path segment takes it whole. The
        # tree link names the tag, not its commit (fixture
        # projects-versions-detail.json).
        r = self.server.get(self.url(slug="v1.0"), token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json, self.v1())
        self.assertEqual(r.header("Content-Type"), "application/json")

    def test_machine_stable_has_ref_and_alias(self):
        r = self.server.get(self.url(slug="stable"))
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json, self.expected(
            "stable", identifier="a1b2c3", type="tag", ref="v1.0",
            aliases=[self.v1()], vcs_name="v1.0"))

    def test_machine_latest_aliases_its_branch(self):
        r = self.server.get(self.url(slug="latest"))
        self.assertStatus(r, 200)
        main_obj = self.expected("main", identifier="main")
        self.assertEqual(r.json, self.expected(
            "latest", identifier="main", aliases=[main_obj], vcs_name="main"))

    def test_plain_versions(self):
        r = self.server.get(self.url(slug="old-feature"))
        self.assertEqual(r.json, self.expected(
            "old-feature", identifier="old-feature", active=False, hidden=True))
        r = self.server.get(self.url(slug="v2.0rc1"))
        self.assertEqual(r.json, self.expected(
            "v2.0rc1", identifier="f00", type="tag", active=False))

    # Lists, ordering, pagination ---------------------------------------------

    def test_list_owner_sees_every_internal_version(self):
        r = self.server.get(self.url(), token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(sorted(body), ["count", "next", "previous", "results"])
        self.assertEqual(body["count"], 7)
        self.assertIsNone(body["next"])
        self.assertIsNone(body["previous"])
        self.assertEqual([v["slug"] for v in body["results"]], ALL_SLUGS)
        for v in body["results"]:
            self.assertEqual(sorted(v), VERSION_KEYS)
        self.assertEqual(body["results"][1], self.v1())

    def test_list_hides_private_versions_from_others(self):
        public = [s for s in ALL_SLUGS if s != "secret"]
        self.assertEqual(self.slugs(self.server.get(self.url())), public)
        self.assertEqual(self.slugs(self.server.get(self.url(), token=self.bob)),
                         public)

    def test_pagination(self):
        r = self.server.get(self.url(query="?limit=2&offset=2&type=tag&active=x"),
                            token=self.alice)
        self.assertStatus(r, 200)
        body = r.json
        # type=tag: v2.0rc1, v1.0, stable; active=x is no filter.
        self.assertEqual(body["count"], 3)
        self.assertEqual([v["slug"] for v in body["results"]], ["stable"])
        self.assertIsNone(body["next"])
        self.assertEqual(body["previous"], self.server.base + self.url(
            query="?active=x&limit=2&type=tag"))
        r = self.server.get(self.url(query="?limit=2"), token=self.alice)
        self.assertEqual(r.json["next"], self.server.base + self.url(
            query="?limit=2&offset=2"))
        self.assertEqual([v["slug"] for v in r.json["results"]], ALL_SLUGS[:2])

    # Filters -------------------------------------------------------------------

    def test_filters(self):
        cases = [
            ("active=true", ["v1.0", "stable", "secret", "main", "latest"]),
            ("active=False", ["v2.0rc1", "old-feature"]),
            ("active=1&type=tag", ["v1.0", "stable"]),
            ("built=true", ["v1.0"]),
            ("built=0", [s for s in ALL_SLUGS if s != "v1.0"]),
            ("uploaded=TRUE", ["old-feature"]),
            ("privacy_level=private", ["secret"]),
            ("privacy_level=public", [s for s in ALL_SLUGS if s != "secret"]),
            ("slug=V1", ["v1.0"]),
            ("slug=e", ["stable", "secret", "old-feature", "latest"]),
            ("verbose_name=RC", ["v2.0rc1"]),
            ("type=tag", ["v2.0rc1", "v1.0", "stable"]),
            ("type=branch", ["secret", "old-feature", "main", "latest"]),
            ("type=external", []),
            ("type=unknown", []),
            ("type=&privacy_level=&slug=", ALL_SLUGS),
            ("active=maybe&built=", ALL_SLUGS),
        ]
        for query, want in cases:
            with self.subTest(query=query):
                r = self.server.get(self.url(query="?" + query), token=self.alice)
                self.assertEqual(self.slugs(r), want)
                self.assertEqual(r.json["count"], len(want))

    def test_private_filter_for_others_is_empty(self):
        for token in (None, self.bob):
            r = self.server.get(self.url(query="?privacy_level=private"), token=token)
            self.assertEqual(r.json, {"count": 0, "next": None, "previous": None,
                                      "results": []})

    def test_invalid_choices(self):
        msg = "Select a valid choice. %s is not one of the available choices."
        r = self.server.get(self.url(query="?type=pr"), token=self.alice)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"type": [msg % "pr"]})
        r = self.server.get(self.url(query="?privacy_level=secret"))
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"privacy_level": [msg % "secret"]})
        # Every bad parameter is named; the parent is looked up first.
        r = self.server.get(self.url(query="?type=x&privacy_level=Public"))
        self.assertStatus(r, 400)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json, {"privacy_level": [msg % "Public"],
                                  "type": [msg % "x"]})

    # Expansions ------------------------------------------------------------

    def test_expand_last_build(self):
        r = self.server.get(self.url(slug="v1.0", query="?expand=last_build"))
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(sorted(body), sorted(VERSION_KEYS + ["last_build"]))
        build = body.pop("last_build")
        self.assertEqual(body, self.v1())
        self.assertEqual(sorted(build), BUILD_KEYS)
        self.assertEqual(build["id"], self.new_build)
        self.assertEqual(build["version"], "v1.0")
        self.assertEqual(build["created"], "2024-01-02T03:04:06Z")
        self.assertRegex(build["created"], ISO_Z)
        # A version without builds shows null.
        r = self.server.get(self.url(slug="main", query="?expand=last_build"))
        self.assertIsNone(r.json["last_build"])

    def test_expand_last_build_config(self):
        r = self.server.get(self.url(slug="v1.0", query="?expand=last_build.config"))
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        build = r.json["last_build"]
        self.assertEqual(sorted(build), sorted(BUILD_KEYS + ["config"]))
        self.assertEqual(build["config"], {"formats": ["pdf"], "version": 2})
        # config alone is not a Version expansion.
        r = self.server.get(self.url(slug="v1.0", query="?expand=config"))
        self.assertEqual(r.json, self.v1())
        # A wildcard expands last_build but is not handed down.
        r = self.server.get(self.url(slug="v1.0", query="?expand=*"))
        self.assertEqual(sorted(r.json["last_build"]), BUILD_KEYS)

    def test_expand_in_lists(self):
        r = self.server.get(self.url(query="?expand=last_build.config"), token=self.alice)
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        by_slug = {v["slug"]: v for v in r.json["results"]}
        self.assertEqual(by_slug["v1.0"]["last_build"]["id"], self.new_build)
        self.assertEqual(by_slug["v1.0"]["last_build"]["config"],
                         {"formats": ["pdf"], "version": 2})
        self.assertIsNone(by_slug["main"]["last_build"])
        self.assertEqual(by_slug["latest"]["last_build"]["state"],
                         {"code": "triggered", "name": "Triggered"})
        r = self.server.get(self.url())
        self.assertTrue(all("last_build" not in v for v in r.json["results"]))

    def test_recursive_expansion(self):
        r = self.server.get(self.url(slug="v1.0", query="?expand=last_build.last_build"))
        self.assertStatus(r, 400)
        self.assertEqual(r.json, ["Recursive expansion found"])

    def test_fields_and_omit_are_ignored(self):
        r = self.server.get(self.url(slug="v1.0", query="?fields=id&omit=slug,urls"))
        self.assertEqual(r.json, self.v1())
        r = self.server.get(self.url(query="?fields=&omit=_links"), token=self.alice)
        self.assertEqual(r.json["results"][1], self.v1())

    # Visibility and errors -----------------------------------------------------

    def test_unknown_project_is_404(self):
        # The parent is looked up first, as the service's nested views do.
        for token in (None, self.bob, self.alice):
            for query in ("", "?type=x"):
                r = self.server.get(self.url(project="nope", query=query), token=token)
                self.assertDetail(r, 404, NO_PROJECT)

    def test_detail_not_found(self):
        self.assertDetail(self.server.get(self.url("nope", "latest"), token=self.alice),
                          404, NO_PROJECT)
        for slug in ("nope", "12", "V1.0"):
            with self.subTest(slug=slug):
                self.assertDetail(self.server.get(self.url("ver", slug),
                                                  token=self.alice),
                                  404, NO_VERSION)

    def test_private_version_detail(self):
        for token in (None, self.bob):
            self.assertDetail(self.server.get(self.url(slug="secret"), token=token),
                              404, NO_VERSION)
        r = self.server.get(self.url(slug="secret"), token=self.alice)
        self.assertStatus(r, 200)
        self.assertEqual(r.json, self.expected("secret", identifier="secret",
                                               privacy="private"))

    def test_private_project_versions_are_as_hidden_as_the_project(self):
        # One visibility rule: whoever cannot see the project gets its 404
        # on every version route, public versions included.
        for token in (None, self.bob):
            for path in (self.url("hush"), self.url("hush", "latest"),
                         self.url("hush", "internal")):
                with self.subTest(path=path, token=token):
                    self.assertDetail(self.server.get(path, token=token), 404, NO_PROJECT)
        self.assertEqual(self.slugs(self.server.get(self.url("hush"), token=self.alice)),
                         ["latest", "internal"])

    def test_read_permissions(self):
        for path in (self.url(), self.url(slug="v1.0")):
            with self.subTest(path=path):
                self.assertEqual(self.server.get(path).status, 200)
                self.assertEqual(self.server.get(path, token=self.bob).status, 200)
                self.assertEqual(self.server.get(path, token=self.alice).status, 200)
                r = self.server.get(path, token="not-a-token")
                self.assertDetail(r, 401, "Invalid token.")
                self.assertEqual(r.header("WWW-Authenticate"), "Token")

    def test_unrouted_methods(self):
        r = self.server.post(self.url(), {}, token=self.alice)
        self.assertDetail(r, 405, 'Method "POST" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, HEAD, OPTIONS")
        r = self.server.delete(self.url(slug="main"), token=self.alice)
        self.assertDetail(r, 405, 'Method "DELETE" not allowed.')
        self.assertEqual(r.header("Allow"), "GET, PUT, PATCH, HEAD, OPTIONS")
        self.assertDetail(self.server.delete(self.url(slug="main"), token=self.bob),
                          403, FORBIDDEN)
        self.assertDetail(self.server.delete(self.url(slug="main")),
                          401, UNAUTHENTICATED)
        self.assertEqual(self.count(self.server.get(self.url(), token=self.alice)), 7)

    # Updates -------------------------------------------------------------------

    def builds_of(self, project, slug):
        r = self.server.get("/api/v3/projects/%s/versions/%s/builds/" % (project, slug),
                            token=self.alice)
        self.assertStatus(r, 200)
        return r.json["results"]

    def get_mut(self, slug):
        r = self.server.get(self.url("mut", slug), token=self.alice)
        self.assertStatus(r, 200)
        return r.json

    def test_update_permissions(self):
        before = self.db.version_row("mut", "flags")
        body = {"hidden": True}
        r = self.server.patch(self.url("mut", "flags"), body)
        self.assertDetail(r, 401, UNAUTHENTICATED)
        self.assertEqual(r.header("WWW-Authenticate"), "Token")
        r = self.server.patch(self.url("mut", "flags"), body, token="bad")
        self.assertDetail(r, 401, "Invalid token.")
        self.assertDetail(self.server.patch(self.url("mut", "flags"), body, token=self.bob),
                          403, FORBIDDEN)
        self.assertDetail(self.server.put(self.url("mut", "flags"), body, token=self.bob),
                          403, FORBIDDEN)
        self.assertDetail(self.server.patch(self.url("nope", "flags"), body, token=self.bob),
                          404, "No Project matches the given query.")
        self.assertEqual(self.db.version_row("mut", "flags"), before)

    def test_update_not_found(self):
        for slug in ("nope", "7"):
            self.assertDetail(self.server.patch(self.url("mut", slug), {"hidden": True},
                                                token=self.alice), 404, NO_VERSION)

    def test_update_hidden_with_patch_and_put(self):
        r = self.server.patch(self.url("mut", "flags"), {"hidden": True}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        v = self.get_mut("flags")
        self.assertIs(v["hidden"], True)
        self.assertIs(v["active"], True)
        r = self.server.put(self.url("mut", "flags"), {"hidden": "false"}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertIs(self.get_mut("flags")["hidden"], False)
        # An empty body changes nothing; privacy_level is not a field in the
        # community edition.
        self.assertStatus(self.server.patch(self.url("mut", "flags"), {}, token=self.alice), 204)
        r = self.server.patch(self.url("mut", "flags"), {"privacy_level": "private"},
                              token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(self.get_mut("flags")["privacy_level"], "public")

    def test_deactivating_clears_built(self):
        self.assertIs(self.get_mut("on")["built"], True)
        r = self.server.patch(self.url("mut", "on"), {"active": False}, token=self.alice)
        self.assertStatus(r, 204)
        v = self.get_mut("on")
        self.assertIs(v["active"], False)
        self.assertIs(v["built"], False)
        self.assertEqual(self.builds_of("mut", "on"), [])

    def test_activating_triggers_a_build(self):
        self.assertEqual(self.builds_of("mut", "off"), [])
        r = self.server.patch(self.url("mut", "off"), {"active": True}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertIs(self.get_mut("off")["active"], True)
        builds = self.builds_of("mut", "off")
        self.assertEqual(len(builds), 1)
        self.assertEqual(builds[0]["state"], {"code": "triggered", "name": "Triggered"})
        self.assertEqual(builds[0]["version"], "off")
        self.assertRegex(builds[0]["created"], ISO_Z)
        # Already active: no second build.
        self.assertStatus(self.server.put(self.url("mut", "off"), {"active": True},
                                          token=self.alice), 204)
        self.assertEqual(len(self.builds_of("mut", "off")), 1)

    def test_update_validation_changes_nothing(self):
        before = self.db.version_row("mut", "flags")
        cases = [
            ({"active": "maybe"}, {"active": ["Must be a valid boolean."]}),
            ({"active": False, "hidden": None}, {"hidden": ["This field may not be null."]}),
            ({"hidden": [1]}, {"hidden": ["Must be a valid boolean."]}),
        ]
        for body, errors in cases:
            with self.subTest(body=body):
                r = self.server.patch(self.url("mut", "flags"), body, token=self.alice)
                self.assertStatus(r, 400)
                self.assertEqual(r.json, errors)
        r = self.server.patch(self.url("mut", "flags"), raw=b"{nope",
                              headers={"Content-Type": "application/json"},
                              token=self.alice)
        self.assertStatus(r, 400)
        self.assertTrue(r.json["detail"].startswith("JSON parse error - "), r)
        self.assertEqual(self.db.version_row("mut", "flags"), before)

    # sync-versions -------------------------------------------------------------

    def sync_url(self, project="ver"):
        return "/api/v3/projects/%s/sync-versions/" % project

    def pending_syncs(self):
        return self.db.rows("SELECT p.slug FROM version_sync_requests r"
                            " JOIN projects p ON p.id = r.project_id ORDER BY r.id")

    def test_sync_versions(self):
        r = self.server.post(self.sync_url("hush"), token=self.alice)
        self.assertStatus(r, 202)
        self.assertSortedKeys(r.body)
        self.assertEqual(r.json, {"triggered": True})
        # The body is ignored; asking again keeps the one pending request.
        r = self.server.post(self.sync_url("hush"), {"anything": 1}, token=self.alice)
        self.assertStatus(r, 202)
        self.assertEqual(r.json, {"triggered": True})
        self.assertIn(("hush",), self.pending_syncs())
        self.assertEqual(self.pending_syncs().count(("hush",)), 1)

    def test_sync_versions_permissions(self):
        r = self.server.post(self.sync_url("mut"))
        self.assertDetail(r, 401, UNAUTHENTICATED)
        self.assertEqual(r.header("WWW-Authenticate"), "Token")
        self.assertDetail(self.server.post(self.sync_url("mut"), token="bad"),
                          401, "Invalid token.")
        self.assertDetail(self.server.post(self.sync_url("mut"), token=self.bob),
                          403, FORBIDDEN)
        self.assertDetail(self.server.post(self.sync_url("nope"), token=self.alice),
                          404, "No Project matches the given query.")
        # GET passes the read-only permission, then has no handler (§1.9).
        r = self.server.get(self.sync_url("mut"))
        self.assertDetail(r, 405, 'Method "GET" not allowed.')
        self.assertEqual(r.header("Allow"), "POST, OPTIONS")
        self.assertNotIn(("mut",), self.pending_syncs())


class BusinessVersionsTest(ServerTestCase):
    """privacy_level is writable where versions can be private."""

    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.server.lectern("org", "create", "acme", "--owner", "alice")
        body = {"name": "biz", "organization": "acme", "repository": {
            "url": "https://github.com/example/biz.git", "type": "git"}}
        r = cls.server.post("/api/v3/projects/", body, token=cls.alice)
        if r.status != 201:
            raise AssertionError("import: %r" % r)
        cls.db = Store(cls.server)
        cls.db.add_version("biz", "main", "main")

    def test_privacy_level(self):
        url = "/api/v3/projects/biz/versions/main/"
        r = self.server.patch(url, {"privacy_level": "private"}, token=self.alice)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(url, token=self.alice).json["privacy_level"],
                         "private")
        self.assertDetail(self.server.get(url), 404, NO_VERSION)
        before = self.db.version_row("biz", "main")
        for value, msg in (("secret", '"secret" is not a valid choice.'),
                           ("", '"" is not a valid choice.')):
            r = self.server.patch(url, {"privacy_level": value, "hidden": True},
                                  token=self.alice)
            self.assertStatus(r, 400)
            self.assertEqual(r.json, {"privacy_level": [msg]})
        self.assertEqual(self.db.version_row("biz", "main"), before)
        self.assertStatus(self.server.put(url, {"privacy_level": "public"},
                                          token=self.alice), 204)
        self.assertEqual(self.server.get(url).json["privacy_level"], "public")


if __name__ == "__main__":
    main()
