/*
 * Serving built documentation on the docs domain (behaviour notes
 * §7.1–7.4): a request whose Host is "<slug>.<docs domain>" names a
 * project; its path names a version and a file under that version's
 * published HTML, <data>/published/<project>/<version>/html/. A pull
 * request's version is served on a host of its own,
 * "<slug>--<version>.<external domain>", which serves no other version
 * (and the docs domain none of those), marked noindex; its visual diff
 * reads the base version's page across origins, so the docs domain lets
 * that project's pull-request hosts, and only them, read what it would
 * show anyone (no credentials). This file
 * decodes the request and resolves the path the way the service's
 * unresolver does, answering the system redirects on the way (302,
 * "X-RTD-Redirect: system", query string kept):
 *
 *   - a subproject asked for on its own subdomain -> the parent's
 *     /projects/<alias>/<path>; "//" in a path -> runs of '/' collapsed
 *     (relative Location)
 *   - /page/<file> (also under /projects/<alias>/) -> the default version
 *   - /projects/<alias>/... -> the subproject (longest alias of whole
 *     segments wins; aliases may contain '/'), resolved with its own
 *     versioning scheme, no deeper nesting
 *   - per scheme: /<lang>/<version>/<file> (the language is the project's
 *     own or one of its translations', served from the main project's
 *     host; an old code such as pt_BR -> pt-br), /<version>/<file>, or
 *     /<file> for a single version; "/" and "/<lang>/" -> the default
 *     version, a version root without its slash -> with it
 *   - /_/login/, /_/logout/ and /_/downloads/<lang>/<version>/<format>/
 * docs_serve.c then serves the file (with user redirects and the 404
 * handler), docs_send.c sends it, docs_auth.c decides who may read a
 * private version. docs/serving.md records the choices made where the
 * service's behaviour was not ours to copy.
 *
 * Security is the point of much of the code: the path is decoded from the
 * raw URI first (docs_decode_path, docs_common.c: encoded slashes, NUL bytes and other control characters,
 * and "." / ".." segments are refused before any file system call), and a
 * file is opened beneath the version's published directory
 * (openat2(RESOLVE_BENEATH), else a realpath() check), so a symlink in a
 * build's output that points elsewhere is a 404.
 *
 * Speed: a GET or HEAD reads one database snapshot from start to end, and
 * a page served before at the same data version is sent from the thread's
 * docs cache (docs_cache.c) without resolving anything again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/errors.h"
#include "lectern/resolve.h"
#include "lectern/slug.h"
#include "lectern/store.h"
#include "docs.h"

#define SUBPROJECTS "/projects/"
#define DOWNLOADS_PATH "/_/downloads/"
/* Longest language code in a URL ("sr@latin" style codes are far
 * shorter). */
#define DOCS_LANG_MAX 32

/* Projects ---------------------------------------------------------------- */

/* Make p (owned, or the host project) the project being served. */
static void set_project(struct docs_ctx *c, struct lec_project *p)
{
	if (c->project != c->host_project && c->project != p)
		lec_project_free(c->project);
	c->project = p;
}

/* Path resolution --------------------------------------------------------- */

/* Split the next segment off *rest (no leading '/'): copies it into seg and
 * reports whether a '/' followed it. */
static int next_segment(const char **rest, char *seg, size_t cap,
			int *slash)
{
	size_t n = strcspn(*rest, "/");

	if (n == 0 || n >= cap)
		return -1;
	memcpy(seg, *rest, n);
	seg[n] = '\0';
	*rest += n;
	*slash = **rest == '/';
	if (*slash)
		(*rest)++;
	return 0;
}

/* 302 to the default version's root of c->project, plus file (a path
 * with its leading '/', or ""). */
static int to_default_version(struct docs_ctx *c, const char *file)
{
	char *slug = NULL, root[DOCS_PATH_MAX], target[DOCS_PATH_MAX];
	int status;

	if (docs_default_slug(c, &slug) != LEC_OK)
		return docs_plain_not_found(c->res);
	docs_root_url(c, slug, root, sizeof(root));
	if ((size_t)snprintf(target, sizeof(target), "%s%s", root,
			     file[0] ? file : "/") >= sizeof(target))
		status = docs_plain_not_found(c->res);
	else
		status = docs_system_redirect(c, target);
	free(slug);
	return status;
}

/* "<version>(/<file>)?" below prefix ("/en", "/projects/sub", ""). */
static int resolve_version(struct docs_ctx *c, const char *prefix,
			   const char *rest)
{
	char version[LEC_VERSION_SLUG_MAX + 1], root[DOCS_PATH_MAX];
	struct lec_version *v = NULL;
	int slash, rc;

	if (next_segment(&rest, version, sizeof(version), &slash) < 0)
		return docs_not_found(c);
	rc = lec_version_get(c->store, c->project->id, version, &v);
	lec_version_free(v);
	if (rc == LEC_ENOTFOUND)
		return docs_not_found(c);
	if (rc != LEC_OK)
		return srv_respond_internal(c->res, lec_error_last());
	snprintf(root, sizeof(root), "%s/%s", prefix, version);
	if (!slash) {
		char target[DOCS_PATH_MAX + 1];

		snprintf(target, sizeof(target), "%s/", root);
		return docs_system_redirect(c, target);
	}
	return docs_serve(c, version, rest, root);
}

/* "/<lang>(/<version>(/<file>)?)?" of a project with translations. */
static int resolve_language(struct docs_ctx *c, const char *rest)
{
	char lang[DOCS_LANG_MAX], code[DOCS_LANG_MAX], url[DOCS_PATH_MAX];
	struct lec_project *p;
	int slash;

	if (*rest == '\0')
		return to_default_version(c, "");
	if (next_segment(&rest, lang, sizeof(lang), &slash) < 0 ||
	    !docs_language_code(lang, code, sizeof(code)))
		return docs_not_found(c);
	if (strchr(lang, '_')) {
		/* An old code (pt_BR): the same path with today's (pt-br). */
		snprintf(url, sizeof(url), "%s/%s%s%s", c->prefix, code,
			 slash ? "/" : "", rest);
		return docs_system_redirect(c, url);
	}
	if ((p = docs_language_project(c, c->project, code)) == NULL)
		return docs_not_found(c);
	set_project(c, p);
	if (*rest == '\0')
		return to_default_version(c, "");
	snprintf(url, sizeof(url), "%s/%s", c->prefix, lang);
	return resolve_version(c, url, rest);
}

static int resolve_path(struct docs_ctx *c, const char *path);

/* "/projects/<alias>/..." (after is what follows "/projects/"): the
 * subproject with the longest alias matching whole segments. -1 when
 * none matches (the path is then resolved against the parent). */
static int resolve_subproject(struct docs_ctx *c, const char *after)
{
	struct lec_subproject_list list = { 0 };
	struct lec_project *child = NULL;
	size_t i, best = 0, bi = 0;
	int rc = -1;

	if (lec_subproject_list(c->store, c->project->id, LEC_VIEWER_ALL,
				NULL, &list) != LEC_OK)
		return -1;
	for (i = 0; i < list.len; i++) {
		size_t n = strlen(list.items[i].alias);

		if (n > best && strncmp(after, list.items[i].alias, n) == 0 &&
		    (after[n] == '/' || after[n] == '\0')) {
			best = n;
			bi = i;
		}
	}
	if (best > 0 && sizeof(SUBPROJECTS) + best <= sizeof(c->prefix) &&
	    lec_project_get(c->store, list.items[bi].child.slug, &child) ==
		    LEC_OK &&
	    docs_project_visible(c, child)) {
		snprintf(c->prefix, sizeof(c->prefix), SUBPROJECTS "%s",
			 list.items[bi].alias);
		set_project(c, child);
		rc = 0;
	}
	lec_subproject_list_dispose(&list);
	if (rc < 0) {
		lec_project_free(child);
		return -1;
	}
	after += best;
	if (*after == '\0') {
		char target[DOCS_PREFIX_MAX + 1];

		snprintf(target, sizeof(target), "%s/", c->prefix);
		return docs_system_redirect(c, target);
	}
	return resolve_path(c, after);
}

/* A path (with its leading '/') of c->project below c->prefix. */
static int resolve_path(struct docs_ctx *c, const char *path)
{
	const char *scheme = c->project->versioning_scheme;
	char *slug = NULL;
	int status;

	if (strncmp(path, "/page/", 6) == 0)
		return to_default_version(c, path + 5);
	if (c->prefix[0] == '\0' &&
	    strncmp(path, SUBPROJECTS, strlen(SUBPROJECTS)) == 0 &&
	    (status = resolve_subproject(c, path + strlen(SUBPROJECTS))) >= 0)
		return status;
	if (scheme && strcmp(scheme, DOCS_SCHEME_SINGLE) == 0) {
		if (docs_default_slug(c, &slug) != LEC_OK)
			return docs_plain_not_found(c->res);
		status = docs_serve(c, slug, path + 1, c->prefix);
		free(slug);
		return status;
	}
	if (scheme && strcmp(scheme, DOCS_SCHEME_NO_TRANSLATIONS) == 0) {
		if (path[1] == '\0')
			return to_default_version(c, "");
		return resolve_version(c, c->prefix, path + 1);
	}
	return resolve_language(c, path + 1);
}

/* Canonical redirects ----------------------------------------------------- */

/* A subproject on its own subdomain: 302 to the parent's host,
 * /projects/<alias><raw path>. */
static int to_parent_domain(struct docs_ctx *c, const char *raw, size_t n)
{
	char *host = lec_resolve_docs_host(c->host_project,
					   srv_docs_domain(c->req));
	char target[DOCS_PATH_MAX];
	int status;

	if (host == NULL)
		return srv_respond_internal(c->res, "out of memory");
	if ((size_t)snprintf(target, sizeof(target), "%s://%s" SUBPROJECTS
			     "%s%.*s", srv_request_scheme(c->req), host,
			     c->host_project->superproject_alias,
			     (int)n, raw) >= sizeof(target))
		status = docs_plain_not_found(c->res);
	else
		status = docs_system_redirect(c, target);
	free(host);
	return status;
}

/* "//" anywhere in the raw path: 302 to it with runs of '/' collapsed. */
static int collapse_slashes(struct docs_ctx *c, const char *raw, size_t n)
{
	char target[DOCS_PATH_MAX];
	size_t i, j = 0;

	if (n >= sizeof(target))
		return docs_plain_not_found(c->res);
	for (i = 0; i < n; i++)
		if (raw[i] != '/' || j == 0 || target[j - 1] != '/')
			target[j++] = raw[i];
	target[j] = '\0';
	return docs_system_redirect(c, target);
}

/* Dispatch ---------------------------------------------------------------- */

static int handle(struct docs_ctx *c)
{
	const char *raw = c->req->raw_uri;
	size_t n = c->query[0] ? (size_t)(c->query - raw) : strlen(raw);

	if ((c->path = docs_decode_path(raw, n)) == NULL)
		return docs_not_found(c);
	if (c->host_project->superproject_slug)
		return to_parent_domain(c, raw, n);
	if (strstr(c->path, "//"))
		return collapse_slashes(c, raw, n);
	if (strncmp(c->path, DOWNLOADS_PATH, strlen(DOWNLOADS_PATH)) == 0)
		return docs_download(c, c->path + strlen(DOWNLOADS_PATH));
	if (strcmp(c->path, DOCS_ADDONS_PATH) == 0)
		return docs_addons(c);
	if (strcmp(c->path, DOCS_ADDONS_SCRIPT_PATH) == 0)
		return docs_addons_script(c);
	if (strncmp(c->path, "/_/", 3) == 0)
		return docs_plain_not_found(c->res);
	/* At the root of a project's host, before any version (the
	 * service's core URLs). */
	if (strcmp(c->path, "/llms.txt") == 0)
		return docs_llms(c, 0);
	if (strcmp(c->path, "/llms-full.txt") == 0)
		return docs_llms(c, 1);
	return resolve_path(c, c->path);
}

/* Whether the raw request URI is route (with a query or not). */
static int is_route(const char *raw, const char *route)
{
	size_t n = strlen(route);

	return strncmp(raw, route, n) == 0 && (raw[n] == '\0' || raw[n] == '?');
}

/* Only GET and HEAD (the login route's form, which takes a POST, is on
 * the API's host), and the logout's POST. */
static int method_allowed(struct srv_request *req, struct srv_response *res)
{
	int logout = is_route(req->raw_uri, DOCS_LOGOUT_PATH);

	if (req->method == SRV_GET || req->method == SRV_HEAD ||
	    (logout && req->method == SRV_POST))
		return 1;
	srv_respond_not_allowed(res, req->method_name,
				strdup(logout ? "GET, HEAD, POST"
					      : "GET, HEAD"));
	return 0;
}

/* The cache key of a request, "<host>\n<raw uri>", into c->key; left
 * empty (not cached) when too long. */
static void cache_key(struct docs_ctx *c, const char *host)
{
	size_t hn = strlen(host), un = strlen(c->req->raw_uri);

	if (hn + un + 2 > sizeof(c->key))
		return;
	memcpy(c->key, host, hn);
	c->key[hn] = '\n';
	memcpy(c->key + hn + 1, c->req->raw_uri, un + 1);
}

/* Send the page remembered for this request at this commit stamp, with
 * no transaction at all; 0 on a miss (the file gone or changed into
 * something else included). */
static int serve_remembered(struct docs_ctx *c)
{
	const char *rel;
	struct stat st;
	int dir, fd;

	if (c->key[0] == '\0' ||
	    !docs_cache_find(c->cache, c->key, c->stamp, &dir, &rel,
			     &c->addons) ||
	    (fd = docs_open_beneath(dir, rel, &st)) < 0)
		return 0;
	docs_send_file(c, fd, &st, rel, 200);
	return 1;
}

/* Resolve and answer the request from the host's project slug. The login
 * and logout routes answer on every docs host, so that they say nothing
 * of which projects exist. */
static void serve_resolved(struct docs_ctx *c, char *slug)
{
	int rc;

	if (is_route(c->req->raw_uri, DOCS_LOGIN_PATH)) {
		docs_login(c);
		return;
	}
	if (is_route(c->req->raw_uri, DOCS_LOGOUT_PATH)) {
		docs_logout(c);
		return;
	}
	rc = docs_find_project(c->store, slug, &c->host_project);
	if (rc == LEC_OK && !docs_project_visible(c, c->host_project))
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK) {
		c->project = c->host_project;
		handle(c);
	} else if (rc == LEC_ENOTFOUND) {
		docs_plain_not_found(c->res);
	} else {
		srv_respond_internal(c->res, lec_error_last());
	}
}

/* For GET and HEAD: the thread's cache keyed at the store's commit stamp,
 * taken before any read, so a decision made from a later snapshot is only
 * ever filed under an older stamp (a harmless miss), never the reverse. 1
 * when the request may use the cache. */
static int cache_open(struct docs_ctx *c, const char *host)
{
	/* A page asked for as Markdown is not the file the cache sends. */
	if ((c->req->method != SRV_GET && c->req->method != SRV_HEAD) ||
	    docs_wants_markdown(c->req) ||
	    (c->cache = docs_cache_thread()) == NULL)
		return 0;
	cache_key(c, host);
	if (lec_store_commit_stamp(c->store, &c->stamp) < 0)
		c->stamp = 0;
	return 1;
}

/* One read snapshot for the whole resolution of a GET or HEAD. 1 when a
 * snapshot was begun. */
static int begin_read(struct docs_ctx *c)
{
	return (c->req->method == SRV_GET || c->req->method == SRV_HEAD) &&
	       lec_store_read_begin(c->store) == LEC_OK;
}

/* A page the docs domain serves, read by a script on one of the same
 * project's pull-request hosts (the addons' visual diff against the base
 * version): that origin, named back, may read it. No credentials are
 * allowed, so what it reads is what an anonymous reader gets. */
static void allow_previews(struct docs_ctx *c, const char *slug)
{
	char project[LEC_PROJECT_SLUG_MAX + 1], version[LEC_VERSION_SLUG_MAX + 1];
	const char *origin = srv_header(c->req, "Origin"), *host;

	if (c->external[0] || origin == NULL)
		return;
	c->res->vary = "Accept, Accept-Encoding, Origin";
	if (strncmp(origin, "http://", 7) == 0)
		host = origin + 7;
	else if (strncmp(origin, "https://", 8) == 0)
		host = origin + 8;
	else
		return;
	if (docs_external_host(host, srv_external_domain(c->req), project,
			       sizeof(project), version, sizeof(version)) &&
	    strcmp(project, slug) == 0)
		srv_response_header(c->res, "Access-Control-Allow-Origin",
				    origin);
}

int srv_docs_dispatch(struct srv_request *req, struct srv_response *res)
{
	struct docs_ctx c;
	char slug[LEC_PROJECT_SLUG_MAX + 1];
	const char *host = srv_request_host(req), *q;
	int reading;

	memset(&c, 0, sizeof(c));
	if (!docs_external_host(host, srv_external_domain(req), slug,
				sizeof(slug), c.external, sizeof(c.external)) &&
	    !docs_host_slug(host, srv_docs_domain(req), slug, sizeof(slug)))
		return 0;
	if (!method_allowed(req, res))
		return 1;
	c.req = req;
	c.res = res;
	q = strchr(req->raw_uri, '?');
	c.query = q ? q : "";
	if ((c.store = srv_store(req)) == NULL) {
		srv_respond_internal(res, "no store");
		return 1;
	}
	if (!(cache_open(&c, host) && c.stamp && serve_remembered(&c))) {
		reading = begin_read(&c);
		serve_resolved(&c, slug);
		if (reading)
			lec_store_read_end(c.store);
	}
	/* A pull request's preview is no page for search engines (the
	 * service's robots.txt on its external domain disallows all). */
	if (c.external[0])
		srv_response_header(res, "X-Robots-Tag", "noindex");
	allow_previews(&c, slug);
	set_project(&c, NULL);
	lec_project_free(c.host_project);
	lec_user_free(c.user);
	free(c.path);
	return 1;
}
