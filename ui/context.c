/*
 * Changing the connection (see context.h): the client and the context's
 * settings replaced together, and what belonged to the old client reset.
 */
#include <string.h>

#include "activity.h"
#include "app.h"
#include "client.h"
#include "context.h"
#include "unread.h"

void ui_context_take(struct ui_app *app, struct ui_conn *conn,
		     struct lc_client *client)
{
	/* Every request of the old client ends cancelled here. */
	lc_client_free(app->client);
	app->client = client;
	ui_conn_dispose(&app->conn);
	app->conn = *conn;
	memset(conn, 0, sizeof(*conn));
	ui_unread_reset(app);
	ui_activity_reset(app);
}

void ui_context_switch(struct ui_app *app, const char *name)
{
	struct ui_conn conn = { 0 };
	struct lc_client *client = NULL;
	char err[UI_MESSAGE_MAX];

	if (app->start->connect == NULL) {
		ui_app_error(app, "contexts are not available here");
		return;
	}
	if (app->start->connect(app->start->payload, name, &conn, err,
				sizeof(err)) < 0) {
		ui_app_error(app, "%s", err);
		goto done;
	}
	if (ui_app_connect(app, &conn, &client) < 0)
		goto done;
	ui_app_pop_all(app);
	ui_context_take(app, &conn, client);
	ui_app_set_projects(app, NULL, 0);
	app->link_down = app->link_back = app->engine_stopped = 0;
	ui_app_push(app, app->screens->projects(app));
	ui_app_message(app, "context %s", app->conn.name);
done:
	ui_conn_dispose(&conn);
}
