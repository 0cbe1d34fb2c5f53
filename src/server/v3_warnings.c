/*
 * A build's warnings, Lectern's extension of v3 (docs/api.md):
 * GET /api/v3/projects/<p>/builds/<id>/warnings/ lists the build's records
 * {file, line, kind, message, new}, new ones first, paginated as every v3
 * list; ?new=true keeps the new ones. Seen by whoever sees the build (the
 * build lookup of v3_builds.c), as its notifications are. The build's own
 * object carries their totals (v3_serialize.c).
 */
#include "lectern/warning.h"
#include "v3.h"

cJSON *srv_v3_warning(const struct lec_warning *w)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "file", w->file);
	cJSON_AddStringToObject(o, "kind", lec_warning_kind_code(w->kind));
	cJSON_AddNumberToObject(o, "line", w->line);
	cJSON_AddStringToObject(o, "message", w->message);
	cJSON_AddBoolToObject(o, "new", w->is_new);
	return o;
}

int srv_v3_build_warnings_list(struct srv_request *req,
			       struct srv_response *res)
{
	struct lec_warning_list list = { 0 };
	struct lec_warning_filter filter = { 0 };
	struct srv_parent parent;
	struct lec_page page;
	int64_t build_id;
	cJSON *results;
	size_t i;
	int rc;

	srv_page_parse(req, &page);
	if (srv_v3_build_find(req, res, req->params[1], &parent, &build_id) < 0)
		return res->status;
	srv_v3_parent_dispose(&parent);
	filter.new_only = srv_query_filter(req, "new") == LEC_FILTER_TRUE;
	rc = lec_warning_list(srv_store(req), build_id, &filter, &page, &list);
	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	if ((results = cJSON_CreateArray()) == NULL) {
		lec_warning_list_dispose(&list);
		return srv_respond_internal(res, "out of memory");
	}
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(results, srv_v3_warning(&list.items[i]));
	srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			 SRV_JSON_SORTED);
	lec_warning_list_dispose(&list);
	return res->status;
}
