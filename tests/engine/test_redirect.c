/*
 * Redirects: every type spelling and its semantics, field validation and
 * business rules with the service's exact messages, normalisation on save,
 * the per-project limit, positions after inserts, moves and deletes, PUT/
 * PATCH-style updates, reads, paging and cascades.
 */
#include <sqlite3.h>

#include "harness.h"
#include "internal.h"
#include "lectern/redirect.h"
#include "store_internal.h"

static struct lec_redirect_patch page(const char *from, const char *to)
{
	struct lec_redirect_patch p = { 0 };

	p.type = "page";
	p.from_url = from;
	p.to_url = to;
	return p;
}

static struct lec_redirect_patch typed(const char *type)
{
	struct lec_redirect_patch p = { 0 };

	p.type = type;
	return p;
}

/* Create and return the id (0 on failure, reported). */
static int64_t add(struct lec_store *st, int64_t project,
		   const struct lec_redirect_patch *p)
{
	struct lec_redirect *r = NULL;
	int64_t id = 0;

	CHECK_OK(lec_redirect_create(st, project, p, &r));
	if (r)
		id = r->id;
	lec_redirect_free(r);
	return id;
}

static size_t count(struct lec_store *st, int64_t project)
{
	struct lec_redirect_list list = { 0 };
	size_t n;

	CHECK_OK(lec_redirect_list(st, project, NULL, &list));
	n = list.total;
	lec_redirect_list_dispose(&list);
	return n;
}

/* The list's ids must be `ids` in order, with positions 0..n-1. */
static void check_order(struct lec_store *st, int64_t project,
			const int64_t *ids, size_t n, int line)
{
	struct lec_redirect_list list = { 0 };
	size_t i;

	CHECK_OK(lec_redirect_list(st, project, NULL, &list));
	if (list.len != n) {
		FAIL_AT("line %d: %zu redirects, expected %zu", line, list.len,
			n);
	} else {
		for (i = 0; i < n; i++)
			if (list.items[i].id != ids[i] ||
			    list.items[i].position != (int64_t)i)
				FAIL_AT("line %d: item %zu is id %lld at %lld, "
					"expected id %lld at %zu",
					line, i, (long long)list.items[i].id,
					(long long)list.items[i].position,
					(long long)ids[i], i);
	}
	lec_redirect_list_dispose(&list);
}

#define CHECK_ORDER(st, project, ...)                                        \
	do {                                                                 \
		const int64_t order_[] = { __VA_ARGS__ };                    \
		check_order(st, project, order_,                             \
			    sizeof(order_) / sizeof(order_[0]), __LINE__);   \
	} while (0)

/* The create must fail with code, message and field (NULL: none). */
static void check_refused(struct lec_store *st, int64_t project,
			  const struct lec_redirect_patch *p, int code,
			  const char *field, const char *message, int line)
{
	struct lec_redirect *r = NULL;
	int rc = lec_redirect_create(st, project, p, &r);
	const char *got = lec_error_last_field();

	if (rc != code)
		FAIL_AT("line %d: returned %d (%s), expected %d", line, rc,
			lec_error_last(), code);
	if (strcmp(lec_error_last(), message) != 0)
		FAIL_AT("line %d: message \"%s\", expected \"%s\"", line,
			lec_error_last(), message);
	if ((field == NULL) != (got == NULL) ||
	    (field && strcmp(field, got) != 0))
		FAIL_AT("line %d: field %s, expected %s", line,
			got ? got : "(none)", field ? field : "(none)");
	if (r != NULL)
		FAIL_AT("line %d: a redirect was returned", line);
	lec_redirect_free(r);
}

#define CHECK_REFUSED(st, project, p, code, field, message)                  \
	check_refused(st, project, p, code, field, message, __LINE__)

TEST(types_and_semantics)
{
	static const struct {
		const char *type;
		enum lec_redirect_kind kind;
		int legacy;
	} cases[] = {
		{ "prefix", LEC_REDIRECT_PREFIX, 1 },
		{ "page", LEC_REDIRECT_PAGE, 0 },
		{ "exact", LEC_REDIRECT_EXACT, 0 },
		{ "clean_url_to_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 0 },
		{ "docgen_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 1 },
		{ "sphinx_html", LEC_REDIRECT_CLEAN_URL_TO_HTML, 1 },
		{ "html_to_clean_url", LEC_REDIRECT_HTML_TO_CLEAN_URL, 0 },
		{ "docgen_htmldir", LEC_REDIRECT_HTML_TO_CLEAN_URL, 1 },
		{ "sphinx_htmldir", LEC_REDIRECT_HTML_TO_CLEAN_URL, 1 },
	};
	struct lec_redirect_semantics sem;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&sem, 0, sizeof(sem));
		CHECK_OK(lec_redirect_semantics_of(cases[i].type, "/a", &sem));
		CHECK_INT(sem.kind, cases[i].kind);
		CHECK_INT(sem.legacy, cases[i].legacy);
	}
	CHECK_OK(lec_redirect_semantics_of("exact", "/en/2.0/$rest", &sem));
	CHECK_INT(sem.kind, LEC_REDIRECT_EXACT);
	CHECK_INT(sem.legacy, 1);
	CHECK_OK(lec_redirect_semantics_of("exact", NULL, &sem));
	CHECK_INT(sem.legacy, 0);
	CHECK_OK(lec_redirect_semantics_of("page", "/en/$rest", &sem));
	CHECK_INT(sem.legacy, 0);
	CHECK_ERR(lec_redirect_semantics_of("Page", "/a", &sem), LEC_EINVALID);
	CHECK_ERR(lec_redirect_semantics_of("", "/a", &sem), LEC_EINVALID);
	CHECK_ERR(lec_redirect_semantics_of(NULL, "/a", &sem), LEC_EINVALID);
}

TEST(create_defaults_and_normalisation)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = page("/docs/", "install.html");
	struct lec_redirect *r = NULL, *again = NULL;

	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK(r && r->id > 0);
	CHECK_INT(r->project_id, p);
	CHECK_STR(r->type, "page");
	CHECK_STR(r->from_url, "/docs");
	CHECK_STR(r->to_url, "/install.html");
	CHECK(r->from_url_without_rest == NULL);
	CHECK_INT(r->http_status, 302);
	CHECK_INT(r->enabled, 1);
	CHECK_INT(r->force, 0);
	CHECK_STR(r->description, "");
	CHECK_INT(r->position, 0);
	CHECK(r->created > 0 && r->modified == r->created);
	CHECK_OK(lec_redirect_get(st, p, r->id, &again));
	CHECK_STR(again->from_url, "/docs");
	lec_redirect_free(again);
	lec_redirect_free(r);

	in = page("", "");
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->from_url, "/");
	CHECK_STR(r->to_url, "/");
	lec_redirect_free(r);

	in = page("///a/b//", "//x/y/");
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->from_url, "/a/b");
	CHECK_STR(r->to_url, "/x/y/");
	lec_redirect_free(r);

	in = page("guide/*", "https://example.org/new/:splat/");
	in.type = "exact";
	in.http_status = 301;
	in.has_http_status = 1;
	in.force = 1;
	in.has_force = 1;
	in.enabled = 0;
	in.has_enabled = 1;
	in.description = "moved";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->type, "exact");
	CHECK_STR(r->from_url, "/guide/*");
	CHECK_STR(r->from_url_without_rest, "/guide/");
	CHECK_STR(r->to_url, "https://example.org/new/:splat/");
	CHECK_INT(r->http_status, 301);
	CHECK_INT(r->force, 1);
	CHECK_INT(r->enabled, 0);
	CHECK_STR(r->description, "moved");
	lec_redirect_free(r);

	in = page("http://x/a", "http:/relative");
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->from_url, "/http://x/a");
	CHECK_STR(r->to_url, "/http:/relative");
	lec_redirect_free(r);
	lec_store_free(st);
}

TEST(prefix_and_clean_types_normalise)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = typed("prefix");
	struct lec_redirect *r = NULL;

	in.from_url = "dev/";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->type, "prefix");
	CHECK_STR(r->from_url, "/dev/");
	CHECK_STR(r->to_url, "");
	CHECK(r->from_url_without_rest == NULL);
	lec_redirect_free(r);

	in.to_url = "x.html";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->to_url, "/x.html");
	lec_redirect_free(r);

	in = typed("docgen_html");
	in.from_url = "/ignored/";
	in.to_url = "/also/";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->type, "docgen_html");
	CHECK_STR(r->from_url, "");
	CHECK_STR(r->to_url, "");
	CHECK(r->from_url_without_rest == NULL);
	lec_redirect_free(r);

	in = typed("html_to_clean_url");
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->type, "html_to_clean_url");
	CHECK_STR(r->from_url, "");
	lec_redirect_free(r);
	lec_store_free(st);
}

TEST(field_validation)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = typed(NULL);

	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "type",
		      "This field is required.");
	CHECK_REFUSED(st, p, NULL, LEC_EINVALID, "type",
		      "This field is required.");
	in.type = "bogus";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "type",
		      "\"bogus\" is not a valid choice.");
	in.type = "";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "type",
		      "\"\" is not a valid choice.");
	in = page(NULL, "/to");
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "from_url",
		      "This field is required.");
	in.type = "exact";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "from_url",
		      "This field is required.");
	in.type = "prefix";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "from_url",
		      "This field is required.");
	in = page("/from", NULL);
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "to_url",
		      "This field is required.");
	in.type = "exact";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "to_url",
		      "This field is required.");
	in = page("/a", "/b");
	in.has_http_status = 1;
	in.http_status = 303;
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "http_status",
		      "\"303\" is not a valid choice.");
	in.http_status = 0;
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "http_status",
		      "\"0\" is not a valid choice.");
	in.has_http_status = 0;
	in.has_position = 1;
	in.position = -1;
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, "position",
		      "Ensure this value is greater than or equal to 0.");
	CHECK_INT(count(st, p), 0);

	/* Not required: prefix's to_url, both URLs of the clean types. */
	in = typed("prefix");
	in.from_url = "/old/";
	CHECK(add(st, p, &in) > 0);
	in = typed("sphinx_htmldir");
	CHECK(add(st, p, &in) > 0);
	CHECK_INT(count(st, p), 2);
	lec_store_free(st);
}

TEST(business_rules)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = page("/en/2.0/$rest", "/en/3.0/");
	struct lec_redirect *r = NULL;

	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "The $rest wildcard has been removed in favor of *.");
	/* Checked on the normalised URL: the trailing slash goes first. */
	in.from_url = "/en/2.0/$rest/";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "The $rest wildcard has been removed in favor of *.");
	in.type = "exact";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	CHECK_STR(r->from_url, "/en/2.0/$rest");
	CHECK_STR(r->from_url_without_rest, "/en/2.0/");
	lec_redirect_free(r);

	in = page("/a*/b", "/c");
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "The * wildcard must be at the end of the path.");
	in.type = "exact";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "The * wildcard must be at the end of the path.");
	in = page("/a/", "/b/:splat");
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "The * wildcard must be at the end of from_url to use "
		      "the :splat placeholder in to_url.");
	in.from_url = "/a/*";
	CHECK(add(st, p, &in) > 0);

	in = typed("clean_url_to_html");
	CHECK(add(st, p, &in) > 0);
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "Only one redirect of type `clean_url_to_html` is "
		      "allowed per project.");
	in.type = "sphinx_html";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "Only one redirect of type `clean_url_to_html` is "
		      "allowed per project.");
	in.type = "docgen_htmldir";
	CHECK(add(st, p, &in) > 0);
	in.type = "html_to_clean_url";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "Only one redirect of type `html_to_clean_url` is "
		      "allowed per project.");
	/* Another project has its own. */
	in.type = "docgen_html";
	CHECK(add(st, lec_test_project(st, "other"), &in) > 0);
	CHECK_INT(count(st, p), 4);
	lec_store_free(st);
}

TEST(redirect_limit)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = page("/a", "/b");
	struct lec_redirect_patch patch = { 0 };
	struct lec_redirect_list list = { 0 };
	int i;

	for (i = 0; i < LEC_REDIRECT_MAX_PER_PROJECT; i++)
		CHECK_OK(lec_redirect_create(st, p, &in, NULL));
	CHECK_INT(count(st, p), 100);
	CHECK_REFUSED(st, p, &in, LEC_ELIMIT, NULL,
		      "This project has reached the limit of 100 redirects. "
		      "Consider replacing some of your redirects with a "
		      "wildcard redirect.");
	CHECK_INT(count(st, p), 100);
	/* Updates are not creations. */
	CHECK_OK(lec_redirect_list(st, p, NULL, &list));
	patch.description = "still editable";
	CHECK_OK(lec_redirect_update(st, p, list.items[0].id, &patch, NULL));
	CHECK_OK(lec_redirect_delete(st, p, list.items[1].id));
	lec_redirect_list_dispose(&list);
	CHECK_OK(lec_redirect_create(st, p, &in, NULL));
	CHECK_OK(lec_redirect_create(st, lec_test_project(st, "b"), &in, NULL));
	lec_store_free(st);
}

static int64_t add_at(struct lec_store *st, int64_t p, int64_t position,
		      int given)
{
	struct lec_redirect_patch in = page("/a", "/b");

	in.has_position = given;
	in.position = position;
	return add(st, p, &in);
}

static void move(struct lec_store *st, int64_t p, int64_t id, int64_t pos)
{
	struct lec_redirect_patch patch = { 0 };

	patch.has_position = 1;
	patch.position = pos;
	CHECK_OK(lec_redirect_update(st, p, id, &patch, NULL));
}

TEST(positions_insert_move_delete)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t other = lec_test_project(st, "other");
	int64_t a, b, c, d, e, x;

	a = add_at(st, p, 0, 0);
	CHECK_ORDER(st, p, a);
	b = add_at(st, p, 0, 0); /* default 0: on top */
	CHECK_ORDER(st, p, b, a);
	c = add_at(st, p, 99, 1); /* clamped to the count */
	CHECK_ORDER(st, p, b, a, c);
	d = add_at(st, p, 1, 1);
	CHECK_ORDER(st, p, b, d, a, c);
	e = add_at(st, p, 4, 1); /* exactly the count: the end */
	CHECK_ORDER(st, p, b, d, a, c, e);
	x = add_at(st, other, 0, 0); /* another project's are apart */
	CHECK_ORDER(st, other, x);

	move(st, p, b, 2); /* down: the ones in between move up */
	CHECK_ORDER(st, p, d, a, b, c, e);
	move(st, p, e, 0); /* up: the ones in between move down */
	CHECK_ORDER(st, p, e, d, a, b, c);
	move(st, p, d, 100); /* clamped to count - 1 */
	CHECK_ORDER(st, p, e, a, b, c, d);
	move(st, p, b, 2); /* in place */
	CHECK_ORDER(st, p, e, a, b, c, d);
	move(st, p, c, 1);
	CHECK_ORDER(st, p, e, c, a, b, d);

	CHECK_OK(lec_redirect_delete(st, p, c));
	CHECK_ORDER(st, p, e, a, b, d);
	CHECK_OK(lec_redirect_delete(st, p, e));
	CHECK_ORDER(st, p, a, b, d);
	CHECK_OK(lec_redirect_delete(st, p, d));
	CHECK_ORDER(st, p, a, b);
	CHECK_ORDER(st, other, x);
	CHECK_ERR(lec_redirect_delete(st, p, d), LEC_ENOTFOUND);
	CHECK_ERR(lec_redirect_delete(st, other, a), LEC_ENOTFOUND);
	CHECK_ORDER(st, p, a, b);
	lec_store_free(st);
}

TEST(update_keeps_omitted_fields)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = page("/old/", "/new.html");
	struct lec_redirect_patch patch = { 0 };
	struct lec_redirect *r = NULL, *u = NULL;
	int64_t second;

	in.http_status = 301;
	in.has_http_status = 1;
	in.description = "keep me";
	CHECK_OK(lec_redirect_create(st, p, &in, &r));
	add_at(st, p, 0, 0); /* r is now at position 1 */

	patch.force = 1;
	patch.has_force = 1;
	CHECK_OK(lec_redirect_update(st, p, r->id, &patch, &u));
	CHECK_STR(u->type, "page");
	CHECK_STR(u->from_url, "/old");
	CHECK_STR(u->to_url, "/new.html");
	CHECK_INT(u->http_status, 301);
	CHECK_STR(u->description, "keep me");
	CHECK_INT(u->force, 1);
	CHECK_INT(u->enabled, 1);
	CHECK_INT(u->position, 1);
	CHECK_INT(u->created, r->created);
	CHECK(u->modified >= r->modified);
	lec_redirect_free(u);

	/* PUT-like: a new type and URLs; a clean type drops the URLs. */
	memset(&patch, 0, sizeof(patch));
	patch.type = "exact";
	patch.from_url = "/x/*/";
	patch.to_url = "/y/:splat";
	CHECK_OK(lec_redirect_update(st, p, r->id, &patch, &u));
	CHECK_STR(u->type, "exact");
	CHECK_STR(u->from_url, "/x/*");
	CHECK_STR(u->from_url_without_rest, "/x/");
	lec_redirect_free(u);
	memset(&patch, 0, sizeof(patch));
	patch.type = "sphinx_html";
	CHECK_OK(lec_redirect_update(st, p, r->id, &patch, &u));
	CHECK_STR(u->type, "sphinx_html");
	CHECK_STR(u->from_url, "");
	CHECK_STR(u->to_url, "");
	CHECK(u->from_url_without_rest == NULL);
	lec_redirect_free(u);

	/* The uniqueness rule ignores the redirect itself... */
	patch.type = NULL;
	patch.description = "renamed";
	CHECK_OK(lec_redirect_update(st, p, r->id, &patch, NULL));
	/* ...but not another one of the same kind. */
	in = typed("clean_url_to_html");
	in.description = "second";
	CHECK_REFUSED(st, p, &in, LEC_EINVALID, NULL,
		      "Only one redirect of type `clean_url_to_html` is "
		      "allowed per project.");
	second = add_at(st, p, 0, 0);
	memset(&patch, 0, sizeof(patch));
	patch.type = "docgen_html";
	CHECK_ERR(lec_redirect_update(st, p, second, &patch, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "Only one redirect of type "
				    "`clean_url_to_html` is allowed per "
				    "project.");
	CHECK(lec_error_last_field() == NULL);

	/* A refused update changes nothing, including positions. */
	patch.type = "page";
	patch.from_url = "/a*b";
	patch.has_position = 1;
	patch.position = 2;
	CHECK_ERR(lec_redirect_update(st, p, second, &patch, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "The * wildcard must be at the end of the path.");
	patch.from_url = "/ok";
	patch.has_http_status = 1;
	patch.http_status = 307;
	CHECK_ERR(lec_redirect_update(st, p, second, &patch, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "http_status");
	CHECK_OK(lec_redirect_get(st, p, second, &u));
	CHECK_STR(u->type, "page");
	CHECK_STR(u->from_url, "/a");
	CHECK_INT(u->position, 0);
	lec_redirect_free(u);
	CHECK_OK(lec_redirect_get(st, p, r->id, &u));
	CHECK_STR(u->description, "renamed");
	CHECK_INT(u->position, 2);
	lec_redirect_free(u);

	/* A clean redirect turned into page keeps "" URLs, which normalise. */
	memset(&patch, 0, sizeof(patch));
	patch.type = "page";
	CHECK_OK(lec_redirect_update(st, p, r->id, &patch, &u));
	CHECK_STR(u->from_url, "/");
	CHECK_STR(u->to_url, "/");
	lec_redirect_free(u);

	CHECK_ERR(lec_redirect_update(st, p, 9999, &patch, &u), LEC_ENOTFOUND);
	CHECK(u == NULL);
	CHECK_STR(lec_error_last(), "No Redirect matches the given query.");
	lec_redirect_free(r);
	lec_store_free(st);
}

TEST(get_list_paging_and_enabled)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t other = lec_test_project(st, "other");
	struct lec_redirect_list list = { 0 };
	struct lec_redirect_patch patch = { 0 };
	struct lec_page pg = { 2, 1 };
	struct lec_redirect *r = NULL;
	int64_t ids[5];
	int i;

	for (i = 0; i < 5; i++)
		ids[i] = add_at(st, p, i, 1);
	CHECK_OK(lec_redirect_list(st, p, &pg, &list));
	CHECK_INT(list.len, 2);
	CHECK_INT(list.total, 5);
	CHECK_INT(list.items[0].id, ids[1]);
	CHECK_INT(list.items[1].id, ids[2]);
	lec_redirect_list_dispose(&list);
	pg.offset = 10;
	CHECK_OK(lec_redirect_list(st, p, &pg, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 5);
	lec_redirect_list_dispose(&list);
	CHECK_OK(lec_redirect_list(st, other, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_redirect_list_dispose(&list);

	patch.has_enabled = 1;
	patch.enabled = 0;
	CHECK_OK(lec_redirect_update(st, p, ids[1], &patch, NULL));
	CHECK_OK(lec_redirect_update(st, p, ids[3], &patch, NULL));
	CHECK_OK(lec_redirect_list_enabled(st, p, &list));
	CHECK_INT(list.len, 3);
	CHECK_INT(list.total, 3);
	CHECK_INT(list.items[0].id, ids[0]);
	CHECK_INT(list.items[1].id, ids[2]);
	CHECK_INT(list.items[2].id, ids[4]);
	lec_redirect_list_dispose(&list);

	/* Equal positions (an old database): the newest change first. */
	CHECK_OK(lec_store__exec(st, "UPDATE redirects SET position = 0"));
	patch.enabled = 1;
	CHECK_OK(lec_redirect_update(st, p, ids[2], &patch, NULL));
	CHECK_OK(lec_redirect_list(st, p, NULL, &list));
	CHECK_INT(list.items[0].id, ids[2]);
	lec_redirect_list_dispose(&list);

	CHECK_ERR(lec_redirect_get(st, other, ids[0], &r), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "No Redirect matches the given query.");
	CHECK(r == NULL);
	lec_store_free(st);
}

TEST(missing_project_and_cascade)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_redirect_patch in = page("/a", "/b");

	CHECK_ERR(lec_redirect_create(st, p + 100, &in, NULL), LEC_ENOTFOUND);
	add(st, p, &in);
	add(st, p, &in);
	CHECK_INT(count(st, p), 2);
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_INT(count(st, p), 0);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(types_and_semantics),
	TEST_ENTRY(create_defaults_and_normalisation),
	TEST_ENTRY(prefix_and_clean_types_normalise),
	TEST_ENTRY(field_validation),
	TEST_ENTRY(business_rules),
	TEST_ENTRY(redirect_limit),
	TEST_ENTRY(positions_insert_move_delete),
	TEST_ENTRY(update_keeps_omitted_fields),
	TEST_ENTRY(get_list_paging_and_enabled),
	TEST_ENTRY(missing_project_and_cascade),
};

LEC_TEST_MAIN(tests)
