/*
 * What an anonymous reader lists across projects (public_lists.c, the v2
 * API's lists): the same versions and builds lec_version_can_view shows
 * LEC_VIEWER_ANONYMOUS, asked one version at a time over every project's
 * list, in the same order, paged and counted in SQL; public projects
 * only; the slug, active and commit filters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "store_internal.h"

#define VIEW (LEC_VERSION_VIEW_PROJECT | LEC_VERSION_VIEW_EXTERNAL_BUILDS)
#define MAX_ROWS 64

/* Four projects: a public one, a private one, a public one whose
 * pull-request builds are private, and another public one; each with a
 * public branch, a private branch, a pull-request version and an inactive
 * tag, one build of each, and a build whose version is then deleted. */
static struct lec_store *fixture(void)
{
	static const char *const slugs[] = { "alpha", "beta", "gamma",
					     "delta" };
	struct lec_store *st = lec_test_store();
	size_t i;

	for (i = 0; i < LEC__COUNT(slugs); i++) {
		int64_t p = lec_test_project(st, slugs[i]);
		struct lec_version *v[5] = { NULL };
		const char *commits[] = { "c1", "c2", "c1", "c3", "c4" };
		size_t j;

		CHECK_OK(lec_version_create(st, p, "main", "main",
					    LEC_VERSION_BRANCH, 1, &v[0]));
		CHECK_OK(lec_version_create(st, p, "secret", "secret",
					    LEC_VERSION_BRANCH, 1, &v[1]));
		CHECK_OK(lec_version_create(st, p, "42", "pull/42",
					    LEC_VERSION_EXTERNAL, 1, &v[2]));
		CHECK_OK(lec_version_create(st, p, "v1.0", "v1.0",
					    LEC_VERSION_TAG, 0, &v[3]));
		CHECK_OK(lec_version_create(st, p, "gone", "gone",
					    LEC_VERSION_BRANCH, 1, &v[4]));
		for (j = 0; j < 5; j++) {
			if (v[j])
				CHECK_OK(lec_build_trigger(st, p, v[j]->id,
							   commits[j], NULL,
							   NULL));
		}
		if (v[4])
			CHECK_OK(lec_version_delete(st, v[4]->id));
		for (j = 0; j < 5; j++)
			lec_version_free(v[j]);
	}
	CHECK_OK(lec_store__exec(
		st, "UPDATE versions SET privacy_level = 'private' WHERE "
		    "slug = 'secret';"
		    "UPDATE projects SET privacy_level = 'private' WHERE "
		    "slug = 'beta';"
		    "UPDATE projects SET external_builds_privacy_level = "
		    "'private' WHERE slug = 'gamma'"));
	return st;
}

struct named {
	int64_t id;
	char name[64];
};

/* The service's version order: name descending, then newest first. */
static int by_name_desc(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(y->name, x->name);

	return c ? c : (y->id > x->id) - (y->id < x->id);
}

/* The ids of the versions lec_version_can_view shows an anonymous reader,
 * of the project slug (NULL: all), active ones when active, in order. */
static size_t visible_versions(struct lec_store *st, const char *slug,
			       int active, int64_t ids[MAX_ROWS])
{
	struct lec_project_list projects = { 0 };
	struct named rows[MAX_ROWS];
	size_t i, j, n = 0;

	CHECK_OK(lec_project_list(st, NULL, NULL, &projects));
	for (i = 0; i < projects.len; i++) {
		struct lec_project *p = &projects.items[i];
		struct lec_version_list list = { 0 };

		if (slug && strcmp(p->slug, slug) != 0)
			continue;
		CHECK_OK(lec_version_list(st, p->id, NULL, NULL, &list));
		for (j = 0; j < list.len && n < MAX_ROWS; j++) {
			const struct lec_version *v = &list.items[j];

			if (lec_version_can_view(st, p, v, LEC_VIEWER_ANONYMOUS,
						 VIEW) != 1 ||
			    (active && !v->active))
				continue;
			rows[n].id = v->id;
			snprintf(rows[n++].name, sizeof(rows[0].name), "%s",
				 v->verbose_name);
		}
		lec_version_list_dispose(&list);
	}
	lec_project_list_dispose(&projects);
	qsort(rows, n, sizeof(rows[0]), by_name_desc);
	for (j = 0; j < n; j++)
		ids[j] = rows[j].id;
	return n;
}

static void check_ids(const int64_t *want, size_t n, const int64_t *got,
		      size_t len, int line)
{
	size_t i;

	if (len != n) {
		FAIL_AT("line %d: %zu rows, expected %zu", line, len, n);
		return;
	}
	for (i = 0; i < n; i++)
		if (want[i] != got[i])
			FAIL_AT("line %d: row %zu is %lld, expected %lld", line,
				i, (long long)got[i], (long long)want[i]);
}

static void check_versions(struct lec_store *st, const char *slug,
			   enum lec_filter_bool active,
			   const struct lec_page *page, int line)
{
	int64_t want[MAX_ROWS], got[MAX_ROWS];
	struct lec_version_list list = { 0 };
	size_t n, from, i;

	n = visible_versions(st, slug, active == LEC_FILTER_TRUE, want);
	CHECK_OK(lec_version_list_public(st, slug, active, page, &list));
	CHECK_INT(list.total, n);
	from = page ? page->offset : 0;
	for (i = 0; i < list.len && i < MAX_ROWS; i++)
		got[i] = list.items[i].id;
	check_ids(want + (from < n ? from : n),
		  page && page->limit && page->limit < n - from ? page->limit
							       : n - from,
		  got, list.len, line);
	lec_version_list_dispose(&list);
}

TEST(versions_are_what_can_view_shows_anonymous)
{
	struct lec_store *st = fixture();
	struct lec_page page = { 3, 2 };

	check_versions(st, NULL, LEC_FILTER_ANY, NULL, __LINE__);
	check_versions(st, NULL, LEC_FILTER_TRUE, NULL, __LINE__);
	check_versions(st, NULL, LEC_FILTER_ANY, &page, __LINE__);
	check_versions(st, "gamma", LEC_FILTER_ANY, NULL, __LINE__);
	check_versions(st, "beta", LEC_FILTER_ANY, NULL, __LINE__);
	check_versions(st, "nope", LEC_FILTER_ANY, NULL, __LINE__);
	lec_store_free(st);
}

TEST(versions_seen_by_hand)
{
	struct lec_store *st = fixture();
	struct lec_version_list list = { 0 };
	size_t i, external = 0;

	/* alpha and delta: main, v1.0 and 42; gamma: main and v1.0. */
	CHECK_OK(lec_version_list_public(st, NULL, LEC_FILTER_ANY, NULL,
					 &list));
	CHECK_INT(list.len, 8);
	for (i = 0; i < list.len; i++) {
		CHECK(strcmp(list.items[i].slug, "secret") != 0);
		external += list.items[i].type == LEC_VERSION_EXTERNAL;
	}
	CHECK_INT(external, 2);
	lec_version_list_dispose(&list);
	CHECK_OK(lec_version_list_public(st, NULL, LEC_FILTER_FALSE, NULL,
					 &list));
	CHECK_INT(list.len, 3);
	for (i = 0; i < list.len; i++)
		CHECK_STR(list.items[i].slug, "v1.0");
	lec_version_list_dispose(&list);
	lec_store_free(st);
}

TEST(builds_of_versions_anonymous_can_see)
{
	struct lec_store *st = fixture();
	struct lec_build_list all = { 0 }, list = { 0 };
	struct lec_page page = { 2, 1 };
	size_t i;

	CHECK_OK(lec_build_list_public(st, NULL, NULL, NULL, &all));
	CHECK_INT(all.len, 8);
	for (i = 0; i < all.len; i++) {
		struct lec_version *v = NULL;
		struct lec_project *p = NULL;

		CHECK_OK(lec_version_get_by_id(st, all.items[i].version_id,
					       &v));
		CHECK_OK(lec_project_get_by_id(st, all.items[i].project_id,
					       &p));
		if (v && p)
			CHECK_INT(lec_version_can_view(st, p, v,
						       LEC_VIEWER_ANONYMOUS,
						       VIEW),
				  1);
		/* Newest first. */
		if (i > 0)
			CHECK(all.items[i - 1].created > all.items[i].created ||
			      (all.items[i - 1].created ==
				       all.items[i].created &&
			       all.items[i - 1].id > all.items[i].id));
		lec_version_free(v);
		lec_project_free(p);
	}
	CHECK_OK(lec_build_list_public(st, NULL, NULL, &page, &list));
	CHECK_INT(list.total, 8);
	CHECK_INT(list.len, 2);
	for (i = 0; i < list.len; i++)
		CHECK_INT(list.items[i].id, all.items[i + 1].id);
	lec_build_list_dispose(&list);
	/* c1 is main's and 42's; 42 is private on gamma. */
	CHECK_OK(lec_build_list_public(st, NULL, "c1", NULL, &list));
	CHECK_INT(list.len, 5);
	lec_build_list_dispose(&list);
	CHECK_OK(lec_build_list_public(st, "gamma", NULL, NULL, &list));
	CHECK_INT(list.len, 2);
	lec_build_list_dispose(&list);
	CHECK_OK(lec_build_list_public(st, "beta", NULL, NULL, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 0);
	lec_build_list_dispose(&list);
	lec_build_list_dispose(&all);
	lec_store_free(st);
}

TEST(public_projects_by_slug)
{
	struct lec_store *st = fixture();
	struct lec_project_list list = { 0 };
	struct lec_page page = { 1, 1 };

	CHECK_OK(lec_project_list_public(st, NULL, NULL, &list));
	CHECK_INT(list.len, 3);
	if (list.len == 3) {
		CHECK_STR(list.items[0].slug, "alpha");
		CHECK_STR(list.items[1].slug, "delta");
		CHECK_STR(list.items[2].slug, "gamma");
	}
	lec_project_list_dispose(&list);
	CHECK_OK(lec_project_list_public(st, NULL, &page, &list));
	CHECK_INT(list.total, 3);
	CHECK(list.len == 1 && strcmp(list.items[0].slug, "delta") == 0);
	lec_project_list_dispose(&list);
	CHECK_OK(lec_project_list_public(st, "beta", NULL, &list));
	CHECK_INT(list.len, 0);
	lec_project_list_dispose(&list);
	CHECK_OK(lec_project_list_public(st, "gamma", NULL, &list));
	CHECK_INT(list.len, 1);
	lec_project_list_dispose(&list);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(versions_are_what_can_view_shows_anonymous),
	TEST_ENTRY(versions_seen_by_hand),
	TEST_ENTRY(builds_of_versions_anonymous_can_see),
	TEST_ENTRY(public_projects_by_slug),
};

LEC_TEST_MAIN(tests)
