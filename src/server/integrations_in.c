/*
 * Incoming webhooks (the engine's integrations), as the hosted service
 * answers them
 * (readthedocs/api/v2/views/integrations.py): POST
 * /api/v2/webhook/{github,gitlab,bitbucket,generic}/<project>/ and
 * /api/v2/webhook/<project>/<integration id>/. One path for every forge: the
 * project and its integration are looked up, the delivery verified (a
 * signature, a token, or for the generic webhook an admin's API token or
 * the token in its body), the payload read (JSON, or GitHub's form-encoded
 * "payload"), then the forge's
 * events mapped to what they ask for: a push builds the active versions of
 * the pushed branch or tag, a branch or tag created or deleted syncs the
 * versions, and for a project with external builds enabled a pull
 * request (GitHub) or merge request (GitLab) opened, pushed to or reopened
 * builds its version, closed or merged closes it (the engine's
 * external.h). Answers and their status codes are the service's:
 * {"detail": ...} for errors and unhandled events, {"build_triggered",
 * "project", "versions"} for pushes and requests, {"closed", "project",
 * "versions"} for closed requests.
 *
 * The integrations these deliveries prove themselves against, with their
 * secrets, are made through the v3 API (v3_integrations.c). Outgoing
 * webhooks, the other direction, are the engine's webhook.c, the server's
 * hook_sender.c and v3_webhooks.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "form_body.h"
#include "input.h"
#include "log.h"
#include "quota.h"

#include "lectern/external.h"
#include "lectern/integration.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "v3.h"

#define NO_PROJECT "Project not found"
#define NO_INTEGRATION "No Integration matches the given query."
#define UNHANDLED "Unhandled webhook event"
#define NO_REF "Parameter \"ref\" is required"
#define INVALID_REQUEST "Invalid request"
#define NOT_AUTHENTICATED "Authentication credentials were not provided."
/* The service's answer to a request's payload without key, a ParseError
 * of the KeyError it raised. */
#define MISSING_KEY "Invalid payload. %s is required."
/* GitLab's before/after of a created or deleted ref. */
#define NULL_COMMIT "0000000000000000000000000000000000000000"

/* One delivery being handled. */
struct delivery {
	const char *forge; /* its path name: what started its builds */
	struct srv_request *req;
	struct srv_response *res;
	struct lec_project *project;
	struct lec_integration *integration;
	cJSON *data;
};

/* A forge: how its deliveries are verified and what its events do. */
struct forge {
	const char *path_name; /* /api/v2/webhook/<path_name>/<slug>/ */
	enum lec_integration_type type;
	const char *invalid; /* the answer to a bad signature or token */
	/* Whether verify reads the payload (a token in the body); the other
	 * forges' payloads are read only once the delivery is verified, so
	 * nobody without the secret makes the server parse a body. */
	int verify_reads_payload;
	int (*verify)(struct delivery *d);
	int (*handle)(struct delivery *d); /* fills res */
};

/* Answers ---------------------------------------------------------------- */

static int respond_builds(struct delivery *d,
			  const struct lec_integration_ref *refs, size_t n)
{
	struct lec_integration_builds built = { 0 };
	char how[32];
	cJSON *o, *versions;
	size_t i;
	int rc;

	/* The builds are the project owner's, whoever the forge is: a full
	 * queue refuses the delivery, which the forge can send again. */
	if (srv_quota_build(d->req, d->project->id, 0, d->res) < 0)
		return d->res->status;
	snprintf(how, sizeof(how), "webhook:%s", d->forge);
	rc = lec_integration_build_refs(srv_store(d->req), d->project->id,
					refs, n, 0, how, &built);

	if (rc < 0)
		return srv_respond_engine_error(d->res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "build_triggered", built.len > 0);
	cJSON_AddStringToObject(o, "project", d->project->slug);
	versions = cJSON_AddArrayToObject(o, "versions");
	for (i = 0; i < built.len; i++)
		cJSON_AddItemToArray(versions,
				     cJSON_CreateString(built.slugs[i]));
	lec_integration_builds_dispose(&built);
	return srv_respond_json(d->res, 200, o, 0);
}

/* A ref created or deleted: the versions are synced (the next fetch
 * brings them in line with the repository). */
static int respond_sync(struct delivery *d)
{
	cJSON *o;
	int rc = lec_version_sync_request(srv_store(d->req), d->project->id);

	if (rc < 0)
		return srv_respond_engine_error(d->res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "build_triggered", 0);
	cJSON_AddStringToObject(o, "project", d->project->slug);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "versions"),
			     cJSON_CreateString("latest"));
	cJSON_AddBoolToObject(o, "versions_synced", 1);
	return srv_respond_json(d->res, 200, o, 0);
}

static const char *string_at(const cJSON *o, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* "refs/heads/x" is branch x, "refs/tags/x" tag x, anything else the
 * service treats as a branch name. */
static struct lec_integration_ref ref_of(const char *ref)
{
	struct lec_integration_ref r = { ref, LEC_INTEGRATION_REF_BRANCH,
					 NULL };

	if (strncmp(ref, "refs/heads/", 11) == 0)
		r.name = ref + 11;
	else if (strncmp(ref, "refs/tags/", 10) == 0) {
		r.name = ref + 10;
		r.type = LEC_INTEGRATION_REF_TAG;
	}
	return r;
}

/* Pull and merge requests ------------------------------------------------- */

/* Where a forge's request payload holds what the version is made of: each
 * a path of keys, looked up in the service's order, so that the first one
 * missing is the one its answer names. */
#define KEYS_MAX 4
struct request_keys {
	enum lec_external_forge forge;
	const char *number[KEYS_MAX];
	const char *commit[KEYS_MAX];
	const char *source_branch[KEYS_MAX];
	const char *base_branch[KEYS_MAX];
	const char *forge_repo[KEYS_MAX]; /* optional */
};

static const struct request_keys github_keys = {
	LEC_EXTERNAL_GITHUB,
	{ "number" },
	{ "pull_request", "head", "sha" },
	{ "pull_request", "head", "ref" },
	{ "pull_request", "base", "ref" },
	{ "repository", "full_name" },
};

static const struct request_keys gitlab_keys = {
	LEC_EXTERNAL_GITLAB,
	{ "object_attributes", "iid" },
	{ "object_attributes", "last_commit", "id" },
	{ "object_attributes", "source_branch" },
	{ "object_attributes", "target_branch" },
	{ "project", "id" },
};

/* The value at path in data as text (a number as its digits), into buf;
 * NULL with *missing the key that is not there, or that holds neither. */
static const char *value_at(const cJSON *data, const char *const *path,
			    char *buf, size_t cap, const char **missing)
{
	const cJSON *item = data;
	size_t i;

	for (i = 0; i < KEYS_MAX && path[i]; i++) {
		item = cJSON_IsObject(item)
			       ? cJSON_GetObjectItemCaseSensitive(item, path[i])
			       : NULL;
		if (item == NULL) {
			*missing = path[i];
			return NULL;
		}
	}
	if (cJSON_IsString(item))
		return item->valuestring;
	if (cJSON_IsNumber(item) && item->valuedouble >= 0 &&
	    item->valuedouble < 1e15 &&
	    item->valuedouble == (double)(long long)item->valuedouble) {
		snprintf(buf, cap, "%lld", (long long)item->valuedouble);
		return buf;
	}
	*missing = path[i - 1];
	return NULL;
}

static int missing_key(struct srv_response *res, const char *key)
{
	char detail[96];

	snprintf(detail, sizeof(detail), MISSING_KEY, key);
	return srv_respond_detail(res, 400, detail);
}

/* A path's last key: what the answer names for a value it cannot use. */
static const char *last_key(const char *const *path)
{
	size_t i = 0;

	while (i + 1 < KEYS_MAX && path[i + 1])
		i++;
	return path[i];
}

/* What the delivery says of its request, or a 400 naming the key missing
 * (the bufs hold numbers given as numbers). */
static int request_of(struct delivery *d, const struct request_keys *k,
		      struct lec_external_request *rq, char number[32],
		      char repo[32])
{
	char ignored[32];
	const char *missing = NULL;

	memset(rq, 0, sizeof(*rq));
	rq->forge = k->forge;
	if ((rq->number = value_at(d->data, k->number, number, 32,
				   &missing)) == NULL ||
	    (rq->commit = value_at(d->data, k->commit, ignored,
				   sizeof(ignored), &missing)) == NULL ||
	    (rq->source_branch = value_at(d->data, k->source_branch, ignored,
					  sizeof(ignored), &missing)) == NULL ||
	    (rq->base_branch = value_at(d->data, k->base_branch, ignored,
					sizeof(ignored), &missing)) == NULL)
		return missing_key(d->res, missing);
	rq->forge_repo = value_at(d->data, k->forge_repo, repo, 32, &missing);
	return 0;
}

/* Opened, pushed to or reopened: its version built at its head. */
static int respond_request(struct delivery *d, const struct request_keys *k)
{
	struct lec_external_request rq;
	struct lec_version *v = NULL;
	char number[32], repo[32], how[32];
	cJSON *o;
	int rc;

	if (request_of(d, k, &rq, number, repo) != 0 ||
	    srv_quota_build(d->req, d->project->id, 0, d->res) < 0)
		return d->res->status;
	snprintf(how, sizeof(how), "webhook:%s", d->forge);
	rc = lec_external_open(srv_store(d->req), d->project->id, &rq, how, &v,
			       NULL);
	if (rc == LEC_EINVALID)
		return missing_key(d->res,
				   strcmp(lec_error_last_field(), "number") == 0
					   ? last_key(k->number)
					   : last_key(k->commit));
	if (rc < 0)
		return srv_respond_engine_error(d->res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "build_triggered", 1);
	cJSON_AddStringToObject(o, "project", d->project->slug);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "versions"),
			     cJSON_CreateString(v->verbose_name));
	lec_version_free(v);
	return srv_respond_json(d->res, 200, o, 0);
}

/* Closed or merged: its version closed, when there is one. */
static int respond_closed(struct delivery *d, const struct request_keys *k)
{
	struct lec_external_request rq;
	char number[32], repo[32], *name = NULL;
	cJSON *o, *versions;
	int rc;

	if (request_of(d, k, &rq, number, repo) != 0)
		return d->res->status;
	rc = lec_external_close(srv_store(d->req), d->project->id, rq.number,
				&name);
	if (rc < 0 && rc != LEC_ENOTFOUND)
		return srv_respond_engine_error(d->res, rc);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "closed", name != NULL);
	cJSON_AddStringToObject(o, "project", d->project->slug);
	versions = cJSON_AddArrayToObject(o, "versions");
	if (name)
		cJSON_AddItemToArray(versions, cJSON_CreateString(name));
	free(name);
	return srv_respond_json(d->res, 200, o, 0);
}

/* A request event's action as the service maps it: 1 builds, 0 closes,
 * -1 is not handled (it falls through to the push handling). */
static int request_action(const char *action, const char *const *build,
			  const char *const *close)
{
	size_t i;

	for (i = 0; action && build[i]; i++)
		if (strcmp(action, build[i]) == 0)
			return 1;
	for (i = 0; action && close[i]; i++)
		if (strcmp(action, close[i]) == 0)
			return 0;
	return -1;
}

static const char *const github_build[] = { "opened", "reopened",
					    "synchronize", NULL };
static const char *const github_close[] = { "closed", NULL };
static const char *const gitlab_build[] = { "open", "reopen", "update",
					    NULL };
static const char *const gitlab_close[] = { "close", "merge", NULL };

/* A request event, or -1 when it is not one this project handles. */
static int handle_request(struct delivery *d, const struct request_keys *k,
			  const char *action, const char *const *build,
			  const char *const *close)
{
	int what;

	if (!d->project->external_builds_enabled)
		return -1;
	what = request_action(action, build, close);
	if (what < 0)
		return -1;
	return what ? respond_request(d, k) : respond_closed(d, k);
}

/* Verification ------------------------------------------------------------- */

static int verify_signature(struct delivery *d, const char *header)
{
	return lec_integration_verify_signature(
		srv_store(d->req), d->integration, d->req->body,
		d->req->body_len, srv_header(d->req, header));
}

static int verify_github(struct delivery *d)
{
	return verify_signature(d, "X-Hub-Signature-256");
}

static int verify_bitbucket(struct delivery *d)
{
	return verify_signature(d, "X-Hub-Signature");
}

static int verify_gitlab(struct delivery *d)
{
	return lec_integration_verify_token(srv_store(d->req), d->integration,
					    srv_header(d->req,
						       "X-Gitlab-Token"));
}

/* The generic webhook: the project's admin with an API token, or the
 * integration's token in the body. */
static int verify_api(struct delivery *d)
{
	const char *token = string_at(d->data, "token");

	if (d->req->user &&
	    srv_is_project_admin_slug(d->req, d->project->slug) == 1)
		return LEC_OK;
	return lec_integration_verify_token(srv_store(d->req), d->integration,
					    token);
}

/* Events ---------------------------------------------------------------------- */

static int handle_github(struct delivery *d)
{
	const char *event = srv_header(d->req, "X-GitHub-Event");
	const cJSON *created = cJSON_GetObjectItemCaseSensitive(d->data,
								"created");
	const cJSON *deleted = cJSON_GetObjectItemCaseSensitive(d->data,
								"deleted");
	const char *ref = string_at(d->data, "ref");
	struct lec_integration_ref r;

	if (event == NULL)
		event = "push";
	if (strcmp(event, "ping") == 0)
		return srv_respond_detail(d->res, 200,
					  "Webhook configured correctly");
	if (strcmp(event, "pull_request") == 0 &&
	    handle_request(d, &github_keys, string_at(d->data, "action"),
			   github_build, github_close) >= 0)
		return d->res->status;
	if (strcmp(event, "create") == 0 || strcmp(event, "delete") == 0 ||
	    (strcmp(event, "push") == 0 &&
	     (cJSON_IsTrue(created) || cJSON_IsTrue(deleted))))
		return respond_sync(d);
	if (strcmp(event, "push") != 0)
		return srv_respond_detail(d->res, 200, UNHANDLED);
	if (ref == NULL)
		return srv_respond_detail(d->res, 400, NO_REF);
	r = ref_of(ref);
	r.commit = string_at(d->data, "after");
	return respond_builds(d, &r, 1);
}

static int handle_gitlab(struct delivery *d)
{
	const char *event = string_at(d->data, "object_kind");
	const char *before = string_at(d->data, "before");
	const char *after = string_at(d->data, "after");
	const char *ref = string_at(d->data, "ref");
	struct lec_integration_ref r;

	if (event == NULL)
		event = "push";
	if (strcmp(event, "merge_request") == 0 &&
	    handle_request(d, &gitlab_keys,
			   string_at(cJSON_GetObjectItemCaseSensitive(
					     d->data, "object_attributes"),
				     "action"),
			   gitlab_build, gitlab_close) >= 0)
		return d->res->status;
	if (strcmp(event, "push") != 0 && strcmp(event, "tag_push") != 0)
		return srv_respond_detail(d->res, 200, UNHANDLED);
	if ((before && strcmp(before, NULL_COMMIT) == 0) ||
	    (after && strcmp(after, NULL_COMMIT) == 0))
		return respond_sync(d);
	if (ref == NULL)
		return srv_respond_detail(d->res, 400, NO_REF);
	r = ref_of(ref);
	r.commit = after;
	return respond_builds(d, &r, 1);
}

/* Bitbucket's repo:push lists changes; a change with both old and new is a
 * push to that branch or tag, one without is a ref created or deleted. */
static int handle_bitbucket(struct delivery *d)
{
	struct lec_integration_ref refs[LEC_INTEGRATION_REFS_MAX];
	const char *event = srv_header(d->req, "X-Event-Key");
	const cJSON *push = cJSON_GetObjectItemCaseSensitive(d->data, "push");
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(push,
								"changes");
	const cJSON *change;
	size_t n = 0;

	if (event && strcmp(event, "repo:push") != 0)
		return srv_respond_detail(d->res, 200, UNHANDLED);
	if (!cJSON_IsArray(changes))
		return srv_respond_detail(d->res, 400, INVALID_REQUEST);
	cJSON_ArrayForEach(change, changes)
	{
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(change,
								    "old");
		const cJSON *new = cJSON_GetObjectItemCaseSensitive(change,
								    "new");
		const char *name = string_at(new, "name");
		const char *type = string_at(new, "type");

		if (!cJSON_IsObject(old) || !cJSON_IsObject(new))
			continue;
		if (name == NULL || type == NULL)
			return srv_respond_detail(d->res, 400, INVALID_REQUEST);
		if (n < LEC_INTEGRATION_REFS_MAX)
			refs[n++] = (struct lec_integration_ref){
				name,
				strcmp(type, "branch") == 0
					? LEC_INTEGRATION_REF_BRANCH
					: LEC_INTEGRATION_REF_TAG,
				string_at(cJSON_GetObjectItemCaseSensitive(
						  new, "target"),
					  "hash")
			};
	}
	return n ? respond_builds(d, refs, n) : respond_sync(d);
}

/* "branches": a name or a list (branches or tags), else the default
 * branch (what `latest` follows). */
static int handle_api(struct delivery *d)
{
	struct lec_integration_ref refs[LEC_INTEGRATION_REFS_MAX];
	const cJSON *branches = cJSON_GetObjectItemCaseSensitive(d->data,
								 "branches");
	const cJSON *item;
	struct lec_version *latest = NULL;
	size_t n = 0;
	int rc;

	if (cJSON_IsString(branches)) {
		refs[n++] = (struct lec_integration_ref){
			branches->valuestring, LEC_INTEGRATION_REF_ANY, NULL
		};
	} else if (cJSON_IsArray(branches)) {
		cJSON_ArrayForEach(item, branches)
		{
			if (!cJSON_IsString(item))
				return srv_respond_detail(d->res, 400,
							  INVALID_REQUEST);
			if (n == LEC_INTEGRATION_REFS_MAX)
				return srv_respond_field_error(
					d->res, "branches",
					"Too many branches.");
			refs[n++] = (struct lec_integration_ref){
				item->valuestring, LEC_INTEGRATION_REF_ANY, NULL
			};
		}
	} else if (branches && !cJSON_IsNull(branches)) {
		return srv_respond_detail(d->res, 400, INVALID_REQUEST);
	} else if (lec_version_get(srv_store(d->req), d->project->id,
				   "latest", &latest) == LEC_OK &&
		   latest->identifier) {
		refs[n++] = (struct lec_integration_ref){
			latest->identifier, LEC_INTEGRATION_REF_BRANCH, NULL
		};
	}
	rc = respond_builds(d, refs, n);
	lec_version_free(latest);
	return rc;
}

static const struct forge forges[] = {
	{ "github", LEC_INTEGRATION_GITHUB,
	  "Payload not valid, invalid or missing signature", 0, verify_github,
	  handle_github },
	{ "gitlab", LEC_INTEGRATION_GITLAB,
	  "Payload not valid, invalid or missing token", 0, verify_gitlab,
	  handle_gitlab },
	{ "bitbucket", LEC_INTEGRATION_BITBUCKET, "Payload not valid", 0,
	  verify_bitbucket, handle_bitbucket },
	{ "generic", LEC_INTEGRATION_API, "Payload not valid", 1, verify_api,
	  handle_api },
};

/* Handling --------------------------------------------------------------------- */

/* Another form's fields as the service's webhook views read them
 * (request.data.get): each key's last value, a string. */
static cJSON *form_fields(struct srv_request *req, struct srv_response *res)
{
	struct srv_input_error err;
	cJSON *form = srv_form_parse(req, SRV_FORM_FULL, &err), *item, *out;

	if (form == NULL) {
		srv_respond_input_error(res, &err);
		return NULL;
	}
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, form) {
		/* A field's values, in order: cJSON keeps an array's last
		 * element in its first one's prev. */
		const cJSON *last = cJSON_IsArray(item) && item->child
					    ? item->child->prev
					    : NULL;

		if (cJSON_IsString(last))
			cJSON_AddStringToObject(out, item->string,
						last->valuestring);
	}
	cJSON_Delete(form);
	return out;
}

/* The payload: JSON, GitHub's form-encoded payload=<json>, or another
 * form's fields (the generic webhook's token and branches, as scripts post
 * them). Webhook payloads carry free text (commit messages) anywhere, so
 * JSON is parsed without the API's single-line field rules. */
static cJSON *payload(struct srv_request *req, struct srv_response *res)
{
	const char *ct = srv_header(req, "Content-Type");
	cJSON *json;
	char *form;

	if (req->body_len == 0)
		return cJSON_CreateObject();
	if (ct && strncmp(ct, "application/x-www-form-urlencoded", 33) == 0 &&
	    strncmp(req->body, "payload=", 8) == 0 &&
	    (form = srv_percent_decode(req->body + 8, req->body_len - 8,
				       1)) != NULL) {
		json = cJSON_Parse(form);
		free(form);
	} else if (ct && srv_form_is_content_type(ct)) {
		return form_fields(req, res);
	} else {
		json = cJSON_ParseWithLength(req->body, req->body_len);
	}
	if (json == NULL || !cJSON_IsObject(json)) {
		cJSON_Delete(json);
		srv_respond_detail(res, 400, "JSON parse error");
		return NULL;
	}
	return json;
}

/* A private project the requester cannot see is answered as one that does
 * not exist, whatever is wrong with the delivery: a forge configured with
 * the right secret never meets this, and nobody else learns the project
 * is there (issue 27, item 12). */
static int hidden(struct srv_request *req, const struct lec_project *p)
{
	return lec_project_can_view(srv_store(req), p->id,
				    req->user ? req->user->id
					      : LEC_VIEWER_ANONYMOUS) != 1;
}

/* The repository a verified delivery names, kept by its integration for
 * the commit statuses of branch builds (GitHub's repository.full_name,
 * GitLab's project.id). */
static void learn_repository(struct delivery *d, const struct forge *forge)
{
	const struct request_keys *k =
		forge->type == LEC_INTEGRATION_GITHUB	? &github_keys
		: forge->type == LEC_INTEGRATION_GITLAB ? &gitlab_keys
							: NULL;
	const char *missing = NULL, *repo;
	char buf[32];

	if (k && (repo = value_at(d->data, k->forge_repo, buf, sizeof(buf),
				  &missing)) != NULL &&
	    lec_integration_set_forge_repo(srv_store(d->req),
					   d->integration->id, repo) < 0)
		srv_log("webhook: %s", lec_error_last());
}

/* A delivery for this forge's integration (or the one named by id). */
static int deliver(struct srv_request *req, struct srv_response *res,
		   const struct forge *forge, const char *slug,
		   struct lec_integration *integration)
{
	struct delivery d = { forge->path_name, req, res, NULL, integration,
			      NULL };
	/* What a route answers for what is not there: the forge's routes
	 * name the project, the integration's route the integration. */
	const char *absent = integration ? NO_INTEGRATION : NO_PROJECT;
	int rc;

	/* The service's order: the project, its integration, the
	 * signature, and only then the payload. */
	rc = lec_project_get(srv_store(req), slug, &d.project);
	if (rc == LEC_ENOTFOUND) {
		srv_respond_detail(res, 404, NO_PROJECT);
		goto done;
	}
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	if (d.integration == NULL &&
	    (rc = lec_integration_find(srv_store(req), d.project->id,
				       forge->type, &d.integration)) < 0) {
		if (rc == LEC_ENOTFOUND)
			srv_respond_detail(res, 404, hidden(req, d.project)
							     ? absent
							     : NO_INTEGRATION);
		else
			srv_respond_engine_error(res, rc);
		goto done;
	}
	if (forge->verify_reads_payload &&
	    (d.data = payload(req, res)) == NULL)
		goto done;
	rc = forge->verify(&d);
	if (rc == LEC_EAUTH && hidden(req, d.project))
		srv_respond_detail(res, 404, absent);
	else if (rc == LEC_EAUTH)
		srv_respond_detail(res, 400, forge->invalid);
	else if (rc < 0)
		srv_respond_engine_error(res, rc);
	else if (d.data || (d.data = payload(req, res)) != NULL) {
		learn_repository(&d, forge);
		forge->handle(&d);
	}
done:
	if (d.integration != integration)
		lec_integration_free(d.integration);
	lec_project_free(d.project);
	cJSON_Delete(d.data);
	return res->status;
}

/* /api/v2/webhook/<project>/<id>/: the integration named by id. */
static int deliver_to_id(struct srv_request *req, struct srv_response *res)
{
	struct lec_integration *integration = NULL;
	struct lec_project *project = NULL;
	int64_t id;
	size_t i;
	int rc;

	if (srv_param_id(req->params[1], res, &id) < 0)
		return res->status;
	rc = lec_project_get(srv_store(req), req->params[0], &project);
	if (rc == LEC_OK)
		rc = lec_integration_get(srv_store(req), project->id, id,
					 &integration);
	lec_project_free(project);
	if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, NO_INTEGRATION);
	else if (rc < 0)
		srv_respond_engine_error(res, rc);
	for (i = 0; rc == LEC_OK && i < sizeof(forges) / sizeof(forges[0]);
	     i++)
		if (forges[i].type == integration->type)
			deliver(req, res, &forges[i], req->params[0],
				integration);
	lec_integration_free(integration);
	return res->status;
}

int srv_incoming_webhook(struct srv_request *req, struct srv_response *res)
{
	size_t i;

	/* An API token is optional (the generic webhook's admins); a wrong
	 * one is refused as anywhere else. */
	if (srv_authenticate(req, res) < 0)
		return res->status;
	/* The forges' paths first, as the service's URL patterns. */
	for (i = 0; i < sizeof(forges) / sizeof(forges[0]); i++)
		if (strcmp(req->params[0], forges[i].path_name) == 0)
			return deliver(req, res, &forges[i], req->params[1],
				       NULL);
	return deliver_to_id(req, res);
}
