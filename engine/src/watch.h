/*
 * The commit watcher (watch.c) as the pipeline starts and stops it: builds
 * on commit for local repositories and the polling of remote ones, a
 * thread of the pipeline's that stops once the build environment is
 * stopping. It sees the build environment and its own settings, never
 * the pipeline.
 */
#ifndef LECTERN_WATCH_H
#define LECTERN_WATCH_H

#include "buildenv.h"

/* How the watcher looks (lec_pipeline_config's watch_*, the defaults
 * filled in by the pipeline). */
struct lec__watch_settings {
	unsigned debounce_ms; /* quiet period after a change to the refs */
	unsigned poll_ms;     /* without inotify, how often refs are read */
	int no_inotify;       /* 1: poll even where inotify works */
	int log;              /* 1: each look is a line of the build log */
};

struct lec__watcher;
/* Start the watcher's threads on env (borrowed; it outlives the
 * watcher). LEC_OK with *out set; an error code with the message set. */
int lec__watcher_start(struct lec__build_env *env,
		       const struct lec__watch_settings *settings,
		       struct lec__watcher **out);
/* Wait for the threads (the environment is stopping) and free the
 * watcher; NULL is fine. */
void lec__watcher_stop(struct lec__watcher *watcher);

#endif
