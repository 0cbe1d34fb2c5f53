/*
 * The sandboxed command runner: forks, (as root) stages the mounts and drops
 * to the build user, execs bubblewrap (its command line, which says what
 * the sandbox holds, is runner_args.c's) or the command itself when
 * unsandboxed, with the limits set, then watches three things with one
 * poll() loop: the merged output pipe, a pidfd of the child (so its
 * exit is noticed at once, without SIGCHLD handlers that would belong to the
 * whole program), and bubblewrap's info pipe, which names the pid namespace's
 * init; waiting for that init to be gone is what guarantees that no process
 * of the command survives the return.
 *
 * Everything the child needs is built before fork(): between fork and exec
 * only async-signal-safe system calls are made, because the server is
 * multi-threaded and another thread may hold the allocator's lock.
 *
 * The size of a watched directory is measured from the same loop, at most
 * once a second and less often when measuring is slow. Masking secrets in
 * recorded output is runner_mask.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include "internal.h"
#include "lectern/runner.h"
#include "runner_internal.h"

/* Bytes read from the output pipe at a time: a pipe's default capacity, so
 * one read usually empties it. */
#define RUNNER_CHUNK (64 * 1024)
/* After the command exits, how long its output pipe may stay open (held by
 * a process that escaped an unsandboxed command) before we stop reading. */
#define RUNNER_DRAIN_MS 2000
/* How long to wait for the killed pid namespace to be gone: the kernel kills
 * its processes at once; this only bounds a process stuck in the kernel. */
#define RUNNER_REAP_WAIT_MS 5000
/* Room for bubblewrap's info JSON up to the child pid it starts with. */
#define RUNNER_INFO_MAX 256
/* The probe's time limit: creating namespaces takes milliseconds. */
#define RUNNER_PROBE_TIME_LIMIT_S 10
/* Disk watchdog: the least time between two measurements, and how many
 * times the last measurement's duration must pass before the next (so a
 * huge tree is not walked back to back). */
#define RUNNER_DISK_EVERY_MS 1000
#define RUNNER_DISK_BACKOFF 4
/* The child, between fork and exec ---------------------------------------- */

/* Everything the child needs, prepared before fork. */
struct child_plan {
	char *path;          /* what to execve */
	char **argv, **envp; /* NULL-terminated */
	const char *cwd;     /* chdir here first (unsandboxed), or NULL */
	struct rlimit limits[4]; /* RLIMIT_AS, _FSIZE, _NOFILE, _CPU; 0: none */
	int out_fd, status_fd, info_fd; /* write ends; info_fd -1 if unused */
	int passwd_fd, group_fd; /* read ends of the synthetic files, or -1 */
	int egress_fd;       /* the egress proxy's socket, or -1 */
	/* Root only (drop): bind these sources under LEC_RUNNER__STAGE_DIR,
	 * then become uid:gid. */
	const char *stage_src[LEC_RUNNER__MAX_MOUNTS];
	char stage_dst[LEC_RUNNER__MAX_MOUNTS][32];
	int stage_is_dir[LEC_RUNNER__MAX_MOUNTS];
	size_t nstage;
	int drop;
	uid_t uid;
	gid_t gid;
	pid_t parent;
	int max_fd;          /* for closing fds where close_range is missing */
};

/* The rlimits a child sets, in child_plan.limits order. */
static const int child_rlimits[4] = { RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE,
				      RLIMIT_CPU };

static _Noreturn void child_fail(int status_fd)
{
	int err = errno;

	while (write(status_fd, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* A copy of fd above every number the child sets up, so that putting one
 * fd in place never overwrites another still to be placed (the server may
 * have closed its stdin, making the pipes or /dev/null land on 0 to 6). */
static int child_lift(int fd)
{
	return fd < 0 ? -1
		      : fcntl(fd, F_DUPFD_CLOEXEC, LEC_RUNNER__EGRESS_FD + 1);
}

/* Put a lifted fd at its number (without close-on-exec), or fail. */
static void child_place(int lifted, int at)
{
	if (lifted >= 0 && dup2(lifted, at) < 0)
		child_fail(LEC_RUNNER__STATUS_FD);
}

static void child_fds(const struct child_plan *plan)
{
	int null_fd = child_lift(open("/dev/null", O_RDONLY | O_CLOEXEC));
	int out = child_lift(plan->out_fd);
	int status = child_lift(plan->status_fd);
	int info = child_lift(plan->info_fd);
	int passwd = child_lift(plan->passwd_fd);
	int group = child_lift(plan->group_fd);
	int egress = child_lift(plan->egress_fd);
	int first_closed = plan->egress_fd >= 0 ? LEC_RUNNER__EGRESS_FD + 1
			   : plan->info_fd >= 0 ? LEC_RUNNER__GROUP_FD + 1
						: LEC_RUNNER__STATUS_FD + 1;
	int fd;

	if (null_fd < 0 || out < 0 || status < 0 ||
	    (plan->info_fd >= 0 && (info < 0 || passwd < 0 || group < 0)) ||
	    (plan->egress_fd >= 0 && egress < 0))
		child_fail(plan->status_fd);
	if (dup3(status, LEC_RUNNER__STATUS_FD, O_CLOEXEC) < 0)
		child_fail(status);
	child_place(null_fd, 0);
	child_place(out, 1);
	child_place(out, 2);
	child_place(info, LEC_RUNNER__INFO_FD);
	child_place(passwd, LEC_RUNNER__PASSWD_FD);
	child_place(group, LEC_RUNNER__GROUP_FD);
	child_place(egress, LEC_RUNNER__EGRESS_FD);
	if (close_range((unsigned)first_closed, ~0u, 0) != 0)
		for (fd = first_closed; fd < plan->max_fd; fd++)
			close(fd);
}

static void child_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	/* Ignored signals stay ignored across exec: a server ignoring
	 * SIGPIPE would make `yes | head` run forever. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* "/proc/self/fd/<fd>" without the allocator or locale (between fork and
 * exec). */
static void fd_path(int fd, char *out)
{
	static const char prefix[] = "/proc/self/fd/";
	char digits[16];
	int n = 0;

	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0);
	memcpy(out, prefix, sizeof(prefix) - 1);
	out += sizeof(prefix) - 1;
	while (n > 0)
		*out++ = digits[--n];
	*out = '\0';
}

/* Root: bind each source under a private tmpfs the build user can enter.
 * In a mount namespace of the child's own, the sources are opened (before
 * the tmpfs covers LEC_RUNNER__STAGE_DIR: a source may lie below it) and bound
 * through their descriptors. Runs before child_fds, so failures go to the
 * status pipe's first number. */
static void child_stage(const struct child_plan *plan)
{
	int fds[LEC_RUNNER__MAX_MOUNTS];
	char via[32];
	size_t i;
	int made;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		child_fail(plan->status_fd);
	for (i = 0; i < plan->nstage; i++)
		if ((fds[i] = open(plan->stage_src[i], O_PATH | O_CLOEXEC)) < 0)
			child_fail(plan->status_fd);
	if (mount("lectern-stage", LEC_RUNNER__STAGE_DIR, "tmpfs",
		  MS_NOSUID | MS_NODEV, "mode=0755,size=64k") != 0)
		child_fail(plan->status_fd);
	for (i = 0; i < plan->nstage; i++) {
		made = plan->stage_is_dir[i]
			       ? mkdir(plan->stage_dst[i], 0755)
			       : open(plan->stage_dst[i],
				      O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (made < 0)
			child_fail(plan->status_fd);
		if (!plan->stage_is_dir[i])
			close(made);
		fd_path(fds[i], via);
		if (mount(via, plan->stage_dst[i], NULL, MS_BIND | MS_REC,
			  NULL) != 0)
			child_fail(plan->status_fd);
		close(fds[i]);
	}
}

/* Root: become the build user for good (raw system calls: the libc
 * wrappers synchronise threads, and the child has only one). */
static void child_drop(const struct child_plan *plan)
{
	if (syscall(SYS_setgroups, 0, NULL) != 0 ||
	    syscall(SYS_setresgid, plan->gid, plan->gid, plan->gid) != 0 ||
	    syscall(SYS_setresuid, plan->uid, plan->uid, plan->uid) != 0)
		child_fail(LEC_RUNNER__STATUS_FD);
}

static _Noreturn void child_run(const struct child_plan *plan)
{
	size_t i;

	/* Its own session: the process group the runner kills, and no
	 * controlling terminal for the command to write to. */
	setsid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != plan->parent) /* the parent died already */
		_exit(127);
	child_signals();
	if (plan->drop)
		child_stage(plan);
	child_fds(plan);
	if (plan->drop) {
		child_drop(plan);
		/* The death signal is cleared by a change of identity. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
		    getppid() != plan->parent)
			_exit(127);
	}
	for (i = 0; i < sizeof(child_rlimits) / sizeof(child_rlimits[0]); i++)
		if (plan->limits[i].rlim_max > 0 &&
		    setrlimit(child_rlimits[i], &plan->limits[i]) != 0)
			child_fail(LEC_RUNNER__STATUS_FD);
	if (plan->cwd && chdir(plan->cwd) != 0)
		child_fail(LEC_RUNNER__STATUS_FD);
	execve(plan->path, plan->argv, plan->envp);
	child_fail(LEC_RUNNER__STATUS_FD);
}

/* The parent's side -------------------------------------------------------- */

struct run {
	const struct lec_runner_limits *limits;
	lec_runner_output_cb out;
	lec_runner_cancel_cb cancel;
	void *payload;
	int unsandboxed;
	pid_t pid;
	int pidfd;   /* the child (bubblewrap); -1 once reaped */
	int out_fd;  /* read end of the output pipe; -1 at EOF */
	int info_fd; /* read end of bubblewrap's info; -1 once read */
	int init_fd; /* pidfd of the pid namespace's init, or -1 */
	int init_ours; /* init_fd is in another pid namespace: may be killed */
	char info[RUNNER_INFO_MAX];
	size_t info_len;
	int info_parsed; /* init_fd was opened (or could not be) */
	char *chunk;
	size_t written; /* output bytes passed to the callback */
	int status;     /* wait status once reaped */
	int stopping;   /* stop asked for; stop_end says why */
	int signalled;  /* SIGTERM sent (a sandbox's waits for its init) */
	enum lec_runner_end stop_end;
	int killed;     /* SIGKILL sent */
	int64_t started_ms, stop_ms, exit_ms, next_cancel_ms;
	const char *const *watch_dirs; /* measured against disk_bytes */
	int64_t next_disk_ms;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* SIGKILL to the pid namespace's init, which ends every process of the
 * namespace. bubblewrap's --die-with-parent does it too, but only once
 * the init has asked for it: killed in the instant after it cloned the
 * init, bubblewrap leaves a sandbox running that nobody stops (a cancelled
 * build's command outlived its deleted project on CI). */
static void kill_init(const struct run *r)
{
	if (r->init_fd >= 0 && r->init_ours)
		pidfd_send_signal(r->init_fd, SIGKILL, NULL, 0);
}

/* SIGTERM to the process group, once for a stop; a sandbox's init is
 * killed at once (the command runs in a session of its own, which the
 * group's signal never reaches). */
static void run_signal_stop(struct run *r)
{
	if (r->signalled || r->pidfd < 0)
		return;
	r->signalled = 1;
	kill(-r->pid, SIGTERM);
	kill_init(r);
}

/* Whether bubblewrap has yet to say which process is the namespace's
 * init: a stop waits for that (a few milliseconds after its start), so
 * that the init is known and killed, not orphaned. */
static int init_unknown(const struct run *r)
{
	return !r->unsandboxed && r->info_fd >= 0 && !r->info_parsed;
}

/* Stop the command: SIGTERM to its process group now (a sandbox: once its
 * init is known), SIGKILL later. */
static void run_stop(struct run *r, enum lec_runner_end why)
{
	if (r->stopping)
		return;
	r->stopping = 1;
	r->stop_end = why;
	r->stop_ms = lec__monotonic_ms();
	if (r->pidfd < 0) /* it has exited already: just stop reading */
		close_fd(&r->out_fd);
	else if (!init_unknown(r))
		run_signal_stop(r);
}

/* Hand output to the callback, up to the cap. */
static void run_output(struct run *r, const char *data, size_t len)
{
	size_t cap = r->limits->output_bytes;
	int over = 0;

	if (r->stopping)
		return; /* what a dying command writes is not its output */
	if (cap > 0 && len > cap - r->written) {
		len = cap - r->written;
		over = 1;
	}
	r->written += len;
	if (len > 0 && r->out && r->out(data, len, r->payload) != 0)
		run_stop(r, LEC_RUNNER_CANCELLED);
	if (over)
		run_stop(r, LEC_RUNNER_OUTPUT_LIMIT);
}

static void run_read_output(struct run *r)
{
	ssize_t n = read(r->out_fd, r->chunk, RUNNER_CHUNK);

	if (n > 0)
		run_output(r, r->chunk, (size_t)n);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		close_fd(&r->out_fd);
}

/* Whether process pid (held by a pidfd) is in another pid namespace than
 * this one, as a sandbox's init is. */
static int in_other_pid_namespace(pid_t pid)
{
	char path[64], theirs[64], ours[64];
	ssize_t n, m;

	snprintf(path, sizeof(path), "/proc/%ld/ns/pid", (long)pid);
	n = readlink(path, theirs, sizeof(theirs) - 1);
	m = readlink("/proc/self/ns/pid", ours, sizeof(ours) - 1);
	return n > 0 && m > 0 && (n != m || memcmp(theirs, ours, (size_t)n));
}

/* bubblewrap's info starts {"child-pid": N, ...: N is the host pid of the
 * namespace's init. Watch it with a pidfd once the number is complete. */
static void run_parse_info(struct run *r)
{
	static const char key[] = "\"child-pid\":";
	const char *p = strstr(r->info, key);
	char *end;
	long pid;

	if (p == NULL)
		return;
	p += strlen(key);
	p += strspn(p, " ");
	errno = 0;
	pid = strtol(p, &end, 10);
	if (end == p || *end == '\0' || errno != 0 || pid <= 0)
		return; /* not complete yet */
	r->init_fd = pidfd_open((pid_t)pid, 0);
	r->info_parsed = 1;
	/* Not in a namespace of its own: gone, and its number reused by
	 * another process, which is watched (harmlessly) but never killed. */
	r->init_ours = r->init_fd >= 0 && in_other_pid_namespace((pid_t)pid);
	if (r->stopping)
		run_signal_stop(r);
}

/* Read bubblewrap's info to its end: closing the pipe early would kill
 * bubblewrap with SIGPIPE while it writes the rest. */
static void run_read_info(struct run *r)
{
	char discard[RUNNER_INFO_MAX];
	char *to = r->info + r->info_len;
	size_t room = sizeof(r->info) - 1 - r->info_len;
	ssize_t n;

	if (room == 0 || r->info_parsed) {
		to = discard;
		room = sizeof(discard);
	}
	n = read(r->info_fd, to, room);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(&r->info_fd);
		if (r->stopping) /* bubblewrap said nothing: stop it anyway */
			run_signal_stop(r);
		return;
	}
	if (to == discard)
		return;
	r->info_len += (size_t)n;
	r->info[r->info_len] = '\0';
	run_parse_info(r);
}

/* The child exited: kill what is left of its process group (the zombie
 * still holds the group's id, so the id is not someone else's) and of its
 * sandbox, reap it. */
static void run_reap(struct run *r)
{
	kill(-r->pid, SIGKILL);
	kill_init(r);
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	close_fd(&r->pidfd);
	r->exit_ms = lec__monotonic_ms();
}

/* What the watchdog found in the watched directories so far. */
struct tree_count {
	uint64_t bytes, entries;
	int too_big; /* past LEC_RUNNER_TREE_MAX_DEPTH or _ENTRIES */
};

/* Count the tree below dirfd (which this closes) without following links.
 * It runs while the build writes, so it holds a descriptor per level
 * (renames cannot send it elsewhere, unlike files.h's walk) and a tree
 * past the bounds ends the count: the build is stopped for making it.
 * The depth bound is what bounds the descriptors and the recursion. */
static void tree_count(int dirfd, unsigned depth, struct tree_count *t)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *e;
	struct stat sb;

	if (dir == NULL) {
		close(dirfd);
		return;
	}
	while (!t->too_big && (e = readdir(dir)) != NULL) {
		int fd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		t->bytes += (uint64_t)sb.st_blocks * 512;
		if (++t->entries > LEC_RUNNER_TREE_MAX_ENTRIES ||
		    (S_ISDIR(sb.st_mode) && depth + 1 > LEC_RUNNER_TREE_MAX_DEPTH))
			t->too_big = 1;
		else if (S_ISDIR(sb.st_mode) &&
			 (fd = openat(dirfd, e->d_name,
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC)) >= 0)
			tree_count(fd, depth + 1, t);
	}
	closedir(dir);
}

/* The disk watchdog: measure the watched directories when it is time, and
 * stop the command once they hold more than the cap, or a tree past the
 * bounds a cleanup must walk. */
static void run_check_disk(struct run *r, int64_t now)
{
	struct tree_count t = { 0, 0, 0 };
	int64_t took;
	size_t i;
	int fd;

	if (r->watch_dirs == NULL || r->limits->disk_bytes == 0 ||
	    now < r->next_disk_ms)
		return;
	for (i = 0; r->watch_dirs[i] && !t.too_big; i++)
		if ((fd = open(r->watch_dirs[i],
			       O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
			tree_count(fd, 0, &t);
	if (t.too_big)
		run_stop(r, LEC_RUNNER_TREE_LIMIT);
	else if (t.bytes > r->limits->disk_bytes)
		run_stop(r, LEC_RUNNER_DISK_LIMIT);
	took = lec__monotonic_ms() - now;
	r->next_disk_ms = now + (took * RUNNER_DISK_BACKOFF > RUNNER_DISK_EVERY_MS
					 ? took * RUNNER_DISK_BACKOFF
					 : RUNNER_DISK_EVERY_MS);
}

/* The earlier of two deadlines, -1 meaning none. */
static int64_t sooner(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

/* Milliseconds until the next thing to check, or -1 for none. */
static int run_timeout(const struct run *r, int64_t now)
{
	int64_t next = -1;

	if (r->pidfd < 0) {
		next = r->exit_ms + RUNNER_DRAIN_MS;
	} else if (r->stopping) {
		if (!r->killed)
			next = r->stop_ms + LEC_RUNNER_KILL_GRACE_MS;
	} else {
		if (r->cancel)
			next = r->next_cancel_ms;
		if (r->watch_dirs && r->limits->disk_bytes > 0)
			next = sooner(next, r->next_disk_ms);
		if (r->limits->time_limit_s > 0)
			next = sooner(next,
				      r->started_ms +
					      (int64_t)r->limits->time_limit_s *
						      1000);
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

/* The limits and the cancel callback, checked after each wake-up. */
static void run_check(struct run *r, int64_t now)
{
	if (r->pidfd < 0) {
		if (now >= r->exit_ms + RUNNER_DRAIN_MS)
			close_fd(&r->out_fd);
		return;
	}
	if (r->stopping) {
		if (!r->killed &&
		    now >= r->stop_ms + LEC_RUNNER_KILL_GRACE_MS) {
			kill(-r->pid, SIGKILL);
			kill_init(r);
			r->killed = 1;
		}
		return;
	}
	if (r->limits->time_limit_s > 0 &&
	    now >= r->started_ms + (int64_t)r->limits->time_limit_s * 1000) {
		run_stop(r, LEC_RUNNER_TIMED_OUT);
		return;
	}
	if (r->cancel && now >= r->next_cancel_ms) {
		r->next_cancel_ms = now + LEC_RUNNER_CANCEL_POLL_MS;
		if (r->cancel(r->payload))
			run_stop(r, LEC_RUNNER_CANCELLED);
	}
	if (!r->stopping)
		run_check_disk(r, now);
}

/* Watch the command until it has exited and its output is read. The
 * handlers are picked by slot, not by fd number: a handler may close one fd
 * and open another that gets the same number. */
static int run_watch(struct run *r)
{
	while (r->pidfd >= 0 || r->out_fd >= 0) {
		struct pollfd fds[3] = { { r->out_fd, POLLIN, 0 },
					 { r->pidfd, POLLIN, 0 },
					 { r->info_fd, POLLIN, 0 } };

		/* poll() ignores the negative (closed) ones. */
		if (poll(fds, 3, run_timeout(r, lec__monotonic_ms())) < 0 &&
		    errno != EINTR)
			return lec__error(LEC_ERROR, "poll: %s",
					  strerror(errno));
		if (fds[0].revents)
			run_read_output(r);
		if (fds[2].revents)
			run_read_info(r);
		if (fds[1].revents)
			run_reap(r);
		run_check(r, lec__monotonic_ms());
	}
	return LEC_OK;
}

/* Kill the pid namespace's init (bubblewrap is gone: nothing of its
 * sandbox may stay) and wait until it is gone: the kernel reports it gone
 * only after every other process of the namespace is. */
static void run_wait_namespace(struct run *r)
{
	struct pollfd pfd;

	if (r->init_fd < 0)
		return;
	kill_init(r);
	pfd.fd = r->init_fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, RUNNER_REAP_WAIT_MS) < 0 && errno == EINTR)
		;
	close_fd(&r->init_fd);
}

static void run_result(const struct run *r, struct lec_runner_result *res)
{
	if (WIFEXITED(r->status)) {
		res->end = LEC_RUNNER_EXITED;
		res->exit_code = WEXITSTATUS(r->status);
	} else {
		res->end = LEC_RUNNER_SIGNALED;
		res->exit_code = 128 + WTERMSIG(r->status);
	}
	if (r->stopping)
		res->end = r->stop_end;
}

/* Pipes for the child, close-on-exec on the parent's side so that no other
 * thread's child inherits them. */
static int open_pipes(int out[2], int status[2], int info[2], int want_info)
{
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0 ||
	    (want_info && pipe2(info, O_CLOEXEC) != 0))
		return lec__error(LEC_ERROR, "cannot create a pipe: %s",
				  strerror(errno));
	if (fcntl(out[0], F_SETFL, O_NONBLOCK) != 0 ||
	    (want_info && fcntl(info[0], F_SETFL, O_NONBLOCK) != 0))
		return lec__error(LEC_ERROR, "fcntl: %s", strerror(errno));
	return LEC_OK;
}

static void close_pair(int fds[2])
{
	close_fd(&fds[0]);
	close_fd(&fds[1]);
}

/* A pipe holding text to its end, for bubblewrap's --ro-bind-data: the
 * text is far below a pipe's capacity, so it is all written at once. */
static int data_pipe(int fds[2], const char *text)
{
	size_t n = strlen(text);

	if (pipe2(fds, O_CLOEXEC) != 0 ||
	    write(fds[1], text, n) != (ssize_t)n)
		return lec__error(LEC_ERROR, "cannot create a pipe: %s",
				  strerror(errno));
	close_fd(&fds[1]);
	return LEC_OK;
}

/* The sandbox's /etc/passwd and /etc/group: root (whom files of the
 * system belong to) and the build user alone. */
static int identity_pipes(int passwd[2], int group[2], uid_t uid, gid_t gid)
{
	char text[256];
	int error;

	snprintf(text, sizeof(text),
		 "root:x:0:0:root:/root:/usr/sbin/nologin\n"
		 "build:x:%u:%u:Lectern build:/tmp:/bin/sh\n",
		 (unsigned)uid, (unsigned)gid);
	if ((error = data_pipe(passwd, text)) < 0)
		return error;
	snprintf(text, sizeof(text), "root:x:0:\nbuild:x:%u:\n",
		 (unsigned)gid);
	return data_pipe(group, text);
}

/* Fork and exec; on LEC_OK the child runs and r holds its pid and pidfd. */
static int run_start(struct run *r, struct child_plan *plan)
{
	int out[2] = { -1, -1 }, status[2] = { -1, -1 }, info[2] = { -1, -1 };
	int passwd[2] = { -1, -1 }, group[2] = { -1, -1 };
	int error, child_errno = 0;
	ssize_t n;

	if ((error = open_pipes(out, status, info, !r->unsandboxed)) < 0 ||
	    (!r->unsandboxed &&
	     (error = identity_pipes(passwd, group,
				     plan->drop ? plan->uid : getuid(),
				     plan->drop ? plan->gid : getgid())) < 0))
		goto done;
	plan->out_fd = out[1];
	plan->status_fd = status[1];
	plan->info_fd = info[1];
	plan->passwd_fd = passwd[0];
	plan->group_fd = group[0];
	plan->parent = getpid();
	plan->max_fd = (int)sysconf(_SC_OPEN_MAX);
	r->started_ms = lec__monotonic_ms();
	r->next_cancel_ms = r->started_ms + LEC_RUNNER_CANCEL_POLL_MS;
	r->next_disk_ms = r->started_ms + RUNNER_DISK_EVERY_MS;
	if ((r->pid = fork()) < 0) {
		error = lec__error(LEC_ERROR, "fork: %s", strerror(errno));
		goto done;
	}
	if (r->pid == 0)
		child_run(plan);
	close_fd(&out[1]);
	close_fd(&status[1]);
	close_fd(&info[1]);
	/* EOF when exec succeeded (close-on-exec), else the child's errno. */
	while ((n = read(status[0], &child_errno, sizeof(child_errno))) < 0 &&
	       errno == EINTR)
		;
	if (n > 0) {
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		error = lec__error(LEC_ERROR, "cannot run %s: %s", plan->path,
				   strerror(child_errno));
		goto done;
	}
	if ((r->pidfd = pidfd_open(r->pid, 0)) < 0) {
		error = lec__error(LEC_ERROR, "pidfd_open: %s",
				   strerror(errno));
		kill(-r->pid, SIGKILL);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto done;
	}
	r->out_fd = out[0];
	r->info_fd = info[0];
	out[0] = info[0] = -1;
	error = LEC_OK;
done:
	close_pair(out);
	close_pair(status);
	close_pair(info);
	close_pair(passwd);
	close_pair(group);
	return error;
}

/* The rlimits of the command's processes, in child_rlimits order. With a
 * launcher, the address space is prlimit's to cap (push_command). */
static void plan_limits(struct child_plan *plan,
			const struct lec_runner_limits *limits, int launcher)
{
	const rlim_t values[4] = { launcher ? 0 : limits->memory_bytes,
				   limits->fsize_bytes, limits->nofile,
				   limits->cpu_s };
	size_t i;

	for (i = 0; i < 4; i++)
		plan->limits[i].rlim_cur = plan->limits[i].rlim_max = values[i];
}

/* Root: the mounts' sources for the child to stage, and the build user
 * to become. */
static int plan_stage(struct child_plan *plan,
		      const struct lec_runner_spec *spec)
{
	struct stat sb;
	size_t i;

	plan->drop = 1;
	plan->uid = (uid_t)spec->uid;
	plan->gid = (gid_t)spec->gid;
	for (i = 0; i < spec->nmounts; i++) {
		if (stat(spec->mounts[i].path, &sb) != 0)
			return lec__error(LEC_ENOTFOUND, "cannot mount %s: %s",
					  spec->mounts[i].path,
					  strerror(errno));
		plan->stage_src[i] = spec->mounts[i].path;
		plan->stage_is_dir[i] = S_ISDIR(sb.st_mode);
		snprintf(plan->stage_dst[i], sizeof(plan->stage_dst[0]),
			 LEC_RUNNER__STAGE_DIR "/%zu", i);
	}
	plan->nstage = spec->nmounts;
	return LEC_OK;
}

static void plan_dispose(struct child_plan *plan)
{
	lec__free(plan->path);
	plan->path = NULL;
}

/* Build the child's exec plan into the vectors (owned by the caller). */
static int make_plan(const struct lec_runner_spec *spec,
		     const struct lec_runner_limits *limits,
		     struct lec_runner__strvec *argv,
		     struct lec_runner__strvec *envp, struct child_plan *plan)
{
	int error;

	memset(plan, 0, sizeof(*plan));
	plan->passwd_fd = plan->group_fd = plan->egress_fd = -1;
	plan_limits(plan, limits, !spec->unsandboxed && spec->launcher);
	if (spec->unsandboxed) {
		if ((error = lec_runner__resolve_command(
			     spec->argv[0], spec->env, &plan->path)) < 0 ||
		    (error = lec_runner__push_all(argv, spec->argv)) < 0)
			return error;
		plan->cwd = spec->cwd ? spec->cwd : "/";
	} else {
		if ((geteuid() == 0 && !spec->same_user &&
		     (error = plan_stage(plan, spec)) < 0) ||
		    (error = lec_runner__bwrap_args(spec, limits, plan->drop,
						    argv)) < 0)
			return error;
		if ((plan->path = lec__strdup(lec_runner__bwrap_path)) == NULL)
			return lec__error_oom();
	}
	if (spec->network == LEC_RUNNER_NET_EGRESS)
		plan->egress_fd = spec->egress_fd;
	/* The command's environment, and bubblewrap's: it passes its own on.
	 * execve needs a vector even for an empty environment. */
	if ((error = lec_runner__push_all(envp, spec->env)) < 0 ||
	    (error = lec_runner__strvec_reserve(envp)) < 0)
		return error;
	plan->argv = argv->items;
	plan->envp = envp->items;
	return LEC_OK;
}

int lec_runner_run(const struct lec_runner_spec *spec, lec_runner_output_cb out,
		   lec_runner_cancel_cb cancel, void *payload,
		   struct lec_runner_result *result)
{
	const struct lec_runner_limits defaults = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner__strvec argv = { 0 }, envp = { 0 };
	struct child_plan plan = { 0 };
	struct run r;
	int error;

	lec_error_clear();
	memset(result, 0, sizeof(*result));
	result->end = LEC_RUNNER_START_FAILED;
	result->start_us = result->end_us = lec__now_us();
	memset(&r, 0, sizeof(r));
	r.pidfd = r.out_fd = r.info_fd = r.init_fd = -1;
	r.limits = spec && spec->limits ? spec->limits : &defaults;
	if ((error = lec_runner__check_spec(spec)) < 0 ||
	    (error = make_plan(spec, r.limits, &argv, &envp, &plan)) < 0)
		goto done;
	r.watch_dirs = spec->unsandboxed ? NULL : spec->watch_dirs;
	r.out = out;
	r.cancel = cancel;
	r.payload = payload;
	r.unsandboxed = spec->unsandboxed;
	if ((r.chunk = lec__malloc(RUNNER_CHUNK)) == NULL) {
		error = lec__error_oom();
		goto done;
	}
	result->start_us = lec__now_us();
	if ((error = run_start(&r, &plan)) < 0)
		goto done;
	error = run_watch(&r);
	if (r.info_fd >= 0 && !r.info_parsed)
		run_read_info(&r); /* written before bubblewrap exited */
	if (r.pidfd >= 0) { /* poll failed: do not leave it running */
		kill(-r.pid, SIGKILL);
		run_reap(&r);
	}
	run_wait_namespace(&r);
	if (error == LEC_OK)
		run_result(&r, result);
done:
	result->end_us = lec__now_us();
	close_fd(&r.out_fd);
	close_fd(&r.info_fd);
	close_fd(&r.init_fd);
	lec__free(r.chunk);
	plan_dispose(&plan);
	lec_runner__strvec_dispose(&argv);
	lec_runner__strvec_dispose(&envp);
	return error;
}

/* The sandbox probe ------------------------------------------------------- */

int lec_runner_keep_output(const char *data, size_t len, void *payload)
{
	struct lec_runner_kept *po = payload;
	size_t room = sizeof(po->text) - 1 - po->len;

	if (len > room)
		len = room;
	memcpy(po->text + po->len, data, len);
	po->len += len;
	po->text[po->len] = '\0';
	return 0;
}

/* Set *why to a copy of the reason. */
static void probe_why(char **why, const char *reason, const char *detail)
{
	size_t n = strlen(reason), m = strlen(detail);
	char *text;

	while (m > 0 && (detail[m - 1] == '\n' || detail[m - 1] == ' '))
		m--;
	if (why == NULL || (text = lec__malloc(n + m + 1)) == NULL)
		return;
	memcpy(text, reason, n);
	memcpy(text + n, detail, m);
	text[n + m] = '\0';
	*why = text;
}

int lec_runner_sandbox_available(char **why)
{
	static const char *const argv[] = { "true", NULL };
	static const char *const env[] = { "PATH=" LEC_RUNNER__DEFAULT_PATH,
					   NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec;
	struct lec_runner_result res;
	struct lec_runner_kept po;

	lec_error_clear();
	if (why)
		*why = NULL;
	if (access(lec_runner__bwrap_path, X_OK) != 0) {
		probe_why(why, "bubblewrap is not installed: ",
			  lec_runner__bwrap_path);
		return 0;
	}
	memset(&spec, 0, sizeof(spec));
	memset(&po, 0, sizeof(po));
	limits.time_limit_s = RUNNER_PROBE_TIME_LIMIT_S;
	spec.argv = argv;
	spec.env = env;
	spec.limits = &limits;
	spec.uid = LEC_RUNNER_DEFAULT_UID;
	spec.gid = LEC_RUNNER_DEFAULT_GID;
	if (lec_runner_run(&spec, lec_runner_keep_output, NULL, &po, &res) < 0) {
		probe_why(why, "bubblewrap cannot be started: ",
			  lec_error_last());
		return 0;
	}
	if (res.end != LEC_RUNNER_EXITED || res.exit_code != 0) {
		probe_why(why, "bubblewrap cannot create its sandbox here: ",
			  po.len ? po.text : "it failed without a message");
		return 0;
	}
	return 1;
}
