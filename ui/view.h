/*
 * Views: one screen each (projects, a project, builds, a build, help),
 * as an ops struct in tig's manner. A view is a list of rows with a
 * cursor; the view gets first refusal on every action, then the generic
 * list navigation here handles it. Views load through the app's
 * asynchronous requests and are redrawn whole whenever anything changed.
 */
#ifndef LECTERN_UI_VIEW_H
#define LECTERN_UI_VIEW_H

#include <curses.h>
#include <stddef.h>

#include "action.h"

struct ui_app;
struct ui_view;
struct lc_response;
struct lc_error;

/* Columns one sideways scroll moves (the reader, a build's log). */
#define UI_HSCROLL_STEP 8

/* What on_action returns. */
enum { UI_PASS = 0, UI_HANDLED = 1 };

struct ui_view_ops {
	const char *name; /* the screen's name, for help */
	unsigned kind;    /* UI_VIEW_* bit: which keymap applies */
	/* Start loading (through ui_app_get). */
	void (*open)(struct ui_view *v);
	/* Free v->priv; the view's requests are already cancelled. */
	void (*close)(struct ui_view *v);
	/* Draw rows above the list (column headers, tabs) from the top of
	 * w; the number of rows used. */
	int (*draw_header)(struct ui_view *v, WINDOW *w, int width);
	/* Draw list row n at line y; selected: it is the cursor's. NULL
	 * for a view that never has rows (a form draws in its header). */
	void (*draw_row)(struct ui_view *v, WINDOW *w, int y, int width,
			 size_t n, int selected);
	/* Lines under the rows about the selected one (the whole of what
	 * its row cuts), drawn from line y of w; how many it takes at width
	 * (w NULL: only count them). NULL: none. */
	int (*draw_footer)(struct ui_view *v, WINDOW *w, int y, int width);
	/* First refusal on an action: UI_HANDLED or UI_PASS. */
	int (*on_action)(struct ui_view *v, enum ui_action action);
	/* One of the view's requests (tag: which) was answered; resp is
	 * NULL on transport errors, err->code LC_OK on success. NULL: the
	 * view makes no requests. */
	void (*on_data)(struct ui_view *v, int tag, struct lc_response *resp,
			const struct lc_error *err);
	/* It is on top again: the screen above it went back. What it shows
	 * may have changed meanwhile (a build triggered there); NULL:
	 * nothing to do. */
	void (*reveal)(struct ui_view *v);
	/* About once a second while the view is on top (polling); NULL: none. */
	void (*tick)(struct ui_view *v);
	/* The `/` text changed (NULL: cleared): refilter, set v->lines. */
	void (*filter)(struct ui_view *v, const char *text);
	/* The project in focus (`:search` searches it), or NULL; NULL op:
	 * none. */
	const char *(*project)(struct ui_view *v);
	/* A key no keymap binds (the reader's link numbers); NULL: none. */
	void (*on_key)(struct ui_view *v, int key);
	/* The URL of what it shows (a page, a site's pages), so screens of
	 * a server that goes away can go with it; NULL: none. */
	const char *(*site)(const struct ui_view *v);
	/* Non-zero while it shows something live the user may be watching
	 * (a running build's log): quitting asks once. NULL: never. */
	int (*live)(struct ui_view *v);
	/* Whether one of the screen's own actions does something here and
	 * now (the demo only on an empty local engine); NULL: all do. The
	 * help screen lists only those. */
	int (*offers)(const struct ui_view *v, enum ui_action action);
	/* Non-zero: every key goes to on_key, no keymap applies (forms and
	 * dialogs, where `q` or `j` is typed text). */
	int grab_keys;
	/* Non-zero: the `/` text is what the screen is about (the search
	 * query), not a filter Esc clears before going back. */
	int keeps_filter;
};

struct ui_view {
	const struct ui_view_ops *ops;
	struct ui_app *app;
	char *title;   /* its part of the title bar's trail; owned */
	size_t lines;  /* rows in the list */
	size_t cursor; /* the selected row */
	size_t top;    /* the first row on screen */
	int height;    /* list rows on screen at the last draw */
	int head;      /* rows the header took at the last draw */
	int gone;      /* closed by the app after this loop turn */
	/* The `/` text the screen applies now (a filter, a find, the search
	 * query), or NULL: the status line shows it, `/` starts from it and
	 * Esc clears it first. The loop sets it with every filter call; a
	 * screen whose `/` means something else per tab sets it itself. */
	char *filter;  /* owned */
	void *priv;    /* the view's own state */
};

/* A new view of ops with its private state (owned by it from now on). */
struct ui_view *ui_view_new(struct ui_app *app, const struct ui_view_ops *ops,
			    const char *title, void *priv);
/* Close and free (NULL is a no-op); the app has cancelled its requests
 * (it frees the views it holds, app.c). */
void ui_view_free(struct ui_view *v);
/* Whether action does something on v's screen: the generic actions some
 * screens cannot do (`/` without a filter, reloading a screen that loads
 * nothing, help on help) are left out of its help. */
int ui_view_offers(const struct ui_view *v, enum ui_action action);
/* The generic list navigation: UI_HANDLED or UI_PASS. */
int ui_view_navigate(struct ui_view *v, enum ui_action action);
/* Put the cursor on row n (clamped) and scroll it into sight. */
void ui_view_goto(struct ui_view *v, size_t n);
/* Keep cursor and top valid after v->lines changed. */
void ui_view_clamp(struct ui_view *v);
/* Apply the `/` text (NULL or "": none) to v: v->filter and its filter
 * op, then keep the cursor valid. */
void ui_view_set_filter(struct ui_view *v, const char *text);
/* Draw the view's header and visible rows into w; a filter that keeps no
 * row says so under the header. */
void ui_view_draw(struct ui_view *v, WINDOW *w);

/* The screens (views/): their constructors, which ui_main puts in the
 * app's struct ui_screens; views open other screens through that. */
struct ui_view *ui_projects_new(struct ui_app *app);
struct ui_view *ui_project_new(struct ui_app *app, const char *slug);
/* A project's builds; project NULL: every project's (a Lectern's). */
struct ui_view *ui_builds_new(struct ui_app *app, const char *project);
struct ui_view *ui_build_new(struct ui_app *app, const char *project,
			     long long id);
/* Search project's version (NULL: latest) for query. */
struct ui_view *ui_search_new(struct ui_app *app, const char *project,
			      const char *version, const char *query);
/* The page at url (absolute), opened at element id anchor (may be NULL). */
struct ui_view *ui_reader_new(struct ui_app *app, const char *url,
			      const char *anchor);
/* The instance's organizations (business edition), each opening its
 * projects. */
struct ui_view *ui_orgs_new(struct ui_app *app);
/* A site's pages (titles[i] at the absolute urls[i], n of them, from a
 * page's navigation) for a reader on page (marked, the cursor on it);
 * index_root (may be NULL): the site's root URL, ending in '/', whose
 * search index lists its pages when the navigation is thin. */
struct ui_view *ui_pages_new(struct ui_app *app, const char *site,
			     char *const *titles, char *const *urls, size_t n,
			     const char *page, const char *index_root);
/* What changed between base and head (version slugs or "build:<id>") of
 * project's docs. base NULL: a build head is compared with the newest
 * passed build of version before it, a version head with the project's
 * default version. */
struct ui_view *ui_diff_new(struct ui_app *app, const char *project,
			    const char *base, const char *head,
			    const char *version);
/* The contexts the CLI knows, the current one marked; Enter switches. */
struct ui_view *ui_contexts_new(struct ui_app *app);
/* The user's notifications (the v3 feed), to read or dismiss. */
struct ui_view *ui_notifications_new(struct ui_app *app);
/* The keys of view from's screen that do something there. */
struct ui_view *ui_help_new(struct ui_app *app, const struct ui_view *from);

#endif
