"""A build's checkout is a git clone as the service makes it (issue 38,
item 1), through a real `lectern serve` and its worker. The fixture is a
repository with a history of 60 commits, lightweight and annotated tags
and a side branch, whose build.jobs run git in the checkout and whose
python.install installs the project itself with setuptools-scm (Debian's,
seen through the venv's system site-packages: PIP_NO_INDEX builds without
isolation). Beside each build the test makes the service's clone with
real git (`git clone --depth 1`, `git fetch origin --force --prune
--prune-tags --depth 50 REFSPEC`, `git checkout --force`), runs the same
post_checkout in it and compares: HEAD, `git describe --tags`, `git log`'s
date, the origin's URL, `git branch -a`, the tags, the depth of the
history and the clean status, before and after `git fetch --unshallow`
and `git fetch --tags`, which must work offline; and setuptools-scm's
version, which comes from the tag. For latest (HEAD fetched, no
checkout), for a tag version and for stable (the commit fetched: no tag
until `git fetch --tags`, as there). Then a commit rebuilds latest on its
kept tree, whose .git is made anew: what the last build did to it (an
fsmonitor, a hook) is gone, was never run outside the sandbox, and the
mirror the fetches read was read-only to the build. Each of these failed
before the change: the checkout had no .git."""
import json
import os
import shutil
import subprocess
import tempfile

import fixtures
from lectern_test import BuildTestCase, Server, main

PY3 = "/usr/bin/python3"
COMMITS = 60
# Tags: (name, commit number, annotated); the side branch leaves main at
# SIDE_FROM with two commits, the last tagged.
TAGS = [("v0.1", 5, False), ("v0.9", 20, True), ("v1.0", 55, True)]
SIDE_FROM = 50

# What post_checkout prints about the clone, before and after fetching.
PROBE = ("git rev-parse HEAD; git describe --tags 2>&1; git log -1 --format=%cd; "
         "git remote get-url origin; git remote -v; git branch -a; git tag; "
         "git rev-list --count HEAD; git rev-parse --is-shallow-repository; "
         "git status --porcelain; true")
BEFORE = "echo probe-before; " + PROBE
AFTER = "echo probe-after; " + PROBE
HOSTILE_CHECK = ("git config --get core.fsmonitor || echo no-fsmonitor; "
                 "m=$(sed 's,/objects$,,' .git/objects/info/alternates); "
                 "touch \"$m/written\" 2>/dev/null && echo mirror-writable || "
                 "echo mirror-read-only; "
                 "git push origin HEAD:refs/heads/pushed >/dev/null 2>&1 && echo pushed || "
                 "echo push-refused")
SCM_VERSION = ("python -c \"import importlib.metadata as m; "
               "print('scm-version=' + m.version('scmfixture'))\"")


def config(marker):
    """The .readthedocs.yaml: the probes, the fetches, the install, a page,
    and last a build that plants a hostile .git config and hook whose
    command would write marker (a host path) if anything ran them outside
    the sandbox."""
    hostile = ("git config core.fsmonitor 'touch %s'; mkdir -p .git/hooks; "
               "printf '#!/bin/sh\\ntouch %s\\n' > .git/hooks/post-checkout; "
               "chmod +x .git/hooks/post-checkout" % (marker, marker))
    jobs = {
        "post_checkout": [BEFORE, "git fetch --unshallow", "git fetch --tags", AFTER,
                          HOSTILE_CHECK],
        "post_install": [SCM_VERSION],
        "build": {"html": ["mkdir -p $READTHEDOCS_OUTPUT/html && echo '<h1>scm</h1>' > "
                           "$READTHEDOCS_OUTPUT/html/index.html"]},
        "post_build": [hostile],
    }
    return ("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
            "  jobs: %s\npython:\n  install:\n    - method: pip\n      path: .\n"
            "sphinx:\n  configuration: docs/conf.py\n" % json.dumps(jobs))


PYPROJECT = """[build-system]
requires = ["setuptools", "setuptools-scm"]
build-backend = "setuptools.build_meta"

[project]
name = "scmfixture"
dynamic = ["version"]

[tool.setuptools]
py-modules = ["scmfixture"]

[tool.setuptools_scm]
"""


def git(cwd, *args, check=True):
    return subprocess.run(["git", *args], cwd=cwd, check=check, env=fixtures.GIT_ENV,
                          capture_output=True, text=True).stdout.strip()


def make_history(root, marker):
    """The fixture repository: COMMITS commits on main (each rewriting
    history.txt, a day apart), its tags, and the side branch."""
    repo = tempfile.mkdtemp(prefix="lectern-clone-", dir=root)
    git(repo, "init", "-q", "-b", "main")
    files = {".readthedocs.yaml": config(marker), "pyproject.toml": PYPROJECT,
             "scmfixture.py": "VALUE = 1\n", "docs/conf.py": "project = 'SCM'\n",
             "docs/index.rst": "SCM\n===\n"}
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
        with open(os.path.join(repo, path), "w") as f:
            f.write(text)
    tags = {n: (name, annotated) for name, n, annotated in TAGS}
    for n in range(1, COMMITS + 1):
        commit(repo, n, "history.txt", "revision %d\n" % n)
        if n in tags:
            name, annotated = tags[n]
            git(repo, "tag", *(["-a", "-m", "release " + name] if annotated else []), name)
        if n == SIDE_FROM:
            git(repo, "branch", "side")
    git(repo, "checkout", "-q", "side")
    for n in (101, 102):
        commit(repo, n, "side.txt", "side %d\n" % n)
    git(repo, "tag", "v1.0-side")
    git(repo, "checkout", "-q", "main")
    return repo


def commit(repo, n, path, text):
    with open(os.path.join(repo, path), "w") as f:
        f.write(text)
    date = "%d +0000" % (1700000000 + n * 86400)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=fixtures.GIT_ENV)
    subprocess.run(["git", "commit", "-q", "-m", "revision %d" % n], cwd=repo, check=True,
                   env=dict(fixtures.GIT_ENV, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))


def sh(cwd, command):
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=fixtures.GIT_ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout


class ServiceClone:
    """The service's clone of url for one version, made with real git in a
    directory of its own, and its post_checkout's probes."""

    def __init__(self, root, url, refspec, checkout):
        self.dir = tempfile.mkdtemp(prefix="service-", dir=root)
        git(self.dir, "clone", "-q", "--depth", "1", url, ".")
        git(self.dir, "fetch", "-q", "origin", "--force", "--prune", "--prune-tags", "--depth",
            "50", refspec)
        if checkout:
            git(self.dir, "checkout", "-q", "--force", checkout)
        self.before = sh(self.dir, BEFORE)
        git(self.dir, "fetch", "-q", "--unshallow")
        git(self.dir, "fetch", "-q", "--tags")
        self.after = sh(self.dir, AFTER)
        self.version = subprocess.run([PY3, "-m", "setuptools_scm"], cwd=self.dir, check=True,
                                      capture_output=True, text=True).stdout.strip()


class GitCloneTest(BuildTestCase):
    SERVER_ARGS = ("--build-timeout", "120", "--workers", "1")
    BUILD_TIMEOUT = 240

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-gitclone-")
        os.chmod(cls.tmp, 0o755)
        cls.wheels = os.path.join(cls.tmp, "wheels")
        os.mkdir(cls.wheels)
        cls.marker = os.path.join(cls.tmp, "hostile-ran")
        cls.repo = make_history(cls.tmp, cls.marker)
        cls.url = "file://" + cls.repo
        cls.server = Server(*cls.SERVER_ARGS,
                            env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": cls.wheels})
        cls.token = cls.server.token("builder")

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def output(self, build, command):
        rows = [r for r in self.commands(build["id"]) if r[0] == command]
        self.assertEqual(len(rows), 1, [r[0] for r in self.commands(build["id"])])
        self.assertEqual(rows[0][2], 0, rows[0])
        return rows[0][1]

    def passes(self, slug, build_id=None):
        build = self.wait_build(slug, build_id)
        self.assertTrue(build["success"], (build, [r[:3] for r in self.commands(build["id"])]))
        return build

    def assertAsService(self, build, service):
        self.assertEqual(self.output(build, BEFORE), service.before)
        self.assertEqual(self.output(build, AFTER), service.after)
        self.assertIn("scm-version=%s\n" % service.version, self.output(build, SCM_VERSION))

    def version_build(self, slug, version):
        builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                 token=self.token).json["results"]
        ids = [b["id"] for b in builds if b["version"] == version]
        self.assertTrue(ids, builds)
        return self.passes(slug, ids[0])

    def test_checkout_is_the_service_clone(self):
        slug = self.import_repo("SCM Clone", self.url)
        tip = git(self.repo, "rev-parse", "main")
        v10 = git(self.repo, "rev-parse", "v1.0^{}")

        # latest, with no default branch set: HEAD fetched (which follows
        # no tag), no checkout.
        latest = self.version_build(slug, "latest")
        self.assertEqual(latest["commit"], tip)
        service = ServiceClone(self.tmp, self.url, "HEAD", None)
        self.assertAsService(latest, service)
        before = self.output(latest, BEFORE)
        self.assertIn("No names found", before)
        self.assertIn("\n* main\n", before)
        self.assertIn("\n50\ntrue\n", before)  # 50 commits, shallow
        self.assertIn("origin\t%s (fetch)\n" % self.url, before)
        self.assertIn("\n%s\n" % self.url, before)
        after = self.output(latest, AFTER)
        self.assertIn("v1.0-5-g%s\n" % tip[:7], after)
        self.assertIn("\n%d\nfalse\n" % COMMITS, after)  # the whole history, offline
        self.assertIn("v1.0-side\n", after)
        self.assertEqual(service.version, "1.1.dev5+g%s" % tip[:7])
        self.assertEqual(self.output(latest, HOSTILE_CHECK),
                         "no-fsmonitor\nmirror-read-only\npush-refused\n")

        # stable (v1.0, the highest version): the service fetches its
        # commit, so no tag is there until `git fetch --tags`.
        stable = self.version_build(slug, "stable")
        self.assertEqual(stable["commit"], v10)
        service = ServiceClone(self.tmp, self.url, v10, v10)
        self.assertAsService(stable, service)
        self.assertIn("No names found", self.output(stable, BEFORE))
        self.assertEqual(service.version, "1.0")

        # The tag's own version: its tag and those of its history.
        r = self.server.patch("/api/v3/projects/%s/versions/v1.0/" % slug, {"active": True},
                              token=self.token)
        self.assertStatus(r, 204)
        tagged = self.version_build(slug, "v1.0")
        service = ServiceClone(self.tmp, self.url, "refs/tags/v1.0:refs/tags/v1.0", v10)
        self.assertAsService(tagged, service)
        self.assertIn("HEAD detached at %s" % v10[:7], self.output(tagged, BEFORE))
        self.assertIn("v0.9\nv1.0\n", self.output(tagged, BEFORE))

        # A commit: latest is rebuilt on its kept tree, with a new .git.
        commit(self.repo, 61, "history.txt", "revision 61\n")
        tip = git(self.repo, "rev-parse", "main")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.token)
        self.assertStatus(r, 202)
        again = self.passes(slug, r.json["build"]["id"])
        self.assertEqual(again["commit"], tip)
        self.assertTrue(again["cache"]["checkout"]["reused"], again["cache"])
        self.assertAsService(again, ServiceClone(self.tmp, self.url, "HEAD", None))
        self.assertIn("v1.0-6-g%s\n" % tip[:7], self.output(again, AFTER))
        self.assertIn("\n50\ntrue\n", self.output(again, BEFORE))
        self.assertEqual(self.output(again, HOSTILE_CHECK),
                         "no-fsmonitor\nmirror-read-only\npush-refused\n")
        self.assertFalse(os.path.exists(self.marker))
        mirror = os.path.join(self.server.data, "repos", slug + ".git")
        self.assertFalse(os.path.exists(os.path.join(mirror, "written")))
        self.assertEqual(git(mirror, "-c", "safe.directory=*", "for-each-ref",
                             "refs/heads/pushed"), "")


if __name__ == "__main__":
    main()
