/*
 * v3 subprojects and translations (contract §4.5–4.6; behaviour notes
 * §1.5–§1.8): the parent's subproject relationships with their child
 * projects, linking and unlinking a child, and the list of a project's
 * translations. Nested lists on a project that does not exist are empty
 * (200, count 0), as the service's filtered querysets are; detail lookups
 * miss with the relationship's own 404 message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lectern/project.h"
#include "v3.h"

#define NO_RELATIONSHIP "No ProjectRelationship matches the given query."

/* Room for the decimal text of a JSON number used as a slug. */
#define NUMBER_TEXT_MAX 32

/* A Subproject: the relationship's links, its alias, and the child as a
 * full Project without subproject_of (the service's ChildProjectSerializer).
 * The child's documentation URL follows the parent's domain because the
 * engine fills its superproject fields. */
static cJSON *subproject_object(struct srv_request *req,
				const struct lec_subproject *sub)
{
	cJSON *o = cJSON_CreateObject(), *links, *child;
	char path[600];

	links = cJSON_AddObjectToObject(o, "_links");
	snprintf(path, sizeof(path), "/api/v3/projects/%s/subprojects/%s/",
		 sub->parent_slug, sub->alias);
	cJSON_AddStringToObject(links, "_self", path);
	snprintf(path, sizeof(path), "/api/v3/projects/%s/", sub->parent_slug);
	cJSON_AddStringToObject(links, "parent", path);
	cJSON_AddStringToObject(o, "alias", sub->alias);
	child = srv_v3_project(req, &sub->child, NULL, 0);
	cJSON_DeleteItemFromObjectCaseSensitive(child, "subproject_of");
	cJSON_AddItemToObject(o, "child", child);
	return o;
}

/* An empty page: what the service's filtered querysets give for a parent
 * that does not exist or cannot be seen. */
static int respond_empty_page(struct srv_request *req,
			      struct srv_response *res,
			      const struct lec_page *page)
{
	return srv_respond_json(res, 200,
				srv_page_envelope(req, page, 0,
						  cJSON_CreateArray()),
				SRV_JSON_SORTED);
}

/* The project of the URL for a nested list, without a visibility check
 * (the lists filter their rows instead). *out is NULL when it does not
 * exist; returns 0, or -1 after filling res. */
static int find_parent(struct srv_request *req, struct srv_response *res,
		       struct lec_project **out)
{
	struct lec_store *store = srv_store(req);
	int rc;

	*out = NULL;
	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	rc = lec_project_get(store, req->params[0], out);
	if (rc == LEC_OK || rc == LEC_ENOTFOUND)
		return 0;
	srv_respond_engine_error(res, rc);
	return -1;
}

int srv_v3_subprojects_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_subproject_list list = { 0 };
	struct lec_project *parent = NULL;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	srv_page_parse(req, &page);
	if (find_parent(req, res, &parent) < 0)
		return res->status;
	if (parent == NULL)
		return respond_empty_page(req, res, &page);
	rc = lec_subproject_list(srv_store(req), parent->id, srv_viewer_id(req),
				 &page, &list);
	lec_project_free(parent);
	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++)
		cJSON_AddItemToArray(results,
				     subproject_object(req, &list.items[i]));
	rc = srv_respond_json(res, 200,
			      srv_page_envelope(req, &page, list.total, results),
			      SRV_JSON_SORTED);
	lec_subproject_list_dispose(&list);
	return rc;
}

static int child_error(struct srv_response *res, const char *msg)
{
	srv_respond_field_error(res, "child", msg);
	return -1;
}

/* Read `child` the way the service's slug-related field does: "" counts
 * as null, and a number or boolean is looked up by its text (so it names
 * no project unless a slug is spelled that way). */
static int read_child(const cJSON *body, char *scratch, size_t cap,
		      const char **out, struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(body, "child");

	*out = NULL;
	if (item == NULL)
		return child_error(res, "This field is required.");
	if (cJSON_IsNull(item) ||
	    (cJSON_IsString(item) && item->valuestring[0] == '\0'))
		return child_error(res, "This field may not be null.");
	if (cJSON_IsString(item)) {
		*out = item->valuestring;
	} else if (cJSON_IsBool(item)) {
		*out = cJSON_IsTrue(item) ? "True" : "False";
	} else if (cJSON_IsNumber(item) && item->valuedouble > -1e15 &&
		   item->valuedouble < 1e15 &&
		   item->valuedouble == (double)(long long)item->valuedouble) {
		snprintf(scratch, cap, "%lld", (long long)item->valuedouble);
		*out = scratch;
	} else {
		return child_error(res, "Invalid value.");
	}
	return 0;
}

int srv_v3_subprojects_create(struct srv_request *req,
			      struct srv_response *res)
{
	struct lec_project *parent = NULL;
	struct lec_subproject *sub = NULL;
	struct lec_store *store = srv_store(req);
	const char *child = NULL, *alias = NULL;
	char number[NUMBER_TEXT_MAX];
	cJSON *body = NULL;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	/* The router has checked that the parent exists and is ours. */
	if ((rc = lec_project_get(store, req->params[0], &parent)) < 0)
		return srv_respond_engine_error(res, rc);
	if ((body = srv_parse_body(req, res)) == NULL)
		goto done;
	if (read_child(body, number, sizeof(number), &child, res) < 0 ||
	    srv_body_string(body, "alias", "alias",
			    SRV_FIELD_NULLABLE | SRV_FIELD_BLANK, &alias,
			    res) < 0)
		goto done;
	rc = lec_subproject_create(store, parent->id, child, alias,
				   req->user->id, &sub);
	if (rc < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_json(res, 201, subproject_object(req, sub),
				 SRV_JSON_SORTED);
done:
	lec_subproject_free(sub);
	cJSON_Delete(body);
	lec_project_free(parent);
	return res->status;
}

int srv_v3_subproject_detail(struct srv_request *req,
			     struct srv_response *res)
{
	struct lec_project *parent = NULL;
	struct lec_subproject *sub = NULL;
	struct lec_store *store = srv_store(req);
	int rc;

	if (find_parent(req, res, &parent) < 0)
		return res->status;
	if (parent == NULL)
		return srv_respond_detail(res, 404, NO_RELATIONSHIP);
	rc = lec_subproject_get(store, parent->id, req->params[1], &sub);
	/* Relationships whose child the requester cannot see do not exist
	 * for them (the service's ProjectRelationship queryset). */
	if (rc == LEC_OK)
		rc = lec_project_can_view(store, sub->child.id,
					  srv_viewer_id(req));
	if (rc == 1)
		srv_respond_json(res, 200, subproject_object(req, sub),
				 SRV_JSON_SORTED);
	else if (rc == 0 || rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, NO_RELATIONSHIP);
	else
		srv_respond_engine_error(res, rc);
	lec_subproject_free(sub);
	lec_project_free(parent);
	return res->status;
}

int srv_v3_subproject_delete(struct srv_request *req,
			     struct srv_response *res)
{
	struct lec_project *parent = NULL;
	struct lec_store *store = srv_store(req);
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	if ((rc = lec_project_get(store, req->params[0], &parent)) < 0)
		return srv_respond_engine_error(res, rc);
	rc = lec_subproject_delete(store, parent->id, req->params[1]);
	if (rc == LEC_OK)
		srv_respond_empty(res, 204);
	else if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, NO_RELATIONSHIP);
	else
		srv_respond_engine_error(res, rc);
	lec_project_free(parent);
	return res->status;
}

int srv_v3_translations_list(struct srv_request *req,
			     struct srv_response *res)
{
	struct lec_project_list list = { 0 };
	struct lec_project *main = NULL;
	struct srv_flex flex;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if (srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	if (find_parent(req, res, &main) < 0)
		goto done;
	if (main == NULL) {
		respond_empty_page(req, res, &page);
		goto done;
	}
	rc = lec_project_translations(srv_store(req), main->id,
				      srv_viewer_id(req), &page, &list);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++) {
		cJSON *item = srv_v3_project(req, &list.items[i], &flex, 1);

		srv_flex_apply(&flex, item);
		cJSON_AddItemToArray(results, item);
	}
	srv_respond_json(res, 200,
			 srv_page_envelope(req, &page, list.total, results),
			 SRV_JSON_SORTED);
done:
	lec_project_list_dispose(&list);
	lec_project_free(main);
	srv_flex_dispose(&flex);
	return res->status;
}
