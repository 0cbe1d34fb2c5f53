/*
 * The response cache: a direct-mapped table per thread, so lookups need no
 * locks. An entry is (key, user, data version) → body; a write anywhere
 * moves the data version, so stale entries simply stop matching and are
 * overwritten later.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"

struct cache_entry {
	uint64_t hash;
	uint64_t version;
	int64_t user;
	char *key;
	char *body;
	size_t len;
};

struct srv_cache {
	struct cache_entry slots[SRV_CACHE_SLOTS];
};

uint64_t srv_fnv1a(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL ^ seed;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Multiplier of srv_hash_body: 2^64 over the golden ratio, odd, so each
 * step is a bijection of the state and every input bit moves high bits. */
#define BODY_MUL 0x9E3779B97F4A7C15ULL

uint64_t srv_hash_body(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * BODY_MUL;
		h ^= h >> 29;
	}
	w = 0;
	if (len > i)
		memcpy(&w, p + i, len - i);
	h = (h ^ w) * BODY_MUL;
	return h ^ (h >> 32);
}

static uint64_t hash_key(const char *key, int64_t user)
{
	return srv_fnv1a(key, strlen(key), (uint64_t)user);
}

struct srv_cache *srv_cache_new(void)
{
	return calloc(1, sizeof(struct srv_cache));
}

static void entry_clear(struct cache_entry *e)
{
	free(e->key);
	free(e->body);
	memset(e, 0, sizeof(*e));
}

void srv_cache_free(struct srv_cache *cache)
{
	size_t i;

	if (cache == NULL)
		return;
	for (i = 0; i < SRV_CACHE_SLOTS; i++)
		entry_clear(&cache->slots[i]);
	free(cache);
}

int srv_cache_get(struct srv_cache *cache, const char *key, int64_t user,
		  uint64_t version, struct srv_response *res)
{
	uint64_t h = hash_key(key, user);
	struct cache_entry *e = &cache->slots[h % SRV_CACHE_SLOTS];
	char *copy;

	if (e->body == NULL || e->hash != h || e->user != user ||
	    e->version != version || strcmp(e->key, key) != 0)
		return 0;
	if ((copy = malloc(e->len + 1)) == NULL)
		return 0;
	memcpy(copy, e->body, e->len + 1);
	res->status = 200;
	res->body = copy;
	res->body_len = e->len;
	res->content_type = "application/json";
	return 1;
}

void srv_cache_put(struct srv_cache *cache, const char *key, int64_t user,
		   uint64_t version, const struct srv_response *res)
{
	uint64_t h = hash_key(key, user);
	struct cache_entry *e = &cache->slots[h % SRV_CACHE_SLOTS];

	if (res->status != 200 || res->body == NULL || res->allow ||
	    res->location || res->body_len > SRV_CACHE_MAX_BODY)
		return;
	entry_clear(e);
	e->key = strdup(key);
	e->body = malloc(res->body_len + 1);
	if (e->key == NULL || e->body == NULL) {
		entry_clear(e);
		return;
	}
	memcpy(e->body, res->body, res->body_len);
	e->body[res->body_len] = '\0';
	e->len = res->body_len;
	e->hash = h;
	e->user = user;
	e->version = version;
}
