/*
 * The preview server of `lectern preview`: a small HTTP server on a
 * loopback port that sends one working tree's built site (the preview's
 * `site` link, read afresh for every request so a rebuild shows at once),
 * with a script injected into every HTML page that reloads it after each
 * successful rebuild and shows a banner with the build's warnings, the
 * reader's addons as the docs host has them (their script and /_/addons/,
 * for the working tree as one project of one version), and two endpoints
 * for watchers:
 *   GET /_/preview/status  the build state as JSON (see docs/preview.md),
 *                          with the last build's warnings
 *   GET /_/preview/events  the same JSON as Server-Sent Events ("status"
 *                          events), one now and one per state change
 * It is separate from `lectern serve` (no store, no accounts): a writer's
 * own working tree, for the writer's own browser and TUI.
 */
#ifndef LECTERN_SRV_PREVIEW_DAEMON_H
#define LECTERN_SRV_PREVIEW_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/warning.h"

/* The changed paths a state lists, at most: enough for a TUI to find the
 * page being written, small enough for one event. */
#define SRV_PREVIEW_CHANGED_MAX 100

/* The warnings a state lists, at most (all are counted): what a banner and
 * a reader show, and what keeps each event small. */
#define SRV_PREVIEW_WARNINGS_MAX 200

/* The endpoints' paths. */
#define SRV_PREVIEW_STATUS "/_/preview/status"
#define SRV_PREVIEW_EVENTS "/_/preview/events"

/* One state of the preview, as the status endpoint shows it. */
struct srv_preview_state {
	const char *state;      /* "building", "ready" or "failed" */
	uint64_t generation;    /* builds finished so far in this run */
	uint64_t published;     /* the build whose output is served (0:
				   none yet) */
	const char *generator;  /* of the last build, NULL before one ends */
	const char *error;      /* why the last build failed, or NULL */
	const char *log;        /* the end of the failed build's output, or
				   NULL */
	const char *const *changed; /* the tree paths behind the current or
				       last build, NULL-terminated, the
				       first SRV_PREVIEW_CHANGED_MAX shown;
				       NULL: [] */
	int64_t duration_ms;    /* of the last build; < 0: none yet */
	/* The last build's warnings (lectern/preview.h), the first
	 * SRV_PREVIEW_WARNINGS_MAX shown; NULL: none yet. */
	const struct lec_warning_set *warnings;
	size_t warnings_fixed;  /* the build before's that it lacks */
};

struct srv_preview;

/*
 * Start serving site (a directory or a link to one) on host:port (port 0:
 * any free one) with state "building"; name is the project the addons
 * show (the tree's directory name). NULL with the reason on stderr when
 * the port cannot be had.
 */
struct srv_preview *srv_preview_start(const char *host, unsigned short port,
				      const char *site, const char *name);
/* The port actually listened on. */
unsigned short srv_preview_port(const struct srv_preview *p);
/* Publish a new state (copied) to the status endpoint and every event
 * stream. Thread-safe. */
void srv_preview_update(struct srv_preview *p,
			const struct srv_preview_state *state);
/* Stop: event streams end, in-flight requests finish. Accepts NULL. */
void srv_preview_stop(struct srv_preview *p);

#endif
