/*
 * Lectern's built-in Markdown site generator: the "generic" doc type's
 * builder, used when a repository has neither a Sphinx nor an MkDocs
 * configuration. It turns every .md file under a directory into an HTML page
 * (GitHub-flavoured Markdown through md4c) inside one small static site: a
 * header with the site title, a navigation list of every page, previous/next
 * links, one stylesheet, headings with stable ids and section links, and
 * relative links to .md files rewritten to the generated .html pages. Other
 * files are copied beside the pages. It needs no installed tool and builds a
 * thousand pages in a fraction of a second.
 *
 * Output layout (paths relative to out_dir):
 *   <dir>/<name>.html        a page per <dir>/<name>.md (".md" in any case)
 *   <dir>/index.html         from <dir>/index.md, else <dir>/README.md (any
 *                            letter case; a README.md beside an index.md
 *                            is README.html); at the top a page listing
 *                            every page is generated when neither exists
 *   _lectern/site.css        the stylesheet (themes/site.css, compiled in)
 *   anything else            copied from the source (hard-linked when the
 *                            file system allows)
 *
 * A page's title is its first h1, else its file name (a directory's index
 * page: the directory's name). The navigation lists the pages by directory,
 * each directory's index page first, then its other pages, then its
 * subdirectories, all by name; previous/next follow that order. On a site
 * of more than 2,000 pages each page's navigation opens only the
 * directories leading to it, as the full list would cost pages² bytes.
 */
#ifndef LECTERN_MDSITE_H
#define LECTERN_MDSITE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the stylesheet is written, relative to out_dir. */
#define LEC_MDSITE_STYLESHEET "_lectern/site.css"

/**
 * Receives each warning (a skipped symlink, an unreadable file, a name
 * clash): one line of text without a trailing newline, valid during the call.
 */
typedef void (*lec_mdsite_warn_cb)(const char *message, void *payload);

struct lec_mdsite_options {
	unsigned int version; /* LEC_MDSITE_OPTIONS_VERSION */
	/* The site title; NULL: the first h1 of the top index page (index.md
	 * or README.md), else the source directory's name. */
	const char *title;
	/* Where warnings go; NULL: standard error, one line each. */
	lec_mdsite_warn_cb warn;
	void *warn_payload;
};

#define LEC_MDSITE_OPTIONS_VERSION 1
#define LEC_MDSITE_OPTIONS_INIT { LEC_MDSITE_OPTIONS_VERSION, NULL, NULL, NULL }

struct lec_mdsite_stats {
	size_t pages;     /* HTML pages written, the generated index included */
	size_t assets;    /* other files copied or linked */
	size_t bytes_in;  /* bytes of Markdown read */
	size_t bytes_out; /* bytes of HTML and CSS written (not assets) */
	size_t warnings;  /* warnings reported */
};

/**
 * Build a static HTML site from every .md file under src_dir into out_dir.
 *
 * Skipped while walking: entries whose name starts with '.', directories
 * named _build or node_modules at any depth, _readthedocs and site at the
 * top, and out_dir itself when it lies inside src_dir. Symbolic links are
 * never followed out of src_dir: one whose target lies outside it (or in a
 * skipped directory, or is dangling, or is a directory) is skipped with a
 * warning; one to a file inside it is treated as that file under the link's
 * name. A file that cannot be read is skipped with a warning. Bytes that are
 * not valid UTF-8 are shown as U+FFFD.
 *
 * out_dir is created with its parents when missing; files already in it are
 * overwritten, others are left alone.
 *
 * @param src_dir the source tree (not modified)
 * @param out_dir where the site goes; must not be src_dir
 * @param opts NULL for the defaults (LEC_MDSITE_OPTIONS_INIT)
 * @param stats filled in on success and on failure (what was done so far);
 *              may be NULL
 * @return LEC_OK; LEC_EINVALID (NULL or empty path, unknown options version,
 *         out_dir equal to src_dir); LEC_ENOTFOUND (src_dir missing);
 *         LEC_EIO (src_dir not a readable directory, out_dir or a file in it
 *         cannot be created or written; the message names the path);
 *         LEC_ENOMEM
 */
int lec_mdsite_build(const char *src_dir, const char *out_dir,
		     const struct lec_mdsite_options *opts,
		     struct lec_mdsite_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
