/*
 * Git repositories through libgit2: bare mirrors kept current by fetching
 * with prune, the refs a version sync reads from them, and checkouts of one
 * commit into a build directory.
 *
 * A mirror is fetched through an anonymous remote with the mirror refspecs
 * and without FETCH_HEAD, so a URL's credentials are used for the
 * connection but never stored on disk; the project's current URL is passed
 * on every call, so a changed URL simply takes effect. The remote's default
 * branch is recorded the way `git clone --mirror` records it: as the
 * mirror's HEAD.
 *
 * Checkouts write the tree themselves instead of using git_checkout_tree,
 * because a build directory holds whatever a (possibly hostile) repository
 * contains: every directory is entered through a descriptor opened with
 * O_NOFOLLOW and every file created with O_EXCL, so no entry, symbolic link
 * or duplicate name can make a write land outside the target.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "files.h"
#include "internal.h"
#include "lectern/repo.h"
#include "repo_internal.h"

/* Room for the context part of an error message ("cannot fetch <url>"); the
 * whole message is cut at the error module's limit anyway. */
#define REPO_CONTEXT_MAX 512

/* The URL schemes a mirror may come from (a local path needs none). */
static const char *const url_schemes[] = { "file", "http", "https", "git" };

/* libgit2 ------------------------------------------------------------------ */

static pthread_once_t git_once = PTHREAD_ONCE_INIT;
static int git_init_rc;

static void git_init(void)
{
	git_init_rc = git_libgit2_init();
	/* libgit2 refuses repositories another user owns (git's
	 * safe.directory). That guards git, which runs programs a
	 * repository's configuration names; libgit2 here runs none, and the
	 * local-repository allowlist decides what may be read (a root server
	 * builds its users' clones). */
	if (git_init_rc >= 0)
		git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
}

/* Initialise libgit2 once per process; it stays up until the process
 * ends, since other threads may be using it at any time. */
int lec_repo__ready(void)
{
	pthread_once(&git_once, git_init);
	if (git_init_rc < 0)
		return lec__error(LEC_ERROR, "cannot initialise libgit2");
	return LEC_OK;
}

/* URLs --------------------------------------------------------------------- */

/* Length of url's scheme when url starts with "<scheme>://", else 0. */
size_t lec_repo__scheme_len(const char *url)
{
	size_t n = 0;

	if (!((url[0] >= 'a' && url[0] <= 'z') ||
	      (url[0] >= 'A' && url[0] <= 'Z')))
		return 0;
	while ((url[n] >= 'a' && url[n] <= 'z') ||
	       (url[n] >= 'A' && url[n] <= 'Z') ||
	       (url[n] >= '0' && url[n] <= '9') || url[n] == '+' ||
	       url[n] == '-' || url[n] == '.')
		n++;
	return strncmp(url + n, "://", 3) == 0 ? n : 0;
}

/* The user information ("user:pass") of a scheme://user:pass@host/ URL:
 * where it starts and its length without the '@'; 0 when there is none. */
static size_t userinfo_span(const char *url, const char **start)
{
	size_t scheme = lec_repo__scheme_len(url);
	const char *authority, *end, *at = NULL, *p;

	if (scheme == 0)
		return 0;
	authority = url + scheme + 3;
	end = authority + strcspn(authority, "/?#");
	for (p = authority; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return 0;
	*start = authority;
	return (size_t)(at - authority);
}

char *lec_repo_redact_url(const char *url)
{
	const char *info = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *shown;
	size_t n;

	lec_error_clear();
	if (url == NULL)
		return NULL;
	n = userinfo_span(url, &info);
	if (n == 0) {
		if ((shown = lec__strdup(url)) == NULL)
			lec__error_oom();
		return shown;
	}
	lec__buf_printf(&b, "%.*s%s", (int)(info - url), url, info + n + 1);
	return lec__buf_take(&b);
}

/* Delete every occurrence of needle[0..n) from s. */
static void remove_all(char *s, const char *needle, size_t n)
{
	char *hit;

	if (n == 0)
		return;
	while ((hit = memmem(s, strlen(s), needle, n)) != NULL)
		memmove(hit, hit + n, strlen(hit + n) + 1);
}

/* A copy of a libgit2 message with url's user information and password
 * taken out, in case libgit2 quoted the URL. */
static char *scrub(const char *message, const char *url)
{
	const char *info = NULL, *colon;
	char *out = lec__strdup(message);
	size_t n = url ? userinfo_span(url, &info) : 0;

	if (out == NULL || n == 0)
		return out;
	remove_all(out, info, n + 1);
	colon = memchr(info, ':', n);
	if (colon)
		remove_all(out, colon + 1, n - (size_t)(colon + 1 - info));
	return out;
}

static int scheme_supported(const char *url, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(url_schemes) / sizeof(url_schemes[0]); i++)
		if (strlen(url_schemes[i]) == n &&
		    strncasecmp(url, url_schemes[i], n) == 0)
			return 1;
	return 0;
}

static int is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The local path a URL names: itself without a scheme, the path of a plain
 * file:///path (percent-escapes are left to libgit2), else NULL. */
const char *lec_repo__local_path(const char *url, size_t scheme)
{
	if (scheme == 0)
		return url;
	if (scheme == 4 && strncasecmp(url, "file", 4) == 0 &&
	    url[7] == '/' && strchr(url, '%') == NULL)
		return url + 7;
	return NULL;
}

/* Check a repository URL before libgit2 sees it, so that the common
 * mistakes get a clear message: an unsupported scheme (ssh, scp-like
 * host:path) or a local path that is not there. shown is the redacted
 * URL. */
int lec_repo__check_url(const char *url, const char *shown)
{
	size_t scheme = lec_repo__scheme_len(url);
	const char *path = lec_repo__local_path(url, scheme);

	if ((scheme > 0 && !scheme_supported(url, scheme)) ||
	    (scheme == 0 && strcspn(url, ":") < strcspn(url, "/") &&
	     !is_dir(url)))
		return lec__error(LEC_EINVALID,
				  "unsupported repository URL '%s': use "
				  "file://, http://, https://, git:// or a "
				  "local path",
				  shown);
	if (path && !is_dir(path))
		return lec__error(LEC_ENOTFOUND, "no repository at '%s'",
				  shown);
	return LEC_OK;
}

/* Errors ------------------------------------------------------------------- */

static int map_git_error(int rc, const git_error *e)
{
	switch (rc) {
	case GIT_ENOTFOUND:
		return LEC_ENOTFOUND;
	case GIT_EEXISTS:
		return LEC_EEXISTS;
	case GIT_EAUTH:
	case GIT_ECERTIFICATE:
		return LEC_EAUTH;
	case GIT_ELOCKED:
		return LEC_EBUSY;
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		return LEC_EINVALID;
	default:
		break;
	}
	if (e == NULL)
		return LEC_ERROR;
	switch (e->klass) {
	case GIT_ERROR_NOMEMORY:
		return LEC_ENOMEM;
	case GIT_ERROR_OS:
	case GIT_ERROR_NET:
	case GIT_ERROR_SSL:
	case GIT_ERROR_SSH:
	case GIT_ERROR_HTTP:
		return LEC_EIO;
	case GIT_ERROR_ODB:
	case GIT_ERROR_ZLIB:
	case GIT_ERROR_OBJECT:
		return LEC_ECORRUPT;
	default:
		return LEC_ERROR;
	}
}

static int vfail(int code, const char *url, const char *fmt, va_list ap)
	LEC__PRINTF(3, 0);

/* Set code with the message "<context>: <libgit2's last message>", url's
 * credentials taken out of the latter. */
static int vfail(int code, const char *url, const char *fmt, va_list ap)
{
	char context[REPO_CONTEXT_MAX];
	const git_error *e = git_error_last();
	char *detail;

	vsnprintf(context, sizeof(context), fmt, ap);
	/* libgit2's "remote authentication required but no callback set"
	 * tells a person nothing they can do. */
	if (e && e->message && strstr(e->message, "authentication"))
		return lec__error(code, "%s: the repository asks for "
					"credentials and Lectern was given "
					"none: put a read token in the URL "
					"(https://USER:TOKEN@HOST/PATH; it "
					"is used only to clone, never shown), "
					"or make the repository readable "
					"without one",
				  context);
	detail = scrub(e && e->message ? e->message : "unknown libgit2 error",
		       url);
	if (detail == NULL)
		return lec__error_oom();
	lec__error(code, "%s: %s", context, detail);
	lec__free(detail);
	return code;
}

/* Fail with libgit2's last error, its code rc mapped to an engine code. */
int lec_repo__fail(int rc, const char *url, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = vfail(map_git_error(rc, git_error_last()), url, fmt, ap);
	va_end(ap);
	return code;
}

/* git_fail, but with an engine code that the context decides. */
int lec_repo__fail_as(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vfail(code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

/* Directories -------------------------------------------------------------- */

int lec_repo__dir_state(const char *path, enum lec_repo__dir_state *state)
{
	DIR *d = opendir(path);
	struct dirent *ent;

	*state = LEC_REPO__DIR_MISSING;
	if (d == NULL) {
		if (errno == ENOENT)
			return LEC_OK;
		if (errno == ENOTDIR)
			return lec__error(LEC_EEXISTS,
					  "'%s' exists and is not a directory",
					  path);
		return lec__error(LEC_EIO, "cannot open '%s': %s", path,
				  strerror(errno));
	}
	*state = LEC_REPO__DIR_EMPTY;
	while ((ent = readdir(d)) != NULL) {
		if (strcmp(ent->d_name, ".") != 0 &&
		    strcmp(ent->d_name, "..") != 0) {
			*state = LEC_REPO__DIR_USED;
			break;
		}
	}
	closedir(d);
	return LEC_OK;
}

/* path without trailing slashes (but "/" stays "/"). */
char *lec_repo__trim_slashes(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return lec__strndup(path, n);
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

/* Opening ------------------------------------------------------------------ */

int lec_repo__open_mirror(const char *dir, git_repository **repo)
{
	int error;

	*repo = NULL;
	if (dir == NULL || *dir == '\0')
		return lec__error(LEC_EINVALID, "no mirror directory given");
	if ((error = lec_repo__ready()) < 0)
		return error;
	if (git_repository_open_bare(repo, dir) < 0)
		return lec_repo__fail_as(LEC_ENOTFOUND,
					 "no repository mirror at '%s'", dir);
	return LEC_OK;
}

int lec_repo_is_commit_id(const char *s)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; i < LEC_REPO_COMMIT_HEX; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return s[i] == '\0';
}

int lec_repo__lookup_tree(git_repository *repo, const char *hex,
			  git_tree **tree)
{
	git_commit *commit = NULL;
	git_oid oid;
	int rc;

	*tree = NULL;
	if (!lec_repo_is_commit_id(hex) || git_oid_fromstr(&oid, hex) < 0)
		return lec__error(LEC_EINVALID,
				  "'%s' is not a commit id "
				  "(%d hexadecimal digits)",
				  hex, LEC_REPO_COMMIT_HEX);
	if ((rc = git_commit_lookup(&commit, repo, &oid)) < 0)
		return lec_repo__fail(rc, NULL, "no commit %s in the mirror",
				      hex);
	rc = git_commit_tree(tree, commit);
	git_commit_free(commit);
	if (rc < 0)
		return lec_repo__fail(rc, NULL, "cannot read the tree of %s",
				      hex);
	return LEC_OK;
}

int lec_repo__write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int lec_repo_local_gitdir(const char *path, char **gitdir)
{
	git_repository *repo = NULL;
	int rc, error;

	lec_error_clear();
	*gitdir = NULL;
	if ((error = lec_repo__ready()) < 0)
		return error;
	/* No search upwards: the path must be the repository itself. */
	rc = git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				     NULL);
	if (rc < 0)
		return lec_repo__fail_as(LEC_ENOTFOUND,
					 "no git repository at '%s'", path);
	if ((*gitdir = lec_repo__trim_slashes(
		     git_repository_commondir(repo))) == NULL)
		error = lec__error_oom();
	git_repository_free(repo);
	return error;
}

/* Mirroring ---------------------------------------------------------------- */

/* A transfer in progress: the caller's callback, and whether it asked to
 * stop (libgit2 reports that as a generic callback error). */
struct transfer {
	lec_repo_progress_cb cb;
	void *payload;
	int cancelled;
};

static int on_progress(const git_indexer_progress *stats, void *payload)
{
	struct transfer *t = payload;
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

static int fetch_fail(int rc, const struct transfer *t, const char *url,
		      const char *shown)
{
	if (t->cancelled)
		return lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	return lec_repo__fail(rc, url, "cannot fetch %s", shown);
}

/* Point the mirror's HEAD where the remote's points. A remote without a
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
	else if ((rc = git_repository_detach_head(repo)) ==
			 GIT_EUNBORNBRANCH ||
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
 * the mirror's configuration. The user's url.<base>.insteadOf settings are
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

/* libgit2 1.5's local transport walks from the mirror's target of every
 * advertised ref as if it were a commit, and fails on a tag of a tree or
 * blob that the mirror already has. Such tags are never listed (they lead
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
				      "cannot prepare the mirror for a "
				      "fetch");
	return LEC_OK;
}

/* Fetch every branch and tag of url into repo, pruning vanished refs. The
 * default branch is read while connected, from the same advertisement the
 * fetch uses. */
static int fetch_into(git_repository *repo, const char *url,
		      const char *shown, struct transfer *t)
{
	char heads[] = "+" LEC_REPO__HEADS "*:" LEC_REPO__HEADS "*";
	char tags[] = "+" LEC_REPO__TAGS "*:" LEC_REPO__TAGS "*";
	char *spec_list[] = { heads, tags };
	git_strarray specs = { spec_list, 2 };
	git_fetch_options opts;
	git_remote *remote = NULL;
	git_buf head = { 0 };
	int rc, error;

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
	return error;
}

/* Local repositories at git's speed ----------------------------------------- */

/* libgit2 1.5's local transport builds a pack object by object, minutes
 * for a long history. A local source is instead mirrored the way `git
 * clone --local` does it: its pack and loose object files are copied (not
 * linked: the mirror is given to the build user, and a link would change
 * the owner of the source's own files), only those the mirror lacks, then
 * its branches and tags are set. A source whose objects live partly
 * elsewhere (alternates) or that is shallow, or whose refs then name an
 * object the copies did not bring, is fetched through libgit2 instead. */

struct copy_run {
	struct transfer *t;
	int counting;        /* a first pass: count what is missing */
	size_t total;        /* files missing, as counted */
	size_t files, bytes; /* copied so far */
};

static int copy_report(struct copy_run *c)
{
	struct lec_repo_progress p = { 0 };

	if (c->t->cb == NULL)
		return 0;
	p.received_objects = p.indexed_objects = c->files;
	p.total_objects = c->total;
	p.received_bytes = c->bytes;
	if (c->t->cb(&p, c->t->payload) != 0) {
		c->t->cancelled = 1;
		return lec__error(LEC_ERROR, LEC_REPO_CANCELLED);
	}
	return 0;
}

/* Copy the regular file name of from into to, under a temporary name
 * renamed into place, unless to has it already. */
static int copy_object_file(int from, int to, const char *name,
			    struct copy_run *c)
{
	char tmp[NAME_MAX + 16];
	struct stat sb;
	int in, out, error;

	if (fstatat(to, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		return LEC_OK;
	if (c->counting) {
		c->total++;
		return LEC_OK;
	}
	in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		if (in >= 0)
			close(in);
		return lec__error(LEC_ENOTFOUND, "cannot read %s", name);
	}
	snprintf(tmp, sizeof(tmp), ".%s.lectern-tmp", name);
	unlinkat(to, tmp, 0);
	out = openat(to, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (out < 0) {
		close(in);
		return lec__error(LEC_EIO, "cannot write %s: %s", name,
				  strerror(errno));
	}
	error = lec__copy_fd(in, out, &c->bytes);
	close(in);
	close(out);
	if (error == LEC_OK && renameat(to, tmp, to, name) != 0)
		error = lec__error(LEC_EIO, "cannot write %s: %s", name,
				   strerror(errno));
	if (error < 0)
		unlinkat(to, tmp, 0);
	c->files++;
	return error == LEC_OK ? copy_report(c) : error;
}

/* Whether name is "pack-<hex>.pack". */
static int is_pack_name(const char *name)
{
	size_t n = strlen(name);

	return n > 10 && strncmp(name, "pack-", 5) == 0 &&
	       strcmp(name + n - 5, ".pack") == 0;
}

/* Each pack of from/pack the mirror lacks: the pack, then its index
 * (which makes it visible). */
static int copy_packs(int from, int to, struct copy_run *c)
{
	int src = openat(from, "pack", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dst = -1, error = LEC_OK;
	DIR *d = src >= 0 ? fdopendir(src) : NULL;
	struct dirent *e;
	char idx[NAME_MAX + 1];

	if (d == NULL) {
		if (src >= 0)
			close(src);
		return LEC_OK; /* no packs */
	}
	mkdirat(to, "pack", 0777);
	dst = openat(to, "pack", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0)
		error = lec__error(LEC_EIO, "cannot open the mirror's packs");
	while (error == LEC_OK && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (!is_pack_name(e->d_name) || n >= sizeof(idx))
			continue;
		snprintf(idx, sizeof(idx), "%.*s.idx", (int)(n - 5), e->d_name);
		if ((error = copy_object_file(dirfd(d), dst, e->d_name, c)) ==
		    LEC_OK)
			error = copy_object_file(dirfd(d), dst, idx, c);
	}
	if (dst >= 0)
		close(dst);
	closedir(d);
	return error;
}

/* Whether name is two hex digits (a loose object fan-out directory). */
static int is_fanout(const char *name)
{
	return strlen(name) == 2 && isxdigit((unsigned char)name[0]) &&
	       isxdigit((unsigned char)name[1]);
}

/* Each loose object of from the mirror lacks. */
static int copy_loose(int from, int to, struct copy_run *c)
{
	int dup_from = dup(from), error = LEC_OK;
	DIR *top = dup_from >= 0 ? fdopendir(dup_from) : NULL;
	struct dirent *e, *o;

	if (top == NULL) {
		if (dup_from >= 0)
			close(dup_from);
		return lec__error(LEC_EIO, "cannot list the objects");
	}
	rewinddir(top); /* the copy shares from's offset: start over */
	while (error == LEC_OK && (e = readdir(top)) != NULL) {
		int src, dst;
		DIR *fan;

		if (!is_fanout(e->d_name))
			continue;
		src = openat(from, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		mkdirat(to, e->d_name, 0777);
		dst = openat(to, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fan = src >= 0 ? fdopendir(src) : NULL;
		if (fan == NULL || dst < 0)
			error = lec__error(LEC_EIO, "cannot copy objects/%s",
					   e->d_name);
		while (error == LEC_OK && fan && (o = readdir(fan)) != NULL)
			if (o->d_name[0] != '.')
				error = copy_object_file(src, dst, o->d_name,
							 c);
		if (fan)
			closedir(fan);
		else if (src >= 0)
			close(src);
		if (dst >= 0)
			close(dst);
	}
	closedir(top);
	return error;
}

/* Set repo's branches and tags to src's (each a direct ref, as a mirror
 * fetch leaves them), remove those src no longer has, and point HEAD at
 * src's default branch. LEC_ENOTFOUND when a ref names an object repo
 * lacks: nothing is changed then. */
struct ref_copy {
	char *name;
	git_oid oid;
};

/* Room for one more ref in *refs. */
static int refs_reserve(struct ref_copy **refs, size_t n, size_t *cap)
{
	struct ref_copy *grown;

	if (n < *cap)
		return LEC_OK;
	*cap = *cap ? *cap * 2 : 64;
	LEC__CHECK_ALLOC(grown = lec__realloc(*refs, *cap * sizeof(**refs)));
	*refs = grown;
	return LEC_OK;
}

static int read_source_refs(git_repository *src, git_odb *odb,
			    struct ref_copy **out, size_t *n)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL, *direct = NULL;
	size_t cap = 0;
	int error = LEC_OK;

	*out = NULL;
	*n = 0;
	if (git_reference_iterator_new(&it, src) < 0)
		return lec_repo__fail_as(LEC_EIO,
					 "cannot list the source's refs");
	while (error == LEC_OK && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);

		if ((strncmp(name, LEC_REPO__HEADS, strlen(LEC_REPO__HEADS)) ==
			     0 ||
		     strncmp(name, LEC_REPO__TAGS, strlen(LEC_REPO__TAGS)) ==
			     0) &&
		    git_reference_resolve(&direct, ref) == 0) {
			if (!git_odb_exists(odb, git_reference_target(direct)))
				error = lec__error(LEC_ENOTFOUND,
						   "%s is not in the copies",
						   name);
			else if ((error = refs_reserve(out, *n, &cap)) ==
				 LEC_OK) {
				(*out)[*n].oid = *git_reference_target(direct);
				(*out)[*n].name = lec__strdup(name);
				error = (*out)[(*n)++].name ? LEC_OK
							    : lec__error_oom();
			}
			git_reference_free(direct);
			direct = NULL;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return error;
}

static int set_mirror_refs(git_repository *repo, const struct ref_copy *refs,
			   size_t n)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL, *made = NULL;
	size_t i;
	int rc, error = LEC_OK;

	for (i = 0; error == LEC_OK && i < n; i++) {
		rc = git_reference_create(&made, repo, refs[i].name,
					  &refs[i].oid, 1, "lectern: mirror");
		git_reference_free(made);
		made = NULL;
		if (rc < 0)
			error = lec_repo__fail(rc, NULL, "cannot set %s",
					       refs[i].name);
	}
	if (error < 0 || git_reference_iterator_new(&it, repo) < 0)
		return error < 0
			       ? error
			       : lec_repo__fail_as(LEC_EIO, "cannot list refs");
	/* Prune: what the source no longer has goes. */
	while (error == LEC_OK && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);
		int keep = strncmp(name, LEC_REPO__HEADS,
				   strlen(LEC_REPO__HEADS)) != 0 &&
			   strncmp(name, LEC_REPO__TAGS,
				   strlen(LEC_REPO__TAGS)) != 0;

		for (i = 0; !keep && i < n; i++)
			keep = strcmp(refs[i].name, name) == 0;
		if (!keep && (rc = git_reference_delete(ref)) < 0)
			error = lec_repo__fail(rc, NULL, "cannot remove %s",
					       name);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return error;
}

/* The source repository at path, when it can be copied: its own objects
 * directory holds all its objects. NULL when it must be fetched. */
static git_repository *copyable_source(const char *path)
{
	git_repository *src = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *probe;
	struct stat sb;
	int plain = 0;

	if (git_repository_open_ext(&src, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return NULL;
	lec__buf_printf(&b, "%s/objects/info/alternates",
			git_repository_commondir(src));
	if ((probe = lec__buf_take(&b)) != NULL)
		plain = stat(probe, &sb) != 0 && !git_repository_is_shallow(src);
	lec__free(probe);
	if (!plain) {
		git_repository_free(src);
		return NULL;
	}
	return src;
}

/* Mirror the local repository at path into repo (at repo_dir). */
static int copy_local(git_repository *repo, const char *repo_dir,
		      const char *path, struct transfer *t)
{
	struct copy_run c = { t, 1, 0, 0, 0 };
	struct lec__buf b = LEC__BUF_INIT;
	git_repository *src = copyable_source(path);
	struct ref_copy *refs = NULL;
	git_reference *head = NULL;
	git_odb *odb = NULL;
	char *objects = NULL;
	int from = -1, to = -1, error = LEC_OK;
	size_t n = 0, i;

	if (src == NULL)
		return LEC_ENOTFOUND;
	lec__buf_printf(&b, "%s/objects", git_repository_commondir(src));
	objects = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/objects", repo_dir);
	from = objects ? open(objects, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	lec__free(objects);
	objects = lec__buf_take(&b);
	to = objects ? open(objects, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (from < 0 || to < 0) {
		error = LEC_ENOTFOUND; /* fetched instead */
		goto done;
	}
	/* Counted first, so that progress has a total. */
	for (; error == LEC_OK && c.counting >= 0; c.counting--)
		if ((error = copy_packs(from, to, &c)) == LEC_OK)
			error = copy_loose(from, to, &c);
	if (error < 0)
		goto done;
	if (git_repository_odb(&odb, repo) < 0 || git_odb_refresh(odb) < 0) {
		error = lec_repo__fail_as(LEC_EIO,
					  "cannot read the mirror's objects");
		goto done;
	}
	if ((error = read_source_refs(src, odb, &refs, &n)) < 0 ||
	    (error = set_mirror_refs(repo, refs, n)) < 0)
		goto done;
	if (git_reference_lookup(&head, src, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		error = record_default(repo, git_reference_symbolic_target(head),
				       path);
	else
		error = record_default(repo, NULL, path);
done:
	if (error == LEC_ENOTFOUND)
		lec_error_clear();
	for (i = 0; i < n; i++)
		lec__free(refs[i].name);
	lec__free(refs);
	lec__free(objects);
	git_reference_free(head);
	git_odb_free(odb);
	git_repository_free(src);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	return error;
}

/* Bring repo (at repo_dir) up to date with url: a local source by copying,
 * anything else (or a local one that cannot be copied) through libgit2. */
static int fill_mirror(git_repository *repo, const char *repo_dir,
		       const char *url, const char *shown, struct transfer *t)
{
	const char *path = lec_repo__local_path(url, lec_repo__scheme_len(url));
	int error = path ? copy_local(repo, repo_dir, path, t) : LEC_ENOTFOUND;

	return error == LEC_ENOTFOUND ? fetch_into(repo, url, shown, t) : error;
}

/* First clone: build the mirror in a fresh directory beside dir and rename
 * it into place when complete, so no half-made mirror is ever seen. */
static int clone_new(const char *url, const char *shown, const char *dir,
		     struct transfer *t)
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
				       "cannot create a mirror in '%s'", tmp);
	else
		error = fill_mirror(repo, tmp, url, shown, t);
	git_repository_free(repo);
	/* rename() replaces dir when it is an empty directory. */
	if (error == LEC_OK && rename(tmp, dir) != 0)
		error = lec__error(LEC_EIO, "cannot move the new mirror to "
				   "'%s': %s", dir, strerror(errno));
	if (error < 0)
		lec__remove_tree(tmp);
	lec__free(tmp);
	return error;
}

static int update_existing(const char *url, const char *shown,
			   const char *dir, struct transfer *t)
{
	git_repository *repo = NULL;
	int error;

	if (git_repository_open_bare(&repo, dir) < 0)
		return lec_repo__fail_as(LEC_EEXISTS,
					 "'%s' exists and is not a "
					 "repository mirror",
					 dir);
	error = fill_mirror(repo, dir, url, shown, t);
	git_repository_free(repo);
	return error;
}

int lec_repo_mirror(const char *url, const char *mirror_dir,
		    lec_repo_progress_cb cb, void *payload)
{
	struct transfer t = { cb, payload, 0 };
	enum lec_repo__dir_state state;
	char *shown = NULL, *dir = NULL;
	int error;

	lec_error_clear();
	if (url == NULL || *url == '\0')
		return lec__error(LEC_EINVALID, "no repository URL given");
	if (mirror_dir == NULL || *mirror_dir == '\0')
		return lec__error(LEC_EINVALID, "no mirror directory given");
	shown = lec_repo_redact_url(url);
	dir = lec_repo__trim_slashes(mirror_dir);
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
