"""A private project's existence does not leak (issue 27, item 12): to
someone who cannot see it, its docs host, a private subproject's or
translation's path below a public project, and the incoming webhook routes
answer exactly what they answer for a project that does not exist. Its
members still get redirected and served, and the docs login answers on
every docs host alike. Each check failed on the main before this (a 302
naming the default version, a redirect naming the parent and alias,
"No Integration" instead of "Project not found")."""
import hashlib
import hmac
import json

from lectern_test import ServerTestCase, Store, main


def sign(secret, body):
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class PrivateExistenceTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.owner = cls.server.token("owner")
        cls.stranger = cls.server.token("stranger")
        for name in ("Hidden", "Open", "Hidden Child", "Hidden Es"):
            cls.server.import_project(cls.owner, name)
        for slug in ("hidden", "open", "hidden-child", "hidden-es"):
            cls.store.version(slug, "latest", active=1)
            cls.store.publish(slug, "latest", {"index.html": "<h1>%s</h1>" % slug})
        cls.store.execute("UPDATE projects SET privacy_level = 'private' WHERE slug IN "
                          "('hidden', 'hidden-child', 'hidden-es')")
        cls.store.execute("INSERT INTO subprojects (parent_id, child_id, alias, created) VALUES"
                          " ((SELECT id FROM projects WHERE slug = 'open'),"
                          " (SELECT id FROM projects WHERE slug = 'hidden-child'), 'kid', 0)")
        cls.store.execute("UPDATE projects SET language = 'es', main_language_project_id ="
                          " (SELECT id FROM projects WHERE slug = 'open') WHERE slug = 'hidden-es'")
        r = cls.server.post("/api/v3/projects/hidden/integrations/",
                            {"integration_type": "github_webhook"}, token=cls.owner)
        assert r.status == 201, r
        cls.secret = r.json["secret"]

    def docs(self, slug, path, token=None):
        return self.server.get(path, host="%s.localhost:%d" % (slug, self.server.port), token=token)

    def same_as_unknown(self, r, unknown):
        self.assertEqual((r.status, r.body), (unknown.status, unknown.body))

    def test_docs_host_root(self):
        unknown = self.docs("no-such-project", "/")
        self.assertStatus(unknown, 404)
        for token in (None, self.stranger):
            for path in ("/", "/en/", "/en/latest/", "/page/index.html"):
                self.same_as_unknown(self.docs("hidden", path, token), self.docs("no-such-project", path))
        r = self.docs("hidden", "/", self.owner)
        self.assertStatus(r, 302)
        r = self.docs("hidden", "/en/latest/", self.owner)
        self.assertStatus(r, 200)
        self.assertIn(b"hidden", r.body)

    def test_private_subproject_and_translation(self):
        for path in ("/projects/kid/", "/projects/kid", "/projects/kid/en/latest/", "/es/", "/es/latest/"):
            unknown = self.docs("open", path.replace("kid", "nobody").replace("/es/", "/fr/"))
            self.same_as_unknown(self.docs("open", path), unknown)
        # The subproject's own host named its parent and alias.
        self.same_as_unknown(self.docs("hidden-child", "/"), self.docs("no-such-project", "/"))
        self.assertStatus(self.docs("open", "/projects/kid/", self.owner), 302)
        self.assertStatus(self.docs("open", "/es/latest/", self.owner), 200)

    def test_login_answers_on_every_host(self):
        # Each sends the browser to the form on the API's host, naming
        # itself and nothing else.
        for slug in ("hidden", "no-such-project"):
            r = self.docs(slug, "/_/login/")
            self.assertStatus(r, 302)
            self.assertEqual(r.header("Location"), "http://localhost:%d/_/login/?next=/&host="
                             "%s.localhost:%d" % (self.server.port, slug, self.server.port))

    def test_incoming_webhooks(self):
        def post(path, body=b"{}", headers=None):
            h = {"Content-Type": "application/json"}
            h.update(headers or {})
            return self.server.request("POST", path, raw=body, headers=h)

        unknown = post("/api/v2/webhook/gitlab/no-such-project/")
        self.assertEqual((unknown.status, unknown.json), (404, {"detail": "Project not found"}))
        # No integration of that kind, and a signature that does not match.
        self.same_as_unknown(post("/api/v2/webhook/gitlab/hidden/"), unknown)
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        self.same_as_unknown(post("/api/v2/webhook/github/hidden/", body,
                                  {"X-Hub-Signature-256": sign("wrong", body),
                                   "X-GitHub-Event": "push"}), unknown)
        # The forge with the right secret still gets through.
        r = post("/api/v2/webhook/github/hidden/", body,
                 {"X-Hub-Signature-256": sign(self.secret, body), "X-GitHub-Event": "push"})
        self.assertStatus(r, 200)
        # A public project keeps the service's answers.
        r = post("/api/v2/webhook/gitlab/open/")
        self.assertEqual(r.json, {"detail": "No Integration matches the given query."})


if __name__ == "__main__":
    main()
