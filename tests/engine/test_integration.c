/*
 * Incoming webhooks' rules (integration.c) on a store: which versions a
 * push builds (a branch by the branch it follows, a tag by its name, any
 * by either; active ones only), when a pending build covers the push and
 * none is added (still queued, checked out that very commit, or asked for
 * after the refs changed), that a new build otherwise supersedes it and
 * says how it started, the cap on refs, and the secrets a delivery is
 * checked against (GitHub's signature, GitLab's token).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/integration.h"
#include "lectern/version.h"
#include "store_internal.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
/* HMAC-SHA256 of "Hello, World!" with the secret its-a-secret-to-everybody
 * (Python's hmac). */
#define HMAC "59b1afd0aff58692b88025e08436e5c705fa1c4c8b31ef1a2052683c1ccce4c7"

struct fixture {
	struct lec_store *st;
	int64_t project, dev, tag, old;
};

static int64_t version(struct lec_store *st, int64_t project,
		       const char *name, enum lec_version_type type, int active)
{
	struct lec_version *v = NULL;
	int64_t id = 0;

	CHECK_OK(lec_version_create(st, project, name, name, type, active, &v));
	if (v)
		id = v->id;
	lec_version_free(v);
	return id;
}

static void setup(struct fixture *f)
{
	f->st = lec_test_store();
	f->project = lec_test_project(f->st, "guide");
	f->dev = version(f->st, f->project, "dev", LEC_VERSION_BRANCH, 1);
	f->tag = version(f->st, f->project, "v1.0", LEC_VERSION_TAG, 1);
	f->old = version(f->st, f->project, "old", LEC_VERSION_BRANCH, 0);
}

/* How many builds the version has, and the newest one's id and how it
 * started. */
static int builds_of(struct fixture *f, int64_t version_id, int64_t *newest,
		     char *how, size_t cap)
{
	sqlite3_stmt *stmt = NULL;
	int n = 0;

	*newest = 0;
	snprintf(how, cap, "-");
	CHECK_OK(lec_store__prepare(f->st, &stmt,
				    "SELECT id, triggered_by FROM builds WHERE "
				    "version_id = ? ORDER BY id"));
	sqlite3_bind_int64(stmt, 1, version_id);
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		const char *by = (const char *)sqlite3_column_text(stmt, 1);

		n++;
		*newest = sqlite3_column_int64(stmt, 0);
		snprintf(how, cap, "%s", by ? by : "-");
	}
	lec_store__finalize(f->st, stmt);
	return n;
}

static void push(struct fixture *f, const char *name,
		 enum lec_integration_ref_type type, const char *commit,
		 int64_t since_us, const char *expect_slugs)
{
	struct lec_integration_ref ref = { name, type, commit };
	struct lec_integration_builds out = { 0 };
	char slugs[256] = "";
	size_t i;

	CHECK_OK(lec_integration_build_refs(f->st, f->project, &ref, 1,
					    since_us, "webhook:github", &out));
	for (i = 0; i < out.len; i++)
		snprintf(slugs + strlen(slugs), sizeof(slugs) - strlen(slugs),
			 "%s%s", i ? " " : "", out.slugs[i]);
	CHECK_STR(slugs, expect_slugs);
	lec_integration_builds_dispose(&out);
}

static void set_build(struct fixture *f, int64_t id, const char *state,
		      const char *sha, long long created_us)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "UPDATE builds SET state = '%s', commit_sha = %s%s%s, "
		 "created = %lld WHERE id = %lld",
		 state, sha ? "'" : "", sha ? sha : "NULL", sha ? "'" : "",
		 created_us, (long long)id);
	CHECK_OK(lec_store__exec(f->st, sql));
}

TEST(a_push_builds_the_versions_it_names)
{
	struct fixture f;
	int64_t id;
	char how[64];

	setup(&f);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_A, 0, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 1);
	CHECK_STR(how, "webhook:github");
	/* A tag by its name, not a branch of that name; either for "any". */
	push(&f, "v1.0", LEC_INTEGRATION_REF_BRANCH, SHA_A, 0, "");
	push(&f, "v1.0", LEC_INTEGRATION_REF_TAG, SHA_A, 0, "v1.0");
	push(&f, "dev", LEC_INTEGRATION_REF_TAG, SHA_A, 0, "");
	CHECK_INT(builds_of(&f, f.tag, &id, how, sizeof(how)), 1);
	/* An inactive version is not built; a ref no version follows
	 * builds nothing. */
	push(&f, "old", LEC_INTEGRATION_REF_ANY, SHA_A, 0, "");
	CHECK_INT(builds_of(&f, f.old, &id, how, sizeof(how)), 0);
	push(&f, "nowhere", LEC_INTEGRATION_REF_ANY, SHA_A, 0, "");
	lec_store_free(f.st);
}

TEST(a_pending_build_covers_a_push)
{
	struct fixture f;
	int64_t first, id;
	char how[64];

	setup(&f);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_A, 0, "dev");
	builds_of(&f, f.dev, &first, how, sizeof(how));
	/* Still queued: a replayed delivery builds nothing twice. */
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_B, 0, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 1);
	/* Checked out that very commit: kept; another commit: a new build. */
	set_build(&f, first, "building", SHA_A, 1000);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_A, 0, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 1);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_B, 0, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 2);
	CHECK(id != first);
	/* Asked for after the refs changed and not checked out yet: it will
	 * build the new commit. Asked for before: superseded. */
	set_build(&f, id, "cloning", NULL, 5000);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_A, 4000, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 2);
	push(&f, "dev", LEC_INTEGRATION_REF_BRANCH, SHA_A, 6000, "dev");
	CHECK_INT(builds_of(&f, f.dev, &id, how, sizeof(how)), 3);
	lec_store_free(f.st);
}

TEST(at_most_so_many_refs)
{
	struct lec_integration_ref refs[LEC_INTEGRATION_REFS_MAX + 1];
	struct lec_integration_builds out = { 0 };
	struct fixture f;
	size_t i;

	setup(&f);
	for (i = 0; i < LEC_INTEGRATION_REFS_MAX + 1; i++)
		refs[i] = (struct lec_integration_ref){
			"dev", LEC_INTEGRATION_REF_BRANCH, NULL
		};
	CHECK_ERR(lec_integration_build_refs(f.st, f.project, refs,
					     LEC_INTEGRATION_REFS_MAX + 1, 0,
					     "webhook:generic", &out),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "branches");
	CHECK_OK(lec_integration_build_refs(f.st, f.project, refs,
					    LEC_INTEGRATION_REFS_MAX, 0,
					    "webhook:generic", &out));
	CHECK_INT(out.len, 1);
	lec_integration_builds_dispose(&out);
	lec_store_free(f.st);
}

TEST(deliveries_checked_against_the_secret)
{
	static const char body[] = "Hello, World!";
	struct lec_integration *github = NULL, *gitlab = NULL;
	struct fixture f;

	setup(&f);
	CHECK_OK(lec_integration_create(f.st, f.project, LEC_INTEGRATION_GITHUB,
					"its-a-secret-to-everybody", &github,
					NULL));
	CHECK_OK(lec_integration_create(f.st, f.project, LEC_INTEGRATION_GITLAB,
					"gitlab-token-1234", &gitlab, NULL));
	if (github == NULL || gitlab == NULL)
		goto done;
	CHECK_OK(lec_integration_verify_signature(f.st, github, body,
						  strlen(body), "sha256=" HMAC));
	/* Another body; the signature without its "sha256=". */
	CHECK_ERR(lec_integration_verify_signature(f.st, github, body,
						   strlen(body) - 1,
						   "sha256=" HMAC),
		  LEC_EAUTH);
	CHECK_ERR(lec_integration_verify_signature(f.st, github, body,
						   strlen(body), HMAC),
		  LEC_EAUTH);
	CHECK_ERR(lec_integration_verify_signature(f.st, github, body,
						   strlen(body), NULL),
		  LEC_EAUTH);
	CHECK_OK(lec_integration_verify_token(f.st, gitlab,
					      "gitlab-token-1234"));
	CHECK_ERR(lec_integration_verify_token(f.st, gitlab,
					       "gitlab-token-123"),
		  LEC_EAUTH);
	CHECK_ERR(lec_integration_verify_token(f.st, gitlab, ""), LEC_EAUTH);
	/* A secret with a space (or anything not printable ASCII) is
	 * refused. */
	CHECK_ERR(lec_integration_create(f.st, f.project, LEC_INTEGRATION_API,
					 "two words", NULL, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "secret");
done:
	lec_integration_free(github);
	lec_integration_free(gitlab);
	lec_store_free(f.st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(a_push_builds_the_versions_it_names),
	TEST_ENTRY(a_pending_build_covers_a_push),
	TEST_ENTRY(at_most_so_many_refs),
	TEST_ENTRY(deliveries_checked_against_the_secret),
};

LEC_TEST_MAIN(tests)
