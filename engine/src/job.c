/*
 * The job services (job.h): what every step of a build uses to do its
 * work, on a floor below the steps. Failing the build with its reason and
 * failure kind; cancellation; recording commands and notes with live,
 * masked output; running a command in the sandbox with the build's mounts,
 * limits and time left; the environment of the build's commands (notes
 * §5.6) and the secrets to mask; reading the configuration; and the
 * build.jobs hooks. The order of the steps is build_job.c's. A job's
 * sink may carry a step harness, which answers in the runner's place
 * (lec__job_runner): the engine's unit tests run the steps with it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "lectern/repo.h"
#include "lectern/resolve.h"
#include "store_internal.h"

/* Most bytes of a config file shown in the log's `cat` step. */
#define CAT_MAX (64 * 1024)

int lec__job_fail_as(struct lec__job *job, enum lec_build_failure why,
		     const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	if (job->error == NULL) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		job->error = lec__strdup(msg);
		job->failure = why;
	}
	/* The thread's message too, as any failed engine call leaves it,
	 * so that the step's caller can report lec_error_last(). The
	 * arguments may be lec_error_last() itself: the text is formatted
	 * into msg first, never from fmt into the thread's buffer. */
	return lec__error(LEC_ERROR, "%s", job->error ? job->error : msg);
}

/* Cancellation ------------------------------------------------------------ */

/* The build was cancelled (through the API or a newer trigger), or Lectern
 * is stopping. Polled while commands run. */
int lec__job_cancelled(struct lec__job *job)
{
	struct lec_build *now = NULL;

	if (job->cancelled)
		return 1;
	if (job->sink)
		return job->cancelled = job->sink->cancelled &&
					job->sink->cancelled(job->sink->payload);
	if (job->env && lec__build_env_stopping(job->env)) {
		lec__job_fail(job, "Lectern stopped while this build was "
				   "running; trigger it again.");
		return job->cancelled = 1;
	}
	if (lec_build_get(job->st, job->build->id, &now) == LEC_OK &&
	    now->state == LEC_BUILD_STATE_CANCELLED)
		job->cancelled = 1;
	lec_build_free(now);
	return job->cancelled;
}

/* Recording ----------------------------------------------------------------- */

int lec__job_record_start(struct lec__job *job, const char *display,
			  int64_t *id)
{
	int rc;

	if (job->sink) {
		job->sink->start(job->sink->payload, display);
		*id = 0;
		return LEC_OK;
	}
	rc = lec_build_command_start(job->st, job->build->id, display, "", id);

	/* A finished or cancelled build takes no more commands. */
	if (rc == LEC_EINVALID)
		job->cancelled = 1;
	return rc < 0 ? LEC_ERROR : LEC_OK;
}

/* Output masked already: into the command record, or to a preview's sink. */
static void emit(struct lec__job_output *o, const char *data, size_t len)
{
	if (o->job->sink)
		o->job->sink->text(o->job->sink->payload, data, len);
	else
		lec_build_command_append(o->job->st, o->id, data, len);
}

/* Output goes through the masker, so secret values never reach the log
 * even when split across chunks. */
static void append_masked(struct lec__job_output *o,
			  struct lec_runner_masker *m, const char *data,
			  size_t len)
{
	const char *out = NULL;
	size_t n = 0;

	if (lec_runner_masker_feed(m, data, len, &out, &n) == LEC_OK && n)
		emit(o, out, n);
}

static void flush_masked(struct lec__job_output *o,
			 struct lec_runner_masker *m)
{
	const char *out = NULL;
	size_t n = 0;

	lec_runner_masker_flush(m, &out, &n);
	if (n)
		emit(o, out, n);
}

void lec__job_record_text(struct lec__job *job, int64_t id, const char *text)
{
	struct lec__job_output o = { job, id };
	struct lec_runner_masker m;

	lec_runner_masker_init(&m, job->secrets);
	append_masked(&o, &m, text, strlen(text));
	flush_masked(&o, &m);
	lec_runner_masker_dispose(&m);
}

void lec__job_record_finish(struct lec__job *job, int64_t id, int exit_code)
{
	if (job->sink)
		job->sink->finish(job->sink->payload, exit_code);
	else
		lec_build_command_finish(job->st, id, exit_code);
}

void lec__job_note(struct lec__job *job, const char *display,
		   const char *text)
{
	int64_t id;

	if (lec__job_record_start(job, display, &id) < 0)
		return;
	lec__job_record_text(job, id, text);
	lec__job_record_finish(job, id, 0);
}

/* Running ------------------------------------------------------------------- */

struct run_state {
	struct lec__job_output out;
	struct lec_runner_masker masker;
	const struct lec__job_sandbox *sb;
	struct lec__tail tail; /* the output's end, for the failure's cause */
};

void lec__job_listen(struct lec__job *job, const char *phrase)
{
	memset(&job->listen, 0, sizeof(job->listen));
	if (phrase && strlen(phrase) <= LEC__LISTEN_MAX)
		job->listen.phrase = phrase;
}

/* Whether the phrase listened for is in data, or across the chunk before
 * and this one; keeps this chunk's end for the next. */
static void listen_to(struct lec__listen *l, const char *data, size_t len)
{
	size_t n, take;
	char joined[2 * LEC__LISTEN_MAX];

	if (l->phrase == NULL || l->heard)
		return;
	n = strlen(l->phrase);
	take = len < n ? len : n;
	memcpy(joined, l->carry, l->ncarry);
	memcpy(joined + l->ncarry, data, take);
	l->heard = memmem(joined, l->ncarry + take, l->phrase, n) != NULL ||
		   memmem(data, len, l->phrase, n) != NULL;
	/* Keep the last n - 1 bytes of what has come so far. */
	if (len >= n - 1) {
		l->ncarry = n - 1;
		memcpy(l->carry, data + len - l->ncarry, l->ncarry);
	} else {
		size_t keep = l->ncarry + len > n - 1 ? n - 1 - len : l->ncarry;

		memmove(l->carry, l->carry + l->ncarry - keep, keep);
		memcpy(l->carry + keep, data, len);
		l->ncarry = keep + len;
	}
}

static int run_output(const char *data, size_t len, void *payload)
{
	struct run_state *rs = payload;

	lec__tail_add(&rs->tail, data, len);
	listen_to(&rs->out.job->listen, data, len);
	if (rs->out.job->warn_parser)
		lec__warn_parser_feed(rs->out.job->warn_parser, data, len);
	if (rs->sb && rs->sb->output)
		return rs->sb->output(rs->sb->payload, data, len);
	append_masked(&rs->out, &rs->masker, data, len);
	return 0;
}

static int run_cancel(void *payload)
{
	struct run_state *rs = payload;

	return lec__job_cancelled(rs->out.job);
}

/* Why a command failed, as the build's error: the cause the command gave
 * (its last error line) first, then what ran. */
static int run_failed(struct lec__job *job, const char *display,
		      const struct lec_runner_result *r, const char *cause,
		      const char *hint)
{
	const char *sep = cause && *cause ? ": " : "";

	if (cause == NULL)
		cause = "";
	/* The service's "skip this build": no failure, the docs stay. */
	if (r->end == LEC_RUNNER_EXITED && r->exit_code == LEC_BUILD_EXIT_SKIP)
		return lec__job_fail_as(job, LEC_BUILD_FAILURE_SKIPPED, "%s",
					LEC_BUILD_ERROR_SKIPPED);
	switch (r->end) {
	case LEC_RUNNER_EXITED:
	case LEC_RUNNER_SIGNALED:
		if (*cause)
			return lec__job_fail(job, "%s (command \"%s\" failed "
						  "with exit code %d)%s%s",
					     cause, display, r->exit_code,
					     hint ? ". " : "",
					     hint ? hint : "");
		return lec__job_fail(job, "Command \"%s\" failed with exit code "
					  "%d.%s%s",
				     display, r->exit_code, hint ? " " : "",
				     hint ? hint : "");
	case LEC_RUNNER_TIMED_OUT:
		return lec__job_fail(job, "The build exceeded its time limit "
					  "of %u seconds.",
				     job->env->limits.time_limit_s);
	case LEC_RUNNER_OUTPUT_LIMIT:
		return lec__job_fail(job, "Command \"%s\" wrote more output "
					  "than the limit of %zu bytes.",
				     display, job->env->limits.output_bytes);
	case LEC_RUNNER_DISK_LIMIT:
		return lec__job_fail(job, "The build used more disk than the "
					  "limit of %zu MiB (command \"%s\").",
				     job->env->limits.disk_bytes >> 20,
				     display);
	case LEC_RUNNER_TREE_LIMIT:
		return lec__job_fail(job, "The build made a directory tree "
					  "deeper than %d levels or with more "
					  "than %u entries (command \"%s\").",
				     LEC_RUNNER_TREE_MAX_DEPTH,
				     LEC_RUNNER_TREE_MAX_ENTRIES, display);
	case LEC_RUNNER_CANCELLED:
		job->cancelled = 1;
		return LEC_ERROR;
	case LEC_RUNNER_START_FAILED:
	default:
		return lec__job_fail(job, "Command \"%s\" could not start%s%s",
				     display, sep[0] ? sep : ": ",
				     lec_error_last());
	}
}

/* A command with network gets an egress proxy of its own, which the
 * runner hands it and the lectern program's forwarder points it to
 * inside the sandbox (egress.h). */
static int egress_open(struct lec__job *job, const struct lec__job_sandbox *sb,
		       const struct lec_runner_limits *limits,
		       struct lec_egress **egress, int *fd)
{
	if (job->env->helper == NULL)
		return lec__error(LEC_ERROR, "no lectern program to run the "
					     "egress forwarder");
	return lec_egress_start(egress, sb->egress_rule, limits->time_limit_s,
				fd);
}

/* What the proxy refused, after the command's output: why a download
 * failed, and the trace of a build that tried to reach the host. */
static void egress_note(struct lec__job *job, int64_t id,
			struct lec_egress *egress)
{
	struct lec_egress_stats st;
	char text[sizeof(st.first_refused) + 200];

	lec_egress_stats(egress, &st);
	if (st.refused == 0)
		return;
	snprintf(text, sizeof(text),
		 "\nlectern: the egress proxy refused %u connection%s (the "
		 "first to %s): builds reach public addresses and the "
		 "server's package index only.\n",
		 st.refused, st.refused == 1 ? "" : "s", st.first_refused);
	lec__job_record_text(job, id, text);
}

/* The limits of the next command: the build's, with the time left of the
 * build's whole time limit. 0 when no time is left. */
static int job_limits(struct lec__job *job, struct lec_runner_limits *out)
{
	int64_t left_ms;

	*out = job->env->limits;
	if (out->time_limit_s == 0 || job->deadline_ms == 0)
		return 1;
	left_ms = job->deadline_ms - lec__monotonic_ms();
	if (left_ms <= 0)
		return 0;
	out->time_limit_s = (unsigned)((left_ms + 999) / 1000);
	return 1;
}

int lec__job_runner(struct lec__job *job, const struct lec_runner_spec *spec,
		    lec_runner_output_cb out, lec_runner_cancel_cb cancel,
		    void *payload, struct lec_runner_result *result)
{
	if (job && job->sink && job->sink->run)
		return job->sink->run(job->sink->payload, spec, out, payload,
				      result);
	return lec_runner_run(spec, out, cancel, payload, result);
}

/* Whether the cache called name is noted already. */
static int noted(const struct lec__job *job, const char *name)
{
	size_t i;

	for (i = 0; i < job->ncache; i++)
		if (strcmp(job->cache[i].name, name) == 0)
			return 1;
	return 0;
}

/* The command through the version's warm generator, noted as the
 * "generator" cache; LEC_EBUSY: it runs cold (the reason noted), as it
 * always does under a step harness or without warm generators. */
static int run_warm(struct lec__job *job, const struct lec__job_sandbox *sb,
		    const struct lec_runner_spec *spec, struct run_state *rs,
		    struct lec_runner_result *r)
{
	struct lec__warm_outcome how;
	int rc;

	if (sb == NULL || sb->warm == NULL || (job->sink && job->sink->run))
		return LEC_EBUSY;
	if (job->env->warm == NULL) {
		lec__job_cache_note(job, "generator", 0,
				    "no warm generators here");
		return LEC_EBUSY;
	}
	rc = lec__warm_run(job->env->warm, sb->warm, spec, run_output,
			   run_cancel, rs, r, &how);
	/* A reason may quote what a parent that could not start wrote,
	 * with the build's environment: masked as its output is. */
	lec_runner_mask(how.reason, strlen(how.reason), job->secrets);
	/* The build's first Sphinx run says whether it was reused (a
	 * preview may run it again to rewrite every page, through the
	 * generator it started); the last that wrote, how it wrote. */
	if (!noted(job, "generator"))
		lec__job_cache_note(job, "generator", how.reused,
				    how.reused ? NULL : "%s", how.reason);
	if (how.writers >= 0)
		lec__job_cache_writers(job, "generator", how.writers,
				       how.serial);
	return rc;
}

int lec__job_run_in(struct lec__job *job, const char *display,
		    const char *const *argv, const char *cwd,
		    const struct lec__job_sandbox *sb)
{
	struct lec_runner_mount mounts[LEC__JOB_MAX_MOUNTS + 1];
	const char *watch[4] = { NULL, NULL, NULL, NULL };
	const char *launcher[5];
	struct lec_egress *egress = NULL;
	int egress_fd = -1;
	size_t nwatch = 0;
	struct lec_runner_spec spec = { 0 };
	struct lec_runner_result r = { 0 };
	struct lec_runner_limits limits;
	struct run_state rs;
	size_t i;
	int64_t id;
	int rc;

	if (job->cancelled || lec__job_record_start(job, display, &id) < 0)
		return LEC_ERROR;
	if (!job_limits(job, &limits)) {
		lec__job_record_finish(job, id, 1);
		return lec__job_fail(job, "The build exceeded its time limit "
					  "of %u seconds.",
				     job->env->limits.time_limit_s);
	}
	/* A preview runs unsandboxed, on the writer's own machine. */
	if (sb && sb->network && !job->sink &&
	    egress_open(job, sb, &limits, &egress, &egress_fd) < 0) {
		lec__job_record_finish(job, id, 1);
		return lec__job_fail(job, "Command \"%s\" could not start: %s",
				     display, lec_error_last());
	}
	/* The build's directory, the version's kept tree and, read-only,
	 * the repository's repo cache (the objects and the `git fetch` of the
	 * tree's .git, repo_clone.c), the project's environment, then what
	 * this step adds (pip's configuration, a repo cache). What a build
	 * writes in any of them counts towards its disk cap. */
	mounts[spec.nmounts++] =
		(struct lec_runner_mount){ job->build_dir, 1 };
	watch[nwatch++] = job->build_dir;
	if (job->tree_manifest) {
		mounts[spec.nmounts++] =
			(struct lec_runner_mount){ job->checkout, 1 };
		watch[nwatch++] = job->checkout;
		mounts[spec.nmounts++] =
			(struct lec_runner_mount){ job->repo_cache, 0 };
	}
	if (job->venv)
		mounts[spec.nmounts++] = (struct lec_runner_mount){
			job->venv_root, sb == NULL || sb->venv_writable
		};
	for (i = 0; sb && i < sb->nmounts &&
		    spec.nmounts < LEC__JOB_MAX_MOUNTS;
	     i++)
		mounts[spec.nmounts++] = sb->mounts[i];
	if (egress) {
		launcher[0] = job->env->helper;
		launcher[1] = LEC_EGRESS_HELPER_WORD;
		launcher[2] = LEC_RUNNER_EGRESS_FD_TEXT;
		launcher[3] = "--";
		launcher[4] = NULL;
		mounts[spec.nmounts++] =
			(struct lec_runner_mount){ job->env->helper, 0 };
		spec.network = LEC_RUNNER_NET_EGRESS;
		spec.egress_fd = egress_fd;
		spec.launcher = launcher;
	}
	/* A step harness sees the network the command would get. */
	if (!egress && sb && sb->network && job->sink && job->sink->run)
		spec.network = LEC_RUNNER_NET_EGRESS;
	spec.argv = argv;
	spec.env = sb && sb->env ? sb->env : (const char *const *)job->cmd_env;
	spec.cwd = cwd;
	spec.mounts = mounts;
	if (job->venv)
		watch[nwatch++] = job->venv_root;
	spec.watch_dirs = watch;
	spec.uid = job->env->build_uid;
	spec.gid = job->env->build_gid;
	spec.limits = &limits;
	/* A preview builds a writer's own tree on their own machine. */
	spec.unsandboxed = job->sink != NULL;
	memset(&rs, 0, sizeof(rs));
	rs.out.job = job;
	rs.out.id = id;
	rs.sb = sb;
	lec_runner_masker_init(&rs.masker, job->secrets);
	rc = run_warm(job, sb, &spec, &rs, &r);
	if (rc == LEC_EBUSY)
		rc = lec__job_runner(job, &spec, run_output, run_cancel, &rs,
				     &r);
	flush_masked(&rs.out, &rs.masker);
	lec_runner_masker_dispose(&rs.masker);
	if (egress) {
		close(egress_fd);
		lec_egress_stop(egress);
		egress_note(job, id, egress);
		lec_egress_free(egress);
	}
	if (rc < 0)
		r.end = LEC_RUNNER_START_FAILED;
	lec__job_record_finish(job, id,
			       r.end == LEC_RUNNER_EXITED ? r.exit_code
							  : r.exit_code ? r.exit_code
									: 1);
	if (r.end == LEC_RUNNER_EXITED && r.exit_code == 0)
		return LEC_OK;
	if (sb && sb->soft && r.end == LEC_RUNNER_EXITED)
		return 1;
	{
		char cause[LEC__CAUSE_MAX];

		lec__tail_cause(&rs.tail, cause, sizeof(cause));
		lec_runner_mask(cause, strlen(cause), job->secrets);
		return run_failed(job, display, &r, cause,
				  sb ? sb->hint : NULL);
	}
}

const char *lec__job_python(const struct lec__job *job)
{
	if (job->python)
		return job->python;
	return job->env->python ? job->env->python : LEC__DEBIAN_PYTHON;
}

int lec__job_run(struct lec__job *job, const char *display,
		 const char *const *argv, const char *cwd, int network)
{
	struct lec__job_sandbox sb = { 0 };

	sb.network = network;
	return lec__job_run_in(job, display, argv, cwd, &sb);
}

int lec__job_overrides(const struct lec__job *job, enum lec_rtd_job which)
{
	return job->config && (job->config->jobs_set & (1u << which));
}

/* The jobs of the environment's steps, which may write the venv (a
 * `pip install` in pre_install); later ones see it read-only, as it is
 * kept for the next build. */
static int writes_venv(enum lec_rtd_job hook)
{
	return hook >= LEC_RTD_JOB_CREATE_ENVIRONMENT &&
	       hook <= LEC_RTD_JOB_POST_INSTALL;
}

int lec__job_hook(struct lec__job *job, enum lec_rtd_job hook)
{
	struct lec__job_sandbox sb = { 0 };
	const struct lec_rtd_strings *cmds;
	size_t i;

	if (job->config == NULL)
		return LEC_OK;
	sb.venv_writable = writes_venv(hook);
	cmds = &job->config->jobs[hook];
	for (i = 0; i < cmds->len; i++) {
		const char *argv[] = { "/bin/sh", "-c", cmds->items[i], NULL };

		if (lec__job_run_in(job, cmds->items[i], argv, job->checkout,
				    &sb) < 0)
			return LEC_ERROR;
	}
	return LEC_OK;
}

/* Environment (notes §5.6) ---------------------------------------------------- */

int lec__env_take(char ***env, size_t *n, char *entry)
{
	char **grown;

	if (entry == NULL)
		return lec__error_oom();
	if ((grown = lec__realloc(*env, (*n + 2) * sizeof(char *))) == NULL) {
		lec__free(entry);
		return lec__error_oom();
	}
	*env = grown;
	grown[(*n)++] = entry;
	grown[*n] = NULL;
	return LEC_OK;
}

int lec__env_add(char ***env, size_t *n, const char *name, const char *value)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s=%s", name, value ? value : "");
	return lec__env_take(env, n, lec__buf_take(&b));
}

void lec__env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		lec__free(env[i]);
	lec__free(env);
}

void lec__job_dispose(struct lec__job *job)
{
	lec__env_free(job->cmd_env);
	lec__strings_free(job->encoded, job->nencoded);
	lec__free((void *)job->secrets);
	lec_envvar_values_dispose(&job->vars);
	lec_rtd_config_free(job->config);
	lec_project_free(job->project);
	lec_version_free(job->version);
	lec__free(job->build_dir);
	lec__free(job->checkout);
	lec__free(job->tree_manifest);
	lec__free(job->state_record);
	lec__free(job->output);
	lec__free(job->repo_cache);
	lec__free(job->commit);
	lec__free(job->git_identifier);
	lec__free(job->error);
	lec__free(job->failure_message);
	lec__free(job->service_refuses);
	lec__free(job->venv_root);
	lec__free(job->venv);
	lec__free(job->venv_python);
	lec__free(job->venv_stamp_file);
	lec_warning_set_dispose(&job->warnings);
}

/* The ways a build may URL-encode a secret before printing it: '/' kept
 * (Python's quote()) or not, a space as "+" (quote_plus, forms) or "%20",
 * upper- or lowercase hex. Each is masked. */
enum {
	ENCODE_KEEP_SLASH = 1,
	ENCODE_PLUS_SPACE = 2,
	ENCODE_LOWER_HEX = 4,
	ENCODE_VARIANTS = 8
};

/* value with every byte outside RFC 3986's unreserved set as %XX, as the
 * variant says. */
static char *url_encode(const char *value, unsigned variant)
{
	const char *hex = variant & ENCODE_LOWER_HEX ? "0123456789abcdef"
						     : "0123456789ABCDEF";
	char *out = lec__malloc(3 * strlen(value) + 1), *o = out;
	const unsigned char *p;

	if (out == NULL)
		return NULL;
	for (p = (const unsigned char *)value; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) ||
		    (*p == '/' && (variant & ENCODE_KEEP_SLASH))) {
			*o++ = (char)*p;
		} else if (*p == ' ' && (variant & ENCODE_PLUS_SPACE)) {
			*o++ = '+';
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

/* Add each encoding of a secret that differs from those already masked. */
static int add_encodings(struct lec__job *job, const char *value,
			 size_t *nsecrets)
{
	unsigned v;
	size_t i;

	for (v = 0; v < ENCODE_VARIANTS; v++) {
		char *encoded = url_encode(value, v);
		int known = 0;

		if (encoded == NULL)
			return lec__error_oom();
		for (i = 0; i < *nsecrets && !known; i++)
			known = strcmp(job->secrets[i], encoded) == 0;
		if (known) {
			lec__free(encoded);
			continue;
		}
		job->secrets[(*nsecrets)++] = job->encoded[job->nencoded++] =
			encoded;
	}
	return LEC_OK;
}

char *lec__job_venv_dir(const struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s/python/%s/venvs/%s", job->env->data_dir,
			job->project->slug, job->version->slug);
	return lec__buf_take(&b);
}

/* A script at path that runs target with its arguments: "#!/bin/sh",
 * then exec of target single-quoted. Made once, when the build's
 * environment is, in its fresh directory before any of its commands
 * ran; never through a link, and one there already is kept. */
static int write_exec_script(const char *path, const char *target)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *c;
	char *text;
	int fd, rc = LEC_OK;

	lec__buf_puts(&b, "#!/bin/sh\nexec '");
	for (c = target; *c; c++)
		if (*c == '\'')
			lec__buf_puts(&b, "'\\''");
		else
			lec__buf_putn(&b, c, 1);
	lec__buf_puts(&b, "' \"$@\"\n");
	if ((text = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0755);
	if (fd < 0 && errno != EEXIST)
		rc = lec__error(LEC_EIO, "cannot make %s: %s", path,
				strerror(errno));
	else if (fd >= 0 && (fchmod(fd, 0755) != 0 ||
			     lec__write_all(fd, text, strlen(text)) != 0))
		rc = lec__error(LEC_EIO, "cannot write %s: %s", path,
				strerror(errno));
	if (fd >= 0)
		close(fd);
	lec__free(text);
	return rc;
}

/* The build's own bin directory: `python`, which the service's images
 * have and Debian has not, for the project's commands (`python -m sphinx`
 * in build.jobs), running the interpreter the generators run with. A
 * script that execs it, not a link to it: Python takes the path it was
 * started by for its own, so a venv a command made from a linked
 * `python` (build.jobs.create_environment) pointed into this directory,
 * which the build removes and a warm generator's sandbox has not. */
static char *tools_dir(struct lec__job *job)
{
	char *dir = lec__path_join(job->build_dir, ".lectern/bin");
	char *python = dir ? lec__path_join(dir, "python") : NULL;
	int ok = python && lec__mkdirs_mode(dir, 0755) == LEC_OK &&
		 write_exec_script(python, lec__job_python(job)) == LEC_OK;

	lec__free(python);
	if (!ok) {
		lec__free(dir);
		return NULL;
	}
	return dir;
}

/* The venv's bin first, as the service runs every command (its
 * BIN_PATH), then the build's own, then the machine's. */
static char *command_path(const char *bin, const char *tools)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (bin == NULL || tools == NULL)
		return NULL;
	lec__buf_printf(&b, "%s:%s:/usr/local/bin:/usr/bin:/bin", bin, tools);
	return lec__buf_take(&b);
}

int lec__job_make_env(struct lec__job *job)
{
	struct lec_project *p = job->project;
	struct lec_version *v = job->version;
	char *canonical = lec_resolve_docs_url(p, v->slug, job->env->docs_domain);
	char *repo = lec_repo_redact_url(p->repo_url);
	char *output = lec__path_join(job->checkout, "_readthedocs/");
	char *venv = lec__job_venv_dir(job), *tools = tools_dir(job);
	char *bin = venv ? lec__path_join(venv, "bin") : NULL;
	char *path = command_path(bin, tools);
	size_t n = 0, i, nsecrets = 0;
	int error = LEC_OK;
	struct {
		const char *name;
		const char *value;
	} fixed[] = {
		{ "PATH", path },
		{ "HOME", job->build_dir },
		{ "LANG", "C.UTF-8" },
		{ "NO_COLOR", "1" },
		{ "READTHEDOCS", "True" },
		{ "READTHEDOCS_VERSION", v->slug },
		{ "READTHEDOCS_VERSION_TYPE", lec_version_type_code(v->type) },
		{ "READTHEDOCS_VERSION_NAME", v->verbose_name },
		{ "READTHEDOCS_PROJECT", p->slug },
		{ "READTHEDOCS_LANGUAGE", p->language },
		{ "READTHEDOCS_REPOSITORY_PATH", job->checkout },
		{ "READTHEDOCS_OUTPUT", output },
		{ "READTHEDOCS_GIT_CLONE_URL", repo },
		{ "READTHEDOCS_GIT_IDENTIFIER", job->git_identifier },
		{ "READTHEDOCS_GIT_COMMIT_HASH", job->commit },
		{ "READTHEDOCS_PRODUCTION_DOMAIN", job->env->production_domain },
		{ "READTHEDOCS_CANONICAL_URL", canonical },
		{ "READTHEDOCS_VIRTUALENV_PATH", venv },
		{ "BIN_PATH", bin },
	};

	if (canonical == NULL || repo == NULL || output == NULL ||
	    venv == NULL || tools == NULL || bin == NULL || path == NULL) {
		error = lec__error_oom();
		goto done;
	}
	for (i = 0; error == LEC_OK && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		error = lec__env_add(&job->cmd_env, &n, fixed[i].name, fixed[i].value);
	/* Then the project's own variables (notes §5.6), secret ones masked
	 * wherever they appear in the log. */
	if (error == LEC_OK)
		error = lec_envvar_values(job->st, p->id, 0, &job->vars);
	for (i = 0; error == LEC_OK && i < job->vars.len; i++)
		error = lec__env_add(&job->cmd_env, &n, job->vars.items[i].name,
				job->vars.items[i].value);
	/* Each secret is masked as it is and URL-encoded (a build that
	 * puts it into a URL, then prints the URL). */
	if (error == LEC_OK) {
		job->secrets = lec__calloc(
			(ENCODE_VARIANTS + 1) * job->vars.len + 1,
			sizeof(char *));
		job->encoded = lec__calloc(ENCODE_VARIANTS * job->vars.len + 1,
					   sizeof(char *));
		if (job->secrets == NULL || job->encoded == NULL)
			error = lec__error_oom();
	}
	for (i = 0; error == LEC_OK && i < job->vars.len; i++) {
		if (job->vars.items[i].is_public)
			continue;
		job->secrets[nsecrets++] = job->vars.items[i].value;
		error = add_encodings(job, job->vars.items[i].value, &nsecrets);
	}
done:
	lec__free(canonical);
	lec__free(repo);
	lec__free(output);
	lec__free(venv);
	lec__free(tools);
	lec__free(bin);
	lec__free(path);
	return error;
}

int lec__job_real_dirs(struct lec__job *job, const char *base,
		       const char *rel)
{
	char *copy = lec__strdup(rel), *part, *save = NULL;
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 1, next;

	for (part = copy ? strtok_r(copy, "/", &save) : NULL;
	     part && fd >= 0 && rc == 1; part = strtok_r(NULL, "/", &save)) {
		next = openat(fd, part,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT)
			rc = 0;
		else if (next < 0)
			rc = lec__job_fail(job, "The build replaced %s with "
						"something that is not a "
						"directory; refusing to use it.",
					   rel);
		close(fd);
		fd = next;
	}
	if (fd >= 0)
		close(fd);
	if (copy == NULL)
		rc = lec__job_fail(job, "out of memory");
	lec__free(copy);
	return rc;
}

/* Show the file as `cat` would, capped: a regular file beneath the
 * checkout only, never reached through a link out of it. */
void lec__job_note_file(struct lec__job *job, const char *relpath)
{
	struct lec__buf cmd = LEC__BUF_INIT;
	char *display, buf[CAT_MAX + 1];
	ssize_t n = -1;
	int fd = -1;

	if (lec__open_in(job->checkout, relpath, LEC__OPEN_FILE, &fd) < 0)
		fd = -1;
	if (fd >= 0) {
		n = read(fd, buf, CAT_MAX);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	lec__buf_printf(&cmd, "cat %s", relpath);
	if ((display = lec__buf_take(&cmd)) != NULL)
		lec__job_note(job, display, buf);
	lec__free(display);
}

/* The configuration is refused: Lectern's line-numbered words in the
 * error, which say where, and the service's message beside them. */
static int config_refused(struct lec__job *job)
{
	int first = job->error == NULL;
	int rc = lec__job_fail_as(job, LEC_BUILD_FAILURE_CONFIG,
				  "Problem in your project's configuration. %s",
				  lec_error_last());

	if (first)
		job->failure_message = lec_rtd_config_problem_json();
	return rc;
}

/* No .readthedocs.yaml: Lectern builds anyway (its generator choice),
 * and says that the service would not, in its own words. */
static void note_refusal(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *problem = lec_rtd_config_problem_json();
	char *text = problem ? lec_rtd_problem_text(problem) : NULL;

	lec__free(problem);
	if (text == NULL)
		return;
	lec__buf_printf(&b, "%s%s", LEC__SERVICE_REFUSES, text);
	lec__free(text);
	lec__free(job->service_refuses);
	if ((job->service_refuses = lec__buf_take(&b)) != NULL)
		lec__job_note(job, ".readthedocs.yaml", job->service_refuses);
}

int lec__job_read_config(struct lec__job *job, const char *yaml_path)
{
	char *relpath = NULL;
	int rc = lec_rtd_config_find(job->checkout, yaml_path, &relpath);

	if (rc == LEC_ENOTFOUND) {
		note_refusal(job);
		return LEC_OK;
	}
	if (rc == LEC_EINVALID)
		return config_refused(job);
	if (rc < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	lec__job_note_file(job, relpath);
	rc = lec_rtd_config_load(job->checkout, relpath, &job->config);
	lec__free(relpath);
	if (rc == LEC_EINVALID)
		return config_refused(job);
	if (rc < 0)
		return lec__job_fail_as(job, LEC_BUILD_FAILURE_CONFIG,
					"Problem in your project's "
					"configuration. %s",
					lec_error_last());
	return LEC_OK;
}

/* Caches ---------------------------------------------------------------------- */

int lec__job_cache_note(struct lec__job *job, const char *name, int reused,
			const char *fmt, ...)
{
	struct lec__cache_note *note = NULL;
	va_list ap;
	size_t i;

	for (i = 0; i < job->ncache && note == NULL; i++)
		if (strcmp(job->cache[i].name, name) == 0)
			note = &job->cache[i];
	if (note == NULL && job->ncache < LEC__JOB_CACHES)
		note = &job->cache[job->ncache++];
	if (note == NULL)
		return LEC_OK;
	note->name = name;
	note->reused = reused;
	note->writers = -1;
	note->reason[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(note->reason, sizeof(note->reason), fmt, ap);
		va_end(ap);
	}
	return LEC_OK;
}

void lec__job_cache_writers(struct lec__job *job, const char *name,
			    int writers, const char *serial)
{
	size_t i;

	for (i = 0; i < job->ncache; i++)
		if (strcmp(job->cache[i].name, name) == 0) {
			job->cache[i].writers = writers;
			snprintf(job->cache[i].serial,
				 sizeof(job->cache[i].serial), "%s", serial);
		}
}

/* How the note's generator wrote, when it said: "parallel_write": the
 * writers, or false and "parallel_write_reason". NULL when out of
 * memory. */
static cJSON *writers_json(cJSON *one, const struct lec__cache_note *n)
{
	if (n->writers < 0)
		return one;
	if (n->writers > 0)
		return cJSON_AddNumberToObject(one, "parallel_write",
					       n->writers)
			       ? one
			       : NULL;
	return cJSON_AddBoolToObject(one, "parallel_write", 0) &&
			       cJSON_AddStringToObject(one,
						       "parallel_write_reason",
						       n->serial)
		       ? one
		       : NULL;
}

char *lec__job_cache_json(const struct lec__job *job)
{
	cJSON *all = job->ncache ? cJSON_CreateObject() : NULL;
	char *text = NULL, *copy = NULL;
	size_t i;

	for (i = 0; all && i < job->ncache; i++) {
		const struct lec__cache_note *n = &job->cache[i];
		cJSON *one = cJSON_AddObjectToObject(all, n->name);

		if (one == NULL ||
		    cJSON_AddBoolToObject(one, "reused", n->reused) == NULL ||
		    (n->reason[0] &&
		     cJSON_AddStringToObject(one, "reason", n->reason) == NULL) ||
		    writers_json(one, n) == NULL) {
			cJSON_Delete(all);
			return NULL;
		}
	}
	if (all && (text = cJSON_PrintUnformatted(all)) != NULL)
		copy = lec__strdup(text);
	cJSON_free(text);
	cJSON_Delete(all);
	return copy;
}
