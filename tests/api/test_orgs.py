"""v3 organizations (business edition, contract §4.9, behaviour notes §1.5):
the user's organizations, one organization, and its projects, with exact
bodies, sorted keys, absolute _links, pagination (§1.2) and the permission
matrix. Organizations, owners, teams and their projects are set up with the
engine-direct `lectern org` commands; projects are imported over the API.
A community server does not route these paths at all."""
import os
import re
import sqlite3

from lectern_test import ServerTestCase, main

USEC_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")

ORG_KEYS = ["_links", "created", "description", "disabled", "email",
            "modified", "name", "owners", "slug", "url"]

# The Project keys of the business edition: no "users" (notes §1.5).
PROJECT_KEYS = [
    "_links", "created", "default_branch", "default_version",
    "external_builds_privacy_level", "homepage", "id", "language", "modified",
    "name", "privacy_level", "programming_language", "readthedocs_yaml_path",
    "repository", "single_version", "slug", "subproject_of", "tags",
    "translation_of", "urls", "versioning_scheme",
]

NO_ORG = "No Organization matches the given query."
FORBIDDEN = "You do not have permission to perform this action."
NO_CREDENTIALS = "Authentication credentials were not provided."


class OrganizationsTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        # owen owns acme (olga too) and two more organizations; tess and
        # ada are in the admin team "Writers" holding alpha, rita and tess
        # in the readonly team "Readers" holding gamma, nell in the admin
        # team "Empty" holding nothing. mia maintains every project but is
        # in no team; zed has nothing to do with acme.
        cls.tokens = {u: s.token(u) for u in
                      ("owen", "olga", "tess", "ada", "rita", "nell", "mia",
                       "zed", "lou")}
        s.lectern("org", "create", "acme", "--owner", "owen", "--name",
                  "Acme Corp", "--email", "docs@acme.test")
        s.lectern("org", "create", "zz-first", "--owner", "owen", "--name",
                  "Aardvark")
        s.lectern("org", "create", "aa-last", "--owner", "owen", "--name",
                  "Zebra")
        s.lectern("org", "owner", "add", "acme", "olga")
        for team, access in (("Writers", "admin"), ("Readers", "readonly"),
                             ("Empty", "admin"), ("Late", "admin")):
            s.lectern("org", "team", "create", "acme", team, "--access",
                      access)
        for team, user in (("writers", "tess"), ("writers", "ada"),
                           ("readers", "rita"), ("readers", "tess"),
                           ("empty", "nell"), ("late", "lou")):
            s.lectern("org", "team", "add", "acme", team, user)
        # A business-edition import names the organization (and teams).
        for name in ("gamma", "alpha", "beta"):
            cls.import_as(cls.tokens["owen"], name, "acme")
        cls.import_as(cls.tokens["owen"], "solo", "zz-first")
        s.lectern("org", "team", "project", "add", "acme", "writers", "alpha")
        s.lectern("org", "team", "project", "add", "acme", "readers", "gamma")
        # No API call makes a project private or adds a maintainer: set
        # both in the store.
        db = sqlite3.connect(os.path.join(s.data, "lectern.db"), timeout=30)
        with db:
            db.execute("UPDATE projects SET privacy_level = 'private' "
                       "WHERE slug = 'gamma'")
            db.execute("INSERT INTO project_users (project_id, user_id) "
                       "SELECT p.id, u.id FROM projects p, users u "
                       "WHERE u.username = 'mia'")
        db.close()

    @classmethod
    def import_as(cls, token, name, organization, teams=None):
        body = {"name": name, "organization": organization, "repository": {
            "url": "https://github.com/example/%s.git" % name, "type": "git"}}
        if teams is not None:
            body["teams"] = teams
        r = cls.server.post("/api/v3/projects/", body, token=token)
        if r.status != 201:
            raise AssertionError("import %s: %r" % (name, r))

    def get(self, path, user=None, **kw):
        token = self.tokens[user] if user else None
        return self.server.get(path, token=token, **kw)

    def org_links(self, slug, origin=None):
        base = (origin or self.server.base) + \
            "/api/v3/organizations/%s/" % slug
        return {"_self": base, "notifications": base + "notifications/",
                "projects": base + "projects/"}

    def assertOrg(self, obj, slug, name, owners, email=""):
        self.assertEqual(list(obj), ORG_KEYS)
        self.assertRegex(obj["created"], USEC_Z)
        self.assertRegex(obj["modified"], USEC_Z)
        self.assertEqual(obj, {
            "_links": self.org_links(slug),
            "created": obj["created"],
            "description": "",
            "disabled": False,
            "email": email,
            "modified": obj["modified"],
            "name": name,
            "owners": [{"username": u} for u in owners],
            "slug": slug,
            "url": "",
        })

    # GET /api/v3/organizations/ -------------------------------------------

    def test_list_ordered_by_name(self):
        r = self.get("/api/v3/organizations/", "owen")
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(list(body), ["count", "next", "previous", "results"])
        self.assertEqual(body["count"], 3)
        self.assertIsNone(body["next"])
        self.assertIsNone(body["previous"])
        # By name, not by slug.
        self.assertEqual([o["slug"] for o in body["results"]],
                         ["zz-first", "acme", "aa-last"])
        self.assertOrg(body["results"][0], "zz-first", "Aardvark", ["owen"])
        self.assertOrg(body["results"][1], "acme", "Acme Corp",
                       ["olga", "owen"], email="docs@acme.test")
        self.assertOrg(body["results"][2], "aa-last", "Zebra", ["owen"])
        # The list holds the same objects as the detail endpoint.
        for obj in body["results"]:
            detail = self.get("/api/v3/organizations/%s/" % obj["slug"], "owen")
            self.assertEqual(detail.json, obj)

    def test_list_pagination(self):
        base = "http://docs.example.test/api/v3/organizations/"
        r = self.get("/api/v3/organizations/?limit=1&offset=1", "owen",
                     host="docs.example.test")
        self.assertStatus(r, 200)
        body = r.json
        self.assertEqual(body["count"], 3)
        self.assertEqual(body["next"], base + "?limit=1&offset=2")
        self.assertEqual(body["previous"], base + "?limit=1")
        self.assertEqual([o["slug"] for o in body["results"]], ["acme"])
        # _links follow the request's Host too (issue 16: URLs survive a
        # tunnel or a proxy).
        self.assertEqual(body["results"][0]["_links"],
                         self.org_links("acme", "http://docs.example.test"))
        r = self.get("/api/v3/organizations/?limit=2&offset=2", "owen",
                     host="docs.example.test")
        self.assertEqual(r.json["next"], None)
        self.assertEqual(r.json["previous"], base + "?limit=2")
        self.assertEqual([o["slug"] for o in r.json["results"]], ["aa-last"])
        r = self.get("/api/v3/organizations/?offset=10", "owen")
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(r.json["results"], [])

    def test_list_for_team_members_and_outsiders(self):
        # Team membership is enough, whatever the access level.
        for user in ("tess", "ada", "rita", "nell", "olga"):
            r = self.get("/api/v3/organizations/", user)
            self.assertStatus(r, 200)
            self.assertEqual([o["slug"] for o in r.json["results"]], ["acme"],
                             user)
        # Maintaining a project of the organization is not.
        for user in ("mia", "zed"):
            r = self.get("/api/v3/organizations/", user)
            self.assertStatus(r, 200)
            self.assertEqual(r.json, {"count": 0, "next": None,
                                      "previous": None, "results": []})

    # GET /api/v3/organizations/<slug>/ -------------------------------------

    def test_detail(self):
        r = self.get("/api/v3/organizations/acme/", "tess")
        self.assertStatus(r, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertSortedKeys(r.body)
        self.assertOrg(r.json, "acme", "Acme Corp", ["olga", "owen"],
                       email="docs@acme.test")
        self.assertEqual(r.json["created"], r.json["modified"])

    def test_detail_ignores_fields_and_omit(self):
        # Organizations use a plain serializer (notes §1.3).
        full = self.get("/api/v3/organizations/acme/", "owen").json
        for query in ("?fields=slug", "?omit=owners", "?expand=owners"):
            r = self.get("/api/v3/organizations/acme/" + query, "owen")
            self.assertStatus(r, 200)
            self.assertEqual(r.json, full, query)

    def test_detail_visibility(self):
        for user in ("owen", "olga", "tess", "ada", "rita", "nell"):
            self.assertStatus(self.get("/api/v3/organizations/acme/", user),
                              200)
        for user in ("mia", "zed"):
            self.assertDetail(self.get("/api/v3/organizations/acme/", user),
                              404, NO_ORG)
        self.assertDetail(self.get("/api/v3/organizations/nope/", "owen"),
                          404, NO_ORG)
        # Another owner's organization is as unknown as a missing one.
        self.assertDetail(self.get("/api/v3/organizations/zz-first/", "tess"),
                          404, NO_ORG)

    # GET /api/v3/organizations/<slug>/projects/ ----------------------------

    def test_projects_exact_objects(self):
        r = self.get("/api/v3/organizations/acme/projects/", "owen")
        self.assertStatus(r, 200)
        self.assertSortedKeys(r.body)
        body = r.json
        self.assertEqual(body["count"], 3)
        self.assertIsNone(body["next"])
        self.assertIsNone(body["previous"])
        # Ordered by slug; the project outside the organization is absent.
        self.assertEqual([p["slug"] for p in body["results"]],
                         ["alpha", "beta", "gamma"])
        for p in body["results"]:
            self.assertEqual(sorted(p), PROJECT_KEYS)
            # The same Project object as the detail endpoint shows its
            # maintainer.
            detail = self.get("/api/v3/projects/%s/" % p["slug"], "mia")
            self.assertEqual(p, detail.json)
        alpha = body["results"][0]
        self.assertEqual(alpha["_links"]["environmentvariables"],
                         "/api/v3/projects/alpha/environmentvariables/")
        self.assertEqual(alpha["urls"]["builds"],
                         self.server.base + "/projects/alpha/builds/")
        self.assertEqual(alpha["urls"]["versions"],
                         self.server.base + "/projects/alpha/versions/")
        self.assertEqual(body["results"][2]["privacy_level"], "private")

    def test_projects_pagination(self):
        path = "/api/v3/organizations/acme/projects/"
        url = self.server.base + path
        r = self.get(path + "?limit=2", "owen")
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(r.json["next"], url + "?limit=2&offset=2")
        self.assertIsNone(r.json["previous"])
        self.assertEqual([p["slug"] for p in r.json["results"]],
                         ["alpha", "beta"])
        r = self.get(path + "?limit=2&offset=2", "owen")
        self.assertIsNone(r.json["next"])
        self.assertEqual(r.json["previous"], url + "?limit=2")
        self.assertEqual([p["slug"] for p in r.json["results"]], ["gamma"])
        r = self.get(path + "?offset=5", "owen")
        self.assertEqual(r.json["count"], 3)
        self.assertEqual(r.json["results"], [])

    def test_projects_fields_omit_no_expand(self):
        path = "/api/v3/organizations/acme/projects/"
        r = self.get(path + "?fields=slug,name&limit=1", "owen")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["results"], [{"name": "alpha", "slug": "alpha"}])
        r = self.get(path + "?omit=_links,urls&limit=1", "owen")
        self.assertEqual(sorted(r.json["results"][0]),
                         [k for k in PROJECT_KEYS if k not in ("_links", "urls")])
        # permit_list_expands is empty: expansions are ignored.
        r = self.get(path + "?expand=active_versions,permissions,organization",
                     "owen")
        self.assertStatus(r, 200)
        for p in r.json["results"]:
            self.assertEqual(sorted(p), PROJECT_KEYS)

    def test_projects_permission_matrix(self):
        path = "/api/v3/organizations/acme/projects/"
        seen = {}
        for user in ("owen", "olga", "tess", "ada", "mia"):
            r = self.get(path, user)
            self.assertStatus(r, 200)
            seen[user] = [p["slug"] for p in r.json["results"]]
        # Owners see everything; admins of some project see the public ones
        # and the private ones they maintain or read through a team.
        self.assertEqual(seen, {
            "owen": ["alpha", "beta", "gamma"],
            "olga": ["alpha", "beta", "gamma"],
            "tess": ["alpha", "beta", "gamma"],
            "ada": ["alpha", "beta"],
            "mia": ["alpha", "beta", "gamma"],
        })
        # Readonly teams and admin teams without projects are refused; an
        # outsider gets the 404 of an organization that does not exist.
        for user in ("rita", "nell"):
            self.assertDetail(self.get(path, user), 403, FORBIDDEN)
        self.assertDetail(self.get(path, "zed"), 404, NO_ORG)
        self.assertDetail(self.get("/api/v3/organizations/nope/projects/",
                                   "owen"), 404, NO_ORG)
        self.assertDetail(self.get("/api/v3/organizations/nope/projects/",
                                   "zed"), 404, NO_ORG)

    def test_team_project_grants_project_list(self):
        path = "/api/v3/organizations/acme/projects/"
        self.assertDetail(self.get(path, "lou"), 403, FORBIDDEN)
        self.server.lectern("org", "team", "project", "add", "acme", "late",
                            "beta")
        r = self.get(path, "lou")
        self.assertStatus(r, 200)
        self.assertEqual([p["slug"] for p in r.json["results"]],
                         ["alpha", "beta"])

    # Authentication ----------------------------------------------------------

    def test_authentication_required(self):
        for path in ("/api/v3/organizations/", "/api/v3/organizations/acme/",
                     "/api/v3/organizations/acme/projects/",
                     "/api/v3/organizations/nope/"):
            r = self.server.get(path)
            self.assertDetail(r, 401, NO_CREDENTIALS)
            self.assertEqual(r.header("WWW-Authenticate"), "Token")
            r = self.server.get(path, token="0" * 40)
            self.assertDetail(r, 401, "Invalid token.")
            self.assertEqual(r.header("WWW-Authenticate"), "Token")

    def test_trailing_slash_redirect(self):
        r = self.get("/api/v3/organizations/acme", "owen")
        self.assertStatus(r, 301)
        self.assertEqual(r.header("Location"), "/api/v3/organizations/acme/")


class CommunityOrganizationsTest(ServerTestCase):
    """The community edition has no organization routes (notes §1.5)."""

    def test_not_routed(self):
        token = self.server.token("owen")
        self.server.lectern("org", "create", "acme", "--owner", "owen")
        for path in ("/api/v3/organizations/", "/api/v3/organizations/acme/",
                     "/api/v3/organizations/acme/projects/"):
            self.assertDetail(self.server.get(path, token=token), 404,
                              "Not found.")
            self.assertDetail(self.server.get(path), 404, "Not found.")


if __name__ == "__main__":
    main()
