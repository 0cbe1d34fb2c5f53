/*
 * The file tree diff of /_/addons/ (docs_addons.c), the service's
 * "filetreediff" addon: on a pull request's build, which pages it added,
 * deleted and modified against the base version (the project's
 * options_base_version, else latest), each with its URL in both. The
 * service compares a manifest of main-content hashes made at build time;
 * Lectern compares the two published outputs with its page diff
 * (lectern/diff.h: title and sections as search sees them, so a change
 * of theme or footer is no change) and, since it always compares what is
 * served, never calls a diff outdated.
 *
 * A diff reads every page of both outputs, and every page view of the
 * pull request asks for it, so the answer is kept per pair of builds
 * (a rebuild of either side is a new pair) in a few slots shared by the
 * server's threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs.h"
#include "lectern/diff.h"
#include "lectern/errors.h"
#include "v3.h"

/* Pairs of builds whose diff is kept: the pull requests being read at
 * once on one instance. */
#define FILETREEDIFF_SLOTS 8

struct kept_diff {
	int64_t head_build, base_build; /* 0: empty slot */
	char *json;                     /* the "diff" object, printed */
	unsigned long used;             /* for replacing the oldest */
};

static struct kept_diff kept[FILETREEDIFF_SLOTS];
static unsigned long kept_clock;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* The kept diff of a pair, parsed; NULL when none is kept. */
static cJSON *kept_find(int64_t head, int64_t base)
{
	cJSON *found = NULL;
	size_t i;

	pthread_mutex_lock(&kept_lock);
	for (i = 0; i < FILETREEDIFF_SLOTS && found == NULL; i++)
		if (kept[i].head_build == head && kept[i].base_build == base) {
			found = cJSON_Parse(kept[i].json);
			kept[i].used = ++kept_clock;
		}
	pthread_mutex_unlock(&kept_lock);
	return found;
}

/* Keep a pair's diff in the oldest slot. */
static void kept_put(int64_t head, int64_t base, const cJSON *diff)
{
	char *json = cJSON_PrintUnformatted(diff);
	size_t i, oldest = 0;

	if (json == NULL)
		return;
	pthread_mutex_lock(&kept_lock);
	for (i = 1; i < FILETREEDIFF_SLOTS; i++)
		if (kept[i].used < kept[oldest].used)
			oldest = i;
	free(kept[oldest].json);
	kept[oldest].head_build = head;
	kept[oldest].base_build = base;
	kept[oldest].json = json;
	kept[oldest].used = ++kept_clock;
	pthread_mutex_unlock(&kept_lock);
}

/* {"filename": path, "urls": {"current": ..., "base": ...}} */
static cJSON *file_json(const char *path, const char *head_root,
			const char *base_root)
{
	cJSON *o = cJSON_CreateObject(), *urls;
	char *url;

	cJSON_AddStringToObject(o, "filename", path);
	urls = cJSON_AddObjectToObject(o, "urls");
	if (asprintf(&url, "%s%s", head_root, path) >= 0) {
		cJSON_AddStringToObject(urls, "current", url);
		free(url);
	}
	if (asprintf(&url, "%s%s", base_root, path) >= 0) {
		cJSON_AddStringToObject(urls, "base", url);
		free(url);
	}
	return o;
}

/* The service's "diff": added, deleted and modified pages, by path. */
static cJSON *diff_json(const struct lec_diff *d, const char *head_root,
			const char *base_root)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *added = cJSON_AddArrayToObject(o, "added");
	cJSON *deleted = cJSON_AddArrayToObject(o, "deleted");
	cJSON *modified = cJSON_AddArrayToObject(o, "modified");
	size_t i;

	for (i = 0; i < d->pages_len; i++) {
		const struct lec_diff_page *pg = &d->pages[i];
		cJSON *list = pg->status == LEC_DIFF_ADDED     ? added
			      : pg->status == LEC_DIFF_REMOVED ? deleted
							       : modified;

		cJSON_AddItemToArray(list,
				     file_json(pg->path, head_root, base_root));
	}
	return o;
}

/* The pair's diff: kept, or made now and kept. NULL when an output is
 * missing or unreadable (no diff is shown then). */
static cJSON *pair_diff(struct docs_ctx *c, const struct lec_project *p,
			const struct lec_diff_ref *head,
			const struct lec_diff_ref *base,
			const struct lec_version *head_v,
			const struct lec_version *base_v)
{
	struct lec_diff *d = NULL;
	char *head_root = NULL, *base_root = NULL;
	cJSON *out;

	if ((out = kept_find(head->build_id, base->build_id)) != NULL)
		return out;
	if (lec_diff_pages(base->dir, head->dir, NULL, &d) == LEC_OK &&
	    (head_root = srv_version_docs_url(c->req, p, head_v)) != NULL &&
	    (base_root = srv_version_docs_url(c->req, p, base_v)) != NULL &&
	    (out = diff_json(d, head_root, base_root)) != NULL)
		kept_put(head->build_id, base->build_id, out);
	lec_diff_free(d);
	free(head_root);
	free(base_root);
	return out;
}

int docs_addons_filetreediff(struct docs_ctx *c, const struct lec_project *p,
			     const struct lec_version *head,
			     const char *base_slug, cJSON *addon)
{
	struct lec_diff_ref href = { 0 }, bref = { 0 };
	struct lec_version *base = NULL;
	cJSON *diff = NULL;

	if (head->type != LEC_VERSION_EXTERNAL ||
	    lec_version_get(c->store, p->id, base_slug, &base) != LEC_OK ||
	    !docs_can_read(c, p, base) ||
	    lec_diff_ref_resolve(c->store, srv_data_dir(c->req), p->id,
				 p->slug, head->slug, &href) != LEC_OK ||
	    lec_diff_ref_resolve(c->store, srv_data_dir(c->req), p->id,
				 p->slug, base_slug, &bref) != LEC_OK ||
	    (diff = pair_diff(c, p, &href, &bref, head, base)) == NULL)
		goto done;
	cJSON_AddBoolToObject(addon, "outdated", 0);
	cJSON_AddItemToObject(addon, "diff", diff);
done:
	lec_version_free(base);
	lec_diff_ref_dispose(&href);
	lec_diff_ref_dispose(&bref);
	return diff != NULL;
}
