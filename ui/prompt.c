/*
 * The status line editor (see prompt.h). Text is kept as UTF-8 bytes;
 * Backspace removes a whole character.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "draw.h"
#include "keys.h"
#include "prompt.h"
#include "theme.h"
#include "util.h"

/* Candidates listed after an ambiguous Tab, before "...". */
#define MAX_HINTS 8

void ui_prompt_start(struct ui_prompt *p, char kind, const char *text,
		     int select)
{
	p->active = 1;
	p->kind = kind;
	snprintf(p->text, sizeof(p->text), "%s", text ? text : "");
	p->len = strlen(p->text);
	p->selected = select && p->len > 0;
	ui_set_str(&p->hint, NULL);
}

void ui_prompt_stop(struct ui_prompt *p)
{
	p->active = 0;
	p->selected = 0;
	p->len = 0;
	p->text[0] = '\0';
	ui_set_str(&p->hint, NULL);
}

static void delete_char(struct ui_prompt *p)
{
	/* Back over UTF-8 continuation bytes to the character's start. */
	while (p->len > 0 && ((unsigned char)p->text[--p->len] & 0xc0) == 0x80)
		;
	p->text[p->len] = '\0';
}

static void delete_word(struct ui_prompt *p)
{
	while (p->len > 0 && p->text[p->len - 1] == ' ')
		p->len--;
	while (p->len > 0 && p->text[p->len - 1] != ' ')
		p->len--;
	p->text[p->len] = '\0';
}

static void insert_char(struct ui_prompt *p, int key)
{
	char mb[MB_LEN_MAX];
	mbstate_t st;
	size_t n;

	memset(&st, 0, sizeof(st));
	n = wcrtomb(mb, (wchar_t)key, &st);
	if (n == (size_t)-1 || p->len + n >= sizeof(p->text))
		return;
	memcpy(p->text + p->len, mb, n);
	p->len += n;
	p->text[p->len] = '\0';
}

enum ui_prompt_result ui_prompt_key(struct ui_prompt *p, int key)
{
	int selected = p->selected;

	ui_set_str(&p->hint, NULL);
	p->selected = 0;
	/* A selected text goes as a whole under the first character or
	 * deletion typed; other keys only deselect it. */
	if (selected && (key == (UI_KEY_FN | KEY_BACKSPACE) ||
			 key == ('U' & 0x1f) || key == ('W' & 0x1f) ||
			 (!(key & UI_KEY_FN) && key >= ' '))) {
		p->len = 0;
		p->text[0] = '\0';
		if (key & UI_KEY_FN || key < ' ')
			return UI_PROMPT_EDITED;
	}
	switch (key) {
	case '\n':
		return UI_PROMPT_DONE;
	case UI_KEY_ESC:
		return UI_PROMPT_CANCEL;
	case '\t':
		return UI_PROMPT_COMPLETE;
	case UI_KEY_FN | KEY_BACKSPACE:
		if (p->len == 0)
			return UI_PROMPT_CANCEL;
		delete_char(p);
		return UI_PROMPT_EDITED;
	case 'U' & 0x1f:
		p->len = 0;
		p->text[0] = '\0';
		return UI_PROMPT_EDITED;
	case 'W' & 0x1f:
		delete_word(p);
		return UI_PROMPT_EDITED;
	default:
		if (!(key & UI_KEY_FN) && key >= ' ')
			insert_char(p, key);
		return UI_PROMPT_EDITED;
	}
}

const char *ui_prompt_word(const struct ui_prompt *p)
{
	const char *space = strrchr(p->text, ' ');

	return space ? space + 1 : p->text;
}

void ui_prompt_complete(struct ui_prompt *p, const char *const *cands,
			size_t n)
{
	size_t start = (size_t)(ui_prompt_word(p) - p->text);
	size_t wlen = p->len - start, common = 0, matches = 0, i, j, dir;
	const char *first = NULL;
	struct ui_buf hint = UI_BUF_INIT;

	/* The hint names the choices by what differs: a path's last part. */
	for (dir = wlen; dir > 0 && p->text[start + dir - 1] != '/'; dir--)
		;

	for (i = 0; i < n; i++) {
		if (strncmp(cands[i], p->text + start, wlen) != 0)
			continue;
		if (first == NULL) {
			first = cands[i];
			common = strlen(first);
		}
		for (j = 0; j < common && cands[i][j] == first[j]; j++)
			;
		common = j;
		if (matches < MAX_HINTS)
			ui_buf_printf(&hint, "%s%s", matches ? " " : "",
				      cands[i] + dir);
		else if (matches == MAX_HINTS)
			ui_buf_puts(&hint, " ...");
		matches++;
	}
	if (first && start + common + 1 < sizeof(p->text)) {
		memcpy(p->text + start, first, common);
		p->len = start + common;
		/* A directory goes on with its own names: no space after
		 * it. */
		if (matches == 1 && p->len + 1 < sizeof(p->text) &&
		    (common == 0 || first[common - 1] != '/'))
			p->text[p->len++] = ' ';
		p->text[p->len] = '\0';
	}
	if (matches > 1)
		p->hint = ui_buf_take(&hint);
	ui_buf_dispose(&hint);
}

void ui_prompt_draw(const struct ui_prompt *p, WINDOW *w, int y, int width)
{
	int attr = ui_attr(UI_SLOT_PROMPT), used;
	char lead[2] = { p->kind, '\0' };

	ui_draw_fill(w, y, 0, width, ui_attr(UI_SLOT_STATUS));
	used = ui_draw_text(w, y, 0, width, lead, attr);
	used += ui_draw_text(w, y, used, width - used, p->text,
			     p->selected ? attr | (int)A_REVERSE : attr);
	/* The cursor: a reverse space after the text. */
	if (used < width)
		mvwaddch(w, y, used++, ' ' | A_REVERSE);
	if (p->hint && used + 2 < width)
		ui_draw_text(w, y, used + 2, width - used - 2, p->hint,
			     ui_attr(UI_SLOT_DIM));
}
