/*
 * Remembered postings: for the phrases of recent queries, every row of
 * search_entries each one occurs in (ascending rowids) with its instances
 * weighted by column, exactly what lec_rank reads of a matching row. A
 * query that is a plain list of words and phrases then finds the rows
 * matching all or any of them by merging these lists in memory and scores
 * them with lec_rank's own arithmetic (search_rank.c), to the bit: no FTS5
 * statement steps through thousands of rows, which was most of a query's
 * time (the OR form of "context manager with statement" alone steps
 * through 5,000 rows of python3-doc to count its pages).
 *
 * A word's or a typed prefix's list comes from the term index
 * (search_terms.c), one lookup; a phrase of several tokens, which needs
 * positions, from FTS5: its MATCH stepped once, the auxiliary function
 * lec_postings (the only place FTS5 hands out its API) weighing each row's
 * instances. Lists are remembered per connection, like lec_rank's
 * frequencies, while the database is unchanged (data version and this
 * connection's changes), the least recently used going first past a byte
 * budget.
 */
#include <string.h>

#include "hash.h"
#include "internal.h"
#include "search_internal.h"
#include "store_internal.h"

/* Bytes of postings a connection remembers: the lists of a few hundred
 * words of python3-doc, or of the forty commonest of a 100,000-section
 * index; each server thread has a connection of its own. */
#define MEMO_BYTES_MAX ((size_t)8 << 20)
/* Lists remembered per connection, whatever their size. */
#define MEMO_SLOTS 128
/* Rows read into memory for one query, all its phrases together (16 MiB
 * of lists): ten common words of a 100,000-section index. A query of
 * more, such as 64 words each in every row, is ranked by FTS5 statements
 * instead, which need no memory. */
#define QUERY_ROWS_MAX ((size_t)1 << 20)
#define POSTINGS_FN "lec_postings"

/* A connection's memory, lec_postings' user data. */
struct lec__search_memo {
	sqlite3 *db;
	int valid; /* the state below describes the database */
	unsigned int data_version;
	sqlite3_int64 changes;
	sqlite3_int64 rows, tokens; /* the table's, for BM25 */
	struct lec__search_plist slots[MEMO_SLOTS];
	/* Each used slot's phrase hashed: a lookup compares hashes, not the
	 * phrases of every slot. */
	uint64_t hashes[MEMO_SLOTS];
	size_t bytes;
	unsigned long clock;
};

static size_t list_bytes(const struct lec__search_plist *l)
{
	return l->cap * (sizeof(*l->rowids) + sizeof(*l->freqs) +
			 sizeof(*l->cols) + sizeof(*l->firsts));
}

static void memo_flush(struct lec__search_memo *m)
{
	size_t i;

	for (i = 0; i < MEMO_SLOTS; i++)
		lec__search_plist_clear(&m->slots[i]);
	m->bytes = 0;
	m->valid = 0;
}

static void memo_free(void *p)
{
	struct lec__search_memo *m = p;

	if (m == NULL)
		return;
	memo_flush(m);
	lec__free(m);
}

static struct lec__search_plist *memo_find(struct lec__search_memo *m,
					   const char *phrase)
{
	uint64_t h = lec__fnv1a(phrase, strlen(phrase));
	size_t i;

	for (i = 0; i < MEMO_SLOTS; i++)
		if (m->hashes[i] == h && m->slots[i].phrase &&
		    strcmp(m->slots[i].phrase, phrase) == 0)
			return &m->slots[i];
	return NULL;
}

/* Keep a list read for the current query, evicting the least recently
 * used lists that this query does not use (pinned: used at the clock's
 * current value). On return l is either moved into the memory (emptied)
 * or left to the caller. */
static void memo_keep(struct lec__search_memo *m, struct lec__search_plist *l)
{
	struct lec__search_plist *free_slot, *victim;
	size_t i, need = list_bytes(l);

	if (need > MEMO_BYTES_MAX / 4 || memo_find(m, l->phrase))
		return;
	for (;;) {
		free_slot = victim = NULL;
		for (i = 0; i < MEMO_SLOTS; i++) {
			struct lec__search_plist *s = &m->slots[i];

			if (s->phrase == NULL)
				free_slot = free_slot ? free_slot : s;
			else if (s->used != m->clock &&
				 (victim == NULL || s->used < victim->used))
				victim = s;
		}
		if (free_slot && m->bytes + need <= MEMO_BYTES_MAX)
			break;
		if (victim == NULL)
			return; /* everything is this query's own */
		m->bytes -= list_bytes(victim);
		lec__search_plist_clear(victim);
	}
	*free_slot = *l;
	free_slot->used = m->clock;
	m->hashes[free_slot - m->slots] = lec__fnv1a(l->phrase,
						     strlen(l->phrase));
	m->bytes += need;
	memset(l, 0, sizeof(*l));
}

/* Reading ----------------------------------------------------------------- */

/* lec_postings(search_entries): the current row's weighted instances of
 * the query's only phrase, and the columns they are in, as one integer
 * (instances x 2, whole since weights are whole or half, then 3 bits of
 * columns); the table's sizes into the memory on the way. */
static void postings_fn(const Fts5ExtensionApi *api, Fts5Context *fts,
			sqlite3_context *ctx, int nargs, sqlite3_value **args)
{
	struct lec__search_memo *m = api->xUserData(fts);
	unsigned cols;
	double freq;
	int rc;

	(void)nargs, (void)args;
	if ((rc = api->xRowCount(fts, &m->rows)) != SQLITE_OK ||
	    (rc = api->xColumnTotalSize(fts, -1, &m->tokens)) != SQLITE_OK ||
	    (rc = lec__search_phrase_freq(api, fts, 0, &freq, &cols)) !=
		    SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	m->valid = 1;
	sqlite3_result_int64(ctx, (sqlite3_int64)(freq * 2) << 3 | cols);
}

/* Looking up -------------------------------------------------------------- */

/* Whether the memory describes the database as the current read sees it;
 * if not, it is emptied and stamped with the current state. */
static int memo_current(struct lec__search_memo *m)
{
	unsigned int version = 0;
	sqlite3_int64 changes = sqlite3_total_changes64(m->db);

	if (sqlite3_file_control(m->db, "main", SQLITE_FCNTL_DATA_VERSION,
				 &version) != SQLITE_OK) {
		memo_flush(m); /* no way to tell a change */
		return 0;
	}
	if (m->valid && version == m->data_version && changes == m->changes)
		return 1;
	memo_flush(m);
	m->data_version = version;
	m->changes = changes;
	return 0;
}

void lec__search_postings_free(struct lec__search_postings *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; p->own && i < p->n; i++)
		lec__search_plist_clear(&p->own[i]);
	lec__free(p->own);
	lec__free(p);
}

/* Point p's phrase i at list l. */
static void post_set(struct lec__search_postings *p, size_t i,
		     const struct lec__search_plist *l)
{
	static const int64_t none;

	p->rowids[i] = l->rowids ? l->rowids : &none;
	p->freqs[i] = l->freqs;
	p->cols[i] = l->cols;
	p->firsts[i] = l->firsts;
	p->len[i] = l->len;
}

/* Read one phrase's rows from FTS5, stepping its MATCH (one pass over its
 * doclist) into l; *rows counts those read for the query. */
static int read_fts5(struct lec_store *st, const char *phrase,
		     struct lec__search_plist *l, size_t *rows, int *too_many)
{
	sqlite3_stmt *stmt = NULL;
	sqlite3_int64 v;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "SELECT rowid, " POSTINGS_FN
				     "(search_entries) FROM search_entries "
				     "WHERE search_entries MATCH ?1")) < 0 ||
	    (rc = lec_store__bind_text(stmt, 1, phrase)) < 0)
		goto done;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*rows == QUERY_ROWS_MAX) {
			*too_many = 1;
			break;
		}
		if (lec__search_plist_reserve(l, 1) < 0) {
			rc = lec__error_oom();
			goto done;
		}
		v = sqlite3_column_int64(stmt, 1);
		l->rowids[l->len] = sqlite3_column_int64(stmt, 0);
		l->freqs[l->len] = (double)(v >> 3) / 2;
		l->firsts[l->len] = 0; /* unknown: a phrase keeps no offsets */
		l->cols[l->len++] = (unsigned char)(v & 7);
		++*rows;
	}
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE
		     ? LEC_OK
		     : lec_store__sqlerr(st, rc, "searching");
done:
	lec_store__finalize(st, stmt);
	return rc;
}

/* Read from the term index the missing lists of phrases that are one
 * word or prefix; *rows counts the rows read. */
static int read_terms(struct lec_store *st, const struct lec__search_expr *ex,
		      const struct lec__search_tokenizer *tok,
		      struct lec__search_postings *p, size_t *rows)
{
	char term[LEC__SEARCH_TERM_MAX];
	size_t i, n;
	int rc = LEC_OK;

	for (i = 0; i < p->n && rc == LEC_OK; i++) {
		if (p->rowids[i] != NULL || ex->npositive != p->n ||
		    (n = lec__search_terms_one(tok, ex->positive[i].text,
					       strlen(ex->positive[i].text),
					       ex->positive[i].prefix, term)) ==
			    0)
			continue;
		rc = lec__search_terms_read(st, term, n, ex->positive[i].prefix,
					    QUERY_ROWS_MAX - *rows, &p->own[i]);
		if (rc == LEC_OK) {
			*rows += p->own[i].len;
			post_set(p, i, &p->own[i]);
		} else if (rc == LEC_ENOTFOUND) {
			/* Too big for the term index: FTS5 reads it (or
			 * finds it too many rows). */
			lec__search_plist_clear(&p->own[i]);
			lec_error_clear();
			rc = LEC_OK;
		}
	}
	return rc;
}

/* Remember the lists read for this query (those not remembered before);
 * each phrase then points at its list, kept or still the query's own. */
static int keep_read(struct lec__search_memo *m,
		     struct lec__search_postings *p, const char *remembered)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (remembered[i])
			continue;
		if ((p->own[i].phrase = lec__strdup(p->phrases[i])) == NULL)
			return lec__error_oom();
		memo_keep(m, &p->own[i]);
		post_set(p, i, p->own[i].phrase ? &p->own[i]
						 : memo_find(m, p->phrases[i]));
	}
	return LEC_OK;
}

/* The lists the memory lacks: from the term index when every version has
 * one (the table's totals then come from it too), the rest from FTS5. */
static int read_missing(struct lec_store *st, struct lec__search_memo *m,
			const struct lec__search_expr *ex,
			const struct lec__search_tokenizer *tok,
			struct lec__search_postings *p, size_t *rows,
			int *too_many)
{
	int64_t total_rows, tokens;
	size_t i;
	int rc = lec__search_terms_stats(st, &total_rows, &tokens);

	if (rc == LEC_OK) {
		m->rows = total_rows;
		m->tokens = tokens;
		m->valid = 1;
		rc = read_terms(st, ex, tok, p, rows);
	} else if (rc == LEC_ENOTFOUND) {
		lec_error_clear();
		rc = LEC_OK;
	}
	for (i = 0; rc == LEC_OK && !*too_many && i < p->n; i++)
		if (p->rowids[i] == NULL)
			rc = read_fts5(st, p->phrases[i], &p->own[i], rows,
				       too_many);
	return rc;
}

int lec__search_postings_get(struct lec_store *st,
			     const struct lec__search_expr *ex,
			     const struct lec__search_tokenizer *tok,
			     struct lec__search_postings **out)
{
	struct lec__search_memo *m = st->search_memo;
	struct lec__search_postings *p;
	struct lec__search_plist *l;
	size_t i, n = ex->nphrases, missing = 0, rows = 0;
	char remembered[LEC_SEARCH_TERMS_MAX] = { 0 };
	char term[LEC__SEARCH_TERM_MAX];
	int rc = LEC_OK, too_many = 0;

	*out = NULL;
	if (m == NULL || ex->phrases == NULL || n == 0 ||
	    n > LEC_SEARCH_TERMS_MAX)
		return LEC_ENOTFOUND;
	p = lec__calloc(1, sizeof(*p));
	if (p == NULL || (p->own = lec__calloc(n, sizeof(*p->own))) == NULL) {
		lec__free(p);
		return lec__error_oom();
	}
	p->n = n;
	p->phrases = (const char *const *)ex->phrases;
	p->token_cols = ex->npositive == n;
	for (i = 0; i < n && p->token_cols; i++)
		p->token_cols = lec__search_terms_one(
					tok, ex->positive[i].text,
					strlen(ex->positive[i].text),
					ex->positive[i].prefix, term) > 0;
	m->clock++;
	memo_current(m);
	for (i = 0; i < n; i++) {
		if ((l = memo_find(m, ex->phrases[i])) != NULL) {
			l->used = m->clock;
			post_set(p, i, l);
			remembered[i] = 1;
		} else {
			missing++;
		}
	}
	if (missing > 0 && (rc = read_missing(st, m, ex, tok, p, &rows,
					      &too_many)) < 0)
		goto fail;
	if (too_many) {
		rc = LEC_ENOTFOUND;
		goto fail;
	}
	if ((rc = keep_read(m, p, remembered)) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		p->idf[i] = lec__search_idf(m->rows, (sqlite3_int64)p->len[i]);
	lec__search_norms(m->rows, m->tokens, p->norm);
	*out = p;
	return LEC_OK;
fail:
	lec__search_postings_free(p);
	return rc;
}

int lec__search_postings_register(fts5_api *api, struct lec_store *st)
{
	struct lec__search_memo *m = lec__calloc(1, sizeof(*m));

	if (m == NULL)
		return lec__error_oom();
	m->db = st->db;
	/* Once registered, FTS5 frees m with the connection; a failed
	 * registration leaves it to us. */
	if (api == NULL || api->xCreateFunction(api, POSTINGS_FN, m,
						postings_fn,
						memo_free) != SQLITE_OK) {
		memo_free(m);
		return lec__error(LEC_ERROR, "cannot register the postings "
				  "reader");
	}
	st->search_memo = m;
	return LEC_OK;
}
