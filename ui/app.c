/*
 * The application (see app.h): the main loop, asynchronous requests on
 * behalf of views, key dispatch through the keymaps, the prompt, the `:`
 * commands, and ui_main, which sets all of it up and tears it down.
 *
 * The loop waits in select() on the terminal, the client's sockets and
 * the `:preview` child's pipe at once, with a timeout that is the
 * earliest of the client's own timer, the next poll tick and the
 * spinner's next frame. Answers reach views
 * through on_data, called from lc_async_perform on this thread; views
 * never draw from callbacks, they only mark the frame dirty.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "app.h"
#include "client.h"
#include "display.h"
#include "keys.h"
#include "notice.h"
#include "preview.h"
#include "theme.h"

/* A config or theme error plus its file name and line. */
#define MAX_ERROR 512
/* The config file's bad lines, all of them unless the file is mostly
 * typos. */
#define MAX_CONFIG_REPORT 4096

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

/* v has just taken its place on the stack. */
static void start_view(struct ui_app *app, struct ui_view *v)
{
	app->screen++;
	/* `/` starts empty on a new screen. */
	ui_set_str(&app->saved_filter, NULL);
	if (v->ops->open)
		v->ops->open(v);
	app->dirty = 1;
}

void ui_app_push(struct ui_app *app, struct ui_view *v)
{
	if (app->depth == UI_MAX_VIEWS) {
		/* Drop the oldest screen rather than refuse the new one. */
		ui_view_free(app->stack[0]);
		memmove(app->stack, app->stack + 1,
			(UI_MAX_VIEWS - 1) * sizeof(app->stack[0]));
		app->depth--;
	}
	app->stack[app->depth++] = v;
	start_view(app, v);
}

void ui_app_pop(struct ui_app *app)
{
	if (app->depth == 0)
		return;
	ui_view_free(app->stack[--app->depth]);
	app->screen++;
	/* The screen below had its own filter, which `/` no longer knows:
	 * it stays applied, and Esc takes the user back rather than clear
	 * a filter they cannot see in the prompt. */
	ui_set_str(&app->saved_filter, NULL);
	if (app->depth == 0)
		app->quit = 1;
	else if (app->stack[app->depth - 1]->ops->reveal)
		app->stack[app->depth - 1]->ops->reveal(
			app->stack[app->depth - 1]);
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
	ui_view_free(v);
	app->stack[i] = n;
	start_view(app, n);
}

/* Close the views ui_app_fail marked: after the loop turn, since the
 * marking view's callback is still running then. */
static void close_gone(struct ui_app *app)
{
	size_t i = app->depth;

	while (i > 1) {
		i--;
		if (!app->stack[i]->gone)
			continue;
		ui_view_free(app->stack[i]);
		memmove(app->stack + i, app->stack + i + 1,
			(app->depth - i - 1) * sizeof(app->stack[0]));
		app->depth--;
		app->screen++;
		app->dirty = 1;
	}
}

static void pop_all(struct ui_app *app)
{
	while (app->depth > 0)
		ui_view_free(app->stack[--app->depth]);
}

/* Status line --------------------------------------------------------------- */

static void set_status(struct ui_app *app, int error, const char *fmt,
		       va_list ap)
{
	char msg[MAX_ERROR];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	ui_set_str(&app->status, msg);
	app->status_error = error;
	app->status_screen = app->screen;
	app->status_until = ui_now_ms() + app->options.message_ms;
	app->dirty = 1;
}

/* A message goes when it is old or its screen is no longer on top. */
static void expire_status(struct ui_app *app, int64_t now)
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
	/* No answer at all: the local engine may have gone (reconnect). */
	if (err->code == LC_ETRANSPORT)
		app->link_down = 1;
	else if (err->code != LC_ECANCELLED)
		app->link_down = 0;
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

/* Preview ---------------------------------------------------------------------- */

const char *ui_app_preview_url(const struct ui_app *app)
{
	return app->preview ? ui_preview_url(app->preview) : NULL;
}

/* Mark the screens of the preview at url (its readers, their page
 * lists) for close_gone: its server is about to stop, and going back to
 * them would show a page that can no longer be fetched. */
static void close_preview_screens(struct ui_app *app, const char *url)
{
	const char *site;
	size_t i;

	for (i = 1; url && i < app->depth; i++)
		if (app->stack[i]->ops->site &&
		    (site = app->stack[i]->ops->site(app->stack[i])) != NULL &&
		    strncmp(site, url, strlen(url)) == 0)
			app->stack[i]->gone = 1;
}

/* `:preview [DIR]`: a new preview replaces the running one; the reader
 * opens on its index page once the child has printed its URL
 * (poll_preview). */
static void cmd_preview(struct ui_app *app, const char *dir)
{
	char err[MAX_ERROR];

	if (app->preview)
		close_preview_screens(app, ui_preview_url(app->preview));
	ui_preview_stop(app->preview);
	app->preview = NULL;
	if (ui_preview_start(dir, &app->preview, err, sizeof(err)) < 0) {
		ui_app_error(app, "%s", err);
		return;
	}
	ui_app_message(app, "preview: starting on %s",
		       ui_preview_dir(app->preview));
}

/* Whatever the preview child wrote since the last loop turn. */
static void poll_preview(struct ui_app *app)
{
	char err[MAX_ERROR];

	if (app->preview == NULL)
		return;
	switch (ui_preview_read(app->preview, err, sizeof(err))) {
	case UI_PREVIEW_READY:
		ui_app_push(app, ui_reader_new(app, ui_preview_url(app->preview),
					       NULL));
		ui_app_message(app, "preview of %s at %s",
			       ui_preview_dir(app->preview),
			       ui_preview_url(app->preview));
		break;
	case UI_PREVIEW_EXITED:
		ui_app_error(app, "preview stopped: %s", err);
		ui_preview_stop(app->preview);
		app->preview = NULL;
		break;
	case UI_PREVIEW_NOTHING:
		break;
	}
}

/* The `P` key: the command line, ready to preview the current directory. */
static void prompt_preview(struct ui_app *app)
{
	char cwd[UI_PROMPT_MAX - sizeof("preview ")], text[UI_PROMPT_MAX];

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(cwd, sizeof(cwd), ".");
	snprintf(text, sizeof(text), "preview %s", cwd);
	ui_prompt_start(&app->prompt, ':', text, 0);
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

/* Contexts ---------------------------------------------------------------------- */

/* A client for conn; 0, or -1 with the error in the status line. */
static int connect_client(struct ui_app *app, const struct ui_conn *conn,
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

static void switch_context(struct ui_app *app, const char *name)
{
	struct ui_conn conn = { 0 };
	struct lc_client *client = NULL;
	char err[MAX_ERROR];

	if (app->start->connect == NULL) {
		ui_app_error(app, "contexts are not available here");
		return;
	}
	if (app->start->connect(app->start->payload, name, &conn, err,
				sizeof(err)) < 0) {
		ui_app_error(app, "%s", err);
		goto done;
	}
	if (connect_client(app, &conn, &client) < 0)
		goto done;
	pop_all(app);
	lc_client_free(app->client);
	app->client = client;
	ui_conn_dispose(&app->conn);
	app->conn = conn;
	memset(&conn, 0, sizeof(conn));
	free_projects(app);
	ui_unread_reset(app);
	ui_app_push(app, ui_projects_new(app));
	ui_app_message(app, "context %s", app->conn.name);
done:
	ui_conn_dispose(&conn);
}

static int same_token(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* The local engine stopped answering (it was stopped, or restarted on
 * another port): ask the CLI for it again, which finds it or starts it as
 * any command would, and carry on with a new client when its address
 * changed. The view stack stays; reload (the loop's own look, not the
 * user's R) reloads the screen on top. Blocks while an engine starts
 * (well under a second; the CLI's own limit otherwise), after saying so. */
static void reconnect_local(struct ui_app *app, int reload)
{
	struct ui_conn conn = { 0 };
	struct lc_client *client = NULL;
	struct ui_view *top;
	char err[MAX_ERROR];

	if (app->reconnect_ms == 0)
		app->reconnect_ms = UI_RECONNECT_MS;
	app->next_reconnect = ui_now_ms() + app->reconnect_ms;
	ui_app_message(app, "the local engine does not answer: finding or "
			    "starting it...");
	ui_draw_frame(app);
	if (app->start->connect(app->start->payload, app->conn.name, &conn,
				err, sizeof(err)) < 0) {
		ui_app_error(app, "the local engine: %s", err);
		if ((app->reconnect_ms *= 2) > UI_RECONNECT_MAX_MS)
			app->reconnect_ms = UI_RECONNECT_MAX_MS;
		goto done;
	}
	if (strcmp(conn.api_url, app->conn.api_url) != 0 ||
	    !same_token(conn.token, app->conn.token)) {
		if (connect_client(app, &conn, &client) < 0)
			goto done;
		/* Every request of the old client ends cancelled here. */
		lc_client_free(app->client);
		app->client = client;
		ui_conn_dispose(&app->conn);
		app->conn = conn;
		memset(&conn, 0, sizeof(conn));
		ui_unread_reset(app);
	}
	app->link_down = 0;
	app->reconnect_ms = UI_RECONNECT_MS;
	ui_app_message(app, "the local engine answers at %s", app->conn.api_url);
	if (reload && (top = ui_app_top(app)) && top->ops->on_action)
		top->ops->on_action(top, UI_ACTION_REFRESH);
done:
	ui_conn_dispose(&conn);
}

/* Whether to look for the local engine now: it stopped answering and the
 * last look is old enough. */
static int reconnect_due(const struct ui_app *app, int64_t now)
{
	return app->link_down && app->conn.local && app->start->connect &&
	       now >= app->next_reconnect;
}

/* `:` commands ---------------------------------------------------------------- */

struct command {
	const char *name;
	int needs_arg;
	void (*run)(struct ui_app *app, const char *arg);
};

static void cmd_project(struct ui_app *app, const char *arg)
{
	ui_app_push(app, ui_project_new(app, arg));
}

static void cmd_build(struct ui_app *app, const char *arg)
{
	long long id;

	if (ui_parse_long(arg, &id) < 0) {
		ui_app_error(app, "not a build number: %s", arg);
		return;
	}
	ui_app_push(app, ui_build_new(app, NULL, id));
}

/* `:builds [SLUG]`: a project's builds, or every project's. */
static void cmd_builds(struct ui_app *app, const char *arg)
{
	ui_app_push(app, ui_builds_new(app, arg && *arg ? arg : NULL));
}

/* The project of the topmost screen that has one in focus. */
static const char *focused_project(struct ui_app *app)
{
	const char *slug;
	size_t i;

	for (i = app->depth; i > 0; i--)
		if (app->stack[i - 1]->ops->project &&
		    (slug = app->stack[i - 1]->ops->project(app->stack[i - 1])))
			return slug;
	return NULL;
}

/* `:search [project:SLUG[/VERSION]] QUERY`: the scope written as the
 * service's v3 search writes it, else the project in focus and its
 * "latest". */
static void cmd_search(struct ui_app *app, const char *arg)
{
	const char *project = focused_project(app), *query = arg, *slash;
	char *slug = NULL, *version = NULL;
	size_t n;

	if (arg && strncmp(arg, "project:", 8) == 0) {
		n = strcspn(arg + 8, " ");
		slash = memchr(arg + 8, '/', n);
		slug = ui_xstrndup(arg + 8, slash ? (size_t)(slash - arg - 8) : n);
		if (slash && arg + 8 + n > slash + 1)
			version = ui_xstrndup(slash + 1,
					      (size_t)(arg + 8 + n - slash - 1));
		query = arg + 8 + n + strspn(arg + 8 + n, " ");
		project = slug;
	}
	if (project == NULL || *project == '\0')
		ui_app_error(app, ":search needs a project: select or open "
				  "one, or write project:SLUG[/VERSION]");
	else
		ui_app_push(app, ui_search_new(app, project, version, query));
	free(slug);
	free(version);
}

static void cmd_projects(struct ui_app *app, const char *arg)
{
	(void)arg;
	pop_all(app);
	ui_app_push(app, ui_projects_new(app));
}

static void cmd_orgs(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_push(app, ui_orgs_new(app));
}

static void cmd_notifications(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_push(app, ui_notifications_new(app));
}

static void cmd_context(struct ui_app *app, const char *arg)
{
	switch_context(app, arg);
}

/* Quit, unless a screen shows something live (a running build's log):
 * then ask once; the same request again, or `Q`, quits. */
static void request_quit(struct ui_app *app, int asked)
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

static void cmd_quit(struct ui_app *app, const char *arg)
{
	(void)arg;
	request_quit(app, app->quit_asked);
}

static const struct command commands[] = {
	{ "build", 1, cmd_build },       { "builds", 0, cmd_builds },
	{ "context", 1, cmd_context },   { "orgs", 0, cmd_orgs },
	{ "notifications", 0, cmd_notifications },
	{ "preview", 0, cmd_preview },   { "project", 1, cmd_project },
	{ "projects", 0, cmd_projects }, { "q", 0, cmd_quit },
	{ "quit", 0, cmd_quit },         { "search", 1, cmd_search },
};
#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

void ui_app_command(struct ui_app *app, const char *line)
{
	char word[UI_PROMPT_MAX], arg[UI_PROMPT_MAX];
	size_t i, n;

	/* The first word names the command; the rest of the line, trimmed,
	 * is its argument (a search query may have several words). */
	line += strspn(line, " ");
	n = strcspn(line, " ");
	if (n == 0)
		return;
	snprintf(word, sizeof(word), "%.*s", (int)n, line);
	line += n;
	line += strspn(line, " ");
	snprintf(arg, sizeof(arg), "%s", line);
	for (n = strlen(arg); n > 0 && arg[n - 1] == ' ';)
		arg[--n] = '\0';
	for (i = 0; i < COMMAND_COUNT; i++) {
		if (strcmp(commands[i].name, word) != 0)
			continue;
		if (commands[i].needs_arg && arg[0] == '\0') {
			ui_app_error(app, ":%s needs an argument", word);
			return;
		}
		commands[i].run(app, arg);
		return;
	}
	ui_app_error(app, "unknown command :%s", word);
}

void ui_app_complete(struct ui_app *app)
{
	const char *names[COMMAND_COUNT];
	const struct ui_prompt *p = &app->prompt;
	const char *word = ui_prompt_word(p);
	size_t i;

	if (word == p->text) {
		for (i = 0; i < COMMAND_COUNT; i++)
			names[i] = commands[i].name;
		ui_prompt_complete(&app->prompt, names, COMMAND_COUNT);
	} else if (strncmp(p->text, "project ", 8) == 0 ||
		   strncmp(p->text, "builds ", 7) == 0) {
		ui_prompt_complete(&app->prompt,
				   (const char *const *)app->projects,
				   app->projects_len);
	} else if (strncmp(p->text, "context ", 8) == 0) {
		ui_prompt_complete(&app->prompt, app->start->contexts,
				   app->start->contexts_len);
	}
}

/* Keys ------------------------------------------------------------------------- */

static void filter_top(struct ui_app *app, const char *text)
{
	struct ui_view *top = ui_app_top(app);

	if (top && top->ops->filter) {
		top->ops->filter(top, text);
		ui_view_clamp(top);
	}
}

static void prompt_key(struct ui_app *app, int key)
{
	struct ui_prompt *p = &app->prompt;
	char line[UI_PROMPT_MAX];

	switch (ui_prompt_key(p, key)) {
	case UI_PROMPT_EDITED:
		if (p->kind == '/')
			filter_top(app, p->text);
		break;
	case UI_PROMPT_COMPLETE:
		if (p->kind == ':')
			ui_app_complete(app);
		break;
	case UI_PROMPT_CANCEL:
		if (p->kind == '/')
			filter_top(app, app->saved_filter);
		ui_prompt_stop(p);
		break;
	case UI_PROMPT_DONE:
		snprintf(line, sizeof(line), "%s", p->text);
		ui_prompt_stop(p);
		if (p->kind == ':')
			ui_app_command(app, line);
		else
			ui_set_str(&app->saved_filter, *line ? line : NULL);
		break;
	}
	app->dirty = 1;
}

/* The actions the app itself handles after the view and the generic
 * navigation passed. */
static void app_action(struct ui_app *app, enum ui_action action, int asked)
{
	struct ui_view *top = ui_app_top(app);

	switch (action) {
	case UI_ACTION_BACK:
		/* Esc and q undo the last thing first: an active filter goes
		 * before the screen does, so neither ever quits Lectern from
		 * a filtered first screen (the k9s and lazygit habit). */
		if (app->saved_filter && !top->ops->keeps_filter) {
			filter_top(app, NULL);
			ui_set_str(&app->saved_filter, NULL);
			ui_app_message(app, "filter cleared");
		} else if (app->depth > 1) {
			ui_app_pop(app);
		} else {
			request_quit(app, asked);
		}
		break;
	case UI_ACTION_QUIT:
		app->quit = 1;
		break;
	case UI_ACTION_HELP:
		if (top->ops->kind != UI_VIEW_HELP)
			ui_app_push(app, ui_help_new(app, top));
		break;
	case UI_ACTION_PROMPT:
		ui_prompt_start(&app->prompt, ':', NULL, 0);
		break;
	case UI_ACTION_FILTER:
		if (top->ops->filter)
			ui_prompt_start(&app->prompt, '/', app->saved_filter, 1);
		break;
	case UI_ACTION_PREVIEW:
		prompt_preview(app);
		break;
	case UI_ACTION_NOTIFICATIONS:
		if (top->ops->kind != UI_VIEW_NOTIFICATIONS)
			ui_app_push(app, ui_notifications_new(app));
		break;
	default:
		break;
	}
}

/* An action for the top view: the view first, then the generic
 * navigation, then the app. */
static void run_action(struct ui_app *app, struct ui_view *top,
		       enum ui_action action, int asked)
{
	app->dirty = 1;
	/* R after the local engine went away looks for it first. */
	if (action == UI_ACTION_REFRESH && app->link_down && app->conn.local &&
	    app->start->connect)
		reconnect_local(app, 0);
	if (top->ops->on_action && top->ops->on_action(top, action) == UI_HANDLED)
		return;
	if (ui_view_navigate(top, action) == UI_HANDLED)
		return;
	app_action(app, action, asked);
}

/* The mouse, as curses decodes the terminal's reports (SGR 1006 where
 * the terminal has it): a click on a row selects it, and a wheel step is
 * UI_WHEEL_LINES presses of up or down, so views see ordinary actions
 * (htop's way) and a build's log stops or resumes following as with
 * keys. */
static void handle_mouse(struct ui_app *app)
{
	struct ui_view *top = ui_app_top(app);
	enum ui_action step = UI_ACTION_NONE;
	MEVENT ev;
	int i, y, x;

	if (getmouse(&ev) != OK || top == NULL || app->too_small ||
	    app->prompt.active || top->ops->grab_keys)
		return;
	if (ev.bstate & BUTTON4_PRESSED)
		step = UI_ACTION_UP;
	else if (ev.bstate & BUTTON5_PRESSED)
		step = UI_ACTION_DOWN;
	if (step != UI_ACTION_NONE) {
		for (i = 0; i < UI_WHEEL_LINES; i++)
			run_action(app, top, step, 0);
		return;
	}
	y = ev.y;
	x = ev.x;
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) ||
	    !wmouse_trafo(app->body_win, &y, &x, FALSE) || y < top->head ||
	    top->top + (size_t)(y - top->head) >= top->lines)
		return;
	ui_view_goto(top, top->top + (size_t)(y - top->head));
	app->dirty = 1;
}

static void handle_key(struct ui_app *app, int key)
{
	struct ui_view *top = ui_app_top(app);
	enum ui_action action;
	int asked = app->quit_asked;

	if (key == (UI_KEY_FN | KEY_RESIZE)) {
		ui_layout(app);
		return;
	}
	/* A key is the user's answer to what the status line said: an
	 * error has been seen, and a quit question not repeated at once is
	 * forgotten. */
	if (app->status_error) {
		ui_set_str(&app->status, NULL);
		app->status_error = 0;
		app->dirty = 1;
	}
	app->quit_asked = 0;
	if (key == (UI_KEY_FN | KEY_MOUSE)) {
		handle_mouse(app);
		return;
	}
	if (app->too_small) {
		/* Only quitting makes sense on a screen too small to draw. */
		action = ui_keys_lookup(UI_VIEWS_ALL, key);
		if (action == UI_ACTION_QUIT || action == UI_ACTION_BACK)
			app->quit = 1;
		return;
	}
	if (app->prompt.active) {
		prompt_key(app, key);
		return;
	}
	if (top == NULL)
		return;
	if (top->ops->grab_keys) {
		top->ops->on_key(top, key);
		app->dirty = 1;
		return;
	}
	action = ui_keys_lookup(top->ops->kind, key);
	if (action == UI_ACTION_NONE) {
		if (top->ops->on_key) {
			top->ops->on_key(top, key);
			app->dirty = 1;
		}
		return;
	}
	run_action(app, top, action, asked);
}

/* One key from the terminal in keys.h's encoding; -1 when none is ready. */
static int read_key(struct ui_app *app)
{
	wint_t wc;
	int rc = wget_wch(app->status_win, &wc);

	if (rc == ERR)
		return -1;
	if (rc == KEY_CODE_YES) {
		if (wc == KEY_ENTER)
			return '\n';
		return UI_KEY_FN | (int)wc;
	}
	if (wc == '\r')
		return '\n';
	if (wc == 127 || wc == 8)
		return UI_KEY_FN | KEY_BACKSPACE;
	return (int)wc;
}

/* The loop --------------------------------------------------------------------- */

/* Wait for a key, a socket or the next timer, at most timeout_ms. */
static void wait_input(struct ui_app *app, long timeout_ms)
{
	fd_set rd, wr, ex;
	struct timeval tv;
	long client_ms = lc_async_timeout(app->client);
	int maxfd = STDIN_FILENO;

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	FD_SET(STDIN_FILENO, &rd);
	if (app->preview && ui_preview_fd(app->preview) >= 0) {
		FD_SET(ui_preview_fd(app->preview), &rd);
		if (ui_preview_fd(app->preview) > maxfd)
			maxfd = ui_preview_fd(app->preview);
	}
	lc_async_fdset(app->client, &rd, &wr, &ex, &maxfd);
	if (client_ms >= 0 && client_ms < timeout_ms)
		timeout_ms = client_ms;
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	/* EINTR is a resize (SIGWINCH): curses reports it as KEY_RESIZE. */
	if (select(maxfd + 1, &rd, &wr, &ex, &tv) < 0 && errno != EINTR)
		ui_die("select: %s", strerror(errno));
}

void ui_app_tick_within(struct ui_app *app, long ms)
{
	int64_t at = ui_now_ms() + ms;

	if (at < app->next_tick)
		app->next_tick = at;
}

static void run_loop(struct ui_app *app)
{
	int64_t next_spin = 0, now, wake;
	struct ui_view *top;
	int key;

	while (!app->quit) {
		expire_status(app, ui_now_ms());
		if (app->dirty)
			ui_draw_frame(app);
		now = ui_now_ms();
		ui_unread_poll(app, now);
		wake = app->next_tick;
		if (ui_unread_due(app) < wake)
			wake = ui_unread_due(app);
		if (app->status && !app->status_error && app->status_until < wake)
			wake = app->status_until;
		wait_input(app, lc_async_pending(app->client)
					? UI_SPIN_MS
					: (long)(wake - now > 0 ? wake - now : 0));
		lc_async_perform(app->client);
		if (reconnect_due(app, ui_now_ms()))
			reconnect_local(app, 1);
		close_gone(app);
		poll_preview(app);
		app->now = time(NULL);
		while (!app->quit && (key = read_key(app)) >= 0)
			handle_key(app, key);
		now = ui_now_ms();
		if (lc_async_pending(app->client) && now >= next_spin) {
			app->spin++;
			next_spin = now + UI_SPIN_MS;
			app->dirty = 1;
		}
		if (now >= app->next_tick) {
			app->next_tick = now + UI_TICK_MS;
			top = ui_app_top(app);
			if (top && top->ops->tick && !app->quit)
				top->ops->tick(top);
		}
	}
}

/* Setup --------------------------------------------------------------------------- */

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

/* Keymaps and theme from the config file and --theme; the first problem
 * goes to the status line, and several bad config lines to a notice
 * listing them all (config_report). */
static void load_settings(struct ui_app *app)
{
	char err[MAX_CONFIG_REPORT], terr[MAX_ERROR];
	char *path = ui_config_path(app->start->config_path);
	const char *nl;
	size_t bad = 0;

	ui_keys_reset();
	app->options.theme = ui_xstrdup(app->start->theme);
	app->options.message_ms = UI_MESSAGE_MS;
	if (path && ui_config_load(path, &app->options, err, sizeof(err)) < 0)
		for (bad = 1, nl = err; (nl = strchr(nl, '\n')) != NULL; nl++)
			bad++;
	if (bad > 1)
		app->config_report = ui_xstrdup(err);
	if (ui_theme_apply(app->options.theme, ui_theme_detect_mode(), terr,
			   sizeof(terr)) < 0)
		ui_app_error(app, "%s (using the default theme)", terr);
	else if (bad == 1)
		ui_app_error(app, "%s", err);
	else if (bad > 1)
		ui_app_error(app, "%zu bad lines in %s (listed above)", bad,
			     path);
	free(path);
}

int ui_main(struct ui_start *start)
{
	struct ui_app app;
	int status = 1;

	memset(&app, 0, sizeof(app));
	app.start = start;
	app.conn = start->conn;
	memset(&start->conn, 0, sizeof(start->conn));
	app.now = time(NULL);
	if (ui_display_init() < 0)
		goto done;
	ui_set_die_hook(ui_display_done);
	atexit(ui_display_done);
	load_settings(&app);
	ui_layout(&app);
	if (connect_client(&app, &app.conn, &app.client) < 0) {
		ui_display_done();
		fprintf(stderr, "lectern: %s\n", app.status);
		goto done;
	}
	app.next_tick = ui_now_ms() + UI_TICK_MS;
	ui_unread_reset(&app);
	ui_app_push(&app, ui_projects_new(&app));
	/* Over the first screen, so closing it leaves the user there. */
	if (app.config_report)
		ui_notice_open(&app, "Config file", app.config_report);
	run_loop(&app);
	pop_all(&app);
	ui_preview_stop(app.preview);
	ui_display_done();
	status = 0;
done:
	lc_client_free(app.client);
	if (app.title_win) {
		delwin(app.title_win);
		delwin(app.body_win);
		delwin(app.status_win);
	}
	ui_prompt_stop(&app.prompt);
	free_projects(&app);
	free(app.saved_filter);
	free(app.config_report);
	free(app.status);
	free(app.options.theme);
	ui_conn_dispose(&app.conn);
	return status;
}
