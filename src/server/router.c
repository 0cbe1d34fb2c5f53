/*
 * From a raw request to a handler: split and decode the URI, find the route,
 * authenticate (v3), check the route's permission for the method, and only
 * then answer 405 for a method the route lacks — the order the service uses
 * (behaviour notes §0.4: authentication, permissions, method).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/errors.h"
#include "cache.h"
#include "dash.h"
#include "handler.h"
#include "input.h"
#include "lectern/store.h"
#include "options.h"
#include "lectern/user.h"
#include "search_api.h"

/* URI parsing -------------------------------------------------------------- */

static int add_query_param(struct srv_request *req, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;
	struct srv_param *grown;
	char *key, *value;

	if (n == 0)
		return 0;
	if (req->nquery >= SRV_MAX_QUERY_PARAMS)
		return -1;
	key = srv_percent_decode(s, klen, 1);
	value = eq ? srv_percent_decode(eq + 1, n - klen - 1, 1)
		   : strdup("");
	grown = realloc(req->query, (req->nquery + 1) * sizeof(*grown));
	if (key == NULL || value == NULL || grown == NULL) {
		free(key);
		free(value);
		if (grown)
			req->query = grown;
		return -1;
	}
	req->query = grown;
	req->query[req->nquery].key = key;
	req->query[req->nquery].value = value;
	req->nquery++;
	return 0;
}

int srv_parse_uri(struct srv_request *req)
{
	const char *uri = req->raw_uri;
	const char *q = strchr(uri, '?');
	size_t plen = q ? (size_t)(q - uri) : strlen(uri);

	if (strlen(uri) > SRV_MAX_URI)
		return 414;
	if (uri[0] != '/')
		return 400;
	if ((req->path = srv_percent_decode(uri, plen, 0)) == NULL)
		return 404;
	while (q && *q) {
		const char *start = q + 1;
		const char *amp = strchr(start, '&');
		size_t n = amp ? (size_t)(amp - start) : strlen(start);

		if (add_query_param(req, start, n) < 0)
			return 400;
		q = amp;
	}
	return 0;
}

/* Routing ------------------------------------------------------------------ */

/* Match path against a pattern whose "{}" segments capture one non-empty
 * segment each, and whose "{+}" (the last capture of a pattern) captures
 * one or more whole segments: everything up to the literal rest of the
 * pattern (a subproject's alias "api/python", the service's
 * lookup_value_regex). */
static int match(const char *pattern, const char *path, const char **params,
		 char *scratch, size_t cap)
{
	size_t np = 0, used = 0;

	while (*pattern && *path) {
		if (strncmp(pattern, "{+}", 3) == 0) {
			size_t rest = strlen(pattern + 3), n = strlen(path);

			if (n <= rest || strcmp(path + n - rest, pattern + 3) ||
			    np >= SRV_MAX_ROUTE_PARAMS || used + n + 1 > cap)
				return 0;
			n -= rest;
			memcpy(scratch + used, path, n);
			scratch[used + n] = '\0';
			params[np++] = scratch + used;
			return 1;
		}
		if (pattern[0] == '{' && pattern[1] == '}') {
			size_t n = strcspn(path, "/");

			if (n == 0 || np >= SRV_MAX_ROUTE_PARAMS ||
			    used + n + 1 > cap)
				return 0;
			memcpy(scratch + used, path, n);
			scratch[used + n] = '\0';
			params[np++] = scratch + used;
			used += n + 1;
			path += n;
			pattern += 2;
		} else if (*pattern++ != *path++) {
			return 0;
		}
	}
	return *pattern == '\0' && *path == '\0';
}

struct route_table {
	const struct srv_route *routes;
	const size_t *count;
};

static const struct route_table tables[] = {
	{ srv_v3_routes, &srv_v3_route_count },
	{ srv_v2_routes, &srv_v2_route_count },
	{ srv_search_routes, &srv_search_route_count },
	{ srv_dash_routes, &srv_dash_route_count },
};

/* Per-thread copy of the captured segments; valid for one request. */
static _Thread_local char param_scratch[SRV_MAX_URI];

static const struct srv_route *find_route(struct srv_request *req,
					  const char *path)
{
	size_t t, i;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (i = 0; i < *tables[t].count; i++)
			if (match(tables[t].routes[i].pattern, path,
				  req->params, param_scratch,
				  sizeof(param_scratch)))
				return &tables[t].routes[i];
	return NULL;
}

static const struct srv_route_method *find_method(const struct srv_route *r,
						  enum srv_method m)
{
	size_t i;

	if (m == SRV_HEAD)
		m = SRV_GET;
	for (i = 0; i < sizeof(r->methods) / sizeof(r->methods[0]); i++)
		if (r->methods[i].handler && r->methods[i].method == m)
			return &r->methods[i];
	return NULL;
}

static int is_safe(enum srv_method m)
{
	return m == SRV_GET || m == SRV_HEAD || m == SRV_OPTIONS;
}

static int not_authenticated(struct srv_response *res)
{
	res->www_authenticate = 1;
	return srv_respond_detail(res, 401,
				  "Authentication credentials were not "
				  "provided.");
}

static int forbidden(struct srv_response *res)
{
	return srv_respond_detail(res, 403,
				  "You do not have permission to perform this "
				  "action.");
}

/* 0 when allowed, else the response is filled. */
static int check_permission(struct srv_request *req, struct srv_response *res,
			    enum srv_perm perm)
{
	switch (perm) {
	case SRV_PERM_ANYONE:
		return 0;
	case SRV_PERM_READ_ONLY:
		if (is_safe(req->method))
			return 0;
		return req->user ? forbidden(res) : not_authenticated(res);
	case SRV_PERM_AUTH:
		return req->user ? 0 : not_authenticated(res);
	case SRV_PERM_ADMIN:
		if (req->user == NULL)
			return not_authenticated(res);
		switch (srv_is_project_admin_slug(req, req->params[0])) {
		case 1:
			return 0;
		case 0:
			return forbidden(res);
		case -2:
			return srv_respond_detail(res, 404,
						  "No Project matches the given "
						  "query.");
		default:
			return srv_respond_internal(res, lec_error_last());
		}
	}
	return srv_respond_internal(res, "unknown permission");
}

/* DRF lists allowed methods in its http_method_names order. */
static char *allow_header(const struct srv_route *r)
{
	static const struct {
		enum srv_method method;
		const char *name;
	} order[] = {
		{ SRV_GET, "GET" },	  { SRV_POST, "POST" },
		{ SRV_PUT, "PUT" },	  { SRV_PATCH, "PATCH" },
		{ SRV_DELETE, "DELETE" }, { SRV_HEAD, "HEAD" },
		{ SRV_OPTIONS, "OPTIONS" },
	};
	char buf[96] = "";
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int served = order[i].method == SRV_OPTIONS
				     ? r->view != NULL
				     : find_method(r, order[i].method) != NULL;

		if (!served)
			continue;
		if (buf[0])
			strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, order[i].name, sizeof(buf) - strlen(buf) - 1);
	}
	return strdup(buf);
}

static int method_not_allowed(struct srv_request *req,
			      struct srv_response *res,
			      const struct srv_route *r)
{
	return srv_respond_not_allowed(res, req->method_name, allow_header(r));
}

/* Django's APPEND_SLASH: a path that matches only with a trailing slash is
 * redirected there (301), query string kept. */
static int try_append_slash(struct srv_request *req, struct srv_response *res)
{
	size_t n = strlen(req->path);
	const char *q = strchr(req->raw_uri, '?');
	char *with_slash;
	int found;

	if (n == 0 || req->path[n - 1] == '/')
		return 0;
	if ((with_slash = malloc(n + 2)) == NULL)
		return 0;
	memcpy(with_slash, req->path, n);
	memcpy(with_slash + n, "/", 2);
	found = find_route(req, with_slash) != NULL;
	free(with_slash);
	if (!found)
		return 0;
	n = q ? (size_t)(q - req->raw_uri) : strlen(req->raw_uri);
	if ((res->location = malloc(strlen(req->raw_uri) + 2)) == NULL)
		return 0;
	snprintf(res->location, strlen(req->raw_uri) + 2, "%.*s/%s", (int)n,
		 req->raw_uri, q ? q : "");
	srv_respond_empty(res, 301);
	return 1;
}

static void respond_parse_error(struct srv_response *res, int status)
{
	switch (status) {
	case 414:
		srv_respond_detail(res, 414, "Request URI too long.");
		break;
	case 404:
		srv_respond_detail(res, 404, "Not found.");
		break;
	default:
		srv_respond_detail(res, 400, "Malformed request.");
		break;
	}
}

/* An entity tag for a rendered JSON body: a hash of the bytes. Clients
 * that poll (the TUI's build list) send it back and get a bodiless 304
 * while nothing changed; the hash costs far less than the rendering, and
 * a cached response keeps its tag. */
static void set_body_etag(struct srv_response *res)
{
	snprintf(res->etag, sizeof(res->etag), "\"%016" PRIx64 "\"",
		 srv_hash_body(res->body, res->body_len));
}

/* Whether a response is one apply_etag tags: a body in memory (hashed
 * here) or made as it is sent (tagged by its maker). */
static int taggable(const struct srv_request *req,
		    const struct srv_response *res)
{
	return (req->method == SRV_GET || req->method == SRV_HEAD) &&
	       res->status == 200 && !res->has_file &&
	       (res->body != NULL || res->reader.read != NULL);
}

/* The thread's cache key of a request, "<origin>\n<raw URI>" (a request's
 * URI is at most SRV_MAX_URI bytes, checked before routing). */
static _Thread_local char cache_key[SRV_MAX_URI + sizeof(
	((struct srv_request *)0)->origin) + 2];

/* A safe method's response comes from the thread's cache when the data
 * it was rendered from is unchanged (same data version, same user, same
 * URI and origin: its links follow the Host, or a trusted proxy's
 * forwarded host and scheme); otherwise the handler renders it, it is
 * tagged, and it is kept. */
static void call_cached(struct srv_request *req, struct srv_response *res,
			srv_handler handler, struct lec_store *store)
{
	struct srv_cache *cache = srv_thread_cache(req);
	int64_t user = req->user ? req->user->id : 0;
	const char *host = srv_request_origin(req);
	uint64_t version = 0;
	int keyed;

	if (cache == NULL || store == NULL ||
	    lec_store_data_version(store, &version) < 0) {
		handler(req, res);
		return;
	}
	keyed = (size_t)snprintf(cache_key, sizeof(cache_key), "%s\n%s", host,
				 req->raw_uri) < sizeof(cache_key);
	if (keyed && srv_cache_get(cache, cache_key, user, version, res))
		return;
	handler(req, res);
	/* A body made as it is sent is too large to keep. */
	if (!keyed || !taggable(req, res) || res->reader.read)
		return;
	set_body_etag(res);
	srv_cache_put(cache, cache_key, user, version, res);
}

/* Whether an If-None-Match header lists etag (or is "*"); weak
 * comparison, as RFC 9110 §13.1.2 asks for GET and HEAD. */
static int etag_listed(const char *header, const char *etag)
{
	size_t n = strlen(etag);
	const char *p;

	if (strcmp(header, "*") == 0)
		return 1;
	for (p = header; (p = strstr(p, etag)) != NULL; p += n)
		if (p == header || p[-1] == ' ' || p[-1] == ',' ||
		    (p - header >= 2 && p[-1] == '/' && p[-2] == 'W'))
			return 1;
	return 0;
}

/* A successful GET/HEAD answer gets an ETag (a cached one has it
 * already); a matching If-None-Match turns it into 304 Not Modified with
 * no body. */
static void apply_etag(struct srv_request *req, struct srv_response *res)
{
	const char *inm;

	if (!taggable(req, res))
		return;
	if (res->etag[0] == '\0' && res->body)
		set_body_etag(res);
	inm = srv_header(req, "If-None-Match");
	if (res->etag[0] == '\0' || inm == NULL ||
	    !etag_listed(inm, res->etag))
		return;
	srv_response_drop_body(res);
	res->status = 304;
}

/* The permission OPTIONS needs on a route: the service's viewsets let
 * anyone ask when their read permission is ReadOnlyPermission (OPTIONS is
 * a safe method: the routes whose other methods are read-only, and those
 * anyone may GET), and otherwise ask what a GET asks. */
static enum srv_perm options_perm(const struct srv_route *r)
{
	const struct srv_route_method *get = find_method(r, SRV_GET);

	if (r->fallback == SRV_PERM_READ_ONLY || get == NULL)
		return r->fallback;
	return get->perm;
}

void srv_dispatch(struct srv_request *req, struct srv_response *res)
{
	const struct srv_route *route;
	const struct srv_route_method *m;
	struct lec_store *store = NULL;
	struct srv_input_error err;
	int status, cors;

	/* What no part of the server should see, on any host: a body past
	 * its cap (not kept), an over-long URI, bytes that are not UTF-8. */
	if (req->body_too_large) {
		srv_respond_detail(res, 413, "Request body too large.");
		return;
	}
	if (srv_input_check_request(req->raw_uri, req->body, req->body_len,
				    &err) != 0) {
		srv_respond_input_error(res, &err);
		return;
	}
	/* /_/api/ is the API on every host, docs hosts included (the
	 * service's proxied API: search). */
	if (strncmp(req->raw_uri, "/_/api/", 7) != 0 &&
	    srv_docs_dispatch(req, res))
		return;
	if ((status = srv_parse_uri(req)) != 0) {
		respond_parse_error(res, status);
		return;
	}
	/* A preflight on the search and embed APIs is answered before any
	 * route (django-cors-headers runs before the views). */
	if ((cors = srv_cors_enabled(req->path)) && srv_cors_is_preflight(req)) {
		srv_respond_empty(res, 200);
		goto done;
	}
	route = find_route(req, req->path);
	if (route == NULL ||
	    (route->business_only && !srv_business(req))) {
		if (route == NULL && try_append_slash(req, res))
			goto done;
		srv_respond_detail(res, 404, "Not found.");
		goto done;
	}
	/* A method no route serves (PROPFIND, TRACE, ...) needs no
	 * permission check: whoever asks, the answer is 405. */
	if (req->method == SRV_METHOD_OTHER) {
		method_not_allowed(req, res, route);
		goto done;
	}
	/* A safe method reads one snapshot, authentication included: one
	 * consistent view, and the database's locks taken once. */
	if (is_safe(req->method) && (store = srv_store(req)) != NULL &&
	    lec_store_read_begin(store) < 0)
		store = NULL;
	m = find_method(route, req->method);
	if (route->api == SRV_API_V3 && srv_authenticate(req, res) < 0)
		goto done;
	if (route->api == SRV_API_DASH)
		srv_dash_authenticate(req);
	if (req->method == SRV_OPTIONS && route->view) {
		if (check_permission(req, res, options_perm(route)) == 0)
			srv_respond_options(res, route, allow_header(route));
		goto done;
	}
	if (check_permission(req, res, m ? m->perm : route->fallback) != 0)
		goto done;
	if (m == NULL)
		method_not_allowed(req, res, route);
	else if (store)
		call_cached(req, res, m->handler, store);
	else
		m->handler(req, res);
	apply_etag(req, res);
	/* A dashboard page is another to another user, or after a login. */
	if (route->api == SRV_API_DASH)
		res->vary = "Accept, Authorization, Cookie";
done:
	if (cors)
		srv_cors_headers(req, res);
	lec_store_read_end(store);
}
