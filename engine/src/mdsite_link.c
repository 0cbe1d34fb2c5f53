/*
 * Link rewriting for the Markdown site generator. Repositories link their
 * Markdown files to each other ("see [setup](guide/setup.md#linux)"), which
 * GitHub follows but a static HTML site cannot; every such relative link must
 * point at the generated page instead. The target is looked up among the
 * site's pages so that a README.md that became its directory's index.html is
 * linked as index.html, while README.md beside an index.md stays README.html.
 */
#include <string.h>
#include <strings.h>

#include "hash.h"
#include "mdsite_internal.h"

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "http:", "mailto:", "javascript:": RFC 3986's scheme then ':'. */
static int has_scheme(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_alpha(s[0]))
		return 0;
	for (i = 1; i < n; i++) {
		if (s[i] == ':')
			return 1;
		if (!is_alpha(s[i]) && !is_digit(s[i]) && !strchr("+-.", s[i]))
			return 0;
	}
	return 0;
}

/* Append s with %XX sequences decoded (a link to "my%20notes.md" names the
 * file "my notes.md"). */
static void percent_decode(struct lec__buf *out, const char *s,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n &&
		    (hi = lec__hex_value(s[i + 1])) >= 0 &&
		    (lo = lec__hex_value(s[i + 2])) >= 0) {
			lec__buf_putc(out, (char)(hi * 16 + lo));
			i += 2;
		} else {
			lec__buf_putc(out, s[i]);
		}
	}
}

/* Append the segments of s to out (which holds a normalised path from
 * `start` on); returns 0 when ".." climbs above the root. */
static int push_segments(struct lec__buf *out, size_t start,
			 const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		while (j < n && s[j] != '/')
			j++;
		if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
			if (out->len == start)
				return 0;
			while (out->len > start &&
			       out->ptr[out->len - 1] != '/')
				out->len--;
			if (out->len > start)
				out->len--;
		} else if (j > i && !(j - i == 1 && s[i] == '.')) {
			if (out->len > start)
				lec__buf_putc(out, '/');
			lec__buf_putn(out, s + i, j - i);
		}
		i = j + 1;
	}
	return 1;
}

int lec_mdsite__join_path(struct lec__buf *out, const char *dir,
			  const char *path, size_t n)
{
	size_t start = out->len;

	if (!push_segments(out, start, dir, strlen(dir)) ||
	    !push_segments(out, start, path, n)) {
		out->len = start;
		return 0;
	}
	return 1;
}

static const char *base_name(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] != '/')
		n--;
	return s + n;
}

/* Whether the link to path (plen > 0 bytes, still encoded) leads to a
 * page written as its directory's index.html: the page it names when there
 * is one, else any README.md, as that is what such a link usually means. */
static int links_to_index(const char *path, size_t plen,
			  const struct lec_mdsite__links *links, int *oom)
{
	struct lec__buf decoded = LEC__BUF_INIT;
	struct lec__buf joined = LEC__BUF_INIT;
	const char *target = NULL;
	int to_index = 0;

	percent_decode(&decoded, path, plen);
	if (lec_mdsite__join_path(&joined, links->page_dir, decoded.ptr,
				  decoded.len)) {
		lec__buf_putc(&joined, '\0');
		if (!decoded.oom && !joined.oom && links->resolve != NULL)
			target = links->resolve(joined.ptr, links->payload);
	}
	*oom = decoded.oom || joined.oom;
	if (*oom)
		goto done;
	if (target != NULL)
		to_index = strcmp(base_name(target, strlen(target)),
				  "index.html") == 0;
	else
		to_index = decoded.len >= 9 &&
			   strncasecmp(decoded.ptr + decoded.len - 9,
				       "readme.md", 9) == 0 &&
			   (decoded.len == 9 ||
			    decoded.ptr[decoded.len - 10] == '/');
done:
	lec__buf_dispose(&decoded);
	lec__buf_dispose(&joined);
	return to_index;
}

void lec_mdsite__rewrite_href(struct lec__buf *out, const char *href,
			      size_t n, const struct lec_mdsite__links *links)
{
	size_t plen = 0, base;
	int oom = 0;

	if (n == 0 || href[0] == '#' || href[0] == '/' || has_scheme(href, n))
		goto verbatim;
	while (plen < n && href[plen] != '?' && href[plen] != '#')
		plen++;
	base = (size_t)(base_name(href, plen) - href);
	/* "x.md" at least: a bare ".md" is a hidden file, not a page. */
	if (plen < base + 4 || strncasecmp(href + plen - 3, ".md", 3) != 0)
		goto verbatim;
	lec__buf_putn(out, href, base);
	if (links_to_index(href, plen, links, &oom))
		lec__buf_puts(out, "index");
	else
		lec__buf_putn(out, href + base, plen - 3 - base);
	lec__buf_puts(out, ".html");
	lec__buf_putn(out, href + plen, n - plen);
	if (oom)
		out->oom = 1;
	return;
verbatim:
	lec__buf_putn(out, href, n);
}
