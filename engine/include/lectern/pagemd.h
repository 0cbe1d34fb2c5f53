/*
 * A published page as Markdown, for agents: what the docs host answers a
 * request that asks for text/markdown, and what /llms-full.txt strings
 * together (docs/serving.md, "Docs for agents").
 *
 * The page's main content (the embed API's: [role=main], <main>, the
 * parent of the first <h1>, else the body) becomes CommonMark with the
 * GitHub table extension: headings, paragraphs, lists (nested, ordered
 * ones with their numbers), fenced code blocks with their language (from
 * the classes Sphinx, MkDocs, Pandoc and Lectern's Markdown builder put on
 * them), tables, block quotes, definition lists (Pandoc's form), emphasis,
 * inline code, images, and links made absolute against the page's URL.
 * Navigation, scripts, styles, permalink markers and line numbers are left
 * out.
 */
#ifndef LECTERN_PAGEMD_H
#define LECTERN_PAGEMD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Elements deep a page is read: libxml2's own nesting limit for HTML, so
 * a hostile page cannot exhaust the stack; deeper content is left out. */
#define LEC_PAGE_MD_DEPTH_MAX 256

struct lec_page_md {
	char *title;    /* the first <h1> of the main content, else <title>,
			   whitespace-collapsed; "" when neither */
	char *markdown; /* NUL-terminated, ends with one newline ("" for a
			   page without content) */
	size_t len;     /* bytes of markdown */
};

/**
 * Convert a page.
 * @param html     the page's bytes (NUL not needed), at most
 *                 LEC_EMBED_PAGE_MAX (lectern/embed.h)
 * @param page_url the page's absolute URL, which relative links and images
 *                 are resolved against; NULL leaves them as written
 * @param out      the result (owned by caller, lec_page_md_free)
 * @return LEC_OK; LEC_EINVALID (a NULL argument, a page too large);
 *         LEC_ENOMEM
 */
int lec_page_markdown(const char *html, size_t len, const char *page_url,
		      struct lec_page_md **out);

/* What else a conversion may do (lec_page_markdown_with). */
struct lec_page_md_options {
	/* Non-zero: each heading ends with its anchor, " {#id}" (the id it
	 * or the section it opens has), so a reader can link to it. */
	int anchors;
	/* Non-NULL: only the section of this id (an element holding it, or
	 * a heading and what follows it up to one of its level). */
	const char *section;
};

/**
 * Convert a page as lec_page_markdown does, with options (NULL: none).
 * @return as lec_page_markdown; LEC_ENOTFOUND (no element has the
 *         section's id)
 */
int lec_page_markdown_with(const char *html, size_t len, const char *page_url,
			   const struct lec_page_md_options *opts,
			   struct lec_page_md **out);

/**
 * Read a file and convert it as lec_page_markdown does.
 * @return as lec_page_markdown; LEC_EIO when the file cannot be read
 */
int lec_page_markdown_file(const char *file, const char *page_url,
			   struct lec_page_md **out);

/** Free a result. Accepts NULL. */
void lec_page_md_free(struct lec_page_md *md);

#ifdef __cplusplus
}
#endif
#endif
