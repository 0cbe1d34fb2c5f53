/*
 * The store: creation and settings, forward migrations (from an empty file
 * and from every earlier schema version, data kept), and refusal without
 * damage of what it must not touch: a newer schema, a corrupt or foreign
 * file, a read-only file, a database locked by another process. Also runs
 * a store workload with each allocation failing in turn.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/project.h"
#include "lectern/store.h"
#include "lectern/user.h"
#include "store_internal.h"

static char *path_in(const char *dir, const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int sql_int(struct lec_store *st, const char *sql)
{
	sqlite3_stmt *stmt = NULL;
	int value = -1;

	if (lec_store__prepare(st, &stmt, sql) == LEC_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		value = sqlite3_column_int(stmt, 0);
	lec_store__finalize(st, stmt);
	return value;
}

/* Read a whole file so a test can prove it was left untouched. */
static size_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, cap);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

TEST(creates_private_wal_store)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *st = NULL;
	struct stat sb;
	char sub[512];

	snprintf(sub, sizeof(sub), "%s/a/b/lectern", dir);
	CHECK_OK(lec_store_open_dir(&st, sub, NULL));
	CHECK(st != NULL);
	CHECK_INT(lec_store_schema_version(st), lec_store_schema_latest());
	CHECK(lec_store_schema_latest() >= 2);
	CHECK_INT(sql_int(st, "PRAGMA foreign_keys"), 1);
	CHECK_INT(sql_int(st, "SELECT journal_mode = 'wal' FROM "
			      "pragma_journal_mode"),
		  1);
	CHECK_INT(stat(lec_store_path(st), &sb), 0);
	CHECK_INT(sb.st_mode & 0777, 0600);
	CHECK_INT(stat(sub, &sb), 0);
	CHECK_INT(sb.st_mode & 0777, 0700);
	lec_store_free(st);
	lec_store_free(NULL);
}

TEST(reopen_keeps_data)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *st = NULL;
	struct lec_user *u = NULL;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	CHECK_OK(lec_user_create(st, "alice", NULL));
	lec_store_free(st);
	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	CHECK_OK(lec_user_get(st, "alice", &u));
	CHECK(u && strcmp(u->username, "alice") == 0);
	lec_user_free(u);
	lec_store_free(st);
}

TEST(missing_file_without_create)
{
	struct lec_store_options o = LEC_STORE_OPTIONS_INIT;
	struct lec_store *st = NULL;

	o.create = 0;
	CHECK_ERR(lec_store_open(&st, path_in(lec_test_tmpdir(), "none.db"),
				 &o),
		  LEC_ENOTFOUND);
	CHECK(st == NULL);
	CHECK_ERR(lec_store_open(&st, "", NULL), LEC_EINVALID);
}

/* Build a database at every earlier schema version, put rows in it, and
 * check the migration to the latest keeps them. */
TEST(migrates_from_every_earlier_version)
{
	int from;

	for (from = 0; from < lec_store_schema_latest(); from++) {
		const char *file = path_in(lec_test_tmpdir(), "old.db");
		char owned[512];
		struct lec_store *st = NULL;
		struct lec_user *u = NULL;

		snprintf(owned, sizeof(owned), "%s", file);
		CHECK_OK(lec_store__open_at(&st, owned, NULL, from));
		CHECK_INT(lec_store_schema_version(st), from);
		if (from >= 1)
			CHECK_OK(lec_store__exec(
				st, "INSERT INTO users (username, created) "
				    "VALUES ('old', 1);"
				    "INSERT INTO projects (name, slug, repo_url, "
				    "created, modified) VALUES ('P', 'p', "
				    "'https://x/y.git', 1, 1)"));
		lec_store_free(st);

		CHECK_OK(lec_store_open(&st, owned, NULL));
		CHECK_INT(lec_store_schema_version(st),
			  lec_store_schema_latest());
		if (from >= 1) {
			CHECK_OK(lec_user_get(st, "old", &u));
			CHECK_INT(sql_int(st, "SELECT count(*) FROM projects "
					      "WHERE slug = 'p'"),
				  1);
		}
		CHECK_INT(sql_int(st, "SELECT count(*) FROM sqlite_schema "
				      "WHERE name = 'organizations'"),
			  1);
		lec_user_free(u);
		lec_store_free(st);
	}
}

/* Migration 13: redirects and environment variables keep their rows and
 * ids, and a deleted row's id is never given again. */
TEST(migration_13_never_reuses_ids)
{
	const char *file = path_in(lec_test_tmpdir(), "ids.db");
	char owned[512];
	struct lec_store *st = NULL;

	snprintf(owned, sizeof(owned), "%s", file);
	CHECK_OK(lec_store__open_at(&st, owned, NULL, 11));
	CHECK_OK(lec_store__exec(
		st, "INSERT INTO projects (name, slug, repo_url, created, "
		    "modified) VALUES ('P', 'p', 'https://x/y.git', 1, 1);"
		    "INSERT INTO redirects (id, project_id, type, created, "
		    "modified) VALUES (7, 1, 'page', 1, 1);"
		    "INSERT INTO env_vars (id, project_id, name, value, "
		    "value_size, created, modified) VALUES (4, 1, 'A', x'00', "
		    "1, 1, 1)"));
	lec_store_free(st);
	CHECK_OK(lec_store_open(&st, owned, NULL));
	CHECK_INT(sql_int(st, "SELECT id FROM redirects"), 7);
	CHECK_INT(sql_int(st, "SELECT id FROM env_vars"), 4);
	CHECK_OK(lec_store__exec(
		st, "DELETE FROM redirects; DELETE FROM env_vars;"
		    "INSERT INTO redirects (project_id, type, created, "
		    "modified) VALUES (1, 'page', 1, 1);"
		    "INSERT INTO env_vars (project_id, name, value, value_size,"
		    " created, modified) VALUES (1, 'B', x'00', 1, 1, 1)"));
	CHECK_INT(sql_int(st, "SELECT id FROM redirects"), 8);
	CHECK_INT(sql_int(st, "SELECT id FROM env_vars"), 5);
	lec_store_free(st);
}

/* Migration 14 (issue 27): a queued delivery keeps its webhook's URL of
 * the moment, and poll intervals under the new floor are raised to it. */
TEST(migration_14_keeps_delivery_urls_and_raises_polls)
{
	const char *file = path_in(lec_test_tmpdir(), "m14.db");
	char owned[512];
	struct lec_store *st = NULL;

	snprintf(owned, sizeof(owned), "%s", file);
	CHECK_OK(lec_store__open_at(&st, owned, NULL, 13));
	CHECK_OK(lec_store__exec(
		st, "INSERT INTO projects (name, slug, repo_url, created, "
		    "modified, poll_interval) VALUES ('P', 'p', "
		    "'https://x/y.git', 1, 1, 5), ('Q', 'q', "
		    "'https://x/z.git', 1, 1, 0), ('R', 'r', "
		    "'https://x/r.git', 1, 1, 600);"
		    "INSERT INTO webhooks (project_id, url, events, secret, "
		    "created, modified) VALUES (1, 'https://hook/a', 7, x'00', "
		    "1, 1);"
		    "INSERT INTO webhook_deliveries (webhook_id, event, body, "
		    "state, next_attempt, created, modified) VALUES (1, "
		    "'build:passed', '{}', 'pending', 1, 1, 1)"));
	lec_store_free(st);
	CHECK_OK(lec_store_open(&st, owned, NULL));
	CHECK_INT(sql_int(st, "SELECT count(*) FROM webhook_deliveries WHERE "
			      "url = 'https://hook/a' AND sending_until = 0"),
		  1);
	CHECK_INT(sql_int(st, "SELECT poll_interval FROM projects WHERE "
			      "slug = 'p'"),
		  LEC_PROJECT_POLL_MIN_S);
	CHECK_INT(sql_int(st, "SELECT poll_interval FROM projects WHERE "
			      "slug = 'q'"),
		  0);
	CHECK_INT(sql_int(st, "SELECT poll_interval FROM projects WHERE "
			      "slug = 'r'"),
		  600);
	lec_store_free(st);
}

/* Migration 18 (issue 38, item 7): no table's id is ever given again.
 * Rows made at 17, the newest of several deleted, keep their ids and the
 * rows that refer to them (foreign keys were off while tables were
 * rebuilt, so nothing cascaded); indexes and triggers are back; a new row
 * takes the id after the highest ever given. */
TEST(migration_18_never_reuses_any_id)
{
	const char *file = path_in(lec_test_tmpdir(), "m18.db");
	char owned[512];
	struct lec_store *st = NULL;
	int indexes, triggers;

	snprintf(owned, sizeof(owned), "%s", file);
	CHECK_OK(lec_store__open_at(&st, owned, NULL, 17));
	CHECK_OK(lec_store__exec(
		st, "INSERT INTO users (id, username, created) VALUES "
		    "(1, 'a', 1), (2, 'b', 1);"
		    "INSERT INTO projects (id, name, slug, repo_url, created, "
		    "modified) VALUES (1, 'P', 'p', 'https://x/p.git', 1, 1),"
		    " (9, 'Q', 'q', 'https://x/q.git', 1, 1);"
		    "INSERT INTO project_users (project_id, user_id) VALUES "
		    "(1, 1), (9, 2);"
		    "INSERT INTO versions (id, project_id, slug, verbose_name, "
		    "type, identifier, created, modified) VALUES (3, 1, "
		    "'latest', 'latest', 'branch', 'main', 1, 1);"
		    "INSERT INTO builds (id, project_id, version_id, state, "
		    "success, created) VALUES (44, 1, 3, 'finished', 1, 1), "
		    "(45, 9, NULL, 'finished', 1, 1);"
		    "DELETE FROM projects WHERE id = 9;"
		    "DELETE FROM users WHERE id = 2;"));
	indexes = sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			      "type = 'index' AND sql IS NOT NULL");
	triggers = sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			       "type = 'trigger'");
	lec_store_free(st);
	CHECK_OK(lec_store_open(&st, owned, NULL));
	/* Every table keyed by id counts from a sequence now. */
	CHECK_INT(sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			      "type = 'table' AND instr(sql, "
			      "'(  id INTEGER PRIMARY KEY,') > 0"),
		  0);
	CHECK(sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE type = "
			  "'table' AND instr(sql, 'id INTEGER PRIMARY KEY "
			  "AUTOINCREMENT') > 0") >= 15);
	/* The indexes migration 18 rebuilt, not those of tables later
	 * migrations add (22's commit_statuses). */
	CHECK_INT(sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			      "type = 'index' AND sql IS NOT NULL AND "
			      "tbl_name <> 'commit_statuses'"),
		  indexes);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			      "type = 'trigger'"),
		  triggers);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM sqlite_schema WHERE "
			      "name LIKE '%\\_ids' ESCAPE '\\'"),
		  0);
	/* Rows, ids and references kept. */
	CHECK_INT(sql_int(st, "SELECT version_id FROM builds WHERE id = 44"),
		  3);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM project_users"), 1);
	CHECK_INT(sql_int(st, "SELECT count(*) FROM builds"), 1);
	CHECK_INT(sql_int(st, "PRAGMA foreign_keys"), 1);
	/* The highest ids were deleted before the migration: the sequence
	 * starts from what is there (44, 1, 1); deleted after, they are
	 * never given again. */
	CHECK_OK(lec_store__exec(
		st, "INSERT INTO builds (project_id, version_id, state, "
		    "success, created) VALUES (1, 3, 'finished', 1, 2);"
		    "DELETE FROM builds WHERE id = 45;"
		    "INSERT INTO builds (project_id, version_id, state, "
		    "success, created) VALUES (1, 3, 'finished', 1, 3);"
		    "INSERT INTO projects (name, slug, repo_url, created, "
		    "modified) VALUES ('R', 'r', 'https://x/r.git', 1, 1);"
		    "DELETE FROM projects WHERE slug = 'r';"
		    "INSERT INTO projects (name, slug, repo_url, created, "
		    "modified) VALUES ('S', 's', 'https://x/s.git', 1, 1)"));
	CHECK_INT(sql_int(st, "SELECT max(id) FROM builds"), 46);
	CHECK_INT(sql_int(st, "SELECT id FROM projects WHERE slug = 's'"), 3);
	lec_store_free(st);
}

TEST(refuses_newer_schema_untouched)
{
	const char *file = path_in(lec_test_tmpdir(), "new.db");
	char owned[512], before[65536], after[65536];
	struct lec_store *st = NULL;
	sqlite3 *db = NULL;
	size_t n1, n2;

	snprintf(owned, sizeof(owned), "%s", file);
	CHECK(sqlite3_open(owned, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE future (x); PRAGMA user_version "
			       "= 999",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	n1 = slurp(owned, before, sizeof(before));
	CHECK_ERR(lec_store_open(&st, owned, NULL), LEC_ESCHEMA);
	CHECK(strstr(lec_error_last(), "999") != NULL);
	n2 = slurp(owned, after, sizeof(after));
	CHECK(n1 > 0 && n1 == n2 && memcmp(before, after, n1) == 0);
}

TEST(refuses_foreign_sqlite_database)
{
	const char *file = path_in(lec_test_tmpdir(), "foreign.db");
	char owned[512];
	struct lec_store *st = NULL;
	sqlite3 *db = NULL;

	snprintf(owned, sizeof(owned), "%s", file);
	CHECK(sqlite3_open(owned, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE notes (x)", NULL, NULL, NULL) ==
	      SQLITE_OK);
	sqlite3_close(db);
	CHECK_ERR(lec_store_open(&st, owned, NULL), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), "did not create") != NULL);
	CHECK(access(path_in(lec_test_tmpdir(), "foreign.db-wal"), F_OK) != 0);
}

TEST(refuses_garbage_untouched)
{
	static const char garbage[] = "this is not a database at all, "
				      "just some text that someone saved";
	const char *file = path_in(lec_test_tmpdir(), "garbage.db");
	char owned[512], after[256];
	struct lec_store *st = NULL;

	snprintf(owned, sizeof(owned), "%s", file);
	write_file(owned, garbage, sizeof(garbage));
	CHECK_ERR(lec_store_open(&st, owned, NULL), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), owned) != NULL);
	CHECK_INT(slurp(owned, after, sizeof(after)), sizeof(garbage));
	CHECK(memcmp(after, garbage, sizeof(garbage)) == 0);
}

/* A valid header followed by garbage pages: SQLite itself must notice. */
TEST(refuses_corrupt_pages_untouched)
{
	const char *dir = lec_test_tmpdir();
	char owned[512], before[8192], after[8192];
	struct lec_store *st = NULL;
	size_t n;
	int fd;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	snprintf(owned, sizeof(owned), "%s", lec_store_path(st));
	lec_store_free(st);
	/* Keep the 16-byte magic, scribble over the rest of page 1. */
	fd = open(owned, O_WRONLY);
	CHECK(fd >= 0);
	memset(before, 0xA5, 4096);
	CHECK(pwrite(fd, before, 4096 - 16, 16) == 4096 - 16);
	close(fd);
	n = slurp(owned, before, sizeof(before));
	CHECK(lec_store_open(&st, owned, NULL) == LEC_ECORRUPT);
	CHECK(st == NULL);
	CHECK(slurp(owned, after, sizeof(after)) == n);
	CHECK(memcmp(before, after, n) == 0);
}

/* An empty file is damage, never a new store: Lectern makes its store
 * whole under another name and renames it into place. */
TEST(empty_file_is_refused_and_new_stores_are_whole)
{
	const char *dir = lec_test_tmpdir();
	char owned[512], creating[600];
	struct lec_store *st = NULL;
	struct stat sb;

	snprintf(owned, sizeof(owned), "%s", path_in(dir, "empty.db"));
	write_file(owned, "", 0);
	CHECK_ERR(lec_store_open(&st, owned, NULL), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), owned) != NULL);
	CHECK(strstr(lec_error_last(), "empty file") != NULL);
	CHECK(stat(owned, &sb) == 0 && sb.st_size == 0);
	snprintf(owned, sizeof(owned), "%s", path_in(dir, "new.db"));
	snprintf(creating, sizeof(creating), "%s.creating", owned);
	write_file(creating, "left by a crash", 15);
	CHECK_OK(lec_store_open(&st, owned, NULL));
	CHECK(stat(owned, &sb) == 0 && sb.st_size > 0 &&
	      (sb.st_mode & 0777) == 0600);
	CHECK(access(creating, F_OK) != 0);
	CHECK_INT(lec_store_schema_version(st), lec_store_schema_latest());
	lec_store_free(st);
}

/* The start's check: a whole store passes; a page past the schema
 * scribbled over (which opening does not read) is found. */
TEST(check_finds_damaged_pages)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *st = NULL;
	char owned[512], junk[64];
	int complete = 0, pages = 0, size = 0, fd;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	snprintf(owned, sizeof(owned), "%s", lec_store_path(st));
	CHECK_OK(lec_store__exec(st, "CREATE TABLE filler (t TEXT)"));
	CHECK_OK(lec_store__exec(st, "INSERT INTO filler WITH RECURSIVE "
				     "n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
				     "FROM n WHERE i < 2000) SELECT "
				     "printf('row %08d', i) FROM n"));
	CHECK_OK(lec_store_check(st, 10000, &complete));
	CHECK_INT(complete, 1);
	CHECK_OK(lec_store__exec(st, "PRAGMA wal_checkpoint(TRUNCATE)"));
	{
		sqlite3_stmt *s = NULL;

		CHECK(sqlite3_prepare_v2(st->db,
					 "SELECT page_count, page_size FROM "
					 "pragma_page_count, pragma_page_size",
					 -1, &s, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(s) == SQLITE_ROW);
		pages = sqlite3_column_int(s, 0);
		size = sqlite3_column_int(s, 1);
		sqlite3_finalize(s);
	}
	lec_store_free(st);
	CHECK(pages > 4);
	memset(junk, 0xFF, sizeof(junk));
	fd = open(owned, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, junk, sizeof(junk),
				(off_t)(pages / 2) * size) == sizeof(junk));
	close(fd);
	CHECK_OK(lec_store_open(&st, owned, NULL));
	CHECK_ERR(lec_store_check(st, 10000, &complete), LEC_ECORRUPT);
	CHECK(strstr(lec_error_last(), owned) != NULL);
	CHECK(strstr(lec_error_last(), "damaged") != NULL);
	lec_store_free(st);
}

/* A child process holds the write lock; our write must fail with EBUSY
 * after the (short) busy timeout instead of hanging or corrupting. */
TEST(locked_by_another_process)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store_options o = LEC_STORE_OPTIONS_INIT;
	struct lec_store *st = NULL;
	char owned[512], ready;
	int to_parent[2], to_child[2];
	pid_t pid;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	snprintf(owned, sizeof(owned), "%s", lec_store_path(st));
	lec_store_free(st);
	CHECK(pipe(to_parent) == 0 && pipe(to_child) == 0);
	pid = fork();
	if (pid == 0) {
		sqlite3 *db = NULL;
		char go;

		sqlite3_open(owned, &db);
		sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO users "
				 "(username, created) VALUES ('holder', 1)",
			     NULL, NULL, NULL);
		(void)!write(to_parent[1], "r", 1);
		(void)!read(to_child[0], &go, 1);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(db);
		_exit(0);
	}
	CHECK(read(to_parent[0], &ready, 1) == 1);
	o.busy_timeout_ms = 100;
	CHECK_OK(lec_store_open_dir(&st, dir, &o));
	CHECK_ERR(lec_user_create(st, "waiter", NULL), LEC_EBUSY);
	CHECK(strstr(lec_error_last(), "locked") != NULL);
	CHECK(write(to_child[1], "g", 1) == 1);
	waitpid(pid, NULL, 0);
	/* Once released, the same handle works and both rows exist. */
	CHECK_OK(lec_user_create(st, "waiter", NULL));
	CHECK_INT(sql_int(st, "SELECT count(*) FROM users"), 2);
	lec_store_free(st);
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);
}

/* Run as an unprivileged user when we are root, since root can write a
 * 0444 file. Returns the open result as the child's exit status. */
static int open_as_unprivileged(const char *file)
{
	struct lec_store *st = NULL;
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int rc;

		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(100);
		rc = lec_store_open(&st, file, NULL);
		lec_store_free(st);
		_exit(rc == LEC_EREADONLY ? 0 : 1 + (-rc));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

TEST(read_only_file_is_refused)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *st = NULL;
	char owned[512], before[65536], after[65536];
	size_t n;

	CHECK_OK(lec_store_open_dir(&st, dir, NULL));
	CHECK_OK(lec_user_create(st, "alice", NULL));
	snprintf(owned, sizeof(owned), "%s", lec_store_path(st));
	lec_store_free(st);
	CHECK(chmod(dir, 0755) == 0);
	CHECK(chmod(owned, 0444) == 0);
	n = slurp(owned, before, sizeof(before));
	CHECK_INT(open_as_unprivileged(owned), 0);
	CHECK(slurp(owned, after, sizeof(after)) == n);
	CHECK(memcmp(before, after, n) == 0);
}

/* Fail each allocation in turn: every failure is reported, none crashes
 * or leaks (ASan checks the leaks). */
TEST(allocation_failures_are_reported)
{
	const char *dir = lec_test_tmpdir();
	long n;
	int succeeded = 0;

	for (n = 1; n < 200 && !succeeded; n++) {
		struct lec_store *st = NULL;
		struct lec_user_list list = { 0 };
		char *token = NULL;
		struct lec_user *u = NULL;
		int rc;

		lec__alloc_fail_after(n);
		rc = lec_store_open_dir(&st, dir, NULL);
		if (rc == LEC_OK)
			rc = lec_user_ensure(st, "torture", &u);
		if (rc == LEC_OK)
			rc = lec_token_create(st, u->id, &token);
		if (rc == LEC_OK)
			rc = lec_user_list(st, NULL, &list);
		lec__alloc_fail_after(0);
		CHECK(rc == LEC_OK || rc == LEC_ENOMEM);
		if (rc == LEC_ENOMEM)
			CHECK_STR(lec_error_last(), "out of memory");
		succeeded = rc == LEC_OK;
		lec_user_list_dispose(&list);
		lec__free(token);
		lec_user_free(u);
		lec_store_free(st);
	}
	CHECK(succeeded);
	CHECK(n > 5);
}

/* The data version moves on writes through this handle and through any
 * other, and stays put otherwise. */
TEST(data_version_tracks_every_writer)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *a = NULL, *b = NULL;
	uint64_t v1 = 0, v2 = 0, v3 = 0, v4 = 0;

	CHECK_OK(lec_store_open_dir(&a, dir, NULL));
	CHECK_OK(lec_store_open_dir(&b, dir, NULL));
	CHECK_OK(lec_store_read_begin(a));
	CHECK_OK(lec_store_data_version(a, &v1));
	lec_store_read_end(a);
	CHECK_OK(lec_store_read_begin(a));
	CHECK_OK(lec_store_data_version(a, &v2));
	lec_store_read_end(a);
	CHECK(v1 == v2);
	CHECK_OK(lec_user_create(b, "other-handle", NULL));
	CHECK_OK(lec_store_read_begin(a));
	CHECK_OK(lec_store_data_version(a, &v3));
	lec_store_read_end(a);
	CHECK(v3 != v2);
	CHECK_OK(lec_user_create(a, "same-handle", NULL));
	CHECK_OK(lec_store_read_begin(a));
	CHECK_OK(lec_store_data_version(a, &v4));
	lec_store_read_end(a);
	CHECK(v4 != v3);
	lec_store_read_end(NULL);
	lec_store_free(a);
	lec_store_free(b);
}

/* The commit stamp, read without a transaction, is the same through
 * every handle, stays put over reads and a rolled-back write, and moves
 * with every commit: through either handle, through a connection that is
 * not Lectern's, and across a checkpoint that restarts the log. */
TEST(commit_stamp_moves_with_every_commit)
{
	const char *dir = lec_test_tmpdir();
	struct lec_store *a = NULL, *b = NULL;
	sqlite3 *raw = NULL;
	uint64_t seen[5] = { 0 }, s = 0, t = 0;
	size_t i, j;

	CHECK_OK(lec_store_open_dir(&a, dir, NULL));
	CHECK_OK(lec_store_open_dir(&b, dir, NULL));
	CHECK_OK(lec_store_commit_stamp(a, &seen[0]));
	CHECK(seen[0] != 0);
	CHECK_OK(lec_store_commit_stamp(b, &s));
	CHECK(s == seen[0]);
	CHECK_OK(lec_store_read_begin(a));
	lec_store_read_end(a);
	CHECK_OK(lec_store__exec(b, "BEGIN IMMEDIATE"));
	CHECK_OK(lec_store__exec(b, "DELETE FROM users"));
	CHECK_OK(lec_store__exec(b, "ROLLBACK"));
	CHECK_OK(lec_store_commit_stamp(a, &s));
	CHECK(s == seen[0]);
	CHECK_OK(lec_user_create(b, "other-handle", NULL));
	CHECK_OK(lec_store_commit_stamp(a, &seen[1]));
	CHECK_OK(lec_user_create(a, "same-handle", NULL));
	CHECK_OK(lec_store_commit_stamp(a, &seen[2]));
	CHECK_OK(lec_store_commit_stamp(b, &t));
	CHECK(t == seen[2]);
	CHECK(sqlite3_open(a->path, &raw) == SQLITE_OK);
	CHECK(sqlite3_exec(raw, "UPDATE users SET username = 'renamed' WHERE "
			   "username = 'same-handle'", NULL, NULL, NULL) ==
	      SQLITE_OK);
	CHECK_OK(lec_store_commit_stamp(a, &seen[3]));
	CHECK(sqlite3_wal_checkpoint_v2(raw, NULL, SQLITE_CHECKPOINT_TRUNCATE,
					NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(raw, "UPDATE users SET username = 'again' WHERE "
			   "username = 'renamed'", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(raw);
	CHECK_OK(lec_store_commit_stamp(a, &seen[4]));
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++)
			CHECK(seen[i] != seen[j]);
	lec_store_free(a);
	lec_store_free(b);
}

/* A cached statement comes back reset and unbound; one in use is never
 * handed out twice. */
TEST(statement_cache_reuses_safely)
{
	struct lec_store *st = lec_test_store();
	static const char sql[] = "SELECT ?1 + 1";
	sqlite3_stmt *a = NULL, *b = NULL, *c = NULL;

	CHECK_OK(lec_store__prepare(st, &a, sql));
	sqlite3_bind_int(a, 1, 41);
	CHECK(sqlite3_step(a) == SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(a, 0), 42);
	/* While a is out, the same text gets a separate statement. */
	CHECK_OK(lec_store__prepare(st, &b, sql));
	CHECK(b != a);
	lec_store__finalize(st, b);
	lec_store__finalize(st, a);
	CHECK_OK(lec_store__prepare(st, &c, sql));
	CHECK(c == a);
	CHECK(sqlite3_step(c) == SQLITE_ROW);
	CHECK(sqlite3_column_type(c, 0) == SQLITE_NULL); /* bindings cleared */
	lec_store__finalize(st, c);
	lec_store__finalize(st, NULL);
	lec_store_free(st);
}

/* Statements are found by the caller's pointer first: a buffer that held
 * one SQL text and now holds another never gets the old statement, and
 * the same text at another address still finds the cached one. */
TEST(statement_cache_checks_text_behind_address)
{
	struct lec_store *st = lec_test_store();
	char buf[16];
	sqlite3_stmt *a = NULL, *b = NULL, *c = NULL;

	memcpy(buf, "SELECT 1", sizeof("SELECT 1"));
	CHECK_OK(lec_store__prepare(st, &a, buf));
	lec_store__finalize(st, a);
	memcpy(buf, "SELECT 2", sizeof("SELECT 2"));
	CHECK_OK(lec_store__prepare(st, &b, buf));
	CHECK(b != a);
	CHECK(sqlite3_step(b) == SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(b, 0), 2);
	lec_store__finalize(st, b);
	CHECK_OK(lec_store__prepare(st, &c, "SELECT 1"));
	CHECK(c == a);
	CHECK(sqlite3_step(c) == SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(c, 0), 1);
	lec_store__finalize(st, c);
	lec_store_free(st);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(data_version_tracks_every_writer),
	TEST_ENTRY(commit_stamp_moves_with_every_commit),
	TEST_ENTRY(statement_cache_reuses_safely),
	TEST_ENTRY(statement_cache_checks_text_behind_address),
	TEST_ENTRY(creates_private_wal_store),
	TEST_ENTRY(reopen_keeps_data),
	TEST_ENTRY(missing_file_without_create),
	TEST_ENTRY(migrates_from_every_earlier_version),
	TEST_ENTRY(migration_13_never_reuses_ids),
	TEST_ENTRY(migration_14_keeps_delivery_urls_and_raises_polls),
	TEST_ENTRY(migration_18_never_reuses_any_id),
	TEST_ENTRY(refuses_newer_schema_untouched),
	TEST_ENTRY(refuses_foreign_sqlite_database),
	TEST_ENTRY(refuses_garbage_untouched),
	TEST_ENTRY(refuses_corrupt_pages_untouched),
	TEST_ENTRY(empty_file_is_refused_and_new_stores_are_whole),
	TEST_ENTRY(check_finds_damaged_pages),
	TEST_ENTRY(locked_by_another_process),
	TEST_ENTRY(read_only_file_is_refused),
	TEST_ENTRY(allocation_failures_are_reported),
};

LEC_TEST_MAIN(tests)
