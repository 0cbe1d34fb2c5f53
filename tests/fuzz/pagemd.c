/*
 * Fuzz target: a page as Markdown (engine/src/pagemd.c), what the docs
 * host answers a request for text/markdown and /llms-full.txt strings
 * together: libxml2's recovering parse, the main node, and the renderer's
 * blocks, lists, tables and inline text.
 *
 * Input: the page's bytes, as a build wrote them. Besides the sanitizers:
 * the result's length is its string's, the Markdown is empty or ends with
 * one newline, no control character but tabs and line breaks appears in it
 * or in the title (the renderer's own marks never leak, whatever bytes the
 * page holds), and for a page in valid UTF-8 both are valid UTF-8.
 */
#include <string.h>

#include "fuzz.h"
#include "lectern/embed.h"
#include "lectern/errors.h"
#include "lectern/pagemd.h"

#define PAGE_URL "http://docs.localhost:8000/en/latest/guide/install.html"

static int has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' &&
		     *s != '\r') ||
		    *s == 0x7f)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec_page_md *md = NULL;
	int utf8 = fuzz_utf8_valid((const char *)data, size);
	int rc;

	if (size > LEC_EMBED_PAGE_MAX)
		return 0;
	rc = lec_page_markdown((const char *)data, size, PAGE_URL, &md);
	if (rc == LEC_ENOMEM)
		return 0;
	FUZZ_CHECK(rc == LEC_OK, "any page converts");
	FUZZ_CHECK(md->len == strlen(md->markdown), "the length is the text's");
	FUZZ_CHECK(md->len == 0 || (md->markdown[md->len - 1] == '\n' &&
				    (md->len < 2 ||
				     md->markdown[md->len - 2] != '\n')),
		   "Markdown ends with one newline");
	FUZZ_CHECK(!has_control(md->markdown) && !has_control(md->title),
		   "no control characters");
	FUZZ_CHECK(!utf8 || (fuzz_utf8_valid(md->markdown, md->len) &&
			     fuzz_utf8_valid(md->title, strlen(md->title))),
		   "UTF-8 in, UTF-8 out");
	lec_page_md_free(md);
	return 0;
}
