/*
 * What runner.c (running a command and watching it) shares with
 * runner_args.c (the sandbox as bubblewrap's command line): the fds the
 * child sets up, which bubblewrap's arguments name; where mounts are
 * staged; and the vectors of strings an argv and an envp are built in.
 */
#ifndef LECTERN_RUNNER_INTERNAL_H
#define LECTERN_RUNNER_INTERNAL_H

#include <stddef.h>

#include "lectern/runner.h"

/* PATH of the unsandboxed lookup when the environment has none (the POSIX
 * default of execvp). */
#define LEC_RUNNER__DEFAULT_PATH "/usr/bin:/bin"

/* Mounts one spec may ask for: a build binds its directory, a venv, a few
 * configuration files; the child stages them in a fixed-size array. */
#define LEC_RUNNER__MAX_MOUNTS 16

/* Where the root child stages the mounts' sources (a tmpfs over it, in a
 * mount namespace of the child's own) for the unprivileged bubblewrap. */
#define LEC_RUNNER__STAGE_DIR "/tmp"

/* The fds the child sets up before exec: 0 /dev/null, 1 and 2 the output
 * pipe, then these. Anything above is closed. */
#define LEC_RUNNER__STATUS_FD 3 /* close-on-exec: exec's errno if it fails */
#define LEC_RUNNER__INFO_FD 4   /* bubblewrap's --info-fd */
#define LEC_RUNNER__INFO_FD_TEXT "4"
#define LEC_RUNNER__PASSWD_FD 5 /* the synthetic /etc/passwd, to its end */
#define LEC_RUNNER__PASSWD_FD_TEXT "5"
#define LEC_RUNNER__GROUP_FD 6  /* the synthetic /etc/group */
#define LEC_RUNNER__GROUP_FD_TEXT "6"
#define LEC_RUNNER__EGRESS_FD LEC_RUNNER_EGRESS_FD /* the egress socket */

/* bubblewrap's path (runner_args.c); a variable only so that the tests
 * can point it at a missing file to see lec_runner_sandbox_available say
 * no. */
extern const char *lec_runner__bwrap_path;

/* A NULL-terminated vector of owned strings (an argv or an envp). */
struct lec_runner__strvec {
	char **items;
	size_t len, cap;
};

/* Room for one more string and the NULL after it (so an empty vector is a
 * real, NULL-terminated one too). */
int lec_runner__strvec_reserve(struct lec_runner__strvec *v);
int lec_runner__strvec_push(struct lec_runner__strvec *v, const char *s);
/* Each of a NULL-terminated list (NULL: none). */
int lec_runner__push_all(struct lec_runner__strvec *v,
			 const char *const *strings);
void lec_runner__strvec_dispose(struct lec_runner__strvec *v);

/* A spec fit to run: LEC_EINVALID, or LEC_ENOTFOUND for a mount that is
 * not there, with a message. */
int lec_runner__check_spec(const struct lec_runner_spec *spec);
/* bubblewrap's command line for spec into v; staged: the mounts' sources
 * are at their staged names (a root parent staged them). */
int lec_runner__bwrap_args(const struct lec_runner_spec *spec,
			   const struct lec_runner_limits *limits, int staged,
			   struct lec_runner__strvec *v);
/* Unsandboxed: argv[0] found on the command's own PATH; *path owned. */
int lec_runner__resolve_command(const char *name, const char *const *env,
				char **path);

#endif
