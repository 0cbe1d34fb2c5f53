/*
 * The build activity signal (see activity.h): the answer's ETag is all
 * that is compared, so a 304 is "nothing moved" and a 200 with another
 * tag is "ask for the lists again". A 401, 403 or 404 (a context without
 * a token, a Lectern older than the signal) turns it off until the next
 * context: the screens' own polls then carry on as they would anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "app.h"
#include "client.h"

static void activity_done(struct lc_response *resp, const struct lc_error *err,
			  void *data)
{
	struct ui_app *app = data;
	struct ui_activity *a = &app->activity;

	a->pending = 0;
	if (err->code == LC_ECANCELLED)
		return; /* the client went with its context */
	ui_app_answered(app, err);
	a->asked_ms = ui_now_ms();
	if (err->code != LC_OK) {
		if (err->status == 401 || err->status == 403 ||
		    err->status == 404)
			a->off = 1;
		return;
	}
	if (resp->not_modified || resp->etag == NULL ||
	    (a->etag && strcmp(a->etag, resp->etag) == 0))
		return;
	ui_set_str(&a->etag, resp->etag);
	if (++a->serial == 0)
		a->serial = 1;
	/* The screen on top asks for its lists now, not at its next tick. */
	ui_app_tick_within(app, 0);
}

void ui_activity_reset(struct ui_app *app)
{
	struct ui_activity *a = &app->activity;

	ui_set_str(&a->etag, NULL);
	a->off = 0;
	a->pending = 0;
	a->serial = 0;
	a->asked_ms = 0;
	a->watched_until = 0;
}

unsigned ui_activity_watch(struct ui_app *app)
{
	/* Two ticks: a screen that stops asking (it went, another came on
	 * top) stops the requests soon after. */
	app->activity.watched_until = ui_now_ms() + 2 * UI_TICK_MS;
	return app->activity.serial;
}

void ui_activity_poll(struct ui_app *app, int64_t now_ms)
{
	struct ui_activity *a = &app->activity;
	struct lc_async_request ar = { 0 };
	struct lc_error err;

	if (now_ms < ui_activity_due(app))
		return;
	ar.path = LC_BUILD_ACTIVITY_PATH;
	ar.etag = a->etag;
	ar.done = activity_done;
	ar.data = app;
	if (lc_async_submit(app->client, &ar, NULL, &err) < 0) {
		a->asked_ms = now_ms;
		return;
	}
	a->pending = 1;
}

int64_t ui_activity_due(const struct ui_app *app)
{
	const struct ui_activity *a = &app->activity;

	/* Only a Lectern has it; the client knows from any answer. */
	if (a->off || a->pending ||
	    lc_client_remote(app->client) != LC_REMOTE_LECTERN)
		return INT64_MAX;
	/* While the engine gives no answer, every second: its return shows
	 * (and the error goes) about when it answers again, on any screen. */
	return a->asked_ms + (ui_now_ms() < a->watched_until || app->link_down
				      ? UI_ACTIVITY_MS
				      : UI_ACTIVITY_IDLE_MS);
}
