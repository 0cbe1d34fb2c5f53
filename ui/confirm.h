/*
 * The confirmation a destructive action asks for: one question naming
 * what will go, answered with y (go ahead) or anything else (nothing is
 * sent). The write then belongs to the screen that asked, so its answer
 * reaches that screen's on_data even though the dialog has closed.
 */
#ifndef LECTERN_UI_CONFIRM_H
#define LECTERN_UI_CONFIRM_H

struct ui_app;
struct ui_view;

/* Ask question over parent; y sends method to path with body (may be
 * NULL) for parent, whose on_data gets tag, and done goes to the status
 * line on success (the server's message on failure). */
void ui_confirm_open(struct ui_app *app, struct ui_view *parent, int tag,
		     const char *question, const char *method,
		     const char *path, const char *body, const char *done);

#endif
