/*
 * The TUI's preview child (see preview.h). The child gets its own process
 * group, so a Ctrl-C meant for the terminal never reaches it, and dies
 * with the TUI's main thread (PR_SET_PDEATHSIG) if the TUI ends without
 * stopping it. Its stdout and stderr share one pipe: the first line is
 * the URL on success, and on failure the last line says why, which is
 * what the status line shows. Everything after the URL is progress the
 * reader learns from the preview's status API instead, so it is read
 * and dropped, which also keeps the child from blocking on a full pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preview.h"
#include "util.h"

/* The line announcing the URL, as `lectern preview` prints it. */
#define URL_PREFIX "preview: "
/* A longer line is cut here: only the URL and an error line matter. */
#define MAX_LINE 1024
/* How long a stopping preview may take to end its build before it is
 * killed: quitting the TUI should not hang on it. */
#define STOP_WAIT_MS 3000
/* The pause between looks at a stopping child. */
#define STOP_POLL_MS 10

struct ui_preview {
	pid_t pid;             /* 0 once reaped */
	int fd;                /* the read end of the pipe, -1 once closed */
	char *dir;
	char *url;             /* NULL until the first line came */
	int announced;         /* READY was reported */
	char line[MAX_LINE];   /* the line being read */
	size_t len;
	char last[MAX_LINE];   /* the last complete non-empty line */
};

/* In the child: become `lectern preview dir --port 0`, or say why not on
 * the pipe. Never returns. */
static void exec_child(const char *dir, int out, pid_t parent)
{
	sigset_t none;
	int null = open("/dev/null", O_RDONLY);
	static const char msg[] = "cannot run /proc/self/exe\n";
	ssize_t written;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* The TUI may have gone before the line above took effect. */
	if (getppid() != parent)
		_exit(0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	/* The terminal's and the client's descriptors stay with the TUI. */
	close_range(3, ~0U, 0);
	execl("/proc/self/exe", "lectern", "preview", dir, "--port", "0",
	      (char *)NULL);
	/* Nowhere is left to report a failed write to. */
	written = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)written;
	_exit(127);
}

int ui_preview_start(const char *dir, struct ui_preview **out, char *err,
		     size_t errsize)
{
	struct ui_preview *p;
	int fds[2];
	pid_t pid, parent = getpid();

	*out = NULL;
	if (dir == NULL || *dir == '\0')
		dir = ".";
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errsize, "preview: pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(err, errsize, "preview: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0)
		exec_child(dir, fds[1], parent);
	close(fds[1]);
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	p = ui_xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->fd = fds[0];
	p->dir = ui_xstrdup(dir);
	*out = p;
	return 0;
}

int ui_preview_fd(const struct ui_preview *p)
{
	return p->fd;
}

const char *ui_preview_url(const struct ui_preview *p)
{
	return p->announced ? p->url : NULL;
}

const char *ui_preview_dir(const struct ui_preview *p)
{
	return p->dir;
}

/* A complete line from the child. */
static void take_line(struct ui_preview *p)
{
	const char *rest;

	p->line[p->len] = '\0';
	p->len = 0;
	if (p->line[0] == '\0')
		return;
	snprintf(p->last, sizeof(p->last), "%s", p->line);
	rest = p->line + strlen(URL_PREFIX);
	if (p->url == NULL &&
	    strncmp(p->line, URL_PREFIX "http://", strlen(URL_PREFIX) + 7) == 0)
		p->url = ui_xstrdup(rest);
}

static void take_bytes(struct ui_preview *p, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n')
			take_line(p);
		else if (p->len < MAX_LINE - 1)
			p->line[p->len++] = buf[i];
	}
}

/* The child closed the pipe: reap it and say how it ended. */
static void reap(struct ui_preview *p, char *err, size_t errsize)
{
	int status = 0;

	close(p->fd);
	p->fd = -1;
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	if (p->last[0])
		snprintf(err, errsize, "%s", p->last);
	else if (WIFSIGNALED(status))
		snprintf(err, errsize, "preview killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(err, errsize, "preview exited with status %d",
			 WEXITSTATUS(status));
}

enum ui_preview_event ui_preview_read(struct ui_preview *p, char *err,
				      size_t errsize)
{
	char buf[4096];
	ssize_t n;

	while (p->fd >= 0) {
		n = read(p->fd, buf, sizeof(buf));
		if (n > 0) {
			take_bytes(p, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		reap(p, err, errsize);
		return UI_PREVIEW_EXITED;
	}
	if (p->url && !p->announced) {
		p->announced = 1;
		return UI_PREVIEW_READY;
	}
	return UI_PREVIEW_NOTHING;
}

/* Wait up to STOP_WAIT_MS for the child, draining the pipe meanwhile;
 * non-zero once reaped. */
static int wait_stopped(struct ui_preview *p)
{
	char buf[4096];
	int64_t until = ui_now_ms() + STOP_WAIT_MS;
	struct timespec pause = { 0, STOP_POLL_MS * 1000000L };

	do {
		while (p->fd >= 0 && read(p->fd, buf, sizeof(buf)) > 0)
			;
		if (waitpid(p->pid, NULL, WNOHANG) == p->pid)
			return 1;
		nanosleep(&pause, NULL);
	} while (ui_now_ms() < until);
	return 0;
}

void ui_preview_stop(struct ui_preview *p)
{
	if (p == NULL)
		return;
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		if (!wait_stopped(p)) {
			/* Its build commands run in its process group. */
			kill(-p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
		}
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->dir);
	free(p->url);
	free(p);
}
