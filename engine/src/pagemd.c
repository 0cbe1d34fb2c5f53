/*
 * A published page as Markdown (lectern/pagemd.h), from libxml2's tree of
 * the page (the embed API's parse and main node, html_internal.h).
 *
 * Rendering is two-level, as Markdown itself is. Block elements (headings,
 * paragraphs, lists, code, quotes, tables, definition lists, rules) each
 * become one block of text, and blocks are joined by a blank line;
 * containers (div, section, ...) and list items are a flow of blocks, in
 * which runs of text and inline elements between the blocks become
 * paragraphs. A nested block (a list item's, a quotation's) is rendered on
 * its own first and then indented or prefixed line by line. Inline content
 * is gathered raw, then its whitespace is collapsed once, as a browser
 * shows it; a line break is kept as a marker byte through the collapse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "html_internal.h"
#include "internal.h"
#include "lectern/embed.h"
#include "lectern/pagemd.h"
#include "search_internal.h"

/* Marks a <br> in gathered inline text until whitespace is collapsed. */
#define HARD_BREAK '\x01'
/* Longest language name taken from a class ("highlight-python"). */
#define LANG_MAX 32
/* The largest number an ordered list's marker starts at: CommonMark's nine
 * digits (a larger start is not a list marker to a Markdown reader). */
#define LIST_START_MAX 999999999L

struct md {
	const char *url; /* the page's, for absolute links; NULL: as written */
	int oom;
	int anchors;     /* headings end with their anchor, " {#id}" */
};

/* Elements ---------------------------------------------------------------- */

/* Whether the class attribute of n has the word w (prefix: starts with
 * it, the rest into rest). */
static int has_class(const xmlNode *n, const char *w, int prefix,
		     char *rest, size_t cap)
{
	const char *cls = lec__html_attr(n, "class"), *p;
	size_t wn = strlen(w);

	for (p = cls; p && *p;) {
		size_t len = strcspn(p, " \t\r\n");

		if (len >= wn && strncmp(p, w, wn) == 0 &&
		    (prefix ? len > wn : len == wn)) {
			if (rest && len - wn < cap) {
				memcpy(rest, p + wn, len - wn);
				rest[len - wn] = '\0';
			}
			return 1;
		}
		p += len;
		p += strspn(p, " \t\r\n");
	}
	return 0;
}

/* What a reader of the page's text does not read: scripts, styles,
 * navigation and search boxes, permalink markers, line numbers. */
static int is_noise(const xmlNode *n)
{
	static const char *const tags[] = { "script", "style", "template",
					    "noscript", "nav", "button",
					    "head", "form" };
	const char *role = lec__html_attr(n, "role");
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (lec__html_is(n, tags[i]))
			return 1;
	return (role && (strcmp(role, "navigation") == 0 ||
			 strcmp(role, "search") == 0)) ||
	       has_class(n, "headerlink", 0, NULL, 0) ||
	       has_class(n, "linenos", 0, NULL, 0) ||
	       has_class(n, "lineno", 0, NULL, 0);
}

static int heading_level(const xmlNode *n)
{
	const xmlChar *name = n->name;

	if (n->type != XML_ELEMENT_NODE || (name[0] != 'h' && name[0] != 'H') ||
	    name[1] < '1' || name[1] > '6' || name[2] != '\0')
		return 0;
	return name[1] - '0';
}

/* Elements that start a block of their own. */
static int is_block(const xmlNode *n)
{
	static const char *const tags[] = {
		"p",	   "div",      "section",    "article", "main",
		"header",  "footer",   "aside",	     "ul",	"ol",
		"li",	   "pre",      "blockquote", "table",	"dl",
		"dt",	   "dd",       "hr",	     "figure",	"figcaption",
		"details", "summary",  "address",    "center",	"body",
		"html",	   "fieldset", "caption",    "tr",	"tbody",
		"thead",   "tfoot",    "td",	     "th",
	};
	size_t i;

	if (n->type != XML_ELEMENT_NODE)
		return 0;
	if (heading_level(n))
		return 1;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (lec__html_is(n, tags[i]))
			return 1;
	return 0;
}

/* Whether n holds a <pre> (a table of line numbers and code). */
static int holds_pre(const xmlNode *n, int depth)
{
	const xmlNode *c;

	for (c = n->children; c && depth > 0; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    (lec__html_is(c, "pre") || holds_pre(c, depth - 1)))
			return 1;
	return 0;
}

/* Text -------------------------------------------------------------------- */

/* Whether a byte of text is a control character other than a tab or a
 * line break: never copied (the renderer's own marks are such bytes). */
static int is_control(char c)
{
	return ((unsigned char)c < 0x20 && c != '\t' && c != '\n' &&
		c != '\r') ||
	       c == 0x7f;
}

/* Append text with the characters Markdown would read as syntax escaped. */
static void put_escaped(struct lec__buf *b, const char *s)
{
	for (; *s; s++) {
		if (is_control(*s))
			continue;
		if (strchr("\\`*[]<", *s))
			lec__buf_putn(b, "\\", 1);
		lec__buf_putn(b, s, 1);
	}
}

/* Append text as it is, control characters left out. */
static void put_plain(struct lec__buf *b, const char *s)
{
	for (; *s; s++)
		if (!is_control(*s))
			lec__buf_putn(b, s, 1);
}

/* All text under n as written (code blocks), noise left out. */
static void raw_text(struct lec__buf *b, const xmlNode *n, int depth)
{
	const xmlNode *c;

	for (c = n->children; c && depth > 0; c = c->next) {
		if (c->type == XML_TEXT_NODE ||
		    c->type == XML_CDATA_SECTION_NODE)
			put_plain(b, (const char *)c->content);
		else if (c->type == XML_ELEMENT_NODE && !is_noise(c)) {
			if (lec__html_is(c, "br"))
				lec__buf_puts(b, "\n");
			raw_text(b, c, depth - 1);
		}
	}
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* Collapse whitespace runs to one space, trim, and turn hard-break marks
 * into Markdown's line break; the result replaces b's text. */
static void collapse(struct lec__buf *b)
{
	size_t i, j = 0;
	int space = 0;
	struct lec__buf out = LEC__BUF_INIT;

	for (i = 0; i < b->len; i++) {
		char c = b->ptr[i];

		if (is_space(c)) {
			space = j > 0;
			continue;
		}
		if (c == HARD_BREAK) {
			if (j > 0)
				lec__buf_puts(&out, "\\\n");
			space = 0;
			j = 0;
			continue;
		}
		if (space)
			lec__buf_putn(&out, " ", 1);
		space = 0;
		lec__buf_putn(&out, &c, 1);
		j++;
	}
	/* A trailing break has nothing to break before. */
	while (out.len >= 2 && out.ptr[out.len - 1] == '\n' &&
	       out.ptr[out.len - 2] == '\\')
		out.len -= 2;
	if (out.oom)
		b->oom = 1;
	lec__buf_dispose(b);
	*b = out;
	if (b->ptr)
		b->ptr[b->len] = '\0';
}

/* Inline content ---------------------------------------------------------- */

static void inline_children(struct md *m, struct lec__buf *b, const xmlNode *n,
			    int depth);

/* `code`, with a fence longer than any run of backticks inside it. */
static void code_span(struct lec__buf *b, const xmlNode *n, int depth)
{
	struct lec__buf t = LEC__BUF_INIT;
	size_t i, run = 0, longest = 0;

	raw_text(&t, n, depth);
	collapse(&t);
	for (i = 0; i < t.len; i++) {
		run = t.ptr[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	if (t.len > 0) {
		for (i = 0; i <= longest; i++)
			lec__buf_putn(b, "`", 1);
		/* Spaces only keep a backtick at either end off the fence. */
		if (t.ptr[0] == '`' || t.ptr[t.len - 1] == '`')
			lec__buf_putn(b, " ", 1);
		lec__buf_putn(b, t.ptr, t.len);
		if (t.ptr[0] == '`' || t.ptr[t.len - 1] == '`')
			lec__buf_putn(b, " ", 1);
		for (i = 0; i <= longest; i++)
			lec__buf_putn(b, "`", 1);
	}
	if (t.oom)
		b->oom = 1;
	lec__buf_dispose(&t);
}

/* url made absolute against the page's (as written when it cannot be). */
static void put_url(struct md *m, struct lec__buf *b, const char *url)
{
	char *abs = NULL;
	const char *s;

	if (m->url && lec_embed_absolute_url(m->url, url, &abs) == LEC_OK)
		url = abs;
	/* A URL holding spaces or parentheses goes between <>; line breaks
	 * and other controls, which end a link, are left out. */
	if (strpbrk(url, " ()<>")) {
		lec__buf_putn(b, "<", 1);
		for (s = url; *s; s++)
			if (*s != '<' && *s != '>' && !is_space(*s) &&
			    !is_control(*s))
				lec__buf_putn(b, s, 1);
			else if (*s == ' ')
				lec__buf_putn(b, s, 1);
		lec__buf_putn(b, ">", 1);
	} else {
		for (s = url; *s; s++)
			if (!is_space(*s) && !is_control(*s))
				lec__buf_putn(b, s, 1);
	}
	lec__free(abs);
}

static void link(struct md *m, struct lec__buf *b, const xmlNode *n, int depth)
{
	const char *href = lec__html_attr(n, "href");
	struct lec__buf text = LEC__BUF_INIT;

	inline_children(m, &text, n, depth);
	collapse(&text);
	if (href == NULL || href[0] == '\0' ||
	    strncasecmp(href, "javascript:", 11) == 0 || text.len == 0) {
		if (text.len)
			lec__buf_putn(b, text.ptr, text.len);
	} else {
		lec__buf_putn(b, "[", 1);
		lec__buf_putn(b, text.ptr, text.len);
		lec__buf_putn(b, "](", 2);
		put_url(m, b, href);
		lec__buf_putn(b, ")", 1);
	}
	if (text.oom)
		b->oom = 1;
	lec__buf_dispose(&text);
}

static void image(struct md *m, struct lec__buf *b, const xmlNode *n)
{
	const char *src = lec__html_attr(n, "src"),
		   *alt = lec__html_attr(n, "alt");

	if (src == NULL || src[0] == '\0')
		return;
	lec__buf_puts(b, "![");
	put_escaped(b, alt ? alt : "");
	lec__buf_puts(b, "](");
	put_url(m, b, src);
	lec__buf_puts(b, ")");
}

/* *text* or **text** around n's content, when it has any. */
static void emphasis(struct md *m, struct lec__buf *b, const xmlNode *n,
		     int depth, const char *mark)
{
	struct lec__buf text = LEC__BUF_INIT;

	inline_children(m, &text, n, depth);
	collapse(&text);
	if (text.len) {
		lec__buf_puts(b, mark);
		lec__buf_putn(b, text.ptr, text.len);
		lec__buf_puts(b, mark);
		/* The closing mark must not run into a word. */
		lec__buf_putn(b, " ", 1);
	}
	if (text.oom)
		b->oom = 1;
	lec__buf_dispose(&text);
}

static void inline_node(struct md *m, struct lec__buf *b, const xmlNode *c,
			int depth)
{
	if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
		put_escaped(b, (const char *)c->content);
		return;
	}
	if (c->type != XML_ELEMENT_NODE || is_noise(c) || depth <= 0)
		return;
	if (lec__html_is(c, "br"))
		lec__buf_putn(b, (const char[]){ HARD_BREAK }, 1);
	else if (lec__html_is(c, "a"))
		link(m, b, c, depth - 1);
	else if (lec__html_is(c, "img"))
		image(m, b, c);
	else if (lec__html_is(c, "code") || lec__html_is(c, "tt") ||
		 lec__html_is(c, "kbd") || lec__html_is(c, "samp"))
		code_span(b, c, depth - 1);
	else if (lec__html_is(c, "em") || lec__html_is(c, "i") ||
		 lec__html_is(c, "cite") || lec__html_is(c, "dfn"))
		emphasis(m, b, c, depth - 1, "*");
	else if (lec__html_is(c, "strong") || lec__html_is(c, "b"))
		emphasis(m, b, c, depth - 1, "**");
	else {
		/* A block inside inline content reads as words apart. */
		if (is_block(c))
			lec__buf_putn(b, " ", 1);
		inline_children(m, b, c, depth - 1);
		if (is_block(c))
			lec__buf_putn(b, " ", 1);
	}
}

static void inline_children(struct md *m, struct lec__buf *b, const xmlNode *n,
			    int depth)
{
	const xmlNode *c;

	for (c = n->children; c; c = c->next)
		inline_node(m, b, c, depth);
}

/* Blocks ------------------------------------------------------------------ */

/* Append block (len bytes, trailing newlines dropped) to out, a blank
 * line apart from what is there. */
static void add_block(struct lec__buf *out, const char *block, size_t len)
{
	while (len > 0 && (block[len - 1] == '\n' || block[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	if (out->len > 0)
		lec__buf_puts(out, "\n\n");
	lec__buf_putn(out, block, len);
}

/* Append each line of text to out with first before the first line and
 * rest before the others (empty lines stay empty). */
static void add_prefixed(struct lec__buf *out, const char *text, size_t len,
			 const char *first, const char *rest)
{
	size_t i = 0;
	int line = 0;

	while (i < len) {
		size_t n = 0;

		while (i + n < len && text[i + n] != '\n')
			n++;
		if (n > 0 || line == 0)
			lec__buf_puts(out, line == 0 ? first : rest);
		else if (rest[0] == '>')
			lec__buf_puts(out, ">");
		lec__buf_putn(out, text + i, n);
		i += n;
		if (i < len) {
			lec__buf_putn(out, "\n", 1);
			i++;
		}
		line++;
	}
}

static void flow(struct md *m, struct lec__buf *out, const xmlNode *parent,
		 int depth);

/* A paragraph of gathered inline text; a start Markdown would read as a
 * heading, quotation or list is escaped. */
static void paragraph(struct lec__buf *out, struct lec__buf *text)
{
	const char *s;
	size_t digits;

	collapse(text);
	if (text->len == 0)
		return;
	s = text->ptr;
	digits = strspn(s, "0123456789");
	if (out->len > 0)
		lec__buf_puts(out, "\n\n");
	if (s[0] == '#' || s[0] == '>' || s[0] == '|' ||
	    ((s[0] == '-' || s[0] == '+') && s[1] == ' ') ||
	    (digits > 0 && (s[digits] == '.' || s[digits] == ')')))
		lec__buf_putn(out, "\\", 1);
	lec__buf_putn(out, text->ptr, text->len);
}

/* The language a code block names in its classes or its parents'. */
static void code_language(const xmlNode *pre, char *lang, size_t cap)
{
	const xmlNode *n, *code = pre->children;
	char rest[LANG_MAX];
	int i;

	lang[0] = '\0';
	while (code && code->type != XML_ELEMENT_NODE)
		code = code->next;
	if (code && lec__html_is(code, "code") &&
	    (has_class(code, "language-", 1, rest, sizeof(rest)) ||
	     has_class(code, "lang-", 1, rest, sizeof(rest)))) {
		snprintf(lang, cap, "%s", rest);
		return;
	}
	for (n = pre, i = 0; n && n->type == XML_ELEMENT_NODE && i < 3;
	     n = n->parent, i++)
		if (has_class(n, "language-", 1, rest, sizeof(rest)) ||
		    has_class(n, "lang-", 1, rest, sizeof(rest)) ||
		    (has_class(n, "highlight-", 1, rest, sizeof(rest)) &&
		     strcmp(rest, "default") != 0)) {
			snprintf(lang, cap, "%s", rest);
			return;
		}
}

/* A language name keeps letters, digits and "+#._-" (a class attribute can
 * hold anything, and the name ends up on the fence's line). */
static void clean_language(char *lang)
{
	char *r, *w = lang;

	for (r = lang; *r; r++)
		if ((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') ||
		    (*r >= '0' && *r <= '9') || strchr("+#._-", *r))
			*w++ = *r;
	*w = '\0';
}

static void code_block(struct lec__buf *out, const xmlNode *pre, int depth)
{
	struct lec__buf t = LEC__BUF_INIT;
	char lang[LANG_MAX];
	size_t i, run = 0, fence = 3;

	raw_text(&t, pre, depth);
	while (t.len > 0 &&
	       (t.ptr[t.len - 1] == '\n' || t.ptr[t.len - 1] == ' '))
		t.len--;
	while (t.len > 0 && t.ptr[0] == '\n') {
		memmove(t.ptr, t.ptr + 1, t.len - 1);
		t.len--;
	}
	for (i = 0; i < t.len; i++) {
		run = t.ptr[i] == '`' ? run + 1 : 0;
		if (run >= fence)
			fence = run + 1;
	}
	code_language(pre, lang, sizeof(lang));
	clean_language(lang);
	if (out->len > 0)
		lec__buf_puts(out, "\n\n");
	for (i = 0; i < fence; i++)
		lec__buf_putn(out, "`", 1);
	lec__buf_puts(out, lang);
	lec__buf_putn(out, "\n", 1);
	lec__buf_putn(out, t.ptr ? t.ptr : "", t.len);
	lec__buf_putn(out, "\n", 1);
	for (i = 0; i < fence; i++)
		lec__buf_putn(out, "`", 1);
	if (t.oom)
		out->oom = 1;
	lec__buf_dispose(&t);
}

/* The anchor a heading is linked by: its own id, that of the section it
 * opens (Sphinx's <section id>), or its permalink's target; NULL when it
 * has none. */
static const char *heading_anchor(const xmlNode *h)
{
	const char *id = lec__html_attr(h, "id"), *href;
	const xmlNode *p = h->parent, *first, *c;

	if (id && *id)
		return id;
	for (first = p ? p->children : NULL;
	     first && first->type != XML_ELEMENT_NODE; first = first->next)
		;
	if (first == h && (id = lec__html_attr(p, "id")) != NULL && *id)
		return id;
	for (c = h->children; c; c = c->next)
		if (lec__html_is(c, "a") &&
		    (href = lec__html_attr(c, "href")) != NULL &&
		    href[0] == '#' && href[1])
			return href + 1;
	return NULL;
}

static void heading(struct md *m, struct lec__buf *out, const xmlNode *h,
		    int depth)
{
	const char *anchor = m->anchors ? heading_anchor(h) : NULL;
	struct lec__buf t = LEC__BUF_INIT;
	int level = heading_level(h), i;

	inline_children(m, &t, h, depth);
	collapse(&t);
	if (t.len > 0) {
		if (out->len > 0)
			lec__buf_puts(out, "\n\n");
		for (i = 0; i < level; i++)
			lec__buf_putn(out, "#", 1);
		lec__buf_putn(out, " ", 1);
		lec__buf_putn(out, t.ptr, t.len);
		if (anchor)
			lec__buf_printf(out, " {#%s}", anchor);
	}
	if (t.oom)
		out->oom = 1;
	lec__buf_dispose(&t);
}

/* A list: each item a flow, after its marker, continued under it. Items
 * are a blank line apart when any of them holds more than one block. */
static void list(struct md *m, struct lec__buf *out, const xmlNode *l,
		 int depth)
{
	struct lec__buf items = LEC__BUF_INIT;
	const char *start = lec__html_attr(l, "start");
	long number = start ? strtol(start, NULL, 10) : 1;
	/* CommonMark's markers: 0 to LIST_START_MAX (a page's own start
	 * attribute may say anything, LONG_MAX included). */
	if (number < 0)
		number = 0;
	else if (number > LIST_START_MAX)
		number = LIST_START_MAX;
	int ordered = lec__html_is(l, "ol"), loose = 0, first = 1;
	const xmlNode *c;

	for (c = l->children; c; c = c->next) {
		struct lec__buf item = LEC__BUF_INIT;
		char marker[32], indent[32];
		size_t w;

		if (!lec__html_is(c, "li") || is_noise(c))
			continue;
		flow(m, &item, c, depth);
		if (ordered)
			snprintf(marker, sizeof(marker), "%ld. ", number++);
		else
			snprintf(marker, sizeof(marker), "- ");
		w = strlen(marker);
		memset(indent, ' ', w);
		indent[w] = '\0';
		if (item.len && memmem(item.ptr, item.len, "\n\n", 2))
			loose = 1;
		if (!first)
			lec__buf_puts(&items, "\x02");
		add_prefixed(&items, item.ptr ? item.ptr : "", item.len, marker,
			     indent);
		if (item.len == 0)
			lec__buf_puts(&items, marker);
		first = 0;
		if (item.oom)
			items.oom = 1;
		lec__buf_dispose(&item);
	}
	/* Items were separated by \x02 until it was known how. */
	if (items.len && out->len > 0)
		lec__buf_puts(out, "\n\n");
	for (size_t i = 0; i < items.len; i++) {
		if (items.ptr[i] == '\x02')
			lec__buf_puts(out, loose ? "\n\n" : "\n");
		else
			lec__buf_putn(out, items.ptr + i, 1);
	}
	if (items.oom)
		out->oom = 1;
	lec__buf_dispose(&items);
}

static void quote(struct md *m, struct lec__buf *out, const xmlNode *q,
		  int depth)
{
	struct lec__buf inner = LEC__BUF_INIT;

	flow(m, &inner, q, depth);
	if (inner.len > 0) {
		if (out->len > 0)
			lec__buf_puts(out, "\n\n");
		add_prefixed(out, inner.ptr, inner.len, "> ", "> ");
	}
	if (inner.oom)
		out->oom = 1;
	lec__buf_dispose(&inner);
}

/* Pandoc's definition list: the term on its line, ":   " before the
 * definition, which continues four spaces in. */
static void definitions(struct md *m, struct lec__buf *out, const xmlNode *dl,
			int depth)
{
	const xmlNode *c;

	for (c = dl->children; c; c = c->next) {
		struct lec__buf t = LEC__BUF_INIT;

		if (c->type != XML_ELEMENT_NODE || is_noise(c))
			continue;
		if (lec__html_is(c, "dt")) {
			inline_children(m, &t, c, depth);
			paragraph(out, &t);
		} else if (lec__html_is(c, "dd")) {
			flow(m, &t, c, depth);
			if (t.len > 0) {
				lec__buf_puts(out, out->len ? "\n" : "");
				add_prefixed(out, t.ptr, t.len, ":   ", "    ");
			}
		} else {
			flow(m, &t, c, depth);
			add_block(out, t.ptr, t.len);
		}
		if (t.oom)
			out->oom = 1;
		lec__buf_dispose(&t);
	}
}

/* Tables ------------------------------------------------------------------ */

#define TABLE_COLUMNS_MAX 64

/* The rows of a table (its tr children and those of its sections), each
 * cell's inline text with '|' escaped, appended to rows as lines of
 * "| a | b |"; *columns gets the widest row's cells, *header whether the
 * first row is a header. */
static void table_rows(struct md *m, const xmlNode *t, int depth,
		       struct lec__buf *rows, size_t *nrows, size_t *columns,
		       int *header)
{
	const xmlNode *sec, *tr, *td;

	for (sec = t->children; sec; sec = sec->next) {
		const xmlNode *first_tr = lec__html_is(sec, "tr") ? sec : NULL;
		const xmlNode *list = first_tr ? NULL : sec->children;

		if (!first_tr && !lec__html_is(sec, "thead") &&
		    !lec__html_is(sec, "tbody") && !lec__html_is(sec, "tfoot"))
			continue;
		for (tr = first_tr ? first_tr : list; tr;
		     tr = first_tr ? NULL : tr->next) {
			size_t cells = 0;

			if (!lec__html_is(tr, "tr"))
				continue;
			if (*nrows == 0)
				*header = lec__html_is(sec, "thead");
			lec__buf_puts(rows, "|");
			for (td = tr->children; td; td = td->next) {
				struct lec__buf cell = LEC__BUF_INIT;
				size_t i;

				if (!lec__html_is(td, "td") &&
				    !lec__html_is(td, "th"))
					continue;
				if (*nrows == 0 && lec__html_is(td, "th"))
					*header = 1;
				if (cells++ >= TABLE_COLUMNS_MAX)
					continue;
				inline_children(m, &cell, td, depth);
				for (i = 0; i < cell.len; i++)
					if (cell.ptr[i] == HARD_BREAK)
						cell.ptr[i] = ' ';
				collapse(&cell);
				lec__buf_putn(rows, " ", 1);
				for (i = 0; i < cell.len; i++) {
					if (cell.ptr[i] == '|')
						lec__buf_putn(rows, "\\", 1);
					lec__buf_putn(rows, cell.ptr + i, 1);
				}
				lec__buf_puts(rows, " |");
				if (cell.oom)
					rows->oom = 1;
				lec__buf_dispose(&cell);
			}
			if (cells > TABLE_COLUMNS_MAX)
				cells = TABLE_COLUMNS_MAX;
			/* Short rows are padded later: mark the count. */
			lec__buf_printf(rows, "\x03%zu\n", cells);
			if (cells > *columns)
				*columns = cells;
			(*nrows)++;
		}
	}
}

/* GitHub's pipe table; without a header row, an empty one. */
static void table(struct md *m, struct lec__buf *out, const xmlNode *t,
		  int depth)
{
	struct lec__buf rows = LEC__BUF_INIT;
	size_t nrows = 0, columns = 0, row = 0, i = 0, k;
	int header = 0;

	table_rows(m, t, depth, &rows, &nrows, &columns, &header);
	if (nrows == 0 || columns == 0 || rows.ptr == NULL) {
		lec__buf_dispose(&rows);
		return;
	}
	if (out->len > 0)
		lec__buf_puts(out, "\n\n");
	if (!header) {
		lec__buf_puts(out, "|");
		for (k = 0; k < columns; k++)
			lec__buf_puts(out, "   |");
		lec__buf_puts(out, "\n|");
		for (k = 0; k < columns; k++)
			lec__buf_puts(out, " --- |");
		lec__buf_puts(out, "\n");
	}
	while (i < rows.len) {
		const char *mark = memchr(rows.ptr + i, '\x03', rows.len - i);
		const char *nl;
		size_t cells;

		if (mark == NULL)
			break;
		lec__buf_putn(out, rows.ptr + i, (size_t)(mark - rows.ptr) - i);
		cells = strtoul(mark + 1, NULL, 10);
		for (k = cells; k < columns; k++)
			lec__buf_puts(out, "   |");
		nl = memchr(mark, '\n', rows.len - (size_t)(mark - rows.ptr));
		if (nl == NULL)
			break;
		i = (size_t)(nl - rows.ptr) + 1;
		if (row++ == 0 && header) {
			lec__buf_puts(out, "\n|");
			for (k = 0; k < columns; k++)
				lec__buf_puts(out, " --- |");
		}
		if (i < rows.len)
			lec__buf_puts(out, "\n");
	}
	if (rows.oom)
		out->oom = 1;
	lec__buf_dispose(&rows);
}

/* Flow -------------------------------------------------------------------- */

static void block(struct md *m, struct lec__buf *out, const xmlNode *n,
		  int depth)
{
	if (is_noise(n) || depth <= 0)
		return;
	if (heading_level(n))
		heading(m, out, n, depth - 1);
	else if (lec__html_is(n, "pre"))
		code_block(out, n, depth - 1);
	else if (lec__html_is(n, "ul") || lec__html_is(n, "ol"))
		list(m, out, n, depth - 1);
	else if (lec__html_is(n, "blockquote"))
		quote(m, out, n, depth - 1);
	else if (lec__html_is(n, "dl"))
		definitions(m, out, n, depth - 1);
	else if (lec__html_is(n, "table") && !holds_pre(n, depth - 1))
		table(m, out, n, depth - 1);
	else if (lec__html_is(n, "hr"))
		add_block(out, "---", 3);
	else
		flow(m, out, n, depth - 1);
}

/* The children of parent as blocks, runs of inline content between them as
 * paragraphs. */
static void flow(struct md *m, struct lec__buf *out, const xmlNode *parent,
		 int depth)
{
	struct lec__buf text = LEC__BUF_INIT;
	const xmlNode *c;

	for (c = parent->children; c && depth > 0; c = c->next) {
		if (c->type == XML_ELEMENT_NODE && is_block(c)) {
			paragraph(out, &text);
			lec__buf_dispose(&text);
			block(m, out, c, depth);
		} else {
			inline_node(m, &text, c, depth);
		}
	}
	paragraph(out, &text);
	if (text.oom)
		out->oom = 1;
	lec__buf_dispose(&text);
}

/* The title: the main content's first <h1>, else the page's <title>. */
static char *page_title(xmlDoc *doc, const xmlNode *main)
{
	struct lec__buf t = LEC__BUF_INIT;
	const xmlNode *stack[LEC_PAGE_MD_DEPTH_MAX], *n;
	size_t top = 0;

	/* Pre-order walk, bounded by the stack. */
	for (n = main ? main->children : NULL; n || top > 0;) {
		if (n == NULL) {
			n = stack[--top]->next;
			continue;
		}
		if (heading_level(n) == 1 && !is_noise(n)) {
			raw_text(&t, n, LEC_PAGE_MD_DEPTH_MAX);
			break;
		}
		if (n->type == XML_ELEMENT_NODE && !is_noise(n) &&
		    n->children && top < LEC_PAGE_MD_DEPTH_MAX) {
			stack[top++] = n;
			n = n->children;
		} else {
			n = n->next;
		}
	}
	if (t.len == 0) {
		const xmlNode *root = xmlDocGetRootElement(doc), *h, *ti;

		for (h = root ? root->children : NULL; h; h = h->next)
			if (lec__html_is(h, "head"))
				for (ti = h->children; ti; ti = ti->next)
					if (lec__html_is(ti, "title"))
						raw_text(&t, ti, 4);
	}
	collapse(&t);
	return lec__buf_take(&t);
}

/* Sections ---------------------------------------------------------------- */

/* The element whose id is anchor, in a pre-order walk bounded by the
 * stack; NULL when there is none. */
static const xmlNode *find_id(const xmlNode *root, const char *anchor)
{
	const xmlNode *stack[LEC_PAGE_MD_DEPTH_MAX], *n;
	const char *id;
	size_t top = 0;

	for (n = root; n || top > 0;) {
		if (n == NULL) {
			n = stack[--top]->next;
			continue;
		}
		if (n->type == XML_ELEMENT_NODE &&
		    (id = lec__html_attr(n, "id")) != NULL &&
		    strcmp(id, anchor) == 0)
			return n;
		if (n->type == XML_ELEMENT_NODE && n->children &&
		    top < LEC_PAGE_MD_DEPTH_MAX) {
			stack[top++] = n;
			n = n->children;
		} else {
			n = n->next;
		}
	}
	return NULL;
}

/* One section as blocks: a heading with what follows it up to the next
 * heading of its level or above (MkDocs' flat pages), an element that
 * holds its section (Sphinx's <section>), or an API entry (a domain
 * object's <dt id>, with its <dl>). */
static void section(struct md *m, struct lec__buf *out, const xmlNode *s)
{
	int level = heading_level(s);
	const xmlNode *n;

	/* An API entry's id is on its <dt>: the entry is its <dl>. */
	if (lec__html_is(s, "dt") && s->parent && lec__html_is(s->parent, "dl"))
		s = s->parent;
	if (!level) {
		block(m, out, s, LEC_PAGE_MD_DEPTH_MAX);
		return;
	}
	heading(m, out, s, LEC_PAGE_MD_DEPTH_MAX - 1);
	for (n = s->next; n; n = n->next) {
		if (heading_level(n) && heading_level(n) <= level)
			break;
		if (n->type == XML_ELEMENT_NODE)
			block(m, out, n, LEC_PAGE_MD_DEPTH_MAX);
	}
}

/* Entry points ------------------------------------------------------------ */

void lec_page_md_free(struct lec_page_md *md)
{
	if (md == NULL)
		return;
	lec__free(md->title);
	lec__free(md->markdown);
	lec__free(md);
}

int lec_page_markdown(const char *html, size_t len, const char *page_url,
		      struct lec_page_md **out)
{
	return lec_page_markdown_with(html, len, page_url, NULL, out);
}

int lec_page_markdown_with(const char *html, size_t len, const char *page_url,
			   const struct lec_page_md_options *opts,
			   struct lec_page_md **out)
{
	struct lec__buf body = LEC__BUF_INIT;
	struct md m = { page_url, 0, opts && opts->anchors };
	struct lec_page_md *md = NULL;
	const xmlNode *part = NULL;
	xmlDoc *doc = NULL;
	xmlNode *main;
	int rc;

	lec_error_clear();
	if (out == NULL || (html == NULL && len > 0))
		return lec__error(LEC_EINVALID, "no page or no output");
	*out = NULL;
	if ((rc = lec__html_parse(html ? html : "", len, page_url, &doc)) < 0)
		return rc;
	main = lec__html_main_node(doc, 1);
	if (opts && opts->section &&
	    (part = find_id(xmlDocGetRootElement(doc), opts->section)) ==
		    NULL) {
		rc = lec__error(LEC_ENOTFOUND, "no section '%s' on the page",
				opts->section);
		goto done;
	}
	if (part)
		section(&m, &body, part);
	else if (main)
		flow(&m, &body, main, LEC_PAGE_MD_DEPTH_MAX);
	if (body.len > 0)
		lec__buf_putn(&body, "\n", 1);
	if ((md = lec__malloc(sizeof(*md))) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	md->title = page_title(doc, main);
	md->len = body.len;
	md->markdown = lec__buf_take(&body);
	if (md->title == NULL || md->markdown == NULL) {
		lec_page_md_free(md);
		md = NULL;
		rc = lec__error_oom();
		goto done;
	}
	*out = md;
	rc = LEC_OK;
done:
	lec__buf_dispose(&body);
	xmlFreeDoc(doc);
	return rc;
}

int lec_page_markdown_file(const char *file, const char *page_url,
			   struct lec_page_md **out)
{
	char *html = NULL;
	size_t len = 0;
	int rc;

	lec_error_clear();
	if (file == NULL || out == NULL)
		return lec__error(LEC_EINVALID, "no file or no output");
	*out = NULL;
	if ((rc = lec__page_read(file, &html, &len)) < 0)
		return rc;
	rc = lec_page_markdown(html, len, page_url, out);
	lec__free(html);
	return rc;
}
