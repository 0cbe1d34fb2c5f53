/*
 * The ranking function of search queries: Okapi BM25 over the index's three
 * text columns (page title 1.5, section title 2, content 1: notes §4.1), as
 * an FTS5 auxiliary function, lec_rank(search_entries, expr).
 *
 * It computes what FTS5's bm25() does, except for the row's length: bm25()
 * reads it from the %_docsize table, one b-tree lookup per matching row,
 * which is most of its cost (on 20,000 matches, 14 ms against 2.5 ms).
 * Lectern keeps an approximate length in the row's own rowid instead (the
 * low LEC__SEARCH_LENGTH_BITS bits, a logarithmic bucket of the entry's
 * bytes, see lec__search_length_bucket), which FTS5 hands over for free.
 *
 * The inverse document frequencies take one pass over each phrase's whole
 * doclist (xQueryPhrase), as much work as the match itself on common words.
 * The connection remembers them for the last few expressions (the query's
 * FTS5 text is lec_rank's second argument), as long as the database has not
 * changed: a reader paging, repeating a search or going back over what they
 * typed pays the pass once.
 */
#include <string.h>

#include "internal.h"
#include "search_internal.h"

/* BM25 parameters, FTS5's (and Elasticsearch's) defaults; k1 is
 * LEC__SEARCH_K1 (search_internal.h, where lec__search_bm25 uses it). */
#define K1 LEC__SEARCH_K1
#define B 0.75
/* Bytes per token, to compare a row's length in bytes with the average in
 * tokens that FTS5 keeps: prose and code average about six. */
#define BYTES_PER_TOKEN 6.0
/* Growth of the length buckets: 2^(1/4), so a bucket is within 19%. */
#define BUCKET_STEP 1.189207115002721
/* Expressions whose frequencies a connection remembers: a reader's recent
 * searches, each keystroke of search as you type being one. */
#define CACHE_SLOTS 32
/* Longest expression remembered; longer ones are rare and not retyped. */
#define CACHE_EXPR_MAX 1024

/* Column weights: page_title, title, content; UNINDEXED columns 0. */
static const double weights[] = { 1.5, 2.0, 1.0 };
#define NWEIGHTS (int)(sizeof(weights) / sizeof(weights[0]))

/* Natural logarithm (x > 0) without libm: range reduction by powers of
 * two, then the atanh series. */
static double ln(double x)
{
	double y, y2, term, sum = 0;
	int k = 0, i;

	while (x >= 2) {
		x /= 2;
		k++;
	}
	while (x < 1) {
		x *= 2;
		k--;
	}
	y = (x - 1) / (x + 1);
	y2 = y * y;
	term = y;
	for (i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= y2;
	}
	return 2 * sum + k * 0.6931471805599453;
}

int lec__search_length_bucket(size_t bytes)
{
	double t = 1;
	int b = 0;

	while (t < (double)bytes + 1 && b < (1 << LEC__SEARCH_LENGTH_BITS) - 1) {
		t *= BUCKET_STEP;
		b++;
	}
	return b;
}

double lec__search_idf(sqlite3_int64 rows, sqlite3_int64 hits)
{
	double idf = ln(((double)(rows - hits) + 0.5) / ((double)hits + 0.5));

	return idf > 0 ? idf : 1e-6; /* as FTS5: common terms still count */
}

void lec__search_norms(sqlite3_int64 rows, sqlite3_int64 tokens,
		       double *norm)
{
	double len, avg_bytes = rows > 0 ? (double)tokens / (double)rows *
						   BYTES_PER_TOKEN
					 : 1;
	int i;

	for (len = 1, i = 0; i < LEC__SEARCH_LENGTH_BUCKETS;
	     i++, len *= BUCKET_STEP)
		norm[i] = K1 * (1 - B + B * len / avg_bytes);
}

int lec__search_phrase_freq(const Fts5ExtensionApi *api, Fts5Context *fts,
			    int phrase, double *freq, unsigned *cols)
{
	Fts5PhraseIter it;
	unsigned seen = 0;
	int col, off, rc;

	*freq = 0;
	if ((rc = api->xPhraseFirst(fts, phrase, &it, &col, &off)) !=
	    SQLITE_OK)
		return rc;
	for (; col >= 0; api->xPhraseNext(fts, &it, &col, &off))
		if (col < NWEIGHTS) {
			*freq += weights[col];
			seen |= 1u << col;
		}
	if (cols)
		*cols = seen;
	return SQLITE_OK;
}

double lec__search_freq(const unsigned counts[LEC__SEARCH_COLUMNS])
{
	double freq = 0;
	int col;

	/* Whole and half numbers: exact in any order, so equal to the sum
	 * lec__search_phrase_freq makes instance by instance. */
	for (col = 0; col < LEC__SEARCH_COLUMNS; col++)
		freq += weights[col] * counts[col];
	return freq;
}

/* What a query computes once: inverse document frequencies, and BM25's
 * length normalization for each length bucket. */
struct rank_data {
	int nphrase;
	double *idf;
	double norm[LEC__SEARCH_LENGTH_BUCKETS];
};

/* The state of the database the frequencies were counted in: commits by
 * any connection (the data version), this connection's own changes, and
 * the table's size (a cheap extra guard). */
struct rank_stamp {
	unsigned int data_version;
	sqlite3_int64 changes;
	sqlite3_int64 rows, tokens;
};

/* One remembered expression. */
struct rank_slot {
	char *expr; /* owned; NULL when the slot is free */
	struct rank_stamp stamp;
	int nphrase;
	double *idf; /* owned */
	unsigned long used; /* clock of the last use, for eviction */
};

/* The per-connection memory of frequencies, lec_rank's user data. */
struct rank_cache {
	sqlite3 *db;
	unsigned long clock;
	struct rank_slot slots[CACHE_SLOTS];
};

static void slot_clear(struct rank_slot *s)
{
	lec__free(s->expr);
	lec__free(s->idf);
	memset(s, 0, sizeof(*s));
}

static void cache_free(void *p)
{
	struct rank_cache *c = p;
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < CACHE_SLOTS; i++)
		slot_clear(&c->slots[i]);
	lec__free(c);
}

static int stamp_eq(const struct rank_stamp *a, const struct rank_stamp *b)
{
	return a->data_version == b->data_version &&
	       a->changes == b->changes && a->rows == b->rows &&
	       a->tokens == b->tokens;
}

/* The remembered frequencies of expr, or NULL. */
static struct rank_slot *cache_find(struct rank_cache *c, const char *expr,
				    const struct rank_stamp *stamp, int nphrase)
{
	size_t i;

	for (i = 0; expr && i < CACHE_SLOTS; i++)
		if (c->slots[i].expr && c->slots[i].nphrase == nphrase &&
		    strcmp(c->slots[i].expr, expr) == 0 &&
		    stamp_eq(&c->slots[i].stamp, stamp)) {
			c->slots[i].used = ++c->clock;
			return &c->slots[i];
		}
	return NULL;
}

/* Remember expr's frequencies in the least recently used slot; running
 * out of memory only means not remembering. */
static void cache_put(struct rank_cache *c, const char *expr,
		      const struct rank_stamp *stamp, const struct rank_data *d)
{
	struct rank_slot *victim = &c->slots[0];
	size_t i, bytes = (size_t)d->nphrase * sizeof(double);

	if (expr == NULL || strlen(expr) > CACHE_EXPR_MAX)
		return;
	for (i = 1; i < CACHE_SLOTS && victim->expr; i++)
		if (c->slots[i].expr == NULL || c->slots[i].used < victim->used)
			victim = &c->slots[i];
	slot_clear(victim);
	victim->expr = lec__strdup(expr);
	victim->idf = lec__malloc(bytes ? bytes : 1);
	if (victim->expr == NULL || victim->idf == NULL) {
		slot_clear(victim);
		return;
	}
	memcpy(victim->idf, d->idf, bytes);
	victim->nphrase = d->nphrase;
	victim->stamp = *stamp;
	victim->used = ++c->clock;
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts,
		     void *ctx)
{
	(void)api, (void)fts;
	++*(sqlite3_int64 *)ctx;
	return SQLITE_OK;
}

/* The frequencies of expr's phrases, counted over the whole table. */
static int count_idf(const Fts5ExtensionApi *api, Fts5Context *fts,
		     sqlite3_int64 rows, struct rank_data *d)
{
	sqlite3_int64 hits;
	int i, rc;

	for (i = 0; i < d->nphrase; i++) {
		hits = 0;
		if ((rc = api->xQueryPhrase(fts, i, &hits, count_row)) !=
		    SQLITE_OK)
			return rc;
		d->idf[i] = lec__search_idf(rows, hits);
	}
	return SQLITE_OK;
}

/* The query's rank_data, made on its first row (expr may be NULL: then
 * nothing is remembered). */
static int rank_data(const Fts5ExtensionApi *api, Fts5Context *fts,
		     const char *expr, struct rank_data **out)
{
	struct rank_data *d = api->xGetAuxdata(fts, 0);
	struct rank_cache *c = api->xUserData(fts);
	struct rank_stamp stamp = { 0 };
	struct rank_slot *slot;
	int n, rc;

	if ((*out = d) != NULL)
		return SQLITE_OK;
	if ((rc = api->xRowCount(fts, &stamp.rows)) != SQLITE_OK ||
	    (rc = api->xColumnTotalSize(fts, -1, &stamp.tokens)) != SQLITE_OK)
		return rc;
	if (sqlite3_file_control(c->db, "main", SQLITE_FCNTL_DATA_VERSION,
				 &stamp.data_version) != SQLITE_OK)
		expr = NULL; /* no way to tell a change: count every time */
	stamp.changes = sqlite3_total_changes64(c->db);
	n = api->xPhraseCount(fts);
	d = lec__calloc(1, sizeof(*d) + (size_t)n * sizeof(double));
	if (d == NULL)
		return SQLITE_NOMEM;
	d->nphrase = n;
	d->idf = (double *)(d + 1);
	lec__search_norms(stamp.rows, stamp.tokens, d->norm);
	if ((slot = cache_find(c, expr, &stamp, n)) != NULL) {
		memcpy(d->idf, slot->idf, (size_t)n * sizeof(double));
	} else if ((rc = count_idf(api, fts, stamp.rows, d)) == SQLITE_OK) {
		cache_put(c, expr, &stamp, d);
	} else {
		lec__free(d);
		return rc;
	}
	if ((rc = api->xSetAuxdata(fts, d, lec__free)) != SQLITE_OK)
		return rc;
	*out = d;
	return SQLITE_OK;
}

static void lec_rank(const Fts5ExtensionApi *api, Fts5Context *fts,
		     sqlite3_context *ctx, int nargs, sqlite3_value **args)
{
	struct rank_data *d = NULL;
	int i, rc;
	double freq, norm, score = 0;

	if ((rc = rank_data(api, fts,
			    nargs > 0 ? (const char *)sqlite3_value_text(args[0])
				      : NULL,
			    &d)) != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	norm = d->norm[api->xRowid(fts) & (LEC__SEARCH_LENGTH_BUCKETS - 1)];
	/* Phrase by phrase: xInst would first merge every phrase's
	 * instances into one sorted array. */
	for (i = 0; i < d->nphrase; i++) {
		if ((rc = lec__search_phrase_freq(api, fts, i, &freq, NULL)) !=
		    SQLITE_OK) {
			sqlite3_result_error_code(ctx, rc);
			return;
		}
		score += lec__search_bm25(d->idf[i], freq, norm);
	}
	sqlite3_result_double(ctx, score);
}

int lec__search_rank_register(fts5_api *api, sqlite3 *db)
{
	struct rank_cache *c = lec__calloc(1, sizeof(*c));

	if (c == NULL)
		return lec__error_oom();
	c->db = db;
	/* Once registered, FTS5 frees c with the connection; a failed
	 * registration leaves it to us. */
	if (api == NULL ||
	    api->xCreateFunction(api, LEC__SEARCH_RANK_NAME, c, lec_rank,
				 cache_free) != SQLITE_OK) {
		cache_free(c);
		return lec__error(LEC_ERROR, "cannot register the search rank");
	}
	return LEC_OK;
}
