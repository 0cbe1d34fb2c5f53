/*
 * Tests of the writers' preview engine module: opening (errors, the cache
 * rules), Markdown builds published through the site link (each build a
 * fresh output, the previous one removed, deleted pages gone), a broken
 * configuration keeping the last good output, build.commands in the
 * sandbox with the tree read-only even under a hidden $HOME, stopping a
 * build, generations continuing across handles, Sphinx keeping its output
 * for incremental builds while the published copy stays apart, and which
 * paths a watcher should react to.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/preview.h"
#include "lectern/runner.h"

static void mkdirs(const char *path)
{
	char copy[PATH_MAX], *p;

	lec_test_pathf(copy, sizeof(copy), "%s", path);
	for (p = copy + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(copy, 0700);
			*p = '/';
		}
	mkdir(copy, 0700);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	lec_test_pathf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	fclose(f);
}

/* The file's text (caller frees), or NULL when missing. */
static char *slurp(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	char *data;
	FILE *f;

	lec_test_pathf(path, sizeof(path), "%s/%s", dir, rel);
	if (stat(path, &st) != 0 || (f = fopen(path, "r")) == NULL)
		return NULL;
	data = calloc(1, (size_t)st.st_size + 1);
	if (data == NULL ||
	    fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	return data;
}

/* Whether the site's file contains text. */
static int site_has(struct lec_preview *p, const char *rel, const char *text)
{
	char *data = slurp(lec_preview_site(p), rel);
	int found = data && strstr(data, text) != NULL;

	free(data);
	return found;
}

static int exists(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	lec_test_pathf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) == 0;
}

static void site_target(struct lec_preview *p, char *out, size_t cap)
{
	ssize_t n = readlink(lec_preview_site(p), out, cap - 1);

	out[n > 0 ? n : 0] = '\0';
}

/* A tree and a cache beside it in a fresh directory. */
static void tree_and_cache(char *tree, char *cache, size_t cap)
{
	const char *base = lec_test_tmpdir();

	lec_test_pathf(tree, cap, "%s/tree", base);
	lec_test_pathf(cache, cap, "%s/cache", base);
	mkdirs(tree);
}

static struct lec_preview *open_preview(const char *tree, const char *cache)
{
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_preview *p = NULL;

	opts.cache_dir = cache;
	CHECK_OK(lec_preview_open(&p, tree, &opts));
	return p;
}

/* What the callbacks saw. */
struct seen {
	char commands[2048];
	char output[4096];
	int cancel_after; /* cancel once asked this many times; 0: never */
	int asked;
};

static void seen_command(void *payload, const char *display)
{
	struct seen *s = payload;
	size_t n = strlen(s->commands);

	snprintf(s->commands + n, sizeof(s->commands) - n, "%s\n", display);
}

static void seen_output(void *payload, const char *data, size_t len)
{
	struct seen *s = payload;
	size_t n = strlen(s->output);

	if (len > sizeof(s->output) - 1 - n)
		len = sizeof(s->output) - 1 - n;
	memcpy(s->output + n, data, len);
	s->output[n + len] = '\0';
}

static int seen_cancelled(void *payload)
{
	struct seen *s = payload;

	return s->cancel_after > 0 && ++s->asked >= s->cancel_after;
}

TEST(open_rejects_bad_input)
{
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_preview *p = (struct lec_preview *)&opts;
	char tree[PATH_MAX], cache[PATH_MAX], file[PATH_MAX];

	tree_and_cache(tree, cache, sizeof(tree));
	CHECK_ERR(lec_preview_open(&p, NULL, NULL), LEC_EINVALID);
	CHECK(p == NULL);
	CHECK_ERR(lec_preview_open(&p, "", NULL), LEC_EINVALID);
	CHECK_ERR(lec_preview_open(NULL, tree, NULL), LEC_EINVALID);
	CHECK_ERR(lec_preview_open(&p, "/nonexistent/lectern-tree", NULL),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "/nonexistent/lectern-tree: no such "
				    "directory");
	put(tree, "file.md", "# x\n");
	lec_test_pathf(file, sizeof(file), "%s/file.md", tree);
	CHECK_ERR(lec_preview_open(&p, file, NULL), LEC_EINVALID);
	opts.version = 99;
	CHECK_ERR(lec_preview_open(&p, tree, &opts), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "unknown preview options version 99");
	opts.version = LEC_PREVIEW_OPTIONS_VERSION;
	opts.python = "python3";
	CHECK_ERR(lec_preview_open(&p, tree, &opts), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "the Python must be an absolute path, not "
				    "'python3'");
	opts.python = NULL;
	/* The cache must not be the tree nor hold it: a build would read
	 * its own output. */
	opts.cache_dir = tree;
	CHECK_ERR(lec_preview_open(&p, tree, &opts), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "must not be the tree or contain it"));
	lec_test_pathf(cache, sizeof(cache), "%s/..", tree);
	opts.cache_dir = cache;
	CHECK_ERR(lec_preview_open(&p, tree, &opts), LEC_EINVALID);
	CHECK(p == NULL);
	lec_preview_free(NULL);
}

TEST(markdown_builds_publish_fresh_output)
{
	char tree[PATH_MAX], cache[PATH_MAX], target[PATH_MAX];
	struct lec_preview_result r = { LEC_PREVIEW_SPHINX, 0, -1 };
	struct seen seen = { { 0 }, { 0 }, 0, 0 };
	struct lec_preview_callbacks cb = { seen_command, seen_output,
					    seen_cancelled, &seen };
	struct lec_preview *p;

	tree_and_cache(tree, cache, sizeof(tree));
	put(tree, "index.md", "# Home\n\nFirst words.\n");
	put(tree, "guide/page.md", "# Page\n\nA page.\n");
	p = open_preview(tree, cache);
	if (p == NULL)
		return;
	CHECK_STR(lec_preview_cache_dir(p), cache);
	CHECK(exists(cache, "") && !exists(cache, "site"));
	CHECK_OK(lec_preview_build(p, &cb, &r));
	CHECK_INT(r.generator, LEC_PREVIEW_MARKDOWN);
	CHECK_INT(r.generation, 1);
	CHECK(r.duration_us >= 0);
	/* No .readthedocs.yaml: built, with the service's refusal noted. */
	CHECK_STR(seen.commands, ".readthedocs.yaml\n"
				 "lectern markdown . $READTHEDOCS_OUTPUT/html\n");
	CHECK(strstr(seen.output, "2 pages") != NULL);
	CHECK_STR(lec_preview_service_refuses(p),
		  "the hosted service refuses this: Config file not found at "
		  "default path: The required .readthedocs.yaml configuration "
		  "file was not found at repository's root. Learn how to use "
		  "this file in our configuration file tutorial "
		  "(https://docs.readthedocs.io/en/stable/config-file/"
		  "index.html).");
	CHECK(strstr(seen.output, "the hosted service refuses this: Config "
				  "file not found at default path") != NULL);
	site_target(p, target, sizeof(target));
	CHECK_STR(target, "gen-1");
	CHECK(site_has(p, "index.html", "First words."));
	CHECK(site_has(p, "guide/page.html", "A page."));

	/* An edit and a deleted page: the new output has the one and not
	 * the other, and the previous output is gone. */
	put(tree, "index.md", "# Home\n\nSecond words.\n");
	lec_test_pathf(target, sizeof(target), "%s/guide/page.md", tree);
	CHECK(unlink(target) == 0);
	CHECK_OK(lec_preview_build(p, NULL, &r));
	CHECK_INT(r.generation, 2);
	site_target(p, target, sizeof(target));
	CHECK_STR(target, "gen-2");
	CHECK(site_has(p, "index.html", "Second words."));
	CHECK(!exists(lec_preview_site(p), "guide/page.html"));
	/* The replaced output stays until pruned, then goes; the published
	 * one stays. */
	CHECK(exists(cache, "gen-1/index.html"));
	CHECK_OK(lec_preview_prune(p));
	CHECK(!exists(cache, "gen-1"));
	CHECK(exists(cache, "gen-2/index.html"));
	CHECK_ERR(lec_preview_prune(NULL), LEC_EINVALID);
	lec_preview_free(p);

	/* A new handle on the same cache goes on from the published one. */
	p = open_preview(tree, cache);
	if (p == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, &r));
	CHECK_INT(r.generation, 3);
	CHECK_OK(lec_preview_prune(p));
	CHECK(!exists(cache, "gen-2") && exists(cache, "gen-3"));
	lec_preview_free(p);
}

TEST(broken_config_keeps_the_last_good_output)
{
	char tree[PATH_MAX], cache[PATH_MAX], target[PATH_MAX];
	struct lec_preview *p;

	tree_and_cache(tree, cache, sizeof(tree));
	put(tree, "index.md", "# Home\n\nGood words.\n");
	if ((p = open_preview(tree, cache)) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	put(tree, ".readthedocs.yaml", "version: 2\nbuild: [\n");
	put(tree, "index.md", "# Home\n\nNew words.\n");
	CHECK_ERR(lec_preview_build(p, NULL, NULL), LEC_ERROR);
	CHECK(strncmp(lec_error_last(),
		      "Problem in your project's configuration. "
		      ".readthedocs.yaml:3: ",
		      60) == 0);
	/* A file there: nothing the service refuses for its absence. */
	CHECK(lec_preview_service_refuses(p) == NULL);
	site_target(p, target, sizeof(target));
	CHECK_STR(target, "gen-1");
	CHECK(site_has(p, "index.html", "Good words."));
	/* A configuration naming a conf.py that is not there fails as in
	 * the pipeline. */
	put(tree, ".readthedocs.yaml",
	    "version: 2\nbuild:\n  os: ubuntu-22.04\n"
	    "  tools: {python: \"3\"}\n"
	    "sphinx:\n  configuration: docs/conf.py\n");
	CHECK_ERR(lec_preview_build(p, NULL, NULL), LEC_ERROR);
	CHECK_STR(lec_error_last(), "Sphinx configuration file docs/conf.py "
				    "not found in the repository.");
	CHECK(site_has(p, "index.html", "Good words."));
	/* Fixed: the next build publishes. */
	lec_test_pathf(target, sizeof(target), "%s/.readthedocs.yaml", tree);
	CHECK(unlink(target) == 0);
	CHECK_OK(lec_preview_build(p, NULL, NULL));
	CHECK(site_has(p, "index.html", "New words."));
	lec_preview_free(p);
}

/* build.commands of a preview run as the writer, unsandboxed (their own
 * tree on their own machine, docs/preview.md): the tree and $HOME as they
 * are, the output written to the cache. */
TEST(commands_run_as_the_writer)
{
	char tree[PATH_MAX], cache[PATH_MAX], old_home[PATH_MAX];
	const char *home = getenv("HOME");
	struct seen seen = { { 0 }, { 0 }, 0, 0 };
	struct lec_preview_callbacks cb = { seen_command, seen_output,
					    seen_cancelled, &seen };
	struct lec_preview_result r = { LEC_PREVIEW_MARKDOWN, 0, -1 };
	struct lec_preview *p;

	lec_test_pathf(old_home, sizeof(old_home), "%s", home ? home : "");
	/* The tree and cache live under $HOME, which builds see. */
	tree_and_cache(tree, cache, sizeof(tree));
	*strrchr(tree, '/') = '\0';
	setenv("HOME", tree, 1);
	lec_test_pathf(tree, sizeof(tree), "%s/tree", getenv("HOME"));
	put(tree, "page.txt", "from the tree");
	put(tree, ".readthedocs.yaml",
	    "version: 2\n"
	    "build:\n"
	    "  os: ubuntu-22.04\n"
	    "  tools: {python: \"3\"}\n"
	    "  commands:\n"
	    "    - mkdir -p $READTHEDOCS_OUTPUT/html\n"
	    "    - cat page.txt > $READTHEDOCS_OUTPUT/html/index.html\n"
	    "    - touch written && echo tree is writable\n");
	if ((p = open_preview(tree, cache)) == NULL)
		goto done;
	CHECK_OK(lec_preview_build(p, &cb, &r));
	CHECK_INT(r.generator, LEC_PREVIEW_COMMANDS);
	CHECK(site_has(p, "index.html", "from the tree"));
	CHECK(exists(tree, "written"));
	CHECK(strstr(seen.output, "tree is writable") != NULL);
	CHECK(strstr(seen.commands, "touch written && echo tree is "
				    "writable\n") != NULL);

	/* A failing command fails the build with the pipeline's message. */
	put(tree, ".readthedocs.yaml",
	    "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
	    "  commands:\n    - exit 3\n");
	CHECK_ERR(lec_preview_build(p, NULL, NULL), LEC_ERROR);
	CHECK_STR(lec_error_last(), "Command \"exit 3\" failed with exit "
				    "code 3.");
	CHECK(site_has(p, "index.html", "from the tree"));

	/* Stopping: the cancel callback ends a long command at once. */
	put(tree, ".readthedocs.yaml",
	    "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
	    "  commands:\n    - sleep 30\n");
	seen.cancel_after = 1;
	{
		time_t start = time(NULL);

		CHECK_ERR(lec_preview_build(p, &cb, NULL), LEC_ERROR);
		CHECK(time(NULL) - start < 10);
	}
	CHECK(site_has(p, "index.html", "from the tree"));
	lec_preview_free(p);
done:
	if (home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
}

/* Sphinx keeps its output and doctrees in the cache (incremental); the
 * published copy is separate, so the next build cannot change it, and
 * shares the files a build did not write with the previous copy. */
TEST(sphinx_builds_incrementally_into_a_copy)
{
	char tree[PATH_MAX], cache[PATH_MAX], built[PATH_MAX];
	struct lec_preview_result r = { LEC_PREVIEW_MARKDOWN, 0, -1 };
	struct stat a, b;
	struct lec_preview *p;

	if (access("/usr/bin/python3", X_OK) != 0 ||
	    system("/usr/bin/python3 -c 'import sphinx' 2>/dev/null") != 0) {
		printf("  (skipped: no Sphinx)\n");
		return;
	}
	tree_and_cache(tree, cache, sizeof(tree));
	put(tree, "docs/conf.py", "project = 'Tiny'\n");
	put(tree, "docs/index.rst",
	    "Tiny\n====\n\n.. toctree::\n\n   one\n");
	put(tree, "docs/one.rst", "One\n===\n\nFirst paragraph.\n");
	if ((p = open_preview(tree, cache)) == NULL)
		return;
	CHECK_OK(lec_preview_build(p, NULL, &r));
	CHECK_INT(r.generator, LEC_PREVIEW_SPHINX);
	CHECK(site_has(p, "one.html", "First paragraph."));
	CHECK(exists(cache, "doctrees/environment.pickle"));
	put(tree, "docs/one.rst", "One\n===\n\nSecond paragraph.\n");
	CHECK_OK(lec_preview_build(p, NULL, &r));
	CHECK_INT(r.generation, 2);
	CHECK(site_has(p, "one.html", "Second paragraph."));
	lec_test_pathf(built, sizeof(built), "%s/build/html/one.html", cache);
	CHECK(stat(built, &a) == 0);
	lec_test_pathf(built, sizeof(built), "%s/gen-2/one.html", cache);
	CHECK(stat(built, &b) == 0 && a.st_ino != b.st_ino);
	lec_test_pathf(built, sizeof(built), "%s/gen-1/one.html", cache);
	CHECK(stat(built, &a) == 0 && a.st_ino != b.st_ino);
	/* A file the second build did not write is linked from the first
	 * build's published output, not copied again. */
	lec_test_pathf(built, sizeof(built), "%s/gen-1/_static/doctools.js", cache);
	CHECK(stat(built, &a) == 0);
	lec_test_pathf(built, sizeof(built), "%s/gen-2/_static/doctools.js", cache);
	CHECK(stat(built, &b) == 0 && a.st_ino == b.st_ino);
	lec_test_pathf(built, sizeof(built), "%s/build/html/_static/doctools.js", cache);
	CHECK(stat(built, &b) == 0 && a.st_ino != b.st_ino);
	lec_preview_free(p);
}

TEST(relevant_paths)
{
	static const struct {
		const char *path;
		int relevant;
	} cases[] = {
		{ "index.md", 1 },
		{ "docs/guide/page.rst", 1 },
		{ "docs/_static/logo.png", 1 },
		{ ".readthedocs.yaml", 1 },
		{ "readthedocs.yml", 1 },
		{ "docs/.readthedocs.yaml", 0 },
		{ ".git/index", 0 },
		{ ".git", 0 },
		{ "docs/.hidden.md", 0 },
		{ "docs/_build/html/index.html", 0 },
		{ "node_modules/x/readme.md", 0 },
		{ "_readthedocs/html/index.html", 0 },
		{ "site/index.html", 0 },
		{ "docs/site/index.md", 1 },
		{ "site", 0 },
		{ "sites.md", 1 },
		{ "docs/page.md~", 0 },
		{ "docs/.page.md.swp", 0 },
		{ "docs/page.swx", 0 },
		{ "docs/4913", 0 },
		{ "docs/#page.md#", 0 },
		{ "docs/page#1.md", 1 },
		/* What a build writes as it imports the project (issue 43,
		 * item 11). */
		{ "src/pkg/__pycache__/mod.cpython-311.pyc", 0 },
		{ "src/pkg/__pycache__", 0 },
		{ "conf.pyc", 0 },
		{ "src/pkg.egg-info/PKG-INFO", 0 },
		{ "docs/__pycache__.md", 1 },
		{ "src/pkg/mod.py", 1 },
	};
	char tree[PATH_MAX], cache[PATH_MAX];
	struct lec_preview *p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (lec_preview_relevant(NULL, cases[i].path) !=
		    cases[i].relevant)
			FAIL_AT("relevant(%s) should be %d", cases[i].path,
				cases[i].relevant);
	CHECK(lec_preview_relevant(NULL, NULL) == 0);
	/* A cache inside the tree is ignored too. */
	tree_and_cache(tree, cache, sizeof(tree));
	lec_test_pathf(cache, sizeof(cache), "%s/preview-cache", tree);
	if ((p = open_preview(tree, cache)) == NULL)
		return;
	CHECK(lec_preview_relevant(p, "preview-cache/gen-1/index.html") == 0);
	CHECK(lec_preview_relevant(p, "preview-cache") == 0);
	CHECK(lec_preview_relevant(p, "preview-cache2/x.md") == 1);
	lec_preview_free(p);
}

/* Restore an environment variable saved as NULL (unset) or a value. */
static void restore_env(const char *name, const char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
}

static char *saved_env(const char *name)
{
	const char *v = getenv(name);

	return v ? strdup(v) : NULL;
}

/* The default cache: under $XDG_RUNTIME_DIR when it is a directory, else
 * $XDG_CACHE_HOME, else ~/.cache; named by the tree's path. */
TEST(default_cache_directory)
{
	char *runtime = saved_env("XDG_RUNTIME_DIR");
	char *cache_home = saved_env("XDG_CACHE_HOME");
	char *home = saved_env("HOME");
	char tree[PATH_MAX], base[PATH_MAX], want[PATH_MAX];
	struct lec_preview *p;
	const char *got;

	tree_and_cache(tree, base, sizeof(tree));
	*strrchr(base, '/') = '\0';
	lec_test_pathf(want, sizeof(want), "%s/run", base);
	mkdirs(want);
	setenv("XDG_RUNTIME_DIR", want, 1);
	setenv("XDG_CACHE_HOME", "/nonexistent/cache-home", 1);
	if ((p = open_preview(tree, NULL)) != NULL) {
		got = lec_preview_cache_dir(p);
		lec_test_pathf(want, sizeof(want), "%s/run/lectern/preview/", base);
		CHECK(strncmp(got, want, strlen(want)) == 0);
		CHECK_INT(strlen(got), strlen(want) + 16);
		CHECK(strspn(got + strlen(want), "0123456789abcdef") == 16);
		lec_preview_free(p);
	}
	/* No runtime directory: the cache home. */
	lec_test_pathf(want, sizeof(want), "%s/missing-run", base);
	setenv("XDG_RUNTIME_DIR", want, 1);
	lec_test_pathf(want, sizeof(want), "%s/cache-home", base);
	setenv("XDG_CACHE_HOME", want, 1);
	if ((p = open_preview(tree, NULL)) != NULL) {
		lec_test_pathf(want, sizeof(want), "%s/cache-home/lectern/preview/", base);
		CHECK(strncmp(lec_preview_cache_dir(p), want, strlen(want)) == 0);
		lec_preview_free(p);
	}
	/* Neither: ~/.cache. */
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", base, 1);
	if ((p = open_preview(tree, NULL)) != NULL) {
		lec_test_pathf(want, sizeof(want), "%s/.cache/lectern/preview/", base);
		CHECK(strncmp(lec_preview_cache_dir(p), want, strlen(want)) == 0);
		lec_preview_free(p);
	}
	restore_env("XDG_RUNTIME_DIR", runtime);
	restore_env("XDG_CACHE_HOME", cache_home);
	restore_env("HOME", home);
	free(runtime);
	free(cache_home);
	free(home);
}

TEST(generator_names)
{
	CHECK_STR(lec_preview_generator_name(LEC_PREVIEW_MARKDOWN), "markdown");
	CHECK_STR(lec_preview_generator_name(LEC_PREVIEW_SPHINX), "sphinx");
	CHECK_STR(lec_preview_generator_name(LEC_PREVIEW_MKDOCS), "mkdocs");
	CHECK_STR(lec_preview_generator_name(LEC_PREVIEW_COMMANDS),
		  "commands");
}

static const struct lec_test tests[] = {
	TEST_ENTRY(open_rejects_bad_input),
	TEST_ENTRY(markdown_builds_publish_fresh_output),
	TEST_ENTRY(broken_config_keeps_the_last_good_output),
	TEST_ENTRY(commands_run_as_the_writer),
	TEST_ENTRY(sphinx_builds_incrementally_into_a_copy),
	TEST_ENTRY(relevant_paths),
	TEST_ENTRY(default_cache_directory),
	TEST_ENTRY(generator_names),
};

LEC_TEST_MAIN(tests)
