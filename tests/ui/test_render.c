/*
 * The reader's renderer: fixture pages in the shapes Sphinx (alabaster),
 * MkDocs and Lectern's Markdown builder write, rendered at 80 and 40
 * columns and compared line by line (headings, wrapped paragraphs, whole
 * code lines, grid and stacked tables, boxes, lists, numbered links, the
 * line each anchor lands on), the styles of key spans, the limits, the
 * time a 50 KB page takes, and a page of a real Sphinx build when Sphinx
 * is installed.
 */
#include <locale.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "render.h"
#include "util.h"

#define LINES(...) ((const char *const[]){ __VA_ARGS__ }), \
	sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)

/* The 200-column code line of the Sphinx fixture, as rendered. */
#define LONG_CODE                                                           \
	"        print(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"  \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"  \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"  \
	"\")  # end"

static char *read_fixture(const char *name, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", LEC_UI_FIXTURES, name);
	return lec_test_read_file(path, len);
}

static struct ui_page *render(const char *html, size_t len, int width,
			      int ascii)
{
	struct ui_render_opts opts = { width, ascii };
	struct ui_page *page = NULL;
	char err[256] = "";

	if (ui_render_html(html, len, &opts, &page, err, sizeof(err)) != 0)
		FAIL_AT("render failed: %s", err);
	return page;
}

static struct ui_page *render_str(const char *html, int width)
{
	return render(html, strlen(html), width, 0);
}

static struct ui_page *render_fixture(const char *name, int width, int ascii)
{
	size_t len = 0;
	char *html = read_fixture(name, &len);
	struct ui_page *page = html ? render(html, len, width, ascii) : NULL;

	free(html);
	return page;
}

/* Lines [from, from + n) of page are exactly expect. */
static void check_lines_at(const char *file, int line,
			   const struct ui_page *page, size_t from,
			   const char *const *expect, size_t n)
{
	size_t i;

	if (page == NULL)
		return;
	for (i = 0; i < n; i++) {
		const char *got = from + i < page->nlines
					  ? page->lines[from + i].text
					  : "(no line)";

		if (strcmp(got, expect[i]) != 0) {
			fprintf(stderr, "  %s:%d: line %zu is \"%s\", expected "
					"\"%s\"\n",
				file, line, from + i, got, expect[i]);
			lec_test_failures++;
		}
	}
}

#define CHECK_LINES(page, from, ...)                                        \
	check_lines_at(__FILE__, __LINE__, page, from, LINES(__VA_ARGS__))

/* The whole page is exactly expect. */
#define CHECK_PAGE(page, ...)                                               \
	do {                                                                \
		CHECK_LINES(page, 0, __VA_ARGS__);                          \
		CHECK_INT((page)->nlines,                                   \
			  sizeof((const char *const[]){ __VA_ARGS__ }) /    \
				  sizeof(const char *));                    \
	} while (0)

/* Whether any line contains s. */
static int page_has(const struct ui_page *page, const char *s)
{
	size_t i;

	for (i = 0; i < page->nlines; i++)
		if (strstr(page->lines[i].text, s) != NULL)
			return 1;
	return 0;
}

/* The style of byte off of line n; -1 when no span covers it. */
static int style_at(const struct ui_page *page, size_t n, size_t off)
{
	const struct ui_line *l = &page->lines[n];
	size_t i;

	for (i = 0; i < l->nspans; i++)
		if (off >= l->spans[i].off &&
		    off < l->spans[i].off + l->spans[i].len)
			return (int)l->spans[i].style;
	return -1;
}

/* The style of the first occurrence of s in line n. */
static int style_of(const struct ui_page *page, size_t n, const char *s)
{
	const char *at = strstr(page->lines[n].text, s);

	return at ? style_at(page, n, (size_t)(at - page->lines[n].text)) : -1;
}

TEST(sphinx_at_80)
{
	struct ui_page *p = render_fixture("sphinx_alabaster.html", 80, 0);

	if (p == NULL)
		return;
	CHECK_STR(p->title, "Reader guide");
	CHECK_LINES(p, 0,
		    "Reader guide",
		    "============",
		    "",
		    "The reader shows built pages in the terminal. See Sphinx[1], the install",
		    "notes[2] and lectern read.",
		    "",
		    "Code",
		    "----",
		    "",
		    "    def main():",
		    LONG_CODE,
		    "",
		    "┌─ Note ───────────────────────────────────────────────────────────────────────┐",
		    "│ Code lines are never wrapped: scroll sideways to read them.                  │",
		    "└──────────────────────────────────────────────────────────────────────────────┘",
		    "",
		    "Tables",
		    "------",
		    "",
		    "┌────────┬─────────┬───────────────────────────────────────┐",
		    "│ Option │ Default │ Meaning                               │",
		    "╞════════╪═════════╪═══════════════════════════════════════╡",
		    "│ width  │ 80      │ Columns the reader lays pages out in. │",
		    "│ theme  │ default │ The colour theme.                     │",
		    "└────────┴─────────┴───────────────────────────────────────┘",
		    "",
		    "Setting: LECTERN_READER_WRAP_COLUMNS",
		    "Environment: LECTERN_READER_WRAP_COLUMNS_ENV",
		    "Config key: reader.wrap_columns_setting",
		    "",
		    "Lists",
		    "-----",
		    "",
		    "• Install the package.",
		    "• Run it:",
		    "  1. once,",
		    "  2. twice.",
		    "     ▪ deeper",
		    "",
		    "### Glossary terms",
		    "",
		    "builder",
		    "    Turns sources into pages.",
		    "",
		    "reader",
		    "    Shows pages.",
		    "",
		    "│ Quoted words.",
		    "",
		    "[image: Lectern logo] 日本語のテキスト");
	CHECK_INT(p->nlines, 50);
	/* The code line is whole: 4 columns of indent, 4 of the code's own,
	 * and the 200 of its text. */
	CHECK_INT(strlen(LONG_CODE), 208);
	CHECK_INT(p->lines[10].width, 208);
	CHECK_INT(p->width, 208);
	CHECK_INT(p->lines[12].width, 80);
	CHECK_INT(p->lines[49].width, 21 + 1 + 16);
	/* The chrome is gone: related bar, sidebar, search box, footer,
	 * permalink marks. */
	CHECK(!page_has(p, "Navigation"));
	CHECK(!page_has(p, "Quick search"));
	CHECK(!page_has(p, "Powered"));
	CHECK(!page_has(p, "¶"));
	CHECK(!page_has(p, "index"));
	CHECK_INT(p->nlinks, 2);
	CHECK_STR(ui_page_link(p, 1)->href, "https://www.sphinx-doc.org/");
	CHECK_STR(ui_page_link(p, 1)->text, "Sphinx");
	CHECK_STR(ui_page_link(p, 2)->href, "usage.html#install");
	CHECK_STR(ui_page_link(p, 2)->text, "install notes");
	CHECK(ui_page_link(p, 0) == NULL);
	CHECK(ui_page_link(p, 3) == NULL);
	CHECK_INT(p->nanchors, 9);
	CHECK_INT(ui_page_anchor(p, "reader-guide"), 0);
	CHECK_INT(ui_page_anchor(p, "code"), 6);
	CHECK_INT(ui_page_anchor(p, "tables"), 16);
	CHECK_INT(ui_page_anchor(p, "theme-cell"), 23);
	CHECK_INT(ui_page_anchor(p, "wide"), 26);
	CHECK_INT(ui_page_anchor(p, "lists"), 30);
	CHECK_INT(ui_page_anchor(p, "glossary-terms"), 39);
	CHECK_INT(ui_page_anchor(p, "term-builder"), 41);
	CHECK_INT(ui_page_anchor(p, "term-reader"), 44);
	CHECK_INT(ui_page_anchor(p, "nowhere"), -1);
	CHECK_INT(ui_page_anchor(p, NULL), -1);
	ui_page_free(p);
}

TEST(sphinx_at_40)
{
	struct ui_page *p = render_fixture("sphinx_alabaster.html", 40, 0);

	if (p == NULL)
		return;
	CHECK_LINES(p, 0,
		    "Reader guide",
		    "============",
		    "",
		    "The reader shows built pages in the",
		    "terminal. See Sphinx[1], the install",
		    "notes[2] and lectern read.",
		    "",
		    "Code",
		    "----",
		    "",
		    "    def main():",
		    LONG_CODE,
		    "",
		    "┌─ Note ───────────────────────────────┐",
		    "│ Code lines are never wrapped: scroll │",
		    "│ sideways to read them.               │",
		    "└──────────────────────────────────────┘",
		    "",
		    "Tables",
		    "------",
		    "",
		    /* Narrowed: the long column wraps, rows get rules. */
		    "┌────────┬─────────┬───────────────────┐",
		    "│ Option │ Default │ Meaning           │",
		    "╞════════╪═════════╪═══════════════════╡",
		    "│ width  │ 80      │ Columns the       │",
		    "│        │         │ reader lays pages │",
		    "│        │         │ out in.           │",
		    "├────────┼─────────┼───────────────────┤",
		    "│ theme  │ default │ The colour theme. │",
		    "└────────┴─────────┴───────────────────┘",
		    "",
		    /* Too wide even narrowed: stacked, long words cut. */
		    "Setting: LECTERN_READER_WRAP_COLUMNS",
		    "Environment: LECTERN_READER_WRAP_COLUMNS",
		    "             _ENV",
		    "Config key: reader.wrap_columns_setting",
		    "");
	CHECK_INT(p->lines[11].width, 208);
	CHECK_INT(ui_page_anchor(p, "theme-cell"), 28);
	CHECK_INT(ui_page_anchor(p, "wide"), 31);
	CHECK_INT(ui_page_anchor(p, "term-reader"), 50);
	ui_page_free(p);
}

TEST(ascii_fallback)
{
	struct ui_page *p = render_fixture("sphinx_alabaster.html", 80, 1);

	if (p == NULL)
		return;
	CHECK_LINES(p, 12,
		    "+- Note -----------------------------------------------------------------------+",
		    "| Code lines are never wrapped: scroll sideways to read them.                  |",
		    "+------------------------------------------------------------------------------+",
		    "",
		    "Tables",
		    "------",
		    "",
		    "+--------+---------+---------------------------------------+",
		    "| Option | Default | Meaning                               |",
		    "+========+=========+=======================================+",
		    "| width  | 80      | Columns the reader lays pages out in. |",
		    "| theme  | default | The colour theme.                     |",
		    "+--------+---------+---------------------------------------+");
	CHECK_LINES(p, 33,
		    "* Install the package.",
		    "* Run it:",
		    "  1. once,",
		    "  2. twice.",
		    "     + deeper");
	CHECK_LINES(p, 47, "| Quoted words.");
	ui_page_free(p);
}

TEST(styles)
{
	struct ui_page *p = render_fixture("sphinx_alabaster.html", 80, 0);

	if (p == NULL)
		return;
	CHECK_INT(style_of(p, 0, "Reader"), UI_RENDER_HEADING1);
	CHECK_INT(style_of(p, 1, "="), UI_RENDER_HEADING1);
	CHECK_INT(style_of(p, 6, "Code"), UI_RENDER_HEADING2);
	CHECK_INT(style_of(p, 39, "###"), UI_RENDER_HEADING3);
	CHECK_INT(style_of(p, 39, "Glossary"), UI_RENDER_HEADING3);
	CHECK_INT(style_of(p, 3, "The"), UI_RENDER_NORMAL);
	CHECK_INT(style_of(p, 3, "built"), UI_RENDER_EMPHASIS);
	CHECK_INT(style_of(p, 3, "terminal"), UI_RENDER_STRONG);
	CHECK_INT(style_of(p, 3, "Sphinx"), UI_RENDER_LINK);
	CHECK_INT(style_of(p, 3, "[1]"), UI_RENDER_LINK);
	CHECK_INT(style_of(p, 4, "lectern read"), UI_RENDER_CODE);
	CHECK_INT(style_of(p, 4, " read"), UI_RENDER_CODE);
	CHECK_INT(style_of(p, 10, "print"), UI_RENDER_CODE);
	CHECK_INT(style_of(p, 12, "┌"), UI_RENDER_BORDER);
	CHECK_INT(style_of(p, 12, "Note"), UI_RENDER_ADMONITION_TITLE);
	CHECK_INT(style_of(p, 13, "│"), UI_RENDER_BORDER);
	CHECK_INT(style_of(p, 20, "Option"), UI_RENDER_STRONG);
	CHECK_INT(style_of(p, 22, "width"), UI_RENDER_NORMAL);
	CHECK_INT(style_of(p, 26, "Setting:"), UI_RENDER_STRONG);
	CHECK_INT(style_of(p, 41, "builder"), UI_RENDER_STRONG);
	CHECK_INT(style_of(p, 47, "│"), UI_RENDER_BORDER);
	CHECK_INT(style_of(p, 49, "[image"), UI_RENDER_DIM);
	/* Spans cover each line exactly, in order. */
	for (size_t i = 0; i < p->nlines; i++) {
		const struct ui_line *l = &p->lines[i];
		size_t off = 0, j;

		for (j = 0; j < l->nspans; j++) {
			CHECK_INT(l->spans[j].off, off);
			CHECK(l->spans[j].len > 0);
			off += l->spans[j].len;
		}
		CHECK_INT(off, l->len);
		CHECK_INT(strlen(l->text), l->len);
	}
	ui_page_free(p);
}

TEST(mkdocs_page)
{
	struct ui_page *p = render_fixture("mkdocs.html", 80, 0);

	if (p == NULL)
		return;
	CHECK_STR(p->title, "Configuration");
	CHECK_PAGE(p,
		   "Configuration",
		   "=============",
		   "",
		   "Settings live in mkdocs.yml; see the user guide[1].",
		   "",
		   "Options",
		   "-------",
		   "",
		   "┌─ Mind the indentation ───────────────────────────────────────────────────────┐",
		   "│ YAML is picky about spaces.                                                  │",
		   "└──────────────────────────────────────────────────────────────────────────────┘",
		   "",
		   "    site_name: Tiny MK",
		   "    nav:",
		   "            - index.md",
		   "",
		   "┌───────────┬────────┐",
		   "│ Key       │ Type   │",
		   "╞═══════════╪════════╡",
		   "│ site_name │ string │",
		   "│ nav       │ list   │",
		   "└───────────┴────────┘",
		   "",
		   "### Steps",
		   "",
		   "1. Write pages[2].",
		   "2. Build them.",
		   "",
		   "────────────────────────────────────────────────────────────────────────────────",
		   "",
		   "Last line.");
	CHECK_INT(p->nlinks, 2);
	CHECK_STR(ui_page_link(p, 1)->href, "https://www.mkdocs.org/user-guide/");
	CHECK_STR(ui_page_link(p, 2)->href, "../writing/");
	CHECK_STR(ui_page_link(p, 2)->text, "pages");
	CHECK_INT(ui_page_anchor(p, "configuration"), 0);
	CHECK_INT(ui_page_anchor(p, "options"), 5);
	CHECK_INT(ui_page_anchor(p, "steps"), 23);
	CHECK_INT(style_of(p, 19, "site_name"), UI_RENDER_CODE);
	ui_page_free(p);
}

TEST(markdown_builder_page)
{
	struct ui_page *p = render_fixture("mdsite.html", 40, 1);

	if (p == NULL)
		return;
	CHECK_STR(p->title, "Getting started");
	CHECK_PAGE(p,
		   "Getting started",
		   "===============",
		   "",
		   "Lectern builds Markdown sites with no",
		   "configuration.",
		   "A second line after a break.",
		   "",
		   "| Docs are a product.",
		   "|",
		   "| | Nested quote.",
		   "",
		   "Tasks",
		   "-----",
		   "",
		   "* [x] import a project",
		   "* read the reader keys[1]",
		   "",
		   " 9. nine",
		   "10. ten",
		   "",
		   "    lectern import https://example.org/repo.git",
		   "",
		   "+---------+------+",
		   "| Command | Exit |",
		   "+=========+======+",
		   "| build   | 0    |",
		   "+---------+------+",
		   "",
		   "[image: A screenshot]");
	CHECK_INT(p->nlinks, 1);
	CHECK_STR(ui_page_link(p, 1)->href, "../guide/reader.html#keys");
	CHECK_INT(ui_page_anchor(p, "tasks"), 11);
	ui_page_free(p);
}

TEST(headings_and_wrapping)
{
	struct ui_page *p = render_str(
		"<body><h3 id='a'>A third level heading that is long</h3>"
		"<h4>Four</h4><h5>Five</h5><h6>Six</h6>"
		"<p>日本語のテキストです日本語のテキストです</p>"
		"<p>supercalifragilisticexpialidocious word</p></body>",
		20);

	if (p == NULL)
		return;
	CHECK_PAGE(p,
		   "### A third level",
		   "    heading that is",
		   "    long",
		   "",
		   "#### Four",
		   "",
		   "##### Five",
		   "",
		   "###### Six",
		   "",
		   /* Wide characters take two columns each; a word wider
		    * than the line is cut. */
		   "日本語のテキストです",
		   "日本語のテキストです",
		   "",
		   "supercalifragilistic",
		   "expialidocious word");
	CHECK_INT(p->lines[10].width, 20);
	CHECK_INT(style_of(p, 4, "Four"), UI_RENDER_HEADING4);
	CHECK_INT(style_of(p, 8, "Six"), UI_RENDER_HEADING6);
	CHECK_INT(ui_page_anchor(p, "a"), 0);
	/* No h1: the title falls back to nothing (no <title> either). */
	CHECK_STR(p->title, "");
	ui_page_free(p);
}

TEST(tables_without_header_and_long_labels)
{
	struct ui_page *p = render_str(
		"<body><table><tr><td>aaaaaaaaaaaaaaaaaaaaaaaaa</td>"
		"<td>bbbbbbbbbbbbbbbbbbbbbbbbb</td></tr>"
		"<tr><td>c</td></tr></table>"
		"<table><tr><th>A very long header label here</th>"
		"<th>B</th></tr><tr><td>xxxxxxxxxxxxxxxxxxxx</td>"
		"<td>yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy</td></tr></table></body>",
		40);

	if (p == NULL)
		return;
	CHECK_PAGE(p,
		   /* No header row: values alone, rows apart. */
		   "aaaaaaaaaaaaaaaaaaaaaaaaa",
		   "bbbbbbbbbbbbbbbbbbbbbbbbb",
		   "",
		   "c",
		   "",
		   /* A <th> first row is the header; a label over half
		    * the width goes on its own line. */
		   "A very long header label here:",
		   "  xxxxxxxxxxxxxxxxxxxx",
		   "B: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
	ui_page_free(p);
}

TEST(links_lists_and_definitions)
{
	struct ui_page *p = render_str(
		"<body><p>An <a href='x.html'><img src='i.png' alt=''></a> "
		"icon and <a href='#top'>top </a>here.</p>"
		"<pre>code <a href='no.html'>link</a></pre>"
		"<dl><dt>one</dt><dt>uno</dt><dd>first</dd>"
		"<dt>two</dt><dd><p>second</p><ul><li>sub</li></ul></dd></dl>"
		"<ol start='-1'><li>minus</li><li></li><li>one</li></ol>"
		"<a href='http://e.org/'></a>"
		"<ol start='9223372036854775807'><li>huge</li></ol></body>",
		40);

	if (p == NULL)
		return;
	CHECK_PAGE(p,
		   "An [image][1] icon and top[2] here.",
		   "",
		   "    code link",
		   "",
		   "one",
		   "uno",
		   "    first",
		   "",
		   "two",
		   "    second",
		   "    • sub",
		   "",
		   "-1. minus",
		   " 0.",
		   " 1. one",
		   "",
		   "[3]",
		   "",
		   /* An absurd start counts from 1. */
		   "1. huge");
	CHECK_INT(p->nlinks, 3);
	CHECK_STR(ui_page_link(p, 1)->href, "x.html");
	CHECK_STR(ui_page_link(p, 1)->text, "");
	CHECK_STR(ui_page_link(p, 2)->text, "top");
	CHECK_STR(ui_page_link(p, 3)->href, "http://e.org/");
	ui_page_free(p);
}

TEST(main_node_choice)
{
	/* No [role=main] nor <main>: the parent of the first h1. */
	struct ui_page *p = render_str(
		"<html><head><title>T</title></head><body>"
		"<div class='side'><p>side text</p></div>"
		"<div><h1>Head</h1><p>body text</p></div></body></html>",
		40);

	if (p == NULL)
		return;
	CHECK_PAGE(p, "Head", "====", "", "body text");
	CHECK_STR(p->title, "Head");
	ui_page_free(p);
	/* No h1 at all: the body, and <title> names the page. */
	p = render_str("<html><head><title>The  title</title></head>"
		       "<body><p>just text</p></body></html>",
		       40);
	if (p == NULL)
		return;
	CHECK_PAGE(p, "just text");
	CHECK_STR(p->title, "The title");
	ui_page_free(p);
}

TEST(empty_and_invalid_input)
{
	struct ui_render_opts opts = { 80, 0 };
	struct ui_page *p = (struct ui_page *)&opts;
	char err[128] = "";

	CHECK_INT(ui_render_html("", 0, &opts, &p, err, sizeof(err)), 0);
	if (p != NULL) {
		CHECK_INT(p->nlines, 0);
		CHECK_STR(p->title, "");
		ui_page_free(p);
	}
	p = render_str("   \n\t  ", 80);
	if (p != NULL) {
		CHECK_INT(p->nlines, 0);
		ui_page_free(p);
	}
	p = (struct ui_page *)&opts;
	CHECK_INT(ui_render_html("x", UI_RENDER_MAX_HTML + 1u, &opts, &p, err,
				 sizeof(err)),
		  -1);
	CHECK(p == NULL);
	CHECK_STR(err, "the page is larger than 16777216 bytes");
	ui_page_free(NULL);
	/* Widths outside the limits are clamped. */
	p = render_str("<p>a b c d e f g h i j k l m n o p q r s t</p>", 1);
	if (p != NULL) {
		CHECK_STR(p->lines[0].text, "a b c d e f g h i j");
		ui_page_free(p);
	}
}

/* Nesting as deep as libxml2 keeps renders; far deeper neither crashes
 * nor loses what comes before it. */
TEST(deep_nesting)
{
	struct ui_buf html = UI_BUF_INIT;
	struct ui_page *p;
	int i;

	for (i = 0; i < 80; i++)
		ui_buf_puts(&html, "<blockquote><ul><li>");
	ui_buf_puts(&html, "bottom");
	p = render(html.ptr, html.len, 80, 1);
	if (p != NULL) {
		CHECK_INT(p->nlines, 1);
		CHECK(strstr(p->lines[0].text, "| * | - | + | * ") ==
		      p->lines[0].text);
		CHECK(strstr(p->lines[0].text, "bottom") != NULL);
		ui_page_free(p);
	}
	ui_buf_dispose(&html);
	ui_buf_puts(&html, "<p>top</p>");
	for (i = 0; i < 20000; i++)
		ui_buf_puts(&html, "<div><ol><li>");
	p = render(html.ptr, html.len, 80, 1);
	if (p != NULL) {
		CHECK_STR(p->lines[0].text, "top");
		ui_page_free(p);
	}
	ui_buf_dispose(&html);
}

TEST(line_limit)
{
	struct ui_buf html = UI_BUF_INIT;
	struct ui_page *p;
	int i;

	ui_buf_puts(&html, "<pre>");
	for (i = 0; i < UI_RENDER_MAX_LINES + 10; i++)
		ui_buf_puts(&html, "x\n");
	ui_buf_puts(&html, "</pre>");
	p = render(html.ptr, html.len, 80, 0);
	if (p != NULL) {
		CHECK_INT(p->nlines, UI_RENDER_MAX_LINES + 1);
		CHECK_STR(p->lines[p->nlines - 1].text,
			  "[the rest of the page is not shown: it is longer "
			  "than the reader's line limit]");
		CHECK_INT(style_at(p, p->nlines - 1, 0), UI_RENDER_DIM);
		ui_page_free(p);
	}
	ui_buf_dispose(&html);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A 50 KB page (the Sphinx fixture's body repeated): the figure is
 * printed; the bound is loose, as sanitizers slow the code several
 * times (the goal, 5 ms, is checked by docs/reader.md's command). */
TEST(fifty_kb_page_time)
{
	size_t len = 0;
	char *one = read_fixture("sphinx_alabaster.html", &len);
	struct ui_buf html = UI_BUF_INIT;
	const char *start, *end;
	double t0, best = 1e9;
	int i;

	if (one == NULL)
		return;
	start = strstr(one, "<section");
	end = strstr(one, "          </div>\n        </div>");
	ui_buf_puts(&html, "<html><body><div role=\"main\">");
	while (html.len < 50 * 1024)
		ui_buf_add(&html, start, (size_t)(end - start));
	ui_buf_puts(&html, "</div></body></html>");
	for (i = 0; i < 5; i++) {
		struct ui_page *p;

		t0 = now_ms();
		p = render(html.ptr, html.len, 80, 0);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
		CHECK(p != NULL && p->nlines > 500);
		ui_page_free(p);
	}
	printf("  a %zu-byte page renders in %.2f ms\n", html.len, best);
	CHECK(best < 250.0);
	ui_buf_dispose(&html);
	free(one);
}

/* Writes text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL) {
		FAIL_AT("cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* A page of a real Sphinx 5 build, when Sphinx is installed. */
TEST(real_sphinx_build)
{
	const char *dir = lec_test_tmpdir();
	char cmd[1024], path[512];
	struct ui_page *p;
	size_t len = 0;
	char *html;

	if (system("/usr/bin/python3 -m sphinx --version >/dev/null 2>&1") != 0) {
		printf("  skipped: /usr/bin/python3 -m sphinx is not available\n");
		return;
	}
	write_file(dir, "conf.py", "project = 'Tiny'\nhtml_theme = 'alabaster'\n");
	write_file(dir, "index.rst",
		   "Tiny project\n============\n\n"
		   "See `Python <https://www.python.org/>`_.\n\n"
		   "Usage\n-----\n\n"
		   ".. code-block:: text\n\n   one long code line "
		   "..................................................................\n\n"
		   ".. note::\n\n   Remember.\n\n"
		   "=====  =====\nName   Kind\n=====  =====\nalpha  one\n=====  =====\n");
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -m sphinx -q -b html %s %s/_build >/dev/null 2>&1",
		 dir, dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/_build/index.html", dir);
	if ((html = lec_test_read_file(path, &len)) == NULL)
		return;
	p = render(html, len, 40, 0);
	if (p != NULL) {
		CHECK_STR(p->title, "Tiny project");
		CHECK_PAGE(p,
			   "Tiny project",
			   "============",
			   "",
			   "See Python[1].",
			   "",
			   "Usage",
			   "-----",
			   "",
			   "    one long code line ..................................................................",
			   "",
			   "┌─ Note ───────────────────────────────┐",
			   "│ Remember.                            │",
			   "└──────────────────────────────────────┘",
			   "",
			   "┌───────┬──────┐",
			   "│ Name  │ Kind │",
			   "╞═══════╪══════╡",
			   "│ alpha │ one  │",
			   "└───────┴──────┘");
		CHECK_STR(ui_page_link(p, 1)->href, "https://www.python.org/");
		CHECK_INT(ui_page_anchor(p, "usage"), 5);
		CHECK(p->root != NULL && strcmp(p->root, "./") == 0);
		ui_page_free(p);
	}
	free(html);
}

/* A page of a real MkDocs build (mkdocs theme), when MkDocs is
 * installed. */
TEST(real_mkdocs_build)
{
	const char *dir = lec_test_tmpdir();
	char cmd[1024], path[512];
	struct ui_page *p;
	size_t len = 0;
	char *html;

	if (system("mkdocs --version >/dev/null 2>&1") != 0) {
		printf("  skipped: mkdocs is not available\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/docs", dir);
	mkdir(path, 0700);
	write_file(dir, "mkdocs.yml",
		   "site_name: Tiny MK\nmarkdown_extensions:\n"
		   "  - admonition\n  - tables\n");
	write_file(dir, "docs/index.md",
		   "# Tiny MK\n\nIntro with a [link](other.md) and `code`.\n\n"
		   "## Setup\n\n!!! note \"Heads up\"\n    Install it first.\n\n"
		   "```\na code line\n```\n\n| A | B |\n|---|---|\n| 1 | 2 |\n");
	write_file(dir, "docs/other.md", "# Other\n\nOther page.\n");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdocs build -q -d site >/dev/null 2>&1", dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/site/index.html", dir);
	if ((html = lec_test_read_file(path, &len)) == NULL)
		return;
	p = render(html, len, 40, 0);
	if (p != NULL) {
		CHECK_STR(p->title, "Tiny MK");
		CHECK_PAGE(p,
			   "Tiny MK",
			   "=======",
			   "",
			   "Intro with a link[1] and code.",
			   "",
			   "Setup",
			   "-----",
			   "",
			   "┌─ Heads up ───────────────────────────┐",
			   "│ Install it first.                    │",
			   "└──────────────────────────────────────┘",
			   "",
			   "    a code line",
			   "",
			   "┌───┬───┐",
			   "│ A │ B │",
			   "╞═══╪═══╡",
			   "│ 1 │ 2 │",
			   "└───┴───┘");
		CHECK_INT(p->nlinks, 1);
		CHECK_STR(ui_page_link(p, 1)->href, "other/");
		CHECK_INT(ui_page_anchor(p, "setup"), 5);
		/* The site's pages from the theme's top bar, and its root
		 * (issue 43, item 7). */
		CHECK_INT(p->npages, 2);
		if (p->npages == 2) {
			CHECK_STR(p->pages[0].href, ".");
			CHECK_STR(p->pages[1].href, "other/");
		}
		CHECK_STR(p->root, ".");
		ui_page_free(p);
	}
	free(html);
}

/* Where a page names its site's root (issue 43, item 7): Sphinx's
 * data-content_root or data-url_root, its rel="search" page's directory,
 * MkDocs' base_url, Material's config; and the navigation a browser user
 * finds, a nav bar's or a toctree's links. */
TEST(site_root_and_navigation)
{
	static const struct {
		const char *html, *root;
	} cases[] = {
		{ "<html data-content_root=\"../\"><body><p>x</p></body></html>",
		  "../" },
		{ "<html><head><script data-url_root=\"./\" "
		  "id=\"documentation_options\"></script></head><body>x</body>"
		  "</html>",
		  "./" },
		{ "<html><head><link rel=\"search\" href=\"../../search.html\">"
		  "</head><body>x</body></html>",
		  "../../" },
		{ "<html><body>x<script>var base_url = \"..\";</script></body>"
		  "</html>",
		  ".." },
		{ "<html><body>x<script id=\"__config\" type=\"application/json\">"
		  "{\"base\": \"../..\", \"features\": []}</script></body></html>",
		  "../.." },
		{ "<html><body><p>nothing</p></body></html>", NULL },
	};
	struct ui_page *p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if ((p = render_str(cases[i].html, 80)) == NULL)
			continue;
		if (cases[i].root)
			CHECK_STR(p->root, cases[i].root);
		else
			CHECK(p->root == NULL);
		ui_page_free(p);
	}
	p = render_str("<html><body><div class=\"navbar\"><ul class=\"nav "
		       "navbar-nav\"><li><a href=\"..\">Home</a></li><li><a "
		       "href=\"#\">Guide</a><a href=\"../use/\">Use</a></li></ul>"
		       "</div><div role=\"main\"><h1>Install</h1><div "
		       "class=\"toctree-wrapper\"><ul><li><a href=\"a.html\">A"
		       "</a></li><li><a href=\"../use/\">Use</a></li></ul></div>"
		       "</div></body></html>",
		       80);
	if (p != NULL) {
		CHECK_INT(p->npages, 3);
		if (p->npages == 3) {
			CHECK_STR(p->pages[0].href, "..");
			CHECK_STR(p->pages[1].href, "../use/");
			CHECK_STR(p->pages[2].href, "a.html");
		}
		ui_page_free(p);
	}
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_at_80),
	TEST_ENTRY(sphinx_at_40),
	TEST_ENTRY(ascii_fallback),
	TEST_ENTRY(styles),
	TEST_ENTRY(mkdocs_page),
	TEST_ENTRY(markdown_builder_page),
	TEST_ENTRY(headings_and_wrapping),
	TEST_ENTRY(tables_without_header_and_long_labels),
	TEST_ENTRY(links_lists_and_definitions),
	TEST_ENTRY(main_node_choice),
	TEST_ENTRY(empty_and_invalid_input),
	TEST_ENTRY(deep_nesting),
	TEST_ENTRY(line_limit),
	TEST_ENTRY(fifty_kb_page_time),
	TEST_ENTRY(real_sphinx_build),
	TEST_ENTRY(real_mkdocs_build),
	TEST_ENTRY(site_root_and_navigation),
};

int main(int argc, char **argv)
{
	/* wcwidth measures non-ASCII text only in a UTF-8 locale, as the TUI
	 * runs in. */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return lec_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
