/*
 * What every view shares (see view.h): creation and teardown, the generic
 * list navigation that runs when a view passes on an action, and drawing
 * the visible rows.
 */
#include <stdlib.h>

#include "draw.h"
#include "theme.h"
#include "util.h"
#include "view.h"

struct ui_view *ui_view_new(struct ui_app *app, const struct ui_view_ops *ops,
			    const char *title, void *priv)
{
	struct ui_view *v = ui_xcalloc(1, sizeof(*v));

	v->ops = ops;
	v->app = app;
	v->title = ui_xstrdup(title);
	v->priv = priv;
	return v;
}

void ui_view_free(struct ui_view *v)
{
	if (v == NULL)
		return;
	if (v->ops->close)
		v->ops->close(v);
	free(v->title);
	free(v->filter);
	free(v);
}

void ui_view_clamp(struct ui_view *v)
{
	size_t page = v->height > 0 ? (size_t)v->height : 1;

	if (v->lines == 0) {
		v->cursor = v->top = 0;
		return;
	}
	if (v->cursor >= v->lines)
		v->cursor = v->lines - 1;
	if (v->top > v->cursor)
		v->top = v->cursor;
	if (v->cursor >= v->top + page)
		v->top = v->cursor - page + 1;
	/* No empty space below the last row while rows are above the top. */
	if (v->top + page > v->lines)
		v->top = v->lines > page ? v->lines - page : 0;
}

void ui_view_goto(struct ui_view *v, size_t n)
{
	v->cursor = n;
	ui_view_clamp(v);
}

int ui_view_offers(const struct ui_view *v, enum ui_action action)
{
	const struct ui_view_ops *ops = v->ops;

	switch (action) {
	case UI_ACTION_FILTER:
		return ops->filter != NULL;
	case UI_ACTION_REFRESH:
		return ops->open != NULL;
	case UI_ACTION_OPEN:
		return ops->on_action != NULL;
	case UI_ACTION_HELP:
		return ops->kind != UI_VIEW_HELP;
	case UI_ACTION_NOTIFICATIONS:
		return ops->kind != UI_VIEW_NOTIFICATIONS;
	default:
		return ops->offers == NULL || ops->offers(v, action);
	}
}

int ui_view_navigate(struct ui_view *v, enum ui_action action)
{
	size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;

	switch (action) {
	case UI_ACTION_UP:
		ui_view_goto(v, v->cursor ? v->cursor - 1 : 0);
		break;
	case UI_ACTION_DOWN:
		ui_view_goto(v, v->cursor + 1);
		break;
	case UI_ACTION_PAGE_UP:
		v->top = v->top > page ? v->top - page : 0;
		ui_view_goto(v, v->cursor > page ? v->cursor - page : 0);
		break;
	case UI_ACTION_PAGE_DOWN:
		v->top += page;
		ui_view_goto(v, v->cursor + page);
		break;
	case UI_ACTION_FIRST:
		ui_view_goto(v, 0);
		break;
	case UI_ACTION_LAST:
		ui_view_goto(v, v->lines ? v->lines - 1 : 0);
		break;
	default:
		return UI_PASS;
	}
	return UI_HANDLED;
}

void ui_view_set_filter(struct ui_view *v, const char *text)
{
	if (v->ops->filter == NULL)
		return;
	/* Before the op: a screen may keep another text (the search keeps
	 * its last query when the prompt is emptied). */
	ui_set_str(&v->filter, text && *text ? text : NULL);
	v->ops->filter(v, v->filter);
	ui_view_clamp(v);
}

/* A filter that keeps nothing: said where the rows would be, so an empty
 * list never reads as an empty instance. */
static void draw_no_match(struct ui_view *v, WINDOW *w, int y, int width)
{
	char *text = ui_xasprintf("Nothing matches \"%s\" (Esc clears the "
				  "filter)", v->filter);

	ui_draw_text(w, y, 1, width - 1, text, ui_attr(UI_SLOT_DIM));
	free(text);
}

void ui_view_draw(struct ui_view *v, WINDOW *w)
{
	int width = getmaxx(w), rows = getmaxy(w), y, head = 0, foot = 0;
	size_t n;

	werase(w);
	if (v->ops->draw_header)
		head = v->ops->draw_header(v, w, width);
	/* The footer never takes more than a third of the rows. */
	if (v->ops->draw_footer &&
	    (foot = v->ops->draw_footer(v, NULL, 0, width)) > (rows - head) / 3)
		foot = (rows - head) / 3;
	v->head = head;
	v->height = rows - head - foot > 0 ? rows - head - foot : 1;
	ui_view_clamp(v);
	if (v->lines == 0 && v->filter && !v->ops->keeps_filter &&
	    head + 1 < rows)
		draw_no_match(v, w, head + 1, width);
	for (y = head; y < rows - foot; y++) {
		n = v->top + (size_t)(y - head);
		if (n >= v->lines)
			break;
		v->ops->draw_row(v, w, y, width, n, n == v->cursor);
	}
	if (foot > 0)
		v->ops->draw_footer(v, w, rows - foot, width);
	wnoutrefresh(w);
}
