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
 *
 * Incremental builds (options.state_dir): a build keeps there every page
 * it wrote (a hard link to the output's file when both are on one file
 * system, else a copy) and a manifest of what each page was made from, and
 * the next build with the same state_dir, into any out_dir (an empty one
 * too), links (or copies) the pages whose HTML cannot have changed instead
 * of rendering them, each checked against the SHA-256 the manifest gives.
 * The output is always the one a build without state would write, byte for
 * byte. Every page carries the navigation of the whole site, so a page is
 * reused only when
 *   - its Markdown is the same (SHA-256 of its bytes),
 *   - the page list, every page's title and the site's title are the same
 *     (they make up each page's navigation and previous/next links, and
 *     the page list decides where links to .md files lead; a link's
 *     #anchor is written as it stands, so other pages' headings do not
 *     matter), and
 *   - the generator is the same build (the GNU build ids of the program
 *     holding it, the stylesheet included, and of the md4c library).
 * Otherwise every page is rendered. A state that cannot be used (missing,
 * cut short, damaged, from another build of Lectern, a kept page deleted,
 * state_dir not a directory) means a full build and new state, never a
 * failed build; a kept page whose bytes changed (the output's files are
 * the state's: writing into the published site changes them) is rendered
 * again. stats.rebuild_reason says why pages were rendered.
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
	/* A directory for the state of incremental builds (made, mode 0700,
	 * when missing), or NULL: nothing kept, every page rendered. The
	 * generator owns what is in it ("manifest", "pages/"). It must lie
	 * outside src_dir and out_dir (else it is not used, with a warning),
	 * and only Lectern may write the directory: its manifest is trusted
	 * (each page is checked against it). One build at a time per
	 * state_dir. */
	const char *state_dir;
};

#define LEC_MDSITE_OPTIONS_VERSION 2
#define LEC_MDSITE_OPTIONS_INIT                                             \
	{ LEC_MDSITE_OPTIONS_VERSION, NULL, NULL, NULL, NULL }

struct lec_mdsite_stats {
	size_t pages;     /* HTML pages written, the generated index included */
	size_t assets;    /* other files copied or linked */
	size_t bytes_in;  /* bytes of Markdown read */
	size_t bytes_out; /* bytes of HTML and CSS written (not assets) */
	size_t warnings;  /* warnings reported */
	size_t html_skipped; /* HTML files of the source left out */
	size_t pages_rendered; /* pages made anew (pages_rendered + */
	size_t pages_reused;   /* pages_reused = pages) or taken from state */
	/* Why pages were rendered rather than reused, static text; NULL when
	 * every page was reused. One of: "incremental builds are off" (no
	 * state_dir), "first build", "the state was unreadable", "the state
	 * directory could not be used", "Lectern's build has no build id",
	 * "Lectern's generator changed", "a kept page was changed or
	 * deleted", "the page list changed", "a title changed" (a page's or
	 * the site's), "pages changed" (only those pages were rendered). */
	const char *rebuild_reason;
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
 * overwritten, others are left alone. With a state_dir, a failure to keep
 * state (a full disk, a file in the way) is a warning, not an error.
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
