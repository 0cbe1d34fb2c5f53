/*
 * Drawing one line at a time: UTF-8 text clipped to a width in terminal
 * columns (wide characters count twice, control characters are shown as
 * '?'), a matched word highlighted, and the box-drawing glyphs with their
 * ASCII fallbacks for terminals whose locale is not UTF-8.
 */
#ifndef LECTERN_UI_DRAW_H
#define LECTERN_UI_DRAW_H

#include <curses.h>

enum ui_glyph {
	UI_GLYPH_HLINE,   /* ─ or - */
	UI_GLYPH_ELLIPSIS, /* … or ~ : text cut at the edge */
	UI_GLYPH_BULLET,  /* ▸ or > */
	UI_GLYPH_COUNT
};

/* Choose the glyph set: utf8 non-zero when the locale's codeset is
 * UTF-8. */
void ui_draw_init(int utf8);
const char *ui_glyph(enum ui_glyph glyph);
/* Non-zero when the UTF-8 glyphs are in use. */
int ui_draw_utf8(void);

/* Draw s at (y, x) in at most width columns with attr, cutting it with
 * an ellipsis when it is longer; the columns used. Tabs become spaces. */
int ui_draw_text(WINDOW *w, int y, int x, int width, const char *s, int attr);
/* Same, drawing each case-insensitive occurrence of needle (may be NULL)
 * with match_attr. */
int ui_draw_match(WINDOW *w, int y, int x, int width, const char *s, int attr,
		  const char *needle, int match_attr);
/* Draw s wrapped at spaces into at most max_rows lines of width columns
 * from (y, x), the last line allowed cut with an ellipsis; the lines it
 * takes. w NULL: only count them. */
int ui_draw_wrapped(WINDOW *w, int y, int x, int width, int max_rows,
		    const char *s, int attr);
/* Fill width columns from (y, x) with spaces in attr. */
void ui_draw_fill(WINDOW *w, int y, int x, int width, int attr);
/* A horizontal rule of width columns. */
void ui_draw_hline(WINDOW *w, int y, int x, int width, int attr);
/* The width of s in columns, as ui_draw_text counts it. */
int ui_text_width(const char *s);
/* Where s goes on after its first cols columns (a character cut in two
 * is skipped whole): for horizontal scrolling. */
const char *ui_text_skip(const char *s, int cols);

#endif
