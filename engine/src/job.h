/*
 * The job services: one build in progress (a job) and what every step of
 * it uses, failing it, cancellation, running and recording commands in the
 * sandbox, its commands' environment, reading its configuration (job.c),
 * and finding a failed command's cause in its output (build_cause.c). A
 * floor below the steps (fetch, install, generators, publish) and above
 * the build environment (buildenv.h): the steps call down into it, and it
 * calls no step.
 */
#ifndef LECTERN_JOB_H
#define LECTERN_JOB_H

#include <stdint.h>

#include "build_warm.h"
#include "build_warnings.h"
#include "buildenv.h"
#include "files.h"
#include "internal.h"
#include "lectern/build.h"
#include "lectern/egress.h"
#include "lectern/envvar.h"
#include "lectern/project.h"
#include "lectern/rtdconfig.h"
#include "lectern/runner.h"
#include "lectern/store.h"
#include "lectern/version.h"

/* Where a job with no build record (a preview, preview.c) sends its log,
 * and how it learns that it should stop. Called on the job's thread. */
struct lec__job_sink {
	void (*start)(void *payload, const char *display); /* a command */
	void (*text)(void *payload, const char *data, size_t len);
	void (*finish)(void *payload, int exit_code);
	int (*cancelled)(void *payload); /* non-zero: stop the build */
	void *payload;
	/* A step harness (the engine's unit tests of the steps): each
	 * command goes here instead of the runner, with the spec the runner
	 * would get (argv, cwd, environment, mounts; LEC_RUNNER_NET_EGRESS
	 * for a command with network, no proxy started), and writes its
	 * output through out and its end into *result as lec_runner_run
	 * does. NULL: the runner. */
	int (*run)(void *payload, const struct lec_runner_spec *spec,
		   lec_runner_output_cb out, void *out_payload,
		   struct lec_runner_result *result);
};

/* Longest phrase lec__job_listen searches output for. */
#define LEC__LISTEN_MAX 64
/* Caches one build reports on (checkout, python, generator state...). */
#define LEC__JOB_CACHES 8
/* Parts of a cache key (build_cache.c). */
#define LEC__CACHE_KEY_PARTS 16
struct lec__cache_key {
	struct lec__cache_part {
		char label[96];
		char value[80];
		int version; /* a version ("A 1 → 2"), else a hash ("A changed") */
	} parts[LEC__CACHE_KEY_PARTS];
	size_t n;
};

/* One build in progress. A preview (sink set) has no store, build,
 * version or repo cache: only the fields the generator steps read. */
struct lec__job {
	struct lec__build_env *env; /* the settings and the stop flag */
	struct lec_store *st;
	struct lec_build *build;
	struct lec_project *project;
	struct lec_version *version;
	char *build_dir;  /* builds/<id> */
	char *checkout;   /* checkouts/<project>/<version>, kept */
	char *tree_manifest; /* what the last checkout wrote (build_tree.c) */
	char *output;     /* checkout/_readthedocs */
	char *repo_cache;     /* repos/<project>.git */
	char *commit;
	char *git_identifier; /* branch or tag name the version follows */
	struct lec_rtd_config *config; /* NULL: no .readthedocs.yaml */
	enum lec_doctype doctype; /* what the build produced, for the version */
	struct lec_envvar_values vars;
	char **cmd_env;   /* NULL-terminated "K=V" for build commands */
	const char **secrets; /* NULL-terminated values to mask */
	char **encoded;       /* the URL-encoded secrets (owned) */
	size_t nencoded;
	char *error;      /* why the build failed; NULL while it goes well */
	enum lec_build_failure failure; /* its kind, with error */
	/* The hosted service's message for it (a configuration error), JSON
	 * as lec_rtd_config_problem_json gives it; NULL: none. */
	char *failure_message;
	/* What the hosted service refuses that Lectern builds anyway (no
	 * .readthedocs.yaml), as one line of text; NULL: nothing. */
	char *service_refuses;
	int cancelled;    /* the build was cancelled: stop at once */
	const struct lec__job_sink *sink; /* a preview's log; NULL: recorded */
	const char *doctrees;     /* Sphinx's -d; NULL: _build/doctrees */
	const char *mdsite_state; /* a preview's Markdown state, or NULL */
	int html_only;            /* no htmlzip/PDF/EPUB (a preview) */
	int64_t deadline_ms;      /* monotonic end of the time limit; 0: none */
	char *venv_root;  /* python/<project>/<version>: venv and wheelhouse */
	char *venv;       /* venv_root/venv once made; NULL: none */
	char *venv_python; /* venv/bin/python, or NULL */
	const char *python; /* what generators run with: venv_python or the
			       environment's (NULL: env->python) */
	/* What the checkout changed since the last build's (build_tree.c):
	 * lec_repo_change letters seen, as bits (1 << (letter - 'A')); all
	 * set when the tree was checked out afresh. */
	unsigned long changes;
	char venv_stamp[24]; /* what the venv was made from, hex; "" none */
	char *venv_stamp_file; /* where it is written once installed */
	uint64_t venv_inputs;  /* the same, for the stamp */
	int venv_kept;         /* the venv was kept: requirements installed */
	/* A phrase the next commands' output is searched for (a generator
	 * saying it dropped its kept state), and whether it came. */
	struct lec__listen {
		const char *phrase; /* at most LEC__LISTEN_MAX bytes */
		int heard;
		char carry[LEC__LISTEN_MAX]; /* the output's last bytes */
		size_t ncarry;
	} listen;
	int keep_html;       /* _readthedocs/html stays for the next build */
	/* The generator state's key, saved at state_record (owned) once the
	 * build has passed, forgotten otherwise. */
	char *state_record;
	struct lec__cache_key state_key;
	/* Each cache the build could use, whether it was, and why not. */
	struct lec__cache_note {
		const char *name; /* "checkout", "python", "doctrees"... */
		int reused;
		char reason[160];
		/* A generator's: how it wrote the pages (build_warm.h's
		 * writers, -1 unsaid; serial: why not in parallel). */
		int writers;
		char serial[120];
	} cache[LEC__JOB_CACHES];
	size_t ncache;
	/* The build's warnings (build_warnings.h): the records found so
	 * far; the generator output being read into them while its command
	 * runs (NULL otherwise); and whether none are looked for (the
	 * benchmark's baseline). */
	struct lec_warning_set warnings;
	struct lec__warn_parser *warn_parser;
	int warnings_off;
	/* An incremental Sphinx build's warnings (build_carry.c): where the
	 * kept state is (beside the version's tree, or in a preview's
	 * cache; owned), the last passed build's, which this one carries
	 * over from (sphinx_prev_ok: loaded), the run's trace, and what
	 * this build leaves the next once it passes (sphinx_next_ok:
	 * complete), saved by lec__job_sphinx_keep. */
	char *sphinx_kept_path;
	struct lec__sphinx_kept sphinx_prev, sphinx_next;
	int sphinx_prev_ok, sphinx_next_ok;
	struct lec__sphinx_trace sphinx_trace;
};

/* Most mounts one command gets: the build directory, the kept tree and
 * its repo cache, the venv, and what its step adds (pip's configuration files
 * and find-links directories); a command with network also gets the
 * lectern program, its forwarder. */
#define LEC__JOB_MAX_MOUNTS 13

/* What one command sees beyond the build directory, when it is not the
 * default of lec__job_run. */
struct lec__job_sandbox {
	const struct lec_runner_mount *mounts; /* added after the venv */
	size_t nmounts;
	const char *const *env; /* NULL: the job's */
	/* 1: the network, through an egress proxy of the command's own
	 * (egress.h), which allows public addresses and egress_rule's. */
	int network;
	const struct lec_netrule *egress_rule; /* NULL: public ones only */
	int venv_writable;      /* the install step writes the venv */
	/* 1: a command that exits non-zero is recorded as failed but does
	 * not fail the build (lec__job_run_in returns 1). */
	int soft;
	/* Non-NULL: said after the cause when the command fails the build
	 * (what was available, and how to give more). */
	const char *hint;
	/* Non-NULL: run the command through the version's warm generator
	 * (build_warm.h) when the environment keeps them, noting whether it
	 * was reused as the "generator" cache; cold when none can. */
	const struct lec__warm_request *warm;
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


/* Whether the configuration names build.jobs.<which> (even as an empty
 * list): for create_environment, install and build.<format>, the
 * project's commands then replace Lectern's step (notes §5.4). */
int lec__job_overrides(const struct lec__job *job, enum lec_rtd_job which);
/* The Python generators run with: the project's venv, or the pipeline's. */
const char *lec__job_python(const struct lec__job *job);
/* $READTHEDOCS_VIRTUALENV_PATH: DATA/python/<project>/venvs/<version>,
 * whether or not a venv is there. Owned; NULL when out of memory. */
char *lec__job_venv_dir(const struct lec__job *job);
/* A command's environment: a NULL-terminated vector of owned "KEY=VALUE"
 * strings, *n of them. take appends an owned entry (NULL: out of memory,
 * reported); add formats one (value NULL: empty); free takes NULL. */
int lec__env_take(char ***env, size_t *n, char *entry);
int lec__env_add(char ***env, size_t *n, const char *name, const char *value);
void lec__env_free(char **env);
/* Free what a job owns, everything but its build (the caller's); its
 * build directory on disk is left where it is. */
void lec__job_dispose(struct lec__job *job);
/* Whether the build was cancelled or Lectern is stopping (asked while
 * commands run; the store is read). */
int lec__job_cancelled(struct lec__job *job);
/* How the log, a preview and `lectern check` begin what the hosted
 * service refuses that Lectern builds anyway (lec__job.service_refuses). */
#define LEC__SERVICE_REFUSES "the hosted service refuses this: "

/* Fail the job with a message (the first failure wins), saying what kind
 * of failure it is: the build's notification follows from it. Returns
 * LEC_ERROR, the job's error (the first failure's) left as the thread's
 * message. */
int lec__job_fail_as(struct lec__job *job, enum lec_build_failure why,
		     const char *fmt, ...) LEC__PRINTF(3, 4);
/* lec__job_fail(job, fmt, ...): the same, a LEC_BUILD_FAILURE_GENERIC. */
#define lec__job_fail(job, ...)                                              \
	lec__job_fail_as((job), LEC_BUILD_FAILURE_GENERIC, __VA_ARGS__)

/* Run a command of job's as lec_runner_run does, or through its sink's
 * step harness; job NULL (a version sync's fetch): the runner. */
int lec__job_runner(struct lec__job *job, const struct lec_runner_spec *spec,
		    lec_runner_output_cb out, lec_runner_cancel_cb cancel,
		    void *payload, struct lec_runner_result *result);
/* Commands. A recorded command shows `display` in the build's log; an
 * internal one (done in-process) gets its output from the step itself.
 * LEC_OK; LEC_ERROR when the command failed the job or the job was
 * cancelled; 1 for a soft command that exited non-zero. */
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
/* Whether every component of rel (relative to base, the build directory
 * or the checkout) is a real directory, not a link a build made: 1 yes, 0
 * one is missing, LEC_ERROR the job failed (one is a link or a file). Only
 * race-free once no process of the build runs, which is when the pipeline
 * reads or moves what a build wrote. */
int lec__job_real_dirs(struct lec__job *job, const char *base,
		       const char *rel);
/* `cat <relpath>` in the log, with the file's text (capped). */
void lec__job_note_file(struct lec__job *job, const char *relpath);
/* Read the checkout's .readthedocs.yaml into job->config (NULL without
 * one), recorded as a "cat" command; yaml_path is the project's
 * readthedocs_yaml_path or NULL for the default. LEC_OK, or LEC_ERROR
 * when it failed the job. */
int lec__job_read_config(struct lec__job *job, const char *yaml_path);
/* Run each user command of a build.jobs hook (sh -c, checkout root). */
int lec__job_hook(struct lec__job *job, enum lec_rtd_job hook);
/* Search the output of the commands that follow for phrase (static, at
 * most LEC__LISTEN_MAX bytes), across their chunks; job->listen.heard
 * says whether it came. */
void lec__job_listen(struct lec__job *job, const char *phrase);
/* Note whether the cache called name was reused (reused 1, fmt NULL) or
 * why not; a second note of the same name replaces the first. Returns
 * LEC_OK (the build goes on either way). */
int lec__job_cache_note(struct lec__job *job, const char *name, int reused,
			const char *fmt, ...) LEC__PRINTF(4, 5);
/* Add to name's note how its generator wrote the pages: writers in
 * parallel, or 0 serially for the reason serial. */
void lec__job_cache_writers(struct lec__job *job, const char *name,
			    int writers, const char *serial);
/* The notes as JSON, {"<name>": {"reused": bool[, "reason": text]
 * [, "parallel_write": writers or false, "parallel_write_reason":
 * text]}}; owned by the caller, NULL without notes. */
char *lec__job_cache_json(const struct lec__job *job);
/* Cache keys (build_cache.c): the named parts a kept cache depends on.
 * Add a part whose value is text: a version (its change reads "A 1 →
 * 2") or not ("A changed"); or the SHA-256 of the regular file rel
 * beneath dir (read as lec__read_in reads; "absent" when not there). */
void lec__cache_key_text(struct lec__cache_key *key, const char *label,
			 const char *value, int version);
void lec__cache_key_file(struct lec__cache_key *key, const char *dir,
			 const char *rel);
/* Whether key equals the one saved at path: 1, or 0 with the first part
 * that differs as the reason ("docs/conf.py changed", "Sphinx 5.3.0 →
 * 7.2.6", "no earlier build to reuse"). */
int lec__cache_key_check(const struct lec__cache_key *key, const char *path,
			 char *reason, size_t cap);
/* Whether now equals was: 1, or 0 with the first part that differs as
 * the reason, as lec__cache_key_check words it. */
int lec__cache_key_same(const struct lec__cache_key *was,
			const struct lec__cache_key *now, char *reason,
			size_t cap);
/* Save key at path (atomically), or forget the one there. */
int lec__cache_key_save(const struct lec__cache_key *key, const char *path);
void lec__cache_key_forget(const char *path);
/* The environment of the build's commands (notes §5.6) and the secrets
 * to mask in their output: job->env_vars, job->secrets. */
int lec__job_make_env(struct lec__job *job);

#endif
