/*
 * Page parser benchmark (issue 6): parses every *.html file under a
 * directory with lec_page_parse_file, the way the search indexer does, and
 * prints pages, sections, domain entries, seconds and MB/s. Files are read
 * once before timing so that a cold page cache does not decide; the best of
 * RUNS passes counts.
 *
 * Usage: bench_pageparse [DIR] [RUNS]
 *        (default /usr/share/doc/python3.11/html from Debian's python3-doc,
 *        3 runs)
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lectern/lectern.h"

/* Open directories nftw may hold at once. */
#define FTW_FDS 32

struct page_list {
	char **paths;
	size_t len;
	size_t cap;
	size_t bytes;
};

static struct page_list pages;

static int add_page(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)ftw;
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".html") != 0)
		return 0;
	if (pages.len == pages.cap) {
		size_t cap = pages.cap ? pages.cap * 2 : 256;
		char **p = realloc(pages.paths, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		pages.paths = p;
		pages.cap = cap;
	}
	if ((pages.paths[pages.len] = strdup(path)) == NULL)
		return -1;
	pages.len++;
	pages.bytes += (size_t)st->st_size;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass over every page; returns seconds, or < 0 on an engine error. */
static double parse_all(const char *dir, size_t *sections, size_t *domains)
{
	size_t skip = strlen(dir) + 1;
	double start = now();
	size_t i;

	*sections = *domains = 0;
	for (i = 0; i < pages.len; i++) {
		struct lec_page_doc *doc;

		if (lec_page_parse_file(pages.paths[i], pages.paths[i] + skip,
					&doc) < 0) {
			fprintf(stderr, "bench: %s\n", lec_error_last());
			return -1;
		}
		*sections += doc->sections_len;
		*domains += doc->domains_len;
		lec_page_doc_free(doc);
	}
	return now() - start;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/usr/share/doc/python3.11/html";
	long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 3;
	size_t sections = 0, domains = 0;
	double best = -1;
	long r;
	size_t i;

	if (runs < 1)
		runs = 1;
	if (nftw(dir, add_page, FTW_FDS, FTW_PHYS) != 0 || pages.len == 0) {
		fprintf(stderr, "bench: no *.html under %s\n", dir);
		return 1;
	}
	/* Warm the page cache: the indexer reads files a build just wrote. */
	parse_all(dir, &sections, &domains);
	for (r = 0; r < runs; r++) {
		double s = parse_all(dir, &sections, &domains);

		if (s < 0)
			return 1;
		if (best < 0 || s < best)
			best = s;
	}
	printf("pages %zu, %.1f MB, sections %zu, domain entries %zu, "
	       "%.3f s (best of %ld), %.1f MB/s\n",
	       pages.len, (double)pages.bytes / 1e6, sections, domains, best,
	       runs, (double)pages.bytes / 1e6 / best);
	for (i = 0; i < pages.len; i++)
		free(pages.paths[i]);
	free(pages.paths);
	return 0;
}
