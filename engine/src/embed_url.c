/*
 * Making a page's links absolute for the embed API (lec_embed_absolute_url):
 * RFC 3986 §5.2 reference resolution, the way a browser reads a link on the
 * page. Embedded HTML is shown on another site, where a relative link would
 * point into that site, so every link and image must carry the docs host.
 *
 * The service's historical code concatenated the page's directory and the
 * link without removing "../" segments; the result named the same page but
 * looked odd, so Lectern resolves properly (docs/embed.md).
 */
#include <string.h>

#include "internal.h"
#include "lectern/embed.h"

/* The parts of an absolute URL, as offsets into it. */
struct url_parts {
	size_t scheme_len;    /* "http" */
	size_t authority_end; /* end of "http://host:port" */
	size_t path_end;      /* end of the path */
	size_t query_end;     /* end of "?query" (start of "#fragment") */
};

static int scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

/* The length of a scheme followed by ':' at the start of s, or 0. */
static size_t scheme_length(const char *s)
{
	size_t i = 0;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (scheme_char(s[i]))
		i++;
	return s[i] == ':' ? i : 0;
}

static int split_base(const char *base, struct url_parts *u)
{
	size_t n;

	u->scheme_len = scheme_length(base);
	if (u->scheme_len == 0 ||
	    strncmp(base + u->scheme_len, "://", 3) != 0)
		return -1;
	n = u->scheme_len + 3;
	n += strcspn(base + n, "/?#");
	u->authority_end = n;
	n += strcspn(base + n, "?#");
	u->path_end = n;
	n += strcspn(base + n, "#");
	u->query_end = n;
	return 0;
}

/* Append path (n bytes) to b with "." and ".." segments removed
 * (RFC 3986 §5.2.4); the path starts with '/'. */
static void put_clean_path(struct lec__buf *b, const char *path, size_t n)
{
	size_t start = b->len, i = 0;

	while (i < n) {
		size_t seg = i + 1, end;

		end = seg;
		while (end < n && path[end] != '/')
			end++;
		if (end - seg == 1 && path[seg] == '.') {
			if (end == n)
				lec__buf_puts(b, "/");
		} else if (end - seg == 2 && path[seg] == '.' &&
			   path[seg + 1] == '.') {
			/* Drop the last output segment, never the start. */
			while (!b->oom && b->len > start &&
			       b->ptr[--b->len] != '/')
				;
			if (!b->oom)
				b->ptr[b->len] = '\0';
			if (end == n)
				lec__buf_puts(b, "/");
		} else {
			lec__buf_printf(b, "%.*s", (int)(end - i),
					path + i);
		}
		i = end;
	}
	if (!b->oom && b->len == start)
		lec__buf_puts(b, "/");
}

/* Resolve a path-relative or root-relative reference. */
static void put_path_ref(struct lec__buf *b, const char *base,
			 const struct url_parts *u, const char *ref)
{
	size_t ref_path = strcspn(ref, "?#");
	struct lec__buf merged = LEC__BUF_INIT;
	char *path;

	if (ref[0] == '/') {
		lec__buf_printf(&merged, "%.*s", (int)ref_path, ref);
	} else {
		size_t dir = u->path_end;

		while (dir > u->authority_end && base[dir - 1] != '/')
			dir--;
		if (dir == u->authority_end)
			lec__buf_puts(&merged, "/");
		else
			lec__buf_printf(&merged, "%.*s",
					(int)(dir - u->authority_end),
					base + u->authority_end);
		lec__buf_printf(&merged, "%.*s", (int)ref_path, ref);
	}
	path = lec__buf_take(&merged);
	if (path == NULL) {
		b->oom = 1;
		return;
	}
	put_clean_path(b, path, strlen(path));
	lec__buf_puts(b, ref + ref_path);
	lec__free(path);
}

int lec_embed_absolute_url(const char *base, const char *ref, char **out)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct url_parts u;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "no output");
	*out = NULL;
	if (base == NULL || ref == NULL || split_base(base, &u) < 0)
		return lec__error(LEC_EINVALID, "not an absolute URL: %s",
				  base ? base : "(null)");
	if (scheme_length(ref) > 0)
		lec__buf_puts(&b, ref);
	else if (ref[0] == '/' && ref[1] == '/')
		lec__buf_printf(&b, "%.*s:%s", (int)u.scheme_len, base, ref);
	else if (ref[0] == '#')
		lec__buf_printf(&b, "%.*s%s", (int)u.query_end, base, ref);
	else if (ref[0] == '?')
		lec__buf_printf(&b, "%.*s%s", (int)u.path_end, base, ref);
	else if (ref[0] == '\0')
		lec__buf_printf(&b, "%.*s", (int)u.query_end, base);
	else {
		lec__buf_printf(&b, "%.*s", (int)u.authority_end, base);
		put_path_ref(&b, base, &u, ref);
	}
	*out = lec__buf_take(&b);
	return *out ? LEC_OK : lec__error_oom();
}
