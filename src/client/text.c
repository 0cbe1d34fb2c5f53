/*
 * Text as the CLI and the TUI show it: the terminal filter, and page diffs
 * as unified-diff text.
 *
 * Everything an instance sends is the instance's choice, and so is a
 * build's output and anything a repository put in its warnings: a remote
 * context may be hostile, and a build is hostile code. Written to a
 * terminal as it is, an escape sequence in it would act there (a window
 * title, a screen clear, the clipboard by OSC 52, cursor moves over
 * earlier lines), and so would a C1 control, which some terminals take as
 * an escape's opener. lc_terminal_text is the one filter all of it passes
 * on its way to a terminal, a file or a pipe (a pipe's reader may be
 * less -R): text, line breaks and tabs stay; a build's output keeps its
 * carriage returns (progress lines) and, for a colour terminal, its
 * colour escapes; every other escape and control character goes.
 * (The engine has its own copy for build errors: the client never includes
 * engine code.)
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* Bytes of the escape sequence at p (left bytes remain): CSI (ESC [ ...
 * final byte), OSC (ESC ] ... BEL or ESC \), or ESC and one character. A
 * sequence cut off by the end of the text takes the rest. */
static size_t escape_length(const char *p, size_t left)
{
	size_t i;

	if (left < 2)
		return left;
	if (p[1] == '[') {
		for (i = 2; i < left; i++)
			if ((unsigned char)p[i] >= 0x40 &&
			    (unsigned char)p[i] <= 0x7e)
				return i + 1;
		return left;
	}
	if (p[1] == ']') {
		for (i = 2; i < left; i++) {
			if (p[i] == '\a')
				return i + 1;
			if (p[i] == 0x1b && i + 1 < left && p[i + 1] == '\\')
				return i + 2;
		}
		return left;
	}
	return 2;
}

/* Whether the escape at p, n bytes long, only sets colours and attributes
 * (SGR: ESC [ digits, ';' and ':' m). */
static int is_sgr(const char *p, size_t n)
{
	size_t i;

	if (n < 3 || p[1] != '[' || p[n - 1] != 'm')
		return 0;
	for (i = 2; i + 1 < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || p[i] == ';' ||
		      p[i] == ':'))
			return 0;
	return 1;
}

/* Bytes of the well-formed UTF-8 character of two bytes or more at p
 * (left bytes remain), or 0 when p starts none: a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, or cut off. */
static size_t utf8_length(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* The bytes at p (p[0] >= 0x80, left bytes remain) of one character, or
 * of one byte of malformed UTF-8; *drop set for a C1 control: U+0080..
 * U+009F (0xC2 0x80..0x9F), or a byte 0x80..0x9F outside a character,
 * which a terminal reading 8-bit controls takes as one (0x9B opens a
 * CSI). Other malformed bytes are text to a terminal. */
static size_t high_char(const unsigned char *p, size_t left, int *drop)
{
	size_t n = utf8_length(p, left);

	if (n == 0) {
		*drop = p[0] <= 0x9f;
		return 1;
	}
	*drop = n == 2 && p[0] == 0xc2 && p[1] <= 0x9f;
	return n;
}

/* Whether the ASCII byte c goes: a control other than a line break or a
 * tab (a carriage return stays with LC_TERMINAL_RETURNS), or DEL. */
static int drop_ascii(unsigned char c, unsigned keep)
{
	if (c == '\n' || c == '\t')
		return 0;
	if (c == '\r')
		return !(keep & LC_TERMINAL_RETURNS);
	return c < 0x20 || c == 0x7f;
}

size_t lc_terminal_text(char *text, size_t len, unsigned keep)
{
	size_t in = 0, out = 0, n;
	unsigned char c;
	int drop;

	while (in < len) {
		c = (unsigned char)text[in];
		if (c == 0x1b) {
			n = escape_length(text + in, len - in);
			drop = !(keep & LC_TERMINAL_COLOURS) ||
			       !is_sgr(text + in, n);
		} else if (c >= 0x80) {
			n = high_char((const unsigned char *)text + in,
				      len - in, &drop);
		} else {
			n = 1;
			drop = drop_ascii(c, keep);
		}
		if (!drop) {
			memmove(text + out, text + in, n);
			out += n;
		}
		in += n;
	}
	if (out < len)
		text[out] = '\0';
	return out;
}

/* Page diffs ---------------------------------------------------------------- */

static int status_is(const char *status, const char *want)
{
	return status != NULL && strcmp(status, want) == 0;
}

static void unified_page(struct lc_buf *b, const struct lc_diff *d,
			 const struct lc_diff_page *pg)
{
	const char *path = pg->path ? pg->path : "?";
	const char *base = d->base_ref ? d->base_ref : "base";
	const char *head = d->head_ref ? d->head_ref : "head";
	size_t i, j;

	if (status_is(pg->status, "added"))
		lc__buf_printf(b, "--- /dev/null\n+++ b/%s\t(%s)\n", path,
			       head);
	else
		lc__buf_printf(b, "--- a/%s\t(%s)\n", path, base);
	if (status_is(pg->status, "removed"))
		lc__buf_str(b, "+++ /dev/null\n");
	else if (!status_is(pg->status, "added"))
		lc__buf_printf(b, "+++ b/%s\t(%s)\n", path, head);
	if (!status_is(pg->status, "changed"))
		lc__buf_printf(b, "@@ page %s: %s @@\n", pg->status,
			       pg->title ? pg->title : path);
	else if (pg->base_title)
		lc__buf_printf(b, "@@ page title @@\n-%s\n+%s\n",
			       pg->base_title, pg->title ? pg->title : "");
	for (i = 0; i < pg->sections_len; i++) {
		const struct lc_diff_section *s = &pg->sections[i];

		lc__buf_printf(b, "@@ #%s %s", s->id ? s->id : "",
			       s->title ? s->title : "");
		if (s->base_title)
			lc__buf_printf(b, " (was: %s)", s->base_title);
		if (!status_is(s->status, "changed"))
			lc__buf_printf(b, " (%s)", s->status ? s->status : "?");
		lc__buf_str(b, " @@\n");
		for (j = 0; j < s->lines_len; j++)
			lc__buf_printf(b, "%s\n", s->lines[j]);
	}
}

char *lc_diff_unified(const struct lc_diff *d, const struct lc_diff_page *only)
{
	struct lc_buf b = { 0 };
	size_t i;

	lc__buf_str(&b, "");
	for (i = 0; i < d->pages_len; i++)
		if (only == NULL || only == &d->pages[i])
			unified_page(&b, d, &d->pages[i]);
	if (b.rc != LC_OK) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
