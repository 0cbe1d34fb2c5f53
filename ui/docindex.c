/*
 * The built docs' own search indexes (see docindex.h). The parsed JSON is
 * kept whole and searched in place: a query walks Sphinx's term tables or
 * MkDocs' entries once per word, which for the largest real indexes is a
 * few milliseconds, far below the time it took to fetch them. Scores are
 * Sphinx's default scorer's (title 15, partial title 7, term 5, partial
 * term 2, object 11 or 6 plus its priority), so that results rank as the
 * site's own search page ranks them; MkDocs' entries use the same scale.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docindex.h"
#include "util.h"

/* Bytes of one query word kept; no indexed word is longer. */
#define WORD_MAX 64
/* A stemmed term must be this long to match the words it begins, so that
 * "in" does not find every "install", and what the word adds must be at
 * most this many letters (Porter strips endings like "ation" and "ing"),
 * so that "lectern" does not match "lectern_home". */
#define STEM_MIN 3
#define STEM_SUFFIX_MAX 6
/* A snippet: this many bytes of text before the first hit, and at most
 * SNIPPET_MAX bytes in all (about two lines of a result list). */
#define SNIPPET_BEFORE 40
#define SNIPPET_MAX 160

/* Sphinx's default scorer (sphinx/themes/basic/static/searchtools.js). */
#define SCORE_TITLE 15
#define SCORE_TITLE_PARTIAL 7
#define SCORE_TERM 5
#define SCORE_TERM_PARTIAL 2
#define SCORE_OBJECT 11
#define SCORE_OBJECT_PARTIAL 6
/* An object's priority (0 important, 1 default, 2 unimportant) adds
 * these; other priorities add nothing. */
static const int object_priority[] = { 15, 5, -5 };

static const char sphinx_prefix[] = "Search.setIndex(";

struct mk_entry {
	const char *title;  /* in the JSON tree */
	const char *text;
	const char *anchor; /* after '#', or NULL for a page's own entry */
	char *ltitle;       /* lower-case copies; owned */
	char *ltext;
	size_t page;
};

struct mk_page {
	char *path;
	const char *title;
};

struct ui_docindex {
	enum ui_docindex_format format;
	cJSON *root;
	/* Sphinx's tables, in root. */
	const cJSON *docnames, *titles, *terms, *titleterms;
	const cJSON *objects, *objtypes, *objnames, *alltitles;
	size_t ndocs;
	/* MkDocs' entries, grouped into pages. */
	struct mk_entry *entries;
	size_t nentries;
	struct mk_page *pages;
	size_t npages;
};

struct query {
	char words[UI_DOCINDEX_MAX_WORDS][WORD_MAX];
	size_t len[UI_DOCINDEX_MAX_WORDS];
	size_t n;
};

/* A page's result being gathered. */
struct acc {
	int score;   /* its word matches */
	int missed;  /* some word did not match it */
	int matched; /* it matched at all */
	struct ui_docindex_block *blocks;
	size_t nblocks, cap;
	const struct mk_entry *page_entry; /* MkDocs: the page's own hit */
};

/* Words ------------------------------------------------------------------- */

static int is_word_byte(unsigned char c)
{
	return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static char *lower_dup(const char *s)
{
	char *out = ui_xstrdup(s), *p;

	for (p = out; *p != '\0'; p++)
		*p = lower(*p);
	return out;
}

static void query_words(const char *s, struct query *q)
{
	size_t n;

	q->n = 0;
	while (s != NULL && *s != '\0' && q->n < UI_DOCINDEX_MAX_WORDS) {
		if (!is_word_byte((unsigned char)*s)) {
			s++;
			continue;
		}
		for (n = 0; is_word_byte((unsigned char)*s); s++)
			if (n + 1 < WORD_MAX)
				q->words[q->n][n++] = lower(*s);
		q->words[q->n][n] = '\0';
		q->len[q->n++] = n;
	}
}

/* Where word w begins a word of hay (lower-case), or NULL; *exact says
 * whether it is the whole word there. */
static const char *find_word(const char *hay, const char *w, size_t wlen,
			     int *exact)
{
	const char *p = hay;

	while ((p = strstr(p, w)) != NULL) {
		if (p == hay || !is_word_byte((unsigned char)p[-1])) {
			*exact = !is_word_byte((unsigned char)p[wlen]);
			return p;
		}
		p++;
	}
	return NULL;
}

/* Whether every query word is in s (lower-case), anywhere. */
static int contains_all(const char *s, const struct query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (strstr(s, q->words[i]) == NULL)
			return 0;
	return 1;
}

/* Gathering ----------------------------------------------------------------- */

static struct ui_docindex_block *acc_block(struct acc *a, const char *type,
					   const char *id, int score)
{
	struct ui_docindex_block *b;

	if (a->nblocks == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->blocks = ui_xrealloc(a->blocks, a->cap * sizeof(*a->blocks));
	}
	b = &a->blocks[a->nblocks++];
	memset(b, 0, sizeof(*b));
	b->type = ui_xstrdup(type);
	b->id = ui_xstrdup(id != NULL ? id : "");
	b->score = score;
	a->matched = 1;
	return b;
}

static void block_dispose(struct ui_docindex_block *b)
{
	free(b->type);
	free(b->id);
	free(b->title);
	free(b->content);
	free(b->role);
	free(b->name);
}

/* Best block first; equal scores keep document order (insertion sort:
 * stable, and a page has few blocks). */
static void sort_blocks(struct ui_docindex_block *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct ui_docindex_block b = v[i];

		for (j = i; j > 0 && v[j - 1].score < b.score; j--)
			v[j] = v[j - 1];
		v[j] = b;
	}
}

static int result_cmp(const void *a, const void *b)
{
	const struct ui_docindex_result *x = a, *y = b;
	int c;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if ((c = strcmp(x->title, y->title)) != 0)
		return c;
	return strcmp(x->path, y->path);
}

/* Turns the pages gathered into results, best first, at most limit. */
static size_t finish(struct acc *accs, size_t n, const char *const *titles,
		     char **paths, size_t limit,
		     struct ui_docindex_results *out)
{
	size_t i;

	out->items = ui_xcalloc(n + 1, sizeof(*out->items));
	out->len = 0;
	for (i = 0; i < n; i++) {
		struct acc *a = &accs[i];
		struct ui_docindex_result *r;

		if (!a->matched)
			continue; /* a page with blocks is always matched */
		sort_blocks(a->blocks, a->nblocks);
		r = &out->items[out->len++];
		r->title = ui_xstrdup(titles[i] != NULL ? titles[i] : "");
		r->path = paths[i];
		paths[i] = NULL;
		r->score = (a->missed ? 0 : a->score) +
			   (a->nblocks > 0 ? a->blocks[0].score : 0);
		r->href = a->nblocks > 0 && a->blocks[0].id[0] != '\0'
				  ? ui_xasprintf("%s#%s", r->path,
						 a->blocks[0].id)
				  : ui_xstrdup(r->path);
		r->blocks = a->blocks;
		r->nblocks = a->nblocks;
	}
	qsort(out->items, out->len, sizeof(*out->items), result_cmp);
	while (out->len > limit) {
		struct ui_docindex_result *r = &out->items[--out->len];
		size_t j;

		for (j = 0; j < r->nblocks; j++)
			block_dispose(&r->blocks[j]);
		free(r->blocks);
		free(r->title);
		free(r->path);
		free(r->href);
	}
	return out->len;
}

/* Sphinx ---------------------------------------------------------------------- */

/* Whether w[from..wlen) could be an ending Porter's stemmer strips. */
static int is_ending(const char *w, size_t from, size_t wlen)
{
	if (wlen - from > STEM_SUFFIX_MAX)
		return 0;
	for (; from < wlen; from++)
		if (w[from] < 'a' || w[from] > 'z')
			return 0;
	return 1;
}

/* 2: key is w; 1: key begins with w, or is a stem (at least STEM_MIN
 * long) of w; 0: no match. */
static int term_match(const char *key, const char *w, size_t wlen)
{
	size_t klen = strlen(key);

	if (klen == wlen && memcmp(key, w, wlen) == 0)
		return 2;
	if (klen > wlen && memcmp(key, w, wlen) == 0)
		return 1;
	if (klen >= STEM_MIN && klen < wlen && memcmp(key, w, klen) == 0 &&
	    is_ending(w, klen, wlen))
		return 1;
	return 0;
}

/* Raises best[doc] to score for each document a term's value (a document
 * number or a list of them) names. */
static void raise_docs(const cJSON *value, size_t ndocs, int score, int *best)
{
	const cJSON *d;

	if (cJSON_IsNumber(value)) {
		if (value->valuedouble >= 0 && value->valuedouble < (double)ndocs &&
		    best[value->valueint] < score)
			best[value->valueint] = score;
		return;
	}
	cJSON_ArrayForEach(d, value)
		raise_docs(d, ndocs, score, best);
}

static void score_terms(const cJSON *terms, const char *w, size_t wlen,
			size_t ndocs, int full, int partial, int *best)
{
	const cJSON *t;
	int m;

	cJSON_ArrayForEach(t, terms)
		if (t->string != NULL && (m = term_match(t->string, w, wlen)) > 0)
			raise_docs(t, ndocs, m == 2 ? full : partial, best);
}

static void sphinx_words(const struct ui_docindex *idx, const struct query *q,
			 struct acc *accs)
{
	int *best = ui_xcalloc(idx->ndocs + 1, sizeof(*best));
	size_t i, d;

	for (i = 0; i < q->n; i++) {
		memset(best, 0, (idx->ndocs + 1) * sizeof(*best));
		score_terms(idx->terms, q->words[i], q->len[i], idx->ndocs,
			    SCORE_TERM, SCORE_TERM_PARTIAL, best);
		score_terms(idx->titleterms, q->words[i], q->len[i], idx->ndocs,
			    SCORE_TITLE, SCORE_TITLE_PARTIAL, best);
		for (d = 0; d < idx->ndocs; d++) {
			if (best[d] == 0)
				accs[d].missed = 1;
			accs[d].score += best[d];
		}
	}
	for (d = 0; d < idx->ndocs; d++)
		if (!accs[d].missed)
			accs[d].matched = 1;
	free(best);
}

/* A whole number in a JSON array (document, type, priority), or -1 when
 * it is not one or is too large to be an index into the tables. */
static long item_long(const cJSON *array, int i)
{
	const cJSON *v = cJSON_GetArrayItem(array, i);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > (double)INT_MAX)
		return -1;
	return (long)v->valuedouble;
}

static const char *item_string(const cJSON *array, int i)
{
	const cJSON *v = cJSON_GetArrayItem(array, i);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One object: [doc, type, priority, anchor] with its name given apart
 * (Sphinx < 5.2 keys objects by name) or as a fifth item. */
static void sphinx_object(const struct ui_docindex *idx, const struct query *q,
			  const char *prefix, const char *name,
			  const cJSON *match, struct acc *accs)
{
	long doc = item_long(match, 0), type = item_long(match, 1);
	long prio = item_long(match, 2);
	const char *anchor = item_string(match, 3), *role, *last;
	char key[32], *full, *lfull, *id;
	const cJSON *objname;
	int score;

	if (name == NULL || anchor == NULL || doc < 0 ||
	    (size_t)doc >= idx->ndocs)
		return;
	full = prefix[0] != '\0' ? ui_xasprintf("%s.%s", prefix, name)
				 : ui_xstrdup(name);
	lfull = lower_dup(full);
	if (!contains_all(lfull, q))
		goto done;
	last = strrchr(lfull, '.');
	last = last != NULL ? last + 1 : lfull;
	score = q->n == 1 && (strcmp(lfull, q->words[0]) == 0 ||
			      strcmp(last, q->words[0]) == 0)
			? SCORE_OBJECT
			: SCORE_OBJECT_PARTIAL;
	if (prio >= 0 && prio < 3)
		score += object_priority[prio];
	snprintf(key, sizeof(key), "%ld", type);
	role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		idx->objtypes, key));
	objname = cJSON_GetObjectItemCaseSensitive(idx->objnames, key);
	/* Sphinx's anchor shorthands: "" is the full name, "-" the object
	 * type's name and the full name. */
	if (anchor[0] == '\0')
		id = ui_xstrdup(full);
	else if (strcmp(anchor, "-") == 0 && item_string(objname, 1) != NULL)
		id = ui_xasprintf("%s-%s", item_string(objname, 1), full);
	else
		id = ui_xstrdup(anchor);
	{
		struct ui_docindex_block *b =
			acc_block(&accs[doc], "domain", id, score);

		b->role = ui_xstrdup(role != NULL ? role : "");
		b->name = full;
		full = NULL;
	}
	free(id);
done:
	free(full);
	free(lfull);
}

static void sphinx_objects(const struct ui_docindex *idx,
			   const struct query *q, struct acc *accs)
{
	const cJSON *prefix, *o;

	cJSON_ArrayForEach(prefix, idx->objects) {
		const char *p = prefix->string != NULL ? prefix->string : "";

		if (cJSON_IsArray(prefix))
			cJSON_ArrayForEach(o, prefix)
				sphinx_object(idx, q, p, item_string(o, 4), o,
					      accs);
		else
			cJSON_ArrayForEach(o, prefix)
				sphinx_object(idx, q, p, o->string, o, accs);
	}
}

/* Section titles (Sphinx >= 5's "alltitles": title -> [[doc, anchor]]). */
static void sphinx_sections(const struct ui_docindex *idx,
			    const struct query *q, struct acc *accs)
{
	const cJSON *t, *where;

	cJSON_ArrayForEach(t, idx->alltitles) {
		char *ltitle;

		if (t->string == NULL)
			continue;
		ltitle = lower_dup(t->string);
		if (contains_all(ltitle, q))
			cJSON_ArrayForEach(where, t) {
				long doc = item_long(where, 0);
				struct ui_docindex_block *b;

				if (doc < 0 || (size_t)doc >= idx->ndocs)
					continue;
				b = acc_block(&accs[doc], "section",
					      item_string(where, 1), SCORE_TITLE);
				b->title = ui_xstrdup(t->string);
			}
		free(ltitle);
	}
}

static size_t sphinx_search(const struct ui_docindex *idx,
			    const struct query *q, size_t limit,
			    struct ui_docindex_results *out)
{
	struct acc *accs = ui_xcalloc(idx->ndocs + 1, sizeof(*accs));
	const char **titles = ui_xcalloc(idx->ndocs + 1, sizeof(*titles));
	char **paths = ui_xcalloc(idx->ndocs + 1, sizeof(*paths));
	size_t d, n;

	sphinx_words(idx, q, accs);
	sphinx_objects(idx, q, accs);
	sphinx_sections(idx, q, accs);
	for (d = 0; d < idx->ndocs; d++) {
		const char *name = item_string(idx->docnames, (int)d);

		titles[d] = item_string(idx->titles, (int)d);
		/* The html builder's pages; dirhtml's would be "name/".
		 * sphinx_load checked that every name is a string. */
		paths[d] = ui_xasprintf("%s.html", name != NULL ? name : "");
	}
	n = finish(accs, idx->ndocs, titles, paths, limit, out);
	for (d = 0; d < idx->ndocs; d++)
		free(paths[d]);
	free(paths);
	free(titles);
	free(accs);
	return n;
}

/* Takes Sphinx's tables out of the parsed index; -1 if it is not one. */
static int sphinx_load(struct ui_docindex *idx)
{
	const cJSON *root = idx->root;
	const cJSON *d;
	int i = 0;

	idx->docnames = cJSON_GetObjectItemCaseSensitive(root, "docnames");
	idx->titles = cJSON_GetObjectItemCaseSensitive(root, "titles");
	idx->terms = cJSON_GetObjectItemCaseSensitive(root, "terms");
	idx->titleterms = cJSON_GetObjectItemCaseSensitive(root, "titleterms");
	idx->objects = cJSON_GetObjectItemCaseSensitive(root, "objects");
	idx->objtypes = cJSON_GetObjectItemCaseSensitive(root, "objtypes");
	idx->objnames = cJSON_GetObjectItemCaseSensitive(root, "objnames");
	idx->alltitles = cJSON_GetObjectItemCaseSensitive(root, "alltitles");
	if (!cJSON_IsArray(idx->docnames) || !cJSON_IsArray(idx->titles) ||
	    !cJSON_IsObject(idx->terms) ||
	    cJSON_GetArraySize(idx->titles) != cJSON_GetArraySize(idx->docnames))
		return -1;
	cJSON_ArrayForEach(d, idx->docnames)
		if (!cJSON_IsString(d) || !cJSON_IsString(cJSON_GetArrayItem(
						  idx->titles, i++)))
			return -1;
	idx->ndocs = (size_t)cJSON_GetArraySize(idx->docnames);
	return 0;
}

/* MkDocs ---------------------------------------------------------------------- */

/* 15/7 for a title word hit/prefix, 5/2 for text; the best of the two. */
static int mk_word_score(const struct mk_entry *e, const char *w, size_t wlen)
{
	int exact = 0, score = 0;

	if (find_word(e->ltitle, w, wlen, &exact) != NULL)
		score = exact ? SCORE_TITLE : SCORE_TITLE_PARTIAL;
	if (score < SCORE_TERM && find_word(e->ltext, w, wlen, &exact) != NULL &&
	    (exact ? SCORE_TERM : SCORE_TERM_PARTIAL) > score)
		score = exact ? SCORE_TERM : SCORE_TERM_PARTIAL;
	return score;
}

/* The entry's score when every word matches it, else 0. */
static int mk_entry_score(const struct mk_entry *e, const struct query *q)
{
	int total = 0, s;
	size_t i;

	for (i = 0; i < q->n; i++) {
		if ((s = mk_word_score(e, q->words[i], q->len[i])) == 0)
			return 0;
		total += s;
	}
	return total;
}

/* Moves p back to the start of the UTF-8 character it is in. */
static size_t char_start(const char *s, size_t p)
{
	while (p > 0 && ((unsigned char)s[p] & 0xc0) == 0x80)
		p--;
	return p;
}

/* About SNIPPET_MAX bytes of the entry's text around the first word hit,
 * cut at spaces, with "…" where text was left out; NULL without text. */
static char *mk_snippet(const struct mk_entry *e, const struct query *q)
{
	size_t len = strlen(e->text), at = len, start, end, i;
	const char *hit;
	int exact;

	if (len == 0)
		return NULL;
	for (i = 0; i < q->n; i++)
		if ((hit = find_word(e->ltext, q->words[i], q->len[i],
				     &exact)) != NULL &&
		    (size_t)(hit - e->ltext) < at)
			at = (size_t)(hit - e->ltext);
	if (at == len)
		at = 0;
	start = at > SNIPPET_BEFORE ? at - SNIPPET_BEFORE : 0;
	if (start > 0) {
		while (start < at && e->text[start - 1] != ' ')
			start++;
	}
	end = start + SNIPPET_MAX < len ? start + SNIPPET_MAX : len;
	if (end < len) {
		size_t cut = end;

		while (cut > at && e->text[cut] != ' ')
			cut--;
		end = cut > at ? cut : char_start(e->text, end);
	}
	return ui_xasprintf("%s%.*s%s", start > 0 ? "…" : "",
			    (int)(end - start), e->text + start,
			    end < len ? "…" : "");
}

static size_t mkdocs_search(const struct ui_docindex *idx,
			    const struct query *q, size_t limit,
			    struct ui_docindex_results *out)
{
	struct acc *accs = ui_xcalloc(idx->npages + 1, sizeof(*accs));
	const char **titles = ui_xcalloc(idx->npages + 1, sizeof(*titles));
	char **paths = ui_xcalloc(idx->npages + 1, sizeof(*paths));
	size_t i, n;
	int s;

	for (i = 0; i < idx->nentries; i++) {
		const struct mk_entry *e = &idx->entries[i];
		struct acc *a = &accs[e->page];
		struct ui_docindex_block *b;

		if ((s = mk_entry_score(e, q)) == 0)
			continue;
		a->matched = 1;
		if (e->anchor == NULL) {
			if (s > a->score) {
				a->score = s;
				a->page_entry = e;
			}
			continue;
		}
		b = acc_block(a, "section", e->anchor, s);
		b->title = ui_xstrdup(e->title);
		b->content = mk_snippet(e, q);
	}
	for (i = 0; i < idx->npages; i++) {
		struct acc *a = &accs[i];

		/* Words found only across sections: the page's top. */
		if (a->nblocks == 0 && a->page_entry != NULL) {
			struct ui_docindex_block *b =
				acc_block(a, "section", "", a->score);

			b->title = ui_xstrdup(idx->pages[i].title);
			b->content = mk_snippet(a->page_entry, q);
		}
		if (a->nblocks > 0 && a->score > a->blocks[0].score)
			a->blocks[0].score = a->score;
		a->score = 0; /* the best block carries the page's score */
		titles[i] = idx->pages[i].title;
		paths[i] = ui_xstrdup(idx->pages[i].path);
	}
	n = finish(accs, idx->npages, titles, paths, limit, out);
	for (i = 0; i < idx->npages; i++)
		free(paths[i]);
	free(paths);
	free(titles);
	free(accs);
	return n;
}

/* The page an entry's location belongs to, added when new. */
static size_t mk_page_of(struct ui_docindex *idx, const char *location,
			 size_t plen)
{
	size_t i;

	for (i = idx->npages; i > 0; i--)
		if (strncmp(idx->pages[i - 1].path, location, plen) == 0 &&
		    idx->pages[i - 1].path[plen] == '\0')
			return i - 1;
	idx->pages = ui_xrealloc(idx->pages,
				 (idx->npages + 1) * sizeof(*idx->pages));
	idx->pages[idx->npages].path = ui_xstrndup(location, plen);
	idx->pages[idx->npages].title = NULL;
	return idx->npages++;
}

/* Reads MkDocs' "docs" entries; -1 if it is not such an index. */
static int mkdocs_load(struct ui_docindex *idx)
{
	const cJSON *docs = cJSON_GetObjectItemCaseSensitive(idx->root, "docs");
	const cJSON *d;
	size_t i;

	if (!cJSON_IsArray(docs))
		return -1;
	idx->entries = ui_xcalloc((size_t)cJSON_GetArraySize(docs) + 1,
				  sizeof(*idx->entries));
	cJSON_ArrayForEach(d, docs) {
		const char *loc = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(d, "location"));
		const char *title = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(d, "title"));
		const char *text = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(d, "text"));
		struct mk_entry *e = &idx->entries[idx->nentries];
		const char *hash;

		if (loc == NULL)
			return -1;
		hash = strchr(loc, '#');
		e->title = title != NULL ? title : "";
		e->text = text != NULL ? text : ""; /* indexing: titles */
		e->anchor = hash != NULL ? hash + 1 : NULL;
		e->ltitle = lower_dup(e->title);
		e->ltext = lower_dup(e->text);
		idx->nentries++;
		e->page = mk_page_of(idx, loc,
				     hash != NULL ? (size_t)(hash - loc)
						  : strlen(loc));
		if (e->anchor == NULL || idx->pages[e->page].title == NULL)
			idx->pages[e->page].title = e->title;
	}
	for (i = 0; i < idx->npages; i++)
		if (idx->pages[i].title == NULL)
			idx->pages[i].title = "";
	return 0;
}

/* Public API ------------------------------------------------------------------ */

void ui_docindex_free(struct ui_docindex *idx)
{
	size_t i;

	if (idx == NULL)
		return;
	for (i = 0; i < idx->nentries; i++) {
		free(idx->entries[i].ltitle);
		free(idx->entries[i].ltext);
	}
	for (i = 0; i < idx->npages; i++)
		free(idx->pages[i].path);
	free(idx->entries);
	free(idx->pages);
	cJSON_Delete(idx->root);
	free(idx);
}

static int is_ident(char c, int first)
{
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* Sphinx before 5.2 wrote its index with a JavaScript dumper of its own
 * that leaves keys which are identifiers unquoted ({docnames:[...]}):
 * this quotes them, so that the index is JSON. Owned by the caller. */
static char *quote_bare_keys(const char *s, size_t n, size_t *outlen)
{
	struct ui_buf b = UI_BUF_INIT;
	size_t i = 0, j, k;
	char prev = 0; /* the last character outside strings, not a space */

	while (i < n) {
		if (s[i] == '"') {
			for (j = i + 1; j < n && s[j] != '"';)
				j += s[j] == '\\' ? 2 : 1;
			j = j < n ? j + 1 : n;
			ui_buf_add(&b, s + i, j - i);
			prev = '"';
			i = j;
			continue;
		}
		if ((prev == '{' || prev == ',') && is_ident(s[i], 1)) {
			for (j = i; j < n && is_ident(s[j], 0); j++)
				;
			for (k = j; k < n && (s[k] == ' ' || s[k] == '\n'); k++)
				;
			if (k < n && s[k] == ':') {
				ui_buf_add(&b, "\"", 1);
				ui_buf_add(&b, s + i, j - i);
				ui_buf_add(&b, "\"", 1);
				prev = '"';
				i = j;
				continue;
			}
		}
		if (s[i] != ' ' && s[i] != '\n')
			prev = s[i];
		ui_buf_add(&b, s + i++, 1);
	}
	*outlen = b.len;
	return ui_buf_take(&b);
}

/* Parses Sphinx's JSON, or its older JavaScript form. */
static cJSON *sphinx_parse(const char *json, size_t n)
{
	cJSON *root = cJSON_ParseWithLength(json, n);
	char *quoted;
	size_t qlen;

	if (root != NULL)
		return root;
	quoted = quote_bare_keys(json, n, &qlen);
	root = cJSON_ParseWithLength(quoted, qlen);
	free(quoted);
	return root;
}

/* The JSON inside "Search.setIndex(...)" (with an optional ";" and
 * whitespace after), as [*start, *start + *n). */
static int sphinx_json(const char *data, size_t len, const char **start,
		       size_t *n)
{
	size_t end = len;

	while (end > 0 && (data[end - 1] == ';' || data[end - 1] == ' ' ||
			   data[end - 1] == '\n' || data[end - 1] == '\r' ||
			   data[end - 1] == '\t'))
		end--;
	if (end == 0 || data[end - 1] != ')')
		return -1;
	*start = data + strlen(sphinx_prefix);
	*n = end - 1 - strlen(sphinx_prefix);
	return 0;
}

int ui_docindex_parse(const char *data, size_t len, struct ui_docindex **out,
		      char *err, size_t errsize)
{
	struct ui_docindex *idx = NULL;
	const char *json;
	size_t n;
	int rc = -1;

	*out = NULL;
	if (len > UI_DOCINDEX_MAX_BYTES) {
		snprintf(err, errsize, "the search index is larger than %u bytes",
			 UI_DOCINDEX_MAX_BYTES);
		goto done;
	}
	while (len > 0 && (*data == ' ' || *data == '\n' || *data == '\r' ||
			   *data == '\t')) {
		data++;
		len--;
	}
	idx = ui_xcalloc(1, sizeof(*idx));
	if (len > strlen(sphinx_prefix) &&
	    memcmp(data, sphinx_prefix, strlen(sphinx_prefix)) == 0) {
		idx->format = UI_DOCINDEX_SPHINX;
		if (sphinx_json(data, len, &json, &n) < 0 ||
		    (idx->root = sphinx_parse(json, n)) == NULL ||
		    sphinx_load(idx) < 0) {
			snprintf(err, errsize, "not a Sphinx search index");
			goto done;
		}
	} else {
		idx->format = UI_DOCINDEX_MKDOCS;
		if ((idx->root = cJSON_ParseWithLength(data, len)) == NULL ||
		    mkdocs_load(idx) < 0) {
			snprintf(err, errsize,
				 "not a Sphinx or MkDocs search index");
			goto done;
		}
	}
	*out = idx;
	idx = NULL;
	rc = 0;
done:
	ui_docindex_free(idx);
	return rc;
}

enum ui_docindex_format ui_docindex_format(const struct ui_docindex *idx)
{
	return idx->format;
}

size_t ui_docindex_search(const struct ui_docindex *idx, const char *query,
			  size_t limit, struct ui_docindex_results *out)
{
	struct query q;

	out->items = NULL;
	out->len = 0;
	query_words(query, &q);
	if (q.n == 0)
		return 0;
	if (limit == 0 || limit > UI_DOCINDEX_MAX_RESULTS)
		limit = UI_DOCINDEX_MAX_RESULTS;
	return idx->format == UI_DOCINDEX_SPHINX
		       ? sphinx_search(idx, &q, limit, out)
		       : mkdocs_search(idx, &q, limit, out);
}

/* Sphinx's documents by name, its root first. */
static int sphinx_page_order(const void *a, const void *b)
{
	const struct ui_docindex_result *x = a, *y = b;
	int xr = strcmp(x->path, "index.html") == 0;
	int yr = strcmp(y->path, "index.html") == 0;

	return xr != yr ? yr - xr : strcmp(x->path, y->path);
}

size_t ui_docindex_pages(const struct ui_docindex *idx,
			 struct ui_docindex_results *out)
{
	size_t n = idx->format == UI_DOCINDEX_SPHINX ? idx->ndocs : idx->npages;
	size_t i;
	const char *name, *title;

	out->items = ui_xcalloc(n ? n : 1, sizeof(*out->items));
	out->len = n;
	for (i = 0; i < n; i++) {
		struct ui_docindex_result *r = &out->items[i];

		if (idx->format == UI_DOCINDEX_SPHINX) {
			name = item_string(idx->docnames, (int)i);
			title = item_string(idx->titles, (int)i);
			r->path = ui_xasprintf("%s.html", name ? name : "");
		} else {
			title = idx->pages[i].title;
			r->path = ui_xstrdup(idx->pages[i].path);
		}
		r->title = ui_xstrdup(title && *title ? title : r->path);
		r->href = ui_xstrdup(r->path);
	}
	if (idx->format == UI_DOCINDEX_SPHINX && n > 1)
		qsort(out->items, n, sizeof(*out->items), sphinx_page_order);
	return n;
}

void ui_docindex_results_dispose(struct ui_docindex_results *r)
{
	size_t i, j;

	for (i = 0; i < r->len; i++) {
		struct ui_docindex_result *x = &r->items[i];

		for (j = 0; j < x->nblocks; j++)
			block_dispose(&x->blocks[j]);
		free(x->blocks);
		free(x->title);
		free(x->path);
		free(x->href);
	}
	free(r->items);
	r->items = NULL;
	r->len = 0;
}
