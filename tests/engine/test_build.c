/*
 * Builds: triggering (and cancelling the version's unfinished builds),
 * forward-only state moves, finishing and durations, cancellation, reset,
 * the worker queue and its exclusive claim (across threads with their own
 * store handles), lists with filters and paging, commands with their
 * streamed and capped output, and what deletes do to builds.
 */
#include <pthread.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/version.h"
#include "store_internal.h"

static int64_t make_version(struct lec_store *st, int64_t project,
			    const char *name, enum lec_version_type type)
{
	struct lec_version *v = NULL;
	int64_t id = 0;

	CHECK_OK(lec_version_create(st, project, name, name, type, 1, &v));
	if (v)
		id = v->id;
	lec_version_free(v);
	return id;
}

static int64_t trigger(struct lec_store *st, int64_t project, int64_t version,
		       const char *commit)
{
	struct lec_build *b = NULL;
	int64_t id = 0;

	CHECK_OK(lec_build_trigger(st, project, version, commit, &b, NULL));
	if (b)
		id = b->id;
	lec_build_free(b);
	return id;
}

/* Fetch a build; the caller frees it. */
static struct lec_build *get(struct lec_store *st, int64_t id)
{
	struct lec_build *b = NULL;

	CHECK_OK(lec_build_get(st, id, &b));
	return b;
}

static void exec_fmt(struct lec_store *st, const char *fmt, ...)
	LEC__PRINTF(2, 3);

/* Run formatted SQL, to put a build or command into a given past. */
static void exec_fmt(struct lec_store *st, const char *fmt, ...)
{
	char sql[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	CHECK_OK(lec_store__exec(st, sql));
}

static int version_built(struct lec_store *st, int64_t id)
{
	struct lec_version *v = NULL;
	int built = -1;

	CHECK_OK(lec_version_get_by_id(st, id, &v));
	if (v)
		built = v->built;
	lec_version_free(v);
	return built;
}

TEST(state_codes_and_names)
{
	static const char *const codes[] = { "triggered", "cloning",
					     "installing", "building",
					     "uploading", "finished",
					     "cancelled" };
	static const char *const names[] = { "Triggered",  "Cloning",
					     "Installing", "Building",
					     "Uploading",  "Finished",
					     "Cancelled" };
	enum lec_build_state s = LEC_BUILD_STATE_TRIGGERED;
	int i;

	for (i = 0; i < 7; i++) {
		CHECK_STR(lec_build_state_code((enum lec_build_state)i),
			  codes[i]);
		CHECK_STR(lec_build_state_name((enum lec_build_state)i),
			  names[i]);
		CHECK_OK(lec_build_state_parse(codes[i], &s));
		CHECK_INT(s, i);
		CHECK_INT(lec_build_state_final((enum lec_build_state)i),
			  i >= 5);
	}
	CHECK(lec_build_state_code((enum lec_build_state)7) == NULL);
	CHECK(lec_build_state_name((enum lec_build_state)-1) == NULL);
	CHECK_ERR(lec_build_state_parse("Finished", &s), LEC_EINVALID);
	CHECK_ERR(lec_build_state_parse(NULL, &s), LEC_EINVALID);
}

TEST(trigger_round_trip)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p"), q = lec_test_project(st, "q");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t other = make_version(st, q, "main", LEC_VERSION_BRANCH);
	struct lec_build *b = NULL, *again = NULL;
	char long_commit[LEC_BUILD_COMMIT_MAX + 2];
	size_t cancelled = 99;

	CHECK_OK(lec_build_trigger(st, p, v, "abc123", &b, &cancelled));
	CHECK_INT(cancelled, 0);
	CHECK(b != NULL);
	if (b) {
		CHECK(b->id > 0);
		CHECK_INT(b->project_id, p);
		CHECK_INT(b->version_id, v);
		CHECK_STR(b->type, "html");
		CHECK_INT(b->state, LEC_BUILD_STATE_TRIGGERED);
		CHECK_INT(b->success, 1);
		CHECK(b->error == NULL);
		CHECK_STR(b->commit, "abc123");
		CHECK(b->created > 0);
		CHECK_INT(b->started, 0);
		CHECK_INT(b->finished, 0);
		CHECK_INT(b->duration, -1);
		CHECK(b->config == NULL);
		CHECK_OK(lec_build_get_in_project(st, p, b->id, &again));
		CHECK(again && again->id == b->id);
		lec_build_free(again);
		again = NULL;
		CHECK_ERR(lec_build_get_in_project(st, q, b->id, &again),
			  LEC_ENOTFOUND);
		CHECK(again == NULL);
	}
	lec_build_free(b);
	b = NULL;

	/* No commit yet, and out may be NULL. */
	CHECK_OK(lec_build_trigger(st, p, v, NULL, NULL, NULL));
	CHECK_ERR(lec_build_get(st, 4242, &b), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "no build with id 4242");

	/* The version must exist and belong to the project. */
	CHECK_ERR(lec_build_trigger(st, p, 999, NULL, &b, NULL),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "No Version matches the given query.");
	CHECK_ERR(lec_build_trigger(st, p, other, NULL, &b, NULL),
		  LEC_ENOTFOUND);
	memset(long_commit, 'f', sizeof(long_commit) - 1);
	long_commit[sizeof(long_commit) - 1] = '\0';
	CHECK_ERR(lec_build_trigger(st, p, v, long_commit, &b, NULL),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "commit");
	CHECK(b == NULL);
	lec_store_free(st);
}

TEST(trigger_cancels_unfinished_builds)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t w = make_version(st, p, "other", LEC_VERSION_BRANCH);
	int64_t b1, b2, b3, bw;
	struct lec_build *b = NULL;
	size_t cancelled = 0;

	b1 = trigger(st, p, v, NULL);
	bw = trigger(st, p, w, NULL);
	CHECK_OK(lec_build_set_state(st, b1, LEC_BUILD_STATE_BUILDING));
	/* b1 has run for 3 seconds when b2 is triggered. */
	exec_fmt(st,
		 "UPDATE builds SET started = started - %lld WHERE id = %lld",
		 3000000LL, (long long)b1);
	CHECK_OK(lec_build_trigger(st, p, v, NULL, &b, &cancelled));
	CHECK_INT(cancelled, 1);
	b2 = b ? b->id : 0;
	lec_build_free(b);

	b = get(st, b1);
	if (b) {
		CHECK_INT(b->state, LEC_BUILD_STATE_CANCELLED);
		CHECK_INT(b->success, 0);
		CHECK_STR(b->error, LEC_BUILD_ERROR_SUPERSEDED);
		CHECK(b->finished >= b->started && b->finished > 0);
		CHECK_INT(b->duration, 3);
	}
	lec_build_free(b);
	/* Another version's build is untouched. */
	b = get(st, bw);
	CHECK(b && b->state == LEC_BUILD_STATE_TRIGGERED);
	lec_build_free(b);

	/* A still-triggered build is cancelled with no duration; finished
	 * builds stay as they are. */
	b3 = trigger(st, p, v, NULL);
	b = get(st, b2);
	CHECK(b && b->state == LEC_BUILD_STATE_CANCELLED && b->duration == 0);
	lec_build_free(b);
	CHECK_OK(lec_build_finish(st, b3, 1, NULL));
	CHECK_OK(lec_build_trigger(st, p, v, NULL, NULL, &cancelled));
	CHECK_INT(cancelled, 0);
	b = get(st, b3);
	CHECK(b && b->state == LEC_BUILD_STATE_FINISHED && b->success == 1);
	lec_build_free(b);
	lec_store_free(st);
}

TEST(external_version_reuses_last_commit)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t pr = make_version(st, p, "17", LEC_VERSION_EXTERNAL);
	int64_t branch = make_version(st, p, "main", LEC_VERSION_BRANCH);
	struct lec_build *b = NULL;

	trigger(st, p, pr, "cafe01");
	CHECK_OK(lec_build_trigger(st, p, pr, NULL, &b, NULL));
	CHECK(b && b->commit && strcmp(b->commit, "cafe01") == 0);
	lec_build_free(b);
	b = NULL;
	/* Other versions build their head. */
	trigger(st, p, branch, "beef02");
	CHECK_OK(lec_build_trigger(st, p, branch, NULL, &b, NULL));
	CHECK(b && b->commit == NULL);
	lec_build_free(b);
	lec_store_free(st);
}

TEST(forward_only_transitions)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL);
	struct lec_build *b = NULL;
	char want[128];

	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_CLONING));
	b = get(st, id);
	CHECK(b && b->state == LEC_BUILD_STATE_CLONING && b->started > 0 &&
	      b->finished == 0 && b->duration == -1);
	lec_build_free(b);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_INSTALLING));
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));

	CHECK_ERR(lec_build_set_state(st, id, LEC_BUILD_STATE_CLONING),
		  LEC_EINVALID);
	snprintf(want, sizeof(want),
		 "cannot move build %lld from building to cloning",
		 (long long)id);
	CHECK_STR(lec_error_last(), want);
	CHECK_ERR(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING),
		  LEC_EINVALID);
	CHECK_ERR(lec_build_set_state(st, id, LEC_BUILD_STATE_TRIGGERED),
		  LEC_EINVALID);
	CHECK_ERR(lec_build_set_state(st, id, (enum lec_build_state)42),
		  LEC_EINVALID);
	b = get(st, id);
	CHECK(b && b->state == LEC_BUILD_STATE_BUILDING);
	lec_build_free(b);

	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_UPLOADING));
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_FINISHED));
	b = get(st, id);
	CHECK(b && b->state == LEC_BUILD_STATE_FINISHED && b->success == 1 &&
	      b->finished > 0 && b->duration >= 0 && b->error == NULL);
	lec_build_free(b);
	CHECK_INT(version_built(st, v), 1);
	CHECK_ERR(lec_build_set_state(st, id, LEC_BUILD_STATE_CANCELLED),
		  LEC_EINVALID);
	snprintf(want, sizeof(want),
		 "cannot move build %lld from finished to cancelled",
		 (long long)id);
	CHECK_STR(lec_error_last(), want);
	CHECK_ERR(lec_build_set_state(st, 777, LEC_BUILD_STATE_CLONING),
		  LEC_ENOTFOUND);

	/* Skipping ahead is forward too. */
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	b = get(st, id);
	CHECK(b && b->started > 0);
	lec_build_free(b);
	lec_store_free(st);
}

TEST(finish_semantics_and_durations)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t w = make_version(st, p, "dev", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL);
	struct lec_build *b = NULL;

	/* A failure keeps its message and leaves the version unbuilt. */
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	exec_fmt(st,
		 "UPDATE builds SET started = started - %lld WHERE id = %lld",
		 5500000LL, (long long)id);
	CHECK_OK(lec_build_finish(st, id, 0, "sphinx exited with 2"));
	b = get(st, id);
	if (b) {
		CHECK_INT(b->state, LEC_BUILD_STATE_FINISHED);
		CHECK_INT(b->success, 0);
		CHECK_STR(b->error, "sphinx exited with 2");
		CHECK_INT(b->duration, 5);
		CHECK(b->finished >= b->started + 5500000);
	}
	lec_build_free(b);
	CHECK_INT(version_built(st, v), 0);
	CHECK_ERR(lec_build_finish(st, id, 1, NULL), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "already finished") != NULL);

	/* A success drops any error text and marks the version built. */
	id = trigger(st, p, w, NULL);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_CLONING));
	CHECK_OK(lec_build_finish(st, id, 7, "ignored"));
	b = get(st, id);
	CHECK(b && b->success == 1 && b->error == NULL && b->duration == 0);
	lec_build_free(b);
	CHECK_INT(version_built(st, w), 1);

	/* Never started: duration 0, no start time. */
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_finish(st, id, 0, NULL));
	b = get(st, id);
	CHECK(b && b->started == 0 && b->duration == 0 && b->finished > 0 &&
	      b->error == NULL && b->success == 0);
	lec_build_free(b);

	CHECK_ERR(lec_build_finish(st, 9999, 1, NULL), LEC_ENOTFOUND);
	lec_store_free(st);
}

TEST(cancelled_stays_cancelled)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL);
	struct lec_build *b = NULL;

	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	CHECK_OK(lec_build_cancel(st, id));
	b = get(st, id);
	CHECK(b && b->state == LEC_BUILD_STATE_CANCELLED && b->success == 0 &&
	      b->finished > 0);
	CHECK_STR(b ? b->error : NULL, LEC_BUILD_ERROR_CANCELLED);
	lec_build_free(b);

	/* The worker's finish only records the real end time. */
	exec_fmt(st, "UPDATE builds SET finished = %lld WHERE id = %lld", 1LL,
		 (long long)id);
	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	b = get(st, id);
	if (b) {
		CHECK_INT(b->state, LEC_BUILD_STATE_CANCELLED);
		CHECK_INT(b->success, 0);
		CHECK_STR(b->error, LEC_BUILD_ERROR_CANCELLED);
		CHECK(b->finished > 1);
	}
	lec_build_free(b);
	CHECK_INT(version_built(st, v), 0);

	CHECK_ERR(lec_build_cancel(st, id), LEC_EINVALID);
	CHECK_ERR(lec_build_set_state(st, id, LEC_BUILD_STATE_UPLOADING),
		  LEC_EINVALID);
	CHECK_ERR(lec_build_cancel(st, 31337), LEC_ENOTFOUND);

	/* Cancelled while waiting: it never started. */
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_CANCELLED));
	b = get(st, id);
	CHECK(b && b->started == 0 && b->duration == 0);
	lec_build_free(b);
	lec_store_free(st);
}

TEST(queue_next_and_claim)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t w = make_version(st, p, "dev", LEC_VERSION_BRANCH);
	int64_t first, second;
	struct lec_build *b = NULL;

	CHECK_ERR(lec_build_next(st, &b), LEC_ENOTFOUND);
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK(b == NULL);
	first = trigger(st, p, v, NULL);
	second = trigger(st, p, w, NULL);

	CHECK_OK(lec_build_next(st, &b));
	CHECK(b && b->id == first && b->state == LEC_BUILD_STATE_TRIGGERED);
	lec_build_free(b);
	b = NULL;
	CHECK_OK(lec_build_claim(st, &b));
	CHECK(b && b->id == first && b->state == LEC_BUILD_STATE_CLONING &&
	      b->started > 0);
	lec_build_free(b);
	b = NULL;
	CHECK_OK(lec_build_next(st, &b));
	CHECK(b && b->id == second);
	lec_build_free(b);
	b = NULL;
	/* One build of a project at a time. */
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK_OK(lec_build_finish(st, first, 1, NULL));
	CHECK_OK(lec_build_claim(st, &b));
	CHECK(b && b->id == second);
	lec_build_free(b);
	b = NULL;
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK(b == NULL);
	lec_store_free(st);
}

/* Builds the claim race makes, and workers racing for them. */
#define RACE_BUILDS 40
#define RACE_WORKERS 4

struct race_worker {
	const char *path;
	int64_t claimed[RACE_BUILDS];
	int count;
	int failed;
};

static void *race_claim(void *arg)
{
	struct race_worker *w = arg;
	struct lec_store *st = NULL;
	struct lec_build *b = NULL;
	int rc;

	if (lec_store_open(&st, w->path, NULL) != LEC_OK) {
		w->failed = 1;
		return NULL;
	}
	while ((rc = lec_build_claim(st, &b)) == LEC_OK) {
		if (w->count < RACE_BUILDS)
			w->claimed[w->count] = b->id;
		w->count++;
		lec_build_free(b);
	}
	if (rc != LEC_ENOTFOUND)
		w->failed = 1;
	lec_store_free(st);
	return NULL;
}

TEST(claim_is_exclusive_across_handles)
{
	struct lec_store *st = lec_test_store();
	struct race_worker workers[RACE_WORKERS];
	pthread_t threads[RACE_WORKERS];
	int seen[RACE_BUILDS + 1] = { 0 };
	int64_t first = 0;
	int i, j, total = 0;

	/* One project each: a project's builds are taken one at a time. */
	for (i = 0; i < RACE_BUILDS; i++) {
		char name[16];
		int64_t p, id;

		snprintf(name, sizeof(name), "p%d", i);
		p = lec_test_project(st, name);
		id = trigger(st, p, make_version(st, p, "main",
						  LEC_VERSION_BRANCH),
			     NULL);
		if (i == 0)
			first = id;
	}
	memset(workers, 0, sizeof(workers));
	for (i = 0; i < RACE_WORKERS; i++) {
		workers[i].path = lec_store_path(st);
		CHECK_INT(pthread_create(&threads[i], NULL, race_claim,
					 &workers[i]),
			  0);
	}
	for (i = 0; i < RACE_WORKERS; i++) {
		pthread_join(threads[i], NULL);
		CHECK_INT(workers[i].failed, 0);
		total += workers[i].count;
		for (j = 0; j < workers[i].count && j < RACE_BUILDS; j++) {
			int64_t k = workers[i].claimed[j] - first;

			CHECK(k >= 0 && k < RACE_BUILDS);
			if (k >= 0 && k < RACE_BUILDS)
				seen[k]++;
		}
	}
	CHECK_INT(total, RACE_BUILDS);
	for (i = 0; i < RACE_BUILDS; i++)
		CHECK_INT(seen[i], 1);
	lec_store_free(st);
}

/* A project of its own with one triggered build, maintained by user (0:
 * nobody); returns the build. */
static int64_t owned_build(struct lec_store *st, const char *slug,
			   int64_t user)
{
	int64_t p = lec_test_project(st, slug);

	if (user)
		exec_fmt(st,
			 "INSERT OR IGNORE INTO users (id, username, created) "
			 "VALUES (%lld, 'user%lld', 0);"
			 "INSERT INTO project_users VALUES (%lld, %lld)",
			 (long long)user, (long long)user, (long long)p,
			 (long long)user);
	return trigger(st, p, make_version(st, p, "main", LEC_VERSION_BRANCH),
		       NULL);
}

static int64_t claim_id(struct lec_store *st)
{
	struct lec_build *b = NULL;
	int64_t id = 0;

	CHECK_OK(lec_build_claim(st, &b));
	if (b)
		id = b->id;
	lec_build_free(b);
	return id;
}

#define ALICE 1
#define BOB 2
#define ALICE_BUILDS 5

/* Alice queues five builds on five projects, then Bob one: Bob's is taken
 * second, whether one worker finishes Alice's first build before taking
 * the next (the round) or a second worker asks while it runs (the owner
 * holding fewer builds). Alice's then go in the order she queued them. */
TEST(claim_goes_round_the_owners)
{
	int workers;

	for (workers = 1; workers <= 2; workers++) {
		struct lec_store *st = lec_test_store();
		int64_t alice[ALICE_BUILDS], bob, first;
		int i;

		for (i = 0; i < ALICE_BUILDS; i++) {
			char slug[16];

			snprintf(slug, sizeof(slug), "alice%d", i);
			alice[i] = owned_build(st, slug, ALICE);
		}
		bob = owned_build(st, "bob", BOB);
		first = claim_id(st);
		CHECK_INT(first, alice[0]);
		if (workers == 1)
			CHECK_OK(lec_build_finish(st, first, 1, NULL));
		CHECK_INT(claim_id(st), bob);
		for (i = 1; i < ALICE_BUILDS; i++)
			CHECK_INT(claim_id(st), alice[i]);
		lec_store_free(st);
	}
}

/* An owner's queue, as a cap on it reads it: the triggered builds of
 * the projects the owner is the first maintainer of, not another
 * owner's, not a started one, and not those of the version a new trigger
 * would supersede. */
TEST(an_owners_queue_counts_waiting_builds)
{
	struct lec_store *st = lec_test_store();
	int64_t a1 = owned_build(st, "a1", ALICE), owner = -1;
	int64_t a2 = owned_build(st, "a2", ALICE);
	struct lec_build *b = NULL;
	size_t n = 99;

	owned_build(st, "b1", BOB);
	owned_build(st, "nobody", 0);
	CHECK_OK(lec_build_get(st, a2, &b));
	CHECK_OK(lec_build_owner(st, b->project_id, &owner));
	CHECK_INT(owner, ALICE);
	CHECK_OK(lec_build_queued(st, ALICE, 0, &n));
	CHECK_INT(n, 2);
	CHECK_OK(lec_build_queued(st, ALICE, b->version_id, &n));
	CHECK_INT(n, 1);
	CHECK_OK(lec_build_queued(st, BOB, 0, &n));
	CHECK_INT(n, 1);
	CHECK_OK(lec_build_queued(st, 0, 0, &n));
	CHECK_INT(n, 1);
	CHECK_INT(claim_id(st), a1);
	CHECK_OK(lec_build_queued(st, ALICE, 0, &n));
	CHECK_INT(n, 1);
	lec_build_free(b);
	lec_store_free(st);
}

/* Three owners, one worker: each finished build hands the worker to the
 * owner served longest ago, maintainer-less projects being one owner. */
TEST(one_worker_serves_owners_in_turn)
{
	struct lec_store *st = lec_test_store();
	int64_t a1 = owned_build(st, "a1", ALICE);
	int64_t a2 = owned_build(st, "a2", ALICE);
	int64_t b1 = owned_build(st, "b1", BOB);
	int64_t n1 = owned_build(st, "n1", 0);
	int64_t b2 = owned_build(st, "b2", BOB);
	int64_t n2 = owned_build(st, "n2", 0);
	const int64_t want[] = { a1, b1, n1, a2, b2, n2 };
	struct lec_build *b = NULL;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int64_t id = claim_id(st);

		CHECK_INT(id, want[i]);
		CHECK_OK(lec_build_finish(st, id, 1, NULL));
	}
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	lec_store_free(st);
}

/* Two triggered builds of one project are never both taken: not while the
 * first runs, nor once it is cancelled and its worker is still stopping
 * it; the worker's finish lets the second go. A reset build is free. */
TEST(one_build_per_project)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t main_v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t dev_v = make_version(st, p, "dev", LEC_VERSION_BRANCH);
	int64_t first = trigger(st, p, main_v, NULL);
	int64_t second = trigger(st, p, dev_v, NULL);
	int64_t other = owned_build(st, "other", 0);
	struct lec_build *b = NULL;

	CHECK_INT(claim_id(st), first);
	CHECK_INT(claim_id(st), other);
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK_OK(lec_build_set_state(st, first, LEC_BUILD_STATE_BUILDING));
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK_OK(lec_build_cancel(st, first));
	CHECK_ERR(lec_build_claim(st, &b), LEC_ENOTFOUND);
	CHECK_OK(lec_build_finish(st, first, 0, NULL));
	CHECK_INT(claim_id(st), second);
	CHECK_OK(lec_build_reset(st, second));
	CHECK_INT(claim_id(st), second);
	CHECK(b == NULL);
	lec_store_free(st);
}

TEST(reset_requeues)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, "abc"), cmd = 0;
	struct lec_build_command_list cmds;
	struct lec_build *b = NULL;

	CHECK_OK(lec_build_claim(st, &b));
	lec_build_free(b);
	CHECK_OK(lec_build_command_start(st, id, "git clone", NULL, &cmd));
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));

	CHECK_OK(lec_build_reset(st, id));
	b = get(st, id);
	if (b) {
		CHECK_INT(b->state, LEC_BUILD_STATE_TRIGGERED);
		CHECK_INT(b->success, 1);
		CHECK(b->error == NULL);
		CHECK_INT(b->started, 0);
		CHECK_INT(b->finished, 0);
		CHECK_INT(b->duration, -1);
		CHECK_STR(b->commit, "abc");
	}
	lec_build_free(b);
	CHECK_OK(lec_build_command_list(st, id, &cmds));
	CHECK_INT(cmds.len, 0);
	lec_build_command_list_dispose(&cmds);

	/* Back in the queue. */
	b = NULL;
	CHECK_OK(lec_build_claim(st, &b));
	CHECK(b && b->id == id);
	lec_build_free(b);

	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	CHECK_ERR(lec_build_reset(st, id), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "already finished") != NULL);
	CHECK_ERR(lec_build_reset(st, 5150), LEC_ENOTFOUND);
	lec_store_free(st);
}

/* The two numbers a client watching builds asks first: they move when a
 * build is created, ends or goes back in the queue, and not while a
 * build only steps through its states. */
TEST(activity_moves_with_builds)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH), id;
	struct lec_build_activity a, b;
	struct lec_build *claimed = NULL;

	CHECK_OK(lec_build_activity(st, &a));
	CHECK_INT(a.newest, 0);
	CHECK_INT(a.unfinished, 0);
	id = trigger(st, p, v, "abc");
	CHECK_OK(lec_build_activity(st, &a));
	CHECK_INT(a.newest, id);
	CHECK_INT(a.unfinished, 1);
	CHECK_OK(lec_build_claim(st, &claimed));
	lec_build_free(claimed);
	CHECK_OK(lec_build_set_state(st, id, LEC_BUILD_STATE_BUILDING));
	CHECK_OK(lec_build_activity(st, &b));
	CHECK_INT(b.newest, a.newest);
	CHECK_INT(b.unfinished, a.unfinished);
	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	CHECK_OK(lec_build_activity(st, &a));
	CHECK_INT(a.newest, id);
	CHECK_INT(a.unfinished, 0);
	lec_store_free(st);
}

TEST(commit_and_config)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL);
	char long_commit[LEC_BUILD_COMMIT_MAX + 2];
	struct lec_build *b = NULL;
	static const char config[] =
		"{\"version\": 2, \"formats\": [\"pdf\"], "
		"\"build\": {\"os\": \"ubuntu-22.04\"}}";

	CHECK_OK(lec_build_set_commit(st, id, "0123abcd"));
	CHECK_OK(lec_build_set_config(st, id, config));
	b = get(st, id);
	CHECK_STR(b ? b->commit : NULL, "0123abcd");
	CHECK_STR(b ? b->config : NULL, config);
	lec_build_free(b);

	CHECK_ERR(lec_build_set_config(st, id, "[1, 2]"), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "config");
	CHECK_ERR(lec_build_set_config(st, id, "{\"a\": "), LEC_EINVALID);
	CHECK_ERR(lec_build_set_config(st, id, "{} trailing"), LEC_EINVALID);
	CHECK_ERR(lec_build_set_config(st, id, ""), LEC_EINVALID);
	memset(long_commit, 'e', sizeof(long_commit) - 1);
	long_commit[sizeof(long_commit) - 1] = '\0';
	CHECK_ERR(lec_build_set_commit(st, id, long_commit), LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "commit");
	b = get(st, id);
	CHECK_STR(b ? b->config : NULL, config);
	CHECK_STR(b ? b->commit : NULL, "0123abcd");
	lec_build_free(b);

	CHECK_OK(lec_build_set_commit(st, id, NULL));
	CHECK_OK(lec_build_set_config(st, id, NULL));
	b = get(st, id);
	CHECK(b && b->commit == NULL && b->config == NULL);
	lec_build_free(b);

	CHECK_ERR(lec_build_set_commit(st, 808, "x"), LEC_ENOTFOUND);
	CHECK_ERR(lec_build_set_config(st, 808, "{}"), LEC_ENOTFOUND);
	lec_store_free(st);
}

/* The ids of a build list, joined with spaces. */
static const char *ids(const struct lec_build_list *list, int64_t base,
		       char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < list->len; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%lld",
					 i ? " " : "",
					 (long long)(list->items[i].id - base));
	return buf;
}

TEST(list_filters_and_paging)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p"), q = lec_test_project(st, "q");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t w = make_version(st, p, "dev", LEC_VERSION_BRANCH);
	int64_t other = make_version(st, q, "main", LEC_VERSION_BRANCH);
	struct lec_build_filter f = { 0 };
	struct lec_page page = { 2, 1 };
	struct lec_build_list list;
	int64_t base;
	char buf[128];

	/* Builds 0..4 (relative ids): v gets 0, 1, 3; w gets 2, 4. */
	base = trigger(st, p, v, "aaa");
	CHECK_OK(lec_build_finish(st, base, 1, NULL));
	trigger(st, p, v, "bbb");
	trigger(st, p, w, "aaa");
	trigger(st, p, v, "ccc"); /* cancels 1 */
	trigger(st, p, w, "ddd"); /* cancels 2 */
	trigger(st, q, other, "aaa");

	CHECK_OK(lec_build_list(st, p, 0, NULL, NULL, &list));
	CHECK_INT(list.total, 5);
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "4 3 2 1 0");
	lec_build_list_dispose(&list);

	CHECK_OK(lec_build_list(st, p, 0, NULL, &page, &list));
	CHECK_INT(list.total, 5);
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "3 2");
	lec_build_list_dispose(&list);

	CHECK_OK(lec_build_list(st, p, v, NULL, NULL, &list));
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "3 1 0");
	lec_build_list_dispose(&list);

	f.commit = "aaa";
	CHECK_OK(lec_build_list(st, p, 0, &f, NULL, &list));
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "2 0");
	CHECK_INT(list.total, 2);
	lec_build_list_dispose(&list);
	f.commit = "";
	f.running = LEC_FILTER_TRUE;
	CHECK_OK(lec_build_list(st, p, 0, &f, NULL, &list));
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "4 3");
	lec_build_list_dispose(&list);
	f.running = LEC_FILTER_FALSE;
	CHECK_OK(lec_build_list(st, p, 0, &f, NULL, &list));
	CHECK_STR(ids(&list, base, buf, sizeof(buf)), "2 1 0");
	lec_build_list_dispose(&list);
	f.commit = "ccc";
	CHECK_OK(lec_build_list(st, p, 0, &f, NULL, &list));
	CHECK_INT(list.total, 0);
	lec_build_list_dispose(&list);

	page.offset = 50;
	CHECK_OK(lec_build_list(st, p, 0, NULL, &page, &list));
	CHECK_INT(list.len, 0);
	CHECK_INT(list.total, 5);
	lec_build_list_dispose(&list);
	lec_build_list_dispose(NULL);
	lec_store_free(st);
}

TEST(commands_record_output)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL), c1 = 0, c2 = 0, none = 0;
	struct lec_build_command *c = NULL;
	struct lec_build_command_list list;
	char want[64];

	CHECK_OK(lec_build_command_start(st, id, "git clone --depth 1 x .",
					 NULL, &c1));
	CHECK_OK(lec_build_command_get(st, c1, &c));
	if (c) {
		CHECK_INT(c->build_id, id);
		CHECK_STR(c->command, "git clone --depth 1 x .");
		CHECK_STR(c->description, "");
		CHECK_STR(c->output, "");
		CHECK_INT(c->output_len, 0);
		CHECK(c->start_time > 0);
		CHECK_INT(c->end_time, 0);
		CHECK_INT(c->run_time, -1);
	}
	lec_build_command_free(c);
	c = NULL;

	/* A reader sees output while the command runs. */
	CHECK_OK(lec_build_command_append(st, c1, "Cloning ", 8));
	CHECK_OK(lec_build_command_append(st, c1, "into '.'\n", 9));
	CHECK_OK(lec_build_command_append(st, c1, "a\0b", 3));
	CHECK_OK(lec_build_command_append(st, c1, NULL, 0));
	CHECK_OK(lec_build_command_get(st, c1, &c));
	CHECK_INT(c ? c->output_len : 0, 20);
	CHECK(c && memcmp(c->output, "Cloning into '.'\na\0b", 20) == 0);
	lec_build_command_free(c);
	c = NULL;
	CHECK_ERR(lec_build_command_append(st, c1, NULL, 4), LEC_EINVALID);

	exec_fmt(st, "UPDATE build_commands SET start_time = start_time - "
		     "%lld WHERE id = %lld",
		 3200000LL, (long long)c1);
	CHECK_OK(lec_build_command_finish(st, c1, 128));
	CHECK_OK(lec_build_command_get(st, c1, &c));
	CHECK(c && c->exit_code == 128 && c->end_time > c->start_time &&
	      c->run_time == 3);
	lec_build_command_free(c);
	c = NULL;
	CHECK_ERR(lec_build_command_append(st, c1, "late", 4), LEC_EINVALID);
	snprintf(want, sizeof(want), "build command %lld has ended",
		 (long long)c1);
	CHECK_STR(lec_error_last(), want);
	CHECK_ERR(lec_build_command_finish(st, c1, 0), LEC_EINVALID);

	CHECK_OK(lec_build_command_start(st, id, "python -m sphinx",
					 "Building HTML", &c2));
	CHECK_OK(lec_build_command_list(st, id, &list));
	CHECK_INT(list.len, 2);
	if (list.len == 2) {
		CHECK_INT(list.items[0].id, c1);
		CHECK_INT(list.items[1].id, c2);
		CHECK_STR(list.items[1].description, "Building HTML");
		CHECK_INT(list.items[1].run_time, -1);
	}
	lec_build_command_list_dispose(&list);
	lec_build_command_list_dispose(NULL);

	CHECK_ERR(lec_build_command_start(st, id, "", NULL, &none),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last_field(), "command");
	CHECK_ERR(lec_build_command_start(st, id, NULL, NULL, &none),
		  LEC_EINVALID);
	CHECK_ERR(lec_build_command_start(st, 999, "ls", NULL, &none),
		  LEC_ENOTFOUND);
	CHECK_ERR(lec_build_command_get(st, 999, &c), LEC_ENOTFOUND);
	CHECK_ERR(lec_build_command_append(st, 999, "x", 1), LEC_ENOTFOUND);
	CHECK_ERR(lec_build_command_finish(st, 999, 0), LEC_ENOTFOUND);

	/* A finished build runs no more commands. */
	CHECK_OK(lec_build_cancel(st, id));
	CHECK_ERR(lec_build_command_start(st, id, "ls", NULL, &none),
		  LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "cancelled") != NULL);
	CHECK_INT(none, 0);
	/* A command still running when its build is cancelled can end. */
	CHECK_OK(lec_build_command_append(st, c2, "x", 1));
	CHECK_OK(lec_build_command_finish(st, c2, 130));
	lec_store_free(st);
}

/* Output of command id; the caller frees it. */
static struct lec_build_command *command(struct lec_store *st, int64_t id)
{
	struct lec_build_command *c = NULL;

	CHECK_OK(lec_build_command_get(st, id, &c));
	return c;
}

/* The notice a command cut by its own cap ends with, at most cap bytes. */
static void command_notice(char *out, size_t cap, const char *cut)
{
	snprintf(out, cap, LEC_BUILD_CUT_COMMAND, "4 MiB", cut);
}

static void build_notice(char *out, size_t cap, const char *cut)
{
	snprintf(out, cap, LEC_BUILD_CUT_BUILD, "16 MiB", cut);
}

/* Whether command id's output is len bytes ending with end. */
static int output_ends(struct lec_store *st, int64_t id, size_t len,
		       const char *end)
{
	struct lec_build_command *c = command(st, id);
	size_t n = strlen(end);
	int ok = c && c->output_len == len && len >= n &&
		 memcmp(c->output + len - n, end, n) == 0;

	lec_build_command_free(c);
	return ok;
}

TEST(output_is_capped)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL), c1 = 0, c2 = 0, c3 = 0;
	size_t max = LEC_BUILD_OUTPUT_MAX;
	char *big = malloc(max + 16), notice[160];
	struct lec_build_command *c = NULL;

	if (big == NULL)
		goto done;
	memset(big, 'a', max + 16);

	/* A character that does not fit whole is dropped whole, and the
	 * notice waits for the command's end. */
	CHECK_OK(lec_build_command_start(st, id, "loop", NULL, &c1));
	CHECK_OK(lec_build_command_append(st, c1, big, max - 3));
	CHECK_OK(lec_build_command_append(st, c1, "\xc3\xa9\xe2\x82\xac",
					  5)); /* é (fits), € (does not) */
	c = command(st, c1);
	if (c) {
		CHECK_INT(c->output_len, max - 1);
		CHECK(memcmp(c->output + max - 3, "\xc3\xa9", 2) == 0);
	}
	lec_build_command_free(c);
	/* Once cut, nothing more is kept, though a byte would fit: it is
	 * counted, and the end says how much was cut, once. */
	CHECK_OK(lec_build_command_append(st, c1, "m", 1));
	CHECK_OK(lec_build_command_append(st, c1, big, 100));
	CHECK_OK(lec_build_command_finish(st, c1, 1));
	command_notice(notice, sizeof(notice), "104 bytes");
	CHECK_STR(notice, "\n[output truncated: a command keeps 4 MiB of "
			  "output; 104 bytes more cut]\n");
	CHECK(output_ends(st, c1, max - 1 + strlen(notice), notice));
	c = command(st, c1);
	CHECK(c && c->exit_code == 1 && c->end_time > 0);
	lec_build_command_free(c);

	/* Filling exactly to the cap keeps everything; one byte more cuts. */
	CHECK_OK(lec_build_command_start(st, id, "exact", NULL, &c2));
	CHECK_OK(lec_build_command_append(st, c2, big, max));
	CHECK(output_ends(st, c2, max, "a"));
	CHECK_OK(lec_build_command_append(st, c2, "b", 1));
	CHECK(output_ends(st, c2, max, "a"));
	CHECK_OK(lec_build_command_finish(st, c2, 0));
	command_notice(notice, sizeof(notice), "1 byte");
	CHECK(output_ends(st, c2, max + strlen(notice), notice));

	/* One huge write is cut too; a command nothing was cut of ends
	 * without a notice. */
	CHECK_OK(lec_build_command_start(st, id, "huge", NULL, &c3));
	CHECK_OK(lec_build_command_append(st, c3, big, max + 16));
	CHECK_OK(lec_build_command_finish(st, c3, 0));
	command_notice(notice, sizeof(notice), "16 bytes");
	CHECK(output_ends(st, c3, max + strlen(notice), notice));
	CHECK_OK(lec_build_command_start(st, id, "small", NULL, &c1));
	CHECK_OK(lec_build_command_append(st, c1, "ok\n", 3));
	CHECK_OK(lec_build_command_finish(st, c1, 0));
	CHECK(output_ends(st, c1, 3, "ok\n"));
done:
	free(big);
	lec_store_free(st);
}

/* The bytes a build's commands hold, all together. */
static size_t log_size(struct lec_store *st, int64_t build)
{
	struct lec_build_command_list list = { 0 };
	size_t i, n = 0;

	CHECK_OK(lec_build_command_list(st, build, &list));
	for (i = 0; i < list.len; i++)
		n += list.items[i].output_len;
	lec_build_command_list_dispose(&list);
	return n;
}

TEST(build_log_is_capped)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL), cmd = 0, cut = 0, after = 0;
	size_t max = LEC_BUILD_OUTPUT_MAX, mib = 1024 * 1024, i, notices;
	char *big = malloc(max), notice[160], other[160];

	if (big == NULL)
		goto done;
	memset(big, 'a', max);
	/* 14 MiB in four commands, each within its own cap. */
	for (i = 0; i < 4; i++) {
		CHECK_OK(lec_build_command_start(st, id, "print", NULL, &cmd));
		CHECK_OK(lec_build_command_append(st, cmd, big,
						  i < 3 ? max : 2 * mib));
		CHECK_OK(lec_build_command_finish(st, cmd, 0));
	}
	CHECK_INT(log_size(st, id), 14 * mib);
	/* The fifth fills the build's 16 MiB: the rest of its output, and a
	 * character split by the cap, are cut. */
	CHECK_OK(lec_build_command_start(st, id, "more", NULL, &cut));
	CHECK_OK(lec_build_command_append(st, cut, big, 2 * mib - 1));
	CHECK_OK(lec_build_command_append(st, cut, "\xc3\xa9", 2));
	CHECK_OK(lec_build_command_append(st, cut, big, mib));
	CHECK_INT(log_size(st, id), 16 * mib - 1);
	CHECK_OK(lec_build_command_finish(st, cut, 0));
	build_notice(notice, sizeof(notice), "1 MiB");
	CHECK_STR(notice, "\n[output truncated: a build keeps 16 MiB of "
			  "output; 1 MiB more cut]\n");
	CHECK(output_ends(st, cut, 2 * mib - 1 + strlen(notice), notice));
	/* The next command takes the byte left; the notices did not count. */
	CHECK_OK(lec_build_command_start(st, id, "after", NULL, &after));
	CHECK_OK(lec_build_command_append(st, after, "x", 1));
	CHECK_OK(lec_build_command_append(st, after, big, 3 * mib));
	CHECK_OK(lec_build_command_finish(st, after, 0));
	build_notice(other, sizeof(other), "3 MiB");
	CHECK(output_ends(st, after, 1 + strlen(other), other));
	notices = strlen(notice) + strlen(other);
	/* A command once the log is full keeps nothing, and says so. */
	CHECK_OK(lec_build_command_start(st, id, "late", NULL, &after));
	CHECK_OK(lec_build_command_append(st, after, "y", 1));
	CHECK_OK(lec_build_command_finish(st, after, 0));
	build_notice(other, sizeof(other), "1 byte");
	CHECK(output_ends(st, after, strlen(other), other));
	notices += strlen(other);
	/* What the store holds: the cap's output, a notice per command cut. */
	CHECK_INT(log_size(st, id), 16 * mib + notices);

	/* A reset build starts its log afresh. */
	CHECK_OK(lec_build_reset(st, id));
	CHECK_OK(lec_build_command_start(st, id, "again", NULL, &cmd));
	CHECK_OK(lec_build_command_append(st, cmd, big, max));
	CHECK(output_ends(st, cmd, max, "a"));
done:
	free(big);
	lec_store_free(st);
}

TEST(size_text)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0 bytes" },
		{ 1, "1 byte" },
		{ 1023, "1023 bytes" },
		{ 1024, "1 KiB" },
		{ 1536, "1.5 KiB" },
		{ 1048575, "1 MiB" },
		{ 3355443, "3.2 MiB" },
		{ 4194304, "4 MiB" },
		{ 16777216, "16 MiB" },
		{ 1610612736, "1.5 GiB" },
	};
	char out[LEC_BUILD_SIZE_TEXT_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lec_build_size_text(cases[i].bytes, out);
		CHECK_STR(out, cases[i].text);
	}
	lec_build_size_text(UINT64_MAX, out);
	CHECK(strstr(out, " TiB") != NULL);
}

TEST(output_read_in_pieces)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL), cmd = 0, again = 0;
	struct lec_build_command_list list = { 0 };
	struct lec_build_command c;
	char buf[8];
	size_t n = 99;

	CHECK_OK(lec_build_command_start(st, id, "ls", NULL, &cmd));
	CHECK_OK(lec_build_command_append(st, cmd, "0123456789", 10));
	/* A listing gives sizes, not outputs. */
	CHECK_OK(lec_build_command_list(st, id, &list));
	CHECK_INT(list.len, 1);
	if (list.len != 1)
		goto done;
	CHECK(list.items[0].output == NULL);
	CHECK_INT(list.items[0].output_len, 10);
	c = list.items[0];
	CHECK_OK(lec_build_command_read(st, &c, 0, buf, sizeof(buf), &n));
	CHECK(n == 8 && memcmp(buf, "01234567", 8) == 0);
	CHECK_OK(lec_build_command_read(st, &c, 8, buf, sizeof(buf), &n));
	CHECK(n == 2 && memcmp(buf, "89", 2) == 0);
	CHECK_OK(lec_build_command_read(st, &c, 10, buf, sizeof(buf), &n));
	CHECK_INT(n, 0);
	CHECK_OK(lec_build_command_read(st, &c, 100, buf, sizeof(buf), &n));
	CHECK_INT(n, 0);
	/* What is appended after the listing is there too. */
	CHECK_OK(lec_build_command_append(st, cmd, "ab", 2));
	CHECK_OK(lec_build_command_read(st, &c, 10, buf, sizeof(buf), &n));
	CHECK(n == 2 && memcmp(buf, "ab", 2) == 0);

	/* Gone with its build's reset; its id is never given again. */
	CHECK_OK(lec_build_reset(st, id));
	CHECK_ERR(lec_build_command_read(st, &c, 0, buf, sizeof(buf), &n),
		  LEC_ENOTFOUND);
	CHECK_INT(n, 0);
	CHECK_OK(lec_build_command_start(st, trigger(st, p, v, NULL), "ls",
					 NULL, &again));
	CHECK(again > cmd);
	CHECK_ERR(lec_build_command_read(st, &c, 0, buf, sizeof(buf), &n),
		  LEC_ENOTFOUND);
done:
	lec_build_command_list_dispose(&list);
	lec_store_free(st);
}

TEST(deletes_and_cascades)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, NULL), cmd = 0;
	struct lec_build_list list;
	struct lec_build_command *c = NULL;
	struct lec_build *b = NULL;

	CHECK_OK(lec_build_command_start(st, id, "ls", NULL, &cmd));
	CHECK_OK(lec_build_finish(st, id, 1, NULL));

	/* Deleting the version keeps its builds, without a version. */
	CHECK_OK(lec_version_delete(st, v));
	b = get(st, id);
	CHECK(b && b->version_id == 0 && b->state == LEC_BUILD_STATE_FINISHED);
	lec_build_free(b);
	CHECK_OK(lec_build_list(st, p, 0, NULL, NULL, &list));
	CHECK_INT(list.total, 1);
	lec_build_list_dispose(&list);
	b = NULL;
	CHECK_ERR(lec_build_trigger(st, p, v, NULL, &b, NULL), LEC_ENOTFOUND);

	/* Deleting the project removes its versions, builds and commands. */
	v = make_version(st, p, "dev", LEC_VERSION_BRANCH);
	CHECK_OK(lec_store__exec(st, "DELETE FROM projects"));
	CHECK_ERR(lec_build_get(st, id, &b), LEC_ENOTFOUND);
	CHECK_ERR(lec_build_command_get(st, cmd, &c), LEC_ENOTFOUND);
	{
		struct lec_version *ver = NULL;

		CHECK_ERR(lec_version_get_by_id(st, v, &ver), LEC_ENOTFOUND);
	}
	lec_store_free(st);
}

/* Most allocations one call makes; the torture loop tries failing each. */
#define TORTURE_MAX 400

/* Run op with the 1st, 2nd, ... allocation failing: each run must fail
 * cleanly with LEC_ENOMEM (ASan reports any leak) until one succeeds. */
#define TORTURE(call)                                                        \
	do {                                                                 \
		long n_;                                                     \
		int rc_ = LEC_ENOMEM;                                        \
		for (n_ = 1; n_ <= TORTURE_MAX && rc_ == LEC_ENOMEM; n_++) { \
			lec__alloc_fail_after(n_);                           \
			rc_ = (call);                                        \
			lec__alloc_fail_after(0);                            \
		}                                                            \
		CHECK_OK(rc_);                                               \
	} while (0)

TEST(out_of_memory_is_clean)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "p");
	int64_t v = make_version(st, p, "main", LEC_VERSION_BRANCH);
	int64_t id = trigger(st, p, v, "abc"), cmd = 0;
	struct lec_build *b = NULL;
	struct lec_build_list list = { 0 };
	struct lec_build_command *c = NULL;
	struct lec_build_command_list cmds = { 0 };

	CHECK_OK(lec_build_command_start(st, id, "ls", "list", &cmd));
	CHECK_OK(lec_build_command_append(st, cmd, "out", 3));
	TORTURE((lec_build_free(b), b = NULL, lec_build_get(st, id, &b)));
	TORTURE((lec_build_list_dispose(&list),
		 lec_build_list(st, p, 0, NULL, NULL, &list)));
	CHECK_INT(list.len, 1);
	lec_build_list_dispose(&list);
	TORTURE((lec_build_command_free(c), c = NULL,
		 lec_build_command_get(st, cmd, &c)));
	CHECK_STR(c ? c->output : NULL, "out");
	TORTURE((lec_build_command_list_dispose(&cmds),
		 lec_build_command_list(st, id, &cmds)));
	lec_build_command_list_dispose(&cmds);
	TORTURE(lec_build_set_state(st, id, LEC_BUILD_STATE_CLONING));
	TORTURE(lec_build_finish(st, id, 0, "failed"));
	lec_build_free(b);
	b = NULL;
	b = get(st, id);
	CHECK_STR(b ? b->error : NULL, "failed");
	lec_build_free(b);
	b = NULL;
	/* Failed triggers and claims leave nothing behind. */
	TORTURE((lec_build_free(b), b = NULL,
		 lec_build_trigger(st, p, v, NULL, &b, NULL)));
	CHECK_INT(b ? b->id : 0, id + 1);
	TORTURE((lec_build_free(b), b = NULL, lec_build_claim(st, &b)));
	CHECK_INT(b ? b->id : 0, id + 1);
	lec_build_free(b);
	lec_build_command_free(c);
	lec_store_free(st);
}

/* Why a build failed is recorded as a kind, whatever its error's words. */
TEST(failure_kinds)
{
	struct lec_store *st = lec_test_store();
	int64_t p = lec_test_project(st, "docs");
	int64_t v = make_version(st, p, "latest", LEC_VERSION_BRANCH);
	int64_t id;
	struct lec_build *b;

	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_fail(st, id, LEC_BUILD_FAILURE_CONFIG,
				"Command \"x\" failed."));
	b = get(st, id);
	CHECK(b && !b->success && b->failure == LEC_BUILD_FAILURE_CONFIG);
	lec_build_free(b);
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_finish(st, id, 0,
				  "Problem in your project's configuration."));
	b = get(st, id);
	CHECK(b && b->failure == LEC_BUILD_FAILURE_GENERIC);
	lec_build_free(b);
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	b = get(st, id);
	CHECK(b && b->success && b->failure == LEC_BUILD_FAILURE_NONE);
	lec_build_free(b);
	/* Skipped (exit code 183): cancelled, not finished, and it stays so
	 * when read back. */
	id = trigger(st, p, v, NULL);
	CHECK_OK(lec_build_fail(st, id, LEC_BUILD_FAILURE_SKIPPED,
				LEC_BUILD_ERROR_SKIPPED));
	b = get(st, id);
	CHECK(b && !b->success && b->state == LEC_BUILD_STATE_CANCELLED &&
	      b->failure == LEC_BUILD_FAILURE_SKIPPED && b->finished > 0 &&
	      strcmp(b->error, LEC_BUILD_ERROR_SKIPPED) == 0);
	lec_build_free(b);
	CHECK_OK(lec_build_finish(st, id, 1, NULL));
	b = get(st, id);
	CHECK(b && !b->success && b->state == LEC_BUILD_STATE_CANCELLED);
	lec_build_free(b);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(failure_kinds),
	TEST_ENTRY(state_codes_and_names),
	TEST_ENTRY(trigger_round_trip),
	TEST_ENTRY(trigger_cancels_unfinished_builds),
	TEST_ENTRY(external_version_reuses_last_commit),
	TEST_ENTRY(forward_only_transitions),
	TEST_ENTRY(finish_semantics_and_durations),
	TEST_ENTRY(cancelled_stays_cancelled),
	TEST_ENTRY(queue_next_and_claim),
	TEST_ENTRY(claim_is_exclusive_across_handles),
	TEST_ENTRY(claim_goes_round_the_owners),
	TEST_ENTRY(an_owners_queue_counts_waiting_builds),
	TEST_ENTRY(one_worker_serves_owners_in_turn),
	TEST_ENTRY(one_build_per_project),
	TEST_ENTRY(reset_requeues),
	TEST_ENTRY(activity_moves_with_builds),
	TEST_ENTRY(commit_and_config),
	TEST_ENTRY(list_filters_and_paging),
	TEST_ENTRY(commands_record_output),
	TEST_ENTRY(output_is_capped),
	TEST_ENTRY(build_log_is_capped),
	TEST_ENTRY(size_text),
	TEST_ENTRY(output_read_in_pieces),
	TEST_ENTRY(deletes_and_cascades),
	TEST_ENTRY(out_of_memory_is_clean),
};

LEC_TEST_MAIN(tests)
