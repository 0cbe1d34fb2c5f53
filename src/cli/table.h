/*
 * Readable output for the CLI's commands: aligned tables with a header row,
 * colour and progress only where a person is watching (a TTY, and for
 * colour no NO_COLOR), so scripts reading a pipe get plain text.
 */
#ifndef LECTERN_CLI_TABLE_H
#define LECTERN_CLI_TABLE_H

#include <stdio.h>

/* Enough for every table the CLI prints. */
#define CLI_TABLE_MAX_COLS 10

struct cli_table {
	size_t ncols;
	char *header[CLI_TABLE_MAX_COLS];
	char **cells;  /* rows * ncols copies, row-major */
	size_t rows;
	int oom;       /* an allocation failed; print reports it */
	/* What a command's row function needs besides the item (borrowed),
	 * or NULL. */
	const void *payload;
};

/* Start a table with these column titles (NULL-terminated list). */
void cli_table_init(struct cli_table *t, const char *first, ...)
	__attribute__((sentinel));
/* Append one row; NULL-terminated, missing cells are empty, NULL values
 * inside are not possible (the first NULL ends the row). Cells pass the
 * terminal filter (lc_terminal_text), and their line breaks and tabs
 * become spaces, so one row is one line. */
void cli_table_row(struct cli_table *t, const char *first, ...)
	__attribute__((sentinel));
/* Print the table; returns a CLI_EXIT_* status. */
int cli_table_print(const struct cli_table *t, FILE *out);
void cli_table_dispose(struct cli_table *t);

/* A time for a table's cell: local time to the second ("2026-08-22
 * 14:05:09"), read from the API's ISO 8601 text (any fraction of a second
 * and zone; none means UTC, as v2 sends it). Text that is no such time is
 * kept as it is. Returns buf. */
#define CLI_TIME_CELL_MAX 32
const char *cli_time_cell(const char *iso, char buf[CLI_TIME_CELL_MAX]);

/* Whether to colour what goes to `out`: a TTY and no NO_COLOR. */
int cli_use_color(FILE *out);
/* Whether to draw progress on stderr: it is a TTY. */
int cli_use_progress(void);

#endif
