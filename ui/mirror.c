/*
 * The TUI's background mirror (see mirror.h): a double fork, so the copy
 * is nobody's child by the time it runs (no zombie to reap, no signal
 * from the terminal), with its output in <data>/mirror-<project>.log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mirror.h"
#include "util.h"

/* In the grandchild: become the copy. Never returns. */
static void exec_copy(const char *data_dir, const char *context,
		      const char *project, const char *log)
{
	int null = open("/dev/null", O_RDONLY);
	int out = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
					  O_NOFOLLOW,
			     0600)
		      : -1;

	setsid();
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (out < 0)
		out = null;
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
	}
	/* The terminal's and the client's descriptors stay with the TUI. */
	close_range(3, ~0U, 0);
	if (data_dir)
		execl("/proc/self/exe", "lectern", "--data", data_dir,
		      "mirror", "add", context, project, (char *)NULL);
	else
		execl("/proc/self/exe", "lectern", "mirror", "add", context,
		      project, (char *)NULL);
	_exit(127);
}

int ui_mirror_start(const char *data_dir, const char *context,
		    const char *project, char **log, char *err,
		    size_t errsize)
{
	char *path = data_dir ? ui_xasprintf("%s/mirror-%s.log", data_dir,
					     project)
			      : NULL;
	pid_t pid;
	int status;

	*log = NULL;
	if ((pid = fork()) < 0) {
		snprintf(err, errsize, "mirror: fork: %s", strerror(errno));
		free(path);
		return -1;
	}
	if (pid == 0) {
		/* The middle process: start the copy and go, so that init
		 * adopts it. */
		pid_t copy = fork();

		if (copy == 0)
			exec_copy(data_dir, context, project, path);
		_exit(copy < 0 ? 1 : 0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errsize, "mirror: cannot start the copy");
		free(path);
		return -1;
	}
	*log = path;
	return 0;
}
