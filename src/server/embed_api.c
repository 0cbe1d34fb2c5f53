/*
 * The embed API (behaviour notes §3.6, decision table "embed v2"): a piece
 * of published documentation as JSON, for tooltips and previews on other
 * sites (sphinx-hoverxref and friends).
 *
 * - GET /api/v2/embed/ is the service's historical v2: a page named by
 *   `url`, or by `project` + `version` (default "latest") + `doc`/`path`,
 *   and a `section`; the answer carries the section's HTML, the page's
 *   headers, its URL and what was asked.
 * - GET /api/v3/embed/?url= is the live v3: the element the URL's fragment
 *   names, or the page's main content; only URLs on this instance's docs
 *   domain are allowed.
 *
 * Both read the version's published HTML (<data>/published/<project>/
 * <version>/html/) through the engine's embed module. A URL is taken apart
 * the way the docs server reads it: the host names the project, the path
 * a subproject, the language (a translation), version and file per the
 * project's versioning scheme. A
 * version is embeddable when it is active and the requester may see it
 * (public, or a private one to the project's admins); anything else is a
 * 404 that does not say whether the version exists. Both routes carry
 * "Access-Control-Allow-Origin: *" (notes §4.2, server.c), since their
 * callers are pages on other origins. Decisions: docs/embed.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "docs.h"
#include "embed_api.h"
#include "lectern/embed.h"
#include "lectern/project.h"
#include "lectern/slug.h"
#include "lectern/version.h"
#include "v3.h"

/* Longest file system path built here (Linux's PATH_MAX). */
#define EMBED_PATH_MAX 4096
/* Longest host name taken from a URL (DNS's limit plus a port). */
#define EMBED_HOST_MAX 300
/* Candidate files one request may name (file, file/index.html, ...). */
#define EMBED_CANDIDATES 3

#define V2_BAD_ARGUMENTS                                                     \
	"Invalid Arguments. Please provide \"url\" or \"section\" and "     \
	"\"path\" GET arguments."
#define V3_BAD_ARGUMENTS "Invalid arguments. Please provide \"url\"."
#define NO_PROJECT "No Project matches the given query."
#define NO_VERSION "No Version matches the given query."

/* The page an embed request names. */
struct embed_page {
	struct lec_project *project;
	struct lec_version *version;
	char *rel;      /* the file below the version's root, as asked */
	char *fragment; /* the URL's fragment, or NULL */
	char *file;     /* the published file's real path, once found */
	char *served;   /* the file's URL path below the version root */
};

static void page_dispose(struct embed_page *pg)
{
	lec_project_free(pg->project);
	lec_version_free(pg->version);
	free(pg->rel);
	free(pg->fragment);
	free(pg->file);
	free(pg->served);
}

/* A query parameter, NULL when absent or empty (Django's `if not x`). */
static const char *param(const struct srv_request *req, const char *key)
{
	const char *v = srv_query(req, key);

	return v && *v ? v : NULL;
}

/* {"error": message} with status, keys as the service writes them. */
static int respond_error(struct srv_response *res, int status,
			 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int respond_error(struct srv_response *res, int status,
			 const char *fmt, ...)
{
	cJSON *json = cJSON_CreateObject();
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (json == NULL || n < 0 ||
	    cJSON_AddStringToObject(json, "error", msg) == NULL) {
		cJSON_Delete(json);
		free(n < 0 ? NULL : msg);
		return srv_respond_internal(res, "out of memory");
	}
	free(msg);
	return srv_respond_json(res, status, json, SRV_JSON_AS_BUILT);
}

/* Python's str() of an optional value, for the service's messages. */
static const char *py_str(const char *s)
{
	return s ? s : "None";
}

/* Visibility -------------------------------------------------------------- */

/* Whether the requester, who sees p, may embed this version: active, and
 * one they may see. 1, 0, or an engine error code. */
static int version_embeddable(struct srv_request *req,
			      const struct lec_project *p,
			      const struct lec_version *v)
{
	if (!v->active)
		return 0;
	return lec_version_can_view(srv_store(req), p, v, srv_viewer_id(req),
				    0);
}

/* The project of a slug (as written, then with '-' as '_' the way host
 * names spell underscores), if the requester may see it. */
static int load_project(struct srv_request *req, const char *slug,
			struct lec_project **out)
{
	struct lec_store *store = srv_store(req);
	char copy[LEC_PROJECT_SLUG_MAX + 1];
	int rc;

	*out = NULL;
	if (store == NULL || strlen(slug) > LEC_PROJECT_SLUG_MAX)
		return store ? LEC_ENOTFOUND : LEC_ERROR;
	snprintf(copy, sizeof(copy), "%s", slug);
	rc = docs_find_project(store, copy, out);
	if (rc == LEC_OK) {
		rc = lec_project_can_view(store, (*out)->id,
					  srv_viewer_id(req));
		rc = rc == 1 ? LEC_OK : rc == 0 ? LEC_ENOTFOUND : rc;
	}
	if (rc != LEC_OK) {
		lec_project_free(*out);
		*out = NULL;
	}
	return rc;
}

/* The version of a page, if embeddable (LEC_ENOTFOUND otherwise). */
static int load_version(struct srv_request *req, struct embed_page *pg,
			const char *slug)
{
	int rc = lec_version_get(srv_store(req), pg->project->id, slug,
				 &pg->version);

	if (rc == LEC_OK) {
		rc = version_embeddable(req, pg->project, pg->version);
		rc = rc == 1 ? LEC_OK : rc == 0 ? LEC_ENOTFOUND : rc;
	}
	return rc;
}

/* URLs -------------------------------------------------------------------- */

/* Split an absolute URL into its host[:port] and the path that follows
 * (up to '?' or '#') and its fragment; -1 when it has no scheme or host
 * (Python's urlparse finding no scheme or netloc). */
static int split_url(const char *url, char *host, const char **path,
		     size_t *path_len, const char **fragment)
{
	size_t i = 0, n;
	const char *hash;

	while ((url[i] >= 'a' && url[i] <= 'z') ||
	       (url[i] >= 'A' && url[i] <= 'Z') ||
	       (i > 0 && url[i] != '\0' &&
		((url[i] >= '0' && url[i] <= '9') || strchr("+-.", url[i]))))
		i++;
	if (i == 0 || strncmp(url + i, "://", 3) != 0)
		return -1;
	url += i + 3;
	n = strcspn(url, "/?#");
	if (n == 0 || n >= EMBED_HOST_MAX)
		return -1;
	memcpy(host, url, n);
	host[n] = '\0';
	*path = url + n;
	*path_len = strcspn(*path, "?#");
	hash = strchr(*path, '#');
	*fragment = hash ? hash + 1 : NULL;
	return 0;
}

/* Percent-decode a URL path; NULL for what could leave the published
 * tree or is malformed: an encoded '/', '\' or control character, a bad
 * escape, or a "." / ".." segment. Owned by the caller. */
static char *decode_path(const char *raw, size_t n)
{
	char *out = malloc(n + 1);
	size_t i, j = 0, seg = 0;

	if (out == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int hi = -1, lo = -1, c = (unsigned char)raw[i];

		if (c == '%') {
			hi = i + 2 < n ? srv_hex_value(raw[i + 1]) : -1;
			lo = i + 2 < n ? srv_hex_value(raw[i + 2]) : -1;
			c = hi * 16 + lo;
			if (hi < 0 || lo < 0 || c == '/')
				goto fail;
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			goto fail;
		out[j++] = (char)c;
		if (c != '/')
			continue;
		if ((j - 1 - seg == 1 && out[seg] == '.') ||
		    (j - 1 - seg == 2 && out[seg] == '.' && out[seg + 1] == '.'))
			goto fail;
		seg = j;
	}
	if ((j - seg == 1 && out[seg] == '.') ||
	    (j - seg == 2 && out[seg] == '.' && out[seg + 1] == '.'))
		goto fail;
	out[j] = '\0';
	return out;
fail:
	free(out);
	return NULL;
}

/* Take the next segment of *rest (no leading '/') into seg. */
static int next_segment(const char **rest, char *seg, size_t cap)
{
	size_t n = strcspn(*rest, "/");

	if (n == 0 || n >= cap || (*rest)[n] != '/')
		return -1;
	memcpy(seg, *rest, n);
	seg[n] = '\0';
	*rest += n + 1;
	return 0;
}

static int same_language(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '_' ? '-' : *a, y = *b == '_' ? '-' : *b;

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return *a == *b;
}

static void set_project(struct embed_page *pg, struct lec_project *p)
{
	lec_project_free(pg->project);
	pg->project = p;
}

/* "projects/<alias>/..." (after: what follows "projects/"): enter the
 * subproject whose alias, which may contain '/', is the longest run of
 * whole leading segments; *rest is what follows it. 1 when no alias
 * matches (the path belongs to the parent), LEC_OK, or an error. */
static int enter_subproject(struct srv_request *req, struct embed_page *pg,
			    const char *after, const char **rest)
{
	struct lec_subproject_list list = { 0 };
	struct lec_project *child = NULL;
	size_t i, best = 0, best_len = 0;
	int rc;

	rc = lec_subproject_list(srv_store(req), pg->project->id,
				 srv_viewer_id(req), NULL, &list);
	for (i = 0; rc == LEC_OK && i < list.len; i++) {
		size_t n = strlen(list.items[i].alias);

		if (n > best_len && strncmp(after, list.items[i].alias, n) == 0 &&
		    (after[n] == '/' || after[n] == '\0')) {
			best = i;
			best_len = n;
		}
	}
	if (rc == LEC_OK && best_len == 0)
		rc = 1;
	if (rc == LEC_OK)
		rc = load_project(req, list.items[best].child.slug, &child);
	if (rc == LEC_OK) {
		set_project(pg, child);
		*rest = after + best_len + (after[best_len] == '/');
	}
	lec_subproject_list_dispose(&list);
	return rc;
}

/* Switch to the project serving language lang on this host: the project
 * itself or one of its (visible) translations. */
static int enter_language(struct srv_request *req, struct embed_page *pg,
			  const char *lang)
{
	struct lec_project_list list = { 0 };
	struct lec_project *found = NULL;
	size_t i;
	int rc;

	if (pg->project->language && same_language(lang, pg->project->language))
		return LEC_OK;
	rc = lec_project_translations(srv_store(req), pg->project->id,
				      srv_viewer_id(req), NULL, &list);
	for (i = 0; rc == LEC_OK && i < list.len && found == NULL; i++)
		if (list.items[i].language &&
		    same_language(lang, list.items[i].language))
			rc = lec_project_get(srv_store(req), list.items[i].slug,
					     &found);
	lec_project_list_dispose(&list);
	if (rc == LEC_OK && found == NULL)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK)
		set_project(pg, found);
	return rc;
}

/* Read a decoded docs path ("/en/latest/usage.html") the way the docs
 * server does (notes §7.1): a subproject under /projects/<alias>/, then
 * the project's versioning scheme and, with translations, the language.
 * Fills pg's project, version and file (pg->rel). */
static int unresolve_path(struct srv_request *req, struct embed_page *pg,
			  const char *path)
{
	const char *rest = path + (path[0] == '/'), *scheme;
	char lang[32], version[LEC_VERSION_SLUG_MAX + 1];
	char *slug = NULL;
	int rc;

	if (strncmp(rest, "projects/", 9) == 0 &&
	    (rc = enter_subproject(req, pg, rest + 9, &rest)) < 0)
		return rc;
	scheme = pg->project->versioning_scheme;
	if (scheme && strcmp(scheme, DOCS_SCHEME_SINGLE) == 0) {
		rc = lec_version_default_slug(srv_store(req), pg->project->id,
					      &slug);
		if (rc == LEC_OK)
			snprintf(version, sizeof(version), "%s", slug);
		free(slug);
		if (rc != LEC_OK)
			return rc;
	} else {
		if ((scheme == NULL ||
		     strcmp(scheme, DOCS_SCHEME_NO_TRANSLATIONS) != 0) &&
		    (next_segment(&rest, lang, sizeof(lang)) < 0 ||
		     (rc = enter_language(req, pg, lang)) != LEC_OK))
			return LEC_ENOTFOUND;
		if (next_segment(&rest, version, sizeof(version)) < 0)
			return LEC_ENOTFOUND;
	}
	if ((pg->rel = strdup(rest)) == NULL)
		return LEC_ENOMEM;
	return load_version(req, pg, version);
}

/* The page a docs URL names: its project (from the host), version and
 * file. LEC_ENOTFOUND when the URL is not one this instance serves or the
 * requester may not see it. */
static int page_from_url(struct srv_request *req, const char *url,
			 struct embed_page *pg)
{
	char host[EMBED_HOST_MAX], slug[LEC_PROJECT_SLUG_MAX + 1];
	const char *path, *fragment;
	size_t path_len;
	char *decoded = NULL;
	int rc;

	if (split_url(url, host, &path, &path_len, &fragment) < 0 ||
	    !docs_host_slug(host, srv_docs_domain(req), slug, sizeof(slug)))
		return LEC_ENOTFOUND;
	if (fragment && (pg->fragment = strdup(fragment)) == NULL)
		return LEC_ENOMEM;
	if ((rc = load_project(req, slug, &pg->project)) != LEC_OK)
		return rc;
	if ((decoded = decode_path(path_len ? path : "/",
				   path_len ? path_len : 1)) == NULL)
		return LEC_ENOTFOUND;
	rc = unresolve_path(req, pg, decoded);
	free(decoded);
	return rc;
}

/* Files ------------------------------------------------------------------- */

/* Whether a relative file name is safe to join to the published root. */
static int safe_name(const char *name)
{
	char *copy = decode_path(name, strlen(name));
	int ok = copy != NULL && name[0] != '/';

	free(copy);
	return ok;
}

/* Find the first candidate that is a regular file inside the version's
 * published HTML; its index, or -1. pg->file gets its real path. */
static int find_file(struct srv_request *req, struct embed_page *pg,
		     char *const *cands, size_t n)
{
	char root[EMBED_PATH_MAX], root_real[EMBED_PATH_MAX];
	char path[EMBED_PATH_MAX], real[EMBED_PATH_MAX];
	size_t i, rn;
	struct stat st;

	if ((size_t)snprintf(root, sizeof(root), "%s/published/%s/%s/html",
			     srv_data_dir(req), pg->project->slug,
			     pg->version->slug) >= sizeof(root) ||
	    realpath(root, root_real) == NULL)
		return -1;
	rn = strlen(root_real);
	for (i = 0; i < n; i++) {
		if (cands[i] == NULL || !safe_name(cands[i]) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", root,
				     cands[i]) >= sizeof(path) ||
		    realpath(path, real) == NULL ||
		    strncmp(real, root_real, rn) != 0 || real[rn] != '/' ||
		    stat(real, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		pg->file = strdup(real);
		return pg->file ? (int)i : -1;
	}
	return -1;
}

/* The file a docs path names, the way the docs server serves it: a
 * directory's index.html, else the file, else the directory without its
 * slash. pg->served is the URL path as served. */
static int find_path_file(struct srv_request *req, struct embed_page *pg,
			  const char *rel)
{
	char *cands[EMBED_CANDIDATES] = { NULL };
	size_t n = strlen(rel);
	int hit;

	if (n == 0 || rel[n - 1] == '/') {
		if (asprintf(&cands[0], "%sindex.html", rel) < 0)
			cands[0] = NULL;
	} else {
		cands[0] = strdup(rel);
		if (asprintf(&cands[1], "%s/index.html", rel) < 0)
			cands[1] = NULL;
	}
	hit = find_file(req, pg, cands, EMBED_CANDIDATES);
	if (hit >= 0)
		pg->served = strdup(rel);
	free(cands[0]);
	free(cands[1]);
	return hit >= 0 && pg->served ? 0 : -1;
}

/* The file of a `doc` (a document name without suffix): Sphinx's html
 * builder's "<doc>.html", a directory builder's "<doc>/index.html", or a
 * doc that is a file name already. */
static int find_doc_file(struct srv_request *req, struct embed_page *pg,
			 const char *doc)
{
	char *cands[EMBED_CANDIDATES] = { NULL };
	int hit, i;

	if (asprintf(&cands[0], "%s.html", doc) < 0)
		cands[0] = NULL;
	if (asprintf(&cands[1], "%s/index.html", doc) < 0)
		cands[1] = NULL;
	cands[2] = strdup(doc);
	hit = find_file(req, pg, cands, EMBED_CANDIDATES);
	if (hit == 0)
		pg->served = cands[0], cands[0] = NULL;
	else if (hit == 1 && asprintf(&pg->served, "%s/", doc) < 0)
		pg->served = NULL;
	else if (hit == 2)
		pg->served = cands[2], cands[2] = NULL;
	for (i = 0; i < EMBED_CANDIDATES; i++)
		free(cands[i]);
	return hit >= 0 && pg->served ? 0 : -1;
}

/* The service's doc of a path: '/' stripped at both ends, then a trailing
 * ".html" (notes §3.6). Owned by the caller. */
static char *doc_of_path(const char *path)
{
	size_t n;
	char *doc;

	path += strspn(path, "/");
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		n--;
	if (n >= 5 && strncmp(path + n - 5, ".html", 5) == 0)
		n -= 5;
	if ((doc = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(doc, path, n);
	doc[n] = '\0';
	return doc;
}

/* v2 ------------------------------------------------------------------- */

/* The page of a v2 request given by project + version + doc/path. */
static int page_from_params(struct srv_request *req, struct srv_response *res,
			    struct embed_page *pg)
{
	const char *project = param(req, "project");
	const char *version = param(req, "version");
	int rc = load_project(req, project ? project : "", &pg->project);

	if (rc == LEC_OK)
		rc = load_version(req, pg, version ? version : "latest");
	if (rc == LEC_OK)
		return 0;
	if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404,
				   pg->project ? NO_VERSION : NO_PROJECT);
	else
		srv_respond_engine_error(res, rc);
	return -1;
}

static cJSON *v2_body(const struct lec_embed_v2 *e, const char *url,
		      const struct embed_page *pg, const char *doc)
{
	cJSON *body = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(body, "content");
	cJSON *headers = cJSON_AddArrayToObject(body, "headers");
	cJSON *meta;
	size_t i;

	for (i = 0; content && i < e->content_len; i++)
		cJSON_AddItemToArray(content,
				     cJSON_CreateString(e->content[i]));
	for (i = 0; headers && i < e->headers_len; i++) {
		cJSON *h = cJSON_CreateObject();

		if (e->headers[i].anchor)
			cJSON_AddStringToObject(h, e->headers[i].title,
						e->headers[i].anchor);
		else
			cJSON_AddNullToObject(h, e->headers[i].title);
		cJSON_AddItemToArray(headers, h);
	}
	cJSON_AddStringToObject(body, "url", url);
	meta = cJSON_AddObjectToObject(body, "meta");
	cJSON_AddStringToObject(meta, "project", pg->project->slug);
	cJSON_AddStringToObject(meta, "version", pg->version->slug);
	cJSON_AddStringToObject(meta, "doc", doc);
	if (e->section)
		cJSON_AddStringToObject(meta, "section", e->section);
	else
		cJSON_AddNullToObject(meta, "section");
	return body;
}

/* The page's URL: the request's own, or the version's docs URL plus the
 * file as served. Owned by the caller. */
static char *v2_page_url(struct srv_request *req, const char *url,
			 const struct embed_page *pg)
{
	char *base, *out = NULL;

	if (url)
		return strdup(url);
	if ((base = srv_docs_url(req, pg->project, pg->version->slug)) == NULL)
		return NULL;
	if (asprintf(&out, "%s%s", base, pg->served) < 0)
		out = NULL;
	free(base);
	return out;
}

/* Section lookup on the page found; fills res. */
static int v2_answer(struct srv_request *req, struct srv_response *res,
		     struct embed_page *pg, const char *url, const char *doc,
		     const char *section)
{
	struct lec_embed_v2 *e = NULL;
	char *page_url = v2_page_url(req, url, pg);
	int rc;

	if (page_url == NULL)
		return srv_respond_internal(res, "out of memory");
	rc = lec_embed_v2_file(pg->file, page_url, section, &e);
	if (rc == LEC_OK)
		srv_respond_json(res, 200, v2_body(e, page_url, pg, doc),
				 SRV_JSON_AS_BUILT);
	else
		srv_respond_engine_error(res, rc);
	lec_embed_v2_free(e);
	free(page_url);
	return res->status;
}

int srv_embed_v2(struct srv_request *req, struct srv_response *res)
{
	const char *url = param(req, "url"), *doc = param(req, "doc");
	const char *path = param(req, "path"), *section = param(req, "section");
	struct embed_page pg = { 0 };
	char *derived = NULL;
	int found;

	if (url == NULL && doc == NULL && path == NULL)
		return respond_error(res, 400, V2_BAD_ARGUMENTS);
	if (url) {
		int rc = page_from_url(req, url, &pg);

		if (rc != LEC_OK) {
			if (rc == LEC_ENOTFOUND)
				srv_respond_detail(res, 404, pg.project
								? NO_VERSION
								: NO_PROJECT);
			else
				srv_respond_engine_error(res, rc);
			goto done;
		}
		path = pg.rel;
		if (pg.fragment && *pg.fragment)
			section = pg.fragment;
	} else if (page_from_params(req, res, &pg) < 0) {
		goto done;
	}
	if (doc == NULL && (doc = derived = doc_of_path(path)) == NULL) {
		srv_respond_internal(res, "out of memory");
		goto done;
	}
	/* A path is relative to the version root however it is written. */
	found = path ? find_path_file(req, &pg, path + strspn(path, "/"))
		     : find_doc_file(req, &pg, doc);
	if (found < 0)
		respond_error(res, 404,
			      "Can't find content for section: doc=%s path=%s "
			      "section=%s",
			      doc, py_str(path), py_str(section));
	else
		v2_answer(req, res, &pg, url, doc, section);
done:
	free(derived);
	page_dispose(&pg);
	return res->status;
}

/* v3 ------------------------------------------------------------------- */

/* The tool that built a version, when the request does not say: v3 treats
 * Sphinx's <dt> specially. */
static const char *doctool_of(const struct srv_request *req,
			      const struct lec_version *v)
{
	const char *tool = param(req, "doctool");

	if (tool)
		return tool;
	if (v->documentation_type &&
	    strncmp(v->documentation_type, "sphinx", 6) == 0)
		return "sphinx";
	return NULL;
}

static int v3_not_found(struct srv_response *res, const char *url,
			const char *fragment, const char *maincontent)
{
	return respond_error(res, 404,
			     "Can't find content for section: url=%s "
			     "fragment=%s maincontent=%s",
			     url, fragment ? fragment : "",
			     py_str(maincontent));
}

static cJSON *v3_body(const char *url, const char *fragment,
		      const char *content)
{
	cJSON *body = cJSON_CreateObject();

	cJSON_AddStringToObject(body, "url", url);
	if (fragment && *fragment)
		cJSON_AddStringToObject(body, "fragment", fragment);
	else
		cJSON_AddNullToObject(body, "fragment");
	cJSON_AddStringToObject(body, "content", content);
	cJSON_AddBoolToObject(body, "external", 0);
	return body;
}

int srv_embed_v3(struct srv_request *req, struct srv_response *res)
{
	const char *url = param(req, "url");
	const char *maincontent = param(req, "maincontent");
	const char *path, *fragment;
	char host[EMBED_HOST_MAX], slug[LEC_PROJECT_SLUG_MAX + 1];
	struct embed_page pg = { 0 };
	size_t path_len;
	char *html = NULL;
	int rc;

	if (url == NULL)
		return respond_error(res, 400, V3_BAD_ARGUMENTS);
	if (split_url(url, host, &path, &path_len, &fragment) < 0)
		return respond_error(res, 400,
				     "The URL requested is malformed. url=%s",
				     url);
	if (!docs_host_slug(host, srv_docs_domain(req), slug, sizeof(slug)))
		return respond_error(res, 400,
				     "External domain not allowed. domain=%s",
				     host);
	rc = page_from_url(req, url, &pg);
	if (rc == LEC_OK && find_path_file(req, &pg, pg.rel) < 0)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK)
		rc = lec_embed_v3_file(pg.file, url, fragment, maincontent,
				       doctool_of(req, pg.version), &html);
	if (rc == LEC_OK)
		srv_respond_json(res, 200, v3_body(url, fragment, html),
				 SRV_JSON_AS_BUILT);
	else if (rc == LEC_ENOTFOUND)
		v3_not_found(res, url, fragment, maincontent);
	else if (rc == LEC_EINVALID)
		respond_error(res, 400, "%s", lec_error_last());
	else
		srv_respond_engine_error(res, rc);
	free(html);
	page_dispose(&pg);
	return res->status;
}
