/*
 * A resolved documentation request meets the file system: the version's
 * published directory, the page inside it, and what happens when there is
 * none (behaviour notes §7.2): the directory-index redirect, the project's
 * user redirects (§7.3/§7.4, matched by the engine's lec_redirect_match),
 * the version's custom 404 page, the default version's, then a plain one.
 * Forced user redirects are applied before an existing page is served.
 * Downloads (/_/downloads/<lang>/<version>/<format>/) live here too: they
 * are the same published tree, one directory over; so does the project
 * serving a language (the host project or a translation), which both
 * downloads and docs.c's paths look up.
 *
 * A version that is inactive, unpublished, or private and not readable by
 * the requester is treated exactly like one that does not exist, so a 404
 * never tells an outsider that a private version is there.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lectern/errors.h"
#include "lectern/redirect.h"
#include "docs.h"

/* Where the 404 handler stands: the version that resolved (or NULL) and
 * the file asked for inside it. */
struct miss {
	const char *version;  /* NULL: no version resolved */
	const char *filename; /* "/x.html", "" when no version */
	const char *root_url; /* the version's URL without trailing '/' */
};

/* Whether version (a slug of c->project) may be served to this client:
 * it exists, is active, belongs on this host and is readable. */
static int version_served(struct docs_ctx *c, const char *slug)
{
	struct lec_version *v = NULL;
	int ok = lec_version_get(c->store, c->project->id, slug, &v) ==
			 LEC_OK &&
		 v->active && docs_version_on_host(c, v) &&
		 docs_can_read(c, c->project, v);

	lec_version_free(v);
	return ok;
}

/* A version's published directory for kind ("html", "pdf", ...): its path
 * into root (DOCS_PATH_MAX bytes) and an open descriptor the caller
 * closes; -1 when the version has none. */
static int version_dir(struct docs_ctx *c, const char *version,
		       const char *kind, char *root)
{
	if ((size_t)snprintf(root, DOCS_PATH_MAX, "%s/published/%s/%s/%s",
			     srv_data_dir(c->req), c->project->slug, version,
			     kind) >= DOCS_PATH_MAX)
		return -1;
	return docs_dir_open(root);
}

/* User redirects ---------------------------------------------------------- */

/* Apply the first matching user redirect of c->project (forced ones only
 * when forced_only). 1 when the response is a redirect, 0 otherwise. */
static int user_redirect(struct docs_ctx *c, const struct miss *m,
			 int forced_only)
{
	struct lec_redirect_list list = { 0 };
	struct lec_redirect_target t = { 0 };
	struct lec_redirect_request rq;
	int done = 0;

	rq.path = c->path;
	rq.filename = m->filename;
	rq.version_root = m->root_url;
	rq.origin = srv_request_origin(c->req);
	rq.query = c->query[0] ? c->query + 1 : "";
	rq.forced_only = forced_only;
	if (lec_redirect_list_enabled(c->store, c->project->id, &list) ==
		    LEC_OK &&
	    list.len > 0 && lec_redirect_match(&list, &rq, &t) == LEC_OK &&
	    (c->res->location = strdup(t.url)) != NULL) {
		c->res->rtd_redirect = "user";
		srv_respond_empty(c->res, t.status);
		done = 1;
	}
	lec_redirect_target_dispose(&t);
	lec_redirect_list_dispose(&list);
	return done;
}

/* The 404 handler --------------------------------------------------------- */

/* The custom 404 page of a version: 404.html, then 404/index.html. */
static int custom_not_found(struct docs_ctx *c, const char *version)
{
	static const char *const pages[] = { "404.html", "404/" DOCS_INDEX };
	char root[DOCS_PATH_MAX];
	struct stat st;
	size_t i;
	int dir, fd, done = 0;

	if (!version_served(c, version) ||
	    (dir = version_dir(c, version, "html", root)) < 0)
		return 0;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]) && !done; i++)
		if ((fd = docs_open_inside(dir, root, pages[i], &st)) >= 0) {
			docs_send_file(c, fd, &st, pages[i], 404);
			done = 1;
		}
	close(dir);
	return done;
}

static int not_found_at(struct docs_ctx *c, const struct miss *m)
{
	char *fallback = NULL;
	int done;

	if (c->path && user_redirect(c, m, 0))
		return c->res->status;
	done = m->version && custom_not_found(c, m->version);
	if (!done && docs_default_slug(c, &fallback) == LEC_OK &&
	    (m->version == NULL || strcmp(fallback, m->version) != 0))
		done = custom_not_found(c, fallback);
	free(fallback);
	return done ? c->res->status : docs_plain_not_found(c->res);
}

int docs_not_found(struct docs_ctx *c)
{
	char root_url[DOCS_PATH_MAX] = "", *slug = NULL;
	struct miss m = { NULL, "", root_url };
	int status;

	if (c->project && docs_default_slug(c, &slug) == LEC_OK)
		docs_root_url(c, slug, root_url, sizeof(root_url));
	free(slug);
	status = c->project ? not_found_at(c, &m)
			    : docs_plain_not_found(c->res);
	return status;
}

/* Pages ------------------------------------------------------------------- */

/* Send rel, found open as fd under root (open as dir), unless a forced
 * user redirect applies; remembered for the next identical request when
 * nobody's identity went into the decision. */
static int send_page(struct docs_ctx *c, const struct miss *m, int dir,
		     const char *root, const char *rel, int fd,
		     const struct stat *st)
{
	if (user_redirect(c, m, 1)) {
		close(fd);
		return c->res->status;
	}
	if (docs_is_page(rel) && docs_wants_markdown(c->req))
		return docs_send_markdown(c, fd, st);
	if (c->cache && c->key[0] && c->stamp && !c->user_known)
		docs_cache_put(c->cache, c->key, c->stamp, root, dir, rel);
	return docs_send_file(c, fd, st, rel, 200);
}

/* docs_serve once the version's directory root is open as dir. */
static int serve_in(struct docs_ctx *c, const struct miss *m, int dir,
		    const char *root, const char *file)
{
	char rel[DOCS_PATH_MAX], target[DOCS_PATH_MAX];
	size_t n = strlen(file);
	struct stat st;
	int fd;

	if ((size_t)snprintf(rel, sizeof(rel), "%s%s", file,
			     n == 0 || file[n - 1] == '/' ? DOCS_INDEX : "") >=
	    sizeof(rel))
		return not_found_at(c, m);
	if ((fd = docs_open_inside(dir, root, rel, &st)) >= 0)
		return send_page(c, m, dir, root, rel, fd, &st);
	/* A directory asked for without its slash. */
	if (n > 0 && file[n - 1] != '/' &&
	    (size_t)snprintf(rel, sizeof(rel), "%s/" DOCS_INDEX, file) <
		    sizeof(rel) &&
	    (fd = docs_open_inside(dir, root, rel, &st)) >= 0) {
		close(fd);
		if ((size_t)snprintf(target, sizeof(target), "%s/", c->path) >=
		    sizeof(target))
			return not_found_at(c, m);
		return docs_system_redirect(c, target);
	}
	return not_found_at(c, m);
}

int docs_version_root(struct docs_ctx *c, const char *version,
		      const char *kind, char *root)
{
	if (!version_served(c, version))
		return -1;
	return version_dir(c, version, kind, root);
}

int docs_serve(struct docs_ctx *c, const char *version, const char *file,
	       const char *root_url)
{
	char root[DOCS_PATH_MAX], filename[DOCS_PATH_MAX];
	struct miss m = { version, filename, root_url };
	int dir, status;

	snprintf(filename, sizeof(filename), "/%s", file);
	if (!version_served(c, version) ||
	    (dir = version_dir(c, version, "html", root)) < 0)
		return not_found_at(c, &m);
	status = serve_in(c, &m, dir, root, file);
	close(dir);
	return status;
}

/* Languages --------------------------------------------------------------- */

/* A translation the requester may not see serves no language, here as
 * everywhere (docs_project_visible). */
struct lec_project *docs_language_project(struct docs_ctx *c,
					  struct lec_project *main,
					  const char *lang)
{
	struct lec_project_list list = { 0 };
	struct lec_project *found = NULL;
	size_t i;

	if (main->language && strcasecmp(main->language, lang) == 0)
		return main;
	if (lec_project_translations(c->store, main->id, LEC_VIEWER_ALL, NULL,
				     &list) != LEC_OK)
		return NULL;
	for (i = 0; i < list.len && found == NULL; i++)
		if (list.items[i].language &&
		    strcmp(list.items[i].language, lang) == 0 &&
		    lec_project_get(c->store, list.items[i].slug, &found) !=
			    LEC_OK)
			found = NULL;
	lec_project_list_dispose(&list);
	if (found && !docs_project_visible(c, found)) {
		lec_project_free(found);
		found = NULL;
	}
	return found;
}

/* Downloads --------------------------------------------------------------- */

static const struct {
	const char *format; /* URL segment and output directory */
	const char *ext;    /* of the file inside, and of the name given */
} formats[] = {
	{ "htmlzip", "zip" },
	{ "pdf", "pdf" },
	{ "epub", "epub" },
};

/* The first (by name) regular file with extension ext in dir. */
static int first_file(const char *dir, const char *ext, char *out,
		      size_t cap)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), i, found = 0;

	for (i = 0; i < n; i++) {
		const char *dot = strrchr(names[i]->d_name, '.');

		if (!found && names[i]->d_name[0] != '.' && dot &&
		    strcmp(dot + 1, ext) == 0 &&
		    (size_t)snprintf(out, cap, "%s", names[i]->d_name) < cap)
			found = 1;
		free(names[i]);
	}
	free(names);
	return found;
}

/* The service's download name: the host with '.' as '-' and only slug
 * characters kept, then language and version ("docs-localhost8000-en-
 * latest.pdf"). */
static void download_name(struct docs_ctx *c, const char *lang,
			  const char *version, const char *ext, char *out,
			  size_t cap)
{
	const char *host = srv_header(c->req, "Host");
	char slug[256];
	size_t j = 0;

	for (; host && *host && j + 1 < sizeof(slug); host++) {
		char ch = *host == '.' ? '-' : *host;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_')
			slug[j++] = ch;
	}
	slug[j] = '\0';
	snprintf(out, cap, "filename=%s-%s-%s.%s", slug, lang, version, ext);
}

/* Split "<lang>/<version>/<format>/" into its three segments (buffers of
 * DOCS_PREFIX_MAX bytes). */
static int download_parts(const char *rest, char *lang, char *version,
			  char *format)
{
	char *const parts[] = { lang, version, format };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t n = strcspn(rest, "/");

		if (n == 0 || n >= DOCS_PREFIX_MAX || rest[n] != '/')
			return -1;
		memcpy(parts[i], rest, n);
		parts[i][n] = '\0';
		rest += n + 1;
	}
	return *rest == '\0' ? 0 : -1;
}

static const char *format_ext(const char *format)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(format, formats[i].format) == 0)
			return formats[i].ext;
	return NULL;
}

int docs_download(struct docs_ctx *c, const char *rest)
{
	char lang[DOCS_PREFIX_MAX], version[DOCS_PREFIX_MAX];
	char format[DOCS_PREFIX_MAX], code[DOCS_PREFIX_MAX];
	char root[DOCS_PATH_MAX], file[256];
	char disposition[DOCS_PREFIX_MAX * 4];
	struct lec_project *p;
	const char *ext;
	struct stat st;
	int dir = -1, fd = -1;

	if (download_parts(rest, lang, version, format) < 0 ||
	    (ext = format_ext(format)) == NULL ||
	    !docs_language_code(lang, code, sizeof(code)) ||
	    (p = docs_language_project(c, c->host_project, code)) == NULL)
		return docs_plain_not_found(c->res);
	c->project = p;
	if (version_served(c, version) &&
	    (dir = version_dir(c, version, format, root)) >= 0 &&
	    first_file(root, ext, file, sizeof(file)))
		fd = docs_open_inside(dir, root, file, &st);
	if (dir >= 0)
		close(dir);
	if (fd < 0)
		return docs_plain_not_found(c->res);
	download_name(c, code, version, ext, disposition,
		      sizeof(disposition));
	srv_response_header(c->res, "Content-Disposition", disposition);
	return docs_send_file(c, fd, &st, file, 200);
}
