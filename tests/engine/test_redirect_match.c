/*
 * Unit tests for lec_redirect_match: every redirect type of §7.3 and §7.4,
 * wildcards and :splat, legacy $rest, list order, forced-only lookups,
 * 301/302, the loop guards, open-redirect protection and the query merge.
 * Redirects are created through the store (so they are normalised exactly
 * as the API stores them) and then matched against hand-made requests.
 */
#include "harness.h"
#include "lectern/redirect.h"

#define ORIGIN "http://docs.localhost:8000"

struct fixture {
	struct lec_store *st;
	int64_t project;
	struct lec_redirect_list list;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->st = lec_test_store();
	f->project = lec_test_project(f->st, "docs");
}

/* Add a redirect at the bottom of the list. */
static void add(struct fixture *f, const char *type, const char *from,
		const char *to, int status, int force)
{
	struct lec_redirect_patch p = { 0 };

	p.type = type;
	p.from_url = from;
	p.to_url = to;
	p.has_http_status = 1;
	p.http_status = status;
	p.has_force = 1;
	p.force = force;
	p.has_position = 1;
	p.position = 1000; /* clamped to the end */
	CHECK_OK(lec_redirect_create(f->st, f->project, &p, NULL));
}

static void load(struct fixture *f)
{
	lec_redirect_list_dispose(&f->list);
	CHECK_OK(lec_redirect_list_enabled(f->st, f->project, &f->list));
}

static void teardown(struct fixture *f)
{
	lec_redirect_list_dispose(&f->list);
	lec_store_free(f->st);
}

/* Match a request in /en/latest/ (filename derived from path) and check
 * the Location; expected NULL: no redirect applies. */
static void expect_full(struct fixture *f, const char *path,
			const char *filename, const char *query, int forced,
			const char *expected, int status)
{
	struct lec_redirect_request rq = { path, filename, "/en/latest",
					   ORIGIN, query, forced };
	struct lec_redirect_target t;
	int rc;

	load(f);
	rc = lec_redirect_match(&f->list, &rq, &t);
	if (expected == NULL) {
		CHECK_INT(rc, LEC_ENOTFOUND);
		CHECK(t.url == NULL);
	} else {
		CHECK_OK(rc);
		CHECK_STR(t.url, expected);
		CHECK_INT(t.status, status);
	}
	lec_redirect_target_dispose(&t);
}

static void expect(struct fixture *f, const char *path, const char *expected)
{
	const char *filename = strncmp(path, "/en/latest", 10) == 0
				       ? path + 10
				       : "";

	expect_full(f, path, filename, "", 0, expected, 302);
}

TEST(page_redirects_within_version)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/old.html", "/new.html", 302, 0);
	expect(&f, "/en/latest/old.html", ORIGIN "/en/latest/new.html");
	expect(&f, "/en/latest/other.html", NULL);
	/* page looks at the filename, not the full path */
	expect(&f, "/old.html", NULL);
	teardown(&f);
}

TEST(page_strips_trailing_slash_and_allows_absolute)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/guide/", "https://example.com/g", 301, 0);
	expect_full(&f, "/en/latest/guide/", "/guide/", "", 0,
		    "https://example.com/g", 301);
	expect_full(&f, "/en/latest/guide", "/guide", "", 0,
		    "https://example.com/g", 301);
	teardown(&f);
}

TEST(page_wildcard_splat)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/api/*", "/reference/:splat", 302, 0);
	expect(&f, "/en/latest/api/x/y.html",
	       ORIGIN "/en/latest/reference/x/y.html");
	expect(&f, "/en/latest/api", NULL);
	teardown(&f);
}

TEST(wildcard_loop_guard_stops_search)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/dev/*", "/dev/new/:splat", 302, 0);
	add(&f, "page", "/dev/new/x.html", "/elsewhere.html", 302, 0);
	expect(&f, "/en/latest/dev/a.html", ORIGIN "/en/latest/dev/new/a.html");
	/* The first matches but loops: the second is never tried. */
	expect(&f, "/en/latest/dev/new/x.html", NULL);
	teardown(&f);
}

TEST(exact_uses_full_path)
{
	struct fixture f;

	setup(&f);
	add(&f, "exact", "/en/latest/a.html", "/en/v2/b.html", 302, 0);
	add(&f, "exact", "/legacy/*", "/en/latest/:splat", 301, 0);
	expect(&f, "/en/latest/a.html", ORIGIN "/en/v2/b.html");
	expect_full(&f, "/legacy/x/y.html", "", "", 0,
		    ORIGIN "/en/latest/x/y.html", 301);
	teardown(&f);
}

TEST(exact_legacy_rest)
{
	struct fixture f;

	setup(&f);
	add(&f, "exact", "/en/2.0/$rest", "/en/3.0/", 302, 0);
	expect_full(&f, "/en/2.0/dev/x.html", "", "", 0,
		    ORIGIN "/en/3.0/dev/x.html", 302);
	teardown(&f);
}

TEST(clean_url_to_html_spellings)
{
	static const char *const types[] = { "clean_url_to_html",
					     "docgen_html", "sphinx_html" };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct fixture f;

		setup(&f);
		add(&f, types[i], NULL, NULL, 302, 0);
		expect(&f, "/en/latest/guide/", ORIGIN "/en/latest/guide.html");
		expect(&f, "/en/latest/a/b/index.html",
		       ORIGIN "/en/latest/a/b.html");
		expect(&f, "/en/latest/", NULL);
		expect(&f, "/en/latest/index.html", NULL);
		expect(&f, "/en/latest/page.html", NULL);
		teardown(&f);
	}
}

TEST(html_to_clean_url_spellings)
{
	static const char *const types[] = { "html_to_clean_url",
					     "docgen_htmldir", "sphinx_htmldir" };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct fixture f;

		setup(&f);
		add(&f, types[i], NULL, NULL, 301, 0);
		expect_full(&f, "/en/latest/guide.html", "/guide.html", "", 0,
			    ORIGIN "/en/latest/guide/", 301);
		expect(&f, "/en/latest/a/index.html", NULL);
		expect(&f, "/en/latest/guide/", NULL);
		teardown(&f);
	}
}

TEST(legacy_prefix)
{
	struct fixture f;

	setup(&f);
	add(&f, "prefix", "/dev/", NULL, 302, 0);
	expect_full(&f, "/dev/install.html", "", "", 0,
		    ORIGIN "/en/latest/install.html", 302);
	expect(&f, "/developer/x.html", NULL);
	teardown(&f);
}

TEST(legacy_tries_next_after_loop)
{
	struct fixture f;

	setup(&f);
	/* /en/latest/x.html -> prefix "/" gives /en/latest/en/latest/x.html:
	 * not a loop. A legacy exact redirect onto itself is one. */
	add(&f, "exact", "/a/$rest", "/a/", 302, 0);
	add(&f, "exact", "/a/*", "/b/:splat", 302, 0);
	expect_full(&f, "/a/x.html", "", "", 0, ORIGIN "/b/x.html", 302);
	teardown(&f);
}

TEST(first_by_position)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/p.html", "/first.html", 302, 0);
	add(&f, "page", "/p.html", "/second.html", 302, 0);
	expect(&f, "/en/latest/p.html", ORIGIN "/en/latest/first.html");
	teardown(&f);
}

TEST(forced_only)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/a.html", "/plain.html", 302, 0);
	add(&f, "page", "/a.html", "/forced.html", 302, 1);
	expect_full(&f, "/en/latest/a.html", "/a.html", "", 1,
		    ORIGIN "/en/latest/forced.html", 302);
	expect_full(&f, "/en/latest/a.html", "/a.html", "", 0,
		    ORIGIN "/en/latest/plain.html", 302);
	teardown(&f);
}

TEST(loop_guard_same_path)
{
	struct fixture f;

	setup(&f);
	add(&f, "exact", "/en/latest/a.html", "/en/latest/a.html", 302, 0);
	expect(&f, "/en/latest/a.html", NULL);
	add(&f, "exact", "/x.html", ORIGIN "/x.html", 302, 0);
	expect_full(&f, "/x.html", "", "", 0, NULL, 0);
	teardown(&f);
}

TEST(open_redirect_stays_on_host)
{
	struct fixture f;

	setup(&f);
	add(&f, "exact", "/go/*", ":splat", 302, 0);
	expect_full(&f, "/go//evil.com/x", "", "", 0,
		    ORIGIN "/evil.com/x", 302);
	expect_full(&f, "/go/\\evil.com", "", "", 0, ORIGIN "/evil.com", 302);
	teardown(&f);
}

TEST(query_merge_and_fragment)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/q.html", "/t.html?b=2#sec", 302, 0);
	expect_full(&f, "/en/latest/q.html", "/q.html", "a=1", 0,
		    ORIGIN "/en/latest/t.html?a=1&b=2#sec", 302);
	expect_full(&f, "/en/latest/q.html", "/q.html", "", 0,
		    ORIGIN "/en/latest/t.html?b=2#sec", 302);
	teardown(&f);
}

TEST(empty_filename_only_exact)
{
	struct fixture f;

	setup(&f);
	add(&f, "page", "/*", "/x.html", 302, 0);
	add(&f, "sphinx_html", NULL, NULL, 302, 0);
	expect_full(&f, "/nowhere/", "", "", 0, NULL, 0);
	/* The root only by page or exact. */
	expect_full(&f, "/en/latest/", "/", "", 0, ORIGIN "/en/latest/x.html",
		    302);
	teardown(&f);
}

TEST(no_redirects)
{
	struct lec_redirect_request rq = { "/a", "/a", "", ORIGIN, "", 0 };
	struct lec_redirect_target t;

	CHECK_ERR(lec_redirect_match(NULL, &rq, &t), LEC_ENOTFOUND);
	CHECK(t.url == NULL);
	rq.path = NULL;
	CHECK_ERR(lec_redirect_match(NULL, &rq, &t), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "incomplete redirect request");
	lec_redirect_target_dispose(NULL);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(page_redirects_within_version),
	TEST_ENTRY(page_strips_trailing_slash_and_allows_absolute),
	TEST_ENTRY(page_wildcard_splat),
	TEST_ENTRY(wildcard_loop_guard_stops_search),
	TEST_ENTRY(exact_uses_full_path),
	TEST_ENTRY(exact_legacy_rest),
	TEST_ENTRY(clean_url_to_html_spellings),
	TEST_ENTRY(html_to_clean_url_spellings),
	TEST_ENTRY(legacy_prefix),
	TEST_ENTRY(legacy_tries_next_after_loop),
	TEST_ENTRY(first_by_position),
	TEST_ENTRY(forced_only),
	TEST_ENTRY(loop_guard_same_path),
	TEST_ENTRY(open_redirect_stays_on_host),
	TEST_ENTRY(query_merge_and_fragment),
	TEST_ENTRY(empty_filename_only_exact),
	TEST_ENTRY(no_redirects),
};

LEC_TEST_MAIN(tests)
