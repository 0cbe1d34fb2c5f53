/*
 * Lectern's build queue (GET /api/v3/builds/queue/, docs/api.md): where
 * the user's waiting builds stand, so a screen can say "queued #2" rather
 * than show a triggered build as if it ran. Only a Lectern has it; the
 * callers ask only when lc_client_remote says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "client_internal.h"

static long long number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

int lc_queue_parse(const cJSON *json, struct lc_queue *out)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(json, "results");
	const cJSON *item;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->waiting = number(json, "count");
	if (!cJSON_IsArray(results))
		return LC_EJSON;
	out->items = calloc((size_t)cJSON_GetArraySize(results) + 1,
			    sizeof(*out->items));
	if (out->items == NULL)
		return LC_ENOMEM;
	cJSON_ArrayForEach(item, results) {
		out->items[n].id = number(item, "id");
		out->items[n].position = number(item, "position");
		if (out->items[n].id > 0 && out->items[n].position > 0)
			n++;
	}
	out->len = n;
	return LC_OK;
}

long long lc_queue_position(const struct lc_queue *q, long long build_id)
{
	size_t i;

	for (i = 0; q && i < q->len; i++)
		if (q->items[i].id == build_id)
			return q->items[i].position;
	return 0;
}

const char *lc_build_state_shown(const struct lc_build *b,
				 const struct lc_queue *q, char *buf,
				 size_t size)
{
	long long place;

	if (b->state == NULL)
		return NULL;
	if (strcmp(b->state, "triggered") != 0)
		return b->state;
	if ((place = lc_queue_position(q, b->id)) > 0)
		snprintf(buf, size, "queued #%lld", place);
	else
		snprintf(buf, size, "queued");
	return buf;
}

void lc_queue_dispose(struct lc_queue *q)
{
	if (q == NULL)
		return;
	free(q->items);
	memset(q, 0, sizeof(*q));
}

int lc_build_queue(struct lc_client *c, struct lc_queue *out,
		   struct lc_error *err)
{
	struct lc_response *resp = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	lc_error_clear(err);
	rc = lc_get(c, LC_QUEUE_PATH, NULL, NULL, &resp, err);
	if (rc == LC_OK && (rc = lc_queue_parse(resp->json, out)) != LC_OK)
		lc__fail(err, rc, 0, "invalid JSON in response from %s",
			 LC_QUEUE_PATH);
	lc_response_free(resp);
	return rc;
}
