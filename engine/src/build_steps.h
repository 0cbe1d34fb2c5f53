/*
 * The steps of a build, for whoever runs them: the orchestrators (one
 * build, build_job.c; a preview's generator step, preview.c), each step's
 * own file and its unit tests. Nothing else includes this. Bottom up,
 * below the steps the build environment (buildenv.h) and the job services
 * (job.h); then build_tree.c (the version's kept tree), build_fetch.c
 * (the repository, through the `lectern` helper in a sandbox) and
 * build_publish.c (the output, made safe and published), then
 * build_python.c (the project's virtualenv and dependencies) and
 * build_steps.c (the generators and formats). Each step works on its job
 * (struct lec__job) and calls only files on lower floors.
 *
 * A step returns LEC_OK, or LEC_ERROR when the job failed or was
 * cancelled. A failed job's error (lec__job_fail, the first failure's
 * message) is then the thread's message too, as after an engine call
 * that failed; a job cancelled without failing sets none.
 */
#ifndef LECTERN_BUILD_STEPS_H
#define LECTERN_BUILD_STEPS_H

#include "job.h"

/* The checkout step (build_fetch.c): fetch the project's repo cache, sync
 * its versions, check the version's commit out. */
int lec__job_checkout(struct lec__job *job);
/* The submodules .readthedocs.yaml asks for, fetched through repo caches
 * of their own (repos/<project>.modules/) and checked out. */
int lec__job_submodules(struct lec__job *job);

/* The version's kept working tree (build_tree.c). Before a checkout:
 * check the tree against what the last one wrote and clean what the
 * commit does not have, keeping the generators' state; *from (owned) is
 * then the commit the tree holds, to update from, or NULL when the tree
 * must be checked out afresh (the reason noted as the "checkout" cache).
 * After it: record what it wrote, or forget the record. */
int lec__tree_prepare(struct lec__job *job, int fresh, char **from);
int lec__tree_record(struct lec__job *job);
void lec__tree_forget(struct lec__job *job);
/* Remove the version's kept tree and all that lies beside it: the room a
 * build made when the disk is full. */
void lec__tree_drop(struct lec__job *job);
/* Remove the kept trees, generator state and Python environments of p's
 * versions that are no longer active (deleted or deactivated). */
void lec__prune_caches(const struct lec__build_env *env, struct lec_store *st,
		       const struct lec_project *p);

/* The install step's two parts (build_python.c): the venv, or the
 * project's build.jobs.create_environment; python.install into it, or the
 * project's build.jobs.install. */
int lec__job_python_create(struct lec__job *job);
int lec__job_python_install(struct lec__job *job);

/* The generator step (build_steps.c). */
int lec__job_build_docs(struct lec__job *job);
/* The generator lec__job_build_docs runs for the job's checkout and
 * configuration (a preview keeps Sphinx's output between builds only). */
enum lec__generator {
	LEC__GEN_COMMANDS, /* build.commands */
	LEC__GEN_JOBS,     /* build.jobs.build.* (a generic build) */
	LEC__GEN_MKDOCS,
	LEC__GEN_SPHINX,
	LEC__GEN_MARKDOWN  /* no configuration, no conf.py, no mkdocs.yml */
};
enum lec__generator lec__job_generator(const struct lec__job *job);
/* The end of a job for Sphinx's kept warnings: a build that passed (ok)
 * leaves its state for the next one's carrying over; any other leaves
 * none, so that the next build reads every document again. Frees what
 * the job held of them. */
void lec__job_sphinx_keep(struct lec__job *job, int ok);

/* The publish step (build_publish.c; its tree publishing for others is
 * build_publish.h). */
int lec__job_publish(struct lec__job *job);

#endif
