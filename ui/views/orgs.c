/*
 * Organizations (the business edition): the instance's organizations,
 * and on Enter one organization's projects, from which Enter opens a
 * project. An instance without the routes (the community edition
 * answers 404) says so in the status line and shows an empty list.
 * Both screens read one page of up to the API's maximum, as the
 * project's tabs do.
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../table.h"
#include "client.h"

/* Items per request: the API's maximum page. */
#define ORGS_PAGE 1000

enum { TAG_LIST = 0 };

struct orgs {
	char *org;            /* NULL: the organizations; else its projects */
	struct ui_table table;
};

static const struct ui_column org_cols[] = {
	{ "Organization", 24 }, { "Name", 0 }, { "Owners", 24 },
};
static const struct ui_column project_cols[] = {
	{ "Project", 24 }, { "Name", 0 }, { "Default", 10 },
};

static void fill_orgs(struct ui_table *t, const cJSON *body)
{
	const cJSON *item;
	struct lc_organization *o;
	struct ui_row *row;
	struct ui_buf owners = UI_BUF_INIT;
	size_t i;

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_organization_parse(item, &o, NULL) != LC_OK)
			continue;
		for (i = 0; i < o->owners_len; i++)
			ui_buf_printf(&owners, "%s%s", i ? ", " : "", o->owners[i]);
		row = ui_table_add(t);
		row->key = ui_xstrdup(o->slug);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", o->slug ? o->slug : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", o->name ? o->name : "");
		ui_row_set(row, 2, UI_SLOT_DIM, "%s", owners.ptr ? owners.ptr : "");
		ui_buf_dispose(&owners);
		lc_organization_free(o);
	}
}

static void fill_projects(struct ui_table *t, const cJSON *body)
{
	const cJSON *item;
	struct lc_project *p;
	struct ui_row *row;

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_project_parse(item, &p, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->key = ui_xstrdup(p->slug);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", p->slug ? p->slug : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", p->name ? p->name : "");
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s",
			   p->default_version ? p->default_version : "");
		lc_project_free(p);
	}
}

static void load(struct ui_view *v)
{
	struct orgs *os = v->priv;
	char *path;

	if (ui_app_pending(v->app, v, TAG_LIST))
		return;
	if (os->org)
		path = ui_xasprintf("/api/v3/organizations/%s/projects/?limit=%d",
				    os->org, ORGS_PAGE);
	else
		path = ui_xasprintf("/api/v3/organizations/?limit=%d", ORGS_PAGE);
	ui_app_get(v->app, v, TAG_LIST, path, NULL, NULL);
	free(path);
}

static void orgs_data(struct ui_view *v, int tag, struct lc_response *resp,
		      const struct lc_error *err)
{
	struct orgs *os = v->priv;

	(void)tag;
	if (err->code != LC_OK) {
		if (err->status == 404 && os->org == NULL)
			ui_app_error(v->app, "this instance has no organizations "
					     "(a business edition feature; HTTP 404)");
		else
			ui_app_error(v->app, "%s", err->message);
		return;
	}
	ui_table_clear(&os->table);
	if (os->org)
		fill_projects(&os->table, resp->json);
	else
		fill_orgs(&os->table, resp->json);
	ui_table_filter(&os->table, os->table.filter);
	v->lines = os->table.nshown;
	ui_view_clamp(v);
}

static void orgs_open(struct ui_view *v)
{
	load(v);
}

static void orgs_close(struct ui_view *v)
{
	struct orgs *os = v->priv;

	ui_table_dispose(&os->table);
	free(os->org);
	free(os);
}

static int orgs_header(struct ui_view *v, WINDOW *w, int width)
{
	struct orgs *os = v->priv;

	ui_table_draw_header(&os->table, w, 0, width);
	return 1;
}

static void orgs_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		     int selected)
{
	struct orgs *os = v->priv;

	ui_table_draw_row(&os->table, w, y, width, n, selected);
}

static struct ui_view *org_projects_new(struct ui_app *app, const char *org);

static int orgs_action(struct ui_view *v, enum ui_action action)
{
	struct orgs *os = v->priv;
	const struct ui_row *row = ui_table_row(&os->table, v->cursor);

	switch (action) {
	case UI_ACTION_OPEN:
		if (row && os->org)
			ui_app_push(v->app, v->app->screens->project(
						    v->app, row->key));
		else if (row)
			ui_app_push(v->app, org_projects_new(v->app, row->key));
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		load(v);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

static void orgs_filter(struct ui_view *v, const char *text)
{
	struct orgs *os = v->priv;

	ui_table_filter(&os->table, text);
	v->lines = os->table.nshown;
}

static const char *orgs_project(struct ui_view *v)
{
	struct orgs *os = v->priv;
	const struct ui_row *row = ui_table_row(&os->table, v->cursor);

	return os->org && row ? row->key : NULL;
}

static const struct ui_view_ops orgs_ops = {
	.name = "orgs",
	.kind = UI_VIEW_ORGS,
	.open = orgs_open,
	.close = orgs_close,
	.draw_header = orgs_header,
	.draw_row = orgs_row,
	.on_action = orgs_action,
	.on_data = orgs_data,
	.filter = orgs_filter,
	.project = orgs_project,
};

static struct ui_view *org_projects_new(struct ui_app *app, const char *org)
{
	struct orgs *os = ui_xcalloc(1, sizeof(*os));

	os->org = ui_xstrdup(org);
	ui_table_init(&os->table, project_cols,
		      sizeof(project_cols) / sizeof(project_cols[0]));
	return ui_view_new(app, &orgs_ops, org, os);
}

struct ui_view *ui_orgs_new(struct ui_app *app)
{
	struct orgs *os = ui_xcalloc(1, sizeof(*os));

	ui_table_init(&os->table, org_cols,
		      sizeof(org_cols) / sizeof(org_cols[0]));
	return ui_view_new(app, &orgs_ops, "Organizations", os);
}
