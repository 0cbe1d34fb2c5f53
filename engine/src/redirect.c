/*
 * User redirects: the type table, validation with the service's messages,
 * normalisation, and position bookkeeping (see lectern/redirect.h for the
 * rules). A create or update is validated field by field first (no store
 * access), then normalised, then checked against the project's other
 * redirects and written inside one write transaction, so concurrent
 * writers can neither exceed the limit nor leave positions inconsistent.
 */
#include <string.h>

#include "lectern/redirect.h"
#include "store_internal.h"

static const char not_found[] = "No Redirect matches the given query.";

/* Every accepted spelling (decision table of the behaviour notes). */
static const struct {
	const char *name;
	enum lec_redirect_kind kind;
	int legacy;
} redirect_types[] = {
	{ "prefix", LEC_REDIRECT_PREFIX, 1 },
	{ "page", LEC_REDIRECT_PAGE, 0 },
	{ "exact", LEC_REDIRECT_EXACT, 0 },
	{ "clean_url_to_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 0 },
	{ "docgen_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 1 },
	{ "sphinx_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 1 },
	{ "html_to_clean_url", LEC_REDIRECT_HTML_TO_CLEAN_URL, 0 },
	{ "docgen_htmldir", LEC_REDIRECT_HTML_TO_CLEAN_URL, 1 },
	{ "sphinx_htmldir", LEC_REDIRECT_HTML_TO_CLEAN_URL, 1 },
};

#define REDIRECT_TYPE_COUNT                                                  \
	(sizeof(redirect_types) / sizeof(redirect_types[0]))

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Fill out for a known spelling: LEC_OK, or LEC_ERROR (no message set:
 * each caller words its own). */
static int lookup_type(const char *type, const char *from_url,
		       struct lec_redirect_semantics *out)
{
	size_t i;

	for (i = 0; type && i < REDIRECT_TYPE_COUNT; i++) {
		if (strcmp(type, redirect_types[i].name) != 0)
			continue;
		out->kind = redirect_types[i].kind;
		out->legacy = redirect_types[i].legacy;
		if (out->kind == LEC_REDIRECT_EXACT && from_url &&
		    ends_with(from_url, "$rest"))
			out->legacy = 1;
		return LEC_OK;
	}
	return LEC_ERROR;
}

int lec_redirect_semantics_of(const char *type, const char *from_url,
			      struct lec_redirect_semantics *out)
{
	lec_error_clear();
	if (lookup_type(type, from_url, out) < 0)
		return lec__error(LEC_EINVALID, "unknown redirect type '%s'",
				  type ? type : "");
	return LEC_OK;
}

static int has_urls(enum lec_redirect_kind kind)
{
	return kind == LEC_REDIRECT_PREFIX || kind == LEC_REDIRECT_PAGE ||
	       kind == LEC_REDIRECT_EXACT;
}

static int is_clean_kind(enum lec_redirect_kind kind)
{
	return kind == LEC_REDIRECT_CLEAN_URL_TO_HTML ||
	       kind == LEC_REDIRECT_HTML_TO_CLEAN_URL;
}

/* Rows ---------------------------------------------------------------- */

static const struct lec__column redirect_columns[] = {
	LEC__INT64(lec_redirect, id, "id"),
	LEC__INT64(lec_redirect, project_id, "project_id"),
	LEC__TEXT(lec_redirect, type, "type"),
	LEC__TEXT(lec_redirect, from_url, "from_url"),
	LEC__TEXT(lec_redirect, to_url, "to_url"),
	LEC__TEXT_OPT(lec_redirect, from_url_without_rest,
		      "from_url_without_rest"),
	LEC__INT(lec_redirect, http_status, "http_status"),
	LEC__INT(lec_redirect, enabled, "enabled"),
	LEC__INT(lec_redirect, force, "force"),
	LEC__TEXT(lec_redirect, description, "description"),
	LEC__INT64(lec_redirect, position, "position"),
	LEC__TIME(lec_redirect, created, "created"),
	LEC__TIME(lec_redirect, modified, "modified"),
};
static const struct lec__row redirect_row =
	LEC__ROW(lec_redirect, redirect_columns, NULL, NULL);
/* Lowest position first; among equals the most recently changed. */
static const struct lec__table redirects = {
	.row = &redirect_row, .from = "redirects",
	.scope = "project_id = ?", .id = "id = ?",
	.order = "position ASC, modified DESC, id DESC", .not_found = not_found,
};

LEC__DEFINE_FREES(lec_redirect, &redirect_row)

/* Draft: the merged fields of a create or update ------------------------ */

struct draft {
	/* borrowed from the patch or the stored redirect */
	const char *type;
	const char *from_url;
	const char *to_url;
	const char *description;
	int http_status;
	int enabled;
	int force;
	int move; /* non-zero: a position was given */
	int64_t position;
	/* set by draft_normalise, owned */
	struct lec_redirect_semantics sem;
	char *norm_from;
	char *norm_to;
	char *without_rest;
};

static void draft_defaults(struct draft *d)
{
	memset(d, 0, sizeof(*d));
	d->description = "";
	d->http_status = LEC_REDIRECT_DEFAULT_STATUS;
	d->enabled = 1;
	d->move = 1; /* a new redirect always takes a position */
}

static void draft_from_stored(struct draft *d, const struct lec_redirect *r)
{
	memset(d, 0, sizeof(*d));
	d->type = r->type;
	d->from_url = r->from_url;
	d->to_url = r->to_url;
	d->description = r->description;
	d->http_status = r->http_status;
	d->enabled = r->enabled;
	d->force = r->force;
	d->position = r->position;
}

static void draft_apply(struct draft *d, const struct lec_redirect_patch *p)
{
	if (p == NULL)
		return;
	if (p->type)
		d->type = p->type;
	if (p->from_url)
		d->from_url = p->from_url;
	if (p->to_url)
		d->to_url = p->to_url;
	if (p->description)
		d->description = p->description;
	if (p->has_http_status)
		d->http_status = p->http_status;
	if (p->has_enabled)
		d->enabled = p->enabled ? 1 : 0;
	if (p->has_force)
		d->force = p->force ? 1 : 0;
	if (p->has_position) {
		d->move = 1;
		d->position = p->position;
	}
}

static void draft_dispose(struct draft *d)
{
	lec__free(d->norm_from);
	lec__free(d->norm_to);
	lec__free(d->without_rest);
}

/* Field-level checks, in the order the API lists the fields. A URL is
 * missing only when not given: "" is a value (normalised to "/"). */
static int draft_check_fields(struct draft *d)
{
	if (d->type == NULL)
		return lec__error_required("type");
	if (lookup_type(d->type, NULL, &d->sem) < 0)
		return lec__error_field(LEC_EINVALID, "type",
					"\"%s\" is not a valid choice.",
					d->type);
	if (has_urls(d->sem.kind) && d->from_url == NULL)
		return lec__error_required("from_url");
	if ((d->sem.kind == LEC_REDIRECT_PAGE ||
	     d->sem.kind == LEC_REDIRECT_EXACT) &&
	    d->to_url == NULL)
		return lec__error_required("to_url");
	if (d->http_status != 301 && d->http_status != 302)
		return lec__error_field(LEC_EINVALID, "http_status",
					"\"%d\" is not a valid choice.",
					d->http_status);
	if (d->move && d->position < 0)
		return lec__error_field(LEC_EINVALID, "position",
					"Ensure this value is greater than or "
					"equal to 0.");
	return LEC_OK;
}

/* "/" followed by s without its leading slashes (and, unless
 * keep_trailing, without its trailing slashes): "" and "/" give "/". */
static char *norm_path(const char *s, int keep_trailing)
{
	size_t n = strlen(s);
	char *out;

	if (!keep_trailing)
		while (n > 0 && s[n - 1] == '/')
			n--;
	while (n > 0 && *s == '/') {
		s++;
		n--;
	}
	out = lec__malloc(n + 2);
	if (out == NULL)
		return NULL;
	out[0] = '/';
	memcpy(out + 1, s, n);
	out[n + 1] = '\0';
	return out;
}

static char *norm_to_url(const char *s)
{
	if (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0)
		return lec__strdup(s);
	return norm_path(s, 1);
}

/* The part of from before a trailing "*" (or a legacy exact's "$rest"),
 * or NULL when there is none. */
static int wildcard_prefix(const struct draft *d, char **out)
{
	const char *from = d->norm_from;
	size_t n = strlen(from);

	*out = NULL;
	if (d->sem.kind != LEC_REDIRECT_PAGE &&
	    d->sem.kind != LEC_REDIRECT_EXACT)
		return LEC_OK;
	if (ends_with(from, "*"))
		*out = lec__strndup(from, n - 1);
	else if (d->sem.kind == LEC_REDIRECT_EXACT && ends_with(from, "$rest"))
		*out = lec__strndup(from, n - strlen("$rest"));
	else
		return LEC_OK;
	LEC__CHECK_ALLOC(*out);
	return LEC_OK;
}

static int draft_normalise(struct draft *d)
{
	const char *to = d->to_url ? d->to_url : "";

	if (!has_urls(d->sem.kind)) {
		d->norm_from = lec__strdup("");
		d->norm_to = lec__strdup("");
	} else if (d->sem.kind == LEC_REDIRECT_PREFIX) {
		d->norm_from = norm_path(d->from_url, 1);
		d->norm_to = *to ? norm_to_url(to) : lec__strdup("");
	} else {
		d->norm_from = norm_path(d->from_url, 0);
		d->norm_to = norm_to_url(to);
	}
	if (d->norm_from == NULL || d->norm_to == NULL)
		return lec__error_oom();
	/* The stored from_url decides legacy exact. */
	lookup_type(d->type, d->norm_from, &d->sem);
	return wildcard_prefix(d, &d->without_rest);
}

/* The service's wildcard rules for page and exact (validators.py). */
static int draft_check_wildcards(const struct draft *d)
{
	const char *star;

	if (d->sem.kind != LEC_REDIRECT_PAGE &&
	    d->sem.kind != LEC_REDIRECT_EXACT)
		return LEC_OK;
	if (d->sem.kind == LEC_REDIRECT_PAGE &&
	    ends_with(d->norm_from, "$rest"))
		return lec__error(LEC_EINVALID,
				  "The $rest wildcard has been removed in "
				  "favor of *.");
	star = strchr(d->norm_from, '*');
	if (star && star[1] != '\0')
		return lec__error(LEC_EINVALID,
				  "The * wildcard must be at the end of the "
				  "path.");
	if (strstr(d->norm_to, ":splat") && !ends_with(d->norm_from, "*"))
		return lec__error(LEC_EINVALID,
				  "The * wildcard must be at the end of "
				  "from_url to use the :splat placeholder in "
				  "to_url.");
	return LEC_OK;
}

/* Store helpers ---------------------------------------------------------- */

/* Run sql binding ?1..?n to the integers v; it must return no rows. */
static int exec_ints(struct lec_store *st, const char *sql, const int64_t *v,
		     int n, const char *what)
{
	return lec_store__exec_ints(st, sql, v, n, what, NULL);
}

/* The one integer a one-parameter query returns. */
static int query_int(struct lec_store *st, const char *sql, int64_t a,
		     int64_t *out)
{
	return lec_store__query_int(st, sql, &a, 1, "reading redirects", out,
				    NULL);
}

static int count_redirects(struct lec_store *st, int64_t project_id,
			   int64_t *count)
{
	return query_int(st,
			 "SELECT count(*) FROM redirects WHERE project_id = ?",
			 project_id, count);
}

/* Add delta to the positions in [lo, hi] of a project, except row skip. */
static int shift_positions(struct lec_store *st, int64_t project_id,
			   int64_t delta, int64_t lo, int64_t hi, int64_t skip)
{
	const int64_t v[] = { delta, project_id, lo, hi, skip };

	return exec_ints(st,
			 "UPDATE redirects SET position = position + ?1 "
			 "WHERE project_id = ?2 AND position >= ?3 AND "
			 "position <= ?4 AND id <> ?5",
			 v, 5, "moving redirects");
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Only one clean-URL-to-html and one html-to-clean-URL redirect per
 * project, whatever their spelling. */
static int check_unique_kind(struct lec_store *st, int64_t project_id,
			     int64_t self, const struct draft *d)
{
	struct lec_redirect_semantics other;
	sqlite3_stmt *stmt = NULL;
	int error, rc, clash = 0;

	if (!is_clean_kind(d->sem.kind))
		return LEC_OK;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT type FROM redirects WHERE "
					"project_id = ? AND id <> ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	sqlite3_bind_int64(stmt, 2, self);
	while (!clash && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
		clash = lookup_type((const char *)sqlite3_column_text(stmt, 0),
				    NULL, &other) == LEC_OK &&
			other.kind == d->sem.kind;
	if (!clash && rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "reading redirects");
	lec_store__finalize(st, stmt);
	if (clash)
		error = lec__error(LEC_EINVALID,
				   "Only one redirect of type `%s` is allowed "
				   "per project.",
				   d->sem.kind == LEC_REDIRECT_CLEAN_URL_TO_HTML
					   ? "clean_url_to_html"
					   : "html_to_clean_url");
	return error;
}

/* Bind the draft's stored columns as ?1..?9 (type .. position). */
static int bind_draft(sqlite3_stmt *stmt, const struct draft *d)
{
	int error;

	if ((error = lec_store__bind_text(stmt, 1, d->type)) < 0 ||
	    (error = lec_store__bind_text(stmt, 2, d->norm_from)) < 0 ||
	    (error = lec_store__bind_text(stmt, 3, d->without_rest)) < 0 ||
	    (error = lec_store__bind_text(stmt, 4, d->norm_to)) < 0 ||
	    (error = lec_store__bind_text(stmt, 8, d->description)) < 0)
		return error;
	sqlite3_bind_int(stmt, 5, d->http_status);
	sqlite3_bind_int(stmt, 6, d->enabled);
	sqlite3_bind_int(stmt, 7, d->force);
	sqlite3_bind_int64(stmt, 9, d->position);
	return LEC_OK;
}

/* Create ------------------------------------------------------------------ */

static int insert_locked(struct lec_store *st, int64_t project_id,
			 struct draft *d, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t count = 0, now = lec__now_us();
	int error;

	if ((error = lec__project_exists(st, project_id)) < 0)
		return error;
	if ((error = count_redirects(st, project_id, &count)) < 0)
		return error;
	if (count >= LEC_REDIRECT_MAX_PER_PROJECT)
		return lec__error(LEC_ELIMIT,
				  "This project has reached the limit of %d "
				  "redirects. Consider replacing some of your "
				  "redirects with a wildcard redirect.",
				  LEC_REDIRECT_MAX_PER_PROJECT);
	if ((error = draft_check_wildcards(d)) < 0 ||
	    (error = check_unique_kind(st, project_id, 0, d)) < 0)
		return error;
	d->position = clamp(d->position, 0, count);
	if ((error = shift_positions(st, project_id, 1, d->position,
				     INT64_MAX, 0)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"INSERT INTO redirects (type, from_url, "
					"from_url_without_rest, to_url, "
					"http_status, enabled, force, "
					"description, position, project_id, "
					"created, modified) VALUES (?1, ?2, "
					"?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
					"?11)")) < 0)
		return error;
	if ((error = bind_draft(stmt, d)) == LEC_OK) {
		sqlite3_bind_int64(stmt, 10, project_id);
		sqlite3_bind_int64(stmt, 11, now);
		error = lec_store__step_done(st, stmt, "creating a redirect");
		*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
	}
	lec_store__finalize(st, stmt);
	return error;
}

int lec_redirect_create(struct lec_store *st, int64_t project_id,
			const struct lec_redirect_patch *fields,
			struct lec_redirect **out)
{
	struct draft d;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	draft_defaults(&d);
	draft_apply(&d, fields);
	if ((error = draft_check_fields(&d)) < 0 ||
	    (error = draft_normalise(&d)) < 0 ||
	    (error = lec_store__begin(st)) < 0)
		goto done;
	error = lec_store__end(st, insert_locked(st, project_id, &d, &id));
	if (error == LEC_OK && out)
		error = lec_redirect_get(st, project_id, id, out);
done:
	draft_dispose(&d);
	return error;
}

/* Read ------------------------------------------------------------------- */

LEC__DEFINE_SCOPED_GET(lec_redirect, &redirects)
LEC__DEFINE_SCOPED_LIST(lec_redirect, &redirects)

int lec_redirect_list_enabled(struct lec_store *st, int64_t project_id,
			      struct lec_redirect_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &redirects);
	lec__query_where_int(&q, "project_id = ?", project_id);
	lec__query_where(&q, "enabled = 1");
	return lec__table_rows(st, &redirects, &q, NULL, (void **)&out->items,
			       &out->len, &out->total);
}

/* Update and delete -------------------------------------------------------- */

/* Move a stored redirect from old to the draft's (clamped) position. */
static int move_locked(struct lec_store *st, int64_t project_id, int64_t id,
		       int64_t old, struct draft *d)
{
	int64_t count = 0;
	int error;

	if ((error = count_redirects(st, project_id, &count)) < 0)
		return error;
	d->position = clamp(d->position, 0, count - 1);
	if (d->position > old)
		return shift_positions(st, project_id, -1, old + 1,
				       d->position, id);
	if (d->position < old)
		return shift_positions(st, project_id, 1, d->position,
				       old - 1, id);
	return LEC_OK;
}

static int update_locked(struct lec_store *st, const struct lec_redirect *cur,
			 struct draft *d)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = draft_check_wildcards(d)) < 0 ||
	    (error = check_unique_kind(st, cur->project_id, cur->id, d)) < 0 ||
	    (error = move_locked(st, cur->project_id, cur->id, cur->position,
				 d)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"UPDATE redirects SET type = ?1, "
					"from_url = ?2, "
					"from_url_without_rest = ?3, "
					"to_url = ?4, http_status = ?5, "
					"enabled = ?6, force = ?7, "
					"description = ?8, position = ?9, "
					"modified = ?10 WHERE id = ?11")) < 0)
		return error;
	if ((error = bind_draft(stmt, d)) == LEC_OK) {
		sqlite3_bind_int64(stmt, 10, lec__now_us());
		sqlite3_bind_int64(stmt, 11, cur->id);
		error = lec_store__step_done(st, stmt, "updating a redirect");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Merge, check and normalise a patch over the stored redirect. */
static int update_prepare(const struct lec_redirect *cur,
			  const struct lec_redirect_patch *patch,
			  struct draft *d)
{
	int error;

	draft_from_stored(d, cur);
	draft_apply(d, patch);
	if ((error = draft_check_fields(d)) < 0)
		return error;
	if (!d->move)
		d->position = cur->position;
	return draft_normalise(d);
}

int lec_redirect_update(struct lec_store *st, int64_t project_id,
			int64_t id, const struct lec_redirect_patch *patch,
			struct lec_redirect **out)
{
	struct lec_redirect *cur = NULL;
	struct draft d;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	memset(&d, 0, sizeof(d));
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec_redirect_get(st, project_id, id, &cur)) < 0 ||
	    (error = update_prepare(cur, patch, &d)) < 0) {
		lec_store__rollback(st);
		goto done;
	}
	error = lec_store__end(st, update_locked(st, cur, &d));
	if (error == LEC_OK && out)
		error = lec_redirect_get(st, project_id, id, out);
done:
	draft_dispose(&d);
	lec_redirect_free(cur);
	return error;
}

int lec_redirect_delete(struct lec_store *st, int64_t project_id, int64_t id)
{
	struct lec_redirect *cur = NULL;
	const int64_t v[] = { id };
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = lec_redirect_get(st, project_id, id, &cur)) == LEC_OK &&
	    (error = exec_ints(st, "DELETE FROM redirects WHERE id = ?1", v, 1,
			       "deleting a redirect")) == LEC_OK)
		error = shift_positions(st, project_id, -1, cur->position + 1,
					INT64_MAX, 0);
	error = lec_store__end(st, error);
	lec_redirect_free(cur);
	return error;
}
