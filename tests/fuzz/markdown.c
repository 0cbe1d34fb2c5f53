/*
 * Fuzz target: the Markdown generator's page renderer
 * (engine/src/mdsite_render.c with md4c, and the link rewriting, heading
 * ids and entity decoding of mdsite_link.c and mdsite_text.c), after the
 * page's front matter (mdsite_meta.c, with the engine's YAML reader,
 * yaml.c).
 *
 * lec_mdsite_build renders each page by repairing its bytes to valid UTF-8
 * (lec_mdsite__utf8_repair), NUL-terminating them (md4c reads one byte
 * past its input) and calling lec_mdsite__render; the harness does the
 * same with the input as a page in a subdirectory, so relative links are
 * resolved against it. Besides the sanitizers: the body and the title are
 * valid UTF-8.
 */
#include <string.h>

#include "fuzz.h"
#include "mdsite_internal.h"

/* The page's directory, so "../x.md" and "sub/README.md" both resolve. */
#define PAGE_DIR "guide/sub"
/* The output path a resolved link gets: an index, to reach both of
 * links_to_index's answers with one rule below. */
#define RESOLVED_INDEX "guide/index.html"
#define RESOLVED_PAGE "guide/page.html"

/* Pages exist for every source path; those naming "index" were written as
 * their directory's index.html. */
static const char *resolve(const char *src_rel, void *payload)
{
	(void)payload;
	return strstr(src_rel, "index") ? RESOLVED_INDEX : RESOLVED_PAGE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec__buf raw = LEC__BUF_INIT;
	struct lec__buf fixed = LEC__BUF_INIT;
	struct lec__buf body = LEC__BUF_INIT;
	struct lec_mdsite__links links = { PAGE_DIR, resolve, NULL };
	const struct lec__buf *md = &raw;
	char *title = NULL, *meta_title = NULL;
	size_t skip = 0;

	lec__buf_putn(&raw, (const char *)data, size);
	lec__buf_putc(&raw, '\0');
	raw.len--;
	if (lec_mdsite__utf8_repair(raw.ptr, raw.len, &fixed) > 0) {
		lec__buf_putc(&fixed, '\0');
		fixed.len--;
		md = &fixed;
	}
	/* The front matter first, as the generator reads a page. */
	if (!raw.oom && !fixed.oom &&
	    lec_mdsite__front_matter(md->ptr, md->len, &skip, &meta_title) ==
		    LEC_OK) {
		FUZZ_CHECK(skip <= md->len, "the front matter is in the page");
		FUZZ_CHECK(meta_title == NULL ||
				   fuzz_utf8_valid(meta_title, strlen(meta_title)),
			   "the front matter's title is valid UTF-8");
	}
	if (!raw.oom && !fixed.oom &&
	    lec_mdsite__render(md->ptr + skip, md->len - skip, &links, &body,
			       &title) == LEC_OK) {
		FUZZ_CHECK(fuzz_utf8_valid(body.ptr ? body.ptr : "", body.len),
			   "the page's HTML is valid UTF-8");
		FUZZ_CHECK(title == NULL || fuzz_utf8_valid(title, strlen(title)),
			   "the title is valid UTF-8");
	}
	lec__free(title);
	lec__free(meta_title);
	lec__buf_dispose(&body);
	lec__buf_dispose(&fixed);
	lec__buf_dispose(&raw);
	return 0;
}
