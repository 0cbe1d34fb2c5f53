#!/bin/sh
# A TCP engine reached through a plain `ssh -L` tunnel (the third way in
# docs/cli.md): every absolute URL in every answer (pagination, _links,
# urls.*, documentation and download links, search results, embed, docs
# redirects) names the tunnel's port and never the engine's own, the docs
# host is served through the tunnel, and a context on the tunnel works for
# lists and search. Then a reverse proxy's headers: ignored by default,
# followed (host and https) with --trust-forwarded.
. "$LEC_TESTS/cli/lib.sh"
. "$LEC_TESTS/sshd.sh"

export XDG_CONFIG_HOME="$DATA/config"
unset LECTERN_CONTEXT NO_COLOR
SSHDIR="$DATA/sshd"
serve_pid=
proxy_pid=
tunnel_pid=

cleanup() {
	for pid in $tunnel_pid $serve_pid $proxy_pid; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	sshd_stop
	rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# serve OUT ARGS...: start `lectern serve`, wait for its port; sets
# last_pid and last_port.
serve() {
	out=$1
	shift
	"$LECTERN" --data "$DATA/data" serve --listen 127.0.0.1:0 --threads 2 "$@" \
		>"$out" 2>"$out.err" &
	last_pid=$!
	i=0
	until grep -q '^listening on ' "$out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "serve did not start: $(cat "$out.err")" >&2; exit 1; }
		sleep 0.1
	done
	last_port=$(sed -n 's,^listening on http://127.0.0.1:\([0-9]*\)/$,\1,p' "$out")
}

sshd_start "$SSHDIR"
. "$LEC_TESTS/git.sh"
for name in guide manual; do
	mkdir -p "$DATA/$name/docs"
	printf '# %s\n\nWelcome. See [install](docs/install.md).\n' "$name" >"$DATA/$name/README.md"
	printf '# Install\n\n## Setup\n\nRun the installer.\n' >"$DATA/$name/docs/install.md"
	make_repo "$DATA/$name"
done

serve "$DATA/serve.out" --workers 1 --local-repos "$DATA"
serve_pid=$last_pid
PORT=$last_port
TOKEN=$("$LECTERN" --data "$DATA/data" token create tunneller)

# The tunnel: a local port forwarded over ssh to the engine's port.
TPORT=$(free_port)
# shellcheck disable=SC2086 # SSH_OPTS is a list of options
ssh $SSH_OPTS -p "$SSHD_PORT" -o BatchMode=yes -o ExitOnForwardFailure=yes -N \
	-L "$TPORT:127.0.0.1:$PORT" "$(id -un)@127.0.0.1" 2>"$DATA/tunnel.err" &
tunnel_pid=$!
i=0
until curl -s -o /dev/null "http://127.0.0.1:$TPORT/api/v3/"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the tunnel did not open: $(cat "$DATA/tunnel.err")" >&2; exit 1; }
	sleep 0.1
done
T="http://127.0.0.1:$TPORT"

# get URL [CURL ARGS...]: headers and body of a GET through the tunnel,
# appended to the record every URL is checked in.
get() {
	url=$1
	shift
	curl -s -D - -H "Authorization: Token $TOKEN" "$@" "$url" | tee -a "$DATA/all" >"$DATA/last"
	echo >>"$DATA/all"
}
post() {
	curl -s -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' \
		-d "$2" "$T$1" | tee -a "$DATA/all" >"$DATA/last"
	echo >>"$DATA/all"
}

for name in guide manual; do
	post /api/v3/projects/ "{\"name\": \"$name\", \"repository\": {\"url\": \"file://$DATA/$name\"}}"
done
for name in guide manual; do
	i=0
	until curl -s -H "Authorization: Token $TOKEN" "$T/api/v3/projects/$name/builds/?limit=1" |
		grep -q '"code":"finished"'; do
		i=$((i + 1))
		[ $i -lt 900 ] || { fail "the build of $name did not finish"; break; }
		sleep 0.2
	done
done
post /api/v3/projects/guide/redirects/ '{"type": "page", "from_url": "/old.html", "to_url": "/new.html"}'
post /api/v3/projects/guide/environmentvariables/ '{"name": "KEY", "value": "v"}'
post /api/v3/projects/guide/subprojects/ '{"child": "manual", "alias": "man"}'

get "$T/api/v3/"
get "$T/api/v3/projects/?limit=1"
grep -q "\"next\":\"$T/api/v3/projects/?limit=1&offset=1\"" "$DATA/last" && pass ||
	fail "next is not on the tunnel: $(cat "$DATA/last")"
get "$T/api/v3/projects/?limit=1&offset=1"
grep -q "\"previous\":\"$T/api/v3/projects/?limit=1\"" "$DATA/last" && pass ||
	fail "previous is not on the tunnel: $(cat "$DATA/last")"
get "$T/api/v3/projects/guide/?expand=active_versions,organization"
grep -q "\"documentation\":\"http://guide.localhost:$TPORT/en/latest/\"" "$DATA/last" && pass ||
	fail "urls.documentation is not on the tunnel: $(cat "$DATA/last")"
get "$T/api/v3/projects/guide/versions/?expand=last_build"
get "$T/api/v3/projects/guide/versions/latest/"
get "$T/api/v3/projects/guide/builds/?limit=1&offset=0"
BUILD=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$DATA/last" | head -1)
get "$T/api/v3/projects/guide/builds/$BUILD/"
get "$T/api/v3/projects/guide/redirects/"
get "$T/api/v3/projects/guide/environmentvariables/"
get "$T/api/v3/projects/guide/subprojects/"
get "$T/api/v3/projects/guide/translations/"
get "$T/api/v2/project/?slug=guide"
get "$T/api/v2/version/?project__slug=guide"
get "$T/api/v2/build/$BUILD/"
get "$T/api/v3/embed/?url=http://guide.localhost:$TPORT/en/latest/install.html"
# The docs host through the tunnel: pages, search, the root's redirect, a
# subproject's own host sending to its parent.
get "http://guide.localhost:$TPORT/en/latest/install.html"
grep -q '^HTTP/1.1 200' "$DATA/last" && pass || fail "no page through the tunnel: $(head -3 "$DATA/last")"
get "http://guide.localhost:$TPORT/_/api/v2/search/?q=installer&project=guide&version=latest"
grep -q 'install' "$DATA/last" && pass || fail "search through the tunnel: $(cat "$DATA/last")"
get "http://guide.localhost:$TPORT/"
get "http://manual.localhost:$TPORT/en/latest/"
grep -qi "^location: http://guide.localhost:$TPORT/projects/man/" "$DATA/last" && pass ||
	fail "the subproject's redirect is not on the tunnel: $(head -5 "$DATA/last")"
get "$T/api/v3/projects/guide"

# Every absolute URL on a loopback host names the tunnel's port, and the
# engine's own port appears nowhere.
grep -Eo 'https?://[^" ,<>)]*' "$DATA/all" | sort -u >"$DATA/urls"
[ -s "$DATA/urls" ] && pass || fail "no URLs seen"
grep -E '^https?://([a-z0-9-]+\.)?(localhost|127\.0\.0\.1)' "$DATA/urls" |
	grep -Ev "^https?://([a-z0-9-]+\.)?(localhost|127\.0\.0\.1):$TPORT(/|$)" >"$DATA/odd"
[ ! -s "$DATA/odd" ] && pass || fail "URLs not through the tunnel: $(cat "$DATA/odd")"
grep -n ":$PORT\b" "$DATA/all" >"$DATA/leaks"
[ ! -s "$DATA/leaks" ] && pass || fail "the engine's port leaks: $(head -5 "$DATA/leaks")"
n=$(grep -c "localhost:$TPORT\|127.0.0.1:$TPORT" "$DATA/urls")
[ "$n" -ge 20 ] && pass || fail "only $n tunnel URLs checked"

# A context on the tunnel: lists and search (docs host localhost:TPORT).
printf '%s\n' "$TOKEN" >"$DATA/token"
chmod 600 "$DATA/token"
expect_status 0 "$LECTERN" context add tun --url "$T" --token-file "$DATA/token"
expect_status 0 "$LECTERN" --context tun projects
expect_match out '^guide +guide'
expect_status 0 "$LECTERN" --context tun search installer --project guide
expect_match out 'install'

# ---- Forwarded headers: ignored unless the engine trusts a proxy.
curl -s -H "Authorization: Token $TOKEN" -H 'X-Forwarded-Host: docs.example.org' \
	-H 'X-Forwarded-Proto: https' "$T/api/v3/projects/?limit=1" >"$DATA/out"
expect_match out "\"next\":\"$T/api/v3/projects/\\?limit=1&offset=1\""
serve "$DATA/proxy.out" --workers 0 --trust-forwarded
proxy_pid=$last_pid
PPORT=$last_port
P="http://127.0.0.1:$PPORT"
curl -s -H "Authorization: Token $TOKEN" -H 'X-Forwarded-Host: docs.example.org' \
	-H 'X-Forwarded-Proto: https' "$P/api/v3/projects/guide/?limit=1" >"$DATA/out"
expect_match out '"documentation":"https://guide.localhost/en/latest/"'
expect_match out '"home":"https://docs.example.org/projects/guide/"'
curl -s -H "Authorization: Token $TOKEN" \
	-H 'Forwarded: for=192.0.2.1;host="proxy.example.org:8443";proto=https, for=10.0.0.1;host=inner' \
	"$P/api/v3/projects/?limit=1" >"$DATA/out"
expect_match out '"next":"https://proxy.example.org:8443/api/v3/projects/\?limit=1&offset=1"'
# The response cache tells forwarded hosts apart.
for h in a.example.org b.example.org; do
	curl -s -H "Authorization: Token $TOKEN" -H "X-Forwarded-Host: $h" \
		"$P/api/v3/projects/?limit=1" >"$DATA/out"
	expect_match out "\"next\":\"http://$h/api/v3/projects/\\?limit=1&offset=1\""
done
# A header that is not a host is not used.
curl -s -H "Authorization: Token $TOKEN" -H 'X-Forwarded-Host: evil.example/<x>' \
	"$P/api/v3/projects/?limit=1" >"$DATA/out"
expect_match out "\"next\":\"$P/api/v3/projects/\\?limit=1&offset=1\""
finish
