"""build.jobs the way the service runs them today, through a real `lectern
serve` and its worker: build.jobs.build.html (and pdf, epub, htmlzip)
replaces the generator and what the commands write to
$READTHEDOCS_OUTPUT/<format>/ is published (one file per download format,
renamed <project>.<ext>, or the build fails with the service's message);
create_environment and install replace Lectern's virtualenv and
python.install; the commands find `python` (the venv's when there is one)
and $READTHEDOCS_VIRTUALENV_PATH. A command exiting 183 skips the build:
it ends cancelled, with the service's build:user:exit-code-183
notification, no webhook, and the version's published docs as they were.
Each of these failed on the main before it (issue 32, items 1 and 2)."""
import json
import os
import subprocess
import time

import fixtures
from lectern_test import BuildTestCase, HookReceiver, main

CONF = {
    "docs/conf.py": "project = 'Jobs Fixture'\nextensions = []\n",
    "docs/index.rst": "Jobs Fixture\n============\n\nFrom Sphinx itself.\n",
}


def config(*lines):
    """A .readthedocs.yaml from its lines after `version: 2`."""
    return "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n" + \
        "\n".join(lines) + "\n"


def write_index(text):
    return ("mkdir -p $READTHEDOCS_OUTPUT/html && echo '<h1>%s</h1>' > "
            "$READTHEDOCS_OUTPUT/html/index.html" % text)


class BuildJobsCase(BuildTestCase):
    SERVER_ARGS = ("--build-timeout", "60", "--workers", "1")

    def import_files(self, name, files):
        """Import a repository made of files ({path: text}); its slug and
        its path."""
        repo = fixtures.make_repo(files)
        return self.import_repo(name, "file://" + repo), repo

    def published(self, slug, *path):
        return os.path.join(self.server.data, "published", slug, "latest", *path)

    def docs_host(self, slug):
        return "%s.localhost:%d" % (slug, self.server.port)

    def read(self, path):
        with open(path) as f:
            return f.read()

    def notifications(self, slug, build_id):
        r = self.server.get("/api/v3/projects/%s/builds/%d/notifications/" % (slug, build_id),
                            token=self.token)
        self.assertStatus(r, 200)
        return r.json["results"]

    def passes(self, slug, build_id=None):
        build = self.wait_build(slug, build_id)
        self.assertTrue(build["success"], (build, self.commands(build["id"])))
        return build


class BuildOverrideTest(BuildJobsCase):
    def test_build_html_replaces_sphinx(self):
        files = dict(CONF)
        files[".readthedocs.yaml"] = config(
            "  jobs:", "    build:", "      html:", "        - " + json.dumps(write_index("own pages")),
            "sphinx:", "  configuration: docs/conf.py")
        slug, _ = self.import_files("Own HTML", files)
        build = self.passes(slug)
        cmds = [c[0] for c in self.commands(build["id"])]
        self.assertFalse([c for c in cmds if "sphinx" in c], cmds)
        self.assertIn("own pages", self.read(self.published(slug, "html", "index.html")))
        # Still a Sphinx project: the configuration says so.
        version = self.server.get("/api/v3/projects/%s/versions/latest/" % slug,
                                  token=self.token).json
        v2 = self.server.get("/api/v2/version/%d/" % version["id"]).json
        self.assertEqual(v2["documentation_type"], "sphinx")

    def test_commands_find_python(self):
        # The service's images have `python`; Debian has only python3.
        files = dict(CONF)
        files[".readthedocs.yaml"] = config(
            "  jobs:", "    build:", "      html:",
            "        - python -m sphinx -T -b html docs $READTHEDOCS_OUTPUT/html",
            "sphinx:", "  configuration: docs/conf.py")
        slug, _ = self.import_files("Python Found", files)
        build = self.passes(slug)
        ran = [(c[0], c[2]) for c in self.commands(build["id"]) if "sphinx" in c[0]]
        self.assertEqual(ran, [("python -m sphinx -T -b html docs $READTHEDOCS_OUTPUT/html", 0)])
        self.assertIn("From Sphinx itself", self.read(self.published(slug, "html", "index.html")))

    def test_download_formats_from_commands(self):
        files = {"README.md": "# Formats\n", ".readthedocs.yaml": config(
            "  jobs:", "    build:",
            "      html:", "        - " + json.dumps(write_index("generic")),
            "      pdf:", "        - mkdir -p $READTHEDOCS_OUTPUT/pdf",
            "        - echo '%PDF-1.4 made by the project' > $READTHEDOCS_OUTPUT/pdf/manual.pdf",
            "      epub:", "        - mkdir -p $READTHEDOCS_OUTPUT/epub",
            "        - echo one > $READTHEDOCS_OUTPUT/epub/a.epub",
            "        - echo two > $READTHEDOCS_OUTPUT/epub/b.epub",
            "formats:", "  - pdf", "  - epub")}
        slug, repo = self.import_files("Own Formats", files)
        build = self.wait_build(slug)
        # Two EPUB files: the service fails the build and says why.
        self.assertFalse(build["success"])
        self.assertIn('format "epub" contains multiple files', build["error"])
        ids = [n["message"]["id"] for n in self.notifications(slug, build["id"])]
        self.assertEqual(ids, ["build:user:output:has-multiple-files"])
        with open(os.path.join(repo, ".readthedocs.yaml"), "w") as f:
            f.write(files[".readthedocs.yaml"].replace(
                "        - echo two > $READTHEDOCS_OUTPUT/epub/b.epub\n", ""))
        fixtures.git(repo, "commit", "-qam", "one epub")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, {},
                             token=self.token)
        self.assertStatus(r, 202)
        build = self.passes(slug, r.json["build"]["id"])
        self.assertIn("made by the project", self.read(self.published(slug, "pdf", slug + ".pdf")))
        self.assertEqual(self.read(self.published(slug, "epub", slug + ".epub")), "one\n")
        version = self.server.get("/api/v3/projects/%s/versions/latest/" % slug,
                                  token=self.token).json
        self.assertEqual(sorted(version["downloads"]), ["epub", "pdf"])
        r = self.server.get("/_/downloads/en/latest/pdf/", host=self.docs_host(slug))
        self.assertStatus(r, 200)
        self.assertIn(b"made by the project", r.body)

    def test_empty_format_directory_fails(self):
        files = {"README.md": "# Empty\n", ".readthedocs.yaml": config(
            "  jobs:", "    build:",
            "      html:", "        - " + json.dumps(write_index("generic")),
            "      htmlzip:", "        - mkdir -p $READTHEDOCS_OUTPUT/htmlzip",
            "formats:", "  - htmlzip")}
        slug, _ = self.import_files("Empty Zip", files)
        build = self.wait_build(slug)
        self.assertFalse(build["success"])
        self.assertIn('format "htmlzip" does not contain any files', build["error"])
        ids = [n["message"]["id"] for n in self.notifications(slug, build["id"])]
        self.assertEqual(ids, ["build:user:output:has-0-files"])


class EnvironmentOverrideTest(BuildJobsCase):
    def test_create_environment_and_install(self):
        files = dict(CONF)
        files["requirements.txt"] = "this-package-does-not-exist-anywhere\n"
        files[".readthedocs.yaml"] = config(
            "  jobs:",
            "    create_environment:",
            "      - python -m venv --system-site-packages --without-pip $READTHEDOCS_VIRTUALENV_PATH",
            "    install:",
            "      - echo installed-by-project > $READTHEDOCS_VIRTUALENV_PATH/marker",
            "    pre_build:",
            "      - cat $READTHEDOCS_VIRTUALENV_PATH/marker",
            "      - command -v python",
            "sphinx:", "  configuration: docs/conf.py",
            # Would fail the build if Lectern installed it.
            "python:", "  install:", "    - requirements: requirements.txt")
        slug, _ = self.import_files("Own Environment", files)
        build = self.passes(slug)
        rows = self.commands(build["id"])
        cmds = [c[0] for c in rows]
        self.assertFalse([c for c in cmds if "pip install" in c or "pip wheel" in c], cmds)
        out = {c[0]: c[1] for c in rows}
        self.assertIn("installed-by-project", out["cat $READTHEDOCS_VIRTUALENV_PATH/marker"])
        # The generator and the commands run with the venv the project made.
        self.assertRegex(out["command -v python"].strip(), r"/python/.+/venvs/latest/bin/python$")
        self.assertIn("From Sphinx itself", self.read(self.published(slug, "html", "index.html")))
        # The venv outlives the build: `python` named the interpreter, not
        # a link into the build's directory (gone now), so the version's
        # warm generator started with it and the next build reuses it.
        venv_python = out["command -v python"].strip()
        self.assertEqual(subprocess.run([venv_python, "-c", "pass"]).returncode, 0)
        self.assertNotIn("no warm generator:", build["cache"]["generator"]["reason"])
        again = self.build_latest(slug)
        self.assertTrue(again["success"], again)
        self.assertTrue(again["cache"]["generator"]["reused"], again["cache"])

    def test_install_override_gets_lecterns_venv(self):
        files = dict(CONF)
        files[".readthedocs.yaml"] = config(
            "  jobs:",
            "    install:",
            "      - python -c 'import sys; print(\"prefix\", sys.prefix)'",
            "sphinx:", "  configuration: docs/conf.py")
        slug, _ = self.import_files("Own Install", files)
        build = self.passes(slug)
        rows = self.commands(build["id"])
        cmds = [c[0] for c in rows]
        self.assertIn("python -m venv --system-site-packages --without-pip "
                      "$READTHEDOCS_VIRTUALENV_PATH", cmds)
        out = [c[1] for c in rows if c[0].startswith("python -c")][0]
        self.assertRegex(out, r"prefix .+/python/.+/venvs/latest")

    def test_create_environment_that_makes_nothing(self):
        files = dict(CONF)
        files["requirements.txt"] = "\n"
        files[".readthedocs.yaml"] = config(
            "  jobs:", "    create_environment:", "      - echo not making one",
            "sphinx:", "  configuration: docs/conf.py",
            "python:", "  install:", "    - requirements: requirements.txt")
        slug, _ = self.import_files("No Environment", files)
        build = self.wait_build(slug)
        self.assertFalse(build["success"])
        self.assertIn("$READTHEDOCS_VIRTUALENV_PATH", build["error"])


class SkipTest(BuildJobsCase):
    # The receiver is on loopback, which an administrator must allow.
    SERVER_ARGS = BuildJobsCase.SERVER_ARGS + ("--webhook-allow", "127.0.0.0/8")

    def test_exit_183_skips_and_keeps_the_docs(self):
        receiver = HookReceiver()
        self.addCleanup(receiver.close)
        files = {"README.md": "# Skip\n",
                 ".readthedocs.yaml": config("  jobs:", "    build:", "      html:",
                                             "        - " + json.dumps(write_index("first")))}
        slug, repo = self.import_files("Skipper", files)
        self.passes(slug)
        index = self.published(slug, "html", "index.html")
        self.assertIn("first", self.read(index))
        r = self.server.post("/api/v3/projects/%s/webhooks/" % slug,
                             {"url": receiver.url, "events": ["build:failed", "build:passed"]},
                             token=self.token)
        self.assertStatus(r, 201)
        # The project's own check: nothing under docs/ changed, skip.
        with open(os.path.join(repo, ".readthedocs.yaml"), "w") as f:
            f.write(config("  jobs:", "    post_checkout:", "      - echo nothing to do; exit 183",
                           "    build:", "      html:",
                           "        - " + json.dumps(write_index("second"))))
        fixtures.git(repo, "commit", "-qam", "skip me")
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, {},
                             token=self.token)
        self.assertStatus(r, 202)
        build = self.wait_build(slug, r.json["build"]["id"])
        self.assertEqual(build["state"]["code"], "cancelled", build)
        self.assertFalse(build["success"])
        self.assertIn("exited with code 183", build["error"])
        notes = self.notifications(slug, build["id"])
        self.assertEqual([n["message"]["id"] for n in notes], ["build:user:exit-code-183"])
        self.assertEqual(notes[0]["message"]["type"], "info")
        self.assertEqual(notes[0]["message"]["header"], "Build skipped.")
        # The last published docs stay.
        self.assertIn("first", self.read(index))
        r = self.server.get("/en/latest/", host=self.docs_host(slug))
        self.assertStatus(r, 200)
        self.assertIn(b"first", r.body)
        # A skip is no failure: the project is not told its version fails.
        r = self.server.get("/api/v3/projects/%s/notifications/" % slug, token=self.token)
        self.assertStatus(r, 200)
        self.assertEqual([n["message"]["id"] for n in r.json["results"]], [])
        time.sleep(1)
        self.assertEqual([p for p in receiver.received if p.get("build", {}).get("id") == build["id"]],
                         [])


if __name__ == "__main__":
    main()
