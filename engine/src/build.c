/*
 * Builds and their commands: the queue the build pipeline works from and
 * the record the API shows.
 *
 * Every state change reads the build, checks the move in C and writes the
 * result back inside one write transaction, so a worker finishing a build
 * and a user cancelling it cannot interleave. Claiming a build is a single
 * UPDATE inside BEGIN IMMEDIATE, which makes it exclusive across processes
 * sharing the database. It stays one file past the engine's ~1,200 lines
 * on purpose: states, triggering, the queue and a build's commands are
 * moves of one row under that one discipline, and apart they would each
 * need the others' statements.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lectern/build.h"
#include "store_internal.h"

/* The service's list order; id breaks ties so that pages are stable. */
#define BUILD_ORDER "created DESC, id DESC"

#define FINAL_STATES "('finished', 'cancelled')"

#define US_PER_SECOND 1000000

/* The failure column's codes, in enum lec_build_failure's order. */
static const char *const failure_codes[] = {
	NULL,	      "generic",	 "config",
	"no-index",   "output-not-dir", "output-empty",
	"output-multiple", "skipped",
};
#define FAILURE_COUNT (sizeof(failure_codes) / sizeof(failure_codes[0]))

static const struct {
	const char *code;
	const char *name;
} states[] = {
	{ "triggered", "Triggered" },	{ "cloning", "Cloning" },
	{ "installing", "Installing" }, { "building", "Building" },
	{ "uploading", "Uploading" },	{ "finished", "Finished" },
	{ "cancelled", "Cancelled" },
};
#define STATE_COUNT (sizeof(states) / sizeof(states[0]))

/* States ------------------------------------------------------------------ */

const char *lec_build_state_code(enum lec_build_state state)
{
	return (unsigned)state < STATE_COUNT ? states[state].code : NULL;
}

const char *lec_build_state_name(enum lec_build_state state)
{
	return (unsigned)state < STATE_COUNT ? states[state].name : NULL;
}

static int state_lookup(const char *code, enum lec_build_state *out)
{
	size_t i;

	for (i = 0; code && i < STATE_COUNT; i++) {
		if (strcmp(code, states[i].code) == 0) {
			*out = (enum lec_build_state)i;
			return 1;
		}
	}
	return 0;
}

int lec_build_state_parse(const char *code, enum lec_build_state *out)
{
	lec_error_clear();
	if (state_lookup(code, out))
		return LEC_OK;
	return lec__error(LEC_EINVALID, "unknown build state '%s'",
			  code ? code : "");
}

int lec_build_state_final(enum lec_build_state state)
{
	return state == LEC_BUILD_STATE_FINISHED ||
	       state == LEC_BUILD_STATE_CANCELLED;
}

/* Rows -------------------------------------------------------------------- */

/* A state no code names is damage: nothing could move the build on. */
static int read_state(sqlite3_stmt *stmt, int col, void *item)
{
	struct lec_build *b = item;

	if (!state_lookup((const char *)sqlite3_column_text(stmt, col),
			  &b->state))
		return lec__error(LEC_ECORRUPT,
				  "build %lld has an unknown state",
				  (long long)b->id);
	return LEC_OK;
}

/* A build's failure: SQL NULL (none) is failure_codes' NULL entry, a code
 * no entry names (a later Lectern's) reads as generic. */
static const struct lec__column build_columns[] = {
	LEC__INT64(lec_build, id, "id"),
	LEC__INT64(lec_build, project_id, "project_id"),
	LEC__INT64(lec_build, version_id, "version_id"),
	LEC__TEXT(lec_build, type, "type"),
	LEC__READ("state", read_state),
	LEC__INT(lec_build, success, "success"),
	LEC__TEXT_OPT(lec_build, error, "error"),
	LEC__TEXT_OPT(lec_build, commit, "commit_sha"),
	LEC__TIME(lec_build, created, "created"),
	LEC__TIME(lec_build, started, "started"),
	LEC__TIME(lec_build, finished, "finished"),
	LEC__INT64_OR(lec_build, duration, "duration", -1),
	LEC__TEXT_OPT(lec_build, config, "config"),
	LEC__TEXT_OPT(lec_build, progress, "progress"),
	LEC__TEXT_OPT(lec_build, triggered_by, "triggered_by"),
	LEC__CODE(lec_build, failure, "failure", failure_codes,
		  LEC_BUILD_FAILURE_GENERIC),
	LEC__INT(lec_build, fresh, "fresh"),
	LEC__TEXT_OPT(lec_build, cache, "cache"),
	LEC__TEXT_OPT(lec_build, failure_message, "failure_message"),
};
static const struct lec__row build_row =
	LEC__ROW(lec_build, build_columns, NULL, NULL);
const struct lec__table lec__builds = {
	.row = &build_row, .from = "builds",
	.order = BUILD_ORDER,
};

LEC__DEFINE_FREES(lec_build, &build_row)

/* The first row of q (which this disposes) in `order`. */
static int build_first(struct lec_store *st, struct lec__query *q,
		       const char *order, int64_t id, struct lec_build **out)
{
	struct lec_build *items = NULL;
	struct lec_page one = { 1, 0 };
	size_t len = 0;
	int error;

	*out = NULL;
	error = lec__query_list(st, q, order, &one, (void **)&items, &len,
				NULL);
	lec__query_dispose(q);
	if (error < 0)
		return error;
	if (len == 0) {
		lec__free(items);
		return id ? lec__error(LEC_ENOTFOUND, "no build with id %lld",
				       (long long)id)
			  : lec__error(LEC_ENOTFOUND, "no build is waiting");
	}
	*out = items;
	return LEC_OK;
}

static int build_fetch(struct lec_store *st, int64_t id,
		       struct lec_build **out)
{
	struct lec__query q;

	lec__table_query(&q, &lec__builds);
	lec__query_where_int(&q, "id = ?", id);
	return build_first(st, &q, NULL, id, out);
}

int lec_build_get(struct lec_store *st, int64_t id, struct lec_build **out)
{
	lec_error_clear();
	return build_fetch(st, id, out);
}

int lec_build_get_in_project(struct lec_store *st, int64_t project_id,
			     int64_t id, struct lec_build **out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__builds);
	lec__query_where_int(&q, "id = ?", id);
	lec__query_where_int(&q, "project_id = ?", project_id);
	return build_first(st, &q, NULL, id, out);
}

int lec_build_list(struct lec_store *st, int64_t project_id,
		   int64_t version_id, const struct lec_build_filter *filter,
		   const struct lec_page *page, struct lec_build_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__builds);
	if (project_id)
		lec__query_where_int(&q, "project_id = ?", project_id);
	else /* the first condition: its ?1 is the builder's first bind */
		lec__query_where_int(
			&q,
			"(EXISTS (SELECT 1 FROM project_admins a WHERE "
			"a.project_id = builds.project_id AND a.user_id = ?1) OR "
			"EXISTS (SELECT 1 FROM users u WHERE u.id = ?1 AND "
			"u.is_superuser = 1))",
			filter ? filter->admin_user_id : 0);
	if (version_id)
		lec__query_where_int(&q, "version_id = ?", version_id);
	if (filter && filter->commit && *filter->commit)
		lec__query_where_text(&q, "commit_sha = ?", filter->commit);
	if (filter && filter->running == LEC_FILTER_TRUE)
		lec__query_where(&q, "state NOT IN " FINAL_STATES);
	else if (filter && filter->running == LEC_FILTER_FALSE)
		lec__query_where(&q, "state IN " FINAL_STATES);
	return lec__table_rows(st, &lec__builds, &q, page, (void **)&out->items,
			       &out->len, &out->total);
}

/* Writing ----------------------------------------------------------------- */

static int check_commit(const char *commit)
{
	if (commit && strlen(commit) > LEC_BUILD_COMMIT_MAX)
		return lec__error_too_long("commit", LEC_BUILD_COMMIT_MAX);
	return LEC_OK;
}

static int bind_time(sqlite3_stmt *stmt, int idx, int64_t value,
		     int64_t null_value)
{
	return value == null_value ? sqlite3_bind_null(stmt, idx)
				   : sqlite3_bind_int64(stmt, idx, value);
}

/* Write a build's state, success, error and times back. */
static int build_write(struct lec_store *st, const struct lec_build *b)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE builds SET state = ?, success = ?, error = ?, "
		     "started = ?, finished = ?, duration = ?, failure = ?, "
		     "failure_message = ? WHERE id = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1,
					  lec_build_state_code(b->state))) ==
		    LEC_OK &&
	    (error = lec_store__bind_text(stmt, 3, b->error)) == LEC_OK &&
	    (error = lec_store__bind_text(
		     stmt, 7,
		     (unsigned)b->failure < FAILURE_COUNT
			     ? failure_codes[b->failure]
			     : failure_codes[LEC_BUILD_FAILURE_GENERIC])) ==
		    LEC_OK &&
	    (error = lec_store__bind_text(stmt, 8, b->failure_message)) ==
		    LEC_OK) {
		sqlite3_bind_int(stmt, 2, b->success ? 1 : 0);
		bind_time(stmt, 4, b->started, 0);
		bind_time(stmt, 5, b->finished, 0);
		bind_time(stmt, 6, b->duration, -1);
		sqlite3_bind_int64(stmt, 9, b->id);
		error = lec_store__step_done(st, stmt, "updating a build");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* A successful build's version has been built. */
static int mark_version_built(struct lec_store *st, const struct lec_build *b)
{
	const int64_t v[2] = { lec__now_us(), b->version_id };

	if (b->state != LEC_BUILD_STATE_FINISHED || !b->success ||
	    !b->version_id)
		return LEC_OK;
	return lec_store__exec_ints(st,
				    "UPDATE versions SET built = 1, "
				    "modified = ? WHERE id = ?",
				    v, 2, "marking a version built", NULL);
}

/* Record the end of a build at now. */
static void mark_end(struct lec_build *b, int64_t now)
{
	int64_t run = b->started ? (now - b->started) / US_PER_SECOND : 0;

	b->finished = now;
	b->duration = run > 0 ? run : 0;
}

static int set_error(struct lec_build *b, const char *message)
{
	char *copy = message ? lec__strdup(message) : NULL;

	if (message && copy == NULL)
		return lec__error_oom();
	lec__free(b->error);
	b->error = copy;
	return LEC_OK;
}

/* Apply a move to b in memory, or explain why it is not allowed. */
static int move_state(struct lec_build *b, enum lec_build_state to,
		      int64_t now)
{
	if ((unsigned)to >= STATE_COUNT)
		return lec__error(LEC_EINVALID, "unknown build state %d",
				  (int)to);
	if (lec_build_state_final(b->state) ||
	    (to != LEC_BUILD_STATE_CANCELLED && to <= b->state))
		return lec__error(LEC_EINVALID,
				  "cannot move build %lld from %s to %s",
				  (long long)b->id,
				  lec_build_state_code(b->state),
				  lec_build_state_code(to));
	if (b->state == LEC_BUILD_STATE_TRIGGERED &&
	    !lec_build_state_final(to))
		b->started = now;
	b->state = to;
	if (lec_build_state_final(to))
		mark_end(b, now);
	if (to != LEC_BUILD_STATE_CANCELLED)
		return LEC_OK;
	b->success = 0;
	return set_error(b, LEC_BUILD_ERROR_CANCELLED);
}

/* What a change does to a build read inside the transaction. */
struct build_change {
	int finish; /* 0: move to `to`; 1: lec_build_finish */
	enum lec_build_state to;
	int success;
	enum lec_build_failure why; /* when not success */
	const char *error;
	const char *message; /* the service's message, when not success */
};

/* The finish rules (see lec_build_finish) applied to b in memory. */
static int finish_state(struct lec_build *b, const struct build_change *c,
			int64_t now)
{
	int success = c->success;
	enum lec_build_failure why = c->why;
	char *message = NULL;

	if (b->state == LEC_BUILD_STATE_FINISHED)
		return lec__error(LEC_EINVALID,
				  "build %lld has already finished",
				  (long long)b->id);
	mark_end(b, now);
	if (b->state == LEC_BUILD_STATE_CANCELLED)
		return LEC_OK;
	/* Skipped (exit code 183): cancelled, as the service records it. */
	b->state = !success && why == LEC_BUILD_FAILURE_SKIPPED
			   ? LEC_BUILD_STATE_CANCELLED
			   : LEC_BUILD_STATE_FINISHED;
	b->success = success ? 1 : 0;
	b->failure = success ? LEC_BUILD_FAILURE_NONE : why;
	if (!success && c->message &&
	    (message = lec__strdup(c->message)) == NULL)
		return lec__error_oom();
	lec__free(b->failure_message);
	b->failure_message = message;
	return set_error(b, success ? NULL : c->error);
}

/* Apply c to build id in one transaction, clearing the last error first as
 * every public call does. */
static int build_change(struct lec_store *st, int64_t id,
			const struct build_change *c)
{
	struct lec_build *b = NULL;
	int64_t now = lec__now_us();
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = build_fetch(st, id, &b)) < 0)
		goto done;
	error = c->finish ? finish_state(b, c, now) : move_state(b, c->to, now);
	if (error == LEC_OK && (error = build_write(st, b)) == LEC_OK)
		error = mark_version_built(st, b);
	/* The worker's finish is when it lets go of the build (lec_build_claim
	 * gives the project to no other worker until then). */
	if (error == LEC_OK && c->finish)
		error = lec_store__exec_ints(st,
					     "UPDATE builds SET held = 0 "
					     "WHERE id = ?1",
					     &id, 1, "releasing a build", NULL);
done:
	lec_build_free(b);
	return lec_store__end(st, error);
}

int lec_build_set_state(struct lec_store *st, int64_t id,
			enum lec_build_state state)
{
	struct build_change c = { .to = state };

	return build_change(st, id, &c);
}

int lec_build_finish(struct lec_store *st, int64_t id, int success,
		     const char *error)
{
	struct build_change c = { .finish = 1,
				  .success = success,
				  .why = LEC_BUILD_FAILURE_GENERIC,
				  .error = error };

	return build_change(st, id, &c);
}

int lec_build_fail(struct lec_store *st, int64_t id,
		   enum lec_build_failure why, const char *error)
{
	return lec_build_fail_message(st, id, why, error, NULL);
}

int lec_build_fail_message(struct lec_store *st, int64_t id,
			   enum lec_build_failure why, const char *error,
			   const char *message)
{
	struct build_change c = { .finish = 1,
				  .why = why,
				  .error = error,
				  .message = message };

	return build_change(st, id, &c);
}

int lec_build_cancel(struct lec_store *st, int64_t id)
{
	return lec_build_set_state(st, id, LEC_BUILD_STATE_CANCELLED);
}

/* Run a statement binding one id; *changes gets the rows it touched. */
static int run_with_id(struct lec_store *st, const char *sql, int64_t id,
		       const char *what, int *changes)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, id);
	error = lec_store__step_done(st, stmt, what);
	if (changes)
		*changes = sqlite3_changes(st->db);
	lec_store__finalize(st, stmt);
	return error;
}

int lec_build_reset(struct lec_store *st, int64_t id)
{
	struct lec_build *b = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = build_fetch(st, id, &b)) < 0)
		goto done;
	if (lec_build_state_final(b->state)) {
		error = lec__error(LEC_EINVALID,
				   "build %lld is already %s; trigger a new "
				   "build instead",
				   (long long)id,
				   lec_build_state_code(b->state));
		goto done;
	}
	if ((error = run_with_id(st,
				 "UPDATE builds SET state = 'triggered', "
				 "success = 1, error = NULL, started = NULL, "
				 "finished = NULL, duration = NULL, held = 0, "
				 "log_bytes = 0 WHERE id = ?",
				 id, "resetting a build", NULL)) == LEC_OK)
		error = run_with_id(st,
				    "DELETE FROM build_commands "
				    "WHERE build_id = ?",
				    id, "deleting build commands", NULL);
done:
	lec_build_free(b);
	return lec_store__end(st, error);
}

/* Set one text column of a build (a name of the builds table, never
 * input), clearing the last error as every setter does. */
static int build_set_text(struct lec_store *st, int64_t id, const char *column,
			  const char *value)
{
	sqlite3_stmt *stmt = NULL;
	char sql[64];
	int error;

	lec_error_clear();
	snprintf(sql, sizeof(sql), "UPDATE builds SET %s = ? WHERE id = ?",
		 column);
	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, value)) == LEC_OK) {
		sqlite3_bind_int64(stmt, 2, id);
		error = lec_store__step_done(st, stmt, "updating a build");
	}
	if (error == LEC_OK && sqlite3_changes(st->db) == 0)
		error = lec__error(LEC_ENOTFOUND, "no build with id %lld",
				   (long long)id);
	lec_store__finalize(st, stmt);
	return error;
}

int lec_build_set_commit(struct lec_store *st, int64_t id, const char *commit)
{
	int error;

	lec_error_clear();
	if ((error = check_commit(commit)) < 0)
		return error;
	return build_set_text(st, id, "commit_sha", commit);
}

int lec_build_set_triggered_by(struct lec_store *st, int64_t id,
			       const char *how)
{
	return build_set_text(st, id, "triggered_by", how);
}

int lec_build_set_progress(struct lec_store *st, int64_t id,
			   const char *json)
{
	return build_set_text(st, id, "progress", json);
}

int lec_build_set_config(struct lec_store *st, int64_t id, const char *json)
{
	cJSON *parsed;
	int is_object;

	lec_error_clear();
	if (json) {
		parsed = cJSON_ParseWithOpts(json, NULL, 1);
		is_object = cJSON_IsObject(parsed);
		cJSON_Delete(parsed);
		if (!is_object)
			return lec__error_field(LEC_EINVALID, "config",
						"the build configuration is "
						"not a JSON object");
	}
	return build_set_text(st, id, "config", json);
}

int lec_build_set_cache(struct lec_store *st, int64_t id, const char *json)
{
	return build_set_text(st, id, "cache", json);
}

/* Triggering -------------------------------------------------------------- */

/* The version's type, checking that it belongs to the project. */
static int trigger_version_type(struct lec_store *st, int64_t project_id,
				int64_t version_id, char **type)
{
	const int64_t v[2] = { version_id, project_id };
	int found = 0;
	int error = lec_store__query_text(st,
					  "SELECT type FROM versions WHERE "
					  "id = ? AND project_id = ?",
					  v, 2, "looking a version up", type,
					  &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND,
				   "No Version matches the given query.");
	return error;
}

/* The commit of the version's newest build (NULL when none). */
static int last_commit(struct lec_store *st, int64_t version_id, char **out)
{
	return lec_store__query_text(st,
				     "SELECT commit_sha FROM builds WHERE "
				     "version_id = ? ORDER BY " BUILD_ORDER
				     " LIMIT 1",
				     &version_id, 1, "reading the last build",
				     out, NULL);
}

/* Cancel the version's unfinished builds; *count gets how many. */
static int cancel_superseded(struct lec_store *st, int64_t version_id,
			     int64_t now, size_t *count)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE builds SET state = 'cancelled', success = 0, "
		     "error = ?1, finished = ?2, duration = CASE WHEN started "
		     "IS NULL THEN 0 ELSE max(0, (?2 - started) / ?3) END "
		     "WHERE version_id = ?4 AND state NOT IN " FINAL_STATES)) <
	    0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1,
					  LEC_BUILD_ERROR_SUPERSEDED)) ==
	    LEC_OK) {
		sqlite3_bind_int64(stmt, 2, now);
		sqlite3_bind_int64(stmt, 3, US_PER_SECOND);
		sqlite3_bind_int64(stmt, 4, version_id);
		error = lec_store__step_done(st, stmt,
					     "cancelling older builds");
		*count = (size_t)sqlite3_changes(st->db);
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int insert_build(struct lec_store *st, int64_t project_id,
			int64_t version_id, const char *commit, int fresh,
			int64_t now, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO builds (project_id, version_id, type, "
		     "state, success, commit_sha, created, fresh) "
		     "VALUES (?, ?, 'html', 'triggered', 1, ?, ?, ?)")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	sqlite3_bind_int64(stmt, 2, version_id);
	if ((error = lec_store__bind_text(stmt, 3, commit)) == LEC_OK) {
		sqlite3_bind_int64(stmt, 4, now);
		sqlite3_bind_int(stmt, 5, fresh ? 1 : 0);
		error = lec_store__step_done(st, stmt, "triggering a build");
	}
	if (error == LEC_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	lec_store__finalize(st, stmt);
	return error;
}

/* The trigger's work inside its transaction. */
static int trigger_in_tx(struct lec_store *st, int64_t project_id,
			 int64_t version_id, const char *commit, int fresh,
			 size_t *cancelled, int64_t *id)
{
	char *type = NULL, *reused = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec__project_refuse_mirrored(st, project_id,
						  "built")) < 0 ||
	    (error = trigger_version_type(st, project_id, version_id,
					  &type)) < 0)
		return error;
	/* A pull request's version is rebuilt at the commit last built. */
	if (commit == NULL && strcmp(type, "external") == 0)
		error = last_commit(st, version_id, &reused);
	if (error == LEC_OK)
		error = cancel_superseded(st, version_id, now, cancelled);
	if (error == LEC_OK)
		error = insert_build(st, project_id, version_id,
				     commit ? commit : reused, fresh, now, id);
	lec__free(type);
	lec__free(reused);
	return error;
}

static int trigger(struct lec_store *st, int64_t project_id,
		   int64_t version_id, const char *commit, int fresh,
		   struct lec_build **out, size_t *cancelled)
{
	struct lec_build *created = NULL;
	size_t count = 0;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (cancelled)
		*cancelled = 0;
	if ((error = check_commit(commit)) < 0 ||
	    (error = lec_store__begin(st)) < 0)
		return error;
	/* Read back before committing: a failure then triggers nothing. */
	error = trigger_in_tx(st, project_id, version_id, commit, fresh, &count,
			      &id);
	if (error == LEC_OK && out)
		error = build_fetch(st, id, &created);
	if ((error = lec_store__end(st, error)) < 0) {
		lec_build_free(created);
		return error;
	}
	if (out)
		*out = created;
	if (cancelled)
		*cancelled = count;
	return LEC_OK;
}

int lec_build_trigger(struct lec_store *st, int64_t project_id,
		      int64_t version_id, const char *commit,
		      struct lec_build **out, size_t *cancelled)
{
	return trigger(st, project_id, version_id, commit, 0, out, cancelled);
}

int lec_build_trigger_fresh(struct lec_store *st, int64_t project_id,
			    int64_t version_id, const char *commit,
			    struct lec_build **out, size_t *cancelled)
{
	return trigger(st, project_id, version_id, commit, 1, out, cancelled);
}

/* The queue --------------------------------------------------------------- */

int lec_build_queue_position(struct lec_store *st, const struct lec_build *b,
			     int64_t *out)
{
	int64_t v[3];
	int error;

	lec_error_clear();
	*out = 0;
	if (b == NULL || b->state != LEC_BUILD_STATE_TRIGGERED)
		return LEC_OK;
	v[0] = b->created;
	v[1] = b->created;
	v[2] = b->id;
	error = lec_store__query_int(
		st,
		"SELECT count(*) FROM builds WHERE state = 'triggered' AND "
		"(created < ? OR (created = ? AND id < ?))",
		v, 3, "reading the build queue", out, NULL);
	if (error == LEC_OK)
		(*out)++;
	return error;
}

int lec_build_activity(struct lec_store *st, struct lec_build_activity *out)
{
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	/* The rowid's end and the partial index of unfinished builds: two
	 * lookups, whatever the history's length. */
	if ((error = lec_store__query_int(st, "SELECT coalesce(max(id), 0) "
					      "FROM builds",
					  NULL, 0, "reading the builds",
					  &out->newest, NULL)) < 0)
		return error;
	return lec_store__query_int(st, "SELECT count(*) FROM builds WHERE "
					"state NOT IN ('finished', "
					"'cancelled')",
				    NULL, 0, "reading the builds",
				    &out->unfinished, NULL);
}

int lec_build_unfinished(struct lec_store *st, int64_t *waiting,
			 int64_t *running)
{
	int error;

	lec_error_clear();
	*waiting = *running = 0;
	error = lec_store__query_int(st,
				     "SELECT count(*) FROM builds WHERE state = "
				     "'triggered'",
				     NULL, 0, "reading the build queue", waiting,
				     NULL);
	if (error == LEC_OK)
		error = lec_store__query_int(
			st,
			"SELECT count(*) FROM builds WHERE state <> "
			"'triggered' AND state NOT IN " FINAL_STATES,
			NULL, 0, "reading the running builds", running, NULL);
	return error;
}

int lec_build_next(struct lec_store *st, struct lec_build **out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__builds);
	lec__query_where(&q, "state = 'triggered'");
	return build_first(st, &q, "created, id", 0, out);
}

/* A project's owner, as CLAIM_NEXT_SQL reads it (below). */
#define OWNER_OF(project)                                                    \
	"coalesce((SELECT min(pu.user_id) FROM project_users pu"            \
	" WHERE pu.project_id = " project "), 0)"

int lec_build_owner(struct lec_store *st, int64_t project_id, int64_t *out)
{
	lec_error_clear();
	return lec_store__query_int(st, "SELECT " OWNER_OF("?1"), &project_id,
				    1, "finding a project's owner", out, NULL);
}

/* Through builds_running, as the claim reads the queue. */
int lec_build_queued(struct lec_store *st, int64_t owner_id,
		     int64_t skip_version_id, size_t *out)
{
	int64_t v[2] = { owner_id, skip_version_id };
	int64_t n = 0;
	int error;

	lec_error_clear();
	*out = 0;
	error = lec_store__query_int(
		st,
		"SELECT count(*) FROM builds b WHERE b.state = 'triggered'"
		" AND b.state NOT IN " FINAL_STATES " AND b.version_id != ?2"
		" AND " OWNER_OF("b.project_id") " = ?1",
		v, 2, "counting an owner's queued builds", &n, NULL);
	if (error == LEC_OK)
		*out = (size_t)n;
	return error;
}

/* The build a worker takes next. Builds record no user, so a project's
 * builds count as its owner's: its maintainer with the lowest id (the
 * oldest account), 0 when it has none. Among the triggered builds,
 * - none of a project that has a held build: one build per project at a
 *   time, since its repo cache and published files have one writer;
 * - the owner holding the fewest builds first, so several workers are
 *   shared between owners instead of going to the head of the queue;
 * - then the owner served longest ago (build_turns), so even one worker
 *   goes round the owners and one owner's queue delays another's by at
 *   most one build;
 * - then that owner's oldest build.
 * The triggered and the held builds are read in two arms, each through its
 * index (builds_running, builds_held): idle workers ask several times a
 * second, and the builds table keeps every build ever run. */
#define CLAIM_NEXT_SQL                                                       \
	"WITH live (id, project_id, created, state, held) AS ("              \
	"  SELECT id, project_id, created, state, held FROM builds"          \
	"  WHERE state = 'triggered' AND state NOT IN " FINAL_STATES         \
	"  UNION ALL SELECT id, project_id, created, state, held"            \
	"  FROM builds WHERE held = 1),"                                     \
	" owned (id, project_id, created, state, held, owner) AS ("          \
	"  SELECT l.*, " OWNER_OF("l.project_id") " FROM live l),"           \
	" busy (owner, n) AS ("                                              \
	"  SELECT owner, count(*) FROM owned WHERE held = 1 GROUP BY owner) " \
	"SELECT w.id, w.owner FROM owned w"                                  \
	"  LEFT JOIN busy ON busy.owner = w.owner"                           \
	"  LEFT JOIN build_turns t ON t.owner_id = w.owner"                  \
	" WHERE w.state = 'triggered' AND w.held = 0"                        \
	"  AND NOT EXISTS (SELECT 1 FROM builds h"                           \
	"                  WHERE h.project_id = w.project_id AND h.held = 1)" \
	" ORDER BY coalesce(busy.n, 0), coalesce(t.served, 0), w.created,"   \
	"  w.id LIMIT 1"

/* The next build to take and its owner; *id is 0 when none can start. */
static int claim_next(struct lec_store *st, int64_t *id, int64_t *owner)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*id = 0;
	if ((error = lec_store__prepare(st, &stmt, CLAIM_NEXT_SQL)) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(stmt, 0);
		*owner = sqlite3_column_int64(stmt, 1);
	} else if (rc != SQLITE_DONE) {
		error = lec_store__sqlerr(st, rc, "choosing a build to claim");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Give the build to the caller (cloning, started now, held) and move its
 * owner to the back of the round: served is a counter, not a clock, so
 * two claims in one microsecond still take turns. */
static int claim_take(struct lec_store *st, int64_t id, int64_t owner)
{
	int64_t build[2] = { id, lec__now_us() };
	int error;

	if ((error = lec_store__exec_ints(
		     st,
		     "UPDATE builds SET state = 'cloning', started = ?2, "
		     "held = 1 WHERE id = ?1",
		     build, 2, "claiming a build", NULL)) < 0)
		return error;
	/* WHERE true: SQLite's UPSERT after INSERT ... SELECT needs one. */
	return lec_store__exec_ints(
		st,
		"INSERT INTO build_turns (owner_id, served) "
		"SELECT ?1, coalesce(max(served), 0) + 1 FROM build_turns "
		"WHERE true ON CONFLICT (owner_id) DO UPDATE "
		"SET served = excluded.served",
		&owner, 1, "taking a build owner's turn", NULL);
}

int lec_build_claim(struct lec_store *st, struct lec_build **out)
{
	struct lec_build *claimed = NULL;
	int64_t id = 0, owner = 0;
	int error;

	lec_error_clear();
	*out = NULL;
	/* BEGIN IMMEDIATE takes the write lock before the choice is read, so
	 * two workers never choose the same build. */
	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* Read the build before committing: should that fail, the claim is
	 * rolled back rather than leaving a build no worker holds. */
	if ((error = claim_next(st, &id, &owner)) == LEC_OK && id == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "no build is waiting for a free project");
	if (error == LEC_OK && (error = claim_take(st, id, owner)) == LEC_OK)
		error = build_fetch(st, id, &claimed);
	if ((error = lec_store__end(st, error)) < 0) {
		lec_build_free(claimed);
		return error;
	}
	*out = claimed;
	return LEC_OK;
}

/* Commands ---------------------------------------------------------------- */

/* The output's text and its length in bytes (it may hold any). */
static int read_output(sqlite3_stmt *stmt, int col, void *item)
{
	struct lec_build_command *c = item;

	c->output_len = (size_t)sqlite3_column_bytes(stmt, col);
	return lec_store__col_text(stmt, col, &c->output);
}

static int command_finish(void *item)
{
	struct lec_build_command *c = item;

	c->run_time = c->end_time ? (c->end_time - c->start_time) /
					    US_PER_SECOND
				  : -1;
	if (c->run_time < -1)
		c->run_time = 0; /* a clock that went back */
	return LEC_OK;
}

static void command_dispose(void *item)
{
	lec__free(((struct lec_build_command *)item)->output);
}

/* The output last: a listing reads every column but it, which can be
 * megabytes (its size comes from the record's header instead,
 * output_size). */
static const struct lec__column command_columns[] = {
	LEC__INT64(lec_build_command, id, "id"),
	LEC__INT64(lec_build_command, build_id, "build_id"),
	LEC__TEXT(lec_build_command, command, "command"),
	LEC__TEXT(lec_build_command, description, "description"),
	LEC__INT(lec_build_command, exit_code, "exit_code"),
	LEC__TIME(lec_build_command, start_time, "start_time"),
	LEC__TIME(lec_build_command, end_time, "end_time"),
	LEC__READ("output", read_output),
};
static const struct lec__row command_row = LEC__ROW(
	lec_build_command, command_columns, command_finish, command_dispose);
static const struct lec__row command_listed_row = {
	command_columns, LEC__COUNT(command_columns) - 1,
	sizeof(struct lec_build_command), command_finish, command_dispose
};
static const struct lec__table commands = {
	.row = &command_row, .from = "build_commands",
	.id = "id = ?",
};

/* A read-only handle on a command's output, through which SQLite gives
 * its size and any piece of it reading only the pages concerned. The
 * handle holds one snapshot of the database until it is closed. */
static int output_open(struct lec_store *st, int64_t id, sqlite3_blob **blob)
{
	int rc = sqlite3_blob_open(st->db, "main", "build_commands", "output",
				   id, 0, blob);

	if (rc == SQLITE_OK)
		return LEC_OK;
	*blob = NULL;
	/* SQLite's plain error here is a row that is not there. */
	if (rc == SQLITE_ERROR)
		return lec__error(LEC_ENOTFOUND, "no build command with id %lld",
				  (long long)id);
	return lec_store__sqlerr(st, rc, "reading command output");
}

static int output_size(struct lec_store *st, int64_t id, size_t *size)
{
	sqlite3_blob *blob = NULL;
	int error = output_open(st, id, &blob);

	if (error == LEC_OK)
		*size = (size_t)sqlite3_blob_bytes(blob);
	sqlite3_blob_close(blob);
	return error;
}

LEC__DEFINE_FREE(lec_build_command, &command_row)
LEC__DEFINE_LIST_DISPOSE(lec_build_command, &command_listed_row)

int lec_build_command_get(struct lec_store *st, int64_t id,
			  struct lec_build_command **out)
{
	int error = lec__table_get(st, &commands, NULL, id, (void **)out);

	return error == LEC_ENOTFOUND
		       ? lec__error(LEC_ENOTFOUND,
				    "no build command with id %lld",
				    (long long)id)
		       : error;
}

int lec_build_command_list(struct lec_store *st, int64_t build_id,
			   struct lec_build_command_list *out)
{
	struct lec__query q;
	size_t i;
	int error;

	lec_error_clear();
	lec__query_init(&q, &command_listed_row, "build_commands");
	lec__query_where_int(&q, "build_id = ?", build_id);
	error = lec__query_list(st, &q, "id", NULL, (void **)&out->items,
				&out->len, NULL);
	lec__query_dispose(&q);
	/* A command gone since (its build was reset) shows as empty. */
	for (i = 0; error == LEC_OK && i < out->len; i++)
		if ((error = output_size(st, out->items[i].id,
					 &out->items[i].output_len)) ==
		    LEC_ENOTFOUND)
			error = LEC_OK;
	if (error < 0)
		lec_build_command_list_dispose(out);
	return error;
}

int lec_build_command_read(struct lec_store *st,
			   const struct lec_build_command *c, size_t offset,
			   char *buf, size_t cap, size_t *n)
{
	sqlite3_blob *blob = NULL;
	size_t size, len;
	int error, rc;

	lec_error_clear();
	*n = 0;
	/* A command's id is never given again (schema.c, migration 18): a
	 * record gone is not found, never another command's output. */
	if ((error = output_open(st, c->id, &blob)) == LEC_OK &&
	    offset < (size = (size_t)sqlite3_blob_bytes(blob))) {
		len = size - offset < cap ? size - offset : cap;
		rc = sqlite3_blob_read(blob, buf, (int)len, (int)offset);
		if (rc == SQLITE_OK)
			*n = len;
		else
			error = lec_store__sqlerr(st, rc,
						  "reading command output");
	}
	sqlite3_blob_close(blob);
	return error;
}

/* A build that has ended runs no more commands. */
static int check_build_running(struct lec_store *st, int64_t build_id)
{
	struct lec_build *b = NULL;
	int error = build_fetch(st, build_id, &b);

	if (error == LEC_OK && lec_build_state_final(b->state))
		error = lec__error(LEC_EINVALID,
				   "build %lld is %s; it runs no more commands",
				   (long long)build_id,
				   lec_build_state_code(b->state));
	lec_build_free(b);
	return error;
}

int lec_build_command_start(struct lec_store *st, int64_t build_id,
			    const char *command, const char *description,
			    int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	*id = 0;
	if (command == NULL || *command == '\0')
		return lec__error_blank("command");
	if ((error = check_build_running(st, build_id)) < 0 ||
	    (error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO build_commands (build_id, command, "
		     "description, start_time) VALUES (?, ?, ?, ?)")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, build_id);
	if ((error = lec_store__bind_text(stmt, 2, command)) == LEC_OK &&
	    (error = lec_store__bind_text(stmt, 3,
					  description ? description : "")) ==
		    LEC_OK) {
		sqlite3_bind_int64(stmt, 4, lec__now_us());
		error = lec_store__step_done(st, stmt,
					     "recording a build command");
	}
	if (error == LEC_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	lec_store__finalize(st, stmt);
	return error;
}

/* A running command's share of its build's log. */
struct command_room {
	int64_t build_id;
	size_t stored; /* bytes its output holds */
	int64_t cut;   /* bytes of its output not kept */
	int64_t log;   /* output its build's commands keep (notices aside) */
};

/* Read a running command's room; errors for none or ended. */
static int command_room(struct lec_store *st, int64_t id,
			struct command_room *r)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "SELECT c.build_id, c.end_time IS NOT NULL, c.output_cut, "
		     "b.log_bytes FROM build_commands c JOIN builds b ON "
		     "b.id = c.build_id WHERE c.id = ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_int(stmt, 1)) {
		error = lec__error(LEC_EINVALID,
				   "build command %lld has ended",
				   (long long)id);
	} else if (rc == SQLITE_ROW) {
		r->build_id = sqlite3_column_int64(stmt, 0);
		r->cut = sqlite3_column_int64(stmt, 2);
		r->log = sqlite3_column_int64(stmt, 3);
	} else if (rc == SQLITE_DONE) {
		error = lec__error(LEC_ENOTFOUND,
				   "no build command with id %lld",
				   (long long)id);
	} else {
		error = lec_store__sqlerr(st, rc, "reading a build command");
	}
	lec_store__finalize(st, stmt);
	return error < 0 ? error : output_size(st, id, &r->stored);
}

/* How many of len new bytes a command keeps: what fits under both caps,
 * cut before a UTF-8 continuation byte so that no character is split.
 * Once cut, a command keeps nothing more: its log stops where the cut
 * is, and the notice at its end says how much followed. */
static size_t output_keep(const struct command_room *r, const char *bytes,
			  size_t len)
{
	size_t room = 0, back = 0;

	if (r->cut == 0 && r->stored < LEC_BUILD_OUTPUT_MAX &&
	    r->log < LEC_BUILD_LOG_MAX) {
		room = LEC_BUILD_OUTPUT_MAX - r->stored;
		if ((uint64_t)(LEC_BUILD_LOG_MAX - r->log) < room)
			room = (size_t)(LEC_BUILD_LOG_MAX - r->log);
	}
	if (len <= room)
		return len;
	/* A UTF-8 character has at most 3 continuation bytes. */
	while (room > 0 && back < 3 &&
	       ((unsigned char)bytes[room] & 0xC0) == 0x80) {
		room--;
		back++;
	}
	return room;
}

/* Inside the transaction: text appended to a command's output, cut bytes
 * counted, and with an exit code the command ended. Output appended
 * counts in its build's log; the notice an end appends does not. */
static int command_write(struct lec_store *st, int64_t id,
			 const struct command_room *r, const char *text,
			 size_t len, size_t cut, const int *exit_code)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     exit_code == NULL
			     ? "UPDATE build_commands SET output = output || ?, "
			       "output_cut = output_cut + ? WHERE id = ?"
			     : "UPDATE build_commands SET output = output || ?, "
			       "output_cut = output_cut + ?, exit_code = ?, "
			       "end_time = ? WHERE id = ?")) < 0)
		return error;
	if (sqlite3_bind_text(stmt, 1, len ? text : "", (int)len,
			      SQLITE_STATIC) != SQLITE_OK)
		error = lec__error_oom();
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)cut);
	if (exit_code == NULL) {
		sqlite3_bind_int64(stmt, 3, id);
	} else {
		sqlite3_bind_int(stmt, 3, *exit_code);
		sqlite3_bind_int64(stmt, 4, lec__now_us());
		sqlite3_bind_int64(stmt, 5, id);
	}
	if (error == LEC_OK)
		error = lec_store__step_done(st, stmt, "writing command output");
	lec_store__finalize(st, stmt);
	if (error == LEC_OK && len > 0 && exit_code == NULL) {
		if ((error = lec_store__prepare(
			     st, &stmt,
			     "UPDATE builds SET log_bytes = log_bytes + ? "
			     "WHERE id = ?")) < 0)
			return error;
		sqlite3_bind_int64(stmt, 1, (sqlite3_int64)len);
		sqlite3_bind_int64(stmt, 2, r->build_id);
		error = lec_store__step_done(st, stmt, "counting a build's log");
		lec_store__finalize(st, stmt);
	}
	return error;
}

int lec_build_command_append(struct lec_store *st, int64_t id,
			     const char *bytes, size_t len)
{
	struct command_room r;
	size_t keep;
	int error;

	lec_error_clear();
	if (bytes == NULL && len > 0)
		return lec__error(LEC_EINVALID, "no output given");
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = command_room(st, id, &r)) == LEC_OK && len > 0) {
		keep = output_keep(&r, bytes, len);
		error = command_write(st, id, &r, bytes, keep, len - keep,
				      NULL);
	}
	return lec_store__end(st, error);
}

void lec_build_size_text(uint64_t bytes, char *out)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes / 1024;
	size_t u = 0;
	char *zero;

	if (bytes < 1024) {
		snprintf(out, LEC_BUILD_SIZE_TEXT_MAX, "%u byte%s",
			 (unsigned)bytes, bytes == 1 ? "" : "s");
		return;
	}
	/* Up a unit before "%.1f" would round to 1024.0. */
	while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(out, LEC_BUILD_SIZE_TEXT_MAX, "%.1f %s", v, units[u]);
	if ((zero = strstr(out, ".0 ")) != NULL) /* "4 MiB", not "4.0 MiB" */
		memmove(zero, zero + 2, strlen(zero + 2) + 1);
}

/* What a command cut ends with. A command cut within a character of its
 * own cap reached that; any other was cut because its build's log was
 * full. */
static void cut_notice(const struct command_room *r, char *out, size_t cap)
{
	int own = r->stored + 3 >= LEC_BUILD_OUTPUT_MAX;
	char limit[LEC_BUILD_SIZE_TEXT_MAX], cut[LEC_BUILD_SIZE_TEXT_MAX];

	lec_build_size_text(own ? LEC_BUILD_OUTPUT_MAX : LEC_BUILD_LOG_MAX,
			    limit);
	lec_build_size_text((uint64_t)r->cut, cut);
	snprintf(out, cap, own ? LEC_BUILD_CUT_COMMAND : LEC_BUILD_CUT_BUILD,
		 limit, cut);
}

int lec_build_command_finish(struct lec_store *st, int64_t id, int exit_code)
{
	char notice[sizeof(LEC_BUILD_CUT_BUILD) + 2 * LEC_BUILD_SIZE_TEXT_MAX];
	struct command_room r;
	int error;

	lec_error_clear();
	notice[0] = '\0';
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = command_room(st, id, &r)) == LEC_OK) {
		if (r.cut > 0)
			cut_notice(&r, notice, sizeof(notice));
		error = command_write(st, id, &r, notice, strlen(notice), 0,
				      &exit_code);
	}
	return lec_store__end(st, error);
}
