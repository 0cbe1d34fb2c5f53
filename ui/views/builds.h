/*
 * A project's builds as a live list, shared by the Builds screen and the
 * project screen's builds tab: newest first, at any depth of history. The
 * list is as long as the server's count; rows are fetched a page at a
 * time by offset when they come on screen (so `G` on 10,000 builds is one
 * request, not a walk through every page before it) and kept in a small
 * cache of pages, least recently drawn first out, so memory does not grow
 * with the number of builds. Every tick the first page and the pages on
 * screen are asked again with their ETags (unchanged answers cost a 304).
 * An optional running-only filter is done by the server; the `/` filter
 * applies to the pages in the cache.
 */
#ifndef LECTERN_UI_VIEWS_BUILDS_H
#define LECTERN_UI_VIEWS_BUILDS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../table.h"
#include "client.h"

struct ui_app;
struct ui_view;
struct lc_build;
struct lc_build_progress;
struct lc_response;
struct lc_error;

/* Builds per request: a screenful several times over, and small enough
 * that a poll answer stays a few tens of KiB. */
#define UI_BUILDS_PAGE 100
/* Pages kept: the screen's pages (two at most on the tallest terminal)
 * plus the first page plus room to move back and forth without asking
 * again. 800 builds whatever the history's length. */
#define UI_BUILDS_CACHE 8

/* Request tags the model uses: page N is TAG_PAGE + N, the queue's places
 * TAG_QUEUE; the views' own tags stay below. */
enum { UI_BUILDS_TAG_QUEUE = 999, UI_BUILDS_TAG_PAGE = 1000 };

struct ui_builds_page {
	long long no;            /* offset / UI_BUILDS_PAGE; -1: slot free */
	struct lc_build **items; /* owned */
	size_t len;
	struct ui_table table;   /* the items' rows as drawn */
	char *etag;              /* owned */
	uint64_t used;           /* when last drawn, for eviction */
};

struct ui_builds {
	char *project;           /* slug; owned; NULL: every project's
				  * (Lectern's /api/v3/builds/) */
	int running_only;
	long long count;         /* the server's total, -1 before the first */
	struct ui_builds_page pages[UI_BUILDS_CACHE];
	uint64_t clock;          /* ticks of `used` */
	int64_t hold_until;      /* ui_now_ms() before which drawing asks
				  * for no page (after a failed answer) */
	char *filter;            /* the `/` text, or NULL; owned */
	size_t lines;            /* rows shown */
	time_t asked;            /* when the first page was last asked */
	int every;               /* seconds between polls (ui_pace_builds) */
	unsigned activity;       /* the build activity signal's serial at
				  * the last poll (activity.h) */
	struct lc_queue queue;   /* a Lectern's places of waiting builds */
};

/* project NULL: the builds of every project the user administers. */
void ui_builds_init(struct ui_builds *b, const char *project);
void ui_builds_dispose(struct ui_builds *b);
/* Ask again (conditionally) for the first page and the pages on v's
 * screen, unless already asking. */
void ui_builds_poll(struct ui_builds *b, struct ui_view *v);
/* The same on a tick, when it is due, at ui_pace_builds (polling.h): fast
 * while a loaded build runs, backing off while every build stays final (a
 * remote instance rate-limits; a screen of finished builds changes only
 * when one starts); and on a Lectern as soon as its build activity moved
 * (a build started elsewhere), whatever the wait. */
void ui_builds_tick(struct ui_builds *b, struct ui_view *v);
/* Forget the ETags, so the next poll gets full answers (`R`). */
void ui_builds_reload(struct ui_builds *b, struct ui_view *v);
/* Switch the running-only filter and start over. */
void ui_builds_toggle_running(struct ui_builds *b, struct ui_view *v);
/* An answer for one of the model's tags; 1 when it was one. Sets v->lines
 * and keeps the cursor on the same build when new ones arrive. A 404 of
 * the first page (the project is gone or was never there) closes v. */
int ui_builds_on_data(struct ui_builds *b, struct ui_view *v, int tag,
		      struct lc_response *resp, const struct lc_error *err);
/* Rebuild the rows (ages and elapsed times move on) and v->lines. */
void ui_builds_refresh(struct ui_builds *b, struct ui_view *v);
/* Apply (NULL: remove) the `/` filter and set v->lines. */
void ui_builds_filter(struct ui_builds *b, struct ui_view *v, const char *text);
/* The build on shown row n, or NULL (not loaded yet, or past the end). */
const struct lc_build *ui_builds_get(struct ui_builds *b, size_t n);
/* Its id, or -1. */
long long ui_builds_id(struct ui_builds *b, size_t n);
/* Draw the column header at line y, and shown row n at line y; a row not
 * loaded yet is drawn as such and its page asked for. */
void ui_builds_draw_header(const struct ui_builds *b, WINDOW *w, int y,
			   int width);
void ui_builds_draw_row(struct ui_builds *b, struct ui_view *v, WINDOW *w,
			int y, int width, size_t n, int selected);

/* Under the list, the selected build's error (or its fetch's progress)
 * whole when its column cuts it: a rule, then the text wrapped (at most
 * UI_BUILDS_FOOTER_LINES); the lines taken, 0 when it fits (w NULL: only
 * count). A view's draw_footer. */
#define UI_BUILDS_FOOTER_LINES 4
int ui_builds_draw_footer(struct ui_builds *b, struct ui_view *v, WINDOW *w,
			  int y, int width);

/* How every screen shows one build's outcome. */
/* Whether it has ended (finished or cancelled). */
int ui_build_final(const struct lc_build *b);
/* Its state as a person reads it: "queued" for the API's "triggered" (a
 * build waiting for a worker), with its place ("queued #2") when q knows
 * it (q may be NULL); buf holds the text when needed. */
const char *ui_build_state(const struct lc_build *b, const struct lc_queue *q,
			   char *buf, size_t size);
/* "passed" or "failed" once it has ended; "" while it runs (the API's
 * `success` is provisional until then). */
const char *ui_build_result(const struct lc_build *b);
/* How it started, in a word: "hand" (a Lectern leaves triggered_by out),
 * the forge of a webhook ("github", "gitlab", "bitbucket", "generic"),
 * "commit" (the engine's commit watch); "-" on the hosted service, which
 * never says. */
const char *ui_build_trigger(const struct lc_build *b,
			     const struct ui_app *app);
/* The slot for its result: state-ok, state-fail, or state-running. */
enum ui_slot ui_build_slot(const struct lc_build *b);
/* Its fetch or checkout progress as one line ("receiving 40%, 1200/3000
 * objects, 2.1 MiB"), or 0 when it has none. */
int ui_build_progress(const struct lc_build *b, char *out, size_t size);

#endif
