/*
 * The reader's view of /_/addons/ (ui/addons.c): the notice line on
 * latest, on a version other than stable and on a pull-request build, as
 * the addons' script words them, none on stable or when the project turned
 * notices off; the same page in each version (a directory's index.html
 * left off); and an answer that is no addons document refused.
 */
#include <stdio.h>
#include <string.h>

#include "addons.h"
#include "harness.h"

#define ROOT "http://d.localhost:8000/en/"

/* An answer for current version slug (type), notices on or off. */
static void answer(char *out, size_t cap, const char *slug, const char *type,
		   int notices)
{
	snprintf(out, cap,
		 "{\"versions\": {\"current\": {\"slug\": \"%s\", \"type\": "
		 "\"%s\"}, \"active\": ["
		 "{\"slug\": \"latest\", \"urls\": {\"documentation\": \"" ROOT
		 "latest/\"}},"
		 "{\"slug\": \"stable\", \"urls\": {\"documentation\": \"" ROOT
		 "stable/\"}},"
		 "{\"slug\": \"v1.0\", \"urls\": {\"documentation\": \"" ROOT
		 "v1.0/\"}}]},"
		 "\"readthedocs\": {\"resolver\": {\"filename\": "
		 "\"/guide/index.html\"}},"
		 "\"addons\": {\"notifications\": {\"enabled\": %s, "
		 "\"show_on_latest\": true, \"show_on_non_stable\": true, "
		 "\"show_on_external\": true}}}",
		 slug, type, notices ? "true" : "false");
}

static void notice_is(const char *slug, const char *type, int notices,
		      const char *want)
{
	struct ui_addons a = { 0 };
	char body[2048];

	answer(body, sizeof(body), slug, type, notices);
	CHECK_INT(ui_addons_read(body, strlen(body), &a), 0);
	if (want)
		CHECK_STR(a.notice, want);
	else
		CHECK(a.notice == NULL);
	ui_addons_dispose(&a);
}

static void notices_as_the_script(void)
{
	notice_is("latest", "branch", 1,
		  "latest: development version \u2014 s for stable");
	notice_is("v1.0", "tag", 1,
		  "v1.0: not the stable version \u2014 s for stable");
	notice_is("7", "external", 1,
		  "7: a pull request's build, not a release's docs \u2014 s "
		  "for stable");
	notice_is("stable", "tag", 1, NULL);
	notice_is("latest", "branch", 0, NULL);
}

static void versions_at_the_same_page(void)
{
	struct ui_addons a = { 0 };
	char body[2048];

	answer(body, sizeof(body), "v1.0", "tag", 1);
	CHECK_INT(ui_addons_read(body, strlen(body), &a), 0);
	CHECK_INT((long long)a.nversions, 3);
	CHECK_INT((long long)a.current, 2);
	CHECK_STR(a.titles[1], "stable");
	CHECK_STR(a.urls[0], ROOT "latest/guide/");
	CHECK_STR(a.stable_url, ROOT "stable/guide/");
	ui_addons_dispose(&a);
	ui_addons_dispose(NULL);
}

static void not_an_answer(void)
{
	struct ui_addons a = { 0 };

	CHECK_INT(ui_addons_read("{\"detail\": \"Not found.\"}", 24, &a), -1);
	CHECK_INT(ui_addons_read("nope", 4, &a), -1);
	CHECK(a.notice == NULL && a.nversions == 0);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(notices_as_the_script),
	TEST_ENTRY(versions_at_the_same_page),
	TEST_ENTRY(not_an_answer),
};

LEC_TEST_MAIN(tests)
