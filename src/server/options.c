/*
 * OPTIONS and cross-origin requests, as the service's frameworks answer
 * them (docs/api.md, "OPTIONS and CORS").
 *
 * OPTIONS on a route is Django REST framework's SimpleMetadata: after
 * authentication and the route's permission, 200 with the view's name and
 * description, what it renders and what it parses, and the Allow header
 * DRF sets on every answer.
 *
 * Cross-origin rules are django-cors-headers' with the service's settings
 * (CORS_URLS_REGEX, CORS_ALLOW_ALL_ORIGINS without credentials, idempotent
 * methods only): on the search and embed APIs (and their /_/ proxied
 * paths), a request with an Origin gets "Access-Control-Allow-Origin: *",
 * and a preflight (OPTIONS with Access-Control-Request-Method) is answered
 * before routing with an empty 200 and the allowed headers, methods and
 * max age. Every other path carries no CORS header at all, so a browser
 * on another origin cannot call it.
 */
#include <string.h>

#include "options.h"

/* The paths CORS is enabled on: these and what is below them (the
 * service's CORS_URLS_REGEX, matched at a segment's end here where the
 * service matches any prefix: /api/v2/searchx/ is no API of its). */
static const char *const cors_prefixes[] = {
	"/api/v2/search", "/api/v2/docsearch", "/api/v2/embed",
	"/api/v3/embed",  "/api/v2/sustainability",
};

/* django-cors-headers' default headers plus the service's own. */
#define CORS_ALLOW_HEADERS                                                   \
	"accept, authorization, content-type, user-agent, x-csrftoken, "     \
	"x-requested-with, x-hoverxref-version"
#define CORS_ALLOW_METHODS "GET, OPTIONS, HEAD"
/* django-cors-headers' CORS_PREFLIGHT_MAX_AGE default: one day. */
#define CORS_MAX_AGE "86400"

int srv_cors_enabled(const char *path)
{
	size_t i;

	/* /_/api/ is the same API on docs hosts (the service's proxied
	 * paths). */
	if (strncmp(path, "/_/", 3) == 0)
		path += 2;
	for (i = 0; i < sizeof(cors_prefixes) / sizeof(cors_prefixes[0]); i++) {
		size_t n = strlen(cors_prefixes[i]);

		if (strncmp(path, cors_prefixes[i], n) == 0 &&
		    (path[n] == '/' || path[n] == '\0' || path[n] == '?'))
			return 1;
	}
	return 0;
}

int srv_cors_is_preflight(struct srv_request *req)
{
	return req->method == SRV_OPTIONS &&
	       srv_header(req, "Access-Control-Request-Method") != NULL;
}

void srv_cors_headers(struct srv_request *req, struct srv_response *res)
{
	const char *origin;

	if (res->vary == NULL)
		res->vary = "Accept, Authorization, Origin";
	if ((origin = srv_header(req, "Origin")) == NULL || origin[0] == '\0')
		return;
	srv_response_header(res, "Access-Control-Allow-Origin", "*");
	if (req->method != SRV_OPTIONS)
		return;
	srv_response_header(res, "Access-Control-Allow-Headers",
			    CORS_ALLOW_HEADERS);
	srv_response_header(res, "Access-Control-Allow-Methods",
			    CORS_ALLOW_METHODS);
	srv_response_header(res, "Access-Control-Max-Age", CORS_MAX_AGE);
}

/* What a route renders: v3 and the framework's default views (the roots,
 * search) JSON and the browsable page; v2 JSON only, its builds also the
 * plain-text log. */
static cJSON *renders(const struct srv_route *route)
{
	cJSON *list = cJSON_CreateArray();

	cJSON_AddItemToArray(list, cJSON_CreateString("application/json"));
	if (route->api != SRV_API_V2)
		cJSON_AddItemToArray(list, cJSON_CreateString("text/html"));
	else if (strncmp(route->pattern, "/api/v2/build/", 14) == 0)
		cJSON_AddItemToArray(list, cJSON_CreateString("text/plain"));
	return list;
}

/* DRF's default parsers, which every write reads (body.c). */
static cJSON *parses(void)
{
	static const char *const types[] = {
		"application/json",
		"application/x-www-form-urlencoded",
		"multipart/form-data",
	};

	return cJSON_CreateStringArray(types, 3);
}

int srv_respond_options(struct srv_response *res,
			const struct srv_route *route, char *allow)
{
	cJSON *o = cJSON_CreateObject();

	res->allow = allow;
	cJSON_AddStringToObject(o, "name", route->view ? route->view : "");
	cJSON_AddStringToObject(o, "description",
				route->about ? route->about : "");
	cJSON_AddItemToObject(o, "renders", renders(route));
	cJSON_AddItemToObject(o, "parses", parses());
	return srv_respond_json(res, 200, o,
				route->api == SRV_API_V3 ? SRV_JSON_SORTED
							 : SRV_JSON_AS_BUILT);
}
