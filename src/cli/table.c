/*
 * Aligned text tables (see table.h). Cells are copied as rows arrive,
 * through the terminal filter (they are an instance's text), and
 * measured when printed, so a column is as wide as its widest cell; the
 * last column is not padded, so lines carry no trailing spaces.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "table.h"

void cli_table_init(struct cli_table *t, const char *first, ...)
{
	const char *title;
	va_list ap;

	memset(t, 0, sizeof(*t));
	va_start(ap, first);
	for (title = first; title && t->ncols < CLI_TABLE_MAX_COLS;
	     title = va_arg(ap, const char *)) {
		if ((t->header[t->ncols++] = strdup(title)) == NULL)
			t->oom = 1;
	}
	va_end(ap);
}

void cli_table_row(struct cli_table *t, const char *first, ...)
{
	const char *value = first;
	char **grown;
	size_t i;
	va_list ap;

	grown = realloc(t->cells, (t->rows + 1) * t->ncols * sizeof(*grown));
	if (grown == NULL) {
		t->oom = 1;
		return;
	}
	t->cells = grown;
	grown += t->rows * t->ncols;
	va_start(ap, first);
	for (i = 0; i < t->ncols; i++) {
		grown[i] = cli_line_copy(value ? value : "",
					 value ? strlen(value) : 0);
		if (grown[i] == NULL)
			t->oom = 1;
		if (value)
			value = va_arg(ap, const char *);
	}
	va_end(ap);
	t->rows++;
}

static void print_line(char *const *cells, const size_t *width, size_t ncols,
		       FILE *out)
{
	size_t i;

	for (i = 0; i < ncols; i++) {
		const char *cell = cells[i] ? cells[i] : "";

		if (i + 1 < ncols)
			fprintf(out, "%-*s  ", (int)width[i], cell);
		else
			fprintf(out, "%s\n", cell);
	}
}

int cli_table_print(const struct cli_table *t, FILE *out)
{
	size_t width[CLI_TABLE_MAX_COLS] = { 0 };
	size_t r, i;
	int color = cli_use_color(out);

	if (t->oom)
		return cli_fail("out of memory");
	for (i = 0; i < t->ncols; i++)
		width[i] = strlen(t->header[i]);
	for (r = 0; r < t->rows; r++)
		for (i = 0; i < t->ncols; i++) {
			size_t n = strlen(t->cells[r * t->ncols + i]);

			if (n > width[i])
				width[i] = n;
		}
	/* Bold titles; the escape codes stay outside the padding. */
	if (color)
		fputs("\033[1m", out);
	print_line(t->header, width, t->ncols, out);
	if (color)
		fputs("\033[0m", out);
	for (r = 0; r < t->rows; r++)
		print_line(t->cells + r * t->ncols, width, t->ncols, out);
	return ferror(out) ? cli_fail("cannot write the output")
			   : CLI_EXIT_OK;
}

void cli_table_dispose(struct cli_table *t)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		free(t->header[i]);
	for (i = 0; t->cells && i < t->rows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* The zone at the end of an ISO 8601 time, as seconds east of UTC: "Z",
 * "+02:00", "-0530" or nothing (UTC); -1 for anything else. */
static long zone_offset(const char *z, int *ok)
{
	int hh, mm, n = 0;

	*ok = 1;
	if (*z == '\0' || strcmp(z, "Z") == 0)
		return 0;
	if ((*z == '+' || *z == '-') &&
	    (sscanf(z + 1, "%2d:%2d%n", &hh, &mm, &n) == 2 ||
	     sscanf(z + 1, "%2d%2d%n", &hh, &mm, &n) == 2) &&
	    z[1 + n] == '\0')
		return (*z == '-' ? -1L : 1L) * (hh * 3600L + mm * 60L);
	*ok = 0;
	return 0;
}

const char *cli_time_cell(const char *iso, char buf[CLI_TIME_CELL_MAX])
{
	struct tm tm = { 0 };
	const char *rest;
	time_t when;
	long offset;
	int n = 0, ok;

	snprintf(buf, CLI_TIME_CELL_MAX, "%s", iso ? iso : "");
	if (iso == NULL ||
	    sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return buf;
	rest = iso + n;
	if (*rest == '.')
		for (rest++; isdigit((unsigned char)*rest); rest++)
			;
	offset = zone_offset(rest, &ok);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if (!ok || (when = timegm(&tm)) == (time_t)-1)
		return buf;
	when -= offset;
	if (localtime_r(&when, &tm) == NULL ||
	    strftime(buf, CLI_TIME_CELL_MAX, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, CLI_TIME_CELL_MAX, "%s", iso);
	return buf;
}

int cli_use_color(FILE *out)
{
	const char *no = getenv("NO_COLOR");

	/* no-color.org: any non-empty value turns colour off. */
	return isatty(fileno(out)) && !(no && *no);
}

int cli_use_progress(void)
{
	return isatty(STDERR_FILENO);
}
