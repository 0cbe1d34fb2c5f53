/*
 * Pull-request versions (external.c) on a store: a request opened makes an
 * active external version named by its number at its head, recorded with
 * the ref its builds fetch, and queues one build; the same delivery again
 * queues none; a new head supersedes the queued build; a branch holding the
 * number's slug gets its own version; closing deactivates the version and
 * cancels its builds, reopening brings it back, and once its grace period
 * is over the sweep removes it; bad numbers and heads are
 * refused naming the field; a branch preview follows its branch; and
 * which refs count as a request's head.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/external.h"
#include "lectern/repo.h"
#include "lectern/version.h"
#include "store_internal.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* The state of the version's builds, oldest first, as "triggered,..." */
static void build_states(struct lec_store *st, int64_t version_id, char *out,
			 size_t cap)
{
	sqlite3_stmt *stmt = NULL;
	size_t used = 0;

	out[0] = '\0';
	CHECK_OK(lec_store__prepare(st, &stmt,
				    "SELECT state FROM builds WHERE "
				    "version_id = ? ORDER BY id"));
	sqlite3_bind_int64(stmt, 1, version_id);
	while (stmt && sqlite3_step(stmt) == SQLITE_ROW && used < cap)
		used += (size_t)snprintf(out + used, cap - used, "%s%s",
					 used ? "," : "",
					 sqlite3_column_text(stmt, 0));
	lec_store__finalize(st, stmt);
}

static struct lec_version *open_request(struct lec_store *st, int64_t project,
					const char *number, const char *sha,
					int built_expected)
{
	struct lec_external_request rq = { LEC_EXTERNAL_GITHUB, number, sha,
					   "fix", "main", "o/r" };
	struct lec_version *v = NULL;
	int built = -1;

	CHECK_OK(lec_external_open(st, project, &rq, "webhook:github", &v,
				   &built));
	CHECK_INT(built, built_expected);
	return v;
}

TEST(a_request_opened_is_built_once_at_its_head)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_external *ext = NULL;
	struct lec_version *v, *again;
	char states[128];

	v = open_request(st, project, "7", SHA_A, 1);
	CHECK_STR(v->slug, "7");
	CHECK_STR(v->identifier, SHA_A);
	CHECK_INT(v->type, LEC_VERSION_EXTERNAL);
	CHECK_INT(v->active, 1);
	CHECK_OK(lec_external_get(st, v->id, &ext));
	CHECK_STR(ext->ref, "refs/pull/7/head");
	CHECK_STR(ext->base_branch, "main");
	CHECK_STR(ext->forge_repo, "o/r");
	CHECK_INT(ext->state, LEC_EXTERNAL_OPEN);
	/* Replayed: nothing queued twice. A new head: the queued build of
	 * the old one is superseded. */
	again = open_request(st, project, "7", SHA_A, 0);
	CHECK_INT(again->id, v->id);
	lec_version_free(again);
	again = open_request(st, project, "7", SHA_B, 1);
	CHECK_STR(again->identifier, SHA_B);
	build_states(st, v->id, states, sizeof(states));
	CHECK_STR(states, "cancelled,triggered");
	lec_version_free(again);
	lec_external_free(ext);
	lec_version_free(v);
	lec_store_free(st);
}

TEST(a_branch_named_like_the_number_keeps_its_slug)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_version *branch = NULL, *v;

	CHECK_OK(lec_version_create(st, project, "7", "7", LEC_VERSION_BRANCH,
				    1, &branch));
	v = open_request(st, project, "7", SHA_A, 1);
	CHECK(v->id != branch->id);
	CHECK_STR(v->slug, "7_a");
	lec_version_free(v);
	lec_version_free(branch);
	lec_store_free(st);
}

TEST(closing_deactivates_and_cancels)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_external *ext = NULL;
	struct lec_version *v, *closed = NULL;
	char states[128], *name = NULL;
	size_t removed = 9;

	v = open_request(st, project, "12", SHA_A, 1);
	CHECK_OK(lec_external_close(st, project, "12", &name));
	CHECK_STR(name, "12");
	CHECK_OK(lec_version_get_by_id(st, v->id, &closed));
	CHECK_INT(closed->active, 0);
	CHECK_OK(lec_external_get(st, v->id, &ext));
	CHECK_INT(ext->state, LEC_EXTERNAL_CLOSED);
	CHECK(ext->closed > 0);
	build_states(st, v->id, states, sizeof(states));
	CHECK_STR(states, "cancelled");
	CHECK_INT(lec_external_close(st, project, "13", NULL), LEC_ENOTFOUND);
	/* Not swept before its grace period ends. */
	CHECK_OK(lec_external_sweep(st, lec_test_tmpdir(), ext->closed - 1,
				    &removed));
	CHECK_INT((int)removed, 0);
	lec_external_free(ext);
	lec_version_free(closed);
	/* Reopened: open and active again, built. */
	lec_version_free(open_request(st, project, "12", SHA_A, 1));
	CHECK_OK(lec_external_get(st, v->id, &ext));
	CHECK_INT(ext->state, LEC_EXTERNAL_OPEN);
	CHECK_INT((int)ext->closed, 0);
	lec_external_free(ext);
	free(name);
	lec_version_free(v);
	lec_store_free(st);
}

TEST(a_closed_request_is_swept)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_version *v, *gone = NULL;
	size_t removed = 0;

	v = open_request(st, project, "5", SHA_A, 1);
	CHECK_OK(lec_external_close(st, project, "5", NULL));
	CHECK_OK(lec_external_sweep(st, lec_test_tmpdir(), lec__now_us(),
				    &removed));
	CHECK_INT((int)removed, 1);
	CHECK_INT(lec_version_get_by_id(st, v->id, &gone), LEC_ENOTFOUND);
	lec_version_free(v);
	lec_store_free(st);
}

TEST(bad_requests_are_refused)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_external_request rq = { LEC_EXTERNAL_GITLAB, "7/../x",
					   SHA_A, NULL, NULL, NULL };
	struct lec_external *ext = NULL;
	struct lec_version *v = NULL;

	CHECK_INT(lec_external_open(st, project, &rq, NULL, &v, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "number");
	rq.number = "1234567890123456789";
	CHECK_INT(lec_external_open(st, project, &rq, NULL, &v, NULL),
		  LEC_EINVALID);
	rq.number = "3";
	rq.commit = "main";
	CHECK_INT(lec_external_open(st, project, &rq, NULL, &v, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "commit");
	CHECK(v == NULL);
	rq.commit = SHA_B;
	CHECK_OK(lec_external_open(st, project, &rq, NULL, &v, NULL));
	CHECK_OK(lec_external_get(st, v->id, &ext));
	CHECK_STR(ext->ref, "refs/merge-requests/3/head");
	CHECK(ext->source_branch == NULL);
	lec_external_free(ext);
	lec_version_free(v);
	lec_store_free(st);
}

TEST(a_branch_preview)
{
	struct lec_store *st = lec_test_store();
	int64_t project = lec_test_project(st, "guide");
	struct lec_version *branch = NULL, *v = NULL;
	struct lec_external *ext = NULL;
	int built = 0;

	CHECK_OK(lec_version_create(st, project, "fix", "fix",
				    LEC_VERSION_BRANCH, 0, &branch));
	CHECK_INT(lec_external_open_branch(st, project, "nowhere", NULL, &v,
					   NULL),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last_field(), "branch");
	CHECK_OK(lec_external_open_branch(st, project, "fix", "preview", &v,
					  &built));
	CHECK_INT(built, 1);
	CHECK_STR(v->slug, "preview-fix");
	CHECK_STR(v->identifier, "fix");
	CHECK_OK(lec_external_get(st, v->id, &ext));
	CHECK_STR(ext->ref, "refs/heads/fix");
	CHECK_INT(ext->forge, LEC_EXTERNAL_LOCAL);
	lec_version_free(v);
	/* Asked again while queued: nothing more. */
	CHECK_OK(lec_external_open_branch(st, project, "fix", NULL, &v,
					  &built));
	CHECK_INT(built, 0);
	lec_version_free(v);
	v = NULL;
	/* An active version is built as itself. */
	{
		struct lec_version_patch on = { 0 };

		on.set = LEC_VERSION_SET_ACTIVE;
		on.active = 1;
		CHECK_OK(lec_version_update(st, branch->id, &on));
	}
	CHECK_INT(lec_external_open_branch(st, project, "fix", NULL, &v, NULL),
		  LEC_EINVALID);
	lec_external_free(ext);
	lec_version_free(branch);
	lec_store_free(st);
}

TEST(request_refs)
{
	CHECK_INT(lec_repo_is_request_ref("refs/pull/7/head"), 1);
	CHECK_INT(lec_repo_is_request_ref("refs/merge-requests/12/head"), 1);
	CHECK_INT(lec_repo_is_request_ref("refs/pull/7/merge"), 0);
	CHECK_INT(lec_repo_is_request_ref("refs/pull//head"), 0);
	CHECK_INT(lec_repo_is_request_ref("refs/pull/7/head/x"), 0);
	CHECK_INT(lec_repo_is_request_ref("refs/heads/main"), 0);
	CHECK_INT(lec_repo_is_request_ref(NULL), 0);
	CHECK_INT(lec_repo_cache_update_ref("file:///nowhere", "/tmp/x",
				      "refs/heads/main", NULL, NULL),
		  LEC_EINVALID);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(a_request_opened_is_built_once_at_its_head),
	TEST_ENTRY(a_branch_named_like_the_number_keeps_its_slug),
	TEST_ENTRY(closing_deactivates_and_cancels),
	TEST_ENTRY(a_closed_request_is_swept),
	TEST_ENTRY(bad_requests_are_refused),
	TEST_ENTRY(a_branch_preview),
	TEST_ENTRY(request_refs),
};

LEC_TEST_MAIN(tests)
