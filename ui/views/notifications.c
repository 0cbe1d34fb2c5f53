/*
 * Notifications: the user's feed (unread and read ones of the projects
 * they administer, their organizations and themselves), newest first.
 * Enter opens the build the selected one is about (a Lectern's say which:
 * a version failing names its failed build), else shows its message in
 * the status line, and marks it read; `m` toggles read and unread, `d` dismisses it (it leaves the
 * feed). Each change goes to the instance, then the list and the title
 * bar's count are asked for again.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../table.h"
#include "client.h"

/* Items read: the API's maximum page, far more than a feed holds. */
#define NOTIFICATIONS_PAGE 1000

enum { TAG_LIST = 0, TAG_STATE };

struct notifications {
	struct ui_table table;
	/* Per row (by the row's id), what the table does not show. */
	struct note {
		long long id;
		char *self;   /* the detail's URL, for PATCH */
		char *state;
		char *header;
		char *body;
		char *project; /* of the build it is about, or NULL */
		long long build; /* 0: about none */
	} *notes;
	size_t nnotes;
};

static const struct ui_column cols[] = {
	{ "State", 10 }, { "On", 18 }, { "Message", 0 },
};

static void notes_free(struct notifications *ns)
{
	size_t i;

	for (i = 0; i < ns->nnotes; i++) {
		free(ns->notes[i].self);
		free(ns->notes[i].state);
		free(ns->notes[i].header);
		free(ns->notes[i].body);
		free(ns->notes[i].project);
	}
	free(ns->notes);
	ns->notes = NULL;
	ns->nnotes = 0;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? cJSON_GetNumberValue(v) : 0;
}

static void fill(struct notifications *ns, const cJSON *body)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(body, "results");
	const cJSON *item, *msg;
	struct ui_row *row;
	struct note *n;
	size_t count = (size_t)cJSON_GetArraySize(results);
	char about[LC_NOTIFICATION_ABOUT_MAX];
	const char *project, *version;

	ui_table_clear(&ns->table);
	notes_free(ns);
	ns->notes = ui_xcalloc(count ? count : 1, sizeof(*ns->notes));
	cJSON_ArrayForEach(item, results) {
		msg = cJSON_GetObjectItemCaseSensitive(item, "message");
		n = &ns->notes[ns->nnotes++];
		n->id = (long long)number(item, "id");
		n->self = ui_xstrdup(str(cJSON_GetObjectItemCaseSensitive(
						 item, "_links"),
					 "_self"));
		n->state = ui_xstrdup(str(item, "state"));
		n->header = ui_xstrdup(str(msg, "header"));
		n->body = ui_xstrdup(str(msg, "body"));
		n->build = lc_notification_build(item, &project, &version);
		if (n->build > 0 && project)
			n->project = ui_xstrdup(project);
		else
			n->build = 0;
		row = ui_table_add(&ns->table);
		row->id = n->id;
		ui_row_set(row, 0,
			   strcmp(n->state, "unread") == 0 ? UI_SLOT_HEADING
							   : UI_SLOT_DIM,
			   "%s", n->state);
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s",
			   lc_notification_about(item, about, sizeof(about)));
		ui_row_set(row, 2,
			   strcmp(str(msg, "type"), "error") == 0
				   ? UI_SLOT_STATE_FAIL
				   : UI_SLOT_NORMAL,
			   "%s", n->header);
	}
}

static void load(struct ui_view *v)
{
	char *path;

	if (ui_app_pending(v->app, v, TAG_LIST))
		return;
	path = ui_xasprintf("/api/v3/notifications/?limit=%d",
			    NOTIFICATIONS_PAGE);
	ui_app_get(v->app, v, TAG_LIST, path, NULL, NULL);
	free(path);
}

static void notifications_data(struct ui_view *v, int tag,
			       struct lc_response *resp,
			       const struct lc_error *err)
{
	struct notifications *ns = v->priv;

	if (tag == TAG_STATE) {
		/* The app reported the outcome; show and count afresh. */
		load(v);
		ui_unread_soon(v->app);
		return;
	}
	if (err->code != LC_OK) {
		if (err->status == 404)
			ui_app_error(v->app, "this instance has no notifications "
					     "(HTTP 404)");
		else
			ui_app_error(v->app, "%s", err->message);
		return;
	}
	fill(ns, resp->json);
	ui_table_filter(&ns->table, ns->table.filter);
	v->lines = ns->table.nshown;
	ui_view_clamp(v);
}

/* The selected notification, or NULL. */
static struct note *selected(struct ui_view *v)
{
	struct notifications *ns = v->priv;
	const struct ui_row *row = ui_table_row(&ns->table, v->cursor);
	size_t i;

	for (i = 0; row && i < ns->nnotes; i++)
		if (ns->notes[i].id == row->id)
			return &ns->notes[i];
	return NULL;
}

static void set_state(struct ui_view *v, struct note *n, const char *state,
		      const char *done)
{
	char body[48];

	if (!ui_app_can_write(v->app))
		return;
	snprintf(body, sizeof(body), "{\"state\": \"%s\"}", state);
	ui_app_send(v->app, v, TAG_STATE, "PATCH", n->self, body, done);
}

static int notifications_action(struct ui_view *v, enum ui_action action)
{
	struct note *n = selected(v);

	switch (action) {
	case UI_ACTION_OPEN:
		if (n == NULL)
			return UI_HANDLED;
		/* Reading it is what marks it read, as on the service. */
		if (strcmp(n->state, "unread") == 0 && ui_app_can_write(v->app))
			ui_app_send(v->app, v, TAG_STATE, "PATCH", n->self,
				    "{\"state\": \"read\"}", NULL);
		if (n->build > 0)
			ui_app_push(v->app, v->app->screens->build(
						    v->app, n->project, n->build));
		else
			ui_app_message(v->app, "%s: %s", n->header, n->body);
		return UI_HANDLED;
	case UI_ACTION_MARK_READ:
		if (n)
			set_state(v, n,
				  strcmp(n->state, "unread") == 0 ? "read"
								  : "unread",
				  strcmp(n->state, "unread") == 0
					  ? "marked read"
					  : "marked unread");
		return UI_HANDLED;
	case UI_ACTION_DISMISS:
		if (n)
			set_state(v, n, "dismissed", "dismissed");
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		load(v);
		ui_unread_soon(v->app);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

static void notifications_open(struct ui_view *v)
{
	load(v);
}

static void notifications_close(struct ui_view *v)
{
	struct notifications *ns = v->priv;

	ui_table_dispose(&ns->table);
	notes_free(ns);
	free(ns);
}

static int notifications_header(struct ui_view *v, WINDOW *w, int width)
{
	struct notifications *ns = v->priv;

	ui_table_draw_header(&ns->table, w, 0, width);
	return 1;
}

static void notifications_row(struct ui_view *v, WINDOW *w, int y, int width,
			      size_t n, int selected_row)
{
	struct notifications *ns = v->priv;

	ui_table_draw_row(&ns->table, w, y, width, n, selected_row);
}

static void notifications_filter(struct ui_view *v, const char *text)
{
	struct notifications *ns = v->priv;

	ui_table_filter(&ns->table, text);
	v->lines = ns->table.nshown;
}

static const struct ui_view_ops notifications_ops = {
	.name = "notifications",
	.kind = UI_VIEW_NOTIFICATIONS,
	.open = notifications_open,
	.close = notifications_close,
	.draw_header = notifications_header,
	.draw_row = notifications_row,
	.on_action = notifications_action,
	.on_data = notifications_data,
	.filter = notifications_filter,
};

struct ui_view *ui_notifications_new(struct ui_app *app)
{
	struct notifications *ns = ui_xcalloc(1, sizeof(*ns));

	ui_table_init(&ns->table, cols, sizeof(cols) / sizeof(cols[0]));
	return ui_view_new(app, &notifications_ops, "Notifications", ns);
}
