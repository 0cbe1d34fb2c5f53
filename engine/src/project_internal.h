/*
 * What the files of the project module share (project.c and the files
 * carved from it: project_url.c, project_values.c,
 * project_subproject.c, project_translation.c): the checks, the
 * rows and the lookups one of them defines and another uses. Nothing
 * outside them includes it.
 */
#ifndef LECTERN_PROJECT_INTERNAL_H
#define LECTERN_PROJECT_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>

#include "lectern/project.h"
#include "store_internal.h"

/* URL checks (project_url.c) --------------------------------------------- */

/* Python's \s and \w over UTF-8, as the service's patterns match them
 * (any non-ASCII byte is a word character). */
int lec__project_is_space(unsigned char c);
int lec__project_is_word(unsigned char c);

/* LEC_OK, or LEC_EINVALID on "repository.url" with the service's message:
 * a repository URL the service's RepositoryURLValidator refuses (file://
 * is Lectern's addition). */
int lec__project_repo_url_check(const char *url);
/* Whether url passes Django's URLValidator (a project's homepage). */
int lec__project_web_url_valid(const char *url);

/* Values (project_values.c) --------------------------------------------- */

/* The versioning schemes (the service's choices). */
#define LEC__SCHEME_WITH_TRANSLATIONS "multiple_versions_with_translations"
#define LEC__SCHEME_WITHOUT_TRANSLATIONS                                     \
	"multiple_versions_without_translations"
#define LEC__SCHEME_SINGLE "single_version_without_translations"

/* A project's writable columns, owned, in the order of
 * LEC__PROJECT_VALUE_COLUMNS. */
struct lec__project_values {
	char *name;
	char *description;
	char *language;
	char *programming_language;
	char *repo_url;
	char *repo_type;
	char *homepage;
	char *default_version;
	char *default_branch;
	char *privacy_level;
	char *external_builds_privacy_level;
	char *versioning_scheme;
	char *analytics_code;
	char *readthedocs_yaml_path;
	char *documentation_type;
	int external_builds_enabled;
	int show_version_warning;
	int analytics_disabled;
	int watch_commits;
	unsigned poll_interval;
	char **tags;
	size_t ntags;
};

#define LEC__PROJECT_VALUE_COLUMNS                                           \
	"name, description, language, programming_language, repo_url, "      \
	"repo_type, homepage, default_version, default_branch, "             \
	"privacy_level, external_builds_privacy_level, versioning_scheme, "  \
	"analytics_code, readthedocs_yaml_path, documentation_type, "        \
	"external_builds_enabled, show_version_warning, analytics_disabled, " \
	"watch_commits, poll_interval"
/* How many LEC__PROJECT_VALUE_COLUMNS there are. */
#define LEC__PROJECT_VALUE_COUNT 20

/* The values of a project nobody has configured yet, or of p; v is
 * overwritten (dispose it after either, even on failure). */
int lec__project_values_defaults(struct lec__project_values *v);
int lec__project_values_from_project(struct lec__project_values *v,
				     const struct lec_project *p);
/* Check and apply the fields of p that are set and also in mask, in the
 * service's order: LEC_OK, or LEC_EINVALID naming the field. */
int lec__project_values_apply(struct lec__project_values *v,
			      const struct lec_project_patch *p,
			      unsigned int mask);
/* Bind v to ?first .. ?first + LEC__PROJECT_VALUE_COUNT - 1 in
 * LEC__PROJECT_VALUE_COLUMNS order. */
int lec__project_values_bind(sqlite3_stmt *stmt, int first,
			     struct lec__project_values *v);
void lec__project_values_dispose(struct lec__project_values *v);

/* Rows and lookups (project.c) ------------------------------------------ */

/* The joins of a project row over projects p (lec__project_row): m is the
 * main-language project, pr the link to a superproject, sp that
 * superproject. */
#define LEC__PROJECT_JOINS                                                   \
	" LEFT JOIN projects m ON m.id = p.main_language_project_id"         \
	" LEFT JOIN subprojects pr ON pr.child_id = p.id"                    \
	" LEFT JOIN projects sp ON sp.id = pr.parent_id"

/* A project's row (struct lec_project), and what it holds from other
 * tables, its tags and maintainers: a table's load. */
extern const struct lec__row lec__project_row;
int lec__project_load_members(struct lec_store *st, void *item);

/* The one project with this slug (NULL: with this id) into a new
 * lec_project; LEC_ENOTFOUND saying which is not there. */
int lec__project_fetch(struct lec_store *st, const char *slug, int64_t id,
		       struct lec_project **out);

/* What a list of projects viewer may see does (clears the error): the
 * page of the rows of t (over projects p) where cond (one '?') is id, in
 * t's order; viewer sees public projects, and every one they may read
 * (LEC_VIEWER_ALL: all). */
int lec__project_list_visible(struct lec_store *st,
			      const struct lec__table *t, const char *cond,
			      int64_t id, int64_t viewer,
			      const struct lec_page *page, void **items,
			      size_t *len, size_t *total);

#endif
