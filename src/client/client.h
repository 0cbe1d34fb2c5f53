/*
 * Lectern's API client: a typed libcurl client for the documentation hosting
 * service's v3, v2, search and embed APIs, used by the CLI and the TUI. It
 * talks to Lectern's own `lectern serve` and to the real hosted service alike,
 * so every parser accepts unknown extra fields and missing optional ones.
 *
 * Conventions: every fallible call returns LC_OK (0) or a negative LC_E* code
 * and, when `err` is not NULL, fills it with the HTTP status and one readable
 * line (the server's DRF body flattened, curl's transport message, or "invalid
 * JSON in response from URL"). There is no global state: a client handle
 * carries everything, and one handle is used by one thread at a time. Objects
 * returned through `T **out` belong to the caller and are released with the
 * matching `_free` (all accept NULL); lists with `_list_free`. Every model
 * keeps the raw cJSON it was parsed from (`raw`, owned by the model) so the
 * CLI's `--json` can print exactly what the server sent. The token is only
 * ever sent as `Authorization: Token ...`, and only to the API's own origin.
 */
#ifndef LECTERN_CLIENT_H
#define LECTERN_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/select.h>

#include <cjson/cJSON.h>

/* ---------------------------------------------------------------- Errors */

enum lc_code {
	LC_OK = 0,
	LC_EHTTP = -1,      /* the server answered with a 4xx/5xx status */
	LC_ETRANSPORT = -2, /* no answer: refused, DNS, TLS, reset */
	LC_ETIMEOUT = -3,   /* connect or total time limit reached */
	LC_EJSON = -4,      /* the answer was not the JSON expected */
	LC_ENOMEM = -5,     /* out of memory */
	LC_EINVAL = -6,     /* a bad argument from the caller */
	LC_ECANCELLED = -7  /* an asynchronous request was cancelled */
};

/* Long enough for a flattened multi-field DRF body; longer is cut. */
#define LC_ERROR_MESSAGE_MAX 512

struct lc_error {
	int code;                            /* an enum lc_code */
	long status;                         /* HTTP status, 0 if none */
	char message[LC_ERROR_MESSAGE_MAX];  /* one line, never the token */
};

/* Resets `err` (may be NULL) to LC_OK, status 0 and an empty message. */
void lc_error_clear(struct lc_error *err);

/* A static name for an lc_code ("HTTP error", "timeout", ...). */
const char *lc_code_str(int code);

/* -------------------------------------------------------- The client */

/* Defaults used when the matching option is 0. */
#define LC_CONNECT_TIMEOUT_MS 10000 /* a loopback or LAN server answers SYN at once; 10 s covers slow DNS */
#define LC_TOTAL_TIMEOUT_MS 60000   /* the slowest legitimate call (a big build log) takes seconds */
#define LC_MAX_ATTEMPTS 4           /* 1 try + 3 retries: ~3.5 s of backoff before giving up */

struct lc_client;

struct lc_client_options {
	const char *api_url;     /* required: e.g. "http://127.0.0.1:8000" */
	const char *token;       /* may be NULL (v2, search, docs only) */
	const char *docs_domain; /* e.g. "localhost:8000" or "https://readthedocs.io";
				  * without a scheme the API URL's is used; NULL:
				  * the API URL's host */
	long connect_timeout_ms; /* 0: LC_CONNECT_TIMEOUT_MS */
	long timeout_ms;         /* 0: LC_TOTAL_TIMEOUT_MS */
	int max_attempts;        /* 0: LC_MAX_ATTEMPTS; 1 disables retries */
	/* Every request (API and docs host) goes over this unix socket, with
	 * the URL's host as Host: an ssh context's forwarded engine socket.
	 * NULL: TCP. */
	const char *unix_socket;
	/* What the socket leads to, for messages ("ssh context far"). */
	const char *link_name;
};

/*
 * Creates a client. The options' strings are copied.
 * @param out the new client (caller frees with lc_client_free)
 * @return LC_OK, LC_EINVAL (no or bad api_url) or LC_ENOMEM
 */
int lc_client_new(struct lc_client **out, const struct lc_client_options *opts,
		  struct lc_error *err);

/* What the instance is, learnt from the first answer of its API below
 * 500: a Lectern engine (its answers carry `X-Lectern`) or another one
 * (the hosted service), whose Lectern-only extras (cancel, a build's
 * progress, search on the API host's v2 route) are not there. */
enum lc_remote {
	LC_REMOTE_UNKNOWN,
	LC_REMOTE_LECTERN,
	LC_REMOTE_SERVICE,
};
enum lc_remote lc_client_remote(const struct lc_client *c);
/* Learn what the instance is when not known yet (one GET /api/v3/);
 * LC_OK, or the request's error. */
int lc_client_detect(struct lc_client *c, struct lc_error *err);
/* Requests sent so far, every attempt and retry, blocking and async: the
 * budget a context spends on the instance (tests measure it). */
unsigned long long lc_client_requests(const struct lc_client *c);

/* Frees the client; pending asynchronous requests are cancelled (their
 * callbacks fire with LC_ECANCELLED). NULL is a no-op. */
void lc_client_free(struct lc_client *c);

struct sockaddr;
/* Whether a connection to addr (len bytes: an IPv4, IPv6 or unix socket
 * address) may be opened: 1 yes, 0 no. */
typedef int (*lc_connect_check)(const struct sockaddr *addr, size_t len,
				void *payload);
/* From now on, offer every connection the client opens (the API, the docs
 * host, redirects; blocking and asynchronous) to check, with the address
 * it is about to reach after name resolution, before its socket exists: a
 * refusal fails the request with LC_ETRANSPORT, "refused: the address of
 * HOST is not allowed". Such a client uses no proxy, which would connect
 * for it unchecked. NULL checks nothing again. What to allow is the
 * caller's rule (the CLI's mirror applies the engine's address rule to a
 * remote's pages). */
void lc_client_check_connections(struct lc_client *c, lc_connect_check check,
				 void *payload);

/* The User-Agent the client sends: "lectern/<version>". */
const char *lc_user_agent(void);

/* What lc_terminal_text keeps beside text, line breaks and tabs. */
enum lc_terminal_keep {
	LC_TERMINAL_TEXT = 0,         /* nothing: any text from an instance */
	LC_TERMINAL_RETURNS = 1 << 0, /* carriage returns (a build's output:
					 progress lines redrawn in place) */
	LC_TERMINAL_COLOURS = 1 << 1, /* colour escapes (SGR), for a colour
					 terminal */
};

/* The terminal filter (text.c), in place: keep only what may reach a
 * terminal of text an instance, a repository or a build chose: printable
 * UTF-8, line breaks and tabs, and what keep (enum lc_terminal_keep
 * flags) adds. Every other escape sequence goes whole, and every other
 * control: C0, DEL, and C1 (U+0080..U+009F, and a byte 0x80..0x9F
 * outside a UTF-8 character). Returns the new length (text is
 * NUL-terminated there when it shrank). */
size_t lc_terminal_text(char *text, size_t len, unsigned keep);

/* The forges of an engine's integrations: the name people use and the
 * API's integration_type (forges.c). */
struct lc_forge {
	const char *forge; /* "github", "gitlab", "bitbucket", "generic" */
	const char *type;  /* "github_webhook", ..., "api_webhook" */
};
#define LC_FORGE_COUNT 4
extern const struct lc_forge lc_forges[LC_FORGE_COUNT];
/* The integration type of a forge's name, or NULL when unknown. */
const char *lc_forge_type(const char *forge);
/* The forge's name of an integration type, or NULL when unknown. */
const char *lc_forge_name(const char *type);

/* -------------------------------------------------- Query parameters */

struct lc_param {
	char *key;
	char *value;
};

/* Query parameters (filters, limit/offset, fields/expand/omit, page). Keys
 * and values are URL-encoded by the client. Zero-initialise before use. */
struct lc_query {
	struct lc_param *items;
	size_t len;
	size_t cap;
};

/* Appends key=value (both copied; repeating a key repeats the parameter).
 * @return LC_OK, LC_EINVAL (NULL key/value) or LC_ENOMEM */
int lc_query_add(struct lc_query *q, const char *key, const char *value);
/* Appends key=<integer>. */
int lc_query_add_int(struct lc_query *q, const char *key, long long value);
/* Releases the parameters and zeroes `q`. NULL is a no-op. */
void lc_query_dispose(struct lc_query *q);

/* ------------------------------------------------ Raw requests */

struct lc_response {
	long status;        /* HTTP status */
	bool not_modified;  /* 304 to an If-None-Match request */
	char *etag;         /* the ETag header, or NULL */
	char *content_type; /* or NULL */
	char *body;         /* NUL-terminated; may be "" */
	size_t body_len;
	cJSON *json;        /* the parsed body when it is JSON, else NULL */
	char *url;          /* the URL requested */
};

void lc_response_free(struct lc_response *r);

/*
 * Sends one request to the API (the call behind `lectern api`).
 * @param method "GET", "POST", "PUT", "PATCH", "DELETE", ...
 * @param path a path below the API URL ("/api/v3/projects/?limit=5") or an
 *        absolute URL (a `next` link)
 * @param json_body a JSON text sent as application/json, or NULL
 * @param out the response (caller frees); also set on LC_EHTTP so the caller
 *        can show the error body, NULL on other errors
 * @return LC_OK for 2xx/304, LC_EHTTP for an error status, or a transport,
 *         timeout or JSON error (a body that claims JSON and is not)
 */
int lc_request(struct lc_client *c, const char *method, const char *path,
	       const char *json_body, struct lc_response **out,
	       struct lc_error *err);

/*
 * A conditional GET for polling: sends `If-None-Match: etag` when etag is not
 * NULL; a 304 answer gives LC_OK with (*out)->not_modified set and (*out)->etag
 * the current ETag. `q` (may be NULL) is appended to the path's query.
 * @param out the response (caller frees)
 */
int lc_get(struct lc_client *c, const char *path, const struct lc_query *q,
	   const char *etag, struct lc_response **out, struct lc_error *err);

/* The URL of path on a project's documentation host (owned by the caller:
 * free); NULL without a project or path, or out of memory. */
char *lc_docs_url(const struct lc_client *c, const char *project,
		  const char *path);

/*
 * Fetches a file from a project's documentation host:
 * GET <scheme>://<project>.<docs domain>/<path>. Conditional like lc_get.
 * @param path e.g. "en/latest/index.html" (a leading '/' is allowed)
 */
int lc_docs_fetch(struct lc_client *c, const char *project, const char *path,
		  const char *etag, struct lc_response **out,
		  struct lc_error *err);

/* ---------------------------------------------------- Pagination */

struct lc_iter;

/*
 * Iterates over every item of a paginated list (v3/v2 limit/offset, search
 * page/page_size) by following the `next` links.
 * @param path the list's path (or absolute URL); `q` (may be NULL) is added
 * @param out the iterator (caller frees with lc_iter_free)
 */
int lc_iter_new(struct lc_iter **out, struct lc_client *c, const char *path,
		const struct lc_query *q, struct lc_error *err);

/*
 * The next item, fetching the next page when needed.
 * @param item set to the item (owned by the iterator, valid until the next
 *        call); parse it with lc_project_parse and friends
 * @return 1 with an item, 0 at the end, or a negative LC_E* code
 */
int lc_iter_next(struct lc_iter *it, const cJSON **item, struct lc_error *err);

/* The list's `count` from the last page fetched (-1 before the first). */
long long lc_iter_count(const struct lc_iter *it);

void lc_iter_free(struct lc_iter *it);

/* -------------------------------------------------------- Models */

/* Tri-state booleans: a field may be null or absent. */
#define LC_UNKNOWN (-1)

/* A v3 Project; also parsed from a v2 Project (language and repository as
 * strings there). Strings are NULL when absent or null. */
struct lc_project {
	long long id;
	char *name;
	char *slug;
	char *language;             /* code, e.g. "en" */
	char *programming_language; /* code, e.g. "py" */
	char *repository_url;
	char *repository_type;
	char *homepage;
	char *default_version;
	char *default_branch;
	char *documentation_url;    /* urls.documentation (v2: canonical_url) */
	char *subproject_of;        /* parent slug */
	char *translation_of;       /* main project slug */
	char *created;              /* ISO 8601 as sent */
	char *modified;
	char **tags;
	size_t tags_len;
	/* Lectern's extension: an offline mirror's source (the remote's API
	 * URL), its slug there and when it was refreshed (ISO 8601); NULL
	 * for projects built where they are. */
	char *mirror_source;
	char *mirror_project;
	char *mirror_updated;
	cJSON *raw;
};

/* A v3 Version (also parsed from a v2 Version). */
struct lc_version {
	long long id;
	char *slug;
	char *verbose_name;
	char *identifier;
	char *ref;
	char *type;          /* "branch", "tag", ... */
	char *privacy_level;
	int active;          /* 1, 0 or LC_UNKNOWN */
	int hidden;
	int built;
	char *documentation_url;
	char *project;       /* v2: the nested project's slug; v3: NULL */
	cJSON *raw;
};

/* A build command record (v2 build detail). */
struct lc_build_command {
	long long id;
	char *command;
	char *description;
	char *output;
	long long exit_code; /* -1 while running */
	long long run_time;  /* seconds, -1 if unknown */
	char *start_time;
	char *end_time;
};

/* A Build: v3 (state {code,name}, created/finished/duration) or v2
 * (state string, date/length, commands) mapped onto the same fields. */
/* A running build's fetch or checkout progress: Lectern's extension of
 * the v3 build (docs/api.md "Builds"), absent on the service. */
struct lc_build_progress {
	char *phase;        /* receiving, resolving or checkout; NULL: none */
	long long objects;
	long long total;    /* -1 when not known yet */
	long long bytes;
	long long percent;  /* -1 when not known yet */
};

struct lc_build {
	long long id;
	char *project;      /* slug */
	char *version;      /* slug; NULL if the version was deleted */
	char *state;        /* code: triggered, cloning, ..., finished, cancelled */
	char *state_name;   /* display name, or NULL */
	int success;        /* 1, 0 or LC_UNKNOWN (null while running) */
	char *error;        /* NULL when none ("" in v2 is mapped to NULL) */
	char *commit;
	char *created;
	char *finished;
	long long duration; /* seconds, -1 if unknown */
	char *build_url;    /* urls.build (v3) */
	char *docs_url;     /* docs_url (v2) */
	struct lc_build_command *commands; /* v2 detail only */
	size_t commands_len;
	struct lc_build_progress progress; /* v3, while fetching */
	/* How it started, Lectern's v3 extension: "webhook:github" (gitlab,
	 * bitbucket, generic), "commit"; NULL when started by hand, and
	 * always on servers that do not say (the hosted service). */
	char *triggered_by;
	/* What it reused of earlier builds' work, Lectern's v3 extension
	 * ("cache", absent on the hosted service and before it is known):
	 * LC_CACHE_UNKNOWN, LC_CACHE_FRESH (nothing), LC_CACHE_PARTLY or
	 * LC_CACHE_KEPT (everything); and the first cache it could not use,
	 * "doctrees: docs/conf.py changed", or NULL. */
	int cache;
	char *cache_reason;
	/* Its warnings, Lectern's v3 extension ("warnings", absent on the
	 * hosted service and before the build has ended): how many, how
	 * many new since the version's last good build, how many of that
	 * build's it fixed, how many were only counted; count is -1 when
	 * not given. */
	struct lc_build_warnings {
		long long count, new_count, fixed, dropped;
	} warnings;
	/* Its version's type, "branch", "tag", "external" (a pull request's)
	 * or "unknown": v2's version_type, and Lectern's v3 extension of the
	 * same name; NULL from the hosted service's v3, which does not say.
	 * An external version's forge, Lectern's v3 only: "github",
	 * "gitlab" or "local" (a branch preview); NULL otherwise. */
	char *version_type;
	char *external_forge;
	cJSON *raw;
};
enum { LC_CACHE_UNKNOWN, LC_CACHE_FRESH, LC_CACHE_PARTLY, LC_CACHE_KEPT };
/* The build's version as a list shows it, into buf: a pull request's
 * marked as the service's dashboard marks it, "#12 (PR)" on GitHub,
 * "#3 (MR)" on GitLab, "(EV)" for any other external version (no "#"
 * unless its name is a number: "preview-fix (EV)"); any other its slug.
 * NULL when the build has no version (a deleted one). */
const char *lc_build_version_shown(const struct lc_build *b, char *buf,
				   size_t size);
/* lc_build.cache in a word: "kept", "partly", "fresh"; "" when unknown. */
const char *lc_build_cache_word(const struct lc_build *b);
/* POST .../versions/<version>/builds/ with {"fresh": true} when fresh:
 * a build that uses nothing earlier builds kept (a Lectern extension; the
 * hosted service ignores the body and builds as ever). */
int lc_build_trigger_fresh(struct lc_client *c, const char *project,
			   const char *version, int fresh,
			   struct lc_build **out, struct lc_error *err);
/* POST .../previews/ {"branch"} (a Lectern's): build a branch that is not
 * an active version as a preview on a host of its own. *out the build;
 * *url (owned, may be NULL) where the preview is served. */
int lc_preview_branch(struct lc_client *c, const char *project,
		      const char *branch, struct lc_build **out, char **url,
		      struct lc_error *err);

/* One of a build's warnings (Lectern's GET .../builds/<id>/warnings/,
 * and the preview's status): kind is "warning", "error", "critical",
 * "link" (a broken internal link of the page named by file) or "removed"
 * (a page or anchor the last good build had). */
struct lc_warning {
	char *file;      /* "" when none */
	long long line;  /* 0 when not known */
	char *kind;
	char *message;
	int is_new;      /* 1, 0, or LC_UNKNOWN */
	cJSON *raw;
};
/* "file:line: kind: message" (what editors and CI read; no "file:" when
 * there is none, no "line:" when it is 0), the message's further lines
 * indented below it. Caller frees; NULL when out of memory. */
char *lc_warning_format(const struct lc_warning *w);

struct lc_redirect {
	long long pk;
	char *project;
	char *type;
	char *from_url;    /* NULL when the server sent null */
	char *to_url;
	char *created;
	char *modified;
	long long http_status; /* 0 if not sent */
	long long position;    /* -1 if not sent */
	int enabled;           /* LC_UNKNOWN if not sent */
	int force;
	cJSON *raw;
};

struct lc_envvar {
	long long pk;
	char *project;
	char *name;
	int public_;       /* 1, 0 or LC_UNKNOWN; "public" is a C++ keyword */
	char *created;
	char *modified;
	cJSON *raw;
};

struct lc_subproject {
	char *alias;
	struct lc_project *child;  /* never NULL in a parsed subproject */
	cJSON *raw;
};

struct lc_organization {
	char *slug;
	char *name;
	char *description;
	char *email;
	char *url;
	int disabled;
	char *created;
	char *modified;
	char **owners;     /* usernames */
	size_t owners_len;
	cJSON *raw;
};

/* A search highlight list: HTML fragments with matches in <span>. */
struct lc_highlights {
	char **items;
	size_t len;
};

struct lc_search_block {
	char *type;     /* "section" or "domain" */
	char *id;       /* anchor */
	char *title;    /* section blocks */
	char *content;
	char *role;     /* domain blocks, e.g. "py:function" */
	char *name;     /* domain blocks */
	struct lc_highlights hl_title;
	struct lc_highlights hl_content;
	struct lc_highlights hl_name;
};

struct lc_search_result {
	char *type;
	char *project;
	char *project_alias;
	char *version;
	char *title;
	char *domain;
	char *path;
	struct lc_highlights hl_title;
	struct lc_search_block *blocks;
	size_t blocks_len;
	cJSON *raw;
};

/* Embed API v3 answer. */
struct lc_embed {
	char *url;
	char *fragment;
	char *content;  /* HTML */
	int external;
	cJSON *raw;
};

/*
 * Parsers from a JSON object (a list item, a detail body). Unknown fields
 * are ignored, missing optional ones left NULL/-1/LC_UNKNOWN.
 * @param out the model (caller frees); `raw` is a copy of `json`
 * @return LC_OK, LC_EJSON (not an object, or a required field of the wrong
 *         type) or LC_ENOMEM
 */
int lc_project_parse(const cJSON *json, struct lc_project **out, struct lc_error *err);
int lc_version_parse(const cJSON *json, struct lc_version **out, struct lc_error *err);
int lc_build_parse(const cJSON *json, struct lc_build **out, struct lc_error *err);
int lc_redirect_parse(const cJSON *json, struct lc_redirect **out, struct lc_error *err);
int lc_warning_parse(const cJSON *json, struct lc_warning **out, struct lc_error *err);
int lc_envvar_parse(const cJSON *json, struct lc_envvar **out, struct lc_error *err);
int lc_subproject_parse(const cJSON *json, struct lc_subproject **out, struct lc_error *err);
int lc_organization_parse(const cJSON *json, struct lc_organization **out, struct lc_error *err);
int lc_search_result_parse(const cJSON *json, struct lc_search_result **out, struct lc_error *err);
int lc_embed_parse(const cJSON *json, struct lc_embed **out, struct lc_error *err);

void lc_project_free(struct lc_project *p);
void lc_version_free(struct lc_version *v);
void lc_build_free(struct lc_build *b);
void lc_redirect_free(struct lc_redirect *r);
void lc_warning_free(struct lc_warning *w);
void lc_envvar_free(struct lc_envvar *e);
void lc_subproject_free(struct lc_subproject *s);
void lc_organization_free(struct lc_organization *o);
void lc_search_result_free(struct lc_search_result *r);
void lc_embed_free(struct lc_embed *e);

/*
 * One page of a list. `items` holds `len` models of the list's type (cast
 * `items[i]` to struct lc_project * etc.); `count` is the server's total,
 * `next`/`previous` its links (NULL at the ends). Free with lc_list_free,
 * which frees the items with the right function.
 */
struct lc_list {
	void **items;
	size_t len;
	long long count;
	char *next;
	char *previous;
	void (*free_item)(void *item);
	cJSON *raw;     /* the whole page */
};

void lc_list_free(struct lc_list *l);

/* ------------------------------------------------ v3 endpoints */

/* Every list call takes `q` (may be NULL) for filters, limit/offset and
 * fields/expand/omit, and returns one page; use lc_iter_new for all pages.
 * Detail calls take `q` for expand/fields/omit. */

/* GET /api/v3/projects/ (items: struct lc_project) */
int lc_projects_list(struct lc_client *c, const struct lc_query *q,
		     struct lc_list **out, struct lc_error *err);
/* GET /api/v3/projects/<slug>/ */
int lc_project_get(struct lc_client *c, const char *slug,
		   const struct lc_query *q, struct lc_project **out,
		   struct lc_error *err);

struct lc_project_import {
	const char *name;                 /* required */
	const char *repository_url;       /* required */
	const char *repository_type;      /* NULL: "git" */
	const char *homepage;             /* optional fields: NULL to leave out */
	const char *language;
	const char *programming_language;
	const char *organization;         /* business edition */
};

/* An ssh context's engine seen from a browser here (forward.c): its docs
 * URLs name no port and reach no browser here; a local port forwarded to
 * its socket does. LC_FORWARD_PORT is the port suggested. The URL with
 * port as its host's port, and the context's forward hint ("ssh -N -L
 * PORT:SOCKET HOST") with the port put in; each owned (free()), NULL when
 * out of memory. */
#define LC_FORWARD_PORT 8800
char *lc_url_with_port(const char *url, int port);
char *lc_forward_command(const char *hint, int port);

/* Notifications (notification.c), items of the v3 lists as sent. What
 * one is about as people read it ("guide/latest #12", "guide", else the
 * service's "project 5"); buf is returned. */
#define LC_NOTIFICATION_ABOUT_MAX 160
const char *lc_notification_about(const cJSON *notification, char *buf,
				  size_t size);
/* The build a notification is about (a Lectern's answer says it: a build's
 * own, or the one a version failing names), with its project's slug and
 * its version's (may be NULL), borrowed from the item; 0 when none. */
long long lc_notification_build(const cJSON *notification,
				const char **project, const char **version);

/* What a person typed as the repository to import, as repository_url
 * takes it (repo_url.c): a URL as it is; a directory, when `here` (the
 * engine reads this machine's files: the local context), as its canonical
 * file:// URL, refused when there is none ("docs: no such directory"); on
 * another machine's engine an absolute path as file://PATH, a relative
 * one refused. @param out owned by the caller (free()) @return LC_OK,
 * LC_EINVAL (err names the path) or LC_ENOMEM */
int lc_repository_url(const char *typed, int here, char **out,
		      struct lc_error *err);
/* POST /api/v3/projects/ (import). @param out the created project */
int lc_project_import(struct lc_client *c, const struct lc_project_import *in,
		      struct lc_project **out, struct lc_error *err);
/* PATCH /api/v3/projects/<slug>/ with `fields` (any subset of the
 * writable fields) as the body; the server answers 204. */
int lc_project_update(struct lc_client *c, const char *slug,
		      const cJSON *fields, struct lc_error *err);
/* DELETE /api/v3/projects/<slug>/ (Lectern's extension): the project with
 * everything of it; 204. A 409 (LC_EHTTP, status 409) says a cancelled
 * build of it is still stopping: ask again shortly. */
int lc_project_delete(struct lc_client *c, const char *slug,
		      struct lc_error *err);

/* GET /api/v3/projects/<p>/versions/ (items: struct lc_version) */
int lc_versions_list(struct lc_client *c, const char *project,
		     const struct lc_query *q, struct lc_list **out,
		     struct lc_error *err);
int lc_version_get(struct lc_client *c, const char *project,
		   const char *version, const struct lc_query *q,
		   struct lc_version **out, struct lc_error *err);
/* PATCH a version's flags; LC_UNKNOWN leaves a flag out of the body. */
int lc_version_update(struct lc_client *c, const char *project,
		      const char *version, int active, int hidden,
		      struct lc_error *err);

/* The path of a project's last build as lists show it (last_build.c): a
 * page of one of its default version's builds (NULL or "": of any
 * version). Owned (free()); NULL when out of memory. */
char *lc_last_build_path(const char *project, const char *default_version);

/* GET /api/v3/projects/<p>/builds/ (items: struct lc_build). `running`:
 * 1/0 adds the filter, LC_UNKNOWN leaves it out; `commit` may be NULL. */
int lc_builds_list(struct lc_client *c, const char *project, int running,
		   const char *commit, const struct lc_query *q,
		   struct lc_list **out, struct lc_error *err);
int lc_build_get(struct lc_client *c, const char *project, long long id,
		 const struct lc_query *q, struct lc_build **out,
		 struct lc_error *err);
/* POST /api/v3/projects/<p>/versions/<v>/builds/ (202). @param out the
 * triggered build (the answer's "build" object) */
int lc_build_trigger(struct lc_client *c, const char *project,
		     const char *version, struct lc_build **out,
		     struct lc_error *err);
/* POST /api/v3/projects/<p>/builds/<id>/cancel/ (Lectern). @param out the
 * cancelled build, may be NULL */
int lc_build_cancel(struct lc_client *c, const char *project, long long id,
		    struct lc_build **out, struct lc_error *err);

/* Subprojects (items: struct lc_subproject). `alias` may be NULL. */
int lc_subprojects_list(struct lc_client *c, const char *project,
			const struct lc_query *q, struct lc_list **out,
			struct lc_error *err);
int lc_subproject_add(struct lc_client *c, const char *project,
		      const char *child, const char *alias,
		      struct lc_error *err);
int lc_subproject_remove(struct lc_client *c, const char *project,
			 const char *alias, struct lc_error *err);

/* Translations (items: struct lc_project). */
int lc_translations_list(struct lc_client *c, const char *project,
			 const struct lc_query *q, struct lc_list **out,
			 struct lc_error *err);

/* Redirects (items: struct lc_redirect). `from_url`/`to_url` may be NULL
 * for the types that do not need them. */
int lc_redirects_list(struct lc_client *c, const char *project,
		      const struct lc_query *q, struct lc_list **out,
		      struct lc_error *err);
int lc_redirect_get(struct lc_client *c, const char *project, long long pk,
		    struct lc_redirect **out, struct lc_error *err);
int lc_redirect_create(struct lc_client *c, const char *project,
		       const char *type, const char *from_url,
		       const char *to_url, struct lc_redirect **out,
		       struct lc_error *err);
int lc_redirect_update(struct lc_client *c, const char *project, long long pk,
		       const char *type, const char *from_url,
		       const char *to_url, struct lc_redirect **out,
		       struct lc_error *err);
int lc_redirect_delete(struct lc_client *c, const char *project, long long pk,
		       struct lc_error *err);

/* Environment variables (items: struct lc_envvar). The value is sent once
 * and never returned. `public_`: 1/0, or LC_UNKNOWN to leave it out. */
int lc_envvars_list(struct lc_client *c, const char *project,
		    const struct lc_query *q, struct lc_list **out,
		    struct lc_error *err);
int lc_envvar_get(struct lc_client *c, const char *project, long long pk,
		  struct lc_envvar **out, struct lc_error *err);
int lc_envvar_create(struct lc_client *c, const char *project,
		     const char *name, const char *value, int public_,
		     struct lc_envvar **out, struct lc_error *err);
int lc_envvar_delete(struct lc_client *c, const char *project, long long pk,
		     struct lc_error *err);

/* Organizations, business edition (items: struct lc_organization; the
 * projects list: struct lc_project). */
int lc_orgs_list(struct lc_client *c, const struct lc_query *q,
		 struct lc_list **out, struct lc_error *err);
int lc_org_get(struct lc_client *c, const char *slug,
	       struct lc_organization **out, struct lc_error *err);
int lc_org_projects_list(struct lc_client *c, const char *slug,
			 const struct lc_query *q, struct lc_list **out,
			 struct lc_error *err);

/* ------------------------------------------------ v2 endpoints */

int lc_v2_project_get(struct lc_client *c, long long id,
		      struct lc_project **out, struct lc_error *err);
int lc_v2_version_get(struct lc_client *c, long long id,
		      struct lc_version **out, struct lc_error *err);
/* GET /api/v2/build/<id>/: the build with its command records. */
int lc_v2_build_get(struct lc_client *c, long long id, struct lc_build **out,
		    struct lc_error *err);
/* GET /api/v2/build/<id>.txt. @param out the text (caller frees with free) */
int lc_v2_build_log(struct lc_client *c, long long id, char **out,
		    struct lc_error *err);

/* ---------------------------------------------- Search and embed */

/*
 * The request lc_search sends, for an asynchronous caller: on a Lectern
 * (or one not known yet) <docs>/_/api/v2/search/?q=&project=&version=, on
 * another instance the service's v3 search on the API host,
 * /api/v3/search/?q=project:SLUG[/VERSION] QUERY, which takes the token.
 * project NULL: every project the token's user maintains, v3's
 * /api/v3/search/?q=user:@me QUERY on either kind of instance.
 * page and page_size: 0 for the server's default. *path is the caller's
 * (free), the parameters go into q. LC_OK or LC_ENOMEM.
 */
int lc_search_request(struct lc_client *c, const char *query,
		      const char *project, const char *version, int page,
		      int page_size, char **path, struct lc_query *q);
/*
 * Search a project's pages: lc_search_request's request, after learning
 * what the instance is (lc_client_detect). `version` NULL: "latest" (on
 * the service, every version); page/page_size 0: the server's defaults.
 * Items: struct lc_search_result; every error is an error (a 404 too).
 */
int lc_search(struct lc_client *c, const char *query, const char *project,
	      const char *version, int page, int page_size,
	      struct lc_list **out, struct lc_error *err);

/* GET /api/v3/embed/?url=URL (a docs page URL, "#fragment" selects a
 * section). */
int lc_embed_get(struct lc_client *c, const char *url, struct lc_embed **out,
		 struct lc_error *err);

/*
 * Sort a v3 versions list's "results" array in place into the order the
 * service's dashboard shows (version_order.c): master, latest, stable,
 * then PEP 440 versions newest first, then the rest as they came. The API's lists
 * keep the API's order (verbose_name descending); this is for display.
 * @return LC_OK or LC_ENOMEM (the array unchanged)
 */
int lc_versions_sort(cJSON *versions);

/* -------------------------------- Builds across projects (Lectern's) */

/* Every build of the projects the token's user administers, newest first
 * (v3 build items); the same filters as a project's list. */
#define LC_ALL_BUILDS_PATH "/api/v3/builds/"
/* Where the user's waiting builds stand in the instance's queue. */
#define LC_QUEUE_PATH "/api/v3/builds/queue/"
/* The instance's build activity, {"newest", "unfinished"}: asked with its
 * ETag before asking for lists of builds again (docs/api.md). */
#define LC_BUILD_ACTIVITY_PATH "/api/v3/builds/activity/"

struct lc_queue_entry {
	long long id;       /* a waiting build of the user's */
	long long position; /* 1: the next to start */
};

struct lc_queue {
	struct lc_queue_entry *items; /* owned */
	size_t len;
	long long waiting;  /* builds waiting on the whole instance */
};

/* The queue's answer ({"count", "results": [{"id", "position", ...}]})
 * into out (lc_queue_dispose). LC_OK, LC_EJSON or LC_ENOMEM. */
int lc_queue_parse(const cJSON *json, struct lc_queue *out);
/* GET LC_QUEUE_PATH (a Lectern only; the service answers 404). */
int lc_build_queue(struct lc_client *c, struct lc_queue *out,
		   struct lc_error *err);
/* Build build_id's place, or 0 when it is not waiting (q may be NULL). */
long long lc_queue_position(const struct lc_queue *q, long long build_id);
/* A build's state as people read it: a build waiting for a worker
 * ("triggered") is "queued", with its place in q when q has it ("queued
 * #2", written into buf); other states as sent; NULL without one. */
const char *lc_build_state_shown(const struct lc_build *b,
				 const struct lc_queue *q, char *buf,
				 size_t size);
void lc_queue_dispose(struct lc_queue *q);

/* ------------------------------------ Page diffs (Lectern's extension) */

/* GET /api/v3/projects/<p>/diff/ (docs/api.md "Page diffs"). Statuses are
 * "changed", "added" or "removed"; a line starts with ' ', '-' or '+'. */
struct lc_diff_section {
	char *id;
	char *status;
	char *title;
	char *base_title; /* NULL unless the title changed */
	char **lines;
	size_t lines_len;
};

struct lc_diff_page {
	char *path;
	char *status;
	char *title;
	char *base_title;
	struct lc_diff_section *sections;
	size_t sections_len;
};

struct lc_diff {
	char *base_ref, *head_ref;
	long long base_build, head_build;
	struct lc_diff_page *pages;
	size_t pages_len;
	long long unchanged;
	int truncated; /* 1, 0 or LC_UNKNOWN */
	cJSON *raw;
};

int lc_diff_parse(const cJSON *json, struct lc_diff **out,
		  struct lc_error *err);
void lc_diff_free(struct lc_diff *d);
/* The request lc_diff_get sends, for an asynchronous caller: *path is the
 * caller's (free), the parameters go into q. page may be NULL (every
 * page). LC_OK, LC_EINVAL (a missing argument) or LC_ENOMEM. */
int lc_diff_request(const char *project, const char *base, const char *head,
		    const char *page, char **path, struct lc_query *q);
int lc_diff_get(struct lc_client *c, const char *project, const char *base,
		const char *head, const char *page, struct lc_diff **out,
		struct lc_error *err);
/* A diff as unified-diff text: per page "--- a/PATH (BASE)" and
 * "+++ b/PATH (HEAD)" (/dev/null for an added or removed page), then per
 * section a "@@ #id title @@" hunk of its lines. only: one page of d, or
 * NULL for all. Caller frees; NULL when out of memory. */
char *lc_diff_unified(const struct lc_diff *d, const struct lc_diff_page *only);

/* ------------------------------- Offline mirrors (Lectern's extension) */

/* Pages one version's copy may hold: the engine's LEC_MIRROR_PAGES_MAX. */
#define LC_MIRROR_PAGES_MAX 4000
/* Bytes of one name in a page's path: the engine's and the file system's
 * (NAME_MAX); a page whose path has a longer one cannot be stored. */
#define LC_MIRROR_NAME_MAX 255
/* The default pause between two requests to the remote: a polite crawl
 * of a 500-page site takes two minutes, an update of it as long, with no
 * page sent again unless it changed. */
#define LC_MIRROR_INTERVAL_MS 250

struct lc_mirror_options {
	long interval_ms; /* pause between requests to the remote; 0: none */
	/* Called after each page: its path, pages done, pages known. */
	void (*progress)(void *data, const char *path, size_t done,
			 size_t known);
	void *data;
};

struct lc_mirror_result {
	size_t fetched;   /* pages downloaded */
	size_t unchanged; /* pages the remote said were not modified */
	size_t skipped;   /* linked but missing (404), not HTML, too big, or
			   * long_names */
	size_t long_names; /* of those, never fetched: a name in the path is
			    * over LC_MIRROR_NAME_MAX bytes */
	long long build;  /* the local build recording the refresh */
};

/*
 * Find or create the local mirror of a remote project (POST
 * /api/v3/mirrors/ on the local engine). source: the remote's API URL.
 * @param out the local project (caller frees)
 */
int lc_mirror_create(struct lc_client *local, const char *source,
		     const struct lc_project *remote, struct lc_project **out,
		     struct lc_error *err);
/*
 * Copy a version of a remote project into the local mirror slug: walk its
 * pages from the version's root through their links, conditional on the
 * ETags of the last copy, upload the changed ones and publish the page
 * list. Blocks (and sleeps between requests) until done: for the CLI.
 */
int lc_mirror_version(struct lc_client *remote, struct lc_client *local,
		      const char *slug, const char *project,
		      const char *version, const struct lc_mirror_options *opt,
		      struct lc_mirror_result *res, struct lc_error *err);

/* ------------------------------------------- Asynchronous mode */

/*
 * Requests run on a curl multi handle inside the client, sharing its
 * connection and DNS caches. The caller's loop waits on lc_async_fdset /
 * lc_async_timeout (or calls lc_async_poll), then lc_async_perform, from
 * which completion callbacks fire on the caller's thread. Retries wait on a
 * timer, never by sleeping.
 *
 * The callback gets the response (NULL on transport errors) and the error
 * (code LC_OK on success). Both are valid only during the call; to keep a
 * response, set the pointer fields you take to NULL (e.g. take resp->json
 * and set it to NULL). It must not call lc_async_perform or lc_client_free.
 */
struct lc_async_request {
	const char *method;       /* NULL: "GET" */
	const char *path;         /* API path or absolute URL, as lc_request */
	const struct lc_query *query; /* may be NULL */
	const char *json_body;    /* may be NULL */
	const char *etag;         /* If-None-Match, may be NULL */
	const char *accept;       /* an Accept header, may be NULL */
	void (*done)(struct lc_response *resp, const struct lc_error *err,
		     void *data);
	void *data;
};

/*
 * Queues a request (everything in `req` is copied).
 * @param id set to the request's id for lc_async_cancel (may be NULL)
 */
int lc_async_submit(struct lc_client *c, const struct lc_async_request *req,
		    uint64_t *id, struct lc_error *err);

/* Cancels a pending request: its callback fires now, with LC_ECANCELLED.
 * @return LC_OK, or LC_EINVAL if no request has that id (already done) */
int lc_async_cancel(struct lc_client *c, uint64_t id);

/* How many requests are pending (running or waiting to retry). */
size_t lc_async_pending(const struct lc_client *c);

/* Adds the client's sockets to the sets (like curl_multi_fdset); maxfd is
 * raised, never lowered. */
int lc_async_fdset(struct lc_client *c, fd_set *rd, fd_set *wr, fd_set *ex,
		   int *maxfd);

/* How long the caller may wait before calling lc_async_perform, in ms
 * (-1: nothing pending, no limit); includes retry timers. */
long lc_async_timeout(struct lc_client *c);

/* Waits up to `timeout_ms` for activity (curl_multi_poll), shortened by
 * the next retry timer; a loop that has no fds of its own uses this. */
int lc_async_poll(struct lc_client *c, int timeout_ms);

/* Drives transfers and fires the callbacks of finished requests. */
int lc_async_perform(struct lc_client *c);

#endif
