/*
 * Fuzz target: a build's warnings (engine/src/build_warnings.c and
 * linkcheck.c), which read what a project's build writes: a generator's
 * output streamed in chunks, and a published HTML page.
 *
 * The input's first byte picks what it is (even: Sphinx's output, odd:
 * MkDocs'; and for values >= 0xf0 an HTML page for the link check) and
 * how the output is cut into chunks; the rest is the output or the page.
 * Besides the sanitizers: at most LEC_WARNINGS_MAX records, each file and
 * message valid UTF-8 without control characters (a message may have
 * line breaks), within their caps; and output cut differently gives the
 * same records.
 */
#include <string.h>

#include "build_warnings.h"
#include "fuzz.h"

/* Whether s is what a record's text promises: valid UTF-8, no control
 * character (a line break where allowed). */
static int safe_text(const char *s, int multiline)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!fuzz_utf8_valid(s, strlen(s)))
		return 0;
	for (; *p; p++)
		if ((*p < 0x20 && !(multiline && *p == '\n')) || *p == 0x7f)
			return 0;
	return 1;
}

static void check_set(const struct lec_warning_set *set)
{
	size_t i;

	FUZZ_CHECK(set->len <= LEC_WARNINGS_MAX, "records are capped");
	for (i = 0; i < set->len; i++) {
		const struct lec_warning *w = &set->items[i];

		FUZZ_CHECK(safe_text(w->file, 0), "a file is safe text");
		FUZZ_CHECK(safe_text(w->message, 1), "a message is safe text");
		FUZZ_CHECK(strlen(w->file) <= LEC_WARNING_FILE_MAX &&
			   strlen(w->message) <= LEC_WARNING_MESSAGE_MAX,
			   "texts are capped");
		FUZZ_CHECK(w->kind >= LEC_WARNING_WARNING &&
			   w->kind <= LEC_WARNING_REMOVED, "a kind");
	}
}

static void parse(enum lec__warn_format format, const uint8_t *data,
		  size_t size, size_t chunk, struct lec_warning_set *set)
{
	struct lec__warn_parser p;
	size_t i;

	lec__warn_parser_init(&p, format, set, "/tree", "docs", "docs/conf.py");
	for (i = 0; i < size; i += chunk)
		lec__warn_parser_feed(&p, (const char *)data + i,
				      size - i < chunk ? size - i : chunk);
	lec__warn_parser_end(&p);
	lec__warn_parser_dispose(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec_warning_set one = { 0 }, whole = { 0 };
	enum lec__warn_format format;
	size_t chunk, i;

	if (size == 0)
		return 0;
	if (data[0] >= 0xf0) {
		lec__linkcheck_page((const char *)data + 1, size - 1,
				    "dir/page.html", &one, NULL);
		check_set(&one);
		lec_warning_set_dispose(&one);
		return 0;
	}
	format = data[0] & 1 ? LEC__WARN_MKDOCS : LEC__WARN_SPHINX;
	chunk = (size_t)(data[0] >> 1) + 1;
	parse(format, data + 1, size - 1, chunk, &one);
	parse(format, data + 1, size - 1, size, &whole);
	check_set(&one);
	FUZZ_CHECK(one.len == whole.len && one.dropped == whole.dropped,
		   "chunks give the same records");
	for (i = 0; i < one.len && i < whole.len; i++)
		FUZZ_CHECK(strcmp(one.items[i].message, whole.items[i].message) ==
					   0 &&
				   strcmp(one.items[i].file, whole.items[i].file) ==
					   0 &&
				   one.items[i].line == whole.items[i].line,
			   "chunks give the same records");
	lec_warning_set_dispose(&one);
	lec_warning_set_dispose(&whole);
	return 0;
}
