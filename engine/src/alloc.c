/*
 * The engine's allocator front: every engine allocation passes here, so a
 * test can make the Nth allocation fail and check that each code path reports
 * LEC_ENOMEM cleanly instead of crashing (the "torture" idea of curl's test
 * suite). Outside tests the counter is zero and costs one branch.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static _Thread_local long fail_countdown;

void lec__alloc_fail_after(long n)
{
	fail_countdown = n;
}

static int should_fail(void)
{
	if (fail_countdown <= 0)
		return 0;
	return --fail_countdown == 0;
}

void *lec__malloc(size_t size)
{
	return should_fail() ? NULL : malloc(size ? size : 1);
}

void *lec__calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *lec__realloc(void *ptr, size_t size)
{
	return should_fail() ? NULL : realloc(ptr, size ? size : 1);
}

void lec__free(void *ptr)
{
	free(ptr);
}

int lec__grow(void **items, size_t *cap, size_t len, size_t size,
	      size_t first)
{
	size_t n = *cap ? *cap * 2 : first;
	void *p;

	if (len < *cap)
		return LEC_OK;
	p = lec__realloc(*items, n * size);
	LEC__CHECK_ALLOC(p);
	*items = p;
	*cap = n;
	return LEC_OK;
}

void lec__strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		lec__free(v[i]);
	lec__free(v);
}

void lec__items_free(void *items, size_t len, size_t item_size,
		     void (*item_dispose)(void *item))
{
	unsigned char *p = items;
	size_t i;

	for (i = 0; p && i < len; i++)
		item_dispose(p + i * item_size);
	lec__free(items);
}

void lec__items_texts_free(void *items, size_t len, size_t item_size,
			   const size_t *texts, size_t ntexts)
{
	unsigned char *p = items;
	size_t i, j;

	for (i = 0; p && i < len; i++)
		for (j = 0; j < ntexts; j++)
			lec__free(*(char **)(p + i * item_size + texts[j]));
	lec__free(items);
}

char *lec__strndup(const char *s, size_t n)
{
	char *copy;

	if (s == NULL)
		return NULL;
	copy = lec__malloc(n + 1);
	if (copy == NULL)
		return NULL;
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

char *lec__strdup_cut(const char *s, size_t max)
{
	size_t n;

	if (s == NULL)
		return NULL;
	n = strnlen(s, max);
	/* Cut inside a character (a continuation byte just past the cut):
	 * back off to before the character's first byte. */
	if (n == max)
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	return lec__strndup(s, n);
}

size_t lec__utf8_len(const unsigned char *s, size_t n)
{
	size_t need, i;
	unsigned long cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return need;
}

size_t lec__utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

char *lec__strdup(const char *s)
{
	return s ? lec__strndup(s, strlen(s)) : NULL;
}

int64_t lec__now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t lec__monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
