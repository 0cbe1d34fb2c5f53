/*
 * The v2 API (contract §2.10–2.12, §4.10; behaviour notes §3): read-only
 * projects, versions and builds by integer id, for anyone. v2 serves
 * public information only, so it never authenticates (a bogus
 * Authorization header is ignored) and shows nothing private: a private
 * project, a private version, and the builds of either are 404 on detail
 * and absent from lists. Keys come out in the service's serializer field
 * order (notes §3.4), datetimes without an offset (contract §2.1), and
 * every list is paginated with limit/offset (decision table). A
 * repository URL never shows its credentials (lec_repo_redact_url), in
 * `repo` as in what is made from it.
 *
 * A v2 list spans every project: the engine's public lists
 * (lec_project_list_public and its siblings) filter, order and page it in
 * SQL, so a page reads its own rows; each row's project is looked up for
 * it (a page's rows often share one).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/repo.h"
#include "lectern/resolve.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "buildlog.h"
#include "embed_api.h"
#include "json_build.h"
#include "v3.h"

#define NO_PROJECT "No Project matches the given query."
#define NO_VERSION "No Version matches the given query."
#define NO_BUILD "No Build matches the given query."
#define TEXT_PLAIN "text/plain; charset=utf-8"

/* The display form of a command drops these leading environment paths
 * (notes §3.4, normalize_build_command). */
static const char *const command_prefixes[] = {
	"$READTHEDOCS_VIRTUALENV_PATH/bin/",
	"$CONDA_ENVS_PATH/$CONDA_DEFAULT_ENV/bin/",
};

/* Visibility ------------------------------------------------------------- */

/* A project anyone may see (v2 answers anonymous requests only). */
static int is_public(const char *privacy_level)
{
	return privacy_level && strcmp(privacy_level, "public") == 0;
}

/* v2 is anonymous: a public version of a public project, a pull-request
 * version when the project's external builds are public. Asks the
 * database nothing. */
static int version_public(struct lec_store *store, const struct lec_project *p,
			  const struct lec_version *v)
{
	unsigned rules = LEC_VERSION_VIEW_PROJECT |
			 LEC_VERSION_VIEW_EXTERNAL_BUILDS;

	return lec_version_can_view(store, p, v, LEC_VIEWER_ANONYMOUS,
				    rules) == 1;
}

/* Small builders ---------------------------------------------------------- */

static void add_time(cJSON *obj, const char *key, int64_t us)
{
	srv_json_time_or_null(obj, key, us, lec_time_iso8601_naive);
}

static void add_owned_string(cJSON *obj, const char *key, char *s)
{
	srv_json_str_or_null(obj, key, s);
	free(s);
}

static char *dup_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *dup_printf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (out = malloc((size_t)n + 1)) == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

/* Serializers (notes §3.4, field order = output order) ------------------- */

/* Maintainers' user ids, as the service's serializer lists them. */
static cJSON *project_users(struct lec_store *store, int64_t project_id)
{
	struct lec_user_list users = { 0 };
	cJSON *a = cJSON_CreateArray();
	size_t i;

	if (lec_project_maintainers(store, project_id, NULL, &users) < 0)
		return a;
	for (i = 0; a && i < users.len; i++)
		cJSON_AddItemToArray(a,
				     cJSON_CreateNumber((double)users.items[i].id));
	lec_user_list_dispose(&users);
	return a;
}

/* The canonical URL of a project's docs: its default version's (owned by
 * the caller). */
static char *canonical_url(struct srv_request *req,
			   const struct lec_project *p)
{
	char *vslug = NULL, *url;

	if (lec_version_default_slug(srv_store(req), p->id, &vslug) < 0)
		vslug = NULL;
	url = srv_docs_url(req, p, vslug ? vslug : p->default_version);
	free(vslug);
	return url;
}

static cJSON *v2_project(struct srv_request *req, const struct lec_project *p)
{
	struct lec_store *store = srv_store(req);
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || store == NULL)
		return o;
	cJSON_AddNumberToObject(o, "id", (double)p->id);
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "slug", p->slug);
	cJSON_AddStringToObject(o, "description",
				p->description ? p->description : "");
	cJSON_AddStringToObject(o, "language", p->language);
	cJSON_AddStringToObject(o, "programming_language",
				p->programming_language);
	add_owned_string(o, "repo", lec_repo_redact_url(p->repo_url));
	cJSON_AddStringToObject(o, "repo_type", p->repo_type);
	cJSON_AddStringToObject(o, "default_version", p->default_version);
	srv_json_str_or_null(o, "default_branch", p->default_branch);
	srv_json_str_or_null(o, "documentation_type", p->documentation_type);
	cJSON_AddItemToObject(o, "users", project_users(store, p->id));
	add_owned_string(o, "canonical_url", canonical_url(req, p));
	cJSON_AddNullToObject(o, "custom_prefix");
	return o;
}

/* Protocol-relative download URLs under the contract's keys, in the
 * service's order (pdf, htmlzip, epub). */
static cJSON *v2_downloads(struct srv_request *req, const struct lec_project *p,
			   const struct lec_version *v)
{
	static const char *const kinds[] = { "pdf", "htmlzip", "epub" };
	int has[] = { v->has_pdf, v->has_htmlzip, v->has_epub };
	cJSON *o = cJSON_CreateObject();
	char *host = lec_resolve_docs_host(p, srv_docs_domain(req));
	char url[1024], prefix[300] = "";
	size_t i;

	if (p->superproject_alias)
		snprintf(prefix, sizeof(prefix), "%s/", p->superproject_alias);
	for (i = 0; host && o && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!has[i])
			continue;
		snprintf(url, sizeof(url), "//%s/_/downloads/%s%s/%s/%s/", host,
			 prefix, p->language, v->slug, kinds[i]);
		cJSON_AddStringToObject(o, kinds[i], url);
	}
	free(host);
	return o;
}

static cJSON *v2_version(struct srv_request *req, const struct lec_project *p,
			 const struct lec_version *v)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)v->id);
	cJSON_AddItemToObject(o, "project", v2_project(req, p));
	cJSON_AddStringToObject(o, "slug", v->slug);
	srv_json_str_or_null(o, "identifier", v->identifier);
	cJSON_AddStringToObject(o, "verbose_name", v->verbose_name);
	cJSON_AddStringToObject(o, "privacy_level", v->privacy_level);
	cJSON_AddBoolToObject(o, "active", v->active);
	cJSON_AddBoolToObject(o, "built", v->built);
	cJSON_AddItemToObject(o, "downloads", v2_downloads(req, p, v));
	cJSON_AddStringToObject(o, "type", lec_version_type_code(v->type));
	cJSON_AddBoolToObject(o, "has_pdf", v->has_pdf);
	cJSON_AddBoolToObject(o, "has_epub", v->has_epub);
	cJSON_AddBoolToObject(o, "has_htmlzip", v->has_htmlzip);
	srv_json_str_or_null(o, "documentation_type", v->documentation_type);
	return o;
}

/* The command as the service displays it (leading environment path
 * removed). */
static const char *display_command(const char *command)
{
	size_t i;

	for (i = 0; i < sizeof(command_prefixes) / sizeof(command_prefixes[0]);
	     i++) {
		size_t n = strlen(command_prefixes[i]);

		if (strncmp(command, command_prefixes[i], n) == 0)
			return command + n;
	}
	return command;
}

/* A command record; its output goes into log's body as it is sent
 * (buildlog.h). */
static cJSON *v2_command(struct srv_buildlog *log,
			 const struct lec_build_command *c)
{
	cJSON *o = cJSON_CreateObject();
	int ended = c->end_time != 0;

	if (o == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)c->id);
	if (c->run_time >= 0)
		cJSON_AddNumberToObject(o, "run_time", (double)c->run_time);
	else
		cJSON_AddNullToObject(o, "run_time");
	cJSON_AddStringToObject(o, "command", display_command(c->command));
	cJSON_AddStringToObject(o, "description",
				c->description ? c->description : "");
	cJSON_AddItemToObject(o, "output", srv_buildlog_json_output(log, c));
	if (ended)
		cJSON_AddNumberToObject(o, "exit_code", c->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_code");
	add_time(o, "start_time", c->start_time);
	add_time(o, "end_time", ended ? c->end_time : 0);
	cJSON_AddNumberToObject(o, "build", (double)c->build_id);
	return o;
}

static cJSON *v2_commands(struct lec_store *store, struct srv_buildlog *log,
			  int64_t build_id)
{
	struct lec_build_command_list list = { 0 };
	cJSON *a = cJSON_CreateArray();
	size_t i;

	if (store == NULL || lec_build_command_list(store, build_id, &list) < 0)
		return a;
	for (i = 0; a && i < list.len; i++)
		cJSON_AddItemToArray(a, v2_command(log, &list.items[i]));
	lec_build_command_list_dispose(&list);
	return a;
}

/* The repository's "<owner>/<repo>" path on host, without ".git", or NULL
 * when the URL is not on host. Owned by the caller. */
static char *repo_path(const char *repo, const char *host)
{
	const char *at = strstr(repo, host);
	size_t n;
	char *out;

	if (at == NULL)
		return NULL;
	at += strlen(host);
	if (*at != '/' && *at != ':')
		return strdup("");
	at++;
	n = strlen(at);
	while (n > 0 && at[n - 1] == '/')
		n--;
	if (n > 4 && strncmp(at + n - 4, ".git", 4) == 0)
		n -= 4;
	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(out, at, n);
	out[n] = '\0';
	/* Not "<owner>/<repo>": the service shows "". */
	if (strchr(out, '/') == NULL)
		out[0] = '\0';
	return out;
}

/* The commit's web page: GitHub, GitLab and Bitbucket (pull and merge
 * requests their own forms); "" when the repository path cannot be read,
 * null for other hosts or no commit. repo is the redacted repository URL:
 * a host name inside a URL's credentials must not make them a path. */
static char *commit_url(const char *repo, const struct lec_version *v,
			const char *commit)
{
	int request = v && v->type == LEC_VERSION_EXTERNAL;
	char *path, *out = NULL;

	if (commit == NULL || repo == NULL)
		return NULL;
	if ((path = repo_path(repo, "github.com")) != NULL) {
		if (path[0] && request)
			out = dup_printf("https://github.com/%s/pull/%s/"
					 "commits/%s",
					 path, v->verbose_name, commit);
		else if (path[0])
			out = dup_printf("https://github.com/%s/commit/%s",
					 path, commit);
	} else if ((path = repo_path(repo, "gitlab.com")) != NULL) {
		if (path[0] && request)
			out = dup_printf("https://gitlab.com/%s/commit/%s"
					 "?merge_request_iid=%s",
					 path, commit, v->verbose_name);
		else if (path[0])
			out = dup_printf("https://gitlab.com/%s/commit/%s",
					 path, commit);
	} else if ((path = repo_path(repo, "bitbucket.org")) != NULL) {
		if (path[0])
			out = dup_printf("https://bitbucket.org/%s/commits/%s",
					 path, commit);
	} else {
		return NULL;
	}
	if (path && path[0] == '\0')
		out = strdup("");
	free(path);
	return out;
}

/* Built docs: their URL; otherwise the dashboard's version page; null
 * without a version. */
static char *build_docs_url(struct srv_request *req,
			    const struct lec_project *p,
			    const struct lec_version *v)
{
	if (v == NULL)
		return NULL;
	if (v->built || v->uploaded)
		return srv_version_docs_url(req, p, v);
	return dup_printf("%s/dashboard/%s/version/%s/edit/",
			  srv_request_origin(req), p->slug, v->slug);
}

static cJSON *build_config(const struct lec_build *b)
{
	cJSON *config = b->config ? cJSON_Parse(b->config) : NULL;

	return config ? config : cJSON_CreateObject();
}

static cJSON *v2_build(struct srv_request *req, struct srv_buildlog *log,
		       const struct lec_project *p,
		       const struct lec_version *v, const struct lec_build *b)
{
	cJSON *o = cJSON_CreateObject();
	int final = lec_build_state_final(b->state);
	char *repo;

	if (o == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)b->id);
	cJSON_AddItemToObject(o, "commands",
			      v2_commands(srv_store(req), log, b->id));
	cJSON_AddStringToObject(o, "project_slug", p->slug);
	srv_json_str_or_null(o, "version_slug", v ? v->slug : NULL);
	add_owned_string(o, "docs_url", build_docs_url(req, p, v));
	cJSON_AddStringToObject(o, "state_display",
				lec_build_state_name(b->state));
	repo = lec_repo_redact_url(p->repo_url);
	add_owned_string(o, "commit_url", commit_url(repo, v, b->commit));
	free(repo);
	cJSON_AddItemToObject(o, "config", build_config(b));
	cJSON_AddStringToObject(o, "type", b->type ? b->type : "html");
	cJSON_AddStringToObject(o, "state", lec_build_state_code(b->state));
	cJSON_AddNullToObject(o, "status");
	add_time(o, "date", b->created);
	cJSON_AddNullToObject(o, "healthcheck");
	cJSON_AddBoolToObject(o, "success", b->success);
	/* The contract: the message when unsuccessful, "" when none. */
	cJSON_AddStringToObject(o, "error", b->error ? b->error : "");
	srv_json_str_or_null(o, "commit", b->commit);
	srv_json_str_or_null(o, "version_name", v ? v->verbose_name : NULL);
	srv_json_str_or_null(o, "version_type",
			     v ? lec_version_type_code(v->type) : NULL);
	srv_json_str_or_null(o, "readthedocs_yaml_path",
			     p->readthedocs_yaml_path);
	if (final && b->duration >= 0)
		cJSON_AddNumberToObject(o, "length", (double)b->duration);
	else
		cJSON_AddNullToObject(o, "length");
	cJSON_AddBoolToObject(o, "cold_storage", 0);
	cJSON_AddNullToObject(o, "task_id");
	cJSON_AddNullToObject(o, "task_executed_at");
	cJSON_AddNumberToObject(o, "project", (double)p->id);
	if (v)
		cJSON_AddNumberToObject(o, "version", (double)v->id);
	else
		cJSON_AddNullToObject(o, "version");
	cJSON_AddNullToObject(o, "readthedocs_yaml_config");
	return o;
}

/* Loading ------------------------------------------------------------------ */

/* The store and the id of a detail's path (id_text); NULL after filling
 * res. */
static struct lec_store *detail_store(struct srv_request *req,
				      struct srv_response *res,
				      const char *id_text, int64_t *id)
{
	struct lec_store *store = srv_store(req);

	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return NULL;
	}
	return srv_param_id(id_text, res, id) < 0 ? NULL : store;
}

/* The store of a list, and its page read from the query; NULL after
 * filling res. */
static struct lec_store *list_store(struct srv_request *req,
				    struct srv_response *res,
				    struct lec_page *page)
{
	struct lec_store *store = srv_store(req);

	if (store == NULL) {
		srv_respond_internal(res, "no store");
		return NULL;
	}
	srv_page_parse(req, page);
	return store;
}

/* Answer a lookup that found nothing the public may see (rc LEC_OK: found,
 * but not public) with the 404 missing, else the engine's error. */
static void respond_missing(struct srv_response *res, int rc,
			    const char *missing)
{
	if (rc == LEC_OK || rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, missing);
	else
		srv_respond_engine_error(res, rc);
}

/* The public project with this id, or NULL after filling res. */
static struct lec_project *load_project(struct srv_request *req,
					struct srv_response *res,
					const char *id_text)
{
	struct lec_project *p = NULL;
	struct lec_store *store;
	int64_t id;
	int rc;

	if ((store = detail_store(req, res, id_text, &id)) == NULL)
		return NULL;
	rc = lec_project_get_by_id(store, id, &p);
	if (rc == LEC_OK && is_public(p->privacy_level))
		return p;
	lec_project_free(p);
	respond_missing(res, rc, NO_PROJECT);
	return NULL;
}

/* A filter's value, NULL when absent or empty (django-filter ignores an
 * empty value). */
static const char *query_filter(const struct srv_request *req,
				const char *key)
{
	const char *v = srv_query(req, key);

	return v && *v ? v : NULL;
}

/* The project with this id in *p, kept when it is already there (the
 * rows of a list page often share their project). */
static int project_of(struct lec_store *store, int64_t id,
		      struct lec_project **p)
{
	if (*p && (*p)->id == id)
		return LEC_OK;
	lec_project_free(*p);
	*p = NULL;
	return lec_project_get_by_id(store, id, p);
}

/* Project list -------------------------------------------------------------- */

static int projects_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store;
	struct lec_project_list list = { 0 };
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if ((store = list_store(req, res, &page)) == NULL)
		return res->status;
	if ((rc = lec_project_list_public(store, query_filter(req, "slug"),
					  &page, &list)) < 0)
		return srv_respond_engine_error(res, rc);
	results = cJSON_CreateArray();
	for (i = 0; results && i < list.len; i++)
		cJSON_AddItemToArray(results, v2_project(req, &list.items[i]));
	rc = srv_respond_page(req, res, &page, list.total, results, LEC_OK,
			      SRV_JSON_AS_BUILT);
	lec_project_list_dispose(&list);
	return rc;
}

static int project_detail(struct srv_request *req, struct srv_response *res)
{
	struct lec_project *p = load_project(req, res, req->params[0]);
	int rc;

	if (p == NULL)
		return res->status;
	rc = srv_respond_json(res, 200, v2_project(req, p), SRV_JSON_AS_BUILT);
	lec_project_free(p);
	return rc;
}

static int project_active_versions(struct srv_request *req,
				   struct srv_response *res)
{
	struct lec_project *p = load_project(req, res, req->params[0]);
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	cJSON *o, *a;
	size_t i;
	int rc;

	if (p == NULL)
		return res->status;
	filter.active = LEC_FILTER_TRUE;
	if ((rc = lec_version_list(srv_store(req), p->id, &filter, NULL,
				   &list)) < 0) {
		lec_project_free(p);
		return srv_respond_engine_error(res, rc);
	}
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "versions");
	for (i = 0; a && i < list.len; i++)
		if (version_public(srv_store(req), p, &list.items[i]))
			cJSON_AddItemToArray(a, v2_version(req, p,
							   &list.items[i]));
	rc = srv_respond_json(res, 200, o, SRV_JSON_AS_BUILT);
	lec_version_list_dispose(&list);
	lec_project_free(p);
	return rc;
}

/* {key: [...]}: n projects as v2 shows them, the first at first and each
 * next one stride bytes on (a list's items, or a member of them). */
static int respond_projects(struct srv_request *req, struct srv_response *res,
			    const char *key, const struct lec_project *first,
			    size_t n, size_t stride)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, key);
	const char *at = (const char *)first;
	size_t i;

	for (i = 0; a && i < n; i++, at += stride)
		cJSON_AddItemToArray(
			a, v2_project(req, (const struct lec_project *)at));
	return srv_respond_json(res, 200, o, SRV_JSON_AS_BUILT);
}

/* {"<key>": [...]}: the project's translations or its child projects
 * (subprojects), public ones only (v2 shows public data), as the
 * service's actions list them. */
static int project_relatives(struct srv_request *req, struct srv_response *res,
			     int children)
{
	struct lec_project *p = load_project(req, res, req->params[0]);
	struct lec_subproject_list subs = { 0 };
	struct lec_project_list translations = { 0 };
	int rc;

	if (p == NULL)
		return res->status;
	rc = children ? lec_subproject_list(srv_store(req), p->id,
					    LEC_VIEWER_ANONYMOUS, NULL, &subs)
		      : lec_project_translations(srv_store(req), p->id,
						 LEC_VIEWER_ANONYMOUS, NULL,
						 &translations);
	lec_project_free(p);
	if (rc < 0)
		rc = srv_respond_engine_error(res, rc);
	else if (children)
		rc = respond_projects(req, res, "subprojects",
				      subs.len ? &subs.items[0].child : NULL,
				      subs.len, sizeof(*subs.items));
	else
		rc = respond_projects(req, res, "translations",
				      translations.items, translations.len,
				      sizeof(*translations.items));
	lec_subproject_list_dispose(&subs);
	lec_project_list_dispose(&translations);
	return rc;
}

static int project_translations(struct srv_request *req,
				struct srv_response *res)
{
	return project_relatives(req, res, 0);
}

static int project_subprojects(struct srv_request *req,
			       struct srv_response *res)
{
	return project_relatives(req, res, 1);
}

/* {"url": ...}: the documentation URL of the default version, the v2
 * project's canonical_url. */
static int project_canonical_url(struct srv_request *req,
				 struct srv_response *res)
{
	struct lec_project *p = load_project(req, res, req->params[0]);
	cJSON *o;

	if (p == NULL)
		return res->status;
	o = cJSON_CreateObject();
	add_owned_string(o, "url", canonical_url(req, p));
	lec_project_free(p);
	return srv_respond_json(res, 200, o, SRV_JSON_AS_BUILT);
}

/* Versions ----------------------------------------------------------------- */

static int versions_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store;
	struct lec_version_list list = { 0 };
	struct lec_project *p = NULL;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if ((store = list_store(req, res, &page)) == NULL)
		return res->status;
	if ((rc = lec_version_list_public(
		     store, query_filter(req, "project__slug"),
		     srv_query_filter(req, "active"), &page, &list)) < 0)
		return srv_respond_engine_error(res, rc);
	results = cJSON_CreateArray();
	for (i = 0; results && rc == LEC_OK && i < list.len; i++)
		if ((rc = project_of(store, list.items[i].project_id, &p)) ==
		    LEC_OK)
			cJSON_AddItemToArray(results,
					     v2_version(req, p, &list.items[i]));
	rc = srv_respond_page(req, res, &page, list.total, results, rc,
			      SRV_JSON_AS_BUILT);
	lec_project_free(p);
	lec_version_list_dispose(&list);
	return rc;
}

/* The public version with id text and its public project, or -1 after
 * filling res. */
static int load_version(struct srv_request *req, struct srv_response *res,
			const char *id_text, struct lec_project **p,
			struct lec_version **v)
{
	struct lec_store *store;
	int64_t id;
	int rc;

	*p = NULL;
	*v = NULL;
	if ((store = detail_store(req, res, id_text, &id)) == NULL)
		return -1;
	rc = lec_version_get_by_id(store, id, v);
	if (rc == LEC_OK)
		rc = lec_project_get_by_id(store, (*v)->project_id, p);
	if (rc == LEC_OK && version_public(store, *p, *v))
		return 0;
	lec_project_free(*p);
	lec_version_free(*v);
	*p = NULL;
	*v = NULL;
	respond_missing(res, rc, NO_VERSION);
	return -1;
}

static int version_detail(struct srv_request *req, struct srv_response *res)
{
	struct lec_project *p;
	struct lec_version *v;
	int rc;

	if (load_version(req, res, req->params[0], &p, &v) < 0)
		return res->status;
	rc = srv_respond_json(res, 200, v2_version(req, p, v),
			      SRV_JSON_AS_BUILT);
	lec_version_free(v);
	lec_project_free(p);
	return rc;
}

/* Builds ------------------------------------------------------------------- */

/* The build's version (lec_version_free) when the build is public: its
 * version exists and is public; else NULL. A build whose version was
 * deleted is its admins' only (as on v3), so v2 never shows it. */
static struct lec_version *public_build_version(struct lec_store *store,
						const struct lec_project *p,
						const struct lec_build *b)
{
	struct lec_version *v = NULL;

	if (b->version_id == 0 ||
	    lec_version_get_by_id(store, b->version_id, &v) != LEC_OK)
		return NULL;
	if (version_public(store, p, v))
		return v;
	lec_version_free(v);
	return NULL;
}

static int builds_list(struct srv_request *req, struct srv_response *res)
{
	struct lec_store *store;
	struct lec_build_list list = { 0 };
	struct lec_project *p = NULL;
	struct srv_buildlog *log = NULL;
	struct lec_page page;
	cJSON *results;
	size_t i;
	int rc;

	if ((store = list_store(req, res, &page)) == NULL)
		return res->status;
	if ((rc = lec_build_list_public(store,
					query_filter(req, "project__slug"),
					query_filter(req, "commit"), &page,
					&list)) < 0)
		return srv_respond_engine_error(res, rc);
	results = cJSON_CreateArray();
	log = srv_buildlog_new(store);
	for (i = 0; results && log && rc == LEC_OK && i < list.len; i++) {
		const struct lec_build *b = &list.items[i];
		struct lec_version *v;

		if ((rc = project_of(store, b->project_id, &p)) < 0)
			break;
		v = public_build_version(store, p, b);
		cJSON_AddItemToArray(results, v2_build(req, log, p, v, b));
		lec_version_free(v);
	}
	if (rc < 0) {
		cJSON_Delete(results);
		srv_buildlog_free(log);
		rc = srv_respond_engine_error(res, rc);
	} else {
		rc = srv_buildlog_respond_json(
			res, 200,
			srv_page_envelope(req, &page, list.total, results), log);
	}
	lec_project_free(p);
	lec_build_list_dispose(&list);
	return rc;
}

/* The public build with id text, its project and version; NULL after
 * filling res (status 404 with NO_BUILD or "Not found."). */
static struct lec_build *load_build(struct srv_request *req,
				    struct srv_response *res,
				    const char *id_text,
				    struct lec_project **p,
				    struct lec_version **v)
{
	struct lec_build *b = NULL;
	struct lec_store *store;
	int64_t id;
	int rc;

	*p = NULL;
	*v = NULL;
	if ((store = detail_store(req, res, id_text, &id)) == NULL)
		return NULL;
	rc = lec_build_get(store, id, &b);
	if (rc == LEC_OK)
		rc = lec_project_get_by_id(store, b->project_id, p);
	if (rc == LEC_OK && (*v = public_build_version(store, *p, b)) != NULL)
		return b;
	lec_build_free(b);
	lec_project_free(*p);
	*p = NULL;
	respond_missing(res, rc, NO_BUILD);
	return NULL;
}

static int build_detail(struct srv_request *req, struct srv_response *res)
{
	struct lec_project *p;
	struct lec_version *v;
	struct lec_build *b = load_build(req, res, req->params[0], &p, &v);
	struct srv_buildlog *log;
	int rc;

	if (b == NULL)
		return res->status;
	log = srv_buildlog_new(srv_store(req));
	rc = srv_buildlog_respond_json(
		res, 200, log ? v2_build(req, log, p, v, b) : NULL, log);
	lec_build_free(b);
	lec_version_free(v);
	lec_project_free(p);
	return rc;
}

/* Plain-text build log (notes §3.4) --------------------------------------- */

static void time_or_none(int64_t us, char out[LEC_TIME_ISO_MAX])
{
	if (us > 0)
		lec_time_iso8601_naive(us, out);
	else
		snprintf(out, LEC_TIME_ISO_MAX, "None");
}

static void log_header(struct srv_buildlog *log, const struct lec_project *p,
		       const struct lec_version *v, const struct lec_build *b)
{
	char line[LEC_PROJECT_REF_MAX * 4 + 64], date[LEC_TIME_ISO_MAX];
	const char *success = "Unknown";

	if (lec_build_state_final(b->state))
		success = b->success ? "True" : "False";
	time_or_none(b->created, date);
	srv_buildlog_puts(log, "Read the Docs build information\n");
	snprintf(line, sizeof(line), "Build id: %lld\n", (long long)b->id);
	srv_buildlog_puts(log, line);
	srv_buildlog_puts(log, "Project: ");
	srv_buildlog_puts(log, p->slug);
	srv_buildlog_puts(log, "\nVersion: ");
	srv_buildlog_puts(log, v->slug);
	srv_buildlog_puts(log, "\nCommit: ");
	srv_buildlog_puts(log, b->commit ? b->commit : "None");
	snprintf(line, sizeof(line), "\nDate: %s\nState: %s\nSuccess: %s\n",
		 date, lec_build_state_code(b->state), success);
	srv_buildlog_puts(log, line);
}

static void log_command(struct srv_buildlog *log,
			const struct lec_build_command *c)
{
	char line[3 * LEC_TIME_ISO_MAX + 128], start[LEC_TIME_ISO_MAX];
	char end[LEC_TIME_ISO_MAX], duration[32], code[32];
	int ended = c->end_time != 0;

	time_or_none(c->start_time, start);
	time_or_none(ended ? c->end_time : 0, end);
	snprintf(duration, sizeof(duration), "%lld", (long long)c->run_time);
	snprintf(code, sizeof(code), "%d", c->exit_code);
	snprintf(line, sizeof(line),
		 "\n[rtd-command-info] start-time: %s, end-time: %s, "
		 "duration: %s, exit-code: %s\n",
		 start, end, c->run_time >= 0 ? duration : "None",
		 ended ? code : "None");
	srv_buildlog_puts(log, line);
	srv_buildlog_puts(log, display_command(c->command));
	srv_buildlog_puts(log, "\n");
	srv_buildlog_output(log, c);
	srv_buildlog_puts(log, "\n");
}

static int respond_text(struct srv_response *res, int status, char *body,
			size_t len)
{
	res->status = status;
	res->body = body;
	res->body_len = len;
	res->content_type = TEXT_PLAIN;
	return status;
}

/* Errors of the text log are their detail string alone (notes §3.4). */
static int text_error(struct srv_response *res)
{
	cJSON *body = res->body ? cJSON_Parse(res->body) : NULL;
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(body, "detail");
	char *text = strdup(cJSON_IsString(detail) ? detail->valuestring : "");
	int status = res->status;

	cJSON_Delete(body);
	srv_response_drop_body(res);
	if (text == NULL)
		return srv_respond_internal(res, "out of memory");
	return respond_text(res, status, text, strlen(text));
}

static int build_log(struct srv_request *req, struct srv_response *res,
		     const char *id_text)
{
	struct lec_build_command_list cmds = { 0 };
	struct srv_buildlog *log = NULL;
	struct lec_project *p;
	struct lec_version *v;
	struct lec_build *b = load_build(req, res, id_text, &p, &v);
	size_t i;
	int rc = 0;

	if (b == NULL)
		return text_error(res);
	rc = lec_build_command_list(srv_store(req), b->id, &cmds);
	if (rc < 0) {
		rc = srv_respond_engine_error(res, rc);
		goto done;
	}
	if ((log = srv_buildlog_new(srv_store(req))) != NULL) {
		log_header(log, p, v, b);
		for (i = 0; i < cmds.len; i++)
			log_command(log, &cmds.items[i]);
	}
	rc = srv_buildlog_respond(res, 200, TEXT_PLAIN, log);
done:
	lec_build_command_list_dispose(&cmds);
	lec_build_free(b);
	lec_version_free(v);
	lec_project_free(p);
	return rc;
}

/* "/api/v2/build/<id>.txt" is the text log; any other slashless
 * "/api/v2/build/<x>" gets Django's APPEND_SLASH redirect, which the
 * router cannot give since this route matches it. */
static int build_suffix(struct srv_request *req, struct srv_response *res)
{
	static const char suffix[] = ".txt";
	const char *seg = req->params[0];
	size_t n = strlen(seg), sn = sizeof(suffix) - 1;
	const char *q = strchr(req->raw_uri, '?');
	char id[32];

	if (n > sn && n - sn < sizeof(id) &&
	    strcmp(seg + n - sn, suffix) == 0) {
		memcpy(id, seg, n - sn);
		id[n - sn] = '\0';
		return build_log(req, res, id);
	}
	n = q ? (size_t)(q - req->raw_uri) : strlen(req->raw_uri);
	if ((res->location = malloc(strlen(req->raw_uri) + 2)) == NULL)
		return srv_respond_internal(res, "out of memory");
	snprintf(res->location, strlen(req->raw_uri) + 2, "%.*s/%s", (int)n,
		 req->raw_uri, q ? q : "");
	return srv_respond_empty(res, 301);
}

/* Routes ----------------------------------------------------------------- */

#define V2(pattern, handler, view, about)                                     \
	{ pattern, SRV_API_V2, SRV_PERM_ANYONE, 0,                           \
	  { { SRV_GET, SRV_PERM_ANYONE, handler } }, view, about }

/* The v2 project viewset's docstring, which its routes' OPTIONS show. */
#define ABOUT_PROJECTS "List, filter, etc, Projects."

const struct srv_route srv_v2_routes[] = {
	V2("/api/v2/project/", projects_list, "Project List", ABOUT_PROJECTS),
	V2("/api/v2/project/{}/", project_detail, "Project Instance",
	   ABOUT_PROJECTS),
	V2("/api/v2/project/{}/active_versions/", project_active_versions,
	   "Active versions", ABOUT_PROJECTS),
	V2("/api/v2/project/{}/translations/", project_translations,
	   "Translations", ABOUT_PROJECTS),
	V2("/api/v2/project/{}/subprojects/", project_subprojects,
	   "Subprojects", ABOUT_PROJECTS),
	V2("/api/v2/project/{}/canonical_url/", project_canonical_url,
	   "Canonical url", ABOUT_PROJECTS),
	V2("/api/v2/version/", versions_list, "Version List", NULL),
	V2("/api/v2/version/{}/", version_detail, "Version Instance", NULL),
	V2("/api/v2/build/", builds_list, "Build List", NULL),
	V2("/api/v2/build/{}/", build_detail, "Build Instance", NULL),
	V2("/api/v2/build/{}", build_suffix, "Build Instance", NULL),
	/* Incoming webhooks (integrations_in.c): anyone may deliver; the
	 * delivery proves itself with its signature or token. */
	{ "/api/v2/webhook/{}/{}/", SRV_API_V2, SRV_PERM_ANYONE, 0,
	  { { SRV_POST, SRV_PERM_ANYONE, srv_incoming_webhook } },
	  "Webhook", NULL },
	/* Embed authenticates like v3 so that a private version can be
	 * embedded by its admins (embed_api.c). */
	{ "/api/v2/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v2 } },
	  "Embed API", NULL },
	{ "/_/api/v2/embed/", SRV_API_V3, SRV_PERM_ANYONE, 0,
	  { { SRV_GET, SRV_PERM_ANYONE, srv_embed_v2 } },
	  "Embed API", NULL },
};

const size_t srv_v2_route_count = sizeof(srv_v2_routes) /
				  sizeof(srv_v2_routes[0]);
