/*
 * What a handler asks of its request (handler.h): headers, query
 * parameters, the host and origin links are built on, the docs domain,
 * whether the peer is the engine's owner, the server's settings, and the
 * thread's store handle and response cache. These read the request and
 * its site (request.h), the part of the server every request shares, and
 * never the daemon (server.c), which sits above every handler: the calls
 * run one way, from the daemon down through the router and the handlers
 * to here.
 */
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lectern/store.h"
#include "cache.h"
#include "handler.h"
#include "log.h"
#include "request.h"

/* Per-thread store and cache ------------------------------------------- */

static void close_thread_store(void *store)
{
	lec_store_free(store);
}

struct lec_store *srv_store(struct srv_request *req)
{
	struct srv_site *site = req->site;
	struct lec_store *store = pthread_getspecific(site->store_key);

	if (store)
		return store;
	if (lec_store_open_dir(&store, site->data_dir, NULL) < 0) {
		srv_log("cannot open the store: %s", lec_error_last());
		return NULL;
	}
	pthread_setspecific(site->store_key, store);
	return store;
}

static void free_thread_cache(void *cache)
{
	srv_cache_free(cache);
}

struct srv_cache *srv_thread_cache(struct srv_request *req)
{
	struct srv_site *site = req->site;
	struct srv_cache *cache = pthread_getspecific(site->cache_key);

	if (cache == NULL && (cache = srv_cache_new()) != NULL)
		pthread_setspecific(site->cache_key, cache);
	return cache;
}

/* The site ------------------------------------------------------------- */

int srv_site_init(struct srv_site *site, const struct srv_config *config)
{
	memset(site, 0, sizeof(*site));
	site->config = *config;
	atomic_init(&site->workers, -1);
	srv_throttle_init(&site->imports,
			  config->import_limit ? config->import_limit
					       : SRV_IMPORTS_PER_HOUR_DEFAULT,
			  SRV_IMPORT_WINDOW_S);
	if ((site->data_dir = strdup(config->data_dir)) == NULL ||
	    pthread_key_create(&site->store_key, close_thread_store) != 0)
		return -1;
	site->keys = 1;
	if (pthread_key_create(&site->cache_key, free_thread_cache) != 0)
		return -1;
	site->keys = 2;
	return 0;
}

void srv_site_dispose(struct srv_site *site)
{
	if (site->keys >= 1)
		pthread_key_delete(site->store_key);
	if (site->keys >= 2)
		pthread_key_delete(site->cache_key);
	site->keys = 0;
	free(site->data_dir);
	free(site->docs_domain);
	free(site->external_domain);
	site->data_dir = site->docs_domain = site->external_domain = NULL;
	srv_throttle_dispose(&site->imports);
}

/* Accessors ------------------------------------------------------------ */

const char *srv_header(struct srv_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *srv_query(const struct srv_request *req, const char *key)
{
	size_t i;

	/* Django's QueryDict gives a repeated parameter's last value. */
	for (i = req->nquery; i > 0; i--)
		if (strcmp(req->query[i - 1].key, key) == 0)
			return req->query[i - 1].value;
	return NULL;
}

/* A host is only used for links when it looks like host[:port]; anything
 * else falls back to the listening address, so a header cannot inject
 * text into links. */
static int plausible_host(const char *h, size_t n)
{
	size_t i;

	if (n == 0 || n > SRV_MAX_HOST)
		return 0;
	for (i = 0; i < n; i++)
		if (h[i] == '\0' ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789.-:[]_", h[i]))
			return 0;
	return 1;
}

/* The n bytes of a header's value v into out: 1, or 0 when empty or
 * longer than out holds. */
static int copy_value(const char *v, size_t n, char *out, size_t cap)
{
	if (n == 0 || n >= cap)
		return 0;
	memcpy(out, v, n);
	out[n] = '\0';
	return 1;
}

/* The value of parameter `name` in the first element of a Forwarded
 * header (RFC 7239: the proxy nearest the client, which saw the host it
 * asked for), unquoted, into out; 0 when absent or too long. */
static int forwarded_param(const char *h, const char *name, char *out,
			   size_t cap)
{
	size_t nlen = strlen(name), n;
	const char *p = h, *v;

	while (p && *p && *p != ',') {
		while (*p == ' ' || *p == ';')
			p++;
		if (strncasecmp(p, name, nlen) == 0 && p[nlen] == '=') {
			v = p + nlen + 1;
			if (*v == '"')
				n = strcspn(++v, "\"");
			else
				n = strcspn(v, ";, ");
			return copy_value(v, n, out, cap);
		}
		p += strcspn(p, ";,");
	}
	return 0;
}

/* The first value of a comma-separated X-Forwarded-* header into out. */
static int first_value(const char *h, char *out, size_t cap)
{
	size_t n;

	if (h == NULL)
		return 0;
	h += strspn(h, " ");
	n = strcspn(h, ", ");
	return copy_value(h, n, out, cap);
}

/* The forwarded host or proto ("host", "proto") a trusted proxy set. */
static int forwarded(struct srv_request *req, const char *what, char *out,
		     size_t cap)
{
	const char *fwd = srv_header(req, "Forwarded");
	char xname[32];

	if (!req->site->config.trust_forwarded)
		return 0;
	if (fwd && forwarded_param(fwd, what, out, cap))
		return 1;
	snprintf(xname, sizeof(xname), "X-Forwarded-%s", what);
	return first_value(srv_header(req, xname), out, cap);
}

const char *srv_request_host(struct srv_request *req)
{
	const char *host;
	char fwd[SRV_MAX_HOST + 1];

	if (req->host[0])
		return req->host;
	if (forwarded(req, "host", fwd, sizeof(fwd)))
		host = fwd;
	else
		host = srv_header(req, "Host");
	if (host == NULL || !plausible_host(host, strlen(host)))
		return NULL;
	snprintf(req->host, sizeof(req->host), "%s", host);
	return req->host;
}

const char *srv_request_scheme(struct srv_request *req)
{
	char proto[8];

	if (forwarded(req, "proto", proto, sizeof(proto)) &&
	    strcasecmp(proto, "https") == 0)
		return "https";
	return "http";
}

const char *srv_request_origin(struct srv_request *req)
{
	const char *host = srv_request_host(req);

	if (req->origin[0])
		return req->origin;
	if (host)
		snprintf(req->origin, sizeof(req->origin), "%s://%s",
			 srv_request_scheme(req), host);
	else
		snprintf(req->origin, sizeof(req->origin), "%s",
			 req->site->base_url);
	return req->origin;
}

/* The ":port" of host[:port] ("[v6]:port" too), or "". */
static const char *port_of(const char *host)
{
	const char *colon = strrchr(host, ':');

	if (colon == NULL || (host[0] == '[' && colon < strchr(host, ']')))
		return "";
	return colon;
}

/* The service's default is a domain of its own (readthedocs.build);
 * *.localhost resolves to loopback on every system that follows RFC
 * 6761, as the docs domain's default does. */
#define SRV_EXTERNAL_DOMAIN_DEFAULT "external.localhost"

/* base with the port of the request's host, into buf (SRV_MAX_HOST + 1
 * bytes); fallback when the request names no host. */
static const char *with_request_port(struct srv_request *req, char *buf,
				     const char *base, const char *fallback)
{
	const char *host;

	if (buf[0])
		return buf;
	host = srv_request_host(req);
	if (host == NULL)
		return fallback;
	snprintf(buf, SRV_MAX_HOST + 1, "%s%s", base, port_of(host));
	return buf;
}

const char *srv_docs_domain(struct srv_request *req)
{
	/* The docs host is <slug>.localhost on whatever port the client
	 * reached (a tunnel's, a proxy's, or none on a unix socket). */
	if (req->site->config.docs_domain)
		return req->site->config.docs_domain;
	return with_request_port(req, req->docs_domain, "localhost",
				 req->site->docs_domain);
}

const char *srv_external_domain(struct srv_request *req)
{
	if (req->site->config.external_domain)
		return req->site->config.external_domain;
	return with_request_port(req, req->external_domain,
				 SRV_EXTERNAL_DOMAIN_DEFAULT,
				 req->site->external_domain);
}

int srv_peer_is_owner(struct srv_request *req)
{
	const union MHD_ConnectionInfo *info;
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (req->site->config.socket_path == NULL)
		return 0;
	info = MHD_get_connection_info(req->conn,
				       MHD_CONNECTION_INFO_CONNECTION_FD);
	if (info == NULL ||
	    getsockname(info->connect_fd, (struct sockaddr *)&addr, &len) < 0 ||
	    addr.ss_family != AF_UNIX ||
	    getsockopt(info->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred,
		       &clen) < 0)
		return 0;
	return cred.uid == geteuid();
}

int64_t srv_owner_user_id(const struct srv_request *req)
{
	return req->site->config.owner_user_id;
}

int srv_business(const struct srv_request *req)
{
	return req->site->config.edition == SRV_EDITION_BUSINESS;
}

const char *srv_data_dir(const struct srv_request *req)
{
	return req->site->data_dir;
}

const char *srv_version(const struct srv_request *req)
{
	return req->site->config.version;
}

int srv_workers(const struct srv_request *req)
{
	return atomic_load(&req->site->workers);
}

unsigned srv_keep_builds(const struct srv_request *req)
{
	return req->site->config.keep_builds;
}

const char *const *srv_local_roots(const struct srv_request *req)
{
	return req->site->config.local_roots;
}

struct srv_throttle *srv_import_throttle(struct srv_request *req)
{
	return &req->site->imports;
}

unsigned srv_queue_limit(const struct srv_request *req)
{
	return req->site->config.queue_limit ? req->site->config.queue_limit
					     : SRV_QUEUED_BUILDS_DEFAULT;
}
