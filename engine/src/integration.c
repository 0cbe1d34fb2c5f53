/*
 * Integrations: their rows and sealed secrets, the checks of a delivery's
 * signature or token, and the builds a push asks for.
 *
 * A secret is sealed with its project's id as associated data, like an
 * environment variable's value, so a sealed blob copied into another
 * project's row does not open there. Verification opens it, compares in
 * constant time, and wipes the plaintext before returning.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "lectern/build.h"
#include "lectern/integration.h"
#include "lectern/version.h"
#include "secret.h"
#include "store_internal.h"

/* Room for "lectern integrations project " and any int64. */
#define INTEGRATION_AAD_MAX 64

/* "sha256=" and 64 hex digits. */
#define SIGNATURE_PREFIX "sha256="
#define SIGNATURE_LEN (sizeof(SIGNATURE_PREFIX) - 1 + 2 * 32)

static const char not_found[] = "No Integration matches the given query.";

/* The type codes, in enum order. */
static const char *const type_codes[] = { "github_webhook", "gitlab_webhook",
					  "bitbucket_webhook", "api_webhook" };

const char *lec_integration_type_code(enum lec_integration_type type)
{
	return (size_t)type < sizeof(type_codes) / sizeof(type_codes[0])
		       ? type_codes[type]
		       : "api_webhook";
}

int lec_integration_type_lookup(const char *code,
				enum lec_integration_type *out)
{
	size_t i;

	lec_error_clear();
	for (i = 0; code && i < sizeof(type_codes) / sizeof(type_codes[0]); i++)
		if (strcmp(code, type_codes[i]) == 0) {
			*out = (enum lec_integration_type)i;
			return LEC_OK;
		}
	return lec__error_field(LEC_EINVALID, "integration_type",
				"\"%s\" is not a valid choice.",
				code ? code : "");
}

/* Rows ---------------------------------------------------------------------- */

static size_t integration_aad(int64_t project_id,
			      char buf[INTEGRATION_AAD_MAX])
{
	int n = snprintf(buf, INTEGRATION_AAD_MAX,
			 "lectern integrations project %lld",
			 (long long)project_id);

	return n > 0 ? (size_t)n : 0;
}

/* A type no code names is damage (the table's CHECK allows none). */
static int read_type(sqlite3_stmt *stmt, int col, void *item)
{
	struct lec_integration *in = item;
	enum lec_integration_type type;

	if (lec_integration_type_lookup(
		    (const char *)sqlite3_column_text(stmt, col), &type) < 0)
		return lec__error(LEC_ECORRUPT,
				  "integration %lld has an unknown type",
				  (long long)in->id);
	in->type = type;
	return LEC_OK;
}

static const struct lec__column integration_columns[] = {
	LEC__INT64(lec_integration, id, "id"),
	LEC__INT64(lec_integration, project_id, "project_id"),
	LEC__READ("type", read_type),
	LEC__TIME(lec_integration, created, "created"),
};
static const struct lec__row integration_row =
	LEC__ROW(lec_integration, integration_columns, NULL, NULL);
static const struct lec__table integrations = {
	.row = &integration_row, .from = "integrations",
	.scope = "project_id = ?", .id = "id = ?",
	.order = "id", .not_found = not_found,
};

LEC__DEFINE_FREES(lec_integration, &integration_row)

static int insert(struct lec_store *st, int64_t project_id,
		  enum lec_integration_type type, const unsigned char *blob,
		  size_t blob_len, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec__project_exists(st, project_id)) < 0)
		return error;
	if ((error = lec_store__prepare(st, &stmt,
					"INSERT INTO integrations (project_id, "
					"type, secret, created) VALUES "
					"(?, ?, ?, ?)")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	sqlite3_bind_text(stmt, 2, lec_integration_type_code(type), -1,
			  SQLITE_STATIC);
	sqlite3_bind_blob(stmt, 3, blob, (int)blob_len, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, lec__now_us());
	error = lec_store__step_done(st, stmt, "creating an integration");
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
	lec_store__finalize(st, stmt);
	return error;
}

int lec_integration_create(struct lec_store *st, int64_t project_id,
			   enum lec_integration_type type, const char *secret,
			   struct lec_integration **out, char **secret_out)
{
	char aad[INTEGRATION_AAD_MAX];
	unsigned char *blob = NULL;
	size_t blob_len = 0;
	char *made = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (secret_out)
		*secret_out = NULL;
	error = lec__secret_seal_new(st, secret, LEC_INTEGRATION_SECRET_MAX,
				     LEC_INTEGRATION_SECRET_LEN, aad,
				     integration_aad(project_id, aad), &blob,
				     &blob_len, secret_out ? &made : NULL);
	if (error == LEC_OK)
		error = insert(st, project_id, type, blob, blob_len, &id);
	if (error == LEC_OK && out)
		error = lec_integration_get(st, project_id, id, out);
	if (error == LEC_OK && secret_out) {
		*secret_out = made;
		made = NULL;
	}
	lec__secret_free(made, made ? strlen(made) : 0);
	lec__free(blob);
	return error;
}

LEC__DEFINE_SCOPED_LIST(lec_integration, &integrations)
LEC__DEFINE_SCOPED_GET(lec_integration, &integrations)

int lec_integration_find(struct lec_store *st, int64_t project_id,
			 enum lec_integration_type type,
			 struct lec_integration **out)
{
	struct lec__query q;

	lec_error_clear();
	*out = NULL;
	lec__table_query(&q, &integrations);
	lec__query_where_int(&q, "project_id = ?", project_id);
	lec__query_where_text(&q, "type = ?", lec_integration_type_code(type));
	lec__query_where(&q, "id = (SELECT min(id) FROM integrations i2 "
			     "WHERE i2.project_id = integrations.project_id "
			     "AND i2.type = integrations.type)");
	return lec__table_one(st, &integrations, &q, (void **)out);
}

LEC__DEFINE_SCOPED_DELETE(lec_integration, &integrations)

/* Verifying ------------------------------------------------------------------ */

/* The integration's secret, opened (free with lec__secret_free(*secret,
 * *len + 1)). */
static int open_secret(struct lec_store *st, const struct lec_integration *in,
		       char **secret, size_t *len)
{
	struct lec__secret_key key;
	char aad[INTEGRATION_AAD_MAX];
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*secret = NULL;
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT secret FROM integrations "
					"WHERE id = ?")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, in->id);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		error = rc == SQLITE_DONE
				? lec__error(LEC_ENOTFOUND, "%s", not_found)
				: lec_store__sqlerr(st, rc,
						    "reading an integration");
	} else if ((error = lec__secret_key_load(st, 0, &key)) == LEC_OK) {
		error = lec__secret_open(
			&key, sqlite3_column_blob(stmt, 0),
			(size_t)sqlite3_column_bytes(stmt, 0), aad,
			integration_aad(in->project_id, aad), secret, len);
		lec__secret_key_wipe(&key);
	}
	lec_store__finalize(st, stmt);
	return error;
}

int lec_integration_verify_signature(struct lec_store *st,
				     const struct lec_integration *in,
				     const void *body, size_t len,
				     const char *signature)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	char expected[SIGNATURE_LEN + 1];
	unsigned int mac_len = 0;
	size_t secret_len = 0;
	char *secret = NULL;
	int error;

	lec_error_clear();
	if (signature == NULL || strlen(signature) != SIGNATURE_LEN)
		return lec__error(LEC_EAUTH, "invalid or missing signature");
	if ((error = open_secret(st, in, &secret, &secret_len)) < 0)
		return error;
	if (HMAC(EVP_sha256(), secret, (int)secret_len,
		 body ? body : (const void *)"", len, mac, &mac_len) == NULL)
		error = lec__error(LEC_ERROR, "cannot compute a signature");
	lec__secret_free(secret, secret_len + 1);
	if (error < 0)
		return error;
	memcpy(expected, SIGNATURE_PREFIX, sizeof(SIGNATURE_PREFIX) - 1);
	lec__hex(mac, mac_len, expected + sizeof(SIGNATURE_PREFIX) - 1);
	if (CRYPTO_memcmp(expected, signature, SIGNATURE_LEN) != 0)
		return lec__error(LEC_EAUTH, "invalid or missing signature");
	return LEC_OK;
}

int lec_integration_verify_token(struct lec_store *st,
				 const struct lec_integration *in,
				 const char *token)
{
	size_t secret_len = 0, n = token ? strlen(token) : 0;
	char *secret = NULL;
	int error, same;

	lec_error_clear();
	if (n == 0)
		return lec__error(LEC_EAUTH, "invalid or missing token");
	if ((error = open_secret(st, in, &secret, &secret_len)) < 0)
		return error;
	/* The length is no secret worth hiding: generated ones are fixed. */
	same = n == secret_len && CRYPTO_memcmp(secret, token, n) == 0;
	lec__secret_free(secret, secret_len + 1);
	return same ? LEC_OK
		    : lec__error(LEC_EAUTH, "invalid or missing token");
}

/* Deliveries -------------------------------------------------------------------- */

void lec_integration_builds_dispose(struct lec_integration_builds *builds)
{
	if (builds == NULL)
		return;
	lec__strings_free(builds->slugs, builds->len);
	memset(builds, 0, sizeof(*builds));
}

/* Whether a ref names the version: a branch by the branch it follows, a
 * tag by its name. */
static int ref_names(const struct lec_integration_ref *ref,
		     const struct lec_version *v)
{
	int branch = v->type == LEC_VERSION_BRANCH && v->identifier &&
		     strcmp(v->identifier, ref->name) == 0;
	int tag = v->type == LEC_VERSION_TAG &&
		  strcmp(v->verbose_name, ref->name) == 0;

	switch (ref->type) {
	case LEC_INTEGRATION_REF_BRANCH:
		return branch;
	case LEC_INTEGRATION_REF_TAG:
		return tag;
	case LEC_INTEGRATION_REF_ANY:
	default:
		return branch || tag;
	}
}

/* Whether the version's newest unfinished build will build commit (see
 * lec_integration_build_refs). */
static int pending_build_covers(struct lec_store *st, int64_t version_id,
				const char *commit, int64_t since_us)
{
	sqlite3_stmt *stmt = NULL;
	int covers = 0;

	if (lec_store__prepare(st, &stmt,
			       "SELECT state, commit_sha, created FROM builds "
			       "WHERE version_id = ? AND state NOT IN "
			       "('finished', 'cancelled') ORDER BY id DESC "
			       "LIMIT 1") < 0)
		return -1;
	sqlite3_bind_int64(stmt, 1, version_id);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(stmt, 0);
		const char *sha = (const char *)sqlite3_column_text(stmt, 1);

		covers = (state && strcmp(state, "triggered") == 0) ||
			 (sha && commit && strcmp(sha, commit) == 0) ||
			 (sha == NULL && since_us &&
			  sqlite3_column_int64(stmt, 2) >= since_us);
	}
	lec_store__finalize(st, stmt);
	return covers;
}

/* Build the version unless a pending build covers the ref. */
static int build_version(struct lec_store *st, const struct lec_version *v,
			 const char *commit, int64_t since_us, const char *how)
{
	int covers = pending_build_covers(st, v->id, commit, since_us);
	struct lec_build *b = NULL;
	int error;

	if (covers < 0)
		return lec_error_last_code();
	if (covers)
		return LEC_OK;
	error = lec_build_trigger(st, v->project_id, v->id, NULL, &b, NULL);
	if (error == LEC_OK)
		error = lec_build_set_triggered_by(st, b->id, how);
	lec_build_free(b);
	return error;
}

static int builds_add(struct lec_integration_builds *out, const char *slug)
{
	char **grown = lec__realloc(out->slugs,
				    (out->len + 1) * sizeof(*grown));

	LEC__CHECK_ALLOC(grown);
	out->slugs = grown;
	if ((grown[out->len] = lec__strdup(slug)) == NULL)
		return lec__error_oom();
	out->len++;
	return LEC_OK;
}

int lec_integration_build_refs(struct lec_store *st, int64_t project_id,
			       const struct lec_integration_ref *refs,
			       size_t n, int64_t since_us, const char *how,
			       struct lec_integration_builds *out)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list versions = { 0 };
	size_t i, r;
	int error;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	if (n > LEC_INTEGRATION_REFS_MAX)
		return lec__error_field(LEC_EINVALID, "branches",
					"At most %d branches.",
					LEC_INTEGRATION_REFS_MAX);
	filter.active = LEC_FILTER_TRUE;
	if ((error = lec_version_list(st, project_id, &filter, NULL,
				      &versions)) < 0)
		return error;
	for (i = 0; error == LEC_OK && i < versions.len; i++) {
		for (r = 0; r < n && !ref_names(&refs[r], &versions.items[i]);
		     r++)
			;
		if (r < n &&
		    (error = build_version(st, &versions.items[i],
					   refs[r].commit, since_us, how)) ==
			    LEC_OK)
			error = builds_add(out, versions.items[i].slug);
	}
	lec_version_list_dispose(&versions);
	if (error < 0)
		lec_integration_builds_dispose(out);
	return error;
}
