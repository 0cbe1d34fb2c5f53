/*
 * The build pipeline: worker threads inside `lectern serve` that take
 * queued builds and version-sync requests from the store and carry them out
 * the way the hosted service does (behaviour notes §5): clone or fetch the
 * repository, check out the version, read .readthedocs.yaml, run the
 * documentation generator in a bubblewrap sandbox with every command and
 * its output recorded live, then publish the output atomically.
 *
 * Data directory layout:
 *   repos/<project>.git               repo cache of the project's repository
 *   builds/<build>/checkout/          a running build's working tree
 *   outputs/<build>/{html,htmlzip,pdf,epub}   a successful build's output
 *   published/<project>/<version>     symlink to ../../outputs/<build>,
 *                                     replaced with one rename()
 */
#ifndef LECTERN_PIPELINE_H
#define LECTERN_PIPELINE_H

#include <stddef.h>

#include "lectern/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Workers when none are configured: one per this many processors, at
 * least one. A build keeps a processor busy (the generator, then
 * compression and indexing), so a worker per processor would leave nothing
 * for the API's threads and the writer's own work. */
#define LEC_PIPELINE_CPUS_PER_WORKER 2
/* Most workers: builds are CPU- and memory-heavy; more than this on a
 * workstation only thrashes. */
#define LEC_PIPELINE_MAX_WORKERS 16
/* How often an idle worker looks for work, and a running build for its
 * cancellation: the delay before a triggered build starts. */
#define LEC_PIPELINE_POLL_MS 200
/* After a change to a watched repository's refs, how long it must stay
 * quiet before they are read (git renames several files per commit). */
#define LEC_PIPELINE_WATCH_DEBOUNCE_MS 300
/* Without inotify, how often watched repositories' refs are read. */
#define LEC_PIPELINE_WATCH_POLL_MS 2000

struct lec_pipeline_config {
	unsigned int version;  /* LEC_PIPELINE_CONFIG_VERSION */
	const char *data_dir;
	unsigned workers;      /* 0: see LEC_PIPELINE_CPUS_PER_WORKER */
	struct lec_runner_limits limits;
	const char *docs_domain;       /* READTHEDOCS_CANONICAL_URL's domain */
	const char *production_domain; /* READTHEDOCS_PRODUCTION_DOMAIN */
	/* Where the pipeline reports what no build record can hold (a failed
	 * version sync); NULL: nowhere. Called from worker threads. */
	void (*log)(void *payload, const char *message);
	void *log_payload;
	/* Directories a project's file:// repository (and its submodules) may
	 * lie in, checked again at clone time (lec_localrepo_check);
	 * NULL-terminated, NULL: none. Not copied: must outlive the
	 * pipeline. */
	const char *const *local_roots;
	/* Whom builds run as when the server is root (0: the default,
	 * LEC_RUNNER_DEFAULT_UID/GID). Never root. */
	unsigned build_uid, build_gid;
	/* The `lectern` program, whose LEC_PIPELINE_HELPER_WORD subcommand
	 * fetches and checks out in the sandbox; NULL: this process's own
	 * program (/proc/self/exe), which must then be `lectern`. */
	const char *helper;
	/* 1: the dependency-install step gets no network either (pip then
	 * installs from the project's wheelhouse and find-links only). */
	int offline;
	/* Builds on commit for local repositories (watch.c): 1 turns the
	 * watch off; the quiet period after a change before the refs are
	 * read (0: LEC_PIPELINE_WATCH_DEBOUNCE_MS); 1 lists the refs every
	 * poll interval instead of using inotify; that interval (0:
	 * LEC_PIPELINE_WATCH_POLL_MS). */
	int no_watch;
	unsigned watch_debounce_ms;
	int watch_no_inotify;
	unsigned watch_poll_ms;
	/* 1: each look the commit watch and the remote polling take (the
	 * projects read again, a repository's refs listed, a remote
	 * fetched) is a line of the log, for tests to wait on. */
	int watch_log;
	/* Builds of each version whose published output is kept for page
	 * diffs (diff.h), the one served included; 0:
	 * LEC_DIFF_KEEP_BUILDS_DEFAULT, 1: only the served one. */
	unsigned keep_builds;
	/* Where pull requests' previews are served (their commit statuses
	 * link there); NULL: "external.localhost". */
	const char *external_domain;
};
/* The helper's subcommand (src/cli/repo_helper.c). */
#define LEC_PIPELINE_HELPER_WORD "__repo"
#define LEC_PIPELINE_CONFIG_VERSION 1

struct lec_pipeline;

/**
 * Recover from a previous run that died (builds left running are finished
 * as failed, their sandboxes killed, their working trees and unpublished
 * outputs removed), then start the workers.
 * @param out owned by the caller; stop with lec_pipeline_stop
 * @return LEC_OK; LEC_EBUSY when another process runs this data
 *         directory's builds (one pipeline per data directory)
 */
int lec_pipeline_start(struct lec_pipeline **out,
		       const struct lec_pipeline_config *config);

/**
 * Stop the workers: running builds are stopped and finished as failed,
 * with a message saying Lectern stopped. Accepts NULL.
 */
void lec_pipeline_stop(struct lec_pipeline *pipeline);

/**
 * The Python interpreter the pipeline runs Sphinx and MkDocs with, and
 * what it has ("/usr/bin/python3 (Sphinx 5.3.0, MkDocs 1.4.2)"), or NULL
 * when none was found. Valid while the pipeline runs.
 */
const char *lec_pipeline_python(const struct lec_pipeline *pipeline);

/** The build workers the pipeline runs (an instance's status). */
unsigned lec_pipeline_workers(const struct lec_pipeline *pipeline);

/* What the kept work of builds takes on disk (symbolic links not
 * followed), and the running pipeline's warm generators (one a version
 * being worked on: a Python that has imported Sphinx), for `lectern
 * status`. */
struct lec_pipeline_usage {
	uint64_t trees;   /* versions' kept trees and generator state */
	uint64_t python;  /* projects' virtualenvs, wheels and pip caches */
	uint64_t repos;   /* the repositories' repo caches */
	uint64_t warm;     /* warm generators running */
	uint64_t warm_kib; /* their memory now, with their builds' */
};

/**
 * Measure data_dir's caches (absent ones: zero). Walks every file: as
 * slow as `du`. @return LEC_OK; LEC_EINVALID (NULL argument)
 */
int lec_pipeline_usage(const char *data_dir, struct lec_pipeline_usage *out);

#ifdef __cplusplus
}
#endif
#endif
