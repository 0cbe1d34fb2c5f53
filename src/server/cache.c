/*
 * The response cache: a direct-mapped table per thread, so lookups need no
 * locks. An entry is (key, user, data version) → body and entity tag; a
 * write anywhere moves the data version, so stale entries simply stop
 * matching and are overwritten later. Bodies are blobs (response.c): a hit
 * hands libmicrohttpd a reference to the cached bytes, and an entry
 * replaced while a slow client still receives its body keeps the bytes
 * alive until that response is done.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"

struct cache_entry {
	uint64_t hash;
	uint64_t version;
	int64_t user;
	char *key;
	struct srv_blob *body;
	const char *content_type; /* static */
	char etag[sizeof(((struct srv_response *)0)->etag)];
	uint64_t seq; /* when it was put */
};

struct srv_cache {
	struct cache_entry slots[SRV_CACHE_SLOTS];
	size_t bytes; /* of the bodies held, at most SRV_CACHE_BYTES */
	uint64_t seq; /* puts so far */
	/* Puts in order, oldest first, for eviction: the slot and the seq it
	 * was put with (an entry replaced since is no longer there). */
	struct put_record {
		uint32_t slot;
		uint64_t seq;
	} order[SRV_CACHE_SLOTS];
	size_t first, count;
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

static void entry_clear(struct srv_cache *cache, struct cache_entry *e)
{
	if (e->body)
		cache->bytes -= srv_blob_len(e->body);
	free(e->key);
	srv_blob_release(e->body);
	memset(e, 0, sizeof(*e));
}

void srv_cache_free(struct srv_cache *cache)
{
	size_t i;

	if (cache == NULL)
		return;
	for (i = 0; i < SRV_CACHE_SLOTS; i++)
		entry_clear(cache, &cache->slots[i]);
	free(cache);
}

int srv_cache_get(struct srv_cache *cache, const char *key, int64_t user,
		  uint64_t version, struct srv_response *res)
{
	uint64_t h = hash_key(key, user);
	struct cache_entry *e = &cache->slots[h % SRV_CACHE_SLOTS];

	if (e->body == NULL || e->hash != h || e->user != user ||
	    e->version != version || strcmp(e->key, key) != 0)
		return 0;
	res->status = 200;
	srv_response_set_blob(res, e->body);
	res->content_type = e->content_type;
	memcpy(res->etag, e->etag, sizeof(res->etag));
	return 1;
}

/* Forget the oldest put, evicting its entry if it is still there. */
static void drop_oldest(struct srv_cache *cache)
{
	struct put_record *r = &cache->order[cache->first];
	struct cache_entry *e = &cache->slots[r->slot];

	if (e->body && e->seq == r->seq)
		entry_clear(cache, e);
	cache->first = (cache->first + 1) % SRV_CACHE_SLOTS;
	cache->count--;
}

/* Evict the oldest entries until need more bytes fit, and room for one
 * more put record. */
static void make_room(struct srv_cache *cache, size_t need)
{
	while (cache->count > 0 && (cache->bytes + need > SRV_CACHE_BYTES ||
				    cache->count == SRV_CACHE_SLOTS))
		drop_oldest(cache);
}

void srv_cache_put(struct srv_cache *cache, const char *key, int64_t user,
		   uint64_t version, struct srv_response *res)
{
	uint64_t h = hash_key(key, user);
	struct cache_entry *e = &cache->slots[h % SRV_CACHE_SLOTS];

	if (res->status != 200 || res->body == NULL || res->allow ||
	    res->location || res->nextra || res->body_len > SRV_CACHE_MAX_BODY)
		return;
	entry_clear(cache, e);
	make_room(cache, res->body_len);
	e->key = strdup(key);
	if ((e->body = srv_response_share_body(res)) != NULL)
		cache->bytes += srv_blob_len(e->body);
	if (e->key == NULL || e->body == NULL) {
		entry_clear(cache, e);
		return;
	}
	memcpy(e->etag, res->etag, sizeof(e->etag));
	e->content_type = res->content_type;
	e->hash = h;
	e->user = user;
	e->version = version;
	e->seq = ++cache->seq;
	cache->order[(cache->first + cache->count++) % SRV_CACHE_SLOTS] =
		(struct put_record){ (uint32_t)(e - cache->slots), e->seq };
}
