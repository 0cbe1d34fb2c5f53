/*
 * The harnesses' shared helpers (fuzz.h): input shaping and output checks.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistr.h>

_Noreturn void fuzz_fail(const char *file, int line, const char *cond,
			 const char *what)
{
	fprintf(stderr, "%s:%d: broken promise (%s): %s\n", file, line, what,
		cond);
	abort();
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FUZZ_CHECK(s != NULL, "out of memory in the harness");
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fuzz_fields_split(struct fuzz_fields *f, const uint8_t *data,
		       size_t size)
{
	char *p, *nl;
	size_t i;

	f->buf = fuzz_strndup(data, size);
	f->n = 0;
	for (p = f->buf; size > 0 && f->n < FUZZ_FIELDS_MAX; p = nl + 1) {
		f->at[f->n++] = p;
		if (f->n == FUZZ_FIELDS_MAX ||
		    (nl = memchr(p, '\n', size - (size_t)(p - f->buf))) == NULL)
			break;
		*nl = '\0';
	}
	for (i = f->n; i < FUZZ_FIELDS_MAX; i++)
		f->at[i] = f->buf + size; /* the final NUL: "" */
}

void fuzz_fields_dispose(struct fuzz_fields *f)
{
	free(f->buf);
	f->buf = NULL;
}

int fuzz_utf8_valid(const char *s, size_t n)
{
	return u8_check((const uint8_t *)s, n) == NULL;
}
