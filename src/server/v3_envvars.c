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

static int fill_envvars(struct srv_request *req, struct srv_response *res,
			const struct srv_parent *parent,
			const struct lec_page *page,
			const struct srv_flex *flex, cJSON *results,
			size_t *total)
{
	struct lec_envvar_list list = { 0 };
	size_t i;
	int rc;

	(void)flex;
	rc = lec_envvar_list(srv_store(req), parent->project->id, page, &list);
	if (rc < 0)
		return srv_respond_engine_error(res, rc), -1;
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(results,
				     envvar_object(req, parent->project->slug,
						   &list.items[i]));
	*total = list.total;
	lec_envvar_list_dispose(&list);
	return 0;
}

static const struct srv_v3_list envvars_list = {
	SRV_PARENT_PROJECT, 0, fill_envvars
};

int srv_v3_envvars_list(struct srv_request *req, struct srv_response *res)
{
	return srv_v3_respond_list(req, res, &envvars_list);
}

/* Wipe the value's copy in the parsed body, so that freed memory holds no
 * secret. */
static void wipe_value(cJSON *body)
{
	srv_body_wipe(body, "value");
}

int srv_v3_envvars_create(struct srv_request *req, struct srv_response *res)
{
	struct lec_envvar *v = NULL;
	const char *name = NULL, *value = NULL;
	struct srv_parent parent;
	int is_public = 0, rc;
	cJSON *body = NULL;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	/* Presence, type and blank errors are the body readers'; the engine
	 * words the length and project-total errors. */
	if ((body = srv_parse_body(req, res)) == NULL ||
	    srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED, &name,
			    res) < 0 ||
	    srv_body_string(body, "value", "value", SRV_FIELD_REQUIRED, &value,
			    res) < 0 ||
	    srv_body_bool(body, "public", "public", SRV_FIELD_FORM_FALSE,
			  &is_public, res) < 0)
		goto done;
	rc = lec_envvar_create(srv_store(req), parent.project->id, name, value,
			       is_public, &v);
	if (rc < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_json(res, 201,
				 envvar_object(req, parent.project->slug, v),
				 SRV_JSON_SORTED);
done:
	if (body)
		wipe_value(body);
	lec_envvar_free(v);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

static int show_envvar(struct srv_request *req,
		       const struct srv_parent *parent, int64_t id,
		       const struct srv_flex *flex, cJSON **out)
{
	struct lec_envvar *v = NULL;
	int rc = lec_envvar_get(srv_store(req), parent->project->id, id, &v);

	(void)flex;
	if (rc == LEC_OK)
		*out = envvar_object(req, parent->project->slug, v);
	lec_envvar_free(v);
	return rc;
}

static const struct srv_v3_detail envvar_detail = {
	SRV_PARENT_PROJECT, 1, 0, show_envvar, NO_ENVVAR
};

int srv_v3_envvar_detail(struct srv_request *req, struct srv_response *res)
{
	return srv_v3_respond_detail(req, res, &envvar_detail);
}

int srv_v3_envvar_delete(struct srv_request *req, struct srv_response *res)
{
	return srv_v3_respond_delete(req, res, lec_envvar_delete, NO_ENVVAR);
}
