/*
 * The engine tests' harness (see harness.h): temporary directories and
 * stores for the cases, and the runner that cleans the directories up.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "lectern/store.h"
#include "store_internal.h"

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

/* Copy the file from to to (a new file); 0, or -1 with errno set. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n = 0;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (out >= 0 && n == 0)
		rc = 0;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc;
}

static void open_or_exit(struct lec_store **store, const char *dir)
{
	if (lec_store_open_dir(store, dir, NULL) != LEC_OK) {
		fprintf(stderr, "cannot open a test store: %s\n",
			lec_error_last());
		exit(2);
	}
}

/* Each test store starts as a copy of one store, made (migrated) once per
 * run: the migrations cost tens of milliseconds a store, a copy of the
 * closed file almost nothing, and test_store tests the migrations. */
struct lec_store *lec_test_store(void)
{
	static char template_file[PATH_MAX];
	struct lec_store *store = NULL;
	char file[PATH_MAX];
	const char *dir = lec_test_tmpdir();

	if (template_file[0] == '\0') {
		const char *at = lec_test_tmpdir();

		open_or_exit(&store, at);
		lec_store_free(store);
		snprintf(template_file, sizeof(template_file), "%s/%s", at,
			 LEC_STORE_FILE_NAME);
	}
	snprintf(file, sizeof(file), "%s/%s", dir, LEC_STORE_FILE_NAME);
	if (copy_file(template_file, file) != 0) {
		perror(file);
		exit(2);
	}
	open_or_exit(&store, dir);
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

int lec_test_main(int argc, char **argv, const struct lec_test *tests,
		  size_t count)
{
	atexit(remove_tmpdirs);
	return lec_test_run(argc, argv, tests, count);
}

int lec_test_processes(const char *a, const char *b)
{
	static char line[64 * 1024];
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int count = 0;

	while (proc && (de = readdir(proc)) != NULL) {
		char path[300];
		ssize_t n, i;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		for (i = 0; i < n; i++)
			if (line[i] == '\0')
				line[i] = ' ';
		line[n > 0 ? n : 0] = '\0';
		if (strstr(line, a) && (b == NULL || strstr(line, b)))
			count++;
	}
	if (proc)
		closedir(proc);
	return count;
}

void lec_test_pathf(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, cap, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap) {
		fprintf(stderr, "path too long\n");
		exit(2);
	}
}

void lec_test_put(const char *dir, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}
