/*
 * Pull-request versions (the service's "external" versions): a pull
 * request on GitHub or a merge request on GitLab, opened or pushed to,
 * becomes a version of its project named by the request's number, whose
 * identifier is the request's head commit, built from the request's head
 * ref (refs/pull/<N>/head, refs/merge-requests/<N>/head) and served on a
 * host of its own; closing or merging the request closes the version.
 * The service's readthedocs/core/views/hooks.py get_or_create_external_version
 * and close_external_version.
 *
 * What the version row cannot say is kept beside it, one row per external
 * version: the forge, the ref a build fetches, the request's branches, its
 * repository on the forge (for commit statuses) and whether it is open.
 */
#ifndef LECTERN_EXTERNAL_H
#define LECTERN_EXTERNAL_H

#include <stdint.h>

#include "lectern/errors.h"
#include "lectern/store.h"
#include "lectern/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most digits of a request's number: GitHub's and GitLab's are integers,
 * far below this; a longer one is not a number the forge sent. */
#define LEC_EXTERNAL_NUMBER_MAX 18

enum lec_external_forge {
	LEC_EXTERNAL_GITHUB, /* refs/pull/<N>/head */
	LEC_EXTERNAL_GITLAB, /* refs/merge-requests/<N>/head */
	LEC_EXTERNAL_LOCAL   /* a branch of the repository, previewed by a
				writer without a forge: refs/heads/<name> */
};

/* What a branch preview's version is named before the branch's name: its
 * slug is then never the branch's own version's. */
#define LEC_EXTERNAL_BRANCH_PREFIX "preview-"

enum lec_external_state {
	LEC_EXTERNAL_OPEN,
	LEC_EXTERNAL_CLOSED /* closed or merged: no longer served */
};

struct lec_external {
	int64_t version_id;
	enum lec_external_forge forge;
	char *ref;           /* what a build fetches: refs/pull/7/head */
	char *source_branch; /* the request's branch, or NULL */
	char *base_branch;   /* the branch it would merge into, or NULL */
	char *forge_repo;    /* "owner/name" on GitHub, the project id on
				GitLab; NULL when the delivery named none */
	enum lec_external_state state;
	int64_t closed; /* when it was closed (microseconds), or 0 */
};

/* What a delivery says of a request; strings are borrowed for the call. */
struct lec_external_request {
	enum lec_external_forge forge;
	const char *number; /* decimal digits */
	const char *commit; /* the head commit's full id */
	const char *source_branch; /* or NULL */
	const char *base_branch;   /* or NULL */
	const char *forge_repo;    /* or NULL */
};

/** The code of a forge: "github", "gitlab" or "local". */
const char *lec_external_forge_code(enum lec_external_forge forge);

/**
 * A request opened, reopened or pushed to: its version is made (type
 * external, active, named and slugged by the number) or updated (the new
 * head, open again, active), then built at the head unless its newest
 * unfinished build is still queued for that very commit (a replayed
 * delivery builds nothing twice). A build of an older head still queued or
 * running is cancelled by the new one.
 * @param how  what started the build (lec_build.triggered_by)
 * @param out  the version (owned by caller, lec_version_free), or NULL
 * @param built set to 1 when a build was queued, 0 when one was already;
 *              may be NULL
 * @return LEC_OK; LEC_EINVALID (field "number": not digits, or too many;
 *         field "commit": not a commit id); LEC_ENOTFOUND (no project);
 *         store errors
 */
int lec_external_open(struct lec_store *store, int64_t project_id,
		      const struct lec_external_request *request,
		      const char *how, struct lec_version **out, int *built);

/**
 * Build a branch that is not an active version as a preview, the way a
 * pull request's version is built: an external version named
 * LEC_EXTERNAL_BRANCH_PREFIX and the branch, following the branch (each
 * build takes its head), served on its own host. Asking again while its
 * build is queued queues nothing.
 * @param out   the version (owned by caller), or NULL
 * @param built as lec_external_open's; may be NULL
 * @return LEC_OK; LEC_ENOTFOUND (field "branch": no such branch among the
 *         project's versions); LEC_EINVALID (field "branch": it is an
 *         active version, build that instead)
 */
int lec_external_open_branch(struct lec_store *store, int64_t project_id,
			     const char *branch, const char *how,
			     struct lec_version **out, int *built);

/**
 * A request closed or merged: its version is closed and deactivated at
 * once (its files stay until lec_external_sweep's grace period ends) and
 * its unfinished builds cancelled.
 * @param name_out the version's name (owned by caller, free()), or NULL
 * @return LEC_OK; LEC_ENOTFOUND (the project has no version of that
 *         number: nothing to close)
 */
int lec_external_close(struct lec_store *store, int64_t project_id,
		       const char *number, char **name_out);

/* How long a closed request's files stay (the service's
 * delete_closed_external_versions keeps them a day). */
#define LEC_EXTERNAL_GRACE_DEFAULT_S 86400u
/* Versions one sweep removes at most: the rest wait for the next. */
#define LEC_EXTERNAL_SWEEP_MAX 64

/**
 * Remove what is left of requests closed at or before before_us (now less
 * the grace period): each version's published output, kept tree and
 * search entries, then the version itself (its builds stay, with no
 * version), as the service's delete_closed_external_versions does.
 * @param data_dir the pipeline's data directory
 * @param removed  how many versions went; may be NULL
 * @return LEC_OK; store errors (files that cannot be removed are left to
 *         the next sweep's caller to notice: the version goes anyway)
 */
int lec_external_sweep(struct lec_store *store, const char *data_dir,
		       int64_t before_us, size_t *removed);

/** What the store keeps of an external version.
 * @param out owned by caller (lec_external_free)
 * @return LEC_OK; LEC_ENOTFOUND (not an external version) */
int lec_external_get(struct lec_store *store, int64_t version_id,
		     struct lec_external **out);

/** Free what lec_external_get made. Accepts NULL. */
void lec_external_free(struct lec_external *external);

#ifdef __cplusplus
}
#endif
#endif
