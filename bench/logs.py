"""What a build with a huge log costs (issue 36, finding 4): a build of
COMMANDS commands each printing BYTES bytes (default 25 x 4,000,000, which
passed within the per-command cap), then the store's growth and the engine's
peak memory (VmHWM of `lectern serve`) while anonymous clients GET the
build's v2 detail, text log and builds list, its dashboard page and its
live/ part, one and six at once, each row on a fresh server (the same data, no build workers) warmed
up with one small request.

Usage: python3 bench/logs.py [BUILD_DIR] [COMMANDS] [BYTES]
(default build/plain 25 4000000). Loopback only; the server it starts is
stopped at the end.
"""
import os
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "api"))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build", "plain"))
os.environ["LECTERN"] = os.path.join(BUILD, "src", "lectern")

import fixtures  # noqa: E402
from lectern_test import Server  # noqa: E402

COMMANDS = int(sys.argv[2]) if len(sys.argv) > 2 else 25
BYTES = int(sys.argv[3]) if len(sys.argv) > 3 else 4000000
MB = 1e6


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def store_bytes(data):
    return sum(os.path.getsize(os.path.join(data, n)) for n in os.listdir(data)
               if n.startswith("lectern.db"))


def peak(data, paths):
    """A fresh server's peak RSS over idle and its idle RSS (MB) while
    every path in paths is fetched at once, and the bytes each answer
    had."""
    server = Server(data=data)
    server.get("/api/v2/project/")
    pid = server.proc.pid
    idle = status_kb(pid, "VmHWM")
    sizes = [0] * len(paths)

    def get(i):
        r = server.get(paths[i])
        assert r.status == 200, r
        sizes[i] = len(r.body)

    threads = [threading.Thread(target=get, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hwm = status_kb(pid, "VmHWM")
    assert server.stop() == 0, server.log()
    server.cleanup()
    return (hwm - idle) * 1024 / MB, idle * 1024 / MB, sizes


def main():
    server = Server("--workers", "1", "--build-timeout", "900", "--threads", "2")
    try:
        token = server.token("bench")
        line = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n"
        cmds = ["yes '%s' | head -c %d" % (line.strip(), BYTES)] * COMMANDS
        cmds.append("mkdir -p $READTHEDOCS_OUTPUT/html && echo '<h1>Logs</h1>' > "
                    "$READTHEDOCS_OUTPUT/html/index.html")
        repo = fixtures.make_repo(fixtures.commands_config(*cmds))
        before = store_bytes(server.data)
        start = time.time()
        r = server.post("/api/v3/projects/", {"name": "Logs", "repository": {
            "url": "file://" + repo}}, token=token)
        assert r.status == 201, r
        slug = r.json["slug"]
        while True:
            builds = server.get("/api/v3/projects/%s/builds/" % slug, token=token).json["results"]
            if builds and builds[0]["state"]["code"] in ("finished", "cancelled"):
                break
            time.sleep(0.5)
        build = builds[0]
        grown = store_bytes(server.data) - before
        assert server.stop() == 0, server.log()
        print("build %d: success %s in %.0f s; store grew by %.1f MB, %.1f MB once "
              "checkpointed (the server stopped)" % (
                  build["id"], build["success"], time.time() - start, grown / MB,
                  (store_bytes(server.data) - before) / MB))
        paths = {
            "v2 build detail": "/api/v2/build/%d/" % build["id"],
            "v2 text log": "/api/v2/build/%d.txt" % build["id"],
            "v2 builds list": "/api/v2/build/",
            "dashboard page": "/projects/%s/builds/%d/" % (slug, build["id"]),
            "dashboard live/": "/projects/%s/builds/%d/live/" % (slug, build["id"]),
        }
        for name, path in paths.items():
            over, idle, sizes = peak(server.data, [path])
            print("%-16s x1: peak +%6.1f MB over idle %.1f MB (answer %.1f MB)" % (
                name, over, idle, sizes[0] / MB))
            over, idle, sizes = peak(server.data, [path] * 6)
            print("%-16s x6: peak +%6.1f MB over idle %.1f MB" % (name, over, idle))
    finally:
        server.stop()
        server.cleanup()


main()
