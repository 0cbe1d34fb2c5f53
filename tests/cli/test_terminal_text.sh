#!/bin/sh
# Every text from an instance reaches stdout and stderr through the
# terminal filter (issue 36, item 7): against a hostile remote context
# (tests/cli/hostile_text.py) whose names, error details, warnings, search
# results, build errors, states and logs carry whole escape sequences (a
# window title, a clipboard write by OSC 52, a screen clear), C1 controls
# as UTF-8 and as raw bytes, and other controls, none of them gets out of
# `projects`, `versions`, `warnings`, `search`, `log`, `build --watch`, and
# neither does a C1 control a repository's build prints (`check`); --json
# stays the instance's exact data.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT
export HOSTILE_TOKEN=hostile-token
stub_pid=

cleanup() {
	[ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

python3 "$LEC_TESTS/cli/hostile_text.py" >"$DATA/stub.out" 2>"$DATA/stub.err" &
stub_pid=$!
i=0
until grep -q '^listening on ' "$DATA/stub.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the stub did not start: $(cat "$DATA/stub.err")" >&2; exit 1; }
	sleep 0.05
done
URL=$(sed -n 's,^listening on \(http://[^/]*\)/$,\1,p' "$DATA/stub.out")
"$LECTERN" context add h --url "$URL" --token-env HOSTILE_TOKEN >/dev/null ||
	{ echo "context add failed" >&2; exit 1; }

# clean FILE [CR]: FILE has no escape and no control but line breaks and
# tabs (and carriage returns with CR: a build's output keeps them), no C1
# control as UTF-8 or as a raw byte, and no text of the hostile escapes'
# payloads (the title and the clipboard's base64 went with them).
clean() {
	python3 - "$DATA/$1" "${2:-}" <<'PY'
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
keep = "\n\t" + ("\r" if sys.argv[2] else "")
bad = [c for c in text if (ord(c) < 0x20 and c not in keep) or 0x7f <= ord(c) <= 0x9f
       or 0xdc80 <= ord(c) <= 0xdc9f]
assert not bad and "PWNED" not in text and "UFdORUQ" not in text, (bad, text)
PY
}

# hostile CR CMD...: run CMD against the hostile context; stdout and stderr
# are both clean, and stdout has the hostile text's printable letters.
hostile() {
	cr=$1
	shift
	"$LECTERN" --context h "$@" >"$DATA/out" 2>"$DATA/err"
	if clean out "$cr" && clean err "$cr"; then pass; else
		fail "'$*' let controls through: $(cat -v "$DATA/out" "$DATA/err")"
	fi
}

hostile "" projects
expect_match out '^project +ABCD31mEFGHIJK +en +latest +ABCD31mEFGHIJK$'
# An error's detail, on the one error line.
hostile "" versions evil
expect_match err '^lectern: ABCD31mEFGH ?IJK \(HTTP 404\)$'
hostile "" warnings project 3
expect_match out '^indexABCD31mEFGHIJK\.html:3: link: broken ABCD31mEFGHIJK \[new\]$'
hostile "" search word
expect_match out '^project/latest /en/latest/ABCD31mEFGHIJK  TABCD31mEFGHIJK$'
expect_match out '^    SABCD31mEFGHIJK: ABCD31mEFGHIJKwordABCD31mEFGHIJKABCD31mEFGHIJK$'
# The log: commands, their output (its carriage returns kept, as a
# tool's progress line has them), and the "error:" line.
hostile cr log 3
expect_match out '^\$ sphinx-build ABCD31mEFGHIJK$'
expect_match out '^error: ABCD31mEFGHIJK$'
# A watched build: the states the instance names, and its error.
hostile "" build project latest --watch
expect_match out '^build 3: buildingABCD31mEFGHIJK$'
expect_match out '^build 3 failed: ABCD31mEFGHIJK$'

# --json is the instance's data, exactly: cJSON escapes the C0 controls,
# and the C1 ones are data (the raw byte included).
expect_status 0 "$LECTERN" --context h projects --json
python3 - "$DATA/out" <<'PY' && pass || fail "projects --json: $(cat -v "$DATA/out")"
import json, os, sys
sys.path.insert(0, os.environ["LEC_TESTS"] + "/cli")
from hostile_text import EVIL
o = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape"))
assert o["results"][0]["name"] == EVIL, o
PY

# ---- check: C1 controls (UTF-8 and raw) and a backspace that a
# repository's build prints reach neither a pipe nor a terminal.
mkdir -p "$DATA/c1"
cat >"$DATA/c1/.readthedocs.yaml" <<'EOF'
version: 2
build:
  os: ubuntu-22.04
  tools: {python: "3"}
  commands:
    - printf 'a\302\2332J b\233c \302\2350;T\302\234 d\010e done\n'
    - exit 3
EOF
expect_status 1 "$LECTERN" check "$DATA/c1" --cache "$DATA/cache"
clean err && pass || fail "check let controls through: $(cat -v "$DATA/err")"
expect_match err '^a2J bc 0;T de done$'
script -qec "'$LECTERN' check '$DATA/c1' --cache '$DATA/cache'" /dev/null >"$DATA/tty" 2>&1
# script(1) adds the terminal's carriage returns.
clean tty cr && pass || fail "check let controls through to a terminal: $(cat -v "$DATA/tty")"
finish
