/*
 * The unread notification count in the title bar: asked of the instance
 * in the background (the TUI never waits on it), often while it changes
 * and less and less often while it does not, and not at all on an
 * instance without the endpoint (or that wants a token the context lacks).
 */
#ifndef LECTERN_UI_UNREAD_H
#define LECTERN_UI_UNREAD_H

#include <stdint.h>

struct ui_app;

struct ui_unread {
	long count;         /* -1: not known, or not offered */
	int off;            /* the instance has none for this context */
	int pending;        /* a request is in flight */
	long interval_ms;   /* the wait after the next answer */
	int64_t next_ms;    /* ui_now_ms() of the next request */
};

/* Start over (a new context): unknown, asked at once. */
void ui_unread_reset(struct ui_app *app);
/* Ask now if it is time; the answer arrives through the client. */
void ui_unread_poll(struct ui_app *app, int64_t now_ms);
/* When ui_unread_poll next wants to run (INT64_MAX: never). */
int64_t ui_unread_due(const struct ui_app *app);
/* Something changed the count here: ask again soon, at the fast rate. */
void ui_unread_soon(struct ui_app *app);

#endif
