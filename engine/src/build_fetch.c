/*
 * The checkout step of a build, and the fetch of a version sync: the
 * project's repo cache (repos/<project>.git) is brought up to date and the
 * version's commit checked out of it, both by the `lectern __repo` helper
 * run through the runner, in the sandbox, as the build user, within the
 * build's remaining time. libgit2 1.5 has no transport timeouts and a
 * stalled server never calls back; a child can be killed at the deadline.
 *
 * The first fetch of a project clones into repos/<project>.git.new/ (the
 * only directory the helper may write), which is renamed into place once
 * complete. A later fetch first removes what a killed fetch leaves behind
 * (lock files, libgit2's partial packs), holding the repo cache's lock file so
 * that a build and a version sync never fetch one repo cache at once.
 *
 * The checkout is a clone as the service makes it (repo_clone.c): with
 * the files the helper writes the .git that `git clone --depth 1` and
 * `git fetch --depth 50` of what the service fetches for the version
 * (fetched_ref) leave, whose objects and `git fetch` are the repo cache's,
 * which every command of the build sees read-only (job.c). It is made
 * afresh at every checkout: the build owns it, and the engine never runs
 * git in it.
 *
 * The helper reports progress as lines on its output (repo_helper.c): they
 * become the build's `progress` (written at most every PROGRESS_WRITE_MS)
 * and, at the end, one summary line per phase in the log, so that the
 * clone's recorded output is a few lines whatever the repository's size.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "build_fetch.h"
#include "build_steps.h"
#include "lectern/external.h"
#include "lectern/localrepo.h"
#include "lectern/repo.h"
#include "lectern/vsync.h"
#include "store_internal.h"

/* How often a running build's progress is written to the store: live for
 * a person watching, negligible for the database. */
#define PROGRESS_WRITE_MS 250
/* Submodules of submodules followed at most this deep (recursive): real
 * projects nest one or two; this bounds a hostile chain. */
#define SUBMODULE_MAX_DEPTH 4
/* Most arguments a helper command takes (`clone`'s five and its verb). */
#define HELPER_ARGS_MAX 6
/* Longest helper output line kept: progress lines are a few dozen bytes. */
#define HELPER_LINE_MAX 256
/* Most output of the helper's submodule listing kept: LEC_REPO_MAX_SUBMODULES
 * lines of a name, a path, a URL and a commit each. */
#define HELPER_COLLECT_MAX ((size_t)LEC_REPO_MAX_SUBMODULES * 8192)
/* What the helper's environment takes from the server's: proxies for the
 * network, and the sanitizers' settings of a test build. */
static const char *const helper_passthrough[] = {
	"http_proxy",	"https_proxy",	 "no_proxy",	 "HTTP_PROXY",
	"HTTPS_PROXY",	"NO_PROXY",	 "ASAN_OPTIONS", "UBSAN_OPTIONS",
	"LSAN_OPTIONS",
};

/* The phases the helper reports, in order, and how the log tells each. */
enum phase { PHASE_RECEIVING, PHASE_RESOLVING, PHASE_CHECKOUT, PHASE_COUNT };
static const char *const phase_names[PHASE_COUNT] = { "receiving", "resolving",
						      "checkout" };

struct phase_state {
	int seen;
	size_t done, total, bytes;
};

/* One helper run: its output parsed into progress. */
struct helper_watch {
	struct lec__job *job; /* NULL for a version sync */
	char line[HELPER_LINE_MAX];
	size_t len;
	int overlong;  /* the current line was cut */
	struct phase_state phases[PHASE_COUNT];
	enum phase current;
	int64_t written_ms; /* last progress write */
	struct lec__tail tail; /* for the cause of a failure */
	struct lec__buf *all;  /* every byte, up to HELPER_COLLECT_MAX, or NULL */
	int all_cut;           /* all stopped short of the output */
};

/* Progress --------------------------------------------------------------- */

static void progress_write(struct helper_watch *w, int force)
{
	const struct phase_state *p = &w->phases[w->current];
	int64_t now = lec__monotonic_ms();
	char json[160];

	if (w->job == NULL || w->job->st == NULL ||
	    (!force && now - w->written_ms < PROGRESS_WRITE_MS))
		return;
	w->written_ms = now;
	if (p->total > 0)
		snprintf(json, sizeof(json),
			 "{\"phase\":\"%s\",\"objects\":%zu,\"total\":%zu,"
			 "\"bytes\":%zu,\"percent\":%zu}",
			 phase_names[w->current], p->done, p->total, p->bytes,
			 p->done * 100 / p->total);
	else
		snprintf(json, sizeof(json),
			 "{\"phase\":\"%s\",\"objects\":%zu,\"total\":null,"
			 "\"bytes\":%zu,\"percent\":null}",
			 phase_names[w->current], p->done, p->bytes);
	lec_build_set_progress(w->job->st, w->job->build->id, json);
}

/* "progress PHASE DONE TOTAL BYTES"; anything else is left to the tail. */
static void helper_line(struct helper_watch *w, const char *line)
{
	char phase[16];
	size_t done, total, bytes, i;

	if (sscanf(line, "progress %15s %zu %zu %zu", phase, &done, &total,
		   &bytes) != 4)
		return;
	for (i = 0; i < PHASE_COUNT; i++) {
		if (strcmp(phase, phase_names[i]) != 0)
			continue;
		w->current = (enum phase)i;
		w->phases[i] =
			(struct phase_state){ 1, done, total, bytes };
		progress_write(w, 0);
	}
}

static int helper_output(const char *data, size_t len, void *payload)
{
	struct helper_watch *w = payload;
	size_t i;

	lec__tail_add(&w->tail, data, len);
	if (w->all && w->all->len + len <= HELPER_COLLECT_MAX)
		lec__buf_putn(w->all, data, len);
	else if (w->all)
		w->all_cut = 1;
	for (i = 0; i < len; i++) {
		if (data[i] == '\n') {
			w->line[w->len] = '\0';
			if (!w->overlong)
				helper_line(w, w->line);
			w->len = 0;
			w->overlong = 0;
		} else if (w->len + 1 < sizeof(w->line)) {
			w->line[w->len++] = data[i];
		} else {
			w->overlong = 1;
		}
	}
	return 0;
}

static int helper_cancel(void *payload)
{
	struct helper_watch *w = payload;

	return w->job ? lec__job_cancelled(w->job) : 0;
}

/* One log line per phase the helper went through, as git prints them. */
static void phase_summary(const struct helper_watch *w, struct lec__buf *b)
{
	const struct phase_state *recv = &w->phases[PHASE_RECEIVING];
	const struct phase_state *res = &w->phases[PHASE_RESOLVING];
	const struct phase_state *co = &w->phases[PHASE_CHECKOUT];

	if (recv->seen)
		lec__buf_printf(b, "Receiving objects: 100%% (%zu/%zu), "
				   "%.2f MiB, done.\n",
				recv->done, recv->total,
				(double)recv->bytes / (1024.0 * 1024.0));
	if (res->seen)
		lec__buf_printf(b, "Resolving deltas: 100%% (%zu/%zu), done.\n",
				res->done, res->total);
	if (co->seen)
		lec__buf_printf(b, "Updating files: 100%% (%zu), done.\n",
				co->done);
}

/* Record a helper command's outcome: the phase summary, and the cause
 * when it failed (not when it was cancelled), then its exit status. */
static void record_outcome(struct lec__job *job, int64_t id,
			   const struct helper_watch *w, int rc,
			   const char *cause)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *text;

	phase_summary(w, &b);
	if (rc < 0 && !job->cancelled)
		lec__buf_printf(&b, "%s\n", cause);
	if ((text = lec__buf_take(&b)) != NULL && *text)
		lec__job_record_text(job, id, text);
	lec__free(text);
	lec__job_record_finish(job, id, rc < 0 ? 1 : 0);
}

/* Running the helper ----------------------------------------------------- */

/* The helper's whole environment: the URL (never an argv), a fixed PATH
 * and HOME, and what the pass-through list names that is set. */
static int helper_env(char ***env, const char *url)
{
	size_t n = 0, i;
	int error;

	if ((error = lec__env_add(env, &n, "PATH", "/usr/bin:/bin")) < 0 ||
	    (error = lec__env_add(env, &n, "HOME", "/tmp")) < 0 ||
	    (error = lec__env_add(env, &n, "LANG", "C.UTF-8")) < 0 ||
	    (url && (error = lec__env_add(env, &n, "LECTERN_REPO_URL", url)) <
			    0))
		return error;
	for (i = 0; error == LEC_OK &&
		    i < sizeof(helper_passthrough) / sizeof(helper_passthrough[0]);
	     i++)
		if (getenv(helper_passthrough[i]))
			error = lec__env_add(env, &n, helper_passthrough[i],
					     getenv(helper_passthrough[i]));
	return error;
}

/* Run `lectern __repo ARGS...` with these mounts (the helper program is
 * added) for at most time_limit_s. The result says how it ended. */
static int helper_run(struct lec__build_env *env, const char *const *args,
		      const char *url, struct lec_runner_mount *mounts,
		      size_t nmounts, int network, int same_user,
		      unsigned time_limit_s, struct helper_watch *w,
		      struct lec_runner_result *r)
{
	const char *argv[HELPER_ARGS_MAX + 3];
	char **vars = NULL;
	struct lec_runner_limits limits = env->limits;
	struct lec_runner_spec spec = { 0 };
	size_t n = 0, i;
	int error;

	argv[n++] = env->helper;
	argv[n++] = LEC_PIPELINE_HELPER_WORD;
	for (i = 0; args[i] && i < HELPER_ARGS_MAX; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	mounts[nmounts++] = (struct lec_runner_mount){ env->helper, 0 };
	limits.time_limit_s = time_limit_s;
	/* Lectern's own code: an address-space cap would only break builds
	 * of Lectern under AddressSanitizer, which reserves terabytes. */
	limits.memory_bytes = 0;
	if ((error = helper_env(&vars, url)) == LEC_OK) {
		spec.argv = argv;
		spec.env = (const char *const *)vars;
		spec.cwd = "/";
		spec.mounts = mounts;
		spec.nmounts = nmounts;
		/* The host's network: the helper is Lectern's own code
		 * (libgit2), never the repository's (docs/hardening.md,
		 * issue 27 item 9). */
		spec.network = network ? LEC_RUNNER_NET_HOST : LEC_RUNNER_NET_NONE;
		spec.uid = env->build_uid;
		spec.gid = env->build_gid;
		spec.same_user = same_user;
		spec.limits = &limits;
		error = lec__job_runner(w->job, &spec, helper_output,
					helper_cancel, w, r);
	}
	lec__env_free(vars);
	return error;
}

/* Why a helper run failed, in one line without the URL's credentials:
 * error is helper_run's own (the run could not start) or LEC_OK. */
static void helper_cause(struct helper_watch *w,
			 const struct lec_runner_result *r, int error,
			 char *out, size_t cap, unsigned time_limit_s)
{
	if (error < 0)
		snprintf(out, cap, "%s", lec_error_last());
	else if (r->end == LEC_RUNNER_TIMED_OUT)
		snprintf(out, cap,
			 "it did not finish within the %u seconds left of "
			 "the build's time limit",
			 time_limit_s);
	else if (r->end == LEC_RUNNER_OUTPUT_LIMIT ||
		 r->end == LEC_RUNNER_DISK_LIMIT ||
		 r->end == LEC_RUNNER_TREE_LIMIT)
		snprintf(out, cap, "it exceeded a limit of the build");
	else
		lec__tail_cause(&w->tail, out, cap);
	if (strncmp(out, "error: ", 7) == 0)
		memmove(out, out + 7, strlen(out + 7) + 1);
}

/* The repo cache ------------------------------------------------------------- */

/* Remove what a killed fetch leaves in a repo cache: *.lock files at its top
 * and below refs/, and libgit2's partial packs. */
static void remove_stale(const char *dir, const char *prefix,
			 const char *suffix, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name), m = strlen(suffix);
		char *path;

		if (e->d_name[0] == '.' ||
		    (path = lec__path_join(dir, e->d_name)) == NULL)
			continue;
		if (e->d_type == DT_DIR && depth > 0)
			remove_stale(path, prefix, suffix, depth - 1);
		else if (e->d_type == DT_REG &&
			 strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
			 n >= m && strcmp(e->d_name + n - m, suffix) == 0)
			unlink(path);
		lec__free(path);
	}
	if (d)
		closedir(d);
}

static void clean_repo_cache(const char *repo_cache)
{
	char *refs = lec__path_join(repo_cache, "refs");
	char *packs = lec__path_join(repo_cache, "objects/pack");

	remove_stale(repo_cache, "", ".lock", 0);
	if (refs)
		remove_stale(refs, "", ".lock", 32);
	if (packs)
		remove_stale(packs, "pack_git2_", "", 0);
	lec__free(refs);
	lec__free(packs);
}

/* The repo cache's lock, held for a whole fetch (blocking: the other fetch
 * ends by its own deadline). -1 on failure. */
static int lock_repo_cache(const char *repo_cache)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;
	int fd;

	lec__buf_printf(&b, "%s.lock", repo_cache);
	if ((path = lec__buf_take(&b)) == NULL)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	lec__free(path);
	if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct fetch_plan {
	char *local;   /* a local repository's checked path, or NULL */
	/* The helper runs as the server's user: a local repository is
	 * readable by its owner, not necessarily by the build user. */
	int same_user;
	char *target;  /* what the helper fetches into */
	char *staging; /* <repo cache>.new for a first clone, else NULL */
	struct lec_runner_mount mounts[4];
	size_t nmounts;
};

static void fetch_plan_dispose(struct fetch_plan *fp)
{
	if (fp->staging)
		lec__remove_tree(fp->staging);
	lec__free(fp->local);
	lec__free(fp->target);
	lec__free(fp->staging);
}

/* What the helper writes: the repo cache, or a fresh staging directory for a
 * first clone; and what it reads: a local repository. */
static int fetch_prepare(struct lec__build_env *env, const char *url,
			 const char *repo_cache, struct fetch_plan *fp)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *writable = repo_cache;
	struct stat sb;
	int error;

	/* Checked again at every fetch: the allowed directories or the
	 * repository's place may have changed since the import. */
	memset(fp, 0, sizeof(*fp));
	if ((error = lec_localrepo_check(url, env->local_roots,
					 &fp->local)) < 0)
		return error;
	fp->same_user = fp->local != NULL;
	if (stat(repo_cache, &sb) == 0) {
		clean_repo_cache(repo_cache);
		if ((error = lec__chown_tree(env, repo_cache, !fp->same_user, 1)) <
		    0)
			return error;
		fp->target = lec__strdup(repo_cache);
	} else {
		lec__buf_printf(&b, "%s.new", repo_cache);
		fp->staging = lec__buf_take(&b);
		if (fp->staging == NULL)
			return lec__error_oom();
		lec__remove_tree(fp->staging);
		if ((error = lec__mkdirs(fp->staging)) < 0 ||
		    (error = lec__chown_tree(env, fp->staging, !fp->same_user,
					     0)) < 0)
			return error;
		fp->target = lec__path_join(fp->staging, "cache.git");
		writable = fp->staging;
	}
	if (fp->target == NULL)
		return lec__error_oom();
	fp->mounts[fp->nmounts++] = (struct lec_runner_mount){ writable, 1 };
	if (fp->local && stat(fp->local, &sb) == 0)
		fp->mounts[fp->nmounts++] =
			(struct lec_runner_mount){ fp->local, 0 };
	return LEC_OK;
}

/* Fetch url's repo cache through the helper (and request_ref, a pull
 * request's head, when not NULL). LEC_OK, or LEC_ERROR with cause saying
 * why in one line (the thread's message is not set). */
static int fetch(struct lec__build_env *env, const char *url,
		 const char *repo_cache, const char *request_ref,
		 unsigned time_limit_s, struct helper_watch *w, char *cause,
		 size_t cap)
{
	struct lec_runner_result r = { 0 };
	struct fetch_plan fp;
	const char *args[] = { "fetch", NULL, request_ref, NULL };
	char *parent = lec__strdup(repo_cache), *slash;
	int lock = -1, error, ok = 0;

	cause[0] = '\0';
	/* A submodule's repo cache is the first in its directory. */
	if (parent && (slash = strrchr(parent, '/')) != NULL) {
		*slash = '\0';
		lec__mkdirs(parent);
	}
	lec__free(parent);
	lock = lock_repo_cache(repo_cache);
	if (lock < 0) {
		snprintf(cause, cap, "cannot lock %s: %s", repo_cache,
			 strerror(errno));
		return LEC_ERROR;
	}
	error = fetch_prepare(env, url, repo_cache, &fp);
	if (error == LEC_OK) {
		args[1] = fp.target;
		error = helper_run(env, args, fp.local ? fp.local : url,
				   fp.mounts, fp.nmounts, !fp.same_user,
				   fp.same_user, time_limit_s, w, &r);
		ok = error == LEC_OK && r.end == LEC_RUNNER_EXITED &&
		     r.exit_code == 0;
	}
	if (!ok)
		helper_cause(w, &r, error, cause, cap, time_limit_s);
	else if (fp.staging && rename(fp.target, repo_cache) != 0) {
		snprintf(cause, cap, "cannot move the new repo cache into place: %s",
			 strerror(errno));
		ok = 0;
	}
	/* Checkouts read the repo cache as the build user. */
	if (ok && fp.same_user && lec__chown_tree(env, repo_cache, 1, 1) < 0) {
		snprintf(cause, cap, "%s", lec_error_last());
		ok = 0;
	}
	fetch_plan_dispose(&fp);
	close(lock);
	return ok ? LEC_OK : LEC_ERROR;
}

/* The build's time left, in whole seconds (at least 1). */
static unsigned time_left_s(const struct lec__job *job)
{
	int64_t left;

	if (job->deadline_ms == 0)
		return job->env->limits.time_limit_s;
	left = job->deadline_ms - lec__monotonic_ms();
	return left > 1000 ? (unsigned)((left + 999) / 1000) : 1;
}

int lec__fetch_repo_cache(struct lec__build_env *env, const struct lec_project *p,
		      unsigned time_limit_s)
{
	struct helper_watch w;
	struct lec__buf b = LEC__BUF_INIT;
	char cause[LEC__CAUSE_MAX], *repo_cache;
	int rc;

	memset(&w, 0, sizeof(w));
	lec__buf_printf(&b, "%s/repos/%s.git", env->data_dir, p->slug);
	if ((repo_cache = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	rc = fetch(env, p->repo_url, repo_cache, NULL, time_limit_s, &w, cause,
		   sizeof(cause));
	lec__free(repo_cache);
	return rc < 0 ? lec__error(LEC_EIO, "%s", cause) : LEC_OK;
}

/* The checkout step -------------------------------------------------------- */

/* Record the fetch as the command it is, with a summary as its output. */
static int job_fetch(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_external *request = NULL;
	struct helper_watch w;
	char cause[LEC__CAUSE_MAX], *repo, *text;
	struct stat sb;
	int first = stat(job->repo_cache, &sb) != 0, rc;
	int64_t id;

	memset(&w, 0, sizeof(w));
	w.job = job;
	/* A pull request's version is built from the request's head ref,
	 * which the branches and tags do not hold. */
	if (job->version->type == LEC_VERSION_EXTERNAL &&
	    lec_external_get(job->st, job->version->id, &request) < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	/* A branch preview's branch is cached like every branch. */
	if (request && !lec_repo_is_request_ref(request->ref)) {
		lec_external_free(request);
		request = NULL;
	}
	repo = lec_repo_redact_url(job->project->repo_url);
	/* What runs, as the git commands it amounts to: a repo cache of
	 * every branch and tag (full history: libgit2 1.5 cannot fetch
	 * shallow), then only what is new. */
	if (first)
		lec__buf_printf(&b, "git clone --mirror %s repos/%s.git",
				repo ? repo : "", job->project->slug);
	else
		lec__buf_printf(&b, "git fetch --prune --force %s "
				    "'+refs/heads/*:refs/heads/*' "
				    "'+refs/tags/*:refs/tags/*'",
				repo ? repo : "");
	if (request)
		lec__buf_printf(&b, "%s'+%s:%s'", first ? " && git fetch " : " ",
				request->ref, request->ref);
	lec__free(repo);
	if ((text = lec__buf_take(&b)) == NULL ||
	    lec__job_record_start(job, text, &id) < 0) {
		lec__free(text);
		lec_external_free(request);
		return lec__job_fail(job, "out of memory");
	}
	lec__free(text);
	rc = fetch(job->env, job->project->repo_url, job->repo_cache,
		   request ? request->ref : NULL, time_left_s(job), &w, cause,
		   sizeof(cause));
	lec_external_free(request);
	record_outcome(job, id, &w, rc, cause);
	if (rc < 0 && !job->cancelled)
		return lec__job_fail(job, "%s the repository failed: %s",
				     first ? "Cloning" : "Fetching", cause);
	return rc;
}

/* The commit a version stands for, and the branch or tag name behind it. */
static int resolve_commit(struct lec__job *job,
			  const struct lec_repo_refs *refs)
{
	const struct lec_version *v = job->version;
	const char *name = v->identifier;
	enum lec_repo_ref_type type = v->type == LEC_VERSION_TAG
					      ? LEC_REPO_TAG
					      : LEC_REPO_BRANCH;

	if (v->machine && name == NULL)
		name = refs->default_branch;
	if (name == NULL && refs->len == 0)
		return lec__job_fail(job, "The repository is empty: it has no "
					  "branch or tag to build.");
	if (name == NULL)
		return lec__job_fail(job, "The repository has no default "
					  "branch; set the project's default "
					  "branch.");
	if (lec_repo_is_commit_id(name)) {
		job->commit = lec__strdup(name);
		job->git_identifier = lec__strdup(v->verbose_name);
	} else {
		if (lec_repo_resolve(job->repo_cache, name, type, &job->commit) < 0)
			return lec__job_fail(job, "%s", lec_error_last());
		job->git_identifier = lec__strdup(name);
	}
	return job->commit && job->git_identifier
		       ? LEC_OK
		       : lec__job_fail(job, "out of memory");
}

/* The service syncs versions from the fresh refs while cloning. */
static int sync_refs(struct lec__job *job)
{
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result synced = { 0 };
	struct lec_version *fresh = NULL;
	int rc = LEC_ERROR;

	if (lec_repo_list_refs(job->repo_cache, &refs) < 0 ||
	    lec_vsync_apply(job->st, job->project->id, &refs, &synced) < 0 ||
	    lec_version_get_by_id(job->st, job->version->id, &fresh) < 0) {
		lec__job_fail(job, "Reading the repository's branches and tags "
				   "failed: %s",
			      lec_error_last());
	} else {
		lec_version_free(job->version);
		job->version = fresh;
		rc = resolve_commit(job, &refs);
	}
	lec_repo_refs_dispose(&refs);
	return rc;
}

/* Run `lectern __repo checkout REPO_CACHE COMMIT TARGET` (a submodule's
 * files), or with ref (what the service fetched) `lectern __repo clone
 * REPO_CACHE COMMIT TARGET FROM|- REF`: the build's checkout and its .git,
 * updating the kept tree of FROM when given, its changes collected in
 * *changes. Recorded as the command display; LEC_OK, or LEC_ERROR with
 * the cause (the job not failed). */
static int run_checkout(struct lec__job *job, const char *display,
			const char *repo_cache, const char *commit,
			const char *target, const char *from, const char *ref,
			struct lec__buf *changes, int *cut, char *cause,
			size_t cap)
{
	struct lec_runner_mount mounts[3] = { { repo_cache, 0 },
					      { job->checkout, 1 } };
	const char *args[] = { ref ? "clone" : "checkout", repo_cache, commit,
			       target, from ? from : "-", ref, NULL };
	struct lec_runner_result r = { 0 };
	struct helper_watch w;
	unsigned left = time_left_s(job);
	char *url = ref ? lec_repo_redact_url(job->project->repo_url) : NULL;
	int64_t id;
	int error, rc = LEC_OK;

	if (ref == NULL)
		args[4] = NULL; /* a submodule's files alone */
	memset(&w, 0, sizeof(w));
	w.job = job;
	w.all = changes;
	snprintf(cause, cap, "out of memory");
	if ((ref && url == NULL) || lec__job_record_start(job, display, &id) < 0) {
		lec__free(url);
		return LEC_ERROR;
	}
	error = helper_run(job->env, args, url, mounts, 2, 0, 0, left, &w, &r);
	if (error < 0 || r.end != LEC_RUNNER_EXITED || r.exit_code != 0) {
		helper_cause(&w, &r, error, cause, cap, left);
		rc = LEC_ERROR;
	}
	record_outcome(job, id, &w, rc, cause);
	if (cut)
		*cut = w.all_cut;
	lec__free(url);
	return rc;
}

/* Write a commit's files into target (inside the checkout), from repo cache,
 * through the helper, with the .git of the service's clone when ref is
 * given; recorded as the command display. */
static int checkout_files(struct lec__job *job, const char *display,
			  const char *repo_cache, const char *commit,
			  const char *target, const char *ref)
{
	char cause[LEC__CAUSE_MAX];

	if (run_checkout(job, display, repo_cache, commit, target, NULL, ref, NULL,
			 NULL, cause, sizeof(cause)) == LEC_OK)
		return LEC_OK;
	return job->cancelled ? LEC_ERROR
			      : lec__job_fail(job, "Checking out %s failed: %s",
					      commit, cause);
}

/* Submodules ------------------------------------------------------------------ */

/* Whether the configuration asks for this submodule (notes: include a list
 * or all; exclude a list or all, all by default unless include is given). */
static int submodule_wanted(const struct lec_rtd_config *c, const char *name)
{
	size_t i;
	int wanted;

	if (c == NULL)
		return 0;
	if (c->submodules_all_included)
		wanted = 1;
	else if (c->submodules_include.len > 0) {
		for (wanted = 0, i = 0; i < c->submodules_include.len; i++)
			wanted |= strcmp(c->submodules_include.items[i], name) ==
				  0;
	} else {
		wanted = !c->submodules_all_excluded;
	}
	for (i = 0; wanted && i < c->submodules_exclude.len; i++)
		wanted = strcmp(c->submodules_exclude.items[i], name) != 0;
	return wanted;
}

/* ssh://host/x and scp-like user@host:x: Lectern has no keys to offer. */
static int is_ssh_url(const char *url)
{
	size_t colon = strcspn(url, ":"), slash = strcspn(url, "/");

	return strncmp(url, "ssh://", 6) == 0 || strncmp(url, "git+ssh://", 10) == 0 ||
	       (url[colon] == ':' && colon < slash && strstr(url, "://") == NULL);
}

/* A submodule URL relative to its superproject's ("../x.git" beside it),
 * as git resolves it; an absolute one as it is. */
static char *absolute_url(const char *base, const char *url)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t n = strlen(base);

	if (strncmp(url, "./", 2) != 0 && strncmp(url, "../", 3) != 0)
		return lec__strdup(url);
	while (n > 0 && base[n - 1] == '/')
		n--;
	for (;;) {
		if (strncmp(url, "./", 2) == 0) {
			url += 2;
		} else if (strncmp(url, "../", 3) == 0) {
			while (n > 0 && base[n - 1] != '/')
				n--;
			while (n > 0 && base[n - 1] == '/')
				n--;
			url += 3;
		} else {
			break;
		}
	}
	lec__buf_printf(&b, "%.*s/%s", (int)n, base, url);
	return lec__buf_take(&b);
}

/* repos/<project>.modules/<name>.git, the name made a safe file name. */
static char *submodule_cache(const struct lec__job *job, const char *name)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path, *p;
	size_t start;

	lec__buf_printf(&b, "%s/repos/%s.modules/", job->env->data_dir,
			job->project->slug);
	start = b.len;
	lec__buf_printf(&b, "%.64s.git", name);
	if ((path = lec__buf_take(&b)) == NULL)
		return NULL;
	for (p = path + start; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		      *p == '.') || (p == path + start && *p == '.'))
			*p = '_';
	return path;
}

/* Fetch and check out one submodule into checkout/<path>. */
static int submodule_update(struct lec__job *job, const char *base_url,
			    const char *dir, const struct lec_repo_submodule *s,
			    char **repo_cache)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct helper_watch w;
	char cause[LEC__CAUSE_MAX], *url = absolute_url(base_url, s->url);
	char *display = NULL, *target = NULL, *shown = NULL;
	int64_t id;
	int rc = LEC_ERROR;

	memset(&w, 0, sizeof(w));
	w.job = job;
	*repo_cache = submodule_cache(job, s->name);
	target = lec__path_join(dir, s->path);
	shown = url ? lec_repo_redact_url(url) : NULL;
	if (url == NULL || *repo_cache == NULL || target == NULL || shown == NULL) {
		lec__job_fail(job, "out of memory");
		goto done;
	}
	if (is_ssh_url(url)) {
		lec__job_fail(job, "Submodule %s: ssh URLs are not supported "
				   "(%s); use https:// or git://",
			      s->name, shown);
		goto done;
	}
	/* Another project's local repository, as the import would refuse
	 * it (a preview has no store: its tree is its user's). */
	if (job->st &&
	    lec__project_local_submodule_check(job->st, job->project->id,
					       url) < 0) {
		lec__job_fail(job, "Submodule %s: %s (%s)", s->name,
			      lec_error_last(), shown);
		goto done;
	}
	lec__buf_printf(&b, "git submodule update --init %s (%s)", s->path,
			shown);
	if ((display = lec__buf_take(&b)) == NULL ||
	    lec__job_record_start(job, display, &id) < 0)
		goto done;
	rc = fetch(job->env, url, *repo_cache, NULL, time_left_s(job), &w, cause,
		   sizeof(cause));
	record_outcome(job, id, &w, rc, cause);
	lec__free(display);
	display = NULL;
	if (rc < 0) {
		if (!job->cancelled)
			lec__job_fail(job, "Fetching submodule %s failed: %s",
				      s->name, cause);
		goto done;
	}
	lec__free(display);
	lec__buf_printf(&b, "git -C %s checkout --force %s", s->path,
			s->commit);
	rc = (display = lec__buf_take(&b)) == NULL
		     ? lec__job_fail(job, "out of memory")
		     : checkout_files(job, display, *repo_cache, s->commit, target,
				      NULL);
done:
	lec__free(url);
	lec__free(shown);
	lec__free(display);
	lec__free(target);
	return rc;
}

/* One "submodule {...}" line of the helper into subs. */
static int submodule_line(const char *line, struct lec_repo_submodules *subs)
{
	static const char *const keys[] = { "name", "path", "url", "commit" };
	struct lec_repo_submodule *grown, *s;
	cJSON *o = cJSON_Parse(line + strlen("submodule "));
	char **fields[4];
	size_t i;
	int error = LEC_OK;

	if (subs->len >= LEC_REPO_MAX_SUBMODULES || o == NULL) {
		cJSON_Delete(o);
		return o ? LEC_OK : lec__error(LEC_ECORRUPT, "unreadable output");
	}
	if ((grown = lec__realloc(subs->items,
				  (subs->len + 1) * sizeof(*grown))) == NULL) {
		cJSON_Delete(o);
		return lec__error_oom();
	}
	subs->items = grown;
	s = &grown[subs->len++];
	memset(s, 0, sizeof(*s));
	fields[0] = &s->name;
	fields[1] = &s->path;
	fields[2] = &s->url;
	fields[3] = &s->commit;
	for (i = 0; error == LEC_OK && i < 4; i++) {
		const char *v = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(o, keys[i]));

		if (v == NULL)
			error = lec__error(LEC_ECORRUPT, "unreadable output");
		else if ((*fields[i] = lec__strdup(v)) == NULL)
			error = lec__error_oom();
	}
	cJSON_Delete(o);
	return error;
}

/* The submodules .gitmodules names at commit of repo cache, read by the helper
 * in the sandbox (an [include] in it could name any file of the host). */
static int list_submodules(struct lec__job *job, const char *repo_cache,
			   const char *commit, struct lec_repo_submodules *subs)
{
	struct lec_runner_mount mounts[2] = { { repo_cache, 0 } };
	const char *args[] = { "submodules", repo_cache, commit, NULL };
	struct lec_runner_result r = { 0 };
	struct lec__buf all = LEC__BUF_INIT;
	struct helper_watch w;
	char cause[LEC__CAUSE_MAX], *text, *line, *save = NULL;
	unsigned left = time_left_s(job);
	int error;

	memset(&w, 0, sizeof(w));
	w.job = job;
	w.all = &all;
	memset(subs, 0, sizeof(*subs));
	error = helper_run(job->env, args, NULL, mounts, 1, 0, 0, left, &w, &r);
	text = lec__buf_take(&all);
	if (error == LEC_OK &&
	    (r.end != LEC_RUNNER_EXITED || r.exit_code != 0)) {
		helper_cause(&w, &r, error, cause, sizeof(cause), left);
		error = lec__error(LEC_ECORRUPT, "%s", cause);
	}
	for (line = text ? strtok_r(text, "\n", &save) : NULL;
	     error == LEC_OK && line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "submodule ", 10) == 0)
			error = submodule_line(line, subs);
	if (error == LEC_OK && text == NULL)
		error = lec__error_oom();
	if (error < 0)
		lec_repo_submodules_dispose(subs);
	lec__free(text);
	return error;
}

/* The submodules of the tree in dir (checked out of repo cache at commit) the
 * configuration wants; with submodules.recursive, theirs too, down to
 * SUBMODULE_MAX_DEPTH. */
static int update_submodules(struct lec__job *job, const char *base_url,
			     const char *repo_cache, const char *commit,
			     const char *dir, int depth)
{
	struct lec_repo_submodules subs = { 0 };
	size_t i;
	int rc = LEC_OK;

	if (list_submodules(job, repo_cache, commit, &subs) < 0)
		return job->cancelled
			       ? LEC_ERROR
			       : lec__job_fail(job, "Reading .gitmodules "
						    "failed: %s",
					       lec_error_last());
	for (i = 0; rc == LEC_OK && i < subs.len; i++) {
		const struct lec_repo_submodule *s = &subs.items[i];
		char *sub_cache = NULL, *sub_dir = NULL, *sub_url = NULL;

		if (depth == 0 && !submodule_wanted(job->config, s->name))
			continue;
		rc = submodule_update(job, base_url, dir, s, &sub_cache);
		if (rc == LEC_OK && job->config->submodules_recursive &&
		    depth + 1 < SUBMODULE_MAX_DEPTH) {
			sub_dir = lec__path_join(dir, s->path);
			sub_url = absolute_url(base_url, s->url);
			rc = sub_dir && sub_url
				     ? update_submodules(job, sub_url, sub_cache,
							 s->commit, sub_dir,
							 depth + 1)
				     : lec__job_fail(job, "out of memory");
		}
		lec__free(sub_cache);
		lec__free(sub_dir);
		lec__free(sub_url);
	}
	lec_repo_submodules_dispose(&subs);
	return rc;
}

int lec__job_submodules(struct lec__job *job)
{
	const struct lec_rtd_config *c = job->config;

	if (c == NULL || (c->submodules_include.len == 0 &&
			  !c->submodules_all_included &&
			  c->submodules_all_excluded))
		return LEC_OK;
	return update_submodules(job, job->project->repo_url, job->repo_cache,
				 job->commit, job->checkout, 0);
}

/* The letters of "change C PATH" lines, as job->changes bits; all of
 * them when the lines were cut (too many changes to list). */
static unsigned long change_bits(const struct lec__buf *out, int cut)
{
	const char *p = out->ptr, *end = out->ptr + out->len;
	unsigned long bits = 0;

	if (cut)
		return ~0UL;
	while (p && p < end) {
		if (end - p > 9 && strncmp(p, "change ", 7) == 0 &&
		    p[7] >= 'A' && p[7] <= 'Z')
			bits |= 1UL << (p[7] - 'A');
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : NULL;
	}
	return bits;
}

/* Update the kept tree from the commit it holds; LEC_OK, or LEC_ERROR
 * when it must be checked out afresh (noted, never a failed build). */
static int update_tree(struct lec__job *job, const char *display,
		       const char *from, const char *ref)
{
	struct lec__buf changes = LEC__BUF_INIT;
	char cause[LEC__CAUSE_MAX];
	int cut = 0;
	int rc = run_checkout(job, display, job->repo_cache, job->commit,
			      job->checkout, from, ref, &changes, &cut, cause,
			      sizeof(cause));

	if (rc == LEC_OK) {
		job->changes = change_bits(&changes, cut);
		lec__job_cache_note(job, "checkout", 1, NULL);
	} else if (!job->cancelled) {
		lec__job_cache_note(job, "checkout", 0,
				    "updating the kept tree failed: %s", cause);
	}
	lec__buf_dispose(&changes);
	return rc;
}

/* An empty tree, the build user's, for a fresh checkout. */
static int fresh_tree(struct lec__job *job)
{
	lec__tree_forget(job);
	job->changes = ~0UL;
	if (lec__remove_tree(job->checkout) < 0 ||
	    lec__mkdirs_mode(job->checkout, 0755) < 0 ||
	    lec__chown_tree(job->env, job->checkout, 1, 0) < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	return LEC_OK;
}

/* What the service's `git fetch` names for the version (its
 * get_remote_fetch_refspec, notes §5.3), as the helper's REF: it decides
 * the refs and HEAD of the clone. Owned; NULL when memory ran out. */
static char *fetched_ref(const struct lec__job *job)
{
	const struct lec_version *v = job->version;
	const char *default_branch = job->project->default_branch;
	struct lec__buf b = LEC__BUF_INIT;

	/* A pull request's head: the service fetches it as external-<N> and
	 * checks the commit out. */
	if (v->type == LEC_VERSION_EXTERNAL)
		lec__buf_printf(&b, "external:%s", v->slug);
	else if (v->type == LEC_VERSION_TAG && v->machine &&
		 strcmp(v->slug, LEC_VERSION_STABLE) == 0)
		lec__buf_puts(&b, "commit");
	else if (v->type == LEC_VERSION_TAG)
		lec__buf_printf(&b, "tag:%s", job->git_identifier);
	else if (v->machine && strcmp(v->slug, LEC_VERSION_LATEST) == 0 &&
		 (default_branch == NULL || *default_branch == '\0'))
		lec__buf_puts(&b, "head");
	else
		lec__buf_printf(&b, "branch:%s", job->git_identifier);
	return lec__buf_take(&b);
}

/* The version's commit into its kept tree, with the .git of the
 * service's clone: updated from the commit it holds when the tree is as
 * the last checkout left it (its .git removed), else afresh. */
static int job_checkout_files(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *display, *from = NULL, *ref = fetched_ref(job);
	int rc;

	lec__buf_printf(&b, "git checkout --force %s", job->commit);
	if ((display = lec__buf_take(&b)) == NULL || ref == NULL) {
		lec__free(display);
		lec__free(ref);
		return lec__job_fail(job, "out of memory");
	}
	if (lec__tree_prepare(job, job->build->fresh, &from) < 0) {
		lec__free(display);
		lec__free(ref);
		return lec__job_fail(job, "%s", lec_error_last());
	}
	rc = from ? update_tree(job, display, from, ref) : LEC_ERROR;
	if (rc < 0 && !job->cancelled)
		rc = fresh_tree(job) == LEC_OK
			     ? checkout_files(job, display, job->repo_cache,
					      job->commit, job->checkout, ref)
			     : LEC_ERROR;
	if (rc == LEC_OK && lec__tree_record(job) < 0) {
		lec__build_log(job->env, "build %lld: %s",
			       (long long)job->build->id, lec_error_last());
		lec__tree_forget(job);
	}
	lec__free(from);
	lec__free(ref);
	lec__free(display);
	return rc;
}

int lec__job_checkout(struct lec__job *job)
{
	int rc = job_fetch(job) == LEC_OK && sync_refs(job) == LEC_OK &&
				 job_checkout_files(job) == LEC_OK
			 ? LEC_OK
			 : LEC_ERROR;

	lec_build_set_progress(job->st, job->build->id, NULL);
	if (rc == LEC_OK)
		lec_build_set_commit(job->st, job->build->id, job->commit);
	/* Clearing the progress cleared the thread's message: the job's
	 * error is its message again (lec__job_fail keeps the first). */
	else if (job->error)
		rc = lec__job_fail(job, "%s", job->error);
	return rc;
}
