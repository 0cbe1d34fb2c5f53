/*
 * The search screen's fallback: when the instance's search answers nothing
 * for a version (a remote project without server-side search, say), the
 * TUI fetches the built site's own index from the docs domain (Sphinx's
 * searchindex.js or MkDocs' search/search_index.json) and searches that.
 * Results come in the shape of the search API's (pages with section and
 * domain blocks, without the project) so the screen shows them alike.
 *
 * Matching is plain: lower-case (ASCII) words, every query word must match
 * (AND), a word matches an indexed word it begins, or, for Sphinx, a
 * stemmed term that begins the word ("install" finds the term "instal").
 * Sphinx stores its terms Porter-stemmed and Debian ships no C stemmer we
 * link, so a word whose stem is not a prefix of it ("very" -> "veri") is
 * found only by its own prefix.
 */
#ifndef LECTERN_UI_DOCINDEX_H
#define LECTERN_UI_DOCINDEX_H

#include <stddef.h>

/* Indexes larger than this are refused: the biggest real ones (CPython's
 * documentation) are a few MB, and the whole index is held in memory. */
#define UI_DOCINDEX_MAX_BYTES (64u * 1024u * 1024u)
/* Query words used; the rest are ignored (a search box query, not a
 * document). */
#define UI_DOCINDEX_MAX_WORDS 16
/* Results returned at most, whatever the caller asks: one screen's worth
 * many times over. */
#define UI_DOCINDEX_MAX_RESULTS 200

enum ui_docindex_format {
	UI_DOCINDEX_SPHINX, /* searchindex.js */
	UI_DOCINDEX_MKDOCS, /* search/search_index.json */
};

struct ui_docindex;

/* A section or domain object of a result page. */
struct ui_docindex_block {
	char *type;    /* "section" or "domain" */
	char *id;      /* its anchor; "" for the top of the page */
	char *title;   /* section blocks; NULL for domain blocks */
	char *content; /* a snippet around the first hit (MkDocs), or NULL */
	char *role;    /* domain blocks: "py:function"; else NULL */
	char *name;    /* domain blocks: "mod.compute"; else NULL */
	int score;
};

struct ui_docindex_result {
	char *title;  /* the page's */
	char *path;   /* the page, relative to the version's root:
		       * "api.html", "guide/" ("" is the root page) */
	char *href;   /* path#anchor of the best block, else path */
	int score;    /* higher is better; title hits count above text hits */
	struct ui_docindex_block *blocks; /* best first */
	size_t nblocks;
};

struct ui_docindex_results {
	struct ui_docindex_result *items; /* best first */
	size_t len;
};

/*
 * Parse a fetched index; the format is recognised from the content.
 * @param data len bytes (at most UI_DOCINDEX_MAX_BYTES); not kept
 * @param out the index; the caller frees it with ui_docindex_free
 * @return 0, or -1 with a one-line reason in err
 */
int ui_docindex_parse(const char *data, size_t len, struct ui_docindex **out,
		      char *err, size_t errsize);

/* Free an index; NULL is a no-op. */
void ui_docindex_free(struct ui_docindex *idx);

/* Which generator wrote the index (the screen says where results come
 * from). */
enum ui_docindex_format ui_docindex_format(const struct ui_docindex *idx);

/*
 * Search the index. out is filled (the caller disposes it with
 * ui_docindex_results_dispose) with at most limit results (0 or more than
 * UI_DOCINDEX_MAX_RESULTS: that maximum); a query without words finds
 * nothing.
 * @return the number of results
 */
size_t ui_docindex_search(const struct ui_docindex *idx, const char *query,
			  size_t limit, struct ui_docindex_results *out);

/*
 * The site's pages as the index lists them, for a reader whose page has no
 * navigation of its own: MkDocs' in the index's order (its nav's), Sphinx's
 * with the root document ("index") first and the others by name. Each is a
 * result with its title and path (href the same, no blocks); out is
 * disposed with ui_docindex_results_dispose.
 * @return the number of pages
 */
size_t ui_docindex_pages(const struct ui_docindex *idx,
			 struct ui_docindex_results *out);

/* Free the results and empty *r; an empty *r is a no-op. */
void ui_docindex_results_dispose(struct ui_docindex_results *r);

#endif
