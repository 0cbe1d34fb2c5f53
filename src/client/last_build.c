/*
 * A project's "last build", as the TUI's Projects screen and `lectern
 * projects` show it: its default version's newest build, the one its
 * published docs come from, not the newest of any version (a branch's
 * build would stand for the project's state; issue 43, item 12). One
 * page of one build of the version's builds list, which the service has
 * too (GET /api/v3/projects/<p>/versions/<v>/builds/).
 */
#include <stdlib.h>

#include "client.h"
#include "client_internal.h"

char *lc_last_build_path(const char *project, const char *default_version)
{
	struct lc_buf path = { 0 };

	lc__buf_str(&path, "/api/v3/projects/");
	lc__buf_escape(&path, project, false);
	if (default_version && *default_version) {
		lc__buf_str(&path, "/versions/");
		lc__buf_escape(&path, default_version, false);
	}
	lc__buf_str(&path, "/builds/?limit=1");
	if (path.rc != LC_OK) {
		free(path.s);
		return NULL;
	}
	return path.s;
}
