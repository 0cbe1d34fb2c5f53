/*
 * A site's pages, as a reader found them in the page's navigation (the
 * sidebar or nav the reader's layout strips): so a reader can walk a
 * whole site offline, whether or not a page links to the others in its
 * text. Enter reads the selected page in place of this list; `/`
 * filters it. An address is shown from the site's root (the directory
 * the pages share, named above the list), so it fits at 80 columns; one
 * that is still cut is shown whole under the list when selected.
 */
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../draw.h"
#include "../table.h"

struct pages {
	struct ui_table table; /* row key: the page's absolute URL */
	char *root;            /* where the addresses are from; owned */
};

static const struct ui_column columns[] = {
	{ "Page", 34 }, { "Address", 0 },
};

/* Bytes of the directory all n urls share ("http://h/en/latest/"). */
static size_t common_root(char *const *urls, size_t n)
{
	size_t len, i, j;

	if (n == 0)
		return 0;
	len = strlen(urls[0]);
	for (i = 1; i < n; i++) {
		for (j = 0; j < len && urls[i][j] == urls[0][j]; j++)
			;
		len = j;
	}
	while (len > 0 && urls[0][len - 1] != '/')
		len--;
	return len;
}

static void pages_close(struct ui_view *v)
{
	struct pages *ps = v->priv;

	ui_table_dispose(&ps->table);
	free(ps->root);
	free(ps);
}

static int pages_header(struct ui_view *v, WINDOW *w, int width)
{
	struct pages *ps = v->priv;
	char *from = ui_xasprintf("Addresses from %s", ps->root);

	ui_draw_text(w, 0, 0, width, from, ui_attr(UI_SLOT_DIM));
	free(from);
	ui_table_draw_header(&ps->table, w, 1, width);
	return 2;
}

static void pages_row(struct ui_view *v, WINDOW *w, int y, int width,
		      size_t n, int selected)
{
	struct pages *ps = v->priv;

	ui_table_draw_row(&ps->table, w, y, width, n, selected);
}

/* The selected page's whole address when its column cuts it. */
static int pages_footer(struct ui_view *v, WINDOW *w, int y, int width)
{
	struct pages *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);
	int lines;

	if (row == NULL || row->cells[1] == NULL ||
	    ui_text_width(row->cells[1]) <=
		    ui_table_col_width(&ps->table, 1, width))
		return 0;
	lines = ui_draw_wrapped(NULL, 0, 0, width, 2, row->key, 0);
	if (w) {
		ui_draw_hline(w, y, 0, width, ui_attr(UI_SLOT_BORDER));
		ui_draw_wrapped(w, y + 1, 0, width, 2, row->key,
				ui_attr(UI_SLOT_DIM));
	}
	return 1 + lines;
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
	ui_app_replace(v->app, v, v->app->screens->reader(v->app, url, hash));
	free(url);
	return UI_HANDLED;
}

static void pages_filter(struct ui_view *v, const char *text)
{
	struct pages *ps = v->priv;

	ui_table_filter(&ps->table, text);
	v->lines = ps->table.nshown;
}

static const char *pages_site(const struct ui_view *v)
{
	const struct pages *ps = v->priv;

	return ps->root;
}

static const struct ui_view_ops pages_ops = {
	.name = "pages",
	.kind = UI_VIEW_PAGES,
	.close = pages_close,
	.draw_header = pages_header,
	.draw_row = pages_row,
	.draw_footer = pages_footer,
	.on_action = pages_action,
	.filter = pages_filter,
	.site = pages_site,
};

struct ui_view *ui_pages_new(struct ui_app *app, const char *site,
			     char *const *titles, char *const *urls, size_t n,
			     size_t current)
{
	struct pages *ps = ui_xcalloc(1, sizeof(*ps));
	struct ui_view *v;
	struct ui_row *row;
	size_t i, root = common_root(urls, n);
	char *title = ui_xasprintf("Pages: %s", site);

	ui_table_init(&ps->table, columns, sizeof(columns) / sizeof(columns[0]));
	ps->root = ui_xstrndup(n ? urls[0] : "", root);
	for (i = 0; i < n; i++) {
		row = ui_table_add(&ps->table);
		row->key = ui_xstrdup(urls[i]);
		ui_row_set(row, 0, i == current ? UI_SLOT_HEADING : UI_SLOT_NORMAL,
			   "%s", titles[i]);
		/* The root's own page is "./". */
		ui_row_set(row, 1, UI_SLOT_DIM, "%s",
			   urls[i][root] ? urls[i] + root : "./");
	}
	ui_table_filter(&ps->table, NULL);
	v = ui_view_new(app, &pages_ops, title, ps);
	v->lines = ps->table.nshown;
	ui_view_goto(v, current < n ? current : 0);
	free(title);
	return v;
}
