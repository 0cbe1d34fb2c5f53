/*
 * The engine on a unix socket, the remote end of an ssh context (ssh.c):
 * where its socket is by default, and `lectern serve --detach`, which an
 * ssh context runs on the remote machine to make sure an engine answers
 * there before it forwards the socket.
 *
 * The default socket is the one the data directory's running engine
 * serves beside its port (started by the CLI here or by systemd: one engine
 * per store, whoever started it), else $XDG_RUNTIME_DIR/lectern/engine.sock,
 * else DATA/engine.sock: an ssh session without PAM has no
 * XDG_RUNTIME_DIR. An engine --detach starts is the data directory's local
 * engine too (a free loopback port beside the socket, recorded), so the
 * CLI here finds it rather than starting another. The engine is started in a
 * session of its own with its output appended to DATA/serve-socket.log and
 * no descriptor of the ssh session kept open, or the session would never
 * end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"
#include "serve_socket.h"

/* How long --detach waits for the engine it started to answer: a
 * sanitizer build takes seconds to open and migrate the store. */
#define DETACH_TIMEOUT_MS 60000
#define DETACH_POLL_MS 50

char *cli_engine_socket_default(struct cli_ctx *ctx)
{
	const char *run = getenv("XDG_RUNTIME_DIR"), *data = cli_data_dir(ctx);
	char *path = NULL;
	long port;

	/* The data directory's engine, started by the CLI here or by
	 * systemd, serves a socket of its own: that one, not a second
	 * engine on the same store. */
	if (data && cli_engine_running(data, &port) &&
	    (path = cli_engine_socket(data)) != NULL) {
		if (cli_socket_answers(path))
			return path;
		free(path);
		path = NULL;
	}

	if (run && run[0] == '/') {
		if (asprintf(&path, "%s/lectern/engine.sock", run) < 0)
			return NULL;
		return path;
	}
	if (data == NULL || asprintf(&path, "%s/engine.sock", data) < 0)
		return NULL;
	return path;
}

int cli_socket_answers(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ok;

	if (strlen(path) >= sizeof(addr.sun_path))
		return 0;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	close(fd);
	return ok;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The detached engine: its own session, stdin from /dev/null, output to
 * the log, then `lectern --data DIR serve --socket PATH ARGS...`. */
static void exec_engine(const char *dir, const char *path, int log_fd,
			int argc, char **argv)
{
	/* execv's argument is char *const[] for history; it writes nothing. */
	union {
		const char **in;
		char *const *out;
	} cast;
	const char **args = calloc((size_t)argc + 10, sizeof(*args));
	int null_fd = open("/dev/null", O_RDONLY), i, n = 0;

	setsid();
	if (args == NULL || null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 ||
	    dup2(log_fd, STDOUT_FILENO) < 0 || dup2(log_fd, STDERR_FILENO) < 0)
		_exit(127);
	args[n++] = "lectern";
	args[n++] = "--data";
	args[n++] = dir;
	args[n++] = "serve";
	args[n++] = "--local-engine";
	args[n++] = "--listen";
	args[n++] = "127.0.0.1:0";
	args[n++] = "--socket";
	args[n++] = path;
	for (i = 0; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	cast.in = args;
	execv("/proc/self/exe", cast.out);
	_exit(127);
}

/* The engine --detach started answers on path and is recorded as the
 * data directory's engine. */
static int detached_ready(const char *dir, const char *path)
{
	char *recorded;
	int ready;

	if (!cli_socket_answers(path))
		return 0;
	recorded = cli_engine_socket(dir);
	ready = recorded && strcmp(recorded, path) == 0;
	free(recorded);
	return ready;
}

int cli_serve_detach(struct cli_ctx *ctx, const char *path, int argc,
		     char **argv)
{
	const char *dir = cli_data_dir(ctx);
	char *log = NULL;
	int log_fd = -1, wstatus, waited = 0, status = CLI_EXIT_FAIL;
	long pid_running, port;
	pid_t pid;

	if (cli_socket_answers(path))
		goto ready;
	if (dir == NULL)
		return CLI_EXIT_FAIL;
	/* An engine without a socket (an older one) holds the data
	 * directory: a second engine would refuse to start. */
	if ((pid_running = cli_engine_running(dir, &port)) != 0)
		return cli_fail("the engine of %s (pid %ld, port %ld) serves "
				"no socket; 'lectern stop' it and try again",
				dir, pid_running, port);
	if (asprintf(&log, "%s/serve-socket.log", dir) < 0) {
		log = NULL;
		return cli_fail("out of memory");
	}
	if (cli_make_dirs(log) < 0) {
		cli_fail("cannot create %s: %s", dir, strerror(errno));
		goto done;
	}
	log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (log_fd < 0) {
		cli_fail("cannot write %s: %s", log, strerror(errno));
		goto done;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		cli_fail("cannot start the engine: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		exec_engine(dir, path, log_fd, argc, argv);
	/* Two --detach at once both start one; the second one's engine finds
	 * the socket taken and exits, and both see the first answer. */
	/* Ready once it answers and has recorded itself, so a CLI here that
	 * comes next finds it rather than starting another. */
	while (!detached_ready(dir, path)) {
		if (waitpid(pid, &wstatus, WNOHANG) == pid &&
		    !detached_ready(dir, path)) {
			cli_fail("the engine did not start; see %s", log);
			goto done;
		}
		if (waited >= DETACH_TIMEOUT_MS) {
			kill(pid, SIGTERM);
			cli_fail("the engine did not answer on %s within %d s; "
				 "see %s", path, DETACH_TIMEOUT_MS / 1000, log);
			goto done;
		}
		sleep_ms(DETACH_POLL_MS);
		waited += DETACH_POLL_MS;
	}
ready:
	printf("listening on unix:%s\n", path);
	status = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
done:
	if (log_fd >= 0)
		close(log_fd);
	free(log);
	return status;
}
