/*
 * GET /_/addons/ on the preview's server (preview_addons.h). The preview
 * has no store: its project is the working tree (named after the tree's
 * directory), its one version is the working tree as it is on disk, and
 * its one build is the output being served. The document has the docs
 * host's shape (docs_addons.c, the service's api-version 1) so the same
 * script draws from it; what the preview cannot answer is turned off
 * rather than pointed at nothing: it has no search API, no embed API and
 * no base version, so search, its hotkey, link previews, the visual diff
 * and the file tree diff are off, and so are the notifications (the
 * working tree is neither latest nor an old release). What it has no
 * value for (dates, a repository, a language) is null.
 *
 * The parameters and the error bodies are the service's, as the docs
 * host gives them: a `url` must be one of this preview's own pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "docs.h"
#include "lectern/errors.h"
#include "lectern/slug.h"
#include "preview_addons.h"

/* What one answer is made from. */
struct answer {
	const struct srv_preview_site *site;
	char *slug;
	char *root;     /* origin + "/" */
	char *status;   /* origin + the status endpoint */
	char *filename; /* the page's, or NULL */
	int version;    /* the query named the working tree */
};

/* {key: message} (the service's "error" for a 400, "detail" for a 404). */
static char *message_json(const char *key, const char *message)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(o, key, message);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	return text;
}

/* Serializing ------------------------------------------------------------- */

static void add_text(cJSON *o, const char *key, const char *text)
{
	if (text)
		cJSON_AddStringToObject(o, key, text);
	else
		cJSON_AddNullToObject(o, key);
}

/* {"code": null, "name": null}: a choice the preview does not know. */
static void add_unknown_choice(cJSON *o, const char *key)
{
	cJSON *c = cJSON_AddObjectToObject(o, key);

	cJSON_AddNullToObject(c, "code");
	cJSON_AddNullToObject(c, "name");
}

/* The fields of the service's objects the preview has no value for. */
static void add_nulls(cJSON *o, const char *const *keys)
{
	for (; *keys; keys++)
		cJSON_AddNullToObject(o, *keys);
}

static const char *const project_nulls[] = {
	"created",  "default_branch",        "external_builds_privacy_level",
	"homepage", "modified",              "privacy_level",
	"readthedocs_yaml_path", "subproject_of", "translation_of", NULL
};

static cJSON *project_json(const struct answer *a)
{
	cJSON *o = cJSON_CreateObject(), *x;

	add_nulls(o, project_nulls);
	cJSON_AddStringToObject(o, "default_version", SRV_PREVIEW_VERSION_SLUG);
	cJSON_AddNumberToObject(o, "id", 0);
	add_unknown_choice(o, "language");
	cJSON_AddStringToObject(o, "name", a->site->name);
	add_unknown_choice(o, "programming_language");
	x = cJSON_AddObjectToObject(o, "repository");
	cJSON_AddNullToObject(x, "type");
	cJSON_AddNullToObject(x, "url");
	/* Its pages are at the root, as a single-version project's. */
	cJSON_AddBoolToObject(o, "single_version", 1);
	cJSON_AddStringToObject(o, "slug", a->slug);
	x = cJSON_AddObjectToObject(o, "urls");
	cJSON_AddStringToObject(x, "builds", a->status);
	cJSON_AddStringToObject(x, "documentation", a->root);
	cJSON_AddNullToObject(x, "downloads");
	cJSON_AddStringToObject(x, "home", a->root);
	cJSON_AddStringToObject(x, "versions", a->root);
	cJSON_AddStringToObject(o, "versioning_scheme",
				"single_version_without_translations");
	return o;
}

static const char *const version_nulls[] = { "identifier", "privacy_level",
					     "ref", "type", NULL };

static cJSON *version_json(const struct answer *a)
{
	cJSON *o = cJSON_CreateObject(), *x;

	add_nulls(o, version_nulls);
	cJSON_AddBoolToObject(o, "active", 1);
	cJSON_AddItemToObject(o, "aliases", cJSON_CreateArray());
	cJSON_AddBoolToObject(o, "built", a->site->published > 0);
	cJSON_AddItemToObject(o, "downloads", cJSON_CreateObject());
	cJSON_AddBoolToObject(o, "hidden", 0);
	cJSON_AddNumberToObject(o, "id", 0);
	cJSON_AddStringToObject(o, "slug", SRV_PREVIEW_VERSION_SLUG);
	cJSON_AddStringToObject(o, "verbose_name", SRV_PREVIEW_VERSION_NAME);
	x = cJSON_AddObjectToObject(o, "urls");
	cJSON_AddNullToObject(cJSON_AddObjectToObject(x, "dashboard"), "edit");
	cJSON_AddStringToObject(x, "documentation", a->root);
	cJSON_AddNullToObject(x, "vcs");
	return o;
}

static const char *const build_nulls[] = { "commit", "created", "error",
					   "finished", NULL };

/* The build being served, or null before the first one. */
static cJSON *build_json(const struct answer *a)
{
	const struct srv_preview_site *s = a->site;
	cJSON *o, *x;

	if (s->published == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	add_nulls(o, build_nulls);
	if (s->duration_ms >= 0)
		cJSON_AddNumberToObject(o, "duration",
					(double)(s->duration_ms / 1000));
	else
		cJSON_AddNullToObject(o, "duration");
	cJSON_AddNumberToObject(o, "id", (double)s->published);
	cJSON_AddStringToObject(o, "project", a->slug);
	x = cJSON_AddObjectToObject(o, "state");
	cJSON_AddStringToObject(x, "code", "finished");
	cJSON_AddStringToObject(x, "name", "Finished");
	cJSON_AddBoolToObject(o, "success", 1);
	x = cJSON_AddObjectToObject(o, "urls");
	cJSON_AddStringToObject(x, "build", a->status);
	cJSON_AddStringToObject(x, "project", a->root);
	cJSON_AddStringToObject(x, "version", a->root);
	cJSON_AddStringToObject(o, "version", SRV_PREVIEW_VERSION_SLUG);
	return o;
}

static cJSON *section(cJSON *addons, const char *name, int enabled)
{
	cJSON *o = cJSON_AddObjectToObject(addons, name);

	cJSON_AddBoolToObject(o, "enabled", enabled);
	return o;
}

/* The sections that are off with one null field each, as the service
 * shows them when off. */
static const struct {
	const char *name, *field;
} off_sections[] = {
	{ "analytics", "code" },        { "customscript", "src" },
	{ "linkpreviews", "selector" }, { "filetreediff", NULL },
};

static cJSON *addons_json(void)
{
	cJSON *a = cJSON_CreateObject(), *o, *hot;
	size_t i;

	o = cJSON_AddObjectToObject(a, "options");
	cJSON_AddBoolToObject(o, "load_when_embedded", 0);
	cJSON_AddNullToObject(o, "root_selector");
	for (i = 0; i < sizeof(off_sections) / sizeof(off_sections[0]); i++) {
		o = section(a, off_sections[i].name, 0);
		if (off_sections[i].field)
			cJSON_AddNullToObject(o, off_sections[i].field);
	}
	o = section(a, "notifications", 0);
	cJSON_AddBoolToObject(o, "show_on_latest", 0);
	cJSON_AddBoolToObject(o, "show_on_non_stable", 0);
	cJSON_AddBoolToObject(o, "show_on_external", 0);
	cJSON_AddNullToObject(section(a, "flyout", 1), "position");
	o = section(a, "search", 0);
	cJSON_AddItemToObject(o, "filters", cJSON_CreateArray());
	cJSON_AddNullToObject(o, "default_filter");
	hot = section(a, "hotkeys", 0);
	cJSON_AddStringToObject(section(hot, "doc_diff", 0), "trigger", "KeyD");
	cJSON_AddStringToObject(section(hot, "search", 0), "trigger", "Slash");
	o = section(a, "doc_diff", 0);
	cJSON_AddNullToObject(o, "base_url");
	cJSON_AddBoolToObject(o, "inject_styles", 0);
	return a;
}

static cJSON *v1_json(const struct answer *a)
{
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddStringToObject(o, "api_version", "1");
	x = cJSON_AddObjectToObject(o, "projects");
	cJSON_AddItemToObject(x, "current", project_json(a));
	cJSON_AddItemToObject(x, "translations", cJSON_CreateArray());
	x = cJSON_AddObjectToObject(o, "versions");
	cJSON_AddItemToObject(x, "current", a->version ? version_json(a)
						      : cJSON_CreateNull());
	cJSON_AddItemToObject(x, "active", cJSON_CreateArray());
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(x, "active"),
			     version_json(a));
	x = cJSON_AddObjectToObject(o, "builds");
	cJSON_AddItemToObject(x, "current", a->version ? build_json(a)
						      : cJSON_CreateNull());
	cJSON_AddNullToObject(cJSON_AddObjectToObject(o, "domains"),
			      "dashboard");
	x = cJSON_AddObjectToObject(o, "readthedocs");
	cJSON_AddNullToObject(cJSON_AddObjectToObject(x, "analytics"), "code");
	add_text(cJSON_AddObjectToObject(x, "resolver"), "filename",
		 a->filename);
	cJSON_AddItemToObject(o, "addons", addons_json());
	return o;
}

/* Resolving the page ------------------------------------------------------ */

/* The page's filename ("/guide/index.html") when url is one of this
 * preview's pages; NULL with *ours 0 when it is another site's, NULL with
 * *ours 1 when its path is none a file can have. */
static char *filename_of(const struct answer *a, const char *url, int *ours)
{
	size_t on = strlen(a->site->origin), n;
	const char *path = url + on;
	char *decoded, *out = NULL;

	*ours = strncasecmp(url, a->site->origin, on) == 0 &&
		strchr("/?#", *path) != NULL;
	if (!*ours)
		return NULL;
	n = strcspn(path, "?#");
	if (n == 0)
		return strdup("/" DOCS_INDEX);
	if ((decoded = docs_decode_path(path, n)) == NULL)
		return NULL;
	if (decoded[strlen(decoded) - 1] != '/')
		return decoded;
	if (asprintf(&out, "%s" DOCS_INDEX, decoded) < 0)
		out = NULL;
	free(decoded);
	return out;
}

/* 200 with the answer, or the service's 400 or 404. */
static int answer(struct answer *a, const struct docs_addons_query *q, char **body)
{
	const char *error;
	long major = 0;
	int ours = 1;
	cJSON *json;

	if (!q->url && (!q->project || !q->version)) {
		*body = message_json("error", DOCS_ADDONS_NEED_SLUGS);
		return 400;
	}
	if (q->url) {
		a->filename = filename_of(a, q->url, &ours);
		a->version = 1;
		if (!ours) {
			*body = message_json("detail", DOCS_ADDONS_NO_URL_PROJECT);
			return 404;
		}
	} else if (strcmp(q->project, a->slug) != 0) {
		*body = message_json("detail", DOCS_ADDONS_NO_PROJECT);
		return 404;
	} else {
		/* Another version: a partial match, as on a docs host. */
		a->version = strcmp(q->version, SRV_PREVIEW_VERSION_SLUG) == 0;
	}
	if ((error = docs_addons_api_error(q->api, &major)) != NULL) {
		*body = message_json("error", error);
		return 400;
	}
	json = major == 1 ? v1_json(a) : docs_addons_v2();
	*body = json ? cJSON_PrintUnformatted(json) : NULL;
	cJSON_Delete(json);
	return 200;
}

static char *joined(const char *a, const char *b)
{
	char *out = NULL;

	return asprintf(&out, "%s%s", a, b) < 0 ? NULL : out;
}

int srv_preview_addons(const struct srv_preview_site *site, const char *query,
		       char **body)
{
	struct docs_addons_query *q = malloc(sizeof(*q));
	struct answer a = { site, NULL, NULL, NULL, NULL, 0 };
	int status = -1;

	*body = NULL;
	if (q == NULL || lec_slug_project(site->name, &a.slug) != LEC_OK ||
	    (a.root = joined(site->origin, "/")) == NULL ||
	    (a.status = joined(site->origin, site->status)) == NULL)
		goto done;
	docs_addons_query_read(query, q);
	status = answer(&a, q, body);
done:
	if (*body == NULL)
		status = -1;
	free(a.filename);
	free(a.status);
	free(a.root);
	free(a.slug);
	free(q);
	return status;
}
