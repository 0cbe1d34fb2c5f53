/*
 * Warnings' rows and what opening one does (see warnings.h), and the
 * preview's warnings screen, a plain list of them. A row reads
 * "+ kind     file:line  message": the mark says new since the last good
 * build (the build before, in a preview), the message's first line only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../draw.h"
#include "../theme.h"
#include "client.h"
#include "edit.h"
#include "warnings.h"

/* Columns of the kind ("critical" is the longest) and of file:line
 * before the message takes the rest. */
#define KIND_WIDTH 9
#define WHERE_WIDTH 28

static long long count_of(const cJSON *o, const char *key)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(n) ? (long long)n->valuedouble : 0;
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
	const struct lc_warning *r = w->items[n];
	char *where, *first;
	int x = 0;

	ui_draw_fill(win, y, 0, width,
		     ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL));
	x += ui_draw_text(win, y, x, width - x, r->is_new == 1 ? "+ " : "  ",
			  ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_MATCH));
	ui_draw_text(win, y, x, width - x, r->kind,
		     ui_attr(selected ? UI_SLOT_CURSOR : kind_slot(r->kind)));
	x += KIND_WIDTH;
	if (*r->file && r->line > 0)
		where = ui_xasprintf("%s:%lld", r->file, r->line);
	else
		where = ui_xstrdup(r->file);
	if (x < width)
		ui_draw_text(win, y, x, width - x < WHERE_WIDTH ? width - x
								: WHERE_WIDTH,
			     where, ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_DIM));
	x += WHERE_WIDTH + 1;
	first = ui_xstrndup(r->message, strcspn(r->message, "\n"));
	if (x < width)
		ui_draw_text(win, y, x, width - x, first,
			     ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL));
	free(first);
	free(where);
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
	const struct lc_warning *r;
	char *url, *first;

	if (n >= w->len)
		return;
	r = w->items[n];
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
	/* A generator's: where it is, to open in an editor. */
	first = ui_xstrndup(r->message, strcspn(r->message, "\n"));
	if (*r->file && r->line > 0)
		ui_app_message(v->app, "%s:%lld: %s", r->file, r->line, first);
	else if (*r->file)
		ui_app_message(v->app, "%s: %s", r->file, first);
	else
		ui_app_message(v->app, "%s", first);
	free(first);
}

void ui_warnings_redirect(const struct ui_warnings *w, struct ui_view *v,
			  const char *project, size_t n)
{
	const struct lc_warning *r;
	cJSON *redirect;
	char *from;
	size_t len;

	if (n >= w->len || !is_removed_page(w->items[n])) {
		ui_app_error(v->app, "select a removed page to redirect it");
		return;
	}
	r = w->items[n];
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

static int list_action(struct ui_view *v, enum ui_action action)
{
	if (action != UI_ACTION_OPEN)
		return UI_PASS;
	ui_warnings_open(v->priv, v, v->cursor);
	return UI_HANDLED;
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
	.on_action = list_action,
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
	v = ui_view_new(app, &list_ops, title, copy);
	v->lines = copy->len;
	return v;
}
