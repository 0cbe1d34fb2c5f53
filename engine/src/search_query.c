/*
 * The service's search syntax (Elasticsearch simple_query_string, notes
 * §4.1) translated into FTS5 query expressions.
 *
 * The query is first cut into items: words (with a trailing '*' for a
 * prefix search), "phrases", '(' and ')', each carrying the operator
 * written before it ('+' and, '|' or, none) and whether '-' negated it.
 * Items are then folded left to right as the service's parser does: each
 * joins what came before with its operator, or with the default operator
 * when it has none; a negated item excludes pages instead (FTS5 NOT). The
 * fold runs twice, once with AND and once with OR as the default, because
 * the service scores pages matching every word above those matching some.
 *
 * Every word and phrase reaches FTS5 as a double-quoted string, so no
 * character of the user's text is FTS5 syntax; only the operators and
 * parentheses this file writes are. Words and phrases the tokenizer finds
 * no token in ("&&", "--") are dropped, as the service's analyzer drops
 * them, instead of becoming phrases that can never match.
 */
#include <string.h>

#include "internal.h"
#include "lectern/search.h"
#include "search_internal.h"

enum item_kind { ITEM_TEXT, ITEM_OPEN, ITEM_CLOSE };
enum op { OP_NONE, OP_AND, OP_OR };

struct item {
	enum item_kind kind;
	enum op op;
	int negated;
	char *fts;  /* ITEM_TEXT: the quoted FTS5 string; owned */
	char *text; /* ITEM_TEXT: the word or phrase as written; owned */
	int prefix; /* ITEM_TEXT: a prefix search */
};

struct lexer {
	const char *s;
	size_t pos;
	size_t depth;
	struct item *items;
	size_t len, cap;
	size_t terms;
	enum op pending_op;
	int pending_neg;
	lec__search_tokens_fn has_tokens;
	void *ctx;
};

/* One side of a fold: the positive expression built so far (joined by
 * pos_op once it has two items) and the excluded ones, OR-ed. */
struct fold {
	struct lec__buf pos;
	enum op pos_op;
	int has_pos;
	struct lec__buf neg;
	int has_neg;
};

/* Text cleaning ------------------------------------------------------------ */

char *lec__search_clean_text(const char *s, size_t len, size_t *chars)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out = lec__malloc(len + 1);
	size_t i = 0, o = 0, count = 0, n;

	if (out == NULL) {
		lec__error_oom();
		return NULL;
	}
	while (i < len) {
		n = lec__utf8_len(u + i, len - i);
		if (n == 0 || (n == 1 && (u[i] < 0x20 || u[i] == 0x7f))) {
			out[o++] = ' ';
			i++;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
		count++;
	}
	out[o] = '\0';
	if (chars)
		*chars = count;
	return out;
}

/* Lexing ------------------------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* Characters that end a word. */
static int ends_word(char c)
{
	return c == '\0' || is_space(c) || c == '"' || c == '(' || c == ')' ||
	       c == '|';
}

/* Append an item (taking fts and text) with the pending operators. */
static int push(struct lexer *lx, enum item_kind kind, char *fts, char *text,
		int prefix)
{
	struct item *grown, *it;

	if (lx->len == lx->cap) {
		size_t cap = lx->cap ? lx->cap * 2 : 16;

		grown = lec__realloc(lx->items, cap * sizeof(*grown));
		if (grown == NULL) {
			lec__free(fts);
			lec__free(text);
			return lec__error_oom();
		}
		lx->items = grown;
		lx->cap = cap;
	}
	it = &lx->items[lx->len++];
	it->kind = kind;
	it->op = lx->pending_op;
	it->negated = lx->pending_neg;
	it->fts = fts;
	it->text = text;
	it->prefix = prefix;
	lx->pending_op = OP_NONE;
	lx->pending_neg = 0;
	return LEC_OK;
}

/* A word or phrase as an FTS5 string: quoted, '"' doubled, '*' after the
 * closing quote for a prefix. Dropped (with its operators) when it has no
 * token; too many kept is an error. */
static int push_text(struct lexer *lx, const char *text, size_t n, int prefix)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *fts, *raw;
	size_t i;
	int rc;

	if ((rc = lx->has_tokens(lx->ctx, text, n)) <= 0) {
		lx->pending_op = OP_NONE;
		lx->pending_neg = 0;
		return rc;
	}
	if (++lx->terms > LEC_SEARCH_TERMS_MAX)
		return lec__error_field(LEC_EINVALID, "q",
					"Ensure the query has no more than %d "
					"words.",
					LEC_SEARCH_TERMS_MAX);
	lec__buf_puts(&b, "\"");
	for (i = 0; i < n; i++) {
		char c[3] = { text[i], text[i] == '"' ? '"' : '\0', '\0' };

		lec__buf_puts(&b, c);
	}
	lec__buf_puts(&b, prefix ? "\"*" : "\"");
	if ((fts = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	if ((raw = lec__strndup(text, n)) == NULL) {
		lec__free(fts);
		return lec__error_oom();
	}
	return push(lx, ITEM_TEXT, fts, raw, prefix);
}

/* A "phrase": up to the next '"' or the end; a ~N slop after it is
 * ignored (FTS5 phrases are exact). */
static int lex_phrase(struct lexer *lx)
{
	const char *start = lx->s + lx->pos + 1;
	const char *end = strchr(start, '"');
	size_t n = end ? (size_t)(end - start) : strlen(start);

	lx->pos += 1 + n + (end ? 1 : 0);
	if (lx->s[lx->pos] == '~')
		while (!ends_word(lx->s[lx->pos]))
			lx->pos++;
	return push_text(lx, start, n, 0);
}

/* A word: up to a space or an operator character; '\' escapes the next
 * character; trailing '*' makes it a prefix; a ~N fuzziness suffix is
 * dropped (Lectern has no fuzzy matching). */
static int lex_word(struct lexer *lx)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *s = lx->s;
	char c[2] = { 0, 0 };
	size_t n;
	int prefix = 0, rc;

	while (!ends_word(s[lx->pos])) {
		if (s[lx->pos] == '\\' && s[lx->pos + 1] != '\0')
			lx->pos++;
		c[0] = s[lx->pos++];
		lec__buf_puts(&b, c);
	}
	n = b.len;
	if (b.oom) {
		lec__buf_dispose(&b);
		return lec__error_oom();
	}
	if (n > 0 && b.ptr[n - 1] != '~') {
		size_t t = n;

		while (t > 0 && b.ptr[t - 1] >= '0' && b.ptr[t - 1] <= '9')
			t--;
		if (t > 0 && t < n && b.ptr[t - 1] == '~')
			n = t;
	}
	while (n > 0 && (b.ptr[n - 1] == '~' || b.ptr[n - 1] == '*')) {
		prefix |= b.ptr[n - 1] == '*';
		n--;
	}
	rc = push_text(lx, b.ptr ? b.ptr : "", n, prefix);
	lec__buf_dispose(&b);
	return rc;
}

static int lex_next(struct lexer *lx)
{
	char c = lx->s[lx->pos];

	if (is_space(c)) {
		lx->pos++;
		return LEC_OK;
	}
	if (c == '|' || c == '+') {
		lx->pending_op = c == '|' ? OP_OR : OP_AND;
		lx->pos++;
		return LEC_OK;
	}
	if (c == '-') {
		/* A lone '-' is punctuation, not an exclusion. */
		lx->pending_neg = !is_space(lx->s[lx->pos + 1]) &&
				  lx->s[lx->pos + 1] != '\0';
		lx->pos++;
		return LEC_OK;
	}
	if (c == '(' && lx->depth < LEC__SEARCH_DEPTH_MAX) {
		lx->depth++;
		lx->pos++;
		return push(lx, ITEM_OPEN, NULL, NULL, 0);
	}
	if (c == ')' && lx->depth > 0) {
		lx->depth--;
		lx->pos++;
		return push(lx, ITEM_CLOSE, NULL, NULL, 0);
	}
	if (c == '(' || c == ')') {
		lx->pos++;
		return LEC_OK;
	}
	if (c == '"')
		return lex_phrase(lx);
	return lex_word(lx);
}

/* Folding ------------------------------------------------------------------ */

static void fold_dispose(struct fold *f)
{
	lec__buf_dispose(&f->pos);
	lec__buf_dispose(&f->neg);
}

/* Join a positive expression to the fold. A change of operator wraps what
 * came before, so the fold stays left to right under FTS5's precedence. */
static void fold_pos(struct fold *f, enum op op, const char *expr)
{
	if (!f->has_pos) {
		lec__buf_puts(&f->pos, expr);
		f->has_pos = 1;
		return;
	}
	if (f->pos_op != OP_NONE && f->pos_op != op) {
		struct lec__buf w = LEC__BUF_INIT;

		lec__buf_puts(&w, "(");
		lec__buf_puts(&w, f->pos.ptr ? f->pos.ptr : "");
		lec__buf_puts(&w, ")");
		w.oom |= f->pos.oom;
		lec__buf_dispose(&f->pos);
		f->pos = w;
	}
	lec__buf_puts(&f->pos, op == OP_AND ? " AND " : " OR ");
	lec__buf_puts(&f->pos, expr);
	f->pos_op = op;
}

static void fold_neg(struct fold *f, const char *expr)
{
	if (f->has_neg)
		lec__buf_puts(&f->neg, " OR ");
	lec__buf_puts(&f->neg, expr);
	f->has_neg = 1;
}

/* The fold as one expression (NULL without a positive part): "(p) NOT
 * (n)", parenthesised whenever it has operators. */
static char *fold_expr(struct fold *f)
{
	struct lec__buf b = LEC__BUF_INIT;
	int wrap = f->pos_op != OP_NONE || f->has_neg;

	if (!f->has_pos)
		return NULL;
	lec__buf_puts(&b, wrap ? "(" : "");
	lec__buf_puts(&b, f->pos.ptr ? f->pos.ptr : "");
	if (f->has_neg) {
		lec__buf_puts(&b, ") NOT (");
		lec__buf_puts(&b, f->neg.ptr ? f->neg.ptr : "");
	}
	lec__buf_puts(&b, wrap ? ")" : "");
	b.oom |= f->pos.oom || f->neg.oom;
	return lec__buf_take(&b);
}

static int fold_items(const struct lexer *lx, size_t *i, enum op dflt,
		      struct fold *f);

/* A parenthesised group joins the enclosing fold as one item; a group of
 * exclusions only (" (-a -b) ") adds its exclusions there. */
static int fold_group(const struct lexer *lx, size_t *i, enum op dflt,
		      struct fold *f, const struct item *open)
{
	struct fold g = { LEC__BUF_INIT, OP_NONE, 0, LEC__BUF_INIT, 0 };
	char *expr = NULL;
	int rc;

	if ((rc = fold_items(lx, i, dflt, &g)) < 0)
		goto done;
	if (g.has_pos && (expr = fold_expr(&g)) == NULL) {
		rc = LEC_ENOMEM;
		goto done;
	}
	if (expr && open->negated)
		fold_neg(f, expr);
	else if (expr)
		fold_pos(f, open->op == OP_NONE ? dflt : open->op, expr);
	else if (g.has_neg && !open->negated) {
		fold_neg(f, "(");
		lec__buf_puts(&f->neg, g.neg.ptr ? g.neg.ptr : "");
		lec__buf_puts(&f->neg, ")");
	}
done:
	lec__free(expr);
	fold_dispose(&g);
	return rc;
}

/* Fold items from *i up to the matching ')' or the end. */
static int fold_items(const struct lexer *lx, size_t *i, enum op dflt,
		      struct fold *f)
{
	const struct item *it;
	int rc;

	while (*i < lx->len) {
		it = &lx->items[(*i)++];
		if (it->kind == ITEM_CLOSE)
			break;
		if (it->kind == ITEM_OPEN) {
			if ((rc = fold_group(lx, i, dflt, f, it)) < 0)
				return rc;
		} else if (it->negated) {
			fold_neg(f, it->fts);
		} else {
			fold_pos(f, it->op == OP_NONE ? dflt : it->op,
				 it->fts);
		}
	}
	if (f->pos.oom || f->neg.oom)
		return lec__error_oom();
	return LEC_OK;
}

static int fold_all(const struct lexer *lx, enum op dflt, char **out)
{
	struct fold f = { LEC__BUF_INIT, OP_NONE, 0, LEC__BUF_INIT, 0 };
	size_t i = 0;
	int rc;

	*out = NULL;
	if ((rc = fold_items(lx, &i, dflt, &f)) == LEC_OK && f.has_pos &&
	    (*out = fold_expr(&f)) == NULL)
		rc = LEC_ENOMEM;
	fold_dispose(&f);
	return rc;
}

/* The words and phrases that can make a page match (not excluded by '-'
 * on themselves or on a group around them): what highlights mark. */
static int collect_positive(struct lexer *lx, struct lec__search_expr *out)
{
	int negated[LEC__SEARCH_DEPTH_MAX + 1] = { 0 };
	size_t depth = 0, i;
	struct item *it;

	out->positive = lec__calloc(lx->len + 1, sizeof(*out->positive));
	if (out->positive == NULL)
		return lec__error_oom();
	for (i = 0; i < lx->len; i++) {
		it = &lx->items[i];
		if (it->kind == ITEM_OPEN && depth < LEC__SEARCH_DEPTH_MAX) {
			negated[depth + 1] = negated[depth] || it->negated;
			depth++;
		} else if (it->kind == ITEM_CLOSE && depth > 0) {
			depth--;
		} else if (it->kind == ITEM_TEXT && !negated[depth] &&
			   !it->negated) {
			out->positive[out->npositive].text = it->text;
			out->positive[out->npositive++].prefix = it->prefix;
			it->text = NULL; /* moved */
		}
	}
	return LEC_OK;
}

/* The phrases of a plain list of words and phrases, in order: `all` is
 * then exactly "P0 AND P1 ..." and `any` "P0 OR P1 ...". Anything else
 * (an operator, an exclusion, a group) leaves out->phrases NULL. */
static int collect_phrases(struct lexer *lx, struct lec__search_expr *out)
{
	size_t i;

	for (i = 0; i < lx->len; i++)
		if (lx->items[i].kind != ITEM_TEXT || lx->items[i].negated ||
		    lx->items[i].op != OP_NONE)
			return LEC_OK;
	if (lx->len == 0)
		return LEC_OK;
	out->phrases = lec__calloc(lx->len, sizeof(*out->phrases));
	if (out->phrases == NULL)
		return lec__error_oom();
	for (i = 0; i < lx->len; i++) {
		out->phrases[i] = lx->items[i].fts;
		lx->items[i].fts = NULL; /* moved */
	}
	out->nphrases = lx->len;
	return LEC_OK;
}

/* Translating -------------------------------------------------------------- */

int lec__search_translate(const char *query, lec__search_tokens_fn has_tokens,
			  void *ctx, struct lec__search_expr *out)
{
	struct lexer lx;
	char *clean = NULL;
	size_t chars = 0, i;
	int rc = LEC_OK;

	memset(out, 0, sizeof(*out));
	memset(&lx, 0, sizeof(lx));
	if (query == NULL)
		query = "";
	if ((clean = lec__search_clean_text(query, strlen(query), &chars)) ==
	    NULL)
		return LEC_ENOMEM;
	if (chars > LEC_SEARCH_QUERY_MAX) {
		rc = lec__error_too_long("q", LEC_SEARCH_QUERY_MAX);
		goto done;
	}
	lx.s = clean;
	lx.has_tokens = has_tokens;
	lx.ctx = ctx;
	while (rc == LEC_OK && lx.s[lx.pos] != '\0')
		rc = lex_next(&lx);
	if (rc < 0)
		goto done;
	out->terms = lx.terms;
	if ((rc = fold_all(&lx, OP_AND, &out->all)) < 0 ||
	    (rc = fold_all(&lx, OP_OR, &out->any)) < 0 ||
	    (rc = collect_positive(&lx, out)) < 0 ||
	    (rc = collect_phrases(&lx, out)) < 0)
		lec__search_expr_dispose(out);
done:
	for (i = 0; i < lx.len; i++) {
		lec__free(lx.items[i].fts);
		lec__free(lx.items[i].text);
	}
	lec__free(lx.items);
	lec__free(clean);
	return rc;
}

static const size_t term_texts[] = { offsetof(struct lec__search_term, text) };

void lec__search_expr_dispose(struct lec__search_expr *expr)
{
	if (expr == NULL)
		return;
	LEC__ITEMS_TEXTS_FREE(expr->positive, expr->npositive, term_texts);
	lec__strings_free(expr->phrases, expr->nphrases);
	lec__free(expr->all);
	lec__free(expr->any);
	memset(expr, 0, sizeof(*expr));
}
