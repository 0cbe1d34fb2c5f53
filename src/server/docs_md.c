/*
 * Pages as Markdown on the docs host, for agents (docs/serving.md, "Docs
 * for agents"): a request whose Accept header asks for text/markdown over
 * text/html gets a page's main content as Markdown (the engine's
 * lec_page_markdown), links made absolute against the page's own URL, with
 * the page's validators (its ETag marked as another entity) and the same
 * permissions as the HTML, since the page was found by the same
 * resolution. /llms-full.txt (docs_llms.c) strings the same Markdown
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
#include "input.h"

#define MARKDOWN_TYPE "text/markdown; charset=utf-8"

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
		       struct lec_page_md **out)
{
	size_t len = 0;
	char *html = read_all(fd, st, &len);
	int rc;

	*out = NULL;
	if (html == NULL)
		return LEC_EIO;
	rc = lec_page_markdown(html, len, url, out);
	free(html);
	return rc;
}

int docs_send_markdown(struct docs_ctx *c, int fd, const struct stat *st)
{
	const char *raw = c->req->raw_uri;
	struct lec_page_md *md = NULL;
	char url[DOCS_PATH_MAX + SRV_MAX_HOST + 16];
	size_t n = c->query[0] ? (size_t)(c->query - raw) : strlen(raw);
	int rc;

	/* The page's address as the client asked for it (a directory's
	 * index page keeps its trailing slash): its links' base. */
	snprintf(url, sizeof(url), "%s%.*s", srv_request_origin(c->req),
		 (int)n, raw);
	rc = docs_page_markdown(fd, st, url, &md);
	close(fd);
	if (rc < 0)
		return srv_respond_internal(c->res, "a page as Markdown");
	rc = docs_send_text(c, md->markdown, md->len, MARKDOWN_TYPE, st,
			    "-md");
	md->markdown = NULL; /* the response's now */
	lec_page_md_free(md);
	return rc;
}
