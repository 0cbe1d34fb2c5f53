/*
 * A search query executed against the index (search.c), from the query's
 * text to the window of ranked results: the query translated
 * (search_query.c), its rows gathered from FTS5 or from remembered
 * postings (search_postings.c) and aggregated into pages, the pages the
 * query names put first (search_names.c), ranked, and the results shown
 * filled with their highlights (search_highlight.c), kept apart from the
 * index's life as FTS5 keeps its expressions (fts5_expr.c) apart from its
 * index.
 *
 * Scoring follows the service: a page scores its title row (page title
 * weight 1.5) plus its best section (section title 2, content 1), by BM25
 * (lec_rank, search_rank.c), times the factor of its search.ranking rank.
 * The service adds the score of an AND query to that of an OR query so
 * that pages matching every word come first; Lectern makes that order
 * strict (AND matches, then OR-only matches), which also lets a query skip
 * scoring the OR-only pages when the AND matches fill the requested page.
 * Pages whose sections or domain objects the query names (search_names.c)
 * come before both, a query that is only an exclusion ("-X") finding
 * nothing but them. Highlights are computed only for the results shown.
 */
#include <stdlib.h>
#include <string.h>

#include "lectern/search.h"
#include "search_internal.h"
#include "store_internal.h"

/* Tokens --------------------------------------------------------------------- */

static int count_token(void *ctx, int flags, const char *token, int n,
		       int start, int end)
{
	(void)flags, (void)token, (void)n, (void)start, (void)end;
	++*(int *)ctx;
	return SQLITE_DONE; /* one is enough */
}

static int has_tokens(void *ctx, const char *text, size_t len)
{
	struct lec__search_tokenizer *t = ctx;
	int count = 0;

	if (len == 0)
		return 0;
	t->api.xTokenize(t->tok, &count, FTS5_TOKENIZE_QUERY, text, (int)len,
			 count_token);
	return count > 0;
}

/* Gathering ----------------------------------------------------------------- */

struct page_info;

/* A page while matches are gathered. */
struct page_acc {
	int64_t page_id;
	int rank;
	double title_score;   /* its title row, 0 if that did not match */
	double section_score; /* its best section or domain entry */
	double name_score;    /* its best name match (search_names.c) */
	double score;	      /* the page's score, set once gathered */
	int moved;	      /* listed in gather.named instead */
	int64_t blocks[LEC_SEARCH_BLOCKS_MAX]; /* best entries, best first */
	double block_scores[LEC_SEARCH_BLOCKS_MAX];
	size_t nblocks;
};

struct acc_list {
	struct page_acc *items;
	size_t len, cap;
};

struct gather {
	struct lec_store *st;
	const struct lec_search_request *req;
	struct lec__search_hl *hl; /* the query's terms, for highlights */
	/* The searched versions' pages: one id range each, and those with
	 * a search.ranking rank, by id (see load_pages). */
	struct id_range {
		int64_t first, last;
	} * ranges;
	size_t nranges;
	struct page_info *ranked;
	size_t nranked;
	struct acc_list all;   /* pages matching the AND form */
	struct acc_list any;   /* pages matching only the OR form */
	struct acc_list named; /* pages of name matches, ranked first */
	struct lec__search_tokenizer *tok;
	int page_checks; /* FTS5 lookups left for page_has */
	int unfinished;	 /* the last word is not an indexed one (typed_query) */
	/* The query's remembered postings, NULL: rank with FTS5 statements */
	struct lec__search_postings *post;
};

static int acc_push(struct acc_list *l, int64_t page_id, int rank)
{
	if (lec__grow((void **)&l->items, &l->cap, l->len,
		      sizeof(*l->items), 64) < 0)
		return LEC_ENOMEM;
	memset(&l->items[l->len], 0, sizeof(l->items[0]));
	l->items[l->len].page_id = page_id;
	l->items[l->len].rank = rank;
	l->len++;
	return LEC_OK;
}

/* Keep the entry if it is among the page's best blocks. */
static void acc_block(struct page_acc *p, int64_t rowid, double score)
{
	size_t i = p->nblocks < LEC_SEARCH_BLOCKS_MAX ? p->nblocks++
						      : LEC_SEARCH_BLOCKS_MAX;

	if (i == LEC_SEARCH_BLOCKS_MAX) {
		if (score <= p->block_scores[i - 1])
			return;
		i--;
	}
	while (i > 0 && p->block_scores[i - 1] < score) {
		p->blocks[i] = p->blocks[i - 1];
		p->block_scores[i] = p->block_scores[i - 1];
		i--;
	}
	p->blocks[i] = rowid;
	p->block_scores[i] = score;
}

/* A page with a rank other than 0. */
struct page_info {
	int64_t id;
	int rank;
};

/* The end of a search statement's step loop: SQLITE_DONE is success, a
 * negative code an error already set, another SQLite code an error to set.
 * Finalizes stmt. */
static int steps_end(struct gather *g, sqlite3_stmt *stmt, int rc)
{
	if (rc == SQLITE_DONE)
		rc = LEC_OK;
	else if (rc > 0)
		rc = lec_store__sqlerr(g->st, rc, "searching");
	lec_store__finalize(g->st, stmt);
	return rc;
}

/* One version's pages: its id range, and those of its pages with a rank
 * into g->ranked. */
static int load_version(struct gather *g, int64_t version_id)
{
	sqlite3_stmt *stmt = NULL;
	struct id_range *r = &g->ranges[g->nranges];
	int rc;

	if ((rc = lec_store__prepare(
		     g->st, &stmt,
		     "SELECT (SELECT min(id) FROM search_pages WHERE "
		     "version_id = ?1), (SELECT max(id) FROM search_pages "
		     "WHERE version_id = ?1)")) < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, version_id);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW &&
	    sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
		r->first = sqlite3_column_int64(stmt, 0);
		r->last = sqlite3_column_int64(stmt, 1);
		g->nranges++;
	}
	rc = steps_end(g, stmt, rc == SQLITE_ROW ? SQLITE_DONE : rc);
	if (rc < 0 ||
	    (rc = lec_store__prepare(g->st, &stmt,
				     "SELECT id, rank FROM search_pages WHERE "
				     "version_id = ?1 AND rank <> 0")) < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, version_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct page_info *grown = lec__realloc(
			g->ranked, (g->nranked + 1) * sizeof(*grown));

		if (grown == NULL) {
			rc = lec__error_oom();
			break;
		}
		g->ranked = grown;
		g->ranked[g->nranked].id = sqlite3_column_int64(stmt, 0);
		g->ranked[g->nranked++].rank = sqlite3_column_int(stmt, 1);
	}
	return steps_end(g, stmt, rc);
}

static int range_cmp(const void *a, const void *b)
{
	const struct id_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static int info_cmp(const void *a, const void *b)
{
	const struct page_info *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The searched versions' pages. A version's pages are one id range (its
 * index is written in one transaction: ids follow each other), found in
 * the (version_id, id) index in two steps, and the few pages with a
 * search.ranking rank come from a partial index: a query reads neither
 * every page of the version nor anything per FTS5 row (reading version_id
 * or page_rank from an FTS5 row costs a content-table lookup, many times
 * the match itself).
 */
static int load_pages(struct gather *g)
{
	size_t i;
	int rc = LEC_OK;

	g->ranges = lec__calloc(g->req->nversions + 1, sizeof(*g->ranges));
	if (g->ranges == NULL)
		return lec__error_oom();
	for (i = 0; i < g->req->nversions && rc == LEC_OK; i++)
		rc = load_version(g, g->req->version_ids[i]);
	if (g->nranges > 1)
		qsort(g->ranges, g->nranges, sizeof(*g->ranges), range_cmp);
	if (g->nranked > 1)
		qsort(g->ranked, g->nranked, sizeof(*g->ranked), info_cmp);
	return rc;
}

/* The searched pages' rowid range: [*lo, *hi]. */
static void rowid_range(const struct gather *g, int64_t *lo, int64_t *hi)
{
	int64_t last = g->ranges[0].last;
	size_t i;

	for (i = 1; i < g->nranges; i++)
		if (g->ranges[i].last > last)
			last = g->ranges[i].last;
	*lo = g->ranges[0].first * LEC__SEARCH_ENTRIES_PER_PAGE;
	*hi = last * LEC__SEARCH_ENTRIES_PER_PAGE +
	      LEC__SEARCH_ENTRIES_PER_PAGE - 1;
}

/* Where gather_rows reads the matching rows, in ascending rowid order,
 * each with its lec_rank score (unless count_only): an FTS5 statement, or
 * the query's remembered postings merged in memory (every phrase: the AND
 * form; any: the OR form), which give the same rows and scores. */
struct rows {
	sqlite3_stmt *stmt;
	const struct lec__search_postings *post;
	int all;
	int count_only;
	size_t at[LEC_SEARCH_TERMS_MAX]; /* each list's next row */
	int64_t hi;
	/* The OR form: list `solo` alone has rows below solo_end (the other
	 * lists' smallest next row), so they come from it without looking at
	 * the others: a common word's long run between a rarer word's rows. */
	size_t solo;
	int64_t solo_end;
};

/* The first index of list (len rowids) at or after from. */
static size_t seek_row(const int64_t *list, size_t len, size_t from,
		       int64_t rowid)
{
	size_t step = 1, lo = from, hi;

	/* Gallop, then halve: lists are walked forward in small steps. */
	while (lo + step < len && list[lo + step] < rowid) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < len ? lo + step : len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list[mid] < rowid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rows_open(struct gather *g, struct rows *r, const char *expr,
		     int all, int count_only)
{
	int64_t lo, hi;
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	rowid_range(g, &lo, &hi);
	r->count_only = count_only;
	r->solo = LEC_SEARCH_TERMS_MAX;
	if (g->post) {
		r->post = g->post;
		r->all = all;
		r->hi = hi;
		for (i = 0; i < g->post->n; i++)
			r->at[i] = seek_row(g->post->rowids[i], g->post->len[i],
					    0, lo);
		return LEC_OK;
	}
	rc = lec_store__prepare(
		g->st, &r->stmt,
		count_only
			? "SELECT rowid FROM search_entries WHERE "
			  "search_entries MATCH ?1 AND rowid BETWEEN ?2 AND ?3"
			: "SELECT rowid, " LEC__SEARCH_RANK_NAME
			  "(search_entries, ?1) FROM search_entries WHERE "
			  "search_entries MATCH ?1 AND rowid BETWEEN ?2 AND "
			  "?3");
	if (rc < 0 || (rc = lec_store__bind_text(r->stmt, 1, expr)) < 0)
		return rc;
	sqlite3_bind_int64(r->stmt, 2, lo);
	sqlite3_bind_int64(r->stmt, 3, hi);
	return LEC_OK;
}

/* The next row of every list (the AND form): leapfrog to a rowid they
 * all have. 0 when one list runs out. */
static int postings_next_all(struct rows *r, int64_t *rowid)
{
	const struct lec__search_postings *p = r->post;
	int64_t target;
	size_t i, agree = 0;

	if (r->at[0] >= p->len[0])
		return 0;
	target = p->rowids[0][r->at[0]];
	for (i = 0; agree < p->n; i = (i + 1) % p->n) {
		r->at[i] = seek_row(p->rowids[i], p->len[i], r->at[i], target);
		if (r->at[i] >= p->len[i])
			return 0;
		if (p->rowids[i][r->at[i]] == target) {
			agree++;
		} else {
			target = p->rowids[i][r->at[i]];
			agree = 1;
		}
	}
	*rowid = target;
	return 1;
}

/* The next row of any list (the OR form). 0 when all have run out. Sets
 * r->solo when one list alone has the smallest rows. */
static int postings_next_any(struct rows *r, int64_t *rowid)
{
	const struct lec__search_postings *p = r->post;
	int64_t min = INT64_MAX, second = INT64_MAX, v;
	size_t i, at_min = 0, n_min = 0;

	for (i = 0; i < p->n; i++) {
		if (r->at[i] >= p->len[i])
			continue;
		v = p->rowids[i][r->at[i]];
		if (v < min) {
			second = min;
			min = v;
			at_min = i;
			n_min = 1;
		} else if (v == min) {
			n_min++;
		} else if (v < second) {
			second = v;
		}
	}
	r->solo = n_min == 1 ? at_min : LEC_SEARCH_TERMS_MAX;
	r->solo_end = n_min == 1 ? second : min;
	*rowid = min;
	return min != INT64_MAX;
}

/* The next matching row: 1, 0 at the end, < 0 an engine error. */
static int rows_next(struct gather *g, struct rows *r, int64_t *rowid,
		     double *score)
{
	const struct lec__search_postings *p = r->post;
	double norm;
	size_t i;
	int rc;

	if (r->stmt) {
		if ((rc = sqlite3_step(r->stmt)) != SQLITE_ROW)
			return rc == SQLITE_DONE
				       ? 0
				       : lec_store__sqlerr(g->st, rc,
							   "searching");
		*rowid = sqlite3_column_int64(r->stmt, 0);
		*score = r->count_only ? 0 : sqlite3_column_double(r->stmt, 1);
		return 1;
	}
	if (!r->all && r->solo < p->n && r->at[r->solo] < p->len[r->solo] &&
	    (*rowid = p->rowids[r->solo][r->at[r->solo]]) < r->solo_end) {
		if (*rowid > r->hi)
			return 0;
		i = r->solo;
		*score = r->count_only
				 ? 0
				 : lec__search_bm25(
					   p->idf[i], p->freqs[i][r->at[i]],
					   p->norm[*rowid &
						   (LEC__SEARCH_LENGTH_BUCKETS -
						    1)]);
		r->at[i]++;
		return 1;
	}
	if (!(r->all ? postings_next_all(r, rowid)
		     : postings_next_any(r, rowid)) ||
	    *rowid > r->hi)
		return 0;
	/* lec_rank's sum, phrase by phrase; a phrase not in the row adds
	 * exactly 0 there. */
	norm = p->norm[*rowid & (LEC__SEARCH_LENGTH_BUCKETS - 1)];
	*score = 0;
	for (i = 0; i < p->n; i++)
		if (r->at[i] < p->len[i] && p->rowids[i][r->at[i]] == *rowid) {
			if (!r->count_only)
				*score += lec__search_bm25(
					p->idf[i], p->freqs[i][r->at[i]], norm);
			r->at[i]++;
		}
	return 1;
}

/* Counting pages only: nothing more of this page is needed. */
static void rows_skip_page(struct rows *r, int64_t page_id)
{
	size_t i;

	if (r->post == NULL)
		return;
	for (i = 0; i < r->post->n; i++)
		r->at[i] =
			seek_row(r->post->rowids[i], r->post->len[i], r->at[i],
				 (page_id + 1) * LEC__SEARCH_ENTRIES_PER_PAGE);
}

static void rows_close(struct gather *g, struct rows *r)
{
	lec_store__finalize(g->st, r->stmt);
}

/* Whether page_id is a searched page; *rank gets its rank. */
static int page_rank(const struct gather *g, int64_t page_id, int *rank)
{
	size_t i, lo = 0, hi = g->nranked, mid;

	for (i = 0; i < g->nranges; i++)
		if (page_id >= g->ranges[i].first &&
		    page_id <= g->ranges[i].last)
			break;
	if (i == g->nranges)
		return 0;
	*rank = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->ranked[mid].id < page_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nranked && g->ranked[lo].id == page_id)
		*rank = g->ranked[lo].rank;
	return 1;
}

/* Whether page_id is in the sorted list (a cursor walks it forward). */
static int in_list(const struct acc_list *l, size_t *cursor, int64_t page_id)
{
	while (*cursor < l->len && l->items[*cursor].page_id < page_id)
		(*cursor)++;
	return *cursor < l->len && l->items[*cursor].page_id == page_id;
}

/* Run expr (all: the AND form); score its pages into out, skipping pages
 * in `skip`. With count_only, just count the distinct pages (no bm25). */
static int gather_rows(struct gather *g, const char *expr, int all,
		       struct acc_list *out, const struct acc_list *skip,
		       int count_only, size_t *count)
{
	struct rows r;
	int64_t last = -1, rowid = 0, page_id;
	size_t cursor = 0;
	double score = 0;
	int rc, rank = 0;

	*count = 0;
	if ((rc = rows_open(g, &r, expr, all, count_only)) < 0)
		goto done;
	while ((rc = rows_next(g, &r, &rowid, &score)) == 1) {
		page_id = rowid >> LEC__SEARCH_ENTRY_BITS;
		if ((page_id != last && !page_rank(g, page_id, &rank)) ||
		    (skip && in_list(skip, &cursor, page_id)))
			continue;
		if (page_id != last) {
			++*count;
			last = page_id;
			if (count_only) {
				rows_skip_page(&r, page_id);
				continue;
			}
			if ((rc = acc_push(out, page_id, rank)) < 0)
				break;
		}
		if (count_only)
			continue;
		if ((rowid & (LEC__SEARCH_ENTRIES_PER_PAGE - 1)) >>
			    LEC__SEARCH_LENGTH_BITS ==
		    0) {
			out->items[out->len - 1].title_score = score;
		} else {
			struct page_acc *p = &out->items[out->len - 1];

			if (score > p->section_score)
				p->section_score = score;
			acc_block(p, rowid, score);
		}
	}
done:
	rows_close(g, &r);
	return rc < 0 ? rc : LEC_OK;
}

/* Names ------------------------------------------------------------------------ */

/* A name match ranks its page above every page without one: its score is
 * NAME_BONUS times the match's (at most 1) plus the page's BM25. */
#define NAME_BONUS 1000.0
/* Pages page_has may look up with FTS5 per query when the AND matches do
 * not already say (bounds a query naming hundreds of objects). */
#define PAGE_CHECKS_MAX 32

static struct page_acc *acc_find(struct acc_list *l, int64_t page_id)
{
	size_t lo = 0, hi = l->len, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->items[mid].page_id < page_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->len && l->items[lo].page_id == page_id ? &l->items[lo]
							      : NULL;
}

static int names_in_scope(void *ctx, int64_t entry)
{
	int rank;

	return page_rank(ctx, entry >> LEC__SEARCH_ENTRY_BITS, &rank);
}

/* Whether the page of entry has all of words: a page matching the whole
 * query does; others are asked of FTS5 (look) while the budget lasts. */
static int names_page_has(void *ctx, int64_t entry, const char *words, int look)
{
	struct gather *g = ctx;
	struct lec__search_expr ex = { 0 };
	int64_t page_id = entry >> LEC__SEARCH_ENTRY_BITS;
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (acc_find(&g->all, page_id) != NULL)
		return 1;
	if (!look || g->page_checks <= 0)
		return 0;
	g->page_checks--;
	if ((rc = lec__search_translate(words, has_tokens, g->tok, &ex)) < 0)
		return rc;
	if (ex.all == NULL) {
		lec__search_expr_dispose(&ex);
		return 1; /* nothing to require */
	}
	rc = lec_store__prepare(g->st, &stmt,
				"SELECT 1 FROM search_entries WHERE "
				"search_entries MATCH ?1 AND rowid BETWEEN ?2 "
				"AND ?3 LIMIT 1");
	if (rc == LEC_OK && (rc = lec_store__bind_text(stmt, 1, ex.all)) == 0) {
		sqlite3_bind_int64(stmt, 2,
				   page_id * LEC__SEARCH_ENTRIES_PER_PAGE);
		sqlite3_bind_int64(stmt, 3,
				   page_id * LEC__SEARCH_ENTRIES_PER_PAGE +
					   LEC__SEARCH_ENTRIES_PER_PAGE - 1);
		rc = sqlite3_step(stmt);
		rc = rc == SQLITE_ROW ? 1
		     : rc == SQLITE_DONE
			     ? 0
			     : lec_store__sqlerr(g->st, rc, "searching");
	}
	lec_store__finalize(g->st, stmt);
	lec__search_expr_dispose(&ex);
	return rc;
}

/* Whether a word of the query matches anything indexed as it is (1 yes,
 * 0 no, < 0 an engine error): one term index lookup when it can say, else
 * an FTS5 query. */
static int word_indexed(struct lec_store *st,
			const struct lec__search_tokenizer *tok,
			const char *word, size_t len)
{
	struct lec__buf b = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int rc = lec__search_terms_word(st, tok, word, len);

	if (rc != LEC_ENOTFOUND)
		return rc;
	lec_error_clear();
	/* One FTS5 string: quoted, quotes doubled. */
	lec__buf_puts(&b, "\"");
	for (i = 0; i < len; i++)
		lec__buf_putn(&b, word[i] == '"' ? "\"\"" : word + i,
			      word[i] == '"' ? 2 : 1);
	lec__buf_puts(&b, "\"");
	if (b.oom)
		return lec__error_oom();
	rc = lec_store__prepare(st, &stmt,
				"SELECT 1 FROM search_entries WHERE "
				"search_entries MATCH ?1 LIMIT 1");
	if (rc == LEC_OK && (rc = lec_store__bind_text(stmt, 1, b.ptr)) == 0) {
		rc = sqlite3_step(stmt);
		rc = rc == SQLITE_ROW ? 1
		     : rc == SQLITE_DONE
			     ? 0
			     : lec_store__sqlerr(st, rc, "searching");
	}
	lec_store__finalize(st, stmt);
	lec__buf_dispose(&b);
	return rc;
}

/* word_indexed as a lec__search_tokens_fn over a gather. */
static int word_matches(void *ctx, const char *word, size_t len)
{
	struct gather *g = ctx;

	return word_indexed(g->st, g->tok, word, len);
}

/* The pages the query names, into g->named, each with its name matches
 * as its first blocks. */
static int gather_names(struct gather *g)
{
	struct lec__search_name_hit *hits = NULL;
	struct page_acc *p;
	size_t nhits = 0, i, j;
	int64_t page_id;
	int rc;

	g->page_checks = PAGE_CHECKS_MAX;
	if ((rc = lec__search_names_match(g->st, g->req->query, g->unfinished,
					  names_in_scope, names_page_has, g,
					  &hits, &nhits)) < 0)
		return rc;
	for (i = 0; i < nhits && rc == LEC_OK; i++) {
		page_id = hits[i].entry >> LEC__SEARCH_ENTRY_BITS;
		for (j = 0; j < g->named.len; j++)
			if (g->named.items[j].page_id == page_id)
				break;
		if (j == g->named.len) {
			int rank = 0;

			page_rank(g, page_id, &rank);
			if ((rc = acc_push(&g->named, page_id, rank)) < 0)
				break;
			g->named.items[j].name_score = hits[i].score;
		}
		p = &g->named.items[j];
		acc_block(p, hits[i].entry, NAME_BONUS * hits[i].score);
	}
	lec__free(hits);
	return rc;
}

static int has_block(const struct page_acc *p, int64_t rowid)
{
	size_t i;

	for (i = 0; i < p->nblocks; i++)
		if (p->blocks[i] == rowid)
			return 1;
	return 0;
}

/* Take what list l found on each named page (its BM25 scores and best
 * entries, after the names) and take the page out of l; returns how many
 * named pages l has. */
static size_t merge_named(struct gather *g, struct acc_list *l)
{
	struct page_acc *p, *found;
	size_t i, j, n = 0;

	for (j = 0; j < g->named.len; j++) {
		p = &g->named.items[j];
		if ((found = acc_find(l, p->page_id)) == NULL)
			continue;
		n++;
		found->moved = 1;
		p->title_score = found->title_score;
		p->section_score = found->section_score;
		for (i = 0; i < found->nblocks; i++)
			if (!has_block(p, found->blocks[i]))
				acc_block(p, found->blocks[i],
					  found->block_scores[i]);
	}
	return n;
}

/* Ranking and results -------------------------------------------------------- */

static int acc_cmp(const void *a, const void *b)
{
	const struct page_acc *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->page_id < y->page_id ? -1 : x->page_id > y->page_id;
}

static void acc_rank(struct acc_list *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		l->items[i].score =
			(NAME_BONUS * l->items[i].name_score +
			 l->items[i].title_score + l->items[i].section_score) *
			lec_search_rank_factor(l->items[i].rank);
	if (l->len > 1)
		qsort(l->items, l->len, sizeof(*l->items), acc_cmp);
}

/* Columns of row rowid (bit c for column c) that hold a query token, when
 * the remembered postings can say (every phrase one token); else all.
 * Highlighting a column without one would scan it to find nothing.
 * *first (may be NULL) gets the content offset before which no token
 * occurs, 0 when unknown. */
static unsigned row_cols(const struct gather *g, int64_t rowid, size_t *first)
{
	const struct lec__search_postings *p = g->post;
	unsigned cols = 0;
	size_t i, at, min = SIZE_MAX;

	if (first)
		*first = 0;
	if (p == NULL || !p->token_cols)
		return ~0u;
	for (i = 0; i < p->n; i++) {
		at = seek_row(p->rowids[i], p->len[i], 0, rowid);
		if (at >= p->len[i] || p->rowids[i][at] != rowid)
			continue;
		cols |= p->cols[i][at];
		if ((p->cols[i][at] & 4) && p->firsts[i][at] < min)
			min = p->firsts[i][at];
	}
	if (first && min != SIZE_MAX)
		*first = min;
	return cols;
}

/* row_cols of a page's title row (entry 0, whatever its length bucket). */
static unsigned title_cols(const struct gather *g, int64_t page_id)
{
	const struct lec__search_postings *p = g->post;
	int64_t first = page_id * LEC__SEARCH_ENTRIES_PER_PAGE;
	size_t i, at;

	if (p == NULL || !p->token_cols)
		return ~0u;
	for (i = 0; i < p->n; i++) {
		at = seek_row(p->rowids[i], p->len[i], 0, first);
		if (at < p->len[i] &&
		    p->rowids[i][at] < first + LEC__SEARCH_LENGTH_BUCKETS)
			return row_cols(g, p->rowids[i][at], NULL);
	}
	return 0;
}

static int fill_block(struct gather *g, int64_t rowid,
		      struct lec_search_block *blk, int *found)
{
	size_t first;
	unsigned cols = row_cols(g, rowid, &first);
	sqlite3_stmt *stmt = NULL;
	int rc;

	*found = 0;
	/* FTS5's own content table (kind, anchor, role, title, content by
	 * column number): through the FTS5 table each row costs a cursor. */
	if ((rc = lec_store__prepare(
		     g->st, &stmt,
		     "SELECT c5, c6, c7, c1, c2 "
		     "FROM search_entries_content WHERE id = ?")) < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, rowid);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE
			     ? LEC_OK
			     : lec_store__sqlerr(g->st, rc, "searching");
		goto done;
	}
	rc = LEC_OK;
	*found = 1;
	blk->type = sqlite3_column_int(stmt, 0) == LEC__SEARCH_KIND_DOMAIN
			    ? LEC_SEARCH_BLOCK_DOMAIN
			    : LEC_SEARCH_BLOCK_SECTION;
	blk->id = lec__search_dup(lec__search_col_str(stmt, 1), &rc);
	if (blk->type == LEC_SEARCH_BLOCK_DOMAIN)
		blk->role = lec__search_dup(lec__search_col_str(stmt, 2), &rc);
	blk->title = lec__search_dup(lec__search_col_str(stmt, 3), &rc);
	blk->content = lec__search_dup(lec__search_col_str(stmt, 4), &rc);
	if (rc == LEC_OK && (cols & 2))
		rc = lec__search_hl_text(g->hl, blk->title, 1, 0,
					 &blk->title_highlight);
	if (rc == LEC_OK && (cols & 4))
		rc = lec__search_hl_text(g->hl, blk->content, 0, first,
					 &blk->content_highlight);
done:
	lec_store__finalize(g->st, stmt);
	return rc;
}

static int fill_page(struct gather *g, const struct page_acc *acc,
		     struct lec_search_hit *hit)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int rc, found;

	hit->score = acc->score;
	if ((rc = lec_store__prepare(g->st, &stmt,
				     "SELECT version_id, path, title FROM "
				     "search_pages WHERE id = ?")) < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, acc->page_id);
	if ((rc = sqlite3_step(stmt)) != SQLITE_ROW) {
		rc = lec_store__sqlerr(g->st,
				       rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				       "reading a search result");
		goto done;
	}
	rc = LEC_OK;
	hit->version_id = sqlite3_column_int64(stmt, 0);
	hit->path = lec__search_dup(lec__search_col_str(stmt, 1), &rc);
	hit->title = lec__search_dup(lec__search_col_str(stmt, 2), &rc);
	if (rc == LEC_OK && (title_cols(g, acc->page_id) & 1))
		rc = lec__search_hl_text(g->hl, hit->title, 1, 0,
					 &hit->title_highlight);
	if (rc < 0)
		goto done;
	hit->blocks = lec__calloc(LEC_SEARCH_BLOCKS_MAX, sizeof(*hit->blocks));
	if (hit->blocks == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	for (i = 0; i < acc->nblocks && rc == LEC_OK; i++) {
		rc = fill_block(g, acc->blocks[i],
				&hit->blocks[hit->blocks_len], &found);
		hit->blocks_len += (size_t)found;
	}
done:
	lec_store__finalize(g->st, stmt);
	return rc;
}

static const size_t block_texts[] = {
	offsetof(struct lec_search_block, id),
	offsetof(struct lec_search_block, title),
	offsetof(struct lec_search_block, role),
	offsetof(struct lec_search_block, content),
	offsetof(struct lec_search_block, title_highlight),
	offsetof(struct lec_search_block, content_highlight),
};

static void hit_dispose(void *item)
{
	struct lec_search_hit *h = item;

	LEC__ITEMS_TEXTS_FREE(h->blocks, h->blocks_len, block_texts);
	lec__free(h->path);
	lec__free(h->title);
	lec__free(h->title_highlight);
}

void lec_search_results_dispose(struct lec_search_results *results)
{
	if (results == NULL)
		return;
	LEC__ITEMS_FREE(results->items, results->len, hit_dispose);
	memset(results, 0, sizeof(*results));
}

/* The window --------------------------------------------------------------- */

/* Check page and page_size; *offset and *limit get the window. */
static int check_page(const struct lec_search_request *req, size_t *offset,
		      size_t *limit)
{
	size_t size = req->page_size ? req->page_size
				     : LEC_SEARCH_PAGE_SIZE_DEFAULT;

	if (size > LEC_SEARCH_PAGE_SIZE_MAX)
		size = LEC_SEARCH_PAGE_SIZE_MAX;
	if (req->page == 0)
		return lec__error(LEC_EINVALID, "Invalid page");
	if (req->page > LEC_SEARCH_RESULTS_MAX / size)
		return lec__error(LEC_EINVALID, "Page number is too high.");
	*offset = (req->page - 1) * size;
	*limit = size;
	return LEC_OK;
}

/* Gather and rank the pages the window [offset, offset+limit) needs, and
 * the total: name matches first, then the AND form's pages, then the OR
 * form's (only counted when the others fill the window; a named page among
 * them may then be counted twice). */
static int gather(struct gather *g, const struct lec__search_expr *ex,
		  size_t window_end, size_t *total)
{
	size_t n = 0, in_all, in_any = 0;
	int rc;

	if ((rc = load_pages(g)) < 0 || g->nranges == 0)
		return rc;
	if (ex->phrases &&
	    (rc = lec__search_postings_get(g->st, ex, g->tok, &g->post)) < 0 &&
	    rc != LEC_ENOTFOUND)
		return rc;
	lec_error_clear();
	if ((ex->all &&
	     (rc = gather_rows(g, ex->all, 1, &g->all, NULL, 0, &n)) < 0) ||
	    (rc = gather_names(g)) < 0)
		return rc;
	in_all = merge_named(g, &g->all);
	*total = n + g->named.len - in_all;
	if (ex->all == NULL || strcmp(ex->all, ex->any) == 0)
		return LEC_OK;
	rc = gather_rows(g, ex->any, 0, &g->any, &g->all,
			 window_end <= n - in_all + g->named.len, &n);
	if (rc == LEC_OK)
		in_any = merge_named(g, &g->any);
	*total += n - in_any;
	return rc;
}

/* The ranked pages in order: named, then AND, then OR matches, each page
 * once. */
static const struct page_acc *ranked_at(const struct gather *g, size_t i)
{
	const struct acc_list *lists[] = { &g->named, &g->all, &g->any };
	size_t l, j;

	for (l = 0; l < 3; l++)
		for (j = 0; j < lists[l]->len; j++)
			if (!lists[l]->items[j].moved && i-- == 0)
				return &lists[l]->items[j];
	return NULL;
}

static int fill_window(struct gather *g, size_t offset, size_t limit,
		       struct lec_search_results *out)
{
	const struct page_acc *acc;
	size_t i;
	int rc = LEC_OK;

	if (limit == 0 || ranked_at(g, offset) == NULL)
		return LEC_OK;
	out->items = lec__calloc(limit, sizeof(*out->items));
	if (out->items == NULL)
		return lec__error_oom();
	for (i = offset; i < offset + limit && rc == LEC_OK &&
			 (acc = ranked_at(g, i)) != NULL;
	     i++)
		rc = fill_page(g, acc, &out->items[out->len++]);
	return rc;
}

/* The query ------------------------------------------------------------------ */

/* Shortest last word searched as a prefix too: shorter ones begin too many
 * words. */
#define TYPED_PREFIX_MIN 3

/* The query with its last word also searched as a prefix ("asyncio
 * gat" finds gather), as a reader typing it has not finished it: a '*'
 * after it, unless it is an indexed word as it is (finished: a prefix
 * search would only cost time), excluded, inside a phrase, short or
 * already a prefix. *out NULL when unchanged, else owned by the caller
 * (lec__free). */
static int typed_query(struct lec_store *st,
		       const struct lec__search_tokenizer *tok, const char *q,
		       char **out)
{
	size_t n = q ? strlen(q) : 0, start = n, quotes = 0, i;
	struct lec__buf b = LEC__BUF_INIT;
	int rc;

	*out = NULL;
	while (start > 0 && ((q[start - 1] >= 'a' && q[start - 1] <= 'z') ||
			     (q[start - 1] >= 'A' && q[start - 1] <= 'Z') ||
			     (q[start - 1] >= '0' && q[start - 1] <= '9')))
		start--;
	for (i = 0; i < n; i++)
		quotes += q[i] == '"';
	if (n - start < TYPED_PREFIX_MIN || quotes % 2 ||
	    (start > 0 && (q[start - 1] == '-' || q[start - 1] == '\\')))
		return LEC_OK;
	if ((rc = word_indexed(st, tok, q + start, n - start)) != 0)
		return rc < 0 ? rc : LEC_OK;
	lec__buf_putn(&b, q, n);
	lec__buf_puts(&b, "*");
	return (*out = lec__buf_take(&b)) == NULL ? LEC_ENOMEM : LEC_OK;
}

/* One query. When nothing matches every word and no name either, and
 * correct allows, the query is run once more with its unmatched words
 * replaced by the nearest indexed ones (search_names.c): the service's
 * fuzziness, which finds "asyncio gather" for "asynico gather". */
static int run_query(struct lec_store *st, const struct lec_search_request *req,
		     int correct, struct lec_search_results *out)
{
	struct lec__search_expr ex = { 0 };
	struct lec_search_request fixed;
	struct gather g;
	struct lec__search_tokenizer tok;
	size_t offset = 0, limit = 0, total = 0;
	char *corrected = NULL, *typed = NULL;
	int rc, own_read;

	memset(out, 0, sizeof(*out));
	memset(&g, 0, sizeof(g));
	memset(&tok, 0, sizeof(tok));
	if ((rc = check_page(req, &offset, &limit)) < 0)
		return rc;
	if (req->nversions > LEC_SEARCH_VERSIONS_MAX)
		return lec__error(LEC_EINVALID,
				  "at most %d versions can be searched at once",
				  LEC_SEARCH_VERSIONS_MAX);
	if ((rc = lec__search_tokenizer_open(st, &tok)) < 0 ||
	    (rc = typed_query(st, &tok, req->query, &typed)) < 0 ||
	    (rc = lec__search_translate(typed ? typed : req->query, has_tokens,
					&tok, &ex)) < 0 ||
	    req->nversions == 0 ||
	    (rc = lec__search_hl_new(&tok, &ex, &g.hl)) < 0)
		goto done;
	g.st = st;
	g.req = req;
	g.tok = &tok;
	g.unfinished = typed != NULL;
	/* One snapshot for gathering and filling, unless the caller has one. */
	own_read = sqlite3_get_autocommit(st->db);
	if (own_read && (rc = lec_store_read_begin(st)) < 0)
		goto done;
	rc = gather(&g, &ex, offset + limit, &total);
	if (rc == LEC_OK && correct && g.all.len == 0 && g.named.len == 0)
		rc = lec__search_names_correct(st, req->query, word_matches, &g,
					       &corrected);
	if (rc == LEC_OK && corrected == NULL) {
		acc_rank(&g.named);
		acc_rank(&g.all);
		acc_rank(&g.any);
		out->total = total;
		rc = fill_window(&g, offset, limit, out);
	}
	if (own_read)
		lec_store_read_end(st);
done:
	if (rc < 0)
		lec_search_results_dispose(out);
	lec__search_hl_free(g.hl);
	lec__search_postings_free(g.post);
	lec__free(g.ranges);
	lec__free(g.ranked);
	lec__free(g.all.items);
	lec__free(g.any.items);
	lec__free(g.named.items);
	lec__search_expr_dispose(&ex);
	lec__search_tokenizer_close(&tok);
	lec__free(typed);
	if (rc == LEC_OK && corrected) {
		fixed = *req;
		fixed.query = corrected;
		rc = run_query(st, &fixed, 0, out);
	}
	lec__free(corrected);
	return rc;
}

int lec_search_query(struct lec_store *st, const struct lec_search_request *req,
		     struct lec_search_results *out)
{
	lec_error_clear();
	return run_query(st, req, 1, out);
}
