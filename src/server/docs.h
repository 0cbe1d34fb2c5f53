/*
 * The docs host's private declarations, shared by its files:
 *   docs.c          dispatch, path resolution (schemes, translations,
 *                   subprojects, system redirects)
 *   docs_common.c   what the others share: path decoding, a host's
 *                   project, the plain 404 and system redirects,
 *                   language codes, version roots
 *   docs_serve.c    a version's files: the directory-index redirect, user
 *                   redirects, the 404 handler, downloads, the project
 *                   serving a language
 *   docs_send.c     sending one open file: validators, Range, gzip
 *   docs_auth.c     who is asking (token or session cookie), who may read
 *                   a private version, the login route
 *   docs_cache.c    per-thread memory of pages served, so a repeat request
 *                   runs no resolution
 *   docs_md.c       a page as Markdown when the client asks for it
 *   docs_llms.c     /llms.txt and /llms-full.txt of a project
 *   docs_addons.c   /_/addons/, the reader's addons' data, and their
 *                   script
 *   docs_filetreediff.c  the pages a pull request changed, for
 *                   /_/addons/
 *   docs_inject.c   the script's tag put into the HTML pages sent
 * One struct docs_ctx travels through all of them for a request. The calls
 * run one way, top down: docs.c calls any of them, docs_llms.c calls
 * docs_serve.c and those below it, docs_addons.c calls docs_auth.c and
 * docs_common.c, docs_serve.c calls the five below;
 * of those docs_auth.c calls docs_common.c, docs_md.c calls docs_send.c,
 * and docs_common.c, docs_send.c and docs_cache.c call no other docs
 * file.
 */
#ifndef LECTERN_SRV_DOCS_H
#define LECTERN_SRV_DOCS_H

#include <stdint.h>
#include <sys/stat.h>

#include "lectern/project.h"
#include "lectern/slug.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "handler.h"

#define DOCS_INDEX "index.html"
/* Longest file system path or URL path built here (Linux's PATH_MAX;
 * realpath() writes at most this much). */
#define DOCS_PATH_MAX 4096
/* Longest "<host>\n<raw uri>" remembered by the docs cache; longer
 * requests are resolved every time. */
#define DOCS_KEY_MAX 1024
/* URL prefix of a subproject ("/projects/" + alias): aliases are slugs of
 * at most a project slug's length, and may contain '/'. */
#define DOCS_PREFIX_MAX 320
/* The versioning schemes whose URLs lack a part (the default one has
 * /<lang>/<version>/). */
#define DOCS_SCHEME_SINGLE "single_version_without_translations"
#define DOCS_SCHEME_NO_TRANSLATIONS "multiple_versions_without_translations"

struct docs_cache;

/* One documentation request. */
struct docs_ctx {
	struct srv_request *req;
	struct srv_response *res;
	struct lec_store *store;
	struct lec_project *host_project; /* named by the Host header */
	struct lec_project *project;  /* resolved: the host project, one of
					 its translations or a subproject;
					 owned unless == host_project */
	/* The pull-request version the host names ("7" of
	 * <project>--7.<external domain>), the only version served there;
	 * "" on the docs domain, which serves no pull-request version. */
	char external[LEC_VERSION_SLUG_MAX + 1];
	char prefix[DOCS_PREFIX_MAX]; /* "/projects/<alias>" or "" */
	const char *query;            /* "?..." of the raw URI, or "" */
	char *path;                   /* decoded path */
	struct lec_user *user;        /* who is asking; see docs_user */
	int64_t session;              /* the session user came from; 0:
					 none (a token, or anonymous) */
	int user_known;               /* user looked up already: the
					 answer depends on who asks, so
					 it is not cached */
	int private_content;          /* a private version or project was
					 read: no shared caching */
	int addons;                   /* HTML pages sent get the addons'
					 script (the project's setting) */
	struct docs_cache *cache;     /* this thread's, NULL: not used */
	uint64_t stamp;               /* the store's commit stamp, taken
					 before any read; 0: unknown */
	char key[DOCS_KEY_MAX];       /* the cache key; "" when none */
};

/* docs_common.c ----------------------------------------------------------- */

/* Decode a raw URI's path (n bytes, without the query); NULL for anything
 * that could name a file outside the tree or is malformed: an encoded
 * '/', '\', NUL or other control character (the path is echoed in
 * Location, and a NUL would cut it short), a raw control character, a bad
 * escape, a dot segment, or a path not starting with '/'. Owned by the
 * caller. The preview's server decodes its paths with it too. */
char *docs_decode_path(const char *raw, size_t n);

/* The slug label of "<label>.<docs domain>" (exactly one label, compared
 * case-insensitively), lowercased into out; 0 when host is not one (or
 * NULL). The embed APIs use it too, for the URLs they are asked about. */
int docs_host_slug(const char *host, const char *domain, char *out,
		   size_t cap);
/* "<project>--<version>.<external domain>": the project's label and the
 * version's slug, split on the last "--" as the service's unresolver
 * splits them, into project and version; 0 when host is not one. */
int docs_external_host(const char *host, const char *domain, char *project,
		       size_t project_cap, char *version, size_t version_cap);
/* The slug of the version c->project's "/" leads to: its default version,
 * or on a pull request's host that request's version. *out owned by the
 * caller (free()). An engine code. */
int docs_default_slug(struct docs_ctx *c, char **out);
/* Whether version may be served on this host: a pull request's on its
 * own host only, every other version on the docs domain only. */
int docs_version_on_host(const struct docs_ctx *c,
			 const struct lec_version *version);
/* The project of a slug label: as written, then with '-' read as '_' (a
 * slug's underscores appear as hyphens in host names); slug may be
 * rewritten. Returns lec_project_get's code; *out owned by the caller. */
int docs_find_project(struct lec_store *store, char *slug,
		      struct lec_project **out);

/* The decoded value of key in an "a=b&c=d" string (a form body or a
 * query without its '?') into out (cap bytes); 0 when absent, malformed
 * or too long. The decoded copy may be a token: it is wiped before it is
 * freed. */
int docs_form_value(const char *s, const char *key, char *out, size_t cap);

/* 302 to target (a path, or an absolute URL) with the request's query
 * string kept, "X-RTD-Redirect: system". Returns the status. */
int docs_system_redirect(struct docs_ctx *c, const char *target);
/* The plain "Not Found" page (status 404). */
int docs_plain_not_found(struct srv_response *res);
/* Normalise a language segment ("pt_BR" -> "pt-br") into out; 0 when it
 * is no documentation language code (the service's list, plus "zh"). */
int docs_language_code(const char *segment, char *out, size_t cap);
/* The URL of a version's root of c->project, under c->prefix, without
 * the trailing slash ("/en/latest", "/projects/sub/latest", ""). */
void docs_root_url(struct docs_ctx *c, const char *version, char *out,
		   size_t cap);

/* docs_serve.c ------------------------------------------------------------ */

/*
 * Serve file (relative to the version root, may be empty) of version of
 * c->project; root_url is the version's URL without the trailing slash
 * ("/en/latest", "" for a single-version project). Forced user redirects
 * are checked before an existing page is sent; a missing one goes through
 * the 404 handler (directory index, user redirects, custom 404 pages).
 */
int docs_serve(struct docs_ctx *c, const char *version, const char *file,
	       const char *root_url);
/* The 404 handler for a request whose version did not resolve (unknown
 * version or language, an invalid path): exact and prefix user redirects,
 * then the default version's custom 404 page, then the plain page. */
int docs_not_found(struct docs_ctx *c);
/* GET /_/downloads/<lang>/<version>/<format>/ (rest: after "downloads/"). */
int docs_download(struct docs_ctx *c, const char *rest);
/* The project serving language code lang on the host: the host project
 * itself or its translation (owned by the caller unless == host). NULL
 * when there is none, or only one the requester may not see
 * (docs_project_visible). */
struct lec_project *docs_language_project(struct docs_ctx *c,
					  struct lec_project *main,
					  const char *lang);

/* The published directory of version of c->project for kind ("html"), if
 * it may be served to this client (it exists, is active and readable):
 * its path into root (DOCS_PATH_MAX bytes) and an open descriptor the
 * caller closes; -1 otherwise. */
int docs_version_root(struct docs_ctx *c, const char *version,
		      const char *kind, char *root);

/* docs_llms.c ------------------------------------------------------------- */

/* GET /llms.txt (full: /llms-full.txt) on a project's host. */
int docs_llms(struct docs_ctx *c, int full);

/* docs_addons.c ----------------------------------------------------------- */

/* GET /_/addons/ on a docs host (the service's addons API, api-version 1
 * and 2). */
#define DOCS_ADDONS_PATH "/_/addons/"
int docs_addons(struct docs_ctx *c);
/* The service's answers to a page it cannot name (404 {"detail"}) and to
 * a query naming none (400 {"error"}); the preview's server gives them
 * too. */
#define DOCS_ADDONS_NEED_SLUGS                                               \
	"'project-slug' and 'version-slug' GET attributes are required when " \
	"not sending 'url'"
#define DOCS_ADDONS_NO_URL_PROJECT                                           \
	"There is no project with the 'project-slug' requested"
#define DOCS_ADDONS_NO_PROJECT "No Project matches the given query."
/* The parameters of a /_/addons/ query, each NULL when absent, empty
 * (Django's `if not x`) or longer than any URL served. */
struct docs_addons_query {
	const char *url, *api, *project, *version;
	char buf[4][DOCS_PATH_MAX];
};
/* Read them from a query string without its '?' (NULL: none). */
void docs_addons_query_read(const char *query, struct docs_addons_query *q);
/* What is wrong with an api-version parameter (NULL: absent), as the
 * service's 400 {"error"} says it; NULL when it is one answered, with
 * its major number (1 or 2) in *major. */
const char *docs_addons_api_error(const char *api, long *major);
/* The api-version 2 answer (the service's placeholder). NULL: out of
 * memory. */
cJSON *docs_addons_v2(void);
/* GET of the addons' script, which draws them from /_/addons/: the bytes
 * of src/server/addons/addons.js, compiled in (cmake/EmbedFile.cmake). */
#define DOCS_ADDONS_SCRIPT_PATH "/_/static/lectern/addons.js"
int docs_addons_script(struct docs_ctx *c);
extern const char docs_addons_js[];
extern const size_t docs_addons_js_len;

/* docs_filetreediff.c ----------------------------------------------------- */

/* On a pull request's version head of p: add "outdated" and "diff" (the
 * pages it added, deleted and modified against base_slug) to the addon
 * object addon, as the service's filetreediff shows them. 1 when added,
 * 0 when there is no diff to show (not a pull request, a base the
 * requester may not read, an output missing). */
int docs_addons_filetreediff(struct docs_ctx *c, const struct lec_project *p,
			     const struct lec_version *head,
			     const char *base_slug, cJSON *addon);

/* docs_inject.c ----------------------------------------------------------- */

/* html (n bytes) with the addons' script tag before its first </head>
 * (malloc'ed, *len bytes); NULL when it has none (or out of memory): the
 * page is then sent as it is. */
char *docs_inject_addons(const char *html, size_t n, size_t *len);

/* docs_md.c --------------------------------------------------------------- */

struct lec_page_md;
struct lec_page_md_options;
/* Whether the client asks for a page as Markdown (Accept). */
int docs_wants_markdown(struct srv_request *req);
/* Whether a file is an HTML page (by its name). */
int docs_is_page(const char *rel);
/* The Markdown of the page open as fd (st its size), links made absolute
 * against url, with opts (NULL: none); *out owned by the caller
 * (lec_page_md_free). fd stays open. An engine code (LEC_EIO: unreadable
 * or too large; LEC_ENOTFOUND: no such section). */
int docs_page_markdown(int fd, const struct stat *st, const char *url,
		       const struct lec_page_md_options *opts,
		       struct lec_page_md **out);
/* Answer with the page open as fd (consumed) as Markdown, its section and
 * anchors as the query asks (section=ID, anchors=1). */
int docs_send_markdown(struct docs_ctx *c, int fd, const struct stat *st);

/* docs_send.c ------------------------------------------------------------- */

/* Open the directory root (a version's published directory) as an O_PATH
 * descriptor for docs_open_inside; -1 when there is none. */
int docs_dir_open(const char *root);
/* Open a regular file rel under dirfd (the directory root), resolved
 * without leaving it: openat2(RESOLVE_BENEATH). When the kernel lacks
 * openat2, or rel involves a symlink openat2 will not follow (absolute, or
 * out and back in), the real path is checked against root's instead.
 * -1 when there is no such file inside. */
int docs_open_inside(int dirfd, const char *root, const char *rel,
		     struct stat *st);
/* The fast half of docs_open_inside: -1 when the file is missing or not
 * regular, -2 when openat2 could not decide (the caller resolves in full
 * or treats it as a miss). */
int docs_open_beneath(int dirfd, const char *rel, struct stat *st);
/* The Content-Type of a file name. */
const char *docs_content_type(const char *name);
/* Fill c->res with the open file fd (consumed) and status (200 or 404):
 * 304 when the client's copy is current, a single byte range (206/416)
 * when asked for on a 200, gzip when the client takes it for a text type. */
int docs_send_file(struct docs_ctx *c, int fd, const struct stat *st,
		   const char *name, int status);

/* Fill c->res with body (len bytes, malloc'ed; consumed) of Content-Type
 * type, made from the file st describes (NULL: from nothing on disk): the
 * file's validators with tag added to its ETag ("-md": another entity),
 * else a hash of the body; 304 when the client's copy is current. */
int docs_send_text(struct docs_ctx *c, char *body, size_t len,
		   const char *type, const struct stat *st, const char *tag);

/* docs_auth.c ------------------------------------------------------------- */

/* The user making the request: "Authorization: Token <t>", else a valid
 * session cookie; NULL when anonymous (a bad token or cookie is anonymous,
 * never an error page). Owned by c. */
const struct lec_user *docs_user(struct docs_ctx *c);
/* Whether the requester may read version of project: 1 yes, 0 no (the
 * caller answers 404, so a private version's existence is not revealed). */
/* Whether the requester may know the project exists: a private one that
 * they cannot see is answered everywhere as a project that does not
 * exist (its host's root, a subproject's or translation's path). 1 or
 * 0. */
int docs_project_visible(struct docs_ctx *c, const struct lec_project *p);
int docs_can_read(struct docs_ctx *c, const struct lec_project *project,
		  const struct lec_version *version);
/* The login route, on the API's host and on every docs host alike. */
#define DOCS_LOGIN_PATH "/_/login/"
/* On the API's host: GET shows the form (or, for a visitor logged in
 * there already who is on the way to a docs host, goes on at once), POST
 * exchanges an API token for a session there; with a docs host named in
 * "host", the browser goes on to that host with a one-time ticket. */
int docs_login_form(struct docs_ctx *c);
/* On a docs host: GET with a ticket starts a session on this host, and
 * without one goes to the form on the API's host, so that a token is
 * never typed into a page that a build's output shares an origin with. */
int docs_login(struct docs_ctx *c);
/* The logout route, on the API's host and on every docs host alike: GET
 * shows a form to confirm, its POST ends the session (with its family,
 * lectern/session.h) and clears the cookie, then goes on to "next". */
#define DOCS_LOGOUT_PATH "/_/logout/"
int docs_logout(struct docs_ctx *c);
/* The dashboard's forms (dash.c), for someone logged in: the CSRF token
 * a form of this host carries for them, into token (DOCS_FORM_TOKEN_MAX
 * bytes, hex); -1 when nobody is logged in or there is no session key. */
#define DOCS_FORM_TOKEN_MAX 65
int docs_form_token(struct docs_ctx *c, char *token);
/* Whether a form's POST carries that token (sent; NULL: none), from a
 * page of this host (its Origin, or else its Referer, names it). */
int docs_form_token_valid(struct docs_ctx *c, const char *sent);
/* The headers of a page with a form: kept by no cache (its token is this
 * visitor's), framed by no other page. */
void docs_form_headers(struct docs_ctx *c);

/* docs_cache.c ------------------------------------------------------------ */

/* This thread's cache (created on first use, freed when the thread
 * exits); NULL when out of memory. */
struct docs_cache *docs_cache_thread(void);
/* The remembered decision for key at commit stamp version: the directory
 * descriptor (owned by the cache), the file in it (valid until the next
 * call on this thread) and whether it got the addons (docs_ctx.addons). 1
 * on a hit, 0 otherwise. Checks that the directory's path still names the
 * directory held open. */
int docs_cache_find(struct docs_cache *cache, const char *key,
		    uint64_t version, int *dirfd, const char **rel,
		    int *addons);
/* Remember that key at version served rel under root (open as dirfd,
 * which stays the caller's: the cache keeps its own duplicate), with or
 * without the addons. */
void docs_cache_put(struct docs_cache *cache, const char *key,
		    uint64_t version, const char *root, int dirfd,
		    const char *rel, int addons);

#endif
