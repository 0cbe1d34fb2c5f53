/*
 * One build as the pipeline's workers run it (build_job.c): the
 * orchestrator of the steps, seen by the pipeline (pipeline.c) only.
 */
#ifndef LECTERN_BUILD_JOB_H
#define LECTERN_BUILD_JOB_H

#include "buildenv.h"
#include "lectern/build.h"
#include "lectern/store.h"

/* The error of a build whose end could be recorded only once its kept
 * files were removed: the disk holding the data directory was full. */
#define LEC__BUILD_ERROR_DISK_FULL                                           \
	"The disk holding Lectern's data is full: this build's kept "        \
	"files were removed to record its end. Free some space and build "   \
	"again."

/* Carry out one claimed build and finish it. LEC_OK once its end is
 * recorded, passed or failed; an error when the store could not take it
 * even after removing what the build kept (the worker tries again,
 * lec_build_fail with LEC__BUILD_ERROR_DISK_FULL). */
int lec__job_execute(struct lec__build_env *env, struct lec_store *st,
		     struct lec_build *build);

#endif
