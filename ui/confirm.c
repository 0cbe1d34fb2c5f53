/*
 * The confirmation dialog (see confirm.h): a view that takes every key,
 * shows the question, and on y hands the write to the screen that asked
 * before closing, so the write outlives the dialog.
 */
#include <stdlib.h>

#include "app.h"
#include "confirm.h"
#include "draw.h"
#include "keys.h"
#include "theme.h"

struct confirm {
	struct ui_view *parent;
	int tag;
	char *question, *method, *path, *body, *done;
};

static void confirm_close(struct ui_view *v)
{
	struct confirm *c = v->priv;

	free(c->question);
	free(c->method);
	free(c->path);
	free(c->body);
	free(c->done);
	free(c);
}

static int confirm_header(struct ui_view *v, WINDOW *w, int width)
{
	struct confirm *c = v->priv;
	int x;

	x = ui_draw_text(w, 1, 2, width - 2, c->question,
			 ui_attr(UI_SLOT_HEADING));
	ui_draw_text(w, 1, 2 + x, width - 2 - x, " [y/N]",
		     ui_attr(UI_SLOT_PROMPT));
	ui_draw_text(w, 3, 2, width - 2,
		     "y: go ahead; any other key: keep it, nothing is sent",
		     ui_attr(UI_SLOT_DIM));
	return getmaxy(w);
}

static void confirm_key(struct ui_view *v, int key)
{
	struct confirm *c = v->priv;
	struct ui_app *app = v->app;

	if (key != 'y' && key != 'Y') {
		ui_app_pop(app);
		ui_app_message(app, "kept: nothing changed");
		return;
	}
	/* The dialog goes first (it owns the strings, so send, then pop);
	 * the request is the parent's, so closing does not cancel it. */
	if (ui_app_has_view(app, c->parent))
		ui_app_send(app, c->parent, c->tag, c->method, c->path, c->body,
			    c->done);
	ui_app_pop(app);
}

static const struct ui_view_ops confirm_ops = {
	.name = "confirm",
	.close = confirm_close,
	.draw_header = confirm_header,
	.on_key = confirm_key,
	.grab_keys = 1,
};

void ui_confirm_open(struct ui_app *app, struct ui_view *parent, int tag,
		     const char *question, const char *method,
		     const char *path, const char *body, const char *done)
{
	struct confirm *c = ui_xcalloc(1, sizeof(*c));

	c->parent = parent;
	c->tag = tag;
	c->question = ui_xstrdup(question);
	c->method = ui_xstrdup(method);
	c->path = ui_xstrdup(path);
	c->body = ui_xstrdup(body);
	c->done = ui_xstrdup(done);
	ui_app_push(app, ui_view_new(app, &confirm_ops, "Confirm", c));
}
