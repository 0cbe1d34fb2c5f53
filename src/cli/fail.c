/*
 * How a command says it failed: one line on stderr, "lectern: <message>",
 * filtered as cli_print filters (an instance's error detail may carry
 * escapes), and the exit status to return with it. Every file of the CLI
 * reports through these, so they call nothing of the CLI but output.c.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "lectern/errors.h"

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lectern: ", stderr);
	va_start(ap, fmt);
	cli_vprint(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

int cli_fail_engine(const char *what)
{
	return cli_fail("%s: %s", what, lec_error_last());
}

int cli_usage(const struct cli_command *cmd)
{
	fprintf(stderr, "usage: lectern %s%s%s\n", cmd->name,
		cmd->args[0] ? " " : "", cmd->args);
	return CLI_EXIT_USAGE;
}

int cli_bad_usage(const char *synopsis)
{
	cli_fail("usage: %s", synopsis);
	return CLI_EXIT_USAGE;
}
