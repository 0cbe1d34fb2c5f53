/*
 * Embedding a piece of published documentation elsewhere (the hosted
 * service's embed API, behaviour notes §3.6): given a page of built HTML
 * and a section, find the section's HTML with its links made absolute, so
 * that a tooltip on another site can show it.
 *
 * Two flavours, as the service has them:
 * - v2 (historical): the section is looked up by id, by its slugified
 *   title, by docutils' id rule, as a Python module, then by heading text;
 *   the answer carries the page's headers (its local table of contents).
 *   The service read Sphinx's JSON builder output; Lectern builds HTML, so
 *   the page body and its table of contents are derived from the HTML.
 * - v3: the element whose id is the URL's fragment, else the page's main
 *   content (or what a simple CSS selector names).
 *
 * Pages are parsed with libxml2's forgiving HTML parser: broken markup
 * gives a best-effort tree, never an error.
 */
#ifndef LECTERN_EMBED_H
#define LECTERN_EMBED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest page read from a file: far above any real documentation page
 * (the Python library reference's biggest is about 1.5 MB). */
#define LEC_EMBED_PAGE_MAX (16 * 1024 * 1024)
/* Longest section or fragment looked up; ids are short. */
#define LEC_EMBED_SECTION_MAX 1024

/* One entry of a page's table of contents: {title: anchor} on the wire. */
struct lec_embed_header {
	char *title;  /* the heading's text */
	char *anchor; /* "#" for the page title, "#<id>" for a section;
			 NULL when the heading has no id */
};

/* The answer to an embed v2 lookup. */
struct lec_embed_v2 {
	char **content; /* content_len HTML strings, owned; empty when the
			   section was not found */
	size_t content_len;
	struct lec_embed_header *headers; /* headers_len entries, owned */
	size_t headers_len;
	char *section; /* the section looked up: as asked, or the first
			  header's title lowercased when none was asked;
			  NULL when neither exists */
};

/**
 * Embed v2 on a page held in memory.
 * @param html the page (need not be NUL-terminated), len bytes
 * @param page_url the page's absolute URL ("http://p.localhost:8000/en/
 *                 latest/usage.html"); relative links and images in the
 *                 content are resolved against it
 * @param section the section to find, or NULL/"" for the first header's
 * @param out the answer, owned by the caller (lec_embed_v2_free)
 * @return LEC_OK (also when the section is not found: content_len is 0),
 *         LEC_EINVALID (NULL argument, overlong section), LEC_ENOMEM
 */
int lec_embed_v2_html(const char *html, size_t len, const char *page_url,
		      const char *section, struct lec_embed_v2 **out);

/**
 * Embed v2 on a published file (see lec_embed_v2_html).
 * @return also LEC_ENOTFOUND when the file cannot be read (not a regular
 *         file, or larger than LEC_EMBED_PAGE_MAX)
 */
int lec_embed_v2_file(const char *path, const char *page_url,
		      const char *section, struct lec_embed_v2 **out);

/** Free an answer; NULL is a no-op. */
void lec_embed_v2_free(struct lec_embed_v2 *embed);

/**
 * Embed v3 on a page held in memory: the outer HTML of the element whose
 * id is fragment; without a fragment, of the first element maincontent
 * names, else of the page's main node ([role=main], <main>, the parent of
 * the first <h1>). maincontent may be "#id", ".class", "tag",
 * "tag.class", "tag#id" or "[attr=value]" (value optionally quoted); other
 * selectors are LEC_EINVALID. With doctool "sphinx", a <dt> found by its
 * id brings its definition: for a glossary or citation list the <dl> with
 * only that term and its <dd>, otherwise the whole <dl>.
 * @param fragment id to find, or NULL/""
 * @param maincontent selector, or NULL/""
 * @param doctool "sphinx", another tool's name, or NULL
 * @param out the HTML, owned by the caller (free with free())
 * @return LEC_OK; LEC_ENOTFOUND when nothing matches; LEC_EINVALID;
 *         LEC_ENOMEM
 */
int lec_embed_v3_html(const char *html, size_t len, const char *page_url,
		      const char *fragment, const char *maincontent,
		      const char *doctool, char **out);

/** Embed v3 on a published file (see lec_embed_v3_html); an unreadable
 * file is LEC_ENOTFOUND. */
int lec_embed_v3_file(const char *path, const char *page_url,
		      const char *fragment, const char *maincontent,
		      const char *doctool, char **out);

/**
 * Resolve a link of a page against the page's URL (RFC 3986 §5.2, as a
 * browser would): "#x", "?q", "rel/../x.html", "/abs" and "//host/x" become
 * absolute; a reference with its own scheme ("https:", "mailto:") is
 * returned unchanged.
 * @param base an absolute URL; its fragment is ignored
 * @param out owned by the caller (free())
 * @return LEC_OK, LEC_EINVALID (base not absolute), LEC_ENOMEM
 */
int lec_embed_absolute_url(const char *base, const char *ref, char **out);

#ifdef __cplusplus
}
#endif
#endif
