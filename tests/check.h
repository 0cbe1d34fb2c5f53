/*
 * The engine-free core of the test harnesses: each test file defines its
 * cases with TEST(name), lists them in a table, and hands the table to a
 * runner, which prints "ok"/"FAIL" per case and the summary line "N passed,
 * N failed". The engine's tests (harness.h) and the client's, which must
 * never link the engine (client/client_harness.h), both build on it and add
 * their own CHECK_OK.
 */
#ifndef LECTERN_TEST_CHECK_H
#define LECTERN_TEST_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct lec_test {
	const char *name;
	void (*fn)(void);
};

/* Failed checks so far; a case passes when it adds none. */
extern int lec_test_failures;

#define TEST(name) static void name(void)
#define TEST_ENTRY(name) { #name, name }

#define FAIL_AT(...)                                                         \
	do {                                                                 \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);            \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		lec_test_failures++;                                         \
	} while (0)

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond))                                                 \
			FAIL_AT("check failed: %s", #cond);                  \
	} while (0)

#define CHECK_INT(a, b)                                                      \
	do {                                                                 \
		long long check_a_ = (long long)(a);                         \
		long long check_b_ = (long long)(b);                         \
		if (check_a_ != check_b_)                                    \
			FAIL_AT("%s == %lld, expected %lld", #a, check_a_,  \
				check_b_);                                   \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *check_a_ = (a);                                  \
		const char *check_b_ = (b);                                  \
		if (check_a_ == NULL || check_b_ == NULL ||                  \
		    strcmp(check_a_, check_b_) != 0)                         \
			FAIL_AT("%s == \"%s\", expected \"%s\"", #a,        \
				check_a_ ? check_a_ : "(null)",              \
				check_b_ ? check_b_ : "(null)");             \
	} while (0)

/* The whole file at path, NUL-terminated, its length in *len (len may be
 * NULL); the caller frees it. NULL, after failing the test, when the file
 * cannot be read. */
char *lec_test_read_file(const char *path, size_t *len);

/* Runs the table's cases (only those named on the command line, if any);
 * returns the process exit status: 0 when none failed. */
int lec_test_run(int argc, char **argv, const struct lec_test *tests,
		 size_t count);

#endif
