/*
 * The v3 integrations endpoints (a Lectern extension, docs/api.md):
 * create, list, show and delete the integrations of a project, which hold
 * the secrets its incoming webhooks (integrations_in.c) are verified with;
 * a secret is in the creation's answer only. A GitHub or GitLab
 * integration may be given a forge token ("token", sealed, never shown)
 * and API base URL ("api_url") at creation: its project's pull requests'
 * builds then send commit statuses (commit_status.h).
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
	/* Only what commit statuses use: never the token itself. */
	if (in->has_token || in->api_url) {
		cJSON_AddBoolToObject(o, "has_token", in->has_token);
		if (in->api_url)
			cJSON_AddStringToObject(o, "api_url", in->api_url);
	}
	/* What to paste into the forge. */
	snprintf(url, sizeof(url), "%s/api/v2/webhook/%s/%lld/", origin, slug,
		 (long long)in->id);
	cJSON_AddStringToObject(o, "url", url);
	return o;
}

SRV_V3_FILL(fill_integrations, lec_integration,
	    lec_integration_list(srv_store(req), parent->project->id, page,
				 &list),
	    integration_object(req, parent->project->slug, item))
SRV_V3_SHOW(show_integration, lec_integration,
	    lec_integration_get(srv_store(req), parent->project->id, id,
				&item),
	    integration_object(req, parent->project->slug, item))

/* Give the new integration *in its token and API URL, read back. A
 * refusal is answered, then removes it: a bad token creates nothing. */
static int with_token(struct srv_request *req, struct srv_response *res,
		      int64_t project_id, struct lec_integration **in,
		      const char *token, const char *api_url)
{
	struct lec_store *st = srv_store(req);
	int64_t id = (*in)->id;
	int rc = lec_integration_set_token(st, project_id, id, token, api_url);

	lec_integration_free(*in);
	*in = NULL;
	if (rc == LEC_OK)
		rc = lec_integration_get(st, project_id, id, in);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		lec_integration_delete(st, project_id, id);
		return SRV_V3_ANSWERED;
	}
	return LEC_OK;
}

/* The helper wipes a given secret's copy in the parsed body; the token's
 * is wiped here. */
static int create_integration(struct srv_request *req,
			      struct srv_response *res,
			      const struct srv_parent *parent, int64_t id,
			      cJSON *body, cJSON **out)
{
	enum lec_integration_type type = LEC_INTEGRATION_API;
	struct lec_integration *in = NULL;
	const char *type_code = NULL, *secret = NULL, *token = NULL;
	const char *api_url = NULL;
	char *generated = NULL;
	int rc;

	(void)id;
	if (srv_body_string(body, "integration_type", "integration_type",
			    SRV_FIELD_REQUIRED, &type_code, res) < 0 ||
	    srv_body_string(body, "secret", "secret", 0, &secret, res) < 0 ||
	    srv_body_string(body, "token", "token", 0, &token, res) < 0 ||
	    srv_body_string(body, "api_url", "api_url", 0, &api_url, res) < 0)
		rc = SRV_V3_ANSWERED;
	else
		rc = lec_integration_type_lookup(type_code, &type);
	if (rc == LEC_OK)
		rc = lec_integration_create(srv_store(req), parent->project->id,
					    type, secret, &in, &generated);
	if (rc == LEC_OK && (token || api_url))
		rc = with_token(req, res, parent->project->id, &in, token,
				api_url);
	if (token) /* no copy of a token left in freed memory */
		srv_body_wipe(body, "token");
	if (rc == LEC_OK)
		*out = integration_object(req, parent->project->slug, in);
	/* A secret the caller gave is theirs already. */
	srv_v3_secret_once(*out, generated);
	lec_integration_free(in);
	return rc;
}

SRV_V3_LIST(srv_v3_integrations_list, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_integrations)
SRV_V3_WRITE(srv_v3_integrations_create, .parent = SRV_PARENT_PROJECT,
	     .apply = create_integration, .status = 201, .secret = "secret")
/* A missing integration is answered with the engine's words. */
SRV_V3_DETAIL(srv_v3_integration_detail, .parent = SRV_PARENT_PROJECT,
	      .by_id = 1, .show = show_integration)
SRV_V3_DELETE(srv_v3_integration_delete, .del = lec_integration_delete)
