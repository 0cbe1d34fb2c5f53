/*
 * A notice the user must dismiss: something shown once that cannot be
 * read again (a new integration's secret), so it stays on screen until
 * Enter, Esc or q closes it, whatever else is pressed. Its text is wiped
 * (explicit_bzero) when it closes.
 */
#ifndef LECTERN_UI_NOTICE_H
#define LECTERN_UI_NOTICE_H

struct ui_app;

/* Show title over text (lines separated by '\n'; copied) on top of the
 * screen stack. */
void ui_notice_open(struct ui_app *app, const char *title, const char *text);

#endif
