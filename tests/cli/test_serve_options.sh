#!/bin/sh
# `lectern serve`'s options are one table (src/cli/serve_options.c); the
# documentation repeats them by hand. This holds docs/api.md's options table
# and the OPTIONS of lectern-serve(1) to that table, read from
# `lectern serve --options-table`: the same options with the same values,
# each once, and the same defaults. A row or an entry may group several
# options; its defaults are then theirs in order, joined with ", ". A
# network --webhook-allow cannot take is refused with what is wrong.
. "$LEC_TESTS/cli/lib.sh"
TOP="$LEC_TESTS/.."

expect_status 0 "$LECTERN" serve --options-table
cp "$DATA/out" "$DATA/table"
expect_match table '^--webhook-timeout	MS	5000$'

if /usr/bin/python3 - "$DATA/table" "$TOP/docs/api.md" \
	"$TOP/man/lectern-serve.1.scd" >"$DATA/check" 2>&1 <<'PY'
import re
import sys

table_file, api_md, man_page = sys.argv[1:4]
table = {}
for line in open(table_file, encoding="utf-8"):
    name, value, default = line.rstrip("\n").split("\t")
    table[name] = (value, default)
problems = []


def check(where, groups):
    """groups: [(["--opt VALUE", ...], defaults text or None)]."""
    seen = []
    for specs, defaults in groups:
        names = []
        for spec in specs:
            name, _, value = spec.partition(" ")
            names.append(name)
            if name not in table:
                problems.append("%s: %s is no option" % (where, name))
            elif table[name][0] != value:
                problems.append("%s: %s takes %r, not %r"
                                % (where, name, table[name][0], value))
        seen += names
        known = [n for n in names if n in table]
        want = ", ".join(table[n][1] for n in known)
        if not any(table[n][1] for n in known):
            want = ""
        if len(known) == len(names) and (defaults or "") != want:
            problems.append("%s: %s default %r, the table says %r"
                            % (where, " ".join(names), defaults, want))
    for name in sorted(set(seen)):
        if seen.count(name) > 1:
            problems.append("%s: %s listed %d times"
                            % (where, name, seen.count(name)))
    for name in sorted(set(table) - set(seen)):
        problems.append("%s: %s is missing" % (where, name))


def api_groups(path):
    text = open(path, encoding="utf-8").read()
    section = text.split("## `lectern serve` options", 1)[1]
    groups = []
    for line in section.splitlines()[1:]:
        if line.startswith("## "):
            break
        if not line.startswith("| `--"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        specs = [s.replace("\\|", "|") for s in re.findall(r"`([^`]+)`",
                                                           cells[0])]
        groups.append((specs, cells[1].replace("`", "")))
    return groups


def man_groups(path):
    text = open(path, encoding="utf-8").read()
    section = text.split("\n# OPTIONS\n", 1)[1].split("\n# ", 1)[0]
    groups = []
    for entry in section.split("\n\n"):
        lines = entry.strip("\n").split("\n")
        if not lines[0].startswith("*--"):
            continue
        specs = [re.sub(r"[*_]", "", s).strip()
                 for s in lines[0].split(", ")]
        body = " ".join(l.strip() for l in lines[1:])
        found = re.search(r"Defaults?: (.*)\.$", body)
        groups.append((specs, found.group(1) if found else None))
    return groups


check("docs/api.md", api_groups(api_md))
check("lectern-serve(1)", man_groups(man_page))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
then pass; else fail "the documented serve options differ from the table:
$(cat "$DATA/check")"; fi

# The table is --help's too.
expect_status 0 "$LECTERN" serve --help
expect_match out '^  --webhook-timeout MS +.*\(100 to 600000; default 5000\)$'
expect_match out '^  --edition community\|business +.*\(default community\)$'
expect_match out '^  --webhook-allow CIDR +.*repeatable \(default public addresses only\)$'

# --webhook-allow takes networks only, each said wrong before anything
# starts.
expect_status 1 "$LECTERN" serve --webhook-allow 127.0.0.1/8
expect_match err "^lectern: serve: --webhook-allow: '127\.0\.0\.1/8' has address bits set past its prefix length"
expect_status 1 "$LECTERN" serve --webhook-allow 127.0.0.0/8 --webhook-allow localhost
expect_match err "^lectern: serve: --webhook-allow: 'localhost' is not an IPv4 or IPv6 network"

finish
