/*
 * Fuzz target: the server's JSON printer (src/server/json_print.c), every
 * response body's text. The input is parsed by cJSON; a document it takes
 * must print, byte for byte, as cJSON_PrintUnformatted prints it with
 * U+2028 and U+2029 escaped (the printer's whole promise), and the length
 * given must be the text's.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "handler.h"

/* cJSON's text with the line separators escaped (owned; NULL when cJSON
 * cannot print). */
static char *reference(const cJSON *doc)
{
	char *text = cJSON_PrintUnformatted(doc), *out, *o;
	const unsigned char *s;

	if (text == NULL)
		return NULL;
	if ((out = malloc(strlen(text) * 2 + 1)) == NULL)
		abort();
	for (s = (const unsigned char *)text, o = out; *s; s++) {
		if (s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9)) {
			memcpy(o, s[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
			o += 6;
			s += 2;
		} else {
			*o++ = (char)*s;
		}
	}
	*o = '\0';
	free(text);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	char *want, *got;
	size_t len = 0;

	if (doc == NULL)
		return 0;
	want = reference(doc);
	got = srv_json_print(doc, &len);
	FUZZ_CHECK((want == NULL) == (got == NULL),
		   "prints exactly when cJSON prints");
	if (want && got) {
		FUZZ_CHECK(strcmp(want, got) == 0, "the same text as cJSON's");
		FUZZ_CHECK(len == strlen(got), "the length given is the text's");
	}
	free(want);
	free(got);
	cJSON_Delete(doc);
	return 0;
}
