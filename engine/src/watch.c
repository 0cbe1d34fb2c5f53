/*
 * Builds on commit for local repositories: a pipeline thread watches the
 * refs of every project whose repository is a local path (file://, allowed
 * by the local-repository rules, the project's watch_commits on) and, when
 * they change, does what a push webhook does: the active versions whose
 * branch or tag moved are built, and a ref created or deleted syncs the
 * versions.
 *
 * inotify is not recursive and git updates a ref by renaming a *.lock file
 * over it (and `git gc` moves loose refs into packed-refs), so every
 * directory under refs/ is watched, and the git directory itself; new
 * directories are added as they appear. Events only say "look again": after
 * a wait (the debounce; a few milliseconds once a ref has been renamed into
 * place, which ends an update) the refs are listed again with libgit2 and
 * compared with the last listing, so a deletion is never inferred from an
 * event. One inotify instance serves every project (the default limit is
 * 128 instances per user). Where inotify is unavailable (or turned off),
 * the refs are listed every poll interval instead.
 *
 * A second thread polls remote repositories whose project asks for it
 * (poll_interval): it fetches the repo cache the way a build does (in the
 * sandbox, killable at the build time limit, under the repo cache's lock) and
 * compares the repo cache's refs before and after. A stalled server delays only
 * the other polls, never the local watch.
 *
 * With the pipeline's watch_log (`lectern serve --watch-log`) each look
 * the watcher takes is a line of the log: the projects read again, a
 * repository's refs listed, a remote fetched, with what came of it. A test
 * waits for those ticks ("the refs were listed, nothing moved") rather
 * than for a time in which nothing should happen.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "build_fetch.h"
#include "files.h"
#include "lectern/integration.h"
#include "lectern/localrepo.h"
#include "lectern/repo.h"
#include "lectern/version.h"
#include "store_internal.h"
#include "watch.h"

/* How often the list of watched projects is read again (a project imported
 * or its setting changed is watched within this). */
#define WATCH_RESCAN_MS 2000
/* Most repositories watched: beyond a workstation's projects. */
#define WATCH_MAX_REPOS 256
/* Most directories watched in one repository's refs/ (namespaced branches
 * make a few dozen at most). */
#define WATCH_MAX_DIRS 512
/* Deepest refs/ directory watched. */
#define WATCH_MAX_DEPTH 16
/* What in the watched directories means "the refs may have changed". */
#define WATCH_MASK                                                           \
	(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |               \
	 IN_CLOSE_WRITE | IN_DELETE_SELF)
/* Room for a batch of inotify events. */
#define WATCH_EVENT_BUF 16384
/* A ref renamed into place is a finished update (git and libgit2 write a
 * ref as NAME.lock and rename it): the refs are listed this soon after,
 * not a whole debounce later, leaving time only for the other refs of the
 * same push or transaction, which git writes within a few milliseconds. */
#define WATCH_REF_SETTLE_MS 25

struct watched {
	int64_t project_id;
	char *slug;
	char *gitdir;
	struct lec_repo_refs refs; /* the last listing */
	int wds[WATCH_MAX_DIRS];
	size_t nwds;
	int git_wd; /* the git directory's own watch, or -1 */
	int64_t due_ms; /* list again at this time; 0: nothing pending */
	int64_t changed_us; /* when the change now pending was seen; 0:
			       unknown (the repo cache comparison) */
	int seen;       /* still a watched project at the last rescan */
};

/* A remote project being polled. */
struct polled {
	int64_t project_id;
	int64_t next_ms; /* monotonic time of the next fetch */
	int seen;
};

struct lec__watcher {
	struct lec__build_env *env; /* borrowed */
	struct lec__watch_settings set;
	struct lec_store *st;
	struct lec_store *poll_st; /* the poll thread's own */
	struct polled polled[WATCH_MAX_REPOS];
	size_t npolled;
	pthread_t poll_thread;
	int poll_started;
	int ifd; /* inotify, or -1: polling */
	struct watched repos[WATCH_MAX_REPOS];
	size_t nrepos;
	int64_t next_rescan_ms, next_poll_ms;
	pthread_t thread;
	int started;
};

/* A look taken, in the log when the pipeline's watch_log asks for it. */
static void tick(const struct lec__watcher *w, const char *fmt, ...)
	LEC__PRINTF(2, 3);

static void tick(const struct lec__watcher *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!w->set.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lec__build_log(w->env, "%s", msg);
}

/* Watches ------------------------------------------------------------------ */

static void watch_dir(struct lec__watcher *w, struct watched *r,
		      const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;
	int wd;

	if (w->ifd < 0 || r->nwds >= WATCH_MAX_DIRS ||
	    (wd = inotify_add_watch(w->ifd, dir, WATCH_MASK | IN_ONLYDIR)) < 0)
		return;
	r->wds[r->nwds++] = wd;
	if (depth >= WATCH_MAX_DEPTH || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    (sub = lec__path_join(dir, e->d_name)) == NULL)
			continue;
		watch_dir(w, r, sub, depth + 1);
		lec__free(sub);
	}
	closedir(d);
}

/* The git directory (packed-refs, HEAD) and all of refs/. Adding a watch
 * already held returns the same descriptor, so calling this again after a
 * new directory appeared only adds what is new. */
static void watch_repo(struct lec__watcher *w, struct watched *r)
{
	char *refs = lec__path_join(r->gitdir, "refs");
	int wd;

	if (w->ifd >= 0 && r->nwds < WATCH_MAX_DIRS &&
	    (wd = inotify_add_watch(w->ifd, r->gitdir, WATCH_MASK)) >= 0) {
		r->wds[r->nwds++] = wd;
		r->git_wd = wd;
	}
	if (refs)
		watch_dir(w, r, refs, 0);
	lec__free(refs);
}

static void unwatch(struct lec__watcher *w, struct watched *r)
{
	size_t i;

	for (i = 0; w->ifd >= 0 && i < r->nwds; i++)
		inotify_rm_watch(w->ifd, r->wds[i]);
	lec_repo_refs_dispose(&r->refs);
	lec__free(r->gitdir);
	lec__free(r->slug);
	memset(r, 0, sizeof(*r));
}

static struct watched *find_wd(struct lec__watcher *w, int wd)
{
	size_t i, j;

	for (i = 0; i < w->nrepos; i++)
		for (j = 0; j < w->repos[i].nwds; j++)
			if (w->repos[i].wds[j] == wd)
				return &w->repos[i];
	return NULL;
}

/* The projects to watch ------------------------------------------------------ */

static struct watched *find_project(struct lec__watcher *w, int64_t id)
{
	size_t i;

	for (i = 0; i < w->nrepos; i++)
		if (w->repos[i].project_id == id)
			return &w->repos[i];
	return NULL;
}

/* Start watching a project's local repository (when it is one the rules
 * allow and it is there). Its refs are first compared with the project's
 * repo cache (what the engine last fetched), so a commit made before the watch
 * began builds too; a project not fetched yet has its first build coming. */
static void add_project(struct lec__watcher *w, int64_t id, const char *slug,
			const char *url)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct watched *r;
	char *path = NULL, *gitdir = NULL, *repo_cache, *name = lec__strdup(slug);

	if (name == NULL || w->nrepos >= WATCH_MAX_REPOS ||
	    lec_localrepo_check(url, w->env->local_roots, &path) < 0 ||
	    path == NULL || lec_repo_local_gitdir(path, &gitdir) < 0) {
		lec__free(path);
		lec__free(name);
		return;
	}
	lec__free(path);
	r = &w->repos[w->nrepos++];
	memset(r, 0, sizeof(*r));
	r->project_id = id;
	r->slug = name;
	r->gitdir = gitdir;
	r->git_wd = -1;
	r->seen = 1;
	lec__buf_printf(&b, "%s/repos/%s.git", w->env->data_dir, slug);
	repo_cache = lec__buf_take(&b);
	if (repo_cache && lec_repo_list_refs(repo_cache, &r->refs) == LEC_OK)
		r->due_ms = lec__monotonic_ms();
	else if (lec_repo_list_refs(gitdir, &r->refs) < 0)
		memset(&r->refs, 0, sizeof(r->refs));
	lec__free(repo_cache);
	watch_repo(w, r);
	tick(w, "commit watch: watching %s", slug);
}

/* Read the watched projects again: new ones are added, gone ones (deleted,
 * no longer local, watching turned off) dropped. */
static void rescan(struct lec__watcher *w)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;

	for (i = 0; i < w->nrepos; i++)
		w->repos[i].seen = 0;
	if (lec_store__prepare(w->st, &stmt,
			       "SELECT id, slug, repo_url FROM projects WHERE "
			       "watch_commits = 1 AND (repo_url LIKE "
			       "'file://%' OR repo_url LIKE '/%')") == LEC_OK) {
		while (sqlite3_step(stmt) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(stmt, 0);
			const char *slug =
				(const char *)sqlite3_column_text(stmt, 1);
			const char *url =
				(const char *)sqlite3_column_text(stmt, 2);
			struct watched *r = find_project(w, id);

			if (r)
				r->seen = 1;
			else if (slug && url)
				add_project(w, id, slug, url);
		}
		lec_store__finalize(w->st, stmt);
	}
	for (i = 0; i < w->nrepos;) {
		if (w->repos[i].seen) {
			i++;
			continue;
		}
		tick(w, "commit watch: %s no longer watched", w->repos[i].slug);
		unwatch(w, &w->repos[i]);
		w->repos[i] = w->repos[--w->nrepos];
	}
	tick(w, "commit watch: projects read, %zu watched", w->nrepos);
}

/* Changes ----------------------------------------------------------------- */

static const struct lec_repo_ref *find_ref(const struct lec_repo_refs *refs,
					   const struct lec_repo_ref *ref)
{
	size_t i;

	for (i = 0; i < refs->len; i++)
		if (refs->items[i].type == ref->type &&
		    strcmp(refs->items[i].name, ref->name) == 0)
			return &refs->items[i];
	return NULL;
}

/* Compare a new listing with the last: build what moved (how says what
 * started the builds), sync when a ref came or went; the tick says what
 * of it the project's look (slug, what) found. */
static void act_on(struct lec__watcher *w, struct lec_store *st,
		   int64_t project_id, const struct lec_repo_refs *was_refs,
		   const struct lec_repo_refs *now, int64_t changed_us,
		   const char *how, const char *slug, const char *what)
{
	struct lec_integration_ref moved[LEC_INTEGRATION_REFS_MAX];
	struct lec_integration_builds built = { 0 };
	size_t i, n = 0;
	int sync = now->len != was_refs->len;

	for (i = 0; i < now->len; i++) {
		const struct lec_repo_ref *was = find_ref(was_refs,
							  &now->items[i]);

		if (was == NULL)
			sync = 1;
		else if (strcmp(was->commit, now->items[i].commit) != 0 &&
			 n < LEC_INTEGRATION_REFS_MAX)
			moved[n++] = (struct lec_integration_ref){
				now->items[i].name,
				now->items[i].type == LEC_REPO_TAG
					? LEC_INTEGRATION_REF_TAG
					: LEC_INTEGRATION_REF_BRANCH,
				now->items[i].commit
			};
	}
	if (sync && lec_version_sync_request(st, project_id) < 0)
		lec__build_log(w->env, "%s watch: %s", how, lec_error_last());
	if (n && lec_integration_build_refs(st, project_id, moved, n,
					    changed_us, how, &built) < 0)
		lec__build_log(w->env, "%s watch: %s", how, lec_error_last());
	/* The workers poll every LEC_PIPELINE_POLL_MS: a commit's build
	 * starts now instead. */
	if (sync || n)
		lec__build_env_wake(w->env);
	lec_integration_builds_dispose(&built);
	tick(w, "%s watch: %s: %s, %zu moved%s", how, slug, what, n,
	     sync ? ", versions synced" : "");
}

/* Whether the project still wants its commits built: the setting may have
 * changed since the last rescan. */
static int still_watched(struct lec__watcher *w, int64_t project_id)
{
	int64_t on = 0;

	return lec_store__query_int(w->st,
				    "SELECT watch_commits FROM projects "
				    "WHERE id = ?",
				    &project_id, 1, "reading a project", &on,
				    NULL) == LEC_OK &&
	       on;
}

static void relist(struct lec__watcher *w, struct watched *r)
{
	struct lec_repo_refs now = { 0 };

	r->due_ms = 0;
	if (lec_repo_list_refs(r->gitdir, &now) < 0)
		return; /* half-written or gone: the next event looks again */
	if (still_watched(w, r->project_id))
		act_on(w, w->st, r->project_id, &r->refs, &now, r->changed_us,
		       "commit", r->slug, "refs listed");
	r->changed_us = 0;
	lec_repo_refs_dispose(&r->refs);
	r->refs = now;
	/* New directories under refs/ get watches of their own. */
	watch_repo(w, r);
}

/* The loop ---------------------------------------------------------------- */

/* Whether the event is a ref (or packed-refs, or HEAD) renamed into place:
 * in the git directory itself the other files (index, COMMIT_EDITMSG, ...)
 * are not refs. */
static int ref_landed(const struct watched *r, const struct inotify_event *e)
{
	size_t n = e->len ? strlen(e->name) : 0;

	if (!(e->mask & IN_MOVED_TO) || n == 0 ||
	    (n >= 5 && strcmp(e->name + n - 5, ".lock") == 0))
		return 0;
	return e->wd != r->git_wd || strcmp(e->name, "packed-refs") == 0 ||
	       strcmp(e->name, "HEAD") == 0;
}

/* Any event starts the debounce; a ref landing shortens it to
 * WATCH_REF_SETTLE_MS. */
static void note_event(struct lec__watcher *w, struct watched *r,
		       const struct inotify_event *e, int64_t now)
{
	int64_t due;

	if (r->due_ms == 0) {
		r->due_ms = now + w->set.debounce_ms;
		r->changed_us = lec__now_us();
	}
	due = now + WATCH_REF_SETTLE_MS;
	if (ref_landed(r, e) && due < r->due_ms)
		r->due_ms = due;
}

static void read_events(struct lec__watcher *w, int64_t now)
{
	char buf[WATCH_EVENT_BUF]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len = read(w->ifd, buf, sizeof(buf));
	const char *p;

	for (p = buf; len > 0 && p < buf + len;) {
		const struct inotify_event *e = (const void *)p;
		struct watched *r = find_wd(w, e->wd);

		if (r)
			note_event(w, r, e, now);
		p += sizeof(*e) + e->len;
	}
}

static int64_t next_wakeup(const struct lec__watcher *w)
{
	int64_t next = w->next_rescan_ms;
	size_t i;

	if (w->ifd < 0 && w->next_poll_ms < next)
		next = w->next_poll_ms;
	for (i = 0; i < w->nrepos; i++)
		if (w->repos[i].due_ms && w->repos[i].due_ms < next)
			next = w->repos[i].due_ms;
	return next;
}

static void *watch_loop(void *arg)
{
	struct lec__watcher *w = arg;

	while (!lec__build_env_stopping(w->env)) {
		int64_t now = lec__monotonic_ms(), wait;
		struct pollfd pfd = { w->ifd, POLLIN, 0 };
		size_t i;

		if (now >= w->next_rescan_ms) {
			rescan(w);
			w->next_rescan_ms = now + WATCH_RESCAN_MS;
		}
		if (w->ifd < 0 && now >= w->next_poll_ms) {
			/* A change seen now happened since the last poll. */
			for (i = 0; i < w->nrepos; i++) {
				w->repos[i].due_ms = now;
				w->repos[i].changed_us =
					lec__now_us() -
					(int64_t)w->set.poll_ms * 1000;
			}
			w->next_poll_ms = now + w->set.poll_ms;
		}
		for (i = 0; i < w->nrepos; i++)
			if (w->repos[i].due_ms && now >= w->repos[i].due_ms)
				relist(w, &w->repos[i]);
		/* Wake at least every poll period to notice stopping. */
		wait = next_wakeup(w) - lec__monotonic_ms();
		if (wait > LEC_PIPELINE_POLL_MS)
			wait = LEC_PIPELINE_POLL_MS;
		if (poll(&pfd, w->ifd >= 0 ? 1 : 0, wait > 0 ? (int)wait : 0) >
			    0 &&
		    (pfd.revents & POLLIN))
			read_events(w, lec__monotonic_ms());
	}
	return NULL;
}

/* Remote polling ------------------------------------------------------------ */

static struct polled *find_polled(struct lec__watcher *w, int64_t id)
{
	size_t i;

	for (i = 0; i < w->npolled; i++)
		if (w->polled[i].project_id == id)
			return &w->polled[i];
	if (w->npolled == WATCH_MAX_REPOS)
		return NULL;
	w->polled[w->npolled] = (struct polled){ id, 0, 0 };
	return &w->polled[w->npolled++];
}

/* Fetch one project's repo cache; build what moved since the last fetch. */
static void poll_one(struct lec__watcher *w, int64_t id)
{
	struct lec_repo_refs before = { 0 }, after = { 0 };
	struct lec_project *p = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	int64_t started_us = lec__now_us();
	char *repo_cache = NULL;

	if (lec_project_get_by_id(w->poll_st, id, &p) < 0)
		return;
	lec__buf_printf(&b, "%s/repos/%s.git", w->env->data_dir, p->slug);
	if ((repo_cache = lec__buf_take(&b)) == NULL)
		goto done;
	/* A project not fetched yet has its first build coming. */
	if (lec_repo_list_refs(repo_cache, &before) < 0)
		goto done;
	if (lec__fetch_repo_cache(w->env, p, w->env->limits.time_limit_s) <
		    0 ||
	    lec_repo_list_refs(repo_cache, &after) < 0) {
		lec__build_log(w->env, "polling %s: %s", p->slug,
			     lec_error_last());
		goto done;
	}
	act_on(w, w->poll_st, id, &before, &after, started_us, "poll", p->slug,
	       "fetched");
done:
	lec_repo_refs_dispose(&before);
	lec_repo_refs_dispose(&after);
	lec_project_free(p);
	lec__free(repo_cache);
}

/* The remote projects that ask to be polled, each fetched when due. */
static void poll_due(struct lec__watcher *w)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__monotonic_ms(), due[WATCH_MAX_REPOS];
	size_t i, ndue = 0;

	for (i = 0; i < w->npolled; i++)
		w->polled[i].seen = 0;
	if (lec_store__prepare(w->poll_st, &stmt,
			       "SELECT id, poll_interval FROM projects WHERE "
			       "poll_interval > 0 AND repo_url NOT LIKE "
			       "'file://%' AND repo_url NOT LIKE '/%'") <
	    0)
		return;
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		struct polled *pp = find_polled(w, sqlite3_column_int64(stmt,
									0));
		int64_t every = sqlite3_column_int64(stmt, 1) * 1000;

		if (pp == NULL)
			continue;
		pp->seen = 1;
		if (pp->next_ms == 0) /* just asked: the first poll waits */
			pp->next_ms = now + every;
		if (now >= pp->next_ms) {
			pp->next_ms = now + every;
			due[ndue++] = pp->project_id;
		}
	}
	lec_store__finalize(w->poll_st, stmt);
	for (i = 0; i < w->npolled;)
		if (w->polled[i].seen)
			i++;
		else
			w->polled[i] = w->polled[--w->npolled];
	for (i = 0; i < ndue && !lec__build_env_stopping(w->env); i++)
		poll_one(w, due[i]);
}

static void *poll_loop(void *arg)
{
	struct lec__watcher *w = arg;

	while (!lec__build_env_stopping(w->env)) {
		poll_due(w);
		poll(NULL, 0, LEC_PIPELINE_POLL_MS);
	}
	return NULL;
}

int lec__watcher_start(struct lec__build_env *env,
		       const struct lec__watch_settings *settings,
		       struct lec__watcher **out)
{
	struct lec__watcher *w = lec__calloc(1, sizeof(*w));
	int error;

	*out = NULL;
	LEC__CHECK_ALLOC(w);
	w->env = env;
	w->set = *settings;
	w->ifd = w->set.no_inotify ? -1
				   : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0 && !w->set.no_inotify)
		lec__build_log(env, "commit watch: inotify unavailable (%s); "
				    "polling every %u ms",
			       strerror(errno), w->set.poll_ms);
	if ((error = lec_store_open_dir(&w->st, env->data_dir, NULL)) < 0 ||
	    (error = lec_store_open_dir(&w->poll_st, env->data_dir, NULL)) < 0) {
		lec__watcher_stop(w);
		return error;
	}
	if (pthread_create(&w->thread, NULL, watch_loop, w) != 0) {
		lec__watcher_stop(w);
		return lec__error(LEC_ERROR, "cannot start the commit watch");
	}
	w->started = 1;
	if (pthread_create(&w->poll_thread, NULL, poll_loop, w) != 0) {
		lec__watcher_stop(w);
		return lec__error(LEC_ERROR, "cannot start the remote polling");
	}
	w->poll_started = 1;
	*out = w;
	return LEC_OK;
}

void lec__watcher_stop(struct lec__watcher *w)
{
	size_t i;

	if (w == NULL)
		return;
	/* The pipeline is stopping: the loop sees it within a poll period. */
	if (w->started)
		pthread_join(w->thread, NULL);
	if (w->poll_started)
		pthread_join(w->poll_thread, NULL);
	for (i = 0; i < w->nrepos; i++)
		unwatch(w, &w->repos[i]);
	if (w->ifd >= 0)
		close(w->ifd);
	lec_store_free(w->st);
	lec_store_free(w->poll_st);
	lec__free(w);
}
