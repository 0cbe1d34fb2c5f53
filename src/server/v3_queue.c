/*
 * Lectern's builds across projects (docs/api.md, "Builds across projects
 * and the queue"): GET /api/v3/builds/ lists the builds of every project
 * the requester administers, newest first, in the v3 build shape (with
 * `running` and `commit` filters and limit/offset paging); GET
 * /api/v3/builds/queue/ says where the requester's waiting builds stand
 * in the instance's queue; GET /api/v3/builds/activity/ says in two
 * numbers whether builds came, went or ended since a client last asked,
 * so a screen of builds asks for its lists again only then. The service
 * has none of them: its v3 lists builds under one project and says
 * nothing of a queue, so its build shape stays as it is and clients ask
 * these only of a Lectern.
 */
#include <stdint.h>

#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "v3.h"

/* Distinct projects a page of builds names: a page is at most 100. */
#define PAGE_PROJECTS_MAX 100
/* Waiting builds the queue lists for one requester. */
#define QUEUE_MAX 1000

/* The projects a page's builds belong to, read once each. */
struct project_memo {
	struct lec_project *items[PAGE_PROJECTS_MAX];
	size_t len;
};

static const struct lec_project *memo_get(struct lec_store *store,
					  struct project_memo *m, int64_t id)
{
	struct lec_project *p = NULL;
	size_t i;

	for (i = 0; i < m->len; i++)
		if (m->items[i]->id == id)
			return m->items[i];
	if (m->len == PAGE_PROJECTS_MAX ||
	    lec_project_get_by_id(store, id, &p) < 0)
		return NULL;
	m->items[m->len++] = p;
	return p;
}

static void memo_dispose(struct project_memo *m)
{
	size_t i;

	for (i = 0; i < m->len; i++)
		lec_project_free(m->items[i]);
	m->len = 0;
}

/* The build as every v3 build list has it, with its version's slug
 * (NULL for a deleted version). */
static cJSON *build_json(struct srv_request *req, const struct lec_project *p,
			 const struct lec_build *b, const struct srv_flex *flex)
{
	struct lec_version *v = NULL;
	cJSON *item;

	if (b->version_id)
		lec_version_get_by_id(srv_store(req), b->version_id, &v);
	item = srv_v3_build(req, p, b, v, flex);
	srv_flex_apply(flex, item);
	lec_version_free(v);
	return item;
}

int srv_v3_all_builds_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_build_filter filter = { 0 };
	struct lec_build_list list = { 0 };
	struct project_memo memo = { { 0 }, 0 };
	struct srv_flex flex = { 0 };
	const struct lec_project *p;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if (srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	filter.commit = srv_query(req, "commit");
	filter.running = srv_query_filter(req, "running");
	filter.admin_user_id = req->user->id;
	rc = lec_build_list(srv_store(req), 0, 0, &filter, &page, &list);
	if (rc < 0 || (results = cJSON_CreateArray()) == NULL) {
		srv_respond_engine_error(res, rc < 0 ? rc : LEC_ENOMEM);
		goto done;
	}
	for (i = 0; i < list.len; i++)
		if ((p = memo_get(srv_store(req), &memo,
				  list.items[i].project_id)) != NULL)
			cJSON_AddItemToArray(results,
					     build_json(req, p, &list.items[i],
							&flex));
	srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			 SRV_JSON_SORTED);
done:
	memo_dispose(&memo);
	lec_build_list_dispose(&list);
	srv_flex_dispose(&flex);
	return res->status;
}

int srv_v3_build_activity(struct srv_request *req, struct srv_response *res)
{
	struct lec_build_activity a;
	cJSON *body = NULL;
	int rc = lec_build_activity(srv_store(req), &a);

	if (rc < 0 || (body = cJSON_CreateObject()) == NULL) {
		srv_respond_engine_error(res, rc < 0 ? rc : LEC_ENOMEM);
		return res->status;
	}
	cJSON_AddNumberToObject(body, "newest", (double)a.newest);
	cJSON_AddNumberToObject(body, "unfinished", (double)a.unfinished);
	srv_respond_json(res, 200, body, SRV_JSON_SORTED);
	return res->status;
}

/* One waiting build: {"id", "position", "project", "version"}. */
static cJSON *queue_item(struct srv_request *req, struct project_memo *memo,
			 const struct lec_build *b)
{
	const struct lec_project *p = memo_get(srv_store(req), memo,
					       b->project_id);
	struct lec_version *v = NULL;
	int64_t position = 0;
	cJSON *o;

	if (p == NULL ||
	    lec_build_queue_position(srv_store(req), b, &position) < 0 ||
	    position == 0 || (o = cJSON_CreateObject()) == NULL)
		return NULL;
	if (b->version_id)
		lec_version_get_by_id(srv_store(req), b->version_id, &v);
	cJSON_AddNumberToObject(o, "id", (double)b->id);
	cJSON_AddNumberToObject(o, "position", (double)position);
	cJSON_AddStringToObject(o, "project", p->slug);
	if (v)
		cJSON_AddStringToObject(o, "version", v->slug);
	else
		cJSON_AddNullToObject(o, "version");
	lec_version_free(v);
	return o;
}

int srv_v3_build_queue(struct srv_request *req, struct srv_response *res)
{
	struct lec_build_filter filter = { .running = LEC_FILTER_TRUE };
	struct lec_page page = { QUEUE_MAX, 0 };
	struct lec_build_list list = { 0 };
	struct project_memo memo = { { 0 }, 0 };
	struct lec_build none = { .state = LEC_BUILD_STATE_TRIGGERED,
				  .created = INT64_MAX,
				  .id = INT64_MAX };
	cJSON *body = NULL, *results, *item;
	int64_t waiting = 0;
	size_t i;
	int rc;

	filter.admin_user_id = req->user->id;
	rc = lec_build_list(srv_store(req), 0, 0, &filter, &page, &list);
	/* How many wait on the whole instance: the place a build triggered
	 * after all of them would have, less one. */
	if (rc == LEC_OK)
		rc = lec_build_queue_position(srv_store(req), &none, &waiting);
	if (rc < 0 || (body = cJSON_CreateObject()) == NULL ||
	    (results = cJSON_AddArrayToObject(body, "results")) == NULL) {
		srv_respond_engine_error(res, rc < 0 ? rc : LEC_ENOMEM);
		goto done;
	}
	cJSON_AddNumberToObject(body, "count", (double)(waiting - 1));
	/* Oldest first, as the queue runs. */
	for (i = list.len; i > 0; i--)
		if (list.items[i - 1].state == LEC_BUILD_STATE_TRIGGERED &&
		    (item = queue_item(req, &memo, &list.items[i - 1])) != NULL)
			cJSON_AddItemToArray(results, item);
	srv_respond_json(res, 200, body, SRV_JSON_SORTED);
	body = NULL;
done:
	cJSON_Delete(body);
	memo_dispose(&memo);
	lec_build_list_dispose(&list);
	return res->status;
}
