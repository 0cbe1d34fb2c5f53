/*
 * Pull-request versions: the row kept beside each external version (its
 * forge, the ref its builds fetch, its branches, whether it is open), and
 * what a forge's pull or merge request events do to the version and its
 * builds, as the service's hooks do.
 *
 * A version is found by its name (the request's number) among the
 * project's external versions, never by slug: a branch may already hold
 * the slug "7", and the version made for request 7 is then "7_a", as the
 * service's would be.
 */
#include <ctype.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "lectern/build.h"
#include "lectern/external.h"
#include "lectern/project.h"
#include "lectern/repo.h"
#include "lectern/search.h"
#include "store_internal.h"

static const char *const forge_codes[] = { "github", "gitlab", "local" };
static const char *const state_codes[] = { "open", "closed" };

/* Where each forge keeps a request's head: <prefix><N><suffix>; a
 * branch preview's is the branch. */
static const struct {
	const char *prefix, *suffix;
} forge_refs[] = {
	{ "refs/pull/", "/head" },
	{ "refs/merge-requests/", "/head" },
	{ "refs/heads/", "" },
};

const char *lec_external_forge_code(enum lec_external_forge forge)
{
	return (size_t)forge < LEC__COUNT(forge_codes) ? forge_codes[forge]
						       : "github";
}

/* Rows ---------------------------------------------------------------------- */

static const struct lec__column external_columns[] = {
	LEC__INT64(lec_external, version_id, "version_id"),
	LEC__CODE(lec_external, forge, "forge", forge_codes,
		  LEC_EXTERNAL_GITHUB),
	LEC__TEXT(lec_external, ref, "ref"),
	LEC__TEXT_OPT(lec_external, source_branch, "source_branch"),
	LEC__TEXT_OPT(lec_external, base_branch, "base_branch"),
	LEC__TEXT_OPT(lec_external, forge_repo, "forge_repo"),
	LEC__CODE(lec_external, state, "state", state_codes,
		  LEC_EXTERNAL_CLOSED),
	LEC__TIME(lec_external, closed, "closed"),
};
static const struct lec__row external_row =
	LEC__ROW(lec_external, external_columns, NULL, NULL);
static const struct lec__table externals = {
	.row = &external_row, .from = "external_versions",
	.id = "version_id = ?", .order = "version_id",
	.not_found = "Not a pull request's version.",
};

void lec_external_free(struct lec_external *external)
{
	lec__row_free(&external_row, external);
}

int lec_external_get(struct lec_store *st, int64_t version_id,
		     struct lec_external **out)
{
	return lec__table_get(st, &externals, NULL, version_id, (void **)out);
}

/* Checks ---------------------------------------------------------------------- */

static int check_request(const struct lec_external_request *rq)
{
	size_t i, n = rq->number ? strlen(rq->number) : 0;

	for (i = 0; i < n && isdigit((unsigned char)rq->number[i]); i++)
		;
	if (n == 0 || i < n || n > LEC_EXTERNAL_NUMBER_MAX)
		return lec__error_field(LEC_EINVALID, "number",
					"A request's number is digits.");
	if (!lec_repo_is_commit_id(rq->commit))
		return lec__error_field(LEC_EINVALID, "commit",
					"A request's head is a commit id.");
	if (rq->forge == LEC_EXTERNAL_LOCAL ||
	    (size_t)rq->forge >= LEC__COUNT(forge_refs))
		return lec__error_field(LEC_EINVALID, "forge",
					"Not a forge with pull requests.");
	return LEC_OK;
}

/* The project's external version named number: its id, or 0. */
static int find_version(struct lec_store *st, int64_t project_id,
			const char *number, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int rc, error;

	*id = 0;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT id FROM versions WHERE "
					"project_id = ? AND type = 'external' "
					"AND verbose_name = ? ORDER BY id "
					"LIMIT 1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	if ((error = lec_store__bind_text(stmt, 2, number)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			*id = sqlite3_column_int64(stmt, 0);
		else if (rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc,
						  "finding a request's version");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Opening -------------------------------------------------------------------- */

/* The version named name made, or brought to identifier (the new head,
 * or the branch it follows), open and active. */
static int version_for(struct lec_store *st, int64_t project_id,
		       const char *name, const char *identifier, int64_t *id)
{
	struct lec_version_patch patch = { 0 };
	struct lec_version *made = NULL;
	int error;

	if ((error = find_version(st, project_id, name, id)) < 0)
		return error;
	if (*id == 0) {
		error = lec_version_create(st, project_id, name, identifier,
					   LEC_VERSION_EXTERNAL, 1, &made);
		if (error == LEC_OK)
			*id = made->id;
		lec_version_free(made);
		return error;
	}
	patch.set = LEC_VERSION_SET_IDENTIFIER | LEC_VERSION_SET_ACTIVE;
	patch.identifier = identifier;
	patch.active = 1;
	return lec_version_update(st, *id, &patch);
}

static int record(struct lec_store *st, int64_t version_id,
		  const struct lec_external_request *rq)
{
	struct lec__buf ref = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	char *name;
	int error;

	lec__buf_printf(&ref, "%s%s%s", forge_refs[rq->forge].prefix,
			rq->number, forge_refs[rq->forge].suffix);
	if ((name = lec__buf_take(&ref)) == NULL)
		return lec__error_oom();
	error = lec_store__prepare(
		st, &stmt,
		"INSERT INTO external_versions (version_id, forge, ref, "
		"source_branch, base_branch, forge_repo, state, closed) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'open', NULL) "
		"ON CONFLICT (version_id) DO UPDATE SET forge = ?2, ref = ?3, "
		"source_branch = ?4, base_branch = ?5, "
		"forge_repo = coalesce(?6, forge_repo), state = 'open', "
		"closed = NULL");
	if (error == LEC_OK) {
		sqlite3_bind_int64(stmt, 1, version_id);
		if ((error = lec_store__bind_text(
			     stmt, 2, lec_external_forge_code(rq->forge))) ==
			    LEC_OK &&
		    (error = lec_store__bind_text(stmt, 3, name)) == LEC_OK &&
		    (error = lec_store__bind_text(stmt, 4, rq->source_branch)) ==
			    LEC_OK &&
		    (error = lec_store__bind_text(stmt, 5, rq->base_branch)) ==
			    LEC_OK &&
		    (error = lec_store__bind_text(stmt, 6, rq->forge_repo)) ==
			    LEC_OK)
			error = lec_store__step_done(st, stmt,
						     "recording a request");
		lec_store__finalize(st, stmt);
	}
	lec__free(name);
	return error;
}

/* Whether the version's newest unfinished build is queued for commit
 * (NULL: for whatever its branch's head is). */
static int queued_for(struct lec_store *st, int64_t version_id,
		      const char *commit, int *queued)
{
	sqlite3_stmt *stmt = NULL;
	int rc, error;

	*queued = 0;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT state, commit_sha FROM builds "
					"WHERE version_id = ? AND state NOT IN "
					"('finished', 'cancelled') ORDER BY "
					"id DESC LIMIT 1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, version_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(stmt, 0);
		const char *sha = (const char *)sqlite3_column_text(stmt, 1);

		*queued = state && strcmp(state, "triggered") == 0 &&
			  (commit == NULL || (sha && strcmp(sha, commit) == 0));
	} else if (rc != SQLITE_DONE) {
		error = lec_store__sqlerr(st, rc, "reading a version's builds");
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int build_head(struct lec_store *st, int64_t project_id,
		      int64_t version_id, const char *commit, const char *how,
		      int *built)
{
	struct lec_build *b = NULL;
	int queued = 0, error;

	*built = 0;
	if ((error = queued_for(st, version_id, commit, &queued)) < 0 ||
	    queued)
		return error;
	error = lec_build_trigger(st, project_id, version_id, commit, &b,
				  NULL);
	if (error == LEC_OK && how)
		error = lec_build_set_triggered_by(st, b->id, how);
	*built = error == LEC_OK;
	lec_build_free(b);
	return error;
}

int lec_external_open(struct lec_store *st, int64_t project_id,
		      const struct lec_external_request *rq, const char *how,
		      struct lec_version **out, int *built)
{
	int64_t id = 0;
	int queued = 0, error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (built)
		*built = 0;
	if ((error = check_request(rq)) < 0 ||
	    (error = version_for(st, project_id, rq->number, rq->commit,
				 &id)) < 0 ||
	    (error = record(st, id, rq)) < 0 ||
	    (error = build_head(st, project_id, id, rq->commit, how,
				&queued)) < 0)
		return error;
	if (built)
		*built = queued;
	return out ? lec_version_get_by_id(st, id, out) : LEC_OK;
}

/* Branch previews -------------------------------------------------------------- */

/* Whether branch is one of the project's branches, and not an active
 * version: LEC_OK, or the refusal. */
static int check_branch(struct lec_store *st, int64_t project_id,
			const char *branch)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	int error, found = 0, active = 0;
	size_t i;

	filter.external = LEC_FILTER_FALSE;
	filter.type = "branch";
	if ((error = lec_version_list(st, project_id, &filter, NULL, &list)) <
	    0)
		return error;
	for (i = 0; i < list.len; i++)
		if (list.items[i].identifier && !list.items[i].machine &&
		    strcmp(list.items[i].identifier, branch) == 0) {
			found = 1;
			active |= list.items[i].active;
		}
	lec_version_list_dispose(&list);
	if (!found)
		return lec__error_field(LEC_ENOTFOUND, "branch",
					"The repository has no branch "
					"\"%s\".",
					branch);
	if (active)
		return lec__error_field(LEC_EINVALID, "branch",
					"Branch \"%s\" is an active version: "
					"build that version instead.",
					branch);
	return LEC_OK;
}

int lec_external_open_branch(struct lec_store *st, int64_t project_id,
			     const char *branch, const char *how,
			     struct lec_version **out, int *built)
{
	struct lec_external_request rq = { LEC_EXTERNAL_LOCAL, branch, NULL,
					   branch, NULL, NULL };
	struct lec__buf b = LEC__BUF_INIT;
	int64_t id = 0;
	int queued = 0, error;
	char *name;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (built)
		*built = 0;
	if (branch == NULL || *branch == '\0' ||
	    strlen(branch) + strlen(LEC_EXTERNAL_BRANCH_PREFIX) >
		    LEC_VERSION_NAME_MAX)
		return lec__error_field(LEC_EINVALID, "branch",
					"A branch's name is required.");
	if ((error = check_branch(st, project_id, branch)) < 0)
		return error;
	lec__buf_printf(&b, LEC_EXTERNAL_BRANCH_PREFIX "%s", branch);
	if ((name = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	if ((error = version_for(st, project_id, name, branch, &id)) ==
		    LEC_OK &&
	    (error = record(st, id, &rq)) == LEC_OK)
		error = build_head(st, project_id, id, NULL, how, &queued);
	lec__free(name);
	if (error < 0)
		return error;
	if (built)
		*built = queued;
	return out ? lec_version_get_by_id(st, id, out) : LEC_OK;
}

/* Closing -------------------------------------------------------------------- */

/* Cancel what the closed version still has queued or running: one
 * unfinished build at most, as each trigger cancels the one before, but
 * every one there is is taken in turn. */
static int cancel_builds(struct lec_store *st, int64_t version_id)
{
	int64_t id = 0;
	int found = 1, error = LEC_OK;

	while (error == LEC_OK && found) {
		error = lec_store__query_int(
			st,
			"SELECT id FROM builds WHERE version_id = ?1 AND state "
			"NOT IN ('finished', 'cancelled') ORDER BY id LIMIT 1",
			&version_id, 1, "reading a version's builds", &id,
			&found);
		if (error == LEC_OK && found)
			error = lec_build_cancel(st, id);
	}
	return error;
}

int lec_external_close(struct lec_store *st, int64_t project_id,
		       const char *number, char **name_out)
{
	struct lec_version_patch patch = { 0 };
	int64_t id = 0, v[2];
	int error;

	lec_error_clear();
	if (name_out)
		*name_out = NULL;
	if ((error = find_version(st, project_id, number, &id)) < 0)
		return error;
	if (id == 0)
		return lec__error(LEC_ENOTFOUND,
				  "No Version matches the given query.");
	/* Inactive, its files kept (built unchanged) for the grace period. */
	patch.set = LEC_VERSION_SET_ACTIVE;
	patch.active = 0;
	v[0] = id;
	v[1] = lec__now_us();
	if ((error = lec_version_update(st, id, &patch)) < 0 ||
	    (error = lec_store__exec_ints(
		     st,
		     "UPDATE external_versions SET state = 'closed', "
		     "closed = ?2 WHERE version_id = ?1",
		     v, 2, "closing a request", NULL)) < 0 ||
	    (error = cancel_builds(st, id)) < 0)
		return error;
	if (name_out && (*name_out = lec__strdup(number)) == NULL)
		return lec__error_oom();
	return LEC_OK;
}

/* Sweeping ------------------------------------------------------------------- */

/* What a published version's link points at: "../../outputs/<build>". */
#define OUTPUTS "../../outputs/"

/* The version's published link and the build output it points at (nothing
 * else it might point at), and its kept tree. */
static void remove_published(const char *data_dir, const char *project,
			     const char *version)
{
	struct lec__buf b = LEC__BUF_INIT;
	char target[64], *link, *output;
	ssize_t n;

	lec__buf_printf(&b, "%s/published/%s/%s", data_dir, project, version);
	if ((link = lec__buf_take(&b)) == NULL)
		return;
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	unlink(link);
	if (strncmp(target, OUTPUTS, strlen(OUTPUTS)) == 0 &&
	    target[strlen(OUTPUTS)] &&
	    strchr(target + strlen(OUTPUTS), '/') == NULL) {
		lec__buf_printf(&b, "%s/outputs/%s", data_dir,
				target + strlen(OUTPUTS));
		if ((output = lec__buf_take(&b)) != NULL)
			lec__remove_tree(output);
		lec__free(output);
	}
	lec__buf_printf(&b, "%s/checkouts/%s/%s", data_dir, project, version);
	if ((output = lec__buf_take(&b)) != NULL)
		lec__remove_tree(output);
	lec__free(output);
	lec__free(link);
}

int lec_external_sweep(struct lec_store *st, const char *data_dir,
		       int64_t before_us, size_t *removed)
{
	int64_t ids[LEC_EXTERNAL_SWEEP_MAX];
	struct lec_version *v = NULL;
	struct lec_project *p = NULL;
	sqlite3_stmt *stmt = NULL;
	size_t n = 0, i;
	int rc, error;

	lec_error_clear();
	if (removed)
		*removed = 0;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT version_id FROM "
					"external_versions WHERE state = "
					"'closed' AND closed <= ? ORDER BY "
					"closed LIMIT ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, before_us);
	sqlite3_bind_int(stmt, 2, LEC_EXTERNAL_SWEEP_MAX);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		ids[n++] = sqlite3_column_int64(stmt, 0);
	if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "reading closed requests");
	lec_store__finalize(st, stmt);
	for (i = 0; error == LEC_OK && i < n; i++) {
		if ((error = lec_version_get_by_id(st, ids[i], &v)) == LEC_OK &&
		    (error = lec_project_get_by_id(st, v->project_id, &p)) ==
			    LEC_OK) {
			remove_published(data_dir, p->slug, v->slug);
			if ((error = lec_search_index_remove(st, v->id)) ==
			    LEC_OK)
				error = lec_version_delete(st, v->id);
		}
		if (error == LEC_OK && removed)
			(*removed)++;
		lec_version_free(v);
		lec_project_free(p);
		v = NULL;
		p = NULL;
	}
	return error;
}
