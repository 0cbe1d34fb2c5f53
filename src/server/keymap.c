/*
 * The map of keymap.h: open addressing with linear probing, grown to twice
 * its size when half full. The hash is FNV-1a over the key started from a
 * random seed, then mixed (splitmix64's finaliser) so that every bit of
 * the seed reaches the slot index: without the seed a client could send
 * keys that all land in one run of slots and make each lookup a scan.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "keymap.h"

/* The first table's size; a form of a few fields never grows it. */
#define KEYMAP_FIRST_CAP 16

struct srv_keymap_slot {
	char *key; /* owned; NULL for an empty slot */
	size_t len;
	void *value;
};

static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void make_seed(void)
{
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u ^
		       (uint64_t)(uintptr_t)&seed;
}

static uint64_t hash(const char *key, size_t n)
{
	uint64_t h = seed ^ 0xcbf29ce484222325u;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3u;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebu;
	return h ^ (h >> 31);
}

/* The slot holding key, or the empty slot where it would go. */
static struct srv_keymap_slot *find(struct srv_keymap_slot *slots,
				    size_t cap, const char *key, size_t n)
{
	size_t i = (size_t)hash(key, n) & (cap - 1);

	while (slots[i].key &&
	       (slots[i].len != n || memcmp(slots[i].key, key, n) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

void *srv_keymap_get(const struct srv_keymap *m, const char *key, size_t n)
{
	if (m->cap == 0)
		return NULL;
	return find(m->slots, m->cap, key, n)->value;
}

static int grow(struct srv_keymap *m)
{
	size_t cap = m->cap ? m->cap * 2 : KEYMAP_FIRST_CAP, i;
	struct srv_keymap_slot *slots = calloc(cap, sizeof(*slots));

	if (slots == NULL)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*find(slots, cap, m->slots[i].key, m->slots[i].len) =
				m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int srv_keymap_put(struct srv_keymap *m, const char *key, size_t n,
		   void *value)
{
	struct srv_keymap_slot *slot;
	char *copy;

	pthread_once(&seed_once, make_seed);
	if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	if ((copy = malloc(n ? n : 1)) == NULL)
		return -1;
	memcpy(copy, key, n);
	slot = find(m->slots, m->cap, key, n);
	*slot = (struct srv_keymap_slot){ copy, n, value };
	m->len++;
	return 0;
}

void srv_keymap_dispose(struct srv_keymap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
