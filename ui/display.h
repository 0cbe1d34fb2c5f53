/*
 * The terminal: starting and restoring curses, the three windows (title
 * line, body, status line) and their geometry, and drawing a whole frame.
 * ui_layout is the only function that computes geometry; resize goes
 * through it (KEY_RESIZE, no SIGWINCH handler of our own).
 */
#ifndef LECTERN_UI_DISPLAY_H
#define LECTERN_UI_DISPLAY_H

struct ui_app;

/* Start curses (locale, keys, theme); 0, or -1 when stdin/stdout is not
 * a terminal curses can drive (the reason printed). */
int ui_display_init(void);
/* Restore the terminal; safe to call twice (atexit and die hook). */
void ui_display_done(void);
/* (Re)create the windows for the current LINES x COLS. */
void ui_layout(struct ui_app *app);
/* Whether the terminal's size differs from what curses believes, which
 * is then brought in line (resizeterm): a resize whose SIGWINCH came
 * while curses was starting, before its handler, is otherwise never seen.
 * The caller lays the windows out again. */
int ui_display_resized(void);
/* Draw the title line, the top view (or the too-small message) and the
 * status line, then update the screen once. */
void ui_draw_frame(struct ui_app *app);

#endif
