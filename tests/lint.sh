#!/bin/sh
# Source checks the compiler does not make: banned functions (unbounded
# copies, silent number parsing, non-reentrant tokenising) anywhere, raw
# allocation in the engine (it goes through lec__malloc so tests can fail
# it), and the dependency direction (the UI and the client never include
# engine headers; the engine never includes HTTP or curses headers). Given
# a build directory too, the calls among the files of each part (engine,
# server, CLI, client, TUI) run one way: no circle of calls at all but the
# reviewed ones of tests/callgraph.allow (tests/callgraph.py, read from the
# build's objects; docs/ARCHITECTURE.md draws the floors). The
# documentation cites no notes from outside the repository.
#
#     sh tests/lint.sh [SOURCE_DIR [BUILD_DIR]]
set -u
top=${1:-.}
build=${2:-}
status=0

report() {
	echo "lint: $1"
	status=1
}

banned=$(grep -rnE '\b(strcpy|strcat|sprintf|vsprintf|strtok\b|atoi|atol|gets)\s*\(' \
	"$top/engine" "$top/src" "$top/ui" --include='*.c' --include='*.h' 2>/dev/null)
[ -z "$banned" ] || report "banned function:
$banned"

raw=$(grep -rnE '\b(malloc|calloc|realloc|free|strdup|strndup)\s*\(' \
	"$top/engine/src" --include='*.c' 2>/dev/null | grep -v '^[^:]*/alloc\.c:')
[ -z "$raw" ] || report "raw allocation in the engine (use lec__malloc):
$raw"

up=$(grep -rnE '#include\s*[<"](microhttpd|curl/|ncurses|curses)' "$top/engine" 2>/dev/null)
[ -z "$up" ] || report "the engine includes HTTP or curses headers:
$up"

down=$(grep -rnE '#include\s*[<"]lectern/' "$top/ui" "$top/src/client" 2>/dev/null)
[ -z "$down" ] || report "the UI or the client includes engine headers:
$down"

# The client is a library of its own: libcurl and cJSON, not the server's
# code, the CLI's or curses.
side=$(grep -rnE '#include\s*[<"](microhttpd|ncurses|curses|\.\./(server|cli)/|server\.h|cli\.h)' \
	"$top/src/client" 2>/dev/null)
[ -z "$side" ] || report "the client includes server, CLI or curses headers:
$side"

# The UI sits on the client only: no engine, server or CLI code (the CLI
# calls the UI, not the other way round), no libmicrohttpd. Its build has
# none of their directories on the include path, so only a relative path
# could reach them.
ui_side=$(grep -rnE '#include\s*[<"](microhttpd|[./]*(engine|src|server|cli)/)' \
	"$top/ui" 2>/dev/null)
[ -z "$ui_side" ] || report "the UI includes engine, server or CLI headers:
$ui_side"

# A file calls another when it uses a non-static function only the other
# defines; in each part of the tree calls run one way (no circle at all),
# but for the reviewed calls of tests/callgraph.allow.
# The documentation is also the TUI's demo, a newcomer's first pages: it
# cites nothing a reader of the repository cannot open, not the notes the
# developers' workspace keeps beside it (issue 43, item 12). The module
# map is the sources' own comments (archmap, below), not written here.
notes=$(for f in "$top/README.md" "$top"/docs/*.md; do
	awk -v f="$f" '/<!-- module map:/ { map = 1 }
		!map && tolower($0) ~ /shared\/spec|behaviou?r[- ]notes|service-api\.md/ {
			print f ":" FNR ": " $0 }
		/<!-- end of the module map -->/ { map = 0 }' "$f"
done)
[ -z "$notes" ] || report "the documentation cites notes outside the repository:
$notes"

if [ -z "$build" ]; then
	echo "lint: no build directory given: calls between files not checked"
else
	for part in "engine/src=engine/CMakeFiles/lectern_engine.dir/src" \
		"src/server=src/CMakeFiles/lectern_server.dir/server" \
		"src/cli=src/CMakeFiles/lectern.dir/cli" \
		"src/client=src/CMakeFiles/lectern_client.dir/client" \
		"ui=ui/CMakeFiles/lectern_ui.dir ui/views=ui/CMakeFiles/lectern_ui.dir/views"; do
		# Each room SRCDIR=OBJDIR, the sources named from the top.
		rooms=$(echo "$part" | sed "s|=|=$build/|g")
		# shellcheck disable=SC2086 # one argument per room
		circles=$(cd "$top" && python3 tests/callgraph.py --max 1 --edges \
			--allow tests/callgraph.allow $rooms 2>&1) ||
			report "calls between the files of ${part%%=*} go round (docs/ARCHITECTURE.md):
$circles"
	done
fi

# The module map of docs/ARCHITECTURE.md is the tree's: every file, its
# job, who may call it.
map=$(cd "$top" && python3 tests/archmap.py --check 2>&1) || report "$map"

[ $status -eq 0 ] && echo "lint: clean"
exit $status
