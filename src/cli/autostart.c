/*
 * The local context's engine: when no `lectern serve` runs for the data
 * directory, start one in the background on a free loopback port and
 * remember it, so later commands find it. The data directory holds
 *
 *   serve.lock  flock()ed while a CLI checks, starts or stops the engine,
 *               so two CLIs never start two engines
 *   serve.pid   the background engine's pid
 *   serve.port  its port on 127.0.0.1, kept after it stops: the next
 *               engine takes the same port while it is free, so docs
 *               URLs printed earlier (and an open TUI) keep working
 *   serve.socket its unix socket (engine.sock here, mode 0600), which an
 *               ssh context reaches, so one engine serves a data directory
 *               for both (serve_socket.c)
 *   serve.log   its stdout and stderr (appended)
 *   serve.stopped written by the recorded engine as a stop signal ends it
 *               (`lectern stop`, systemd, a kill): it was stopped on
 *               purpose, so an open TUI says so and does not start it
 *               again on its own; gone once another engine is recorded
 *   cli-token   the local user's API token (0600), made on first use
 *
 * The engine of a single user takes local (file://) repositories from the
 * user's home, the temporary directory, and the repository the TUI's
 * first-run demo imports (cli_demo_repo: the installed one, or the one
 * this binary's build made).
 *
 * Files left by an engine that died are stale when the pid is gone or the
 * port does not answer, and are replaced.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"
#include "lectern/store.h"
#include "lectern/user.h"

/* A sanitizer build of the engine takes seconds to open and migrate. */
#define START_TIMEOUT_MS 60000
/* Stopping waits for in-flight requests and build workers. */
#define STOP_TIMEOUT_MS 30000
#define POLL_MS 50
/* Read back from the log when the engine fails to start. */
#define LOG_TAIL_MAX 4096
/* The first line `lectern serve` prints (serve.c). */
#define LISTEN_PREFIX "listening on http://127.0.0.1:"
/* A remembered port below this is not one the engine picked (the kernel
 * hands out ephemeral ports above it): not reused. */
#define PORT_REUSE_MIN 1024
/* Used when $USER is not a valid username. */
#define LOCAL_USER "local"
/* A token file bigger than this is not ours. */
#define TOKEN_FILE_MAX 128

static char *data_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);

	if (path)
		snprintf(path, n, "%s/%s", dir, name);
	return path;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The trimmed first line of a small file into buf; -1 if unreadable. */
static int read_small(const char *dir, const char *name, char *buf,
		      size_t size)
{
	char *path = data_path(dir, name);
	ssize_t n = -1;
	int fd;

	if (path && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	free(path);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static long read_number(const char *dir, const char *name)
{
	char buf[32], *end;
	long v;

	if (read_small(dir, name, buf, sizeof(buf)) < 0)
		return -1;
	v = strtol(buf, &end, 10);
	return (*buf && *end == '\0' && v > 0) ? v : -1;
}

/* Write "text\n" to dir/name with mode 0600, replacing it atomically. */
static int write_small(const char *dir, const char *name, const char *text)
{
	char tmpname[64];
	char *tmp, *path;
	int fd, ok = 0;

	snprintf(tmpname, sizeof(tmpname), "%s.tmp", name);
	tmp = data_path(dir, tmpname);
	path = data_path(dir, name);
	if (tmp && path &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >=
		    0) {
		size_t n = strlen(text);

		ok = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
		ok = close(fd) == 0 && ok;
		ok = ok && rename(tmp, path) == 0;
		if (!ok)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return ok ? 0 : -1;
}

static void remove_file(const char *dir, const char *name)
{
	char *path = data_path(dir, name);

	if (path)
		unlink(path);
	free(path);
}

/* ---- Is the recorded engine alive? -------------------------------------- */

/* /proc/<pid>/<what> into buf (NUL-terminated); its length, <= 0 when it
 * could not be read. */
static ssize_t read_proc(long pid, const char *what, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n > 0)
		buf[n] = '\0';
	return n;
}

/* When the process started (field 22 of its stat, in clock ticks since
 * boot), 0 when it is gone or a zombie waiting for a parent that never
 * reaps. With the pid, it names one process: a pid reused later has another
 * start time. */
static unsigned long long live_start_time(long pid)
{
	char buf[4096], *p;
	unsigned long long start = 0;
	int field;

	if (pid <= 0 || kill((pid_t)pid, 0) < 0 ||
	    read_proc(pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	/* Fields after the command name, which may hold spaces: the state is
	 * field 3, the start time field 22. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == 'Z')
		return 0;
	for (field = 3, p++; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

/* Whether the process's command line has the serve word (a pid reused by
 * another program is not ours). A process on its way out may have dropped
 * its command line already: it is no engine to talk to any more, though
 * not yet gone. */
static int runs_serve(long pid)
{
	char buf[4096];
	ssize_t n;
	int found = 0;
	char *p;

	if ((n = read_proc(pid, "cmdline", buf, sizeof(buf))) <= 0)
		return 0;
	for (p = buf; p < buf + n; p += strlen(p) + 1)
		if (strcmp(p, "serve") == 0)
			found = 1;
	return found;
}

/* A live `lectern serve` process. */
static int is_engine_process(long pid)
{
	return live_start_time(pid) != 0 && runs_serve(pid);
}

static int port_answers(long port)
{
	struct sockaddr_in addr = { 0 };
	int fd, ok;

	if (port <= 0 || port > 65535)
		return 0;
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	addr.sin_family = AF_INET;
	addr.sin_port = htons((unsigned short)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	close(fd);
	return ok;
}

/* ---- Starting ------------------------------------------------------------- */

/* The port from the engine's "listening on" line, once it appears in the
 * log after `from`; 0 while not there yet. */
static long port_from_log(const char *log, off_t from)
{
	char buf[LOG_TAIL_MAX + 1], *line;
	ssize_t n;
	int fd;

	if ((fd = open(log, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = pread(fd, buf, LOG_TAIL_MAX, from);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((line = strstr(buf, LISTEN_PREFIX)) == NULL ||
	    strchr(line, '\n') == NULL)
		return 0;
	return strtol(line + strlen(LISTEN_PREFIX), NULL, 10);
}

/* The last line the engine wrote, to say why it did not start. */
static void last_log_line(const char *log, off_t from, char *out, size_t size)
{
	char buf[LOG_TAIL_MAX + 1], *end, *start;
	struct stat st;
	ssize_t n = 0;
	int fd;

	out[0] = '\0';
	if ((fd = open(log, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) == 0) {
		off_t at = st.st_size - LOG_TAIL_MAX;

		n = pread(fd, buf, LOG_TAIL_MAX, at > from ? at : from);
	}
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	end = buf + n;
	while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	start = strrchr(buf, '\n');
	snprintf(out, size, "%s", start ? start + 1 : buf);
}

/* Whether dir can go into --local-repos: serve wants absolute
 * directories, and ':' separates them. */
static int usable_root(const char *dir)
{
	return dir && dir[0] == '/' && strchr(dir, ':') == NULL;
}

/* The temporary directory is /tmp when $TMPDIR is unset or unusable, so
 * the list is never empty. */
char *cli_local_roots(void)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	const char *demo = cli_demo_repo();
	char *roots = NULL;

	if (!usable_root(tmp))
		tmp = "/tmp";
	if (asprintf(&roots, "%s%s%s%s%s", usable_root(home) ? home : "",
		     usable_root(home) ? ":" : "", tmp,
		     usable_root(demo) ? ":" : "",
		     usable_root(demo) ? demo : "") < 0)
		return NULL;
	return roots;
}

/* The engine listens on listen ("127.0.0.1:PORT", port 0 for a free
 * one) and, when the path fits, on the data directory's socket too (for
 * an ssh context). */
static pid_t spawn_engine(const char *dir, const char *roots,
			  const char *socket, const char *listen,
			  const char *workers, int log_fd)
{
	const char *argv[16];
	union {
		const char **in;
		char *const *out;
	} args;
	pid_t pid = fork();
	int null_fd, n = 0;

	if (pid != 0)
		return pid;
	/* The child: its own session, so it outlives this CLI and a
	 * terminal's hangup or Ctrl-C does not reach it. */
	setsid();
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 ||
	    dup2(log_fd, STDOUT_FILENO) < 0 || dup2(log_fd, STDERR_FILENO) < 0)
		_exit(127);
	argv[n++] = "lectern";
	argv[n++] = "--data";
	argv[n++] = dir;
	argv[n++] = "serve";
	argv[n++] = "--listen";
	argv[n++] = listen;
	argv[n++] = "--local-repos";
	argv[n++] = roots;
	if (socket) {
		argv[n++] = "--socket";
		argv[n++] = socket;
	}
	if (workers) { /* the config file's local-workers */
		argv[n++] = "--workers";
		argv[n++] = workers;
	}
	argv[n] = NULL;
	/* execv's argument is char *const[] for history; it writes nothing. */
	args.in = argv;
	execv("/proc/self/exe", args.out);
	_exit(127);
}

/* Start an engine on port (0: a free one) and wait for its port; reports
 * failures itself unless quiet (a first try on the old port). */
static int start_engine(const char *dir, const char *socket, int workers,
			long port_in, int quiet, long *pid_out, long *port_out)
{
	char *log = data_path(dir, "serve.log");
	char why[LOG_TAIL_MAX + 1], *roots = NULL, listen[32], nworkers[16];
	struct stat st;
	pid_t pid;
	int log_fd, waited = 0, wstatus;
	long port = 0;

	snprintf(listen, sizeof(listen), "127.0.0.1:%ld", port_in);
	snprintf(nworkers, sizeof(nworkers), "%d", workers);

	if (log == NULL || (roots = cli_local_roots()) == NULL) {
		free(log);
		return cli_fail("out of memory");
	}
	log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (log_fd < 0 || fstat(log_fd, &st) < 0) {
		cli_fail("cannot write %s: %s", log, strerror(errno));
		goto fail;
	}
	fflush(NULL);
	pid = spawn_engine(dir, roots, socket, listen,
			   workers >= 0 ? nworkers : NULL, log_fd);
	close(log_fd);
	if (pid < 0) {
		cli_fail("cannot start the local engine: %s", strerror(errno));
		goto fail;
	}
	while ((port = port_from_log(log, st.st_size)) == 0) {
		if (waitpid(pid, &wstatus, WNOHANG) == pid) {
			last_log_line(log, st.st_size, why, sizeof(why));
			if (!quiet)
				cli_fail("the local engine did not start (%s); "
					 "see %s",
					 why[0] ? why : "no output", log);
			goto fail;
		}
		if (waited >= START_TIMEOUT_MS) {
			kill(pid, SIGTERM);
			cli_fail("the local engine did not start within %d s; "
				 "see %s", START_TIMEOUT_MS / 1000, log);
			goto fail;
		}
		sleep_ms(POLL_MS);
		waited += POLL_MS;
	}
	free(log);
	free(roots);
	*pid_out = pid;
	*port_out = port;
	return CLI_EXIT_OK;
fail:
	free(log);
	free(roots);
	return CLI_EXIT_FAIL;
}

/* ---- The local user's token --------------------------------------------- */

int cli_local_user(struct lec_store *store, struct lec_user **out)
{
	const char *name = getenv("USER");

	*out = NULL;
	if (store == NULL)
		return -1;
	if (name && *name && lec_user_ensure(store, name, out) == 0)
		return 0;
	return lec_user_ensure(store, LOCAL_USER, out);
}

/* Create the local user and a token engine-direct (like `token create`). */
static int create_token(struct cli_ctx *ctx, char **token)
{
	struct lec_store *store;
	struct lec_user *user = NULL;
	int status = CLI_EXIT_OK;

	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (cli_local_user(store, &user) < 0) {
		status = cli_fail_engine("cannot create the local user");
		goto done;
	}
	if (lec_token_create(store, user->id, token) < 0)
		status = cli_fail_engine("cannot create a token");
done:
	lec_user_free(user);
	/* The engine child must not inherit an open store. */
	lec_store_free(ctx->store);
	ctx->store = NULL;
	return status;
}

static int local_token(struct cli_ctx *ctx, const char *dir, char **token)
{
	char buf[TOKEN_FILE_MAX];
	int status;

	if (read_small(dir, "cli-token", buf, sizeof(buf)) == 0 && buf[0]) {
		*token = strdup(buf);
		memset(buf, 0, sizeof(buf));
		return *token ? CLI_EXIT_OK : cli_fail("out of memory");
	}
	if ((status = create_token(ctx, token)) != CLI_EXIT_OK)
		return status;
	if (write_small(dir, "cli-token", *token) < 0)
		return cli_fail("cannot write %s/cli-token: %s", dir,
				strerror(errno));
	return CLI_EXIT_OK;
}

void cli_local_token_recheck(struct cli_ctx *ctx)
{
	const char *dir = cli_data_dir(ctx);
	struct lec_store *store = cli_store(ctx);
	struct lec_user *user = NULL;
	char buf[TOKEN_FILE_MAX], *path;

	if (store == NULL || read_small(dir, "cli-token", buf, sizeof(buf)) ||
	    buf[0] == '\0')
		return;
	if (lec_token_authenticate(store, buf, &user) == LEC_ENOTFOUND &&
	    (path = data_path(dir, "cli-token")) != NULL) {
		unlink(path);
		free(path);
	}
	memset(buf, 0, sizeof(buf));
	lec_user_free(user);
}

/* ---- Locking ------------------------------------------------------------ */

int cli_make_dirs(char *file)
{
	char *slash;

	for (slash = strchr(file + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(file, 0700) < 0 && errno != EEXIST) {
			*slash = '/';
			return -1;
		}
		*slash = '/';
	}
	return 0;
}

int cli_engine_lock(const char *dir)
{
	char *path;
	int fd;

	if ((path = data_path(dir, "serve.lock")) == NULL) {
		cli_fail("out of memory");
		return -1;
	}
	if (cli_make_dirs(path) < 0) {
		cli_fail("cannot create %s: %s", dir, strerror(errno));
		free(path);
		return -1;
	}
	/* O_CLOEXEC: the engine must not hold the lock it was started
	 * under. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		cli_fail("cannot lock %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

int cli_engine_record(const char *dir, long pid, long port,
		      const char *socket)
{
	char text[32];

	/* Running again: no longer stopped on purpose. */
	remove_file(dir, "serve.stopped");
	snprintf(text, sizeof(text), "%ld", pid);
	if (write_small(dir, "serve.pid", text) < 0)
		return cli_fail("cannot write %s/serve.pid: %s", dir,
				strerror(errno));
	snprintf(text, sizeof(text), "%ld", port);
	if (write_small(dir, "serve.port", text) < 0)
		return cli_fail("cannot write %s/serve.port: %s", dir,
				strerror(errno));
	if (socket == NULL)
		remove_file(dir, "serve.socket");
	else if (write_small(dir, "serve.socket", socket) < 0)
		return cli_fail("cannot write %s/serve.socket: %s", dir,
				strerror(errno));
	return CLI_EXIT_OK;
}

char *cli_engine_socket(const char *dir)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

	if (read_small(dir, "serve.socket", buf, sizeof(buf)) < 0 ||
	    buf[0] != '/')
		return NULL;
	return strdup(buf);
}

char *cli_engine_socket_path(const char *dir)
{
	char *path = data_path(dir, "engine.sock");

	if (path && strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		free(path);
		path = NULL;
	}
	return path;
}

long cli_engine_running(const char *dir, long *port)
{
	long pid = read_number(dir, "serve.pid");

	*port = read_number(dir, "serve.port");
	return is_engine_process(pid) && port_answers(*port) ? pid : 0;
}

void cli_engine_stopping(const char *dir, long pid)
{
	char text[32];

	if (read_number(dir, "serve.pid") != pid)
		return;
	snprintf(text, sizeof(text), "%ld", pid);
	/* Best effort: without it a TUI starts the engine again, as after a
	 * crash. */
	(void)write_small(dir, "serve.stopped", text);
}

int cli_engine_stopped(const char *dir)
{
	char buf[32];
	long port;

	return read_small(dir, "serve.stopped", buf, sizeof(buf)) == 0 &&
	       cli_engine_running(dir, &port) == 0;
}

void cli_engine_forget(const char *dir)
{
	/* serve.port stays: the port the next engine asks for first. */
	remove_file(dir, "serve.pid");
	remove_file(dir, "serve.socket");
}

/* The last engine's port when it may be asked for again (the first try,
 * which fails quietly when another program took it meanwhile), else 0. */
static long remembered_port(const char *dir)
{
	long port = read_number(dir, "serve.port");

	return port >= PORT_REUSE_MIN && port <= 65535 ? port : 0;
}

/* The engine on the data directory's last port while it is free, else on
 * any free one; workers (-1: serve's default) from the config file. */
static int start_local(const char *dir, const char *socket, int workers,
		       long *pid, long *port)
{
	long old = remembered_port(dir);

	if (old && start_engine(dir, socket, workers, old, 1, pid, port) ==
			   CLI_EXIT_OK)
		return CLI_EXIT_OK;
	return start_engine(dir, socket, workers, 0, 0, pid, port);
}

int cli_local_engine(struct cli_ctx *ctx, int workers, char **base_url,
		     char **token)
{
	const char *dir = cli_data_dir(ctx);
	char url[64], *socket = NULL;
	long pid, port;
	int lock_fd, status;

	*base_url = NULL;
	*token = NULL;
	if (dir == NULL || (lock_fd = cli_engine_lock(dir)) < 0)
		return CLI_EXIT_FAIL;
	if ((status = local_token(ctx, dir, token)) != CLI_EXIT_OK)
		goto done;
	if (cli_engine_running(dir, &port) == 0) {
		cli_engine_forget(dir);
		socket = cli_engine_socket_path(dir);
		if ((status = start_local(dir, socket, workers, &pid, &port)) !=
			    CLI_EXIT_OK ||
		    (status = cli_engine_record(dir, pid, port, socket)) !=
			    CLI_EXIT_OK)
			goto done;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%ld", port);
	if ((*base_url = strdup(url)) == NULL)
		status = cli_fail("out of memory");
done:
	close(lock_fd);
	free(socket);
	if (status != CLI_EXIT_OK && *token) {
		memset(*token, 0, strlen(*token));
		free(*token);
		*token = NULL;
	}
	return status;
}

/* ---- `lectern stop` ------------------------------------------------------ */

/* Waits until the process that started at `start` has gone (or is a
 * zombie): not merely until it dropped its command line on the way out,
 * since it may still hold its port and files then. */
static int wait_gone(long pid, unsigned long long start)
{
	int waited;

	for (waited = 0; waited < STOP_TIMEOUT_MS; waited += POLL_MS) {
		if (live_start_time(pid) != start)
			return 1;
		sleep_ms(POLL_MS);
	}
	return 0;
}

int cli_local_engine_stop(struct cli_ctx *ctx)
{
	const char *dir;
	unsigned long long start;
	long pid;
	int lock_fd, status = CLI_EXIT_OK;

	if ((dir = cli_data_dir(ctx)) == NULL ||
	    (lock_fd = cli_engine_lock(dir)) < 0)
		return CLI_EXIT_FAIL;
	pid = read_number(dir, "serve.pid");
	if ((start = live_start_time(pid)) == 0 || !runs_serve(pid)) {
		printf("no local engine is running for %s\n", dir);
	} else if (kill((pid_t)pid, SIGTERM) < 0 || !wait_gone(pid, start)) {
		status = cli_fail("the local engine (pid %ld) did not stop", pid);
		goto done;
	} else {
		printf("stopped the local engine (pid %ld)\n", pid);
	}
	cli_engine_forget(dir);
done:
	close(lock_fd);
	return status;
}
