/*
 * The `?` screen: the keys of the screen it was opened from, generated
 * from the action table and the keymaps (overrides included), so it
 * always tells the truth about the bindings; a generic key the screen
 * cannot use (ui_view_offers) is left out. The `:` commands follow, from
 * the same table, each with its arguments. A description longer than its
 * column goes on over the lines below it, so nothing is cut at 80
 * columns; the rows are laid out again when the width or the `/` filter
 * changes (the filter keeps the keys whose name, keys or description has
 * the text).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "keys.h"
#include "table.h"

/* Keys listed per action; more are rare and would not fit the column. */
#define MAX_KEYS_SHOWN 4
/* The description column, however narrow the screen. */
#define MIN_DESCRIPTION 20

/* One key's entry: what is laid out into rows. */
struct entry {
	char *keys;
	const char *name, *help;
};

struct help {
	struct ui_table table;
	struct entry *entries;
	size_t len;
	char *filter;  /* the `/` text, or NULL */
	int laid_out;  /* the width the rows were laid out for; 0: redo */
};

static const struct ui_column columns[] = {
	/* Action fits the longest name (trigger-fresh-build); Keys the
	 * longest default keys (<PgDn> C-f <Space>) and a command with its
	 * arguments (:builds [SLUG]). */
	{ "Keys", 20 }, { "Action", 19 }, { "Description", 0 },
};

/* An entry of keys (owned from now on), name and help. */
static void push_entry(struct help *h, char *keys, const char *name,
		       const char *help)
{
	struct entry *e;

	h->entries = ui_xrealloc(h->entries, (h->len + 1) * sizeof(*h->entries));
	e = &h->entries[h->len++];
	e->keys = keys;
	e->name = name;
	e->help = help;
}

static void add_entry(struct help *h, const int *keys, size_t n,
		      const struct ui_action_info *info)
{
	char name[UI_KEY_NAME_MAX];
	struct ui_buf text = UI_BUF_INIT;
	size_t i;

	for (i = 0; i < n && i < MAX_KEYS_SHOWN; i++) {
		ui_key_format(keys[i], name, sizeof(name));
		ui_buf_printf(&text, "%s%s", i ? " " : "", name);
	}
	push_entry(h, ui_buf_take(&text), info->name, info->help);
}

/* A `:` command's entry: ":name ARGS" where the keys go, no action name
 * (bind lines do not name commands). */
static void add_command(struct help *h, const struct ui_action_info *info)
{
	struct ui_buf text = UI_BUF_INIT;

	ui_buf_printf(&text, ":%s%s%s", info->name, info->args[0] ? " " : "",
		      info->args);
	push_entry(h, ui_buf_take(&text), "", info->help);
}

static void collect(struct help *h, const struct ui_view *from)
{
	int keys[MAX_KEYS_SHOWN];
	size_t n;
	int a;

	for (a = 1; a < UI_ACTION_COUNT; a++) {
		n = ui_keys_of(from->ops->kind, (enum ui_action)a, keys,
			       MAX_KEYS_SHOWN);
		/* A key that does nothing here is not this screen's. */
		if (n == 0 || !ui_view_offers(from, (enum ui_action)a))
			continue;
		add_entry(h, keys, n, ui_action_info((enum ui_action)a));
	}
	/* The commands after the keys: they work on every screen. */
	for (a = 1; a < UI_ACTION_COUNT; a++)
		if (ui_action_info((enum ui_action)a)->args)
			add_command(h, ui_action_info((enum ui_action)a));
}

static int entry_matches(const struct entry *e, const char *filter)
{
	return filter == NULL || ui_contains_nocase(e->keys, filter) ||
	       ui_contains_nocase(e->name, filter) ||
	       ui_contains_nocase(e->help, filter);
}

/* How many bytes of text (len) fit in cols columns, cut at a space when
 * there is one (the help texts are ASCII). */
static size_t fit(const char *text, size_t len, size_t cols)
{
	size_t cut;

	if (len <= cols)
		return len;
	for (cut = cols; cut > 0 && text[cut] != ' '; cut--)
		;
	return cut > 0 ? cut : cols;
}

/* e's rows: its keys and name on the first, its description over as many
 * as it needs. */
static void lay_out_entry(struct help *h, const struct entry *e, size_t cols)
{
	const char *text = e->help;
	size_t len = strlen(text), n;
	struct ui_row *row;
	int first = 1;

	do {
		n = fit(text, len, cols);
		row = ui_table_add(&h->table);
		if (first) {
			ui_row_set(row, 0, UI_SLOT_HEADING, "%s", e->keys);
			ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", e->name);
		}
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%.*s", (int)n, text);
		text += n;
		len -= n;
		while (len > 0 && *text == ' ') {
			text++;
			len--;
		}
		first = 0;
	} while (len > 0);
}

static void lay_out(struct ui_view *v, int width)
{
	struct help *h = v->priv;
	int cols = ui_table_col_width(&h->table, 2, width);
	size_t i;

	if (cols < MIN_DESCRIPTION)
		cols = MIN_DESCRIPTION;
	ui_table_clear(&h->table);
	for (i = 0; i < h->len; i++)
		if (entry_matches(&h->entries[i], h->filter))
			lay_out_entry(h, &h->entries[i], (size_t)cols);
	/* Every row laid out is shown; the filter text is only coloured. */
	ui_table_filter(&h->table, NULL);
	ui_set_str(&h->table.filter, h->filter);
	v->lines = h->table.nshown;
	ui_view_clamp(v);
	h->laid_out = width;
}

static void help_close(struct ui_view *v)
{
	struct help *h = v->priv;
	size_t i;

	for (i = 0; i < h->len; i++)
		free(h->entries[i].keys);
	free(h->entries);
	free(h->filter);
	ui_table_dispose(&h->table);
	free(h);
}

static int help_header(struct ui_view *v, WINDOW *w, int width)
{
	struct help *h = v->priv;

	if (h->laid_out != width)
		lay_out(v, width);
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

	ui_set_str(&h->filter, text && *text ? text : NULL);
	lay_out(v, h->laid_out ? h->laid_out : COLS);
}

static const struct ui_view_ops help_ops = {
	.name = "help",
	.kind = UI_VIEW_HELP,
	.close = help_close,
	.draw_header = help_header,
	.draw_row = help_row,
	.filter = help_filter,
};

struct ui_view *ui_help_new(struct ui_app *app, const struct ui_view *from)
{
	struct help *h = ui_xcalloc(1, sizeof(*h));
	char title[64];
	struct ui_view *v;

	ui_table_init(&h->table, columns, sizeof(columns) / sizeof(columns[0]));
	collect(h, from);
	snprintf(title, sizeof(title), "Help: %s", from->ops->name);
	v = ui_view_new(app, &help_ops, title, h);
	lay_out(v, COLS);
	return v;
}
