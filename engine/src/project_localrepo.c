/*
 * A local repository that another project already builds from (issue 36):
 * the `--local-repos` directories are one trust zone for every account of
 * the server, so without a rule an organization owner could import the
 * path of another organization's private project into her own public one
 * and have its docs published on her subdomain. A local URL is therefore
 * refused when it names (lec_localrepo_identity: symlinks, URL forms,
 * trailing slashes, the work tree or its .git directory alike) the
 * repository of a project the importing user cannot read in full: one she
 * does not administer and that is private to her or has a private
 * version. Public projects whose every version is public, and those she
 * administers, are no obstacle.
 *
 * The refusal says only that such a project exists, never which one, how
 * many, or whether it is private or has private versions: the one
 * message for all of them (that much the user needs, to understand why a
 * path she can see is refused). The rule holds when the URL is set, at
 * import and by an update; a project made private later keeps the
 * projects that shared its repository before.
 *
 * A submodule is a way round it: a repository of her own (on a forge,
 * say) whose .gitmodules names file:///.../secret. So a build fetches a
 * local submodule only when each of its project's admins, superusers
 * aside (they read everything), could have imported that repository.
 */
#include <string.h>

#include "lectern/localrepo.h"
#include "lectern/project.h"
#include "store_internal.h"

/* Projects other than ?1 with a local URL (file:, in any case, as git
 * reads it; a project's URL is never a plain path) and which user ?2
 * cannot read in full. Superusers read them all. */
static const char unreadable_sql[] =
	"SELECT p.repo_url FROM projects p"
	" WHERE p.id <> ?1"
	"   AND p.repo_url LIKE 'file:%'"
	"   AND NOT (coalesce((SELECT is_superuser FROM users WHERE id = ?2),"
	"                     0) <> 0"
	"     OR EXISTS (SELECT 1 FROM project_admins a"
	"                WHERE a.project_id = p.id AND a.user_id = ?2)"
	"     OR ((p.privacy_level = 'public'"
	"          OR EXISTS (SELECT 1 FROM project_readers r"
	"                     WHERE r.project_id = p.id AND r.user_id = ?2))"
	"         AND NOT EXISTS (SELECT 1 FROM versions v"
	"                         WHERE v.project_id = p.id"
	"                           AND v.privacy_level <> 'public')))";

static int refuse_shared(void)
{
	return lec__error_field(LEC_EINVALID, "repository.url",
				"Another project on this server builds from "
				"this local repository, and you cannot read "
				"all of it: a local repository can be "
				"imported only by someone who can read every "
				"project already built from it.");
}

/* Whether a project user_id cannot read in full builds from the
 * repository called identity: 1, 0, or an error. */
static int used_unreadably(struct lec_store *st, int64_t project_id,
			   int64_t user_id, const char *identity)
{
	sqlite3_stmt *stmt = NULL;
	int used = 0, rc = SQLITE_DONE, error;

	if ((error = lec_store__prepare(st, &stmt, unreadable_sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	sqlite3_bind_int64(stmt, 2, user_id);
	while (!used && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *url = (const char *)sqlite3_column_text(stmt, 0);
		char *other = NULL;

		if ((error = lec_localrepo_identity(url, &other)) < 0)
			break;
		used = other && strcmp(other, identity) == 0;
		lec__free(other);
	}
	if (error == LEC_OK && !used && rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "reading projects' "
						  "repositories");
	lec_store__finalize(st, stmt);
	return error < 0 ? error : used;
}

/* Whether some admin of project_id other than a superuser cannot read in
 * full a project that builds from the repository called identity: 1, 0,
 * or an error. */
static int used_unreadably_by_an_admin(struct lec_store *st,
				       int64_t project_id,
				       const char *identity)
{
	static const char sql[] =
		"SELECT DISTINCT a.user_id FROM project_admins a"
		"  JOIN users u ON u.id = a.user_id"
		" WHERE a.project_id = ? AND u.is_superuser = 0";
	sqlite3_stmt *stmt = NULL;
	int used = 0, rc = SQLITE_DONE, error;

	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	while (used == 0 && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
		used = used_unreadably(st, project_id,
				       sqlite3_column_int64(stmt, 0),
				       identity);
	if (used == 0 && rc != SQLITE_DONE)
		used = lec_store__sqlerr(st, rc, "reading a project's admins");
	lec_store__finalize(st, stmt);
	return used;
}

int lec__project_local_submodule_check(struct lec_store *st,
				       int64_t project_id, const char *url)
{
	char *identity = NULL;
	int error;

	if ((error = lec_localrepo_identity(url, &identity)) < 0 ||
	    identity == NULL)
		return error;
	error = used_unreadably_by_an_admin(st, project_id, identity);
	lec__free(identity);
	if (error > 0)
		error = lec__error(LEC_EINVALID,
				   "another project on this server builds "
				   "from this local repository, and not "
				   "every admin of this project can read "
				   "all of it");
	return error;
}

int lec__project_local_repo_check(struct lec_store *st, int64_t project_id,
				  const char *current, const char *url,
				  int64_t user_id)
{
	char *identity = NULL, *now = NULL;
	int error;

	if (user_id == LEC_VIEWER_ALL)
		return LEC_OK;
	if ((error = lec_localrepo_identity(url, &identity)) < 0 ||
	    identity == NULL ||
	    (error = lec_localrepo_identity(current, &now)) < 0)
		goto done;
	/* The repository the project has already: nothing changes. */
	if (now && strcmp(now, identity) == 0)
		goto done;
	error = used_unreadably(st, project_id, user_id, identity);
	if (error > 0)
		error = refuse_shared();
done:
	lec__free(identity);
	lec__free(now);
	return error;
}
