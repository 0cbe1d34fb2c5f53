/*
 * v3 environment variables (contract §4.8; behaviour notes §1.5, §1.8): a
 * project's build variables, for its admins only (reads included). There
 * is no update: PUT and PATCH are the router's 405.
 *
 * A value is write-only. It goes from the request body straight to the
 * engine, which seals it; it is never logged and never put in a response,
 * and its copy in the parsed body is wiped before the body is freed. The
 * objects carry absolute _links, as the contract says.
 */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "lectern/envvar.h"
#include "lectern/project.h"
#include "v3.h"

#define NO_ENVVAR "No EnvironmentVariable matches the given query."

static void add_link(cJSON *links, const char *key, const char *origin,
		     const char *path)
{
	char url[700];

	snprintf(url, sizeof(url), "%s%s", origin, path);
	cJSON_AddStringToObject(links, key, url);
}

/* An EnvironmentVariable; there is no value to show, by construction. */
static cJSON *envvar_object(struct srv_request *req, const char *slug,
			    const struct lec_envvar *v)
{
	const char *origin = srv_request_origin(req);
	cJSON *o = cJSON_CreateObject(), *links;
	char path[400];

	links = cJSON_AddObjectToObject(o, "_links");
	snprintf(path, sizeof(path),
		 "/api/v3/projects/%s/environmentvariables/%lld/", slug,
		 (long long)v->id);
	add_link(links, "_self", origin, path);
	snprintf(path, sizeof(path), "/api/v3/projects/%s/", slug);
	add_link(links, "project", origin, path);
	srv_v3_add_time(o, "created", v->created);
	srv_v3_add_time(o, "modified", v->modified);
	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddNumberToObject(o, "pk", (double)v->id);
	cJSON_AddStringToObject(o, "project", slug);
	cJSON_AddBoolToObject(o, "public", v->is_public);
	return o;
}

SRV_V3_FILL(fill_envvars, lec_envvar,
	    lec_envvar_list(srv_store(req), parent->project->id, page, &list),
	    envvar_object(req, parent->project->slug, item))
SRV_V3_SHOW(show_envvar, lec_envvar,
	    lec_envvar_get(srv_store(req), parent->project->id, id, &item),
	    envvar_object(req, parent->project->slug, item))

/* Presence, type and blank errors are the body readers'; the engine words
 * the length and project-total errors. The helper wipes the value's copy
 * in the parsed body, so that freed memory holds no secret. */
static int create_envvar(struct srv_request *req, struct srv_response *res,
			 const struct srv_parent *parent, int64_t id,
			 cJSON *body, cJSON **out)
{
	struct lec_envvar *v = NULL;
	const char *name = NULL, *value = NULL;
	int is_public = 0, rc;

	(void)id;
	if (srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED, &name,
			    res) < 0 ||
	    srv_body_string(body, "value", "value", SRV_FIELD_REQUIRED, &value,
			    res) < 0 ||
	    srv_body_bool(body, "public", "public", SRV_FIELD_FORM_FALSE,
			  &is_public, res) < 0)
		return SRV_V3_ANSWERED;
	rc = lec_envvar_create(srv_store(req), parent->project->id, name, value,
			       is_public, &v);
	if (rc == LEC_OK)
		*out = envvar_object(req, parent->project->slug, v);
	lec_envvar_free(v);
	return rc;
}

SRV_V3_LIST(srv_v3_envvars_list, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_envvars)
SRV_V3_WRITE(srv_v3_envvars_create, .parent = SRV_PARENT_PROJECT,
	     .apply = create_envvar, .status = 201, .secret = "value")
SRV_V3_DETAIL(srv_v3_envvar_detail, .parent = SRV_PARENT_PROJECT,
	      .by_id = 1, .show = show_envvar, .not_found = NO_ENVVAR)
SRV_V3_DELETE(srv_v3_envvar_delete, .del = lec_envvar_delete,
	      .not_found = NO_ENVVAR)
