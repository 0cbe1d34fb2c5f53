/*
 * The connection the TUI talks through, changed: to another context
 * (`:context NAME`, Enter on the Contexts screen) or to the local engine
 * found again at another address (loop.c). What the app asked of the old
 * client goes with it (its requests end cancelled; the unread count and
 * the build activity start over), so nothing of one instance is taken
 * for another's.
 */
#ifndef LECTERN_UI_CONTEXT_H
#define LECTERN_UI_CONTEXT_H

struct ui_app;
struct ui_conn;
struct lc_client;

/* Put client (made for *conn) in place of the app's client and conn; both
 * are taken over (*conn is left empty). */
void ui_context_take(struct ui_app *app, struct ui_conn *conn,
		     struct lc_client *client);
/* Talk to context name instead: its client, and its Projects screen alone
 * (every other closes). A context that cannot be reached is said in the
 * status line, and the screens stay. */
void ui_context_switch(struct ui_app *app, const char *name);

#endif
