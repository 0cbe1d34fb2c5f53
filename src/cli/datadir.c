/*
 * Where the binary's installed assets are, and which repository the TUI's
 * demo imports. An installed lectern (/usr/bin/lectern) finds them in
 * ../share/lectern beside its own directory (/usr/share/lectern), wherever
 * the tree was put, an unpacked package (dpkg -x) too; $LECTERN_DATADIR
 * overrides that. A binary in its build tree has no such directory: its
 * demo imports the repository the build made for the package, the same
 * commit of README.md and docs/ an installed one has, not the source tree
 * (which may be a git worktree, whose history lies outside it, out of the
 * builds' reach). Themes and site.css are compiled in and need neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"

/* The demo's repository under the assets directory (packaging/demo-repo.sh
 * makes it). */
#define DEMO_REPO "demo.git"
/* Room for an install prefix and the names under it. */
#define ASSET_PATH_MAX 4096

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_assets_dir(void)
{
	static char dir[ASSET_PATH_MAX];
	static int resolved;
	const char *env = getenv("LECTERN_DATADIR");
	char exe[ASSET_PATH_MAX];
	ssize_t n;
	int up;

	if (env && *env)
		return env;
	if (resolved)
		return dir[0] ? dir : NULL;
	resolved = 1;
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	/* PREFIX/bin/lectern: drop the file name and bin. */
	for (up = 0; up < 2; up++) {
		char *slash = strrchr(exe, '/');

		if (slash == NULL)
			return NULL;
		*slash = '\0';
	}
	if (snprintf(dir, sizeof(dir), "%s/share/lectern", exe) >=
		    (int)sizeof(dir) ||
	    !is_dir(dir))
		dir[0] = '\0';
	return dir[0] ? dir : NULL;
}

const char *cli_demo_repo(void)
{
	static char repo[ASSET_PATH_MAX];
	const char *assets = cli_assets_dir();

	if (assets && snprintf(repo, sizeof(repo), "%s/" DEMO_REPO, assets) <
			      (int)sizeof(repo) &&
	    is_dir(repo))
		return repo;
	return is_dir(LEC_BUILT_DEMO_REPO) ? LEC_BUILT_DEMO_REPO : NULL;
}
