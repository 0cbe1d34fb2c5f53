/*
 * Tests of the warm Sphinx generator (build_warm.c) through the writers'
 * preview, which keeps one per tree: a replay of edits built warm and
 * cold gives the same pages byte for byte, the cache notes say when the
 * warm generator served a build, and it is gone with the preview; a conf.py that kills its warm
 * parent spoils only its own next build, which runs cold with the
 * reason, and the one after warms up again; an extension of the
 * project's own tree is never imported by the parent; a parent that
 * cannot start is seen at once, with what it said; MkDocs says it has
 * none.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/preview.h"

/* Write dir/rel, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	char *slash;

	lec_test_pathf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	lec_test_pathf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd) != 0)
		exit(2);
	lec_test_put(path, slash + 1, text);
}

static int has_sphinx(void)
{
	if (access("/usr/bin/python3", X_OK) == 0 &&
	    system("/usr/bin/python3 -c 'import sphinx' 2>/dev/null") == 0)
		return 1;
	printf("  (skipped: no Sphinx)\n");
	return 0;
}

static struct lec_preview *open_one(const char *tree, const char *cache,
				    int cold)
{
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_preview *p = NULL;

	opts.cache_dir = cache;
	opts.cold = cold;
	CHECK_OK(lec_preview_open(&p, tree, &opts));
	return p;
}

/* A tree of two files (each a path and its text) and a cache beside it
 * in a fresh directory (tree and cache PATH_MAX bytes), and the tree's
 * warm preview. */
static struct lec_preview *warm_tree(char *tree, char *cache,
				     const char *rel1, const char *text1,
				     const char *rel2, const char *text2)
{
	lec_test_pathf(tree, PATH_MAX, "%s/tree", lec_test_tmpdir());
	lec_test_pathf(cache, PATH_MAX, "%s/cache", lec_test_tmpdir());
	put(tree, rel1, text1);
	put(tree, rel2, text2);
	return open_one(tree, cache, 0);
}

/* Whether the two caches' generator outputs (build/html) hold the same
 * files with the same bytes. The search index is compared as sorted
 * text: its key order follows Python's string hashing, which differs
 * from one cold run to the next as well. */
static int same_output(const char *a, const char *b)
{
	char cmd[3 * PATH_MAX];

	lec_test_pathf(cmd, sizeof(cmd),
	      "diff -r -x searchindex.js '%s/build/html' '%s/build/html' && "
	      "cmp -s '%s/build/html/searchindex.js' "
	      "'%s/build/html/searchindex.js' || "
	      "[ \"$(fold -w1 '%s/build/html/searchindex.js' | sort | "
	      "md5sum)\" = \"$(fold -w1 '%s/build/html/searchindex.js' | "
	      "sort | md5sum)\" ]",
	      a, b, a, b, a, b);
	return system(cmd) == 0;
}

static int cache_says(struct lec_preview *p, const char *text)
{
	const char *json = lec_preview_cache(p);

	if (json && strstr(json, text))
		return 1;
	printf("  cache record: %s\n", json ? json : "(none)");
	return 0;
}

/* How many processes are a warm generator of tree: their command line
 * names the script ("warm Sphinx generator") and the tree. */
static int warm_processes(const char *tree)
{
	return lec_test_processes("warm Sphinx generator", tree);
}

/* A tree and the caches of its warm and cold previews, in a fresh
 * directory (each PATH_MAX bytes). */
static void side_by_side(char *tree, char *warm_cache, char *cold_cache)
{
	lec_test_pathf(tree, PATH_MAX, "%s/tree", lec_test_tmpdir());
	lec_test_pathf(warm_cache, PATH_MAX, "%s/warm", lec_test_tmpdir());
	lec_test_pathf(cold_cache, PATH_MAX, "%s/cold", lec_test_tmpdir());
}

/* The replay: each step changes the tree as a commit would. */
struct step {
	const char *rel, *text; /* text NULL: remove rel */
};

static const struct step replay[] = {
	{ "docs/one.rst", "One\n===\n\nThe first paragraph.\n\n"
			  ".. todo:: Write more.\n" },
	{ "docs/index.rst", "Tiny\n====\n\n.. toctree::\n\n   one\n   two\n"
			    "   three\n" },
	{ "docs/three.rst", "Three\n=====\n\nSee :ref:`two:Two`.\n" },
	{ "docs/conf.py", "project = 'Tiny'\n"
			  "extensions = ['sphinx.ext.todo',\n"
			  "              'sphinx.ext.autosectionlabel']\n"
			  "autosectionlabel_prefix_document = True\n"
			  "html_title = 'Tiny, again'\n" },
	{ "docs/two.rst", "Two\n===\n\nThe second page, rewritten.\n" },
};

TEST(warm_builds_equal_cold_ones)
{
	char tree[PATH_MAX], warm_cache[PATH_MAX], cold_cache[PATH_MAX];
	struct lec_preview *warm, *cold;
	size_t i;

	if (!has_sphinx())
		return;
	side_by_side(tree, warm_cache, cold_cache);
	put(tree, "docs/conf.py",
	    "project = 'Tiny'\n"
	    "extensions = ['sphinx.ext.todo', 'sphinx.ext.autosectionlabel']\n"
	    "autosectionlabel_prefix_document = True\n"
	    "todo_include_todos = True\n");
	put(tree, "docs/index.rst", "Tiny\n====\n\n.. toctree::\n\n   one\n"
				    "   two\n");
	put(tree, "docs/one.rst", "One\n===\n\nFirst.\n");
	put(tree, "docs/two.rst", "Two\n===\n\nSecond, see :doc:`one`.\n");
	if ((warm = open_one(tree, warm_cache, 0)) == NULL ||
	    (cold = open_one(tree, cold_cache, 1)) == NULL)
		return;
	CHECK_OK(lec_preview_build(warm, NULL, NULL));
	CHECK(cache_says(warm, "\"generator\":{\"reused\":false,\"reason\":"
			       "\"no warm generator yet\""));
	CHECK_OK(lec_preview_build(cold, NULL, NULL));
	CHECK(same_output(warm_cache, cold_cache));
	for (i = 0; i < sizeof(replay) / sizeof(replay[0]); i++) {
		put(tree, replay[i].rel, replay[i].text);
		CHECK_OK(lec_preview_build(warm, NULL, NULL));
		CHECK(cache_says(warm, "\"generator\":{\"reused\":true"));
		CHECK_OK(lec_preview_build(cold, NULL, NULL));
		if (!same_output(warm_cache, cold_cache))
			FAIL_AT("step %zu: the warm build's pages differ", i);
	}
	/* One warm generator, the warm preview's; none once it stops. */
	CHECK_INT(warm_processes(tree), 1);
	lec_preview_free(warm);
	CHECK_INT(warm_processes(tree), 0);
	lec_preview_free(cold);
}

/* conf.py kills its warm parent the first time it runs under one (a
 * marker in $HOME says it did). */
static const char hostile_conf[] =
	"import os, signal\n"
	"project = 'Hostile'\n"
	"marker = os.path.join(os.environ['HOME'], 'killed')\n"
	"with open('/proc/%d/cmdline' % os.getppid(), 'rb') as f:\n"
	"    warm = b'warm Sphinx generator' in f.read()\n"
	"if warm and not os.path.exists(marker):\n"
	"    open(marker, 'w').close()\n"
	"    os.kill(os.getppid(), signal.SIGKILL)\n";

TEST(a_damaged_parent_spoils_only_the_next_build)
{
	char tree[PATH_MAX], cache[PATH_MAX];
	struct lec_preview *p;

	if (!has_sphinx())
		return;
	if ((p = warm_tree(tree, cache, "docs/conf.py", hostile_conf, "docs/index.rst",
			   "Hostile\n=======\n\nText.\n")) == NULL)
		return;
	/* The build that killed it fails: its parent cannot report it. */
	CHECK_ERR(lec_preview_build(p, NULL, NULL), LEC_ERROR);
	CHECK(strstr(lec_error_last(), "warm generator stopped during the "
				       "build") != NULL);
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":false,\"reason\":"
			    "\"the warm generator was damaged: it stopped "
			    "during a build\""));
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":false,\"reason\":"
			    "\"no warm generator yet\""));
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":true"));
	lec_preview_free(p);
}

/* An extension in the project's tree is the project's code: the parent
 * does not import it, and a build imports it afresh each time (an edit
 * to it shows at once). */
TEST(the_trees_own_extension_is_imported_by_each_build)
{
	char tree[PATH_MAX], cache[PATH_MAX], page[PATH_MAX];
	struct lec_preview *p;
	char *html;

	if (!has_sphinx())
		return;
	lec_test_pathf(tree, sizeof(tree), "%s/tree", lec_test_tmpdir());
	lec_test_pathf(cache, sizeof(cache), "%s/cache", lec_test_tmpdir());
	put(tree, "docs/conf.py",
	    "import os, sys\n"
	    "sys.path.insert(0, os.path.abspath('.'))\n"
	    "extensions = ['localext']\n");
	put(tree, "docs/localext.py",
	    "def setup(app):\n"
	    "    app.connect('html-page-context', lambda a, p, t, c, d:\n"
	    "                c.update(title='FIRST'))\n"
	    "    return {'parallel_read_safe': True}\n");
	put(tree, "docs/index.rst", "Local\n=====\n\nText.\n");
	if ((p = open_one(tree, cache, 0)) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	put(tree, "docs/localext.py",
	    "def setup(app):\n"
	    "    app.connect('html-page-context', lambda a, p, t, c, d:\n"
	    "                c.update(title='SECOND'))\n"
	    "    return {'parallel_read_safe': True}\n");
	put(tree, "docs/index.rst", "Local\n=====\n\nText, edited.\n");
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":true"));
	lec_test_pathf(page, sizeof(page), "%s/build/html", cache);
	{
		char path[PATH_MAX];
		FILE *f;
		long n;

		lec_test_pathf(path, sizeof(path), "%s/index.html", page);
		f = fopen(path, "r");
		CHECK(f != NULL);
		if (f == NULL)
			goto done;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		html = calloc(1, (size_t)n + 1);
		if (html && fread(html, 1, (size_t)n, f) == (size_t)n)
			CHECK(strstr(html, "SECOND") != NULL);
		free(html);
		fclose(f);
	}
done:
	lec_preview_free(p);
}

static int asked;

/* Stop the build once asked a few times (the runner's poll). */
static int cancel_soon(void *payload)
{
	(void)payload;
	return ++asked > 3;
}

/* A build stopped while it runs through the warm generator ends at once
 * (its child is killed, not waited for), and the generator serves the
 * next one. */
TEST(a_stopped_build_ends_and_the_generator_stays)
{
	struct lec_preview_callbacks cb = { NULL, NULL, cancel_soon, NULL };
	char tree[PATH_MAX], cache[PATH_MAX];
	struct lec_preview *p;
	time_t start;

	if (!has_sphinx())
		return;
	if ((p = warm_tree(tree, cache, "docs/conf.py", "project = 'Slow'\n", "docs/index.rst",
			   "Slow\n====\n\nText.\n")) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	put(tree, "docs/conf.py", "import time\nproject = 'Slow'\n"
				  "time.sleep(60)\n");
	start = time(NULL);
	CHECK_ERR(lec_preview_build(p, &cb, NULL), LEC_ERROR);
	CHECK(time(NULL) - start < 20);
	CHECK(cache_says(p, "\"generator\":{\"reused\":true"));
	put(tree, "docs/conf.py", "project = 'Slow'\n");
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":true"));
	lec_preview_free(p);
}

/* Pages enough that Sphinx's writing forks its writers (more than
 * warm_generator.py's PARALLEL_MIN_PAGES), each with a warning its
 * writer finds (an extension's, as the page is written) and one the
 * main process finds (a reference resolved before writing). */
#define MANY_PAGES 24

static const char warner_ext[] =
	"from sphinx.util import logging\n"
	"logger = logging.getLogger(__name__)\n"
	"def page(app, pagename, templatename, context, doctree):\n"
	"    if doctree is not None:\n"
	"        logger.warning('written by a writer', location=pagename)\n"
	"def setup(app):\n"
	"    app.connect('html-page-context', page)\n"
	"    return {'parallel_read_safe': True,\n"
	"            'parallel_write_safe': %s}\n";

static void many_pages(const char *tree, const char *safe)
{
	char rel[64], text[256], ext[sizeof(warner_ext) + 8];
	struct lec__buf index = LEC__BUF_INIT;
	int i;

	snprintf(ext, sizeof(ext), warner_ext, safe);
	put(tree, "docs/warner.py", ext);
	put(tree, "docs/conf.py",
	    "import os, sys\n"
	    "sys.path.insert(0, os.path.abspath('.'))\n"
	    "project = 'Many'\n"
	    "extensions = ['sphinx.ext.todo', 'warner']\n");
	lec__buf_puts(&index, "Many\n====\n\n.. toctree::\n\n");
	for (i = 0; i < MANY_PAGES; i++) {
		snprintf(rel, sizeof(rel), "docs/page%02d.rst", i);
		snprintf(text, sizeof(text),
			 "Page %02d\n=======\n\nText of page %d, see "
			 ":doc:`page%02d` and :ref:`missing-%d`.\n",
			 i, i, (i + 1) % MANY_PAGES, i);
		put(tree, rel, text);
		lec__buf_printf(&index, "   page%02d\n", i);
	}
	put(tree, "docs/index.rst", index.ptr);
	lec__free(lec__buf_take(&index));
}

/* The cores a build may use, as warm_generator.py counts them. */
static int cores(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
							    : 1;
}

static int warning_cmp(const void *a, const void *b)
{
	const struct lec_warning *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c == 0)
		c = x->line < y->line ? -1 : x->line > y->line;
	if (c == 0)
		c = strcmp(x->message, y->message);
	return c ? c : (int)x->kind - (int)y->kind;
}

/* Whether the two previews' last builds found the same records (a
 * multiset: file, line, kind and message), and how many. */
static int same_warnings(struct lec_preview *a, struct lec_preview *b,
			 size_t *count)
{
	const struct lec_warning_set *x = lec_preview_warnings(a);
	const struct lec_warning_set *y = lec_preview_warnings(b);
	struct lec_warning *xs, *ys;
	size_t i;
	int same = x->len == y->len;

	*count = x->len;
	xs = calloc(x->len + 1, sizeof(*xs));
	ys = calloc(y->len + 1, sizeof(*ys));
	if (same && xs && ys) {
		memcpy(xs, x->items, x->len * sizeof(*xs));
		memcpy(ys, y->items, y->len * sizeof(*ys));
		qsort(xs, x->len, sizeof(*xs), warning_cmp);
		qsort(ys, y->len, sizeof(*ys), warning_cmp);
		for (i = 0; same && i < x->len; i++)
			if (warning_cmp(&xs[i], &ys[i]) != 0) {
				printf("  %s:%u %s | %s:%u %s\n", xs[i].file,
				       xs[i].line, xs[i].message, ys[i].file,
				       ys[i].line, ys[i].message);
				same = 0;
			}
	} else if (!same) {
		printf("  %zu records against %zu\n", x->len, y->len);
	}
	free(xs);
	free(ys);
	return same;
}

/* Build the warm preview, whose record says says, then the cold one. */
static void both_build(struct lec_preview *warm, struct lec_preview *cold,
		       const char *says)
{
	CHECK_OK(lec_preview_build(warm, NULL, NULL));
	CHECK(cache_says(warm, says));
	CHECK_OK(lec_preview_build(cold, NULL, NULL));
}

/* Every page written by parallel writers through the warm generator
 * (a first build, then a new page, which rewrites every page's
 * navigation) gives the cold serial build's pages and warnings. */
TEST(parallel_writing_equals_serial_writing)
{
	char tree[PATH_MAX], warm_cache[PATH_MAX], cold_cache[PATH_MAX];
	char says[64];
	struct lec_preview *warm, *cold;
	size_t count;

	if (!has_sphinx())
		return;
	side_by_side(tree, warm_cache, cold_cache);
	many_pages(tree, "True");
	if (cores() > 1)
		snprintf(says, sizeof(says), "\"parallel_write\":%d}", cores());
	else
		snprintf(says, sizeof(says), "\"parallel_write\":false,"
					     "\"parallel_write_reason\":"
					     "\"one core\"}");
	if ((warm = open_one(tree, warm_cache, 0)) == NULL ||
	    (cold = open_one(tree, cold_cache, 1)) == NULL)
		return;
	both_build(warm, cold, says);
	CHECK(same_output(warm_cache, cold_cache));
	CHECK(same_warnings(warm, cold, &count));
	CHECK(count >= 2 * MANY_PAGES);
	put(tree, "docs/index.rst", "Many\n====\n\n.. toctree::\n   :glob:\n\n"
				    "   page*\n   new\n");
	put(tree, "docs/new.rst", "New\n===\n\nA new page.\n");
	both_build(warm, cold, says);
	CHECK(same_output(warm_cache, cold_cache));
	CHECK(same_warnings(warm, cold, &count));
	CHECK(count >= 2 * MANY_PAGES);
	/* An edit of one page writes it (and the index) serially. */
	put(tree, "docs/new.rst", "New\n===\n\nA new page, edited.\n");
	both_build(warm, cold, "\"parallel_write\":false,"
			       "\"parallel_write_reason\":\"2 pages to write "
			       "(parallel from 6)\"}");
	CHECK(same_output(warm_cache, cold_cache));
	CHECK(same_warnings(warm, cold, &count));
	lec_preview_free(warm);
	lec_preview_free(cold);
}

/* An extension that is not parallel-write-safe keeps the writing
 * serial, silently (Sphinx's -j would warn, and fail a -W build). */
TEST(an_unsafe_extension_keeps_the_writing_serial)
{
	char tree[PATH_MAX], cache[PATH_MAX];
	struct lec_preview *p;
	const struct lec_warning_set *w;
	size_t i;

	if (!has_sphinx())
		return;
	lec_test_pathf(tree, sizeof(tree), "%s/tree", lec_test_tmpdir());
	lec_test_pathf(cache, sizeof(cache), "%s/cache", lec_test_tmpdir());
	many_pages(tree, "False");
	if ((p = open_one(tree, cache, 0)) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"parallel_write\":false,"
			    "\"parallel_write_reason\":\"warner is not "
			    "parallel-write-safe\"}"));
	w = lec_preview_warnings(p);
	for (i = 0; i < w->len; i++)
		if (strstr(w->items[i].message, "parallel"))
			FAIL_AT("a warning: %s", w->items[i].message);
	lec_preview_free(p);
}

/* A warm generator whose tree is removed (its project or version
 * deleted) stops without waiting for its idle time. */
TEST(a_removed_trees_generator_stops)
{
	char tree[PATH_MAX], cache[PATH_MAX], cmd[PATH_MAX + 16];
	struct lec_preview *p;
	time_t start;

	if (!has_sphinx())
		return;
	if ((p = warm_tree(tree, cache, "docs/conf.py", "project = 'Gone'\n",
			   "docs/index.rst", "Gone\n====\n\nText.\n")) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK_INT(warm_processes(tree), 1);
	lec_test_pathf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	CHECK(system(cmd) == 0);
	start = time(NULL);
	while (warm_processes(tree) > 0 && time(NULL) - start < 20)
		usleep(50 * 1000);
	CHECK_INT(warm_processes(tree), 0);
	lec_preview_free(p);
}

/* An installed extension that says something as it is imported. */
static const char noisy_ext[] =
	"import warnings\n"
	"print('noisy: imported')\n"
	"warnings.warn('noisy is old', UserWarning)\n"
	"def setup(app):\n"
	"    return {'parallel_read_safe': True}\n";

/* The output's lines that name the noisy extension or Sphinx, in the
 * order they came. */
static void noisy_lines(const char *out, char *lines, size_t cap)
{
	const char *at = out;
	size_t n = 0;

	lines[0] = '\0';
	while (at && *at) {
		const char *end = strchr(at, '\n');
		size_t len = end ? (size_t)(end - at) : strlen(at);
		int take = memmem(at, len, "noisy", 5) ||
			   memmem(at, len, "Running Sphinx", 14);

		if (take && n + len + 2 < cap) {
			memcpy(lines + n, at, len);
			n += len;
			lines[n++] = '\n';
			lines[n] = '\0';
		}
		at = end ? end + 1 : NULL;
	}
}

static void collect(void *payload, const char *data, size_t len)
{
	struct lec__buf *b = payload;

	lec__buf_putn(b, data, len);
}

/* What an extension prints as it is imported (once, by the warm parent)
 * reaches the build's output where a cold build prints it: after
 * Sphinx's first line, as it sets the extension up. */
TEST(an_extensions_import_output_reaches_the_build)
{
	char tree[PATH_MAX], warm_cache[PATH_MAX], cold_cache[PATH_MAX];
	char venv[PATH_MAX], python[PATH_MAX], cmd[3 * PATH_MAX];
	char warm_lines[1024], cold_lines[1024];
	struct lec__buf warm_out = LEC__BUF_INIT, cold_out = LEC__BUF_INIT;
	struct lec_preview_callbacks cb = { NULL, collect, NULL, NULL };
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_preview *warm = NULL, *cold = NULL;
	FILE *f;

	if (!has_sphinx())
		return;
	side_by_side(tree, warm_cache, cold_cache);
	lec_test_pathf(venv, sizeof(venv), "%s/venv", lec_test_tmpdir());
	lec_test_pathf(python, sizeof(python), "%s/bin/python", venv);
	lec_test_pathf(cmd, sizeof(cmd),
		       "/usr/bin/python3 -m venv --system-site-packages "
		       "--without-pip '%s' && cat > \"$('%s' -c 'import site; "
		       "print(site.getsitepackages()[0])')/noisyext.py\"",
		       venv, python);
	f = popen(cmd, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs(noisy_ext, f);
	CHECK(pclose(f) == 0);
	put(tree, "docs/conf.py", "extensions = ['noisyext']\n");
	put(tree, "docs/index.rst", "Noisy\n=====\n\nText.\n");
	opts.python = python;
	opts.cache_dir = warm_cache;
	CHECK_OK(lec_preview_open(&warm, tree, &opts));
	opts.cache_dir = cold_cache;
	opts.cold = 1;
	CHECK_OK(lec_preview_open(&cold, tree, &opts));
	if (warm == NULL || cold == NULL)
		goto done;
	cb.payload = &warm_out;
	CHECK_OK(lec_preview_build(warm, &cb, NULL));
	cb.payload = &cold_out;
	CHECK_OK(lec_preview_build(cold, &cb, NULL));
	CHECK(cache_says(warm, "\"generator\":{\"reused\":false"));
	lec__buf_putn(&warm_out, "", 1);
	lec__buf_putn(&cold_out, "", 1);
	noisy_lines(warm_out.ptr, warm_lines, sizeof(warm_lines));
	noisy_lines(cold_out.ptr, cold_lines, sizeof(cold_lines));
	CHECK(strstr(cold_lines, "Running Sphinx v") != NULL);
	CHECK(strstr(cold_lines, "noisy: imported\n") >
	      strstr(cold_lines, "Running Sphinx v"));
	CHECK(strstr(cold_lines, "UserWarning: noisy is old\n") != NULL);
	CHECK_STR(warm_lines, cold_lines);
done:
	lec_preview_free(warm);
	lec_preview_free(cold);
	lec__free(lec__buf_take(&warm_out));
	lec__free(lec__buf_take(&cold_out));
}

/* MkDocs has none, and the record says so. */
TEST(mkdocs_says_it_has_no_warm_generator)
{
	char tree[PATH_MAX], cache[PATH_MAX];
	struct lec_preview *p;

	if (system("/usr/bin/python3 -c 'import mkdocs' 2>/dev/null") != 0) {
		printf("  (skipped: no MkDocs)\n");
		return;
	}
	if ((p = warm_tree(tree, cache, "mkdocs.yml", "site_name: Plain\n", "docs/index.md",
			   "# Plain\n\nText.\n")) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(cache_says(p, "\"generator\":{\"reused\":false,\"reason\":"
			    "\"MkDocs has no warm generator: every build "
			    "starts a new Python\"}"));
	lec_preview_free(p);
}

/* A Python that runs builds but cannot stay warm (its parent exits at
 * once, saying why): the build runs cold with that reason, and without
 * waiting out the parent's start deadline (30 s, once every build of a
 * project that made its own environment). */
static const char unwarmable_python[] =
	"#!/bin/sh\n"
	"case \"$2\" in *'warm Sphinx generator'*)\n"
	"  echo 'this python cannot stay warm' >&2; exit 3;;\n"
	"esac\n"
	"exec /usr/bin/python3 \"$@\"\n";

TEST(a_parent_that_cannot_start_is_noticed_at_once)
{
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	char tree[PATH_MAX], cache[PATH_MAX], python[PATH_MAX];
	const char *dir = lec_test_tmpdir();
	struct lec_preview *p = NULL;
	time_t t0;

	if (!has_sphinx())
		return;
	lec_test_pathf(tree, sizeof(tree), "%s/tree", dir);
	lec_test_pathf(cache, sizeof(cache), "%s/cache", dir);
	lec_test_pathf(python, sizeof(python), "%s/python", dir);
	put(tree, "docs/conf.py", "project = 'Cold'\n");
	put(tree, "docs/index.rst", "Cold\n====\n\nText.\n");
	lec_test_put(dir, "python", unwarmable_python);
	CHECK(chmod(python, 0755) == 0);
	opts.cache_dir = cache;
	opts.python = python;
	CHECK_OK(lec_preview_open(&p, tree, &opts));
	if (p == NULL)
		return;
	t0 = time(NULL);
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(time(NULL) - t0 < 15);
	CHECK(cache_says(p, "\"reason\":\"no warm generator: it exited "
			    "while starting: this python cannot stay warm\""));
	lec_preview_free(p);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(warm_builds_equal_cold_ones),
	TEST_ENTRY(a_damaged_parent_spoils_only_the_next_build),
	TEST_ENTRY(the_trees_own_extension_is_imported_by_each_build),
	TEST_ENTRY(a_stopped_build_ends_and_the_generator_stays),
	TEST_ENTRY(parallel_writing_equals_serial_writing),
	TEST_ENTRY(an_unsafe_extension_keeps_the_writing_serial),
	TEST_ENTRY(a_removed_trees_generator_stops),
	TEST_ENTRY(an_extensions_import_output_reaches_the_build),
	TEST_ENTRY(mkdocs_says_it_has_no_warm_generator),
	TEST_ENTRY(a_parent_that_cannot_start_is_noticed_at_once),
};

LEC_TEST_MAIN(tests)
