/*
 * Lectern's offline mirrors over the API (docs/api.md "Mirrors"; engine
 * mirror.h): the client that downloads another instance's docs creates
 * the local mirror, uploads its pages one by one and publishes each
 * version's page list. The engine never reaches the network itself.
 *
 *   POST /api/v3/mirrors/                       create, or find, a mirror
 *   GET  /api/v3/projects/<p>/mirror/<v>/       the served pages' ETags
 *   PUT  /api/v3/projects/<p>/mirror/<v>/pages/?path=a/b.html   a page
 *   POST /api/v3/projects/<p>/mirror/<v>/       publish {"pages": {...}}
 *
 * Creating needs a token (the mirror is the requester's project) and the
 * rights of an import: in the business edition an organization the user
 * owns (and optional teams), refused exactly as POST /api/v3/projects/
 * refuses it, since a mirror publishes pages on the docs domain as any
 * project does. The others are the mirror's admins', as every write under
 * a project is.
 */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lectern/mirror.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "v3.h"

/* The project of the URL, which must be a mirror; fills res otherwise. */
static int load_mirror(struct srv_request *req, struct srv_response *res,
		       struct srv_parent *parent)
{
	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, parent) < 0)
		return -1;
	if (parent->project->mirror_source)
		return 0;
	srv_respond_detail(res, 400, "This project is not a mirror.");
	srv_v3_parent_dispose(parent);
	return -1;
}

int srv_v3_mirrors_create(struct srv_request *req, struct srv_response *res)
{
	struct lec_mirror_new in = { 0 };
	struct lec_project *p = NULL;
	struct lec_org *org = NULL;
	const char **teams = NULL;
	size_t nteams = 0;
	int business = srv_business(req);
	cJSON *body;
	int created = 0, rc;

	if ((body = srv_parse_body(req, res)) == NULL)
		return res->status;
	if (srv_body_string(body, "source", "source", SRV_FIELD_REQUIRED,
			    &in.source, res) < 0 ||
	    srv_body_string(body, "project", "project", SRV_FIELD_REQUIRED,
			    &in.project, res) < 0 ||
	    srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED,
			    &in.name, res) < 0 ||
	    srv_body_string(body, "language", "language", 0, &in.language,
			    res) < 0 ||
	    (business &&
	     srv_v3_org_read(req, body, &org, &teams, &nteams, res) < 0))
		goto done;
	rc = lec_mirror_ensure(srv_store(req), &in, srv_viewer_id(req), &p,
			       &created);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	if (created && business &&
	    srv_v3_org_join(req, org, p->id, teams, nteams, res) < 0) {
		lec_project_delete(srv_store(req), p->id);
		goto done;
	}
	/* An existing mirror is shown only to those who may refresh it. */
	if (!created &&
	    lec_project_is_admin(srv_store(req), p->id, srv_viewer_id(req)) !=
		    1) {
		srv_respond_detail(res, 403,
				   "Another user's project mirrors this one.");
		goto done;
	}
	srv_respond_json(res, created ? 201 : 200,
			 srv_v3_project(req, p, NULL, 0), SRV_JSON_SORTED);
done:
	free(teams);
	lec_org_free(org);
	lec_project_free(p);
	cJSON_Delete(body);
	return res->status;
}

int srv_v3_mirror_pages(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	char *json = NULL;
	cJSON *o, *pages;
	int rc;

	if (load_mirror(req, res, &parent) < 0)
		return res->status;
	rc = lec_mirror_etags(srv_data_dir(req), parent.project,
			      req->params[1], &json);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
	} else if ((pages = cJSON_Parse(json)) == NULL) {
		srv_respond_internal(res, "a mirror's page list does not parse");
	} else {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "pages", pages);
		srv_respond_json(res, 200, o, SRV_JSON_SORTED);
	}
	lec_mirror_free_string(json);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

int srv_v3_mirror_stage(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	const char *path = srv_query(req, "path");
	int rc;

	if (load_mirror(req, res, &parent) < 0)
		return res->status;
	if (path == NULL) {
		srv_respond_field_error(res, "path", "This field is required.");
	} else {
		rc = lec_mirror_stage(srv_data_dir(req), parent.project,
				      req->params[1], path, req->body,
				      req->body_len);
		if (rc < 0)
			srv_respond_engine_error(res, rc);
		else
			srv_respond_empty(res, 204);
	}
	srv_v3_parent_dispose(&parent);
	return res->status;
}

int srv_v3_mirror_publish(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	struct lec_mirror_report r = { 0 };
	struct lec_mirror_page *pages = NULL;
	const cJSON *list = NULL, *item;
	cJSON *body = NULL, *o;
	size_t n = 0;
	int rc;

	if (load_mirror(req, res, &parent) < 0)
		return res->status;
	if ((body = srv_parse_body(req, res)) == NULL ||
	    srv_body_object(body, "pages", "pages", SRV_FIELD_REQUIRED, &list,
			    res) < 0)
		goto done;
	if (cJSON_GetArraySize(list) > LEC_MIRROR_PAGES_MAX) {
		srv_respond_field_error(res, "pages", "Too many pages.");
		goto done;
	}
	pages = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*pages));
	if (pages == NULL) {
		srv_respond_internal(res, "out of memory");
		goto done;
	}
	cJSON_ArrayForEach(item, list) {
		if (!cJSON_IsString(item)) {
			srv_respond_field_error(res, "pages",
						"Each page maps to its ETag, a "
						"string (\"\" for none).");
			goto done;
		}
		pages[n].path = item->string;
		pages[n++].etag = item->valuestring;
	}
	rc = lec_mirror_publish(srv_store(req), srv_data_dir(req),
				parent.project, req->params[1], pages, n,
				srv_keep_builds(req), &r);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "build", (double)r.build_id);
	cJSON_AddNumberToObject(o, "uploaded", (double)r.uploaded);
	cJSON_AddNumberToObject(o, "unchanged", (double)r.unchanged);
	cJSON_AddNumberToObject(o, "indexed", (double)r.indexed);
	srv_respond_json(res, 200, o, SRV_JSON_SORTED);
done:
	free(pages);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}
