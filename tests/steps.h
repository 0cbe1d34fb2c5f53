/*
 * The step harness: a build's job (engine/src/job.h) on a fresh data
 * directory and store, with a project, its version "latest", a build and
 * a checkout, whose sink records every command a step starts (its
 * display, argv, cwd, environment, mounts, network, output, exit code)
 * and answers in the sandbox's place, as the test says. Tests of the
 * pipeline's middle (the fetch, the kept tree, the install step, the
 * generators) run the steps' own functions with it: no sandbox, no
 * network, no Python, in milliseconds.
 */
#ifndef LECTERN_TEST_STEPS_H
#define LECTERN_TEST_STEPS_H

#include "job.h"

/* Commands one test records at most, and the mounts of one. */
#define LEC_STEPS_MAX_CMDS 64
#define LEC_STEPS_MAX_MOUNTS 16

/* One command as the harness saw it; strings owned by the harness. */
struct lec_steps_cmd {
	char *display;  /* what the log shows; NULL: run without a record */
	char *argv;     /* the argv joined with spaces; NULL: not run */
	char *cwd;
	char **env;     /* NULL-terminated copy */
	struct lec_runner_mount mounts[LEC_STEPS_MAX_MOUNTS]; /* paths owned */
	size_t nmounts;
	int network;    /* LEC_RUNNER_NET_* */
	char *output;   /* what the log got, after masking ("" none) */
	int exit_code;  /* the record's; -1 while open */
};

struct lec_steps;
/* How a command run through the harness ends: write its output with
 * out(data, len, out_payload), fill *result; 0, or < 0 for a command that
 * could not start. The default exits 0 without output. */
typedef int (*lec_steps_answer)(struct lec_steps *s, const char *const *argv,
				lec_runner_output_cb out, void *out_payload,
				struct lec_runner_result *result);

struct lec_steps {
	char *data_dir;  /* the temporary data directory (owned) */
	struct lec__build_env env;
	struct lec_store *st;
	struct lec__job job;
	struct lec__job_sink sink;
	lec_steps_answer answer;
	void *data;      /* the test's, for its answer */
	struct lec_steps_cmd cmds[LEC_STEPS_MAX_CMDS];
	size_t ncmds;
};

/* Set s up: the data directory, store, project slug (language en), its
 * version "latest" (branch main), a triggered build, the paths a build
 * has (build_dir, the kept checkout and its manifest, output, mirror),
 * the command environment, and .readthedocs.yaml when yaml is not NULL
 * (read into job.config). Fails the test on any error. */
void lec_steps_init(struct lec_steps *s, const char *slug, const char *yaml);
void lec_steps_dispose(struct lec_steps *s);
/* Write text to the checkout's rel, making its directories. */
void lec_steps_put(struct lec_steps *s, const char *rel, const char *text);
/* Forget the commands recorded so far. */
void lec_steps_clear(struct lec_steps *s);
/* The first command whose argv (or, not run, display) contains needle
 * from index *from on (NULL: 0); *from is then past it. NULL: none. */
const struct lec_steps_cmd *lec_steps_find(const struct lec_steps *s,
					   const char *needle, size_t *from);
/* The value of NAME=... in cmd's environment, or NULL. */
const char *lec_steps_env(const struct lec_steps_cmd *cmd, const char *name);
/* The displays of the commands, one a line: what the log lists. Owned by
 * the caller (free()). */
char *lec_steps_displays(const struct lec_steps *s);

#endif
