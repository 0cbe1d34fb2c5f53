"""Git repositories made at test time for the pipeline tests: a Markdown
project, a Sphinx project, an MkDocs project, and projects whose builds
fail in the ways the sandbox and the limits must catch. Each is a small
real repository with branches and tags, built with the git CLI."""
import json
import os
import socket
import subprocess
import tempfile
import time

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="Fixture", GIT_AUTHOR_EMAIL="f@example.test",
               GIT_COMMITTER_NAME="Fixture", GIT_COMMITTER_EMAIL="f@example.test",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_SYSTEM="/dev/null")


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, env=GIT_ENV,
                   capture_output=True, text=True)


def make_repo(files, branches=(), tags=(), annotated=(), root=None):
    """A repository on branch main with `files` ({path: text}) committed;
    extra branches and tags point at that commit."""
    repo = tempfile.mkdtemp(prefix="lectern-fixture-", dir=root)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=GIT_ENV)
    for path, text in files.items():
        full = os.path.join(repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")
    for b in branches:
        git(repo, "branch", b)
    for t in tags:
        git(repo, "tag", t)
    for t in annotated:
        git(repo, "tag", "-a", t, "-m", "release " + t)
    return repo


MARKDOWN = {
    "README.md": "# Not published\n\nThe site is built from docs/, as MkDocs would.\n",
    "docs/index.md": "# Markdown Guide\n\nWelcome. See [the install page](install.md#setup).\n",
    "docs/install.md": "# Install\n\n## Setup\n\nRun it.\n\n## Setup\n\nAgain.\n",
    "docs/usage.md": "# Usage\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
}

SPHINX = {
    ".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
                         "sphinx:\n  configuration: docs/conf.py\nformats:\n  - htmlzip\n  - epub\n",
    "docs/conf.py": "project = 'Sphinx Fixture'\nextensions = []\nhtml_theme = 'alabaster'\n",
    "docs/index.rst": "Sphinx Fixture\n==============\n\n.. toctree::\n\n   api\n\nHello from Sphinx.\n",
    "docs/api.rst": "API\n===\n\n.. py:function:: frobnicate(x)\n\n   Frobnicates *x*.\n",
}

MKDOCS = {
    "mkdocs.yml": "site_name: MkDocs Fixture\nnav:\n  - Home: index.md\n  - Guide: guide.md\n",
    "docs/index.md": "# MkDocs Fixture\n\nHello from MkDocs.\n",
    "docs/guide.md": "# Guide\n\nSome text.\n",
}


def commands_config(*commands):
    """A .readthedocs.yaml whose build is just these shell commands."""
    lines = ["version: 2", "build:", "  os: ubuntu-22.04", "  tools:", "    python: \"3.12\"", "  commands:"]
    lines += ["    - %s" % json.dumps(c) for c in commands]
    return {".readthedocs.yaml": "\n".join(lines) + "\n", "README.md": "# Commands\n"}


class GitDaemon:
    """`git daemon` on a free loopback port (it cannot bind port 0: pick one
    and retry when another process took it first)."""

    def __init__(self, base):
        for _ in range(10):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            self.proc = subprocess.Popen(
                ["git", "daemon", "--export-all", "--base-path=" + base, "--listen=127.0.0.1",
                 "--port=%d" % self.port, "--reuseaddr", base],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=GIT_ENV)
            for _ in range(100):
                if self.proc.poll() is not None:
                    break
                try:
                    socket.create_connection(("127.0.0.1", self.port), 1).close()
                    return
                except OSError:
                    time.sleep(0.05)
            self.close()
        raise RuntimeError("git daemon did not start")

    def url(self, name):
        return "git://127.0.0.1:%d/%s" % (self.port, name)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(10)
