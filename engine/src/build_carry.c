/*
 * The warnings an incremental Sphinx build carries over (build_warnings.h).
 * Sphinx rereads only the documents that changed when it keeps its
 * environment, rewrites only their pages (and those whose sources are
 * newer than their HTML), checks consistency only when it read any, and
 * warns only about what it did: a build that fixed nothing would lose the
 * warnings of everything else. So each record carries where it came from
 * (the phase of the run, read from Sphinx's status lines, and the document
 * it is about), a passed build keeps its records with that (a "kept"
 * state beside its doctrees), and the next build adds back each kept
 * record whose phase did not run for its document: a document not read
 * for a warning found while reading, a page not written for one found
 * while writing, a consistency check or a finish that did not run. The
 * phases that run every time (configuration, extensions, the look for
 * outdated files) are never carried.
 *
 * Sphinx prints a phase's warnings after it has processed all its
 * documents, in the order it processed them. A record about a document
 * it processed is that document's; the others (a file included into a
 * page, a docstring's module, none at all: autodoc's failed imports) lie
 * between their neighbours' documents, and the quoted names of their
 * message (or the included file's name) usually narrow that to the one
 * page that names them. When they do not, the next build reads (or
 * writes) those documents again, so that Sphinx says it again instead of
 * Lectern guessing. A record removed with its document goes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "build_warnings.h"
#include "files.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The version of the kept state's format: a state of another is none. */
#define KEPT_FORMAT 1
/* Bytes of a kept state read back: LEC_WARNINGS_MAX records of the
 * longest kind, with room for JSON's escapes, and the documents. */
#define KEPT_FILE_MAX                                                        \
	((size_t)LEC_WARNINGS_MAX *                                          \
		 (6 * (LEC_WARNING_MESSAGE_MAX + 2 * LEC_WARNING_FILE_MAX) + \
		  128) +                                                     \
	 (size_t)16 * 1024 * 1024)
/* Bytes of one document's source looked through for a record's names:
 * a page, not a data file. */
#define SOURCE_MAX ((size_t)4 * 1024 * 1024)
/* Bytes of one document's doctree looked through for where a record came
 * from: a large API page's pickle, not a data file. */
#define DOCTREE_MAX ((size_t)32 * 1024 * 1024)
/* Bytes of sources looked through for one build's records: past this,
 * documents are read again rather than searched. */
#define SOURCES_TOTAL_MAX ((size_t)64 * 1024 * 1024)
/* Bytes searched for names in one build (records times documents):
 * past this, the documents a record could be from are read again. */
#define SEARCH_BUDGET ((size_t)512 * 1024 * 1024)
/* Rounds of guesses, each between the neighbours the last one tied. */
#define GUESS_ROUNDS 4
/* Shortest quoted name worth looking for ('x' is in every page). */
#define NAME_MIN 3

/* Names ------------------------------------------------------------------ */

int lec__names_add(struct lec__names *n, const char *name)
{
	char *copy;

	if (lec__grow((void **)&n->items, &n->cap, n->len,
		      sizeof(*n->items), 16) < 0)
		return LEC_ENOMEM;
	copy = lec__strdup(name);
	LEC__CHECK_ALLOC(copy);
	n->items[n->len++] = copy;
	return LEC_OK;
}

long lec__names_find(const struct lec__names *n, const char *name)
{
	size_t i;

	for (i = 0; name && i < n->len; i++)
		if (strcmp(n->items[i], name) == 0)
			return (long)i;
	return -1;
}

void lec__names_dispose(struct lec__names *n)
{
	if (n == NULL)
		return;
	lec__strings_free(n->items, n->len);
	memset(n, 0, sizeof(*n));
}

static void names_add_new(struct lec__names *n, const char *name)
{
	if (lec__names_find(n, name) < 0)
		lec__names_add(n, name);
}

void lec__sphinx_trace_dispose(struct lec__sphinx_trace *t)
{
	if (t == NULL)
		return;
	lec__names_dispose(&t->read);
	lec__names_dispose(&t->written);
	memset(t, 0, sizeof(*t));
}

void lec__sphinx_kept_dispose(struct lec__sphinx_kept *k)
{
	if (k == NULL)
		return;
	lec_warning_set_dispose(&k->records);
	lec__names_dispose(&k->reread);
	lec__names_dispose(&k->rewrite);
}

/* Documents ----------------------------------------------------------------- */

/* Whether a document name Sphinx printed can name a file below srcdir: no
 * climbing, not absolute, no empty segment. */
static int safe_doc(const char *doc)
{
	const char *s = doc;

	if (doc == NULL || doc[0] == '\0' || doc[0] == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (*s == '/')
			s++;
		else
			break;
	}
	return doc[strlen(doc) - 1] != '/';
}

/* The page a record's file is, relative to the source directory and
 * without its suffix ("usage/install"); NULL when it is no page there
 * (absolute, climbing out, outside srcdir, no suffix). Owned. */
static char *docname_of(const char *srcdir, const char *file)
{
	size_t s = strlen(srcdir);
	const char *rel = file, *dot, *slash;

	if (file[0] == '/' || strstr(file, "..") || file[0] == '\0')
		return NULL;
	if (s > 0) {
		if (strncmp(file, srcdir, s) != 0 || file[s] != '/')
			return NULL;
		rel = file + s + 1;
	}
	dot = strrchr(rel, '.');
	slash = strrchr(rel, '/');
	if (dot == NULL || dot == rel || (slash && dot < slash) ||
	    (slash && dot == slash + 1))
		return NULL;
	return lec__strndup(rel, (size_t)(dot - rel));
}

/* The source of document doc, relative to the tree: the regular file of
 * its directory (below srcdir) named doc's last part and a suffix. Owned;
 * NULL when there is none (the document went). */
static char *doc_source(const struct lec__sphinx_run *run, const char *doc)
{
	const char *slash = strrchr(doc, '/'), *base = slash ? slash + 1 : doc;
	size_t blen = strlen(base);
	struct lec__buf b = LEC__BUF_INIT;
	char *dir, *found = NULL;
	struct dirent *e;
	DIR *d;
	int fd;

	if (!safe_doc(doc))
		return NULL;
	lec__buf_printf(&b, "%s%s%.*s", run->srcdir, *run->srcdir ? "/" : "",
			slash ? (int)(slash - doc) : 0, doc);
	if ((dir = lec__buf_take(&b)) == NULL)
		return NULL;
	if (lec__open_in(run->root, *dir ? dir : ".", LEC__OPEN_DIR, &fd) ==
		    LEC_OK &&
	    (d = fdopendir(fd)) != NULL) {
		while (found == NULL && (e = readdir(d)) != NULL) {
			struct stat sb;

			if (strncmp(e->d_name, base, blen) != 0 ||
			    e->d_name[blen] != '.' || e->d_name[blen + 1] == '\0' ||
			    strchr(e->d_name + blen + 1, '.') ||
			    fstatat(dirfd(d), e->d_name, &sb,
				    AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISREG(sb.st_mode))
				continue;
			lec__buf_printf(&b, "%s%s%s", dir, *dir ? "/" : "",
					e->d_name);
			found = lec__buf_take(&b);
		}
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	lec_error_clear();
	lec__free(dir);
	return found;
}

/* Before the run -------------------------------------------------------------- */

static void force_one(const char *dir, const char *doc, const char *suffix)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *rel;

	if (!safe_doc(doc))
		return;
	lec__buf_printf(&b, "%s%s", doc, suffix);
	if ((rel = lec__buf_take(&b)) != NULL)
		lec__remove_beneath(dir, rel);
	lec__free(rel);
	lec_error_clear();
}

void lec__sphinx_force(const struct lec__sphinx_kept *prev,
		       const struct lec__sphinx_run *run)
{
	size_t i;

	for (i = 0; i < prev->reread.len; i++)
		force_one(run->doctrees, prev->reread.items[i], ".doctree");
	for (i = 0; run->html && i < prev->rewrite.len; i++)
		force_one(run->html, prev->rewrite.items[i],
			  run->dirhtml ? "/index.html" : ".html");
}

/* Carrying ------------------------------------------------------------------- */

static int ran(const struct lec__sphinx_trace *t, enum lec__sphinx_phase p)
{
	return (t->ran & (1u << p)) != 0;
}

/* Whether a kept record's phase did not run for it this time, and its
 * document is still there. */
static int still_holds(const struct lec_warning *w,
		       const struct lec__sphinx_trace *t,
		       const struct lec__sphinx_run *run)
{
	unsigned phase = w->phase;
	char *src, *doc;
	int keep;

	switch (phase) {
	case LEC__PHASE_READ:
		keep = w->doc && lec__names_find(&t->read, w->doc) < 0;
		break;
	case LEC__PHASE_WRITE:
		keep = ran(t, LEC__PHASE_WRITE)
			       ? w->doc && lec__names_find(&t->written, w->doc) < 0 &&
					 lec__names_find(&t->read, w->doc) < 0
			       : 1;
		break;
	case LEC__PHASE_CONSISTENCY:
	case LEC__PHASE_PREPARE:
	case LEC__PHASE_FINISH:
		keep = !ran(t, (enum lec__sphinx_phase)phase) &&
		       !(phase == LEC__PHASE_PREPARE && ran(t, LEC__PHASE_WRITE));
		break;
	default:
		return 0;
	}
	if (!keep)
		return 0;
	/* The document it is about must be there still (Sphinx checks no
	 * consistency when a document was only removed). */
	doc = w->doc ? NULL : docname_of(run->srcdir, w->file);
	src = w->doc || doc ? doc_source(run, w->doc ? w->doc : doc) : NULL;
	keep = (w->doc == NULL && doc == NULL) || src != NULL;
	lec__free(doc);
	lec__free(src);
	return keep;
}

static void add_record(struct lec_warning_set *set, const struct lec_warning *w)
{
	size_t at = set->len;

	lec_warning_set_add(set, w->kind, w->file, w->line, w->message);
	if (set->len > at) {
		set->items[at].phase = w->phase;
		set->items[at].doc = w->doc ? lec__strdup(w->doc) : NULL;
	}
}

/* A document's file, read once when a record needs it. */
struct cached {
	char *text; /* NULL until read, or when it could not be */
	size_t len;
	int tried;
};

/* The sources and doctrees of one phase's documents, read once when a
 * record needs them. */
struct sources {
	const struct lec__sphinx_run *run;
	const struct lec__names *docs;
	struct cached *source; /* per document: its source */
	struct cached *tree;   /* per document: its doctree */
	size_t total;    /* bytes read so far */
	size_t searched; /* bytes searched so far (SEARCH_BUDGET) */
};

/* Read rel (owned; NULL: none) below dir into c, at most max bytes; a
 * file that cannot be read is no text. */
static const char *read_cached(struct sources *s, struct cached *c,
			       const char *dir, char *rel, size_t max)
{
	c->tried = 1;
	if (rel && lec__read_in(dir, rel, max, &c->text, &c->len) < 0) {
		c->text = NULL;
		c->len = 0;
		lec_error_clear();
	}
	s->total += c->len;
	lec__free(rel);
	return c->text;
}

static const char *source_text(struct sources *s, size_t i)
{
	struct cached *c = &s->source[i];

	if (c->tried || s->total >= SOURCES_TOTAL_MAX)
		return c->text;
	return read_cached(s, c, s->run->root,
			   doc_source(s->run, s->docs->items[i]), SOURCE_MAX);
}

static const char *doctree_text(struct sources *s, size_t i)
{
	struct cached *c = &s->tree[i];
	const char *doc = s->docs->items[i];
	struct lec__buf rel = LEC__BUF_INIT;

	if (c->tried || s->total >= SOURCES_TOTAL_MAX)
		return c->text;
	if (safe_doc(doc))
		lec__buf_printf(&rel, "%s.doctree", doc);
	return read_cached(s, c, s->run->doctrees, lec__buf_take(&rel),
			   DOCTREE_MAX);
}

/* Where Sphinx itself says a record came from: the doctree of the one
 * document among [lo, hi] whose nodes name its source, the
 * "<module>:docstring of <object>" an autodoc directive put there or the
 * included file's path; -1 when none or several do, or one could not be
 * read. A page that only mentions the object (a cross-reference, its
 * name in prose) holds no such source, as it would hold the names. */
static long doctree_document(struct sources *s, const struct lec_warning *w,
			     size_t lo, size_t hi)
{
	struct lec__buf key = LEC__BUF_INIT;
	const char *m = w->message, *text;
	char *k;
	long found = -1;
	size_t i;

	if (strncmp(m, "docstring of ", 13) == 0)
		lec__buf_printf(&key, ":docstring of %.*s",
				(int)strcspn(m + 13, ",: \n"), m + 13);
	else if (w->file[0])
		lec__buf_printf(&key, "%s/%s", s->run->root, w->file);
	if ((k = lec__buf_take(&key)) == NULL)
		return -1;
	for (i = lo; *k && i <= hi; i++) {
		if (s->searched >= SEARCH_BUDGET ||
		    (text = doctree_text(s, i)) == NULL) {
			found = -1;
			break;
		}
		s->searched += s->tree[i].len;
		if (!memmem(text, s->tree[i].len, k, strlen(k)))
			continue;
		if (found >= 0) {
			found = -1;
			break;
		}
		found = (long)i;
	}
	lec__free(k);
	return found;
}

/* How many documents of [lo, hi] hold name (n bytes), the first in
 * *which. Unread sources count as holding it (nothing is ruled out). */
static size_t holders(struct sources *s, size_t lo, size_t hi,
		      const char *name, size_t n, size_t *which)
{
	size_t i, count = 0;

	for (i = lo; i <= hi; i++) {
		const char *text = s->searched < SEARCH_BUDGET ? source_text(s, i)
							       : NULL;

		if (text)
			s->searched += s->source[i].len;
		if (text == NULL || memmem(text, s->source[i].len, name, n)) {
			if (count++ == 0)
				*which = i;
		}
	}
	return count;
}

/* What the names looked for so far say: the fewest documents holding
 * one (0: none held any), and the document when that is one. */
struct guess {
	size_t fewest;
	long doc;
};

static void consider(struct sources *s, size_t lo, size_t hi,
		     const char *name, size_t n, struct guess *g)
{
	size_t count, which = 0;

	if (n < NAME_MIN ||
	    (count = holders(s, lo, hi, name, n, &which)) == 0 ||
	    (g->fewest != 0 && count >= g->fewest))
		return;
	g->fewest = count;
	g->doc = count == 1 ? (long)which : -1;
}

/* A dotted name ("websupport.WebSupport.build") and the shorter ones a
 * page may write instead, under a module or class it set already
 * ("WebSupport.build") or naming its module ("websupport.WebSupport"). */
static void consider_dotted(struct sources *s, size_t lo, size_t hi,
			    const char *name, size_t n, struct guess *g)
{
	const char *dot;
	size_t k;

	consider(s, lo, hi, name, n, g);
	for (k = 0; k < n; k++)
		if (name[k] == '.' && k + 1 < n &&
		    memchr(name + k + 1, '.', n - k - 1))
			consider(s, lo, hi, name + k + 1, n - k - 1, g);
	for (k = n; (dot = memrchr(name, '.', k)) != NULL;) {
		k = (size_t)(dot - name);
		consider(s, lo, hi, name, k, g);
	}
}

/* The names a record quotes ('x', "x"), the object of a docstring's
 * record, and its file's name when that is no processed document (an
 * included file): the document among [lo, hi] that is alone in holding
 * one of them, or -1; *fewest as struct guess's. */
static long guess_document(struct sources *s, const struct lec_warning *w,
			   size_t lo, size_t hi, size_t *fewest)
{
	struct guess g = { 0, -1 };
	const char *m = w->message, *slash;

	while ((m = strpbrk(m, "'\"")) != NULL) {
		const char *end = strchr(m + 1, *m);

		if (end == NULL)
			break;
		if (memchr(m + 1, '\n', (size_t)(end - m - 1)) == NULL)
			consider_dotted(s, lo, hi, m + 1, (size_t)(end - m - 1),
					&g);
		m = end + 1;
	}
	/* "docstring of pkg.mod.f, line 3: ...": as an autodoc directive
	 * names the object. */
	if (strncmp(w->message, "docstring of ", 13) == 0)
		consider_dotted(s, lo, hi, w->message + 13,
				strcspn(w->message + 13, ",: \n"), &g);
	if (w->file[0]) {
		slash = strrchr(w->file, '/');
		consider(s, lo, hi, slash ? slash + 1 : w->file,
			 strlen(slash ? slash + 1 : w->file), &g);
	}
	*fewest = g.fewest;
	return g.doc;
}

static int same_record(const struct lec_warning *a, const struct lec_warning *b)
{
	return a->kind == b->kind && a->line == b->line &&
	       strcmp(a->file, b->file) == 0 &&
	       strcmp(a->message, b->message) == 0;
}

/* A record about one document said once for every document processed (a
 * toctree entry without a title, found again in each page's navigation
 * while it is written): the i-th time is the i-th document's. pos (-2:
 * another phase) gets their places. */
static void tie_per_document(const struct lec_warning_set *set, size_t n,
			     long *pos, const struct lec__names *docs,
			     const struct lec__sphinx_run *run)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		const struct lec_warning *w = &set->items[i];
		char *doc;
		int first = 1;

		if (pos[i] == -2 || docs->len == 0)
			continue;
		for (j = 0, k = 0; j < n; j++)
			if (pos[j] != -2 && same_record(w, &set->items[j])) {
				first &= j >= i;
				k++;
			}
		if (!first || k != docs->len)
			continue;
		doc = docname_of(run->srcdir, w->file);
		/* Once with one document processed: only when it is about
		 * another one. */
		if (doc && (k > 1 || strcmp(doc, docs->items[0]) != 0))
			for (j = i, k = 0; j < n; j++)
				if (pos[j] != -2 && same_record(w, &set->items[j]))
					pos[j] = (long)k++;
		lec__free(doc);
	}
}

/* The places of record i's nearest tied neighbours in its phase (pos:
 * -2 another phase, -1 not tied): the documents it lies between, all of
 * them when it has none; 0 when they leave it none. */
static int neighbours(const long *pos, size_t n, size_t i, size_t ndocs,
		      size_t *lo, size_t *hi)
{
	size_t j;

	*lo = 0;
	*hi = ndocs - 1;
	for (j = i; j-- > 0;)
		if (pos[j] >= 0) {
			*lo = (size_t)pos[j];
			break;
		}
	for (j = i + 1; j < n; j++)
		if (pos[j] >= 0) {
			*hi = (size_t)pos[j];
			break;
		}
	return *lo <= *hi;
}

/* Tie each of set's first n records of one per-document phase to its
 * document among docs (the order Sphinx processed them in): its file's
 * when that document was processed and comes in order, else the one its
 * quoted names single out; what stays untied puts the documents it could
 * be from into again (read or written again next time). */
static void tie_records(struct lec_warning_set *set, size_t n,
			enum lec__sphinx_phase phase,
			const struct lec__names *docs,
			const struct lec__sphinx_run *run,
			struct lec__names *again)
{
	struct sources s = { run, docs, NULL, NULL, 0, 0 };
	long *pos = n ? lec__calloc(n, sizeof(*pos)) : NULL;
	long last = -1;
	size_t i, j, round;
	int guessed;

	if (n == 0 || pos == NULL)
		goto done;
	for (i = 0; i < n; i++) {
		struct lec_warning *w = &set->items[i];
		char *doc;

		pos[i] = -2; /* another phase */
		if (w->phase != phase)
			continue;
		doc = docname_of(run->srcdir, w->file);
		pos[i] = doc ? lec__names_find(docs, doc) : -1;
		lec__free(doc);
	}
	tie_per_document(set, n, pos, docs, run);
	for (i = 0; i < n; i++) {
		/* Out of order: found while processing another document (a
		 * page included into an earlier one). */
		if (pos[i] >= 0 && pos[i] < last)
			pos[i] = -1;
		if (pos[i] >= 0)
			last = pos[i];
	}
	if (docs->len &&
	    ((s.source = lec__calloc(docs->len, sizeof(*s.source))) == NULL ||
	     (s.tree = lec__calloc(docs->len, sizeof(*s.tree))) == NULL))
		goto done;
	/* What Sphinx's doctrees say first: a source only one page holds. */
	for (i = 0; docs->len && i < n; i++) {
		size_t lo, hi;

		if (pos[i] == -1 &&
		    neighbours(pos, n, i, docs->len, &lo, &hi))
			pos[i] = doctree_document(&s, &set->items[i], lo, hi);
	}
	/* What a record's names single out between its neighbours, which
	 * each round's guesses bring closer. */
	for (round = 0, guessed = 1; round < GUESS_ROUNDS && guessed; round++) {
		guessed = 0;
		for (i = 0; docs->len && i < n; i++) {
			size_t lo, hi, fewest;
			long guess;

			if (pos[i] != -1 || !neighbours(pos, n, i, docs->len,
							&lo, &hi))
				continue;
			guess = guess_document(&s, &set->items[i], lo, hi,
					       &fewest);
			if (guess >= 0) {
				pos[i] = guess;
				guessed = 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		struct lec_warning *w = &set->items[i];
		size_t lo, hi, fewest, which = 0;

		if (pos[i] >= 0) {
			w->doc = lec__strdup(docs->items[pos[i]]);
			continue;
		}
		if (pos[i] == -2 || docs->len == 0 ||
		    !neighbours(pos, n, i, docs->len, &lo, &hi))
			continue;
		guess_document(&s, w, lo, hi, &fewest);
		for (j = lo; j <= hi; j++)
			if (fewest == 0 || source_text(&s, j) == NULL ||
			    guess_document(&s, w, j, j, &which) >= 0)
				names_add_new(again, docs->items[j]);
	}
done:
	for (i = 0; s.source && i < docs->len; i++)
		lec__free(s.source[i].text);
	for (i = 0; s.tree && i < docs->len; i++)
		lec__free(s.tree[i].text);
	lec__free(s.source);
	lec__free(s.tree);
	lec__free(pos);
}

/* A record's place in the order Sphinx prints them: by phase, then by
 * document (it processes them in sorted order), then as found. */
struct place {
	unsigned phase;
	const char *doc; /* its own, or the one before it in its phase */
	size_t seq;
};

static int place_cmp(const void *a, const void *b)
{
	const struct place *x = a, *y = b;
	int c;

	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x->doc != y->doc) {
		if (x->doc == NULL || y->doc == NULL)
			return x->doc == NULL ? -1 : 1;
		if ((c = strcmp(x->doc, y->doc)) != 0)
			return c;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Put the records where a build that read everything would have them,
 * so that what was carried over does not come last. */
static void sort_records(struct lec_warning_set *set)
{
	struct place *at = set->len ? lec__calloc(set->len, sizeof(*at)) : NULL;
	struct lec_warning *sorted =
		set->len ? lec__calloc(set->len, sizeof(*sorted)) : NULL;
	const char *doc = NULL;
	unsigned phase = LEC__PHASES;
	size_t i;

	if (at == NULL || sorted == NULL)
		goto done;
	for (i = 0; i < set->len; i++) {
		at[i].phase = set->items[i].phase;
		if (at[i].phase != phase)
			doc = NULL;
		phase = at[i].phase;
		if (set->items[i].doc)
			doc = set->items[i].doc;
		at[i].doc = doc;
		at[i].seq = i;
	}
	qsort(at, set->len, sizeof(*at), place_cmp);
	for (i = 0; i < set->len; i++)
		sorted[i] = set->items[at[i].seq];
	memcpy(set->items, sorted, set->len * sizeof(*sorted));
done:
	lec__free(at);
	lec__free(sorted);
}

int lec__sphinx_carry(struct lec_warning_set *set,
		      const struct lec__sphinx_trace *trace,
		      const struct lec__sphinx_kept *prev,
		      const struct lec__sphinx_run *run,
		      struct lec__sphinx_kept *next)
{
	size_t fresh = set->len, i;

	if (!ran(trace, LEC__PHASE_READ))
		return LEC_ERROR;
	tie_records(set, fresh, LEC__PHASE_READ, &trace->read, run,
		    &next->reread);
	tie_records(set, fresh, LEC__PHASE_WRITE, &trace->written, run,
		    &next->rewrite);
	for (i = 0; prev && i < prev->records.len; i++) {
		const struct lec_warning *w = &prev->records.items[i];

		if (!still_holds(w, trace, run))
			continue;
		add_record(set, w);
	}
	sort_records(set);
	for (i = 0; i < set->len; i++)
		if (set->items[i].kind <= LEC_WARNING_CRITICAL)
			add_record(&next->records, &set->items[i]);
	next->records.dropped = set->dropped;
	return LEC_OK;
}

/* The kept state ------------------------------------------------------------ */

static cJSON *names_json(const struct lec__names *n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < n->len; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(n->items[i]));
	return a;
}

int lec__sphinx_kept_save(const struct lec__sphinx_kept *k, const char *path)
{
	cJSON *root = cJSON_CreateObject(), *list;
	char *text = NULL;
	int error;
	size_t i;

	list = root ? cJSON_AddArrayToObject(root, "records") : NULL;
	for (i = 0; list && i < k->records.len; i++) {
		const struct lec_warning *w = &k->records.items[i];
		cJSON *o = lec__warning_record_json(list, w);

		cJSON_AddNumberToObject(o, "phase", w->phase);
		if (w->doc)
			cJSON_AddStringToObject(o, "doc", w->doc);
	}
	if (list) {
		cJSON_AddNumberToObject(root, "format", KEPT_FORMAT);
		cJSON_AddNumberToObject(root, "dropped",
					(double)k->records.dropped);
		cJSON_AddItemToObject(root, "reread", names_json(&k->reread));
		cJSON_AddItemToObject(root, "rewrite", names_json(&k->rewrite));
		text = cJSON_PrintUnformatted(root);
	}
	cJSON_Delete(root);
	error = text ? lec__file_replace(path, text, strlen(text))
		     : lec__error_oom();
	cJSON_free(text);
	return error;
}

static int names_load(const cJSON *a, struct lec__names *out)
{
	const cJSON *item;

	if (!cJSON_IsArray(a))
		return LEC_EINVALID;
	cJSON_ArrayForEach(item, a)
	{
		if (!cJSON_IsString(item) || !safe_doc(item->valuestring))
			return LEC_EINVALID;
		if (lec__names_add(out, item->valuestring) < 0)
			return LEC_ENOMEM;
	}
	return LEC_OK;
}

cJSON *lec__warning_record_json(cJSON *list, const struct lec_warning *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToArray(list, o);
	cJSON_AddStringToObject(o, "kind", lec_warning_kind_code(w->kind));
	cJSON_AddStringToObject(o, "file", w->file);
	cJSON_AddNumberToObject(o, "line", w->line);
	cJSON_AddStringToObject(o, "message", w->message);
	return o;
}

int lec__warning_record_read(const cJSON *item, struct lec_warning *w)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(item, "kind");
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(item, "file");
	const cJSON *line = cJSON_GetObjectItemCaseSensitive(item, "line");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(item, "message");

	if (!cJSON_IsString(kind) || !cJSON_IsString(file) ||
	    !cJSON_IsNumber(line) || !cJSON_IsString(msg) ||
	    lec_warning_kind_lookup(kind->valuestring, &w->kind) < 0 ||
	    line->valuedouble < 0 || line->valuedouble > 1e9)
		return LEC_EINVALID;
	w->file = file->valuestring;
	w->line = (unsigned)line->valuedouble;
	w->message = msg->valuestring;
	return LEC_OK;
}

static int record_load(const cJSON *item, struct lec_warning_set *set)
{
	const cJSON *phase = cJSON_GetObjectItemCaseSensitive(item, "phase");
	const cJSON *doc = cJSON_GetObjectItemCaseSensitive(item, "doc");
	struct lec_warning w = { 0 };

	if (lec__warning_record_read(item, &w) < 0 ||
	    w.kind > LEC_WARNING_CRITICAL || !cJSON_IsNumber(phase) ||
	    phase->valuedouble < 0 || phase->valuedouble >= LEC__PHASES ||
	    (doc && (!cJSON_IsString(doc) || !safe_doc(doc->valuestring)))) {
		lec_error_clear();
		return LEC_EINVALID;
	}
	w.phase = (unsigned)phase->valuedouble;
	w.doc = doc ? doc->valuestring : NULL;
	add_record(set, &w);
	return LEC_OK;
}

int lec__sphinx_kept_load(const char *path, struct lec__sphinx_kept *out)
{
	char *text = NULL, *dir = lec__strdup(path), *slash;
	const cJSON *item, *format, *dropped;
	cJSON *root = NULL;
	size_t len = 0;
	int error;

	memset(out, 0, sizeof(*out));
	LEC__CHECK_ALLOC(dir);
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		lec__free(dir);
		return lec__error(LEC_EINVALID, "%s: not an absolute path", path);
	}
	*slash = '\0';
	error = lec__read_in(*dir ? dir : "/", slash + 1, KEPT_FILE_MAX, &text,
			     &len);
	lec__free(dir);
	if (error < 0)
		return error;
	root = cJSON_ParseWithLength(text, len);
	lec__free(text);
	format = cJSON_GetObjectItemCaseSensitive(root, "format");
	dropped = cJSON_GetObjectItemCaseSensitive(root, "dropped");
	error = cJSON_IsNumber(format) && format->valuedouble == KEPT_FORMAT &&
			cJSON_IsNumber(dropped) && dropped->valuedouble == 0 &&
			cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root,
								       "records"))
		? LEC_OK
		: LEC_EINVALID;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "records"))
	{
		if (error == LEC_OK)
			error = record_load(item, &out->records);
	}
	if (error == LEC_OK)
		error = names_load(cJSON_GetObjectItemCaseSensitive(root, "reread"),
				   &out->reread);
	if (error == LEC_OK)
		error = names_load(cJSON_GetObjectItemCaseSensitive(root, "rewrite"),
				   &out->rewrite);
	cJSON_Delete(root);
	if (error == LEC_OK && out->records.dropped)
		error = LEC_EINVALID;
	if (error < 0) {
		lec__sphinx_kept_dispose(out);
		return error == LEC_ENOMEM
			       ? lec__error_oom()
			       : lec__error(LEC_EINVALID, "%s: not a state "
							  "this Lectern kept",
					    path);
	}
	return LEC_OK;
}
