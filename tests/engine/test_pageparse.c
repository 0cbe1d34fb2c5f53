/*
 * Tests of the search indexer's page parser: fixture pages written for the
 * purpose (tests/engine/fixtures/pageparse/: Sphinx 5, MkDocs with the
 * Material and the built-in theme, a generic page, broken and empty files)
 * with their exact titles, section order, ids and texts and domain entries;
 * the text rules, the caps, argument and file errors, allocation failures;
 * and a real page of CPython's documentation when Debian's python3-doc is
 * installed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/pageparse.h"

/* A real Sphinx 5 page: CPython's os module (Debian's python3-doc). */
#define REAL_PAGE "/usr/share/doc/python3.11/html/library/os.html"

struct want_section {
	const char *id;
	const char *title;
	const char *content;
};

struct want_domain {
	const char *role;
	const char *name;
	const char *id;
	const char *content;
};

/* A fixture's path, beside this file; valid until the next call. */
static const char *fixture(const char *name)
{
	static char path[4096];
	const char *here = __FILE__;
	const char *slash = strrchr(here, '/');

	if (slash == NULL)
		snprintf(path, sizeof(path), "fixtures/pageparse/%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/fixtures/pageparse/%s",
			 (int)(slash - here), here, name);
	return path;
}

static struct lec_page_doc *parse_fixture(const char *name)
{
	struct lec_page_doc *doc = NULL;

	CHECK_OK(lec_page_parse_file(fixture(name), name, &doc));
	return doc;
}

static struct lec_page_doc *parse_str(const char *html)
{
	struct lec_page_doc *doc = NULL;

	CHECK_OK(lec_page_parse_html(html, strlen(html), "dir/page.html",
				     &doc));
	return doc;
}

static void check_sections(const struct lec_page_doc *doc,
			   const struct want_section *want, size_t n)
{
	size_t i;

	CHECK_INT(doc->sections_len, n);
	for (i = 0; i < n && i < doc->sections_len; i++) {
		CHECK_STR(doc->sections[i].id, want[i].id);
		CHECK_STR(doc->sections[i].title, want[i].title);
		CHECK_STR(doc->sections[i].content, want[i].content);
	}
}

static void check_domains(const struct lec_page_doc *doc,
			  const struct want_domain *want, size_t n)
{
	size_t i;

	CHECK_INT(doc->domains_len, n);
	for (i = 0; i < n && i < doc->domains_len; i++) {
		CHECK_STR(doc->domains[i].role, want[i].role);
		CHECK_STR(doc->domains[i].name, want[i].name);
		CHECK_STR(doc->domains[i].id, want[i].id);
		CHECK_STR(doc->domains[i].content, want[i].content);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Fixture pages ----------------------------------------------------------- */

TEST(sphinx_page)
{
	static const struct want_section sections[] = {
		/* definition-list terms first, in document order */
		{ "term-spinner", "spinner", "Something that spins." },
		{ "term-rotor", "rotor", "Something that spins." },
		/* then headings by level; ids from the wrapping section */
		{ "widgets", "Widgets", "Widgets make everything better." },
		{ "installing", "Installing",
		  "Run the installer: $ pip install widgets With line "
		  "numbers: import widgets widgets.spin() Inline numbering: "
		  "spin(); stop();" },
		{ "api", "API", "widgets.UNNAMED No anchor here." },
		{ "glossary", "Glossary", "untagged Stays in the text." },
		{ "more", "More", "The end." },
	};
	static const struct want_domain domains[] = {
		{ "py:function", "widgets.spin", "widgets.spin",
		  "Spin the widget at speed." },
		{ "py:class", "widgets.Widget", "widgets.Widget",
		  "A widget with a name. Widgets compare by name." },
		{ "py:method", "stop", "widgets.Widget.stop",
		  "Stop spinning." },
	};
	struct lec_page_doc *doc = parse_fixture("sphinx5.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Widgets");
	check_sections(doc, sections, N(sections));
	check_domains(doc, domains, N(domains));
	lec_page_doc_free(doc);
}

TEST(mkdocs_material_page)
{
	static const struct want_section sections[] = {
		{ "setup", "Setup", "Get going fast." },
		{ "requirements", "Requirements",
		  "Python Git pip install myproject" },
		{ "next-steps", "Next steps", "Read the guide." },
	};
	struct lec_page_doc *doc = parse_fixture("mkdocs_material.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Setup");
	check_sections(doc, sections, N(sections));
	CHECK_INT(doc->domains_len, 0);
	lec_page_doc_free(doc);
}

TEST(mkdocs_theme_page)
{
	static const struct want_section sections[] = {
		{ "", "Usage", "Before the first heading." },
		{ "usage", "Usage", "Call tool run." },
		{ "exit-codes", "Exit codes", "Zero on success." },
		{ "flags", "Flags", "Flag Meaning -v verbose" },
	};
	struct lec_page_doc *doc = parse_fixture("mkdocs_theme.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Usage");
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

TEST(generic_page_without_main)
{
	/* The main node is the first h1's parent: the menu before it and the
	 * paragraph after it are not indexed. */
	static const struct want_section sections[] = {
		{ "", "Plain Title", "Intro text." },
		{ "top", "Plain Title", "First part." },
		{ "top", "Sub one", "Alpha." },
		{ "two", "Sub two", "Beta." },
	};
	struct lec_page_doc *doc = parse_fixture("generic.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Plain Title");
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

TEST(header_is_the_heading_container)
{
	/* The byline inside <header> belongs to no section; the main node is
	 * the header's parent. */
	static const struct want_section sections[] = {
		{ "t", "Header Title", "Body text." },
		{ "deeper", "Deeper", "Deep text." },
	};
	struct lec_page_doc *doc = parse_fixture("header.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Header Title");
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

TEST(broken_page)
{
	/* libxml2 repairs the markup: the unclosed <i> ends with the h1, the
	 * stray end tag is dropped, an unknown entity stays text. */
	static const struct want_section sections[] = {
		{ "", "Broken page",
		  "Unclosed paragraph Nested & stray tags &bogus;" },
		{ "b", "Second", "text after" },
	};
	struct lec_page_doc *doc = parse_fixture("broken.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Broken page");
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

TEST(empty_page)
{
	struct lec_page_doc *doc = parse_fixture("empty.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "");
	CHECK_INT(doc->sections_len, 0);
	CHECK_INT(doc->domains_len, 0);
	CHECK(doc->sections == NULL && doc->domains == NULL);
	lec_page_doc_free(doc);
}

TEST(page_with_only_leading_text)
{
	static const struct want_section sections[] = {
		{ "", "Notes", "Just some text. More text." },
	};
	struct lec_page_doc *doc = parse_fixture("leading.html");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "Notes");
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

/* Rules on small pages ---------------------------------------------------- */

TEST(not_a_page_gives_an_empty_document)
{
	static const char *inputs[] = {
		"", "   \n", "<!-- only a comment -->",
	};
	struct lec_page_doc *doc;
	size_t i;

	for (i = 0; i < N(inputs); i++) {
		if ((doc = parse_str(inputs[i])) == NULL)
			continue;
		CHECK_STR(doc->title, "");
		CHECK_INT(doc->sections_len, 0);
		lec_page_doc_free(doc);
	}
	/* Binary junk is text to libxml2: control characters dropped, bytes
	 * that are not UTF-8 read as Latin-1. */
	if ((doc = parse_str("\x01\x02\xff\xfe garbage")) == NULL)
		return;
	CHECK_STR(doc->title, "dir/page.html");
	CHECK_INT(doc->sections_len, 1);
	if (doc->sections_len == 1)
		CHECK_STR(doc->sections[0].content, "\xc3\xbf\xc3\xbe garbage");
	lec_page_doc_free(doc);
}

TEST(title_falls_back_to_title_then_path)
{
	struct lec_page_doc *doc;

	doc = parse_str("<title>Only  the\ttitle</title>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "Only the title");
		CHECK_INT(doc->sections_len, 0); /* no body */
		lec_page_doc_free(doc);
	}
	doc = parse_str("<html><head><title>T</title></head>"
			"<body><h1> \n </h1><p>x</p></body></html>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "T"); /* an empty h1 does not count */
		CHECK_INT(doc->sections_len, 1);
		if (doc->sections_len == 1) {
			CHECK_STR(doc->sections[0].title, "");
			CHECK_STR(doc->sections[0].content, "x");
		}
		lec_page_doc_free(doc);
	}
	doc = parse_str("<p>text</p>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "dir/page.html");
		CHECK_INT(doc->sections_len, 1);
		if (doc->sections_len == 1)
			CHECK_STR(doc->sections[0].title, "dir/page.html");
		lec_page_doc_free(doc);
	}
	/* An h1 outside the main node is not the title. */
	doc = parse_str("<title>T</title><h1>Outside</h1>"
			"<div role=\"main\"><p>in</p></div>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "T");
		lec_page_doc_free(doc);
	}
}

TEST(noise_is_removed)
{
	struct lec_page_doc *doc = parse_str(
		"<html><body><p>outside</p><main><script>var x=1;</script>"
		"<style>p{}</style><template><p>tpl</p></template>"
		"<noscript>enable js</noscript><nav>menu</nav>"
		"<div role=\"search\">find</div>"
		"<div role=\"navigation\">links</div>"
		"<span class=\"x headerlink\">#</span>"
		"<div class=\"toctree-wrapper\">toc</div>"
		"<span class=\"lineno\">7</span><p>kept</p></main>"
		"</body></html>");

	if (doc == NULL)
		return;
	CHECK_STR(doc->title, "dir/page.html");
	CHECK_INT(doc->sections_len, 1);
	if (doc->sections_len == 1)
		CHECK_STR(doc->sections[0].content, "kept");
	lec_page_doc_free(doc);
}

TEST(text_rules)
{
	/* Blocks are set apart, inline elements are not; every whitespace
	 * run (tabs, no-break and ideographic spaces) is one space. */
	struct lec_page_doc *doc = parse_str(
		"<div role=\"main\"><p>a</p><p>b</p>foo<em>bar</em> "
		"x&#160;&#160;y\xe3\x80\x80z\t\n tab<li>l</li>"
		"<span>na\xc3\xafve</span></div>");

	if (doc == NULL)
		return;
	CHECK_INT(doc->sections_len, 1);
	if (doc->sections_len == 1)
		CHECK_STR(doc->sections[0].content,
			  "a b foobar x y z tab l na\xc3\xafve");
	lec_page_doc_free(doc);
}

TEST(encodings)
{
	struct lec_page_doc *doc;

	/* UTF-8 without a declaration, as the generators write it. */
	doc = parse_str("<title>caf\xc3\xa9</title>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "caf\xc3\xa9");
		lec_page_doc_free(doc);
	}
	/* A declared legacy charset is honoured. */
	doc = parse_str("<html><head><meta charset=\"iso-8859-1\">"
			"<title>caf\xe9</title></head></html>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "caf\xc3\xa9");
		lec_page_doc_free(doc);
	}
	doc = parse_str("\xef\xbb\xbf<title>bom</title>");
	if (doc != NULL) {
		CHECK_STR(doc->title, "bom");
		lec_page_doc_free(doc);
	}
}

TEST(section_content_depth)
{
	/* A heading's content descends two levels into following siblings:
	 * a heading nested deeper does not stop it (the service's rule). */
	static const struct want_section sections[] = {
		{ "a", "A", "B deep after" },
		{ "c", "C", "" }, /* stopped by the h3 two levels down */
		{ "b", "B", "deep" },
		/* no id on the h3 nor on its parent */
		{ "", "stop", "never" },
	};
	struct lec_page_doc *doc = parse_str(
		"<div role=\"main\"><h1 id=\"a\">A</h1><div><div><div>"
		"<h2 id=\"b\">B</h2>deep</div></div></div><p>after</p>"
		"<h1 id=\"c\">C</h1><div><div><h3>stop</h3>never</div></div>"
		"<section><p>shallow</p></section></div>");

	if (doc == NULL)
		return;
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

TEST(leading_text_depth)
{
	/* The leading text scan goes three levels down and stops at the first
	 * heading it meets there. */
	struct lec_page_doc *doc = parse_str(
		"<div role=\"main\">lead <div><div><p>one</p><div><h2>H</h2>"
		"</div><p>not lead</p></div></div></div>");

	if (doc == NULL)
		return;
	CHECK(doc->sections_len >= 1);
	if (doc->sections_len >= 1) {
		CHECK_STR(doc->sections[0].id, "");
		CHECK_STR(doc->sections[0].content, "lead one");
	}
	lec_page_doc_free(doc);
}

TEST(domain_entries)
{
	static const struct want_domain domains[] = {
		/* name parts in document order: an option's argument follows */
		{ "std:cmdoption", "-c <command>", "cmdoption-c",
		  "Run command." },
		/* no signature spans: the id names it */
		{ "c:function", "c.Py_Spin", "c.Py_Spin", "Spins." },
		/* older Sphinx class names */
		{ "js:function", "lib.go", "lib.go", "Goes." },
	};
	static const struct want_section sections[] = {
		/* a one-word class is not a domain */
		{ "describe-x", "x", "A describe block." },
		/* nor is an unknown domain */
		{ "zz-y", "y", "Unknown." },
		/* a dt without a dd is no entry and stays in the text */
		{ "", "dir/page.html", "f" },
	};
	struct lec_page_doc *doc = parse_str(
		"<div role=\"main\">"
		"<dl class=\"std cmdoption\"><dt id=\"cmdoption-c\">"
		"<span class=\"sig-name descname\"><span class=\"pre\">-c"
		"</span></span><span class=\"sig-prename descclassname\"> "
		"<span class=\"pre\">&lt;command&gt;</span></span></dt>"
		"<dd><p>Run command.</p></dd></dl>"
		"<dl class=\"c function\"><dt id=\"c.Py_Spin\">void</dt>"
		"<dd>Spins.</dd></dl>"
		"<dl class=\"js function\"><dt id=\"lib.go\">"
		"<code class=\"descclassname\">lib.</code>"
		"<code class=\"descname\">go</code>()</dt><dd>Goes.</dd></dl>"
		"<dl class=\"describe\"><dt id=\"describe-x\">x</dt>"
		"<dd>A describe block.</dd></dl>"
		"<dl class=\"zz fn\"><dt id=\"zz-y\">y</dt><dd>Unknown.</dd>"
		"</dl><dl class=\"py function\"><dt id=\"no-dd\">f</dt></dl>"
		"</div>");

	if (doc == NULL)
		return;
	check_domains(doc, domains, N(domains));
	check_sections(doc, sections, N(sections));
	lec_page_doc_free(doc);
}

/* Caps -------------------------------------------------------------------- */

/* Appends fmt once per i in [0, n) to b, with i as both its arguments (a
 * macro so that the compiler checks the literal format). */
#define REPEAT(b, fmt, n)                                                    \
	do {                                                                 \
		int i_;                                                      \
		for (i_ = 0; i_ < (n); i_++)                                 \
			lec__buf_printf((b), fmt, i_, i_);                   \
	} while (0)

static struct lec_page_doc *parse_buf(struct lec__buf *b)
{
	struct lec_page_doc *doc = NULL;
	char *html = lec__buf_take(b);

	CHECK(html != NULL);
	if (html != NULL)
		CHECK_OK(lec_page_parse_html(html, strlen(html), "big.html",
					     &doc));
	lec__free(html);
	return doc;
}

TEST(sections_are_capped)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_page_doc *doc;

	lec__buf_puts(&b, "<div role=\"main\"><h1 id=\"top\">T</h1>");
	REPEAT(&b, "<h2 id=\"s%d\">S</h2><p>c%d</p>", LEC_PAGE_SECTIONS_MAX + 50);
	lec__buf_puts(&b, "</div>");
	if ((doc = parse_buf(&b)) == NULL)
		return;
	CHECK_INT(doc->sections_len, LEC_PAGE_SECTIONS_MAX);
	CHECK_STR(doc->sections[0].id, "top");
	CHECK_STR(doc->sections[1].id, "s0");
	CHECK_STR(doc->sections[1].content, "c0");
	CHECK_STR(doc->sections[LEC_PAGE_SECTIONS_MAX - 1].id, "s9998");
	lec_page_doc_free(doc);

	/* Terms come first and fill the cap: no heading section is left. */
	lec__buf_puts(&b, "<div role=\"main\"><h1 id=\"top\">T</h1><dl>");
	REPEAT(&b, "<dt id=\"t%d\">t</dt><dd>d%d</dd>", LEC_PAGE_SECTIONS_MAX + 1);
	lec__buf_puts(&b, "</dl></div>");
	if ((doc = parse_buf(&b)) == NULL)
		return;
	CHECK_INT(doc->sections_len, LEC_PAGE_SECTIONS_MAX);
	CHECK_STR(doc->sections[LEC_PAGE_SECTIONS_MAX - 1].id, "t9999");
	lec_page_doc_free(doc);

	lec__buf_puts(&b, "<div role=\"main\"><dl class=\"py function\">");
	REPEAT(&b, "<dt id=\"f%d\">f</dt><dd>d%d</dd>", LEC_PAGE_SECTIONS_MAX + 1);
	lec__buf_puts(&b, "</dl></div>");
	if ((doc = parse_buf(&b)) == NULL)
		return;
	CHECK_INT(doc->domains_len, LEC_PAGE_SECTIONS_MAX);
	CHECK_STR(doc->domains[LEC_PAGE_SECTIONS_MAX - 1].id, "f9999");
	CHECK_STR(doc->domains[LEC_PAGE_SECTIONS_MAX - 1].content, "d9999");
	/* capped entries are still removed: no text is left to index */
	CHECK_INT(doc->sections_len, 0);
	lec_page_doc_free(doc);
}

TEST(deep_nesting)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_page_doc *doc;
	int i;

	lec__buf_puts(&b, "<body><h1 id=\"t\">T</h1>");
	for (i = 0; i < 50000; i++)
		lec__buf_puts(&b, "<span>");
	lec__buf_puts(&b, "deep<p>after</p></body>");
	if ((doc = parse_buf(&b)) == NULL)
		return;
	CHECK_INT(doc->sections_len, 1);
	if (doc->sections_len == 1)
		CHECK_STR(doc->sections[0].content, "deep after");
	lec_page_doc_free(doc);
}

/* Number of UTF-8 characters in s. */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

TEST(text_is_capped)
{
	const size_t over = LEC_PAGE_TEXT_MAX + 1000;
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_page_doc *doc;
	char *ascii = malloc(over + 1), *two = malloc(2 * over + 1);
	size_t i;

	CHECK(ascii != NULL && two != NULL);
	if (ascii == NULL || two == NULL)
		goto done;
	memset(ascii, 'a', over);
	ascii[over] = '\0';
	for (i = 0; i < over; i++)
		memcpy(two + 2 * i, "\xc3\xa9", 2);
	two[2 * over] = '\0';

	lec__buf_printf(&b, "<h1>%s</h1><p>x</p><h2>y</h2><p>%s</p>", ascii,
			two);
	if ((doc = parse_buf(&b)) == NULL)
		goto done;
	CHECK_INT(strlen(doc->title), LEC_PAGE_TEXT_MAX);
	CHECK_INT(doc->sections_len, 2);
	if (doc->sections_len == 2) {
		CHECK_INT(strlen(doc->sections[0].title), LEC_PAGE_TEXT_MAX);
		CHECK_STR(doc->sections[0].content, "x");
		/* cut at characters, never inside one */
		CHECK_INT(utf8_chars(doc->sections[1].content),
			  LEC_PAGE_TEXT_MAX);
		CHECK_INT(strlen(doc->sections[1].content),
			  2 * LEC_PAGE_TEXT_MAX);
	}
	lec_page_doc_free(doc);
done:
	free(ascii);
	free(two);
}

/* Errors ------------------------------------------------------------------ */

TEST(bad_arguments)
{
	struct lec_page_doc *doc = (struct lec_page_doc *)&doc;

	CHECK_ERR(lec_page_parse_html("<p>x</p>", 8, "p.html", NULL),
		  LEC_EINVALID);
	CHECK_ERR(lec_page_parse_html("<p>x</p>", 8, NULL, &doc),
		  LEC_EINVALID);
	CHECK(doc == NULL);
	CHECK_STR(lec_error_last(), "no page path or HTML given");
	CHECK_ERR(lec_page_parse_html(NULL, 3, "p.html", &doc), LEC_EINVALID);
	CHECK_ERR(lec_page_parse_html("x", (size_t)LEC_PAGE_HTML_MAX + 1,
				      "big.html", &doc),
		  LEC_ELIMIT);
	CHECK_STR(lec_error_last(), "big.html: page is larger than 67108864 "
				    "bytes");
	CHECK(doc == NULL);
	CHECK_ERR(lec_page_parse_file(NULL, "p.html", &doc), LEC_EINVALID);
	CHECK_ERR(lec_page_parse_file(fixture("leading.html"), NULL, &doc),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no page file or path given");
	/* NULL html is fine when there is nothing to read */
	CHECK_OK(lec_page_parse_html(NULL, 0, "p.html", &doc));
	if (doc != NULL)
		CHECK_STR(doc->title, "");
	lec_page_doc_free(doc);
	lec_page_doc_free(NULL);
}

TEST(file_errors)
{
	char dir[4096], path[4200], want[4400];
	struct lec_page_doc *doc = NULL;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", lec_test_tmpdir());
	snprintf(path, sizeof(path), "%s/missing.html", dir);
	CHECK_ERR(lec_page_parse_file(path, "missing.html", &doc), LEC_EIO);
	snprintf(want, sizeof(want), "cannot open %s: No such file or directory",
		 path);
	CHECK_STR(lec_error_last(), want);
	CHECK(doc == NULL);

	CHECK_ERR(lec_page_parse_file(dir, "dir.html", &doc), LEC_EIO);
	snprintf(want, sizeof(want), "cannot read %s: not a regular file", dir);
	CHECK_STR(lec_error_last(), want);

	/* a file over the cap is refused before it is read */
	snprintf(path, sizeof(path), "%s/huge.html", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(fseek(f, (long)LEC_PAGE_HTML_MAX, SEEK_SET) == 0);
	fputc('x', f);
	fclose(f);
	CHECK_ERR(lec_page_parse_file(path, "huge.html", &doc), LEC_ELIMIT);
	snprintf(want, sizeof(want), "%s is larger than 67108864 bytes", path);
	CHECK_STR(lec_error_last(), want);
	remove(path);
}

TEST(allocation_failures)
{
	long n;
	int rc = LEC_ENOMEM;

	/* Fail each allocation in turn until the parse needs no more. */
	for (n = 1; rc == LEC_ENOMEM && n < 10000; n++) {
		struct lec_page_doc *doc = (struct lec_page_doc *)&doc;

		lec__alloc_fail_after(n);
		rc = lec_page_parse_file(fixture("sphinx5.html"),
					 "sphinx5.html", &doc);
		lec__alloc_fail_after(0);
		if (rc == LEC_ENOMEM) {
			CHECK(doc == NULL);
			CHECK_STR(lec_error_last(), "out of memory");
		} else {
			CHECK_OK(rc);
			if (doc != NULL)
				CHECK_INT(doc->domains_len, 3);
			lec_page_doc_free(doc);
		}
	}
	CHECK_OK(rc);
	CHECK(n > 10); /* the loop did fail allocations */
}

/* Threads: the indexer may parse pages in parallel. */
#define THREADS 4
#define THREAD_PARSES 20

struct thread_job {
	char path[4096];
	int ok; /* parses that gave the expected document */
};

static void *parse_many(void *arg)
{
	struct thread_job *job = arg;
	int i;

	for (i = 0; i < THREAD_PARSES; i++) {
		struct lec_page_doc *doc = NULL;

		if (lec_page_parse_file(job->path, "s.html", &doc) == LEC_OK &&
		    strcmp(doc->title, "Widgets") == 0 &&
		    doc->sections_len == 7 && doc->domains_len == 3)
			job->ok++;
		lec_page_doc_free(doc);
	}
	return NULL;
}

TEST(parses_on_several_threads)
{
	static struct thread_job jobs[THREADS];
	pthread_t threads[THREADS];
	int i;

	for (i = 0; i < THREADS; i++) {
		snprintf(jobs[i].path, sizeof(jobs[i].path), "%s",
			 fixture("sphinx5.html"));
		jobs[i].ok = 0;
		CHECK(pthread_create(&threads[i], NULL, parse_many,
				     &jobs[i]) == 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
		CHECK_INT(jobs[i].ok, THREAD_PARSES);
	}
}

/* A real page ---------------------------------------------------------------- */

TEST(real_sphinx_page)
{
	struct lec_page_doc *doc = NULL;
	size_t i, functions = 0;
	int ctermid = 0;

	if (access(REAL_PAGE, R_OK) != 0) {
		printf("  skipped: %s not installed (python3-doc)\n", REAL_PAGE);
		return;
	}
	CHECK_OK(lec_page_parse_file(REAL_PAGE, "library/os.html", &doc));
	if (doc == NULL)
		return;
	CHECK_STR(doc->title,
		  "os \xe2\x80\x94 Miscellaneous operating system interfaces");
	/* Every heading is a section; the functions, classes and data are
	 * domain entries (Lectern's decision), not sections. */
	CHECK(doc->sections_len > 10);
	CHECK(doc->sections_len + doc->domains_len > 50);
	for (i = 0; i < doc->domains_len; i++) {
		const struct lec_page_domain *d = &doc->domains[i];

		functions += strcmp(d->role, "py:function") == 0;
		if (strcmp(d->id, "os.ctermid") == 0) {
			ctermid = 1;
			CHECK_STR(d->role, "py:function");
			CHECK_STR(d->name, "os.ctermid");
			CHECK(strncmp(d->content, "Return the filename "
				      "corresponding to the controlling terminal "
				      "of the process.", 71) == 0);
		}
	}
	CHECK(functions > 100);
	CHECK(ctermid);
	CHECK_STR(doc->sections[0].id, "module-os");
	lec_page_doc_free(doc);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_page),
	TEST_ENTRY(mkdocs_material_page),
	TEST_ENTRY(mkdocs_theme_page),
	TEST_ENTRY(generic_page_without_main),
	TEST_ENTRY(header_is_the_heading_container),
	TEST_ENTRY(broken_page),
	TEST_ENTRY(empty_page),
	TEST_ENTRY(page_with_only_leading_text),
	TEST_ENTRY(not_a_page_gives_an_empty_document),
	TEST_ENTRY(title_falls_back_to_title_then_path),
	TEST_ENTRY(noise_is_removed),
	TEST_ENTRY(text_rules),
	TEST_ENTRY(encodings),
	TEST_ENTRY(section_content_depth),
	TEST_ENTRY(leading_text_depth),
	TEST_ENTRY(domain_entries),
	TEST_ENTRY(deep_nesting),
	TEST_ENTRY(sections_are_capped),
	TEST_ENTRY(text_is_capped),
	TEST_ENTRY(bad_arguments),
	TEST_ENTRY(file_errors),
	TEST_ENTRY(allocation_failures),
	TEST_ENTRY(parses_on_several_threads),
	TEST_ENTRY(real_sphinx_page),
};

LEC_TEST_MAIN(tests)
