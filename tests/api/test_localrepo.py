"""Local repositories: a server started with --local-repos DIR imports
file:// repositories at or below DIR, and refuses with a 400 on
repository.url everything else a file:// URL could reach: /etc, a path
leaving DIR through "..", a symlink inside DIR pointing out of it,
percent-escapes and other hosts; updates follow the same rule, and the
option itself wants absolute directories."""
import os
import shutil
import tempfile

import fixtures
from lectern_test import ServerTestCase, main

# Made at import: the server's command line names the allowed directory.
TOP = os.path.realpath(tempfile.mkdtemp(prefix="lectern-localrepo-"))
ALLOWED = os.path.join(TOP, "allowed")
OUTSIDE = os.path.join(TOP, "outside")
os.makedirs(ALLOWED)
os.makedirs(OUTSIDE)
os.symlink(OUTSIDE, os.path.join(ALLOWED, "out"))
REFUSED = "Local repositories must be in %s; '%%s' is not" % ALLOWED


class LocalRepoTest(ServerTestCase):
    SERVER_ARGS = ("--local-repos", ALLOWED)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("alice")
        cls.repo = fixtures.make_repo(fixtures.MARKDOWN, root=ALLOWED)
        cls.outside_repo = fixtures.make_repo(fixtures.MARKDOWN, root=OUTSIDE)

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(TOP, ignore_errors=True)

    def create(self, name, url):
        return self.server.post("/api/v3/projects/", {
            "name": name, "repository": {"url": url}}, token=self.token)

    def assertRefused(self, response, message):
        self.assertStatus(response, 400)
        self.assertEqual(response.json, {"repository": {"url": [message]}})

    def test_an_allowed_directory_imports(self):
        url = "file://" + self.repo
        r = self.create("Inside", url)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["repository"]["url"], url)
        # localhost is the one host a file URL may name.
        self.assertStatus(self.create("Inside Localhost", "file://localhost" + self.repo), 201)

    def test_only_a_git_repository_is_imported(self):
        """A mistyped path or a directory of plain files is refused when
        the URL is set, naming the path, and no project is made (issue
        43, item 5), rather than failing at the first clone."""
        before = self.server.get("/api/v3/projects/", token=self.token).json["count"]
        missing = os.path.join(ALLOWED, "nosuch")
        self.assertRefused(self.create("Missing", "file://" + missing),
                           "No directory %s." % missing)
        plain = os.path.join(ALLOWED, "plain")
        os.makedirs(plain, exist_ok=True)
        with open(os.path.join(plain, "README.md"), "w") as f:
            f.write("# Plain\n")
        self.assertRefused(self.create("Plain", "file://" + plain),
                           "%s is not a git repository." % plain)
        self.assertRefused(self.create("File", "file://%s/README.md" % plain),
                           "No directory %s/README.md." % plain)
        after = self.server.get("/api/v3/projects/", token=self.token).json["count"]
        self.assertEqual(after, before)
        # A bare repository is one.
        bare = os.path.join(ALLOWED, "bare.git")
        fixtures.git(ALLOWED, "clone", "-q", "--bare", self.repo, bare)
        self.assertStatus(self.create("Bare", "file://" + bare), 201)

    def test_etc_is_refused(self):
        self.assertRefused(self.create("Etc", "file:///etc"), REFUSED % "file:///etc")

    def test_dot_dot_cannot_leave_the_directory(self):
        url = "file://%s/../outside/%s" % (ALLOWED, os.path.basename(self.outside_repo))
        self.assertRefused(self.create("Dots", url), REFUSED % url)

    def test_a_symlink_cannot_leave_the_directory(self):
        url = "file://%s/out/%s" % (ALLOWED, os.path.basename(self.outside_repo))
        self.assertRefused(self.create("Link", url), REFUSED % url)

    def test_escapes_and_hosts_are_refused(self):
        for url in ("file://%s/%%2e%%2e/outside" % ALLOWED, "file://example.com" + self.repo):
            r = self.create("Odd", url)
            self.assertStatus(r, 400)
            self.assertIn("file:///PATH", r.json["repository"]["url"][0])

    def test_updates_follow_the_same_rule(self):
        self.assertStatus(self.create("Moving", "https://github.com/x/moving.git"), 201)
        path = "/api/v3/projects/moving/"
        r = self.server.patch(path, {"repository": {"url": "file:///etc"}}, token=self.token)
        self.assertRefused(r, REFUSED % "file:///etc")
        r = self.server.patch(path, {"repository": {"url": "file://" + self.repo}},
                              token=self.token)
        self.assertStatus(r, 204)
        self.assertEqual(self.server.get(path).json["repository"]["url"], "file://" + self.repo)

    def test_the_option_wants_absolute_directories(self):
        done = self.server.lectern("serve", "--local-repos", "/tmp:relative", check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("--local-repos wants absolute directories, got 'relative'", done.stderr)


if __name__ == "__main__":
    main()
