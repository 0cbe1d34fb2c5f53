/*
 * Files and paths (files.h): opening beneath a directory never leaves it
 * through a link, never opens a fifo or a directory as a file and never
 * blocks; the walk removes, measures and re-owns a tree of 25,000 levels
 * with a handful of descriptors (the process is held to 32 while it does);
 * removing beneath a directory does not follow a link put in the way.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "harness.h"
#include "internal.h"

/* Levels of the deep tree: far past the descriptors a process may hold
 * (held at LOW_FDS while it is walked). */
#define DEEP_LEVELS 25000
#define LOW_FDS 32

static char root[256];
static char outside[256];

static void setup(void)
{
	char path[512];

	const char *base = lec_test_tmpdir(); /* a fresh one each time */

	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	CHECK_OK(lec__mkdirs(root));
	CHECK_OK(lec__mkdirs(outside));
	snprintf(path, sizeof(path), "%s/docs", root);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(root, "docs/req.txt", "sphinx\n");
	lec_test_put(outside, "secret", "host secret\n");
	snprintf(path, sizeof(path), "%s/fifo", outside);
	CHECK(mkfifo(path, 0600) == 0);
	snprintf(path, sizeof(path), "%s/docs/fifo", root);
	CHECK(mkfifo(path, 0600) == 0);
	snprintf(path, sizeof(path), "%s/out", root);
	CHECK(symlink(outside, path) == 0);
	snprintf(path, sizeof(path), "%s/docs/up", root);
	CHECK(symlink("../../outside/secret", path) == 0);
	snprintf(path, sizeof(path), "%s/same", root);
	CHECK(symlink("docs/req.txt", path) == 0);
}

TEST(open_beneath_stays_inside)
{
	char *data = NULL;
	size_t len = 0;
	int fd;

	setup();
	CHECK_OK(lec__read_in(root, "docs/req.txt", 1024, &data, &len));
	CHECK_STR(data, "sphinx\n");
	CHECK_INT(len, 7);
	lec__free(data);
	/* A link that stays inside is followed. */
	CHECK_OK(lec__read_in(root, "same", 1024, &data, &len));
	CHECK_STR(data, "sphinx\n");
	lec__free(data);
	/* Links out, at the end or in the middle, and "..": refused. */
	CHECK_ERR(lec__open_in(root, "out/secret", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	CHECK_INT(errno, EXDEV);
	CHECK_INT(fd, -1);
	CHECK_ERR(lec__open_in(root, "docs/up", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	CHECK_ERR(lec__open_in(root, "../outside/secret", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	CHECK_ERR(lec__open_in(root, "/etc/passwd", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	/* A host fifo through a link, and a fifo inside: never opened in a
	 * way that blocks (this test would hang). */
	CHECK_ERR(lec__open_in(root, "out/fifo", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	CHECK_ERR(lec__open_in(root, "docs/fifo", LEC__OPEN_FILE, &fd),
		  LEC_EINVALID);
	CHECK(errno != EXDEV);
	/* Kinds, and what is not there. */
	CHECK_ERR(lec__open_in(root, "docs", LEC__OPEN_FILE, &fd), LEC_EINVALID);
	CHECK_OK(lec__open_in(root, "docs", LEC__OPEN_DIR, &fd));
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	CHECK_ERR(lec__open_in(root, "docs/none.txt", LEC__OPEN_FILE, &fd),
		  LEC_ENOTFOUND);
	/* Bigger than asked for. */
	CHECK_ERR(lec__read_in(root, "docs/req.txt", 3, &data, &len),
		  LEC_EINVALID);
	CHECK(data == NULL);
}

/* A chain of DEEP_LEVELS directories "d" below path, a file at the bottom. */
static void make_deep(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY), next, i;

	CHECK(fd >= 0);
	for (i = 0; fd >= 0 && i < DEEP_LEVELS; i++) {
		CHECK(mkdirat(fd, "d", 0700) == 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	if (fd >= 0) {
		CHECK((next = openat(fd, "bottom", O_WRONLY | O_CREAT, 0600)) >= 0);
		close(next);
		close(fd);
	}
}

TEST(deep_tree_with_few_descriptors)
{
	struct lec__tree_size size;
	struct rlimit old, low;
	char deep[512];

	snprintf(deep, sizeof(deep), "%s/deep", lec_test_tmpdir());
	CHECK_OK(lec__mkdirs(deep));
	make_deep(deep);
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = LOW_FDS;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	lec__tree_measure(deep, &size);
	CHECK_INT(size.depth, DEEP_LEVELS + 1);
	CHECK_INT(size.entries, DEEP_LEVELS + 2);
	CHECK(size.bytes > 0);
	CHECK_OK(lec__remove_tree(deep));
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	CHECK(access(deep, F_OK) != 0 && errno == ENOENT);
	/* Gone already: no error. */
	CHECK_OK(lec__remove_tree(deep));
}

TEST(remove_unreadable_directories)
{
	const char *base = lec_test_tmpdir();
	char path[512];

	snprintf(path, sizeof(path), "%s/locked/inner", base);
	CHECK_OK(lec__mkdirs(path));
	lec_test_put(path, "f", "x");
	CHECK(chmod(path, 0) == 0);
	snprintf(path, sizeof(path), "%s/locked", base);
	CHECK(chmod(path, 0500) == 0);
	CHECK_OK(lec__remove_tree(path));
	CHECK(access(path, F_OK) != 0);
}

TEST(remove_beneath_never_follows)
{
	char victim[512], venvs[512];

	setup();
	snprintf(victim, sizeof(victim), "%s/latest", outside);
	CHECK_OK(lec__mkdirs(victim));
	lec_test_put(victim, "keep", "host data\n");
	/* venvs is a link to the host directory holding latest/. */
	snprintf(venvs, sizeof(venvs), "%s/venvs", root);
	CHECK(symlink(outside, venvs) == 0);
	CHECK_ERR(lec__remove_beneath(root, "venvs/latest"), LEC_EINVALID);
	CHECK(access(victim, F_OK) == 0);
	/* The link itself can go, and only the link. */
	CHECK_OK(lec__remove_beneath(root, "venvs"));
	CHECK(access(venvs, F_OK) != 0);
	CHECK(access(victim, F_OK) == 0);
	/* What is not there is no error; "..": refused. */
	CHECK_OK(lec__remove_beneath(root, "nothing/here"));
	CHECK_ERR(lec__remove_beneath(root, "docs/.."), LEC_EINVALID);
	CHECK(access(root, F_OK) == 0);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(open_beneath_stays_inside),
	TEST_ENTRY(deep_tree_with_few_descriptors),
	TEST_ENTRY(remove_unreadable_directories),
	TEST_ENTRY(remove_beneath_never_follows),
};

LEC_TEST_MAIN(tests)
