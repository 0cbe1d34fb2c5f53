/*
 * What finding a build's warnings costs (issue 30: at most 5% of the build
 * of a large site), measured in one run:
 *
 *   bench_warnings build TREE RUNS [OUT]
 *       builds TREE the way `lectern preview` and `lectern check` do
 *       (lectern/preview.h), each time into a fresh cache, RUNS times with
 *       warnings looked for and RUNS times without (no_warnings: no output
 *       parsing, no link check), alternating which goes first; prints each
 *       time, the best of each and the difference. Then, alone and timed on
 *       their own: the parser over the output one build wrote (kept in
 *       memory) and the link check over its published HTML, as a share of
 *       the best build without them. OUT, when given, gets the records of
 *       the last build, one per line.
 *   bench_warnings links DIR
 *       the link check of an HTML tree alone (a published site, Debian's
 *       python3-doc): time, pages, links, and the first records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build_warnings.h"
#include "internal.h"
#include "lectern/errors.h"
#include "lectern/preview.h"

/* Records printed by `links`. */
#define SHOWN 30
/* The output one build writes, kept for the parser's own timing: Sphinx
 * on python3-doc writes a few MB. */
#define OUTPUT_MAX ((size_t)256 * 1024 * 1024)

struct output {
	char *data;
	size_t len, cap;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keep_output(void *payload, const char *data, size_t len)
{
	struct output *o = payload;

	if (o->len + len > OUTPUT_MAX)
		return;
	if (o->len + len > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 20;

		while (cap < o->len + len)
			cap *= 2;
		o->data = realloc(o->data, cap);
		if (o->data == NULL) {
			perror("bench");
			exit(1);
		}
		o->cap = cap;
	}
	memcpy(o->data + o->len, data, len);
	o->len += len;
}

/* One build of tree into a fresh cache; its time, or < 0 when it failed
 * to start. */
static double build_once(const char *tree, int warnings, struct output *out,
			 char *cache, size_t cap, enum lec_preview_generator *gen)
{
	struct lec_preview_options opts = LEC_PREVIEW_OPTIONS_INIT;
	struct lec_preview_callbacks cb = { NULL, keep_output, NULL, out };
	struct lec_preview_result r = { 0 };
	struct lec_preview *pv = NULL;
	double start, took;
	int rc;

	snprintf(cache, cap, "/tmp/lectern-bench-warnings-XXXXXX");
	if (mkdtemp(cache) == NULL) {
		perror("bench: mkdtemp");
		exit(1);
	}
	opts.cache_dir = cache;
	opts.no_warnings = !warnings;
	if (lec_preview_open(&pv, tree, &opts) < 0) {
		fprintf(stderr, "bench: %s\n", lec_error_last());
		exit(1);
	}
	out->len = 0;
	start = now_s();
	rc = lec_preview_build(pv, &cb, &r);
	took = now_s() - start;
	if (rc < 0)
		fprintf(stderr, "bench: the build failed: %s\n", lec_error_last());
	*gen = r.generator;
	if (warnings) {
		const struct lec_warning_set *set = lec_preview_warnings(pv);

		printf("  (%zu warnings found, %zu more counted)\n", set->len,
		       set->dropped);
	}
	lec_preview_free(pv);
	return rc < 0 ? -1 : took;
}

static void remove_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench: could not remove %s\n", dir);
}

static void print_set(FILE *f, const struct lec_warning_set *set, size_t max)
{
	size_t i;

	for (i = 0; i < set->len && i < max; i++) {
		const struct lec_warning *w = &set->items[i];

		fprintf(f, "%s:%u: %s: %.*s\n", w->file, w->line,
			lec_warning_kind_code(w->kind),
			(int)strcspn(w->message, "\n"), w->message);
	}
}

static int bench_build(const char *tree, int runs, const char *out_path)
{
	struct output out = { 0 };
	enum lec_preview_generator gen = LEC_PREVIEW_MARKDOWN;
	double best[2] = { 0, 0 }, parse_s, link_s;
	char cache[64], html[128];
	struct lec_warning_set set = { 0 };
	struct lec__warn_parser parser;
	struct lec__linkcheck_stats stats;
	int i, k;

	for (i = 0; i < runs; i++) {
		double t[2];

		for (k = 0; k < 2; k++) {
			/* Alternate which goes first: the second finds the
			 * page cache warm. */
			int warnings = (i + k) % 2;

			t[warnings] = build_once(tree, warnings, &out, cache,
						 sizeof(cache), &gen);
			if (t[warnings] < 0)
				return 1;
			if (best[warnings] == 0 || t[warnings] < best[warnings])
				best[warnings] = t[warnings];
			/* The last build's cache stays for the timings below. */
			if (!(i == runs - 1 && k == 1))
				remove_tree(cache);
		}
		printf("run %d: without %.2f s, with %.2f s\n", i + 1, t[0], t[1]);
	}
	printf("best of %d (%s): without %.2f s, with %.2f s: %+.1f%% "
	       "(target: at most +5%%)\n",
	       runs, lec_preview_generator_name(gen), best[0], best[1],
	       100.0 * (best[1] - best[0]) / best[0]);

	/* The two parts alone, on what the last build wrote and published. */
	lec__warn_parser_init(&parser,
			      gen == LEC_PREVIEW_MKDOCS ? LEC__WARN_MKDOCS
							: LEC__WARN_SPHINX,
			      &set, tree, "", NULL);
	parse_s = now_s();
	lec__warn_parser_feed(&parser, out.data ? out.data : "", out.len);
	lec__warn_parser_end(&parser);
	parse_s = now_s() - parse_s;
	lec__warn_parser_dispose(&parser);
	snprintf(html, sizeof(html), "%s/" LEC_PREVIEW_SITE "/", cache);
	link_s = now_s();
	if (lec__linkcheck(html, &set, NULL, 0, NULL, NULL, &stats) < 0)
		fprintf(stderr, "bench: %s\n", lec_error_last());
	link_s = now_s() - link_s;
	printf("alone: parsing %zu bytes of output %.3f s, the link check of "
	       "%zu pages (%zu links) %.3f s: %.2f%% of the build without "
	       "them\n",
	       out.len, parse_s, stats.pages, stats.links, link_s,
	       100.0 * (parse_s + link_s) / best[0]);
	if (out_path) {
		FILE *f = fopen(out_path, "w");

		if (f) {
			print_set(f, &set, set.len);
			fclose(f);
		}
	}
	lec_warning_set_dispose(&set);
	remove_tree(cache);
	free(out.data);
	return 0;
}

static int bench_links(const char *dir)
{
	struct lec_warning_set set = { 0 };
	struct lec__linkcheck_stats stats;
	char *inventory = NULL;
	size_t len = 0;
	double start = now_s(), took;

	if (lec__linkcheck(dir, &set, NULL, 0, &inventory, &len, &stats) < 0) {
		fprintf(stderr, "bench: %s\n", lec_error_last());
		return 1;
	}
	took = now_s() - start;
	printf("link check of %s: %.3f s, %zu pages, %zu internal links, %zu "
	       "broken, an inventory of %zu bytes\n",
	       dir, took, stats.pages, stats.links, stats.broken, len);
	print_set(stdout, &set, SHOWN);
	lec__free(inventory);
	lec_warning_set_dispose(&set);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "build") == 0) {
		long runs = strtol(argv[3], NULL, 10);

		return bench_build(argv[2], runs > 0 ? (int)runs : 1,
				   argc > 4 ? argv[4] : NULL);
	}
	if (argc == 3 && strcmp(argv[1], "links") == 0)
		return bench_links(argv[2]);
	fprintf(stderr, "usage: bench_warnings build TREE RUNS [OUT] | links DIR\n");
	return 2;
}
