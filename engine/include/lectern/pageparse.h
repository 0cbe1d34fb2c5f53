/*
 * HTML pages to search records: the parser the search indexer runs over every
 * published page.
 *
 * A page becomes a title, a list of sections (what search indexes and returns
 * as "section" blocks) and a list of documentation-generator objects (Sphinx
 * domain entries such as a py:function, returned as "domain" blocks). The
 * rules are the hosted service's (main-node detection, cleaning, section
 * order, text rules) plus Lectern's domain entries; docs/search.md, section
 * "Parsing pages", lists them with the choices made where the service is
 * silent. A page that does not parse is not an error: it yields an empty
 * document, so one broken page never stops a build's indexing.
 */
#ifndef LECTERN_PAGEPARSE_H
#define LECTERN_PAGEPARSE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sections kept per page (and domain entries per page): the service's cap,
 * which matches its search index's nested-document limit. */
#define LEC_PAGE_SECTIONS_MAX 10000
/* Characters (code points) kept of any one title or content text: the
 * service's cap, so one huge page cannot fill the index. */
#define LEC_PAGE_TEXT_MAX 1048576
/* Bytes of HTML parsed per page; the largest page of big documentation sets
 * (CPython's) is a few MB, so anything larger is not a page. */
#define LEC_PAGE_HTML_MAX (64u * 1024u * 1024u)

/* One section of a page: what search indexes and returns as a "section"
 * block. All strings owned by the document, never NULL. */
struct lec_page_section {
	char *id;      /* anchor, "" for leading text or an unnamed heading */
	char *title;   /* whitespace-collapsed heading or term text */
	char *content; /* whitespace-collapsed text, at most LEC_PAGE_TEXT_MAX */
};

/* One documentation-generator object (Sphinx domain entry): a "domain"
 * block. All strings owned by the document, never NULL. */
struct lec_page_domain {
	char *role;    /* "<domain>:<object type>", e.g. "py:function" */
	char *name;    /* full object name, e.g. "os.path.join" */
	char *id;      /* anchor of the entry */
	char *content; /* its description, nested entries left out */
};

struct lec_page_doc {
	char *title; /* never NULL; "" only for a page that did not parse */
	struct lec_page_section *sections; /* in the service's order */
	size_t sections_len;
	struct lec_page_domain *domains; /* in document order */
	size_t domains_len;
};

/**
 * Parse a page's HTML.
 * @param html the page bytes (need not be NUL-terminated); NULL only with
 *             len 0
 * @param len bytes of html, at most LEC_PAGE_HTML_MAX
 * @param path the page's file path relative to the output root, the title of
 *             last resort
 * @param out the document (owned by caller, lec_page_doc_free). A page that
 *            fails to parse yields an empty document (title "", no sections)
 *            and LEC_OK.
 * @return LEC_OK, LEC_EINVALID (NULL argument), LEC_ELIMIT (len over
 *         LEC_PAGE_HTML_MAX), LEC_ENOMEM
 */
int lec_page_parse_html(const char *html, size_t len, const char *path,
			struct lec_page_doc **out);

/**
 * Read a file and parse it as lec_page_parse_html does.
 * @param file the file to read
 * @param path as for lec_page_parse_html
 * @param out the document (owned by caller, lec_page_doc_free)
 * @return LEC_OK, LEC_EINVALID (NULL argument), LEC_EIO (cannot open or
 *         read, the message names the file), LEC_ELIMIT (file larger than
 *         LEC_PAGE_HTML_MAX), LEC_ENOMEM
 */
int lec_page_parse_file(const char *file, const char *path,
			struct lec_page_doc **out);

/** Free a document with everything it holds. Accepts NULL. */
void lec_page_doc_free(struct lec_page_doc *doc);

#ifdef __cplusplus
}
#endif
#endif
