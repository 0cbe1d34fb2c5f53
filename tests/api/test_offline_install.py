"""Installs without a reachable index fail fast and say so (issue 38,
item 6): with the package index unreachable, `pip wheel` retried the
network five times (9 s of every build) before the install from the
wheelhouse, and a failure did not say that only local wheels and the
system's packages were there.

The server's own index is a loopback port nobody listens on (pip's
retries are its defaults), its find-links a directory with one wheel: a
project needing that wheel builds at once without an index, with the
reason in its log; one needing another fails with a message naming what
was available and how to give more. Neither retries."""
import os
import shutil
import socket
import tempfile
import time
import unittest

import fixtures
from lectern_test import BuildTestCase, Server, main
from test_realrepo import write_wheel

DEP = "lectern-offline-dep"


def closed_port():
    """A loopback port nobody listens on (connections are refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def project(requirement):
    return {
        ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
                             "    python: \"3.12\"\nsphinx:\n  configuration: docs/conf.py\n"
                             "python:\n  install:\n    - requirements: requirements.txt\n",
        "requirements.txt": requirement + "\n",
        "docs/conf.py": "project = 'Offline'\n",
        "docs/index.rst": "Offline\n=======\n\nText.\n",
    }


@unittest.skipUnless(os.geteuid() == 0, "the builds run as a build user under a root server")
class OfflineInstallTest(BuildTestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-offline-")
        os.chmod(cls.tmp, 0o755)
        cls.wheels = os.path.join(cls.tmp, "wheels")
        os.mkdir(cls.wheels)
        os.chmod(cls.wheels, 0o755)
        write_wheel(cls.wheels, DEP, {"lectern_offline_dep/__init__.py": "X = 1\n"})
        # https: pip reaches it through a CONNECT tunnel, whose refusal
        # (the proxy cannot connect) pip retries, as it does an index whose
        # name does not resolve.
        cls.index = "https://127.0.0.1:%d/simple/" % closed_port()
        cls.server = Server("--workers", "1", "--build-timeout", "120",
                            env={"PIP_INDEX_URL": cls.index, "PIP_FIND_LINKS": cls.wheels})
        cls.token = cls.server.token("builder")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        super().tearDownClass()

    def build(self, name, requirement):
        slug = self.import_repo(name, "file://" + fixtures.make_repo(project(requirement)))
        build = self.wait_build(slug)
        return build, self.commands(build["id"])

    def assertNoRetries(self, commands):
        for command, output, _ in commands:
            self.assertNotIn("Retrying (Retry(", output or "", command)

    def test_a_local_wheel_installs_at_once(self):
        started = time.monotonic()
        build, commands = self.build("Offline Local", DEP)
        self.assertTrue(build["success"], build["error"])
        self.assertNoRetries(commands)
        notes = [o for c, o, _ in commands if c == "python.install"]
        self.assertTrue(any("The package index cannot be reached from here" in n and
                            "without network retries" in n for n in notes), notes)
        wheel = [c for c, _, _ in commands if c.startswith("python -m pip wheel")]
        self.assertTrue(wheel and all("--no-index" in c for c in wheel), wheel)
        # pip's five retries of the index took 9 s on their own.
        self.assertLess(time.monotonic() - started, 60)

    def test_a_missing_package_says_what_was_there(self):
        build, commands = self.build("Offline Missing", "lectern-nowhere-to-be-found")
        self.assertFalse(build["success"])
        self.assertNoRetries(commands)
        error = build["error"]
        self.assertIn("No matching distribution found for lectern-nowhere-to-be-found", error)
        self.assertIn("Only local wheels", error)
        self.assertIn("system's Python packages", error)
        self.assertIn("PIP_FIND_LINKS", error)
        self.assertIn("PIP_INDEX_URL", error)


if __name__ == "__main__":
    main()
