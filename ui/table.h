/*
 * The rows-and-columns lists most screens are: cells of text, each with a
 * colour slot, a column header, and a `/` filter that keeps the rows any
 * of whose cells contains the text. Views fill a table from the API's
 * answers and let the generic list navigation move over its shown rows.
 */
#ifndef LECTERN_UI_TABLE_H
#define LECTERN_UI_TABLE_H

#include <curses.h>
#include <stddef.h>

#include "theme.h"
#include "util.h"

/* The widest table: the builds list's eleven columns. */
#define UI_TABLE_MAX_COLS 12

struct ui_column {
	const char *title;
	int width; /* columns; 0: whatever the others leave */
};

struct ui_row {
	char *cells[UI_TABLE_MAX_COLS]; /* owned; NULL draws nothing */
	enum ui_slot slots[UI_TABLE_MAX_COLS];
	long long id;                   /* the item's id, for the view */
	char *key;                      /* the item's slug, for the view */
};

struct ui_table {
	const struct ui_column *cols;
	size_t ncols;
	struct ui_row *rows;
	size_t len, cap;
	size_t *shown;  /* indexes of the rows the filter keeps */
	size_t nshown;
	char *filter;   /* owned, or NULL */
};

void ui_table_init(struct ui_table *t, const struct ui_column *cols,
		   size_t ncols);
/* Drop every row (the filter stays). */
void ui_table_clear(struct ui_table *t);
void ui_table_dispose(struct ui_table *t);
/* A new empty row at the end; valid until the next add or clear. */
struct ui_row *ui_table_add(struct ui_table *t);
/* Set a cell's text (formatted) and slot. */
void ui_row_set(struct ui_row *r, size_t col, enum ui_slot slot,
		const char *fmt, ...) UI_PRINTF(4, 5);
/* Apply (or, with NULL/"", remove) the filter; call after filling too. */
void ui_table_filter(struct ui_table *t, const char *filter);
/* The n-th shown row, or NULL. */
struct ui_row *ui_table_row(const struct ui_table *t, size_t n);
/* The width of column i when the table is width columns wide. */
int ui_table_col_width(const struct ui_table *t, size_t i, int width);
/* Draw the header line, then the n-th shown row (selected: the cursor). */
void ui_table_draw_header(const struct ui_table *t, WINDOW *w, int y,
			  int width);
void ui_table_draw_row(const struct ui_table *t, WINDOW *w, int y, int width,
		       size_t n, int selected);

#endif
