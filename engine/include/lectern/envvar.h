/*
 * Environment variables of a project, passed to its builds.
 *
 * A variable's value is write-only: it is accepted on create, stored sealed
 * (AES-256-GCM under the data directory's secret.key), and leaves the engine
 * only through lec_envvar_values, for a build's environment. The resource
 * struct has no value field on purpose, so no API or log can show it.
 *
 * Decision (behaviour notes, decision table): the value is stored exactly as
 * given. The hosted service shell-quotes values on save; Lectern does not,
 * so a build receives the value the user typed. The size limits therefore
 * count the value as given.
 *
 * Duplicate names are allowed (the service has no unique constraint); a
 * build exports them in creation order, so the newest one wins.
 */
#ifndef LECTERN_ENVVAR_H
#define LECTERN_ENVVAR_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The service's field limits, in characters (UTF-8 code points). */
#define LEC_ENVVAR_NAME_MAX 128
#define LEC_ENVVAR_VALUE_MAX 48000
/* The service's cap on the sum of a project's value sizes ("256 KB",
 * counted in characters as the service counts them). */
#define LEC_ENVVAR_PROJECT_TOTAL_MAX 256000

struct lec_envvar {
	int64_t id;
	int64_t project_id;
	char *name;
	int is_public; /* the API's "public": given to pull-request builds too */
	int64_t created; /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_envvar);

/* One decrypted variable, for a build's environment. */
struct lec_envvar_value {
	char *name;
	char *value; /* wiped by lec_envvar_values_dispose */
	size_t value_len; /* bytes */
	int is_public;
};

struct lec_envvar_values {
	struct lec_envvar_value *items; /* len items, owned */
	size_t len;
};

/**
 * Create a variable.
 * @param name      required, at most LEC_ENVVAR_NAME_MAX characters
 * @param value     required, at most LEC_ENVVAR_VALUE_MAX characters; the
 *                  project's values together at most
 *                  LEC_ENVVAR_PROJECT_TOTAL_MAX characters
 * @param is_public non-zero: also given to pull-request builds
 * @param out       the new variable (owned by caller, lec_envvar_free), or
 *                  NULL
 * @return LEC_OK; LEC_EINVALID with field "name" or "value" ("This field is
 *         required.", "This field may not be blank.", "Ensure this field has
 *         no more than N characters."); LEC_ELIMIT with no field (the
 *         project total); LEC_ENOTFOUND (no such project); LEC_ECORRUPT
 *         (secret.key unusable, or missing while sealed values exist: a
 *         new key is made only for the first value)
 */
int lec_envvar_create(struct lec_store *store, int64_t project_id,
		      const char *name, const char *value, int is_public,
		      struct lec_envvar **out);

/**
 * A variable of a project.
 * @param out owned by caller (lec_envvar_free)
 * @return LEC_OK or LEC_ENOTFOUND (no such id in this project)
 */
int lec_envvar_get(struct lec_store *store, int64_t project_id, int64_t id,
		   struct lec_envvar **out);

/**
 * A project's variables in creation order (the service's DB order).
 * @param page NULL for all
 * @param out  filled; release with lec_envvar_list_dispose
 */
int lec_envvar_list(struct lec_store *store, int64_t project_id,
		    const struct lec_page *page, struct lec_envvar_list *out);

/** Delete a variable. @return LEC_OK or LEC_ENOTFOUND */
int lec_envvar_delete(struct lec_store *store, int64_t project_id,
		      int64_t id);

/**
 * The decrypted variables of a project for a build's environment, in
 * creation order (export them in order: a later duplicate name wins).
 * @param public_only non-zero: only public variables (pull-request builds)
 * @param out         filled; release with lec_envvar_values_dispose, which
 *                    wipes the values
 * @return LEC_OK; LEC_ECORRUPT when a value cannot be opened (altered, or
 *         the data directory's secret.key is missing or another key)
 */
int lec_envvar_values(struct lec_store *store, int64_t project_id,
		      int public_only, struct lec_envvar_values *out);

/** Free a variable. Accepts NULL. */
void lec_envvar_free(struct lec_envvar *var);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_envvar_list_dispose(struct lec_envvar_list *list);
/** Wipe and free the values (not the struct). Accepts NULL. */
void lec_envvar_values_dispose(struct lec_envvar_values *values);

#ifdef __cplusplus
}
#endif
#endif
