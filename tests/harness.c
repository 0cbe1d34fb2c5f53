/*
 * The test harness's runner: runs every case of a table (or those named on
 * the command line), counts failures, and cleans the temporary directories.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/store.h"
#include "store_internal.h"

int lec_test_failures;

#define MAX_TMPDIRS 256
static char *tmpdirs[MAX_TMPDIRS];
static int ntmpdirs;

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmpdirs(void)
{
	int i;

	if (getenv("LEC_TEST_KEEP"))
		return;
	for (i = 0; i < ntmpdirs; i++) {
		nftw(tmpdirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(tmpdirs[i]);
	}
	ntmpdirs = 0;
}

const char *lec_test_tmpdir(void)
{
	char tmpl[] = "/tmp/lectern-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL || ntmpdirs == MAX_TMPDIRS) {
		perror("mkdtemp");
		exit(2);
	}
	tmpdirs[ntmpdirs] = strdup(dir);
	return tmpdirs[ntmpdirs++];
}

struct lec_store *lec_test_store(void)
{
	struct lec_store *store = NULL;

	if (lec_store_open_dir(&store, lec_test_tmpdir(), NULL) != LEC_OK) {
		fprintf(stderr, "cannot open a test store: %s\n",
			lec_error_last());
		exit(2);
	}
	return store;
}

int64_t lec_test_project(struct lec_store *store, const char *slug)
{
	sqlite3_stmt *stmt = NULL;
	int64_t id = 0;

	if (lec_store__prepare(store, &stmt,
			       "INSERT INTO projects (name, slug, repo_url, "
			       "created, modified) VALUES (?1, ?1, "
			       "'https://example.org/r.git', 0, 0)") != LEC_OK) {
		FAIL_AT("prepare: %s", lec_error_last());
		return 0;
	}
	sqlite3_bind_text(stmt, 1, slug, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(store->db);
	else
		FAIL_AT("insert project %s: %s", slug, sqlite3_errmsg(store->db));
	lec_store__finalize(store, stmt);
	return id;
}

static int selected(int argc, char **argv, const char *name)
{
	int i;

	if (argc <= 1)
		return 1;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int lec_test_main(int argc, char **argv, const struct lec_test *tests,
		  size_t count)
{
	int passed = 0, failed = 0;
	size_t i;

	atexit(remove_tmpdirs);
	for (i = 0; i < count; i++) {
		int before = lec_test_failures;

		if (!selected(argc, argv, tests[i].name))
			continue;
		tests[i].fn();
		if (lec_test_failures == before) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
