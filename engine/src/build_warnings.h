/*
 * Finding a build's warnings (lectern/warning.h's records) without a
 * store: the generators' output read as it streams (build_warnings.c),
 * the warnings of pages Sphinx did not reread carried over from the last
 * build (build_carry.c), and the links and anchors of published HTML
 * (linkcheck.c). The pipeline's steps and the preview call these; they
 * call nothing of the pipeline's, only the warning set and the file
 * helpers.
 */
#ifndef LECTERN_BUILD_WARNINGS_H
#define LECTERN_BUILD_WARNINGS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "lectern/warning.h"

/* Output parsing ----------------------------------------------------------- */

/* Bytes of one output line looked at; the rest of a longer line (a
 * minified blob, binary junk) is skipped. */
#define LEC__WARN_LINE_MAX 8192
/* Lines after a warning taken into its message (the source block Sphinx
 * quotes, an import's exception); a runaway follow-up is cut. */
#define LEC__WARN_FOLLOW_LINES 40

enum lec__warn_format {
	LEC__WARN_SPHINX,
	LEC__WARN_MKDOCS,
};

/* A generator's output being read. Set up with lec__warn_parser_init,
 * fed in any chunks, ended once, then disposed. */
struct lec__warn_parser {
	enum lec__warn_format format;
	struct lec_warning_set *set;    /* where records go (borrowed) */
	const char *root;   /* the tree, absolute: paths under it are made
			       relative to it (borrowed) */
	char *base;         /* where the generator's relative paths start,
			       relative to root ("" the top) */
	char *config;       /* the configuration file relative to root, for
			       warnings about it; NULL: none */
	char line[LEC__WARN_LINE_MAX + 1];
	size_t len;
	int overlong;       /* the line went past LEC__WARN_LINE_MAX */
	/* The record being read: lines may follow it. */
	int open;
	enum lec_warning_kind kind;
	char *file;
	unsigned lineno;
	struct lec__buf message;
	unsigned follow;    /* lines added to it */
	int blank;          /* blank lines held back (kept only when more
			       text follows) */
	int treated;        /* Sphinx -W: the next line is "file:line:msg" */
	int fatal;          /* the record is a Sphinx "... error:" block */
	/* Sphinx: where its run is, filled as the output comes (borrowed;
	 * NULL: not followed). Each record gets the phase it came in. */
	struct lec__sphinx_trace *trace;
	unsigned phase;     /* the trace's phase when the record began */
};

/* root, base and config are borrowed until dispose; base may be NULL or
 * "" (the top), config NULL. */
void lec__warn_parser_init(struct lec__warn_parser *p,
			   enum lec__warn_format format,
			   struct lec_warning_set *set, const char *root,
			   const char *base, const char *config);
void lec__warn_parser_feed(struct lec__warn_parser *p, const char *data,
			   size_t len);
/* The last line and record, once the output has ended. */
void lec__warn_parser_end(struct lec__warn_parser *p);
void lec__warn_parser_dispose(struct lec__warn_parser *p);

/* A warning of Lectern's Markdown builder ("skipping docs/x.md: ..."),
 * its file relative to base (the source directory). */
void lec__warnings_markdown(struct lec_warning_set *set, const char *base,
			    const char *message);

/* A path a generator printed, as a record's file: relative to root when it
 * lies under it (base joined to a relative one), else as given. Owned;
 * NULL when out of memory. */
char *lec__warn_relative(const char *root, const char *base,
			 const char *path, size_t n);

/* Sphinx's incremental builds (build_carry.c) ------------------------------ */

/* When in its run Sphinx found a warning, read from the status lines it
 * prints between them (in English whatever the project's language: the
 * console speaks the C locale the commands get). Per-document phases
 * warn about the documents they process; the others about the whole
 * build, each time they run. */
enum lec__sphinx_phase {
	LEC__PHASE_NONE,        /* not known: not Sphinx, or no state */
	LEC__PHASE_INIT,        /* configuration, extensions (every run) */
	LEC__PHASE_READ,        /* reading documents (per document) */
	LEC__PHASE_AFTER_READ,  /* outdated files, pickling (every run) */
	LEC__PHASE_CONSISTENCY, /* checking consistency (when any was read) */
	LEC__PHASE_PREPARE,     /* preparing documents (when any is written) */
	LEC__PHASE_WRITE,       /* resolving and writing (per document) */
	LEC__PHASE_FINISH       /* indices, files, search (when any is written) */
};
#define LEC__PHASES 8

/* Document names, in the order Sphinx printed them. */
struct lec__names {
	char **items; /* owned */
	size_t len, cap;
};
int lec__names_add(struct lec__names *n, const char *name);
/* The position of name, or -1. */
long lec__names_find(const struct lec__names *n, const char *name);
void lec__names_dispose(struct lec__names *n);

/* What one Sphinx run's output said besides its warnings: which phases
 * ran, and the documents it read and wrote ("reading sources... [ 50%]
 * usage/install"). Zero-initialise; the parser fills it. */
struct lec__sphinx_trace {
	unsigned ran;              /* 1 << phase for each phase seen */
	enum lec__sphinx_phase phase; /* the phase the output is in */
	struct lec__names read, written;
	int moved;   /* documents were added or removed ("updating
			environment: 1 added, 0 changed, 0 removed"): the
			pages Sphinx did not write may link to what went */
};
/* Free what t holds; it is zero again. */
void lec__sphinx_trace_dispose(struct lec__sphinx_trace *t);

/* Where a Sphinx build's files are. */
struct lec__sphinx_run {
	const char *root;     /* the tree, absolute */
	const char *srcdir;   /* conf.py's directory relative to root ("" top) */
	const char *doctrees; /* absolute */
	const char *html;     /* the HTML output, absolute */
	int dirhtml;          /* pages are <doc>/index.html */
};

/* What a passed Sphinx build leaves its next incremental build: its
 * generator records, each with the phase and (when known) the document
 * it came from, and the documents the next build must read or write
 * again because a record of theirs could not be tied to one (Sphinx
 * prints a document's warnings after reading them all, some without a
 * file: autodoc's failed imports). */
struct lec__sphinx_kept {
	struct lec_warning_set records;
	struct lec__names reread, rewrite;
};
void lec__sphinx_kept_dispose(struct lec__sphinx_kept *k);
/* Read the state saved at path. LEC_OK; LEC_ENOTFOUND (none);
 * LEC_EINVALID (not a state this Lectern wrote, or one that lost
 * records past the caps: it cannot be carried exactly). */
int lec__sphinx_kept_load(const char *path, struct lec__sphinx_kept *out);
/* Save it at path, atomically. */
int lec__sphinx_kept_save(const struct lec__sphinx_kept *k, const char *path);

/* A record as the files that keep records between builds hold it (the
 * kept state here, a preview's last warnings): an object of its kind,
 * file, line and message, added to list; NULL when out of memory. */
struct cJSON *lec__warning_record_json(struct cJSON *list,
				       const struct lec_warning *w);
/* Those four read back from item into w (its strings borrowed from
 * item): LEC_OK, or LEC_EINVALID when one is missing or out of range. */
int lec__warning_record_read(const struct cJSON *item, struct lec_warning *w);

/* Before an incremental run: make Sphinx read again the documents
 * prev->reread names (their doctrees go) and write again those of
 * prev->rewrite (their pages go). */
void lec__sphinx_force(const struct lec__sphinx_kept *prev,
		       const struct lec__sphinx_run *run);

/*
 * After a run that passed: add to set (this run's records, with their
 * phases) those of prev that this run did not find again because it did
 * not run their document's phase for it (a document not read, a page not
 * written, a consistency check that did not run), for documents still
 * there; tie each of set's per-document records to its document; and
 * fill *next (zero-initialised) with what the next run needs. prev NULL:
 * a run with nothing kept (all read). Returns LEC_OK, or LEC_ERROR (no
 * message: the build goes on) when the output was not understood (no
 * phase seen): nothing is carried, and *next is left empty so that the
 * next build reads everything.
 */
int lec__sphinx_carry(struct lec_warning_set *set,
		      const struct lec__sphinx_trace *trace,
		      const struct lec__sphinx_kept *prev,
		      const struct lec__sphinx_run *run,
		      struct lec__sphinx_kept *next);

/* Link check ---------------------------------------------------------------- */

/* Bytes of one HTML page read for its links: bigger ones are checked as
 * far as this (a page past 64 MiB is not documentation). */
#define LEC__LINKCHECK_PAGE_MAX ((size_t)64 * 1024 * 1024)

/* What a link check found besides its records. */
struct lec__linkcheck_stats {
	size_t pages;   /* HTML pages read */
	size_t links;   /* internal links checked */
	size_t broken;  /* of them, leading nowhere */
	size_t removed; /* pages and anchors prev had and this one lacks */
};

/*
 * Check every internal link of the HTML pages below dir: a page, a page
 * and #anchor, or a bare #anchor must lead to a file below dir and to an
 * id or name in it; external and absolute links are not followed. Each
 * broken one is a `link` record (file: the page, relative to dir).
 * With inventory non-NULL, *inventory gets the pages and their anchors,
 * sorted, one per line ("page" and "page#anchor"; owned by the caller,
 * lec__free), and with prev (an earlier inventory, prev_len bytes) those
 * it had and this output has not are `removed` records.
 * @return LEC_OK; LEC_EIO (dir cannot be read); LEC_ENOMEM
 */
int lec__linkcheck(const char *dir, struct lec_warning_set *set,
		   const char *prev, size_t prev_len, char **inventory,
		   size_t *inventory_len, struct lec__linkcheck_stats *stats);

/* The check of one page's HTML (len bytes) alone, as page (its path below
 * the site): links between pages cannot be known, so only bare #anchors
 * are checked. For the fuzz target and tests. */
int lec__linkcheck_page(const char *html, size_t len, const char *page,
			struct lec_warning_set *set,
			struct lec__linkcheck_stats *stats);

/* Inventory (linkcheck_inventory.c) ---------------------------------------- */

/* Whether an anchor goes into the inventory: not one a generator numbers
 * (id3, index-12, fnref:2). */
int lec__inventory_keeps(const char *anchor);
/* Append the inventory line of page, or of its anchor (NULL: the page). */
void lec__inventory_put(struct lec__buf *b, const char *page,
			const char *anchor);
/* Sort n lines in place, as an inventory lists them. */
void lec__inventory_sort(char **lines, size_t n);

/* A page (anchor NULL) or an anchor of page that an earlier inventory had
 * and this one lacks; non-zero stops the comparison and is returned. */
typedef int (*lec__inventory_removed_fn)(void *payload, const char *page,
					 const char *anchor);
/* Call removed for each line of prev (prev_len bytes) that lines (sorted,
 * n) lack, but not for an anchor of a page gone too (the page says it).
 * @return LEC_OK, removed's non-zero, or LEC_ENOMEM */
int lec__inventory_compare(char *const *lines, size_t n, const char *prev,
			   size_t prev_len, lec__inventory_removed_fn removed,
			   void *payload);
/* The inventory's text: each line and a newline. *out owned (lec__free). */
int lec__inventory_text(char *const *lines, size_t n, char **out,
			size_t *out_len);

#endif
