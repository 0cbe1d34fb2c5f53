/*
 * Users and API tokens. Tokens are looked up by the SHA-256 of the presented
 * string, so the database never holds a usable credential, and a token that
 * is malformed is rejected without touching the database.
 */
#include <string.h>

#include "hash.h"
#include "lectern/user.h"
#include "store_internal.h"

static int valid_username(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	size_t i;

	if (n == 0 || n > LEC_USERNAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("@.+-_", c)))
			return 0;
	}
	return 1;
}

static const struct lec__column user_columns[] = {
	LEC__INT64(lec_user, id, "u.id"),
	LEC__TEXT(lec_user, username, "u.username"),
	LEC__TEXT(lec_user, email, "u.email"),
	LEC__INT(lec_user, is_active, "u.is_active"),
	LEC__INT(lec_user, is_superuser, "u.is_superuser"),
	LEC__TIME(lec_user, created, "u.created"),
};
const struct lec__row lec__user_row =
	LEC__ROW(lec_user, user_columns, NULL, NULL);
/* A list of bare usernames (char *), of a users table aliased u. */
static const struct lec__column username_columns[] = {
	{ .sql = "u.username", .kind = LEC__COL_TEXT, .offset = 0 },
};
const struct lec__row lec__username_row =
	LEC__ROW_OF(char *, username_columns);

static const struct lec__table users = {
	.row = &lec__user_row, .from = "users u",
	.id = "u.id = ?", .text = "u.username = ?",
	.order = "u.username",
};

LEC__DEFINE_FREES(lec_user, &lec__user_row)

int lec_user_get(struct lec_store *st, const char *username,
		 struct lec_user **out)
{
	int error;

	if (username == NULL) {
		lec_error_clear();
		return lec__error(LEC_EINVALID, "no username given");
	}
	error = lec__table_get_text(st, &users, NULL, username, (void **)out);
	return error == LEC_ENOTFOUND ? lec__error(LEC_ENOTFOUND,
						   "no user named '%s'",
						   username)
				      : error;
}

int lec_user_get_by_id(struct lec_store *st, int64_t id,
		       struct lec_user **out)
{
	int error = lec__table_get(st, &users, NULL, id, (void **)out);

	return error == LEC_ENOTFOUND ? lec__error(LEC_ENOTFOUND,
						   "no user with id %lld",
						   (long long)id)
				      : error;
}

int lec_user_create(struct lec_store *st, const char *username,
		    struct lec_user **out)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (!valid_username(username))
		return lec__error(LEC_EINVALID,
				  "invalid username '%s': use 1 to %d letters, "
				  "digits and @ . + - _",
				  username ? username : "", LEC_USERNAME_MAX);
	if ((error = lec_store__prepare(st, &stmt,
					"INSERT INTO users (username, created) "
					"VALUES (?, ?)")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, username)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 2, lec__now_us());
	error = lec_store__step_done(st, stmt, "creating a user");
	if (error == LEC_EEXISTS)
		error = lec__error(LEC_EEXISTS, "user '%s' already exists",
				   username);
	if (error == LEC_OK && out)
		error = lec_user_get(st, username, out);
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_user_ensure(struct lec_store *st, const char *username,
		    struct lec_user **out)
{
	int error = lec_user_get(st, username, out);

	if (error == LEC_ENOTFOUND)
		error = lec_user_create(st, username, out);
	/* Lost a race with another process creating the same user. */
	if (error == LEC_EEXISTS)
		error = lec_user_get(st, username, out);
	return error;
}

int lec_user_list(struct lec_store *st, const struct lec_page *page,
		  struct lec_user_list *out)
{
	return lec__table_list(st, &users, NULL, page, (void **)&out->items,
			       &out->len, &out->total);
}

/* Run a one-parameter-pair UPDATE/DELETE that must touch exactly one user. */
static int user_change(struct lec_store *st, const char *sql, int64_t id,
		       int64_t value, int has_value, const char *what)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	if (has_value) {
		sqlite3_bind_int64(stmt, 1, value);
		sqlite3_bind_int64(stmt, 2, id);
	} else {
		sqlite3_bind_int64(stmt, 1, id);
	}
	error = lec_store__step_done(st, stmt, what);
	if (error == LEC_OK && sqlite3_changes(sqlite3_db_handle(stmt)) == 0)
		error = lec__error(LEC_ENOTFOUND, "no user with id %lld",
				   (long long)id);
	lec_store__finalize(st, stmt);
	return error;
}

int lec_user_set_active(struct lec_store *st, int64_t id, int active)
{
	return user_change(st, "UPDATE users SET is_active = ? WHERE id = ?",
			   id, active ? 1 : 0, 1, "updating a user");
}

int lec_user_delete(struct lec_store *st, int64_t id)
{
	return user_change(st, "DELETE FROM users WHERE id = ?", id, 0, 0,
			   "deleting a user");
}

/* Tokens ------------------------------------------------------------------- */

static int valid_token(const char *token)
{
	size_t i;

	if (token == NULL || strlen(token) != LEC_TOKEN_LEN)
		return 0;
	for (i = 0; i < LEC_TOKEN_LEN; i++)
		if (!((token[i] >= '0' && token[i] <= '9') ||
		      (token[i] >= 'a' && token[i] <= 'f')))
			return 0;
	return 1;
}

/* The hash a token is stored under; LEC_ENOTFOUND for a malformed one,
 * which the database is never asked about. */
static int token_hash(const char *token, char *hash)
{
	if (!valid_token(token))
		return lec__error(LEC_ENOTFOUND, "invalid token");
	return lec__sha256_hex(token, LEC_TOKEN_LEN, hash);
}

int lec__token_check(struct lec_store *st, const char *token,
		     int64_t *token_id)
{
	char hash[LEC__SHA256_HEX_LEN + 1];
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*token_id = 0;
	if ((error = token_hash(token, hash)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"SELECT t.id, u.is_active FROM tokens t "
					"JOIN users u ON u.id = t.user_id "
					"WHERE t.hash = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, hash)) < 0)
		goto done;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_int(stmt, 1))
		*token_id = sqlite3_column_int64(stmt, 0);
	else if (rc == SQLITE_ROW)
		error = lec__error(LEC_EAUTH, "user inactive or deleted");
	else if (rc == SQLITE_DONE)
		error = lec__error(LEC_ENOTFOUND, "invalid token");
	else
		error = lec_store__sqlerr(st, rc, "looking a token up");
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_token_create(struct lec_store *st, int64_t user_id, char **out)
{
	unsigned char raw[LEC_TOKEN_LEN / 2];
	char hash[LEC__SHA256_HEX_LEN + 1];
	sqlite3_stmt *stmt = NULL;
	char *token = NULL;
	int error;

	lec_error_clear();
	*out = NULL;
	token = lec__malloc(LEC_TOKEN_LEN + 1);
	LEC__CHECK_ALLOC(token);
	if ((error = lec__random_bytes(raw, sizeof(raw))) < 0)
		goto done;
	lec__hex(raw, sizeof(raw), token);
	if ((error = lec__sha256_hex(token, LEC_TOKEN_LEN, hash)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"INSERT INTO tokens (user_id, hash, "
					"created) VALUES (?, ?, ?)")) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 1, user_id);
	if ((error = lec_store__bind_text(stmt, 2, hash)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 3, lec__now_us());
	error = lec_store__step_done(st, stmt, "creating a token");
	if (error == LEC_EINVALID)
		error = lec__error(LEC_ENOTFOUND, "no user with id %lld",
				   (long long)user_id);
done:
	lec_store__finalize(st, stmt);
	memset(raw, 0, sizeof(raw));
	if (error < 0) {
		if (token)
			memset(token, 0, LEC_TOKEN_LEN + 1);
		lec__free(token);
		return error;
	}
	*out = token;
	return LEC_OK;
}

/* The memo of verified tokens (store_internal.h) --------------------------- */

/* The memo's slot for a token's hash: hex digits of a SHA-256 are evenly
 * spread, so the first two pick it. */
static struct lec_store_token_memo *memo_slot(struct lec_store *st,
					      const char *hash)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 2; i++)
		v = v * 16 + (unsigned)(hash[i] <= '9' ? hash[i] - '0'
						       : hash[i] - 'a' + 10);
	return &st->tokens[v % LEC_STORE_TOKEN_MEMO];
}

static void memo_clear(struct lec_store_token_memo *m)
{
	lec__row_dispose(&lec__user_row, &m->user);
	memset(m, 0, sizeof(*m));
}

/* The data version the memo may be used at: only inside a transaction,
 * where it names the snapshot every read sees (outside one, the next
 * read may see a newer database than the version says). 0 when not. */
static int memo_version(struct lec_store *st, uint64_t *version)
{
	return !sqlite3_get_autocommit(st->db) &&
	       lec_store_data_version(st, version) == LEC_OK;
}

static int user_copy(const struct lec_user *from, struct lec_user **out)
{
	struct lec_user *u = lec__calloc(1, sizeof(*u));

	LEC__CHECK_ALLOC(u);
	*u = *from;
	u->username = lec__strdup(from->username);
	u->email = lec__strdup(from->email);
	if ((from->username && u->username == NULL) ||
	    (from->email && u->email == NULL)) {
		lec_user_free(u);
		return lec__error_oom();
	}
	*out = u;
	return LEC_OK;
}

/* The active user of a token verified at this version, copied; 1 when
 * remembered, 0 when the database must be asked. */
static int memo_find(struct lec_store *st, const char *hash,
		     struct lec_user **out)
{
	struct lec_store_token_memo *m = memo_slot(st, hash);
	uint64_t version;

	if (m->hash[0] == '\0' || strcmp(m->hash, hash) != 0 ||
	    !memo_version(st, &version) || version != m->data_version)
		return 0;
	return user_copy(&m->user, out) == LEC_OK;
}

static void memo_keep(struct lec_store *st, const char *hash,
		      const struct lec_user *user)
{
	struct lec_store_token_memo *m = memo_slot(st, hash);
	struct lec_user *copy = NULL;
	uint64_t version;

	if (!memo_version(st, &version) || user_copy(user, &copy) < 0)
		return;
	memo_clear(m);
	memcpy(m->hash, hash, sizeof(m->hash));
	m->data_version = version;
	m->user = *copy;
	lec__free(copy);
}

int lec_token_authenticate(struct lec_store *st, const char *token,
			   struct lec_user **out)
{
	char hash[LEC__SHA256_HEX_LEN + 1];
	struct lec__query q;
	struct lec_user *items = NULL;
	int error;

	lec_error_clear();
	*out = NULL;
	if ((error = token_hash(token, hash)) < 0)
		return error;
	if (memo_find(st, hash, out))
		return LEC_OK;
	lec__query_init(&q, &lec__user_row,
			"users u JOIN tokens t ON t.user_id = u.id");
	lec__query_where_text(&q, "t.hash = ?", hash);
	error = lec__query_one(st, &q, (void **)&items);
	lec__query_dispose(&q);
	if (error == LEC_ENOTFOUND)
		return lec__error(LEC_ENOTFOUND, "invalid token");
	if (error < 0)
		return error;
	if (!items->is_active) {
		lec_user_free(items);
		return lec__error(LEC_EAUTH, "user inactive or deleted");
	}
	memo_keep(st, hash, items);
	*out = items;
	return LEC_OK;
}

/* Listing and revoking ------------------------------------------------------ */

/* Never the hash: a listing names tokens, it does not hold them. The
 * sessions are counted where they are kept (session.c's table). */
static const struct lec__column token_columns[] = {
	LEC__INT64(lec_token, id, "t.id"),
	LEC__INT64(lec_token, user_id, "t.user_id"),
	LEC__TEXT(lec_token, username, "u.username"),
	LEC__TIME(lec_token, created, "t.created"),
	LEC__SIZE(lec_token, sessions,
		  "(SELECT count(*) FROM sessions s WHERE s.token_id = t.id "
		  "AND s.expires > "
		  "CAST(strftime('%s', 'now') AS INTEGER) * 1000000)"),
};
static const struct lec__row token_row =
	LEC__ROW(lec_token, token_columns, NULL, NULL);
static const struct lec__table tokens = {
	.row = &token_row, .from = "tokens t JOIN users u ON u.id = t.user_id",
	.scope = "t.user_id = ?",
	.order = "t.id",
};

int lec_token_list(struct lec_store *st, int64_t user_id,
		   const struct lec_page *page, struct lec_token_list *out)
{
	return lec__table_list(st, &tokens, user_id ? &user_id : NULL, page,
			       (void **)&out->items, &out->len, &out->total);
}

LEC__DEFINE_LIST_DISPOSE(lec_token, &token_row)

/* Deleting a token's row is all revoking takes: its sessions go with it
 * (ON DELETE CASCADE), and the change of data version makes every
 * handle's memo (memo_find) ask the database again. */
int lec_token_revoke(struct lec_store *st, int64_t id)
{
	int changes = 0;
	int error;

	lec_error_clear();
	error = lec_store__exec_ints(st, "DELETE FROM tokens WHERE id = ?", &id,
				     1, "revoking a token", &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND, "no token with id %lld",
				   (long long)id);
	return error;
}

int lec_token_revoke_all(struct lec_store *st, int64_t user_id,
			 size_t *count)
{
	int changes = 0, error;

	lec_error_clear();
	error = lec_store__exec_ints(st, "DELETE FROM tokens WHERE user_id = ?",
				     &user_id, 1, "revoking tokens", &changes);
	if (error == LEC_OK && count)
		*count = (size_t)changes;
	return error;
}
