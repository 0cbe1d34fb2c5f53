/*
 * GET /api/v3/projects/<slug>/diff/?base=&head=[&path=]: Lectern's page
 * diff (docs/api.md), what changed in a project's documentation between
 * two versions or builds, from their kept outputs (engine diff.h).
 *
 * Each reference is seen as the requester sees it: a version or a build of
 * a version they may not see answers exactly as one that does not exist,
 * so the diff reveals nothing the builds endpoints would not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/build.h"
#include "lectern/diff.h"
#include "lectern/project.h"
#include "json_build.h"
#include "v3.h"

/* The service's message for a version that is missing or hidden. */
#define NO_VERSION "No Version matches the given query."

static const char *const status_names[] = {
	[LEC_DIFF_CHANGED] = "changed",
	[LEC_DIFF_ADDED] = "added",
	[LEC_DIFF_REMOVED] = "removed",
};

/* Whether the requester may see what text names. A reference that names
 * nothing, or is malformed, counts as visible: resolving it gives the
 * precise 404 or 400. */
static int ref_visible(struct srv_request *req, const struct srv_parent *parent,
		       const char *text, char *why, size_t why_size)
{
	struct lec_store *st = srv_store(req);
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	const char *id_text;
	char *end;
	long long id;
	int visible = 1;

	if (strncmp(text, "build:", 6) == 0) {
		id_text = text + 6;
		id = strtoll(id_text, &end, 10);
		if (id_text[0] >= '0' && id_text[0] <= '9' && *end == '\0' &&
		    id > 0 &&
		    lec_build_get_in_project(st, parent->project->id, id, &b) ==
			    LEC_OK) {
			if (b->version_id &&
			    lec_version_get_by_id(st, b->version_id, &v) < 0)
				v = NULL;
			visible = srv_v3_version_visible(st, parent, v);
			snprintf(why, why_size, "No build %lld in this project.",
				 id);
		}
	} else if (lec_version_get(st, parent->project->id, text, &v) ==
		   LEC_OK) {
		visible = srv_v3_version_visible(st, parent, v);
		snprintf(why, why_size, "%s", NO_VERSION);
	}
	lec_build_free(b);
	lec_version_free(v);
	return visible;
}

/* Resolve the query parameter key into ref. Returns 0, or -1 after
 * filling res: 400 naming the field for a missing or malformed reference,
 * 404 for one that names nothing the requester may see. */
static int load_ref(struct srv_request *req, struct srv_response *res,
		    const struct srv_parent *parent, const char *key,
		    struct lec_diff_ref *ref)
{
	const char *text = srv_query(req, key);
	char why[96];
	int rc;

	if (text == NULL || text[0] == '\0') {
		srv_respond_field_error(res, key,
					"A version slug or build:<id> is "
					"required.");
		return -1;
	}
	if (!ref_visible(req, parent, text, why, sizeof(why))) {
		srv_respond_detail(res, 404, why);
		return -1;
	}
	rc = lec_diff_ref_resolve(srv_store(req), srv_data_dir(req),
				  parent->project->id, parent->project->slug,
				  text, ref);
	if (rc == LEC_OK)
		return 0;
	if (rc == LEC_EINVALID)
		srv_respond_field_error(res, key, lec_error_last());
	else if (rc == LEC_ENOTFOUND)
		srv_respond_detail(res, 404, lec_error_last());
	else
		srv_respond_engine_error(res, rc);
	return -1;
}

static cJSON *ref_json(const char *text, const struct lec_diff_ref *ref)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "ref", text);
	cJSON_AddNumberToObject(o, "build", (double)ref->build_id);
	return o;
}

static cJSON *lines_json(const struct lec_diff_line *lines, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	char *line;
	size_t i, len;

	for (i = 0; a && i < n; i++) {
		len = strlen(lines[i].text);
		if ((line = malloc(len + 2)) == NULL)
			break;
		line[0] = lines[i].op;
		memcpy(line + 1, lines[i].text, len + 1);
		cJSON_AddItemToArray(a, cJSON_CreateString(line));
		free(line);
	}
	return a;
}

static cJSON *page_json(const struct lec_diff_page *p)
{
	cJSON *o = cJSON_CreateObject(), *sections = cJSON_CreateArray();
	size_t i;

	cJSON_AddStringToObject(o, "path", p->path);
	cJSON_AddStringToObject(o, "status", status_names[p->status]);
	srv_json_str_or_null(o, "title", p->title);
	srv_json_str_or_null(o, "base_title", p->base_title);
	for (i = 0; sections && i < p->sections_len; i++) {
		const struct lec_diff_section *s = &p->sections[i];
		cJSON *so = cJSON_CreateObject();

		cJSON_AddStringToObject(so, "id", s->id);
		cJSON_AddStringToObject(so, "status", status_names[s->status]);
		cJSON_AddStringToObject(so, "title", s->title);
		srv_json_str_or_null(so, "base_title", s->base_title);
		cJSON_AddItemToObject(so, "lines",
				      lines_json(s->lines, s->lines_len));
		cJSON_AddItemToArray(sections, so);
	}
	cJSON_AddItemToObject(o, "sections", sections);
	return o;
}

int srv_v3_diff(struct srv_request *req, struct srv_response *res)
{
	struct srv_parent parent;
	struct lec_diff_ref base = { 0 }, head = { 0 };
	struct lec_diff *d = NULL;
	const char *path = srv_query(req, "path");
	cJSON *o, *pages;
	size_t i;
	int rc;

	if (srv_v3_parent_load(req, res, SRV_PARENT_PROJECT, &parent) < 0)
		return res->status;
	if (load_ref(req, res, &parent, "base", &base) < 0 ||
	    load_ref(req, res, &parent, "head", &head) < 0)
		goto done;
	rc = lec_diff_pages(base.dir, head.dir,
			    path && path[0] ? path : NULL, &d);
	if (rc == LEC_EINVALID) {
		srv_respond_field_error(res, "path", lec_error_last());
		goto done;
	}
	if (rc == LEC_ENOTFOUND) {
		srv_respond_detail(res, 404, lec_error_last());
		goto done;
	}
	if (rc < 0) {
		srv_respond_engine_error(res, rc);
		goto done;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "base",
			      ref_json(srv_query(req, "base"), &base));
	cJSON_AddItemToObject(o, "head",
			      ref_json(srv_query(req, "head"), &head));
	pages = cJSON_AddArrayToObject(o, "pages");
	for (i = 0; pages && i < d->pages_len; i++)
		cJSON_AddItemToArray(pages, page_json(&d->pages[i]));
	cJSON_AddNumberToObject(o, "unchanged", (double)d->unchanged);
	cJSON_AddBoolToObject(o, "truncated", d->truncated);
	srv_respond_json(res, 200, o, SRV_JSON_SORTED);
done:
	lec_diff_free(d);
	lec_diff_ref_dispose(&base);
	lec_diff_ref_dispose(&head);
	srv_v3_parent_dispose(&parent);
	return res->status;
}
