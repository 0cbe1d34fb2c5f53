"""The install step's network (issue 27, item 9), through a real root
`lectern serve` with a build worker: repository code and pip reach the
network only through the engine's egress proxy, which refuses the host's
loopback and local network and lets through the package index the
server's administrator configured.

A listener on every address of the host (its loopback and its own
non-loopback address) and on an abstract unix socket records whatever
reaches it; every build here tries to reach it and it must hear nothing, while the packages the builds need
come from an index served over HTTP on 127.0.0.1, allowed because the
server's own PIP_* environment names it.

- A repository whose setup.py (python.install: path: .) connects to the
  listener directly (and to its abstract socket) and through the proxy (a CONNECT tunnel and a plain
  request) during the install step: it reaches nothing, and pip still
  installs the project's requirement from the administrator's find-links
  over HTTP, through the proxy.
- A project variable PIP_INDEX_URL naming the listener, and requirement
  lines (--extra-index-url, a direct URL on the host's address) naming
  it: pip is refused, the build says so, the listener hears nothing.
- The index a pip.conf of the server's names is allowed; a project's
  --extra-index-url beside it is not.

Each fails on a Lectern whose install step ran with the host's network."""
import glob
import http.server
import os
import shutil
import socket
import tempfile
import threading
import time
import unittest

import fixtures
from lectern_test import BuildTestCase, Server, main
from test_realrepo import write_wheel

DEP = "lectern-egress-dep"
MARK = "egress-mark-%d" % os.getpid()
DEP_MODULE = {"lectern_egress_dep/__init__.py": "MARK = %r\n" % MARK}


def host_address():
    """The host's own address on its default route (not loopback), or
    None: where a service of the local network would be reached."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


class Listener:
    """A TCP listener on every IPv4 address of the host, and one on an
    abstract unix socket (ABSTRACT, which a network namespace of its own
    does not see), recording each connection and its first bytes."""

    ABSTRACT = "\0lectern-egress-test-%d" % os.getpid()

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.ABSTRACT)
        self.unix.listen(16)
        self.heard = []
        for sock in (self.sock, self.unix):
            threading.Thread(target=self.run, args=(sock,), daemon=True).start()

    def run(self, sock):
        while True:
            try:
                conn, peer = sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                data = conn.recv(200)
            except OSError:
                data = b""
            self.heard.append((peer, data))
            conn.close()

    def close(self):
        for sock in (self.sock, self.unix):
            # Wakes the accept, which would hold the socket (and its name).
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()


class Index:
    """The administrator's package index: a find-links directory (links/)
    and a simple index (simple/) served over HTTP on 127.0.0.1, recording
    the paths asked for."""

    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "links"))
        wheel = os.path.basename(write_wheel(os.path.join(root, "links"), DEP, DEP_MODULE))
        os.makedirs(os.path.join(root, "simple", DEP))
        with open(os.path.join(root, "simple", DEP, "index.html"), "w") as f:
            f.write('<html><body><a href="../../links/%s">%s</a></body></html>\n' % (wheel, wheel))
        self.paths = []
        index = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kw):
                super().__init__(*args, directory=root, **kw)

            def do_GET(self):
                index.paths.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path):
        return "http://127.0.0.1:%d/%s" % (self.port, path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# A Sphinx project whose conf.py imports the requirement: the build passes
# only if pip installed it.
def sphinx_project(install):
    return {
        ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
                             "    python: \"3.12\"\nsphinx:\n  configuration: docs/conf.py\n"
                             "python:\n  install:\n%s" % install,
        "docs/conf.py": "import lectern_egress_dep\nproject = 'Egress'\n"
                        "rst_prolog = '.. |mark| replace:: ' + lectern_egress_dep.MARK\n",
        "docs/index.rst": "Egress\n======\n\nThe requirement says |mark|.\n",
    }


# setup.py of the hostile repository: while pip runs it, it tries the
# listener on each target directly and on its abstract unix socket, then
# through the proxy pip was given (a tunnel, and a plain request), and
# appends what happened to a file of the checkout.
SETUP_PY = r'''import http.client, os, socket
from setuptools import setup

PORT = %d
TARGETS = %r
proxy = os.environ.get("HTTP_PROXY", "")
log = ["run proxy=%%s" %% bool(proxy)]
try:
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.connect(%r)
    unix.sendall(b"setup.py abstract\n")
    log.append("abstract CONNECTED")
except OSError as e:
    log.append("abstract refused: %%s" %% e)
for host in TARGETS:
    try:
        socket.create_connection((host, PORT), timeout=5).sendall(b"setup.py direct\n")
        log.append("direct %%s CONNECTED" %% host)
    except OSError as e:
        log.append("direct %%s refused: %%s" %% (host, e))
    if not proxy:
        continue
    phost, pport = proxy[len("http://"):].rsplit(":", 1)
    try:
        c = http.client.HTTPConnection(phost, int(pport), timeout=10)
        c.set_tunnel(host, PORT)
        c.request("GET", "/tunnel")
        log.append("tunnel %%s CONNECTED %%s" %% (host, c.getresponse().status))
    except OSError as e:
        log.append("tunnel %%s refused: %%s" %% (host, e))
    try:
        c = http.client.HTTPConnection(phost, int(pport), timeout=10)
        c.request("GET", "http://%%s:%%d/plain" %% (host, PORT))
        status = c.getresponse().status
        log.append("plain %%s %%s %%s" %% (host, "refused:" if status == 403 else "CONNECTED", status))
    except OSError as e:
        log.append("plain %%s refused: %%s" %% (host, e))
with open(os.path.join(os.environ["READTHEDOCS_REPOSITORY_PATH"], "egress-probe.txt"), "a") as f:
    f.write("\n".join(log) + "\n")
setup(name="egress-victim", version="1.0", py_modules=[], install_requires=[%r])
'''


@unittest.skipUnless(os.geteuid() == 0, "the builds run as a build user under a root server")
class EgressCase(BuildTestCase):
    """A server with a build worker whose environment names the test's
    index (SERVER_ENV, with INDEX for the index's URL), and the listener."""
    SERVER_ENV = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lectern-egress-")
        os.chmod(cls.tmp, 0o755)
        cls.index = Index(os.path.join(cls.tmp, "index"))
        cls.listener = Listener()
        cls.targets = ["127.0.0.1"] + ([host_address()] if host_address() else [])
        env = {k: v.replace("INDEX/", cls.index.url("")) for k, v in cls.SERVER_ENV.items()}
        env.update(PIP_RETRIES="0", PIP_TIMEOUT="10")
        cls.server = Server("--workers", "1", "--build-timeout", "180", env=env)
        cls.token = cls.server.token("mallory")

    @classmethod
    def tearDownClass(cls):
        cls.listener.close()
        cls.index.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        super().tearDownClass()

    def setUp(self):
        self.listener.heard.clear()

    def build_repo(self, name, files):
        """Import a repository of files (kept as self.repo); its first
        build once ended."""
        self.repo = fixtures.make_repo(files)
        slug = self.import_repo(name, "file://" + self.repo)
        return slug, self.wait_build(slug)

    def rebuild(self, slug):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.token)
        self.assertStatus(r, 202)
        return self.wait_build(slug, r.json["build"]["id"])

    def log(self, build):
        return (build["error"] or "") + "\n" + "\n".join(
            c + "\n" + o for c, o, _ in self.commands(build["id"]))

    def assertHeardNothing(self):
        # A connection the build opened may reach the listener a moment
        # after the build ends.
        time.sleep(0.5)
        self.assertEqual(self.listener.heard, [], "the build reached the host's listener")

    def assertRefusedInLog(self, build):
        wheel = [o for c, o, _ in self.commands(build["id"]) if c.startswith("python -m pip wheel")]
        self.assertTrue(wheel, self.log(build))
        self.assertTrue(any("the egress proxy refused" in o for o in wheel), self.log(build))


class SetupPyTest(EgressCase):
    # The administrator's wheels as find-links over HTTP; no index, so pip
    # builds the project with the machine's setuptools.
    SERVER_ENV = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "INDEX/links/"}

    def test_setup_py_reaches_nothing_of_the_host_and_pip_installs_through_the_proxy(self):
        files = sphinx_project("    - path: .\n")
        files["setup.py"] = SETUP_PY % (self.listener.port, self.targets, Listener.ABSTRACT, DEP)
        slug, build = self.build_repo("Egress Setup", files)
        self.assertHeardNothing()
        self.assertTrue(build["success"], self.log(build))
        # The requirement came from the index, over HTTP, through the proxy.
        self.assertIn("/links/lectern_egress_dep-1.0-py3-none-any.whl", self.index.paths)
        page = os.path.join(self.server.data, "published", slug, "latest", "html", "index.html")
        with open(page) as f:
            self.assertIn(MARK, f.read())
        # setup.py ran with the proxy (in the wheel step), and every way
        # it tried was refused.
        probes = glob.glob(os.path.join(self.server.data, "checkouts", slug, "*", "egress-probe.txt"))
        self.assertEqual(len(probes), 1, probes)
        with open(probes[0]) as f:
            probe = f.read()
        self.assertIn("run proxy=True", probe)
        tried = [line for line in probe.splitlines() if not line.startswith("run ")]
        self.assertGreaterEqual(len([t for t in tried if t.startswith(("tunnel", "plain"))]),
                                2 * len(self.targets), probe)
        self.assertFalse([t for t in tried if "CONNECTED" in t], probe)
        self.assertTrue(all("403" in t for t in tried if t.startswith(("tunnel", "plain"))), probe)
        self.assertRefusedInLog(build)


class ProjectIndexTest(EgressCase):
    # The administrator's simple index, over HTTP on 127.0.0.1.
    SERVER_ENV = {"PIP_INDEX_URL": "INDEX/simple/"}

    def test_a_project_variable_cannot_point_pip_at_the_host(self):
        files = dict(sphinx_project("    - requirements: docs/requirements.txt\n"),
                     **{"docs/requirements.txt": DEP + "\n"})
        # The administrator's index, through the proxy.
        slug, first = self.build_repo("Egress Variable", files)
        self.assertTrue(first["success"], self.log(first))
        self.assertIn("/simple/%s/" % DEP, self.index.paths)
        self.assertHeardNothing()
        r = self.server.post("/api/v3/projects/%s/environmentvariables/" % slug, {
            "name": "PIP_INDEX_URL", "value": "http://127.0.0.1:%d/simple/" % self.listener.port,
            "public": True}, token=self.token)
        self.assertStatus(r, 201)
        # Changed requirements make a new virtualenv: pip is refused the
        # project's index (the wheelhouse the first build filled still
        # installs the requirement).
        with open(os.path.join(self.repo, "docs", "requirements.txt"), "a") as f:
            f.write("# from the project's index now\n")
        fixtures.git(self.repo, "commit", "-q", "-am", "requirements")
        build = self.rebuild(slug)
        self.assertHeardNothing()
        self.assertRefusedInLog(build)

    def test_requirement_lines_cannot_point_pip_at_the_host(self):
        host = self.targets[-1]
        files = dict(sphinx_project("    - requirements: docs/requirements.txt\n"), **{
            "docs/requirements.txt":
                "--extra-index-url http://127.0.0.1:%d/simple/\n%s\n"
                "victim @ http://%s:%d/victim-1.0-py3-none-any.whl\n"
                % (self.listener.port, DEP, host, self.listener.port)})
        slug, build = self.build_repo("Egress Lines", files)
        self.assertHeardNothing()
        self.assertFalse(build["success"], self.log(build))
        self.assertRefusedInLog(build)


class PipConfTest(EgressCase):
    # The administrator's index in a pip.conf of the server's, beside a
    # commented-out line naming the listener.

    @classmethod
    def setUpClass(cls):
        conf = os.path.join(tempfile.gettempdir(), "lectern-egress-pip-%d.conf" % os.getpid())
        cls.SERVER_ENV = {"PIP_CONFIG_FILE": conf}
        cls.conf = conf
        cls.conf_text = ("[global]\ntimeout = 10\nindex_url = INDEX/simple/\n"
                         "[wheel]\n# extra-index-url = http://127.0.0.1:LISTENER/\n")
        super().setUpClass()
        with open(conf, "w") as f:
            f.write(cls.conf_text.replace("INDEX/", cls.index.url(""))
                    .replace("LISTENER", str(cls.listener.port)))
        os.chmod(conf, 0o644)

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.conf)
        super().tearDownClass()

    def test_the_index_of_the_servers_pip_conf_is_allowed_and_no_other(self):
        files = dict(sphinx_project("    - requirements: docs/requirements.txt\n"), **{
            "docs/requirements.txt": "--extra-index-url http://127.0.0.1:%d/simple/\n%s\n"
                                     % (self.listener.port, DEP)})
        slug, build = self.build_repo("Egress Conf", files)
        self.assertHeardNothing()
        self.assertTrue(build["success"], self.log(build))
        self.assertIn("/simple/%s/" % DEP, self.index.paths)
        self.assertRefusedInLog(build)


if __name__ == "__main__":
    main()
