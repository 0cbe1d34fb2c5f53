/*
 * What the pipeline's files share: the pipeline's state, one build in
 * progress (a job), and the steps a job goes through. pipeline.c runs the
 * workers and recovery; build_job.c carries out one build; build_steps.c
 * holds the generator-specific steps (Sphinx, MkDocs, Markdown, formats).
 */
#ifndef LECTERN_PIPELINE_INTERNAL_H
#define LECTERN_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

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
	char *error;      /* why the build failed; NULL while it goes well */
	int cancelled;    /* the build was cancelled: stop at once */
	const struct lec__job_sink *sink; /* a preview's log; NULL: recorded */
	const char *doctrees;     /* Sphinx's -d; NULL: _build/doctrees */
	const char *readonly_dir; /* bound read-only in the sandbox */
	int html_only;            /* no htmlzip/PDF/EPUB (a preview) */
};

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

/* Fail the job with a message (the first failure wins). Returns -1. */
int lec__job_fail(struct lec__job *job, const char *fmt, ...)
	LEC__PRINTF(2, 3);

/* Commands. A recorded command shows `display` in the build's log; an
 * internal one (done in-process) gets its output from the step itself. */
int lec__job_run(struct lec__job *job, const char *display,
		 const char *const *argv, const char *cwd, int network);
int lec__job_record_start(struct lec__job *job, const char *display,
			  int64_t *id);
void lec__job_record_text(struct lec__job *job, int64_t id, const char *text);
void lec__job_record_finish(struct lec__job *job, int64_t id, int exit_code);
/* A note in the log: a finished pseudo-command with its text as output. */
void lec__job_note(struct lec__job *job, const char *display,
		   const char *text);
/* `cat <relpath>` in the log, with the file's text (capped). */
void lec__job_note_file(struct lec__job *job, const char *relpath);
/* Read the checkout's .readthedocs.yaml into job->config (NULL without
 * one), recorded as a "cat" command; yaml_path is the project's
 * readthedocs_yaml_path or NULL for the default. -1 fails the job. */
int lec__job_read_config(struct lec__job *job, const char *yaml_path);
/* Run each user command of a build.jobs hook (sh -c, checkout root). */
int lec__job_hook(struct lec__job *job, enum lec_rtd_job hook);

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

/* Paths: "<a>/<b>", owned by the caller. */
char *lec__path_join(const char *a, const char *b);
/* mkdir -p with mode 0700. */
int lec__mkdirs(const char *path);
/* rm -rf, never following symlinks out of the tree. */
int lec__remove_tree(const char *path);

#endif
