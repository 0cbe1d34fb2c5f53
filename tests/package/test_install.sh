#!/bin/sh
# The Debian package, as a user gets it. Packs BUILD (a configured, built
# tree) with cpack and checks the .deb: its name and Version match
# `lectern --version`, Depends has the shared libraries and the programs
# builds run, lintian reports no error. Then, on an unpacked copy (dpkg -x,
# by ctest) or on the package installed with apt-get (--apt, by .ci/run as
# root, removed again at the end), it checks that the installed lectern
#   - prints that version;
#   - runs `serve --local-engine` from its install, which finds its assets
#     beside its executable: the engine takes the installed demo repository
#     (a Markdown project) as a local repository, the CLI finds that engine
#     (no second one), imports and builds it, and the docs are served;
#   - has man pages that man(1) formats without a warning, lectern(1)
#     naming every command of `lectern --help`;
#   - has a bash completion that registers itself and completes project
#     and version slugs from that engine;
#   - has a systemd user unit that `systemd-analyze verify` accepts;
# and `lectern stop` ends the engine, which leaves no process behind.
#
# usage: test_install.sh [--apt] BUILD
set -eu

apt=0
if [ "${1:-}" = --apt ]; then
	apt=1
	shift
fi
build=$(cd "$1" && pwd)

tmp=$(mktemp -d)
engine=""
lintian=""
installed=""
cleanup() {
	if [ -n "$lintian" ]; then
		kill "$lintian" 2>/dev/null || true
		wait "$lintian" 2>/dev/null || true
	fi
	if [ -n "$engine" ] && kill -0 "$engine" 2>/dev/null; then
		kill "$engine"
		wait "$engine" 2>/dev/null || true
	fi
	if [ -n "$installed" ]; then
		# Remove what this test installed, and only that.
		# shellcheck disable=SC2086 # a list of package names
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $installed >/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# ---- The package -----------------------------------------------------------

# Configure again first: the version comes from git at configure time, and
# a commit since the last configure changes it. Then nothing may be left to
# build: cpack's install step would build it, while other tests run the
# binaries (ctest runs this test beside them), so a tree older than its
# sources or its commit is refused rather than rebuilt under them.
cmake "$build" >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log" >&2; fail "cmake"; }
if cmake --build "$build" -- -n 2>&1 | grep -qE '(Building|Linking) C'; then
	fail "$build is older than its sources or its commit: build it, then run this test"
fi
cpack --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
	{ cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
version=$("$build/src/lectern" --version | sed 's/^lectern //')
deb="$tmp/pkg/lectern_${version}_amd64.deb"
[ -f "$deb" ] || fail "no $deb; cpack made: $(ls "$tmp/pkg")"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
	fail "package version $(dpkg-deb -f "$deb" Version), lectern --version $version"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in bubblewrap python3-venv libgit2 libmicrohttpd libcurl libncursesw6; do
	case $depends in
	*"$dep"*) ;;
	*) fail "Depends has no $dep: $depends" ;;
	esac
done
echo "ok: $(basename "$deb"), Depends: $depends"

# lintian takes seconds of one core: it reads the package while the rest
# checks the installation, and its report is read at the end.
lintian "$deb" >"$tmp/lintian.log" 2>&1 &
lintian=$!

# The unpacked tree: the installation itself for ctest, the man pages'
# source for both (minimal images drop /usr/share/man on install).
dpkg -x "$deb" "$tmp/root"
if [ "$apt" = 1 ]; then
	installed_list() {
		dpkg-query -W -f '${Package} ${Status}\n' |
			awk '/ install ok installed$/ { print $1 }' | sort
	}
	! installed_list | grep -qx lectern ||
		fail "lectern is installed already; this test would remove it"
	installed_list >"$tmp/before"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
	installed_list >"$tmp/after"
	installed=$(comm -13 "$tmp/before" "$tmp/after" | tr '\n' ' ')
	echo "ok: apt-get installed $installed"
	prefix=""
else
	prefix="$tmp/root"
fi
bin="$prefix/usr/bin/lectern"

# ---- The binary --------------------------------------------------------------

[ "$("$bin" --version)" = "lectern $version" ] || fail "installed --version: $("$bin" --version)"
echo "ok: $bin --version"

data="$tmp/data"
HOME="$tmp/home"
XDG_CACHE_HOME="$tmp/cache"
XDG_CONFIG_HOME="$tmp/config"
export HOME XDG_CACHE_HOME XDG_CONFIG_HOME
unset LECTERN_DATA LECTERN_CONTEXT LECTERN_DATADIR XDG_DATA_HOME
mkdir -p "$HOME"
"$bin" --data "$data" serve --local-engine --listen 127.0.0.1:0 \
	>"$tmp/serve.out" 2>"$tmp/serve.err" &
engine=$!
i=0
until grep -q '^listening on ' "$tmp/serve.out"; do
	kill -0 "$engine" 2>/dev/null || { cat "$tmp/serve.err" >&2; fail "serve exited"; }
	i=$((i + 1))
	[ "$i" -lt 600 ] || fail "serve did not start in 60 s"
	sleep 0.1
done
port=$(sed -n 's|^listening on http://127.0.0.1:\([0-9]*\)/$|\1|p' "$tmp/serve.out")
[ "$(cat "$data/serve.pid")" = "$engine" ] || fail "serve.pid is not the engine's pid"
[ "$(cat "$data/serve.port")" = "$port" ] || fail "serve.port is not the engine's port"
# A second local engine for the same data directory is refused.
if "$bin" --data "$data" serve --local-engine --listen 127.0.0.1:0 >/dev/null 2>"$tmp/second.err"; then
	fail "a second --local-engine started"
fi
grep -q "already runs (pid $engine" "$tmp/second.err" || fail "second engine: $(cat "$tmp/second.err")"
echo "ok: serve --local-engine on port $port, recorded; a second one refused"

demo="$prefix/usr/share/lectern/demo.git"
"$bin" --data "$data" import "file://$demo" --name Demo >"$tmp/import.out" 2>"$tmp/import.err" ||
	{ cat "$tmp/import.err" "$data/serve.log" 2>/dev/null >&2; fail "import of the installed demo repository"; }
[ "$(cat "$data/serve.pid")" = "$engine" ] || fail "the CLI started a second engine"
curl -fsS "http://demo.localhost:$port/en/latest/" >"$tmp/page.html" ||
	fail "the built docs are not served"
grep -q 'Lectern' "$tmp/page.html" || fail "the home page does not name Lectern"
echo "ok: imported and built the installed demo repository through the engine systemd would run"

# ---- Man pages ---------------------------------------------------------------

n=0
for page in "$tmp"/root/usr/share/man/man*/*.gz; do
	MANWIDTH=80 man --warnings -l "$page" >"$tmp/man.out" 2>"$tmp/man.err" ||
		fail "man -l $page"
	[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err" >&2; fail "man warns on $page"; }
	grep -q '^NAME' "$tmp/man.out" || fail "$page has no NAME section"
	n=$((n + 1))
done
# One a source page of man/.
want=$(ls "$(dirname "$0")"/../../man/*.scd | wc -l)
[ "$n" -eq "$want" ] || fail "$n man pages, want $want"
# lectern(1) lists every command `lectern --help` has.
# No hyphenation: a command cut over two lines is not found.
man --nh -l "$tmp/root/usr/share/man/man1/lectern.1.gz" 2>/dev/null |
	sed -n '/^COMMANDS/,/^EXIT STATUS/p' >"$tmp/commands.txt"
for cmd in $("$bin" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }' | sort -u); do
	grep -qw -- "$cmd" "$tmp/commands.txt" || fail "lectern(1) does not list '$cmd'"
done
man -l "$tmp/root/usr/share/man/man1/lectern-tui.1.gz" 2>/dev/null | grep -q 'save-log' ||
	fail "lectern-tui(1) does not list the TUI's actions"
echo "ok: man -l on $n pages"

# ---- Completion --------------------------------------------------------------

completion="$prefix/usr/share/bash-completion/completions/lectern"
[ "$(bash -c ". '$completion' && complete -p lectern")" = "complete -F _lectern lectern" ] ||
	fail "the bash completion does not register itself"
# What Tab offers after WORDS (the last one is being completed).
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_lectern; printf "%s\n" "${COMPREPLY[@]}"' sh "$completion" "$@"
}
complete_words "$bin" --data "$data" versions "" | grep -qx demo ||
	fail "no project slugs completed"
complete_words "$bin" --data "$data" build demo "" | grep -qx latest ||
	fail "no version slugs completed"
complete_words "$bin" --context "" | grep -qx local || fail "no context names completed"
echo "ok: bash completion of commands, project and version slugs, contexts"

# ---- The systemd user unit ---------------------------------------------------

unit="$prefix/usr/lib/systemd/user/lectern.service"
if [ "$apt" = 0 ]; then
	# The unit names /usr/bin/lectern, which verify wants to find.
	sed "s|/usr/bin/lectern|$bin|g" "$unit" >"$tmp/lectern.service"
	unit="$tmp/lectern.service"
fi
mkdir -m 700 "$tmp/run"
# verify also runs man on the unit's Documentation= page: the unpacked one.
MANPATH="$tmp/root/usr/share/man" XDG_RUNTIME_DIR="$tmp/run" \
	systemd-analyze --user verify "$unit" >"$tmp/verify.log" 2>&1 ||
	{ cat "$tmp/verify.log" >&2; fail "systemd-analyze verify"; }
echo "ok: systemd-analyze verify lectern.service"

# ---- Stopping ----------------------------------------------------------------

"$bin" --data "$data" stop >/dev/null || fail "lectern stop"
wait "$engine" || fail "the engine exited with status $?"
engine=""
[ ! -e "$data/serve.pid" ] || fail "lectern stop left serve.pid"
echo "ok: lectern stop ended the engine (status 0: systemd leaves it stopped)"

# ---- lintian -----------------------------------------------------------------

wait "$lintian" || true
lintian=""
grep -v 'running with root privileges' "$tmp/lintian.log" || true
! grep -q '^E:' "$tmp/lintian.log" || fail "lintian reports errors"
echo "ok: lintian, no errors"
