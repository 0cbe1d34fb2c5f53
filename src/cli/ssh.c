/*
 * ssh contexts: reach a Lectern engine on another machine through the
 * system's OpenSSH, with no port opened there (docs/cli.md, "Remote
 * engines"). For `[context far] ssh = admin@build1` a command
 *
 *   1. runs `REMOTE serve --detach` on the host through one shared master
 *      connection (ControlMaster=auto, ControlPersist): the remote lectern
 *      starts its engine on a 0600 unix socket if none answers there, and
 *      prints "listening on unix:PATH";
 *   2. asks the master to forward a local unix socket to that path
 *      (`-O forward -L LOCAL:PATH`; asking again for a forward the master
 *      has is a no-op);
 *   3. hands the local socket to the client (CURLOPT_UNIX_SOCKET_PATH).
 *      The engine sees its own uid on the socket and acts as its owner
 *      user: there is no token to copy.
 *
 * Every ssh call has BatchMode (a prompt would hang a TUI), ConnectTimeout
 * and StreamLocalBindUnlink (a socket file left by a dead master must not
 * block the next forward). The master and the forwarded socket live in a
 * private directory, named after the context and a hash of its target, so
 * two configurations never share a master. The remote command is quoted
 * for the remote shell; the host follows "--", so it is never an option.
 *
 * Failures are one line each: ssh missing, host unreachable, key refused,
 * unknown host key, remote lectern missing or too old, remote engine not
 * starting. A TUI keeps a watcher process (ssh_keeper.c) that redoes the
 * three steps when the link or the remote engine goes away.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"

/* Seconds ssh waits for the TCP connection and the handshake. */
#define SSH_CONNECT_TIMEOUT_S 5
/* An idle master stays this long after its last use, so a burst of
 * commands (or a TUI) shares one connection. */
#define SSH_PERSIST_S 600
/* A master whose peer stops answering notices within 3 x 5 s. */
#define SSH_ALIVE_INTERVAL_S 5
#define SSH_ALIVE_COUNT 3
/* The longest one ssh call may take: the remote engine's own start (up to
 * 60 s in a sanitizer build) plus the connection. Past it ssh is killed. */
#define SSH_CALL_TIMEOUT_MS 90000
/* What is kept of an ssh call's stdout and stderr: a line or two. */
#define SSH_OUTPUT_MAX 4096
/* Arguments of one ssh call, extra ssh-options included. */
#define SSH_ARGV_MAX 48
/* Words of a context's ssh-options. */
#define SSH_OPTIONS_MAX 24
/* A unix socket path, as struct sockaddr_un holds it. */
#define SOCKET_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
/* The line `lectern serve --detach` prints (serve_socket.c). */
#define LISTEN_UNIX "listening on unix:"
/* The exit status of a shell that found no such command, and of one that
 * found it but could not run it. */
#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126

#define SSH_STR_(x) #x
#define SSH_STR(x) SSH_STR_(x)

/* One ssh call's outcome. */
struct ssh_result {
	int exec_errno;  /* ssh itself could not be run */
	int status;      /* exit status; -1: killed or timed out */
	char out[SSH_OUTPUT_MAX];
	char err[SSH_OUTPUT_MAX];
};

/* What every call of one context shares. */
struct ssh_link {
	const struct cli_context *c;
	char *user;                      /* owned; NULL: ssh's default */
	char *options;                   /* ssh-options, split in place */
	const char *argv[SSH_ARGV_MAX];  /* the common part, into the above */
	size_t argc;
	char port_opt[16];
	char ctl[SOCKET_PATH_MAX + 1];   /* the master's control socket */
	char local[SOCKET_PATH_MAX + 1]; /* the forwarded engine socket */
	char host[256];                  /* for messages: USER@HOST[:PORT] */
	const char *hostname;            /* HOST alone (the caller's buffer) */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- Running ssh ---------------------------------------------------------- */

/* Append what fd has to buf (kept NUL-terminated, extra dropped); 0 at end
 * of file. */
static ssize_t drain(int fd, char *buf, size_t cap)
{
	size_t len = strlen(buf);
	char chunk[1024];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n > 0 && len + 1 < cap) {
		size_t take = (size_t)n < cap - 1 - len ? (size_t)n
							 : cap - 1 - len;

		memcpy(buf + len, chunk, take);
		buf[len + take] = '\0';
	}
	return n < 0 && errno == EINTR ? 1 : n;
}

/* The child's side: stdin from /dev/null (BatchMode asks nothing, and ssh
 * must not read the TUI's keys), stdout and stderr to the pipes; an exec
 * failure goes back as errno on the close-on-exec pipe. */
static void exec_ssh(const char *const *argv, int out, int err, int report)
{
	/* execvp's argument is char *const[] for history; it writes nothing. */
	union {
		const char *const *in;
		char *const *out;
	} args = { argv };
	int null_fd = open("/dev/null", O_RDWR);
	int e;

	/* The watcher ignores SIGPIPE, and ssh would inherit that. */
	signal(SIGPIPE, SIG_DFL);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 ||
	    dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
		_exit(EXIT_NOT_FOUND);
	execvp(argv[0], args.out);
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(EXIT_NOT_FOUND);
	_exit(EXIT_NOT_FOUND);
}

/* Run argv (argv[0] "ssh"), collecting its output, for at most
 * SSH_CALL_TIMEOUT_MS. 0, or -1 when no process could be made. */
static int run_ssh(const char *const *argv, struct ssh_result *r)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, rep[2] = { -1, -1 };
	long long deadline = now_ms() + SSH_CALL_TIMEOUT_MS;
	struct pollfd fds[2];
	int wstatus, open_fds = 2, rc = -1;
	pid_t pid = -1;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    pipe2(rep, O_CLOEXEC) < 0)
		goto done;
	fflush(NULL);
	if ((pid = fork()) < 0)
		goto done;
	if (pid == 0)
		exec_ssh(argv, out[1], err[1], rep[1]);
	close(out[1]);
	close(err[1]);
	close(rep[1]);
	out[1] = err[1] = rep[1] = -1;
	fds[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = err[0], .events = POLLIN };
	while (open_fds > 0) {
		long long left = deadline - now_ms();
		int i;

		if (left <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || fds[i].revents == 0)
				continue;
			if (drain(fds[i].fd, i ? r->err : r->out,
				  SSH_OUTPUT_MAX) <= 0) {
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	if (read(rep[0], &r->exec_errno, sizeof(r->exec_errno)) !=
	    sizeof(r->exec_errno))
		r->exec_errno = 0;
	if (WIFEXITED(wstatus) && open_fds == 0)
		r->status = WEXITSTATUS(wstatus);
	rc = 0;
done:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	return rc;
}

/* The last non-empty line of text, in place. */
static const char *last_line(char *text)
{
	char *end = text + strlen(text), *nl;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}

/* What follows `ssh` in a command a person types to reach the context's
 * host as the link does: "-p 22822 -i KEY root@127.0.0.1", its port as
 * -p (ssh reads no HOST:PORT) and its ssh-options kept. */
static void typed_args(const struct ssh_link *l, char *out, size_t cap)
{
	const char *opts = l->c->ssh_options;

	snprintf(out, cap, "%s%s%s%s%s%s%s", l->port_opt[0] ? "-p " : "",
		 l->port_opt, l->port_opt[0] ? " " : "", opts ? opts : "",
		 opts ? " " : "", l->user ? l->user : "", l->user ? "@" : "");
	snprintf(out + strlen(out), cap - strlen(out), "%s",
		 l->hostname ? l->hostname : l->c->ssh);
}

/* ssh's own failure (exit 255), as one line for its context. */
static int ssh_failure(const struct ssh_link *l, struct ssh_result *r)
{
	const char *why = last_line(r->err), *name = l->c->name;
	char typed[1024];

	if (*why == '\0')
		why = "no message";
	if (strstr(why, "Permission denied"))
		return cli_fail("context '%s': %s refused the ssh key (%s); "
				"add it to the remote authorized_keys or load "
				"it in your agent", name, l->host, why);
	if (strstr(why, "Host key verification failed") ||
	    strstr(why, "REMOTE HOST IDENTIFICATION")) {
		typed_args(l, typed, sizeof(typed));
		return cli_fail("context '%s': the host key of %s is unknown or "
				"has changed (%s); connect once with 'ssh %s' "
				"to check it", name, l->host, why, typed);
	}
	return cli_fail("context '%s': cannot reach %s over ssh (%s)", name,
			l->host, why);
}

/* Whether the call ran at all: reports ssh missing, ssh killed, ssh's
 * own errors. 0 when the remote side answered. */
static int ssh_ran(const struct ssh_link *l, struct ssh_result *r)
{
	if (r->exec_errno == ENOENT)
		return cli_fail("context '%s': ssh not found on PATH; install "
				"OpenSSH's client (Debian: openssh-client)",
				l->c->name);
	if (r->exec_errno)
		return cli_fail("context '%s': cannot run ssh: %s", l->c->name,
				strerror(r->exec_errno));
	if (r->status < 0)
		return cli_fail("context '%s': ssh to %s gave no answer within "
				"%d s", l->c->name, l->host,
				SSH_CALL_TIMEOUT_MS / 1000);
	if (r->status == 255)
		return ssh_failure(l, r);
	return 0;
}

/* ---- The link's shared arguments ------------------------------------------ */

/* FNV-1a, to tell targets apart in socket names. */
static uint32_t hash_str(uint32_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;
}

/* The private directory of masters and forwarded sockets:
 * $XDG_RUNTIME_DIR/lectern/ssh, else /tmp/lectern-UID/ssh; 0700 and the
 * user's own, or it is refused (a socket there is a door to an engine). */
static int socket_dir(char *out, size_t cap)
{
	const char *run = getenv("XDG_RUNTIME_DIR");
	char base[SOCKET_PATH_MAX + 1];
	struct stat st;

	if (run && run[0] == '/')
		snprintf(base, sizeof(base), "%s/lectern", run);
	else
		snprintf(base, sizeof(base), "/tmp/lectern-%u",
			 (unsigned)getuid());
	/* "/x" stands for the files, so cli_make_dirs makes the directory. */
	if ((size_t)snprintf(out, cap, "%s/ssh/x", base) >= cap)
		return cli_fail("the ssh socket directory %s/ssh is too long",
				base);
	if (cli_make_dirs(out) < 0)
		return cli_fail("cannot create %s/ssh: %s", base,
				strerror(errno));
	out[strlen(out) - 2] = '\0';
	if (lstat(out, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077))
		return cli_fail("%s must be a directory of yours with mode 0700",
				out);
	return CLI_EXIT_OK;
}

/* Split USER@HOST:PORT into the common arguments; the host itself goes
 * last, after "--". */
static int link_init(struct ssh_link *l, const struct cli_context *c,
		     const char **host_out, char *hostbuf, size_t hostcap)
{
	char dir[SOCKET_PATH_MAX + 1], *word, *save = NULL, *colon;
	const char *at = strchr(c->ssh, '@');
	uint32_t h;
	size_t nwords = 0;
	int status;

	memset(l, 0, sizeof(*l));
	l->c = c;
	snprintf(l->host, sizeof(l->host), "%s", c->ssh);
	snprintf(hostbuf, hostcap, "%s", at ? at + 1 : c->ssh);
	colon = strrchr(hostbuf, ':');
	if (colon && (hostbuf[0] != '[' || colon > strchr(hostbuf, ']'))) {
		*colon = '\0';
		if (colon[1] == '\0' || strlen(colon + 1) > 5 ||
		    strspn(colon + 1, "0123456789") != strlen(colon + 1))
			return cli_fail("context '%s': ssh wants [USER@]HOST"
					"[:PORT], got '%s'", c->name, c->ssh);
		memcpy(l->port_opt, colon + 1, strlen(colon + 1) + 1);
	}
	if (hostbuf[0] == '[' && hostbuf[strlen(hostbuf) - 1] == ']') {
		memmove(hostbuf, hostbuf + 1, strlen(hostbuf));
		hostbuf[strlen(hostbuf) - 1] = '\0';
	}
	*host_out = l->hostname = hostbuf;
	if ((status = socket_dir(dir, sizeof(dir))) != CLI_EXIT_OK)
		return status;
	h = hash_str(hash_str(hash_str(2166136261u, c->ssh),
			      c->remote_command),
		     c->ssh_options);
	if ((size_t)snprintf(l->ctl, sizeof(l->ctl), "%s/%s-%08x.ctl", dir,
			     c->name, h) >= sizeof(l->ctl) ||
	    (size_t)snprintf(l->local, sizeof(l->local), "%s/%s-%08x.sock",
			     dir, c->name, h) >= sizeof(l->local))
		return cli_fail("context '%s': the socket path under %s is "
				"longer than %zu bytes; use a shorter name",
				c->name, dir, SOCKET_PATH_MAX);
	l->argv[l->argc++] = "ssh";
	l->argv[l->argc++] = "-S";
	l->argv[l->argc++] = l->ctl;
	l->argv[l->argc++] = "-o";
	l->argv[l->argc++] = "BatchMode=yes";
	l->argv[l->argc++] = "-o";
	l->argv[l->argc++] = "ConnectTimeout=" SSH_STR(SSH_CONNECT_TIMEOUT_S);
	l->argv[l->argc++] = "-o";
	l->argv[l->argc++] = "StreamLocalBindUnlink=yes";
	if (at) {
		/* "-l" takes the user whatever it looks like. */
		if ((l->user = strndup(c->ssh, (size_t)(at - c->ssh))) == NULL)
			return cli_fail("out of memory");
		l->argv[l->argc++] = "-l";
		l->argv[l->argc++] = l->user;
	}
	if (l->port_opt[0]) {
		l->argv[l->argc++] = "-p";
		l->argv[l->argc++] = l->port_opt;
	}
	if (c->ssh_options == NULL)
		return CLI_EXIT_OK;
	if ((l->options = strdup(c->ssh_options)) == NULL)
		return cli_fail("out of memory");
	for (word = strtok_r(l->options, " \t", &save); word;
	     word = strtok_r(NULL, " \t", &save)) {
		if (++nwords > SSH_OPTIONS_MAX)
			return cli_fail("context '%s': ssh-options has more "
					"than %d words", c->name,
					SSH_OPTIONS_MAX);
		l->argv[l->argc++] = word;
	}
	return CLI_EXIT_OK;
}

static void link_dispose(struct ssh_link *l)
{
	free(l->user);
	free(l->options);
}

/* The common arguments, then extra ones, then "--" HOST and the remote
 * command (NULL: none) into argv. */
static void link_argv(const struct ssh_link *l, const char **argv,
		      const char *const *extra, const char *host,
		      const char *command)
{
	size_t n = 0;

	memcpy(argv, l->argv, l->argc * sizeof(*argv));
	n = l->argc;
	for (; extra && *extra; extra++)
		argv[n++] = *extra;
	argv[n++] = "--";
	argv[n++] = host;
	if (command)
		argv[n++] = command;
	argv[n] = NULL;
}

/* ---- The three steps ------------------------------------------------------ */

/* `'REMOTE' WORDS` for the remote shell ("serve --detach", "stop"), the
 * path single-quoted; words are the CLI's own, never quoted. */
static char *remote_command(const struct cli_context *c, const char *words)
{
	const char *path = c->remote_command ? c->remote_command : "lectern";
	size_t n = strlen(path) * 4 + strlen(words) + sizeof("'' ");
	char *cmd = malloc(n), *p = cmd;

	if (cmd == NULL)
		return NULL;
	*p++ = '\'';
	for (; *path; path++) {
		if (*path == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *path;
		}
	}
	snprintf(p, n - (size_t)(p - cmd), "' %s", words);
	return cmd;
}

/* What every call that runs the remote lectern passes: the master, made
 * on first use and kept (ControlPersist), its peer watched. */
static const char *const master_opts[] = {
	"-o", "ControlMaster=auto",
	"-o", "ControlPersist=" SSH_STR(SSH_PERSIST_S),
	"-o", "ServerAliveInterval=" SSH_STR(SSH_ALIVE_INTERVAL_S),
	"-o", "ServerAliveCountMax=" SSH_STR(SSH_ALIVE_COUNT),
	NULL
};

/* Run `REMOTE words` on the host through the master into r; reports a
 * link that does not work, and a remote lectern that is missing. */
static int run_remote(const struct ssh_link *l, const char *host,
		      const char *words, struct ssh_result *r)
{
	const char *argv[SSH_ARGV_MAX + 16];
	const char *what = l->c->remote_command ? l->c->remote_command
						: "lectern";
	char *cmd = remote_command(l->c, words);
	int status;

	if (cmd == NULL)
		return cli_fail("out of memory");
	link_argv(l, argv, master_opts, host, cmd);
	status = run_ssh(argv, r) < 0
			 ? cli_fail("cannot run ssh: %s", strerror(errno))
			 : ssh_ran(l, r);
	free(cmd);
	if (status != 0)
		return status;
	if (r->status == EXIT_NOT_FOUND || r->status == EXIT_NOT_EXECUTABLE)
		return cli_fail("context '%s': no '%s' to run on %s (%s); "
				"install Lectern there, or give its path with "
				"--remote-command", l->c->name, what, l->host,
				last_line(r->err));
	return CLI_EXIT_OK;
}

/* Step 1: the master (made on first use) runs the remote lectern, which
 * makes sure its engine runs; the engine's socket path into remote. */
static int start_remote(const struct ssh_link *l, const char *host,
			char *remote, size_t cap)
{
	struct ssh_result r;
	char *line;
	int status;

	if ((status = run_remote(l, host, "serve --detach", &r)) != 0)
		return status;
	line = strstr(r.out, LISTEN_UNIX);
	if (strstr(r.err, "unknown option") || strstr(r.err, "unknown command") ||
	    (r.status == 0 && line == NULL))
		return cli_fail("context '%s': the lectern on %s is too old for "
				"ssh contexts (it has no 'serve --detach'); "
				"upgrade it", l->c->name, l->host);
	if (r.status != 0 || line == NULL)
		return cli_fail("context '%s': the engine on %s did not start "
				"(%s)", l->c->name, l->host,
				*r.err ? last_line(r.err) : "no message");
	line += strlen(LISTEN_UNIX);
	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] != '/' || strlen(line) >= cap)
		return cli_fail("context '%s': the engine on %s named no usable "
				"socket ('%s')", l->c->name, l->host, line);
	snprintf(remote, cap, "%s", line);
	return CLI_EXIT_OK;
}

/* Step 2: the master forwards local (a unix socket path, or
 * "127.0.0.1:PORT") to the remote socket; cancel: -O cancel instead. */
static int forward(const struct ssh_link *l, const char *host,
		   const char *local, const char *remote, int cancel)
{
	char spec[2 * SOCKET_PATH_MAX + 2];
	const char *extra[] = { "-O", cancel ? "cancel" : "forward", "-L", spec,
				NULL };
	const char *argv[SSH_ARGV_MAX + 16];
	struct ssh_result r;
	int status;

	snprintf(spec, sizeof(spec), "%s:%s", local, remote);
	link_argv(l, argv, extra, host, NULL);
	if (run_ssh(argv, &r) < 0)
		return cli_fail("cannot run ssh: %s", strerror(errno));
	if ((status = ssh_ran(l, &r)) != 0)
		return status;
	if (r.status != 0)
		return cli_fail("context '%s': ssh could not %s %s to %s "
				"(%s)", l->c->name,
				cancel ? "stop forwarding" : "forward", local,
				remote, last_line(r.err));
	return CLI_EXIT_OK;
}

int cli_ssh_connect(const struct cli_context *c, struct cli_conn *conn)
{
	struct ssh_link l;
	char hostbuf[256], remote[SOCKET_PATH_MAX + 1], typed[1024];
	const char *host = NULL;
	int status;

	if ((status = link_init(&l, c, &host, hostbuf, sizeof(hostbuf))) !=
		    CLI_EXIT_OK ||
	    (status = start_remote(&l, host, remote, sizeof(remote))) !=
		    CLI_EXIT_OK ||
	    (status = forward(&l, host, l.local, remote, 0)) != CLI_EXIT_OK)
		goto done;
	/* Host "localhost": the engine builds every link from it, and docs
	 * hosts are <slug>.localhost over the same socket. */
	conn->base_url = strdup("http://localhost");
	conn->unix_socket = strdup(l.local);
	conn->remote_socket = strdup(remote);
	if (asprintf(&conn->link_name, "ssh context %s", c->name) < 0)
		conn->link_name = NULL;
	typed_args(&l, typed, sizeof(typed));
	if (asprintf(&conn->forward_hint, "ssh -N -L PORT:%s %s", remote,
		     typed) < 0)
		conn->forward_hint = NULL;
	if (conn->base_url == NULL || conn->unix_socket == NULL ||
	    conn->remote_socket == NULL || conn->link_name == NULL ||
	    conn->forward_hint == NULL)
		status = cli_fail("out of memory");
done:
	link_dispose(&l);
	return status;
}

int cli_ssh_stop(const struct cli_context *c)
{
	struct ssh_link l;
	struct ssh_result r;
	char hostbuf[256];
	const char *host = NULL;
	int status;

	if ((status = link_init(&l, c, &host, hostbuf, sizeof(hostbuf))) !=
		    CLI_EXIT_OK ||
	    (status = run_remote(&l, host, "stop", &r)) != CLI_EXIT_OK)
		goto done;
	/* Its one line, said of that machine: "on admin@build1: stopped the
	 * local engine (pid 4242)". */
	if (r.status != 0)
		status = cli_fail("context '%s': the engine on %s did not stop "
				  "(%s)", c->name, l.host,
				  *r.err ? last_line(r.err) : "no message");
	else
		cli_print(stdout, "on %s: %s\n", l.host,
			  *r.out ? last_line(r.out) : "stopped");
done:
	link_dispose(&l);
	return status;
}

/* A free port of 127.0.0.1 at this moment, or -1: the kernel's pick
 * for a socket bound to port 0. */
static int free_local_port(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
		port = ntohs(addr.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* The forward of a TCP port (cancel 0) or its end (1), through the
 * context's master: only the local master is asked. */
static int tcp_forward(const struct cli_context *c, const char *remote,
		       int port, int cancel)
{
	struct ssh_link l;
	char hostbuf[256], local[32];
	const char *host = NULL;
	int status;

	snprintf(local, sizeof(local), "127.0.0.1:%d", port);
	if ((status = link_init(&l, c, &host, hostbuf, sizeof(hostbuf))) ==
	    CLI_EXIT_OK)
		status = forward(&l, host, local, remote, cancel);
	link_dispose(&l);
	return status;
}

int cli_ssh_forward_port(const struct cli_context *c, const char *remote,
			 int *port)
{
	if ((*port = free_local_port()) < 0)
		return cli_fail("no free local port: %s", strerror(errno));
	return tcp_forward(c, remote, *port, 0);
}

int cli_ssh_forward_cancel(const struct cli_context *c, const char *remote,
			   int port)
{
	return tcp_forward(c, remote, port, 1);
}
