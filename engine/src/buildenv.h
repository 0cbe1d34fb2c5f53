/*
 * The build environment: the settings a build's steps need and nothing
 * else (where the data lives, the sandbox's identity and limits, the
 * generators' interpreter), whether the builds should stop, and the
 * pipeline's log. The pipeline owns one (pipeline.c); a preview makes its
 * own (preview.c) without a pipeline. A floor below the job services
 * (job.h): nothing here knows of a build.
 */
#ifndef LECTERN_BUILDENV_H
#define LECTERN_BUILDENV_H

#include <pthread.h>

#include "internal.h"
#include "lectern/pipeline.h"
#include "lectern/runner.h"

/* Debian's interpreter, whose site-packages hold the packaged Sphinx and
 * MkDocs (a python3 earlier on PATH may not): what builds run with unless
 * a virtualenv or a writer's own Python is given, and what virtualenvs
 * are made from. */
#define LEC__DEBIAN_PYTHON "/usr/bin/python3"

struct lec__build_env {
	char *data_dir;
	char *docs_domain;       /* what canonical URLs name */
	char *external_domain;   /* where pull requests' previews are */
	char *production_domain; /* the API's host[:port] */
	struct lec_runner_limits limits;
	int offline;                   /* no network, even to install */
	const char *const *local_roots; /* borrowed from the config */
	unsigned keep_builds;           /* outputs kept per version; 0 */
	unsigned build_uid, build_gid;  /* whom builds run as under root */
	char *helper;        /* the `lectern` program for git work, or NULL */
	char *sandbox_error; /* why builds cannot run here, or NULL */
	char *lectern_stamp; /* this Lectern build, for cache keys */
	char *python;        /* interpreter with Sphinx/MkDocs, or NULL */
	char *python_about;  /* "/usr/bin/python3 (Sphinx 5.3.0, MkDocs -)" */
	int has_sphinx, has_mkdocs;
	char sphinx_version[48], mkdocs_version[48]; /* "-": none */
	/* The warm generators of the versions being worked on (build_warm.h;
	 * the pipeline's or a preview's own), or NULL: every build cold. */
	struct lec__warm_pool *warm;
	void (*log)(void *payload, const char *message); /* or NULL */
	void *log_payload;
	pthread_mutex_t lock; /* guards stopping; wake waits on it */
	pthread_cond_t wake;  /* signalled when stopping */
	int stopping;
};

/* The settings of config (none probed yet). LEC_OK or LEC_ENOMEM. */
int lec__build_env_init(struct lec__build_env *env,
			const struct lec_pipeline_config *config);
/* Whom builds run as, the helper program, and whether the sandbox runs
 * here (when not, sandbox_error says why). */
int lec__build_env_identify(struct lec__build_env *env,
			    const struct lec_pipeline_config *config);
/* Which interpreter has the generators: only (when given), else the first
 * of Debian's /usr/bin/python3 and the python3 on PATH that has Sphinx or
 * MkDocs; their versions read from the packages' metadata, without
 * importing them. Finding none is no error (has_* stay 0). */
int lec__build_env_find_python(struct lec__build_env *env, const char *only);
void lec__build_env_dispose(struct lec__build_env *env);

/* Whether the builds should stop (running ones end at once). */
int lec__build_env_stopping(struct lec__build_env *env);
/* Tell them to, waking whoever waits on wake. */
void lec__build_env_stop(struct lec__build_env *env);
/* Wait up to ms for stopping, or for lec__build_env_wake. */
void lec__build_env_idle(struct lec__build_env *env, unsigned ms);
/* Wake whoever idles now: there is work in the store (a build queued in
 * this process), so it need not wait out its poll. */
void lec__build_env_wake(struct lec__build_env *env);

/* Report through the log callback. */
void lec__build_log(const struct lec__build_env *env, const char *fmt, ...)
	LEC__PRINTF(2, 3);

/* When the server is root: give path (and with recurse all below it,
 * links not followed) to the build user, or back to the server's user. */
int lec__chown_tree(const struct lec__build_env *env, const char *path,
		    int to_build_user, int recurse);

#endif
