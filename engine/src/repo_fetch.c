/*
 * The repo cache: a project's repo cache under repos/ brought up to date with
 * its repository, every branch and tag, refs gone from the remote pruned.
 *
 * A repo cache is fetched through an anonymous remote with the repo cache refspecs
 * and without FETCH_HEAD, so a URL's credentials are used for the
 * connection but never stored on disk; the project's current URL is passed
 * on every call, so a changed URL simply takes effect. The remote's default
 * branch is recorded the way `git clone --mirror` records it: as the
 * repo cache's HEAD. A first clone is built beside its directory and renamed
 * into place, so no half-made repo cache is ever seen. A source on this
 * machine is copied instead when it can be (repo_local.c). A pull
 * request's build asks for its head too, one ref under its own name.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "repo_internal.h"

static int on_progress(const git_indexer_progress *stats, void *payload)
{
	struct lec_repo__transfer *t = payload;
	struct lec_repo_progress p;

	if (t->cb == NULL)
		return 0;
	p.received_objects = stats->received_objects;
	p.total_objects = stats->total_objects;
	p.indexed_objects = stats->indexed_objects;
	p.received_bytes = stats->received_bytes;
	p.indexed_deltas = stats->indexed_deltas;
	p.total_deltas = stats->total_deltas;
	if (t->cb(&p, t->payload) != 0) {
		t->cancelled = 1;
		return -1;
	}
	return 0;
}

static int fetch_fail(int rc, const struct lec_repo__transfer *t,
		      const char *url, const char *shown)
{
	if (t->cancelled)
		return lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	return lec_repo__fail(rc, url, "cannot fetch %s", shown);
}

/* Point the repo cache's HEAD where the remote's points. A remote without a
 * default branch (empty, or its HEAD unborn) gets a detached HEAD, so that
 * no branch is reported as its default; with no commit to detach at, the
 * HEAD is unborn, which reports none either. */
static int record_default(git_repository *repo, const char *head,
			  const char *shown)
{
	int rc;

	if (head &&
	    strncmp(head, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) == 0)
		rc = git_repository_set_head(repo, head);
	else if ((rc = git_repository_detach_head(repo)) == GIT_EUNBORNBRANCH ||
		 rc == GIT_ENOTFOUND)
		rc = 0;
	if (rc < 0)
		return lec_repo__fail(rc, NULL,
				      "cannot record the default branch "
				      "of %s",
				      shown);
	return LEC_OK;
}

/* An anonymous remote: nothing about it (its URL above all) is written to
 * the repo cache's configuration. The user's url.<base>.insteadOf settings are
 * not applied, so what is fetched depends on the project alone (and
 * libgit2 1.5 leaks memory matching them). */
static int open_remote(git_repository *repo, const char *url,
		       git_remote **remote)
{
	git_remote_create_options opts;

	git_remote_create_options_init(&opts,
				       GIT_REMOTE_CREATE_OPTIONS_VERSION);
	opts.repository = repo;
	opts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	return git_remote_create_with_opts(remote, url, &opts);
}

/* libgit2 1.5's local transport walks from the repo cache's target of every
 * advertised ref as if it were a commit, and fails on a tag of a tree or
 * blob that the repo cache already has. Such tags are never listed (they lead
 * to no commit), so they are dropped before each fetch, which brings them
 * back without transferring anything. */
static int drop_unpeelable_tags(git_repository *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	git_object *obj = NULL;
	int rc, peel;

	if ((rc = git_reference_iterator_glob_new(&it, repo,
						  LEC_REPO__TAGS "*")) < 0)
		return lec_repo__fail(rc, NULL, "cannot list tags");
	while ((rc = git_reference_next(&ref, it)) == 0) {
		peel = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
		git_object_free(obj);
		obj = NULL;
		if (peel == GIT_EPEEL || peel == GIT_EINVALIDSPEC)
			rc = git_reference_delete(ref);
		git_reference_free(ref);
		if (rc < 0)
			break;
	}
	git_reference_iterator_free(it);
	if (rc < 0 && rc != GIT_ITEROVER)
		return lec_repo__fail(rc, NULL,
				      "cannot prepare the repo cache for a "
				      "fetch");
	return LEC_OK;
}

/* Fetch every branch and tag of url into repo, pruning vanished refs, and
 * the pull request's head the transfer names. The default branch is read
 * while connected, from the same advertisement the fetch uses. */
static int fetch_into(git_repository *repo, const char *url, const char *shown,
		      struct lec_repo__transfer *t)
{
	char heads[] = "+" LEC_REPO__HEADS "*:" LEC_REPO__HEADS "*";
	char tags[] = "+" LEC_REPO__TAGS "*:" LEC_REPO__TAGS "*";
	struct lec__buf request = LEC__BUF_INIT;
	char *spec_list[] = { heads, tags, NULL };
	git_strarray specs = { spec_list, 2 };
	git_fetch_options opts;
	git_remote *remote = NULL;
	git_buf head = { 0 };
	int rc, error;

	if (t->request_ref) {
		lec__buf_printf(&request, "+%s:%s", t->request_ref,
				t->request_ref);
		if ((spec_list[2] = lec__buf_take(&request)) == NULL)
			return lec__error_oom();
		specs.count = 3;
	}

	/* The _INIT macro leaves fields to zero-filling, which the
	 * warnings refuse; the function fills the same defaults. */
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.callbacks.transfer_progress = on_progress;
	opts.callbacks.payload = t;
	opts.prune = GIT_FETCH_PRUNE;
	opts.update_fetchhead = 0;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if ((error = drop_unpeelable_tags(repo)) < 0)
		return error;
	if ((rc = open_remote(repo, url, &remote)) < 0 ||
	    (rc = git_remote_connect(remote, GIT_DIRECTION_FETCH,
				     &opts.callbacks, NULL, NULL)) < 0 ||
	    ((rc = git_remote_default_branch(&head, remote)) < 0 &&
	     rc != GIT_ENOTFOUND) ||
	    (rc = git_remote_fetch(remote, &specs, &opts, NULL)) < 0)
		error = fetch_fail(rc, t, url, shown);
	else
		error = record_default(repo, head.ptr, shown);
	git_buf_dispose(&head);
	git_remote_free(remote);
	lec__free(spec_list[2]);
	return error;
}

/* Bring repo (at repo_dir) up to date with url: a local source by copying,
 * anything else (or a local one that cannot be copied) through libgit2. */
static int fill_repo_cache(git_repository *repo, const char *repo_dir,
		       const char *url, const char *shown,
		       struct lec_repo__transfer *t)
{
	const char *path = lec_repo__local_path(url, lec_repo__scheme_len(url));
	char *head = NULL;
	int error = path ? lec_repo__copy_local(repo, repo_dir, path, t, &head)
			 : LEC_ENOTFOUND;

	if (error == LEC_OK)
		error = record_default(repo, head, path);
	lec__free(head);
	if (error == LEC_ENOTFOUND) {
		lec_error_clear();
		error = fetch_into(repo, url, shown, t);
	}
	return error;
}

/* Create the directory that will hold path. */
static int make_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *parent;
	int error;

	if (slash == NULL || slash == path)
		return LEC_OK;
	parent = lec__strndup(path, (size_t)(slash - path));
	LEC__CHECK_ALLOC(parent);
	error = lec__mkdirs_mode(parent, 0777);
	lec__free(parent);
	return error;
}

/* First clone: build the repo cache in a fresh directory beside dir and rename
 * it into place when complete, so no half-made repo cache is ever seen. */
static int clone_new(const char *url, const char *shown, const char *dir,
		     struct lec_repo__transfer *t)
{
	struct lec__buf b = LEC__BUF_INIT;
	git_repository *repo = NULL;
	char *tmp;
	int rc, error;

	if ((error = make_parent(dir)) < 0)
		return error;
	lec__buf_printf(&b, "%s.tmp-XXXXXX", dir);
	if ((tmp = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	if (mkdtemp(tmp) == NULL) {
		error = lec__error(LEC_EIO, "cannot create '%s': %s", tmp,
				   strerror(errno));
		lec__free(tmp);
		return error;
	}
	if ((rc = git_repository_init(&repo, tmp, 1)) < 0)
		error = lec_repo__fail(rc, NULL,
				       "cannot create a repo cache in '%s'", tmp);
	else
		error = fill_repo_cache(repo, tmp, url, shown, t);
	git_repository_free(repo);
	/* rename() replaces dir when it is an empty directory. */
	if (error == LEC_OK && rename(tmp, dir) != 0)
		error = lec__error(LEC_EIO,
				   "cannot move the new repo cache to "
				   "'%s': %s",
				   dir, strerror(errno));
	if (error < 0)
		lec__remove_tree(tmp);
	lec__free(tmp);
	return error;
}

static int update_existing(const char *url, const char *shown, const char *dir,
			   struct lec_repo__transfer *t)
{
	git_repository *repo = NULL;
	int error;

	if (git_repository_open_bare(&repo, dir) < 0)
		return lec_repo__fail_as(LEC_EEXISTS,
					 "'%s' exists and is not a "
					 "repo cache",
					 dir);
	error = fill_repo_cache(repo, dir, url, shown, t);
	git_repository_free(repo);
	return error;
}

/* Whether s, up to its end or a '/', is one or more digits; where it
 * stopped in *end. */
static int digits(const char *s, const char **end)
{
	const char *p = s;

	while (isdigit((unsigned char)*p))
		p++;
	*end = p;
	return p > s;
}

int lec_repo_is_request_ref(const char *ref)
{
	static const char *const prefixes[] = { "refs/pull/",
						"refs/merge-requests/" };
	const char *end;
	size_t i, n;

	for (i = 0; ref && i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		n = strlen(prefixes[i]);
		if (strncmp(ref, prefixes[i], n) == 0 && digits(ref + n, &end) &&
		    strcmp(end, "/head") == 0)
			return 1;
	}
	return 0;
}

int lec_repo_cache_update(const char *url, const char *cache_dir,
		    lec_repo_progress_cb cb, void *payload)
{
	return lec_repo_cache_update_ref(url, cache_dir, NULL, cb, payload);
}

int lec_repo_cache_update_ref(const char *url, const char *cache_dir,
			const char *request_ref, lec_repo_progress_cb cb,
			void *payload)
{
	struct lec_repo__transfer t = { cb, payload, 0, request_ref };
	enum lec_repo__dir_state state;
	char *shown = NULL, *dir = NULL;
	int error;

	lec_error_clear();
	if (request_ref && !lec_repo_is_request_ref(request_ref))
		return lec__error(LEC_EINVALID,
				  "'%s' is not a pull request's head",
				  request_ref);
	if (url == NULL || *url == '\0')
		return lec__error(LEC_EINVALID, "no repository URL given");
	if (cache_dir == NULL || *cache_dir == '\0')
		return lec__error(LEC_EINVALID, "no repo cache directory given");
	shown = lec_repo_redact_url(url);
	dir = lec_repo__trim_slashes(cache_dir);
	if (shown == NULL || dir == NULL) {
		error = lec__error_oom();
		goto done;
	}
	if ((error = lec_repo__check_url(url, shown)) < 0 ||
	    (error = lec_repo__ready()) < 0 ||
	    (error = lec_repo__dir_state(dir, &state)) < 0)
		goto done;
	if (state == LEC_REPO__DIR_USED)
		error = update_existing(url, shown, dir, &t);
	else
		error = clone_new(url, shown, dir, &t);
done:
	lec__free(shown);
	lec__free(dir);
	return error;
}
