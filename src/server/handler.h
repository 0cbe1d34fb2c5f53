/*
 * What a handler sees of the HTTP server: one request, its response,
 * routing, and the helpers every endpoint uses (JSON rendering, error
 * bodies, pagination, fields/omit/expand, auth). Each group names the file
 * that defines it; the files call one another one way, floor by floor
 * (docs/ARCHITECTURE.md). The daemon that runs them, with its
 * configuration, is server.h's, which only the CLI and the daemon include.
 *
 * The server sits between libmicrohttpd and the engine: handlers read a
 * struct srv_request, call the engine through the thread's store handle, and
 * fill a struct srv_response. Nothing here knows about the UI.
 */
#ifndef LECTERN_SRV_HANDLER_H
#define LECTERN_SRV_HANDLER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"
#include "log.h"
#include "srv_limits.h"

struct lec_store;
struct lec_user;

/* Requests (accessors: request.c) ------------------------------------------ */

enum srv_method {
	SRV_GET,
	SRV_HEAD,
	SRV_POST,
	SRV_PUT,
	SRV_PATCH,
	SRV_DELETE,
	SRV_OPTIONS,
	SRV_METHOD_OTHER,
};

struct srv_param {
	char *key;
	char *value;
};

struct srv_site;

struct srv_request {
	struct srv_site *site;    /* the server's settings (request.h) */
	void *conn;               /* struct MHD_Connection */
	enum srv_method method;
	const char *method_name;
	char *raw_uri;            /* as received */
	char *path;               /* percent-decoded path */
	struct srv_param *query;  /* decoded, in request order */
	size_t nquery;
	char *body;               /* NUL-terminated; len in body_len */
	size_t body_len;
	int body_too_large;
	const char *params[SRV_MAX_ROUTE_PARAMS]; /* captured path segments */
	struct lec_user *user;    /* authenticated user, or NULL */
	/* Caches of srv_request_host, _origin, srv_docs_domain and
	 * srv_external_domain. */
	char host[SRV_MAX_HOST + 1];
	char origin[SRV_MAX_HOST + sizeof("https://")];
	char docs_domain[SRV_MAX_HOST + 1];
	char external_domain[SRV_MAX_HOST + 1];
};

/* The thread's store handle (opened on first use); NULL after logging. */
struct lec_store *srv_store(struct srv_request *req);
/* The thread's response cache (created on first use), or NULL. */
struct srv_cache *srv_thread_cache(struct srv_request *req);
/* A request header, or NULL. */
const char *srv_header(struct srv_request *req, const char *name);
/* The last value of a query parameter (Django's QueryDict), or NULL. */
const char *srv_query(const struct srv_request *req, const char *key);
/* The host[:port] the client asked for: the Host header, or a trusted
 * forwarded host (srv_config.trust_forwarded); NULL when there is none
 * that looks like one. Every absolute URL the server builds uses it, so
 * links work through any tunnel or proxy. */
const char *srv_request_host(struct srv_request *req);
/* "http" or "https" (a trusted forwarded proto). */
const char *srv_request_scheme(struct srv_request *req);
/* "scheme://host[:port]" for absolute links: from srv_request_host, else
 * the listening address. */
const char *srv_request_origin(struct srv_request *req);
/* Whether the server runs the business edition (organizations, teams,
 * private versions), srv_config.edition. */
int srv_business(const struct srv_request *req);
/* The docs domain of this request, e.g. "localhost:8000": the configured
 * one, else "localhost" with the port of srv_request_host. */
const char *srv_docs_domain(struct srv_request *req);
/* The domain pull-request versions are served on, their hosts
 * "<project>--<version>.<domain>": the configured one
 * (srv_config.external_domain), else "external.localhost" with the port
 * of srv_request_host. */
const char *srv_external_domain(struct srv_request *req);
/* Whether the connection comes over the unix socket from the engine's own
 * uid (SO_PEERCRED): the engine's owner, who needs no token. */
int srv_peer_is_owner(struct srv_request *req);
int64_t srv_owner_user_id(const struct srv_request *req);
/* The server's data directory (the pipeline's layout lives under it). */
const char *srv_data_dir(const struct srv_request *req);
/* The engine's version (srv_config.version, NULL: unknown) and its build
 * workers (srv_set_workers; -1: unknown). */
const char *srv_version(const struct srv_request *req);
int srv_workers(const struct srv_request *req);
/* Outputs kept per version for diffs (srv_config.keep_builds). */
unsigned srv_keep_builds(const struct srv_request *req);
/* Where imported file:// repositories may lie (srv_config.local_roots). */
const char *const *srv_local_roots(const struct srv_request *req);
/* The server's import throttle (throttle.h), and the most builds one
 * owner may have waiting to start (srv_limits.h). */
struct srv_throttle;
struct srv_throttle *srv_import_throttle(struct srv_request *req);
unsigned srv_queue_limit(const struct srv_request *req);

/* Responses (bodies and headers: response.c; rendering: respond.c) -------- */

struct srv_response {
	int status;
	char *body;             /* owned (malloc); NULL for an empty body */
	size_t body_len;
	const char *content_type;
	char *allow;            /* Allow header for 405, owned */
	char *location;         /* Location header, owned */
	int www_authenticate;   /* add "WWW-Authenticate: Token" */
	/* A file body (docs serving): when has_file, file_fd (owned, closed
	 * once sent) is sent by the kernel instead of body. */
	int has_file;
	int file_fd;
	uint64_t file_size;
	uint64_t file_offset;   /* first byte of file_fd sent (Range) */
	char etag[48];          /* ETag header when non-empty */
	char last_modified[40]; /* Last-Modified header when non-empty */
	const char *rtd_redirect; /* X-RTD-Redirect header, static */
	const char *vary;       /* Vary header, static; NULL: the API's */
	/* Further headers (docs serving: Content-Range, Content-Encoding,
	 * Content-Disposition, Set-Cookie, Accept-Ranges), added with
	 * srv_response_header. */
	struct srv_extra_header {
		const char *name;   /* static */
		char *value;        /* owned */
	} extra[SRV_MAX_EXTRA_HEADERS];
	size_t nextra;
	/* When set, body is this blob's bytes, shared with a cache and held
	 * by the response (srv_response_set_blob), not owned: sent without
	 * a copy and released once sent. */
	struct srv_blob *blob;
	/* When read is set, a body made as it is sent, instead of body (a
	 * build's log, buildlog.h): read puts up to max bytes of what comes
	 * next into buf and returns how many, 0 at the end and -1 on an
	 * error (the connection is then cut); done frees state once the
	 * body is sent or dropped. Such a body is never kept by the cache,
	 * and is tagged by its maker (etag). It is read on the thread that
	 * made it, after the request's snapshot has ended. */
	struct srv_reader {
		long (*read)(void *state, char *buf, size_t max);
		void (*done)(void *state);
		void *state;
	} reader;
};

/* Immutable bytes shared by a cache and the responses sending them,
 * freed when the last holder lets go (response.c). A cache hit then costs a
 * reference, not a copy of the body. */
struct srv_blob;
/* A new blob of data (len bytes, malloc'ed; the blob frees it), one
 * reference; NULL when out of memory (data is then still the caller's). */
struct srv_blob *srv_blob_adopt(char *data, size_t len);
char *srv_blob_data(struct srv_blob *blob);
size_t srv_blob_len(const struct srv_blob *blob);
/* Another reference to blob. */
struct srv_blob *srv_blob_hold(struct srv_blob *blob);
/* Drop one reference; accepts NULL. Any thread may drop the last. */
void srv_blob_release(struct srv_blob *blob);

/* Make blob (a new reference taken) res's body. */
void srv_response_set_blob(struct srv_response *res, struct srv_blob *blob);
/* Drop res's body, owned, shared or made as it is sent. */
void srv_response_drop_body(struct srv_response *res);
/* res's body as a blob, for a cache to keep: an owned body becomes a blob
 * without a copy (res holds it and sends it from there), a shared one is
 * held again. A new reference for the caller; NULL when res has no body
 * or memory runs out (res unchanged). */
struct srv_blob *srv_response_share_body(struct srv_response *res);

/* Add a header to res (value copied). Returns 0, or -1 when out of memory
 * or past SRV_MAX_EXTRA_HEADERS (a programming error, logged). */
int srv_response_header(struct srv_response *res, const char *name,
			const char *value);

enum srv_json_order {
	SRV_JSON_SORTED,    /* v3: keys sorted recursively */
	SRV_JSON_AS_BUILT,  /* v2, root, search: insertion order */
};

/* JSON text of item as cJSON_PrintUnformatted writes it, U+2028 and
 * U+2029 escaped as \u2028 and \u2029 (the service's, for JavaScript);
 * *len gets its length. NULL when out of memory. Owned by the caller. */
char *srv_json_print(const cJSON *item, size_t *len);

/* n bytes of a JSON string's text as srv_json_print escapes them (no
 * quotes around them), into out (at most 6 * n bytes: a control
 * character's \u00xx), or only counted when out is NULL; their length.
 * A text cut in pieces between its UTF-8 characters escapes as the whole
 * does. */
size_t srv_json_escape(char *out, const char *s, size_t n);

/* Render json (consumed) as the body. Returns status. */
int srv_respond_json(struct srv_response *res, int status, cJSON *json,
		     enum srv_json_order order);
/* {"detail": msg} with status. */
int srv_respond_detail(struct srv_response *res, int status,
		       const char *detail);
/* DRF's 429 of a throttle: "Request was throttled." and, when wait_s
 * is not 0, "Expected available in N seconds." with Retry-After: N;
 * detail, when not NULL, stands for the first sentence. */
int srv_respond_throttled(struct srv_response *res, const char *detail,
			  unsigned wait_s);
/* 405 for method with the Allow header allow (owned by res from here on,
 * may be NULL when out of memory) and the service's detail. */
int srv_respond_not_allowed(struct srv_response *res, const char *method,
			    char *allow);
/* An empty body (204, or the superproject's empty 404). */
int srv_respond_empty(struct srv_response *res, int status);
/* The engine's last error as a DRF-shaped 400 (field errors, non-field
 * errors, or a bare list), or the fitting status for other codes. */
int srv_respond_engine_error(struct srv_response *res, int code);
/* {"field": ["msg"]} with 400. */
int srv_respond_field_error(struct srv_response *res, const char *field,
			    const char *msg);
/* 500 with a generic body; the cause goes to the log, not the client. */
int srv_respond_internal(struct srv_response *res, const char *why);
struct srv_input_error;
/* A refusal from the request boundary (input.h): a field error or a
 * {"detail"} with its status. */
int srv_respond_input_error(struct srv_response *res,
			    const struct srv_input_error *err);

/* JSON helpers ------------------------------------------------------------- */

/* Sort object keys recursively by code point. */
void srv_json_sort(cJSON *json);
/* Parse the request body (body.c): a JSON object, or a form
 * (application/x-www-form-urlencoded, multipart/form-data) as the tree the
 * body readers read (body.h). On failure fills res with the 400/415 error
 * and returns NULL. An empty body gives an empty object. */
cJSON *srv_parse_body(struct srv_request *req, struct srv_response *res);

/* Pagination (limit/offset, behaviour notes §1.2) ------------------------ */

/* The page a request asks for, in the engine's own terms, so handlers pass
 * it straight to the engine's list calls. */
void srv_page_parse(const struct srv_request *req, struct lec_page *page);
/* A next/previous link: the request's absolute URL with each parameter of
 * `set` replaced (removed where its value is NULL), every parameter sorted by
 * key and form-encoded (DRF's replace_query_param). A JSON string, or JSON
 * null when out of memory; the caller owns it. */
cJSON *srv_page_link(struct srv_request *req, const struct srv_param *set,
		     size_t nset);
/* Wrap results in {"count","next","previous","results"}; consumes results. */
cJSON *srv_page_envelope(struct srv_request *req, const struct lec_page *page,
			 size_t count, cJSON *results);
/* Answer a list: with rc < 0 the engine's error (results freed), else 200
 * with results (consumed) in their envelope, in order. Returns the status. */
int srv_respond_page(struct srv_request *req, struct srv_response *res,
		     const struct lec_page *page, size_t count, cJSON *results,
		     int rc, enum srv_json_order order);

/* fields / omit / expand (behaviour notes §1.3) ------------------------- */

#define SRV_FLEX_MAX 16

struct srv_flex {
	const char *fields[SRV_FLEX_MAX]; /* borrowed from the request */
	size_t nfields;
	int has_fields;
	const char *omit[SRV_FLEX_MAX];
	size_t nomit;
	const char *expand[SRV_FLEX_MAX];
	size_t nexpand;
	char *storage;                    /* owned copies, freed by dispose */
};
/* Returns 0, or fills res (400 "Recursive expansion found") and -1. */
int srv_flex_parse(struct srv_request *req, struct srv_flex *flex,
		   struct srv_response *res);
void srv_flex_dispose(struct srv_flex *flex);
int srv_flex_expands(const struct srv_flex *flex, const char *name);
/* Apply fields/omit to an object's top-level keys. */
void srv_flex_apply(const struct srv_flex *flex, cJSON *object);

/* Routing ------------------------------------------------------------------ */

/* Who may call a method of a route (behaviour notes §1.6, §1.9). */
enum srv_perm {
	SRV_PERM_READ_ONLY,   /* safe methods by anyone; others refused */
	SRV_PERM_AUTH,        /* any authenticated user */
	SRV_PERM_ADMIN,       /* authenticated and admin of the project */
	SRV_PERM_ANYONE,      /* no check at all (v2, root, search) */
};

/* What every handler is: handlers are declared with it (`srv_handler_fn
 * srv_v3_root;`), so their signature is written once. */
typedef int srv_handler_fn(struct srv_request *req, struct srv_response *res);
typedef srv_handler_fn *srv_handler;

struct srv_route_method {
	enum srv_method method;
	enum srv_perm perm;
	srv_handler handler;
};

struct srv_route {
	const char *pattern;      /* "/api/v3/projects/{}/versions/{}/" */
	int api;                  /* SRV_API_* below */
	enum srv_perm fallback;   /* permission for unlisted methods */
	int business_only;
	struct srv_route_method methods[6];
	/* What OPTIONS names the view (DRF's get_view_name: the viewset's
	 * class name in words and "List" or "Instance") and describes it
	 * (its docstring; NULL: none). A route without a view name does not
	 * serve OPTIONS (the service's GET-only views). */
	const char *view;
	const char *about;
};

enum {
	SRV_API_V3 = 1,
	SRV_API_V2,
	SRV_API_OTHER,
	/* The dashboard's pages (dash.c): the requester comes from a token
	 * or the docs login's cookie. */
	SRV_API_DASH,
};

/* Route tables of each API area. */
extern const struct srv_route srv_v3_routes[];
extern const size_t srv_v3_route_count;
extern const struct srv_route srv_v2_routes[];
extern const size_t srv_v2_route_count;

/* Split req->raw_uri into the percent-decoded path and query parameters
 * (req->path, req->query; freed with the request). Returns 0, or the HTTP
 * status for a URI that cannot be served (414, 404, 400). */
int srv_parse_uri(struct srv_request *req);
/* Dispatch a complete request: route, authenticate, check permissions,
 * call the handler. Always fills res. */
void srv_dispatch(struct srv_request *req, struct srv_response *res);
/* A documentation request (Host "<slug>.<docs domain>", docs.c): returns 1
 * with res filled, or 0 when the request is not one. */
int srv_docs_dispatch(struct srv_request *req, struct srv_response *res);

/* Authentication (auth.c) ---------------------------------------------- */

/* Authenticate from the Authorization header (v3 rules). Returns 0 (user
 * set, or anonymous) or fills res with the 401 and returns -1. */
int srv_authenticate(struct srv_request *req, struct srv_response *res);
/* Whether req->user administers the project with this slug: 1 yes, 0 no,
 * -2 no such project or one req->user cannot see, -1 an engine error
 * (message in lec_error_last). */
int srv_is_project_admin_slug(struct srv_request *req, const char *slug);

/* The value of a hexadecimal digit, or -1 (percent-decoding; input.c). */
int srv_hex_value(char c);

#endif
