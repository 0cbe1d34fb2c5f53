/*
 * The client tests' own harness: the engine's tests/harness.h prints engine
 * errors and links the engine, which the client must never need. Same shape
 * (check.h's TEST, table and runner), plus CHECK_RC, which prints the
 * client's error line, and helpers that start the servers the tests talk to:
 * the scripted fake server (fake_server.py) and a real `lectern serve
 * --workers 0` on a fresh data directory with a token for one user.
 */
#ifndef LECTERN_CLIENT_HARNESS_H
#define LECTERN_CLIENT_HARNESS_H

#include <sys/types.h>

#include "check.h"
#include "client.h"

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

/* Runs the table (lec_test_run) with SIGPIPE ignored, as a server that
 * dies mid-request must fail a check, not kill the test. */
int lct_main(int argc, char **argv, const struct lec_test *tests,
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
