/*
 * A growing text (text.h), doubling its buffer as it grows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* A new text's first buffer: a small page's size. */
#define TEXT_FIRST_CAP 4096

static int grow(struct srv_text *t, size_t n)
{
	size_t cap;
	char *s;

	if (t->oom)
		return -1;
	if (t->len + n + 1 <= t->cap)
		return 0;
	for (cap = t->cap ? t->cap : TEXT_FIRST_CAP; cap < t->len + n + 1;
	     cap *= 2)
		;
	if ((s = realloc(t->s, cap)) == NULL) {
		t->oom = 1;
		return -1;
	}
	t->s = s;
	t->cap = cap;
	return 0;
}

void srv_text_put(struct srv_text *t, const char *s, size_t n)
{
	if (grow(t, n) < 0)
		return;
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

void srv_text_puts(struct srv_text *t, const char *s)
{
	srv_text_put(t, s, strlen(s));
}

void srv_text_printf(struct srv_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(t, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

void srv_text_query_value(struct srv_text *t, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~/:", c))
			srv_text_put(t, s, 1);
		else
			srv_text_printf(t, "%%%02X", c);
	}
}

char *srv_text_take(struct srv_text *t, size_t *len)
{
	char *s;

	if (grow(t, 0) < 0) {
		srv_text_dispose(t);
		return NULL;
	}
	s = t->s;
	s[t->len] = '\0';
	if (len)
		*len = t->len;
	memset(t, 0, sizeof(*t));
	return s;
}

void srv_text_dispose(struct srv_text *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}
