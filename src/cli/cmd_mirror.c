/*
 * `lectern mirror add CONTEXT PROJECT [--version V]...` and `lectern mirror
 * update`: offline copies of another instance's docs in the local engine
 * (docs/api.md "Mirrors"). The client downloads the remote's published
 * pages and hands them to the local engine through its API (lc_mirror_*);
 * this command never opens the store. Once copied, reading, search and
 * embed of the mirror need no network.
 *
 * The remote is not trusted: it names the pages' address (its
 * documentation URL) and may redirect them anywhere. Every connection the
 * copy makes is held to the engine's address rule (lectern/netrule.h), so
 * a hostile remote cannot have this machine's or this network's services
 * read and published as its pages. The one exception is the host the
 * context names, at its port: the user chose it (a Lectern here, or on the
 * local network), and an ssh context's forwarded socket.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli.h"
#include "cmd.h"
#include "lectern/errors.h"
#include "lectern/netrule.h"

/* Versions one `mirror add` copies (each --version once). */
#define MIRROR_VERSIONS_MAX 32

static int parse_interval(const char *text, long *ms)
{
	char *end;
	long v;

	if (text == NULL) {
		*ms = LC_MIRROR_INTERVAL_MS;
		return CLI_EXIT_OK;
	}
	v = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || v < 0 || v > 60000) {
		cli_fail("mirror: --interval wants milliseconds (0 to 60000), "
			 "got '%s'", text);
		return CLI_EXIT_USAGE;
	}
	*ms = v;
	return CLI_EXIT_OK;
}

/* The source a mirror records for context name: its API URL, or for an
 * ssh context ssh://[USER@]HOST[:PORT] (its API URL is the forwarded
 * socket's, http://localhost, the same for every ssh context); owned,
 * NULL after reporting. */
static char *source_of(const char *name, const char *api_url)
{
	struct cli_config cfg;
	const struct cli_context *c;
	char *source = NULL;

	if (cli_config_load(&cfg) != CLI_EXIT_OK)
		return NULL;
	c = cli_config_find(&cfg, name);
	if (c && c->ssh ? asprintf(&source, "ssh://%s", c->ssh) < 0
			: (source = strdup(api_url)) == NULL) {
		source = NULL;
		cli_fail("out of memory");
	}
	cli_config_dispose(&cfg);
	return source;
}

/* The context a mirror's source names: the one whose URL it is, or the
 * ssh context of that target. */
static const struct cli_context *source_context(const struct cli_config *cfg,
						const char *source)
{
	size_t i;

	for (i = 0; i < cfg->len; i++) {
		const struct cli_context *c = &cfg->contexts[i];

		if ((c->url && strcmp(c->url, source) == 0) ||
		    (c->ssh && strncmp(source, "ssh://", 6) == 0 &&
		     strcmp(c->ssh, source + 6) == 0))
			return c;
	}
	return NULL;
}

/* Open a session on context name (the local engine for "local"). */
static int open_on(struct cli_ctx *ctx, const char *name,
		   struct cli_session *s)
{
	const char *saved = ctx->context_opt;
	int status;

	ctx->context_opt = name;
	status = cli_session_open(ctx, s);
	ctx->context_opt = saved;
	return status;
}

/* The host and port of an http(s) URL, into host and port; -1 when there
 * is none. */
static int url_endpoint(const char *url, char *host, size_t host_cap,
			char *port, size_t port_cap)
{
	const char *p = strstr(url, "://"), *end, *at, *name, *colon = NULL;
	size_t len;

	if (p == NULL)
		return -1;
	p += 3;
	end = p + strcspn(p, "/?#");
	for (at = p; at < end; at++)
		if (*at == '@')
			p = at + 1;
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close == NULL)
			return -1;
		name = p + 1;
		len = (size_t)(close - name);
		if (close + 1 < end && close[1] == ':')
			colon = close + 1;
	} else {
		name = p;
		colon = memchr(p, ':', (size_t)(end - p));
		len = (size_t)((colon ? colon : end) - p);
	}
	if (len == 0 || len >= host_cap)
		return -1;
	memcpy(host, name, len);
	host[len] = '\0';
	if (colon && colon + 1 < end)
		snprintf(port, port_cap, "%.*s", (int)(end - colon - 1),
			 colon + 1);
	else
		snprintf(port, port_cap, "%s",
			 strncmp(url, "https:", 6) == 0 ? "443" : "80");
	return 0;
}

static int check_connection(const struct sockaddr *addr, size_t len,
			    void *payload)
{
	if (addr->sa_family == AF_UNIX)
		return 1;
	return lec_netrule_check(payload, addr, len);
}

/* Hold every connection of the session on the remote to the address rule,
 * allowing the host of api_url at its port as it resolves now. rule must
 * outlive the session. */
static void guard_remote(struct cli_session *remote, const char *api_url,
			 struct lec_netrule *rule)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *found = NULL;
	const struct addrinfo *ai;
	char host[256], port[16];

	memset(rule, 0, sizeof(*rule));
	/* Over an ssh context's socket there is no address to allow. A name
	 * that does not resolve allows nothing; the first request then says
	 * it does not resolve. */
	if (remote->conn.unix_socket == NULL &&
	    url_endpoint(api_url, host, sizeof(host), port, sizeof(port)) ==
		    0 &&
	    getaddrinfo(host, port, &hints, &found) == 0)
		for (ai = found; ai; ai = ai->ai_next)
			if (lec_netrule_allow_endpoint(rule, ai->ai_addr,
						       ai->ai_addrlen) ==
			    LEC_ELIMIT)
				break;
	if (found)
		freeaddrinfo(found);
	lc_client_check_connections(remote->client, check_connection, rule);
}

static int copy_version(struct cli_session *remote, struct cli_session *local,
			const char *slug, const char *project,
			const char *version, long interval)
{
	struct lc_mirror_options opt = { interval, NULL, NULL };
	struct lc_mirror_result res;
	struct lc_error err;

	if (lc_mirror_version(remote->client, local->client, slug, project,
			      version, &opt, &res, &err) != LC_OK)
		return cli_fail("mirror of %s/%s: %s", project, version,
				err.message);
	cli_print(stdout,
		  "%s/%s: %zu pages (%zu downloaded, %zu unchanged, %zu "
		  "skipped) as build %lld\n", slug, version,
		  res.fetched + res.unchanged, res.fetched, res.unchanged,
		  res.skipped, res.build);
	if (res.long_names)
		cli_print(stdout,
			  "%s/%s: %zu of the skipped left out: a name in their "
			  "path is over %d bytes\n", slug, version,
			  res.long_names, LC_MIRROR_NAME_MAX);
	return CLI_EXIT_OK;
}

int cli_cmd_mirror_add(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session remote = { 0 }, local = { 0 };
	struct lc_project *rp = NULL, *lp = NULL;
	struct lec_netrule rule;
	struct lc_error err;
	const char *versions[MIRROR_VERSIONS_MAX], *interval_text = NULL;
	char *rest[64], *pos[2], *source = NULL;
	long interval;
	int nversions = 0, nrest = 0, n, i, status;
	const struct cli_opt opts[] = { { "--interval", &interval_text, NULL },
					{ NULL, NULL, NULL } };

	/* --version repeats: taken out before the common parser sees it. */
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
			if (nversions == MIRROR_VERSIONS_MAX)
				return cli_fail("mirror add: at most %d "
						"versions at once",
						MIRROR_VERSIONS_MAX);
			versions[nversions++] = argv[++i];
		} else if (nrest < (int)(sizeof(rest) / sizeof(rest[0]))) {
			rest[nrest++] = argv[i];
		}
	}
	if ((status = cli_parse_args("mirror add", nrest, rest, opts, pos, 2,
				     2, &n)) != CLI_EXIT_OK ||
	    (status = parse_interval(interval_text, &interval)) !=
		    CLI_EXIT_OK ||
	    (status = cli_check_slug("project", pos[1])) != CLI_EXIT_OK)
		return status;
	if (strcmp(pos[0], "local") == 0)
		return cli_fail("mirror add: the local engine's docs are here "
				"already; name a remote context");
	if ((status = open_on(ctx, pos[0], &remote)) != CLI_EXIT_OK)
		return status;
	guard_remote(&remote, remote.conn.base_url, &rule);
	if ((status = open_on(ctx, "local", &local)) != CLI_EXIT_OK)
		goto done;
	if ((status = cli_session_writable(&local)) != CLI_EXIT_OK)
		goto done;
	if ((source = source_of(pos[0], remote.conn.base_url)) == NULL) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	if (lc_project_get(remote.client, pos[1], NULL, &rp, &err) != LC_OK ||
	    lc_mirror_create(local.client, source, rp, &lp, &err) != LC_OK) {
		status = cli_fail_client(&err);
		goto done;
	}
	if (nversions == 0)
		versions[nversions++] = rp->default_version ? rp->default_version
							    : "latest";
	for (i = 0; i < nversions && status == CLI_EXIT_OK; i++)
		status = copy_version(&remote, &local, lp->slug, rp->slug,
				      versions[i], interval);
done:
	free(source);
	lc_project_free(rp);
	lc_project_free(lp);
	cli_session_close(&remote);
	cli_session_close(&local);
	return status;
}

/* A session on the mirror's source: the context whose URL it is (its
 * token, its docs domain), else that URL without a token; guarded by
 * rule, which must outlive it. */
static int open_source(struct cli_ctx *ctx, const char *source,
		       struct cli_session *s, struct lec_netrule *rule)
{
	struct cli_config cfg;
	struct lc_client_options o = { 0 };
	const struct cli_context *c;
	struct lc_error err;
	int status;

	memset(s, 0, sizeof(*s));
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		return status;
	if ((c = source_context(&cfg, source)) != NULL) {
		status = open_on(ctx, c->name, s);
	} else if (strncmp(source, "ssh://", 6) == 0) {
		status = cli_fail("%s: no ssh context for it any more; add one "
				  "with 'lectern context add NAME --ssh %s'",
				  source, source + 6);
	} else {
		o.api_url = source;
		if (lc_client_new(&s->client, &o, &err) != LC_OK)
			status = cli_fail("%s: %s", source, err.message);
	}
	if (status == CLI_EXIT_OK)
		guard_remote(s, c ? s->conn.base_url : source, rule);
	cli_config_dispose(&cfg);
	return status;
}

/* Refresh every active, built version of one mirror. */
static int update_one(struct cli_ctx *ctx, struct cli_session *local,
		      const struct lc_project *p, long interval)
{
	struct cli_session remote;
	struct lec_netrule rule;
	struct lc_list *vs = NULL;
	struct lc_query q = { 0 };
	struct lc_error err;
	size_t i;
	int status;

	if ((status = open_source(ctx, p->mirror_source, &remote, &rule)) !=
	    CLI_EXIT_OK)
		return status;
	if (lc_query_add(&q, "active", "true") != LC_OK ||
	    lc_query_add_int(&q, "limit", 100) != LC_OK) {
		status = cli_fail("out of memory");
		goto done;
	}
	if (lc_versions_list(local->client, p->slug, &q, &vs, &err) != LC_OK) {
		status = cli_fail_client(&err);
		goto done;
	}
	for (i = 0; i < vs->len && status == CLI_EXIT_OK; i++) {
		const struct lc_version *v = vs->items[i];

		if (v->built == 1 && v->slug)
			status = copy_version(&remote, local, p->slug,
					      p->mirror_project, v->slug,
					      interval);
	}
done:
	lc_list_free(vs);
	lc_query_dispose(&q);
	cli_session_close(&remote);
	return status;
}

int cli_cmd_mirror_update(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session local;
	struct lc_iter *it = NULL;
	struct lc_error err;
	const cJSON *item;
	const char *interval_text = NULL;
	char *pos[1];
	long interval;
	int n, rc, status, failed = 0, found = 0;
	const struct cli_opt opts[] = { { "--interval", &interval_text, NULL },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("mirror update", argc, argv, opts, pos, 0,
				     0, &n)) != CLI_EXIT_OK ||
	    (status = parse_interval(interval_text, &interval)) != CLI_EXIT_OK)
		return status;
	if ((status = open_on(ctx, "local", &local)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_writable(&local)) != CLI_EXIT_OK ||
	    lc_iter_new(&it, local.client, "/api/v3/projects/", NULL, &err) !=
		    LC_OK) {
		status = status ? status : cli_fail_client(&err);
		goto done;
	}
	while ((rc = lc_iter_next(it, &item, &err)) == 1) {
		struct lc_project *p = NULL;

		if (lc_project_parse(item, &p, &err) == LC_OK &&
		    p->mirror_source && p->mirror_project) {
			found++;
			/* One unreachable source does not stop the others. */
			if (update_one(ctx, &local, p, interval) != CLI_EXIT_OK)
				failed++;
		}
		lc_project_free(p);
	}
	if (rc < 0)
		status = cli_fail_client(&err);
	else if (failed)
		status = cli_fail("%d of %d mirrors could not be updated",
				  failed, found);
	else if (found == 0)
		printf("no mirrors (see 'lectern mirror add')\n");
done:
	lc_iter_free(it);
	cli_session_close(&local);
	return status;
}
