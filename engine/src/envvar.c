/*
 * Environment variables: validation with the service's messages, the
 * per-project size cap, and sealing of values at rest.
 *
 * Each value is sealed with its project's id as associated data, so a
 * sealed blob copied into another project's row does not open there: a
 * secret cannot be moved to a project whose builds someone else controls.
 * The size checks and the insert run in one write transaction, so two
 * concurrent creates cannot together pass the project cap.
 */
#include <stdio.h>
#include <string.h>

#include "lectern/envvar.h"
#include "secret.h"
#include "store_internal.h"

/* Room for "lectern env_vars project " and any int64. */
#define ENVVAR_AAD_MAX 64

static const char not_found[] =
	"No EnvironmentVariable matches the given query.";

static const struct lec__column envvar_columns[] = {
	LEC__INT64(lec_envvar, id, "id"),
	LEC__INT64(lec_envvar, project_id, "project_id"),
	LEC__TEXT(lec_envvar, name, "name"),
	LEC__BOOL(lec_envvar, is_public, "public"),
	LEC__TIME(lec_envvar, created, "created"),
	LEC__TIME(lec_envvar, modified, "modified"),
};
static const struct lec__row envvar_row =
	LEC__ROW(lec_envvar, envvar_columns, NULL, NULL);
static const struct lec__table envvars = {
	.row = &envvar_row, .from = "env_vars",
	.scope = "project_id = ?", .id = "id = ?",
	.order = "id", .not_found = not_found,
};

/* The associated data binding a sealed value to its project. */
static size_t envvar_aad(int64_t project_id, char buf[ENVVAR_AAD_MAX])
{
	int n = snprintf(buf, ENVVAR_AAD_MAX, "lectern env_vars project %lld",
			 (long long)project_id);

	return n > 0 ? (size_t)n : 0;
}

/* A required, length-limited text field, with DRF's messages. */
static int check_text(const char *field, const char *s, size_t max,
		      size_t *chars)
{
	if (s == NULL)
		return lec__error_required(field);
	if (*s == '\0')
		return lec__error_blank(field);
	*chars = lec__utf8_chars(s);
	if (*chars > max)
		return lec__error_too_long(field, max);
	return LEC_OK;
}

LEC__DEFINE_FREES(lec_envvar, &envvar_row)

static void value_dispose(void *item)
{
	struct lec_envvar_value *v = item;

	lec__free(v->name);
	lec__secret_free(v->value, v->value_len + 1);
}

void lec_envvar_values_dispose(struct lec_envvar_values *values)
{
	if (values == NULL)
		return;
	LEC__ITEMS_FREE(values->items, values->len, value_dispose);
	memset(values, 0, sizeof(*values));
}

/* The one int64 a query returns; a (may be NULL) is bound to its only
 * parameter. */
static int query_int(struct lec_store *st, const char *sql, const int64_t *a,
		     int64_t *out)
{
	return lec_store__query_int(st, sql, a, a ? 1 : 0, "reading variables",
				    out, NULL);
}

/* Inside the write transaction: the project exists and has room. */
static int check_project_room(struct lec_store *st, int64_t project_id,
			      size_t chars)
{
	int64_t used = 0;
	int error;

	if ((error = lec__project_exists(st, project_id)) < 0)
		return error;
	if ((error = query_int(st,
			       "SELECT COALESCE(SUM(value_size), 0) "
			       "FROM env_vars WHERE project_id = ?",
			       &project_id, &used)) < 0)
		return error;
	if ((size_t)used + chars > LEC_ENVVAR_PROJECT_TOTAL_MAX)
		return lec__error(LEC_ELIMIT,
				  "The total size of all environment variables "
				  "in the project cannot exceed 256 KB.");
	return LEC_OK;
}

static int insert_row(struct lec_store *st, int64_t project_id,
		      const char *name, const unsigned char *blob,
		      size_t blob_len, size_t chars, int is_public,
		      int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(st, &stmt,
					"INSERT INTO env_vars (project_id, "
					"name, value, value_size, public, "
					"created, modified) VALUES "
					"(?, ?, ?, ?, ?, ?, ?)")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	if ((error = lec_store__bind_text(stmt, 2, name)) < 0)
		goto done;
	if (sqlite3_bind_blob64(stmt, 3, blob, blob_len, SQLITE_STATIC) !=
	    SQLITE_OK) {
		error = lec__error_oom();
		goto done;
	}
	sqlite3_bind_int64(stmt, 4, (int64_t)chars);
	sqlite3_bind_int(stmt, 5, is_public ? 1 : 0);
	sqlite3_bind_int64(stmt, 6, now);
	sqlite3_bind_int64(stmt, 7, now);
	error = lec_store__step_done(st, stmt, "creating a variable");
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
done:
	lec_store__finalize(st, stmt);
	return error;
}

static int seal_value(struct lec_store *st, int64_t project_id,
		      const char *value, unsigned char **blob,
		      size_t *blob_len)
{
	char aad[ENVVAR_AAD_MAX];

	return lec__secret_seal_stored(st, value, aad,
				       envvar_aad(project_id, aad), blob,
				       blob_len);
}

int lec_envvar_create(struct lec_store *st, int64_t project_id,
		      const char *name, const char *value, int is_public,
		      struct lec_envvar **out)
{
	unsigned char *blob = NULL;
	size_t blob_len = 0, name_chars = 0, chars = 0;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if ((error = check_text("name", name, LEC_ENVVAR_NAME_MAX,
				&name_chars)) < 0 ||
	    (error = check_text("value", value, LEC_ENVVAR_VALUE_MAX,
				&chars)) < 0)
		return error;
	if ((error = seal_value(st, project_id, value, &blob, &blob_len)) < 0)
		return error;
	if ((error = lec_store__begin(st)) < 0)
		goto done;
	if ((error = check_project_room(st, project_id, chars)) < 0 ||
	    (error = insert_row(st, project_id, name, blob, blob_len, chars,
				is_public, &id)) < 0) {
		lec_store__rollback(st);
		goto done;
	}
	if ((error = lec_store__commit(st)) < 0)
		goto done;
	if (out)
		error = lec_envvar_get(st, project_id, id, out);
done:
	lec__free(blob);
	return error;
}

LEC__DEFINE_SCOPED_GET(lec_envvar, &envvars)
LEC__DEFINE_SCOPED_LIST(lec_envvar, &envvars)
LEC__DEFINE_SCOPED_DELETE(lec_envvar, &envvars)

/* Decrypt one row (name, value, public) into v; the key is loaded by the
 * caller on the first row only, so a project without variables needs no
 * key file. */
static int value_row(sqlite3_stmt *stmt, const struct lec__secret_key *key,
		     int64_t project_id, struct lec_envvar_value *v)
{
	char aad[ENVVAR_AAD_MAX];
	int error;

	if ((error = lec_store__col_text(stmt, 0, &v->name)) < 0)
		return error;
	v->is_public = sqlite3_column_int(stmt, 2);
	return lec__secret_open(key, sqlite3_column_blob(stmt, 1),
				(size_t)sqlite3_column_bytes(stmt, 1), aad,
				envvar_aad(project_id, aad), &v->value,
				&v->value_len);
}

/* Append a zeroed slot to values. */
static struct lec_envvar_value *values_grow(struct lec_envvar_values *values,
					    size_t *cap)
{
	if (values->len == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct lec_envvar_value *n =
			lec__realloc(values->items, ncap * sizeof(*n));

		if (n == NULL)
			return NULL;
		values->items = n;
		*cap = ncap;
	}
	memset(&values->items[values->len], 0, sizeof(values->items[0]));
	return &values->items[values->len++];
}

int lec_envvar_values(struct lec_store *st, int64_t project_id,
		      int public_only, struct lec_envvar_values *out)
{
	struct lec__secret_key key;
	struct lec_envvar_value *v;
	sqlite3_stmt *stmt = NULL;
	size_t cap = 0;
	int error, rc, have_key = 0;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT name, value, public FROM "
					"env_vars WHERE project_id = ? AND "
					"public >= ? ORDER BY id")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	sqlite3_bind_int(stmt, 2, public_only ? 1 : 0);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (!have_key &&
		    (error = lec__secret_key_load(st, 0, &key)) < 0)
			goto done;
		have_key = 1;
		if ((v = values_grow(out, &cap)) == NULL) {
			error = lec__error_oom();
			goto done;
		}
		if ((error = value_row(stmt, &key, project_id, v)) < 0)
			goto done;
	}
	if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "reading variables");
done:
	lec_store__finalize(st, stmt);
	if (have_key)
		lec__secret_key_wipe(&key);
	if (error < 0)
		lec_envvar_values_dispose(out);
	return error;
}
