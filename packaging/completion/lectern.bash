# Bash completion for lectern: commands, their options, and context names.
# Install: source it from ~/.bashrc, or copy it to
# /usr/share/bash-completion/completions/lectern.

_lectern_contexts()
{
	local cfg="${XDG_CONFIG_HOME:-$HOME/.config}/lectern/config"
	echo local
	[ -r "$cfg" ] && sed -n 's/^[[:space:]]*\[context[[:space:]]\{1,\}\([^]]*\)\].*/\1/p' "$cfg"
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

	local commands="projects import versions version builds build log search
		redirects env subprojects translations orgs api tui context stop
		serve preview status token user org reindex"
	local globals="--data --context --help --version"

	case $prev in
	--context)
		COMPREPLY=($(compgen -W "$(_lectern_contexts)" -- "$cur"))
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

	# The command: the first word that is not a global option or its value.
	local i cmd="" sub=""
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--data|--context) ((i++)) ;;
		-*) ;;
		*) if [ -z "$cmd" ]; then cmd=${words[i]}; elif [ -z "$sub" ]; then sub=${words[i]}; fi ;;
		esac
	done

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	local opts="--help"
	case $cmd in
	projects|translations|orgs|versions) opts="--json --help" ;;
	import) opts="--name --language --programming-language --organization --no-wait --json --help" ;;
	version) opts="--active --inactive --hidden --visible --json --help" ;;
	builds) opts="--running --commit --json --help" ;;
	build) opts="--watch --exit-status --json --help" ;;
	log) opts="--follow --json --help" ;;
	search) opts="--project --version --json --help" ;;
	redirects) opts="--json --help" ;;
	env) opts="--public --json --help" ;;
	subprojects) opts="--alias --json --help" ;;
	api) opts="-X -d --help" ;;
	tui) opts="--theme --help" ;;
	context)
		if [ -z "$sub" ]; then
			COMPREPLY=($(compgen -W "list use add remove" -- "$cur"))
			return
		fi
		case $sub in
		use|remove) COMPREPLY=($(compgen -W "$(_lectern_contexts)" -- "$cur")); return ;;
		add) opts="--url --docs-domain --token-env --token-file --readonly --help" ;;
		list) opts="--json --help" ;;
		esac ;;
	preview) opts="--port --cache --help"
		[[ $cur == -* ]] || { COMPREPLY=($(compgen -d -- "$cur")); return; } ;;
	serve) opts="--listen --edition --docs-domain --threads --workers --local-repos --build-timeout --build-memory --build-output --help" ;;
	token) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "create" -- "$cur")); return; } ;;
	user) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "list" -- "$cur")); return; }
		opts="--json --help" ;;
	org) [ -z "$sub" ] && { COMPREPLY=($(compgen -W "create list owner team project" -- "$cur")); return; } ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# redirects|env|subprojects PROJECT: then the action word.
	case $cmd in
	redirects|env|subprojects)
		local n=0
		for ((i = 1; i < cword; i++)); do
			case ${words[i]} in
			--data|--context|--alias) ((i++)) ;;
			-*) ;;
			*) n=$((n + 1)) ;;
			esac
		done
		[ "$n" -eq 2 ] && COMPREPLY=($(compgen -W "add remove" -- "$cur")) ;;
	esac
}

complete -F _lectern lectern
