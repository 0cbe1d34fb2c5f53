/*
 * The blocking client against the scripted fake server (fake_server.py):
 * retries on 5xx (idempotent only) and 429 with Retry-After in seconds and
 * as a date, the Retry-After cap, malformed JSON, a dead port, a slow server
 * hitting the total timeout, connections checked before they are opened
 * (redirects too), conditional requests, what goes on the wire
 * (token, User-Agent, encoding, body), DRF error bodies over HTTP, the
 * pagination iterator, and the typed calls on the hosted service's shapes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client_harness.h"

static struct lct_server fake;

/* Fetches JSON from the fake and returns an integer member. */
static long long get_int(struct lc_client *c, const char *path,
			 const char *key)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	long long v = -1;

	CHECK_OK(lc_get(c, path, NULL, NULL, &r, &err), &err);
	if (r != NULL && cJSON_IsNumber(cJSON_GetObjectItem(r->json, key)))
		v = (long long)cJSON_GetObjectItem(r->json, key)->valuedouble;
	lc_response_free(r);
	return v;
}

static long long hits(struct lc_client *c, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), "/hits?key=%s", key);
	return get_int(c, path, "hits");
}

TEST(retry_5xx_then_success)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	long long t0 = lct_now_ms();

	CHECK_INT(get_int(c, "/flaky?fails=1&key=r1", "attempts"), 2);
	/* At least half the first backoff step was waited. */
	CHECK(lct_now_ms() - t0 >= 250);
	CHECK_INT(get_int(c, "/flaky?fails=2&status=503&key=r2", "attempts"), 3);
	lc_client_free(c);
}

TEST(retry_gives_up_after_max_attempts)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 3);
	struct lc_response *r = NULL;
	struct lc_error err;

	CHECK_RC(lc_get(c, "/flaky?fails=10&key=r3", NULL, NULL, &r, &err),
		 LC_EHTTP, &err);
	CHECK_INT(err.status, 500);
	CHECK_STR(err.message, "Server is having a bad day.");
	/* The last answer is still handed over. */
	CHECK(r != NULL && r->status == 500);
	lc_response_free(r);
	CHECK_INT(hits(c, "r3"), 3);
	lc_client_free(c);
}

TEST(post_is_not_retried_on_5xx)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;

	CHECK_RC(lc_request(c, "POST", "/flaky?fails=1&key=r4", "{}", &r, &err),
		 LC_EHTTP, &err);
	CHECK_INT(err.status, 500);
	lc_response_free(r);
	CHECK_INT(hits(c, "r4"), 1);
	/* PATCH neither; PUT and DELETE are idempotent and do retry. */
	CHECK_RC(lc_request(c, "PATCH", "/flaky?fails=1&key=r5", "{}", &r, &err),
		 LC_EHTTP, &err);
	lc_response_free(r);
	CHECK_OK(lc_request(c, "PUT", "/flaky?fails=1&key=r6", "{}", &r, &err),
		 &err);
	lc_response_free(r);
	CHECK_OK(lc_request(c, "DELETE", "/flaky?fails=1&key=r7", NULL, &r, &err),
		 &err);
	lc_response_free(r);
	CHECK_INT(hits(c, "r5"), 1);
	CHECK_INT(hits(c, "r6"), 2);
	CHECK_INT(hits(c, "r7"), 2);
	lc_client_free(c);
}

TEST(throttled_429_honours_retry_after)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;
	long long t0 = lct_now_ms(), dt;

	/* Even a POST retries on 429, after the seconds it was told. */
	CHECK_OK(lc_request(c, "POST", "/throttle?fails=1&after=1&key=t1", "{}",
			    &r, &err), &err);
	dt = lct_now_ms() - t0;
	CHECK(dt >= 1000 && dt < 3000);
	CHECK_INT(r ? r->status : 0, 200);
	lc_response_free(r);
	CHECK_INT(hits(c, "t1"), 2);

	/* An HTTP date two seconds ahead (whole seconds: 1-2 s wait). */
	t0 = lct_now_ms();
	CHECK_INT(get_int(c, "/throttle?fails=1&after=date&key=t2", "attempts"), 2);
	dt = lct_now_ms() - t0;
	CHECK(dt >= 900 && dt < 4000);

	/* No Retry-After: the usual backoff. */
	CHECK_INT(get_int(c, "/throttle?fails=1&after=none&key=t3", "attempts"), 2);
	lc_client_free(c);
}

TEST(throttled_beyond_cap_fails_at_once)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;
	long long t0 = lct_now_ms();

	CHECK_RC(lc_get(c, "/throttle?fails=5&after=3600&key=t4", NULL, NULL,
			&r, &err), LC_EHTTP, &err);
	CHECK(lct_now_ms() - t0 < 1000);
	CHECK_INT(err.status, 429);
	CHECK_STR(err.message,
		  "Request was throttled. Expected available in 1 second.");
	lc_response_free(r);
	CHECK_INT(hits(c, "t4"), 1);
	lc_client_free(c);
}

TEST(malformed_json_is_an_error)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct lc_response *r = NULL;
	struct lc_iter *it = NULL;
	const cJSON *item;
	struct lc_error err;
	char expected[256];

	snprintf(expected, sizeof(expected),
		 "invalid JSON in response from %s/malformed", fake.url);
	CHECK_RC(lc_get(c, "/malformed", NULL, NULL, &r, &err), LC_EJSON, &err);
	CHECK_STR(err.message, expected);
	CHECK(r == NULL);
	/* A list call getting HTML instead of JSON says the same. */
	CHECK_OK(lc_iter_new(&it, c, "/html", NULL, &err), &err);
	CHECK_RC(lc_iter_next(it, &item, &err), LC_EJSON, &err);
	snprintf(expected, sizeof(expected),
		 "invalid JSON in response from %s/html", fake.url);
	CHECK_STR(err.message, expected);
	lc_iter_free(it);
	/* The raw call accepts non-JSON bodies as they are. */
	CHECK_OK(lc_request(c, "GET", "/html", NULL, &r, &err), &err);
	CHECK_STR(r->body, "<html>hello</html>");
	CHECK(r->json == NULL);
	CHECK_STR(r->content_type, "text/html");
	lc_response_free(r);
	lc_client_free(c);
}

/* A loopback port nothing listens on. */
static int dead_port(void)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

TEST(dead_port_is_a_transport_error)
{
	struct lct_server dead = { 0 };
	struct lc_client *c;
	struct lc_response *r = NULL;
	struct lc_error err;
	char expected[64];

	dead.port = dead_port();
	snprintf(dead.url, sizeof(dead.url), "http://127.0.0.1:%d", dead.port);
	c = lct_client(&dead, "secret-token", 0, 0);
	CHECK_RC(lc_get(c, "/api/v3/projects/", NULL, NULL, &r, &err),
		 LC_ETRANSPORT, &err);
	snprintf(expected, sizeof(expected), "connection refused to 127.0.0.1:%d",
		 dead.port);
	CHECK_STR(err.message, expected);
	CHECK_INT(err.status, 0);
	CHECK(r == NULL);
	CHECK(strstr(err.message, "secret-token") == NULL);
	lc_client_free(c);
}

/* A connection check that allows one port of 127.0.0.1 and records the
 * last address offered. */
struct seen {
	int allowed_port;
	char last[INET6_ADDRSTRLEN + 8];
	int calls;
};

static int check_port(const struct sockaddr *addr, size_t len, void *payload)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	struct seen *seen = payload;
	char ip[INET6_ADDRSTRLEN] = "?";

	seen->calls++;
	if (addr->sa_family != AF_INET || len < sizeof(*in))
		return 0;
	inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
	snprintf(seen->last, sizeof(seen->last), "%s:%d", ip,
		 ntohs(in->sin_port));
	return in->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
	       ntohs(in->sin_port) == seen->allowed_port;
}

TEST(checked_connections)
{
	struct seen seen = { fake.port, "", 0 };
	struct lc_client *c = lct_client(&fake, "secret-token", 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;
	char path[256], expected[128];

	/* Allowed: the check saw the address connected to. */
	lc_client_check_connections(c, check_port, &seen);
	CHECK_INT(get_int(c, "/flaky?fails=0&key=k1", "attempts"), 1);
	CHECK_INT(seen.calls, 1);
	snprintf(expected, sizeof(expected), "127.0.0.1:%d", fake.port);
	CHECK_STR(seen.last, expected);
	lc_client_free(c);
	/* A redirect elsewhere is checked too, and refused before any
	 * connection, with where it was going. */
	c = lct_client(&fake, NULL, 0, 0);
	lc_client_check_connections(c, check_port, &seen);
	snprintf(path, sizeof(path),
		 "/redirect?to=http://127.0.0.2:%d/flaky%%3Fkey=k2",
		 fake.port);
	CHECK_RC(lc_get(c, path, NULL, NULL, &r, &err), LC_ETRANSPORT, &err);
	snprintf(expected, sizeof(expected),
		 "refused: the address of 127.0.0.2:%d is not allowed",
		 fake.port);
	CHECK_STR(err.message, expected);
	CHECK(r == NULL);
	lc_client_free(c);
	/* Refused from the start: the server never hears of it. */
	seen.allowed_port = 0;
	c = lct_client(&fake, NULL, 0, 0);
	lc_client_check_connections(c, check_port, &seen);
	CHECK_RC(lc_get(c, "/flaky?key=k3", NULL, NULL, &r, &err),
		 LC_ETRANSPORT, &err);
	snprintf(expected, sizeof(expected),
		 "refused: the address of 127.0.0.1:%d is not allowed",
		 fake.port);
	CHECK_STR(err.message, expected);
	/* Checking nothing again. */
	lc_client_check_connections(c, NULL, &seen);
	CHECK_INT(hits(c, "k3"), 0);
	lc_client_free(c);
}

TEST(slow_server_times_out)
{
	struct lc_client *c = lct_client(&fake, NULL, 300, 0);
	struct lc_response *r = NULL;
	struct lc_error err;
	long long t0 = lct_now_ms();
	char expected[256];

	CHECK_RC(lc_get(c, "/slow?seconds=2", NULL, NULL, &r, &err),
		 LC_ETIMEOUT, &err);
	/* Timeouts are not retried: one wait only. */
	CHECK(lct_now_ms() - t0 < 1500);
	snprintf(expected, sizeof(expected),
		 "timed out after 300 ms waiting for %s/slow?seconds=2", fake.url);
	CHECK_STR(err.message, expected);
	CHECK(r == NULL);
	lc_client_free(c);
}

TEST(conditional_get_with_etag)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;

	CHECK_OK(lc_get(c, "/etag?version=1", NULL, NULL, &r, &err), &err);
	CHECK_INT(r->status, 200);
	CHECK(!r->not_modified);
	CHECK_STR(r->etag, "\"v1\"");
	CHECK_STR(cJSON_GetObjectItem(r->json, "version")->valuestring, "1");
	lc_response_free(r);
	CHECK_OK(lc_get(c, "/etag?version=1", NULL, "\"v1\"", &r, &err), &err);
	CHECK_INT(r->status, 304);
	CHECK(r->not_modified);
	CHECK_STR(r->etag, "\"v1\"");
	CHECK(r->json == NULL);
	lc_response_free(r);
	/* Changed: a full answer with the new tag. */
	CHECK_OK(lc_get(c, "/etag?version=2", NULL, "\"v1\"", &r, &err), &err);
	CHECK_INT(r->status, 200);
	CHECK(!r->not_modified);
	CHECK_STR(r->etag, "\"v2\"");
	lc_response_free(r);
	CHECK_RC(lc_get(c, "/etag", NULL, "\"v1\"\r\nX: y", &r, &err), LC_EINVAL,
		 &err);
	lc_client_free(c);
}

static cJSON *echo(struct lc_client *c, const char *method, const char *path,
		   const struct lc_query *q, const char *body)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	cJSON *j = NULL;

	if (q != NULL)
		CHECK_OK(lc_get(c, path, q, NULL, &r, &err), &err);
	else
		CHECK_OK(lc_request(c, method, path, body, &r, &err), &err);
	if (r != NULL) {
		j = r->json;
		r->json = NULL;
	}
	lc_response_free(r);
	return j;
}

static const char *jstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(j, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

TEST(what_goes_on_the_wire)
{
	struct lc_client *c = lct_client(&fake, "tok123", 0, 0);
	struct lc_query q = { 0 };
	struct lc_error err;
	char other[128];
	cJSON *j;

	j = echo(c, "POST", "/echo", NULL, "{\"name\":\"x\"}");
	CHECK_STR(jstr(j, "method"), "POST");
	CHECK_STR(jstr(j, "authorization"), "Token tok123");
	CHECK_STR(jstr(j, "user_agent"), "lectern/" LC_VERSION_FOR_TESTS);
	CHECK_STR(jstr(j, "content_type"), "application/json");
	CHECK_STR(jstr(j, "body"), "{\"name\":\"x\"}");
	cJSON_Delete(j);

	/* A POST without a body still sends an empty one. */
	j = echo(c, "POST", "/echo", NULL, NULL);
	CHECK_STR(jstr(j, "body"), "");
	CHECK(jstr(j, "content_type") == NULL ||
	      strcmp(jstr(j, "content_type"), "application/json") != 0);
	cJSON_Delete(j);

	CHECK_OK(lc_query_add(&q, "name", "a b&c=d"), &err);
	CHECK_OK(lc_query_add(&q, "expand", "active_versions,active_versions.last_build"), &err);
	CHECK_OK(lc_query_add(&q, "omit", "_links"), &err);
	j = echo(c, "GET", "/echo", &q, NULL);
	CHECK_STR(jstr(j, "query"), "name=a%20b%26c%3Dd&expand=active_versions"
				    "%2Cactive_versions.last_build&omit=_links");
	CHECK_STR(jstr(j, "method"), "GET");
	cJSON_Delete(j);
	lc_query_dispose(&q);

	/* Another origin (even the same server by another name) never sees
	 * the token. */
	snprintf(other, sizeof(other), "http://localhost:%d/echo", fake.port);
	j = echo(c, "GET", other, NULL, NULL);
	CHECK(jstr(j, "authorization") == NULL);
	cJSON_Delete(j);
	lc_client_free(c);

	/* No token, no header. */
	c = lct_client(&fake, NULL, 0, 0);
	j = echo(c, "GET", "/echo", NULL, NULL);
	CHECK(jstr(j, "authorization") == NULL);
	cJSON_Delete(j);
	lc_client_free(c);
}

static void http_error(struct lc_client *c, const char *path, long status,
		       const char *message)
{
	struct lc_response *r = NULL;
	struct lc_error err;

	CHECK_RC(lc_request(c, "GET", path, NULL, &r, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, status);
	CHECK_STR(err.message, message);
	CHECK(r != NULL && r->status == status);
	lc_response_free(r);
}

TEST(error_bodies_flattened_over_http)
{
	struct lc_client *c = lct_client(&fake, NULL, 0, 1);
	char expected[256];

	http_error(c, "/status?code=400&body=%7B%22name%22%3A%5B%22This%20field"
		      "%20is%20required.%22%5D%7D", 400,
		   "name: This field is required.");
	http_error(c, "/status?code=400&body=%5B%22Invalid%20page%22%5D", 400,
		   "Invalid page");
	http_error(c, "/status?code=401&body=%7B%22detail%22%3A%22Invalid%20"
		      "token.%22%7D", 401, "Invalid token.");
	http_error(c, "/api/v2/project/", 410,
		   "List endpoint have been disabled due to heavy resource usage.");
	/* Django's HTML 404 page: no message of its own to show. */
	snprintf(expected, sizeof(expected),
		 "HTTP 404 from %s/status?code=404&ctype=text/html&body=x",
		 fake.url);
	http_error(c, "/status?code=404&ctype=text/html&body=x", 404, expected);
	/* An error body that claims JSON and is not: the status still says. */
	snprintf(expected, sizeof(expected),
		 "HTTP 502 from %s/status?code=502&body=%%7B", fake.url);
	http_error(c, "/status?code=502&body=%7B", 502, expected);
	lc_client_free(c);
}

TEST(iterator_follows_next_links)
{
	struct lc_client *c = lct_client(&fake, "tok", 0, 0);
	struct lc_query q = { 0 };
	struct lc_iter *it = NULL;
	const cJSON *item;
	struct lc_error err;
	int rc, n = 0;

	CHECK_OK(lc_query_add(&q, "limit", "10"), &err);
	CHECK_OK(lc_query_add(&q, "key", "pages1"), &err);
	CHECK_OK(lc_iter_new(&it, c, "/items/?total=25", &q, &err), &err);
	CHECK_INT(lc_iter_count(it), -1);
	while ((rc = lc_iter_next(it, &item, &err)) == 1) {
		struct lc_project *p = NULL;

		CHECK_OK(lc_project_parse(item, &p, &err), &err);
		if (p != NULL)
			CHECK_INT(p->id, n);
		lc_project_free(p);
		n++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(n, 25);
	CHECK_INT(lc_iter_count(it), 25);
	/* The end stays the end. */
	CHECK_INT(lc_iter_next(it, &item, &err), 0);
	lc_iter_free(it);
	lc_query_dispose(&q);
	CHECK_INT(hits(c, "pages1"), 3);

	/* An empty list. */
	CHECK_OK(lc_iter_new(&it, c, "/items/?total=0", NULL, &err), &err);
	CHECK_INT(lc_iter_next(it, &item, &err), 0);
	CHECK_INT(lc_iter_count(it), 0);
	lc_iter_free(it);

	/* A page whose next link is itself ends instead of looping. */
	CHECK_OK(lc_iter_new(&it, c, "/loop/", NULL, &err), &err);
	CHECK_INT(lc_iter_next(it, &item, &err), 1);
	CHECK_INT(lc_iter_next(it, &item, &err), 0);
	lc_iter_free(it);

	/* Not a list. */
	CHECK_OK(lc_iter_new(&it, c, "/echo", NULL, &err), &err);
	CHECK_RC(lc_iter_next(it, &item, &err), LC_EJSON, &err);
	lc_iter_free(it);
	lc_iter_free(NULL);
	lc_client_free(c);
}

TEST(typed_calls_on_real_service_shapes)
{
	struct lc_client *c = lct_client(&fake, "tok", 0, 0);
	struct lc_organization *o = NULL;
	struct lc_project *p = NULL;
	struct lc_build *b = NULL;
	struct lc_embed *e = NULL;
	struct lc_error err;

	CHECK_OK(lc_project_get(c, "pip", NULL, &p, &err), &err);
	CHECK_STR(p ? p->documentation_url : NULL,
		  "https://pip.readthedocs.io/en/stable/");
	CHECK_STR(p ? p->subproject_of : NULL, "pypa");
	lc_project_free(p);
	CHECK_OK(lc_project_get(c, "minimal", NULL, &p, &err), &err);
	CHECK_STR(p ? p->slug : NULL, "minimal");
	CHECK(p != NULL && p->name == NULL && p->language == NULL);
	lc_project_free(p);
	CHECK_RC(lc_project_get(c, "nope", NULL, &p, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	CHECK_STR(err.message, "Not found.");
	CHECK(p == NULL);
	CHECK_RC(lc_project_get(c, "", NULL, &p, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "a project slug is required");

	CHECK_OK(lc_build_get(c, "pip", 99, NULL, &b, &err), &err);
	CHECK_STR(b ? b->state : NULL, "building");
	CHECK(b != NULL && b->error == NULL && b->success == LC_UNKNOWN);
	lc_build_free(b);
	CHECK_OK(lc_build_trigger(c, "pip", "latest", &b, &err), &err);
	CHECK_INT(b ? b->id : 0, 99);
	lc_build_free(b);
	CHECK_OK(lc_v2_build_get(c, 7, &b, &err), &err);
	CHECK_INT(b ? b->commands_len : 0, 2);
	CHECK_STR(b ? b->commands[1].command : NULL, "python -m sphinx");
	lc_build_free(b);

	CHECK_OK(lc_org_get(c, "acme", &o, &err), &err);
	CHECK_INT(o ? o->owners_len : 0, 2);
	lc_organization_free(o);

	CHECK_OK(lc_embed_get(c, "https://pip.readthedocs.io/en/latest/#install",
			      &e, &err), &err);
	CHECK_STR(e ? e->url : NULL, "https://pip.readthedocs.io/en/latest/#install");
	CHECK_STR(e ? e->fragment : NULL, "install");
	CHECK_INT(e ? e->external : -2, 0);
	lc_embed_free(e);
	lc_client_free(c);
}

/* A client of the fake asked as "localhost", where it answers as a
 * Lectern. */
static struct lc_client *lectern_client(void)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct lc_error err;
	char url[64];

	snprintf(url, sizeof(url), "http://localhost:%d", fake.port);
	o.api_url = url;
	o.token = "tok";
	if (lc_client_new(&c, &o, &err) != LC_OK) {
		fprintf(stderr, "lc_client_new: %s\n", err.message);
		exit(2);
	}
	return c;
}

TEST(search_pages_on_the_docs_host)
{
	struct lc_client *c = lectern_client();
	struct lc_search_result *r;
	struct lc_list *l = NULL, *l2 = NULL;
	struct lc_iter *it = NULL;
	const cJSON *item;
	struct lc_error err;
	char host[64];
	int n = 0;

	CHECK_OK(lc_search(c, "pip install", "pip", NULL, 1, 2, &l, &err), &err);
	if (l == NULL)
		goto done;
	CHECK_INT(lc_client_remote(c), LC_REMOTE_LECTERN);
	CHECK_INT(l->count, 3);
	CHECK_INT(l->len, 2);
	CHECK(l->next != NULL);
	CHECK(l->previous == NULL);
	/* Asked of http://pip.localhost:<port>/, the project's docs host. */
	snprintf(host, sizeof(host), "pip.localhost:%d", fake.port);
	CHECK_STR(cJSON_GetObjectItem(l->raw, "host")->valuestring, host);
	r = l->items[1];
	CHECK_STR(r->title, "Page 1");
	CHECK_STR(r->path, "/en/latest/page1.html");
	CHECK_STR(r->hl_title.items[0], "<span>Page</span> 1");
	CHECK_INT(r->blocks_len, 2);
	CHECK_STR(r->blocks[0].hl_content.items[0], "<span>pip</span> install");
	CHECK_STR(r->blocks[1].role, "py:function");
	CHECK(r->project_alias == NULL);
	CHECK_OK(lc_search(c, "pip install", "pip", "latest", 2, 2, &l2, &err), &err);
	CHECK_INT(l2 ? l2->len : 0, 1);
	CHECK(l2 != NULL && l2->next == NULL);
	/* The iterator follows search's page links too. */
	CHECK_OK(lc_iter_new(&it, c, l->next, NULL, &err), &err);
	while (lc_iter_next(it, &item, &err) == 1)
		n++;
	CHECK_INT(n, 1);
	lc_iter_free(it);
	lc_list_free(l2);
	CHECK_RC(lc_search(c, "x", NULL, NULL, 0, 0, &l2, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "a project slug is required");
	CHECK(l2 == NULL);
done:
	lc_list_free(l);
	lc_list_free(l2);
	lc_client_free(c);
}

/* Against the service: learnt once from its API, then its v3 search on
 * the API host, with the token; no request to the docs host. */
TEST(search_on_the_service_uses_v3)
{
	struct lc_client *c = lct_client(&fake, "tok", 0, 0);
	struct lc_client *anon = lct_client(&fake, NULL, 0, 1);
	struct lc_search_result *r;
	struct lc_list *l = NULL;
	struct lc_error err;
	unsigned long long before;

	CHECK_INT(lc_client_remote(c), LC_REMOTE_UNKNOWN);
	CHECK_OK(lc_search(c, "pip install", "pip", "stable", 0, 0, &l, &err),
		 &err);
	CHECK_INT(lc_client_remote(c), LC_REMOTE_SERVICE);
	/* One request to learn, one to search. */
	CHECK_INT((long long)lc_client_requests(c), 2);
	if (l == NULL)
		goto done;
	CHECK_STR(cJSON_GetObjectItem(l->raw, "query")->valuestring,
		  "project:pip/stable pip install");
	CHECK_INT(l->len, 2);
	r = l->items[0];
	CHECK_STR(r->project, "pip");
	CHECK_STR(r->path, "/en/latest/page0.html");
	lc_list_free(l);
	l = NULL;
	/* Known now: the next search is one request. */
	before = lc_client_requests(c);
	CHECK_OK(lc_search(c, "pip", "pip", NULL, 0, 0, &l, &err), &err);
	CHECK_INT((long long)(lc_client_requests(c) - before), 1);
	lc_list_free(l);
	l = NULL;
	/* Without a token the service's answer is an error, not "0 pages". */
	CHECK_RC(lc_search(anon, "pip", "pip", NULL, 0, 0, &l, &err), LC_EHTTP,
		 &err);
	CHECK_STR(err.message, "Authentication credentials were not provided.");
done:
	lc_list_free(l);
	lc_client_free(anon);
	lc_client_free(c);
}

TEST(docs_fetch_conditional)
{
	struct lc_client *c = lct_client(&fake, "tok", 0, 0);
	struct lc_response *r = NULL;
	struct lc_error err;
	char expected[64];

	CHECK_OK(lc_docs_fetch(c, "pip", "/en/latest/index.html", NULL, &r, &err),
		 &err);
	snprintf(expected, sizeof(expected), "<h1>pip.localhost:%d</h1>",
		 fake.port);
	CHECK_STR(r ? r->body : NULL, expected);
	CHECK_STR(r ? r->etag : NULL, "\"doc1\"");
	lc_response_free(r);
	CHECK_OK(lc_docs_fetch(c, "pip", "en/latest/index.html", "\"doc1\"", &r,
			       &err), &err);
	CHECK(r != NULL && r->not_modified);
	lc_response_free(r);
	CHECK_RC(lc_docs_fetch(c, "", "x", NULL, &r, &err), LC_EINVAL, &err);
	lc_client_free(c);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(retry_5xx_then_success),
		TEST_ENTRY(retry_gives_up_after_max_attempts),
		TEST_ENTRY(post_is_not_retried_on_5xx),
		TEST_ENTRY(throttled_429_honours_retry_after),
		TEST_ENTRY(throttled_beyond_cap_fails_at_once),
		TEST_ENTRY(malformed_json_is_an_error),
		TEST_ENTRY(dead_port_is_a_transport_error),
		TEST_ENTRY(checked_connections),
		TEST_ENTRY(slow_server_times_out),
		TEST_ENTRY(conditional_get_with_etag),
		TEST_ENTRY(what_goes_on_the_wire),
		TEST_ENTRY(error_bodies_flattened_over_http),
		TEST_ENTRY(iterator_follows_next_links),
		TEST_ENTRY(typed_calls_on_real_service_shapes),
		TEST_ENTRY(search_pages_on_the_docs_host),
		TEST_ENTRY(search_on_the_service_uses_v3),
		TEST_ENTRY(docs_fetch_conditional),
	};
	int rc;

	lct_fake_start(&fake);
	rc = lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
	lct_stop(&fake);
	return rc;
}
