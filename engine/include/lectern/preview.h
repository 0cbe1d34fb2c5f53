/*
 * The writers' preview: build a working tree as it is on disk (uncommitted
 * and untracked files included; no git involved) with the pipeline's own
 * generator choice and commands, into a per-tree cache directory, and
 * publish each successful build as the directory a preview server sends.
 *
 * The generator is chosen as a pipeline build chooses it (.readthedocs.yaml
 * honoured; Sphinx, MkDocs, build.commands / build.jobs, else the built-in
 * Markdown site), and external commands run in the same bubblewrap sandbox,
 * with the tree bound read-only and only the cache directory writable.
 * A preview builds HTML only (no htmlzip, PDF or EPUB) and runs the
 * build-step hooks (pre_build, post_build) but not the checkout and install
 * hooks: those prepare an environment once, not on every save.
 *
 * Cache directory layout (default <base>/lectern/preview/<hash of the
 * tree's real path>, where <base> is $XDG_RUNTIME_DIR when it names a
 * directory (a tmpfs: a Markdown rebuild rewrites the whole site, which a
 * disk's writeback slows down several times), else $XDG_CACHE_HOME, else
 * ~/.cache):
 *   build/html      the generator's output; Sphinx keeps it between builds
 *   doctrees/       Sphinx's environment, so a rebuild is incremental
 *   home/           $HOME of the build commands
 *   gen-<N>/        the output of successful build N, served; older
 *                   ones until lec_preview_prune
 *   site            symlink to the newest gen-<N>, replaced with rename()
 *   warnings.json   the last successful build's warnings: what the next
 *                   is compared with
 *   sphinx-warnings.json, inventory   what a successful Sphinx build
 *                   leaves the next for its warnings (Sphinx warns only
 *                   about the pages it rereads) and its pages and anchors
 * A failed build leaves `site` alone: the last good output stays served.
 *
 * Each build finds its warnings as a pipeline build does
 * (lectern/warning.h): the generator's, and when it succeeds its HTML's
 * broken links; each is new or not against the build before it.
 *
 * A handle is used by one thread at a time.
 */
#ifndef LECTERN_PREVIEW_H
#define LECTERN_PREVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/warning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The published site, relative to the cache directory. */
#define LEC_PREVIEW_SITE "site"

/* What a build reports as it goes. Called on the building thread. */
struct lec_preview_callbacks {
	/* A command starts (its display line, as a build log shows it). */
	void (*command)(void *payload, const char *display);
	/* Output of the running command, in chunks. */
	void (*output)(void *payload, const char *data, size_t len);
	/* Asked while a command runs; non-zero stops the build. */
	int (*cancelled)(void *payload);
	void *payload;
};

struct lec_preview_options {
	unsigned int version; /* LEC_PREVIEW_OPTIONS_VERSION */
	/* NULL: the default (see above). */
	const char *cache_dir;
	/* The Python with Sphinx or MkDocs, an absolute path (never looked
	 * up on a PATH); NULL: /usr/bin/python3, Debian's. */
	const char *python;
	/* Below this point: version 2 and later. */
	/* 1: look for no warnings (no parsing, no link check): the
	 * benchmark's baseline. */
	int no_warnings;
	/* Below this point: version 3 and later. */
	/* 1: no warm generator: every Sphinx build starts a new Python, as
	 * `python -m sphinx` by hand does (the benchmark's and the tests'
	 * reference). 0: a Python that has imported Sphinx and the
	 * extensions conf.py names forks each build (docs/preview.md). */
	int cold;
};
#define LEC_PREVIEW_OPTIONS_VERSION 3
#define LEC_PREVIEW_OPTIONS_INIT                                             \
	{ LEC_PREVIEW_OPTIONS_VERSION, NULL, NULL, 0, 0 }

/* Which generator a build ran. */
enum lec_preview_generator {
	LEC_PREVIEW_MARKDOWN, /* Lectern's built-in Markdown site */
	LEC_PREVIEW_SPHINX,
	LEC_PREVIEW_MKDOCS,
	LEC_PREVIEW_COMMANDS /* build.commands or build.jobs.build */
};

struct lec_preview_result {
	enum lec_preview_generator generator;
	uint64_t generation; /* of the published output (success only) */
	int64_t duration_us; /* the whole build, publishing included */
};

struct lec_preview;

/**
 * Open a preview of a working tree: resolve it, create the cache directory
 * and find out which of Sphinx and MkDocs the Python has.
 * @param out  owned by the caller; free with lec_preview_free
 * @param tree the working tree (a directory)
 * @param opts NULL for the defaults (LEC_PREVIEW_OPTIONS_INIT)
 * @return LEC_OK; LEC_EINVALID (NULL or empty tree, unknown options
 *         version (1 to 3 are known), a cache directory that is the tree); LEC_ENOTFOUND (no
 *         such directory); LEC_EIO (the cache cannot be created); LEC_ENOMEM
 */
int lec_preview_open(struct lec_preview **out, const char *tree,
		     const struct lec_preview_options *opts);

/**
 * Build the tree as it is now and, when the build succeeds, publish it
 * (the site link then names the new output).
 * @param cb     progress callbacks; NULL: none
 * @param result filled on success; may be NULL
 * @return LEC_OK; LEC_ERROR when the build failed, with the reason as the
 *         message (a build log's error: a bad configuration, a command's
 *         exit code...) and the previous output still published;
 *         LEC_EIO when publishing failed; LEC_ENOMEM
 */
int lec_preview_build(struct lec_preview *p,
		      const struct lec_preview_callbacks *cb,
		      struct lec_preview_result *result);

/**
 * Remove the outputs no longer published (the one a build replaced, and
 * any a crashed run left). Publishing leaves them so that a build reports
 * success as soon as its output is served; call this afterwards, when
 * nothing waits on the preview.
 * @return LEC_OK; LEC_EINVALID (p NULL); LEC_EIO (the message names what
 *         could not be removed); LEC_ENOMEM
 */
int lec_preview_prune(struct lec_preview *p);

/**
 * The last build's warnings: the generator's and, when it succeeded, its
 * HTML's broken links; is_new against the last successful build before
 * it (none new after the first build of a cache). Valid until the next
 * build or lec_preview_free.
 */
const struct lec_warning_set *lec_preview_warnings(const struct lec_preview *p);
/** The warnings of the last successful build before the last that the
 * last has not; 0 when the last failed. */
size_t lec_preview_warnings_fixed(const struct lec_preview *p);

/**
 * What the last build reused, as a pipeline build's `cache` record says
 * it: JSON, {"<cache>": {"reused": bool[, "reason": text]}}, among them
 * "generator" for a Sphinx build (whether a warm generator ran it, and
 * why not); NULL when it noted nothing. Valid until the next build or
 * lec_preview_free.
 */
const char *lec_preview_cache(const struct lec_preview *p);

/**
 * What the hosted service refuses in the last build's tree that Lectern
 * built anyway, as one line beginning "the hosted service refuses this: "
 * and then the service's own message (no .readthedocs.yaml: its
 * config:path:default-not-found); NULL when nothing. Valid until the next
 * build or lec_preview_free.
 */
const char *lec_preview_service_refuses(const struct lec_preview *p);

/** The tree's real path. Valid while p lives. */
const char *lec_preview_tree(const struct lec_preview *p);
/** The cache directory. Valid while p lives. */
const char *lec_preview_cache_dir(const struct lec_preview *p);
/** The published site (a symlink; missing before the first success).
 * Valid while p lives. */
const char *lec_preview_site(const struct lec_preview *p);

/**
 * Whether a change to relpath (relative to the tree, '/'-separated) can
 * change the output, so a watcher should rebuild: 1 for the configuration
 * file (.readthedocs.yaml and its variants at the top); 0 for version
 * control and hidden entries (any component starting with '.'), build output
 * directories (_build and node_modules anywhere; _readthedocs and site at
 * the top), what Python writes as a build imports the project
 * (__pycache__, *.pyc, *.pyo, *.egg-info anywhere), the cache directory
 * when it lies inside the tree, and editor leftovers (names ending in '~',
 * .swp/.swo/.swx, vim's "4913" probe, emacs' #autosave#); 1 otherwise.
 */
int lec_preview_relevant(const struct lec_preview *p, const char *relpath);

/** A generator's name: "markdown", "sphinx", "mkdocs", "commands". */
const char *lec_preview_generator_name(enum lec_preview_generator g);

/** Free the handle (the cache directory stays for the next run). Accepts
 * NULL. */
void lec_preview_free(struct lec_preview *p);

#ifdef __cplusplus
}
#endif
#endif
