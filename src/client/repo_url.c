/*
 * What a person typed as the repository of an import (`lectern import X`,
 * the TUI's import form) as the API takes it: the API takes URLs only
 * ("Invalid scheme for URL" for a path), while people name a directory
 * of their machine as they type it anywhere else ("docs", "~/src/guide",
 * "/srv/repo.git"). One rule here, so the CLI and the TUI cannot differ.
 *
 * A URL (anything with "://", or git's scp-like "host:path") is sent as it
 * is. A path, when the engine reads this machine's files (the local
 * context), must be a directory here, and goes as its canonical file://
 * URL; elsewhere (an ssh context's engine reads its own machine) an
 * absolute path goes as file://PATH for that engine to check, and a
 * relative one, which names nothing there, is refused. Whether a
 * directory holds a git repository is the engine's rule, checked before
 * the project is made (lec_localrepo_check_repository), for every client.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "client_internal.h"

/* Whether typed is a URL, as git tells one from a path: a scheme, or a
 * ':' before the first '/' (scp-like "host:path"). */
static int is_url(const char *typed)
{
	const char *colon = strchr(typed, ':'), *slash = strchr(typed, '/');

	return strstr(typed, "://") != NULL ||
	       (colon != NULL && (slash == NULL || colon < slash));
}

/* "~/x" as $HOME/x; else typed. Owned. */
static char *expand_home(const char *typed)
{
	const char *home = getenv("HOME");
	char *out = NULL;

	if (strncmp(typed, "~/", 2) == 0 && home && *home) {
		if (asprintf(&out, "%s/%s", home, typed + 2) < 0)
			out = NULL;
		return out;
	}
	return strdup(typed);
}

int lc_repository_url(const char *typed, int here, char **out,
		      struct lc_error *err)
{
	struct stat st;
	char *path = NULL, *real = NULL;
	int rc = LC_OK;

	*out = NULL;
	lc_error_clear(err);
	if (typed == NULL || *typed == '\0')
		return lc__fail(err, LC_EINVAL, 0, "no repository given");
	if (is_url(typed)) {
		if ((*out = strdup(typed)) == NULL)
			return lc__fail(err, LC_ENOMEM, 0, "out of memory");
		return LC_OK;
	}
	if (!here) {
		if (typed[0] != '/')
			return lc__fail(err, LC_EINVAL, 0,
					"'%s' is a relative path: the engine "
					"is on another machine; give the "
					"absolute path there, or a URL",
					typed);
		if (asprintf(out, "file://%s", typed) < 0) {
			*out = NULL;
			return lc__fail(err, LC_ENOMEM, 0, "out of memory");
		}
		return LC_OK;
	}
	if ((path = expand_home(typed)) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	if (stat(path, &st) != 0)
		rc = lc__fail(err, LC_EINVAL, 0, "%s: %s", typed,
			      errno == ENOENT || errno == ENOTDIR
				      ? "no such directory"
				      : strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = lc__fail(err, LC_EINVAL, 0,
			      "%s: not a directory (a repository to import is "
			      "one)", typed);
	else if ((real = realpath(path, NULL)) == NULL)
		rc = lc__fail(err, LC_EINVAL, 0, "%s: %s", typed,
			      strerror(errno));
	else if (asprintf(out, "file://%s", real) < 0)
		rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
	if (rc != LC_OK)
		*out = NULL;
	free(path);
	free(real);
	return rc;
}
