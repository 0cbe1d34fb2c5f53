/*
 * The `?` screen: the keys of the screen it was opened from, generated
 * from the action table and the keymaps (overrides included), so it
 * always tells the truth about the bindings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "keys.h"
#include "table.h"

/* Keys listed per action; more are rare and would not fit the column. */
#define MAX_KEYS_SHOWN 4

struct help {
	struct ui_table table;
};

static const struct ui_column columns[] = {
	{ "Keys", 22 }, { "Action", 16 }, { "Description", 0 },
};

static void fill(struct help *h, unsigned kind)
{
	int keys[MAX_KEYS_SHOWN];
	char name[UI_KEY_NAME_MAX];
	struct ui_buf text = UI_BUF_INIT;
	const struct ui_action_info *info;
	struct ui_row *row;
	size_t n, i;
	int a;

	for (a = 1; a < UI_ACTION_COUNT; a++) {
		info = ui_action_info((enum ui_action)a);
		n = ui_keys_of(kind, (enum ui_action)a, keys, MAX_KEYS_SHOWN);
		if (n == 0)
			continue;
		for (i = 0; i < n && i < MAX_KEYS_SHOWN; i++) {
			ui_key_format(keys[i], name, sizeof(name));
			ui_buf_printf(&text, "%s%s", i ? " " : "", name);
		}
		row = ui_table_add(&h->table);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", text.ptr);
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", info->name);
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s", info->help);
		ui_buf_dispose(&text);
	}
	ui_table_filter(&h->table, NULL);
}

static void help_close(struct ui_view *v)
{
	struct help *h = v->priv;

	ui_table_dispose(&h->table);
	free(h);
}

static int help_header(struct ui_view *v, WINDOW *w, int width)
{
	struct help *h = v->priv;

	ui_table_draw_header(&h->table, w, 0, width);
	return 1;
}

static void help_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		     int selected)
{
	struct help *h = v->priv;

	ui_table_draw_row(&h->table, w, y, width, n, selected);
}

static void help_filter(struct ui_view *v, const char *text)
{
	struct help *h = v->priv;

	ui_table_filter(&h->table, text);
	v->lines = h->table.nshown;
}

static const struct ui_view_ops help_ops = {
	.name = "help",
	.kind = UI_VIEW_HELP,
	.close = help_close,
	.draw_header = help_header,
	.draw_row = help_row,
	.filter = help_filter,
};

struct ui_view *ui_help_new(struct ui_app *app, unsigned kind,
			    const char *name)
{
	struct help *h = ui_xcalloc(1, sizeof(*h));
	char title[64];
	struct ui_view *v;

	ui_table_init(&h->table, columns, sizeof(columns) / sizeof(columns[0]));
	fill(h, kind);
	snprintf(title, sizeof(title), "Help: %s", name);
	v = ui_view_new(app, &help_ops, title, h);
	v->lines = h->table.nshown;
	return v;
}
