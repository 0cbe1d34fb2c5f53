/*
 * Projects over the store: a project's row and what it holds from other
 * tables, who may see and administer it, lists, import (its importer
 * becomes its maintainer), update, delete and maintainers. A patch's
 * values are validated as the hosted service's v3 serializers validate
 * them (project_values.c, project_url.c), so that the HTTP API can pass
 * the engine's message and field straight to the client. Import and
 * update share one path: an import is a patch applied to the defaults of
 * a new project. Subprojects and translations, the two ways projects are
 * linked, are project_subproject.c's and project_translation.c's.
 */
#include <string.h>

#include "lectern/localrepo.h"
#include "lectern/project.h"
#include "lectern/slug.h"
#include "project_internal.h"
#include "store_internal.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Reading rows ------------------------------------------------------------ */

static int project_finish(void *item)
{
	struct lec_project *p = item;
	const char *scheme = p->versioning_scheme;

	p->single_version = scheme && strcmp(scheme, LEC__SCHEME_SINGLE) == 0;
	return LEC_OK;
}

/* The tags and maintainers, which no column holds. */
static void project_dispose(void *item)
{
	struct lec_project *p = item;

	lec__strings_free(p->tags, p->ntags);
	lec__strings_free(p->users, p->nusers);
}

/* A project row, of projects p: m is the main-language project, pr the
 * link to a superproject and sp that superproject (LEC__PROJECT_JOINS). */
static const struct lec__column project_columns[] = {
	LEC__INT64(lec_project, id, "p.id"),
	LEC__TEXT(lec_project, name, "p.name"),
	LEC__TEXT(lec_project, slug, "p.slug"),
	LEC__TEXT(lec_project, description, "p.description"),
	LEC__TEXT(lec_project, language, "p.language"),
	LEC__TEXT(lec_project, programming_language,
		  "p.programming_language"),
	LEC__TEXT(lec_project, repo_url, "p.repo_url"),
	LEC__TEXT(lec_project, repo_type, "p.repo_type"),
	LEC__TEXT(lec_project, homepage, "p.homepage"),
	LEC__TEXT(lec_project, default_version, "p.default_version"),
	LEC__TEXT_OPT(lec_project, default_branch, "p.default_branch"),
	LEC__TEXT(lec_project, privacy_level, "p.privacy_level"),
	LEC__TEXT(lec_project, external_builds_privacy_level,
		  "p.external_builds_privacy_level"),
	LEC__TEXT(lec_project, versioning_scheme, "p.versioning_scheme"),
	LEC__INT(lec_project, external_builds_enabled,
		 "p.external_builds_enabled"),
	LEC__INT(lec_project, show_version_warning,
		 "p.show_version_warning"),
	LEC__TEXT(lec_project, analytics_code, "p.analytics_code"),
	LEC__INT(lec_project, analytics_disabled,
		 "p.analytics_disabled"),
	LEC__TEXT_OPT(lec_project, readthedocs_yaml_path,
		      "p.readthedocs_yaml_path"),
	LEC__TEXT(lec_project, documentation_type,
		  "p.documentation_type"),
	LEC__INT64(lec_project, main_language_project_id,
		   "p.main_language_project_id"),
	LEC__TEXT_OPT(lec_project, translation_of, "m.slug"),
	LEC__TEXT_OPT(lec_project, superproject_slug, "sp.slug"),
	LEC__TEXT_OPT(lec_project, superproject_alias, "pr.alias"),
	LEC__TIME(lec_project, created, "p.created"),
	LEC__TIME(lec_project, modified, "p.modified"),
	LEC__INT(lec_project, watch_commits, "p.watch_commits"),
	LEC__INT(lec_project, poll_interval, "p.poll_interval"),
	LEC__TEXT_OPT(lec_project, mirror_source, "p.mirror_source"),
	LEC__TEXT_OPT(lec_project, mirror_project, "p.mirror_project"),
	LEC__TIME(lec_project, mirror_updated, "p.mirror_updated"),
};
const struct lec__row lec__project_row =
	LEC__ROW(lec_project, project_columns, project_finish, project_dispose);

/* A project's tags and maintainers, as bare names (char *). */
static const struct lec__column tag_columns[] = {
	{ .sql = "name", .kind = LEC__COL_TEXT, .offset = 0 },
};
static const struct lec__row tag_row =
	LEC__ROW_OF(char *, tag_columns);

/* The first column of every row of a query over one id, in order. */
static int names_load(struct lec_store *st, const struct lec__row *row,
		      const char *from, const char *where, const char *order,
		      int64_t id, char ***out, size_t *n)
{
	struct lec__query q;
	int error;

	lec__query_init(&q, row, from);
	lec__query_where_int(&q, where, id);
	error = lec__query_list(st, &q, order, NULL, (void **)out, n, NULL);
	lec__query_dispose(&q);
	return error;
}

/* Tags and maintainers live in their own tables. */
int lec__project_load_members(struct lec_store *st, void *item)
{
	struct lec_project *p = item;
	int error;

	error = names_load(st, &tag_row, "project_tags", "project_id = ?",
			   "name", p->id, &p->tags, &p->ntags);
	if (error == LEC_OK)
		error = names_load(st, &lec__username_row,
				   "project_users pu JOIN users u "
				   "ON u.id = pu.user_id",
				   "pu.project_id = ?", "u.username", p->id,
				   &p->users, &p->nusers);
	return error;
}

const struct lec__table lec__projects = {
	.row = &lec__project_row, .from = "projects p" LEC__PROJECT_JOINS,
	.id = "p.id = ?", .text = "p.slug = ?",
	.order = "p.slug", .load = lec__project_load_members,
};

/* The one project with this slug (NULL: with this id), with the message
 * saying which is not there. */
int lec__project_fetch(struct lec_store *st, const char *slug, int64_t id,
		       struct lec_project **out)
{
	int error = slug ? lec__table_get_text(st, &lec__projects, NULL, slug,
					       (void **)out)
			 : lec__table_get(st, &lec__projects, NULL, id,
					  (void **)out);

	if (error != LEC_ENOTFOUND)
		return error;
	return slug ? lec__error(LEC_ENOTFOUND, "no project '%s'", slug)
		    : lec__error(LEC_ENOTFOUND, "no project with id %lld",
				 (long long)id);
}

LEC__DEFINE_FREES(lec_project, &lec__project_row)

int lec_project_get(struct lec_store *st, const char *slug,
		    struct lec_project **out)
{
	lec_error_clear();
	*out = NULL;
	if (slug == NULL)
		return lec__error(LEC_EINVALID, "no project slug given");
	return lec__project_fetch(st, slug, 0, out);
}

int lec_project_get_by_id(struct lec_store *st, int64_t id,
			  struct lec_project **out)
{
	return lec__project_fetch(st, NULL, id, out);
}

/* Small statements --------------------------------------------------------- */

/* Run a write over ids; *changes (may be NULL) gets the rows touched. */
static int run_ids(struct lec_store *st, const char *sql, const char *what,
		   const int64_t *ids, int nids, int *changes)
{
	return lec_store__exec_ints(st, sql, ids, nids, what, changes);
}

/* The integer in the first column of the first row; *found is 0 when
 * there is no row. */
static int query_int_ids(struct lec_store *st, const char *sql,
			 const int64_t *ids, int nids, int64_t *value,
			 int *found)
{
	return lec_store__query_int(st, sql, ids, nids, "reading", value, found);
}

static int row_exists(struct lec_store *st, const char *sql, int64_t id,
		      int *found)
{
	int64_t value;

	return query_int_ids(st, sql, &id, 1, &value, found);
}

int lec__project_exists(struct lec_store *st, int64_t id)
{
	int found = 0;
	int error = row_exists(st, "SELECT 1 FROM projects WHERE id = ?", id,
			       &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no project with id %lld",
				   (long long)id);
	return error;
}

static int require_user(struct lec_store *st, int64_t id)
{
	int found = 0;
	int error = row_exists(st, "SELECT 1 FROM users WHERE id = ?", id,
			       &found);

	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no user with id %lld",
				   (long long)id);
	return error;
}

static int user_is_superuser(struct lec_store *st, int64_t user_id,
			     int *is_superuser)
{
	int64_t value = 0;
	int found = 0;
	int error = query_int_ids(st,
				  "SELECT is_superuser FROM users WHERE id = ?",
				  &user_id, 1, &value, &found);

	*is_superuser = found && value;
	return error;
}

/* Access ------------------------------------------------------------------ */

/* What user_id may do with the project: bit 2 admin, bit 1 reader (admins,
 * organization teams holding it), bit 0 public. Superusers are admins. */
static int project_access(struct lec_store *st, int64_t project_id,
			  int64_t user_id, int *is_admin, int *is_reader,
			  int *is_public)
{
	static const char sql[] =
		"SELECT (coalesce((SELECT is_superuser FROM users "
		"                  WHERE id = ?2), 0) <> 0"
		"        OR EXISTS (SELECT 1 FROM project_admins"
		"                   WHERE project_id = p.id AND user_id = ?2))"
		"       * 4"
		"     + EXISTS (SELECT 1 FROM project_readers"
		"               WHERE project_id = p.id AND user_id = ?2) * 2"
		"     + (p.privacy_level = 'public')"
		"  FROM projects p WHERE p.id = ?1";
	int64_t ids[2] = { project_id, user_id };
	int64_t bits = 0;
	int found = 0;
	int error = query_int_ids(st, sql, ids, 2, &bits, &found);

	if (error < 0)
		return error;
	if (!found)
		return lec__error(LEC_ENOTFOUND, "no project with id %lld",
				  (long long)project_id);
	*is_admin = (bits & 4) != 0;
	*is_reader = (bits & 6) != 0;
	*is_public = (bits & 1) != 0;
	return LEC_OK;
}

int lec_project_is_admin(struct lec_store *st, int64_t project_id,
			 int64_t user_id)
{
	int is_admin = 0, is_reader = 0, is_public = 0;
	int error;

	lec_error_clear();
	error = project_access(st, project_id, user_id, &is_admin, &is_reader,
			       &is_public);
	return error < 0 ? error : is_admin;
}

int lec_project_can_view(struct lec_store *st, int64_t project_id,
			 int64_t viewer_id)
{
	int is_admin = 0, is_reader = 0, is_public = 0;
	int error;

	lec_error_clear();
	error = project_access(st, project_id, viewer_id, &is_admin,
			       &is_reader, &is_public);
	if (error < 0)
		return error;
	return is_public || is_reader || viewer_id == LEC_VIEWER_ALL;
}

/* Keep the projects (alias p) viewer may see: public ones, and every one
 * for those who may read it (LEC_VIEWER_ALL: all). */
static int query_visible_to(struct lec_store *st, struct lec__query *q,
			    int64_t viewer)
{
	int is_superuser = 0;
	int error;

	if (viewer == LEC_VIEWER_ALL)
		return LEC_OK;
	if ((error = user_is_superuser(st, viewer, &is_superuser)) < 0)
		return error;
	if (!is_superuser)
		lec__query_where_int(q,
				     "p.privacy_level = 'public' OR EXISTS "
				     "(SELECT 1 FROM project_readers r WHERE "
				     "r.project_id = p.id AND r.user_id = ?)",
				     viewer);
	return LEC_OK;
}

int lec__project_list_visible(struct lec_store *st,
			      const struct lec__table *t, const char *cond,
			      int64_t id, int64_t viewer,
			      const struct lec_page *page, void **items,
			      size_t *len, size_t *total)
{
	struct lec__query q;
	int error;

	lec_error_clear();
	lec__table_query(&q, t);
	lec__query_where_int(&q, cond, id);
	if ((error = query_visible_to(st, &q, viewer)) == LEC_OK)
		return lec__table_rows(st, t, &q, page, items, len, total);
	lec__query_dispose(&q);
	*items = NULL;
	*len = *total = 0;
	return error;
}

int lec__project_refuse_mirrored(struct lec_store *st, int64_t project_id,
				 const char *what)
{
	int64_t v[1] = { project_id };
	int64_t found = 0;
	int rc;

	rc = lec_store__query_int(st,
				  "SELECT 1 FROM projects WHERE id = ? AND "
				  "mirror_source IS NOT NULL",
				  v, 1, "reading the project", &found, NULL);
	if (rc < 0)
		return rc;
	return found ? lec__error(LEC_EINVALID,
				  "This project is a mirror of another "
				  "instance's docs: it is never %s here "
				  "(`lectern mirror update` refreshes it).",
				  what)
		     : LEC_OK;
}

/* Listing ----------------------------------------------------------------- */

static int query_admin_of(struct lec_store *st, struct lec__query *q,
			  int64_t user_id)
{
	int is_superuser = 0;
	int error;

	if ((error = user_is_superuser(st, user_id, &is_superuser)) < 0)
		return error;
	if (!is_superuser)
		lec__query_where_int(q,
				     "EXISTS (SELECT 1 FROM project_admins a "
				     "WHERE a.project_id = p.id AND "
				     "a.user_id = ?)",
				     user_id);
	return LEC_OK;
}

static int nonempty(const char *s)
{
	return s && *s;
}

/* Only the projects whose local repository is the one url names: their
 * ids, found by comparing identities (the store cannot canonicalise a
 * path), as a condition. */
static int query_repository(struct lec_store *st, struct lec__query *q,
			    const char *url)
{
	struct lec__buf cond = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	char *want = NULL, *text;
	int error, rc;

	if ((error = lec_localrepo_identity(url, &want)) < 0)
		return error;
	lec__buf_puts(&cond, "p.id IN (0");
	if (want && (error = lec_store__prepare(st, &stmt,
						"SELECT id, repo_url FROM "
						"projects WHERE repo_url LIKE "
						"'file:%'")) == LEC_OK) {
		while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && error == LEC_OK) {
			const char *theirs =
				(const char *)sqlite3_column_text(stmt, 1);
			char *id = NULL;

			error = lec_localrepo_identity(theirs, &id);
			if (id && strcmp(id, want) == 0)
				lec__buf_printf(&cond, ", %lld",
						(long long)sqlite3_column_int64(
							stmt, 0));
			lec__free(id);
		}
		if (error == LEC_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
			error = lec_store__sqlerr(st, rc, "listing projects");
		lec_store__finalize(st, stmt);
	}
	lec__buf_puts(&cond, ")");
	lec__free(want);
	if ((text = lec__buf_take(&cond)) == NULL)
		return error < 0 ? error : lec__error_oom();
	if (error == LEC_OK)
		lec__query_where(q, text);
	lec__free(text);
	return error;
}

int lec_project_list(struct lec_store *st,
		     const struct lec_project_filter *filter,
		     const struct lec_page *page, struct lec_project_list *out)
{
	struct lec__query q;
	int error = LEC_OK;

	lec_error_clear();
	memset(out, 0, sizeof(*out));
	lec__table_query(&q, &lec__projects);
	if (filter && filter->admin_user_id)
		error = query_admin_of(st, &q, filter->admin_user_id);
	if (filter && nonempty(filter->name))
		lec__query_where_text(&q, "instr(lower(p.name), lower(?)) > 0",
				      filter->name);
	if (filter && nonempty(filter->slug))
		lec__query_where_text(&q, "instr(lower(p.slug), lower(?)) > 0",
				      filter->slug);
	if (filter && nonempty(filter->language))
		lec__query_where_text(&q, "p.language = ?", filter->language);
	if (filter && nonempty(filter->programming_language))
		lec__query_where_text(&q, "p.programming_language = ?",
				      filter->programming_language);
	if (error == LEC_OK && filter && nonempty(filter->repository))
		error = query_repository(st, &q, filter->repository);
	if (error < 0) {
		lec__query_dispose(&q);
		return error;
	}
	return lec__table_rows(st, &lec__projects, &q, page,
			       (void **)&out->items, &out->len, &out->total);
}

static int tags_write(struct lec_store *st, int64_t id,
		      const struct lec__project_values *v)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int error;

	if ((error = run_ids(st, "DELETE FROM project_tags WHERE project_id = ?",
			     "replacing tags", &id, 1, NULL)) < 0 ||
	    v->ntags == 0)
		return error;
	if ((error = lec_store__prepare_ints(st, &stmt,
					      "INSERT INTO project_tags "
					      "(project_id, name) VALUES (?, ?)",
					      &id, 1)) < 0)
		return error;
	for (i = 0; i < v->ntags && error == LEC_OK; i++) {
		sqlite3_reset(stmt);
		if ((error = lec_store__bind_text(stmt, 2, v->tags[i])) == 0)
			error = lec_store__step_done(st, stmt, "adding a tag");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Importing --------------------------------------------------------------- */

/* Which parts of an import map onto patch fields. */
#define IMPORT_FIELDS                                                        \
	(LEC_PROJECT_F_NAME | LEC_PROJECT_F_REPO_URL |                       \
	 LEC_PROJECT_F_REPO_TYPE | LEC_PROJECT_F_LANGUAGE |                  \
	 LEC_PROJECT_F_PROGRAMMING_LANGUAGE | LEC_PROJECT_F_HOMEPAGE |       \
	 LEC_PROJECT_F_TAGS | LEC_PROJECT_F_READTHEDOCS_YAML_PATH |          \
	 LEC_PROJECT_F_PRIVACY_LEVEL |                                       \
	 LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL)

/* An import as a patch over the defaults: fields left NULL keep them. */
static void patch_from_new(const struct lec_project_new *in,
			   struct lec_project_patch *p)
{
	memset(p, 0, sizeof(*p));
	p->fields = LEC_PROJECT_F_NAME | LEC_PROJECT_F_REPO_URL;
	p->name = in->name;
	p->repo_url = in->repo_url;
	p->repo_type = in->repo_type;
	p->language = in->language;
	p->programming_language = in->programming_language;
	p->homepage = in->homepage;
	p->tags = in->tags;
	p->ntags = in->ntags;
	p->readthedocs_yaml_path = in->readthedocs_yaml_path;
	p->privacy_level = in->privacy_level;
	p->external_builds_privacy_level = in->external_builds_privacy_level;
	p->local_roots = in->local_roots;
	p->fields |= (in->repo_type ? LEC_PROJECT_F_REPO_TYPE : 0u) |
		     (in->language ? LEC_PROJECT_F_LANGUAGE : 0u) |
		     (in->programming_language
			      ? LEC_PROJECT_F_PROGRAMMING_LANGUAGE
			      : 0u) |
		     (in->homepage ? LEC_PROJECT_F_HOMEPAGE : 0u) |
		     (in->ntags ? LEC_PROJECT_F_TAGS : 0u) |
		     (in->readthedocs_yaml_path
			      ? LEC_PROJECT_F_READTHEDOCS_YAML_PATH
			      : 0u) |
		     (in->privacy_level ? LEC_PROJECT_F_PRIVACY_LEVEL : 0u) |
		     (in->external_builds_privacy_level
			      ? LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL
			      : 0u);
}

static int slug_taken_error(const char *slug)
{
	return lec__error_field(LEC_EEXISTS, "name",
				"Project with slug \"%s\" already exists.",
				slug);
}

/* The slug of a validated name, refusing names without one or whose slug
 * another project has (the service checks both while validating). */
static int import_slug(struct lec_store *st, const char *name, char **out)
{
	int found = 0, error;
	sqlite3_stmt *stmt = NULL;

	*out = NULL;
	if ((error = lec_slug_project(name, out)) < 0)
		return error;
	if (**out == '\0')
		return lec__error_field(LEC_EINVALID, "name",
					"Invalid project name \"%s\": no slug "
					"generated.", name);
	if ((error = lec_store__prepare(st, &stmt,
					"SELECT 1 FROM projects "
					"WHERE slug = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, *out)) == LEC_OK) {
		int rc = sqlite3_step(stmt);

		found = rc == SQLITE_ROW;
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a slug");
	}
	lec_store__finalize(st, stmt);
	if (error == LEC_OK && found)
		error = slug_taken_error(*out);
	return error;
}

static int project_insert_row(struct lec_store *st,
			      struct lec__project_values *v, 
			      const char *slug, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO projects (" LEC__PROJECT_VALUE_COLUMNS
		     ", slug, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, "
		     "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) < 0)
		return error;
	if ((error = lec__project_values_bind(stmt, 1, v)) < 0 ||
	    (error = lec_store__bind_text(stmt, LEC__PROJECT_VALUE_COUNT + 1,
					  slug)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, LEC__PROJECT_VALUE_COUNT + 2, now);
	sqlite3_bind_int64(stmt, LEC__PROJECT_VALUE_COUNT + 3, now);
	error = lec_store__step_done(st, stmt, "creating a project");
	if (error == LEC_EEXISTS)
		error = slug_taken_error(slug);
	*id = sqlite3_last_insert_rowid(st->db);
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* Every project starts with its machine "latest" version, which follows
 * the default branch (identifier unknown until the first sync). */
static int latest_insert(struct lec_store *st, int64_t project_id)
{
	int64_t now = lec__now_us();
	int64_t ids[3] = { project_id, now, now };

	return run_ids(st,
		       "INSERT INTO versions (project_id, slug, verbose_name, "
		       "identifier, type, active, machine, created, modified) "
		       "VALUES (?1, 'latest', 'latest', NULL, 'branch', 1, 1, "
		       "?2, ?3)",
		       "creating the latest version", ids, 3, NULL);
}

static int maintainer_insert(struct lec_store *st, int64_t project_id,
			     int64_t user_id)
{
	int64_t ids[2] = { project_id, user_id };

	return run_ids(st,
		       "INSERT INTO project_users (project_id, user_id) "
		       "VALUES (?, ?)",
		       "adding a maintainer", ids, 2, NULL);
}

/* A removed project's slug stays taken until its files are gone
 * (project_remove.c): a project of that slug would build into them. */
static int refuse_removing(struct lec_store *st, const char *slug)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(st, &stmt,
					"SELECT 1 FROM project_removals "
					"WHERE slug = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, slug)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			error = lec__error_field(
				LEC_EEXISTS, "name",
				"Project with slug \"%s\" already exists: "
				"it is being removed. Import it again once "
				"its files are gone.",
				slug);
		else if (rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a slug");
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int project_insert(struct lec_store *st, struct lec__project_values *v,
			  const char *slug, int64_t user_id, int64_t *id)
{
	int error;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	/* In the write transaction: a removal recorded meanwhile counts. */
	if ((error = refuse_removing(st, slug)) == LEC_OK &&
	    (error = project_insert_row(st, v, slug, id)) == LEC_OK &&
	    (error = tags_write(st, *id, v)) == LEC_OK &&
	    (!user_id || (error = maintainer_insert(st, *id, user_id)) == 0))
		error = latest_insert(st, *id);
	return lec_store__end(st, error);
}

int lec_project_create(struct lec_store *st,
		       const struct lec_project_new *in, int64_t user_id,
		       struct lec_project **out)
{
	struct lec_project_patch patch;
	struct lec__project_values v;
	char *slug = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (in == NULL)
		return lec__error(LEC_EINVALID, "no project given");
	if ((error = lec__project_values_defaults(&v)) < 0)
		goto done;
	if (in->name == NULL || in->repo_url == NULL) {
		error = lec__error_required(in->name ? "repository.url" : "name");
		goto done;
	}
	if (user_id && (error = require_user(st, user_id)) < 0)
		goto done;
	patch_from_new(in, &patch);
	if ((error = lec__project_values_apply(&v, &patch,
					       LEC_PROJECT_F_NAME)) < 0 ||
	    (error = import_slug(st, v.name, &slug)) < 0 ||
	    (error = lec__project_values_apply(
		     &v, &patch, IMPORT_FIELDS & ~LEC_PROJECT_F_NAME)) < 0 ||
	    (error = lec__project_local_repo_check(st, 0, NULL, v.repo_url,
						   user_id)) < 0 ||
	    (error = project_insert(st, &v, slug, user_id, &id)) < 0)
		goto done;
	if (out)
		error = lec__project_fetch(st, NULL, id, out);
done:
	lec__project_values_dispose(&v);
	lec__free(slug);
	return error;
}

/* Updating and deleting --------------------------------------------------- */

static int project_update_row(struct lec_store *st, int64_t id,
			      struct lec__project_values *v)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE projects SET (" LEC__PROJECT_VALUE_COLUMNS
		     ", modified) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		     "?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?")) < 0)
		return error;
	if ((error = lec__project_values_bind(stmt, 1, v)) == LEC_OK) {
		sqlite3_bind_int64(stmt, LEC__PROJECT_VALUE_COUNT + 1,
				   lec__now_us());
		sqlite3_bind_int64(stmt, LEC__PROJECT_VALUE_COUNT + 2, id);
		error = lec_store__step_done(st, stmt, "updating a project");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* Load, patch and write back, inside the caller's transaction. */
static int project_patch(struct lec_store *st, int64_t id,
			 const struct lec_project_patch *patch)
{
	struct lec_project *current = NULL;
	struct lec__project_values v;
	int error;

	memset(&v, 0, sizeof(v));
	if ((error = lec__project_fetch(st, NULL, id, &current)) < 0 ||
	    (error = lec__project_values_from_project(&v, current)) < 0 ||
	    (error = lec__project_values_apply(&v, patch, ~0u)) < 0 ||
	    ((patch->fields & LEC_PROJECT_F_REPO_URL) &&
	     (error = lec__project_local_repo_check(st, id, current->repo_url,
						    v.repo_url,
						    patch->user_id)) < 0) ||
	    (error = project_update_row(st, id, &v)) < 0)
		goto done;
	if (patch->fields & LEC_PROJECT_F_TAGS)
		error = tags_write(st, id, &v);
done:
	lec_project_free(current);
	lec__project_values_dispose(&v);
	return error;
}

int lec_project_update(struct lec_store *st, int64_t id,
		       const struct lec_project_patch *patch)
{
	int error;

	lec_error_clear();
	if (patch == NULL)
		return lec__error(LEC_EINVALID, "no changes given");
	if ((error = lec_store__begin(st)) < 0)
		return error;
	return lec_store__end(st, project_patch(st, id, patch));
}

int lec_project_delete(struct lec_store *st, int64_t id)
{
	int changes = 0;
	int error;

	lec_error_clear();
	error = run_ids(st, "DELETE FROM projects WHERE id = ?",
			"deleting a project", &id, 1, &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND, "no project with id %lld",
				   (long long)id);
	return error;
}

/* Maintainers ------------------------------------------------------------- */

int lec_project_maintainer_add(struct lec_store *st, int64_t project_id,
			       int64_t user_id)
{
	int error;

	lec_error_clear();
	if ((error = lec__project_exists(st, project_id)) < 0 ||
	    (error = require_user(st, user_id)) < 0)
		return error;
	error = maintainer_insert(st, project_id, user_id);
	if (error == LEC_EEXISTS)
		error = lec__error(LEC_EEXISTS,
				   "user %lld already maintains project %lld",
				   (long long)user_id, (long long)project_id);
	return error;
}

int lec_project_maintainer_remove(struct lec_store *st, int64_t project_id,
				  int64_t user_id)
{
	int64_t ids[2] = { project_id, user_id };
	int changes = 0;
	int error;

	lec_error_clear();
	error = run_ids(st,
			"DELETE FROM project_users "
			"WHERE project_id = ? AND user_id = ?",
			"removing a maintainer", ids, 2, &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "user %lld is no maintainer of project %lld",
				   (long long)user_id, (long long)project_id);
	return error;
}

/* A project's maintainers, as users. */
static const struct lec__table maintainers = {
	.row = &lec__user_row,
	.from = "users u JOIN project_users pu ON pu.user_id = u.id",
	.scope = "pu.project_id = ?",
	.order = "u.username",
};

int lec_project_maintainers(struct lec_store *st, int64_t project_id,
			    const struct lec_page *page,
			    struct lec_user_list *out)
{
	return lec__table_list(st, &maintainers, &project_id, page,
			       (void **)&out->items, &out->len, &out->total);
}
