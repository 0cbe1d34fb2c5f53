/*
 * Steps most v3 handlers share: the one lookup of a nested route's parent
 * (project, and version where the path names one), the answers of a nested
 * list, detail, write and delete around what each resource fills in,
 * reading query booleans the way django-filter does, and integer ids from
 * the path.
 *
 * One visibility rule holds for every route under a project: whatever
 * belongs to a project the requester cannot see is a 404 with the very body
 * a project that does not exist is answered with ("No Project matches the
 * given query."), so no answer tells a private project from a missing one. The
 * service looks a nested view's parent up with get_object_or_404 before
 * anything else; Lectern does that on every nested route, lists included,
 * rather than answering an empty page for a parent that is not there.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lectern/project.h"
#include "lectern/user.h"
#include "body.h"
#include "lectern/version.h"
#include "v3.h"

#define NO_PROJECT "No Project matches the given query."
#define NO_VERSION "No Version matches the given query."
/* Digits of the largest id read from a path: any 18 digits fit in an
 * int64_t. */
#define PARAM_ID_DIGITS_MAX 18

int64_t srv_viewer_id(const struct srv_request *req)
{
	return req->user ? req->user->id : 0;
}

/* The requester's rights were looked up once with the parent: an admin
 * sees every version, anyone else what every viewer of the project sees,
 * so no row of a list asks the database again. */
int srv_v3_version_visible(struct lec_store *store,
			   const struct srv_parent *parent,
			   const struct lec_version *v)
{
	if (v == NULL)
		return parent->admin;
	return lec_version_can_view(store, parent->project, v,
				    parent->admin ? LEC_VIEWER_ALL
						  : LEC_VIEWER_ANONYMOUS,
				    LEC_VERSION_VIEW_EXTERNAL_BUILDS) == 1;
}

/* The project of params[0] if the requester may see it, with whether they
 * administer it. LEC_ENOTFOUND covers both "no such project" and "not
 * yours to see", so that the two answer alike. */
static int load_project(struct srv_request *req, struct lec_store *store,
			struct srv_parent *out)
{
	int64_t viewer = srv_viewer_id(req);
	int rc;

	if ((rc = lec_project_get(store, req->params[0], &out->project)) < 0)
		return rc;
	if ((rc = lec_project_can_view(store, out->project->id, viewer)) < 0)
		return rc;
	if (rc == 0)
		return LEC_ENOTFOUND;
	rc = viewer ? lec_project_is_admin(store, out->project->id, viewer) : 0;
	if (rc < 0)
		return rc;
	out->admin = rc;
	return LEC_OK;
}

/* The version of params[1] if this route shows it to the requester. */
static int load_version(struct srv_request *req, struct lec_store *store,
			enum srv_parent_kind kind, struct srv_parent *out)
{
	int rc = lec_version_get(store, out->project->id, req->params[1],
				 &out->version);

	if (rc < 0)
		return rc;
	if (kind == SRV_PARENT_VERSION &&
	    out->version->type == LEC_VERSION_EXTERNAL)
		return LEC_ENOTFOUND;
	return srv_v3_version_visible(store, out, out->version)
		       ? LEC_OK
		       : LEC_ENOTFOUND;
}

int srv_v3_parent_load(struct srv_request *req, struct srv_response *res,
		       enum srv_parent_kind kind, struct srv_parent *out)
{
	struct lec_store *store = srv_store(req);
	const char *missing = NO_PROJECT;
	int rc;

	memset(out, 0, sizeof(*out));
	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	rc = load_project(req, store, out);
	if (rc == LEC_OK && kind != SRV_PARENT_PROJECT) {
		missing = NO_VERSION;
		rc = load_version(req, store, kind, out);
	}
	if (rc == LEC_OK)
		return 0;
	srv_v3_respond_error(res, rc, missing);
	srv_v3_parent_dispose(out);
	return -1;
}

void srv_v3_parent_dispose(struct srv_parent *parent)
{
	if (parent == NULL)
		return;
	lec_version_free(parent->version);
	lec_project_free(parent->project);
	memset(parent, 0, sizeof(*parent));
}

int srv_v3_respond_error(struct srv_response *res, int rc,
			 const char *not_found)
{
	if (rc == LEC_ENOTFOUND && not_found)
		return srv_respond_detail(res, 404, not_found);
	return srv_respond_engine_error(res, rc);
}

int srv_v3_respond_list(struct srv_request *req, struct srv_response *res,
			const struct srv_v3_list *list)
{
	struct srv_parent parent;
	struct srv_flex flex = { 0 };
	struct lec_page page;
	struct srv_v3_fill f = { req, res, &parent, &page, &flex, NULL, 0 };

	if (list->flex && srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	if (srv_v3_parent_load(req, res, list->parent, &parent) < 0)
		goto done;
	if ((f.results = cJSON_CreateArray()) == NULL) {
		srv_respond_internal(res, "out of memory");
		goto done;
	}
	if (list->fill(&f) < 0)
		goto done;
	srv_respond_page(req, res, &page, f.total, f.results, LEC_OK,
			 SRV_JSON_SORTED);
	f.results = NULL; /* consumed by the envelope */
done:
	cJSON_Delete(f.results);
	srv_v3_parent_dispose(&parent);
	srv_flex_dispose(&flex);
	return res->status;
}

int srv_v3_respond_detail(struct srv_request *req, struct srv_response *res,
			  const struct srv_v3_detail *detail)
{
	struct srv_parent parent;
	struct srv_flex flex = { 0 };
	cJSON *o = NULL;
	int64_t id = 0;
	int rc;

	if (srv_v3_parent_load(req, res, detail->parent, &parent) < 0)
		return res->status;
	if ((detail->by_id && srv_param_id(req->params[1], res, &id) < 0) ||
	    (detail->flex && srv_flex_parse(req, &flex, res) < 0))
		goto done;
	rc = detail->show(req, &parent, id, &flex, &o);
	if (rc == LEC_OK)
		srv_respond_json(res, 200, o, SRV_JSON_SORTED);
	else
		srv_v3_respond_error(res, rc, detail->not_found);
done:
	srv_flex_dispose(&flex);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

int srv_v3_respond_delete(struct srv_request *req, struct srv_response *res,
			  const struct srv_v3_delete *delete)
{
	struct srv_parent parent;
	int64_t id;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	if (srv_param_id(req->params[1], res, &id) == 0) {
		rc = delete->del(srv_store(req), parent.project->id, id);
		if (rc == LEC_OK)
			srv_respond_empty(res, 204);
		else
			srv_v3_respond_error(res, rc, delete->not_found);
	}
	srv_v3_parent_dispose(&parent);
	return res->status;
}

int srv_v3_respond_write(struct srv_request *req, struct srv_response *res,
			 const struct srv_v3_write *write)
{
	struct srv_parent parent;
	cJSON *body = NULL, *o = NULL;
	int64_t id = 0;
	int rc;

	if (srv_v3_parent_load(req, res, write->parent, &parent) < 0)
		return res->status;
	if (write->by_id && srv_param_id(req->params[1], res, &id) < 0)
		goto done;
	rc = write->find ? write->find(req, &parent, id) : LEC_OK;
	if (rc == LEC_OK && (body = srv_parse_body(req, res)) == NULL)
		goto done;
	if (rc == LEC_OK)
		rc = write->apply(req, res, &parent, id, body, &o);
	if (rc == LEC_OK && write->status == 204)
		srv_respond_empty(res, 204);
	else if (rc == LEC_OK)
		srv_respond_json(res, write->status, o, SRV_JSON_SORTED);
	else if (rc != SRV_V3_ANSWERED)
		srv_v3_respond_error(res, rc, write->not_found);
done:
	if (body && write->secret)
		srv_body_wipe(body, write->secret);
	cJSON_Delete(body);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

void srv_v3_secret_once(cJSON *o, char *secret)
{
	if (secret == NULL)
		return;
	if (o)
		cJSON_AddStringToObject(o, "secret", secret);
	explicit_bzero(secret, strlen(secret));
	free(secret);
}

enum lec_filter_bool srv_query_filter(const struct srv_request *req,
				      const char *key)
{
	const char *v = srv_query(req, key);

	if (v == NULL)
		return LEC_FILTER_ANY;
	if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0)
		return LEC_FILTER_TRUE;
	if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
		return LEC_FILTER_FALSE;
	return LEC_FILTER_ANY;
}

int srv_param_id(const char *text, struct srv_response *res, int64_t *id)
{
	int64_t v = 0;
	const char *c;

	if (text == NULL || *text == '\0' || strlen(text) > PARAM_ID_DIGITS_MAX)
		goto refuse;
	for (c = text; *c; c++) {
		if (*c < '0' || *c > '9')
			goto refuse;
		v = v * 10 + (*c - '0');
	}
	*id = v;
	return 0;
refuse:
	srv_respond_detail(res, 404, "Not found.");
	return -1;
}
