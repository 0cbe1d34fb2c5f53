/*
 * Removing a project with everything of it (lec_project_remove, a Lectern
 * extension behind DELETE /api/v3/projects/<slug>/): its rows, which the
 * schema's cascades take with it (versions, builds and their commands,
 * redirects, variables, integrations, webhooks and their deliveries,
 * notifications, subproject links either way, organization and team
 * links, the search index through its versions), then its files under the
 * data directory.
 *
 * A build a worker holds writes into the project's files until the worker
 * lets go of it, so the project's unfinished builds are cancelled first
 * and, while a worker still holds one, nothing is removed: LEC_EBUSY, and
 * the caller asks again (a cancelled build's sandbox is stopped within a
 * second or two). The check and the delete are one write transaction, so
 * no worker can take a build of the project in between.
 */
#include <stdio.h>
#include <string.h>

#include "files.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "store_internal.h"

/* Cancel the project's unfinished builds (triggered ones are never
 * started; a worker stops a running one when it sees the state). */
static int cancel_unfinished(struct lec_store *st, int64_t project_id)
{
	struct lec_build_filter unfinished = { .running = LEC_FILTER_TRUE };
	struct lec_build_list list = { 0 };
	size_t i;
	int error;

	if ((error = lec_build_list(st, project_id, 0, &unfinished, NULL,
				    &list)) < 0)
		return error;
	for (i = 0; i < list.len && error == LEC_OK; i++) {
		error = lec_build_cancel(st, list.items[i].id);
		/* It ended meanwhile: nothing to cancel. */
		if (error == LEC_EINVALID)
			error = LEC_OK;
	}
	lec_build_list_dispose(&list);
	return error;
}

/* The ids of the project's builds (their outputs are outputs/<id>), in a
 * buffer of n int64_t the caller frees. */
static int build_ids(struct lec_store *st, int64_t project_id,
		     int64_t **out, size_t *n)
{
	struct lec_build_list list = { 0 };
	size_t i;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = lec_build_list(st, project_id, 0, NULL, NULL, &list)) < 0)
		return error;
	if (list.len > 0 &&
	    (*out = lec__malloc(list.len * sizeof(**out))) == NULL)
		error = lec__error_oom();
	for (i = 0; *out && i < list.len; i++)
		(*out)[i] = list.items[i].id;
	*n = *out ? list.len : 0;
	lec_build_list_dispose(&list);
	return error;
}

/* In one write transaction: nothing held, then the rows go. */
static int delete_rows(struct lec_store *st, int64_t id, const char *slug)
{
	int64_t held = 0;
	int error;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec_store__query_int(
		     st,
		     "SELECT count(*) FROM builds WHERE project_id = ? AND "
		     "held = 1",
		     &id, 1, "reading the project's builds", &held, NULL)) ==
		    LEC_OK &&
	    held > 0)
		error = lec__error(LEC_EBUSY,
				   "project %s has %lld build%s still "
				   "stopping after being cancelled; try again "
				   "in a few seconds",
				   slug, (long long)held, held == 1 ? "" : "s");
	if (error == LEC_OK)
		error = lec_store__exec_ints(st,
					     "DELETE FROM projects WHERE id = ?",
					     &id, 1, "deleting a project", NULL);
	if (error == LEC_OK)
		return lec_store__commit(st);
	lec_store__rollback(st);
	return error;
}

/* data_dir/<before><name><after>, removed with all it holds when it
 * exists. */
static void remove_path(const char *data_dir, const char *before,
			const char *name, const char *after)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;

	lec__buf_printf(&b, "%s/%s%s%s", data_dir, before, name, after);
	if ((path = lec__buf_take(&b)) == NULL)
		return;
	lec__remove_tree(path);
	lec__free(path);
}

/* The project's files: where the pipeline keeps them by slug, and its
 * builds' outputs and working directories by id. Only after the rows are
 * gone, so nothing builds into them again; best effort (outputs left
 * behind are removed when the pipeline next starts). */
static void remove_files(const char *data_dir, const char *slug,
			 const int64_t *builds, size_t nbuilds)
{
	static const struct {
		const char *before, *after;
	} places[] = {
		{ "published/", "" },	     { "repos/", ".git" },
		{ "repos/", ".git.lock" },   { "repos/", ".modules" },
		{ "checkouts/", "" },	     { "python/.stamps/", "" },
		{ "python/", "" },
	};
	char id[24];
	size_t i;

	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		remove_path(data_dir, places[i].before, slug, places[i].after);
	for (i = 0; i < nbuilds; i++) {
		snprintf(id, sizeof(id), "%lld", (long long)builds[i]);
		remove_path(data_dir, "outputs/", id, "");
		remove_path(data_dir, "builds/", id, "");
	}
}

int lec_project_remove(struct lec_store *st, const char *data_dir,
		       int64_t id)
{
	struct lec_project *p = NULL;
	int64_t *builds = NULL;
	size_t nbuilds = 0;
	int error;

	lec_error_clear();
	if (st == NULL || data_dir == NULL)
		return lec__error(LEC_EINVALID, "no store or data directory");
	if ((error = lec_project_get_by_id(st, id, &p)) < 0)
		return error;
	/* A slug is a path component only when it is a plain name. */
	if (p->slug[0] == '\0' || p->slug[0] == '.' || strchr(p->slug, '/')) {
		error = lec__error(LEC_EINVALID, "unexpected project slug '%s'",
				   p->slug);
		goto done;
	}
	if ((error = cancel_unfinished(st, id)) < 0 ||
	    (error = build_ids(st, id, &builds, &nbuilds)) < 0 ||
	    (error = delete_rows(st, id, p->slug)) < 0)
		goto done;
	remove_files(data_dir, p->slug, builds, nbuilds);
done:
	lec__free(builds);
	lec_project_free(p);
	return error;
}
