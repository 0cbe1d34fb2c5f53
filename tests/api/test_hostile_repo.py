"""A hostile repository or build against the engine's own reads (issue 27,
high 2), through a real root `lectern serve` with a build worker: the
engine reads repository and build content only inside the sandbox or
beneath the checkout, never blocking.

- An [include] in .gitmodules naming a host file or a fifo: the file is
  not read (no parse error quoting it) and the fifo blocks nothing; the
  submodule itself is still checked out.
- python.install's requirements named through a link to a host directory
  holding a fifo: the engine does not open it; the build fails with pip's
  own readable error, in time.
- A build that plants a fifo where the virtualenv's reuse stamp used to be,
  or swaps the project's venvs/ directory for a link to a host directory:
  the next build neither blocks nor touches the host directory, and builds
  afresh."""
import os
import sqlite3
import subprocess
import tempfile
import time
import unittest

import fixtures
from lectern_test import POLL_SECONDS, Server, ServerTestCase, main

BUILD_TIMEOUT = 180
REQUIREMENTS_SPHINX = dict(fixtures.SPHINX)
REQUIREMENTS_SPHINX[".readthedocs.yaml"] = (
    "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
    "%s"
    "sphinx:\n  configuration: docs/conf.py\n"
    "python:\n  install:\n    - requirements: %s\n")


@unittest.skipUnless(os.geteuid() == 0, "the attacks are meaningful against a root server only")
class HostileRepoTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--workers", "1", "--build-timeout", "60",
                            env={"PIP_NO_INDEX": "1"})
        cls.token = cls.server.token("mallory")
        # Host things only root may reach: a file and a fifo.
        cls.host = tempfile.mkdtemp(prefix="lectern-host-")
        os.chmod(cls.host, 0o700)
        cls.secret = os.path.join(cls.host, "secret.conf")
        with open(cls.secret, "w") as f:
            f.write("[core\n\thost-secret-marker = 1\n")
        os.chmod(cls.secret, 0o600)
        cls.fifo = os.path.join(cls.host, "fifo")
        os.mkfifo(cls.fifo, 0o600)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.host])
        super().tearDownClass()

    def import_repo(self, name, repo):
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {
            "url": "file://" + repo}}, token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def wait_build(self, slug, after=0):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                     token=self.token).json["results"]
            done = [b for b in builds if b["id"] > after
                    and b["state"]["code"] in ("finished", "cancelled")]
            if done:
                return done[0]
            time.sleep(POLL_SECONDS)
        self.fail("no build of %s finished: the engine is blocked? %r" % (slug, builds))

    def rebuild(self, slug, after):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.token)
        self.assertStatus(r, 202)
        return self.wait_build(slug, after)

    def outputs(self, build):
        db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        try:
            return "\n".join(r[0] + "\n" + r[1] for r in db.execute(
                "SELECT command, output FROM build_commands WHERE build_id = ?",
                (build["id"],)))
        finally:
            db.close()

    def assertNothingOfTheHost(self, build):
        text = (build["error"] or "") + self.outputs(build)
        self.assertNotIn(self.host, text)
        self.assertNotIn("host-secret-marker", text)

    def test_gitmodules_include_opens_nothing_of_the_host(self):
        sub = fixtures.make_repo({"docs/part.md": "From the submodule\n"})
        repo = tempfile.mkdtemp(prefix="lectern-fixture-")
        subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=fixtures.GIT_ENV)
        subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "-q", "add",
                        "file://" + sub, "vendored"], cwd=repo, check=True, env=fixtures.GIT_ENV)
        # The fifo first: an engine that opened it would block for good.
        with open(os.path.join(repo, ".gitmodules"), "w") as f:
            f.write('[include]\n\tpath = %s\n[include]\n\tpath = %s\n'
                    '[submodule "vendored"]\n\tpath = vendored\n\turl = ../%s\n'
                    % (self.fifo, self.secret, os.path.basename(sub)))
        build = ("mkdir -p $READTHEDOCS_OUTPUT/html && cat vendored/docs/part.md "
                 "> $READTHEDOCS_OUTPUT/html/index.html")
        with open(os.path.join(repo, ".readthedocs.yaml"), "w") as f:
            f.write(fixtures.commands_config(build)[".readthedocs.yaml"]
                    + "submodules:\n  include: all\n")
        fixtures.git(repo, "add", "-A")
        fixtures.git(repo, "commit", "-q", "-m", "main")
        slug = self.import_repo("Gitmodules Include", repo)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.outputs(build)))
        self.assertNothingOfTheHost(build)
        with open(os.path.join(self.server.data, "published", slug, "latest", "html",
                               "index.html")) as f:
            self.assertEqual(f.read(), "From the submodule\n")

    def test_requirements_through_a_link_are_not_opened(self):
        files = dict(REQUIREMENTS_SPHINX)
        files[".readthedocs.yaml"] %= ("", "lnk/fifo")
        repo = fixtures.make_repo(files)
        os.symlink(self.host, os.path.join(repo, "lnk"))
        fixtures.git(repo, "add", "-A")
        fixtures.git(repo, "commit", "-q", "-m", "link")
        slug = self.import_repo("Linked Requirements", repo)
        build = self.wait_build(slug)
        self.assertFalse(build["success"])
        # pip, in the sandbox, found no such file: the host's is not there.
        self.assertIn("lnk/fifo", build["error"])
        self.assertNothingOfTheHost(build)

    def spoiling_project(self, name, spoil):
        """A Sphinx project installed into a virtualenv whose setup.py (run
        by pip while the project's Python directory is writable) runs the
        shell command spoil, with VENVS its venvs/ directory; its first
        build is done."""
        files = dict(REQUIREMENTS_SPHINX)
        files["docs/requirements.txt"] = "# nothing to install\n"
        slug = name.lower().replace(" ", "-")
        venvs = os.path.join(self.server.data, "python", slug, "venvs")
        files["setup.py"] = ("import os\nos.system(%r)\n"
                             "from setuptools import setup\n"
                             "setup(name='spoiler', version='1.0')\n"
                             % ("VENVS=%s; %s" % (venvs, spoil)))
        files[".readthedocs.yaml"] %= ("", "docs/requirements.txt\n    - path: .")
        self.assertEqual(self.import_repo(name, fixtures.make_repo(files)), slug)
        return slug, self.wait_build(slug)

    def test_fifo_at_the_old_stamp_blocks_nothing(self):
        slug, first = self.spoiling_project(
            "Fifo Stamp", "mkfifo $VENVS/.stamp-latest")
        self.assertTrue(first["success"], (first, self.outputs(first)))
        second = self.rebuild(slug, first["id"])
        self.assertTrue(second["success"], (second, self.outputs(second)))

    def test_venvs_swapped_for_a_link_is_not_followed(self):
        target = os.path.join(self.host, "venvs")
        os.makedirs(os.path.join(target, "latest"))
        keep = os.path.join(target, "latest", "keep-me")
        with open(keep, "w") as f:
            f.write("host data\n")
        slug, first = self.spoiling_project(
            "Swapped Venvs", "test -L $VENVS || { mv $VENVS $VENVS.old && "
            "ln -s %s $VENVS; }" % target)
        self.assertTrue(os.path.islink(os.path.join(self.server.data, "python", slug, "venvs")))
        # The first build may fail (its own venv moved away mid-install);
        # the next one must not follow the link, and builds afresh.
        second = self.rebuild(slug, first["id"])
        self.assertTrue(os.path.exists(keep), "the engine removed a host directory")
        self.assertNothingOfTheHost(second)


if __name__ == "__main__":
    main()
