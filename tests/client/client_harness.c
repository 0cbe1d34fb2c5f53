/*
 * The client tests' harness (see client_harness.h): the test runner, and the
 * starting and stopping of server processes. Servers are children of the
 * test, killed with SIGTERM at the end; their data directories are removed
 * at exit.
 */
#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client_harness.h"

/* How long a server may take to print its first line (a sanitizer build
 * of lectern is slow to start). */
#define LCT_START_TIMEOUT_MS 30000
/* Data directories to remove at exit. */
#define LCT_MAX_DIRS 8

static char dirs[LCT_MAX_DIRS][256];
static int ndirs;

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_dirs(void)
{
	int i;

	for (i = 0; i < ndirs; i++)
		nftw(dirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void die(const char *what)
{
	fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
	exit(2);
}

long long lct_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads one line from fd within the start timeout. */
static int read_line(int fd, char *buf, size_t size)
{
	long long deadline = lct_now_ms() + LCT_START_TIMEOUT_MS;
	size_t len = 0;

	while (len + 1 < size) {
		struct pollfd p = { fd, POLLIN, 0 };
		long long left = deadline - lct_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		n = read(fd, buf + len, 1);
		if (n <= 0)
			return -1;
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return 0;
}

/* Most arguments a spawned command gets. */
#define LCT_MAX_ARGS 32

/* fork+exec argv with stdout on a pipe; returns the pid, *fd the pipe. */
static pid_t spawn(const char *const *argv, int *fd)
{
	char *copy[LCT_MAX_ARGS];
	int p[2], i;
	pid_t pid;

	if (pipe(p) != 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		/* execv wants writable strings; the child owns its copies. */
		for (i = 0; argv[i] != NULL && i < LCT_MAX_ARGS - 1; i++)
			copy[i] = strdup(argv[i]);
		copy[i] = NULL;
		execv(copy[0], copy);
		_exit(127);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

static void start(struct lct_server *s, const char *const *argv)
{
	char line[256];
	const char *colon;

	s->pid = spawn(argv, &s->fd);
	if (read_line(s->fd, line, sizeof(line)) != 0 ||
	    strncmp(line, "listening on http://127.0.0.1:", 30) != 0) {
		fprintf(stderr, "harness: %s did not start\n", argv[0]);
		exit(2);
	}
	colon = line + 29;
	s->port = (int)strtol(colon + 1, NULL, 10);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", s->port);
}

void lct_fake_start(struct lct_server *s)
{
	const char *argv[] = { LCT_PYTHON, LCT_FAKE_SERVER, NULL };

	memset(s, 0, sizeof(*s));
	start(s, argv);
}

static const char *lectern_bin(void)
{
	const char *bin = getenv("LECTERN");

	if (bin == NULL || *bin == '\0') {
		fprintf(stderr, "harness: set LECTERN to the lectern binary\n");
		exit(2);
	}
	return bin;
}

int lct_lectern_run(const struct lct_server *s, const char *const *args,
		    char *out, size_t size)
{
	const char *argv[LCT_MAX_ARGS];
	char line[512];
	int i = 0, fd, status;
	pid_t pid;

	argv[i++] = lectern_bin();
	argv[i++] = "--data";
	argv[i++] = s->data;
	while (*args != NULL && i < LCT_MAX_ARGS - 1)
		argv[i++] = *args++;
	argv[i] = NULL;
	pid = spawn(argv, &fd);
	if (read_line(fd, line, sizeof(line)) != 0)
		line[0] = '\0';
	if (out != NULL)
		snprintf(out, size, "%s", line);
	close(fd);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

void lct_lectern_start(struct lct_server *s, const char *const *extra)
{
	static const char *const token[] = { "token", "create", "alice", NULL };
	const char *argv[LCT_MAX_ARGS];
	int i = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->data, sizeof(s->data), "/tmp/lct-XXXXXX");
	if (mkdtemp(s->data) == NULL)
		die("mkdtemp");
	if (ndirs == 0)
		atexit(remove_dirs);
	if (ndirs < LCT_MAX_DIRS)
		snprintf(dirs[ndirs++], sizeof(dirs[0]), "%s", s->data);
	if (lct_lectern_run(s, token, s->token, sizeof(s->token)) != 0 ||
	    s->token[0] == '\0') {
		fprintf(stderr, "harness: lectern token create failed\n");
		exit(2);
	}
	argv[i++] = lectern_bin();
	argv[i++] = "--data";
	argv[i++] = s->data;
	argv[i++] = "serve";
	argv[i++] = "--listen";
	argv[i++] = "127.0.0.1:0";
	argv[i++] = "--workers";
	argv[i++] = "0";
	argv[i++] = "--threads";
	argv[i++] = "2";
	while (extra != NULL && *extra != NULL && i < LCT_MAX_ARGS - 1)
		argv[i++] = *extra++;
	argv[i] = NULL;
	start(s, argv);
}

int lct_sql(const struct lct_server *s, const char *sql)
{
	char db[300];
	const char *argv[] = {
		LCT_PYTHON, "-c",
		"import sqlite3, sys\n"
		"db = sqlite3.connect(sys.argv[1], timeout=30)\n"
		"db.execute(sys.argv[2])\n"
		"db.commit()\n",
		db, sql, NULL
	};
	int fd, status;
	pid_t pid;

	snprintf(db, sizeof(db), "%s/lectern.db", s->data);
	pid = spawn(argv, &fd);
	close(fd);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int lct_stop(struct lct_server *s)
{
	int status;

	if (s->pid <= 0)
		return 0;
	kill(s->pid, SIGTERM);
	if (waitpid(s->pid, &status, 0) < 0)
		die("waitpid");
	close(s->fd);
	s->pid = 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
		return 0; /* python's default SIGTERM action */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

struct lc_client *lct_client(const struct lct_server *s, const char *token,
			     long timeout_ms, int max_attempts)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct lc_error err;

	o.api_url = s->url;
	o.token = token;
	o.timeout_ms = timeout_ms;
	o.max_attempts = max_attempts;
	if (lc_client_new(&c, &o, &err) != LC_OK) {
		fprintf(stderr, "harness: lc_client_new: %s\n", err.message);
		exit(2);
	}
	return c;
}

int lct_main(int argc, char **argv, const struct lec_test *tests,
	     size_t count)
{
	signal(SIGPIPE, SIG_IGN);
	return lec_test_run(argc, argv, tests, count);
}
