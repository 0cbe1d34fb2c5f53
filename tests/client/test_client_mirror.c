/*
 * The client's pieces of mirrors and page diffs that need no server: which
 * page a mirrored page's link leads to (relative, absolute, directories,
 * "..", fragments, other sites and versions), and a diff answer parsed and
 * printed as unified-diff text.
 */
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "client_internal.h"

static void link_is(const char *from, const char *href, const char *want)
{
	char *got = lc__mirror_link(from, href, strlen(href), "/en/latest/");

	if (want == NULL && got != NULL)
		FAIL_AT("%s from %s: got %s, expected none", href, from, got);
	else if (want != NULL)
		CHECK_STR(got ? got : "(none)", want);
	free(got);
}

TEST(mirror_links)
{
	link_is("index.html", "usage.html", "usage.html");
	link_is("index.html", "usage.html#calling", "usage.html");
	link_is("index.html", "usage.html?x=1", "usage.html");
	link_is("guide/a.html", "b.html", "guide/b.html");
	link_is("guide/a.html", "../b.html", "b.html");
	link_is("guide/a.html", "./c/", "guide/c/index.html");
	link_is("guide/a.html", "../", "index.html");
	link_is("guide/a.html", "/en/latest/api/x.html", "api/x.html");
	link_is("guide/a.html", "/en/latest/", "index.html");
	link_is("a.html", "sub//x.html", "sub/x.html");
	/* Elsewhere: above the root, another version, another site, not a
	 * page, only a fragment, escapes. */
	link_is("a.html", "../stable/a.html", NULL);
	link_is("guide/a.html", "../../x.html", NULL);
	link_is("a.html", "/en/stable/a.html", NULL);
	link_is("a.html", "https://example.com/a.html", NULL);
	link_is("a.html", "//example.com/a.html", NULL);
	link_is("a.html", "mailto:x@example.com", NULL);
	link_is("a.html", "_static/style.css", NULL);
	link_is("a.html", "#top", NULL);
	link_is("a.html", "", NULL);
	link_is("a.html", "a%20b.html", NULL);
}

TEST(diff_unified)
{
	static const char body[] =
		"{\"base\":{\"build\":1,\"ref\":\"build:1\"},"
		"\"head\":{\"build\":2,\"ref\":\"latest\"},"
		"\"pages\":[{\"path\":\"a.html\",\"status\":\"changed\","
		"\"title\":\"A\",\"base_title\":\"Old A\",\"sections\":["
		"{\"id\":\"s\",\"status\":\"changed\",\"title\":\"S\","
		"\"base_title\":null,\"lines\":[\" same.\",\"-old.\","
		"\"+new.\"]},{\"id\":\"t\",\"status\":\"added\",\"title\":\"T\","
		"\"base_title\":null,\"lines\":[\"+fresh.\"]}]},"
		"{\"path\":\"b.html\",\"status\":\"added\",\"title\":\"B\","
		"\"base_title\":null,\"sections\":[]},"
		"{\"path\":\"c.html\",\"status\":\"removed\",\"title\":\"C\","
		"\"base_title\":null,\"sections\":[]}],"
		"\"truncated\":false,\"unchanged\":7}";
	static const char want[] =
		"--- a/a.html\t(build:1)\n+++ b/a.html\t(latest)\n"
		"@@ page title @@\n-Old A\n+A\n"
		"@@ #s S @@\n same.\n-old.\n+new.\n"
		"@@ #t T (added) @@\n+fresh.\n"
		"--- /dev/null\n+++ b/b.html\t(latest)\n@@ page added: B @@\n"
		"--- a/c.html\t(build:1)\n+++ /dev/null\n@@ page removed: C @@\n";
	cJSON *j = cJSON_Parse(body);
	struct lc_diff *d = NULL;
	struct lc_error err;
	char *text;

	CHECK_OK(lc_diff_parse(j, &d, &err), &err);
	cJSON_Delete(j);
	if (d == NULL)
		return;
	CHECK_INT(d->pages_len, 3);
	CHECK_INT(d->unchanged, 7);
	CHECK_INT(d->truncated, 0);
	CHECK_INT(d->base_build, 1);
	text = lc_diff_unified(d, NULL);
	CHECK_STR(text ? text : "(null)", want);
	free(text);
	text = lc_diff_unified(d, &d->pages[1]);
	CHECK_STR(text ? text : "(null)",
		  "--- /dev/null\n+++ b/b.html\t(latest)\n@@ page added: B @@\n");
	free(text);
	lc_diff_free(d);
	/* Not an object: an error, never a crash. */
	j = cJSON_Parse("[1]");
	CHECK_RC(lc_diff_parse(j, &d, &err), LC_EJSON, &err);
	cJSON_Delete(j);
	lc_diff_free(NULL);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(mirror_links),
		TEST_ENTRY(diff_unified),
	};

	return lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
