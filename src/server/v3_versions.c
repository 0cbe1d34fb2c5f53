/*
 * v3 versions: the list and detail of a project's versions, their update
 * (active, hidden, and privacy_level in the business edition) and the
 * request to sync them from the repository (contract §4.2; behaviour notes
 * §1.6–§1.8, §2).
 *
 * Visibility follows the service's Version queryset (notes §1.7): a public
 * version is visible to everyone, a private one to the project's admins,
 * and the project's own privacy is not consulted. Pull-request versions
 * never show here. Versions are not a flex serializer in the service, so
 * fields/omit are ignored; expand=last_build[.config] is the contract's.
 */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "v3.h"

#define NO_VERSION "No Version matches the given query."

/* Filter choices (django-filter ChoiceFilter): a non-empty value outside
 * them is a 400 naming the parameter. */
static const char *const privacy_choices[] = { "public", "private", NULL };
static const char *const type_choices[] = { "branch", "tag", "external",
					    "unknown", NULL };

static int is_choice(const char *value, const char *const *choices)
{
	for (; *choices; choices++)
		if (strcmp(value, *choices) == 0)
			return 1;
	return 0;
}

static enum lec_filter_bool filter_bool(const struct srv_request *req,
					const char *key)
{
	switch (srv_query_bool(req, key)) {
	case 1:
		return LEC_FILTER_TRUE;
	case 0:
		return LEC_FILTER_FALSE;
	default:
		return LEC_FILTER_ANY;
	}
}

/* Add {"param": ["Select a valid choice. ..."]} to errors when the
 * parameter is given and not a choice. */
static void check_choice(const struct srv_request *req, const char *param,
			 const char *const *choices, cJSON *errors)
{
	const char *value = srv_query(req, param);
	char msg[300];

	if (value == NULL || *value == '\0' || is_choice(value, choices))
		return;
	snprintf(msg, sizeof(msg),
		 "Select a valid choice. %.200s is not one of the available "
		 "choices.",
		 value);
	cJSON_AddItemToObject(errors, param,
			      cJSON_CreateStringArray((const char *[]){ msg },
						      1));
}

/* Read the filters; on invalid choices fills res with a 400 naming every
 * bad parameter, as the filter form does, and returns -1. */
static int read_filter(struct srv_request *req, struct lec_version_filter *f,
		       struct srv_response *res)
{
	cJSON *errors = cJSON_CreateObject();

	check_choice(req, "privacy_level", privacy_choices, errors);
	check_choice(req, "type", type_choices, errors);
	if (errors && errors->child) {
		srv_respond_json(res, 400, errors, SRV_JSON_SORTED);
		return -1;
	}
	cJSON_Delete(errors);
	f->active = filter_bool(req, "active");
	f->built = filter_bool(req, "built");
	f->uploaded = filter_bool(req, "uploaded");
	f->external = LEC_FILTER_FALSE;
	f->privacy_level = srv_query(req, "privacy_level");
	f->type = srv_query(req, "type");
	f->slug = srv_query(req, "slug");
	f->verbose_name = srv_query(req, "verbose_name");
	return 0;
}

/* Whether the requester administers the project: 1, 0, or an engine
 * error code. */
static int viewer_is_admin(struct srv_request *req, int64_t project_id)
{
	if (req->user == NULL)
		return 0;
	return lec_project_is_admin(srv_store(req), project_id, req->user->id);
}

/* Narrow the filter to what a non-admin may see. Returns 0 when nothing
 * can match (they asked for private versions only). */
static int restrict_to_public(struct lec_version_filter *f)
{
	if (f->privacy_level && strcmp(f->privacy_level, "private") == 0)
		return 0;
	f->privacy_level = "public";
	return 1;
}

/* The page of the project's versions the requester may see. An unknown
 * project, or a non-admin asking for private versions only, gives an empty
 * list (notes §1.7); *p stays NULL for an unknown project. */
static int visible_versions(struct srv_request *req,
			    struct lec_version_filter *f,
			    const struct lec_page *page,
			    struct lec_project **p,
			    struct lec_version_list *list)
{
	struct lec_store *store = srv_store(req);
	int rc, admin;

	rc = lec_project_get(store, req->params[0], p);
	if (rc == LEC_ENOTFOUND)
		return LEC_OK;
	if (rc < 0)
		return rc;
	if ((admin = viewer_is_admin(req, (*p)->id)) < 0)
		return admin;
	if (!admin && !restrict_to_public(f))
		return LEC_OK;
	return lec_version_list(store, (*p)->id, f, page, list);
}

int srv_v3_versions_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	struct lec_project *p = NULL;
	struct srv_flex flex;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if (srv_store(req) == NULL)
		return srv_respond_internal(res, "no store");
	if (read_filter(req, &filter, res) < 0 ||
	    srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	if ((rc = visible_versions(req, &filter, &page, &p, &list)) < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++)
		cJSON_AddItemToArray(results, srv_v3_version(req, p,
							     &list.items[i],
							     &flex));
	srv_respond_json(res, 200,
			 srv_page_envelope(req, &page, list.total, results),
			 SRV_JSON_SORTED);
done:
	lec_version_list_dispose(&list);
	lec_project_free(p);
	srv_flex_dispose(&flex);
	return res->status;
}

/* Whether the endpoint shows version v: never a pull-request version, a
 * private one only to the project's admins (admin_checked: the router has
 * already demanded one). 1, 0, or an engine error code. */
static int version_visible(struct srv_request *req,
			   const struct lec_project *p,
			   const struct lec_version *v, int admin_checked)
{
	if (v->type == LEC_VERSION_EXTERNAL)
		return 0;
	if (admin_checked || strcmp(v->privacy_level, "public") == 0)
		return 1;
	return viewer_is_admin(req, p->id);
}

/* The project and version of the URL. On failure fills res (404 "No
 * Version matches the given query." for an unknown project or version, or
 * one the requester may not see) and returns -1. */
static int load_version(struct srv_request *req, struct srv_response *res,
			int admin_checked, struct lec_project **p,
			struct lec_version **v)
{
	struct lec_store *store = srv_store(req);
	int rc, visible;

	*p = NULL;
	*v = NULL;
	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	rc = lec_project_get(store, req->params[0], p);
	if (rc == LEC_OK)
		rc = lec_version_get(store, (*p)->id, req->params[1], v);
	if (rc == LEC_OK) {
		visible = version_visible(req, *p, *v, admin_checked);
		rc = visible < 0 ? visible : visible ? LEC_OK : LEC_ENOTFOUND;
	}
	if (rc == LEC_OK)
		return 0;
	if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, NO_VERSION);
	else
		srv_respond_engine_error(res, rc);
	lec_version_free(*v);
	lec_project_free(*p);
	*v = NULL;
	*p = NULL;
	return -1;
}

int srv_v3_version_detail(struct srv_request *req, struct srv_response *res)
{
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	struct srv_flex flex;

	if (load_version(req, res, 0, &p, &v) < 0)
		return res->status;
	if (srv_flex_parse(req, &flex, res) == 0) {
		srv_respond_json(res, 200, srv_v3_version(req, p, v, &flex),
				 SRV_JSON_SORTED);
		srv_flex_dispose(&flex);
	}
	lec_version_free(v);
	lec_project_free(p);
	return res->status;
}

/* Read the update body: active and hidden, and privacy_level where
 * versions can be private (the business edition; elsewhere the key is
 * ignored, as the service's serializer does not have it). */
static int read_patch(struct srv_request *req, const cJSON *body,
		      struct lec_version_patch *patch,
		      struct srv_response *res)
{
	int got;

	if ((got = srv_body_bool(body, "active", "active", 0, &patch->active,
				 res)) < 0)
		return -1;
	if (got)
		patch->set |= LEC_VERSION_SET_ACTIVE;
	if ((got = srv_body_bool(body, "hidden", "hidden", 0, &patch->hidden,
				 res)) < 0)
		return -1;
	if (got)
		patch->set |= LEC_VERSION_SET_HIDDEN;
	if (srv_edition(req) != SRV_EDITION_BUSINESS)
		return 0;
	/* "" is not blank-rejected: the choice check names it. */
	if ((got = srv_body_string(body, "privacy_level", "privacy_level",
				   SRV_FIELD_BLANK, &patch->privacy_level,
				   res)) < 0)
		return -1;
	if (got)
		patch->set |= LEC_VERSION_SET_PRIVACY_LEVEL;
	return 0;
}

int srv_v3_version_update(struct srv_request *req, struct srv_response *res)
{
	struct lec_version_patch patch = { 0 };
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	cJSON *body = NULL;
	int rc;

	if (load_version(req, res, 1, &p, &v) < 0)
		return res->status;
	if ((body = srv_parse_body(req, res)) == NULL ||
	    read_patch(req, body, &patch, res) < 0)
		goto done;
	rc = lec_version_update(srv_store(req), v->id, &patch);
	/* The service's post_save: a version turned active is built (the
	 * engine cleared `built` of one turned inactive). */
	if (rc == LEC_OK && (patch.set & LEC_VERSION_SET_ACTIVE) &&
	    patch.active && !v->active)
		rc = lec_build_trigger(srv_store(req), p->id, v->id, NULL, NULL,
				       NULL);
	if (rc < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_empty(res, 204);
done:
	cJSON_Delete(body);
	lec_version_free(v);
	lec_project_free(p);
	return res->status;
}

int srv_v3_project_sync_versions(struct srv_request *req,
				 struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *p = NULL;
	cJSON *o;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	/* The body is ignored; the build pipeline takes the request. */
	if ((rc = lec_project_get(store, req->params[0], &p)) == LEC_OK)
		rc = lec_version_sync_request(store, p->id);
	lec_project_free(p);
	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "triggered", 1);
	return srv_respond_json(res, 202, o, SRV_JSON_SORTED);
}
