/*
 * The v3 integrations endpoints (a Lectern extension, docs/api.md):
 * create, list, show and delete the integrations of a project, which hold
 * the secrets its incoming webhooks (integrations_in.c) are verified with;
 * a secret is in the creation's answer only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lectern/integration.h"
#include "lectern/project.h"
#include "v3.h"

static cJSON *integration_object(struct srv_request *req, const char *slug,
				 const struct lec_integration *in)
{
	const char *origin = srv_request_origin(req);
	cJSON *o = cJSON_CreateObject(), *links;
	char url[700];

	links = cJSON_AddObjectToObject(o, "_links");
	snprintf(url, sizeof(url), "%s/api/v3/projects/%s/integrations/%lld/",
		 origin, slug, (long long)in->id);
	cJSON_AddStringToObject(links, "_self", url);
	snprintf(url, sizeof(url), "%s/api/v3/projects/%s/", origin, slug);
	cJSON_AddStringToObject(links, "project", url);
	srv_v3_add_time(o, "created", in->created);
	cJSON_AddNumberToObject(o, "id", (double)in->id);
	cJSON_AddStringToObject(o, "integration_type",
				lec_integration_type_code(in->type));
	cJSON_AddStringToObject(o, "project", slug);
	/* What to paste into the forge. */
	snprintf(url, sizeof(url), "%s/api/v2/webhook/%s/%lld/", origin, slug,
		 (long long)in->id);
	cJSON_AddStringToObject(o, "url", url);
	return o;
}

static int fill_integrations(struct srv_request *req,
			     struct srv_response *res,
			     const struct srv_parent *parent,
			     const struct lec_page *page,
			     const struct srv_flex *flex, cJSON *results,
			     size_t *total)
{
	struct lec_integration_list list = { 0 };
	size_t i;
	int rc;

	(void)flex;
	rc = lec_integration_list(srv_store(req), parent->project->id, page,
				  &list);
	if (rc < 0)
		return srv_respond_engine_error(res, rc), -1;
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(results,
				     integration_object(req,
							parent->project->slug,
							&list.items[i]));
	*total = list.total;
	lec_integration_list_dispose(&list);
	return 0;
}

static const struct srv_v3_list integrations_list = {
	SRV_PARENT_PROJECT, 0, fill_integrations
};

int srv_v3_integrations_list(struct srv_request *req, struct srv_response *res)
{
	return srv_v3_respond_list(req, res, &integrations_list);
}

int srv_v3_integrations_create(struct srv_request *req,
			       struct srv_response *res)
{
	enum lec_integration_type type = LEC_INTEGRATION_API;
	struct lec_integration *in = NULL;
	const char *type_code = NULL, *secret = NULL;
	char *generated = NULL;
	struct srv_parent parent;
	cJSON *body = NULL, *o;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	if ((body = srv_parse_body(req, res)) == NULL ||
	    srv_body_string(body, "integration_type", "integration_type",
			    SRV_FIELD_REQUIRED, &type_code, res) < 0 ||
	    srv_body_string(body, "secret", "secret", 0, &secret, res) < 0)
		goto done;
	rc = lec_integration_type_lookup(type_code, &type);
	if (rc == LEC_OK)
		rc = lec_integration_create(srv_store(req), parent.project->id,
					    type, secret, &in, &generated);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	o = integration_object(req, parent.project->slug, in);
	/* Shown this once; a secret the caller gave is theirs already. */
	if (generated)
		cJSON_AddStringToObject(o, "secret", generated);
	srv_respond_json(res, 201, o, SRV_JSON_SORTED);
done:
	if (generated) {
		explicit_bzero(generated, strlen(generated));
		free(generated);
	}
	if (secret) /* no copy of a secret left in freed memory */
		srv_body_wipe(body, "secret");
	lec_integration_free(in);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

static int show_integration(struct srv_request *req,
			    const struct srv_parent *parent, int64_t id,
			    const struct srv_flex *flex, cJSON **out)
{
	struct lec_integration *in = NULL;
	int rc = lec_integration_get(srv_store(req), parent->project->id, id,
				     &in);

	(void)flex;
	if (rc == LEC_OK)
		*out = integration_object(req, parent->project->slug, in);
	lec_integration_free(in);
	return rc;
}

/* A missing integration is answered with the engine's words. */
static const struct srv_v3_detail integration_detail = {
	SRV_PARENT_PROJECT, 1, 0, show_integration, NULL
};

int srv_v3_integration_detail(struct srv_request *req,
			      struct srv_response *res)
{
	return srv_v3_respond_detail(req, res, &integration_detail);
}

int srv_v3_integration_delete(struct srv_request *req,
			      struct srv_response *res)
{
	return srv_v3_respond_delete(req, res, lec_integration_delete, NULL);
}
