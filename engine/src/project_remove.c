/*
 * Removing a project with everything of it (lec_project_remove, a Lectern
 * extension behind DELETE /api/v3/projects/<slug>/): its rows, which the
 * schema's cascades take with it (versions, builds and their commands,
 * redirects, variables, integrations, webhooks and their deliveries,
 * notifications, subproject links either way, organization and team
 * links, the search index through its versions), then its files under the
 * data directory.
 *
 * The rows go at once, in the caller's request; the files, which for a big
 * project take seconds to delete, are left to lec_project_removal_finish,
 * which the server runs on a thread of its own. Between the two the
 * removal is a row of its own (project_removals, in the transaction that
 * deletes the project): it keeps the slug taken, so no new project of
 * that slug builds into the directories being deleted, and it names the
 * removed builds, whose ids (never given again, schema.c) name their
 * outputs and working directories. A server killed meanwhile leaves the
 * row, and the next one finishes the removal.
 *
 * A build a worker holds writes into the project's files until the worker
 * lets go of it, so the project's unfinished builds are cancelled first
 * and, while a worker still holds one, nothing is removed: LEC_EBUSY, and
 * the caller asks again (a cancelled build's sandbox is stopped within a
 * second or two). The check and the delete are one write transaction, so
 * no worker can take a build of the project in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "files.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "store_internal.h"

/* Held while a process deletes removals' files, so two servers of one data
 * directory never delete the same ones. */
#define REMOVAL_LOCK "removal.lock"
/* The store's times are microseconds. */
#define US_PER_SECOND 1000000

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

static int refuse_held(struct lec_store *st, int64_t id, const char *slug)
{
	int64_t held = 0;
	int error = lec_store__query_int(
		st, "SELECT count(*) FROM builds WHERE project_id = ? AND held = 1",
		&id, 1, "reading the project's builds", &held, NULL);

	if (error == LEC_OK && held > 0)
		error = lec__error(LEC_EBUSY,
				   "project %s has %lld build%s still "
				   "stopping after being cancelled; try again "
				   "in a few seconds",
				   slug, (long long)held, held == 1 ? "" : "s");
	return error;
}

/* The removal's row, with its builds' ids, from the project's rows. */
static int record_removal(struct lec_store *st, int64_t id, const char *slug)
{
	sqlite3_stmt *stmt = NULL;
	static const char *const sql[] = {
		"INSERT INTO project_removals (slug, created) VALUES (?1, ?3)",
		"INSERT INTO project_removal_builds (slug, build_id) "
		"SELECT ?1, id FROM builds WHERE project_id = ?2",
	};
	size_t i;
	int error = LEC_OK;

	for (i = 0; i < sizeof(sql) / sizeof(sql[0]) && error == LEC_OK; i++) {
		if ((error = lec_store__prepare(st, &stmt, sql[i])) < 0)
			break;
		if ((error = lec_store__bind_text(stmt, 1, slug)) == LEC_OK) {
			sqlite3_bind_int64(stmt, 2, id);
			sqlite3_bind_int64(stmt, 3, lec__now_us());
			error = lec_store__step_done(st, stmt,
						     "recording a removal");
		}
		lec_store__finalize(st, stmt);
	}
	return error;
}

/* In one write transaction: nothing held, the removal recorded, then the
 * rows go. */
static int delete_rows(struct lec_store *st, int64_t id, const char *slug)
{
	int error;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = refuse_held(st, id, slug)) == LEC_OK &&
	    (error = record_removal(st, id, slug)) == LEC_OK)
		error = lec_store__exec_ints(st,
					     "DELETE FROM projects WHERE id = ?",
					     &id, 1, "deleting a project", NULL);
	return lec_store__end(st, error);
}

int lec_project_remove(struct lec_store *st, const char *data_dir,
		       int64_t id)
{
	struct lec_project *p = NULL;
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
	if ((error = cancel_unfinished(st, id)) == LEC_OK)
		error = delete_rows(st, id, p->slug);
done:
	lec_project_free(p);
	return error;
}

/* Finishing removals ------------------------------------------------------ */

/* data_dir/<before><name><after>, removed with all it holds when it
 * exists. */
static int remove_path(const char *data_dir, const char *before,
		       const char *name, const char *after)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;
	int error;

	lec__buf_printf(&b, "%s/%s%s%s", data_dir, before, name, after);
	if ((path = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	error = lec__remove_tree(path);
	lec__free(path);
	return error;
}

/* Where the pipeline keeps a project's files by slug. */
static int remove_slug_files(const char *data_dir, const char *slug)
{
	static const struct {
		const char *before, *after;
	} places[] = {
		{ "published/", "" },	     { "repos/", ".git" },
		{ "repos/", ".git.lock" },   { "repos/", ".modules" },
		{ "checkouts/", "" },	     { "python/.stamps/", "" },
		{ "python/", "" },
	};
	size_t i;
	int error = LEC_OK, rc;

	/* Every place is tried, whatever an earlier one said. */
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if ((rc = remove_path(data_dir, places[i].before, slug,
				      places[i].after)) < 0 &&
		    error == LEC_OK)
			error = rc;
	return error;
}

/* Its builds' outputs and working directories, by id. */
static int remove_build_files(struct lec_store *st, const char *data_dir,
			      const char *slug)
{
	sqlite3_stmt *stmt = NULL;
	char id[24];
	int error, rc, failed = LEC_OK;

	if ((error = lec_store__prepare(st, &stmt,
					"SELECT build_id FROM "
					"project_removal_builds WHERE slug = "
					"?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, slug)) < 0)
		goto done;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		snprintf(id, sizeof(id), "%lld",
			 (long long)sqlite3_column_int64(stmt, 0));
		if ((error = remove_path(data_dir, "outputs/", id, "")) < 0 ||
		    (error = remove_path(data_dir, "builds/", id, "")) < 0)
			failed = failed < 0 ? failed : error;
	}
	error = rc == SQLITE_DONE ? failed
				  : lec_store__sqlerr(st, rc, "reading a "
							      "removal");
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* The slug of the pending removal due first, into *slug (lec__free);
 * LEC_ENOTFOUND when none is due. */
static int next_due(struct lec_store *st, char **slug)
{
	const int64_t now = lec__now_us();
	int found = 0;
	int error = lec_store__query_text(st,
					  "SELECT slug FROM project_removals "
					  "WHERE retry_at <= ? ORDER BY "
					  "retry_at, created LIMIT 1",
					  &now, 1, "reading the removals",
					  slug, &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no removal is due");
	return error;
}

/* The removal of slug done: its row goes, and the slug is free. Failed:
 * tried again LEC_PROJECT_REMOVAL_RETRY_S later. */
static int record_outcome(struct lec_store *st, const char *slug, int failed)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     failed ? "UPDATE project_removals SET retry_at = ?2 "
			      "WHERE slug = ?1"
			    : "DELETE FROM project_removals WHERE slug = ?1")) <
	    0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, slug)) == LEC_OK) {
		if (failed)
			sqlite3_bind_int64(stmt, 2,
					   lec__now_us() +
						   (int64_t)LEC_PROJECT_REMOVAL_RETRY_S *
							   US_PER_SECOND);
		error = lec_store__step_done(st, stmt, "recording a removal");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* The removal lock of data_dir, taken: *fd to close; LEC_EBUSY when
 * another process holds it. */
static int lock_removals(const char *data_dir, int *fd)
{
	char *path = lec__path_join(data_dir, REMOVAL_LOCK);

	LEC__CHECK_ALLOC(path);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	lec__free(path);
	if (*fd < 0)
		return lec__error(LEC_EIO, "%s: cannot create the removal "
					   "lock: %s",
				  data_dir, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return LEC_OK;
	close(*fd);
	*fd = -1;
	return lec__error(LEC_EBUSY, "another process removes the projects "
				     "of %s",
			  data_dir);
}

int lec_project_removal_finish(struct lec_store *st, const char *data_dir)
{
	char *slug = NULL;
	int error, fd = -1, files;

	lec_error_clear();
	if (st == NULL || data_dir == NULL)
		return lec__error(LEC_EINVALID, "no store or data directory");
	/* Nothing due is the common case: no lock for it. */
	if ((error = next_due(st, &slug)) < 0)
		return error;
	lec__free(slug);
	slug = NULL;
	if ((error = lock_removals(data_dir, &fd)) < 0 ||
	    (error = next_due(st, &slug)) < 0)
		goto done;
	files = remove_slug_files(data_dir, slug);
	if ((error = remove_build_files(st, data_dir, slug)) == LEC_OK)
		error = files;
	if ((files = record_outcome(st, slug, error < 0)) < 0 &&
	    error == LEC_OK)
		error = files;
done:
	if (fd >= 0)
		close(fd);
	lec__free(slug);
	return error;
}
