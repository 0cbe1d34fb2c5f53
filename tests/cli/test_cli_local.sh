#!/bin/sh
# The CLI against real engines: the auto-started local one (started once
# even by CLIs racing, found again by later commands, replaced when its
# files are stale, stopped by `lectern stop`), and a second `lectern serve`
# on another port used as a remote context with its own token file, where
# the same commands give the same results. A Markdown fixture repository
# is imported, built, watched to success and its log printed.
. "$LEC_TESTS/cli/lib.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
REMOTE_DATA="$DATA/remote"
remote_pid=
biz_pid=

cleanup() {
	"$LECTERN" stop >/dev/null 2>&1
	for pid in $remote_pid $biz_pid; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A git repository with Markdown only (the built-in builder).
. "$LEC_TESTS/git.sh"
REPO="$DATA/guide.git"
mkdir -p "$REPO/docs"
printf '# Markdown Guide\n\nWelcome. See [install](docs/install.md).\n' >"$REPO/README.md"
printf '# Install\n\n## Setup\n\nRun it.\n' >"$REPO/docs/install.md"
make_repo "$REPO"
git_env -C "$REPO" branch dev

engine_pid() { cat "$LECTERN_DATA/serve.pid" 2>/dev/null; }
# A process that runs: not gone and not a zombie (the engine's parent CLI
# has exited, and PID 1 in a container may never reap it).
alive() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'; }
listening_lines() { grep -c '^listening on ' "$LECTERN_DATA/serve.log"; }

# ---- The local engine starts on first use, once, even when CLIs race.
expect_status 0 "$LECTERN" stop
expect_match out "^no local engine is running for $LECTERN_DATA$"
# status says whether the engine runs (issue 31, item 13).
expect_status 0 "$LECTERN" status
expect_match out '^engine: +not running \(the next command starts it'
for i in 1 2 3 4; do
	"$LECTERN" projects >"$DATA/race$i" 2>&1 &
done
wait
for i in 1 2 3 4; do
	grep -Eq '^SLUG +NAME' "$DATA/race$i" && pass || fail "racing CLI $i: $(cat "$DATA/race$i")"
done
[ "$(listening_lines)" -eq 1 ] && pass || fail "racing CLIs started $(listening_lines) engines"
pid1=$(engine_pid)
alive "$pid1" && pass || fail "engine pid $pid1 is not running"
expect_status 0 "$LECTERN" status
expect_match out "^engine: +running \\(pid $pid1\\) at http://127\\.0\\.0\\.1:$(cat "$LECTERN_DATA/serve.port")\$"
for f in serve.pid serve.port cli-token; do
	[ "$(stat -c %a "$LECTERN_DATA/$f")" = 600 ] && pass || fail "$f mode is not 0600"
done
grep -Eq '^[0-9a-f]{40}$' "$LECTERN_DATA/cli-token" && pass || fail "cli-token holds no token"
# The local user was made engine-direct, named after $USER or "local".
expect_status 0 "$LECTERN" user list
expect_match out "^(${USER:-local}|local) +yes"
# A later command finds the same engine.
expect_status 0 "$LECTERN" projects
[ "$(engine_pid)" = "$pid1" ] && [ "$(listening_lines)" -eq 1 ] && pass || fail "a second engine started"

# ---- Import with first-build progress; build --watch to success.
expect_status 0 "$LECTERN" import "file://$REPO" --name "Guide"
expect_match out '^imported guide: http://guide\.localhost:[0-9]+/en/latest/$'
# This test commits and builds by hand: no builds on commit.
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/guide/ -d '{"watch_commits": false}'
expect_status 0 "$LECTERN" projects
# Each project's newest build (issue 31, item 13).
expect_match out '^SLUG +NAME +LANGUAGE +DEFAULT +LAST BUILD +REPOSITORY$'
expect_match out "^guide +Guide +en +latest +#[0-9]+ passed +file://$REPO\$"
expect_status 0 "$LECTERN" versions guide
expect_match out '^latest +branch +yes +no +yes +main$'
expect_match out '^dev +branch +no +no +no +dev$'
expect_status 0 "$LECTERN" build guide --watch --exit-status
expect_match out '^triggered build 2 of guide/latest$'
expect_match out '^build 2: finished$'
expect_match out '^build 2 passed$'
if grep -q "$(printf '\033')" "$DATA/out" "$DATA/err"; then fail "progress drawn off a terminal"; else pass; fi
# On a terminal (script(1) gives a pty), a progress line is redrawn.
script -qec "\"$LECTERN\" build guide --watch" /dev/null >"$DATA/tty" 2>&1
grep -q "$(printf '\033')\\[K. build 3: " "$DATA/tty" && pass || fail "no progress line on a terminal: $(cat "$DATA/tty")"
expect_match_tty() { grep -Eq "$1" "$DATA/tty" && pass || fail "tty output does not match /$1/"; }
expect_match_tty 'build 3 passed'
expect_status 0 "$LECTERN" builds guide
expect_match out '^ID +VERSION +STATE +RESULT +COMMIT +CREATED +DURATION +CACHE$'
# CREATED to the second, in local time (issue 43, item 8: not
# "2026-08-22T10:11:12.123456Z").
expect_match out '^3 +latest +finished +passed +[0-9a-f]{12} +20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} +[0-9]+s +'
if grep -Eq '[0-9]T[0-9]|\.[0-9]{6}' "$DATA/out"; then fail "CREATED as ISO text: $(cat "$DATA/out")"; else pass; fi
expect_match out '^1 +latest +finished +passed '
# --limit N: the newest N only, as gh's --limit.
expect_status 0 "$LECTERN" builds guide --limit 2
[ "$(sed 1d "$DATA/out" | awk '{print $1}' | tr '\n' ' ')" = "3 2 " ] && pass ||
	fail "builds --limit 2: $(cat "$DATA/out")"
expect_status 0 "$LECTERN" builds guide --limit 1 --json
expect_match out '^\{"count":1,"next":null,"previous":null,"results":\[\{"_links'
expect_status 2 "$LECTERN" builds guide --limit 0
expect_match err "^lectern: builds: --limit wants a number of builds \\(1 to [0-9]+\\), not '0'\$"
commit=$(git -C "$REPO" rev-parse HEAD)
expect_status 0 "$LECTERN" builds guide --commit "$commit" --json
expect_match out '^\{"count":3,"next":null,"previous":null,"results":\[\{'
expect_status 0 "$LECTERN" builds guide --commit 0000000 --json
expect_match out '^\{"count":0,"next":null,"previous":null,"results":\[\]\}$'
expect_status 0 "$LECTERN" builds guide --running
[ "$(grep -c . "$DATA/out")" -eq 1 ] && pass || fail "finished builds listed as running"
expect_status 0 "$LECTERN" log 2
expect_match out '^\$ git '
expect_match out '^\$ lectern markdown '
expect_match out '^2 pages, '
expect_status 0 "$LECTERN" log 2 --follow
expect_match out '^build 2 passed$'
expect_status 0 "$LECTERN" log 2 --json
expect_match out '^\{.*"commands":\[\{'
# What each build reused of the one before: build 3 kept everything (the
# commit did not change); a fresh one reused nothing, and says why.
expect_status 0 "$LECTERN" log 3
expect_match out '^cache: kept$'
expect_status 0 "$LECTERN" build guide --fresh --watch --exit-status
fresh=$(sed -n 's/^triggered build \([0-9]*\) of guide\/latest$/\1/p' "$DATA/out")
expect_status 0 "$LECTERN" log "$fresh"
expect_match out '^cache: fresh \(checkout: a fresh build was asked for\)$'
expect_status 0 "$LECTERN" builds guide
expect_match out "^$fresh +latest +finished +passed +[0-9a-f]{12} +20[0-9: -]+ +[0-9]+s +fresh\$"
expect_match out '^3 +latest +finished +passed +[0-9a-f]{12} +20[0-9: -]+ +[0-9]+s +kept$'
expect_status 1 "$LECTERN" log 999
expect_match err "^lectern: no build 999 on the local engine\$"

# Search (on the docs host, <slug>.localhost:<port>): the built pages.
# Each page found with the section that matched and its snippet.
expect_status 0 "$LECTERN" search Setup --project guide
expect_match out '^guide/latest /en/latest/install\.html  Install$'
expect_match out '^    Setup: Run it\.$'
[ "$(grep -c . "$DATA/out")" -eq 2 ] && pass || fail "search found extra pages: $(cat "$DATA/out")"
# Without --project: every project of the user (v3's user:@me).
expect_status 0 "$LECTERN" search Setup
expect_match out '^guide/latest /en/latest/install\.html  Install$'
expect_match out '^    Setup: Run it\.$'
if grep -q "$(printf '\033')" "$DATA/out"; then fail "search highlighted off a terminal"; else pass; fi
# On a terminal the matched words are highlighted.
script -qec "\"$LECTERN\" search Setup" /dev/null >"$DATA/tty" 2>&1
grep -q "^    $(printf '\033')\\[1;33mSetup$(printf '\033')\\[0m: Run it\\." "$DATA/tty" && pass ||
	fail "no highlight on a terminal: $(cat -v "$DATA/tty")"
expect_status 0 "$LECTERN" search Setup --project guide --version latest --json
expect_match out '^\{"count":1,.*"id":"setup","title":"Setup",.*"highlights":\{"title":\["<span>Setup</span>"\]'
expect_status 0 "$LECTERN" search zzyzx --project guide
expect_match out "^no page matches 'zzyzx'\$"
[ "$(grep -c . "$DATA/out")" -eq 1 ] && pass || fail "search for nothing found something"
expect_status 1 "$LECTERN" search Setup --project nope
expect_match err '\(HTTP 404\)$'

# A build that fails: --exit-status says so (a dev version with bad config).
printf 'version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "3.12"\n  commands:\n    - "exit 3"\n' \
	>"$REPO/.readthedocs.yaml"
git_env -C "$REPO" add -A
git_env -C "$REPO" commit -q -m broken
expect_status 1 "$LECTERN" build guide latest --exit-status
expect_match err "^lectern: build $((fresh + 1)) failed\$"
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "build failure is not one line"
expect_status 0 "$LECTERN" build guide latest --watch
expect_match out "^build $((fresh + 2)) failed: Command \"exit 3\" failed with exit code 3\.\$"
expect_status 0 "$LECTERN" log 5
expect_match out '^\(exit status 3\)$'
git_env -C "$REPO" reset -q --hard HEAD~1

# log --follow prints a running build's output as it comes, to the end.
SLOW="$DATA/slow.git"
mkdir -p "$SLOW"
cat >"$SLOW/.readthedocs.yaml" <<'EOF'
version: 2
build:
  os: ubuntu-22.04
  tools:
    python: "3.12"
  commands:
    - "echo first-step"
    - "sleep 2"
    - "mkdir -p $READTHEDOCS_OUTPUT/html && echo '<h1>x</h1>' >$READTHEDOCS_OUTPUT/html/index.html && echo last-step"
EOF
make_repo "$SLOW"
expect_status 0 "$LECTERN" import "file://$SLOW" --name slow --no-wait
slow_id=$("$LECTERN" builds slow | sed -n '2s/ .*//p')
start=$(date +%s)
expect_status 0 "$LECTERN" log "$slow_id" --follow
[ $(($(date +%s) - start)) -ge 1 ] && pass || fail "log --follow did not wait for the build"
expect_match out '^first-step$'
expect_match out '^last-step$'
expect_match out "^build $slow_id passed\$"
[ "$(grep -n '^\$ sleep 2$' "$DATA/out" | cut -d: -f1)" -lt "$(grep -n '^last-step$' "$DATA/out" | cut -d: -f1)" ] \
	&& pass || fail "log --follow out of order: $(cat "$DATA/out")"
[ "$(grep -c '^first-step$' "$DATA/out")" -eq 1 ] && pass || fail "log --follow printed output twice"

# ---- Versions, redirects, variables, subprojects, translations, api.
expect_status 0 "$LECTERN" version guide dev --active --hidden
expect_match out '^dev +branch +yes +yes +no +dev$'
expect_status 0 "$LECTERN" version guide dev --visible --json
expect_match out '"hidden":false'
expect_match out '"active":true'
expect_status 2 "$LECTERN" version guide dev --hidden --visible
# LAST BUILD is the default version's newest build (the one its docs come
# from), not dev's newer one (issue 43, item 12).
expect_status 0 "$LECTERN" build guide dev --exit-status
expect_status 0 "$LECTERN" projects
expect_match out "^guide +Guide +en +latest +#$((fresh + 2)) failed +file://"
expect_status 1 "$LECTERN" version guide nope --active
expect_match err "^lectern: no version 'nope' of project 'guide'\$"

expect_status 0 "$LECTERN" redirects guide add page /old/ /new/
expect_match out '^added redirect [0-9]+$'
rid=$(sed -n 's/^added redirect //p' "$DATA/out")
expect_status 0 "$LECTERN" redirects guide
expect_match out "^$rid +page +/old +/new/\$"
expect_status 1 "$LECTERN" redirects guide add bogus /a/ /b/
expect_match err '\(HTTP 400\)$'
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "validation error is not one line"
expect_status 0 "$LECTERN" redirects guide remove "$rid"
expect_status 0 "$LECTERN" redirects guide --json
expect_match out '^\{"count":0,"next":null,"previous":null,"results":\[\]\}$'

printf 'hunter2\n' | "$LECTERN" env guide add SECRET_NAME >"$DATA/out" 2>"$DATA/err" \
	&& pass || fail "env add failed: $(cat "$DATA/err")"
expect_match out '^added variable SECRET_NAME to guide$'
expect_status 0 "$LECTERN" env guide
expect_match out '^[0-9]+ +SECRET_NAME +no +20'
expect_status 0 "$LECTERN" env guide --json
if grep -q hunter2 "$DATA/out"; then fail "a variable's value was printed"; else pass; fi
expect_status 0 "$LECTERN" env guide remove SECRET_NAME
expect_status 1 "$LECTERN" env guide remove SECRET_NAME
expect_match err "^lectern: 'guide' has no variable SECRET_NAME$"

expect_status 0 "$LECTERN" import "file://$REPO" --name "Child Docs" --no-wait
expect_match out '^imported child-docs'
# A directory named as typed, for the local engine: its file:// URL.
expect_status 0 sh -c "cd '$DATA' && '$LECTERN' import ./guide.git/ --name 'Path Docs' --no-wait"
expect_match out '^imported path-docs'
expect_status 0 "$LECTERN" api /api/v3/projects/path-docs/
expect_match out "\"url\":\"file://$DATA/guide\\.git\""
# A missing directory is named before anything is sent (issue 43, item
# 5), and one without a git repository is refused by the engine, naming
# it, before a project is made.
expect_status 1 "$LECTERN" import "$DATA/no-such-dir" --no-wait
expect_match err "^lectern: import: $DATA/no-such-dir: no such directory\$"
mkdir -p "$DATA/plain"
expect_status 1 "$LECTERN" import "$DATA/plain" --no-wait
expect_match err "^lectern: repository\\.url: $DATA/plain is not a git repository\\. \\(HTTP 400\\)\$"
expect_status 1 "$LECTERN" api /api/v3/projects/plain/
expect_status 1 "$LECTERN" import "file://$DATA/plain" --no-wait
expect_match err "$DATA/plain is not a git repository"
expect_status 0 "$LECTERN" subprojects guide add child-docs --alias kid
expect_status 0 "$LECTERN" subprojects guide
expect_match out '^kid +child-docs +Child Docs$'
expect_status 0 "$LECTERN" subprojects guide remove child-docs
expect_status 1 "$LECTERN" subprojects guide remove child-docs
expect_match err "^lectern: 'child-docs' is not a subproject of 'guide'\$"
# By its alias too.
expect_status 0 "$LECTERN" subprojects guide add child-docs --alias kid
expect_status 0 "$LECTERN" subprojects guide remove kid
expect_status 0 "$LECTERN" subprojects guide --json
expect_match out '"count":0'
expect_status 0 "$LECTERN" translations guide
expect_match out '^SLUG +NAME'
expect_status 1 "$LECTERN" orgs
expect_match err '\(HTTP 404\)$'

expect_status 0 "$LECTERN" api /api/v3/projects/guide/
expect_match out '^\{.*"slug":"guide"'
expect_status 0 "$LECTERN" api -X PATCH /api/v3/projects/guide/ -d '{"homepage": "https://example.test/"}'
expect_status 0 "$LECTERN" api /api/v3/projects/guide/
expect_match out '"homepage":"https://example.test/"'
expect_status 1 "$LECTERN" api /api/v3/projects/nope/
expect_match out '^\{"detail":'
expect_match err '\(HTTP 404\)$'

# ---- A second instance as a remote context: same commands, same results.
"$LECTERN" --data "$REMOTE_DATA" serve --listen 127.0.0.1:0 --threads 2 \
	--local-repos "$DATA" >"$DATA/remote.out" 2>"$DATA/remote.err" &
remote_pid=$!
for i in $(seq 1 300); do
	grep -q '^listening on' "$DATA/remote.out" && break
	sleep 0.1
done
remote_url=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$DATA/remote.out")
[ -n "$remote_url" ] && pass || fail "remote serve did not start: $(cat "$DATA/remote.err")"
(umask 077 && "$LECTERN" --data "$REMOTE_DATA" token create alice >"$DATA/remote.token")
expect_status 0 "$LECTERN" context add lab --url "$remote_url" --token-file "$DATA/remote.token"
for ctx in local lab; do
	"$LECTERN" --context "$ctx" import "file://$REPO" --name "Same Docs" >/dev/null 2>"$DATA/err" \
		|| fail "import on $ctx: $(cat "$DATA/err")"
	"$LECTERN" --context "$ctx" build same-docs --exit-status >/dev/null 2>"$DATA/err" \
		|| fail "build on $ctx: $(cat "$DATA/err")"
	"$LECTERN" --context "$ctx" versions same-docs >"$DATA/versions.$ctx"
	# Build ids differ between instances; the rest must not.
	"$LECTERN" --context "$ctx" builds same-docs | sed 's/^[0-9]* *//' |
		cut -c1-45 >"$DATA/builds.$ctx"
	"$LECTERN" --context "$ctx" version same-docs dev --active >"$DATA/version.$ctx"
	"$LECTERN" --context "$ctx" redirects same-docs add exact /a.html /b.html >/dev/null
	"$LECTERN" --context "$ctx" redirects same-docs | sed 's/^[0-9]* */ID /' >"$DATA/redirects.$ctx"
	"$LECTERN" --context "$ctx" search Setup --project same-docs >"$DATA/search.$ctx"
done
# The slugs only: the LAST BUILD column may move between the two calls
# (activating dev above queued a build), and the local engine's slugs
# differ from lab's.
"$LECTERN" --context lab projects >"$DATA/projects.lab"
awk '{print $1}' "$DATA/projects.lab" >"$DATA/slugs.lab"
LECTERN_CONTEXT=lab "$LECTERN" projects | awk '{print $1}' >"$DATA/slugs.env"
"$LECTERN" --context local projects | awk '{print $1}' >"$DATA/slugs.local"
cmp -s "$DATA/slugs.lab" "$DATA/slugs.env" && ! cmp -s "$DATA/slugs.lab" "$DATA/slugs.local" &&
	pass || fail "LECTERN_CONTEXT did not select lab: $(cat "$DATA/slugs.env")"
expect_match_file() { grep -Eq "$2" "$1" && pass || fail "$1 does not match /$2/: $(cat "$1")"; }
expect_match_file "$DATA/projects.lab" "^same-docs +Same Docs +en +latest +#[0-9]+ [a-z]+ +file://$REPO\$"
for what in versions builds version redirects search; do
	if cmp -s "$DATA/$what.local" "$DATA/$what.lab"; then pass; else
		fail "$what differ between local and lab: $(diff "$DATA/$what.local" "$DATA/$what.lab")"
	fi
done
expect_match_file "$DATA/builds.lab" '^latest +finished +passed '
expect_match_file "$DATA/search.lab" '^same-docs/latest /en/latest/install\.html  Install$'
# An explicit docs domain is where search goes.
remote_port=${remote_url##*:}
expect_status 0 "$LECTERN" context add labdocs --url "$remote_url" \
	--docs-domain "localhost:$remote_port" --token-file "$DATA/remote.token"
expect_status 0 "$LECTERN" --context labdocs search Setup --project same-docs
cmp -s "$DATA/out" "$DATA/search.lab" && pass || fail "search through --docs-domain: $(cat "$DATA/out")"
expect_status 0 "$LECTERN" context add nodocs --url "$remote_url" \
	--docs-domain "localhost:1" --token-file "$DATA/remote.token"
expect_status 1 "$LECTERN" --context nodocs search Setup --project same-docs
expect_match err '^lectern: connection refused to same-docs\.localhost:1$'
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "search transport error is not one line"
expect_match_file "$DATA/version.lab" '^dev +branch +yes +no +no +dev$'
# Its own token: alice's projects only (not the local user's).
if grep -q '^guide ' "$DATA/projects.lab"; then fail "lab lists the local engine's projects"; else pass; fi
# The token is printed nowhere.
expect_status 0 "$LECTERN" context list
if grep -q "$(cat "$DATA/remote.token")" "$DATA/out"; then fail "token printed"; else pass; fi
# A wrong token: one line, exit 1.
printf '%s\n' 0123456789abcdef0123456789abcdef01234567 >"$DATA/wrong.token"
chmod 600 "$DATA/wrong.token"
expect_status 0 "$LECTERN" context add wrong --url "$remote_url" --token-file "$DATA/wrong.token"
expect_status 1 "$LECTERN" --context wrong projects
expect_match err '^lectern: .*\(HTTP 401\)$'
[ "$(wc -l <"$DATA/err")" -eq 1 ] && pass || fail "401 is not one line"

# ---- A business-edition instance: organizations.
BIZ_DATA="$DATA/biz"
"$LECTERN" --data "$BIZ_DATA" serve --listen 127.0.0.1:0 --threads 2 --workers 0 \
	--edition business --local-repos "$DATA" >"$DATA/biz.out" 2>"$DATA/biz.err" &
biz_pid=$!
for i in $(seq 1 300); do
	grep -q '^listening on' "$DATA/biz.out" 2>/dev/null && break
	sleep 0.1
done
biz_url=$(sed -n 's|^listening on \(http://[^/]*\)/$|\1|p' "$DATA/biz.out")
"$LECTERN" --data "$BIZ_DATA" org create acme --owner carol --name "Acme Docs" >/dev/null
(umask 077 && "$LECTERN" --data "$BIZ_DATA" token create carol >"$DATA/biz.token")
expect_status 0 "$LECTERN" context add biz --url "$biz_url" --token-file "$DATA/biz.token"
expect_status 0 "$LECTERN" --context biz orgs
expect_match out '^SLUG +NAME +OWNERS$'
expect_match out '^acme +Acme Docs +carol$'
expect_status 0 "$LECTERN" --context biz orgs --json
expect_match out '^\{"count":1,"next":null,"previous":null,"results":\[\{.*"slug":"acme"'
expect_status 1 "$LECTERN" --context biz import "file://$REPO" --name Biz --no-wait
expect_match err '\(HTTP 400\)$'
expect_status 0 "$LECTERN" --context biz import "file://$REPO" --name Biz --organization acme --no-wait
expect_match out '^imported biz'
# Both instances stop cleanly (a sanitizer build fails on leaks).
for pid in $remote_pid $biz_pid; do
	kill "$pid"
	wait "$pid" && pass || fail "instance $pid did not stop cleanly: $(tail -5 "$DATA/remote.err" "$DATA/biz.err")"
done
remote_pid=
biz_pid=

# ---- Stale files are replaced; stop stops the engine.
expect_status 0 "$LECTERN" stop
expect_match out "^stopped the local engine \\(pid $pid1\\)$"
alive "$pid1" && fail "engine $pid1 still runs" || pass
[ ! -e "$LECTERN_DATA/serve.pid" ] && pass || fail "serve.pid left behind"
# A pid that is not a lectern serve and a dead port: started anew.
echo $$ >"$LECTERN_DATA/serve.pid"
echo 1 >"$LECTERN_DATA/serve.port"
expect_status 0 "$LECTERN" projects
expect_match out '^guide +Guide'
pid2=$(engine_pid)
[ "$pid2" != "$$" ] && alive "$pid2" && pass || fail "stale pid file not replaced"
expect_status 0 "$LECTERN" stop
expect_status 0 "$LECTERN" stop
expect_match out '^no local engine is running'
# The background engines stopped cleanly (a sanitizer build reports leaks
# and errors into the log).
if grep -q 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log"; then
	fail "engine log: $(grep -A5 'Sanitizer\|runtime error' "$LECTERN_DATA/serve.log")"
else pass; fi

finish
