/*
 * The cause of a failed build command, for the build's `error`: a person
 * reading the API or the TUI should see "The "redirects" plugin is not
 * installed", not "exit code 1". Generators print their error last (MkDocs'
 * "Error: ...", Sphinx's "Extension error: ..." or a traceback's exception
 * line, pip's "ERROR: ...", git's "fatal: ..."), so the runner keeps the
 * last bytes of each command's output in a ring and, on failure, the last
 * line that names an error or an exception is taken, the surest kind
 * first (a traceback's exception, also one indented in pip's box, over a
 * tool's summary after it), ANSI colour sequences removed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "job.h"

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

/* Ranks: how surely a block tells the failure. */
enum {
	RANK_NONE = 0,   /* a line that names nothing */
	RANK_MENTION,    /* mentions an error ("Aborted with 1 ... Errors!") */
	RANK_LINE,       /* the line a tool prints its error in */
	RANK_BLOCK       /* a header's message, a traceback's exception */
};

/* Continuation lines a record or a header takes at most: a YAML error's
 * two lines of position, a plugin's exception. */
#define MAX_CONTINUATION 4

/* One line of the output: p after its indentation, n without trailing
 * blanks; indent the blanks it was indented by. */
struct line {
	const char *p;
	size_t n;
	size_t indent;
};

struct cursor {
	const char *p, *end;
};

/* The next line into *l; 0 at the end of the text. */
static int next_line(struct cursor *c, struct line *l)
{
	const char *end;

	if (c->p >= c->end)
		return 0;
	end = memchr(c->p, '\n', (size_t)(c->end - c->p));
	if (end == NULL)
		end = c->end;
	l->p = c->p;
	l->n = (size_t)(end - c->p);
	c->p = end + 1;
	l->indent = 0;
	while (l->n > 0 && isspace((unsigned char)*l->p)) {
		l->p++;
		l->n--;
		l->indent++;
	}
	while (l->n > 0 && isspace((unsigned char)l->p[l->n - 1]))
		l->n--;
	return 1;
}

static int starts(const struct line *l, const char *prefix)
{
	size_t m = strlen(prefix);

	return l->n >= m && strncmp(l->p, prefix, m) == 0;
}

static int ends_with(const struct line *l, const char *suffix)
{
	size_t m = strlen(suffix);

	return l->n >= m && strncasecmp(l->p + l->n - m, suffix, m) == 0;
}

/* Where Python says a traceback begins ("Exception occurred:" is
 * Sphinx's own heading for one), at any indentation: pip shows a
 * package's setup.py output indented in a box. */
static int traceback_start(const struct line *l)
{
	return starts(l, "Traceback (most recent call last):") ||
	       starts(l, "Exception occurred:");
}

/* Python 3.11's marks under the part of a frame's line that failed, which
 * a template's line can leave at any indentation. */
static int position_marks(const struct line *l)
{
	return l->n > 0 && strspn(l->p, "^~ ") >= l->n;
}

/* Sphinx's heading of an error message: "Configuration error:", "Extension
 * error:", "Theme error:", alone on its line. */
static int header(const struct line *l)
{
	return !l->indent && l->n <= 40 && ends_with(l, "error:") &&
	       memchr(l->p, ':', l->n - 1) == NULL;
}

/* A log record of an error: MkDocs' "ERROR - ...", pip's "ERROR: ...",
 * click's "Error: ...". */
static int record(const struct line *l)
{
	return !l->indent && (starts(l, "ERROR") || starts(l, "Error:") ||
			      starts(l, "CRITICAL"));
}

/* A line that ends a record's or a header's continuation. */
static int stops_block(const struct line *l)
{
	static const char *const levels[] = { "ERROR", "Error:", "WARNING",
					      "INFO", "DEBUG", "CRITICAL",
					      "Aborted" };
	size_t i;

	if (l->n == 0 || traceback_start(l) || header(l))
		return 1;
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (starts(l, levels[i]))
			return 1;
	return 0;
}

/* How surely a line alone tells the failure. */
static int line_rank(const struct line *l)
{
	static const char *const strong[] = { "error:", "exception:",
					      "not installed", "not found",
					      "no module named",
					      "could not", "fatal:" };
	static const char *const weak[] = { "error", "exception", "failed" };

	if (starts(l, "ERROR") ||
	    has_mark(l->p, l->n, strong, sizeof(strong) / sizeof(strong[0])))
		return RANK_LINE;
	return has_mark(l->p, l->n, weak, sizeof(weak) / sizeof(weak[0]))
		       ? RANK_MENTION
		       : RANK_NONE;
}

/* A cause found so far: the text from `from` to `to` (lines folded into
 * one), and for a traceback where it happened. */
struct found {
	int rank;
	const char *from, *to;
	const char *file; /* the frame's file name, or NULL */
	size_t file_n;
	long lineno;
};

static void keep(struct found *best, const struct found *f)
{
	if (f->rank >= best->rank)
		*best = *f;
}

/* l and the lines that continue it (up to a blank line, another record or
 * MAX_CONTINUATION of them); the last line taken into *last. */
static const char *take_block(struct cursor *c, const struct line *l,
			      struct line *last)
{
	struct cursor save;
	struct line next;
	int i;

	*last = *l;
	for (i = 0; i < MAX_CONTINUATION; i++) {
		save = *c;
		if (!next_line(c, &next) || stops_block(&next)) {
			*c = save;
			break;
		}
		*last = next;
	}
	return last->p + last->n;
}

/* `File "PATH", line N, in X`: a frame of the user's own code (not an
 * installed package's, nor Python's) into f. */
static void note_frame(const struct line *l, struct found *f)
{
	static const char *const installed[] = { "/site-packages/",
						 "/dist-packages/",
						 "/lib/python" };
	const char *path = l->p + 6, *q, *name;
	size_t n;

	if (!starts(l, "File \"") ||
	    (q = memchr(path, '"', l->n - 6)) == NULL)
		return;
	n = (size_t)(q - path);
	if (has_mark(path, n, installed, sizeof(installed) / sizeof(installed[0])))
		return;
	for (name = q; name > path && name[-1] != '/'; name--)
		;
	/* "<string>", "<pip-setuptools-caller>": code with no file. */
	if (*name == '<' || strncmp(q, "\", line ", 8) != 0)
		return;
	f->file = name;
	f->file_n = (size_t)(q - name);
	f->lineno = strtol(q + 8, NULL, 10);
}

/* A traceback from after its first line (at indent): the frames, more
 * indented, then the exception, the first line that is not (marks under
 * a frame's line aside). */
static void read_traceback(struct cursor *c, size_t indent, struct found *f)
{
	struct line l;

	memset(f, 0, sizeof(*f));
	while (next_line(c, &l)) {
		if (l.n == 0 || position_marks(&l))
			continue;
		if (l.indent > indent) {
			note_frame(&l, f);
			continue;
		}
		f->rank = RANK_BLOCK;
		f->from = l.p;
		f->to = l.p + l.n;
		return;
	}
}

/* The block starting at line l into *f. */
static void read_block(struct cursor *c, const struct line *l, struct found *f)
{
	struct line last;

	memset(f, 0, sizeof(*f));
	f->from = l->p;
	if (traceback_start(l)) {
		read_traceback(c, l->indent, f);
	} else if (header(l)) {
		f->to = take_block(c, l, &last);
		/* "There is a programmable error in your configuration
		 * file:" only announces what follows (a traceback). */
		f->rank = last.p == l->p || ends_with(&last, ":")
				  ? RANK_MENTION
				  : RANK_BLOCK;
	} else if (record(l)) {
		f->to = take_block(c, l, &last);
		f->rank = RANK_LINE;
	} else {
		f->to = l->p + l->n;
		f->rank = line_rank(l);
	}
}

/* Append text to out (o bytes used of cap), one line, printable, runs of
 * blanks (column padding, line breaks) folded, cut at a character's
 * start. */
static size_t fold(char *out, size_t o, size_t cap, const char *text,
		   size_t n)
{
	size_t i, room;

	if (o + 1 >= cap)
		return o;
	room = cap - 1 - o;
	if (n > room) {
		n = room;
		while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++) {
		char c = (unsigned char)text[i] < 0x20 ? ' ' : text[i];

		if (c == ' ' && o > 0 && out[o - 1] == ' ')
			continue;
		out[o++] = c;
	}
	out[o] = '\0';
	return o;
}

/* The cause's text into out, with a traceback's place when its message
 * does not name the file already: "ZeroDivisionError: division by zero
 * (conf.py, line 3)". */
static void write_cause(const struct found *f, char *out, size_t cap)
{
	char where[128];
	size_t o, n = (size_t)(f->to - f->from);

	if (f->file && f->file_n > 0 && f->file_n < 64 &&
	    memmem(f->from, n, f->file, f->file_n) == NULL) {
		snprintf(where, sizeof(where), " (%.*s, line %ld)",
			 (int)f->file_n, f->file, f->lineno);
		/* The place must survive the cut. */
		o = fold(out, 0, cap > strlen(where) ? cap - strlen(where) : 1,
			 f->from, n);
		fold(out, o, cap, where, strlen(where));
		return;
	}
	fold(out, 0, cap, f->from, n);
}

void lec__tail_cause(const struct lec__tail *t, char *out, size_t cap)
{
	char text[LEC__TAIL_MAX + 1];
	size_t len = t->len, start = t->len < LEC__TAIL_MAX ? 0 : t->next, i;
	struct found best = { .rank = -1 }, f;
	struct cursor c;
	struct line l;

	if (cap == 0)
		return;
	out[0] = '\0';
	for (i = 0; i < len; i++)
		text[i] = t->buf[(start + i) % LEC__TAIL_MAX];
	len = lec__strip_ansi(text, len);
	text[len] = '\0';
	c.p = text;
	c.end = text + len;
	while (next_line(&c, &l)) {
		if (l.n == 0)
			continue;
		read_block(&c, &l, &f);
		if (f.from != NULL && f.to != NULL)
			keep(&best, &f);
	}
	if (best.rank >= 0)
		write_cause(&best, out, cap);
}
