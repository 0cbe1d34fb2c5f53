/*
 * A site's pages, as a reader found them in the page's navigation (the
 * sidebar or nav the reader's layout strips): so a reader can walk a
 * whole site offline, whether or not a page links to the others in its
 * text. Enter reads the selected page in place of this list; `/`
 * filters it.
 */
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../table.h"

struct pages {
	struct ui_table table; /* row key: the page's absolute URL */
};

static const struct ui_column columns[] = {
	{ "Page", 40 }, { "Address", 0 },
};

static void pages_close(struct ui_view *v)
{
	struct pages *ps = v->priv;

	ui_table_dispose(&ps->table);
	free(ps);
}

static int pages_header(struct ui_view *v, WINDOW *w, int width)
{
	struct pages *ps = v->priv;

	ui_table_draw_header(&ps->table, w, 0, width);
	return 1;
}

static void pages_row(struct ui_view *v, WINDOW *w, int y, int width,
		      size_t n, int selected)
{
	struct pages *ps = v->priv;

	ui_table_draw_row(&ps->table, w, y, width, n, selected);
}

static int pages_action(struct ui_view *v, enum ui_action action)
{
	struct pages *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);
	char *url, *hash;

	if (action != UI_ACTION_OPEN)
		return UI_PASS;
	if (row == NULL)
		return UI_HANDLED;
	url = ui_xstrdup(row->key);
	if ((hash = strchr(url, '#')) != NULL)
		*hash++ = '\0';
	ui_app_replace(v->app, v, ui_reader_new(v->app, url, hash));
	free(url);
	return UI_HANDLED;
}

static void pages_filter(struct ui_view *v, const char *text)
{
	struct pages *ps = v->priv;

	ui_table_filter(&ps->table, text);
	v->lines = ps->table.nshown;
}

static const struct ui_view_ops pages_ops = {
	.name = "pages",
	.kind = UI_VIEW_PAGES,
	.close = pages_close,
	.draw_header = pages_header,
	.draw_row = pages_row,
	.on_action = pages_action,
	.filter = pages_filter,
};

struct ui_view *ui_pages_new(struct ui_app *app, const char *site,
			     char *const *titles, char *const *urls, size_t n,
			     size_t current)
{
	struct pages *ps = ui_xcalloc(1, sizeof(*ps));
	struct ui_view *v;
	struct ui_row *row;
	char *title = ui_xasprintf("Pages: %s", site);
	size_t i;

	ui_table_init(&ps->table, columns, sizeof(columns) / sizeof(columns[0]));
	for (i = 0; i < n; i++) {
		row = ui_table_add(&ps->table);
		row->key = ui_xstrdup(urls[i]);
		ui_row_set(row, 0, i == current ? UI_SLOT_HEADING : UI_SLOT_NORMAL,
			   "%s", titles[i]);
		ui_row_set(row, 1, UI_SLOT_DIM, "%s", urls[i]);
	}
	ui_table_filter(&ps->table, NULL);
	v = ui_view_new(app, &pages_ops, title, ps);
	v->lines = ps->table.nshown;
	ui_view_goto(v, current < n ? current : 0);
	free(title);
	return v;
}
