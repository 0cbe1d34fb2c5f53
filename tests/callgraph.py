"""The calls between the files of one directory of Lectern, read from the
object files a build made: file A calls file B when A uses a non-static
function that B alone defines. Prints each circle of calls (a strongly
connected component) wider than the limit and exits 1 when there is one,
so that tests/lint.sh can hold the engine and the server to calls that run
one way (floors, docs/ARCHITECTURE.md).

    python3 callgraph.py [--max N] [--edges] [--sources SRCDIR] OBJDIR...

--edges lists, for each circle, the calls that make it (what to cut).
--sources reads only the objects of the .c files SRCDIR holds: a build
directory keeps the objects of files since removed or renamed, whose calls
would otherwise still count."""
import argparse
import collections
import glob
import os
import subprocess
import sys


def read_objects(objdir, srcdir=None):
    """{file: set of functions it uses}, {function: set of defining files}."""
    uses, defs = collections.defaultdict(set), collections.defaultdict(set)
    for obj in sorted(glob.glob(os.path.join(objdir, "*.c.o"))):
        name = os.path.basename(obj)[:-len(".c.o")]
        if srcdir and not os.path.exists(os.path.join(srcdir, name + ".c")):
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "T":
                defs[parts[2]].add(name)
            elif len(parts) == 2 and parts[0] == "U":
                uses[name].add(parts[1])
        uses.setdefault(name, set())
    return uses, defs


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
    parser.add_argument("--sources", help="only objects of SRCDIR's .c files")
    parser.add_argument("objdirs", nargs="+")
    args = parser.parse_args()
    status = 0
    for objdir in args.objdirs:
        uses, defs = read_objects(objdir, args.sources)
        if not uses:
            print("callgraph: no object files in %s" % objdir)
            status = 1
            continue
        graph = call_graph(uses, defs)
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
