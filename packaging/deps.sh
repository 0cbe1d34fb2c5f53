#!/bin/sh
# Installs Lectern's build, test and run-time dependencies from Debian's packages.
#
# Idempotent: packages already present are skipped, so the README's quick-start
# commands and CI can call it every time. Must run as root (or with sudo on PATH).
# The package list is the single place that names what Lectern depends on; the
# reason for each group is beside it.
set -eu

# Build: compiler, CMake, pkg-config, and the libraries Lectern links.
BUILD_PKGS="build-essential cmake pkg-config git
 libncurses-dev libcurl4-openssl-dev libcjson-dev libgit2-dev libsqlite3-dev
 libmicrohttpd-dev libxml2-dev libmd4c-dev libmd4c-html0-dev libyaml-dev libunistring-dev libssl-dev
 zlib1g-dev"
# Run time: the build sandbox (bubblewrap), the documentation generators a
# project may use (Sphinx with MyST, the Markdown parser many projects'
# pages need), and venv + pip to install a project's own Python
# dependencies per project (setuptools and wheel build sdists without an index).
# PDF downloads of Sphinx projects (formats: [pdf]): latexmk runs pdflatex
# on Sphinx's LaTeX, which needs the packages of texlive-latex-recommended
# and -extra (fncychap, titlesec, tabulary, wrapfig, capt-of, needspace,
# upquote ...) and the fonts of texlive-fonts-recommended and tex-gyre
# (Sphinx 5's default Times, Helvetica and Courier replacements): the
# smallest set that builds a typical project's PDF, about 300 MB.
RUN_PKGS="bubblewrap python3 python3-sphinx python3-myst-parser mkdocs
 python3-venv python3-pip python3-setuptools python3-wheel
 latexmk texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended tex-gyre"
# Tests: tmux drives the TUI, sqlite3 inspects stores, curl pokes the server,
# pgrep (procps) checks that no build process outlives its build, chromium
# renders built pages headless (tests/api/test_browser.py), clang builds the
# fuzz targets (tests/fuzz) with libFuzzer, whose runtime is in
# libclang-rt-dev (only recommended by clang, so named here). The package
# (tests/package): scdoc writes the man pages, dpkg-dev's dpkg-shlibdeps and
# file compute Depends, lintian, man-db and systemd's systemd-analyze check
# the result. The ssh tests (tests/sshd.sh) run a private sshd on
# 127.0.0.1 and reach it with OpenSSH's client. setuptools-scm: a fixture
# project takes its version from its git tags while pip installs it in a
# build (tests/api/test_git_clone.py), offline, through the venv's system
# site-packages. sphinx_rtd_theme: the addons' browser test builds a page
# with the theme most of the service's projects use
# (tests/api/test_addons_browser.py); nothing else pulls it in. furo: the
# same test checks that furo's theme toggle still works with the addons.
TEST_PKGS="tmux sqlite3 curl procps chromium clang libclang-rt-dev
 scdoc dpkg-dev file lintian man-db systemd openssh-server openssh-client
 python3-setuptools-scm python3-sphinx-rtd-theme furo"

# `lectern mcp`'s test drives it with the protocol's reference client,
# the TypeScript SDK from the npm registry: Node.js and npm, unless the
# machine has them already.
command -v npm >/dev/null 2>&1 || TEST_PKGS="$TEST_PKGS nodejs npm"

missing=""
for p in $BUILD_PKGS $RUN_PKGS $TEST_PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Installing openssh-server would start a system sshd on port 22: services
# are kept from starting while packages install (a policy-rc.d denying
# every start, removed afterwards unless one was already there).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
# shellcheck disable=SC2086 # word splitting of the package list is intended
$SUDO apt-get install -y -qq --no-install-recommends $missing
