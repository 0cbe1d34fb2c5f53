"""The module map of docs/ARCHITECTURE.md: every source file of the five
parts of Lectern, its one job (the first sentence of the paragraph the
file opens with) and who may call it (the part's floor; for the engine,
whether the module has a public header). The map is made from the tree,
so it cannot leave a file out or keep one that is gone; tests/lint.sh
checks that the copy in docs/ARCHITECTURE.md is the one this prints.

    python3 tests/archmap.py            print the map
    python3 tests/archmap.py --write    put it into docs/ARCHITECTURE.md
    python3 tests/archmap.py --check    exit 1 when the copy there differs

The copy lies between the two marker lines below; what is around it is
written by hand."""
import argparse
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(TOP, "docs", "ARCHITECTURE.md")
BEGIN = "<!-- module map: made by tests/archmap.py --write; the lint checks it -->"
END = "<!-- end of the module map -->"
# A job longer than this is cut at a word: a table cell, not the banner.
JOB_MAX = 170

# (directory, what it is, who may call its files).
PARTS = [
    ("engine/src", "the engine: no HTTP, no curses",
     "a module with a public header (engine/include/lectern/) by src/server and the CLI's engine-direct "
     "commands (serve, token, org, preview, check); every other file only from engine/src"),
    ("src/server", "the HTTP API and the docs hosts over the engine",
     "src/cli's `serve` through server.h (the daemon); the rest of the files only from src/server, "
     "handlers through handler.h and the route tables"),
    ("src/client", "the API's client (libcurl): local and remote are one path",
     "ui/ and src/cli, through client.h only"),
    ("src/cli", "the `lectern` command line",
     "main.c alone; commands through the table of commands.c"),
    ("ui", "the TUI (ncursesw) over the client",
     "src/cli's `tui` through ui.h; views through their ops struct (view.h)"),
    ("ui/views", "the TUI's screens, one a file",
     "ui/ through the table of screens (app.h) and each view's ops struct"),
]


def banner_job(path):
    """The first sentence of the comment a file opens with."""
    with open(path, encoding="utf-8") as f:
        text = f.read(4000)
    m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
    if not m:
        return "(no opening paragraph)"
    words = " ".join(line.strip().lstrip("*").strip() for line in m.group(1).splitlines())
    words = " ".join(words.split())
    sentence = re.split(r"(?<=[.])\s", words, 1)[0]
    if len(sentence) > JOB_MAX:
        sentence = sentence[:JOB_MAX].rsplit(" ", 1)[0] + " ..."
    return sentence.replace("|", "\\|")


def public_header(stem, job):
    """The public header an engine module's banner names, or its own."""
    named = re.search(r"lectern/([a-z_0-9]+\.h)", job)
    for name in ([named.group(1)] if named else []) + [stem + ".h"]:
        if os.path.exists(os.path.join(TOP, "engine", "include", "lectern", name)):
            return "lectern/" + name
    return None


def make_map():
    out = [BEGIN, ""]
    for part, what, callers in PARTS:
        files = sorted(glob.glob(os.path.join(TOP, part, "*.c")))
        out.append("#### `%s/`: %s (%d files)" % (part, what, len(files)))
        out.append("")
        out.append("Who may call them: %s." % callers)
        out.append("")
        engine = part == "engine/src"
        out.append("| file | its job |%s" % (" public header |" if engine else ""))
        out.append("| --- | --- |%s" % (" --- |" if engine else ""))
        for path in files:
            name = os.path.basename(path)
            job = banner_job(path)
            row = "| `%s` | %s |" % (name, job)
            if engine:
                header = public_header(name[:-2], job)
                row += " %s |" % ("`%s`" % header if header else "internal")
            out.append(row)
        out.append("")
    out.append(END)
    return "\n".join(out) + "\n"


def split_doc(text):
    """(before, the copy, after) of the document's text; None when the
    markers are not there, once each and in order."""
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        return None
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    if end < start:
        return None
    return text[:start], text[start:end], text[end:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    made = make_map()
    if not (args.write or args.check):
        sys.stdout.write(made)
        return 0
    with open(DOC, encoding="utf-8") as f:
        parts = split_doc(f.read())
    if parts is None:
        print("archmap: docs/ARCHITECTURE.md needs the two marker lines, once each:\n%s\n%s"
              % (BEGIN, END))
        return 1
    if args.check:
        if parts[1] != made:
            print("archmap: the module map of docs/ARCHITECTURE.md is not the tree's: "
                  "run python3 tests/archmap.py --write")
            return 1
        return 0
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(parts[0] + made + parts[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
