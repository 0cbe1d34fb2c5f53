/*
 * Highlights of search results (behaviour notes §4.1): the service's
 * Elasticsearch highlighter with the html encoder, bare <span> tags and
 * one fragment of about 100 characters per field.
 *
 * Lectern does not use FTS5's highlight() and snippet(): they run inside a
 * MATCH query and tokenize the whole column, so a long section costs time
 * in proportion to its length for every result shown. Here the query's
 * positive terms are tokenized once with the index's own tokenizer (so
 * "running" finds "runs", as the index does), and a result's text is
 * tokenized only until the first match, then over one fragment.
 *
 * Stemming every word up to the first match is still most of the cost of
 * a long section, and the match is often only in its title. In ASCII text
 * a plain scan comes first: the porter stemmer rewrites at most the last
 * two letters of a stem (y to i, "bility" to "ble"), so a word whose stem
 * matches a query token begins with that token's letters but the last
 * two, and only such words are stemmed (scan_first). Checked over the
 * 33,794 distinct words of python3-doc and sphinx-doc: none rewrites more
 * than its last letter.
 */
#include <string.h>

#include "internal.h"
#include "search_internal.h"

/* Token starts remembered before the first match, to begin the fragment a
 * little before it. */
#define RING 8
/* Bytes of context wanted before the first match in a fragment. */
#define LEAD (LEC__SEARCH_FRAGMENT * 2 / 5)
/* Trailing letters of a stem the porter stemmer may have rewritten. */
#define STEM_REWRITTEN 2

struct hl_token {
	char *text; /* owned */
	int len;
	int prefix; /* matches any token it begins */
};

struct lec__search_hl {
	const struct lec__search_tokenizer *tokenizer; /* borrowed */
	struct hl_token *tokens;
	size_t len, cap;
	int oom;
	int ascii; /* every token is ASCII: scan_first may be used */
};

/* Query tokens ------------------------------------------------------------ */

static int collect_token(void *ctx, int flags, const char *token, int n,
			 int start, int end)
{
	struct lec__search_hl *hl = ctx;
	struct hl_token *grown;

	(void)start, (void)end;
	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	if (hl->len == hl->cap) {
		size_t cap = hl->cap ? hl->cap * 2 : 16;

		if ((grown = lec__realloc(hl->tokens, cap * sizeof(*grown))) ==
		    NULL) {
			hl->oom = 1;
			return SQLITE_NOMEM;
		}
		hl->tokens = grown;
		hl->cap = cap;
	}
	if ((hl->tokens[hl->len].text = lec__strndup(token, (size_t)n)) ==
	    NULL) {
		hl->oom = 1;
		return SQLITE_NOMEM;
	}
	hl->tokens[hl->len].len = n;
	hl->tokens[hl->len++].prefix = 0;
	return SQLITE_OK;
}

int lec__search_hl_new(const struct lec__search_tokenizer *t,
		       const struct lec__search_expr *ex,
		       struct lec__search_hl **out)
{
	struct lec__search_hl *hl = lec__calloc(1, sizeof(*hl));
	size_t i, first;

	*out = NULL;
	if (hl == NULL)
		return lec__error_oom();
	hl->tokenizer = t;
	for (i = 0; i < ex->npositive && !hl->oom; i++) {
		const struct lec__search_term *term = &ex->positive[i];
		int flags = FTS5_TOKENIZE_QUERY |
			    (term->prefix ? FTS5_TOKENIZE_PREFIX : 0);

		first = hl->len;
		t->api.xTokenize(t->tok, hl, flags, term->text,
				 (int)strlen(term->text), collect_token);
		/* As in FTS5, '*' applies to the last token of the term. */
		if (term->prefix && hl->len > first)
			hl->tokens[hl->len - 1].prefix = 1;
	}
	if (hl->oom) {
		lec__search_hl_free(hl);
		return lec__error_oom();
	}
	hl->ascii = 1;
	for (i = 0; i < hl->len; i++)
		for (first = 0; first < (size_t)hl->tokens[i].len; first++)
			if ((unsigned char)hl->tokens[i].text[first] >= 0x80)
				hl->ascii = 0;
	*out = hl;
	return LEC_OK;
}

void lec__search_hl_free(struct lec__search_hl *hl)
{
	size_t i;

	if (hl == NULL)
		return;
	for (i = 0; i < hl->len; i++)
		lec__free(hl->tokens[i].text);
	lec__free(hl->tokens);
	lec__free(hl);
}

static int matches(const struct lec__search_hl *hl, const char *token, int n)
{
	size_t i;

	for (i = 0; i < hl->len; i++) {
		const struct hl_token *t = &hl->tokens[i];

		if ((t->prefix ? n >= t->len : n == t->len) &&
		    memcmp(token, t->text, (size_t)t->len) == 0)
			return 1;
	}
	return 0;
}

/* Passes over a text ------------------------------------------------------- */

struct pass {
	const struct lec__search_hl *hl;
	const char *text;
	size_t base;  /* offset of the tokenized slice in text */
	size_t limit; /* emit: tokens ending past it are left out */
	/* find: the first match, and token starts before it */
	int found;
	size_t match_start, match_end;
	size_t starts[RING];
	size_t nstarts;
	/* emit */
	struct lec__buf out;
	size_t done; /* bytes of text written to out */
	int matched;
};

static void put_escaped(struct lec__buf *b, const char *s, size_t n)
{
	size_t i, from = 0;
	const char *entity;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': entity = "&amp;"; break;
		case '<': entity = "&lt;"; break;
		case '>': entity = "&gt;"; break;
		case '"': entity = "&quot;"; break;
		case '\'': entity = "&#x27;"; break;
		case '/': entity = "&#x2F;"; break;
		default: continue;
		}
		lec__buf_putn(b, s + from, i - from);
		lec__buf_puts(b, entity);
		from = i + 1;
	}
	lec__buf_putn(b, s + from, n - from);
}

static int find_token(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	struct pass *p = ctx;

	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	p->starts[p->nstarts++ % RING] = (size_t)start;
	if (!matches(p->hl, token, n))
		return SQLITE_OK;
	p->found = 1;
	p->match_start = (size_t)start;
	p->match_end = (size_t)end;
	return SQLITE_DONE;
}

static int emit_token(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	struct pass *p = ctx;
	size_t s = p->base + (size_t)start, e = p->base + (size_t)end;

	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	if (e > p->limit)
		return SQLITE_DONE; /* maybe cut short by the slice */
	if (matches(p->hl, token, n)) {
		put_escaped(&p->out, p->text + p->done, s - p->done);
		lec__buf_puts(&p->out, "<span>");
		put_escaped(&p->out, p->text + s, e - s);
		lec__buf_puts(&p->out, "</span>");
		p->done = e;
		p->matched = 1;
	} else {
		put_escaped(&p->out, p->text + p->done, e - p->done);
		p->done = e;
	}
	return SQLITE_OK;
}

static int is_ascii_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether a word starting at text[i] may tokenize to t. */
static int may_match(const struct hl_token *t, const char *text, size_t len,
		     size_t i)
{
	size_t k = t->len > STEM_REWRITTEN ? (size_t)t->len - STEM_REWRITTEN
					   : 1,
	       j;

	if (i + k > len)
		return 0;
	for (j = 0; j < k; j++)
		if (ascii_lower(text[i + j]) != t->text[j])
			return 0;
	return 1;
}

static int word_token(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	struct pass *p = ctx;

	(void)start, (void)end;
	if (!(flags & FTS5_TOKEN_COLOCATED) && matches(p->hl, token, n))
		p->found = 1;
	return SQLITE_OK;
}

/*
 * find_token's pass over ASCII text without the tokenizer: in ASCII, the
 * tokens are the runs of letters and digits, so their starts are known,
 * and only a word that may_match some query token is stemmed (alone, as
 * it would be in place). Returns 1 when it decided (p->found says whether
 * there is a match), 0 when the text is not ASCII up to the answer.
 */
static int scan_first(struct pass *p, const struct lec__search_tokenizer *t,
		      size_t len)
{
	const char *text = p->text;
	size_t i, e, j;

	for (i = 0; i < len; i = e) {
		if ((unsigned char)text[i] >= 0x80)
			return 0;
		if (!is_ascii_alnum(text[i])) {
			e = i + 1;
			continue;
		}
		for (e = i; e < len && is_ascii_alnum(text[e]); e++)
			;
		if (e < len && (unsigned char)text[e] >= 0x80)
			return 0;
		p->starts[p->nstarts++ % RING] = i;
		for (j = 0; j < p->hl->len; j++)
			if (may_match(&p->hl->tokens[j], text, len, i))
				break;
		if (j == p->hl->len)
			continue;
		t->api.xTokenize(t->tok, p, FTS5_TOKENIZE_DOCUMENT, text + i,
				 (int)(e - i), word_token);
		if (p->found) {
			p->match_start = i;
			p->match_end = e;
			return 1;
		}
	}
	return 1;
}

/* Whether the ASCII word text[i..e) tokenizes to a query token: only a
 * word that may_match one is stemmed. */
static int word_is_match(struct pass *p, const struct lec__search_tokenizer *t,
			 size_t i, size_t e)
{
	size_t j;

	for (j = 0; j < p->hl->len; j++)
		if (may_match(&p->hl->tokens[j], p->text, e, i))
			break;
	if (j == p->hl->len)
		return 0;
	p->found = 0;
	t->api.xTokenize(t->tok, p, FTS5_TOKENIZE_DOCUMENT, p->text + i,
			 (int)(e - i), word_token);
	return p->found;
}

static int is_ascii(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	return 1;
}

/* emit_token's pass over an ASCII slice [p->base, to) without tokenizing
 * the words that cannot match (as scan_first): the same output. */
static void scan_emit(struct pass *p, const struct lec__search_tokenizer *t,
		      size_t to)
{
	const char *text = p->text;
	size_t i, e, last = p->done;

	for (i = p->base; i < to; i = e) {
		if (!is_ascii_alnum(text[i])) {
			e = i + 1;
			continue;
		}
		for (e = i; e < to && is_ascii_alnum(text[e]); e++)
			;
		if (e > p->limit)
			break; /* maybe cut short by the slice */
		last = e;
		if (!word_is_match(p, t, i, e))
			continue;
		put_escaped(&p->out, text + p->done, i - p->done);
		lec__buf_puts(&p->out, "<span>");
		put_escaped(&p->out, text + i, e - i);
		lec__buf_puts(&p->out, "</span>");
		p->done = e;
		p->matched = 1;
	}
	put_escaped(&p->out, text + p->done, last - p->done);
	p->done = last;
}

/* Where a fragment starts: the text's start when the match is near it,
 * else the first remembered token start within LEAD bytes before it. */
static size_t fragment_start(const struct pass *p)
{
	size_t i, n = p->nstarts < RING ? p->nstarts : RING, best = p->match_start;

	if (p->match_start < LEAD)
		return 0;
	for (i = 0; i < n; i++)
		if (p->starts[i] + LEAD >= p->match_start && p->starts[i] < best)
			best = p->starts[i];
	return best;
}

int lec__search_hl_text(const struct lec__search_hl *hl, const char *text,
			int whole, char **out)
{
	const struct lec__search_tokenizer *t = NULL;
	struct pass p;
	size_t len = text ? strlen(text) : 0, from = 0, to = len;

	*out = NULL;
	if (hl == NULL || hl->len == 0 || len == 0)
		return LEC_OK;
	t = hl->tokenizer;
	memset(&p, 0, sizeof(p));
	p.hl = hl;
	p.text = text;
	if (!whole && len > LEC__SEARCH_FRAGMENT) {
		if (!hl->ascii || !scan_first(&p, t, len)) {
			memset(&p, 0, sizeof(p));
			p.hl = hl;
			p.text = text;
			t->api.xTokenize(t->tok, &p, FTS5_TOKENIZE_DOCUMENT, text,
					 (int)len, find_token);
		}
		if (!p.found)
			return LEC_OK;
		from = fragment_start(&p);
		to = from + LEC__SEARCH_FRAGMENT;
		if (to <= p.match_end)
			to = p.match_end + 1;
		if (to > len)
			to = len;
	}
	p.base = from;
	p.done = from;
	/* A token ending at a cut slice's end may be cut itself. */
	p.limit = to == len ? len : to - 1;
	if (hl->ascii && is_ascii(text + from, to - from))
		scan_emit(&p, t, to);
	else
		t->api.xTokenize(t->tok, &p, FTS5_TOKENIZE_DOCUMENT,
				 text + from, (int)(to - from), emit_token);
	/* The rest of the text when the fragment reaches its end; else stop
	 * after the last whole token. */
	if (to == len)
		put_escaped(&p.out, text + p.done, len - p.done);
	if (!p.matched) {
		lec__buf_dispose(&p.out);
		return LEC_OK;
	}
	if ((*out = lec__buf_take(&p.out)) == NULL)
		return LEC_ENOMEM;
	return LEC_OK;
}
