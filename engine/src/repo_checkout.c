/*
 * A checkout of one commit into a build directory. The tree is written
 * here instead of by git_checkout_tree, because a build directory holds
 * whatever a (possibly hostile) repository contains: every directory is
 * entered through a descriptor opened with O_NOFOLLOW and every file
 * created with O_EXCL, so no entry, symbolic link or duplicate name can
 * make a write land outside the target. The writer of one entry is shared
 * with the kept checkouts (repo_kept.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "repo_internal.h"

/* One more file written: tell the caller, who may stop the checkout. */
static int checkout_progress(struct lec_repo__checkout *co, int error)
{
	if (error < 0 || co->cb == NULL)
		return error;
	co->progress.received_objects++;
	if (co->cb(&co->progress, co->payload) != 0)
		return lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	return LEC_OK;
}

static int checkout_tree(struct lec_repo__checkout *co, const git_tree *tree,
			 int dirfd, const char *dir, unsigned depth);

/* A tree entry's name may only name something inside its directory. Git
 * itself refuses to check out ".git" in any letter case. */
int lec_repo__safe_name(const char *name)
{
	return *name != '\0' && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0 && strchr(name, '/') == NULL &&
	       strcasecmp(name, ".git") != 0;
}

int lec_repo__os_fail(const struct lec_repo__checkout *co, const char *dir,
		      const char *name, const char *what)
{
	return lec__error(LEC_EIO, "cannot %s '%s/%s%s': %s", what, co->target,
			  dir, name, strerror(errno));
}

static int blob_lookup(struct lec_repo__checkout *co, const git_oid *id,
		       const char *dir, const char *name, git_blob **blob)
{
	int rc = git_blob_lookup(blob, co->repo, id);

	if (rc < 0)
		return lec_repo__fail(rc, NULL, "cannot read '%s%s'", dir,
				      name);
	return LEC_OK;
}

/* O_EXCL|O_NOFOLLOW: never write through a link or over an entry a
 * duplicate name already made. */
static int write_file(struct lec_repo__checkout *co, const git_oid *id,
		      const char *name, int dirfd, const char *dir, mode_t mode)
{
	git_blob *blob = NULL;
	int fd, error;

	if ((error = blob_lookup(co, id, dir, name, &blob)) < 0)
		return error;
	fd = openat(dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		error = lec_repo__os_fail(co, dir, name, "create");
	else if (lec__write_all(fd, git_blob_rawcontent(blob),
				     (size_t)git_blob_rawsize(blob)) < 0)
		error = lec_repo__os_fail(co, dir, name, "write");
	if (fd >= 0 && close(fd) != 0 && error == LEC_OK)
		error = lec_repo__os_fail(co, dir, name, "write");
	git_blob_free(blob);
	return error;
}

static int write_link(struct lec_repo__checkout *co, const git_oid *id,
		      const char *name, int dirfd, const char *dir)
{
	git_blob *blob = NULL;
	char *target;
	size_t n;
	int error;

	if ((error = blob_lookup(co, id, dir, name, &blob)) < 0)
		return error;
	n = (size_t)git_blob_rawsize(blob);
	target = lec__strndup(git_blob_rawcontent(blob), n);
	git_blob_free(blob);
	LEC__CHECK_ALLOC(target);
	if (strlen(target) != n || n == 0)
		error = lec__error(LEC_ECORRUPT,
				   "symbolic link '%s%s' has an "
				   "invalid target",
				   dir, name);
	else if (symlinkat(target, dirfd, name) != 0)
		error = lec_repo__os_fail(co, dir, name, "create");
	lec__free(target);
	return error;
}

/* A file, link or submodule (left an empty directory, uninitialised) of
 * the given mode named name in dirfd; its progress counted. */
int lec_repo__write_entry(struct lec_repo__checkout *co, const git_oid *id,
			  git_filemode_t mode, const char *name, int dirfd,
			  const char *dir)
{
	switch (mode) {
	case GIT_FILEMODE_BLOB:
		return checkout_progress(
			co, write_file(co, id, name, dirfd, dir, 0666));
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return checkout_progress(
			co, write_file(co, id, name, dirfd, dir, 0777));
	case GIT_FILEMODE_LINK:
		return checkout_progress(co,
					 write_link(co, id, name, dirfd, dir));
	case GIT_FILEMODE_COMMIT:
		if (mkdirat(dirfd, name, 0777) != 0)
			return lec_repo__os_fail(co, dir, name, "create");
		return LEC_OK;
	default:
		return lec__error(LEC_ECORRUPT,
				  "'%s%s' has an unknown file "
				  "mode %o",
				  dir, name, (unsigned)mode);
	}
}

/* Create a directory and open it without following a link to it. */
static int make_subdir(struct lec_repo__checkout *co, int dirfd,
		       const char *dir, const char *name, int *fd)
{
	*fd = -1;
	if (mkdirat(dirfd, name, 0777) != 0)
		return lec_repo__os_fail(co, dir, name, "create");
	*fd = openat(dirfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return lec_repo__os_fail(co, dir, name, "open");
	return LEC_OK;
}

static int write_subtree(struct lec_repo__checkout *co, const git_tree_entry *e,
			 int dirfd, const char *dir, unsigned depth)
{
	const char *name = git_tree_entry_name(e);
	struct lec__buf b = LEC__BUF_INIT;
	git_tree *tree = NULL;
	char *path = NULL;
	int fd = -1, rc, error;

	if (depth >= LEC_REPO__DEPTH_MAX)
		return lec__error(LEC_ELIMIT,
				  "'%s%s' is nested more than %d "
				  "directories deep",
				  dir, name, LEC_REPO__DEPTH_MAX);
	if ((error = make_subdir(co, dirfd, dir, name, &fd)) < 0)
		goto done;
	if ((rc = git_tree_lookup(&tree, co->repo, git_tree_entry_id(e))) < 0) {
		error = lec_repo__fail(rc, NULL, "cannot read '%s%s'", dir,
				       name);
		goto done;
	}
	lec__buf_printf(&b, "%s%s/", dir, name);
	if ((path = lec__buf_take(&b)) == NULL)
		error = lec__error_oom();
	else
		error = checkout_tree(co, tree, fd, path, depth + 1);
done:
	if (fd >= 0)
		close(fd);
	git_tree_free(tree);
	lec__free(path);
	return error;
}

static int checkout_entry(struct lec_repo__checkout *co,
			  const git_tree_entry *e, int dirfd, const char *dir,
			  unsigned depth)
{
	const char *name = git_tree_entry_name(e);

	if (!lec_repo__safe_name(name))
		return lec__error(LEC_ECORRUPT,
				  "refusing to check out "
				  "'%s%s': the path leaves the target",
				  dir, name);
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_TREE)
		return write_subtree(co, e, dirfd, dir, depth);
	return lec_repo__write_entry(co, git_tree_entry_id(e),
				     git_tree_entry_filemode(e), name, dirfd,
				     dir);
}

static int checkout_tree(struct lec_repo__checkout *co, const git_tree *tree,
			 int dirfd, const char *dir, unsigned depth)
{
	size_t i, n = git_tree_entrycount(tree);
	int error = LEC_OK;

	for (i = 0; i < n && error == LEC_OK; i++)
		error = checkout_entry(co, git_tree_entry_byindex(tree, i),
				       dirfd, dir, depth);
	return error;
}

/* Make target ready: created when missing, refused when not empty. */
static int prepare_target(const char *target, int *created)
{
	enum lec_repo__dir_state state;
	int error;

	*created = 0;
	if ((error = lec_repo__dir_state(target, &state)) < 0)
		return error;
	if (state == LEC_REPO__DIR_USED)
		return lec__error(LEC_EEXISTS,
				  "checkout target '%s' is not "
				  "empty",
				  target);
	if (state == LEC_REPO__DIR_MISSING) {
		if ((error = lec__mkdirs_mode(target, 0777)) < 0)
			return error;
		*created = 1;
	}
	return LEC_OK;
}

static int write_checkout(git_repository *repo, git_tree *tree,
			  const char *target, lec_repo_progress_cb cb,
			  void *payload)
{
	struct lec_repo__checkout co = { repo, target, cb, payload, { 0 } };
	int dirfd, created = 0, error;

	if ((error = prepare_target(target, &created)) < 0)
		return error;
	dirfd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		error = lec__error(LEC_EIO, "cannot open '%s': %s", target,
				   strerror(errno));
	else
		error = checkout_tree(&co, tree, dirfd, "", 0);
	if (dirfd >= 0)
		close(dirfd);
	/* Best effort, on a failure path: what this wrote goes. */
	if (error < 0 && created)
		lec__remove_tree(target);
	else if (error < 0)
		lec__empty_tree(target);
	return error;
}

int lec_repo_checkout(const char *cache_dir, const char *commit,
		      const char *target_dir, lec_repo_progress_cb cb,
		      void *payload)
{
	git_repository *repo = NULL;
	git_tree *tree = NULL;
	int error;

	lec_error_clear();
	if (commit == NULL || target_dir == NULL || *target_dir == '\0')
		return lec__error(LEC_EINVALID,
				  "no commit or checkout target given");
	if ((error = lec_repo__open_cache(cache_dir, &repo)) < 0)
		return error;
	if ((error = lec_repo__lookup_tree(repo, commit, &tree)) == LEC_OK)
		error = write_checkout(repo, tree, target_dir, cb, payload);
	git_tree_free(tree);
	git_repository_free(repo);
	return error;
}
