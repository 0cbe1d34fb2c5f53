/*
 * v3 projects: the list of the user's projects, import, detail, update and
 * the superproject link (contract §4.1; behaviour notes §1.6–§1.8, §2).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lectern/build.h"
#include "lectern/language.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "quota.h"
#include "v3.h"

/* The service's message for a filter value that is not a choice. */
static int invalid_choice(struct srv_response *res, const char *param,
			  const char *value)
{
	char msg[300];

	snprintf(msg, sizeof(msg),
		 "Select a valid choice. %.200s is not one of the available "
		 "choices.",
		 value);
	return srv_respond_field_error(res, param, msg);
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

int srv_v3_projects_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_project_filter filter = { 0 };
	struct lec_project_list list = { 0 };
	struct lec_store *store = srv_store(req);
	struct srv_flex flex;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	filter.admin_user_id = req->user->id;
	filter.name = nonempty(srv_query(req, "name"));
	filter.slug = nonempty(srv_query(req, "slug"));
	filter.language = nonempty(srv_query(req, "language"));
	filter.programming_language =
		nonempty(srv_query(req, "programming_language"));
	/* Lectern's: the projects of one local repository. */
	filter.repository = nonempty(srv_query(req, "repository"));
	if (filter.language && !lec_language_valid(filter.language))
		return invalid_choice(res, "language", filter.language);
	if (filter.programming_language &&
	    !lec_programming_language_valid(filter.programming_language))
		return invalid_choice(res, "programming_language",
				      filter.programming_language);
	if (srv_flex_parse(req, &flex, res) < 0)
		return res->status;
	srv_page_parse(req, &page);
	if ((rc = lec_project_list(store, &filter, &page, &list)) < 0) {
		srv_flex_dispose(&flex);
		return srv_respond_engine_error(res, rc);
	}
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++) {
		cJSON *item = srv_v3_project(req, &list.items[i], &flex, 1);

		srv_flex_apply(&flex, item);
		cJSON_AddItemToArray(results, item);
	}
	srv_flex_dispose(&flex);
	rc = srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			      SRV_JSON_SORTED);
	lec_project_list_dispose(&list);
	return rc;
}

/* Read the import body into `in`; tags is owned by the caller. */
static int read_import(const cJSON *body, struct lec_project_new *in,
		       const char ***tags, struct srv_response *res)
{
	const cJSON *repo = NULL;
	int bad = 0;

	/* Every field is checked, so all bad ones are reported together. */
	bad |= srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED,
			       &in->name, res) < 0;
	bad |= srv_body_object(body, "repository", "repository",
			       SRV_FIELD_REQUIRED, &repo, res) < 0;
	if (repo) {
		bad |= srv_body_string(repo, "url", "repository.url",
				       SRV_FIELD_REQUIRED, &in->repo_url,
				       res) < 0;
		bad |= srv_body_string(repo, "type", "repository.type", 0,
				       &in->repo_type, res) < 0;
	}
	bad |= srv_body_string(body, "language", "language", 0, &in->language,
			       res) < 0;
	bad |= srv_body_string(body, "programming_language",
			       "programming_language", SRV_FIELD_BLANK,
			       &in->programming_language, res) < 0;
	bad |= srv_body_string(body, "homepage", "homepage",
			       SRV_FIELD_BLANK | SRV_FIELD_NULLABLE,
			       &in->homepage, res) < 0;
	bad |= srv_body_string(body, "readthedocs_yaml_path",
			       "readthedocs_yaml_path",
			       SRV_FIELD_BLANK | SRV_FIELD_NULLABLE,
			       &in->readthedocs_yaml_path, res) < 0;
	bad |= srv_body_string_list(body, "tags", "tags", tags, &in->ntags,
				    res) < 0;
	in->tags = *tags;
	return bad ? -1 : 0;
}

/* The privacy levels, which only the business edition's serializers have
 * (the community's ignore them, as the service's pop them); "" goes to
 * the engine, which names it no valid choice. */
static int read_privacy(const cJSON *body, const char **level,
			const char **external, struct srv_response *res)
{
	int got, bad = 0;

	got = srv_body_string(body, "privacy_level", "privacy_level",
			      SRV_FIELD_BLANK, level, res);
	bad |= got < 0;
	got = srv_body_string(body, "external_builds_privacy_level",
			      "external_builds_privacy_level",
			      SRV_FIELD_BLANK, external, res);
	bad |= got < 0;
	return bad ? -1 : 0;
}

/* The import's side effect: a build of the default version, queued. */
static int trigger_first_build(struct lec_store *store,
			       const struct lec_project *p)
{
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	char *slug = NULL;
	int rc;

	if ((rc = lec_version_default_slug(store, p->id, &slug)) < 0 ||
	    (rc = lec_version_get(store, p->id, slug, &v)) < 0 ||
	    (rc = lec_build_trigger(store, p->id, v->id, NULL, &b, NULL)) < 0) {
		free(slug);
		lec_version_free(v);
		return rc;
	}
	free(slug);
	lec_version_free(v);
	lec_build_free(b);
	return LEC_OK;
}

/* The business edition's import names the organization the project joins
 * (required; the user must own it) and optionally its teams. Returns 0 with
 * *org set (owned by the caller), or -1 with res filled. */
static int read_organization(struct srv_request *req, const cJSON *body,
			     struct lec_org **org, const char ***teams,
			     size_t *nteams, struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	const char *slug = NULL;
	char msg[300];
	int owner = 0;

	*org = NULL;
	if (srv_body_string(body, "organization", "organization",
			    SRV_FIELD_REQUIRED, &slug, res) < 0 ||
	    srv_body_string_list(body, "teams", "teams", teams, nteams, res) <
		    0)
		return -1;
	if (lec_org_get(store, slug, org) < 0 ||
	    lec_org_is_owner(store, (*org)->id, req->user->id, &owner) < 0 ||
	    !owner) {
		lec_org_free(*org);
		*org = NULL;
		snprintf(msg, sizeof(msg), "Object with slug=%.200s does not exist.",
			 slug);
		srv_respond_field_error(res, "organization", msg);
		return -1;
	}
	return 0;
}

/* A team of the organization by slug, or a "teams" field error. */
static struct lec_team *find_team(struct srv_request *req,
				  const struct lec_org *org, const char *slug,
				  struct srv_response *res)
{
	struct lec_team *team = NULL;
	char msg[300];

	if (lec_team_get(srv_store(req), org->id, slug, &team) == LEC_OK)
		return team;
	snprintf(msg, sizeof(msg), "Object with slug=%.200s does not exist.",
		 slug);
	srv_respond_field_error(res, "teams", msg);
	return NULL;
}

/* Teams must exist before anything is created, so a bad slug changes
 * nothing. */
static int check_teams(struct srv_request *req, const struct lec_org *org,
		       const char **teams, size_t nteams,
		       struct srv_response *res)
{
	size_t i;

	for (i = 0; i < nteams; i++) {
		struct lec_team *team = find_team(req, org, teams[i], res);

		if (team == NULL)
			return -1;
		lec_team_free(team);
	}
	return 0;
}

int srv_v3_org_read(struct srv_request *req, const cJSON *body,
		    struct lec_org **org, const char ***teams, size_t *nteams,
		    struct srv_response *res)
{
	return read_organization(req, body, org, teams, nteams, res) < 0 ||
			       check_teams(req, *org, *teams, *nteams, res) < 0
		       ? -1
		       : 0;
}

int srv_v3_org_join(struct srv_request *req, struct lec_org *org,
		    int64_t project_id, const char **teams, size_t nteams,
		    struct srv_response *res)
{
	struct lec_store *store = srv_store(req);
	size_t i;
	int rc;

	if ((rc = lec_org_project_add(store, org->id, project_id)) < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	for (i = 0; i < nteams; i++) {
		struct lec_team *team = find_team(req, org, teams[i], res);

		if (team == NULL)
			return -1;
		rc = lec_team_project_add(store, team->id, project_id);
		lec_team_free(team);
		if (rc < 0) {
			srv_respond_engine_error(res, rc);
			return -1;
		}
	}
	return 0;
}

int srv_v3_projects_create(struct srv_request *req, struct srv_response *res)
{
	struct lec_project_new in = { 0 };
	struct lec_project *p = NULL;
	struct lec_store *store = srv_store(req);
	struct lec_org *org = NULL;
	const char **tags = NULL, **teams = NULL;
	size_t nteams = 0;
	int business = srv_business(req);
	cJSON *body;
	int rc, bad;

	if (store == NULL)
		return srv_respond_internal(res, "no store");
	/* Before the body is read, as DRF throttles before the view. */
	if (srv_quota_import(req, res) < 0 ||
	    (body = srv_parse_body(req, res)) == NULL)
		return res->status;
	bad = read_import(body, &in, &tags, res) < 0;
	if (business)
		bad |= read_privacy(body, &in.privacy_level,
				    &in.external_builds_privacy_level,
				    res) < 0 ||
		       srv_v3_org_read(req, body, &org, &teams, &nteams, res) <
			       0;
	if (bad)
		goto done;
	in.local_roots = srv_local_roots(req);
	rc = lec_project_create(store, &in, req->user->id, &p);
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	if (business &&
	    srv_v3_org_join(req, org, p->id, teams, nteams, res) < 0) {
		lec_project_delete(store, p->id);
		goto done;
	}
	if ((rc = trigger_first_build(store, p)) < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	/* Built without the request's fields/omit/expand (notes §1.3). */
	srv_respond_json(res, 201, srv_v3_project(req, p, NULL, 0),
			 SRV_JSON_SORTED);
done:
	free(tags);
	free(teams);
	lec_org_free(org);
	lec_project_free(p);
	cJSON_Delete(body);
	return res->status;
}

/* The parent is the project. */
static int show_project(struct srv_request *req,
			const struct srv_parent *parent, int64_t id,
			const struct srv_flex *flex, cJSON **out)
{
	(void)id;
	*out = srv_v3_project(req, parent->project, flex, 0);
	srv_flex_apply(flex, *out);
	return LEC_OK;
}

SRV_V3_DETAIL(srv_v3_project_detail, .parent = SRV_PARENT_PROJECT, .flex = 1,
	      .show = show_project)

/* Strings of a PATCH/PUT body and the patch bit each sets. */
struct patch_string {
	const char *key;
	unsigned bit;
	unsigned flags;
	size_t offset; /* of the const char * in lec_project_patch */
};

#define PS(key, bit, flags, member)                                          \
	{ key, bit, flags, offsetof(struct lec_project_patch, member) }

static const struct patch_string patch_strings[] = {
	PS("language", LEC_PROJECT_F_LANGUAGE, 0, language),
	PS("programming_language", LEC_PROJECT_F_PROGRAMMING_LANGUAGE,
	   SRV_FIELD_BLANK, programming_language),
	PS("homepage", LEC_PROJECT_F_HOMEPAGE,
	   SRV_FIELD_BLANK | SRV_FIELD_NULLABLE, homepage),
	PS("default_version", LEC_PROJECT_F_DEFAULT_VERSION, 0,
	   default_version),
	PS("default_branch", LEC_PROJECT_F_DEFAULT_BRANCH,
	   SRV_FIELD_BLANK | SRV_FIELD_NULLABLE, default_branch),
	PS("analytics_code", LEC_PROJECT_F_ANALYTICS_CODE,
	   SRV_FIELD_BLANK | SRV_FIELD_NULLABLE, analytics_code),
	PS("versioning_scheme", LEC_PROJECT_F_VERSIONING_SCHEME, 0,
	   versioning_scheme),
	PS("readthedocs_yaml_path", LEC_PROJECT_F_READTHEDOCS_YAML_PATH,
	   SRV_FIELD_BLANK | SRV_FIELD_NULLABLE, readthedocs_yaml_path),
};

struct patch_bool {
	const char *key;
	unsigned bit;
	size_t offset; /* of the int in lec_project_patch */
	unsigned flags;
};

#define PB(key, bit, member, flags)                                          \
	{ key, bit, offsetof(struct lec_project_patch, member), flags }

/* The service's serializer booleans are false when a form's full update
 * leaves them out; Lectern's own fields are left alone then. */
static const struct patch_bool patch_bools[] = {
	PB("analytics_disabled", LEC_PROJECT_F_ANALYTICS_DISABLED,
	   analytics_disabled, SRV_FIELD_FORM_FALSE),
	PB("show_version_warning", LEC_PROJECT_F_SHOW_VERSION_WARNING,
	   show_version_warning, SRV_FIELD_FORM_FALSE),
	/* Lectern's extension (docs/api.md): builds on local commits. */
	PB("watch_commits", LEC_PROJECT_F_WATCH_COMMITS, watch_commits, 0),
	PB("single_version", LEC_PROJECT_F_SINGLE_VERSION, single_version, 0),
	PB("external_builds_enabled", LEC_PROJECT_F_EXTERNAL_BUILDS_ENABLED,
	   external_builds_enabled, SRV_FIELD_FORM_FALSE),
};

static int read_patch(struct srv_request *req, const cJSON *body,
		      struct lec_project_patch *patch, const char ***tags,
		      struct srv_response *res)
{
	int put = req->method == SRV_PUT;
	const cJSON *repo = NULL;
	size_t i;
	int got;

	got = srv_body_string(body, "name", "name",
			      put ? SRV_FIELD_REQUIRED : 0, &patch->name, res);
	if (got < 0)
		return -1;
	if (got)
		patch->fields |= LEC_PROJECT_F_NAME;
	if ((got = srv_body_object(body, "repository", "repository",
				   put ? SRV_FIELD_REQUIRED : 0, &repo, res)) <
	    0)
		return -1;
	if (got) {
		if ((got = srv_body_string(repo, "url", "repository.url",
					   put ? SRV_FIELD_REQUIRED : 0,
					   &patch->repo_url, res)) < 0)
			return -1;
		if (got)
			patch->fields |= LEC_PROJECT_F_REPO_URL;
		if ((got = srv_body_string(repo, "type", "repository.type", 0,
					   &patch->repo_type, res)) < 0)
			return -1;
		if (got)
			patch->fields |= LEC_PROJECT_F_REPO_TYPE;
	}
	for (i = 0; i < sizeof(patch_strings) / sizeof(patch_strings[0]); i++) {
		const struct patch_string *ps = &patch_strings[i];
		const char **dst =
			(const char **)((char *)patch + ps->offset);

		if ((got = srv_body_string(body, ps->key, ps->key, ps->flags,
					   dst, res)) < 0)
			return -1;
		if (got)
			patch->fields |= ps->bit;
	}
	for (i = 0; i < sizeof(patch_bools) / sizeof(patch_bools[0]); i++) {
		const struct patch_bool *pb = &patch_bools[i];
		int *dst = (int *)((char *)patch + pb->offset);

		if ((got = srv_body_bool(body, pb->key, pb->key, pb->flags, dst,
					 res)) < 0)
			return -1;
		if (got)
			patch->fields |= pb->bit;
	}
	{
		/* Lectern's extension (docs/api.md): poll a remote
		 * repository every so many seconds; 0 turns it off. */
		long long interval = 0;

		if ((got = srv_body_int(body, "poll_interval", "poll_interval",
					0, 0, LEC_PROJECT_POLL_MAX_S,
					&interval, res)) < 0)
			return -1;
		if (got) {
			patch->poll_interval = (unsigned)interval;
			patch->fields |= LEC_PROJECT_F_POLL_INTERVAL;
		}
	}
	if ((got = srv_body_string_list(body, "tags", "tags", tags,
					&patch->ntags, res)) < 0)
		return -1;
	if (got) {
		patch->tags = *tags;
		patch->fields |= LEC_PROJECT_F_TAGS;
	}
	if (!srv_business(req))
		return 0;
	if (read_privacy(body, &patch->privacy_level,
			 &patch->external_builds_privacy_level, res) < 0)
		return -1;
	if (patch->privacy_level)
		patch->fields |= LEC_PROJECT_F_PRIVACY_LEVEL;
	if (patch->external_builds_privacy_level)
		patch->fields |= LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL;
	return 0;
}

/* Answered with 204 and no body. */
static int update_project(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  cJSON *body, cJSON **out)
{
	struct lec_project_patch patch = { 0 };
	const char **tags = NULL;
	int rc = SRV_V3_ANSWERED;

	(void)id;
	(void)out;
	if (read_patch(req, body, &patch, &tags, res) == 0) {
		patch.local_roots = srv_local_roots(req);
		patch.user_id = req->user->id;
		rc = lec_project_update(srv_store(req), parent->project->id,
					&patch);
	}
	free(tags);
	return rc;
}

SRV_V3_WRITE(srv_v3_project_update, .parent = SRV_PARENT_PROJECT,
	     .apply = update_project, .status = 204)

int srv_v3_project_delete(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	rc = lec_project_remove(srv_store(req), srv_data_dir(req),
				parent.project->id);
	if (rc == LEC_EBUSY) /* a build still stopping: not the database */
		srv_respond_detail(res, 409, lec_error_last());
	else if (rc < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_empty(res, 204);
	srv_v3_parent_dispose(&parent);
	return res->status;
}

int srv_v3_project_superproject(struct srv_request *req,
				struct srv_response *res)
{
	struct lec_project *parent = NULL;
	struct lec_store *store = srv_store(req);
	struct srv_parent child;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &child) < 0)
		return res->status;
	rc = lec_project_superproject(store, child.project->id, &parent, NULL);
	/* A superproject the requester cannot see is no superproject. */
	if (rc == LEC_OK &&
	    (rc = lec_project_can_view(store, parent->id,
				       srv_viewer_id(req))) == 0)
		rc = LEC_ENOTFOUND;
	if (rc == LEC_ENOTFOUND)
		srv_respond_empty(res, 404); /* the service's empty 404 */
	else if (rc < 0)
		srv_respond_engine_error(res, rc);
	else
		srv_respond_json(res, 200, srv_v3_project(req, parent, NULL, 0),
				 SRV_JSON_SORTED);
	lec_project_free(parent);
	srv_v3_parent_dispose(&child);
	return res->status;
}

/* The API root lists the resources the service's root lists, in its
 * insertion order (not sorted: the root uses the default renderer), and
 * the business edition's organizations after the projects. */
int srv_v3_root(struct srv_request *req, struct srv_response *res)
{
	static const char *const community[] = {
		"notifications", "remote/repositories", "remote/organizations",
	};
	cJSON *o = cJSON_CreateObject();
	char url[400];
	size_t i;

	snprintf(url, sizeof(url), "%s/api/v3/projects/",
		 srv_request_origin(req));
	cJSON_AddStringToObject(o, "projects", url);
	if (srv_business(req)) {
		snprintf(url, sizeof(url), "%s/api/v3/organizations/",
			 srv_request_origin(req));
		cJSON_AddStringToObject(o, "organizations", url);
	}
	for (i = 0; i < sizeof(community) / sizeof(community[0]); i++) {
		snprintf(url, sizeof(url), "%s/api/v3/%s/",
			 srv_request_origin(req), community[i]);
		cJSON_AddStringToObject(o, community[i], url);
	}
	return srv_respond_json(res, 200, o, SRV_JSON_AS_BUILT);
}

int srv_v3_remote_empty(struct srv_request *req, struct srv_response *res)
{
	struct lec_page page;

	srv_page_parse(req, &page);
	return srv_respond_page(req, res, &page, 0, cJSON_CreateArray(), LEC_OK,
				SRV_JSON_SORTED);
}
