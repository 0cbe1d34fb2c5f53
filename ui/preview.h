/*
 * The writers' preview from inside the TUI (`:preview [DIR]`): a child
 * `lectern preview DIR --port 0` whose stdout and stderr come back on a
 * non-blocking pipe, so the loop learns the preview's URL from its first
 * line without ever waiting for it, and nothing the child prints reaches
 * the curses screen. The app owns at most one; starting another or
 * quitting stops it.
 */
#ifndef LECTERN_UI_PREVIEW_H
#define LECTERN_UI_PREVIEW_H

#include <stddef.h>

struct ui_preview;

/* What ui_preview_read found. */
enum ui_preview_event {
	UI_PREVIEW_NOTHING = 0, /* nothing new */
	UI_PREVIEW_READY,       /* the URL is known (reported once) */
	UI_PREVIEW_EXITED       /* the child has gone (reaped); see err */
};

/*
 * Start `lectern preview dir --port 0` (this binary, /proc/self/exe).
 * @param dir the tree to preview; NULL or "" is the current directory
 * @param out the new preview (free with ui_preview_stop)
 * @return 0, or -1 with a one-line reason in err
 */
int ui_preview_start(const char *dir, struct ui_preview **out, char *err,
		     size_t errsize);

/* The pipe to watch for reading (select), or -1 once the child has gone. */
int ui_preview_fd(const struct ui_preview *p);

/*
 * Drain what the child wrote, without blocking. After UI_PREVIEW_EXITED,
 * err holds the child's last line (or how it ended).
 */
enum ui_preview_event ui_preview_read(struct ui_preview *p, char *err,
				      size_t errsize);

/* "http://127.0.0.1:PORT/" once READY was reported, else NULL. */
const char *ui_preview_url(const struct ui_preview *p);

/* The directory given, as the child got it. */
const char *ui_preview_dir(const struct ui_preview *p);

/* Stop the child (SIGTERM, then SIGKILL if it lingers), reap it and free
 * p. NULL is a no-op. */
void ui_preview_stop(struct ui_preview *p);

#endif
