/*
 * `lectern diff PROJECT BASE HEAD [PAGE]`: what changed in a project's
 * documentation between two versions or builds (build:<id>), from the
 * instance's page-diff endpoint (docs/api.md "Page diffs"), as a unified
 * diff of the pages' text (nothing when nothing changed), or the answer
 * itself with --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

int cli_cmd_diff(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct lc_diff *d = NULL;
	struct lc_error err;
	char *pos[4], *text;
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("diff", argc, argv, opts, pos, 3,
					     4, &n)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (lc_diff_get(s.client, pos[0], pos[1], pos[2], n == 4 ? pos[3] : NULL,
			&d, &err) != LC_OK) {
		status = cli_fail_request(&s, &err);
		goto done;
	}
	if (json) {
		status = cli_print_json(d->raw);
	} else if ((text = lc_diff_unified(d, NULL)) == NULL) {
		status = cli_fail("out of memory");
	} else {
		cli_write(stdout, text, strlen(text), LC_TERMINAL_TEXT);
		free(text);
		if (d->truncated == 1)
			fprintf(stderr, "lectern: more pages differ than the "
					"instance lists\n");
	}
done:
	lc_diff_free(d);
	cli_session_close(&s);
	return status;
}
