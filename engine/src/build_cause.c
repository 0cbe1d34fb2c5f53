/*
 * The cause of a failed build command, for the build's `error`: a person
 * reading the API or the TUI should see "The "redirects" plugin is not
 * installed", not "exit code 1". Generators print their error last (MkDocs'
 * "Error: ...", Sphinx's "Extension error: ..." or a traceback's exception
 * line, pip's "ERROR: ..."), so the runner keeps the last bytes of each
 * command's output in a ring and, on failure, the last line that names an
 * error or an exception is taken, ANSI colour sequences removed.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "pipeline_internal.h"

void lec__tail_add(struct lec__tail *t, const char *data, size_t len)
{
	/* Only the last LEC__TAIL_MAX bytes can survive. */
	if (len > LEC__TAIL_MAX) {
		data += len - LEC__TAIL_MAX;
		len = LEC__TAIL_MAX;
	}
	while (len > 0) {
		size_t n = LEC__TAIL_MAX - t->next;

		if (n > len)
			n = len;
		memcpy(t->buf + t->next, data, n);
		t->next = (t->next + n) % LEC__TAIL_MAX;
		t->len = t->len + n > LEC__TAIL_MAX ? LEC__TAIL_MAX : t->len + n;
		data += n;
		len -= n;
	}
}

/* ESC [ parameters intermediates final (CSI), ESC ] ... BEL or ESC \ (OSC),
 * or ESC and one character. */
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

size_t lec__strip_ansi(char *text, size_t len)
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

static int has_mark(const char *line, size_t n, const char *const *marks,
		    size_t count)
{
	size_t i, j;

	for (i = 0; i < count; i++) {
		size_t m = strlen(marks[i]);

		for (j = 0; j + m <= n; j++)
			if (strncasecmp(line + j, marks[i], m) == 0)
				return 1;
	}
	return 0;
}

/* How surely a line tells the failure: 2 for the line a tool prints its
 * error in ("ERROR: ...", "...Error: ...", "No module named ..."), 1 for a
 * line that only mentions one ("Aborted with 1 Configuration Errors!"),
 * 0 for the rest. */
static int error_rank(const char *line, size_t n)
{
	static const char *const strong[] = { "error:", "exception:",
					      "not installed", "not found",
					      "no module named",
					      "could not" };
	static const char *const weak[] = { "error", "exception", "failed" };

	if (strncmp(line, "ERROR", 5) == 0 ||
	    has_mark(line, n, strong, sizeof(strong) / sizeof(strong[0])))
		return 2;
	return has_mark(line, n, weak, sizeof(weak) / sizeof(weak[0]));
}

static int blank(const char *line, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isspace((unsigned char)line[i]))
			return 0;
	return 1;
}

void lec__tail_cause(const struct lec__tail *t, char *out, size_t cap)
{
	char text[LEC__TAIL_MAX + 1];
	size_t len = t->len, start = t->len < LEC__TAIL_MAX ? 0 : t->next;
	const char *best = NULL, *p, *end;
	size_t best_n = 0, n, i, o;
	int best_rank = -1, rank;

	out[0] = '\0';
	if (cap == 0)
		return;
	for (i = 0; i < len; i++)
		text[i] = t->buf[(start + i) % LEC__TAIL_MAX];
	len = lec__strip_ansi(text, len);
	text[len] = '\0';
	for (p = text; p < text + len; p = end + 1) {
		end = memchr(p, '\n', (size_t)(text + len - p));
		if (end == NULL)
			end = text + len;
		n = (size_t)(end - p);
		while (n > 0 && (p[n - 1] == '\r' || isspace((unsigned char)p[n - 1])))
			n--;
		while (n > 0 && isspace((unsigned char)*p)) {
			p++;
			n--;
		}
		if (n == 0 || blank(p, n))
			continue;
		/* The last line of the highest rank. */
		if ((rank = error_rank(p, n)) >= best_rank) {
			best = p;
			best_n = n;
			best_rank = rank;
		}
	}
	if (best == NULL)
		return;
	if (best_n >= cap) { /* cut at a character's start, not inside it */
		best_n = cap - 1;
		while (best_n > 0 && ((unsigned char)best[best_n] & 0xc0) == 0x80)
			best_n--;
	}
	/* One line, printable, runs of blanks (column padding) folded. */
	for (i = o = 0; i < best_n; i++) {
		char c = (unsigned char)best[i] < 0x20 ? ' ' : best[i];

		if (c == ' ' && o > 0 && out[o - 1] == ' ')
			continue;
		out[o++] = c;
	}
	out[o] = '\0';
}
