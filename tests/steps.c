/*
 * The step harness (steps.h): a job set up the way build_job.c's
 * job_prepare sets one up, on a temporary data directory, whose sink
 * records what the steps start and runs nothing: the test's answer says
 * what each command printed and how it ended.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "lectern/build.h"
#include "lectern/project.h"
#include "lectern/version.h"
#include "steps.h"

static char *xstrdup(const char *s)
{
	char *copy = s ? strdup(s) : NULL;

	if (s && copy == NULL) {
		perror("strdup");
		exit(2);
	}
	return copy;
}

static char *xasprintf(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *s = malloc(n);

	if (s == NULL) {
		perror("malloc");
		exit(2);
	}
	snprintf(s, n, "%s%s%s", a, b, c);
	return s;
}

/* The engine frees what the job holds with lec__free. */
static char *engine_strdup(const char *s)
{
	char *copy = lec__strdup(s);

	if (copy == NULL) {
		perror("lec__strdup");
		exit(2);
	}
	return copy;
}

static struct lec_steps_cmd *cmd_new(struct lec_steps *s)
{
	struct lec_steps_cmd *c;

	if (s->ncmds == LEC_STEPS_MAX_CMDS) {
		FAIL_AT("more than %d commands", LEC_STEPS_MAX_CMDS);
		s->ncmds--;
	}
	c = &s->cmds[s->ncmds++];
	memset(c, 0, sizeof(*c));
	c->output = xstrdup("");
	c->exit_code = -1;
	return c;
}

/* The command being recorded: the last one started and not finished. */
static struct lec_steps_cmd *cmd_open(struct lec_steps *s)
{
	if (s->ncmds && s->cmds[s->ncmds - 1].exit_code == -1)
		return &s->cmds[s->ncmds - 1];
	return NULL;
}

static void sink_start(void *payload, const char *display)
{
	cmd_new(payload)->display = xstrdup(display);
}

static void sink_text(void *payload, const char *data, size_t len)
{
	struct lec_steps_cmd *c = cmd_open(payload);
	size_t had;

	if (c == NULL) {
		FAIL_AT("output outside a command: %.*s", (int)len, data);
		return;
	}
	had = strlen(c->output);
	c->output = realloc(c->output, had + len + 1);
	if (c->output == NULL) {
		perror("realloc");
		exit(2);
	}
	memcpy(c->output + had, data, len);
	c->output[had + len] = '\0';
}

static void sink_finish(void *payload, int exit_code)
{
	struct lec_steps_cmd *c = cmd_open(payload);

	if (c == NULL)
		FAIL_AT("a command finished twice");
	else
		c->exit_code = exit_code;
}

static int default_answer(struct lec_steps *s, const char *const *argv,
			  lec_runner_output_cb out, void *out_payload,
			  struct lec_runner_result *result)
{
	(void)s, (void)argv, (void)out, (void)out_payload;
	result->end = LEC_RUNNER_EXITED;
	result->exit_code = 0;
	return 0;
}

static char *join(const char *const *argv)
{
	size_t n = 1, i;
	char *s;

	for (i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	s = calloc(1, n);
	for (i = 0; s && argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int sink_run(void *payload, const struct lec_runner_spec *spec,
		    lec_runner_output_cb out, void *out_payload,
		    struct lec_runner_result *result)
{
	struct lec_steps *s = payload;
	struct lec_steps_cmd *c = cmd_open(s);
	size_t i, n = 0;

	/* A command run without a record of its own (the helper's
	 * submodule listing), or a second run under one record. */
	if (c == NULL || c->argv)
		c = cmd_new(s);
	c->argv = join(spec->argv);
	c->cwd = xstrdup(spec->cwd);
	for (n = 0; spec->env && spec->env[n]; n++)
		;
	c->env = calloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		c->env[i] = xstrdup(spec->env[i]);
	for (i = 0; i < spec->nmounts && i < LEC_STEPS_MAX_MOUNTS; i++)
		c->mounts[c->nmounts++] = (struct lec_runner_mount){
			xstrdup(spec->mounts[i].path), spec->mounts[i].writable
		};
	c->network = spec->network;
	memset(result, 0, sizeof(*result));
	return (s->answer ? s->answer : default_answer)(s, spec->argv, out,
							out_payload, result);
}

static int sink_cancelled(void *payload)
{
	(void)payload;
	return 0;
}

static void mkdirs(const char *path)
{
	if (lec__mkdirs(path) != LEC_OK)
		FAIL_AT("mkdirs %s: %s", path, lec_error_last());
}

void lec_steps_put(struct lec_steps *s, const char *rel, const char *text)
{
	char *path = xasprintf(s->job.checkout, "/", rel), *slash;

	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	lec_test_put(s->job.checkout, rel, text);
	free(path);
}

static void make_env(struct lec_steps *s)
{
	struct lec__build_env *env = &s->env;

	memset(env, 0, sizeof(*env));
	pthread_mutex_init(&env->lock, NULL);
	pthread_cond_init(&env->wake, NULL);
	env->data_dir = engine_strdup(s->data_dir);
	env->docs_domain = engine_strdup("docs.test");
	env->production_domain = engine_strdup("127.0.0.1:8000");
	env->helper = engine_strdup("/usr/bin/lectern");
	env->lectern_stamp = engine_strdup("lectern-test");
	env->python = engine_strdup("/usr/bin/python3");
	env->python_about =
		engine_strdup("/usr/bin/python3 (Sphinx 5.3.0, MkDocs 1.4.2)");
	env->has_sphinx = env->has_mkdocs = 1;
	snprintf(env->sphinx_version, sizeof(env->sphinx_version), "5.3.0");
	snprintf(env->mkdocs_version, sizeof(env->mkdocs_version), "1.4.2");
	env->limits.time_limit_s = 900;
}

static void make_records(struct lec_steps *s, const char *slug)
{
	struct lec__job *job = &s->job;
	int64_t id = lec_test_project(s->st, slug);

	CHECK_OK(lec_project_get_by_id(s->st, id, &job->project));
	CHECK_OK(lec_version_create(s->st, id, "latest", "main",
				    LEC_VERSION_BRANCH, 1, &job->version));
	if (job->version)
		CHECK_OK(lec_build_trigger(s->st, id, job->version->id, NULL,
					   &job->build, NULL));
	if (job->project == NULL || job->version == NULL || job->build == NULL)
		exit(2);
}

static char *data_path(const struct lec_steps *s, const char *rel,
		       const char *slug, const char *suffix)
{
	char *a = xasprintf(s->data_dir, "/", rel);
	char *b = xasprintf(a, slug, suffix), *copy = engine_strdup(b);

	free(a);
	free(b);
	return copy;
}

void lec_steps_init(struct lec_steps *s, const char *slug, const char *yaml)
{
	struct lec__job *job = &s->job;

	memset(s, 0, sizeof(*s));
	s->data_dir = xstrdup(lec_test_tmpdir());
	if (lec_store_open_dir(&s->st, s->data_dir, NULL) != LEC_OK) {
		fprintf(stderr, "cannot open a test store: %s\n",
			lec_error_last());
		exit(2);
	}
	make_env(s);
	s->sink = (struct lec__job_sink){ sink_start, sink_text, sink_finish,
					  sink_cancelled, s, sink_run };
	job->env = &s->env;
	job->st = s->st;
	job->sink = &s->sink;
	make_records(s, slug);
	job->build_dir = data_path(s, "builds/", "1", "");
	job->repo_cache = data_path(s, "repos/", slug, ".git");
	job->checkout = data_path(s, "checkouts/", slug, "/latest");
	job->tree_manifest = data_path(s, "checkouts/", slug, "/latest.manifest");
	job->output = data_path(s, "checkouts/", slug, "/latest/_readthedocs");
	mkdirs(job->build_dir);
	mkdirs(job->checkout);
	CHECK_OK(lec__job_make_env(job));
	if (yaml) {
		lec_steps_put(s, ".readthedocs.yaml", yaml);
		if (lec__job_read_config(job, NULL) != 0)
			FAIL_AT("reading the configuration: %s", job->error);
		lec_steps_clear(s);
	}
}

void lec_steps_clear(struct lec_steps *s)
{
	size_t i, j;

	for (i = 0; i < s->ncmds; i++) {
		struct lec_steps_cmd *c = &s->cmds[i];

		free(c->display);
		free(c->argv);
		free(c->cwd);
		free(c->output);
		for (j = 0; c->env && c->env[j]; j++)
			free(c->env[j]);
		free(c->env);
		for (j = 0; j < c->nmounts; j++)
			free((char *)c->mounts[j].path);
	}
	s->ncmds = 0;
}

void lec_steps_dispose(struct lec_steps *s)
{
	struct lec__job *job = &s->job;

	lec_steps_clear(s);
	/* The harness made the build: the job's own fields are the
	 * engine's to free. */
	lec_build_free(job->build);
	lec__job_dispose(job);
	lec_store_free(s->st);
	lec__build_env_dispose(&s->env);
	free(s->data_dir);
	memset(s, 0, sizeof(*s));
}

const struct lec_steps_cmd *lec_steps_find(const struct lec_steps *s,
					   const char *needle, size_t *from)
{
	size_t i = from ? *from : 0;

	for (; i < s->ncmds; i++) {
		const char *text = s->cmds[i].argv ? s->cmds[i].argv
						   : s->cmds[i].display;

		if (text && strstr(text, needle)) {
			if (from)
				*from = i + 1;
			return &s->cmds[i];
		}
	}
	return NULL;
}

const char *lec_steps_env(const struct lec_steps_cmd *cmd, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; cmd->env && cmd->env[i]; i++)
		if (strncmp(cmd->env[i], name, n) == 0 && cmd->env[i][n] == '=')
			return cmd->env[i] + n + 1;
	return NULL;
}

char *lec_steps_displays(const struct lec_steps *s)
{
	size_t i, n = 1;
	char *text;

	for (i = 0; i < s->ncmds; i++)
		n += (s->cmds[i].display ? strlen(s->cmds[i].display) : 1) + 1;
	text = calloc(1, n);
	for (i = 0; text && i < s->ncmds; i++) {
		strcat(text, s->cmds[i].display ? s->cmds[i].display : "-");
		strcat(text, "\n");
	}
	return text;
}
