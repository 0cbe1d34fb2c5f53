/*
 * The contexts (`:context` alone, as k9s' `:ctx`): every context the CLI
 * knows, what each talks to (the local engine, a URL, an ssh host) and
 * which one is current; Enter switches to the selected one, as `:context
 * NAME` does, and `/` filters. The list is the one the CLI handed over at
 * start (ui_start.contexts), so it asks nothing of the network.
 */
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../context.h"
#include "../table.h"

struct contexts {
	struct ui_table table; /* row key: the context's name */
};

static const struct ui_column columns[] = {
	{ "Context", 20 }, { "Talks to", 0 }, { "", 8 },
};

static void contexts_close(struct ui_view *v)
{
	struct contexts *cs = v->priv;

	ui_table_dispose(&cs->table);
	free(cs);
}

static int contexts_header(struct ui_view *v, WINDOW *w, int width)
{
	struct contexts *cs = v->priv;

	ui_table_draw_header(&cs->table, w, 0, width);
	return 1;
}

static void contexts_row(struct ui_view *v, WINDOW *w, int y, int width,
			 size_t n, int selected)
{
	struct contexts *cs = v->priv;

	ui_table_draw_row(&cs->table, w, y, width, n, selected);
}

static int contexts_action(struct ui_view *v, enum ui_action action)
{
	struct contexts *cs = v->priv;
	const struct ui_row *row = ui_table_row(&cs->table, v->cursor);
	char *name;

	if (action != UI_ACTION_OPEN)
		return UI_PASS;
	if (row == NULL)
		return UI_HANDLED;
	/* The switch closes every screen, this one with its rows. */
	name = ui_xstrdup(row->key);
	ui_context_switch(v->app, name);
	free(name);
	return UI_HANDLED;
}

static void contexts_filter(struct ui_view *v, const char *text)
{
	struct contexts *cs = v->priv;

	ui_table_filter(&cs->table, text);
	v->lines = cs->table.nshown;
}

static const struct ui_view_ops contexts_ops = {
	.name = "contexts",
	.kind = UI_VIEW_CONTEXTS,
	.close = contexts_close,
	.draw_header = contexts_header,
	.draw_row = contexts_row,
	.on_action = contexts_action,
	.filter = contexts_filter,
};

struct ui_view *ui_contexts_new(struct ui_app *app)
{
	struct contexts *cs = ui_xcalloc(1, sizeof(*cs));
	const struct ui_start *start = app->start;
	const char *current = app->conn.name ? app->conn.name : "";
	struct ui_view *v;
	struct ui_row *row;
	size_t i;

	ui_table_init(&cs->table, columns, sizeof(columns) / sizeof(columns[0]));
	for (i = 0; i < start->contexts_len; i++) {
		row = ui_table_add(&cs->table);
		row->key = ui_xstrdup(start->contexts[i]);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", start->contexts[i]);
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s",
			   start->context_targets && start->context_targets[i]
				   ? start->context_targets[i]
				   : "");
		if (strcmp(start->contexts[i], current) == 0)
			ui_row_set(row, 2, UI_SLOT_STATE_OK, "current");
	}
	ui_table_filter(&cs->table, NULL);
	v = ui_view_new(app, &contexts_ops, "Contexts", cs);
	v->lines = cs->table.nshown;
	/* The cursor on the current one. */
	for (i = 0; i < cs->table.nshown; i++)
		if (strcmp(ui_table_row(&cs->table, i)->key, current) == 0)
			ui_view_goto(v, i);
	return v;
}
