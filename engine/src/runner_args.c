/*
 * The sandbox a command runs in, as bubblewrap's command line
 * (lectern/runner.h): a spec checked first (absolute paths, no uid 0, the
 * mounts there), then what the sandbox sees: /usr and the system's links
 * into it and a list of /etc files, read-only; a synthetic /etc/passwd and
 * group; /tmp and /dev/shm as capped tmpfs; the spec's mounts over them;
 * everything else in memory read-only; every namespace unshared but the
 * network a spec may keep; the command under prlimit when processes or
 * its address space are capped. And, unsandboxed, the command found on
 * its own PATH. runner.c runs what this builds; this file calls nothing
 * of it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "runner_internal.h"

/* /dev/shm's size: POSIX semaphores and shared memory of Python's
 * multiprocessing (Sphinx -j) need a little; a build's bulk goes to its
 * directory or /tmp. */
#define RUNNER_SHM_BYTES ((size_t)64 * 1024 * 1024)
/* util-linux's prlimit sets RLIMIT_NPROC inside the sandbox's user
 * namespace, where the kernel counts that namespace's processes only. */
#define RUNNER_PRLIMIT "/usr/bin/prlimit"

/* The system part of the sandbox: /usr read-only, and the top-level names
 * that merged-/usr systems make links into it (bound as directories where
 * they are not links). */
static const char *const system_top[] = { "/bin", "/sbin", "/lib", "/lib32",
					  "/lib64", "/libx32" };
/* What interpreters and generators read beside /usr: /etc entries, and
 * TeX's formats and font maps, which Debian generates into its
 * TEXMFSYSVAR (without them pdflatex finds no format and Sphinx's PDF
 * fails). Each bound read-only when present; nothing here holds a
 * secret. */
static const char *const system_files[] = {
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates",
	"/etc/mime.types", "/etc/fonts", "/etc/localtime", "/etc/timezone",
	"/etc/nsswitch.conf", "/etc/host.conf", "/etc/hosts",
	"/etc/resolv.conf", "/etc/gai.conf", "/etc/protocols",
	"/etc/services", "/etc/python3", "/etc/python3.11", "/etc/xdg",
	"/etc/matplotlibrc", "/etc/papersize", "/etc/texmf",
	"/var/lib/texmf",
};

/* bubblewrap's path (a variable for the tests: runner_internal.h). */
const char *lec_runner__bwrap_path = LEC_RUNNER_BWRAP;

/* Vectors --------------------------------------------------------------------- */

/* Room for one more string and the NULL after it (so an empty vector is a
 * real, NULL-terminated one too). */
int lec_runner__strvec_reserve(struct lec_runner__strvec *v)
{
	if (v->len + 2 > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 32;
		char **items = lec__realloc(v->items, cap * sizeof(*items));

		if (items == NULL)
			return lec__error_oom();
		v->items = items;
		v->cap = cap;
		v->items[v->len] = NULL;
	}
	return LEC_OK;
}

static int strvec_push_n(struct lec_runner__strvec *v, const char *s, size_t n)
{
	char *copy;
	int error;

	if ((error = lec_runner__strvec_reserve(v)) < 0)
		return error;
	if ((copy = lec__strndup(s, n)) == NULL)
		return lec__error_oom();
	v->items[v->len++] = copy;
	v->items[v->len] = NULL;
	return LEC_OK;
}

int lec_runner__strvec_push(struct lec_runner__strvec *v, const char *s)
{
	return strvec_push_n(v, s, strlen(s));
}

void lec_runner__strvec_dispose(struct lec_runner__strvec *v)
{
	lec__strings_free(v->items, v->len);
	memset(v, 0, sizeof(*v));
}

/* Spec checking ------------------------------------------------------------ */

static int check_env(const char *const *env)
{
	size_t i;

	for (i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if (eq == NULL || eq == env[i])
			return lec__error(LEC_EINVALID,
					  "environment entry '%s' is not "
					  "KEY=VALUE",
					  env[i]);
	}
	return LEC_OK;
}

/* bubblewrap mounts and changes directory by absolute path only. */
static int check_absolute(const char *what, const char *path)
{
	if (path != NULL && path[0] != '/')
		return lec__error(LEC_EINVALID,
				  "the %s must be an absolute path, not '%s'",
				  what, path);
	return LEC_OK;
}

int lec_runner__check_spec(const struct lec_runner_spec *spec)
{
	struct stat sb;
	size_t i;
	int error;

	if (spec == NULL || spec->argv == NULL || spec->argv[0] == NULL ||
	    spec->argv[0][0] == '\0')
		return lec__error(LEC_EINVALID, "no command to run");
	if (spec->limits && spec->limits->version != LEC_RUNNER_LIMITS_VERSION)
		return lec__error(LEC_EINVALID,
				  "unknown runner limits version %u",
				  spec->limits->version);
	if (!spec->unsandboxed && !spec->same_user &&
	    (spec->uid == 0 || spec->gid == 0))
		return lec__error(LEC_EINVALID,
				  "a build never runs as uid or gid 0");
	if (spec->network < LEC_RUNNER_NET_NONE ||
	    spec->network > LEC_RUNNER_NET_EGRESS ||
	    (spec->network == LEC_RUNNER_NET_EGRESS && spec->egress_fd < 0))
		return lec__error(LEC_EINVALID,
				  "unknown network, or no egress socket");
	if (spec->nmounts > LEC_RUNNER__MAX_MOUNTS)
		return lec__error(LEC_EINVALID, "at most %d mounts",
				  LEC_RUNNER__MAX_MOUNTS);
	if ((error = check_absolute("working directory", spec->cwd)) < 0)
		return error;
	for (i = 0; spec->tmpfs && spec->tmpfs[i]; i++)
		if ((error = check_absolute("tmpfs", spec->tmpfs[i])) < 0)
			return error;
	for (i = 0; spec->watch_dirs && spec->watch_dirs[i]; i++)
		if ((error = check_absolute("watched directory",
					    spec->watch_dirs[i])) < 0)
			return error;
	for (i = 0; i < spec->nmounts; i++) {
		const char *path = spec->mounts[i].path;

		if (path == NULL)
			return lec__error(LEC_EINVALID, "a mount has no path");
		if ((error = check_absolute("mount", path)) < 0)
			return error;
		if (stat(path, &sb) != 0)
			return lec__error(LEC_ENOTFOUND, "cannot mount %s: %s",
					  path, strerror(errno));
	}
	return check_env(spec->env);
}

int lec_runner__push_all(struct lec_runner__strvec *v,
			 const char *const *strings)
{
	size_t i;
	int error;

	for (i = 0; strings && strings[i]; i++)
		if ((error = lec_runner__strvec_push(v, strings[i])) < 0)
			return error;
	return LEC_OK;
}

static int push3(struct lec_runner__strvec *v, const char *a, const char *b,
		 const char *c)
{
	int error;

	if ((error = lec_runner__strvec_push(v, a)) < 0 ||
	    (b && (error = lec_runner__strvec_push(v, b)) < 0))
		return error;
	return c ? lec_runner__strvec_push(v, c) : LEC_OK;
}

/* /usr, the links into it, and the /etc list. */
static int push_system(struct lec_runner__strvec *v)
{
	char target[256];
	struct stat sb;
	size_t i;
	int error = push3(v, "--ro-bind", "/usr", "/usr");

	for (i = 0;
	     error == LEC_OK && i < sizeof(system_top) / sizeof(system_top[0]);
	     i++) {
		ssize_t n = readlink(system_top[i], target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			error = push3(v, "--symlink", target, system_top[i]);
		} else if (stat(system_top[i], &sb) == 0 &&
			   S_ISDIR(sb.st_mode)) {
			error = push3(v, "--ro-bind", system_top[i],
				      system_top[i]);
		}
	}
	for (i = 0;
	     error == LEC_OK &&
	     i < sizeof(system_files) / sizeof(system_files[0]);
	     i++)
		error = push3(v, "--ro-bind-try", system_files[i], system_files[i]);
	return error;
}

/* A tmpfs at path, of at most bytes (0: no cap). */
static int push_tmpfs(struct lec_runner__strvec *v, const char *path,
		      size_t bytes)
{
	char size[32];
	int error;

	if (bytes > 0) {
		snprintf(size, sizeof(size), "%zu", bytes);
		if ((error = push3(v, "--size", size, NULL)) < 0)
			return error;
	}
	return push3(v, "--tmpfs", path, NULL);
}

/* The writable memory of the sandbox: the private /tmp (tmp_bytes) and
 * /dev/shm (the smaller of RUNNER_SHM_BYTES and tmp_bytes). Everything
 * else in memory is made read-only (push_read_only). */
static int push_scratch(struct lec_runner__strvec *v, size_t tmp_bytes)
{
	size_t shm = tmp_bytes > 0 && tmp_bytes < RUNNER_SHM_BYTES
			     ? tmp_bytes
			     : RUNNER_SHM_BYTES;
	int error;

	if ((error = push_tmpfs(v, "/tmp", tmp_bytes)) < 0 ||
	    (error = push3(v, "--perms", "1777", NULL)) < 0)
		return error;
	return push_tmpfs(v, "/dev/shm", shm);
}

/* bubblewrap's root and /dev are tmpfs of no size: left writable, a build
 * could fill the host's memory through them. Once every mount point is
 * made, both become read-only (the mounts below keep their own modes). */
static int push_read_only(struct lec_runner__strvec *v)
{
	int error = push3(v, "--remount-ro", "/dev", NULL);

	return error < 0 ? error : push3(v, "--remount-ro", "/", NULL);
}

/* Each mount from its staged name (root) or its own path, then the
 * spec's tmpfs mounts. */
static int push_mounts(struct lec_runner__strvec *v,
		       const struct lec_runner_spec *spec, int staged)
{
	char stage[64];
	size_t i;
	int error;

	for (i = 0; i < spec->nmounts; i++) {
		const struct lec_runner_mount *m = &spec->mounts[i];

		snprintf(stage, sizeof(stage), LEC_RUNNER__STAGE_DIR "/%zu", i);
		if ((error = push3(v, m->writable ? "--bind" : "--ro-bind",
				   staged ? stage : m->path, m->path)) < 0)
			return error;
	}
	for (i = 0; spec->tmpfs && spec->tmpfs[i]; i++)
		if ((error = push_tmpfs(v, spec->tmpfs[i],
					LEC_RUNNER_TMPFS_MOUNT_BYTES)) < 0)
			return error;
	return LEC_OK;
}

/* The command, after the launcher if any, under prlimit when processes
 * are capped, or its address space is and a launcher runs it (the
 * launcher itself runs outside that cap: see lec_runner_spec). */
static int push_command(struct lec_runner__strvec *v,
			const struct lec_runner_spec *spec,
			const struct lec_runner_limits *limits)
{
	int as = spec->launcher != NULL && limits->memory_bytes > 0;
	char nproc[48], address_space[48];
	int error;

	if ((error = lec_runner__push_all(v, spec->launcher)) < 0)
		return error;
	if (limits->nproc > 0 || as) {
		snprintf(nproc, sizeof(nproc), "--nproc=%u:%u", limits->nproc,
			 limits->nproc);
		snprintf(address_space, sizeof(address_space), "--as=%zu:%zu",
			 limits->memory_bytes, limits->memory_bytes);
		if ((error = lec_runner__strvec_push(v, RUNNER_PRLIMIT)) < 0 ||
		    (limits->nproc > 0 &&
		     (error = lec_runner__strvec_push(v, nproc)) < 0) ||
		    (as &&
		     (error = lec_runner__strvec_push(v, address_space)) < 0) ||
		    (error = lec_runner__strvec_push(v, "--")) < 0)
			return error;
	}
	return lec_runner__push_all(v, spec->argv);
}

/* bubblewrap's command line. The order of the mounts matters: later ones
 * cover earlier ones, so the spec's mounts come after the system and /tmp
 * (a build directory may live under /tmp). No environment is named here:
 * bubblewrap passes on its own, which is the command's. */
int lec_runner__bwrap_args(const struct lec_runner_spec *spec,
			   const struct lec_runner_limits *limits, int staged,
			   struct lec_runner__strvec *v)
{
	static const char *const head[] = { "--ro-bind-data",
					    LEC_RUNNER__PASSWD_FD_TEXT,
					    "/etc/passwd",
					    "--ro-bind-data",
					    LEC_RUNNER__GROUP_FD_TEXT,
					    "/etc/group",
					    "--dev",
					    "/dev",
					    "--proc",
					    "/proc",
					    NULL };
	static const char *const tail[] = {
		"--unshare-all", "--die-with-parent",	   "--new-session",
		"--info-fd",	 LEC_RUNNER__INFO_FD_TEXT, NULL
	};
	int error;

	if ((error = lec_runner__strvec_push(v, lec_runner__bwrap_path)) < 0 ||
	    (error = push_system(v)) < 0 ||
	    (error = lec_runner__push_all(v, head)) < 0 ||
	    (error = push_scratch(v, limits->tmp_bytes)) < 0 ||
	    (error = push_mounts(v, spec, staged)) < 0 ||
	    (error = push_read_only(v)) < 0 ||
	    (error = lec_runner__push_all(v, tail)) < 0 ||
	    (spec->network == LEC_RUNNER_NET_HOST &&
	     (error = lec_runner__strvec_push(v, "--share-net")) < 0) ||
	    (error = push3(v, "--chdir", spec->cwd ? spec->cwd : "/", "--")) <
		    0)
		return error;
	return push_command(v, spec, limits);
}

/* The PATH of the command's own environment. */
static const char *env_path(const char *const *env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			return env[i] + 5;
	return LEC_RUNNER__DEFAULT_PATH;
}

/* Unsandboxed: find argv[0] on the command's PATH before fork (execvp would
 * search the server's PATH). Relative PATH entries are skipped; a name with
 * a '/' is used as given, relative to the command's working directory. */
int lec_runner__resolve_command(const char *name, const char *const *env,
				char **path)
{
	const char *dir = env_path(env);

	*path = NULL;
	if (strchr(name, '/'))
		return (*path = lec__strdup(name)) ? LEC_OK : lec__error_oom();
	while (*dir) {
		size_t n = strcspn(dir, ":");
		size_t need = n + strlen(name) + 2;

		if (n > 0 && dir[0] == '/') {
			char *candidate = lec__malloc(need);

			if (candidate == NULL)
				return lec__error_oom();
			memcpy(candidate, dir, n);
			candidate[n] = '/';
			memcpy(candidate + n + 1, name, strlen(name) + 1);
			if (access(candidate, X_OK) == 0) {
				*path = candidate;
				return LEC_OK;
			}
			lec__free(candidate);
		}
		dir += n + (dir[n] == ':');
	}
	return lec__error(LEC_ENOTFOUND, "command not found: %s", name);
}
