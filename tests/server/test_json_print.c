/*
 * Unit tests of the server's JSON printer (src/server/json_print.c): its
 * text is cJSON_PrintUnformatted's, byte for byte, with U+2028 and U+2029
 * escaped, over strings with every kind of byte that needs escaping,
 * numbers in each of cJSON's formats, and nesting of every kind.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "handler.h"

/* cJSON's text with the line separators escaped: what the printer must
 * write (owned by the caller). */
static char *expected(const cJSON *item)
{
	char *text = cJSON_PrintUnformatted(item), *out, *o;
	const char *s;

	if (text == NULL)
		return NULL;
	out = malloc(strlen(text) * 2 + 1);
	for (s = text, o = out; out && *s; s++) {
		if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
		    ((unsigned char)s[2] == 0xA8 || (unsigned char)s[2] == 0xA9)) {
			memcpy(o, (unsigned char)s[2] == 0xA8 ? "\\u2028" : "\\u2029",
			       6);
			o += 6;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	if (out)
		*o = '\0';
	free(text);
	return out;
}

static void check_same(const cJSON *item)
{
	size_t len = 0;
	char *got = srv_json_print(item, &len), *want = expected(item);

	if (got == NULL || want == NULL) {
		FAIL_AT("no text (got %p, cJSON %p)", (void *)got, (void *)want);
	} else {
		CHECK_STR(got, want);
		CHECK_INT(len, strlen(want));
	}
	free(got);
	free(want);
}

TEST(strings_escape_as_cjson_does)
{
	static const char *const strings[] = {
		"", "plain", "quote \" and backslash \\ and slash /",
		"\b\f\n\r\t", "\x01\x02\x1f\x7f", "caf\xc3\xa9 \xe2\x82\xac",
		"line\xe2\x80\xa8separator\xe2\x80\xa9paragraph",
		"\xe2\x80", "\xe2", "\xe2\x80\xa7 \xe2\x81\xa8",
		"<span>html</span> &amp; \xf0\x9f\x98\x80",
	};
	cJSON *root = cJSON_CreateObject(), *list = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		cJSON *one = cJSON_CreateString(strings[i]);

		check_same(one);
		cJSON_Delete(one);
		cJSON_AddStringToObject(root, strings[i], strings[i]);
		cJSON_AddItemToArray(list, cJSON_CreateString(strings[i]));
	}
	cJSON_AddItemToObject(root, "list", list);
	check_same(root);
	cJSON_Delete(root);
}

TEST(numbers_print_as_cjson_does)
{
	static const double numbers[] = {
		0, -0.0, 1, -1, 42, 2147483647, 2147483648.0, -2147483649.0,
		0.1, 1.0 / 3, 2.5, 1e300, -1e-300, 123456789012345678.0,
		340.0, 317.25615894373635, 5e-324, 1.7976931348623157e308,
	};
	cJSON *list = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		cJSON *one = cJSON_CreateNumber(numbers[i]);

		check_same(one);
		cJSON_Delete(one);
		cJSON_AddItemToArray(list, cJSON_CreateNumber(numbers[i]));
	}
	check_same(list);
	cJSON_Delete(list);
}

TEST(special_numbers_are_null)
{
	cJSON *list = cJSON_CreateArray();
	size_t len = 0;
	char *got;

	cJSON_AddItemToArray(list, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(list, cJSON_CreateNumber(INFINITY));
	cJSON_AddItemToArray(list, cJSON_CreateNumber(-INFINITY));
	got = srv_json_print(list, &len);
	CHECK_STR(got, "[null,null,null]");
	free(got);
	cJSON_Delete(list);
}

TEST(nesting_and_literals_print_as_cjson_does)
{
	cJSON *root = cJSON_CreateObject(), *inner = cJSON_CreateObject();
	cJSON *deep = cJSON_CreateArray();

	cJSON_AddNullToObject(root, "null");
	cJSON_AddTrueToObject(root, "yes");
	cJSON_AddFalseToObject(root, "no");
	cJSON_AddItemToObject(root, "empty object", cJSON_CreateObject());
	cJSON_AddItemToObject(root, "empty array", cJSON_CreateArray());
	cJSON_AddRawToObject(root, "raw", "{\"already\":[1,2]}");
	cJSON_AddItemToArray(deep, cJSON_CreateArray());
	cJSON_AddItemToArray(deep, cJSON_CreateObject());
	cJSON_AddItemToArray(deep, cJSON_CreateString("x"));
	cJSON_AddItemToObject(inner, "deep", deep);
	cJSON_AddItemToObject(root, "inner", inner);
	check_same(root);
	cJSON_Delete(root);
}

TEST(parsed_documents_print_as_cjson_does)
{
	static const char *const docs[] = {
		"{\"count\":2,\"next\":null,\"results\":[{\"a\":1.5,\"b\":[true,false]}]}",
		"[\"\\u2028\",\"\\u0001\",\"\\ud83d\\ude00\",-12.5e3,1E2]",
		"{\"\":{\"\":[]}}",
	};
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		cJSON *doc = cJSON_Parse(docs[i]);

		CHECK(doc != NULL);
		if (doc)
			check_same(doc);
		cJSON_Delete(doc);
	}
}

static const struct lec_test tests[] = {
	TEST_ENTRY(strings_escape_as_cjson_does),
	TEST_ENTRY(numbers_print_as_cjson_does),
	TEST_ENTRY(special_numbers_are_null),
	TEST_ENTRY(nesting_and_literals_print_as_cjson_does),
	TEST_ENTRY(parsed_documents_print_as_cjson_does),
};

int main(int argc, char **argv)
{
	return lec_test_run(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
