# Lectern's warm Sphinx generator (build_warm.c starts it, embedded in the
# engine): a Python that has imported Sphinx and the extensions a project's
# conf.py names, and forks one child per build which runs `python -m
# sphinx` with exactly the build's arguments, environment and working
# directory. Importing is most of what an incremental build costs; a child
# starts from the parent's state as it was after importing, never after a
# build, so no build sees another's. conf.py itself runs only in the
# children: it is read here for its literal `extensions` and `html_theme`,
# never executed, and nothing found in the project's tree is imported.
#
# In the sandbox, each build has a directory of its own ($HOME, the
# `python` of its PATH) that the parent's sandbox, made before it, lacks:
# LINKS, the directory above it, is a tmpfs there, and the child links
# the build's path to the directory's descriptor (/proc/PID/fd/N, which
# resolves across mount namespaces), so every path the cold command sees
# is there.
#
# The child writes in parallel where Sphinx's `-j` would and it is safe
# (parallel_writing below); reading stays serial, as without `-j`.
#
# Run as: python -c SCRIPT TREE CONF SANDBOXED LINKS, with its control
# socket (a SOCK_SEQPACKET) as descriptor 7. Messages, one a packet:
#   parent -> engine: "ready MODULES RSS_KB" | "fail REASON"
#   engine -> parent: "run" with descriptors [request, output, build
#                     directory] (the request: a memfd of NUL-ended
#                     fields: the working directory, the build's own
#                     directory, the argument count, the arguments, then
#                     the environment's entries; the directory only in
#                     the sandbox)
#   parent -> engine: "started PID" | "stale REASON", then "exit CODE"
#   child -> engine:  in the request's memfd, emptied once read, how the
#                     build wrote: "parallel N" | "serial REASON"
#   engine -> parent: "kill" while a child runs; the socket closed: exit.
import os
import sys

CONTROL_FD = 7
# Between SIGTERM and SIGKILL for a child the engine stops (the runner's
# LEC_RUNNER_KILL_GRACE_MS).
KILL_GRACE_S = 2.0
# Longest control packet and most descriptors one carries.
PACKET_MAX = 4096
FDS_MAX = 4
# prctl(2)'s option: whether other processes of the user may trace one.
PR_SET_DUMPABLE = 4
# Where the child keeps the build directory's descriptor: above what a
# build opens (the runner's limit on open files is 1024).
HOME_FD = 900
# Where it keeps the request's memfd, on which it reports how it wrote.
REPORT_FD = 901
# Fewest pages a build writes in parallel: below it, forking the writers
# costs more than they save (Sphinx's own threshold for reading in
# parallel, `len(docnames) > 5`; it has none for writing).
PARALLEL_MIN_PAGES = 6
# The cgroup's CPU quota, when the sandbox shows it ("max" or "QUOTA
# PERIOD").
CPU_MAX = "/sys/fs/cgroup/cpu.max"


def configured(conf):
    """The module names conf.py names literally: extensions, html_theme."""
    import ast

    names = []
    try:
        with open(conf, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return names
    for node in tree.body:
        value, targets = None, []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets, value = [node.target], node.value
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute)
              and isinstance(node.value.func.value, ast.Name)
              and node.value.func.value.id == "extensions"
              and node.value.func.attr in ("append", "extend")
              and node.value.args):
            targets = [node.value.func.value]
            value = node.value.args[0]
        for t in targets:
            if not (isinstance(t, ast.Name) and value is not None
                    and t.id in ("extensions", "html_theme")):
                continue
            try:
                v = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            if isinstance(v, str):
                names.append(v)
            elif isinstance(v, (list, tuple)):
                names.extend(x for x in v if isinstance(x, str))
    return names


def inside(path, tree):
    return path is not None and (path == tree or path.startswith(tree + "/"))


# What importing each module printed here (its name: the Python warnings
# and the text it wrote, in order), which a cold build prints where
# Sphinx imports it as an extension (replayed by replay_imports).
IMPORT_OUTPUT = {}


def import_quoting(name):
    """Import name as load() does, keeping what it prints, in order: the
    text it writes, and the Python warnings it raises, which Python
    writes to sys.stderr as they come (the build's own filters, from its
    environment, decide which)."""
    import contextlib
    import importlib
    import io

    class Keep(io.TextIOBase):
        def __init__(self, stream):
            self.stream = stream

        def write(self, text):
            said.append((self.stream, text))
            return len(text)

    said = []
    with contextlib.redirect_stdout(Keep("stdout")), \
            contextlib.redirect_stderr(Keep("stderr")):
        importlib.import_module(name)
    if said:
        IMPORT_OUTPUT[name] = said


def replay_imports():
    """In the child: what importing an extension printed in the parent is
    printed where Sphinx imports it (SphinxComponentRegistry.
    load_extension), once, as a cold build prints it."""
    import sphinx.registry

    real = sphinx.registry.import_module

    def import_module(name, package=None):
        for stream, text in IMPORT_OUTPUT.pop(name, ()):
            getattr(sys, stream).write(text)
        return real(name, package)

    sphinx.registry.import_module = import_module


def load(tree, conf):
    """Import Sphinx, its built-in extensions and the configured ones that
    lie outside the tree. Returns why the parent cannot serve, or None."""
    import importlib.util

    import sphinx.application
    import sphinx.cmd.build  # noqa: F401  (what `python -m sphinx` runs)

    path = list(sys.path)
    names = list(sphinx.application.builtin_extensions)
    names += ["sphinx.builders.html", "sphinx.builders.dirhtml",
              "sphinx.search.en", "alabaster"]
    for name in names + configured(conf):
        try:
            spec = importlib.util.find_spec(name)
            origin = getattr(spec, "origin", None) if spec else None
            if spec is None or inside(origin, tree):
                continue
            import_quoting(name)
        except BaseException:  # its build imports it again, and fails so
            continue
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if inside(getattr(module, "__file__", None), tree):
            return "%s imports the project's own files" % name
    return None


def snapshot():
    """What every imported module's file is now: a build through this
    parent is the cold build's only while none has changed."""
    seen = {}
    for module in list(sys.modules.values()):
        f = getattr(module, "__file__", None)
        if isinstance(f, str) and f not in seen:
            try:
                st = os.stat(f)
                seen[f] = (st.st_ino, st.st_size, st.st_mtime_ns)
            except OSError:
                seen[f] = None
    return seen


def changed(seen):
    for f, was in seen.items():
        try:
            st = os.stat(f)
            now = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            now = None
        if now != was:
            return "%s changed" % f
    return None


def read_request(fd):
    data = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    fields = data.split(b"\0")
    cwd, home, argc = fields[0], fields[1], int(fields[2])
    argv = fields[3:3 + argc]
    env = [e for e in fields[3 + argc:] if e]
    return cwd, home, argv, env


def link_home(home, dir_fd):
    """The build's own directory at its path, through the descriptor; a
    descriptor of the child's, above the ones a build opens."""
    import fcntl

    fd = fcntl.fcntl(dir_fd, fcntl.F_DUPFD_CLOEXEC, HOME_FD)
    os.symlink("/proc/%d/fd/%d" % (os.getpid(), fd), home)
    return fd


def cores():
    """The cores this build may use: its CPU affinity, within the cgroup's
    quota when there is one."""
    n = len(os.sched_getaffinity(0))
    try:
        with open(CPU_MAX) as f:
            quota, period = f.read().split()
        if quota != "max":
            n = min(n, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return n


def serial_reason(builder, writers):
    """Why the builder may not write in parallel, or None: what Sphinx's
    `-j` asks (Builder.build, Sphinx.is_parallel_allowed('write')),
    decided without its warnings, which would fail a -W build."""
    from sphinx.util.parallel import parallel_available

    if not builder.allow_parallel:
        return "the %s builder writes serially" % builder.name
    if not parallel_available:
        return "no multiprocessing"
    if writers < 2:
        return "one core"
    for ext in builder.app.extensions.values():
        safe = getattr(ext, "parallel_write_safe", None)
        if safe is None:
            return "%s does not say it is parallel-write-safe" % ext.name
        if not safe:
            return "%s is not parallel-write-safe" % ext.name
    return None


def write_parallel(builder, docnames, writers):
    """Builder._write_parallel with the console of _write_serial: a
    progress line per page as the main process resolves it and feeds the
    search index (write_doc_serialized) while the writers write, and
    every page's messages after the phase, in page order, as serial
    writing prints its (held) warnings; the records its warnings become
    are the serial build's, in its order."""
    from sphinx.builders import BuildPhase
    from sphinx.locale import __
    from sphinx.util import logging, status_iterator
    from sphinx.util.parallel import ParallelTasks, make_chunks

    app, env = builder.app, builder.env
    logs = {}

    def collected(docname, work):
        collector = logging.LogCollector()
        with collector.collect():
            work()
        logs[docname] = logs.get(docname, []) + collector.logs

    def resolve(docname, chunk):
        app.phase = BuildPhase.RESOLVING
        doctree = env.get_and_resolve_doctree(docname, builder)
        app.phase = BuildPhase.WRITING
        builder.write_doc_serialized(docname, doctree)
        chunk.append((docname, doctree))

    def write_process(docs):
        app.phase = BuildPhase.WRITING
        done = []
        for docname, doctree in docs:
            collector = logging.LogCollector()
            with collector.collect():
                builder.write_doc(docname, doctree)
            logging.convert_serializable(collector.logs)
            done.append((docname, collector.logs))
        return done

    def written(args, result):
        for docname, records in result:
            logs[docname] = logs.get(docname, []) + records

    with logging.pending_warnings():
        pages = status_iterator(docnames, __('writing output... '),
                                "darkgreen", len(docnames), app.verbosity)
        # The first page in this process: the templates are compiled
        # before the writers fork, as Sphinx's own parallel writing does.
        first = []
        next(pages)
        collected(docnames[0], lambda: resolve(docnames[0], first))
        collected(docnames[0], lambda: builder.write_doc(*first[0]))
        tasks = ParallelTasks(writers)
        rest = iter(pages)
        for names in make_chunks(docnames[1:], writers):
            chunk = []
            for docname in names:
                next(rest)
                collected(docname, lambda: resolve(docname, chunk))
            tasks.add_task(write_process, chunk, written)
        for _ in rest:  # the progress's closing line
            pass
        tasks.join()
        # Through the logger Sphinx's parallel tasks hand theirs to.
        logger = logging.getLogger("sphinx.util.parallel")
        for docname in docnames:
            for record in logs.get(docname, []):
                logger.handle(record)


def parallel_writing(report_fd):
    """Write as `sphinx-build -j` would, with one writer per core, when it
    is safe: Builder.write decides (after conf.py ran and every extension
    was set up), reading stays serial (app.parallel is untouched), and
    each write reports how it went on report_fd."""
    from sphinx.builders import Builder

    writers = cores()
    write, serial, parallel = (Builder.write, Builder._write_serial,
                               Builder._write_parallel)
    state = {"why": None}

    def report(text):
        os.ftruncate(report_fd, 0)
        os.pwrite(report_fd, text.encode("utf-8", "replace"), 0)

    def lectern_write(self, *args, **kwargs):
        if self.app.parallel <= 1:  # the build's own -j decides otherwise
            state["why"] = serial_reason(self, writers)
            self.parallel_ok = state["why"] is None
        return write(self, *args, **kwargs)

    def lectern_write_serial(self, docnames):
        report("serial " + (state["why"] or "Sphinx chose it"))
        return serial(self, docnames)

    def lectern_write_parallel(self, docnames, nproc):
        if self.app.parallel > 1:
            report("parallel %d" % nproc)
            return parallel(self, docnames, nproc)
        if len(docnames) < PARALLEL_MIN_PAGES:
            state["why"] = "%d page%s to write (parallel from %d)" % (
                len(docnames), "" if len(docnames) == 1 else "s",
                PARALLEL_MIN_PAGES)
            return self._write_serial(docnames)
        report("parallel %d" % writers)
        return write_parallel(self, docnames, writers)

    Builder.write = lectern_write
    Builder._write_serial = lectern_write_serial
    Builder._write_parallel = lectern_write_parallel


def child(ctl, request_fd, out_fd, dir_fd, sandboxed):
    """Become the build: `python -m sphinx ARGS` as a fresh Python would
    run it, then exit with its status."""
    import atexit
    import builtins
    import runpy
    import threading
    import traceback
    import types

    code = 1
    try:
        os.setsid()
        ctl.close()
        if sandboxed:  # the cold build's processes can be traced
            import ctypes

            ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        cwd, home, argv, env = read_request(request_fd)
        os.dup2(request_fd, REPORT_FD, inheritable=False)
        os.ftruncate(REPORT_FD, 0)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        keep = [REPORT_FD]
        if dir_fd is not None:
            keep.append(link_home(home, dir_fd))
        low = 3
        for fd in sorted(keep):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        os.environb.clear()
        for entry in env:
            k, _, v = entry.partition(b"=")
            os.environb[k] = v
        os.chdir(cwd)
        if sandboxed:  # bubblewrap sets PWD, as a shell would
            os.environb[b"PWD"] = cwd
        # A __main__ of its own, as a fresh Python's (this file's code
        # keeps the one it runs in).
        main = types.ModuleType("__main__")
        main.__dict__.update(__annotations__={}, __builtins__=builtins)
        sys.modules["__main__"] = main
        sys.argv = ["-m"] + [os.fsdecode(a) for a in argv[3:]]
        sys.path[0:0] = [os.getcwd()]
        parallel_writing(REPORT_FD)
        replay_imports()
        try:
            runpy._run_module_as_main("sphinx")
            code = 0
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code & 0xff
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:
            pass
    os._exit(code)


def mount_points():
    """Every mount point of the sandbox and the directories above them:
    what a sweep never removes (the build's mounts may lie below /tmp)."""
    import re

    keep = set()
    with open("/proc/self/mountinfo") as f:
        for line in f:
            path = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)),
                          line.split()[4])
            while path not in keep and path != "/":
                keep.add(path)
                path = os.path.dirname(path)
    return keep


def clear(top, keep, dev):
    """What a build left in top, on top's own file system, but keep."""
    import stat

    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for e in entries:
        try:
            st = os.lstat(e.path)
        except OSError:
            continue
        if st.st_dev != dev:
            continue
        if stat.S_ISDIR(st.st_mode):
            clear(e.path, keep, dev)
            if e.path not in keep:
                try:
                    os.rmdir(e.path)
                except OSError:
                    pass
        elif e.path not in keep:
            try:
                os.unlink(e.path)
            except OSError:
                pass


def sweep(links, keep):
    """In the sandbox, what the cold build's namespace would have taken
    with it: every other process, what it wrote in the private /tmp and
    /dev/shm, and the link to the build's own directory."""
    import signal

    me = os.getpid()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, me):
            try:
                os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass
    for top in ("/tmp", "/dev/shm") + ((links,) if links else ()):
        clear(top, keep, os.lstat(top).st_dev)


def wait_child(ctl, pid):
    import select
    import signal

    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(ctl.fileno(), select.POLLIN)
    kill_at = None
    while True:
        timeout = None
        if kill_at is not None:
            timeout = max(0, int((kill_at - monotonic()) * 1000))
        ready = dict(poller.poll(timeout))
        if pidfd in ready:
            break
        if kill_at is not None and monotonic() >= kill_at:
            os.killpg(pid, signal.SIGKILL)
            kill_at = float("inf")
        if ctl.fileno() in ready and kill_at is None:
            # "kill", or the engine gone: stop the child, then wait for
            # it alone.
            ctl.recv(PACKET_MAX)
            os.killpg(pid, signal.SIGTERM)
            kill_at = monotonic() + KILL_GRACE_S
            poller.unregister(ctl.fileno())
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    try:
        os.killpg(pid, signal.SIGKILL)  # what the child left behind
    except OSError:
        pass
    return os.waitstatus_to_exitcode(status)


def monotonic():
    import time

    return time.monotonic()


def serve(ctl, sandboxed, links, seen):
    keep = mount_points() if sandboxed else None
    import socket

    while True:
        msg, fds, _, _ = socket.recv_fds(ctl, PACKET_MAX, FDS_MAX)
        if not msg:
            return
        if msg != b"run" or len(fds) != (3 if links else 2):
            for fd in fds:
                os.close(fd)
            ctl.send(b"fail unknown request")
            return
        why = changed(seen)
        if why:
            ctl.send(b"stale " + os.fsencode(why))
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(ctl, fds[0], fds[1], fds[2] if links else None,
                  sandboxed)
        for fd in fds:
            os.close(fd)
        ctl.send(b"started %d" % pid)
        code = wait_child(ctl, pid)
        if sandboxed:
            sweep(links, keep)
        ctl.send(b"exit %d" % (code if code >= 0 else 128 - code))


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def start():
    import gc
    import socket

    tree, conf, sandboxed = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    links = sys.argv[4] if sandboxed and sys.argv[4] else None
    ctl = socket.socket(fileno=CONTROL_FD)
    if sandboxed:
        import ctypes

        # No process of a build may read or write this one's memory.
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if sys.path and sys.path[0] in ("", "."):
        del sys.path[0]
    os.chdir("/")
    why = load(tree, conf)
    if why:
        ctl.send(b"fail " + os.fsencode(why))
        return
    seen = snapshot()
    gc.collect()
    gc.freeze()
    ctl.send(b"ready %d %d" % (len(sys.modules), rss_kb()))
    serve(ctl, sandboxed, links, seen)


start()
