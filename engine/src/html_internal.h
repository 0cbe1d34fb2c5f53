/*
 * A published page as libxml2's tree, for the modules that read one whole
 * (embed.c, which implements these, and pagemd.c): the parse and the main
 * node, the same for both so the embed API and a page's Markdown show the
 * same content.
 */
#ifndef LECTERN_HTML_INTERNAL_H
#define LECTERN_HTML_INTERNAL_H

#include <libxml/HTMLparser.h>
#include <stddef.h>

/* Parse len bytes of a page (at most LEC_EMBED_PAGE_MAX) into *doc (the
 * caller's, xmlFreeDoc), recovering from any markup silently and fetching
 * nothing; url is the page's address. LEC_OK, LEC_EINVALID (too large),
 * LEC_ENOMEM. */
int lec__html_parse(const char *html, size_t len, const char *url,
		    xmlDoc **doc);
/* Whether n is an element with this tag name (any case). */
int lec__html_is(const xmlNode *n, const char *name);
/* An attribute's value ("" when it has no text), or NULL when absent (or
 * n is no element). */
const char *lec__html_attr(const xmlNode *n, const char *name);
/* The page's main content: [role=main], <main>, the parent of the first
 * <h1>, and with body_fallback finally <body> or the root; NULL without. */
xmlNode *lec__html_main_node(xmlDoc *doc, int body_fallback);

#endif
