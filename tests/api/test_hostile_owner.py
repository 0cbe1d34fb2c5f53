"""A hostile organization owner (issue 36, finding 3): the --local-repos
directories are one trust zone for every account, so mallory, owner of an
organization of her own, imported file://.../secret -- the repository of
alice's private project -- into it, and anyone read it on
stolen.<docs domain>. A local repository another project already builds
from may now be imported only by someone who can read all of that project
(its admins; readers of it when none of its versions is private): every
spelling of the path (file:// forms, trailing slashes, "/./", its .git
directory, a symlink to it) is refused with one 400 on repository.url that
names no project and is the same whether the project is private or only a
version of it is; a PATCH to it is refused the same way; and a build does
not fetch it as a submodule of a repository of mallory's own."""
import os
import shutil
import subprocess
import tempfile
import time

import fixtures
from lectern_test import BUILD_TIMEOUT, ServerTestCase, Store, main

REFUSED = ("Another project on this server builds from this local repository, and you cannot read "
           "all of it: a local repository can be imported only by someone who can read every "
           "project already built from it.")


def import_as(server, token, name, url, org, **extra):
    """The business edition's import into organization org."""
    body = {"name": name, "repository": {"url": url}, "organization": org}
    body.update(extra)
    return server.post("/api/v3/projects/", body, token=token)


class HostileOwnerTest(ServerTestCase):
    SERVER_ARGS = ("--edition", "business")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.mallory = s.token("mallory")
        cls.carol = s.token("carol")
        cls.dave = s.token("dave")
        for org, owner in (("alpha", "alice"), ("evil", "mallory"), ("carol-co", "carol"),
                           ("dave-co", "dave")):
            s.lectern("org", "create", org, "--owner", owner)
        # carol administers alpha's projects through a team, dave reads them.
        s.lectern("org", "team", "create", "alpha", "Admins", "--access", "admin")
        s.lectern("org", "team", "create", "alpha", "Readers")
        s.lectern("org", "team", "add", "alpha", "admins", "carol")
        s.lectern("org", "team", "add", "alpha", "readers", "dave")
        cls.top = os.path.realpath(tempfile.mkdtemp(prefix="lectern-hostile-owner-"))
        cls.secret = fixtures.make_repo(fixtures.MARKDOWN, root=cls.top)
        cls.alias = os.path.join(cls.top, "alias")
        os.symlink(cls.secret, cls.alias)
        r = cls.import_as(cls.alice, "secret", "file://" + cls.secret, "alpha", privacy_level="private",
                          teams=["admins", "readers"])
        assert r.status == 201, r

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.top, ignore_errors=True)

    @classmethod
    def import_as(cls, token, name, url, org, **extra):
        return import_as(cls.server, token, name, url, org, **extra)

    def assertRefused(self, response):
        self.assertStatus(response, 400)
        self.assertEqual(response.json, {"repository": {"url": [REFUSED]}})

    def test_every_spelling_of_a_private_projects_repository_is_refused(self):
        for url in ("file://" + self.secret, "file://%s/" % self.secret, "file://%s/./" % self.secret,
                    "file://%s/.git" % self.secret, "file://%s/.git/" % self.secret,
                    "file://localhost" + self.secret, "FILE://" + self.secret,
                    "file://" + self.secret.replace("/", "//"), "file://" + self.alias,
                    "file://%s/../%s" % (self.alias, os.path.basename(self.secret))):
            self.assertRefused(self.import_as(self.mallory, "stolen", url, "evil"))
        # Nothing was made, so nothing is served on its subdomain.
        self.assertStatus(self.server.get("/api/v3/projects/stolen/", token=self.mallory), 404)
        host = "stolen.localhost:%d" % self.server.port
        self.assertStatus(self.server.get("/en/latest/", host=host), 404)

    def test_an_update_to_it_is_refused_too(self):
        own = fixtures.make_repo(fixtures.MARKDOWN, root=self.top)
        self.assertStatus(self.import_as(self.mallory, "decoy", "file://" + own, "evil"), 201)
        path = "/api/v3/projects/decoy/"
        self.assertRefused(self.server.patch(path, {"repository": {"url": "file://%s/.git" % self.secret}},
                                             token=self.mallory))
        self.assertRefused(self.server.put(path, {"name": "decoy", "repository": {"url": "file://" + self.alias}},
                                           token=self.mallory))
        self.assertEqual(self.server.get(path, token=self.mallory).json["repository"]["url"], "file://" + own)
        # Her own repository, however spelt, stays hers to set.
        self.assertStatus(self.server.patch(path, {"repository": {"url": "file://%s/" % own}},
                                            token=self.mallory), 204)

    def test_one_answer_whatever_hides_the_project(self):
        # A public project with one private version: not all of it is
        # readable either, and the answer does not say which case it is.
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=self.top)
        self.assertStatus(self.import_as(self.alice, "half-open", "file://" + repo, "alpha"), 201)
        store = Store(self.server)
        store.version("half-open", "drafts", privacy="private")
        self.assertRefused(self.import_as(self.mallory, "half-stolen", "file://" + repo, "evil"))
        # Once all of it is public, anyone may build it too.
        store.version("half-open", "drafts", privacy="public")
        self.assertStatus(self.import_as(self.mallory, "half-stolen", "file://" + repo, "evil"), 201)
        # A repository nobody builds from is never refused for this.
        self.assertStatus(self.import_as(self.mallory, "fresh", "file://" + fixtures.make_repo(
            fixtures.MARKDOWN, root=self.top), "evil"), 201)
        # One not there yet is refused as missing, naming the path and no
        # project (issue 43: import checks the directory first).
        r = self.import_as(self.mallory, "future", "file://%s/not-yet" % self.top, "evil")
        self.assertStatus(r, 400)
        self.assertEqual(r.json, {"repository": {"url": ["No directory %s/not-yet." % self.top]}})

    def test_who_can_read_all_of_it_may_build_it_again(self):
        # An admin team's member, and a reader of a private project whose
        # versions are all public, each into their own organization.
        self.assertStatus(self.import_as(self.carol, "carols-copy", "file://" + self.alias, "carol-co"), 201)
        self.assertStatus(self.import_as(self.dave, "daves-copy", "file://%s/" % self.secret, "dave-co"), 201)
        # Its organization's owner, into a private project no team holds...
        self.assertStatus(self.import_as(self.alice, "secret-copy", "file://%s/.git" % self.secret, "alpha",
                                         privacy_level="private"), 201)
        # ... which dave cannot read: he may not make a third.
        self.assertRefused(self.import_as(self.dave, "daves-second", "file://" + self.secret, "dave-co"))

class HostileSubmoduleTest(ServerTestCase):
    """The same rule at build time: mallory's own repository (hers to
    import: nobody builds from it) with alice's private repository as a
    submodule fails to build, saying why, and publishes nothing of it;
    alice's own such project builds."""

    SERVER_ARGS = ("--edition", "business", "--workers", "1", "--build-timeout", "60")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.server
        cls.alice = s.token("alice")
        cls.mallory = s.token("mallory")
        s.lectern("org", "create", "alpha", "--owner", "alice")
        s.lectern("org", "create", "evil", "--owner", "mallory")
        cls.top = os.path.realpath(tempfile.mkdtemp(prefix="lectern-hostile-submodule-"))
        cls.vault = fixtures.make_repo({"docs/index.md": "vault secret words\n"}, root=cls.top)
        r = import_as(s, cls.alice, "vault", "file://" + cls.vault, "alpha", privacy_level="private")
        assert r.status == 201, r

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.top, ignore_errors=True)

    def superproject(self):
        """A repository whose build publishes its submodule's docs/index.md,
        the submodule being the vault (its .git directory, to be sure)."""
        build = ("mkdir -p $READTHEDOCS_OUTPUT/html && (cat vendored/docs/index.md || echo absent) "
                 "> $READTHEDOCS_OUTPUT/html/index.html")
        files = fixtures.commands_config(build)
        files[".readthedocs.yaml"] += "submodules:\n  include: all\n"
        files[".gitmodules"] = '[submodule "vendored"]\n\tpath = vendored\n\turl = file://%s/.git\n' % self.vault
        repo = fixtures.make_repo(files, root=self.top)
        head = subprocess.run(["git", "-C", self.vault, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        fixtures.git(repo, "update-index", "--add", "--cacheinfo", "160000,%s,vendored" % head)
        fixtures.git(repo, "commit", "-q", "-m", "the submodule")
        return repo

    def build_of(self, token, name, org):
        r = import_as(self.server, token, name, "file://" + self.superproject(), org)
        self.assertStatus(r, 201)
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % r.json["slug"], token=token).json["results"]
            if builds and builds[0]["state"]["code"] == "finished":
                return r.json["slug"], builds[0]
            time.sleep(0.3)
        self.fail("the build of %s did not finish" % name)

    def test_another_projects_repository_is_no_submodule_of_hers(self):
        slug, build = self.build_of(self.mallory, "sneaky", "evil")
        self.assertFalse(build["success"], build)
        self.assertIn("Submodule vendored: another project on this server builds from this local repository, "
                      "and not every admin of this project can read all of it", build["error"])
        host = "%s.localhost:%d" % (slug, self.server.port)
        self.assertNotIn(b"vault secret words", self.server.get("/en/latest/", host=host).body)

    def test_its_admin_may(self):
        slug, build = self.build_of(self.alice, "vault-notes", "alpha")
        self.assertTrue(build["success"], build)
        host = "%s.localhost:%d" % (slug, self.server.port)
        self.assertIn(b"vault secret words", self.server.get("/en/latest/index.html", host=host).body)


if __name__ == "__main__":
    main()
