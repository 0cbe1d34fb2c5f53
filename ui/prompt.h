/*
 * The one-line editor in the status line, for the `:` command line and
 * the `/` filter: printable characters, Backspace, C-u (clear), C-w
 * (delete a word), Enter, Esc, and Tab completion of the last word from
 * candidates the caller supplies.
 */
#ifndef LECTERN_UI_PROMPT_H
#define LECTERN_UI_PROMPT_H

#include <curses.h>
#include <stddef.h>

/* A command or filter is a line typed by hand. */
#define UI_PROMPT_MAX 256

enum ui_prompt_result {
	UI_PROMPT_EDITED,   /* the text changed (or not): keep going */
	UI_PROMPT_DONE,     /* Enter */
	UI_PROMPT_CANCEL,   /* Esc, or Backspace on an empty line */
	UI_PROMPT_COMPLETE, /* Tab: the caller calls ui_prompt_complete */
};

struct ui_prompt {
	int active;
	char kind;                 /* ':' or '/' */
	char text[UI_PROMPT_MAX];
	size_t len;
	char *hint;                /* candidates shown after Tab; owned */
	int selected;              /* the text is selected: typing replaces it */
};

/* Start editing text (may be NULL); select: the text starts selected, so
 * the first character typed replaces it (an old query or filter), while
 * Enter keeps it and the arrows or Tab deselect it. */
void ui_prompt_start(struct ui_prompt *p, char kind, const char *text,
		     int select);
void ui_prompt_stop(struct ui_prompt *p);
/* Feed one key (as keys.h encodes it). */
enum ui_prompt_result ui_prompt_key(struct ui_prompt *p, int key);
/* Complete the last word from the candidates: the one match (and a space
 * after it, unless it ends in a slash: a directory), or the matches'
 * common prefix with the matches listed as a hint. */
void ui_prompt_complete(struct ui_prompt *p, const char *const *cands,
			size_t n);
/* The start of the last word (what completion replaces). */
const char *ui_prompt_word(const struct ui_prompt *p);
/* Draw on line y of w. */
void ui_prompt_draw(const struct ui_prompt *p, WINDOW *w, int y, int width);

#endif
