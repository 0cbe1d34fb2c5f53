#!/bin/sh
# The TUI's `:preview` builds once per save (issue 43, item 11): its
# first saves on a 40-page Sphinx project took 10-12 s where `lectern
# preview` took 5 s, because the first build's own bytecode writes into
# the tree (__pycache__, through a temporary file renamed into place)
# started another whole build, and each save then waited for it. Here a
# build imports a module of the tree, as autodoc or a conf.py does; after
# the first build, one save must be build 2 and the only one, at 80x24
# and 200x60.
. "$LEC_TESTS/tui/lib.sh"

book="$TMP/pvsaves"
mkdir -p "$book/src" "$TMP/run"
printf 'def title():\n    return "Saved"\n' >"$book/src/helper.py"
printf '<html><body><h1>Saves</h1><p>Draft 1.</p></body></html>\n' >"$book/index.html"
cat >"$book/.readthedocs.yaml" <<'YAML'
version: 2
build:
  os: ubuntu-22.04
  tools:
    python: "3.12"
  commands:
    - "env -u PYTHONDONTWRITEBYTECODE python3 -c 'import sys; sys.path.insert(0, \"src\"); import helper'"
    - "mkdir -p $READTHEDOCS_OUTPUT/html"
    - "cp index.html $READTHEDOCS_OUTPUT/html/"
YAML

# status: the preview's "generation published state".
status() {
	curl -s "$url/_/preview/status" | /usr/bin/python3 -c \
		'import json, sys; d = json.load(sys.stdin); print(d["generation"], d["published"], d["state"])'
}

start_server
draft=1
for size in 80x24 200x60; do
	rm -rf "$book/src/__pycache__" "$TMP/run"
	mkdir -p "$TMP/run"
	tui_at "$size" XDG_RUNTIME_DIR="$TMP/run"
	wait_for '^ No projects yet' "the empty Projects screen at $size"
	keys : "preview $book" Enter
	wait_for "^Saves  http://127\\.0\\.0\\.1:[0-9]+/" "the preview's page at $size"
	wait_for "^ Draft $draft\\. *\$" "the first build at $size"
	url=$(screen | sed -n 's,^Saves  \(http://127\.0\.0\.1:[0-9]*\)/.*,\1,p')
	[ -d "$book/src/__pycache__" ] && pass || fail "the build wrote no bytecode at $size"
	next=$((draft + 1))
	sed -i "s/Draft $draft\\./Draft $next./" "$book/index.html"
	wait_for "^ Draft $next\\. *\$" "the save at $size"
	got=$(status)
	if [ "$got" = "2 2 ready" ]; then pass; else
		fail "after one save the preview says '$got' at $size, not '2 2 ready' (its own writes built again)"
	fi
	draft=$next
	quit_tui
done
finish
