/*
 * Git repositories through libgit2 (lectern/repo.h), and what every part
 * of the module stands on (repo_internal.h): libgit2 made ready once, the
 * URLs a repository may have and a URL shown without its credentials,
 * errors in libgit2's words with those credentials taken out, a
 * directory's state, opening a repo cache and a commit's tree, and a local
 * repository's git directory. The parts: caching (repo_fetch.c, with
 * its fast path for a local source in repo_local.c), refs (repo_refs.c), a
 * commit's checkout (repo_checkout.c), kept checkouts (repo_kept.c), the
 * checkout's .git (repo_clone.c) and submodules (repo_submodules.c). Each
 * calls this file and this file none of them.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "internal.h"
#include "lectern/repo.h"
#include "repo_internal.h"

/* Room for the context part of an error message ("cannot fetch <url>"); the
 * whole message is cut at the error module's limit anyway. */
#define REPO_CONTEXT_MAX 512

/* The URL schemes a repo cache may come from (a local path needs none). */
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

/* Opening ------------------------------------------------------------------ */

int lec_repo__open_cache(const char *dir, git_repository **repo)
{
	int error;

	*repo = NULL;
	if (dir == NULL || *dir == '\0')
		return lec__error(LEC_EINVALID, "no repo cache directory given");
	if ((error = lec_repo__ready()) < 0)
		return error;
	if (git_repository_open_bare(repo, dir) < 0)
		return lec_repo__fail_as(LEC_ENOTFOUND,
					 "no repo cache at '%s'", dir);
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
		return lec_repo__fail(rc, NULL, "no commit %s in the repo cache",
				      hex);
	rc = git_commit_tree(tree, commit);
	git_commit_free(commit);
	if (rc < 0)
		return lec_repo__fail(rc, NULL, "cannot read the tree of %s",
				      hex);
	return LEC_OK;
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
