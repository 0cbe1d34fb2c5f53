/*
 * The application's state that views share (see app.h): the view stack,
 * the status line, the requests made on behalf of views and the poll
 * budget they share, the client for the current context, and what `:`
 * completes from. Views, dialogs and the display call it; it calls no
 * view's file (screens open through app->screens), so it sits below all
 * of them. The loop that drives it is loop.c, the `:` commands
 * command.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "client.h"
#include "preview.h"

struct ui_request {
	struct ui_app *app;
	struct ui_view *view; /* NULL once the view has gone */
	int tag;
	uint64_t id;
	char *done;           /* ui_app_send's success message, or NULL */
	int report;           /* the app reports the outcome (ui_app_send) */
	struct ui_request *next;
};

/* View stack ---------------------------------------------------------------- */

struct ui_view *ui_app_top(struct ui_app *app)
{
	return app->depth ? app->stack[app->depth - 1] : NULL;
}

/* Close v: its requests are cancelled, then it is freed. */
static void close_view(struct ui_app *app, struct ui_view *v)
{
	ui_app_cancel(app, v);
	ui_view_free(v);
}

/* v has just taken its place on the stack. */
static void start_view(struct ui_app *app, struct ui_view *v)
{
	app->screen++;
	if (v->ops->open)
		v->ops->open(v);
	app->dirty = 1;
}

/* Whether a screen shows something of the running preview (its site). */
static int preview_shown(const struct ui_app *app, const char *url)
{
	const char *site;
	size_t i;

	for (i = 0; i < app->depth; i++)
		if (app->stack[i]->ops->site &&
		    (site = app->stack[i]->ops->site(app->stack[i])) != NULL &&
		    strncmp(site, url, strlen(url)) == 0)
			return 1;
	return 0;
}

/* Screens went: once none shows the running preview any more, it stops
 * (it would rebuild on every save with no one looking, until the TUI
 * quits), and the status line says so. */
static void leave_preview(struct ui_app *app)
{
	const char *url = app->preview ? ui_preview_url(app->preview) : NULL;

	if (url == NULL || preview_shown(app, url))
		return;
	ui_app_message(app, "stopped the preview of %s (:preview starts it "
			    "again)",
		       ui_preview_dir(app->preview));
	ui_preview_stop(app->preview);
	app->preview = NULL;
}

void ui_app_push(struct ui_app *app, struct ui_view *v)
{
	if (app->depth == UI_MAX_VIEWS) {
		/* Drop the oldest screen rather than refuse the new one. */
		close_view(app, app->stack[0]);
		memmove(app->stack, app->stack + 1,
			(UI_MAX_VIEWS - 1) * sizeof(app->stack[0]));
		app->depth--;
	}
	app->stack[app->depth++] = v;
	start_view(app, v);
	leave_preview(app);
}

void ui_app_pop(struct ui_app *app)
{
	if (app->depth == 0)
		return;
	close_view(app, app->stack[--app->depth]);
	app->screen++;
	if (app->depth == 0)
		app->quit = 1;
	else if (app->stack[app->depth - 1]->ops->reveal)
		app->stack[app->depth - 1]->ops->reveal(
			app->stack[app->depth - 1]);
	leave_preview(app);
	app->dirty = 1;
}

void ui_app_replace(struct ui_app *app, struct ui_view *v, struct ui_view *n)
{
	size_t i;

	for (i = 0; i < app->depth && app->stack[i] != v; i++)
		;
	if (i == app->depth) {
		ui_app_push(app, n);
		return;
	}
	close_view(app, v);
	app->stack[i] = n;
	start_view(app, n);
	leave_preview(app);
}

void ui_app_close_gone(struct ui_app *app)
{
	size_t i = app->depth;

	while (i > 1) {
		i--;
		if (!app->stack[i]->gone)
			continue;
		close_view(app, app->stack[i]);
		memmove(app->stack + i, app->stack + i + 1,
			(app->depth - i - 1) * sizeof(app->stack[0]));
		app->depth--;
		app->screen++;
		app->dirty = 1;
	}
	leave_preview(app);
}

void ui_app_pop_all(struct ui_app *app)
{
	while (app->depth > 0)
		close_view(app, app->stack[--app->depth]);
}

/* Status line --------------------------------------------------------------- */

static void set_status(struct ui_app *app, int error, const char *fmt,
		       va_list ap)
{
	char msg[UI_MESSAGE_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	ui_set_str(&app->status, msg);
	app->status_error = error;
	app->status_screen = app->screen;
	app->status_until = ui_now_ms() + app->options.message_ms;
	app->dirty = 1;
}

void ui_app_expire_status(struct ui_app *app, int64_t now)
{
	if (app->status && !app->status_error &&
	    (now >= app->status_until || app->status_screen != app->screen)) {
		ui_set_str(&app->status, NULL);
		app->dirty = 1;
	}
}

void ui_app_message(struct ui_app *app, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(app, 0, fmt, ap);
	va_end(ap);
}

void ui_app_error(struct ui_app *app, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(app, 1, fmt, ap);
	va_end(ap);
}

void ui_app_fail(struct ui_app *app, struct ui_view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(app, 1, fmt, ap);
	va_end(ap);
	if (app->depth > 1 && v != app->stack[0])
		v->gone = 1;
}

/* Requests ------------------------------------------------------------------- */

static void unlink_request(struct ui_app *app, struct ui_request *req)
{
	struct ui_request **p;

	for (p = &app->requests; *p; p = &(*p)->next)
		if (*p == req) {
			*p = req->next;
			return;
		}
}

static void request_done(struct lc_response *resp, const struct lc_error *err,
			 void *data)
{
	struct ui_request *req = data;
	struct ui_app *app = req->app;

	unlink_request(app, req);
	ui_app_answered(app, err);
	if (req->view && err->code != LC_ECANCELLED && req->report) {
		if (err->code == LC_OK)
			ui_app_message(app, "%s", req->done);
		else
			ui_app_error(app, "%s", err->message);
	}
	if (req->view && err->code != LC_ECANCELLED && req->view->ops->on_data) {
		req->view->ops->on_data(req->view, req->tag, resp, err);
		app->dirty = 1;
	}
	free(req->done);
	free(req);
}

void ui_app_answered(struct ui_app *app, const struct lc_error *err)
{
	/* No answer at all: the local engine may have gone (reconnect). An
	 * answer after that: the link is back (loop.c says so). */
	if (err->code == LC_ETRANSPORT) {
		app->link_down = 1;
	} else if (err->code != LC_ECANCELLED) {
		if (app->link_down)
			app->link_back = 1;
		app->link_down = 0;
		app->reload_asked = 0;
	}
	app->dirty = 1;
}

/* Queue ar (path, query, method, body set) for view v; 0 or -1. */
static int submit(struct ui_app *app, struct ui_view *v, int tag,
		  struct lc_async_request *ar, const char *done)
{
	struct ui_request *req = ui_xcalloc(1, sizeof(*req));
	struct lc_error err;

	req->app = app;
	req->view = v;
	req->tag = tag;
	req->done = ui_xstrdup(done);
	req->report = done != NULL;
	ar->done = request_done;
	ar->data = req;
	req->next = app->requests;
	app->requests = req;
	if (lc_async_submit(app->client, ar, &req->id, &err) < 0) {
		unlink_request(app, req);
		free(req->done);
		free(req);
		ui_app_error(app, "%s", err.message);
		return -1;
	}
	app->dirty = 1;
	return 0;
}

int ui_app_get(struct ui_app *app, struct ui_view *v, int tag,
	       const char *path, const struct lc_query *q, const char *etag)
{
	struct lc_async_request ar = { 0 };

	ar.path = path;
	ar.query = q;
	ar.etag = etag;
	return submit(app, v, tag, &ar, NULL);
}

int ui_app_poll_allowed(struct ui_app *app)
{
	/* A Lectern is ours to poll; the service (or an instance not known
	 * yet) gets the budget. */
	if (lc_client_remote(app->client) == LC_REMOTE_LECTERN)
		return 1;
	return ui_poll_take(&app->budget, ui_now_ms());
}

int ui_app_poll(struct ui_app *app, struct ui_view *v, int tag,
		const char *path, const struct lc_query *q, const char *etag)
{
	if (!ui_app_poll_allowed(app))
		return 1;
	return ui_app_get(app, v, tag, path, q, etag);
}

int ui_app_send(struct ui_app *app, struct ui_view *v, int tag,
		const char *method, const char *path, const char *body,
		const char *done)
{
	struct lc_async_request ar = { 0 };

	ar.method = method;
	ar.path = path;
	ar.json_body = body;
	return submit(app, v, tag, &ar, done);
}

int ui_app_can_write(struct ui_app *app)
{
	if (app->start->readonly)
		ui_app_error(app, "read-only: started with --readonly");
	else if (app->conn.readonly)
		ui_app_error(app, "read-only: context %s has readonly = true",
			     app->conn.name);
	return !app->start->readonly && !app->conn.readonly;
}

int ui_app_has_view(const struct ui_app *app, const struct ui_view *v)
{
	size_t i;

	for (i = 0; i < app->depth; i++)
		if (app->stack[i] == v)
			return 1;
	return 0;
}

int ui_app_pending(const struct ui_app *app, const struct ui_view *v, int tag)
{
	const struct ui_request *req;

	for (req = app->requests; req; req = req->next)
		if (req->view == v && req->tag == tag)
			return 1;
	return 0;
}

void ui_app_cancel(struct ui_app *app, struct ui_view *v)
{
	struct ui_request *req;
	uint64_t id;
	int found;

	/* A cancelled request's callback runs inside lc_async_cancel and
	 * unlinks it, so look again from the head after each one. */
	do {
		found = 0;
		for (req = app->requests; req; req = req->next)
			if (req->view == v) {
				req->view = NULL;
				id = req->id;
				found = 1;
				lc_async_cancel(app->client, id);
				break;
			}
	} while (found);
}

/* The rest of the app ---------------------------------------------------------- */

const char *ui_app_preview_url(const struct ui_app *app)
{
	return app->preview ? ui_preview_url(app->preview) : NULL;
}

void ui_app_tick_within(struct ui_app *app, long ms)
{
	int64_t at = ui_now_ms() + ms;

	if (at < app->next_tick)
		app->next_tick = at;
}

/* Projects for completion ------------------------------------------------------ */

static void free_projects(struct ui_app *app)
{
	size_t i;

	for (i = 0; i < app->projects_len; i++)
		free(app->projects[i]);
	free(app->projects);
	app->projects = NULL;
	app->projects_len = 0;
}

void ui_app_set_projects(struct ui_app *app, char **slugs, size_t n)
{
	free_projects(app);
	app->projects = slugs;
	app->projects_len = n;
}

/* Contexts and quitting ------------------------------------------------------- */

int ui_app_connect(struct ui_app *app, const struct ui_conn *conn,
		   struct lc_client **out)
{
	struct lc_client_options opts = { 0 };
	struct lc_error err;

	opts.api_url = conn->api_url;
	opts.token = conn->token;
	opts.docs_domain = conn->docs_domain;
	opts.unix_socket = conn->unix_socket;
	opts.link_name = conn->link_name;
	if (lc_client_new(out, &opts, &err) < 0) {
		ui_app_error(app, "%s: %s", conn->name, err.message);
		return -1;
	}
	return 0;
}

void ui_app_request_quit(struct ui_app *app, int asked)
{
	size_t i;

	for (i = 0; !asked && i < app->depth; i++)
		if (app->stack[i]->ops->live && app->stack[i]->ops->live(app->stack[i])) {
			ui_app_message(app, "a running build's log is open: "
					    "quit again to leave (Q quits at once)");
			app->quit_asked = 1;
			return;
		}
	app->quit = 1;
}

void ui_conn_dispose(struct ui_conn *conn)
{
	free(conn->name);
	free(conn->api_url);
	free(conn->docs_domain);
	free(conn->unix_socket);
	free(conn->remote_socket);
	free(conn->link_name);
	free(conn->forward_hint);
	if (conn->token)
		explicit_bzero(conn->token, strlen(conn->token));
	free(conn->token);
	memset(conn, 0, sizeof(*conn));
}
