/*
 * `lectern __egress FD -- COMMAND [ARGS...]`: the forwarder of the build
 * sandbox's egress proxy (engine/include/lectern/egress.h). The runner
 * starts it inside the sandbox of a command that has network, with FD the
 * proxy's socket; it points the command's HTTP(S)_PROXY at a port of the
 * sandbox's own loopback, runs the command, hands every connection to the
 * engine through FD and exits with the command's status.
 *
 * Not a user command (absent from --help), like `lectern __repo`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lectern/egress.h"
#include "lectern/errors.h"

/* What the helper exits with when it cannot run the command at all, as a
 * shell does for a command it cannot run. */
#define EGRESS_HELPER_FAILED 127

int cli_egress_helper(int argc, char **argv)
{
	char *end;
	long fd;
	int status;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: lectern %s FD -- COMMAND [ARGS...]\n",
			LEC_EGRESS_HELPER_WORD);
		return EGRESS_HELPER_FAILED;
	}
	errno = 0;
	fd = strtol(argv[0], &end, 10);
	if (errno != 0 || end == argv[0] || *end != '\0' || fd < 0 ||
	    fd > INT_MAX) {
		fprintf(stderr, "lectern %s: '%s' is not a descriptor\n",
			LEC_EGRESS_HELPER_WORD, argv[0]);
		return EGRESS_HELPER_FAILED;
	}
	if (lec_egress_forward((int)fd, (const char *const *)(argv + 2),
			       &status) < 0) {
		fprintf(stderr, "lectern %s: %s\n", LEC_EGRESS_HELPER_WORD,
			lec_error_last());
		return EGRESS_HELPER_FAILED;
	}
	return status;
}
