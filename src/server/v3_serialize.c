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
#include "lectern/language.h"
#include "lectern/project.h"
#include "lectern/timefmt.h"
#include "lectern/version.h"
#include "v3.h"

/* Small builders ---------------------------------------------------------- */

static void add_time(cJSON *obj, const char *key, int64_t us)
{
	char text[LEC_TIME_ISO_MAX];

	if (us <= 0) {
		cJSON_AddNullToObject(obj, key);
		return;
	}
	lec_time_iso8601(us, text);
	cJSON_AddStringToObject(obj, key, text);
}

static void add_string_or_null(cJSON *obj, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(obj, key, s);
	else
		cJSON_AddNullToObject(obj, key);
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

static cJSON *code_name(const char *code, const char *name)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "code", code);
	cJSON_AddStringToObject(o, "name", name);
	return o;
}

/* Documentation URLs (the resolver of notes §7.1) -------------------------- */

char *srv_docs_url(struct srv_request *req, const struct lec_project *p,
		   const char *version_slug)
{
	const char *domain_slug = p->slug;
	char prefix[300] = "", path[600], host[128];
	char *url;
	size_t i, n;

	if (p->superproject_slug) {
		domain_slug = p->superproject_slug;
		snprintf(prefix, sizeof(prefix), "/projects/%s",
			 p->superproject_alias);
	} else if (p->translation_of) {
		domain_slug = p->translation_of;
	}
	if (strcmp(p->versioning_scheme,
		   "single_version_without_translations") == 0)
		snprintf(path, sizeof(path), "%s/", prefix);
	else if (strcmp(p->versioning_scheme,
			"multiple_versions_without_translations") == 0)
		snprintf(path, sizeof(path), "%s/%s/", prefix, version_slug);
	else
		snprintf(path, sizeof(path), "%s/%s/%s/", prefix, p->language,
			 version_slug);
	/* Subdomains cannot hold '_': the service maps it to '-'. */
	snprintf(host, sizeof(host), "%s", domain_slug);
	for (i = 0; host[i]; i++)
		if (host[i] == '_')
			host[i] = '-';
	n = strlen(host) + strlen(srv_docs_domain(req)) + strlen(path) + 16;
	if ((url = malloc(n)) != NULL)
		snprintf(url, n, "http://%s.%s%s", host, srv_docs_domain(req),
			 path);
	return url;
}

static void add_docs_url(struct srv_request *req, cJSON *obj,
			 const struct lec_project *p, const char *vslug)
{
	char *url = srv_docs_url(req, p, vslug);

	add_string_or_null(obj, "documentation", url);
	free(url);
}

/* Projects ----------------------------------------------------------------- */

cJSON *srv_v3_project_links(const char *slug)
{
	static const struct {
		const char *key, *suffix;
	} links[] = {
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
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < sizeof(links) / sizeof(links[0]); i++)
		add_fmt(o, links[i].key, "/api/v3/projects/%s/%s", slug,
			links[i].suffix);
	return o;
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
		srv_public_origin(req), p->slug);
	add_docs_url(req, urls, p, vslug ? vslug : p->default_version);
	cJSON_AddNullToObject(urls, "downloads");
	add_fmt(urls, "home", "%s/projects/%s/", srv_public_origin(req),
		p->slug);
	add_fmt(urls, "versions", "%s/projects/%s/versions/",
		srv_public_origin(req), p->slug);
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
	cJSON *o = cJSON_CreateObject();
	struct lec_store *store = srv_store(req);
	size_t i;

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
						     flex));
	}
	lec_version_list_dispose(&list);
	return o;
}

cJSON *srv_v3_project(struct srv_request *req, const struct lec_project *p,
		      const struct srv_flex *flex, int list_context)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *repo;

	(void)list_context;
	if (o == NULL)
		return NULL;
	cJSON_AddItemToObject(o, "_links", srv_v3_project_links(p->slug));
	add_time(o, "created", p->created);
	cJSON_AddStringToObject(o, "default_branch",
				p->default_branch ? p->default_branch
						  : "master");
	cJSON_AddStringToObject(o, "default_version", p->default_version);
	cJSON_AddStringToObject(o, "external_builds_privacy_level",
				p->external_builds_privacy_level);
	add_string_or_null(o, "homepage", p->homepage[0] ? p->homepage : NULL);
	cJSON_AddNumberToObject(o, "id", (double)p->id);
	cJSON_AddItemToObject(o, "language",
			      code_name(p->language,
					lec_language_name(p->language)));
	add_time(o, "modified", p->modified);
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "privacy_level", p->privacy_level);
	cJSON_AddItemToObject(
		o, "programming_language",
		code_name(p->programming_language,
			  lec_programming_language_name(
				  p->programming_language)));
	add_string_or_null(o, "readthedocs_yaml_path",
			   p->readthedocs_yaml_path);
	repo = cJSON_AddObjectToObject(o, "repository");
	cJSON_AddStringToObject(repo, "type", p->repo_type);
	cJSON_AddStringToObject(repo, "url", p->repo_url);
	cJSON_AddBoolToObject(o, "single_version", p->single_version);
	cJSON_AddStringToObject(o, "slug", p->slug);
	if (p->superproject_slug && !p->translation_of)
		cJSON_AddItemToObject(o, "subproject_of",
				      srv_v3_project_ref(p->superproject_slug));
	else
		cJSON_AddNullToObject(o, "subproject_of");
	cJSON_AddItemToObject(o, "tags", string_array(p->tags, p->ntags, NULL));
	if (p->translation_of)
		cJSON_AddItemToObject(o, "translation_of",
				      srv_v3_project_ref(p->translation_of));
	else
		cJSON_AddNullToObject(o, "translation_of");
	cJSON_AddItemToObject(o, "urls", project_urls(req, p));
	/* The business edition drops users (organizations own projects). */
	if (srv_edition(req) == SRV_EDITION_COMMUNITY)
		cJSON_AddItemToObject(o, "users",
				      string_array(p->users, p->nusers,
						   "username"));
	cJSON_AddStringToObject(o, "versioning_scheme", p->versioning_scheme);

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
	return o;
}

/* Versions ----------------------------------------------------------------- */

/* The web URL of a version in its repository (the service's get_vcs_url):
 * GitHub and GitLab show a tree, Bitbucket a source view, other hosts the
 * repository itself. */
static char *vcs_url(const struct lec_project *p, const struct lec_version *v)
{
	const char *url = p->repo_url;
	const char *ident = v->identifier ? v->identifier : v->verbose_name;
	size_t n = strlen(url) + strlen(ident) + 32;
	char *out = malloc(n), *end;

	if (out == NULL)
		return NULL;
	if (strncmp(url, "git://", 6) == 0)
		snprintf(out, n, "https://%s", url + 6);
	else
		snprintf(out, n, "%s", url);
	end = out + strlen(out);
	if (end - out > 4 && strcmp(end - 4, ".git") == 0)
		end[-4] = '\0';
	if (strstr(out, "github.com") || strstr(out, "gitlab.com"))
		snprintf(out + strlen(out), n - strlen(out), "/tree/%s/", ident);
	else if (strstr(out, "bitbucket.org"))
		snprintf(out + strlen(out), n - strlen(out), "/src/%s",
			 v->verbose_name);
	return out;
}

static cJSON *version_downloads(struct srv_request *req,
				const struct lec_project *p,
				const struct lec_version *v)
{
	static const char *const kinds[] = { "epub", "htmlzip", "pdf" };
	int has[] = { v->has_epub, v->has_htmlzip, v->has_pdf };
	cJSON *o = cJSON_CreateObject();
	char prefix[300] = "";
	size_t i;

	if (p->superproject_alias)
		snprintf(prefix, sizeof(prefix), "%s/", p->superproject_alias);
	for (i = 0; i < 3; i++)
		if (has[i])
			add_fmt(o, kinds[i],
				"http://%s.%s/_/downloads/%s%s/%s/%s/",
				p->superproject_slug ? p->superproject_slug
						     : p->slug,
				srv_docs_domain(req), prefix, p->language,
				v->slug, kinds[i]);
	return o;
}

static cJSON *version_object(struct srv_request *req,
			     const struct lec_project *p,
			     const struct lec_version *v, int with_aliases);

/* ref and aliases of a machine latest/stable (notes §1.5). */
static void add_ref_and_aliases(struct srv_request *req, cJSON *o,
				const struct lec_project *p,
				const struct lec_version *v, int with_aliases)
{
	struct lec_store *store = srv_store(req);
	struct lec_version *orig = NULL;
	cJSON *aliases = cJSON_AddArrayToObject(o, "aliases");
	int found = v->machine && store &&
		    lec_version_original(store, v, &orig) == LEC_OK;

	if (found && strcmp(v->slug, LEC_VERSION_STABLE) == 0)
		cJSON_AddStringToObject(o, "ref", orig->slug);
	else
		cJSON_AddNullToObject(o, "ref");
	if (found && orig->active && with_aliases)
		cJSON_AddItemToArray(aliases, version_object(req, p, orig, 0));
	lec_version_free(orig);
}

static cJSON *version_object(struct srv_request *req,
			     const struct lec_project *p,
			     const struct lec_version *v, int with_aliases)
{
	cJSON *o = cJSON_CreateObject(), *links, *urls, *dash;
	char *vcs = vcs_url(p, v);

	links = cJSON_AddObjectToObject(o, "_links");
	add_fmt(links, "_self", "/api/v3/projects/%s/versions/%s/", p->slug,
		v->slug);
	add_fmt(links, "builds", "/api/v3/projects/%s/versions/%s/builds/",
		p->slug, v->slug);
	add_fmt(links, "project", "/api/v3/projects/%s/", p->slug);
	cJSON_AddBoolToObject(o, "active", v->active);
	add_ref_and_aliases(req, o, p, v, with_aliases);
	cJSON_AddBoolToObject(o, "built", v->built);
	cJSON_AddItemToObject(o, "downloads", version_downloads(req, p, v));
	cJSON_AddBoolToObject(o, "hidden", v->hidden);
	cJSON_AddNumberToObject(o, "id", (double)v->id);
	add_string_or_null(o, "identifier", v->identifier);
	cJSON_AddStringToObject(o, "privacy_level", v->privacy_level);
	cJSON_AddStringToObject(o, "slug", v->slug);
	cJSON_AddStringToObject(o, "type", lec_version_type_code(v->type));
	urls = cJSON_AddObjectToObject(o, "urls");
	dash = cJSON_AddObjectToObject(urls, "dashboard");
	add_fmt(dash, "edit", "%s/dashboard/%s/version/%s/edit/",
		srv_public_origin(req), p->slug, v->slug);
	add_docs_url(req, urls, p, v->slug);
	add_string_or_null(urls, "vcs", vcs);
	cJSON_AddStringToObject(o, "verbose_name", v->verbose_name);
	free(vcs);
	return o;
}

/* expand=last_build[.config]: the version's newest build. */
static void add_last_build(struct srv_request *req, cJSON *o,
			   const struct lec_project *p,
			   const struct lec_version *v,
			   const struct srv_flex *flex)
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
			      srv_v3_build(req, p, &list.items[0], v->slug,
					   flex));
	lec_build_list_dispose(&list);
}

cJSON *srv_v3_version(struct srv_request *req, const struct lec_project *p,
		      const struct lec_version *v, const struct srv_flex *flex)
{
	cJSON *o = version_object(req, p, v, 1);

	if (o && flex &&
	    (srv_flex_expands(flex, "last_build") ||
	     srv_flex_expands(flex, "active_versions.last_build")))
		add_last_build(req, o, p, v, flex);
	return o;
}

/* Builds ------------------------------------------------------------------- */

static cJSON *build_config(const struct lec_build *b)
{
	cJSON *config = b->config ? cJSON_Parse(b->config) : NULL;

	return config ? config : cJSON_CreateObject();
}

cJSON *srv_v3_build(struct srv_request *req, const struct lec_project *p,
		    const struct lec_build *b, const char *version_slug,
		    const struct srv_flex *flex)
{
	cJSON *o = cJSON_CreateObject(), *links, *state, *urls;
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
	add_string_or_null(o, "commit", b->commit);
	add_time(o, "created", b->created);
	if (b->duration >= 0 && final)
		cJSON_AddNumberToObject(o, "duration", (double)b->duration);
	else
		cJSON_AddNullToObject(o, "duration");
	/* The contract: the message when unsuccessful, null when none. */
	add_string_or_null(o, "error", b->error);
	add_time(o, "finished", final ? b->finished : 0);
	cJSON_AddNumberToObject(o, "id", (double)b->id);
	cJSON_AddStringToObject(o, "project", p->slug);
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
		srv_public_origin(req), p->slug, (long long)b->id);
	add_fmt(urls, "project", "%s/projects/%s/", srv_public_origin(req),
		p->slug);
	if (version_slug)
		add_fmt(urls, "version", "%s/dashboard/%s/version/%s/edit/",
			srv_public_origin(req), p->slug, version_slug);
	else
		cJSON_AddNullToObject(urls, "version");
	add_string_or_null(o, "version", version_slug);
	if (flex && (srv_flex_expands(flex, "config") ||
		     srv_flex_expands(flex, "last_build.config") ||
		     srv_flex_expands(flex, "active_versions.last_build.config")))
		cJSON_AddItemToObject(o, "config", build_config(b));
	return o;
}
