/*
 * Cache keys (build_cache.c), the rule every kept cache is reused by: a
 * key saved and checked again is the same; the first part that differs
 * is the reason ("docs/conf.py changed", "Sphinx 5.3.0 → 7.2.6"); a file
 * absent is a value of its own; no record, a damaged one or one with
 * other parts is never a reuse; a forgotten key is gone. And the notes a
 * build keeps of its caches, as the API shows them.
 */
#include <stdlib.h>

#include "harness.h"
#include "job.h"

/* The key of a Sphinx build: versions, then files of dir. */
static void sphinx_key(struct lec__cache_key *k, const char *dir,
		       const char *sphinx)
{
	memset(k, 0, sizeof(*k));
	lec__cache_key_text(k, "Lectern", "lectern-1", 0);
	lec__cache_key_text(k, "Sphinx", sphinx, 1);
	lec__cache_key_file(k, dir, ".readthedocs.yaml");
	lec__cache_key_file(k, dir, "docs/conf.py");
}

static int check(const struct lec__cache_key *k, const char *record,
		 char *reason)
{
	return lec__cache_key_check(k, record, reason, 160);
}

TEST(reused_only_while_every_part_is_the_same)
{
	const char *dir = lec_test_tmpdir();
	char *record = lec__path_join(dir, "latest.sphinx"), *docs, reason[160];
	struct lec__cache_key k;

	docs = lec__path_join(dir, "docs");
	CHECK_OK(lec__mkdirs(docs));
	lec_test_put(dir, "docs/conf.py", "project = 'Guide'\n");
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "no earlier build to reuse");
	CHECK_OK(lec__cache_key_save(&k, record));
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 1);
	/* A version: from what to what. */
	sphinx_key(&k, dir, "7.2.6");
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "Sphinx 5.3.0 → 7.2.6");
	/* A file's content (not its time). */
	lec_test_put(dir, "docs/conf.py", "project = 'Guide'\n");
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 1);
	lec_test_put(dir, "docs/conf.py", "project = 'Other'\n");
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "docs/conf.py changed");
	/* A file that appears where there was none. */
	lec_test_put(dir, "docs/conf.py", "project = 'Guide'\n");
	lec_test_put(dir, ".readthedocs.yaml", "version: 2\n");
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, ".readthedocs.yaml changed");
	/* A file's part is its SHA-256. */
	CHECK_INT(strlen(k.parts[2].value), 64);
	lec__free(record);
	lec__free(docs);
}

TEST(other_parts_or_a_damaged_record_are_no_reuse)
{
	const char *dir = lec_test_tmpdir();
	char *record = lec__path_join(dir, "latest.sphinx"), reason[160];
	struct lec__cache_key k;

	sphinx_key(&k, dir, "5.3.0");
	CHECK_STR(k.parts[3].value, "absent");
	CHECK_OK(lec__cache_key_save(&k, record));
	/* One more part than the record's. */
	lec__cache_key_text(&k, "the builder", "dirhtml", 1);
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "the builder changed");
	/* One fewer. */
	sphinx_key(&k, dir, "5.3.0");
	k.n--;
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "what it depends on changed");
	/* Damaged. */
	lec_test_put(dir, "latest.sphinx", "Lectern without tabs\n");
	sphinx_key(&k, dir, "5.3.0");
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "its record was damaged");
	/* Forgotten. */
	CHECK_OK(lec__cache_key_save(&k, record));
	lec__cache_key_forget(record);
	CHECK_INT(check(&k, record, reason), 0);
	CHECK_STR(reason, "no earlier build to reuse");
	lec__free(record);
}

TEST(a_key_holds_at_most_its_parts)
{
	struct lec__cache_key k = { .n = 0 };
	size_t i;

	for (i = 0; i < LEC__CACHE_KEY_PARTS + 3; i++)
		lec__cache_key_text(&k, "part", "v", 0);
	CHECK_INT(k.n, LEC__CACHE_KEY_PARTS);
}

TEST(notes_as_the_api_shows_them)
{
	struct lec__job job;
	char *json;

	memset(&job, 0, sizeof(job));
	CHECK(lec__job_cache_json(&job) == NULL);
	lec__job_cache_note(&job, "checkout", 1, NULL);
	lec__job_cache_note(&job, "python", 0, "the requirements changed");
	lec__job_cache_note(&job, "doctrees", 0, "Sphinx %s → %s", "5.3.0",
			    "7.2.6");
	/* A second note of a cache replaces the first. */
	lec__job_cache_note(&job, "checkout", 0, "%s was changed since the "
				       "last checkout", "docs/index.md");
	json = lec__job_cache_json(&job);
	CHECK_STR(json, "{\"checkout\":{\"reused\":false,\"reason\":"
			"\"docs/index.md was changed since the last checkout\"},"
			"\"python\":{\"reused\":false,\"reason\":\"the "
			"requirements changed\"},\"doctrees\":{\"reused\":false,"
			"\"reason\":\"Sphinx 5.3.0 → 7.2.6\"}}");
	lec__free(json);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(reused_only_while_every_part_is_the_same),
	TEST_ENTRY(other_parts_or_a_damaged_record_are_no_reuse),
	TEST_ENTRY(a_key_holds_at_most_its_parts),
	TEST_ENTRY(notes_as_the_api_shows_them),
};

LEC_TEST_MAIN(tests)
