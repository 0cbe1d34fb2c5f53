/*
 * The sandboxed command runner: forks, execs bubblewrap (or the command
 * itself when unsandboxed) with the limits set, then watches three things
 * with one poll() loop: the merged output pipe, a pidfd of the child (so its
 * exit is noticed at once, without SIGCHLD handlers that would belong to the
 * whole program), and bubblewrap's info pipe, which names the pid namespace's
 * init; waiting for that init to be gone is what guarantees that no process
 * of the command survives the return.
 *
 * Everything the child needs is built before fork(): between fork and exec
 * only async-signal-safe system calls are made, because the server is
 * multi-threaded and another thread may hold the allocator's lock.
 *
 * Also here: masking secrets in recorded output, for one buffer and for a
 * stream of chunks.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "lectern/runner.h"

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
/* Bytes of bubblewrap's own error kept for lec_runner_sandbox_available. */
#define RUNNER_PROBE_OUTPUT_MAX 512
/* The probe's time limit: creating namespaces takes milliseconds. */
#define RUNNER_PROBE_TIME_LIMIT_S 10
/* PATH of the unsandboxed lookup when the environment has none (the POSIX
 * default of execvp). */
#define RUNNER_DEFAULT_PATH "/usr/bin:/bin"

/* The fds the child sets up before exec: 0 /dev/null, 1 and 2 the output
 * pipe, then these. Anything above is closed. */
#define CHILD_STATUS_FD 3 /* close-on-exec: exec's errno if it fails */
#define CHILD_INFO_FD 4   /* bubblewrap's --info-fd */
#define CHILD_INFO_FD_TEXT "4"

/* bubblewrap's path; a variable only so that the tests can point it at a
 * missing file to see lec_runner_sandbox_available say no. */
const char *lec_runner__bwrap_path = LEC_RUNNER_BWRAP;

/* A NULL-terminated vector of owned strings (an argv or an envp). */
struct strvec {
	char **items;
	size_t len, cap;
};

/* Room for one more string and the NULL after it (so an empty vector is a
 * real, NULL-terminated one too). */
static int strvec_reserve(struct strvec *v)
{
	if (v->len + 2 > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 32;
		char **items = lec__realloc(v->items, cap * sizeof(*items));

		if (items == NULL)
			return lec__error_oom();
		v->items = items;
		v->cap = cap;
		v->items[v->len] = NULL;
	}
	return LEC_OK;
}

static int strvec_push_n(struct strvec *v, const char *s, size_t n)
{
	char *copy;
	int error;

	if ((error = strvec_reserve(v)) < 0)
		return error;
	if ((copy = lec__strndup(s, n)) == NULL)
		return lec__error_oom();
	v->items[v->len++] = copy;
	v->items[v->len] = NULL;
	return LEC_OK;
}

static int strvec_push(struct strvec *v, const char *s)
{
	return strvec_push_n(v, s, strlen(s));
}

static void strvec_dispose(struct strvec *v)
{
	size_t i;

	for (i = 0; i < v->len; i++)
		lec__free(v->items[i]);
	lec__free(v->items);
	memset(v, 0, sizeof(*v));
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Spec checking and the exec arguments ----------------------------------- */

static int check_env(const char *const *env)
{
	size_t i;

	for (i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if (eq == NULL || eq == env[i])
			return lec__error(LEC_EINVALID,
					  "environment entry '%s' is not "
					  "KEY=VALUE",
					  env[i]);
	}
	return LEC_OK;
}

/* bubblewrap mounts and changes directory by absolute path only. */
static int check_absolute(const char *what, const char *path)
{
	if (path != NULL && path[0] != '/')
		return lec__error(LEC_EINVALID,
				  "the %s must be an absolute path, not '%s'",
				  what, path);
	return LEC_OK;
}

static int check_spec(const struct lec_runner_spec *spec)
{
	size_t i;
	int error;

	if (spec == NULL || spec->argv == NULL || spec->argv[0] == NULL ||
	    spec->argv[0][0] == '\0')
		return lec__error(LEC_EINVALID, "no command to run");
	if (spec->limits &&
	    spec->limits->version != LEC_RUNNER_LIMITS_VERSION)
		return lec__error(LEC_EINVALID,
				  "unknown runner limits version %u",
				  spec->limits->version);
	if ((error = check_absolute("working directory", spec->cwd)) < 0 ||
	    (error = check_absolute("writable directory",
				    spec->writable_dir)) < 0 ||
	    (error = check_absolute("read-only directory",
				    spec->readonly_dir)) < 0)
		return error;
	for (i = 0; spec->hidden_dirs && spec->hidden_dirs[i]; i++)
		if ((error = check_absolute("hidden directory",
					    spec->hidden_dirs[i])) < 0)
			return error;
	return check_env(spec->env);
}

/* Add --tmpfs over each hidden directory that exists. */
static int push_hidden(struct strvec *v, const char *const *hidden)
{
	struct stat st;
	size_t i;
	int error;

	for (i = 0; hidden && hidden[i]; i++) {
		if (stat(hidden[i], &st) != 0) {
			if (errno == ENOENT)
				continue;
			return lec__error(LEC_EIO, "cannot hide %s: %s",
					  hidden[i], strerror(errno));
		}
		if (!S_ISDIR(st.st_mode))
			return lec__error(LEC_EINVALID,
					  "cannot hide %s: not a directory",
					  hidden[i]);
		if ((error = strvec_push(v, "--tmpfs")) < 0 ||
		    (error = strvec_push(v, hidden[i])) < 0)
			return error;
	}
	return LEC_OK;
}

/* --clearenv, then --setenv KEY VALUE for each entry (checked to hold '='). */
static int push_env(struct strvec *v, const char *const *env)
{
	size_t i;
	int error;

	if ((error = strvec_push(v, "--clearenv")) < 0)
		return error;
	for (i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if ((error = strvec_push(v, "--setenv")) < 0 ||
		    (error = strvec_push_n(v, env[i],
					   (size_t)(eq - env[i]))) < 0 ||
		    (error = strvec_push(v, eq + 1)) < 0)
			return error;
	}
	return LEC_OK;
}

static int push_all(struct strvec *v, const char *const *strings)
{
	size_t i;
	int error;

	for (i = 0; strings && strings[i]; i++)
		if ((error = strvec_push(v, strings[i])) < 0)
			return error;
	return LEC_OK;
}

/* bubblewrap's command line. The order of the mounts matters: later ones
 * cover earlier ones, so the read-only tree and the writable build directory
 * come after the tmpfs that hide /tmp and the directories they may live in. */
static int bwrap_args(const struct lec_runner_spec *spec, struct strvec *v)
{
	static const char *const head[] = {
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", NULL
	};
	static const char *const tail[] = {
		"--die-with-parent", "--new-session", "--info-fd",
		CHILD_INFO_FD_TEXT, NULL
	};
	int error;

	if ((error = strvec_push(v, lec_runner__bwrap_path)) < 0 ||
	    (error = push_all(v, head)) < 0 ||
	    (error = push_hidden(v, spec->hidden_dirs)) < 0)
		return error;
	if (spec->readonly_dir &&
	    ((error = strvec_push(v, "--ro-bind")) < 0 ||
	     (error = strvec_push(v, spec->readonly_dir)) < 0 ||
	     (error = strvec_push(v, spec->readonly_dir)) < 0))
		return error;
	if (spec->writable_dir &&
	    ((error = strvec_push(v, "--bind")) < 0 ||
	     (error = strvec_push(v, spec->writable_dir)) < 0 ||
	     (error = strvec_push(v, spec->writable_dir)) < 0))
		return error;
	if ((error = strvec_push(v, "--unshare-all")) < 0 ||
	    (spec->network && (error = strvec_push(v, "--share-net")) < 0) ||
	    (error = push_all(v, tail)) < 0 ||
	    (error = push_env(v, spec->env)) < 0 ||
	    (error = strvec_push(v, "--chdir")) < 0 ||
	    (error = strvec_push(v, spec->cwd ? spec->cwd : "/")) < 0 ||
	    (error = strvec_push(v, "--")) < 0)
		return error;
	return push_all(v, spec->argv);
}

/* The PATH of the command's own environment. */
static const char *env_path(const char *const *env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			return env[i] + 5;
	return RUNNER_DEFAULT_PATH;
}

/* Unsandboxed: find argv[0] on the command's PATH before fork (execvp would
 * search the server's PATH). Relative PATH entries are skipped; a name with
 * a '/' is used as given, relative to the command's working directory. */
static int resolve_command(const char *name, const char *const *env,
			   char **path)
{
	const char *dir = env_path(env);

	*path = NULL;
	if (strchr(name, '/'))
		return (*path = lec__strdup(name)) ? LEC_OK : lec__error_oom();
	while (*dir) {
		size_t n = strcspn(dir, ":");
		size_t need = n + strlen(name) + 2;

		if (n > 0 && dir[0] == '/') {
			char *candidate = lec__malloc(need);

			if (candidate == NULL)
				return lec__error_oom();
			memcpy(candidate, dir, n);
			candidate[n] = '/';
			memcpy(candidate + n + 1, name, strlen(name) + 1);
			if (access(candidate, X_OK) == 0) {
				*path = candidate;
				return LEC_OK;
			}
			lec__free(candidate);
		}
		dir += n + (dir[n] == ':');
	}
	return lec__error(LEC_ENOTFOUND, "command not found: %s", name);
}

/* The child, between fork and exec ---------------------------------------- */

/* Everything the child needs, prepared before fork. */
struct child_plan {
	char *path;          /* what to execve */
	char **argv, **envp; /* NULL-terminated */
	const char *cwd;     /* chdir here first (unsandboxed), or NULL */
	size_t memory_bytes; /* 0: no limit */
	int out_fd, status_fd, info_fd; /* write ends; info_fd -1 if unused */
	pid_t parent;
	int max_fd;          /* for closing fds where close_range is missing */
};

static _Noreturn void child_fail(int status_fd)
{
	int err = errno;

	while (write(status_fd, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* A copy of fd above every number the child sets up, so that putting one
 * fd in place never overwrites another still to be placed (the server may
 * have closed its stdin, making the pipes or /dev/null land on 0 to 4). */
static int child_lift(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, CHILD_INFO_FD + 1);
}

static void child_fds(const struct child_plan *plan)
{
	int null_fd = child_lift(open("/dev/null", O_RDONLY | O_CLOEXEC));
	int out = child_lift(plan->out_fd);
	int status = child_lift(plan->status_fd);
	int info = plan->info_fd >= 0 ? child_lift(plan->info_fd) : -1;
	int first_closed = plan->info_fd >= 0 ? CHILD_INFO_FD + 1
					      : CHILD_STATUS_FD + 1;
	int fd;

	if (null_fd < 0 || out < 0 || status < 0 ||
	    (plan->info_fd >= 0 && info < 0))
		child_fail(plan->status_fd);
	if (dup3(status, CHILD_STATUS_FD, O_CLOEXEC) < 0)
		child_fail(status);
	if (dup2(null_fd, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
	    (info >= 0 && dup2(info, CHILD_INFO_FD) < 0))
		child_fail(CHILD_STATUS_FD);
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

static _Noreturn void child_run(const struct child_plan *plan)
{
	/* Its own session: the process group the runner kills, and no
	 * controlling terminal for the command to write to. */
	setsid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != plan->parent) /* the parent died already */
		_exit(127);
	child_signals();
	child_fds(plan);
	if (plan->memory_bytes > 0) {
		struct rlimit rl;

		rl.rlim_cur = rl.rlim_max = (rlim_t)plan->memory_bytes;
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			child_fail(CHILD_STATUS_FD);
	}
	if (plan->cwd && chdir(plan->cwd) != 0)
		child_fail(CHILD_STATUS_FD);
	execve(plan->path, plan->argv, plan->envp);
	child_fail(CHILD_STATUS_FD);
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
	char info[RUNNER_INFO_MAX];
	size_t info_len;
	int info_parsed; /* init_fd was opened (or could not be) */
	char *chunk;
	size_t written; /* output bytes passed to the callback */
	int status;     /* wait status once reaped */
	int stopping;   /* SIGTERM sent; stop_end says why */
	enum lec_runner_end stop_end;
	int killed;     /* SIGKILL sent */
	int64_t started_ms, stop_ms, exit_ms, next_cancel_ms;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Stop the command: SIGTERM to its process group now, SIGKILL later. */
static void run_stop(struct run *r, enum lec_runner_end why)
{
	if (r->stopping)
		return;
	r->stopping = 1;
	r->stop_end = why;
	r->stop_ms = monotonic_ms();
	if (r->pidfd >= 0)
		kill(-r->pid, SIGTERM);
	else /* it has exited already: just stop reading */
		close_fd(&r->out_fd);
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
		return;
	}
	if (to == discard)
		return;
	r->info_len += (size_t)n;
	r->info[r->info_len] = '\0';
	run_parse_info(r);
}

/* The child exited: kill what is left of its process group (the zombie
 * still holds the group's id, so the id is not someone else's), reap it. */
static void run_reap(struct run *r)
{
	kill(-r->pid, SIGKILL);
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	close_fd(&r->pidfd);
	r->exit_ms = monotonic_ms();
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
		if (poll(fds, 3, run_timeout(r, monotonic_ms())) < 0 &&
		    errno != EINTR)
			return lec__error(LEC_ERROR, "poll: %s",
					  strerror(errno));
		if (fds[0].revents)
			run_read_output(r);
		if (fds[2].revents)
			run_read_info(r);
		if (fds[1].revents)
			run_reap(r);
		run_check(r, monotonic_ms());
	}
	return LEC_OK;
}

/* Wait until the pid namespace's init is gone: the kernel reports it gone
 * only after every other process of the namespace is. */
static void run_wait_namespace(struct run *r)
{
	struct pollfd pfd;

	if (r->init_fd < 0)
		return;
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

/* Fork and exec; on LEC_OK the child runs and r holds its pid and pidfd. */
static int run_start(struct run *r, struct child_plan *plan)
{
	int out[2] = { -1, -1 }, status[2] = { -1, -1 }, info[2] = { -1, -1 };
	int error, child_errno = 0;
	ssize_t n;

	if ((error = open_pipes(out, status, info, !r->unsandboxed)) < 0)
		goto done;
	plan->out_fd = out[1];
	plan->status_fd = status[1];
	plan->info_fd = info[1];
	plan->parent = getpid();
	plan->max_fd = (int)sysconf(_SC_OPEN_MAX);
	r->started_ms = monotonic_ms();
	r->next_cancel_ms = r->started_ms + LEC_RUNNER_CANCEL_POLL_MS;
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
	return error;
}

/* Build the child's exec plan into the vectors (owned by the caller). */
static int make_plan(const struct lec_runner_spec *spec, struct strvec *argv,
		     struct strvec *envp, struct child_plan *plan)
{
	const struct lec_runner_limits defaults = LEC_RUNNER_LIMITS_INIT;
	int error;

	memset(plan, 0, sizeof(*plan));
	plan->memory_bytes = spec->limits ? spec->limits->memory_bytes
					  : defaults.memory_bytes;
	if (spec->unsandboxed) {
		if ((error = resolve_command(spec->argv[0], spec->env,
					     &plan->path)) < 0 ||
		    (error = push_all(argv, spec->argv)) < 0 ||
		    (error = push_all(envp, spec->env)) < 0)
			return error;
		plan->cwd = spec->cwd ? spec->cwd : "/";
	} else {
		if ((error = bwrap_args(spec, argv)) < 0)
			return error;
		if ((plan->path = lec__strdup(lec_runner__bwrap_path)) == NULL)
			return lec__error_oom();
	}
	/* execve needs a vector even for an empty environment. */
	if ((error = strvec_reserve(envp)) < 0)
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
	struct strvec argv = { 0 }, envp = { 0 };
	struct child_plan plan = { 0 };
	struct run r;
	int error;

	lec_error_clear();
	memset(result, 0, sizeof(*result));
	result->end = LEC_RUNNER_START_FAILED;
	result->start_us = result->end_us = lec__now_us();
	memset(&r, 0, sizeof(r));
	r.pidfd = r.out_fd = r.info_fd = r.init_fd = -1;
	if ((error = check_spec(spec)) < 0 ||
	    (error = make_plan(spec, &argv, &envp, &plan)) < 0)
		goto done;
	r.limits = spec->limits ? spec->limits : &defaults;
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
	lec__free(plan.path);
	strvec_dispose(&argv);
	strvec_dispose(&envp);
	return error;
}

/* The sandbox probe ------------------------------------------------------- */

struct probe_output {
	char text[RUNNER_PROBE_OUTPUT_MAX];
	size_t len;
};

static int probe_collect(const char *data, size_t len, void *payload)
{
	struct probe_output *po = payload;
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
	static const char *const env[] = { "PATH=" RUNNER_DEFAULT_PATH, NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec;
	struct lec_runner_result res;
	struct probe_output po;

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
	if (lec_runner_run(&spec, probe_collect, NULL, &po, &res) < 0) {
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

/* Masking ------------------------------------------------------------------ */

static size_t longest_secret(const char *const *secrets)
{
	size_t longest = 0, i;

	for (i = 0; secrets && secrets[i]; i++) {
		size_t n = strlen(secrets[i]);

		if (n >= LEC_RUNNER_MASK_MIN_LEN && n > longest)
			longest = n;
	}
	return longest;
}

/*
 * Mask buf[0, scan): look for secrets starting at each position below scan
 * (they may end anywhere below len), and mask every byte up to the end of
 * the furthest occurrence seen so far. A byte is overwritten only after
 * every occurrence starting at or before it was looked for, so overlapping
 * occurrences are all found in the original text. mask_end is the end of
 * the furthest occurrence seen before buf; returns the new one.
 */
static size_t mask_scan(char *buf, size_t len, size_t scan,
			const char *const *secrets, size_t mask_end)
{
	size_t i, s;

	for (i = 0; i < scan; i++) {
		for (s = 0; secrets && secrets[s]; s++) {
			size_t n = strlen(secrets[s]);

			if (n >= LEC_RUNNER_MASK_MIN_LEN && n <= len - i &&
			    buf[i] == secrets[s][0] &&
			    memcmp(buf + i, secrets[s], n) == 0 &&
			    i + n > mask_end)
				mask_end = i + n;
		}
		if (i < mask_end)
			buf[i] = '*';
	}
	return mask_end;
}

void lec_runner_mask(char *buf, size_t len, const char *const *secrets)
{
	lec_error_clear();
	if (buf != NULL)
		mask_scan(buf, len, len, secrets, 0);
}

void lec_runner_masker_init(struct lec_runner_masker *m,
			    const char *const *secrets)
{
	lec_error_clear();
	memset(m, 0, sizeof(*m));
	m->secrets = secrets;
	m->keep = longest_secret(secrets);
	if (m->keep > 0)
		m->keep--;
}

int lec_runner_masker_feed(struct lec_runner_masker *m, const char *data,
			   size_t len, const char **out, size_t *out_len)
{
	size_t held = m->len - m->start, release;

	lec_error_clear();
	*out = "";
	*out_len = 0;
	if (held > 0)
		memmove(m->buf, m->buf + m->start, held);
	m->start = 0;
	m->len = held;
	if (held + len > m->cap) {
		size_t cap = held + len;
		char *grown = lec__realloc(m->buf, cap);

		if (grown == NULL)
			return lec__error_oom();
		m->buf = grown;
		m->cap = cap;
	}
	if (len > 0)
		memcpy(m->buf + held, data, len);
	m->len = held + len;
	/* A secret starting before `release` ends inside what we have. */
	release = m->len > m->keep ? m->len - m->keep : 0;
	m->pending = mask_scan(m->buf, m->len, release, m->secrets,
			       m->pending);
	m->pending = m->pending > release ? m->pending - release : 0;
	m->start = release;
	*out = m->buf;
	*out_len = release;
	return LEC_OK;
}

void lec_runner_masker_flush(struct lec_runner_masker *m, const char **out,
			     size_t *out_len)
{
	size_t held = m->len - m->start;

	lec_error_clear();
	*out = "";
	*out_len = held;
	if (held > 0) {
		mask_scan(m->buf + m->start, held, held, m->secrets,
			  m->pending);
		*out = m->buf + m->start;
	}
	m->start = m->len = m->pending = 0;
}

void lec_runner_masker_dispose(struct lec_runner_masker *m)
{
	if (m == NULL)
		return;
	lec__free(m->buf);
	m->buf = NULL;
	m->start = m->len = m->cap = m->pending = 0;
}
