/*
 * Files and paths (files.h): the helpers every floor of the engine above
 * may use, and which use nothing of the engine but errors and allocation.
 *
 * Opening beneath a directory is openat2(2) with RESOLVE_BENEATH (Linux
 * 5.6); where the kernel lacks it the path is walked one component at a
 * time with O_NOFOLLOW, which refuses every link rather than only those
 * that leave. Either way the file is opened O_NONBLOCK and checked with
 * fstat before anything reads it: a fifo a build planted answers "not a
 * regular file" instead of blocking a worker forever.
 *
 * The walk keeps a stack of names, not of descriptors: a directory is
 * read whole (its files visited, its subdirectories' names kept), then
 * each subdirectory is entered with openat and left through "..". A tree
 * of any depth costs memory for its names, never the process's descriptor
 * table, and there is no recursion.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "files.h"
#include "internal.h"

/* openat2 answers EAGAIN when a rename raced its lookup: try this often. */
#define OPEN_BENEATH_TRIES 8
/* Bytes copied per call. */
#define COPY_CHUNK (1024 * 1024)

/* Paths ------------------------------------------------------------------ */

char *lec__path_join(const char *a, const char *b)
{
	struct lec__buf buf = LEC__BUF_INIT;

	lec__buf_printf(&buf, "%s/%s", a, b);
	return lec__buf_take(&buf);
}

int lec__path_push(struct lec__buf *out, const char *rel, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		while (j < n && rel[j] != '/')
			j++;
		if (j - i == 2 && rel[i] == '.' && rel[i + 1] == '.') {
			size_t k = out->len;

			if (k == 0)
				return 0;
			while (k > 0 && out->ptr[k - 1] != '/')
				k--;
			out->len = k > 0 ? k - 1 : 0;
		} else if (j > i && !(j - i == 1 && rel[i] == '.')) {
			if (out->len)
				lec__buf_putn(out, "/", 1);
			lec__buf_putn(out, rel + i, j - i);
		}
		i = j + 1;
	}
	return 1;
}

int lec__write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lec__file_replace(const char *path, const void *data, size_t len)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *tmp;
	int fd, ok, error = LEC_OK;

	lec__buf_printf(&b, "%s.tmp", path);
	if ((tmp = lec__buf_take(&b)) == NULL)
		return LEC_ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0) {
		error = lec__error(LEC_EIO, "%s: %s", tmp, strerror(errno));
	} else {
		ok = lec__write_all(fd, data, len) == 0;
		if (close(fd) < 0 || !ok || rename(tmp, path) < 0) {
			error = lec__error(LEC_EIO, "%s: %s", path,
					   strerror(errno));
			unlink(tmp);
		}
	}
	lec__free(tmp);
	return error;
}

int lec__mkdirs_mode(const char *path, mode_t mode)
{
	char *copy = lec__strdup(path);
	char *p;
	int error = LEC_OK;

	LEC__CHECK_ALLOC(copy);
	for (p = copy + 1; error == LEC_OK; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
			error = lec__error(LEC_EIO, "%s: cannot create: %s",
					   copy, strerror(errno));
		*p = c;
		if (c == '\0')
			break;
	}
	lec__free(copy);
	return error;
}

int lec__mkdirs(const char *path)
{
	return lec__mkdirs_mode(path, 0700);
}

/* Opening beneath a directory ---------------------------------------------- */

/* Without openat2: one component at a time, no link followed, no "..". */
static int open_by_components(int dirfd, const char *rel, int flags)
{
	char *copy = lec__strdup(rel), *part, *next, *save = NULL;
	int fd = -1, at = dirfd, saved;

	if (copy == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (rel[0] == '/') {
		errno = EXDEV;
		goto done;
	}
	for (part = strtok_r(copy, "/", &save); part; part = next) {
		next = strtok_r(NULL, "/", &save);
		if (strcmp(part, "..") == 0) {
			errno = EXDEV;
			fd = -1;
			break;
		}
		fd = openat(at, part,
			    (next ? O_RDONLY | O_DIRECTORY | O_CLOEXEC : flags) |
				    O_NOFOLLOW);
		if (at != dirfd)
			close(at);
		at = dirfd;
		if (fd < 0)
			break;
		at = fd;
	}
done:
	saved = errno;
	lec__free(copy);
	errno = saved;
	return fd;
}

static int open_resolved(int dirfd, const char *rel, int flags)
{
	struct open_how how;
	int fd = -1, tries;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)flags;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	for (tries = 0; tries < OPEN_BENEATH_TRIES; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		return open_by_components(dirfd, rel, flags);
	return fd;
}

int lec__open_beneath(int dirfd, const char *rel, enum lec__open_kind kind,
		      int *out)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		    (kind == LEC__OPEN_DIR ? O_DIRECTORY : 0);
	struct stat sb;
	int fd;

	*out = -1;
	if (rel == NULL || *rel == '\0')
		return lec__error(LEC_EINVALID, "no file named");
	if ((fd = open_resolved(dirfd, rel, flags)) < 0) {
		if (errno == ENOENT || (errno == ENOTDIR && kind == LEC__OPEN_FILE))
			return lec__error(LEC_ENOTFOUND, "%s: no such file", rel);
		if (errno == EXDEV || errno == ELOOP) {
			lec__error(LEC_EINVALID,
				   "%s: a link leads out of the directory", rel);
			errno = EXDEV;
			return LEC_EINVALID;
		}
		if (errno == ENOTDIR)
			return lec__error(LEC_EINVALID, "%s: not a directory",
					  rel);
		return lec__error(LEC_EIO, "%s: %s", rel, strerror(errno));
	}
	if (fstat(fd, &sb) != 0 ||
	    !(kind == LEC__OPEN_DIR ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode))) {
		close(fd);
		lec__error(LEC_EINVALID, "%s: not a %s", rel,
			   kind == LEC__OPEN_DIR ? "directory" : "regular file");
		errno = EINVAL;
		return LEC_EINVALID;
	}
	/* A regular file never blocks; reads may now wait for the disk. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		return lec__error(LEC_EIO, "%s: %s", rel, strerror(errno));
	}
	*out = fd;
	return LEC_OK;
}

int lec__open_in(const char *dir, const char *rel, enum lec__open_kind kind,
		 int *out)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int error, saved;

	*out = -1;
	if (dirfd < 0)
		return lec__error(errno == ENOENT ? LEC_ENOTFOUND : LEC_EIO,
				  "%s: %s", dir, strerror(errno));
	error = lec__open_beneath(dirfd, rel, kind, out);
	saved = errno;
	close(dirfd);
	errno = saved; /* what lec__open_beneath said of a refusal */
	return error;
}

int lec__read_fd(int fd, const char *name, size_t size, char **data,
		 size_t *len)
{
	char *buf = lec__malloc(size + 2);
	size_t n = 0;
	ssize_t got;

	LEC__CHECK_ALLOC(buf);
	/* One byte more than the size tells a file that grew meanwhile. */
	while (n <= size) {
		got = read(fd, buf + n, size + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			lec__free(buf);
			return lec__error(LEC_EIO, "%s: %s", name,
					  strerror(errno));
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > size) {
		lec__free(buf);
		return lec__error(LEC_EIO, "%s: the file changed while it was "
					   "read",
				  name);
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return LEC_OK;
}

int lec__read_in(const char *dir, const char *rel, size_t max, char **data,
		 size_t *len)
{
	struct stat sb;
	int fd, error;

	*data = NULL;
	*len = 0;
	if ((error = lec__open_in(dir, rel, LEC__OPEN_FILE, &fd)) < 0)
		return error;
	if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size > max)
		error = lec__error(LEC_EINVALID, "%s: larger than %zu bytes",
				   rel, max);
	else
		error = lec__read_fd(fd, rel, (size_t)sb.st_size, data, len);
	close(fd);
	return error;
}

/* Walking a tree ------------------------------------------------------------ */

/* A directory being walked: its name in its parent, its lstat, and the
 * names of its subdirectories, entered one after the other. */
struct frame {
	char *name;
	size_t path_len; /* of its path in the walk's path buffer */
	struct stat st;
	char **subdirs;
	size_t nsub, next, cap;
};

struct walk {
	lec__walk_fn fn;
	void *payload;
	struct frame *stack;
	size_t depth, cap; /* frames in use, room */
	struct lec__buf path; /* of what is visited */
};

/* The path of name in the directory whose path is base bytes long. */
static const char *walk_path(struct walk *w, size_t base, const char *name)
{
	w->path.len = base;
	if (base > 0)
		lec__buf_putn(&w->path, "/", 1);
	lec__buf_puts(&w->path, name);
	return w->path.oom ? NULL : w->path.ptr;
}

static void frame_dispose(struct frame *f)
{
	size_t i;

	for (i = f->next; i < f->nsub; i++)
		lec__free(f->subdirs[i]);
	lec__free(f->subdirs);
	lec__free(f->name);
}

static int frame_push(struct walk *w, const char *name, const struct stat *st,
		      size_t path_len)
{
	struct frame *f;

	if (lec__grow((void **)&w->stack, &w->cap, w->depth,
		      sizeof(*w->stack), 16) < 0)
		return LEC_ENOMEM;
	f = &w->stack[w->depth];
	memset(f, 0, sizeof(*f));
	f->st = *st;
	f->path_len = path_len;
	LEC__CHECK_ALLOC(f->name = lec__strdup(name));
	w->depth++;
	return LEC_OK;
}

static int subdir_add(struct frame *f, const char *name)
{
	if (lec__grow((void **)&f->subdirs, &f->cap, f->nsub,
		      sizeof(*f->subdirs), 8) < 0)
		return LEC_ENOMEM;
	LEC__CHECK_ALLOC(f->subdirs[f->nsub] = lec__strdup(name));
	f->nsub++;
	return LEC_OK;
}

/* Visit the current directory's non-directories, keep its subdirectories'
 * names in the top frame. */
static int read_dir(struct walk *w, int cur)
{
	struct frame *f = &w->stack[w->depth - 1];
	int copy = dup(cur), error = LEC_OK;
	DIR *dir = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;
	struct stat st;

	if (dir == NULL) {
		if (copy >= 0)
			close(copy);
		return lec__error(LEC_EIO, "%s: %s", f->name, strerror(errno));
	}
	while (error == LEC_OK && (e = readdir(dir)) != NULL) {
		struct lec__walk_at at = { cur, e->d_name, &st,
					   (unsigned)w->depth, NULL };

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(cur, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISDIR(st.st_mode) &&
		    (at.path = walk_path(w, f->path_len, e->d_name)) == NULL)
			error = lec__error_oom();
		if (error < 0)
			break;
		error = S_ISDIR(st.st_mode)
				? subdir_add(f, e->d_name)
				: w->fn(&at, LEC__WALK_ENTRY, w->payload);
	}
	closedir(dir);
	return error < 0 ? error : LEC_OK;
}

/* Enter name (a directory of cur) when the callback wants it: *cur
 * becomes it and a frame is pushed; or visit it as left at once. */
static int enter(struct walk *w, int *cur, const char *name)
{
	struct stat st;
	struct lec__walk_at at = { *cur, name, &st, (unsigned)w->depth, NULL };
	int rc, fd;

	if (fstatat(*cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return LEC_OK; /* gone meanwhile */
	if ((at.path = walk_path(w, w->stack[w->depth - 1].path_len, name)) ==
	    NULL)
		return lec__error_oom();
	if (!S_ISDIR(st.st_mode))
		return w->fn(&at, LEC__WALK_ENTRY, w->payload);
	if ((rc = w->fn(&at, LEC__WALK_ENTER, w->payload)) < 0)
		return rc;
	if (rc == LEC__WALK_SKIP)
		return w->fn(&at, LEC__WALK_LEAVE, w->payload);
	fd = openat(*cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) /* unreadable: its entries stay unvisited */
		return w->fn(&at, LEC__WALK_LEAVE, w->payload);
	if ((rc = frame_push(w, name, &st, w->path.len)) < 0) {
		close(fd);
		return rc;
	}
	close(*cur);
	*cur = fd;
	return read_dir(w, fd);
}

/* Leave the top directory through ".." and visit it as left; *cur
 * becomes its parent. */
static int leave(struct walk *w, int *cur)
{
	struct frame *f = &w->stack[w->depth - 1];
	const struct stat *parent = &w->stack[w->depth - 2].st;
	struct lec__walk_at at = { -1, f->name, &f->st,
				   (unsigned)w->depth - 1, NULL };
	int up = openat(*cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
	struct stat st;

	if (up < 0)
		return lec__error(LEC_EIO, "%s/..: %s", f->name, strerror(errno));
	/* ".." is the directory we came down from unless someone moved
	 * this one meanwhile: then stop rather than walk elsewhere. */
	if (fstat(up, &st) != 0 || st.st_dev != parent->st_dev ||
	    st.st_ino != parent->st_ino) {
		close(up);
		return lec__error(LEC_EIO, "%s: the tree changed while it was "
					   "walked",
				  f->name);
	}
	close(*cur);
	*cur = up;
	at.dirfd = up;
	w->path.len = f->path_len;
	w->path.ptr[f->path_len] = '\0';
	at.path = w->path.ptr;
	rc = w->fn(&at, LEC__WALK_LEAVE, w->payload);
	frame_dispose(f);
	w->depth--;
	return rc;
}

int lec__walk(int parent, const char *name, lec__walk_fn fn, void *payload)
{
	struct walk w = { fn, payload, NULL, 0, 0, LEC__BUF_INIT };
	struct stat st;
	struct lec__walk_at top = { parent, name, &st, 0, "" };
	int cur = -1, rc;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? LEC_OK
				       : lec__error(LEC_EIO, "%s: %s", name,
						    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fn(&top, LEC__WALK_ENTRY, payload);
	if ((rc = fn(&top, LEC__WALK_ENTER, payload)) < 0)
		return rc;
	if (rc == LEC__WALK_SKIP)
		return fn(&top, LEC__WALK_LEAVE, payload);
	cur = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cur < 0)
		return lec__error(LEC_EIO, "%s: %s", name, strerror(errno));
	if ((rc = frame_push(&w, name, &st, 0)) == LEC_OK)
		rc = read_dir(&w, cur);
	/* Down into each subdirectory in turn, up when one is done; the top
	 * directory is left through the caller's descriptor instead. */
	while (rc >= 0) {
		struct frame *f = &w.stack[w.depth - 1];
		char *sub;

		if (f->next == f->nsub) {
			if (w.depth == 1)
				break;
			rc = leave(&w, &cur);
			continue;
		}
		sub = f->subdirs[f->next++];
		rc = enter(&w, &cur, sub); /* may move w.stack */
		lec__free(sub);
	}
	close(cur);
	if (rc >= 0)
		rc = fn(&top, LEC__WALK_LEAVE, payload);
	while (w.depth > 0)
		frame_dispose(&w.stack[--w.depth]);
	lec__free(w.stack);
	lec__buf_dispose(&w.path);
	return rc < 0 ? rc : LEC_OK;
}

/* Copying --------------------------------------------------------------------- */

int lec__copy_fd(int in, int out, size_t *bytes)
{
	char *buf = NULL;
	ssize_t n, w;
	int error = LEC_OK;

	while ((n = copy_file_range(in, NULL, out, NULL, COPY_CHUNK, 0)) > 0)
		if (bytes)
			*bytes += (size_t)n;
	if (n == 0)
		return LEC_OK;
	if (errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
	    errno != EOPNOTSUPP)
		return lec__error(LEC_EIO, "cannot copy: %s", strerror(errno));
	LEC__CHECK_ALLOC(buf = lec__malloc(COPY_CHUNK));
	while (error == LEC_OK && (n = read(in, buf, COPY_CHUNK)) != 0) {
		ssize_t done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			error = lec__error(LEC_EIO, "cannot copy: %s",
					   strerror(errno));
		while (error == LEC_OK && done < n) {
			if ((w = write(out, buf + done, (size_t)(n - done))) < 0 &&
			    errno != EINTR)
				error = lec__error(LEC_EIO, "cannot copy: %s",
						   strerror(errno));
			done += w > 0 ? w : 0;
		}
		if (bytes && error == LEC_OK)
			*bytes += (size_t)n;
	}
	lec__free(buf);
	return error;
}

struct copying {
	const char *to;
	struct lec__buf dst;
};

static int copy_visit(const struct lec__walk_at *at,
		      enum lec__walk_event event, void *payload)
{
	struct copying *c = payload;
	int in, out, error;

	if (event == LEC__WALK_LEAVE ||
	    (event == LEC__WALK_ENTRY && !S_ISREG(at->st->st_mode)))
		return 0;
	c->dst.len = 0;
	lec__buf_printf(&c->dst, "%s%s%s", c->to, at->depth ? "/" : "",
			at->path);
	if (c->dst.oom)
		return lec__error_oom();
	if (event == LEC__WALK_ENTER)
		return mkdir(c->dst.ptr, 0755) == 0 || errno == EEXIST
			       ? 0
			       : lec__error(LEC_EIO, "%s: cannot create: %s",
					    c->dst.ptr, strerror(errno));
	in = openat(at->dirfd, at->name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return lec__error(LEC_EIO, "%s: %s", at->path, strerror(errno));
	out = open(c->dst.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				       O_CLOEXEC,
		   0644);
	error = out < 0 ? lec__error(LEC_EIO, "%s: cannot create: %s",
				     c->dst.ptr, strerror(errno))
			: lec__copy_fd(in, out, NULL);
	close(in);
	if (out >= 0)
		close(out);
	return error;
}

int lec__copy_tree(const char *from, const char *to)
{
	struct copying c = { to, LEC__BUF_INIT };
	int error = lec__walk(AT_FDCWD, from, copy_visit, &c);

	lec__buf_dispose(&c.dst);
	return error;
}

/* Removing and measuring ------------------------------------------------------ */

struct removal {
	int error;     /* errno of the top's removal; 0: removed */
	int keep_top;  /* only what is inside the top goes */
};

static int remove_visit(const struct lec__walk_at *at,
			enum lec__walk_event event, void *payload)
{
	struct removal *r = payload;

	if (event == LEC__WALK_ENTER) {
		/* A directory its builder made unreadable or unwritable is
		 * removed all the same. */
		if ((at->st->st_mode & 0700) != 0700)
			fchmodat(at->dirfd, at->name, 0700, 0);
		return 0;
	}
	if (at->depth == 0 && r->keep_top)
		return 0;
	if (unlinkat(at->dirfd, at->name,
		     event == LEC__WALK_LEAVE ? AT_REMOVEDIR : 0) != 0 &&
	    errno != ENOENT && at->depth == 0)
		r->error = errno;
	return 0;
}

int lec__remove_tree_at(int parent, const char *name)
{
	struct removal r = { 0, 0 };
	int error = lec__walk(parent, name, remove_visit, &r);

	if (error < 0)
		return error;
	return r.error ? lec__error(LEC_EIO, "%s: cannot remove: %s", name,
				    strerror(r.error))
		       : LEC_OK;
}

int lec__remove_tree(const char *path)
{
	return lec__remove_tree_at(AT_FDCWD, path);
}

int lec__empty_tree(const char *path)
{
	struct removal r = { 0, 1 };

	return lec__walk(AT_FDCWD, path, remove_visit, &r);
}

int lec__remove_beneath(const char *root, const char *rel)
{
	char *dir = lec__strdup(rel), *base;
	int parent = -1, error;

	LEC__CHECK_ALLOC(dir);
	if ((base = strrchr(dir, '/')) == NULL) {
		base = dir;
		error = lec__open_in(root, ".", LEC__OPEN_DIR, &parent);
	} else {
		*base++ = '\0';
		error = lec__open_in(root, dir, LEC__OPEN_DIR, &parent);
	}
	if (error == LEC_ENOTFOUND)
		error = LEC_OK; /* nothing there to remove */
	else if (error == LEC_OK && (*base == '\0' || strcmp(base, ".") == 0 ||
				     strcmp(base, "..") == 0))
		error = lec__error(LEC_EINVALID, "%s: not a removable name", rel);
	else if (error == LEC_OK)
		error = lec__remove_tree_at(parent, base);
	if (parent >= 0)
		close(parent);
	lec__free(dir);
	return error;
}

static int measure_visit(const struct lec__walk_at *at,
			 enum lec__walk_event event, void *payload)
{
	struct lec__tree_size *t = payload;

	if (event == LEC__WALK_LEAVE)
		return 0;
	t->bytes += (uint64_t)at->st->st_blocks * 512u;
	t->entries++;
	if (at->depth > t->depth)
		t->depth = at->depth;
	return 0;
}

void lec__tree_measure(const char *path, struct lec__tree_size *out)
{
	memset(out, 0, sizeof(*out));
	if (lec__walk(AT_FDCWD, path, measure_visit, out) < 0)
		memset(out, 0, sizeof(*out));
}
