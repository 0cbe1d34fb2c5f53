/*
 * A documentation URL taken apart (docs_url.h): the host's project (on
 * the docs domain, or a pull request's own host), then
 * the path read the way the docs server reads it (behaviour notes §7.1),
 * a subproject under /projects/<alias>/ (the longest alias of whole
 * segments), then the project's versioning scheme and, with translations,
 * the language, which switches to the translation serving it. Only
 * projects the requester may see are entered; the version is looked up
 * as stored, and what the requester may read of it is the caller's
 * question (the embed APIs want an active one they may see, /_/addons/
 * refuses one they may not read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs.h"
#include "docs_url.h"
#include "lectern/errors.h"
#include "lectern/slug.h"
#include "v3.h"

int srv_docs_project_load(struct srv_request *req, int64_t viewer,
			  const char *slug, struct lec_project **out)
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
		rc = lec_project_can_view(store, (*out)->id, viewer);
		rc = rc == 1 ? LEC_OK : rc == 0 ? LEC_ENOTFOUND : rc;
	}
	if (rc != LEC_OK) {
		lec_project_free(*out);
		*out = NULL;
	}
	return rc;
}

int srv_docs_url_split(const char *url, char *host, const char **path,
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
	if (n == 0 || n >= SRV_DOCS_HOST_MAX)
		return -1;
	memcpy(host, url, n);
	host[n] = '\0';
	*path = url + n;
	*path_len = strcspn(*path, "?#");
	hash = strchr(*path, '#');
	*fragment = hash ? hash + 1 : NULL;
	return 0;
}

char *srv_docs_url_decode(const char *raw, size_t n)
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

static void set_project(struct srv_docs_url *pg, struct lec_project *p)
{
	lec_project_free(pg->project);
	pg->project = p;
}

/* "projects/<alias>/..." (after: what follows "projects/"): enter the
 * subproject whose alias, which may contain '/', is the longest run of
 * whole leading segments; *rest is what follows it. 1 when no alias
 * matches (the path belongs to the parent), LEC_OK, or an error. */
static int enter_subproject(struct srv_request *req, struct srv_docs_url *pg,
			    const char *after, const char **rest)
{
	struct lec_subproject_list list = { 0 };
	struct lec_project *child = NULL;
	size_t i, best = 0, best_len = 0;
	int rc;

	rc = lec_subproject_list(srv_store(req), pg->project->id,
				 pg->viewer, NULL, &list);
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
		rc = srv_docs_project_load(req, pg->viewer,
					   list.items[best].child.slug, &child);
	if (rc == LEC_OK) {
		set_project(pg, child);
		*rest = after + best_len + (after[best_len] == '/');
	}
	lec_subproject_list_dispose(&list);
	return rc;
}

/* Switch to the project serving language lang on this host: the project
 * itself or one of its (visible) translations. */
static int enter_language(struct srv_request *req, struct srv_docs_url *pg,
			  const char *lang)
{
	struct lec_project_list list = { 0 };
	struct lec_project *found = NULL;
	size_t i;
	int rc;

	if (pg->project->language && same_language(lang, pg->project->language))
		return LEC_OK;
	rc = lec_project_translations(srv_store(req), pg->project->id,
				      pg->viewer, NULL, &list);
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
 * Fills pg's project, version (when it exists) and file (pg->rel). */
static int unresolve_path(struct srv_request *req, struct srv_docs_url *pg,
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
	return lec_version_get(srv_store(req), pg->project->id, version,
			       &pg->version);
}

int srv_docs_url_read(struct srv_request *req, const char *url,
		      struct srv_docs_url *pg)
{
	char host[SRV_DOCS_HOST_MAX], slug[LEC_PROJECT_SLUG_MAX + 1];
	char external[LEC_VERSION_SLUG_MAX + 1] = "";
	const char *path, *fragment;
	size_t path_len;
	char *decoded = NULL;
	int rc;

	if (srv_docs_url_split(url, host, &path, &path_len, &fragment) < 0)
		return LEC_ENOTFOUND;
	/* A pull request's own host serves that request's version only. */
	if (!docs_host_slug(host, srv_docs_domain(req), slug, sizeof(slug)) &&
	    !docs_external_host(host, srv_external_domain(req), slug,
				sizeof(slug), external, sizeof(external)))
		return LEC_ENOTFOUND;
	if (fragment && (pg->fragment = strdup(fragment)) == NULL)
		return LEC_ENOMEM;
	if ((rc = srv_docs_project_load(req, pg->viewer, slug,
					 &pg->project)) != LEC_OK)
		return rc;
	if ((decoded = srv_docs_url_decode(path_len ? path : "/",
					   path_len ? path_len : 1)) == NULL)
		return LEC_ENOTFOUND;
	rc = unresolve_path(req, pg, decoded);
	free(decoded);
	/* The docs domain serves no pull-request version, and a request's
	 * host no other version (docs/serving.md). */
	if (rc == LEC_OK &&
	    (external[0] ? strcmp(pg->version->slug, external) != 0
			 : pg->version->type == LEC_VERSION_EXTERNAL)) {
		lec_version_free(pg->version);
		pg->version = NULL;
		rc = LEC_ENOTFOUND;
	}
	return rc;
}

void srv_docs_url_dispose(struct srv_docs_url *u)
{
	if (u == NULL)
		return;
	lec_project_free(u->project);
	lec_version_free(u->version);
	free(u->rel);
	free(u->fragment);
	u->project = NULL;
	u->version = NULL;
	u->rel = u->fragment = NULL;
}
