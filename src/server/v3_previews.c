/*
 * POST /api/v3/projects/<project>/previews/ {"branch": NAME}, a Lectern
 * extension for writers without a forge: a branch that is not an active
 * version is built as a pull request's version is (lectern/external.h's
 * lec_external_open_branch), served on its own host
 * (<project>--preview-<branch>.<external domain>). Answered as a build's
 * trigger is: 202 {"build", "project", "triggered", "version"}, the
 * version's urls.documentation being that host; `lectern preview-branch`
 * calls it.
 */
#include <stdlib.h>

#include "body.h"
#include "lectern/build.h"
#include "lectern/external.h"
#include "lectern/project.h"
#include "quota.h"
#include "v3.h"

/* The build the preview queued, or the one still queued for it. */
static int newest_build(struct srv_request *req, const struct lec_version *v,
			struct lec_build **out)
{
	struct lec_build_list list = { 0 };
	struct lec_page first = { 1, 0 };
	int rc = lec_build_list(srv_store(req), v->project_id, v->id, NULL,
				&first, &list);

	*out = NULL;
	if (rc == LEC_OK && list.len == 0)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_OK)
		rc = lec_build_get(srv_store(req), list.items[0].id, out);
	lec_build_list_dispose(&list);
	return rc;
}

int srv_v3_preview_create(struct srv_request *req, struct srv_response *res)
{
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	struct srv_parent parent;
	const char *branch = NULL;
	cJSON *body = NULL, *o;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	if ((body = srv_parse_body(req, res)) == NULL ||
	    srv_body_string(body, "branch", "branch", SRV_FIELD_REQUIRED,
			    &branch, res) < 0 ||
	    srv_quota_build(req, parent.project->id, 0, res) < 0)
		goto done;
	rc = lec_external_open_branch(srv_store(req), parent.project->id,
				      branch, "preview", &v, NULL);
	if (rc == LEC_ENOTFOUND)
		/* The branch is the body's, not the route's: a 400. */
		srv_respond_field_error(res, "branch", lec_error_last());
	else if (rc == LEC_OK && (rc = newest_build(req, v, &b)) < 0)
		srv_respond_engine_error(res, rc);
	else if (rc < 0)
		srv_respond_engine_error(res, rc);
	if (rc < 0)
		goto done;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "build",
			      srv_v3_build(req, parent.project, b, v, NULL));
	cJSON_AddItemToObject(o, "project",
			      srv_v3_project(req, parent.project, NULL, 0));
	cJSON_AddBoolToObject(o, "triggered", 1);
	cJSON_AddItemToObject(o, "version",
			      srv_v3_version(req, parent.project, v, NULL));
	srv_respond_json(res, 202, o, SRV_JSON_SORTED);
done:
	lec_build_free(b);
	lec_version_free(v);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}
