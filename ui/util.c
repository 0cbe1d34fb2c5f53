/*
 * The TUI's small helpers (see util.h). Allocation failures end the
 * program after the die hook has put the terminal back, so no caller has
 * to handle NULL from an allocation: a full-screen front end cannot
 * recover usefully from out-of-memory anyway.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Seconds per unit, for ages and durations. */
#define MINUTE 60
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
#define YEAR (365 * DAY)

static void (*die_hook)(void);

void ui_set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

void ui_die(const char *fmt, ...)
{
	va_list ap;

	if (die_hook)
		die_hook();
	fputs("lectern: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *check(void *p)
{
	if (p == NULL)
		ui_die("out of memory");
	return p;
}

void *ui_xmalloc(size_t size)
{
	return check(malloc(size ? size : 1));
}

void *ui_xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}

void *ui_xrealloc(void *ptr, size_t size)
{
	return check(realloc(ptr, size ? size : 1));
}

char *ui_xstrdup(const char *s)
{
	return s ? check(strdup(s)) : NULL;
}

char *ui_xstrndup(const char *s, size_t n)
{
	return s ? check(strndup(s, n)) : NULL;
}

char *ui_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		ui_die("bad format");
	out = ui_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

void ui_set_str(char **slot, const char *s)
{
	char *copy = ui_xstrdup(s);

	free(*slot);
	*slot = copy;
}

/* Growable string -------------------------------------------------------- */

void ui_buf_add(struct ui_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->ptr = ui_xrealloc(b->ptr, cap);
		b->cap = cap;
	}
	memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void ui_buf_puts(struct ui_buf *b, const char *s)
{
	ui_buf_add(b, s, strlen(s));
}

void ui_buf_printf(struct ui_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		ui_buf_add(b, small, (size_t)n);
		return;
	}
	/* Too long for the small buffer: grow, then format in place. */
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = b->len + (size_t)n + 1;
		b->ptr = ui_xrealloc(b->ptr, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *ui_buf_take(struct ui_buf *b)
{
	char *s = b->ptr ? b->ptr : ui_xstrdup("");

	b->ptr = NULL;
	b->len = b->cap = 0;
	return s;
}

void ui_buf_dispose(struct ui_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

/* Time ------------------------------------------------------------------- */

int64_t ui_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

time_t ui_parse_time(const char *s)
{
	struct tm tm = { 0 };
	int n = 0;

	if (s == NULL ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) < 6 ||
	    n == 0)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	/* The API speaks UTC ("Z", "+00:00" or, in v2, no zone at all). */
	return timegm(&tm);
}

void ui_format_age(char *out, size_t size, time_t then, time_t now)
{
	long long d = (long long)(now - then);

	if (then < 0) {
		snprintf(out, size, "-");
		return;
	}
	if (d < 0)
		d = 0;
	if (d < MINUTE)
		snprintf(out, size, "%llds", d);
	else if (d < HOUR)
		snprintf(out, size, "%lldm", d / MINUTE);
	else if (d < DAY)
		snprintf(out, size, "%lldh", d / HOUR);
	else if (d < YEAR)
		snprintf(out, size, "%lldd", d / DAY);
	else
		snprintf(out, size, "%lldy", d / YEAR);
}

void ui_format_duration(char *out, size_t size, long long s)
{
	if (s < 0)
		snprintf(out, size, "-");
	else if (s < MINUTE)
		snprintf(out, size, "%llds", s);
	else if (s < HOUR)
		snprintf(out, size, "%lldm%02llds", s / MINUTE, s % MINUTE);
	else
		snprintf(out, size, "%lldh%02lldm", s / HOUR,
			 (s % HOUR) / MINUTE);
}

/* Strings ---------------------------------------------------------------- */

int ui_contains_nocase(const char *hay, const char *needle)
{
	size_t n = needle ? strlen(needle) : 0;

	if (n == 0)
		return 1;
	for (; hay && *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

int ui_parse_long(const char *s, long long *out)
{
	char *end;
	long long v;

	if (s == NULL || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}
