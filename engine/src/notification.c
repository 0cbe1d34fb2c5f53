/*
 * Notifications: their rows, the deduplicating add and cancel of the
 * service's NotificationQuerySet, the per-user feed, and what a build's
 * end raises (build_events.c calls it, and queues the webhooks).
 *
 * A failed build's notification follows from why the pipeline failed it:
 * the service's own message when the build recorded one (a configuration
 * error: lec_build.failure_message, its text made by rtdconfig_messages.c),
 * else the build's failure code (lec_build_fail), which one table below
 * maps to the service's message id, the error's text only quoted.
 */
#include <string.h>

#include "lectern/build.h"
#include "lectern/notification.h"
#include "lectern/rtdconfig.h"
#include "lectern/version.h"
#include "store_internal.h"

/* Most bytes of a build's error quoted in its notification's body: the
 * build's log has the rest. */
#define BODY_ERROR_MAX 4000

static const char not_found[] = "No Notification matches the given query.";

static const char *const state_codes[] = {
	[LEC_NOTIFICATION_UNREAD] = "unread",
	[LEC_NOTIFICATION_READ] = "read",
	[LEC_NOTIFICATION_DISMISSED] = "dismissed",
	[LEC_NOTIFICATION_CANCELLED] = "cancelled",
};

static const char *const target_codes[] = {
	[LEC_NOTIFICATION_BUILD] = "build",
	[LEC_NOTIFICATION_PROJECT] = "project",
	[LEC_NOTIFICATION_ORGANIZATION] = "organization",
	[LEC_NOTIFICATION_USER] = "user",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *lec_notification_state_code(enum lec_notification_state state)
{
	return (size_t)state < COUNT(state_codes) ? state_codes[state]
						  : "unread";
}

const char *lec_notification_target_code(enum lec_notification_target t)
{
	return (size_t)t < COUNT(target_codes) ? target_codes[t] : "project";
}

/* Index of code in a table of names, or -1. */
static int code_index(const char *const *codes, size_t n, const char *code)
{
	size_t i;

	for (i = 0; code && i < n; i++)
		if (strcmp(codes[i], code) == 0)
			return (int)i;
	return -1;
}

int lec_notification_state_lookup(const char *code,
				  enum lec_notification_state *out)
{
	int i = code_index(state_codes, COUNT(state_codes), code);

	if (i < 0)
		return lec__error_field(LEC_EINVALID, "state",
					"\"%s\" is not a valid choice.",
					code ? code : "");
	*out = (enum lec_notification_state)i;
	return LEC_OK;
}

/* Rows ------------------------------------------------------------------------ */

/* The attached object's slug: a build's is its project's. */
#define ATTACHED_SLUG                                                        \
	"CASE n.attached_type WHEN 'organization' THEN "                     \
	"(SELECT slug FROM organizations WHERE id = n.attached_id) "         \
	"WHEN 'user' THEN "                                                  \
	"(SELECT username FROM users WHERE id = n.attached_id) "             \
	"ELSE (SELECT slug FROM projects WHERE id = n.project_id) END"

/* The build it is about: a build's own, or the one a project's names. */
#define BUILD_ID                                                             \
	"(CASE n.attached_type WHEN 'build' THEN n.attached_id "             \
	"ELSE coalesce(n.build_id, 0) END)"

static const struct lec__column notification_columns[] = {
	LEC__INT64(lec_notification, id, "n.id"),
	LEC__TEXT(lec_notification, message_id, "n.message_id"),
	LEC__CODE(lec_notification, state, "n.state", state_codes,
		  LEC_NOTIFICATION_UNREAD),
	LEC__INT(lec_notification, dismissable, "n.dismissable"),
	LEC__INT(lec_notification, news, "n.news"),
	LEC__CODE(lec_notification, target, "n.attached_type",
		  target_codes, LEC_NOTIFICATION_PROJECT),
	LEC__INT64(lec_notification, attached_id, "n.attached_id"),
	LEC__TEXT_OPT(lec_notification, attached_slug, ATTACHED_SLUG),
	LEC__TEXT(lec_notification, type, "n.type"),
	LEC__TEXT(lec_notification, header, "n.header"),
	LEC__TEXT(lec_notification, body, "n.body"),
	LEC__TIME(lec_notification, created, "n.created"),
	LEC__TIME(lec_notification, modified, "n.modified"),
	LEC__INT64(lec_notification, build_id, BUILD_ID),
	LEC__TEXT_OPT(lec_notification, build_version,
		      "(SELECT v.slug FROM builds b JOIN versions v "
		      "ON v.id = b.version_id WHERE b.id = " BUILD_ID ")"),
};
static const struct lec__row notification_row =
	LEC__ROW(lec_notification, notification_columns, NULL, NULL);
static const struct lec__table notifications = {
	.row = &notification_row, .from = "notifications n",
	.id = "n.id = ?",
	.order = "n.modified DESC, n.id DESC", .not_found = not_found,
};

LEC__DEFINE_FREES(lec_notification, &notification_row)

/* Adding and cancelling ----------------------------------------------------- */

/* The project a build or project notification goes with (deleted with
 * it); 0 for organizations and users. */
static int owning_project(struct lec_store *st,
			  enum lec_notification_target target,
			  int64_t attached_id, int64_t *project_id)
{
	int found = 0, error;

	*project_id = 0;
	if (target == LEC_NOTIFICATION_BUILD)
		error = lec_store__query_int(st,
					     "SELECT project_id FROM builds "
					     "WHERE id = ?",
					     &attached_id, 1,
					     "reading a build", project_id,
					     &found);
	else if (target == LEC_NOTIFICATION_PROJECT)
		error = lec_store__query_int(st,
					     "SELECT id FROM projects "
					     "WHERE id = ?",
					     &attached_id, 1,
					     "reading a project", project_id,
					     &found);
	else
		return LEC_OK;
	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no %s with id %lld",
				   target_codes[target],
				   (long long)attached_id);
	return error;
}

/* Refresh the open (unread or read) notification of the same message on
 * the same object; *changed says whether there was one. */
static int refresh_open(struct lec_store *st,
			const struct lec_notification_new *n, int64_t now,
			int64_t *id, int *changed)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*changed = 0;
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE notifications SET state = 'unread', type = ?1, "
		     "header = ?2, body = ?3, modified = ?4, build_id = ?8 "
		     "WHERE id = "
		     "(SELECT id FROM notifications WHERE attached_type = ?5 "
		     "AND attached_id = ?6 AND message_id = ?7 AND state IN "
		     "('unread', 'read') ORDER BY id LIMIT 1) RETURNING id")) <
	    0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, n->type)) < 0 ||
	    (error = lec_store__bind_text(stmt, 2, n->header)) < 0 ||
	    (error = lec_store__bind_text(stmt, 3, n->body)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 4, now);
	if ((error = lec_store__bind_text(stmt, 5,
					  target_codes[n->target])) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 6, n->attached_id);
	if ((error = lec_store__bind_text(stmt, 7, n->message_id)) < 0)
		goto done;
	if (n->build_id > 0)
		sqlite3_bind_int64(stmt, 8, n->build_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(stmt, 0);
		*changed = 1;
		rc = sqlite3_step(stmt);
	}
	if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "refreshing a notification");
done:
	lec_store__finalize(st, stmt);
	return error;
}

static int insert_row(struct lec_store *st,
		      const struct lec_notification_new *n,
		      int64_t project_id, int64_t now, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO notifications (message_id, dismissable, "
		     "attached_type, attached_id, project_id, type, header, "
		     "body, created, modified, build_id) VALUES "
		     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, n->message_id)) < 0)
		goto done;
	sqlite3_bind_int(stmt, 2, n->dismissable ? 1 : 0);
	if ((error = lec_store__bind_text(stmt, 3,
					  target_codes[n->target])) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 4, n->attached_id);
	if (project_id)
		sqlite3_bind_int64(stmt, 5, project_id);
	if ((error = lec_store__bind_text(stmt, 6, n->type)) < 0 ||
	    (error = lec_store__bind_text(stmt, 7, n->header)) < 0 ||
	    (error = lec_store__bind_text(stmt, 8, n->body)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 9, now);
	sqlite3_bind_int64(stmt, 10, now);
	if (n->build_id > 0)
		sqlite3_bind_int64(stmt, 11, n->build_id);
	error = lec_store__step_done(st, stmt, "raising a notification");
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_notification_add(struct lec_store *st,
			 const struct lec_notification_new *n, int64_t *id)
{
	int64_t project_id = 0, new_id = 0, now = lec__now_us();
	int error, changed = 0;

	lec_error_clear();
	if (n->message_id == NULL || n->type == NULL || n->header == NULL ||
	    n->body == NULL || (size_t)n->target >= COUNT(target_codes))
		return lec__error(LEC_EINVALID,
				  "a notification needs a message id, a "
				  "type, a header and a body");
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = owning_project(st, n->target, n->attached_id,
				    &project_id)) < 0 ||
	    (error = refresh_open(st, n, now, &new_id, &changed)) < 0 ||
	    (!changed &&
	     (error = insert_row(st, n, project_id, now, &new_id)) < 0)) {
		lec_store__rollback(st);
		return error;
	}
	if ((error = lec_store__commit(st)) < 0)
		return error;
	if (id)
		*id = new_id;
	return LEC_OK;
}

int lec_notification_cancel(struct lec_store *st,
			    enum lec_notification_target target,
			    int64_t attached_id, const char *message_id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if ((size_t)target >= COUNT(target_codes) || message_id == NULL)
		return lec__error(LEC_EINVALID, "no notification to cancel");
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE notifications SET state = 'cancelled', "
		     "modified = ? WHERE attached_type = ? AND attached_id = ? "
		     "AND message_id = ? AND state IN ('unread', 'read')")) <
	    0)
		return error;
	sqlite3_bind_int64(stmt, 1, lec__now_us());
	if ((error = lec_store__bind_text(stmt, 2, target_codes[target])) <
	    0)
		goto done;
	sqlite3_bind_int64(stmt, 3, attached_id);
	if ((error = lec_store__bind_text(stmt, 4, message_id)) < 0)
		goto done;
	error = lec_store__step_done(st, stmt, "cancelling a notification");
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* Reading ------------------------------------------------------------------------ */

/* A user's feed: what is attached to them, to projects they administer
 * (the project_admins view: maintainers, organization owners, admin
 * teams) and to organizations they own. One parameter, the user's id,
 * joined in as v.u so the builder binds it once. */
#define FEED_CONDITION                                                       \
	"n.id IN (SELECT f.id FROM notifications f, (SELECT ? AS u) v "      \
	"WHERE (f.attached_type = 'user' AND f.attached_id = v.u) "          \
	"OR (f.attached_type = 'project' AND f.attached_id IN "              \
	"(SELECT project_id FROM project_admins WHERE user_id = v.u)) "      \
	"OR (f.attached_type = 'organization' AND f.attached_id IN "         \
	"(SELECT organization_id FROM organization_owners "                  \
	"WHERE user_id = v.u)))"

static void query_states(struct lec__query *q, unsigned states)
{
	static const char *const conds[] = {
		[LEC_NOTIFICATION_UNREAD] = "n.state = 'unread'",
		[LEC_NOTIFICATION_READ] = "n.state = 'read'",
		[LEC_NOTIFICATION_DISMISSED] = "n.state = 'dismissed'",
		[LEC_NOTIFICATION_CANCELLED] = "n.state = 'cancelled'",
	};
	struct lec__buf b = LEC__BUF_INIT;
	char *cond;
	size_t i;

	if (states == 0)
		return;
	lec__buf_puts(&b, "(0");
	for (i = 0; i < COUNT(conds); i++)
		if (states & (1u << i))
			lec__buf_printf(&b, " OR %s", conds[i]);
	lec__buf_puts(&b, ")");
	/* Out of memory keeps every state: the list call reports it. */
	if ((cond = lec__buf_take(&b)) != NULL)
		lec__query_where(q, cond);
	lec__free(cond);
}

int lec_notification_list(struct lec_store *st,
			  const struct lec_notification_filter *filter,
			  const struct lec_page *page,
			  struct lec_notification_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &notifications);
	if (filter->feed_user_id > 0) {
		lec__query_where_int(&q, FEED_CONDITION, filter->feed_user_id);
	} else if (filter->attached_id > 0) {
		lec__query_where_text(&q, "n.attached_type = ?",
				      lec_notification_target_code(
					      filter->target));
		lec__query_where_int(&q, "n.attached_id = ?",
				     filter->attached_id);
	}
	if (filter->id > 0)
		lec__query_where_int(&q, "n.id = ?", filter->id);
	query_states(&q, filter->states);
	return lec__table_rows(st, &notifications, &q, page,
			       (void **)&out->items, &out->len, &out->total);
}

int lec_notification_get(struct lec_store *st, int64_t id,
			 struct lec_notification **out)
{
	return lec__table_get(st, &notifications, NULL, id, (void **)out);
}

int lec_notification_set_state(struct lec_store *st, int64_t id,
			       enum lec_notification_state state)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if ((size_t)state >= COUNT(state_codes))
		return lec__error_field(LEC_EINVALID, "state",
					"not a valid choice");
	if ((error = lec_store__prepare(st, &stmt,
					"UPDATE notifications SET state = ?, "
					"modified = ? WHERE id = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, state_codes[state])) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 2, lec__now_us());
	sqlite3_bind_int64(stmt, 3, id);
	error = lec_store__step_done(st, stmt, "updating a notification");
	if (error == LEC_OK && sqlite3_changes(sqlite3_db_handle(stmt)) == 0)
		error = lec__error(LEC_ENOTFOUND, "%s", not_found);
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* Build events ------------------------------------------------------------- */

/* The service's message for each way a build fails; row 0 is the
 * generic one. */
static const struct {
	enum lec_build_failure why;
	const char *message_id;
	const char *header;
} failures[] = {
	{ LEC_BUILD_FAILURE_GENERIC, LEC_MSG_BUILD_GENERIC, "Unknown problem" },
	{ LEC_BUILD_FAILURE_CONFIG, LEC_MSG_CONFIG_GENERIC,
	  "There was an unexpected problem in your config file" },
	{ LEC_BUILD_FAILURE_NO_INDEX, LEC_MSG_BUILD_NO_INDEX,
	  "Index file is not present in HTML output directory" },
	{ LEC_BUILD_FAILURE_OUTPUT_NOT_DIR, LEC_MSG_BUILD_OUTPUT_NOT_DIR,
	  "Build output directory is not a directory" },
	{ LEC_BUILD_FAILURE_OUTPUT_EMPTY, LEC_MSG_BUILD_OUTPUT_EMPTY,
	  "Build output directory doesn't contain any file" },
	{ LEC_BUILD_FAILURE_OUTPUT_MULTIPLE, LEC_MSG_BUILD_OUTPUT_MULTIPLE,
	  "Build output directory contains multiple files" },
};

/* A failure the service has a message of its own for (a configuration
 * error): that message, its text filled in as the service fills it.
 * *raised: 0 when the build has none (or it cannot be read). */
static int raise_service_message(struct lec_store *st,
				 const struct lec_build *b, int *raised)
{
	struct lec_notification_new n = { 0 };
	char *id = NULL, *header = NULL, *body = NULL;
	int rc;

	*raised = 0;
	if (b->failure_message == NULL ||
	    lec_rtd_problem_message(b->failure_message, &id, &header, &body) <
		    0)
		return lec_error_last_code() == LEC_ENOMEM ? LEC_ENOMEM
							   : LEC_OK;
	n.message_id = id;
	n.target = LEC_NOTIFICATION_BUILD;
	n.attached_id = b->id;
	n.type = "error";
	rc = lec__notification_add_texts(st, &n, header, body);
	*raised = 1;
	lec__free(id);
	return rc;
}

int lec__notification_add_texts(struct lec_store *st,
				struct lec_notification_new *n, char *header,
				char *body)
{
	int error;

	if (header == NULL || body == NULL) {
		error = lec__error_oom();
	} else {
		n->header = header;
		n->body = body;
		error = lec_notification_add(st, n, NULL);
	}
	lec__free(header);
	lec__free(body);
	return error;
}

/* The failed build's notification: the service's own message when it has
 * one, else its message by why it failed with the error itself
 * (shortened) as the body. */
static int raise_build_failed(struct lec_store *st, const struct lec_build *b)
{
	struct lec_notification_new n = { 0 };
	const char *error = b->error ? b->error : "";
	char *body;
	size_t i;
	int rc, raised;

	if ((rc = raise_service_message(st, b, &raised)) < 0 || raised)
		return rc;
	/* Anything else (none recorded) is the generic failure, row 0. */
	for (i = COUNT(failures) - 1; i > 0; i--)
		if (failures[i].why == b->failure)
			break;
	if ((body = lec__strdup_cut(*error ? error
					   : "We encountered a problem with a "
					     "command while building your "
					     "project.",
				    BODY_ERROR_MAX)) == NULL)
		return lec__error_oom();
	n.message_id = failures[i].message_id;
	n.target = LEC_NOTIFICATION_BUILD;
	n.attached_id = b->id;
	n.type = "error";
	n.header = failures[i].header;
	n.body = body;
	rc = lec_notification_add(st, &n, NULL);
	lec__free(body);
	return rc;
}

/* Cancelled by a user (or a newer build), or skipped by the build itself
 * (exit code 183): the service's two messages, the second an "info". */
static int raise_build_cancelled(struct lec_store *st,
				 const struct lec_build *b)
{
	const struct lec_notification_new cancelled = {
		.message_id = LEC_MSG_BUILD_CANCELLED,
		.target = LEC_NOTIFICATION_BUILD,
		.attached_id = b->id,
		.type = "error",
		.header = "Build cancelled manually.",
		.body = "The user has cancelled this build.",
	};
	const struct lec_notification_new skipped = {
		.message_id = LEC_MSG_BUILD_SKIPPED,
		.target = LEC_NOTIFICATION_BUILD,
		.attached_id = b->id,
		.type = "info",
		.header = "Build skipped.",
		.body = "This build was skipped because\none of the commands "
			"exited with code 183",
	};

	return lec_notification_add(st,
				    b->failure == LEC_BUILD_FAILURE_SKIPPED
					    ? &skipped
					    : &cancelled,
				    NULL);
}

/* Whether the version's finished build before b passed: 1, 0 (failed),
 * or -1 when there was none. */
static int previous_passed(struct lec_store *st, const struct lec_build *b,
			   int *out)
{
	int64_t v[2] = { b->version_id, b->id }, success = 0;
	int found = 0, error;

	error = lec_store__query_int(st,
				     "SELECT success FROM builds WHERE "
				     "version_id = ?1 AND id < ?2 AND state = "
				     "'finished' ORDER BY id DESC LIMIT 1",
				     v, 2, "reading builds", &success, &found);
	*out = found ? (int)(success != 0) : -1;
	return error;
}

/* The slugs of b's project and version ("guide", "latest"), owned; found
 * 0 when the version is gone. */
static int build_slugs(struct lec_store *st, const struct lec_build *b,
		       char **project, char **version, int *found)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	*project = *version = NULL;
	*found = 0;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT p.slug, v.slug FROM versions v "
					"JOIN projects p ON p.id = v.project_id "
					"WHERE v.id = ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, b->version_id);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*found = 1;
		if ((error = lec_store__col_text(stmt, 0, project)) == LEC_OK)
			error = lec_store__col_text(stmt, 1, version);
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* A version failing after it passed, or failing its first build, raises
 * the project's notification, which names the project, the version and
 * the build (and holds the build, for clients to open); one passing
 * cancels it. Versions of one project share the one notification, as
 * the service's per-object dedup would: the newest failure's text.
 * Pull requests' versions are not the project's: left out. */
static int version_transition(struct lec_store *st, const struct lec_build *b)
{
	struct lec__buf header = LEC__BUF_INIT, body = LEC__BUF_INIT;
	struct lec_notification_new n = { 0 };
	char *project = NULL, *version = NULL;
	int before, error, found = 0, external = 0;

	/* A pull request's build says nothing of the project's own
	 * versions: it neither raises nor cancels their notice. */
	if (b->version_id == 0)
		return LEC_OK;
	if ((error = lec_version_is_external(st, b->version_id, &external)) < 0)
		return error;
	if (external)
		return LEC_OK;
	if (b->success)
		return lec_notification_cancel(st, LEC_NOTIFICATION_PROJECT,
					       b->project_id,
					       LEC_MSG_VERSION_FAILING);
	if ((error = previous_passed(st, b, &before)) < 0 || before == 0 ||
	    (error = build_slugs(st, b, &project, &version, &found)) < 0 ||
	    !found)
		goto done;
	if (before == 1) {
		lec__buf_printf(&header, "%s/%s: build #%lld failed; it built "
					 "before",
				project, version, (long long)b->id);
		lec__buf_printf(&body,
				"The version \"%s\" of %s built successfully "
				"before, and its build #%lld failed. Its "
				"documentation stays as the last passing build "
				"left it.",
				version, project, (long long)b->id);
	} else {
		lec__buf_printf(&header, "%s/%s: its first build, #%lld, failed",
				project, version, (long long)b->id);
		lec__buf_printf(&body,
				"The version \"%s\" of %s has not built yet: its "
				"first build, #%lld, failed, so it has no "
				"documentation.",
				version, project, (long long)b->id);
	}
	if (b->error && *b->error) {
		char *cut = lec__strdup_cut(b->error, BODY_ERROR_MAX);

		lec__buf_printf(&body, " %s", cut ? cut : "");
		lec__free(cut);
	}
	n.message_id = LEC_MSG_VERSION_FAILING;
	n.target = LEC_NOTIFICATION_PROJECT;
	n.attached_id = b->project_id;
	n.type = "error";
	n.build_id = b->id;
	error = lec__notification_add_texts(st, &n, lec__buf_take(&header),
					    lec__buf_take(&body));
done:
	lec__free(project);
	lec__free(version);
	return error;
}

int lec__notification_build_ended(struct lec_store *st,
				  const struct lec_build *b)
{
	int error = LEC_OK;

	if (b->state == LEC_BUILD_STATE_CANCELLED)
		return raise_build_cancelled(st, b);
	if (!b->success)
		error = raise_build_failed(st, b);
	return error == LEC_OK ? version_transition(st, b) : error;
}
