/*
 * Small helpers every part of the TUI uses: allocation that never returns
 * NULL (a front end may abort on out-of-memory, after restoring the
 * terminal; the engine may not), a growable string, monotonic time, and
 * the short "age" and "duration" texts the lists show.
 */
#ifndef LECTERN_UI_UTIL_H
#define LECTERN_UI_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__GNUC__)
#define UI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define UI_PRINTF(fmt, args)
#endif

/* Allocation ----------------------------------------------------------- */

/* These never return NULL: out of memory restores the terminal (through
 * the hook set with ui_set_die_hook) and exits. Free with free(). */
void *ui_xmalloc(size_t size);
void *ui_xcalloc(size_t n, size_t size);
void *ui_xrealloc(void *ptr, size_t size);
/* A copy of s; NULL gives NULL. */
char *ui_xstrdup(const char *s);
char *ui_xstrndup(const char *s, size_t n);
/* A newly allocated formatted string. */
char *ui_xasprintf(const char *fmt, ...) UI_PRINTF(1, 2);

/* Called before exiting on a fatal error, to restore the terminal. */
void ui_set_die_hook(void (*hook)(void));
/* Restore the terminal, print "lectern: <message>" and exit(1). */
void ui_die(const char *fmt, ...) UI_PRINTF(1, 2) __attribute__((noreturn));

/* Replace *slot with a copy of s (NULL clears it), freeing the old one. */
void ui_set_str(char **slot, const char *s);

/* Growable string -------------------------------------------------------- */

struct ui_buf {
	char *ptr; /* NUL-terminated once anything was added; owned */
	size_t len;
	size_t cap;
};
#define UI_BUF_INIT { NULL, 0, 0 }

void ui_buf_add(struct ui_buf *b, const char *s, size_t n);
void ui_buf_puts(struct ui_buf *b, const char *s);
void ui_buf_printf(struct ui_buf *b, const char *fmt, ...) UI_PRINTF(2, 3);
/* Hands the string over (never NULL, "" when empty) and resets b. */
char *ui_buf_take(struct ui_buf *b);
void ui_buf_dispose(struct ui_buf *b);

/* Time ------------------------------------------------------------------- */

/* Milliseconds on the monotonic clock. */
int64_t ui_now_ms(void);
/* The API's ISO 8601 time ("2026-11-22T02:05:33.123456Z", with or
 * without fraction and zone; no zone means UTC) as seconds since the
 * epoch; -1 when s is NULL or not a time. */
time_t ui_parse_time(const char *s);
/* "42s", "5m", "3h", "12d", "2y": how long ago; "-" when unknown. */
void ui_format_age(char *out, size_t size, time_t then, time_t now);
/* "7s", "1m05s", "2h03m": a duration in seconds; "-" when negative. */
void ui_format_duration(char *out, size_t size, long long seconds);

/* Strings ---------------------------------------------------------------- */

/* Case-insensitive substring test (ASCII); an empty needle matches. */
int ui_contains_nocase(const char *hay, const char *needle);
/* Parse a whole decimal number (no sign, no spaces) into *out; 0 or -1. */
int ui_parse_long(const char *s, long long *out);

#endif
