/*
 * The main loop (ui_main): it waits in select() on the terminal, the
 * client's sockets and the `:preview` child's pipe at once, with a
 * timeout that is the earliest of the client's own timer, the next poll
 * tick and the spinner's next frame; it reads keys and runs them through
 * the keymaps (the view first, then the generic navigation, then the app's
 * own actions), edits the prompt, finds the local engine again when it
 * stopped answering, and sets all of it up and tears it down. Answers
 * reach views through on_data, called from lc_async_perform on this
 * thread; views never draw from callbacks, they only mark the frame dirty.
 * It is the top of the TUI: it calls the app, the command line, the
 * display and, through the table of screens it fills in, the views.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "app.h"
#include "client.h"
#include "command.h"
#include "context.h"
#include "display.h"
#include "keys.h"
#include "notice.h"
#include "preview.h"
#include "theme.h"
#include "views/warnings.h"

/* The config file's bad lines, all of them unless the file is mostly
 * typos. */
#define MAX_CONFIG_REPORT 4096

/* Preview ---------------------------------------------------------------------- */

/* Whatever the preview child wrote since the last loop turn. */
static void poll_preview(struct ui_app *app)
{
	char err[UI_MESSAGE_MAX];

	if (app->preview == NULL)
		return;
	switch (ui_preview_read(app->preview, err, sizeof(err))) {
	case UI_PREVIEW_READY:
		ui_app_push(app, app->screens->reader(
					 app, ui_preview_url(app->preview),
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

/* The local engine ---------------------------------------------------------------- */

static int same_token(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* The local engine stopped answering (it was stopped, or restarted on
 * another port): ask the CLI for it again, which finds it or starts it as
 * any command would, and carry on with a new client when its address
 * changed. An engine someone stopped on purpose (`lectern stop`, a stop
 * signal) is not started again: the TUI says so and looks again now and
 * then (someone else may start it, and then it is found), and only the
 * user's R (asked) starts it. The view stack stays; reload (the loop's
 * own look, not the user's R) reloads the screen on top. Blocks while an
 * engine starts (well under a second; the CLI's own limit otherwise),
 * after saying so. */
static void reconnect_local(struct ui_app *app, int reload, int asked)
{
	struct ui_conn conn = { 0 };
	struct lc_client *client = NULL;
	struct ui_view *top;
	char err[UI_MESSAGE_MAX];

	if (app->reconnect_ms == 0)
		app->reconnect_ms = UI_RECONNECT_MS;
	app->next_reconnect = ui_now_ms() + app->reconnect_ms;
	if (!asked && app->start->stopped &&
	    app->start->stopped(app->start->payload)) {
		if (!app->engine_stopped)
			ui_app_error(app, "the local engine was stopped "
					  "('lectern stop'): R starts it again");
		app->engine_stopped = 1;
		app->next_reconnect = ui_now_ms() + UI_RECONNECT_MS;
		app->dirty = 1;
		return;
	}
	ui_app_message(app, app->engine_stopped
				    ? "starting the local engine..."
				    : "the local engine does not answer: "
				      "finding or starting it...");
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
		if (ui_app_connect(app, &conn, &client) < 0)
			goto done;
		ui_context_take(app, &conn, client);
	}
	app->link_down = 0;
	app->link_back = 0;
	app->engine_stopped = 0;
	app->reload_asked = 0;
	app->reconnect_ms = UI_RECONNECT_MS;
	ui_app_message(app, "the local engine answers at %s", app->conn.api_url);
	if (reload && (top = ui_app_top(app)) && top->ops->on_action)
		top->ops->on_action(top, UI_ACTION_REFRESH);
done:
	ui_conn_dispose(&conn);
}

/* An answer came after requests got none (a remote engine restarted, an
 * ssh link brought back by its watcher, the local engine started by
 * someone else on its old port): the error that said so is over, and the
 * screen on top loads again, without waiting for a key. */
static void link_came_back(struct ui_app *app)
{
	struct ui_view *top = ui_app_top(app);

	app->link_back = 0;
	app->engine_stopped = 0;
	app->reconnect_ms = UI_RECONNECT_MS;
	if (app->status_error) {
		ui_set_str(&app->status, NULL);
		app->status_error = 0;
	}
	if (app->conn.link_name)
		ui_app_message(app, "the engine answers again through %s",
			       app->conn.link_name);
	else
		ui_app_message(app, "%s answers again", app->conn.api_url);
	if (top && top->ops->on_action)
		top->ops->on_action(top, UI_ACTION_REFRESH);
}

/* Whether to look for the local engine now: it stopped answering and the
 * last look is old enough. */
static int reconnect_due(const struct ui_app *app, int64_t now)
{
	return app->link_down && app->conn.local && app->start->connect &&
	       now >= app->next_reconnect;
}

/* Keys ------------------------------------------------------------------------- */

static void filter_top(struct ui_app *app, const char *text)
{
	struct ui_view *top = ui_app_top(app);

	if (top)
		ui_view_set_filter(top, text);
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
			ui_command_complete(app);
		break;
	case UI_PROMPT_CANCEL:
		if (p->kind == '/')
			filter_top(app, app->saved_filter);
		ui_set_str(&app->saved_filter, NULL);
		ui_prompt_stop(p);
		break;
	case UI_PROMPT_DONE:
		snprintf(line, sizeof(line), "%s", p->text);
		ui_prompt_stop(p);
		if (p->kind == ':')
			ui_command_run(app, line);
		ui_set_str(&app->saved_filter, NULL);
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
		 * a filtered first screen (the k9s and lazygit habit), nor
		 * leaves a screen whose filter was set before another screen
		 * came and went over it. */
		if (top->filter && !top->ops->keeps_filter) {
			filter_top(app, NULL);
			ui_app_message(app, "filter cleared");
		} else if (app->depth > 1) {
			ui_app_pop(app);
		} else {
			ui_app_request_quit(app, asked);
		}
		break;
	case UI_ACTION_QUIT:
		app->quit = 1;
		break;
	case UI_ACTION_HELP:
		if (top->ops->kind != UI_VIEW_HELP)
			ui_app_push(app, app->screens->help(app, top));
		break;
	case UI_ACTION_PROMPT:
		ui_prompt_start(&app->prompt, ':', NULL, 0);
		break;
	case UI_ACTION_FILTER:
		/* Esc in the prompt puts back what was applied before. */
		if (top->ops->filter) {
			ui_set_str(&app->saved_filter, top->filter);
			ui_prompt_start(&app->prompt, '/', top->filter, 1);
		}
		break;
	case UI_ACTION_PREVIEW:
		prompt_preview(app);
		break;
	case UI_ACTION_NOTIFICATIONS:
		if (top->ops->kind != UI_VIEW_NOTIFICATIONS)
			ui_app_push(app, app->screens->notifications(app));
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
	/* R after the local engine went away looks for it first (and starts
	 * it even when it was stopped on purpose: R is the user asking); an
	 * R whose reload finds it gone does the same. */
	if (action == UI_ACTION_REFRESH)
		app->reload_asked = 1;
	if (action == UI_ACTION_REFRESH && app->link_down && app->conn.local &&
	    app->start->connect)
		reconnect_local(app, 0, 1);
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

static void run_loop(struct ui_app *app)
{
	int64_t next_spin = 0, now, wake;
	struct ui_view *top;
	int key;

	while (!app->quit) {
		if (ui_display_resized())
			ui_layout(app);
		ui_app_expire_status(app, ui_now_ms());
		if (app->dirty)
			ui_draw_frame(app);
		now = ui_now_ms();
		ui_unread_poll(app, now);
		ui_activity_poll(app, now);
		wake = app->next_tick;
		if (ui_unread_due(app) < wake)
			wake = ui_unread_due(app);
		if (ui_activity_due(app) < wake)
			wake = ui_activity_due(app);
		if (app->status && !app->status_error && app->status_until < wake)
			wake = app->status_until;
		wait_input(app, lc_async_pending(app->client)
					? UI_SPIN_MS
					: (long)(wake - now > 0 ? wake - now : 0));
		lc_async_perform(app->client);
		if (app->link_back)
			link_came_back(app);
		if (reconnect_due(app, ui_now_ms()))
			reconnect_local(app, 1, app->reload_asked);
		ui_app_close_gone(app);
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

/* Keymaps and theme from the config file and --theme; the first problem
 * goes to the status line, and several bad config lines to a notice
 * listing them all (config_report). */
static void load_settings(struct ui_app *app)
{
	char err[MAX_CONFIG_REPORT], terr[UI_MESSAGE_MAX];
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

/* Every screen by what it shows, for views to open one another. */
static const struct ui_screens screens = {
	.projects = ui_projects_new,
	.project = ui_project_new,
	.builds = ui_builds_new,
	.build = ui_build_new,
	.search = ui_search_new,
	.reader = ui_reader_new,
	.orgs = ui_orgs_new,
	.pages = ui_pages_new,
	.diff = ui_diff_new,
	.notifications = ui_notifications_new,
	.contexts = ui_contexts_new,
	.help = ui_help_new,
	.warnings = ui_warnings_new,
};

int ui_main(struct ui_start *start)
{
	struct ui_app app;
	int status = 1;

	memset(&app, 0, sizeof(app));
	app.start = start;
	app.screens = &screens;
	app.conn = start->conn;
	memset(&start->conn, 0, sizeof(start->conn));
	app.now = time(NULL);
	if (ui_display_init() < 0)
		goto done;
	ui_set_die_hook(ui_display_done);
	atexit(ui_display_done);
	load_settings(&app);
	ui_layout(&app);
	if (ui_app_connect(&app, &app.conn, &app.client) < 0) {
		ui_display_done();
		fprintf(stderr, "lectern: %s\n", app.status);
		goto done;
	}
	app.next_tick = ui_now_ms() + UI_TICK_MS;
	ui_unread_reset(&app);
	ui_activity_reset(&app);
	ui_app_push(&app, app.screens->projects(&app));
	/* Over the first screen, so closing it leaves the user there. */
	if (app.config_report)
		ui_notice_open(&app, "Config file", app.config_report);
	run_loop(&app);
	ui_app_pop_all(&app);
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
	ui_app_set_projects(&app, NULL, 0);
	ui_activity_reset(&app);
	free(app.saved_filter);
	free(app.config_report);
	free(app.status);
	free(app.options.theme);
	ui_conn_dispose(&app.conn);
	return status;
}
