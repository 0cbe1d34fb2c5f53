/*
 * One build, start to finish: the checkout (cloning), the environment
 * (installing), the generator (building, in build_steps.c) and publishing
 * (uploading), each step recorded as commands with live output, in the
 * order and with the command lines of the hosted service (behaviour notes
 * §5.2–5.3). Every external command runs in the bubblewrap sandbox.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lectern/repo.h"
#include "lectern/resolve.h"
#include "lectern/search.h"
#include "lectern/vsync.h"
#include "pipeline_internal.h"
#include "store_internal.h"

/* The service's message when a build has no index page. */
#define NO_INDEX_ERROR                                                       \
	"Your documentation did not generate an 'index.html' at its root "  \
	"directory. This is required for documentation serving at the "     \
	"root URL for this version."

/* How often clone progress is written to the build's log. */
#define PROGRESS_INTERVAL_US 250000

/* Most bytes of a config file shown in the log's `cat` step. */
#define CAT_MAX (64 * 1024)

int lec__job_fail(struct lec__job *job, const char *fmt, ...)
{
	struct lec__buf b = LEC__BUF_INIT;
	va_list ap;
	char msg[2048];

	if (job->error)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lec__buf_puts(&b, msg);
	job->error = lec__buf_take(&b);
	return -1;
}

/* Cancellation ------------------------------------------------------------ */

/* The build was cancelled (through the API or a newer trigger), or Lectern
 * is stopping. Polled while commands run. */
static int job_cancelled(struct lec__job *job)
{
	struct lec_build *now = NULL;

	if (job->cancelled)
		return 1;
	if (job->sink)
		return job->cancelled = job->sink->cancelled &&
					job->sink->cancelled(job->sink->payload);
	if (lec__pipeline_stopping(job->pl)) {
		lec__job_fail(job, "Lectern stopped while this build was "
				   "running; trigger it again.");
		return job->cancelled = 1;
	}
	if (lec_build_get(job->st, job->build->id, &now) == LEC_OK &&
	    now->state == LEC_BUILD_STATE_CANCELLED)
		job->cancelled = 1;
	lec_build_free(now);
	return job->cancelled;
}

/* Recording ----------------------------------------------------------------- */

int lec__job_record_start(struct lec__job *job, const char *display,
			  int64_t *id)
{
	int rc;

	if (job->sink) {
		job->sink->start(job->sink->payload, display);
		*id = 0;
		return 0;
	}
	rc = lec_build_command_start(job->st, job->build->id, display, "", id);

	/* A finished or cancelled build takes no more commands. */
	if (rc == LEC_EINVALID)
		job->cancelled = 1;
	return rc < 0 ? -1 : 0;
}

/* Output masked already: into the command record, or to a preview's sink. */
static void emit(struct lec__job_output *o, const char *data, size_t len)
{
	if (o->job->sink)
		o->job->sink->text(o->job->sink->payload, data, len);
	else
		lec_build_command_append(o->job->st, o->id, data, len);
}

/* Output goes through the masker, so secret values never reach the log
 * even when split across chunks. */
static void append_masked(struct lec__job_output *o,
			  struct lec_runner_masker *m, const char *data,
			  size_t len)
{
	const char *out = NULL;
	size_t n = 0;

	if (lec_runner_masker_feed(m, data, len, &out, &n) == LEC_OK && n)
		emit(o, out, n);
}

static void flush_masked(struct lec__job_output *o,
			 struct lec_runner_masker *m)
{
	const char *out = NULL;
	size_t n = 0;

	lec_runner_masker_flush(m, &out, &n);
	if (n)
		emit(o, out, n);
}

void lec__job_record_text(struct lec__job *job, int64_t id, const char *text)
{
	struct lec__job_output o = { job, id };
	struct lec_runner_masker m;

	lec_runner_masker_init(&m, job->secrets);
	append_masked(&o, &m, text, strlen(text));
	flush_masked(&o, &m);
	lec_runner_masker_dispose(&m);
}

void lec__job_record_finish(struct lec__job *job, int64_t id, int exit_code)
{
	if (job->sink)
		job->sink->finish(job->sink->payload, exit_code);
	else
		lec_build_command_finish(job->st, id, exit_code);
}

void lec__job_note(struct lec__job *job, const char *display,
		   const char *text)
{
	int64_t id;

	if (lec__job_record_start(job, display, &id) < 0)
		return;
	lec__job_record_text(job, id, text);
	lec__job_record_finish(job, id, 0);
}

/* Running ------------------------------------------------------------------- */

struct run_state {
	struct lec__job_output out;
	struct lec_runner_masker masker;
};

static int run_output(const char *data, size_t len, void *payload)
{
	struct run_state *rs = payload;

	append_masked(&rs->out, &rs->masker, data, len);
	return 0;
}

static int run_cancel(void *payload)
{
	struct run_state *rs = payload;

	return job_cancelled(rs->out.job);
}

static int run_failed(struct lec__job *job, const char *display,
		      const struct lec_runner_result *r)
{
	switch (r->end) {
	case LEC_RUNNER_EXITED:
	case LEC_RUNNER_SIGNALED:
		return lec__job_fail(job, "Command \"%s\" failed with exit code "
					  "%d.",
				     display, r->exit_code);
	case LEC_RUNNER_TIMED_OUT:
		return lec__job_fail(job, "The build exceeded its time limit "
					  "of %u seconds.",
				     job->pl->config.limits.time_limit_s);
	case LEC_RUNNER_OUTPUT_LIMIT:
		return lec__job_fail(job, "Command \"%s\" wrote more output "
					  "than the limit of %zu bytes.",
				     display, job->pl->config.limits.output_bytes);
	case LEC_RUNNER_CANCELLED:
		job->cancelled = 1;
		return -1;
	case LEC_RUNNER_START_FAILED:
	default:
		return lec__job_fail(job, "Command \"%s\" could not start: %s",
				     display, lec_error_last());
	}
}

int lec__job_run(struct lec__job *job, const char *display,
		 const char *const *argv, const char *cwd, int network)
{
	const char *hidden[3] = { NULL, NULL, NULL };
	struct lec_runner_spec spec = { 0 };
	struct lec_runner_result r = { 0 };
	struct run_state rs;
	size_t nhidden = 0;
	int64_t id;
	int rc;

	if (job->cancelled || lec__job_record_start(job, display, &id) < 0)
		return -1;
	/* A preview has no data directory of its own to hide. */
	if (job->pl->data_dir)
		hidden[nhidden++] = job->pl->data_dir;
	if (getenv("HOME") && strcmp(getenv("HOME"), "/") != 0)
		hidden[nhidden++] = getenv("HOME");
	spec.argv = argv;
	spec.env = (const char *const *)job->env;
	spec.cwd = cwd;
	spec.writable_dir = job->build_dir;
	spec.readonly_dir = job->readonly_dir;
	spec.hidden_dirs = hidden;
	spec.network = network;
	spec.limits = &job->pl->config.limits;
	rs.out.job = job;
	rs.out.id = id;
	lec_runner_masker_init(&rs.masker, job->secrets);
	rc = lec_runner_run(&spec, run_output, run_cancel, &rs, &r);
	flush_masked(&rs.out, &rs.masker);
	lec_runner_masker_dispose(&rs.masker);
	if (rc < 0)
		r.end = LEC_RUNNER_START_FAILED;
	lec__job_record_finish(job, id,
			       r.end == LEC_RUNNER_EXITED ? r.exit_code
							  : r.exit_code ? r.exit_code
									: 1);
	if (r.end == LEC_RUNNER_EXITED && r.exit_code == 0)
		return 0;
	return run_failed(job, display, &r);
}

int lec__job_hook(struct lec__job *job, enum lec_rtd_job hook)
{
	const struct lec_rtd_strings *cmds;
	size_t i;

	if (job->config == NULL)
		return 0;
	cmds = &job->config->jobs[hook];
	for (i = 0; i < cmds->len; i++) {
		const char *argv[] = { "/bin/sh", "-c", cmds->items[i], NULL };

		if (lec__job_run(job, cmds->items[i], argv, job->checkout, 0) <
		    0)
			return -1;
	}
	return 0;
}

/* Environment (notes §5.6) ---------------------------------------------------- */

static int env_add(char ***env, size_t *n, const char *name,
		   const char *value)
{
	struct lec__buf b = LEC__BUF_INIT;
	char **grown = lec__realloc(*env, (*n + 2) * sizeof(char *));

	LEC__CHECK_ALLOC(grown);
	*env = grown;
	lec__buf_printf(&b, "%s=%s", name, value ? value : "");
	grown[*n] = lec__buf_take(&b);
	LEC__CHECK_ALLOC(grown[*n]);
	grown[++*n] = NULL;
	return LEC_OK;
}

static int build_env(struct lec__job *job)
{
	struct lec_project *p = job->project;
	struct lec_version *v = job->version;
	char *canonical = lec_resolve_docs_url(p, v->slug, job->pl->docs_domain);
	char *repo = lec_repo_redact_url(p->repo_url);
	char *output = lec__path_join(job->checkout, "_readthedocs/");
	size_t n = 0, i, nsecrets = 0;
	int error = LEC_OK;
	struct {
		const char *name;
		const char *value;
	} fixed[] = {
		{ "PATH", "/usr/local/bin:/usr/bin:/bin" },
		{ "HOME", job->build_dir },
		{ "LANG", "C.UTF-8" },
		{ "NO_COLOR", "1" },
		{ "READTHEDOCS", "True" },
		{ "READTHEDOCS_VERSION", v->slug },
		{ "READTHEDOCS_VERSION_TYPE", lec_version_type_code(v->type) },
		{ "READTHEDOCS_VERSION_NAME", v->verbose_name },
		{ "READTHEDOCS_PROJECT", p->slug },
		{ "READTHEDOCS_LANGUAGE", p->language },
		{ "READTHEDOCS_REPOSITORY_PATH", job->checkout },
		{ "READTHEDOCS_OUTPUT", output },
		{ "READTHEDOCS_GIT_CLONE_URL", repo },
		{ "READTHEDOCS_GIT_IDENTIFIER", job->git_identifier },
		{ "READTHEDOCS_GIT_COMMIT_HASH", job->commit },
		{ "READTHEDOCS_PRODUCTION_DOMAIN", job->pl->production_domain },
		{ "READTHEDOCS_CANONICAL_URL", canonical },
	};

	if (canonical == NULL || repo == NULL || output == NULL) {
		error = lec__error_oom();
		goto done;
	}
	for (i = 0; error == LEC_OK && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		error = env_add(&job->env, &n, fixed[i].name, fixed[i].value);
	/* Then the project's own variables (notes §5.6), secret ones masked
	 * wherever they appear in the log. */
	if (error == LEC_OK)
		error = lec_envvar_values(job->st, p->id, 0, &job->vars);
	for (i = 0; error == LEC_OK && i < job->vars.len; i++)
		error = env_add(&job->env, &n, job->vars.items[i].name,
				job->vars.items[i].value);
	if (error == LEC_OK) {
		job->secrets = lec__calloc(job->vars.len + 1, sizeof(char *));
		if (job->secrets == NULL)
			error = lec__error_oom();
	}
	for (i = 0; error == LEC_OK && i < job->vars.len; i++)
		if (!job->vars.items[i].is_public)
			job->secrets[nsecrets++] = job->vars.items[i].value;
done:
	lec__free(canonical);
	lec__free(repo);
	lec__free(output);
	return error;
}

/* Cloning -------------------------------------------------------------------- */

struct clone_progress {
	struct lec__job *job;
	int64_t id;
	int64_t last_us;
};

static int clone_progress_cb(const struct lec_repo_progress *p, void *payload)
{
	struct clone_progress *cp = payload;
	int64_t now = lec__now_us();
	char line[160];

	if (job_cancelled(cp->job))
		return 1;
	if (now - cp->last_us < PROGRESS_INTERVAL_US &&
	    p->received_objects != p->total_objects)
		return 0;
	cp->last_us = now;
	snprintf(line, sizeof(line),
		 "Receiving objects: %zu/%zu, %.1f KiB; indexed %zu\n",
		 p->received_objects, p->total_objects,
		 (double)p->received_bytes / 1024.0, p->indexed_objects);
	lec__job_record_text(cp->job, cp->id, line);
	return 0;
}

static int looks_like_commit(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* The commit a version stands for, and the branch or tag name behind it. */
static int resolve_commit(struct lec__job *job,
			  const struct lec_repo_refs *refs)
{
	const struct lec_version *v = job->version;
	const char *name = v->identifier;
	enum lec_repo_ref_type type = v->type == LEC_VERSION_TAG
					      ? LEC_REPO_TAG
					      : LEC_REPO_BRANCH;

	if (v->machine && name == NULL)
		name = refs->default_branch;
	if (name == NULL)
		return lec__job_fail(job, "The repository has no default "
					  "branch; set the project's default "
					  "branch.");
	if (looks_like_commit(name)) {
		job->commit = lec__strdup(name);
		job->git_identifier = lec__strdup(v->verbose_name);
	} else {
		if (lec_repo_resolve(job->mirror, name, type, &job->commit) < 0)
			return lec__job_fail(job, "%s", lec_error_last());
		job->git_identifier = lec__strdup(name);
	}
	return job->commit && job->git_identifier ? 0
						  : lec__job_fail(job, "out of "
								       "memory");
}

/* Clone or fetch, sync versions, check the version out. */
static int step_checkout(struct lec__job *job)
{
	struct lec_repo_refs refs = { 0 };
	struct lec_vsync_result synced = { 0 };
	struct clone_progress cp = { job, 0, 0 };
	struct lec_version *fresh = NULL;
	struct lec__buf cmd = LEC__BUF_INIT;
	char *repo = lec_repo_redact_url(job->project->repo_url);
	char *text = NULL;
	struct stat sb;
	int first = stat(job->mirror, &sb) < 0, rc = -1;

	if (first)
		lec__buf_printf(&cmd, "git clone --depth 1 %s .", repo ? repo : "");
	else
		lec__buf_printf(&cmd, "git fetch origin --force --prune "
				      "--prune-tags --depth 50");
	if ((text = lec__buf_take(&cmd)) == NULL ||
	    lec__job_record_start(job, text, &cp.id) < 0)
		goto done;
	rc = lec_repo_mirror(job->project->repo_url, job->mirror,
			     clone_progress_cb, &cp);
	if (rc < 0 && !job->cancelled)
		lec__job_record_text(job, cp.id, lec_error_last());
	lec__job_record_finish(job, cp.id, rc < 0 ? 1 : 0);
	if (rc < 0) {
		if (!job->cancelled)
			lec__job_fail(job, "Cloning the repository failed: %s",
				      lec_error_last());
		goto done;
	}
	rc = -1;
	/* The service syncs versions from the fresh refs while cloning. */
	if (lec_repo_list_refs(job->mirror, &refs) < 0 ||
	    lec_vsync_apply(job->st, job->project->id, &refs, &synced) < 0 ||
	    lec_version_get_by_id(job->st, job->version->id, &fresh) < 0) {
		lec__job_fail(job, "Reading the repository's branches and tags "
				   "failed: %s",
			      lec_error_last());
		goto done;
	}
	lec_version_free(job->version);
	job->version = fresh;
	if (resolve_commit(job, &refs) < 0)
		goto done;
	lec__free(text);
	text = NULL;
	lec__buf_printf(&cmd, "git checkout --force %s", job->commit);
	if ((text = lec__buf_take(&cmd)) == NULL ||
	    lec__job_record_start(job, text, &cp.id) < 0)
		goto done;
	rc = lec_repo_checkout(job->mirror, job->commit, job->checkout);
	if (rc < 0)
		lec__job_record_text(job, cp.id, lec_error_last());
	lec__job_record_finish(job, cp.id, rc < 0 ? 1 : 0);
	if (rc < 0) {
		lec__job_fail(job, "Checking out %s failed: %s", job->commit,
			      lec_error_last());
		goto done;
	}
	lec_build_set_commit(job->st, job->build->id, job->commit);
	rc = 0;
done:
	lec_repo_refs_dispose(&refs);
	lec__free(text);
	lec__free(repo);
	return rc;
}

/* Show the file as `cat` would, capped. */
void lec__job_note_file(struct lec__job *job, const char *relpath)
{
	struct lec__buf cmd = LEC__BUF_INIT;
	char *path = lec__path_join(job->checkout, relpath);
	char *display, buf[CAT_MAX + 1];
	ssize_t n = -1;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;

	if (fd >= 0) {
		n = read(fd, buf, CAT_MAX);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	lec__buf_printf(&cmd, "cat %s", relpath);
	if ((display = lec__buf_take(&cmd)) != NULL)
		lec__job_note(job, display, buf);
	lec__free(display);
	lec__free(path);
}

int lec__job_read_config(struct lec__job *job, const char *yaml_path)
{
	char *relpath = NULL;
	int rc = lec_rtd_config_find(job->checkout, yaml_path, &relpath);

	if (rc == LEC_ENOTFOUND)
		return 0;
	if (rc < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	lec__job_note_file(job, relpath);
	rc = lec_rtd_config_load(job->checkout, relpath, &job->config);
	lec__free(relpath);
	if (rc < 0)
		return lec__job_fail(job, "Problem in your project's "
					  "configuration. %s",
				     lec_error_last());
	return 0;
}

/* Read .readthedocs.yaml when there is one; the build keeps it. */
static int step_config(struct lec__job *job)
{
	char *json;

	if (lec__job_read_config(job, job->project->readthedocs_yaml_path) < 0)
		return -1;
	if (job->config == NULL)
		return 0;
	if ((json = lec_rtd_config_json(job->config)) != NULL)
		lec_build_set_config(job->st, job->build->id, json);
	lec__free(json);
	return 0;
}

/* Installing ------------------------------------------------------------------- */

static void note_offline(struct lec__job *job, const char *key,
			 const struct lec_rtd_strings *values)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *text;
	size_t i;

	if (values->len == 0)
		return;
	lec__buf_printf(&b, "%s is not available offline; skipped:", key);
	for (i = 0; i < values->len; i++)
		lec__buf_printf(&b, " %s", values->items[i]);
	lec__buf_puts(&b, "\n");
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_note(job, key, text);
	lec__free(text);
}

/* Lectern builds with the machine's own tools: what a config asks to
 * install from the network is reported, not done. */
static int step_install(struct lec__job *job)
{
	static const enum lec_rtd_job hooks[] = {
		LEC_RTD_JOB_PRE_SYSTEM_DEPENDENCIES,
		LEC_RTD_JOB_POST_SYSTEM_DEPENDENCIES,
		LEC_RTD_JOB_PRE_CREATE_ENVIRONMENT,
		LEC_RTD_JOB_CREATE_ENVIRONMENT,
		LEC_RTD_JOB_POST_CREATE_ENVIRONMENT,
		LEC_RTD_JOB_PRE_INSTALL,
		LEC_RTD_JOB_INSTALL,
		LEC_RTD_JOB_POST_INSTALL,
	};
	struct lec__buf b = LEC__BUF_INIT;
	char *text;
	size_t i;

	if (job->config) {
		note_offline(job, "build.apt_packages",
			     &job->config->apt_packages);
		note_offline(job, "build.tools", &job->config->tools);
		if (job->config->python_install_count > 0)
			lec__job_note(job, "python.install",
				      "python.install is not available offline "
				      "(it installs from a package index); "
				      "skipped\n");
	}
	lec__buf_printf(&b, "%s\n",
			job->pl->python_about ? job->pl->python_about
					      : "no Python with Sphinx or MkDocs "
						"found");
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_note(job, "python --version", text);
	lec__free(text);
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (lec__job_hook(job, hooks[i]) < 0)
			return -1;
	return 0;
}

/* Uploading (publishing) -------------------------------------------------------- */

static int has_file(const char *dir, const char *name)
{
	char *path = lec__path_join(dir, name);
	struct stat sb;
	int ok = path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);

	lec__free(path);
	return ok;
}

/* A non-empty directory: the format was built. */
static int has_dir_entries(const char *dir, const char *sub)
{
	char *path = lec__path_join(dir, sub);
	DIR *d = path ? opendir(path) : NULL;
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.';
	if (d)
		closedir(d);
	lec__free(path);
	return found;
}

/* Index the published HTML for search (behaviour notes §4.3), recorded as
 * the command `lectern reindex` would run. Pages that fail to parse are
 * indexed empty and listed in its output; nothing here fails the build. */
static void step_index(struct lec__job *job, const char *html_dir)
{
	struct lec_search_index_report r;
	struct lec__buf b = LEC__BUF_INIT;
	char *display, *text;
	int64_t id;
	size_t i;
	int rc;

	lec__buf_printf(&b, "lectern reindex %s %s", job->project->slug,
			job->version->slug);
	if ((display = lec__buf_take(&b)) == NULL ||
	    lec__job_record_start(job, display, &id) < 0) {
		lec__free(display);
		return;
	}
	rc = lec_search_index_dir(job->st, job->version->id, html_dir,
				  job->config, &r);
	if (rc < 0)
		lec__buf_printf(&b, "Indexing for search failed: %s\n",
				lec_error_last());
	else
		lec__buf_printf(&b,
				"Indexed %zu pages (%zu sections and domain "
				"entries); %zu ignored by search.ignore; %zu "
				"could not be parsed.\n",
				r.pages, r.entries, r.ignored, r.failed);
	for (i = 0; rc == LEC_OK && i < r.failures_len; i++)
		lec__buf_printf(&b, "  %s\n", r.failures[i]);
	if ((text = lec__buf_take(&b)) != NULL)
		lec__job_record_text(job, id, text);
	lec__job_record_finish(job, id, rc < 0 ? 1 : 0);
	lec_search_index_report_dispose(&r);
	lec__free(text);
	lec__free(display);
}

/* Move the output out of the checkout, point the version's published link
 * at it with one rename(), then drop the previous output. */
static int step_publish(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_version_patch patch = { 0 };
	char *html = lec__path_join(job->output, "html");
	char *outputs = lec__path_join(job->pl->data_dir, "outputs");
	char *dest = NULL, *pubdir = NULL, *link = NULL, *tmp = NULL;
	char target[PATH_MAX], old[PATH_MAX];
	ssize_t oldlen;
	int rc = -1;

	if (html == NULL || outputs == NULL)
		goto done;
	if (!has_file(html, "index.html")) {
		lec__job_fail(job, NO_INDEX_ERROR);
		goto done;
	}
	patch.set = LEC_VERSION_SET_HAS_HTMLZIP | LEC_VERSION_SET_HAS_PDF |
		    LEC_VERSION_SET_HAS_EPUB;
	patch.has_htmlzip = has_dir_entries(job->output, "htmlzip");
	patch.has_pdf = has_dir_entries(job->output, "pdf");
	patch.has_epub = has_dir_entries(job->output, "epub");
	lec__buf_printf(&b, "%s/%lld", outputs, (long long)job->build->id);
	dest = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/published/%s", job->pl->data_dir,
			job->project->slug);
	pubdir = lec__buf_take(&b);
	if (dest == NULL || pubdir == NULL || lec__mkdirs(outputs) < 0 ||
	    lec__mkdirs(pubdir) < 0 || rename(job->output, dest) < 0) {
		lec__job_fail(job, "Publishing the output failed: %s",
			      strerror(errno));
		goto done;
	}
	lec__buf_printf(&b, "%s/%s", pubdir, job->version->slug);
	link = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/.%s.%lld.tmp", pubdir, job->version->slug,
			(long long)job->build->id);
	tmp = lec__buf_take(&b);
	snprintf(target, sizeof(target), "../../outputs/%lld",
		 (long long)job->build->id);
	oldlen = link ? readlink(link, old, sizeof(old) - 1) : -1;
	old[oldlen > 0 ? oldlen : 0] = '\0';
	if (tmp)
		unlink(tmp); /* left by a build that died here */
	if (link == NULL || tmp == NULL || symlink(target, tmp) < 0 ||
	    rename(tmp, link) < 0) {
		lec__job_fail(job, "Publishing the output failed: %s",
			      strerror(errno));
		lec__remove_tree(dest);
		goto done;
	}
	/* The previous output is no longer served. */
	if (oldlen > 0 && strncmp(old, "../../outputs/", 14) == 0) {
		char *previous = lec__path_join(outputs, old + 14);

		if (previous && strcmp(previous, dest) != 0)
			lec__remove_tree(previous);
		lec__free(previous);
	}
	patch.set |= LEC_VERSION_SET_DOCUMENTATION_TYPE;
	patch.documentation_type = lec_doctype_code(job->doctype);
	lec_version_update(job->st, job->version->id, &patch);
	{
		char *published = lec__path_join(dest, "html");

		if (published)
			step_index(job, published);
		lec__free(published);
	}
	rc = 0;
done:
	lec__free(html);
	lec__free(outputs);
	lec__free(dest);
	lec__free(pubdir);
	lec__free(link);
	lec__free(tmp);
	return rc;
}

/* The job --------------------------------------------------------------------- */

static int set_state(struct lec__job *job, enum lec_build_state state)
{
	if (job->cancelled || job_cancelled(job))
		return -1;
	if (lec_build_set_state(job->st, job->build->id, state) < 0) {
		job->cancelled = 1;
		return -1;
	}
	return 0;
}

static int job_prepare(struct lec__job *job)
{
	struct lec__buf b = LEC__BUF_INIT;

	if (lec_project_get_by_id(job->st, job->build->project_id,
				  &job->project) < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	if (job->build->version_id == 0 ||
	    lec_version_get_by_id(job->st, job->build->version_id,
				  &job->version) < 0)
		return lec__job_fail(job, "The version of this build no longer "
					  "exists.");
	lec__buf_printf(&b, "%s/builds/%lld", job->pl->data_dir,
			(long long)job->build->id);
	job->build_dir = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/repos/%s.git", job->pl->data_dir,
			job->project->slug);
	job->mirror = lec__buf_take(&b);
	job->checkout = job->build_dir
				? lec__path_join(job->build_dir, "checkout")
				: NULL;
	job->output = job->checkout
			      ? lec__path_join(job->checkout, "_readthedocs")
			      : NULL;
	if (job->build_dir == NULL || job->mirror == NULL ||
	    job->checkout == NULL || job->output == NULL)
		return lec__job_fail(job, "out of memory");
	lec__remove_tree(job->build_dir);
	if (lec__mkdirs(job->build_dir) < 0 ||
	    lec__mkdirs(job->pl->data_dir) < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	{
		char *repos = lec__path_join(job->pl->data_dir, "repos");
		int rc = repos ? lec__mkdirs(repos) : LEC_ENOMEM;

		lec__free(repos);
		if (rc < 0)
			return lec__job_fail(job, "%s", lec_error_last());
	}
	return 0;
}

static void job_dispose(struct lec__job *job)
{
	size_t i;

	if (job->build_dir)
		lec__remove_tree(job->build_dir);
	for (i = 0; job->env && job->env[i]; i++)
		lec__free(job->env[i]);
	lec__free(job->env);
	lec__free((void *)job->secrets);
	lec_envvar_values_dispose(&job->vars);
	lec_rtd_config_free(job->config);
	lec_project_free(job->project);
	lec_version_free(job->version);
	lec__free(job->build_dir);
	lec__free(job->checkout);
	lec__free(job->output);
	lec__free(job->mirror);
	lec__free(job->commit);
	lec__free(job->git_identifier);
	lec__free(job->error);
}

int lec__job_execute(struct lec_pipeline *pl, struct lec_store *st,
		     struct lec_build *build)
{
	struct lec__job job = { 0 };
	int ok;

	job.pl = pl;
	job.st = st;
	job.build = build;
	/* The build is in `cloning` already (lec_build_claim). */
	ok = job_prepare(&job) == 0 && step_checkout(&job) == 0 &&
	     build_env(&job) == LEC_OK && step_config(&job) == 0 &&
	     lec__job_hook(&job, LEC_RTD_JOB_POST_CHECKOUT) == 0 &&
	     set_state(&job, LEC_BUILD_STATE_INSTALLING) == 0 &&
	     step_install(&job) == 0 &&
	     set_state(&job, LEC_BUILD_STATE_BUILDING) == 0 &&
	     lec__job_build_docs(&job) == 0 &&
	     set_state(&job, LEC_BUILD_STATE_UPLOADING) == 0 &&
	     step_publish(&job) == 0;
	if (!ok && job.error == NULL && !job.cancelled)
		lec__job_fail(&job, "The build failed: %s", lec_error_last());
	/* A cancelled build stays cancelled (lec_build_finish keeps it). */
	lec_build_finish(st, build->id, ok, ok ? NULL : job.error);
	job_dispose(&job);
	return ok ? LEC_OK : LEC_ERROR;
}
