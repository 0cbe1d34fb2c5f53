/*
 * A tiny test harness for Lectern's unit tests: each test file defines its
 * cases with TEST(name), lists them in a table, and calls lec_test_main().
 * CHECK_OK prints the engine's last error message on failure, so a failing
 * store call says why. The summary line is "N passed, N failed".
 */
#ifndef LECTERN_TEST_HARNESS_H
#define LECTERN_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lectern/errors.h"

struct lec_test {
	const char *name;
	void (*fn)(void);
};

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

#define CHECK_OK(expr)                                                       \
	do {                                                                 \
		int check_rc_ = (expr);                                      \
		if (check_rc_ != LEC_OK)                                     \
			FAIL_AT("%s returned %d (%s): %s", #expr, check_rc_, \
				lec_error_str(check_rc_), lec_error_last()); \
	} while (0)

#define CHECK_ERR(expr, code)                                                \
	do {                                                                 \
		int check_rc_ = (expr);                                      \
		if (check_rc_ != (code))                                     \
			FAIL_AT("%s returned %d (%s), expected %s", #expr,  \
				check_rc_, lec_error_str(check_rc_), #code); \
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

/* A fresh temporary directory for the current test (removed at exit). The
 * returned path is valid until the next call. */
const char *lec_test_tmpdir(void);

/* Open a fresh store in a new temporary directory (fails the test run if it
 * cannot). */
struct lec_store;
struct lec_store *lec_test_store(void);

/* Insert a minimal project row (name = slug) straight into the store, for
 * modules whose tests must not depend on the project module. Returns its
 * id, or 0 after failing the test. */
int64_t lec_test_project(struct lec_store *store, const char *slug);

/* Run the table; returns the process exit status. */
int lec_test_main(int argc, char **argv, const struct lec_test *tests,
		  size_t count);

#define LEC_TEST_MAIN(table)                                                 \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		return lec_test_main(argc, argv, table,                      \
				     sizeof(table) / sizeof(table[0]));      \
	}

#endif
