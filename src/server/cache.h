/*
 * A per-thread cache of rendered GET responses, valid while the database is
 * unchanged (lec_store_data_version). Clients that poll (the TUI, scripts
 * watching builds) ask for the same pages again and again; while nothing
 * was written they get the bytes already rendered.
 */
#ifndef LECTERN_SRV_CACHE_H
#define LECTERN_SRV_CACHE_H

#include <stdint.h>

#include "handler.h"

struct srv_cache;

/* Slots per thread: direct-mapped, a colliding entry replaces the older. */
#define SRV_CACHE_SLOTS 1024
/* Bodies larger than this are not kept (a page of 1,000 projects). */
#define SRV_CACHE_MAX_BODY (512 * 1024)
/* Bytes of bodies kept per thread: the pages a few clients poll and the
 * searches a reader types (30-50 KB each). Without a bound 1,024 slots of
 * up to 512 KiB could hold half a gigabyte per thread, and a stream of
 * distinct searches kept taking fresh memory (a page fault every 4 KiB)
 * instead of reusing what older entries held. */
#define SRV_CACHE_BYTES (8 * 1024 * 1024)

/* FNV-1a of len bytes, its offset basis mixed with seed (0: plain FNV-1a):
 * the server's hash for cache keys, where a collision only evicts; no
 * adversary gains from one. */
uint64_t srv_fnv1a(const void *data, size_t len, uint64_t seed);
/* A 64-bit hash of a response body, eight bytes a step: what entity tags
 * take (FNV-1a, a byte a step, cost more than a search's ranking on a
 * 40 KB result page). */
uint64_t srv_hash_body(const void *data, size_t len);

struct srv_cache *srv_cache_new(void);
/* Accepts NULL. */
void srv_cache_free(struct srv_cache *cache);

/* Fill res with the cached response for (key, user) rendered at this
 * data version: its body shared with the cache (srv_response_set_blob)
 * its type and entity tag. Returns 1 on a hit, 0 otherwise. */
int srv_cache_get(struct srv_cache *cache, const char *key, int64_t user,
		  uint64_t version, struct srv_response *res);
/* Keep a 200 response (body, type and entity tag); its body becomes
 * shared (srv_response_share_body), not copied. */
void srv_cache_put(struct srv_cache *cache, const char *key, int64_t user,
		   uint64_t version, struct srv_response *res);

#endif
