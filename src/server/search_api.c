/*
 * The search API (contract §4.11 and §2.14, behaviour notes §4.1-4.2).
 *
 * v2 (/api/v2/search/ and, on every host, /_/api/v2/search/) checks in the
 * service's order: the project, then the version (404s), whether the
 * requester may read that version (403), then the required parameters
 * (400), then paging; it searches the version and, for each subproject,
 * the version of the same slug or else the subproject's default version
 * (public or readable by the requester, built, not hidden). v3 takes its
 * projects from arguments inside q (project:, subprojects:, user:@me) and
 * searches nothing without them. Both page with page/page_size (default
 * 50, at most 100: the decision table) in DRF PageNumberPagination's
 * envelope; v2 keeps the serializer's key order, v3 sorts keys.
 *
 * A result's path and domain come from the version's documentation URL
 * (resolve.h): domain is its scheme and host, path its path plus the
 * page's file, where doc types served as directories drop a final
 * index.html.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/project.h"
#include "lectern/search.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "search_api.h"
#include "v3.h"

#define NO_PROJECT "No Project matches the given query."
#define NO_VERSION "No Version matches the given query."
#define V2_REQUIRED "This query param is required"
#define V3_REQUIRED "This query parameter is required"

/* Digits of a page number beyond which it is certainly too high. */
#define PAGE_DIGITS_MAX 9

const struct srv_route srv_search_routes[] = {
	/* SRV_API_V3: a token is checked as on v3 (a bad one is 401). The
	 * service's search views serve GET only: no view name, so OPTIONS
	 * is a 405 there (a CORS preflight is answered before routing). */
	{ "/api/v2/search/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_search_v2 } },
	  NULL, NULL },
	{ "/_/api/v2/search/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_search_v2 } },
	  NULL, NULL },
	{ "/api/v3/search/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_search_v3 } },
	  NULL, NULL },
	{ "/_/api/v3/search/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_search_v3 } },
	  NULL, NULL },
};

const size_t srv_search_route_count =
	sizeof(srv_search_routes) / sizeof(srv_search_routes[0]);

/* What is searched ---------------------------------------------------------- */

/* One (project, version) pair searched, with what its results show. */
struct target {
	int64_t version_id;
	struct lec_project *project; /* owned */
	char *version_slug;          /* owned */
	char *alias;   /* owned; the subproject's alias, NULL for none */
	char *doctype; /* owned; the version's documentation type */
	char *origin;  /* owned; "http://host" of its documentation */
	char *prefix;  /* owned; path of its documentation root, "/.../" */
};

struct targets {
	struct target items[LEC_SEARCH_VERSIONS_MAX];
	size_t len;
	/* What the search found: the response's strings refer to it until
	 * it is rendered (cJSON_CreateStringReference), so it goes with the
	 * targets. */
	struct lec_search_results found;
};

static void target_dispose(struct target *t)
{
	lec_project_free(t->project);
	free(t->version_slug);
	free(t->alias);
	free(t->doctype);
	free(t->origin);
	free(t->prefix);
	memset(t, 0, sizeof(*t));
}

static void targets_dispose(struct targets *ts)
{
	lec_search_results_dispose(&ts->found);
	size_t i;

	for (i = 0; i < ts->len; i++)
		target_dispose(&ts->items[i]);
	ts->len = 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Add (project, version), taking p; one version per project, the last
 * one given wins; past LEC_SEARCH_VERSIONS_MAX pairs the rest is dropped.
 * Returns 0, or -1 when out of memory. */
static int target_add(struct srv_request *req, struct targets *ts,
		      struct lec_project *p, const struct lec_version *v,
		      const char *alias)
{
	struct target t = { 0 };
	char *url = srv_docs_url(req, p, v->slug);
	const char *scheme = url ? strstr(url, "://") : NULL;
	const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
	size_t i;

	t.version_id = v->id;
	t.project = p;
	t.version_slug = strdup(v->slug);
	t.alias = dup_or_null(alias);
	t.doctype = strdup(v->documentation_type ? v->documentation_type : "");
	t.origin = slash ? strndup(url, (size_t)(slash - url)) : NULL;
	t.prefix = slash ? strdup(slash) : NULL;
	free(url);
	if (!t.version_slug || (alias && !t.alias) || !t.doctype ||
	    !t.origin || !t.prefix) {
		target_dispose(&t);
		return -1;
	}
	for (i = 0; i < ts->len; i++)
		if (ts->items[i].project->id == p->id) {
			target_dispose(&ts->items[i]);
			ts->items[i] = t;
			return 0;
		}
	if (ts->len == LEC_SEARCH_VERSIONS_MAX) {
		target_dispose(&t);
		return 0;
	}
	ts->items[ts->len++] = t;
	return 0;
}

/* Whether the requester may read version v of p, whose project they have
 * been found to see; listed: leave a hidden version out. */
static int version_readable(struct srv_request *req, struct lec_store *store,
			    const struct lec_project *p,
			    const struct lec_version *v, int listed)
{
	return lec_version_can_view(store, p, v, srv_viewer_id(req),
				    listed ? LEC_VERSION_VIEW_LISTED : 0) == 1;
}

/* The version slug of p if it can be searched as a subproject's or an
 * argument's version: built, readable, and not hidden unless hidden_ok.
 * NULL otherwise; owned by the caller (lec_version_free). */
static struct lec_version *searchable_version(struct srv_request *req,
					      struct lec_store *store,
					      const struct lec_project *p,
					      const char *slug, int hidden_ok)
{
	struct lec_version *v = NULL;

	if (slug == NULL || lec_version_get(store, p->id, slug, &v) != LEC_OK)
		return NULL;
	if (v->built && version_readable(req, store, p, v, !hidden_ok))
		return v;
	lec_version_free(v);
	return NULL;
}

/* The project's default version, if searchable. */
static struct lec_version *default_version(struct srv_request *req,
					   struct lec_store *store,
					   const struct lec_project *p,
					   int hidden_ok)
{
	struct lec_version *v;
	char *slug = NULL;

	if (lec_version_default_slug(store, p->id, &slug) != LEC_OK)
		return NULL;
	v = searchable_version(req, store, p, slug, hidden_ok);
	free(slug);
	return v;
}

/* Every subproject of parent the requester may see: its version named
 * slug, else its default version (built, not hidden, readable). */
static int add_subprojects(struct srv_request *req, struct lec_store *store,
			   const struct lec_project *parent, const char *slug,
			   struct targets *ts)
{
	struct lec_subproject_list subs = { 0 };
	struct lec_project *child;
	struct lec_version *v;
	size_t i;
	int rc = 0;

	if (lec_subproject_list(store, parent->id, srv_viewer_id(req), NULL,
				&subs) < 0)
		return -1;
	for (i = 0; i < subs.len && rc == 0; i++) {
		const struct lec_project *c = &subs.items[i].child;

		v = searchable_version(req, store, c, slug, 0);
		if (v == NULL)
			v = default_version(req, store, c, 0);
		if (v == NULL)
			continue;
		child = NULL;
		if (lec_project_get_by_id(store, c->id, &child) == LEC_OK)
			rc = target_add(req, ts, child, v,
					subs.items[i].alias);
		lec_version_free(v);
	}
	lec_subproject_list_dispose(&subs);
	return rc;
}

/* Paging ---------------------------------------------------------------------- */

/* A positive decimal integer, saturating past PAGE_DIGITS_MAX digits; 0
 * for anything else. */
static size_t parse_positive(const char *s)
{
	size_t v = 0, digits = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		if (v > 0 || *s != '0')
			digits++;
		if (digits <= PAGE_DIGITS_MAX)
			v = v * 10 + (size_t)(*s - '0');
	}
	return v;
}

/* The page asked for: 1 when absent; 0 for an invalid one. */
static size_t parse_page(const struct srv_request *req)
{
	const char *page = srv_query(req, "page");

	return page ? parse_positive(page) : 1;
}

/* The page size the engine applies (0/invalid: default, clamped). */
static size_t effective_page_size(size_t asked)
{
	if (asked == 0)
		return LEC_SEARCH_PAGE_SIZE_DEFAULT;
	return asked > LEC_SEARCH_PAGE_SIZE_MAX ? LEC_SEARCH_PAGE_SIZE_MAX
						: asked;
}

static int bare_list_error(struct srv_response *res, const char *msg)
{
	cJSON *list = cJSON_CreateArray();

	if (list && !cJSON_AddItemToArray(list, cJSON_CreateString(msg))) {
		cJSON_Delete(list);
		list = NULL;
	}
	return srv_respond_json(res, 400, list, SRV_JSON_AS_BUILT);
}

/* The request URL with page set (or removed when page is 0). */
static cJSON *page_link(struct srv_request *req, size_t page)
{
	char key[] = "page", text[24];
	struct srv_param set = { key, NULL };

	if (page > 0) {
		snprintf(text, sizeof(text), "%zu", page);
		set.value = text;
	}
	return srv_page_link(req, &set, 1);
}

/* {"count","next","previous","results"}; consumes results. */
static cJSON *envelope(struct srv_request *req, size_t page, size_t size,
		       size_t count, cJSON *results)
{
	cJSON *env = cJSON_CreateObject();

	if (env == NULL || results == NULL) {
		cJSON_Delete(env);
		cJSON_Delete(results);
		return NULL;
	}
	cJSON_AddNumberToObject(env, "count", (double)count);
	cJSON_AddItemToObject(env, "next",
			      page * size < count ? page_link(req, page + 1)
						  : cJSON_CreateNull());
	cJSON_AddItemToObject(env, "previous",
			      page > 1 ? page_link(req, page == 2 ? 0 : page - 1)
				       : cJSON_CreateNull());
	cJSON_AddItemToObject(env, "results", results);
	return env;
}

/* Results --------------------------------------------------------------------- */

/* A string member under a constant key, its value referred to, not
 * copied (it lives in the targets until the response is rendered): a
 * results page has hundreds of members and tens of KB of text. */
static void add_string(cJSON *o, const char *key, const char *value)
{
	cJSON_AddItemToObjectCS(o, key, cJSON_CreateStringReference(value));
}

/* [] or [text]: the service asks for one fragment per field. */
static cJSON *fragments(const char *text)
{
	cJSON *list = cJSON_CreateArray();

	if (list && text)
		cJSON_AddItemToArray(list, cJSON_CreateStringReference(text));
	return list;
}

static cJSON *block_json(const struct lec_search_block *b)
{
	cJSON *o = cJSON_CreateObject(), *h = cJSON_CreateObject();
	int domain = b->type == LEC_SEARCH_BLOCK_DOMAIN;

	if (o == NULL || h == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(h);
		return NULL;
	}
	add_string(o, "type", domain ? "domain" : "section");
	if (domain) {
		add_string(o, "role", b->role ? b->role : "");
		add_string(o, "name", b->title);
	}
	add_string(o, "id", b->id);
	if (!domain)
		add_string(o, "title", b->title);
	add_string(o, "content", b->content);
	cJSON_AddItemToObjectCS(h, domain ? "name" : "title",
				fragments(b->title_highlight));
	cJSON_AddItemToObjectCS(h, "content", fragments(b->content_highlight));
	cJSON_AddItemToObjectCS(o, "highlights", h);
	return o;
}

/* Doc types served as directories drop a final index.html (notes §4.1). */
static int drops_index(const char *doctype)
{
	return strcmp(doctype, "sphinx_htmldir") == 0 ||
	       strcmp(doctype, "mkdocs") == 0 || strcmp(doctype, "generic") == 0;
}

static char *result_path(const struct target *t, const char *rel)
{
	size_t n = strlen(rel), keep = n, len;
	char *path;

	if (drops_index(t->doctype) && n >= 10 &&
	    strcmp(rel + n - 10, "index.html") == 0 &&
	    (n == 10 || rel[n - 11] == '/'))
		keep = n - 10;
	len = strlen(t->prefix) + keep + 1;
	if ((path = malloc(len)) != NULL)
		snprintf(path, len, "%s%.*s", t->prefix, (int)keep, rel);
	return path;
}

static cJSON *hit_json(const struct target *t, const struct lec_search_hit *h,
		       int v3)
{
	cJSON *o = cJSON_CreateObject(), *hl = cJSON_CreateObject();
	cJSON *blocks = cJSON_CreateArray(), *proj, *ver;
	char *path = result_path(t, h->path);
	size_t i;

	if (!o || !hl || !blocks || !path) {
		cJSON_Delete(o);
		cJSON_Delete(hl);
		cJSON_Delete(blocks);
		free(path);
		return NULL;
	}
	add_string(o, "type", "page");
	if (v3) {
		proj = cJSON_AddObjectToObject(o, "project");
		add_string(proj, "slug", t->project->slug);
		if (t->alias)
			add_string(proj, "alias", t->alias);
		else
			cJSON_AddNullToObject(proj, "alias");
		ver = cJSON_AddObjectToObject(o, "version");
		add_string(ver, "slug", t->version_slug);
	} else {
		add_string(o, "project", t->project->slug);
		if (t->alias)
			add_string(o, "project_alias", t->alias);
		else
			cJSON_AddNullToObject(o, "project_alias");
		add_string(o, "version", t->version_slug);
	}
	add_string(o, "title", h->title);
	cJSON_AddItemToObjectCS(o, "path", cJSON_CreateString(path));
	add_string(o, "domain", t->origin);
	cJSON_AddItemToObjectCS(hl, "title", fragments(h->title_highlight));
	cJSON_AddItemToObjectCS(o, "highlights", hl);
	for (i = 0; i < h->blocks_len; i++)
		cJSON_AddItemToArray(blocks, block_json(&h->blocks[i]));
	cJSON_AddItemToObjectCS(o, "blocks", blocks);
	free(path);
	return o;
}

static const struct target *target_of(const struct targets *ts,
				      int64_t version_id)
{
	size_t i;

	for (i = 0; i < ts->len; i++)
		if (ts->items[i].version_id == version_id)
			return &ts->items[i];
	return NULL;
}

/* Search the targets; *results gets the page's result objects. On
 * failure fills res and returns -1. */
static int run_search(struct srv_request *req, struct srv_response *res,
		      struct targets *ts, const char *text, size_t page,
		      size_t page_size, cJSON **results, size_t *total, int v3)
{
	struct lec_search_request sr = { text, NULL, ts->len, page, page_size };
	struct lec_search_results *found = &ts->found;
	int64_t ids[LEC_SEARCH_VERSIONS_MAX];
	const struct target *t;
	size_t i;
	int rc;

	*results = NULL;
	for (i = 0; i < ts->len; i++)
		ids[i] = ts->items[i].version_id;
	sr.version_ids = ids;
	if ((rc = lec_search_query(srv_store(req), &sr, found)) < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	*total = found->total;
	*results = cJSON_CreateArray();
	for (i = 0; *results && i < found->len; i++)
		if ((t = target_of(ts, found->items[i].version_id)) != NULL)
			cJSON_AddItemToArray(*results,
					     hit_json(t, &found->items[i], v3));
	if (*results == NULL) {
		srv_respond_internal(res, "out of memory");
		return -1;
	}
	return 0;
}

/* v2 ------------------------------------------------------------------------ */

/* Step 1 of the notes: project, version, and the right to read it. Fills
 * res and returns -1 when refused. */
static int v2_load(struct srv_request *req, struct srv_response *res,
		   struct lec_store *store, struct lec_project **p,
		   struct lec_version **v)
{
	const char *pslug = srv_query(req, "project");
	const char *vslug = srv_query(req, "version");
	int rc;

	rc = pslug ? lec_project_get(store, pslug, p) : LEC_ENOTFOUND;
	if (rc == LEC_OK &&
	    lec_project_can_view(store, (*p)->id, srv_viewer_id(req)) != 1)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_ENOTFOUND)
		return srv_respond_detail(res, 404, NO_PROJECT), -1;
	if (rc < 0)
		return srv_respond_engine_error(res, rc), -1;
	rc = vslug ? lec_version_get(store, (*p)->id, vslug, v) : LEC_ENOTFOUND;
	if (rc == LEC_ENOTFOUND)
		return srv_respond_detail(res, 404, NO_VERSION), -1;
	if (rc < 0)
		return srv_respond_engine_error(res, rc), -1;
	if (version_readable(req, store, *p, *v, 0))
		return 0;
	srv_respond_detail(res, 403,
			   req->user ? "You do not have permission to perform "
				       "this action."
				     : "Authentication credentials were not "
				       "provided.");
	return -1;
}

/* Step 2: {"q": [...], "project": [...], "version": [...]} for the
 * parameters absent (present but empty is given). */
static int v2_required(struct srv_request *req, struct srv_response *res)
{
	static const char *const keys[] = { "q", "project", "version" };
	cJSON *errors = cJSON_CreateObject();
	size_t i;

	for (i = 0; errors && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (srv_query(req, keys[i]) == NULL)
			cJSON_AddItemToObject(errors, keys[i],
					      fragments(V2_REQUIRED));
	if (errors && cJSON_GetArraySize(errors) == 0) {
		cJSON_Delete(errors);
		return 0;
	}
	srv_respond_json(res, 400, errors, SRV_JSON_AS_BUILT);
	return -1;
}

int srv_search_v2(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	struct targets *ts = calloc(1, sizeof(*ts));
	cJSON *results = NULL;
	size_t page, size, total = 0;

	if (store == NULL || ts == NULL) {
		srv_respond_internal(res, store ? "out of memory" : "no store");
		goto done;
	}
	if (v2_load(req, res, store, &p, &v) < 0 || v2_required(req, res) < 0)
		goto done;
	if ((page = parse_page(req)) == 0) {
		bare_list_error(res, "Invalid page");
		goto done;
	}
	size = parse_positive(srv_query(req, "page_size"));
	if (target_add(req, ts, p, v, NULL) < 0 ||
	    add_subprojects(req, store, p, v->slug, ts) < 0) {
		p = NULL;
		srv_respond_internal(res, lec_error_last());
		goto done;
	}
	p = NULL; /* the targets own it */
	if (run_search(req, res, ts, srv_query(req, "q"), page, size, &results,
		       &total, 0) < 0)
		goto done;
	srv_respond_json(res, 200,
			 envelope(req, page, effective_page_size(size), total,
				  results),
			 SRV_JSON_AS_BUILT);
done:
	lec_project_free(p);
	lec_version_free(v);
	if (ts)
		targets_dispose(ts);
	free(ts);
	return res->status;
}

/* v3 ------------------------------------------------------------------------ */

/* project:<slug>[/<version>], and with subprojects its subprojects. */
static int v3_project_arg(struct srv_request *req, struct lec_store *store,
			  const char *value, int subprojects,
			  struct targets *ts)
{
	const char *slash = strchr(value, '/');
	char *slug = slash ? strndup(value, (size_t)(slash - value))
			   : strdup(value);
	struct lec_project *p = NULL, *again = NULL;
	struct lec_version *v = NULL;
	int rc = 0;

	if (slug == NULL)
		return -1;
	if (lec_project_get(store, slug, &p) != LEC_OK ||
	    lec_project_can_view(store, p->id, srv_viewer_id(req)) != 1)
		goto done;
	v = slash ? searchable_version(req, store, p, slash + 1, 1)
		  : default_version(req, store, p, 1);
	if (v == NULL)
		goto done;
	if (subprojects &&
	    (rc = add_subprojects(req, store, p, v->slug, ts)) < 0)
		goto done;
	/* The project itself goes last: it wins over an earlier argument. */
	if (lec_project_get_by_id(store, p->id, &again) == LEC_OK)
		rc = target_add(req, ts, again, v, NULL);
done:
	free(slug);
	lec_project_free(p);
	lec_version_free(v);
	return rc;
}

/* user:@me: the default version of each project the requester
 * maintains. */
static int v3_user_arg(struct srv_request *req, struct lec_store *store,
		       struct targets *ts)
{
	struct lec_project_filter filter = { 0 };
	struct lec_project_list list = { 0 };
	struct lec_project *p;
	struct lec_version *v;
	size_t i;
	int rc = 0;

	if (req->user == NULL)
		return 0;
	filter.admin_user_id = req->user->id;
	if (lec_project_list(store, &filter, NULL, &list) < 0)
		return -1;
	for (i = 0; i < list.len && rc == 0; i++) {
		if ((v = default_version(req, store, &list.items[i], 1)) ==
		    NULL)
			continue;
		p = NULL;
		if (lec_project_get_by_id(store, list.items[i].id, &p) ==
		    LEC_OK)
			rc = target_add(req, ts, p, v, NULL);
		lec_version_free(v);
	}
	lec_project_list_dispose(&list);
	return rc;
}

/* Split q into arguments (processed into ts) and text (*text, owned):
 * whitespace-separated words, "name:value" for the three argument names,
 * the rest re-joined with single spaces, then "\:" unescaped. */
static int v3_parse(struct srv_request *req, struct lec_store *store,
		    const char *q, struct targets *ts, char **text)
{
	char *copy = strdup(q), *save = NULL, *word, *out, *user = NULL;
	size_t n = 0, i, j;
	int rc = 0;

	*text = calloc(1, strlen(q) + 1);
	if (copy == NULL || *text == NULL) {
		free(copy);
		return -1;
	}
	out = *text;
	for (word = strtok_r(copy, " \t\n\r\f\v", &save); word && rc == 0;
	     word = strtok_r(NULL, " \t\n\r\f\v", &save)) {
		if (strncmp(word, "project:", 8) == 0)
			rc = v3_project_arg(req, store, word + 8, 0, ts);
		else if (strncmp(word, "subprojects:", 12) == 0)
			rc = v3_project_arg(req, store, word + 12, 1, ts);
		else if (strncmp(word, "user:", 5) == 0)
			user = word + 5;
		else {
			if (n)
				out[n++] = ' ';
			memcpy(out + n, word, strlen(word));
			n += strlen(word);
		}
	}
	if (rc == 0 && user && strcmp(user, "@me") == 0)
		rc = v3_user_arg(req, store, ts);
	for (i = 0, j = 0; i < n; i++, j++) {
		if (out[i] == '\\' && out[i + 1] == ':')
			i++;
		out[j] = out[i];
	}
	out[j] = '\0';
	free(copy);
	return rc;
}

/* "projects": [{"slug": ..., "versions": [{"slug": ...}]}] */
static cJSON *v3_projects(const struct targets *ts)
{
	cJSON *list = cJSON_CreateArray(), *o, *versions, *ver;
	size_t i;

	for (i = 0; list && i < ts->len; i++) {
		o = cJSON_CreateObject();
		versions = cJSON_CreateArray();
		ver = cJSON_CreateObject();
		if (!o || !versions || !ver) {
			cJSON_Delete(o);
			cJSON_Delete(versions);
			cJSON_Delete(ver);
			cJSON_Delete(list);
			return NULL;
		}
		cJSON_AddStringToObject(o, "slug", ts->items[i].project->slug);
		cJSON_AddStringToObject(ver, "slug", ts->items[i].version_slug);
		cJSON_AddItemToArray(versions, ver);
		cJSON_AddItemToObject(o, "versions", versions);
		cJSON_AddItemToArray(list, o);
	}
	return list;
}

int srv_search_v3(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct targets *ts = calloc(1, sizeof(*ts));
	const char *q = srv_query(req, "q");
	cJSON *results = NULL, *body = NULL;
	char *text = NULL;
	size_t page, size, total = 0;

	if (store == NULL || ts == NULL) {
		srv_respond_internal(res, store ? "out of memory" : "no store");
		goto done;
	}
	if (q == NULL || q[0] == '\0') {
		body = cJSON_CreateObject();
		if (body)
			cJSON_AddItemToObject(body, "q", fragments(V3_REQUIRED));
		srv_respond_json(res, 400, body, SRV_JSON_SORTED);
		goto done;
	}
	if ((page = parse_page(req)) == 0) {
		bare_list_error(res, "Invalid page");
		goto done;
	}
	size = parse_positive(srv_query(req, "page_size"));
	if (v3_parse(req, store, q, ts, &text) < 0) {
		srv_respond_internal(res, lec_error_last());
		goto done;
	}
	if (run_search(req, res, ts, text, page, size, &results, &total, 1) <
	    0)
		goto done;
	body = envelope(req, page, effective_page_size(size), total, results);
	if (body) {
		cJSON_AddItemToObject(body, "projects", v3_projects(ts));
		cJSON_AddStringToObject(body, "query", text);
	}
	srv_respond_json(res, 200, body, SRV_JSON_SORTED);
done:
	free(text);
	if (ts)
		targets_dispose(ts);
	free(ts);
	return res->status;
}
