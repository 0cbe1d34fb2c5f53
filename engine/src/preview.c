/*
 * The writers' preview (preview.h): one working tree built with the
 * pipeline's generator steps (build_steps.c) as a job that has no build
 * record, no store and no checkout: the job's "checkout" is the tree itself,
 * bound read-only in the sandbox, and its build directory is the tree's
 * cache directory, the only writable one. Each successful build's HTML is
 * published by pointing the cache's `site` link at it with one rename(), so
 * a server reading through the link sees either the old output or the new,
 * and a failed build never touches what is served.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "build_steps.h"
#include "hash.h"
#include "lectern/preview.h"

/* The cache's published-output directories: GEN_PREFIX<N>. */
#define GEN_PREFIX "gen-"
/* Hex digits of the tree's path hash naming its default cache directory:
 * enough that two trees never share one. */
#define CACHE_HASH_LEN 16
/* Bytes copied at a time when publishing Sphinx's output. */
#define COPY_CHUNK (128 * 1024)
/* Bytes of warnings.json read back: LEC_WARNINGS_MAX records of the
 * longest kind, with room for JSON's escapes. */
/* Bytes of the kept inventory read back: a site's pages and anchors. */
#define INVENTORY_FILE_MAX ((size_t)64 * 1024 * 1024)
#define WARNINGS_FILE_MAX                                                    \
	((size_t)LEC_WARNINGS_MAX *                                          \
	 (6 * (LEC_WARNING_MESSAGE_MAX + LEC_WARNING_FILE_MAX) + 128))

struct lec_preview {
	char *tree;       /* real path */
	char *cache;      /* cache directory */
	char *cache_rel;  /* cache relative to the tree when inside it */
	char *site;       /* cache/site */
	char *output;     /* cache/build ($READTHEDOCS_OUTPUT) */
	char *doctrees;   /* cache/doctrees */
	char *mdsite;     /* cache/mdsite: the Markdown builder's state */
	char *home;       /* cache/home */
	struct lec__build_env env; /* the generator steps' settings */
	struct lec_project project; /* name and slug from the tree's name */
	uint64_t generation;       /* of the output published last */
	/* The last successful build's warnings, kept in warnings_file for
	 * the next run, what a build's are new against (has_last: there was
	 * one); the last build's (current), and how many of last's it lacks
	 * (fixed: 0 after a failed build, which may have stopped early). */
	struct lec_warning_set last, current;
	int has_last;
	size_t fixed;
	int no_warnings;
	char *warnings_file;       /* cache/warnings.json */
	char *sphinx_kept;         /* cache/sphinx-warnings.json */
	char *inventory_file;      /* cache/inventory: the last Sphinx
				      output's pages and anchors */
	/* When the Sphinx build whose output is published began (0: the
	 * published output is not that of a Sphinx build of this handle). */
	int64_t sphinx_published_ns;
	/* What the hosted service refuses in the last build's tree that
	 * Lectern built anyway, one line; NULL: nothing. */
	char *service_refuses;
	char *cache_json; /* the last build's cache notes, or NULL */
};

/* Paths ------------------------------------------------------------------ */

/* An absolute path naming an existing directory. */
static int usable_dir(const char *path)
{
	struct stat sb;

	return path && path[0] == '/' && stat(path, &sb) == 0 &&
	       S_ISDIR(sb.st_mode);
}

/* $XDG_RUNTIME_DIR/lectern/preview/<hash> (a per-user tmpfs where systemd
 * runs: each Markdown rebuild writes the whole site, and a disk's
 * writeback makes that several times slower), else
 * $XDG_CACHE_HOME/lectern/preview/<hash>, else ~/.cache/... */
static char *default_cache(const char *tree)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char hex[LEC__SHA256_HEX_LEN + 1];

	if (lec__sha256_hex(tree, strlen(tree), hex) < 0)
		return NULL;
	hex[CACHE_HASH_LEN] = '\0';
	if (usable_dir(runtime))
		lec__buf_printf(&b, "%s/lectern/preview/%s", runtime, hex);
	else if (xdg && xdg[0] == '/')
		lec__buf_printf(&b, "%s/lectern/preview/%s", xdg, hex);
	else if (home && home[0] == '/')
		lec__buf_printf(&b, "%s/.cache/lectern/preview/%s", home, hex);
	else
		lec__buf_printf(&b, "/tmp/lectern-preview-%s", hex);
	return lec__buf_take(&b);
}

/* The part of path below dir ("" for dir itself), or NULL when outside. */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strncmp(path, dir, n) != 0)
		return NULL;
	if (path[n] == '\0')
		return path + n;
	return path[n] == '/' ? path + n + 1 : NULL;
}

/* The number N of a "gen-N" name, 0 when it is none. */
static uint64_t gen_number(const char *name)
{
	char *end;
	unsigned long long n;

	if (strncmp(name, GEN_PREFIX, strlen(GEN_PREFIX)) != 0)
		return 0;
	n = strtoull(name + strlen(GEN_PREFIX), &end, 10);
	return *end == '\0' ? (uint64_t)n : 0;
}

/* The generation the site link names (0: none). */
static uint64_t published_generation(const struct lec_preview *p)
{
	char target[PATH_MAX];
	ssize_t n = readlink(p->site, target, sizeof(target) - 1);

	if (n <= 0)
		return 0;
	target[n] = '\0';
	return gen_number(target);
}

/* Warnings kept between runs ---------------------------------------------- */

/* The last run's warnings (warnings.json), so that an incremental Sphinx
 * build carries over those of the pages it does not reread; a missing or
 * damaged file is no earlier build. */
static void load_warnings(struct lec_preview *p)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *root = NULL, *item;

	if (lec__read_in(p->cache, "warnings.json", WARNINGS_FILE_MAX, &text,
			 &len) == LEC_OK)
		root = cJSON_ParseWithLength(text, len);
	lec__free(text);
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "records"))
	{
		struct lec_warning w = { 0 };

		if (lec__warning_record_read(item, &w) == LEC_OK)
			lec_warning_set_add(&p->last, w.kind, w.file, w.line,
					    w.message);
	}
	p->has_last = cJSON_IsObject(root);
	cJSON_Delete(root);
	lec_error_clear();
}

/* Write the last build's warnings for the next run (atomically). */
static void save_warnings(struct lec_preview *p)
{
	cJSON *root = cJSON_CreateObject(), *list;
	char *text = NULL;
	size_t i;

	list = root ? cJSON_AddArrayToObject(root, "records") : NULL;
	for (i = 0; list && i < p->last.len; i++)
		lec__warning_record_json(list, &p->last.items[i]);
	if (list)
		text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (text)
		lec__file_replace(p->warnings_file, text, strlen(text));
	cJSON_free(text);
}

/* The build's warnings become the current ones, new ones marked against
 * the last successful build's; a successful build's become the last, kept
 * for the next run. A failed build counts nothing fixed, and leaves the
 * last as it was: what it did not get to is not gone. */
static void keep_warnings(struct lec_preview *p, struct lec_warning_set *set,
			  int ok)
{
	size_t i;

	p->fixed = 0;
	if (p->has_last)
		lec_warning_compare(set, p->last.items, p->last.len, &p->fixed);
	else
		for (i = 0; i < set->len; i++)
			set->items[i].is_new = 0;
	if (!ok)
		p->fixed = 0;
	lec_warning_set_dispose(&p->current);
	p->current = *set;
	memset(set, 0, sizeof(*set));
	if (!ok)
		return;
	lec_warning_set_dispose(&p->last);
	for (i = 0; i < p->current.len; i++)
		lec_warning_set_add(&p->last, p->current.items[i].kind,
				    p->current.items[i].file,
				    p->current.items[i].line,
				    p->current.items[i].message);
	p->last.dropped = p->current.dropped;
	p->has_last = 1;
	save_warnings(p);
}

const struct lec_warning_set *lec_preview_warnings(const struct lec_preview *p)
{
	return &p->current;
}

size_t lec_preview_warnings_fixed(const struct lec_preview *p)
{
	return p->fixed;
}

/* Opening -------------------------------------------------------------------- */

/* Name and slug for the generator steps (the site title, file names):
 * the tree's directory name. */
static int set_project(struct lec_preview *p)
{
	const char *slash = strrchr(p->tree, '/');
	const char *name = slash && slash[1] ? slash + 1 : "docs";

	p->project.name = lec__strdup(name);
	p->project.slug = lec__strdup(name);
	p->project.language = lec__strdup("en");
	return p->project.name && p->project.slug && p->project.language
		       ? LEC_OK
		       : lec__error_oom();
}

static int resolve_tree(const char *tree, char **out)
{
	char real[PATH_MAX];
	struct stat sb;

	if (realpath(tree, real) == NULL)
		return errno == ENOENT
			       ? lec__error(LEC_ENOTFOUND, "%s: no such directory",
					    tree)
			       : lec__error(LEC_EIO, "%s: %s", tree,
					    strerror(errno));
	if (stat(real, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return lec__error(LEC_EINVALID, "%s: not a directory", tree);
	*out = lec__strdup(real);
	LEC__CHECK_ALLOC(*out);
	return LEC_OK;
}

/* The cache path, absolute and normalised (its parents may not exist
 * yet, so realpath cannot do it): relative paths are taken from the
 * current directory. */
static int resolve_cache(const char *opt, char **out)
{
	char cwd[PATH_MAX], real[PATH_MAX];
	struct lec__buf b = LEC__BUF_INIT;
	char *joined;
	int error;

	if (opt[0] == '/') {
		lec__buf_puts(&b, opt);
	} else {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return lec__error(LEC_EIO, "cannot tell the current "
						   "directory: %s",
					  strerror(errno));
		lec__buf_printf(&b, "%s/%s", cwd, opt);
	}
	joined = lec__buf_take(&b);
	LEC__CHECK_ALLOC(joined);
	if ((error = lec__mkdirs(joined)) == LEC_OK) {
		if (realpath(joined, real) == NULL)
			error = lec__error(LEC_EIO, "%s: %s", joined,
					   strerror(errno));
		else if ((*out = lec__strdup(real)) == NULL)
			error = lec__error_oom();
	}
	lec__free(joined);
	return error;
}

static int make_paths(struct lec_preview *p, const char *cache_opt)
{
	const char *rel;
	int error;

	if (cache_opt) {
		if ((error = resolve_cache(cache_opt, &p->cache)) < 0)
			return error;
	} else {
		p->cache = default_cache(p->tree);
		LEC__CHECK_ALLOC(p->cache);
		if ((error = lec__mkdirs(p->cache)) < 0)
			return error;
	}
	if (strcmp(p->cache, p->tree) == 0 || below(p->tree, p->cache))
		return lec__error(LEC_EINVALID, "the cache directory %s must "
						"not be the tree or contain it",
				  p->cache);
	rel = below(p->cache, p->tree);
	if (rel && (p->cache_rel = lec__strdup(rel)) == NULL)
		return lec__error_oom();
	p->site = lec__path_join(p->cache, LEC_PREVIEW_SITE);
	p->output = lec__path_join(p->cache, "build");
	p->doctrees = lec__path_join(p->cache, "doctrees");
	p->mdsite = lec__path_join(p->cache, "mdsite");
	p->home = lec__path_join(p->cache, "home");
	p->warnings_file = lec__path_join(p->cache, "warnings.json");
	p->sphinx_kept = lec__path_join(p->cache, "sphinx-warnings.json");
	p->inventory_file = lec__path_join(p->cache, "inventory");
	if (!p->site || !p->output || !p->doctrees || !p->mdsite || !p->home ||
	    !p->warnings_file || !p->sphinx_kept || !p->inventory_file)
		return lec__error_oom();
	return LEC_OK;
}

int lec_preview_open(struct lec_preview **out, const char *tree,
		     const struct lec_preview_options *opts)
{
	struct lec_preview_options defaults = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_pipeline_config config = { 0 };
	struct lec_preview *p = NULL;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (out == NULL || tree == NULL || tree[0] == '\0')
		return lec__error(LEC_EINVALID, "no tree to preview");
	if (opts->version < 1 || opts->version > LEC_PREVIEW_OPTIONS_VERSION)
		return lec__error(LEC_EINVALID,
				  "unknown preview options version %u",
				  opts->version);
	if (opts->python && opts->python[0] != '/')
		return lec__error(LEC_EINVALID, "the Python must be an absolute "
						"path, not '%s'",
				  opts->python);
	p = lec__calloc(1, sizeof(*p));
	LEC__CHECK_ALLOC(p);
	config.limits = (struct lec_runner_limits)LEC_RUNNER_LIMITS_INIT;
	if ((error = lec__build_env_init(&p->env, &config)) < 0 ||
	    (error = resolve_tree(tree, &p->tree)) < 0 ||
	    (error = make_paths(p, opts->cache_dir)) < 0 ||
	    (error = set_project(p)) < 0)
		goto done;
	if ((error = lec__build_env_find_python(
		     &p->env, opts->python ? opts->python : LEC__DEBIAN_PYTHON)) <
	    0)
		goto done;
	p->generation = published_generation(p);
	p->no_warnings = opts->version >= 2 && opts->no_warnings;
	/* The tree's own warm generator, stopped with the handle. */
	if (!(opts->version >= 3 && opts->cold) &&
	    (error = lec__warm_pool_new(&p->env.warm, NULL)) < 0)
		goto done;
	load_warnings(p);
	*out = p;
	p = NULL;
done:
	lec_preview_free(p);
	return error;
}

void lec_preview_free(struct lec_preview *p)
{
	if (p == NULL)
		return;
	lec__free(p->tree);
	lec__free(p->cache);
	lec__free(p->cache_rel);
	lec__free(p->site);
	lec__free(p->output);
	lec__free(p->doctrees);
	lec__free(p->mdsite);
	lec__free(p->home);
	lec__free(p->warnings_file);
	lec__free(p->service_refuses);
	lec__free(p->sphinx_kept);
	lec__free(p->inventory_file);
	lec__free(p->cache_json);
	lec_warning_set_dispose(&p->last);
	lec_warning_set_dispose(&p->current);
	lec__warm_pool_free(p->env.warm);
	lec__build_env_dispose(&p->env);
	lec__free(p->project.name);
	lec__free(p->project.slug);
	lec__free(p->project.language);
	lec__free(p);
}

const char *lec_preview_tree(const struct lec_preview *p)
{
	return p->tree;
}

const char *lec_preview_cache_dir(const struct lec_preview *p)
{
	return p->cache;
}

const char *lec_preview_site(const struct lec_preview *p)
{
	return p->site;
}

const char *lec_preview_cache(const struct lec_preview *p)
{
	return p ? p->cache_json : NULL;
}

const char *lec_preview_service_refuses(const struct lec_preview *p)
{
	return p->service_refuses;
}

const char *lec_preview_generator_name(enum lec_preview_generator g)
{
	switch (g) {
	case LEC_PREVIEW_SPHINX:
		return "sphinx";
	case LEC_PREVIEW_MKDOCS:
		return "mkdocs";
	case LEC_PREVIEW_COMMANDS:
		return "commands";
	case LEC_PREVIEW_MARKDOWN:
	default:
		return "markdown";
	}
}

/* Watching ------------------------------------------------------------------- */

/* An editor's leftover or probe, never part of the documentation. */
static int editor_file(const char *name, size_t n)
{
	static const char *const suffixes[] = { "~", ".swp", ".swo", ".swx" };
	size_t i;

	if (n == 4 && strncmp(name, "4913", 4) == 0)
		return 1;
	if (n >= 2 && name[0] == '#' && name[n - 1] == '#')
		return 1;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t m = strlen(suffixes[i]);

		if (n >= m && strncmp(name + n - m, suffixes[i], m) == 0)
			return 1;
	}
	return 0;
}

/* What Python writes into a tree as a build imports the project (autodoc,
 * a conf.py importing a local module): bytecode, and the metadata of an
 * editable install. Never documentation, and written by the build
 * itself, so a change to it is no reason to build again. */
static int python_byproduct(const char *name, size_t n)
{
	static const char *const suffixes[] = { ".pyc", ".pyo", ".egg-info" };
	size_t i, m;

	if (n == 11 && strncmp(name, "__pycache__", 11) == 0)
		return 1;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		m = strlen(suffixes[i]);
		if (n > m && strncmp(name + n - m, suffixes[i], m) == 0)
			return 1;
	}
	return 0;
}

/* The configuration file names lec_rtd_config_find looks for at the top:
 * hidden, yet the build depends on them. */
static int config_file(const char *relpath)
{
	static const char *const names[] = { ".readthedocs.yaml",
					     ".readthedocs.yml",
					     "readthedocs.yaml",
					     "readthedocs.yml" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(relpath, names[i]) == 0)
			return 1;
	return 0;
}

int lec_preview_relevant(const struct lec_preview *p, const char *relpath)
{
	const char *s = relpath, *end;
	int top = 1;

	if (relpath == NULL)
		return 0;
	if (config_file(relpath))
		return 1;
	if (p && p->cache_rel && below(relpath, p->cache_rel))
		return 0;
	for (; *s; s = *end ? end + 1 : end, top = 0) {
		size_t n;

		end = strchr(s, '/');
		if (end == NULL)
			end = s + strlen(s);
		n = (size_t)(end - s);
		if (n == 0)
			continue;
		if (s[0] == '.' || editor_file(s, n) ||
		    python_byproduct(s, n) ||
		    (n == 6 && strncmp(s, "_build", 6) == 0) ||
		    (n == 12 && strncmp(s, "node_modules", 12) == 0) ||
		    (top && ((n == 12 && strncmp(s, "_readthedocs", 12) == 0) ||
			     (n == 4 && strncmp(s, "site", 4) == 0))))
			return 0;
	}
	return 1;
}

/* The job's log, to the caller's callbacks ----------------------------------- */

static void sink_start(void *payload, const char *display)
{
	const struct lec_preview_callbacks *cb = payload;

	if (cb->command)
		cb->command(cb->payload, display);
}

static void sink_text(void *payload, const char *data, size_t len)
{
	const struct lec_preview_callbacks *cb = payload;

	if (cb->output)
		cb->output(cb->payload, data, len);
}

static void sink_finish(void *payload, int exit_code)
{
	(void)payload;
	(void)exit_code;
}

static int sink_cancelled(void *payload)
{
	const struct lec_preview_callbacks *cb = payload;

	return cb->cancelled ? cb->cancelled(cb->payload) : 0;
}

/* Building ------------------------------------------------------------------- */

/* What build commands see: the pipeline's variables for a branch version
 * "latest" of a project named after the tree. */
static char **preview_env(const struct lec_preview *p)
{
	const char *fixed[][2] = {
		{ "PATH", "/usr/local/bin:/usr/bin:/bin" },
		{ "HOME", p->home },
		{ "LANG", "C.UTF-8" },
		{ "NO_COLOR", "1" },
		{ "READTHEDOCS", "True" },
		{ "READTHEDOCS_VERSION", "latest" },
		{ "READTHEDOCS_VERSION_TYPE", "branch" },
		{ "READTHEDOCS_VERSION_NAME", "latest" },
		{ "READTHEDOCS_PROJECT", p->project.slug },
		{ "READTHEDOCS_LANGUAGE", p->project.language },
		{ "READTHEDOCS_REPOSITORY_PATH", p->tree },
		{ "READTHEDOCS_OUTPUT", NULL },
	};
	size_t n = sizeof(fixed) / sizeof(fixed[0]), i;
	char **env = lec__calloc(n + 1, sizeof(char *));
	struct lec__buf b = LEC__BUF_INIT;

	for (i = 0; env && i < n; i++) {
		if (fixed[i][1])
			lec__buf_printf(&b, "%s=%s", fixed[i][0], fixed[i][1]);
		else
			lec__buf_printf(&b, "%s=%s/", fixed[i][0], p->output);
		if ((env[i] = lec__buf_take(&b)) == NULL)
			break;
	}
	if (env && i < n) {
		while (i > 0)
			lec__free(env[--i]);
		lec__free(env);
		env = NULL;
	}
	return env;
}

static enum lec_preview_generator public_generator(enum lec__generator g)
{
	switch (g) {
	case LEC__GEN_SPHINX:
		return LEC_PREVIEW_SPHINX;
	case LEC__GEN_MKDOCS:
		return LEC_PREVIEW_MKDOCS;
	case LEC__GEN_COMMANDS:
	case LEC__GEN_JOBS:
		return LEC_PREVIEW_COMMANDS;
	case LEC__GEN_MARKDOWN:
	default:
		return LEC_PREVIEW_MARKDOWN;
	}
}

/* Publishing ----------------------------------------------------------------- */

static int copy_file_at(int from_dir, int to_dir, const char *name,
			mode_t mode)
{
	char *buf = lec__malloc(COPY_CHUNK);
	int in = openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = openat(to_dir, name,
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 mode & 0777);
	ssize_t n = 0;
	int rc = buf && in >= 0 && out >= 0 ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, COPY_CHUNK)) > 0) {
		ssize_t done = 0;

		while (rc == 0 && done < n) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w < 0)
				rc = -1;
			else
				done += w;
		}
	}
	if (n < 0)
		rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		rc = -1;
	lec__free(buf);
	return rc;
}

/* One directory level of a copy: where from, where to, and the same
 * directory in the previously published output (-1: none). */
struct copy_dirs {
	int from, to, prev;
};

/* Close the descriptors that are open (-1: not). */
static void copy_dirs_close(const struct copy_dirs *d)
{
	const int fds[] = { d->from, d->to, d->prev };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int64_t mtime_ns(const struct stat *sb)
{
	return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

static int open_dir_at(int parent, const char *name)
{
	return parent < 0 ? -1
			  : openat(parent, name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int copy_level(struct copy_dirs dirs, int64_t reuse_before_ns);

/* A subdirectory: created in the copy, then copied level by level. */
static int copy_subdir(const struct copy_dirs *dirs, const char *name,
		       int64_t reuse_before_ns)
{
	struct copy_dirs sub = { -1, -1, -1 };
	int rc = -1;

	if (mkdirat(dirs->to, name, 0700) == 0) {
		sub.from = open_dir_at(dirs->from, name);
		sub.to = open_dir_at(dirs->to, name);
		sub.prev = open_dir_at(dirs->prev, name);
		rc = sub.from >= 0 && sub.to >= 0
			     ? copy_level(sub, reuse_before_ns)
			     : -1;
	}
	copy_dirs_close(&sub);
	return rc;
}

/* cp -r of regular files and directories (Sphinx writes no others). A
 * file Sphinx last wrote before reuse_before_ns (the start of the build
 * whose output is published) is the same as in that output, and is
 * hard-linked from it; the others are copied: Sphinx rewrites its files
 * in place, so a link into its own output would change the published copy
 * under the server at the next build. */
static int copy_level(struct copy_dirs dirs, int64_t reuse_before_ns)
{
	DIR *d = fdopendir(dup(dirs.from));
	struct dirent *e;
	struct stat sb;
	int rc = d ? 0 : -1;

	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirs.from, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			rc = copy_subdir(&dirs, e->d_name, reuse_before_ns);
		else if (S_ISREG(sb.st_mode) &&
			 !(dirs.prev >= 0 && mtime_ns(&sb) < reuse_before_ns &&
			   linkat(dirs.prev, e->d_name, dirs.to, e->d_name, 0) ==
				   0))
			rc = copy_file_at(dirs.from, dirs.to, e->d_name,
					  sb.st_mode);
	}
	if (d)
		closedir(d);
	return rc;
}

static int copy_tree(const char *from, const char *to, const char *prev,
		     int64_t reuse_before_ns)
{
	struct copy_dirs dirs = { -1, -1, -1 };
	int rc = -1;

	if (mkdir(to, 0700) == 0 &&
	    (dirs.from = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    (dirs.to = open(to, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		dirs.prev = prev ? open(prev, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
				 : -1;
		rc = copy_level(dirs, reuse_before_ns);
	}
	copy_dirs_close(&dirs);
	return rc;
}

/* The clock file times come from: the kernel stamps them with the coarse
 * clock, which may lag the precise one by a tick, and a file written just
 * after this reading must not look older than it. */
static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Put the HTML into gen-<N> and point the site link at it: moved, or for
 * Sphinx's output, which its next build updates, copied (see copy_level;
 * started_ns: when this build began). */
static int publish(struct lec_preview *p, int keep_output, int64_t started_ns)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *html = lec__path_join(p->output, "html");
	char *gen = NULL, *tmp = NULL;
	uint64_t n = p->generation + 1;
	struct stat sb;
	int error = LEC_OK, rc;

	lec__buf_printf(&b, "%s/" GEN_PREFIX "%llu", p->cache,
			(unsigned long long)n);
	gen = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/.%s.tmp", p->cache, LEC_PREVIEW_SITE);
	tmp = lec__buf_take(&b);
	if (html == NULL || gen == NULL || tmp == NULL) {
		error = lec__error_oom();
		goto done;
	}
	if (stat(html, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		error = lec__error(LEC_ERROR, "The build wrote no HTML into "
					      "$READTHEDOCS_OUTPUT/html.");
		goto done;
	}
	lec__remove_tree(gen); /* left by a run that died here */
	unlink(tmp);
	rc = keep_output ? copy_tree(html, gen,
				     p->sphinx_published_ns ? p->site : NULL,
				     p->sphinx_published_ns)
			 : rename(html, gen);
	if (rc < 0 || symlink(gen + strlen(p->cache) + 1, tmp) < 0 ||
	    rename(tmp, p->site) < 0) {
		error = lec__error(LEC_EIO, "Publishing the preview failed: %s",
				   strerror(errno));
		lec__remove_tree(gen);
		goto done;
	}
	p->generation = n;
	p->sphinx_published_ns = keep_output ? started_ns : 0;
done:
	lec__free(html);
	lec__free(gen);
	lec__free(tmp);
	return error;
}

int lec_preview_prune(struct lec_preview *p)
{
	uint64_t keep;
	struct dirent *e;
	DIR *d;
	int error = LEC_OK;

	lec_error_clear();
	if (p == NULL)
		return lec__error(LEC_EINVALID, "no preview");
	keep = published_generation(p);
	if ((d = opendir(p->cache)) == NULL)
		return lec__error(LEC_EIO, "%s: %s", p->cache, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		uint64_t n = gen_number(e->d_name);
		char *path;

		if (n == 0 || n == keep)
			continue;
		path = lec__path_join(p->cache, e->d_name);
		if (path == NULL)
			error = lec__error_oom();
		else if (lec__remove_tree(path) < 0)
			error = LEC_EIO;
		lec__free(path);
	}
	closedir(d);
	return error;
}

/* The built HTML's broken links into set, before it is published (moved
 * away), and with inv non-NULL its pages and anchors (*inv owned). A
 * preview has no earlier inventory: nothing is `removed`. */
static void check_links(struct lec_preview *p, struct lec_warning_set *set,
			char **inv, size_t *inv_len)
{
	char *html;

	if (p->no_warnings || (html = lec__path_join(p->output, "html")) == NULL)
		return;
	lec__linkcheck(html, set, NULL, 0, inv, inv_len, NULL);
	lec__free(html);
	lec_error_clear();
}

static int count_doctree(const struct lec__walk_at *at,
			 enum lec__walk_event event, void *payload)
{
	size_t n = strlen(at->name), *count = payload;

	if (event == LEC__WALK_ENTRY && S_ISREG(at->st->st_mode) && n > 8 &&
	    strcmp(at->name + n - 8, ".doctree") == 0)
		(*count)++;
	return 0;
}

/* Whether the pages an incremental Sphinx build did not write may show
 * what changed (Sphinx rewrites only the pages of what it read): some
 * were not written, and documents were added or removed, or the pages
 * and anchors (inv, inv_len) are not the last build's. The pipeline
 * knows it from the commit's changes before it builds; a preview has
 * only the tree. */
static int sphinx_stale(const struct lec_preview *p, const struct lec__job *job,
			const char *inv, size_t inv_len)
{
	char *prev = NULL;
	size_t prev_len = 0, docs = 0;
	int stale;

	if (!job->sphinx_prev_ok || !job->sphinx_next_ok || inv == NULL)
		return 0;
	lec__walk(AT_FDCWD, p->doctrees, count_doctree, &docs);
	if (job->sphinx_trace.written.len >= docs)
		return 0;
	stale = job->sphinx_trace.moved ||
		lec__read_in(p->cache, "inventory", INVENTORY_FILE_MAX, &prev,
			     &prev_len) < 0 ||
		prev_len != inv_len || memcmp(prev, inv, inv_len) != 0;
	lec__free(prev);
	lec_error_clear();
	return stale;
}

/* Sphinx once more, writing every page, on what the first run read:
 * its kept warnings are this run's earlier ones. */
static int sphinx_rewrite(struct lec_preview *p, struct lec__job *job)
{
	char *html = lec__path_join(p->output, "html");

	lec__sphinx_kept_dispose(&job->sphinx_prev);
	job->sphinx_prev = job->sphinx_next;
	memset(&job->sphinx_next, 0, sizeof(job->sphinx_next));
	job->sphinx_next_ok = 0;
	lec__sphinx_trace_dispose(&job->sphinx_trace);
	memset(&job->sphinx_trace, 0, sizeof(job->sphinx_trace));
	lec_warning_set_dispose(&job->warnings);
	if (html == NULL)
		return lec__job_fail(job, "out of memory");
	lec__remove_tree(html);
	lec__free(html);
	return lec__job_build_docs(job);
}

/* The inventory of a Sphinx output, for the next build (NULL: none). */
static void save_inventory(const struct lec_preview *p, const char *inv,
			   size_t len)
{
	unlink(p->inventory_file);
	if (inv)
		lec__file_replace(p->inventory_file, inv, len);
}

/* A successful generator run's links checked (Sphinx's pages rewritten
 * first when some it left may be stale), then published. */
/* viewcode's pages an incremental Sphinx build no longer makes: Sphinx
 * never removes what an earlier build wrote, so once a module stopped
 * importing its page stayed, with links to anchors that are gone, where a
 * fresh build has none. viewcode writes a module's page again only when
 * the module's source is newer, but lists every module it has in
 * _modules/index.html, which it writes on every build that has one: a
 * page under _modules/ older than the build (not written by it) and not
 * in that list goes, and with no list written all of them, so that
 * neither the link check nor the site shows them. Nothing else is
 * touched: a page Sphinx did not write may still be current (its
 * document unchanged, an html_extra_path file copied with its own
 * time). */
#define VIEWCODE_DIR "_modules"
#define VIEWCODE_INDEX "index.html"
/* Bytes of viewcode's list of modules read: one link a module. */
#define VIEWCODE_INDEX_MAX ((size_t)4 * 1024 * 1024)

struct stale_pages {
	int64_t started_ns;
	char *modules;      /* this build's _modules/index.html, or NULL */
	size_t modules_len;
};

/* Whether this build's list of modules links to path (below _modules/). */
static int listed_module(const struct stale_pages *sp, const char *path)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *href;
	int listed;

	if (sp->modules == NULL)
		return 0;
	lec__buf_printf(&b, "href=\"%s\"", path);
	if ((href = lec__buf_take(&b)) == NULL)
		return 1; /* out of memory: keep it */
	listed = memmem(sp->modules, sp->modules_len, href, strlen(href)) !=
		 NULL;
	lec__free(href);
	return listed;
}

static int drop_stale_page(const struct lec__walk_at *at,
			   enum lec__walk_event event, void *payload)
{
	const struct stale_pages *sp = payload;
	size_t n = strlen(at->path);

	if (event != LEC__WALK_ENTRY || !S_ISREG(at->st->st_mode) || n < 5 ||
	    strcmp(at->path + n - 5, ".html") != 0)
		return 0;
	/* The file system's clock lags by a tick at most; Sphinx writes
	 * nothing in its first tenths of a second. */
	if (mtime_ns(at->st) >= sp->started_ns ||
	    listed_module(sp, at->path))
		return 0;
	if (unlinkat(at->dirfd, at->name, 0) < 0 && errno != ENOENT)
		return lec__error(LEC_EIO, "removing the stale page %s: %s",
				  at->path, strerror(errno));
	return 0;
}

static void drop_stale_pages(const struct lec_preview *p, int64_t started_ns)
{
	struct stale_pages sp = { started_ns, NULL, 0 };
	char *html = lec__path_join(p->output, "html");
	char *dir = html ? lec__path_join(html, VIEWCODE_DIR) : NULL;
	char *index = dir ? lec__path_join(dir, VIEWCODE_INDEX) : NULL;
	struct stat st;

	if (index && lstat(index, &st) == 0 && S_ISREG(st.st_mode) &&
	    mtime_ns(&st) >= started_ns)
		lec__read_in(dir, VIEWCODE_INDEX, VIEWCODE_INDEX_MAX,
			     &sp.modules, &sp.modules_len);
	if (dir)
		lec__walk(AT_FDCWD, dir, drop_stale_page, &sp);
	lec__free(sp.modules);
	lec__free(index);
	lec__free(dir);
	lec__free(html);
	lec_error_clear();
}

static int check_and_publish(struct lec_preview *p, struct lec__job *job,
			     int keep, int64_t started_ns)
{

	struct lec_warning_set links = { 0 };
	char *inv = NULL;
	size_t inv_len = 0, i;
	int error;

	if (keep)
		drop_stale_pages(p, started_ns);
	check_links(p, &links, keep ? &inv : NULL, &inv_len);
	if (keep && sphinx_stale(p, job, inv, inv_len)) {
		lec_warning_set_dispose(&links);
		lec__free(inv);
		inv = NULL;
		if (sphinx_rewrite(p, job) < 0)
			return LEC_ERROR;
		check_links(p, &links, &inv, &inv_len);
	}
	for (i = 0; i < links.len; i++)
		lec_warning_set_add(&job->warnings, links.items[i].kind,
				    links.items[i].file, links.items[i].line,
				    links.items[i].message);
	job->warnings.dropped += links.dropped;
	lec_warning_set_dispose(&links);
	error = publish(p, keep, started_ns);
	save_inventory(p, error == LEC_OK ? inv : NULL, inv_len);
	lec__free(inv);
	return error;
}

/* The cache directories a build writes. Markdown, MkDocs and commands
 * start from an empty output; Sphinx keeps its own for incremental
 * builds. */
static int prepare_dirs(struct lec_preview *p, int keep_output)
{
	int error = LEC_OK;

	if (!keep_output)
		error = lec__remove_tree(p->output);
	if (error == LEC_OK)
		error = lec__mkdirs(p->output);
	if (error == LEC_OK)
		error = lec__mkdirs(p->home);
	return error;
}

int lec_preview_build(struct lec_preview *p,
		      const struct lec_preview_callbacks *cb,
		      struct lec_preview_result *result)
{
	struct lec__job_sink sink = { sink_start, sink_text, sink_finish,
				      sink_cancelled, NULL, NULL };
	struct lec_preview_callbacks callbacks = { 0 };
	struct lec__job job = { 0 };
	int64_t start = lec__now_us(), started_ns = realtime_ns();
	enum lec__generator gen = LEC__GEN_MARKDOWN;
	int error = LEC_OK, keep;

	lec_error_clear();
	if (p == NULL)
		return lec__error(LEC_EINVALID, "no preview");
	if (cb)
		callbacks = *cb;
	sink.payload = &callbacks;
	job.env = &p->env;
	job.project = &p->project;
	job.checkout = p->tree;
	job.build_dir = p->cache;
	job.output = p->output;
	job.doctrees = p->doctrees;
	job.mdsite_state = p->mdsite;
	job.html_only = 1;
	job.sink = &sink;
	job.warnings_off = p->no_warnings;
	if ((job.cmd_env = preview_env(p)) == NULL ||
	    (!p->no_warnings &&
	     (job.sphinx_kept_path = lec__strdup(p->sphinx_kept)) == NULL)) {
		error = lec__error_oom();
		goto done;
	}
	if (lec__job_read_config(&job, NULL) == LEC_OK) {
		gen = lec__job_generator(&job);
		keep = gen == LEC__GEN_SPHINX;
		if ((error = prepare_dirs(p, keep)) < 0)
			goto done;
		if (lec__job_build_docs(&job) == LEC_OK)
			error = check_and_publish(p, &job, keep, started_ns);
	}
	lec__job_sphinx_keep(&job, error == LEC_OK && !job.error &&
					   !job.cancelled);
	lec__free(p->service_refuses);
	p->service_refuses = job.service_refuses;
	job.service_refuses = NULL;
	lec__free(p->cache_json);
	p->cache_json = lec__job_cache_json(&job);
	if (job.error || job.cancelled)
		error = lec__error(LEC_ERROR, "%s",
				   job.error ? job.error
					     : "The build was stopped.");
	if (!p->no_warnings)
		keep_warnings(p, &job.warnings, error == LEC_OK);
	if (error == LEC_OK && result) {
		result->generator = public_generator(gen);
		result->generation = p->generation;
		result->duration_us = lec__now_us() - start;
	}
done:
	lec__job_sphinx_keep(&job, 0);
	lec__env_free(job.cmd_env);
	lec_rtd_config_free(job.config);
	lec__free(job.error);
	lec__free(job.failure_message);
	lec__free(job.service_refuses);
	lec_warning_set_dispose(&job.warnings);
	return error;
}
