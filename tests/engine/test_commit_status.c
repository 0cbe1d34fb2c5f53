/*
 * Commit statuses (commit_status.c) on a store: a pull request's build
 * with a tokened integration queues its status with the forge's URL and
 * the service's body, others queue none; the sender's next hands out the
 * token and a build's statuses in order; a failed try comes back after
 * the doubling backoff and the last one fails it; a delivered one stays
 * delivered; past LEC_COMMIT_STATUSES_KEPT the oldest finished go. And the integration's token and API URL are checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/commit_status.h"
#include "lectern/external.h"
#include "lectern/integration.h"
#include "lectern/version.h"
#include "store_internal.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HOUR_US (3600LL * 1000000)

struct fixture {
	struct lec_store *st;
	int64_t project, build, integration;
};

static const struct lec_commit_status_site site = { "lectern.test:8000",
						    "ext.test", "docs.test" };

static void setup(struct fixture *f, int token)
{
	struct lec_external_request rq = { LEC_EXTERNAL_GITHUB, "7", SHA_A,
					   "fix", "main", "o/r" };
	struct lec_integration *in = NULL;
	struct lec_build_list builds = { 0 };

	f->st = lec_test_store();
	f->project = lec_test_project(f->st, "guide");
	CHECK_OK(lec_integration_create(f->st, f->project,
					LEC_INTEGRATION_GITHUB, "s3cret", &in,
					NULL));
	f->integration = in ? in->id : 0;
	lec_integration_free(in);
	if (token)
		CHECK_OK(lec_integration_set_token(f->st, f->project,
						   f->integration, "tok-1",
						   "http://forge.test/api/"));
	CHECK_OK(lec_external_open(f->st, f->project, &rq, NULL, NULL, NULL));
	CHECK_OK(lec_build_list(f->st, f->project, 0, NULL, NULL, &builds));
	CHECK_INT((int)builds.len, 1);
	f->build = builds.len ? builds.items[0].id : 0;
	lec_build_list_dispose(&builds);
}

TEST(a_status_is_queued_and_sent_in_order)
{
	struct lec_commit_status_outgoing out = { 0 };
	struct lec_commit_status_list list = { 0 };
	struct fixture f;
	int64_t now = lec__now_us();

	setup(&f, 1);
	CHECK_OK(lec_commit_status_queue(f.st, f.build,
					 LEC_COMMIT_STATUS_PENDING, &site));
	CHECK_OK(lec_commit_status_queue(f.st, f.build,
					 LEC_COMMIT_STATUS_SUCCESS, &site));
	CHECK_OK(lec_commit_status_next(f.st, now + HOUR_US, 60000, &out));
	CHECK_STR(out.url, "http://forge.test/api/repos/o/r/statuses/" SHA_A);
	CHECK_STR(out.token, "tok-1");
	CHECK_INT(out.attempt, 1);
	CHECK(strstr(out.body, "\"state\":\"pending\"") != NULL);
	CHECK(strstr(out.body, "/projects/guide/builds/") != NULL);
	/* The success waits for the pending one, which is in hand. */
	{
		struct lec_commit_status_outgoing second = { 0 };

		CHECK_INT(lec_commit_status_next(f.st, now + HOUR_US, 60000,
						 &second),
			  LEC_ENOTFOUND);
	}
	CHECK_OK(lec_commit_status_done(f.st, out.id, 201, NULL, 100));
	lec_commit_status_outgoing_dispose(&out);
	CHECK_OK(lec_commit_status_next(f.st, now + HOUR_US, 60000, &out));
	CHECK(strstr(out.body, "\"target_url\":\"http://guide--7.ext.test/en/7/\"") !=
	      NULL);
	CHECK_OK(lec_commit_status_done(f.st, out.id, 201, NULL, 100));
	lec_commit_status_outgoing_dispose(&out);
	CHECK_OK(lec_commit_status_list(f.st, f.build, &list));
	CHECK_INT((int)list.len, 2);
	CHECK_INT(list.items[0].delivery, LEC_COMMIT_STATUS_DELIVERED);
	CHECK_INT(list.items[1].status_code, 201);
	lec_commit_status_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(failed_tries_back_off_then_fail)
{
	struct lec_commit_status_outgoing out = { 0 };
	struct lec_commit_status_list list = { 0 };
	struct fixture f;
	int64_t now = lec__now_us();
	int i;

	setup(&f, 1);
	CHECK_OK(lec_commit_status_queue(f.st, f.build,
					 LEC_COMMIT_STATUS_FAILURE, &site));
	for (i = 1; i <= LEC_COMMIT_STATUS_ATTEMPTS_MAX; i++) {
		CHECK_OK(lec_commit_status_next(f.st, now + i * HOUR_US, 1000,
						&out));
		CHECK_INT(out.attempt, i);
		CHECK_OK(lec_commit_status_done(f.st, out.id, i % 2 ? 500 : 0,
						i % 2 ? NULL : "no answer",
						100));
		lec_commit_status_outgoing_dispose(&out);
		/* Not due again before its backoff. */
		CHECK_INT(lec_commit_status_next(f.st, lec__now_us(), 1000,
						 &out),
			  LEC_ENOTFOUND);
	}
	CHECK_OK(lec_commit_status_list(f.st, f.build, &list));
	CHECK_INT(list.items[0].delivery, LEC_COMMIT_STATUS_FAILED);
	CHECK_INT(list.items[0].attempts, LEC_COMMIT_STATUS_ATTEMPTS_MAX);
	CHECK_INT(list.items[0].status_code, 500);
	lec_commit_status_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(the_oldest_finished_statuses_go)
{
	struct lec_commit_status_outgoing out = { 0 };
	struct lec_commit_status_list list = { 0 };
	struct fixture f;
	int64_t first = 0;
	int i;

	setup(&f, 1);
	for (i = 0; i < LEC_COMMIT_STATUSES_KEPT + 2; i++) {
		CHECK_OK(lec_commit_status_queue(
			f.st, f.build, LEC_COMMIT_STATUS_PENDING, &site));
		CHECK_OK(lec_commit_status_next(f.st, lec__now_us() + HOUR_US,
						60000, &out));
		if (i == 0)
			first = out.id;
		CHECK_OK(lec_commit_status_done(f.st, out.id, 201, NULL, 100));
		lec_commit_status_outgoing_dispose(&out);
	}
	/* One still queued is never pruned. */
	CHECK_OK(lec_commit_status_queue(f.st, f.build,
					 LEC_COMMIT_STATUS_SUCCESS, &site));
	CHECK_OK(lec_commit_status_list(f.st, f.build, &list));
	CHECK_INT((int)list.len, LEC_COMMIT_STATUSES_KEPT + 1);
	CHECK(list.items[0].id == first + 2);
	CHECK_INT(list.items[list.len - 1].delivery, LEC_COMMIT_STATUS_QUEUED);
	lec_commit_status_list_dispose(&list);
	lec_store_free(f.st);
}

TEST(nothing_without_a_token)
{
	struct lec_commit_status_list list = { 0 };
	struct fixture f;

	setup(&f, 0);
	CHECK_OK(lec_commit_status_queue(f.st, f.build,
					 LEC_COMMIT_STATUS_PENDING, &site));
	CHECK_OK(lec_commit_status_list(f.st, f.build, &list));
	CHECK_INT((int)list.len, 0);
	lec_commit_status_list_dispose(&list);
	CHECK_INT(lec_integration_set_token(f.st, f.project, f.integration,
					    "has space", NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "token");
	CHECK_INT(lec_integration_set_token(f.st, f.project, f.integration,
					    "t", "ftp://forge"),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "api_url");
	lec_store_free(f.st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(a_status_is_queued_and_sent_in_order),
	TEST_ENTRY(failed_tries_back_off_then_fail),
	TEST_ENTRY(the_oldest_finished_statuses_go),
	TEST_ENTRY(nothing_without_a_token),
};

LEC_TEST_MAIN(tests)
