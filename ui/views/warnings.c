/*
 * Warnings' rows and what opening one does (see warnings.h), and the
 * preview's warnings screen, a plain list of them. A row reads
 * "+ kind     file:line  message": the mark says new since the last good
 * build (the build before, in a preview), the message's first line only;
 * the selected one's whole message goes under the list when its row cuts
 * it, and Enter shows all of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../draw.h"
#include "../notice.h"
#include "../theme.h"
#include "client.h"
#include "edit.h"
#include "warnings.h"

/* Columns of the kind ("critical" is the longest), and at most of
 * file:line before the message takes the rest: a source path under
 * docs/ and a line number fit, and at 80 columns the message keeps 40. */
#define KIND_WIDTH 9
#define WHERE_WIDTH 28
/* Lines of the selected warning's message under the list, at most (the
 * view's footer takes a third of the screen at most, too). */
#define FOOTER_LINES 6

static long long count_of(const cJSON *o, const char *key)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(n) ? (long long)n->valuedouble : 0;
}

/* Where a record is: "file:line", "file", or "" (owned). */
static char *where_of(const struct lc_warning *r)
{
	if (*r->file && r->line > 0)
		return ui_xasprintf("%s:%lld", r->file, r->line);
	return ui_xstrdup(r->file);
}

/* The records' file:line column: as wide as the longest, up to the cap,
 * none at all when no record names a file (a preview's own notes, a
 * generator that gives no places). */
static void measure(struct ui_warnings *w)
{
	size_t i;
	char *where;
	int cols;

	w->where_width = 0;
	for (i = 0; i < w->len; i++) {
		where = where_of(w->items[i]);
		if ((cols = ui_text_width(where)) > w->where_width)
			w->where_width = cols < WHERE_WIDTH ? cols : WHERE_WIDTH;
		free(where);
	}
}

static int record_matches(const struct lc_warning *r, const char *text)
{
	char *where = where_of(r);
	int hit = ui_contains_nocase(r->kind, text) ||
		  ui_contains_nocase(where, text) ||
		  ui_contains_nocase(r->message, text);

	free(where);
	return hit;
}

void ui_warnings_filter(struct ui_warnings *w, const char *text)
{
	size_t i;

	if (text != w->filter)
		ui_set_str(&w->filter, text && *text ? text : NULL);
	free(w->shown);
	w->shown = ui_xcalloc(w->len ? w->len : 1, sizeof(*w->shown));
	w->nshown = 0;
	for (i = 0; i < w->len; i++)
		if (w->filter == NULL || record_matches(w->items[i], w->filter))
			w->shown[w->nshown++] = i;
}

/* The record on row n, or NULL. */
static const struct lc_warning *row_record(const struct ui_warnings *w,
					   size_t n)
{
	return n < w->nshown ? w->items[w->shown[n]] : NULL;
}

void ui_warnings_set_records(struct ui_warnings *w, const cJSON *records)
{
	const cJSON *item;
	size_t i;

	for (i = 0; i < w->len; i++)
		lc_warning_free(w->items[i]);
	w->len = 0;
	cJSON_ArrayForEach(item, records)
	{
		struct lc_warning *one;
		struct lc_error err;

		if (lc_warning_parse(item, &one, &err) != LC_OK)
			continue;
		w->items = ui_xrealloc(w->items, (w->len + 1) * sizeof(*w->items));
		w->items[w->len++] = one;
	}
	measure(w);
	ui_warnings_filter(w, w->filter);
}

void ui_warnings_set_counts(struct ui_warnings *w, const cJSON *counts)
{
	w->count = cJSON_IsObject(counts) ? count_of(counts, "count") : -1;
	w->new_count = count_of(counts, "new");
	w->fixed = count_of(counts, "fixed");
	w->dropped = count_of(counts, "dropped");
}

void ui_warnings_dispose(struct ui_warnings *w)
{
	size_t i;

	for (i = 0; i < w->len; i++)
		lc_warning_free(w->items[i]);
	free(w->items);
	free(w->docs);
	free(w->filter);
	free(w->shown);
	memset(w, 0, sizeof(*w));
	w->count = -1;
}

void ui_warnings_summary(const struct ui_warnings *w, int fixed, char *out,
			 size_t size)
{
	size_t n;

	out[0] = '\0';
	if (w->count < 0)
		return;
	if (w->count == 0)
		snprintf(out, size, "no warnings");
	else
		snprintf(out, size, "%lld warning%s", w->count,
			 w->count == 1 ? "" : "s");
	n = strlen(out);
	if (w->new_count && n < size)
		n += (size_t)snprintf(out + n, size - n, ", %lld new",
				      w->new_count);
	if (fixed && w->fixed && n < size)
		snprintf(out + n, size - n, ", %lld fixed", w->fixed);
}

static enum ui_slot kind_slot(const char *kind)
{
	if (strcmp(kind, "error") == 0 || strcmp(kind, "critical") == 0 ||
	    strcmp(kind, "link") == 0)
		return UI_SLOT_STATE_FAIL;
	if (strcmp(kind, "removed") == 0)
		return UI_SLOT_STATE_RUNNING;
	return UI_SLOT_NORMAL;
}

void ui_warnings_draw_row(const struct ui_warnings *w, WINDOW *win, int y,
			  int width, size_t n, int selected)
{
	const struct lc_warning *r = row_record(w, n);
	char *where, *first;
	int x = 0;

	if (r == NULL)
		return;
	ui_draw_fill(win, y, 0, width,
		     ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL));
	x += ui_draw_text(win, y, x, width - x, r->is_new == 1 ? "+ " : "  ",
			  ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_MATCH));
	ui_draw_match(win, y, x, width - x, r->kind,
		      ui_attr(selected ? UI_SLOT_CURSOR : kind_slot(r->kind)),
		      w->filter, ui_attr(UI_SLOT_MATCH));
	x += KIND_WIDTH;
	if (w->where_width > 0) {
		where = where_of(r);
		if (x < width)
			ui_draw_match(win, y, x,
				      width - x < w->where_width ? width - x
								 : w->where_width,
				      where,
				      ui_attr(selected ? UI_SLOT_CURSOR
						       : UI_SLOT_DIM),
				      w->filter, ui_attr(UI_SLOT_MATCH));
		x += w->where_width + 2;
		free(where);
	}
	first = ui_xstrndup(r->message, strcspn(r->message, "\n"));
	if (x < width)
		ui_draw_match(win, y, x, width - x, first,
			      ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL),
			      w->filter, ui_attr(UI_SLOT_MATCH));
	free(first);
}

/* The columns the message has on a row at width. */
static int message_room(const struct ui_warnings *w, int width)
{
	return width - 2 - KIND_WIDTH -
	       (w->where_width > 0 ? w->where_width + 2 : 0);
}

/* The whole record as the footer and Enter show it, as the CLI prints
 * it ("file:line: kind: message", further lines indented); owned. */
static char *whole_text(const struct lc_warning *r)
{
	char *text = lc_warning_format(r);

	if (text == NULL)
		ui_die("out of memory");
	return text;
}

int ui_warnings_draw_footer(const struct ui_warnings *w, WINDOW *win, int y,
			    int width, size_t n)
{
	const struct lc_warning *r = row_record(w, n);
	const char *p, *nl;
	char *text, *line;
	int lines = 0, used;

	if (r == NULL || (strchr(r->message, '\n') == NULL &&
			  ui_text_width(r->message) <= message_room(w, width)))
		return 0;
	text = whole_text(r);
	if (win)
		ui_draw_hline(win, y, 0, width, ui_attr(UI_SLOT_BORDER));
	for (p = text; *p && lines < FOOTER_LINES; p = nl + (*nl != '\0')) {
		nl = strchrnul(p, '\n');
		line = ui_xstrndup(p, (size_t)(nl - p));
		used = ui_draw_wrapped(win, win ? y + 1 + lines : 0, 0, width,
				       FOOTER_LINES - lines, line,
				       ui_attr(UI_SLOT_DIM));
		lines += used > 0 ? used : 1;
		free(line);
	}
	free(text);
	return 1 + lines;
}

/* The URL of a page path under docs, its unsafe bytes %XX-encoded. */
static char *page_url(const char *docs, const char *page)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(docs), i = 0;
	char *out = ui_xcalloc(1, n + 3 * strlen(page) + 2);
	const unsigned char *p;

	memcpy(out, docs, n);
	i = n;
	if (n == 0 || out[n - 1] != '/')
		out[i++] = '/';
	for (p = (const unsigned char *)page; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
			out[i++] = (char)*p;
		} else {
			out[i++] = '%';
			out[i++] = hex[*p >> 4];
			out[i++] = hex[*p & 15];
		}
	}
	out[i] = '\0';
	return out;
}

static int is_removed_page(const struct lc_warning *r)
{
	return strcmp(r->kind, "removed") == 0 &&
	       strncmp(r->message, "removed page ", 13) == 0;
}

void ui_warnings_open(const struct ui_warnings *w, struct ui_view *v, size_t n)
{
	const struct lc_warning *r = row_record(w, n);
	char *url, *text;

	if (r == NULL)
		return;
	if (is_removed_page(r)) {
		ui_app_message(v->app, "%s is gone: `a` adds a redirect for it",
			       r->file);
		return;
	}
	/* A page's record: the page, in the reader. */
	if ((strcmp(r->kind, "link") == 0 || strcmp(r->kind, "removed") == 0) &&
	    *r->file && w->docs) {
		url = page_url(w->docs, r->file);
		ui_app_push(v->app, v->app->screens->reader(v->app, url, NULL));
		free(url);
		return;
	}
	/* A generator's: all of it (a cause is often on a later line),
	 * with where it is, to open in an editor. */
	text = whole_text(r);
	ui_notice_open(v->app, "Warning", text);
	free(text);
}

void ui_warnings_redirect(const struct ui_warnings *w, struct ui_view *v,
			  const char *project, size_t n)
{
	const struct lc_warning *r;
	cJSON *redirect;
	char *from;
	size_t len;

	if ((r = row_record(w, n)) == NULL || !is_removed_page(r)) {
		ui_app_error(v->app, "select a removed page to redirect it");
		return;
	}
	/* A page redirect from the page's URL path (a directory's index as
	 * the directory), to the top until the writer says where it went. */
	len = strlen(r->file);
	if (len >= 10 && strcmp(r->file + len - 10, "index.html") == 0)
		len -= 10;
	from = ui_xasprintf("/%.*s", (int)len, r->file);
	redirect = cJSON_CreateObject();
	cJSON_AddStringToObject(redirect, "type", "page");
	cJSON_AddStringToObject(redirect, "from_url", from);
	cJSON_AddStringToObject(redirect, "to_url", "/");
	cJSON_AddStringToObject(redirect, "description",
				"a page the last good build published");
	ui_edit_redirect(v, project, redirect);
	cJSON_Delete(redirect);
	free(from);
}

/* The preview's warnings screen ---------------------------------------------- */

static int list_header(struct ui_view *v, WINDOW *win, int width)
{
	struct ui_warnings *w = v->priv;
	char summary[96];
	char *text;

	ui_warnings_summary(w, 1, summary, sizeof(summary));
	text = ui_xasprintf("Warnings of the preview: %s", summary);
	ui_draw_fill(win, 0, 0, width, ui_attr(UI_SLOT_HEADER));
	ui_draw_text(win, 0, 0, width, text, ui_attr(UI_SLOT_HEADER));
	free(text);
	return 1;
}

static void list_row(struct ui_view *v, WINDOW *win, int y, int width,
		     size_t n, int selected)
{
	ui_warnings_draw_row(v->priv, win, y, width, n, selected);
}

static int list_footer(struct ui_view *v, WINDOW *win, int y, int width)
{
	return ui_warnings_draw_footer(v->priv, win, y, width, v->cursor);
}

static int list_action(struct ui_view *v, enum ui_action action)
{
	if (action != UI_ACTION_OPEN)
		return UI_PASS;
	ui_warnings_open(v->priv, v, v->cursor);
	return UI_HANDLED;
}

static void list_filter(struct ui_view *v, const char *text)
{
	struct ui_warnings *w = v->priv;

	ui_warnings_filter(w, text);
	v->lines = w->nshown;
}

static void list_close(struct ui_view *v)
{
	ui_warnings_dispose(v->priv);
	free(v->priv);
}

static const struct ui_view_ops list_ops = {
	.name = "warnings",
	.kind = UI_VIEW_WARNINGS,
	.close = list_close,
	.draw_header = list_header,
	.draw_row = list_row,
	.draw_footer = list_footer,
	.on_action = list_action,
	.filter = list_filter,
};

struct ui_view *ui_warnings_new(struct ui_app *app, const char *title,
				const struct ui_warnings *w)
{
	struct ui_warnings *copy = ui_xcalloc(1, sizeof(*copy));
	struct ui_view *v;
	size_t i;

	*copy = *w;
	copy->items = NULL;
	copy->len = 0;
	copy->filter = NULL;
	copy->shown = NULL;
	copy->docs = w->docs ? ui_xstrdup(w->docs) : NULL;
	for (i = 0; i < w->len; i++) {
		struct lc_warning *one;
		struct lc_error err;

		if (lc_warning_parse(w->items[i]->raw, &one, &err) != LC_OK)
			continue;
		copy->items = ui_xrealloc(copy->items,
					  (copy->len + 1) * sizeof(*copy->items));
		copy->items[copy->len++] = one;
	}
	measure(copy);
	ui_warnings_filter(copy, NULL);
	v = ui_view_new(app, &list_ops, title, copy);
	v->lines = copy->nshown;
	return v;
}
