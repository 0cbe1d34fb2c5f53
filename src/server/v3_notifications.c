/*
 * v3 notifications (the service's NotificationsForUserViewSet and its
 * project, build and organization views): lists with the state filters,
 * a detail each, and PATCH or PUT of the state, the one writable field.
 *
 * Each route resolves to a scope first (who may see what, in the engine's
 * filter terms); one list path and one detail path then serve them all:
 * - the user's feed: what is attached to them, to projects they administer
 *   and to organizations they own, unread or read only (for_user "all");
 * - a project's: its admins (the router's check), every state;
 * - a build's: whoever sees the build; changing one takes an admin (the
 *   router's check);
 * - an organization's (business edition): its owners; a team member gets
 *   403, anyone else the 404 of an organization that does not exist;
 * - a user's (/api/v3/users/<name>/notifications/): theirs alone, 403 for
 *   anyone else (the service's IsCurrentUser).
 */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "lectern/notification.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "v3.h"

#define NO_NOTIFICATION "No Notification matches the given query."
#define NO_ORGANIZATION "No Organization matches the given query."
#define OPEN_STATES                                                          \
	((1u << LEC_NOTIFICATION_UNREAD) | (1u << LEC_NOTIFICATION_READ))

enum scope_kind {
	SCOPE_FEED,
	SCOPE_PROJECT,
	SCOPE_BUILD,
	SCOPE_ORG,
	SCOPE_USER,
};

/* A route's scope: the engine filter it lists with, and which path
 * parameter holds a detail's notification id. */
struct scope {
	struct lec_notification_filter filter;
	int id_param;
};

/* Serializing ----------------------------------------------------------- */

/* The service's icon classes of a message type (Message
 * .get_display_icon_classes). */
static const char *icon_classes(const char *type)
{
	if (type && strcmp(type, "error") == 0)
		return "fas fa-circle-xmark";
	if (type && strcmp(type, "warning") == 0)
		return "fas fa-circle-exclamation";
	return "fas fa-circle-info";
}

/* The notification's own URL, under what it is attached to (the model's
 * get_absolute_url). */
static void self_url(struct srv_request *req, const struct lec_notification *n,
		     char *buf, size_t size)
{
	const char *origin = srv_request_origin(req);
	const char *slug = n->attached_slug ? n->attached_slug : "";
	long long id = (long long)n->id;

	switch (n->target) {
	case LEC_NOTIFICATION_BUILD:
		snprintf(buf, size,
			 "%s/api/v3/projects/%s/builds/%lld/notifications/%lld/",
			 origin, slug, (long long)n->attached_id, id);
		break;
	case LEC_NOTIFICATION_ORGANIZATION:
		snprintf(buf, size,
			 "%s/api/v3/organizations/%s/notifications/%lld/",
			 origin, slug, id);
		break;
	case LEC_NOTIFICATION_USER:
		snprintf(buf, size, "%s/api/v3/users/%s/notifications/%lld/",
			 origin, slug, id);
		break;
	default:
		snprintf(buf, size,
			 "%s/api/v3/projects/%s/notifications/%lld/", origin,
			 slug, id);
	}
}

/* Lectern's extension: what a notification is about, so that a client
 * names it and opens it without knowing ids: "project" (the slug, for a
 * build's and a project's notifications; else null) and "build" ({"id",
 * "version", "_links": {"_self"}}: a build's own, or the one a project's
 * names; else null). */
static void add_about(struct srv_request *req,
		      const struct lec_notification *n, cJSON *o)
{
	int of_project = n->target == LEC_NOTIFICATION_BUILD ||
			 n->target == LEC_NOTIFICATION_PROJECT;
	char url[SRV_MAX_HOST + 512];
	cJSON *b, *links;

	if (of_project && n->attached_slug)
		cJSON_AddStringToObject(o, "project", n->attached_slug);
	else
		cJSON_AddNullToObject(o, "project");
	if (!of_project || n->attached_slug == NULL || n->build_id <= 0 ||
	    (b = cJSON_AddObjectToObject(o, "build")) == NULL) {
		cJSON_AddNullToObject(o, "build");
		return;
	}
	cJSON_AddNumberToObject(b, "id", (double)n->build_id);
	if (n->build_version)
		cJSON_AddStringToObject(b, "version", n->build_version);
	else
		cJSON_AddNullToObject(b, "version");
	links = cJSON_AddObjectToObject(b, "_links");
	snprintf(url, sizeof(url), "%s/api/v3/projects/%s/builds/%lld/",
		 srv_request_origin(req), n->attached_slug,
		 (long long)n->build_id);
	cJSON_AddStringToObject(links, "_self", url);
}

static cJSON *notification_object(struct srv_request *req,
				  const struct lec_notification *n)
{
	cJSON *o = cJSON_CreateObject(), *links, *m;
	char url[SRV_MAX_HOST + 512];

	links = cJSON_AddObjectToObject(o, "_links");
	self_url(req, n, url, sizeof(url));
	cJSON_AddStringToObject(links, "_self", url);
	cJSON_AddStringToObject(o, "attached_to_content_type",
				lec_notification_target_code(n->target));
	cJSON_AddNumberToObject(o, "attached_to_id", (double)n->attached_id);
	cJSON_AddBoolToObject(o, "dismissable", n->dismissable);
	cJSON_AddNumberToObject(o, "id", (double)n->id);
	m = cJSON_AddObjectToObject(o, "message");
	cJSON_AddStringToObject(m, "body", n->body);
	cJSON_AddStringToObject(m, "header", n->header);
	cJSON_AddStringToObject(m, "icon_classes", icon_classes(n->type));
	cJSON_AddStringToObject(m, "id", n->message_id);
	cJSON_AddStringToObject(m, "type", n->type);
	cJSON_AddBoolToObject(o, "news", n->news);
	cJSON_AddStringToObject(o, "state",
				lec_notification_state_code(n->state));
	add_about(req, n, o);
	return o;
}

/* Scopes -------------------------------------------------------------------- */

/* The organization params[0] as its owners see it. */
static int org_scope(struct srv_request *req, struct srv_response *res,
		     struct scope *sc)
{
	struct lec_store *store = srv_store(req);
	struct lec_org_list mine = { 0 };
	struct lec_org *org = NULL;
	int rc, owner = 0, member = 0;
	size_t i;

	rc = lec_org_get(store, req->params[0], &org);
	if (rc == LEC_OK)
		rc = lec_org_is_owner(store, org->id, req->user->id, &owner);
	if (rc == LEC_OK && !owner)
		rc = lec_org_list_for_user(store, req->user->id, NULL, &mine);
	for (i = 0; rc == LEC_OK && i < mine.len; i++)
		member |= strcmp(mine.items[i].slug, org->slug) == 0;
	lec_org_list_dispose(&mine);
	if (rc == LEC_OK && owner) {
		sc->filter.target = LEC_NOTIFICATION_ORGANIZATION;
		sc->filter.attached_id = org->id;
	} else if (rc == LEC_OK && member) {
		srv_respond_detail(res, 403,
				   "You do not have permission to perform "
				   "this action.");
	} else if (rc == LEC_OK || rc == LEC_ENOTFOUND) {
		srv_respond_detail(res, 404, NO_ORGANIZATION);
	} else {
		srv_respond_engine_error(res, rc);
	}
	lec_org_free(org);
	return rc == LEC_OK && owner ? 0 : -1;
}

/* Resolve the route's scope, or answer its 404/403 and return -1. */
static int scope_load(struct srv_request *req, struct srv_response *res,
		      enum scope_kind kind, struct scope *sc)
{
	struct srv_parent parent;
	int64_t build_id = 0;

	memset(sc, 0, sizeof(*sc));
	if (srv_store(req) == NULL)
		return srv_respond_internal(res, "no store"), -1;
	switch (kind) {
	case SCOPE_FEED:
		sc->filter.feed_user_id = srv_viewer_id(req);
		sc->filter.states = OPEN_STATES;
		sc->id_param = 0;
		return 0;
	case SCOPE_PROJECT:
		if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT,
				       &parent) < 0)
			return -1;
		sc->filter.target = LEC_NOTIFICATION_PROJECT;
		sc->filter.attached_id = parent.project->id;
		sc->id_param = 1;
		srv_v3_parent_dispose(&parent);
		return 0;
	case SCOPE_BUILD:
		if (srv_v3_build_find(req, res, req->params[1], &parent,
				      &build_id) < 0)
			return -1;
		sc->filter.target = LEC_NOTIFICATION_BUILD;
		sc->filter.attached_id = build_id;
		sc->id_param = 2;
		srv_v3_parent_dispose(&parent);
		return 0;
	case SCOPE_ORG:
		sc->id_param = 1;
		return org_scope(req, res, sc);
	case SCOPE_USER:
		if (strcmp(req->params[0], req->user->username) != 0)
			return srv_respond_detail(res, 403,
						  "You do not have permission "
						  "to perform this action."),
			       -1;
		sc->filter.target = LEC_NOTIFICATION_USER;
		sc->filter.attached_id = req->user->id;
		sc->filter.states = OPEN_STATES;
		sc->id_param = 1;
		return 0;
	}
	return -1;
}

/* The state filters (django-filter's "state" and "state__in", a comma
 * list), ANDed into the scope's states. A value that is no state is a
 * 400, as the service's ChoiceFilter answers. */
static int states_filter(struct srv_request *req, struct srv_response *res,
			 unsigned *states)
{
	static const char *const keys[] = { "state", "state__in" };
	enum lec_notification_state s;
	const char *value, *p, *end;
	unsigned mask;
	char word[32];
	size_t k, n;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if ((value = srv_query(req, keys[k])) == NULL || !*value)
			continue;
		mask = 0;
		for (p = value; *p; p = *end ? end + 1 : end) {
			end = k == 0 ? NULL : strchr(p, ',');
			end = end ? end : p + strlen(p);
			n = (size_t)(end - p);
			if (n >= sizeof(word))
				goto bad;
			memcpy(word, p, n);
			word[n] = '\0';
			if (lec_notification_state_lookup(word, &s) < 0)
				goto bad;
			mask |= 1u << s;
		}
		*states = (*states ? *states : ~0u) & mask;
		/* Keeping no state lists nothing (a bit no state has), not
		 * everything (0). */
		if (*states == 0)
			*states = 1u << 31;
	}
	return 0;
bad:
	srv_respond_field_error(res, keys[k],
				"Select a valid choice. That choice is not one "
				"of the available choices.");
	return -1;
}

/* Handlers ---------------------------------------------------------------- */

static int respond_list(struct srv_request *req, struct srv_response *res,
			enum scope_kind kind)
{
	struct lec_notification_list list = { 0 };
	struct lec_page page;
	struct scope sc;
	cJSON *results;
	size_t i;
	int rc;

	srv_page_parse(req, &page);
	if (scope_load(req, res, kind, &sc) < 0 ||
	    states_filter(req, res, &sc.filter.states) < 0)
		return res->status;
	rc = lec_notification_list(srv_store(req), &sc.filter, &page, &list);
	if (rc < 0)
		return srv_respond_engine_error(res, rc);
	if ((results = cJSON_CreateArray()) == NULL) {
		lec_notification_list_dispose(&list);
		return srv_respond_internal(res, "out of memory");
	}
	for (i = 0; i < list.len; i++)
		cJSON_AddItemToArray(results,
				     notification_object(req, &list.items[i]));
	srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			 SRV_JSON_SORTED);
	lec_notification_list_dispose(&list);
	return res->status;
}

/* The new state of a PATCH or PUT body; NULL body field: no change. */
static int body_state(struct srv_request *req, struct srv_response *res,
		      int *has_state, enum lec_notification_state *state)
{
	const char *text = NULL;
	cJSON *body;
	int rc;

	*has_state = 0;
	if ((body = srv_parse_body(req, res)) == NULL)
		return -1;
	rc = srv_body_string(body, "state", "state", 0, &text, res);
	if (rc == SRV_FIELD_PRESENT) {
		if (lec_notification_state_lookup(text, state) < 0) {
			srv_respond_engine_error(res, LEC_EINVALID);
			rc = -1;
		} else {
			*has_state = 1;
		}
	}
	cJSON_Delete(body);
	return rc < 0 ? -1 : 0;
}

static int respond_detail(struct srv_request *req, struct srv_response *res,
			  enum scope_kind kind)
{
	struct lec_notification_list found = { 0 };
	enum lec_notification_state state = LEC_NOTIFICATION_READ;
	struct lec_store *store;
	struct scope sc;
	int rc, has_state = 0;

	if (scope_load(req, res, kind, &sc) < 0 ||
	    srv_param_id(req->params[sc.id_param], res, &sc.filter.id) < 0)
		return res->status;
	store = srv_store(req);
	if ((rc = lec_notification_list(store, &sc.filter, NULL, &found)) < 0)
		return srv_respond_engine_error(res, rc);
	if (found.len == 0) {
		srv_respond_detail(res, 404, NO_NOTIFICATION);
		goto done;
	}
	if (req->method == SRV_PATCH || req->method == SRV_PUT) {
		/* The service answers a change with 204 and no body (its
		 * UpdateMixin), whether or not the state moved. */
		if (body_state(req, res, &has_state, &state) < 0)
			goto done;
		if (has_state && (rc = lec_notification_set_state(
					  store, sc.filter.id, state)) < 0) {
			srv_respond_engine_error(res, rc);
			goto done;
		}
		srv_respond_empty(res, 204);
		goto done;
	}
	srv_respond_json(res, 200, notification_object(req, &found.items[0]),
			 SRV_JSON_SORTED);
done:
	lec_notification_list_dispose(&found);
	return res->status;
}

/* Each scope's list and detail handler. */
#define SCOPE_HANDLERS(list, detail, kind)                                 \
	int list(struct srv_request *req, struct srv_response *res)        \
	{                                                                  \
		return respond_list(req, res, kind);                       \
	}                                                                  \
	int detail(struct srv_request *req, struct srv_response *res)      \
	{                                                                  \
		return respond_detail(req, res, kind);                     \
	}

SCOPE_HANDLERS(srv_v3_notifications_list, srv_v3_notification_detail,
	       SCOPE_FEED)
SCOPE_HANDLERS(srv_v3_project_notifications_list,
	       srv_v3_project_notification_detail, SCOPE_PROJECT)
SCOPE_HANDLERS(srv_v3_build_notifications_list,
	       srv_v3_build_notification_detail, SCOPE_BUILD)
SCOPE_HANDLERS(srv_v3_org_notifications_list,
	       srv_v3_org_notification_detail, SCOPE_ORG)
SCOPE_HANDLERS(srv_v3_user_notifications_list,
	       srv_v3_user_notification_detail, SCOPE_USER)
