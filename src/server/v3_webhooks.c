/*
 * Outgoing webhooks under v3 (a Lectern extension, docs/api.md; the
 * service has them in its dashboard only): a project's admins list,
 * create, change and delete them, and list each one's latest deliveries.
 *
 * A secret is write-only. A generated one is in the 201 answer once, as
 * "secret"; one the caller gives is never shown back. Its copy in the
 * parsed body is wiped before the body is freed, and no answer or log
 * line holds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "json_build.h"
#include "lectern/project.h"
#include "lectern/webhook.h"
#include "v3.h"

#define NO_WEBHOOK "No WebHook matches the given query."

static void add_link(cJSON *links, const char *key, const char *origin,
		     const char *slug, const char *suffix, int64_t id)
{
	char url[SRV_MAX_HOST + 400];

	if (id)
		snprintf(url, sizeof(url), "%s/api/v3/projects/%s/%s%lld/",
			 origin, slug, suffix, (long long)id);
	else
		snprintf(url, sizeof(url), "%s/api/v3/projects/%s/%s", origin,
			 slug, suffix);
	cJSON_AddStringToObject(links, key, url);
}

static cJSON *webhook_object(struct srv_request *req, const char *slug,
			     const struct lec_webhook *w)
{
	const char *origin = srv_request_origin(req);
	static const enum lec_webhook_event all[] = {
		LEC_WEBHOOK_BUILD_TRIGGERED,
		LEC_WEBHOOK_BUILD_PASSED,
		LEC_WEBHOOK_BUILD_FAILED,
		LEC_WEBHOOK_BUILD_NEW_WARNINGS,
	};
	cJSON *o = cJSON_CreateObject(), *links, *events;
	char path[64];
	size_t i;

	links = cJSON_AddObjectToObject(o, "_links");
	add_link(links, "_self", origin, slug, "webhooks/", w->id);
	add_link(links, "project", origin, slug, "", 0);
	snprintf(path, sizeof(path), "webhooks/%lld/deliveries/",
		 (long long)w->id);
	add_link(links, "deliveries", origin, slug, path, 0);
	srv_v3_add_time(o, "created", w->created);
	events = cJSON_AddArrayToObject(o, "events");
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (w->events & (unsigned)all[i])
			cJSON_AddItemToArray(
				events, cJSON_CreateString(
						lec_webhook_event_code(all[i])));
	cJSON_AddNumberToObject(o, "id", (double)w->id);
	srv_v3_add_time(o, "modified", w->modified);
	srv_json_str_or_null(o, "payload", w->payload);
	cJSON_AddStringToObject(o, "project", slug);
	cJSON_AddStringToObject(o, "url", w->url);
	return o;
}

static cJSON *delivery_object(const struct lec_webhook_delivery *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "attempts", d->attempts);
	if (d->build_id)
		cJSON_AddNumberToObject(o, "build", (double)d->build_id);
	else
		cJSON_AddNullToObject(o, "build");
	srv_v3_add_time(o, "created", d->created);
	srv_json_str_or_null(o, "error", d->error);
	cJSON_AddStringToObject(o, "event", d->event);
	cJSON_AddNumberToObject(o, "id", (double)d->id);
	srv_v3_add_time(o, "modified", d->modified);
	srv_v3_add_time(o, "next_attempt", d->state == LEC_WEBHOOK_PENDING
						   ? d->next_attempt
						   : 0);
	cJSON_AddStringToObject(o, "payload", d->body);
	cJSON_AddStringToObject(o, "state",
				lec_webhook_delivery_state_code(d->state));
	if (d->status_code)
		cJSON_AddNumberToObject(o, "status_code", d->status_code);
	else
		cJSON_AddNullToObject(o, "status_code");
	return o;
}

/* Lists -------------------------------------------------------------------------- */

SRV_V3_FILL(fill_webhooks, lec_webhook,
	    lec_webhook_list(srv_store(req), parent->project->id, page, &list),
	    webhook_object(req, parent->project->slug, item))
SRV_V3_SHOW(show_webhook, lec_webhook,
	    lec_webhook_get(srv_store(req), parent->project->id, id, &item),
	    webhook_object(req, parent->project->slug, item))

/* Whether the webhook of the path is one of the parent project's. */
SRV_V3_FIND(find_webhook, lec_webhook,
	    lec_webhook_get(srv_store(req), parent->project->id, id, &item))

/* The webhook params[1] must be one of the parent's. */
static int fill_deliveries(struct srv_v3_fill *f)
{
	struct lec_webhook_delivery_list list = { 0 };
	int64_t id;
	size_t i;
	int rc;

	if (srv_param_id(f->req->params[1], f->res, &id) < 0)
		return -1;
	rc = find_webhook(f->req, f->parent, id);
	if (rc == LEC_ENOTFOUND)
		return srv_respond_detail(f->res, 404, NO_WEBHOOK), -1;
	if (rc == LEC_OK)
		rc = lec_webhook_delivery_list(srv_store(f->req), id, f->page,
					       &list);
	if (rc < 0)
		return srv_respond_engine_error(f->res, rc), -1;
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(f->results,
				     delivery_object(&list.items[i]));
	f->total = list.total;
	lec_webhook_delivery_list_dispose(&list);
	return 0;
}

/* Writing ------------------------------------------------------------------------ */

/* Read url, events and payload from body into f (fields present set in
 * f->fields). required: url and events must be there (a create). */
static int read_fields(cJSON *body, int required, struct srv_response *res,
		       struct lec_webhook_fields *f)
{
	const char **events = NULL;
	enum lec_webhook_event ev;
	size_t n = 0, i;
	int rc;

	memset(f, 0, sizeof(*f));
	rc = srv_body_string(body, "url", "url",
			     required ? SRV_FIELD_REQUIRED : 0, &f->url, res);
	if (rc < 0)
		return -1;
	if (rc == SRV_FIELD_PRESENT)
		f->fields |= LEC_WEBHOOK_FIELD_URL;
	if ((rc = srv_body_string_list(body, "events", "events", &events, &n,
				       res)) < 0)
		return -1;
	if (rc == 0 && required) {
		srv_respond_field_error(res, "events",
					"This field is required.");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (lec_webhook_event_lookup(events[i], &ev) < 0) {
			free(events);
			srv_respond_engine_error(res, LEC_EINVALID);
			return -1;
		}
		f->events |= (unsigned)ev;
	}
	free(events);
	if (rc == SRV_FIELD_PRESENT)
		f->fields |= LEC_WEBHOOK_FIELD_EVENTS;
	rc = srv_body_string(body, "payload", "payload",
			     SRV_FIELD_NULLABLE | SRV_FIELD_BLANK, &f->payload,
			     res);
	if (rc < 0)
		return -1;
	if (rc == SRV_FIELD_PRESENT) {
		f->fields |= LEC_WEBHOOK_FIELD_PAYLOAD;
		/* A blank template is none: the service's default payload. */
		if (f->payload && *f->payload == '\0')
			f->payload = NULL;
	}
	return 0;
}

/* The helper wipes a given secret's copy in the parsed body, so that
 * freed memory holds no secret. */
static int create_webhook(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  cJSON *body, cJSON **out)
{
	struct lec_webhook_fields f;
	struct lec_webhook *w = NULL;
	const char *secret = NULL;
	char *generated = NULL;
	int rc;

	(void)id;
	if (read_fields(body, 1, res, &f) < 0 ||
	    srv_body_string(body, "secret", "secret", SRV_FIELD_NULLABLE,
			    &secret, res) < 0)
		return SRV_V3_ANSWERED;
	rc = lec_webhook_create(srv_store(req), parent->project->id, &f, secret,
				&w, &generated);
	if (rc == LEC_OK)
		*out = webhook_object(req, parent->project->slug, w);
	/* The response body is the only copy that leaves. */
	srv_v3_secret_once(*out, generated);
	lec_webhook_free(w);
	return rc;
}

/* The secret cannot change; the answer is the webhook as stored. */
static int update_webhook(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  cJSON *body, cJSON **out)
{
	struct lec_webhook_fields f;
	struct lec_webhook *w = NULL;
	int rc;

	if (read_fields(body, 0, res, &f) < 0)
		return SRV_V3_ANSWERED;
	if (srv_body_get(body, "secret")) {
		srv_respond_field_error(res, "secret",
					"The secret cannot be changed; create "
					"a new webhook.");
		return SRV_V3_ANSWERED;
	}
	rc = lec_webhook_update(srv_store(req), parent->project->id, id, &f);
	if (rc == LEC_OK)
		rc = lec_webhook_get(srv_store(req), parent->project->id, id,
				     &w);
	if (rc == LEC_OK)
		*out = webhook_object(req, parent->project->slug, w);
	lec_webhook_free(w);
	return rc;
}

SRV_V3_LIST(srv_v3_webhooks_list, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_webhooks)
SRV_V3_LIST(srv_v3_webhook_deliveries, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_deliveries)
SRV_V3_WRITE(srv_v3_webhooks_create, .parent = SRV_PARENT_PROJECT,
	     .apply = create_webhook, .status = 201, .secret = "secret")
SRV_V3_DETAIL(srv_v3_webhook_detail, .parent = SRV_PARENT_PROJECT,
	      .by_id = 1, .show = show_webhook, .not_found = NO_WEBHOOK)
SRV_V3_WRITE(srv_v3_webhook_update, .parent = SRV_PARENT_PROJECT,
	     .by_id = 1, .find = find_webhook, .apply = update_webhook,
	     .status = 200, .not_found = NO_WEBHOOK, .secret = "secret")
SRV_V3_DELETE(srv_v3_webhook_delete, .del = lec_webhook_delete,
	      .not_found = NO_WEBHOOK)
