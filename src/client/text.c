/*
 * Text as the CLI and the TUI show it: build logs, and page diffs as
 * unified-diff text. A build's recorded
 * output is the generator's raw bytes, colour escapes included (a log keeps
 * what the tool wrote); a terminal view draws them as stray '?[31m' and a
 * file or pipe gets them literally, so both remove them before showing.
 * A terminal that shows them as colours gets the colours only: a build is
 * hostile code, and its other escapes (a window title, the clipboard by
 * OSC 52, cursor moves over earlier lines) would act on the reader's
 * terminal.
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

size_t lc_strip_ansi(char *text, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		if (text[in] == 0x1b) {
			in += escape_length(text + in, len - in);
			continue;
		}
		text[out++] = text[in++];
	}
	if (out < len)
		text[out] = '\0';
	return out;
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

size_t lc_terminal_text(char *text, size_t len)
{
	size_t in = 0, out = 0, n;
	unsigned char c;

	while (in < len) {
		c = (unsigned char)text[in];
		if (c == 0x1b) {
			n = escape_length(text + in, len - in);
			if (is_sgr(text + in, n)) {
				memmove(text + out, text + in, n);
				out += n;
			}
			in += n;
			continue;
		}
		/* C1 controls as UTF-8 (U+0080..U+009F: 0xC2 0x80..0x9F),
		 * which some terminals take as ESC-sequences' openers. */
		if (c == 0xc2 && in + 1 < len &&
		    (unsigned char)text[in + 1] >= 0x80 &&
		    (unsigned char)text[in + 1] <= 0x9f) {
			in += 2;
			continue;
		}
		if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') ||
		    c == 0x7f) {
			in++;
			continue;
		}
		text[out++] = text[in++];
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
