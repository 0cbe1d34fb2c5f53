/*
 * Warm generators (build_warm.c): per version being worked on (a preview,
 * a version whose commits are watched), a Python in that version's
 * sandbox that has imported Sphinx and the extensions its conf.py names,
 * and forks one child per build to run `python -m sphinx` with exactly
 * the cold command's arguments, environment and working directory. A
 * floor below the steps, beside the job services (job.c calls it in the
 * runner's place); it calls the runner and the cache keys, no step.
 */
#ifndef LECTERN_BUILD_WARM_H
#define LECTERN_BUILD_WARM_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/runner.h"

struct lec__cache_key;
/* The warm generators of one pipeline or one preview. */
struct lec__warm_pool;

/* A warm generator stops after this long without a build: a writer
 * pausing over a page, commits a few minutes apart, keep theirs; a
 * version left alone gives its memory back. */
#define LEC__WARM_IDLE_MS (10 * 60 * 1000)

/* What a command run warm needs beyond its runner spec. */
struct lec__warm_request {
	const char *who;  /* the version: one warm generator each */
	/* What a warm generator of who depends on (the reuse rule's inputs):
	 * a different key stops the running one and starts another. */
	const struct lec__cache_key *key;
	const char *tree; /* nothing below it is imported by the parent */
	const char *conf; /* conf.py, absolute: its literal extensions */
	/* The build's own directory, mounted per command (a new one each
	 * build): the parent's sandbox has the others only. */
	const char *build_dir;
	int fresh; /* a fresh build: start a new one whatever runs */
};

/* The file a pool's record names (lectern status reads it): "<count>
 * <KiB>[ <pid>...]\n", the warm generators running, their memory when
 * they became ready and their parents' pids. */
#define LEC__WARM_RECORD "warm-generators"

/* What data_dir's record says: the warm generators running and their
 * memory (KiB) now, each parent's and its builds' (the memory at ready
 * when none can be measured); 0 and 0 without a record. */
void lec__warm_usage(const char *data_dir, uint64_t *count, uint64_t *kib);

/* A pool; record: where it keeps LEC__WARM_RECORD's line up to date
 * (NULL: nowhere). LEC_OK or LEC_ENOMEM; free takes NULL and stops every
 * warm generator, waiting for them (the record then says none). */
int lec__warm_pool_new(struct lec__warm_pool **out, const char *record);
void lec__warm_pool_free(struct lec__warm_pool *pool);
/* Stop who's warm generator (its caches were invalidated); NULL: all. */
void lec__warm_pool_stop(struct lec__warm_pool *pool, const char *who);
/* How many run and their memory when they became ready, in KiB. */
void lec__warm_pool_stats(struct lec__warm_pool *pool, size_t *count,
			  size_t *rss_kb);

/* What a build through a warm generator says beyond its result. */
struct lec__warm_outcome {
	int reused;       /* the generator ran an earlier build */
	char reason[160]; /* not reused: why */
	/* How its pages were written (warm_generator.py's report): by
	 * that many writers in parallel; 0 serially, serial saying why; -1
	 * it did not say (it wrote none, or not through Sphinx's writer). */
	int writers;
	char serial[120];
};

/* Run spec's command (python -m sphinx ...) through who's warm
 * generator, started for it when there is none (or its key changed),
 * with out, cancel and payload as lec_runner_run takes them; how says
 * whether the generator was reused and how the build wrote. LEC_OK: it
 * ran, result says how it ended. LEC_EBUSY: nothing ran (no generator
 * could serve it; how->reason says why): run it cold. */
int lec__warm_run(struct lec__warm_pool *pool,
		  const struct lec__warm_request *req,
		  const struct lec_runner_spec *spec, lec_runner_output_cb out,
		  lec_runner_cancel_cb cancel, void *payload,
		  struct lec_runner_result *result,
		  struct lec__warm_outcome *how);

#endif
