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
#include "integration_internal.h"
#include "secret.h"
#include "store_internal.h"

/* Room for "lectern integration tokens project " and any int64. */
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

/* What a sealed value is bound to: its project, and whether it is the
 * secret or the forge token (so one cannot be copied over the other). */
static size_t integration_aad(int64_t project_id, int token,
			      char buf[INTEGRATION_AAD_MAX])
{
	int n = snprintf(buf, INTEGRATION_AAD_MAX, "lectern %s project %lld",
			 token ? "integration tokens" : "integrations",
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
	LEC__BOOL(lec_integration, has_token, "token IS NOT NULL"),
	LEC__TEXT_OPT(lec_integration, api_url, "api_url"),
	LEC__TEXT_OPT(lec_integration, forge_repo, "forge_repo"),
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
	struct lec__new_secret ns;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (secret_out)
		*secret_out = NULL;
	error = lec__secret_seal_new(st, secret, LEC_INTEGRATION_SECRET_MAX,
				     LEC_INTEGRATION_SECRET_LEN, aad,
				     integration_aad(project_id, 0, aad),
				     secret_out != NULL, &ns);
	if (error == LEC_OK)
		error = insert(st, project_id, type, ns.blob, ns.blob_len, &id);
	if (error == LEC_OK && out)
		error = lec_integration_get(st, project_id, id, out);
	lec__new_secret_end(&ns, error, secret_out);
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

static const char *const sealed_columns[] = {
	"SELECT secret FROM integrations WHERE id = ?",
	"SELECT token FROM integrations WHERE id = ? AND token IS NOT NULL",
};

/* The integration's secret (token 0) or forge token (1), opened (free
 * with lec__secret_free(*secret, *len + 1)). */
static int open_sealed(struct lec_store *st, const struct lec_integration *in,
		       int token, char **secret, size_t *len)
{
	struct lec__secret_key key;
	char aad[INTEGRATION_AAD_MAX];
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*secret = NULL;
	if ((error = lec_store__prepare(st, &stmt, sealed_columns[token])) < 0)
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
			integration_aad(in->project_id, token, aad), secret,
			len);
		lec__secret_key_wipe(&key);
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int open_secret(struct lec_store *st, const struct lec_integration *in,
		       char **secret, size_t *len)
{
	return open_sealed(st, in, 0, secret, len);
}

int lec__integration_token(struct lec_store *st,
			   const struct lec_integration *in, char **token,
			   size_t *len)
{
	return open_sealed(st, in, 1, token, len);
}

/* 1 to max printable ASCII characters, no space: what a header (a
 * token) or a URL can carry as it is. */
static int printable(const char *s, size_t max)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n && s[i] > ' ' && s[i] < 0x7f; i++)
		;
	return n > 0 && n <= max && i == n;
}

static int check_api_url(const char *url)
{
	if (url == NULL)
		return LEC_OK;
	if (!printable(url, LEC_INTEGRATION_API_URL_MAX) ||
	    (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
		return lec__error_field(LEC_EINVALID, "api_url",
					"Enter a valid URL.");
	return LEC_OK;
}

int lec_integration_set_forge_repo(struct lec_store *st, int64_t id,
				   const char *repo)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if (repo == NULL || !printable(repo, LEC_INTEGRATION_API_URL_MAX))
		return LEC_OK;
	if ((error = lec_store__prepare(st, &stmt,
					"UPDATE integrations SET forge_repo = "
					"?1 WHERE id = ?2 AND forge_repo IS "
					"NOT ?1")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 2, id);
	if ((error = lec_store__bind_text(stmt, 1, repo)) == LEC_OK)
		error = lec_store__step_done(st, stmt,
					     "recording a repository");
	lec_store__finalize(st, stmt);
	return error;
}

int lec_integration_set_token(struct lec_store *st, int64_t project_id,
			      int64_t id, const char *token,
			      const char *api_url)
{
	char aad[INTEGRATION_AAD_MAX];
	struct lec_integration *in = NULL;
	unsigned char *blob = NULL;
	sqlite3_stmt *stmt = NULL;
	size_t blob_len = 0;
	int error;

	lec_error_clear();
	if ((error = lec_integration_get(st, project_id, id, &in)) < 0)
		return error;
	if (in->type != LEC_INTEGRATION_GITHUB &&
	    in->type != LEC_INTEGRATION_GITLAB)
		error = lec__error_field(LEC_EINVALID, "integration_type",
					 "Only GitHub and GitLab integrations "
					 "send commit statuses.");
	if (error == LEC_OK)
		error = check_api_url(api_url);
	if (error == LEC_OK && token && !printable(token, LEC_INTEGRATION_TOKEN_MAX))
		error = lec__error_field(LEC_EINVALID, "token",
					 "A token is 1 to %d printable ASCII "
					 "characters.",
					 LEC_INTEGRATION_TOKEN_MAX);
	if (error == LEC_OK && token)
		error = lec__secret_seal_stored(st, token, aad,
						integration_aad(project_id, 1,
								aad),
						&blob, &blob_len);
	if (error == LEC_OK &&
	    (error = lec_store__prepare(st, &stmt,
					"UPDATE integrations SET token = ?, "
					"api_url = ? WHERE id = ?")) == LEC_OK) {
		if (blob)
			sqlite3_bind_blob(stmt, 1, blob, (int)blob_len,
					  SQLITE_STATIC);
		if ((error = lec_store__bind_text(stmt, 2, api_url)) == LEC_OK) {
			sqlite3_bind_int64(stmt, 3, id);
			error = lec_store__step_done(st, stmt,
						     "storing a token");
		}
		lec_store__finalize(st, stmt);
	}
	lec__free(blob);
	lec_integration_free(in);
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
