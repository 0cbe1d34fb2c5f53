/*
 * GET /api/v3/status/ (Lectern's extension, docs/api.md "An instance's
 * status"): what `lectern status` shows of an engine reached through a
 * context, another machine's included: the engine's version and edition,
 * its build workers, and the builds of the whole instance waiting for one
 * and running. Any authenticated user may ask (the queue's count is
 * already theirs to see); which builds are whose stays behind
 * /api/v3/builds/ and /api/v3/builds/queue/, linked here. The service has
 * no such resource, so clients ask it of a Lectern only.
 */
#include <stdio.h>

#include "lectern/build.h"
#include "v3.h"

int srv_v3_status(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	int64_t waiting = 0, running = 0;
	cJSON *body = NULL, *builds, *links;
	char url[SRV_MAX_HOST + 64];
	int rc = store ? lec_build_unfinished(store, &waiting, &running)
		       : LEC_ERROR;

	if (rc < 0 || (body = cJSON_CreateObject()) == NULL ||
	    (builds = cJSON_AddObjectToObject(body, "builds")) == NULL ||
	    (links = cJSON_AddObjectToObject(body, "_links")) == NULL) {
		cJSON_Delete(body);
		return srv_respond_engine_error(res, rc < 0 ? rc : LEC_ENOMEM);
	}
	if (srv_version(req))
		cJSON_AddStringToObject(body, "version", srv_version(req));
	else
		cJSON_AddNullToObject(body, "version");
	cJSON_AddStringToObject(body, "edition",
				srv_business(req) ? "business" : "community");
	/* Unknown (-1) while the workers start: null. */
	if (srv_workers(req) >= 0)
		cJSON_AddNumberToObject(body, "workers", srv_workers(req));
	else
		cJSON_AddNullToObject(body, "workers");
	cJSON_AddNumberToObject(builds, "waiting", (double)waiting);
	cJSON_AddNumberToObject(builds, "running", (double)running);
	snprintf(url, sizeof(url), "%s/api/v3/builds/?running=true",
		 srv_request_origin(req));
	cJSON_AddStringToObject(links, "builds", url);
	snprintf(url, sizeof(url), "%s/api/v3/builds/queue/",
		 srv_request_origin(req));
	cJSON_AddStringToObject(links, "queue", url);
	srv_respond_json(res, 200, body, SRV_JSON_SORTED);
	return res->status;
}
