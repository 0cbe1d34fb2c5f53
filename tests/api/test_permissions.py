"""The permission matrix: every API route that reaches a project's data,
asked by each kind of requester about a public and a private project.

One visibility rule holds everywhere: whoever cannot see a project (a
private one, for anyone but its admins and the members of teams that hold
it) gets, on every route under it, exactly the answer a project that does
not exist gets -- same status, same body -- and no body carries the private
project's name, repository credentials, page text, redirects or variables.
Nested routes whose parent project, version or organization does not exist
are 404 with the service's body, never an empty page; and no v2 or v3 body
shows a repository URL's credentials.

The business edition gives every kind of requester: anonymous, another
user, a member of a read-only team holding the projects, a maintainer, and
the organization's owner. Privacy, maintainers and the built pages searched
and embedded are set in the data directory, as no API call sets them."""
from lectern_test import ServerTestCase, Store, main

NO_PROJECT = "No Project matches the given query."
NO_VERSION = "No Version matches the given query."
NO_ORG = "No Organization matches the given query."

PUBLIC, PRIVATE, MISSING = "open-manual", "hidden-manual", "no-such-project"
# Credentials in the repository URLs: no body may ever show them.
PUBLIC_REPO = "https://bob:hunter2pw@github.com/acme/open-manual.git"
PRIVATE_REPO = "https://alice:s3cretpw@github.com/acme/hidden-manual.git"
CREDENTIALS = (b"hunter2pw", b"s3cretpw", b"bob:", b"alice:")
# What only the private project's own data holds: its name, page text,
# redirect, variable, and its subproject's alias.
PRIVATE_MARKERS = (b"Hidden Manual", b"quokkaphrase", b"/hidden-from",
                   b"HIDDEN_VAR", b"hidden-kid")
# An id no row has, for the v2 routes of the missing project.
NO_ID = 999999

ROLES = ("anonymous", "other", "member", "maintainer", "owner")
VIEWERS = {PUBLIC: set(ROLES), PRIVATE: {"member", "maintainer", "owner"}}
ADMINS = {"maintainer", "owner"}

# How a route answers (the `kind` of each ROUTES row):
#   read   - anyone who sees the project gets `ok`; others the missing
#            project's answer.
#   admin  - anonymous 401; those who cannot see the project the missing
#            project's answer; those who see it without administering
#            it 403; admins `ok`.
#   v2     - v2 shows public data only: `ok` for everyone on the public
#            project, the missing project's answer for everyone on the
#            private one, its owner included.
#   open   - a filtered list or search: 200 for everyone, filtered.
#   denied - the read-only permission of a project's unmapped methods:
#            anonymous 401, anyone else 403, whether the project exists or
#            not.
ROUTES = [
    # (kind, method, path, body, ok statuses)
    ("read", "GET", "/api/v3/projects/{p}/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/superproject/", None, {404}),
    ("read", "GET", "/api/v3/projects/{p}/versions/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/versions/v1/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/versions/latest/builds/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/versions/latest/builds/{b}/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/builds/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/builds/{b}/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/subprojects/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/subprojects/{a}/", None, {200}),
    ("read", "GET", "/api/v3/projects/{p}/translations/", None, {200}),
    ("read", "GET", "/api/v2/search/?q=zebraword&project={p}&version=latest", None, {200}),
    ("read", "GET", "/_/api/v2/search/?q=zebraword&project={p}&version=latest", None, {200}),
    ("read", "GET", "/api/v3/embed/?url={url}", None, {200}),
    ("read", "GET", "/api/v2/embed/?url={url}", None, {200}),
    ("admin", "GET", "/api/v3/projects/{p}/redirects/", None, {200}),
    ("admin", "GET", "/api/v3/projects/{p}/redirects/{r}/", None, {200}),
    ("admin", "GET", "/api/v3/projects/{p}/environmentvariables/", None, {200}),
    ("admin", "GET", "/api/v3/projects/{p}/environmentvariables/{e}/", None, {200}),
    ("admin", "PATCH", "/api/v3/projects/{p}/", {}, {204}),
    ("admin", "PUT", "/api/v3/projects/{p}/", {}, {204, 400}),
    ("admin", "POST", "/api/v3/projects/{p}/sync-versions/", None, {202}),
    ("admin", "PATCH", "/api/v3/projects/{p}/versions/v1/", {}, {204}),
    ("admin", "POST", "/api/v3/projects/{p}/versions/v1/builds/", None, {202}),
    ("admin", "POST", "/api/v3/projects/{p}/builds/{b}/cancel/", None, {202, 400}),
    ("admin", "POST", "/api/v3/projects/{p}/subprojects/", {}, {400}),
    ("admin", "DELETE", "/api/v3/projects/{p}/subprojects/not-an-alias/", None, {404}),
    ("admin", "POST", "/api/v3/projects/{p}/redirects/", {}, {400}),
    ("admin", "PUT", "/api/v3/projects/{p}/redirects/{r}/", {}, {400}),
    ("admin", "PATCH", "/api/v3/projects/{p}/redirects/{r}/", {}, {200}),
    ("admin", "DELETE", "/api/v3/projects/{p}/redirects/%d/" % NO_ID, None, {404}),
    ("admin", "POST", "/api/v3/projects/{p}/environmentvariables/", {}, {400}),
    ("admin", "DELETE", "/api/v3/projects/{p}/environmentvariables/%d/" % NO_ID, None, {404}),
    ("v2", "GET", "/api/v2/project/{pid}/", None, {200}),
    ("v2", "GET", "/api/v2/project/{pid}/active_versions/", None, {200}),
    ("v2", "GET", "/api/v2/version/{vid}/", None, {200}),
    ("v2", "GET", "/api/v2/build/{b}/", None, {200}),
    ("v2", "GET", "/api/v2/build/{b}.txt", None, {200}),
    ("open", "GET", "/api/v2/project/?slug={p}", None, {200}),
    ("open", "GET", "/api/v2/version/?project__slug={p}", None, {200}),
    ("open", "GET", "/api/v2/build/?project__slug={p}", None, {200}),
    ("open", "GET", "/api/v3/search/?q=project:{p}+zebraword", None, {200}),
    ("open", "GET", "/api/v3/search/?q=subprojects:{p}+zebraword", None, {200}),
    ("open", "GET", "/_/api/v3/search/?q=project:{p}/latest+zebraword", None, {200}),
    # Safe methods pass the read-only permission, then find no handler.
    ("open", "GET", "/api/v3/projects/{p}/sync-versions/", None, {405}),
    # A project's unmapped POST; its DELETE is Lectern's, for admins
    # (test_project_delete_for_admins_only).
    ("denied", "POST", "/api/v3/projects/{p}/", {}, {403}),
    ("denied", "POST", "/api/v3/projects/{p}/superproject/", {}, {403}),
]


class PermissionMatrixTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.tokens = {"anonymous": None}
        for role in ROLES[1:]:
            cls.tokens[role] = s.token(role)
        s.lectern("org", "create", "acme", "--owner", "owner")
        s.lectern("org", "create", "elsewhere", "--owner", "other")
        s.lectern("org", "team", "create", "acme", "Readers", "--access", "readonly")
        s.lectern("org", "team", "add", "acme", "readers", "member")
        owner = cls.tokens["owner"]
        cls.ids = {}
        for slug, name, repo, kid in ((PUBLIC, "Open Manual", PUBLIC_REPO, "open-kid"),
                                      (PRIVATE, "Hidden Manual", PRIVATE_REPO, "hidden-kid")):
            cls.import_as(name, repo)
            cls.import_as(kid, "https://github.com/acme/%s.git" % kid)
            s.lectern("org", "team", "project", "add", "acme", "readers", slug)
            cls.ids[slug] = cls.plant(slug, kid)
        store = Store(s)
        store.execute("UPDATE projects SET privacy_level = 'private' WHERE slug = ?",
                      (PRIVATE,))
        store.execute("INSERT INTO project_users (project_id, user_id) SELECT p.id, u.id"
                      " FROM projects p, users u WHERE u.username = 'maintainer'"
                      " AND p.slug IN (?, ?)", (PUBLIC, PRIVATE))
        cls.ids[MISSING] = {"pid": NO_ID, "vid": NO_ID, "b": NO_ID, "r": NO_ID,
                            "e": NO_ID, "a": "hidden-kid"}

    @classmethod
    def import_as(cls, name, repo):
        body = {"name": name, "organization": "acme", "repository": {"url": repo}}
        r = cls.server.post("/api/v3/projects/", body, token=cls.tokens["owner"])
        if r.status != 201:
            raise AssertionError("import %s: %r" % (name, r))

    @classmethod
    def plant(cls, slug, kid):
        """Give the project a built version v1 and a built, indexed latest
        page, a subproject, a redirect and a variable; return the ids the
        routes name."""
        s, store, owner = cls.server, Store(cls.server), cls.tokens["owner"]
        store.version(slug, "v1")
        store.version(slug, "latest")
        page = ("<html><head><title>Guide</title></head><body><div role=\"main\">"
                "<section id=\"intro\"><h1>Intro</h1><p>zebraword quokkaphrase"
                "</p></section></div></body></html>")
        store.publish(slug, "latest", {"index.html": page})
        s.lectern("reindex", slug, "latest")
        alias = kid
        for path, body in (("subprojects/", {"child": kid, "alias": alias}),
                           ("redirects/", {"type": "page", "from_url": "/%s-from/" % slug.split("-")[0],
                                           "to_url": "/to/"}),
                           ("environmentvariables/", {"name": "%s_VAR" % slug.split("-")[0].upper(),
                                                      "value": "v"})):
            r = s.post("/api/v3/projects/%s/%s" % (slug, path), body, token=owner)
            if r.status != 201:
                raise AssertionError("%s %s: %r" % (slug, path, r))
        row = store.rows
        pid = row("SELECT id FROM projects WHERE slug = ?", (slug,))[0][0]
        return {
            "pid": pid,
            "vid": row("SELECT id FROM versions WHERE project_id = ? AND slug = 'v1'", (pid,))[0][0],
            "b": row("SELECT id FROM builds WHERE project_id = ?", (pid,))[0][0],
            "r": row("SELECT id FROM redirects WHERE project_id = ?", (pid,))[0][0],
            "e": row("SELECT id FROM env_vars WHERE project_id = ?", (pid,))[0][0],
            "a": alias,
        }

    def url_of(self, slug):
        return "http://%s.localhost:%d/en/latest/index.html%%23intro" % (slug, self.server.port)

    def ask(self, method, path, body, slug, role):
        values = dict(self.ids[slug], p=slug, url=self.url_of(slug))
        return self.server.request(method, path.format(**values), body=body,
                                   token=self.tokens[role])

    def normalized(self, response, slug):
        """Status and body with what names the project asked about taken
        out, so a private project's answer compares with a missing one's."""
        return (response.status, response.header("Content-Type"),
                response.body.replace(slug.encode(), b"{p}"))

    def expected(self, kind, slug, role, ok):
        """The statuses the matrix allows; None: the missing project's
        answer."""
        sees = role in VIEWERS[slug]
        if kind == "read":
            return ok if sees else None
        if kind == "admin":
            if role == "anonymous":
                return {401}
            if not sees:
                return None
            return ok if role in ADMINS else {403}
        if kind == "v2":
            return ok if slug == PUBLIC else None
        if kind == "denied":
            return {401} if role == "anonymous" else ok
        return ok

    def test_matrix(self):
        for kind, method, path, body, ok in ROUTES:
            for slug in (PUBLIC, PRIVATE):
                for role in ROLES:
                    with self.subTest(route="%s %s" % (method, path), project=slug, role=role):
                        r = self.ask(method, path, body, slug, role)
                        want = self.expected(kind, slug, role, ok)
                        if want is None:
                            gone = self.ask(method, path, body, MISSING, role)
                            self.assertIn(gone.status, (401, 404), gone)
                            self.assertEqual(self.normalized(r, slug),
                                             self.normalized(gone, MISSING))
                        else:
                            self.assertIn(r.status, want, r)
                        if role not in VIEWERS[slug]:
                            for marker in PRIVATE_MARKERS:
                                self.assertNotIn(marker, r.body)
                        for secret in CREDENTIALS:
                            self.assertNotIn(secret, r.body)

    def test_project_delete_for_admins_only(self):
        # Lectern's DELETE of a project: anonymous 401, those who cannot
        # see it the missing project's answer, viewers who do not
        # administer it 403 -- and the project stays. An admin removes a
        # project of its own (not the matrix's).
        path = "/api/v3/projects/%s/"
        for slug in (PUBLIC, PRIVATE):
            for role in ("anonymous", "other", "member"):
                with self.subTest(project=slug, role=role):
                    r = self.server.delete(path % slug, token=self.tokens[role])
                    if role == "anonymous":
                        self.assertStatus(r, 401)
                    elif role not in VIEWERS[slug]:
                        gone = self.server.delete(path % MISSING, token=self.tokens[role])
                        self.assertEqual(self.normalized(r, slug), self.normalized(gone, MISSING))
                    else:
                        self.assertStatus(r, 403)
                    self.assertStatus(self.server.get(path % slug, token=self.tokens["owner"]), 200)
        self.import_as("Throwaway Manual", "https://github.com/acme/throwaway.git")
        r = self.server.delete(path % "throwaway-manual", token=self.tokens["member"])
        self.assertStatus(r, 403)
        r = self.server.delete(path % "throwaway-manual", token=self.tokens["owner"])
        self.assertStatus(r, 204)
        self.assertDetail(self.server.get(path % "throwaway-manual", token=self.tokens["owner"]),
                          404, NO_PROJECT)

    def test_project_itself_matches_missing(self):
        # The reference the matrix compares with: the private project's own
        # detail is the missing project's 404.
        for role in ("anonymous", "other"):
            for slug in (PRIVATE, MISSING):
                r = self.server.get("/api/v3/projects/%s/" % slug, token=self.tokens[role])
                self.assertDetail(r, 404, NO_PROJECT)

    def test_viewers_see_private_data(self):
        # What the matrix hides from others does reach those who may see it.
        r = self.server.get("/api/v3/projects/%s/versions/" % PRIVATE, token=self.tokens["member"])
        self.assertEqual(r.status, 200)
        self.assertIn("v1", [v["slug"] for v in r.json["results"]])
        r = self.server.get("/api/v3/search/?q=project:%s+zebraword" % PRIVATE,
                            token=self.tokens["member"])
        self.assertIn(b"quokkaphrase", r.body)
        r = self.server.get("/api/v3/projects/%s/redirects/" % PRIVATE,
                            token=self.tokens["maintainer"])
        self.assertIn(b"/hidden-from", r.body)

    def test_public_child_keeps_its_private_parent_unnamed(self):
        # hidden-kid is public; its parent's name shows only to those who
        # may see the parent.
        for role in ROLES:
            with self.subTest(role=role):
                r = self.server.get("/api/v3/projects/hidden-kid/", token=self.tokens[role])
                self.assertStatus(r, 200)
                parent = r.json["subproject_of"]
                up = self.server.get("/api/v3/projects/hidden-kid/superproject/",
                                     token=self.tokens[role])
                if role in VIEWERS[PRIVATE]:
                    self.assertEqual(parent["slug"], PRIVATE)
                    self.assertEqual((up.status, up.json["slug"]), (200, PRIVATE))
                else:
                    self.assertIsNone(parent)
                    # The service's empty 404 of a project with no parent.
                    self.assertEqual((up.status, up.body), (404, b""))

    def test_docs_of_a_private_project(self):
        for role in ROLES:
            with self.subTest(role=role):
                host = "%s.localhost:%d" % (PRIVATE, self.server.port)
                r = self.server.get("/en/latest/index.html", host=host, token=self.tokens[role])
                if role in VIEWERS[PRIVATE]:
                    self.assertEqual(r.status, 200, r)
                    continue
                gone = self.server.get("/en/latest/index.html", token=self.tokens[role],
                                       host="%s.localhost:%d" % (MISSING, self.server.port))
                self.assertEqual(self.normalized(r, PRIVATE), self.normalized(gone, MISSING))
                for marker in PRIVATE_MARKERS:
                    self.assertNotIn(marker, r.body)


    def test_v2_redacts_the_repository(self):
        ids = self.ids[PUBLIC]
        r = self.server.get("/api/v2/project/%d/" % ids["pid"])
        self.assertEqual(r.json["repo"], "https://github.com/acme/open-manual.git")
        r = self.server.get("/api/v2/project/?slug=%s" % PUBLIC)
        self.assertEqual(r.json["results"][0]["repo"], "https://github.com/acme/open-manual.git")
        r = self.server.get("/api/v2/version/%d/" % ids["vid"])
        self.assertEqual(r.json["project"]["repo"], "https://github.com/acme/open-manual.git")
        r = self.server.get("/api/v2/version/?project__slug=%s" % PUBLIC)
        self.assertEqual(r.json["results"][0]["project"]["repo"],
                         "https://github.com/acme/open-manual.git")

    def test_v3_redacts_the_repository(self):
        # The matrix checks every body; here the URLs made from the
        # repository's are checked to be right, not just clean.
        r = self.server.get("/api/v3/projects/%s/?expand=active_versions" % PUBLIC,
                            token=self.tokens["owner"])
        self.assertEqual(r.json["repository"]["url"], "https://github.com/acme/open-manual.git")
        self.assertEqual(r.json["active_versions"]["v1"]["urls"]["vcs"],
                         "https://github.com/acme/open-manual/tree/v1/")
        r = self.server.get("/api/v2/build/%d/" % self.ids[PUBLIC]["b"])
        self.assertNotIn(b"hunter2pw", r.body)


class MissingParentsTest(ServerTestCase):
    """Nested routes of a parent that does not exist are 404 with the
    service's body, lists included (the service's nested views look their
    parent up with get_object_or_404 first)."""

    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.owner = s.token("owner")
        cls.outsider = s.token("outsider")
        s.lectern("org", "create", "acme", "--owner", "owner")
        r = s.post("/api/v3/projects/", {"name": "real", "organization": "acme",
                                         "repository": {"url": "https://github.com/acme/real"}},
                   token=cls.owner)
        assert r.status == 201, r

    def test_missing_project(self):
        paths = ["versions/", "versions/latest/", "versions/latest/builds/",
                 "versions/latest/builds/1/", "builds/", "builds/1/", "subprojects/",
                 "subprojects/x/", "translations/", "redirects/", "redirects/1/",
                 "environmentvariables/", "environmentvariables/1/", "superproject/"]
        for path in paths:
            for token in (None, self.owner):
                if token is None and path.startswith(("redirects", "environment")):
                    continue
                with self.subTest(path=path, token=token):
                    r = self.server.get("/api/v3/projects/nope/" + path, token=token)
                    self.assertDetail(r, 404, NO_PROJECT)
        for method, path in (("POST", "versions/latest/builds/"), ("POST", "builds/1/cancel/"),
                             ("PATCH", "versions/latest/"), ("POST", "redirects/"),
                             ("POST", "subprojects/"), ("POST", "sync-versions/")):
            with self.subTest(method=method, path=path):
                r = self.server.request(method, "/api/v3/projects/nope/" + path, body={},
                                        token=self.owner)
                self.assertDetail(r, 404, NO_PROJECT)

    def test_missing_version(self):
        for path in ("versions/nope/", "versions/nope/builds/", "versions/nope/builds/1/"):
            for token in (None, self.owner):
                with self.subTest(path=path, token=token):
                    r = self.server.get("/api/v3/projects/real/" + path, token=token)
                    self.assertDetail(r, 404, NO_VERSION)
        for method in ("PATCH", "POST"):
            path = "versions/nope/" if method == "PATCH" else "versions/nope/builds/"
            r = self.server.request(method, "/api/v3/projects/real/" + path, body={},
                                    token=self.owner)
            self.assertDetail(r, 404, NO_VERSION)

    def test_missing_or_foreign_organization(self):
        for slug, token in (("nope", self.owner), ("nope", self.outsider),
                            ("acme", self.outsider)):
            for path in ("", "projects/"):
                with self.subTest(slug=slug, path=path):
                    r = self.server.get("/api/v3/organizations/%s/%s" % (slug, path),
                                        token=token)
                    self.assertDetail(r, 404, NO_ORG)


if __name__ == "__main__":
    main()
