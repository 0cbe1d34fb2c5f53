/*
 * What the parts of the Markdown site generator (mdsite.c, mdsite_walk.c,
 * mdsite_kept.c) share about the site being built (mdsite_site.h): its
 * warnings, growable arrays, escaped text and where a path lies, and the
 * trees it writes into (the output, the state's pages), always beneath a
 * directory descriptor, never through a symbolic link: a file is created
 * with O_NOFOLLOW, linked from an open descriptor, or copied from one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "mdsite_site.h"

void lec_mdsite__warn(struct lec_mdsite__site *s, const char *fmt, ...)
{
	char msg[LEC_MDSITE__WARNING_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->stats->warnings++;
	if (s->opts->warn != NULL)
		s->opts->warn(msg, s->opts->warn_payload);
	else
		fprintf(stderr, "mdsite: warning: %s\n", msg);
}

void lec_mdsite__tree_close(struct lec_mdsite__tree *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	lec_mdsite__map_dispose(&t->dirs);
}

/* s made valid UTF-8, then HTML-escaped. Owned by caller. */
char *lec_mdsite__escape_text(const char *s)
{
	struct lec__buf fixed = LEC__BUF_INIT;
	struct lec__buf out = LEC__BUF_INIT;
	size_t n = strlen(s);

	if (lec_mdsite__utf8_repair(s, n, &fixed) > 0)
		lec_mdsite__html_escape(&out, fixed.ptr, fixed.len);
	else
		lec_mdsite__html_escape(&out, s, n);
	if (fixed.oom)
		out.oom = 1;
	lec__buf_dispose(&fixed);
	return lec__buf_take(&out);
}

/* Whether path (absolute, normalised) is root or lies under it. */
int lec_mdsite__path_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1) /* "/" */
		return 1;
	return strncmp(path, root, n) == 0 &&
	       (path[n] == '/' || path[n] == '\0');
}

/* Trees -------------------------------------------------------------------- */

/* Make the directory rel (and its parents) in t once. */
static int make_dir(struct lec_mdsite__tree *t, const char *rel, size_t n)
{
	char path[PATH_MAX];
	size_t parent = n;
	int error;

	if (n == 0 || lec_mdsite__map_get(&t->dirs, rel, n) != NULL)
		return LEC_OK;
	if (n >= sizeof(path))
		return lec__error(LEC_EIO,
				  "cannot create %s/%.*s: path too "
				  "long",
				  t->name, (int)n, rel);
	while (parent > 0 && rel[parent - 1] != '/')
		parent--;
	if (parent > 0 && (error = make_dir(t, rel, parent - 1)) < 0)
		return error;
	memcpy(path, rel, n);
	path[n] = '\0';
	if (mkdirat(t->fd, path, 0755) != 0 && errno != EEXIST)
		return lec__error(LEC_EIO, "cannot create %s/%s: %s", t->name,
				  path, strerror(errno));
	return lec_mdsite__map_put(&t->dirs, rel, n, 1);
}

static int make_parent(struct lec_mdsite__tree *t, const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? make_dir(t, rel, (size_t)(slash - rel)) : LEC_OK;
}

/* LEC_EIO: rel in t cannot be written (errno says why). */
static int cannot_write(const struct lec_mdsite__tree *t, const char *rel)
{
	return lec__error(LEC_EIO, "cannot write %s/%s: %s", t->name, rel,
			  strerror(errno));
}

/* Open rel in t for writing, created or emptied, not through a link. */
static int open_for_write(const struct lec_mdsite__tree *t, const char *rel,
			  int *fd)
{
	*fd = openat(t->fd, rel,
		     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		     0644);
	return *fd < 0 ? cannot_write(t, rel) : LEC_OK;
}

int lec_mdsite__write_file(struct lec_mdsite__tree *t, const char *rel,
			   const char *data, size_t len)
{
	int fd, error;

	if ((error = make_parent(t, rel)) < 0 ||
	    (error = open_for_write(t, rel, &fd)) < 0)
		return error;
	if (lec__write_all(fd, data, len) < 0) {
		error = cannot_write(t, rel);
		close(fd);
		return error;
	}
	return close(fd) != 0 ? cannot_write(t, rel) : LEC_OK;
}

/* Make rel in t (its directory made, an older file replaced) a hard link
 * to `from` in from_dir (linkat's flags); *linked is 0 when that cannot be
 * (another file system), and the caller writes the file instead. */
int lec_mdsite__link_into(struct lec_mdsite__tree *t, const char *rel,
			  int from_dir, const char *from, int flags,
			  int *linked)
{
	int error;

	*linked = 0;
	if ((error = make_parent(t, rel)) < 0)
		return error;
	if (unlinkat(t->fd, rel, 0) != 0 && errno != ENOENT)
		return lec__error(LEC_EIO, "cannot replace %s/%s: %s", t->name,
				  rel, strerror(errno));
	*linked = linkat(from_dir, from, t->fd, rel, flags) == 0;
	return LEC_OK;
}

/* link_into for an open file: the link is made from the descriptor, so
 * what lands in t is the file that was checked, whatever its name leads to
 * by then. */
int lec_mdsite__link_open_file(struct lec_mdsite__tree *t, const char *rel,
			       int in, int *linked)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", in);
	return lec_mdsite__link_into(t, rel, AT_FDCWD, proc, AT_SYMLINK_FOLLOW,
				     linked);
}

/* Copy the open file `in` to rel in t: bytes through the kernel when it
 * can, else through a buffer. */
int lec_mdsite__copy_data(struct lec_mdsite__tree *t, int in, const char *rel)
{
	char chunk[1 << 16];
	int out, error;
	ssize_t n;

	if ((error = open_for_write(t, rel, &out)) < 0)
		return error;
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
		;
	if (n < 0) {
		if (lseek(in, 0, SEEK_SET) != 0 || ftruncate(out, 0) != 0 ||
		    lseek(out, 0, SEEK_SET) != 0)
			n = -1;
		else
			while ((n = read(in, chunk, sizeof(chunk))) > 0 &&
			       lec__write_all(out, chunk, (size_t)n) == 0)
				;
	}
	if (n != 0)
		error = lec__error(LEC_EIO, "cannot copy to %s/%s: %s", t->name,
				   rel, strerror(errno));
	if (close(out) != 0 && error == LEC_OK)
		error = cannot_write(t, rel);
	return error;
}
