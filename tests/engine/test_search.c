/*
 * The search index and query: translation of the service's query syntax
 * into FTS5 (exact expressions), atomic replacement (a failed replace keeps
 * the old index; a reader's snapshot keeps seeing it), removal with the
 * version, its deactivation and its project, search.ignore and
 * search.ranking when indexing a directory, results and their highlights
 * (escaping, bare spans, blocks), AND matches above OR matches, the rank
 * factor, paging and its errors, names first (an object's whole name,
 * dotted suffix, an identifier among words, a type word, a prefix, a
 * misspelling; the names go with their page), hostile queries that
 * must give results or a "q" validation error, never an SQL error, and
 * that what makes queries fast changes nothing (remembered document
 * frequencies, scanned highlights; the first results page of partial
 * matches is the best of the whole ranking, whatever cut-off computes it).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/search.h"
#include "lectern/version.h"
#include "search_internal.h"
#include "store_internal.h"

/* Documents built in memory (what the page parser would give). ------------ */

static struct lec_page_doc *doc_new(const char *title)
{
	struct lec_page_doc *d = lec__calloc(1, sizeof(*d));

	d->title = lec__strdup(title);
	d->sections = lec__calloc(8, sizeof(*d->sections));
	d->domains = lec__calloc(8, sizeof(*d->domains));
	return d;
}

static void doc_section(struct lec_page_doc *d, const char *id,
			const char *title, const char *content)
{
	struct lec_page_section *s = &d->sections[d->sections_len++];

	s->id = lec__strdup(id);
	s->title = lec__strdup(title);
	s->content = lec__strdup(content);
}

static void doc_domain(struct lec_page_doc *d, const char *role,
		       const char *name, const char *id, const char *content)
{
	struct lec_page_domain *e = &d->domains[d->domains_len++];

	e->role = lec__strdup(role);
	e->name = lec__strdup(name);
	e->id = lec__strdup(id);
	e->content = lec__strdup(content);
}

static int64_t new_version(struct lec_store *st, int64_t project,
			   const char *name)
{
	struct lec_version *v = NULL;
	int64_t id = 0;

	CHECK_OK(lec_version_create(st, project, name, name,
				    LEC_VERSION_BRANCH, 1, &v));
	if (v)
		id = v->id;
	lec_version_free(v);
	return id;
}

/* Index one page with one section per (id, title, content) triple. */
static void index_one(struct lec_store *st, int64_t version, const char *path,
		      const char *title, const char *content)
{
	struct lec_page_doc *d = doc_new(title);
	struct lec_search_page p = { path, 0, d };

	doc_section(d, "s", title, content);
	CHECK_OK(lec_search_index_replace(st, version, &p, 1));
	lec_page_doc_free(d);
}

/* Runs req into *r (the caller disposes of it): the block of its one
 * result, or NULL after failing the test unless there is exactly one
 * result with exactly one block. */
static const struct lec_search_block *
only_block(struct lec_store *st, const struct lec_search_request *req,
	   struct lec_search_results *r)
{
	CHECK_OK(lec_search_query(st, req, r));
	if (r->len == 1 && r->items[0].blocks_len == 1)
		return &r->items[0].blocks[0];
	FAIL_AT("\"%s\": %zu results, expected one with one block",
		req->query, r->len);
	return NULL;
}

static size_t total_of(struct lec_store *st, int64_t version, const char *q)
{
	struct lec_search_request req = { q, &version, 1, 1, 0 };
	struct lec_search_results r;
	size_t total;

	CHECK_OK(lec_search_query(st, &req, &r));
	total = r.total;
	lec_search_results_dispose(&r);
	return total;
}

static int64_t count_sql(struct lec_store *st, const char *sql)
{
	int64_t n = -1;

	CHECK_OK(lec_store__query_int(st, sql, NULL, 0, "test", &n, NULL));
	return n;
}

/* Translation ------------------------------------------------------------- */

static int test_tokens(void *ctx, const char *text, size_t len)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x80 || (c >= '0' && c <= '9') ||
		    ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
			return 1;
	}
	return 0;
}

static void check_translation(const char *q, const char *all, const char *any)
{
	struct lec__search_expr ex;

	CHECK_OK(lec__search_translate(q, test_tokens, NULL, &ex));
	if ((all == NULL) != (ex.all == NULL) ||
	    (all && strcmp(all, ex.all) != 0))
		FAIL_AT("'%s': AND form '%s', expected '%s'", q,
			ex.all ? ex.all : "(null)", all ? all : "(null)");
	if ((any == NULL) != (ex.any == NULL) ||
	    (any && strcmp(any, ex.any) != 0))
		FAIL_AT("'%s': OR form '%s', expected '%s'", q,
			ex.any ? ex.any : "(null)", any ? any : "(null)");
	lec__search_expr_dispose(&ex);
}

TEST(translation_of_the_query_syntax)
{
	check_translation("foo", "\"foo\"", "\"foo\"");
	check_translation("foo bar", "(\"foo\" AND \"bar\")",
			  "(\"foo\" OR \"bar\")");
	check_translation("\"foo bar\" baz*", "(\"foo bar\" AND \"baz\"*)",
			  "(\"foo bar\" OR \"baz\"*)");
	check_translation("a | b c", "((\"a\" OR \"b\") AND \"c\")",
			  "(\"a\" OR \"b\" OR \"c\")");
	check_translation("+a +b | c", "((\"a\" AND \"b\") OR \"c\")",
			  "((\"a\" AND \"b\") OR \"c\")");
	check_translation("a -b", "(\"a\") NOT (\"b\")",
			  "(\"a\") NOT (\"b\")");
	check_translation("a -(b c)", "(\"a\") NOT ((\"b\" AND \"c\"))",
			  "(\"a\") NOT ((\"b\" OR \"c\"))");
	check_translation("(a b) | c", "((\"a\" AND \"b\") OR \"c\")",
			  "((\"a\" OR \"b\") OR \"c\")");
	check_translation("x - y", "(\"x\" AND \"y\")", "(\"x\" OR \"y\")");
	check_translation("foo~2", "\"foo\"", "\"foo\"");
	check_translation("\"a b\"~3 c", "(\"a b\" AND \"c\")",
			  "(\"a b\" OR \"c\")");
	check_translation("a\\\"b", "\"a\"\"b\"", "\"a\"\"b\"");
	check_translation("NEAR(a b)", "(\"NEAR\" AND (\"a\" AND \"b\"))",
			  "(\"NEAR\" OR (\"a\" OR \"b\"))");
	check_translation("caf\xff\xfe", "\"caf\"", "\"caf\"");
}

TEST(translation_of_broken_queries)
{
	char deep[200];

	/* Unbalanced quotes and parentheses close at the end. */
	check_translation("\"foo", "\"foo\"", "\"foo\"");
	check_translation("(a", "\"a\"", "\"a\"");
	check_translation("a)", "\"a\"", "\"a\"");
	check_translation("a\"\"b", "(\"a\" AND \"b\")", "(\"a\" OR \"b\")");
	/* Nothing positive, or nothing the tokenizer keeps: no expression. */
	check_translation("-b", NULL, NULL);
	check_translation("&& ||", NULL, NULL);
	check_translation("", NULL, NULL);
	check_translation("*", NULL, NULL);
	check_translation("-(-a)", NULL, NULL);
	/* Nesting past the limit counts as spaces. */
	memset(deep, '(', 100);
	memcpy(deep + 100, "a", 2);
	check_translation(deep, "\"a\"", "\"a\"");
}

TEST(translation_limits)
{
	struct lec__search_expr ex;
	struct lec__buf b = LEC__BUF_INIT;
	char *q;
	int i;

	for (i = 0; i < LEC_SEARCH_QUERY_MAX; i++)
		lec__buf_puts(&b, "\xc3\xa9"); /* 2 bytes, 1 character */
	q = lec__buf_take(&b);
	CHECK_OK(lec__search_translate(q, test_tokens, NULL, &ex));
	lec__search_expr_dispose(&ex);
	lec__free(q);
	for (i = 0; i <= LEC_SEARCH_QUERY_MAX; i++)
		lec__buf_puts(&b, "a");
	q = lec__buf_take(&b);
	CHECK_ERR(lec__search_translate(q, test_tokens, NULL, &ex),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "Ensure this field has no more than 1000 characters.");
	CHECK_STR(lec_error_last_field(), "q");
	CHECK(ex.all == NULL && ex.any == NULL);
	lec__free(q);
	for (i = 0; i < LEC_SEARCH_TERMS_MAX; i++)
		lec__buf_puts(&b, "w ");
	q = lec__buf_take(&b);
	CHECK_OK(lec__search_translate(q, test_tokens, NULL, &ex));
	CHECK_INT(ex.terms, LEC_SEARCH_TERMS_MAX);
	lec__search_expr_dispose(&ex);
	lec__free(q);
	for (i = 0; i <= LEC_SEARCH_TERMS_MAX; i++)
		lec__buf_puts(&b, "w ");
	q = lec__buf_take(&b);
	CHECK_ERR(lec__search_translate(q, test_tokens, NULL, &ex),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "Ensure the query has no more than 64 words.");
	CHECK_STR(lec_error_last_field(), "q");
	lec__free(q);
}

/* Index and query ---------------------------------------------------------- */

/* index.html and api.html of a small project. */
static void index_sample(struct lec_store *st, int64_t version)
{
	struct lec_page_doc *index = doc_new("Welcome to Lectern");
	struct lec_page_doc *api = doc_new("API reference");
	struct lec_search_page pages[2] = { { "index.html", 0, index },
					    { "api.html", 0, api } };

	doc_section(index, "", "Welcome to Lectern",
		    "Lectern is a documentation workstation.");
	doc_section(index, "install", "Install",
		    "Run pip install lectern to get it.");
	doc_section(api, "api", "API reference",
		    "Functions of the <lectern> module & friends: it's "
		    "\"quoted\" a/b.");
	doc_domain(api, "py:function", "lectern.serve", "lectern.serve",
		   "Serve the documentation over HTTP.");
	CHECK_OK(lec_search_index_replace(st, version, pages, 2));
	lec_page_doc_free(index);
	lec_page_doc_free(api);
}

TEST(results_blocks_and_highlights)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_request req = { "install", &v, 1, 1, 0 };
	const struct lec_search_block *b;
	struct lec_search_results r;
	size_t n = 0;

	index_sample(st, v);
	CHECK_OK(lec_search_index_count(st, v, &n));
	CHECK_INT(n, 2);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 1);
	CHECK_INT(r.len, 1);
	if (r.len == 1) {
		CHECK_INT(r.items[0].version_id, v);
		CHECK_STR(r.items[0].path, "index.html");
		CHECK_STR(r.items[0].title, "Welcome to Lectern");
		CHECK(r.items[0].title_highlight == NULL);
		CHECK(r.items[0].score > 0);
		CHECK_INT(r.items[0].blocks_len, 1);
		CHECK_INT(r.items[0].blocks[0].type, LEC_SEARCH_BLOCK_SECTION);
		CHECK_STR(r.items[0].blocks[0].id, "install");
		CHECK(r.items[0].blocks[0].role == NULL);
		CHECK_STR(r.items[0].blocks[0].title, "Install");
		CHECK_STR(r.items[0].blocks[0].content,
			  "Run pip install lectern to get it.");
		CHECK_STR(r.items[0].blocks[0].title_highlight,
			  "<span>Install</span>");
		CHECK_STR(r.items[0].blocks[0].content_highlight,
			  "Run pip <span>install</span> lectern to get it.");
	}
	lec_search_results_dispose(&r);

	/* A page-title match highlights the title; a domain entry is a
	 * domain block with its role. */
	req.query = "welcome";
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.len, 1);
	if (r.len == 1) {
		CHECK_STR(r.items[0].title_highlight,
			  "<span>Welcome</span> to Lectern");
		CHECK_INT(r.items[0].blocks_len, 1);
		CHECK_STR(r.items[0].blocks[0].id, "");
	}
	lec_search_results_dispose(&r);
	req.query = "serve";
	if ((b = only_block(st, &req, &r)) != NULL) {
		CHECK_STR(r.items[0].path, "api.html");
		CHECK_INT(b->type, LEC_SEARCH_BLOCK_DOMAIN);
		CHECK_STR(b->role, "py:function");
		CHECK_STR(b->title, "lectern.serve");
		CHECK_STR(b->id, "lectern.serve");
		CHECK_STR(b->title_highlight, "lectern.<span>serve</span>");
		CHECK_STR(b->content_highlight,
			  "<span>Serve</span> the documentation over HTTP.");
	}
	lec_search_results_dispose(&r);
	lec_store_free(st);
}

TEST(highlights_are_html_escaped)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_request req = { "quoted", &v, 1, 1, 0 };
	const struct lec_search_block *b;
	struct lec_search_results r;

	index_sample(st, v);
	if ((b = only_block(st, &req, &r)) != NULL) {
		CHECK_STR(b->content_highlight,
			  "Functions of the &lt;lectern&gt; module &amp; "
			  "friends: it&#x27;s &quot;<span>quoted</span>&quot; "
			  "a&#x2F;b.");
		/* The block's content is the text itself. */
		CHECK_STR(b->content,
			  "Functions of the <lectern> module & friends: it's "
			  "\"quoted\" a/b.");
		/* The title does not match: no highlight. */
		CHECK(b->title_highlight == NULL);
	}
	lec_search_results_dispose(&r);
	/* Markers cannot be forged through indexed text. */
	index_one(st, v, "x.html", "X", "forged \x01span\x02 marker");
	req.query = "marker";
	if ((b = only_block(st, &req, &r)) != NULL)
		CHECK_STR(b->content_highlight,
			  "forged  span  <span>marker</span>");
	lec_search_results_dispose(&r);
	lec_store_free(st);
}

TEST(long_content_gives_one_fragment)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_request req = { "needle", &v, 1, 1, 0 };
	const struct lec_search_block *blk;
	struct lec_search_results r;
	struct lec__buf b = LEC__BUF_INIT;
	char *text;
	int i;

	for (i = 0; i < 200; i++)
		lec__buf_puts(&b, i == 100 ? "needle " : "hay ");
	text = lec__buf_take(&b);
	index_one(st, v, "long.html", "Long", text);
	if ((blk = only_block(st, &req, &r)) != NULL) {
		const char *h = blk->content_highlight;

		CHECK(h && strstr(h, "<span>needle</span>") != NULL);
		CHECK(h && strlen(h) < 120);
		CHECK_STR(blk->content, text);
	}
	lec_search_results_dispose(&r);
	lec__free(text);
	lec_store_free(st);
}

/* Every space-separated piece of a fragment is a whole word of text. */
static int whole_words(const char *h)
{
	const char *p = h;

	while (*p) {
		size_t n;

		if (strncmp(p, "<span>", 6) == 0)
			p += 6;
		n = strcspn(p, " ");
		if (strncmp(p, "word", 4) != 0 && strncmp(p, "needle", 6) != 0)
			return 0;
		p += n;
		p += *p == ' ';
	}
	return 1;
}

TEST(fragments_cut_at_words_and_follow_the_terms)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_request req = { "needle", &v, 1, 1, 0 };
	const struct lec_search_block *blk;
	struct lec_search_results r;
	struct lec__buf b = LEC__BUF_INIT;
	char *text;
	int i;

	for (i = 0; i < 300; i++)
		lec__buf_printf(&b, i == 150 ? "needle " : "word%d ", i);
	text = lec__buf_take(&b);
	index_one(st, v, "deep.html", "Deep", text);
	if ((blk = only_block(st, &req, &r)) != NULL) {
		const char *h = blk->content_highlight;

		CHECK(h && whole_words(h));
		CHECK(h && strncmp(h, "word14", 6) == 0); /* a little before */
		CHECK(h && strstr(h, "word149 <span>needle</span> word151"));
		CHECK(h && strlen(h) <= LEC__SEARCH_FRAGMENT + 13);
	}
	lec_search_results_dispose(&r);
	lec__free(text);
	/* A fragment starts at a word, not at a token inside a dotted name
	 * (the last tokens before the match are all in a.b.c...). */
	for (i = 0; i < 300; i++)
		lec__buf_printf(&b, i == 150 ? "a.b.c.d.e.f.g.h.i.needle "
					     : "word%d ",
				i);
	text = lec__buf_take(&b);
	index_one(st, v, "deep.html", "Deep", text);
	if ((blk = only_block(st, &req, &r)) != NULL)
		CHECK(blk->content_highlight &&
		      strncmp(blk->content_highlight,
			      "word148 word149 a.b.c.d.e.f.g.h.i.<span>needle",
			      46) == 0);
	lec_search_results_dispose(&r);
	lec__free(text);

	/* Prefixes, phrases and stems are highlighted; excluded words are
	 * not. */
	index_sample(st, v);
	req.query = "lect* -serve";
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 2); /* exclusion is per section, as nested */
	for (i = 0; i < (int)r.len; i++)
		if (strcmp(r.items[i].path, "index.html") == 0)
			CHECK_STR(r.items[i].title_highlight,
				  "Welcome to <span>Lectern</span>");
		else
			CHECK(r.items[i].blocks_len == 1 &&
			      r.items[i].blocks[0].type ==
				      LEC_SEARCH_BLOCK_SECTION);
	lec_search_results_dispose(&r);
	req.query = "install -lectern";
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 0); /* the section has "lectern" */
	lec_search_results_dispose(&r);
	/* "-x" excludes even after '|' (docs/search.md: FTS5 has no "or
	 * not"); the stemmed word alone finds and highlights the section. */
	req.query = "installing | -lectern";
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 0);
	lec_search_results_dispose(&r);
	req.query = "installing";
	if ((blk = only_block(st, &req, &r)) != NULL)
		CHECK_STR(blk->content_highlight,
			  "Run pip <span>install</span> lectern to get it.");
	lec_search_results_dispose(&r);
	req.query = "\"pip install\"";
	if ((blk = only_block(st, &req, &r)) != NULL)
		CHECK_STR(blk->content_highlight,
			  "Run <span>pip</span> <span>install</span> lectern to "
			  "get it.");
	lec_search_results_dispose(&r);
	lec_store_free(st);
}

TEST(and_matches_rank_above_or_matches)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_page_doc *a = doc_new("A"), *b = doc_new("B");
	struct lec_search_page pages[2] = { { "a.html", 0, a },
					    { "b.html", 0, b } };
	struct lec_search_request req = { "alpha beta", &v, 1, 1, 0 };
	struct lec_search_results r;

	doc_section(a, "s", "Notes", "alpha beta and many other words here");
	doc_section(b, "s", "Alpha", "alpha alpha alpha alpha alpha");
	CHECK_OK(lec_search_index_replace(st, v, pages, 2));
	lec_page_doc_free(a);
	lec_page_doc_free(b);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 2);
	CHECK_INT(r.len, 2);
	if (r.len == 2) {
		CHECK_STR(r.items[0].path, "a.html");
		CHECK_STR(r.items[1].path, "b.html");
	}
	lec_search_results_dispose(&r);
	/* Alone, "alpha" scores the page made of it first. */
	req.query = "alpha";
	CHECK_OK(lec_search_query(st, &req, &r));
	if (r.len == 2) {
		CHECK_STR(r.items[0].path, "b.html");
		CHECK(r.items[0].score > r.items[1].score);
	}
	lec_search_results_dispose(&r);
	/* Paging inside the OR-only tail still counts every page. */
	req.query = "alpha beta";
	req.page_size = 1;
	req.page = 2;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 2);
	if (r.len == 1)
		CHECK_STR(r.items[0].path, "b.html");
	lec_search_results_dispose(&r);
	/* "+" requires, "|" offers, "-" excludes. */
	CHECK_INT(total_of(st, v, "+alpha +beta"), 1);
	CHECK_INT(total_of(st, v, "beta | alpha"), 2);
	CHECK_INT(total_of(st, v, "alpha -beta"), 1);
	CHECK_INT(total_of(st, v, "\"beta and\""), 1);
	CHECK_INT(total_of(st, v, "\"and beta\""), 0);
	CHECK_INT(total_of(st, v, "alph*"), 2);
	CHECK_INT(total_of(st, v, "-alpha"), 0);
	lec_store_free(st);
}

TEST(rank_factor_scales_scores)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_page_doc *d = doc_new("Same");
	struct lec_search_page pages[3] = { { "low.html", -10, d },
					    { "high.html", 10, d },
					    { "odd.html", 11, d } };
	struct lec_search_request req = { "same", &v, 1, 1, 0 };
	struct lec_search_results r;

	CHECK(lec_search_rank_factor(-10) == 0.01);
	CHECK(lec_search_rank_factor(0) == 1);
	CHECK(lec_search_rank_factor(3) == 1.5);
	CHECK(lec_search_rank_factor(10) == 2);
	CHECK(lec_search_rank_factor(11) == 1);
	doc_section(d, "s", "Same", "same text");
	CHECK_OK(lec_search_index_replace(st, v, pages, 3));
	lec_page_doc_free(d);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.len, 3);
	if (r.len == 3) {
		double ratio = r.items[0].score / r.items[2].score;

		CHECK_STR(r.items[0].path, "high.html");
		CHECK_STR(r.items[1].path, "odd.html"); /* out of range: 0 */
		CHECK_STR(r.items[2].path, "low.html");
		CHECK(ratio > 199.99 && ratio < 200.01);
	}
	lec_search_results_dispose(&r);
	CHECK_INT(count_sql(st, "SELECT rank FROM search_pages "
				"WHERE path = 'odd.html'"),
		  0);
	lec_store_free(st);
}

TEST(at_most_three_blocks_best_first)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_page_doc *d = doc_new("Page");
	struct lec_search_page p = { "p.html", 0, d };
	struct lec_search_request req = { "zeta", &v, 1, 1, 0 };
	struct lec_search_results r;

	doc_section(d, "s1", "One", "zeta x x x x");
	doc_section(d, "s2", "Two", "zeta zeta x x x");
	doc_section(d, "s5", "Five", "zeta zeta zeta zeta zeta");
	doc_section(d, "s3", "Three", "zeta zeta zeta x x");
	doc_section(d, "s4", "Four", "zeta zeta zeta zeta x");
	doc_section(d, "s0", "None", "x x x x x");
	CHECK_OK(lec_search_index_replace(st, v, &p, 1));
	lec_page_doc_free(d);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.len, 1);
	if (r.len == 1) {
		CHECK_INT(r.items[0].blocks_len, LEC_SEARCH_BLOCKS_MAX);
		CHECK_STR(r.items[0].blocks[0].id, "s5");
		CHECK_STR(r.items[0].blocks[1].id, "s4");
		CHECK_STR(r.items[0].blocks[2].id, "s3");
	}
	lec_search_results_dispose(&r);
	lec_store_free(st);
}

TEST(paging_and_its_errors)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_page pages[5];
	struct lec_page_doc *d = doc_new("Common");
	struct lec_search_request req = { "common", &v, 1, 1, 2 };
	struct lec_search_results r;
	static const char *paths[] = { "1.html", "2.html", "3.html", "4.html",
				       "5.html" };
	int i;

	doc_section(d, "s", "Common", "common words");
	for (i = 0; i < 5; i++) {
		pages[i].path = paths[i];
		pages[i].rank = 0;
		pages[i].doc = d;
	}
	CHECK_OK(lec_search_index_replace(st, v, pages, 5));
	lec_page_doc_free(d);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 5);
	CHECK_INT(r.len, 2);
	if (r.len == 2) { /* equal scores: in index order */
		CHECK_STR(r.items[0].path, "1.html");
		CHECK_STR(r.items[1].path, "2.html");
	}
	lec_search_results_dispose(&r);
	req.page = 3;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 5);
	CHECK_INT(r.len, 1);
	if (r.len == 1)
		CHECK_STR(r.items[0].path, "5.html");
	lec_search_results_dispose(&r);
	req.page = 4;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 5);
	CHECK_INT(r.len, 0);
	lec_search_results_dispose(&r);
	req.page = 1;
	req.page_size = 0; /* the default */
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.len, 5);
	lec_search_results_dispose(&r);

	req.page = 0;
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "Invalid page");
	CHECK(lec_error_last_field() == NULL);
	req.page_size = 100;
	req.page = 10;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 5);
	lec_search_results_dispose(&r);
	req.page = 11;
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "Page number is too high.");
	CHECK(lec_error_last_field() == NULL);
	req.page_size = 1000; /* clamped to 100 */
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	req.page = 10;
	CHECK_OK(lec_search_query(st, &req, &r));
	lec_search_results_dispose(&r);
	req.page = (size_t)-1;
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "Page number is too high.");
	lec_store_free(st);
}

TEST(queries_are_limited_to_their_versions)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t ids[2] = { new_version(st, p, "v1"), new_version(st, p, "v2") };
	int64_t many[LEC_SEARCH_VERSIONS_MAX + 1] = { 0 };
	struct lec_search_request req = { "lectern", ids, 1, 1, 0 };
	struct lec_search_results r;

	index_sample(st, ids[0]);
	index_sample(st, ids[1]);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 2);
	CHECK(r.len == 2 && r.items[0].version_id == ids[0] &&
	      r.items[1].version_id == ids[0]);
	lec_search_results_dispose(&r);
	req.nversions = 2;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 4);
	lec_search_results_dispose(&r);
	req.nversions = 0;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 0);
	lec_search_results_dispose(&r);
	req.version_ids = many;
	req.nversions = LEC_SEARCH_VERSIONS_MAX + 1;
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	lec_store_free(st);
}

TEST(replace_is_atomic)
{
	struct lec_store *st = lec_test_store(), *reader = NULL;
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_page_doc *d = doc_new("Twice");
	struct lec_search_page dup[2] = { { "x.html", 0, d },
					  { "x.html", 0, d } };
	struct lec_search_page nopath = { "", 0, d };
	size_t n = 0;

	index_one(st, v, "old.html", "Old", "oldterm");
	index_one(st, v, "new.html", "New", "newterm");
	CHECK_INT(total_of(st, v, "oldterm"), 0);
	CHECK_INT(total_of(st, v, "newterm"), 1);
	CHECK_OK(lec_search_index_count(st, v, &n));
	CHECK_INT(n, 1);

	/* A failing replace leaves the index as it was. */
	doc_section(d, "s", "Twice", "twiceterm");
	CHECK_ERR(lec_search_index_replace(st, v, dup, 2), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "page 'x.html' is given twice");
	CHECK_ERR(lec_search_index_replace(st, v, &nopath, 1), LEC_EINVALID);
	CHECK_ERR(lec_search_index_replace(st, 9999, dup, 1), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no version with id 9999");
	lec_page_doc_free(d);
	CHECK_INT(total_of(st, v, "newterm"), 1);
	CHECK_INT(total_of(st, v, "twiceterm"), 0);

	/* A reader inside its snapshot keeps the old index while another
	 * handle replaces it, and sees the new one afterwards. */
	CHECK_OK(lec_store_open(&reader, lec_store_path(st), NULL));
	CHECK_OK(lec_store_read_begin(reader));
	CHECK_INT(total_of(reader, v, "newterm"), 1);
	index_one(st, v, "third.html", "Third", "thirdterm");
	CHECK_INT(total_of(reader, v, "newterm"), 1);
	CHECK_INT(total_of(reader, v, "thirdterm"), 0);
	lec_store_read_end(reader);
	CHECK_INT(total_of(reader, v, "newterm"), 0);
	CHECK_INT(total_of(reader, v, "thirdterm"), 1);
	lec_store_free(reader);
	/* An empty replace empties the index. */
	CHECK_OK(lec_search_index_replace(st, v, NULL, 0));
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_entries"), 0);
	lec_store_free(st);
}

TEST(index_goes_with_its_version_and_project)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = new_version(st, p, "v1");
	struct lec_version_patch off = { 0 };
	int64_t ids[1] = { p };
	size_t n = 9;

	index_sample(st, v);
	CHECK(count_sql(st, "SELECT count(*) FROM search_terms") > 0);
	CHECK_OK(lec_search_index_remove(st, v));
	CHECK_OK(lec_search_index_count(st, v, &n));
	CHECK_INT(n, 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_entries"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_terms"), 0);
	CHECK_OK(lec_search_index_remove(st, v)); /* no index: no error */

	/* Deactivating drops the index; other updates keep it. */
	index_sample(st, v);
	off.set = LEC_VERSION_SET_HIDDEN;
	off.hidden = 1;
	CHECK_OK(lec_version_update(st, v, &off));
	CHECK_INT(total_of(st, v, "lectern"), 2);
	off.set = LEC_VERSION_SET_ACTIVE;
	off.active = 0;
	CHECK_OK(lec_version_update(st, v, &off));
	CHECK_INT(total_of(st, v, "lectern"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_entries"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_versions"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_terms"), 0);

	/* Deleting the version, or the project, drops it too. */
	index_sample(st, v);
	CHECK_OK(lec_version_delete(st, v));
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_entries"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_pages"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_terms"), 0);
	v = new_version(st, p, "v2");
	index_sample(st, v);
	CHECK(count_sql(st, "SELECT count(*) FROM search_entries") > 0);
	CHECK_OK(lec_store__exec_ints(st, "DELETE FROM projects WHERE id = ?",
				      ids, 1, "test", NULL));
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_entries"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_versions"), 0);
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_terms"), 0);
	lec_store_free(st);
}

/* Indexing a directory ----------------------------------------------------- */

static void write_file(const char *dir, const char *rel, const char *text)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;
	FILE *f;

	lec__buf_printf(&b, "%s/%s", dir, rel);
	path = lec__buf_take(&b);
	f = path ? fopen(path, "w") : NULL;
	if (f == NULL) {
		FAIL_AT("cannot write %s", path ? path : rel);
	} else {
		fputs(text, f);
		fclose(f);
	}
	lec__free(path);
}

static void make_dir(const char *dir, const char *rel)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;

	lec__buf_printf(&b, "%s/%s", dir, rel);
	path = lec__buf_take(&b);
	CHECK(path && mkdir(path, 0700) == 0);
	lec__free(path);
}

static int64_t rank_of(struct lec_store *st, const char *path)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce((SELECT rank FROM search_pages WHERE path = "
		 "'%s'), 99)",
		 path);
	return count_sql(st, sql);
}

#define PAGE(title, body)                                                    \
	"<html><head><title>" title "</title></head><body><div role=\"main\">" \
	"<h1 id=\"top\">" title "</h1><p>" body "</p></div></body></html>"

TEST(index_directory_with_ignore_and_ranking)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = new_version(st, p, "v1"), fresh = new_version(st, p, "v2");
	struct lec_search_index_report rep;
	struct lec_rtd_config *cfg = NULL;
	char html[512], conf[512];
	struct lec_search_request req = { "gardening", &v, 1, 1, 0 };
	struct lec_search_results r;

	snprintf(conf, sizeof(conf), "%s", lec_test_tmpdir());
	write_file(conf, ".readthedocs.yaml",
		   "version: 2\n"
		   "build:\n"
		   "  os: ubuntu-24.04\n"
		   "  tools: {python: \"3.12\"}\n"
		   "sphinx: {configuration: docs/conf.py}\n"
		   "search:\n"
		   "  ignore: [\"private/*\", search.html]\n"
		   "  ranking:\n"
		   "    \"api/*\": -1\n"
		   "    api/important.html: 5\n");
	CHECK_OK(lec_rtd_config_load(conf, ".readthedocs.yaml", &cfg));
	snprintf(html, sizeof(html), "%s", lec_test_tmpdir());
	make_dir(html, "api");
	make_dir(html, "private");
	make_dir(html, "sub");
	make_dir(html, "sub/deep");
	write_file(html, "index.html", PAGE("Home", "Welcome gardening"));
	write_file(html, "search.html", PAGE("Search", "gardening"));
	write_file(html, "private/secret.html", PAGE("Secret", "gardening"));
	write_file(html, "api/a.html", PAGE("A", "alpha"));
	write_file(html, "api/important.html", PAGE("Important", "alpha"));
	write_file(html, "sub/deep/page.html", PAGE("Deep", "deep text"));
	write_file(html, "notes.txt", "gardening");
	{
		struct lec__buf b = LEC__BUF_INIT;
		char *link;

		lec__buf_printf(&b, "%s/link.html", html);
		link = lec__buf_take(&b);
		CHECK(link && symlink("index.html", link) == 0);
		lec__free(link);
	}
	CHECK_OK(lec_search_index_dir(st, v, html, cfg, &rep));
	CHECK_INT(rep.pages, 4);
	CHECK_INT(rep.ignored, 2);
	CHECK_INT(rep.failed, 0);
	CHECK(rep.entries >= 4);
	lec_search_index_report_dispose(&rep);
	CHECK_INT(rank_of(st, "api/important.html"), 5);
	CHECK_INT(rank_of(st, "api/a.html"), -1);
	CHECK_INT(rank_of(st, "index.html"), 0);
	CHECK_INT(rank_of(st, "sub/deep/page.html"), 0);
	CHECK_INT(rank_of(st, "link.html"), 99);
	CHECK_INT(rank_of(st, "search.html"), 99);
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 1);
	if (r.len == 1) {
		CHECK_STR(r.items[0].path, "index.html");
		CHECK_STR(r.items[0].title, "Home");
	}
	lec_search_results_dispose(&r);
	/* The higher rank comes first among equal pages. */
	req.query = "alpha";
	CHECK_OK(lec_search_query(st, &req, &r));
	if (r.len == 2)
		CHECK_STR(r.items[0].path, "api/important.html");
	lec_search_results_dispose(&r);

	/* Reindexing without a configuration keeps the stored rules. */
	CHECK_OK(lec_search_index_dir(st, v, html, NULL, &rep));
	CHECK_INT(rep.pages, 4);
	CHECK_INT(rep.ignored, 2);
	lec_search_index_report_dispose(&rep);
	CHECK_INT(rank_of(st, "api/important.html"), 5);
	/* A version never indexed gets the service's default ignore list. */
	CHECK_OK(lec_search_index_dir(st, fresh, html, NULL, NULL));
	CHECK_OK(lec_search_index_count(st, fresh, &rep.pages));
	CHECK_INT(rep.pages, 5);
	CHECK_ERR(lec_search_index_dir(st, v, "/nonexistent/dir", cfg, &rep),
		  LEC_EIO);
	lec_search_index_report_dispose(&rep);
	CHECK_INT(total_of(st, v, "gardening"), 1); /* kept */
	lec_rtd_config_free(cfg);
	lec_store_free(st);
}

/* Names first ----------------------------------------------------------------- */

/* Three pages: one defining objects and a config value, two that only
 * mention them (often, so that BM25 alone would put them first). */
static void index_names(struct lec_store *st, int64_t version)
{
	struct lec_page_doc *api = doc_new("API reference");
	struct lec_page_doc *talk = doc_new("Notes on html_theme");
	struct lec_page_doc *gloss = doc_new("Glossary");
	struct lec_page_doc *mod = doc_new("gardening — Tending plants");
	struct lec_search_page pages[] = { { "api.html", 0, api },
					   { "talk.html", 0, talk },
					   { "glossary.html", 0, gloss },
					   { "gardening.html", 0, mod } };

	doc_section(api, "api", "API", "The functions.");
	doc_domain(api, "py:function", "garden.plant_tulips",
		   "garden.plant_tulips", "Plant tulips in a bed.");
	doc_domain(api, "py:method", "water", "garden.Bed.water",
		   "Water the bed.");
	doc_domain(api, "std:confval", "html_theme", "confval-html_theme",
		   "The theme.");
	doc_domain(api, "rst:role", ":ref:", "role-ref", "A reference.");
	doc_domain(api, "rst:directive", ".. include:: filename",
		   "directive-include", "Include a file.");
	doc_domain(api, "std:option", "-W, --warnings-as-errors",
		   "cmdoption-build-W", "Turn warnings into errors.");
	doc_section(talk, "talk",
		    "Why html_theme, plant_tulips and water matter",
		    "html_theme html_theme html_theme plant_tulips "
		    "plant_tulips water water water ref ref role role build "
		    "tulips tulips");
	doc_section(talk, "gardening", "gardening", "What changed in it.");
	doc_section(gloss, "term-tulip", "tulip", "A flower, see ref.");
	doc_section(gloss, "planting-schedules", "Planting Schedules",
		    "When to plant bulbs.");
	/* A module's section (Sphinx's module-NAME target), and a section
	 * whose title only slugs to such an id. */
	doc_section(mod, "module-gardening", "gardening — Tending plants",
		    "Tools for beds.");
	doc_section(mod, "module-functions", "Module Functions", "Some.");
	CHECK_OK(lec_search_index_replace(st, version, pages, 4));
	lec_page_doc_free(api);
	lec_page_doc_free(talk);
	lec_page_doc_free(gloss);
	lec_page_doc_free(mod);
}

/* The first result's page and first block's anchor are path and id. */
static void check_first(struct lec_store *st, int64_t version, const char *q,
			const char *path, const char *id)
{
	struct lec_search_request req = { q, &version, 1, 1, 0 };
	struct lec_search_results r;

	CHECK_OK(lec_search_query(st, &req, &r));
	if (r.len == 0 || r.items[0].blocks_len == 0)
		FAIL_AT("\"%s\": no result with a block", q);
	else if (strcmp(r.items[0].path, path) != 0 ||
		 strcmp(r.items[0].blocks[0].id, id) != 0)
		FAIL_AT("\"%s\": first %s#%s, expected %s#%s", q,
			r.items[0].path, r.items[0].blocks[0].id, path, id);
	lec_search_results_dispose(&r);
}

TEST(names_rank_first)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	int64_t other = new_version(st, lec_test_project(st, "q"), "v1");

	index_names(st, v);
	/* Whole names, either case; a dotted suffix; Python's qualified
	 * name from the anchor of a method written "water". */
	check_first(st, v, "html_theme", "api.html", "confval-html_theme");
	check_first(st, v, "HTML_Theme", "api.html", "confval-html_theme");
	check_first(st, v, "plant_tulips", "api.html", "garden.plant_tulips");
	check_first(st, v, "garden.Bed.water", "api.html", "garden.Bed.water");
	check_first(st, v, "Bed.water", "api.html", "garden.Bed.water");
	/* A role written ":ref:", found by its name and a type word; each
	 * spelling of an option; a glossary term (a section). */
	check_first(st, v, "ref role", "api.html", "role-ref");
	check_first(st, v, "--warnings-as-errors", "api.html",
		    "cmdoption-build-W");
	check_first(st, v, "tulip", "glossary.html", "term-tulip");
	check_first(st, v, "include", "api.html", "directive-include");
	/* An identifier among other words, found with them on its page. */
	check_first(st, v, "plant_tulips bed", "api.html",
		    "garden.plant_tulips");
	/* The start of a name or of the last word (search as you type),
	 * and misspellings. */
	check_first(st, v, "html_the", "api.html", "confval-html_theme");
	check_first(st, v, "garden.plant_t", "api.html",
		    "garden.plant_tulips");
	check_first(st, v, "a flowe", "glossary.html", "term-tulip");
	check_first(st, v, "hmtl_theme", "api.html", "confval-html_theme");
	check_first(st, v, "plant_tulisp", "api.html", "garden.plant_tulips");
	/* Prose words are not looked up one by one. */
	check_first(st, v, "water matter", "talk.html", "talk");
	/* A module by its name, above a section titled with it, and by the
	 * start of it however long the name (typed, not a word yet); a
	 * section titled "Module Functions" is no module. */
	check_first(st, v, "gardening", "gardening.html", "module-gardening");
	check_first(st, v, "garde", "gardening.html", "module-gardening");
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_names WHERE "
				"role = 'py:module'"),
		  1);
	/* The last words as the start of a title, the words before them on
	 * its page or not. */
	check_first(st, v, "tulip planting sched", "glossary.html",
		    "planting-schedules");
	check_first(st, v, "daffodil planting sched", "glossary.html",
		    "planting-schedules");
	/* Names belong to their version, and go with their pages. */
	CHECK_INT(total_of(st, other, "html_theme"), 0);
	CHECK_INT(total_of(st, other, "html_the"), 0);
	CHECK(count_sql(st, "SELECT count(*) FROM search_names") > 0);
	CHECK_OK(lec_search_index_replace(st, v, NULL, 0));
	CHECK_INT(count_sql(st, "SELECT count(*) FROM search_names"), 0);
	lec_store_free(st);
}

/* Hostile queries ---------------------------------------------------------- */

TEST(hostile_queries_never_fail_in_sql)
{
	static const char *queries[] = {
		"\"", "\"\"", "\"\"\"", "(", ")", "((((", "))))", "-", "+",
		"|", "*", "-*", "NOT", "AND OR", "a AND", "OR b", "NEAR(a b, 2)",
		"a:b", "content:lectern", "^a", "{a b}", "a* *b", "'", "\\",
		"\\\"", "\x01\x02", "\xff\xfe", "\xc3", "\xe2\x82", "rowid",
		"a\"b\"c\"d", "-(-(-a))", "(a|b)(c|d)", "\"\"*", "a~", "~",
		"~2", "%", ";DROP TABLE search_pages;--", "' OR 1=1 --",
		"lectern*\"", "\"lectern", "lec*tern", "+-|()\"*~\\",
		"search_entries MATCH 'x'", "\xef\xbb\xbflectern",
		"\xf0\x9f\x98\x80 lectern", "l\xcc\x88" "ectern",
		"NEAR(", ":", "^", "the of and a", "...", "_", "-X", "a.",
		".lectern", "lectern.", "\"unbalanced", "instal\xc3",
		"\xc3\xbf\xc3\xbf\xc3\xbf", "lecturn instal",
	};
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_request req = { NULL, &v, 1, 1, 0 };
	struct lec_search_results r;
	struct lec__buf b = LEC__BUF_INIT;
	char *big;
	size_t i;
	int rc;

	index_sample(st, v);
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		req.query = queries[i];
		rc = lec_search_query(st, &req, &r);
		if (rc != LEC_OK)
			FAIL_AT("query %zu '%s': %d %s", i, queries[i], rc,
				lec_error_last());
		lec_search_results_dispose(&r);
	}
	for (i = 0; i < 10 * 1024; i++)
		lec__buf_puts(&b, i % 7 == 6 ? " " : "\"(x");
	big = lec__buf_take(&b);
	req.query = big;
	CHECK_ERR(lec_search_query(st, &req, &r), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "q");
	lec__free(big);
	req.query = NULL;
	CHECK_OK(lec_search_query(st, &req, &r));
	CHECK_INT(r.total, 0);
	/* The prefix form and the quoted syntax still search. */
	CHECK_INT(total_of(st, v, "lect*"), 2);
	CHECK_INT(total_of(st, v, "\"lectern"), 2);
	CHECK_INT(total_of(st, v, "caf\xc3\xa9 | lectern"), 2);
	lec_store_free(st);
}

/* Speed without change (search_rank.c, search_highlight.c) --------------- */

static double first_score(struct lec_store *st, int64_t version,
			  const char *q)
{
	struct lec_search_request req = { q, &version, 1, 1, 0 };
	struct lec_search_results r;
	double score = -1;

	CHECK_OK(lec_search_query(st, &req, &r));
	if (r.len > 0)
		score = r.items[0].score;
	lec_search_results_dispose(&r);
	return score;
}

/* v1 and v2 of a new project "p", v1 with "alpha one two", v2 with
 * v2_content. */
static int64_t two_versions(struct lec_store *st, const char *v2_content,
			    int64_t *v2)
{
	int64_t project = lec_test_project(st, "p");
	int64_t v1 = new_version(st, project, "v1");

	*v2 = new_version(st, project, "v2");
	index_one(st, v1, "a.html", "A", "alpha one two");
	index_one(st, *v2, "b.html", "B", v2_content);
	return v1;
}

/* A connection remembers an expression's document frequencies; a change by
 * another connection or its own makes it count them again, even one that
 * keeps the index's rows and tokens (what a reindex of the same pages
 * does): the scores are those of a fresh connection. */
TEST(remembered_frequencies_follow_index_changes)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *a = NULL, *b = NULL, *fresh = lec_test_store();
	int64_t v1, v2, fv1, fv2;
	double before, after, expected;

	CHECK_OK(lec_store_open_dir(&a, dir, NULL));
	CHECK_OK(lec_store_open_dir(&b, dir, NULL));
	if (a == NULL || b == NULL)
		goto done;
	v1 = two_versions(a, "gamma gamma three", &v2);
	before = first_score(a, v1, "alpha");
	CHECK(first_score(a, v1, "alpha") == before);
	index_one(b, v2, "b.html", "B", "alpha alpha three");
	after = first_score(a, v1, "alpha");
	fv1 = two_versions(fresh, "alpha alpha three", &fv2);
	expected = first_score(fresh, fv1, "alpha");
	CHECK(before > 0 && after > 0 && after != before);
	CHECK(after == expected);
	index_one(a, v2, "b.html", "B", "gamma gamma three");
	CHECK(first_score(a, v1, "alpha") == before);
done:
	lec_store_free(a);
	lec_store_free(b);
	lec_store_free(fresh);
}

/* The content highlight of text for query, through the index's tokenizer
 * (owned by the caller; NULL when nothing matches). */
static char *highlight(struct lec_store *st, const char *query,
		       const char *text)
{
	struct lec__search_tokenizer t = { 0 };
	struct lec__search_expr ex = { 0 };
	struct lec__search_hl *hl = NULL;
	const char *args[] = { "unicode61", "remove_diacritics", "2" };
	sqlite3_stmt *stmt = NULL;
	fts5_api *api = NULL;
	void *user = NULL;
	char *out = NULL;

	if (sqlite3_prepare_v2(st->db, "SELECT fts5(?1)", -1, &stmt, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr",
				     NULL);
		sqlite3_step(stmt);
	}
	sqlite3_finalize(stmt);
	if (api == NULL ||
	    api->xFindTokenizer(api, "porter", &user, &t.api) != SQLITE_OK ||
	    t.api.xCreate(user, args, 3, &t.tok) != SQLITE_OK) {
		FAIL_AT("no porter tokenizer");
		return NULL;
	}
	CHECK_OK(lec__search_translate(query, test_tokens, NULL, &ex));
	CHECK_OK(lec__search_hl_new(&t, &ex, &hl));
	CHECK_OK(lec__search_hl_text(hl, text, 0, 0, &out));
	lec__search_hl_free(hl);
	lec__search_expr_dispose(&ex);
	t.api.xDelete(t.tok);
	return out;
}

/* ASCII text is scanned for words that may match, other text tokenized
 * word by word: the two give the same fragment (a non-ASCII word far
 * before the match sends the second through the tokenizer), for stems the
 * stemmer rewrites, words that only begin like a term, prefixes, no
 * match, and matches at the start and the end. */
TEST(scanned_highlights_equal_tokenized_ones)
{
	static const struct {
		const char *query, *text, *marked;
	} cases[] = {
		{ "relate", "a needless word and relational algebra",
		  "<span>relational</span>" },
		{ "probably", "the ability probably helps", "<span>probably</span>" },
		{ "needle", "needless needling, then the needles", "<span>needles</span>" },
		{ "flies", "a fly and two flies", "<span>flies</span>" },
		{ "hop", "hoping hopped hops", "<span>hopped</span>" },
		{ "happy", "a happy ending", "<span>happy</span>" },
		{ "gat*", "gathering gates", "<span>gathering</span>" },
		{ "Context manager", "ContextManager or context_manager",
		  "<span>context</span>" },
		{ "absent", "nothing here matches at all", NULL },
		{ "end", "the match is at the very end", "<span>end</span>" },
	};
	struct lec_store *st = lec_test_store();
	struct lec__buf b = LEC__BUF_INIT;
	char *pad, *ascii, *other, *h1, *h2;
	size_t i, j;

	for (j = 0; j < 40; j++)
		lec__buf_puts(&b, "filler words ");
	pad = lec__buf_take(&b);
	for (i = 0; pad && i < sizeof(cases) / sizeof(cases[0]); i++) {
		lec__buf_printf(&b, "%s%s %s", pad, cases[i].text, pad);
		ascii = lec__buf_take(&b);
		lec__buf_printf(&b, "caf\xc3\xa9 %s", ascii);
		other = lec__buf_take(&b);
		h1 = highlight(st, cases[i].query, ascii);
		h2 = highlight(st, cases[i].query, other);
		if ((h1 == NULL) != (h2 == NULL) ||
		    (h1 && strcmp(h1, h2) != 0))
			FAIL_AT("'%s': scanned '%s', tokenized '%s'",
				cases[i].query, h1 ? h1 : "(null)",
				h2 ? h2 : "(null)");
		if (cases[i].marked == NULL)
			CHECK(h1 == NULL);
		else if (h1 == NULL || strstr(h1, cases[i].marked) == NULL)
			FAIL_AT("'%s': '%s' lacks %s", cases[i].query,
				h1 ? h1 : "(null)", cases[i].marked);
		lec__free(h1);
		lec__free(h2);
		lec__free(ascii);
		lec__free(other);
	}
	lec__free(pad);
	lec_store_free(st);
}

/* Pages matching only some words, more of them than a results page: the
 * first page must hold the best of the whole ranking, which the later
 * pages (ranked in full) check. "split.html" has the query's words in two
 * short rows, one each (its title and a section); "three*.html" have three
 * of them in one longer row. Each of split's rows alone scores below the
 * others' row, their sum above: a top-k cut-off that bounded a page by
 * its best row instead of the rows its score adds would leave it out. */
#define PARTIAL_PAGES 48

TEST(first_page_of_partial_matches_is_the_best_of_all)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec_search_page pages[PARTIAL_PAGES];
	struct lec_page_doc *docs[PARTIAL_PAGES];
	char paths[PARTIAL_PAGES][32];
	struct lec_search_request req = { "alpha beta gamma delta", &v, 1, 1,
					  3 };
	struct lec_search_results r;
	double last = 1e300;
	size_t i, seen = 0, total = 0;
	int first_is_split = 0;

	for (i = 0; i < PARTIAL_PAGES; i++) {
		const char *name = i == 0 ? "split" : i <= 4 ? "three"
					   : i == 5 ? "delta" : "other";

		docs[i] = doc_new(i == 0 ? "Alpha" : "Other");
		doc_section(docs[i], "s", "Intro",
			    i == 0   ? "beta"
			    : i <= 4 ? "alpha beta gamma notes text"
			    : i == 5 ? "delta"
				     : "lorem ipsum dolor sit amet elit");
		snprintf(paths[i], sizeof(paths[i]), "%s%zu.html", name, i);
		pages[i].path = paths[i];
		pages[i].rank = 0;
		pages[i].doc = docs[i];
	}
	CHECK_OK(lec_search_index_replace(st, v, pages, PARTIAL_PAGES));
	for (i = 0; i < PARTIAL_PAGES; i++)
		lec_page_doc_free(docs[i]);
	for (req.page = 1; req.page <= 3; req.page++) {
		CHECK_OK(lec_search_query(st, &req, &r));
		if (req.page == 1) {
			total = r.total;
			first_is_split = r.len > 0 &&
					 strcmp(r.items[0].path, "split0.html") == 0;
		}
		CHECK_INT(r.total, total);
		for (i = 0; i < r.len; i++, seen++) {
			CHECK(r.items[i].score <= last);
			last = r.items[i].score;
		}
		lec_search_results_dispose(&r);
	}
	CHECK_INT(total, 6);
	CHECK_INT(seen, 6);
	CHECK(first_is_split);
	lec_store_free(st);
}

/* Remembered postings --------------------------------------------------------- */

/* Words of the generated pages: few, so pages share many of them. */
static const char *const vocabulary[] = {
	"alpha", "beta", "gamma", "delta", "loop", "loops", "event",
	"runner", "context", "manager", "statement", "with", "timeout",
};
#define VOCABULARY (sizeof(vocabulary) / sizeof(vocabulary[0]))
#define GEN_PAGES 40

static unsigned next_word(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % (unsigned)VOCABULARY;
}

/* Words of the generated text, space-separated (owned). */
static char *gen_text(unsigned *seed, unsigned words)
{
	struct lec__buf b = LEC__BUF_INIT;
	unsigned i;

	for (i = 0; i < words; i++)
		lec__buf_printf(&b, "%s%s", i ? " " : "",
				vocabulary[next_word(seed)]);
	return lec__buf_take(&b);
}

/* GEN_PAGES pages of generated text into version v (seeded by seed). */
static void index_generated(struct lec_store *st, int64_t v, unsigned seed)
{
	struct lec_search_page pages[GEN_PAGES];
	struct lec_page_doc *docs[GEN_PAGES];
	char paths[GEN_PAGES][32], id[24], *t, *c;
	size_t i, j;

	for (i = 0; i < GEN_PAGES; i++) {
		t = gen_text(&seed, 1 + i % 3);
		docs[i] = doc_new(t);
		lec__free(t);
		for (j = 0; j < 1 + i % 4; j++) {
			snprintf(id, sizeof(id), "s%zu", j);
			t = gen_text(&seed, 1 + j % 2);
			c = gen_text(&seed, 4 + (unsigned)((i * 7 + j) % 30));
			doc_section(docs[i], id, t, c);
			lec__free(t);
			lec__free(c);
		}
		if (i % 5 == 0)
			doc_domain(docs[i], "py:function", "event.loop", "event.loop",
				   "runs the event loop");
		snprintf(paths[i], sizeof(paths[i]), "p%02zu.html", i);
		pages[i].path = paths[i];
		pages[i].rank = (int)(i % 7) - 3;
		pages[i].doc = docs[i];
	}
	CHECK_OK(lec_search_index_replace(st, v, pages, GEN_PAGES));
	for (i = 0; i < GEN_PAGES; i++)
		lec_page_doc_free(docs[i]);
}

static int same_text(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Whether two result pages are the same, field by field, scores to the
 * bit. */
static int same_results(const struct lec_search_results *a,
			const struct lec_search_results *b)
{
	size_t i, j;

	if (a->total != b->total || a->len != b->len)
		return 0;
	for (i = 0; i < a->len; i++) {
		const struct lec_search_hit *x = &a->items[i], *y = &b->items[i];

		if (x->version_id != y->version_id || x->score != y->score ||
		    !same_text(x->path, y->path) ||
		    !same_text(x->title_highlight, y->title_highlight) ||
		    x->blocks_len != y->blocks_len)
			return 0;
		for (j = 0; j < x->blocks_len; j++)
			if (x->blocks[j].type != y->blocks[j].type ||
			    !same_text(x->blocks[j].id, y->blocks[j].id) ||
			    !same_text(x->blocks[j].title_highlight,
				       y->blocks[j].title_highlight) ||
			    !same_text(x->blocks[j].content_highlight,
				       y->blocks[j].content_highlight))
				return 0;
	}
	return 1;
}

/* Each query, in each window and version set, gives the same results
 * from remembered postings as from FTS5 statements (the store's memory
 * taken away: lec__search_postings_get then declines). */
static void check_postings_rank_as_fts5(struct lec_store *st,
					const int64_t *versions)
{
	static const char *const queries[] = {
		"alpha", "alpha beta", "context manager with statement",
		"loop", "loops event", "event loop runner", "gam*",
		"alpha alpha", "\"event loop\" timeout", "beta zzzz",
		"zzzz", "manag", "with",
	};
	static const size_t windows[][2] = { { 1, 10 }, { 2, 3 }, { 1, 50 },
					     { 3, 2 } };
	struct lec__search_memo *memo = st->search_memo;
	struct lec_search_results with, without;
	size_t q, w, n;

	for (n = 1; n <= 2; n++)
		for (q = 0; q < sizeof(queries) / sizeof(queries[0]); q++)
			for (w = 0; w < 4; w++) {
				struct lec_search_request req = {
					queries[q], versions, n, windows[w][0],
					windows[w][1]
				};

				st->search_memo = memo;
				CHECK_OK(lec_search_query(st, &req, &with));
				st->search_memo = NULL;
				CHECK_OK(lec_search_query(st, &req, &without));
				if (!same_results(&with, &without))
					FAIL_AT("'%s' in %zu version(s), page %zu "
						"of %zu: remembered postings "
						"rank otherwise",
						queries[q], n, windows[w][0],
						windows[w][1]);
				lec_search_results_dispose(&with);
				lec_search_results_dispose(&without);
			}
	st->search_memo = memo;
}

TEST(remembered_postings_rank_as_fts5_does)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *st = NULL, *other = NULL;
	int64_t versions[2], project;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	CHECK_OK(lec_store_open_dir(&other, dir, NULL));
	if (st == NULL || other == NULL)
		goto done;
	project = lec_test_project(st, "p");
	versions[0] = new_version(st, project, "v1");
	versions[1] = new_version(st, project, "v2");
	index_generated(st, versions[0], 1);
	index_generated(st, versions[1], 2);
	total_of(st, versions[0], "alpha"); /* registers the memory */
	CHECK(st->search_memo != NULL);
	check_postings_rank_as_fts5(st, versions);
	/* Another connection rewrites a version: what was remembered goes. */
	index_generated(other, versions[1], 3);
	check_postings_rank_as_fts5(st, versions);
	/* So does a change through this one. */
	index_generated(st, versions[0], 4);
	check_postings_rank_as_fts5(st, versions);
done:
	lec_store_free(st);
	lec_store_free(other);
}

/* An index without terms (made before migration 12) is read from FTS5:
 * the same rows, the same weighted instances as the term index gave (p,
 * whose lists the next read frees: copied first). */
static void check_read_from_fts5(struct lec_store *st,
				 const struct lec__search_expr *ex,
				 const struct lec__search_tokenizer *tok,
				 const struct lec__search_postings *p)
{
	struct lec__search_postings *fts = NULL, copy = *p;
	int64_t *rowids[LEC_SEARCH_TERMS_MAX];
	double *freqs[LEC_SEARCH_TERMS_MAX];
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		rowids[i] = lec__calloc(p->len[i] + 1, sizeof(int64_t));
		freqs[i] = lec__calloc(p->len[i] + 1, sizeof(double));
		if (p->len[i] > 0) { /* an empty list has no arrays */
			memcpy(rowids[i], p->rowids[i],
			       p->len[i] * sizeof(int64_t));
			memcpy(freqs[i], p->freqs[i],
			       p->len[i] * sizeof(double));
		}
		copy.rowids[i] = rowids[i];
		copy.freqs[i] = freqs[i];
	}
	CHECK_OK(lec_store__exec(st, "UPDATE search_versions SET tokens = "
				 "NULL"));
	CHECK_OK(lec_store_read_begin(st));
	CHECK_OK(lec__search_postings_get(st, ex, tok, &fts));
	lec_store_read_end(st);
	for (i = 0; fts && i < p->n; i++) {
		CHECK_INT((int64_t)fts->len[i], (int64_t)copy.len[i]);
		for (j = 0; j < copy.len[i] && j < fts->len[i]; j++)
			CHECK(fts->rowids[i][j] == copy.rowids[i][j] &&
			      fts->freqs[i][j] == copy.freqs[i][j]);
		CHECK(fts->idf[i] == copy.idf[i]);
	}
	for (j = 0; fts && j < LEC__SEARCH_LENGTH_BUCKETS; j++)
		CHECK(fts->norm[j] == copy.norm[j]);
	for (i = 0; i < p->n; i++) {
		lec__free(rowids[i]);
		lec__free(freqs[i]);
	}
	lec__search_postings_free(fts);
}

/* The postings of a plain query: every row of each phrase, ascending, as
 * FTS5 counts them; remembered (the same lists the next time); none for
 * a query with operators. */
TEST(postings_are_every_row_and_remembered)
{
	struct lec_store *st = lec_test_store();
	int64_t v = new_version(st, lec_test_project(st, "p"), "v1");
	struct lec__search_expr ex = { 0 }, ops = { 0 };
	struct lec__search_postings *p = NULL, *again = NULL, *none = NULL;
	struct lec__search_tokenizer tok;
	char sql[128];
	size_t i, j;

	index_generated(st, v, 7);
	total_of(st, v, "alpha"); /* registers the memory */
	CHECK_OK(lec__search_tokenizer_open(st, &tok));
	CHECK_OK(lec__search_translate("alpha loop \"event loop\" gam* zzzz",
				       test_tokens, NULL, &ex));
	CHECK_OK(lec__search_translate("alpha -loop", test_tokens, NULL, &ops));
	CHECK_OK(lec_store_read_begin(st));
	CHECK_OK(lec__search_postings_get(st, &ex, &tok, &p));
	CHECK_OK(lec__search_postings_get(st, &ex, &tok, &again));
	CHECK_INT(lec__search_postings_get(st, &ops, &tok, &none),
		  LEC_ENOTFOUND);
	lec_store_read_end(st);
	CHECK(none == NULL);
	if (p == NULL || again == NULL)
		goto done;
	CHECK_INT(p->n, 5);
	for (i = 0; i < p->n; i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM search_entries "
			 "WHERE search_entries MATCH '%s'", ex.phrases[i]);
		CHECK_INT((int64_t)p->len[i], count_sql(st, sql));
		for (j = 1; j < p->len[i]; j++)
			CHECK(p->rowids[i][j - 1] < p->rowids[i][j]);
		for (j = 0; j < p->len[i]; j++)
			CHECK(p->freqs[i][j] > 0);
		CHECK(again->rowids[i] == p->rowids[i]);
	}
	CHECK(p->len[0] > 0 && p->len[2] > 0 && p->len[3] > 0);
	CHECK_INT(p->len[4], 0);
	check_read_from_fts5(st, &ex, &tok, p);
	/* A damaged list is an error, not a crash or a wrong answer. */
	CHECK_OK(lec_store__exec(st, "UPDATE search_versions SET tokens = 0"));
	CHECK_OK(lec_store__exec(st, "UPDATE search_terms SET list = "
				 "substr(list, 1, 1)"));
	lec__search_postings_free(p);
	CHECK_INT(lec_store_read_begin(st), LEC_OK);
	CHECK(lec__search_postings_get(st, &ex, &tok, &p) < 0);
	lec_store_read_end(st);
done:
	lec__search_postings_free(p);
	lec__search_postings_free(again);
	lec__search_tokenizer_close(&tok);
	lec__search_expr_dispose(&ex);
	lec__search_expr_dispose(&ops);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(translation_of_the_query_syntax),
	TEST_ENTRY(translation_of_broken_queries),
	TEST_ENTRY(translation_limits),
	TEST_ENTRY(results_blocks_and_highlights),
	TEST_ENTRY(highlights_are_html_escaped),
	TEST_ENTRY(long_content_gives_one_fragment),
	TEST_ENTRY(fragments_cut_at_words_and_follow_the_terms),
	TEST_ENTRY(and_matches_rank_above_or_matches),
	TEST_ENTRY(rank_factor_scales_scores),
	TEST_ENTRY(at_most_three_blocks_best_first),
	TEST_ENTRY(paging_and_its_errors),
	TEST_ENTRY(queries_are_limited_to_their_versions),
	TEST_ENTRY(replace_is_atomic),
	TEST_ENTRY(index_goes_with_its_version_and_project),
	TEST_ENTRY(index_directory_with_ignore_and_ranking),
	TEST_ENTRY(names_rank_first),
	TEST_ENTRY(hostile_queries_never_fail_in_sql),
	TEST_ENTRY(remembered_frequencies_follow_index_changes),
	TEST_ENTRY(scanned_highlights_equal_tokenized_ones),
	TEST_ENTRY(first_page_of_partial_matches_is_the_best_of_all),
	TEST_ENTRY(remembered_postings_rank_as_fts5_does),
	TEST_ENTRY(postings_are_every_row_and_remembered),
};

LEC_TEST_MAIN(tests)
