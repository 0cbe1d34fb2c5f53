# Fixture git repositories for the shell tests (sourced, not run): git with
# a fixed identity and neither the user's nor the system's configuration,
# so a fixture is made the same way on every machine.
git_env() {
	env GIT_AUTHOR_NAME=Fixture GIT_AUTHOR_EMAIL=f@example.test \
		GIT_COMMITTER_NAME=Fixture GIT_COMMITTER_EMAIL=f@example.test \
		GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null git "$@"
}

# make_repo DIR: a repository on branch main with what is in DIR.
make_repo() {
	git_env init -q -b main "$1"
	git_env -C "$1" add -A
	git_env -C "$1" commit -q -m docs
}
