/*
 * The Builds screen: one project's builds, or every project's (`:builds`
 * alone, a Lectern's /api/v3/builds/), live (see builds.h). Enter
 * opens a build, `r` shows only running builds, `t` builds the selected
 * build's version again, `X` cancels the selected build.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../app.h"
#include "builds.h"
#include "client.h"
#include "edit.h"

static void builds_open(struct ui_view *v)
{
	ui_builds_poll(v->priv, v);
}

static void builds_close(struct ui_view *v)
{
	ui_builds_dispose(v->priv);
	free(v->priv);
}

static int builds_header(struct ui_view *v, WINDOW *w, int width)
{
	ui_builds_draw_header(v->priv, w, 0, width);
	return 1;
}

static void builds_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		       int selected)
{
	ui_builds_draw_row(v->priv, v, w, y, width, n, selected);
}

static int builds_footer(struct ui_view *v, WINDOW *w, int y, int width)
{
	return ui_builds_draw_footer(v->priv, v, w, y, width);
}

static int builds_action(struct ui_view *v, enum ui_action action)
{
	struct ui_builds *b = v->priv;
	const struct lc_build *sel;
	long long id;

	switch (action) {
	case UI_ACTION_TRIGGER:
	case UI_ACTION_TRIGGER_FRESH:
		sel = ui_builds_get(b, v->cursor);
		if (sel && sel->version)
			ui_edit_trigger(v, b->project ? b->project : sel->project,
					sel->version,
					action == UI_ACTION_TRIGGER_FRESH);
		return UI_HANDLED;
	case UI_ACTION_CANCEL:
		sel = ui_builds_get(b, v->cursor);
		if (sel)
			ui_edit_cancel(v, sel);
		return UI_HANDLED;
	case UI_ACTION_OPEN:
		sel = ui_builds_get(b, v->cursor);
		if ((id = ui_builds_id(b, v->cursor)) >= 0)
			ui_app_push(v->app, v->app->screens->build(
						    v->app,
						    sel && sel->project
							    ? sel->project
							    : b->project,
						    id));
		return UI_HANDLED;
	case UI_ACTION_TOGGLE_RUNNING:
		ui_builds_toggle_running(b, v);
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		ui_builds_reload(b, v);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

static void builds_data(struct ui_view *v, int tag, struct lc_response *resp,
			const struct lc_error *err)
{
	struct ui_builds *b = v->priv;

	/* A trigger or cancel went through: show it now, not at the next
	 * tick's conditional poll. */
	if (tag == UI_EDIT_TAG) {
		if (err->code == LC_OK)
			ui_builds_reload(b, v);
		return;
	}
	ui_builds_on_data(b, v, tag, resp, err);
}

static void builds_tick(struct ui_view *v)
{
	ui_builds_refresh(v->priv, v);
	ui_builds_tick(v->priv, v);
}

static void builds_filter(struct ui_view *v, const char *text)
{
	ui_builds_filter(v->priv, v, text);
}

/* The project in focus: the list's, or across projects the selected
 * build's. */
static const char *builds_project(struct ui_view *v)
{
	struct ui_builds *b = v->priv;
	const struct lc_build *sel;

	if (b->project)
		return b->project;
	sel = ui_builds_get(b, v->cursor);
	return sel ? sel->project : NULL;
}

static const struct ui_view_ops builds_ops = {
	.name = "builds",
	.kind = UI_VIEW_BUILDS,
	.open = builds_open,
	.close = builds_close,
	.draw_header = builds_header,
	.draw_row = builds_row,
	.draw_footer = builds_footer,
	.on_action = builds_action,
	.on_data = builds_data,
	.tick = builds_tick,
	.filter = builds_filter,
	.project = builds_project,
};

struct ui_view *ui_builds_new(struct ui_app *app, const char *project)
{
	struct ui_builds *b = ui_xcalloc(1, sizeof(*b));
	char title[128];

	ui_builds_init(b, project);
	if (project)
		snprintf(title, sizeof(title), "Builds: %s", project);
	else
		snprintf(title, sizeof(title), "Builds: every project");
	return ui_view_new(app, &builds_ops, title, b);
}
