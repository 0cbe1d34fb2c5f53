/*
 * The ranking function of search queries: Okapi BM25 over the index's three
 * text columns (page title 1.5, section title 2, content 1: notes §4.1), as
 * an FTS5 auxiliary function, lec_rank(search_entries).
 *
 * It computes what FTS5's bm25() does, except for the row's length: bm25()
 * reads it from the %_docsize table, one b-tree lookup per matching row,
 * which is most of its cost (on 20,000 matches, 14 ms against 2.5 ms).
 * Lectern keeps an approximate length in the row's own rowid instead (the
 * low LEC__SEARCH_LENGTH_BITS bits, a logarithmic bucket of the entry's
 * bytes, see lec__search_length_bucket), which FTS5 hands over for free.
 */
#include <string.h>

#include "internal.h"
#include "search_internal.h"

/* BM25 parameters, FTS5's (and Elasticsearch's) defaults. */
#define K1 1.2
#define B 0.75
/* Bytes per token, to compare a row's length in bytes with the average in
 * tokens that FTS5 keeps: prose and code average about six. */
#define BYTES_PER_TOKEN 6.0
/* Growth of the length buckets: 2^(1/4), so a bucket is within 19%. */
#define BUCKET_STEP 1.189207115002721

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

/* What a query computes once: inverse document frequencies and the
 * average row length; freq is per-row scratch space. */
struct rank_data {
	int nphrase;
	double avg_bytes;
	double *idf;
	double *freq;
};

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts,
		     void *ctx)
{
	(void)api, (void)fts;
	++*(sqlite3_int64 *)ctx;
	return SQLITE_OK;
}

static int rank_data(const Fts5ExtensionApi *api, Fts5Context *fts,
		     struct rank_data **out)
{
	struct rank_data *d = api->xGetAuxdata(fts, 0);
	sqlite3_int64 rows = 0, tokens = 0, hits;
	int i, rc;

	if ((*out = d) != NULL)
		return SQLITE_OK;
	if ((rc = api->xRowCount(fts, &rows)) != SQLITE_OK ||
	    (rc = api->xColumnTotalSize(fts, -1, &tokens)) != SQLITE_OK)
		return rc;
	i = api->xPhraseCount(fts);
	d = lec__calloc(1, sizeof(*d) + 2 * (size_t)i * sizeof(double));
	if (d == NULL)
		return SQLITE_NOMEM;
	d->nphrase = i;
	d->idf = (double *)(d + 1);
	d->freq = d->idf + i;
	d->avg_bytes = rows > 0 ? (double)tokens / (double)rows * BYTES_PER_TOKEN
				: 1;
	for (i = 0; i < d->nphrase; i++) {
		hits = 0;
		if ((rc = api->xQueryPhrase(fts, i, &hits, count_row)) !=
		    SQLITE_OK) {
			lec__free(d);
			return rc;
		}
		d->idf[i] = ln(((double)(rows - hits) + 0.5) /
			       ((double)hits + 0.5));
		if (d->idf[i] <= 0)
			d->idf[i] = 1e-6; /* as FTS5: common terms still count */
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
	int ninst = 0, i, phrase, col, off, rc;
	double len, score = 0, norm;
	int bucket;

	(void)nargs, (void)args;
	if ((rc = rank_data(api, fts, &d)) != SQLITE_OK ||
	    (rc = api->xInstCount(fts, &ninst)) != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	memset(d->freq, 0, (size_t)d->nphrase * sizeof(double));
	for (i = 0; i < ninst; i++)
		if (api->xInst(fts, i, &phrase, &col, &off) == SQLITE_OK &&
		    col < NWEIGHTS && phrase < d->nphrase)
			d->freq[phrase] += weights[col];
	bucket = (int)(api->xRowid(fts) & ((1 << LEC__SEARCH_LENGTH_BITS) - 1));
	for (len = 1, i = 0; i < bucket; i++)
		len *= BUCKET_STEP;
	norm = K1 * (1 - B + B * len / d->avg_bytes);
	for (i = 0; i < d->nphrase; i++)
		score += d->idf[i] * d->freq[i] * (K1 + 1) / (d->freq[i] + norm);
	sqlite3_result_double(ctx, score);
}

int lec__search_rank_register(fts5_api *api)
{
	if (api == NULL ||
	    api->xCreateFunction(api, LEC__SEARCH_RANK_NAME, NULL, lec_rank,
				 NULL) != SQLITE_OK)
		return lec__error(LEC_ERROR, "cannot register the search rank");
	return LEC_OK;
}
