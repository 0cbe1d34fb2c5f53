/*
 * The term index (schema migration 12): for each indexed version and each
 * term of its entries, as the index's tokenizer makes it (stemmed), every
 * row the term occurs in with its instances per column, in one blob. A
 * query's word is then one b-tree lookup and a loop over bytes, where
 * reading it from FTS5 (xQueryPhrase, one callback and one position-list
 * walk per row) was most of a first query's time: people type distinct
 * queries, so the connection's memory of lists (search_postings.c) rarely
 * has them. A typed prefix ("subproc") is a range of terms merged the same
 * way. FTS5 stays the store of the text, and answers phrases of several
 * tokens, which need positions this index does not keep.
 *
 * Scores from these lists are FTS5's to the bit: the rows are FTS5's rows
 * (the same tokenizer over the same cleaned text), a row's weighted
 * instances are lec__search_freq of its per-column counts, and a term's
 * document frequency is its rows over every version, as FTS5 counts it
 * over the whole table; the table's row and token totals are kept per
 * version in search_versions. That holds only while every indexed version
 * has its terms: an index written before migration 12 has none until
 * `lectern reindex` (or its next build), and until then every query reads
 * FTS5 as before (lec__search_terms_stats says so).
 *
 * A list is, per row in ascending order, the rowid's distance from the
 * previous one and the counts, as unsigned LEB128 varints: content << 4 |
 * section title << 2 | page title, a title count of 3 or more written 3
 * and followed by its own varint (titles are short, so nearly every row
 * is two or three bytes); then, when the term is in the content, the byte
 * offset of its first instance there, where a highlight's search for the
 * first match can start (it scanned every word before it).
 */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "internal.h"
#include "search_internal.h"
#include "store_internal.h"

/* FTS5 indexes at most this many bytes of a token (FTS5_MAX_TOKEN_SIZE);
 * the term index cuts the same way so that its terms are FTS5's. */
#define TOKEN_BYTES_MAX 32768
/* Slots of the builder's hash table to start with (grown at half full):
 * python3-doc has about 60,000 distinct terms. */
#define SLOTS_MIN 4096
/* Title counts that fit the counts varint; more are written apart. */
#define SMALL_COUNT_MAX 3
/* Terms a prefix may cover before it is left to FTS5: each is a list to
 * merge, and a prefix of a few letters covers thousands. */
#define PREFIX_TERMS_MAX 512
/* Longest prefix read here (a typed word is far shorter). */
#define PREFIX_BYTES_MAX 256

/* Building --------------------------------------------------------------- */

/* One term while a version is indexed. */
struct term {
	size_t text, len;    /* in the builder's arena */
	int64_t row;         /* the row being counted; -1 before the first */
	int64_t last;        /* the last row written to list */
	unsigned counts[LEC__SEARCH_COLUMNS]; /* instances in row */
	unsigned first;      /* byte offset of the first in the content */
	int64_t rows;        /* rows in list */
	struct lec__buf list;
};

struct lec__search_terms_builder {
	const struct lec__search_tokenizer *tok; /* borrowed */
	struct term *terms;
	size_t len, cap;
	uint32_t *slots; /* index + 1 into terms; 0 free */
	size_t nslots;
	struct lec__buf arena; /* term texts */
	int64_t entries, tokens;
	/* while a row is tokenized */
	int64_t rowid;
	int col;
	int oom;
};

int lec__search_terms_begin(const struct lec__search_tokenizer *tok,
			    struct lec__search_terms_builder **out)
{
	struct lec__search_terms_builder *b = lec__calloc(1, sizeof(*b));

	*out = NULL;
	if (b == NULL ||
	    (b->slots = lec__calloc(SLOTS_MIN, sizeof(*b->slots))) == NULL) {
		lec__free(b);
		return lec__error_oom();
	}
	b->tok = tok;
	b->nslots = SLOTS_MIN;
	*out = b;
	return LEC_OK;
}

void lec__search_terms_free(struct lec__search_terms_builder *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->len; i++)
		lec__buf_dispose(&b->terms[i].list);
	lec__free(b->terms);
	lec__free(b->slots);
	lec__buf_dispose(&b->arena);
	lec__free(b);
}

static void put_varint(struct lec__buf *b, uint64_t v)
{
	char bytes[10];
	size_t n = 0;

	do {
		bytes[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	lec__buf_putn(b, bytes, n);
}

/* Write the term's counted row to its list. */
static void flush_row(struct term *t)
{
	unsigned title = t->counts[1], page = t->counts[0];

	put_varint(&t->list, (uint64_t)(t->row - t->last));
	put_varint(&t->list,
		   (uint64_t)t->counts[2] << 4 |
			   (title < SMALL_COUNT_MAX ? title : SMALL_COUNT_MAX)
				   << 2 |
			   (page < SMALL_COUNT_MAX ? page : SMALL_COUNT_MAX));
	if (title >= SMALL_COUNT_MAX)
		put_varint(&t->list, title);
	if (page >= SMALL_COUNT_MAX)
		put_varint(&t->list, page);
	if (t->counts[2])
		put_varint(&t->list, t->first);
	t->last = t->row;
	t->rows++;
	memset(t->counts, 0, sizeof(t->counts));
}

static int grow_slots(struct lec__search_terms_builder *b)
{
	size_t n = b->nslots * 2, i, h;
	uint32_t *slots = lec__calloc(n, sizeof(*slots));

	if (slots == NULL)
		return -1;
	for (i = 0; i < b->len; i++) {
		const struct term *t = &b->terms[i];

		h = lec__fnv1a(b->arena.ptr + t->text, t->len) & (n - 1);
		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = (uint32_t)i + 1;
	}
	lec__free(b->slots);
	b->slots = slots;
	b->nslots = n;
	return 0;
}

/* The term of token[0..n), added when new; NULL on running out of
 * memory. */
static struct term *term_of(struct lec__search_terms_builder *b,
			    const char *token, size_t n)
{
	size_t h = lec__fnv1a(token, n) & (b->nslots - 1);
	struct term *t;

	for (; b->slots[h]; h = (h + 1) & (b->nslots - 1)) {
		t = &b->terms[b->slots[h] - 1];
		if (t->len == n && memcmp(b->arena.ptr + t->text, token, n) == 0)
			return t;
	}
	if (b->len == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : SLOTS_MIN / 2;
		struct term *grown = lec__realloc(b->terms, cap * sizeof(*grown));

		if (grown == NULL)
			return NULL;
		b->terms = grown;
		b->cap = cap;
	}
	t = &b->terms[b->len];
	memset(t, 0, sizeof(*t));
	t->text = b->arena.len;
	t->len = n;
	t->row = -1;
	lec__buf_putn(&b->arena, token, n);
	if (b->arena.oom)
		return NULL;
	b->slots[h] = (uint32_t)++b->len;
	if (b->len * 2 > b->nslots && grow_slots(b) < 0)
		return NULL;
	return t;
}

static int add_token(void *ctx, int flags, const char *token, int n,
		     int start, int end)
{
	struct lec__search_terms_builder *b = ctx;
	struct term *t;

	(void)end;
	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	b->tokens++;
	if ((t = term_of(b, token,
			 n < TOKEN_BYTES_MAX ? (size_t)n : TOKEN_BYTES_MAX)) ==
	    NULL) {
		b->oom = 1;
		return SQLITE_NOMEM;
	}
	if (t->row != b->rowid) {
		if (t->row >= 0)
			flush_row(t);
		t->row = b->rowid;
	}
	if (b->col == 2 && t->counts[2] == 0)
		t->first = (unsigned)start;
	t->counts[b->col]++;
	return SQLITE_OK;
}

int lec__search_terms_add(struct lec__search_terms_builder *b, int64_t rowid,
			  const char *const texts[LEC__SEARCH_COLUMNS])
{
	const struct lec__search_tokenizer *t = b->tok;

	b->rowid = rowid;
	b->entries++;
	for (b->col = 0; b->col < LEC__SEARCH_COLUMNS && !b->oom; b->col++)
		if (texts[b->col][0])
			t->api.xTokenize(t->tok, b, FTS5_TOKENIZE_DOCUMENT,
					 texts[b->col],
					 (int)strlen(texts[b->col]), add_token);
	return b->oom ? lec__error_oom() : LEC_OK;
}

/* A term to write, sorted by its text. */
struct sort_key {
	const char *text;
	size_t len;
	struct term *term;
};

static int key_cmp(const void *x, const void *y)
{
	const struct sort_key *a = x, *b = y;
	int c = memcmp(a->text, b->text, a->len < b->len ? a->len : b->len);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int write_terms(struct lec_store *st, int64_t version_id,
		       const struct sort_key *keys, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "INSERT INTO search_terms (term, "
				     "version_id, rows, list) VALUES (?, ?, ?, "
				     "?)")) < 0)
		return rc;
	for (i = 0; i < n && rc == LEC_OK; i++) {
		struct term *t = keys[i].term;

		flush_row(t);
		if (t->list.oom) {
			rc = lec__error_oom();
			break;
		}
		sqlite3_bind_text(stmt, 1, keys[i].text, (int)t->len,
				  SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 2, version_id);
		sqlite3_bind_int64(stmt, 3, t->rows);
		sqlite3_bind_blob(stmt, 4, t->list.ptr, (int)t->list.len,
				  SQLITE_STATIC);
		rc = lec_store__step_done(st, stmt, "indexing terms");
		sqlite3_reset(stmt);
		lec__buf_dispose(&t->list);
	}
	lec_store__finalize(st, stmt);
	return rc;
}

int lec__search_terms_write(struct lec_store *st,
			    struct lec__search_terms_builder *b,
			    int64_t version_id)
{
	struct sort_key *keys = lec__malloc((b->len + 1) * sizeof(*keys));
	int64_t ids[3] = { b->entries, b->tokens, version_id };
	size_t i;
	int rc;

	if (keys == NULL)
		return lec__error_oom();
	for (i = 0; i < b->len; i++) {
		keys[i].text = b->arena.ptr + b->terms[i].text;
		keys[i].len = b->terms[i].len;
		keys[i].term = &b->terms[i];
	}
	/* In key order: each insert appends to the b-tree. */
	qsort(keys, b->len, sizeof(*keys), key_cmp);
	rc = write_terms(st, version_id, keys, b->len);
	lec__free(keys);
	if (rc == LEC_OK)
		rc = lec_store__exec_ints(st,
					  "UPDATE search_versions SET entries "
					  "= ?, tokens = ? WHERE version_id = ?",
					  ids, 3, "indexing terms", NULL);
	return rc;
}

/* Reading ------------------------------------------------------------------ */

int lec__search_terms_stats(struct lec_store *st, int64_t *rows,
			    int64_t *tokens)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "SELECT count(*) - count(tokens), "
				     "total(entries), total(tokens) FROM "
				     "search_versions")) < 0)
		return rc;
	if ((rc = sqlite3_step(stmt)) != SQLITE_ROW) {
		rc = lec_store__sqlerr(st, rc, "searching");
	} else if (sqlite3_column_int64(stmt, 0) > 0) {
		rc = LEC_ENOTFOUND; /* a version indexed before migration 12 */
	} else {
		*rows = (int64_t)sqlite3_column_double(stmt, 1);
		*tokens = (int64_t)sqlite3_column_double(stmt, 2);
		rc = LEC_OK;
	}
	lec_store__finalize(st, stmt);
	return rc;
}

static const unsigned char *get_varint(const unsigned char *p,
				       const unsigned char *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (p < end && shift < 64) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			return p;
		shift += 7;
	}
	return NULL;
}

int lec__search_plist_reserve(struct lec__search_plist *l, size_t more)
{
	size_t cap = l->cap ? l->cap : 64;
	int64_t *rowids;
	double *freqs;
	unsigned char *cols;
	uint32_t *firsts;

	if (l->len + more <= l->cap)
		return LEC_OK;
	while (cap < l->len + more)
		cap *= 2;
	if ((rowids = lec__realloc(l->rowids, cap * sizeof(*rowids))) == NULL)
		return LEC_ENOMEM;
	l->rowids = rowids;
	if ((freqs = lec__realloc(l->freqs, cap * sizeof(*freqs))) == NULL)
		return LEC_ENOMEM;
	l->freqs = freqs;
	if ((cols = lec__realloc(l->cols, cap * sizeof(*cols))) == NULL)
		return LEC_ENOMEM;
	l->cols = cols;
	if ((firsts = lec__realloc(l->firsts, cap * sizeof(*firsts))) == NULL)
		return LEC_ENOMEM;
	l->firsts = firsts;
	l->cap = cap;
	return LEC_OK;
}

void lec__search_plist_clear(struct lec__search_plist *l)
{
	lec__free(l->phrase);
	lec__free(l->rowids);
	lec__free(l->freqs);
	lec__free(l->cols);
	lec__free(l->firsts);
	memset(l, 0, sizeof(*l));
}

/* Append a blob's rows (n of them) to l. */
static int decode(const unsigned char *p, size_t bytes, int64_t n,
		  struct lec__search_plist *l)
{
	const unsigned char *end = p + bytes;
	unsigned counts[LEC__SEARCH_COLUMNS];
	uint64_t delta, v, extra, first = 0;
	int64_t row = 0, i;

	if (lec__search_plist_reserve(l, (size_t)n) < 0)
		return lec__error_oom();
	for (i = 0; i < n; i++) {
		if ((p = get_varint(p, end, &delta)) == NULL ||
		    (p = get_varint(p, end, &v)) == NULL)
			break;
		counts[2] = (unsigned)(v >> 4);
		counts[1] = (unsigned)(v >> 2 & 3);
		counts[0] = (unsigned)(v & 3);
		if (counts[1] == SMALL_COUNT_MAX &&
		    (p = get_varint(p, end, &extra)) != NULL)
			counts[1] = (unsigned)extra;
		if (p && counts[0] == SMALL_COUNT_MAX &&
		    (p = get_varint(p, end, &extra)) != NULL)
			counts[0] = (unsigned)extra;
		if (p && counts[2] && (p = get_varint(p, end, &first)) == NULL)
			break;
		if (p == NULL)
			break;
		row += (int64_t)delta;
		l->rowids[l->len] = row;
		l->freqs[l->len] = lec__search_freq(counts);
		l->firsts[l->len] = counts[2] ? (uint32_t)first : 0;
		l->cols[l->len++] = (unsigned char)((counts[0] ? 1 : 0) |
						    (counts[1] ? 2 : 0) |
						    (counts[2] ? 4 : 0));
	}
	if (i < n)
		return lec__error(LEC_ERROR, "the search term index is damaged");
	return LEC_OK;
}

/* Merge the ascending rows of l from `from` on into those before it, a
 * row in both adding its instances (a prefix's terms share rows). */
/* The first content offset of two terms' instances in a row (cols say
 * which have any). */
static uint32_t earlier(unsigned cols_a, uint32_t a, unsigned cols_b,
			uint32_t b)
{
	if (!(cols_a & 4))
		return b;
	if (!(cols_b & 4))
		return a;
	return a < b ? a : b;
}

static int merge_tail(struct lec__search_plist *l, size_t from)
{
	struct lec__search_plist m = { 0 };
	size_t n = l->len, a = 0, b = from, take;

	if (from == 0 || l->rowids[from - 1] < l->rowids[from])
		return LEC_OK; /* already in order: versions follow each other */
	if (lec__search_plist_reserve(&m, n) < 0) {
		lec__search_plist_clear(&m);
		return lec__error_oom();
	}
	while (a < from || b < n) {
		take = b == n || (a < from && l->rowids[a] <= l->rowids[b]) ? a++
									  : b++;
		if (m.len > 0 && m.rowids[m.len - 1] == l->rowids[take]) {
			m.freqs[m.len - 1] += l->freqs[take];
			m.firsts[m.len - 1] = earlier(
				m.cols[m.len - 1], m.firsts[m.len - 1],
				l->cols[take], l->firsts[take]);
			m.cols[m.len - 1] |= l->cols[take];
		} else {
			m.rowids[m.len] = l->rowids[take];
			m.freqs[m.len] = l->freqs[take];
			m.firsts[m.len] = l->firsts[take];
			m.cols[m.len++] = l->cols[take];
		}
	}
	lec__search_plist_clear(l);
	*l = m;
	return LEC_OK;
}

int lec__search_terms_read(struct lec_store *st, const char *term, size_t n,
			   int prefix, size_t rows_max,
			   struct lec__search_plist *out)
{
	char end[PREFIX_BYTES_MAX];
	sqlite3_stmt *stmt = NULL;
	size_t lists = 0, before;
	int rc;

	if (n == 0 || n > (prefix ? PREFIX_BYTES_MAX : TOKEN_BYTES_MAX))
		return LEC_ENOTFOUND;
	rc = lec_store__prepare(st, &stmt,
				prefix ? "SELECT rows, list FROM search_terms "
					 "WHERE term >= ?1 AND term < ?2"
				       : "SELECT rows, list FROM search_terms "
					 "WHERE term = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(stmt, 1, term, (int)n, SQLITE_STATIC);
	if (prefix) {
		/* Terms starting with term: below it with its last byte
		 * raised (UTF-8 has no 0xff byte). */
		memcpy(end, term, n);
		end[n - 1] = (char)(end[n - 1] + 1);
		sqlite3_bind_text(stmt, 2, end, (int)n, SQLITE_STATIC);
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int64_t rows = sqlite3_column_int64(stmt, 0);
		const void *blob = sqlite3_column_blob(stmt, 1);

		if (++lists > PREFIX_TERMS_MAX ||
		    out->len + (size_t)rows > rows_max) {
			rc = LEC_ENOTFOUND;
			break;
		}
		before = out->len;
		if ((rc = decode(blob, (size_t)sqlite3_column_bytes(stmt, 1),
				 rows, out)) < 0 ||
		    (rc = merge_tail(out, before)) < 0)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = LEC_OK;
	else if (rc > 0)
		rc = lec_store__sqlerr(st, rc, "searching");
	lec_store__finalize(st, stmt);
	return rc;
}

/* Whether term[0..n) is in the term index: 1, 0, < 0 an engine error. */
static int term_indexed(struct lec_store *st, const char *term, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if ((rc = lec_store__prepare(st, &stmt,
				     "SELECT 1 FROM search_terms WHERE term = "
				     "?1 LIMIT 1")) < 0)
		return rc;
	sqlite3_bind_text(stmt, 1, term, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	rc = rc == SQLITE_ROW	 ? 1
	     : rc == SQLITE_DONE ? 0
				 : lec_store__sqlerr(st, rc, "searching");
	lec_store__finalize(st, stmt);
	return rc;
}

/* What lec__search_terms_one's tokenizing found. */
struct one_token {
	char *term;
	size_t len;
	int count;
};

static int take_token(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	struct one_token *o = ctx;

	(void)start, (void)end;
	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	if (++o->count == 1 && n > 0 && (size_t)n <= LEC__SEARCH_TERM_MAX) {
		memcpy(o->term, token, (size_t)n);
		o->len = (size_t)n;
	}
	return o->count > 1 ? SQLITE_DONE : SQLITE_OK;
}

size_t lec__search_terms_one(const struct lec__search_tokenizer *tok,
			     const char *text, size_t n, int prefix,
			     char term[LEC__SEARCH_TERM_MAX])
{
	struct one_token o = { term, 0, 0 };

	tok->api.xTokenize(tok->tok, &o,
			   FTS5_TOKENIZE_QUERY |
				   (prefix ? FTS5_TOKENIZE_PREFIX : 0),
			   text, (int)n, take_token);
	return o.count == 1 ? o.len : 0;
}

int lec__search_terms_word(struct lec_store *st,
			   const struct lec__search_tokenizer *tok,
			   const char *word, size_t n)
{
	char term[LEC__SEARCH_TERM_MAX];
	int64_t rows, tokens;
	size_t len = lec__search_terms_one(tok, word, n, 0, term);
	int rc;

	if (len == 0)
		return LEC_ENOTFOUND;
	if ((rc = lec__search_terms_stats(st, &rows, &tokens)) < 0)
		return rc;
	return term_indexed(st, term, len);
}
