/*
 * A growing text (text.c): what the server writes that is not JSON, such
 * as /llms.txt and the dashboard's pages, appended piece by piece. An
 * append that runs out of memory marks the text, and every later one is a
 * no-op, so a writer checks once at the end.
 */
#ifndef LECTERN_SRV_TEXT_H
#define LECTERN_SRV_TEXT_H

#include <stddef.h>

struct srv_text {
	char *s;    /* NUL-terminated once anything was put; owned */
	size_t len;
	size_t cap;
	int oom;    /* an append failed: the text is incomplete */
};

void srv_text_put(struct srv_text *t, const char *s, size_t n);
void srv_text_puts(struct srv_text *t, const char *s);
void srv_text_printf(struct srv_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s as one value of a URL's query: what is not unreserved (nor
 * '/' or ':', which a query may hold as they are) percent-encoded, so
 * nothing in it ends the value or the URL. */
void srv_text_query_value(struct srv_text *t, const char *s);
/* Hand the text over (the caller frees it; "" when empty) and reset t;
 * NULL (t freed) when an append had failed. */
char *srv_text_take(struct srv_text *t, size_t *len);
/* Free t's text. */
void srv_text_dispose(struct srv_text *t);

#endif
