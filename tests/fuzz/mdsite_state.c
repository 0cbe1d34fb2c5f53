/*
 * Fuzz target: the manifest of the Markdown generator's kept state
 * (engine/src/mdsite_state.c), which a build reads back from its state
 * directory; a damaged one must be refused, never crash the build or be
 * half taken.
 *
 * The input is a manifest. Besides the sanitizers: an accepted manifest
 * has what it says (as many pages as its end line counts, each found by
 * its output path, digests of 64 hex digits or none), and written again it
 * is the same bytes, so what the generator writes it reads back exactly;
 * a refused one leaves nothing behind.
 */
#include <string.h>

#include "fuzz.h"
#include "mdsite_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec__buf again = LEC__BUF_INIT;
	struct lec_mdsite__state st;
	size_t i;
	int rc = lec_mdsite__state_parse((const char *)data, size, &st);

	if (rc != LEC_OK) {
		FUZZ_CHECK(rc == LEC_EINVALID, "refused as invalid");
		FUZZ_CHECK(st.npages == 0 && st.pages == NULL &&
			   st.generator == NULL,
			   "a refused manifest leaves nothing");
		return 0;
	}
	lec_mdsite__state_put_header(&again, st.generator, st.site);
	for (i = 0; i < st.npages; i++) {
		const struct lec_mdsite__kept_page *k = &st.pages[i];

		FUZZ_CHECK(lec_mdsite__state_find(&st, k->out_rel) == k,
			   "each page is found by its output path");
		FUZZ_CHECK(strlen(k->html) == LEC__SHA256_HEX_LEN &&
			   (k->hash[0] == '\0' ||
			    strlen(k->hash) == LEC__SHA256_HEX_LEN),
			   "digests are whole");
		lec_mdsite__state_put_page(&again, &st.pages[i]);
	}
	lec_mdsite__state_put_end(&again, st.npages);
	FUZZ_CHECK(!again.oom && again.len == size &&
		   memcmp(again.ptr, data, size) == 0,
		   "written again, the same bytes");
	lec__buf_dispose(&again);
	lec_mdsite__state_dispose(&st);
	return 0;
}
