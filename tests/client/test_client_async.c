/*
 * The asynchronous mode against the fake server: several requests running
 * at once (they finish together, not one after another), cancelling one,
 * retries that wait on a timer while lc_async_perform keeps returning at
 * once, Retry-After, errors delivered through the callback, a callback that
 * submits the next request, conditional requests, both loop styles (select
 * on our fds, and lc_async_poll), and freeing a client with work pending.
 */
#include <stdlib.h>
#include <sys/select.h>

#include "client_harness.h"

static struct lct_server fake;

/* What one callback saw. */
struct seen {
	int calls;
	int code;
	long status;
	bool not_modified;
	char message[LC_ERROR_MESSAGE_MAX];
	long long attempts;    /* "attempts" in the JSON, if any */
	cJSON *json;           /* taken from the response */
	long long at_ms;
};

static void record(struct lc_response *resp, const struct lc_error *err,
		   void *data)
{
	struct seen *s = data;
	const cJSON *a;

	s->calls++;
	s->code = err->code;
	s->status = resp ? resp->status : 0;
	s->not_modified = resp ? resp->not_modified : false;
	snprintf(s->message, sizeof(s->message), "%s", err->message);
	s->at_ms = lct_now_ms();
	if (resp == NULL)
		return;
	a = cJSON_GetObjectItem(resp->json, "attempts");
	s->attempts = cJSON_IsNumber(a) ? (long long)a->valuedouble : -1;
	/* Taking the JSON: the client must not free it. */
	cJSON_Delete(s->json);
	s->json = resp->json;
	resp->json = NULL;
}

static uint64_t submit(struct lc_client *c, const char *method,
		       const char *path, const char *etag, struct seen *s)
{
	struct lc_async_request req = { 0 };
	struct lc_error err;
	uint64_t id = 0;

	req.method = method;
	req.path = path;
	req.etag = etag;
	req.done = record;
	req.data = s;
	CHECK_OK(lc_async_submit(c, &req, &id, &err), &err);
	CHECK(id != 0);
	return id;
}

/* Runs the loop with lc_async_poll until nothing is pending or the time
 * is up; returns the longest single lc_async_perform call in ms. */
static long long run_poll(struct lc_client *c, long long limit_ms)
{
	long long deadline = lct_now_ms() + limit_ms, longest = 0;

	while (lc_async_pending(c) > 0 && lct_now_ms() < deadline) {
		long long t0;

		CHECK_INT(lc_async_poll(c, 100), LC_OK);
		t0 = lct_now_ms();
		CHECK_INT(lc_async_perform(c), LC_OK);
		if (lct_now_ms() - t0 > longest)
			longest = lct_now_ms() - t0;
	}
	return longest;
}

/* The same with select() on the client's fds, as a UI loop would do
 * alongside its own terminal fd. */
static void run_select(struct lc_client *c, long long limit_ms)
{
	long long deadline = lct_now_ms() + limit_ms;

	while (lc_async_pending(c) > 0 && lct_now_ms() < deadline) {
		fd_set rd, wr, ex;
		struct timeval tv;
		int maxfd = -1;
		long t;

		FD_ZERO(&rd);
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		CHECK_INT(lc_async_fdset(c, &rd, &wr, &ex, &maxfd), LC_OK);
		t = lc_async_timeout(c);
		if (t < 0 || t > 100)
			t = 100;
		tv.tv_sec = 0;
		tv.tv_usec = t * 1000;
		select(maxfd + 1, &rd, &wr, &ex, &tv);
		CHECK_INT(lc_async_perform(c), LC_OK);
	}
}

TEST(concurrent_requests_overlap)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct seen s[5];
	long long t0 = lct_now_ms();
	int i;

	memset(s, 0, sizeof(s));
	for (i = 0; i < 5; i++)
		submit(c, NULL, "/slow?seconds=1", NULL, &s[i]);
	CHECK_INT(lc_async_pending(c), 5);
	run_poll(c, 10000);
	/* Five 1 s requests in well under 5 s: they ran together. */
	CHECK(lct_now_ms() - t0 < 4000);
	for (i = 0; i < 5; i++) {
		CHECK_INT(s[i].calls, 1);
		CHECK_INT(s[i].code, LC_OK);
		CHECK_INT(s[i].status, 200);
		CHECK(cJSON_IsTrue(cJSON_GetObjectItem(s[i].json, "ok")));
		cJSON_Delete(s[i].json);
	}
	CHECK_INT(lc_async_pending(c), 0);
	CHECK_INT(lc_async_timeout(c), -1);
	lc_client_free(c);
}

TEST(cancel_a_pending_request)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct seen slow = { 0 }, quick = { 0 };
	uint64_t id;
	char expected[256];

	id = submit(c, NULL, "/slow?seconds=3", NULL, &slow);
	submit(c, NULL, "/flaky?fails=0&key=a1", NULL, &quick);
	CHECK_INT(lc_async_perform(c), LC_OK);
	CHECK_INT(lc_async_cancel(c, id), LC_OK);
	/* The callback fired at once, from lc_async_cancel. */
	CHECK_INT(slow.calls, 1);
	CHECK_INT(slow.code, LC_ECANCELLED);
	CHECK_INT(slow.status, 0);
	snprintf(expected, sizeof(expected),
		 "request to %s/slow?seconds=3 cancelled", fake.url);
	CHECK_STR(slow.message, expected);
	CHECK_INT(lc_async_pending(c), 1);
	/* Cancelling twice, or an unknown id, is refused. */
	CHECK_INT(lc_async_cancel(c, id), LC_EINVAL);
	CHECK_INT(lc_async_cancel(c, 987654), LC_EINVAL);
	run_poll(c, 5000);
	CHECK_INT(quick.calls, 1);
	CHECK_INT(quick.code, LC_OK);
	CHECK_INT(slow.calls, 1);
	cJSON_Delete(quick.json);
	lc_client_free(c);
}

TEST(retry_waits_on_a_timer)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct seen s = { 0 };
	long long t0 = lct_now_ms(), longest;

	submit(c, NULL, "/flaky?fails=2&key=a2", NULL, &s);
	longest = run_poll(c, 10000);
	CHECK_INT(s.calls, 1);
	CHECK_INT(s.code, LC_OK);
	CHECK_INT(s.attempts, 3);
	/* Two backoffs (>= 250 + 500 ms) passed, yet no call blocked for
	 * one (the second alone is >= 500 ms). */
	CHECK(lct_now_ms() - t0 >= 750);
	CHECK(longest < 450);
	cJSON_Delete(s.json);
	lc_client_free(c);
}

TEST(retry_after_in_async)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct seen s = { 0 };
	long long t0 = lct_now_ms();
	bool timer_seen = false;
	long t;

	submit(c, "POST", "/throttle?fails=1&after=1&key=a3", NULL, &s);
	/* During the Retry-After wait no transfer runs: the loop is told to
	 * come back when the one-second timer is due. */
	while (lc_async_pending(c) > 0 && lct_now_ms() - t0 < 5000) {
		CHECK_INT(lc_async_poll(c, 50), LC_OK);
		CHECK_INT(lc_async_perform(c), LC_OK);
		t = lc_async_timeout(c);
		if (t > 500 && t <= 1000)
			timer_seen = true;
	}
	CHECK(timer_seen);
	CHECK_INT(s.calls, 1);
	CHECK_INT(s.code, LC_OK);
	CHECK_INT(s.attempts, 2);
	CHECK(s.at_ms - t0 >= 1000);
	cJSON_Delete(s.json);
	lc_client_free(c);
}

/* A 429 the client gives up on (one attempt allowed) still holds the next
 * requests until its Retry-After is over: a polling UI does not knock
 * again at once, and the count of requests sent shows it. */
TEST(throttle_holds_new_requests)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 1);
	struct seen s = { 0 }, s2 = { 0 };
	unsigned long long sent;
	long long t0;

	submit(c, "GET", "/throttle?fails=9&after=2&key=h1", NULL, &s);
	run_poll(c, 5000);
	CHECK_INT(s.code, LC_EHTTP);
	CHECK_INT(s.status, 429);
	sent = lc_client_requests(c);
	t0 = lct_now_ms();
	submit(c, "GET", "/flaky?fails=0&key=h2", NULL, &s2);
	/* Nothing went out: the job waits on the client's timer. */
	CHECK_INT((long long)(lc_client_requests(c) - sent), 0);
	CHECK(lc_async_timeout(c) > 1000);
	run_poll(c, 5000);
	CHECK_INT(s2.code, LC_OK);
	CHECK(s2.at_ms - t0 >= 1500);
	CHECK_INT((long long)(lc_client_requests(c) - sent), 1);
	cJSON_Delete(s.json);
	cJSON_Delete(s2.json);
	lc_client_free(c);
}

TEST(errors_through_the_callback)
{
	struct lc_client *c = lct_client(&fake, NULL, 300, 1);
	struct seen bad = { 0 }, slow = { 0 }, broken = { 0 };
	char expected[256];

	submit(c, NULL, "/status?code=400&body=%7B%22name%22%3A%5B%22This%20"
			"field%20is%20required.%22%5D%7D", NULL, &bad);
	submit(c, NULL, "/slow?seconds=2", NULL, &slow);
	submit(c, NULL, "/malformed", NULL, &broken);
	run_select(c, 5000);
	CHECK_INT(bad.code, LC_EHTTP);
	CHECK_INT(bad.status, 400);
	CHECK_STR(bad.message, "name: This field is required.");
	CHECK_INT(slow.code, LC_ETIMEOUT);
	CHECK_INT(broken.code, LC_EJSON);
	snprintf(expected, sizeof(expected),
		 "invalid JSON in response from %s/malformed", fake.url);
	CHECK_STR(broken.message, expected);
	cJSON_Delete(bad.json);
	lc_client_free(c);
}

/* A callback that submits the next request: the chain is how a UI polls. */
struct chain {
	struct lc_client *c;
	int done;
	struct seen second;
};

static void first_done(struct lc_response *resp, const struct lc_error *err,
		       void *data)
{
	struct chain *ch = data;
	struct lc_async_request req = { 0 };
	struct lc_error e;

	CHECK_INT(err->code, LC_OK);
	CHECK(resp != NULL && resp->etag != NULL);
	req.path = "/etag?version=1";
	req.etag = resp ? resp->etag : NULL;
	req.done = record;
	req.data = &ch->second;
	CHECK_OK(lc_async_submit(ch->c, &req, NULL, &e), &e);
	ch->done++;
}

TEST(callback_submits_conditional_follow_up)
{
	struct chain ch = { 0 };
	struct lc_async_request req = { 0 };
	struct lc_error err;

	ch.c = lct_client(&fake, NULL, 0, 0);
	req.path = "/etag?version=1";
	req.done = first_done;
	req.data = &ch;
	CHECK_OK(lc_async_submit(ch.c, &req, NULL, &err), &err);
	run_select(ch.c, 5000);
	CHECK_INT(ch.done, 1);
	CHECK_INT(ch.second.calls, 1);
	CHECK_INT(ch.second.code, LC_OK);
	CHECK_INT(ch.second.status, 304);
	CHECK(ch.second.not_modified);
	lc_client_free(ch.c);
}

TEST(free_with_pending_requests)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct seen a = { 0 }, b = { 0 };
	struct lc_async_request req = { 0 };
	struct lc_error err;

	submit(c, NULL, "/slow?seconds=3", NULL, &a);
	submit(c, NULL, "/flaky?fails=5&key=a4", NULL, &b);
	CHECK_INT(lc_async_perform(c), LC_OK);
	lc_client_free(c);
	CHECK_INT(a.calls, 1);
	CHECK_INT(a.code, LC_ECANCELLED);
	CHECK_INT(b.calls, 1);
	CHECK_INT(b.code, LC_ECANCELLED);

	/* Bad submissions are refused without a callback. */
	c = lct_client(&fake, NULL, 0, 0);
	CHECK_RC(lc_async_submit(c, &req, NULL, &err), LC_EINVAL, &err);
	CHECK_INT(lc_async_pending(c), 0);
	CHECK_INT(lc_async_perform(c), LC_OK);
	lc_client_free(c);
}

TEST(dead_port_in_async)
{
	struct lct_server dead = { 0 };
	struct lc_client *c;
	struct seen s = { 0 };

	/* The fake's port once it is gone would race; port 1 is never ours. */
	dead.port = 1;
	snprintf(dead.url, sizeof(dead.url), "http://127.0.0.1:1");
	c = lct_client(&dead, NULL, 0, 0);
	submit(c, NULL, "/api/v3/projects/", NULL, &s);
	run_poll(c, 5000);
	CHECK_INT(s.calls, 1);
	CHECK_INT(s.code, LC_ETRANSPORT);
	CHECK_STR(s.message, "connection refused to 127.0.0.1:1");
	lc_client_free(c);
}

/* A Lectern's 429 (it throttles only imports and full build queues)
 * holds nothing but its own request: the next one goes out at once; and
 * one without Retry-After (a full queue) is not retried. The fake answers
 * as a Lectern when asked as localhost. */
TEST(lectern_throttle_holds_nothing_else)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct seen s = { 0 }, s2 = { 0 }, s3 = { 0 };
	struct lc_error err;
	unsigned long long sent;
	char url[64];

	snprintf(url, sizeof(url), "http://localhost:%d", fake.port);
	o.api_url = url;
	CHECK_INT(lc_client_new(&c, &o, &err), LC_OK);
	if (c == NULL)
		return;
	/* Told to wait longer than the client waits: given up at once. */
	submit(c, "GET", "/throttle?fails=9&after=120&key=h3", NULL, &s);
	run_poll(c, 5000);
	CHECK_INT(s.status, 429);
	CHECK_INT(lc_client_remote(c), LC_REMOTE_LECTERN);
	sent = lc_client_requests(c);
	submit(c, "GET", "/flaky?fails=0&key=h4", NULL, &s2);
	CHECK(lc_async_timeout(c) < 1000);
	run_poll(c, 5000);
	CHECK_INT(s2.code, LC_OK);
	CHECK_INT((long long)(lc_client_requests(c) - sent), 1);
	sent = lc_client_requests(c);
	submit(c, "GET", "/throttle?fails=9&after=none&key=h5", NULL, &s3);
	run_poll(c, 5000);
	CHECK_INT(s3.status, 429);
	CHECK_INT((long long)(lc_client_requests(c) - sent), 1);
	cJSON_Delete(s.json);
	cJSON_Delete(s2.json);
	cJSON_Delete(s3.json);
	lc_client_free(c);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(concurrent_requests_overlap),
		TEST_ENTRY(cancel_a_pending_request),
		TEST_ENTRY(retry_waits_on_a_timer),
		TEST_ENTRY(retry_after_in_async),
		TEST_ENTRY(throttle_holds_new_requests),
		TEST_ENTRY(lectern_throttle_holds_nothing_else),
		TEST_ENTRY(errors_through_the_callback),
		TEST_ENTRY(callback_submits_conditional_follow_up),
		TEST_ENTRY(free_with_pending_requests),
		TEST_ENTRY(dead_port_in_async),
	};
	int rc;

	lct_fake_start(&fake);
	rc = lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
	lct_stop(&fake);
	return rc;
}
