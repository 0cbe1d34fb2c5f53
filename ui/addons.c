/*
 * The reader's view of /_/addons/ (addons.h): the rules of the addons'
 * script (src/server/addons/addons.js) for the notice and the same page
 * in another version, read from the same JSON, so the terminal and the
 * browser say the same thing.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "addons.h"
#include "util.h"

static const cJSON *at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);

	return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

static const char *text(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The page (the resolver's filename) below a version's root, a
 * directory's index.html left off. Owned. */
static char *same_page(const char *root, const char *filename)
{
	size_t n;
	char *file, *out;

	filename += filename[0] == '/';
	n = strlen(filename);
	if (n >= 10 && strcmp(filename + n - 10, "index.html") == 0 &&
	    (n == 10 || filename[n - 11] == '/'))
		n -= 10;
	file = ui_xstrndup(filename, n);
	out = ui_xasprintf("%s%s", root, file);
	free(file);
	return out;
}

/* The notice of version current (type, slug) as the script words it. */
static char *notice_of(const cJSON *conf, const cJSON *current, int stable)
{
	const char *slug = text(current, "slug"), *type = text(current, "type");
	const char *hint = stable ? " \u2014 s for stable" : "";

	if (!cJSON_IsTrue(at(conf, "enabled", NULL)) || slug == NULL)
		return NULL;
	if (type && strcmp(type, "external") == 0)
		return cJSON_IsTrue(at(conf, "show_on_external", NULL))
			       ? ui_xasprintf("%s: a pull request's build, not "
					      "a release's docs%s",
					      slug, hint)
			       : NULL;
	if (strcmp(slug, "latest") == 0)
		return cJSON_IsTrue(at(conf, "show_on_latest", NULL))
			       ? ui_xasprintf("latest: development version%s",
					      hint)
			       : NULL;
	if (strcmp(slug, "stable") != 0 && stable &&
	    cJSON_IsTrue(at(conf, "show_on_non_stable", NULL)))
		return ui_xasprintf("%s: not the stable version%s", slug, hint);
	return NULL;
}

int ui_addons_read(const char *body, size_t len, struct ui_addons *out)
{
	cJSON *json = cJSON_ParseWithLength(body, len);
	const cJSON *active = at(json, "versions", "active"), *v;
	const cJSON *current = at(json, "versions", "current");
	const char *filename = text(at(json, "readthedocs", "resolver"),
				    "filename");
	const char *slug = text(current, "slug");
	size_t n;

	if (!cJSON_IsArray(active) || !cJSON_IsObject(at(json, "addons", NULL))) {
		cJSON_Delete(json);
		return -1;
	}
	n = (size_t)cJSON_GetArraySize(active);
	out->titles = ui_xcalloc(n + 1, sizeof(*out->titles));
	out->urls = ui_xcalloc(n + 1, sizeof(*out->urls));
	out->current = n;
	cJSON_ArrayForEach(v, active) {
		const char *vslug = text(v, "slug");
		const char *root = text(at(v, "urls", NULL), "documentation");

		if (vslug == NULL || root == NULL)
			continue;
		if (slug && strcmp(vslug, slug) == 0)
			out->current = out->nversions;
		out->titles[out->nversions] = ui_xstrdup(vslug);
		out->urls[out->nversions] =
			same_page(root, filename ? filename : "");
		if (strcmp(vslug, "stable") == 0 &&
		    (slug == NULL || strcmp(slug, "stable") != 0))
			out->stable_url =
				ui_xstrdup(out->urls[out->nversions]);
		out->nversions++;
	}
	out->notice = notice_of(at(json, "addons", "notifications"), current,
				out->stable_url != NULL);
	cJSON_Delete(json);
	return 0;
}

void ui_addons_dispose(struct ui_addons *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->nversions; i++) {
		free(a->titles[i]);
		free(a->urls[i]);
	}
	free(a->titles);
	free(a->urls);
	free(a->notice);
	free(a->stable_url);
	memset(a, 0, sizeof(*a));
}
