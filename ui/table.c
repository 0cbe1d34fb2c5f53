/*
 * Tables (see table.h). Column widths are fixed per screen except one
 * flexible column that takes the rest, so a resize never reflows the
 * data, only that column's cut.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "table.h"

/* Spaces between columns. */
#define COLUMN_GAP 1
/* A cell is one line of a list; text past any screen's width is cut when
 * drawn anyway. */
#define MAX_CELL 512

void ui_table_init(struct ui_table *t, const struct ui_column *cols,
		   size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols < UI_TABLE_MAX_COLS ? ncols : UI_TABLE_MAX_COLS;
}

static void row_dispose(struct ui_row *r)
{
	size_t i;

	for (i = 0; i < UI_TABLE_MAX_COLS; i++)
		free(r->cells[i]);
	free(r->key);
}

void ui_table_clear(struct ui_table *t)
{
	size_t i;

	for (i = 0; i < t->len; i++)
		row_dispose(&t->rows[i]);
	t->len = 0;
	t->nshown = 0;
}

void ui_table_dispose(struct ui_table *t)
{
	ui_table_clear(t);
	free(t->rows);
	free(t->shown);
	free(t->filter);
	memset(t, 0, sizeof(*t));
}

struct ui_row *ui_table_add(struct ui_table *t)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->rows = ui_xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	memset(&t->rows[t->len], 0, sizeof(t->rows[0]));
	return &t->rows[t->len++];
}

void ui_row_set(struct ui_row *r, size_t col, enum ui_slot slot,
		const char *fmt, ...)
{
	char text[MAX_CELL];
	va_list ap;

	if (col >= UI_TABLE_MAX_COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ui_set_str(&r->cells[col], text);
	r->slots[col] = slot;
}

static int row_matches(const struct ui_table *t, const struct ui_row *r)
{
	size_t i;

	if (t->filter == NULL)
		return 1;
	for (i = 0; i < t->ncols; i++)
		if (r->cells[i] && ui_contains_nocase(r->cells[i], t->filter))
			return 1;
	return 0;
}

void ui_table_filter(struct ui_table *t, const char *filter)
{
	size_t i;

	if (filter != t->filter)
		ui_set_str(&t->filter, filter && *filter ? filter : NULL);
	t->shown = ui_xrealloc(t->shown, (t->len ? t->len : 1) *
					      sizeof(*t->shown));
	t->nshown = 0;
	for (i = 0; i < t->len; i++)
		if (row_matches(t, &t->rows[i]))
			t->shown[t->nshown++] = i;
}

struct ui_row *ui_table_row(const struct ui_table *t, size_t n)
{
	return n < t->nshown ? &t->rows[t->shown[n]] : NULL;
}

int ui_table_col_width(const struct ui_table *t, size_t i, int width)
{
	int fixed = 0;
	size_t j;

	if (t->cols[i].width > 0)
		return t->cols[i].width;
	for (j = 0; j < t->ncols; j++)
		fixed += t->cols[j].width + COLUMN_GAP;
	return width - fixed > 1 ? width - fixed : 1;
}

void ui_table_draw_header(const struct ui_table *t, WINDOW *w, int y,
			  int width)
{
	int x = 0, cw, attr = ui_attr(UI_SLOT_HEADER);
	size_t i;

	ui_draw_fill(w, y, 0, width, attr);
	for (i = 0; i < t->ncols && x < width; i++) {
		cw = ui_table_col_width(t, i, width);
		if (cw > width - x)
			cw = width - x;
		ui_draw_text(w, y, x, cw, t->cols[i].title, attr);
		x += cw + COLUMN_GAP;
	}
}

void ui_table_draw_row(const struct ui_table *t, WINDOW *w, int y, int width,
		       size_t n, int selected)
{
	const struct ui_row *r = ui_table_row(t, n);
	int x = 0, cw, base = ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL);
	int attr, match = ui_attr(UI_SLOT_MATCH);
	size_t i;

	ui_draw_fill(w, y, 0, width, base);
	if (r == NULL)
		return;
	for (i = 0; i < t->ncols && x < width; i++) {
		cw = ui_table_col_width(t, i, width);
		if (cw > width - x)
			cw = width - x;
		attr = selected || r->slots[i] == UI_SLOT_NORMAL
			       ? base
			       : ui_attr(r->slots[i]);
		if (r->cells[i])
			ui_draw_match(w, y, x, cw, r->cells[i], attr, t->filter,
				      selected ? base : match);
		x += cw + COLUMN_GAP;
	}
}
