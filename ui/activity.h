/*
 * A Lectern's change signal for builds (docs/api.md, "Builds across
 * projects and the queue"): GET /api/v3/builds/activity/, asked with its
 * ETag once a second while a screen that shows builds is on top, so that
 * such a screen asks for its lists again as soon as a build was created,
 * removed or ended anywhere, however long it has been idle and however far
 * its own polls have backed off. A 304 costs the engine nothing to speak
 * of. While no such screen is on top it is still asked, less often: then
 * it is the TUI's sign that the engine went away or came back. The hosted
 * service has no such signal: there the screens keep their back-off
 * within the poll budget, and this is never asked.
 */
#ifndef LECTERN_UI_ACTIVITY_H
#define LECTERN_UI_ACTIVITY_H

#include <stdint.h>

/* How often the signal is asked while a screen watches it: a build
 * started elsewhere shows within about this (the issue asks 2 s). */
#define UI_ACTIVITY_MS 1000
/* How often it is asked on a Lectern while no screen watches it: the
 * engine going away shows on any screen within this, for one 304 every
 * few seconds. While it gives no answer it is asked every UI_ACTIVITY_MS,
 * so its return shows within about a second. */
#define UI_ACTIVITY_IDLE_MS 5000

struct ui_app;

struct ui_activity {
	int off;               /* not offered here (not a Lectern, an error) */
	int pending;           /* a request is in flight */
	char *etag;            /* of the last answer; owned */
	unsigned serial;       /* moves each time the answer changed; 0:
				  none yet */
	int64_t asked_ms;      /* ui_now_ms() of the last answer */
	int64_t watched_until; /* a screen watches until then */
};

/* Start over (a new context or client): nothing known, not off. */
void ui_activity_reset(struct ui_app *app);
/* A screen showing builds asks to be told (call it each tick): the
 * signal's serial, 0 while nothing is known (or on an instance without
 * it). A serial other than the one a screen saw last means: ask for the
 * lists again. */
unsigned ui_activity_watch(struct ui_app *app);
/* Ask now if a screen watches and it is time; the answer arrives through
 * the client and, when it moved, ticks the top screen at once. */
void ui_activity_poll(struct ui_app *app, int64_t now_ms);
/* When ui_activity_poll next wants to run (INT64_MAX: not now). */
int64_t ui_activity_due(const struct ui_app *app);

#endif
