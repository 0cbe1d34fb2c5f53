/*
 * The engine's store: one SQLite database file in the data directory that
 * holds every resource of the service (users, tokens, projects, versions,
 * builds, redirects, environment variables, organizations).
 *
 * Opening a store configures SQLite (WAL, foreign keys, busy timeout) and runs
 * the forward migrations up to the schema this program knows. A file that is
 * not a Lectern database, is corrupt, is read-only, or comes from a newer
 * Lectern is refused with a clear error and left untouched.
 *
 * A store handle is used by one thread at a time; threads open their own.
 */
#ifndef LECTERN_STORE_H
#define LECTERN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lec_store;

/* How long a writer waits for another process's lock before LEC_EBUSY: long
 * enough to ride out a concurrent build's short write transactions. */
#define LEC_STORE_BUSY_TIMEOUT_MS 5000

/* File name of the database inside the data directory. */
#define LEC_STORE_FILE_NAME "lectern.db"

struct lec_store_options {
	unsigned int version;  /* LEC_STORE_OPTIONS_VERSION */
	int busy_timeout_ms;   /* wait on a locked database, in ms */
	int create;            /* non-zero: create the file if missing */
};
#define LEC_STORE_OPTIONS_VERSION 1
#define LEC_STORE_OPTIONS_INIT                                               \
	{ LEC_STORE_OPTIONS_VERSION, LEC_STORE_BUSY_TIMEOUT_MS, 1 }

/**
 * Open (and create, and migrate) the database file at path.
 * @param out   the new handle, owned by the caller, freed with lec_store_free
 * @param path  the database file
 * @param opts  options, or NULL for LEC_STORE_OPTIONS_INIT
 * @return LEC_OK; LEC_ECORRUPT (not a Lectern database), LEC_EREADONLY,
 *         LEC_ESCHEMA (newer schema), LEC_EBUSY (locked), LEC_EIO
 */
int lec_store_open(struct lec_store **out, const char *path,
		   const struct lec_store_options *opts);

/**
 * Open the store of a data directory, creating the directory (mode 0700) and
 * the database when missing.
 */
int lec_store_open_dir(struct lec_store **out, const char *data_dir,
		       const struct lec_store_options *opts);

/** Close the store. Accepts NULL. */
void lec_store_free(struct lec_store *store);

/**
 * Read several things from one snapshot: between lec_store_read_begin and
 * lec_store_read_end every read sees the same state, and the database's
 * locks are taken once instead of once per statement. No writes may happen
 * in between.
 */
int lec_store_read_begin(struct lec_store *store);
/** End a read begun with lec_store_read_begin. Accepts NULL. */
void lec_store_read_end(struct lec_store *store);

/**
 * A number that changes whenever the database changes, through this handle
 * or any other, in any process. Read it inside lec_store_read_begin/_end:
 * equal numbers mean the reads see the same data, so anything derived from
 * them (a rendered response) is still valid.
 */
int lec_store_data_version(struct lec_store *store, uint64_t *out);

/**
 * The database's newest commit, told without a transaction: a number that
 * changes with every commit, through this handle or any other, in any
 * process, read from the header SQLite keeps of its write-ahead log in
 * shared memory (no lock, no system call). Take it before a read
 * snapshot: what that snapshot derives is still valid while the stamp is
 * unchanged, so a repeated request can be answered without beginning a
 * transaction at all.
 * @return LEC_OK with *out set (never 0); LEC_ENOTFOUND when it cannot be
 *         told now (not in WAL mode, no read yet, a commit under way):
 *         take a snapshot instead
 */
int lec_store_commit_stamp(struct lec_store *store, uint64_t *out);

/** The schema version of the open database. */
int lec_store_schema_version(struct lec_store *store);

/** The schema version this program migrates to. */
int lec_store_schema_latest(void);

/**
 * Check the store's pages and indexes (SQLite's quick_check) for at most
 * budget_ms, as `lectern serve` does at start: damage SQLite would only
 * meet when a page is read is then found before anything is written.
 * @param complete  set to 1 when the whole store was checked in time, 0
 *                  when the budget ran out first (a large store)
 * @return LEC_OK; LEC_ECORRUPT naming the file, the first problem and
 *         what to do; LEC_EIO
 */
int lec_store_check(struct lec_store *store, int budget_ms, int *complete);

/** The database file's path; valid while the store is open. */
const char *lec_store_path(const struct lec_store *store);

/* Paging, shared by every list call ----------------------------------- */

/* limit 0 means "no limit"; offset past the end gives an empty page. */
struct lec_page {
	size_t limit;
	size_t offset;
};

/* struct T_list: one page of a list call, items[0..len) owned by the list
 * (released with T_list_dispose) and total the rows matching, ignoring the
 * page. Every paged resource's list is this shape, which the engine's table
 * lists fill alike. */
#define LEC_PAGE_LIST(T)                                                     \
	struct T##_list {                                                    \
		struct T *items;                                             \
		size_t len;                                                  \
		size_t total;                                                \
	}

#ifdef __cplusplus
}
#endif
#endif
