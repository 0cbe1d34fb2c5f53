/*
 * The CLI's text on its way to stdout and stderr (see cli.h). Names,
 * messages, error details, warnings, search results and logs are what an
 * instance, a repository or a build chose, and a remote context may be
 * hostile: each goes through the client's terminal filter
 * (lc_terminal_text) here, whole, after formatting, so no escape sequence
 * or control character of theirs reaches the reader's terminal, whether
 * the output is one or a pipe (its reader may be less -R). What bypasses
 * the filter is the CLI's own: the escapes it writes itself (bold titles,
 * the progress line, search matches), and JSON (--json, `lectern api`),
 * which is the API's exact text for machines: cJSON escapes every control
 * below 0x20, and a C1 character there is data.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"

void cli_write(FILE *out, const char *text, size_t len, unsigned keep)
{
	char *copy;

	if (len == 0 || (copy = strndup(text, len)) == NULL)
		return;
	len = lc_terminal_text(copy, len, keep);
	fwrite(copy, 1, len, out);
	free(copy);
}

void cli_vprint(FILE *out, const char *fmt, va_list ap)
{
	char *text;
	int n = vasprintf(&text, fmt, ap);

	if (n < 0)
		return;
	fwrite(text, 1, lc_terminal_text(text, (size_t)n, LC_TERMINAL_TEXT),
	       out);
	free(text);
}

void cli_print(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vprint(out, fmt, ap);
	va_end(ap);
}

char *cli_line_copy(const char *text, size_t len)
{
	char *copy = strndup(text, len), *p;

	if (copy == NULL)
		return NULL;
	len = lc_terminal_text(copy, len, LC_TERMINAL_TEXT);
	for (p = copy; p < copy + len; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return copy;
}
