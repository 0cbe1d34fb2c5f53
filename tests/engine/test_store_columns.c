/*
 * Row tables (store_columns.c) and the tables built on them
 * (store_table.c): every column kind read from a value and from SQL NULL,
 * the SELECT list in the table's order with a nested row's columns in
 * place, the reader filling each member from its own column, the
 * disposer freeing what was read (ASan sees a leak or a double free),
 * a read that runs out of memory part way, and a table's get by id and by
 * text key, list in its order, and delete.
 */
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "lectern/store.h"
#include "store_internal.h"

enum shade { SHADE_NONE, SHADE_LIGHT, SHADE_DARK, SHADE_UNKNOWN };

/* SQL NULL is the NULL entry: "none". */
static const char *const shade_codes[] = { NULL, "light", "dark" };

struct inner {
	char *label;
	int64_t weight;
	int64_t twice; /* weight * 2, worked out by inner_finish */
};

struct item {
	int64_t id;
	int64_t size;  /* -1 for SQL NULL */
	int count;
	unsigned bits;
	size_t total;
	int flag;
	int64_t when;
	char *name;    /* "" for SQL NULL */
	char *note;    /* NULL for SQL NULL */
	enum shade shade;
	int read_calls;
	struct inner inner;
	char *extra;   /* freed by item_dispose; no column holds it */
};

static int inner_finish(void *p)
{
	struct inner *in = p;

	in->twice = in->weight * 2;
	return LEC_OK;
}

static int read_count(sqlite3_stmt *stmt, int col, void *p)
{
	struct item *it = p;

	it->read_calls += 1 + sqlite3_column_int(stmt, col);
	return LEC_OK;
}

static void item_dispose(void *p)
{
	lec__free(((struct item *)p)->extra);
}

static int item_finish(void *p)
{
	struct item *it = p;

	it->extra = lec__strdup("extra");
	return it->extra ? LEC_OK : lec__error_oom();
}

static const struct lec__column inner_columns[] = {
	LEC__TEXT(inner, label, "label"),
	LEC__INT64(inner, weight, "weight"),
};
static const struct lec__row inner_row =
	LEC__ROW(inner, inner_columns, inner_finish, NULL);

static const struct lec__column item_columns[] = {
	LEC__INT64(item, id, "id"),
	LEC__INT64_OR(item, size, "size", -1),
	LEC__INT(item, count, "count"),
	LEC__INT(item, bits, "bits"),
	LEC__SIZE(item, total, "total"),
	LEC__BOOL(item, flag, "flag"),
	LEC__TIME(item, when, "at"),
	LEC__TEXT(item, name, "name"),
	LEC__TEXT_OPT(item, note, "note"),
	LEC__CODE(item, shade, "shade", shade_codes, SHADE_UNKNOWN),
	LEC__READ("count", read_count),
	LEC__NESTED(item, inner, &inner_row),
};
static const struct lec__row item_row =
	LEC__ROW(item, item_columns, item_finish, item_dispose);

static const struct lec__table items = {
	.row = &item_row,
	.from = "items",
	.scope = "parent = ?",
	.id = "id = ?",
	.text = "name = ?",
	.order = "id DESC",
	.not_found = "No Item matches the given query.",
};

/* The same columns, but each its own constant: which member got which
 * expression shows the reader and the SELECT list in the same order. */
static const struct lec__column constant_inner_columns[] = {
	LEC__TEXT(inner, label, "'twenty-two'"),
	LEC__INT64(inner, weight, "23"),
};
static const struct lec__row constant_inner_row =
	LEC__ROW(inner, constant_inner_columns, inner_finish, NULL);
static const struct lec__column constant_columns[] = {
	LEC__INT64(item, id, "11"),
	LEC__INT64_OR(item, size, "12", -1),
	LEC__INT(item, count, "13"),
	LEC__INT(item, bits, "14"),
	LEC__SIZE(item, total, "15"),
	LEC__BOOL(item, flag, "16"),
	LEC__TIME(item, when, "17"),
	LEC__TEXT(item, name, "'eighteen'"),
	LEC__TEXT_OPT(item, note, "'nineteen'"),
	LEC__CODE(item, shade, "'dark'", shade_codes, SHADE_UNKNOWN),
	LEC__READ("21", read_count),
	LEC__NESTED(item, inner, &constant_inner_row),
};
static const struct lec__row constant_row =
	LEC__ROW(item, constant_columns, item_finish, item_dispose);

static struct lec_store *items_store(void)
{
	struct lec_store *st = lec_test_store();

	CHECK_OK(lec_store__exec(
		st, "CREATE TABLE items (id INTEGER PRIMARY KEY, parent "
		    "INTEGER, size INTEGER, count INTEGER, bits INTEGER, total "
		    "INTEGER, flag INTEGER, at INTEGER, name TEXT, note TEXT, "
		    "shade TEXT, label TEXT, weight INTEGER);"
		    "INSERT INTO items VALUES (1, 7, 4096, -3, 4000000000, "
		    "5000000000, 9, 1700000000000000, 'one', 'a note', 'dark', "
		    "'inner one', 21);"
		    "INSERT INTO items (id, parent) VALUES (2, 7);"
		    "INSERT INTO items (id, parent, name, shade) VALUES (3, 8, "
		    "'three', 'mauve')"));
	return st;
}

static int read_all(struct lec_store *st, struct item **out, size_t *len)
{
	struct lec__query q;
	int error;

	lec__query_init(&q, &item_row, "items");
	error = lec__query_list(st, &q, "id", NULL, (void **)out, len, NULL);
	lec__query_dispose(&q);
	return error;
}

TEST(select_list_in_table_order_with_nested_columns)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *sql;

	lec__row_select(&item_row, &b);
	sql = lec__buf_take(&b);
	CHECK_STR(sql, "id, size, count, bits, total, flag, at, name, note, "
		       "shade, count, label, weight");
	lec__free(sql);
}

TEST(reader_fills_each_member_from_its_own_column)
{
	struct lec_store *st = lec_test_store();
	struct lec__query q;
	struct item *it = NULL;

	lec__query_init(&q, &constant_row, "(SELECT 1)");
	CHECK_OK(lec__query_one(st, &q, (void **)&it));
	lec__query_dispose(&q);
	if (it == NULL) {
		lec_store_free(st);
		return;
	}
	CHECK_INT(it->id, 11);
	CHECK_INT(it->size, 12);
	CHECK_INT(it->count, 13);
	CHECK_INT(it->bits, 14);
	CHECK_INT(it->total, 15);
	CHECK_INT(it->flag, 1);
	CHECK_INT(it->when, 17);
	CHECK_STR(it->name, "eighteen");
	CHECK_STR(it->note, "nineteen");
	CHECK_INT(it->shade, SHADE_DARK);
	CHECK_INT(it->read_calls, 22);
	CHECK_STR(it->inner.label, "twenty-two");
	CHECK_INT(it->inner.weight, 23);
	CHECK_INT(it->inner.twice, 46);
	CHECK_STR(it->extra, "extra");
	lec__row_free(&constant_row, it);
	lec_store_free(st);
}

TEST(every_kind_from_a_value_and_from_null)
{
	struct lec_store *st = items_store();
	struct item *all = NULL;
	size_t len = 0;

	CHECK_OK(read_all(st, &all, &len));
	CHECK_INT(len, 3);
	if (len != 3) {
		lec__rows_free(&item_row, all, len);
		lec_store_free(st);
		return;
	}
	/* Values. */
	CHECK_INT(all[0].id, 1);
	CHECK_INT(all[0].size, 4096);
	CHECK_INT(all[0].count, -3);
	CHECK_INT(all[0].bits, 4000000000u);
	CHECK_INT(all[0].total, 5000000000);
	CHECK_INT(all[0].flag, 1); /* 9 reads as true */
	CHECK_INT(all[0].when, 1700000000000000);
	CHECK_STR(all[0].name, "one");
	CHECK_STR(all[0].note, "a note");
	CHECK_INT(all[0].shade, SHADE_DARK);
	CHECK_INT(all[0].read_calls, -2);
	CHECK_STR(all[0].inner.label, "inner one");
	CHECK_INT(all[0].inner.twice, 42);
	/* SQL NULL everywhere but the id. */
	CHECK_INT(all[1].size, -1);
	CHECK_INT(all[1].count, 0);
	CHECK_INT(all[1].bits, 0);
	CHECK_INT(all[1].total, 0);
	CHECK_INT(all[1].flag, 0);
	CHECK_INT(all[1].when, 0);
	CHECK_STR(all[1].name, "");
	CHECK(all[1].note == NULL);
	CHECK_INT(all[1].shade, SHADE_NONE);
	CHECK_STR(all[1].inner.label, "");
	CHECK_INT(all[1].inner.weight, 0);
	/* A code no entry names. */
	CHECK_INT(all[2].shade, SHADE_UNKNOWN);
	lec__rows_free(&item_row, all, len);
	lec__rows_free(&item_row, NULL, 0);
	lec__row_free(&item_row, NULL);
	lec_store_free(st);
}

TEST(read_out_of_memory_frees_what_it_read)
{
	struct lec_store *st = items_store();
	struct item *all = NULL;
	size_t len = 0;
	int n, error = LEC_ENOMEM;

	/* Fail each allocation in turn until the read succeeds: every
	 * failure is ENOMEM with nothing kept (ASan checks the frees). */
	for (n = 1; n < 200 && error == LEC_ENOMEM; n++) {
		lec__alloc_fail_after(n);
		error = read_all(st, &all, &len);
		lec__alloc_fail_after(0);
		if (error == LEC_ENOMEM) {
			CHECK(all == NULL);
			CHECK_INT(len, 0);
		}
	}
	CHECK_OK(error);
	CHECK_INT(len, 3);
	lec__rows_free(&item_row, all, len);
	lec_store_free(st);
}

TEST(table_get_list_and_delete)
{
	struct lec_store *st = items_store();
	struct item *it = NULL, *list = NULL;
	const int64_t parent = 7, other = 8;
	size_t len = 0, total = 0;
	struct lec_page page = { 1, 1 };

	CHECK_OK(lec__table_get(st, &items, &parent, 1, (void **)&it));
	CHECK(it && strcmp(it->name, "one") == 0);
	lec__row_free(&item_row, it);
	/* Out of its parent, or not there: the table's message. */
	CHECK_ERR(lec__table_get(st, &items, &other, 1, (void **)&it),
		  LEC_ENOTFOUND);
	CHECK(it == NULL);
	CHECK_STR(lec_error_last(), "No Item matches the given query.");
	CHECK_OK(lec__table_get(st, &items, NULL, 3, (void **)&it));
	lec__row_free(&item_row, it);
	CHECK_OK(lec__table_get_text(st, &items, &other, "three",
				     (void **)&it));
	CHECK(it && it->id == 3);
	lec__row_free(&item_row, it);
	/* The table's order, paged, the total ignoring the page. */
	CHECK_OK(lec__table_list(st, &items, &parent, &page, (void **)&list,
				 &len, &total));
	CHECK_INT(len, 1);
	CHECK_INT(total, 2);
	CHECK(len == 1 && list[0].id == 1);
	lec__rows_free(&item_row, list, len);
	CHECK_ERR(lec__table_delete(st, &items, other, 1), LEC_ENOTFOUND);
	CHECK_OK(lec__table_delete(st, &items, parent, 1));
	CHECK_ERR(lec__table_get(st, &items, NULL, 1, (void **)&it),
		  LEC_ENOTFOUND);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(select_list_in_table_order_with_nested_columns),
	TEST_ENTRY(reader_fills_each_member_from_its_own_column),
	TEST_ENTRY(every_kind_from_a_value_and_from_null),
	TEST_ENTRY(read_out_of_memory_frees_what_it_read),
	TEST_ENTRY(table_get_list_and_delete),
};

LEC_TEST_MAIN(tests)
