/*
 * The Markdown site generator: one page per .md file at the right path, the
 * index rules, navigation and previous/next (checked by parsing the pages
 * with libxml2's HTML parser and following every link), heading ids and
 * their duplicates, link rewriting, copied assets, symbolic links that try
 * to leave the tree, broken UTF-8, an empty tree, the error cases, and
 * out-of-memory at every allocation. Incremental builds: after each edit of
 * a sequence (and with the state damaged every way we know), a build with
 * state into an empty directory writes the very tree a build without state
 * writes, rendering only the pages expected; and the manifest's parser.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/mdsite.h"
#include "files.h"
#include "mdsite_internal.h"

/* Helpers ----------------------------------------------------------------- */

/* How a heading's text ends in the HTML: its section link follows. */
#define HEADING(text) ">" text "<a class=\"headerlink\""
#define DASH " \xE2\x80\x94 " /* between page and site in <title> */
#define FFFD "\xEF\xBF\xBD"   /* U+FFFD, the replacement character */

/* snprintf for paths and messages: a cut result is as good as a failure
 * here, and a wrapper keeps -Wformat-truncation quiet about it. */
static void pathf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static char warnings[8192];

static void collect_warning(const char *message, void *payload)
{
	size_t n = strlen(warnings);

	(*(int *)payload)++;
	pathf(warnings + n, sizeof(warnings) - n, "%s\n", message);
}

static int nwarnings;

static int warned(const char *text)
{
	return strstr(warnings, text) != NULL;
}

/* Build with warnings collected into `warnings`, keeping state in `state`
 * (NULL: none). */
static int build_kept(const char *src, const char *out, const char *title,
		      const char *state, struct lec_mdsite_stats *stats)
{
	struct lec_mdsite_options opts = LEC_MDSITE_OPTIONS_INIT;

	warnings[0] = '\0';
	nwarnings = 0;
	opts.title = title;
	opts.warn = collect_warning;
	opts.warn_payload = &nwarnings;
	opts.state_dir = state;
	return lec_mdsite_build(src, out, &opts, stats);
}

static int build(const char *src, const char *out, const char *title,
		 struct lec_mdsite_stats *stats)
{
	return build_kept(src, out, title, NULL, stats);
}

static void mkdirs(const char *path)
{
	char buf[4096];
	size_t i, n = strlen(path);

	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];

			buf[i] = '\0';
			mkdir(buf, 0755);
			buf[i] = c;
		}
	}
}

static void put_bytes(const char *dir, const char *rel, const char *data,
		      size_t len)
{
	char path[4096];
	char *slash;
	FILE *f;

	pathf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	fclose(f);
}

static void put(const char *dir, const char *rel, const char *text)
{
	put_bytes(dir, rel, text, strlen(text));
}

/* The file's contents (caller frees), or NULL when it does not exist. */
static char *slurp(const char *dir, const char *rel, size_t *len)
{
	char path[4096];
	struct stat st;
	char *data;
	FILE *f;

	pathf(path, sizeof(path), "%s/%s", dir, rel);
	if (stat(path, &st) != 0 || (f = fopen(path, "rb")) == NULL)
		return NULL;
	data = malloc((size_t)st.st_size + 1);
	if (data == NULL || fread(data, 1, (size_t)st.st_size, f) !=
				    (size_t)st.st_size) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	data[st.st_size] = '\0';
	if (len)
		*len = (size_t)st.st_size;
	return data;
}

static int exists(const char *dir, const char *rel)
{
	char path[4096];
	struct stat st;

	pathf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) == 0;
}

static int contains(const char *dir, const char *rel, const char *needle)
{
	char *data = slurp(dir, rel, NULL);
	int found = data && strstr(data, needle) != NULL;

	free(data);
	return found;
}

/* A fresh source and output directory pair. */
static void dirs(char *src, char *out)
{
	const char *tmp = lec_test_tmpdir();

	pathf(src, 4096, "%s/src", tmp);
	pathf(out, 4096, "%s/out", tmp);
	mkdirs(src);
}

static htmlDocPtr parse(const char *dir, const char *rel)
{
	size_t len = 0;
	char *data = slurp(dir, rel, &len);
	htmlDocPtr doc;

	if (data == NULL)
		return NULL;
	doc = htmlReadMemory(data, (int)len, rel, "utf-8",
			     HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
				     HTML_PARSE_NONET);
	free(data);
	return doc;
}

/* The string value of an XPath expression (caller frees). */
static char *xstr(htmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr obj =
		xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	xmlChar *s = obj ? xmlXPathCastToString(obj) : NULL;
	char *copy = strdup(s ? (const char *)s : "");

	xmlFree(s);
	xmlXPathFreeObject(obj);
	xmlXPathFreeContext(ctx);
	return copy;
}

static long xcount(htmlDocPtr doc, const char *expr)
{
	char buf[512];
	char *s;
	long n;

	pathf(buf, sizeof(buf), "count(%s)", expr);
	s = xstr(doc, buf);
	n = strtol(s, NULL, 10);
	free(s);
	return n;
}

#define CHECK_XSTR(doc, expr, want)                                          \
	do {                                                                 \
		char *got_ = xstr(doc, expr);                                \
		CHECK_STR(got_, want);                                       \
		free(got_);                                                  \
	} while (0)

/* Normalise href (relative to the page rel) into a path under the output;
 * 0 for links that leave the site or are not relative. */
static int link_target(const char *page, const char *href, char *out,
		       size_t size)
{
	struct lec__buf b = LEC__BUF_INIT;
	char dir[4096];
	const char *slash = strrchr(page, '/');
	size_t n = strcspn(href, "?#");
	int ok;

	if (n == 0 || strchr(href, ':') || href[0] == '/')
		return 0;
	pathf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - page) : 0,
		 page);
	ok = lec_mdsite__join_path(&b, dir, href, n);
	pathf(out, size, "%.*s", (int)b.len, b.ptr ? b.ptr : "");
	lec__buf_dispose(&b);
	return ok;
}

/* Every relative link and stylesheet of the page leads to a file. */
static void check_links_resolve(const char *out, const char *page)
{
	htmlDocPtr doc = parse(out, page);
	xmlXPathContextPtr ctx;
	xmlXPathObjectPtr obj;
	int i;

	CHECK(doc != NULL);
	if (doc == NULL)
		return;
	ctx = xmlXPathNewContext(doc);
	obj = xmlXPathEvalExpression(
		(const xmlChar *)"//a/@href | //link/@href", ctx);
	for (i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr;
	     i++) {
		xmlChar *href = xmlNodeGetContent(obj->nodesetval->nodeTab[i]);
		char target[4096];

		if (link_target(page, (const char *)href, target,
				sizeof(target)) &&
		    !exists(out, target))
			FAIL_AT("%s links to %s: %s is missing", page,
				(const char *)href, target);
		xmlFree(href);
	}
	xmlXPathFreeObject(obj);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
}

/* Whether every byte of the file is valid UTF-8. */
static int valid_utf8(const char *dir, const char *rel)
{
	struct lec__buf fixed = LEC__BUF_INIT;
	size_t len = 0;
	char *data = slurp(dir, rel, &len);
	int ok = data && lec_mdsite__utf8_repair(data, len, &fixed) == 0;

	lec__buf_dispose(&fixed);
	free(data);
	return ok;
}

/* Pages and the index ----------------------------------------------------- */

TEST(page_per_markdown_file)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	put(src, "intro.md", "# Intro\n\nHello.\n");
	put(src, "guide/setup.md", "# Setup\n");
	put(src, "guide/deep/er/page.md", "# Deep\n");
	put(src, "Upper.MD", "# Upper\n");
	put(src, "notes.txt", "not markdown");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK(exists(out, "index.html"));
	CHECK(exists(out, "intro.html"));
	CHECK(exists(out, "guide/setup.html"));
	CHECK(exists(out, "guide/deep/er/page.html"));
	CHECK(exists(out, "Upper.html"));
	CHECK(exists(out, LEC_MDSITE_STYLESHEET));
	CHECK(!exists(out, "notes.html"));
	CHECK(exists(out, "notes.txt"));
	CHECK(!exists(out, "intro.md"));
	CHECK(!exists(out, "guide/index.html")); /* no index in guide/ */
	CHECK_INT(st.pages, 5);
	CHECK_INT(st.assets, 1);
	CHECK_INT(st.bytes_in, 7 + 16 + 8 + 7 + 8);
	CHECK(st.bytes_out > 5 * 500);
	CHECK_INT(st.warnings, 0);
	CHECK(contains(out, "intro.html", "<p>Hello.</p>"));
}

TEST(index_md_wins_over_readme)
{
	char src[4096], out[4096];

	dirs(src, out);
	put(src, "index.md", "# From index\n");
	put(src, "README.md", "# From readme\n");
	put(src, "sub/index.md", "# Sub index\n");
	put(src, "sub/README.md", "# Sub readme\n");
	CHECK_OK(build(src, out, NULL, NULL));
	CHECK(contains(out, "index.html", HEADING("From index")));
	CHECK(contains(out, "README.html", HEADING("From readme")));
	CHECK(contains(out, "sub/index.html", HEADING("Sub index")));
	CHECK(contains(out, "sub/README.html", HEADING("Sub readme")));
}

TEST(readme_becomes_index)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put(src, "README.md", "# Project\n\nTop readme.\n");
	put(src, "docs/readme.md", "# Docs\n");
	put(src, "docs/other.md", "# Other\n");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK(contains(out, "index.html", "Top readme."));
	CHECK(!exists(out, "README.html"));
	CHECK(contains(out, "docs/index.html", HEADING("Docs")));
	CHECK(!exists(out, "docs/readme.html"));
	CHECK_INT(st.pages, 3);
	/* The site's title comes from the top README's h1. */
	CHECK(contains(out, "docs/other.html",
		       "<title>Other" DASH "Project</title>"));
	CHECK(contains(out, "index.html", "<title>Project</title>"));
}

TEST(generated_index_lists_every_page)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "alpha.md", "# Alpha\n");
	put(src, "beta.md", "no title here\n");
	put(src, "sub/gamma.md", "# Gamma\n");
	CHECK_OK(build(src, out, "My <Docs>", &st));
	CHECK_INT(st.pages, 4);
	doc = parse(out, "index.html");
	CHECK(doc != NULL);
	CHECK_XSTR(doc, "//title", "My <Docs>");
	CHECK_XSTR(doc, "//main/h1/@id", "my-docs");
	CHECK_INT(xcount(doc, "//main//a[@href='alpha.html']"), 1);
	CHECK_INT(xcount(doc, "//main//a[@href='beta.html']"), 1);
	CHECK_INT(xcount(doc, "//main//a[@href='sub/gamma.html']"), 1);
	CHECK_INT(xcount(doc, "//main//a[@href='index.html']"), 0);
	CHECK_XSTR(doc, "//main//a[@href='beta.html']", "beta");
	xmlFreeDoc(doc);
	check_links_resolve(out, "index.html");
}

TEST(site_title_defaults_to_directory_name)
{
	char src[4096], out[4096];

	dirs(src, out);
	put(src, "page.md", "text\n");
	CHECK_OK(lec_mdsite_build(src, out, NULL, NULL));
	CHECK(contains(out, "index.html", "<title>src</title>"));
	CHECK(contains(out, "page.html", "<title>page" DASH "src</title>"));
}

TEST(empty_source_directory)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;
	htmlDocPtr doc;

	dirs(src, out);
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.pages, 1);
	CHECK_INT(st.assets, 0);
	CHECK_INT(st.bytes_in, 0);
	CHECK(contains(out, "index.html", "This site has no pages."));
	CHECK(exists(out, LEC_MDSITE_STYLESHEET));
	doc = parse(out, "index.html");
	CHECK_INT(xcount(doc, "//main"), 1);
	CHECK_INT(xcount(doc, "//footer/a"), 0);
	xmlFreeDoc(doc);
}

/* Navigation -------------------------------------------------------------- */

TEST(navigation_and_prev_next)
{
	static const char *const order[] = {
		"index.html", "a.html", "b.html", "guide/index.html",
		"guide/install.html", "guide/zz/deep.html", "misc/only.html",
	};
	const size_t n = sizeof(order) / sizeof(order[0]);
	char src[4096], out[4096];
	size_t i;

	dirs(src, out);
	put(src, "README.md", "# Home\n");
	put(src, "b.md", "# Bee\n");
	put(src, "a.md", "Intro text\n\n# Ay\n\n# Second h1\n");
	put(src, "guide/README.md", "# The guide\n");
	put(src, "guide/install.md", "## Not h1\n\n# Installing\n");
	put(src, "guide/zz/deep.md", "# Deep\n");
	put(src, "misc/only.md", "# Only\n");
	put(src, "empty/image.png", "png");
	CHECK_OK(build(src, out, NULL, NULL));
	for (i = 0; i < n; i++) {
		htmlDocPtr doc = parse(out, order[i]);
		const char *prefix = strchr(order[i], '/') == NULL ? ""
				     : strstr(order[i], "zz/") ? "../../"
							       : "../";
		char expr[256], want[256];

		CHECK(doc != NULL);
		if (doc == NULL)
			continue;
		CHECK_INT(xcount(doc, "/html/head/title"), 1);
		CHECK_INT(xcount(doc, "//main"), 1);
		CHECK_INT(xcount(doc, "//meta[@charset='utf-8']"), 1);
		CHECK_XSTR(doc, "//header/a[@class='site-title']", "Home");
		pathf(want, sizeof(want), "%s_lectern/site.css", prefix);
		CHECK_XSTR(doc, "//link[@rel='stylesheet']/@href", want);
		/* Every page is in the navigation, this one marked. */
		CHECK_INT(xcount(doc, "//nav[@class='site-nav']//a"), (long)n);
		pathf(want, sizeof(want), "%s%s", prefix, order[i]);
		CHECK_XSTR(doc, "//nav//a[@aria-current='page']/@href", want);
		CHECK_INT(xcount(doc, "//a[@aria-current]"), 1);
		/* Previous and next follow the navigation's order. */
		if (i > 0) {
			pathf(want, sizeof(want), "%s%s", prefix, order[i - 1]);
			CHECK_XSTR(doc, "//footer/a[@rel='prev']/@href", want);
		} else {
			CHECK_INT(xcount(doc, "//a[@rel='prev']"), 0);
		}
		if (i + 1 < n) {
			pathf(want, sizeof(want), "%s%s", prefix, order[i + 1]);
			CHECK_XSTR(doc, "//footer/a[@rel='next']/@href", want);
		} else {
			CHECK_INT(xcount(doc, "//a[@rel='next']"), 0);
		}
		pathf(expr, sizeof(expr), "//nav//a[@href='%sa.html']", prefix);
		CHECK_XSTR(doc, expr, "Ay");
		xmlFreeDoc(doc);
		check_links_resolve(out, order[i]);
	}
	/* Titles: first h1, else the file name; directories nest. */
	{
		htmlDocPtr doc = parse(out, "index.html");

		CHECK_XSTR(doc, "//nav/ul/li[4]/a", "The guide");
		CHECK_XSTR(doc, "//nav/ul/li[4]/ul/li[1]/a", "Installing");
		CHECK_XSTR(doc, "//nav/ul/li[4]/ul/li[2]/span", "zz");
		CHECK_XSTR(doc, "//nav/ul/li[4]/ul/li[2]/ul/li/a", "Deep");
		CHECK_XSTR(doc, "//nav/ul/li[5]/span", "misc");
		CHECK_INT(xcount(doc, "//nav/ul/li"), 5); /* no "empty" */
		CHECK_XSTR(doc, "//footer/a[@rel='next']", "NextAy");
		xmlFreeDoc(doc);
	}
	CHECK(contains(out, "a.html", "<title>Ay" DASH "Home</title>"));
}

/* Past 2,000 pages each page's navigation opens only its own branch. */
TEST(big_site_navigation_collapses)
{
	char src[4096], out[4096], rel[64];
	struct lec_mdsite_stats st;
	htmlDocPtr doc;
	int i;

	dirs(src, out);
	for (i = 0; i < 1000; i++) {
		pathf(rel, sizeof(rel), "a/p%04d.md", i);
		put(src, rel, "text\n");
		pathf(rel, sizeof(rel), "b/p%04d.md", i);
		put(src, rel, "text\n");
	}
	put(src, "b/README.md", "# Bee\n");
	put(src, "c/deep/x.md", "# X\n");
	CHECK_OK(build(src, out, "Big", &st));
	CHECK_INT(st.pages, 2003);

	doc = parse(out, "a/p0005.html");
	CHECK_INT(xcount(doc, "//nav//a[starts-with(@href, '../a/')]"), 1000);
	CHECK_INT(xcount(doc, "//nav//a[starts-with(@href, '../b/')]"), 1);
	CHECK_XSTR(doc, "//nav/ul/li[3]/a/@href", "../b/index.html");
	CHECK_XSTR(doc, "//nav/ul/li[3]/a", "Bee");
	CHECK_XSTR(doc, "//nav/ul/li[4]/a/@href", "../c/deep/x.html");
	CHECK_XSTR(doc, "//nav/ul/li[4]/a", "c");
	CHECK_XSTR(doc, "//nav//a[@aria-current]/@href", "../a/p0005.html");
	CHECK_XSTR(doc, "//footer/a[@rel='next']/@href", "../a/p0006.html");
	xmlFreeDoc(doc);
	check_links_resolve(out, "a/p0005.html");

	doc = parse(out, "c/deep/x.html");
	CHECK_XSTR(doc, "//nav/ul/li[2]/a", "a");
	CHECK_XSTR(doc, "//nav/ul/li[2]/a/@href", "../../a/p0000.html");
	CHECK_XSTR(doc, "//nav/ul/li[4]/ul/li/span", "deep");
	CHECK_XSTR(doc, "//nav//a[@aria-current]", "X");
	CHECK_XSTR(doc, "//footer/a[@rel='prev']/@href", "../../b/p0999.html");
	xmlFreeDoc(doc);

	/* The generated index still lists every page. */
	doc = parse(out, "index.html");
	CHECK_INT(xcount(doc, "//main//a[not(@class)]"), 2002);
	xmlFreeDoc(doc);
}

TEST(titles_are_escaped)
{
	char src[4096], out[4096];
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "index.md", "# <script>alert(1)</script> & \"q\"\n");
	put(src, "x.md", "# x\n");
	CHECK_OK(build(src, out, NULL, NULL));
	CHECK(!contains(out, "x.html", "<script>"));
	doc = parse(out, "x.html");
	CHECK_XSTR(doc, "//nav//a[@href='index.html']", "alert(1) & \"q\"");
	CHECK_INT(xcount(doc, "//script"), 0);
	xmlFreeDoc(doc);
}

TEST(front_matter)
{
	char src[4096], out[4096];
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	/* Metadata, not text: its title is the page's (before the h1, as in
	 * MkDocs). */
	put(src, "edit.md",
	    "---\ntitle: npm-edit\nsection: 1\ndescription: Edit a package\n"
	    "---\n\n# The heading\n\nBody.\n");
	/* No title: the h1 is the title; "..." closes it; CRLF lines. */
	put(src, "dots.md", "---\r\nlayout: page\r\ntags: [a, b]\r\n...\r\n"
			    "# Dots\r\n\r\nText.\r\n");
	/* Not metadata: prose between two rules, a YAML mistake, no
	 * closing line. All stay Markdown. */
	put(src, "prose.md", "---\nJust a paragraph.\n\nAnd another.\n---\n"
			     "# Prose\n");
	put(src, "broken.md", "---\ntitle: [unclosed\n---\n# Broken\n");
	put(src, "open.md", "---\n# Open\n\ntitle: not metadata\n");
	CHECK_OK(build(src, out, NULL, NULL));
	doc = parse(out, "edit.html");
	CHECK_XSTR(doc, "//nav//a[@href='edit.html']", "npm-edit");
	CHECK_XSTR(doc, "//main/h1", "The heading\xC2\xB6");
	CHECK_INT(xcount(doc, "//main/hr"), 0);
	CHECK(!contains(out, "edit.html", "description"));
	CHECK(!contains(out, "edit.html", "section: 1"));
	CHECK_XSTR(doc, "//nav//a[@href='dots.html']", "Dots");
	xmlFreeDoc(doc);
	doc = parse(out, "dots.html");
	CHECK_INT(xcount(doc, "//main/hr"), 0);
	CHECK(!contains(out, "dots.html", "layout"));
	xmlFreeDoc(doc);
	CHECK(contains(out, "prose.html", "Just a paragraph."));
	CHECK(contains(out, "broken.html", "[unclosed"));
	CHECK(contains(out, "open.html", "title: not metadata"));
	doc = parse(out, "open.html");
	CHECK_INT(xcount(doc, "//main/hr"), 1);
	xmlFreeDoc(doc);
}

/* The block as the engine's YAML reader reads it, leniently: what other
 * generators put in front matter is metadata too. */
TEST(front_matter_yaml)
{
	static const struct {
		const char *md, *title; /* title NULL: none */
		int meta;
	} cases[] = {
		{ "---\nhide: [toc]\nicon: !!python/name:x\ntitle: Tags\n---\n",
		  "Tags", 1 },
		{ "---\nbase: &b 1\ncopy: *b\ntitle: After an alias\n---\n",
		  "After an alias", 1 },
		{ "---\ntitle: ''\ntitle: Second\n---\n", "Second", 1 },
		{ "---\ntitle: [a, b]\nname: x\n---\n", NULL, 1 },
		{ "---\nextra: {a: {b: {c: [[[[1]]]]}}}\ntitle: Deep\n---\n",
		  "Deep", 1 },
		{ "---\n# only a comment\n---\n", NULL, 1 },
		{ "---\njust words\n---\n", NULL, 0 },
		{ "---\n- a list\n---\n", NULL, 0 },
		{ "---\ntitle: x\n  bad: indent\n---\n", NULL, 0 },
	};
	size_t i, skip;
	char *title;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		title = NULL;
		CHECK_OK(lec_mdsite__front_matter(cases[i].md,
						  strlen(cases[i].md), &skip,
						  &title));
		if ((skip == strlen(cases[i].md)) != cases[i].meta)
			FAIL_AT("case %zu: skip %zu", i, skip);
		if (cases[i].title ? !title || strcmp(title, cases[i].title)
				   : title != NULL)
			FAIL_AT("case %zu: title \"%s\"", i,
				title ? title : "(null)");
		lec__free(title);
	}
}

/* Headings ---------------------------------------------------------------- */

TEST(heading_ids)
{
	char src[4096], out[4096];
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "index.md",
	    "# Hello World\n"
	    "## Hello World\n"
	    "## Hello   World!!\n"
	    "## hello-world-1\n"
	    "### a\n### a\n### a-1\n"
	    "## `code` and *emphasis* ![alt text](x.png) [link](y.md)\n"
	    "## Café Crème &amp; Co\n"
	    "## Привет, мир\n"
	    "## 日本語のテキスト\n"
	    "## cafe\xCC\x81 (decomposed)\n"
	    "## \xF0\x9F\x9A\x80 Launch \xF0\x9F\x9A\x80\n"
	    "## !!!\n"
	    "## ???\n"
	    "## --Trim--me--\n"
	    "## Tom&#39;s API_v2.0\n");
	CHECK_OK(build(src, out, NULL, NULL));
	doc = parse(out, "index.html");
	/* GitHub's anchors: a space each a '-', punctuation dropped. */
	CHECK_XSTR(doc, "//main/h1/@id", "hello-world");
	CHECK_XSTR(doc, "//main/h2[1]/@id", "hello-world-1");
	CHECK_XSTR(doc, "//main/h2[2]/@id", "hello---world");
	CHECK_XSTR(doc, "//main/h2[3]/@id", "hello-world-1-1");
	CHECK_XSTR(doc, "//main/h3[1]/@id", "a");
	CHECK_XSTR(doc, "//main/h3[2]/@id", "a-1");
	CHECK_XSTR(doc, "//main/h3[3]/@id", "a-1-1");
	CHECK_XSTR(doc, "//main/h2[4]/@id", "code-and-emphasis--link");
	CHECK_XSTR(doc, "//main/h2[5]/@id", "café-crème--co");
	CHECK_XSTR(doc, "//main/h2[6]/@id", "привет-мир");
	CHECK_XSTR(doc, "//main/h2[7]/@id", "日本語のテキスト");
	CHECK_XSTR(doc, "//main/h2[8]/@id", "cafe\xCC\x81-decomposed");
	CHECK_XSTR(doc, "//main/h2[9]/@id", "-launch-");
	CHECK_XSTR(doc, "//main/h2[10]/@id", "section");
	CHECK_XSTR(doc, "//main/h2[11]/@id", "section-1");
	CHECK_XSTR(doc, "//main/h2[12]/@id", "--trim--me--");
	CHECK_XSTR(doc, "//main/h2[13]/@id", "toms-api_v20");
	/* Each heading links to itself. */
	CHECK_INT(xcount(doc, "//main/*[self::h1 or self::h2 or self::h3]"),
		  17);
	CHECK_INT(xcount(doc, "//main/*/a[@class='headerlink' and "
			      "@href=concat('#', ../@id)]"), 17);
	CHECK_XSTR(doc, "//main/h1/a[@class='headerlink']", "\xC2\xB6");
	/* The heading's own markup is kept. */
	CHECK_INT(xcount(doc, "//main/h2[4]/code"), 1);
	CHECK_XSTR(doc, "//main/h2[4]/img/@alt", "alt text");
	CHECK_XSTR(doc, "//main/h2[4]/a[1]/@href", "y.html");
	xmlFreeDoc(doc);
}

TEST(slugify_rules)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "Hello World", "hello-world" },
		{ "  leading and trailing  ", "leading-and-trailing" },
		/* GitHub's rules (its anchors are what writers link to):
		 * each space a '-', '-' and '_' kept, punctuation and
		 * symbols dropped rather than made separators. */
		{ "a -- b __ c", "a----b-__-c" },
		{ "v1.2.3", "v123" },
		{ "What's new?", "whats-new" },
		{ "Class: net.Server", "class-netserver" },
		{ "async_hooks.createHook(callbacks)",
		  "async_hookscreatehookcallbacks" },
		{ "fs.watch(filename[, options][, listener])",
		  "fswatchfilename-options-listener" },
		{ "--no-deprecation", "--no-deprecation" },
		{ "\xF0\x9F\x98\x84 emoji", "-emoji" },
		{ "ÀÉÎ ÕÜ", "àéî-õü" },
		{ "ΣΊΣΥΦΟΣ", "σίσυφοσ" },
		{ "Привет non-latin 你好", "привет-non-latin-你好" },
		{ "", "section" },
		{ "\xE2\x80\x94\xE2\x80\x94", "section" },
		{ "\xFF bad \xC3", "-bad-" },
	};
	struct lec__buf b = LEC__BUF_INIT;
	char long_text[1000];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.len = 0;
		lec_mdsite__slugify(&b, cases[i].in, strlen(cases[i].in));
		lec__buf_putc(&b, '\0');
		CHECK_STR(b.ptr, cases[i].want);
	}
	/* Long headings are cut at a character boundary, never at a '-'. */
	for (i = 0; i + 3 < sizeof(long_text); i += 3)
		memcpy(long_text + i, "\xC3\xA9 ", 3);
	long_text[i] = '\0';
	b.len = 0;
	lec_mdsite__slugify(&b, long_text, strlen(long_text));
	CHECK(b.len <= LEC_MDSITE_SLUG_MAX);
	CHECK(b.len >= LEC_MDSITE_SLUG_MAX - 3);
	CHECK(b.ptr[b.len - 1] != '-');
	CHECK_INT((unsigned char)b.ptr[b.len - 1], 0xA9);
	lec__buf_dispose(&b);
}

/* Links ------------------------------------------------------------------- */

static const char *fake_resolve(const char *src_rel, void *payload)
{
	static const char *const pages[][2] = {
		{ "other.md", "other.html" },
		{ "guide/README.md", "guide/index.html" },
		{ "both/README.md", "both/README.html" },
		{ "both/index.md", "both/index.html" },
		{ "guide/setup.md", "guide/setup.html" },
		{ "my notes.md", "my notes.html" },
	};
	size_t i;

	(void)payload;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (strcmp(pages[i][0], src_rel) == 0)
			return pages[i][1];
	return NULL;
}

TEST(link_rewriting)
{
	static const struct {
		const char *dir, *in, *want;
	} cases[] = {
		{ "", "other.md", "other.html" },
		{ "", "other.md#usage", "other.html#usage" },
		{ "", "other.md?x=1&y=2#f", "other.html?x=1&y=2#f" },
		{ "", "./other.md", "./other.html" },
		{ "", "guide/README.md", "guide/index.html" },
		{ "", "guide/README.md#setup", "guide/index.html#setup" },
		{ "", "both/README.md", "both/README.html" },
		{ "", "both/index.md", "both/index.html" },
		{ "guide", "../other.md", "../other.html" },
		{ "guide", "setup.md#a", "setup.html#a" },
		{ "guide", "README.md", "index.html" },
		{ "guide/sub", "../../guide/README.md",
		  "../../guide/index.html" },
		{ "", "my%20notes.md", "my%20notes.html" },
		{ "", "missing.md", "missing.html" },
		{ "", "missing/README.md", "missing/index.html" },
		{ "", "missing/readme.MD#x", "missing/index.html#x" },
		{ "", "NOTES.MD", "NOTES.html" },
		{ "", "../../outside.md", "../../outside.html" },
		/* Left alone. */
		{ "", "https://example.com/p.md", "https://example.com/p.md" },
		{ "", "HTTP://example.com/a.md", "HTTP://example.com/a.md" },
		{ "", "mailto:me@example.md", "mailto:me@example.md" },
		{ "", "#section", "#section" },
		{ "", "#x.md", "#x.md" },
		{ "", "/abs/path.md", "/abs/path.md" },
		{ "", "//cdn.example.com/x.md", "//cdn.example.com/x.md" },
		{ "", "image.png", "image.png" },
		{ "", "dir/", "dir/" },
		{ "", ".md", ".md" },
		{ "", "sub/.md", "sub/.md" },
		{ "", "file.mdx", "file.mdx" },
		{ "", "page.html?ref=x.md", "page.html?ref=x.md" },
		{ "", "", "" },
	};
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lec_mdsite__links links = { cases[i].dir, fake_resolve,
						   NULL };

		b.len = 0;
		lec_mdsite__rewrite_href(&b, cases[i].in, strlen(cases[i].in),
					 &links);
		lec__buf_putc(&b, '\0');
		if (strcmp(b.ptr, cases[i].want) != 0)
			FAIL_AT("[%s] %s -> %s, expected %s", cases[i].dir,
				cases[i].in, b.ptr, cases[i].want);
	}
	lec__buf_dispose(&b);
}

TEST(links_rewritten_in_pages)
{
	char src[4096], out[4096];
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	put(src, "README.md", "# Readme beside index\n");
	put(src, "guide/README.md", "# Guide\n");
	put(src, "guide/setup.md",
	    "# Setup\n\n"
	    "[home](../index.md) [readme](../README.md)\n"
	    "[guide](README.md#top)\n"
	    "[ref link][r] <https://example.com/x.md> [mail](mailto:a@b.c)\n"
	    "[anchor](#setup) [q](../guide/README.md?v=1#s) ![img](pic.png)\n"
	    "[amp](a&amp;b.md) [quote](\"q\".md)\n\n"
	    "[r]: ./README.md\n");
	CHECK_OK(build(src, out, NULL, NULL));
	doc = parse(out, "guide/setup.html");
	CHECK_XSTR(doc, "//main//a[.='home']/@href", "../index.html");
	CHECK_XSTR(doc, "//main//a[.='readme']/@href", "../README.html");
	CHECK_XSTR(doc, "//main//a[.='guide']/@href", "index.html#top");
	CHECK_XSTR(doc, "//main//a[.='ref link']/@href", "./index.html");
	CHECK_XSTR(doc, "//main//a[.='https://example.com/x.md']/@href",
		   "https://example.com/x.md");
	CHECK_XSTR(doc, "//main//a[.='mail']/@href", "mailto:a@b.c");
	CHECK_XSTR(doc, "//main//a[.='anchor']/@href", "#setup");
	CHECK_XSTR(doc, "//main//a[.='q']/@href", "../guide/index.html?v=1#s");
	CHECK_XSTR(doc, "//main//img/@src", "pic.png");
	CHECK_XSTR(doc, "//main//a[.='amp']/@href", "a&b.html");
	CHECK_XSTR(doc, "//main//a[.='quote']/@href", "%22q%22.html");
	xmlFreeDoc(doc);
	CHECK(contains(out, "guide/setup.html", "href=\"a&amp;b.html\""));
}

/* Markdown ---------------------------------------------------------------- */

TEST(github_flavoured_markdown)
{
	char src[4096], out[4096];
	htmlDocPtr doc;

	dirs(src, out);
	put(src, "index.md",
	    "# GFM\n\n"
	    "| Left | Centre | Right |\n|:--|:-:|--:|\n| a | b | c |\n\n"
	    "~~gone~~ and www.example.com and https://example.org/x\n\n"
	    "- [x] done\n- [ ] open\n\n"
	    "3. three\n4. four\n\n"
	    "```python\nprint(\"<hi>\")\n```\n\n"
	    "> quoted\n\n---\n\n"
	    "&copy; &#60; &#0; &#x110000; &unknownentity; &check; &LT;\n\n"
	    "line one  \nline two\n");
	CHECK_OK(build(src, out, NULL, NULL));
	doc = parse(out, "index.html");
	CHECK_XSTR(doc, "//thead/tr/th[1]/@style", "text-align: left");
	CHECK_XSTR(doc, "//thead/tr/th[2]/@style", "text-align: center");
	CHECK_XSTR(doc, "//tbody/tr/td[3]/@style", "text-align: right");
	CHECK_XSTR(doc, "//main//del", "gone");
	CHECK_XSTR(doc, "//main//a[.='www.example.com']/@href",
		   "http://www.example.com");
	CHECK_XSTR(doc, "//main//a[.='https://example.org/x']/@href",
		   "https://example.org/x");
	CHECK_INT(xcount(doc, "//li[@class='task-list-item']/"
			      "input[@type='checkbox' and @disabled]"), 2);
	CHECK_INT(xcount(doc, "//main//li/input[@checked]"), 1);
	CHECK_XSTR(doc, "//main/ol/@start", "3");
	CHECK_XSTR(doc, "//main/pre/code/@class", "language-python");
	CHECK_XSTR(doc, "//main/pre/code", "print(\"<hi>\")\n");
	CHECK_INT(xcount(doc, "//main/blockquote/p"), 1);
	CHECK_INT(xcount(doc, "//main/hr"), 1);
	CHECK_INT(xcount(doc, "//main//br"), 1);
	xmlFreeDoc(doc);
	CHECK(contains(out, "index.html",
		       "\xC2\xA9 &lt; " FFFD " " FFFD " &amp;unknownentity; "
		       "\xE2\x9C\x93 &lt;"));
}

TEST(invalid_utf8_replaced)
{
	static const char page[] =
		"# Caf\xE9 \xFF heading\n\n"
		"Latin-1 caf\xE9, overlong \xC0\xAF, surrogate \xED\xA0\x80, "
		"cut \xE2\x82 and NUL \0 end. Controls \x01\xC2\x85.\n"
		"```\ncode \xFE\n```\n";
	char src[4096], out[4096];
	char *html;
	htmlDocPtr doc;

	dirs(src, out);
	put_bytes(src, "index.md", page, sizeof(page) - 1);
	put(src, "bad\xFFname.md", "no heading \xC3\n");
	put(src, "bom.md", "\xEF\xBB\xBF# With BOM\n");
	CHECK_OK(build(src, out, NULL, NULL));
	CHECK(valid_utf8(out, "index.html"));
	CHECK(valid_utf8(out, "bad\xFFname.html"));
	CHECK(valid_utf8(out, "bom.html"));
	html = slurp(out, "index.html", NULL);
	CHECK(html && strstr(html, "Caf" FFFD " " FFFD " heading"));
	CHECK(html && strstr(html, "overlong " FFFD FFFD ","));
	CHECK(html && strstr(html, "surrogate " FFFD FFFD FFFD ","));
	CHECK(html && strstr(html, "cut " FFFD " and NUL " FFFD " end."));
	CHECK(html && strstr(html, "Controls " FFFD FFFD "."));
	CHECK(html && strstr(html, "code " FFFD "\n"));
	/* The file name's bad byte shows as U+FFFD in the navigation and the
	 * link keeps the real name, percent-encoded. */
	CHECK(html && strstr(html, "href=\"bad%FFname.html\">bad" FFFD
				   "name</a>"));
	free(html);
	doc = parse(out, "bom.html");
	CHECK_XSTR(doc, "//main/h1/@id", "with-bom");
	xmlFreeDoc(doc);
}

TEST(utf8_repair_rules)
{
	static const struct {
		const char *in;
		size_t n;
		size_t replaced;
		const char *want;
	} cases[] = {
		{ "plain ascii", 11, 0, NULL },
		{ "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80", 14, 0, NULL },
		{ "\xFF", 1, 1, FFFD },
		{ "a\xC3", 2, 1, "a" FFFD },
		{ "\xE2\x82", 2, 1, FFFD },
		{ "\xE2\x82x", 3, 1, FFFD "x" },
		{ "\xC0\xAF", 2, 2, FFFD FFFD },
		{ "\xF4\x90\x80\x80", 4, 4,
		  FFFD FFFD FFFD FFFD },
		{ "\xF0\x9F\x9Ax", 4, 1, FFFD "x" },
		{ "12345678\x80" "12345678", 17, 1,
		  "12345678" FFFD "12345678" },
		/* Valid UTF-8 that HTML text must not hold. */
		{ "tab\tnl\ncr\rff\f 12345678", 22, 0, NULL },
		{ "a\x01" "b", 3, 1, "a" FFFD "b" },
		{ "12345678\x1F" "12345678", 17, 1,
		  "12345678" FFFD "12345678" },
		{ "\x7F", 1, 1, FFFD },
		{ "x\0y", 3, 1, "x" FFFD "y" },
		{ "\xC2\x80 \xC2\x9F \xC2\xA0", 8, 2,
		  FFFD " " FFFD " \xC2\xA0" },
		{ "\xEF\xB7\x90", 3, 1, FFFD },
		{ "\xEF\xBF\xBE", 3, 1, FFFD },
		{ "\xF4\x8F\xBF\xBF", 4, 1, FFFD },
		{ "\xF0\x9F\xBF\xBF", 4, 1, FFFD },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lec__buf b = LEC__BUF_INIT;
		size_t got = lec_mdsite__utf8_repair(cases[i].in, cases[i].n,
						     &b);

		CHECK_INT(got, cases[i].replaced);
		if (cases[i].want == NULL) {
			CHECK_INT(b.len, 0);
		} else {
			lec__buf_putc(&b, '\0');
			CHECK_STR(b.ptr, cases[i].want);
		}
		lec__buf_dispose(&b);
	}
}

TEST(entities_decoded)
{
	static const struct {
		const char *in;
		int known;
		const char *want;
	} cases[] = {
		{ "&amp;", 1, "&" },
		{ "&eacute;", 1, "\xC3\xA9" },
		{ "&check;", 1, "\xE2\x9C\x93" }, /* HTML5 only */
		{ "&LT;", 1, "<" },                /* HTML5 only */
		{ "&NotEqualTilde;", 1, "\xE2\x89\x82\xCC\xB8" },
		{ "&bogus;", 0, "" },
		{ "&#233;", 1, "\xC3\xA9" },
		{ "&#xE9;", 1, "\xC3\xA9" },
		{ "&#0;", 1, FFFD },
		{ "&#xD800;", 1, FFFD },
		{ "&#x110000;", 1, FFFD },
		{ "&#;", 0, "" },
		{ "&#x;", 0, "" },
		{ "amp;", 0, "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lec__buf b = LEC__BUF_INIT;
		int known = lec_mdsite__entity_decode(&b, cases[i].in,
						      strlen(cases[i].in));

		lec__buf_putc(&b, '\0');
		if (known != cases[i].known || strcmp(b.ptr, cases[i].want))
			FAIL_AT("%s: %d \"%s\", expected %d \"%s\"",
				cases[i].in, known, b.ptr, cases[i].known,
				cases[i].want);
		lec__buf_dispose(&b);
	}
}

TEST(huge_page)
{
	const size_t target = 8u << 20;
	char src[4096], out[4096];
	struct lec_mdsite_stats st;
	char *md = malloc(target + 64);
	size_t n = 0;
	int k = 0;

	dirs(src, out);
	n += (size_t)snprintf(md, 64, "# Huge\n\n");
	while (n < target) {
		n += (size_t)snprintf(md + n, 64,
				      "## Part\n\nParagraph %d *x*.\n\n", k);
		k++;
	}
	put_bytes(src, "index.md", md, n);
	free(md);
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.bytes_in, n);
	CHECK(st.bytes_out > n);
	CHECK(contains(out, "index.html", "<h2 id=\"part-1\">"));
	{
		char want[64];

		pathf(want, sizeof(want), "<h2 id=\"part-%d\">", k - 1);
		CHECK(contains(out, "index.html", want));
	}
}

/* Files ------------------------------------------------------------------- */

TEST(fifo_and_oversized_markdown)
{
	char src[4096], out[4096], path[8192];
	struct lec_mdsite_stats st;
	struct stat sb;
	int fd;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	pathf(path, sizeof(path), "%s/pipe.md", src);
	CHECK(mkfifo(path, 0644) == 0);
	/* Over the 256 MiB a page may have: sparse, so cheap to make. */
	pathf(path, sizeof(path), "%s/giant.md", src);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && ftruncate(fd, ((off_t)256 << 20) + 1) == 0);
	close(fd);
	CHECK_OK(build(src, out, NULL, &st));
	CHECK(warned("skipping pipe.md: not a regular file"));
	CHECK(warned("giant.md is too large to render (over 256 MiB); "
		     "copied as it is"));
	CHECK_INT(st.warnings, 2);
	CHECK_INT(st.pages, 1);
	CHECK_INT(st.assets, 1);
	CHECK(!exists(out, "pipe.md") && !exists(out, "pipe.html"));
	CHECK(!exists(out, "giant.html"));
	pathf(path, sizeof(path), "%s/giant.md", out);
	CHECK(stat(path, &sb) == 0 && sb.st_size == ((off_t)256 << 20) + 1);
}

TEST(assets_copied)
{
	char src[4096], out[4096], a[4096], b[4096];
	struct lec_mdsite_stats st;
	struct stat sa, sb;
	char *data;

	dirs(src, out);
	put(src, "index.md", "# Home\n\n![logo](img/logo.png)\n");
	put(src, "img/logo.png", "\x89PNG fake");
	put(src, "files/data/report.pdf", "%PDF");
	put(src, "index.html", "hand-made html");   /* HTML: not published */
	put(src, "tests/fixtures/page.HTM", "<p>fixture</p>"); /* nor this */
	put(src, "_lectern/site.css", "body{}"); /* clashes with the theme */
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.assets, 2);
	CHECK_INT(st.warnings, 3);
	CHECK(warned("skipping index.html: HTML files are not published"));
	CHECK(warned("skipping tests/fixtures/page.HTM: HTML files are not "
		     "published"));
	CHECK(warned("skipping _lectern/site.css"));
	data = slurp(out, "img/logo.png", NULL);
	CHECK_STR(data, "\x89PNG fake");
	free(data);
	CHECK(contains(out, "files/data/report.pdf", "%PDF"));
	CHECK(contains(out, "index.html", "<h1"));
	CHECK(!contains(out, LEC_MDSITE_STYLESHEET, "body{}"));
	CHECK(!contains(out, "tests/fixtures/page.HTM", "fixture"));
	/* Same file system: a hard link. */
	pathf(a, sizeof(a), "%s/img/logo.png", src);
	pathf(b, sizeof(b), "%s/img/logo.png", out);
	CHECK(stat(a, &sa) == 0 && stat(b, &sb) == 0);
	CHECK(sa.st_ino == sb.st_ino);
	/* Building again over the old output works. */
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.assets, 2);
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

TEST(assets_copied_across_file_systems)
{
	char src[4096], out[4096], shm[] = "/dev/shm/lectern-mdsite-XXXXXX";
	struct lec_mdsite_stats st;
	char *data;
	struct stat sa, sb;

	if (mkdtemp(shm) == NULL) {
		fprintf(stderr, "  (no /dev/shm: skipped)\n");
		return;
	}
	dirs(src, out);
	pathf(out, sizeof(out), "%s/site", shm);
	put(src, "big.bin", "0123456789");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.assets, 1);
	data = slurp(out, "big.bin", NULL);
	CHECK_STR(data, "0123456789");
	free(data);
	/* Another file system: a copy, not a link. */
	pathf(src + strlen(src), 4096 - strlen(src), "/big.bin");
	pathf(out + strlen(out), sizeof(out) - strlen(out), "/big.bin");
	CHECK(stat(src, &sa) == 0 && stat(out, &sb) == 0);
	CHECK(sa.st_dev != sb.st_dev);
	CHECK_INT(sa.st_nlink, 1);
	nftw(shm, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TEST(skipped_directories)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	put(src, ".git/HEAD", "ref: refs/heads/main");
	put(src, ".github/x.md", "# hidden\n");
	put(src, ".hidden.md", "# hidden\n");
	put(src, "_build/html/x.md", "# built\n");
	put(src, "docs/_build/y.md", "# built\n");
	put(src, "node_modules/pkg/README.md", "# pkg\n");
	put(src, "_readthedocs/html/z.md", "# output\n");
	put(src, "site/w.md", "# mkdocs output\n");
	put(src, "docs/site/kept.md", "# Kept\n");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.pages, 2);
	CHECK_INT(st.assets, 0);
	CHECK(exists(out, "docs/site/kept.html"));
	CHECK(!exists(out, ".git"));
	CHECK(!exists(out, "site"));
	CHECK(!exists(out, "_build"));
	CHECK(!exists(out, "node_modules"));
}

TEST(output_inside_source_is_skipped)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	pathf(out, sizeof(out), "%s/public/html", src);
	put(src, "index.md", "# Home\n");
	put(src, "logo.png", "png");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.pages, 1);
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.pages, 1);
	CHECK_INT(st.assets, 1);
	CHECK(!exists(out, "public"));
}

#define OUTSIDE(name)                                                        \
	"skipping " name ": symbolic link that leads outside the source "    \
	"directory"

TEST(symlinks_out_of_the_tree_are_skipped)
{
	char src[4096], out[4096], path[4096], outside[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	pathf(outside, sizeof(outside), "%s/../secret.md", src);
	put(src, "../secret.md", "# Secret\n");
	put(src, "index.md", "# Home\n\n[inside](alias.md)\n");
	put(src, "real.md", "# Real page\n");
	put(src, "sub/pic.png", "png");
#define LINK(target, name)                                                   \
	do {                                                                 \
		pathf(path, sizeof(path), "%s/%s", src, name);            \
		CHECK(symlink(target, path) == 0);                           \
	} while (0)
	LINK(outside, "escape.md");
	LINK("../secret.md", "relative-escape.md");
	LINK("/etc/passwd", "passwd.png");
	LINK("sub/../../secret.md", "sneaky.md");
	LINK("real.md", "alias.md");
	LINK("sub/pic.png", "pic-alias.png");
	LINK("sub", "subdir-link");
	LINK("/", "root-link");
	LINK("nowhere.md", "dangling.md");
	LINK(".git/config", "git-config.txt");
	/* Issue 36, finding 6: where links outside lead was looked up on the
	 * host and printed: a descriptor's link showed the store's path, a
	 * root-only path whether it exists. */
	LINK("/proc/self/fd/3", "fd.md");
	LINK("/etc/shadow", "shadow.md");
	LINK("/no/such/file.md", "nowhere-outside.md");
#undef LINK
	put(src, ".git/config", "[core]");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK(!exists(out, "escape.html"));
	CHECK(!exists(out, "relative-escape.html"));
	CHECK(!exists(out, "passwd.png"));
	CHECK(!exists(out, "sneaky.html"));
	CHECK(!exists(out, "subdir-link"));
	CHECK(!exists(out, "root-link"));
	CHECK(!exists(out, "dangling.html"));
	CHECK(!exists(out, "git-config.txt"));
	CHECK(!exists(out, "fd.html"));
	CHECK(!exists(out, "shadow.html"));
	/* Every link out says the same, whatever is there, and names no
	 * target. */
	CHECK(warned(OUTSIDE("escape.md")));
	CHECK(warned(OUTSIDE("relative-escape.md")));
	CHECK(warned(OUTSIDE("passwd.png")));
	CHECK(warned(OUTSIDE("sneaky.md")));
	CHECK(warned(OUTSIDE("root-link")));
	CHECK(warned(OUTSIDE("fd.md")));
	CHECK(warned(OUTSIDE("shadow.md")));
	CHECK(warned(OUTSIDE("nowhere-outside.md")));
	CHECK(!warned("/etc") && !warned("/proc") && !warned("/no/such") &&
	      !warned(outside) && !warned(src));
	CHECK(warned("skipping subdir-link: symbolic links are only followed "
		     "to files"));
	CHECK(warned("skipping dangling.md: broken symbolic link"));
	CHECK(warned("skipping git-config.txt: symbolic link into a skipped "
		     "directory"));
	CHECK_INT(st.warnings, 11);
	CHECK_INT(nwarnings, 11);
	/* A link to a file inside the tree is that file under its name. */
	CHECK(contains(out, "alias.html", HEADING("Real page")));
	CHECK(contains(out, "pic-alias.png", "png"));
	CHECK(contains(out, "index.html", "href=\"alias.html\""));
	CHECK_INT(st.pages, 3);
	CHECK_INT(st.assets, 2);
	{
		char *html = slurp(out, "index.html", NULL);

		CHECK(html && strstr(html, "Secret") == NULL);
		free(html);
	}
}

TEST(name_clashes_warn)
{
	char src[4096], out[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put(src, "page.md", "# Lower\n");
	put(src, "page.MD", "# Upper\n");
	CHECK_OK(build(src, out, NULL, &st));
	CHECK_INT(st.pages, 2); /* one page and the generated index */
	CHECK_INT(st.warnings, 1);
	CHECK(warned("page.html is already made from another file"));
}

/* Errors ------------------------------------------------------------------ */

TEST(error_cases)
{
	struct lec_mdsite_options bad = LEC_MDSITE_OPTIONS_INIT;
	char src[4096], out[4096], path[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put(src, "index.md", "# Home\n");
	CHECK_ERR(lec_mdsite_build(NULL, out, NULL, NULL), LEC_EINVALID);
	CHECK_ERR(lec_mdsite_build(src, "", NULL, NULL), LEC_EINVALID);
	bad.version = 99;
	CHECK_ERR(lec_mdsite_build(src, out, &bad, NULL), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "unknown mdsite options version 99");

	pathf(path, sizeof(path), "%s/missing", src);
	CHECK_ERR(lec_mdsite_build(path, out, NULL, &st), LEC_ENOTFOUND);
	CHECK(strstr(lec_error_last(), path) != NULL);
	CHECK_INT(st.pages, 0);

	pathf(path, sizeof(path), "%s/index.md", src);
	CHECK_ERR(lec_mdsite_build(path, out, NULL, NULL), LEC_EIO);
	CHECK(strstr(lec_error_last(), path) != NULL);

	pathf(path, sizeof(path), "%s/index.md/site", src);
	CHECK_ERR(lec_mdsite_build(src, path, NULL, NULL), LEC_EIO);
	CHECK(strstr(lec_error_last(), path) != NULL);

	CHECK_ERR(lec_mdsite_build(src, src, NULL, NULL), LEC_EINVALID);
	pathf(path, sizeof(path), "%s/..", src);
	CHECK_ERR(lec_mdsite_build(src, path, NULL, NULL), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "must not contain"));

	/* An output file that cannot be written: a directory in its way. */
	pathf(path, sizeof(path), "%s/index.html", out);
	mkdirs(path);
	put(out, "index.html/x", "");
	CHECK_ERR(lec_mdsite_build(src, out, NULL, NULL), LEC_EIO);
	CHECK(strstr(lec_error_last(), "index.html"));

	/* A read-only output directory (only meaningful when not root). */
	if (geteuid() != 0) {
		char ro[4096];

		pathf(ro, sizeof(ro), "%s-ro", out);
		mkdirs(ro);
		chmod(ro, 0555);
		CHECK_ERR(lec_mdsite_build(src, ro, NULL, NULL), LEC_EIO);
		chmod(ro, 0755);
	}
}

TEST(css_matches_theme_file)
{
	char path[4096];
	const char *here = __FILE__;
	const char *cut = strstr(here, "tests/engine/test_mdsite.c");
	char dir[4096];
	size_t len = 0;
	char *css;

	CHECK(cut != NULL);
	if (cut == NULL)
		return;
	pathf(dir, sizeof(dir), "%.*sthemes", (int)(cut - here), here);
	css = slurp(dir, "site.css", &len);
	pathf(path, sizeof(path), "%s/site.css", dir);
	if (css == NULL)
		FAIL_AT("cannot read %s", path);
	CHECK_INT(len, lec_mdsite__css_len);
	if (css && (len != lec_mdsite__css_len ||
		    memcmp(css, lec_mdsite__css, len) != 0))
		FAIL_AT("themes/site.css and engine/src/mdsite_theme.c differ: "
			"copy the stylesheet into the C string");
	free(css);
}

/* Build with the Nth allocation failing, for N = 1, 2, ... until a build
 * goes through: every failure must be LEC_ENOMEM, and the build must
 * allocate. `before` (may be NULL) sets the scene for each try. */
static void fail_each_allocation(const char *src, const char *out,
				 const char *state,
				 void (*before)(long n, const char *state))
{
	long n;
	int rc = LEC_ENOMEM;

	for (n = 1; rc == LEC_ENOMEM && n < 5000; n++) {
		if (before != NULL)
			before(n, state);
		lec__alloc_fail_after(n);
		rc = build_kept(src, out, NULL, state, NULL);
		lec__alloc_fail_after(0);
		if (rc != LEC_OK && rc != LEC_ENOMEM)
			FAIL_AT("allocation %ld: %d (%s)", n, rc,
				lec_error_last());
	}
	CHECK_INT(rc, LEC_OK);
	CHECK(n > 20);
}

TEST(out_of_memory_everywhere)
{
	char src[4096], out[4096];

	dirs(src, out);
	put(src, "README.md", "# Home\n\n## A\n## A\n[x](guide/b.md) &#60;\n");
	put(src, "guide/b.md", "# B\n\n| a |\n|---|\n| ![i](p.png \"t\") |\n");
	put(src, "guide/p.png", "png");
	put(src, "other/c.md", "text\n");
	fail_each_allocation(src, out, NULL, NULL);
}


/* Incremental builds ------------------------------------------------------ */

/* Every file and directory below a tree, relative and sorted. */
#define LISTED_MAX 256
static char *listed[LISTED_MAX];
static size_t nlisted, listed_base;

static int list_entry(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (nlisted < LISTED_MAX && path[listed_base] != '\0') {
		char entry[4096];

		pathf(entry, sizeof(entry), "%s%s", path + listed_base + 1,
		      flag == FTW_D ? "/" : "");
		listed[nlisted++] = strdup(entry);
	}
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t list_tree(const char *dir, char **out)
{
	size_t i, n;

	nlisted = 0;
	listed_base = strlen(dir);
	nftw(dir, list_entry, 16, FTW_PHYS);
	qsort(listed, nlisted, sizeof(*listed), compare_names);
	for (i = 0; i < nlisted; i++)
		out[i] = listed[i];
	n = nlisted;
	nlisted = 0;
	return n;
}

/* Whether trees a and b hold the same names with the same bytes; the first
 * difference is printed. */
static int same_tree(const char *a, const char *b)
{
	char *la[LISTED_MAX], *lb[LISTED_MAX];
	size_t na = list_tree(a, la), nb = list_tree(b, lb), i;
	int same = na == nb && na > 0;

	for (i = 0; same && i < na; i++) {
		size_t sa = 0, sb = 0;
		char *da, *db;

		if (strcmp(la[i], lb[i]) != 0) {
			fprintf(stderr, "  %s in one tree, %s in the other\n",
				la[i], lb[i]);
			same = 0;
			break;
		}
		if (la[i][strlen(la[i]) - 1] == '/')
			continue;
		da = slurp(a, la[i], &sa);
		db = slurp(b, lb[i], &sb);
		same = da && db && sa == sb && memcmp(da, db, sa) == 0;
		if (!same)
			fprintf(stderr, "  %s differs\n", la[i]);
		free(da);
		free(db);
	}
	if (na != nb)
		fprintf(stderr, "  %zu entries against %zu\n", na, nb);
	for (i = 0; i < na; i++)
		free(la[i]);
	for (i = 0; i < nb; i++)
		free(lb[i]);
	return same;
}

/* Build with state into a new directory (its path into out) and without
 * state into another: the trees must be the same, `rendered` pages
 * rendered (the others reused), for `reason`. */
static void check_step(const char *what, const char *src, const char *title,
		       const char *state, size_t rendered, const char *reason,
		       char *out)
{
	struct lec_mdsite_stats st, fresh_st;
	char fresh[4096];
	int failures = lec_test_failures;

	pathf(out, 4096, "%s/out", lec_test_tmpdir());
	pathf(fresh, sizeof(fresh), "%s/fresh", lec_test_tmpdir());
	CHECK_OK(build_kept(src, out, title, state, &st));
	CHECK_OK(build(src, fresh, title, &fresh_st));
	CHECK(same_tree(out, fresh));
	CHECK_INT(st.pages, fresh_st.pages);
	CHECK_INT(st.pages_rendered, rendered);
	CHECK_INT(st.pages_reused, st.pages - rendered);
	CHECK_INT(st.bytes_out, fresh_st.bytes_out);
	CHECK_INT(st.assets, fresh_st.assets);
	CHECK_INT(fresh_st.pages_rendered, fresh_st.pages);
	CHECK_STR(fresh_st.rebuild_reason, "incremental builds are off");
	if (reason)
		CHECK_STR(st.rebuild_reason, reason);
	else if (st.rebuild_reason != NULL)
		FAIL_AT("reason \"%s\", expected none", st.rebuild_reason);
	if (lec_test_failures != failures)
		fprintf(stderr, "  (in step: %s)\n", what);
}

/* A small handbook: an index made from README.md, pages in directories,
 * links between them (one to a heading), an image. */
static void put_handbook(const char *src)
{
	put(src, "README.md",
	    "# Handbook\n\nStart with [installing](install.md#linux-setup), "
	    "then [the basics](usage/basics.md).\n\n![logo](img/logo.png)\n");
	put(src, "install.md",
	    "# Installing\n\n## Linux setup\n\nRun the installer.\n\n"
	    "## Windows\n\nUse the MSI.\n");
	put(src, "usage/basics.md",
	    "# Basics\n\nBack to [the start](../README.md); then "
	    "[advanced use](advanced.md).\n");
	put(src, "usage/advanced.md",
	    "# Advanced use\n\nA paragraph about caching.\n\n"
	    "See [Linux](../install.md#linux-setup).\n");
	put(src, "reference/api.md",
	    "# API\n\n| call | use |\n|---|---|\n| `get` | read |\n");
	put(src, "reference/config.md", "# Configuration\n\n- `title`\n");
	put(src, "img/logo.png", "\x89PNG one");
}

static void remove_file(const char *dir, const char *rel)
{
	char path[4096];

	pathf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK(unlink(path) == 0);
}

TEST(incremental_builds_equal_fresh_ones)
{
	char src[4096], out[4096], state[4096], path[4096];
	struct stat sa, sb;

	dirs(src, out);
	pathf(state, sizeof(state), "%s/state", lec_test_tmpdir());
	put_handbook(src);
	check_step("first build", src, NULL, state, 6, "first build", out);
	check_step("nothing changed", src, NULL, state, 0, NULL, out);
	/* A reused page is a hard link to the state's copy: no bytes
	 * written twice. */
	pathf(path, sizeof(path), "%s/usage/basics.html", out);
	CHECK(stat(path, &sa) == 0);
	pathf(path, sizeof(path), "%s/pages/usage/basics.html", state);
	CHECK(stat(path, &sb) == 0 && sa.st_ino == sb.st_ino);

	put(src, "usage/advanced.md",
	    "# Advanced use\n\nA paragraph about caching, edited.\n\n"
	    "See [Linux](../install.md#linux-setup).\n");
	check_step("a paragraph edited", src, NULL, state, 1, "pages changed",
		   out);
	CHECK(contains(out, "usage/advanced.html", "caching, edited."));

	put(src, "reference/faq.md", "Ask about [the API](api.md).\n");
	check_step("a page without a title added", src, NULL, state, 7,
		   "the page list changed", out);
	CHECK(contains(out, "reference/faq.html", "<title>faq"));
	check_step("nothing changed again", src, NULL, state, 0, NULL, out);

	remove_file(src, "reference/config.md");
	check_step("a page deleted", src, NULL, state, 6,
		   "the page list changed", out);
	CHECK(!exists(out, "reference/config.html"));
	pathf(path, sizeof(path), "%s/pages/reference/config.html", state);
	CHECK(access(path, F_OK) != 0);

	remove_file(src, "usage/basics.md");
	put(src, "usage/first-steps.md",
	    "# Basics\n\nBack to [the start](../README.md); then "
	    "[advanced use](advanced.md).\n");
	check_step("a page renamed", src, NULL, state, 6,
		   "the page list changed", out);
	CHECK(exists(out, "usage/first-steps.html"));
	CHECK(!exists(out, "usage/basics.html"));

	put(src, "install.md",
	    "# Installation\n\n## Linux setup\n\nRun the installer.\n\n"
	    "## Windows\n\nUse the MSI.\n");
	check_step("a title changed", src, NULL, state, 6, "a title changed",
		   out);
	CHECK(contains(out, "reference/api.html", ">Installation</a>"));

	/* Links keep their #anchor as written: renaming the heading it
	 * names changes that page only. */
	put(src, "install.md",
	    "# Installation\n\n## Linux and BSD setup\n\nRun the "
	    "installer.\n\n## Windows\n\nUse the MSI.\n");
	check_step("a linked heading renamed", src, NULL, state, 1,
		   "pages changed", out);
	CHECK(contains(out, "install.html", "id=\"linux-and-bsd-setup\""));
	CHECK(contains(out, "index.html", "href=\"install.html#linux-setup\""));

	put(src, "img/logo.png", "\x89PNG two");
	check_step("an asset changed", src, NULL, state, 0, NULL, out);
	CHECK(contains(out, "img/logo.png", "two"));

	check_step("the site title changed", src, "Manual", state, 6,
		   "a title changed", out);
	check_step("the same title again", src, "Manual", state, 0, NULL, out);
}

TEST(incremental_build_of_a_generated_index)
{
	char src[4096], out[4096], state[4096];

	dirs(src, out);
	pathf(state, sizeof(state), "%s/state", lec_test_tmpdir());
	put(src, "alpha.md", "# Alpha\n\nSee [beta](beta.md).\n");
	put(src, "beta.md", "# Beta\n\nText.\n");
	check_step("first build", src, "Site", state, 3, "first build", out);
	put(src, "beta.md", "# Beta\n\nOther text.\n");
	check_step("a paragraph edited", src, "Site", state, 1,
		   "pages changed", out);
	put(src, "gamma.md", "# Gamma\n");
	check_step("a page added", src, "Site", state, 4,
		   "the page list changed", out);
	CHECK(contains(out, "index.html", "gamma.html"));
}

/* Replace the manifest's bytes from `at` on with `text`. */
static void spoil_manifest(const char *state, size_t at, const char *text)
{
	size_t len = 0;
	char *data = slurp(state, "manifest", &len);

	CHECK(data != NULL && at <= len);
	if (data == NULL || at > len)
		return;
	data[at] = '\0';
	{
		size_t n = strlen(text);
		char *joined = malloc(at + n);

		memcpy(joined, data, at);
		memcpy(joined + at, text, n);
		put_bytes(state, "manifest", joined, at + n);
		free(joined);
	}
	free(data);
}

/* Overwrite one byte of a file in place, as a step that writes into the
 * published site would: the state shares the file. */
static void poke(const char *dir, const char *rel, off_t at)
{
	char path[4096];
	int fd;

	pathf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "#", 1, at) == 1);
	if (fd >= 0)
		close(fd);
}

TEST(damaged_state_means_a_full_build)
{
	char src[4096], out[4096], base[4096], state[4096], path[4096];
	size_t len = 0;
	char *manifest;

	dirs(src, out);
	pathf(base, sizeof(base), "%s", lec_test_tmpdir());
	pathf(state, sizeof(state), "%s/state", base);
	put_handbook(src);
	check_step("first build", src, NULL, state, 6, "first build", out);
	manifest = slurp(state, "manifest", &len);
	CHECK(manifest != NULL && len > 100);

	spoil_manifest(state, len / 2, "");
	check_step("manifest cut in half", src, NULL, state, 6,
		   "the state was unreadable", out);
	spoil_manifest(state, len - 1, "");
	check_step("manifest without its last byte", src, NULL, state, 6,
		   "the state was unreadable", out);
	spoil_manifest(state, 0, "\x7f\x45LF garbage\n\0\n");
	check_step("garbage", src, NULL, state, 6, "the state was unreadable",
		   out);
	spoil_manifest(state, 0, "");
	check_step("empty manifest", src, NULL, state, 6,
		   "the state was unreadable", out);
	check_step("state rewritten", src, NULL, state, 0, NULL, out);

	spoil_manifest(state, strlen("lectern-mdsite-state "), "9\n");
	check_step("another format", src, NULL, state, 6,
		   "Lectern's generator changed", out);
	free(manifest);
	manifest = slurp(state, "manifest", &len);
	{
		/* The generator line names another build of Lectern. */
		char *gen = manifest ? strstr(manifest, "generator ") : NULL;

		CHECK(gen != NULL);
		if (gen) {
			gen[strlen("generator ")] =
				gen[strlen("generator ")] == 'a' ? 'b' : 'a';
			put_bytes(state, "manifest", manifest, len);
		}
	}
	check_step("another generator", src, NULL, state, 6,
		   "Lectern's generator changed", out);

	remove_file(state, "pages/install.html");
	check_step("a kept page deleted", src, NULL, state, 6,
		   "a kept page was changed or deleted", out);
	put(state, "pages/install.html", "<p>not what was kept</p>\n");
	check_step("a kept page replaced", src, NULL, state, 6,
		   "a kept page was changed or deleted", out);
	/* Same size, other bytes, through the output it shares: only that
	 * page is rendered again. */
	poke(out, "usage/advanced.html", 20);
	check_step("a kept page written to", src, NULL, state, 1,
		   "a kept page was changed or deleted", out);
	poke(state, "pages/index.html", 0);
	check_step("another written to", src, NULL, state, 1,
		   "a kept page was changed or deleted", out);
	check_step("whole again", src, NULL, state, 0, NULL, out);

	/* Directories and files where the state's own names should be. */
	remove_file(state, "manifest");
	pathf(path, sizeof(path), "%s/manifest/x", state);
	mkdirs(path);
	put(state, "manifest.tmp/y", "");
	check_step("a directory for a manifest", src, NULL, state, 6,
		   "the state was unreadable", out);
	check_step("whole once more", src, NULL, state, 0, NULL, out);
	pathf(path, sizeof(path), "%s/pages", state);
	CHECK(lec__remove_tree(path) == LEC_OK);
	put(state, "pages", "a file");
	check_step("a file for the pages", src, NULL, state, 6,
		   "a kept page was changed or deleted", out);
	check_step("whole at last", src, NULL, state, 0, NULL, out);

	/* Too big to be ours: not read. */
	pathf(path, sizeof(path), "%s/manifest", state);
	CHECK(truncate(path, ((off_t)64 << 20) + 1) == 0);
	check_step("a huge manifest", src, NULL, state, 6,
		   "the state was unreadable", out);

	/* A file where the state directory should be is replaced. */
	CHECK(lec__remove_tree(state) == LEC_OK);
	put(base, "state", "not a directory");
	check_step("state_dir is a file", src, NULL, state, 6,
		   "the state was unreadable", out);
	check_step("state_dir made", src, NULL, state, 0, NULL, out);
	free(manifest);
}

TEST(state_directory_checks)
{
	struct lec_mdsite_options v1 = LEC_MDSITE_OPTIONS_INIT;
	char src[4096], out[4096], state[4096];
	struct lec_mdsite_stats st;

	dirs(src, out);
	put_handbook(src);
	/* Inside the source or the output: not used, and not touched. */
	pathf(state, sizeof(state), "%s/.state", src);
	put(state, "manifest", "a file of the repository");
	CHECK_OK(build_kept(src, out, NULL, state, &st));
	CHECK_STR(st.rebuild_reason, "the state directory could not be used");
	CHECK(warned("overlaps the source or the output directory"));
	CHECK(contains(state, "manifest", "a file of the repository"));
	CHECK_INT(st.pages_rendered, 6);
	pathf(state, sizeof(state), "%s/state", out);
	CHECK_OK(build_kept(src, out, NULL, state, &st));
	CHECK_STR(st.rebuild_reason, "the state directory could not be used");
	CHECK(!exists(out, "state"));
	/* One that cannot be made: the build goes on without. */
	pathf(state, sizeof(state), "%s/README.md/state", src);
	CHECK_OK(build_kept(src, out, NULL, state, &st));
	CHECK_STR(st.rebuild_reason, "the state directory could not be used");
	CHECK_INT(st.pages, 6);
	/* Options of the first version have no state_dir. */
	v1.version = 1;
	CHECK_ERR(lec_mdsite_build(src, out, &v1, NULL), LEC_EINVALID);
}

/* A manifest with every kind of line, strings with spaces, newlines and
 * digits in them. */
static char *sample_manifest(size_t *len)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_mdsite__kept_page k;
	char hex[LEC__SHA256_HEX_LEN + 1];

	memset(hex, 'a', LEC__SHA256_HEX_LEN);
	hex[LEC__SHA256_HEX_LEN] = '\0';
	lec_mdsite__state_put_header(&b, "0123abcd+ef", hex);
	memset(&k, 0, sizeof(k));
	k.out_rel = (char[]){ "index.html" };
	k.src_rel = (char[]){ "" };
	k.title = NULL;
	memcpy(k.html, hex, sizeof(hex));
	k.size = 1234;
	lec_mdsite__state_put_page(&b, &k);
	k.out_rel = (char[]){ "odd dir/12:x\nname.html" };
	k.src_rel = (char[]){ "odd dir/12:x\nname.md" };
	k.title = (char[]){ "3:a title - with\tsigns" };
	memcpy(k.hash, hex, sizeof(hex));
	k.hash[0] = '0';
	k.size = UINT64_MAX;
	lec_mdsite__state_put_page(&b, &k);
	k.out_rel = (char[]){ "empty.html" };
	k.title = (char[]){ "" };
	lec_mdsite__state_put_page(&b, &k);
	lec_mdsite__state_put_end(&b, 3);
	*len = b.len;
	return lec__buf_take(&b);
}

TEST(state_manifest_parser)
{
	static const char *const bad[] = {
		"",
		"lectern-mdsite-state 1\n",
		"lectern-mdsite-state 1\ngenerator \nsite ",
		"lectern-mdsite-state 1\ngenerator XYZ\nsite ",
	};
	struct lec__buf again = LEC__BUF_INIT;
	struct lec_mdsite__state st;
	const struct lec_mdsite__kept_page *k;
	size_t len, i;
	char *text = sample_manifest(&len), *copy;

	CHECK_OK(lec_mdsite__state_parse(text, len, &st));
	CHECK_INT(st.npages, 3);
	CHECK_STR(st.generator, "0123abcd+ef");
	k = lec_mdsite__state_find(&st, "odd dir/12:x\nname.html");
	CHECK(k != NULL);
	if (k) {
		CHECK_STR(k->src_rel, "odd dir/12:x\nname.md");
		CHECK_STR(k->title, "3:a title - with\tsigns");
		CHECK(k->hash[0] == '0' && strlen(k->hash) == 64);
		CHECK(k->size == UINT64_MAX);
	}
	k = lec_mdsite__state_find(&st, "index.html");
	CHECK(k != NULL && k->title == NULL && k->hash[0] == '\0' &&
	      k->src_rel[0] == '\0' && k->size == 1234);
	k = lec_mdsite__state_find(&st, "empty.html");
	CHECK(k != NULL && k->title != NULL && k->title[0] == '\0');
	CHECK(lec_mdsite__state_find(&st, "missing.html") == NULL);
	/* Written again, the same bytes. */
	lec_mdsite__state_put_header(&again, st.generator, st.site);
	for (i = 0; i < st.npages; i++)
		lec_mdsite__state_put_page(&again, &st.pages[i]);
	lec_mdsite__state_put_end(&again, st.npages);
	CHECK(again.len == len && memcmp(again.ptr, text, len) == 0);
	lec__buf_dispose(&again);
	lec_mdsite__state_dispose(&st);
	lec_mdsite__state_dispose(NULL);
	CHECK(!lec_mdsite__state_foreign(text, len));

	/* Every proper prefix is refused, and so is any byte added. */
	for (i = 0; i < len; i++) {
		if (lec_mdsite__state_parse(text, i, &st) != LEC_EINVALID) {
			FAIL_AT("a manifest cut at %zu accepted", i);
			break;
		}
		CHECK(st.npages == 0 && st.generator == NULL);
	}
	copy = malloc(len + 2);
	memcpy(copy, text, len);
	copy[len] = '\n';
	copy[len + 1] = '\0';
	CHECK_ERR(lec_mdsite__state_parse(copy, len + 1, &st), LEC_EINVALID);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(lec_mdsite__state_parse(bad[i], strlen(bad[i]), &st),
			  LEC_EINVALID);
#define REFUSED(from, to)                                                    \
	do {                                                                 \
		char *at_ = strstr(copy, from);                              \
		CHECK(at_ != NULL);                                          \
		if (at_) {                                                   \
			memcpy(at_, to, sizeof(to) - 1);                     \
			CHECK_ERR(lec_mdsite__state_parse(copy, len, &st),  \
				  LEC_EINVALID);                             \
			memcpy(at_, from, sizeof(from) - 1);                 \
		}                                                            \
	} while (0)
	REFUSED("end 3", "end 2");           /* a page line lost */
	REFUSED("aaaa", "AAAA");             /* hex in capitals */
	REFUSED("10:index", "99:index");     /* a length past the end */
	REFUSED("10:index", "10:empty");     /* a page listed twice */
	REFUSED("1234 ", "12x4 ");           /* not a number */
	REFUSED("1234 ", "0234 ");           /* not as written */
	REFUSED("18446744073709551615", "99999999999999999999"); /* > 2^64 */
	REFUSED("page -", "page +");
	REFUSED("index.html", "index\0html"); /* a NUL in a string */
	REFUSED(" 0:", " 0-");
	REFUSED("generator 0", "generator  ");
#undef REFUSED
	memcpy(copy, "lectern-mdsite-state 2\n", 23);
	CHECK(lec_mdsite__state_foreign(copy, len));
	CHECK(!lec_mdsite__state_foreign("garbage", 7));
	free(copy);
	lec__free(text);
}

static char oom_src[4096];

/* Each try edits a page, so that one is rendered and the others are
 * reused, from no state at all or from a build's whole state. */
static void edit_without_state(long n, const char *state)
{
	lec__remove_tree(state);
	put(oom_src, "guide/c.md", n % 2 ? "# C\n\none\n" : "# C\n\ntwo\n");
}

static void edit_with_state(long n, const char *state)
{
	char out[4096];

	pathf(out, sizeof(out), "%s-whole", state);
	CHECK_OK(build_kept(oom_src, out, NULL, state, NULL));
	put(oom_src, "guide/c.md", n % 2 ? "# C\n\none\n" : "# C\n\ntwo\n");
}

TEST(out_of_memory_with_state)
{
	char out[4096], state[4096], fresh[4096];

	dirs(oom_src, out);
	pathf(state, sizeof(state), "%s/state", lec_test_tmpdir());
	pathf(fresh, sizeof(fresh), "%s/fresh", lec_test_tmpdir());
	put(oom_src, "README.md", "# Home\n\n[b](guide/b.md)\n");
	put(oom_src, "guide/b.md", "# B\n\ntext\n");
	put(oom_src, "guide/c.md", "# C\n");
	fail_each_allocation(oom_src, out, state, edit_without_state);
	fail_each_allocation(oom_src, out, state, edit_with_state);
	/* Whatever a failed build left, the next one is right. */
	CHECK_OK(build_kept(oom_src, out, NULL, state, NULL));
	CHECK_OK(build(oom_src, fresh, NULL, NULL));
	CHECK(same_tree(out, fresh));
}

static const struct lec_test tests[] = {
	TEST_ENTRY(page_per_markdown_file),
	TEST_ENTRY(index_md_wins_over_readme),
	TEST_ENTRY(readme_becomes_index),
	TEST_ENTRY(generated_index_lists_every_page),
	TEST_ENTRY(site_title_defaults_to_directory_name),
	TEST_ENTRY(empty_source_directory),
	TEST_ENTRY(navigation_and_prev_next),
	TEST_ENTRY(big_site_navigation_collapses),
	TEST_ENTRY(titles_are_escaped),
	TEST_ENTRY(front_matter),
	TEST_ENTRY(front_matter_yaml),
	TEST_ENTRY(heading_ids),
	TEST_ENTRY(slugify_rules),
	TEST_ENTRY(link_rewriting),
	TEST_ENTRY(links_rewritten_in_pages),
	TEST_ENTRY(github_flavoured_markdown),
	TEST_ENTRY(invalid_utf8_replaced),
	TEST_ENTRY(utf8_repair_rules),
	TEST_ENTRY(entities_decoded),
	TEST_ENTRY(huge_page),
	TEST_ENTRY(fifo_and_oversized_markdown),
	TEST_ENTRY(assets_copied),
	TEST_ENTRY(assets_copied_across_file_systems),
	TEST_ENTRY(skipped_directories),
	TEST_ENTRY(output_inside_source_is_skipped),
	TEST_ENTRY(symlinks_out_of_the_tree_are_skipped),
	TEST_ENTRY(name_clashes_warn),
	TEST_ENTRY(error_cases),
	TEST_ENTRY(css_matches_theme_file),
	TEST_ENTRY(out_of_memory_everywhere),
	TEST_ENTRY(incremental_builds_equal_fresh_ones),
	TEST_ENTRY(incremental_build_of_a_generated_index),
	TEST_ENTRY(damaged_state_means_a_full_build),
	TEST_ENTRY(state_directory_checks),
	TEST_ENTRY(state_manifest_parser),
	TEST_ENTRY(out_of_memory_with_state),
};

LEC_TEST_MAIN(tests)
