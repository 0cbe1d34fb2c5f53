# Bash completion for lectern: commands, their options, context names, and
# the project and version slugs of the context the command line names.
# Install: source it from ~/.bashrc, or copy it to
# /usr/share/bash-completion/completions/lectern (the package does).

# The names come from lectern-names.sh (shared with the zsh completion):
# beside this file in the source tree, in share/lectern when installed.
_lectern_names_sh=$(dirname "${BASH_SOURCE[0]}")/lectern-names.sh
[ -f "$_lectern_names_sh" ] ||
	_lectern_names_sh=$(dirname "${BASH_SOURCE[0]}")/../../lectern/lectern-names.sh

# _lectern_names contexts|projects|versions [PROJECT]: for the command as
# typed, with its --data and --context.
_lectern_names()
{
	local i globals=()
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--data|--context) globals+=("${words[i]}" "${words[i+1]}"); ((i++)) ;;
		esac
	done
	sh "$_lectern_names_sh" "${words[0]}" "${globals[@]}" "$@" 2>/dev/null
}

_lectern()
{
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}

	local commands="projects import versions version builds build preview-branch log cancel warnings search addons
		redirects env integrations subprojects translations orgs api tui
		notifications webhooks
		context stop diff mirror
		serve preview check mcp status token user org reindex help remove"
	local globals="--data --context --help --version"

	case $prev in
	--context)
		COMPREPLY=($(compgen -W "$(_lectern_names contexts)" -- "$cur"))
		return ;;
	--data|--token-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-X|--method)
		COMPREPLY=($(compgen -W "GET POST PUT PATCH DELETE" -- "$cur"))
		return ;;
	--edition)
		COMPREPLY=($(compgen -W "community business" -- "$cur"))
		return ;;
	esac

	# The command: the first word that is not a global option or its value;
	# then its positional arguments and its --project.
	local i cmd="" sub="" project=""
	local args=()
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--project) project=${words[i+1]}; ((i++)) ;;
		--data|--context|--commit|--alias|--version|--limit) ((i++)) ;;
		-*) ;;
		*) if [ -z "$cmd" ]; then cmd=${words[i]}; else args+=("${words[i]}"); fi ;;
		esac
	done
	sub=${args[0]}

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	local opts="--help"
	# Project and version slugs, where a command takes them.
	if [[ $cur != -* ]]; then
		local want=""
		case $cmd:${#args[@]}:$prev in
		search:*:--project) want=projects ;;
		search:*:--version) [ -n "$project" ] && want=versions ;;
		search:*) ;;
		*:*:--commit|*:*:--alias|*:*:--limit) ;;
		versions:0:*|version:0:*|builds:0:*|build:0:*|remove:0:*|redirects:0:*|env:0:*|integrations:0:*|webhooks:0:*|subprojects:0:*|translations:0:*|reindex:0:*|diff:0:*)
			want=projects ;;
		version:1:*|build:1:*|reindex:1:*|diff:1:*|diff:2:*)
			want=versions project=${args[0]} ;;
		esac
		if [ -n "$want" ]; then
			COMPREPLY=($(compgen -W "$(_lectern_names $want $project)" -- "$cur"))
			return
		fi
	fi

	case $cmd in
	projects|translations|orgs|versions) opts="--json --help" ;;
	remove) opts="--yes --help" ;;
	import) opts="--name --language --programming-language --organization --no-wait --json --help" ;;
	version) opts="--active --inactive --hidden --visible --json --help" ;;
	builds) opts="--all --running --commit --limit --json --help" ;;
	build|preview-branch) opts="--watch --exit-status --json --help" ;;
	addons) opts="--json --help" ;;
	log) opts="--follow --json --help" ;;
	cancel|status) opts="--json --help" ;;
	warnings) opts="--new --json --help" ;;
	search) opts="--project --version --json --help" ;;
	redirects) opts="--json --help" ;;
	env) opts="--public --json --help" ;;
	integrations) opts="--json --help" ;;
	notifications) opts="--project --build --all --json --help" ;;
	webhooks) opts="--events --payload --json --help" ;;
	subprojects) opts="--alias --json --help" ;;
	api) opts="-X -d --help" ;;
	diff) opts="--json --help" ;;
	mirror)
		if [ -z "$sub" ]; then
			COMPREPLY=($(compgen -W "add update" -- "$cur"))
			return
		fi
		[ "$sub" = add ] && [ "${#args[@]}" -eq 1 ] && [[ $cur != -* ]] &&
			{ COMPREPLY=($(compgen -W "$(_lectern_names contexts)" -- "$cur")); return; }
		opts="--interval --help"
		[ "$sub" = add ] && opts="--version --interval --help" ;;
	tui) opts="--theme --readonly --help" ;;
	help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
	context)
		if [ -z "$sub" ]; then
			COMPREPLY=($(compgen -W "list use add remove" -- "$cur"))
			return
		fi
		case $sub in
		use|remove) COMPREPLY=($(compgen -W "$(_lectern_names contexts)" -- "$cur")); return ;;
		add) opts="--url --docs-domain --token-env --token-file --ssh --remote-command --ssh-options --readonly --help" ;;
		list) opts="--json --help" ;;
		esac ;;
	preview) opts="--port --cache --help"
		[[ $cur == -* ]] || { COMPREPLY=($(compgen -d -- "$cur")); return; } ;;
	mcp) opts="--context --allow-write --help" ;;
	check) opts="--new-only --json --cache --help"
		[[ $cur == -* ]] || { COMPREPLY=($(compgen -d -- "$cur")); return; } ;;
	serve) opts="--listen --edition --docs-domain --threads --workers --local-repos --local-engine --socket --print-socket --detach --trust-forwarded --build-timeout --build-memory --build-output --keep-builds --import-limit --queue-limit --help" ;;
	token) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "create list revoke" -- "$cur")); return; }
		case $sub in
		list) opts="--json --help" ;;
		revoke) opts="--all --help" ;;
		esac ;;
	user) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "list logout" -- "$cur")); return; }
		opts="--json --help" ;;
	org) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "create list owner team project" -- "$cur")); return; } ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# redirects|env|integrations|subprojects PROJECT: then the action
	# word; integrations add: the forge.
	case $cmd in
	redirects|env|integrations|subprojects)
		[ "${#args[@]}" -eq 1 ] && COMPREPLY=($(compgen -W "add remove" -- "$cur"))
		[ "$cmd" = integrations ] && [ "${#args[@]}" -eq 2 ] && [ "${args[1]}" = add ] &&
			COMPREPLY=($(compgen -W "github gitlab bitbucket generic" -- "$cur")) ;;
	webhooks)
		[ "${#args[@]}" -eq 1 ] && COMPREPLY=($(compgen -W "add remove deliveries" -- "$cur")) ;;
	notifications)
		[ "${#args[@]}" -eq 0 ] && COMPREPLY=($(compgen -W "read dismiss" -- "$cur")) ;;
	esac
}

complete -F _lectern lectern
