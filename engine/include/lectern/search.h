/*
 * Full-text search over published documentation (behaviour notes §4.1-4.4):
 * the index of a version's pages and the service's query.
 *
 * A version's index holds one row per page (its file path, title and the
 * search.ranking rank) and, in an SQLite FTS5 table, the page's sections
 * and documentation-generator domain entries. It is replaced as a whole in
 * one transaction when a build publishes, so readers see either the old
 * index or the new one, never a mix; it disappears with the version, when
 * the version is deactivated, and with its project (schema triggers).
 *
 * Queries take the service's simple-query-string syntax (words, "phrases",
 * prefix*, + | - operators, parentheses) and never pass user text to FTS5
 * unquoted, so no input can produce an SQL error: it gives results or a
 * validation error naming the field "q".
 */
#ifndef LECTERN_SEARCH_H
#define LECTERN_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/pageparse.h"
#include "lectern/rtdconfig.h"
#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results per page: the contract's default, and Lectern's maximum (the
 * decision table; larger requests are clamped). */
#define LEC_SEARCH_PAGE_SIZE_DEFAULT 50
#define LEC_SEARCH_PAGE_SIZE_MAX 100
/* page * page_size may not exceed this: the service's deep-paging guard. */
#define LEC_SEARCH_RESULTS_MAX 1000
/* Characters (code points) of a query: longer text is no search query,
 * and bounds the work one request can ask for. */
#define LEC_SEARCH_QUERY_MAX 1000
/* Words and phrases of a query: each is one FTS5 phrase to evaluate. */
#define LEC_SEARCH_TERMS_MAX 64
/* (project, version) pairs one query may search (the service's v3 cap). */
#define LEC_SEARCH_VERSIONS_MAX 100
/* Blocks (sections or domain entries) shown per page result. */
#define LEC_SEARCH_BLOCKS_MAX 3
/* Ranks of search.ranking; others index as 0. */
#define LEC_SEARCH_RANK_MIN (-10)
#define LEC_SEARCH_RANK_MAX 10

/* Indexing ------------------------------------------------------------------ */

/* One page to index. */
struct lec_search_page {
	const char *path; /* file path relative to the HTML root, "a/b.html" */
	int rank;         /* search.ranking rank; outside -10..10 indexes as 0 */
	const struct lec_page_doc *doc; /* NULL: the page indexes empty */
};

/**
 * Replace a version's whole index with pages, in one transaction: until it
 * commits, every reader sees the previous index; on failure it is kept.
 * @param pages n pages (borrowed); paths must be non-empty and distinct
 * @return LEC_OK; LEC_EINVALID (a NULL/empty or repeated path, no such
 *         version); LEC_EBUSY; LEC_ENOMEM
 */
int lec_search_index_replace(struct lec_store *store, int64_t version_id,
			     const struct lec_search_page *pages, size_t n);

/**
 * Drop a version's index (a version without one is no error).
 * @return LEC_OK; LEC_EBUSY
 */
int lec_search_index_remove(struct lec_store *store, int64_t version_id);

/* What indexing a directory did. */
struct lec_search_index_report {
	size_t pages;    /* pages indexed, failed ones included */
	size_t ignored;  /* *.html files skipped by search.ignore */
	size_t entries;  /* sections and domain entries indexed */
	size_t failed;   /* pages that could not be read or parsed */
	char **failures; /* "<path>: <why>", the first LEC_SEARCH_FAILURES_SHOWN
			    of them; owned by the report */
	size_t failures_len;
};
/* Failure messages a report keeps (the count goes on). */
#define LEC_SEARCH_FAILURES_SHOWN 20

/**
 * Index every *.html file under html_dir (symbolic links are not followed)
 * as the version's new index, replacing the old one atomically. A page
 * whose path matches a search.ignore pattern (fnmatch, '*' crossing '/')
 * is skipped; its rank is the value of the last search.ranking pattern it
 * matches. A page that cannot be read or parsed is indexed empty and
 * reported, never fatal.
 * @param config the build's configuration for search.ignore/ranking; NULL
 *        reuses the rules of the version's previous indexing (reindexing),
 *        or the service's defaults when there was none
 * @param report filled (dispose with lec_search_index_report_dispose);
 *        may be NULL
 * @return LEC_OK; LEC_EIO (html_dir unreadable); as
 *         lec_search_index_replace
 */
int lec_search_index_dir(struct lec_store *store, int64_t version_id,
			 const char *html_dir,
			 const struct lec_rtd_config *config,
			 struct lec_search_index_report *report);

/** Free what a report holds. Accepts NULL. */
void lec_search_index_report_dispose(struct lec_search_index_report *report);

/**
 * Pages in a version's index.
 * @return LEC_OK with *count set (0 for no index)
 */
int lec_search_index_count(struct lec_store *store, int64_t version_id,
			   size_t *count);

/* Listing ------------------------------------------------------------------ */

/* Characters of a listed page's summary at most (a cut sentence ends in
 * "..."). */
#define LEC_SEARCH_SUMMARY_MAX 200

/* One page of a version's index, as a table of contents lists it. */
struct lec_search_listed {
	char *path;    /* file path relative to the HTML root */
	char *title;
	char *summary; /* the first sentence of its first section, cut at
			  LEC_SEARCH_SUMMARY_MAX; "" when it has none */
};

struct lec_search_listing {
	struct lec_search_listed *items; /* len items, owned */
	size_t len;
};

/**
 * Every page of a version's index, in reading order: a directory's index
 * page before the rest of the directory, then by path ("index.html",
 * "api.html", "guide/index.html", "guide/a.html").
 * @param out filled (empty for a version without an index); dispose with
 *            lec_search_listing_dispose
 * @return LEC_OK, LEC_ENOMEM, a store error
 */
int lec_search_index_pages(struct lec_store *store, int64_t version_id,
			   struct lec_search_listing *out);

/** Free what a listing holds (not the struct). Accepts NULL. */
void lec_search_listing_dispose(struct lec_search_listing *listing);

/* Querying ------------------------------------------------------------------ */

struct lec_search_request {
	const char *query;
	const int64_t *version_ids; /* the versions searched */
	size_t nversions;
	size_t page;      /* 1-based */
	size_t page_size; /* 0: LEC_SEARCH_PAGE_SIZE_DEFAULT; above the
			     maximum: clamped */
};

enum lec_search_block_type {
	LEC_SEARCH_BLOCK_SECTION,
	LEC_SEARCH_BLOCK_DOMAIN
};

/* Highlights are HTML-escaped text (& < > " ' / as entities) with each
 * match wrapped in bare <span>...</span>; NULL when the field has none. */
struct lec_search_block {
	enum lec_search_block_type type;
	char *id;      /* the anchor; "" for a page's leading text */
	char *title;   /* section title, or the domain entry's name */
	char *role;    /* domain entries: "py:function"; NULL for sections */
	char *content; /* the whole indexed text, not escaped */
	char *title_highlight;   /* the whole title, highlighted */
	char *content_highlight; /* one fragment of about 100 characters */
};

struct lec_search_hit {
	int64_t version_id;
	char *path;  /* file path relative to the HTML root */
	char *title; /* page title */
	char *title_highlight; /* NULL when the title does not match */
	double score;
	struct lec_search_block *blocks; /* up to LEC_SEARCH_BLOCKS_MAX */
	size_t blocks_len;
};

struct lec_search_results {
	struct lec_search_hit *items; /* len items, owned */
	size_t len;
	size_t total; /* pages matching, ignoring the page */
};

/**
 * Search the versions' indexes. Pages matching every word (the AND form)
 * come before pages matching only some (the OR form); within each, by
 * bm25 (page title 1.5, section titles 2, content 1) times the page rank's
 * factor.
 * @param out filled; dispose with lec_search_results_dispose
 * @return LEC_OK (a query without positive terms, or no versions, gives no
 *         results); LEC_EINVALID with field "q" (too long, too many terms),
 *         or with no field: "Invalid page", "Page number is too high."
 */
int lec_search_query(struct lec_store *store,
		     const struct lec_search_request *request,
		     struct lec_search_results *out);

/** Free what results hold (not the struct). Accepts NULL. */
void lec_search_results_dispose(struct lec_search_results *results);

/**
 * The service's score factor of a page rank (-10..10; others give 1).
 */
double lec_search_rank_factor(int rank);

#ifdef __cplusplus
}
#endif
#endif
