/*
 * Notifications and outgoing webhooks in the engine: the service's dedup
 * (raise twice, one row), cancel, states and filters, the per-user feed
 * (admins of a project, owners of an organization, nobody else), what a
 * build's end raises (its failure by the error's start, a version failing
 * after passing, cancelled once it passes again), and the webhook queue:
 * a generated secret, a rendered template, a signature that is the HMAC of
 * the body under that secret, retries with a doubling delay, the failing
 * notification after the last try and its cancelling by a delivery; at
 * most LEC_WEBHOOK_PROJECT_MAX webhooks a project, each delivery sent to
 * the URL it was queued for, deliveries taken fairly across projects and
 * one webhook's one at a time, in order.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/notification.h"
#include "lectern/webhook.h"
#include "store_internal.h"

static int64_t exec_id(struct lec_store *st, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		FAIL_AT("%s: %s", sql, err);
		sqlite3_free(err);
		return 0;
	}
	return sqlite3_last_insert_rowid(st->db);
}

static int64_t add_user(struct lec_store *st, const char *name)
{
	char sql[200];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO users (username, created) VALUES ('%s', 0)",
		 name);
	return exec_id(st, sql);
}

static int64_t add_version(struct lec_store *st, int64_t project,
			   const char *slug)
{
	char sql[300];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO versions (project_id, slug, verbose_name, "
		 "identifier, active, created, modified) VALUES (%lld, '%s', "
		 "'%s', '%s', 1, 0, 0)",
		 (long long)project, slug, slug, slug);
	return exec_id(st, sql);
}

/* A finished build of a version; error NULL: it passed. */
/* A build as the pipeline leaves it; failure is the code lec_build_fail
 * records ("generic", "config", "no-index"), NULL for a passed one. */
static int64_t add_failed(struct lec_store *st, int64_t project,
			  int64_t version, const char *state, const char *error,
			  const char *failure)
{
	sqlite3_stmt *stmt = NULL;
	int64_t id = 0;

	CHECK_OK(lec_store__prepare(st, &stmt,
				    "INSERT INTO builds (project_id, "
				    "version_id, state, success, error, "
				    "commit_sha, created, failure) VALUES "
				    "(?, ?, ?, ?, ?, 'abc123', 1704164645000000,"
				    " ?)"));
	sqlite3_bind_int64(stmt, 1, project);
	sqlite3_bind_int64(stmt, 2, version);
	sqlite3_bind_text(stmt, 3, state, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 4, error == NULL);
	if (error)
		sqlite3_bind_text(stmt, 5, error, -1, SQLITE_STATIC);
	if (failure)
		sqlite3_bind_text(stmt, 6, failure, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(st->db);
	else
		FAIL_AT("insert build: %s", sqlite3_errmsg(st->db));
	lec_store__finalize(st, stmt);
	return id;
}

static int64_t add_build(struct lec_store *st, int64_t project,
			 int64_t version, const char *state, const char *error)
{
	return add_failed(st, project, version, state, error,
			  error && strcmp(state, "finished") == 0 ? "generic"
								  : NULL);
}

static size_t count(struct lec_store *st,
		    const struct lec_notification_filter *f)
{
	struct lec_notification_list list = { 0 };
	size_t n;

	CHECK_OK(lec_notification_list(st, f, NULL, &list));
	n = list.len;
	CHECK_INT(list.total, n);
	lec_notification_list_dispose(&list);
	return n;
}

TEST(add_dedups_and_cancel_and_states)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs"), a = 0, b = 0, c = 0;
	struct lec_notification_new n = {
		"project:test", LEC_NOTIFICATION_PROJECT, p, "warning",
		"Header", "Body one", 0, 0,
	};
	struct lec_notification_filter f = { LEC_NOTIFICATION_PROJECT, p, 0,
					     0, 0 };
	struct lec_notification *got = NULL;
	enum lec_notification_state s;

	CHECK_OK(lec_notification_add(st, &n, &a));
	n.body = "Body two";
	CHECK_OK(lec_notification_add(st, &n, &b));
	CHECK_INT(a, b); /* refreshed, not added */
	CHECK_OK(lec_notification_get(st, a, &got));
	CHECK_STR(got->body, "Body two");
	CHECK_STR(got->attached_slug, "docs");
	CHECK_INT(got->state, LEC_NOTIFICATION_UNREAD);
	lec_notification_free(got);
	CHECK_OK(lec_notification_set_state(st, a, LEC_NOTIFICATION_READ));
	/* A read one is refreshed back to unread. */
	CHECK_OK(lec_notification_add(st, &n, &b));
	CHECK_INT(a, b);
	CHECK_OK(lec_notification_get(st, a, &got));
	CHECK_INT(got->state, LEC_NOTIFICATION_UNREAD);
	lec_notification_free(got);
	/* A dismissed one is kept; raising again adds a new one. */
	CHECK_OK(lec_notification_set_state(st, a,
					    LEC_NOTIFICATION_DISMISSED));
	CHECK_OK(lec_notification_add(st, &n, &c));
	CHECK(c != a);
	CHECK_INT(count(st, &f), 2);
	f.states = 1u << LEC_NOTIFICATION_DISMISSED;
	CHECK_INT(count(st, &f), 1);
	CHECK_OK(lec_notification_cancel(st, LEC_NOTIFICATION_PROJECT, p,
					 "project:test"));
	f.states = 1u << LEC_NOTIFICATION_CANCELLED;
	CHECK_INT(count(st, &f), 1);
	f.states = 0;
	f.id = c;
	CHECK_INT(count(st, &f), 1);
	CHECK_ERR(lec_notification_set_state(st, 9999, LEC_NOTIFICATION_READ),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_notification_state_lookup("bogus", &s), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "state");
	CHECK_OK(lec_notification_state_lookup("dismissed", &s));
	CHECK_INT(s, LEC_NOTIFICATION_DISMISSED);
	n.attached_id = 4242;
	CHECK_ERR(lec_notification_add(st, &n, NULL), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(feed_is_admins_and_owners_only)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t alice = add_user(st, "alice"), bob = add_user(st, "bob");
	int64_t org, v = add_version(st, p, "latest");
	int64_t build = add_build(st, p, v, "finished", "boom");
	char sql[200];
	struct lec_notification_filter feed = { 0 };
	const struct lec_notification_new on_project = {
		"p", LEC_NOTIFICATION_PROJECT, p, "info", "h", "b", 0, 0,
	};
	const struct lec_notification_new on_build = {
		"b", LEC_NOTIFICATION_BUILD, build, "error", "h", "b", 0, 0,
	};
	struct lec_notification_new on_org = {
		"o", LEC_NOTIFICATION_ORGANIZATION, 0, "info", "h", "b", 0, 0,
	};
	const struct lec_notification_new on_bob = {
		"u", LEC_NOTIFICATION_USER, bob, "info", "h", "b", 0, 0,
	};

	snprintf(sql, sizeof(sql),
		 "INSERT INTO project_users VALUES (%lld, %lld)", (long long)p,
		 (long long)alice);
	exec_id(st, sql);
	org = exec_id(st, "INSERT INTO organizations (slug, name, created, "
			  "modified) VALUES ('acme', 'Acme', 0, 0)");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO organization_owners VALUES (%lld, %lld)",
		 (long long)org, (long long)bob);
	exec_id(st, sql);
	on_org.attached_id = org;
	CHECK_OK(lec_notification_add(st, &on_project, NULL));
	CHECK_OK(lec_notification_add(st, &on_build, NULL));
	CHECK_OK(lec_notification_add(st, &on_org, NULL));
	CHECK_OK(lec_notification_add(st, &on_bob, NULL));
	feed.feed_user_id = alice;
	CHECK_INT(count(st, &feed), 1); /* the project's; builds are not fed */
	feed.feed_user_id = bob;
	CHECK_INT(count(st, &feed), 2); /* the organization's and their own */
	lec_store_free(st);
}

/* The notifications attached to one object, message ids in order. */
static void check_messages(struct lec_store *st,
			   enum lec_notification_target target, int64_t id,
			   unsigned states, const char *expected)
{
	struct lec_notification_filter f = { target, id, 0, states, 0 };
	struct lec_notification_list list = { 0 };
	char got[400] = "";
	size_t i;

	CHECK_OK(lec_notification_list(st, &f, NULL, &list));
	for (i = 0; i < list.len; i++) {
		if (i)
			strncat(got, " ", sizeof(got) - strlen(got) - 1);
		strncat(got, list.items[i].message_id,
			sizeof(got) - strlen(got) - 1);
	}
	CHECK_STR(got, expected);
	lec_notification_list_dispose(&list);
}

/* The project's open version-failing notification names build (the
 * version's first, or one after a passing build) and holds it. */
static void check_version_failing(struct lec_store *st, int64_t project,
				  int64_t build, int first)
{
	struct lec_notification_filter f = {
		LEC_NOTIFICATION_PROJECT, project, 0,
		(1u << LEC_NOTIFICATION_UNREAD) | (1u << LEC_NOTIFICATION_READ),
		0
	};
	struct lec_notification_list list = { 0 };
	char header[200];

	if (first)
		snprintf(header, sizeof(header),
			 "docs/latest: its first build, #%lld, failed",
			 (long long)build);
	else
		snprintf(header, sizeof(header),
			 "docs/latest: build #%lld failed; it built before",
			 (long long)build);
	CHECK_OK(lec_notification_list(st, &f, NULL, &list));
	CHECK_INT(list.len, 1);
	if (list.len == 1) {
		CHECK_STR(list.items[0].header, header);
		CHECK_INT(list.items[0].build_id, build);
		CHECK_STR(list.items[0].build_version, "latest");
		CHECK_STR(list.items[0].attached_slug, "docs");
	}
	lec_notification_list_dispose(&list);
}

TEST(build_events_raise_where_the_service_does)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t v = add_version(st, p, "latest");
	int64_t cfg = add_failed(st, p, v, "finished",
				 "Problem in your project's configuration. "
				 "Invalid \"version\"",
				 "config");
	int64_t pass, fail, again, cancelled;
	struct lec_notification_list list = { 0 };
	struct lec_notification_filter f = { LEC_NOTIFICATION_BUILD, cfg, 0,
					     0, 0 };
	const unsigned open = (1u << LEC_NOTIFICATION_UNREAD) |
			      (1u << LEC_NOTIFICATION_READ);

	CHECK_OK(lec_notification_build_event(st, cfg,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	CHECK_OK(lec_notification_list(st, &f, NULL, &list));
	CHECK_INT(list.len, 1);
	CHECK_STR(list.items[0].message_id, LEC_MSG_CONFIG_GENERIC);
	CHECK_STR(list.items[0].type, "error");
	CHECK(strstr(list.items[0].body, "Invalid \"version\"") != NULL);
	/* A build's notification is about its own build. */
	CHECK_INT(list.items[0].build_id, cfg);
	CHECK_STR(list.items[0].build_version, "latest");
	lec_notification_list_dispose(&list);
	/* The version's first build failed: the project hears of it, named
	 * with its version and build (issue 43, item 4). */
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, open,
		       LEC_MSG_VERSION_FAILING);
	check_version_failing(st, p, cfg, 1);

	pass = add_build(st, p, v, "finished", NULL);
	CHECK_OK(lec_notification_build_event(st, pass,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_BUILD, pass, 0, "");
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, open, "");
	fail = add_build(st, p, v, "finished", "Command \"x\" failed");
	CHECK_OK(lec_notification_build_event(st, fail,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_BUILD, fail, 0,
		       LEC_MSG_BUILD_GENERIC);
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, open,
		       LEC_MSG_VERSION_FAILING);
	check_version_failing(st, p, fail, 0);
	/* Failing again after a failure raises nothing new. */
	again = add_failed(st, p, v, "finished", "Your documentation did not "
						 "generate an 'index.html' x",
			   "no-index");
	CHECK_OK(lec_notification_build_event(st, again,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_BUILD, again, 0,
		       LEC_MSG_BUILD_NO_INDEX);
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, open,
		       LEC_MSG_VERSION_FAILING);
	check_version_failing(st, p, fail, 0);
	cancelled = add_build(st, p, v, "cancelled", "This build was cancelled.");
	CHECK_OK(lec_notification_build_event(st, cancelled,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_BUILD, cancelled, 0,
		       LEC_MSG_BUILD_CANCELLED);
	/* Passing again cancels the project's notification. */
	pass = add_build(st, p, v, "finished", NULL);
	CHECK_OK(lec_notification_build_event(st, pass,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, open, "");
	check_messages(st, LEC_NOTIFICATION_PROJECT, p,
		       1u << LEC_NOTIFICATION_CANCELLED,
		       LEC_MSG_VERSION_FAILING " " LEC_MSG_VERSION_FAILING);
	lec_store_free(st);
}

/* A long error is quoted cut to the limit, never inside a character. */
TEST(long_error_cut_at_a_character)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t v = add_version(st, p, "latest"), b;
	struct lec_notification_filter f = { LEC_NOTIFICATION_BUILD, 0, 0, 0,
					     0 };
	struct lec_notification_list list = { 0 };
	char error[4100];

	memset(error, 'a', 3999);
	memcpy(error + 3999, "\xc3\xa9 and more", sizeof("\xc3\xa9 and more"));
	b = add_build(st, p, v, "finished", error);
	CHECK_OK(lec_notification_build_event(st, b, LEC_BUILD_EVENT_FINISHED,
					      NULL));
	f.attached_id = b;
	CHECK_OK(lec_notification_list(st, &f, NULL, &list));
	CHECK_INT(list.len, 1);
	CHECK_INT(strlen(list.items[0].body), 3999);
	lec_notification_list_dispose(&list);
	lec_store_free(st);
}

TEST(webhook_validation)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	struct lec_webhook_fields f = { 0, "http://127.0.0.1:9/hook",
					LEC_WEBHOOK_BUILD_PASSED, NULL };
	struct lec_webhook *w = NULL;
	char *secret = NULL;
	size_t i;

	f.url = "ftp://example.org/";
	CHECK_ERR(lec_webhook_create(st, p, &f, NULL, NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "url");
	f.url = "http://example.org/a b";
	CHECK_ERR(lec_webhook_create(st, p, &f, NULL, NULL, NULL),
		  LEC_EINVALID);
	f.url = "https://example.org/hook";
	f.events = 0;
	CHECK_ERR(lec_webhook_create(st, p, &f, NULL, NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "events");
	f.events = LEC_WEBHOOK_EVENTS_ALL;
	f.fields = LEC_WEBHOOK_FIELD_PAYLOAD;
	f.payload = "{\"a\": {{ build.id }}}";
	CHECK_ERR(lec_webhook_create(st, p, &f, NULL, NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "payload");
	f.payload = NULL;
	CHECK_ERR(lec_webhook_create(st, p, &f, "bad secret", NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "secret");
	CHECK_ERR(lec_webhook_create(st, 999, &f, NULL, NULL, NULL),
		  LEC_ENOTFOUND);
	CHECK_OK(lec_webhook_create(st, p, &f, NULL, &w, &secret));
	CHECK_INT(strlen(secret), LEC_WEBHOOK_SECRET_LEN);
	for (i = 0; secret[i]; i++)
		CHECK((secret[i] >= 'a' && secret[i] <= 'z') ||
		      (secret[i] >= 'A' && secret[i] <= 'Z') ||
		      (secret[i] >= '0' && secret[i] <= '9'));
	CHECK_INT(w->events, LEC_WEBHOOK_EVENTS_ALL);
	CHECK(w->payload == NULL);
	free(secret);
	lec_webhook_free(w);
	lec_store_free(st);
}

/* The hex HMAC-SHA256 of body under secret, as a receiver computes it. */
static void hmac_hex(const char *secret, const char *body, char out[65])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	HMAC(EVP_sha256(), secret, (int)strlen(secret),
	     (const unsigned char *)body, strlen(body), mac, &len);
	for (i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", mac[i]);
}

TEST(webhook_queue_sign_retry_and_fail)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t v = add_version(st, p, "latest");
	int64_t b = add_build(st, p, v, "finished", NULL);
	const struct lec_webhook_site site = { "docs.test:8000", "api.test" };
	struct lec_webhook_fields tpl = {
		LEC_WEBHOOK_FIELD_PAYLOAD, "http://127.0.0.1:9/t",
		LEC_WEBHOOK_BUILD_PASSED,
		"{\"e\": \"{{ event }}\", \"id\": \"{{build.id}}\", "
		"\"v\": \"{{ version.slug }}\", \"u\": \"{{ build.url }}\", "
		"\"d\": \"{{ build.docs_url }}\", \"s\": "
		"\"{{ build.start_date }}\", \"x\": \"{{ unknown }}\"}",
	};
	struct lec_webhook_fields plain = { 0, "http://127.0.0.1:9/p",
					    LEC_WEBHOOK_BUILD_FAILED, NULL };
	struct lec_webhook *w = NULL;
	struct lec_webhook_outgoing out = { 0 };
	struct lec_webhook_delivery_list list = { 0 };
	char expected_sig[65], body[600];
	int64_t now, id;
	int i;

	CHECK_OK(lec_webhook_create(st, p, &tpl, "s3cret-given", &w, NULL));
	CHECK_OK(lec_webhook_create(st, p, &plain, "other", NULL, NULL));
	/* Only the template's webhook subscribes to build:passed. */
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_PASSED,
					 &site));
	now = lec__now_us();
	CHECK_OK(lec_webhook_delivery_next(st, now, 60000, &out));
	snprintf(body, sizeof(body),
		 "{\"e\": \"build:passed\", \"id\": \"%lld\", \"v\": "
		 "\"latest\", \"u\": "
		 "\"http://api.test/api/v3/projects/docs/builds/%lld/\", "
		 "\"d\": \"http://docs.docs.test:8000/en/latest/\", \"s\": "
		 "\"2024-01-02T03:04:05\", \"x\": \"{{ unknown }}\"}",
		 (long long)b, (long long)b);
	CHECK_STR(out.body, body);
	CHECK_STR(out.event, "build:passed");
	CHECK_INT(out.attempt, 1);
	hmac_hex("s3cret-given", out.body, expected_sig);
	CHECK_STR(out.signature, expected_sig);
	id = out.delivery_id;
	/* Taken: not due again until the lease ends. */
	lec_webhook_outgoing_dispose(&out);
	CHECK_ERR(lec_webhook_delivery_next(st, now, 60000, &out),
		  LEC_ENOTFOUND);
	/* Every try fails: pending with a doubling delay, then failed. */
	for (i = 1; i <= LEC_WEBHOOK_ATTEMPTS_MAX; i++) {
		int64_t before = lec__now_us();

		if (i > 1) {
			CHECK_OK(lec_webhook_delivery_next(
				st, before + 3600LL * 1000000, 60000, &out));
			CHECK_INT(out.delivery_id, id);
			CHECK_INT(out.attempt, i);
			lec_webhook_outgoing_dispose(&out);
		}
		CHECK_OK(lec_webhook_delivery_done(st, id, 500, NULL, 1000));
		CHECK_OK(lec_webhook_delivery_list(st, w->id, NULL, &list));
		CHECK_INT(list.len, 1);
		CHECK_INT(list.items[0].attempts, i);
		CHECK_INT(list.items[0].status_code, 500);
		if (i < LEC_WEBHOOK_ATTEMPTS_MAX) {
			CHECK_INT(list.items[0].state, LEC_WEBHOOK_PENDING);
			CHECK(list.items[0].next_attempt >=
			      before + 1000LL * 1000 * (1LL << (i - 1)));
		} else {
			CHECK_INT(list.items[0].state, LEC_WEBHOOK_FAILED);
		}
		lec_webhook_delivery_list_dispose(&list);
	}
	check_messages(st, LEC_NOTIFICATION_PROJECT, p, 0,
		       LEC_MSG_WEBHOOK_FAILING);
	/* The next delivery that gets through cancels it. */
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_PASSED,
					 &site));
	CHECK_OK(lec_webhook_delivery_next(st, lec__now_us(), 60000, &out));
	CHECK_OK(lec_webhook_delivery_done(st, out.delivery_id, 204, NULL,
					   1000));
	lec_webhook_outgoing_dispose(&out);
	check_messages(st, LEC_NOTIFICATION_PROJECT, p,
		       (1u << LEC_NOTIFICATION_UNREAD), "");
	lec_webhook_free(w);
	lec_store_free(st);
}

TEST(webhooks_per_project_are_capped)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t q = lec_test_project(st, "other");
	struct lec_webhook_fields f = { 0, "https://example.org/hook",
					LEC_WEBHOOK_BUILD_PASSED, NULL };
	struct lec_webhook_list list = { 0 };
	int i;

	for (i = 0; i < LEC_WEBHOOK_PROJECT_MAX; i++)
		CHECK_OK(lec_webhook_create(st, p, &f, "s", NULL, NULL));
	CHECK_ERR(lec_webhook_create(st, p, &f, "s", NULL, NULL), LEC_ELIMIT);
	CHECK(strstr(lec_error_last(), "the most a project may have") != NULL);
	CHECK(lec_error_last_field() == NULL);
	CHECK_OK(lec_webhook_list(st, p, NULL, &list));
	CHECK_INT(list.total, LEC_WEBHOOK_PROJECT_MAX);
	/* Another project has its own. */
	CHECK_OK(lec_webhook_create(st, q, &f, "s", NULL, NULL));
	/* A place freed is a place to take. */
	CHECK_OK(lec_webhook_delete(st, p, list.items[0].id));
	CHECK_OK(lec_webhook_create(st, p, &f, "s", NULL, NULL));
	lec_webhook_list_dispose(&list);
	lec_store_free(st);
}

TEST(a_delivery_goes_to_the_url_it_was_queued_for)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t b = add_build(st, p, add_version(st, p, "latest"), "finished",
			      NULL);
	struct lec_webhook_fields f = { 0, "https://example.org/before",
					LEC_WEBHOOK_BUILD_PASSED, NULL };
	struct lec_webhook_outgoing out = { 0 };
	struct lec_webhook *w = NULL;
	int64_t now;

	CHECK_OK(lec_webhook_create(st, p, &f, "s", &w, NULL));
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_PASSED,
					 NULL));
	now = lec__now_us();
	f.fields = LEC_WEBHOOK_FIELD_URL;
	f.url = "https://example.org/after";
	CHECK_OK(lec_webhook_update(st, p, w ? w->id : 0, &f));
	CHECK_OK(lec_webhook_delivery_next(st, now, 60000, &out));
	CHECK_STR(out.url, "https://example.org/before");
	/* Its retry too. */
	CHECK_OK(lec_webhook_delivery_done(st, out.delivery_id, 500, NULL, 1));
	lec_webhook_outgoing_dispose(&out);
	CHECK_OK(lec_webhook_delivery_next(st, now + 3600LL * 1000000, 60000,
					   &out));
	CHECK_STR(out.url, "https://example.org/before");
	CHECK_OK(lec_webhook_delivery_done(st, out.delivery_id, 200, NULL, 1));
	lec_webhook_outgoing_dispose(&out);
	/* What is queued from now on goes to the new URL. */
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_PASSED,
					 NULL));
	CHECK_OK(lec_webhook_delivery_next(st, lec__now_us(), 60000, &out));
	CHECK_STR(out.url, "https://example.org/after");
	lec_webhook_outgoing_dispose(&out);
	lec_webhook_free(w);
	lec_store_free(st);
}

/* Take the next due delivery at now; its URL's last letter names the
 * project ('a' or 'b'), '-' when none is due. */
static char take(struct lec_store *st, int64_t now, int64_t *id)
{
	struct lec_webhook_outgoing out = { 0 };
	char which;

	if (lec_webhook_delivery_next(st, now, 60000, &out) != LEC_OK)
		return '-';
	which = out.url[strlen(out.url) - 1];
	*id = out.delivery_id;
	lec_webhook_outgoing_dispose(&out);
	return which;
}

TEST(deliveries_are_taken_fairly_across_projects)
{
	struct lec_store *st = lec_test_store();
	int64_t pa = lec_test_project(st, "alpha");
	int64_t pb = lec_test_project(st, "beta");
	int64_t ba = add_build(st, pa, add_version(st, pa, "latest"),
			       "finished", NULL);
	int64_t bb = add_build(st, pb, add_version(st, pb, "latest"),
			       "finished", NULL);
	struct lec_webhook_fields fa = { 0, "https://example.org/a",
					 LEC_WEBHOOK_BUILD_PASSED, NULL };
	struct lec_webhook_fields fb = { 0, "https://example.org/b",
					 LEC_WEBHOOK_BUILD_PASSED, NULL };
	int64_t now = lec__now_us(), ids[LEC_WEBHOOK_PROJECT_MAX] = { 0 }, id = 0;
	int i;

	for (i = 0; i < LEC_WEBHOOK_PROJECT_MAX; i++)
		CHECK_OK(lec_webhook_create(st, pa, &fa, "s", NULL, NULL));
	CHECK_OK(lec_webhook_create(st, pb, &fb, "s", NULL, NULL));
	/* Alpha's ten deliveries are queued before beta's one. */
	CHECK_OK(lec_webhook_queue_build(st, ba, LEC_WEBHOOK_BUILD_PASSED,
					 NULL));
	CHECK_OK(lec_webhook_queue_build(st, bb, LEC_WEBHOOK_BUILD_PASSED,
					 NULL));
	now += 1000000;
	/* The oldest goes first; then beta, whose turn has not come yet,
	 * before alpha's older ones. */
	CHECK_INT(take(st, now++, &ids[0]), 'a');
	CHECK_INT(take(st, now++, &id), 'b');
	CHECK_OK(lec_webhook_delivery_done(st, id, 200, NULL, 1000));
	/* Alpha alone now, up to its share of the sender at once. */
	for (i = 1; i < LEC_WEBHOOK_PROJECT_SENDING_MAX; i++)
		CHECK_INT(take(st, now++, &ids[i]), 'a');
	CHECK_INT(take(st, now++, &id), '-');
	/* One answered: its place goes to the next of alpha's. */
	CHECK_OK(lec_webhook_delivery_done(st, ids[0], 200, NULL, 1000));
	CHECK_INT(take(st, now++, &ids[0]), 'a');
	CHECK_INT(take(st, now++, &id), '-');
	/* A sender that died holds them only until their lease ends. */
	CHECK_INT(take(st, now + 61LL * 1000000, &id), 'a');
	lec_store_free(st);
}

TEST(a_webhooks_deliveries_go_one_at_a_time_in_order)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t b = add_build(st, p, add_version(st, p, "latest"), "finished",
			      NULL);
	struct lec_webhook_fields f = { 0, "https://example.org/a",
					LEC_WEBHOOK_EVENTS_ALL, NULL };
	struct lec_webhook_outgoing out = { 0 };
	int64_t now, first;

	CHECK_OK(lec_webhook_create(st, p, &f, "s", NULL, NULL));
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_TRIGGERED,
					 NULL));
	CHECK_OK(lec_webhook_queue_build(st, b, LEC_WEBHOOK_BUILD_PASSED,
					 NULL));
	now = lec__now_us() + 1000000;
	CHECK_OK(lec_webhook_delivery_next(st, now, 60000, &out));
	CHECK_STR(out.event, "build:triggered");
	first = out.delivery_id;
	lec_webhook_outgoing_dispose(&out);
	/* build:passed waits while build:triggered is in hand. */
	CHECK_ERR(lec_webhook_delivery_next(st, now, 60000, &out),
		  LEC_ENOTFOUND);
	CHECK_OK(lec_webhook_delivery_done(st, first, 200, NULL, 1000));
	CHECK_OK(lec_webhook_delivery_next(st, now, 60000, &out));
	CHECK_STR(out.event, "build:passed");
	lec_webhook_outgoing_dispose(&out);
	lec_store_free(st);
}

/* A configuration the service refuses with a message of its own: the
 * build's notification is that message, its text filled in as the
 * service fills it; the build's error keeps Lectern's words. */
TEST(config_failures_raise_the_services_message)
{
	static const char problem[] =
		"{\"id\": \"config:base:invalid-key-name\", "
		"\"format_values\": {\"key\": \"pyton.version\"}}";
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t v = add_version(st, p, "latest");
	int64_t b = add_build(st, p, v, "building", NULL);
	int64_t odd = add_build(st, p, v, "building", NULL);
	struct lec_notification_list list = { 0 };
	struct lec_notification_filter f = { LEC_NOTIFICATION_BUILD, b, 0, 0,
					     0 };
	struct lec_build *got = NULL;

	CHECK_OK(lec_build_fail_message(
		st, b, LEC_BUILD_FAILURE_CONFIG,
		"Problem in your project's configuration. .readthedocs.yaml:6: "
		"pyton.version: unknown key",
		problem));
	CHECK_OK(lec_build_get(st, b, &got));
	CHECK_STR(got->failure_message, problem);
	CHECK(strstr(got->error, ".readthedocs.yaml:6: pyton.version") != NULL);
	lec_build_free(got);
	CHECK_OK(lec_notification_build_event(st, b, LEC_BUILD_EVENT_FINISHED,
					      NULL));
	CHECK_OK(lec_notification_list(st, &f, NULL, &list));
	CHECK_INT(list.len, 1);
	if (list.len == 1) {
		CHECK_STR(list.items[0].message_id,
			  "config:base:invalid-key-name");
		CHECK_STR(list.items[0].type, "error");
		CHECK_STR(list.items[0].header,
			  "Invalid configuration key: pyton.version");
		CHECK_STR(list.items[0].body, "Make sure the key name "
					      "<code>pyton.version</code> is "
					      "correct.");
	}
	lec_notification_list_dispose(&list);
	/* A message that is not the service's: its generic one. */
	CHECK_OK(lec_build_fail_message(st, odd, LEC_BUILD_FAILURE_CONFIG,
					"Problem in your project's "
					"configuration.",
					"{\"id\": \"config:unheard-of\"}"));
	CHECK_OK(lec_notification_build_event(st, odd,
					      LEC_BUILD_EVENT_FINISHED, NULL));
	check_messages(st, LEC_NOTIFICATION_BUILD, odd, 0,
		       LEC_MSG_CONFIG_GENERIC);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(add_dedups_and_cancel_and_states),
	TEST_ENTRY(feed_is_admins_and_owners_only),
	TEST_ENTRY(build_events_raise_where_the_service_does),
	TEST_ENTRY(config_failures_raise_the_services_message),
	TEST_ENTRY(long_error_cut_at_a_character),
	TEST_ENTRY(webhook_validation),
	TEST_ENTRY(webhook_queue_sign_retry_and_fail),
	TEST_ENTRY(webhooks_per_project_are_capped),
	TEST_ENTRY(a_delivery_goes_to_the_url_it_was_queued_for),
	TEST_ENTRY(deliveries_are_taken_fairly_across_projects),
	TEST_ENTRY(a_webhooks_deliveries_go_one_at_a_time_in_order),
};

LEC_TEST_MAIN(tests)
