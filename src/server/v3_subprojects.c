/*
 * v3 subprojects and translations (contract §4.5–4.6; behaviour notes
 * §1.5–§1.8): the parent's subproject relationships with their child
 * projects, linking and unlinking a child, and the list of a project's
 * translations. The parent is looked up first (v3_common.c): a project that
 * does not exist or that the requester cannot see is a 404 on every route
 * here; a relationship whose child they cannot see misses with the
 * relationship's own 404 message.
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

SRV_V3_FILL(fill_subprojects, lec_subproject,
	    lec_subproject_list(srv_store(req), parent->project->id,
				srv_viewer_id(req), page, &list),
	    subproject_object(req, item))

SRV_V3_LIST(srv_v3_subprojects_list, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_subprojects)

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
	const cJSON *item = srv_body_get(body, "child");

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

static int create_subproject(struct srv_request *req,
			     struct srv_response *res,
			     const struct srv_parent *parent, int64_t id,
			     cJSON *body, cJSON **out)
{
	struct lec_subproject *sub = NULL;
	const char *child = NULL, *alias = NULL;
	char number[NUMBER_TEXT_MAX];
	int rc;

	(void)id;
	if (read_child(body, number, sizeof(number), &child, res) < 0 ||
	    srv_body_string(body, "alias", "alias",
			    SRV_FIELD_NULLABLE | SRV_FIELD_BLANK, &alias,
			    res) < 0)
		return SRV_V3_ANSWERED;
	rc = lec_subproject_create(srv_store(req), parent->project->id, child,
				   alias, req->user->id, &sub);
	if (rc == LEC_OK)
		*out = subproject_object(req, sub);
	lec_subproject_free(sub);
	return rc;
}

SRV_V3_WRITE(srv_v3_subprojects_create, .parent = SRV_PARENT_PROJECT,
	     .apply = create_subproject, .status = 201)

/* The relationship of the alias params[1]. */
static int show_subproject(struct srv_request *req,
			   const struct srv_parent *parent, int64_t id,
			   const struct srv_flex *flex, cJSON **out)
{
	struct lec_subproject *sub = NULL;
	struct lec_store *store = srv_store(req);
	int rc;

	(void)id;
	(void)flex;
	rc = lec_subproject_get(store, parent->project->id, req->params[1],
				&sub);
	/* Relationships whose child the requester cannot see do not exist
	 * for them (the service's ProjectRelationship queryset). */
	if (rc == LEC_OK)
		rc = lec_project_can_view(store, sub->child.id,
					  srv_viewer_id(req));
	if (rc == 1)
		*out = subproject_object(req, sub);
	lec_subproject_free(sub);
	return rc == 1 ? LEC_OK : rc == 0 ? LEC_ENOTFOUND : rc;
}

SRV_V3_DETAIL(srv_v3_subproject_detail, .parent = SRV_PARENT_PROJECT,
	      .show = show_subproject, .not_found = NO_RELATIONSHIP)

int srv_v3_subproject_delete(struct srv_request *req,
			     struct srv_response *res)
{
	struct srv_parent parent;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	rc = lec_subproject_delete(srv_store(req), parent.project->id,
				   req->params[1]);
	if (rc == LEC_OK)
		srv_respond_empty(res, 204);
	else
		srv_v3_respond_error(res, rc, NO_RELATIONSHIP);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

/* A translation as a list shows a project, fields and omit applied. */
static cJSON *translation_object(struct srv_request *req,
				 const struct lec_project *p,
				 const struct srv_flex *flex)
{
	cJSON *item = srv_v3_project(req, p, flex, 1);

	srv_flex_apply(flex, item);
	return item;
}

SRV_V3_FILL(fill_translations, lec_project,
	    lec_project_translations(srv_store(req), parent->project->id,
				     srv_viewer_id(req), page, &list),
	    translation_object(req, item, flex))

SRV_V3_LIST(srv_v3_translations_list, .parent = SRV_PARENT_PROJECT, .flex = 1,
	    .fill = fill_translations)
