/*
 * Unit tests of the server's text checks that face every request: the
 * word-at-a-time UTF-8 check (srv_utf8_valid, input.c) agrees with
 * libunistring's u8_check on every input, and the form builder's key map
 * (keymap.c) finds what it holds among many keys and nothing else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistr.h>

#include "check.h"
#include "input.h"
#include "keymap.h"

static int reference(const char *s, size_t n)
{
	return u8_check((const uint8_t *)s, n) == NULL;
}

TEST(utf8_agrees_with_libunistring_on_edge_cases)
{
	static const char *const cases[] = {
		"", "plain ascii text that is longer than a word",
		"caf\xc3\xa9", "\xc3", "\xc3\x28", "\xe2\x82\xac",
		"\xe2\x82", "\xed\xa0\x80" /* a surrogate */,
		"\xc0\xaf" /* overlong '/' */, "\xe0\x80\xaf",
		"\xf0\x9f\x98\x80", "\xf4\x90\x80\x80" /* past U+10FFFF */,
		"\xf8\x88\x80\x80\x80", "\x80", "\xbf", "\xfe", "\xff",
		"\xc2\x80" /* C1, still UTF-8 */,
		"12345678\xc3\xa9" "12345678", "1234567\xc3\xa9",
		"12345678123456781234567\x80",
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(srv_utf8_valid(cases[i], strlen(cases[i])),
			  reference(cases[i], strlen(cases[i])));
	/* An embedded NUL is a character like any other. */
	CHECK(srv_utf8_valid("a\0b", 3));
}

TEST(utf8_agrees_with_libunistring_on_random_text)
{
	/* Mostly ASCII with a few high bytes, at every offset of a word. */
	static const unsigned char pieces[] = { 'a', ' ', 0x80, 0xbf, 0xc2,
						0xc3, 0xe0, 0xe2, 0xed, 0xef,
						0xf0, 0xf4, 0xf5, 0xff };
	char buf[64];
	unsigned seed = 12345;
	int round, mismatches = 0;
	size_t n, j;

	for (round = 0; round < 200000; round++) {
		n = (size_t)(round % (int)sizeof(buf));
		for (j = 0; j < n; j++) {
			seed = seed * 1103515245u + 12345u;
			buf[j] = (char)((seed >> 16) % 4
						? 'a' + (int)((seed >> 8) % 26)
						: pieces[(seed >> 20) %
							 sizeof(pieces)]);
		}
		mismatches += srv_utf8_valid(buf, n) != reference(buf, n);
	}
	CHECK_INT(mismatches, 0);
}

TEST(keymap_finds_what_it_holds)
{
	struct srv_keymap m = { 0 };
	char key[32];
	int i, found = 0, absent = 0, values[5000];

	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "field.%d", i);
		values[i] = i;
		CHECK_INT(srv_keymap_put(&m, key, strlen(key), &values[i]), 0);
	}
	CHECK_INT(m.len, 5000);
	for (i = 0; i < 5000; i++) {
		int *v;

		snprintf(key, sizeof(key), "field.%d", i);
		v = srv_keymap_get(&m, key, strlen(key));
		found += v && *v == i;
		snprintf(key, sizeof(key), "field.%d.", i);
		absent += srv_keymap_get(&m, key, strlen(key)) == NULL;
	}
	CHECK_INT(found, 5000);
	CHECK_INT(absent, 5000);
	/* Keys are bytes: a prefix or an embedded NUL is another key. */
	CHECK(srv_keymap_put(&m, "a\0b", 3, values) == 0);
	CHECK(srv_keymap_get(&m, "a", 1) == NULL);
	CHECK(srv_keymap_get(&m, "a\0b", 3) == values);
	srv_keymap_dispose(&m);
	CHECK(srv_keymap_get(&m, "a\0b", 3) == NULL);
	srv_keymap_dispose(&m);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(utf8_agrees_with_libunistring_on_edge_cases),
		TEST_ENTRY(utf8_agrees_with_libunistring_on_random_text),
		TEST_ENTRY(keymap_finds_what_it_holds),
	};

	return lec_test_run(argc, argv, tests,
			    sizeof(tests) / sizeof(tests[0]));
}
