/*
 * The typed calls, one per endpoint Lectern serves (v3, v2, search, embed),
 * and the pagination iterator. Each call builds its path (slugs
 * percent-encoded), sends the request through the blocking transport, and
 * parses the answer with model.c; lists come back one page at a time as an
 * lc_list, and lc_iter follows the `next` links for callers that want all.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* A safety stop for a server whose `next` links never end: 100000 pages of
 * 10 items is a million items, far beyond any real list. */
#define LC_ITER_MAX_PAGES 100000

/* ------------------------------------------------- Kinds of item */

struct kind;
static int get_one(struct lc_client *c, const char *method,
		   struct lc_buf *path, const struct lc_query *q,
		   const cJSON *body, const struct kind *k, void **out,
		   struct lc_error *err);

struct kind {
	const char *what;
	int (*parse)(const cJSON *json, void **out, struct lc_error *err);
	void (*free_item)(void *item);
};

/* Adapters so each list can parse and free through one signature. */
#define KIND(name, type, what)                                               \
	static int parse_##name(const cJSON *j, void **out,                  \
				struct lc_error *err)                        \
	{                                                                    \
		type *item = NULL;                                           \
		int rc = lc_##name##_parse(j, &item, err);                   \
		*out = item;                                                 \
		return rc;                                                   \
	}                                                                    \
	static void free_##name(void *item)                                  \
	{                                                                    \
		lc_##name##_free(item);                                      \
	}                                                                    \
	static const struct kind kind_##name = { what, parse_##name,         \
						 free_##name }

KIND(project, struct lc_project, "project");
KIND(version, struct lc_version, "version");
KIND(build, struct lc_build, "build");
KIND(redirect, struct lc_redirect, "redirect");
KIND(envvar, struct lc_envvar, "environment variable");
KIND(subproject, struct lc_subproject, "subproject");
KIND(organization, struct lc_organization, "organization");
KIND(search_result, struct lc_search_result, "search result");
KIND(embed, struct lc_embed, "embed answer");
KIND(diff, struct lc_diff, "page diff");

/* Typed fronts of get_one, so no struct pointer is written through a
 * void ** (out NULL: the answer is not parsed). */
#define GETTER(name, type)                                                   \
	static int get_##name(struct lc_client *c, const char *method,       \
			      struct lc_buf *path, const struct lc_query *q, \
			      const cJSON *body, type **out,                 \
			      struct lc_error *err)                          \
	{                                                                    \
		void *item = NULL;                                           \
		int rc = get_one(c, method, path, q, body, &kind_##name,     \
				 out ? &item : NULL, err);                   \
		if (out != NULL)                                             \
			*out = item;                                         \
		return rc;                                                   \
	}

/* Fronts of the getters for calls with a body the caller built (NULL: it
 * ran out of memory), which is freed here. */
#define SENDER(name, type)                                                   \
	static int send_##name(struct lc_client *c, const char *method,      \
			       struct lc_buf *path, cJSON *body, type **out, \
			       struct lc_error *err)                         \
	{                                                                    \
		int rc;                                                      \
									     \
		if (body == NULL) {                                          \
			free(path->s);                                       \
			return lc__fail(err, LC_ENOMEM, 0, "out of memory"); \
		}                                                            \
		rc = get_##name(c, method, path, NULL, body, out, err);      \
		cJSON_Delete(body);                                          \
		return rc;                                                   \
	}

GETTER(project, struct lc_project)
GETTER(version, struct lc_version)
GETTER(build, struct lc_build)
GETTER(redirect, struct lc_redirect)
GETTER(envvar, struct lc_envvar)
GETTER(subproject, struct lc_subproject)
GETTER(organization, struct lc_organization)
GETTER(embed, struct lc_embed)
GETTER(diff, struct lc_diff)
SENDER(project, struct lc_project)
SENDER(version, struct lc_version)
SENDER(redirect, struct lc_redirect)
SENDER(envvar, struct lc_envvar)
SENDER(subproject, struct lc_subproject)

/* --------------------------------------------------------- Plumbing */

static int need(const char *s, const char *what, struct lc_error *err)
{
	if (s != NULL && *s != '\0')
		return LC_OK;
	return lc__fail(err, LC_EINVAL, 0, "%s is required", what);
}

/* "/api/v3/projects/<project>/" + rest. */
static void project_path(struct lc_buf *b, const char *project,
			 const char *rest)
{
	lc__buf_str(b, "/api/v3/projects/");
	lc__buf_escape(b, project, false);
	lc__buf_str(b, "/");
	lc__buf_str(b, rest);
}

/* "/api/v3/projects/<project>/<collection><pk>/". */
static void pk_path(struct lc_buf *path, const char *project,
		    const char *collection, long long pk)
{
	project_path(path, project, collection);
	lc__buf_printf(path, "%lld/", pk);
}

/* "/api/v3/projects/<project>/versions/<version>/". */
static void version_path(struct lc_buf *path, const char *project,
			 const char *version)
{
	project_path(path, project, "versions/");
	lc__buf_escape(path, version, false);
	lc__buf_str(path, "/");
}

/* One request whose 2xx answer must be JSON when want_json. `body` (may be
 * NULL) is serialised here. @param out the response (caller frees) */
static int call(struct lc_client *c, const char *method, struct lc_buf *path,
		const struct lc_query *q, const cJSON *body, bool want_json,
		struct lc_response **out, struct lc_error *err)
{
	char *text = NULL;
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (path->rc != LC_OK)
		return lc__fail(err, path->rc, 0, "out of memory");
	if (body != NULL && (text = cJSON_PrintUnformatted(body)) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	rc = lc__call(c, method, path->s, q, text, NULL, out, err);
	cJSON_free(text);
	if (rc == LC_OK && want_json && (*out)->json == NULL)
		rc = lc__fail(err, LC_EJSON, (*out)->status,
			      "invalid JSON in response from %s", (*out)->url);
	if (rc != LC_OK) {
		lc_response_free(*out);
		*out = NULL;
	}
	return rc;
}

/* A call whose answer is one object of kind k (out NULL: not parsed). */
static int get_one(struct lc_client *c, const char *method,
		   struct lc_buf *path, const struct lc_query *q,
		   const cJSON *body, const struct kind *k, void **out,
		   struct lc_error *err)
{
	struct lc_response *resp = NULL;
	int rc;

	if (out != NULL)
		*out = NULL;
	rc = call(c, method, path, q, body, out != NULL, &resp, err);
	if (rc == LC_OK && out != NULL)
		rc = k->parse(resp->json, out, err);
	lc_response_free(resp);
	free(path->s);
	return rc;
}

void lc_list_free(struct lc_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->len; i++)
		l->free_item(l->items[i]);
	free(l->items);
	free(l->next);
	free(l->previous);
	cJSON_Delete(l->raw);
	free(l);
}

static char *link(const cJSON *page, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(page, key);

	return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static int page_results(const cJSON *page, const char *url,
			const cJSON **results, struct lc_error *err)
{
	*results = cJSON_GetObjectItemCaseSensitive(page, "results");
	if (cJSON_IsArray(*results))
		return LC_OK;
	return lc__fail(err, LC_EJSON, 0, "expected a paginated list from %s",
			url);
}

/* Fills l from the page (taken over on success). */
static int fill_list(struct lc_list *l, cJSON *page, const char *url,
		     const struct kind *k, struct lc_error *err)
{
	const cJSON *results, *item, *count;
	int rc;

	rc = page_results(page, url, &results, err);
	if (rc != LC_OK)
		return rc;
	l->items = calloc((size_t)cJSON_GetArraySize(results) + 1,
			  sizeof(*l->items));
	if (l->items == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	cJSON_ArrayForEach(item, results) {
		rc = k->parse(item, &l->items[l->len], err);
		if (rc != LC_OK)
			return rc;
		l->len++;
	}
	count = cJSON_GetObjectItemCaseSensitive(page, "count");
	l->count = lc__json_int(count, (long long)l->len);
	l->next = link(page, "next");
	l->previous = link(page, "previous");
	if ((cJSON_IsString(cJSON_GetObjectItemCaseSensitive(page, "next")) &&
	     l->next == NULL) ||
	    (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(page, "previous")) &&
	     l->previous == NULL))
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	l->raw = page;
	return LC_OK;
}

static int get_list(struct lc_client *c, struct lc_buf *path,
		    const struct lc_query *q, const struct kind *k,
		    struct lc_list **out, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_list *l = NULL;
	int rc;

	*out = NULL;
	rc = call(c, "GET", path, q, NULL, true, &resp, err);
	if (rc != LC_OK)
		goto done;
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
		goto done;
	}
	l->free_item = k->free_item;
	rc = fill_list(l, resp->json, resp->url, k, err);
	if (rc != LC_OK)
		goto done;
	resp->json = NULL; /* now l->raw */
	*out = l;
	l = NULL;
done:
	lc_list_free(l);
	lc_response_free(resp);
	free(path->s);
	return rc;
}

/* One page of a project's collection ("versions/", "redirects/", ...). */
static int project_list(struct lc_client *c, const char *project,
			const char *collection, const struct lc_query *q,
			const struct kind *k, struct lc_list **out,
			struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	if (need(project, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	project_path(&path, project, collection);
	return get_list(c, &path, q, k, out, err);
}

/* A bodiless call on one numbered item of a project's collection; the
 * answer is parsed into *out unless out is NULL. */
static int project_item(struct lc_client *c, const char *method,
			const char *project, const char *collection,
			long long pk, const struct lc_query *q,
			const struct kind *k, void **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	if (out != NULL)
		*out = NULL;
	if (need(project, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	pk_path(&path, project, collection, pk);
	return get_one(c, method, &path, q, NULL, k, out, err);
}

static cJSON *add_str(cJSON *o, const char *key, const char *value)
{
	if (o == NULL || value == NULL)
		return o;
	if (cJSON_AddStringToObject(o, key, value) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *add_bool(cJSON *o, const char *key, int value)
{
	if (o == NULL || value == LC_UNKNOWN)
		return o;
	if (cJSON_AddBoolToObject(o, key, value ? 1 : 0) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* The public calls on a project's collection: one page of it, and GET
 * or DELETE of one of its numbered items. */
#define PROJECT_LIST(fn, collection, kind)                                   \
	int fn(struct lc_client *c, const char *project,                     \
	       const struct lc_query *q, struct lc_list **out,               \
	       struct lc_error *err)                                         \
	{                                                                    \
		return project_list(c, project, collection, q, &kind_##kind, \
				    out, err);                               \
	}
#define PROJECT_ITEM_GET(fn, collection, kind)                               \
	int fn(struct lc_client *c, const char *project, long long pk,       \
	       struct lc_##kind **out, struct lc_error *err)                 \
	{                                                                    \
		void *item = NULL;                                           \
		int rc = project_item(c, "GET", project, collection, pk,     \
				      NULL, &kind_##kind, &item, err);       \
									     \
		*out = item;                                                 \
		return rc;                                                   \
	}
#define PROJECT_ITEM_DELETE(fn, collection, kind)                            \
	int fn(struct lc_client *c, const char *project, long long pk,       \
	       struct lc_error *err)                                         \
	{                                                                    \
		return project_item(c, "DELETE", project, collection, pk,    \
				    NULL, &kind_##kind, NULL, err);          \
	}

/* ------------------------------------------------------- Iterator */

struct lc_iter {
	struct lc_client *c;
	char *url;            /* the next page's URL, NULL when done */
	cJSON *page;          /* the current page */
	const cJSON *cursor;  /* the next item in page's results */
	long long count;
	size_t pages;
};

int lc_iter_new(struct lc_iter **out, struct lc_client *c, const char *path,
		const struct lc_query *q, struct lc_error *err)
{
	struct lc_iter *it;
	int rc;

	lc_error_clear(err);
	*out = NULL;
	if (c == NULL || path == NULL)
		return lc__fail(err, LC_EINVAL, 0, "a client and a path are required");
	it = calloc(1, sizeof(*it));
	if (it == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	it->c = c;
	it->count = -1;
	rc = lc__url(c, path, q, &it->url);
	if (rc != LC_OK) {
		lc_iter_free(it);
		return lc__fail(err, rc, 0, "out of memory");
	}
	*out = it;
	return LC_OK;
}

/* Replaces the current page with the one at it->url. */
static int iter_fetch(struct lc_iter *it, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	const cJSON *results, *count;
	char *next = NULL;
	int rc;

	if (++it->pages > LC_ITER_MAX_PAGES)
		return lc__fail(err, LC_EJSON, 0,
				"more than %d pages from %s", LC_ITER_MAX_PAGES,
				it->url);
	rc = lc__call(it->c, "GET", it->url, NULL, NULL, NULL, &resp, err);
	if (rc == LC_OK && resp->json == NULL)
		rc = lc__fail(err, LC_EJSON, resp->status,
			      "invalid JSON in response from %s", resp->url);
	if (rc == LC_OK)
		rc = page_results(resp->json, resp->url, &results, err);
	if (rc != LC_OK)
		goto done;
	next = link(resp->json, "next");
	/* A page linking to itself would loop forever. */
	if (next != NULL && strcmp(next, it->url) == 0) {
		free(next);
		next = NULL;
	}
	count = cJSON_GetObjectItemCaseSensitive(resp->json, "count");
	it->count = lc__json_int(count, it->count);
	cJSON_Delete(it->page);
	it->page = resp->json;
	resp->json = NULL;
	it->cursor = results->child;
	free(it->url);
	it->url = next;
done:
	lc_response_free(resp);
	return rc;
}

int lc_iter_next(struct lc_iter *it, const cJSON **item, struct lc_error *err)
{
	int rc;

	lc_error_clear(err);
	*item = NULL;
	if (it == NULL)
		return lc__fail(err, LC_EINVAL, 0, "no iterator");
	while (it->cursor == NULL) {
		if (it->url == NULL)
			return 0;
		rc = iter_fetch(it, err);
		if (rc != LC_OK)
			return rc;
	}
	*item = it->cursor;
	it->cursor = it->cursor->next;
	return 1;
}

long long lc_iter_count(const struct lc_iter *it)
{
	return it ? it->count : -1;
}

void lc_iter_free(struct lc_iter *it)
{
	if (it == NULL)
		return;
	free(it->url);
	cJSON_Delete(it->page);
	free(it);
}

/* ------------------------------------------------------- Projects */

int lc_projects_list(struct lc_client *c, const struct lc_query *q,
		     struct lc_list **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc__buf_str(&path, "/api/v3/projects/");
	return get_list(c, &path, q, &kind_project, out, err);
}

int lc_project_get(struct lc_client *c, const char *slug,
		   const struct lc_query *q, struct lc_project **out,
		   struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	if (need(slug, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	project_path(&path, slug, "");
	return get_project(c, "GET", &path, q, NULL, out, err);
}

static cJSON *import_body(const struct lc_project_import *in)
{
	cJSON *body = cJSON_CreateObject(), *repo = cJSON_CreateObject();

	repo = add_str(repo, "url", in->repository_url);
	repo = add_str(repo, "type",
		       in->repository_type ? in->repository_type : "git");
	if (body == NULL || repo == NULL ||
	    !cJSON_AddItemToObject(body, "repository", repo)) {
		cJSON_Delete(body);
		cJSON_Delete(repo);
		return NULL;
	}
	body = add_str(body, "name", in->name);
	body = add_str(body, "homepage", in->homepage);
	body = add_str(body, "language", in->language);
	body = add_str(body, "programming_language", in->programming_language);
	body = add_str(body, "organization", in->organization);
	return body;
}

int lc_project_import(struct lc_client *c, const struct lc_project_import *in,
		      struct lc_project **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	lc_error_clear(err);
	if (in == NULL)
		return lc__fail(err, LC_EINVAL, 0, "no project to import");
	if (need(in->name, "a project name", err) != LC_OK ||
	    need(in->repository_url, "a repository URL", err) != LC_OK)
		return LC_EINVAL;
	lc__buf_str(&path, "/api/v3/projects/");
	return send_project(c, "POST", &path, import_body(in), out, err);
}

int lc_project_update(struct lc_client *c, const char *slug,
		      const cJSON *fields, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc_error_clear(err);
	if (need(slug, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	if (!cJSON_IsObject(fields))
		return lc__fail(err, LC_EINVAL, 0,
				"the fields to update must be a JSON object");
	project_path(&path, slug, "");
	return get_project(c, "PATCH", &path, NULL, fields, NULL, err);
}

int lc_project_delete(struct lc_client *c, const char *slug,
		      struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc_error_clear(err);
	if (need(slug, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	project_path(&path, slug, "");
	return get_project(c, "DELETE", &path, NULL, NULL, NULL, err);
}

/* ------------------------------------------------------- Versions */

PROJECT_LIST(lc_versions_list, "versions/", version)

int lc_version_get(struct lc_client *c, const char *project,
		   const char *version, const struct lc_query *q,
		   struct lc_version **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	if (need(project, "a project slug", err) != LC_OK ||
	    need(version, "a version slug", err) != LC_OK)
		return LC_EINVAL;
	version_path(&path, project, version);
	return get_version(c, "GET", &path, q, NULL, out, err);
}

int lc_version_update(struct lc_client *c, const char *project,
		      const char *version, int active, int hidden,
		      struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc_error_clear(err);
	if (need(project, "a project slug", err) != LC_OK ||
	    need(version, "a version slug", err) != LC_OK)
		return LC_EINVAL;
	if (active == LC_UNKNOWN && hidden == LC_UNKNOWN)
		return lc__fail(err, LC_EINVAL, 0, "nothing to update");
	version_path(&path, project, version);
	return send_version(c, "PATCH", &path,
			    add_bool(add_bool(cJSON_CreateObject(), "active",
					      active),
				     "hidden", hidden),
			    NULL, err);
}

/* --------------------------------------------------------- Builds */

int lc_builds_list(struct lc_client *c, const char *project, int running,
		   const char *commit, const struct lc_query *q,
		   struct lc_list **out, struct lc_error *err)
{
	struct lc_query all = { 0 };
	struct lc_buf path = { 0 };
	size_t i;
	int rc = LC_OK;

	*out = NULL;
	if (need(project, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	for (i = 0; q != NULL && i < q->len && rc == LC_OK; i++)
		rc = lc_query_add(&all, q->items[i].key, q->items[i].value);
	if (rc == LC_OK && running != LC_UNKNOWN)
		rc = lc_query_add(&all, "running", running ? "true" : "false");
	if (rc == LC_OK && commit != NULL)
		rc = lc_query_add(&all, "commit", commit);
	if (rc != LC_OK) {
		lc_query_dispose(&all);
		return lc__fail(err, rc, 0, "out of memory");
	}
	project_path(&path, project, "builds/");
	rc = get_list(c, &path, &all, &kind_build, out, err);
	lc_query_dispose(&all);
	return rc;
}

int lc_build_get(struct lc_client *c, const char *project, long long id,
		 const struct lc_query *q, struct lc_build **out,
		 struct lc_error *err)
{
	void *item = NULL;
	int rc = project_item(c, "GET", project, "builds/", id, q, &kind_build,
			      &item, err);

	*out = item;
	return rc;
}

int lc_build_trigger(struct lc_client *c, const char *project,
		     const char *version, struct lc_build **out,
		     struct lc_error *err)
{
	return lc_build_trigger_fresh(c, project, version, 0, out, err);
}

int lc_build_trigger_fresh(struct lc_client *c, const char *project,
			   const char *version, int fresh,
			   struct lc_build **out, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_buf path = { 0 };
	const cJSON *build;
	cJSON *body = NULL;
	int rc;

	*out = NULL;
	if (need(project, "a project slug", err) != LC_OK ||
	    need(version, "a version slug", err) != LC_OK)
		return LC_EINVAL;
	version_path(&path, project, version);
	lc__buf_str(&path, "builds/");
	if (fresh && ((body = cJSON_CreateObject()) == NULL ||
		      cJSON_AddTrueToObject(body, "fresh") == NULL)) {
		cJSON_Delete(body);
		free(path.s);
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	}
	rc = call(c, "POST", &path, NULL, body, true, &resp, err);
	cJSON_Delete(body);
	if (rc == LC_OK) {
		/* {"build":..., "project":..., "version":...} */
		build = cJSON_GetObjectItemCaseSensitive(resp->json, "build");
		rc = lc_build_parse(cJSON_IsObject(build) ? build : resp->json,
				    out, err);
	}
	lc_response_free(resp);
	free(path.s);
	return rc;
}

int lc_preview_branch(struct lc_client *c, const char *project,
		      const char *branch, struct lc_build **out, char **url,
		      struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_buf path = { 0 };
	const cJSON *build, *urls, *docs;
	cJSON *body;
	int rc;

	*out = NULL;
	*url = NULL;
	if (need(project, "a project slug", err) != LC_OK ||
	    need(branch, "a branch", err) != LC_OK)
		return LC_EINVAL;
	if ((body = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(body, "branch", branch) == NULL) {
		cJSON_Delete(body);
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	}
	project_path(&path, project, "previews/");
	rc = call(c, "POST", &path, NULL, body, true, &resp, err);
	cJSON_Delete(body);
	if (rc == LC_OK) {
		build = cJSON_GetObjectItemCaseSensitive(resp->json, "build");
		urls = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(resp->json, "version"),
			"urls");
		docs = cJSON_GetObjectItemCaseSensitive(urls, "documentation");
		rc = lc_build_parse(cJSON_IsObject(build) ? build : resp->json,
				    out, err);
		if (rc == LC_OK && cJSON_IsString(docs) &&
		    (*url = strdup(docs->valuestring)) == NULL)
			rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
	}
	lc_response_free(resp);
	free(path.s);
	return rc;
}

int lc_build_cancel(struct lc_client *c, const char *project, long long id,
		    struct lc_build **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	if (need(project, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	pk_path(&path, project, "builds/", id);
	lc__buf_str(&path, "cancel/");
	return get_build(c, "POST", &path, NULL, NULL, out, err);
}

/* ----------------------------------------- Subprojects, translations */

PROJECT_LIST(lc_subprojects_list, "subprojects/", subproject)

int lc_subproject_add(struct lc_client *c, const char *project,
		      const char *child, const char *alias,
		      struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc_error_clear(err);
	if (need(project, "a project slug", err) != LC_OK ||
	    need(child, "a child project slug", err) != LC_OK)
		return LC_EINVAL;
	project_path(&path, project, "subprojects/");
	return send_subproject(c, "POST", &path,
			       add_str(add_str(cJSON_CreateObject(), "child",
					       child),
				       "alias", alias),
			       NULL, err);
}

int lc_subproject_remove(struct lc_client *c, const char *project,
			 const char *alias, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	if (need(project, "a project slug", err) != LC_OK ||
	    need(alias, "a subproject alias", err) != LC_OK)
		return LC_EINVAL;
	project_path(&path, project, "subprojects/");
	/* Aliases may contain '/' (the service's detail route allows it). */
	lc__buf_escape(&path, alias, true);
	lc__buf_str(&path, "/");
	return get_subproject(c, "DELETE", &path, NULL, NULL, NULL, err);
}

PROJECT_LIST(lc_translations_list, "translations/", project)

/* ------------------------------------------------------ Redirects */

PROJECT_LIST(lc_redirects_list, "redirects/", redirect)
PROJECT_ITEM_GET(lc_redirect_get, "redirects/", redirect)
PROJECT_ITEM_DELETE(lc_redirect_delete, "redirects/", redirect)

/* POST a new redirect (create) or PUT over redirect pk. */
static int redirect_write(struct lc_client *c, const char *project,
			  int create, long long pk, const char *type,
			  const char *from_url, const char *to_url,
			  struct lc_redirect **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	lc_error_clear(err);
	if (need(project, "a project slug", err) != LC_OK ||
	    need(type, "a redirect type", err) != LC_OK)
		return LC_EINVAL;
	if (create)
		project_path(&path, project, "redirects/");
	else
		pk_path(&path, project, "redirects/", pk);
	return send_redirect(c, create ? "POST" : "PUT", &path,
			     add_str(add_str(add_str(cJSON_CreateObject(),
						     "type", type),
					     "from_url", from_url),
				     "to_url", to_url),
			     out, err);
}

int lc_redirect_create(struct lc_client *c, const char *project,
		       const char *type, const char *from_url,
		       const char *to_url, struct lc_redirect **out,
		       struct lc_error *err)
{
	return redirect_write(c, project, 1, 0, type, from_url, to_url, out,
			      err);
}

int lc_redirect_update(struct lc_client *c, const char *project, long long pk,
		       const char *type, const char *from_url,
		       const char *to_url, struct lc_redirect **out,
		       struct lc_error *err)
{
	return redirect_write(c, project, 0, pk, type, from_url, to_url, out,
			      err);
}

/* -------------------------------------------- Environment variables */

PROJECT_LIST(lc_envvars_list, "environmentvariables/", envvar)
PROJECT_ITEM_GET(lc_envvar_get, "environmentvariables/", envvar)
PROJECT_ITEM_DELETE(lc_envvar_delete, "environmentvariables/", envvar)

int lc_envvar_create(struct lc_client *c, const char *project,
		     const char *name, const char *value, int public_,
		     struct lc_envvar **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	lc_error_clear(err);
	if (need(project, "a project slug", err) != LC_OK ||
	    need(name, "a variable name", err) != LC_OK)
		return LC_EINVAL;
	if (value == NULL)
		return lc__fail(err, LC_EINVAL, 0, "a value is required");
	project_path(&path, project, "environmentvariables/");
	return send_envvar(c, "POST", &path,
			   add_bool(add_str(add_str(cJSON_CreateObject(),
						    "name", name),
					    "value", value),
				    "public", public_),
			   out, err);
}

/* -------------------------------------------------- Organizations */

int lc_orgs_list(struct lc_client *c, const struct lc_query *q,
		 struct lc_list **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	lc__buf_str(&path, "/api/v3/organizations/");
	return get_list(c, &path, q, &kind_organization, out, err);
}

static void org_path(struct lc_buf *path, const char *slug, const char *rest)
{
	lc__buf_str(path, "/api/v3/organizations/");
	lc__buf_escape(path, slug, false);
	lc__buf_str(path, "/");
	lc__buf_str(path, rest);
}

int lc_org_get(struct lc_client *c, const char *slug,
	       struct lc_organization **out, struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	if (need(slug, "an organization slug", err) != LC_OK)
		return LC_EINVAL;
	org_path(&path, slug, "");
	return get_organization(c, "GET", &path, NULL, NULL, out, err);
}

int lc_org_projects_list(struct lc_client *c, const char *slug,
			 const struct lc_query *q, struct lc_list **out,
			 struct lc_error *err)
{
	struct lc_buf path = { 0 };

	*out = NULL;
	if (need(slug, "an organization slug", err) != LC_OK)
		return LC_EINVAL;
	org_path(&path, slug, "projects/");
	return get_list(c, &path, q, &kind_project, out, err);
}

/* ------------------------------------------------------------- v2 */

/* GET /api/v2/<what>/<id>/ as one object of that kind. */
#define V2_GET(fn, what)                                                     \
	int fn(struct lc_client *c, long long id, struct lc_##what **out,    \
	       struct lc_error *err)                                         \
	{                                                                    \
		struct lc_buf path = { 0 };                                  \
									     \
		lc__buf_printf(&path, "/api/v2/" #what "/%lld/", id);       \
		return get_##what(c, "GET", &path, NULL, NULL, out, err);    \
	}

V2_GET(lc_v2_project_get, project)
V2_GET(lc_v2_version_get, version)
V2_GET(lc_v2_build_get, build)

int lc_v2_build_log(struct lc_client *c, long long id, char **out,
		    struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_buf path = { 0 };
	int rc;

	*out = NULL;
	lc__buf_printf(&path, "/api/v2/build/%lld.txt", id);
	rc = call(c, "GET", &path, NULL, NULL, false, &resp, err);
	if (rc == LC_OK) {
		*out = resp->body;
		resp->body = NULL;
	}
	lc_response_free(resp);
	free(path.s);
	return rc;
}

/* ------------------------------------------------ Search and embed */

/* A request's path built in b, with rc the status of its query: the path
 * into *path (the caller's), or b freed and the first error returned. */
static int take_path(struct lc_buf *b, int rc, char **path)
{
	if (rc == LC_OK && b->rc)
		rc = b->rc;
	if (rc != LC_OK) {
		free(b->s);
		return rc;
	}
	*path = b->s;
	return LC_OK;
}

int lc_search_request(struct lc_client *c, const char *query,
		      const char *project, const char *version, int page,
		      int page_size, char **path, struct lc_query *q)
{
	struct lc_buf b = { 0 };
	int rc;

	*path = NULL;
	if (c->remote == LC_REMOTE_SERVICE || project == NULL) {
		/* The service's own search, on the API host (the token goes
		 * with it): the scope is part of the query. Without a
		 * project, every project the user maintains (v3's
		 * user:@me, which a Lectern answers too). */
		if (project == NULL) {
			lc__buf_str(&b, "user:@me");
		} else {
			lc__buf_str(&b, "project:");
			lc__buf_str(&b, project);
		}
		if (project && version) {
			lc__buf_str(&b, "/");
			lc__buf_str(&b, version);
		}
		lc__buf_printf(&b, " %s", query);
		rc = b.rc ? b.rc : lc_query_add(q, "q", b.s);
		free(b.s);
		b = (struct lc_buf){ 0 };
		lc__buf_str(&b, "/api/v3/search/");
	} else {
		/* Lectern answers the v2 route on the project's docs host. */
		lc__buf_printf(&b, "%s://", c->docs_scheme);
		lc__buf_escape(&b, project, false);
		lc__buf_printf(&b, ".%s/_/api/v2/search/", c->docs_host);
		rc = lc_query_add(q, "q", query);
		if (rc == LC_OK)
			rc = lc_query_add(q, "project", project);
		if (rc == LC_OK)
			rc = lc_query_add(q, "version", version ? version
								 : "latest");
	}
	if (rc == LC_OK && page > 0)
		rc = lc_query_add_int(q, "page", page);
	if (rc == LC_OK && page_size > 0)
		rc = lc_query_add_int(q, "page_size", page_size);
	return take_path(&b, rc, path);
}

int lc_search(struct lc_client *c, const char *query, const char *project,
	      const char *version, int page, int page_size,
	      struct lc_list **out, struct lc_error *err)
{
	struct lc_query q = { 0 };
	struct lc_buf path = { 0 };
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (c == NULL || query == NULL)
		return lc__fail(err, LC_EINVAL, 0, "a query is required");
	if (project && need(project, "a project slug", err) != LC_OK)
		return LC_EINVAL;
	if ((rc = lc_client_detect(c, err)) != LC_OK)
		return rc;
	rc = lc_search_request(c, query, project, version, page, page_size,
			       &path.s, &q);
	if (rc == LC_OK)
		rc = get_list(c, &path, &q, &kind_search_result, out, err);
	else
		lc__fail(err, rc, 0, "out of memory");
	lc_query_dispose(&q);
	return rc;
}

int lc_embed_get(struct lc_client *c, const char *url, struct lc_embed **out,
		 struct lc_error *err)
{
	struct lc_query q = { 0 };
	struct lc_buf path = { 0 };
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (need(url, "a URL", err) != LC_OK)
		return LC_EINVAL;
	rc = lc_query_add(&q, "url", url);
	if (rc != LC_OK)
		return lc__fail(err, rc, 0, "out of memory");
	lc__buf_str(&path, "/api/v3/embed/");
	rc = get_embed(c, "GET", &path, &q, NULL, out, err);
	lc_query_dispose(&q);
	return rc;
}

/* ------------------------------------------------------- Page diffs */

int lc_diff_request(const char *project, const char *base, const char *head,
		    const char *page, char **path, struct lc_query *q)
{
	struct lc_buf b = { 0 };
	int rc;

	*path = NULL;
	if (project == NULL || !*project || base == NULL || !*base ||
	    head == NULL || !*head)
		return LC_EINVAL;
	project_path(&b, project, "diff/");
	rc = lc_query_add(q, "base", base);
	if (rc == LC_OK)
		rc = lc_query_add(q, "head", head);
	if (rc == LC_OK && page != NULL)
		rc = lc_query_add(q, "path", page);
	return take_path(&b, rc, path);
}

int lc_diff_get(struct lc_client *c, const char *project, const char *base,
		const char *head, const char *page, struct lc_diff **out,
		struct lc_error *err)
{
	struct lc_query q = { 0 };
	struct lc_buf path = { 0 };
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (c == NULL)
		return lc__fail(err, LC_EINVAL, 0, "no client");
	if (need(project, "a project slug", err) != LC_OK ||
	    need(base, "a base version or build", err) != LC_OK ||
	    need(head, "a head version or build", err) != LC_OK)
		return LC_EINVAL;
	rc = lc_diff_request(project, base, head, page, &path.s, &q);
	if (rc == LC_OK)
		rc = get_diff(c, "GET", &path, &q, NULL, out, err);
	else
		lc__fail(err, rc, 0, "out of memory");
	lc_query_dispose(&q);
	return rc;
}
