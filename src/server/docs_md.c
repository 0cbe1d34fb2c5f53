/*
 * Pages as Markdown on the docs host, for agents (docs/serving.md, "Docs
 * for agents"): a request whose Accept header asks for text/markdown over
 * text/html gets a page's main content as Markdown (the engine's
 * lec_page_markdown), links made absolute against the page's own URL, with
 * the page's validators (its ETag marked as another entity) and the same
 * permissions as the HTML, since the page was found by the same
 * resolution. Two Lectern parameters, for agents (lectern mcp): anchors=1
 * ends each heading with its anchor, " {#id}"; section=ID gives only that
 * section (404 when the page has none of that id). What was converted is
 * kept (docs_md_cache.c) until the page changes. /llms-full.txt (docs_llms.c) strings the same Markdown
 * together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lectern/embed.h"
#include "lectern/errors.h"
#include "lectern/pagemd.h"
#include "docs.h"
#include "docs_md_cache.h"
#include "input.h"

#define MARKDOWN_TYPE "text/markdown; charset=utf-8"
/* Longest section id a query names: ids are a heading's words. */
#define DOCS_SECTION_MAX 256

int docs_wants_markdown(struct srv_request *req)
{
	return srv_input_accept_prefers(srv_header(req, "Accept"),
					"text/markdown", "text/html");
}

int docs_is_page(const char *rel)
{
	size_t n = strlen(rel);

	return (n >= 5 && strcasecmp(rel + n - 5, ".html") == 0) ||
	       (n >= 4 && strcasecmp(rel + n - 4, ".htm") == 0);
}

/* The whole of an open file (st its size), at most LEC_EMBED_PAGE_MAX
 * bytes; NULL when it cannot be read or is larger. */
static char *read_all(int fd, const struct stat *st, size_t *len)
{
	size_t size = (size_t)st->st_size, got = 0;
	char *buf;

	if ((uint64_t)st->st_size > LEC_EMBED_PAGE_MAX ||
	    (buf = malloc(size ? size : 1)) == NULL)
		return NULL;
	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

		if (n <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	*len = size;
	return buf;
}

int docs_page_markdown(int fd, const struct stat *st, const char *url,
		       const struct lec_page_md_options *opts,
		       struct lec_page_md **out)
{
	size_t len = 0;
	char *html = read_all(fd, st, &len);
	int rc;

	*out = NULL;
	if (html == NULL)
		return LEC_EIO;
	rc = lec_page_markdown_with(html, len, url, opts, out);
	free(html);
	return rc;
}

int docs_send_markdown(struct docs_ctx *c, int fd, const struct stat *st)
{
	const char *raw = c->req->raw_uri;
	char section[DOCS_SECTION_MAX], anchors[4];
	char form[DOCS_SECTION_MAX + 8], *text;
	struct lec_page_md_options opts = { 0, NULL };
	const char *suffix;
	size_t len = 0;
	struct lec_page_md *md = NULL;
	char url[DOCS_PATH_MAX + SRV_MAX_HOST + 16];
	size_t n = c->query[0] ? (size_t)(c->query - raw) : strlen(raw);
	int rc;

	/* The page's address as the client asked for it (a directory's
	 * index page keeps its trailing slash): its links' base. */
	snprintf(url, sizeof(url), "%s%.*s", srv_request_origin(c->req),
		 (int)n, raw);
	/* The docs host's query is its raw one (the API's parser never
	 * ran). */
	if (c->query[0] &&
	    docs_form_value(c->query + 1, "section", section, sizeof(section)))
		opts.section = section;
	opts.anchors = c->query[0] &&
		       docs_form_value(c->query + 1, "anchors", anchors,
				       sizeof(anchors)) &&
		       strcmp(anchors, "1") == 0;
	/* Each form of the page is an entity of its own. */
	suffix = opts.section ? (opts.anchors ? "-mdsa" : "-mds")
			      : (opts.anchors ? "-mda" : "-md");
	snprintf(form, sizeof(form), "%s%s", suffix,
		 opts.section ? opts.section : "");
	if ((text = docs_md_cache_get(st, url, form, &len)) != NULL) {
		close(fd);
		return docs_send_text(c, text, len, MARKDOWN_TYPE, st, suffix);
	}
	rc = docs_page_markdown(fd, st, url, &opts, &md);
	close(fd);
	if (rc == LEC_ENOTFOUND)
		return srv_respond_detail(c->res, 404, lec_error_last());
	if (rc < 0)
		return srv_respond_internal(c->res, "a page as Markdown");
	docs_md_cache_put(st, url, form, md->markdown, md->len);
	rc = docs_send_text(c, md->markdown, md->len, MARKDOWN_TYPE, st,
			    suffix);
	md->markdown = NULL; /* the response's now */
	lec_page_md_free(md);
	return rc;
}
