#!/bin/sh
# Contexts and the config file: context add/use/remove/list, the config's
# syntax errors (file and line), token files that others can read, tokens
# never on the command line or printed, read-only contexts, context
# selection (--context, LECTERN_CONTEXT, current-context), the sample config
# and the completion scripts. No engine runs here: commands that would need
# one point at a closed port.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
CFG="$XDG_CONFIG_HOME/lectern/config"
SRC="$LEC_TESTS/.."
unset LECTERN_CONTEXT
# Port 1 on loopback: nothing listens there.
DEAD=http://127.0.0.1:1

# No config file: only the built-in local context, current.
expect_status 0 "$LECTERN" context list
expect_match out '^CURRENT +NAME +URL +TOKEN +READONLY$'
expect_match out '^\* +local +'
[ "$(grep -c . "$DATA/out")" -eq 2 ] && pass || fail "context list has extra rows"
expect_status 0 "$LECTERN" context list --json
expect_match out '^\[\{"name":"local","current":true\}\]$'

# add: a token file must be owner-only; its absolute path is stored.
printf 'filetoken123\n' >"$DATA/tok"
chmod 644 "$DATA/tok"
expect_status 1 "$LECTERN" context add prod --url https://docs.example.test/ --token-file "$DATA/tok"
expect_match err "^lectern: context 'prod': token file $DATA/tok has mode 0644; it must be 0600 \(chmod 600 $DATA/tok\)$"
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "mode error is not one line"
[ ! -e "$CFG" ] && pass || fail "a refused context was written"
chmod 600 "$DATA/tok"
(cd "$DATA" && "$LECTERN" context add prod --url https://docs.example.test/ \
	--docs-domain docs.example.test --token-file tok --readonly) >"$DATA/out" 2>"$DATA/err" \
	&& pass || fail "context add prod failed: $(cat "$DATA/err")"
expect_match out "^added context 'prod' \\(https://docs\\.example\\.test, read-only\\); "
expect_status 0 "$LECTERN" context add dev --url "$DEAD" --token-env DEV_TOKEN
# It says what it added and how to use it (issue 31, item 13).
expect_match out "^added context 'dev' \\($DEAD\\); use it with --context dev or make it the default with 'lectern context use dev'\$"
[ "$(stat -c %a "$CFG")" = 600 ] && pass || fail "config mode is not 0600"
expect_match_file() { grep -Eq "$2" "$1" && pass || fail "$1 does not match /$2/: $(cat "$1")"; }
expect_match_file "$CFG" '^\[context prod\]$'
expect_match_file "$CFG" '^url = https://docs.example.test$'
expect_match_file "$CFG" "^token-file = $DATA/tok\$"
expect_match_file "$CFG" '^readonly = true$'
expect_match_file "$CFG" '^token-env = DEV_TOKEN$'

expect_status 0 "$LECTERN" context list
expect_match out '^ +prod +https://docs\.example\.test +file .*/tok +yes$'
expect_match out '^ +dev +http://127\.0\.0\.1:1 +env DEV_TOKEN +no$'
expect_status 0 "$LECTERN" context list --json
expect_match out '"name":"prod","current":false,"url":"https://docs.example.test","docs_domain":"docs.example.test","token_file":"[^"]*/tok","readonly":true'
# The token itself is printed nowhere.
if grep -q filetoken123 "$DATA/out" "$CFG"; then fail "token printed or stored"; else pass; fi

# add: usage errors (exit 2) name what is wrong.
expect_status 2 "$LECTERN" context add x --url ftp://host --token-env T
expect_match err '^lectern: context add: --url must be http:// or https:// and a host$'
expect_status 2 "$LECTERN" context add x --url "$DEAD"
expect_match err '^lectern: context add: the context has no token-env or token-file$'
expect_status 2 "$LECTERN" context add x --url "$DEAD" --token-env A --token-file "$DATA/tok"
expect_match err 'has both token-env and token-file'
expect_status 2 "$LECTERN" context add x --url "$DEAD" --token abc
expect_match err 'a token never goes on the command line'
expect_status 2 "$LECTERN" context add local --url "$DEAD" --token-env T
expect_status 2 "$LECTERN" context add 'bad name' --url "$DEAD" --token-env T
expect_status 1 "$LECTERN" context add dev --url "$DEAD" --token-env T
expect_match err "^lectern: context 'dev' already exists"
expect_status 1 "$LECTERN" context add y --url "$DEAD" --token-file "$DATA/missing"
expect_match err "token file $DATA/missing: No such file"

# use / remove.
expect_status 0 "$LECTERN" context use dev
expect_match_file "$CFG" '^current-context = dev$'
expect_status 0 "$LECTERN" context list
expect_match out '^\* +dev '
expect_status 1 "$LECTERN" context use nope
expect_match err "^lectern: no context 'nope'"
expect_status 1 "$LECTERN" context remove local
expect_match err 'built in and cannot be removed'

# Selection: current-context, then LECTERN_CONTEXT, then --context win.
expect_status 1 env DEV_TOKEN=devtoken "$LECTERN" projects
expect_match err '^lectern: connection refused to 127\.0\.0\.1:1$'
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "transport error is not one line"
expect_status 1 "$LECTERN" projects
expect_match err "^lectern: context 'dev': environment variable DEV_TOKEN \(its token\) is not set$"
expect_status 1 env LECTERN_CONTEXT=nope "$LECTERN" projects
expect_match err "^lectern: no context 'nope' \(see 'lectern context list'\)$"
expect_status 1 env LECTERN_CONTEXT=nope "$LECTERN" --context dev projects
expect_match err 'DEV_TOKEN'

# A read-only context refuses changes before sending anything (the URL
# does not even resolve), and still allows reads to be attempted.
expect_status 1 "$LECTERN" --context prod import file:///nowhere
expect_match err "^lectern: context 'prod' is read-only$"
expect_status 1 "$LECTERN" --context prod api -X POST /api/v3/projects/ -d '{}'
expect_match err "^lectern: context 'prod' is read-only$"
expect_status 1 "$LECTERN" --context prod version p v --hidden
expect_match err "is read-only"
expect_status 1 sh -c 'echo v | "$0" --context prod env p add X' "$LECTERN"
expect_match err "is read-only"
# A token file that became readable by others is refused on use too.
chmod 640 "$DATA/tok"
expect_status 1 "$LECTERN" --context prod projects
expect_match err "has mode 0640; it must be 0600"
chmod 600 "$DATA/tok"

# remove resets current-context when it named the removed context.
expect_status 0 "$LECTERN" context remove dev
if grep -q 'current-context\|\[context dev\]' "$CFG"; then fail "dev still in the config"; else pass; fi
expect_status 0 "$LECTERN" context list
expect_match out '^\* +local '
expect_status 1 "$LECTERN" context remove dev

# Syntax errors name the file and the line, and stop the command.
mkdir -p "$(dirname "$CFG")"
printf '# c\ncurrent-context = a\n\n[context a]\nurl = http://x\ntoken-env = T\ncolour = red\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:7: colour: unknown key"
printf '[context a]\nurl = http://x\n[context b]\nurl = http://y\ntoken-env = T\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:1: context 'a' has no token-env or token-file$"
printf 'url = http://x\n' >"$CFG"
expect_status 1 "$LECTERN" projects
expect_match err "^lectern: $CFG:1: only current-context and local-workers may come before"
printf '[context a]\nurl http://x\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:2: expected 'key = value'$"
printf '[context a]\nurl = htp://x\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:2: url: must be http"
printf '[context a]\nurl = http://x\ntoken-env = T\nreadonly = maybe\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:4: readonly: is true or false$"
printf '[context a]\nurl = http://x\ntoken-env = T\n[context a]\nurl = http://x\ntoken-env = T\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:4: this context is declared twice$"
printf '[context local]\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG:1: 'local' is the built-in context"
printf 'current-context = gone\n' >"$CFG"
expect_status 1 "$LECTERN" context list
expect_match err "^lectern: $CFG: current-context 'gone' is not declared$"

# Trailing comments; the example of docs/cli.md parses.
sed -n '/^```ini$/,/^```$/p' "$SRC/docs/cli.md" | sed '1d;$d' >"$CFG"
expect_status 0 env RTD_TOKEN=t "$LECTERN" context list --json
expect_match out '"name":"rtd","current":true,"url":"https://app.readthedocs.org","docs_domain":"readthedocs.io","token_env":"RTD_TOKEN","readonly":true'

# The shipped sample parses, with ~ in token-file expanded.
cp "$SRC/packaging/lectern.conf.sample" "$CFG"
expect_status 0 env HOME="$DATA/home" "$LECTERN" context list
expect_match out '^\* +rtd +https://app\.readthedocs\.org +env RTD_TOKEN +yes$'
expect_match out "^ +lab +http://127\.0\.0\.1:8800 +file $DATA/home/\.config/lectern/lab\.token +no$"
rm -f "$CFG"

# The completion scripts know every command and the context names.
commands=$("$LECTERN" --help | sed -n 's/^  \([a-z]\{1,\}\).*/\1/p' | sort -u)
for c in $commands; do
	grep -q "$c" "$SRC/packaging/completion/lectern.bash" && pass || fail "bash completion lacks $c"
	grep -q "'$c:" "$SRC/packaging/completion/lectern.zsh" && pass || fail "zsh completion lacks $c"
done
"$LECTERN" context add comp --url "$DEAD" --token-env T >/dev/null
if command -v bash >/dev/null; then
	got=$(bash -c '. "$1"; COMP_WORDS=(lectern --context ""); COMP_CWORD=2; _lectern; echo "${COMPREPLY[*]}"' \
		sh "$SRC/packaging/completion/lectern.bash")
	[ "$got" = "local comp" ] && pass || fail "bash completes contexts as '$got'"
	got=$(bash -c '. "$1"; COMP_WORDS=(lectern bui); COMP_CWORD=1; _lectern; echo "${COMPREPLY[*]}"' \
		sh "$SRC/packaging/completion/lectern.bash")
	[ "$got" = "builds build" ] && pass || fail "bash completes 'bui' as '$got'"
	got=$(bash -c '. "$1"; COMP_WORDS=(lectern build p --w); COMP_CWORD=3; _lectern; echo "${COMPREPLY[*]}"' \
		sh "$SRC/packaging/completion/lectern.bash")
	[ "$got" = "--watch" ] && pass || fail "bash completes 'build p --w' as '$got'"
	got=$(bash -c '. "$1"; COMP_WORDS=(lectern env p ""); COMP_CWORD=3; _lectern; echo "${COMPREPLY[*]}"' \
		sh "$SRC/packaging/completion/lectern.bash")
	[ "$got" = "add remove" ] && pass || fail "bash completes 'env p' as '$got'"
fi

# Colour only on a terminal and without NO_COLOR (script(1) gives a pty).
esc=$(printf '\033')
expect_status 0 "$LECTERN" context list
if grep -q "$esc" "$DATA/out"; then fail "escape codes in piped output"; else pass; fi
script -qec "\"$LECTERN\" context list" /dev/null >"$DATA/tty" 2>&1
grep -q "${esc}\[1mCURRENT" "$DATA/tty" && pass || fail "no bold titles on a terminal: $(cat "$DATA/tty")"
NO_COLOR=1 script -qec "\"$LECTERN\" context list" /dev/null >"$DATA/tty" 2>&1
grep -q CURRENT "$DATA/tty" && ! grep -q "$esc" "$DATA/tty" && pass || fail "NO_COLOR ignored"

# Command lines: usage errors exit 2, --help prints the usage.
expect_status 0 "$LECTERN" build --help
expect_match out '^usage: lectern build PROJECT \[VERSION\] \[--watch\] \[--exit-status\] \[--fresh\]$'
expect_match out '^ +\[--json\]$'
expect_status 2 "$LECTERN" import
expect_match err '^lectern: import: missing arguments'
expect_status 2 "$LECTERN" projects --bogus
expect_match err "^lectern: projects: unknown option '--bogus'$"
expect_status 2 "$LECTERN" versions 'a/b'
expect_match err "^lectern: 'a/b' is not a project slug$"
expect_status 2 "$LECTERN" env p add NAME value-on-argv
expect_match err "unexpected argument 'value-on-argv'"
expect_status 2 "$LECTERN" log abc
expect_status 2 "$LECTERN" search words --version latest
expect_match err '^lectern: search: --version needs --project$'
expect_status 2 "$LECTERN" api projects/
expect_status 2 "$LECTERN" --context
expect_status 2 "$LECTERN" context use
expect_match err '^lectern: usage: lectern context use NAME$'
expect_status 2 "$LECTERN" context remove a b
expect_status 2 "$LECTERN" context list --bogus
expect_status 2 "$LECTERN" context add
expect_status 2 "$LECTERN" stop now

# Nothing above needed an engine, so none was started.
[ ! -e "$LECTERN_DATA/serve.pid" ] && pass || { fail "an engine was started"; "$LECTERN" stop; }

finish
