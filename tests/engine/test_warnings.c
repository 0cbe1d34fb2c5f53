/*
 * Build warnings: the generators' output read into records (Sphinx 5.3's
 * and MkDocs 1.4's real output, in every chunking; the lines a warning
 * quotes; status lines stuck before a warning; paths made relative to the
 * tree, or kept as given outside it), the Markdown builder's messages,
 * bounds (a million warnings, endless lines, binary junk and invalid
 * UTF-8 kept as safe text, secrets masked), the link check of published
 * HTML (pages, anchors, raw HTML, directories, what is not followed,
 * comments and scripts skipped), inventories and `removed`, comparing with
 * the last good build (moved lines, repeats, fixed; a failed build fixes
 * nothing), the store, and Sphinx's incremental builds: the phases of its
 * run followed, and the warnings of what it did not do again carried
 * over, exactly once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_warnings.h"
#include "files.h"
#include "harness.h"
#include "lectern/build.h"
#include "lectern/version.h"

/* Sphinx 5.3.0's output for a page with a toctree entry for a missing
 * page, an unknown directive, a failed autodoc import, an unknown label
 * and document, and an orphan, as `python -m sphinx -T -b html` writes it
 * into a pipe (stderr and stdout merged). */
static const char sphinx_output[] =
	"Running Sphinx v5.3.0\n"
	"making output directory... done\n"
	"building [mo]: targets for 0 po files that are out of date\n"
	"building [html]: targets for 3 source files that are out of date\n"
	"updating environment: [new config] 3 added, 0 changed, 0 removed\n"
	"reading sources... [ 33%] index\n"
	"reading sources... [ 66%] orphan\n"
	"reading sources... [100%] page\n"
	"\n"
	"/tree/docs/index.rst:4: WARNING: toctree contains reference to "
	"nonexisting document 'missing'\n"
	"/tree/docs/index.rst:11: ERROR: Unknown directive type \"foo\".\n"
	"\n"
	".. foo:: bar\n"
	"WARNING: autodoc: failed to import module 'nosuchmod'; the following "
	"exception was raised:\n"
	"No module named 'nosuchmod'\n"
	"/tree/docs/page.rst:9: WARNING: Inline emphasis start-string without "
	"end-string.\n"
	"looking for now-outdated files... none found\n"
	"pickling environment... done\n"
	"checking consistency... /tree/docs/orphan.rst: WARNING: document "
	"isn't included in any toctree\n"
	"done\n"
	"preparing documents... done\n"
	"writing output... [ 33%] index\n"
	"writing output... [ 66%] orphan\n"
	"writing output... [100%] page\n"
	"\n"
	"/tree/docs/index.rst:9: WARNING: undefined label: 'nolabel'\n"
	"/tree/docs/index.rst:9: WARNING: unknown document: 'nodoc'\n"
	"/elsewhere/lib/mod.py:docstring of mod.f:3: WARNING: Unexpected "
	"indentation.\n"
	"generating indices... genindex done\n"
	"writing additional pages... search done\n"
	"build succeeded, 8 warnings.\n"
	"\n"
	"The HTML pages are in ../out.\n";

/* MkDocs 1.4.2's, colours and all. */
static const char mkdocs_text[] =
	"INFO     -  Cleaning site directory\n"
	"INFO     -  The following pages exist in the docs directory, but are "
	"not included in the \"nav\" configuration:\n"
	"  - sub/a.md\n"
	"\x1b[33mWARNING  -  \x1b[0mA relative path to 'gone.md' is included "
	"in the 'nav' configuration, which is not found in the documentation "
	"files\n"
	"\x1b[33mWARNING  -  \x1b[0mDocumentation file 'index.md' contains a "
	"link to 'missing.md' which is not found in the documentation files.\n"
	"WARNING  -  Doc file 'sub/a.md' contains a link '../x.md', but the "
	"target is not found among documentation files.\n"
	"  continued here\n"
	"INFO     -  Documentation built in 0.05 seconds\n"
	"Error: Aborted with 3 warnings in strict mode!\n";

static void parse_in_chunks(enum lec__warn_format format, const char *text,
			    size_t chunk, struct lec_warning_set *set)
{
	struct lec__warn_parser p;
	size_t n = strlen(text), i;

	lec__warn_parser_init(&p, format, set, "/tree",
			      format == LEC__WARN_SPHINX ? "docs" : "docs",
			      format == LEC__WARN_SPHINX ? "docs/conf.py"
							 : "mkdocs.yml");
	for (i = 0; i < n; i += chunk)
		lec__warn_parser_feed(&p, text + i, n - i < chunk ? n - i : chunk);
	lec__warn_parser_end(&p);
	lec__warn_parser_dispose(&p);
}

static void check_record(const struct lec_warning_set *set, size_t i,
			 enum lec_warning_kind kind, const char *file,
			 unsigned line, const char *message)
{
	if (i >= set->len) {
		FAIL_AT("record %zu missing (%zu found)", i, set->len);
		return;
	}
	CHECK_INT(set->items[i].kind, kind);
	CHECK_STR(set->items[i].file, file);
	CHECK_INT(set->items[i].line, line);
	CHECK_STR(set->items[i].message, message);
}

static void check_sphinx_records(const struct lec_warning_set *set)
{
	CHECK_INT(set->len, 8);
	check_record(set, 0, LEC_WARNING_WARNING, "docs/index.rst", 4,
		     "toctree contains reference to nonexisting document "
		     "'missing'");
	/* The quoted source block follows the message. */
	check_record(set, 1, LEC_WARNING_ERROR, "docs/index.rst", 11,
		     "Unknown directive type \"foo\".\n\n.. foo:: bar");
	check_record(set, 2, LEC_WARNING_WARNING, "", 0,
		     "autodoc: failed to import module 'nosuchmod'; the "
		     "following exception was raised:\nNo module named "
		     "'nosuchmod'");
	check_record(set, 3, LEC_WARNING_WARNING, "docs/page.rst", 9,
		     "Inline emphasis start-string without end-string.");
	/* Behind the status line Sphinx wrote without its newline. */
	check_record(set, 4, LEC_WARNING_WARNING, "docs/orphan.rst", 0,
		     "document isn't included in any toctree");
	check_record(set, 5, LEC_WARNING_WARNING, "docs/index.rst", 9,
		     "undefined label: 'nolabel'");
	check_record(set, 6, LEC_WARNING_WARNING, "docs/index.rst", 9,
		     "unknown document: 'nodoc'");
	/* Outside the tree: as given; the docstring is no file line. */
	check_record(set, 7, LEC_WARNING_WARNING, "/elsewhere/lib/mod.py", 0,
		     "docstring of mod.f, line 3: Unexpected indentation.");
}

TEST(sphinx_output_in_any_chunks)
{
	static const size_t chunks[] = { 1, 2, 3, 7, 64, 100000 };
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct lec_warning_set set = { 0 };

		parse_in_chunks(LEC__WARN_SPHINX, sphinx_output, chunks[i], &set);
		check_sphinx_records(&set);
		lec_warning_set_dispose(&set);
	}
}

TEST(sphinx_fatal_and_treated_as_error)
{
	struct lec_warning_set set = { 0 };

	parse_in_chunks(LEC__WARN_SPHINX,
			"Warning, treated as error:\n"
			"/tree/docs/index.rst:4:toctree contains reference to "
			"nonexisting document 'x'\n"
			"\n"
			"Configuration error:\n"
			"There is a programmable error in your configuration "
			"file:\n"
			"\n"
			"Traceback (most recent call last):\n",
			5, &set);
	CHECK_INT(set.len, 2);
	check_record(&set, 0, LEC_WARNING_ERROR, "docs/index.rst", 4,
		     "toctree contains reference to nonexisting document 'x'");
	check_record(&set, 1, LEC_WARNING_ERROR, "docs/conf.py", 0,
		     "There is a programmable error in your configuration "
		     "file:");
	lec_warning_set_dispose(&set);
}

/* A traceback after a warning is its own record's only when the warning
 * announces it (autodoc's import failure); one after a blank line, or
 * after lines the warning quoted, is some other program's and is not
 * swallowed into the warning (issue 43, item 6). */
TEST(sphinx_traceback_after_a_warning)
{
	struct lec_warning_set set = { 0 };

	parse_in_chunks(LEC__WARN_SPHINX,
			"WARNING: failed to reach any of the inventories with "
			"the following issues:\n"
			"intersphinx inventory 'https://x.test/objects.inv' "
			"not fetchable\n"
			"Traceback (most recent call last):\n"
			"  File \"/usr/lib/x.py\", line 3, in <module>\n"
			"ValueError: unrelated\n"
			"/tree/docs/a.rst:2: WARNING: autodoc: failed to import "
			"module 'm'; the following exception was raised:\n"
			"Traceback (most recent call last):\n"
			"  File \"/tree/m.py\", line 1, in <module>\n"
			"ImportError: no m\n"
			"/tree/docs/b.rst:5: WARNING: Unknown target name: x\n"
			"\n"
			"Traceback (most recent call last):\n"
			"  File \"/usr/lib/y.py\", line 9, in run\n"
			"RuntimeError: also unrelated\n",
			4, &set);
	CHECK_INT(set.len, 3);
	check_record(&set, 0, LEC_WARNING_WARNING, "", 0,
		     "failed to reach any of the inventories with the "
		     "following issues:\nintersphinx inventory "
		     "'https://x.test/objects.inv' not fetchable");
	check_record(&set, 1, LEC_WARNING_WARNING, "docs/a.rst", 2,
		     "autodoc: failed to import module 'm'; the following "
		     "exception was raised:\nTraceback (most recent call "
		     "last):\n  File \"/tree/m.py\", line 1, in <module>\n"
		     "ImportError: no m");
	check_record(&set, 2, LEC_WARNING_WARNING, "docs/b.rst", 5,
		     "Unknown target name: x");
	lec_warning_set_dispose(&set);
}

TEST(mkdocs_output)
{
	struct lec_warning_set set = { 0 };

	parse_in_chunks(LEC__WARN_MKDOCS, mkdocs_text, 3, &set);
	CHECK_INT(set.len, 4);
	/* About the nav: the configuration file. */
	check_record(&set, 0, LEC_WARNING_WARNING, "mkdocs.yml", 0,
		     "A relative path to 'gone.md' is included in the 'nav' "
		     "configuration, which is not found in the documentation "
		     "files");
	/* The page it names, relative to docs_dir, made the tree's. */
	check_record(&set, 1, LEC_WARNING_WARNING, "docs/index.md", 0,
		     "Documentation file 'index.md' contains a link to "
		     "'missing.md' which is not found in the documentation "
		     "files.");
	check_record(&set, 2, LEC_WARNING_WARNING, "docs/sub/a.md", 0,
		     "Doc file 'sub/a.md' contains a link '../x.md', but the "
		     "target is not found among documentation files.\n"
		     "  continued here");
	check_record(&set, 3, LEC_WARNING_ERROR, "", 0,
		     "Aborted with 3 warnings in strict mode!");
	lec_warning_set_dispose(&set);
}

TEST(markdown_builder_messages)
{
	struct lec_warning_set set = { 0 };

	lec__warnings_markdown(&set, "docs",
			       "skipping guide/x.md: broken symbolic link");
	lec__warnings_markdown(&set, "docs",
			       "big.md is too large to render (over 8 MiB); "
			       "linked as a file");
	lec__warnings_markdown(&set, "docs", "not keeping state in /x: full");
	CHECK_INT(set.len, 2);
	check_record(&set, 0, LEC_WARNING_WARNING, "docs/guide/x.md", 0,
		     "skipping guide/x.md: broken symbolic link");
	check_record(&set, 1, LEC_WARNING_WARNING, "docs/big.md", 0,
		     "big.md is too large to render (over 8 MiB); linked as "
		     "a file");
	lec_warning_set_dispose(&set);
}

TEST(paths)
{
	char *r;

	r = lec__warn_relative("/tree", "docs", "/tree/docs/a.rst", 16);
	CHECK_STR(r, "docs/a.rst");
	lec__free(r);
	r = lec__warn_relative("/tree", "docs", "../README.md", 12);
	CHECK_STR(r, "README.md");
	lec__free(r);
	/* Climbing out, or elsewhere: as given, never opened. */
	r = lec__warn_relative("/tree", "docs", "../../etc/passwd", 16);
	CHECK_STR(r, "../../etc/passwd");
	lec__free(r);
	r = lec__warn_relative("/tree", "", "/treehouse/x.rst", 16);
	CHECK_STR(r, "/treehouse/x.rst");
	lec__free(r);
}

TEST(a_million_warnings_are_bounded)
{
	struct lec_warning_set set = { 0 };
	struct lec__warn_parser p;
	char line[64];
	long i;

	lec__warn_parser_init(&p, LEC__WARN_SPHINX, &set, "/tree", "", NULL);
	for (i = 0; i < 1000000; i++) {
		int n = snprintf(line, sizeof(line),
				 "/tree/p%ld.rst:%ld: WARNING: bad\n", i % 7, i);

		lec__warn_parser_feed(&p, line, (size_t)n);
	}
	lec__warn_parser_end(&p);
	lec__warn_parser_dispose(&p);
	CHECK_INT(set.len, LEC_WARNINGS_GENERATOR_MAX);
	CHECK_INT(set.dropped, 1000000 - LEC_WARNINGS_GENERATOR_MAX);
	/* The flood leaves room for the HTML's broken links. */
	CHECK_OK(lec_warning_set_add(&set, LEC_WARNING_LINK, "a.html", 1, "x"));
	CHECK_INT(set.len, LEC_WARNINGS_GENERATOR_MAX + 1);
	for (i = 0; i < 1000; i++)
		lec_warning_set_add(&set, LEC_WARNING_REMOVED, "b.html", 0, "y");
	CHECK_INT(set.len, LEC_WARNINGS_MAX);
	lec_warning_set_dispose(&set);
}

/* Valid UTF-8 without control characters. */
static int safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		int k;

		if (*p < 0x20 && *p != '\n')
			return 0;
		if (*p >= 0x80 && (*p < 0xc2 || *p > 0xf4))
			return 0;
		for (k = 1; k < n; k++)
			if ((p[k] & 0xc0) != 0x80)
				return 0;
		p += n;
	}
	return 1;
}

TEST(junk_is_kept_as_safe_text)
{
	struct lec_warning_set set = { 0 };
	struct lec__warn_parser p;
	static const char bad[] = "\n/tree/x.rst:1: WARNING: \xff\xfe"
				  "bad \x01\x1b[31mred\x1b[0m \xc3\x28 "
				  "caf\xc3\xa9\n";
	char junk[3 * LEC__WARN_LINE_MAX];
	size_t i;
	unsigned seed = 7;

	lec__warn_parser_init(&p, LEC__WARN_SPHINX, &set, "/tree", "", NULL);
	/* Binary junk, with warnings in it and an endless line. */
	for (i = 0; i < sizeof(junk); i++) {
		seed = seed * 1103515245u + 12345u;
		junk[i] = (char)(seed >> 16);
	}
	for (i = 0; i < 50; i++) {
		lec__warn_parser_feed(&p, junk, sizeof(junk));
		lec__warn_parser_feed(&p, bad, strlen(bad));
	}
	lec__warn_parser_end(&p);
	lec__warn_parser_dispose(&p);
	CHECK(set.len >= 50);
	for (i = 0; i < set.len; i++) {
		CHECK(safe(set.items[i].message));
		CHECK(safe(set.items[i].file));
		CHECK(strlen(set.items[i].message) <= LEC_WARNING_MESSAGE_MAX);
	}
	lec_warning_set_dispose(&set);
}

TEST(secrets_are_masked)
{
	static const char *const secrets[] = { "hunter2", NULL };
	struct lec_warning_set set = { 0 };

	set.secrets = secrets;
	CHECK_OK(lec_warning_set_add(&set, LEC_WARNING_WARNING, "x/hunter2.rst",
				     1, "could not fetch https://u:hunter2@h/"));
	CHECK(strstr(set.items[0].message, "hunter2") == NULL);
	CHECK(strstr(set.items[0].file, "hunter2") == NULL);
	lec_warning_set_dispose(&set);
}

/* intersphinx's unreachable inventory, as Sphinx 5 says it: the same
 * on every run once the address is gone. */
TEST(python_addresses_dropped)
{
	struct lec_warning_set set = { 0 };

	CHECK_OK(lec_warning_set_add(
		&set, LEC_WARNING_WARNING, "", 0,
		"intersphinx inventory 'https://h/objects.inv' not fetchable "
		"due to <class 'requests.exceptions.ConnectionError'>: "
		"(Caused by NewConnectionError('<urllib3.connection."
		"HTTPSConnection object at 0x7ff7b78d6c50>: Failed'))"));
	CHECK_OK(lec_warning_set_add(&set, LEC_WARNING_WARNING, "", 0,
				     "meet at 0x10 and at 0xbeef, <a at 0x>"));
	CHECK_STR(set.items[0].message,
		  "intersphinx inventory 'https://h/objects.inv' not fetchable "
		  "due to <class 'requests.exceptions.ConnectionError'>: "
		  "(Caused by NewConnectionError('<urllib3.connection."
		  "HTTPSConnection object>: Failed'))");
	CHECK_STR(set.items[1].message, "meet at 0x10 and at 0xbeef, <a at 0x>");
	lec_warning_set_dispose(&set);
}

TEST(compare_with_last_good)
{
	struct lec_warning_set prev = { 0 };
	struct lec_warning_set set = { 0 };
	size_t fixed = 99;

	lec_warning_set_add(&prev, LEC_WARNING_WARNING, "a.rst", 3, "same");
	lec_warning_set_add(&prev, LEC_WARNING_WARNING, "a.rst", 9, "twice");
	lec_warning_set_add(&prev, LEC_WARNING_WARNING, "a.rst", 12, "twice");
	lec_warning_set_add(&prev, LEC_WARNING_ERROR, "b.rst", 1, "fixed since");
	lec_warning_set_add(&prev, LEC_WARNING_WARNING, "", 0,
			    "not fetchable: <object at 0x7f4df1a84390>");
	/* What the build before lost is neither carried nor fixed. */
	lec_warning_set_add(&prev, LEC_WARNING_REMOVED, "old.html", 0,
			    "removed page old.html");
	/* Moved down by an edit above it: carried over. */
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 30, "same");
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 40, "twice");
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 41, "twice");
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 42, "twice");
	/* Same text, another kind: another warning. */
	lec_warning_set_add(&set, LEC_WARNING_ERROR, "a.rst", 3, "same");
	lec_warning_set_add(&set, LEC_WARNING_REMOVED, "old.html", 0,
			    "removed page old.html");
	/* Another run's address: the same warning. */
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "", 0,
			    "not fetchable: <object at 0x7f4df06cc550>");
	lec_warning_compare(&set, prev.items, prev.len, &fixed);
	CHECK_INT(set.items[0].is_new, 0);
	CHECK_INT(set.items[1].is_new, 0);
	CHECK_INT(set.items[2].is_new, 0);
	CHECK_INT(set.items[3].is_new, 1);
	CHECK_INT(set.items[4].is_new, 1);
	CHECK_INT(set.items[5].is_new, 1);
	CHECK_INT(set.items[6].is_new, 0);
	CHECK_INT(fixed, 1);
	CHECK(lec_warning_message_equal("a 0x7f4d0123 b", "a 0x55aa0102 b"));
	CHECK(!lec_warning_message_equal("code 0x1F", "code 0x2F"));
	lec_warning_set_dispose(&set);
	lec_warning_set_dispose(&prev);
}

/* Link check ---------------------------------------------------------------- */

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	CHECK_OK(lec__mkdirs(path));
	*slash = '/';
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static size_t count_kind(const struct lec_warning_set *set,
			 enum lec_warning_kind kind)
{
	size_t i, n = 0;

	for (i = 0; i < set->len; i++)
		n += set->items[i].kind == kind;
	return n;
}

static const struct lec_warning *find_message(const struct lec_warning_set *set,
					      const char *part)
{
	size_t i;

	for (i = 0; i < set->len; i++)
		if (strstr(set->items[i].message, part))
			return &set->items[i];
	return NULL;
}

static void make_site(const char *dir)
{
	write_file(dir, "index.html",
		   "<!DOCTYPE html><html><head>"
		   "<link rel=\"stylesheet\" href=\"_static/s.css\">"
		   "<link rel=\"stylesheet\" href=\"_static/gone.css\">"
		   "</head><body>\n"
		   "<h1 id=\"top-title\">T</h1>\n"
		   "<a href=\"guide/setup.html#linux\">ok</a>\n"
		   "<a href=\"guide/setup.html#windows\">no anchor</a>\n"
		   "<a href=\"guide/\">dir</a> <a href=\"guide\">dir bare</a>\n"
		   "<a href='missing.html'>missing</a>\n"
		   "<a href=\"missing.html\">missing again, same page</a>\n"
		   "<a href=\"#top-title\">self</a> <a href=\"#nope\">self no</a>\n"
		   "<a href=\"#\">top</a> <a href=\"#top\">top</a>\n"
		   "<a href=\"http://example.com/x.html\">ext</a>\n"
		   "<a href=\"mailto:a@b\">mail</a> <a href=\"//cdn/x\">cdn</a>\n"
		   "<a href=\"/en/latest/x.html\">absolute</a>\n"
		   "<a href=\"../../other/x.html\">other version</a>\n"
		   "<a href=\"my%20notes.html?x=1#caf%C3%A9\">encoded</a>\n"
		   "<a href=\"guide/setup.html#a&amp;b\">entity</a>\n"
		   "<!-- <a href=\"commented.html\">c</a> -->\n"
		   "<script>var s = '<a href=\"scripted.html\">';</script>\n"
		   "<A HREF=\"UPPER.html\">upper</A>\n"
		   "<img src=\"nothere.png\">\n"
		   "</body></html>\n");
	write_file(dir, "_static/s.css", "body{}");
	write_file(dir, "guide/index.html", "<p>guide</p>");
	write_file(dir, "guide/setup.html",
		   "<section id=\"linux\"><a name=\"a&amp;b\"></a>"
		   "<span id=\"index-3\"></span><span id=\"id7\"></span>"
		   "<a href=\"../index.html#top-title\">up</a>"
		   "<a href=\"./setup.html#linux\">self</a></section>");
	write_file(dir, "my notes.html", "<div id=\"café\">x</div>");
}

TEST(linkcheck_finds_broken_links)
{
	struct lec_warning_set set = { 0 };
	struct lec__linkcheck_stats stats;
	const char *dir = lec_test_tmpdir();
	const struct lec_warning *w;

	make_site(dir);
	CHECK_OK(lec__linkcheck(dir, &set, NULL, 0, NULL, NULL, &stats));
	CHECK_INT(stats.pages, 4);
	CHECK_INT(count_kind(&set, LEC_WARNING_LINK), set.len);
	w = find_message(&set, "'guide/setup.html#windows'");
	CHECK(w != NULL);
	if (w) {
		CHECK_STR(w->file, "index.html");
		CHECK_INT(w->line, 4);
		CHECK_STR(w->message, "broken link 'guide/setup.html#windows': "
				      "no anchor #windows in guide/setup.html");
	}
	w = find_message(&set, "'missing.html'");
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->line, 6);
		CHECK_STR(w->message, "broken link 'missing.html': no file "
				      "missing.html in the output");
	}
	CHECK(find_message(&set, "'_static/gone.css'") != NULL);
	CHECK(find_message(&set, "'#nope'") != NULL);
	CHECK(find_message(&set, "'UPPER.html'") != NULL);
	/* Everything else passes, once each. */
	CHECK(find_message(&set, "commented") == NULL);
	CHECK(find_message(&set, "scripted") == NULL);
	CHECK(find_message(&set, "nothere") == NULL);
	CHECK_INT(set.len, 5);
	lec_warning_set_dispose(&set);
}

TEST(inventory_and_removed)
{
	struct lec_warning_set set = { 0 }, again = { 0 };
	const char *dir = lec_test_tmpdir();
	char *inv = NULL, *inv2 = NULL, path[1024];
	size_t len = 0, len2 = 0;
	struct lec__linkcheck_stats stats;

	make_site(dir);
	CHECK_OK(lec__linkcheck(dir, &set, NULL, 0, &inv, &len, NULL));
	CHECK(inv != NULL);
	if (inv == NULL)
		return;
	CHECK(strstr(inv, "guide/setup.html#linux\n") != NULL);
	CHECK(strstr(inv, "my notes.html#café\n") != NULL);
	/* Numbered anchors are left out. */
	CHECK(strstr(inv, "index-3") == NULL);
	CHECK(strstr(inv, "#id7") == NULL);
	/* The same output again: nothing removed. */
	CHECK_OK(lec__linkcheck(dir, &again, inv, len, NULL, NULL, &stats));
	CHECK_INT(stats.removed, 0);
	lec_warning_set_dispose(&again);
	/* A page gone, and an anchor of a page still there. */
	snprintf(path, sizeof(path), "%s/my notes.html", dir);
	unlink(path);
	write_file(dir, "guide/setup.html", "<section id=\"mac\"></section>");
	CHECK_OK(lec__linkcheck(dir, &again, inv, len, &inv2, &len2, &stats));
	CHECK_INT(stats.removed, 3);
	CHECK(find_message(&again, "removed page my notes.html") != NULL);
	CHECK(find_message(&again, "removed anchor #linux of guide/setup.html") !=
	      NULL);
	CHECK(find_message(&again, "removed anchor #a&b of guide/setup.html") !=
	      NULL);
	/* Not the page's anchors too. */
	CHECK(find_message(&again, "#café") == NULL);
	CHECK_INT(count_kind(&again, LEC_WARNING_REMOVED), 3);
	lec__free(inv);
	lec__free(inv2);
	lec_warning_set_dispose(&set);
	lec_warning_set_dispose(&again);
}

TEST(linkcheck_hostile_pages)
{
	static const char *const pages[] = {
		"<", "<a", "<a href", "<a href=", "<a href=\"", "<!--", "<![CDATA[",
		"<script>", "<a href=\"#x", "<a href=\"&#xFFFFFFFFFF;\">",
		"<a href=\"%\">", "<a href=\"../../../../x\">", "<base href=\"http://x/\"><a href=\"y\">",
		"<a id=\"\" name=\"\" href=\"#\">", "<a href=\"&#0;\">",
	};
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		struct lec_warning_set set = { 0 };

		CHECK_OK(lec__linkcheck_page(pages[i], strlen(pages[i]), "p.html",
					     &set, NULL));
		lec_warning_set_dispose(&set);
	}
}

/* The store ----------------------------------------------------------------- */

static int64_t finished_build(struct lec_store *st, int64_t project,
			      int64_t version, int success)
{
	struct lec_build *b = NULL;
	int64_t id = 0;

	CHECK_OK(lec_build_trigger(st, project, version, NULL, &b, NULL));
	if (b)
		id = b->id;
	lec_build_free(b);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	CHECK_OK(lec_build_finish(st, id, success, success ? NULL : "failed"));
	return id;
}

TEST(store_compares_with_last_good_build)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p"), b1, b2, b3;
	struct lec_version *v = NULL;
	struct lec_warning_set set = { 0 };
	struct lec_warning_summary sum;
	struct lec_warning_list list = { 0 };
	struct lec_warning_filter only_new = { 1 };
	char *inv = NULL;
	size_t len = 0;

	CHECK_OK(lec_version_create(st, p, "latest", "latest",
				    LEC_VERSION_BRANCH, 1, &v));
	b1 = finished_build(st, p, v->id, 1);
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 1, "old one");
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 2, "stays");
	CHECK_OK(lec_warning_store(st, b1, &set, 1));
	lec_warning_set_dispose(&set);
	CHECK_OK(lec_warning_inventory_save(st, b1, "a.html\n", 7));
	/* A failed build between: not what the next compares with. */
	b2 = finished_build(st, p, v->id, 0);
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "x.rst", 1, "failed");
	CHECK_OK(lec_warning_store(st, b2, &set, 0));
	lec_warning_set_dispose(&set);
	/* It may have stopped before reading everything: nothing fixed. */
	CHECK_OK(lec_warning_summary_get(st, b2, &sum));
	CHECK_INT(sum.new_count, 1);
	CHECK_INT(sum.fixed, 0);
	b3 = finished_build(st, p, v->id, 1);
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "a.rst", 7, "stays");
	lec_warning_set_add(&set, LEC_WARNING_LINK, "a.html", 3, "broken");
	set.dropped = 5;
	CHECK_OK(lec_warning_store(st, b3, &set, 1));
	lec_warning_set_dispose(&set);
	CHECK_OK(lec_warning_summary_get(st, b3, &sum));
	CHECK_INT(sum.count, 7);
	CHECK_INT(sum.new_count, 1);
	CHECK_INT(sum.fixed, 1);
	CHECK_INT(sum.dropped, 5);
	/* New ones first. */
	CHECK_OK(lec_warning_list(st, b3, NULL, NULL, &list));
	CHECK_INT(list.len, 2);
	if (list.len == 2) {
		CHECK_STR(list.items[0].message, "broken");
		CHECK_INT(list.items[0].kind, LEC_WARNING_LINK);
		CHECK_INT(list.items[0].is_new, 1);
		CHECK_INT(list.items[1].line, 7);
	}
	lec_warning_list_dispose(&list);
	CHECK_OK(lec_warning_list(st, b3, &only_new, NULL, &list));
	CHECK_INT(list.total, 1);
	lec_warning_list_dispose(&list);
	CHECK_ERR(lec_warning_summary_get(st, 9999, &sum), LEC_ENOTFOUND);
	/* The inventory of the last good build before b3 is b1's. */
	CHECK_OK(lec_warning_inventory_get(st, v->id, b3, &inv, &len));
	CHECK_STR(inv, "a.html\n");
	lec_warning_text_free(inv);
	CHECK_OK(lec_warning_inventory_save(st, b3, "b.html\n", 7));
	CHECK_OK(lec_warning_inventory_get(st, v->id, 0, &inv, &len));
	CHECK_STR(inv, "b.html\n");
	lec_warning_text_free(inv);
	CHECK_OK(lec_warning_inventory_get(st, v->id, b3, &inv, &len));
	CHECK(inv == NULL);
	(void)b2;
	lec_version_free(v);
	lec_store_free(st);
}

/* text with every "/tree" replaced by root. Owned. */
static char *at_root(const char *text, const char *root)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *at;

	while ((at = strstr(text, "/tree")) != NULL) {
		lec__buf_putn(&b, text, (size_t)(at - text));
		lec__buf_puts(&b, root);
		text = at + 5;
	}
	lec__buf_puts(&b, text);
	return lec__buf_take(&b);
}

/* Sphinx's output (with "/tree" for root) read into set, its run in
 * trace. */
static void sphinx_parse(const char *root, const char *text,
			 struct lec_warning_set *set,
			 struct lec__sphinx_trace *trace)
{
	struct lec__warn_parser p;
	char *out = at_root(text, root);

	lec__warn_parser_init(&p, LEC__WARN_SPHINX, set, root, "docs",
			      "docs/conf.py");
	p.trace = trace;
	lec__warn_parser_feed(&p, out, strlen(out));
	lec__warn_parser_end(&p);
	lec__warn_parser_dispose(&p);
	lec__free(out);
}

static size_t count_message(const struct lec_warning_set *set,
			    const char *message)
{
	size_t i, n = 0;

	for (i = 0; i < set->len; i++)
		n += strstr(set->items[i].message, message) != NULL;
	return n;
}

TEST(sphinx_trace_follows_the_phases)
{
	struct lec_warning_set set = { 0 };
	struct lec__sphinx_trace t = { 0 };

	sphinx_parse("/tree", sphinx_output, &set, &t);
	CHECK_INT(set.len, 8);
	CHECK_INT(t.read.len, 3);
	CHECK_INT(t.written.len, 3);
	if (t.read.len == 3 && t.written.len == 3) {
		CHECK_STR(t.read.items[0], "index");
		CHECK_STR(t.written.items[2], "page");
	}
	CHECK_INT(t.moved, 1);
	if (set.len == 8) {
		CHECK_INT(set.items[0].phase, LEC__PHASE_READ);
		CHECK_INT(set.items[2].phase, LEC__PHASE_READ);
		CHECK_INT(set.items[4].phase, LEC__PHASE_CONSISTENCY);
		CHECK_INT(set.items[5].phase, LEC__PHASE_WRITE);
		CHECK_INT(set.items[7].phase, LEC__PHASE_WRITE);
	}
	CHECK(t.ran & (1u << LEC__PHASE_FINISH));
	lec__sphinx_trace_dispose(&t);
	lec_warning_set_dispose(&set);
}

/* The same project's second run after page.rst changed: Sphinx reads and
 * writes page alone, checks consistency, finishes. */
static const char sphinx_page_again[] =
	"Running Sphinx v5.3.0\n"
	"loading pickled environment... done\n"
	"building [mo]: targets for 0 po files that are out of date\n"
	"building [html]: targets for 1 source files that are out of date\n"
	"updating environment: 0 added, 1 changed, 0 removed\n"
	"reading sources... [100%] page\n"
	"\n"
	"WARNING: autodoc: failed to import module 'other'; the following "
	"exception was raised:\n"
	"No module named 'other'\n"
	"looking for now-outdated files... none found\n"
	"pickling environment... done\n"
	"checking consistency... /tree/docs/orphan.rst: WARNING: document "
	"isn't included in any toctree\n"
	"done\n"
	"preparing documents... done\n"
	"writing output... [100%] page\n"
	"\n"
	"generating indices... genindex done\n"
	"build succeeded, 2 warnings.\n";

/* Nothing changed: Sphinx reads nothing and writes nothing. */
static const char sphinx_nothing[] =
	"Running Sphinx v5.3.0\n"
	"loading pickled environment... done\n"
	"building [mo]: targets for 0 po files that are out of date\n"
	"building [html]: targets for 0 source files that are out of date\n"
	"updating environment: 0 added, 0 changed, 0 removed\n"
	"looking for now-outdated files... none found\n"
	"no targets are out of date.\n"
	"build succeeded.\n";

TEST(sphinx_carries_what_it_did_not_say_again)
{
	const char *root = lec_test_tmpdir();
	char doctrees[1024], html[1024], kept[1024];
	struct lec_warning_set set = { 0 };
	struct lec__sphinx_trace t = { 0 };
	struct lec__sphinx_kept first = { 0 }, second = { 0 }, third = { 0 };
	struct lec__sphinx_kept loaded = { 0 };
	struct lec__sphinx_run run = { 0 };

	write_file(root, "docs/index.rst", "Index\n=====\n");
	write_file(root, "docs/orphan.rst", "Orphan\n======\n");
	write_file(root, "docs/page.rst",
		   "Page\n====\n\n.. automodule:: nosuchmod\n");
	snprintf(doctrees, sizeof(doctrees), "%s/doctrees", root);
	snprintf(html, sizeof(html), "%s/html", root);
	snprintf(kept, sizeof(kept), "%s/kept.json", root);
	run.root = root;
	run.srcdir = "docs";
	run.doctrees = doctrees;
	run.html = html;
	/* The first run: every record its document's; the autodoc one,
	 * without a file, tied to the page that names the module. */
	sphinx_parse(root, sphinx_output, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, NULL, &run, &first));
	CHECK_INT(set.len, 8);
	CHECK_INT(first.records.len, 8);
	if (first.records.len == 8) {
		CHECK_STR(first.records.items[0].doc, "index");
		CHECK_STR(first.records.items[2].doc, "page");
		CHECK(first.records.items[4].doc == NULL);
		/* The docstring's module is no document: page is the one
		 * that names a module "mod". */
		CHECK_STR(first.records.items[7].doc, "page");
	}
	CHECK_INT(first.reread.len, 0);
	CHECK_INT(first.rewrite.len, 0);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);
	CHECK_OK(lec__sphinx_kept_save(&first, kept));
	CHECK_OK(lec__sphinx_kept_load(kept, &loaded));
	CHECK_INT(loaded.records.len, 8);
	if (loaded.records.len == 8) {
		CHECK_STR(loaded.records.items[7].doc, "page");
		CHECK_INT(loaded.records.items[1].line, 11);
	}
	/* The second run read page alone: index's records come back with
	 * their lines, page's old autodoc one goes (Sphinx said another),
	 * consistency is this run's, and what writing found about index
	 * stays (index was not written). */
	sphinx_parse(root, sphinx_page_again, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, &loaded, &run, &second));
	CHECK_INT(count_message(&set, "nosuchmod"), 0);
	CHECK_INT(count_message(&set, "'other'"), 1);
	CHECK_INT(count_message(&set, "isn't included"), 1);
	CHECK_INT(count_message(&set, "nonexisting document"), 1);
	CHECK_INT(count_message(&set, "Unknown directive"), 1);
	CHECK_INT(count_message(&set, "undefined label"), 1);
	CHECK_INT(count_message(&set, "Inline emphasis"), 0);
	CHECK_INT(set.len, 6);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);

	/* The autodoc record names nothing in page: page is read again
	 * next time, so that Sphinx says it again. */
	CHECK_INT(second.reread.len, 1);
	if (second.reread.len == 1)
		CHECK_STR(second.reread.items[0], "page");
	write_file(doctrees, "page.doctree", "x");
	write_file(doctrees, "index.doctree", "x");
	lec__sphinx_force(&second, &run);
	{
		char path[1200];

		snprintf(path, sizeof(path), "%s/page.doctree", doctrees);
		CHECK(access(path, F_OK) != 0);
		snprintf(path, sizeof(path), "%s/index.doctree", doctrees);
		CHECK(access(path, F_OK) == 0);
	}

	/* Nothing done: the consistency check's record stays, once; a page
	 * deleted takes its records with it. */
	snprintf(kept, sizeof(kept), "%s/docs/index.rst", root);
	CHECK(unlink(kept) == 0);
	sphinx_parse(root, sphinx_nothing, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, &second, &run, &third));
	CHECK_INT(count_message(&set, "isn't included"), 1);
	CHECK_INT(count_message(&set, "nonexisting document"), 0);
	CHECK_INT(count_message(&set, "undefined label"), 0);
	CHECK_INT(set.len, 1);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);
	/* The orphan removed alone: Sphinx checks no consistency, and its
	 * record goes with it. */
	snprintf(kept, sizeof(kept), "%s/docs/orphan.rst", root);
	CHECK(unlink(kept) == 0);
	lec__sphinx_kept_dispose(&second);
	second = third;
	memset(&third, 0, sizeof(third));
	sphinx_parse(root, sphinx_nothing, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, &second, &run, &third));
	CHECK_INT(set.len, 0);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);

	/* Output it does not know: nothing carried, nothing kept. */
	lec_warning_set_add(&set, LEC_WARNING_WARNING, "", 0, "odd");
	CHECK_ERR(lec__sphinx_carry(&set, &t, &second, &run, &loaded),
		  LEC_ERROR);
	CHECK_INT(set.len, 1);
	lec_warning_set_dispose(&set);
	lec__sphinx_kept_dispose(&first);
	lec__sphinx_kept_dispose(&second);
	lec__sphinx_kept_dispose(&third);
	lec__sphinx_kept_dispose(&loaded);
}

/* Writing three pages, each with the navigation's toctree entry that has
 * no title: the same record three times, at index's line. */
static const char sphinx_navigation[] =
	"Running Sphinx v5.3.0\n"
	"updating environment: [new config] 3 added, 0 changed, 0 removed\n"
	"reading sources... [ 33%] a\n"
	"reading sources... [ 66%] b\n"
	"reading sources... [100%] index\n"
	"\n"
	"looking for now-outdated files... none found\n"
	"pickling environment... done\n"
	"checking consistency... done\n"
	"preparing documents... done\n"
	"writing output... [ 33%] a\n"
	"writing output... [ 66%] b\n"
	"writing output... [100%] index\n"
	"\n"
	"/tree/docs/index.rst:5: WARNING: toctree contains reference to "
	"document 'x' that doesn't have a title: no link will be generated\n"
	"/tree/docs/index.rst:5: WARNING: toctree contains reference to "
	"document 'x' that doesn't have a title: no link will be generated\n"
	"/tree/docs/index.rst:5: WARNING: toctree contains reference to "
	"document 'x' that doesn't have a title: no link will be generated\n"
	"generating indices... genindex done\n"
	"build succeeded, 3 warnings.\n";

/* Then b alone is written again. */
static const char sphinx_navigation_b[] =
	"Running Sphinx v5.3.0\n"
	"updating environment: 0 added, 1 changed, 0 removed\n"
	"reading sources... [100%] b\n"
	"\n"
	"looking for now-outdated files... none found\n"
	"pickling environment... done\n"
	"checking consistency... done\n"
	"preparing documents... done\n"
	"writing output... [100%] b\n"
	"\n"
	"/tree/docs/index.rst:5: WARNING: toctree contains reference to "
	"document 'x' that doesn't have a title: no link will be generated\n"
	"generating indices... genindex done\n"
	"build succeeded, 1 warning.\n";

TEST(sphinx_record_once_per_page_is_each_pages)
{
	const char *root = lec_test_tmpdir();
	char doctrees[1024];
	struct lec_warning_set set = { 0 };
	struct lec__sphinx_trace t = { 0 };
	struct lec__sphinx_kept first = { 0 }, second = { 0 };
	struct lec__sphinx_run run = { 0 };
	static const char *const pages[] = { "a", "b", "index" };
	size_t i;

	write_file(root, "docs/index.rst", "Index\n=====\n");
	write_file(root, "docs/a.rst", "A\n=\n");
	write_file(root, "docs/b.rst", "B\n=\n");
	snprintf(doctrees, sizeof(doctrees), "%s/doctrees", root);
	run.root = root;
	run.srcdir = "docs";
	run.doctrees = doctrees;
	sphinx_parse(root, sphinx_navigation, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, NULL, &run, &first));
	CHECK_INT(first.records.len, 3);
	for (i = 0; i < first.records.len && i < 3; i++)
		CHECK_STR(first.records.items[i].doc, pages[i]);
	CHECK_INT(first.rewrite.len, 0);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);
	/* b's is said again; a's and index's stay: three, as before. */
	sphinx_parse(root, sphinx_navigation_b, &set, &t);
	CHECK_OK(lec__sphinx_carry(&set, &t, &first, &run, &second));
	CHECK_INT(set.len, 3);
	CHECK_INT(count_message(&set, "doesn't have a title"), 3);
	lec_warning_set_dispose(&set);
	lec__sphinx_trace_dispose(&t);
	lec__sphinx_kept_dispose(&first);
	lec__sphinx_kept_dispose(&second);
}

TEST(sphinx_kept_state_refused_when_not_whole)
{
	const char *root = lec_test_tmpdir();
	char path[1024];
	struct lec__sphinx_kept k = { 0 };

	snprintf(path, sizeof(path), "%s/k.json", root);
	CHECK_INT(lec__sphinx_kept_load(path, &k), LEC_ENOTFOUND);
	write_file(root, "k.json", "{\"records\": []}");
	CHECK_INT(lec__sphinx_kept_load(path, &k), LEC_EINVALID);
	/* Records dropped past the cap cannot be carried. */
	write_file(root, "k.json", "{\"format\": 1, \"dropped\": 3, "
				   "\"records\": [], \"reread\": [], "
				   "\"rewrite\": []}");
	CHECK_INT(lec__sphinx_kept_load(path, &k), LEC_EINVALID);
	/* A document that climbs out of the tree is refused. */
	write_file(root, "k.json", "{\"format\": 1, \"dropped\": 0, "
				   "\"records\": [], \"reread\": [\"../x\"], "
				   "\"rewrite\": []}");
	CHECK_INT(lec__sphinx_kept_load(path, &k), LEC_EINVALID);
	write_file(root, "k.json", "{\"format\": 1, \"dropped\": 0, "
				   "\"records\": [], \"reread\": [\"a/b\"], "
				   "\"rewrite\": []}");
	CHECK_OK(lec__sphinx_kept_load(path, &k));
	CHECK_INT(k.reread.len, 1);
	lec__sphinx_kept_dispose(&k);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_output_in_any_chunks),
	TEST_ENTRY(sphinx_fatal_and_treated_as_error),
	TEST_ENTRY(sphinx_traceback_after_a_warning),
	TEST_ENTRY(mkdocs_output),
	TEST_ENTRY(markdown_builder_messages),
	TEST_ENTRY(paths),
	TEST_ENTRY(a_million_warnings_are_bounded),
	TEST_ENTRY(junk_is_kept_as_safe_text),
	TEST_ENTRY(secrets_are_masked),
	TEST_ENTRY(python_addresses_dropped),
	TEST_ENTRY(compare_with_last_good),
	TEST_ENTRY(linkcheck_finds_broken_links),
	TEST_ENTRY(inventory_and_removed),
	TEST_ENTRY(linkcheck_hostile_pages),
	TEST_ENTRY(store_compares_with_last_good_build),
	TEST_ENTRY(sphinx_trace_follows_the_phases),
	TEST_ENTRY(sphinx_carries_what_it_did_not_say_again),
	TEST_ENTRY(sphinx_record_once_per_page_is_each_pages),
	TEST_ENTRY(sphinx_kept_state_refused_when_not_whole),
};

LEC_TEST_MAIN(tests)
