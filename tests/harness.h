/*
 * The harness for Lectern's engine tests: check.h's cases and checks, plus
 * CHECK_OK and CHECK_ERR, which print the engine's last error message on
 * failure so a failing store call says why, temporary directories and
 * stores, and lec_test_main(), which also removes those directories.
 */
#ifndef LECTERN_TEST_HARNESS_H
#define LECTERN_TEST_HARNESS_H

#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "lectern/errors.h"

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

/* A fresh temporary directory for the current test (removed at exit). The
 * returned path is valid until the next call. */
const char *lec_test_tmpdir(void);

/* Write text to the file dir/rel (its directory must exist), failing
 * the test when it cannot. */
void lec_test_put(const char *dir, const char *rel, const char *text);

/* How many processes have a command line (its arguments joined by
 * spaces, its first 64 KiB) holding a and, unless NULL, b. */
int lec_test_processes(const char *a, const char *b);

/* snprintf into out, ending the test run when the path does not fit. */
void lec_test_pathf(char *out, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Open a fresh store in a new temporary directory (fails the test run if it
 * cannot). */
struct lec_store;
struct lec_store *lec_test_store(void);

/* Insert a minimal project row (name = slug) straight into the store, for
 * modules whose tests must not depend on the project module. Returns its
 * id, or 0 after failing the test. */
int64_t lec_test_project(struct lec_store *store, const char *slug);

/* Run the table (lec_test_run) and remove the temporary directories at
 * exit; returns the process exit status. */
int lec_test_main(int argc, char **argv, const struct lec_test *tests,
		  size_t count);

#define LEC_TEST_MAIN(table)                                                 \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		return lec_test_main(argc, argv, table,                      \
				     sizeof(table) / sizeof(table[0]));      \
	}

#endif
