/*
 * Serving built documentation on the docs domain (behaviour notes §7.1–7.2):
 * a request whose Host is "<slug>.<docs domain>" names a project; its path
 * names a version and a file under that version's published HTML,
 * <data>/published/<project>/<version>/html/. This file resolves the path
 * per the project's versioning scheme, answers the system redirects (302,
 * "X-RTD-Redirect: system"), and sends the file with the kernel doing the
 * copy, with the validators (ETag, Last-Modified) nginx would give it.
 *
 * Security is the point of most of the code below: the path is decoded here
 * from the raw URI (encoded slashes, NUL bytes and "." / ".." segments are
 * refused before any file system call), and the file found is resolved with
 * realpath() and must lie inside the version's published directory, so a
 * symlink in a build's output that points elsewhere is a 404.
 *
 * Not handled yet: translations other than the project's own language,
 * subprojects, /page/, "//" collapsing, user redirects, private versions,
 * downloads, Range, compression.
 */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lectern/errors.h"
#include "lectern/project.h"
#include "lectern/slug.h"
#include "lectern/version.h"
#include "server.h"

#define DOCS_INDEX "index.html"
/* Longest file system path built here (Linux's PATH_MAX; realpath() writes
 * at most this much). */
#define DOCS_PATH_MAX 4096
#define DOCS_NOT_FOUND_PAGE                                              \
	"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n" \
	"<body><h1>Not Found</h1>\n<p>The page you requested does not "     \
	"exist.</p></body></html>\n"

/* One documentation request, resolved. */
struct docs_ctx {
	struct srv_request *req;
	struct srv_response *res;
	struct lec_store *store;
	struct lec_project *project;
	const char *query;       /* "?..." of the raw URI, or "" */
	char *path;              /* decoded path */
};

/* Host -------------------------------------------------------------------- */

/* The slug label of "<label>.<docs domain>" (exactly one label, compared
 * case-insensitively), lowercased into out; 0 when host is not one. */
static int host_slug(const char *host, const char *domain, char *out,
		     size_t cap)
{
	size_t hn = host ? strlen(host) : 0, dn = strlen(domain), n, i;

	if (hn <= dn + 1 || strcasecmp(host + hn - dn, domain) != 0 ||
	    host[hn - dn - 1] != '.')
		return 0;
	n = hn - dn - 1;
	if (n >= cap || memchr(host, '.', n) != NULL)
		return 0;
	for (i = 0; i < n; i++)
		out[i] = (char)(host[i] >= 'A' && host[i] <= 'Z'
					? host[i] - 'A' + 'a'
					: host[i]);
	out[n] = '\0';
	return 1;
}

/* The project of a slug label: as written, then with '-' read as '_' (a
 * slug's underscores appear as hyphens in host names). */
static int find_project(struct lec_store *store, char *slug,
			struct lec_project **out)
{
	int rc = lec_project_get(store, slug, out);
	char *p;

	if (rc != LEC_ENOTFOUND || strchr(slug, '-') == NULL)
		return rc;
	for (p = slug; *p; p++)
		if (*p == '-')
			*p = '_';
	return lec_project_get(store, slug, out);
}

/* Path decoding ----------------------------------------------------------- */


/* Whether a decoded path has a "." or ".." segment. */
static int has_dot_segment(const char *path)
{
	const char *s = path;

	while (*s) {
		size_t n = strcspn(s, "/");

		if ((n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 1;
		s += n;
		if (*s == '/')
			s++;
	}
	return 0;
}

/* Decode the raw path (n bytes); NULL for anything that could name a file
 * outside the tree or is malformed: an encoded '/', '\', NUL or other
 * control character (the path is echoed in Location), a bad escape, a dot
 * segment, or a path not starting with '/'. */
static char *decode_path(const char *raw, size_t n)
{
	char *out;
	size_t i, j = 0;

	if (n == 0 || raw[0] != '/' || (out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int hi, lo, c;

		if (raw[i] != '%') {
			out[j++] = raw[i];
			continue;
		}
		hi = i + 2 < n ? srv_hex_value(raw[i + 1]) : -1;
		lo = i + 2 < n ? srv_hex_value(raw[i + 2]) : -1;
		c = hi * 16 + lo;
		if (hi < 0 || lo < 0 || c < 0x20 || c == 0x7f || c == '/' ||
		    c == '\\')
			goto fail;
		out[j++] = (char)c;
		i += 2;
	}
	out[j] = '\0';
	if (has_dot_segment(out))
		goto fail;
	return out;
fail:
	free(out);
	return NULL;
}

/* Responses --------------------------------------------------------------- */

static int plain_not_found(struct srv_response *res)
{
	res->status = 404;
	res->content_type = "text/html; charset=utf-8";
	res->body_len = sizeof(DOCS_NOT_FOUND_PAGE) - 1;
	res->body = strdup(DOCS_NOT_FOUND_PAGE);
	if (res->body == NULL)
		res->body_len = 0;
	return 404;
}

/* 302 to target (an absolute path) with the request's query string kept. */
static int system_redirect(struct docs_ctx *c, const char *target)
{
	size_t n = strlen(target) + strlen(c->query) + 1;

	if ((c->res->location = malloc(n)) == NULL)
		return srv_respond_internal(c->res, "out of memory");
	snprintf(c->res->location, n, "%s%s", target, c->query);
	c->res->rtd_redirect = "system";
	return srv_respond_empty(c->res, 302);
}

static const char *content_type_of(const char *name)
{
	static const struct {
		const char *ext;
		const char *type;
	} types[] = {
		{ "html", "text/html; charset=utf-8" },
		{ "htm", "text/html; charset=utf-8" },
		{ "css", "text/css" },
		{ "js", "application/javascript" },
		{ "json", "application/json" },
		{ "png", "image/png" },
		{ "jpg", "image/jpeg" },
		{ "jpeg", "image/jpeg" },
		{ "svg", "image/svg+xml" },
		{ "gif", "image/gif" },
		{ "ico", "image/x-icon" },
		{ "woff2", "font/woff2" },
		{ "txt", "text/plain; charset=utf-8" },
		{ "xml", "application/xml" },
		{ "pdf", "application/pdf" },
		{ "epub", "application/epub+zip" },
		{ "zip", "application/zip" },
	};
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(dot + 1, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

/* Whether an If-None-Match list names etag ("*", weak tags compared
 * weakly, as RFC 9110 §13.1.2 asks for GET). */
static int etag_matches(const char *header, const char *etag)
{
	size_t elen = strlen(etag);

	while (header && *header) {
		size_t n;

		header += strspn(header, " \t,");
		if (strncmp(header, "W/", 2) == 0)
			header += 2;
		n = strcspn(header, ",");
		while (n > 0 && (header[n - 1] == ' ' || header[n - 1] == '\t'))
			n--;
		if ((n == 1 && header[0] == '*') ||
		    (n == elen && memcmp(header, etag, n) == 0))
			return 1;
		header += n;
		header += strcspn(header, ",");
	}
	return 0;
}

/* Files ------------------------------------------------------------------- */

/* Open a regular file at root + "/" + rel whose real path lies inside
 * root_real (root's own realpath). -1 when there is none. */
static int open_inside(const char *root, const char *root_real,
		       const char *rel, struct stat *st)
{
	char path[DOCS_PATH_MAX], real[DOCS_PATH_MAX];
	size_t rn = strlen(root_real);
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >=
		    sizeof(path) ||
	    realpath(path, real) == NULL ||
	    strncmp(real, root_real, rn) != 0 || real[rn] != '/')
		return -1;
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A version's published HTML directory and its real path; -1 when the
 * version has none (never built, or published elsewhere than allowed). */
static int version_root(struct docs_ctx *c, const char *version, char *root,
			char *root_real)
{
	if ((size_t)snprintf(root, DOCS_PATH_MAX, "%s/published/%s/%s/html",
			     srv_data_dir(c->req), c->project->slug,
			     version) >= DOCS_PATH_MAX)
		return -1;
	return realpath(root, root_real) ? 0 : -1;
}

/* Fill res with the open file fd (consumed), or 304 when the client's copy
 * is current. */
static int send_file(struct docs_ctx *c, int fd, const struct stat *st,
		     const char *name, int status)
{
	struct srv_response *res = c->res;
	struct tm tm;

	snprintf(res->etag, sizeof(res->etag), "\"%" PRIx64 "-%" PRIx64 "\"",
		 (uint64_t)st->st_mtime, (uint64_t)st->st_size);
	if (gmtime_r(&st->st_mtime, &tm))
		strftime(res->last_modified, sizeof(res->last_modified),
			 "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (status == 200 &&
	    etag_matches(srv_header(c->req, "If-None-Match"), res->etag)) {
		close(fd);
		return srv_respond_empty(res, 304);
	}
	res->status = status;
	res->content_type = content_type_of(name);
	res->has_file = 1;
	res->file_fd = fd;
	res->file_size = (uint64_t)st->st_size;
	return status;
}

/* Whether version (a slug) exists and is active, so its files are served. */
static int version_served(struct docs_ctx *c, const char *slug)
{
	struct lec_version *v = NULL;
	int ok = lec_version_get(c->store, c->project->id, slug, &v) ==
			 LEC_OK &&
		 v->active;

	lec_version_free(v);
	return ok;
}

/* The custom 404 page of a version: 404.html, then 404/index.html. */
static int custom_not_found(struct docs_ctx *c, const char *version)
{
	static const char *const pages[] = { "404.html", "404/" DOCS_INDEX };
	char root[DOCS_PATH_MAX], root_real[DOCS_PATH_MAX];
	struct stat st;
	size_t i;
	int fd;

	if (!version_served(c, version) ||
	    version_root(c, version, root, root_real) < 0)
		return 0;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if ((fd = open_inside(root, root_real, pages[i], &st)) >= 0) {
			send_file(c, fd, &st, pages[i], 404);
			return 1;
		}
	return 0;
}

/* The 404 handler (notes §7.2): the version's custom page, then the
 * default version's, then the plain page. */
static int not_found(struct docs_ctx *c, const char *version)
{
	char *fallback = NULL;
	int done = version && custom_not_found(c, version);

	if (!done && lec_version_default_slug(c->store, c->project->id,
					      &fallback) == LEC_OK &&
	    (version == NULL || strcmp(fallback, version) != 0))
		done = custom_not_found(c, fallback);
	free(fallback);
	return done ? c->res->status : plain_not_found(c->res);
}

/* Serve file (relative, may be empty) of a version; url is the file's URL
 * path ("/en/latest/api"), for the directory redirect. */
static int serve(struct docs_ctx *c, const char *version, const char *file,
		 const char *url)
{
	char root[DOCS_PATH_MAX], root_real[DOCS_PATH_MAX], rel[DOCS_PATH_MAX];
	size_t n = strlen(file);
	struct stat st;
	int fd;

	if (!version_served(c, version) ||
	    version_root(c, version, root, root_real) < 0)
		return not_found(c, version);
	if ((size_t)snprintf(rel, sizeof(rel), "%s%s", file,
			     n == 0 || file[n - 1] == '/' ? DOCS_INDEX : "") >=
	    sizeof(rel))
		return not_found(c, version);
	if ((fd = open_inside(root, root_real, rel, &st)) >= 0)
		return send_file(c, fd, &st, rel, 200);
	/* A directory asked for without its slash. */
	if (n > 0 && file[n - 1] != '/' &&
	    (size_t)snprintf(rel, sizeof(rel), "%s/" DOCS_INDEX, file) <
		    sizeof(rel) &&
	    (fd = open_inside(root, root_real, rel, &st)) >= 0) {
		char target[DOCS_PATH_MAX];

		close(fd);
		snprintf(target, sizeof(target), "%s/", url);
		return system_redirect(c, target);
	}
	return not_found(c, version);
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

/* 302 to the default version's root, under prefix ("/en" or ""). */
static int to_default_version(struct docs_ctx *c, const char *prefix)
{
	char *slug = NULL, target[DOCS_PATH_MAX];
	int status;

	if (lec_version_default_slug(c->store, c->project->id, &slug) !=
	    LEC_OK)
		return plain_not_found(c->res);
	snprintf(target, sizeof(target), "%s/%s/", prefix, slug);
	status = system_redirect(c, target);
	free(slug);
	return status;
}

/* "/<version>(/<file>)?" below prefix ("/en" or ""); rest has no leading
 * '/'. */
static int resolve_version(struct docs_ctx *c, const char *prefix,
			   const char *rest)
{
	char version[LEC_VERSION_SLUG_MAX + 1], url[DOCS_PATH_MAX];
	struct lec_version *v = NULL;
	int slash, rc;

	if (next_segment(&rest, version, sizeof(version), &slash) < 0)
		return not_found(c, NULL);
	rc = lec_version_get(c->store, c->project->id, version, &v);
	lec_version_free(v);
	if (rc == LEC_ENOTFOUND)
		return not_found(c, NULL);
	if (rc != LEC_OK)
		return srv_respond_internal(c->res, lec_error_last());
	/* Without its slash, rest is "" and url the version root with one. */
	snprintf(url, sizeof(url), "%s/%s/%s", prefix, version, rest);
	if (!slash)
		return system_redirect(c, url);
	return serve(c, version, rest, url);
}

static int same_language(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = *a == '_' ? '-' : tolower((unsigned char)*a);
		int y = *b == '_' ? '-' : tolower((unsigned char)*b);

		if (x != y)
			return 0;
	}
	return *a == *b;
}

static int resolve(struct docs_ctx *c)
{
	const char *scheme = c->project->versioning_scheme;
	const char *rest = c->path + 1;
	char lang[32], prefix[40];
	int slash;

	snprintf(prefix, sizeof(prefix), "/%s",
		 c->project->language ? c->project->language : "");
	if (scheme && strcmp(scheme, "single_version_without_translations") ==
			      0) {
		char *slug = NULL;
		int status;

		if (lec_version_default_slug(c->store, c->project->id,
					     &slug) != LEC_OK)
			return plain_not_found(c->res);
		status = serve(c, slug, rest, c->path);
		free(slug);
		return status;
	}
	if (scheme &&
	    strcmp(scheme, "multiple_versions_without_translations") == 0) {
		if (*rest == '\0')
			return to_default_version(c, "");
		return resolve_version(c, "", rest);
	}
	if (*rest == '\0')
		return to_default_version(c, prefix);
	if (next_segment(&rest, lang, sizeof(lang), &slash) < 0 ||
	    c->project->language == NULL ||
	    !same_language(lang, c->project->language))
		return not_found(c, NULL);
	if (*rest == '\0')
		return to_default_version(c, prefix);
	snprintf(prefix, sizeof(prefix), "/%s", lang);
	return resolve_version(c, prefix, rest);
}

int srv_docs_dispatch(struct srv_request *req, struct srv_response *res)
{
	struct docs_ctx c = { req, res, NULL, NULL, "", NULL };
	char slug[LEC_PROJECT_SLUG_MAX + 1];
	const char *q;
	int rc;

	if (!host_slug(srv_header(req, "Host"), srv_docs_domain(req), slug,
		       sizeof(slug)))
		return 0;
	if (req->method != SRV_GET && req->method != SRV_HEAD) {
		res->allow = strdup("GET, HEAD");
		srv_respond_empty(res, 405);
		return 1;
	}
	q = strchr(req->raw_uri, '?');
	c.query = q ? q : "";
	if ((c.store = srv_store(req)) == NULL) {
		srv_respond_internal(res, "no store");
		return 1;
	}
	rc = find_project(c.store, slug, &c.project);
	if (rc == LEC_ENOTFOUND) {
		plain_not_found(res);
		goto done;
	}
	if (rc != LEC_OK) {
		srv_respond_internal(res, lec_error_last());
		goto done;
	}
	c.path = decode_path(req->raw_uri,
			     q ? (size_t)(q - req->raw_uri)
			       : strlen(req->raw_uri));
	if (c.path == NULL)
		not_found(&c, NULL);
	else
		resolve(&c);
done:
	free(c.path);
	lec_project_free(c.project);
	return 1;
}
