/*
 * v3 builds: a project's builds and a version's builds (list and detail),
 * and triggering a build of a version (contract §4.3, §4.4; behaviour notes
 * §1.6–§1.8, §2).
 *
 * Visibility follows the service's Build queryset (notes §1.7): a build is
 * public when its version is public and its project is public (a
 * pull-request build: when the project's external builds are public), and
 * the project's admins see every build. A build whose version was deleted
 * is its admins' only. Builds are a flex serializer: fields/omit apply and
 * expand=config is allowed in lists too.
 */
#include <string.h>

#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "v3.h"

#define NO_BUILD "No Build matches the given query."
#define NO_VERSION "No Version matches the given query."

/* Builds read per query when a non-admin's project list must drop builds
 * of versions they may not see: the engine's list knows nothing of
 * version privacy, and the scan must not hold a project's whole history
 * in memory. */
#define BUILD_SCAN_CHUNK 200

static int is_public(const char *privacy_level)
{
	return strcmp(privacy_level, "public") == 0;
}

/* Whether the requester sees the builds of version v (NULL: a deleted
 * version) of project p; admin is whether they administer p. */
static int build_visible(const struct lec_project *p,
			 const struct lec_version *v, int admin)
{
	if (admin)
		return 1;
	if (v == NULL || !is_public(p->privacy_level))
		return 0;
	if (v->type == LEC_VERSION_EXTERNAL)
		return is_public(p->external_builds_privacy_level);
	return is_public(v->privacy_level);
}

/* 1, 0, or an engine error code. */
static int viewer_is_admin(struct srv_request *req, int64_t project_id)
{
	if (req->user == NULL)
		return 0;
	return lec_project_is_admin(srv_store(req), project_id, req->user->id);
}

static void read_filter(const struct srv_request *req,
			struct lec_build_filter *f)
{
	f->commit = srv_query(req, "commit");
	switch (srv_query_bool(req, "running")) {
	case 1:
		f->running = LEC_FILTER_TRUE;
		break;
	case 0:
		f->running = LEC_FILTER_FALSE;
		break;
	default:
		f->running = LEC_FILTER_ANY;
		break;
	}
}

/* The version with this id among a project's versions, or NULL (a
 * deleted one). */
static const struct lec_version *
find_version(const struct lec_version_list *versions, int64_t id)
{
	size_t i;

	for (i = 0; id && i < versions->len; i++)
		if (versions->items[i].id == id)
			return &versions->items[i];
	return NULL;
}

static void add_build(struct srv_request *req, cJSON *results,
		      const struct lec_project *p, const struct lec_build *b,
		      const struct lec_version *v, const struct srv_flex *flex)
{
	cJSON *item = srv_v3_build(req, p, b, v ? v->slug : NULL, flex);

	srv_flex_apply(flex, item);
	cJSON_AddItemToArray(results, item);
}

/* What one list request reads: the project (NULL when unknown) and, for
 * a project-wide list, every version of it to name each build's. */
struct build_scope {
	struct lec_project *p;
	struct lec_version_list versions;
	int admin;
};

static int scope_load(struct srv_request *req, struct build_scope *s)
{
	struct lec_store *store = srv_store(req);
	int rc;

	rc = lec_project_get(store, req->params[0], &s->p);
	if (rc == LEC_ENOTFOUND)
		return LEC_OK;
	if (rc < 0 || (rc = s->admin = viewer_is_admin(req, s->p->id)) < 0)
		return rc;
	return lec_version_list(store, s->p->id, NULL, NULL, &s->versions);
}

static void scope_dispose(struct build_scope *s)
{
	lec_version_list_dispose(&s->versions);
	lec_project_free(s->p);
}

/* A page of a project's builds for its admin: every build, paged by the
 * engine. */
static int admin_page(struct srv_request *req, const struct build_scope *s,
		      const struct lec_build_filter *f,
		      const struct lec_page *page, const struct srv_flex *flex,
		      cJSON *results, size_t *total)
{
	struct lec_build_list list = { 0 };
	size_t i;
	int rc;

	rc = lec_build_list(srv_store(req), s->p->id, 0, f, page, &list);
	for (i = 0; rc == LEC_OK && i < list.len; i++)
		add_build(req, results, s->p, &list.items[i],
			  find_version(&s->versions, list.items[i].version_id),
			  flex);
	*total = list.total;
	lec_build_list_dispose(&list);
	return rc;
}

/* A page of a project's builds for anyone else: the builds are read a
 * chunk at a time, the visible ones counted, and those on the page kept. */
static int visible_page(struct srv_request *req, const struct build_scope *s,
			const struct lec_build_filter *f,
			const struct lec_page *page,
			const struct srv_flex *flex, cJSON *results,
			size_t *total)
{
	struct lec_page chunk = { BUILD_SCAN_CHUNK, 0 };
	struct lec_build_list list = { 0 };
	size_t i, seen = 0;
	int rc;

	do {
		lec_build_list_dispose(&list);
		rc = lec_build_list(srv_store(req), s->p->id, 0, f, &chunk,
				    &list);
		for (i = 0; rc == LEC_OK && i < list.len; i++) {
			const struct lec_version *v = find_version(
				&s->versions, list.items[i].version_id);

			if (!build_visible(s->p, v, 0))
				continue;
			if (seen >= page->offset &&
			    seen - page->offset < page->limit)
				add_build(req, results, s->p, &list.items[i], v,
					  flex);
			seen++;
		}
		chunk.offset += BUILD_SCAN_CHUNK;
	} while (rc == LEC_OK && list.len == BUILD_SCAN_CHUNK);
	lec_build_list_dispose(&list);
	*total = seen;
	return rc;
}

int srv_v3_builds_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_build_filter filter = { 0 };
	struct build_scope scope = { 0 };
	struct srv_flex flex;
	struct lec_page page;
	cJSON *results;
	size_t total = 0;
	int rc;

	if (srv_store(req) == NULL)
		return srv_respond_internal(res, "no store");
	read_filter(req, &filter);
	if (srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	results = cJSON_CreateArray();
	rc = scope_load(req, &scope);
	/* An unknown or private project lists nothing (notes §1.7). */
	if (rc == LEC_OK && scope.p && scope.admin)
		rc = admin_page(req, &scope, &filter, &page, &flex, results,
				&total);
	else if (rc == LEC_OK && scope.p && is_public(scope.p->privacy_level))
		rc = visible_page(req, &scope, &filter, &page, &flex, results,
				  &total);
	if (rc < 0) {
		cJSON_Delete(results);
		srv_respond_engine_error(res, rc);
	} else {
		srv_respond_json(res, 200,
				 srv_page_envelope(req, &page, total, results),
				 SRV_JSON_SORTED);
	}
	scope_dispose(&scope);
	srv_flex_dispose(&flex);
	return res->status;
}

/* The project of the URL and its version named by params[1]; *v stays
 * NULL when either is unknown. */
static int load_version(struct srv_request *req, struct lec_project **p,
			struct lec_version **v)
{
	struct lec_store *store = srv_store(req);
	int rc;

	*p = NULL;
	*v = NULL;
	rc = lec_project_get(store, req->params[0], p);
	if (rc == LEC_OK)
		rc = lec_version_get(store, (*p)->id, req->params[1], v);
	return rc == LEC_ENOTFOUND ? LEC_OK : rc;
}

int srv_v3_version_builds_list(struct srv_request *req,
			       struct srv_response *res)
{
	struct lec_build_filter filter = { 0 };
	struct lec_build_list list = { 0 };
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	struct srv_flex flex;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if (srv_store(req) == NULL)
		return srv_respond_internal(res, "no store");
	read_filter(req, &filter);
	if (srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	/* An unknown version, or one whose builds are hidden from the
	 * requester, lists nothing. */
	if ((rc = load_version(req, &p, &v)) == LEC_OK && v) {
		int visible = build_visible(p, v, 0)
				      ? 1
				      : viewer_is_admin(req, p->id);

		if (visible < 0)
			rc = visible;
		else if (visible)
			rc = lec_build_list(srv_store(req), p->id, v->id,
					    &filter, &page, &list);
	}
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++)
		add_build(req, results, p, &list.items[i], v, &flex);
	srv_respond_json(res, 200,
			 srv_page_envelope(req, &page, list.total, results),
			 SRV_JSON_SORTED);
done:
	lec_build_list_dispose(&list);
	lec_version_free(v);
	lec_project_free(p);
	srv_flex_dispose(&flex);
	return res->status;
}

/* A build detail's objects: the project, the build's version (NULL when
 * deleted) and the build. */
struct build_detail {
	struct lec_project *p;
	struct lec_version *v;
	struct lec_build *b;
};

static void detail_dispose(struct build_detail *d)
{
	lec_build_free(d->b);
	lec_version_free(d->v);
	lec_project_free(d->p);
}

/* Find build id of the URL's project, visible to the requester;
 * by_version: the URL names a version (params[1]) and the build must be
 * one of its. LEC_ENOTFOUND covers every way it is missing or hidden. */
static int detail_find(struct srv_request *req, struct build_detail *d,
		       int64_t id, int by_version)
{
	struct lec_store *store = srv_store(req);
	int rc;

	if ((rc = lec_project_get(store, req->params[0], &d->p)) < 0 ||
	    (rc = lec_build_get_in_project(store, d->p->id, id, &d->b)) < 0)
		return rc;
	if (by_version) {
		if ((rc = lec_version_get(store, d->p->id, req->params[1],
					  &d->v)) < 0)
			return rc;
		if (d->v->id != d->b->version_id)
			return LEC_ENOTFOUND;
	} else if (d->b->version_id &&
		   (rc = lec_version_get_by_id(store, d->b->version_id,
					       &d->v)) < 0 &&
		   rc != LEC_ENOTFOUND) {
		return rc;
	}
	if (build_visible(d->p, d->v, 0))
		return LEC_OK;
	rc = viewer_is_admin(req, d->p->id);
	return rc == 1 ? LEC_OK : rc == 0 ? LEC_ENOTFOUND : rc;
}

static int build_detail(struct srv_request *req, struct srv_response *res,
			const char *id_text, int by_version)
{
	struct build_detail d = { 0 };
	struct srv_flex flex;
	int64_t id = srv_param_id(id_text);
	int rc;

	if (srv_store(req) == NULL)
		return srv_respond_internal(res, "no store");
	/* A non-integer id fails the lookup itself (notes §0.4). */
	if (id < 0)
		return srv_respond_detail(res, 404, "Not found.");
	rc = detail_find(req, &d, id, by_version);
	if (rc == LEC_ENOTFOUND) {
		srv_respond_detail(res, 404, NO_BUILD);
	} else if (rc < 0) {
		srv_respond_engine_error(res, rc);
	} else if (srv_flex_parse(req, &flex, res) == 0) {
		cJSON *o = srv_v3_build(req, d.p, d.b, d.v ? d.v->slug : NULL,
					&flex);

		srv_flex_apply(&flex, o);
		srv_respond_json(res, 200, o, SRV_JSON_SORTED);
		srv_flex_dispose(&flex);
	}
	detail_dispose(&d);
	return res->status;
}

int srv_v3_build_detail(struct srv_request *req, struct srv_response *res)
{
	return build_detail(req, res, req->params[1], 0);
}

int srv_v3_version_build_detail(struct srv_request *req,
				struct srv_response *res)
{
	return build_detail(req, res, req->params[2], 1);
}

int srv_v3_build_trigger(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	cJSON *o;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	/* The body is ignored. Any version may be built, pull-request ones
	 * too; the engine cancels the version's unfinished builds. */
	rc = load_version(req, &p, &v);
	if (rc == LEC_OK && v == NULL) {
		srv_respond_detail(res, 404, NO_VERSION);
	} else if (rc < 0 || (rc = lec_build_trigger(store, p->id, v->id, NULL,
						     &b, NULL)) < 0) {
		srv_respond_engine_error(res, rc);
	} else {
		/* Built without the request's fields/omit/expand (§1.3). */
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "build",
				      srv_v3_build(req, p, b, v->slug, NULL));
		cJSON_AddItemToObject(o, "project",
				      srv_v3_project(req, p, NULL, 0));
		cJSON_AddBoolToObject(o, "triggered", 1);
		cJSON_AddItemToObject(o, "version",
				      srv_v3_version(req, p, v, NULL));
		srv_respond_json(res, 202, o, SRV_JSON_SORTED);
	}
	lec_build_free(b);
	lec_version_free(v);
	lec_project_free(p);
	return res->status;
}

/* POST /api/v3/projects/<p>/builds/<id>/cancel/ — Lectern's addition (the
 * service's v3 has no cancel route): stop a queued or running build. 202
 * with the cancelled Build; 400 when it had already ended. */
int srv_v3_build_cancel(struct srv_request *req, struct srv_response *res)
{
	struct build_detail d = { 0 };
	struct lec_store *store = srv_store(req);
	int64_t id = srv_param_id(req->params[1]);
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	if (id < 0)
		return srv_respond_detail(res, 404, "Not found.");
	rc = detail_find(req, &d, id, 0);
	if (rc == LEC_ENOTFOUND) {
		srv_respond_detail(res, 404, NO_BUILD);
	} else if (rc < 0) {
		srv_respond_engine_error(res, rc);
	} else if ((rc = lec_build_cancel(store, d.b->id)) == LEC_EINVALID) {
		srv_respond_detail(res, 400, "This build has already finished.");
	} else if (rc < 0) {
		srv_respond_engine_error(res, rc);
	} else {
		lec_build_free(d.b);
		d.b = NULL;
		if ((rc = lec_build_get(store, id, &d.b)) < 0)
			srv_respond_engine_error(res, rc);
		else
			srv_respond_json(res, 202,
					 srv_v3_build(req, d.p, d.b,
						      d.v ? d.v->slug : NULL,
						      NULL),
					 SRV_JSON_SORTED);
	}
	detail_dispose(&d);
	return res->status;
}
