/*
 * A build's or a preview's warnings in the TUI (Lectern's): the records
 * of GET .../builds/<id>/warnings/ or of a preview's status, drawn one
 * per row (new ones marked), and what Enter and `a` do with one: a page's
 * record (a broken link, a removed anchor) opens the page in the reader,
 * a generator's shows its file:line and message, and a removed page opens
 * the redirect form filled in from it. The build screen's Warnings tab
 * and the preview's warnings screen are both these rows.
 */
#ifndef LECTERN_UI_VIEWS_WARNINGS_H
#define LECTERN_UI_VIEWS_WARNINGS_H

#include <curses.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct ui_app;
struct ui_view;
struct lc_warning;

struct ui_warnings {
	struct lc_warning **items; /* owned */
	size_t len;
	/* The `/` filter and the records it keeps (indexes into items, in
	 * order): rows are these. */
	char *filter;              /* owned, or NULL */
	size_t *shown;
	size_t nshown;
	/* Columns of the file:line column: the longest record's, up to a
	 * cap; 0 when no record names a file. */
	int where_width;
	/* The totals: count -1 while not known (the hosted service, or
	 * before the build has ended). */
	long long count, new_count, fixed, dropped;
	char *docs; /* the URL the records' pages are under, or NULL */
};

/* Take the records of a JSON array (the list's results, the status's
 * warnings); invalid items are skipped. The filter stays. */
void ui_warnings_set_records(struct ui_warnings *w, const cJSON *records);
/* Keep the records any of whose kind, file:line or message contains text
 * (case ignored); NULL or "": all of them. The rows are w->nshown. */
void ui_warnings_filter(struct ui_warnings *w, const char *text);
/* Take the totals of {"count", "new", "fixed", "dropped"} (a build's
 * "warnings", a status's "warning_counts"); NULL or not an object: not
 * known. */
void ui_warnings_set_counts(struct ui_warnings *w, const cJSON *counts);
void ui_warnings_dispose(struct ui_warnings *w);
/* "3 warnings, 1 new" (and ", 2 fixed" with fixed), "no warnings", or ""
 * when not known. */
void ui_warnings_summary(const struct ui_warnings *w, int fixed, char *out,
			 size_t size);
/* Row n at line y: "+ kind  file:line  message", the message's first
 * line. */
void ui_warnings_draw_row(const struct ui_warnings *w, WINDOW *win, int y,
			  int width, size_t n, int selected);
/* Under the rows, row n's whole message when its row cuts it (a second
 * line, or a first line too long): a rule, then the text wrapped; the
 * lines taken at width, 0 when the row shows it all (win NULL: only
 * count). A view's draw_footer. */
int ui_warnings_draw_footer(const struct ui_warnings *w, WINDOW *win, int y,
			    int width, size_t n);
/* Enter on row n, from view v: a page's record opens the page, any other
 * shows the whole warning (every line of it) until dismissed. */
void ui_warnings_open(const struct ui_warnings *w, struct ui_view *v,
		      size_t n);
/* `a` on row n: for a removed page, the redirect form of project from it
 * (the usual form, saved or not by the user); else says what it is for. */
void ui_warnings_redirect(const struct ui_warnings *w, struct ui_view *v,
			  const char *project, size_t n);

/* The preview's warnings screen: a copy of w's records and totals, pages
 * opening under its docs URL. */
struct ui_view *ui_warnings_new(struct ui_app *app, const char *title,
				const struct ui_warnings *w);

#endif
