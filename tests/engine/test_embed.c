/*
 * The embed module (lectern/embed.h) on fixture pages shaped like real
 * generator output: a Sphinx page (sections with ids, permalink markers, a
 * glossary, a py:function definition, a module target, an explicit <span>
 * target), a MkDocs-like page (flat headings with ids), and broken or
 * empty markup. Every lookup rule of behaviour notes §3.6 is checked on the
 * exact HTML returned, with links and images made absolute.
 */
#include <stdio.h>

#include "harness.h"
#include "internal.h"
#include "lectern/embed.h"

#define PAGE_URL "http://demo.localhost:8000/en/latest/guide/usage.html"

static const char sphinx_page[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<title>Usage &#8212; Demo</title></head><body>"
	"<div class=\"sphinxsidebar\"><h3>Navigation</h3>"
	"<a href=\"../index.html\">Home</a></div>"
	"<div class=\"body\" role=\"main\">"
	"<section id=\"usage-guide\">"
	"<h1>Usage guide<a class=\"headerlink\" href=\"#usage-guide\">\xc2\xb6"
	"</a></h1><p>Intro, see <a href=\"../api.html#x\">API</a>.</p>"
	"<section id=\"installing-the-tool\">"
	"<h2>Installing the <code>tool</code><a class=\"headerlink\" "
	"href=\"#installing-the-tool\">\xc2\xb6</a></h2>"
	"<p>Run <a href=\"#usage-guide\">this</a> "
	"<img src=\"img/shot.png\" alt=\"s\"> caf\xc3\xa9.</p></section>"
	"<section id=\"module-demo.core\"><h2>demo.core</h2>"
	"<dl class=\"py function\"><dt class=\"sig\" id=\"demo.core.run\">"
	"<span class=\"sig-name\">run</span>()</dt>"
	"<dd><p>Runs it. <a href=\"https://example.com/x\">ext</a></p></dd>"
	"</dl></section>"
	"<section id=\"glossary\"><h2>Glossary</h2>"
	"<dl class=\"glossary simple\">"
	"<dt id=\"term-builder\">builder</dt><dd><p>Makes HTML.</p></dd>"
	"<dt id=\"term-theme\">theme</dt><dd><p>Looks.</p></dd></dl>"
	"</section>"
	"<section id=\"targets\"><span id=\"explicit-label\"></span>"
	"<h2>Targets</h2><p>T</p></section>"
	"</section></div></body></html>";

static const char mkdocs_page[] =
	"<html><head><title>Setup</title></head><body>"
	"<nav><a href=\"/\">Top</a></nav>"
	"<div class=\"col-md-9\" role=\"main\">"
	"<h1 id=\"setup\">Setup</h1><p>Start.</p>"
	"<h2 id=\"install\">Install</h2><p>pip <a href=\"../other/\">o</a></p>"
	"<h3 id=\"from-source\">From source</h3><p>git</p>"
	"<h2 id=\"configure\">Configure</h2><p>edit</p>"
	"</div></body></html>";

static struct lec_embed_v2 *v2(const char *html, const char *section)
{
	struct lec_embed_v2 *e = NULL;

	CHECK_OK(lec_embed_v2_html(html, strlen(html), PAGE_URL, section, &e));
	return e;
}

static void check_content(struct lec_embed_v2 *e, const char *expected)
{
	CHECK(e != NULL);
	if (e == NULL)
		return;
	CHECK_INT(e->content_len, 1);
	if (e->content_len == 1)
		CHECK_STR(e->content[0], expected);
}

TEST(v2_headers_are_the_local_toc)
{
	struct lec_embed_v2 *e = v2(sphinx_page, NULL);

	CHECK(e != NULL);
	if (e == NULL)
		return;
	/* The sidebar's heading is outside the main node. */
	CHECK_INT(e->headers_len, 5);
	CHECK_STR(e->headers[0].title, "Usage guide");
	CHECK_STR(e->headers[0].anchor, "#");
	CHECK_STR(e->headers[1].title, "Installing the tool");
	CHECK_STR(e->headers[1].anchor, "#installing-the-tool");
	CHECK_STR(e->headers[2].title, "demo.core");
	CHECK_STR(e->headers[2].anchor, "#module-demo.core");
	CHECK_STR(e->headers[4].title, "Targets");
	CHECK_STR(e->headers[4].anchor, "#targets");
	/* No section: the first header's text, lowercased, found as a slug
	 * ("usage-guide"): the whole page section. */
	CHECK_STR(e->section, "usage guide");
	CHECK_INT(e->content_len, 1);
	if (e->content_len == 1) {
		CHECK(strncmp(e->content[0], "<section id=\"usage-guide\">",
			      26) == 0);
		CHECK(strstr(e->content[0], "id=\"targets\"") != NULL);
	}
	lec_embed_v2_free(e);
}

TEST(v2_section_by_id_with_absolute_links)
{
	struct lec_embed_v2 *e = v2(sphinx_page, "installing-the-tool");

	check_content(
		e,
		"<section id=\"installing-the-tool\"><h2>Installing the "
		"<code>tool</code><a class=\"headerlink\" href=\"http://demo."
		"localhost:8000/en/latest/guide/usage.html#installing-the-tool"
		"\">\xc2\xb6</a></h2><p>Run <a href=\"http://demo.localhost:"
		"8000/en/latest/guide/usage.html#usage-guide\">this</a> <img "
		"src=\"http://demo.localhost:8000/en/latest/guide/img/shot.png"
		"\" alt=\"s\"> caf\xc3\xa9.</p></section>");
	CHECK_STR(e ? e->section : NULL, "installing-the-tool");
	lec_embed_v2_free(e);
}

TEST(v2_section_by_slug_make_id_and_module)
{
	struct lec_embed_v2 *e;

	/* Title as written: slugify finds the section. */
	e = v2(sphinx_page, "Installing the tool");
	CHECK(e && e->content_len == 1 &&
	      strncmp(e->content[0], "<section id=\"installing-the-tool\">",
		      34) == 0);
	lec_embed_v2_free(e);
	/* docutils make_id: punctuation and leading digits go. */
	e = v2(sphinx_page, "2 Installing: the TOOL!");
	CHECK(e && e->content_len == 1 &&
	      strncmp(e->content[0], "<section id=\"installing-the-tool\">",
		      34) == 0);
	lec_embed_v2_free(e);
	/* A Python module's target. */
	e = v2(sphinx_page, "demo.core");
	CHECK(e && e->content_len == 1 &&
	      strncmp(e->content[0], "<section id=\"module-demo.core\">",
		      31) == 0);
	lec_embed_v2_free(e);
}

TEST(v2_dt_rules)
{
	struct lec_embed_v2 *e;

	/* A glossary term brings its definition only. */
	e = v2(sphinx_page, "term-builder");
	check_content(e, "<dd><p>Makes HTML.</p></dd>");
	lec_embed_v2_free(e);
	/* Any other definition (py:function) brings the whole <dl>. */
	e = v2(sphinx_page, "demo.core.run");
	check_content(e, "<dl class=\"py function\"><dt class=\"sig\" "
			 "id=\"demo.core.run\"><span class=\"sig-name\">run"
			 "</span>()</dt><dd><p>Runs it. <a href=\"https://"
			 "example.com/x\">ext</a></p></dd></dl>");
	lec_embed_v2_free(e);
}

TEST(v2_span_target_gives_its_parent)
{
	struct lec_embed_v2 *e = v2(sphinx_page, "explicit-label");

	check_content(e, "<section id=\"targets\"><span id=\"explicit-label\">"
			 "</span><h2>Targets</h2><p>T</p></section>");
	lec_embed_v2_free(e);
}

TEST(v2_heading_text_fallback)
{
	/* No id matches "lossar"; the heading "Glossary" contains it. */
	struct lec_embed_v2 *e = v2(sphinx_page, "lossar");

	CHECK(e && e->content_len == 1 &&
	      strncmp(e->content[0], "<section id=\"glossary\">", 23) == 0);
	lec_embed_v2_free(e);
	/* "the" is in one heading only once its section is deduplicated. */
	e = v2(sphinx_page, "THE TOOL");
	CHECK(e && e->content_len == 1);
	lec_embed_v2_free(e);
}

TEST(v2_missing_section_is_empty_content)
{
	struct lec_embed_v2 *e = v2(sphinx_page, "no-such-thing");

	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->content_len, 0);
		CHECK_INT(e->headers_len, 5);
		CHECK_STR(e->section, "no-such-thing");
	}
	lec_embed_v2_free(e);
}

TEST(v2_mkdocs_flat_headings)
{
	struct lec_embed_v2 *e = v2(mkdocs_page, "install");

	/* The heading up to the next heading of its rank, subsections kept. */
	check_content(e, "<h2 id=\"install\">Install</h2><p>pip <a href=\""
			 "http://demo.localhost:8000/en/latest/other/\">o</a>"
			 "</p><h3 id=\"from-source\">From source</h3><p>git"
			 "</p>");
	lec_embed_v2_free(e);
	e = v2(mkdocs_page, NULL);
	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->headers_len, 4);
		CHECK_STR(e->headers[0].anchor, "#");
		CHECK_STR(e->headers[3].title, "Configure");
		CHECK_STR(e->headers[3].anchor, "#configure");
		CHECK_STR(e->section, "setup");
		CHECK_INT(e->content_len, 1);
		if (e->content_len == 1)
			CHECK(strstr(e->content[0], "Configure") != NULL);
	}
	lec_embed_v2_free(e);
}

TEST(v2_broken_and_empty_html)
{
	static const char broken[] =
		"<div role=main><h2 id=a>A<p>unclosed <b>bold <i>x</div>"
		"</span></section><h2 id=b>B";
	struct lec_embed_v2 *e = v2(broken, "a");

	CHECK(e != NULL && e->content_len == 1 &&
	      strstr(e->content[0], "unclosed") != NULL);
	lec_embed_v2_free(e);
	e = v2("", NULL);
	CHECK(e != NULL && e->content_len == 0 && e->headers_len == 0 &&
	      e->section == NULL);
	lec_embed_v2_free(e);
	e = v2("just text, no tags", "x");
	CHECK(e != NULL && e->content_len == 0);
	lec_embed_v2_free(e);
}

TEST(deeply_nested_page)
{
	/* Far deeper than any page: nothing overflows the stack, and a
	 * heading deeper than the walks go is not seen. */
	const size_t depth = 100000;
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_embed_v2 *e = NULL;
	char *page, *html = NULL;
	size_t i;

	lec__buf_puts(&b, "<div role=main><h1 id=top>Top</h1>");
	for (i = 0; i < depth; i++)
		lec__buf_puts(&b, "<div><a href=x>");
	lec__buf_puts(&b, "<h2 id=deep>Deep</h2>");
	page = lec__buf_take(&b);
	CHECK(page != NULL);
	if (page == NULL)
		return;
	CHECK_OK(lec_embed_v2_html(page, strlen(page), PAGE_URL, "deep", &e));
	CHECK(e != NULL && e->headers_len == 1);
	lec_embed_v2_free(e);
	CHECK_OK(lec_embed_v3_html(page, strlen(page), PAGE_URL, "top", NULL,
				   NULL, &html));
	CHECK_STR(html, "<h1 id=\"top\">Top</h1>");
	lec__free(html);
	lec__free(page);
}

TEST(v2_bad_arguments)
{
	struct lec_embed_v2 *e = NULL;
	char long_section[LEC_EMBED_SECTION_MAX + 2];

	CHECK_ERR(lec_embed_v2_html(NULL, 0, PAGE_URL, NULL, &e), LEC_EINVALID);
	CHECK_ERR(lec_embed_v2_html("x", 1, NULL, NULL, &e), LEC_EINVALID);
	CHECK_ERR(lec_embed_v2_html("x", 1, PAGE_URL, NULL, NULL),
		  LEC_EINVALID);
	memset(long_section, 'a', sizeof(long_section) - 1);
	long_section[sizeof(long_section) - 1] = '\0';
	CHECK_ERR(lec_embed_v2_html("x", 1, PAGE_URL, long_section, &e),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "section");
	CHECK(e == NULL);
	CHECK_ERR(lec_embed_v2_file("/nonexistent/page.html", PAGE_URL, NULL,
				    &e),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_embed_v2_file(lec_test_tmpdir(), PAGE_URL, NULL, &e),
		  LEC_ENOTFOUND);
	lec_embed_v2_free(NULL);
}

/* Both APIs, page or file, refuse a missing page or output the same way. */
TEST(missing_page_or_output)
{
	struct lec_embed_v2 *e = (struct lec_embed_v2 *)&e;
	char *html = (char *)&html;

	CHECK_ERR(lec_embed_v3_html(NULL, 0, PAGE_URL, NULL, NULL, NULL,
				    &html),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no page");
	CHECK(html == NULL);
	CHECK_ERR(lec_embed_v3_html("x", 1, PAGE_URL, NULL, NULL, NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no output");
	CHECK_ERR(lec_embed_v2_html("x", 1, NULL, NULL, &e), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no page");
	CHECK(e == NULL);
	e = (struct lec_embed_v2 *)&e;
	CHECK_ERR(lec_embed_v2_file(NULL, PAGE_URL, NULL, &e), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no page");
	CHECK(e == NULL);
	CHECK_ERR(lec_embed_v2_file("/nonexistent", PAGE_URL, NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no output");
	html = (char *)&html;
	CHECK_ERR(lec_embed_v3_file(NULL, PAGE_URL, NULL, NULL, NULL, &html),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no page");
	CHECK(html == NULL);
	CHECK_ERR(lec_embed_v3_file("/nonexistent", PAGE_URL, NULL, NULL, NULL,
				    NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no output");
	CHECK_ERR(lec_embed_v3_file("/nonexistent/page.html", PAGE_URL, NULL,
				    NULL, NULL, &html),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "no page at /nonexistent/page.html");
}

TEST(v2_and_v3_from_a_file)
{
	char path[512];
	struct lec_embed_v2 *e = NULL;
	char *html = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/page.html", lec_test_tmpdir());
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs(mkdocs_page, f);
	fclose(f);
	CHECK_OK(lec_embed_v2_file(path, PAGE_URL, "configure", &e));
	CHECK(e != NULL && e->content_len == 1);
	if (e && e->content_len == 1)
		CHECK_STR(e->content[0],
			  "<h2 id=\"configure\">Configure</h2><p>edit</p>");
	lec_embed_v2_free(e);
	CHECK_OK(lec_embed_v3_file(path, PAGE_URL, "from-source", NULL, NULL,
				   &html));
	CHECK_STR(html, "<h3 id=\"from-source\">From source</h3>");
	lec__free(html);
}

static char *v3(const char *page, const char *fragment, const char *sel,
		const char *doctool, int expect)
{
	char *html = NULL;

	CHECK_ERR(lec_embed_v3_html(page, strlen(page), PAGE_URL, fragment, sel,
				    doctool, &html),
		  expect);
	return html;
}

TEST(v3_fragment_and_main_node)
{
	char *html;

	html = v3(sphinx_page, "targets", NULL, NULL, LEC_OK);
	CHECK_STR(html, "<section id=\"targets\"><span id=\"explicit-label\">"
			"</span><h2>Targets</h2><p>T</p></section>");
	lec__free(html);
	/* No fragment: the [role=main] node. */
	html = v3(sphinx_page, NULL, NULL, NULL, LEC_OK);
	CHECK(html && strncmp(html, "<div class=\"body\" role=\"main\">",
			      30) == 0);
	lec__free(html);
	html = v3(sphinx_page, "nope", NULL, NULL, LEC_ENOTFOUND);
	CHECK(html == NULL);
	lec__free(html);
	/* <main>, then the parent of the first h1; none → not found. */
	html = v3("<body><main><p>m</p></main></body>", "", NULL, NULL, LEC_OK);
	CHECK_STR(html, "<main><p>m</p></main>");
	lec__free(html);
	html = v3("<body><div id=c><h1>T</h1></div></body>", NULL, NULL, NULL,
		  LEC_OK);
	CHECK_STR(html, "<div id=\"c\"><h1>T</h1></div>");
	lec__free(html);
	html = v3("<body><p>no main</p></body>", NULL, NULL, NULL,
		  LEC_ENOTFOUND);
	lec__free(html);
}

TEST(v3_sphinx_dt)
{
	char *html;

	html = v3(sphinx_page, "term-theme", NULL, "sphinx", LEC_OK);
	CHECK_STR(html, "<dl class=\"glossary simple\"><dt id=\"term-theme\">"
			"theme</dt><dd><p>Looks.</p></dd></dl>");
	lec__free(html);
	html = v3(sphinx_page, "demo.core.run", NULL, "sphinx", LEC_OK);
	CHECK(html && strncmp(html, "<dl class=\"py function\">", 24) == 0);
	lec__free(html);
	/* Without doctool the <dt> alone. */
	html = v3(sphinx_page, "term-theme", NULL, NULL, LEC_OK);
	CHECK_STR(html, "<dt id=\"term-theme\">theme</dt>");
	lec__free(html);
}

TEST(v3_maincontent_selectors)
{
	static const char page[] =
		"<body><div class=\"a doc\" id=\"x\" data-k=\"v w\"><p>1</p>"
		"</div><article class=\"doc\"><p>2</p></article></body>";
	static const struct {
		const char *sel;
		const char *first;
	} ok[] = {
		{ "#x", "<div" },	     { ".doc", "<div" },
		{ "article", "<article" },   { "article.doc", "<article" },
		{ "div#x", "<div" },	     { "[data-k=\"v w\"]", "<div" },
		{ "[data-k='v w']", "<div" }, { "div[data-k]", "<div" },
	};
	static const char *const bad[] = { "div p",	 "a > b", "a,b",
					   "p:first-child", "[x",   ".",
					   "#",		 "[=v]" };
	size_t i;
	char *html;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		html = v3(page, NULL, ok[i].sel, NULL, LEC_OK);
		if (html == NULL ||
		    strncmp(html, ok[i].first, strlen(ok[i].first)) != 0)
			FAIL_AT("selector %s gave %s", ok[i].sel,
				html ? html : "(null)");
		lec__free(html);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		html = v3(page, NULL, bad[i], NULL, LEC_EINVALID);
		CHECK(html == NULL);
		CHECK_STR(lec_error_last_field(), "maincontent");
	}
	html = v3(page, NULL, "section", NULL, LEC_ENOTFOUND);
	CHECK(html == NULL);
	/* A fragment wins over the selector. */
	html = v3(page, "x", "article", NULL, LEC_OK);
	CHECK(html && strncmp(html, "<div", 4) == 0);
	lec__free(html);
}

static void check_url(const char *base, const char *ref, const char *want,
		      int line)
{
	char *got = NULL;
	int rc = lec_embed_absolute_url(base, ref, &got);

	if (rc != LEC_OK || got == NULL || strcmp(got, want) != 0)
		FAIL_AT("line %d: %s + %s = %s (rc %d), expected %s", line,
			base, ref, got ? got : "(null)", rc, want);
	lec__free(got);
}

#define URL(base, ref, want) check_url(base, ref, want, __LINE__)

TEST(absolute_urls)
{
	const char *b = "http://h.localhost:8000/en/latest/a/b/page.html?q=1#f";
	char *out = NULL;

	URL(b, "#sec", "http://h.localhost:8000/en/latest/a/b/page.html?q=1#sec");
	URL(b, "?x=2", "http://h.localhost:8000/en/latest/a/b/page.html?x=2");
	URL(b, "", "http://h.localhost:8000/en/latest/a/b/page.html?q=1");
	URL(b, "other.html", "http://h.localhost:8000/en/latest/a/b/other.html");
	URL(b, "../../api.html#x", "http://h.localhost:8000/en/latest/api.html#x");
	URL(b, "./img/./p.png", "http://h.localhost:8000/en/latest/a/b/img/p.png");
	URL(b, "../../../../../../x", "http://h.localhost:8000/x");
	URL(b, "sub/..", "http://h.localhost:8000/en/latest/a/b/");
	URL(b, "/abs/../p", "http://h.localhost:8000/p");
	URL(b, "//cdn.example.com/x.js", "http://cdn.example.com/x.js");
	URL(b, "https://example.com/a/../b", "https://example.com/a/../b");
	URL(b, "mailto:a@b.c", "mailto:a@b.c");
	URL("http://h.localhost", "x.html", "http://h.localhost/x.html");
	URL("http://h.localhost/dir/", "x", "http://h.localhost/dir/x");
	CHECK_ERR(lec_embed_absolute_url("not a url", "x", &out), LEC_EINVALID);
	CHECK_ERR(lec_embed_absolute_url("/path/only", "x", &out),
		  LEC_EINVALID);
	CHECK(out == NULL);
	CHECK_ERR(lec_embed_absolute_url(b, NULL, &out), LEC_EINVALID);
}

TEST(out_of_memory_is_reported)
{
	struct lec_embed_v2 *e = NULL;
	char *html = NULL;
	long n;
	int rc;

	/* Fail each allocation in turn: every failure is LEC_ENOMEM with
	 * nothing leaked, and enough room succeeds. */
	for (n = 1; n < 400; n++) {
		lec__alloc_fail_after(n);
		rc = lec_embed_v2_html(sphinx_page, strlen(sphinx_page),
				       PAGE_URL, "lossar", &e);
		lec__alloc_fail_after(0);
		if (rc == LEC_OK)
			break;
		CHECK_INT(rc, LEC_ENOMEM);
		CHECK(e == NULL);
	}
	CHECK(e != NULL);
	lec_embed_v2_free(e);
	for (n = 1; n < 100; n++) {
		lec__alloc_fail_after(n);
		rc = lec_embed_v3_html(sphinx_page, strlen(sphinx_page),
				       PAGE_URL, "targets", NULL, NULL, &html);
		lec__alloc_fail_after(0);
		if (rc == LEC_OK)
			break;
		CHECK_INT(rc, LEC_ENOMEM);
	}
	CHECK(html != NULL);
	lec__free(html);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(v2_headers_are_the_local_toc),
	TEST_ENTRY(v2_section_by_id_with_absolute_links),
	TEST_ENTRY(v2_section_by_slug_make_id_and_module),
	TEST_ENTRY(v2_dt_rules),
	TEST_ENTRY(v2_span_target_gives_its_parent),
	TEST_ENTRY(v2_heading_text_fallback),
	TEST_ENTRY(v2_missing_section_is_empty_content),
	TEST_ENTRY(v2_mkdocs_flat_headings),
	TEST_ENTRY(v2_broken_and_empty_html),
	TEST_ENTRY(deeply_nested_page),
	TEST_ENTRY(v2_bad_arguments),
	TEST_ENTRY(missing_page_or_output),
	TEST_ENTRY(v2_and_v3_from_a_file),
	TEST_ENTRY(v3_fragment_and_main_node),
	TEST_ENTRY(v3_sphinx_dt),
	TEST_ENTRY(v3_maincontent_selectors),
	TEST_ENTRY(absolute_urls),
	TEST_ENTRY(out_of_memory_is_reported),
};

LEC_TEST_MAIN(tests)
