/*
 * Subprojects: a project (the parent) serving another (the child) under
 * an alias, as the service's ProjectRelationship does. Who may add which
 * child (its get_subproject_candidates: a project the user administers,
 * in the parent's organization, neither a parent nor a child already),
 * the alias rule and its uniqueness per parent, and the lists, which
 * show each child as a whole project row (lec__project_row, nested).
 */

#include "lectern/project.h"
#include "project_internal.h"
#include "store_internal.h"

static int subproject_load(struct lec_store *st, void *item)
{
	struct lec_subproject *s = item;

	return lec__project_load_members(st, &s->child);
}

/* r is the relationship, par its parent, p the child. */
static const struct lec__column subproject_columns[] = {
	LEC__INT64(lec_subproject, id, "r.id"),
	LEC__TEXT(lec_subproject, alias, "r.alias"),
	LEC__INT64(lec_subproject, parent_id, "r.parent_id"),
	LEC__TEXT(lec_subproject, parent_slug, "par.slug"),
	LEC__TIME(lec_subproject, created, "r.created"),
	LEC__NESTED(lec_subproject, child, &lec__project_row),
};
static const struct lec__row subproject_row =
	LEC__ROW(lec_subproject, subproject_columns, NULL, NULL);
/* The service gives relationships no order: creation order here. */
static const struct lec__table subprojects = {
	.row = &subproject_row,
	.from = "subprojects r JOIN projects par ON par.id = r.parent_id "
		"JOIN projects p ON p.id = r.child_id" LEC__PROJECT_JOINS,
	.scope = "r.parent_id = ?", .text = "r.alias = ?",
	.order = "r.id", .load = subproject_load,
};

LEC__DEFINE_FREES(lec_subproject, &subproject_row)

static int subproject_fetch(struct lec_store *st, int64_t parent_id,
			    const char *alias, struct lec_subproject **out)
{
	int error = lec__table_get_text(st, &subprojects, &parent_id, alias,
					(void **)out);

	return error == LEC_ENOTFOUND
		       ? lec__error(LEC_ENOTFOUND,
				    "project %lld has no subproject '%s'",
				    (long long)parent_id, alias)
		       : error;
}

int lec_subproject_get(struct lec_store *st, int64_t parent_id,
		       const char *alias, struct lec_subproject **out)
{
	lec_error_clear();
	*out = NULL;
	if (alias == NULL)
		return lec__error(LEC_EINVALID, "no alias given");
	return subproject_fetch(st, parent_id, alias, out);
}

int lec_subproject_list(struct lec_store *st, int64_t parent_id,
			int64_t viewer_id, const struct lec_page *page,
			struct lec_subproject_list *out)
{
	return lec__project_list_visible(st, &subprojects, "r.parent_id = ?",
					 parent_id, viewer_id, page,
					 (void **)&out->items, &out->len,
					 &out->total);
}

int lec_subproject_delete(struct lec_store *st, int64_t parent_id,
			  const char *alias)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if (alias == NULL)
		return lec__error(LEC_EINVALID, "no alias given");
	if ((error = lec_store__prepare_ints(st, &stmt,
					      "DELETE FROM subprojects WHERE "
					      "parent_id = ?1 AND alias = ?2",
					      &parent_id, 1)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 2, alias)) == LEC_OK)
		error = lec_store__step_done(st, stmt, "removing a subproject");
	if (error == LEC_OK && sqlite3_changes(st->db) == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "project %lld has no subproject '%s'",
				   (long long)parent_id, alias);
	lec_store__finalize(st, stmt);
	return error;
}

/* The id of the project child_slug if it may become a subproject of
 * parent_id for user_id (the service's get_subproject_candidates), else 0. */
static int subproject_candidate(struct lec_store *st, int64_t parent_id,
				const char *child_slug, int64_t user_id,
				int64_t *child_id)
{
	static const char sql[] =
		"SELECT p.id FROM projects p WHERE p.slug = ?3"
		" AND p.id <> ?1"
		" AND NOT EXISTS (SELECT 1 FROM subprojects WHERE parent_id = p.id)"
		" AND NOT EXISTS (SELECT 1 FROM subprojects WHERE child_id = p.id)"
		" AND (coalesce((SELECT is_superuser FROM users WHERE id = ?2), 0)"
		"      <> 0 OR EXISTS (SELECT 1 FROM project_admins"
		"                      WHERE project_id = p.id AND user_id = ?2))"
		" AND (SELECT organization_id FROM organization_projects"
		"      WHERE project_id = p.id) IS"
		"     (SELECT organization_id FROM organization_projects"
		"      WHERE project_id = ?1)";
	int64_t ids[2] = { parent_id, user_id };
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*child_id = 0;
	if ((error = lec_store__prepare_ints(st, &stmt, sql, ids, 2)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 3, child_slug)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			*child_id = sqlite3_column_int64(stmt, 0);
		else if (rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking a child");
	}
	lec_store__finalize(st, stmt);
	return error;
}

/* The service's alias rule: ^[-\w]+(?:/[-\w]+)*$ */
static int valid_alias(const char *alias)
{
	const char *p = alias;

	for (;;) {
		const char *start = p;

		while (lec__project_is_word((unsigned char)*p) || *p == '-')
			p++;
		if (p == start)
			return 0;
		if (*p == '\0')
			return 1;
		if (*p++ != '/')
			return 0;
	}
}

static int alias_taken(struct lec_store *st, int64_t parent_id,
		       const char *alias, int *taken)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	*taken = 0;
	if ((error = lec_store__prepare_ints(st, &stmt,
					      "SELECT 1 FROM subprojects WHERE "
					      "parent_id = ?1 AND alias = ?2",
					      &parent_id, 1)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 2, alias)) == LEC_OK) {
		rc = sqlite3_step(stmt);
		*taken = rc == SQLITE_ROW;
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			error = lec_store__sqlerr(st, rc, "checking an alias");
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int alias_taken_error(void)
{
	return lec__error_field(LEC_EEXISTS, "alias",
				"A subproject with this alias already exists");
}

/* Check the alias (given, or else the child's slug), in the service's
 * order: its own rules, uniqueness, then the rules about the request. */
static int subproject_check_alias(struct lec_store *st, int64_t parent_id,
				  const char *alias, int given)
{
	int64_t unused = 0;
	int taken = 0, nested = 0;
	int error;

	if (given && lec__utf8_chars(alias) > LEC_SUBPROJECT_ALIAS_MAX)
		return lec__error_too_long("alias", LEC_SUBPROJECT_ALIAS_MAX);
	if (given && !valid_alias(alias))
		return lec__error_field(LEC_EINVALID, "alias",
					"Aliases can contain letters, numbers, "
					"underscores, and hyphens.");
	if ((error = alias_taken(st, parent_id, alias, &taken)) < 0)
		return error;
	if (taken)
		return alias_taken_error();
	if ((error = lec_store__query_int(st,
					  "SELECT 1 FROM subprojects WHERE "
					  "child_id = ?",
					  &parent_id, 1, "reading", &unused,
					  &nested)) < 0)
		return error;
	if (nested)
		return lec__error_field(LEC_EINVALID, "non_field_errors",
					"Subproject nesting is not supported");
	/* Aliases with slashes ("api/python") are allowed: the service
	 * allows them behind a per-project feature its staff turn on;
	 * Lectern has no such switches and serves them (docs.c). */
	return LEC_OK;
}

static int subproject_insert(struct lec_store *st, int64_t parent_id,
			     int64_t child_id, const char *alias)
{
	int64_t ids[3] = { parent_id, child_id, lec__now_us() };
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare_ints(st, &stmt,
					      "INSERT INTO subprojects "
					      "(parent_id, child_id, created, "
					      "alias) VALUES (?1, ?2, ?3, ?4)",
					      ids, 3)) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 4, alias)) == LEC_OK)
		error = lec_store__step_done(st, stmt, "adding a subproject");
	if (error == LEC_EEXISTS)
		error = alias_taken_error();
	lec_store__finalize(st, stmt);
	return error;
}

/* Validate and link, inside the caller's transaction. */
static int subproject_link(struct lec_store *st, int64_t parent_id,
			   const char *child_slug, const char *alias,
			   int64_t user_id)
{
	int64_t child_id = 0;
	int given = alias && *alias;
	int error;

	if ((error = lec__project_exists(st, parent_id)) < 0)
		return error;
	if (child_slug == NULL)
		return lec__error_required("child");
	if ((error = subproject_candidate(st, parent_id, child_slug, user_id,
					  &child_id)) < 0)
		return error;
	if (child_id == 0)
		return lec__error_field(LEC_EINVALID, "child",
					"Project with slug=%s is not valid as "
					"subproject", child_slug);
	if (!given)
		alias = child_slug; /* the service's default alias */
	if ((error = subproject_check_alias(st, parent_id, alias, given)) < 0)
		return error;
	return subproject_insert(st, parent_id, child_id, alias);
}

int lec_subproject_create(struct lec_store *st, int64_t parent_id,
			  const char *child_slug, const char *alias,
			  int64_t user_id, struct lec_subproject **out)
{
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = subproject_link(st, parent_id, child_slug, alias,
				     user_id)) < 0) {
		lec_store__rollback(st);
		return error;
	}
	if ((error = lec_store__commit(st)) == LEC_OK && out)
		error = subproject_fetch(st, parent_id,
					 alias && *alias ? alias : child_slug,
					 out);
	return error;
}

int lec_project_superproject(struct lec_store *st, int64_t child_id,
			     struct lec_project **parent, char **alias)
{
	struct lec_project *child = NULL;
	int error;

	lec_error_clear();
	*parent = NULL;
	if (alias)
		*alias = NULL;
	if ((error = lec__project_fetch(st, NULL, child_id, &child)) < 0)
		return error;
	if (child->superproject_slug == NULL) {
		error = lec__error(LEC_ENOTFOUND,
				   "project '%s' is no subproject", child->slug);
		goto done;
	}
	if ((error = lec__project_fetch(st, child->superproject_slug, 0,
					parent)) == LEC_OK && alias) {
		*alias = child->superproject_alias;
		child->superproject_alias = NULL;
	}
done:
	lec_project_free(child);
	return error;
}
