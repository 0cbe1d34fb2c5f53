/*
 * A project's addon settings: the service's defaults without a row, a
 * patch changing only what it names, the checks (choices, lengths, nulls,
 * a base version that must be the project's) leaving the row as it was,
 * and the row going with its project.
 */
#include <string.h>

#include "harness.h"
#include "lectern/addons.h"
#include "lectern/version.h"
#include "store_internal.h"

static void defaults_without_a_row(void)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_addons a;

	CHECK_OK(lec_addons_get(st, p, &a));
	CHECK_INT(a.on[LEC_ADDONS_ENABLED], 1);
	CHECK_INT(a.on[LEC_ADDONS_FLYOUT_ENABLED], 1);
	CHECK_INT(a.on[LEC_ADDONS_LINKPREVIEWS_ENABLED], 0);
	CHECK_INT(a.on[LEC_ADDONS_NOTIFICATIONS_SHOW_ON_LATEST], 1);
	CHECK_INT(a.on[LEC_ADDONS_NOTIFICATIONS_SHOW_ON_EXTERNAL], 0);
	CHECK_STR(a.text[LEC_ADDONS_FLYOUT_SORTING], LEC_ADDONS_SORT_SEMVER);
	CHECK(a.text[LEC_ADDONS_FLYOUT_POSITION] == NULL);
	CHECK(a.text[LEC_ADDONS_OPTIONS_BASE_VERSION] == NULL);
	lec_addons_dispose(&a);
	CHECK_ERR(lec_addons_get(st, p + 100, &a), LEC_ENOTFOUND);
	CHECK_INT(lec_addons_find("flyout_sorting"), LEC_ADDONS_FLYOUT_SORTING);
	CHECK_INT(lec_addons_find("nope"), -1);
	lec_addons_dispose(NULL);
	lec_store_free(st);
}

static void patch_changes_what_it_names(void)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_addons_patch patch = { 0 };
	struct lec_version *v = NULL;
	struct lec_addons a;

	CHECK_OK(lec_version_create(st, p, "dev", "dev", LEC_VERSION_BRANCH, 1,
				    &v));
	lec_version_free(v);
	patch.set = 1u << LEC_ADDONS_FLYOUT_ENABLED |
		    1u << LEC_ADDONS_FLYOUT_POSITION |
		    1u << LEC_ADDONS_OPTIONS_BASE_VERSION;
	patch.on[LEC_ADDONS_FLYOUT_ENABLED] = 0;
	patch.text[LEC_ADDONS_FLYOUT_POSITION] = "top-left";
	patch.text[LEC_ADDONS_OPTIONS_BASE_VERSION] = "dev";
	CHECK_OK(lec_addons_update(st, p, &patch));
	CHECK_OK(lec_addons_get(st, p, &a));
	CHECK_INT(a.on[LEC_ADDONS_FLYOUT_ENABLED], 0);
	CHECK_INT(a.on[LEC_ADDONS_SEARCH_ENABLED], 1);
	CHECK_STR(a.text[LEC_ADDONS_FLYOUT_POSITION], "top-left");
	CHECK_STR(a.text[LEC_ADDONS_OPTIONS_BASE_VERSION], "dev");
	CHECK_STR(a.text[LEC_ADDONS_FLYOUT_SORTING], LEC_ADDONS_SORT_SEMVER);
	lec_addons_dispose(&a);

	/* Back to null; a second patch leaves the first's other values. */
	memset(&patch, 0, sizeof(patch));
	patch.set = 1u << LEC_ADDONS_FLYOUT_POSITION;
	CHECK_OK(lec_addons_update(st, p, &patch));
	CHECK_OK(lec_addons_get(st, p, &a));
	CHECK(a.text[LEC_ADDONS_FLYOUT_POSITION] == NULL);
	CHECK_INT(a.on[LEC_ADDONS_FLYOUT_ENABLED], 0);
	lec_addons_dispose(&a);

	/* The row goes with the project. */
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_OK(lec_store__query_int(st, "SELECT count(*) FROM project_addons",
				      NULL, 0, "counting", &p, NULL));
	CHECK_INT(p, 0);
	lec_store_free(st);
}

/* A refused patch names its field and changes nothing. */
static void refused(struct lec_store *st, int64_t p, int id, const char *v,
		    const char *message)
{
	struct lec_addons_patch patch = { 0 };
	struct lec_addons a;

	patch.set = 1u << id | 1u << LEC_ADDONS_SEARCH_ENABLED;
	patch.text[id] = v;
	patch.on[LEC_ADDONS_SEARCH_ENABLED] = 0;
	CHECK_ERR(lec_addons_update(st, p, &patch), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), lec_addons_settings[id].name);
	CHECK_STR(lec_error_last(), message);
	CHECK_OK(lec_addons_get(st, p, &a));
	CHECK_INT(a.on[LEC_ADDONS_SEARCH_ENABLED], 1);
	lec_addons_dispose(&a);
}

static void checks_with_the_service_messages(void)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	char longer[200];

	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	refused(st, p, LEC_ADDONS_FLYOUT_SORTING, "random",
		"\"random\" is not a valid choice.");
	refused(st, p, LEC_ADDONS_FLYOUT_SORTING, NULL,
		"This field may not be null.");
	refused(st, p, LEC_ADDONS_FLYOUT_POSITION, "middle",
		"\"middle\" is not a valid choice.");
	refused(st, p, LEC_ADDONS_LINKPREVIEWS_SELECTOR, longer,
		"Ensure this field has no more than 128 characters.");
	refused(st, p, LEC_ADDONS_OPTIONS_BASE_VERSION, "nope",
		"Select a valid choice. That choice is not one of the "
		"available choices.");
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(defaults_without_a_row),
	TEST_ENTRY(patch_changes_what_it_names),
	TEST_ENTRY(checks_with_the_service_messages),
};

LEC_TEST_MAIN(tests)
