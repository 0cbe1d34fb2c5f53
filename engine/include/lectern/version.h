/*
 * A project's versions: one per branch or tag of its repository (plus pull
 * request versions, type "external"), and the two machine-managed versions
 * every project has, `latest` (its default branch) and `stable` (its newest
 * final release, chosen by the PEP 440 rules of behaviour notes §6.2).
 *
 * A version's slug is derived from its name once, at creation, and made
 * unique within the project with "_a", "_b", ... (§6.4); renaming a version
 * never changes its slug. Lists are ordered like the service's: by
 * verbose_name, descending.
 */
#ifndef LECTERN_VERSION_H
#define LECTERN_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The service's column size for a version's name and identifier. */
#define LEC_VERSION_NAME_MAX 255
#define LEC_VERSION_IDENTIFIER_MAX 255

/* How many suffixes ("_a" ... "_z", "_ba" ... "_zz") a slug may try before
 * giving up: more refs than this sharing one slug is no real repository. */
#define LEC_VERSION_SLUG_ATTEMPTS 676

/* Slugs (and names) of the machine-managed versions. */
#define LEC_VERSION_LATEST "latest"
#define LEC_VERSION_STABLE "stable"

enum lec_version_type {
	LEC_VERSION_BRANCH,
	LEC_VERSION_TAG,
	LEC_VERSION_EXTERNAL, /* a pull/merge request */
	LEC_VERSION_UNKNOWN
};

/* A boolean list filter. Zero is "any" so that a zeroed filter matches
 * everything. */
enum lec_filter_bool {
	LEC_FILTER_ANY = 0,
	LEC_FILTER_TRUE,
	LEC_FILTER_FALSE
};

struct lec_version {
	int64_t id;
	int64_t project_id;
	char *slug;
	char *verbose_name;
	char *identifier; /* branch name or commit; NULL when not known */
	enum lec_version_type type;
	int active;
	int hidden;
	int built;    /* at least one successful build */
	int uploaded; /* docs uploaded rather than built here */
	char *privacy_level; /* "public" or "private" */
	int machine;  /* created and managed by the engine (latest, stable) */
	int has_pdf;
	int has_epub;
	int has_htmlzip;
	char *documentation_type; /* "sphinx", "mkdocs", "generic", ... */
	int64_t created;  /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_version);

/*
 * Filters of lec_version_list (the v3 query parameters). Strings that are
 * NULL or "" do not filter, as the service ignores empty parameters.
 */
struct lec_version_filter {
	enum lec_filter_bool active;
	enum lec_filter_bool built;
	enum lec_filter_bool uploaded;
	/* TRUE: only external versions; FALSE: none (the v3 endpoint). */
	enum lec_filter_bool external;
	const char *privacy_level; /* exact: "public" or "private" */
	const char *type;          /* exact: a lec_version_type_code */
	const char *slug;          /* case-insensitive substring (ASCII) */
	const char *verbose_name;  /* case-insensitive substring (ASCII) */
};

/* Which fields of a lec_version_patch to change. */
enum lec_version_field {
	LEC_VERSION_SET_ACTIVE = 1u << 0,
	LEC_VERSION_SET_HIDDEN = 1u << 1,
	LEC_VERSION_SET_BUILT = 1u << 2,
	LEC_VERSION_SET_UPLOADED = 1u << 3,
	LEC_VERSION_SET_IDENTIFIER = 1u << 4,
	LEC_VERSION_SET_TYPE = 1u << 5,
	LEC_VERSION_SET_VERBOSE_NAME = 1u << 6,
	LEC_VERSION_SET_PRIVACY_LEVEL = 1u << 7,
	LEC_VERSION_SET_HAS_PDF = 1u << 8,
	LEC_VERSION_SET_HAS_EPUB = 1u << 9,
	LEC_VERSION_SET_HAS_HTMLZIP = 1u << 10,
	LEC_VERSION_SET_DOCUMENTATION_TYPE = 1u << 11,
	LEC_VERSION_SET_MACHINE = 1u << 12
};

/* A partial update: only the fields named in `set` are written. Strings are
 * borrowed for the call. */
struct lec_version_patch {
	unsigned int set; /* LEC_VERSION_SET_* bits */
	int active;
	int hidden;
	int built;
	int uploaded;
	const char *identifier; /* NULL clears it */
	enum lec_version_type type;
	const char *verbose_name;
	const char *privacy_level;
	int has_pdf;
	int has_epub;
	int has_htmlzip;
	const char *documentation_type;
	int machine;
};

/* Types ------------------------------------------------------------------- */

/** The code of a type ("branch", "tag", "external", "unknown").
 * @return a static string; "unknown" for a value outside the enum */
const char *lec_version_type_code(enum lec_version_type type);

/**
 * The type a code names.
 * @return LEC_OK; LEC_EINVALID on field "type" with the service's
 *         "Select a valid choice. <code> is not one of the available
 *         choices." message
 */
int lec_version_type_parse(const char *code, enum lec_version_type *out);

/* Versions ---------------------------------------------------------------- */

/**
 * Create a version. Its slug is lec_slug_version(verbose_name), suffixed
 * with "_a", "_b", ... when the project already has that slug.
 * @param identifier the branch name or commit, or NULL
 * @param active     non-zero to create it active (new refs are inactive)
 * @param out        the new version (owned by caller, lec_version_free), or
 *                   NULL
 * @return LEC_OK; LEC_EINVALID (field "verbose_name", "identifier" or
 *         "type"); LEC_ENOTFOUND (no such project); LEC_ELIMIT (no free
 *         slug within LEC_VERSION_SLUG_ATTEMPTS suffixes)
 */
int lec_version_create(struct lec_store *store, int64_t project_id,
		       const char *verbose_name, const char *identifier,
		       enum lec_version_type type, int active,
		       struct lec_version **out);

/**
 * Look a version up by its project and slug.
 * @param out owned by caller (lec_version_free)
 * @return LEC_OK or LEC_ENOTFOUND ("No Version matches the given query.")
 */
int lec_version_get(struct lec_store *store, int64_t project_id,
		    const char *slug, struct lec_version **out);

/** Look a version up by id. @return LEC_OK or LEC_ENOTFOUND */
int lec_version_get_by_id(struct lec_store *store, int64_t id,
			  struct lec_version **out);

/**
 * Whether the version with this id is a pull request's (type external):
 * what the service leaves out of a project's webhooks and notices.
 * @param external set to 1 or 0 (0 for no such version)
 * @return LEC_OK or a store error
 */
int lec_version_is_external(struct lec_store *store, int64_t id,
			    int *external);

/**
 * A project's versions, newest name first (verbose_name descending).
 * @param filter NULL for all versions
 * @param page   NULL for all rows
 * @param out    filled on success; dispose with lec_version_list_dispose
 * @return LEC_OK; LEC_EINVALID on field "type" or "privacy_level" for a
 *         value that is not a choice (the service's message)
 */
int lec_version_list(struct lec_store *store, int64_t project_id,
		     const struct lec_version_filter *filter,
		     const struct lec_page *page, struct lec_version_list *out);

/**
 * The versions an anonymous reader may see, across every project (the v2
 * API's list): those lec_version_can_view shows LEC_VIEWER_ANONYMOUS with
 * LEC_VERSION_VIEW_PROJECT | LEC_VERSION_VIEW_EXTERNAL_BUILDS, in
 * lec_version_list's order.
 * @param project_slug only the project with this slug; NULL for all
 * @param active       LEC_FILTER_TRUE or _FALSE: only active or inactive
 *                     versions; anything else: both
 * @param page         NULL for all rows
 * @param out          filled on success; dispose with
 *                     lec_version_list_dispose
 */
int lec_version_list_public(struct lec_store *store, const char *project_slug,
			    enum lec_filter_bool active,
			    const struct lec_page *page,
			    struct lec_version_list *out);

/**
 * Change the fields a patch names. Turning an active version inactive also
 * clears `built` (its artefacts are removed), unless the patch sets `built`
 * itself. The slug never changes. Removing artefacts, and building a
 * version turned active, are the caller's side effects.
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (field named after the bad
 *         value: "verbose_name", "identifier", "type", "privacy_level",
 *         "documentation_type")
 */
int lec_version_update(struct lec_store *store, int64_t id,
		       const struct lec_version_patch *patch);

/** Delete a version; its builds stay, with no version. */
int lec_version_delete(struct lec_store *store, int64_t id);

/** Free a version. Accepts NULL. */
void lec_version_free(struct lec_version *version);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_version_list_dispose(struct lec_version_list *list);

/* latest, stable and the default version ---------------------------------- */

/**
 * Compare two version names by PEP 440 (epochs, release segments, a/b/rc
 * pre-releases in every spelling, post and dev releases, local labels, a
 * leading "v"), after the service's clean-up: NFKD to ASCII, and ".x"
 * read as ".999999" when the name does not parse otherwise.
 * @param cmp negative, zero or positive as a sorts before, with, after b
 * @return LEC_OK; LEC_EINVALID when either name is not a version
 */
int lec_version_pep440_compare(const char *a, const char *b, int *cmp);

/**
 * Whether a version name can become `stable`: it parses as PEP 440 (as in
 * lec_version_pep440_compare) and is neither a pre-release nor a dev
 * release. @return 1 or 0
 */
int lec_version_pep440_final(const char *name);

/**
 * The version `stable` should point at: among the project's non-external
 * versions whose name is a final PEP 440 release, the highest tag, or when
 * no tag qualifies, the highest of the others. Equal versions resolve to the
 * one listed first (verbose_name descending), like the service.
 * @param out owned by caller (lec_version_free)
 * @return LEC_OK; LEC_ENOTFOUND when no version qualifies
 */
int lec_version_determine_stable(struct lec_store *store, int64_t project_id,
				 struct lec_version **out);

/**
 * Create or move the machine `stable` version to what
 * lec_version_determine_stable picks: a new one is active, of the winner's
 * type and identifier; an existing machine one takes the winner's type and
 * identifier. Nothing changes when a user branch or tag owns the slug
 * `stable`, or when no version qualifies.
 * @param promoted when stable was created or moved, the version it now
 *                 points at (owned by caller); NULL otherwise. May be NULL.
 */
int lec_version_update_stable(struct lec_store *store, int64_t project_id,
			      struct lec_version **promoted);

/**
 * Create or update the machine `latest` version: its identifier becomes
 * default_branch (NULL when not known) and its type the type of the
 * project's version of that name (branch when none). A user branch or tag
 * named `latest` is left alone. A missing `latest` is created active.
 */
int lec_version_update_latest(struct lec_store *store, int64_t project_id,
			      const char *default_branch);

/**
 * The version a machine `latest` or `stable` stands for (the service's
 * "original" version, shown as `ref` and `aliases`): for latest, the
 * non-external version named like its identifier; for stable, the version
 * lec_version_determine_stable picks among those sharing its identifier.
 * @param out owned by caller (lec_version_free)
 * @return LEC_OK; LEC_ENOTFOUND when there is none, or when version is not
 *         a machine latest/stable
 */
int lec_version_original(struct lec_store *store,
			 const struct lec_version *version,
			 struct lec_version **out);

/**
 * The slug of the project's default version (§6.3): its stored
 * default_version when that is "latest" or the slug of an active version,
 * otherwise "latest".
 * @param out owned by caller (free())
 * @return LEC_OK; LEC_ENOTFOUND (no such project)
 */
int lec_version_default_slug(struct lec_store *store, int64_t project_id,
			     char **out);

/* Version sync requests ---------------------------------------------------- */

/*
 * Syncing a project's versions with its repository's branches and tags is
 * the build pipeline's work; these calls are its queue. A request survives
 * restarts, and asking again while one is pending changes nothing, so the
 * pending request keeps its place.
 */

/**
 * Record that the project's versions should be synced. Idempotent.
 * @return LEC_OK; LEC_ENOTFOUND (no such project)
 */
int lec_version_sync_request(struct lec_store *store, int64_t project_id);

/**
 * Take the oldest pending sync request: it is removed atomically, so no two
 * callers, in any process, take the same one.
 * @param project_id the project whose versions to sync
 * @return LEC_OK; LEC_ENOTFOUND when no request is pending
 */
int lec_version_sync_take(struct lec_store *store, int64_t *project_id);

/* Visibility --------------------------------------------------------------- */

/*
 * Who sees a version: one rule for every route that shows versions, their
 * builds or their pages. A version whose privacy level is "public" is seen
 * by whoever sees its project; a private one by the project's admins only
 * (maintainers and superusers, lec_project_is_admin). Routes differ on
 * purpose in what else they ask, each as the service's own view does; the
 * flags below name each difference rather than hide it in one route.
 */
struct lec_project;

enum lec_version_view_flag {
	/* The project must be visible too (lec_project_can_view): for the
	 * callers that have not checked it already (docs serving, v2); v3,
	 * search and embed look the project up first and answer a 404 of
	 * their own for it. */
	LEC_VERSION_VIEW_PROJECT = 1u << 0,
	/* An external (pull request) version takes its project's
	 * external_builds_privacy_level instead of its own level: the v3 and
	 * v2 APIs, where the service applies that setting to versions and
	 * builds, and docs serving, where it applies it to the pull
	 * request's host. Search and embed read the version's own level;
	 * nothing sets an external version's own level (the v3 API refuses
	 * to change one), so there it stays "public" whatever the project's
	 * setting. */
	LEC_VERSION_VIEW_EXTERNAL_BUILDS = 1u << 1,
	/* Hidden versions are not seen: search, where it picks a version
	 * itself (a project's default, a subproject's). Hidden versions are
	 * still served, listed by the APIs and searched when named. */
	LEC_VERSION_VIEW_LISTED = 1u << 2
};

/**
 * Whether viewer_id may see version of project (rules above). The
 * database is asked only what the two structs do not answer: nothing for
 * a public version (of a public project, with LEC_VERSION_VIEW_PROJECT),
 * nor for the two special viewers, so a caller may check every row of a
 * list.
 * @param project   the version's project, as read from the store
 * @param viewer_id a user id; LEC_VIEWER_ANONYMOUS sees public versions
 *                  only; LEC_VIEWER_ALL sees every version (a caller that
 *                  has already found the viewer administers the project
 *                  passes it, and a non-admin viewer of a project it
 *                  has checked can pass LEC_VIEWER_ANONYMOUS: a non-admin
 *                  sees what anyone who sees the project sees)
 * @param flags     LEC_VERSION_VIEW_* bits, or 0
 * @return 1 or 0; an error code from looking the viewer's rights up
 *         (LEC_ENOTFOUND when the project is gone)
 */
int lec_version_can_view(struct lec_store *store,
			 const struct lec_project *project,
			 const struct lec_version *version, int64_t viewer_id,
			 unsigned int flags);

#ifdef __cplusplus
}
#endif
#endif
