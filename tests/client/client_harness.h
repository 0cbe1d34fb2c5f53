/*
 * The client tests' own harness: the engine's tests/harness.h prints engine
 * errors and links the engine, which the client must never need. Same shape
 * (TEST, a table, "N passed, N failed"), plus CHECK_RC, which prints the
 * client's error line, and helpers that start the servers the tests talk to:
 * the scripted fake server (fake_server.py) and a real `lectern serve
 * --workers 0` on a fresh data directory with a token for one user.
 */
#ifndef LECTERN_CLIENT_HARNESS_H
#define LECTERN_CLIENT_HARNESS_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "client.h"

struct lct_test {
	const char *name;
	void (*fn)(void);
};

extern int lct_failures;

#define TEST(name) static void name(void)
#define TEST_ENTRY(name) { #name, name }

#define FAIL_AT(...)                                                         \
	do {                                                                 \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);            \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		lct_failures++;                                              \
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

/* expr must return `code`; on failure prints the client's error. */
#define CHECK_RC(expr, code, err)                                            \
	do {                                                                 \
		int check_rc_ = (expr);                                      \
		if (check_rc_ != (code))                                     \
			FAIL_AT("%s returned %d (%s), expected %s: %s",     \
				#expr, check_rc_, lc_code_str(check_rc_),   \
				#code, (err)->message);                      \
	} while (0)

#define CHECK_OK(expr, err) CHECK_RC(expr, LC_OK, err)

int lct_main(int argc, char **argv, const struct lct_test *tests,
	     size_t count);

/* A server process the test started; its first stdout line gave the port. */
struct lct_server {
	pid_t pid;
	int fd;            /* the read end of its stdout, kept open */
	int port;
	char url[64];      /* "http://127.0.0.1:PORT" */
	char data[256];    /* lectern's data directory ("" for the fake) */
	char token[128];   /* lectern: a token for user "alice" */
};

/* Starts the fake server; exits the test on failure. */
void lct_fake_start(struct lct_server *s);
/* Starts `lectern serve --workers 0` (binary from $LECTERN), extra args
 * appended (NULL-terminated), with a token for "alice". */
void lct_lectern_start(struct lct_server *s, const char *const *extra);
/* Runs `lectern --data DIR args...`, returns its exit status; its first
 * stdout line goes into out (may be NULL). */
int lct_lectern_run(const struct lct_server *s, const char *const *args,
		    char *out, size_t size);
/* Runs one SQL statement on lectern's store (with Python's sqlite3: no API
 * call makes a translation). Returns the exit status. */
int lct_sql(const struct lct_server *s, const char *sql);
/* SIGTERM and wait; returns the exit status (0 expected from lectern). */
int lct_stop(struct lct_server *s);

/* A client for the server (token: NULL for none). Exits on failure. */
struct lc_client *lct_client(const struct lct_server *s, const char *token,
			     long timeout_ms, int max_attempts);

/* Milliseconds on a monotonic clock. */
long long lct_now_ms(void);

#endif
