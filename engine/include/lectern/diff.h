/*
 * Page diffs between two published outputs of a project: what changed in
 * its documentation from one version or build to another, offline.
 *
 * Each side is a reference: a version's slug (its published output) or
 * "build:<id>" (that build's output, which publishing keeps for the last
 * LEC_DIFF_KEEP_BUILDS_DEFAULT builds of each version, see the pipeline's
 * keep_builds). Pages are compared as search sees them: each page is parsed
 * into its title and sections (pageparse.h), sections are matched by anchor
 * in document order, and the text of a matched pair is compared sentence by
 * sentence, since the parser keeps a section's text as one
 * whitespace-collapsed line. Markup-only changes (a new theme, another
 * build's footer) therefore show as no change.
 */
#ifndef LECTERN_DIFF_H
#define LECTERN_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds of each version whose output is kept for diffs, the current one
 * included, unless the pipeline is told otherwise. */
#define LEC_DIFF_KEEP_BUILDS_DEFAULT 5
/* Cells (base lines x head lines, once the common start and end are set
 * aside) of one comparison's table: 4 bytes each, so 16 MiB at most per
 * section. Larger sections are shown as all removed then all added: still
 * a correct diff, only not the shortest. */
#define LEC_DIFF_CELLS_MAX (4u * 1024u * 1024u)
/* Pages one diff lists (changed, added and removed together): beyond that
 * the result says it was cut (truncated), so one request over two huge
 * sites stays bounded. */
#define LEC_DIFF_PAGES_MAX 1000
/* Bytes of a reference ("build:<id>" or a slug). */
#define LEC_DIFF_REF_MAX 255

/* References ------------------------------------------------------------ */

/* One side of a diff, resolved. */
struct lec_diff_ref {
	int64_t build_id;   /* the build whose output this is */
	int64_t version_id; /* its version; 0 when the version was deleted */
	char *dir;          /* the output's HTML root; owned */
};

/**
 * Resolve a reference of a project to a kept output.
 * @param data_dir the pipeline's data directory
 * @param text a version slug (its published output) or "build:<id>"
 * @param out filled (dispose with lec_diff_ref_dispose)
 * @return LEC_OK; LEC_EINVALID ("build:" without a positive integer, an
 *         empty or over-long reference); LEC_ENOTFOUND (no such version or
 *         build in the project, a version with nothing published, a build
 *         that did not pass or whose output is no longer kept: the message
 *         says which); LEC_ENOMEM
 */
int lec_diff_ref_resolve(struct lec_store *store, const char *data_dir,
			 int64_t project_id, const char *project_slug,
			 const char *text, struct lec_diff_ref *out);

/** Free what a reference holds. Accepts NULL. */
void lec_diff_ref_dispose(struct lec_diff_ref *ref);

/* What the outputs of builds take in a data directory: the published ones
 * and those kept for diffs alike (<data>/outputs/<build>). */
struct lec_diff_usage {
	size_t outputs;   /* builds with an output */
	uint64_t bytes;   /* disk they take */
};

/**
 * Measure <data_dir>/outputs (symbolic links not followed).
 * @return LEC_OK (no outputs yet: zeros); LEC_EINVALID (NULL argument)
 */
int lec_diff_usage(const char *data_dir, struct lec_diff_usage *out);

/* Diffs ---------------------------------------------------------------- */

enum lec_diff_status {
	LEC_DIFF_CHANGED,
	LEC_DIFF_ADDED,
	LEC_DIFF_REMOVED
};

/* One line of a text diff: op is ' ' (in both), '-' (base only) or '+'
 * (head only). text owned, never NULL. */
struct lec_diff_line {
	char op;
	char *text;
};

/* A section that differs. Strings owned; base_title is NULL unless a
 * matched section's title changed. An added section's lines are all '+',
 * a removed one's all '-'. */
struct lec_diff_section {
	enum lec_diff_status status;
	char *id;    /* anchor, "" for the leading text */
	char *title; /* head's title (base's for a removed section) */
	char *base_title;
	struct lec_diff_line *lines;
	size_t lines_len;
};

/* A page that differs. Added and removed pages carry no sections (read them
 * whole instead); a changed page lists only its sections that differ. */
struct lec_diff_page {
	enum lec_diff_status status;
	char *path;  /* "a/b.html", relative to the HTML root */
	char *title; /* head's (base's for a removed page) */
	char *base_title; /* NULL unless the title changed */
	struct lec_diff_section *sections;
	size_t sections_len;
};

struct lec_diff {
	struct lec_diff_page *pages; /* by path */
	size_t pages_len;
	size_t unchanged; /* pages compared and found the same */
	int truncated;    /* 1: more than LEC_DIFF_PAGES_MAX pages differ */
};

/**
 * Compare two HTML roots (as resolved by lec_diff_ref_resolve).
 * @param path one page ("a/b.html"; "a/" means "a/index.html", and a path
 *        without ".html" gets it), or NULL for every page
 * @param out the differences (owned by caller, lec_diff_free); an empty
 *        list when they are the same
 * @return LEC_OK; LEC_EINVALID (a path with "..", a NUL-free control
 *         character or over PATH_MAX); LEC_ENOTFOUND (path is on neither
 *         side); LEC_EIO (a root unreadable); LEC_ENOMEM
 */
int lec_diff_pages(const char *base_dir, const char *head_dir,
		   const char *path, struct lec_diff **out);

/** Free a diff with everything it holds. Accepts NULL. */
void lec_diff_free(struct lec_diff *diff);

/**
 * Compare two texts sentence by sentence (a sentence ends after '.', '!'
 * or '?' followed by a space; the space is dropped) with a longest common
 * subsequence, in document order.
 * @param lines all lines of both, with their ops (owned by caller,
 *        lec_diff_lines_free); NULL and 0 when both texts are empty
 * @return LEC_OK; LEC_EINVALID (a NULL text); LEC_ENOMEM
 */
int lec_diff_text(const char *base, const char *head,
		  struct lec_diff_line **lines, size_t *len);

/** Free lines from lec_diff_text. Accepts NULL. */
void lec_diff_lines_free(struct lec_diff_line *lines, size_t len);

#ifdef __cplusplus
}
#endif
#endif
