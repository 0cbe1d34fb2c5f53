/*
 * Opening a store (lectern/store.h): the file found or made whole under
 * another name and renamed into place, checked to be Lectern's, configured
 * (foreign keys, WAL) and migrated to the schema this program knows
 * (schema.c). Above both the store's primitives (store.c) and the schema,
 * which uses them: opening is the one step that needs both.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "internal.h"
#include "store_internal.h"

/* Opening ----------------------------------------------------------------- */

/*
 * Whether the database file exists. The file is never opened here: closing
 * any descriptor of a database file drops every POSIX lock this process
 * holds on it, including those of SQLite connections open in other threads,
 * and another process could then delete the WAL under them. SQLite itself
 * reads the header and reports a file that is not a database.
 */
static int check_exists(const char *path, int create, int *exists)
{
	struct stat sb;

	*exists = stat(path, &sb) == 0;
	if (*exists && !S_ISREG(sb.st_mode))
		return lec__error(LEC_ECORRUPT, "%s: not a regular file", path);
	/* Lectern creates its store whole (create_whole): an empty file is
	 * damage (a disk that filled, a copy cut short), never a new store
	 * to write over. */
	if (*exists && sb.st_size == 0)
		return lec__error(LEC_ECORRUPT,
				  "%s: the store is an empty file, which "
				  "Lectern never leaves: it was damaged. "
				  "Restore it from a backup, or move it away "
				  "to start with an empty store",
				  path);
	if (!*exists && errno != ENOENT)
		return lec__error(errno == EACCES ? LEC_EREADONLY : LEC_EIO,
				  "%s: %s", path, strerror(errno));
	if (!*exists && !create)
		return lec__error(LEC_ENOTFOUND, "%s: no such database", path);
	return LEC_OK;
}

static int pragma_int(struct lec_store *st, const char *sql, int *out)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(stmt, 0);
	else
		error = lec_store__sqlerr(st, rc, sql);
	lec_store__finalize(st, stmt);
	return error;
}

/* A database with tables but no schema version was made by something else. */
static int check_owned(struct lec_store *st, int version)
{
	int tables = 0, error;

	if (version > lec_store_schema_latest())
		return lec__error(LEC_ESCHEMA,
				  "%s: schema version %d is newer than this "
				  "Lectern understands (%d); upgrade Lectern",
				  st->path, version, lec_store_schema_latest());
	if (version > 0)
		return LEC_OK;
	if ((error = pragma_int(st, "SELECT count(*) FROM sqlite_schema",
				&tables)) < 0)
		return error;
	if (tables > 0)
		return lec__error(LEC_ECORRUPT,
				  "%s: an SQLite database that Lectern did not "
				  "create; refusing to use it (left untouched)",
				  st->path);
	return LEC_OK;
}

static int configure(struct lec_store *st, const struct lec_store_options *o,
		     int target)
{
	int version = 0, error;

	if (sqlite3_db_readonly(st->db, "main") == 1)
		return lec__error(LEC_EREADONLY,
				  "%s: database file is read-only", st->path);
	sqlite3_busy_timeout(st->db, o->busy_timeout_ms);
	sqlite3_extended_result_codes(st->db, 1);
	if ((error = pragma_int(st, "PRAGMA user_version", &version)) < 0 ||
	    (error = check_owned(st, version)) < 0 ||
	    (error = lec_store__exec(st, "PRAGMA foreign_keys = ON")) < 0 ||
	    (error = lec_store__exec(st, "PRAGMA journal_mode = WAL")) < 0 ||
	    (error = lec_store__exec(st, "PRAGMA synchronous = NORMAL")) < 0)
		return error;
	return lec_store__migrate(st, target);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return lec__strdup(".");
	if (slash == path)
		return lec__strdup("/");
	return lec__strndup(path, (size_t)(slash - path));
}

/* Process-wide SQLite settings, made once before SQLite initialises: no
 * memory statistics (they serialise every allocation behind one global
 * mutex) and no per-connection mutexes, since a handle is used by one
 * thread at a time. */
static void configure_sqlite(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	sqlite3_initialize();
}

/* Open path (exists: whether it does) and bring it to the target
 * schema. */
static int open_file(struct lec_store **out, const char *path,
		     const struct lec_store_options *opts, int target,
		     int exists)
{
	struct lec_store *st = NULL;
	int error, rc;

	st = lec__calloc(1, sizeof(*st));
	LEC__CHECK_ALLOC(st);
	st->path = lec__strdup(path);
	st->data_dir = dir_of(path);
	if (st->path == NULL || st->data_dir == NULL) {
		error = lec__error_oom();
		goto done;
	}
	rc = sqlite3_open_v2(path, &st->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
				     (exists ? 0 : SQLITE_OPEN_CREATE),
			     NULL);
	if (rc != SQLITE_OK) {
		error = lec_store__sqlerr(st, rc, "opening");
		goto done;
	}
	/* Owner-only: the file holds token hashes and sealed secrets. Done
	 * before WAL mode is set, so the -wal and -shm files SQLite creates
	 * later copy this mode. */
	if (!exists && chmod(path, 0600) < 0) {
		error = lec__error(LEC_EIO, "%s: cannot restrict permissions: %s",
				   path, strerror(errno));
		goto done;
	}
	error = configure(st, opts, target);

done:
	if (error < 0) {
		lec_store_free(st);
		return error;
	}
	*out = st;
	return LEC_OK;
}

/* Remove a file SQLite may have left beside base ("-wal", "-shm"). */
static void unlink_beside(const char *base, const char *suffix)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *path;

	lec__buf_printf(&b, "%s%s", base, suffix);
	if ((path = lec__buf_take(&b)) != NULL)
		unlink(path);
	lec__free(path);
}

/* Make a new store whole: migrated under another name, its WAL folded in
 * and the file synced, then renamed into place, so path never names an
 * empty or half-made store (check_exists refuses an empty one). Another
 * process that made it first wins. */
static int create_whole(const char *path,
			const struct lec_store_options *opts, int target)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_store *st = NULL;
	char *tmp, *dir = dir_of(path);
	int error, fd = -1;

	lec__buf_printf(&b, "%s.creating", path);
	if ((tmp = lec__buf_take(&b)) == NULL || dir == NULL) {
		lec__free(tmp);
		lec__free(dir);
		return lec__error_oom();
	}
	unlink(tmp); /* an earlier attempt's, cut short */
	unlink_beside(tmp, "-wal");
	unlink_beside(tmp, "-shm");
	if ((error = open_file(&st, tmp, opts, target, 0)) < 0)
		goto done;
	error = lec_store__exec(st, "PRAGMA wal_checkpoint(TRUNCATE)");
	lec_store_free(st); /* the last connection: SQLite drops the WAL */
	if (error < 0)
		goto done;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0 || fsync(fd) < 0 ||
	    (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0 &&
	     errno != EEXIST)) {
		error = lec__error(LEC_EIO, "%s: cannot create the store: %s",
				   path, strerror(errno));
		goto done;
	}
	close(fd);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		fsync(fd);
done:
	if (fd >= 0)
		close(fd);
	unlink(tmp); /* gone after the rename; ours when another won */
	unlink_beside(tmp, "-wal");
	unlink_beside(tmp, "-shm");
	lec__free(tmp);
	lec__free(dir);
	return error;
}

int lec_store__open_at(struct lec_store **out, const char *path,
		       const struct lec_store_options *opts, int target)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct lec_store_options defaults = LEC_STORE_OPTIONS_INIT;
	int error, exists = 0;

	lec_error_clear();
	pthread_once(&once, configure_sqlite);
	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (path == NULL || *path == '\0')
		return lec__error(LEC_EINVALID, "no database path given");
	if ((error = check_exists(path, opts->create, &exists)) < 0)
		return error;
	if (!exists && (error = create_whole(path, opts, target)) < 0)
		return error;
	return open_file(out, path, opts, target, 1);
}

int lec_store_open(struct lec_store **out, const char *path,
		   const struct lec_store_options *opts)
{
	return lec_store__open_at(out, path, opts, lec_store_schema_latest());
}

static int make_dirs(const char *dir)
{
	char *copy = lec__strdup(dir);
	char *p;
	int error = LEC_OK;

	LEC__CHECK_ALLOC(copy);
	for (p = copy + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(copy, 0700) < 0 && errno != EEXIST) {
			error = lec__error(errno == EACCES || errno == EROFS
						   ? LEC_EREADONLY
						   : LEC_EIO,
					   "%s: cannot create directory: %s",
					   copy, strerror(errno));
			break;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	lec__free(copy);
	return error;
}

int lec_store_open_dir(struct lec_store **out, const char *data_dir,
		       const struct lec_store_options *opts)
{
	struct lec__buf path = LEC__BUF_INIT;
	char *file;
	int error;

	lec_error_clear();
	*out = NULL;
	if (data_dir == NULL || *data_dir == '\0')
		return lec__error(LEC_EINVALID, "no data directory given");
	if ((!opts || opts->create) && (error = make_dirs(data_dir)) < 0)
		return error;
	lec__buf_printf(&path, "%s/%s", data_dir, LEC_STORE_FILE_NAME);
	file = lec__buf_take(&path);
	LEC__CHECK_ALLOC(file);
	error = lec_store_open(out, file, opts);
	lec__free(file);
	return error;
}
