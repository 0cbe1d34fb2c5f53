"""The calls between the files of a part of Lectern, read from the object
files a build made: file A calls file B when A uses a non-static function
that B alone defines (among the files read together). Prints each circle
of calls (a strongly connected component) wider than the limit and exits 1
when there is one, so that tests/lint.sh can hold each part to calls that
run one way (floors, docs/ARCHITECTURE.md).

    python3 callgraph.py [--max N] [--edges] [--allow FILE] ROOM...

A ROOM is SRCDIR=OBJDIR: the objects in OBJDIR of the .c files SRCDIR holds
(a build directory keeps the objects of files since removed or renamed,
whose calls would otherwise still count). Rooms given together are one
graph (ui and ui/views), their files named by SRCDIR/name. A bare OBJDIR
reads every object there, named by its file name alone.

--edges lists, for each circle, the calls that make it (what to cut).
--allow names a reviewed list of accepted calls, one "caller -> callee"
a line with the reason after it (# starts a comment): those calls are left
out of the graph. A listed call that no longer exists is an error too, so
the list cannot outlive what it excuses."""
import argparse
import collections
import glob
import os
import subprocess
import sys


def read_objects(objdir, srcdir=None, uses=None, defs=None):
    """{file: set of functions it uses}, {function: set of defining files},
    added to the given ones; files named srcdir/name when srcdir is given."""
    if uses is None:
        uses, defs = collections.defaultdict(set), collections.defaultdict(set)
    names = {}
    for obj in sorted(glob.glob(os.path.join(objdir, "*.c.o"))):
        name = os.path.basename(obj)[:-len(".c.o")]
        if srcdir:
            if not os.path.exists(os.path.join(srcdir, name + ".c")):
                continue
            name = os.path.join(os.path.normpath(srcdir), name)
        names[obj] = name
        uses.setdefault(name, set())
    if not names:
        return uses, defs
    # One nm for them all (a process per object was most of the lint's
    # time); -A names each line's object: "obj:[address] type symbol",
    # where no C symbol has a colon.
    out = subprocess.run(["nm", "-A"] + list(names), capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.rpartition(":")
        parts = rest.split()
        name = names.get(obj)
        if name is None:
            continue
        if len(parts) == 3 and parts[1] == "T":
            defs[parts[2]].add(name)
        elif len(parts) == 2 and parts[0] == "U":
            uses[name].add(parts[1])
    return uses, defs


def read_allowed(path):
    """[(caller, callee, line number)] of an allow-list file."""
    allowed = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) < 3 or words[1] != "->":
                raise SystemExit("%s:%d: not \"caller -> callee reason\""
                                 % (path, number))
            allowed.append((words[0], words[2], number))
    return allowed


def call_graph(uses, defs):
    """{file: {callee file: [functions]}}."""
    graph = {f: collections.defaultdict(list) for f in uses}
    for f, functions in uses.items():
        for fn in sorted(functions):
            owners = defs.get(fn, set())
            if len(owners) == 1:
                (owner,) = owners
                if owner != f:
                    graph[f][owner].append(fn)
    return graph


def circles(graph):
    """Strongly connected components (Tarjan's, without recursion)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=3,
                        help="widest circle allowed (files)")
    parser.add_argument("--edges", action="store_true")
    parser.add_argument("--allow", help="accepted calls, caller -> callee")
    parser.add_argument("--sources", help="only objects of SRCDIR's .c files")
    parser.add_argument("rooms", nargs="+", metavar="SRCDIR=OBJDIR")
    args = parser.parse_args()
    uses = defs = None
    for room in args.rooms:
        srcdir, _, objdir = room.rpartition("=")
        before = len(uses) if uses else 0
        uses, defs = read_objects(objdir, srcdir or args.sources, uses, defs)
        if len(uses) == before:
            print("callgraph: no object files in %s" % objdir)
            return 1
    graph = call_graph(uses, defs)
    status = 0
    for caller, callee, number in read_allowed(args.allow) if args.allow else []:
        if caller in graph and callee in graph[caller]:
            del graph[caller][callee]
        elif caller in graph:
            status = 1
            print("callgraph: %s:%d: %s no longer calls %s: remove the line"
                  % (args.allow, number, caller, callee))
    for component in circles(graph):
        if len(component) <= args.max:
            continue
        status = 1
        print("callgraph: %d files call each other in a circle: %s"
              % (len(component), " ".join(component)))
        if args.edges:
            members = set(component)
            for f in component:
                for callee, fns in sorted(graph[f].items()):
                    if callee in members:
                        print("  %s -> %s: %s" % (f, callee, " ".join(fns)))
    return status


if __name__ == "__main__":
    sys.exit(main())
