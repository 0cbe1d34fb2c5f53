/*
 * The pipeline's workers: each thread has its own store handle and loops,
 * taking a version-sync request or a triggered build (lec_build_claim makes
 * sure no two workers take the same build), and sleeping briefly when there
 * is nothing to do. Starting also recovers from a previous run that died
 * mid-build; stopping stops running builds and finishes them as failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_fetch.h"
#include "build_job.h"
#include "build_publish.h"
#include "build_warm.h"
#include "buildenv.h"
#include "files.h"
#include "lectern/pipeline.h"
#include "lectern/repo.h"
#include "lectern/vsync.h"
#include "store_internal.h"
#include "watch.h"

/* The pipeline itself, seen by this file only: the steps work on their
 * job, the watcher on the build environment and its settings. */
struct lec_pipeline {
	struct lec_pipeline_config config;
	struct lec__build_env env; /* what builds need; its lock and wake
				      also pace the workers */
	struct lec__watcher *watcher; /* builds on commit, or NULL */
	struct lec__watch_settings watch;
	pthread_t threads[LEC_PIPELINE_MAX_WORKERS];
	unsigned nthreads;
	int lock_fd; /* flock on <data>/pipeline.lock: one pipeline per data dir */
};

/* What a build left running by a dead `lectern serve` is finished with. */
#define INTERRUPTED_ERROR                                                    \
	"Lectern stopped while this build was running; trigger it again."

const char *lec_pipeline_python(const struct lec_pipeline *pl)
{
	return pl->env.python_about;
}

unsigned lec_pipeline_workers(const struct lec_pipeline *pl)
{
	return pl->nthreads;
}

/* The warm generators the running pipeline keeps, their memory
 * measured now (build_warm.h); none without a record. */
static void warm_usage(const char *data_dir, struct lec_pipeline_usage *out)
{
	lec__warm_usage(data_dir, &out->warm, &out->warm_kib);
}

int lec_pipeline_usage(const char *data_dir, struct lec_pipeline_usage *out)
{
	static const char *const dirs[] = { "checkouts", "python", "repos" };
	uint64_t *fields[3];
	struct lec__tree_size size;
	size_t i;

	lec_error_clear();
	if (data_dir == NULL || out == NULL)
		return lec__error(LEC_EINVALID, "nothing to measure");
	fields[0] = &out->trees;
	fields[1] = &out->python;
	fields[2] = &out->repos;
	warm_usage(data_dir, out);
	for (i = 0; i < 3; i++) {
		char *path = lec__path_join(data_dir, dirs[i]);

		LEC__CHECK_ALLOC(path);
		lec__tree_measure(path, &size);
		*fields[i] = size.bytes;
		lec__free(path);
	}
	return LEC_OK;
}

/* Recovery ----------------------------------------------------------------- */

/* An interrupted build failed, unless its output was already published:
 * then it is what the docs serve, and passed (lec__publish_recover). */
static int finish_one(struct lec_store *st, const char *data_dir, int64_t id)
{
	struct lec_build *b = NULL;
	int published = lec_build_get(st, id, &b) == LEC_OK &&
			lec__publish_recover(st, data_dir, b);

	lec_build_free(b);
	return published ? lec_build_finish(st, id, 1, NULL)
			 : lec_build_finish(st, id, 0, INTERRUPTED_ERROR);
}

static int finish_interrupted(struct lec_store *st, const char *data_dir)
{
	sqlite3_stmt *stmt = NULL;
	int64_t ids[64];
	size_t n = 0, i;
	int error, rc;

	/* Builds a worker had taken, cancelled ones too (finishing them lets
	 * go of their projects); those still triggered just wait. */
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "SELECT id FROM builds WHERE held = 1 OR state NOT IN "
		     "('triggered', 'finished', 'cancelled') LIMIT 64")) < 0)
		return error;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && n < 64)
		ids[n++] = sqlite3_column_int64(stmt, 0);
	lec_store__finalize(st, stmt);
	for (i = 0; i < n; i++)
		if ((error = finish_one(st, data_dir, ids[i])) < 0)
			return error;
	/* A full batch may hide more. */
	return n == 64 ? finish_interrupted(st, data_dir) : LEC_OK;
}

/* Whether outputs/<name> is what some published/<p>/<v> link points at. */
static int output_published(const char *data_dir, const char *name)
{
	char *published = lec__path_join(data_dir, "published");
	char target[PATH_MAX], link[PATH_MAX];
	DIR *projects, *versions;
	struct dirent *p, *v;
	int found = 0;

	if (published == NULL || (projects = opendir(published)) == NULL) {
		lec__free(published);
		return 0;
	}
	while (!found && (p = readdir(projects)) != NULL) {
		if (p->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", published, p->d_name);
		if ((versions = opendir(link)) == NULL)
			continue;
		while (!found && (v = readdir(versions)) != NULL) {
			ssize_t len;

			snprintf(link, sizeof(link), "%s/%s/%s", published,
				 p->d_name, v->d_name);
			len = readlink(link, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = '\0';
			found = strcmp(strrchr(target, '/') ? strrchr(target, '/') + 1
							    : target,
				       name) == 0;
		}
		closedir(versions);
	}
	closedir(projects);
	lec__free(published);
	return found;
}

/* Whether /proc/<pid>'s command line is bubblewrap running in one of our
 * build directories (its arguments bind <data>/builds/<id>). */
static int is_our_sandbox(const char *pid, const char *builds)
{
	char path[64], cmd[8192];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cmd[n] = '\0';
	if (strcmp(cmd, LEC_RUNNER_BWRAP) != 0 && strcmp(cmd, "bwrap") != 0)
		return 0;
	for (i = 0; i < n; i++) /* arguments are NUL-separated */
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	return strstr(cmd, builds) != NULL;
}

/* A server killed mid-build (kill -9) normally takes its sandboxes with it
 * (they die with their parent), but one caught starting up can outlive it.
 * Kill what still runs in our build directories before removing them. */
static void kill_stray_sandboxes(const char *builds)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;

	while (proc && (e = readdir(proc)) != NULL) {
		pid_t pid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    !is_our_sandbox(e->d_name, builds))
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		/* bubblewrap leads its own session: the group is the tree
		 * outside the namespace; the namespace dies with its init,
		 * itself a bubblewrap process matched here too. */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	if (proc)
		closedir(proc);
}

/* Whether outputs/<name> is the output of a build that passed, kept for
 * page diffs (build_publish.c prunes those). */
/* Whether the output named name is a passed build's of a version still
 * active: one kept for page diffs. */
static int output_kept(struct lec_store *st, const char *name)
{
	struct lec_build *b = NULL;
	struct lec_version *v = NULL;
	char *end;
	long long id = strtoll(name, &end, 10);
	int kept;

	if (*end != '\0' || id <= 0 || lec_build_get(st, id, &b) < 0)
		return 0;
	kept = b->state == LEC_BUILD_STATE_FINISHED && b->success &&
	       b->version_id != 0 &&
	       lec_version_get_by_id(st, b->version_id, &v) == 0 && v->active;
	lec_version_free(v);
	lec_build_free(b);
	lec_error_clear();
	return kept;
}

/* Remove working trees, and outputs neither published nor kept for page
 * diffs: a build's that died between moving its output and publishing it
 * (which finish_interrupted has failed), and those of a version deleted
 * or deactivated since. */
static void remove_leftovers(struct lec_pipeline *pl, struct lec_store *st)
{
	char *builds = lec__path_join(pl->env.data_dir, "builds");
	char *outputs = lec__path_join(pl->env.data_dir, "outputs");
	DIR *dir;
	struct dirent *e;

	if (builds) {
		kill_stray_sandboxes(builds);
		lec__remove_tree(builds);
	}
	if (outputs && (dir = opendir(outputs)) != NULL) {
		while ((e = readdir(dir)) != NULL) {
			char *path;

			if (e->d_name[0] == '.' ||
			    output_published(pl->env.data_dir, e->d_name) ||
			    output_kept(st, e->d_name))
				continue;
			if ((path = lec__path_join(outputs, e->d_name))) {
				lec__remove_tree(path);
				lec__free(path);
			}
		}
		closedir(dir);
	}
	lec__free(builds);
	lec__free(outputs);
}

/* Workers ------------------------------------------------------------------ */

/* Fetch the repository and bring the project's versions in line, within
 * the build time limit. */
static void sync_versions(struct lec_pipeline *pl, struct lec_store *st,
			  int64_t project_id)
{
	struct lec_project *p = NULL;
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result result = { 0 };
	char *repos = lec__path_join(pl->env.data_dir, "repos");
	char *repo_cache = NULL;
	struct lec__buf name = LEC__BUF_INIT;
	int error;

	if ((error = lec_project_get_by_id(st, project_id, &p)) < 0 ||
	    repos == NULL || (error = lec__mkdirs(repos)) < 0)
		goto done;
	if (pl->env.sandbox_error) {
		error = lec__error(LEC_ERROR, "%s", pl->env.sandbox_error);
		goto done;
	}
	lec__buf_printf(&name, "%s/%s.git", repos, p->slug);
	if ((repo_cache = lec__buf_take(&name)) == NULL ||
	    (error = lec__fetch_repo_cache(&pl->env, p,
				       pl->env.limits.time_limit_s)) < 0 ||
	    (error = lec_repo_list_refs(repo_cache, &refs)) < 0)
		goto done;
	error = lec_vsync_apply(st, project_id, &refs, &result);
done:
	if (error < 0)
		lec__build_log(&pl->env, "version sync of project %lld "
					 "failed: %s",
			       (long long)project_id, lec_error_last());
	lec_repo_refs_dispose(&refs);
	lec_project_free(p);
	lec__free(repo_cache);
	lec__free(repos);
}

/* A build whose end the store could not take (a full disk) keeps its
 * project held: record it as soon as the store takes writes again. 1
 * while it still cannot. */
static int still_unrecorded(struct lec_pipeline *pl, struct lec_store *st,
			    int64_t id)
{
	int rc = lec_build_fail(st, id, LEC_BUILD_FAILURE_GENERIC,
				LEC__BUILD_ERROR_DISK_FULL);

	if (rc == LEC_OK || rc == LEC_EINVALID || rc == LEC_ENOTFOUND) {
		lec__build_log(&pl->env, "build %lld: its end is recorded",
			       (long long)id);
		return 0;
	}
	return 1;
}

static void *worker(void *arg)
{
	struct lec_pipeline *pl = arg;
	struct lec_store *st = NULL;
	int64_t unrecorded = 0;

	if (lec_store_open_dir(&st, pl->env.data_dir, NULL) < 0) {
		lec__build_log(&pl->env, "worker cannot open the store: %s",
			       lec_error_last());
		return NULL;
	}
	while (!lec__build_env_stopping(&pl->env)) {
		struct lec_build *build = NULL;
		int64_t project_id = 0;

		if (unrecorded && still_unrecorded(pl, st, unrecorded)) {
			lec__build_env_idle(&pl->env, LEC_PIPELINE_POLL_MS);
			continue;
		}
		unrecorded = 0;
		if (lec_version_sync_take(st, &project_id) == LEC_OK) {
			sync_versions(pl, st, project_id);
			continue;
		}
		if (lec_build_claim(st, &build) == LEC_OK) {
			if (lec__job_execute(&pl->env, st, build) < 0)
				unrecorded = build->id;
			lec_build_free(build);
			continue;
		}
		lec__build_env_idle(&pl->env, LEC_PIPELINE_POLL_MS);
	}
	lec_store_free(st);
	return NULL;
}

/* Only one process may run a data directory's builds: recovery would
 * otherwise fail and kill the builds another live server is running. The
 * lock goes with the process, kill -9 included. */
static int take_lock(struct lec_pipeline *pl)
{
	char *path = lec__path_join(pl->env.data_dir, "pipeline.lock");

	LEC__CHECK_ALLOC(path);
	pl->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	lec__free(path);
	if (pl->lock_fd < 0)
		return lec__error(LEC_EIO, "%s: cannot create the build lock: %s",
				  pl->env.data_dir, strerror(errno));
	if (flock(pl->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return lec__error(LEC_EBUSY,
				  "another lectern serve runs the builds of %s",
				  pl->env.data_dir);
	return LEC_OK;
}

static void pipeline_free(struct lec_pipeline *pl)
{
	if (pl->lock_fd >= 0)
		close(pl->lock_fd);
	lec__warm_pool_free(pl->env.warm);
	lec__build_env_dispose(&pl->env);
	lec__free(pl);
}

/* One worker per LEC_PIPELINE_CPUS_PER_WORKER processors, at least one,
 * at most LEC_PIPELINE_MAX_WORKERS. */
static unsigned default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) / LEC_PIPELINE_CPUS_PER_WORKER;

	if (n < 1)
		return 1;
	return n > LEC_PIPELINE_MAX_WORKERS ? LEC_PIPELINE_MAX_WORKERS
					    : (unsigned)n;
}

static int recover(struct lec_pipeline *pl)
{
	struct lec_store *st = NULL;
	int error;

	if ((error = lec_store_open_dir(&st, pl->env.data_dir, NULL)) < 0)
		return error;
	error = finish_interrupted(st, pl->env.data_dir);
	if (error == LEC_OK)
		remove_leftovers(pl, st);
	lec_store_free(st);
	return error;
}

/* The warm generators of the versions being worked on, with their record
 * in the data directory for `lectern status`. */
static int warm_pool(struct lec_pipeline *pl)
{
	char *record = lec__path_join(pl->env.data_dir, LEC__WARM_RECORD);
	int error = record ? lec__warm_pool_new(&pl->env.warm, record)
			   : lec__error_oom();

	lec__free(record);
	return error;
}

int lec_pipeline_start(struct lec_pipeline **out,
		       const struct lec_pipeline_config *config)
{
	struct lec_pipeline *pl;
	unsigned i, n;
	int error;

	lec_error_clear();
	*out = NULL;
	n = config->workers ? config->workers : default_workers();
	if (n > LEC_PIPELINE_MAX_WORKERS)
		return lec__error(LEC_EINVALID, "at most %d build workers",
				  LEC_PIPELINE_MAX_WORKERS);
	pl = lec__calloc(1, sizeof(*pl));
	LEC__CHECK_ALLOC(pl);
	pl->lock_fd = -1;
	pl->config = *config;
	if ((error = lec__build_env_init(&pl->env, config)) < 0 ||
	    (error = take_lock(pl)) < 0 ||
	    (error = lec__build_env_find_python(&pl->env, NULL)) < 0 ||
	    (error = lec__build_env_identify(&pl->env, config)) < 0 ||
	    (error = recover(pl)) < 0 || (error = warm_pool(pl)) < 0)
		goto fail;
	pl->watch.debounce_ms = config->watch_debounce_ms
					? config->watch_debounce_ms
					: LEC_PIPELINE_WATCH_DEBOUNCE_MS;
	pl->watch.poll_ms = config->watch_poll_ms ? config->watch_poll_ms
						  : LEC_PIPELINE_WATCH_POLL_MS;
	pl->watch.no_inotify = config->watch_no_inotify;
	pl->watch.log = config->watch_log;
	if (!config->no_watch &&
	    (error = lec__watcher_start(&pl->env, &pl->watch,
					&pl->watcher)) < 0) {
		lec_pipeline_stop(pl);
		return error;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&pl->threads[i], NULL, worker, pl) != 0) {
			error = lec__error(LEC_ERROR, "cannot start a worker");
			lec_pipeline_stop(pl);
			return error;
		}
		pl->nthreads++;
	}
	*out = pl;
	return LEC_OK;
fail:
	pipeline_free(pl);
	return error;
}

void lec_pipeline_stop(struct lec_pipeline *pl)
{
	unsigned i;

	if (pl == NULL)
		return;
	lec__build_env_stop(&pl->env);
	for (i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	lec__watcher_stop(pl->watcher);
	pipeline_free(pl);
}
