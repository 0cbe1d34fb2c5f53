/*
 * Search benchmark (issue 6), the in-process half of bench/search.sh:
 *
 *   bench_search index DATA_DIR HTML_DIR [PROJECT]
 *                                          index HTML_DIR as the version
 *                                          "latest" of PROJECT (default
 *                                          "python") in the store of
 *                                          DATA_DIR; prints seconds, pages,
 *                                          entries
 *   bench_search query DATA_DIR [REPS [PROJECT]]
 *                                          the 20 fixed queries, top 10 with
 *                                          highlights, REPS times each, in
 *                                          PROJECT (default "python");
 *                                          prints p50 (median of per-query
 *                                          medians), p99 (all runs) and
 *                                          the median of the first runs
 *   bench_search queries                   print the 20 queries, one a line
 *   bench_search distinct DATA_DIR PROJECT each "kind<TAB>query" line of
 *                                          stdin asked once, in order, top
 *                                          10 with highlights: p50, p99
 *                                          and max over all, p50 per kind
 *   bench_search rank DATA_DIR PROJECT     for each query read from stdin
 *                                          (one a line), its top 10 as
 *                                          "N<TAB>rank<TAB>path<TAB>anchor"
 *                                          lines (N counts queries from 1,
 *                                          anchor is the best block's id);
 *                                          what bench/relevance.sh judges
 *   bench_search synth DATA_DIR SECTIONS   a synthetic index of SECTIONS
 *                                          sections (20 per page) in
 *                                          project "synth", then the same
 *                                          queries against it, then
 *                                          SYNTH_DISTINCT distinct ones
 *                                          (synth_distinct_* lines)
 *
 * Output lines are "key value" pairs that search.sh reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lectern/lectern.h"

/* The anchor's 20 queries (bench-anchors.md). */
static const char *const queries[] = {
	"asyncio event loop",	   "dict comprehension",
	"subprocess timeout",	   "unicode normalization",
	"json dumps indent",	   "regular expression lookahead",
	"thread pool executor",	   "context manager with statement",
	"pathlib glob pattern",	   "datetime timezone aware",
	"f-string formatting",	   "exception chaining",
	"dataclass field default", "socket timeout",
	"sqlite3 cursor execute",  "logging handler formatter",
	"argparse subcommands",	   "functools wraps decorator",
	"generator yield from",	   "typing generic type hints",
};
#define NQUERIES (sizeof(queries) / sizeof(queries[0]))

/* Runs of each query when none is given. */
#define DEFAULT_REPS 50
/* Sections per synthetic page and words per synthetic section. */
#define SYNTH_SECTIONS_PER_PAGE 20
#define SYNTH_WORDS 60
/* Distinct filler words of the synthetic text. */
#define SYNTH_VOCABULARY 5000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int fail(const char *what)
{
	fprintf(stderr, "bench_search: %s: %s\n", what, lec_error_last());
	return 1;
}

/* The project's "latest" version, creating the project when missing. */
static int version_of(struct lec_store *st, const char *name, int64_t *id)
{
	struct lec_project_new in = { 0 };
	struct lec_project *p = NULL;
	struct lec_version *v = NULL;
	int rc;

	in.name = name;
	in.repo_url = "https://example.org/bench.git";
	rc = lec_project_get(st, name, &p);
	if (rc == LEC_ENOTFOUND)
		rc = lec_project_create(st, &in, 0, &p);
	if (rc == LEC_OK)
		rc = lec_version_get(st, p->id, "latest", &v);
	if (rc == LEC_OK)
		*id = v->id;
	lec_version_free(v);
	lec_project_free(p);
	return rc;
}

static int run_queries(struct lec_store *st, int64_t version, int reps)
{
	double *all = calloc(NQUERIES * (size_t)reps, sizeof(double));
	double medians[NQUERIES], firsts[NQUERIES], *runs;
	size_t q, total = 0;
	int r;

	if (all == NULL)
		return 1;
	for (q = 0; q < NQUERIES; q++) {
		struct lec_search_request req = { queries[q], &version, 1, 1,
						  10 };
		struct lec_search_results res;

		runs = all + q * (size_t)reps;
		for (r = 0; r < reps; r++) {
			double t0 = now_s();

			if (lec_search_query(st, &req, &res) < 0) {
				free(all);
				return fail(queries[q]);
			}
			runs[r] = (now_s() - t0) * 1000;
			if (r == 0)
				total += res.total;
			lec_search_results_dispose(&res);
		}
		firsts[q] = runs[0];
		qsort(runs, (size_t)reps, sizeof(double), cmp_double);
		medians[q] = runs[reps / 2];
		if (getenv("BENCH_VERBOSE"))
			fprintf(stderr, "%-32s %8.3f ms median %8.3f ms max\n",
				queries[q], medians[q], runs[reps - 1]);
	}
	qsort(medians, NQUERIES, sizeof(double), cmp_double);
	qsort(all, NQUERIES * (size_t)reps, sizeof(double), cmp_double);
	printf("query_p50_ms %.3f\n", medians[NQUERIES / 2]);
	printf("query_p99_ms %.3f\n",
	       all[(size_t)((double)(NQUERIES * (size_t)reps) * 0.99)]);
	printf("query_max_ms %.3f\n", all[NQUERIES * (size_t)reps - 1]);
	/* A query's first run counts its terms' document frequencies, which
	 * the connection then remembers (search_rank.c). */
	qsort(firsts, NQUERIES, sizeof(double), cmp_double);
	printf("query_first_p50_ms %.3f\n", firsts[NQUERIES / 2]);
	printf("query_hits %zu\n", total);
	free(all);
	return 0;
}

/* Kinds of distinct queries told apart in the figures. */
#define KINDS_MAX 8
/* Longest query line (and kind) read from a query list. */
#define LINE_MAX_BYTES 4096

/* The distinct queries of one run, each with its kind. */
struct qlist {
	char **kind, **text;
	size_t len, cap;
};

static void qlist_free(struct qlist *l)
{
	for (size_t i = 0; i < l->len; i++) {
		free(l->kind[i]);
		free(l->text[i]);
	}
	free(l->kind);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

static int qlist_add(struct qlist *l, const char *kind, const char *text)
{
	if (l->len == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char **k = realloc(l->kind, cap * sizeof(char *));
		char **t = k ? realloc(l->text, cap * sizeof(char *)) : NULL;

		if (k)
			l->kind = k;
		if (t == NULL)
			return -1;
		l->text = t;
		l->cap = cap;
	}
	l->kind[l->len] = strdup(kind);
	l->text[l->len] = strdup(text);
	l->len++;
	return l->kind[l->len - 1] && l->text[l->len - 1] ? 0 : -1;
}

static double sorted_at(double *v, size_t n, double share)
{
	size_t i = (size_t)((double)n * share);

	qsort(v, n, sizeof(double), cmp_double);
	return v[i < n ? i : n - 1];
}

/* Each query of l once, top 10 with highlights, in order; prints
 * "<prefix>_p50_ms" (all), _p99_ms, _max_ms and _p50_ms_<kind>. */
static int run_distinct(struct lec_store *st, int64_t version,
			const struct qlist *l, const char *prefix)
{
	double *ms = calloc(l->len + 1, sizeof(double));
	double *of_kind = calloc(l->len + 1, sizeof(double));
	const char *kinds[KINDS_MAX];
	size_t i, j, n, nkinds = 0, hits = 0;

	if (ms == NULL || of_kind == NULL || l->len == 0) {
		free(ms);
		free(of_kind);
		return 1;
	}
	for (i = 0; i < l->len; i++) {
		struct lec_search_request req = { l->text[i], &version, 1, 1,
						  10 };
		struct lec_search_results res;
		double t0 = now_s();

		if (lec_search_query(st, &req, &res) < 0) {
			fprintf(stderr, "bench_search: %s: %s\n", l->text[i],
				lec_error_last());
			continue;
		}
		ms[i] = (now_s() - t0) * 1000;
		hits += res.total;
		if (getenv("BENCH_VERBOSE"))
			fprintf(stderr, "%-8s %-40s %8.3f ms %zu %s\n",
				l->kind[i], l->text[i], ms[i], res.total,
				res.len ? res.items[0].path : "-");
		lec_search_results_dispose(&res);
		for (j = 0; j < nkinds && strcmp(kinds[j], l->kind[i]); j++)
			;
		if (j == nkinds && nkinds < KINDS_MAX)
			kinds[nkinds++] = l->kind[i];
	}
	for (j = 0; j < nkinds; j++) {
		for (i = n = 0; i < l->len; i++)
			if (strcmp(l->kind[i], kinds[j]) == 0)
				of_kind[n++] = ms[i];
		printf("%s_p50_ms_%s %.3f\n", prefix, kinds[j],
		       sorted_at(of_kind, n, 0.5));
	}
	printf("%s_queries %zu\n%s_hits %zu\n", prefix, l->len, prefix, hits);
	printf("%s_p50_ms %.3f\n", prefix, sorted_at(ms, l->len, 0.5));
	printf("%s_p99_ms %.3f\n", prefix, sorted_at(ms, l->len, 0.99));
	printf("%s_max_ms %.3f\n", prefix, ms[l->len - 1]);
	free(ms);
	free(of_kind);
	return 0;
}

/* "kind<TAB>query" lines of stdin (a line without a tab is kind "all"). */
static int cmd_distinct(struct lec_store *st, const char *project)
{
	char line[LINE_MAX_BYTES], *tab;
	struct qlist l = { 0 };
	int64_t version;
	int rc = 1;

	if (version_of(st, project, &version) < 0)
		return fail("project");
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab = '\0';
		if (line[0] && qlist_add(&l, tab ? line : "all",
					 tab ? tab + 1 : line) < 0)
			goto done;
	}
	rc = run_distinct(st, version, &l, "distinct");
done:
	qlist_free(&l);
	return rc;
}

static int cmd_index(struct lec_store *st, const char *html,
		     const char *project)
{
	struct lec_search_index_report rep;
	int64_t version;
	double t0;

	if (version_of(st, project, &version) < 0)
		return fail("project");
	t0 = now_s();
	if (lec_search_index_dir(st, version, html, NULL, &rep) < 0)
		return fail("index");
	printf("index_s %.3f\n", now_s() - t0);
	printf("pages %zu\nentries %zu\nignored %zu\nfailed %zu\n", rep.pages,
	       rep.entries, rep.ignored, rep.failed);
	lec_search_index_report_dispose(&rep);
	return 0;
}

/* Longest query line read by cmd_rank. */
#define RANK_LINE_MAX 4096

static int cmd_rank(struct lec_store *st, const char *project)
{
	char line[RANK_LINE_MAX];
	int64_t version;
	size_t n = 0, i;

	if (version_of(st, project, &version) < 0)
		return fail("project");
	while (fgets(line, sizeof(line), stdin) != NULL) {
		struct lec_search_request req = { line, &version, 1, 1, 10 };
		struct lec_search_results res;

		line[strcspn(line, "\r\n")] = '\0';
		n++;
		if (lec_search_query(st, &req, &res) < 0) {
			fprintf(stderr, "bench_search: %s: %s\n", line,
				lec_error_last());
			continue;
		}
		for (i = 0; i < res.len; i++)
			printf("%zu\t%zu\t%s\t%s\n", n, i + 1, res.items[i].path,
			       res.items[i].blocks_len
				       ? res.items[i].blocks[0].id
				       : "");
		lec_search_results_dispose(&res);
	}
	return 0;
}

static const char *const synth_real[] = {
	"asyncio", "event",	"loop",	      "dict",	   "comprehension",
	"subprocess", "timeout", "unicode",   "normalization", "json",
	"dumps",   "indent",	"regular",    "expression", "lookahead",
	"thread",  "pool",	"executor",   "context",   "manager",
	"with",	   "statement", "pathlib",    "glob",	   "pattern",
	"datetime", "timezone", "aware",      "string",	   "formatting",
	"exception", "chaining", "dataclass", "field",	   "default",
	"socket",  "sqlite3",	"cursor",     "execute",   "logging",
	"handler", "formatter", "argparse",   "subcommands", "functools",
	"wraps",   "decorator", "generator",  "yield",	   "from",
	"typing",  "generic",	"type",	      "hints",	   "the",
	"a",	   "of",	"to",	      "and",	   "in",
	"is",	   "for",	"that",	      "return",
};

#define SYNTH_REAL (sizeof(synth_real) / sizeof(synth_real[0]))

/* Words for synthetic text: the query words (so queries match), then
 * made-up filler words, picked with a skewed distribution as real text
 * repeats its common words. */
static const char *synth_word(unsigned *seed, char *buf, size_t cap)
{
	unsigned r = (*seed = *seed * 1103515245u + 12345u) >> 8;
	unsigned pick = (r % 1000) < 30 ? r % 64 : (r % SYNTH_VOCABULARY) *
						       (r % 7 + 1) / 7;
	if (pick < SYNTH_REAL)
		return synth_real[pick];
	snprintf(buf, cap, "w%uq%u", pick, pick % 13);
	return buf;
}

static char *synth_text(unsigned *seed, int words)
{
	size_t cap = (size_t)words * 16 + 1, n = 0;
	char *text = malloc(cap), w[32];
	int i;

	if (text == NULL)
		return NULL;
	for (i = 0; i < words; i++) {
		const char *word = synth_word(seed, w, sizeof(w));
		size_t len = strlen(word);

		if (n + len + 2 > cap)
			break;
		memcpy(text + n, word, len);
		n += len;
		text[n++] = ' ';
	}
	text[n ? n - 1 : 0] = '\0';
	return text;
}

static void synth_free(struct lec_page_doc *docs, size_t npages)
{
	size_t i, j;

	for (i = 0; i < npages; i++) {
		for (j = 0; j < docs[i].sections_len; j++) {
			free(docs[i].sections[j].id);
			free(docs[i].sections[j].title);
			free(docs[i].sections[j].content);
		}
		free(docs[i].sections);
		free(docs[i].title);
	}
	free(docs);
}

/* Distinct queries asked of the synthetic index. */
#define SYNTH_DISTINCT 400

/* Distinct queries over the synthetic text's words, each kind in turn:
 * two and three of the query words, one with a filler word, and the start
 * of a query word (4 letters or more, not the whole word) as typed. */
static int synth_queries(struct qlist *l)
{
	static const char *const kinds[] = { "pair", "triple", "filler",
					     "prefix" };
	unsigned seed = 33, r;
	char q[128], filler[32];
	size_t tries, i;

	for (tries = 0; l->len < SYNTH_DISTINCT && tries < SYNTH_DISTINCT * 100;
	     tries++) {
		const char *kind = kinds[tries % 4], *a, *b, *c;

		r = (seed = seed * 1103515245u + 12345u) >> 8;
		a = synth_real[r % SYNTH_REAL];
		b = synth_real[(r / SYNTH_REAL) % SYNTH_REAL];
		c = synth_real[(r / SYNTH_REAL / SYNTH_REAL) % SYNTH_REAL];
		if (strcmp(kind, "pair") == 0) {
			snprintf(q, sizeof(q), "%s %s", a, b);
		} else if (strcmp(kind, "triple") == 0) {
			snprintf(q, sizeof(q), "%s %s %s", a, b, c);
		} else if (strcmp(kind, "filler") == 0) {
			snprintf(filler, sizeof(filler), "w%uq%u",
				 r % SYNTH_VOCABULARY, r % SYNTH_VOCABULARY % 13);
			snprintf(q, sizeof(q), "%s %s", a, filler);
		} else {
			size_t n = strlen(a);

			if (n < 6)
				continue;
			snprintf(q, sizeof(q), "%.*s", (int)(4 + r % (n - 4)), a);
		}
		for (i = 0; i < l->len && strcmp(l->text[i], q); i++)
			;
		if (i == l->len && qlist_add(l, kind, q) < 0)
			return -1;
	}
	return 0;
}

static int cmd_synth(struct lec_store *st, size_t sections, int reps)
{
	size_t npages = (sections + SYNTH_SECTIONS_PER_PAGE - 1) /
			SYNTH_SECTIONS_PER_PAGE;
	struct lec_page_doc *docs = calloc(npages, sizeof(*docs));
	struct lec_search_page *pages = calloc(npages, sizeof(*pages));
	char (*paths)[32] = calloc(npages, sizeof(*paths));
	unsigned seed = 42;
	size_t i, j, made = 0;
	int64_t version;
	double t0;
	int rc = 1;

	if (!docs || !pages || !paths || version_of(st, "synth", &version) < 0)
		goto done;
	for (i = 0; i < npages; i++) {
		docs[i].title = synth_text(&seed, 4);
		docs[i].sections = calloc(SYNTH_SECTIONS_PER_PAGE,
					  sizeof(*docs[i].sections));
		for (j = 0; j < SYNTH_SECTIONS_PER_PAGE && made < sections;
		     j++, made++) {
			struct lec_page_section *s = &docs[i].sections[j];

			s->id = malloc(16);
			if (s->id)
				snprintf(s->id, 16, "s%zu", j);
			s->title = synth_text(&seed, 3);
			s->content = synth_text(&seed, SYNTH_WORDS);
			docs[i].sections_len++;
		}
		snprintf(paths[i], sizeof(paths[i]), "p%zu.html", i);
		pages[i].path = paths[i];
		pages[i].doc = &docs[i];
	}
	t0 = now_s();
	if (lec_search_index_replace(st, version, pages, npages) < 0) {
		rc = fail("synthetic index");
		goto done;
	}
	printf("synth_sections %zu\nsynth_index_s %.3f\n", made, now_s() - t0);
	if ((rc = run_queries(st, version, reps)) == 0) {
		struct qlist l = { 0 };

		rc = synth_queries(&l) < 0
			     ? 1
			     : run_distinct(st, version, &l, "synth_distinct");
		qlist_free(&l);
	}
done:
	if (docs)
		synth_free(docs, npages);
	free(pages);
	free(paths);
	return rc;
}

int main(int argc, char **argv)
{
	struct lec_store *st = NULL;
	int64_t version;
	int rc = 2;

	if (argc == 2 && strcmp(argv[1], "queries") == 0) {
		for (size_t i = 0; i < NQUERIES; i++)
			printf("%s\n", queries[i]);
		return 0;
	}
	if (argc < 3)
		goto usage;
	if (lec_store_open_dir(&st, argv[2], NULL) < 0)
		return fail(argv[2]);
	if (strcmp(argv[1], "index") == 0 && (argc == 4 || argc == 5))
		rc = cmd_index(st, argv[3], argc == 5 ? argv[4] : "python");
	else if (strcmp(argv[1], "rank") == 0 && argc == 4)
		rc = cmd_rank(st, argv[3]);
	else if (strcmp(argv[1], "query") == 0 && argc <= 5)
		rc = version_of(st, argc == 5 ? argv[4] : "python", &version) < 0
			     ? fail("project")
			     : run_queries(st, version,
					   argc >= 4 ? (int)strtol(argv[3], NULL, 10)
						 : DEFAULT_REPS);
	else if (strcmp(argv[1], "distinct") == 0 && argc == 4)
		rc = cmd_distinct(st, argv[3]);
	else if (strcmp(argv[1], "synth") == 0 && argc == 4)
		rc = cmd_synth(st, (size_t)strtoul(argv[3], NULL, 10),
			       DEFAULT_REPS);
	lec_store_free(st);
	if (rc != 2)
		return rc;
usage:
	fprintf(stderr, "usage: bench_search index DATA_DIR HTML_DIR [PROJECT]\n"
			"       bench_search queries\n"
			"       bench_search rank DATA_DIR PROJECT\n"
			"       bench_search distinct DATA_DIR PROJECT\n"
			"       bench_search query DATA_DIR [REPS [PROJECT]]\n"
			"       bench_search synth DATA_DIR SECTIONS\n");
	return 2;
}
