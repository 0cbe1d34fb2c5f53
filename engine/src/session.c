/*
 * Browser sessions (lectern/session.h): one row per session, named by a
 * random id, hanging from the token it was logged in with (ON DELETE
 * CASCADE, so revoking the token or deleting the user ends it) and from
 * its login (the family a logout ends). Expired rows are dropped whenever
 * a session is made, so the table holds about the live sessions.
 */
#include "hash.h"
#include "lectern/session.h"
#include "store_internal.h"

#define US_PER_S 1000000

/* A random id, positive as SQLite's integer keys and the cookie's number
 * are read. */
static int random_id(int64_t *out)
{
	uint64_t v = 0;
	int error;

	do {
		if ((error = lec__random_bytes(&v, sizeof(v))) < 0)
			return error;
		v &= (uint64_t)INT64_MAX;
	} while (v == 0);
	*out = (int64_t)v;
	return LEC_OK;
}

static int64_t expiry(int64_t seconds)
{
	return lec__now_us() + seconds * US_PER_S;
}

/* Insert a session: sql binds ?1 its new id, ?2 what it comes from (a
 * token, or the live session it continues), ?3 its expiry and, when n is
 * 4, ?4 now; no row inserted is LEC_ENOTFOUND. */
static int insert(struct lec_store *st, const char *sql, int n, int64_t from,
		  int64_t seconds, int64_t *out_id)
{
	int64_t v[4];
	int changes = 0;
	int error;

	*out_id = 0;
	v[1] = from;
	v[2] = expiry(seconds);
	v[3] = lec__now_us();
	if ((error = random_id(&v[0])) < 0 ||
	    (error = lec_store__exec_ints(st,
					  "DELETE FROM sessions WHERE expires "
					  "<= ?1",
					  &v[3], 1, "dropping old sessions",
					  NULL)) < 0 ||
	    (error = lec_store__exec_ints(st, sql, v, n, "starting a session",
					  &changes)) < 0)
		return error;
	if (changes == 0)
		return lec__error(LEC_ENOTFOUND, "no such session");
	*out_id = v[0];
	return LEC_OK;
}

int lec_session_login(struct lec_store *st, const char *token,
		      int64_t seconds, int64_t *out_id)
{
	int64_t token_id = 0;
	int error;

	lec_error_clear();
	*out_id = 0;
	if ((error = lec__token_check(st, token, &token_id)) < 0)
		return error;
	/* A login is its own family. */
	return insert(st,
		      "INSERT INTO sessions (id, token_id, login, expires) "
		      "VALUES (?1, ?2, ?1, ?3)",
		      3, token_id, seconds, out_id);
}

int lec_session_continue(struct lec_store *st, int64_t from_id,
			 int64_t seconds, int64_t *out_id)
{
	lec_error_clear();
	return insert(st,
		      "INSERT INTO sessions (id, token_id, login, expires) "
		      "SELECT ?1, token_id, login, ?3 FROM sessions "
		      "WHERE id = ?2 AND expires > ?4",
		      4, from_id, seconds, out_id);
}

int lec_session_user(struct lec_store *st, int64_t id, struct lec_user **out)
{
	int64_t v[2] = { id, lec__now_us() };
	int64_t user_id = 0;
	int found = 0, error;

	lec_error_clear();
	*out = NULL;
	if ((error = lec_store__query_int(
		     st,
		     "SELECT t.user_id FROM sessions s JOIN tokens t "
		     "ON t.id = s.token_id WHERE s.id = ?1 AND s.expires > ?2",
		     v, 2, "looking a session up", &user_id, &found)) < 0)
		return error;
	if (!found)
		return lec__error(LEC_ENOTFOUND, "no such session");
	if ((error = lec_user_get_by_id(st, user_id, out)) < 0)
		return error;
	if (!(*out)->is_active) {
		lec_user_free(*out);
		*out = NULL;
		return lec__error(LEC_EAUTH, "user inactive or deleted");
	}
	return LEC_OK;
}

int lec_session_end(struct lec_store *st, int64_t id)
{
	lec_error_clear();
	return lec_store__exec_ints(st,
				    "DELETE FROM sessions WHERE login = "
				    "(SELECT login FROM sessions WHERE id = ?1)",
				    &id, 1, "ending a session", NULL);
}

int lec_session_end_user(struct lec_store *st, int64_t user_id,
			 size_t *count)
{
	int changes = 0;
	int error;

	lec_error_clear();
	error = lec_store__exec_ints(st,
				     "DELETE FROM sessions WHERE token_id IN "
				     "(SELECT id FROM tokens WHERE user_id = ?1)",
				     &user_id, 1, "ending sessions", &changes);
	if (error == LEC_OK && count)
		*count = (size_t)changes;
	return error;
}
