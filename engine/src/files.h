/*
 * Files and paths: the engine's lowest floor, below the store and the
 * pipeline. Path joining and mkdir -p; opening a file of a directory a
 * build or a repository controls without ever leaving that directory or
 * blocking (openat2's RESOLVE_BENEATH, regular files only, O_NONBLOCK then
 * fstat); and one walk of a directory tree that holds two descriptors
 * whatever the tree's depth, which removing, re-owning, sanitizing and
 * measuring a tree all use.
 *
 * Every function here sets the thread's error message and returns a
 * LEC_E* code on failure, naming paths as the caller gave them.
 */
#ifndef LECTERN_FILES_H
#define LECTERN_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Paths ------------------------------------------------------------------ */

struct lec__buf;

/* "<a>/<b>", owned by the caller; NULL when out of memory. */
char *lec__path_join(const char *a, const char *b);
/* Append the segments of rel (n bytes, '/'-separated) to out, a normalised
 * relative path: "." and empty segments dropped, ".." taking the last one
 * off. 0 when ".." climbs above the top (out is then partly written). */
int lec__path_push(struct lec__buf *out, const char *rel, size_t n);
/* Write all len bytes of data to fd, again after EINTR and short writes:
 * 0, or -1 with errno set. */
int lec__write_all(int fd, const void *data, size_t len);
/* Replace path's contents with data at once: written to "<path>.tmp"
 * (mode 0600, not through a link), then renamed over path, so a reader
 * sees the old file or the new one, never part of it. LEC_EIO naming the
 * file (the temporary one is removed), LEC_ENOMEM. */
int lec__file_replace(const char *path, const void *data, size_t len);
/* mkdir -p; directories made get mode (their parents too). */
int lec__mkdirs_mode(const char *path, mode_t mode);
/* mkdir -p with mode 0700. */
int lec__mkdirs(const char *path);

/* Opening beneath a directory ---------------------------------------------- */

/* What lec__open_beneath opens. */
enum lec__open_kind {
	LEC__OPEN_FILE, /* a regular file, for reading */
	LEC__OPEN_DIR   /* a directory, for openat and reading */
};

/* Open rel (relative, no "..": a path of the repository or a build) below
 * the directory dirfd: symbolic links are followed only while they stay
 * below it, nothing is opened through /proc's magic links or another
 * mount, a fifo or device is never opened in a way that could block, and
 * only the kind asked for is accepted. *out is a blocking, close-on-exec
 * descriptor the caller closes. LEC_ENOTFOUND (no such file), LEC_EINVALID
 * (errno EXDEV: a link leads out of the directory; else not of that kind),
 * LEC_EIO. */
int lec__open_beneath(int dirfd, const char *rel, enum lec__open_kind kind,
		      int *out);
/* The same below the directory at path dir (a path the engine made). */
int lec__open_in(const char *dir, const char *rel, enum lec__open_kind kind,
		 int *out);
/* Read the regular file rel below dir whole, at most max bytes (more is
 * LEC_EINVALID); *data (NUL-terminated, *len bytes) is the caller's. */
int lec__read_in(const char *dir, const char *rel, size_t max, char **data,
		 size_t *len);
/* Read the open regular file fd, of size bytes as fstat said, whole: one
 * that grew meanwhile is LEC_EIO, as is a failed read, both naming name.
 * *data (NUL-terminated, *len bytes) is the caller's, and so is fd. */
int lec__read_fd(int fd, const char *name, size_t size, char **data,
		 size_t *len);

/* Walking a tree ------------------------------------------------------------ */

enum lec__walk_event {
	LEC__WALK_ENTRY, /* anything but a directory */
	LEC__WALK_ENTER, /* a directory, before its entries */
	LEC__WALK_LEAVE  /* a directory, after its entries */
};

/* What the walk is at: name in the directory dirfd (valid during the
 * call), its lstat, its depth (the walk's top is 0) and its path from the
 * top ("" for the top, "a/b" below it). */
struct lec__walk_at {
	int dirfd;
	const char *name;
	const struct stat *st;
	unsigned depth;
	const char *path;
};

/* Return 0 to go on, LEC__WALK_SKIP from ENTER to leave that directory's
 * entries unvisited (LEAVE still comes), or a negative LEC_E* code to stop
 * the walk with it. */
#define LEC__WALK_SKIP 1
typedef int (*lec__walk_fn)(const struct lec__walk_at *at,
			    enum lec__walk_event event, void *payload);

/* Visit name (in the directory parent, AT_FDCWD for a path) and, when it
 * is a directory, everything below it, depth first, never following a
 * symbolic link. The walk holds at most two descriptors whatever the
 * depth: it goes down and back up through each directory's ".." (safe
 * because nothing else changes the tree meanwhile: callers walk trees no
 * running process can touch). A name that does not exist is no error. */
int lec__walk(int parent, const char *name, lec__walk_fn fn, void *payload);

/* rm -rf of name in parent, never following a link; a missing one is no
 * error. */
int lec__remove_tree_at(int parent, const char *name);
/* rm -rf of path. */
int lec__remove_tree(const char *path);
/* rm -rf of everything inside the directory path, which stays. */
int lec__empty_tree(const char *path);
/* rm -rf of rel below the directory root, rel resolved as
 * lec__open_beneath resolves it: a link the build put in the way is
 * never followed out of root. */
int lec__remove_beneath(const char *root, const char *rel);

/* Copy what remains of in to out, in the kernel when it can; *bytes (or
 * NULL) counts what was copied. */
int lec__copy_fd(int in, int out, size_t *bytes);
/* Copy the directories and regular files of the tree from into to (made
 * when missing; files there are replaced), never following a link; links
 * and special files are left out. */
int lec__copy_tree(const char *from, const char *to);

/* What a tree holds: bytes of disk (blocks allocated), entries, and its
 * deepest level. */
struct lec__tree_size {
	uint64_t bytes;
	uint64_t entries;
	unsigned depth;
};
/* Measure path's tree; a tree that cannot be opened measures 0. */
void lec__tree_measure(const char *path, struct lec__tree_size *out);

#endif
