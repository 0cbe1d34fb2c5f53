/*
 * The store's primitives: statements, transactions, SQLite's errors as
 * engine codes, the small SQL-building helpers the resource modules share,
 * closing, and what a reader asks of an open store (its data version, its
 * schema version). Opening is store_open.c's, above this file and the
 * schema: it is careful not to damage what it did not create (a file that
 * does not start with SQLite's header, a database without Lectern's
 * schema, or one written by a newer Lectern is refused before anything is
 * written to it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "store_internal.h"

int lec_store__sqlerr(struct lec_store *st, int rc, const char *what)
{
	const char *msg = st && st->db ? sqlite3_errmsg(st->db)
				       : sqlite3_errstr(rc);
	const char *path = st && st->path ? st->path : "database";

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return lec__error_oom();
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return lec__error(LEC_EBUSY,
				  "%s: %s: database is locked by another "
				  "process (%s)", path, what, msg);
	case SQLITE_READONLY:
		return lec__error(LEC_EREADONLY, "%s: %s: %s", path, what,
				  msg);
	case SQLITE_NOTADB:
		return lec__error(LEC_ECORRUPT,
				  "%s: not an SQLite database; refusing to use "
				  "it (left untouched)", path);
	case SQLITE_CORRUPT:
		return lec__error(LEC_ECORRUPT,
				  "%s: %s: database file is corrupt or not a "
				  "database (%s)", path, what, msg);
	case SQLITE_CONSTRAINT:
		if (rc == SQLITE_CONSTRAINT_UNIQUE ||
		    rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			return lec__error(LEC_EEXISTS, "%s: %s", what, msg);
		return lec__error(LEC_EINVALID, "%s: %s", what, msg);
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
	case SQLITE_FULL:
		return lec__error(LEC_EIO, "%s: %s: %s", path, what, msg);
	default:
		return lec__error(LEC_ERROR, "%s: %s: %s", path, what, msg);
	}
}

static void stmt_slot_clear(struct lec_store_cached_stmt *c)
{
	sqlite3_finalize(c->stmt);
	lec__free(c->sql);
	memset(c, 0, sizeof(*c));
}

/* The slot to reuse for a new statement: an empty one, else the least
 * recently used one not handed out; NULL when all are in use. */
static struct lec_store_cached_stmt *stmt_victim(struct lec_store *st)
{
	struct lec_store_cached_stmt *victim = NULL;
	size_t i;

	for (i = 0; i < LEC_STORE_STMT_CACHE; i++) {
		struct lec_store_cached_stmt *c = &st->stmts[i];

		if (c->stmt == NULL)
			return c;
		if (!c->in_use && (victim == NULL || c->last_used < victim->last_used))
			victim = c;
	}
	return victim;
}

/* Hand out a cached slot's statement. */
static int stmt_hand_out(struct lec_store *st,
			 struct lec_store_cached_stmt *c, const char *sql,
			 sqlite3_stmt **out)
{
	c->in_use = 1;
	c->caller = sql;
	c->last_used = ++st->stmt_clock;
	*out = c->stmt;
	return LEC_OK;
}

/* The free cached slot for sql, or NULL. Most calls pass the same literal
 * each time, found by its address alone; the text is still compared, as a
 * freed buffer's address may come back holding other SQL. */
static struct lec_store_cached_stmt *stmt_lookup(struct lec_store *st,
						 const char *sql, uint64_t *h)
{
	size_t i;

	for (i = 0; i < LEC_STORE_STMT_CACHE; i++) {
		struct lec_store_cached_stmt *c = &st->stmts[i];

		if (c->stmt && !c->in_use && c->caller == sql &&
		    strcmp(c->sql, sql) == 0)
			return c;
	}
	*h = lec__fnv1a(sql, strlen(sql)); /* compares entries cheaply */
	for (i = 0; i < LEC_STORE_STMT_CACHE; i++) {
		struct lec_store_cached_stmt *c = &st->stmts[i];

		if (c->stmt && !c->in_use && c->hash == *h &&
		    strcmp(c->sql, sql) == 0)
			return c;
	}
	return NULL;
}

int lec_store__prepare(struct lec_store *st, sqlite3_stmt **out,
		       const char *sql)
{
	struct lec_store_cached_stmt *c;
	uint64_t h = 0;
	char *copy;
	int rc;

	if ((c = stmt_lookup(st, sql, &h)) != NULL)
		return stmt_hand_out(st, c, sql, out);
	rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				out, NULL);
	if (rc != SQLITE_OK) {
		*out = NULL;
		return lec_store__sqlerr(st, rc, "preparing a query");
	}
	/* Keep it unless every slot is in use, or the text was several
	 * statements (the tail would be lost). */
	c = stmt_victim(st);
	if (c == NULL || *out == NULL || sqlite3_sql(*out) == NULL ||
	    strcmp(sqlite3_sql(*out), sql) != 0)
		return LEC_OK;
	if ((copy = lec__strdup(sql)) == NULL)
		return LEC_OK;
	stmt_slot_clear(c);
	c->sql = copy;
	c->hash = h;
	c->stmt = *out;
	return stmt_hand_out(st, c, sql, out);
}

void lec_store__finalize(struct lec_store *st, sqlite3_stmt *stmt)
{
	size_t i;

	if (stmt == NULL)
		return;
	for (i = 0; i < LEC_STORE_STMT_CACHE; i++) {
		struct lec_store_cached_stmt *c = &st->stmts[i];

		if (c->stmt == stmt) {
			sqlite3_reset(stmt);
			sqlite3_clear_bindings(stmt);
			c->in_use = 0;
			return;
		}
	}
	sqlite3_finalize(stmt);
}

/* Run one cached statement that returns nothing of interest. */
static int run_cached(struct lec_store *st, const char *sql,
		      const char *what)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		error = lec_store__sqlerr(st, rc, what);
	lec_store__finalize(st, stmt);
	return error;
}

int lec_store__exec(struct lec_store *st, const char *sql)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? LEC_OK : lec_store__sqlerr(st, rc, sql);
}

int lec_store__begin(struct lec_store *st)
{
	int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	return rc == SQLITE_OK ? LEC_OK
			       : lec_store__sqlerr(st, rc, "starting a write");
}

int lec_store__commit(struct lec_store *st)
{
	int rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		return LEC_OK;
	rc = lec_store__sqlerr(st, rc, "committing");
	lec_store__rollback(st);
	return rc;
}

void lec_store__rollback(struct lec_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int lec_store__end(struct lec_store *st, int error)
{
	if (error < 0) {
		lec_store__rollback(st);
		return error;
	}
	return lec_store__commit(st);
}

int lec_store__write(struct lec_store *st, int (*fn)(struct lec_store *st,
						     void *arg),
		     void *arg, int also_commit)
{
	int error, committed;

	if ((error = lec_store__begin(st)) < 0)
		return error;
	error = fn(st, arg);
	if (error == LEC_OK || (also_commit && error == also_commit)) {
		committed = lec_store__commit(st);
		if (error == LEC_OK)
			error = committed;
	} else {
		lec_store__rollback(st);
	}
	return error;
}

static int lease_take(struct lec_store *st, void *arg)
{
	const struct lec__lease *lease = arg;

	return lease->take(st, lease);
}

int lec_store__lease(struct lec_store *st, int64_t now_us, unsigned lease_ms,
		     int (*take)(struct lec_store *st,
				 const struct lec__lease *lease),
		     void *out, size_t size)
{
	struct lec__lease lease = { now_us, now_us + (int64_t)lease_ms * 1000,
				    out, take };
	int error;

	lec_error_clear();
	memset(out, 0, size);
	error = lec_store__write(st, lease_take, &lease, LEC_ECORRUPT);
	if (error == LEC_ENOTFOUND)
		lec_error_clear();
	return error;
}

int lec_store__step_done(struct lec_store *st, sqlite3_stmt *stmt,
			 const char *what)
{
	int rc = sqlite3_step(stmt);

	return rc == SQLITE_DONE ? LEC_OK : lec_store__sqlerr(st, rc, what);
}

int lec_store__prepare_ints(struct lec_store *st, sqlite3_stmt **stmt,
			    const char *sql, const int64_t *v, int n)
{
	int error, i;

	if ((error = lec_store__prepare(st, stmt, sql)) < 0)
		return error;
	for (i = 0; i < n; i++)
		sqlite3_bind_int64(*stmt, i + 1, v[i]);
	return LEC_OK;
}

int lec_store__exec_ints(struct lec_store *st, const char *sql,
			 const int64_t *v, int n, const char *what,
			 int *changes)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare_ints(st, &stmt, sql, v, n)) < 0)
		return error;
	error = lec_store__step_done(st, stmt, what);
	if (error == LEC_OK && changes)
		*changes = sqlite3_changes(st->db);
	lec_store__finalize(st, stmt);
	return error;
}

/* Read sql's first row (ints bound as above) with read(stmt, out); no row
 * reads nothing. *found (may be NULL) says whether there was one. */
static int query_first(struct lec_store *st, const char *sql,
		       const int64_t *v, int n, const char *what,
		       int (*read)(sqlite3_stmt *stmt, void *out), void *out,
		       int *found)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if (found)
		*found = 0;
	if ((error = lec_store__prepare_ints(st, &stmt, sql, v, n)) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		error = read(stmt, out);
		if (found)
			*found = 1;
	} else if (rc != SQLITE_DONE) {
		error = lec_store__sqlerr(st, rc, what);
	}
	lec_store__finalize(st, stmt);
	return error;
}

static int read_int(sqlite3_stmt *stmt, void *out)
{
	*(int64_t *)out = sqlite3_column_int64(stmt, 0);
	return LEC_OK;
}

static int read_text(sqlite3_stmt *stmt, void *out)
{
	return lec_store__col_text(stmt, 0, out);
}

int lec_store__query_int(struct lec_store *st, const char *sql,
			 const int64_t *v, int n, const char *what,
			 int64_t *out, int *found)
{
	*out = 0;
	return query_first(st, sql, v, n, what, read_int, out, found);
}

int lec_store__query_text(struct lec_store *st, const char *sql,
			  const int64_t *v, int n, const char *what,
			  char **out, int *found)
{
	*out = NULL;
	return query_first(st, sql, v, n, what, read_text, out, found);
}


int lec_store__bind_text(sqlite3_stmt *stmt, int idx, const char *s)
{
	int rc = s ? sqlite3_bind_text(stmt, idx, s, -1, SQLITE_TRANSIENT)
		   : sqlite3_bind_null(stmt, idx);

	return rc == SQLITE_OK ? LEC_OK : lec__error_oom();
}

/* Query builder ----------------------------------------------------------- */

void lec__query_init(struct lec__query *q, const struct lec__row *row,
		     const char *from)
{
	memset(q, 0, sizeof(*q));
	q->row = row;
	lec__buf_printf(&q->sql, " FROM %s", from);
}

void lec__query_where(struct lec__query *q, const char *cond)
{
	lec__buf_puts(&q->sql, q->has_where ? " AND (" : " WHERE (");
	lec__buf_puts(&q->sql, cond);
	lec__buf_puts(&q->sql, ")");
	q->has_where = 1;
}

static struct lec__query_bind *query_add_bind(struct lec__query *q)
{
	if (q->nbinds >= LEC__QUERY_MAX_BINDS) {
		q->overflow = 1;
		return NULL;
	}
	return &q->binds[q->nbinds++];
}

void lec__query_where_text(struct lec__query *q, const char *cond,
			   const char *value)
{
	struct lec__query_bind *b = query_add_bind(q);

	if (b == NULL)
		return;
	b->is_text = 1;
	b->text = value;
	lec__query_where(q, cond);
}

void lec__query_where_int(struct lec__query *q, const char *cond,
			  int64_t value)
{
	struct lec__query_bind *b = query_add_bind(q);

	if (b == NULL)
		return;
	b->num = value;
	lec__query_where(q, cond);
}

static int query_bind_all(struct lec__query *q, sqlite3_stmt *stmt)
{
	int i, rc;

	for (i = 0; i < q->nbinds; i++) {
		rc = q->binds[i].is_text
			     ? lec_store__bind_text(stmt, i + 1,
						    q->binds[i].text)
			     : (sqlite3_bind_int64(stmt, i + 1,
						   q->binds[i].num) == SQLITE_OK
					? LEC_OK
					: lec__error_oom());
		if (rc < 0)
			return rc;
	}
	return LEC_OK;
}

static int query_prepare_sql(struct lec_store *st, struct lec__query *q,
			     const char *sql, sqlite3_stmt **out)
{
	int error;

	*out = NULL;
	if (q->overflow)
		return lec__error(LEC_ELIMIT, "too many query filters");
	if (q->sql.oom || sql == NULL)
		return lec__error_oom();
	if ((error = lec_store__prepare(st, out, sql)) < 0)
		return error;
	if ((error = query_bind_all(q, *out)) < 0) {
		lec_store__finalize(st, *out);
		*out = NULL;
	}
	return error;
}

int lec__query_count(struct lec_store *st, struct lec__query *q,
		     size_t *total)
{
	struct lec__buf sql = LEC__BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	char *text;
	int error, rc;

	/* Straight over the FROM and WHERE: no columns to compute, and
	 * SQLite drops LEFT JOINs that cannot change the count. */
	lec__buf_printf(&sql, "SELECT count(*)%s", q->sql.ptr ? q->sql.ptr : "");
	text = lec__buf_take(&sql);
	error = query_prepare_sql(st, q, text, &stmt);
	lec__free(text);
	if (error < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*total = (size_t)sqlite3_column_int64(stmt, 0);
	else
		error = lec_store__sqlerr(st, rc, "counting");
	lec_store__finalize(st, stmt);
	return error;
}

int lec__query_prepare_page(struct lec_store *st, struct lec__query *q,
			    const char *order, const struct lec_page *page,
			    sqlite3_stmt **out)
{
	struct lec__buf sql = LEC__BUF_INIT;
	char *text;
	int error;

	lec__buf_puts(&sql, "SELECT ");
	lec__row_select(q->row, &sql);
	lec__buf_puts(&sql, q->sql.ptr ? q->sql.ptr : "");
	if (order)
		lec__buf_printf(&sql, " ORDER BY %s", order);
	/* Bound, not spelled out, so every page shares one cached
	 * statement. */
	if (page && (page->limit || page->offset))
		lec__buf_puts(&sql, " LIMIT ? OFFSET ?");
	text = lec__buf_take(&sql);
	error = query_prepare_sql(st, q, text, out);
	lec__free(text);
	if (error == LEC_OK && page && (page->limit || page->offset)) {
		sqlite3_bind_int64(*out, q->nbinds + 1,
				   page->limit ? (sqlite3_int64)page->limit
					       : -1);
		sqlite3_bind_int64(*out, q->nbinds + 2,
				   (sqlite3_int64)page->offset);
	}
	return error;
}

void lec__query_dispose(struct lec__query *q)
{
	lec__buf_dispose(&q->sql);
}

int lec__query_one(struct lec_store *st, struct lec__query *q, void **out)
{
	struct lec_page one = { 1, 0 };
	size_t len = 0;
	int error;

	*out = NULL;
	error = lec__query_list(st, q, NULL, &one, out, &len, NULL);
	if (error == LEC_OK && len == 0) {
		lec__free(*out);
		*out = NULL;
		return LEC_ENOTFOUND;
	}
	return error;
}

int lec__query_list(struct lec_store *st, struct lec__query *q,
		    const char *order, const struct lec_page *page,
		    void **items_out, size_t *len_out, size_t *total_out)
{
	const struct lec__row *row = q->row;
	sqlite3_stmt *stmt = NULL;
	unsigned char *items = NULL;
	size_t len = 0, cap = 0, total = 0;
	int error, rc;

	*items_out = NULL;
	*len_out = 0;
	if (total_out)
		*total_out = 0;
	if (total_out && (error = lec__query_count(st, q, &total)) < 0)
		return error;
	if ((error = lec__query_prepare_page(st, q, order, page, &stmt)) < 0)
		return error;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			unsigned char *n = lec__realloc(items, ncap * row->size);

			if (n == NULL) {
				error = lec__error_oom();
				goto done;
			}
			items = n;
			cap = ncap;
		}
		memset(items + len * row->size, 0, row->size);
		if ((error = lec__row_read(row, stmt,
					   items + len * row->size)) < 0) {
			lec__row_dispose(row, items + len * row->size);
			goto done;
		}
		len++;
	}
	if (rc != SQLITE_DONE)
		error = lec_store__sqlerr(st, rc, "listing");

done:
	lec_store__finalize(st, stmt);
	if (error < 0) {
		lec__rows_free(row, items, len);
		return error;
	}
	*items_out = items;
	*len_out = len;
	if (total_out)
		*total_out = total;
	return LEC_OK;
}

void lec_store_free(struct lec_store *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < LEC_STORE_STMT_CACHE; i++)
		stmt_slot_clear(&st->stmts[i]);
	/* The remembered tokens' users (user.c keeps them). */
	for (i = 0; i < LEC_STORE_TOKEN_MEMO; i++)
		lec__row_dispose(&lec__user_row, &st->tokens[i].user);
	sqlite3_close_v2(st->db);
	lec__free(st->path);
	lec__free(st->data_dir);
	lec__free(st);
}

/* sqlite3_progress_handler's callback: stop once the deadline passed. */
static int past_deadline(void *deadline_ms)
{
	return lec__monotonic_ms() > *(int64_t *)deadline_ms;
}

int lec_store_check(struct lec_store *st, int budget_ms, int *complete)
{
	int64_t deadline = lec__monotonic_ms() + budget_ms;
	sqlite3_stmt *stmt = NULL;
	const char *problem;
	int rc, error = LEC_OK;

	lec_error_clear();
	*complete = 0;
	/* Its first problem is enough to refuse the store. */
	rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &stmt,
				NULL);
	if (rc != SQLITE_OK)
		return lec_store__sqlerr(st, rc, "checking the store");
	sqlite3_progress_handler(st->db, 1000, past_deadline, &deadline);
	rc = sqlite3_step(stmt);
	sqlite3_progress_handler(st->db, 0, NULL, NULL);
	if (rc == SQLITE_ROW) {
		problem = (const char *)sqlite3_column_text(stmt, 0);
		*complete = 1;
		if (problem && strcmp(problem, "ok") != 0)
			error = lec__error(LEC_ECORRUPT,
					   "%s: the store is damaged (%s). "
					   "Stop Lectern and restore it from a "
					   "backup, or try `sqlite3 %s "
					   ".recover`",
					   st->path, problem, st->path);
	} else if (rc != SQLITE_INTERRUPT) {
		error = lec_store__sqlerr(st, rc, "checking the store");
	}
	sqlite3_finalize(stmt);
	return error;
}

int lec_store_read_begin(struct lec_store *st)
{
	int error;

	lec_error_clear();
	/* BEGIN alone defers the snapshot to the first read: take it now, so
	 * lec_store_data_version describes what the reads will see. */
	if ((error = run_cached(st, "BEGIN", "starting a read")) < 0 ||
	    (error = run_cached(st, "SELECT 1 FROM sqlite_schema LIMIT 1",
				"starting a read")) < 0)
		lec_store_read_end(st);
	return error;
}

int lec_store_data_version(struct lec_store *st, uint64_t *out)
{
	unsigned int version = 0;
	int rc = sqlite3_file_control(st->db, "main",
				      SQLITE_FCNTL_DATA_VERSION, &version);

	lec_error_clear();
	*out = version;
	return rc == SQLITE_OK ? LEC_OK
			       : lec_store__sqlerr(st, rc, "reading the version");
}

/* The WAL-index header (https://www.sqlite.org/walformat.html, "The
 * WAL-Index Header"): two copies of 48 bytes, twelve native 32-bit words,
 * at the start of the shared memory. A commit writes the second copy, then
 * the first; a reader that finds both equal has read a header no commit
 * was writing (SQLite's own readers check it the same way). Its words
 * count the commits (iChange), the log's frames (mxFrame), the log's
 * generation (salts) and the checksum of every frame written, so equal
 * headers mean equal databases. */
#define WAL_HEADER_WORDS 12
/* Byte of each copy that is nonzero once the header has been written. */
#define WAL_HEADER_ISINIT 12
/* Bytes SQLite maps per region of the shared memory; the header is in the
 * first one. */
#define WAL_SHM_REGION 32768

int lec_store_commit_stamp(struct lec_store *st, uint64_t *out)
{
	sqlite3_file *file = NULL;
	void volatile *region = NULL;
	const volatile uint32_t *words;
	uint32_t first[WAL_HEADER_WORDS], second[WAL_HEADER_WORDS];
	uint64_t h;
	size_t i;

	*out = 0;
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_FILE_POINTER,
				 &file) != SQLITE_OK ||
	    file == NULL || file->pMethods == NULL ||
	    file->pMethods->iVersion < 2 || file->pMethods->xShmMap == NULL ||
	    file->pMethods->xShmMap(file, 0, WAL_SHM_REGION, 0, &region) !=
		    SQLITE_OK ||
	    region == NULL)
		return lec__error(LEC_ENOTFOUND, "%s: no write-ahead log index "
				  "to read", st->path);
	words = region;
	for (i = 0; i < WAL_HEADER_WORDS; i++)
		first[i] = words[i];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < WAL_HEADER_WORDS; i++)
		second[i] = words[WAL_HEADER_WORDS + i];
	if (memcmp(first, second, sizeof(first)) != 0 ||
	    ((const unsigned char *)first)[WAL_HEADER_ISINIT] == 0)
		return lec__error(LEC_ENOTFOUND, "%s: a commit is being "
				  "written", st->path);
	h = lec__fnv1a(first, sizeof(first));
	*out = h ? h : 1;
	return LEC_OK;
}

void lec_store_read_end(struct lec_store *st)
{
	sqlite3_stmt *stmt = NULL;

	if (st == NULL || sqlite3_get_autocommit(st->db))
		return;
	/* A cached statement: every GET ends a snapshot, and parsing the
	 * COMMIT afresh each time showed in the server's profile. */
	if (lec_store__prepare(st, &stmt, "COMMIT") == LEC_OK) {
		sqlite3_step(stmt);
		lec_store__finalize(st, stmt);
	} else {
		sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	}
}

int lec_store_schema_version(struct lec_store *st)
{
	int64_t version = -1;

	return lec_store__query_int(st, "PRAGMA user_version", NULL, 0,
				    "reading the schema version", &version,
				    NULL) < 0
		       ? -1
		       : (int)version;
}

const char *lec_store_path(const struct lec_store *st)
{
	return st->path;
}
