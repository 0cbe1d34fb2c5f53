/*
 * The application: the client, the view stack, the status line, the
 * prompt and the state of the main loop (loop.c) that never blocks on the
 * network. Views talk to the app through these calls (app.c); nothing
 * else in the TUI holds global state besides the keymaps and the theme.
 */
#ifndef LECTERN_UI_APP_H
#define LECTERN_UI_APP_H

#include <curses.h>
#include <stdint.h>
#include <time.h>

#include "activity.h"
#include "polling.h"
#include "prompt.h"
#include "ui.h"
#include "unread.h"
#include "util.h"
#include "view.h"

/* Screens open at once: projects > project > builds > build > help is
 * five; `:` commands push more. Past this the oldest is dropped. */
#define UI_MAX_VIEWS 16
/* Polling views refresh this often (the issue: states change on screen
 * within a second on the local engine). */
#define UI_TICK_MS 1000
/* The spinner's frame time while requests are in flight. */
#define UI_SPIN_MS 100
/* How long a message (not an error) stays in the status line unless the
 * config file's `set message-timeout` says otherwise: long enough to
 * read a sentence, short enough not to read as current later. */
#define UI_MESSAGE_MS 4000
/* After the local engine stopped answering, how soon the TUI looks for
 * it (or starts it) again, doubling up to the maximum while it fails. */
#define UI_RECONNECT_MS 2000
#define UI_RECONNECT_MAX_MS 60000
/* A status line message: a config or theme error plus its file name and
 * line fits. */
#define UI_MESSAGE_MAX 512
/* Lines one step of the mouse wheel scrolls (as most terminals' pagers). */
#define UI_WHEEL_LINES 3
/* The smallest screen drawn; below it the TUI says it is too small. */
#define UI_MIN_COLS 80
#define UI_MIN_LINES 24

struct lc_client;
struct lc_query;
struct ui_preview;
struct ui_request;
struct ui_warnings;

/* The screens, by what they show: how a view opens another, and the app
 * a view, so that no view calls another view's file nor the app a view's,
 * and the calls among the TUI's files run one way (docs/ARCHITECTURE.md).
 * ui_main fills it in with the views' constructors (view.h). Each returns
 * a new view, to push or to put in another's place. */
struct ui_screens {
	struct ui_view *(*projects)(struct ui_app *app);
	struct ui_view *(*project)(struct ui_app *app, const char *slug);
	struct ui_view *(*builds)(struct ui_app *app, const char *project);
	struct ui_view *(*build)(struct ui_app *app, const char *project,
				 long long id);
	struct ui_view *(*search)(struct ui_app *app, const char *project,
				  const char *version, const char *query);
	struct ui_view *(*reader)(struct ui_app *app, const char *url,
				  const char *anchor);
	struct ui_view *(*orgs)(struct ui_app *app);
	struct ui_view *(*pages)(struct ui_app *app, const char *site,
				 char *const *titles, char *const *urls,
				 size_t n, const char *page,
				 const char *index_root);
	struct ui_view *(*diff)(struct ui_app *app, const char *project,
				const char *base, const char *head,
				const char *version);
	struct ui_view *(*notifications)(struct ui_app *app);
	struct ui_view *(*contexts)(struct ui_app *app);
	struct ui_view *(*help)(struct ui_app *app, const struct ui_view *from);
	struct ui_view *(*warnings)(struct ui_app *app, const char *title,
				    const struct ui_warnings *w);
};

/* What the config file's `set` lines choose. */
struct ui_options {
	char *theme;       /* owned; NULL: --theme's or the default */
	long message_ms;   /* how long a message stays */
};

struct ui_app {
	struct ui_start *start;
	const struct ui_screens *screens; /* how screens open */
	struct ui_conn conn;           /* the current context */
	struct lc_client *client;
	struct ui_view *stack[UI_MAX_VIEWS];
	size_t depth;
	struct ui_request *requests;   /* in flight */
	struct ui_prompt prompt;
	char *saved_filter;            /* while `/` is typed: the screen's
					  filter before it, for Esc */
	char *config_report;           /* the config file's bad lines when
					  several, shown once the first
					  screen is up; NULL: none */
	char *status;                  /* the status line's message */
	int status_error;              /* errors stay until the next key */
	unsigned status_screen;        /* a message's screen (see screen) */
	int64_t status_until;          /* ui_now_ms() a message expires */
	unsigned screen;               /* changes whenever the top view does */
	struct ui_options options;
	int quit_asked;                /* `q` again quits past a live log */
	char **projects;               /* slugs, for :project completion */
	size_t projects_len;
	WINDOW *title_win, *body_win, *status_win;
	int too_small;
	int dirty;                     /* redraw before waiting again */
	int quit;
	unsigned spin;                 /* spinner frame */
	time_t now;                    /* wall clock at this loop turn */
	int64_t next_tick;             /* ui_now_ms() of the next tick */
	struct ui_preview *preview;    /* `:preview`'s child, or NULL */
	struct ui_poll_budget budget;  /* what background polls share, on
					  ui_now_ms()'s clock */
	int link_down;                 /* the last answer was no answer */
	int link_back;                 /* ... and then one came */
	int engine_stopped;            /* the local engine was stopped on
					  purpose: R starts it */
	int reload_asked;              /* R pressed, no answer since: the
					  user wants the engine */
	int64_t next_reconnect;        /* ui_now_ms() of the next look */
	long reconnect_ms;             /* the wait after a failed look */
	struct ui_unread unread;       /* the title bar's unread count */
	struct ui_activity activity;   /* a Lectern's build activity */
};

/* The view on top, or NULL. */
struct ui_view *ui_app_top(struct ui_app *app);
/* Open v on top of the stack (the app owns it from now on). */
void ui_app_push(struct ui_app *app, struct ui_view *v);
/* Close the top view; quits when it was the last. */
void ui_app_pop(struct ui_app *app);
/* Put n in v's place on the stack (v is closed), as a browser moves to
 * another page rather than opening one more; n on top when v is not
 * open. */
void ui_app_replace(struct ui_app *app, struct ui_view *v, struct ui_view *n);
/* Close the views ui_app_fail marked: after the loop turn, since the
 * marking view's callback is still running then. */
void ui_app_close_gone(struct ui_app *app);
/* Close every view (the app does not quit for it). */
void ui_app_pop_all(struct ui_app *app);

/* Show a message in the status line: it belongs to the screen on top and
 * goes after options.message_ms or when another screen comes on top. An
 * error (ui_app_error) stays, whatever the screen, until the next key. */
void ui_app_message(struct ui_app *app, const char *fmt, ...) UI_PRINTF(2, 3);
void ui_app_error(struct ui_app *app, const char *fmt, ...) UI_PRINTF(2, 3);
/* An error that leaves v with nothing to show (its project or build does
 * not exist, a 404): show it and close v after this loop turn, so the
 * screen the user came from stays. The first screen is never closed. */
void ui_app_fail(struct ui_app *app, struct ui_view *v, const char *fmt, ...)
	UI_PRINTF(3, 4);
/* Clear the message when it is old at now (ui_now_ms()) or its screen is
 * no longer on top. */
void ui_app_expire_status(struct ui_app *app, int64_t now);

/* GET path (an API path or absolute URL) for view v, with the query
 * parameters q (may be NULL; the client encodes them); its on_data gets
 * the answer with tag. etag (may be NULL) makes it conditional. Errors
 * submitting go to the status line. 0 or -1. */
int ui_app_get(struct ui_app *app, struct ui_view *v, int tag,
	       const char *path, const struct lc_query *q, const char *etag);
/* ui_app_get for a background poll: sent only when the poll budget
 * allows (see polling.h). 0 sent, 1 held back (ask again at a later
 * tick), -1 error. */
int ui_app_poll(struct ui_app *app, struct ui_view *v, int tag,
		const char *path, const struct lc_query *q, const char *etag);
/* Take one of the poll budget's requests for a poll the app or a view
 * sends itself; 0 when there is none left now. */
int ui_app_poll_allowed(struct ui_app *app);
/* Send a write (method: POST, PATCH, PUT, DELETE) for view v with the
 * JSON body (may be NULL); its on_data gets the answer with tag. With
 * done (may be NULL) the app reports the outcome itself first: done in
 * the status line on success, the server's message on error. 0 or -1. */
int ui_app_send(struct ui_app *app, struct ui_view *v, int tag,
		const char *method, const char *path, const char *body,
		const char *done);
/* What became of a request the app or a view made (err->code LC_OK, an
 * error, or no answer at all): the link's state, for finding the engine
 * again (loop.c). Every answer passes through it. */
void ui_app_answered(struct ui_app *app, const struct lc_error *err);
/* Non-zero when writes are allowed; otherwise says why (--readonly, or
 * the context's readonly setting) in the status line. */
int ui_app_can_write(struct ui_app *app);
/* Non-zero while v is open (views keep a parent pointer across a form). */
int ui_app_has_view(const struct ui_app *app, const struct ui_view *v);
/* Non-zero while a request of v with tag is in flight. */
int ui_app_pending(const struct ui_app *app, const struct ui_view *v, int tag);
/* Cancel every request of v (their answers are dropped). */
void ui_app_cancel(struct ui_app *app, struct ui_view *v);

/* Tick the top view again within ms at the latest (the preview's reader
 * polls faster than UI_TICK_MS); holds for the next tick only. */
void ui_app_tick_within(struct ui_app *app, long ms);
/* The running preview's URL ("http://127.0.0.1:PORT/"), or NULL. */
const char *ui_app_preview_url(const struct ui_app *app);

/* Replace the project slugs :project completes (owned from now on;
 * NULL, 0: none). */
void ui_app_set_projects(struct ui_app *app, char **slugs, size_t n);

/* A client for conn in *out; 0, or -1 with the error in the status line. */
int ui_app_connect(struct ui_app *app, const struct ui_conn *conn,
		   struct lc_client **out);
/* Quit, unless a screen shows something live (a running build's log) and
 * the user was not asked yet (asked): then ask once; the same request
 * again, or `Q`, quits. */
void ui_app_request_quit(struct ui_app *app, int asked);

/* The TUI config file (config.c): `set theme = NAME`, `set
 * message-timeout = MS` and `bind KEYMAP KEY ACTION` lines. opt->theme
 * gets the theme named (owned), unless already set. 0, or -1 with
 * "FILE:LINE: what" in err for each bad line, separated by newlines, as
 * many as fit (the rest of the file still applies). */
int ui_config_load(const char *path, struct ui_options *opt, char *err,
		   size_t errsize);
/* The config file's path (start's, the environment's or the XDG one);
 * owned, or NULL when there is none to look at. */
char *ui_config_path(const char *given);

#endif
