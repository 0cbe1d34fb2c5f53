/*
 * Rows described once: a resource's row table lists its columns (the SQL
 * expression, the C type of the member it fills and the member's offset),
 * and the SELECT list, the reader and the disposer all come from it.
 *
 * Before, each resource had a hand-written reader whose sqlite3_column_*
 * indices had to match a separate column string by hand, and a disposer
 * that had to name every text member again; adding a field touched all
 * three, and a column moved in one but not another read the wrong value.
 * Here the reader walks the table with its own index, so the order of the
 * SELECT list is the order read, and the disposer frees exactly the text
 * members the table names. store_internal.h has the macros that write a
 * table's entries, checking each member's type at compile time.
 */
#include <string.h>

#include "store_internal.h"

void lec__row_select(const struct lec__row *row, struct lec__buf *b)
{
	size_t i;

	for (i = 0; i < row->ncolumns; i++) {
		const struct lec__column *c = &row->columns[i];

		if (i > 0)
			lec__buf_puts(b, ", ");
		if (c->kind == LEC__COL_NESTED)
			lec__row_select(c->nested, b);
		else
			lec__buf_puts(b, c->sql);
	}
}

/* The index of text in the column's codes: a NULL entry matches SQL NULL;
 * if_null when no entry does. */
static int code_of(const struct lec__column *c, const char *text)
{
	size_t i;

	for (i = 0; i < c->ncodes; i++)
		if (text ? c->codes[i] && strcmp(text, c->codes[i]) == 0
			 : c->codes[i] == NULL)
			return (int)i;
	return (int)c->if_null;
}

/* Copy a text column that is never NULL: "" for SQL NULL. */
static int text_never_null(sqlite3_stmt *stmt, int col, char **out)
{
	int error = lec_store__col_text(stmt, col, out);

	if (error == LEC_OK && *out == NULL)
		*out = lec__strdup("");
	return error == LEC_OK && *out == NULL ? lec__error_oom() : error;
}

/* Fill one column's member (not a nested one). */
static int read_column(const struct lec__column *c, sqlite3_stmt *stmt,
		       int col, unsigned char *item)
{
	void *member = item + c->offset;
	int null = sqlite3_column_type(stmt, col) == SQLITE_NULL;

	switch (c->kind) {
	case LEC__COL_INT64:
		*(int64_t *)member = null ? c->if_null
					  : sqlite3_column_int64(stmt, col);
		return LEC_OK;
	case LEC__COL_INT:
		*(int *)member = sqlite3_column_int(stmt, col);
		return LEC_OK;
	case LEC__COL_SIZE:
		*(size_t *)member = (size_t)sqlite3_column_int64(stmt, col);
		return LEC_OK;
	case LEC__COL_BOOL:
		*(int *)member = sqlite3_column_int(stmt, col) != 0;
		return LEC_OK;
	case LEC__COL_TIME:
		*(int64_t *)member = sqlite3_column_int64(stmt, col);
		return LEC_OK;
	case LEC__COL_TEXT:
		return text_never_null(stmt, col, member);
	case LEC__COL_TEXT_OPT:
		return lec_store__col_text(stmt, col, member);
	case LEC__COL_CODE:
		*(int *)member = code_of(
			c, (const char *)sqlite3_column_text(stmt, col));
		return LEC_OK;
	case LEC__COL_READ:
		return c->read(stmt, col, item);
	case LEC__COL_NESTED:
		break;
	}
	return lec__error(LEC_ERROR, "column %d: no reader for its kind", col);
}

/* Read row's columns from *col on, advancing it past them. */
static int read_from(const struct lec__row *row, sqlite3_stmt *stmt,
		     int *col, unsigned char *item)
{
	size_t i;
	int error;

	for (i = 0; i < row->ncolumns; i++) {
		const struct lec__column *c = &row->columns[i];

		if (c->kind == LEC__COL_NESTED)
			error = read_from(c->nested, stmt, col,
					  item + c->offset);
		else
			error = read_column(c, stmt, (*col)++, item);
		if (error < 0)
			return error;
	}
	return row->finish ? row->finish(item) : LEC_OK;
}

int lec__row_read(const struct lec__row *row, sqlite3_stmt *stmt, void *item)
{
	int col = 0;

	return read_from(row, stmt, &col, item);
}

void lec__row_dispose(const struct lec__row *row, void *item)
{
	unsigned char *p = item;
	size_t i;

	if (item == NULL)
		return;
	for (i = 0; i < row->ncolumns; i++) {
		const struct lec__column *c = &row->columns[i];

		if (c->kind == LEC__COL_TEXT || c->kind == LEC__COL_TEXT_OPT)
			lec__free(*(char **)(p + c->offset));
		else if (c->kind == LEC__COL_NESTED)
			lec__row_dispose(c->nested, p + c->offset);
	}
	if (row->dispose)
		row->dispose(item);
}

void lec__row_free(const struct lec__row *row, void *item)
{
	lec__row_dispose(row, item);
	lec__free(item);
}

void lec__rows_free(const struct lec__row *row, void *items, size_t len)
{
	unsigned char *p = items;
	size_t i;

	for (i = 0; p && i < len; i++)
		lec__row_dispose(row, p + i * row->size);
	lec__free(items);
}

void lec__list_dispose(const struct lec__row *row, void *items, size_t len,
		       void *list, size_t size)
{
	if (list == NULL)
		return;
	lec__rows_free(row, items, len);
	memset(list, 0, size);
}

int lec_store__col_text(sqlite3_stmt *stmt, int col, char **out)
{
	const unsigned char *text = sqlite3_column_text(stmt, col);

	*out = NULL;
	if (text == NULL)
		return LEC_OK;
	*out = lec__strndup((const char *)text,
			    (size_t)sqlite3_column_bytes(stmt, col));
	LEC__CHECK_ALLOC(*out);
	return LEC_OK;
}
