/*
 * What engine modules share about the store: the handle's layout, SQLite
 * error mapping, transactions, column/bind helpers, row tables (each
 * resource's columns described once: its SELECT list, reader and disposer
 * come from them), a small query builder for filtered and paged lists, and
 * tables, the generic get, list and delete over a row table. Modules
 * (user.c, project.c, ...) build their typed API on these; nothing outside
 * engine/src sees them.
 */
#ifndef LECTERN_STORE_INTERNAL_H
#define LECTERN_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "internal.h"
#include "lectern/store.h"
#include "lectern/user.h"

/* Prepared statements kept per handle, by SQL text: preparing (parsing and
 * planning) costs more than running the small queries the API makes. */
#define LEC_STORE_STMT_CACHE 64

struct lec_store_cached_stmt {
	char *sql;          /* owned */
	const char *caller; /* the caller's pointer last seen for sql, not
			       owned: call sites pass literals, so comparing
			       it first skips hashing the text */
	uint64_t hash;      /* of sql */
	sqlite3_stmt *stmt; /* NULL when the slot is empty */
	int in_use;         /* handed out and not yet given back */
	uint64_t last_used; /* the handle's clock at the last hand-out */
};

/* Tokens verified per handle (lec_token_authenticate): a client sends
 * the same token with every request, and the database lookup behind it
 * cost more than serving a remembered response. A few slots cover the
 * clients of one server thread; a colliding token replaces the older. */
#define LEC_STORE_TOKEN_MEMO 8

/* One verified token: its SHA-256 (what the tokens table holds, never
 * the token itself) and its user as read at data_version; any write to
 * the database, a revocation or a deactivation included, moves the data
 * version and the slot stops matching. */
struct lec_store_token_memo {
	char hash[LEC__SHA256_HEX_LEN + 1]; /* "" when the slot is empty */
	uint64_t data_version;
	struct lec_user user;               /* strings owned: lec_store_free
					       disposes it with lec__user_row */
};

struct lec_store {
	sqlite3 *db;
	char *path;
	char *data_dir; /* directory of the database file */
	struct lec_store_cached_stmt stmts[LEC_STORE_STMT_CACHE];
	uint64_t stmt_clock;
	struct lec_store_token_memo tokens[LEC_STORE_TOKEN_MEMO];
	/* The connection's remembered search postings (search_postings.c;
	 * owned by the connection's FTS5 function), NULL until the first
	 * search. */
	struct lec__search_memo *search_memo;
};

/* The id of a token whose user is active (user.c), for a session logged
 * in with it (session.c): LEC_OK, LEC_ENOTFOUND (no such token, or
 * malformed) or LEC_EAUTH (the user is inactive). */
int lec__token_check(struct lec_store *st, const char *token,
		     int64_t *token_id);

/* The row tables of a user (struct lec_user) and of a bare username
 * (char *), both over a users table aliased u (user.c): what a project's
 * maintainers and an organization's members are read with. */
extern const struct lec__row lec__user_row;
extern const struct lec__row lec__username_row;

/* The tables of projects (projects p, with their tags and maintainers),
 * versions and builds (project.c, version.c, build.c): what lists across
 * projects read them with (public_lists.c). */
extern const struct lec__table lec__projects;
extern const struct lec__table lec__versions;
extern const struct lec__table lec__builds;

/* Map an SQLite result code to an engine code with a message naming what
 * was being done; returns the engine code. */
int lec_store__sqlerr(struct lec_store *st, int rc, const char *what);

/* Prepare one statement (from the handle's cache when it has it); on
 * failure sets the error. Give it back with lec_store__finalize. */
int lec_store__prepare(struct lec_store *st, sqlite3_stmt **out,
		       const char *sql);
/* Give back a statement from lec_store__prepare: a cached one is reset for
 * its next use, any other finalized. Accepts NULL. */
void lec_store__finalize(struct lec_store *st, sqlite3_stmt *stmt);

/* Prepare sql (as lec_store__prepare) and bind the n integers of v to
 * ?1..?n. */
int lec_store__prepare_ints(struct lec_store *st, sqlite3_stmt **stmt,
			    const char *sql, const int64_t *v, int n);

/* Run SQL without results (no parameters). */
int lec_store__exec(struct lec_store *st, const char *sql);

/* Write transactions: BEGIN IMMEDIATE takes the write lock at once so that a
 * busy database is reported before any work is done. */
int lec_store__begin(struct lec_store *st);
int lec_store__commit(struct lec_store *st);
void lec_store__rollback(struct lec_store *st);
/* End the write transaction as error says: roll back and return it when
 * it is negative, else commit (and return the commit's code). */
int lec_store__end(struct lec_store *st, int error);
/* fn(st, arg) in one write transaction, committed when it returns LEC_OK
 * or also_commit (an error whose writes must stay, 0: none), rolled back
 * otherwise; fn's result (or the commit's error). */
int lec_store__write(struct lec_store *st, int (*fn)(struct lec_store *st,
						     void *arg),
		     void *arg, int also_commit);

/* A sender's lease (lec_store__lease): take, in the write transaction,
 * fills out with the item due at now_us and leases it until until_us. */
struct lec__lease {
	int64_t now_us;
	int64_t until_us;
	void *out;
	int (*take)(struct lec_store *st, const struct lec__lease *lease);
};

/* Take the next due item for a sender into out (size bytes, zeroed
 * first), leased lease_ms: one write transaction from the choice to the
 * lease, so that two senders on one data directory never take the same
 * item; committed also on LEC_ECORRUPT, so that an item take failed for
 * good stays failed. LEC_ENOTFOUND (none due) leaves no message. On
 * failure out may hold what take filled: the caller disposes it. */
int lec_store__lease(struct lec_store *st, int64_t now_us, unsigned lease_ms,
		     int (*take)(struct lec_store *st,
				 const struct lec__lease *lease),
		     void *out, size_t size);

/* Step a statement that must finish with SQLITE_DONE. */
int lec_store__step_done(struct lec_store *st, sqlite3_stmt *stmt,
			 const char *what);

/* Run sql with the n integers bound to ?1..?n; *changes (may be NULL) gets
 * how many rows it changed. what names the operation in errors. */
int lec_store__exec_ints(struct lec_store *st, const char *sql,
			 const int64_t *v, int n, const char *what,
			 int *changes);
/* The first column of sql's first row (ints bound as above), 0 when there
 * is no row; *found (may be NULL) says whether there was one. */
int lec_store__query_int(struct lec_store *st, const char *sql,
			 const int64_t *v, int n, const char *what,
			 int64_t *out, int *found);
/* The same for a text column: *out a copy (owned by the caller), NULL for
 * SQL NULL or when there is no row. */
int lec_store__query_text(struct lec_store *st, const char *sql,
			  const int64_t *v, int n, const char *what,
			  char **out, int *found);

/* LEC_OK when the project with this id exists, else LEC_ENOTFOUND ("no
 * project with id N") or the store's error: what a resource hanging from a
 * project checks before it is added (project.c). */
int lec__project_exists(struct lec_store *st, int64_t project_id);

/* Columns and binds ---------------------------------------------------- */

/* Copy a text column into *out (NULL for SQL NULL). */
int lec_store__col_text(sqlite3_stmt *stmt, int col, char **out);
/* Bind text, or NULL when s is NULL. */
int lec_store__bind_text(sqlite3_stmt *stmt, int idx, const char *s);

/* Rows described once (store_columns.c) ------------------------------- */

/* What a column fills, and what SQL NULL reads as. */
enum lec__col_kind {
	LEC__COL_INT64,    /* int64_t; NULL: if_null */
	LEC__COL_INT,      /* int or unsigned; NULL: 0 */
	LEC__COL_SIZE,     /* size_t; NULL: 0 */
	LEC__COL_BOOL,     /* int, 0 or 1; NULL: 0 */
	LEC__COL_TIME,     /* int64_t, microseconds since the epoch; NULL: 0 */
	LEC__COL_TEXT,     /* char *, owned, never NULL: NULL reads "" */
	LEC__COL_TEXT_OPT, /* char *, owned; NULL stays NULL */
	LEC__COL_CODE,     /* an enum: the index of the text in codes (a NULL
			      entry stands for SQL NULL), if_null when none */
	LEC__COL_READ,     /* what read() makes of it (the row's dispose
			      frees what it allocates) */
	LEC__COL_NESTED,   /* a struct member with a row table of its own, its
			      columns in place of this one */
};

struct lec__row;

/* One column of a row table: its SELECT expression and the member of the
 * row's struct it fills. Written with the LEC__INT64() ... macros below,
 * which check the member's C type against the kind at compile time. */
struct lec__column {
	const char *sql;
	enum lec__col_kind kind;
	size_t offset;            /* of the member in the row's struct */
	int64_t if_null;          /* LEC__COL_INT64, LEC__COL_CODE */
	const char *const *codes; /* LEC__COL_CODE: ncodes texts, enum order */
	size_t ncodes;
	/* LEC__COL_READ: fill item, the row's whole struct, from column col */
	int (*read)(sqlite3_stmt *stmt, int col, void *item);
	const struct lec__row *nested; /* LEC__COL_NESTED */
};

/* A row table: the SELECT list, the reader (sqlite3_column_* by the
 * table's own index, so the list and the reader cannot disagree) and the
 * disposer (frees the text members) all come from its columns. */
struct lec__row {
	const struct lec__column *columns;
	size_t ncolumns;
	size_t size; /* of the struct a row fills */
	/* Members no column fills, worked out once the columns are read (a
	 * check may fail the row); NULL: none. */
	int (*finish)(void *item);
	/* Frees what the columns' members do not hold; NULL: nothing. */
	void (*dispose)(void *item);
};

#define LEC__COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* In the macros below T is the tag of the row's struct (lec_envvar for
 * struct lec_envvar), m a member of it. */

/* offsetof(struct T, m), refused at compile time unless m is a ctype. */
#define LEC__MEMBER(T, m, ctype)                                             \
	_Generic(((struct T *)0)->m, ctype: offsetof(struct T, m))
/* offsetof(struct T, m), refused unless m has an int's size (an enum). */
#define LEC__MEMBER_INT_SIZED(T, m)                                          \
	(offsetof(struct T, m) +                                             \
	 0 * sizeof(char[sizeof(((struct T *)0)->m) == sizeof(int) ? 1 : -1]))

#define LEC__INT64(T, m, expr)                                               \
	{ .sql = (expr), .kind = LEC__COL_INT64,                             \
	  .offset = LEC__MEMBER(T, m, int64_t) }
#define LEC__INT64_OR(T, m, expr, null_value)                                \
	{ .sql = (expr), .kind = LEC__COL_INT64,                             \
	  .offset = LEC__MEMBER(T, m, int64_t), .if_null = (null_value) }
#define LEC__INT(T, m, expr)                                                 \
	{ .sql = (expr), .kind = LEC__COL_INT,                               \
	  .offset = _Generic(((struct T *)0)->m, int: offsetof(struct T, m), \
			     unsigned: offsetof(struct T, m)) }
#define LEC__SIZE(T, m, expr)                                                \
	{ .sql = (expr), .kind = LEC__COL_SIZE,                              \
	  .offset = LEC__MEMBER(T, m, size_t) }
#define LEC__BOOL(T, m, expr)                                                \
	{ .sql = (expr), .kind = LEC__COL_BOOL,                              \
	  .offset = LEC__MEMBER(T, m, int) }
#define LEC__TIME(T, m, expr)                                                \
	{ .sql = (expr), .kind = LEC__COL_TIME,                              \
	  .offset = LEC__MEMBER(T, m, int64_t) }
#define LEC__TEXT(T, m, expr)                                                \
	{ .sql = (expr), .kind = LEC__COL_TEXT,                              \
	  .offset = LEC__MEMBER(T, m, char *) }
#define LEC__TEXT_OPT(T, m, expr)                                            \
	{ .sql = (expr), .kind = LEC__COL_TEXT_OPT,                          \
	  .offset = LEC__MEMBER(T, m, char *) }
/* codes: an array (not a pointer) of the enum's texts in its order. */
#define LEC__CODE(T, m, expr, code_texts, unknown)                           \
	{ .sql = (expr), .kind = LEC__COL_CODE,                              \
	  .offset = LEC__MEMBER_INT_SIZED(T, m), .if_null = (unknown),      \
	  .codes = (code_texts), .ncodes = LEC__COUNT(code_texts) }
#define LEC__READ(expr, fn)                                                  \
	{ .sql = (expr), .kind = LEC__COL_READ, .read = (fn) }
#define LEC__NESTED(T, m, row_table)                                         \
	{ .kind = LEC__COL_NESTED, .offset = offsetof(struct T, m),          \
	  .nested = (row_table) }

#define LEC__ROW(T, column_table, finish_fn, dispose_fn)                     \
	{ (column_table), LEC__COUNT(column_table), sizeof(struct T),        \
	  (finish_fn), (dispose_fn) }
/* A row of one bare value (a char * or an int64_t). */
#define LEC__ROW_OF(ctype, column_table)                                     \
	{ (column_table), LEC__COUNT(column_table), sizeof(ctype), NULL, NULL }

/* Append the row's SELECT list ("a, b, ...") to b. */
void lec__row_select(const struct lec__row *row, struct lec__buf *b);
/* Fill item (row->size bytes, zeroed) from the statement's columns in the
 * table's order, then finish it. On failure item still owns what was
 * filled: dispose it. */
int lec__row_read(const struct lec__row *row, sqlite3_stmt *stmt,
		  void *item);
/* Free what item owns (not item itself). Accepts NULL. */
void lec__row_dispose(const struct lec__row *row, void *item);
/* Dispose item, then free it. Accepts NULL. */
void lec__row_free(const struct lec__row *row, void *item);
/* Dispose each of len items, then free the array. Accepts NULL. */
void lec__rows_free(const struct lec__row *row, void *items, size_t len);
/* What every public list's _dispose does: free its len items, then zero
 * the list (size bytes); a NULL list is left alone. */
void lec__list_dispose(const struct lec__row *row, void *items, size_t len,
		       void *list, size_t size);
#define LEC__LIST_DISPOSE(row, list)                                         \
	lec__list_dispose((row), (list) ? (void *)(list)->items : NULL,      \
			  (list) ? (list)->len : 0, (list), sizeof(*(list)))

/* Query builder for list calls ----------------------------------------- */

/* Most parameters a filtered list binds; filters are few and fixed. */
#define LEC__QUERY_MAX_BINDS 16

struct lec__query_bind {
	int is_text;
	const char *text; /* borrowed: must outlive the query */
	int64_t num;
};

struct lec__query {
	const struct lec__row *row; /* borrowed: its columns are selected */
	struct lec__buf sql;        /* " FROM ... WHERE ..." */
	int has_where;
	int nbinds;
	int overflow;
	struct lec__query_bind binds[LEC__QUERY_MAX_BINDS];
};

/* Start with "SELECT <row's columns> FROM <from>" (joins allowed). */
void lec__query_init(struct lec__query *q, const struct lec__row *row,
		     const char *from);
/* AND a condition with one '?' bound to text / an integer. */
void lec__query_where_text(struct lec__query *q, const char *cond,
			   const char *value);
void lec__query_where_int(struct lec__query *q, const char *cond,
			  int64_t value);
/* AND a condition without parameters. */
void lec__query_where(struct lec__query *q, const char *cond);
/* Count the rows the query matches. */
int lec__query_count(struct lec_store *st, struct lec__query *q,
		     size_t *total);
/* Prepare the page: ORDER BY order, then LIMIT/OFFSET from page (may be
 * NULL for everything). */
int lec__query_prepare_page(struct lec_store *st, struct lec__query *q,
			    const char *order, const struct lec_page *page,
			    sqlite3_stmt **out);
void lec__query_dispose(struct lec__query *q);

/* The query's first row into a new item (owned by the caller,
 * lec__row_free). LEC_ENOTFOUND, with no message of its own, when there
 * is none: callers say what was not found. */
int lec__query_one(struct lec_store *st, struct lec__query *q, void **out);

/* Runs a paged list: counts (when total_out is not NULL), prepares the
 * page and reads each row into items[i] with the query's row table. On
 * failure frees what it read. The array is owned by the caller. */
int lec__query_list(struct lec_store *st, struct lec__query *q,
		    const char *order, const struct lec_page *page,
		    void **items_out, size_t *len_out, size_t *total_out);

/* Tables: get, list and delete (store_table.c) ------------------------ */

/* A resource's table as its gets and lists read it. */
struct lec__table {
	const struct lec__row *row;
	const char *from;      /* FROM, joins allowed */
	const char *scope;     /* the condition on a row's parent, one '?'
				  ("project_id = ?"); NULL: none */
	const char *id;        /* the condition on its id ("id = ?") */
	const char *text;      /* on its text key ("slug = ?"); NULL: none */
	const char *order;     /* a list's ORDER BY */
	const char *not_found; /* a get's LEC_ENOTFOUND message; NULL: the
				  caller says what was not found */
	/* What each row read holds from other tables (NULL: nothing). */
	int (*load)(struct lec_store *st, void *item);
};

/* Start a query over the table's columns and FROM. */
void lec__table_query(struct lec__query *q, const struct lec__table *t);
/* The first row of q, a query of t (disposed here), into a new item
 * (lec__row_free); LEC_ENOTFOUND as lec__table_get says. */
int lec__table_one(struct lec_store *st, const struct lec__table *t,
		   struct lec__query *q, void **out);
/* The page of q's rows (a query of t, disposed here) in t's order. */
int lec__table_rows(struct lec_store *st, const struct lec__table *t,
		    struct lec__query *q, const struct lec_page *page,
		    void **items, size_t *len, size_t *total);

/* What a public get does: clears the error, then reads the row with this
 * id (text: this text key), of parent *scope when scope is not NULL, into
 * a new item (lec__row_free; *out is NULL on failure). LEC_ENOTFOUND with
 * the table's message, or none for the caller to give. */
int lec__table_get(struct lec_store *st, const struct lec__table *t,
		   const int64_t *scope, int64_t id, void **out);
int lec__table_get_text(struct lec_store *st, const struct lec__table *t,
			const int64_t *scope, const char *text, void **out);
/* What a public delete does: clears the error, then deletes the row of
 * parent scope with this id from the table's FROM (a bare table name).
 * LEC_ENOTFOUND as lec__table_get says. */
int lec__table_delete(struct lec_store *st, const struct lec__table *t,
		      int64_t scope, int64_t id);
/* What a public list does: clears the error, then reads the page of the
 * rows (of parent *scope when scope is not NULL) in the table's order. */
int lec__table_list(struct lec_store *st, const struct lec__table *t,
		    const int64_t *scope, const struct lec_page *page,
		    void **items, size_t *len, size_t *total);

/* A resource's public calls, defined from its tables ------------------- */

/* Every resource's free, list dispose, get, list and delete are the same
 * call of the functions above with its own row or table, and were written
 * out by hand in each module (nine lines apiece, the same in fifteen
 * files). These define them instead; the public header still declares
 * and documents each one. T is the resource's struct tag (lec_envvar): a
 * macro defines the calls named T_free(struct T *), T_list_dispose(struct
 * T_list *), and, for a table whose rows hang from a parent (its scope),
 * T_get(store, parent, id, out), T_list(store, parent, page, out) and
 * T_delete(store, parent, id). Write them without a semicolon after. */
#define LEC__DEFINE_FREE(T, row)                                             \
	void T##_free(struct T *item)                                        \
	{                                                                    \
		lec__row_free((row), item);                                  \
	}
#define LEC__DEFINE_LIST_DISPOSE(T, row)                                     \
	void T##_list_dispose(struct T##_list *list)                         \
	{                                                                    \
		LEC__LIST_DISPOSE((row), list);                              \
	}
/* T_free and T_list_dispose, both over row. */
#define LEC__DEFINE_FREES(T, row)                                            \
	LEC__DEFINE_FREE(T, row)                                             \
	LEC__DEFINE_LIST_DISPOSE(T, row)
#define LEC__DEFINE_SCOPED_GET(T, table)                                     \
	int T##_get(struct lec_store *st, int64_t scope, int64_t id,         \
		    struct T **out)                                          \
	{                                                                    \
		return lec__table_get(st, (table), &scope, id, (void **)out); \
	}
#define LEC__DEFINE_SCOPED_LIST(T, table)                                    \
	int T##_list(struct lec_store *st, int64_t scope,                    \
		     const struct lec_page *page, struct T##_list *out)      \
	{                                                                    \
		return lec__table_list(st, (table), &scope, page,            \
				       (void **)&out->items, &out->len,      \
				       &out->total);                         \
	}
#define LEC__DEFINE_SCOPED_DELETE(T, table)                                  \
	int T##_delete(struct lec_store *st, int64_t scope, int64_t id)      \
	{                                                                    \
		return lec__table_delete(st, (table), scope, id);            \
	}

/* Schema ---------------------------------------------------------------- */

/* Run the migrations from the current version up to `target` inside one
 * transaction each. Exposed so tests can build older schemas. */
int lec_store__migrate(struct lec_store *st, int target);

/* lec_store_open, but migrating only up to `target` (tests of migrations). */
int lec_store__open_at(struct lec_store **out, const char *path,
		       const struct lec_store_options *opts, int target);

/* A build ended (build_events.c calls this): raise its notification
 * (failed or cancelled) and its version's (failing after passing, or
 * cancel that once it passes). notification.c. */
struct lec_build;
int lec__notification_build_ended(struct lec_store *st,
				  const struct lec_build *b);

/* lec_notification_add of n with the texts written for it, header and
 * body, which it owns and frees: NULL either (its writing ran out of
 * memory) gives LEC_ENOMEM. notification.c. */
struct lec_notification_new;
int lec__notification_add_texts(struct lec_store *st,
				struct lec_notification_new *n, char *header,
				char *body);

/* LEC_OK, or LEC_EINVALID saying that project_id is an offline mirror of
 * another instance's docs (mirror.h), which is never what: "built",
 * "synced" (project.c: the rule belongs to the project, not the feature
 * that makes such projects). */
int lec__project_refuse_mirrored(struct lec_store *st, int64_t project_id,
				 const char *what);

/* LEC_OK, or LEC_EINVALID on "repository.url" when url is a local
 * repository that a project other than project_id (0: none) builds from
 * and user_id (0: nobody; LEC_VIEWER_ALL: not checked) cannot read in
 * full; current is the project's URL now (NULL: a new project), whose
 * repository is never refused (project_localrepo.c). */
int lec__project_local_repo_check(struct lec_store *st, int64_t project_id,
				  const char *current, const char *url,
				  int64_t user_id);
/* LEC_OK, or LEC_EINVALID when url, a submodule of project_id's, is a
 * local repository that another project builds from and one of
 * project_id's admins (superusers aside) cannot read in full: what a build
 * checks before fetching it (project_localrepo.c). */
int lec__project_local_submodule_check(struct lec_store *st,
				       int64_t project_id, const char *url);

#endif
