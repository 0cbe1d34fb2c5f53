/*
 * Warm generators (build_warm.h): a Python per version being worked on
 * that has imported Sphinx and forks each build. Each is
 * warm_generator.py (embedded) run by the runner on a thread of its own,
 * in the sandbox the version's Sphinx command gets, for as long as it
 * lives: the runner's limits, watched directories and
 * kill-everything-at-the-end hold for it and for every build it forks.
 * The engine talks to it over a socket pair (the runner's passed
 * descriptor): per build, a memfd holding the command's working
 * directory, arguments and environment and the write end of a pipe the
 * child's output comes back on, which this file reads with the time
 * limit, the output cap and cancellation the runner would apply. A build
 * that goes wrong before the child starts (no answer, a module file
 * changed, the parent gone) runs cold instead, with the reason; whatever
 * a build did to its parent can spoil only the next build of the same
 * version, which then runs cold.
 *
 * A generator stops after LEC__WARM_IDLE_MS without a build, when its
 * tree is removed (its project or version deleted), when its key
 * changes or a fresh build is asked for, when its version's caches are
 * invalidated (lec__warm_pool_stop) and with the pool (the engine
 * stopping).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_warm.h"
#include "files.h"
#include "internal.h"
#include "job.h"
#include "warm_generator.h"

/* Warm generators one pool keeps: the versions a workstation works on at
 * once, far more than two cores build. */
#define WARM_MAX 32
/* How long a parent may take to import Sphinx and the extensions (a
 * third of a second alone; a busy machine and a large theme more). */
#define WARM_START_MS 30000
/* How long a ready parent may take to answer a build: it checks its
 * module files and forks, milliseconds. No answer: it is damaged. */
#define WARM_ANSWER_MS 5000
/* After the child's exit, how long its output pipe may stay open (held
 * by a process it left behind) before reading stops: the runner's
 * RUNNER_DRAIN_MS. */
#define WARM_DRAIN_MS 2000
/* A control packet: "started 123456", "stale <a module's path> changed". */
#define WARM_PACKET_MAX 4096
/* What the parent itself may write (a warning while importing). */
#define WARM_OUTPUT_MAX ((size_t)64 * 1024)
/* Bytes of the child's output read at a time. */
#define WARM_CHUNK (64 * 1024)
/* The child's report of how it wrote: "serial <an extension's name> is
 * not parallel-write-safe". */
#define WARM_REPORT_MAX 160

/* A mount's source, as the sandbox bound it. */
struct mount_id {
	dev_t dev;
	ino_t ino;
};

/* One warm generator. The fields below `lock:` are the pool's lock's;
 * the others are set before it is shared, or are the building thread's
 * alone while busy. */
struct warm {
	char *who;
	struct lec__cache_key key;
	int ctl;          /* the engine's end of the control socket */
	pthread_t thread; /* the runner's, until joined */
	int started;      /* thread running (join it) */
	/* The parent's command, owned: argv, env, mounts, watched dirs. */
	struct lec_runner_spec spec;
	struct lec_runner_limits limits;
	char **argv, **env, **watch;
	struct lec_runner_mount *mounts;
	/* Sandboxed: the tmpfs where each build's own directory is linked
	 * in (the directory above it, whose host path the sandbox lacks). */
	char *links;
	const char *tmpfs[2];
	/* What each of its mounts was when it started: a directory made
	 * anew (a tree checked out afresh) is not the one it sees. */
	struct mount_id ids[LEC__JOB_MAX_MOUNTS + 1];
	size_t nids;
	char *refused;    /* it could not start: why (key unchanged) */
	char *tree;       /* the version's tree: gone, it stops */
	pid_t pid;        /* the parent's, here; 0 unknown */
	size_t rss_kb;
	/* lock: */
	int busy, stop, ended;
	int damaged;   /* it went wrong (why): the next build runs cold */
	char why[160]; /* why it stopped, or was damaged */
	char said[160]; /* the start of what the parent wrote */
	struct lec_runner_result end;
	int64_t last_used_ms;
};

struct lec__warm_pool {
	char *record; /* LEC__WARM_RECORD's path, or NULL */
	pthread_mutex_t lock;
	pthread_cond_t ended; /* a generator's runner returned */
	struct warm *items[WARM_MAX];
	size_t n;
};

/* A reason into dst (cap bytes), cut when longer: a reason is a note,
 * its end the least of it. snprintf itself, but through a va_list, where
 * gcc's -Wformat-truncation does not refuse the cut meant here. */
static void say(char *dst, size_t cap, const char *fmt, ...)
	LEC__PRINTF(3, 4);
static void say(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

/* The pool ----------------------------------------------------------------- */

int lec__warm_pool_new(struct lec__warm_pool **out, const char *record)
{
	struct lec__warm_pool *pool = lec__calloc(1, sizeof(*pool));

	*out = NULL;
	if (pool == NULL || (record && (pool->record = lec__strdup(record)) ==
					       NULL)) {
		lec__free(pool);
		return lec__error_oom();
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->ended, NULL);
	*out = pool;
	return LEC_OK;
}

static void strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		lec__free(v[i]);
	lec__free(v);
}

/* Tell it to stop: the parent reads the closed socket and exits; the
 * runner's cancel callback says the same. Pool lock held. */
static void warm_signal_stop(struct warm *w)
{
	w->stop = 1;
	if (w->ctl >= 0)
		shutdown(w->ctl, SHUT_RDWR);
}

/* Wait for its runner and free it; it is no longer in the pool. */
static void warm_free(struct warm *w)
{
	if (w == NULL)
		return;
	if (w->started)
		pthread_join(w->thread, NULL);
	if (w->ctl >= 0)
		close(w->ctl);
	strv_free(w->argv);
	strv_free(w->env);
	strv_free(w->watch);
	lec__free(w->mounts);
	lec__free(w->links);
	lec__free(w->refused);
	lec__free(w->tree);
	lec__free(w->who);
	lec__free(w);
}

/* Take items[i] out of the pool (lock held): the caller frees it. */
static struct warm *pool_take(struct lec__warm_pool *pool, size_t i)
{
	struct warm *w = pool->items[i];

	pool->items[i] = pool->items[--pool->n];
	return w;
}

/* Whether it runs and serves (lock held). */
static int live(const struct warm *w)
{
	return !(w->ended || w->stop || w->refused);
}

/* The generators running and their memory (lock held). */
static void pool_count(const struct lec__warm_pool *pool, size_t *count,
		       size_t *rss_kb)
{
	size_t i;

	*count = *rss_kb = 0;
	for (i = 0; i < pool->n; i++) {
		const struct warm *w = pool->items[i];

		if (!live(w))
			continue;
		(*count)++;
		*rss_kb += w->rss_kb;
	}
}

/* Bring the record up to date (lock held); it is a report, so a write
 * that fails is not the build's failure. */
static void pool_record(const struct lec__warm_pool *pool)
{
	struct lec__buf b = LEC__BUF_INIT, line = LEC__BUF_INIT;
	char *tmp;
	size_t count, rss, i;
	int fd;

	if (pool->record == NULL)
		return;
	pool_count(pool, &count, &rss);
	lec__buf_printf(&line, "%zu %zu", count, rss);
	for (i = 0; i < pool->n; i++)
		if (live(pool->items[i]) && pool->items[i]->pid > 0)
			lec__buf_printf(&line, " %ld",
					(long)pool->items[i]->pid);
	lec__buf_puts(&line, "\n");
	lec__buf_printf(&b, "%s.tmp", pool->record);
	if ((tmp = lec__buf_take(&b)) == NULL || line.oom) {
		lec__free(tmp);
		lec__free(lec__buf_take(&line));
		return;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, line.ptr, line.len) != (ssize_t)line.len ||
		    rename(tmp, pool->record) != 0)
			unlink(tmp);
		close(fd);
	}
	lec__free(tmp);
	lec__free(lec__buf_take(&line));
}

void lec__warm_pool_stop(struct lec__warm_pool *pool, const char *who)
{
	struct warm *gone[WARM_MAX];
	size_t i = 0, n = 0;

	if (pool == NULL)
		return;
	pthread_mutex_lock(&pool->lock);
	while (i < pool->n) {
		struct warm *w = pool->items[i];

		if ((who == NULL || strcmp(w->who, who) == 0) && !w->busy) {
			warm_signal_stop(w);
			gone[n++] = pool_take(pool, i);
		} else {
			i++;
		}
	}
	pool_record(pool);
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < n; i++)
		warm_free(gone[i]);
}

void lec__warm_pool_free(struct lec__warm_pool *pool)
{
	if (pool == NULL)
		return;
	lec__warm_pool_stop(pool, NULL);
	lec__free(pool->record);
	pthread_cond_destroy(&pool->ended);
	pthread_mutex_destroy(&pool->lock);
	lec__free(pool);
}

void lec__warm_pool_stats(struct lec__warm_pool *pool, size_t *count,
			  size_t *rss_kb)
{
	*count = *rss_kb = 0;
	if (pool == NULL)
		return;
	pthread_mutex_lock(&pool->lock);
	pool_count(pool, count, rss_kb);
	pthread_mutex_unlock(&pool->lock);
}

/* What the record's line says, with the memory measured now: the
 * resident memory of each parent named and of every process below it
 * (its build and the build's writers; pages they share counted in each,
 * as `ps` counts them). */

/* Most processes measured below one parent: the runner's process limit
 * (LEC_RUNNER_DEFAULT_NPROC), with room. */
#define WARM_TREE_MAX 1024
/* The phrase a warm parent's command line holds (its script's first
 * line): a pid of the record reused by another process is not measured. */
#define WARM_CMDLINE_MARK "warm Sphinx generator"

/* /proc/PID/<name>'s first cap - 1 bytes, NUL-ended; length, -1 if none. */
static ssize_t proc_read(long pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* VmRSS of pid in KiB, 0 when gone; its children's pids pushed on todo. */
static uint64_t proc_rss(long pid, long *todo, size_t *ntodo)
{
	char buf[4096], name[48], *at, *end;
	unsigned long long kib = 0;
	long child;

	if (proc_read(pid, "status", buf, sizeof(buf)) > 0 &&
	    (at = strstr(buf, "\nVmRSS:")) != NULL)
		sscanf(at + 8, "%llu", &kib);
	snprintf(name, sizeof(name), "task/%ld/children", pid);
	if (proc_read(pid, name, buf, sizeof(buf)) > 0)
		for (at = buf; (child = strtol(at, &end, 10)) > 0 && end != at;
		     at = end)
			if (*ntodo < WARM_TREE_MAX)
				todo[(*ntodo)++] = child;
	return kib;
}

/* The resident memory of pid and every process below it, in KiB. */
static uint64_t tree_rss(long pid)
{
	long todo[WARM_TREE_MAX];
	size_t ntodo = 0, done = 0;
	uint64_t kib = 0;

	todo[ntodo++] = pid;
	while (done < ntodo)
		kib += proc_rss(todo[done++], todo, &ntodo);
	return kib;
}

void lec__warm_usage(const char *data_dir, uint64_t *count, uint64_t *kib)
{
	char *text = NULL, *at, *end, cmdline[4096];
	size_t len;
	unsigned long long c, k;
	uint64_t live = 0;
	int measured = 0, used;
	long pid;

	*count = *kib = 0;
	if (lec__read_in(data_dir, LEC__WARM_RECORD, 4096, &text, &len) ==
		    LEC_OK &&
	    sscanf(text, "%llu %llu%n", &c, &k, &used) == 2) {
		*count = c;
		*kib = k;
		for (at = text + used; (pid = strtol(at, &end, 10)) > 0;
		     at = end) {
			ssize_t n = proc_read(pid, "cmdline", cmdline,
					      sizeof(cmdline));

			if (n > 0 && memmem(cmdline, (size_t)n,
					    WARM_CMDLINE_MARK,
					    strlen(WARM_CMDLINE_MARK))) {
				live += tree_rss(pid);
				measured = 1;
			}
		}
		if (measured)
			*kib = live;
	}
	lec_error_clear();
	lec__free(text);
}

/* Starting ----------------------------------------------------------------- */

struct keeper {
	struct lec__warm_pool *pool;
	struct warm *w;
};

/* The parent's output is dropped but for its first line, kept to say
 * why a parent that ended while starting did (an interpreter that could
 * not run: "prlimit: failed to execute ..."); the job masks the reason
 * as it masks output. */
static int keeper_output(const char *data, size_t len, void *payload)
{
	struct keeper *k = payload;
	size_t have, take;

	pthread_mutex_lock(&k->pool->lock);
	have = strlen(k->w->said);
	if (strchr(k->w->said, '\n') == NULL) {
		take = len < sizeof(k->w->said) - 1 - have
			       ? len
			       : sizeof(k->w->said) - 1 - have;
		memcpy(k->w->said + have, data, take);
		k->w->said[have + take] = '\0';
	}
	pthread_mutex_unlock(&k->pool->lock);
	return 0;
}

/* Asked every LEC_RUNNER_CANCEL_POLL_MS while the parent runs: it stops
 * after LEC__WARM_IDLE_MS without a build, and once its tree is gone (its
 * project or version removed: nothing will build it again). */
static int keeper_cancel(void *payload)
{
	struct keeper *k = payload;
	struct stat sb;
	int stop, gone;

	gone = k->w->tree && stat(k->w->tree, &sb) != 0 && errno == ENOENT;
	pthread_mutex_lock(&k->pool->lock);
	if (!k->w->stop && !k->w->busy &&
	    lec__monotonic_ms() - k->w->last_used_ms > LEC__WARM_IDLE_MS) {
		k->w->stop = 1;
		snprintf(k->w->why, sizeof(k->w->why),
			 "the last warm generator stopped after %d minutes "
			 "without a build",
			 LEC__WARM_IDLE_MS / 60000);
		pool_record(k->pool);
	} else if (!k->w->stop && !k->w->busy && gone) {
		k->w->stop = 1;
		snprintf(k->w->why, sizeof(k->w->why),
			 "the last warm generator stopped: its tree was "
			 "removed");
		pool_record(k->pool);
	}
	stop = k->w->stop;
	pthread_mutex_unlock(&k->pool->lock);
	return stop;
}

static void *keeper(void *arg)
{
	struct keeper k = *(struct keeper *)arg;
	struct lec_runner_result r = { 0 };

	lec__free(arg);
	if (lec_runner_run(&k.w->spec, keeper_output, keeper_cancel, &k, &r) <
	    0)
		r.end = LEC_RUNNER_START_FAILED;
	pthread_mutex_lock(&k.pool->lock);
	k.w->end = r;
	k.w->ended = 1;
	pool_record(k.pool);
	pthread_cond_broadcast(&k.pool->ended);
	pthread_mutex_unlock(&k.pool->lock);
	return NULL;
}

static char **strv_copy(const char *const *v, size_t extra)
{
	size_t n = 0, i;
	char **copy;

	while (v && v[n])
		n++;
	if ((copy = lec__calloc(n + extra + 1, sizeof(char *))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if ((copy[i] = lec__strdup(v[i])) == NULL) {
			strv_free(copy);
			return NULL;
		}
	return copy;
}

/* The identities of mounts[0..n) into ids (at most LEC__JOB_MAX_MOUNTS +
 * 1); how many. One that cannot be read has none (0, 0). */
static size_t mount_ids(const struct lec_runner_mount *mounts, size_t n,
			struct mount_id *ids)
{
	struct stat sb;
	size_t i;

	if (n > LEC__JOB_MAX_MOUNTS + 1)
		n = LEC__JOB_MAX_MOUNTS + 1;
	for (i = 0; i < n; i++) {
		ids[i].dev = stat(mounts[i].path, &sb) == 0 ? sb.st_dev : 0;
		ids[i].ino = ids[i].dev ? sb.st_ino : 0;
	}
	return n;
}

/* Whether the sandbox of w still binds what cmd's mounts name (but the
 * build's own directory): 1, or 0 with the one made anew as the reason. */
static int same_mounts(const struct warm *w, const struct lec_runner_spec *cmd,
		       const char *build_dir, char *reason, size_t cap)
{
	struct mount_id now;
	size_t i, j = 0;

	for (i = 0; i < cmd->nmounts; i++) {
		if (build_dir && strcmp(cmd->mounts[i].path, build_dir) == 0)
			continue;
		mount_ids(&cmd->mounts[i], 1, &now);
		if (j >= w->nids || now.dev != w->ids[j].dev ||
		    now.ino != w->ids[j].ino) {
			snprintf(reason, cap, "%s was made anew",
				 cmd->mounts[i].path);
			return 0;
		}
		j++;
	}
	return 1;
}

/* The parent's command: the build command's sandbox, where the build's
 * own directory (a new one each build) is a tmpfs each build links its
 * own into, with no time limit (the idle stop is its end) and the
 * control socket as the passed descriptor. */
static int parent_spec(struct warm *w, const struct lec__warm_request *req,
		       const struct lec_runner_spec *cmd, int ctl_child)
{
	const char *python = cmd->argv[0];
	const char *slash = req->build_dir ? strrchr(req->build_dir, '/')
					   : NULL;
	size_t i, n = 0;

	w->argv = lec__calloc(8, sizeof(char *));
	w->env = strv_copy(cmd->env, 0);
	w->watch = strv_copy(cmd->watch_dirs, 0);
	w->mounts = lec__calloc(cmd->nmounts + 1, sizeof(*w->mounts));
	if (!cmd->unsandboxed && slash && slash > req->build_dir)
		w->links = lec__strndup(req->build_dir,
					(size_t)(slash - req->build_dir));
	if (w->argv == NULL || w->env == NULL || w->watch == NULL ||
	    w->mounts == NULL ||
	    (!cmd->unsandboxed && slash && w->links == NULL))
		return lec__error_oom();
	w->argv[0] = lec__strdup(python);
	w->argv[1] = lec__strdup("-c");
	w->argv[2] = lec__strdup(lec__warm_script);
	w->argv[3] = lec__strdup(req->tree);
	w->argv[4] = lec__strdup(req->conf);
	w->argv[5] = lec__strdup(cmd->unsandboxed ? "0" : "1");
	w->argv[6] = lec__strdup(w->links ? w->links : "");
	for (i = 0; i < 7; i++)
		if (w->argv[i] == NULL)
			return lec__error_oom();
	for (i = 0; i < cmd->nmounts; i++)
		if (req->build_dir == NULL ||
		    strcmp(cmd->mounts[i].path, req->build_dir) != 0)
			w->mounts[n++] = cmd->mounts[i];
	w->nids = mount_ids(w->mounts, n, w->ids);
	w->tmpfs[0] = w->links;
	w->spec = *cmd;
	w->spec.nmounts = n;
	for (i = 0, n = 0; w->watch[i]; i++) {
		if (req->build_dir && strcmp(w->watch[i], req->build_dir) == 0)
			lec__free(w->watch[i]);
		else
			w->watch[n++] = w->watch[i];
	}
	w->watch[n] = NULL;
	w->limits = cmd->limits ? *cmd->limits
				: (struct lec_runner_limits)LEC_RUNNER_LIMITS_INIT;
	w->limits.time_limit_s = 0;
	w->limits.output_bytes = WARM_OUTPUT_MAX;
	w->spec.argv = (const char *const *)w->argv;
	w->spec.env = (const char *const *)w->env;
	w->spec.cwd = "/";
	w->spec.mounts = w->mounts;
	w->spec.watch_dirs = (const char *const *)w->watch;
	w->spec.limits = &w->limits;
	w->spec.network = LEC_RUNNER_NET_EGRESS;
	w->spec.egress_fd = ctl_child;
	w->spec.launcher = NULL;
	w->spec.tmpfs = cmd->unsandboxed ? NULL : w->tmpfs;
	return LEC_OK;
}

/* Wait up to ms for a packet on fd into buf (NUL-terminated): its length,
 * 0 at the end of the socket, -1 on time out or error; *pid (not NULL):
 * the sender's, as this process sees it (SO_PASSCRED on fd), 0 unknown. */
static ssize_t ctl_recv_from(int fd, char *buf, size_t cap, int ms,
			     pid_t *pid)
{
	char space[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, cap - 1 };
	struct msghdr m = { 0 };
	struct pollfd p = { fd, POLLIN, 0 };
	int64_t until = lec__monotonic_ms() + ms;
	struct cmsghdr *c;
	ssize_t n;

	for (;;) {
		int left = (int)(until - lec__monotonic_ms());

		if (left < 0)
			left = 0;
		if (poll(&p, 1, left) == 1)
			break;
		if (left == 0)
			return -1;
	}
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = space;
	m.msg_controllen = sizeof(space);
	while ((n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	buf[n > 0 ? n : 0] = '\0';
	if (pid)
		*pid = 0;
	for (c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
		if (pid && c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*pid = cred.pid;
		}
	return n;
}

/* Wait up to ms for a packet on fd into buf (NUL-terminated): its length,
 * 0 at the end of the socket, -1 on time out or error. */
static ssize_t ctl_recv(int fd, char *buf, size_t cap, int ms)
{
	return ctl_recv_from(fd, buf, cap, ms, NULL);
}

/* The parent's first packet into packet, as ctl_recv_from says it, within
 * WARM_START_MS: asked a LEC_RUNNER_CANCEL_POLL_MS at a time, so that a
 * parent whose runner has returned (it ended while starting) is noticed at
 * once (0), not at the deadline: the engine's own end of the socket, held
 * until the runner has forked, keeps it from reading as closed. */
static ssize_t first_packet(struct lec__warm_pool *pool, struct warm *w,
			    char *packet, size_t cap)
{
	int64_t until = lec__monotonic_ms() + WARM_START_MS;
	ssize_t n;
	int ended;

	for (;;) {
		n = ctl_recv_from(w->ctl, packet, cap,
				  LEC_RUNNER_CANCEL_POLL_MS, &w->pid);
		if (n >= 0)
			return n;
		pthread_mutex_lock(&pool->lock);
		ended = w->ended;
		pthread_mutex_unlock(&pool->lock);
		if (ended) {
			/* What it sent before it ended, if anything. */
			n = ctl_recv_from(w->ctl, packet, cap, 0, &w->pid);
			return n > 0 ? n : 0;
		}
		if (lec__monotonic_ms() >= until)
			return -1;
	}
}

/* Start a generator for req and wait until it is ready. LEC_OK, or an
 * error with the reason as the message (w then holds why, refused). */
static int warm_start(struct lec__warm_pool *pool, struct warm *w,
		      const struct lec__warm_request *req,
		      const struct lec_runner_spec *cmd)
{
	char packet[WARM_PACKET_MAX];
	struct keeper *k = lec__malloc(sizeof(*k));
	int pair[2] = { -1, -1 }, error, one = 1;
	ssize_t n;
	unsigned long modules = 0, rss = 0;

	if (k == NULL)
		return lec__error_oom();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
		lec__free(k);
		return lec__error(LEC_ERROR, "no control socket: %s",
				  strerror(errno));
	}
	w->ctl = pair[0];
	if ((error = parent_spec(w, req, cmd, pair[1])) < 0) {
		close(pair[1]);
		lec__free(k);
		return error;
	}
	k->pool = pool;
	k->w = w;
	w->last_used_ms = lec__monotonic_ms();
	if (pthread_create(&w->thread, NULL, keeper, k) != 0) {
		close(pair[1]);
		lec__free(k);
		return lec__error(LEC_ERROR, "no thread for the warm generator");
	}
	w->started = 1;
	/* Its "ready" says its pid as the engine sees it (it runs in a pid
	 * namespace of its own): what `lectern status` measures. */
	setsockopt(w->ctl, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	n = first_packet(pool, w, packet, sizeof(packet));
	/* The runner has forked by now, or failed: the other end is its. */
	close(pair[1]);
	if (n > 0 && sscanf(packet, "ready %lu %lu", &modules, &rss) == 2) {
		w->rss_kb = rss;
		return LEC_OK;
	}
	if (n > 5 && strncmp(packet, "fail ", 5) == 0)
		return lec__error(LEC_ERROR, "%s", packet + 5);
	if (n < 0)
		return lec__error(LEC_ERROR, "it did not start within %d s",
				  WARM_START_MS / 1000);
	pthread_mutex_lock(&pool->lock);
	error = lec__error(LEC_ERROR, "it exited while starting%s%.*s",
			   w->said[0] ? ": " : "",
			   (int)strcspn(w->said, "\n"), w->said);
	pthread_mutex_unlock(&pool->lock);
	return error;
}

/* Running one build --------------------------------------------------------- */

/* The request: the working directory, the build's own directory (""
 * unsandboxed), the argument count, the arguments and the environment,
 * each NUL-ended, in a memfd. */
static int request_fd(const struct lec_runner_spec *cmd,
		      const char *build_dir)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t argc = 0, i;
	int fd = -1;

	while (cmd->argv[argc])
		argc++;
	lec__buf_putn(&b, cmd->cwd ? cmd->cwd : "/",
		      strlen(cmd->cwd ? cmd->cwd : "/") + 1);
	lec__buf_putn(&b, build_dir ? build_dir : "",
		      strlen(build_dir ? build_dir : "") + 1);
	lec__buf_printf(&b, "%zu", argc);
	lec__buf_putn(&b, "", 1);
	for (i = 0; i < argc; i++)
		lec__buf_putn(&b, cmd->argv[i], strlen(cmd->argv[i]) + 1);
	for (i = 0; cmd->env && cmd->env[i]; i++)
		lec__buf_putn(&b, cmd->env[i], strlen(cmd->env[i]) + 1);
	if (!b.oom)
		fd = memfd_create("lectern-warm-request", MFD_CLOEXEC);
	if (fd >= 0 && (write(fd, b.ptr, b.len) != (ssize_t)b.len ||
			lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	lec__free(lec__buf_take(&b));
	return fd;
}

/* Send "run" with the request, the output pipe's write end and the
 * build's own directory (-1: none). */
static int send_run(int ctl, int req, int out, int dir)
{
	char space[CMSG_SPACE(3 * sizeof(int))];
	char word[] = "run";
	struct iovec iov = { word, 3 };
	struct msghdr m = { 0 };
	struct cmsghdr *c;
	int fds[3] = { req, out, dir };
	size_t nfds = dir >= 0 ? 3 : 2;

	memset(space, 0, sizeof(space));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = space;
	m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	return sendmsg(ctl, &m, MSG_NOSIGNAL) == 3 ? 0 : -1;
}

/* What the child's run is watched for, as the runner watches a command. */
struct watch {
	int out, ctl;
	lec_runner_output_cb cb;
	lec_runner_cancel_cb cancel;
	void *payload;
	const struct lec_runner_limits *limits;
	size_t written;
	int64_t deadline_ms, next_cancel_ms, kill_sent_ms, drain_until_ms;
	enum lec_runner_end stopped; /* why it was stopped; EXITED: not */
	int exited, exit_code;       /* "exit N" came */
	int parent_gone;             /* the socket ended first */
};

static void stop_child(struct watch *s, enum lec_runner_end why)
{
	if (s->kill_sent_ms)
		return;
	s->stopped = why;
	s->kill_sent_ms = lec__monotonic_ms();
	if (send(s->ctl, "kill", 4, MSG_NOSIGNAL) != 4)
		s->parent_gone = 1;
}

static void read_output(struct watch *s)
{
	char buf[WARM_CHUNK];
	ssize_t n = read(s->out, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || errno != EINTR) {
			close(s->out);
			s->out = -1;
		}
		return;
	}
	if (s->limits->output_bytes &&
	    s->written + (size_t)n > s->limits->output_bytes) {
		n = (ssize_t)(s->limits->output_bytes - s->written);
		stop_child(s, LEC_RUNNER_OUTPUT_LIMIT);
	}
	s->written += (size_t)n;
	if (n > 0 && s->cb && s->cb(buf, (size_t)n, s->payload))
		stop_child(s, LEC_RUNNER_CANCELLED);
}

static void read_ctl(struct watch *s)
{
	char packet[WARM_PACKET_MAX];
	ssize_t n = ctl_recv(s->ctl, packet, sizeof(packet), 0);
	int code;

	if (n <= 0) {
		s->parent_gone = 1;
		return;
	}
	if (sscanf(packet, "exit %d", &code) == 1) {
		s->exited = 1;
		s->exit_code = code;
		s->drain_until_ms = lec__monotonic_ms() + WARM_DRAIN_MS;
	}
}

/* The time limit, cancellation, and a child that does not stop when
 * told. Returns 0 to keep watching. */
static int check_limits(struct watch *s, int64_t now)
{
	if (s->deadline_ms && now >= s->deadline_ms)
		stop_child(s, LEC_RUNNER_TIMED_OUT);
	if (s->cancel && now >= s->next_cancel_ms) {
		s->next_cancel_ms = now + LEC_RUNNER_CANCEL_POLL_MS;
		if (s->cancel(s->payload))
			stop_child(s, LEC_RUNNER_CANCELLED);
	}
	return s->kill_sent_ms &&
	       now - s->kill_sent_ms > 2 * LEC_RUNNER_KILL_GRACE_MS;
}

/* Watch the started child to its end: its output until the pipe closes
 * (or WARM_DRAIN_MS after its exit), and the parent's "exit N". LEC_OK,
 * or LEC_ERROR (no message set) when the parent must be stopped (it did
 * not end the child in time, or went away). */
static int watch_child(struct watch *s)
{
	for (;;) {
		struct pollfd p[2] = { { s->out, POLLIN, 0 },
				       { s->parent_gone ? -1 : s->ctl, POLLIN,
					 0 } };
		int64_t now = lec__monotonic_ms();

		if (check_limits(s, now))
			return LEC_ERROR;
		if (s->out < 0) {
			/* The output ended: the exit follows at once. */
			if (s->exited || s->parent_gone)
				break;
			if (s->drain_until_ms == 0)
				s->drain_until_ms = now + WARM_ANSWER_MS;
			else if (now >= s->drain_until_ms)
				return LEC_ERROR;
		} else if (s->exited && now >= s->drain_until_ms) {
			break;
		}
		if (poll(p, 2, LEC_RUNNER_CANCEL_POLL_MS) < 0 && errno != EINTR)
			return LEC_ERROR;
		if (s->out >= 0 && p[0].revents)
			read_output(s);
		if (!s->parent_gone && p[1].revents)
			read_ctl(s);
	}
	return s->exited ? LEC_OK : LEC_ERROR;
}

/* Mark w stopping (lock taken): damaged (the next build runs cold) or
 * not (the next starts a new one), and why. */
static void warm_end(struct lec__warm_pool *pool, struct warm *w,
		     int damaged, const char *why)
{
	pthread_mutex_lock(&pool->lock);
	w->damaged = damaged;
	snprintf(w->why, sizeof(w->why), "%s", why);
	warm_signal_stop(w);
	pool_record(pool);
	pthread_mutex_unlock(&pool->lock);
}

/* How the sandbox of a parent that went away during a build ended: a
 * cap the runner stopped it at is the build's end too. */
static enum lec_runner_end parent_end(struct lec__warm_pool *pool,
				      struct warm *w)
{
	int64_t until = lec__monotonic_ms() + WARM_ANSWER_MS;
	enum lec_runner_end end = LEC_RUNNER_SIGNALED;

	pthread_mutex_lock(&pool->lock);
	while (!w->ended && lec__monotonic_ms() < until) {
		pthread_mutex_unlock(&pool->lock);
		poll(NULL, 0, 20);
		pthread_mutex_lock(&pool->lock);
	}
	if (w->ended && (w->end.end == LEC_RUNNER_DISK_LIMIT ||
			 w->end.end == LEC_RUNNER_TREE_LIMIT))
		end = w->end.end;
	pthread_mutex_unlock(&pool->lock);
	return end;
}

/* What the child wrote in the request's memfd of how it wrote: "parallel
 * N" or "serial REASON" (how->writers -1 when neither). */
static void read_report(int req, struct lec__warm_outcome *how)
{
	char text[WARM_REPORT_MAX];
	ssize_t n = pread(req, text, sizeof(text) - 1, 0);
	unsigned writers;
	char end;

	how->writers = -1;
	how->serial[0] = '\0';
	if (n <= 0)
		return;
	text[n] = '\0';
	if (sscanf(text, "parallel %u%c", &writers, &end) == 1 && writers > 0 &&
	    writers <= LEC_RUNNER_DEFAULT_NPROC) {
		how->writers = (int)writers;
	} else if (strncmp(text, "serial ", 7) == 0 && text[7]) {
		how->writers = 0;
		say(how->serial, sizeof(how->serial), "%s", text + 7);
	}
}

/* One build through a ready generator. LEC_OK: it ran (result set, and
 * how it wrote in how); LEC_EBUSY: the parent did not start it,
 * how->reason says why. A generator that cannot serve another build is
 * marked so (warm_end). */
static int warm_build(struct lec__warm_pool *pool, struct warm *w,
		      const struct lec__warm_request *wreq,
		      const struct lec_runner_spec *cmd,
		      lec_runner_output_cb out, lec_runner_cancel_cb cancel,
		      void *payload, struct lec_runner_result *result,
		      struct lec__warm_outcome *how)
{
	char *reason = how->reason;
	size_t cap = sizeof(how->reason);
	static const char gone[] = "\nlectern: the warm generator stopped "
				   "during the build\n";
	struct lec_runner_limits limits = cmd->limits
		? *cmd->limits
		: (struct lec_runner_limits)LEC_RUNNER_LIMITS_INIT;
	char packet[WARM_PACKET_MAX];
	struct watch s = { 0 };
	const char *dir = w->links ? wreq->build_dir : NULL;
	int req = request_fd(cmd, dir), pipefd[2] = { -1, -1 }, sent;
	int dirfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	ssize_t n;
	long pid;

	if (req < 0 || (dir && dirfd < 0) || pipe2(pipefd, O_CLOEXEC) != 0) {
		if (req >= 0)
			close(req);
		if (dirfd >= 0)
			close(dirfd);
		snprintf(reason, cap, "no request for the warm generator: %s",
			 strerror(errno));
		return LEC_EBUSY;
	}
	result->start_us = lec__now_us();
	sent = send_run(w->ctl, req, pipefd[1], dirfd);
	close(pipefd[1]);
	if (dirfd >= 0)
		close(dirfd);
	n = sent == 0 ? ctl_recv(w->ctl, packet, sizeof(packet),
				 WARM_ANSWER_MS)
		      : 0;
	if (n <= 0 || sscanf(packet, "started %ld", &pid) != 1) {
		close(req);
		close(pipefd[0]);
		if (n > 6 && strncmp(packet, "stale ", 6) == 0) {
			say(reason, cap, "%s", packet + 6);
			warm_end(pool, w, 0, reason);
		} else {
			snprintf(reason, cap, "the warm generator was damaged: "
					      "it %s",
				 n < 0 ? "did not answer" : "had stopped");
			warm_end(pool, w, 1, reason);
		}
		return LEC_EBUSY;
	}
	s.out = pipefd[0];
	s.ctl = w->ctl;
	s.cb = out;
	s.cancel = cancel;
	s.payload = payload;
	s.limits = &limits;
	s.stopped = LEC_RUNNER_EXITED;
	if (limits.time_limit_s)
		s.deadline_ms = lec__monotonic_ms() +
				(int64_t)limits.time_limit_s * 1000;
	if (watch_child(&s) < 0)
		warm_end(pool, w, 1, s.exited ? "it did not stop a build"
					      : "it stopped during a build");
	if (s.out >= 0)
		close(s.out);
	result->end = s.stopped;
	result->exit_code = s.exited ? s.exit_code : 128 + 9;
	if (!s.exited && s.stopped == LEC_RUNNER_EXITED) {
		/* A build killed it, or the runner stopped the sandbox. */
		if ((result->end = parent_end(pool, w)) == LEC_RUNNER_SIGNALED &&
		    out)
			out(gone + 1, sizeof(gone) - 2, payload);
	}
	result->end_us = lec__now_us();
	read_report(req, how);
	close(req);
	return LEC_OK;
}

/* Finding one -------------------------------------------------------------- */

/* What pool_find says to do. */
enum warm_way {
	WARM_USE,  /* the generator found */
	WARM_NEW,  /* start one (reason: why none was used) */
	WARM_COLD  /* run cold (reason: why) */
};

/* who's generator in the pool (lock held): the way to run req, with the
 * reason when it is not the generator found. One that cannot serve req
 * (its key changed, a fresh build, it stopped or was damaged) is taken
 * out (*gone, the caller's to free). A damaged one (it stopped without
 * being asked, or did not answer) makes this build cold: the build
 * after starts a new one. */
static enum warm_way pool_find(struct lec__warm_pool *pool,
			       const struct lec__warm_request *req,
			       const struct lec_runner_spec *cmd,
			       struct warm **found, struct warm **gone,
			       char *reason, size_t cap)
{
	enum warm_way way = WARM_NEW;
	struct warm *w = NULL;
	size_t i;

	*found = *gone = NULL;
	snprintf(reason, cap, "no warm generator yet");
	for (i = 0; i < pool->n && w == NULL; i++)
		if (strcmp(pool->items[i]->who, req->who) == 0)
			w = pool->items[i];
	if (w == NULL)
		return WARM_NEW;
	if (w->busy) {
		snprintf(reason, cap, "the warm generator is busy with "
				      "another build");
		return WARM_COLD;
	}
	if (req->fresh) {
		snprintf(reason, cap, "a fresh build was asked for");
	} else if (!lec__cache_key_same(&w->key, req->key, reason, cap) ||
		   !same_mounts(w, cmd, req->build_dir, reason, cap)) {
		/* the reason is the part that changed */
	} else if (w->refused) {
		snprintf(reason, cap, "%s", w->refused);
		return WARM_COLD;
	} else if (w->damaged || (w->ended && !w->stop)) {
		say(reason, cap, "the warm generator was damaged: %s",
		    w->damaged ? w->why : "it had exited");
		way = WARM_COLD;
	} else if (w->stop || w->ended) {
		snprintf(reason, cap, "%s", w->why[0] ? w->why
						      : "it had stopped");
	} else {
		*found = w;
		return WARM_USE;
	}
	warm_signal_stop(w);
	*gone = pool_take(pool, i - 1);
	pool_record(pool);
	return way;
}

/* A new generator for req, started; NULL when out of memory (reason says
 * so). One that could not start is returned too, refused, so that the
 * next build of the same key does not try again. */
static struct warm *warm_new(struct lec__warm_pool *pool,
			     const struct lec__warm_request *req,
			     const struct lec_runner_spec *cmd, char *reason,
			     size_t cap)
{
	struct warm *w = lec__calloc(1, sizeof(*w));

	if (w == NULL || (w->who = lec__strdup(req->who)) == NULL) {
		lec__free(w);
		snprintf(reason, cap, "out of memory");
		return NULL;
	}
	w->ctl = -1;
	w->key = *req->key;
	if ((w->tree = lec__strdup(req->tree)) == NULL) {
		warm_free(w);
		snprintf(reason, cap, "out of memory");
		return NULL;
	}
	if (warm_start(pool, w, req, cmd) < 0) {
		snprintf(reason, cap, "no warm generator: %s", lec_error_last());
		pthread_mutex_lock(&pool->lock);
		warm_signal_stop(w);
		pthread_mutex_unlock(&pool->lock);
		if ((w->refused = lec__strdup(reason)) == NULL) {
			warm_free(w);
			return NULL;
		}
	}
	return w;
}

/* Put a new generator for req into the pool, busy unless refused.
 * NULL when none could be made (reason says why). */
static struct warm *pool_add(struct lec__warm_pool *pool,
			     const struct lec__warm_request *req,
			     const struct lec_runner_spec *cmd, char *reason,
			     size_t cap)
{
	struct warm *w;

	if ((w = warm_new(pool, req, cmd, reason, cap)) == NULL)
		return NULL;
	pthread_mutex_lock(&pool->lock);
	if (pool->n == WARM_MAX) {
		pthread_mutex_unlock(&pool->lock);
		warm_free(w);
		snprintf(reason, cap, "too many warm generators");
		return NULL;
	}
	pool->items[pool->n++] = w;
	w->busy = w->refused == NULL;
	pool_record(pool);
	pthread_mutex_unlock(&pool->lock);
	return w;
}

int lec__warm_run(struct lec__warm_pool *pool,
		  const struct lec__warm_request *req,
		  const struct lec_runner_spec *cmd, lec_runner_output_cb out,
		  lec_runner_cancel_cb cancel, void *payload,
		  struct lec_runner_result *result,
		  struct lec__warm_outcome *how)
{
	char *reason = how->reason;
	size_t cap = sizeof(how->reason);
	struct warm *w, *gone;
	enum warm_way way;
	int rc;

	how->writers = -1;
	how->serial[0] = '\0';
	pthread_mutex_lock(&pool->lock);
	way = pool_find(pool, req, cmd, &w, &gone, reason, cap);
	if (w)
		w->busy = 1;
	pthread_mutex_unlock(&pool->lock);
	warm_free(gone);
	how->reused = way == WARM_USE;
	if (way == WARM_COLD)
		return LEC_EBUSY;
	if (way == WARM_NEW) {
		char why[160];

		/* A started one serves this build, not reused: why it is
		 * new is the reason. */
		snprintf(why, sizeof(why), "%s", reason);
		if ((w = pool_add(pool, req, cmd, reason, cap)) == NULL)
			return LEC_EBUSY;
		if (w->refused)
			return LEC_EBUSY;
		snprintf(reason, cap, "%s", why);
	}
	rc = warm_build(pool, w, req, cmd, out, cancel, payload, result, how);
	if (rc == LEC_EBUSY)
		how->reused = 0;
	pthread_mutex_lock(&pool->lock);
	w->busy = 0;
	w->last_used_ms = lec__monotonic_ms();
	pthread_mutex_unlock(&pool->lock);
	return rc;
}
