/*
 * The title bar's unread count: GET /api/v3/notifications/?state=unread
 * &limit=1 and read its "count". The interval follows ui_pace_unread
 * (polling.h): doubling while the count stays the same, back to the first
 * when it changes (or the user acted on a notification). A 401, 403 or
 * 404 (an anonymous context, or an instance without notifications) turns
 * the count off until the next context; other errors only back off.
 */
#include <cjson/cJSON.h>

#include "app.h"
#include "client.h"
#include "unread.h"

#define UNREAD_PATH "/api/v3/notifications/?state=unread&limit=1"

static void unread_done(struct lc_response *resp, const struct lc_error *err,
			void *data)
{
	struct ui_app *app = data;
	struct ui_unread *u = &app->unread;
	const cJSON *count;
	long was = u->count;

	u->pending = 0;
	if (err->code == LC_ECANCELLED)
		return; /* the client went with its context */
	ui_app_answered(app, err);
	if (err->code != LC_OK) {
		if (err->status == 401 || err->status == 403 ||
		    err->status == 404) {
			u->off = 1;
			u->count = -1;
		}
	} else {
		count = cJSON_GetObjectItemCaseSensitive(resp->json, "count");
		u->count = cJSON_IsNumber(count)
				   ? (long)cJSON_GetNumberValue(count)
				   : -1;
	}
	if (u->count != was)
		app->dirty = 1;
	u->interval_ms = ui_pace_next(&ui_pace_unread, u->interval_ms,
				      u->count != was);
	u->next_ms = ui_now_ms() + u->interval_ms;
}

void ui_unread_reset(struct ui_app *app)
{
	struct ui_unread *u = &app->unread;

	u->count = -1;
	u->off = 0;
	u->pending = 0;
	u->interval_ms = ui_pace_unread.first;
	u->next_ms = ui_now_ms();
}

void ui_unread_poll(struct ui_app *app, int64_t now_ms)
{
	struct ui_unread *u = &app->unread;
	struct lc_async_request ar = { 0 };
	struct lc_error err;

	if (u->off || u->pending || now_ms < u->next_ms)
		return;
	/* The poll budget is spent: try again at its next refill. */
	if (!ui_app_poll_allowed(app)) {
		u->next_ms = now_ms + UI_POLL_REFILL_MS;
		return;
	}
	ar.path = UNREAD_PATH;
	ar.done = unread_done;
	ar.data = app;
	if (lc_async_submit(app->client, &ar, NULL, &err) < 0) {
		u->next_ms = now_ms + ui_pace_unread.most;
		return;
	}
	u->pending = 1;
}

int64_t ui_unread_due(const struct ui_app *app)
{
	return app->unread.off || app->unread.pending ? INT64_MAX
						      : app->unread.next_ms;
}

void ui_unread_soon(struct ui_app *app)
{
	app->unread.interval_ms = ui_pace_unread.first;
	if (!app->unread.pending)
		app->unread.next_ms = ui_now_ms();
}
