/*
 * Commit statuses (lectern/commit_status.h): what a pull request's build
 * tells its forge, rendered when the build event happens, and the queue
 * of those statuses the server's sender drains, tried again with a
 * doubling backoff like an outgoing webhook's deliveries.
 *
 * The forges' forms are one table: the API base a public forge has, the
 * path of its statuses endpoint, and its word for a failure (GitHub's
 * "failure", GitLab's "failed"). The description and the context are the
 * service's (SELECT_BUILD_STATUS, RTD_BUILD_STATUS_API_NAME), so a branch
 * protection rule that waits for "docs/readthedocs:<project>" keeps
 * working.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "integration_internal.h"
#include "lectern/build.h"
#include "lectern/commit_status.h"
#include "lectern/external.h"
#include "lectern/project.h"
#include "lectern/resolve.h"
#include "lectern/version.h"
#include "secret.h"
#include "store_internal.h"

/* Bytes of a try's error kept. */
#define STATUS_ERROR_MAX 200
#define STATUS_CONTEXT "docs/readthedocs"

static const char *const state_codes[] = { "pending", "success", "failure" };
static const char *const delivery_codes[] = { "queued", "delivered",
					      "failed" };
static const char *const descriptions[] = {
	"Read the Docs build is in progress!",
	"Read the Docs build succeeded!",
	"Read the Docs build failed!",
};

/* A forge's statuses API, in enum lec_external_forge order. */
static const struct forge_api {
	enum lec_integration_type integration;
	const char *public_base;
	const char *path; /* after the base, before the repository */
	const char *states[3]; /* the forge's words, in state order */
} forges[] = {
	{ LEC_INTEGRATION_GITHUB, "https://api.github.com",
	  "/repos/", { "pending", "success", "failure" } },
	{ LEC_INTEGRATION_GITLAB, "https://gitlab.com",
	  "/api/v4/projects/",
	  { "pending", "success", "failed" } },
};

const char *lec_commit_status_state_code(enum lec_commit_status_state s)
{
	return (size_t)s < LEC__COUNT(state_codes) ? state_codes[s]
						   : "pending";
}

const char *lec_commit_status_delivery_code(enum lec_commit_status_delivery d)
{
	return (size_t)d < LEC__COUNT(delivery_codes) ? delivery_codes[d]
						      : "queued";
}

/* Rows --------------------------------------------------------------------- */

static const struct lec__column status_columns[] = {
	LEC__INT64(lec_commit_status, id, "id"),
	LEC__INT64(lec_commit_status, build_id, "build_id"),
	LEC__CODE(lec_commit_status, state, "state", state_codes,
		  LEC_COMMIT_STATUS_PENDING),
	LEC__TEXT(lec_commit_status, target_url, "target_url"),
	LEC__CODE(lec_commit_status, delivery, "delivery", delivery_codes,
		  LEC_COMMIT_STATUS_FAILED),
	LEC__INT(lec_commit_status, attempts, "attempts"),
	LEC__INT(lec_commit_status, status_code, "status_code"),
	LEC__TEXT_OPT(lec_commit_status, error, "error"),
	LEC__TIME(lec_commit_status, created, "created"),
	LEC__TIME(lec_commit_status, modified, "modified"),
};
static const struct lec__row status_row =
	LEC__ROW(lec_commit_status, status_columns, NULL, NULL);
static const struct lec__table statuses = {
	.row = &status_row, .from = "commit_statuses",
	.scope = "build_id = ?", .id = "id = ?", .order = "id",
	.not_found = "No commit status matches the given query.",
};

void lec_commit_status_list_dispose(struct lec_commit_status_list *list)
{
	LEC__LIST_DISPOSE(&status_row, list);
}

int lec_commit_status_list(struct lec_store *st, int64_t build_id,
			   struct lec_commit_status_list *out)
{
	size_t total = 0;

	return lec__table_list(st, &statuses, &build_id, NULL,
			       (void **)&out->items, &out->len, &total);
}

/* Queueing ----------------------------------------------------------------- */

/* What a status is made of, looked up from its build. */
struct source {
	struct lec_build *build;
	struct lec_version *version;
	struct lec_project *project;
	struct lec_external *external; /* NULL: a branch or tag's build */
	struct lec_integration *integration;
	const struct forge_api *forge;
	const char *repo;   /* on the forge, borrowed from the above */
	const char *commit; /* the commit reported on, borrowed */
};

static void source_dispose(struct source *s)
{
	lec_build_free(s->build);
	lec_version_free(s->version);
	lec_project_free(s->project);
	lec_external_free(s->external);
	lec_integration_free(s->integration);
}

/* The project's integration of forge f if it holds a token (and, for a
 * branch build, knows its repository). */
static int tokened(struct lec_store *st, struct source *s,
		   const struct forge_api *f, int need_repo)
{
	if (lec_integration_find(st, s->project->id, f->integration,
				 &s->integration) < 0 ||
	    !s->integration->has_token ||
	    (need_repo && s->integration->forge_repo == NULL)) {
		lec_integration_free(s->integration);
		s->integration = NULL;
		return 0;
	}
	s->forge = f;
	return 1;
}

/* A pull request's build reports to its request's forge and repository;
 * another build (commit known) to the forge whose integration has a token
 * and has learnt the repository from a delivery, GitHub's first. */
static int report_to(struct lec_store *st, struct source *s)
{
	size_t i;

	if (s->version->type == LEC_VERSION_EXTERNAL) {
		if (lec_external_get(st, s->version->id, &s->external) < 0 ||
		    (size_t)s->external->forge >= LEC__COUNT(forges) ||
		    s->external->forge_repo == NULL ||
		    !tokened(st, s, &forges[s->external->forge], 0))
			return 0;
		s->repo = s->external->forge_repo;
		s->commit = s->build->commit ? s->build->commit
					     : s->version->identifier;
		return s->commit != NULL;
	}
	if ((s->commit = s->build->commit) == NULL)
		return 0;
	for (i = 0; i < LEC__COUNT(forges) && !tokened(st, s, &forges[i], 1);
	     i++)
		;
	if (s->integration == NULL)
		return 0;
	s->repo = s->integration->forge_repo;
	return 1;
}

/* 1 when the build has somewhere to report to, 0 when not, or an error. */
static int source_load(struct lec_store *st, int64_t build_id,
		       struct source *s)
{
	int error, to;

	memset(s, 0, sizeof(*s));
	if ((error = lec_build_get(st, build_id, &s->build)) < 0)
		return error;
	to = s->build->version_id &&
	     lec_version_get_by_id(st, s->build->version_id, &s->version) ==
		     LEC_OK &&
	     lec_project_get_by_id(st, s->build->project_id, &s->project) ==
		     LEC_OK &&
	     report_to(st, s);
	lec_error_clear();
	return to;
}

/* Where the status points: once the build passed, its docs (a pull
 * request's preview), else the build's page (the service's
 * get_absolute_url / get_full_url). */
static char *target_of(const struct source *s,
		       enum lec_commit_status_state state,
		       const struct lec_commit_status_site *site)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (state == LEC_COMMIT_STATUS_SUCCESS && s->external)
		return lec_resolve_external_url(
			s->project, s->version->slug,
			site && site->external_domain ? site->external_domain
						      : "external.localhost");
	if (state == LEC_COMMIT_STATUS_SUCCESS)
		return lec_resolve_docs_url(s->project, s->version->slug,
					    site && site->docs_domain
						    ? site->docs_domain
						    : "localhost");
	lec__buf_printf(&b, "http://%s/projects/%s/builds/%lld/",
			site && site->production_domain
				? site->production_domain
				: "localhost",
			s->project->slug, (long long)s->build->id);
	return lec__buf_take(&b);
}

static char *url_of(const struct source *s)
{
	const char *base = s->integration->api_url ? s->integration->api_url
						   : s->forge->public_base;
	size_t n = strlen(base);
	struct lec__buf b = LEC__BUF_INIT;
	char *trimmed;

	while (n > 0 && base[n - 1] == '/')
		n--;
	if ((trimmed = lec__strndup(base, n)) == NULL)
		return NULL;
	lec__buf_printf(&b, "%s%s%s/statuses/%s", trimmed, s->forge->path,
			s->repo, s->commit);
	lec__free(trimmed);
	return lec__buf_take(&b);
}

static char *body_of(const struct source *s,
		     enum lec_commit_status_state state, const char *target)
{
	cJSON *o = cJSON_CreateObject();
	struct lec__buf context = LEC__BUF_INIT;
	char *ctx, *text = NULL;

	lec__buf_printf(&context, STATUS_CONTEXT ":%s", s->project->slug);
	ctx = lec__buf_take(&context);
	if (o && ctx &&
	    cJSON_AddStringToObject(o, "state",
				    s->forge->states[state]) &&
	    cJSON_AddStringToObject(o, "target_url", target) &&
	    cJSON_AddStringToObject(o, "description", descriptions[state]) &&
	    cJSON_AddStringToObject(o, "context", ctx))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	lec__free(ctx);
	return text;
}

static int insert(struct lec_store *st, const struct source *s,
		  enum lec_commit_status_state state, const char *url,
		  const char *body, const char *target)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO commit_statuses (build_id, integration_id, "
		     "state, url, body, target_url, next_attempt, created, "
		     "modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?7)")) <
	    0)
		return error;
	sqlite3_bind_int64(stmt, 1, s->build->id);
	sqlite3_bind_int64(stmt, 2, s->integration->id);
	sqlite3_bind_int64(stmt, 7, now);
	if ((error = lec_store__bind_text(stmt, 3,
					  state_codes[state])) == LEC_OK &&
	    (error = lec_store__bind_text(stmt, 4, url)) == LEC_OK &&
	    (error = lec_store__bind_text(stmt, 5, body)) == LEC_OK &&
	    (error = lec_store__bind_text(stmt, 6, target)) == LEC_OK)
		error = lec_store__step_done(st, stmt,
					     "queueing a commit status");
	lec_store__finalize(st, stmt);
	return error;
}

int lec_commit_status_queue(struct lec_store *st, int64_t build_id,
			    enum lec_commit_status_state state,
			    const struct lec_commit_status_site *site)
{
	char *target = NULL, *url = NULL, *body = NULL;
	struct source s;
	int error;

	lec_error_clear();
	if ((size_t)state >= LEC__COUNT(state_codes))
		return lec__error(LEC_EINVALID, "no such commit status");
	error = source_load(st, build_id, &s);
	if (error == 1) {
		target = target_of(&s, state, site);
		url = url_of(&s);
		body = target ? body_of(&s, state, target) : NULL;
		error = target && url && body
				? insert(st, &s, state, url, body, target)
				: lec__error_oom();
	}
	if (body)
		cJSON_free(body);
	lec__free(target);
	lec__free(url);
	source_dispose(&s);
	return error;
}

/* Sending ------------------------------------------------------------------ */

void lec_commit_status_outgoing_dispose(struct lec_commit_status_outgoing *out)
{
	if (out == NULL)
		return;
	lec__free(out->url);
	lec__free(out->body);
	if (out->token)
		lec__secret_free(out->token, out->token_len + 1);
	memset(out, 0, sizeof(*out));
}

/* The due status to take: the oldest queued of its build. */
static const char due_sql[] =
	"SELECT s.id, s.integration_id, s.url, s.body, s.attempts, "
	"i.project_id, i.type FROM commit_statuses s JOIN integrations i ON "
	"i.id = s.integration_id WHERE s.delivery = 'queued' AND "
	"s.next_attempt <= ?1 AND NOT EXISTS (SELECT 1 FROM commit_statuses "
	"e WHERE e.build_id = s.build_id AND e.delivery = 'queued' AND "
	"e.id < s.id) ORDER BY s.next_attempt, s.id LIMIT 1";

static int read_due(struct lec_store *st, int64_t now_us,
		    struct lec_commit_status_outgoing *out,
		    struct lec_integration *in)
{
	sqlite3_stmt *stmt = NULL;
	int rc, error;

	if ((error = lec_store__prepare(st, &stmt, due_sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, now_us);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(stmt, 0);
		in->id = sqlite3_column_int64(stmt, 1);
		out->attempt = sqlite3_column_int(stmt, 4) + 1;
		in->project_id = sqlite3_column_int64(stmt, 5);
		error = lec_integration_type_lookup(
			(const char *)sqlite3_column_text(stmt, 6), &in->type);
		out->forge = in->type;
		if (error == LEC_OK &&
		    ((error = lec_store__col_text(stmt, 2, &out->url)) < 0 ||
		     (error = lec_store__col_text(stmt, 3, &out->body)) < 0))
			error = lec__error_oom();
		out->body_len = out->body ? strlen(out->body) : 0;
	} else {
		error = rc == SQLITE_DONE
				? LEC_ENOTFOUND
				: lec_store__sqlerr(st, rc, "reading statuses");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* In lec_store__lease's transaction: the oldest due status, its token
 * opened. */
static int take_due(struct lec_store *st, const struct lec__lease *lease)
{
	int64_t now_us = lease->now_us;
	struct lec_commit_status_outgoing *out = lease->out;
	struct lec_integration in = { 0 };
	int64_t v[3], failed[2];
	int error = read_due(st, now_us, out, &in);

	if (error < 0)
		return error;
	v[0] = out->id;
	v[1] = lease->until_us;
	v[2] = now_us;
	error = lec__integration_token(st, &in, &out->token, &out->token_len);
	if (error < 0) {
		/* A token that does not open (or was removed) never will:
		 * the status fails rather than coming back forever. */
		failed[0] = out->id;
		failed[1] = now_us;
		lec_store__exec_ints(st,
				     "UPDATE commit_statuses SET delivery = "
				     "'failed', error = 'the token cannot be "
				     "read', modified = ?2 WHERE id = ?1",
				     failed, 2, "failing a status", NULL);
		return LEC_ECORRUPT;
	}
	return lec_store__exec_ints(st,
				    "UPDATE commit_statuses SET attempts = "
				    "attempts + 1, next_attempt = ?2, "
				    "modified = ?3 WHERE id = ?1",
				    v, 3, "taking a status", NULL);
}

int lec_commit_status_next(struct lec_store *st, int64_t now_us,
			   unsigned lease_ms,
			   struct lec_commit_status_outgoing *out)
{
	int error = lec_store__lease(st, now_us, lease_ms, take_due, out,
				     sizeof(*out));

	if (error < 0)
		lec_commit_status_outgoing_dispose(out);
	return error;
}

/* Keep the newest finished statuses of the status's integration. */
static int prune(struct lec_store *st, int64_t id)
{
	int64_t v[2] = { id, LEC_COMMIT_STATUSES_KEPT };

	return lec_store__exec_ints(
		st,
		"DELETE FROM commit_statuses WHERE integration_id = "
		"(SELECT integration_id FROM commit_statuses WHERE id = ?1) AND "
		"delivery <> 'queued' AND id NOT IN (SELECT id FROM "
		"commit_statuses WHERE integration_id = (SELECT integration_id "
		"FROM commit_statuses WHERE id = ?1) AND delivery <> 'queued' "
		"ORDER BY id DESC LIMIT ?2)",
		v, 2, "pruning statuses", NULL);
}

int lec_commit_status_done(struct lec_store *st, int64_t id, int status_code,
			   const char *error_text, unsigned backoff_ms)
{
	int64_t now = lec__now_us(), attempts = 0, delay;
	sqlite3_stmt *stmt = NULL;
	const char *delivery = "delivered";
	char *why = NULL;
	int found = 0, error;

	lec_error_clear();
	if ((error = lec_store__query_int(
		     st, "SELECT attempts FROM commit_statuses WHERE id = ?1",
		     &id, 1, "reading a status", &attempts, &found)) < 0)
		return error;
	if (!found)
		return lec__error(LEC_ENOTFOUND, "no commit status %lld",
				  (long long)id);
	delay = 0;
	if (status_code < 200 || status_code >= 300) {
		why = lec__strdup_cut(error_text ? error_text
						 : "failed: the forge did not "
						   "answer 2xx",
				      STATUS_ERROR_MAX);
		delivery = attempts >= LEC_COMMIT_STATUS_ATTEMPTS_MAX
				   ? "failed"
				   : "queued";
		delay = (int64_t)backoff_ms * 1000
			<< (attempts > 0 ? attempts - 1 : 0);
	}
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE commit_statuses SET delivery = ?1, "
		     "status_code = ?2, error = ?3, next_attempt = ?4, "
		     "modified = ?5 WHERE id = ?6")) == LEC_OK) {
		sqlite3_bind_int(stmt, 2, status_code);
		sqlite3_bind_int64(stmt, 4, now + delay);
		sqlite3_bind_int64(stmt, 5, now);
		sqlite3_bind_int64(stmt, 6, id);
		if ((error = lec_store__bind_text(stmt, 1, delivery)) ==
			    LEC_OK &&
		    (error = lec_store__bind_text(stmt, 3, why)) == LEC_OK)
			error = lec_store__step_done(st, stmt,
						     "recording a status");
		lec_store__finalize(st, stmt);
	}
	if (error == LEC_OK && strcmp(delivery, "queued") != 0)
		error = prune(st, id);
	lec__free(why);
	return error;
}
