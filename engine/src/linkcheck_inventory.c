/*
 * A published output's inventory (build_warnings.h): its pages and their
 * anchors, one a line ("page", "page#anchor", '%', '#' and line ends
 * written %XX), sorted, kept with a version's last good build so that the
 * next one can say what it no longer publishes (`removed`). Anchors
 * generators number (id3, index-12, fnref:2) are left out: they move with
 * every edit and nobody links to them. The link check (linkcheck.c) lists
 * the pages and anchors and reports what this finds; this file knows
 * nothing of HTML.
 */
#include <stdlib.h>
#include <string.h>

#include "build_warnings.h"
#include "hash.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Anchors generators number, left out of the inventory: a prefix, then
 * only digits, '-' and '_'. */
static const char *const numbered_anchors[] = {
	"id",	     "index-", "fn:",	    "fnref:",
	"fn-",	     "fnref-", "footnote-", "footnote-reference-",
	"citation-",
};

/* Whether an anchor is one a generator numbers. */
static int numbered(const char *name)
{
	size_t i, k;

	if (strncmp(name, "__", 2) == 0)
		return 1;
	for (i = 0; i < COUNT(numbered_anchors); i++) {
		size_t n = strlen(numbered_anchors[i]);

		if (strncmp(name, numbered_anchors[i], n) != 0 ||
		    name[n] == '\0')
			continue;
		for (k = n; name[k] && (strchr("-_", name[k]) ||
					(name[k] >= '0' && name[k] <= '9'));
		     k++)
			;
		if (name[k] == '\0')
			return 1;
	}
	return 0;
}

int lec__inventory_keeps(const char *anchor)
{
	return !numbered(anchor);
}

/* A page or anchor in an inventory line: '%', '#' and line ends as %XX. */
static void put_escaped(struct lec__buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '%' || *s == '#' || *s == '\n' || *s == '\r')
			lec__buf_printf(b, "%%%02X", (unsigned char)*s);
		else
			lec__buf_putn(b, s, 1);
	}
}

void lec__inventory_put(struct lec__buf *b, const char *page,
			const char *anchor)
{
	put_escaped(b, page);
	if (anchor) {
		lec__buf_putn(b, "#", 1);
		put_escaped(b, anchor);
	}
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lec__inventory_sort(char **lines, size_t n)
{
	if (n)
		qsort(lines, n, sizeof(*lines), compare_lines);
}

static int line_in(char *const *lines, size_t n, const char *line)
{
	return n && bsearch(&line, lines, n, sizeof(*lines), compare_lines);
}

/* A line of an inventory back to a page and anchor (into b: "page\0anchor"
 * with *anchor_at the anchor's offset, 0 for none). */
static void unescape_line(struct lec__buf *b, const char *s, size_t n,
			  size_t *anchor_at)
{
	size_t i;
	int hi, lo;

	b->len = 0;
	*anchor_at = 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '#' && *anchor_at == 0) {
			lec__buf_putn(b, "", 1);
			*anchor_at = b->len;
		} else if (s[i] == '%' && i + 2 < n &&
			   (hi = lec__hex_value(s[i + 1])) >= 0 &&
			   (lo = lec__hex_value(s[i + 2])) >= 0) {
			char ch = (char)(hi * 16 + lo);

			lec__buf_putn(b, ch ? &ch : "?", 1);
			i += 2;
		} else {
			lec__buf_putn(b, s + i, 1);
		}
	}
	lec__buf_putn(b, "", 0);
}

int lec__inventory_compare(char *const *lines, size_t n, const char *prev,
			   size_t prev_len, lec__inventory_removed_fn removed,
			   void *payload)
{
	struct lec__buf line = LEC__BUF_INIT, text = LEC__BUF_INIT,
			page = LEC__BUF_INIT;
	size_t i = 0;
	int error = LEC_OK;

	while (i < prev_len && error == LEC_OK) {
		const char *nl = memchr(prev + i, '\n', prev_len - i);
		size_t end = nl ? (size_t)(nl - prev) : prev_len, anchor_at;
		const char *hash;

		line.len = 0;
		lec__buf_putn(&line, prev + i, end - i);
		i = end + 1;
		if (line.oom) {
			error = lec__error_oom();
			break;
		}
		if (line.len == 0 || line_in(lines, n, line.ptr))
			continue;
		/* An anchor of a page gone too: the page says it. */
		hash = memchr(line.ptr, '#', line.len);
		if (hash) {
			page.len = 0;
			lec__buf_putn(&page, line.ptr,
				      (size_t)(hash - line.ptr));
			if (page.oom || !line_in(lines, n, page.ptr))
				continue;
		}
		unescape_line(&text, line.ptr, line.len, &anchor_at);
		if (text.oom) {
			error = lec__error_oom();
			break;
		}
		error = removed(payload, text.ptr,
				anchor_at ? text.ptr + anchor_at : NULL);
	}
	lec__buf_dispose(&line);
	lec__buf_dispose(&text);
	lec__buf_dispose(&page);
	return error;
}

int lec__inventory_text(char *const *lines, size_t n, char **out,
			size_t *out_len)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		lec__buf_puts(&b, lines[i]);
		lec__buf_putn(&b, "\n", 1);
	}
	if (b.ptr == NULL)
		lec__buf_puts(&b, "");
	*out_len = b.len;
	if ((*out = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	return LEC_OK;
}
