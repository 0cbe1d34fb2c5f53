/*
 * The TUI's watcher of an ssh context's link (see context.h): a child
 * process that probes the forwarded engine socket every couple of seconds
 * and, when nothing answers (the master died, or the remote engine), reads
 * the config again and redoes cli_ssh_connect (ssh.c), so the TUI's
 * requests work again once the link is back. It ends with the TUI.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"

/* The watcher's probe of a TUI's link: how often, and how long an answer
 * may take before the link counts as down. */
#define KEEPER_INTERVAL_MS 2000
#define KEEPER_PROBE_TIMEOUT_MS 3000

/* Whether the engine answers an HTTP request on the forwarded socket within
 * KEEPER_PROBE_TIMEOUT_MS: a dead master refuses the connection, a dead
 * remote engine makes the master close it unanswered. */
static int link_answers(const char *path)
{
	static const char probe[] = "HEAD /api/v3/ HTTP/1.0\r\n"
				    "Host: localhost\r\n\r\n";
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	char reply[16] = "";
	int fd, ok = 0;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
	    send(fd, probe, sizeof(probe) - 1, MSG_NOSIGNAL) ==
		    (ssize_t)sizeof(probe) - 1) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		ok = poll(&pfd, 1, KEEPER_PROBE_TIMEOUT_MS) == 1 &&
		     read(fd, reply, sizeof(reply) - 1) > 0 &&
		     strncmp(reply, "HTTP/1.", 7) == 0;
	}
	close(fd);
	return ok;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The watcher's loop: it ends with its parent (the TUI). */
static void keep_link(const char *name, const char *unix_socket,
		      pid_t parent)
{
	struct cli_config cfg;
	struct cli_context *c;
	struct cli_conn conn;

	while (getppid() == parent) {
		sleep_ms(KEEPER_INTERVAL_MS);
		if (link_answers(unix_socket))
			continue;
		/* The config is read again: it may have been fixed. */
		if (cli_config_load(&cfg) == CLI_EXIT_OK &&
		    (c = cli_config_find(&cfg, name)) != NULL && c->ssh) {
			memset(&conn, 0, sizeof(conn));
			cli_ssh_connect(c, &conn);
			cli_conn_dispose(&conn);
		}
		cli_config_dispose(&cfg);
	}
}

long cli_ssh_keeper_start(const char *name, const char *unix_socket)
{
	pid_t parent = getpid(), pid;
	int null_fd;

	fflush(NULL);
	if ((pid = fork()) != 0)
		return pid < 0 ? -1 : (long)pid;
	/* The child: silent (the TUI owns the terminal), gone with the TUI,
	 * deaf to the terminal's Ctrl-C (the TUI reads keys itself). */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGINT, SIG_IGN);
	/* A probe or an ssh call writing to a link that just died gets EPIPE
	 * and tries again later; SIGPIPE would end the watcher for good. */
	signal(SIGPIPE, SIG_IGN);
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		dup2(null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
	}
	keep_link(name, unix_socket, parent);
	_exit(0);
}

void cli_ssh_keeper_stop(long pid)
{
	if (pid <= 0)
		return;
	kill((pid_t)pid, SIGTERM);
	while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
		;
}
