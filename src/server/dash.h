/*
 * The web dashboard (docs/dashboard.md): the pages behind every dashboard
 * URL the API emits (a project's urls.home, urls.builds and urls.versions,
 * a build's urls.build, a version's urls.dashboard.edit), server-rendered
 * HTML in the colours of the TUI's themes, read-only but for the form of
 * a project's Addons tab.
 *
 *   dash_theme.c  a theme file (themes/NAME.theme, compiled in) as CSS
 *   dash_html.c   writing HTML: escaping, the page frame, values
 *   dash.c        the routes, who is asking, and the pages
 *
 * dash.c calls the other two, which call no other dashboard file.
 */
#ifndef LECTERN_SRV_DASH_H
#define LECTERN_SRV_DASH_H

#include <stddef.h>
#include <stdint.h>

#include "handler.h"
#include "text.h"

/* A theme compiled in from themes/NAME.theme (cmake/EmbedThemes.cmake). */
struct srv_builtin_theme {
	const char *name;
	const char *text;
};
extern const struct srv_builtin_theme srv_builtin_themes[];
extern const size_t srv_builtin_theme_count;

/* dash_theme.c ---------------------------------------------------------- */

/* The name of a built-in theme (NULL or unknown: "default"), a static
 * string. */
const char *dash_theme_name(const char *requested);
/* The dashboard's stylesheet in the colours of the built-in theme name
 * (dash_theme_name's); owned by the caller (free), NULL when out of
 * memory. */
char *dash_theme_css(const char *name, size_t *len);

/* dash_html.c ----------------------------------------------------------- */

/* Text as HTML: & < > " ' escaped, control characters but tabs and line
 * breaks dropped, terminal colour sequences removed, invalid UTF-8 shown
 * as U+FFFD. */
void dash_text(struct srv_text *h, const char *s, size_t n);
void dash_esc(struct srv_text *h, const char *s);
/* A time (microseconds, UTC) as "2026-11-28 04:01:38 UTC"; "" for 0. */
void dash_time(struct srv_text *h, int64_t us);
/* Seconds as "42 s", "3 min 5 s"; "" when negative (not known). */
void dash_duration(struct srv_text *h, int64_t seconds);

/* What a page's frame shows. */
struct dash_frame {
	const char *title;        /* <title> and the heading */
	const char *project_name; /* NULL: no project tabs */
	const char *project_slug;
	const char *docs_url;     /* the Docs tab's link; NULL: none */
	const char *tab;          /* "overview", "builds", "versions" */
	const char *theme;        /* the built-in theme to link */
	const char *user;         /* who is asking; NULL: anonymous */
	const char *path;         /* this page's path, for the login link */
	int form;                 /* the page has a form that changes
				     something: not read-only */
};

/* Add the frame's theme, when not the default, to an address of the
 * dashboard (url, cap bytes), so the reader's choice follows the links. */
void dash_themed(const struct dash_frame *f, char *url, size_t cap);
/* The page's head, title bar, tabs and the start of <main>. */
void dash_page_begin(struct srv_text *h, const struct dash_frame *f);
/* A link (text: trusted HTML) to the login, which returns to path. */
void dash_login_link(struct srv_text *h, const char *path, const char *text);
/* The end of <main>, the status line and the document. */
void dash_page_end(struct srv_text *h, const struct dash_frame *f);

/* dash.c ---------------------------------------------------------------- */

/* The dashboard's routes (the router reads them as data). */
extern const struct srv_route srv_dash_routes[];
extern const size_t srv_dash_route_count;
/* Who asks for a dashboard page: "Authorization: Token <t>" or the docs
 * login's session cookie (the same for every host of this server), into
 * req->user; anonymous otherwise. Called by the router before the page is
 * rendered (or taken from the response cache, which is keyed by it). */
void srv_dash_authenticate(struct srv_request *req);

#endif
