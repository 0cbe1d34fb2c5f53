/*
 * Projects, their maintainers, subprojects and translations.
 *
 * A project is imported from a repository URL under a name; its slug comes
 * from the name once (lec_slug_project) and never changes. Importing makes
 * the importing user a maintainer and creates the machine-managed "latest"
 * version in the same transaction. Validation follows the hosted service's
 * serializers, with the same messages and the same field names
 * (lec_error_last_field), so the HTTP API can show them unchanged:
 * "name", "repository.url", "repository.type", "language", "homepage", ...,
 * "non_field_errors" for a rule about the whole request, and "child" /
 * "alias" for subprojects.
 *
 * A subproject is a project served under another one's URLs, at
 * /projects/<alias>/; nesting is one level deep. A translation is a project
 * whose main_language_project is another project in a different language.
 *
 * "Admin" of a project means one of its maintainers, a superuser, an owner of
 * its organization, or a member of an organization team with admin access
 * that holds it (business edition). Members of other teams holding it may
 * read it when it is private.
 */
#ifndef LECTERN_PROJECT_H
#define LECTERN_PROJECT_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"
#include "lectern/user.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field lengths are the service's, counted in characters. */
#define LEC_PROJECT_NAME_MAX 63            /* a DNS label */
#define LEC_PROJECT_REPO_URL_MAX 255       /* the service's column */
#define LEC_PROJECT_HOMEPAGE_MAX 200       /* Django's URLField default */
#define LEC_PROJECT_TAG_MAX 100            /* the tagging library's column */
#define LEC_PROJECT_REF_MAX 255            /* default_version/_branch */
#define LEC_PROJECT_ANALYTICS_CODE_MAX 50  /* the service's column */
#define LEC_PROJECT_YAML_PATH_MAX 1024     /* the service's column */
#define LEC_SUBPROJECT_ALIAS_MAX 255       /* the service's column */

/* Who is looking, for the lists that hide private projects. */
#define LEC_VIEWER_ANONYMOUS 0 /* public projects only */
#define LEC_VIEWER_ALL (-1)    /* no visibility filter (local tools) */

struct lec_project {
	int64_t id;
	char *name;
	char *slug;
	char *description;
	char *language;             /* code, see language.h */
	char *programming_language; /* code; may be "" */
	char *repo_url;
	char *repo_type;            /* "git" */
	char *homepage;             /* "" when none (the API shows null) */
	char *default_version;      /* version slug, "latest" by default */
	char *default_branch;       /* NULL: the repository's default */
	char *privacy_level;        /* "public" or "private" */
	char *external_builds_privacy_level;
	char *versioning_scheme;    /* "multiple_versions_with_translations",
				       "multiple_versions_without_translations",
				       "single_version_without_translations" */
	int single_version;         /* the scheme is single_version_... */
	int external_builds_enabled;
	int show_version_warning;
	char *analytics_code;       /* "" when none */
	int analytics_disabled;
	char *readthedocs_yaml_path; /* NULL: the default path */
	char *documentation_type;
	int64_t main_language_project_id; /* 0 unless a translation */
	char *translation_of;       /* slug of that project, or NULL */
	char *superproject_slug;    /* parent's slug when a subproject */
	char *superproject_alias;   /* this project's alias there */
	int64_t created;            /* microseconds since the epoch, UTC */
	int64_t modified;
	/* A local repository's new commits build (pipeline's watcher);
	 * Lectern's setting, on by default. */
	int watch_commits;
	/* A remote repository is fetched every this many seconds and its
	 * moved versions built (pipeline's watcher); 0: not polled. */
	unsigned poll_interval;
	/* An offline mirror of another instance's project (mirror.h): the
	 * remote's API URL and its slug there, NULL for a project built
	 * here; when last refreshed (microseconds, 0: never). */
	char *mirror_source;
	char *mirror_project;
	int64_t mirror_updated;
	char **tags;                /* ntags names, sorted */
	size_t ntags;
	char **users;               /* nusers maintainer usernames, sorted */
	size_t nusers;
};

LEC_PAGE_LIST(lec_project);

/* Importing ---------------------------------------------------------------- */

/* What an import accepts; NULL fields take their defaults. */
struct lec_project_new {
	const char *name;                 /* required */
	const char *repo_url;             /* required */
	const char *repo_type;            /* NULL: "git" (the only type) */
	const char *language;             /* NULL: "en" */
	const char *programming_language; /* NULL: "words" */
	const char *homepage;             /* NULL: none */
	const char *const *tags;          /* ntags names, or NULL */
	size_t ntags;
	const char *readthedocs_yaml_path; /* NULL: the default */
	const char *privacy_level;        /* NULL: "public" */
	const char *external_builds_privacy_level; /* NULL: "public" */
	/* Directories a file:// URL may lie in (lec_localrepo_check),
	 * NULL-terminated; NULL: none, every file:// URL is refused. */
	const char *const *local_roots;
};
/* A local repository another project already builds from may be imported
 * again only by a user who can read all of that project: one who
 * administers it, or can see it while none of its versions is private
 * (localrepo.h). Otherwise the URL is refused on "repository.url", with
 * one message that names no project. */

/**
 * Import a project: validate, create it with its tags and its machine
 * "latest" version, and make user_id a maintainer, all in one transaction.
 * Repository URLs follow the service (http, https, git, "lp:"), and also
 * file:// because Lectern builds local repositories, when below one of
 * in->local_roots (lec_localrepo_check) and not another project's that
 * user_id cannot read in full (above).
 * @param user_id the importing user, or 0 for none (who reads only
 *                public projects, for that rule)
 * @param out     the new project (owned by caller, lec_project_free), or NULL
 * @return LEC_OK; LEC_EINVALID with a field ("name", "repository.url", ...);
 *         LEC_EEXISTS (field "name") when the slug is taken;
 *         LEC_ENOTFOUND when user_id names no user
 */
int lec_project_create(struct lec_store *store,
		       const struct lec_project_new *in, int64_t user_id,
		       struct lec_project **out);

/* Reading ------------------------------------------------------------------ */

/** Look a project up by slug. @return LEC_OK or LEC_ENOTFOUND */
int lec_project_get(struct lec_store *store, const char *slug,
		    struct lec_project **out);
/** Look a project up by id. @return LEC_OK or LEC_ENOTFOUND */
int lec_project_get_by_id(struct lec_store *store, int64_t id,
			  struct lec_project **out);

/* Filters of the project list; NULL or "" strings do not filter. */
struct lec_project_filter {
	int64_t admin_user_id; /* projects this user administers; 0: all */
	const char *name;      /* case-insensitive substring */
	const char *slug;      /* case-insensitive substring */
	const char *language;  /* exact code */
	const char *programming_language; /* exact code */
	/* Lectern's: projects built from the local repository this URL
	 * names, however either is written (file:// or a path, the work
	 * tree or its .git, a worktree, a symlink: lec_localrepo_identity);
	 * a URL that is not local matches none. NULL: any. */
	const char *repository;
};

/**
 * Projects ordered by slug.
 * @param filter NULL for every project
 * @param page   NULL for all
 * @param out    filled; release with lec_project_list_dispose
 */
int lec_project_list(struct lec_store *store,
		     const struct lec_project_filter *filter,
		     const struct lec_page *page, struct lec_project_list *out);

/**
 * The public projects, what an anonymous reader sees (the v2 API's list),
 * ordered by slug.
 * @param slug only the project with this slug (exact); NULL for all
 * @param page NULL for all
 * @param out  filled; release with lec_project_list_dispose
 */
int lec_project_list_public(struct lec_store *store, const char *slug,
			    const struct lec_page *page,
			    struct lec_project_list *out);

/**
 * Whether user_id administers the project (maintainer or superuser).
 * @return 1 or 0; LEC_ENOTFOUND when there is no such project
 */
int lec_project_is_admin(struct lec_store *store, int64_t project_id,
			 int64_t user_id);

/**
 * Whether the project's detail is visible to viewer_id: public projects to
 * everyone (LEC_VIEWER_ANONYMOUS too), private ones to admins and to
 * members of organization teams that hold the project.
 * @return 1 or 0; LEC_ENOTFOUND when there is no such project
 */
int lec_project_can_view(struct lec_store *store, int64_t project_id,
			 int64_t viewer_id);

/* Updating ----------------------------------------------------------------- */

/* Which fields of a patch to apply (bits of lec_project_patch.fields). */
enum lec_project_field {
	LEC_PROJECT_F_NAME = 1 << 0,
	LEC_PROJECT_F_REPO_URL = 1 << 1,
	LEC_PROJECT_F_REPO_TYPE = 1 << 2,
	LEC_PROJECT_F_LANGUAGE = 1 << 3,
	LEC_PROJECT_F_PROGRAMMING_LANGUAGE = 1 << 4,
	LEC_PROJECT_F_HOMEPAGE = 1 << 5,
	LEC_PROJECT_F_TAGS = 1 << 6,
	LEC_PROJECT_F_DEFAULT_VERSION = 1 << 7,
	LEC_PROJECT_F_DEFAULT_BRANCH = 1 << 8,
	LEC_PROJECT_F_ANALYTICS_CODE = 1 << 9,
	LEC_PROJECT_F_ANALYTICS_DISABLED = 1 << 10,
	LEC_PROJECT_F_SHOW_VERSION_WARNING = 1 << 11,
	LEC_PROJECT_F_VERSIONING_SCHEME = 1 << 12,
	LEC_PROJECT_F_SINGLE_VERSION = 1 << 13,
	LEC_PROJECT_F_EXTERNAL_BUILDS_ENABLED = 1 << 14,
	LEC_PROJECT_F_READTHEDOCS_YAML_PATH = 1 << 15,
	LEC_PROJECT_F_PRIVACY_LEVEL = 1 << 16,
	LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL = 1 << 17,
	LEC_PROJECT_F_DESCRIPTION = 1 << 18,
	LEC_PROJECT_F_DOCUMENTATION_TYPE = 1 << 19,
	LEC_PROJECT_F_WATCH_COMMITS = 1 << 20,
	LEC_PROJECT_F_POLL_INTERVAL = 1 << 21
};

/* A partial update: only the fields whose bit is set are changed. A NULL
 * string clears default_branch and readthedocs_yaml_path, empties homepage
 * and analytics_code, and is refused for the other fields; tags with ntags
 * 0 removes every tag. The privacy fields are accepted here; the community
 * edition's API ignores them, as the service does. */
/* A remote repository's poll interval: often enough to replace a webhook,
 * not so often that a forge throttles the fetches. The floor is a minute:
 * each poll is a fetch (a connection and a ref advertisement) from the
 * forge, GitHub's unauthenticated git traffic is rate-limited per address,
 * and every project of a busy instance polls from the same one; a change
 * waiting a minute is what a webhook-less project can expect. */
#define LEC_PROJECT_POLL_MIN_S 60
#define LEC_PROJECT_POLL_MAX_S (7 * 24 * 3600)

struct lec_project_patch {
	unsigned int fields; /* lec_project_field bits */
	const char *name;    /* the slug never changes */
	const char *repo_url;
	const char *repo_type;
	const char *language;
	const char *programming_language;
	const char *homepage;
	const char *const *tags; /* replaces every tag */
	size_t ntags;
	const char *default_version;
	const char *default_branch;
	const char *analytics_code;
	int analytics_disabled;
	int show_version_warning;
	int watch_commits;
	unsigned poll_interval; /* 0 or LEC_PROJECT_POLL_MIN_S.._MAX_S */
	const char *versioning_scheme;
	/* true: single_version_without_translations; false: back to
	 * multiple_versions_with_translations if it was single. An explicit
	 * versioning_scheme in the same patch wins. */
	int single_version;
	int external_builds_enabled;
	const char *readthedocs_yaml_path;
	const char *privacy_level;
	const char *external_builds_privacy_level;
	const char *description;
	const char *documentation_type;
	/* Where a new file:// repo_url may lie, as in lec_project_new. */
	const char *const *local_roots;
	/* Who sets a new repo_url, which may not be a local repository
	 * another project builds from that this user cannot read in full
	 * (see lec_project_new); 0: nobody (only public projects read);
	 * LEC_VIEWER_ALL: not checked. */
	int64_t user_id;
};

/**
 * Validate and apply a patch, bumping the modified time.
 * @return LEC_OK; LEC_EINVALID with a field; LEC_ENOTFOUND
 */
int lec_project_update(struct lec_store *store, int64_t id,
		       const struct lec_project_patch *patch);

/**
 * Delete a project with everything that belongs to it (tags, maintainers,
 * subproject links either way, versions, builds, redirects, variables).
 * Its translations stay, no longer translations.
 * @return LEC_OK or LEC_ENOTFOUND
 */
int lec_project_delete(struct lec_store *store, int64_t id);

/**
 * Remove a project with everything of it (project_remove.c): its rows as
 * lec_project_delete at once, and its files under data_dir afterwards, by
 * lec_project_removal_finish: the repository cache (repos/<slug>.git and
 * .modules/), kept trees and generator state (checkouts/<slug>/), Python
 * environments and their stamps (python/<slug>/, python/.stamps/<slug>/),
 * its builds' outputs and working directories (outputs/<id>/,
 * builds/<id>/) and its published docs (published/<slug>/). Until they
 * are gone the slug stays taken: an import of it is refused
 * (LEC_EEXISTS on "name", saying it is being removed).
 *
 * Its unfinished builds are cancelled first. While a worker still holds
 * one (until its sandbox has stopped, a second or two after the cancel),
 * nothing is removed: LEC_EBUSY, and the caller asks again.
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EBUSY; store errors
 */
int lec_project_remove(struct lec_store *store, const char *data_dir,
		       int64_t id);

/* How long a removal whose files could not all be deleted (a file its
 * server may not delete) waits before it is tried again: the slug stays
 * taken meanwhile, and a minute lets an admin fix what is in the way
 * without the log filling with the same failure. */
#define LEC_PROJECT_REMOVAL_RETRY_S 60

/**
 * Delete the files of the pending removal due first (lec_project_remove),
 * then free its slug. One whose files could not all be deleted stays
 * pending, tried again LEC_PROJECT_REMOVAL_RETRY_S later. Only paths of
 * the removed project are touched: those named by its slug, which no
 * other project may take meanwhile, and by its builds' ids, never given
 * again. Safe to call from any process: one at a time holds the data
 * directory's removal lock.
 * @return LEC_OK when one was finished; LEC_ENOTFOUND when none is due;
 *         LEC_EBUSY when another process is finishing removals; LEC_EIO
 *         (it stays pending); store errors
 */
int lec_project_removal_finish(struct lec_store *store, const char *data_dir);

/* Maintainers -------------------------------------------------------------- */

/** Make a user a maintainer. @return LEC_OK, LEC_EEXISTS, LEC_ENOTFOUND */
int lec_project_maintainer_add(struct lec_store *store, int64_t project_id,
			       int64_t user_id);
/** Stop a user being a maintainer. @return LEC_OK or LEC_ENOTFOUND */
int lec_project_maintainer_remove(struct lec_store *store,
				  int64_t project_id, int64_t user_id);
/**
 * A project's maintainers ordered by username (none for a project that
 * does not exist).
 * @param out filled; release with lec_user_list_dispose
 */
int lec_project_maintainers(struct lec_store *store, int64_t project_id,
			    const struct lec_page *page,
			    struct lec_user_list *out);

/* Subprojects -------------------------------------------------------------- */

struct lec_subproject {
	int64_t id;
	char *alias;
	int64_t parent_id;
	char *parent_slug;
	struct lec_project child; /* owned; freed with the subproject */
	int64_t created;
};

LEC_PAGE_LIST(lec_subproject);

/**
 * Make the project child_slug a subproject of parent_id, acting as user_id.
 * The child must be a project the user administers, in the same
 * organization as the parent (or both in none), neither the parent, nor a
 * superproject, nor already a subproject.
 * @param alias the URL alias, or NULL/"" for the child's slug
 * @param out   the new relationship (lec_subproject_free), or NULL
 * @return LEC_OK; LEC_EINVALID with field "child", "alias" or
 *         "non_field_errors"; LEC_EEXISTS (field "alias") for a taken
 *         alias; LEC_ENOTFOUND when the parent does not exist
 */
int lec_subproject_create(struct lec_store *store, int64_t parent_id,
			  const char *child_slug, const char *alias,
			  int64_t user_id, struct lec_subproject **out);

/** A subproject of a parent by alias. @return LEC_OK or LEC_ENOTFOUND */
int lec_subproject_get(struct lec_store *store, int64_t parent_id,
		       const char *alias, struct lec_subproject **out);

/**
 * A parent's subprojects in creation order, keeping only those whose child
 * viewer_id may see (LEC_VIEWER_ALL for every one).
 * @param out filled; release with lec_subproject_list_dispose
 */
int lec_subproject_list(struct lec_store *store, int64_t parent_id,
			int64_t viewer_id, const struct lec_page *page,
			struct lec_subproject_list *out);

/**
 * Remove a subproject link; both projects stay.
 * @return LEC_OK or LEC_ENOTFOUND
 */
int lec_subproject_delete(struct lec_store *store, int64_t parent_id,
			  const char *alias);

/**
 * The project a subproject belongs to.
 * @param parent the parent project (lec_project_free)
 * @param alias  the child's alias there (owned by the caller, free()), or
 *               NULL when not wanted
 * @return LEC_OK; LEC_ENOTFOUND when child_id is no subproject (or does
 *         not exist)
 */
int lec_project_superproject(struct lec_store *store, int64_t child_id,
			     struct lec_project **parent, char **alias);

/** Free a subproject. Accepts NULL. */
void lec_subproject_free(struct lec_subproject *sub);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_subproject_list_dispose(struct lec_subproject_list *list);

/* Translations ------------------------------------------------------------- */

/**
 * Make project_id a translation of main_id, or no translation (main_id 0).
 * The main project must use translations (its versioning scheme), must not
 * be a translation itself, must differ in language from the translation and
 * from its other translations; a project that has translations cannot
 * become one.
 * @return LEC_OK; LEC_EINVALID with field "project" or "non_field_errors";
 *         LEC_ENOTFOUND
 */
int lec_project_set_translation_of(struct lec_store *store,
				   int64_t project_id, int64_t main_id);

/**
 * The translations of a project, ordered by slug, keeping those viewer_id
 * may see.
 * @param out filled; release with lec_project_list_dispose
 */
int lec_project_translations(struct lec_store *store, int64_t main_id,
			     int64_t viewer_id, const struct lec_page *page,
			     struct lec_project_list *out);

/**
 * The project a translation translates.
 * @return LEC_OK; LEC_ENOTFOUND when project_id is no translation (or does
 *         not exist)
 */
int lec_project_translation_of(struct lec_store *store, int64_t project_id,
			       struct lec_project **main);

/* Freeing ------------------------------------------------------------------ */

/** Free a project. Accepts NULL. */
void lec_project_free(struct lec_project *project);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_project_list_dispose(struct lec_project_list *list);

#ifdef __cplusplus
}
#endif
#endif
