/*
 * The build environment (buildenv.h): settings copied from the pipeline's
 * configuration, the probes that complete them (who builds run as, which
 * Python has the generators), the stop flag every running build polls,
 * the log, and re-owning a tree for the build user.
 *
 * Python is probed once per environment, by our own fixed script run
 * without the sandbox: it reads the generators' versions from their
 * packages' metadata, which costs a Python start-up and no import.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buildenv.h"
#include "files.h"

/* The probe's time limit: a Python start-up. */
#define PROBE_TIME_LIMIT_S 30

/* Settings ------------------------------------------------------------------ */

int lec__build_env_init(struct lec__build_env *env,
			const struct lec_pipeline_config *config)
{
	memset(env, 0, sizeof(*env));
	pthread_mutex_init(&env->lock, NULL);
	pthread_cond_init(&env->wake, NULL);
	env->limits = config->limits;
	env->offline = config->offline;
	env->local_roots = config->local_roots;
	env->keep_builds = config->keep_builds;
	env->log = config->log;
	env->log_payload = config->log_payload;
	env->data_dir = lec__strdup(config->data_dir ? config->data_dir : "");
	env->docs_domain = lec__strdup(
		config->docs_domain ? config->docs_domain : "localhost");
	env->external_domain = lec__strdup(config->external_domain
						   ? config->external_domain
						   : "external.localhost");
	env->production_domain = lec__strdup(
		config->production_domain ? config->production_domain
					  : "localhost");
	if (env->data_dir == NULL || env->docs_domain == NULL ||
	    env->external_domain == NULL ||
	    env->production_domain == NULL)
		return lec__error_oom();
	return LEC_OK;
}

/* This Lectern's program as its size and time: a rebuilt Lectern may
 * build differently, so its kept state is not reused. */
static int stamp_program(struct lec__build_env *env, const char *program)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct stat sb;

	if (stat(program, &sb) != 0)
		return lec__error(LEC_EIO, "%s: %s", program, strerror(errno));
	lec__buf_printf(&b, "%lld-%lld.%09ld", (long long)sb.st_size,
			(long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
	lec__free(env->lectern_stamp);
	LEC__CHECK_ALLOC(env->lectern_stamp = lec__buf_take(&b));
	return LEC_OK;
}

int lec__build_env_identify(struct lec__build_env *env,
			    const struct lec_pipeline_config *config)
{
	char *why = NULL, real[PATH_MAX];
	int error;

	env->build_uid = config->build_uid ? config->build_uid
					   : LEC_RUNNER_DEFAULT_UID;
	env->build_gid = config->build_gid ? config->build_gid
					   : LEC_RUNNER_DEFAULT_GID;
	if (realpath(config->helper ? config->helper : "/proc/self/exe",
		     real) == NULL)
		return lec__error(LEC_EIO, "cannot find the lectern program: %s",
				  strerror(errno));
	LEC__CHECK_ALLOC(env->helper = lec__strdup(real));
	if ((error = stamp_program(env, real)) < 0)
		return error;
	if (!lec_runner_sandbox_available(&why)) {
		struct lec__buf b = LEC__BUF_INIT;

		lec__buf_printf(&b, "Builds run only in bubblewrap's sandbox, "
				    "which cannot run here: %s",
				why ? why : "unknown reason");
		lec__free(why);
		if ((env->sandbox_error = lec__buf_take(&b)) == NULL)
			return lec__error_oom();
	}
	return LEC_OK;
}

void lec__build_env_dispose(struct lec__build_env *env)
{
	if (env == NULL)
		return;
	lec__free(env->data_dir);
	lec__free(env->docs_domain);
	lec__free(env->external_domain);
	lec__free(env->production_domain);
	lec__free(env->helper);
	lec__free(env->sandbox_error);
	lec__free(env->lectern_stamp);
	lec__free(env->python);
	lec__free(env->python_about);
	pthread_mutex_destroy(&env->lock);
	pthread_cond_destroy(&env->wake);
	memset(env, 0, sizeof(*env));
}

/* Python -------------------------------------------------------------------- */

/* The generators' versions under one interpreter, "5.3.0 1.4.2": "-" for
 * one missing, "?" for one present without package metadata. */
static const char probe_script[] =
	"import importlib.metadata as m, importlib.util as u\n"
	"v = []\n"
	"for d in ('sphinx', 'mkdocs'):\n"
	"    try: v.append(m.version(d))\n"
	"    except Exception: v.append('?' if u.find_spec(d) else '-')\n"
	"print(' '.join(v))\n";

/* Run the probe under python (a path, or a name looked up on PATH). */
static int probe(const char *python, char *sphinx, char *mkdocs)
{
	const char *const argv[] = { python, "-c", probe_script, NULL };
	const char *path = getenv("PATH");
	struct lec__buf b = LEC__BUF_INIT;
	const char *env[] = { NULL, "LANG=C.UTF-8", NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = { 0 };
	struct lec_runner_result r;
	struct lec_runner_kept pr = { { 0 }, 0 };
	char *path_var;
	int ok;

	lec__buf_printf(&b, "PATH=%s", path ? path : "/usr/bin:/bin");
	if ((path_var = lec__buf_take(&b)) == NULL)
		return 0;
	env[0] = path_var;
	limits.time_limit_s = PROBE_TIME_LIMIT_S;
	spec.argv = argv;
	spec.env = env;
	spec.limits = &limits;
	spec.unsandboxed = 1;
	ok = lec_runner_run(&spec, lec_runner_keep_output, NULL, &pr, &r) ==
		     LEC_OK &&
	     r.end == LEC_RUNNER_EXITED && r.exit_code == 0 &&
	     sscanf(pr.text, "%47s %47s", sphinx, mkdocs) == 2 &&
	     (strcmp(sphinx, "-") != 0 || strcmp(mkdocs, "-") != 0);
	lec__free(path_var);
	lec_error_clear();
	return ok;
}

int lec__build_env_find_python(struct lec__build_env *env, const char *only)
{
	static const char *const candidates[] = { LEC__DEBIAN_PYTHON,
						  "python3" };
	struct lec__buf about = LEC__BUF_INIT;
	char sphinx[48], mkdocs[48];
	const char *found = NULL;
	size_t i;

	for (i = 0; only == NULL && found == NULL &&
		    i < sizeof(candidates) / sizeof(candidates[0]);
	     i++)
		if (probe(candidates[i], sphinx, mkdocs))
			found = candidates[i];
	if (only && probe(only, sphinx, mkdocs))
		found = only;
	if (found == NULL) {
		/* A given interpreter is kept: its builds say what is
		 * missing. */
		if (only && (env->python = lec__strdup(only)) == NULL)
			return lec__error_oom();
		return LEC_OK;
	}
	env->has_sphinx = strcmp(sphinx, "-") != 0;
	env->has_mkdocs = strcmp(mkdocs, "-") != 0;
	snprintf(env->sphinx_version, sizeof(env->sphinx_version), "%s",
		 sphinx);
	snprintf(env->mkdocs_version, sizeof(env->mkdocs_version), "%s",
		 mkdocs);
	lec__buf_printf(&about, "%s (Sphinx %s, MkDocs %s)", found,
			env->has_sphinx ? sphinx : "not installed",
			env->has_mkdocs ? mkdocs : "not installed");
	env->python = lec__strdup(found);
	env->python_about = lec__buf_take(&about);
	return env->python && env->python_about ? LEC_OK : lec__error_oom();
}

/* Stopping -------------------------------------------------------------------- */

int lec__build_env_stopping(struct lec__build_env *env)
{
	int s;

	pthread_mutex_lock(&env->lock);
	s = env->stopping;
	pthread_mutex_unlock(&env->lock);
	return s;
}

void lec__build_env_stop(struct lec__build_env *env)
{
	pthread_mutex_lock(&env->lock);
	env->stopping = 1;
	pthread_cond_broadcast(&env->wake);
	pthread_mutex_unlock(&env->lock);
}

void lec__build_env_wake(struct lec__build_env *env)
{
	pthread_mutex_lock(&env->lock);
	pthread_cond_broadcast(&env->wake);
	pthread_mutex_unlock(&env->lock);
}

void lec__build_env_idle(struct lec__build_env *env, unsigned ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&env->lock);
	if (!env->stopping)
		pthread_cond_timedwait(&env->wake, &env->lock, &until);
	pthread_mutex_unlock(&env->lock);
}

/* Log ------------------------------------------------------------------------- */

void lec__build_log(const struct lec__build_env *env, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (env->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	env->log(env->log_payload, msg);
}

/* Owners ------------------------------------------------------------------------ */

/* Give each thing walked to owner (links not followed), when it is not
 * theirs yet; without recurse, only the top. */
struct chown_walk {
	uid_t uid;
	gid_t gid;
	int recurse;
};

static int chown_visit(const struct lec__walk_at *at,
		       enum lec__walk_event event, void *payload)
{
	const struct chown_walk *c = payload;

	if (event == LEC__WALK_LEAVE)
		return 0;
	if ((at->st->st_uid != c->uid || at->st->st_gid != c->gid) &&
	    fchownat(at->dirfd, at->name, c->uid, c->gid,
		     AT_SYMLINK_NOFOLLOW) != 0)
		return lec__error(LEC_EIO, "%s: cannot change its owner: %s",
				  at->name, strerror(errno));
	return event == LEC__WALK_ENTER && !c->recurse ? LEC__WALK_SKIP : 0;
}

int lec__chown_tree(const struct lec__build_env *env, const char *path,
		    int to_build_user, int recurse)
{
	struct chown_walk c = { geteuid(), getegid(), recurse };

	/* Not root, or a preview's unsandboxed build: nobody to give it to. */
	if (geteuid() != 0 || env->build_uid == 0)
		return LEC_OK;
	if (to_build_user) {
		c.uid = (uid_t)env->build_uid;
		c.gid = (gid_t)env->build_gid;
	}
	return lec__walk(AT_FDCWD, path, chown_visit, &c);
}
