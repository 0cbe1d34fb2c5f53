/*
 * What the pipeline's version syncs and the watcher's remote polling take
 * of the checkout step (build_fetch.c): fetching a project's repo cache
 * outside any build. The checkout step itself is in build_steps.h.
 */
#ifndef LECTERN_BUILD_FETCH_H
#define LECTERN_BUILD_FETCH_H

#include "buildenv.h"
#include "lectern/project.h"

/* Fetch a project's repo cache (repos/<slug>.git) outside any build, in
 * the sandbox, within time_limit_s. LEC_OK; LEC_EIO with the failed
 * command's cause as the message; LEC_ENOMEM. */
int lec__fetch_repo_cache(struct lec__build_env *env,
			  const struct lec_project *p, unsigned time_limit_s);

#endif
