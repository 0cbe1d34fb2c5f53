/*
 * A project's git repository, as the build pipeline needs it: a local bare
 * repo cache of every branch and tag (kept current by fetching with prune), the
 * list of those refs with each one's commit and the remote's default branch
 * (the input of a version sync), a checkout of one commit's files into a
 * build directory, and the .git that makes the checkout the clone the
 * service's build has.
 *
 * Everything goes through libgit2; no git program is run. Repository URLs
 * may carry credentials (https://user:token@host/...): they are used to
 * connect but never appear in an error message, and are never written into
 * the repo cache (its fetches use an anonymous remote and skip FETCH_HEAD).
 *
 * Functions are safe to call from several threads at once, on different
 * repo caches; two repo cache calls on one repo cache directory must not overlap.
 */
#ifndef LECTERN_REPO_H
#define LECTERN_REPO_H

#include <stddef.h>

#include "lectern/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The message of a transfer that the progress callback stopped. */
#define LEC_REPO_CANCELLED "cancelled"

/* Hexadecimal digits of a commit id (SHA-1). */
#define LEC_REPO_COMMIT_HEX 40

/* Whether s is a whole commit id: LEC_REPO_COMMIT_HEX hexadecimal digits
 * (NULL is not). */
int lec_repo_is_commit_id(const char *s);

/* How far a transfer or a checkout has got (libgit2's indexer counters;
 * a checkout counts the files it has written in received_objects). */
struct lec_repo_progress {
	size_t received_objects;
	size_t total_objects;
	size_t indexed_objects;
	size_t received_bytes;
	size_t indexed_deltas;
	size_t total_deltas;
};

/*
 * Called while objects arrive (or files are written). It may be called
 * very often: throttle what it does. Return non-zero to abort: the call
 * then fails with LEC_ERROR and the message LEC_REPO_CANCELLED.
 */
typedef int (*lec_repo_progress_cb)(const struct lec_repo_progress *p,
				    void *payload);

/**
 * Bring a repo cache of a repository up to date: all branches as
 * refs/heads/<name>, all tags as refs/tags/<name>, refs gone from the remote
 * removed, and the repo cache's HEAD naming the remote's default branch
 * (detached when the remote has none). A missing (or empty) cache_dir is
 * cloned into a temporary directory beside it that is renamed into place
 * only once complete, so a failed first clone leaves nothing behind.
 * @param url        file://, http://, https://, git:// or a local path
 * @param cache_dir where the repo cache lives (parents are created)
 * @param cb         progress callback, or NULL
 * @param payload    passed to cb
 * @return LEC_OK; LEC_EINVALID (empty or unsupported URL); LEC_ENOTFOUND
 *         (no repository there); LEC_EAUTH; LEC_EIO (network or disk);
 *         LEC_EEXISTS (cache_dir holds something that is not a repo cache);
 *         LEC_ERROR with LEC_REPO_CANCELLED when cb aborted
 */
int lec_repo_cache_update(const char *url, const char *cache_dir,
		    lec_repo_progress_cb cb, void *payload);

/**
 * lec_repo_cache_update, and one more ref cached under its own name: a pull
 * request's head (refs/pull/<N>/head on GitHub, refs/merge-requests/<N>/head
 * on GitLab), which a repo cache of branches and tags does not hold. Only
 * that ref is fetched, not every pull request's; refs of earlier requests
 * stay until the repo cache is made anew. A ref the remote does not have is
 * no error: the build that wanted it then finds no commit.
 * @param request_ref "refs/pull/<digits>/head" or
 *                    "refs/merge-requests/<digits>/head"; NULL: none
 * @return as lec_repo_cache_update; LEC_EINVALID (request_ref of another form)
 */
int lec_repo_cache_update_ref(const char *url, const char *cache_dir,
			const char *request_ref, lec_repo_progress_cb cb,
			void *payload);

/** Whether ref is a pull request's head as lec_repo_cache_update_ref takes it.
 * @return 1 or 0 */
int lec_repo_is_request_ref(const char *ref);

enum lec_repo_ref_type { LEC_REPO_BRANCH, LEC_REPO_TAG };

struct lec_repo_ref {
	char *name; /* branch or tag name, without refs/heads/ or refs/tags/ */
	enum lec_repo_ref_type type;
	char *commit; /* 40 hex digits; annotated tags peeled to the commit */
};

struct lec_repo_refs {
	struct lec_repo_ref *items; /* len refs: branches, then tags, by name */
	size_t len;
	char *default_branch; /* the remote HEAD's branch, or NULL */
};

/**
 * The branches and tags of a repo cache. Tags that do not lead to a commit (a
 * tag of a tree or a blob) are left out: nothing could be built from them.
 * @param out filled on success (dispose with lec_repo_refs_dispose); zeroed
 *            on failure
 * @return LEC_OK; LEC_ENOTFOUND (no repo cache there)
 */
int lec_repo_list_refs(const char *cache_dir, struct lec_repo_refs *out);

/** Free what refs holds (not the struct itself). Accepts NULL. */
void lec_repo_refs_dispose(struct lec_repo_refs *refs);

/**
 * The commit a branch or tag of the repo cache points at (annotated tags
 * peeled). For a tag, name may also be a full commit id present in the
 * repo cache, since a tag version's identifier is its commit.
 * @param commit 40 hex digits, owned by the caller (free())
 * @return LEC_OK; LEC_ENOTFOUND (no such ref); LEC_EINVALID (not a valid
 *         ref name, or a tag of something other than a commit)
 */
int lec_repo_resolve(const char *cache_dir, const char *name,
		     enum lec_repo_ref_type type, char **commit);

/**
 * Write a commit's files into target_dir: no .git (lec_repo_clone_write
 * makes one), executable bits and symbolic links kept, submodules as
 * empty directories, content as stored (no line-ending or other
 * filters). An entry that could leave the target (a name that is empty,
 * ".", "..", contains '/', or is ".git") fails the checkout. On failure
 * whatever was written is removed again.
 * @param commit     40 hex digits
 * @param target_dir must not exist (it is created, with its parents) or be
 *                   an empty directory
 * @param cb         called after each file written, or NULL
 * @param payload    passed to cb
 * @return LEC_OK; LEC_EINVALID (bad commit id); LEC_ENOTFOUND (no such
 *         commit or repo cache); LEC_EEXISTS (target not empty, or not a
 *         directory); LEC_ECORRUPT (an unsafe or unknown tree entry);
 *         LEC_EIO; LEC_ERROR with LEC_REPO_CANCELLED when cb aborted
 */
int lec_repo_checkout(const char *cache_dir, const char *commit,
		      const char *target_dir, lec_repo_progress_cb cb,
		      void *payload);

/**
 * The directory whose refs a local repository keeps: its .git directory,
 * the repository itself when bare, the common directory of a worktree
 * (worktrees share their repository's refs). lec_repo_list_refs reads
 * refs from it.
 * @param gitdir owned by the caller (free()), no trailing slash
 * @return LEC_OK; LEC_ENOTFOUND (no repository at path)
 */
int lec_repo_local_gitdir(const char *path, char **gitdir);

/* How a path changed between two commits, for a kept checkout: what the
 * generators' caches must take into account. */
enum lec_repo_change {
	LEC_REPO_ADDED = 'A',
	LEC_REPO_DELETED = 'D',
	LEC_REPO_MODIFIED = 'M', /* a document, changed only within itself */
	LEC_REPO_OUTLINE = 'O',  /* a document whose titles, labels or
				    toctrees changed: other pages show them */
	LEC_REPO_OTHER = 'X'     /* any other file changed */
};
/* Told each path a checkout update changed; non-zero aborts the update. */
typedef int (*lec_repo_change_cb)(enum lec_repo_change change,
				  const char *path, void *payload);

/**
 * Bring target_dir, a checkout of `from` (exactly as lec_repo_checkout
 * wrote it), to `commit`: only the paths that differ are removed or
 * written, so unchanged files keep their contents and times and
 * generators see them as unchanged. Directories left empty go. Entries
 * are checked as lec_repo_checkout checks them, and every directory is
 * entered without following a link.
 * @param changed told every path written or removed
 * @return as lec_repo_checkout; on failure the tree is in between and
 *         must be checked out afresh
 */
int lec_repo_checkout_update(const char *cache_dir, const char *from,
			     const char *commit, const char *target_dir,
			     lec_repo_change_cb changed,
			     lec_repo_progress_cb cb, void *payload);

/* The depth of the service's fetch (its git backend's repo_depth): a
 * build's clone has the commits fewer than this many parents away from
 * the commit it builds. */
#define LEC_REPO_CLONE_DEPTH 50

/* What the service's `git fetch` names for a version (its
 * get_remote_fetch_refspec), which decides the refs and HEAD of its
 * clone. */
enum lec_repo_fetch_kind {
	/* refs/heads/<name>:refs/remotes/origin/<name>, then `git checkout
	 * --force origin/<name>`: HEAD detached there */
	LEC_REPO_FETCH_BRANCH,
	/* refs/tags/<name>:refs/tags/<name>, then a checkout of the commit */
	LEC_REPO_FETCH_TAG,
	/* the commit itself (stable on a tag): no ref, no tag followed */
	LEC_REPO_FETCH_COMMIT,
	/* a pull request's head, pull/<n>/head:external-<name>, then a
	 * checkout of the commit: a local branch external-<name> there, tags
	 * followed (the refspec has a destination) */
	LEC_REPO_FETCH_EXTERNAL,
	/* HEAD (latest of a project with no default branch set): no
	 * checkout, HEAD stays on the default branch; no tag followed */
	LEC_REPO_FETCH_HEAD
};

/* The clone a build's checkout is made into. */
struct lec_repo_clone {
	const char *url; /* remote.origin.url; credentials are removed */
	enum lec_repo_fetch_kind kind;
	const char *name; /* the branch, tag or external version's slug;
			     unused for COMMIT and HEAD */
};

/**
 * Give target_dir, which holds commit's files (lec_repo_checkout or
 * lec_repo_checkout_update wrote them), the .git the service's clone has
 * (`git clone --depth 1`, `git fetch --depth LEC_REPO_CLONE_DEPTH` of
 * the version, a checkout): its refs, tags, shallow history, HEAD, index
 * and origin, with no object of its own (they are cache_dir's, through
 * objects/info/alternates) and a `git fetch` that reads cache_dir
 * (repo_clone.c). Commands that run git in the tree must see cache_dir
 * at that same path.
 * @param cache_dir an absolute path
 * @return LEC_OK; LEC_EINVALID (bad commit, name or path); LEC_ENOTFOUND
 *         (no repo cache or commit); LEC_EEXISTS (target_dir has a .git);
 *         LEC_ELIMIT (a history too wide to walk); LEC_EIO
 */
int lec_repo_clone_write(const char *cache_dir, const char *commit,
			 const char *target_dir,
			 const struct lec_repo_clone *clone);

/* Told each file, link and submodule of a commit's tree: its path and
 * git file mode; non-zero stops the listing. */
typedef int (*lec_repo_entry_cb)(const char *path, unsigned mode,
				 void *payload);

/**
 * Every entry of commit's tree but its directories, depth first in the
 * tree's order (what lec_repo_checkout writes).
 * @return LEC_OK; LEC_EINVALID; LEC_ENOTFOUND; LEC_ERROR when cb stopped
 */
int lec_repo_tree_list(const char *cache_dir, const char *commit,
		       lec_repo_entry_cb cb, void *payload);

/* Most submodules read from one .gitmodules: far beyond real projects,
 * and it bounds what a hostile file can make the pipeline fetch. */
#define LEC_REPO_MAX_SUBMODULES 64

struct lec_repo_submodule {
	char *name;   /* its name in .gitmodules */
	char *path;   /* where it goes, relative to the checkout */
	char *url;    /* as written: absolute or relative ("../x.git") */
	char *commit; /* the commit the superproject's tree records */
};

struct lec_repo_submodules {
	struct lec_repo_submodule *items;
	size_t len;
};

/**
 * The submodules of a commit: each entry of the .gitmodules its tree holds
 * whose path is a submodule (a gitlink) in that tree, with the commit it
 * records. Entries from [include] files are ignored, as git ignores them,
 * but libgit2 still opens the files an include names: call this only
 * inside the build sandbox (`lectern __repo submodules`), where no file of
 * the host is there to open. The blob is parsed from a private temporary
 * file under $TMPDIR (else /tmp), removed before returning.
 * @param out filled on success (dispose with lec_repo_submodules_dispose);
 *            empty when there is no .gitmodules
 * @return LEC_OK; LEC_ENOTFOUND (no repo cache or commit); LEC_EINVALID (bad
 *         commit id); LEC_ECORRUPT (.gitmodules cannot be parsed); LEC_EIO
 */
int lec_repo_submodules(const char *cache_dir, const char *commit,
			struct lec_repo_submodules *out);

/** Free what subs holds (not the struct itself). Accepts NULL. */
void lec_repo_submodules_dispose(struct lec_repo_submodules *subs);

/**
 * A URL fit for messages and logs: the user name and password of a
 * scheme://user:pass@host/ URL removed. Anything else (a path, a URL
 * without credentials) comes back unchanged.
 * @return owned by the caller (free()); NULL when url is NULL or
 *         memory ran out
 */
char *lec_repo_redact_url(const char *url);

#ifdef __cplusplus
}
#endif
#endif
