/*
 * v3 organizations of the business edition (contract §4.9, behaviour notes
 * §1.5 "Organization"): the list of the user's organizations, one
 * organization, the projects of one, and its teams. The router answers 404 for these
 * routes in the community edition and 401 for anonymous requests, so the
 * handlers always have an authenticated user.
 *
 * Who sees what follows the service: an organization is visible to its
 * owners and to the members of its teams; its project list is for owners
 * and for users who administer at least one of its projects (a team member
 * who does neither gets 403). Where the service looks the organization up
 * there without the visibility filter, so that an outsider learns 403
 * rather than 404 (notes §1.5), Lectern answers an outsider the 404 of an
 * organization that does not exist: one parent rule for every nested
 * route. That list holds the projects the user may see: public ones, and
 * private ones the user maintains or reads through the organization.
 */
#include <string.h>

#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "v3.h"

#define NO_ORGANIZATION "No Organization matches the given query."
#define FORBIDDEN "You do not have permission to perform this action."

/* Serializing ------------------------------------------------------------- */

/* [{"username": ...}] of the usernames list (an organization's owners, a
 * team's members) reads for id, sorted by username. */
static int usernames(struct lec_store *store, int64_t id,
		     int (*list)(struct lec_store *, int64_t,
				 struct lec_org_usernames *),
		     cJSON **out)
{
	struct lec_org_usernames names = { 0 };
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = list(store, id, &names)) < 0)
		return rc;
	*out = cJSON_CreateArray();
	for (i = 0; *out && i < names.len; i++) {
		cJSON *user = cJSON_CreateObject();

		cJSON_AddStringToObject(user, "username", names.items[i]);
		cJSON_AddItemToArray(*out, user);
	}
	lec_org_usernames_dispose(&names);
	return LEC_OK;
}

static int org_owners(struct lec_store *store, const struct lec_org *org,
		      cJSON **out)
{
	return usernames(store, org->id, lec_org_owner_list, out);
}

/* The service's Organization object; *out NULL on an engine error. */
static int org_object(struct srv_request *req, struct lec_store *store,
		      const struct lec_org *org, cJSON **out)
{
	cJSON *o, *owners;
	int rc;

	*out = NULL;
	if ((rc = org_owners(store, org, &owners)) < 0)
		return rc;
	if ((o = cJSON_CreateObject()) == NULL) {
		cJSON_Delete(owners);
		return LEC_ENOMEM;
	}
	cJSON_AddItemToObject(o, "_links", srv_v3_org_links(req, org->slug));
	srv_v3_add_time_us(o, "created", org->created);
	cJSON_AddStringToObject(o, "description", org->description);
	cJSON_AddBoolToObject(o, "disabled", org->disabled);
	cJSON_AddStringToObject(o, "email", org->email);
	srv_v3_add_time_us(o, "modified", org->modified);
	cJSON_AddStringToObject(o, "name", org->name);
	cJSON_AddItemToObject(o, "owners", owners);
	cJSON_AddStringToObject(o, "slug", org->slug);
	cJSON_AddStringToObject(o, "url", org->url);
	*out = o;
	return LEC_OK;
}

/* Permissions ------------------------------------------------------------- */

/* *out = whether the organization slug is one of the user's own: they own
 * it or belong to one of its teams (the service's queryset). */
static int org_is_mine(struct lec_store *store, int64_t user_id,
		       const char *slug, int *out)
{
	struct lec_org_list mine = { 0 };
	size_t i;
	int rc;

	*out = 0;
	rc = lec_org_list_for_user(store, user_id, NULL, &mine);
	for (i = 0; rc == LEC_OK && i < mine.len && !*out; i++)
		*out = strcmp(mine.items[i].slug, slug) == 0;
	lec_org_list_dispose(&mine);
	return rc;
}

/* The organization named by the path, visible to the requester (owner or
 * team member). On failure fills res and returns NULL. */
static struct lec_org *load_visible_org(struct srv_request *req,
					struct lec_store *store,
					struct srv_response *res)
{
	struct lec_org *org = NULL;
	int rc, visible = 0;

	rc = org_is_mine(store, req->user->id, req->params[0], &visible);
	if (rc == LEC_OK && visible)
		rc = lec_org_get(store, req->params[0], &org);
	if (rc < 0)
		srv_respond_engine_error(res, rc);
	else if (!visible)
		srv_respond_detail(res, 404, NO_ORGANIZATION);
	return org;
}

/* *out = whether the user administers some project of the organization,
 * as a maintainer (or superuser) or through an admin team. */
static int admins_some_project(struct lec_store *store, int64_t org_id,
			       int64_t user_id, int *out)
{
	struct lec_org_project_ids ids = { 0 };
	size_t i;
	int rc;

	*out = 0;
	if ((rc = lec_org_project_ids(store, org_id, NULL, &ids)) < 0)
		return rc;
	for (i = 0; i < ids.len && !*out && rc >= 0; i++) {
		rc = lec_project_is_admin(store, ids.items[i], user_id);
		if (rc == 1)
			*out = 1;
		else if (rc >= 0)
			rc = lec_org_is_project_admin(store, ids.items[i],
						      user_id, out);
	}
	lec_org_project_ids_dispose(&ids);
	return rc < 0 ? rc : LEC_OK;
}

/* Who may list one of an organization's nested resources. */
enum org_readers {
	ORG_OWNERS,                    /* its teams (IsOrganizationAdmin) */
	ORG_OWNERS_AND_PROJECT_ADMINS, /* its projects */
};

/* 0 when the user is one of the readers; otherwise res holds the refusal:
 * 403 for a member of one of its teams, and for anyone else the 404 of an
 * organization that does not exist, so that outsiders cannot tell the two
 * apart. */
static int check_access(struct lec_store *store, const struct lec_org *org,
			int64_t user_id, enum org_readers readers,
			struct srv_response *res)
{
	int allowed = 0, member = 0;
	int rc;

	if ((rc = lec_org_is_owner(store, org->id, user_id, &allowed)) < 0 ||
	    (!allowed && readers == ORG_OWNERS_AND_PROJECT_ADMINS &&
	     (rc = admins_some_project(store, org->id, user_id, &allowed)) <
		     0) ||
	    (!allowed &&
	     (rc = org_is_mine(store, user_id, org->slug, &member)) < 0)) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	if (allowed)
		return 0;
	if (member)
		srv_respond_detail(res, 403, FORBIDDEN);
	else
		srv_respond_detail(res, 404, NO_ORGANIZATION);
	return -1;
}

/* The organization of the path, whoever may see it (the nested routes
 * decide that themselves); NULL after filling res with its 404 or an
 * error. */
static struct lec_org *find_org(struct srv_request *req,
				struct lec_store *store,
				struct srv_response *res)
{
	struct lec_org *org = NULL;
	int rc;

	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return NULL;
	}
	if ((rc = lec_org_get(store, req->params[0], &org)) == LEC_OK)
		return org;
	srv_v3_respond_error(res, rc, NO_ORGANIZATION);
	return NULL;
}

/* An organization's nested list being answered: the organization of the
 * path, and the list's fields/omit/expand and page. */
struct org_list {
	struct lec_store *store;
	struct lec_org *org;
	struct srv_flex flex;
	struct lec_page page;
};

/* Find the organization, check the user is one of its readers, read the
 * query: 0, or -1 after filling res (and disposing of what it read). */
static int org_list_open(struct srv_request *req, struct srv_response *res,
			 enum org_readers readers, struct org_list *l)
{
	l->store = srv_store(req);
	if ((l->org = find_org(req, l->store, res)) == NULL)
		return -1;
	if (check_access(l->store, l->org, req->user->id, readers, res) < 0 ||
	    srv_flex_parse(req, &l->flex, res) < 0) {
		lec_org_free(l->org);
		return -1;
	}
	srv_page_parse(req, &l->page);
	return 0;
}

static void org_list_close(struct org_list *l)
{
	srv_flex_dispose(&l->flex);
	lec_org_free(l->org);
}

/* Handlers ---------------------------------------------------------------- */

int srv_v3_orgs_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_org_list list = { 0 };
	struct lec_store *store = srv_store(req);
	struct lec_page page;
	cJSON *results = NULL;
	size_t i;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	srv_page_parse(req, &page);
	if ((rc = lec_org_list_for_user(store, req->user->id, &page, &list)) <
	    0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++) {
		cJSON *item;

		if ((rc = org_object(req, store, &list.items[i], &item)) < 0) {
			srv_respond_engine_error(res, rc);
			goto done;
		}
		cJSON_AddItemToArray(results, item);
	}
	srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			 SRV_JSON_SORTED);
	results = NULL; /* consumed by the envelope */
done:
	cJSON_Delete(results);
	lec_org_list_dispose(&list);
	return res->status;
}

int srv_v3_org_detail(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	struct lec_org *org;
	cJSON *o;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	if ((org = load_visible_org(req, store, res)) == NULL)
		return res->status;
	if ((rc = org_object(req, store, org, &o)) < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_json(res, 200, o, SRV_JSON_SORTED);
	lec_org_free(org);
	return res->status;
}

/* The organization's projects the user may see, ordered by slug: public
 * ones and those the user may read as a maintainer or through the
 * organization (the service's Project.objects.api(user)). */
static int visible_project_ids(struct lec_store *store, int64_t org_id,
			       int64_t user_id,
			       struct lec_org_project_ids *out)
{
	size_t i, kept = 0;
	int rc, visible = 0;

	rc = lec_org_project_ids(store, org_id, NULL, out);
	for (i = 0; rc >= 0 && i < out->len; i++) {
		rc = lec_project_can_view(store, out->items[i], user_id);
		visible = rc == 1;
		if (rc == 0)
			rc = lec_org_can_read_project(store, out->items[i],
						      user_id, &visible);
		if (visible)
			out->items[kept++] = out->items[i];
	}
	out->len = out->total = kept;
	return rc < 0 ? rc : LEC_OK;
}

/* The page of ids as Project objects; *out is owned by the caller. */
static int project_page(struct srv_request *req, struct lec_store *store,
			const struct lec_org_project_ids *ids,
			const struct lec_page *page,
			const struct srv_flex *flex, cJSON **out)
{
	cJSON *list = cJSON_CreateArray();
	struct lec_project *p;
	int rc = list ? LEC_OK : LEC_ENOMEM;
	size_t i;

	*out = NULL;
	for (i = page->offset;
	     rc == LEC_OK && i < ids->len && i - page->offset < page->limit;
	     i++) {
		cJSON *item;

		if ((rc = lec_project_get_by_id(store, ids->items[i], &p)) < 0)
			break;
		item = srv_v3_project(req, p, flex, 1);
		srv_flex_apply(flex, item);
		cJSON_AddItemToArray(list, item);
		lec_project_free(p);
	}
	if (rc < 0) {
		cJSON_Delete(list);
		return rc;
	}
	*out = list;
	return LEC_OK;
}

int srv_v3_org_projects(struct srv_request *req, struct srv_response *res)
{
	struct lec_org_project_ids ids = { 0 };
	struct org_list l;
	cJSON *results = NULL;
	int rc;

	if (org_list_open(req, res, ORG_OWNERS_AND_PROJECT_ADMINS, &l) < 0)
		return res->status;
	/* permit_list_expands is empty here: fields/omit apply, expand
	 * does not (notes §1.3). */
	l.flex.nexpand = 0;
	/* Visibility is decided per project, so the page is cut here. */
	if ((rc = visible_project_ids(l.store, l.org->id, req->user->id,
				      &ids)) == LEC_OK)
		rc = project_page(req, l.store, &ids, &l.page, &l.flex,
				  &results);
	srv_respond_page(req, res, &l.page, ids.total, results, rc,
			 SRV_JSON_SORTED);
	lec_org_project_ids_dispose(&ids);
	org_list_close(&l);
	return res->status;
}

/* The organization's teams, for its owners (the service's
 * IsOrganizationAdmin): a member of one of its teams gets 403, anyone
 * else the 404 of an organization that does not exist, as for its
 * projects. Flex: fields/omit, and expand=members. */
int srv_v3_org_teams(struct srv_request *req, struct srv_response *res)
{
	struct lec_team_list list = { 0 };
	struct org_list l;
	cJSON *results, *members;
	size_t i;
	int rc;

	if (org_list_open(req, res, ORG_OWNERS, &l) < 0)
		return res->status;
	rc = lec_team_list(l.store, l.org->id, &l.page, &list);
	results = rc < 0 ? NULL : cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++) {
		cJSON *t = srv_v3_team(&list.items[i]);

		if (srv_flex_expands(&l.flex, "members")) {
			if ((rc = usernames(l.store, list.items[i].id,
					    lec_team_member_list, &members)) < 0)
				break;
			cJSON_AddItemToObject(t, "members", members);
		}
		srv_flex_apply(&l.flex, t);
		cJSON_AddItemToArray(results, t);
	}
	srv_respond_page(req, res, &l.page, list.total, results, rc,
			 SRV_JSON_SORTED);
	lec_team_list_dispose(&list);
	org_list_close(&l);
	return res->status;
}
