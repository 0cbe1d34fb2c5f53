/*
 * The terminal (see display.h). Each part is drawn into its window with
 * wnoutrefresh and the screen is updated once per frame with doupdate, so
 * a frame never flickers half-drawn.
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "app.h"
#include "client.h"
#include "display.h"
#include "draw.h"
#include "theme.h"

/* How long curses waits after Esc for the rest of an escape sequence:
 * long enough for a terminal's own sequences, short enough that Esc as
 * "back" feels immediate. */
#define ESC_DELAY_MS 25
/* Columns of an active filter the status line shows (then an ellipsis):
 * enough for a slug or a few words, leaving the message its room. */
#define MAX_FILTER_SHOWN 24

static const char *const spin_utf8[] = { "⠋", "⠙", "⠹", "⠸", "⠼",
					 "⠴", "⠦", "⠧", "⠇", "⠏" };
static const char *const spin_ascii[] = { "|", "/", "-", "\\" };

static int started;

int ui_display_init(void)
{
	const char *codeset;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "lectern: the TUI needs a terminal\n");
		return -1;
	}
	setlocale(LC_ALL, "");
	codeset = nl_langinfo(CODESET);
	ui_draw_init(codeset && strcmp(codeset, "UTF-8") == 0);
	set_escdelay(ESC_DELAY_MS);
	if (newterm(NULL, stdout, stdin) == NULL) {
		fprintf(stderr, "lectern: cannot drive this terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	started = 1;
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	/* Presses, not clicks: a click waits for the release and curses'
	 * click interval, and selecting a row should feel like a key. */
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	return 0;
}

void ui_display_done(void)
{
	if (!started)
		return;
	started = 0;
	endwin();
}

int ui_display_resized(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 ||
	    ws.ws_col == 0 || !is_term_resized(ws.ws_row, ws.ws_col))
		return 0;
	return resizeterm(ws.ws_row, ws.ws_col) == OK;
}

void ui_layout(struct ui_app *app)
{
	int body = LINES - 2 > 1 ? LINES - 2 : 1;

	if (app->title_win) {
		delwin(app->title_win);
		delwin(app->body_win);
		delwin(app->status_win);
	}
	app->title_win = newwin(1, COLS, 0, 0);
	app->body_win = newwin(body, COLS, 1, 0);
	app->status_win = newwin(1, COLS, LINES - 1, 0);
	if (!app->title_win || !app->body_win || !app->status_win)
		ui_die("cannot create the windows");
	/* Keys are read from the status window; nodelay because the loop
	 * has already waited for input with select(). */
	keypad(app->status_win, TRUE);
	nodelay(app->status_win, TRUE);
	app->too_small = COLS < UI_MIN_COLS || LINES < UI_MIN_LINES;
	clearok(curscr, TRUE);
	app->dirty = 1;
}

/* The first screen of the trail that leaves the rest room columns (with
 * an ellipsis before it when it is not the first); the top screen at
 * least. */
static size_t trail_start(const struct ui_app *app, const char *sep, int room)
{
	size_t first = app->depth ? app->depth - 1 : 0, i;
	int need, sepw = ui_text_width(sep);

	while (first > 0) {
		need = ui_text_width(ui_glyph(UI_GLYPH_ELLIPSIS));
		for (i = first - 1; i < app->depth; i++)
			need += sepw + ui_text_width(app->stack[i]->title);
		if (first - 1 == 0)
			need -= ui_text_width(ui_glyph(UI_GLYPH_ELLIPSIS)) +
				sepw;
		if (need > room)
			break;
		first--;
	}
	return first;
}

static void draw_title(struct ui_app *app)
{
	WINDOW *w = app->title_win;
	struct ui_buf trail = UI_BUF_INIT;
	int attr = ui_attr(UI_SLOT_TITLE), width = COLS;
	const char *help = "? help  : command";
	char sep[16];
	size_t i, first;

	snprintf(sep, sizeof(sep), " %s ", ui_glyph(UI_GLYPH_BULLET));
	/* A read-only context says so before anything else on screen. */
	ui_buf_printf(&trail, " Lectern [%s%s]  ", app->conn.name,
		      app->start->readonly || app->conn.readonly ? " read-only"
								  : "");
	/* The engine's state while it does not answer, so a TUI left open
	 * says it (the status line's error goes with the next key). */
	if (app->engine_stopped)
		ui_buf_printf(&trail, "(engine stopped: R starts it)  ");
	else if (app->link_down)
		ui_buf_printf(&trail, "(no answer)  ");
	/* Unread notifications, where the instance has them (`!` shows
	 * them). */
	if (app->unread.count > 0)
		ui_buf_printf(&trail, "[%ld unread]  ", app->unread.count);
	/* The screens from the first; when they do not fit, the oldest give
	 * way to an ellipsis, so the one on top is read whole. */
	first = trail_start(app, sep, width - (int)strlen(help) - 2 -
					      ui_text_width(trail.ptr));
	if (first > 0)
		ui_buf_printf(&trail, "%s", ui_glyph(UI_GLYPH_ELLIPSIS));
	for (i = first; i < app->depth; i++)
		ui_buf_printf(&trail, "%s%s", i || first ? sep : "",
			      app->stack[i]->title);
	ui_draw_fill(w, 0, 0, width, attr);
	ui_draw_text(w, 0, 0, width - (int)strlen(help) - 2, trail.ptr, attr);
	ui_draw_text(w, 0, width - (int)strlen(help) - 1, (int)strlen(help),
		     help, attr);
	ui_buf_dispose(&trail);
	wnoutrefresh(w);
}

/* While `/` is typed, what the screen says about it ("not found: x",
 * "3 lines with x") at the right of the prompt, when it fits: the status
 * line itself is the prompt then. */
static void draw_prompt_status(struct ui_app *app, WINDOW *w, int width)
{
	int tw, x;

	if (app->prompt.kind != '/' || app->status == NULL)
		return;
	tw = ui_text_width(app->status);
	x = width - tw - 1;
	if (x < ui_text_width(app->prompt.text) + 4)
		return;
	ui_draw_text(w, 0, x, tw, app->status,
		     ui_attr(app->status_error ? UI_SLOT_STATUS_ERROR
					       : UI_SLOT_DIM));
}

/* The top screen's active filter at the right of the status line, before
 * the position, so a list it empties never looks like an empty instance
 * and Esc's first job is in sight; the columns taken from the right, 0
 * for none. */
static int draw_filter(const struct ui_view *top, WINDOW *w, int right_x)
{
	const char *f, *cut;
	char *text;
	int tw;

	if (top == NULL || (f = top->filter) == NULL || top->ops->keeps_filter)
		return 0;
	cut = ui_text_width(f) > MAX_FILTER_SHOWN
		      ? ui_text_skip(f, MAX_FILTER_SHOWN - 1)
		      : f + strlen(f);
	text = ui_xasprintf("/%.*s%s", (int)(cut - f), f,
			    *cut ? ui_glyph(UI_GLYPH_ELLIPSIS) : "");
	tw = ui_text_width(text);
	/* The message keeps at least half the line. */
	if (right_x - tw - 2 >= right_x / 2)
		ui_draw_text(w, 0, right_x - tw - 2, tw, text,
			     ui_attr(UI_SLOT_MATCH));
	else
		tw = -2;
	free(text);
	return tw + 2;
}

static void draw_status(struct ui_app *app)
{
	WINDOW *w = app->status_win;
	struct ui_view *top = ui_app_top(app);
	int width = COLS, right_x, filter_w;
	char right[64];
	const char *spin = "";

	if (app->prompt.active) {
		ui_prompt_draw(&app->prompt, w, 0, width);
		draw_prompt_status(app, w, width);
		wnoutrefresh(w);
		return;
	}
	if (lc_async_pending(app->client) > 0)
		spin = ui_draw_utf8()
			       ? spin_utf8[app->spin % (sizeof(spin_utf8) /
							sizeof(spin_utf8[0]))]
			       : spin_ascii[app->spin % (sizeof(spin_ascii) /
							 sizeof(spin_ascii[0]))];
	snprintf(right, sizeof(right), "%s %zu/%zu", spin,
		 top && top->lines ? top->cursor + 1 : 0,
		 top ? top->lines : 0);
	right_x = width - ui_text_width(right) - 1;
	ui_draw_fill(w, 0, 0, width, ui_attr(UI_SLOT_STATUS));
	filter_w = draw_filter(top, w, right_x);
	if (app->status)
		ui_draw_text(w, 0, 0, right_x - filter_w - 1, app->status,
			     ui_attr(app->status_error ? UI_SLOT_STATUS_ERROR
						       : UI_SLOT_STATUS));
	ui_draw_text(w, 0, right_x, width - right_x, right,
		     ui_attr(UI_SLOT_STATUS));
	wnoutrefresh(w);
}

static void draw_too_small(void)
{
	char msg[96];
	int len;

	snprintf(msg, sizeof(msg), "Terminal too small: %dx%d (needs %dx%d)",
		 COLS, LINES, UI_MIN_COLS, UI_MIN_LINES);
	len = (int)strlen(msg);
	werase(stdscr);
	mvwaddnstr(stdscr, LINES / 2, len < COLS ? (COLS - len) / 2 : 0, msg,
		   COLS);
	wnoutrefresh(stdscr);
}

void ui_draw_frame(struct ui_app *app)
{
	struct ui_view *top = ui_app_top(app);

	if (app->too_small) {
		draw_too_small();
	} else {
		draw_title(app);
		if (top)
			ui_view_draw(top, app->body_win);
		draw_status(app);
	}
	doupdate();
	app->dirty = 0;
}
