/*
 * The engine's growing text buffer (struct lec__buf, internal.h): appends
 * that remember running out of memory instead of failing each call, so a
 * writer checks once, at the end (lec__buf_take). Below every other file
 * of the engine but the allocator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int buf_grow(struct lec__buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t cap = b->cap ? b->cap : 128;
	char *ptr;

	if (b->oom)
		return -1;
	if (need <= b->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	ptr = lec__realloc(b->ptr, cap);
	if (ptr == NULL) {
		b->oom = 1;
		return -1;
	}
	b->ptr = ptr;
	b->cap = cap;
	return 0;
}

void lec__buf_putn(struct lec__buf *b, const char *s, size_t n)
{
	if (buf_grow(b, n) < 0)
		return;
	if (n > 0) /* s may be NULL then (an empty span of a page) */
		memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void lec__buf_putc(struct lec__buf *b, char c)
{
	if (buf_grow(b, 1) < 0)
		return;
	b->ptr[b->len++] = c;
	b->ptr[b->len] = '\0';
}

int lec__buf_reserve(struct lec__buf *b, size_t n)
{
	return buf_grow(b, n) < 0 ? LEC_ERROR : LEC_OK;
}

void lec__buf_puts(struct lec__buf *b, const char *s)
{
	lec__buf_putn(b, s, strlen(s));
}

void lec__buf_printf(struct lec__buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *lec__buf_take(struct lec__buf *b)
{
	char *s;

	if (b->oom || buf_grow(b, 0) < 0) {
		lec__buf_dispose(b);
		lec__error_oom();
		return NULL;
	}
	s = b->ptr;
	s[b->len] = '\0'; /* nothing may have been appended yet */
	b->ptr = NULL;
	b->len = b->cap = 0;
	return s;
}

void lec__buf_dispose(struct lec__buf *b)
{
	lec__free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}
