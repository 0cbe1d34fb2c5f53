/*
 * The install step's Python part, like the hosted service: a project whose
 * configuration has python.install gets a virtualenv of its own per version
 * (DATA/python/<project>/venvs/<version>), made with Debian's
 * /usr/bin/python3 -m venv --system-site-packages --without-pip (so the
 * machine's Sphinx and MkDocs stay importable and Debian's pip, seen through
 * the system site-packages, installs into it), and each entry installed
 * into it with pip: `requirements` files, and `path` (with its
 * extra_requirements) for method pip or setuptools. The generators then run
 * with the venv's Python. A project without python.install builds with
 * /usr/bin/python3 directly: nothing to make, nothing to wait for.
 *
 * Two steps, each replaced by the project's own commands when its
 * configuration names build.jobs.create_environment or build.jobs.install
 * (even as an empty list), as the service's director does: the project's
 * create_environment makes $READTHEDOCS_VIRTUALENV_PATH itself (emptied
 * first), its install installs into the venv Lectern made. A generic build
 * (neither Sphinx nor MkDocs) gets neither by default.
 *
 * Installing is two commands per entry. `pip wheel` fills the project's
 * wheelhouse (DATA/python/<project>/wheels) from the index pip is
 * configured with (this is the one step of a build with network, unless
 * `lectern serve --offline`); then `pip install --no-index --find-links
 * WHEELHOUSE` installs from it alone. `pip wheel` runs the repository's
 * code (setup.py, a build backend), so its network is the egress proxy's
 * (egress.h): public addresses, and beyond them only the endpoints of the
 * index URLs the server's administrator configured (PIP_INDEX_URL,
 * PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS of `lectern serve`'s environment
 * and its pip.conf files), never the host's loopback or local network,
 * whatever the project's variables or requirement lines name. So a later build installs the same
 * requirements without any index, and a build whose index is unreachable
 * still works from what an earlier one fetched. With no index at all
 * (offline, or PIP_NO_INDEX) the wheel step runs --no-index too and both
 * use --no-build-isolation, since build isolation would fetch setuptools.
 * So does a step none of whose sources answers a connect (probe_sources):
 * pip would retry each five times, and an engine without a network has
 * what it may install in its wheelhouse; a failed install then says what
 * was available and how to give more.
 *
 * pip's configuration is the server's: PIP_* variables of `lectern serve`'s
 * environment are passed on (URL credentials in them are masked in the
 * log), pip.conf files and local find-links directories are bound
 * read-only at their own paths, and nothing else of the host is visible.
 *
 * A venv is reused while its inputs (the requirement files, the entries,
 * the interpreter) are unchanged: a stamp file holds their hash. Builds
 * write the project's Python directory, so nothing the engine trusts lives
 * there: the stamps are in DATA/python/.stamps/<project>/ (never mounted
 * into a build), requirement files are read beneath the checkout only
 * (lec__read_in), and a venv is removed beneath the Python directory
 * (lec__remove_beneath): a link or fifo a build left there is never
 * followed out of it or blocked on.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_steps.h"
#include "hash.h"

/* A stamp holds one hash in hex. */
#define STAMP_MAX 64
/* Largest requirements file hashed for the reuse stamp. */
#define REQUIREMENTS_MAX (1024 * 1024)
/* The server's pip settings a build's pip sees. */
static const char *const pip_passthrough[] = {
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS",
	"PIP_NO_INDEX",	 "PIP_TRUSTED_HOST",	"PIP_CERT",
	"PIP_TIMEOUT",	 "PIP_RETRIES",		"PIP_CONFIG_FILE",
};
/* pip.conf files of the machine, bound when present. */
static const char *const pip_configs[] = { "/etc/pip.conf" };
/* Largest pip.conf read for its index URLs: an administrator's file is a
 * few lines. */
#define PIP_CONFIG_MAX (64 * 1024)
/* The settings, in the environment and (without the PIP_ and with '-'
 * for '_', in any case) in pip.conf, that name where packages come from;
 * the first is the index pip uses instead of its default. */
static const char *const pip_sources[] = { "PIP_INDEX_URL",
					   "PIP_EXTRA_INDEX_URL",
					   "PIP_FIND_LINKS" };
/* pip's index when none is configured. */
#define DEFAULT_INDEX "https://pypi.org/simple/"
/* Sources looked at before the first wheel step: more than any real
 * configuration names. */
#define SOURCES_MAX 8
/* How long a source's connect may take: a reachable index answers in well
 * under a second, and pip's own timeout and five retries of an
 * unreachable one took 9 s of every build. */
#define SOURCE_PROBE_MS 3000

/* What the install commands share. */
struct install {
	struct lec__job *job;
	char *wheels;   /* the project's wheelhouse */
	char *cache;    /* pip's cache */
	int no_index;   /* no index to fetch from */
	char **env;     /* the job's environment plus pip's */
	size_t nenv;
	const char **secrets; /* job's secrets plus credentials in PIP_* */
	struct lec_netrule egress; /* the administrator's index endpoints */
	int egress_ready;          /* egress holds them */
	/* The http(s) URLs pip fetches from (owned), whether an index was
	 * configured instead of pip's default, and whether they were tried. */
	char *sources[SOURCES_MAX];
	size_t nsources;
	int index_named;
	int probed;
	char hint[1024]; /* why there is no index, for a failed install */
	struct lec_runner_mount mounts[LEC__JOB_MAX_MOUNTS - 2];
	size_t nmounts;
	char *owned[LEC__JOB_MAX_MOUNTS]; /* paths the mounts borrow */
	size_t nowned;
};

/* Environment ------------------------------------------------------------- */

static int env_add(struct install *in, const char *name, const char *value)
{
	return lec__env_add(&in->env, &in->nenv, name, value);
}

/* The user:password of each URL in value becomes a secret to mask. */
static int add_url_secrets(struct install *in, const char *value,
			   size_t *nsecrets)
{
	const char *p = value;

	while ((p = strstr(p, "://")) != NULL) {
		const char *start = p + 3;
		size_t n = strcspn(start, "/@ \t");
		const char **grown;
		char *secret;

		p = start;
		if (start[n] != '@')
			continue;
		grown = lec__realloc(in->secrets,
				     (*nsecrets + 2) * sizeof(char *));
		LEC__CHECK_ALLOC(grown);
		in->secrets = grown;
		if ((secret = lec__strndup(start, n)) == NULL ||
		    in->nowned >= sizeof(in->owned) / sizeof(in->owned[0])) {
			lec__free(secret);
			return lec__error_oom();
		}
		in->owned[in->nowned++] = secret;
		in->secrets[(*nsecrets)++] = secret;
		in->secrets[*nsecrets] = NULL;
	}
	return LEC_OK;
}

static int mount_add(struct install *in, const char *path, int owned_copy)
{
	struct stat sb;
	char *copy;

	if (stat(path, &sb) != 0 ||
	    in->nmounts >= sizeof(in->mounts) / sizeof(in->mounts[0]) ||
	    in->nowned >= sizeof(in->owned) / sizeof(in->owned[0]))
		return LEC_OK; /* nothing to bind, or no room: pip says */
	if (owned_copy) {
		if ((copy = lec__strdup(path)) == NULL)
			return lec__error_oom();
		in->owned[in->nowned++] = copy;
		path = copy;
	}
	in->mounts[in->nmounts++] = (struct lec_runner_mount){ path, 0 };
	return LEC_OK;
}

/* Each local directory of a PIP_FIND_LINKS value, bound read-only. */
static int mount_find_links(struct install *in, const char *value)
{
	char *copy = lec__strdup(value), *word, *save = NULL;
	int error = LEC_OK;

	LEC__CHECK_ALLOC(copy);
	for (word = strtok_r(copy, " \t", &save); word && error == LEC_OK;
	     word = strtok_r(NULL, " \t", &save)) {
		if (strncmp(word, "file://", 7) == 0)
			word += 7;
		if (word[0] == '/')
			error = mount_add(in, word, 1);
	}
	lec__free(copy);
	return error;
}

/* Which of pip_sources the pip.conf key of n bytes is, which pip reads as
 * PIP_ and the key in upper case with '_' for '-'; -1 none. */
static int source_key(const char *key, size_t n)
{
	char name[32] = "PIP_";
	size_t i;

	if (n + 5 > sizeof(name))
		return -1;
	for (i = 0; i < n; i++)
		name[4 + i] = key[i] == '-' ? '_'
					    : (char)toupper((unsigned char)key[i]);
	name[4 + n] = '\0';
	for (i = 0; i < sizeof(pip_sources) / sizeof(pip_sources[0]); i++)
		if (strcmp(name, pip_sources[i]) == 0)
			return (int)i;
	return -1;
}

/* Allow the install step's egress proxy the endpoints of each http(s)
 * URL among the words of value (setting `which` of pip_sources), and
 * remember the URL: the server's administrator named them. A URL that
 * does not resolve is pip's to report. */
static void allow_sources(struct install *in, int which, const char *value)
{
	char *copy = lec__strdup(value), *word, *save = NULL;

	if (which == 0)
		in->index_named = 1;
	for (word = copy ? strtok_r(copy, " \t\r\n", &save) : NULL; word;
	     word = strtok_r(NULL, " \t\r\n", &save)) {
		if (lec_egress_allow_url(&in->egress, word) == LEC_EINVALID)
			continue; /* a path, or no URL */
		if (in->nsources < SOURCES_MAX &&
		    (in->sources[in->nsources] = lec__strdup(word)) != NULL)
			in->nsources++;
	}
	lec__free(copy);
}

/* The same for the pip_sources keys of a pip.conf (in any section, with
 * their indented continuation lines), read as the server's file. */
static void allow_config_sources(struct install *in, const char *path)
{
	char *text = lec__malloc(PIP_CONFIG_MAX + 1), *line, *save = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), source = -1;
	struct stat sb;
	ssize_t n = -1;

	if (text && fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		n = read(fd, text, PIP_CONFIG_MAX);
	if (fd >= 0)
		close(fd);
	if (n > 0)
		text[n] = '\0';
	for (line = n > 0 ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *sep = line + strcspn(line, "=:");
		size_t key = (size_t)(sep - line);

		if (line[0] == ' ' || line[0] == '\t') {
			if (source >= 0)
				allow_sources(in, source, line);
			continue;
		}
		while (key > 0 && (line[key - 1] == ' ' || line[key - 1] == '\t'))
			key--;
		source = *sep != '\0' ? source_key(line, key) : -1;
		if (source >= 0)
			allow_sources(in, source, sep + 1);
	}
	lec__free(text);
}

/* What the install step's egress proxy allows beyond public addresses:
 * the endpoints of the index URLs of the server's own environment and
 * pip.conf files, resolved once per install step. */
static void allow_admin_sources(struct install *in)
{
	const char *value;
	size_t i;

	in->egress_ready = 1;
	for (i = 0; i < sizeof(pip_sources) / sizeof(pip_sources[0]); i++)
		if ((value = getenv(pip_sources[i])) != NULL)
			allow_sources(in, (int)i, value);
	for (i = 0; i < sizeof(pip_configs) / sizeof(pip_configs[0]); i++)
		allow_config_sources(in, pip_configs[i]);
	if ((value = getenv("PIP_CONFIG_FILE")) != NULL)
		allow_config_sources(in, value);
}

/* The job's environment, pip's settings, and what pip reads. */
static int install_env(struct install *in)
{
	struct lec__job *job = in->job;
	size_t nsecrets = 0, i;
	const char *value;
	int error = LEC_OK;

	for (i = 0; job->cmd_env && job->cmd_env[i]; i++)
		if ((error = lec__env_take(&in->env, &in->nenv,
					   lec__strdup(job->cmd_env[i]))) < 0)
			return error;
	if ((error = env_add(in, "READTHEDOCS_VIRTUALENV_PATH", job->venv)) < 0)
		return error;
	while (job->secrets && job->secrets[nsecrets])
		nsecrets++;
	in->secrets = lec__calloc(nsecrets + 1, sizeof(char *));
	LEC__CHECK_ALLOC(in->secrets);
	memcpy(in->secrets, job->secrets, nsecrets * sizeof(char *));
	for (i = 0; error == LEC_OK &&
		    i < sizeof(pip_passthrough) / sizeof(pip_passthrough[0]);
	     i++) {
		if ((value = getenv(pip_passthrough[i])) == NULL)
			continue;
		error = env_add(in, pip_passthrough[i], value);
		if (error == LEC_OK)
			error = add_url_secrets(in, value, &nsecrets);
		if (error == LEC_OK && strcmp(pip_passthrough[i],
					      "PIP_FIND_LINKS") == 0)
			error = mount_find_links(in, value);
		if (error == LEC_OK && strcmp(pip_passthrough[i],
					      "PIP_CONFIG_FILE") == 0)
			error = mount_add(in, value, 0);
	}
	for (i = 0; error == LEC_OK &&
		    i < sizeof(pip_configs) / sizeof(pip_configs[0]);
	     i++)
		error = mount_add(in, pip_configs[i], 0);
	if (error == LEC_OK)
		error = env_add(in, "PIP_DISABLE_PIP_VERSION_CHECK", "1");
	if (error == LEC_OK)
		error = env_add(in, "PIP_NO_INPUT", "1");
	if (error == LEC_OK)
		error = env_add(in, "PIP_CACHE_DIR", in->cache);
	value = getenv("PIP_NO_INDEX");
	in->no_index = job->env->offline ||
		       (value && *value && strcmp(value, "0") != 0 &&
			strcasecmp(value, "false") != 0 &&
			strcasecmp(value, "no") != 0);
	return error;
}

static void install_dispose(struct install *in)
{
	size_t i;

	lec__env_free(in->env);
	for (i = 0; i < in->nowned; i++)
		lec__free(in->owned[i]);
	lec__free((void *)in->secrets);
	for (i = 0; i < in->nsources; i++)
		lec__free(in->sources[i]);
	lec__free(in->wheels);
	lec__free(in->cache);
}

/* Commands ------------------------------------------------------------------ */

/* Run a pip command of the install step, as lec__job_run_in does; soft:
 * a failure is recorded but does not fail the build (returns 1). */
static int pip_run(struct install *in, const char *display,
		   const char *const *argv, int network, int soft)
{
	struct lec__job_sandbox sb = { 0 };
	const char **saved = in->job->secrets;
	int rc;

	sb.mounts = in->mounts;
	sb.nmounts = in->nmounts;
	sb.env = (const char *const *)in->env;
	sb.network = network && !in->job->env->offline;
	if (sb.network && !in->egress_ready)
		allow_admin_sources(in);
	sb.egress_rule = &in->egress;
	sb.venv_writable = 1;
	sb.soft = soft;
	sb.hint = in->no_index && !network ? in->hint : NULL;
	in->job->secrets = in->secrets;
	rc = lec__job_run_in(in->job, display, argv, in->job->checkout, &sb);
	in->job->secrets = saved;
	return rc;
}

/* Why there is no index, for the log and a failed install. */
static void no_index_hint(struct install *in, const char *why)
{
	snprintf(in->hint, sizeof(in->hint),
		 "Only local wheels (the project's wheelhouse and lectern "
		 "serve's PIP_FIND_LINKS) and the system's Python packages were "
		 "available: %s. To give more, set PIP_FIND_LINKS to a directory "
		 "of wheels, or PIP_INDEX_URL to an index this machine reaches, "
		 "in lectern serve's environment",
		 why);
}

/* Before the first wheel step: whether any source pip would fetch from
 * answers. None does: the step goes without an index, at once, rather
 * than let pip retry each (the server may well be offline, with what it
 * needs in its wheelhouse). */
static void probe_sources(struct install *in)
{
	const char *url;
	char why[320], note[512];
	size_t i;

	in->probed = 1;
	if (in->no_index) {
		no_index_hint(in, in->job->env->offline
					  ? "lectern serve runs --offline"
					  : "PIP_NO_INDEX is set");
		return;
	}
	if (!in->egress_ready)
		allow_admin_sources(in);
	for (i = 0; i < in->nsources + !in->index_named; i++) {
		url = i < in->nsources ? in->sources[i] : DEFAULT_INDEX;
		if (lec_egress_probe(&in->egress, url, SOURCE_PROBE_MS) ==
		    LEC_OK)
			return;
	}
	/* The last one tried says why; its URL, not its credentials. */
	snprintf(why, sizeof(why), "the package index cannot be reached "
				   "from here (%s)",
		 lec_error_last());
	no_index_hint(in, why);
	in->no_index = 1;
	snprintf(note, sizeof(note), "The package index cannot be reached "
				     "from here (%s): installing from local "
				     "wheels and the system's packages only, "
				     "without network retries.\n",
		 lec_error_last());
	lec__job_note(in->job, "python.install", note);
}

/* pip wheel into the wheelhouse, then pip install from it alone. what is
 * "-r FILE" or a path with extras. */
static int install_entry(struct install *in, const char *flag,
			 const char *what)
{
	const char *py = in->job->venv_python;
	struct lec__buf b = LEC__BUF_INIT;
	const char *wheel[12], *inst[14];
	char *display = NULL;
	size_t n = 0, m = 0;
	int rc;

	if (!in->probed)
		probe_sources(in);
	wheel[n++] = py, wheel[n++] = "-m", wheel[n++] = "pip";
	wheel[n++] = "wheel", wheel[n++] = "--wheel-dir";
	wheel[n++] = in->wheels;
	if (in->no_index) {
		wheel[n++] = "--no-index";
		wheel[n++] = "--no-build-isolation";
	}
	if (flag)
		wheel[n++] = flag;
	wheel[n++] = what;
	wheel[n] = NULL;
	lec__buf_printf(&b, "python -m pip wheel --wheel-dir $WHEELHOUSE%s %s%s%s",
			in->no_index ? " --no-index --no-build-isolation" : "",
			flag ? flag : "", flag ? " " : "", what);
	if ((display = lec__buf_take(&b)) == NULL)
		return lec__job_fail(in->job, "out of memory");
	/* A wheel step that fails (index unreachable) leaves the install
	 * to what the wheelhouse already has: it says why if that fails. */
	rc = pip_run(in, display, wheel, 1, 1);
	lec__free(display);
	if (rc < 0)
		return rc;
	inst[m++] = py, inst[m++] = "-m", inst[m++] = "pip";
	inst[m++] = "install", inst[m++] = "--no-index";
	inst[m++] = "--no-build-isolation", inst[m++] = "--find-links";
	inst[m++] = in->wheels;
	if (flag)
		inst[m++] = flag;
	inst[m++] = what;
	inst[m] = NULL;
	lec__buf_printf(&b, "python -m pip install --no-index "
			    "--no-build-isolation --find-links $WHEELHOUSE "
			    "%s%s%s",
			flag ? flag : "", flag ? " " : "", what);
	if ((display = lec__buf_take(&b)) == NULL)
		return lec__job_fail(in->job, "out of memory");
	rc = pip_run(in, display, inst, 0, 0);
	lec__free(display);
	return rc;
}

/* "path[extra1,extra2]" for pip. */
static char *path_with_extras(const struct lec_rtd_install *e)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t i;

	lec__buf_puts(&b, e->path && *e->path ? e->path : ".");
	for (i = 0; i < e->extra_requirements.len; i++)
		lec__buf_printf(&b, "%c%s", i ? ',' : '[',
				e->extra_requirements.items[i]);
	if (e->extra_requirements.len)
		lec__buf_puts(&b, "]");
	return lec__buf_take(&b);
}

/* Install every entry, or (paths_only: a kept venv, whose requirements
 * are installed) only the project's own paths, which change with every
 * commit. */
static int install_all(struct install *in, int paths_only)
{
	const struct lec_rtd_config *c = in->job->config;
	int i, rc = LEC_OK;

	for (i = 0; rc == LEC_OK && i < c->python_install_count; i++) {
		const struct lec_rtd_install *e = &c->python_install[i];
		char *what;

		switch (e->kind) {
		case LEC_RTD_INSTALL_REQUIREMENTS:
			if (!paths_only)
				rc = install_entry(in, "-r", e->requirements);
			break;
		case LEC_RTD_INSTALL_PATH:
			if ((what = path_with_extras(e)) == NULL)
				return lec__job_fail(in->job, "out of memory");
			rc = install_entry(in, NULL, what);
			lec__free(what);
			break;
		case LEC_RTD_INSTALL_UV:
		default:
			lec__job_note(in->job, "python.install",
				      "python.install with uv is not supported "
				      "by Lectern; use method: pip. Skipped.\n");
			break;
		}
	}
	return rc;
}

/* The venv --------------------------------------------------------------------- */

/* A generic build (no Sphinx, no MkDocs) gets no environment by default,
 * as at the service: its own commands install what they need. */
static int generic(const struct lec__job *job)
{
	return job->config && job->config->doctype == LEC_DOCTYPE_GENERIC;
}

/* A hash of what the venv is made from: the entries and their files. */
static uint64_t venv_inputs(const struct lec__job *job)
{
	const struct lec_rtd_config *c = job->config;
	struct lec__buf b = LEC__BUF_INIT;
	char *file, *text = NULL;
	size_t len;
	uint64_t h;
	int i;

	lec__buf_printf(&b, "%s\n", job->env->python_about
					    ? job->env->python_about
					    : LEC__DEBIAN_PYTHON);
	/* A venv the project's build.jobs.install filled is not one
	 * python.install filled, and the other way round. */
	lec__buf_printf(&b, "install: %s\n",
			lec__job_overrides(job, LEC_RTD_JOB_INSTALL) ? "build.jobs"
							     : "python.install");
	for (i = 0; i < c->python_install_count; i++) {
		const struct lec_rtd_install *e = &c->python_install[i];
		size_t j;

		lec__buf_printf(&b, "%d %s %s %s", (int)e->kind,
				e->requirements ? e->requirements : "",
				e->path ? e->path : "", e->method ? e->method : "");
		for (j = 0; j < e->extra_requirements.len; j++)
			lec__buf_printf(&b, " %s", e->extra_requirements.items[j]);
		lec__buf_puts(&b, "\n");
		/* A file that cannot be read safely hashes as absent: pip,
		 * in the sandbox, says what is wrong with it. */
		if (e->requirements &&
		    lec__read_in(job->checkout, e->requirements,
				 REQUIREMENTS_MAX, &text, &len) == LEC_OK)
			lec__buf_putn(&b, text, len);
		lec__free(text);
		text = NULL;
	}
	file = lec__buf_take(&b);
	h = file ? lec__fnv1a(file, strlen(file)) : 0;
	lec__free(file);
	return h;
}

/* Whether the venv's stamp says it was made from these inputs. */
static int stamp_matches(const char *stamp, uint64_t inputs)
{
	char *dir = lec__strdup(stamp), *name, *text = NULL;
	size_t len = 0;
	int match = 0;

	if (dir && (name = strrchr(dir, '/')) != NULL) {
		*name++ = '\0';
		match = lec__read_in(dir, name, STAMP_MAX, &text, &len) ==
				LEC_OK &&
			len > 0 && strtoull(text, NULL, 16) == inputs;
	}
	lec__free(text);
	lec__free(dir);
	return match;
}

static void stamp_write(const char *stamp, uint64_t inputs)
{
	char text[32];
	int fd = open(stamp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				     O_CLOEXEC,
		      0600);

	snprintf(text, sizeof(text), "%016llx\n", (unsigned long long)inputs);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			unlink(stamp);
		close(fd);
	}
}

/* The paths of the project's Python directory. */
static int venv_paths(struct lec__job *job, struct install *in)
{
	struct lec__buf b = LEC__BUF_INIT;

	/* The install step asks again after create_environment did. */
	if (job->venv_root == NULL) {
		lec__buf_printf(&b, "%s/python/%s", job->env->data_dir,
				job->project->slug);
		job->venv_root = lec__buf_take(&b);
		job->venv = lec__job_venv_dir(job);
		lec__buf_printf(&b, "%s/bin/python", job->venv ? job->venv : "");
		job->venv_python = lec__buf_take(&b);
	}
	in->wheels = job->venv_root ? lec__path_join(job->venv_root, "wheels")
				    : NULL;
	in->cache = job->venv_root ? lec__path_join(job->venv_root, "cache")
				   : NULL;
	if (!job->venv_root || !job->venv || !job->venv_python ||
	    !in->wheels || !in->cache)
		return lec__error_oom();
	if (lec__mkdirs(in->wheels) < 0 || lec__mkdirs(in->cache) < 0)
		return lec_error_last_code();
	return lec__chown_tree(job->env, job->venv_root, 1, 1);
}

/* The venv's stamp file, beside the other projects' and never in a build's
 * reach. Owned by the caller; NULL when out of memory. */
static char *stamp_path(const struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s/python/.stamps/%s", job->env->data_dir,
			job->project->slug);
	if (b.oom || b.len == 0 || lec__mkdirs(b.ptr) < 0) {
		lec__buf_dispose(&b);
		return NULL;
	}
	lec__buf_printf(&b, "/%s", job->version->slug);
	return lec__buf_take(&b);
}

/* Remove the version's venv beneath the Python directory. venvs/ is the
 * builds' to spoil: when it is not a directory any more (a link out, a
 * file), all of it goes. */
static int venv_remove(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *venv_rel;
	int rc;

	lec__buf_printf(&b, "venvs/%s", job->version->slug);
	if ((venv_rel = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	rc = lec__remove_beneath(job->venv_root, venv_rel);
	if (rc == LEC_EINVALID)
		rc = lec__remove_beneath(job->venv_root, "venvs");
	lec__free(venv_rel);
	return rc;
}

/* Make the venv, or keep the one made from the same inputs (its packages
 * are then installed already: job->venv_kept). Its stamp is written once
 * the install step has passed (lec__job_python_install). */
static int venv_make(struct install *in, uint64_t inputs)
{
	struct lec__job *job = in->job;
	const char *argv[] = { LEC__DEBIAN_PYTHON, "-m", "venv",
			       "--system-site-packages", "--without-pip",
			       job->venv, NULL };

	if ((job->venv_stamp_file = stamp_path(job)) == NULL)
		return lec__job_fail(job, "Preparing the virtualenv failed: %s",
				     lec_error_last());
	snprintf(job->venv_stamp, sizeof(job->venv_stamp), "%016llx",
		 (unsigned long long)inputs);
	job->venv_inputs = inputs;
	if (job->build && job->build->fresh) {
		lec__job_cache_note(job, "python", 0,
				    "a fresh build was asked for");
	} else if (access(job->venv_python, X_OK) == 0 &&
		   stamp_matches(job->venv_stamp_file, inputs)) {
		lec__job_cache_note(job, "python", 1, NULL);
		lec__job_note(job, "python -m venv", "Reusing the virtualenv: "
						     "its requirements are "
						     "unchanged.\n");
		job->venv_kept = 1;
		return LEC_OK;
	}
	if (!(job->build && job->build->fresh))
		lec__job_cache_note(job, "python", 0,
				    access(job->venv_python, X_OK) == 0
					    ? "the requirements changed"
					    : "no environment was kept");
	unlink(job->venv_stamp_file);
	if (venv_remove(job) < 0)
		return lec__job_fail(job, "Removing the old virtualenv failed: "
					  "%s",
				     lec_error_last());
	return pip_run(in, "python -m venv --system-site-packages --without-pip "
			   "$READTHEDOCS_VIRTUALENV_PATH",
		       argv, 0, 0);
}

/* build.tools: Lectern builds with the machine's interpreters; say which,
 * and what the service would have installed. */
static void note_tools(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *text, tool[64];
	const char *pair, *eq, *full;
	size_t i;

	if (job->config == NULL || job->config->tools.len == 0)
		return;
	for (i = 0; i < job->config->tools.len; i++) {
		pair = job->config->tools.items[i];
		eq = strchr(pair, '=');
		snprintf(tool, sizeof(tool), "%.*s",
			 eq ? (int)(eq - pair) : 0, pair);
		full = eq ? lec_rtd_tool_full_version(tool, eq + 1) : NULL;
		lec__buf_printf(&b, "%s requested", pair);
		if (full)
			lec__buf_printf(&b, " (the hosted service installs %s)",
					full);
		lec__buf_puts(&b, "; ");
	}
	lec__buf_printf(&b, "Lectern builds with the machine's own tools: %s\n",
			job->env->python_about ? job->env->python_about
					      : LEC__DEBIAN_PYTHON);
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_note(job, "build.tools", text);
	lec__free(text);
}

/* The project makes its environment itself, at
 * $READTHEDOCS_VIRTUALENV_PATH, emptied first as on the service's fresh
 * machine; no stamp vouches for what it made. */
static int create_by_project(struct lec__job *job)
{
	char *stamp = stamp_path(job);

	if (stamp)
		unlink(stamp);
	lec__free(stamp);
	lec__job_cache_note(job, "python", 0, "build.jobs.create_environment "
					      "makes the environment");
	if (venv_remove(job) < 0)
		return lec__job_fail(job, "Removing the old virtualenv failed: "
					  "%s",
				     lec_error_last());
	if (lec__job_hook(job, LEC_RTD_JOB_CREATE_ENVIRONMENT) < 0)
		return LEC_ERROR;
	if (access(job->venv_python, X_OK) == 0)
		job->python = job->venv_python;
	return LEC_OK;
}

/* The venv's paths and pip's environment for either step; LEC_OK, or
 * LEC_ERROR when the job failed. */
static int install_begin(struct lec__job *job, struct install *in)
{
	memset(in, 0, sizeof(*in));
	in->job = job;
	if (venv_paths(job, in) == LEC_OK && install_env(in) == LEC_OK)
		return LEC_OK;
	install_dispose(in);
	return lec__job_fail(job, "Preparing the virtualenv failed: %s",
			     lec_error_last());
}

int lec__job_python_create(struct lec__job *job)
{
	struct install in;
	int rc = LEC_OK;

	note_tools(job);
	if (!lec__job_overrides(job, LEC_RTD_JOB_CREATE_ENVIRONMENT) &&
	    (generic(job) ||
	     ((job->config == NULL || job->config->python_install_count == 0) &&
	      !lec__job_overrides(job, LEC_RTD_JOB_INSTALL)))) {
		lec__job_note(job, "python --version",
			      job->env->python_about ? job->env->python_about
						    : "no Python with Sphinx "
						      "or MkDocs found");
		return LEC_OK;
	}
	if (install_begin(job, &in) < 0)
		return LEC_ERROR;
	if (lec__job_overrides(job, LEC_RTD_JOB_CREATE_ENVIRONMENT))
		rc = create_by_project(job);
	else if ((rc = venv_make(&in, venv_inputs(job))) == LEC_OK)
		job->python = job->venv_python;
	install_dispose(&in);
	return rc;
}

int lec__job_python_install(struct lec__job *job)
{
	struct install in;
	int rc;

	if (lec__job_overrides(job, LEC_RTD_JOB_INSTALL)) {
		rc = lec__job_hook(job, LEC_RTD_JOB_INSTALL);
		goto stamp;
	}
	if (generic(job) || job->config == NULL ||
	    job->config->python_install_count == 0)
		return LEC_OK;
	if (job->venv_python == NULL || access(job->venv_python, X_OK) != 0)
		return lec__job_fail(job, "python.install needs a Python "
					  "environment at "
					  "$READTHEDOCS_VIRTUALENV_PATH, and "
					  "build.jobs.create_environment made "
					  "none.");
	if (install_begin(job, &in) < 0)
		return LEC_ERROR;
	/* A kept venv has the requirements; the project itself changes with
	 * every commit. */
	rc = install_all(&in, job->venv_kept);
	install_dispose(&in);
stamp:
	if (rc == LEC_OK && job->venv_stamp_file && !job->venv_kept)
		stamp_write(job->venv_stamp_file, job->venv_inputs);
	return rc;
}
