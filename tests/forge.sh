# A forge's side of a pull request for the shell tests (sourced, not run;
# needs git.sh): the head GitHub keeps of one, and its signed delivery.

# pull_request_head REPO NUMBER FILE TEXT: a commit beside main's whose
# FILE (a path in REPO) is TEXT, named only by refs/pull/NUMBER/head, as
# GitHub keeps a pull request's head; its id on stdout.
pull_request_head() {
	git_env -C "$1" checkout -q -b "pull-$2"
	printf '%s\n' "$4" >"$1/$3"
	git_env -C "$1" add -A
	git_env -C "$1" commit -q -m "Pull request $2"
	git_env -C "$1" update-ref "refs/pull/$2/head" HEAD
	git_env -C "$1" rev-parse HEAD
	git_env -C "$1" checkout -q main
	git_env -C "$1" branch -q -D "pull-$2"
}

# github_opened URL SECRET NUMBER HEAD: GitHub's pull_request "opened"
# delivery to the webhook URL, signed with SECRET; the answer on stdout.
github_opened() {
	go_body='{"action": "opened", "number": '"$3"', "pull_request": {"head": {"sha": "'"$4"'", "ref": "fix"}, "base": {"ref": "main"}}, "repository": {"full_name": "example/docs"}}'
	go_sig=$(printf '%s' "$go_body" | /usr/bin/python3 -c 'import hmac, hashlib, sys; print("sha256=" + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())' "$2")
	curl -s -H 'Content-Type: application/json' -H 'X-GitHub-Event: pull_request' \
		-H "X-Hub-Signature-256: $go_sig" -d "$go_body" "$1"
}
