#!/bin/sh
# Help (issue 31, item 10): a group's word alone (`lectern context`) lists
# the commands under it; `lectern help [COMMAND]`; every command's --help
# says what each option of its usage line does, gives an example, and
# keeps to 80 columns (serve's options table included).
. "$LEC_TESTS/cli/lib.sh"

for group in context token mirror org user "org team"; do
	# shellcheck disable=SC2086
	"$LECTERN" $group >"$DATA/out" 2>"$DATA/err"
	got=$?
	if [ "$got" -eq 2 ] && grep -q "^  $group [a-z]" "$DATA/err" &&
		! grep -q "unknown command" "$DATA/err"; then pass; else
		fail "'lectern $group' exited $got: $(cat "$DATA/err")"
	fi
	# shellcheck disable=SC2086
	expect_status 0 "$LECTERN" $group --help
	expect_match out "^  $group [a-z]"
done
expect_status 2 "$LECTERN" context frob
expect_match err "unknown command 'frob' after 'context'"
expect_match err '^  context add '
expect_status 0 "$LECTERN" help
expect_match out '^  help '
expect_status 0 "$LECTERN" help build
expect_match out '^usage: lectern build PROJECT'
expect_status 0 "$LECTERN" help context
expect_match out '^  context use '
expect_status 2 "$LECTERN" help nosuch

# Every command of the list.
"$LECTERN" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z ]*[a-z]\)  .*/\1/p' |
	sed 's/ *$//' >"$DATA/commands"
[ "$(wc -l <"$DATA/commands")" -ge 40 ] && pass || fail "only $(wc -l <"$DATA/commands") commands listed"
while read -r cmd; do
	# shellcheck disable=SC2086
	if ! "$LECTERN" $cmd --help >"$DATA/help" 2>&1; then
		fail "'$cmd --help' failed: $(cat "$DATA/help")"
		continue
	fi
	long=$(awk 'length($0) > 80' "$DATA/help")
	[ -z "$long" ] && pass || fail "'$cmd --help' has lines over 80 columns:
$long"
	grep -q '^examples:' "$DATA/help" && grep -q "^  .*lectern " "$DATA/help" && pass ||
		fail "'$cmd --help' gives no example:
$(cat "$DATA/help")"
	# Each option of the usage lines (before the first blank line) is
	# described: its name starts an options line and text follows.
	sed '/^$/q' "$DATA/help" | grep -o -- '-[-a-zA-Z][-a-z]*' | grep -v '^-$' | sort -u |
		while read -r opt; do
			grep -Eq -- "^  ($opt|[^ ].*, $opt)( [^ ]+)?( +[^ ]|\$)" "$DATA/help" ||
				echo "$opt"
		done >"$DATA/missing"
	[ ! -s "$DATA/missing" ] && pass || fail "'$cmd --help' does not say what $(tr '\n' ' ' <"$DATA/missing")does:
$(cat "$DATA/help")"
done <"$DATA/commands"

finish
