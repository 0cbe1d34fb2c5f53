#compdef lectern
# Zsh completion for lectern: commands, their options, context names, and
# the project and version slugs of the context the command line names.
# Install: copy to a directory in $fpath as _lectern (e.g.
# /usr/share/zsh/vendor-completions/_lectern, as the package does), then
# run compinit.

# The names come from lectern-names.sh (shared with the bash completion):
# beside this file in the source tree, in share/lectern when installed.
# It runs the command as typed (lectern_bin) with its --data and --context
# (lectern_globals), both set by _lectern.
_lectern_names() {
	local dir=${functions_source[_lectern]:h} helper
	for helper in $dir/lectern-names.sh $dir/../../lectern/lectern-names.sh; do
		[[ -f $helper ]] && break
	done
	sh $helper $lectern_bin $lectern_globals "$@" 2>/dev/null
}

_lectern_contexts() {
	local -a names
	names=(${(f)"$(_lectern_names contexts)"})
	_describe -t contexts 'context' names
}

_lectern_projects() {
	local -a names
	names=(${(f)"$(_lectern_names projects)"})
	_describe -t projects 'project' names
}

# The versions of the project: search's --project, else the command's
# first argument (_arguments passes an action's own arguments after its
# compadd options, so the project is not one of them).
_lectern_versions() {
	local project=${opt_args[--project]:-$words[2]}
	local -a names
	[[ -n $project ]] && names=(${(f)"$(_lectern_names versions $project)"})
	_describe -t versions 'version' names
}

_lectern() {
	local -a commands
	commands=(
		'projects:list the projects'
		'import:import a git repository as a project'
		'versions:list the versions of a project'
		'version:show or flag a version'
		'builds:list the builds of a project'
		'build:trigger a build and follow it'
		'preview-branch:build a branch as a preview on its own host'
		'log:print a build'"'"'s commands and output'
		'cancel:stop a queued or running build'
		'warnings:print a build'"'"'s warnings and broken links'
		'search:search your projects'"'"' documentation'
		'addons:show or set a project'"'"'s reader addons'
		'redirects:list, add or remove redirects'
		'env:list, add or remove environment variables'
		'integrations:list, add or remove incoming webhooks'
		'notifications:list your notifications, or mark one read or dismissed'
		'webhooks:list, add or remove outgoing webhooks, or their deliveries'
		'subprojects:list, add or remove subprojects'
		'translations:list the translations of a project'
		'orgs:list the organizations'
		'api:send a request to the API'
		'tui:browse projects and watch builds full-screen'
		'context:list, use, add or remove contexts'
		'stop:stop the context'"'"'s engine (local, or an ssh context'"'"'s)'
		'diff:what changed between two versions or builds of the docs'
		'mirror:copy a remote project'"'"'s docs here, or refresh the copies'
		'serve:run the local engine in the foreground'
		'preview:build a working tree, serve it, rebuild on save'
		'mcp:serve the documentation to coding agents (Model Context Protocol)'
		'check:build a working tree once and print its warnings'
		'status:what the context'"'"'s engine is doing (version, workers, builds)'
		'token:create, list or revoke API tokens'
		'user:list the users, or log one out'
		'org:manage organizations (business edition)'
		'reindex:rebuild search indexes from published HTML'
		'help:list the commands, or show one'"'"'s help'
		'remove:remove a project with everything of it'
	)
	local curcontext=$curcontext state line
	local -A opt_args
	local lectern_bin=$words[1]
	local -a lectern_globals

	_arguments -C \
		'--data[data directory]:directory:_files -/' \
		'--context[the instance to talk to]:context:_lectern_contexts' \
		'(- *)--help[print the help]' \
		'(- *)--version[print the version]' \
		'1:command:->command' \
		'*::argument:->argument' && return

	case $state in
	command)
		_describe -t commands 'lectern command' commands ;;
	argument)
		[[ -n $opt_args[--data] ]] && lectern_globals+=(--data $opt_args[--data])
		[[ -n $opt_args[--context] ]] && lectern_globals+=(--context $opt_args[--context])
		local -a common=('--json[print the API'"'"'s JSON]' '--help[usage]')
		case $words[1] in
		projects|orgs)
			_arguments $common ;;
		translations|versions)
			_arguments $common '1:project:_lectern_projects' ;;
		remove)
			_arguments '--yes[remove without asking]' '1:project:_lectern_projects' ;;
		import)
			_arguments $common '--name[project name]:name:' \
				'--language[language code]:code:' \
				'--programming-language[programming language code]:code:' \
				'--organization[organization slug]:slug:' \
				'--no-wait[do not wait for the first build]' \
				'1:repository URL:_urls' ;;
		version)
			_arguments $common '(--inactive)--active' '(--active)--inactive' \
				'(--visible)--hidden' '(--hidden)--visible' \
				'1:project:_lectern_projects' '2:version:_lectern_versions' ;;
		builds)
			_arguments $common '--all[every project'"'"'s builds]' \
				'--running[only running builds]' \
				'--commit[only builds of this commit]:commit:' \
				'--limit[only the newest N]:count:' '1:project:_lectern_projects' ;;
		build)
			_arguments $common '--watch[follow the build]' \
				'--exit-status[fail when the build fails]' \
				'1:project:_lectern_projects' '2:version:_lectern_versions' ;;
		preview-branch)
			_arguments $common '--watch[follow the build]' \
				'--exit-status[fail when the build fails]' \
				'1:project:_lectern_projects' '2:branch:' ;;
		addons)
			_arguments $common '1:project:_lectern_projects' '*:setting (NAME=VALUE):' ;;
		log)
			_arguments $common '--follow[follow until finished]' '1:build id:' ;;
		cancel)
			_arguments $common '1:build id:' ;;
		warnings)
			_arguments $common '--new[only the new ones]' \
				'1:project or build id:_lectern_projects' '2:build id:' ;;
		search)
			_arguments $common '--project[project slug]:project:_lectern_projects' \
				'--version[version slug]:version:_lectern_versions' '1:query:' ;;
		redirects)
			_arguments $common '1:project:_lectern_projects' '2:action:(add remove)' '*:argument:' ;;
		env)
			_arguments $common '--public[visible in pull-request builds]' \
				'1:project:_lectern_projects' '2:action:(add remove)' '3:name:' ;;
		integrations)
			_arguments $common '1:project:_lectern_projects' '2:action:(add remove)' \
				'3:forge or id:(github gitlab bitbucket generic)' ;;
		notifications)
			_arguments $common '--project[a project'"'"'s notifications]:project:_lectern_projects' \
				'--build[a build'"'"'s notifications]:build id:' '--all[every state]' \
				'1:action:(read dismiss)' '2:id:' ;;
		webhooks)
			_arguments $common '--events[events, comma-separated]:events:' \
				'--payload[a JSON template file]:file:_files' \
				'1:project:_lectern_projects' '2:action:(add remove deliveries)' '3:url or id:' ;;
		subprojects)
			_arguments $common '--alias[alias of the child]:alias:' \
				'1:project:_lectern_projects' '2:action:(add remove)' '3:child:' ;;
		api)
			_arguments '-X[method]:method:(GET POST PUT PATCH DELETE)' \
				'-d[JSON body]:json:' '1:path:' ;;
		tui)
			_arguments '--theme[a theme name or file]:theme:_files' \
				'--readonly[refuse every change]' ;;
		help)
			_describe -t commands 'lectern command' commands ;;
		reindex)
			_arguments '1:project:_lectern_projects' '2:version:_lectern_versions' ;;
		diff)
			_arguments '--json' '1:project:_lectern_projects' \
				'2:base (version or build\:ID):_lectern_versions' \
				'3:head (version or build\:ID):_lectern_versions' '4:page:' ;;
		mirror)
			if (( CURRENT == 2 )); then
				_values 'action' add update
			else
				case $words[2] in
				add) _arguments '*--version[a version to copy]:version:' \
					'--interval[ms between requests]:ms:' \
					'2:context:_lectern_contexts' '3:remote project:' ;;
				update) _arguments '--interval[ms between requests]:ms:' ;;
				esac
			fi ;;
		context)
			if (( CURRENT == 2 )); then
				_values 'action' list use add remove
			else
				case $words[2] in
				use|remove) _lectern_contexts ;;
				list) _arguments '--json' ;;
				add) _arguments '--url[API base URL]:url:_urls' \
					'--docs-domain[docs host]:host:' \
					'(--token-file)--token-env[token variable]:variable:_parameters' \
					'(--token-env)--token-file[0600 token file]:file:_files' \
					'--ssh[remote engine over ssh]:[user@]host[\:port]:_hosts' \
					'--remote-command[remote lectern path]:path:' \
					'--ssh-options[extra ssh arguments]:options:' \
					'--readonly[refuse changes]' ;;
				esac
			fi ;;
		preview)
			_arguments '--port:port:' '--cache:directory:_files -/' '1:tree:_files -/' ;;
		mcp)
			_arguments '--context:context:_lectern_contexts' '--allow-write[offer trigger_build]' ;;
		check)
			_arguments '--new-only[only what the last good build lacked]' '--json' \
				'--cache:directory:_files -/' '1:tree:_files -/' ;;
		serve)
			_arguments '--listen:host\:port:' '--edition:edition:(community business)' \
				'--docs-domain:domain:' '--threads:n:' '--workers:n:' \
				'--local-repos:directories:_files -/' '--local-engine' \
				'--socket:socket:_files' '--print-socket' '--detach' '--trust-forwarded' \
				'--build-timeout:seconds:' '--build-memory:MiB:' '--build-output:MiB:' \
				'--import-limit:n:' '--queue-limit:n:' ;;
		status)
			_arguments '--json[print JSON]' ;;
		token) _values 'action' create list revoke ;;
		user) _values 'action' list logout ;;
		org) _values 'action' create list owner team project ;;
		esac ;;
	esac
}

_lectern "$@"
