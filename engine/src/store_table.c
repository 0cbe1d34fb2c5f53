/*
 * A resource's table as its gets, lists and deletes read it: the row
 * table, the FROM, the conditions a get looks a row up by (its parent, its
 * id, its text key), the list order and the message for a row that is not
 * there.
 *
 * Each resource used to write its get and list out in full (start the
 * query, add the conditions, read one row or a page, map "not found" to
 * its message), the same fifteen lines for environment variables,
 * redirects, webhooks and the rest. One path here serves them all; a
 * module keeps a thin typed wrapper, and writes its own query only for
 * what is its own (filters, joins, a formatted message).
 */
#include "store_internal.h"

void lec__table_query(struct lec__query *q, const struct lec__table *t)
{
	lec__query_init(q, t->row, t->from);
}

/* Read what each of the len rows holds from other tables. */
static int load_rows(struct lec_store *st, const struct lec__table *t,
		     unsigned char *items, size_t len)
{
	size_t i;
	int error = LEC_OK;

	for (i = 0; t->load && error == LEC_OK && i < len; i++)
		error = t->load(st, items + i * t->row->size);
	return error;
}

int lec__table_rows(struct lec_store *st, const struct lec__table *t,
		    struct lec__query *q, const struct lec_page *page,
		    void **items, size_t *len, size_t *total)
{
	int error = lec__query_list(st, q, t->order, page, items, len, total);

	lec__query_dispose(q);
	if (error == LEC_OK && (error = load_rows(st, t, *items, *len)) < 0) {
		lec__rows_free(t->row, *items, *len);
		*items = NULL;
		*len = 0;
	}
	return error;
}

/* LEC_ENOTFOUND, with the table's message when it has one. */
static int not_found(const struct lec__table *t)
{
	return t->not_found ? lec__error(LEC_ENOTFOUND, "%s", t->not_found)
			    : LEC_ENOTFOUND;
}

int lec__table_one(struct lec_store *st, const struct lec__table *t,
		   struct lec__query *q, void **out)
{
	int error = lec__query_one(st, q, out);

	lec__query_dispose(q);
	if (error == LEC_OK && (error = load_rows(st, t, *out, 1)) < 0) {
		lec__row_free(t->row, *out);
		*out = NULL;
	}
	return error == LEC_ENOTFOUND ? not_found(t) : error;
}

/* A query of t, of parent *scope when scope is not NULL. */
static void query_in(struct lec__query *q, const struct lec__table *t,
		     const int64_t *scope)
{
	lec_error_clear();
	lec__table_query(q, t);
	if (scope)
		lec__query_where_int(q, t->scope, *scope);
}

int lec__table_get(struct lec_store *st, const struct lec__table *t,
		   const int64_t *scope, int64_t id, void **out)
{
	struct lec__query q;

	query_in(&q, t, scope);
	lec__query_where_int(&q, t->id, id);
	return lec__table_one(st, t, &q, out);
}

int lec__table_get_text(struct lec_store *st, const struct lec__table *t,
			const int64_t *scope, const char *text, void **out)
{
	struct lec__query q;

	query_in(&q, t, scope);
	lec__query_where_text(&q, t->text, text);
	return lec__table_one(st, t, &q, out);
}

int lec__table_list(struct lec_store *st, const struct lec__table *t,
		    const int64_t *scope, const struct lec_page *page,
		    void **items, size_t *len, size_t *total)
{
	struct lec__query q;

	query_in(&q, t, scope);
	return lec__table_rows(st, t, &q, page, items, len, total);
}

int lec__table_delete(struct lec_store *st, const struct lec__table *t,
		      int64_t scope, int64_t id)
{
	struct lec__buf b = LEC__BUF_INIT;
	const int64_t v[2] = { scope, id };
	char *sql, *what;
	int changes = 0, error;

	lec_error_clear();
	lec__buf_printf(&b, "deleting from %s", t->from);
	if ((what = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	lec__buf_printf(&b, "DELETE FROM %s WHERE %s AND %s", t->from,
			t->scope, t->id);
	if ((sql = lec__buf_take(&b)) == NULL) {
		lec__free(what);
		return LEC_ENOMEM;
	}
	error = lec_store__exec_ints(st, sql, v, 2, what, &changes);
	lec__free(sql);
	lec__free(what);
	return error == LEC_OK && changes == 0 ? not_found(t) : error;
}
