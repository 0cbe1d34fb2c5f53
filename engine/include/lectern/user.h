/*
 * Users and their API tokens.
 *
 * A token is 40 lowercase hexadecimal characters (the hosted service's token
 * format, so clients need no special case). Only its SHA-256 is stored: the
 * plain token exists once, in the string lec_token_create hands back. A
 * token is named afterwards by its id, which says nothing of the secret;
 * revoking it ends the browser sessions logged in with it (session.h).
 */
#ifndef LECTERN_USER_H
#define LECTERN_USER_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Usernames follow the service: letters, digits and @ . + - _ only. */
#define LEC_USERNAME_MAX 150
/* Characters in a token: 20 random bytes in hex. */
#define LEC_TOKEN_LEN 40

struct lec_user {
	int64_t id;
	char *username;
	char *email;
	int is_active;
	int is_superuser;
	int64_t created; /* microseconds since the epoch, UTC */
};

/* A token as listed: never its secret nor its hash. */
struct lec_token {
	int64_t id;
	int64_t user_id;
	char *username;
	int64_t created;   /* microseconds since the epoch, UTC */
	size_t sessions;   /* unexpired browser sessions logged in with it */
};

LEC_PAGE_LIST(lec_token);

LEC_PAGE_LIST(lec_user);

/* Users ------------------------------------------------------------------- */

/**
 * Create a user.
 * @param out the new user (owned by caller, lec_user_free), or NULL
 * @return LEC_OK, LEC_EINVALID (bad username), LEC_EEXISTS (taken)
 */
int lec_user_create(struct lec_store *store, const char *username,
		    struct lec_user **out);

/** Find a user by name, creating it when missing. */
int lec_user_ensure(struct lec_store *store, const char *username,
		    struct lec_user **out);

/** Look a user up by name. @return LEC_OK or LEC_ENOTFOUND */
int lec_user_get(struct lec_store *store, const char *username,
		 struct lec_user **out);
int lec_user_get_by_id(struct lec_store *store, int64_t id,
		       struct lec_user **out);

/** Users ordered by username. @param page NULL for all */
int lec_user_list(struct lec_store *store, const struct lec_page *page,
		  struct lec_user_list *out);

/** Enable or disable a user; a disabled user's tokens stop working. */
int lec_user_set_active(struct lec_store *store, int64_t id, int active);

/** Delete a user with its tokens and memberships. */
int lec_user_delete(struct lec_store *store, int64_t id);

/** Free a user. Accepts NULL. */
void lec_user_free(struct lec_user *user);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_user_list_dispose(struct lec_user_list *list);

/* Tokens ------------------------------------------------------------------ */

/**
 * Create a new token for a user.
 * @param out the plain token, owned by the caller (free()); it is not kept
 *            anywhere else, so show it once and drop it
 */
int lec_token_create(struct lec_store *store, int64_t user_id, char **out);

/**
 * The user a token belongs to.
 * @return LEC_OK; LEC_ENOTFOUND (no such token, or malformed);
 *         LEC_EAUTH (the user is inactive)
 */
int lec_token_authenticate(struct lec_store *store, const char *token,
			   struct lec_user **out);

/**
 * Tokens ordered by id (the order they were made in).
 * @param user_id only this user's, or 0 for every user's
 * @param page    NULL for all
 * @param out     filled on success; dispose with lec_token_list_dispose
 */
int lec_token_list(struct lec_store *store, int64_t user_id,
		   const struct lec_page *page, struct lec_token_list *out);

/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_token_list_dispose(struct lec_token_list *list);

/**
 * Revoke one token by id, with the sessions logged in with it: the next
 * request presenting it is refused, on every handle of the store.
 * @return LEC_OK or LEC_ENOTFOUND
 */
int lec_token_revoke(struct lec_store *store, int64_t id);

/** Revoke every token of a user, with their sessions; *count gets how
 * many tokens (may be NULL). */
int lec_token_revoke_all(struct lec_store *store, int64_t user_id,
			 size_t *count);

#ifdef __cplusplus
}
#endif
#endif
