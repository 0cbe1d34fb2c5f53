"""The build sandbox against a hostile build, through a real `lectern serve`
(issue 14, findings 1, 4 and 5), with real builds whose commands attack:

- reading the host: /etc/shadow, /root, the data directory and its
  lectern.db, a root-only file, and the checkout of another project's build
  running at the same time; the build runs as a non-root uid on the host;
- publishing the host: copies of host files and symbolic links out of the
  output (to a host file, a host directory, another project's published
  docs, absolute and relative); nothing of them is published or served;
- secrets in `ps`: while a build carrying a private variable runs, no
  process's command line shows its value, and the log masks it, plain and
  URL-encoded;
- limits: processes, the build directory's size, /tmp and a single file's
  size, each set small with its serve option; the fork bomb and the fillers
  stop themselves at twice the limit, so without limits they only fail.

Tests run as root (as in CI), so every read the sandbox must refuse would
succeed without it."""
import os
import sqlite3
import time
import unittest

import fixtures
from lectern_test import ServerTestCase, Store, main

# A build of a tiny project takes well under this even under ASan.
BUILD_TIMEOUT = 180
# Marks this run's builds, their files and their processes.
MARK = "lectern-sbx-%d" % os.getpid()
# Planted where only root may read; no build log or published file may
# ever contain these.
ROOT_MARK = MARK + "-root-only"
DATA_MARK = MARK + "-data-dir"
OTHER_MARK = MARK + "-other-checkout"
VICTIM_MARK = MARK + "-other-project-docs"
# A secret whose URL-encoded form differs from it (space, @, &, =, +).
SECRET = "Sekr3t p@ss&w=rd+" + MARK
ENCODED = "Sekr3t%20p%40ss%26w%3Drd%2B" + MARK
# The limits, small; each attack goes to twice its limit and stops.
PROCESSES, DISK_MIB, TMP_MIB, FILE_MIB = 32, 20, 8, 4

# Forks up to twice the process limit, each child sleeping, and says how
# many it got; then it kills them.
FORK_PY = """import os, sys, time
kids, failure = [], None
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except OSError as e:
        failure = e
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
print("forked %d; failure: %s" % (len(kids), failure))
for pid in kids:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
"""

# Writes 1 MiB files into the checkout, slowly enough for the watchdog
# (which measures once a second), up to twice the disk limit.
FILL_PY = """import os, sys, time
for i in range(int(sys.argv[1])):
    with open("fill%d.bin" % i, "wb") as f:
        f.write(b"x" * (1 << 20))
        f.flush()
        os.fsync(f.fileno())
    print("wrote %d MiB" % (i + 1), flush=True)
    time.sleep(0.1)
print("filled without a limit")
"""


# The page every successful build needs.
INDEX = "mkdir -p $READTHEDOCS_OUTPUT/html && echo ok > $READTHEDOCS_OUTPUT/html/index.html"


def processes():
    """(command line, /proc/PID/status) of every process on the host."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ")
                with open("/proc/%s/status" % pid) as f:
                    found.append((cmdline, f.read()))
            except OSError:
                pass
    return found


def probe(command):
    """A command that always succeeds and ends its output with the exit
    status of `command`, so one build can try several things."""
    return "%s; echo exit=$?" % command


def exit_status(output):
    """The status probe() printed last."""
    lines = [l for l in output.splitlines() if l.startswith("exit=")]
    return int(lines[-1][5:]) if lines else None


@unittest.skipUnless(os.geteuid() == 0, "the attacks are meaningful against a root server only")
class SandboxTest(ServerTestCase):
    SERVER_ARGS = ("--workers", "2", "--build-timeout", "60",
                   "--build-processes", str(PROCESSES), "--build-disk", str(DISK_MIB),
                   "--build-tmp", str(TMP_MIB), "--build-file-size", str(FILE_MIB))

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.token = cls.server.token("mallory")
        cls.store = Store(cls.server)
        # Something only root can read in the data directory, and another
        # project's published docs (the target of links out of an output).
        with open(os.path.join(cls.server.data, "marker.txt"), "w") as f:
            f.write(DATA_MARK)
        os.chmod(os.path.join(cls.server.data, "marker.txt"), 0o600)
        cls.store.publish("victim", "latest", {"secret.html": VICTIM_MARK})
        with open("/etc/shadow") as f:
            cls.shadow = [l.strip() for l in f if l.strip()]

    # Helpers.

    def import_repo(self, name, files):
        repo = fixtures.make_repo(files)
        r = self.server.post("/api/v3/projects/", {"name": name, "repository": {"url": "file://" + repo}},
                             token=self.token)
        self.assertStatus(r, 201)
        return r.json["slug"]

    def builds(self, slug):
        return self.server.get("/api/v3/projects/%s/builds/" % slug, token=self.token).json["results"]

    def wait_build(self, slug, build_id=None, states=("finished", "cancelled")):
        deadline = time.time() + BUILD_TIMEOUT
        while time.time() < deadline:
            build = next((b for b in self.builds(slug) if build_id in (None, b["id"])), None)
            if build and build["state"]["code"] in states:
                return build
            time.sleep(0.1)
        self.fail("build of %s did not reach %s" % (slug, states))

    def commands(self, build_id):
        """{command: (output, exit code)} of a build, from the database."""
        db = sqlite3.connect(os.path.join(self.server.data, "lectern.db"), timeout=30)
        rows = db.execute("SELECT command, output, exit_code FROM build_commands WHERE build_id = ? "
                          "ORDER BY id", (build_id,)).fetchall()
        db.close()
        return {c: (o or "", e) for c, o, e in rows}

    def assertLogClean(self, build_id, *secrets):
        """None of these strings (nor a line of /etc/shadow) is in any
        command or output of the build's log."""
        for command, (output, _) in self.commands(build_id).items():
            for s in list(secrets) + self.shadow:
                self.assertNotIn(s, command)
                self.assertNotIn(s, output, command)

    def docs(self, slug, path):
        return self.server.get(path, host="%s.localhost:%d" % (slug, self.server.port))

    # Finding 1: a build reads nothing of the host.

    def test_build_reads_nothing_of_the_host_nor_other_builds(self):
        data = self.server.data
        # A: waits for a root-only file the test plants in its own checkout,
        # tries to read it, then runs long enough for B to look for it.
        a = self.import_repo("Other", fixtures.commands_config(
            "echo %s > other.txt && touch ready" % OTHER_MARK,
            "until test -e planted; do sleep 0.1; done",
            probe("cat root-only.txt"),
            "sleep 60 # %s-other" % MARK))
        a_build = self.wait_build(a, states=("building",))
        cancel_a = "/api/v3/projects/%s/builds/%d/cancel/" % (a, a_build["id"])
        # Whatever fails below, A does not hold a worker for the next tests.
        self.addCleanup(self.server.post, cancel_a, token=self.token)
        checkout = os.path.join(data, "checkouts", a, "latest")
        deadline = time.time() + BUILD_TIMEOUT
        while not os.path.exists(os.path.join(checkout, "ready")):
            self.assertLess(time.time(), deadline, "the other build never started its commands")
            time.sleep(0.1)
        root_only = os.path.join(checkout, "root-only.txt")
        with open(root_only, "w") as f:
            f.write(ROOT_MARK)
        os.chmod(root_only, 0o600)
        open(os.path.join(checkout, "planted"), "w").close()

        # B, while A runs: every way in that the old sandbox left open.
        a_dir = os.path.join(data, "builds", str(a_build["id"]))
        probes = [
            "id -u",
            probe("cat /etc/shadow"),
            probe("ls /etc"),
            probe("ls -a /root"),
            probe("cat /root/.bash_history /root/.profile"),
            probe("cat %s/lectern.db" % data),
            probe("cat %s/marker.txt" % data),
            probe("ls %s" % data),
            probe("ls %s/builds" % data),
            probe("ls -R %s" % a_dir),
            probe("cat %s/other.txt" % checkout),
            probe("cat /proc/*/root%s/other.txt" % checkout),
            probe("ls /home /srv /var"),
        ]
        if os.path.isdir("/etc/ssl/private"):
            probes.append(probe("ls /etc/ssl/private"))  # root-only on the host
        b = self.import_repo("Nosy", fixtures.commands_config(*probes, INDEX))
        b_build = self.wait_build(b)
        log = self.commands(b_build["id"])
        # Every probe ran (the build succeeded: each one reports its status).
        self.assertTrue(b_build["success"], (b_build, log))

        # The build runs as a non-root uid; on the host, A's processes
        # (bubblewrap and the sleeping command) are the build user's.
        self.assertNotEqual(log["id -u"][0].strip(), "0", log)
        sleepers = [status for cmdline, status in processes() if (MARK + "-other").encode() in cmdline]
        self.assertTrue(sleepers, "the other build's processes were not found")
        for status in sleepers:
            ids = [line.split()[1:] for line in status.splitlines() if line.startswith(("Uid:", "Gid:"))]
            self.assertEqual(len(ids), 2, status)
            for real, effective, saved, fs in ids:
                self.assertEqual({real, effective, saved, fs}, {"65534"}, status)

        for p in probes[1:]:
            if p.startswith("ls /etc;") or p.startswith("ls %s;" % data) or \
                    p.startswith("ls %s/builds;" % data):
                continue
            self.assertNotEqual(exit_status(log[p][0]), 0, (p, log[p]))
        # /etc is the short list: no shadow, no hostname.
        etc = log[probe("ls /etc")][0].split()
        self.assertNotIn("shadow", etc)
        self.assertNotIn("hostname", etc)
        # The data directory shows nothing but the way to the build's own
        # directory: no database, no other build.
        self.assertNotIn("lectern.db", log[probe("ls %s" % data)][0])
        listed = log[probe("ls %s/builds" % data)][0].split()
        self.assertNotIn(str(a_build["id"]), listed)
        self.assertIn(str(b_build["id"]), listed)
        self.assertLogClean(b_build["id"], DATA_MARK, OTHER_MARK, ROOT_MARK, "SQLite format")

        # A itself could not read the root-only file in its own checkout.
        r = self.server.post(cancel_a, token=self.token)
        self.assertStatus(r, 202)
        self.wait_build(a, a_build["id"])
        a_log = self.commands(a_build["id"])
        self.assertNotEqual(exit_status(a_log[probe("cat root-only.txt")][0]), 0, a_log)
        self.assertLogClean(a_build["id"], ROOT_MARK)

    # Finding 1: a build publishes nothing of the host.

    def test_published_output_keeps_nothing_of_the_host(self):
        data = self.server.data
        victim = os.path.join(data, "published", "victim", "latest", "html")
        html = "$READTHEDOCS_OUTPUT/html"
        copies = [probe("cp /etc/shadow %s/shadow.txt" % html),
                  probe("cp /etc/hostname %s/hostname.txt" % html),
                  probe("cp %s/marker.txt %s/marker.txt" % (data, html))]
        slug = self.import_repo("Publisher", fixtures.commands_config(
            "mkdir -p %s/sub" % html,
            "echo '<h1>published %s</h1>' > %s/index.html" % (MARK, html),
            *copies,
            "ln -s /etc/passwd %s/passwd.txt" % html,
            "ln -s /etc/shadow %s/sub/shadow.txt" % html,
            "ln -s /etc %s/etc" % html,
            "ln -s /root %s/root" % html,
            "ln -s %s/secret.html %s/victim.html" % (victim, html),
            "ln -s %s %s/victim" % (victim, html),
            # Relative: dangling in the sandbox, but from the published
            # <data>/outputs/<id>/html/ it would reach the victim's docs.
            "ln -s ../../../published/victim/latest/html/secret.html %s/relative.html" % html,
            "ln -s ../../../published/victim/latest/html %s/relative" % html,
            "ln -s ../../../marker.txt %s/data-marker.txt" % html))
        build = self.wait_build(slug)
        log = self.commands(build["id"])
        self.assertTrue(build["success"], (build, log))
        for command in copies:
            self.assertNotEqual(exit_status(log[command][0]), 0, (command, log[command]))
        self.assertLogClean(build["id"], DATA_MARK, VICTIM_MARK)

        # On disk: regular files and directories only, none of the host's.
        root = os.path.join(data, "published", slug, "latest", "html")
        found = []
        for path, dirs, files in os.walk(root):
            for name in dirs + files:
                full = os.path.join(path, name)
                self.assertFalse(os.path.islink(full), "a link was published: %s" % full)
                found.append(os.path.relpath(full, root))
                if os.path.isfile(full):
                    with open(full, "rb") as f:
                        content = f.read()
                    for secret in [DATA_MARK, VICTIM_MARK] + self.shadow:
                        self.assertNotIn(secret.encode(), content, full)
        self.assertEqual(sorted(found), ["index.html", "sub"])

        # Over HTTP, on the docs host: the page, and nothing else.
        r = self.docs(slug, "/en/latest/")
        self.assertStatus(r, 200)
        self.assertIn(MARK.encode(), r.body)
        for path in ("shadow.txt", "hostname.txt", "marker.txt", "passwd.txt", "sub/shadow.txt",
                     "etc/passwd", "etc/hostname", "root/", "victim.html", "victim/secret.html",
                     "relative.html", "relative/secret.html", "data-marker.txt"):
            r = self.docs(slug, "/en/latest/" + path)
            self.assertEqual(r.status, 404, (path, r))
            for secret in [DATA_MARK, VICTIM_MARK] + self.shadow:
                self.assertNotIn(secret.encode(), r.body, path)

    def test_checkout_swapped_for_a_link_publishes_nothing_of_another_build(self):
        """The checkout is the build user's, so a build can replace its
        output directory with a link to another project's running build;
        the server (root) must not publish through it (rename() would
        follow the link: O_NOFOLLOW guards only a path's last component),
        so the path down to the output is checked to be real directories
        once no process of the build runs."""
        victim = self.import_repo("Robbed", fixtures.commands_config(
            "mkdir -p $READTHEDOCS_OUTPUT/html && echo %s > $READTHEDOCS_OUTPUT/html/index.html"
            % VICTIM_MARK, "sleep 60 # %s-robbed" % MARK))
        v_build = self.wait_build(victim, states=("building",))
        victim_output = os.path.join(self.server.data, "checkouts", victim, "latest",
                                     "_readthedocs")
        index = os.path.join(victim_output, "html", "index.html")
        deadline = time.time() + BUILD_TIMEOUT
        while not os.path.exists(index):
            self.assertLess(time.time(), deadline)
            time.sleep(0.1)
        try:
            thief = self.import_repo("Thief", fixtures.commands_config(
                'cd / && mkdir -p $READTHEDOCS_OUTPUT && mv $READTHEDOCS_OUTPUT $HOME/real && '
                'ln -s %s $READTHEDOCS_OUTPUT' % victim_output))
            self.wait_build(thief)
            r = self.docs(thief, "/en/latest/")
            self.assertNotIn(VICTIM_MARK.encode(), r.body)
            self.assertTrue(os.path.exists(index), "the other build's output was taken")
        finally:
            self.server.post("/api/v3/projects/%s/builds/%d/cancel/" % (victim, v_build["id"]),
                             token=self.token)
            self.wait_build(victim, v_build["id"])

    def test_format_directory_swapped_for_a_link_publishes_nothing_of_the_host(self):
        """Sphinx writes a format into <build>/epub, which the build user
        owns; its conf.py, at the end of the run, puts a link there to
        another project's private EPUB under <data>/outputs/. The server
        (root) must not look through the link and rename() what it finds
        into this project's downloads."""
        loot = os.path.join(self.server.data, "outputs", "999999", "epub")
        os.makedirs(loot)
        with open(os.path.join(loot, "private.epub"), "w") as f:
            f.write(VICTIM_MARK)
        files = dict(fixtures.SPHINX)
        files[".readthedocs.yaml"] = ("version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
                                      "    python: '3.12'\nsphinx:\n  configuration: docs/conf.py\n"
                                      "formats:\n  - epub\n")
        files["docs/conf.py"] = (
            "import os\nproject = 'Swapper'\n"
            "def swap(app, exc):\n"
            "    if app.builder.name == 'epub':\n"
            "        out = str(app.outdir).rstrip('/')\n"
            "        data = os.path.dirname(os.path.dirname(os.environ['HOME']))\n"
            "        os.rename(out, out + '.old')\n"
            "        os.symlink(os.path.join(data, 'outputs', '999999', 'epub'), out)\n"
            "def setup(app):\n"
            "    app.connect('build-finished', swap)\n")
        slug = self.import_repo("Swapper", files)
        self.wait_build(slug)
        r = self.docs(slug, "/_/downloads/en/latest/epub/")
        self.assertNotIn(VICTIM_MARK.encode(), r.body)
        self.assertEqual(os.listdir(loot), ["private.epub"])

    # Finding 4: secrets never on a command line.

    def test_secret_is_in_no_command_line_and_masked_in_the_log(self):
        name = "LECTERN_SBX_SECRET"
        quote = ("python3 -c \"import urllib.parse, os; "
                 "print('quoted=' + urllib.parse.quote(os.environ.get('%s', 'unset')))\"" % name)
        # With the secret set, a command holds while the checkout has the
        # file hold: the test removes it once it has seen the command run.
        files = fixtures.commands_config(
            quote,
            "echo \"plain=$%s\"" % name,
            "test -z \"$%s\" || { i=0; while [ -e hold ] && [ $i -lt 900 ]; do sleep 0.1; "
            "i=$((i + 1)); done; } # %s-secret" % (name, MARK),
            INDEX)
        files["hold"] = "the build holds while this is in its checkout\n"
        slug = self.import_repo("Secretive", files)
        self.wait_build(slug)
        r = self.server.post("/api/v3/projects/%s/environmentvariables/" % slug,
                             {"name": name, "value": SECRET}, token=self.token)
        self.assertStatus(r, 201)
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        self.assertStatus(r, 202)
        build_id = r.json["build"]["id"]

        # ps, as root: every process's command line, until the build ends.
        hold = os.path.join(self.server.data, "checkouts", slug, "latest", "hold")
        seen_build = seen_bwrap = False
        held = 0
        deadline = time.time() + BUILD_TIMEOUT
        while True:
            for cmdline, _ in processes():
                self.assertNotIn(SECRET.encode(), cmdline, cmdline)
                self.assertNotIn(ENCODED.encode(), cmdline, cmdline)
                if (MARK + "-secret").encode() in cmdline:
                    seen_build = True
                    seen_bwrap = seen_bwrap or b"bwrap" in cmdline
            # Looked at a while (20 scans) as it ran: it may end.
            held += seen_bwrap
            if held == 20:
                os.unlink(hold)
            state = self.server.get("/api/v3/projects/%s/builds/%d/" % (slug, build_id),
                                    token=self.token).json["state"]["code"]
            if state in ("finished", "cancelled"):
                break
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        self.assertTrue(seen_build, "the build's sleeping command was never seen running")
        self.assertTrue(seen_bwrap, "the sleeping command did not run under bubblewrap")

        build = self.wait_build(slug, build_id)
        log = self.commands(build_id)
        self.assertTrue(build["success"], (build, log))
        self.assertLogClean(build_id, SECRET, ENCODED)
        self.assertEqual(log[quote][0], "quoted=" + "*" * len(ENCODED) + "\n")
        self.assertEqual(log["echo \"plain=$%s\"" % name][0], "plain=" + "*" * len(SECRET) + "\n")

    def test_secret_masked_in_pythons_default_url_encoding(self):
        """urllib.parse.quote keeps '/' by default (safe='/'), and
        quote_plus writes a space as '+': every such encoding of a secret
        (with a '/', as base64 keys often have) is masked too."""
        name = "LECTERN_SBX_SLASHED"
        value = "ab/cd+ef gh==" + MARK
        quote = ("python3 -c \"import urllib.parse, os; "
                 "print(urllib.parse.quote(os.environ.get('%s', 'unset')))\"" % name)
        slug = self.import_repo("Slashed", fixtures.commands_config(quote, INDEX))
        self.wait_build(slug)
        r = self.server.post("/api/v3/projects/%s/environmentvariables/" % slug,
                             {"name": name, "value": value}, token=self.token)
        self.assertStatus(r, 201)
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug, token=self.token)
        build = self.wait_build(slug, r.json["build"]["id"])
        output = self.commands(build["id"])[quote][0]
        self.assertNotIn(MARK, output)

    # Finding 5: limits on processes, disk, /tmp and a file's size.

    def test_processes_tmp_and_file_size_are_capped(self):
        files = fixtures.commands_config(
            "python3 fork.py %d" % (2 * PROCESSES),
            probe("(for i in $(seq %d); do head -c 1048576 /dev/zero > /tmp/f$i || exit 1; done)"
                  % (2 * TMP_MIB)),
            probe("head -c %d /dev/zero > big.bin" % (2 * FILE_MIB << 20)),
            "stat -c size=%s big.bin",
            INDEX)
        files["fork.py"] = FORK_PY
        slug = self.import_repo("Greedy", files)
        build = self.wait_build(slug)
        log = self.commands(build["id"])
        self.assertTrue(build["success"], (build, log))
        forked = log["python3 fork.py %d" % (2 * PROCESSES)][0]
        self.assertRegex(forked, r"^forked \d+; failure: .*Resource temporarily unavailable", forked)
        self.assertLess(int(forked.split()[1].rstrip(";")), PROCESSES, forked)

        tmp = [o for c, (o, _) in log.items() if "/tmp/f$i" in c][0]
        self.assertIn("No space left on device", tmp)
        self.assertNotEqual(exit_status(tmp), 0, tmp)

        big = [o for c, (o, _) in log.items() if "big.bin" in c and c.startswith("head")][0]
        self.assertNotEqual(exit_status(big), 0, big)
        size = int(log["stat -c size=%s big.bin"][0].strip()[5:])
        self.assertLessEqual(size, FILE_MIB << 20)

    def test_disk_is_capped(self):
        files = fixtures.commands_config("python3 fill.py %d" % (2 * DISK_MIB))
        files["fill.py"] = FILL_PY
        slug = self.import_repo("Filler", files)
        build = self.wait_build(slug)
        log = self.commands(build["id"])
        self.assertFalse(build["success"], (build, log))
        self.assertEqual(build["error"], 'The build used more disk than the limit of %d MiB '
                         '(command "python3 fill.py %d").' % (DISK_MIB, 2 * DISK_MIB))
        output = log["python3 fill.py %d" % (2 * DISK_MIB)][0]
        self.assertNotIn("filled without a limit", output)


if __name__ == "__main__":
    main()
