/*
 * The notice (see notice.h): a view that takes every key and draws its
 * lines in its header, as the confirmation dialog does; only the keys
 * that close it do anything, so a stray key cannot lose a secret the user
 * has not copied yet.
 */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "keys.h"
#include "notice.h"
#include "theme.h"

struct notice {
	char *text;
	size_t len;
};

static void notice_close(struct ui_view *v)
{
	struct notice *n = v->priv;

	explicit_bzero(n->text, n->len);
	free(n->text);
	free(n);
}

static int notice_header(struct ui_view *v, WINDOW *w, int width)
{
	struct notice *n = v->priv;
	int rows = getmaxy(w), y = 1, used;
	const char *p, *nl;
	char *line;

	/* Long lines wrap (a warning's path and message), so nothing of a
	 * notice is cut at 80 columns; an empty line stays one. */
	for (p = n->text; *p && y < rows - 2; p = nl + (*nl != '\0')) {
		nl = strchrnul(p, '\n');
		line = ui_xstrndup(p, (size_t)(nl - p));
		/* Only a line too long is wrapped: the wrapping copies
		 * pieces it does not wipe, and a secret's line fits. */
		if (ui_text_width(line) <= width - 2)
			used = ui_draw_text(w, y, 2, width - 2, line,
					    ui_attr(UI_SLOT_NORMAL)) > 0;
		else
			used = ui_draw_wrapped(w, y, 2, width - 2, rows - 2 - y,
					       line, ui_attr(UI_SLOT_NORMAL));
		y += used > 0 ? used : 1;
		explicit_bzero(line, strlen(line));
		free(line);
	}
	ui_draw_text(w, y + 1, 2, width - 2, "Enter, Esc or q: close",
		     ui_attr(UI_SLOT_DIM));
	return rows;
}

static void notice_key(struct ui_view *v, int key)
{
	if (key == '\n' || key == UI_KEY_ESC || key == 'q')
		ui_app_pop(v->app);
}

static const struct ui_view_ops notice_ops = {
	.name = "notice",
	.close = notice_close,
	.draw_header = notice_header,
	.on_key = notice_key,
	.grab_keys = 1,
};

void ui_notice_open(struct ui_app *app, const char *title, const char *text)
{
	struct notice *n = ui_xcalloc(1, sizeof(*n));

	n->text = ui_xstrdup(text);
	n->len = strlen(n->text);
	ui_app_push(app, ui_view_new(app, &notice_ops, title, n));
}
