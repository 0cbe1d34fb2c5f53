/*
 * A version's kept checkout (build_tree.c) brought from one commit to the
 * next by the tree diff instead of written again: removals first, then the
 * files added or changed, each written as a fresh checkout writes it
 * (lec_repo__write_entry, beneath the target without following a link),
 * and each change told to the caller with what it means for the pages: a
 * document changed only within itself, or in its outline (titles, labels,
 * toctrees) that other pages see. And the listing of a commit's files the
 * kept tree's manifest is made from.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "files.h"
#include "repo_internal.h"

/* Blobs larger than this are never read for their outline: a document
 * that large is rare, and it is then treated as an outline change. */
#define OUTLINE_BLOB_MAX (4 * 1024 * 1024)

struct update {
	struct lec_repo__checkout co;
	int rootfd;
	lec_repo_change_cb changed;
};

/* The directory holding path (a copy, cut in place) below u's root,
 * entered one component at a time without following a link; missing
 * directories made when create. *base is the last component. */
static int open_parent(struct update *u, char *path, int create,
		       const char **base, int *out)
{
	char *part, *next, *save = NULL;
	int fd = dup(u->rootfd), child;
	unsigned depth = 0;

	*out = -1;
	for (part = strtok_r(path, "/", &save); fd >= 0 && part; part = next) {
		next = strtok_r(NULL, "/", &save);
		if (!lec_repo__safe_name(part) ||
		    ++depth > LEC_REPO__DEPTH_MAX) {
			close(fd);
			return lec__error(LEC_ECORRUPT,
					  "refusing to write "
					  "'%s': the path leaves the target",
					  part);
		}
		if (next == NULL) {
			*base = part;
			*out = fd;
			return LEC_OK;
		}
		if (create && mkdirat(fd, part, 0777) != 0 && errno != EEXIST) {
			close(fd);
			return lec_repo__os_fail(&u->co, "", part, "create");
		}
		child = openat(fd, part,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (child < 0)
			return errno == ENOENT && !create
				       ? LEC_ENOTFOUND
				       : lec_repo__os_fail(&u->co, "", part,
							   "open");
		fd = child;
	}
	if (fd >= 0)
		close(fd);
	return lec__error(LEC_EINVALID, "empty path");
}

/* Remove name from dirfd, whatever it is (a directory with its tree). */
static int remove_entry_at(struct update *u, int dirfd, const char *name)
{
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return LEC_OK;
	if (errno == EISDIR || errno == EPERM)
		return lec__remove_tree_at(dirfd, name);
	return lec_repo__os_fail(&u->co, "", name, "remove");
}

/* Remove path, then each directory above it left empty (git keeps no
 * empty directory; a fresh checkout would not have them). */
static int update_delete(struct update *u, const char *path)
{
	char *copy = lec__strdup(path), *slash;
	const char *base;
	int fd, error;

	LEC__CHECK_ALLOC(copy);
	error = open_parent(u, copy, 0, &base, &fd);
	if (error == LEC_OK) {
		error = remove_entry_at(u, fd, base);
		close(fd);
	}
	if (error == LEC_ENOTFOUND)
		error = LEC_OK;
	lec__free(copy);
	/* Then the emptied directories, deepest first. */
	for (copy = error == LEC_OK ? lec__strdup(path) : NULL;
	     copy && (slash = strrchr(copy, '/')) != NULL;) {
		char *dir;

		*slash = '\0';
		if ((dir = lec__strdup(copy)) == NULL ||
		    open_parent(u, dir, 0, &base, &fd) != LEC_OK) {
			lec__free(dir);
			break;
		}
		error = unlinkat(fd, base, AT_REMOVEDIR);
		close(fd);
		lec__free(dir);
		if (error != 0) {
			error = LEC_OK; /* not empty: it stays */
			break;
		}
	}
	lec__free(copy);
	return error;
}

/* Write the new side of a delta over whatever is at its path. */
static int update_write(struct update *u, const git_diff_file *f)
{
	char *copy = lec__strdup(f->path);
	const char *base;
	int fd, error;

	LEC__CHECK_ALLOC(copy);
	if ((error = open_parent(u, copy, 1, &base, &fd)) == LEC_OK) {
		if ((error = remove_entry_at(u, fd, base)) == LEC_OK)
			error = lec_repo__write_entry(&u->co, &f->id,
						      (git_filemode_t)f->mode,
						      base, fd, "");
		close(fd);
	}
	lec__free(copy);
	return error;
}

/* Whether path names a document a generator reads for its pages. */
static int is_document(const char *path)
{
	static const char *const suffixes[] = { ".rst", ".rest", ".txt", ".md",
						".markdown" };
	size_t n = strlen(path), i, m;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		m = strlen(suffixes[i]);
		if (n > m && strcasecmp(path + n - m, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* Whether a line is a reStructuredText section adornment: three or more
 * of one punctuation character and nothing else. */
static int is_adornment(const char *line, size_t n)
{
	size_t i;

	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	if (n < 3 || !strchr("=-~^\"'`#*+:.<>_", line[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (line[i] != line[0])
			return 0;
	return 1;
}

/* Whether line (n bytes) starts with prefix. */
static int starts(const char *line, size_t n, const char *prefix)
{
	size_t m = strlen(prefix);

	return n >= m && memcmp(line, prefix, m) == 0;
}

/* What of a document shapes other pages: its titles (reStructuredText
 * adornments and the line above them, Markdown headings), its labels,
 * and its toctrees (the directive and its indented block, or a MyST
 * fence and what it holds), as the lines themselves. Two versions with
 * the same outline differ only where other pages cannot see it, so only
 * the page itself needs writing again. */
static int outline(const char *text, size_t len, struct lec__buf *out)
{
	const char *line = text, *end = text + len, *prev = "";
	size_t prev_len = 0;
	enum { TEXT, TOCTREE, FENCE } state = TEXT;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		int keep = 0;

		if (state == TOCTREE)
			state = n == 0 || line[0] == ' ' || line[0] == '\t'
					? TOCTREE
					: TEXT;
		if (state == FENCE) {
			keep = 1;
			if (starts(line, n, "```") || starts(line, n, ":::"))
				state = TEXT;
		} else if (state == TOCTREE) {
			keep = 1;
		} else if (starts(line, n, ".. toctree::")) {
			keep = 1;
			state = TOCTREE;
		} else if ((starts(line, n, "```") || starts(line, n, ":::")) &&
			   memmem(line, n, "{toctree}", 9)) {
			keep = 1;
			state = FENCE;
		} else if (is_adornment(line, n)) {
			keep = 1;
			lec__buf_putn(out, prev, prev_len);
			lec__buf_puts(out, "\n");
		} else if (starts(line, n, "#") || starts(line, n, ".. _") ||
			   (starts(line, n, "(") && n > 2 &&
			    line[n - 1] == '=')) {
			keep = 1;
		}
		if (keep) {
			lec__buf_putn(out, line, n);
			lec__buf_puts(out, "\n");
		}
		prev = line;
		prev_len = n;
		line = nl ? nl + 1 : end;
	}
	return out->oom ? lec__error_oom() : LEC_OK;
}

/* How a modified file changed for the pages: only within itself
 * (LEC_REPO_MODIFIED), in its outline (LEC_REPO_OUTLINE), or it is not a
 * document (LEC_REPO_OTHER). */
static enum lec_repo_change classify_modified(struct update *u,
					      const git_diff_delta *d)
{
	git_blob *old = NULL, *new = NULL;
	struct lec__buf a = LEC__BUF_INIT, b = LEC__BUF_INIT;
	enum lec_repo_change change = LEC_REPO_OUTLINE;

	if (!is_document(d->new_file.path))
		return LEC_REPO_OTHER;
	if (d->old_file.mode == d->new_file.mode &&
	    git_blob_lookup(&old, u->co.repo, &d->old_file.id) == 0 &&
	    git_blob_lookup(&new, u->co.repo, &d->new_file.id) == 0 &&
	    git_blob_rawsize(old) <= OUTLINE_BLOB_MAX &&
	    git_blob_rawsize(new) <= OUTLINE_BLOB_MAX &&
	    outline(git_blob_rawcontent(old), (size_t)git_blob_rawsize(old),
		    &a) == LEC_OK &&
	    outline(git_blob_rawcontent(new), (size_t)git_blob_rawsize(new),
		    &b) == LEC_OK &&
	    a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0))
		change = LEC_REPO_MODIFIED;
	git_error_clear();
	lec__buf_dispose(&a);
	lec__buf_dispose(&b);
	git_blob_free(old);
	git_blob_free(new);
	return change;
}

/* Apply the tree diff old → new: every removal first (deepest first, so
 * that a directory becoming a file is gone before the file is written),
 * then every addition and modification; each path told to u->changed. */
static int apply_diff(struct update *u, git_diff *diff)
{
	size_t n = git_diff_num_deltas(diff), i;
	int error = LEC_OK;

	for (i = n; error == LEC_OK && i-- > 0;) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED ||
		    d->status == GIT_DELTA_TYPECHANGE)
			error = update_delete(u, d->old_file.path);
		if (error == LEC_OK && d->status == GIT_DELTA_DELETED &&
		    u->changed(LEC_REPO_DELETED, d->old_file.path,
			       u->co.payload) != 0)
			error = lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	}
	for (i = 0; error == LEC_OK && i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		enum lec_repo_change change;

		if (d->status == GIT_DELTA_ADDED)
			change = LEC_REPO_ADDED;
		else if (d->status == GIT_DELTA_MODIFIED)
			change = classify_modified(u, d);
		else if (d->status == GIT_DELTA_TYPECHANGE)
			change = LEC_REPO_OUTLINE;
		else
			continue;
		if ((error = update_write(u, &d->new_file)) == LEC_OK &&
		    u->changed(change, d->new_file.path, u->co.payload) != 0)
			error = lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	}
	return error;
}

int lec_repo_checkout_update(const char *cache_dir, const char *from,
			     const char *commit, const char *target_dir,
			     lec_repo_change_cb changed,
			     lec_repo_progress_cb cb, void *payload)
{
	struct update u = { { NULL, target_dir, cb, payload, { 0 } },
			    -1,
			    changed };
	git_tree *old = NULL, *new = NULL;
	git_diff_options opts;
	git_diff *diff = NULL;
	int rc, error;

	lec_error_clear();
	if (from == NULL || commit == NULL || target_dir == NULL ||
	    changed == NULL)
		return lec__error(LEC_EINVALID, "no commits, target or "
						"callback given");
	if ((error = lec_repo__open_cache(cache_dir, &u.co.repo)) < 0)
		return error;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	if ((error = lec_repo__lookup_tree(u.co.repo, from, &old)) < 0 ||
	    (error = lec_repo__lookup_tree(u.co.repo, commit, &new)) < 0)
		goto done;
	if ((u.rootfd = open(target_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						 O_CLOEXEC)) < 0) {
		error = lec__error(LEC_ENOTFOUND, "cannot open '%s': %s",
				   target_dir, strerror(errno));
		goto done;
	}
	if ((rc = git_diff_tree_to_tree(&diff, u.co.repo, old, new, &opts)) < 0)
		error = lec_repo__fail(rc, NULL, "cannot compare %s with %s",
				       from, commit);
	else
		error = apply_diff(&u, diff);
done:
	if (u.rootfd >= 0)
		close(u.rootfd);
	git_diff_free(diff);
	git_tree_free(old);
	git_tree_free(new);
	git_repository_free(u.co.repo);
	return error;
}

struct listing {
	lec_repo_entry_cb cb;
	void *payload;
	struct lec__buf path;
};

static int list_entry(const char *root, const git_tree_entry *e, void *payload)
{
	struct listing *l = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	char *path;
	int stop;

	if (mode == GIT_FILEMODE_TREE)
		return 0;
	lec__buf_printf(&l->path, "%s%s", root, git_tree_entry_name(e));
	if ((path = lec__buf_take(&l->path)) == NULL)
		return -1;
	stop = l->cb(path, (unsigned)mode, l->payload);
	lec__free(path);
	return stop ? -1 : 0;
}

int lec_repo_tree_list(const char *cache_dir, const char *commit,
		       lec_repo_entry_cb cb, void *payload)
{
	struct listing l = { cb, payload, LEC__BUF_INIT };
	git_repository *repo = NULL;
	git_tree *tree = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_repo__open_cache(cache_dir, &repo)) < 0)
		return error;
	if ((error = lec_repo__lookup_tree(repo, commit, &tree)) == LEC_OK &&
	    git_tree_walk(tree, GIT_TREEWALK_PRE, list_entry, &l) < 0) {
		git_error_clear();
		error = lec_error_last_code() < 0
				? lec_error_last_code()
				: lec__error(LEC_ERROR,
					     "the tree listing stopped");
	}
	git_tree_free(tree);
	git_repository_free(repo);
	return error;
}
