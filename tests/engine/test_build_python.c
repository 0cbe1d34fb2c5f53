/*
 * The install step (build_python.c) through the step harness: the venv's
 * and pip's command lines for each python.install entry (the wheel step
 * with network, the install from the wheelhouse alone), what they run
 * with (environment, mounts, the venv writable), the venv kept while its
 * inputs stay the same and only the project's own paths installed again,
 * remade when a requirements file changes or a fresh build asks, offline
 * builds without an index, a failed wheel step that does not fail the
 * build and a failed install that does with pip's cause, the server's
 * index credentials masked, and no venv at all without python.install.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_steps.h"
#include "harness.h"
#include "steps.h"

static const char yaml_install[] =
	"version: 2\n"
	"build:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\n"
	"sphinx:\n  configuration: docs/conf.py\n"
	"python:\n  install:\n"
	"    - requirements: docs/requirements.txt\n"
	"    - method: pip\n      path: .\n"
	"      extra_requirements: [docs, test]\n";

/* The venv's python, made by `python -m venv` as the real one would. */
static int make_venv(struct lec_steps *s, const char *const *argv,
		     lec_runner_output_cb out, void *out_payload,
		     struct lec_runner_result *result)
{
	(void)out, (void)out_payload;
	if (argv[1] && argv[2] && strcmp(argv[2], "venv") == 0) {
		char *bin = lec__path_join(argv[5], "bin");
		char *py = lec__path_join(bin, "python");

		CHECK_OK(lec__mkdirs(bin));
		lec_test_put(bin, "python", "#!/bin/sh\n");
		CHECK(chmod(py, 0755) == 0);
		lec__free(bin);
		lec__free(py);
	}
	(void)s;
	result->end = LEC_RUNNER_EXITED;
	return 0;
}

/* What a second build of the same version starts with: the job's Python
 * fields and cache notes of the first forgotten. */
static void next_build(struct lec_steps *s)
{
	struct lec__job *job = &s->job;

	lec__free(job->venv_root);
	lec__free(job->venv);
	lec__free(job->venv_python);
	lec__free(job->venv_stamp_file);
	job->venv_root = job->venv = job->venv_python = NULL;
	job->venv_stamp_file = NULL;
	job->python = NULL;
	job->venv_kept = 0;
	job->ncache = 0;
	lec_steps_clear(s);
}

static char *data(const struct lec_steps *s, const char *rel)
{
	return lec__path_join(s->data_dir, rel);
}

static const struct lec__cache_note *note(const struct lec_steps *s,
					  const char *name)
{
	size_t i;

	for (i = 0; i < s->job.ncache; i++)
		if (strcmp(s->job.cache[i].name, name) == 0)
			return &s->job.cache[i];
	FAIL_AT("no cache note %s", name);
	return NULL;
}

/* An index that answers: a socket listening on loopback, named by
 * PIP_INDEX_URL, so the install step's probe finds it reachable (the
 * machine running the tests may have no network) and the wheel steps go
 * to it. The fake runner never asks it anything. */
static int index_answers(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char url[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	      listen(fd, 8) == 0 &&
	      getsockname(fd, (struct sockaddr *)&sa, &len) == 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/simple",
		 ntohs(sa.sin_port));
	setenv("PIP_INDEX_URL", url, 1);
	unsetenv("PIP_NO_INDEX");
	return fd;
}

static void index_gone(int fd)
{
	unsetenv("PIP_INDEX_URL");
	if (fd >= 0)
		close(fd);
}

/* The mount of path among c's, or NULL. */
static const struct lec_runner_mount *mount_of(const struct lec_steps_cmd *c,
					       const char *path)
{
	size_t i;

	for (i = 0; i < c->nmounts; i++)
		if (strcmp(c->mounts[i].path, path) == 0)
			return &c->mounts[i];
	return NULL;
}

static void install(struct lec_steps *s)
{
	CHECK_OK(lec__job_python_create(&s->job));
	CHECK_OK(lec__job_python_install(&s->job));
	if (s->job.error)
		FAIL_AT("the build failed: %s", s->job.error);
}

TEST(venv_and_pip_command_lines)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;
	char *venv, *wheels, *cache, *expect, *stamp, *displays;
	size_t at = 0;

	int idx = index_answers();

	lec_steps_init(&s, "guide", yaml_install);
	lec_steps_put(&s, "docs/requirements.txt", "sphinx-rtd-theme\n");
	s.answer = make_venv;
	install(&s);
	venv = data(&s, "python/guide/venvs/latest");
	wheels = data(&s, "python/guide/wheels");
	cache = data(&s, "python/guide/cache");
	displays = lec_steps_displays(&s);
	CHECK_STR(displays,
		  "build.tools\n"
		  "python -m venv --system-site-packages --without-pip "
		  "$READTHEDOCS_VIRTUALENV_PATH\n"
		  "python -m pip wheel --wheel-dir $WHEELHOUSE -r "
		  "docs/requirements.txt\n"
		  "python -m pip install --no-index --no-build-isolation "
		  "--find-links $WHEELHOUSE -r docs/requirements.txt\n"
		  "python -m pip wheel --wheel-dir $WHEELHOUSE .[docs,test]\n"
		  "python -m pip install --no-index --no-build-isolation "
		  "--find-links $WHEELHOUSE .[docs,test]\n");
	free(displays);
	/* The venv: Debian's interpreter, no network, the venv's own
	 * directory writable. */
	c = lec_steps_find(&s, "-m venv", &at);
	CHECK(c != NULL);
	if (c) {
		expect = NULL;
		CHECK(asprintf(&expect, "/usr/bin/python3 -m venv "
					"--system-site-packages --without-pip %s",
			       venv) > 0);
		CHECK_STR(c->argv, expect);
		free(expect);
		CHECK_STR(c->cwd, s.job.checkout);
		CHECK_INT(c->network, LEC_RUNNER_NET_NONE);
		CHECK(c->nmounts >= 1 &&
		      strcmp(c->mounts[0].path, s.job.build_dir) == 0);
		CHECK(mount_of(c, s.job.venv_root) != NULL &&
		      mount_of(c, s.job.venv_root)->writable);
		CHECK_STR(lec_steps_env(c, "READTHEDOCS_VIRTUALENV_PATH"), venv);
		CHECK_STR(lec_steps_env(c, "PIP_CACHE_DIR"), cache);
		CHECK_STR(lec_steps_env(c, "PIP_NO_INPUT"), "1");
	}
	/* pip wheel fetches, with network; pip install reads the
	 * wheelhouse alone. Both with the venv's python. */
	c = lec_steps_find(&s, "pip wheel", &at);
	CHECK(c != NULL);
	if (c) {
		CHECK(asprintf(&expect, "%s/bin/python -m pip wheel --wheel-dir "
					"%s -r docs/requirements.txt",
			       venv, wheels) > 0);
		CHECK_STR(c->argv, expect);
		free(expect);
		CHECK_INT(c->network, LEC_RUNNER_NET_EGRESS);
	}
	c = lec_steps_find(&s, "pip install", &at);
	CHECK(c != NULL);
	if (c) {
		CHECK(asprintf(&expect, "%s/bin/python -m pip install "
					"--no-index --no-build-isolation "
					"--find-links %s -r docs/requirements.txt",
			       venv, wheels) > 0);
		CHECK_STR(c->argv, expect);
		free(expect);
		CHECK_INT(c->network, LEC_RUNNER_NET_NONE);
	}
	/* The generators run with the venv's python; the stamp says what
	 * it was made from, where no build can reach. */
	CHECK(asprintf(&expect, "%s/bin/python", venv) > 0);
	CHECK_STR(lec__job_python(&s.job), expect);
	free(expect);
	stamp = data(&s, "python/.stamps/guide/latest");
	CHECK(access(stamp, R_OK) == 0);
	CHECK_INT(note(&s, "python") ? note(&s, "python")->reused : -1, 0);
	CHECK_STR(note(&s, "python") ? note(&s, "python")->reason : "",
		  "no environment was kept");
	lec__free(venv);
	lec__free(wheels);
	lec__free(cache);
	lec__free(stamp);
	index_gone(idx);
	lec_steps_dispose(&s);
}

TEST(kept_venv_reinstalls_only_the_project)
{
	struct lec_steps s;
	char *displays;

	int idx = index_answers();

	lec_steps_init(&s, "guide", yaml_install);
	lec_steps_put(&s, "docs/requirements.txt", "sphinx-rtd-theme\n");
	s.answer = make_venv;
	install(&s);
	next_build(&s);
	install(&s);
	displays = lec_steps_displays(&s);
	CHECK_STR(displays,
		  "build.tools\n"
		  "python -m venv\n"
		  "python -m pip wheel --wheel-dir $WHEELHOUSE .[docs,test]\n"
		  "python -m pip install --no-index --no-build-isolation "
		  "--find-links $WHEELHOUSE .[docs,test]\n");
	free(displays);
	CHECK(lec_steps_find(&s, "Reusing the virtualenv", NULL) == NULL);
	CHECK(strstr(s.cmds[1].output, "Reusing the virtualenv") != NULL);
	CHECK_INT(note(&s, "python") ? note(&s, "python")->reused : -1, 1);
	/* A requirements file changed: made again, and said why. */
	next_build(&s);
	lec_steps_put(&s, "docs/requirements.txt", "sphinx-rtd-theme\nmyst\n");
	install(&s);
	CHECK(lec_steps_find(&s, "-m venv --system", NULL) != NULL);
	CHECK(lec_steps_find(&s, "-r docs/requirements.txt", NULL) != NULL);
	CHECK_STR(note(&s, "python") ? note(&s, "python")->reason : "",
		  "the requirements changed");
	/* A fresh build makes it again whatever the stamp says. */
	next_build(&s);
	s.job.build->fresh = 1;
	install(&s);
	CHECK(lec_steps_find(&s, "-m venv --system", NULL) != NULL);
	CHECK_STR(note(&s, "python") ? note(&s, "python")->reason : "",
		  "a fresh build was asked for");
	index_gone(idx);
	lec_steps_dispose(&s);
}

TEST(offline_without_an_index)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;

	lec_steps_init(&s, "guide", yaml_install);
	lec_steps_put(&s, "docs/requirements.txt", "sphinx-rtd-theme\n");
	s.env.offline = 1;
	s.answer = make_venv;
	install(&s);
	c = lec_steps_find(&s, "pip wheel", NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK(strstr(c->argv, " --no-index --no-build-isolation -r "
				      "docs/requirements.txt") != NULL);
		CHECK_INT(c->network, LEC_RUNNER_NET_NONE);
		CHECK_STR(c->display, "python -m pip wheel --wheel-dir "
				      "$WHEELHOUSE --no-index "
				      "--no-build-isolation -r "
				      "docs/requirements.txt");
	}
	lec_steps_dispose(&s);
}

/* The wheel steps fail (no index), the installs print pip's error. */
static int pip_fails(struct lec_steps *s, const char *const *argv,
		     lec_runner_output_cb out, void *out_payload,
		     struct lec_runner_result *result)
{
	static const char wheel[] =
		"WARNING: Retrying after connection broken\n"
		"ERROR: Could not find a version that satisfies the "
		"requirement nope\n";
	static const char inst[] =
		"Looking in links: /wheels\n"
		"ERROR: No matching distribution found for nope\n";
	int is_wheel = argv[3] && strcmp(argv[3], "wheel") == 0;

	if (argv[3] == NULL || (!is_wheel && strcmp(argv[3], "install") != 0))
		return make_venv(s, argv, out, out_payload, result);
	out(is_wheel ? wheel : inst, strlen(is_wheel ? wheel : inst),
	    out_payload);
	result->end = LEC_RUNNER_EXITED;
	result->exit_code = 1;
	return 0;
}

TEST(a_failed_wheel_is_soft_a_failed_install_fails)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;

	int idx = index_answers();

	lec_steps_init(&s, "guide", yaml_install);
	lec_steps_put(&s, "docs/requirements.txt", "nope\n");
	s.answer = pip_fails;
	CHECK_OK(lec__job_python_create(&s.job));
	CHECK_ERR(lec__job_python_install(&s.job), LEC_ERROR);
	/* The wheel step is recorded as failed, and the install still ran
	 * (from what the wheelhouse has), whose failure is the build's. */
	c = lec_steps_find(&s, "pip wheel", NULL);
	CHECK(c && c->exit_code == 1);
	c = lec_steps_find(&s, "pip install", NULL);
	CHECK(c && c->exit_code == 1);
	CHECK_STR(s.job.error,
		  "ERROR: No matching distribution found for nope (command "
		  "\"python -m pip install --no-index --no-build-isolation "
		  "--find-links $WHEELHOUSE -r docs/requirements.txt\" failed "
		  "with exit code 1)");
	/* Nothing installed: no stamp vouches for the venv. */
	{
		char *stamp = data(&s, "python/.stamps/guide/latest");

		CHECK(access(stamp, F_OK) != 0);
		lec__free(stamp);
	}
	index_gone(idx);
	lec_steps_dispose(&s);
}

/* pip prints the index URL it was given, credentials and all. */
static int pip_says_index(struct lec_steps *s, const char *const *argv,
			  lec_runner_output_cb out, void *out_payload,
			  struct lec_runner_result *result)
{
	static const char said[] =
		"Looking in indexes: https://alice:hunter2hunter2@pypi.test/simple\n";

	if (argv[3] && strcmp(argv[3], "wheel") == 0)
		out(said, strlen(said), out_payload);
	return make_venv(s, argv, out, out_payload, result);
}

TEST(server_index_passed_on_and_masked)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;

	setenv("PIP_INDEX_URL", "https://alice:hunter2hunter2@pypi.test/simple", 1);
	lec_steps_init(&s, "guide", yaml_install);
	lec_steps_put(&s, "docs/requirements.txt", "sphinx-rtd-theme\n");
	s.answer = pip_says_index;
	install(&s);
	unsetenv("PIP_INDEX_URL");
	c = lec_steps_find(&s, "pip wheel", NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(lec_steps_env(c, "PIP_INDEX_URL"),
			  "https://alice:hunter2hunter2@pypi.test/simple");
		CHECK(strstr(c->output, "pypi.test/simple") != NULL);
		CHECK(strstr(c->output, "hunter2") == NULL);
	}
	lec_steps_dispose(&s);
}

TEST(no_python_install_no_venv)
{
	struct lec_steps s;
	char *displays;

	lec_steps_init(&s, "plain", "version: 2\nbuild:\n  os: ubuntu-22.04\n"
				    "  tools:\n    python: \"3.12\"\n"
				    "sphinx:\n  configuration: conf.py\n");
	CHECK_OK(lec__job_python_create(&s.job));
	CHECK_OK(lec__job_python_install(&s.job));
	displays = lec_steps_displays(&s);
	CHECK_STR(displays, "build.tools\npython --version\n");
	free(displays);
	CHECK(s.ncmds == 2 && s.cmds[1].argv == NULL);
	CHECK_STR(lec__job_python(&s.job), "/usr/bin/python3");
	CHECK(s.job.venv == NULL);
	lec_steps_dispose(&s);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(venv_and_pip_command_lines),
	TEST_ENTRY(kept_venv_reinstalls_only_the_project),
	TEST_ENTRY(offline_without_an_index),
	TEST_ENTRY(a_failed_wheel_is_soft_a_failed_install_fails),
	TEST_ENTRY(server_index_passed_on_and_masked),
	TEST_ENTRY(no_python_install_no_venv),
};

LEC_TEST_MAIN(tests)
