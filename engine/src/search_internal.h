/*
 * What the search module's files share (search.h is its public face):
 * search.c keeps the index (writing, replacing, removing, listing) and
 * its tokenizer; search_exec.c executes a query against it, on the
 * others: search_query.c translates the service's simple-query-string
 * syntax into FTS5 expressions (kept apart so that the unit tests check
 * translations without an index); search_rank.c is the lec_rank BM25
 * function;
 * search_postings.c ranks plain queries from remembered postings;
 * search_names.c indexes and matches documentation-object names;
 * search_highlight.c marks matches in results. The walk of a published
 * tree's pages is shared with diff.c, mirror.c and pageparse.c.
 */
#ifndef LECTERN_SEARCH_INTERNAL_H
#define LECTERN_SEARCH_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "lectern/search.h"

/* Rowids per page in search_entries (the schema's 1048576): an entry's
 * rowid is page_id << LEC__SEARCH_ENTRY_BITS | n << LEC__SEARCH_LENGTH_BITS
 * | length bucket, n = 0 for the page's title row (see search_rank.c). */
#define LEC__SEARCH_ENTRY_BITS 20
#define LEC__SEARCH_ENTRIES_PER_PAGE ((int64_t)1 << LEC__SEARCH_ENTRY_BITS)

/* Entry kinds (search_entries.kind). */
#define LEC__SEARCH_KIND_PAGE 0
#define LEC__SEARCH_KIND_SECTION 1
#define LEC__SEARCH_KIND_DOMAIN 2

/* Deepest parenthesis nesting honoured; deeper '(' and ')' are spaces. */
#define LEC__SEARCH_DEPTH_MAX 16

/* Whether text (len bytes) yields at least one token for the index's
 * tokenizer: 1 yes, 0 no, < 0 an engine error. */
typedef int (*lec__search_tokens_fn)(void *ctx, const char *text, size_t len);

struct lec__search_expr {
	/* FTS5 expressions; NULL when the query has no positive term. `all`
	 * joins juxtaposed terms with AND (the service's default_operator
	 * "and"), `any` with OR. Owned. */
	char *all;
	char *any;
	size_t terms; /* words and phrases kept */
	/* The words and phrases not excluded by '-', as written: what
	 * highlights mark. Owned. */
	struct lec__search_term {
		char *text;
		int prefix;
	} *positive;
	size_t npositive;
	/* When the query is a plain list of words and phrases (no operator,
	 * exclusion or group), the FTS5 phrases of `all` and `any` in their
	 * order there, each once per occurrence; NULL otherwise.
	 * search_exec.c then ranks from remembered postings
	 * (search_postings.c). Owned. */
	char **phrases;
	size_t nphrases;
};

/*
 * Translate a query. Invalid UTF-8 and control characters count as spaces.
 * @param has_tokens decides whether a word or phrase can match anything
 *        (one with no token, such as "&&", is dropped)
 * @return LEC_OK; LEC_EINVALID (field "q") when longer than
 *         LEC_SEARCH_QUERY_MAX characters or with more than
 *         LEC_SEARCH_TERMS_MAX terms; LEC_ENOMEM
 */
int lec__search_translate(const char *query, lec__search_tokens_fn has_tokens,
			  void *ctx, struct lec__search_expr *out);

void lec__search_expr_dispose(struct lec__search_expr *expr);

/*
 * A copy of s in which every invalid UTF-8 sequence and every control
 * character (below U+0020, and U+007F) is a space; *chars (may be NULL)
 * gets its length in code points. Owned by the caller (lec__free).
 */
char *lec__search_clean_text(const char *s, size_t len, size_t *chars);

/* The pages of a published tree -------------------------------------------- */

/* File paths relative to a root ("a/b.html"), owned. */
struct lec__paths {
	char **items;
	size_t len, cap;
};

/*
 * Every *.html file under root, sorted bytewise (strcmp); symbolic links are
 * not followed, so nothing outside the tree is listed. Shared by indexing and
 * by page diffs (diff.c), which must see the same pages.
 * @return LEC_OK; LEC_EIO (root unreadable); LEC_ENOMEM. On failure out is
 *         empty.
 */
int lec__html_pages(const char *root, struct lec__paths *out);
/* Accepts an empty list. */
void lec__paths_dispose(struct lec__paths *p);

/* Read a whole page file of at most LEC_PAGE_HTML_MAX bytes (pageparse.c):
 * *data (owned, lec__free) holds *len bytes, not NUL-terminated.
 * Returns LEC_OK, LEC_EIO (naming the file), LEC_ELIMIT, LEC_ENOMEM. */
int lec__page_read(const char *file, char **data, size_t *len);

/* Ranking (search_rank.c) -------------------------------------------------- */

/* The indexed text columns: page_title, title, content. */
#define LEC__SEARCH_COLUMNS 3
/* Low bits of an entry's rowid holding its length bucket. */
#define LEC__SEARCH_LENGTH_BITS 6
/* The FTS5 auxiliary function: lec_rank(search_entries, expr), BM25, higher
 * is better; expr, the MATCH expression, keys the connection's memory of
 * document frequencies (without it they are counted every time). */
#define LEC__SEARCH_RANK_NAME "lec_rank"

/* Length buckets a rowid can hold. */
#define LEC__SEARCH_LENGTH_BUCKETS (1 << LEC__SEARCH_LENGTH_BITS)

/* The length bucket of an entry of `bytes` bytes (of its three texts). */
int lec__search_length_bucket(size_t bytes);

/* The parts of lec_rank's BM25, shared with search_postings.c so that
 * scores computed from remembered postings are the same to the bit: the
 * inverse document frequency of a phrase in hits of rows; BM25's length
 * normalisation per length bucket (norm has LEC__SEARCH_LENGTH_BUCKETS
 * elements) from the table's row and token counts; a phrase's instances
 * in the current row of fts weighted by column; and one phrase's term. */
double lec__search_idf(sqlite3_int64 rows, sqlite3_int64 hits);
void lec__search_norms(sqlite3_int64 rows, sqlite3_int64 tokens,
		       double *norm);
int lec__search_phrase_freq(const Fts5ExtensionApi *api, Fts5Context *fts,
			    int phrase, double *freq, unsigned *cols);
/* The same from a row's instances per column (the term index's counts). */
double lec__search_freq(const unsigned counts[LEC__SEARCH_COLUMNS]);
/* BM25's k1 (FTS5's default). */
#define LEC__SEARCH_K1 1.2
/* Inline: a query's merge calls it for every matching row. */
static inline double lec__search_bm25(double idf, double freq, double norm)
{
	return idf * freq * (LEC__SEARCH_K1 + 1) / (freq + norm);
}
/* Register lec_rank on db, the connection of api. */
int lec__search_rank_register(fts5_api *api, sqlite3 *db);

/* Remembered postings (search_postings.c) ------------------------------------ */

struct lec_store;
struct lec__search_memo;

/* One phrase's rows, ascending, with its weighted instances in each, the
 * columns it occurs in (bit c for column c: what highlights skip) and
 * the byte offset in the content before which it does not occur (where
 * a highlight's search starts; 0 when unknown). */
struct lec__search_plist {
	char *phrase; /* the FTS5 phrase; NULL when a memory slot is free */
	int64_t *rowids;
	double *freqs;
	unsigned char *cols;
	uint32_t *firsts;
	size_t len, cap;
	unsigned long used; /* clock of the last use, for eviction */
};
/* Room for `more` rows (search_terms.c): LEC_OK or LEC_ENOMEM (no message
 * set: an FTS5 callback reports it as SQLITE_NOMEM). */
int lec__search_plist_reserve(struct lec__search_plist *l, size_t more);
/* Free the rows and the phrase; l is then empty. */
void lec__search_plist_clear(struct lec__search_plist *l);

/* The rows of a plain query's phrases (lec__search_expr.phrases), each
 * list ascending by rowid with the phrase's weighted instances in that row
 * (lec__search_phrase_freq), over the whole table; and what BM25 needs to
 * score them as lec_rank does. */
struct lec__search_postings {
	size_t n;
	const char *const *phrases;
	const int64_t *rowids[LEC_SEARCH_TERMS_MAX];
	const double *freqs[LEC_SEARCH_TERMS_MAX];
	const unsigned char *cols[LEC_SEARCH_TERMS_MAX];
	const uint32_t *firsts[LEC_SEARCH_TERMS_MAX];
	/* Every phrase is one token: a row's columns then say where
	 * highlights can find a match. */
	int token_cols;
	size_t len[LEC_SEARCH_TERMS_MAX];
	double idf[LEC_SEARCH_TERMS_MAX];
	double norm[LEC__SEARCH_LENGTH_BUCKETS];
	/* Lists read for this query and not remembered (owned). */
	struct lec__search_plist *own;
};

/*
 * The postings of ex's phrases, from the connection's memory or read now;
 * call inside a read snapshot. *out owned by the caller
 * (lec__search_postings_free), valid until the next call on the store.
 * @return LEC_OK; LEC_ENOTFOUND when ex is not a plain list of phrases or
 *         its new lists pass QUERY_ROWS_MAX rows (rank with FTS5 statements
 *         instead); an engine error
 */
struct lec__search_tokenizer;
int lec__search_postings_get(struct lec_store *st,
			     const struct lec__search_expr *ex,
			     const struct lec__search_tokenizer *tok,
			     struct lec__search_postings **out);
/* Accepts NULL. */
void lec__search_postings_free(struct lec__search_postings *p);
/* Register lec_postings on the store's connection (api its FTS5 API). */
int lec__search_postings_register(fts5_api *api, struct lec_store *st);

/* The term index (search_terms.c) ------------------------------------------- */

/* A version's terms while it is indexed. */
struct lec__search_terms_builder;

struct lec__search_tokenizer;
/* *out owned by the caller (lec__search_terms_free); tok borrowed. */
int lec__search_terms_begin(const struct lec__search_tokenizer *tok,
			    struct lec__search_terms_builder **out);
/* Accepts NULL. */
void lec__search_terms_free(struct lec__search_terms_builder *b);
/* Count the terms of row rowid (rowids ascending), its three columns'
 * texts as indexed. */
int lec__search_terms_add(struct lec__search_terms_builder *b, int64_t rowid,
			  const char *const texts[LEC__SEARCH_COLUMNS]);
/* Write the terms as version_id's, and its row and token totals into its
 * search_versions row (which must exist). */
int lec__search_terms_write(struct lec_store *st,
			    struct lec__search_terms_builder *b,
			    int64_t version_id);
/* The whole index's rows and tokens; LEC_ENOTFOUND when a version has no
 * term index (indexed before migration 12): read FTS5 instead. */
int lec__search_terms_stats(struct lec_store *st, int64_t *rows,
			    int64_t *tokens);
/* Append the rows of term[0..n) (or of every term it begins) in every
 * version to out, ascending; LEC_ENOTFOUND when they would pass rows_max
 * rows or a prefix covers too many terms (out is then partly filled). */
int lec__search_terms_read(struct lec_store *st, const char *term, size_t n,
			   int prefix, size_t rows_max,
			   struct lec__search_plist *out);
/* Longest term looked up in the term index (words are far shorter; a
 * longer one is left to FTS5). */
#define LEC__SEARCH_TERM_MAX 256
/* The term text[0..n) is for the index's tokenizer (stemmed; a prefix
 * term when prefix), into term: its length, 0 when text is not exactly
 * one token (a phrase of several needs FTS5's positions) or too long. */
size_t lec__search_terms_one(const struct lec__search_tokenizer *tok,
			     const char *text, size_t n, int prefix,
			     char term[LEC__SEARCH_TERM_MAX]);
/* Whether the word[0..n) matches anything indexed: 1 yes, 0 no, < 0 an
 * engine error; LEC_ENOTFOUND when the term index cannot say (not one
 * token, or a version without terms): ask FTS5. */
int lec__search_terms_word(struct lec_store *st,
			   const struct lec__search_tokenizer *tok,
			   const char *word, size_t n);

/* Names (search_names.c) ---------------------------------------------------- */

/* Put the names of a section or domain entry (its rowid entry) in
 * search_names through stmt, "INSERT OR IGNORE INTO search_names (key,
 * entry, kind, weight, name, role) VALUES (?, ?, ?, ?, ?, ?)". */
int lec__search_names_add(struct lec_store *st, sqlite3_stmt *stmt,
			  int64_t entry, const char *role, const char *anchor,
			  const char *title);

/* Whether an entry belongs to the searched versions (1 yes, 0 no). */
typedef int (*lec__search_scope_fn)(void *ctx, int64_t entry);
/* Whether the page of an entry has all the words (1 yes, 0 no, < 0 an
 * engine error); look: may search the index for them, else only what the
 * query has found says. */
typedef int (*lec__search_page_has_fn)(void *ctx, int64_t entry,
				       const char *words, int look);

struct lec__search_name_hit {
	int64_t entry;
	double score; /* in (0, 1]: match, case and object type */
};

/*
 * The entries a query names, best first (see search_names.c); unfinished:
 * its last word is not one the index has (typed so far). *out is owned by
 * the caller (lec__free), NULL when *n is 0.
 */
int lec__search_names_match(struct lec_store *st, const char *query,
			    int unfinished, lec__search_scope_fn in_scope,
			    lec__search_page_has_fn page_has, void *ctx,
			    struct lec__search_name_hit **out, size_t *n);

/*
 * The query with each word that matches nothing (matches() says 0)
 * replaced by the nearest name key within one or two edits; *out NULL
 * when no word changed, else owned by the caller (lec__free).
 */
int lec__search_names_correct(struct lec_store *st, const char *query,
			      lec__search_tokens_fn matches, void *ctx,
			      char **out);

/* Highlighting (search_highlight.c) -------------------------------------- */

/* Bytes of a content highlight: the service's ~100-character fragment. */
#define LEC__SEARCH_FRAGMENT 100

/* The index's tokenizer, open for one query. */
struct lec__search_tokenizer {
	fts5_tokenizer api;
	Fts5Tokenizer *tok;
};

/* The index's tokenizer for a query or an indexing, with lec_rank and
 * lec_postings registered on the connection (search.c). */
int lec__search_tokenizer_open(struct lec_store *st,
			       struct lec__search_tokenizer *t);
/* Accepts a tokenizer that did not open. */
void lec__search_tokenizer_close(struct lec__search_tokenizer *t);

/* A text column of a row read from the index, "" for NULL (search.c). */
const char *lec__search_col_str(sqlite3_stmt *stmt, int col);
/* A copy of s (NULL for NULL); sets *rc on running out of memory. */
char *lec__search_dup(const char *s, int *rc);

/* A query's positive terms as index tokens (stemmed). */
struct lec__search_hl;

/* Tokenize the expression's positive terms; *out owned by the caller
 * (lec__search_hl_free). */
int lec__search_hl_new(const struct lec__search_tokenizer *t,
		       const struct lec__search_expr *ex,
		       struct lec__search_hl **out);
void lec__search_hl_free(struct lec__search_hl *hl);

/*
 * Highlight text: HTML-escaped (& < > " ' /) with each token matching a
 * term wrapped in <span>...</span>. whole: all of text; otherwise one
 * fragment of about LEC__SEARCH_FRAGMENT bytes around the first match
 * (text no longer than that is whole), searched for from byte `from` on (a
 * token start before which no term occurs; 0 when unknown). *out is NULL
 * when nothing matches; owned by the caller (lec__free). hl remembers the
 * words it looked up.
 */
int lec__search_hl_text(struct lec__search_hl *hl, const char *text,
			int whole, size_t from, char **out);

#endif
