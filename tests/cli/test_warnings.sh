#!/bin/sh
# `lectern check` and `lectern warnings` (issue 30, item 7): a working tree
# checked as a writer checks it before pushing (file:line: kind: message,
# exit 1 with a broken link, 0 when clean, --json), a build's warnings
# through the auto-started local engine (new ones marked, --new, --json,
# a build that does not exist), and --new-only against the context's last
# successful build of the project built from the tree's repository (its
# origin, any remote, or the tree itself when the project was imported
# from it: issue 38, item 3): only what the tree adds is printed, a tree
# that adds nothing passes though the build had warnings, and stderr names
# the project and build compared with.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR

cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$LEC_TESTS/git.sh"
CACHE="$DATA/cache"

# ---- check: a clean tree passes silently.
mkdir -p "$DATA/clean/docs"
printf '# Clean\n\nSee [usage](usage.md#calling).\n' >"$DATA/clean/docs/index.md"
printf '# Usage\n\n## Calling\n\nCall it.\n' >"$DATA/clean/docs/usage.md"
expect_status 0 "$LECTERN" check "$DATA/clean" --cache "$CACHE/clean"
[ ! -s "$DATA/out" ] && pass || fail "a clean tree printed: $(cat "$DATA/out")"
# It has no .readthedocs.yaml: built, and said (not counted) that the
# hosted service refuses it, in the service's words.
expect_match err "^check: the hosted service refuses this: Config file not found at default path: The required \.readthedocs\.yaml configuration file was not found at repository's root\. "
expect_status 0 "$LECTERN" check "$DATA/clean" --cache "$CACHE/clean" --json
python3 - "$DATA/out" <<'PY' && pass || fail "check --json service_refuses: $(cat "$DATA/out")"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["count"] == 0 and o["built"] is True, o
assert o["service_refuses"].startswith("the hosted service refuses this: Config file not found"), o
PY

# ---- check: a broken link and a missing anchor, as editors read them.
REPO="$DATA/guide.git"
mkdir -p "$REPO/docs"
printf '# Guide\n\nSee [gone](gone.md) and [usage](usage.md#nope).\n' >"$REPO/docs/index.md"
printf '# Usage\n\n## Calling\n\nCall it.\n' >"$REPO/docs/usage.md"
make_repo "$REPO"
expect_status 1 "$LECTERN" check "$REPO" --cache "$CACHE/guide"
expect_match out "^index\.html:[0-9]+: link: broken link 'gone\.html': no file gone\.html in the output$"
expect_match out "^index\.html:[0-9]+: link: broken link 'usage\.html#nope': no anchor #nope in usage\.html$"
[ "$(wc -l <"$DATA/out")" -eq 2 ] && pass || fail "not two records: $(cat "$DATA/out")"
expect_status 1 "$LECTERN" check "$REPO" --cache "$CACHE/guide" --json
python3 - "$DATA/out" <<'PY' && pass || fail "check --json: $(cat "$DATA/out")"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["count"] == 2 and o["built"] is True, o
assert sorted(o["results"][0]) == ["file", "kind", "line", "message", "new"], o
PY
expect_status 2 "$LECTERN" check "$REPO" --no-such-option

# ---- check: a failed build's output reaches a terminal with its colours
# and nothing else a hostile build may send (a clipboard write by OSC 52,
# a screen erase); a pipe gets neither.
mkdir -p "$DATA/esc"
cat >"$DATA/esc/.readthedocs.yaml" <<'EOF'
version: 2
build:
  os: ubuntu-22.04
  tools: {python: "3"}
  commands:
    - printf '\033[31mred\033[0m \033]52;c;ZXZpbA==\007 \033[2J done\n'
    - exit 3
EOF
script -qec "'$LECTERN' check '$DATA/esc' --cache '$CACHE/esc'" /dev/null >"$DATA/tty" 2>&1
grep -q "$(printf '\033\\[31mred\033\\[0m')" "$DATA/tty" && pass || fail "the colours did not reach the terminal: $(cat -v "$DATA/tty")"
if grep -q "$(printf '\033\\]')\|$(printf '\033\\[2J')\|$(printf '\007')" "$DATA/tty"; then
	fail "an escape other than a colour reached the terminal: $(cat -v "$DATA/tty")"
else pass; fi
expect_status 1 "$LECTERN" check "$DATA/esc" --cache "$CACHE/esc"
if grep -q "$(printf '\033')" "$DATA/err"; then fail "escapes in a pipe: $(cat -v "$DATA/err")"; else pass; fi
if grep -q "hosted service refuses" "$DATA/err"; then fail "a tree with a .readthedocs.yaml is not refused for its absence"; else pass; fi
grep -q '^red   done' "$DATA/err" && pass || fail "the output's text: $(cat -v "$DATA/err")"

# ---- warnings: the build's records through the local engine.
expect_status 0 "$LECTERN" import "file://$REPO" --name "Guide"
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/guide/ -d '{"watch_commits": false}'
expect_status 0 "$LECTERN" warnings guide
expect_match out "^index\.html:[0-9]+: link: broken link 'gone\.html': no file gone\.html in the output \[new\]$"
expect_match err "^build [0-9]+: 2 warnings, 2 new, 0 fixed since the last good build$"
expect_status 0 "$LECTERN" warnings guide --new --json
python3 - "$DATA/out" <<'PY' && pass || fail "warnings --json: $(cat "$DATA/out")"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["count"] == 2 and all(w["new"] for w in o["results"]), o
PY
expect_status 1 "$LECTERN" warnings guide 999999
expect_status 2 "$LECTERN" warnings guide notanumber
# A build's id alone names it, as for `log` and `cancel` (issue 43, item
# 8): the same records as the project's newest build's.
expect_status 0 "$LECTERN" warnings guide
cp "$DATA/out" "$DATA/by_project"
build=$(sed -n 's/^build \([0-9]*\): .*/\1/p' "$DATA/err")
expect_status 0 "$LECTERN" warnings "$build"
cmp -s "$DATA/out" "$DATA/by_project" && pass || fail "warnings $build: $(cat "$DATA/out")"
expect_match err "^build $build: 2 warnings"
expect_status 1 "$LECTERN" warnings 999999
expect_match err "^lectern: no build 999999 on the local engine\$"

# ---- check --new-only: a clone of the project's repository.
git_env clone -q "$REPO" "$DATA/work"
expect_status 0 "$LECTERN" check "$DATA/work" --new-only --cache "$CACHE/work"
[ ! -s "$DATA/out" ] && pass || fail "nothing new, yet: $(cat "$DATA/out")"
expect_match err "^check: 0 new warnings \(compared with guide build #[0-9]+, version latest\)$"
printf '# Usage\n\n## Calling\n\nCall it. Then [read on](later.md).\n' >"$DATA/work/docs/usage.md"
expect_status 1 "$LECTERN" check "$DATA/work" --new-only --cache "$CACHE/work"
expect_match out "^usage\.html:[0-9]+: link: broken link 'later\.html': no file later\.html in the output$"
[ "$(wc -l <"$DATA/out")" -eq 1 ] && pass || fail "not only the new one: $(cat "$DATA/out")"
# The tree the project was imported from (file://, no origin) is the
# project's, and so is a worktree of it, and a tree whose only remote
# (not origin) is a path of it, written another way.
expect_status 0 "$LECTERN" check "$REPO" --new-only --cache "$CACHE/guide"
expect_match err "^check: 0 new warnings \(compared with guide build #[0-9]+, version latest\)$"
git_env -C "$REPO" worktree add -q "$DATA/linked" -b linked
expect_status 0 "$LECTERN" check "$DATA/linked" --new-only --cache "$CACHE/linked"
expect_match err "compared with guide build #[0-9]+, version latest"
mkdir -p "$DATA/other"
cp -r "$REPO/docs" "$DATA/other/docs"
make_repo "$DATA/other"
git_env -C "$DATA/other" remote add upstream "$DATA/./guide.git/"
expect_status 0 "$LECTERN" check "$DATA/other" --new-only --cache "$CACHE/other"
expect_match err "compared with guide build #[0-9]+, version latest"
# A tree of no project: everything counts, and it says so.
mkdir -p "$DATA/stray/docs"
cp "$REPO/docs/index.md" "$DATA/stray/docs/"
make_repo "$DATA/stray"
expect_status 1 "$LECTERN" check "$DATA/stray" --new-only --cache "$CACHE/stray"
expect_match err "no project of this context is built from .*stray or its remotes"

# ---- check: the writer's activated virtualenv is the Python Sphinx runs
# with (a project whose conf.py imports what was pip-installed there);
# one without Sphinx is told how to install into it.
mkdir -p "$DATA/venv/bin" "$DATA/sphinxtree/docs"
cat >"$DATA/venv/bin/python" <<SH
#!/bin/sh
echo "\$*" >>"$DATA/venv/used"
exec /usr/bin/python3 "\$@"
SH
chmod +x "$DATA/venv/bin/python"
printf "project = 'Venv'\n" >"$DATA/sphinxtree/docs/conf.py"
printf 'Venv\n====\n\nText.\n' >"$DATA/sphinxtree/docs/index.rst"
if /usr/bin/python3 -c 'import sphinx' 2>/dev/null; then
	VIRTUAL_ENV="$DATA/venv" expect_status 0 "$LECTERN" check "$DATA/sphinxtree" --cache "$CACHE/venv"
	grep -q -- '-m sphinx' "$DATA/venv/used" && pass || fail "the virtualenv's python did not run Sphinx"
fi
cat >"$DATA/venv/bin/python" <<SH
#!/bin/sh
case "\$*" in *sphinx*|*mkdocs*) echo "- -"; exit 0;; esac
exec /usr/bin/python3 "\$@"
SH
VIRTUAL_ENV="$DATA/venv" expect_status 1 "$LECTERN" check "$DATA/sphinxtree" --cache "$CACHE/venv2"
expect_match err "Sphinx is not installed for $DATA/venv/bin/python: install it there \($DATA/venv/bin/python -m pip install sphinx\)"

finish
