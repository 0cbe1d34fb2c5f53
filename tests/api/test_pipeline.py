"""The build pipeline end to end through a real `lectern serve`: import a
repository made at test time, let the worker clone it, build it with
Lectern's Markdown generator, Sphinx or MkDocs inside the sandbox, and
publish it; the states, the recorded commands, the published files, the
synced versions; and the failures the sandbox and the limits must catch."""
import os
import signal
import tempfile
import socket
import sqlite3
import subprocess
import threading
import time

import fixtures
from lectern_test import BuildTestCase, Server, main

# Marks this run's build commands, so a check for leftover processes never
# sees another test run's.
MARK = "lectern-test-%d" % os.getpid()


class PipelineCase(BuildTestCase):
    def published(self, slug, version, *path):
        return os.path.join(self.server.data, "published", slug, version, *path)


class MarkdownBuildTest(PipelineCase):
    def test_markdown_project_builds_and_publishes(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN, branches=["dev"], tags=["v1.0", "v2.0rc1"],
                                  annotated=["v1.1"])
        slug = self.import_repo("Markdown Guide", "file://" + repo)
        # The import's build (of latest) is the first; the version sync it
        # runs adds stable, which is built too (below).
        first = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json
        build = self.wait_build(slug, first["results"][-1]["id"])
        self.assertEqual(build["version"], "latest")
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        self.assertIsNone(build["error"])
        self.assertEqual(len(build["commit"]), 40)
        self.assertRegex(build["finished"], r"Z$")
        self.assertIsInstance(build["duration"], int)
        index = self.published(slug, "latest", "html", "index.html")
        with open(index) as f:
            html = f.read()
        self.assertIn("Markdown Guide", html)
        self.assertIn('href="install.html#setup"', html)
        # docs/ is the site's root, as MkDocs' docs_dir: /en/latest/<page>.html.
        self.assertTrue(os.path.exists(self.published(slug, "latest", "html", "usage.html")))
        self.assertFalse(os.path.exists(self.published(slug, "latest", "html", "docs")))
        self.assertTrue(os.path.islink(self.published(slug, "latest")))
        cmds = [c[0] for c in self.commands(build["id"])]
        # The log says what ran: a full mirror (libgit2 1.5 has no shallow fetch).
        self.assertTrue(cmds[0].startswith("git clone --mirror file://"), cmds)
        self.assertTrue(any(c.startswith("git checkout --force ") for c in cmds), cmds)
        self.assertIn("lectern markdown docs $READTHEDOCS_OUTPUT/html", cmds)
        # Versions were synced from the refs: new ones inactive, stable the
        # highest final release tag.
        versions = self.server.get("/api/v3/projects/%s/versions/?limit=50" % slug, token=self.token).json
        by_slug = {v["slug"]: v for v in versions["results"]}
        self.assertTrue({"latest", "main", "dev", "v1.0", "v1.1", "v2.0rc1", "stable"} <= set(by_slug), by_slug)
        self.assertFalse(by_slug["dev"]["active"])
        self.assertEqual(by_slug["stable"]["ref"], "v1.1")
        self.assertTrue(by_slug["latest"]["built"])
        # stable appeared active with that sync: as the service after a
        # sync, it is built, so /en/stable/ is served (issue 31, item 9).
        builds = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]
        stable = [b for b in builds if b["version"] == "stable"]
        self.assertEqual(len(stable), 1, builds)
        stable = self.wait_build(slug, stable[0]["id"])
        self.assertTrue(stable["success"], (stable, self.commands(stable["id"])))
        self.assertTrue(os.path.exists(self.published(slug, "stable", "html", "index.html")))
        r = self.server.get("/api/v3/projects/%s/versions/stable/" % slug, token=self.token)
        self.assertTrue(r.json["built"], r.json)
        # The built-in Markdown site has clean URLs: documentation type "generic".
        v2 = self.server.get("/api/v2/version/%d/" % by_slug["latest"]["id"]).json
        self.assertEqual(v2["documentation_type"], "generic")
        # A second build replaces the published output atomically.
        first_target = os.readlink(self.published(slug, "latest"))
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        self.assertStatus(r, 202)
        second = self.wait_build(slug, r.json["build"]["id"])
        self.assertTrue(second["success"])
        self.assertNotEqual(os.readlink(self.published(slug, "latest")), first_target)
        # The previous output is no longer served but kept for page diffs
        # (--keep-builds, 5 by default; test_diff checks the pruning).
        self.assertTrue(os.path.isdir(os.path.join(self.server.data, "published", slug, first_target)))
        cmds = [c[0] for c in self.commands(second["id"])]
        self.assertTrue(cmds[0].startswith("git fetch --prune --force file://"), cmds)
        # A failed build leaves the last good output served.
        good_target = os.readlink(self.published(slug, "latest"))
        with open(os.path.join(repo, ".readthedocs.yaml"), "w") as f:
            f.write("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: '3'\n"
                    "  commands:\n    - exit 1\n")
        fixtures.git(repo, "add", "-A")
        fixtures.git(repo, "commit", "-q", "-m", "break the build")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        third = self.wait_build(slug, r.json["build"]["id"])
        self.assertFalse(third["success"])
        self.assertEqual(os.readlink(self.published(slug, "latest")), good_target)
        self.assertTrue(os.path.exists(index))


class GeneratorsTest(PipelineCase):
    def test_sphinx_project(self):
        repo = fixtures.make_repo(fixtures.SPHINX)
        slug = self.import_repo("Sphinx Fixture", "file://" + repo)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertIn("cat .readthedocs.yaml", cmds)
        self.assertIn("cat docs/conf.py", cmds)
        self.assertIn("python -m sphinx -T -b html -d _build/doctrees -D language=en . "
                      "$READTHEDOCS_OUTPUT/html", cmds)
        with open(self.published(slug, "latest", "html", "api.html")) as f:
            self.assertIn("frobnicate", f.read())
        self.assertTrue(os.path.exists(self.published(slug, "latest", "htmlzip", slug + ".zip")))
        self.assertTrue(os.path.exists(self.published(slug, "latest", "epub", slug + ".epub")))
        detail = self.server.get("/api/v3/projects/%s/builds/%d/?expand=config" % (slug, build["id"]),
                                 token=self.token).json
        self.assertEqual(detail["config"]["doctype"], "sphinx")
        self.assertEqual(sorted(detail["config"]["formats"]), ["epub", "htmlzip"])
        version = self.server.get("/api/v3/projects/%s/versions/latest/" % slug, token=self.token).json
        self.assertEqual(sorted(version["downloads"]), ["epub", "htmlzip"])

    def test_sphinx_pdf(self):
        # Issue 38, item 8: packaging/deps.sh installs latexmk and the
        # LaTeX Sphinx's builder needs, so formats: [pdf] gets its PDF at
        # the service's download URL and in the version's downloads.
        files = dict(fixtures.SPHINX)
        files[".readthedocs.yaml"] = files[".readthedocs.yaml"].replace(
            "formats:\n  - htmlzip\n  - epub\n", "formats:\n  - pdf\n")
        files["docs/index.rst"] += ("\n.. code-block:: python\n\n   print('hi')\n\n"
                                    "==== ====\nA    B\n==== ====\n1    2\n==== ====\n")
        slug = self.import_repo("Sphinx PDF", "file://" + fixtures.make_repo(files))
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertIn("latexmk -pdf -f -dvi- -ps- -interaction=nonstopmode", cmds)
        version = self.server.get("/api/v3/projects/%s/versions/latest/" % slug, token=self.token).json
        self.assertEqual(sorted(version["downloads"]), ["pdf"])
        r = self.server.get("/_/downloads/en/latest/pdf/", host="%s.localhost:%d" % (slug, self.server.port))
        self.assertStatus(r, 200)
        self.assertTrue(r.body.startswith(b"%PDF-"), r.body[:20])
        self.assertGreater(len(r.body), 10000)

    def test_mkdocs_project(self):
        repo = fixtures.make_repo(fixtures.MKDOCS)
        slug = self.import_repo("MkDocs Fixture", "file://" + repo)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertIn("python -m mkdocs build --clean --site-dir $READTHEDOCS_OUTPUT/html "
                      "--config-file mkdocs.yml", cmds)
        with open(self.published(slug, "latest", "html", "guide", "index.html")) as f:
            self.assertIn("Some text.", f.read())
        # No .readthedocs.yaml: the detected generator sets the type.
        latest = self.server.get("/api/v3/projects/%s/versions/latest/" % slug, token=self.token).json
        v2 = self.server.get("/api/v2/version/%d/" % latest["id"]).json
        self.assertEqual(v2["documentation_type"], "mkdocs")


class FailuresTest(PipelineCase):
    def build_of(self, name, files, **kw):
        repo = fixtures.make_repo(files)
        slug = self.import_repo(name, "file://" + repo)
        return slug, self.wait_build(slug, **kw)

    def test_failing_command(self):
        slug, build = self.build_of("Fails", fixtures.commands_config("echo before", "exit 3"))
        self.assertFalse(build["success"])
        self.assertEqual(build["error"], 'Command "exit 3" failed with exit code 3.')
        rows = self.commands(build["id"])
        self.assertIn(("echo before", "before\n", 0), rows)
        # Nothing was published.
        self.assertFalse(os.path.exists(self.published(slug, "latest")))

    def test_no_network_and_no_data_dir(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        probe = ("python3 -c \"import socket; socket.create_connection(('127.0.0.1', %d), 3)\"" % port)
        slug, build = self.build_of("Offline", fixtures.commands_config(probe))
        listener.close()
        self.assertFalse(build["success"])
        self.assertIn("exit code 1", build["error"])
        slug, build = self.build_of("Nosy", fixtures.commands_config(
            "cat %s/lectern.db" % self.server.data))
        self.assertFalse(build["success"])
        out = self.commands(build["id"])[-1][1]
        self.assertIn("No such file", out)

    def test_bad_config(self):
        files = {".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: '3'\n"
                                      "sphinx:\n  configuration: conf.py\n  bogus: 1\n", "README.md": "# x\n"}
        slug, build = self.build_of("Bad Config", files)
        self.assertFalse(build["success"])
        self.assertIn(".readthedocs.yaml:8: sphinx.bogus", build["error"])

    def test_secret_values_are_masked(self):
        repo = fixtures.make_repo(fixtures.commands_config("echo value=$LECTERN_SECRET",
                                                           "mkdir -p $READTHEDOCS_OUTPUT/html",
                                                           "echo ok > $READTHEDOCS_OUTPUT/html/index.html"))
        # Import, add the variable, then build again with it.
        slug = self.import_repo("Secretive", "file://" + repo)
        self.wait_build(slug)
        r = self.server.post("/api/v3/projects/%s/environmentvariables/" % slug,
                             {"name": "LECTERN_SECRET", "value": "hunter2-very-secret"}, token=self.token)
        self.assertStatus(r, 201)
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        build = self.wait_build(slug, r.json["build"]["id"])
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        out = [c[1] for c in self.commands(build["id"]) if c[0].startswith("echo value")][0]
        self.assertNotIn("hunter2", out)
        self.assertIn("value=*******************", out)

    def test_cancel(self):
        repo = fixtures.make_repo(fixtures.commands_config("sleep 60 # " + MARK + "-cancel"))
        slug = self.import_repo("Cancelled", "file://" + repo)
        deadline = time.time() + self.BUILD_TIMEOUT
        while time.time() < deadline:
            b = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"][0]
            if b["state"]["code"] == "building":
                break
            time.sleep(0.2)
        r = self.server.post("/api/v3/projects/%s/builds/%d/cancel/" % (slug, b["id"]), token=self.token)
        self.assertStatus(r, 202)
        self.assertEqual(r.json["state"]["code"], "cancelled")
        build = self.wait_build(slug, b["id"])
        self.assertEqual(build["state"]["code"], "cancelled")
        self.assertFalse(build["success"])
        self.assertNoProcess(MARK + "-cancel", "the cancelled command is still running")
        r = self.server.post("/api/v3/projects/%s/builds/%d/cancel/" % (slug, b["id"]), token=self.token)
        self.assertDetail(r, 400, "This build has already finished.")


class TimeLimitTest(PipelineCase):
    """A limit of a few seconds: the test waits for it to pass (the other
    builds' 20 s is room for a Sphinx build under ASan). Should the clone
    take the whole limit on a loaded machine, the build ends the same
    way, by its limit, before the sleeper starts."""
    SERVER_ARGS = ("--build-timeout", "4", "--workers", "1")
    build_of = FailuresTest.build_of

    def test_time_limit(self):
        start = time.time()
        slug, build = self.build_of("Sleeper", fixtures.commands_config("sleep 120 # " + MARK + "-sleeper"))
        self.assertFalse(build["success"])
        self.assertEqual(build["error"], "The build exceeded its time limit of 4 seconds.")
        self.assertLess(time.time() - start, 90)
        self.assertNoProcess(MARK + "-sleeper", "the timed-out command is still running")


class MirrorTest(PipelineCase):
    def test_fetch_killed_half_way_leaves_a_usable_mirror(self):
        repo = fixtures.make_repo(fixtures.MARKDOWN)
        slug = self.import_repo("Mirror Leftovers", "file://" + repo)
        self.assertTrue(self.wait_build(slug)["success"])
        mirror = os.path.join(self.server.data, "repos", slug + ".git")
        # What a fetch killed at its deadline leaves: lock files, a partial pack.
        leftovers = [os.path.join(mirror, "packed-refs.lock"),
                     os.path.join(mirror, "refs", "heads", "main.lock"),
                     os.path.join(mirror, "objects", "pack", "pack_git2_4f2a")]
        for path in leftovers:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("x")
        fixtures.git(repo, "commit", "-q", "--allow-empty", "-m", "more")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        self.assertStatus(r, 202)
        build = self.wait_build(slug, r.json["build"]["id"])
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        for path in leftovers:
            self.assertFalse(os.path.exists(path), path)
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        self.assertEqual(build["commit"], head)


class SubmodulesTest(PipelineCase):
    """Submodules as .readthedocs.yaml says: fetched through mirrors of their own."""

    def superproject(self, config, url=None):
        sub = fixtures.make_repo({"docs/part.md": "From the submodule\n"})
        main = tempfile.mkdtemp(prefix="lectern-fixture-")
        subprocess.run(["git", "init", "-q", "-b", "main", main], check=True, env=fixtures.GIT_ENV)
        # By default a relative URL (both fixtures share a directory),
        # resolved against the project's own URL as git does.
        url = url or "../" + os.path.basename(sub)
        subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "-q", "add",
                        "file://" + sub, "vendored"], cwd=main, check=True, env=fixtures.GIT_ENV)
        with open(os.path.join(main, ".gitmodules"), "w") as f:
            f.write('[submodule "vendored"]\n\tpath = vendored\n\turl = %s\n' % url)
        build = ("mkdir -p $READTHEDOCS_OUTPUT/html && (cat vendored/docs/part.md || echo absent) "
                 "> $READTHEDOCS_OUTPUT/html/index.html")
        with open(os.path.join(main, ".readthedocs.yaml"), "w") as f:
            f.write(fixtures.commands_config(build)[".readthedocs.yaml"] + config)
        fixtures.git(main, "add", "-A")
        fixtures.git(main, "commit", "-q", "-m", "main")
        return main

    def published_index(self, slug):
        with open(self.published(slug, "latest", "html", "index.html")) as f:
            return f.read()

    def test_included_submodule_is_checked_out(self):
        main = self.superproject("submodules:\n  include: all\n")
        slug = self.import_repo("With Submodule", "file://" + main)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        self.assertEqual(self.published_index(slug), "From the submodule\n")
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertTrue(any(c.startswith("git submodule update --init vendored (file://") for c in cmds), cmds)
        self.assertTrue(os.path.isdir(os.path.join(self.server.data, "repos", slug + ".modules", "vendored.git")))

    def test_submodules_are_excluded_by_default(self):
        main = self.superproject("", url="../nowhere")
        slug = self.import_repo("Without Submodule", "file://" + main)
        build = self.wait_build(slug)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        self.assertEqual(self.published_index(slug), "absent\n")

    def test_ssh_submodule_fails_clearly(self):
        main = self.superproject("submodules:\n  include:\n    - vendored\n",
                                 url="git@example.com:org/sub.git")
        slug = self.import_repo("Ssh Submodule", "file://" + main)
        build = self.wait_build(slug)
        self.assertFalse(build["success"])
        self.assertIn("Submodule vendored: ssh URLs are not supported", build["error"])


class SecondServerTest(PipelineCase):
    def test_one_pipeline_per_data_directory(self):
        # A second server on the same data serves the API but runs no
        # builds: its recovery would fail the first one's running builds.
        again = Server("--workers", "1", data=self.server.data)
        try:
            self.assertStatus(again.get("/api/v3/"), 200)
            time.sleep(0.3)
            self.assertIn("another lectern serve runs the builds of", again.log())
            self.assertIn("serving the API without build workers", again.log())
        finally:
            self.assertEqual(again.stop(), 0, again.log())
            again.cleanup()


class GitDaemonTest(PipelineCase):
    def test_clone_over_git_protocol(self):
        base = fixtures.tempfile.mkdtemp(prefix="lectern-gitd-")
        repo = fixtures.make_repo(fixtures.MARKDOWN, root=base)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        daemon = subprocess.Popen(["git", "daemon", "--export-all", "--base-path=" + base,
                                   "--listen=127.0.0.1", "--port=%d" % port, "--reuseaddr", base],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(50):
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            slug = self.import_repo("Over Git", "git://127.0.0.1:%d/%s" % (port, os.path.basename(repo)))
            build = self.wait_build(slug)
            self.assertTrue(build["success"], (build, self.commands(build["id"])))
        finally:
            daemon.terminate()
            daemon.wait(10)


class CrashTest(PipelineCase):
    def test_kill_9_mid_build(self):
        repo = fixtures.make_repo(fixtures.commands_config("sleep 60 # " + MARK + "-crash"))
        slug = self.import_repo("Crashy", "file://" + repo)
        deadline = time.time() + self.BUILD_TIMEOUT
        while time.time() < deadline:
            b = self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"][0]
            if b["state"]["code"] == "building":
                break
            time.sleep(0.2)
        self.server.proc.send_signal(signal.SIGKILL)
        self.server.proc.wait(30)
        again = Server("--workers", "1", data=self.server.data)
        try:
            build = self.wait_build(slug, b["id"], server=again)
            # The next start leaves no process of the killed build behind.
            self.assertNoProcess(MARK + "-crash", "a build process outlived the restart")
            self.assertFalse(build["success"])
            self.assertEqual(build["error"], "Lectern stopped while this build was running; trigger it again.")
            self.assertEqual(os.listdir(os.path.join(self.server.data, "builds")) if
                             os.path.exists(os.path.join(self.server.data, "builds")) else [], [])
            db = self.db()
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            db.close()
        finally:
            self.assertEqual(again.stop(), 0, again.log())
            again.cleanup()
        # Let the class teardown see a stopped server with status 0.
        self.server.proc = subprocess.Popen(["true"])
        self.server.proc.wait()


class PublishCrashTest(PipelineCase):
    """kill -9 right after a build's publish swap (issue 27, item 14): the
    docs served are its output, so the restart records it passed and
    indexes what is served; a build killed before its swap failed and its
    output goes. On the main before this the first was reported failed
    while its output was served, with the older pages in the index."""

    def search(self, server, slug, word):
        r = server.get("/api/v2/search/?q=%s&project=%s&version=latest" % (word, slug))
        self.assertStatus(r, 200)
        return r.json["count"]

    def test_kill_9_after_the_publish_swap(self):
        repo = fixtures.make_repo({"docs/index.md": "# Home\n\nalphaword here.\n"})
        slug = self.import_repo("Swapped", "file://" + repo)
        first = self.wait_build(slug)
        self.assertTrue(first["success"], first)
        self.assertEqual(self.search(self.server, slug, "alphaword"), 1)
        self.server.proc.send_signal(signal.SIGKILL)
        self.server.proc.wait(30)
        data = self.server.data
        db = self.db()
        pid, vid = db.execute("SELECT project_id, version_id FROM builds WHERE id = ?",
                              (first["id"],)).fetchone()
        now = int(time.time()) * 1000000
        ids = []
        for _ in range(2):
            ids.append(db.execute(
                "INSERT INTO builds (project_id, version_id, state, success, commit_sha, created,"
                " started, held) VALUES (?, ?, 'uploading', 1, ?, ?, ?, 1)",
                (pid, vid, "a" * 40, now, now)).lastrowid)
        db.commit()
        db.close()
        swapped, cut = ids
        for build_id in ids:
            out = os.path.join(data, "outputs", str(build_id))
            subprocess.run(["cp", "-a", os.path.join(data, "outputs", str(first["id"])), out],
                           check=True)
            with open(os.path.join(out, "html", "index.html"), "w") as f:
                f.write("<html><body><div role=main><h1 id=home>Home</h1>"
                        "<p>omegaword %d here.</p></div></body></html>" % build_id)
        link = os.path.join(data, "published", slug, "latest")
        os.unlink(link)
        os.symlink("../../outputs/%d" % swapped, link)
        again = Server("--workers", "1", data=data)
        try:
            build = self.wait_build(slug, swapped, server=again)
            self.assertTrue(build["success"], build)
            self.assertEqual(build["state"]["code"], "finished")
            interrupted = self.wait_build(slug, cut, server=again)
            self.assertFalse(interrupted["success"])
            self.assertFalse(os.path.exists(os.path.join(data, "outputs", str(cut))))
            self.assertEqual(self.search(again, slug, "omegaword"), 1)
            self.assertEqual(self.search(again, slug, "alphaword"), 0)
            r = again.get("/en/latest/", host="%s.localhost:%d" % (slug, again.port))
            self.assertIn(b"omegaword %d" % swapped, r.body)
        finally:
            self.assertEqual(again.stop(), 0, again.log())
            again.cleanup()
        self.server.proc = subprocess.Popen(["true"])
        self.server.proc.wait()


if __name__ == "__main__":
    main()
