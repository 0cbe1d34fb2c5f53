/*
 * Token authentication as the service's v3 does it (DRF TokenAuthentication,
 * behaviour notes §0.4 and §1.1): a header whose keyword is not "Token" is
 * ignored (the request stays anonymous); a malformed or unknown token is a
 * 401 even on endpoints anyone may read. Also the check behind the
 * routes for project admins, which treats a project the requester cannot
 * see as one that does not exist.
 *
 * A connection on the engine's unix socket (mode 0600) from the engine's
 * own uid, checked with the peer's credentials, is its owner: without a
 * token it acts as the engine's local owner user, under the same
 * permission rules as any user. This is how an ssh context reaches a
 * remote engine with nothing to copy (docs/cli.md).
 */
#include <string.h>
#include <strings.h>

#include "lectern/project.h"
#include "lectern/user.h"
#include "handler.h"

static int invalid(struct srv_response *res, const char *detail)
{
	res->www_authenticate = 1;
	srv_respond_detail(res, 401, detail);
	return -1;
}

/* No Authorization header: the owner's connection is the owner user,
 * anyone else stays anonymous. */
static int owner_user(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store;
	int rc;

	if (srv_owner_user_id(req) == 0 || !srv_peer_is_owner(req))
		return 0;
	if ((store = srv_store(req)) == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	rc = lec_user_get_by_id(store, srv_owner_user_id(req), &req->user);
	if (rc == LEC_ENOTFOUND || (rc == 0 && !req->user->is_active)) {
		lec_user_free(req->user);
		req->user = NULL;
		return invalid(res, "User inactive or deleted.");
	}
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	return 0;
}

int srv_authenticate(struct srv_request *req, struct srv_response *res)
{
	const char *h = srv_header(req, "Authorization");
	const char *token, *end;
	struct lec_store *store;
	char key[64];
	int rc;

	if (h == NULL)
		return owner_user(req, res);
	while (*h == ' ')
		h++;
	if (strncasecmp(h, "Token", 5) != 0 || (h[5] != '\0' && h[5] != ' '))
		return 0;
	token = h + 5;
	while (*token == ' ')
		token++;
	if (*token == '\0')
		return invalid(res, "Invalid token header. No credentials "
				    "provided.");
	for (end = token; *end && *end != ' '; end++)
		;
	if (*end != '\0') {
		const char *rest = end;

		while (*rest == ' ')
			rest++;
		if (*rest != '\0')
			return invalid(res, "Invalid token header. Token string "
					    "should not contain spaces.");
	}
	if ((size_t)(end - token) >= sizeof(key))
		return invalid(res, "Invalid token.");
	memcpy(key, token, (size_t)(end - token));
	key[end - token] = '\0';
	if ((store = srv_store(req)) == NULL) {
		srv_respond_internal(res, "no store");
		return -1;
	}
	rc = lec_token_authenticate(store, key, &req->user);
	memset(key, 0, sizeof(key));
	if (rc == LEC_EAUTH)
		return invalid(res, "User inactive or deleted.");
	if (rc == LEC_ENOTFOUND)
		return invalid(res, "Invalid token.");
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	return 0;
}

int srv_is_project_admin_slug(struct srv_request *req, const char *slug)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *project = NULL;
	int64_t user = req->user ? req->user->id : 0;
	int rc, visible, admin;

	if (store == NULL)
		return -1;
	rc = lec_project_get(store, slug, &project);
	if (rc == LEC_ENOTFOUND)
		return -2;
	if (rc < 0)
		return -1;
	/* A project the requester cannot see answers as one that does not
	 * exist: a 403 would tell that a private project's name is taken. */
	visible = lec_project_can_view(store, project->id, user);
	admin = visible == 1 && user
			? lec_project_is_admin(store, project->id, user)
			: 0;
	lec_project_free(project);
	if (visible < 0 || admin < 0)
		return -1;
	return visible ? admin : -2;
}
