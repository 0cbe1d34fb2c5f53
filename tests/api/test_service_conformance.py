"""The hosted service's own v3 API tests, run against `lectern serve`: the
scenarios of its readthedocs/api/v3/tests/ (test_projects.py,
test_versions.py, test_builds.py, test_redirects.py,
test_environmentvariables.py, test_subprojects.py), each test named after
the service's, with the status codes the service's test asserts and, where
it compares the answer with one of its JSON fixtures
(readthedocs/api/v3/tests/responses/), the keys of Lectern's answer
compared with that fixture's, level by level (a copy of each fixture's key
structure, with its source path and commit, is in fixtures_service/).

The world is the service's APIEndpointMixin's: a user "testuser" with the
project "project" (its tags, a tag version v1.0 built, one finished build
of it with a notification, a page redirect /docs/ -> /documentation/, an
environment variable), a subproject "subproject" (alias "subproject"), and
another user "other" with "others-project". Privacy is set in the store,
as the service's tests set it in the database.

What Lectern answers otherwise on purpose is in the DecidedTest class at
the end, checked as Lectern answers it, each with its line in
docs/decisions.md; the service's scenarios that cannot apply here
(connected remote repositories, query counts, business-edition settings)
are listed in that file too."""
import json
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))

import fixtures  # noqa: E402
from lectern_test import BuildTestCase, ServerTestCase, Store, main  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures_service")
T0 = Store.T0
NOT_FOUND = 404
EMPTY_PAGE = {"count": 0, "next": None, "previous": None, "results": []}


def structure(value):
    """The key structure of a JSON value, as fixtures_service/ keeps it:
    objects' keys, a list's first item, the type of a scalar."""
    if isinstance(value, dict):
        return {k: structure(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [structure(value[0])] if value else []
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def differences(want, got, path=""):
    """Where got's structure differs from the fixture's: keys missing or
    extra, lists against objects, scalars of another type (null matches any
    scalar: the fixtures' data, not their shape, decides those)."""
    out = []
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            sub = path + "." + key if path else key
            if key not in got:
                out.append("missing " + sub)
            elif key not in want:
                out.append("extra " + sub)
            else:
                out += differences(want[key], got[key], sub)
    elif isinstance(want, list) and isinstance(got, list):
        if want and got:
            out += differences(want[0], got[0], path + "[]")
    elif isinstance(want, (dict, list)) or isinstance(got, (dict, list)):
        out.append("shape " + path)
    elif want != got and "null" not in (want, got):
        out.append("type %s: %s, not %s" % (path, got, want))
    return out


def fixture(name):
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return json.load(f)["keys"]


def as_listed(body):
    """A project with expand=active_versions, its versions as the service's
    list: Lectern follows the contract's object keyed by slug."""
    body = dict(body)
    if isinstance(body.get("active_versions"), dict):
        body["active_versions"] = list(body["active_versions"].values())
    return body


# Lectern's notifications name what they are about, so a client can say
# and open it without knowing ids (docs/decisions.md): keys the service's
# fixtures lack.
NOTIFICATION_EXTRAS = ("extra results[].build", "extra results[].project",
                       "extra build", "extra project")

# A build says its version's type, as v2's build does, so a client can
# mark a pull request's build (docs/decisions.md); an external one names
# its forge too, which these fixtures' builds are not.
BUILD_EXTRAS = ("extra version_type", "extra results[].version_type",
                "extra build.version_type")

class World(ServerTestCase):
    """The service's APIEndpointMixin world, once per class."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.me = s.token("testuser")
        cls.other = s.token("other")
        cls.db = Store(s)
        if cls.business():
            # The mixin's organization, and one of the other user's.
            s.lectern("org", "create", "organization", "--owner", "testuser")
            s.lectern("org", "create", "others-organization", "--owner", "other")
        cls.import_as(cls.me, "project", url="https://github.com/rtfd/project",
                      homepage="http://project.com", tags=["tag", "project", "test"])
        cls.import_as(cls.other, "others-project", url="https://github.com/rtfd/others")
        cls.import_as(cls.me, "subproject", url="https://github.com/rtfd/subproject")
        r = s.post("/api/v3/projects/project/subprojects/", {"child": "subproject"},
                   token=cls.me)
        assert r.status == 201, r
        cls.pid = cls.project_id("project")
        cls.version_id = cls.db.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier, type,"
            " active, hidden, built, privacy_level, has_pdf, has_epub, has_htmlzip,"
            " created, modified) VALUES (?, 'v1.0', 'v1.0', 'a1b2c3', 'tag', 1, 0, 1,"
            " 'public', 1, 1, 1, ?, ?)", (cls.pid, T0, T0))
        cls.build = cls.add_build("project", cls.version_id)
        cls.build_notification = cls.add_notification("build", cls.build, cls.pid,
                                                      "build:user:cancelled")
        cls.project_notification = cls.add_notification(
            "project", cls.pid, cls.pid, "project:invalid:skip-builds")
        others = cls.project_id("others-project")
        cls.others_build = cls.add_build(
            "others-project",
            cls.db.rows("SELECT id FROM versions WHERE project_id = ? AND slug ="
                        " 'latest'", (others,))[0][0])
        cls.add_notification("build", cls.others_build, others, "build:user:cancelled")
        r = s.post("/api/v3/projects/project/redirects/",
                   {"from_url": "/docs/", "to_url": "/documentation/", "type": "page"},
                   token=cls.me)
        assert r.status == 201, r
        cls.redirect = r.json["pk"]
        r = s.post("/api/v3/projects/project/environmentvariables/",
                   {"name": "ENVVAR", "value": "a1b2c3"}, token=cls.me)
        assert r.status == 201, r
        cls.envvar = r.json["pk"]

    @classmethod
    def business(cls):
        return "business" in cls.SERVER_ARGS

    @classmethod
    def import_as(cls, token, name, **extra):
        """Import a project; in the business edition into the user's
        organization."""
        if cls.business():
            extra["organization"] = ("organization" if token == cls.me
                                     else "others-organization")
        return cls.server.import_project(token, name, **extra)

    @classmethod
    def project_id(cls, slug):
        return cls.db.rows("SELECT id FROM projects WHERE slug = ?", (slug,))[0][0]

    @classmethod
    def add_build(cls, slug, version_id):
        return cls.db.execute(
            "INSERT INTO builds (project_id, version_id, state, success, commit_sha,"
            " created, started, finished, duration) VALUES (?, ?, 'finished', 1,"
            " 'a1b2c3', ?, ?, ?, 60)",
            (cls.project_id(slug), version_id, T0, T0, T0 + 60 * 1000000))

    @classmethod
    def add_notification(cls, target, attached, project_id, message_id):
        return cls.db.execute(
            "INSERT INTO notifications (message_id, dismissable, attached_type,"
            " attached_id, project_id, type, header, body, created, modified, state)"
            " VALUES (?, 0, ?, ?, ?, 'error', 'Header', 'Body.', ?, ?, 'unread')",
            (message_id, target, attached, project_id, T0, T0))

    def setUp(self):
        # Each scenario starts from the world as the mixin makes it.
        self.db.execute("UPDATE projects SET privacy_level = 'public',"
                        " external_builds_privacy_level = 'public'")
        self.db.execute("UPDATE versions SET privacy_level = 'public'")

    def private(self, table, where, *args):
        self.db.execute("UPDATE %s SET privacy_level = 'private' WHERE %s" % (table, where),
                        args)

    def get(self, path, token=None):
        return self.server.get(path, token=token)

    def assertShape(self, response, status, name, allowed=()):
        """The status, and the keys of the fixture name: none missing or
        extra but those allowed (each a decision)."""
        self.assertStatus(response, status)
        got = differences(fixture(name), structure(as_listed(response.json)))
        self.assertEqual([d for d in got if d not in allowed], [], name)


class ProjectsTest(World):
    LIST = "/api/v3/projects/"
    DETAIL = "/api/v3/projects/project/?expand=active_versions,permissions"

    def test_projects_list(self):
        self.assertStatus(self.get(self.LIST), 401)
        self.assertShape(self.get(self.LIST, self.me), 200, "projects-list")

    def test_projects_list_filter_full_hit(self):
        r = self.get(self.LIST + "?name=project", self.me)
        self.assertShape(r, 200, "projects-list")
        self.assertIn("project", [p["slug"] for p in r.json["results"]])

    def test_projects_list_filter_partial_hit(self):
        r = self.get(self.LIST + "?name=pro", self.me)
        self.assertShape(r, 200, "projects-list")
        self.assertIn("project", [p["slug"] for p in r.json["results"]])

    def test_projects_list_filter_miss(self):
        r = self.get(self.LIST + "?name=63dadecd5323d789cafe09f01cda85fd", self.me)
        self.assertShape(r, 200, "projects-list-empty")
        self.assertEqual(r.json, EMPTY_PAGE)

    def test_projects_detail_anonymous_user(self):
        r = self.get(self.DETAIL)
        self.assertShape(r, 200, "projects-detail")
        self.assertIs(r.json["permissions"]["admin"], False)
        self.private("projects", "slug = 'project'")
        self.assertStatus(self.get(self.DETAIL), NOT_FOUND)

    def test_projects_detail(self):
        r = self.get(self.DETAIL, self.me)
        self.assertShape(r, 200, "projects-detail")
        self.assertIs(r.json["permissions"]["admin"], True)
        self.assertEqual(r.json["tags"], ["project", "tag", "test"])
        self.assertEqual(r.json["users"], [{"username": "testuser"}])
        self.private("projects", "slug = 'project'")
        r = self.get(self.DETAIL, self.me)
        self.assertShape(r, 200, "projects-detail")
        self.assertEqual(r.json["privacy_level"], "private")

    def test_projects_detail_other_user(self):
        r = self.get(self.DETAIL, self.other)
        self.assertShape(r, 200, "projects-detail")
        self.assertIs(r.json["permissions"]["admin"], False)
        self.private("projects", "slug = 'project'")
        self.assertStatus(self.get(self.DETAIL, self.other), NOT_FOUND)

    def test_projects_superproject_anonymous_user(self):
        url = "/api/v3/projects/subproject/superproject/"
        self.assertShape(self.get(url), 200, "projects-superproject")
        self.private("projects", "slug = 'project'")
        self.assertStatus(self.get(url), NOT_FOUND)

    def test_projects_superproject(self):
        url = "/api/v3/projects/subproject/superproject/"
        self.assertShape(self.get(url, self.me), 200, "projects-superproject")
        self.private("projects", "slug = 'project'")
        r = self.get(url, self.me)
        self.assertShape(r, 200, "projects-superproject")
        self.assertEqual(r.json["privacy_level"], "private")

    def test_projects_superproject_other_user(self):
        url = "/api/v3/projects/subproject/superproject/"
        self.assertShape(self.get(url, self.other), 200, "projects-superproject")
        self.private("projects", "slug = 'project'")
        self.assertStatus(self.get(url, self.other), NOT_FOUND)

    def test_projects_sync_versions(self):
        url = "/api/v3/projects/project/sync-versions/"
        self.assertStatus(self.get(url), 405)
        self.assertStatus(self.server.post(url), 401)
        self.assertStatus(self.server.post(url, token=self.other), 403)
        r = self.server.post(url, token=self.me)
        self.assertShape(r, 202, "projects-sync-versions")
        self.assertEqual(r.json, {"triggered": True})

    def test_others_projects_detail(self):
        self.assertStatus(self.get("/api/v3/projects/others-project/", self.me), 200)

    def test_unauthed_others_projects_detail(self):
        self.assertStatus(self.get("/api/v3/projects/others-project/"), 200)

    def test_nonexistent_projects_detail(self):
        self.assertStatus(self.get("/api/v3/projects/nonexistent/", self.me), NOT_FOUND)

    def test_import_project(self):
        body = {"name": "Test Project",
                "repository": {"url": "https://github.com/rtfd/template", "type": "git"},
                "homepage": "http://template.readthedocs.io/",
                "programming_language": "py", "tags": ["test tag", "template tag"]}
        self.assertStatus(self.server.post(self.LIST, body), 401)
        r = self.server.post(self.LIST, body, token=self.me)
        self.assertShape(r, 201, "projects-list_POST")
        self.assertEqual(r.json["slug"], "test-project")
        self.assertEqual(r.json["repository"]["url"], "https://github.com/rtfd/template")
        self.assertEqual(r.json["language"]["code"], "en")
        self.assertEqual(r.json["programming_language"]["code"], "py")
        self.assertEqual(r.json["homepage"], "http://template.readthedocs.io/")
        self.assertEqual(r.json["tags"], ["template tag", "test tag"])
        self.assertEqual(r.json["users"], [{"username": "testuser"}])
        builds = self.get("/api/v3/projects/test-project/builds/", self.me).json
        self.assertEqual(builds["count"], 1)
        # test_import_existing_project: the same again.
        r = self.server.post(self.LIST, body, token=self.me)
        self.assertStatus(r, 400)
        self.assertIn('Project with slug \\"test-project\\" already exists.',
                      r.body.decode())

    def test_import_empty_slug(self):
        r = self.server.post(self.LIST, {"name": "*", "repository": {
            "url": "https://github.com/rtfd/template", "type": "git"}}, token=self.me)
        self.assertStatus(r, 400)
        self.assertIn('Invalid project name \\"*\\": no slug generated.', r.body.decode())

    def test_import_project_with_invalid_repo_url(self):
        for url in ("not-a-url", "random string", "javascript:alert(1)",
                    "ftp://github.com/user/repo", "//github.com/user/repo"):
            with self.subTest(url=url):
                r = self.server.post(self.LIST, {"name": "Bad Url", "repository": {
                    "url": url, "type": "git"}}, token=self.me)
                self.assertStatus(r, 400)
                self.assertEqual(r.json["repository"]["url"], ["Invalid scheme for URL"])

    def test_import_project_with_extra_fields(self):
        r = self.server.post(self.LIST, {
            "name": "Extra Fields", "default_version": "v1.0",
            "repository": {"url": "https://github.com/rtfd/template", "type": "git"}},
            token=self.me)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["slug"], "extra-fields")
        self.assertNotEqual(r.json["default_version"], "v1.0")

    def test_import_project_with_readthedocs_yaml_path(self):
        r = self.server.post(self.LIST, {
            "name": "Yaml Path", "programming_language": "py",
            "readthedocs_yaml_path": "docs/.readthedocs.yaml",
            "repository": {"url": "https://github.com/readthedocs/template", "type": "git"}},
            token=self.me)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["readthedocs_yaml_path"], "docs/.readthedocs.yaml")

    def test_update_project(self):
        self.server.import_project(self.me, "Updatable")
        url = "/api/v3/projects/updatable/"
        body = {"name": "Updated name",
                "repository": {"url": "https://bitbucket.com/rtfd/updated-repository",
                               "type": "git"},
                "language": "es", "programming_language": "js",
                "homepage": "https://updated-homepage.org",
                "tags": ["updated tag", "test tag"], "default_version": "stable",
                "default_branch": "updated-default-branch",
                "analytics_code": "UA-XXXXXX", "show_version_warning": False,
                "versioning_scheme": "single_version_without_translations",
                "external_builds_enabled": True}
        self.assertStatus(self.server.put(url, body), 401)
        self.assertStatus(self.server.put(url, body, token=self.me), 204)
        p = self.get(url, self.me).json
        self.assertEqual((p["name"], p["slug"], p["language"]["code"],
                          p["programming_language"]["code"], p["homepage"], p["tags"],
                          p["default_version"], p["default_branch"], p["single_version"],
                          p["repository"]),
                         ("Updated name", "updatable", "es", "js",
                          "https://updated-homepage.org", ["test tag", "updated tag"],
                          "stable", "updated-default-branch", True,
                          {"type": "git",
                           "url": "https://bitbucket.com/rtfd/updated-repository"}))

    def test_partial_update_project(self):
        self.server.import_project(self.me, "Partial")
        url = "/api/v3/projects/partial/"
        body = {"name": "Updated name",
                "repository": {"url": "https://github.com/rtfd/updated-repository"},
                "default_branch": "updated-default-branch",
                "tags": ["partial tags", "updated"]}
        self.assertStatus(self.server.patch(url, body), 401)
        self.assertStatus(self.server.patch(url, body, token=self.me), 204)
        p = self.get(url, self.me).json
        self.assertEqual((p["name"], p["slug"], p["repository"]["url"], p["tags"]),
                         ("Updated name", "partial",
                          "https://github.com/rtfd/updated-repository",
                          ["partial tags", "updated"]))
        self.assertNotEqual(p["default_version"], "updated-default-branch")

    def test_partial_update_project_readthedocs_yaml_path(self):
        self.server.import_project(self.me, "Yaml Patch")
        url = "/api/v3/projects/yaml-patch/"
        self.assertIsNone(self.get(url, self.me).json["readthedocs_yaml_path"])
        r = self.server.patch(url, {"readthedocs_yaml_path": "   docs/.readthedocs.yaml   "},
                              token=self.me)
        self.assertStatus(r, 204)
        self.assertEqual(self.get(url, self.me).json["readthedocs_yaml_path"],
                         "docs/.readthedocs.yaml")

    def test_partial_update_others_project(self):
        r = self.server.patch("/api/v3/projects/others-project/", {"name": "Updated name"},
                              token=self.me)
        self.assertStatus(r, 403)

    def test_partial_update_project_privacy_levels_disabled(self):
        # The community edition: the service drops the fields.
        r = self.server.patch("/api/v3/projects/project/",
                              {"privacy_level": "private",
                               "external_builds_privacy_level": "private"}, token=self.me)
        self.assertStatus(r, 204)
        p = self.get("/api/v3/projects/project/", self.me).json
        self.assertEqual((p["privacy_level"], p["external_builds_privacy_level"]),
                         ("public", "public"))

    def test_update_project_with_invalid_repo_url(self):
        for url in ("not-a-url", "ssh://github.com/user/repo"):
            with self.subTest(url=url):
                r = self.server.put("/api/v3/projects/project/", {
                    "name": "Updated name", "language": "en", "programming_language": "py",
                    "repository": {"url": url, "type": "git"}}, token=self.me)
                self.assertStatus(r, 400)
        self.assertEqual(self.get("/api/v3/projects/project/", self.me).json["repository"]["url"],
                         "https://github.com/rtfd/project")

    def test_partial_update_project_with_invalid_repo_url(self):
        for url in ("not-a-url", "random string", "javascript:alert(1)",
                    "ftp://github.com/user/repo", "//github.com/user/repo"):
            with self.subTest(url=url):
                r = self.server.patch("/api/v3/projects/project/",
                                      {"repository": {"url": url}}, token=self.me)
                self.assertStatus(r, 400)
                self.assertEqual(r.json["repository"]["url"], ["Invalid scheme for URL"])
        self.assertEqual(self.get("/api/v3/projects/project/", self.me).json["repository"]["url"],
                         "https://github.com/rtfd/project")

    def test_projects_notifications_list(self):
        url = "/api/v3/projects/project/notifications/"
        self.assertStatus(self.get(url), 401)
        self.assertShape(self.get(url, self.me), 200, "projects-notifications-list", NOTIFICATION_EXTRAS)
        # test_projects_notifications_list_other_user
        self.assertStatus(self.get(url, self.other), 403)
        # test_projects_notifications_list_post
        self.assertStatus(self.server.post(url), 401)
        self.assertStatus(self.server.post(url, token=self.me), 405)

    def test_projects_notifications_detail(self):
        url = "/api/v3/projects/project/notifications/%d/" % self.project_notification
        self.assertStatus(self.get(url), 401)
        self.assertShape(self.get(url, self.me), 200, "projects-notifications-detail", NOTIFICATION_EXTRAS)
        # test_projects_notifications_detail_other_user
        self.assertStatus(self.get(url, self.other), 403)

    def test_projects_notifications_detail_patch(self):
        url = "/api/v3/projects/project/notifications/%d/" % self.project_notification
        self.assertStatus(self.server.patch(url, {"state": "read"}), 401)
        self.assertEqual(self.get(url, self.me).json["state"], "unread")
        r = self.server.patch(url, {"state": "read"}, token=self.me)
        self.assertStatus(r, 204)
        self.assertEqual(r.body, b"")
        self.assertEqual(self.get(url, self.me).json["state"], "read")


class VersionsTest(World):
    LIST = "/api/v3/projects/project/versions/"
    DETAIL = "/api/v3/projects/project/versions/v1.0/"

    def slugs(self, token=None):
        r = self.get(self.LIST, token)
        self.assertStatus(r, 200)
        return [v["slug"] for v in r.json["results"]]

    def test_projects_versions_list_anonymous_user(self):
        self.assertEqual(self.slugs(), ["v1.0", "latest"])
        self.private("versions", "project_id = ?", self.pid)
        self.assertEqual(self.slugs(), [])

    def test_projects_versions_list(self):
        self.assertEqual(self.slugs(self.me), ["v1.0", "latest"])
        self.private("projects", "slug = 'project'")
        self.assertEqual(self.slugs(self.me), ["v1.0", "latest"])

    def test_projects_versions_list_other_user(self):
        self.assertEqual(self.slugs(self.other), ["v1.0", "latest"])
        self.private("versions", "project_id = ?", self.pid)
        self.assertEqual(self.slugs(self.other), [])

    def test_projects_versions_detail_anonymous_user(self):
        self.assertShape(self.get(self.DETAIL), 200, "projects-versions-detail")
        self.private("versions", "project_id = ?", self.pid)
        self.assertStatus(self.get(self.DETAIL), NOT_FOUND)

    def test_projects_versions_detail(self):
        self.assertShape(self.get(self.DETAIL, self.me), 200, "projects-versions-detail")
        self.private("versions", "project_id = ?", self.pid)
        r = self.get(self.DETAIL, self.me)
        self.assertShape(r, 200, "projects-versions-detail")
        self.assertEqual(r.json["privacy_level"], "private")

    def test_projects_versions_detail_other_user(self):
        self.assertShape(self.get(self.DETAIL, self.other), 200, "projects-versions-detail")
        self.private("versions", "project_id = ?", self.pid)
        self.assertStatus(self.get(self.DETAIL, self.other), NOT_FOUND)

    def test_nonexistent_project_version_detail(self):
        self.assertStatus(self.get("/api/v3/projects/nonexistent/versions/latest/", self.me),
                          NOT_FOUND)

    def test_projects_versions_detail_unique(self):
        self.server.import_project(self.me, "second project")
        self.db.execute(
            "INSERT INTO versions (project_id, slug, verbose_name, identifier, type, active,"
            " built, created, modified) VALUES (?, 'v1.0', 'v1.0', 'a1b2c3', 'tag', 1, 1, ?,"
            " ?)", (self.project_id("second-project"), T0, T0))
        self.assertStatus(self.get(self.DETAIL, self.me), 200)

    def test_projects_versions_partial_update(self):
        body = {"active": False, "hidden": True}
        url = "/api/v3/projects/subproject/versions/latest/"
        self.assertStatus(self.server.patch(url, body), 401)
        self.assertStatus(self.server.patch(url, body, token=self.other), 403)
        self.assertStatus(self.server.patch(url, body, token=self.me), 204)
        v = self.get(url, self.me).json
        self.assertEqual((v["active"], v["hidden"], v["privacy_level"]),
                         (False, True, "public"))
        # test_activate_version: active again (and a build queued).
        self.assertStatus(self.server.patch(url, {"active": True}, token=self.me), 204)
        self.assertIs(self.get(url, self.me).json["active"], True)

    def test_projects_versions_partial_update_privacy_levels_disabled(self):
        self.assertStatus(self.server.patch(self.DETAIL, {"privacy_level": "private"},
                                            token=self.me), 204)
        self.assertEqual(self.get(self.DETAIL, self.me).json["privacy_level"], "public")

    def test_projects_version_external(self):
        self.db.execute("UPDATE versions SET type = 'external' WHERE id = ?",
                        (self.version_id,))
        try:
            self.assertEqual(self.slugs(self.me), ["latest"])
            self.assertStatus(self.get(self.DETAIL, self.me), NOT_FOUND)
            self.assertStatus(self.server.patch(self.DETAIL, {"active": False},
                                                token=self.me), NOT_FOUND)
        finally:
            self.db.execute("UPDATE versions SET type = 'tag' WHERE id = ?",
                            (self.version_id,))

    def test_z_deactivate_version(self):
        self.assertStatus(self.server.patch(self.DETAIL, {"active": False}, token=self.me),
                          204)
        v = self.get(self.DETAIL, self.me).json
        self.assertEqual((v["active"], v["built"]), (False, False))


class BuildsTest(World):
    """A project's builds and their notifications, with each mix of the
    project's and the version's privacy the service's tests try."""

    MIXES = ((("projects", "slug = 'project'"),),
             (("projects", "slug = 'project'"), ("versions", "slug = 'v1.0'")),
             (("versions", "slug = 'v1.0'"),))

    def each_mix(self, check, mixes=None):
        for mix in mixes or self.MIXES:
            with self.subTest(private=mix):
                self.setUp()
                for table, where in mix:
                    self.private(table, where)
                check()
        self.setUp()

    def builds_url(self):
        return "/api/v3/projects/project/builds/"

    def build_url(self, suffix=""):
        return "/api/v3/projects/project/builds/%d/%s" % (self.build, suffix)

    def mine(self, r):
        return [b for b in r.json["results"] if b["id"] == self.build]

    def test_projects_builds_list_anonymous_user(self):
        r = self.get(self.builds_url())
        self.assertShape(r, 200, "projects-builds-list", BUILD_EXTRAS)
        self.assertEqual(len(self.mine(r)), 1)
        # A private project: DecidedTest.
        self.each_mix(lambda: self.assertEqual(self.mine(self.get(self.builds_url())), []),
                      self.MIXES[2:])

    def test_projects_builds_list(self):
        self.assertShape(self.get(self.builds_url(), self.me), 200, "projects-builds-list", BUILD_EXTRAS)

        def check():
            r = self.get(self.builds_url(), self.me)
            self.assertShape(r, 200, "projects-builds-list", BUILD_EXTRAS)
            self.assertEqual(len(self.mine(r)), 1)
        self.each_mix(check)

    def test_projects_builds_list_other_user(self):
        r = self.get(self.builds_url(), self.other)
        self.assertShape(r, 200, "projects-builds-list", BUILD_EXTRAS)
        self.assertEqual(len(self.mine(r)), 1)
        self.each_mix(lambda: self.assertEqual(
            self.mine(self.get(self.builds_url(), self.other)), []), self.MIXES[2:])

    def test_projects_builds_detail_anoymous_user(self):
        self.assertShape(self.get(self.build_url()), 200, "projects-builds-detail", BUILD_EXTRAS)
        self.each_mix(lambda: self.assertStatus(self.get(self.build_url()), NOT_FOUND))

    def test_projects_builds_detail(self):
        self.assertShape(self.get(self.build_url(), self.me), 200, "projects-builds-detail", BUILD_EXTRAS)
        self.each_mix(lambda: self.assertShape(self.get(self.build_url(), self.me), 200,
                                               "projects-builds-detail", BUILD_EXTRAS))

    def test_projects_builds_detail_other_user(self):
        self.assertShape(self.get(self.build_url(), self.other), 200,
                         "projects-builds-detail", BUILD_EXTRAS)
        self.each_mix(lambda: self.assertStatus(self.get(self.build_url(), self.other),
                                                NOT_FOUND))

    def test_projects_versions_builds_list_post(self):
        url = "/api/v3/projects/project/versions/v1.0/builds/"
        self.assertStatus(self.server.post(url), 401)
        self.assertStatus(self.server.post(url, token=self.other), 403)
        r = self.server.post(url, token=self.me)
        self.assertShape(r, 202, "projects-versions-builds-list_POST", BUILD_EXTRAS)
        self.assertEqual(r.json["build"]["state"]["code"], "triggered")
        self.assertEqual(r.json["version"]["slug"], "v1.0")

    def test_external_version_projects_versions_builds_list_post(self):
        self.db.execute("UPDATE versions SET type = 'external' WHERE id = ?",
                        (self.version_id,))
        self.db.execute("UPDATE builds SET commit_sha = 'd4e5f6' WHERE id = ?", (self.build,))
        try:
            r = self.server.post("/api/v3/projects/project/versions/v1.0/builds/",
                                 token=self.me)
            self.assertShape(r, 202, "projects-versions-builds-list_POST", BUILD_EXTRAS)
            self.assertEqual((r.json["build"]["commit"], r.json["version"]["type"]),
                             ("d4e5f6", "external"))
        finally:
            self.db.execute("UPDATE versions SET type = 'tag' WHERE id = ?",
                            (self.version_id,))
            self.db.execute("UPDATE builds SET commit_sha = 'a1b2c3' WHERE id = ?",
                            (self.build,))

    def test_projects_builds_notifications_list_anonymous_user(self):
        url = self.build_url("notifications/")
        r = self.get(url)
        self.assertShape(r, 200, "projects-builds-notifications-list", NOTIFICATION_EXTRAS)
        self.assertEqual([n["message"]["id"] for n in r.json["results"]],
                         ["build:user:cancelled"])
        self.each_mix(lambda: self.assertStatus(self.get(url), NOT_FOUND))

    def test_projects_builds_notifications_list(self):
        url = self.build_url("notifications/")
        self.assertShape(self.get(url, self.me), 200, "projects-builds-notifications-list", NOTIFICATION_EXTRAS)
        self.each_mix(lambda: self.assertShape(self.get(url, self.me), 200,
                                               "projects-builds-notifications-list", NOTIFICATION_EXTRAS))

    def test_projects_builds_notifications_list_other_user(self):
        url = self.build_url("notifications/")
        self.assertShape(self.get(url, self.other), 200, "projects-builds-notifications-list", NOTIFICATION_EXTRAS)
        self.each_mix(lambda: self.assertStatus(self.get(url, self.other), NOT_FOUND))
        # Their own build's; not another project's build through theirs.
        self.assertStatus(self.get("/api/v3/projects/others-project/builds/%d/notifications/"
                                   % self.others_build, self.other), 200)
        self.assertStatus(self.get("/api/v3/projects/others-project/builds/%d/notifications/"
                                   % self.build, self.other), NOT_FOUND)

    def test_projects_builds_notifications_list_post(self):
        url = self.build_url("notifications/")
        self.assertStatus(self.server.post(url), 401)
        self.assertStatus(self.server.post(url, token=self.me), 405)

    def test_projects_builds_notifitications_detail(self):
        url = self.build_url("notifications/%d/" % self.build_notification)
        self.assertShape(self.get(url), 200, "projects-builds-notifications-detail", NOTIFICATION_EXTRAS)
        self.each_mix(lambda: self.assertStatus(self.get(url), NOT_FOUND))
        self.assertShape(self.get(url, self.me), 200, "projects-builds-notifications-detail", NOTIFICATION_EXTRAS)
        self.each_mix(lambda: self.assertShape(self.get(url, self.me), 200,
                                               "projects-builds-notifications-detail", NOTIFICATION_EXTRAS))
        self.assertShape(self.get(url, self.other), 200,
                         "projects-builds-notifications-detail", NOTIFICATION_EXTRAS)
        self.each_mix(lambda: self.assertStatus(self.get(url, self.other), NOT_FOUND))

    def test_projects_builds_notifitications_detail_post(self):
        url = self.build_url("notifications/%d/" % self.build_notification)
        self.assertStatus(self.server.post(url), 401)
        self.assertStatus(self.server.post(url, token=self.me), 405)


class RedirectsTest(World):
    LIST = "/api/v3/projects/project/redirects/"

    def detail(self, pk=None):
        return "%s%d/" % (self.LIST, pk or self.redirect)

    def test_unauthed_projects_redirects_list(self):
        self.assertStatus(self.get(self.LIST), 401)

    def test_projects_redirects_list(self):
        self.assertShape(self.get(self.LIST, self.me), 200, "projects-redirects-list")

    def test_unauthed_projects_redirects_detail(self):
        self.assertStatus(self.get(self.detail()), 401)

    def test_projects_redirects_detail(self):
        r = self.get(self.detail(), self.me)
        self.assertShape(r, 200, "projects-redirects-detail")
        self.assertEqual((r.json["from_url"], r.json["to_url"], r.json["type"]),
                         ("/docs", "/documentation/", "page"))

    def test_unauthed_projects_redirects_list_post(self):
        url = "/api/v3/projects/others-project/redirects/"
        self.assertStatus(self.server.post(url, {}), 401)
        self.assertStatus(self.server.post(url, {}, token=self.me), 403)

    def test_projects_redirects_list_post(self):
        r = self.server.post(self.LIST, {"from_url": "/page/", "to_url": "/another/",
                                         "type": "page"}, token=self.me)
        self.assertShape(r, 201, "projects-redirects-list_POST")
        self.assertEqual(r.json["from_url"], "/page")
        self.assertStatus(self.server.delete(self.detail(r.json["pk"]), token=self.me), 204)

    def test_projects_redirects_type_clean_url_to_html_list_post(self):
        r = self.server.post(self.LIST, {"type": "clean_url_to_html"}, token=self.me)
        self.assertStatus(r, 201)
        self.assertEqual((r.json["from_url"], r.json["to_url"]), ("", ""))
        # test_projects_redirects_validations: only one of that type.
        again = self.server.post(self.LIST, {"type": "clean_url_to_html"}, token=self.me)
        self.assertStatus(again, 400)
        self.assertEqual(again.json,
                         ["Only one redirect of type `clean_url_to_html` is allowed per "
                          "project."])
        self.assertStatus(self.server.delete(self.detail(r.json["pk"]), token=self.me), 204)

    def test_projects_redirects_validations(self):
        for body, words in (
                ({"from_url": "/one/*.html", "to_url": "/two/", "type": "exact"},
                 ["The * wildcard must be at the end of the path."]),
                ({"from_url": "/one/", "to_url": "/two/:splat", "type": "exact"},
                 ["The * wildcard must be at the end of from_url to use the :splat "
                  "placeholder in to_url."])):
            with self.subTest(body=body):
                r = self.server.post(self.LIST, body, token=self.me)
                self.assertStatus(r, 400)
                self.assertEqual(r.json, words)
        r = self.server.post(self.LIST, {"type": "html_to_clean_url"}, token=self.me)
        self.assertStatus(r, 201)
        again = self.server.post(self.LIST, {"type": "html_to_clean_url"}, token=self.me)
        self.assertStatus(again, 400)
        self.assertEqual(again.json,
                         ["Only one redirect of type `html_to_clean_url` is allowed per "
                          "project."])
        self.assertStatus(self.server.delete(self.detail(r.json["pk"]), token=self.me), 204)

    def test_projects_redirects_detail_put(self):
        body = {"from_url": "/changed/", "to_url": "/toanother/", "type": "page"}
        r = self.server.post(self.LIST, {"from_url": "/put/", "to_url": "/x/", "type": "page"},
                             token=self.me)
        url = self.detail(r.json["pk"])
        self.assertStatus(self.server.put(url, body), 401)
        r = self.server.put(url, body, token=self.me)
        self.assertShape(r, 200, "projects-redirects-detail_PUT")
        self.assertEqual((r.json["from_url"], r.json["to_url"]), ("/changed", "/toanother/"))
        self.assertStatus(self.server.delete(url, token=self.me), 204)

    def test_projects_redirects_detail_patch(self):
        url = self.detail()
        self.assertStatus(self.server.patch(url, {"enabled": False}), 401)
        self.assertStatus(self.server.patch(url, {"enabled": False}, token=self.other), 403)
        r = self.server.patch(url, {"enabled": False}, token=self.me)
        self.assertStatus(r, 200)
        self.assertEqual((r.json["enabled"], r.json["type"], r.json["from_url"],
                          r.json["to_url"]), (False, "page", "/docs", "/documentation/"))
        self.server.patch(url, {"enabled": True}, token=self.me)

    def test_projects_redirects_position(self):
        def position(pk):
            return self.get(self.detail(pk), self.me).json["position"]
        second = self.server.post(self.LIST, {"from_url": "/one/", "to_url": "/two/",
                                              "type": "exact"}, token=self.me)
        self.assertStatus(second, 201)
        second = second.json["pk"]
        self.assertEqual((position(second), position(self.redirect)), (0, 1))
        third = self.server.post(self.LIST, {"from_url": "/two/", "to_url": "/three/",
                                             "type": "exact", "position": 2}, token=self.me)
        self.assertStatus(third, 201)
        third = third.json["pk"]
        self.assertEqual((position(second), position(self.redirect), position(third)),
                         (0, 1, 2))
        self.assertStatus(self.server.put(self.detail(), {
            "position": 2, "type": "page", "from_url": "/docs/",
            "to_url": "/documentation/"}, token=self.me), 200)
        self.assertEqual((position(second), position(third), position(self.redirect)),
                         (0, 1, 2))
        self.assertStatus(self.server.delete(self.detail(second), token=self.me), 204)
        self.assertEqual((position(third), position(self.redirect)), (0, 1))
        self.assertStatus(self.server.delete(self.detail(third), token=self.me), 204)

    def test_z_projects_redirects_detail_delete(self):
        self.assertStatus(self.server.delete(self.detail()), 401)
        self.assertStatus(self.server.delete(self.detail(), token=self.me), 204)
        self.assertEqual(self.get(self.LIST, self.me).json["count"], 0)


class EnvironmentVariablesTest(World):
    LIST = "/api/v3/projects/project/environmentvariables/"

    def detail(self, pk=None):
        return "%s%d/" % (self.LIST, pk or self.envvar)

    def test_unauthed_projects_environmentvariables_list(self):
        self.assertStatus(self.get(self.LIST), 401)

    def test_projects_environmentvariables_list(self):
        self.assertShape(self.get(self.LIST, self.me), 200,
                         "projects-environmentvariables-list")

    def test_unauthed_projects_environmentvariables_detail(self):
        self.assertStatus(self.get(self.detail()), 401)

    def test_projects_environmentvariables_detail(self):
        r = self.get(self.detail(), self.me)
        self.assertShape(r, 200, "projects-environmentvariables-detail")
        self.assertEqual((r.json["name"], r.json["public"]), ("ENVVAR", False))

    def test_unauthed_projects_environmentvariables_list_post(self):
        url = "/api/v3/projects/others-project/environmentvariables/"
        self.assertStatus(self.server.post(url, {}), 401)
        self.assertStatus(self.server.post(url, {}, token=self.me), 403)

    def test_projects_environmentvariables_list_post(self):
        r = self.server.post(self.LIST, {"name": "NEWENVVAR", "value": "c3b2a1",
                                         "public": True}, token=self.me)
        self.assertShape(r, 201, "projects-environmentvariables-list_POST")
        self.assertEqual((r.json["name"], r.json["public"]), ("NEWENVVAR", True))
        self.assertNotIn("value", r.json)
        self.assertStatus(self.server.delete(self.detail(r.json["pk"]), token=self.me), 204)

    def test_create_large_environment_variable(self):
        r = self.server.post(self.LIST, {"name": "NEWENVVAR", "value": "a" * 48001,
                                         "public": True}, token=self.me)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"value": ["Ensure this field has no more than 48000 "
                                            "characters."]})

    def test_environment_variables_total_size_per_project(self):
        self.server.import_project(self.me, "Sized")
        url = "/api/v3/projects/sized/environmentvariables/"
        size = 2000
        for i in range((256 * 1000 - size) // size):
            r = self.server.post(url, {"name": "ENVVAR%d" % i, "value": "a" * size},
                                 token=self.me)
            self.assertStatus(r, 201)
        self.assertStatus(self.server.post(url, {"name": "A", "value": "a" * (size // 2),
                                                 "public": True}, token=self.me), 201)
        r = self.server.post(url, {"name": "B", "value": "a" * size, "public": True},
                             token=self.me)
        self.assertStatus(r, 400)
        self.assertEqual(r.json, ["The total size of all environment variables in the "
                                  "project cannot exceed 256 KB."])

    def test_create_environment_variable_with_public_flag(self):
        for body, public in (({"name": "TEST_ENV_VAR", "value": "test_value",
                               "public": True}, True),
                             ({"name": "TEST_ENV_VAR2", "value": "test_value"}, False)):
            with self.subTest(body=body):
                r = self.server.post(self.LIST, body, token=self.me)
                self.assertStatus(r, 201)
                self.assertIs(r.json["public"], public)
                self.server.delete(self.detail(r.json["pk"]), token=self.me)

    def test_z_projects_environmentvariables_detail_delete(self):
        self.assertStatus(self.server.delete(self.detail()), 401)
        self.assertStatus(self.server.delete(self.detail(), token=self.me), 204)
        self.assertEqual(self.get(self.LIST, self.me).json["count"], 0)


class SubprojectsTest(World):
    LIST = "/api/v3/projects/project/subprojects/"
    DETAIL = "/api/v3/projects/project/subprojects/subproject/"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # _create_new_project, as each scenario of the service's makes it.
        cls.server.import_project(cls.me, "new-project")

    def test_projects_subprojects_list_anonymous_user(self):
        self.assertShape(self.get(self.LIST), 200, "projects-subprojects-list")
        self.private("projects", "slug = 'subproject'")
        r = self.get(self.LIST)
        self.assertShape(r, 200, "projects-list-empty")
        self.assertEqual(r.json, EMPTY_PAGE)

    def test_projects_subprojects_list(self):
        self.assertShape(self.get(self.LIST, self.me), 200, "projects-subprojects-list")
        self.private("projects", "slug = 'subproject'")
        r = self.get(self.LIST, self.me)
        self.assertShape(r, 200, "projects-subprojects-list")
        self.assertEqual(r.json["results"][0]["child"]["privacy_level"], "private")

    def test_projects_subprojects_list_other_user(self):
        self.assertShape(self.get(self.LIST, self.other), 200, "projects-subprojects-list")
        self.private("projects", "slug = 'subproject'")
        self.assertEqual(self.get(self.LIST, self.other).json, EMPTY_PAGE)

    def test_projects_subprojects_detail_anonymous_user(self):
        self.assertShape(self.get(self.DETAIL), 200, "projects-subprojects-detail")
        self.private("projects", "slug = 'subproject'")
        self.assertStatus(self.get(self.DETAIL), NOT_FOUND)

    def test_projects_subprojects_detail(self):
        self.assertShape(self.get(self.DETAIL, self.me), 200, "projects-subprojects-detail")
        self.private("projects", "slug = 'subproject'")
        r = self.get(self.DETAIL, self.me)
        self.assertShape(r, 200, "projects-subprojects-detail")
        self.assertEqual(r.json["child"]["privacy_level"], "private")

    def test_projects_subprojects_detail_other_user(self):
        self.assertShape(self.get(self.DETAIL, self.other), 200,
                         "projects-subprojects-detail")
        self.private("projects", "slug = 'subproject'")
        self.assertStatus(self.get(self.DETAIL, self.other), NOT_FOUND)

    def post(self, body, token=None):
        return self.server.post(self.LIST, body, token=token or self.me)

    def remove(self, alias):
        self.assertStatus(self.server.delete(self.LIST + alias + "/", token=self.me), 204)

    def test_projects_subprojects_list_post(self):
        body = {"child": "new-project", "alias": "subproject-alias"}
        self.assertStatus(self.server.post(self.LIST, body), 401)
        self.assertStatus(self.post(body, self.other), 403)
        r = self.post(body)
        self.assertShape(r, 201, "projects-subprojects-list_POST")
        self.assertEqual(self.get(self.LIST, self.me).json["count"], 2)
        self.remove("subproject-alias")

    def test_projects_subprojects_list_post_without_alias(self):
        for body in ({"child": "new-project"}, {"child": "new-project", "alias": None}):
            with self.subTest(body=body):
                r = self.post(body)
                self.assertStatus(r, 201)
                self.assertEqual(r.json["alias"], "new-project")
                self.remove("new-project")

    def test_projects_subprojects_list_post_with_invalid_alias(self):
        # "subproject/alias": DecidedTest.
        for alias in ("alias with spaces", "alias!with@special-char$", "alias.with.periods",
                      "alias:with;some.punctuation"):
            with self.subTest(alias=alias):
                self.assertStatus(self.post({"child": "new-project", "alias": alias}), 400)
        self.assertEqual(self.get(self.LIST, self.me).json["count"], 1)

    def test_projects_subprojects_list_post_with_others_as_child(self):
        r = self.post({"child": "others-project", "alias": "subproject-alias"})
        self.assertStatus(r, 400)

    def test_projects_subprojects_list_post_with_subproject_of_itself(self):
        r = self.server.post("/api/v3/projects/new-project/subprojects/",
                             {"child": "new-project", "alias": "subproject-alias"},
                             token=self.me)
        self.assertStatus(r, 400)
        self.assertIn("Project with slug=new-project is not valid as subproject",
                      r.json["child"][0])

    def test_projects_subprojects_list_post_with_child_already_superproject(self):
        r = self.server.post("/api/v3/projects/new-project/subprojects/",
                             {"child": "project", "alias": "subproject-alias"},
                             token=self.me)
        self.assertStatus(r, 400)
        self.assertIn("Project with slug=project is not valid as subproject",
                      r.json["child"][0])

    def test_projects_subprojects_list_post_with_child_already_subproject(self):
        r = self.server.post("/api/v3/projects/new-project/subprojects/",
                             {"child": "subproject", "alias": "subproject-alias"},
                             token=self.me)
        self.assertStatus(r, 400)
        self.assertIn("Project with slug=subproject is not valid as subproject",
                      r.json["child"][0])

    def test_projects_subprojects_list_post_nested_subproject(self):
        r = self.server.post("/api/v3/projects/subproject/subprojects/",
                             {"child": "new-project", "alias": "subproject-alias"},
                             token=self.me)
        self.assertStatus(r, 400)
        self.assertIn("Subproject nesting is not supported", r.json["non_field_errors"])

    def test_projects_subprojects_list_post_unique_alias(self):
        r = self.post({"child": "new-project", "alias": "subproject"})
        self.assertStatus(r, 400)
        self.assertIn("A subproject with this alias already exists", r.json["alias"])

    def test_projects_subprojects_list_post_with_others_as_parent(self):
        r = self.server.post("/api/v3/projects/others-project/subprojects/",
                             {"child": "project", "alias": "subproject-alias"},
                             token=self.me)
        self.assertStatus(r, 403)

    def test_projects_subprojects_detail_delete_others_project(self):
        self.server.import_project(self.other, "others-child")
        r = self.server.post("/api/v3/projects/others-project/subprojects/",
                             {"child": "others-child"}, token=self.other)
        self.assertStatus(r, 201)
        self.assertStatus(self.server.delete(
            "/api/v3/projects/others-project/subprojects/others-child/", token=self.me), 403)

    def test_z_projects_subprojects_detail_delete(self):
        self.assertStatus(self.server.delete(self.DETAIL), 401)
        self.assertStatus(self.server.delete(self.DETAIL, token=self.me), 204)
        self.assertEqual(self.get(self.LIST, self.me).json, EMPTY_PAGE)


class PrivateReposTest(World):
    """The service's scenarios with ALLOW_PRIVATE_REPOS (and
    RTD_ALLOW_ORGANIZATIONS, which the last one adds): Lectern's business
    edition, where privacy levels are fields of the import and updates."""

    SERVER_ARGS = ("--edition", "business")
    DETAIL = "/api/v3/projects/project/?expand=active_versions,permissions"

    def test_projects_list_privacy_levels_enabled(self):
        r = self.get("/api/v3/projects/", self.me)
        self.assertShape(r, 200, "projects-list", ("missing results[].users",))
        self.private("projects", "slug = 'project'")
        r = self.get("/api/v3/projects/", self.me)
        self.assertShape(r, 200, "projects-list", ("missing results[].users",))
        mine = [p for p in r.json["results"] if p["slug"] == "project"][0]
        self.assertEqual(mine["privacy_level"], "private")

    def test_own_projects_detail_privacy_levels_enabled(self):
        # No users when organizations are enabled.
        self.assertShape(self.get(self.DETAIL, self.me), 200, "projects-detail",
                         ("missing users",))
        self.private("projects", "slug = 'project'")
        r = self.get(self.DETAIL, self.me)
        self.assertShape(r, 200, "projects-detail", ("missing users",))
        self.assertEqual(r.json["privacy_level"], "private")
        self.assertEqual(r.json["active_versions"]["v1.0"]["privacy_level"], "public")

    def test_partial_update_project_privacy_levels_enabled(self):
        self.import_as(self.me, "Privacy")
        url = "/api/v3/projects/privacy/"
        r = self.server.patch(url, {"privacy_level": "private",
                                    "external_builds_privacy_level": "private"},
                              token=self.me)
        self.assertStatus(r, 204)
        p = self.get(url, self.me).json
        self.assertEqual((p["privacy_level"], p["external_builds_privacy_level"]),
                         ("private", "private"))

    def test_partial_update_project_invalid_privacy_level(self):
        r = self.server.patch("/api/v3/projects/project/",
                              {"privacy_level": "prubic",
                               "external_builds_privacy_level": "privic"}, token=self.me)
        self.assertStatus(r, 400)
        self.assertEqual(self.get("/api/v3/projects/project/", self.me).json["privacy_level"],
                         "public")

    def test_projects_versions_detail_privacy_levels_allowed(self):
        url = "/api/v3/projects/project/versions/v1.0/"
        self.assertShape(self.get(url, self.me), 200, "projects-versions-detail")
        self.private("versions", "id = ?", self.version_id)
        r = self.get(url, self.me)
        self.assertShape(r, 200, "projects-versions-detail")
        self.assertEqual(r.json["privacy_level"], "private")

    def test_projects_versions_partial_update_privacy_levels_enabled(self):
        url = "/api/v3/projects/subproject/versions/latest/"
        self.assertStatus(self.server.patch(url, {"privacy_level": "private"},
                                            token=self.me), 204)
        self.assertEqual(self.get(url, self.me).json["privacy_level"], "private")

    def test_projects_versions_partial_update_invalid_privacy_levels(self):
        url = "/api/v3/projects/project/versions/v1.0/"
        r = self.server.patch(url, {"privacy_level": "publicprivate"}, token=self.me)
        self.assertStatus(r, 400)
        self.assertEqual(self.get(url, self.me).json["privacy_level"], "public")


class DecidedTest(World):
    """Where Lectern answers the service's scenarios otherwise, on purpose
    (docs/decisions.md, "The hosted service's v3 tests"), checked as
    Lectern answers them; the service's answer in each comment."""

    def test_builds_of_a_private_project(self):
        # Service: 200 and an empty page for those who cannot see the
        # project. Lectern: the project does not exist for them.
        self.private("projects", "slug = 'project'")
        for token in (None, self.other):
            with self.subTest(token=token):
                self.assertDetail(self.get("/api/v3/projects/project/builds/", token),
                                  404, "No Project matches the given query.")

    def test_links_are_paths(self):
        # Service: absolute https://readthedocs.org/... URLs. Lectern: the
        # contract's paths (absolute URLs for environment variables, as
        # the contract says).
        r = self.get("/api/v3/projects/project/", self.me)
        self.assertEqual(r.json["_links"]["_self"], "/api/v3/projects/project/")
        r = self.get("/api/v3/projects/project/environmentvariables/%d/" % self.envvar,
                     self.me)
        self.assertTrue(r.json["_links"]["_self"].startswith("http://"), r.json)

    def test_active_versions_by_slug(self):
        # Service: a list. Lectern: the contract's object keyed by slug.
        r = self.get("/api/v3/projects/project/?expand=active_versions", self.me)
        self.assertIsInstance(r.json["active_versions"], dict)
        self.assertEqual(r.json["active_versions"]["v1.0"]["slug"], "v1.0")

    def test_build_error_is_null_when_none(self):
        # Service: "" always. Lectern: the contract's null when none.
        r = self.get("/api/v3/projects/project/builds/%d/" % self.build, self.me)
        self.assertIsNone(r.json["error"])

    def test_projects_redirects_old_type_post(self):
        # Service: 400 on "type" for prefix, sphinx_html and sphinx_htmldir.
        # Lectern: the contract's types, every spelling accepted.
        for kind in ("prefix", "sphinx_html", "sphinx_htmldir"):
            with self.subTest(kind=kind):
                r = self.server.post("/api/v3/projects/project/redirects/",
                                     {"from_url": "/redirect-this/", "type": kind},
                                     token=self.me)
                self.assertStatus(r, 201)
                self.assertEqual(r.json["type"], kind)
                self.server.delete("/api/v3/projects/project/redirects/%d/" % r.json["pk"],
                                   token=self.me)

    def test_exact_redirect_with_rest(self):
        # Service: 400 "The $rest wildcard has been removed in favor of *."
        # Lectern: the legacy $rest meaning is kept on exact redirects.
        r = self.server.post("/api/v3/projects/project/redirects/",
                             {"from_url": "/one/$rest", "to_url": "/two/", "type": "exact"},
                             token=self.me)
        self.assertStatus(r, 201)
        self.server.delete("/api/v3/projects/project/redirects/%d/" % r.json["pk"],
                           token=self.me)

    def test_slash_in_subproject_alias(self):
        # Service: 400 unless its staff turned on
        # ALLOW_SLASHES_IN_SUBPROJECT_ALIAS for the project. Lectern: every
        # project may (no such switches); the detail route takes it.
        self.server.import_project(self.me, "slashed-child")
        r = self.server.post("/api/v3/projects/project/subprojects/",
                             {"child": "slashed-child", "alias": "api/python"}, token=self.me)
        self.assertStatus(r, 201)
        url = "/api/v3/projects/project/subprojects/api/python/"
        r = self.get(url)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["alias"], "api/python")
        self.assertStatus(self.server.delete(url, token=self.me), 204)


class ConfigRefusedTest(BuildTestCase):
    """A real build of a configuration the service refuses: its build's
    notifications, as the service's v3 shows them, carry the service's
    message (test_config.py's test_new_build_config_invalid_tools_version,
    through the pipeline), while the build's error keeps Lectern's
    line-numbered words; and a repository without .readthedocs.yaml, built
    all the same, has the service's refusal in its log."""

    PYTHONS = ("2.7, 3.6, 3.7, 3.8, 3.9, 3.10, 3.11, 3.12, 3.13, 3.14, miniconda3-4.7, "
               "miniconda3-3.12-24.1, miniconda3-3.12-24.9, mambaforge-4.10, "
               "mambaforge-22.9, mambaforge-23.11, miniforge3-25.11, miniforge3-26.3, 3, "
               "latest, miniconda-latest, mambaforge-latest, miniforge3-latest")

    def notifications(self, slug, build_id):
        url = "/api/v3/projects/%s/builds/%d/notifications/" % (slug, build_id)
        deadline_tries = 200
        for _ in range(deadline_tries):
            r = self.server.get(url, token=self.token)
            if r.status == 200 and r.json["count"]:
                return r
            time.sleep(0.05)
        self.fail("no notification on build %d: %s" % (build_id, r))

    def test_a_refused_tool_version(self):
        repo = fixtures.make_repo({
            ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
                                 "    python: \"3.1O\"\nsphinx:\n  configuration: conf.py\n",
            "conf.py": "project = 'x'\n", "index.rst": "X\n=\n"})
        slug = self.import_repo("Refused", "file://" + repo)
        build = self.wait_build(slug)
        self.assertIs(build["success"], False)
        self.assertEqual(build["error"],
                         "Problem in your project's configuration. .readthedocs.yaml:5: "
                         "build.tools.python: expected one of %s, got a string ('3.1O')"
                         % self.PYTHONS)
        r = self.notifications(slug, build["id"])
        self.assertShape(r, "projects-builds-notifications-list", NOTIFICATION_EXTRAS)
        message = r.json["results"][0]["message"]
        self.assertEqual(message, {
            "id": "config:validation:invalid-choice",
            "header": "Config file validation error",
            "body": "Config validation error in <code>build.tools.python</code>.\n"
                    "Expected one of (%s), got type <code>str</code> (<code>3.1O</code>).\n"
                    "Double check the type of the value.\nA string may be required "
                    "(e.g. <code>\"3.10\"</code> instead of <code>3.10</code>)" % self.PYTHONS,
            "type": "error", "icon_classes": "fas fa-circle-xmark"})
        detail = self.server.get(urllib.parse.urlsplit(
            r.json["results"][0]["_links"]["_self"]).path, token=self.token)
        self.assertStatus(detail, 200)
        self.assertEqual(detail.json["message"]["id"], "config:validation:invalid-choice")

    def test_no_config_file_is_built_and_said_refused(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN)
        slug = self.import_repo("Unconfigured", "file://" + repo)
        build = self.wait_build(slug)
        self.assertIs(build["success"], True, build)
        notes = [out for command, out, _ in self.commands(build["id"])
                 if command == ".readthedocs.yaml"]
        self.assertEqual(len(notes), 1, self.commands(build["id"]))
        self.assertTrue(notes[0].startswith(
            "the hosted service refuses this: Config file not found at default path: The "
            "required .readthedocs.yaml configuration file was not found at repository's "
            "root."), notes[0])

    def assertShape(self, response, name, allowed=()):
        self.assertStatus(response, 200)
        got = differences(fixture(name), structure(response.json))
        self.assertEqual([d for d in got if d not in allowed], [], name)


if __name__ == "__main__":
    main()
