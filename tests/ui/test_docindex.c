/*
 * The docs' own search-index fallback: hand-written indexes in Sphinx's
 * (JSON, and the older JavaScript form) and MkDocs' formats, searched
 * with exact result lists (order, scores, paths, anchors, snippets), the
 * limits and bad input, and the index of a real Sphinx build when Sphinx
 * is installed.
 */
#include <sys/stat.h>

#include "docindex.h"
#include "harness.h"
#include "util.h"

static struct ui_docindex *load_path(const char *path)
{
	struct ui_docindex *idx = NULL;
	char err[256] = "";
	size_t len = 0;
	char *data = lec_test_read_file(path, &len);

	if (data == NULL)
		return NULL;
	if (ui_docindex_parse(data, len, &idx, err, sizeof(err)) != 0)
		FAIL_AT("%s: %s", path, err);
	free(data);
	return idx;
}

static struct ui_docindex *load(const char *fixture)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", LEC_UI_FIXTURES, fixture);
	return load_path(path);
}

/* The results as text, one line per result and per block:
 *   score title | path | href
 *     score type #id title=... role=... name=... content=... */
static char *dump(const struct ui_docindex_results *r)
{
	struct ui_buf b = UI_BUF_INIT;
	size_t i, j;

	for (i = 0; i < r->len; i++) {
		const struct ui_docindex_result *x = &r->items[i];

		ui_buf_printf(&b, "%d %s | %s | %s\n", x->score, x->title,
			      x->path, x->href);
		for (j = 0; j < x->nblocks; j++) {
			const struct ui_docindex_block *k = &x->blocks[j];

			ui_buf_printf(&b, "  %d %s #%s", k->score, k->type, k->id);
			if (k->title)
				ui_buf_printf(&b, " title=%s", k->title);
			if (k->role)
				ui_buf_printf(&b, " role=%s", k->role);
			if (k->name)
				ui_buf_printf(&b, " name=%s", k->name);
			if (k->content)
				ui_buf_printf(&b, " content=%s", k->content);
			ui_buf_puts(&b, "\n");
		}
	}
	return ui_buf_take(&b);
}

static void check_search_at(const char *file, int line,
			    const struct ui_docindex *idx, const char *query,
			    size_t limit, const char *expect)
{
	struct ui_docindex_results r;
	size_t n;
	char *got;

	if (idx == NULL)
		return;
	n = ui_docindex_search(idx, query, limit, &r);
	got = dump(&r);
	if (n != r.len || strcmp(got, expect) != 0) {
		fprintf(stderr, "  %s:%d: search \"%s\" gave (%zu)\n%s"
				"  expected\n%s",
			file, line, query, n, got, expect);
		lec_test_failures++;
	}
	free(got);
	ui_docindex_results_dispose(&r);
	CHECK(r.items == NULL && r.len == 0);
}

#define CHECK_SEARCH(idx, query, expect) \
	check_search_at(__FILE__, __LINE__, idx, query, 0, expect)
#define CHECK_SEARCH_LIMIT(idx, query, limit, expect) \
	check_search_at(__FILE__, __LINE__, idx, query, limit, expect)

TEST(sphinx_words_titles_and_sections)
{
	struct ui_docindex *idx = load("searchindex.js");

	if (idx == NULL)
		return;
	CHECK_INT(ui_docindex_format(idx), UI_DOCINDEX_SPHINX);
	/* A title term outranks a text term; a section title adds a block
	 * whose anchor the result opens at. */
	CHECK_SEARCH(idx, "reader",
		     "30 Using the reader | usage.html | usage.html#using-the-reader\n"
		     "  15 section #using-the-reader title=Using the reader\n"
		     "5 Lectern | index.html | index.html\n");
	/* "install" finds the stem "instal" (title term on index). */
	CHECK_SEARCH(idx, "Install",
		     "22 Lectern | index.html | index.html#installing\n"
		     "  15 section #installing title=Installing\n"
		     "2 Using the reader | usage.html | usage.html\n");
	/* Equal scores: by title. */
	CHECK_SEARCH(idx, "build",
		     "5 API reference | api.html | api.html\n"
		     "5 Lectern | index.html | index.html\n"
		     "5 Using the reader | usage.html | usage.html\n");
	CHECK_SEARCH_LIMIT(idx, "build", 2,
			   "5 API reference | api.html | api.html\n"
			   "5 Lectern | index.html | index.html\n");
	/* AND: every word must match. */
	CHECK_SEARCH(idx, "scroll pages",
		     "32 Using the reader | usage.html | usage.html#scrolling-pages\n"
		     "  15 section #scrolling-pages title=Scrolling pages\n");
	CHECK_SEARCH(idx, "reader keys", "");
	/* Prefixes: "conf" begins "configur". */
	CHECK_SEARCH(idx, "conf",
		     "2 Lectern | index.html | index.html\n"
		     "2 Using the reader | usage.html | usage.html\n");
	CHECK_SEARCH(idx, "", "");
	CHECK_SEARCH(idx, " -- !! ", "");
	CHECK_SEARCH(idx, "zzz", "");
	ui_docindex_free(idx);
	ui_docindex_free(NULL);
}

TEST(sphinx_objects)
{
	struct ui_docindex *idx = load("searchindex.js");

	if (idx == NULL)
		return;
	/* Anchor "" is the full name; the priority adds its weight. */
	CHECK_SEARCH(idx, "widget",
		     "21 API reference | api.html | api.html#lectern.Widget\n"
		     "  16 domain #lectern.Widget role=py:class name=lectern.Widget\n");
	CHECK_SEARCH(idx, "lectern widget",
		     "21 API reference | api.html | api.html#lectern.Widget\n"
		     "  11 domain #lectern.Widget role=py:class name=lectern.Widget\n");
	/* Anchor "-" is "<object type>-<full name>"; a stem does not match
	 * past an underscore. */
	CHECK_SEARCH(idx, "LECTERN_HOME",
		     "16 API reference | api.html | api.html#envvar-LECTERN_HOME\n"
		     "  16 domain #envvar-LECTERN_HOME role=std:envvar name=LECTERN_HOME\n");
	/* An explicit anchor; unimportant priority (2) subtracts. */
	CHECK_SEARCH(idx, "render_internal",
		     "6 API reference | api.html | api.html#lectern.render_internal\n"
		     "  6 domain #lectern.render_internal role=py:function name=lectern.render_internal\n");
	ui_docindex_free(idx);
}

/* Sphinx before 5.2 wrote JavaScript with bare keys and objects keyed by
 * name. */
TEST(sphinx_old_format)
{
	struct ui_docindex *idx = load("searchindex_sphinx4.js");

	if (idx == NULL)
		return;
	CHECK_SEARCH(idx, "compute",
		     "18 Tiny | index.html | index.html#mod.compute\n"
		     "  16 domain #mod.compute role=py:function name=mod.compute\n");
	CHECK_SEARCH(idx, "things", "2 Tiny | index.html | index.html\n");
	/* The documented limit: "tiny" is stemmed "tini", not a prefix. */
	CHECK_SEARCH(idx, "tiny", "");
	ui_docindex_free(idx);
}

TEST(mkdocs_sections_and_snippets)
{
	struct ui_docindex *idx = load("search_index.json");

	if (idx == NULL)
		return;
	CHECK_INT(ui_docindex_format(idx), UI_DOCINDEX_MKDOCS);
	CHECK_SEARCH(idx, "reader",
		     "15 Reader | reader/ | reader/#reader\n"
		     "  15 section #reader title=Reader content=The reader shows built pages in a terminal, with numbered links and boxed notes.\n"
		     "  5 section #keys title=Keys content=Press q to quit; the reader keeps its place when you return to a page you have read before, even after a restart of the whole program, which is handy when…\n");
	/* A hit deep in long text: the snippet starts near it, cut at a
	 * space, not inside "café". */
	CHECK_SEARCH(idx, "wifi",
		     "5 Reader | reader/ | reader/#keys\n"
		     "  5 section #keys title=Keys content=…manuals over slow connections — café wifi included.\n");
	CHECK_SEARCH(idx, "CAFÉ", "");
	CHECK_SEARCH(idx, "café",
		     "5 Reader | reader/ | reader/#keys\n"
		     "  5 section #keys title=Keys content=…long manuals over slow connections — café wifi included.\n");
	/* The root page's path is "". */
	CHECK_SEARCH(idx, "lectern install",
		     "20 Lectern |  | #lectern\n"
		     "  20 section #lectern title=Lectern content=Lectern hosts documentation. Install it with one command.\n");
	CHECK_SEARCH(idx, "build",
		     "7 Lectern |  | #building\n"
		     "  7 section #building title=Building content=Every push builds the docs.\n");
	/* Words only found across sections: the page's own entry, as a
	 * block for the top of the page. */
	CHECK_SEARCH(idx, "install push",
		     "10 Lectern |  | \n"
		     "  10 section # title=Lectern content=Lectern hosts documentation. Install it with one command. Building Every push builds the docs.\n");
	/* A page indexed by title only (no text). */
	CHECK_SEARCH(idx, "faq",
		     "15 FAQ | faq/ | faq/\n"
		     "  15 section # title=FAQ\n");
	CHECK_SEARCH(idx, "nothing", "");
	ui_docindex_free(idx);
}

TEST(bad_input)
{
	struct ui_docindex *idx = (struct ui_docindex *)&idx;
	char err[128] = "";
	static const char *const not_sphinx[] = {
		"Search.setIndex({\"docnames\": [\"a\"]})",
		"Search.setIndex({\"docnames\": [\"a\"], \"titles\": [], "
		"\"terms\": {}})",
		"Search.setIndex({\"docnames\": [1], \"titles\": [\"x\"], "
		"\"terms\": {}})",
		"Search.setIndex({\"docnames\": [\"a\"], \"titles\": [\"x\"], "
		"\"terms\": {}}",
		"Search.setIndex({docnames:[\"a\"],titles:[\"x\"],terms:{)",
	};
	static const char *const not_index[] = {
		"", "   ", "<html></html>", "{\"docs\": 3}", "[1, 2]",
		"{\"docs\": [{\"title\": \"no location\"}]}",
	};
	size_t i;

	for (i = 0; i < sizeof(not_sphinx) / sizeof(not_sphinx[0]); i++) {
		CHECK_INT(ui_docindex_parse(not_sphinx[i], strlen(not_sphinx[i]),
					    &idx, err, sizeof(err)),
			  -1);
		CHECK(idx == NULL);
		CHECK_STR(err, "not a Sphinx search index");
	}
	for (i = 0; i < sizeof(not_index) / sizeof(not_index[0]); i++) {
		CHECK_INT(ui_docindex_parse(not_index[i], strlen(not_index[i]),
					    &idx, err, sizeof(err)),
			  -1);
		CHECK_STR(err, "not a Sphinx or MkDocs search index");
	}
	CHECK_INT(ui_docindex_parse("{}", UI_DOCINDEX_MAX_BYTES + 1u, &idx, err,
				    sizeof(err)),
		  -1);
	CHECK_STR(err, "the search index is larger than 67108864 bytes");
	/* Out-of-range document numbers are ignored, not followed. */
	{
		const char *s = "\n Search.setIndex({\"docnames\": [\"a\"], "
				"\"titles\": [\"A\"], \"terms\": {\"word\": "
				"[0, 7, -1]}, \"alltitles\": {\"Word\": "
				"[[9, \"x\"]]}});\n";

		CHECK_INT(ui_docindex_parse(s, strlen(s), &idx, err,
					    sizeof(err)),
			  0);
		CHECK_SEARCH(idx, "word", "5 A | a.html | a.html\n");
		ui_docindex_free(idx);
	}
}

/* Many documents: the limit caps the results at UI_DOCINDEX_MAX_RESULTS. */
TEST(result_cap)
{
	struct ui_buf s = UI_BUF_INIT;
	struct ui_docindex_results r;
	struct ui_docindex *idx = NULL;
	char err[128];
	int i;

	ui_buf_puts(&s, "{\"docs\": [");
	for (i = 0; i < UI_DOCINDEX_MAX_RESULTS + 50; i++)
		ui_buf_printf(&s, "%s{\"location\": \"p%d/\", \"title\": \"P%d\", "
				  "\"text\": \"common words\"}",
			      i ? "," : "", i, i);
	ui_buf_puts(&s, "]}");
	CHECK_INT(ui_docindex_parse(s.ptr, s.len, &idx, err, sizeof(err)), 0);
	if (idx != NULL) {
		CHECK_INT(ui_docindex_search(idx, "common", 0, &r),
			  UI_DOCINDEX_MAX_RESULTS);
		CHECK_STR(r.items[0].title, "P0");
		CHECK_STR(r.items[1].title, "P1");
		ui_docindex_results_dispose(&r);
		CHECK_INT(ui_docindex_search(idx, "common", 1000, &r),
			  UI_DOCINDEX_MAX_RESULTS);
		ui_docindex_results_dispose(&r);
		CHECK_INT(ui_docindex_search(idx, "common", 3, &r), 3);
		ui_docindex_results_dispose(&r);
		ui_docindex_free(idx);
	}
	ui_buf_dispose(&s);
}

/* The site's page list (issue 43, item 7) as "TITLE PATH, ..."; owned. */
static char *pages_of(const struct ui_docindex *idx)
{
	struct ui_docindex_results list = { NULL, 0 };
	struct ui_buf got = UI_BUF_INIT;
	size_t i, n = ui_docindex_pages(idx, &list);

	for (i = 0; i < n; i++)
		ui_buf_printf(&got, "%s%s %s", i ? ", " : "",
			      list.items[i].title, list.items[i].path);
	ui_docindex_results_dispose(&list);
	return got.ptr ? ui_buf_take(&got) : ui_xstrdup("");
}

#define check_pages(idx, want)                                               \
	do {                                                                 \
		char *pages_ = pages_of(idx);                                \
		CHECK_STR(pages_, want);                                     \
		free(pages_);                                                \
	} while (0)

/* The index of a real Sphinx 5 build, when Sphinx is installed. */
TEST(real_sphinx_index)
{
	const char *dir = lec_test_tmpdir();
	char cmd[1024], path[512];
	struct ui_docindex *idx;
	FILE *f;

	if (system("/usr/bin/python3 -m sphinx --version >/dev/null 2>&1") != 0) {
		printf("  skipped: /usr/bin/python3 -m sphinx is not available\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/conf.py", dir);
	f = fopen(path, "w");
	fputs("project = 'Tiny'\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/index.rst", dir);
	f = fopen(path, "w");
	fputs("Tiny project\n============\n\n.. toctree::\n\n   usage\n\n"
	      "Welcome.\n\n.. py:function:: mod.compute(x)\n\n   Compute things.\n",
	      f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/usage.rst", dir);
	f = fopen(path, "w");
	fputs("Usage\n=====\n\nInstalling\n----------\n\nRun the installer.\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -m sphinx -q -b html %s %s/_build >/dev/null 2>&1",
		 dir, dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/_build/searchindex.js", dir);
	if ((idx = load_path(path)) == NULL)
		return;
	/* The stem "instal" is a title term of usage, and a term of index
	 * (its table of contents names the section). */
	CHECK_SEARCH(idx, "installing",
		     "22 Usage | usage.html | usage.html#installing\n"
		     "  15 section #installing title=Installing\n"
		     "2 Tiny project | index.html | index.html\n");
	CHECK_SEARCH(idx, "compute",
		     "18 Tiny project | index.html | index.html#mod.compute\n"
		     "  16 domain #mod.compute role=py:function name=mod.compute\n");
	check_pages(idx, "Tiny project index.html, Usage usage.html");
	ui_docindex_free(idx);
}

/* The index of a real MkDocs build, when MkDocs is installed. */
TEST(real_mkdocs_index)
{
	const char *dir = lec_test_tmpdir();
	char cmd[1024], path[512];
	struct ui_docindex *idx;
	FILE *f;

	if (system("mkdocs --version >/dev/null 2>&1") != 0) {
		printf("  skipped: mkdocs is not available\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/docs", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/mkdocs.yml", dir);
	f = fopen(path, "w");
	fputs("site_name: Tiny MK\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/docs/index.md", dir);
	f = fopen(path, "w");
	fputs("# Tiny MK\n\nIntro.\n\n## Setup\n\nInstall it first.\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/docs/other.md", dir);
	f = fopen(path, "w");
	fputs("# Other\n\nOther page.\n\n## Part two\n\nMore setup words.\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdocs build -q -d site >/dev/null 2>&1", dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/site/search/search_index.json", dir);
	if ((idx = load_path(path)) == NULL)
		return;
	CHECK_INT(ui_docindex_format(idx), UI_DOCINDEX_MKDOCS);
	CHECK_SEARCH(idx, "setup",
		     "15 Tiny MK |  | #setup\n"
		     "  15 section #setup title=Setup content=Install it first.\n"
		     "5 Other | other/ | other/#part-two\n"
		     "  5 section #part-two title=Part two content=More setup words.\n");
	/* The root's path is "": what the pages list resolves to "./". */
	check_pages(idx, "Tiny MK , Other other/");
	ui_docindex_free(idx);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_words_titles_and_sections),
	TEST_ENTRY(sphinx_objects),
	TEST_ENTRY(sphinx_old_format),
	TEST_ENTRY(mkdocs_sections_and_snippets),
	TEST_ENTRY(bad_input),
	TEST_ENTRY(result_cap),
	TEST_ENTRY(real_sphinx_index),
	TEST_ENTRY(real_mkdocs_index),
};

LEC_TEST_MAIN(tests)
