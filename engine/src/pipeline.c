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
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lectern/repo.h"
#include "lectern/vsync.h"
#include "pipeline_internal.h"
#include "store_internal.h"

extern char **environ;

/* What a build left running by a dead `lectern serve` is finished with. */
#define INTERRUPTED_ERROR                                                    \
	"Lectern stopped while this build was running; trigger it again."

void lec__job_log(struct lec_pipeline *pl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (pl->config.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pl->config.log(pl->config.log_payload, msg);
}

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

int lec__chown_tree(struct lec_pipeline *pl, const char *path,
		    int to_build_user, int recurse)
{
	struct chown_walk c = { geteuid(), getegid(), recurse };

	/* Not root, or a preview's unsandboxed build: nobody to give it to. */
	if (geteuid() != 0 || pl->build_uid == 0)
		return LEC_OK;
	if (to_build_user) {
		c.uid = (uid_t)pl->build_uid;
		c.gid = (gid_t)pl->build_gid;
	}
	return lec__walk(AT_FDCWD, path, chown_visit, &c);
}

/* Python ------------------------------------------------------------------ */

/* Run argv (no shell) and capture the first line of its stdout. */
static int capture_line(char *const *argv, char *out, size_t cap)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0;
	size_t got = 0;
	pid_t pid;
	ssize_t n;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	/* Read to the end: closing early would fail the child's writes. */
	while ((n = read(pipefd[0], out + got, cap - 1 - got)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n > 0)
			got += (size_t)n;
		if (got == cap - 1) {
			char drain[256];

			while (read(pipefd[0], drain, sizeof(drain)) > 0)
				;
			break;
		}
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The generators' versions under one interpreter: "5.3.0 1.4.2", with "-"
 * for a missing one. */
static const char probe_script[] =
	"import importlib\n"
	"v = []\n"
	"for m in ('sphinx', 'mkdocs'):\n"
	"    try: v.append(importlib.import_module(m).__version__)\n"
	"    except Exception: v.append('-')\n"
	"print(' '.join(v))\n";

/* Debian's Sphinx and MkDocs belong to /usr/bin/python3; a python3 earlier
 * on PATH (pyenv, a venv) may lack them. Take the first that has any. */
static int find_python(struct lec_pipeline *pl)
{
	static const char *const candidates[] = { "/usr/bin/python3",
						  "python3" };
	char line[128], sphinx[48], mkdocs[48];
	struct lec__buf about = LEC__BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		char py[32], dash_c[] = "-c", script[sizeof(probe_script)];
		char *argv[] = { py, dash_c, script, NULL };

		snprintf(py, sizeof(py), "%s", candidates[i]);
		memcpy(script, probe_script, sizeof(probe_script));
		if (capture_line(argv, line, sizeof(line)) < 0 ||
		    sscanf(line, "%47s %47s", sphinx, mkdocs) != 2 ||
		    (strcmp(sphinx, "-") == 0 && strcmp(mkdocs, "-") == 0))
			continue;
		pl->python = lec__strdup(candidates[i]);
		pl->has_sphinx = strcmp(sphinx, "-") != 0;
		pl->has_mkdocs = strcmp(mkdocs, "-") != 0;
		lec__buf_printf(&about, "%s (Sphinx %s, MkDocs %s)",
				candidates[i],
				pl->has_sphinx ? sphinx : "not installed",
				pl->has_mkdocs ? mkdocs : "not installed");
		pl->python_about = lec__buf_take(&about);
		return pl->python && pl->python_about ? LEC_OK
						      : lec__error_oom();
	}
	return LEC_OK;
}

const char *lec_pipeline_python(const struct lec_pipeline *pl)
{
	return pl->python_about;
}

/* Recovery ----------------------------------------------------------------- */

static int finish_interrupted(struct lec_store *st)
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
		if ((error = lec_build_finish(st, ids[i], 0,
					      INTERRUPTED_ERROR)) < 0)
			return error;
	/* A full batch may hide more. */
	return n == 64 ? finish_interrupted(st) : LEC_OK;
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
	char *builds = lec__path_join(pl->data_dir, "builds");
	char *outputs = lec__path_join(pl->data_dir, "outputs");
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
			    output_published(pl->data_dir, e->d_name) ||
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
	char *repos = lec__path_join(pl->data_dir, "repos");
	char *mirror = NULL;
	struct lec__buf name = LEC__BUF_INIT;
	int error;

	if ((error = lec_project_get_by_id(st, project_id, &p)) < 0 ||
	    repos == NULL || (error = lec__mkdirs(repos)) < 0)
		goto done;
	if (pl->sandbox_error) {
		error = lec__error(LEC_ERROR, "%s", pl->sandbox_error);
		goto done;
	}
	lec__buf_printf(&name, "%s/%s.git", repos, p->slug);
	if ((mirror = lec__buf_take(&name)) == NULL ||
	    (error = lec__fetch_mirror(pl, p,
				       pl->config.limits.time_limit_s)) < 0 ||
	    (error = lec_repo_list_refs(mirror, &refs)) < 0)
		goto done;
	error = lec_vsync_apply(st, project_id, &refs, &result);
done:
	if (error < 0)
		lec__job_log(pl, "version sync of project %lld failed: %s",
			     (long long)project_id, lec_error_last());
	lec_repo_refs_dispose(&refs);
	lec_project_free(p);
	lec__free(mirror);
	lec__free(repos);
}

static int stopping(struct lec_pipeline *pl)
{
	int s;

	pthread_mutex_lock(&pl->lock);
	s = pl->stopping;
	pthread_mutex_unlock(&pl->lock);
	return s;
}

static void idle(struct lec_pipeline *pl)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)LEC_PIPELINE_POLL_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&pl->lock);
	if (!pl->stopping)
		pthread_cond_timedwait(&pl->wake, &pl->lock, &until);
	pthread_mutex_unlock(&pl->lock);
}

static void *worker(void *arg)
{
	struct lec_pipeline *pl = arg;
	struct lec_store *st = NULL;

	if (lec_store_open_dir(&st, pl->data_dir, NULL) < 0) {
		lec__job_log(pl, "worker cannot open the store: %s",
			     lec_error_last());
		return NULL;
	}
	while (!stopping(pl)) {
		struct lec_build *build = NULL;
		int64_t project_id = 0;

		if (lec_version_sync_take(st, &project_id) == LEC_OK) {
			sync_versions(pl, st, project_id);
			continue;
		}
		if (lec_build_claim(st, &build) == LEC_OK) {
			lec__job_execute(pl, st, build);
			lec_build_free(build);
			continue;
		}
		idle(pl);
	}
	lec_store_free(st);
	return NULL;
}

int lec__pipeline_stopping(struct lec_pipeline *pl)
{
	return stopping(pl);
}

/* Only one process may run a data directory's builds: recovery would
 * otherwise fail and kill the builds another live server is running. The
 * lock goes with the process, kill -9 included. */
static int take_lock(struct lec_pipeline *pl)
{
	char *path = lec__path_join(pl->data_dir, "pipeline.lock");

	LEC__CHECK_ALLOC(path);
	pl->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	lec__free(path);
	if (pl->lock_fd < 0)
		return lec__error(LEC_EIO, "%s: cannot create the build lock: %s",
				  pl->data_dir, strerror(errno));
	if (flock(pl->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return lec__error(LEC_EBUSY,
				  "another lectern serve runs the builds of %s",
				  pl->data_dir);
	return LEC_OK;
}

static void pipeline_free(struct lec_pipeline *pl)
{
	if (pl->lock_fd >= 0)
		close(pl->lock_fd);
	lec__free(pl->data_dir);
	lec__free(pl->docs_domain);
	lec__free(pl->production_domain);
	lec__free(pl->python);
	lec__free(pl->python_about);
	lec__free(pl->helper);
	lec__free(pl->sandbox_error);
	pthread_mutex_destroy(&pl->lock);
	pthread_cond_destroy(&pl->wake);
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

/* Whom builds run as, the helper program, and whether the sandbox can run
 * here at all: without it builds are refused with the reason. */
static int set_identity(struct lec_pipeline *pl,
			const struct lec_pipeline_config *config)
{
	char *why = NULL;

	pl->build_uid = config->build_uid ? config->build_uid
					  : LEC_RUNNER_DEFAULT_UID;
	pl->build_gid = config->build_gid ? config->build_gid
					  : LEC_RUNNER_DEFAULT_GID;
	pl->helper = realpath(config->helper ? config->helper
					     : "/proc/self/exe",
			      NULL);
	if (pl->helper == NULL)
		return lec__error(LEC_EIO, "cannot find the lectern program: %s",
				  strerror(errno));
	if (!lec_runner_sandbox_available(&why)) {
		struct lec__buf b = LEC__BUF_INIT;

		lec__buf_printf(&b, "Builds run only in bubblewrap's sandbox, "
				    "which cannot run here: %s",
				why ? why : "unknown reason");
		lec__free(why);
		if ((pl->sandbox_error = lec__buf_take(&b)) == NULL)
			return lec__error_oom();
	}
	return LEC_OK;
}

static int recover(struct lec_pipeline *pl)
{
	struct lec_store *st = NULL;
	int error;

	if ((error = lec_store_open_dir(&st, pl->data_dir, NULL)) < 0)
		return error;
	error = finish_interrupted(st);
	if (error == LEC_OK)
		remove_leftovers(pl, st);
	lec_store_free(st);
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
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->wake, NULL);
	pl->lock_fd = -1;
	pl->config = *config;
	pl->data_dir = lec__strdup(config->data_dir);
	pl->docs_domain = lec__strdup(config->docs_domain ? config->docs_domain
							  : "localhost");
	pl->production_domain = lec__strdup(
		config->production_domain ? config->production_domain
					  : "localhost");
	if (pl->data_dir == NULL || pl->docs_domain == NULL ||
	    pl->production_domain == NULL) {
		error = lec__error_oom();
		goto fail;
	}
	if ((error = take_lock(pl)) < 0 || (error = find_python(pl)) < 0 ||
	    (error = set_identity(pl, config)) < 0 ||
	    (error = recover(pl)) < 0)
		goto fail;
	pl->watch_debounce_ms = config->watch_debounce_ms
					? config->watch_debounce_ms
					: LEC_PIPELINE_WATCH_DEBOUNCE_MS;
	pl->watch_poll_ms = config->watch_poll_ms ? config->watch_poll_ms
						  : LEC_PIPELINE_WATCH_POLL_MS;
	if (!config->no_watch &&
	    (error = lec__watcher_start(pl, &pl->watcher)) < 0) {
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
	pthread_mutex_lock(&pl->lock);
	pl->stopping = 1;
	pthread_cond_broadcast(&pl->wake);
	pthread_mutex_unlock(&pl->lock);
	for (i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	lec__watcher_stop(pl->watcher);
	pipeline_free(pl);
}
