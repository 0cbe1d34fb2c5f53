/*
 * /llms.txt and /llms-full.txt at the root of a project's docs host
 * (docs/serving.md, "Docs for agents"), from the project's default
 * version, as the service serves them: only when that version is active
 * and built, and only to those who may read it (a private one answers
 * others as a version that does not exist). A file of that name the build
 * published at the version's root is sent as it is, as the service does;
 * without one Lectern writes its own from what it indexed:
 *
 *   llms.txt       the llmstxt.org form: "# <project>", "> <summary>", a
 *                  paragraph saying how to get Markdown, and "## Pages",
 *                  one "- [title](url): first sentence" line per page
 *   llms-full.txt  the same head, then every page as Markdown (docs_md.c),
 *                  each after a "---" line and its source URL, up to
 *                  DOCS_LLMS_FULL_MAX bytes
 *
 * Pages are those of the version's search index (search.ignore applies),
 * in reading order (lec_search_index_pages), without Sphinx's generated
 * indexes (genindex.html, py-modindex.html), which list the other pages'
 * objects and hold no text of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lectern/errors.h"
#include "lectern/pagemd.h"
#include "lectern/search.h"
#include "docs.h"
#include "text.h"

#define LLMS_TYPE "text/plain; charset=utf-8"
/* Bytes of /llms-full.txt at most: a large documentation set's pages as
 * Markdown (CPython's are about 25 MB); past it the file says where it
 * stopped, and the rest is one request per page away. */
#define DOCS_LLMS_FULL_MAX (32 * 1024 * 1024)

/* A page's URL: the version's root URL and its path, a directory's index
 * page as the directory ("guide/"). */
static void page_url(const char *base, const char *path, char *out,
		     size_t cap)
{
	size_t n = strlen(path), k = sizeof(DOCS_INDEX) - 1;

	if (n >= k && strcmp(path + n - k, DOCS_INDEX) == 0 &&
	    (n == k || path[n - k - 1] == '/'))
		n -= k;
	snprintf(out, cap, "%s%.*s", base, (int)n, path);
}

/* Whether a page is one of Sphinx's generated indexes. */
static int generated_index(const char *path)
{
	static const char *const names[] = { "genindex.html",
					     "py-modindex.html" };
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i]) == 0)
			return 1;
	return 0;
}

/* One line of text (a summary, a title) without line breaks. */
static void put_line(struct srv_text *t, const char *s)
{
	for (; *s; s++)
		srv_text_put(t, *s == '\n' || *s == '\r' ? " " : s, 1);
}

/* "# <name>", the summary, and how to read the pages. */
static void head(struct srv_text *t, const struct lec_project *p,
		 const struct lec_search_listing *pages, const char *base,
		 const char *version, int full)
{
	const char *summary = p->description && p->description[0]
				      ? p->description
				      : NULL;

	if (summary == NULL && pages->len > 0 && pages->items[0].summary[0])
		summary = pages->items[0].summary;
	srv_text_puts(t, "# ");
	put_line(t, p->name);
	srv_text_puts(t, "\n\n");
	if (summary) {
		srv_text_puts(t, "> ");
		put_line(t, summary);
		srv_text_puts(t, "\n\n");
	}
	srv_text_puts(t, "The documentation of ");
	put_line(t, p->name);
	srv_text_puts(t, ", version ");
	srv_text_puts(t, version);
	srv_text_puts(t, ", at ");
	srv_text_puts(t, base);
	srv_text_puts(t, full ? ": every page below as Markdown.\n"
			  : ". Each page is also served as Markdown to a "
			    "request with \"Accept: text/markdown\"; "
			    "/llms-full.txt holds them all.\n");
}

static void pages_list(struct srv_text *t,
		       const struct lec_search_listing *pages, const char *base)
{
	char url[DOCS_PATH_MAX * 2];
	size_t i;

	srv_text_puts(t, "\n## Pages\n\n");
	for (i = 0; i < pages->len; i++) {
		const struct lec_search_listed *it = &pages->items[i];

		if (generated_index(it->path))
			continue;
		page_url(base, it->path, url, sizeof(url));
		srv_text_puts(t, "- [");
		put_line(t, it->title[0] ? it->title : it->path);
		srv_text_puts(t, "](");
		srv_text_puts(t, url);
		srv_text_puts(t, ")");
		if (it->summary[0]) {
			srv_text_puts(t, ": ");
			put_line(t, it->summary);
		}
		srv_text_puts(t, "\n");
	}
}

/* Every page as Markdown, read from the published directory dir (root). */
static void pages_full(struct srv_text *t,
		       const struct lec_search_listing *pages, const char *base,
		       int dir, const char *root)
{
	char url[DOCS_PATH_MAX * 2];
	size_t i;

	for (i = 0; i < pages->len && !t->oom; i++) {
		struct lec_page_md *md = NULL;
		struct stat st;
		int fd;

		if (t->len >= DOCS_LLMS_FULL_MAX) {
			srv_text_puts(t,
				      "\n---\n\n(llms-full.txt stops here, at "
				      "its size limit; the remaining pages are "
				      "listed in /llms.txt.)\n");
			return;
		}
		if (generated_index(pages->items[i].path))
			continue;
		page_url(base, pages->items[i].path, url, sizeof(url));
		if ((fd = docs_open_inside(dir, root, pages->items[i].path,
					   &st)) < 0)
			continue;
		if (docs_page_markdown(fd, &st, url, NULL, &md) == LEC_OK &&
		    md->len > 0) {
			srv_text_puts(t, "\n---\n\nSource: ");
			srv_text_puts(t, url);
			srv_text_puts(t, "\n\n");
			srv_text_put(t, md->markdown, md->len);
		}
		lec_page_md_free(md);
		close(fd);
	}
}

/* A file of this name the build published at the version's root. */
static int send_own(struct docs_ctx *c, int dir, const char *root,
		    const char *name)
{
	struct stat st;
	int fd = docs_open_inside(dir, root, name, &st);

	if (fd < 0)
		return 0;
	docs_send_file(c, fd, &st, name, 200);
	return 1;
}

int docs_llms(struct docs_ctx *c, int full)
{
	const char *name = full ? "llms-full.txt" : "llms.txt";
	struct lec_search_listing pages = { 0 };
	struct lec_version *v = NULL;
	struct srv_text t = { 0 };
	char *slug = NULL, root[DOCS_PATH_MAX], base[DOCS_PATH_MAX];
	int dir = -1, status;

	if (docs_default_slug(c, &slug) != LEC_OK ||
	    lec_version_get(c->store, c->project->id, slug, &v) != LEC_OK ||
	    !v->built ||
	    (dir = docs_version_root(c, slug, "html", root)) < 0) {
		status = docs_plain_not_found(c->res);
		goto done;
	}
	if (send_own(c, dir, root, name)) {
		status = c->res->status;
		goto done;
	}
	if (lec_search_index_pages(c->store, v->id, &pages) != LEC_OK) {
		status = srv_respond_internal(c->res, lec_error_last());
		goto done;
	}
	docs_root_url(c, slug, base, sizeof(base));
	{
		char absolute[DOCS_PATH_MAX + SRV_MAX_HOST + 16];

		snprintf(absolute, sizeof(absolute), "%s%s/",
			 srv_request_origin(c->req), base);
		head(&t, c->project, &pages, absolute, slug, full);
		if (full)
			pages_full(&t, &pages, absolute, dir, root);
		else
			pages_list(&t, &pages, absolute);
	}
	{
		size_t len = 0;
		char *body = srv_text_take(&t, &len);

		status = body ? docs_send_text(c, body, len, LLMS_TYPE, NULL,
					       "")
			      : srv_respond_internal(c->res, "out of memory");
	}
done:
	if (dir >= 0)
		close(dir);
	lec_search_listing_dispose(&pages);
	lec_version_free(v);
	free(slug);
	return status;
}
