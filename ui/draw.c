/*
 * Line drawing (see draw.h). Everything goes through one decoder loop so
 * that the width ui_text_width reports is exactly what ui_draw_text
 * draws, which the column layouts rely on.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "draw.h"
#include "util.h"

/* Tab stops in logs and other text. */
#define TAB_WIDTH 8

static const char *const glyphs_utf8[UI_GLYPH_COUNT] = { "─", "…", "▸" };
static const char *const glyphs_ascii[UI_GLYPH_COUNT] = { "-", "~", ">" };
static const char *const *glyphs = glyphs_ascii;

void ui_draw_init(int utf8)
{
	glyphs = utf8 ? glyphs_utf8 : glyphs_ascii;
}

const char *ui_glyph(enum ui_glyph glyph)
{
	return glyphs[glyph];
}

int ui_draw_utf8(void)
{
	return glyphs == glyphs_utf8;
}

/* Decode one character of s (n bytes left) into *wc; the bytes used (at
 * least 1: an invalid byte becomes '?'). */
static size_t next_char(const char *s, size_t n, wchar_t *wc)
{
	mbstate_t st;
	size_t used;

	memset(&st, 0, sizeof(st));
	used = mbrtowc(wc, s, n, &st);
	if (used == 0 || used == (size_t)-1 || used == (size_t)-2) {
		*wc = L'?';
		return 1;
	}
	return used;
}

/* Columns wc takes at column col (tabs to the next stop); control and
 * unprintable characters are drawn as '?'. */
static int char_width(wchar_t *wc, int col)
{
	int cw;

	if (*wc == L'\t')
		return TAB_WIDTH - col % TAB_WIDTH;
	cw = wcwidth(*wc);
	if (cw < 0) {
		*wc = L'?';
		cw = 1;
	}
	return cw;
}

int ui_text_width(const char *s)
{
	size_t n = s ? strlen(s) : 0, used;
	int col = 0;
	wchar_t wc;

	while (n > 0) {
		used = next_char(s, n, &wc);
		col += char_width(&wc, col);
		s += used;
		n -= used;
	}
	return col;
}

const char *ui_text_skip(const char *s, int cols)
{
	size_t n = strlen(s), used;
	int col = 0;
	wchar_t wc;

	while (n > 0 && col < cols) {
		used = next_char(s, n, &wc);
		col += char_width(&wc, col);
		s += used;
		n -= used;
	}
	return s;
}

int ui_draw_match(WINDOW *w, int y, int x, int width, const char *s, int attr,
		  const char *needle, int match_attr)
{
	size_t n = s ? strlen(s) : 0, nlen = needle ? strlen(needle) : 0;
	size_t used, hl_left = 0;
	int col = 0, total = ui_text_width(s), cw, i;
	int room = total > width ? width - 1 : width;
	wchar_t wc;
	cchar_t cc;

	wmove(w, y, x);
	while (n > 0 && col < room) {
		if (nlen && hl_left == 0 && strncasecmp(s, needle, nlen) == 0)
			hl_left = nlen;
		used = next_char(s, n, &wc);
		cw = char_width(&wc, col);
		if (col + cw > room)
			break;
		if (wc == L'\t') {
			for (i = 0; i < cw; i++)
				waddch(w, ' ' | (chtype)(hl_left ? match_attr : attr));
		} else {
			wchar_t str[2] = { wc, 0 };
			int a = hl_left ? match_attr : attr;

			setcchar(&cc, str, (attr_t)a & ~A_COLOR,
				 (short)PAIR_NUMBER(a), NULL);
			wadd_wch(w, &cc);
		}
		hl_left = hl_left > used ? hl_left - used : 0;
		col += cw;
		s += used;
		n -= used;
	}
	if (total > width && width > 0) {
		wattrset(w, attr);
		waddstr(w, ui_glyph(UI_GLYPH_ELLIPSIS));
		wattrset(w, A_NORMAL);
		col++;
	}
	return col;
}

int ui_draw_text(WINDOW *w, int y, int x, int width, const char *s, int attr)
{
	return ui_draw_match(w, y, x, width, s, attr, NULL, attr);
}

void ui_draw_fill(WINDOW *w, int y, int x, int width, int attr)
{
	int i;

	wmove(w, y, x);
	for (i = 0; i < width; i++)
		waddch(w, ' ' | (chtype)attr);
}

void ui_draw_hline(WINDOW *w, int y, int x, int width, int attr)
{
	int i;

	wmove(w, y, x);
	wattrset(w, attr);
	for (i = 0; i < width; i++)
		waddstr(w, ui_glyph(UI_GLYPH_HLINE));
	wattrset(w, A_NORMAL);
}

int ui_draw_wrapped(WINDOW *w, int y, int x, int width, int max_rows,
		    const char *s, int attr)
{
	const char *p = s, *end, *space;
	char *piece;
	int rows = 0;

	while (*p && rows < max_rows && width > 0) {
		end = ui_text_skip(p, width);
		if (*end && rows < max_rows - 1) {
			/* Back to the last space that fits, when there is one. */
			for (space = end; space > p && *space != ' '; space--)
				;
			if (space > p)
				end = space;
		} else if (*end) {
			end = p + strlen(p); /* the last line: cut */
		}
		if (w) {
			piece = ui_xstrndup(p, (size_t)(end - p));
			ui_draw_text(w, y + rows, x, width, piece, attr);
			free(piece);
		}
		rows++;
		for (p = end; *p == ' '; p++)
			;
	}
	return rows;
}
