/*
 * GET /_/addons/ on every docs host: the one JSON document the reader's
 * addons (flyout, notifications, search as you type, link previews, doc
 * diff, hotkeys) are drawn from, in the hosted service's shape for
 * api-version 1 and 2 (its proxito view "hosting.py"; its expected
 * answers responses/v1.json and v2.json). The page is named by `url`
 * (taken apart as the docs server reads its own requests, docs_url.c) or
 * by `project-slug` + `version-slug`; a partial match (a project, no
 * version) still answers, without the version's parts.
 *
 * What the requester may see is the page's own rule: a version they may
 * not read, or a project they may not see, is the same 404 as its pages
 * give; the active versions listed are the built, not hidden, non
 * pull-request versions they may read, in the order the project's flyout
 * setting asks for. The settings themselves are the project's addon
 * settings (lectern/addons.h). docs/addons.md records the choices.
 *
 * The script that reads it (src/server/addons/addons.js) is served here
 * too, from the bytes compiled into the binary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs.h"
#include "docs_url.h"
#include "lectern/addons.h"
#include "lectern/build.h"
#include "lectern/errors.h"
#include "v3.h"
#include "version_pattern.h"

/* Builds of a version looked through for its newest successful one: the
 * service reads one row by index; a version whose last this many builds
 * all failed shows none. */
#define ADDONS_BUILDS_SCAN 50

/* The service's messages, its typo included. */
#define NEED_API_VERSION "'api-version' GET attribute is required"
#define API_VERSION_INVALID                                                  \
	"The version specifified in 'api-version' is invalid"
#define API_VERSION_UNSUPPORTED                                              \
	"The version specified in 'api-version' is currently not supported"

/* What one answer is made from. */
struct addons_page {
	struct docs_ctx *c;
	struct srv_docs_url at; /* project, version (or NULL), file */
	char *filename;         /* "/index.html"; NULL without a version */
	struct lec_addons settings;
	int64_t viewer;
};


static const char *param(const char *query, const char *key, char *buf)
{
	return query && docs_form_value(query, key, buf, DOCS_PATH_MAX) &&
			       buf[0]
		       ? buf
		       : NULL;
}

void docs_addons_query_read(const char *query, struct docs_addons_query *q)
{
	q->url = param(query, "url", q->buf[0]);
	q->api = param(query, "api-version", q->buf[1]);
	q->project = param(query, "project-slug", q->buf[2]);
	q->version = param(query, "version-slug", q->buf[3]);
}

/* {"error": message} with status 400. */
static int bad_request(struct srv_response *res, const char *message)
{
	cJSON *json = cJSON_CreateObject();

	if (json == NULL ||
	    cJSON_AddStringToObject(json, "error", message) == NULL) {
		cJSON_Delete(json);
		return srv_respond_internal(res, "out of memory");
	}
	return srv_respond_json(res, 400, json, SRV_JSON_AS_BUILT);
}

/* The major number of an api-version as packaging's parse reads it ("1",
 * "1.0.0", "v2", "0!1.2"): -1 when it is no version. */
static long api_major(const char *text)
{
	const char *s = text + strspn(text, " \t");
	int cmp;
	char *end;
	long major;

	if (lec_version_pep440_compare(text, text, &cmp) != LEC_OK)
		return -1;
	s += *s == 'v' || *s == 'V';
	major = strtol(s, &end, 10);
	if (*end == '!')
		major = strtol(end + 1, &end, 10);
	return major;
}

/* Resolving the page ------------------------------------------------------ */

/* The service's resolver filename of a file below a version root:
 * "/<file>", with "index.html" after a directory. */
static char *filename_of(const char *rel)
{
	size_t n = strlen(rel);
	char *out = NULL;

	if (asprintf(&out, "/%s%s", rel,
		     n == 0 || rel[n - 1] == '/' ? DOCS_INDEX : "") < 0)
		return NULL;
	return out;
}

/* Fill pg from the query; 0, or -1 with the response filled (the
 * project's 404, or a version the requester may not read). */
static int resolve(struct addons_page *pg, const struct docs_addons_query *q)
{
	struct docs_ctx *c = pg->c;
	const char *url = q->url;
	int rc;

	pg->at.viewer = pg->viewer;
	if (url) {
		rc = srv_docs_url_read(c->req, url, &pg->at);
		if (rc == LEC_ENOTFOUND && pg->at.project == NULL) {
			srv_respond_detail(c->res, 404, DOCS_ADDONS_NO_URL_PROJECT);
			return -1;
		}
	} else {
		rc = srv_docs_project_load(c->req, pg->viewer, q->project,
					   &pg->at.project);
		if (rc == LEC_ENOTFOUND) {
			srv_respond_detail(c->res, 404, DOCS_ADDONS_NO_PROJECT);
			return -1;
		}
		if (rc == LEC_OK)
			rc = lec_version_get(c->store, pg->at.project->id,
					     q->version, &pg->at.version);
	}
	if (rc == LEC_ENOTFOUND) {
		/* A partial match: the project without a version. */
		lec_version_free(pg->at.version);
		pg->at.version = NULL;
	} else if (rc != LEC_OK) {
		srv_respond_engine_error(c->res, rc);
		return -1;
	}
	if (pg->at.version &&
	    !docs_can_read(c, pg->at.project, pg->at.version)) {
		docs_plain_not_found(c->res);
		return -1;
	}
	if (pg->at.version && url &&
	    (pg->filename = filename_of(pg->at.rel ? pg->at.rel : "")) ==
		    NULL) {
		srv_respond_internal(c->res, "out of memory");
		return -1;
	}
	if ((rc = lec_addons_get(c->store, pg->at.project->id,
				 &pg->settings)) != LEC_OK) {
		srv_respond_engine_error(c->res, rc);
		return -1;
	}
	return 0;
}

/* Serializing ------------------------------------------------------------- */

/* A bool setting of the page's project. */
static int on(const struct addons_page *pg, enum lec_addons_id id)
{
	return pg->settings.on[id];
}


/* A v3 object without the fields the service cannot show on a docs host
 * (links into the API) or does not need. */
static cJSON *without(cJSON *o, const char *const *fields)
{
	for (; o && *fields; fields++)
		cJSON_DeleteItemFromObjectCaseSensitive(o, *fields);
	return o;
}

static const char *const project_drop[] = { "_links", "users", "tags",
					    NULL };
static const char *const links_drop[] = { "_links", NULL };
/* The service's addons build is its v3 build without links; Lectern's
 * version type beside it is for API clients, not the addons. */
static const char *const build_drop[] = { "_links", "version_type",
					  "external_forge", NULL };

/* A project as the service's addons serializer shows it: its related
 * projects (subproject_of, translation_of) lose their links too. */
static cJSON *project_json(struct addons_page *pg, const struct lec_project *p)
{
	cJSON *o = without(srv_v3_project(pg->c->req, p, NULL, 0),
			   project_drop);

	without(cJSON_GetObjectItemCaseSensitive(o, "subproject_of"),
		links_drop);
	without(cJSON_GetObjectItemCaseSensitive(o, "translation_of"),
		links_drop);
	return o;
}

static int by_language(const void *a, const void *b)
{
	const struct lec_project *x = *(const struct lec_project *const *)a;
	const struct lec_project *y = *(const struct lec_project *const *)b;

	return strcmp(x->language ? x->language : "",
		      y->language ? y->language : "");
}

/* The other languages of the project's main project (the main project
 * itself among them when the current one is a translation), the ones
 * the requester may see, by language code. */
static cJSON *translations_json(struct addons_page *pg)
{
	const struct lec_project *p = pg->at.project;
	struct lec_project *main = NULL;
	struct lec_project_list list = { 0 };
	const struct lec_project **order = NULL;
	cJSON *out = cJSON_CreateArray();
	size_t i, n = 0;

	if (p->translation_of &&
	    srv_docs_project_load(pg->c->req, pg->viewer, p->translation_of,
				  &main) != LEC_OK)
		main = NULL;
	if (lec_project_translations(pg->c->store, main ? main->id : p->id,
				     pg->viewer, NULL, &list) != LEC_OK ||
	    (order = calloc(list.len + 1, sizeof(*order))) == NULL)
		goto done;
	if (main)
		order[n++] = main;
	for (i = 0; i < list.len; i++)
		if (list.items[i].id != p->id)
			order[n++] = &list.items[i];
	qsort(order, n, sizeof(*order), by_language);
	for (i = 0; out && i < n; i++)
		cJSON_AddItemToArray(out, project_json(pg, order[i]));
done:
	free(order);
	lec_project_list_dispose(&list);
	lec_project_free(main);
	return out;
}

static cJSON *projects_json(struct addons_page *pg)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "current", project_json(pg, pg->at.project));
	cJSON_AddItemToObject(o, "translations", translations_json(pg));
	return o;
}

/* Versions ------------------------------------------------------------- */

/* The service's comparable_version: a name as a PEP 440 version, else
 * the repository's default branch, latest and stable above every real
 * version, and anything else below them all. */
static const char *comparable(const char *name)
{
	static const char *const highest[][2] = {
		{ "master", "999999" },
		{ "latest", "999998" },
		{ "stable", "999997" },
	};
	size_t i;
	int cmp;

	if (lec_version_pep440_compare(name, name, &cmp) == LEC_OK)
		return name;
	for (i = 0; i < sizeof(highest) / sizeof(highest[0]); i++)
		if (strcmp(name, highest[i][0]) == 0)
			return highest[i][1];
	return "0.01";
}

/* Where a version goes in the service's generic sort (python-packaging,
 * calver, custom-pattern): latest and stable first when the setting
 * asks, then the versions its parser reads, newest first, then the rest
 * in slug order. The semver order puts every version in the middle
 * group. */
enum { RANK_FIRST, RANK_PARSED, RANK_REST };

/* One version to sort: its place in the "-slug" order breaks ties, as
 * Python's stable sort keeps it. */
struct ranked {
	const struct lec_version *v;
	const char *key;       /* what PEP 440 read, for RANK_PARSED */
	struct srv_vkey *read; /* what a pattern read instead, or NULL */
	size_t place;
	int group;             /* RANK_* */
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int cmp = 0;

	if (x->group != y->group)
		return x->group - y->group;
	if (x->group == RANK_FIRST)
		return strcmp(x->v->slug, y->v->slug);
	if (x->group == RANK_PARSED) {
		if (x->read)
			cmp = srv_vkey_compare(y->read, x->read);
		else if (lec_version_pep440_compare(y->key, x->key, &cmp) !=
			 LEC_OK)
			cmp = 0;
	}
	if (cmp != 0)
		return cmp;
	return x->place < y->place ? -1 : x->place > y->place;
}

/* Descending by slug (the list the service starts from). */
static int by_slug(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return strcmp(y->v->slug, x->v->slug);
}

/* Place r in the group and with the key the project's sorting gives it
 * (pattern: the calver or custom pattern it is read with, else NULL for
 * PEP 440; read: room for what that reads); first: latest and stable go
 * first. */
static void rank(struct ranked *r, const char *sorting,
		 const struct srv_vpattern *pattern, struct srv_vkey *read,
		 int first)
{
	const char *slug = r->v->slug;
	int cmp;

	if (strcmp(sorting, LEC_ADDONS_SORT_SEMVER) == 0) {
		r->group = RANK_PARSED;
		r->key = comparable(r->v->verbose_name);
	} else if (first && (strcmp(slug, LEC_VERSION_LATEST) == 0 ||
			     strcmp(slug, LEC_VERSION_STABLE) == 0)) {
		r->group = RANK_FIRST;
	} else if (pattern ? srv_vpattern_read(pattern, slug, read)
			   : lec_version_pep440_compare(slug, slug, &cmp) ==
				     LEC_OK) {
		r->group = RANK_PARSED;
		r->key = slug;
		r->read = pattern ? read : NULL;
	} else {
		r->group = RANK_REST;
	}
}

/* Sort the n versions of r by the project's sorting, when it is one that
 * reorders them (alphabetically keeps the slug order). A custom pattern
 * that is none reads no name: every version but latest and stable then
 * stays in slug order, as the service's would if its pattern matched
 * nothing. */
static void sort_ranked(struct ranked *r, size_t n, const char *sorting,
			const char *custom, int first)
{
	struct srv_vpattern *pattern = NULL;
	struct srv_vkey *read = NULL;
	int by_pattern = strcmp(sorting, LEC_ADDONS_SORT_CALVER) == 0 ||
			 strcmp(sorting, LEC_ADDONS_SORT_CUSTOM) == 0;
	size_t i;

	if (strcmp(sorting, LEC_ADDONS_SORT_SEMVER) != 0 &&
	    strcmp(sorting, LEC_ADDONS_SORT_PYTHON) != 0 && !by_pattern)
		return;
	if (by_pattern &&
	    (read = calloc(n + 1, sizeof(*read))) == NULL)
		return;
	if (by_pattern)
		pattern = srv_vpattern_new(
			strcmp(sorting, LEC_ADDONS_SORT_CALVER) == 0
				? SRV_VPATTERN_CALVER
				: (custom ? custom : ""));
	for (i = 0; i < n; i++) {
		r[i].place = i;
		rank(&r[i], sorting, pattern, read ? &read[i] : NULL,
		     first);
		if (by_pattern && pattern == NULL && r[i].group == RANK_PARSED)
			r[i].group = RANK_REST;
	}
	qsort(r, n, sizeof(*r), by_rank);
	srv_vpattern_free(pattern);
	free(read);
}

/* Whether the flyout lists v: built, not hidden, one the requester may
 * read (the list asked for active, non pull-request versions). */
static int listed(struct addons_page *pg, const struct lec_version *v,
		  const char *only)
{
	if (!v->built || v->hidden || (only && strcmp(v->slug, only) != 0))
		return 0;
	return docs_can_read(pg->c, pg->at.project, v);
}

/* The active versions in the flyout's order: a single-version project's
 * default version alone; else by slug descending, then by the project's
 * sorting (alphabetically keeps the slug order). */
static cJSON *active_json(struct addons_page *pg)
{
	const struct lec_project *p = pg->at.project;
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	struct ranked *r = NULL;
	cJSON *out = cJSON_CreateArray();
	const char *only = NULL, *sorting;
	size_t i, n = 0;

	filter.active = LEC_FILTER_TRUE;
	filter.built = LEC_FILTER_TRUE;
	filter.external = LEC_FILTER_FALSE;
	if (p->versioning_scheme &&
	    strcmp(p->versioning_scheme, DOCS_SCHEME_SINGLE) == 0)
		only = p->default_version;
	if (lec_version_list(pg->c->store, p->id, &filter, NULL, &list) !=
		    LEC_OK ||
	    (r = calloc(list.len + 1, sizeof(*r))) == NULL)
		goto done;
	for (i = 0; i < list.len; i++)
		if (listed(pg, &list.items[i], only))
			r[n++].v = &list.items[i];
	qsort(r, n, sizeof(*r), by_slug);
	sorting = pg->settings.text[LEC_ADDONS_FLYOUT_SORTING];
	if (!only && sorting)
		sort_ranked(r, n, sorting,
			    pg->settings.text[LEC_ADDONS_FLYOUT_SORTING_CUSTOM_PATTERN],
			    on(pg, LEC_ADDONS_FLYOUT_SORTING_LATEST_STABLE_AT_BEGINNING));
	for (i = 0; out && i < n; i++)
		cJSON_AddItemToArray(out,
				     without(srv_v3_version(pg->c->req, p,
							    r[i].v, NULL),
					     links_drop));
done:
	free(r);
	lec_version_list_dispose(&list);
	return out;
}

static cJSON *versions_json(struct addons_page *pg)
{
	cJSON *o = cJSON_CreateObject();

	if (pg->at.version)
		cJSON_AddItemToObject(
			o, "current",
			without(srv_v3_version(pg->c->req, pg->at.project,
					       pg->at.version, NULL),
				links_drop));
	else
		cJSON_AddNullToObject(o, "current");
	cJSON_AddItemToObject(o, "active", active_json(pg));
	return o;
}

/* The version's newest finished, successful build, or null. */
static cJSON *build_json(struct addons_page *pg)
{
	struct lec_build_list list = { 0 };
	struct lec_page page = { ADDONS_BUILDS_SCAN, 0 };
	cJSON *o = NULL;
	size_t i;

	if (pg->at.version &&
	    lec_build_list(pg->c->store, pg->at.project->id,
			   pg->at.version->id, NULL, &page, &list) == LEC_OK)
		for (i = 0; i < list.len && o == NULL; i++)
			if (list.items[i].state == LEC_BUILD_STATE_FINISHED &&
			    list.items[i].success)
				o = without(srv_v3_build(pg->c->req,
							 pg->at.project,
							 &list.items[i],
							 pg->at.version, NULL),
					    build_drop);
	lec_build_list_dispose(&list);
	return o ? o : cJSON_CreateNull();
}

/* The addons section ---------------------------------------------------- */

static void add_text(cJSON *o, const char *key, const char *text)
{
	if (text)
		cJSON_AddStringToObject(o, key, text);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *section(cJSON *addons, const char *name, int enabled)
{
	cJSON *o = cJSON_AddObjectToObject(addons, name);

	cJSON_AddBoolToObject(o, "enabled", enabled);
	return o;
}

static void add_hotkey(cJSON *hotkeys, const char *name, const char *key)
{
	cJSON *o = section(hotkeys, name, 1);

	cJSON_AddStringToObject(o, "trigger", key);
}

/* The search's filters: "Include subprojects" when the project is a
 * parent or a subproject and the setting asks for it. */
static cJSON *search_filters(struct addons_page *pg)
{
	const struct lec_project *p = pg->at.project;
	struct lec_subproject_list subs = { 0 };
	struct lec_page one = { 1, 0 };
	cJSON *filters = cJSON_CreateArray(), *f;
	const char *parent = p->superproject_slug;
	char *query = NULL;

	if (!pg->at.version ||
	    !on(pg, LEC_ADDONS_SEARCH_SHOW_SUBPROJECTS_FILTER))
		return filters;
	if (parent == NULL &&
	    lec_subproject_list(pg->c->store, p->id, LEC_VIEWER_ALL, &one,
				&subs) == LEC_OK &&
	    subs.len > 0)
		parent = p->slug;
	if (parent &&
	    asprintf(&query, "subprojects:%s/%s", parent,
		     pg->at.version->slug) >= 0 &&
	    (f = cJSON_CreateArray()) != NULL) {
		cJSON_AddItemToArray(f,
				     cJSON_CreateString("Include subprojects"));
		cJSON_AddItemToArray(f, cJSON_CreateString(query));
		cJSON_AddItemToArray(f, cJSON_CreateTrue());
		cJSON_AddItemToArray(filters, f);
	}
	free(query);
	lec_subproject_list_dispose(&subs);
	return filters;
}

/* doc_diff, when the page was named by its URL: the same file in the
 * base version (the setting's, else latest). */
static void add_doc_diff(struct addons_page *pg, cJSON *addons)
{
	const char *base = pg->settings.text[LEC_ADDONS_OPTIONS_BASE_VERSION];
	cJSON *o = section(addons, "doc_diff", on(pg, LEC_ADDONS_DOC_DIFF_ENABLED));
	char *root = NULL, *url = NULL;

	if (pg->filename &&
	    (root = srv_docs_url(pg->c->req, pg->at.project,
				 base ? base : LEC_VERSION_LATEST)) != NULL &&
	    asprintf(&url, "%s%s", root, pg->filename + 1) < 0)
		url = NULL;
	add_text(o, "base_url", url);
	cJSON_AddBoolToObject(o, "inject_styles", 1);
	free(root);
	free(url);
}

static cJSON *addons_json(struct addons_page *pg, int with_url)
{
	const struct lec_addons *s = &pg->settings;
	cJSON *a = cJSON_CreateObject(), *o, *hot;
	char *filter = NULL;

	o = cJSON_AddObjectToObject(a, "options");
	cJSON_AddBoolToObject(o, "load_when_embedded",
			      on(pg, LEC_ADDONS_OPTIONS_LOAD_WHEN_EMBEDDED));
	add_text(o, "root_selector", s->text[LEC_ADDONS_OPTIONS_ROOT_SELECTOR]);
	/* Lectern keeps no analytics and runs no project scripts. */
	add_text(section(a, "analytics", 0), "code", NULL);
	o = section(a, "notifications", on(pg, LEC_ADDONS_NOTIFICATIONS_ENABLED));
	cJSON_AddBoolToObject(o, "show_on_latest",
			      on(pg, LEC_ADDONS_NOTIFICATIONS_SHOW_ON_LATEST));
	cJSON_AddBoolToObject(o, "show_on_non_stable",
			      on(pg, LEC_ADDONS_NOTIFICATIONS_SHOW_ON_NON_STABLE));
	cJSON_AddBoolToObject(o, "show_on_external",
			      on(pg, LEC_ADDONS_NOTIFICATIONS_SHOW_ON_EXTERNAL));
	o = section(a, "flyout", on(pg, LEC_ADDONS_FLYOUT_ENABLED));
	add_text(o, "position", s->text[LEC_ADDONS_FLYOUT_POSITION]);
	add_text(section(a, "customscript", 0), "src", NULL);
	o = section(a, "search", on(pg, LEC_ADDONS_SEARCH_ENABLED));
	cJSON_AddItemToObject(o, "filters", search_filters(pg));
	if (asprintf(&filter, "project:%s%s%s", pg->at.project->slug,
		     pg->at.version ? "/" : "",
		     pg->at.version ? pg->at.version->slug : "") < 0)
		filter = NULL;
	add_text(o, "default_filter", filter);
	free(filter);
	o = section(a, "linkpreviews", on(pg, LEC_ADDONS_LINKPREVIEWS_ENABLED));
	add_text(o, "selector", s->text[LEC_ADDONS_LINKPREVIEWS_SELECTOR]);
	hot = section(a, "hotkeys", on(pg, LEC_ADDONS_HOTKEYS_ENABLED));
	add_hotkey(hot, "doc_diff", "KeyD");
	add_hotkey(hot, "search", "Slash");
	o = section(a, "filetreediff", on(pg, LEC_ADDONS_FILETREEDIFF_ENABLED));
	if (pg->at.version && on(pg, LEC_ADDONS_FILETREEDIFF_ENABLED))
		docs_addons_filetreediff(
			pg->c, pg->at.project, pg->at.version,
			s->text[LEC_ADDONS_OPTIONS_BASE_VERSION]
				? s->text[LEC_ADDONS_OPTIONS_BASE_VERSION]
				: LEC_VERSION_LATEST,
			o);
	if (with_url)
		add_doc_diff(pg, a);
	return a;
}

static cJSON *v1_json(struct addons_page *pg, int with_url)
{
	cJSON *o = cJSON_CreateObject(), *rtd, *x;

	cJSON_AddStringToObject(o, "api_version", "1");
	cJSON_AddItemToObject(o, "projects", projects_json(pg));
	cJSON_AddItemToObject(o, "versions", versions_json(pg));
	x = cJSON_AddObjectToObject(o, "builds");
	cJSON_AddItemToObject(x, "current", build_json(pg));
	x = cJSON_AddObjectToObject(o, "domains");
	cJSON_AddStringToObject(x, "dashboard", srv_docs_domain(pg->c->req));
	rtd = cJSON_AddObjectToObject(o, "readthedocs");
	add_text(cJSON_AddObjectToObject(rtd, "analytics"), "code", NULL);
	add_text(cJSON_AddObjectToObject(rtd, "resolver"), "filename",
		 pg->filename);
	cJSON_AddItemToObject(o, "addons", addons_json(pg, with_url));
	return o;
}

const char *docs_addons_api_error(const char *api, long *major)
{
	if (api == NULL)
		return NEED_API_VERSION;
	if ((*major = api_major(api)) < 0)
		return API_VERSION_INVALID;
	if (*major != 1 && *major != 2)
		return API_VERSION_UNSUPPORTED;
	return NULL;
}

cJSON *docs_addons_v2(void)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "api_version", "2");
	cJSON_AddStringToObject(o, "comment", "Undefined yet. Use v1 for now");
	return o;
}

int docs_addons(struct docs_ctx *c)
{
	struct docs_addons_query *q = malloc(sizeof(*q));
	const struct lec_user *user;
	struct addons_page pg;
	const char *message;
	long major;
	cJSON *json;

	if (q == NULL)
		return srv_respond_internal(c->res, "out of memory");
	docs_addons_query_read(c->query[0] ? c->query + 1 : NULL, q);
	memset(&pg, 0, sizeof(pg));
	/* The service checks its parameters before anything else, then the
	 * permissions (the 404s), then the api-version. */
	if (!q->url && (!q->project || !q->version)) {
		bad_request(c->res, DOCS_ADDONS_NEED_SLUGS);
		goto done;
	}
	user = docs_user(c);
	pg.c = c;
	pg.viewer = user ? user->id : LEC_VIEWER_ANONYMOUS;
	if (resolve(&pg, q) < 0)
		goto done;
	if ((message = docs_addons_api_error(q->api, &major)) != NULL)
		bad_request(c->res, message);
	else if ((json = major == 1 ? v1_json(&pg, q->url != NULL)
				    : docs_addons_v2()) == NULL)
		srv_respond_internal(c->res, "out of memory");
	else {
		/* What one user may read must not be kept by a shared
		 * cache. */
		if (c->private_content)
			srv_response_header(c->res, "Cache-Control",
					    "private");
		srv_respond_json(c->res, 200, json, SRV_JSON_AS_BUILT);
	}
done:
	free(pg.filename);
	lec_addons_dispose(&pg.settings);
	srv_docs_url_dispose(&pg.at);
	free(q);
	return c->res->status;
}

int docs_addons_script(struct docs_ctx *c)
{
	char *body = malloc(docs_addons_js_len + 1);

	if (body == NULL)
		return srv_respond_internal(c->res, "out of memory");
	memcpy(body, docs_addons_js, docs_addons_js_len);
	/* A reader's browser asks again after a while, and the ETag makes
	 * that cheap; a new lectern's script is seen within minutes. */
	srv_response_header(c->res, "Cache-Control", "max-age=600");
	return docs_send_text(c, body, docs_addons_js_len,
			      "application/javascript", NULL, "");
}
