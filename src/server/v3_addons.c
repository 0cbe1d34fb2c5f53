/*
 * A project's addon settings in the v3 API (issue 39, docs/api.md
 * "Addons"), a Lectern extension: the hosted service keeps them in its
 * dashboard only, so the TUI, the CLI and scripts here change them over
 * the API instead.
 *
 *   GET   /api/v3/projects/<slug>/addons/  the settings, by the service's
 *                                           AddonsConfig field names
 *   PATCH /api/v3/projects/<slug>/addons/  change those the body names
 *                                           (PUT alike); 200 with all
 *
 * Reading is for whoever sees the project, changing for its admins. The
 * fields, their kinds and checks are the engine's table
 * (lectern/addons.h); a body's other keys are ignored, as DRF ignores
 * fields a serializer does not have.
 */
#include <string.h>

#include "body.h"
#include "lectern/addons.h"
#include "lectern/project.h"
#include "v3.h"

/* Every setting, as the API shows it. */
static cJSON *settings_json(const struct lec_addons *a)
{
	cJSON *o = cJSON_CreateObject();
	int i;

	for (i = 0; o && i < LEC_ADDONS_COUNT; i++) {
		const char *name = lec_addons_settings[i].name;

		if (lec_addons_settings[i].kind == LEC_ADDONS_BOOL)
			cJSON_AddBoolToObject(o, name, a->on[i]);
		else if (a->text[i])
			cJSON_AddStringToObject(o, name, a->text[i]);
		else
			cJSON_AddNullToObject(o, name);
	}
	return o;
}

/* Answer with the project's settings. */
static int respond_settings(struct srv_request *req, struct srv_response *res,
			    int64_t project_id)
{
	struct lec_addons a;
	int rc = lec_addons_get(srv_store(req), project_id, &a);

	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	srv_respond_json(res, 200, settings_json(&a), SRV_JSON_SORTED);
	lec_addons_dispose(&a);
	return res->status;
}

int srv_v3_project_addons(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	respond_settings(req, res, parent.project->id);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

/* The body's settings into patch (its strings borrowed from body); 0, or
 * -1 with res filled (a value of the wrong type). A dashboard form reads
 * as a browser sends it: an unchecked box is off, an empty field none. */
static int read_patch(const cJSON *body, int html_form,
		      struct lec_addons_patch *patch, struct srv_response *res)
{
	const unsigned bool_flags = html_form ? SRV_FIELD_FORM_FALSE : 0;
	const unsigned text_flags =
		SRV_FIELD_NULLABLE | (html_form ? 0 : SRV_FIELD_BLANK);
	int i, rc = 0;

	for (i = 0; i < LEC_ADDONS_COUNT && rc >= 0; i++) {
		const char *name = lec_addons_settings[i].name;

		if (lec_addons_settings[i].kind == LEC_ADDONS_BOOL)
			rc = srv_body_bool(body, name, name, bool_flags,
					   &patch->on[i], res);
		else
			rc = srv_body_string(body, name, name, text_flags,
					     &patch->text[i], res);
		if (rc == SRV_FIELD_PRESENT)
			patch->set |= 1u << i;
	}
	return rc < 0 ? -1 : 0;
}

int srv_v3_addons_apply(struct srv_request *req, struct srv_response *res,
			int64_t project_id, const cJSON *body, int html_form,
			struct lec_addons_patch *patch)
{
	int rc;

	memset(patch, 0, sizeof(*patch));
	if (read_patch(body, html_form, patch, res) < 0)
		return -1;
	if ((rc = lec_addons_update(srv_store(req), project_id, patch)) < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	return 0;
}

int srv_v3_project_addons_update(struct srv_request *req,
				 struct srv_response *res)
{
	struct lec_addons_patch patch;
	struct srv_parent parent;
	cJSON *body;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	if ((body = srv_parse_body(req, res)) != NULL &&
	    srv_v3_addons_apply(req, res, parent.project->id, body, 0,
				&patch) == 0)
		respond_settings(req, res, parent.project->id);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}
