/*
 * Unit tests of the API's per-thread response cache (src/server/cache.c):
 * what it keeps stays within SRV_CACHE_BYTES, the newest entries first,
 * and a kept body is the response's own bytes, shared, not a copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "check.h"

/* Bytes of each body put: many of them overflow the budget. */
#define BODY (100 * 1024)
#define PUTS (3 * SRV_CACHE_BYTES / BODY)

static void response(struct srv_response *res, char fill)
{
	memset(res, 0, sizeof(*res));
	res->status = 200;
	res->body = malloc(BODY);
	if (res->body)
		memset(res->body, fill, BODY);
	res->body_len = res->body ? BODY : 0;
	res->content_type = "application/json";
}

static void key_of(char *key, size_t cap, int i)
{
	snprintf(key, cap, "http://h\n/api/v2/search/?q=%d", i);
}

TEST(kept_bodies_stay_within_the_budget_newest_first)
{
	struct srv_cache *cache = srv_cache_new();
	struct srv_response res, hit;
	char key[64];
	size_t kept = 0;
	int i, newest_kept = 1;

	for (i = 0; cache && i < PUTS; i++) {
		response(&res, (char)('a' + i % 26));
		key_of(key, sizeof(key), i);
		srv_cache_put(cache, key, 0, 7, &res);
		srv_response_drop_body(&res);
	}
	for (i = 0; cache && i < PUTS; i++) {
		memset(&hit, 0, sizeof(hit));
		key_of(key, sizeof(key), i);
		if (!srv_cache_get(cache, key, 0, 7, &hit))
			continue;
		kept++;
		CHECK(hit.body_len == BODY && hit.body[0] == (char)('a' + i % 26));
		srv_response_drop_body(&hit);
	}
	CHECK(kept > 0);
	CHECK(kept * BODY <= SRV_CACHE_BYTES);
	/* The last ones put are all there. */
	for (i = PUTS - (int)(SRV_CACHE_BYTES / BODY) / 2; cache && i < PUTS;
	     i++) {
		memset(&hit, 0, sizeof(hit));
		key_of(key, sizeof(key), i);
		newest_kept &= srv_cache_get(cache, key, 0, 7, &hit);
		srv_response_drop_body(&hit);
	}
	CHECK(newest_kept);
	srv_cache_free(cache);
}

TEST(a_kept_body_is_shared_not_copied)
{
	struct srv_cache *cache = srv_cache_new();
	struct srv_response res, hit;
	char *bytes;

	response(&res, 'x');
	bytes = res.body;
	srv_cache_put(cache, "k", 1, 1, &res);
	CHECK(res.blob != NULL && res.body == bytes);
	memset(&hit, 0, sizeof(hit));
	CHECK(srv_cache_get(cache, "k", 1, 1, &hit));
	CHECK(hit.body == bytes);
	/* Another user or data version is another response. */
	CHECK(!srv_cache_get(cache, "k", 2, 1, &hit) || hit.body == bytes);
	srv_response_drop_body(&hit);
	memset(&hit, 0, sizeof(hit));
	CHECK(!srv_cache_get(cache, "k", 1, 2, &hit));
	srv_response_drop_body(&res);
	srv_cache_free(cache);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(kept_bodies_stay_within_the_budget_newest_first),
	TEST_ENTRY(a_kept_body_is_shared_not_copied),
};

int main(int argc, char **argv)
{
	return lec_test_run(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
