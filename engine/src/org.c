/*
 * Organizations, owners, teams and the permissions they grant (business
 * edition). Memberships are rows of small join tables; every change that
 * checks before it writes (an existing row, the last owner, a project's
 * organization) runs inside one write transaction so that the check still
 * holds when the row is written.
 */
#include <string.h>

#include "lectern/org.h"
#include "lectern/slug.h"
#include "store_internal.h"

/* Rows --------------------------------------------------------------------- */

static const struct lec__column org_columns[] = {
	LEC__INT64(lec_org, id, "o.id"),
	LEC__TEXT(lec_org, slug, "o.slug"),
	LEC__TEXT(lec_org, name, "o.name"),
	LEC__TEXT(lec_org, email, "o.email"),
	LEC__TEXT(lec_org, description, "o.description"),
	LEC__TEXT(lec_org, url, "o.url"),
	LEC__INT(lec_org, disabled, "o.disabled"),
	LEC__TIME(lec_org, created, "o.created"),
	LEC__TIME(lec_org, modified, "o.modified"),
};
static const struct lec__row org_row =
	LEC__ROW(lec_org, org_columns, NULL, NULL);
static const struct lec__table orgs = {
	.row = &org_row, .from = "organizations o",
	.id = "o.id = ?", .text = "o.slug = ?",
	.order = "o.name, o.slug",
	.not_found = "No Organization matches the given query.",
};

static const struct lec__column team_columns[] = {
	LEC__INT64(lec_team, id, "id"),
	LEC__INT64(lec_team, organization_id, "organization_id"),
	LEC__TEXT(lec_team, slug, "slug"),
	LEC__TEXT(lec_team, name, "name"),
	LEC__TEXT(lec_team, access, "access"),
	LEC__TIME(lec_team, created, "created"),
	LEC__TIME(lec_team, modified, "modified"),
};
static const struct lec__row team_row =
	LEC__ROW(lec_team, team_columns, NULL, NULL);
static const struct lec__table teams = {
	.row = &team_row, .from = "teams",
	.scope = "organization_id = ?", .id = "id = ?", .text = "slug = ?",
	.order = "name, slug", .not_found = "No Team matches the given query.",
};

/* An organization's projects, as their ids. */
static const struct lec__column project_id_columns[] = {
	{ .sql = "p.id", .kind = LEC__COL_INT64, .offset = 0 },
};
static const struct lec__row project_id_row =
	LEC__ROW_OF(int64_t, project_id_columns);

LEC__DEFINE_FREES(lec_org, &org_row)
LEC__DEFINE_FREES(lec_team, &team_row)

void lec_org_usernames_dispose(struct lec_org_usernames *names)
{
	LEC__LIST_DISPOSE(&lec__username_row, names);
}

void lec_org_project_ids_dispose(struct lec_org_project_ids *ids)
{
	if (ids == NULL)
		return;
	lec__free(ids->items);
	memset(ids, 0, sizeof(*ids));
}

/* Store helpers ------------------------------------------------------------ */

/* The integer the first row of sql (binding ?1..?n to v) holds; 0 when no
 * row. */
static int query_int(struct lec_store *st, const char *sql, const int64_t *v,
		     int n, int64_t *out)
{
	return lec_store__query_int(st, sql, v, n, "reading organizations", out,
				    NULL);
}

/* Run a write binding ?1..?n to v; *changes gets the rows it touched. */
static int exec_ints(struct lec_store *st, const char *sql, const int64_t *v,
		     int n, const char *what, int *changes)
{
	return lec_store__exec_ints(st, sql, v, n, what, changes);
}

/* LEC_ENOTFOUND naming what unless a row of table has this id. */
static int require_id(struct lec_store *st, const char *table,
		      const char *what, int64_t id)
{
	struct lec__buf sql = LEC__BUF_INIT;
	char *text;
	int64_t found = 0;
	int error;

	lec__buf_printf(&sql, "SELECT count(*) FROM %s WHERE id = ?1", table);
	text = lec__buf_take(&sql);
	LEC__CHECK_ALLOC(text);
	error = query_int(st, text, &id, 1, &found);
	lec__free(text);
	if (error == LEC_OK && !found)
		error = lec__error(LEC_ENOTFOUND, "no %s with id %lld", what,
				   (long long)id);
	return error;
}

/* What a public call that changes two ids' link does: clears the error,
 * then runs locked(st, a, b) in a write transaction, committed when it
 * succeeds. */
static int write_locked(struct lec_store *st,
			int (*locked)(struct lec_store *st, int64_t a,
				      int64_t b),
			int64_t a, int64_t b)
{
	int error;

	lec_error_clear();
	if ((error = lec_store__begin(st)) < 0)
		return error;
	return lec_store__end(st, locked(st, a, b));
}

/* Names and slugs ---------------------------------------------------------- */

static int check_name(const char *name, size_t max)
{
	if (name == NULL)
		return lec__error_required("name");
	if (*name == '\0')
		return lec__error_blank("name");
	if (lec__utf8_chars(name) > max)
		return lec__error_too_long("name", max);
	return LEC_OK;
}

/* The slug of name (what: "organization" or "team"), or the given slug
 * when it already follows the rules. */
static int make_slug(const char *what, const char *name, const char *given,
		     char **out)
{
	int error;

	if (given == NULL) {
		if ((error = lec_slug_project(name, out)) < 0)
			return error;
		if (**out != '\0')
			return LEC_OK;
		lec__free(*out);
		*out = NULL;
		return lec__error_field(LEC_EINVALID, "name",
					"Invalid %s name \"%s\": no slug "
					"generated.",
					what, name);
	}
	if ((error = lec_slug_project(given, out)) < 0)
		return error;
	if (**out != '\0' && strcmp(*out, given) == 0)
		return LEC_OK;
	lec__free(*out);
	*out = NULL;
	return lec__error_field(LEC_EINVALID, "slug",
				"\"%s\" is not a valid slug: use lowercase "
				"letters, digits and hyphens.",
				given);
}

/* Organizations ------------------------------------------------------------ */

static int org_insert(struct lec_store *st, const struct lec_org_fields *in,
		      const char *slug, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(st, &stmt,
					"INSERT INTO organizations (slug, name, "
					"email, description, url, created, "
					"modified) VALUES (?1, ?2, ?3, ?4, ?5, "
					"?6, ?6)")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, slug)) < 0 ||
	    (error = lec_store__bind_text(stmt, 2, in->name)) < 0 ||
	    (error = lec_store__bind_text(stmt, 3,
					  in->email ? in->email : "")) < 0 ||
	    (error = lec_store__bind_text(
		     stmt, 4, in->description ? in->description : "")) < 0 ||
	    (error = lec_store__bind_text(stmt, 5, in->url ? in->url : "")) <
		    0)
		goto done;
	sqlite3_bind_int64(stmt, 6, now);
	error = lec_store__step_done(st, stmt, "creating an organization");
	if (error == LEC_EEXISTS)
		error = lec__error_field(LEC_EEXISTS,
					 in->slug ? "slug" : "name",
					 "Organization with slug \"%s\" "
					 "already exists.",
					 slug);
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
done:
	lec_store__finalize(st, stmt);
	return error;
}

static int org_create_locked(struct lec_store *st,
			     const struct lec_org_fields *in, const char *slug,
			     int64_t owner_id, int64_t *id)
{
	int error;

	if ((error = require_id(st, "users", "user", owner_id)) < 0 ||
	    (error = org_insert(st, in, slug, id)) < 0)
		return error;
	return exec_ints(st,
			 "INSERT INTO organization_owners (organization_id, "
			 "user_id) VALUES (?1, ?2)",
			 (const int64_t[]){ *id, owner_id }, 2,
			 "adding an owner", NULL);
}

int lec_org_create(struct lec_store *st, const struct lec_org_fields *in,
		   int64_t owner_id, struct lec_org **out)
{
	char *slug = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if ((error = check_name(in ? in->name : NULL, LEC_ORG_NAME_MAX)) < 0 ||
	    (error = make_slug("organization", in->name, in->slug, &slug)) <
		    0 ||
	    (error = lec_store__begin(st)) < 0)
		goto done;
	error = lec_store__end(st, org_create_locked(st, in, slug, owner_id,
						      &id));
	if (error == LEC_OK && out)
		error = lec__table_get(st, &orgs, NULL, id, (void **)out);
done:
	lec__free(slug);
	return error;
}

int lec_org_get(struct lec_store *st, const char *slug, struct lec_org **out)
{
	lec_error_clear();
	*out = NULL;
	if (slug == NULL)
		return lec__error(LEC_EINVALID, "no organization slug given");
	return lec__table_get_text(st, &orgs, NULL, slug, (void **)out);
}

int lec_org_list_for_user(struct lec_store *st, int64_t user_id,
			  const struct lec_page *page,
			  struct lec_org_list *out)
{
	struct lec__query q;

	lec_error_clear();
	/* UNION removes duplicates: an owner who is also in a team, or a
	 * member of two teams, sees the organization once. */
	lec__query_init(&q, &org_row,
			"organizations o JOIN ("
			"SELECT organization_id AS oid, user_id AS uid "
			"FROM organization_owners UNION "
			"SELECT t.organization_id, m.user_id FROM teams t "
			"JOIN team_members m ON m.team_id = t.id) a "
			"ON a.oid = o.id");
	lec__query_where_int(&q, "a.uid = ?", user_id);
	return lec__table_rows(st, &orgs, &q, page, (void **)&out->items,
			       &out->len, &out->total);
}

int lec_org_set_disabled(struct lec_store *st, int64_t org_id, int disabled)
{
	int changes = 0;
	int error;

	lec_error_clear();
	error = exec_ints(st,
			  "UPDATE organizations SET disabled = ?1, "
			  "modified = ?2 WHERE id = ?3",
			  (const int64_t[]){ disabled ? 1 : 0, lec__now_us(),
					     org_id },
			  3, "updating an organization", &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND,
				   "no organization with id %lld",
				   (long long)org_id);
	return error;
}

/* Memberships -------------------------------------------------------------- */

/* Insert a (parent, child) membership row after checking both exist. */
static int member_add(struct lec_store *st, const char *sql,
		      const char *parent_table, const char *parent_what,
		      int64_t parent, const char *child_table,
		      const char *child_what, int64_t child)
{
	int error;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	if ((error = require_id(st, parent_table, parent_what, parent)) ==
		    LEC_OK &&
	    (error = require_id(st, child_table, child_what, child)) ==
		    LEC_OK) {
		error = exec_ints(st, sql, (const int64_t[]){ parent, child },
				  2, "adding a member", NULL);
		if (error == LEC_EEXISTS)
			error = lec__error(LEC_EEXISTS,
					   "%s %lld is already in %s %lld",
					   child_what, (long long)child,
					   parent_what, (long long)parent);
	}
	return lec_store__end(st, error);
}

/* Delete a membership row; LEC_ENOTFOUND when there was none. */
static int member_remove(struct lec_store *st, const char *sql,
			 int64_t parent, int64_t child, const char *what)
{
	int changes = 0;
	int error;

	error = exec_ints(st, sql, (const int64_t[]){ parent, child }, 2,
			  "removing a member", &changes);
	if (error == LEC_OK && changes == 0)
		error = lec__error(LEC_ENOTFOUND, "%s", what);
	return error;
}

/* Usernames of a membership table's users for one parent, sorted. */
static int usernames(struct lec_store *st, const char *from,
		     const char *where, int64_t parent,
		     struct lec_org_usernames *out)
{
	struct lec__query q;
	int error;

	lec__query_init(&q, &lec__username_row, from);
	lec__query_where_int(&q, where, parent);
	error = lec__query_list(st, &q, "u.username", NULL,
				(void **)&out->items, &out->len, NULL);
	lec__query_dispose(&q);
	return error;
}

int lec_org_owner_add(struct lec_store *st, int64_t org_id, int64_t user_id)
{
	lec_error_clear();
	return member_add(st,
			  "INSERT INTO organization_owners (organization_id, "
			  "user_id) VALUES (?1, ?2)",
			  "organizations", "organization", org_id, "users",
			  "user", user_id);
}

static int owner_remove_locked(struct lec_store *st, int64_t org_id,
			       int64_t user_id)
{
	int64_t owners = 0;
	int error;

	if ((error = query_int(st,
			       "SELECT count(*) FROM organization_owners "
			       "WHERE organization_id = ?1",
			       &org_id, 1, &owners)) < 0 ||
	    (error = member_remove(st,
				   "DELETE FROM organization_owners WHERE "
				   "organization_id = ?1 AND user_id = ?2",
				   org_id, user_id,
				   "the user is not an owner")) < 0)
		return error;
	if (owners <= 1)
		return lec__error(LEC_EINVALID,
				  "An organization must keep at least one "
				  "owner.");
	return LEC_OK;
}

int lec_org_owner_remove(struct lec_store *st, int64_t org_id,
			 int64_t user_id)
{
	return write_locked(st, owner_remove_locked, org_id, user_id);
}

int lec_org_owner_list(struct lec_store *st, int64_t org_id,
		       struct lec_org_usernames *out)
{
	lec_error_clear();
	return usernames(st,
			 "organization_owners o JOIN users u ON u.id = "
			 "o.user_id",
			 "o.organization_id = ?", org_id, out);
}

/* Projects ----------------------------------------------------------------- */

static int project_add_locked(struct lec_store *st, int64_t org_id,
			      int64_t project_id)
{
	int64_t current = 0;
	int error;

	if ((error = require_id(st, "organizations", "organization",
				org_id)) < 0 ||
	    (error = require_id(st, "projects", "project", project_id)) < 0 ||
	    (error = query_int(st,
			       "SELECT organization_id FROM "
			       "organization_projects WHERE project_id = ?1",
			       &project_id, 1, &current)) < 0)
		return error;
	if (current)
		return lec__error(LEC_EEXISTS,
				  "project %lld already belongs to "
				  "organization %lld",
				  (long long)project_id, (long long)current);
	return exec_ints(st,
			 "INSERT INTO organization_projects (organization_id, "
			 "project_id) VALUES (?1, ?2)",
			 (const int64_t[]){ org_id, project_id }, 2,
			 "adding a project", NULL);
}

int lec_org_project_add(struct lec_store *st, int64_t org_id,
			int64_t project_id)
{
	return write_locked(st, project_add_locked, org_id, project_id);
}

int lec_org_of_project(struct lec_store *st, int64_t project_id,
		       struct lec_org **out)
{
	struct lec__query q;

	lec_error_clear();
	lec__query_init(&q, &org_row,
			"organizations o JOIN organization_projects p ON "
			"p.organization_id = o.id");
	lec__query_where_int(&q, "p.project_id = ?", project_id);
	return lec__table_one(st, &orgs, &q, (void **)out);
}

int lec_org_project_ids(struct lec_store *st, int64_t org_id,
			const struct lec_page *page,
			struct lec_org_project_ids *out)
{
	struct lec__query q;
	int error;

	lec_error_clear();
	lec__query_init(&q, &project_id_row,
			"organization_projects op JOIN projects p ON p.id = "
			"op.project_id");
	lec__query_where_int(&q, "op.organization_id = ?", org_id);
	error = lec__query_list(st, &q, "p.slug", page, (void **)&out->items,
				&out->len, &out->total);
	lec__query_dispose(&q);
	return error;
}

/* Teams -------------------------------------------------------------------- */

static int check_access(const char *access)
{
	if (strcmp(access, LEC_TEAM_ACCESS_READONLY) == 0 ||
	    strcmp(access, LEC_TEAM_ACCESS_ADMIN) == 0)
		return LEC_OK;
	return lec__error_field(LEC_EINVALID, "access",
				"\"%s\" is not a valid choice.", access);
}

static int team_fetch(struct lec_store *st, int64_t org_id, const char *slug,
		      int64_t id, struct lec_team **out)
{
	return slug ? lec__table_get_text(st, &teams, &org_id, slug,
					  (void **)out)
		    : lec__table_get(st, &teams, NULL, id, (void **)out);
}

static int team_insert(struct lec_store *st, int64_t org_id, const char *name,
		       const char *slug, const char *access, int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = require_id(st, "organizations", "organization",
				org_id)) < 0 ||
	    (error = lec_store__prepare(st, &stmt,
					"INSERT INTO teams (organization_id, "
					"slug, name, access, created, "
					"modified) VALUES (?1, ?2, ?3, ?4, ?5, "
					"?5)")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, org_id);
	if ((error = lec_store__bind_text(stmt, 2, slug)) < 0 ||
	    (error = lec_store__bind_text(stmt, 3, name)) < 0 ||
	    (error = lec_store__bind_text(stmt, 4, access)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 5, lec__now_us());
	error = lec_store__step_done(st, stmt, "creating a team");
	if (error == LEC_EEXISTS)
		error = lec__error_field(LEC_EEXISTS, "name",
					 "Team with slug \"%s\" already exists "
					 "in this organization.",
					 slug);
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_team_create(struct lec_store *st, int64_t org_id, const char *name,
		    const char *access, struct lec_team **out)
{
	char *slug = NULL;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (access == NULL)
		access = LEC_TEAM_ACCESS_READONLY;
	if ((error = check_name(name, LEC_TEAM_NAME_MAX)) < 0 ||
	    (error = check_access(access)) < 0 ||
	    (error = make_slug("team", name, NULL, &slug)) < 0 ||
	    (error = lec_store__begin(st)) < 0)
		goto done;
	error = lec_store__end(st, team_insert(st, org_id, name, slug, access,
						&id));
	if (error == LEC_OK && out)
		error = team_fetch(st, 0, NULL, id, out);
done:
	lec__free(slug);
	return error;
}

int lec_team_get(struct lec_store *st, int64_t org_id, const char *slug,
		 struct lec_team **out)
{
	lec_error_clear();
	*out = NULL;
	if (slug == NULL)
		return lec__error(LEC_EINVALID, "no team slug given");
	return team_fetch(st, org_id, slug, 0, out);
}

int lec_team_list(struct lec_store *st, int64_t org_id,
		  const struct lec_page *page, struct lec_team_list *out)
{
	return lec__table_list(st, &teams, &org_id, page, (void **)&out->items,
			       &out->len, &out->total);
}

int lec_team_list_for_project(struct lec_store *st, int64_t project_id,
			      struct lec_team_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &teams);
	lec__query_where_int(&q,
			     "id IN (SELECT team_id FROM team_projects "
			     "WHERE project_id = ?)",
			     project_id);
	return lec__table_rows(st, &teams, &q, NULL, (void **)&out->items,
			       &out->len, &out->total);
}

int lec_team_member_add(struct lec_store *st, int64_t team_id,
			int64_t user_id)
{
	lec_error_clear();
	return member_add(st,
			  "INSERT INTO team_members (team_id, user_id) "
			  "VALUES (?1, ?2)",
			  "teams", "team", team_id, "users", "user", user_id);
}

int lec_team_member_remove(struct lec_store *st, int64_t team_id,
			   int64_t user_id)
{
	lec_error_clear();
	return member_remove(st,
			     "DELETE FROM team_members WHERE team_id = ?1 AND "
			     "user_id = ?2",
			     team_id, user_id, "the user is not in the team");
}

int lec_team_member_list(struct lec_store *st, int64_t team_id,
			 struct lec_org_usernames *out)
{
	lec_error_clear();
	return usernames(st, "team_members m JOIN users u ON u.id = m.user_id",
			 "m.team_id = ?", team_id, out);
}

static int team_project_add_locked(struct lec_store *st, int64_t team_id,
				   int64_t project_id)
{
	int64_t same_org = 0;
	int error;

	if ((error = require_id(st, "teams", "team", team_id)) < 0 ||
	    (error = require_id(st, "projects", "project", project_id)) < 0 ||
	    (error = query_int(st,
			       "SELECT count(*) FROM teams t JOIN "
			       "organization_projects op ON "
			       "op.organization_id = t.organization_id "
			       "WHERE t.id = ?1 AND op.project_id = ?2",
			       (const int64_t[]){ team_id, project_id }, 2,
			       &same_org)) < 0)
		return error;
	if (!same_org)
		return lec__error(LEC_EINVALID,
				  "project %lld is not in the team's "
				  "organization",
				  (long long)project_id);
	error = exec_ints(st,
			  "INSERT INTO team_projects (team_id, project_id) "
			  "VALUES (?1, ?2)",
			  (const int64_t[]){ team_id, project_id }, 2,
			  "adding a project to a team", NULL);
	if (error == LEC_EEXISTS)
		error = lec__error(LEC_EEXISTS,
				   "project %lld is already in team %lld",
				   (long long)project_id, (long long)team_id);
	return error;
}

int lec_team_project_add(struct lec_store *st, int64_t team_id,
			 int64_t project_id)
{
	return write_locked(st, team_project_add_locked, team_id, project_id);
}

int lec_team_project_remove(struct lec_store *st, int64_t team_id,
			    int64_t project_id)
{
	lec_error_clear();
	return member_remove(st,
			     "DELETE FROM team_projects WHERE team_id = ?1 AND "
			     "project_id = ?2",
			     team_id, project_id,
			     "the project is not in the team");
}

/* Permissions -------------------------------------------------------------- */

/* *out = whether sql (binding ?1 and ?2) finds a row. */
static int has_row(struct lec_store *st, const char *sql, int64_t a,
		   int64_t b, int *out)
{
	int64_t n = 0;
	int error;

	lec_error_clear();
	error = query_int(st, sql, (const int64_t[]){ a, b }, 2, &n);
	*out = error == LEC_OK && n > 0;
	return error;
}

/* Owners of the organization holding project ?1 include user ?2. */
#define OWNS_PROJECT_ORG                                                     \
	"SELECT 1 FROM organization_projects op JOIN organization_owners oo " \
	"ON oo.organization_id = op.organization_id "                        \
	"WHERE op.project_id = ?1 AND oo.user_id = ?2"

int lec_org_is_owner(struct lec_store *st, int64_t org_id, int64_t user_id,
		     int *out)
{
	return has_row(st,
		       "SELECT count(*) FROM organization_owners WHERE "
		       "organization_id = ?1 AND user_id = ?2",
		       org_id, user_id, out);
}

int lec_org_is_project_admin(struct lec_store *st, int64_t project_id,
			     int64_t user_id, int *out)
{
	return has_row(st,
		       "SELECT EXISTS (" OWNS_PROJECT_ORG " UNION ALL "
		       "SELECT 1 FROM team_projects tp JOIN teams t ON t.id = "
		       "tp.team_id JOIN team_members m ON m.team_id = t.id "
		       "WHERE tp.project_id = ?1 AND m.user_id = ?2 AND "
		       "t.access = '" LEC_TEAM_ACCESS_ADMIN "')",
		       project_id, user_id, out);
}

int lec_org_can_read_project(struct lec_store *st, int64_t project_id,
			     int64_t user_id, int *out)
{
	return has_row(st,
		       "SELECT EXISTS (" OWNS_PROJECT_ORG " UNION ALL "
		       "SELECT 1 FROM team_projects tp JOIN team_members m ON "
		       "m.team_id = tp.team_id WHERE tp.project_id = ?1 AND "
		       "m.user_id = ?2)",
		       project_id, user_id, out);
}
