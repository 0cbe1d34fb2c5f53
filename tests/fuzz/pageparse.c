/*
 * Fuzz target: the search indexer's HTML page parser
 * (engine/src/pageparse.c), libxml2's recovering parser and the rules that
 * turn a page into a title, sections and domain entries.
 *
 * Pages are whatever a project's build wrote, so the input is the page
 * bytes as they are. Besides the sanitizers, the document's promises are
 * checked: every string present, no text longer than LEC_PAGE_TEXT_MAX
 * characters, no more than LEC_PAGE_SECTIONS_MAX sections or domain
 * entries, and for a page in valid UTF-8, strings in valid UTF-8 (cutting
 * a text never splits a character). A page that is not valid UTF-8 may
 * give strings that are not either (libxml2 passes some bytes through);
 * the indexer cleans every string it stores (docs/search.md, "Text").
 */
#include <string.h>

#include "fuzz.h"
#include "lectern/errors.h"
#include "lectern/pageparse.h"

/* The page's path, the title of last resort. */
#define PAGE_PATH "guide/install.html"

/* Characters as the parser counts them when it cuts a text: lead bytes. */
static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void check_text(const char *s, int utf8_page, const char *what)
{
	FUZZ_CHECK(s != NULL, what);
	FUZZ_CHECK(!utf8_page || fuzz_utf8_valid(s, strlen(s)), what);
	FUZZ_CHECK(chars(s) <= LEC_PAGE_TEXT_MAX, what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec_page_doc *doc = NULL;
	int utf8_page = fuzz_utf8_valid((const char *)data, size);
	size_t i;
	int rc;

	rc = lec_page_parse_html((const char *)data, size, PAGE_PATH, &doc);
	if (rc == LEC_ENOMEM)
		return 0;
	FUZZ_CHECK(rc == LEC_OK && doc != NULL, "any page parses");
	check_text(doc->title, utf8_page, "the title");
	FUZZ_CHECK(doc->sections_len <= LEC_PAGE_SECTIONS_MAX &&
			   doc->domains_len <= LEC_PAGE_SECTIONS_MAX,
		   "at most LEC_PAGE_SECTIONS_MAX sections and domains");
	for (i = 0; i < doc->sections_len; i++) {
		check_text(doc->sections[i].id, utf8_page,
			   "a section's id");
		check_text(doc->sections[i].title, utf8_page,
			   "a section's title");
		check_text(doc->sections[i].content, utf8_page,
			   "a section's content");
	}
	for (i = 0; i < doc->domains_len; i++) {
		check_text(doc->domains[i].role, utf8_page,
			   "a domain's role");
		check_text(doc->domains[i].name, utf8_page,
			   "a domain's name");
		check_text(doc->domains[i].id, utf8_page,
			   "a domain's id");
		check_text(doc->domains[i].content, utf8_page,
			   "a domain's content");
	}
	lec_page_doc_free(doc);
	return 0;
}
