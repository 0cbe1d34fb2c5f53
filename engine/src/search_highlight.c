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
 * a long section, and the match is often only in its title. The index's
 * tokenizer (unicode61) ends a token at every ASCII byte but letters and
 * digits, so a text is cut there into runs, each tokenized alone as it
 * would be in place (scan). A run of ASCII letters and digits is one word,
 * and only a word that may match is stemmed: the porter stemmer rewrites
 * at most the last two letters of a stem (y to i, "bility" to "ble"), so a
 * word whose stem matches a query token begins with that token's letters
 * but the last two. Checked over the 33,794 distinct words of python3-doc
 * and sphinx-doc: none rewrites more than its last letter. Words looked up
 * are remembered for the query, whose results repeat them; runs with
 * other bytes go through the tokenizer.
 */
#include <string.h>

#include "hash.h"
#include "internal.h"
#include "search_internal.h"

/* Bytes of context wanted before the first match in a fragment. */
#define LEAD (LEC__SEARCH_FRAGMENT * 2 / 5)
/* Trailing letters of a stem the porter stemmer may have rewritten. */
#define STEM_REWRITTEN 2

struct hl_token {
	char *text; /* owned */
	int len;
	int prefix; /* matches any token it begins */
};

/* Candidate words whose stem was looked up, remembered for the rest of
 * the query: result texts repeat their words. Direct-mapped. */
#define WORD_SLOTS 64
/* Longest word remembered. */
#define WORD_MAX 24

struct word_slot {
	char word[WORD_MAX + 1]; /* lowercased; "" when empty */
	int match;
};

struct lec__search_hl {
	const struct lec__search_tokenizer *tokenizer; /* borrowed */
	struct hl_token *tokens;
	size_t len, cap;
	int oom;
	/* Each byte's class for scanning (CLASS_*): one table lookup a byte,
	 * where the scan spends its time on long sections. */
	unsigned char cls[256];
	struct word_slot words[WORD_SLOTS];
};

/* Byte classes: a byte of a run the tokenizer keeps together (ASCII
 * letters and digits, any byte of a multibyte character), a byte of such
 * a character, and an ASCII letter a query token starts with. */
#define CLASS_RUN 1
#define CLASS_HIGH 2
#define CLASS_START 4

static void classify(struct lec__search_hl *hl)
{
	size_t i;
	int c;

	for (c = 0; c < 256; c++)
		hl->cls[c] = c >= 0x80 ? CLASS_RUN | CLASS_HIGH
			     : (c >= '0' && c <= '9') ||
					     (c >= 'a' && c <= 'z') ||
					     (c >= 'A' && c <= 'Z')
				     ? CLASS_RUN
				     : 0;
	for (i = 0; i < hl->len; i++) {
		c = (unsigned char)hl->tokens[i].text[0];
		if (c < 0x80) {
			hl->cls[c] |= CLASS_START;
			if (c >= 'a' && c <= 'z')
				hl->cls[c - 'a' + 'A'] |= CLASS_START;
		}
	}
}

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
	classify(hl);
	*out = hl;
	return LEC_OK;
}

static const size_t token_texts[] = { offsetof(struct hl_token, text) };

void lec__search_hl_free(struct lec__search_hl *hl)
{
	if (hl == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(hl->tokens, hl->len, token_texts);
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
	struct lec__search_hl *hl;
	const char *text;
	size_t limit; /* emit: tokens ending past it are left out */
	/* find: the first match */
	int found;
	size_t match_start, match_end;
	/* emit */
	struct lec__buf out;
	size_t done; /* bytes of text written to out */
	size_t last; /* end of the last token within the limit */
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

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether an ASCII word starting at text[i] (and ending by len) may
 * tokenize to t. */
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

/* A run of the text handed to the tokenizer: the pass, where the run
 * starts in the text, what to call for each token, and whether it
 * stopped the pass. */
struct run {
	struct pass *p;
	size_t base;
	int (*fn)(struct pass *p, size_t start, size_t end, int match);
	int stopped;
	int found; /* word_is_match: the word's token matches */
};

static int word_token(void *ctx, int flags, const char *token, int n,
		      int start, int end)
{
	struct run *r = ctx;

	(void)start, (void)end;
	if (!(flags & FTS5_TOKEN_COLOCATED) && matches(r->p->hl, token, n))
		r->found = 1;
	return SQLITE_OK;
}

/* Whether the ASCII word text[i..e) tokenizes to a query token: only a
 * word that may_match one is stemmed, and each such word once a query. */
static int word_is_match(struct pass *p, size_t i, size_t e)
{
	struct lec__search_hl *hl = p->hl;
	const struct lec__search_tokenizer *t = hl->tokenizer;
	struct run r = { p, i, NULL, 0, 0 };
	struct word_slot *slot = NULL;
	char lowered[WORD_MAX + 1];
	size_t j, n = e - i;

	if (!(hl->cls[(unsigned char)p->text[i]] & CLASS_START))
		return 0;
	for (j = 0; j < hl->len; j++)
		if (may_match(&hl->tokens[j], p->text, e, i))
			break;
	if (j == hl->len)
		return 0;
	if (n <= WORD_MAX) {
		for (j = 0; j < n; j++)
			lowered[j] = ascii_lower(p->text[i + j]);
		lowered[n] = '\0';
		slot = &hl->words[lec__fnv1a(lowered, n) % WORD_SLOTS];
		if (strcmp(slot->word, lowered) == 0)
			return slot->match;
	}
	t->api.xTokenize(t->tok, &r, FTS5_TOKENIZE_DOCUMENT, p->text + i,
			 (int)n, word_token);
	if (slot) {
		memcpy(slot->word, lowered, n + 1);
		slot->match = r.found;
	}
	return r.found;
}

static int run_token(void *ctx, int flags, const char *token, int n,
		     int start, int end)
{
	struct run *r = ctx;

	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	if (r->fn(r->p, r->base + (size_t)start, r->base + (size_t)end,
		  matches(r->p->hl, token, n))) {
		r->stopped = 1;
		return SQLITE_DONE;
	}
	return SQLITE_OK;
}


/*
 * Every token of text[from, to), in order, to fn (its offsets in the
 * text, whether it matches a query token; nonzero stops the scan). The
 * index's tokenizer (unicode61) separates tokens at every ASCII byte but
 * letters and digits, so the text is cut there into runs, each tokenized
 * alone as it would be in place: a run of ASCII letters and digits is one
 * token, stemmed only when it may match (word_is_match); a run with other
 * bytes goes through the tokenizer.
 */
static void scan(struct pass *p, size_t from, size_t to,
		 int (*fn)(struct pass *p, size_t start, size_t end,
			   int match))
{
	const struct lec__search_tokenizer *t = p->hl->tokenizer;
	const unsigned char *cls = p->hl->cls;
	const unsigned char *text = (const unsigned char *)p->text;
	size_t i = from, e;
	int ascii;

	while (i < to) {
		if (!(cls[text[i]] & CLASS_RUN)) {
			i++;
			continue;
		}
		ascii = 1;
		for (e = i; e < to && (cls[text[e]] & CLASS_RUN); e++)
			ascii &= !(cls[text[e]] & CLASS_HIGH);
		if (ascii) {
			if (fn(p, i, e, word_is_match(p, i, e)))
				return;
		} else {
			struct run r = { p, i, fn, 0, 0 };

			t->api.xTokenize(t->tok, &r, FTS5_TOKENIZE_DOCUMENT,
					 p->text + i, (int)(e - i), run_token);
			if (r.stopped)
				return;
		}
		i = e;
	}
}

/* The find pass: stop at the first match. */
static int find_at(struct pass *p, size_t start, size_t end, int match)
{
	if (!match)
		return 0;
	p->found = 1;
	p->match_start = start;
	p->match_end = end;
	return 1;
}

/* The emit pass: each matching token wrapped, the text before it
 * escaped; a token ending past the limit (maybe cut short by the slice)
 * ends the pass. */
static int emit_at(struct pass *p, size_t start, size_t end, int match)
{
	if (end > p->limit)
		return 1;
	p->last = end;
	if (!match)
		return 0;
	put_escaped(&p->out, p->text + p->done, start - p->done);
	lec__buf_puts(&p->out, "<span>");
	put_escaped(&p->out, p->text + start, end - start);
	lec__buf_puts(&p->out, "</span>");
	p->done = end;
	p->matched = 1;
	return 0;
}

/* Whether a fragment may start at text[i]: the start of a word, as a
 * reader sees words (after a space), not of a token ("path" in os.path,
 * "subprocess" in create_subprocess_exec). */
static int word_start(const char *text, size_t i)
{
	return i == 0 || (text[i - 1] == ' ' && text[i] != ' ');
}

/* Where a fragment starts: the text's start when the match is near it,
 * else the first word start within LEAD bytes before it, else the start
 * of the match's own word; only a word longer than the fragment's half
 * (a URL) makes it start at the match. */
static size_t fragment_start(const struct pass *p)
{
	size_t i, lo = p->match_start > LEC__SEARCH_FRAGMENT / 2
			    ? p->match_start - LEC__SEARCH_FRAGMENT / 2
			    : 0;

	if (p->match_start < LEAD)
		return 0;
	for (i = p->match_start - LEAD; i <= p->match_start; i++)
		if (word_start(p->text, i))
			return i;
	for (i = p->match_start - LEAD; i > lo; i--)
		if (word_start(p->text, i - 1))
			return i - 1;
	return p->match_start;
}

int lec__search_hl_text(struct lec__search_hl *hl, const char *text,
			int whole, size_t first, char **out)
{
	struct pass p;
	size_t len = text ? strlen(text) : 0, from = 0, to = len;

	*out = NULL;
	if (hl == NULL || hl->len == 0 || len == 0)
		return LEC_OK;
	memset(&p, 0, sizeof(p));
	p.hl = hl;
	p.text = text;
	if (!whole && len > LEC__SEARCH_FRAGMENT) {
		scan(&p, first < len ? first : 0, len, find_at);
		if (!p.found)
			return LEC_OK;
		from = fragment_start(&p);
		to = from + LEC__SEARCH_FRAGMENT;
		if (to <= p.match_end)
			to = p.match_end + 1;
		if (to > len)
			to = len;
	}
	p.done = p.last = from;
	/* A token ending at a cut slice's end may be cut itself. */
	p.limit = to == len ? len : to - 1;
	scan(&p, from, to, emit_at);
	put_escaped(&p.out, text + p.done, p.last - p.done);
	/* The rest of the text when the fragment reaches its end; else stop
	 * after the last whole token. */
	if (to == len)
		put_escaped(&p.out, text + p.last, len - p.last);
	if (!p.matched) {
		lec__buf_dispose(&p.out);
		return LEC_OK;
	}
	if ((*out = lec__buf_take(&p.out)) == NULL)
		return LEC_ENOMEM;
	return LEC_OK;
}
