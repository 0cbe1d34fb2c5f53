/*
 * Every error code has its own text, and the thread-local message and field
 * behave as the header promises.
 */
#include "harness.h"
#include "internal.h"

TEST(every_code_has_text)
{
	int code;

	for (code = LEC_OK; code > LEC_ERROR_LAST; code--) {
		CHECK(strcmp(lec_error_str(code), "unknown error") != 0);
		CHECK(lec_error_str(code)[0] != '\0');
	}
	CHECK_STR(lec_error_str(LEC_ERROR_LAST), "unknown error");
	CHECK_STR(lec_error_str(42), "unknown error");
}

TEST(message_field_and_clear)
{
	CHECK_INT(lec__error(LEC_EINVALID, "bad %s", "thing"), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "bad thing");
	CHECK_INT(lec_error_last_code(), LEC_EINVALID);
	CHECK(lec_error_last_field() == NULL);
	lec__error_field(LEC_EINVALID, "repository.url", "Invalid scheme");
	CHECK_STR(lec_error_last_field(), "repository.url");
	lec__error_oom();
	CHECK_STR(lec_error_last(), "out of memory");
	CHECK(lec_error_last_field() == NULL);
	lec_error_clear();
	CHECK_STR(lec_error_last(), "");
	CHECK_INT(lec_error_last_code(), LEC_OK);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(every_code_has_text),
	TEST_ENTRY(message_field_and_clear),
};

LEC_TEST_MAIN(tests)
