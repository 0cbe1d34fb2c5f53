/*
 * The language tables match the service's: known codes give their names,
 * unknown ones give "Unknown", validity follows the tables exactly (case,
 * separators, the retired "zh"), and the tables can be walked in order.
 */
#include "harness.h"
#include "lectern/language.h"

TEST(language_names)
{
	CHECK_STR(lec_language_name("en"), "English");
	CHECK_STR(lec_language_name("es"), "Spanish");
	CHECK_STR(lec_language_name("fa"), "Iranian");
	CHECK_STR(lec_language_name("pt-br"), "Brazilian Portuguese");
	CHECK_STR(lec_language_name("es-mx"), "Mexican Spanish");
	CHECK_STR(lec_language_name("zh-cn"), "Simplified Chinese");
	CHECK_STR(lec_language_name("zh-tw"), "Traditional Chinese");
	CHECK_STR(lec_language_name("nb-no"), "Norwegian Bokmal");
	CHECK_STR(lec_language_name("uk-ua"), "Ukrainian");
	CHECK_STR(lec_language_name("quc"), "K'iche'");
	CHECK_STR(lec_language_name("cab"), "Gar\xc3\xad" "funa");
}

TEST(language_unknown)
{
	CHECK_STR(lec_language_name("xx"), "Unknown");
	CHECK_STR(lec_language_name(""), "Unknown");
	CHECK_STR(lec_language_name(NULL), LEC_LANGUAGE_UNKNOWN_NAME);
	/* Retired by the service: still unknown here. */
	CHECK_STR(lec_language_name("zh"), "Unknown");
	CHECK(!lec_language_valid("zh"));
	/* The old spellings and other cases are not codes. */
	CHECK(!lec_language_valid("pt_BR"));
	CHECK(!lec_language_valid("PT-BR"));
	CHECK(!lec_language_valid("EN"));
	CHECK(!lec_language_valid("en "));
	CHECK(!lec_language_valid(""));
	CHECK(!lec_language_valid(NULL));
	CHECK(lec_language_valid("en"));
	CHECK(lec_language_valid("pt-br"));
	CHECK(lec_language_valid(LEC_LANGUAGE_DEFAULT));
}

TEST(language_table)
{
	size_t n = 0, i;
	const struct lec_language *t = lec_languages(&n);

	CHECK_INT(n, 167);
	CHECK_STR(t[0].code, "aa");
	CHECK_STR(t[n - 1].code, "zh-tw");
	for (i = 0; i < n; i++) {
		CHECK(lec_language_valid(t[i].code));
		CHECK_STR(lec_language_name(t[i].code), t[i].name);
	}
}

TEST(programming_languages)
{
	size_t n = 0, i;
	const struct lec_language *t = lec_programming_languages(&n);

	CHECK_INT(n, 24);
	CHECK_STR(t[0].code, "words");
	CHECK_STR(t[n - 1].code, "other");
	for (i = 0; i < n; i++)
		CHECK(lec_programming_language_valid(t[i].code));
	CHECK_STR(lec_programming_language_name("words"), "Only Words");
	CHECK_STR(lec_programming_language_name("py"), "Python");
	CHECK_STR(lec_programming_language_name("js"), "JavaScript");
	CHECK_STR(lec_programming_language_name("csharp"), "C#");
	CHECK_STR(lec_programming_language_name("cpp"), "C++");
	CHECK_STR(lec_programming_language_name("objc"), "Objective-C");
	CHECK_STR(lec_programming_language_name("ts"), "TypeScript");
	CHECK_STR(lec_programming_language_name("vb"), "Visual Basic");
	CHECK_STR(lec_programming_language_name("coffee"), "CoffeeScript");
	CHECK_STR(lec_programming_language_name("other"), "Other");
	CHECK_STR(lec_programming_language_name("python"), "Unknown");
	CHECK_STR(lec_programming_language_name(NULL), "Unknown");
	CHECK(lec_programming_language_valid(LEC_PROGRAMMING_LANGUAGE_DEFAULT));
	CHECK(!lec_programming_language_valid("Python"));
	CHECK(!lec_programming_language_valid(""));
	CHECK(!lec_programming_language_valid(NULL));
	/* The two tables are separate. */
	CHECK(!lec_language_valid("py"));
	CHECK(!lec_programming_language_valid("en"));
}

static const struct lec_test tests[] = {
	TEST_ENTRY(language_names),
	TEST_ENTRY(language_unknown),
	TEST_ENTRY(language_table),
	TEST_ENTRY(programming_languages),
};

LEC_TEST_MAIN(tests)
