/*
 * What an anonymous reader lists across every project, the v2 API's
 * lists: the public projects, the versions it may see and the builds of
 * those versions. The rule is lec_version_can_view's for
 * LEC_VIEWER_ANONYMOUS with LEC_VERSION_VIEW_PROJECT |
 * LEC_VERSION_VIEW_EXTERNAL_BUILDS (a public version of a public project,
 * a pull-request version by its project's external_builds_privacy_level),
 * written here as SQL so that the filter, the order and the page are the
 * database's work: a page reads its own rows, not every project's
 * (tests/engine/test_public_lists.c holds the two to the same answers).
 */
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "store_internal.h"

/* Version v of project p is what an anonymous reader may see. */
#define PUBLIC_VERSION(v, p)                                                 \
	p ".privacy_level = 'public' AND CASE WHEN " v ".type = 'external' " \
	"THEN " p ".external_builds_privacy_level ELSE " v ".privacy_level " \
	"END = 'public'"

/* The one project with this slug, of a table whose rows have project_id. */
#define OF_PROJECT_SLUG "project_id = (SELECT id FROM projects WHERE slug = ?)"

int lec_project_list_public(struct lec_store *st, const char *slug,
			    const struct lec_page *page,
			    struct lec_project_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__projects);
	lec__query_where(&q, "p.privacy_level = 'public'");
	if (slug)
		lec__query_where_text(&q, "p.slug = ?", slug);
	return lec__table_rows(st, &lec__projects, &q, page,
			       (void **)&out->items, &out->len, &out->total);
}

int lec_version_list_public(struct lec_store *st, const char *project_slug,
			    enum lec_filter_bool active,
			    const struct lec_page *page,
			    struct lec_version_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__versions);
	lec__query_where(&q, "EXISTS (SELECT 1 FROM projects p WHERE "
			     "p.id = versions.project_id AND "
			     PUBLIC_VERSION("versions", "p") ")");
	if (project_slug)
		lec__query_where_text(&q, OF_PROJECT_SLUG, project_slug);
	if (active == LEC_FILTER_TRUE || active == LEC_FILTER_FALSE)
		lec__query_where_int(&q, "active = ?",
				     active == LEC_FILTER_TRUE);
	return lec__table_rows(st, &lec__versions, &q, page,
			       (void **)&out->items, &out->len, &out->total);
}

int lec_build_list_public(struct lec_store *st, const char *project_slug,
			  const char *commit, const struct lec_page *page,
			  struct lec_build_list *out)
{
	struct lec__query q;

	lec_error_clear();
	lec__table_query(&q, &lec__builds);
	/* A build whose version was deleted is its admins' only. */
	lec__query_where(&q, "EXISTS (SELECT 1 FROM versions v JOIN projects "
			     "p ON p.id = builds.project_id WHERE "
			     "v.id = builds.version_id AND "
			     PUBLIC_VERSION("v", "p") ")");
	if (project_slug)
		lec__query_where_text(&q, OF_PROJECT_SLUG, project_slug);
	if (commit)
		lec__query_where_text(&q, "commit_sha = ?", commit);
	return lec__table_rows(st, &lec__builds, &q, page,
			       (void **)&out->items, &out->len, &out->total);
}
