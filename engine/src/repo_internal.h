/*
 * What the parts of the repository module (lectern/repo.h) share. In
 * repo.c: libgit2 made ready once, the URL rules, errors in libgit2's
 * words with a URL's credentials taken out, the state of a directory,
 * opening a repo cache and a commit's tree. In repo_local.c: caching's fast
 * path for a local source, which repo_fetch.c calls. In repo_checkout.c:
 * the writer of a checkout's entries, which the kept checkouts
 * (repo_kept.c) reuse.
 */
#ifndef LECTERN_REPO_INTERNAL_H
#define LECTERN_REPO_INTERNAL_H

#include <stddef.h>

#include <git2.h>

#include "internal.h"
#include "lectern/repo.h"

#define LEC_REPO__HEADS "refs/heads/"
/* What the service's fetch of a pull request names its head locally:
 * pull/<n>/head:external-<n>. */
#define LEC_REPO__EXTERNAL_PREFIX "external-"
#define LEC_REPO__TAGS "refs/tags/"

/* Deepest directory nesting a checkout writes: far beyond real
 * repositories, and it bounds the recursion and the descriptors it holds. */
#define LEC_REPO__DEPTH_MAX 256

/* Initialise libgit2 once per process; it stays up until the process
 * ends, since other threads may be using it at any time. */
int lec_repo__ready(void);

/* URLs ----------------------------------------------------------------------- */

/* Length of url's scheme when url starts with "<scheme>://", else 0. */
size_t lec_repo__scheme_len(const char *url);
/* The local path a URL names: itself without a scheme, the path of a plain
 * file:///path (percent-escapes are left to libgit2), else NULL. */
const char *lec_repo__local_path(const char *url, size_t scheme);
/* Check a repository URL before libgit2 sees it, so that the common
 * mistakes get a clear message: an unsupported scheme (ssh, scp-like
 * host:path) or a local path that is not there. shown is the redacted
 * URL. */
int lec_repo__check_url(const char *url, const char *shown);

/* Errors --------------------------------------------------------------------- */

/* Fail with libgit2's last error, its code rc mapped to an engine code:
 * "<context>: <libgit2's message>", url's credentials taken out. */
int lec_repo__fail(int rc, const char *url, const char *fmt, ...)
	LEC__PRINTF(3, 4);
/* lec_repo__fail, but with an engine code that the context decides. */
int lec_repo__fail_as(int code, const char *fmt, ...) LEC__PRINTF(2, 3);

/* Directories and files ----------------------------------------------------- */

enum lec_repo__dir_state {
	LEC_REPO__DIR_MISSING,
	LEC_REPO__DIR_EMPTY,
	LEC_REPO__DIR_USED
};

int lec_repo__dir_state(const char *path, enum lec_repo__dir_state *state);
/* path without trailing slashes (but "/" stays "/"). Owned. */
char *lec_repo__trim_slashes(const char *path);

/* Opening -------------------------------------------------------------------- */

/* The repo cache at dir. LEC_ENOTFOUND when there is none. */
int lec_repo__open_cache(const char *dir, git_repository **repo);
/* The tree of the commit whose full id is hex. */
int lec_repo__lookup_tree(git_repository *repo, const char *hex,
			  git_tree **tree);

/* The repo cache ------------------------------------------------------------------ */

/* A transfer in progress: the caller's callback, and whether it asked to
 * stop (libgit2 reports that as a generic callback error). */
struct lec_repo__transfer {
	lec_repo_progress_cb cb;
	void *payload;
	int cancelled;
	/* A pull request's head cached too (refs/pull/N/head,
	 * refs/merge-requests/N/head), or NULL: see lec_repo_cache_update_ref. */
	const char *request_ref;
};

/* Repo cache the local repository at path into repo (at repo_dir) by copying
 * its object files and setting its branches and tags (repo_local.c);
 * *default_ref (owned, or NULL) is the ref the source's HEAD names, for
 * the caller to record. LEC_ENOTFOUND, its message cleared, when the
 * source must be fetched instead. */
int lec_repo__copy_local(git_repository *repo, const char *repo_dir,
			 const char *path, struct lec_repo__transfer *t,
			 char **default_ref);

/* Checkout (repo_checkout.c) ------------------------------------------------ */

/* A checkout being written, for its messages and its progress. */
struct lec_repo__checkout {
	git_repository *repo;
	const char *target; /* for messages */
	lec_repo_progress_cb cb;
	void *payload;
	struct lec_repo_progress progress; /* files written so far */
};

/* A tree entry's name may only name something inside its directory. Git
 * itself refuses to check out ".git" in any letter case. */
int lec_repo__safe_name(const char *name);
/* LEC_EIO: "cannot <what> '<target>/<dir><name>': <errno's text>". */
int lec_repo__os_fail(const struct lec_repo__checkout *co, const char *dir,
		      const char *name, const char *what);
/* A file, link or submodule (left an empty directory, uninitialised) of
 * the given mode named name in dirfd, never through a link or over an
 * entry already there; its progress counted. dir is name's directory in
 * messages. */
int lec_repo__write_entry(struct lec_repo__checkout *co, const git_oid *id,
			  git_filemode_t mode, const char *name, int dirfd,
			  const char *dir);

#endif
