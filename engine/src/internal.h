/*
 * Engine-internal helpers shared across engine modules: error setting,
 * allocation, small string utilities and time. Nothing here is public; the
 * names carry the lec_<module>__ or lec__ prefix so they never collide with the
 * public API. Allocation goes through lec__malloc and friends so that a test
 * build can fail the Nth allocation (see LEC_TEST_FAIL_ALLOC).
 */
#ifndef LECTERN_INTERNAL_H
#define LECTERN_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lectern/errors.h"

#if defined(__GNUC__)
#define LEC__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define LEC__PRINTF(fmt, args)
#endif

/* Errors ---------------------------------------------------------------- */

/* Record code and a formatted message for this thread, also naming the
 * input field concerned (see lec_error_last_field; NULL: none); field must
 * be a string literal or static. Returns code so that callers can write
 * `return lec__error(LEC_EINVALID, "...")`. */
int lec__error_field(int code, const char *field, const char *fmt, ...)
	LEC__PRINTF(3, 4);
/* lec__error(code, fmt, ...): the same, naming no field. */
#define lec__error(code, ...) lec__error_field((code), NULL, __VA_ARGS__)

/* LEC_EINVALID on field with the service's message (its Django REST
 * framework's words) for a field missing, blank or longer than max
 * characters: said once for every check that gives it. */
int lec__error_required(const char *field);
int lec__error_blank(const char *field);
int lec__error_too_long(const char *field, size_t max);

/* Record an out-of-memory error without allocating; returns LEC_ENOMEM. */
int lec__error_oom(void);

/* Allocation ------------------------------------------------------------ */

void *lec__malloc(size_t size);
void *lec__calloc(size_t n, size_t size);
void *lec__realloc(void *ptr, size_t size);
void lec__free(void *ptr);
/* Room for one more item in *items, an array of len items of size bytes
 * with room for *cap: when it is full, *cap doubles (first when 0). On
 * failure (LEC_ENOMEM) the array is as it was. */
int lec__grow(void **items, size_t *cap, size_t len, size_t size,
	      size_t first);
/* Free each of the n strings of v, then v (NULL: nothing): what every
 * array of owned strings is disposed with. */
void lec__strings_free(char **v, size_t n);
/* Dispose each of len items (item_size bytes each) with item_dispose, then
 * free the array (NULL: nothing): what every array of owned structs is
 * disposed with. */
void lec__items_free(void *items, size_t len, size_t item_size,
		     void (*item_dispose)(void *item));
/* Free the char * members at the offsets texts[0..ntexts) of each of len
 * items (item_size bytes each), then the array (NULL: nothing): for the
 * arrays of structs that own only strings, which need no dispose of their
 * own. */
void lec__items_texts_free(void *items, size_t len, size_t item_size,
			   const size_t *texts, size_t ntexts);
#define LEC__ITEMS_FREE(items, len, item_dispose)                            \
	lec__items_free((items), (len), sizeof(*(items)), (item_dispose))
#define LEC__ITEMS_TEXTS_FREE(items, len, texts)                             \
	lec__items_texts_free((items), (len), sizeof(*(items)), (texts),     \
			      sizeof(texts) / sizeof((texts)[0]))
/* Copies s (NULL gives NULL). Owned by caller, freed with lec__free. */
char *lec__strdup(const char *s);
char *lec__strndup(const char *s, size_t n);
/* A copy of at most max bytes of s, cut at a UTF-8 character boundary
 * (for texts quoted into messages). */
char *lec__strdup_cut(const char *s, size_t max);
/* Characters of a valid UTF-8 string as the service counts them (code
 * points): what its length limits count. */
size_t lec__utf8_chars(const char *s);
/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), 0 if it is
 * not one: overlong forms, surrogates and values past U+10FFFF are not. */
size_t lec__utf8_len(const unsigned char *s, size_t n);

/* Sets an error and returns LEC_ENOMEM from the enclosing function. */
#define LEC__CHECK_ALLOC(ptr)                                                \
	do {                                                                 \
		if ((ptr) == NULL)                                           \
			return lec__error_oom();                             \
	} while (0)

/* Fails the Nth allocation from now on (0 disables); test builds only. */
void lec__alloc_fail_after(long n);

/* Growable string buffer with a sticky out-of-memory flag -------------- */

struct lec__buf {
	char *ptr;
	size_t len;
	size_t cap;
	int oom;
};
#define LEC__BUF_INIT { NULL, 0, 0, 0 }

void lec__buf_puts(struct lec__buf *b, const char *s);
/* n bytes of s (no NUL needed): what "%.*s" would append, without printf's
 * cost on hot paths (highlights). */
void lec__buf_putn(struct lec__buf *b, const char *s, size_t n);
void lec__buf_putc(struct lec__buf *b, char c);
/* Room for n more bytes and a NUL after them, for a writer that fills
 * ptr + len itself (a file read into the buffer): LEC_OK, or LEC_ERROR
 * with oom set and no message. */
int lec__buf_reserve(struct lec__buf *b, size_t n);
void lec__buf_printf(struct lec__buf *b, const char *fmt, ...)
	LEC__PRINTF(2, 3);
/* Hands the string to the caller (who frees it with lec__free) and resets
 * the buffer; NULL and an error when an append ran out of memory. */
char *lec__buf_take(struct lec__buf *b);
void lec__buf_dispose(struct lec__buf *b);

/* Time ------------------------------------------------------------------ */

/* Microseconds since the Unix epoch, UTC. */
int64_t lec__now_us(void);
/* Milliseconds of a clock that never jumps: for deadlines and intervals. */
int64_t lec__monotonic_ms(void);

#endif
