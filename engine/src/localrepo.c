/*
 * Local repository URLs against the server's allowed directories (see
 * localrepo.h): find the path a URL names the way git does, canonicalise it
 * and each root with realpath, and accept the path only at or below a root.
 * Every refusal names the URL's field and the allowed directories, so the
 * API can show it as the service shows a validation error. The same
 * canonical path, followed to the git directory behind it, is what tells
 * two projects' URLs for one repository (lec_localrepo_identity). A
 * project's URL must also name a git repository that is there
 * (lec_localrepo_check_repository).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "files.h"
#include "internal.h"
#include "lectern/localrepo.h"

/* The only host a file URL may name besides none (RFC 8089): git and
 * libgit2 read both as the local path that follows. */
#define FILE_SCHEME "file:"
#define FILE_AUTHORITY "//"
#define LOCALHOST "localhost"

static int refuse_form(const char *url)
{
	return lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
				"Write a local repository as file:///PATH, "
				"with no host and no percent-escapes: '%s'",
				url);
}

/* The local path url names, as git tells local from remote: a file URL,
 * else anything with "://" is remote, else a ':' before the first '/' is
 * an ssh "host:path", else it is a path. *out points into url; NULL when
 * the URL is not local. */
static int local_path(const char *url, const char **out)
{
	size_t scheme = strlen(FILE_SCHEME), authority = strlen(FILE_AUTHORITY);
	size_t host = strlen(LOCALHOST);
	const char *p = url;

	*out = NULL;
	if (strncasecmp(url, FILE_SCHEME, scheme) != 0) {
		if (strstr(url, "://") == NULL &&
		    strcspn(url, ":") >= strcspn(url, "/"))
			*out = url;
		return LEC_OK;
	}
	p += scheme;
	if (strncmp(p, FILE_AUTHORITY, authority) != 0)
		return refuse_form(url);
	p += authority;
	if (strncasecmp(p, LOCALHOST, host) == 0 && p[host] == '/')
		p += host;
	if (*p != '/' || strchr(p, '%'))
		return refuse_form(url);
	*out = p;
	return LEC_OK;
}

/* Whether a path's part past its existing prefix holds "." or "..": nothing
 * on disk says where those would lead once the directories exist. */
static int has_dot_segment(const char *rest)
{
	while (*rest) {
		size_t n;

		rest += strspn(rest, "/");
		n = strcspn(rest, "/");
		if ((n == 1 && rest[0] == '.') ||
		    (n == 2 && rest[0] == '.' && rest[1] == '.'))
			return 1;
		rest += n;
	}
	return 0;
}

/* The canonical form of an absolute path: realpath of its longest existing
 * prefix followed by the rest. *out (lec__free) is NULL when the path cannot
 * be placed (unreadable, a symlink loop, a dangling symlink, whose target
 * may appear anywhere, "." or ".." in the missing part). */
static int canonical(const char *path, char **out)
{
	char *prefix = lec__strdup(path), *resolved = lec__malloc(PATH_MAX);
	size_t end = strlen(path);
	struct lec__buf buf = LEC__BUF_INIT;
	int error = LEC_OK;

	*out = NULL;
	if (prefix == NULL || resolved == NULL) {
		error = lec__error_oom();
		goto done;
	}
	for (;;) {
		struct stat sb;

		prefix[end] = '\0';
		if (realpath(end ? prefix : "/", resolved) != NULL)
			break;
		if ((errno != ENOENT && errno != ENOTDIR) || end == 0 ||
		    lstat(prefix, &sb) == 0)
			goto done;
		while (end > 0 && path[end - 1] != '/')
			end--;
		while (end > 0 && path[end - 1] == '/')
			end--;
	}
	if (has_dot_segment(path + end))
		goto done;
	/* "/" + "/rest" would start with "//". */
	lec__buf_puts(&buf, strcmp(resolved, "/") == 0 && path[end] ? ""
								 : resolved);
	lec__buf_puts(&buf, path + end);
	if ((*out = lec__buf_take(&buf)) == NULL)
		error = LEC_ENOMEM;
done:
	lec__free(prefix);
	lec__free(resolved);
	return error;
}

/* Whether path is root or lies below it (both canonical). */
static int within(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* Whether canonical path lies in one of the roots (each canonicalised;
 * those that are not absolute or do not exist are skipped); 1, 0, or an
 * error. */
static int allowed(const char *path, const char *const *roots)
{
	char *root = lec__malloc(PATH_MAX);
	int found = 0;

	LEC__CHECK_ALLOC(root);
	for (; roots && *roots && !found; roots++)
		found = (*roots)[0] == '/' && realpath(*roots, root) != NULL &&
			within(path, root);
	lec__free(root);
	return found;
}

static int refuse(const char *url, const char *const *roots)
{
	struct lec__buf list = LEC__BUF_INIT;
	char *text;
	int error;

	if (roots == NULL || roots[0] == NULL)
		return lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
					"This server does not build local "
					"repositories: '%s'",
					url);
	for (; *roots; roots++)
		lec__buf_printf(&list, "%s%s", list.len ? ", " : "", *roots);
	if ((text = lec__buf_take(&list)) == NULL)
		return LEC_ENOMEM;
	error = lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
				 "Local repositories must be in %s; '%s' is "
				 "not",
				 text, url);
	lec__free(text);
	return error;
}

int lec_localrepo_check(const char *url, const char *const *roots,
			char **path)
{
	const char *local = NULL;
	char *resolved = NULL;
	int error;

	lec_error_clear();
	if (path)
		*path = NULL;
	if (url == NULL)
		return lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
					"No repository URL given");
	if ((error = local_path(url, &local)) < 0 || local == NULL)
		return error;
	if (local[0] != '/')
		return lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
					"A local repository must be an "
					"absolute path: '%s'",
					url);
	if ((error = canonical(local, &resolved)) < 0)
		return error;
	error = resolved ? allowed(resolved, roots) : 0;
	if (error == 0)
		error = refuse(url, roots);
	else if (error > 0)
		error = LEC_OK;
	if (error == LEC_OK && path)
		*path = resolved;
	else
		lec__free(resolved);
	return error;
}

/* Whether dir/name is there: a file or directory of type (S_IFDIR,
 * S_IFREG), or of any type for 0. */
static int has(const char *dir, const char *name, mode_t type)
{
	struct lec__buf buf = LEC__BUF_INIT;
	struct stat sb;
	char *path;
	int found;

	lec__buf_printf(&buf, "%s/%s", dir, name);
	if ((path = lec__buf_take(&buf)) == NULL)
		return 0;
	found = stat(path, &sb) == 0 &&
		(type == 0 || (sb.st_mode & S_IFMT) == type);
	lec__free(path);
	return found;
}

int lec_localrepo_check_repository(const char *url, const char *const *roots)
{
	struct stat sb;
	char *path = NULL;
	int error;

	if ((error = lec_localrepo_check(url, roots, &path)) < 0 ||
	    path == NULL)
		return error;
	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
		error = lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
					 "No directory %s.", path);
	else if (!has(path, ".git", 0) &&
		 !(has(path, "HEAD", S_IFREG) && has(path, "objects", S_IFDIR)))
		error = lec__error_field(LEC_EINVALID, LEC_LOCALREPO_FIELD,
					 "%s is not a git repository.", path);
	lec__free(path);
	return error;
}

/* Collapse runs of '/' and drop a trailing one ("/a//b/" is "/a/b"): the
 * part of a canonical path that does not exist yet keeps them. */
static void tidy_slashes(char *path)
{
	char *in = path, *out = path;

	for (; *in; in++)
		if (*in != '/' || out == path || out[-1] != '/')
			*out++ = *in;
	if (out > path + 1 && out[-1] == '/')
		out--;
	*out = '\0';
}

/* The canonical form of rel, relative to base unless absolute, into *out
 * (lec__free); NULL when it leads nowhere that exists. */
static int resolve(const char *base, const char *rel, char **out)
{
	char *joined = rel[0] == '/' ? NULL : lec__path_join(base, rel);
	int error = LEC_OK;

	*out = NULL;
	if ((rel[0] != '/' && joined == NULL) ||
	    (*out = lec__malloc(PATH_MAX)) == NULL)
		error = lec__error_oom();
	else if (realpath(joined ? joined : rel, *out) == NULL) {
		lec__free(*out);
		*out = NULL;
	}
	lec__free(joined);
	return error;
}

/* Where the one-line file name in dir points ("gitdir: X" when prefix is
 * "gitdir:", else the line itself), relative to dir, into *out as
 * resolve; NULL too when there is no such regular file below dir or it
 * says something else. */
static int follow_file(const char *dir, const char *name, const char *prefix,
		       char **out)
{
	size_t len = 0, n = strlen(prefix);
	char *text = NULL, *rel;
	int error = LEC_OK;

	*out = NULL;
	if (lec__read_in(dir, name, PATH_MAX, &text, &len) < 0) {
		lec_error_clear();
		return LEC_OK;
	}
	if (strncmp(text, prefix, n) == 0 && strlen(text) == len) {
		rel = text + n;
		rel += strspn(rel, " \t");
		rel[strcspn(rel, "\r\n")] = '\0';
		if (*rel)
			error = resolve(dir, rel, out);
	}
	lec__free(text);
	return error;
}

/* *path replaced by next when there is one. */
static void take(char **path, char *next)
{
	if (next == NULL)
		return;
	lec__free(*path);
	*path = next;
}

/* The git directory canonical path *path names, as git finds it: a work
 * tree's .git directory, or where its ".git" file points (a submodule's
 * or a linked worktree's checkout); a bare repository is itself. A linked
 * worktree's git directory then gives way to the repository whose refs and
 * objects it shares (its "commondir" file): a clone of either reads them
 * all. */
static int git_dir(char **path)
{
	char *dotgit = lec__path_join(*path, ".git"), *next = NULL;
	struct stat sb;
	int error;

	LEC__CHECK_ALLOC(dotgit);
	if (stat(dotgit, &sb) == 0 && S_ISDIR(sb.st_mode))
		error = resolve(*path, ".git", &next);
	else
		error = follow_file(*path, ".git", "gitdir:", &next);
	lec__free(dotgit);
	take(path, next);
	if (error == LEC_OK &&
	    (error = follow_file(*path, "commondir", "", &next)) == LEC_OK)
		take(path, next);
	return error;
}

int lec_localrepo_identity(const char *url, char **identity)
{
	const char *local = NULL;
	char *path = NULL;
	int error;

	lec_error_clear();
	*identity = NULL;
	if (url == NULL || local_path(url, &local) < 0 || local == NULL ||
	    local[0] != '/') {
		lec_error_clear();
		return LEC_OK;
	}
	if ((error = canonical(local, &path)) < 0 || path == NULL)
		return error;
	tidy_slashes(path);
	if ((error = git_dir(&path)) < 0) {
		lec__free(path);
		return error;
	}
	*identity = path;
	return LEC_OK;
}
