/*
 * A page as Markdown (lectern/pagemd.h) on pages shaped like real generator
 * output: Sphinx's (sections with permalink markers, code blocks with
 * their language in highlight-* classes, line-number tables, literal spans,
 * a domain entry, a table, nested lists), a Markdown builder's (<pre><code
 * class="language-x">), and broken, deep or empty markup. Each expected
 * Markdown is checked byte for byte, links made absolute.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "lectern/pagemd.h"

#define PAGE_URL "http://demo.localhost:8000/en/latest/guide/usage.html"

static const char sphinx_page[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<title>Usage &#8212; Demo</title><script>var x = 1;</script></head>"
	"<body><div class=\"sphinxsidebar\" role=\"navigation\"><h3>Nav</h3>"
	"<a href=\"../index.html\">Home</a></div>"
	"<div class=\"body\" role=\"main\">"
	"<section id=\"usage\">"
	"<h1>Usage <em>guide</em><a class=\"headerlink\" href=\"#usage\">"
	"\xc2\xb6</a></h1>\n<p>Intro, see <a href=\"../api.html#x\">the "
	"API</a> and <code class=\"docutils literal\"><span class=\"pre\">"
	"run()</span></code>, caf\xc3\xa9 *not* emphasis.</p>\n"
	"<div class=\"highlight-python notranslate\"><div class=\"highlight\">"
	"<pre><span></span><span class=\"k\">def</span> <span class=\"nf\">"
	"f</span>():\n    return 1\n</pre></div></div>\n"
	"<div class=\"highlight-default notranslate\"><div "
	"class=\"highlight\"><pre>plain\n</pre></div></div>"
	"<table class=\"highlighttable\"><tr><td class=\"linenos\"><pre>1\n2"
	"</pre></td><td class=\"code\"><div class=\"highlight-c\"><pre>a;\nb;"
	"</pre></div></td></tr></table>"
	"<ul><li><p>One</p><ul><li>Nested <strong>bold</strong></li></ul>"
	"</li><li>Two<br>lines</li></ul>"
	"<ol start=\"3\"><li>Three</li><li>Four</li></ol>"
	"<table class=\"docutils\"><thead><tr><th>Name</th><th>Value</th>"
	"</tr></thead><tbody><tr><td>a|b</td><td><img src=\"img/x.png\" "
	"alt=\"X\"></td></tr><tr><td>only</td></tr></tbody></table>"
	"<dl class=\"py function\"><dt id=\"demo.run\"><span "
	"class=\"sig-name\">run</span>()</dt><dd><p>Runs it.</p>"
	"<p>Twice.</p></dd></dl>"
	"<blockquote><div><p>Quoted</p><p># not a heading</p></div>"
	"</blockquote><hr>"
	"</section></div><footer>Footer</footer></body></html>";

static const char sphinx_md[] =
	"# Usage *guide*\n"
	"\n"
	"Intro, see [the API](http://demo.localhost:8000/en/latest/api.html#x)"
	" and `run()`, caf\xc3\xa9 \\*not\\* emphasis.\n"
	"\n"
	"```python\n"
	"def f():\n"
	"    return 1\n"
	"```\n"
	"\n"
	"```\n"
	"plain\n"
	"```\n"
	"\n"
	"```c\n"
	"a;\n"
	"b;\n"
	"```\n"
	"\n"
	"- One\n"
	"\n"
	"  - Nested **bold**\n"
	"\n"
	"- Two\\\n"
	"  lines\n"
	"\n"
	"3. Three\n"
	"4. Four\n"
	"\n"
	"| Name | Value |\n"
	"| --- | --- |\n"
	"| a\\|b | ![X](http://demo.localhost:8000/en/latest/guide/img/x.png) |"
	"\n"
	"| only |   |\n"
	"\n"
	"run()\n"
	":   Runs it.\n"
	"\n"
	"    Twice.\n"
	"\n"
	"> Quoted\n"
	">\n"
	"> \\# not a heading\n"
	"\n"
	"---\n";

TEST(sphinx_output)
{
	struct lec_page_md *md = NULL;

	CHECK_OK(lec_page_markdown(sphinx_page, strlen(sphinx_page), PAGE_URL,
				   &md));
	CHECK_STR(md->title, "Usage guide");
	CHECK_STR(md->markdown, sphinx_md);
	CHECK_INT(md->len, strlen(sphinx_md));
	lec_page_md_free(md);
}

/* Anchors and sections for agents (lectern mcp): a Sphinx page's sections
 * by their <section id>, a flat page's (MkDocs', the Markdown builder's)
 * by the heading's own id, up to the next heading of its level. */
static const char sections_page[] =
	"<html><body><div role=\"main\">"
	"<section id=\"top\"><h1>Top<a class=\"headerlink\" "
	"href=\"#top\">\xc2\xb6</a></h1><p>Intro.</p>"
	"<section id=\"install\"><h2>Install</h2><p>Run it.</p>"
	"<section id=\"deep\"><h3>Deep</h3><p>Deeper.</p></section>"
	"</section>"
	"<section id=\"use\"><h2>Use</h2><p>Use it.</p></section>"
	"</section>"
	"<h2 id=\"flat\">Flat</h2><p>One.</p><h3 id=\"sub\">Sub</h3>"
	"<p>Two.</p><h2 id=\"next\">Next</h2><p>Three.</p>"
	"<h2>No id <a class=\"headerlink\" href=\"#linked\">#</a></h2>"
	"</div></body></html>";

static char *section_md(const char *id, int anchors)
{
	struct lec_page_md_options o = { anchors, id };
	struct lec_page_md *md = NULL;
	char *text = NULL;

	if (lec_page_markdown_with(sections_page, strlen(sections_page),
				   PAGE_URL, &o, &md) == LEC_OK)
		text = lec__strdup(md->markdown);
	lec_page_md_free(md);
	return text;
}

TEST(anchors_and_sections)
{
	struct lec_page_md_options o = { 0, "nowhere" };
	struct lec_page_md *md = NULL;
	char *text;

	/* Without options: the page as before, no anchors. */
	CHECK_OK(lec_page_markdown_with(sections_page, strlen(sections_page),
					PAGE_URL, NULL, &md));
	CHECK(strstr(md->markdown, "{#") == NULL);
	lec_page_md_free(md);
	text = section_md(NULL, 1);
	CHECK_STR(text, "# Top {#top}\n\nIntro.\n\n## Install {#install}\n\n"
			"Run it.\n\n### Deep {#deep}\n\nDeeper.\n\n"
			"## Use {#use}\n\nUse it.\n\n## Flat {#flat}\n\nOne."
			"\n\n### Sub {#sub}\n\nTwo.\n\n## Next {#next}\n\n"
			"Three.\n\n## No id {#linked}\n");
	lec__free(text);
	text = section_md("install", 0);
	CHECK_STR(text, "## Install\n\nRun it.\n\n### Deep\n\nDeeper.\n");
	lec__free(text);
	text = section_md("flat", 1);
	CHECK_STR(text, "## Flat {#flat}\n\nOne.\n\n### Sub {#sub}\n\nTwo.\n");
	lec__free(text);
	text = section_md("next", 0);
	CHECK_STR(text, "## Next\n\nThree.\n");
	lec__free(text);
	/* An API entry: its <dl>, the signature and the description. */
	{
		struct lec_page_md_options entry = { 0, "demo.run" };

		CHECK_OK(lec_page_markdown_with(sphinx_page,
						strlen(sphinx_page), PAGE_URL,
						&entry, &md));
		CHECK_STR(md->markdown, "run()\n:   Runs it.\n\n    Twice.\n");
		lec_page_md_free(md);
		md = NULL;
	}
	CHECK_ERR(lec_page_markdown_with(sections_page, strlen(sections_page),
					 PAGE_URL, &o, &md),
		  LEC_ENOTFOUND);
	CHECK(md == NULL);
}

TEST(markdown_builder_page)
{
	static const char page[] =
		"<html><head><title>Guide</title></head><body><main>"
		"<h2>Setup</h2><p>Use <code>a`b</code>.</p>"
		"<pre><code class=\"language-sh\">make ```x```\n</code></pre>"
		"<p><a href=\"other.html\">Other</a> <a href=\"#top\">top</a>"
		" <a href=\"https://x.example/a b\">sp</a>"
		" <a href=\"javascript:alert(1)\">js</a></p></main>"
		"</body></html>";
	static const char expected[] =
		"## Setup\n"
		"\n"
		"Use ``a`b``.\n"
		"\n"
		"````sh\n"
		"make ```x```\n"
		"````\n"
		"\n"
		"[Other](http://demo.localhost:8000/en/latest/guide/other.html)"
		" [top](http://demo.localhost:8000/en/latest/guide/usage.html#"
		"top) [sp](<https://x.example/a b>) js\n";
	struct lec_page_md *md = NULL;

	CHECK_OK(lec_page_markdown(page, strlen(page), PAGE_URL, &md));
	/* No <h1>: the <title>. */
	CHECK_STR(md->title, "Guide");
	CHECK_STR(md->markdown, expected);
	lec_page_md_free(md);
	/* Without a URL, links stay as written. */
	CHECK_OK(lec_page_markdown(page, strlen(page), NULL, &md));
	CHECK(strstr(md->markdown, "[Other](other.html)") != NULL);
	lec_page_md_free(md);
}

TEST(broken_deep_and_empty)
{
	static const char huge_start[] = "<ol start=\"9223372036854775807\">"
					 "<li>a</li><li>b</li></ol>";
	struct lec_page_md *md = NULL;
	char *deep;
	size_t i, n = 5000;

	CHECK_OK(lec_page_markdown("", 0, PAGE_URL, &md));
	CHECK_STR(md->markdown, "");
	CHECK_STR(md->title, "");
	lec_page_md_free(md);
	CHECK_OK(lec_page_markdown("<p>a <b>b <i>c</p> d", 20, NULL, &md));
	CHECK(md->len > 0);
	lec_page_md_free(md);
	/* Nested far past any real page: bounded, no crash. */
	deep = lec__malloc(n * 10 + 1);
	CHECK(deep != NULL);
	for (i = 0; i < n; i++)
		memcpy(deep + i * 5, "<div>", 5);
	memcpy(deep + n * 5, "x", 1);
	for (i = 0; i < n; i++)
		memcpy(deep + n * 5 + 1 + i * 5, "</i >", 5);
	CHECK_OK(lec_page_markdown(deep, n * 10 + 1, NULL, &md));
	lec_page_md_free(md);
	lec__free(deep);
	/* A list's start past any marker (the fuzzer's LONG_MAX): clamped
	 * to CommonMark's nine digits, counting on without overflow. */
	CHECK_OK(lec_page_markdown(huge_start, strlen(huge_start), NULL, &md));
	CHECK(strstr(md->markdown, "999999999. a") != NULL);
	CHECK(strstr(md->markdown, "1000000000. b") != NULL);
	lec_page_md_free(md);
	CHECK_ERR(lec_page_markdown(NULL, 3, NULL, &md), LEC_EINVALID);
	CHECK_ERR(lec_page_markdown_file("/nonexistent/x.html", NULL, &md),
		  LEC_EIO);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_output),
	TEST_ENTRY(anchors_and_sections),
	TEST_ENTRY(markdown_builder_page),
	TEST_ENTRY(broken_deep_and_empty),
};

LEC_TEST_MAIN(tests)
