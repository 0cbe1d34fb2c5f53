/*
 * What the pipeline's files share: the pipeline's state, one build in
 * progress (a job), and the steps a job goes through. The calls run one
 * way: pipeline.c (workers, recovery) → build_job.c (one build: its steps
 * in order, recording, running commands) → the step files: build_fetch.c
 * (the repository, through the `lectern` helper in a sandbox),
 * build_python.c (the project's virtualenv and dependencies),
 * build_steps.c (the generators and formats), build_publish.c (the
 * output, made safe and published). build_cause.c finds the cause of a
 * failed command in its output.
 */
#ifndef LECTERN_PIPELINE_INTERNAL_H
#define LECTERN_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "files.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/envvar.h"
#include "lectern/pipeline.h"
#include "lectern/project.h"
#include "lectern/rtdconfig.h"
#include "lectern/runner.h"
#include "lectern/store.h"
#include "lectern/version.h"

struct lec_pipeline {
	struct lec_pipeline_config config;
	char *data_dir;
	char *docs_domain;
	char *production_domain;
	char *python;       /* interpreter with Sphinx/MkDocs, or NULL */
	char *python_about; /* what lec_pipeline_python shows */
	int has_sphinx;
	int has_mkdocs;
	unsigned build_uid, build_gid; /* whom builds run as under root */
	char *helper;       /* the `lectern` program for fetch and checkout */
	char *sandbox_error; /* why builds cannot run here, or NULL */
	struct lec__watcher *watcher; /* builds on commit, or NULL */
	unsigned watch_debounce_ms, watch_poll_ms;
	pthread_t threads[LEC_PIPELINE_MAX_WORKERS];
	unsigned nthreads;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	int lock_fd; /* flock on <data>/pipeline.lock: one pipeline per data dir */
};

/* Where a job with no build record (a preview, preview.c) sends its log,
 * and how it learns that it should stop. Called on the job's thread. */
struct lec__job_sink {
	void (*start)(void *payload, const char *display); /* a command */
	void (*text)(void *payload, const char *data, size_t len);
	void (*finish)(void *payload, int exit_code);
	int (*cancelled)(void *payload); /* non-zero: stop the build */
	void *payload;
};

/* One build in progress. A preview (sink set) has no store, build,
 * version or mirror: only the fields the generator steps read. */
struct lec__job {
	struct lec_pipeline *pl;
	struct lec_store *st;
	struct lec_build *build;
	struct lec_project *project;
	struct lec_version *version;
	char *build_dir;  /* builds/<id> */
	char *checkout;   /* builds/<id>/checkout */
	char *output;     /* checkout/_readthedocs */
	char *mirror;     /* repos/<project>.git */
	char *commit;
	char *git_identifier; /* branch or tag name the version follows */
	struct lec_rtd_config *config; /* NULL: no .readthedocs.yaml */
	enum lec_doctype doctype; /* what the build produced, for the version */
	struct lec_envvar_values vars;
	char **env;       /* NULL-terminated "K=V" for build commands */
	const char **secrets; /* NULL-terminated values to mask */
	char **encoded;       /* the URL-encoded secrets (owned) */
	size_t nencoded;
	char *error;      /* why the build failed; NULL while it goes well */
	int cancelled;    /* the build was cancelled: stop at once */
	const struct lec__job_sink *sink; /* a preview's log; NULL: recorded */
	const char *doctrees;     /* Sphinx's -d; NULL: _build/doctrees */
	int html_only;            /* no htmlzip/PDF/EPUB (a preview) */
	int64_t deadline_ms;      /* monotonic end of the time limit; 0: none */
	char *venv_root;  /* python/<project>/<version>: venv and wheelhouse */
	char *venv;       /* venv_root/venv once made; NULL: none */
	char *venv_python; /* venv/bin/python, or NULL */
	const char *python; /* what generators run with: venv_python or the
			       pipeline's (NULL: pl->python) */
};

/* Most mounts one command gets: the build directory, the venv, and what
 * its step adds (pip's configuration files and find-links directories). */
#define LEC__JOB_MAX_MOUNTS 12

/* What one command sees beyond the build directory, when it is not the
 * default of lec__job_run. */
struct lec__job_sandbox {
	const struct lec_runner_mount *mounts; /* added after the venv */
	size_t nmounts;
	const char *const *env; /* NULL: the job's */
	int network;
	int venv_writable;      /* the install step writes the venv */
	/* 1: a command that exits non-zero is recorded as failed but does
	 * not fail the build (lec__job_run_in returns 1). */
	int soft;
	/* Non-NULL: the output goes here instead of the log (the fetch
	 * helper's progress protocol); return non-zero to stop. */
	int (*output)(void *payload, const char *data, size_t len);
	void *payload;
};

/* The last bytes a command wrote: where its error usually is. */
#define LEC__TAIL_MAX 8192
/* Longest cause put into a build's error. */
#define LEC__CAUSE_MAX 320
struct lec__tail {
	char buf[LEC__TAIL_MAX];
	size_t len;  /* bytes in buf (at most LEC__TAIL_MAX) */
	size_t next; /* where the next byte goes (ring) */
};
void lec__tail_add(struct lec__tail *t, const char *data, size_t len);
/* The cause of a failure in one line (ANSI escapes removed): the last line
 * naming an error or exception, else the last non-empty line; "" when the
 * command wrote nothing. */
void lec__tail_cause(const struct lec__tail *t, char *out, size_t cap);
/* text without ANSI escape sequences, in place; returns the new length. */
size_t lec__strip_ansi(char *text, size_t len);

/* Where a command's output goes: the job and the command record. */
struct lec__job_output {
	struct lec__job *job;
	int64_t id;
};

/* Whether the pipeline is stopping (running builds end at once). */
int lec__pipeline_stopping(struct lec_pipeline *pl);
/* Report through the pipeline's log callback. */
void lec__job_log(struct lec_pipeline *pl, const char *fmt, ...)
	LEC__PRINTF(2, 3);
/* Carry out one claimed build and finish it. */
int lec__job_execute(struct lec_pipeline *pl, struct lec_store *st,
		     struct lec_build *build);

/* The Python generators run with: the project's venv, or the pipeline's. */
const char *lec__job_python(const struct lec__job *job);
/* A command's environment: a NULL-terminated vector of owned "KEY=VALUE"
 * strings, *n of them. take appends an owned entry (NULL: out of memory,
 * reported); add formats one (value NULL: empty); free takes NULL. */
int lec__env_take(char ***env, size_t *n, char *entry);
int lec__env_add(char ***env, size_t *n, const char *name, const char *value);
void lec__env_free(char **env);
/* Whether the build was cancelled or Lectern is stopping (asked while
 * commands run; the store is read). */
int lec__job_cancelled(struct lec__job *job);
/* Fail the job with a message (the first failure wins). Returns -1. */
int lec__job_fail(struct lec__job *job, const char *fmt, ...)
	LEC__PRINTF(2, 3);

/* Commands. A recorded command shows `display` in the build's log; an
 * internal one (done in-process) gets its output from the step itself. */
int lec__job_run(struct lec__job *job, const char *display,
		 const char *const *argv, const char *cwd, int network);
int lec__job_run_in(struct lec__job *job, const char *display,
		    const char *const *argv, const char *cwd,
		    const struct lec__job_sandbox *sb);
int lec__job_record_start(struct lec__job *job, const char *display,
			  int64_t *id);
void lec__job_record_text(struct lec__job *job, int64_t id, const char *text);
void lec__job_record_finish(struct lec__job *job, int64_t id, int exit_code);
/* A note in the log: a finished pseudo-command with its text as output. */
void lec__job_note(struct lec__job *job, const char *display,
		   const char *text);
/* Whether every component of rel (relative to the build directory) is a
 * real directory, not a link a build made: 1 yes, 0 one is missing, -1 the
 * job failed (one is a link or a file). Only race-free once no process of
 * the build runs, which is when the pipeline reads or moves what a build
 * wrote. */
int lec__job_real_dirs(struct lec__job *job, const char *rel);
/* `cat <relpath>` in the log, with the file's text (capped). */
void lec__job_note_file(struct lec__job *job, const char *relpath);
/* Read the checkout's .readthedocs.yaml into job->config (NULL without
 * one), recorded as a "cat" command; yaml_path is the project's
 * readthedocs_yaml_path or NULL for the default. -1 fails the job. */
int lec__job_read_config(struct lec__job *job, const char *yaml_path);
/* Run each user command of a build.jobs hook (sh -c, checkout root). */
int lec__job_hook(struct lec__job *job, enum lec_rtd_job hook);

/* Builds on commit for local repositories (watch.c): a thread of the
 * pipeline's, which stops once the pipeline is stopping. */
struct lec__watcher;
int lec__watcher_start(struct lec_pipeline *pl, struct lec__watcher **out);
void lec__watcher_stop(struct lec__watcher *watcher);

/* The checkout step (build_fetch.c): fetch the project's mirror, sync
 * its versions, check the version's commit out. 0 or -1 (job failed). */
int lec__job_checkout(struct lec__job *job);
/* The submodules .readthedocs.yaml asks for, fetched through mirrors of
 * their own (repos/<project>.modules/) and checked out. 0 or -1. */
int lec__job_submodules(struct lec__job *job);
/* Fetch a project's mirror outside any build (a version sync), within
 * time_limit_s. */
int lec__fetch_mirror(struct lec_pipeline *pl, const struct lec_project *p,
		      unsigned time_limit_s);
/* The install step (build_python.c): the venv and python.install. */
int lec__job_install_python(struct lec__job *job);
/* The publish step (build_publish.c). */
int lec__job_publish(struct lec__job *job);
/* Remove from a finished build's tree whatever is not a regular file or a
 * directory (links, devices, fifos, sockets), drop set-id bits, and give
 * it to the server's user: nothing in it can then lead out of it. */
int lec__sanitize_tree(const char *dir);
/* Which output becomes which version's published docs (build_publish.c;
 * a build's, or a mirror's refresh, mirror.c). Strings borrowed. */
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
/* When the server is root: give path (and with recurse all below it,
 * links not followed) to the build user, or back to the server's user. */
int lec__chown_tree(struct lec_pipeline *pl, const char *path,
		    int to_build_user, int recurse);

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


#endif
