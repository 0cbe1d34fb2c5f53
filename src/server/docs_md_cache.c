/*
 * The Markdown cache of docs_md_cache.h: a table of slots under one lock,
 * each holding one page's Markdown and the key it was made for; the bytes
 * held in all stay within DOCS_MD_CACHE_BYTES (a new entry first drops
 * the one in its slot, then others in turn until it fits).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "docs_md_cache.h"

struct slot {
	char *key; /* owned; NULL: empty */
	char *md;  /* owned */
	size_t len;
};

static struct slot slots[DOCS_MD_CACHE_SLOTS];
static size_t held;   /* bytes of Markdown in slots */
static size_t evict;  /* where the next drop for room starts */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry's key: the file's identity, the URL and the options. */
static char *key_of(const struct stat *st, const char *url,
		    const char *options)
{
	size_t n = strlen(url) + strlen(options) + 96;
	char *key = malloc(n);

	if (key)
		snprintf(key, n, "%llu:%llu:%lld:%lld.%09ld %s %s",
			 (unsigned long long)st->st_dev,
			 (unsigned long long)st->st_ino, (long long)st->st_size,
			 (long long)st->st_mtim.tv_sec,
			 (long)st->st_mtim.tv_nsec, options, url);
	return key;
}

static struct slot *slot_of(const char *key)
{
	return &slots[srv_fnv1a(key, strlen(key), 0) % DOCS_MD_CACHE_SLOTS];
}

static void drop(struct slot *s)
{
	held -= s->key ? s->len : 0;
	free(s->key);
	free(s->md);
	memset(s, 0, sizeof(*s));
}

char *docs_md_cache_get(const struct stat *st, const char *url,
			const char *options, size_t *len)
{
	char *key = key_of(st, url, options), *copy = NULL;
	struct slot *s;

	if (key == NULL)
		return NULL;
	pthread_mutex_lock(&lock);
	s = slot_of(key);
	if (s->key && strcmp(s->key, key) == 0 &&
	    (copy = malloc(s->len + 1)) != NULL) {
		memcpy(copy, s->md, s->len + 1);
		*len = s->len;
	}
	pthread_mutex_unlock(&lock);
	free(key);
	return copy;
}

void docs_md_cache_put(const struct stat *st, const char *url,
		       const char *options, const char *md, size_t len)
{
	char *key, *copy;
	struct slot *s;

	if (len > DOCS_MD_CACHE_MAX_ENTRY ||
	    (key = key_of(st, url, options)) == NULL)
		return;
	if ((copy = malloc(len + 1)) == NULL) {
		free(key);
		return;
	}
	memcpy(copy, md, len);
	copy[len] = '\0';
	pthread_mutex_lock(&lock);
	s = slot_of(key);
	drop(s);
	while (held + len > DOCS_MD_CACHE_BYTES) {
		drop(&slots[evict]);
		evict = (evict + 1) % DOCS_MD_CACHE_SLOTS;
	}
	s->key = key;
	s->md = copy;
	s->len = len;
	held += len;
	pthread_mutex_unlock(&lock);
}
