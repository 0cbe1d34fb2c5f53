/*
 * Build warnings in the CLI: `lectern warnings` (cmd_warnings.c, over the
 * API) and `lectern check` (check.c: a working tree built once with the
 * engine's preview, compared with a build of the current context when
 * asked), and what both print (warnings.c).
 */
#ifndef LECTERN_CLI_WARNINGS_H
#define LECTERN_CLI_WARNINGS_H

#include <stdio.h>

#include "cmd.h"

struct cli_ctx;
struct lec_warning;

/* A build's warnings, as the API lists them. */
struct cli_warning_list {
	struct lc_warning **items;
	size_t len;
};

/* One record as "file:line: kind: message" (lc_warning_format), marked
 * " [new]" when mark_new and it is new. CLI_EXIT_OK or a failure. */
int cli_print_record(FILE *out, const struct lc_warning *w, int mark_new);
/* The same for an engine record (a preview's, check.c). */
int cli_print_engine_record(FILE *out, const struct lec_warning *w);
/* Every warning of a build of project (only the new ones with new_only).
 * Reports errors itself; dispose *out with cli_warning_list_dispose. */
int cli_build_warnings(struct cli_session *s, const char *project,
		       long long build, int new_only,
		       struct cli_warning_list *out);
void cli_warning_list_dispose(struct cli_warning_list *list);

int cli_cmd_warnings(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_check(struct cli_ctx *ctx, int argc, char **argv);

#endif
