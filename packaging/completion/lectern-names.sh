#!/bin/sh
# The names the bash and zsh completions of lectern offer beyond commands
# and options, one a line: the contexts, the project slugs or one
# project's version slugs of the context the command line names. Both
# completions run this one script: beside them in the source tree, or in
# share/lectern of an install.
#
# usage: lectern-names.sh LECTERN [--data DIR] [--context NAME] contexts|projects|versions [PROJECT]
#
# Fast and quiet, as a Tab press wants: lists come from the instance
# through LECTERN (the command as typed) with a 3-second limit and are
# cached for 5 seconds in $XDG_CACHE_HOME/lectern/complete/; the local
# context is asked only while its engine runs (a Tab never starts one);
# every error prints nothing.
lectern=$1
shift
data="" context=""
while [ $# -gt 0 ]; do
	case $1 in
	--data) data=$2; shift 2 ;;
	--context) context=$2; shift 2 ;;
	*) break ;;
	esac
done
kind=${1:-} project=${2:-}
config=${XDG_CONFIG_HOME:-$HOME/.config}/lectern/config

contexts() {
	echo local
	[ -r "$config" ] &&
		sed -n 's/^[[:space:]]*\[context[[:space:]]\{1,\}\([^]]*\)\].*/\1/p' "$config"
}

case $kind in
contexts) contexts; exit 0 ;;
projects) set -- projects ;;
versions) [ -n "$project" ] || exit 0; set -- versions "$project" ;;
*) exit 0 ;;
esac

# The context as the CLI picks it: --context, $LECTERN_CONTEXT, the
# config's current-context, else local.
[ -n "$context" ] || context=${LECTERN_CONTEXT:-}
[ -n "$context" ] || [ ! -r "$config" ] ||
	context=$(sed -n 's/^[[:space:]]*current-context[[:space:]]*=[[:space:]]*\([^[:space:]#;]*\).*/\1/p' "$config" | head -n 1)
[ -n "$context" ] || context=local

if [ "$context" = local ]; then
	[ -n "$data" ] || data=${LECTERN_DATA:-}
	[ -n "$data" ] || data=${XDG_DATA_HOME:-$HOME/.local/share}/lectern
	pid=$(cat "$data/serve.pid" 2>/dev/null) || exit 0
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || exit 0
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}/lectern/complete
key=$(printf '%s\n' "$context" "$data" "$@" | cksum | cut -d ' ' -f 1)
file=$cache/$key
if [ -f "$file" ] && [ $(($(date +%s) - $(stat -c %Y "$file" 2>/dev/null || echo 0))) -lt 5 ]; then
	cat "$file"
	exit 0
fi

set -- --context "$context" "$@"
[ -z "$data" ] || set -- --data "$data" "$@"
table=$(timeout 3 "$lectern" "$@" </dev/null 2>/dev/null) || exit 0
# The first column of the table under its header: the slugs.
names=$(printf '%s\n' "$table" | awk 'NR > 1 { print $1 }')
[ -n "$names" ] || exit 0
printf '%s\n' "$names"
(umask 077 && mkdir -p "$cache" && printf '%s\n' "$names" >"$file.$$" &&
	mv -f "$file.$$" "$file") 2>/dev/null
exit 0
