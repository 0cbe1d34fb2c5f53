/*
 * What the pipeline's upper floors share (docs/ARCHITECTURE.md draws them).
 * Bottom up: the build environment (buildenv.h), the job services (job.h:
 * job.c, with build_cause.c and build_cache.c beside it), then the steps,
 * build_tree.c (the version's kept tree), build_fetch.c (the repository,
 * through the `lectern` helper in a sandbox) and build_publish.c (the
 * output, made safe and published, and recovered after a crash), then
 * build_python.c (the project's virtualenv and dependencies) and
 * build_steps.c (the generators and formats), then build_job.c (one
 * build: its steps in order), and at the top pipeline.c (workers,
 * recovery), watch.c (builds on commit), repo cache.c (offline repo caches) and
 * preview.c. Each file calls only files on lower floors.
 */
#ifndef LECTERN_PIPELINE_INTERNAL_H
#define LECTERN_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "job.h"
#include "lectern/pipeline.h"

struct lec_pipeline {
	struct lec_pipeline_config config;
	struct lec__build_env env; /* what builds need; its lock and wake
				      also pace the workers */
	struct lec__watcher *watcher; /* builds on commit, or NULL */
	unsigned watch_debounce_ms, watch_poll_ms;
	pthread_t threads[LEC_PIPELINE_MAX_WORKERS];
	unsigned nthreads;
	int lock_fd; /* flock on <data>/pipeline.lock: one pipeline per data dir */
};

/* The error of a build whose end could be recorded only once its kept
 * files were removed: the disk holding the data directory was full. */
#define LEC__BUILD_ERROR_DISK_FULL                                           \
	"The disk holding Lectern's data is full: this build's kept "        \
	"files were removed to record its end. Free some space and build "   \
	"again."

/* Carry out one claimed build and finish it (build_job.c). LEC_OK once
 * its end is recorded, passed or failed; an error when the store could
 * not take it even after removing what the build kept (the worker tries
 * again, lec_build_fail with LEC__BUILD_ERROR_DISK_FULL). */
int lec__job_execute(struct lec__build_env *env, struct lec_store *st,
		     struct lec_build *build);

/* Builds on commit for local repositories (watch.c): a thread of the
 * pipeline's, which stops once the pipeline is stopping. */
struct lec__watcher;
int lec__watcher_start(struct lec_pipeline *pl, struct lec__watcher **out);
void lec__watcher_stop(struct lec__watcher *watcher);

/* The checkout step (build_fetch.c): fetch the project's repo cache, sync
 * its versions, check the version's commit out. 0 or -1 (job failed). */
int lec__job_checkout(struct lec__job *job);
/* The submodules .readthedocs.yaml asks for, fetched through repo caches of
 * their own (repos/<project>.modules/) and checked out. 0 or -1. */
int lec__job_submodules(struct lec__job *job);
/* Fetch a project's repo cache outside any build (a version sync), within
 * time_limit_s. */
int lec__fetch_repo_cache(struct lec__build_env *env,
		      const struct lec_project *p, unsigned time_limit_s);
/* The version's kept working tree (build_tree.c). Before a checkout:
 * check the tree against what the last one wrote and clean what the
 * commit does not have, keeping the generators' state; *from (owned) is
 * then the commit the tree holds, to update from, or NULL when the tree
 * must be checked out afresh (the reason noted as the "checkout" cache).
 * After it: record what it wrote, or forget the record. */
int lec__tree_prepare(struct lec__job *job, int fresh, char **from);
/* Remove the kept trees, generator state and Python environments of p's
 * versions that are no longer active (deleted or deactivated). */
void lec__prune_caches(const struct lec__build_env *env, struct lec_store *st,
		       const struct lec_project *p);
int lec__tree_record(struct lec__job *job);
void lec__tree_forget(struct lec__job *job);
/* Remove the version's kept tree and all that lies beside it: the room a
 * build made when the disk is full. */
void lec__tree_drop(struct lec__job *job);
/* The install step's two parts (build_python.c): the venv, or the
 * project's build.jobs.create_environment; python.install into it, or the
 * project's build.jobs.install. */
int lec__job_python_create(struct lec__job *job);
int lec__job_python_install(struct lec__job *job);
/* The publish step (build_publish.c). */
int lec__job_publish(struct lec__job *job);
/* Remove from a finished build's tree whatever is not a regular file or a
 * directory (links, devices, fifos, sockets), drop set-id bits, and give
 * it to the server's user: nothing in it can then lead out of it. */
int lec__sanitize_tree(const char *dir);
/* Which output becomes which version's published docs (build_publish.c;
 * a build's, or a repo cache's refresh, repo cache.c). Strings borrowed. */
struct lec__publish {
	struct lec_store *st;
	const char *data_dir;
	const char *project_slug;
	int64_t project_id;
	int64_t version_id;
	const char *version_slug;
	int64_t build_id;  /* the output is <data>/outputs/<build_id> */
	unsigned keep;     /* outputs kept per version; 0: the default */
};
/* Move the sanitized tree src (holding html/) to outputs/<build_id>, make
 * it the version's published output with one rename() of its link, then
 * remove the version's passed outputs beyond the newest keep. LEC_OK;
 * LEC_EIO (nothing published, the message says why); LEC_ENOMEM. */
int lec__publish_tree(const struct lec__publish *p, const char *src);
/* A build interrupted (kill -9) after its output became the version's
 * published docs: bring the version's downloads and search index in line
 * with what is served and return 1 (the build did publish); 0 when its
 * output is not the one published. */
int lec__publish_recover(struct lec_store *st, const char *data_dir,
			 const struct lec_build *build);

/* Generator steps (build_steps.c); each returns 0 or -1 (job failed). */
int lec__job_build_docs(struct lec__job *job);
/* The generator lec__job_build_docs runs for the job's checkout and
 * configuration (a preview keeps Sphinx's output between builds only). */
enum lec__generator {
	LEC__GEN_COMMANDS, /* build.commands */
	LEC__GEN_JOBS,     /* build.jobs.build.* (a generic build) */
	LEC__GEN_MKDOCS,
	LEC__GEN_SPHINX,
	LEC__GEN_MARKDOWN  /* no configuration, no conf.py, no mkdocs.yml */
};
enum lec__generator lec__job_generator(const struct lec__job *job);
/* The end of a job for Sphinx's kept warnings: a build that passed (ok)
 * leaves its state for the next one's carrying over; any other leaves
 * none, so that the next build reads every document again. Frees what
 * the job held of them. */
void lec__job_sphinx_keep(struct lec__job *job, int ok);


#endif
