/*
 * Steps most v3 handlers share: loading the project of the URL with the
 * visibility rules of behaviour notes §1.7, reading query booleans the way
 * django-filter does, and integer ids from the path.
 */
#include <string.h>
#include <strings.h>

#include "lectern/project.h"
#include "lectern/user.h"
#include "v3.h"

int64_t srv_viewer_id(const struct srv_request *req)
{
	return req->user ? req->user->id : 0;
}

struct lec_project *srv_v3_load_project(struct srv_request *req,
					struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *p = NULL;
	int rc;

	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return NULL;
	}
	rc = lec_project_get(store, req->params[0], &p);
	if (rc == LEC_OK) {
		rc = lec_project_can_view(store, p->id, srv_viewer_id(req));
		if (rc == 1)
			return p;
		lec_project_free(p);
		if (rc == 0)
			rc = LEC_ENOTFOUND;
	}
	if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404,
				   "No Project matches the given query.");
	else
		srv_respond_engine_error(res, rc);
	return NULL;
}

int srv_query_bool(const struct srv_request *req, const char *key)
{
	const char *v = srv_query(req, key);

	if (v == NULL)
		return -1;
	if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0)
		return 1;
	if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
		return 0;
	return -1;
}

int64_t srv_param_id(const char *text)
{
	int64_t v = 0;

	if (text == NULL || *text == '\0' || strlen(text) > 18)
		return -1;
	for (; *text; text++) {
		if (*text < '0' || *text > '9')
			return -1;
		v = v * 10 + (*text - '0');
	}
	return v;
}
