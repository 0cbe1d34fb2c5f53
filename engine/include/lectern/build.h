/*
 * Builds of a project's versions and the commands each build ran.
 *
 * A build moves forward through the states of behaviour notes §5.1:
 * triggered -> cloning -> installing -> building -> uploading -> finished,
 * and any state that is not final may end in cancelled. Triggering a build
 * cancels the version's other unfinished builds (§5.2). Workers take builds
 * from the queue with lec_build_claim, which hands each triggered build to
 * exactly one worker even across processes, one build per project at a
 * time, round-robin across the projects' owners.
 *
 * Times are microseconds since the epoch (UTC). Per the decision table,
 * `finished` is the real finish time and `error` is a message whenever a
 * build did not succeed (NULL otherwise).
 *
 * A command's output is appended in the database as it arrives, so readers
 * (the API, the UI) see a running command's output; it is capped at
 * LEC_BUILD_OUTPUT_MAX bytes per command and LEC_BUILD_LOG_MAX per build.
 * Readers take a build's log a piece at a time (lec_build_command_list
 * leaves the outputs out, lec_build_command_read reads them), so that no
 * reader holds a whole log.
 */
#ifndef LECTERN_BUILD_H
#define LECTERN_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"
#include "lectern/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The service's column size for a commit. */
#define LEC_BUILD_COMMIT_MAX 255

/* Bytes of output kept per command: a runaway command (a loop printing
 * forever) must not fill the disk, and no useful build log is this long. */
#define LEC_BUILD_OUTPUT_MAX (4 * 1024 * 1024)

/* Bytes of output kept per build, its commands' together: a build of many
 * commands, each below LEC_BUILD_OUTPUT_MAX, must not fill the disk
 * either (25 commands of 4 MB each grew the store by 102.5 MB, issue
 * 36), and the TUI and the CLI read a log whole. A large Sphinx
 * project's log, warnings and all, is a few MB. */
#define LEC_BUILD_LOG_MAX (16 * 1024 * 1024)

/* What ends a command's output when some of it was not kept, appended
 * once, when the command ends: printf formats of the cap reached and of
 * how much was cut, as lec_build_size_text writes them ("a command keeps
 * 4 MiB of output; 3.2 MiB more cut"). The notices are kept past the
 * caps: a build's log holds at most LEC_BUILD_LOG_MAX bytes of output and
 * a notice per command cut. */
#define LEC_BUILD_CUT_COMMAND                                                \
	"\n[output truncated: a command keeps %s of output; %s more cut]\n"
#define LEC_BUILD_CUT_BUILD                                                  \
	"\n[output truncated: a build keeps %s of output; %s more cut]\n"

/* Room for lec_build_size_text's figure, its NUL included. */
#define LEC_BUILD_SIZE_TEXT_MAX 32

/* The error of a cancelled build, and of one a newer trigger cancelled. */
#define LEC_BUILD_ERROR_CANCELLED "This build was cancelled."
#define LEC_BUILD_ERROR_SUPERSEDED                                           \
	"This build was cancelled because a newer build of the same "        \
	"version was triggered."

/* Why a finished build failed, as the pipeline knew it when it failed it
 * (lec_build_fail): what its notification says follows from this. */
enum lec_build_failure {
	LEC_BUILD_FAILURE_NONE,     /* it passed, or has not finished */
	LEC_BUILD_FAILURE_GENERIC,  /* a command failed, a limit was hit... */
	LEC_BUILD_FAILURE_CONFIG,   /* the project's configuration is wrong */
	LEC_BUILD_FAILURE_NO_INDEX, /* the HTML output has no index.html */
	/* $READTHEDOCS_OUTPUT/<pdf|epub|htmlzip> is not a directory, or
	 * holds no file, or more than one */
	LEC_BUILD_FAILURE_OUTPUT_NOT_DIR,
	LEC_BUILD_FAILURE_OUTPUT_EMPTY,
	LEC_BUILD_FAILURE_OUTPUT_MULTIPLE,
	/* A command exited with LEC_BUILD_EXIT_SKIP: the build ends
	 * cancelled, its version's docs as they were (lec_build_fail) */
	LEC_BUILD_FAILURE_SKIPPED
};

/* The exit code with which a build's command skips the build (the
 * service's RTD_SKIP_BUILD_EXIT_CODE), and what the build then says. */
#define LEC_BUILD_EXIT_SKIP 183
#define LEC_BUILD_ERROR_SKIPPED                                              \
	"This build was skipped because one of the commands exited with "    \
	"code 183."

enum lec_build_state {
	LEC_BUILD_STATE_TRIGGERED,
	LEC_BUILD_STATE_CLONING,
	LEC_BUILD_STATE_INSTALLING,
	LEC_BUILD_STATE_BUILDING,
	LEC_BUILD_STATE_UPLOADING,
	LEC_BUILD_STATE_FINISHED,
	LEC_BUILD_STATE_CANCELLED
};

struct lec_build {
	int64_t id;
	int64_t project_id;
	int64_t version_id; /* 0 when the version was deleted */
	char *type;         /* "html" */
	enum lec_build_state state;
	int success; /* 1 until the build fails or is cancelled */
	char *error; /* why it did not succeed; NULL when none */
	char *commit; /* NULL when not known yet */
	int64_t created;  /* trigger time */
	int64_t started;  /* when it left `triggered`; 0 before */
	int64_t finished; /* when it ended; 0 before */
	int64_t duration; /* whole seconds from start to end; -1 before */
	char *config; /* the build's configuration as JSON text, or NULL */
	/* A Lectern extension: while the build fetches or checks out, how far
	 * it has got, as JSON text {"phase", "objects", "total", "bytes"};
	 * NULL otherwise. */
	char *progress;
	/* How it was started: NULL by hand (the API, CLI or TUI),
	 * "webhook:<forge>" by an incoming webhook, "commit" by a commit in
	 * a watched local repository. */
	char *triggered_by;
	enum lec_build_failure failure; /* NONE unless it finished failed */
	/* A Lectern extension: 1 when the trigger asked for a fresh build
	 * (no cache of earlier builds used); and what of the last build's
	 * work the build reused, as JSON text {"<cache>": {"reused": bool,
	 * "reason": text}}, or NULL (not built yet). */
	int fresh;
	char *cache;
	/* The hosted service's message for why it failed, when it has a
	 * specific one (a configuration error): JSON text {"id",
	 * "format_values"}, as lec_rtd_config_problem_json gives it; NULL
	 * otherwise. The build's notification is made from it. */
	char *failure_message;
};

LEC_PAGE_LIST(lec_build);

/* Filters of lec_build_list (the v3 query parameters). */
struct lec_build_filter {
	const char *commit; /* exact; NULL or "" = any */
	/* TRUE: states before finished/cancelled; FALSE: those two. */
	enum lec_filter_bool running;
	/* With project_id 0 in lec_build_list: the builds of every project
	 * this user administers (all of them for a superuser). */
	int64_t admin_user_id;
};

struct lec_build_command {
	int64_t id;
	int64_t build_id;
	char *command;
	char *description;
	char *output;      /* bytes as written (may be invalid UTF-8) */
	size_t output_len; /* bytes in output */
	int exit_code;      /* meaningful once end_time != 0 */
	int64_t start_time;
	int64_t end_time;   /* 0 while it runs */
	int64_t run_time;   /* whole seconds; -1 while it runs */
};

struct lec_build_command_list {
	struct lec_build_command *items; /* len items, owned by the list */
	size_t len;
};

/* States ------------------------------------------------------------------ */

/** The code of a state ("triggered", ...). @return a static string; NULL
 * for a value outside the enum */
const char *lec_build_state_code(enum lec_build_state state);

/** The display name of a state ("Triggered", ...). @return a static
 * string; NULL for a value outside the enum */
const char *lec_build_state_name(enum lec_build_state state);

/** The state a code names. @return LEC_OK or LEC_EINVALID */
int lec_build_state_parse(const char *code, enum lec_build_state *out);

/** Whether a state is final (finished or cancelled). @return 1 or 0 */
int lec_build_state_final(enum lec_build_state state);

/* Builds ------------------------------------------------------------------ */

/**
 * Trigger a build of a version: a new build in state triggered. In the same
 * transaction every unfinished build of the version is cancelled (error
 * LEC_BUILD_ERROR_SUPERSEDED). An external version without a commit given
 * reuses the commit of its last build.
 * @param commit    the commit to build, or NULL for the version's head
 * @param out       the new build (owned by caller, lec_build_free), or NULL
 * @param cancelled how many builds were cancelled, or NULL
 * @return LEC_OK; LEC_ENOTFOUND (no such version in the project);
 *         LEC_EINVALID (field "commit" too long)
 */
int lec_build_trigger(struct lec_store *store, int64_t project_id,
		      int64_t version_id, const char *commit,
		      struct lec_build **out, size_t *cancelled);

/** lec_build_trigger of a build that uses nothing earlier builds kept
 * (the service's "wipe", as one build): the checkout, the environment and
 * the generators' state are made afresh. */
int lec_build_trigger_fresh(struct lec_store *store, int64_t project_id,
			    int64_t version_id, const char *commit,
			    struct lec_build **out, size_t *cancelled);

/** A build by id. @param out owned by caller (lec_build_free)
 * @return LEC_OK or LEC_ENOTFOUND */
int lec_build_get(struct lec_store *store, int64_t id, struct lec_build **out);

/** A build by id, only if it belongs to the project.
 * @return LEC_OK or LEC_ENOTFOUND */
int lec_build_get_in_project(struct lec_store *store, int64_t project_id,
			     int64_t id, struct lec_build **out);

/**
 * A project's builds, newest first; with project_id 0, those of the
 * projects filter->admin_user_id administers (no filter or no user: none).
 * @param version_id only this version's builds, or 0 for all
 * @param filter     NULL for all
 * @param page       NULL for all rows
 * @param out        filled on success; dispose with lec_build_list_dispose
 */
int lec_build_list(struct lec_store *store, int64_t project_id,
		   int64_t version_id, const struct lec_build_filter *filter,
		   const struct lec_page *page, struct lec_build_list *out);

/**
 * The builds an anonymous reader may see, across every project (the v2
 * API's list): those of a version lec_version_list_public shows (a build
 * whose version was deleted is not among them), newest first.
 * @param project_slug only the project with this slug; NULL for all
 * @param commit       only builds of this commit (exact); NULL for all
 * @param page         NULL for all rows
 * @param out          filled on success; dispose with lec_build_list_dispose
 */
int lec_build_list_public(struct lec_store *store, const char *project_slug,
			  const char *commit, const struct lec_page *page,
			  struct lec_build_list *out);

/**
 * A triggered build's place in the queue: 1 + the triggered builds of the
 * instance created before it. The workers' fair order (lec_build_claim)
 * may take another owner's later build first, so this is the builds
 * ahead of it by age, what a person waiting can read.
 * @param out 0 for a build that is not waiting
 * @return LEC_OK or a store error
 */
int lec_build_queue_position(struct lec_store *store, const struct lec_build *b,
			     int64_t *out);

/* What lec_build_activity tells. */
struct lec_build_activity {
	int64_t newest;     /* the newest build's id; 0: none */
	int64_t unfinished; /* builds waiting or running, on the instance */
};

/**
 * The instance's builds in two numbers that move when a build is created,
 * removed, ends or goes back in the queue: what a client watching lists
 * of builds asks, cheaply, before asking for the lists again (a running
 * build's own steps it follows by asking for the build).
 * @return LEC_OK or a store error
 */
int lec_build_activity(struct lec_store *store,
		       struct lec_build_activity *out);

/**
 * The builds of the whole instance that have not ended: waiting for a
 * worker (triggered) and running (any later state but finished or
 * cancelled), for an instance's status.
 * @return LEC_OK or a store error
 */
int lec_build_unfinished(struct lec_store *store, int64_t *waiting,
			 int64_t *running);

/**
 * Whose queue a project's builds join: the owner lec_build_claim serves
 * them as, its maintainer with the lowest id (the oldest account).
 * @param out the owner's user id; 0 when the project has no maintainer
 * @return LEC_OK or a store error
 */
int lec_build_owner(struct lec_store *store, int64_t project_id,
		    int64_t *out);

/**
 * The builds of an owner's projects that wait to start (triggered),
 * leaving out those of version skip_version_id (0: none), which a new
 * trigger of that version would supersede: the owner's queue after that
 * trigger, less the new build. What a per-owner cap on the queue reads.
 * @return LEC_OK or a store error
 */
int lec_build_queued(struct lec_store *store, int64_t owner_id,
		     int64_t skip_version_id, size_t *out);

/**
 * Move a build to a later state. Leaving triggered records `started`.
 * Moving to cancelled is lec_build_cancel; moving to finished ends the build
 * keeping its success and error (see lec_build_finish).
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID when the move is not forward
 *         (the message names both states)
 */
int lec_build_set_state(struct lec_store *store, int64_t id,
			enum lec_build_state state);

/**
 * End a build: records `finished` now and `duration` (seconds since
 * `started`, 0 if it never started). The state becomes finished, with
 * success and error (error is dropped when success); a cancelled build
 * stays cancelled and unsuccessful and only gets its real finish time. A
 * successful build marks its version built.
 * @param error why it failed, or NULL
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (already finished)
 */
int lec_build_finish(struct lec_store *store, int64_t id, int success,
		     const char *error);

/**
 * lec_build_finish of a failed build, saying why it failed (a generic
 * failure is what lec_build_finish records). A skipped build
 * (LEC_BUILD_FAILURE_SKIPPED) ends cancelled instead of finished.
 */
int lec_build_fail(struct lec_store *store, int64_t id,
		   enum lec_build_failure why, const char *error);

/**
 * lec_build_fail with the service's message for the failure (see
 * lec_build.failure_message; NULL: none), copied.
 */
int lec_build_fail_message(struct lec_store *store, int64_t id,
			   enum lec_build_failure why, const char *error,
			   const char *message);

/**
 * Cancel an unfinished build: state cancelled, success 0, error
 * LEC_BUILD_ERROR_CANCELLED, finished now. A worker running it sees the
 * state and stops; its lec_build_finish keeps the build cancelled.
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (already finished/cancelled)
 */
int lec_build_cancel(struct lec_store *store, int64_t id);

/**
 * Put an unfinished build back to triggered, as the service does when a
 * build's task (re)starts: success 1, no error, no start or end, and its
 * commands deleted. The build is then in the queue again.
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (already final)
 */
int lec_build_reset(struct lec_store *store, int64_t id);

/** Record the commit a build checked out (NULL clears it).
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (field "commit") */
int lec_build_set_commit(struct lec_store *store, int64_t id,
			 const char *commit);

/** Record how a build was started (see struct lec_build.triggered_by).
 * @return LEC_OK; LEC_ENOTFOUND */
int lec_build_set_triggered_by(struct lec_store *store, int64_t id,
			       const char *how);

/** Record how far a running build's fetch or checkout has got: JSON text
 * (see struct lec_build.progress), or NULL to clear it. Called a few times
 * a second at most. @return LEC_OK; LEC_ENOTFOUND */
int lec_build_set_progress(struct lec_store *store, int64_t id,
			   const char *json);

/** Record what the build reused of earlier builds' work (see struct
 * lec_build.cache): JSON text, or NULL. @return LEC_OK; LEC_ENOTFOUND */
int lec_build_set_cache(struct lec_store *store, int64_t id,
			const char *json);

/** Record the build's configuration, a JSON object (NULL clears it).
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (field "config": not a JSON
 *         object) */
int lec_build_set_config(struct lec_store *store, int64_t id,
			 const char *json);

/** The oldest triggered build, without taking it.
 * @return LEC_OK or LEC_ENOTFOUND (the queue is empty) */
int lec_build_next(struct lec_store *store, struct lec_build **out);

/**
 * Take a triggered build for a worker: it moves to cloning (and `started`
 * is recorded) atomically, so no two workers, in any process, take the
 * same build. The worker holds it until its lec_build_finish, and until
 * then no other build of the project is handed out. The queue goes round
 * the projects' owners (the maintainer with the lowest id): the owner
 * holding the fewest builds, then the one served longest ago, then that
 * owner's oldest build, so one owner's builds delay another's by at most
 * one build.
 * @param out the claimed build, owned by caller (lec_build_free)
 * @return LEC_OK or LEC_ENOTFOUND (nothing waits whose project is free)
 */
int lec_build_claim(struct lec_store *store, struct lec_build **out);

/** Free a build. Accepts NULL. */
void lec_build_free(struct lec_build *build);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_build_list_dispose(struct lec_build_list *list);

/* Commands ---------------------------------------------------------------- */

/**
 * Record that a build started a command (now, no exit code yet).
 * @param description shown instead of the command when not empty; NULL = ""
 * @param id          the command's id
 * @return LEC_OK; LEC_ENOTFOUND (no such build); LEC_EINVALID (empty
 *         command, or the build is finished or cancelled)
 */
int lec_build_command_start(struct lec_store *store, int64_t build_id,
			    const char *command, const char *description,
			    int64_t *id);

/**
 * Append output to a running command. Output past LEC_BUILD_OUTPUT_MAX
 * bytes for the command, or LEC_BUILD_LOG_MAX for its build, is not kept
 * (the cut falls at a UTF-8 character boundary) but counted; once cut, a
 * command keeps nothing more, and its end appends how much was cut
 * (LEC_BUILD_CUT_COMMAND or LEC_BUILD_CUT_BUILD).
 * @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID (the command has ended)
 */
int lec_build_command_append(struct lec_store *store, int64_t id,
			     const char *bytes, size_t len);

/** Record a command's end, and what of its output was cut (see
 * lec_build_command_append). @return LEC_OK; LEC_ENOTFOUND; LEC_EINVALID
 * (it had already ended) */
int lec_build_command_finish(struct lec_store *store, int64_t id,
			     int exit_code);

/** A command by id, its whole output included (at most
 * LEC_BUILD_OUTPUT_MAX bytes and a notice).
 * @param out owned by caller (lec_build_command_free) */
int lec_build_command_get(struct lec_store *store, int64_t id,
			  struct lec_build_command **out);

/** A build's commands in the order they started, without their output:
 * output is NULL, output_len the bytes it holds (lec_build_command_read
 * reads them). */
int lec_build_command_list(struct lec_store *store, int64_t build_id,
			   struct lec_build_command_list *out);

/**
 * Read bytes of a command's output from offset: up to cap of them into
 * buf, fewer at its end (*n 0 past it). c names the command as a listing
 * gave it: the read is refused once its record is gone (no other command
 * ever takes its id). A running command's output only grows, so its
 * first output_len bytes stay what they were when c was read.
 * @return LEC_OK; LEC_ENOTFOUND (the command is gone)
 */
int lec_build_command_read(struct lec_store *store,
			   const struct lec_build_command *c, size_t offset,
			   char *buf, size_t cap, size_t *n);

/** A size for people: "512 bytes", "3.2 KiB", "4 MiB", "1.5 GiB" (one
 * decimal, none when it is 0). @param out LEC_BUILD_SIZE_TEXT_MAX bytes */
void lec_build_size_text(uint64_t bytes, char *out);

/** Free a command. Accepts NULL. */
void lec_build_command_free(struct lec_build_command *command);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_build_command_list_dispose(struct lec_build_command_list *list);

#ifdef __cplusplus
}
#endif
#endif
