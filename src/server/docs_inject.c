/*
 * The addons' tag put into an HTML page the docs host sends (issue 39):
 * the hosted service injects its addons' script into every HTML answer,
 * and a reader of Lectern's docs gets Lectern's own the same way. The tag
 * goes before the page's first </head> (any case), so it loads after the
 * page's own head and before its body; a page without one (a fragment, a
 * generator that writes no head) is left as it is. The tag is the same
 * for every page, so an injected page is still one entity per file,
 * which the body cache of docs_send.c keeps like any other.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "docs.h"

static const char tag[] = "<script async src=\"" DOCS_ADDONS_SCRIPT_PATH
			  "\"></script>";

/* The first "</head" of html (n bytes), or NULL. */
static const char *head_end(const char *html, size_t n)
{
	const char *p = html, *end = html + n;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) >= 7 && p[1] == '/' &&
		    strncasecmp(p + 2, "head", 4) == 0 &&
		    (p[6] == '>' || p[6] == ' ' || p[6] == '\t' ||
		     p[6] == '\n' || p[6] == '\r'))
			return p;
		p++;
	}
	return NULL;
}

char *docs_inject_addons(const char *html, size_t n, size_t *len)
{
	const char *at = head_end(html, n);
	size_t before, tn = sizeof(tag) - 1;
	char *out;

	if (at == NULL || (out = malloc(n + tn)) == NULL)
		return NULL;
	before = (size_t)(at - html);
	memcpy(out, html, before);
	memcpy(out + before, tag, tn);
	memcpy(out + before + tn, at, n - before);
	*len = n + tn;
	return out;
}
