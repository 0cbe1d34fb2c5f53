/*
 * One build, start to finish: the checkout (cloning), the environment
 * (installing), the generator (building, in build_steps.c) and publishing
 * (uploading), in the order and with the command lines of the hosted
 * service (behaviour notes §5.2–5.3). Orchestration only: each step is a
 * file of its own below this one, and what they share (running and
 * recording commands, failing the build) is job.c's, below them.
 */
#include <string.h>

#include "build_job.h"
#include "build_steps.h"
#include "lectern/notification.h"

/* Read .readthedocs.yaml when there is one; the build keeps it. */
static int step_config(struct lec__job *job)
{
	char *json;

	if (lec__job_read_config(job, job->project->readthedocs_yaml_path) < 0)
		return LEC_ERROR;
	if (job->config == NULL)
		return LEC_OK;
	if ((json = lec_rtd_config_json(job->config)) != NULL)
		lec_build_set_config(job->st, job->build->id, json);
	lec__free(json);
	return LEC_OK;
}

/* Installing ------------------------------------------------------------------- */

/* The environment hooks around the project's own install (notes §5.3):
 * the virtualenv (or build.jobs.create_environment) after
 * pre_create_environment, python.install (or build.jobs.install) after
 * pre_install. apt packages cannot be installed into a shared machine;
 * the log says so. */
static int step_install(struct lec__job *job)
{
	static const enum lec_rtd_job before[] = {
		LEC_RTD_JOB_PRE_SYSTEM_DEPENDENCIES,
		LEC_RTD_JOB_POST_SYSTEM_DEPENDENCIES,
		LEC_RTD_JOB_PRE_CREATE_ENVIRONMENT,
	};
	static const enum lec_rtd_job between[] = {
		LEC_RTD_JOB_POST_CREATE_ENVIRONMENT,
		LEC_RTD_JOB_PRE_INSTALL,
	};
	size_t i;

	if (job->config && job->config->apt_packages.len > 0) {
		struct lec__buf b = LEC__BUF_INIT;
		char *text;

		lec__buf_puts(&b, "build.apt_packages are not installed by "
				  "Lectern (the machine's packages are shared "
				  "by every build); install them on the host "
				  "if the build needs them:");
		for (i = 0; i < job->config->apt_packages.len; i++)
			lec__buf_printf(&b, " %s",
					job->config->apt_packages.items[i]);
		lec__buf_puts(&b, "\n");
		if ((text = lec__buf_take(&b)) != NULL)
			lec__job_note(job, "build.apt_packages", text);
		lec__free(text);
	}
	for (i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		if (lec__job_hook(job, before[i]) < 0)
			return LEC_ERROR;
	if (lec__job_python_create(job) < 0)
		return LEC_ERROR;
	for (i = 0; i < sizeof(between) / sizeof(between[0]); i++)
		if (lec__job_hook(job, between[i]) < 0)
			return LEC_ERROR;
	if (lec__job_python_install(job) < 0)
		return LEC_ERROR;
	return lec__job_hook(job, LEC_RTD_JOB_POST_INSTALL);
}

/* The job --------------------------------------------------------------------- */

static int set_state(struct lec__job *job, enum lec_build_state state)
{
	if (job->cancelled || lec__job_cancelled(job))
		return LEC_ERROR;
	if (lec_build_set_state(job->st, job->build->id, state) == LEC_OK)
		return LEC_OK;
	/* Cancelled meanwhile (the move is then not forward), or the store
	 * could not take the write (a full disk): the build fails saying
	 * so, never as if cancelled. */
	if (lec__job_cancelled(job))
		return LEC_ERROR;
	return lec__job_fail(job, "Recording the build's state failed: %s",
			     lec_error_last());
}

/* Record the build's end. When the store cannot take it (the disk is
 * full, maybe with what this very build wrote), make room by removing
 * what the build kept (its tree and generator state are caches) and try
 * again with the reason; the worker tries after that. */
static int record_end(struct lec__job *job, int ok)
{
	int64_t id = job->build->id;
	int rc;

	if (ok)
		rc = lec_build_finish(job->st, id, 1, NULL);
	else
		rc = lec_build_fail_message(
			job->st, id,
			job->failure ? job->failure : LEC_BUILD_FAILURE_GENERIC,
			job->error, job->failure_message);
	if (rc == LEC_OK)
		return rc;
	lec__build_log(job->env, "build %lld: recording its end failed (%s); "
				 "removing its kept files",
		       (long long)id, lec_error_last());
	if (job->checkout)
		lec__tree_drop(job);
	if (job->build_dir)
		lec__remove_tree(job->build_dir);
	return lec_build_fail(job->st, id, LEC_BUILD_FAILURE_GENERIC,
			      LEC__BUILD_ERROR_DISK_FULL);
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
	lec__buf_printf(&b, "%s/builds/%lld", job->env->data_dir,
			(long long)job->build->id);
	job->build_dir = lec__buf_take(&b);
	lec__buf_printf(&b, "%s/repos/%s.git", job->env->data_dir,
			job->project->slug);
	job->repo_cache = lec__buf_take(&b);
	/* The version's tree is kept between builds, at a path that stays
	 * the same (Sphinx's state names it); its manifest beside it. */
	lec__buf_printf(&b, "%s/checkouts/%s/%s", job->env->data_dir,
			job->project->slug, job->version->slug);
	job->checkout = lec__buf_take(&b);
	lec__buf_printf(&b, "%s.manifest", job->checkout ? job->checkout : "");
	job->tree_manifest = lec__buf_take(&b);
	job->output = job->checkout
			      ? lec__path_join(job->checkout, "_readthedocs")
			      : NULL;
	if (job->build_dir == NULL || job->repo_cache == NULL ||
	    job->checkout == NULL || job->tree_manifest == NULL ||
	    job->output == NULL)
		return lec__job_fail(job, "out of memory");
	if (job->env->sandbox_error)
		return lec__job_fail(job, "%s", job->env->sandbox_error);
	if (job->env->limits.time_limit_s > 0)
		job->deadline_ms =
			lec__monotonic_ms() +
			(int64_t)job->env->limits.time_limit_s * 1000;
	lec__remove_tree(job->build_dir);
	if (lec__mkdirs(job->build_dir) < 0 ||
	    lec__mkdirs(job->env->data_dir) < 0 ||
	    lec__chown_tree(job->env, job->build_dir, 1, 0) < 0 ||
	    lec__mkdirs_mode(job->checkout, 0755) < 0 ||
	    lec__chown_tree(job->env, job->checkout, 1, 0) < 0)
		return lec__job_fail(job, "%s", lec_error_last());
	{
		char *repos = lec__path_join(job->env->data_dir, "repos");
		int rc = repos ? lec__mkdirs(repos) : LEC_ENOMEM;

		lec__free(repos);
		if (rc < 0)
			return lec__job_fail(job, "%s", lec_error_last());
	}
	return LEC_OK;
}

static void job_dispose(struct lec__job *job)
{
	if (job->build_dir)
		lec__remove_tree(job->build_dir);
	lec__job_dispose(job);
}

/* The build's warnings, compared with its version's last good build's
 * (a failed build's: which are new, never what it fixed), kept with it
 * before it shows as finished; the number of new ones. */
static size_t store_warnings(struct lec__job *job, int ok)
{
	size_t i, fresh = 0;

	if (job->warnings_off ||
	    lec_warning_store(job->st, job->build->id, &job->warnings, ok) < 0)
		return 0;
	for (i = 0; i < job->warnings.len; i++)
		fresh += job->warnings.items[i].is_new != 0;
	return fresh;
}

int lec__job_execute(struct lec__build_env *env, struct lec_store *st,
		     struct lec_build *build)
{
	const struct lec_notification_site site = { env->docs_domain,
						    env->production_domain,
						    env->external_domain };
	struct lec__job job = { 0 };
	size_t fresh;
	char *cache;
	int ok, recorded;

	job.env = env;
	job.st = st;
	job.build = build;
	/* Its notifications and webhooks are queued, never awaited. */
	lec_notification_build_event(st, build->id, LEC_BUILD_EVENT_TRIGGERED,
				     &site);
	/* The build is in `cloning` already (lec_build_claim). */
	ok = job_prepare(&job) == LEC_OK && lec__job_checkout(&job) == LEC_OK &&
	     lec__job_make_env(&job) == LEC_OK &&
	     step_config(&job) == LEC_OK &&
	     lec__job_submodules(&job) == LEC_OK &&
	     lec__job_hook(&job, LEC_RTD_JOB_POST_CHECKOUT) == LEC_OK &&
	     set_state(&job, LEC_BUILD_STATE_INSTALLING) == LEC_OK &&
	     step_install(&job) == LEC_OK &&
	     set_state(&job, LEC_BUILD_STATE_BUILDING) == LEC_OK &&
	     lec__job_build_docs(&job) == LEC_OK &&
	     set_state(&job, LEC_BUILD_STATE_UPLOADING) == LEC_OK &&
	     lec__job_publish(&job) == LEC_OK;
	if (!ok && job.error == NULL && !job.cancelled)
		lec__job_fail(&job, "The build failed: %s", lec_error_last());
	if ((cache = lec__job_cache_json(&job)) != NULL)
		lec_build_set_cache(st, build->id, cache);
	lec__free(cache);
	/* The generator's state is trusted next time only after a pass. */
	if (job.state_record && ok)
		lec__cache_key_save(&job.state_key, job.state_record);
	else if (job.state_record)
		lec__cache_key_forget(job.state_record);
	lec__job_sphinx_keep(&job, ok);
	fresh = store_warnings(&job, ok);
	/* A cancelled build stays cancelled (lec_build_finish keeps it). */
	if ((recorded = record_end(&job, ok)) == LEC_OK)
		lec_notification_build_event(st, build->id,
					     LEC_BUILD_EVENT_FINISHED, &site);
	if (recorded == LEC_OK && fresh > 0 && !job.cancelled)
		lec_notification_build_event(st, build->id,
					     LEC_BUILD_EVENT_NEW_WARNINGS,
					     &site);
	if (job.project)
		lec__prune_caches(env, st, job.project);
	job_dispose(&job);
	return recorded;
}
