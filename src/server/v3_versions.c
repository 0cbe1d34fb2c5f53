/*
 * v3 versions: the list and detail of a project's versions, their update
 * (active, hidden, and privacy_level in the business edition) and the
 * request to sync them from the repository (contract §4.2; behaviour notes
 * §1.6–§1.8, §2).
 *
 * The project must be visible to the requester (v3_common.c's one parent
 * lookup: a private project's versions are as absent as the project).
 * Within it, a public version is visible to everyone who sees the
 * project, a private one to the project's admins. Pull-request versions
 * never show here. Versions are not a flex serializer in the service, so
 * fields/omit are ignored; expand=last_build[.config] is the contract's.
 */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "quota.h"
#include "v3.h"

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
	f->active = srv_query_filter(req, "active");
	f->built = srv_query_filter(req, "built");
	f->uploaded = srv_query_filter(req, "uploaded");
	f->external = LEC_FILTER_FALSE;
	f->privacy_level = srv_query(req, "privacy_level");
	f->type = srv_query(req, "type");
	f->slug = srv_query(req, "slug");
	f->verbose_name = srv_query(req, "verbose_name");
	return 0;
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

static int fill_versions(struct srv_v3_fill *f)
{
	const struct lec_project *project = f->parent->project;
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	size_t i;
	int rc;

	if (read_filter(f->req, &filter, f->res) < 0)
		return -1;
	if (!f->parent->admin && !restrict_to_public(&filter))
		return 0;
	rc = lec_version_list(srv_store(f->req), project->id, &filter, f->page,
			      &list);
	if (rc < 0)
		return srv_respond_engine_error(f->res, rc), -1;
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(f->results,
				     srv_v3_version(f->req, project,
						    &list.items[i], f->flex));
	f->total = list.total;
	lec_version_list_dispose(&list);
	return 0;
}

SRV_V3_LIST(srv_v3_versions_list, .parent = SRV_PARENT_PROJECT, .flex = 1,
	    .fill = fill_versions)

/* The parent is the version; flex decides its expansions only. */
static int show_version(struct srv_request *req,
			const struct srv_parent *parent, int64_t id,
			const struct srv_flex *flex, cJSON **out)
{
	(void)id;
	*out = srv_v3_version(req, parent->project, parent->version, flex);
	return LEC_OK;
}

SRV_V3_DETAIL(srv_v3_version_detail, .parent = SRV_PARENT_VERSION, .flex = 1,
	      .show = show_version)

/* Read the update body: active and hidden, and privacy_level where
 * versions can be private (the business edition; elsewhere the key is
 * ignored, as the service's serializer does not have it). */
static int read_patch(struct srv_request *req, const cJSON *body,
		      struct lec_version_patch *patch,
		      struct srv_response *res)
{
	int got;

	if ((got = srv_body_bool(body, "active", "active",
				 SRV_FIELD_FORM_FALSE, &patch->active, res)) <
	    0)
		return -1;
	if (got)
		patch->set |= LEC_VERSION_SET_ACTIVE;
	if ((got = srv_body_bool(body, "hidden", "hidden",
				 SRV_FIELD_FORM_FALSE, &patch->hidden, res)) <
	    0)
		return -1;
	if (got)
		patch->set |= LEC_VERSION_SET_HIDDEN;
	if (!srv_business(req))
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

/* Answered with 204 and no body. */
static int update_version(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  cJSON *body, cJSON **out)
{
	struct lec_version_patch patch = { 0 };
	const struct lec_version *v = parent->version;
	int rc;

	(void)id;
	(void)out;
	if (read_patch(req, body, &patch, res) < 0)
		return SRV_V3_ANSWERED;
	/* Refused before anything changes, when it would queue a build. */
	if ((patch.set & LEC_VERSION_SET_ACTIVE) && patch.active &&
	    !v->active &&
	    srv_quota_build(req, parent->project->id, v->id, res) < 0)
		return SRV_V3_ANSWERED;
	rc = lec_version_update(srv_store(req), v->id, &patch);
	/* The service's post_save: a version turned active is built (the
	 * engine cleared `built` of one turned inactive). */
	if (rc == LEC_OK && (patch.set & LEC_VERSION_SET_ACTIVE) &&
	    patch.active && !v->active)
		rc = lec_build_trigger(srv_store(req), parent->project->id, v->id,
				       NULL, NULL, NULL);
	return rc;
}

SRV_V3_WRITE(srv_v3_version_update, .parent = SRV_PARENT_VERSION,
	     .apply = update_version, .status = 204)

int srv_v3_project_sync_versions(struct srv_request *req,
				 struct srv_response *res)
{
	struct srv_parent parent;
	cJSON *o;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	/* The body is ignored; the build pipeline takes the request. */
	rc = lec_version_sync_request(srv_store(req), parent.project->id);
	srv_v3_parent_dispose(&parent);
	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "triggered", 1);
	return srv_respond_json(res, 202, o, SRV_JSON_SORTED);
}
