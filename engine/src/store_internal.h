/*
 * What engine modules share about the store: the handle's layout, SQLite
 * error mapping, transactions, a small query builder for filtered and paged
 * lists, and column/bind helpers. Modules (user.c, project.c, ...) build their
 * typed API on these; nothing outside engine/src sees them.
 */
#ifndef LECTERN_STORE_INTERNAL_H
#define LECTERN_STORE_INTERNAL_H

#include <sqlite3.h>
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
	struct lec_user user;               /* strings owned */
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

/* Forget every remembered token (user.c); lec_store_free calls it. */
void lec__token_memo_clear(struct lec_store *st);
/* The id of a token whose user is active (user.c), for a session logged
 * in with it (session.c): LEC_OK, LEC_ENOTFOUND (no such token, or
 * malformed) or LEC_EAUTH (the user is inactive). */
int lec__token_check(struct lec_store *st, const char *token,
		     int64_t *token_id);

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

/* Run SQL without results (no parameters). */
int lec_store__exec(struct lec_store *st, const char *sql);

/* Write transactions: BEGIN IMMEDIATE takes the write lock at once so that a
 * busy database is reported before any work is done. */
int lec_store__begin(struct lec_store *st);
int lec_store__commit(struct lec_store *st);
void lec_store__rollback(struct lec_store *st);

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

/* LEC_OK when the project with this id exists, else LEC_ENOTFOUND ("no
 * project with id N") or the store's error: what a resource hanging from a
 * project checks before it is added (project.c). */
int lec__project_exists(struct lec_store *st, int64_t project_id);

/* Columns and binds ---------------------------------------------------- */

/* Copy a text column into *out (NULL for SQL NULL). */
int lec_store__col_text(sqlite3_stmt *stmt, int col, char **out);
/* Bind text, or NULL when s is NULL. */
int lec_store__bind_text(sqlite3_stmt *stmt, int idx, const char *s);

/* Query builder for list calls ----------------------------------------- */

/* Most parameters a filtered list binds; filters are few and fixed. */
#define LEC__QUERY_MAX_BINDS 16

struct lec__query_bind {
	int is_text;
	const char *text; /* borrowed: must outlive the query */
	int64_t num;
};

struct lec__query {
	const char *columns;  /* borrowed: must outlive the query */
	struct lec__buf sql;  /* " FROM ... WHERE ..." */
	int has_where;
	int nbinds;
	int overflow;
	struct lec__query_bind binds[LEC__QUERY_MAX_BINDS];
};

/* Start with "SELECT <columns> FROM <from>" (joins allowed in from). */
void lec__query_init(struct lec__query *q, const char *columns,
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

/* The query's first row into a new item (item_size bytes, owned by the
 * caller). LEC_ENOTFOUND, with no message of its own, when there is none:
 * callers say what was not found. */
int lec__query_one(struct lec_store *st, struct lec__query *q,
		   size_t item_size, int (*row)(sqlite3_stmt *stmt, void *item),
		   void (*item_dispose)(void *item), void **out);

/* Dispose each of len items (item_size bytes each) with item_dispose, then
 * free the array. What every list's _dispose does. */
void lec__items_free(void *items, size_t len, size_t item_size,
		     void (*item_dispose)(void *item));

/* Runs a paged list: counts, prepares the page, and calls row() for each row
 * to fill items[i] (item_size bytes each, zeroed first). On failure calls
 * item_free on the filled items. The array is owned by the caller. */
int lec__query_list(struct lec_store *st, struct lec__query *q,
		    const char *order, const struct lec_page *page,
		    size_t item_size,
		    int (*row)(sqlite3_stmt *stmt, void *item),
		    void (*item_dispose)(void *item),
		    void **items_out, size_t *len_out, size_t *total_out);

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
