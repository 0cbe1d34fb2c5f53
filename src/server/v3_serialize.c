/*
 * The v3 objects exactly as the service's serializers build them
 * (behaviour notes §1.5). Keys are added in any order: the v3 renderer
 * sorts them. Relative /api/v3/ paths in _links; absolute URLs where the
 * service builds them from its own domain (dashboard links) or from the
 * docs domain (documentation and download URLs).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/build.h"
#include "lectern/commit_status.h"
#include "lectern/external.h"
#include "lectern/language.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/repo.h"
#include "lectern/resolve.h"
#include "lectern/timefmt.h"
#include "lectern/version.h"
#include "lectern/warning.h"
#include "json_build.h"
#include "v3.h"

/* The fraction Python's isoformat omits when it is zero: the contract
 * promises organization datetimes "with microseconds", always. */
#define ZERO_FRACTION ".000000Z"
#define USEC_PER_SECOND 1000000

/* Small builders ---------------------------------------------------------- */

void srv_v3_add_time(cJSON *obj, const char *key, int64_t us)
{
	srv_json_time_or_null(obj, key, us, lec_time_iso8601);
}

void srv_v3_add_time_us(cJSON *obj, const char *key, int64_t us)
{
	char text[LEC_TIME_ISO_MAX + sizeof(ZERO_FRACTION)];
	size_t n;

	lec_time_iso8601(us, text);
	n = strlen(text);
	if (us % USEC_PER_SECOND == 0 && n > 0 && text[n - 1] == 'Z')
		snprintf(text + n - 1, sizeof(text) - (n - 1), "%s",
			 ZERO_FRACTION);
	cJSON_AddStringToObject(obj, key, text);
}

static void add_fmt(cJSON *obj, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_fmt(cJSON *obj, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(obj, key, buf);
}

/* A _links object: each link's key with the URL base + its suffix. */
struct link {
	const char *key, *suffix;
};

static cJSON *links_object(const char *base, const struct link *links,
			   size_t n)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < n; i++)
		add_fmt(o, links[i].key, "%s%s", base, links[i].suffix);
	return o;
}

/* Organization _links are absolute, from the public origin (the service's
 * PRODUCTION_DOMAIN), unlike the relative links of project objects. */
cJSON *srv_v3_org_links(struct srv_request *req, const char *slug)
{
	static const struct link links[] = {
		{ "_self", "" },
		{ "notifications", "notifications/" },
		{ "projects", "projects/" },
	};
	char base[1024];

	snprintf(base, sizeof(base), "%s/api/v3/organizations/%s/",
		 srv_request_origin(req), slug);
	return links_object(base, links, sizeof(links) / sizeof(links[0]));
}

/* The expansions an expanded field hands down to its own object, as
 * drf-flex-fields splits levels: under prefix "last_build",
 * "last_build.config" becomes "config". Appends to out (zeroed by the
 * caller); only expansions travel, fields/omit apply to the root alone. A
 * wildcard is not handed down. */
static void flex_nested(const struct srv_flex *flex, const char *prefix,
			struct srv_flex *out)
{
	size_t i, n = strlen(prefix);

	for (i = 0; flex && i < flex->nexpand && out->nexpand < SRV_FLEX_MAX;
	     i++)
		if (strncmp(flex->expand[i], prefix, n) == 0 &&
		    flex->expand[i][n] == '.')
			out->expand[out->nexpand++] = flex->expand[i] + n + 1;
}

static cJSON *code_name(const char *code, const char *name)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "code", code);
	cJSON_AddStringToObject(o, "name", name);
	return o;
}

/* Lectern's extension: the commit statuses a pull request's build sent
 * its forge, and how each went (absent when none, so the service's shape
 * holds for every other build). */
static void add_commit_statuses(struct srv_request *req, cJSON *o,
				int64_t build_id)
{
	struct lec_commit_status_list list = { 0 };
	cJSON *a, *item;
	size_t i;

	if (lec_commit_status_list(srv_store(req), build_id, &list) < 0 ||
	    list.len == 0) {
		lec_commit_status_list_dispose(&list);
		return;
	}
	a = cJSON_AddArrayToObject(o, "commit_statuses");
	for (i = 0; i < list.len; i++) {
		const struct lec_commit_status *c = &list.items[i];

		item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "attempts", c->attempts);
		cJSON_AddStringToObject(
			item, "delivery",
			lec_commit_status_delivery_code(c->delivery));
		srv_json_str_or_null(item, "error", c->error);
		cJSON_AddStringToObject(item, "state",
					lec_commit_status_state_code(c->state));
		if (c->status_code)
			cJSON_AddNumberToObject(item, "status_code",
						c->status_code);
		else
			cJSON_AddNullToObject(item, "status_code");
		cJSON_AddStringToObject(item, "target_url", c->target_url);
		cJSON_AddItemToArray(a, item);
	}
	lec_commit_status_list_dispose(&list);
}

/* Documentation URLs -------------------------------------------------------- */

/* url (owned, may be NULL) with the request's scheme: the resolver knows
 * no request, and behind a TLS proxy the docs are https too. */
static char *with_request_scheme(struct srv_request *req, char *url)
{
	char *https = NULL;

	if (url && strcmp(srv_request_scheme(req), "https") == 0 &&
	    strncmp(url, "http://", 7) == 0 &&
	    asprintf(&https, "https://%s", url + 7) >= 0) {
		free(url);
		return https;
	}
	return url;
}

char *srv_docs_url(struct srv_request *req, const struct lec_project *p,
		   const char *version_slug)
{
	return with_request_scheme(
		req, lec_resolve_docs_url(p, version_slug, srv_docs_domain(req)));
}

char *srv_version_docs_url(struct srv_request *req,
			   const struct lec_project *p,
			   const struct lec_version *v)
{
	if (v->type != LEC_VERSION_EXTERNAL)
		return srv_docs_url(req, p, v->slug);
	return with_request_scheme(
		req, lec_resolve_external_url(p, v->slug,
					      srv_external_domain(req)));
}

static void add_docs_url(struct srv_request *req, cJSON *obj,
			 const struct lec_project *p, const char *vslug)
{
	char *url = srv_docs_url(req, p, vslug);

	srv_json_str_or_null(obj, "documentation", url);
	free(url);
}

/* Projects ----------------------------------------------------------------- */

cJSON *srv_v3_project_links(const char *slug)
{
	static const struct link links[] = {
		{ "_self", "" },
		{ "builds", "builds/" },
		{ "environmentvariables", "environmentvariables/" },
		{ "notifications", "notifications/" },
		{ "redirects", "redirects/" },
		{ "subprojects", "subprojects/" },
		{ "superproject", "superproject/" },
		{ "sync_versions", "sync-versions/" },
		{ "translations", "translations/" },
		{ "versions", "versions/" },
	};
	char base[1024];

	snprintf(base, sizeof(base), "/api/v3/projects/%s/", slug);
	return links_object(base, links, sizeof(links) / sizeof(links[0]));
}

cJSON *srv_v3_project_ref(const char *slug)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "_links", srv_v3_project_links(slug));
	cJSON_AddStringToObject(o, "slug", slug);
	return o;
}

static cJSON *project_urls(struct srv_request *req,
			   const struct lec_project *p)
{
	cJSON *urls = cJSON_CreateObject();
	char *vslug = NULL;
	struct lec_store *store = srv_store(req);

	if (store == NULL ||
	    lec_version_default_slug(store, p->id, &vslug) < 0)
		vslug = NULL;
	add_fmt(urls, "builds", "%s/projects/%s/builds/",
		srv_request_origin(req), p->slug);
	add_docs_url(req, urls, p, vslug ? vslug : p->default_version);
	cJSON_AddNullToObject(urls, "downloads");
	add_fmt(urls, "home", "%s/projects/%s/", srv_request_origin(req),
		p->slug);
	add_fmt(urls, "versions", "%s/projects/%s/versions/",
		srv_request_origin(req), p->slug);
	free(vslug);
	return urls;
}

static cJSON *string_array(char **items, size_t n, const char *key)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < n; i++) {
		if (key) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, key, items[i]);
			cJSON_AddItemToArray(a, o);
		} else {
			cJSON_AddItemToArray(a, cJSON_CreateString(items[i]));
		}
	}
	return a;
}

/* active_versions: slug → Version, for the public, active, built ones. */
static cJSON *active_versions(struct srv_request *req,
			      const struct lec_project *p,
			      const struct srv_flex *flex)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	struct srv_flex nested = { 0 };
	cJSON *o = cJSON_CreateObject();
	struct lec_store *store = srv_store(req);
	size_t i;

	flex_nested(flex, "active_versions", &nested);
	filter.active = LEC_FILTER_TRUE;
	filter.external = LEC_FILTER_FALSE;
	filter.privacy_level = "public";
	if (store == NULL || lec_version_list(store, p->id, &filter, NULL,
					      &list) < 0)
		return o;
	for (i = 0; i < list.len; i++) {
		if (!list.items[i].built && !list.items[i].uploaded)
			continue;
		cJSON_AddItemToObject(o, list.items[i].slug,
				      srv_v3_version(req, p, &list.items[i],
						     &nested));
	}
	lec_version_list_dispose(&list);
	return o;
}

/* expand=organization (business): {"_links", "slug"} or null. */
static cJSON *project_organization(struct srv_request *req,
				   const struct lec_project *p)
{
	struct lec_store *store = srv_store(req);
	struct lec_org *org = NULL;
	cJSON *o;

	if (store == NULL || lec_org_of_project(store, p->id, &org) < 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "_links", srv_v3_org_links(req, org->slug));
	cJSON_AddStringToObject(o, "slug", org->slug);
	lec_org_free(org);
	return o;
}

cJSON *srv_v3_team(const struct lec_team *team)
{
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "access", team->access);
	srv_v3_add_time_us(t, "created", team->created);
	srv_v3_add_time_us(t, "modified", team->modified);
	cJSON_AddStringToObject(t, "name", team->name);
	cJSON_AddStringToObject(t, "slug", team->slug);
	return t;
}

/* expand=teams (business): the teams holding the project. */
static cJSON *project_teams(struct srv_request *req,
			    const struct lec_project *p)
{
	struct lec_store *store = srv_store(req);
	struct lec_team_list teams = { 0 };
	cJSON *a = cJSON_CreateArray();
	size_t i;

	if (store == NULL || lec_team_list_for_project(store, p->id, &teams) < 0)
		return a;
	for (i = 0; a && i < teams.len; i++)
		cJSON_AddItemToArray(a, srv_v3_team(&teams.items[i]));
	lec_team_list_dispose(&teams);
	return a;
}

/* The reference to a related project (the parent of a subproject, the
 * project a translation translates), or null when there is none or the
 * requester cannot see it: a private project's name is its own, even to
 * those who see a public project related to it. */
static cJSON *visible_ref(struct srv_request *req, const char *slug)
{
	struct lec_store *store = srv_store(req);
	struct lec_project *other = NULL;
	int seen = 0;

	if (slug && store && lec_project_get(store, slug, &other) == LEC_OK)
		seen = lec_project_can_view(store, other->id,
					    srv_viewer_id(req)) == 1;
	lec_project_free(other);
	return seen ? srv_v3_project_ref(slug) : cJSON_CreateNull();
}

cJSON *srv_v3_project(struct srv_request *req, const struct lec_project *p,
		      const struct srv_flex *flex, int list_context)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *repo;
	char *repo_url;

	(void)list_context;
	if (o == NULL)
		return NULL;
	cJSON_AddItemToObject(o, "_links", srv_v3_project_links(p->slug));
	srv_v3_add_time(o, "created", p->created);
	cJSON_AddStringToObject(o, "default_branch",
				p->default_branch ? p->default_branch
						  : "master");
	cJSON_AddStringToObject(o, "default_version", p->default_version);
	cJSON_AddStringToObject(o, "external_builds_privacy_level",
				p->external_builds_privacy_level);
	srv_json_str_or_null(o, "homepage",
			     p->homepage[0] ? p->homepage : NULL);
	cJSON_AddNumberToObject(o, "id", (double)p->id);
	cJSON_AddItemToObject(o, "language",
			      code_name(p->language,
					lec_language_name(p->language)));
	srv_v3_add_time(o, "modified", p->modified);
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "privacy_level", p->privacy_level);
	cJSON_AddItemToObject(
		o, "programming_language",
		code_name(p->programming_language,
			  lec_programming_language_name(
				  p->programming_language)));
	srv_json_str_or_null(o, "readthedocs_yaml_path",
			     p->readthedocs_yaml_path);
	repo = cJSON_AddObjectToObject(o, "repository");
	cJSON_AddStringToObject(repo, "type", p->repo_type);
	/* Credentials in a repository URL are for cloning only. */
	repo_url = lec_repo_redact_url(p->repo_url);
	srv_json_str_or_null(repo, "url", repo_url);
	free(repo_url);
	cJSON_AddBoolToObject(o, "single_version", p->single_version);
	cJSON_AddStringToObject(o, "slug", p->slug);
	cJSON_AddItemToObject(o, "subproject_of",
			      visible_ref(req, p->translation_of
						       ? NULL
						       : p->superproject_slug));
	cJSON_AddItemToObject(o, "tags", string_array(p->tags, p->ntags, NULL));
	cJSON_AddItemToObject(o, "translation_of",
			      visible_ref(req, p->translation_of));
	cJSON_AddItemToObject(o, "urls", project_urls(req, p));
	/* The business edition drops users (organizations own projects). */
	if (!srv_business(req))
		cJSON_AddItemToObject(o, "users",
				      string_array(p->users, p->nusers,
						   "username"));
	cJSON_AddStringToObject(o, "versioning_scheme", p->versioning_scheme);
	/* Lectern's extension (docs/api.md "Mirrors"): where a mirror's
	 * docs came from; absent on projects built here. */
	if (p->mirror_source) {
		cJSON *m = cJSON_AddObjectToObject(o, "mirror");

		cJSON_AddStringToObject(m, "source", p->mirror_source);
		cJSON_AddStringToObject(m, "project", p->mirror_project);
		srv_v3_add_time(m, "updated", p->mirror_updated);
	}

	if (flex && srv_flex_expands(flex, "active_versions"))
		cJSON_AddItemToObject(o, "active_versions",
				      active_versions(req, p, flex));
	if (flex && srv_flex_expands(flex, "permissions")) {
		cJSON *perm = cJSON_AddObjectToObject(o, "permissions");
		struct lec_store *store = srv_store(req);
		int admin = req->user && store
				    ? lec_project_is_admin(store, p->id,
							   req->user->id)
				    : 0;

		cJSON_AddBoolToObject(perm, "admin", admin == 1);
	}
	if (flex && srv_business(req)) {
		if (srv_flex_expands(flex, "organization"))
			cJSON_AddItemToObject(o, "organization",
					      project_organization(req, p));
		if (srv_flex_expands(flex, "teams"))
			cJSON_AddItemToObject(o, "teams", project_teams(req, p));
	}
	return o;
}

/* Versions ----------------------------------------------------------------- */

/* The name a version has in its repository (the service's git_identifier):
 * a machine latest's branch, the name of the version a machine stable
 * stands for (orig), or the version's own name. */
static const char *git_identifier(const struct lec_project *p,
				  const struct lec_version *v,
				  const struct lec_version *orig)
{
	const char *name;

	if (v->machine && strcmp(v->slug, LEC_VERSION_LATEST) == 0) {
		if (v->identifier)
			return v->identifier;
		/* Not synced yet: the branch the project shows as default. */
		return p->default_branch ? p->default_branch : "master";
	}
	if (v->machine && strcmp(v->slug, LEC_VERSION_STABLE) == 0) {
		name = orig ? orig->verbose_name : v->identifier;
		if (name == NULL)
			return v->verbose_name;
		/* Old syncs stored remote branches with their remote's name. */
		return strncmp(name, "origin/", 7) == 0 ? name + 7 : name;
	}
	return v->verbose_name;
}

/* A pull or merge request's page, from the cleaned repository URL web
 * (consumed): the service links GitHub and GitLab requests and shows ""
 * for other hosts. */
static char *pull_request_url(char *web, const char *repo,
			      const char *number)
{
	int github = strstr(repo, "github") != NULL;
	int gitlab = !github && strstr(repo, "gitlab") != NULL;
	const char *host = github ? "github.com" : gitlab ? "gitlab.com" : NULL;
	const char *path = host ? strstr(web, host) : NULL;
	size_t plen, n;
	char *out;

	if (path)
		path += strlen(host);
	if (path == NULL || (*path != '/' && *path != ':')) {
		web[0] = '\0';
		return web;
	}
	path++;
	plen = strlen(path);
	while (plen > 0 && path[plen - 1] == '/')
		plen--;
	n = plen + strlen(number) + 64;
	if ((out = malloc(n)) != NULL)
		snprintf(out, n, "https://%s/%.*s/%s/%s/", host, (int)plen, path,
			 github ? "pull" : "merge_requests", number);
	free(web);
	return out;
}

/* vcs_url's work on the redacted repository URL. */
static char *web_url(const char *repo, const struct lec_project *p,
		     const struct lec_version *v,
		     const struct lec_version *orig)
{
	const char *name = git_identifier(p, v, orig);
	int git_scheme = strncmp(repo, "git://", 6) == 0;
	size_t n = strlen(repo) + strlen(name) + 32, len;
	char *out = malloc(n);

	if (out == NULL)
		return NULL;
	snprintf(out, n, "%s%s", git_scheme ? "https://" : "",
		 git_scheme ? repo + 6 : repo);
	len = strlen(out);
	if (len > 4 && strcmp(out + len - 4, ".git") == 0)
		out[len -= 4] = '\0';
	if (v->type == LEC_VERSION_EXTERNAL)
		return pull_request_url(out, repo, v->verbose_name);
	if (strstr(repo, "github") || strstr(repo, "gitlab"))
		snprintf(out + len, n - len, "/tree/%s/", name);
	else if (strstr(repo, "bitbucket"))
		snprintf(out + len, n - len, "/src/%s", name);
	return out;
}

/* The web URL of a version in its repository (the service's get_vcs_url):
 * GitHub and GitLab show a tree, Bitbucket a source view, other hosts the
 * repository itself; pull requests their request page. Made from the
 * redacted URL, so that no credentials show and none is read as a host. */
static char *vcs_url(const struct lec_project *p, const struct lec_version *v,
		     const struct lec_version *orig)
{
	char *repo = lec_repo_redact_url(p->repo_url);
	char *out = repo ? web_url(repo, p, v, orig) : NULL;

	free(repo);
	return out;
}

static cJSON *version_downloads(struct srv_request *req,
				const struct lec_project *p,
				const struct lec_version *v)
{
	static const char *const kinds[] = { "epub", "htmlzip", "pdf" };
	int has[] = { v->has_epub, v->has_htmlzip, v->has_pdf };
	cJSON *o = cJSON_CreateObject();
	char *host = lec_resolve_docs_host(p, srv_docs_domain(req));
	char prefix[300] = "";
	size_t i;

	if (p->superproject_alias)
		snprintf(prefix, sizeof(prefix), "%s/", p->superproject_alias);
	for (i = 0; host && i < 3; i++)
		if (has[i])
			add_fmt(o, kinds[i], "%s://%s/_/downloads/%s%s/%s/%s/",
				srv_request_scheme(req), host, prefix,
				p->language, v->slug, kinds[i]);
	free(host);
	return o;
}

/* ref: for the machine stable, the slug of the version stable resolves to
 * now (recomputed, as the service does); null otherwise. */
static void add_ref(struct srv_request *req, cJSON *o,
		    const struct lec_project *p, const struct lec_version *v)
{
	struct lec_store *store = srv_store(req);
	struct lec_version *stable = NULL;

	if (v->machine && strcmp(v->slug, LEC_VERSION_STABLE) == 0 && store &&
	    lec_version_determine_stable(store, p->id, &stable) == LEC_OK)
		cJSON_AddStringToObject(o, "ref", stable->slug);
	else
		cJSON_AddNullToObject(o, "ref");
	lec_version_free(stable);
}

/* The version a machine latest/stable stands for, or NULL. */
static struct lec_version *original_of(struct srv_request *req,
				       const struct lec_version *v)
{
	struct lec_store *store = srv_store(req);
	struct lec_version *orig = NULL;

	if (!v->machine || store == NULL ||
	    lec_version_original(store, v, &orig) != LEC_OK) {
		lec_version_free(orig);
		return NULL;
	}
	return orig;
}

/* A Version; with_aliases is 0 for the alias itself, which the service
 * serializes with an empty aliases list (it is never a machine version). */
static cJSON *version_object(struct srv_request *req,
			     const struct lec_project *p,
			     const struct lec_version *v, int with_aliases)
{
	cJSON *o = cJSON_CreateObject(), *links, *urls, *dash, *aliases;
	struct lec_version *orig = original_of(req, v);
	char *vcs = vcs_url(p, v, orig), *url;

	links = cJSON_AddObjectToObject(o, "_links");
	add_fmt(links, "_self", "/api/v3/projects/%s/versions/%s/", p->slug,
		v->slug);
	add_fmt(links, "builds", "/api/v3/projects/%s/versions/%s/builds/",
		p->slug, v->slug);
	add_fmt(links, "project", "/api/v3/projects/%s/", p->slug);
	cJSON_AddBoolToObject(o, "active", v->active);
	aliases = cJSON_AddArrayToObject(o, "aliases");
	/* Only an active original is shown (notes §1.5). */
	if (orig && orig->active && with_aliases)
		cJSON_AddItemToArray(aliases, version_object(req, p, orig, 0));
	cJSON_AddBoolToObject(o, "built", v->built);
	cJSON_AddItemToObject(o, "downloads", version_downloads(req, p, v));
	cJSON_AddBoolToObject(o, "hidden", v->hidden);
	cJSON_AddNumberToObject(o, "id", (double)v->id);
	srv_json_str_or_null(o, "identifier", v->identifier);
	cJSON_AddStringToObject(o, "privacy_level", v->privacy_level);
	add_ref(req, o, p, v);
	cJSON_AddStringToObject(o, "slug", v->slug);
	cJSON_AddStringToObject(o, "type", lec_version_type_code(v->type));
	urls = cJSON_AddObjectToObject(o, "urls");
	dash = cJSON_AddObjectToObject(urls, "dashboard");
	add_fmt(dash, "edit", "%s/dashboard/%s/version/%s/edit/",
		srv_request_origin(req), p->slug, v->slug);
	url = srv_version_docs_url(req, p, v);
	srv_json_str_or_null(urls, "documentation", url);
	free(url);
	srv_json_str_or_null(urls, "vcs", vcs);
	cJSON_AddStringToObject(o, "verbose_name", v->verbose_name);
	free(vcs);
	lec_version_free(orig);
	return o;
}

/* expand=last_build: the version's newest build, or null; nested holds the
 * expansions handed down to it (last_build.config → config). */
static void add_last_build(struct srv_request *req, cJSON *o,
			   const struct lec_project *p,
			   const struct lec_version *v,
			   const struct srv_flex *nested)
{
	struct lec_store *store = srv_store(req);
	struct lec_build_list list = { 0 };
	struct lec_page one = { 1, 0 };

	if (store == NULL ||
	    lec_build_list(store, p->id, v->id, NULL, &one, &list) < 0 ||
	    list.len == 0) {
		cJSON_AddNullToObject(o, "last_build");
		lec_build_list_dispose(&list);
		return;
	}
	cJSON_AddItemToObject(o, "last_build",
			      srv_v3_build(req, p, &list.items[0], v, nested));
	lec_build_list_dispose(&list);
}

cJSON *srv_v3_version(struct srv_request *req, const struct lec_project *p,
		      const struct lec_version *v, const struct srv_flex *flex)
{
	cJSON *o = version_object(req, p, v, 1);
	struct srv_flex nested = { 0 };

	if (o && flex && srv_flex_expands(flex, "last_build")) {
		flex_nested(flex, "last_build", &nested);
		add_last_build(req, o, p, v, &nested);
	}
	return o;
}

/* Builds ------------------------------------------------------------------- */

static cJSON *build_config(const struct lec_build *b)
{
	cJSON *config = b->config ? cJSON_Parse(b->config) : NULL;

	return config ? config : cJSON_CreateObject();
}

static void add_warnings(struct srv_request *req, cJSON *o,
			 const struct lec_build *b)
{
	struct lec_store *store = srv_store(req);
	struct lec_warning_summary sum;
	cJSON *w;

	if (store == NULL || lec_warning_summary_get(store, b->id, &sum) < 0 ||
	    (w = cJSON_AddObjectToObject(o, "warnings")) == NULL)
		return;
	cJSON_AddNumberToObject(w, "count", (double)sum.count);
	cJSON_AddNumberToObject(w, "dropped", (double)sum.dropped);
	cJSON_AddNumberToObject(w, "fixed", (double)sum.fixed);
	cJSON_AddNumberToObject(w, "new", (double)sum.new_count);
}

/* Lectern's extension: the type of the build's version, as v2's build
 * gives it (the service's v3 build has none, and its v3 versions leave
 * external ones out, so a client could not mark a pull request's build);
 * and an external version's forge, which names the mark: "#12 (PR)" on
 * GitHub, "(MR)" on GitLab (docs/decisions.md). */
static void add_version_type(struct srv_request *req, cJSON *o,
			     const struct lec_version *v)
{
	struct lec_external *ext = NULL;

	srv_json_str_or_null(o, "version_type",
			     v ? lec_version_type_code(v->type) : NULL);
	if (v == NULL || v->type != LEC_VERSION_EXTERNAL ||
	    lec_external_get(srv_store(req), v->id, &ext) < 0)
		return;
	cJSON_AddStringToObject(o, "external_forge",
				lec_external_forge_code(ext->forge));
	lec_external_free(ext);
}

cJSON *srv_v3_build(struct srv_request *req, const struct lec_project *p,
		    const struct lec_build *b, const struct lec_version *v,
		    const struct srv_flex *flex)
{
	cJSON *o = cJSON_CreateObject(), *links, *state, *urls;
	const char *version_slug = v ? v->slug : NULL;
	int final = lec_build_state_final(b->state);

	links = cJSON_AddObjectToObject(o, "_links");
	add_fmt(links, "_self", "/api/v3/projects/%s/builds/%lld/", p->slug,
		(long long)b->id);
	add_fmt(links, "notifications",
		"/api/v3/projects/%s/builds/%lld/notifications/", p->slug,
		(long long)b->id);
	add_fmt(links, "project", "/api/v3/projects/%s/", p->slug);
	if (version_slug)
		add_fmt(links, "version", "/api/v3/projects/%s/versions/%s/",
			p->slug, version_slug);
	else
		cJSON_AddNullToObject(links, "version");
	srv_json_str_or_null(o, "commit", b->commit);
	srv_v3_add_time(o, "created", b->created);
	if (b->duration >= 0 && final)
		cJSON_AddNumberToObject(o, "duration", (double)b->duration);
	else
		cJSON_AddNullToObject(o, "duration");
	/* The contract: the message when unsuccessful, null when none. */
	srv_json_str_or_null(o, "error", b->error);
	srv_v3_add_time(o, "finished", final ? b->finished : 0);
	cJSON_AddNumberToObject(o, "id", (double)b->id);
	/* Lectern's extension: a running build's fetch or checkout progress
	 * (docs/api.md); absent otherwise, so the service's shape holds. */
	if (!final && b->progress) {
		cJSON *progress = cJSON_Parse(b->progress);

		if (cJSON_IsObject(progress))
			cJSON_AddItemToObject(o, "progress", progress);
		else
			cJSON_Delete(progress);
	}
	cJSON_AddStringToObject(o, "project", p->slug);
	/* Lectern's extension: what the build reused of earlier builds'
	 * work, and why not (docs/api.md); absent before it is known. */
	if (b->cache) {
		cJSON *cache = cJSON_Parse(b->cache);

		if (cJSON_IsObject(cache))
			cJSON_AddItemToObject(o, "cache", cache);
		else
			cJSON_Delete(cache);
	}
	/* Lectern's extension: how many warnings, how many new since the
	 * version's last good build, how many of its it fixed; absent until
	 * the build has ended (docs/api.md). */
	if (final)
		add_warnings(req, o, b);
	/* Lectern's extension: how a build that was not started by hand
	 * started (absent otherwise, so the service's shape holds). */
	if (b->triggered_by)
		cJSON_AddStringToObject(o, "triggered_by", b->triggered_by);
	add_commit_statuses(req, o, b->id);
	state = cJSON_AddObjectToObject(o, "state");
	cJSON_AddStringToObject(state, "code", lec_build_state_code(b->state));
	cJSON_AddStringToObject(state, "name", lec_build_state_name(b->state));
	/* null until the build is final: the stored flag is provisional. */
	if (final)
		cJSON_AddBoolToObject(o, "success", b->success);
	else
		cJSON_AddNullToObject(o, "success");
	urls = cJSON_AddObjectToObject(o, "urls");
	add_fmt(urls, "build", "%s/projects/%s/builds/%lld/",
		srv_request_origin(req), p->slug, (long long)b->id);
	add_fmt(urls, "project", "%s/projects/%s/", srv_request_origin(req),
		p->slug);
	if (version_slug)
		add_fmt(urls, "version", "%s/dashboard/%s/version/%s/edit/",
			srv_request_origin(req), p->slug, version_slug);
	else
		cJSON_AddNullToObject(urls, "version");
	srv_json_str_or_null(o, "version", version_slug);
	add_version_type(req, o, v);
	/* flex is this build's own level: a nested build gets the tail of
	 * its parent's paths (see flex_nested). */
	if (flex && srv_flex_expands(flex, "config"))
		cJSON_AddItemToObject(o, "config", build_config(b));
	return o;
}
