/*
 * v3 builds: a project's builds and a version's builds (list and detail),
 * and triggering a build of a version (contract §4.3, §4.4; behaviour notes
 * §1.6–§1.8, §2).
 *
 * Visibility follows the service's Build queryset (notes §1.7): the
 * project must be one the requester sees (the one parent lookup of
 * v3_common.c), and within it a build is visible when its version is
 * (srv_v3_version_visible): admins see every build, others the builds of
 * public versions (a pull-request build: when the project's external
 * builds are public). A build whose version was deleted is its admins'
 * only. Builds are a flex serializer: fields/omit apply and
 * expand=config is allowed in lists too.
 */

#include "body.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "quota.h"
#include "v3.h"

#define NO_BUILD "No Build matches the given query."

/* Builds read per query when a non-admin's project list must drop builds
 * of versions they may not see: the engine's list knows nothing of
 * version privacy, and the scan must not hold a project's whole history
 * in memory. */
#define BUILD_SCAN_CHUNK 200

static void read_filter(const struct srv_request *req,
			struct lec_build_filter *f)
{
	f->commit = srv_query(req, "commit");
	f->running = srv_query_filter(req, "running");
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

static void add_build(struct srv_v3_fill *f, const struct lec_build *b,
		      const struct lec_version *v)
{
	cJSON *item = srv_v3_build(f->req, f->parent->project, b, v, f->flex);

	srv_flex_apply(f->flex, item);
	cJSON_AddItemToArray(f->results, item);
}

/* A page of a project's builds for its admin: every build, paged by the
 * engine. */
static int admin_page(struct srv_v3_fill *f,
		      const struct lec_version_list *versions,
		      const struct lec_build_filter *filter)
{
	struct lec_build_list list = { 0 };
	size_t i;
	int rc;

	rc = lec_build_list(srv_store(f->req), f->parent->project->id, 0,
			    filter, f->page, &list);
	for (i = 0; rc == LEC_OK && i < list.len; i++)
		add_build(f, &list.items[i],
			  find_version(versions, list.items[i].version_id));
	f->total = list.total;
	lec_build_list_dispose(&list);
	return rc;
}

/* A page of a project's builds for anyone else: the builds are read a
 * chunk at a time, the visible ones counted, and those on the page kept. */
static int visible_page(struct srv_v3_fill *f,
			const struct lec_version_list *versions,
			const struct lec_build_filter *filter)
{
	struct lec_store *store = srv_store(f->req);
	const struct lec_page *page = f->page;
	struct lec_page chunk = { BUILD_SCAN_CHUNK, 0 };
	struct lec_build_list list = { 0 };
	size_t i, seen = 0;
	int rc;

	do {
		lec_build_list_dispose(&list);
		rc = lec_build_list(store, f->parent->project->id, 0, filter,
				    &chunk, &list);
		for (i = 0; rc == LEC_OK && i < list.len; i++) {
			const struct lec_version *v = find_version(
				versions, list.items[i].version_id);

			if (!srv_v3_version_visible(store, f->parent, v))
				continue;
			if (seen >= page->offset &&
			    seen - page->offset < page->limit)
				add_build(f, &list.items[i], v);
			seen++;
		}
		chunk.offset += BUILD_SCAN_CHUNK;
	} while (rc == LEC_OK && list.len == BUILD_SCAN_CHUNK);
	lec_build_list_dispose(&list);
	f->total = seen;
	return rc;
}

/* The project's builds; every version of it is read to name each build's
 * and to decide which builds a non-admin sees. */
static int fill_project_builds(struct srv_v3_fill *f)
{
	struct lec_build_filter filter = { 0 };
	struct lec_version_list versions = { 0 };
	int rc;

	read_filter(f->req, &filter);
	rc = lec_version_list(srv_store(f->req), f->parent->project->id, NULL,
			      NULL, &versions);
	if (rc == LEC_OK)
		rc = f->parent->admin ? admin_page(f, &versions, &filter)
				      : visible_page(f, &versions, &filter);
	lec_version_list_dispose(&versions);
	if (rc < 0)
		return srv_respond_engine_error(f->res, rc), -1;
	return 0;
}

/* The builds of the version of the URL, which the parent lookup has found
 * visible: all of them are. */
static int fill_version_builds(struct srv_v3_fill *f)
{
	struct lec_build_filter filter = { 0 };
	struct lec_build_list list = { 0 };
	size_t i;
	int rc;

	read_filter(f->req, &filter);
	rc = lec_build_list(srv_store(f->req), f->parent->project->id,
			    f->parent->version->id, &filter, f->page, &list);
	if (rc < 0)
		return srv_respond_engine_error(f->res, rc), -1;
	for (i = 0; i < list.len; i++)
		add_build(f, &list.items[i], f->parent->version);
	f->total = list.total;
	lec_build_list_dispose(&list);
	return 0;
}

SRV_V3_LIST(srv_v3_builds_list, .parent = SRV_PARENT_PROJECT, .flex = 1,
	    .fill = fill_project_builds)

SRV_V3_LIST(srv_v3_version_builds_list, .parent = SRV_PARENT_BUILDS_VERSION,
	    .flex = 1, .fill = fill_version_builds)

/* A build detail's objects: the parent (project, and the version when the
 * URL names one), the build, and its version when the URL names none
 * (NULL when deleted). */
struct build_detail {
	struct srv_parent parent;
	struct lec_version *own_version;
	struct lec_build *b;
};

static void detail_dispose(struct build_detail *d)
{
	lec_build_free(d->b);
	lec_version_free(d->own_version);
	srv_v3_parent_dispose(&d->parent);
}

static const struct lec_version *detail_version(const struct build_detail *d)
{
	return d->parent.version ? d->parent.version : d->own_version;
}

/* Find build id_text of the URL's parent, visible to the requester. kind
 * says whether the URL names a version (params[1]), which the build must
 * then be one of. Returns 0, or -1 after filling res: the parent's 404,
 * "Not found." for an id that is not an integer (notes §0.4), and one
 * NO_BUILD for every way the build is missing or hidden. */
static int detail_load(struct srv_request *req, struct srv_response *res,
		       const char *id_text, enum srv_parent_kind kind,
		       struct build_detail *d)
{
	struct lec_store *store = srv_store(req);
	int64_t id;
	int rc;

	if (srv_v3_parent_load(req, res, kind, &d->parent) < 0 ||
	    srv_param_id(id_text, res, &id) < 0)
		return -1;
	rc = lec_build_get_in_project(store, d->parent.project->id, id, &d->b);
	if (rc == LEC_OK && d->parent.version &&
	    d->parent.version->id != d->b->version_id)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK && !d->parent.version && d->b->version_id) {
		rc = lec_version_get_by_id(store, d->b->version_id,
					   &d->own_version);
		if (rc == LEC_ENOTFOUND)
			rc = LEC_OK;
	}
	if (rc == LEC_OK &&
	    !srv_v3_version_visible(store, &d->parent, detail_version(d)))
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK)
		return 0;
	srv_v3_respond_error(res, rc, NO_BUILD);
	return -1;
}

static int build_detail(struct srv_request *req, struct srv_response *res,
			const char *id_text, enum srv_parent_kind kind)
{
	struct build_detail d = { 0 };
	struct srv_flex flex;

	if (detail_load(req, res, id_text, kind, &d) == 0 &&
	    srv_flex_parse(req, &flex, res) == 0) {
		const struct lec_version *v = detail_version(&d);
		cJSON *o = srv_v3_build(req, d.parent.project, d.b, v,
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
	return build_detail(req, res, req->params[1], SRV_PARENT_PROJECT);
}

int srv_v3_version_build_detail(struct srv_request *req,
				struct srv_response *res)
{
	return build_detail(req, res, req->params[2],
			    SRV_PARENT_BUILDS_VERSION);
}

/* Whether the trigger asks for a fresh build: {"fresh": true}, Lectern's
 * extension. The service reads no body here, so a body that is not a
 * JSON object is ignored as it ignores it; 1, 0, or -1 with res set (a
 * "fresh" that is not a boolean). */
static int trigger_fresh(struct srv_request *req, struct srv_response *res)
{
	cJSON *body = req->body_len > 0
			      ? cJSON_ParseWithLength(req->body, req->body_len)
			      : NULL;
	int fresh = 0;

	if (cJSON_IsObject(body) &&
	    srv_body_bool(body, "fresh", "fresh", 0, &fresh, res) < 0)
		fresh = -1;
	cJSON_Delete(body);
	return fresh;
}

int srv_v3_build_trigger(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	struct lec_build *b = NULL;
	cJSON *o;
	int rc, fresh;

	/* Any version may be built, pull-request ones too; the engine
	 * cancels the version's unfinished builds. */
	if (srv_v3_parent_load(req, res, SRV_PARENT_BUILDS_VERSION, &parent) < 0)
		return res->status;
	if (srv_quota_build(req, parent.project->id, parent.version->id,
			    res) < 0 ||
	    (fresh = trigger_fresh(req, res)) < 0) {
		srv_v3_parent_dispose(&parent);
		return res->status;
	}
	rc = fresh ? lec_build_trigger_fresh(srv_store(req),
					     parent.project->id,
					     parent.version->id, NULL, &b, NULL)
		   : lec_build_trigger(srv_store(req), parent.project->id,
				       parent.version->id, NULL, &b, NULL);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
	} else {
		/* Built without the request's fields/omit/expand (§1.3). */
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "build",
				      srv_v3_build(req, parent.project, b,
						   parent.version, NULL));
		cJSON_AddItemToObject(o, "project",
				      srv_v3_project(req, parent.project, NULL,
						     0));
		cJSON_AddBoolToObject(o, "triggered", 1);
		cJSON_AddItemToObject(o, "version",
				      srv_v3_version(req, parent.project,
						     parent.version, NULL));
		srv_respond_json(res, 202, o, SRV_JSON_SORTED);
	}
	lec_build_free(b);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

/* POST /api/v3/projects/<p>/builds/<id>/cancel/ — Lectern's addition (the
 * service's v3 has no cancel route): stop a queued or running build. 202
 * with the cancelled Build; 400 when it had already ended. */
int srv_v3_build_cancel(struct srv_request *req, struct srv_response *res)
{
	struct build_detail d = { 0 };
	struct lec_store *store = srv_store(req);
	const struct lec_version *v;
	int64_t id;
	int rc;

	if (detail_load(req, res, req->params[1], SRV_PARENT_PROJECT, &d) < 0)
		goto done;
	v = detail_version(&d);
	id = d.b->id;
	if ((rc = lec_build_cancel(store, id)) == LEC_EINVALID) {
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
					 srv_v3_build(req, d.parent.project,
						      d.b, v, NULL),
					 SRV_JSON_SORTED);
	}
done:
	detail_dispose(&d);
	return res->status;
}

int srv_v3_build_find(struct srv_request *req, struct srv_response *res,
		      const char *id_text, struct srv_parent *parent,
		      int64_t *build_id)
{
	struct build_detail d = { 0 };
	int rc = detail_load(req, res, id_text, SRV_PARENT_PROJECT, &d);

	*parent = (struct srv_parent){ 0 };
	if (rc == 0) {
		*build_id = d.b->id;
		*parent = d.parent;
		d.parent = (struct srv_parent){ 0 };
	}
	detail_dispose(&d);
	return rc;
}
