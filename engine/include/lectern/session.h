/*
 * Browser sessions of the docs login (the server's docs_auth.c): what a
 * session cookie names, kept in the store so that logging out, revoking a
 * token or disabling a user ends a session at once, wherever its cookie
 * went.
 *
 * A login exchanges an API token for a session; each docs host the browser
 * then visits gets a session of its own in the same family, continued from
 * the login's. A session belongs to the token it was logged in with:
 * revoking the token ends every session of it. Ending a session (a logout)
 * ends its whole family: the login and every docs host's session that came
 * from it. A session id is a random number, never reused; the cookie also
 * carries a MAC under the server's key, so the id alone is no credential.
 */
#ifndef LECTERN_SESSION_H
#define LECTERN_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"
#include "lectern/user.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Log in with an API token: a new session of its own family, lasting
 * seconds.
 * @param out_id the session's id (positive)
 * @return LEC_OK; LEC_ENOTFOUND (no such token, or malformed);
 *         LEC_EAUTH (the user is inactive)
 */
int lec_session_login(struct lec_store *store, const char *token,
		      int64_t seconds, int64_t *out_id);

/**
 * A new session in the family of session from_id (the same token and
 * login), lasting seconds: a docs host's, from the login's ticket.
 * @return LEC_OK; LEC_ENOTFOUND (from_id ended or expired)
 */
int lec_session_continue(struct lec_store *store, int64_t from_id,
			 int64_t seconds, int64_t *out_id);

/**
 * The user of a live session.
 * @param out owned by caller (lec_user_free)
 * @return LEC_OK; LEC_ENOTFOUND (no such session, ended or expired);
 *         LEC_EAUTH (the user is inactive)
 */
int lec_session_user(struct lec_store *store, int64_t id,
		     struct lec_user **out);

/** End a session with its whole family (a logout); ending one that is
 * gone already is no error. */
int lec_session_end(struct lec_store *store, int64_t id);

/** End every session of a user, keeping their tokens; *count gets how
 * many (may be NULL). */
int lec_session_end_user(struct lec_store *store, int64_t user_id,
			 size_t *count);

#ifdef __cplusplus
}
#endif
#endif
