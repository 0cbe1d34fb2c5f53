#!/bin/sh
# TUI figures (issues 8 and 15): startup to the first full screen on the
# local engine, `G` to the oldest of 10,000 builds drawn, a key press to the
# redraw (j and k) at both ends of the 10,000 builds, and the resident
# memory, beside the same measures for tig on a 10,000-commit repository in
# the same run. Both programs run in a 100x30 tmux pane and
# are watched through capture-pane, so every figure includes tmux's own
# round trip; the "tmux round trip" row measures that alone.
#
# Usage: sh bench/tui.sh [BUILD_DIR]   (default build/plain; needs tmux, tig)
# Loopback only; the server and tmux started here are stopped on exit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
lectern=$build/src/lectern
builds=10000
runs=${BENCH_RUNS:-20}

[ -x "$lectern" ] || { echo "bench: build first ($lectern missing)"; exit 1; }
if ! command -v tig >/dev/null; then
	echo "bench: installing tig (Debian package)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tig >/dev/null
fi

work=$(mktemp -d /tmp/lectern-bench-tui-XXXXXX)
sock="lectern-bench-tui-$$"
server=
cleanup() {
	for s in /tmp/tmux-"$(id -u)"/"$sock"-*; do
		[ -e "$s" ] && tmux -S "$s" kill-server 2>/dev/null || true
	done
	[ -z "$server" ] || kill "$server" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The store: one project (imported through the API; no workers, so its
# first build stays queued) with 10,000 finished builds written into the
# store in one SQL transaction, as tests/tui/lib.sh seed_builds does.
"$lectern" --data "$work/data" serve --listen 127.0.0.1:0 --workers 0 \
	>"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$work/serve.out")
token=$("$lectern" --data "$work/data" token create bench)
printf '%s\n' "$token" >"$work/token"
chmod 600 "$work/token"
export XDG_CONFIG_HOME="$work/config"
"$lectern" context add bench --url "$base" --token-file "$work/token" >/dev/null
echo "bench: seeding $builds builds"
/usr/bin/python3 - "$base" "$token" "$builds" "$work/data/lectern.db" <<'PY'
import http.client, json, sqlite3, sys, time, urllib.parse
base, token, n, db = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
h = {"Authorization": "Token " + token, "Content-Type": "application/json"}
c.request("POST", "/api/v3/projects/", body=json.dumps(
    {"name": "Bench", "repository": {"url": "https://github.com/example/bench.git"}}), headers=h)
r = c.getresponse(); r.read()
assert r.status == 201, r.status
s = sqlite3.connect(db, timeout=30)
pid = s.execute("SELECT id FROM projects WHERE slug = 'bench'").fetchone()[0]
vid = s.execute("SELECT id FROM versions WHERE project_id = ? AND slug = 'latest'", (pid,)).fetchone()[0]
us = 1000000
now = (int(time.time()) - n - 60) * us
with s:
    s.executemany(
        "INSERT INTO builds (project_id, version_id, state, success, error, commit_sha,"
        " created, started, finished, duration) VALUES (?, ?, 'finished', ?, ?, ?, ?, ?, ?, 1)",
        ((pid, vid, 0 if i % 10 == 0 else 1, "seeded failure %d" % i if i % 10 == 0 else None,
          "%040x" % i, now + i * us, now + i * us, now + (i + 1) * us) for i in range(n)))
PY

# A 10,000-commit repository for tig.
git init -q "$work/repo"
/usr/bin/python3 - "$builds" <<'PY' | git -C "$work/repo" fast-import --quiet
import sys
n = int(sys.argv[1])
for i in range(n):
    msg = "commit %d\n" % i
    print("commit refs/heads/main")
    print("committer Bench <b@example.test> %d +0000" % (1700000000 + i))
    print("data %d" % len(msg)); sys.stdout.write(msg)
    print("M 644 inline f.txt")
    data = "%d\n" % i
    print("data %d" % len(data)); sys.stdout.write(data)
    print()
PY
git -C "$work/repo" checkout -q main

# The driver: start a program in tmux, time the first full screen, then
# keys to redraws (median and 95th percentile over $runs presses).
/usr/bin/python3 - "$sock" "$runs" "$lectern" "$work" <<'PY'
import os, re, statistics, subprocess, sys, time
sock, runs, lectern, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

run = [0]

def tmux(*args):
    # One tmux server per program: a new one on the socket of a server
    # still shutting down fails.
    return subprocess.run(["tmux", "-L", "%s-%d" % (sock, run[0]), *args],
                          capture_output=True, text=True).stdout

def wait(pattern, deadline=30):
    rx = re.compile(pattern, re.M)
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if rx.search(tmux("capture-pane", "-p", "-t", "s")):
            return time.monotonic()
        time.sleep(0.001)
    raise SystemExit("bench: the screen never showed /%s/:\n%s" % (pattern, tmux("capture-pane", "-p", "-t", "s")))

def start(cmd, ready):
    tmux("kill-server")
    run[0] += 1
    t0 = time.monotonic()
    tmux("new-session", "-d", "-s", "s", "-x", "100", "-y", "30", "-c", work, cmd)
    return (wait(ready) - t0) * 1000

def rss():
    # Resident memory, and the part of it that is the program's own
    # (RssAnon): the rest is shared library pages (libcrypto, gnutls, ICU
    # through libxml2), the same whatever the number of builds.
    pid = tmux("list-panes", "-t", "s", "-F", "#{pane_pid}").strip()
    with open("/proc/%s/status" % pid) as f:
        kb = {l.split(":")[0]: int(l.split()[1]) for l in f if l.startswith(("VmRSS", "RssAnon"))}
    return "%.1f MB (%.1f MB its own)" % (kb["VmRSS"] / 1024, kb["RssAnon"] / 1024)

def presses(key, status_of):
    times = []
    for i in range(runs):
        want = status_of(i)
        t0 = time.monotonic()
        tmux("send-keys", "-t", "s", key)
        times.append((wait(want) - t0) * 1000)
    return statistics.median(times), sorted(times)[int(len(times) * 0.95) - 1]

rows = []
t0 = time.monotonic()
for _ in range(runs):
    tmux("capture-pane", "-p", "-t", "s")
rows.append(("tmux round trip (capture-pane)", "%.1f ms" % ((time.monotonic() - t0) * 1000 / runs), ""))

env = "exec env TERM=tmux-256color LANG=C.UTF-8 XDG_CONFIG_HOME=%s/config " % work
startup = start(env + lectern + " --context bench tui", r"^bench +Bench +latest +\S+ .* \d+[smhd] *$")
mem = rss()
total = 10001  # the import's own build and the 10,000 seeded
tmux("send-keys", "-t", "s", ":builds bench", "Enter")
wait(r" 1/%d *$" % total)
rows.append(("lectern: startup to first full screen", "%.0f ms" % startup, ""))
# G: one page asked for by its offset; drawn when the oldest build (the
# first seeded, "seeded failure 0") is on screen.
t0 = time.monotonic()
tmux("send-keys", "-t", "s", "G")
g_ms = (wait(r"seeded failure 0 *$") - t0) * 1000
wait(r" %d/%d *$" % (total, total))
rows.append(("lectern: G to the oldest of 10,000 builds drawn", "%.0f ms" % g_ms, ""))
med, p95 = presses("k", lambda i: r" %d/%d *$" % (total - i - 1, total))
rows.append(("lectern: key to redraw (k, oldest builds)", "%.1f ms median" % med, "%.1f ms p95" % p95))
tmux("send-keys", "-t", "s", "g")
wait(r" 1/%d *$" % total)
med, p95 = presses("j", lambda i: r" %d/%d *$" % (i + 2, total))
rows.append(("lectern: key to redraw (j, newest builds)", "%.1f ms median" % med, "%.1f ms p95" % p95))
# Memory after the walk from end to end (the pages' cache is bounded).
for key in ("G", "g", "G"):
    tmux("send-keys", "-t", "s", key)
    time.sleep(0.3)
rows.append(("lectern: resident memory, Projects screen", mem, ""))
rows.append(("lectern: resident memory (10,000 builds walked)", rss(), ""))

startup = start("exec env TERM=tmux-256color LANG=C.UTF-8 tig -C %s/repo" % work, r"\[main\] \S+ - commit 1 of 10000")
med, p95 = presses("j", lambda i: r"commit %d of 10000" % (i + 2))
rows.append(("tig: startup to first full screen", "%.0f ms" % startup, ""))
rows.append(("tig: key to redraw (j, 10,000 commits)", "%.1f ms median" % med, "%.1f ms p95" % p95))
# tig binds G to the commit graph's style; End is its move-last-line.
t0 = time.monotonic()
tmux("send-keys", "-t", "s", "End")
rows.append(("tig: End to the oldest of 10,000 commits drawn", "%.0f ms" % ((wait(r"commit 10000 of 10000") - t0) * 1000), ""))
rows.append(("tig: resident memory", rss(), ""))
tmux("kill-server")
for name, a, b in rows:
    print("%-48s %26s %14s" % (name, a, b))
PY
