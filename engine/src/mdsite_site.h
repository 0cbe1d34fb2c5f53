/*
 * The site the Markdown site generator builds, as its parts share it:
 * the pages, assets and navigation found in the source, the trees written
 * into, the kept state of the previous build, and the helpers every part
 * uses (mdsite_site.c). Only the generator's own files include this; the
 * modules it is built on (rendering, text, links, the manifest) have
 * mdsite_internal.h.
 */
#ifndef LECTERN_MDSITE_SITE_H
#define LECTERN_MDSITE_SITE_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hash.h"
#include "internal.h"
#include "lectern/mdsite.h"
#include "mdsite_internal.h"

/* Directory levels walked: real documentation is a few levels deep; a
 * deeper tree is generated or hostile and is cut off with a warning. */
#define LEC_MDSITE__DEPTH_MAX 64
/* Largest page rendered: md4c's offsets are 32-bit and it needs a few times
 * a page's size in memory. Bigger .md files are copied as they are. */
#define LEC_MDSITE__PAGE_MAX ((off_t)256 << 20)
/* Longest warning; longer ones are cut. */
#define LEC_MDSITE__WARNING_MAX 1024

/* No page: a navigation item, or a written path, that is not one. */
#define LEC_MDSITE__NO_PAGE ((size_t)-1)

enum lec_mdsite__nav_kind {
	LEC_MDSITE__NAV_PAGE,
	LEC_MDSITE__NAV_DIR_OPEN,
	LEC_MDSITE__NAV_DIR_CLOSE
};

/* The navigation list in order; prev/next follow the same order. */
struct lec_mdsite__nav_item {
	enum lec_mdsite__nav_kind kind;
	/* A page: it; a directory's opening: its index page, or
	 * LEC_MDSITE__NO_PAGE */
	size_t page;
	char *label; /* an opening without an index page: escaped name */
	size_t end;  /* an opening: its closing item (set by nav_order) */
};

struct lec_mdsite__page {
	char *src_rel;	  /* "guide/README.md"; NULL for the generated index */
	char *read_path;  /* a symbolic link's target, else NULL (src_rel) */
	char *out_rel;	  /* "guide/index.html" */
	char *dir;	  /* "guide": its links resolve from here */
	char *title;	  /* plain text */
	char *title_html; /* escaped */
	char *href;	  /* out_rel escaped for an attribute */
	char *body;	  /* rendered HTML */
	unsigned depth;	  /* directories between the page and the root */
	int is_dir_index;
	int has_h1;    /* title is its first h1 */
	size_t nav_at; /* its item in the navigation */
	/* Kept state: the SHA-256 of the source ("" when unread); the
	 * previous build's page when it may be reused, with the source held
	 * until that is decided; the SHA-256 and size of the HTML written. */
	char hash[LEC__SHA256_HEX_LEN + 1];
	const struct lec_mdsite__kept_page *kept;
	struct lec__buf source;
	char html_hash[LEC__SHA256_HEX_LEN + 1];
	size_t html_size;
};

struct lec_mdsite__asset {
	char *src_rel;
	char *read_path; /* as in struct lec_mdsite__page */
};

/* A directory written into: the output, or the state's copy of it. */
struct lec_mdsite__tree {
	int fd;			     /* -1: not open */
	const char *name;	     /* its path, for messages */
	struct lec_mdsite__map dirs; /* directories made in it */
};

struct lec_mdsite__site {
	const struct lec_mdsite_options *opts;
	struct lec_mdsite_stats *stats;
	int src_fd;
	struct lec_mdsite__tree out;
	char src_real[PATH_MAX], out_real[PATH_MAX];
	struct stat out_st;
	struct lec_mdsite__page *pages;
	size_t npages, pages_cap;
	struct lec_mdsite__asset *assets;
	size_t nassets, assets_cap;
	struct lec_mdsite__nav_item *nav;
	size_t nnav, nav_cap;
	size_t *order; /* pages in navigation order */
	size_t norder;
	int collapse_nav;		/* more than NAV_FULL_MAX pages */
	struct lec_mdsite__map by_src;	/* page src_rel -> page */
	struct lec_mdsite__map outputs; /* every written path -> page */
	char *title, *title_html;
	struct lec__buf html; /* the page being written */
	/* Kept state: state_fd is -1 when none is kept. */
	int state_fd;
	const char *stamp;	       /* the generator's */
	struct lec_mdsite__state prev; /* the previous build's manifest */
	struct lec_mdsite__tree kept;  /* <state_dir>/pages */
	char *kept_name;	       /* its name */
	char site_hash[LEC__SHA256_HEX_LEN + 1]; /* digest of the frame */
	const char *reason; /* why pages are rendered, or NULL */
};

/* Helpers (mdsite_site.c) --------------------------------------------------- */

/* Count a warning and hand it to the options' callback (else stderr). */
void lec_mdsite__warn(struct lec_mdsite__site *s, const char *fmt, ...)
	LEC__PRINTF(2, 3);
void lec_mdsite__tree_close(struct lec_mdsite__tree *t);
/* s made valid UTF-8, then HTML-escaped. Owned by caller. */
char *lec_mdsite__escape_text(const char *s);
/* Whether path (absolute, normalised) is root or lies under it. */
int lec_mdsite__path_within(const char *path, const char *root);

/* Trees: each file written beneath t's descriptor, its directories made. */
int lec_mdsite__write_file(struct lec_mdsite__tree *t, const char *rel,
			   const char *data, size_t len);
/* Make rel in t (its directory made, an older file replaced) a hard link
 * to `from` in from_dir (linkat's flags); *linked is 0 when that cannot be
 * (another file system), and the caller writes the file instead. */
int lec_mdsite__link_into(struct lec_mdsite__tree *t, const char *rel,
			  int from_dir, const char *from, int flags,
			  int *linked);
/* lec_mdsite__link_into for an open file: the link is made from the
 * descriptor, so what lands in t is the file that was checked, whatever
 * its name leads to by then. */
int lec_mdsite__link_open_file(struct lec_mdsite__tree *t, const char *rel,
			       int in, int *linked);
/* Copy the open file `in` to rel in t: bytes through the kernel when it
 * can, else through a buffer. */
int lec_mdsite__copy_data(struct lec_mdsite__tree *t, int in, const char *rel);

/* The source (mdsite_walk.c) ------------------------------------------------- */

/* Walk the source tree into s's pages, assets and navigation. */
int lec_mdsite__walk(struct lec_mdsite__site *s);
/* Append a navigation item (a page: its index in s->pages); the item
 * takes label (owned, may be NULL) even on failure. */
int lec_mdsite__nav_push(struct lec_mdsite__site *s,
			 enum lec_mdsite__nav_kind kind, size_t page,
			 char *label);
/* Drop the navigation items from mark on. */
void lec_mdsite__nav_truncate(struct lec_mdsite__site *s, size_t mark);

/* Kept state (mdsite_kept.c) ------------------------------------------------ */

/* Read what the previous build kept, when there is a state directory.
 * Nothing here fails the build but running out of memory: state that
 * cannot be used means rendering every page, and s->reason says why. */
int lec_mdsite__kept_open(struct lec_mdsite__site *s);
/* Decide which pages are copied from the state, once every page has its
 * title; those held for reuse that will not be are the caller's to
 * render (their kept is NULL then, s->reason set). */
int lec_mdsite__kept_decide(struct lec_mdsite__site *s);
/* Ready the state for this build's pages: the manifest goes first. */
int lec_mdsite__kept_begin(struct lec_mdsite__site *s);
/* Put the page's old HTML from the state into the output (*reused 1),
 * checked against the manifest's digest first; else *reused 0 and the
 * page is rendered. */
int lec_mdsite__kept_reuse(struct lec_mdsite__site *s,
			   struct lec_mdsite__page *p, int *reused);
/* Keep the page just written (s->html) for the next build. */
int lec_mdsite__kept_add(struct lec_mdsite__site *s,
			 struct lec_mdsite__page *p);
/* Record this build for the next one; kept pages no longer in the site
 * are removed. */
int lec_mdsite__kept_commit(struct lec_mdsite__site *s);
/* Stop keeping state after failing to write it (error): LEC_OK unless
 * error is LEC_ENOMEM, and the build goes on without state. */
int lec_mdsite__kept_drop(struct lec_mdsite__site *s, int error);

#endif
