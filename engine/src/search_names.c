/*
 * Names: what a reader types when they know what they are looking for. A
 * domain object's name (os.path.join, html_theme, toctree), a glossary
 * term, a section title, or the start or a misspelling of one. BM25 alone
 * ranks pages that mention html_theme ten times above the one entry that
 * defines it; Sphinx's own search and the service look such names up
 * first, and so does Lectern.
 *
 * At indexing, every section and domain entry puts its name in
 * search_names (schema migration 7) under a lowercase key: the whole name
 * and each dotted suffix of an object's name (collections.defaultdict is
 * also found as defaultdict). The row carries the weight of the entry's
 * object type (a function above an attribute, a directive above one of its
 * options: the table below). The keys are also the vocabulary misspelled
 * query words are corrected to: names are what readers misspell and what
 * they are after (one row per word of every title instead cost 4 times the
 * rows, and most of a 100,000-section index's writing time).
 *
 * At query time the whole query is looked up as a name; a query of several
 * words also looks each word up, keeping the entries whose page has the
 * other words ("sqlite3 cursor execute" finds sqlite3.Cursor.execute), and
 * a word naming an object type ("ref role", "glossary directive") prefers
 * entries of that type. A one-word query that names nothing is taken as the
 * start of a name at most half as long again (search as you type:
 * "html_the", "literalinc"). Each hit scores its
 * match (whole name, suffix, prefix), its case (exact above folded) and
 * its type weight; search_exec.c puts the pages of hits before all
 * others.
 */
#include <stdlib.h>
#include <string.h>

#include "search_internal.h"
#include "store_internal.h"

/* Row kinds in search_names. */
#define NAME_WHOLE 0
#define NAME_SUFFIX 1

/* Longest name kept as a key (object names are far shorter; a longer
 * "name" is a sentence-long section title nobody types whole). */
#define NAME_MAX 160
/* Rows read per key lookup: a common suffix (get, __init__) names hundreds
 * of methods, and past the best few the order is BM25's anyway. */
#define LOOKUP_ROWS 256
/* Rows read per prefix lookup: the keys a word begins
 * come in key order, and the best (a module's short name) may follow
 * hundreds of longer ones ("mult" reads past every "multiple ..." title
 * to reach multiprocessing). */
#define PREFIX_ROWS 1024
/* Query words looked up one by one; longer queries are prose. */
#define WORDS_MAX 6
/* Shortest word a prefix lookup or a misspelling correction is tried on:
 * shorter ones prefix or nearly match too many names. */
#define PREFIX_MIN 3
#define CORRECT_MIN 4
/* A finished word (one the index has) must be at least 2/3 of the name
 * it begins ("theme" is not yet ThemeError), unless the name is a
 * module's ("cont" is a word, and the start of contextlib). An unfinished
 * one ("asyn", "subproc") or one written like an identifier ("email.c",
 * "__fu") may begin a name of any length. */
#define PREFIX_SHARE_NUM 3
#define PREFIX_SHARE_DEN 2
/* Shortest word allowed two edits; shorter ones get one. */
#define TWO_EDITS_MIN 6

/* Match factors: a whole name, a dotted suffix, one word of a longer query
 * (the rest found on the page), a prefix (times the mean of 1 and the
 * share of the name typed: shorter completions first, but a module's
 * longer name above a section title's shorter one, "asyn" being asyncio
 * before "async"). An object type named in the query halves entries of
 * other types; a name matched only with its case folded loses a little. */
#define F_WHOLE 1.0
#define F_SUFFIX 0.85
#define F_WORD 0.8
#define F_PREFIX 0.6
/* The query's last words as the start of a longer title (times
 * F_PREFIX's factor): below a word that is a whole name; halved again when
 * no such title's page has the words before them (readers write
 * "f-string" where the page says "formatted string literal"). */
#define F_RUN 0.7
#define F_RUN_ALONE 0.5
#define F_OTHER_TYPE 0.5
#define F_FOLDED 0.95

/* Object type weights in thousandths (Sphinx's objPrio, as ratios): what a
 * reader most likely means when several objects share a name. */
static const struct type_weight {
	const char *role; /* an exact role, or a domain prefix ending ':' */
	int weight;
} type_weights[] = {
	{ "py:module", 1000 },	    { "py:class", 1000 },
	{ "py:function", 1000 },    { "py:exception", 1000 },
	{ "py:method", 950 },	    { "py:classmethod", 950 },
	{ "py:staticmethod", 950 }, { "py:data", 900 },
	{ "py:attribute", 850 },    { "py:property", 850 },
	{ "std:confval", 1000 },    { "rst:directive", 1000 },
	{ "rst:role", 1000 },	    { "std:term", 1000 },
	{ "std:option", 950 },	    { "std:envvar", 950 },
	{ "std:event", 950 },	    { "rst:directive:option", 600 },
	{ "c:", 900 },		    { "cpp:", 900 },
	{ "js:", 900 },		    { "", 750 }, /* section titles */
};
#define OTHER_DOMAIN_WEIGHT 800

/* Words in a query that name an object type rather than an object. */
static const struct type_hint {
	const char *word;
	const char *role; /* as type_weights: exact, or a prefix ending ':' */
} type_hints[] = {
	{ "function", "py:function" }, { "method", "py:method" },
	{ "class", "py:class" },       { "module", "py:module" },
	{ "exception", "py:exception" }, { "attribute", "py:attribute" },
	{ "directive", "rst:directive" }, { "role", "rst:role" },
	{ "option", "std:option" },    { "config", "std:confval" },
	{ "setting", "std:confval" },  { "event", "std:event" },
	{ "envvar", "std:envvar" },    { "term", "std:term" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int role_is(const char *role, const char *pattern)
{
	size_t n = strlen(pattern);

	if (n > 0 && pattern[n - 1] == ':')
		return strncmp(role, pattern, n) == 0;
	return strcmp(role, pattern) == 0;
}

static int weight_of(const char *role)
{
	size_t i;

	for (i = 0; i < COUNT(type_weights); i++)
		if (role_is(role, type_weights[i].role))
			return type_weights[i].weight;
	return OTHER_DOMAIN_WEIGHT;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || (unsigned char)c >= 0x80;
}

/* Indexing ------------------------------------------------------------------ */

struct adder {
	struct lec_store *st;
	sqlite3_stmt *stmt;
	int64_t entry;
	int weight;
	const char *role;
};

/* The role of a module's section: Sphinx's target id module-NAME on the
 * section whose title starts with NAME ("pathlib — Object-oriented
 * filesystem paths"), so that typing "pathlib" finds the module before the
 * What's New sections titled "pathlib"; "Module Attributes" has the id
 * module-attributes too, and is no module. */
#define MODULE_ANCHOR "module-"
#define MODULE_ROLE "py:module"

/* One row: key is name[0..n) lowercased. */
static int add_row(struct adder *a, const char *name, size_t n, int kind)
{
	char key[NAME_MAX + 1], written[NAME_MAX + 1];
	size_t i;
	int rc;

	if (n == 0 || n > NAME_MAX)
		return LEC_OK;
	for (i = 0; i < n; i++)
		key[i] = lower(name[i]);
	key[n] = '\0';
	memcpy(written, name, n);
	written[n] = '\0';
	sqlite3_bind_text(a->stmt, 1, key, (int)n, SQLITE_TRANSIENT);
	sqlite3_bind_int64(a->stmt, 2, a->entry);
	sqlite3_bind_int(a->stmt, 3, kind);
	sqlite3_bind_int(a->stmt, 4, a->weight);
	sqlite3_bind_text(a->stmt, 5, written, (int)n, SQLITE_TRANSIENT);
	sqlite3_bind_text(a->stmt, 6, a->role, -1, SQLITE_STATIC);
	rc = lec_store__step_done(a->st, a->stmt, "indexing a name");
	sqlite3_reset(a->stmt);
	return rc;
}

/* The name and its dotted suffixes (objects only: a section title's dots
 * are sentence punctuation). */
static int add_name(struct adder *a, const char *name, size_t n, int dotted)
{
	size_t i;
	int rc = add_row(a, name, n, NAME_WHOLE);

	for (i = 0; rc == LEC_OK && dotted && i + 1 < n; i++)
		if (name[i] == '.' || (name[i] == ':' && name[i + 1] == ':'))
			rc = add_row(a, name + i + 1 + (name[i] == ':'),
				     n - i - 1 - (name[i] == ':'), NAME_SUFFIX);
	return rc;
}

/* "-f, --force" and "-s <suffix>, --suffix <suffix>": each option alone. */
static int add_options(struct adder *a, const char *s)
{
	size_t n;
	int rc = LEC_OK;

	while (rc == LEC_OK && *s) {
		while (*s == ' ' || *s == ',')
			s++;
		n = strcspn(s, " ,=<[");
		rc = add_row(a, s, n, NAME_WHOLE);
		s += strcspn(s, ",");
	}
	return rc;
}

/* A section that documents a module: its name and dotted suffixes. */
static int add_module(struct adder *a, const char *anchor, const char *title)
{
	const char *name = anchor + strlen(MODULE_ANCHOR);
	size_t n = strlen(name);
	struct adder m = *a;

	while (*title == ' ')
		title++;
	if (n == 0 || strncmp(title, name, n) != 0 ||
	    (title[n] != '\0' && title[n] != ' '))
		return LEC_OK;
	m.role = MODULE_ROLE;
	m.weight = weight_of(MODULE_ROLE);
	return add_name(&m, name, n, 1);
}

int lec__search_names_add(struct lec_store *st, sqlite3_stmt *stmt,
			  int64_t entry, const char *role, const char *anchor,
			  const char *title)
{
	struct adder a = { st, stmt, entry, 0, role ? role : "" };
	const char *s = title ? title : "", *end;
	size_t n;
	int rc;

	if (a.role[0] == '\0' && anchor &&
	    strncmp(anchor, MODULE_ANCHOR, strlen(MODULE_ANCHOR)) == 0 &&
	    (rc = add_module(&a, anchor, s)) < 0)
		return rc;
	if (a.role[0] == '\0' && anchor && strncmp(anchor, "term-", 5) == 0)
		a.role = "std:term";
	a.weight = weight_of(a.role);
	while (*s == ' ')
		s++;
	n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	/* ".. toctree::" and ":ref:" are named toctree and ref, the
	 * directive's argument left out. */
	if (strncmp(s, ".. ", 3) == 0)
		s += 3, n -= 3;
	if (strcmp(a.role, "rst:directive") == 0 && (end = strstr(s, "::")) &&
	    (size_t)(end - s) < n)
		n = (size_t)(end - s); /* ".. literalinclude:: filename" */
	if (n > 2 && s[0] == ':' && s[n - 1] == ':')
		s++, n -= 2;
	/* "8.6. The match statement" is named "match statement". */
	if (a.role[0] == '\0') {
		size_t d = strspn(s, "0123456789.");

		if (d > 0 && d < n && s[d] == ' ')
			s += d + 1, n -= d + 1;
		if (n > 4 && (strncmp(s, "The ", 4) == 0 ||
			      strncmp(s, "the ", 4) == 0))
			s += 4, n -= 4;
	}
	/* A Python method is written "sort" inside class list, its anchor
	 * says list.sort: the qualified name is the name. */
	if (anchor && n > 0 && strncmp(a.role, "py:", 3) == 0) {
		size_t an = strlen(anchor);

		if (an > n + 1 && anchor[an - n - 1] == '.' &&
		    memcmp(anchor + an - n, s, n) == 0)
			s = anchor, n = an;
	}
	if (strcmp(a.role, "std:option") == 0) {
		char opt[NAME_MAX + 1];

		if (n > NAME_MAX)
			n = NAME_MAX;
		memcpy(opt, s, n);
		opt[n] = '\0';
		rc = add_options(&a, opt);
	} else {
		rc = add_name(&a, s, n, a.role[0] != '\0' &&
					       strcmp(a.role, "std:term") != 0);
	}
	return rc;
}

/* Querying ------------------------------------------------------------------- */

struct matcher {
	struct lec_store *st;
	lec__search_scope_fn in_scope;
	lec__search_page_has_fn page_has;
	void *ctx;
	struct lec__search_name_hit *hits;
	size_t len, cap;
};

static int hit_push(struct matcher *m, int64_t entry, double score)
{
	size_t i;

	for (i = 0; i < m->len; i++)
		if (m->hits[i].entry == entry) {
			if (score > m->hits[i].score)
				m->hits[i].score = score;
			return LEC_OK;
		}
	if (lec__grow((void **)&m->hits, &m->cap, m->len,
		      sizeof(*m->hits), 16) < 0)
		return LEC_ENOMEM;
	m->hits[m->len].entry = entry;
	m->hits[m->len++].score = score;
	return LEC_OK;
}

/* What a lookup is for. */
struct lookup {
	const char *word;   /* as typed */
	size_t len;
	const char *others; /* the other words a page must have, or NULL */
	const char *hint;   /* the role a type word asks for, or NULL */
	double factor;
	int prefix; /* keys it begins rather than the key */
	int rows;   /* keys read at most */
	int unfinished; /* prefix: any name it begins, however long */
};

/* Whether the written name ends with the word as typed (its case). */
static int same_case(const char *name, const struct lookup *l)
{
	size_t n = strlen(name);

	return n >= l->len && memcmp(name + n - l->len, l->word, l->len) == 0;
}

/* Look one word (or the whole query) up; *found counts the hits kept. */
static int lookup(struct matcher *m, const struct lookup *l, size_t *found)
{
	char key[NAME_MAX + 2], end[NAME_MAX + 2];
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int rc, has;

	*found = 0;
	if (l->len == 0 || l->len > NAME_MAX)
		return LEC_OK;
	for (i = 0; i < l->len; i++)
		key[i] = end[i] = lower(l->word[i]);
	key[l->len] = end[l->len] = '\0';
	/* Keys starting with key: [key, key with its last byte raised). */
	end[l->len - 1] = (char)(end[l->len - 1] + 1);
	rc = lec_store__prepare(
		m->st, &stmt,
		l->prefix ? "SELECT entry, kind, weight, name, role, key "
			    "FROM search_names WHERE key >= ?1 AND key < ?2 "
			    "LIMIT ?3"
			  : "SELECT entry, kind, weight, name, role, key "
			    "FROM search_names WHERE key = ?1 LIMIT ?3");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(stmt, 1, key, (int)l->len, SQLITE_TRANSIENT);
	if (l->prefix)
		sqlite3_bind_text(stmt, 2, end, (int)l->len, SQLITE_TRANSIENT);
	sqlite3_bind_int(stmt, 3, l->rows);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int64_t entry = sqlite3_column_int64(stmt, 0);
		const char *name = (const char *)sqlite3_column_text(stmt, 3);
		const char *role = (const char *)sqlite3_column_text(stmt, 4);
		int keylen = sqlite3_column_bytes(stmt, 5);
		double score = l->factor *
			       sqlite3_column_int(stmt, 2) / 1000.0 *
			       (sqlite3_column_int(stmt, 1) == NAME_WHOLE
					? F_WHOLE
					: F_SUFFIX);

		rc = LEC_OK;
		if (name == NULL || role == NULL || !m->in_scope(m->ctx, entry))
			continue;
		if (l->prefix && !l->unfinished &&
		    keylen * PREFIX_SHARE_DEN > (int)l->len * PREFIX_SHARE_NUM &&
		    strcmp(role, MODULE_ROLE) != 0)
			continue;
		if (l->prefix)
			score *= F_PREFIX * (1 + (double)l->len / keylen) / 2;
		else if (!same_case(name, l))
			score *= F_FOLDED;
		if (l->hint && !role_is(role, l->hint))
			score *= F_OTHER_TYPE;
		if (l->others) {
			/* A prefix begins many titles: only what the
			 * query matched says (lookup_runs). */
			if ((has = m->page_has(m->ctx, entry, l->others,
					       !l->prefix)) < 0) {
				rc = has;
				break;
			}
			if (!has)
				continue;
		}
		if ((rc = hit_push(m, entry, score)) < 0)
			break;
		++*found;
	}
	if (rc == SQLITE_DONE)
		rc = LEC_OK;
	else if (rc > 0)
		rc = lec_store__sqlerr(m->st, rc, "looking up a name");
	lec_store__finalize(m->st, stmt);
	return rc;
}

/* The query's words: spans of s separated by spaces. */
struct words {
	const char *at[WORDS_MAX];
	size_t len[WORDS_MAX];
	size_t n;
};

/* 0 when the query has more than WORDS_MAX words. */
static int split_words(const char *s, struct words *w)
{
	w->n = 0;
	for (;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			return 1;
		if (w->n == WORDS_MAX)
			return 0;
		w->at[w->n] = s;
		w->len[w->n] = strcspn(s, " ");
		s += w->len[w->n++];
	}
}

static const char *hint_of(const char *word, size_t n)
{
	size_t i;

	for (i = 0; i < COUNT(type_hints); i++)
		if (strlen(type_hints[i].word) == n &&
		    strncmp(type_hints[i].word, word, n) == 0)
			return type_hints[i].role;
	return NULL;
}

/* Whether a word is written like an identifier (sqlite3, os.path,
 * html_theme, -X, TypedDict) rather than prose, which names look-ups would
 * only mislead ("match statement" is not about re.match). */
static int identifier_like(const char *w, size_t n)
{
	size_t i;

	if (n > 1 && (w[0] == '-' || w[0] == ':'))
		return 1;
	for (i = 0; i < n; i++)
		if (w[i] == '.' || w[i] == '_' || w[i] == ':' ||
		    (w[i] >= '0' && w[i] <= '9') ||
		    (i > 0 && w[i] >= 'A' && w[i] <= 'Z'))
			return 1;
	return 0;
}

/* Each identifier of a several-word query (each word, when one names an
 * object type), with the others (but the type word) required on the
 * page. */
static int lookup_words(struct matcher *m, const struct words *w)
{
	struct lec__buf others = LEC__BUF_INIT;
	const char *hint = NULL;
	size_t i, j, hint_at = w->n, found;
	int rc = LEC_OK;

	for (i = w->n; i-- > 0 && hint == NULL;)
		if ((hint = hint_of(w->at[i], w->len[i])) != NULL)
			hint_at = i;
	for (i = 0; i < w->n && rc == LEC_OK; i++) {
		struct lookup l = { w->at[i], w->len[i], NULL,	 hint,
				    F_WORD,	     0,	       LOOKUP_ROWS,
				    0 };

		if (i == hint_at ||
		    (hint == NULL && !identifier_like(w->at[i], w->len[i])))
			continue;
		lec__buf_dispose(&others);
		for (j = 0; j < w->n; j++)
			if (j != i && j != hint_at)
			{
				lec__buf_putn(&others, " ", others.len ? 1 : 0);
				lec__buf_putn(&others, w->at[j], w->len[j]);
			}
		if (others.oom) {
			rc = lec__error_oom();
			break;
		}
		l.others = others.len ? others.ptr : NULL;
		rc = lookup(m, &l, &found);
	}
	lec__buf_dispose(&others);
	return rc;
}

/* The query's last two words or more as the start of a title ("f-string
 * format spec": "format spec" begins "Format Specification
 * Mini-Language"), the words before them required on its page: readers
 * shorten the titles they type. Only the pages the query matched as a
 * whole say they have them (asking the index of each of hundreds of
 * titles was most of a large index's slowest queries); else, if none, any
 * such title at half the score. whole is the words joined by spaces. */
static int lookup_runs(struct matcher *m, const struct words *w,
		       const char *whole)
{
	struct lec__buf others = LEC__BUF_INIT;
	size_t i, at = 0, found;
	int rc = LEC_OK;

	for (i = 0; i + 1 < w->n && rc == LEC_OK; i++) {
		struct lookup l = { whole + at, strlen(whole + at), NULL, NULL,
				    F_RUN,	       1,		   LOOKUP_ROWS,
				    1 };

		lec__buf_dispose(&others);
		lec__buf_putn(&others, whole, at ? at - 1 : 0);
		if (others.oom)
			rc = lec__error_oom();
		l.others = others.len ? others.ptr : NULL;
		if (rc == LEC_OK)
			rc = lookup(m, &l, &found);
		if (rc == LEC_OK && found == 0 && l.others) {
			l.others = NULL;
			l.factor *= F_RUN_ALONE;
			rc = lookup(m, &l, &found);
		}
		at += w->len[i] + 1;
	}
	lec__buf_dispose(&others);
	return rc;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct lec__search_name_hit *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

int lec__search_names_match(struct lec_store *st, const char *query,
			    int unfinished, lec__search_scope_fn in_scope,
			    lec__search_page_has_fn page_has, void *ctx,
			    struct lec__search_name_hit **out, size_t *n)
{
	struct matcher m = { st, in_scope, page_has, ctx, NULL, 0, 0 };
	struct lec__buf whole = LEC__BUF_INIT;
	struct words w;
	char *clean;
	size_t i, found = 0;
	int rc = LEC_OK;

	*out = NULL;
	*n = 0;
	if (query == NULL)
		return LEC_OK;
	if ((clean = lec__search_clean_text(query, strlen(query), NULL)) ==
	    NULL)
		return LEC_ENOMEM;
	if (!split_words(clean, &w) || w.n == 0)
		goto done;
	/* The whole query, its words joined by single spaces. */
	for (i = 0; i < w.n; i++) {
		lec__buf_putn(&whole, " ", i ? 1 : 0);
		lec__buf_putn(&whole, w.at[i], w.len[i]);
	}
	if (whole.oom) {
		rc = lec__error_oom();
		goto done;
	}
	{
		struct lookup l = { whole.ptr, whole.len, NULL, NULL, F_WHOLE,
				    0,	       LOOKUP_ROWS, 0 };

		rc = lookup(&m, &l, &found);
	}
	if (rc == LEC_OK && w.n > 1 && (rc = lookup_words(&m, &w)) == LEC_OK)
		rc = lookup_runs(&m, &w, whole.ptr);
	if (rc == LEC_OK && w.n == 1 && found == 0 && w.len[0] >= PREFIX_MIN) {
		struct lookup pre = { w.at[0], w.len[0], NULL, NULL, F_WHOLE,
				      1,       PREFIX_ROWS,
				      unfinished ||
					      identifier_like(w.at[0], w.len[0]) };

		rc = lookup(&m, &pre, &found);
	}
	if (rc == LEC_OK && m.len > 1)
		qsort(m.hits, m.len, sizeof(*m.hits), hit_cmp);
done:
	lec__buf_dispose(&whole);
	lec__free(clean);
	if (rc < 0) {
		lec__free(m.hits);
		return rc;
	}
	*out = m.hits;
	*n = m.len;
	return LEC_OK;
}

/* Misspellings --------------------------------------------------------------- */

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent
 * transpositions) of a[0..n) and b[0..m), or limit + 1 once it must
 * exceed limit. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m,
			    size_t limit)
{
	size_t rows[3][NAME_MAX + 2], *prev2 = rows[0], *prev = rows[1],
					  *cur = rows[2], *t, i, j, best;

	if (n > NAME_MAX || m > NAME_MAX ||
	    (n > m ? n - m : m - n) > limit)
		return limit + 1;
	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		cur[0] = i;
		best = cur[0];
		for (j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
		t = prev2, prev2 = prev, prev = cur, cur = t;
	}
	return prev[m];
}

/* The name key nearest to word (lowercase, n bytes), starting with the
 * same letter, within the edits its length allows; *out NULL for none. */
static int nearest_word(struct lec_store *st, const char *word, size_t n,
			char **out)
{
	char first[2] = { word[0], '\0' }, next[2] = { (char)(word[0] + 1),
						       '\0' };
	size_t limit = n >= TWO_EDITS_MIN ? 2 : 1, best = limit + 1, d;
	sqlite3_stmt *stmt = NULL;
	int rc;

	*out = NULL;
	if ((rc = lec_store__prepare(st, &stmt,
				     "SELECT DISTINCT key FROM search_names "
				     "WHERE key >= ?1 AND key < ?2")) < 0)
		return rc;
	sqlite3_bind_text(stmt, 1, first, 1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, next, 1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(stmt, 0);
		size_t m = (size_t)sqlite3_column_bytes(stmt, 0);

		rc = LEC_OK;
		if (key == NULL ||
		    (d = edit_distance(word, n, key, m, best - 1 < limit
								 ? best - 1
								 : limit)) >=
			    best)
			continue;
		best = d;
		lec__free(*out);
		if ((*out = lec__strndup(key, m)) == NULL) {
			rc = lec__error_oom();
			break;
		}
		if (best == 0)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = LEC_OK;
	else if (rc > 0)
		rc = lec_store__sqlerr(st, rc, "correcting a query");
	lec_store__finalize(st, stmt);
	return rc;
}

int lec__search_names_correct(struct lec_store *st, const char *query,
			      lec__search_tokens_fn matches, void *ctx,
			      char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	char word[NAME_MAX + 1], *near = NULL;
	const char *s = query, *start;
	size_t n, i;
	int rc = LEC_OK, changed = 0, plain, has = 0;

	*out = NULL;
	while (s && *s && rc == LEC_OK) {
		if (!is_word_char(*s)) {
			lec__buf_putn(&b, s++, 1);
			continue;
		}
		start = s;
		plain = 1;
		for (n = 0; is_word_char(s[n]); n++)
			plain &= (unsigned char)s[n] < 0x80;
		s += n;
		if (!plain || n < CORRECT_MIN || n > NAME_MAX ||
		    (has = matches(ctx, start, n)) != 0) {
			if (plain && n >= CORRECT_MIN && n <= NAME_MAX &&
			    has < 0) {
				rc = has;
				break;
			}
			lec__buf_putn(&b, start, n);
			continue;
		}
		for (i = 0; i < n; i++)
			word[i] = lower(start[i]);
		if ((rc = nearest_word(st, word, n, &near)) < 0)
			break;
		lec__buf_putn(&b, near ? near : start, near ? strlen(near) : n);
		changed |= near != NULL;
		lec__free(near);
		near = NULL;
	}
	if (rc >= 0 && b.oom)
		rc = lec__error_oom();
	if (rc >= 0 && changed && (*out = lec__buf_take(&b)) == NULL)
		rc = LEC_ENOMEM;
	lec__buf_dispose(&b);
	return rc < 0 ? rc : LEC_OK;
}
