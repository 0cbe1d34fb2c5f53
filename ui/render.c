/*
 * The reader's renderer (see render.h). libxml2's forgiving HTML parser
 * builds a tree; the theme's chrome is cut out of it, the main node is
 * found as the search indexer finds it, links are numbered in document
 * order, and the main node is laid out block by block. Each container
 * (list item, quote, box, definition, table cell) is laid out into lines
 * of its own at its inner width, then copied into its parent with its
 * decoration (bullet, bar, border), so every layout rule stays local.
 * Tables lay their cells out twice: once at a width that never wraps, to
 * measure them, then at the column widths chosen.
 */
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "render.h"
#include "util.h"

/* Forgiving parse that never touches the network or prints: a page's
 * markup errors are its author's business. */
#define HTML_OPTIONS                                                        \
	(HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |   \
	 HTML_PARSE_NONET)
/* The width cells are measured at: wide enough that nothing wraps. */
#define MEASURE_WIDTH 100000
/* Indent of a definition's description under its term. */
#define DD_INDENT 4
/* Indent of code blocks: sets them apart even without colour. */
#define CODE_INDENT 4
/* Tab stops in code blocks. */
#define TAB_WIDTH 8
/* Narrowest a nested container's content is laid out at; deeper nesting
 * in a narrow terminal overflows (the view scrolls) rather than becoming
 * one character per line. */
#define MIN_INNER 10
/* Tables nested deeper than this are stacked without measuring: each
 * level lays its cells out twice, so measuring would grow as 2^depth. */
#define TABLE_NEST_MAX 3
/* Columns a grid may have; wider tables are stacked. */
#define TABLE_MAX_COLS 64
/* Room for a list label ("-1000000000. ") or a link number ("[n]"). */
#define LABEL_MAX 32
/* The furthest from 0 an ordered list may start; past it, it starts at 1
 * (no real list does, and counting on from it must not overflow). */
#define LIST_START_MAX 1000000000LL

enum glyph {
	G_TOP_LEFT, G_TOP_RIGHT, G_BOTTOM_LEFT, G_BOTTOM_RIGHT,
	G_HLINE, G_VLINE, G_LEFT_T, G_RIGHT_T, G_TOP_T, G_BOTTOM_T, G_CROSS,
	G_HEAD_HLINE, G_HEAD_LEFT_T, G_HEAD_RIGHT_T, G_HEAD_CROSS,
	G_BULLET1, G_BULLET2, G_BULLET3,
	G_COUNT
};

static const char *const glyphs_utf8[G_COUNT] = {
	"┌", "┐", "└", "┘", "─", "│", "├", "┤", "┬", "┴", "┼",
	"═", "╞", "╡", "╪", "•", "◦", "▪",
};
static const char *const glyphs_ascii[G_COUNT] = {
	"+", "+", "+", "+", "-", "|", "+", "+", "+", "+", "+",
	"=", "+", "+", "+", "*", "-", "+",
};

/* What the layout does with an element. */
enum kind {
	K_INLINE,    /* text-level, or unknown: its text flows */
	K_BLOCK,     /* a container of other blocks */
	K_PARA,
	K_HEADING,
	K_PRE,
	K_UL,
	K_OL,
	K_DL,
	K_DT,
	K_DD,
	K_TABLE,
	K_QUOTE,
	K_HR,
	K_BR,
	K_IMG,
	K_LINK,
	K_EM,
	K_STRONG,
	K_CODE,
	K_INPUT,     /* a task list's checkbox; other inputs are noise */
	K_NOISE,     /* removed before anything is laid out */
};

struct tag_kind {
	const char *name;
	enum kind kind;
};

/* Sorted by name for bsearch. */
static const struct tag_kind tag_kinds[] = {
	{ "a", K_LINK },           { "address", K_BLOCK },
	{ "article", K_BLOCK },    { "aside", K_BLOCK },
	{ "b", K_STRONG },         { "blockquote", K_QUOTE },
	{ "body", K_BLOCK },       { "br", K_BR },
	{ "button", K_NOISE },     { "canvas", K_NOISE },
	{ "caption", K_PARA },     { "center", K_BLOCK },
	{ "cite", K_EM },          { "code", K_CODE },
	{ "dd", K_DD },            { "details", K_BLOCK },
	{ "dfn", K_EM },           { "div", K_BLOCK },
	{ "dl", K_DL },            { "dt", K_DT },
	{ "em", K_EM },            { "fieldset", K_BLOCK },
	{ "figcaption", K_PARA },  { "figure", K_BLOCK },
	{ "footer", K_NOISE },     { "h1", K_HEADING },
	{ "h2", K_HEADING },       { "h3", K_HEADING },
	{ "h4", K_HEADING },       { "h5", K_HEADING },
	{ "h6", K_HEADING },       { "header", K_BLOCK },
	{ "hr", K_HR },            { "i", K_EM },
	{ "iframe", K_NOISE },     { "img", K_IMG },
	{ "input", K_INPUT },       { "kbd", K_CODE },
	{ "li", K_BLOCK },         { "link", K_NOISE },
	{ "main", K_BLOCK },       { "meta", K_NOISE },
	{ "nav", K_NOISE },        { "noscript", K_NOISE },
	{ "object", K_NOISE },     { "ol", K_OL },
	{ "p", K_PARA },           { "pre", K_PRE },
	{ "samp", K_CODE },        { "script", K_NOISE },
	{ "section", K_BLOCK },    { "select", K_NOISE },
	{ "strong", K_STRONG },    { "style", K_NOISE },
	{ "summary", K_PARA },     { "svg", K_NOISE },
	{ "table", K_TABLE },      { "template", K_NOISE },
	{ "textarea", K_NOISE },   { "tt", K_CODE },
	{ "ul", K_UL },            { "var", K_EM },
};

/* Class words of the themes' chrome: permalink marks, sidebars, related
 * links, version menus, search boxes, line numbers. */
static const char *const noise_classes[] = {
	"headerlink", "sphinxsidebar", "related", "wy-nav-side",
	"rst-versions", "footer", "searchbox", "linenos", "lineno",
	"md-sidebar", "md-header", "md-footer", "md-search",
};
/* Class words of a site's navigation, where the page list comes from
 * (besides <nav>), as a browser user finds it: Sphinx's sidebar, the
 * Read the Docs theme's, MkDocs Material's, the plain `mkdocs` theme's
 * top bar, and Sphinx's toctree in the page itself (where a theme's
 * sidebar has only the page's own contents, the root page's toctree is
 * the site's navigation). */
static const char *const nav_classes[] = {
	"sphinxsidebar", "wy-nav-side", "md-nav", "navbar-nav",
	"toctree-wrapper",
};
/* Class words that box an element as an admonition (Sphinx's directive
 * names; MkDocs writes "admonition TYPE"). */
static const char *const box_classes[] = {
	"admonition", "attention", "caution", "danger", "error", "hint",
	"important", "note", "seealso", "tip", "warning",
};

/* A line being put together. */
struct lb {
	struct ui_buf text;
	struct ui_span *spans;
	size_t nspans, cap;
	int width;
};

/* Lines laid out at one width, with the ids they hold. */
struct out {
	struct ui_line *v;
	size_t len, cap;
	struct ui_anchor *anchors;
	size_t nanchors, acap;
	char **pending; /* ids whose element starts at the next line */
	size_t npending, pcap;
	int gap;        /* a blank line is due before the next line */
	int measure;    /* laid out to measure: ids are not recorded */
	int min_width;  /* the widest piece that cannot be broken */
	int truncated;  /* lines past UI_RENDER_MAX_LINES were dropped */
};

/* Inline text being gathered for one paragraph: whitespace-collapsed
 * UTF-8 with the style each run of it starts. */
struct flow {
	struct ui_buf text;
	struct run {
		size_t off;
		enum ui_render_style style;
	} *runs;
	size_t nruns, cap;
	int space;                       /* a collapsed space is due */
	enum ui_render_style space_style;
	int force;                       /* >= 0: every run gets this style */
};

/* What the prefix and suffix of copied lines are. */
struct decor {
	const char *first;             /* before the first line */
	const char *rest;              /* before the others */
	enum ui_render_style style;
	const char *right;             /* after padding to inner, or NULL */
	int inner;
};

/* One page's rendering. */
struct render {
	const char *const *g;   /* glyphs */
	struct ui_page *page;   /* links are numbered into it */
	size_t links_cap;
	size_t pages_cap;
	int tables;             /* tables being laid out, nested */
};

/* Table rows, as found. */
struct trow {
	xmlNode *tr;
	int head;
};

struct table {
	struct trow *rows;
	size_t nrows, cap;
	size_t ncols;
	xmlNode **cells; /* nrows x ncols, NULL where a row is short */
	int *nat, *min;  /* per column */
	int *colw;
	size_t nhead;    /* leading header rows */
};

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

static void libxml_init(void)
{
	xmlInitParser();
}

static void layout_children(struct render *r, struct out *o, xmlNode *parent,
			    const xmlNode *skip, int width,
			    enum ui_render_style base);
static void inline_children(struct render *r, struct out *o, struct flow *f,
			    xmlNode *n, enum ui_render_style style);

/* Text measure ------------------------------------------------------------ */

/* Columns of the UTF-8 character at s (n bytes left); *used its bytes.
 * An invalid byte counts as one column, as the drawing code shows '?'. */
static int char_width(const char *s, size_t n, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t k, i;
	int w;

	*used = 1;
	if (u[0] < 0x80)
		return 1;
	if ((u[0] & 0xe0) == 0xc0)
		k = 2, cp = u[0] & 0x1f;
	else if ((u[0] & 0xf0) == 0xe0)
		k = 3, cp = u[0] & 0x0f;
	else if ((u[0] & 0xf8) == 0xf0)
		k = 4, cp = u[0] & 0x07;
	else
		return 1;
	if (k > n)
		return 1;
	for (i = 1; i < k; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 1;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	*used = k;
	w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

static int text_width(const char *s, size_t n)
{
	size_t used;
	int w = 0;

	while (n > 0) {
		w += char_width(s, n, &used);
		s += used;
		n -= used;
	}
	return w;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static int is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* Lines ------------------------------------------------------------------- */

static void lb_add(struct lb *b, const char *s, size_t n,
		   enum ui_render_style style, int width)
{
	struct ui_span *last = b->nspans ? &b->spans[b->nspans - 1] : NULL;

	if (n == 0)
		return;
	if (last != NULL && last->style == style &&
	    last->off + last->len == b->text.len) {
		last->len += n;
	} else {
		if (b->nspans == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 8;
			b->spans = ui_xrealloc(b->spans,
					       b->cap * sizeof(*b->spans));
		}
		b->spans[b->nspans++] =
			(struct ui_span){ b->text.len, n, style };
	}
	ui_buf_add(&b->text, s, n);
	b->width += width;
}

static void lb_puts(struct lb *b, const char *s, enum ui_render_style style)
{
	size_t n = strlen(s);

	lb_add(b, s, n, style, text_width(s, n));
}

static void lb_repeat(struct lb *b, const char *s, int count,
		      enum ui_render_style style)
{
	while (count-- > 0)
		lb_puts(b, s, style);
}

static void lb_line(struct lb *b, const struct ui_line *l)
{
	size_t i;

	for (i = 0; i < l->nspans; i++)
		lb_add(b, l->text + l->spans[i].off, l->spans[i].len,
		       l->spans[i].style,
		       text_width(l->text + l->spans[i].off, l->spans[i].len));
}

static void lb_reset(struct lb *b)
{
	b->text.len = 0;
	if (b->text.ptr != NULL)
		b->text.ptr[0] = '\0';
	b->nspans = 0;
	b->width = 0;
}

static void lb_dispose(struct lb *b)
{
	ui_buf_dispose(&b->text);
	free(b->spans);
}

static void line_dispose(struct ui_line *l)
{
	free(l->text);
	free(l->spans);
}

/* b's line without its trailing spaces, in exactly sized memory. */
static struct ui_line lb_finish(struct lb *b)
{
	struct ui_line l;

	while (b->nspans > 0 && b->text.len > 0 &&
	       b->text.ptr[b->text.len - 1] == ' ') {
		struct ui_span *last = &b->spans[b->nspans - 1];

		b->text.len--;
		b->width--;
		if (--last->len == 0)
			b->nspans--;
	}
	l.len = b->text.len;
	l.text = ui_xmalloc(l.len + 1);
	if (l.len > 0)
		memcpy(l.text, b->text.ptr, l.len);
	l.text[l.len] = '\0';
	l.width = b->width;
	l.nspans = b->nspans;
	l.spans = NULL;
	if (l.nspans > 0) {
		l.spans = ui_xmalloc(l.nspans * sizeof(*l.spans));
		memcpy(l.spans, b->spans, l.nspans * sizeof(*l.spans));
	}
	lb_reset(b);
	return l;
}

/* Output ------------------------------------------------------------------ */

static void out_add_anchor(struct out *o, char *id, size_t line)
{
	if (o->measure) {
		free(id);
		return;
	}
	if (o->nanchors == o->acap) {
		o->acap = o->acap ? o->acap * 2 : 8;
		o->anchors = ui_xrealloc(o->anchors,
					 o->acap * sizeof(*o->anchors));
	}
	o->anchors[o->nanchors++] = (struct ui_anchor){ id, line };
}

/* Note that the element with this id starts at o's next line. */
static void out_pending(struct out *o, char *id)
{
	if (o->measure) {
		free(id);
		return;
	}
	if (o->npending == o->pcap) {
		o->pcap = o->pcap ? o->pcap * 2 : 4;
		o->pending = ui_xrealloc(o->pending,
					 o->pcap * sizeof(*o->pending));
	}
	o->pending[o->npending++] = id;
}

static void out_pending_id(struct out *o, const xmlNode *n)
{
	const xmlAttr *a;

	for (a = n->properties; a != NULL; a = a->next)
		if (strcmp((const char *)a->name, "id") == 0 &&
		    a->children != NULL && a->children->content != NULL &&
		    a->children->content[0] != '\0') {
			out_pending(o, ui_xstrdup(
					       (const char *)a->children->content));
			return;
		}
}

static void out_raw(struct out *o, struct ui_line l)
{
	if (o->len == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 32;
		o->v = ui_xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->len++] = l;
}

/* Appends b's line (and the blank line a gap asks for first); the ids
 * pending start there. Past the line cap the line is dropped. */
static void out_push(struct out *o, struct lb *b)
{
	size_t i;

	int blank = o->gap && o->len > 0;

	if (o->len + 1 + (size_t)blank > UI_RENDER_MAX_LINES) {
		o->truncated = 1;
		lb_reset(b);
		return;
	}
	if (blank) {
		struct lb empty = { UI_BUF_INIT, NULL, 0, 0, 0 };

		out_raw(o, lb_finish(&empty));
		lb_dispose(&empty);
	}
	o->gap = 0;
	for (i = 0; i < o->npending; i++)
		out_add_anchor(o, o->pending[i], o->len);
	o->npending = 0;
	out_raw(o, lb_finish(b));
}

/* Moves src's ids into dst, src's line 0 being dst's line base. */
static void out_adopt(struct out *dst, struct out *src, size_t base)
{
	size_t i;

	for (i = 0; i < src->nanchors; i++)
		out_add_anchor(dst, src->anchors[i].id,
			       base + src->anchors[i].line);
	for (i = 0; i < src->npending; i++)
		out_pending(dst, src->pending[i]);
	src->nanchors = src->npending = 0;
	if (src->truncated)
		dst->truncated = 1;
}

static void out_dispose(struct out *o)
{
	size_t i;

	for (i = 0; i < o->len; i++)
		line_dispose(&o->v[i]);
	for (i = 0; i < o->nanchors; i++)
		free(o->anchors[i].id);
	for (i = 0; i < o->npending; i++)
		free(o->pending[i]);
	free(o->v);
	free(o->anchors);
	free(o->pending);
	memset(o, 0, sizeof(*o));
}

static int out_widest(const struct out *o)
{
	size_t i;
	int w = 0;

	for (i = 0; i < o->len; i++)
		if (o->v[i].width > w)
			w = o->v[i].width;
	return w;
}

/* Copies src's lines into dst, decorated; src keeps its lines. */
static void out_append(struct out *dst, struct out *src, const struct decor *d)
{
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	size_t i, base = dst->len;
	int pw = text_width(d->rest, strlen(d->rest));

	for (i = 0; i < src->len; i++) {
		lb_puts(&b, i == 0 ? d->first : d->rest, d->style);
		lb_line(&b, &src->v[i]);
		if (d->right != NULL && src->v[i].width <= d->inner) {
			lb_repeat(&b, " ", pw + d->inner - b.width, d->style);
			lb_puts(&b, d->right, d->style);
		}
		out_push(dst, &b);
		if (i == 0 && dst->len > 0)
			base = dst->len - 1;
	}
	if (src->min_width + pw > dst->min_width)
		dst->min_width = src->min_width + pw;
	out_adopt(dst, src, base);
	lb_dispose(&b);
}

/* An empty out of o's kind. */
static struct out out_sub(const struct out *o)
{
	struct out sub;

	memset(&sub, 0, sizeof(sub));
	sub.measure = o->measure;
	return sub;
}

static int inner_width(int width, int used)
{
	return width - used > MIN_INNER ? width - used : MIN_INNER;
}

/* Inline flow ------------------------------------------------------------- */

static void flow_init(struct flow *f)
{
	memset(f, 0, sizeof(*f));
	f->force = -1;
}

static void flow_put(struct flow *f, const char *s, size_t n,
		     enum ui_render_style style)
{
	struct run *last = f->nruns ? &f->runs[f->nruns - 1] : NULL;

	if (f->force >= 0)
		style = (enum ui_render_style)f->force;
	if (last != NULL && last->off == f->text.len) {
		last->style = style;
	} else if (last == NULL || last->style != style) {
		if (f->nruns == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 16;
			f->runs = ui_xrealloc(f->runs, f->cap * sizeof(*f->runs));
		}
		f->runs[f->nruns++] = (struct run){ f->text.len, style };
	}
	ui_buf_add(&f->text, s, n);
}

/* Adds HTML text: whitespace runs become one space, controls go. */
static void flow_text(struct flow *f, const char *s, enum ui_render_style style)
{
	const char *start;

	while (*s != '\0') {
		if (is_space(*s)) {
			if (f->text.len > 0 &&
			    f->text.ptr[f->text.len - 1] != '\n') {
				f->space = 1;
				f->space_style = style;
			}
			s++;
			continue;
		}
		if (is_control(*s)) {
			s++;
			continue;
		}
		if (f->space) {
			flow_put(f, " ", 1, f->space_style);
			f->space = 0;
		}
		for (start = s; *s != '\0' && !is_space(*s) && !is_control(*s);)
			s++;
		flow_put(f, start, (size_t)(s - start), style);
	}
}

/* Adds s right after the text so far, leaving a due space due. */
static void flow_glue(struct flow *f, const char *s, enum ui_render_style style)
{
	flow_put(f, s, strlen(s), style);
}

static void flow_break(struct flow *f)
{
	f->space = 0;
	flow_put(f, "\n", 1, UI_RENDER_NORMAL);
}

static void flow_reset(struct flow *f)
{
	f->text.len = 0;
	f->nruns = 0;
	f->space = 0;
}

static void flow_dispose(struct flow *f)
{
	ui_buf_dispose(&f->text);
	free(f->runs);
}

/* The end of the word at w0 and its columns. */
static size_t word_end(const char *s, size_t len, size_t w0, int *ww)
{
	size_t used;

	*ww = 0;
	while (w0 < len && s[w0] != ' ' && s[w0] != '\n') {
		*ww += char_width(s + w0, len - w0, &used);
		w0 += used;
	}
	return w0;
}

/* The longest start of the word at w0 that fits width (at least one
 * character): a word wider than the line is cut. */
static size_t word_cut(const char *s, size_t len, size_t w0, int width,
		       int *ww)
{
	size_t used;
	int cw;

	*ww = 0;
	while (w0 < len && s[w0] != ' ' && s[w0] != '\n') {
		cw = char_width(s + w0, len - w0, &used);
		if (*ww > 0 && *ww + cw > width)
			break;
		*ww += cw;
		w0 += used;
	}
	return w0;
}

/* Pushes bytes [start, end) of f's text as one line, in its styles. */
static void flow_line(struct out *o, const struct flow *f, size_t start,
		      size_t end, size_t *run)
{
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	const char *s = f->text.ptr;
	size_t p = start, stop;

	while (p < end) {
		while (*run + 1 < f->nruns && f->runs[*run + 1].off <= p)
			(*run)++;
		stop = *run + 1 < f->nruns && f->runs[*run + 1].off < end
			       ? f->runs[*run + 1].off
			       : end;
		lb_add(&b, s + p, stop - p, f->runs[*run].style,
		       text_width(s + p, stop - p));
		p = stop;
	}
	out_push(o, &b);
	lb_dispose(&b);
}

/* Lays f's text out in lines of at most width columns (words wider than
 * that are cut); returns the widest line's columns. */
static int flow_wrap(struct out *o, const struct flow *f, int width)
{
	const char *s = f->text.ptr;
	size_t len = f->text.len, pos = 0, start, end, run = 0, w0, w1;
	int col, widest = 0, ww, need, cut;

	while (pos < len) {
		if (s[pos] == ' ')
			pos++; /* the space a line was broken at */
		start = end = pos;
		col = cut = 0;
		while (!cut && pos < len && s[pos] != '\n') {
			w0 = s[pos] == ' ' ? pos + 1 : pos;
			w1 = word_end(s, len, w0, &ww);
			if (ww > o->min_width)
				o->min_width = ww;
			need = (int)(w0 - pos) + ww;
			if (col > 0 && col + need > width)
				break;
			if (col == 0 && ww > width) {
				w1 = word_cut(s, len, w0, width, &ww);
				need = ww;
				cut = 1;
			}
			col += need;
			end = pos = w1;
		}
		flow_line(o, f, start, end, &run);
		if (col > widest)
			widest = col;
		if (pos < len && s[pos] == '\n')
			pos++;
	}
	return widest;
}

/* Lays the gathered paragraph out, if there is one, and empties f. */
static void flush_para(struct out *o, struct flow *f, int width)
{
	if (f->text.len > 0) {
		flow_wrap(o, f, width);
		o->gap = 1;
	}
	flow_reset(f);
}

/* Tree helpers ------------------------------------------------------------ */

static int kind_cmp(const void *key, const void *item)
{
	return strcmp(key, ((const struct tag_kind *)item)->name);
}

static enum kind tag_kind(const xmlNode *n)
{
	const struct tag_kind *k =
		bsearch(n->name, tag_kinds, sizeof(tag_kinds) / sizeof(tag_kinds[0]),
			sizeof(tag_kinds[0]), kind_cmp);

	return k != NULL ? k->kind : K_INLINE;
}

static int is_element(const xmlNode *n, const char *name)
{
	return n != NULL && n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

/* The value of attribute name, or NULL. */
static const char *attr(const xmlNode *n, const char *name)
{
	const xmlAttr *a;

	for (a = n->properties; a != NULL; a = a->next)
		if (strcmp((const char *)a->name, name) == 0)
			return a->children != NULL && a->children->content
				       ? (const char *)a->children->content
				       : "";
	return NULL;
}

/* Whether n's class attribute has one of the words in set. */
static int has_class(const xmlNode *n, const char *const *set, size_t nset)
{
	const char *cls = attr(n, "class"), *w;
	size_t len, i;

	if (cls == NULL)
		return 0;
	for (;;) {
		while (is_space(*cls))
			cls++;
		if (*cls == '\0')
			return 0;
		for (w = cls; *cls != '\0' && !is_space(*cls);)
			cls++;
		len = (size_t)(cls - w);
		for (i = 0; i < nset; i++)
			if (strncmp(set[i], w, len) == 0 && set[i][len] == '\0')
				return 1;
	}
}

#define HAS_CLASS(n, set) has_class(n, set, sizeof(set) / sizeof(set[0]))

static int is_noise(const xmlNode *n)
{
	const char *role = attr(n, "role"), *id = attr(n, "id"), *type;
	static const char *const search_class[] = { "search" };

	if (tag_kind(n) == K_NOISE || HAS_CLASS(n, noise_classes))
		return 1;
	if (tag_kind(n) == K_INPUT)
		return (type = attr(n, "type")) == NULL ||
		       strcmp(type, "checkbox") != 0;
	if (role != NULL &&
	    (strcmp(role, "navigation") == 0 || strcmp(role, "search") == 0))
		return 1;
	if (id != NULL && strcmp(id, "searchbox") == 0)
		return 1;
	return is_element(n, "form") && HAS_CLASS(n, search_class);
}

static int is_box(const xmlNode *n)
{
	if (is_element(n, "details"))
		return 1;
	return (is_element(n, "div") || is_element(n, "aside") ||
		is_element(n, "section")) &&
	       HAS_CLASS(n, box_classes);
}

/* The next node of a pre-order walk of root's subtree, not entering n's
 * children when descend is 0; *depth follows the walk. */
static xmlNode *walk_next(xmlNode *n, const xmlNode *root, int descend,
			  int *depth)
{
	if (descend && n->type == XML_ELEMENT_NODE && n->children != NULL) {
		(*depth)++;
		return n->children;
	}
	while (n != NULL && n != root) {
		if (n->next != NULL)
			return n->next;
		n = n->parent;
		(*depth)--;
	}
	return NULL;
}

/* Replaces n's children by their text. */
static void flatten(xmlNode *n)
{
	xmlChar *text = xmlNodeGetContent(n);

	xmlFreeNodeList(n->children);
	n->children = n->last = NULL;
	if (text != NULL) {
		xmlAddChild(n, xmlNewText(text));
		xmlFree(text);
	}
}

/* Removes the chrome below root and flattens what nests too deep, so that
 * every later walk may recurse. */
static void prune(xmlNode *root)
{
	xmlNode *n = root->children, *next;
	int depth = 1;

	while (n != NULL) {
		if (n->type == XML_ELEMENT_NODE && is_noise(n)) {
			int d = depth;

			next = walk_next(n, root, 0, &d);
			xmlUnlinkNode(n);
			xmlFreeNode(n);
			depth = d;
			n = next;
			continue;
		}
		if (n->type == XML_ELEMENT_NODE && depth >= UI_RENDER_MAX_DEPTH &&
		    n->children != NULL)
			flatten(n);
		n = walk_next(n, root, 1, &depth);
	}
}

static xmlNode *find(xmlNode *root, const char *name)
{
	xmlNode *n;
	int depth = 0;

	for (n = root; n != NULL; n = walk_next(n, root, 1, &depth))
		if (is_element(n, name))
			return n;
	return NULL;
}

/* The search indexer's main node: the first [role=main], else the first
 * <main>, else the parent of the first <h1> (of its <header> if it is in
 * one), else the body. */
static xmlNode *main_node(xmlNode *body)
{
	xmlNode *n, *first_main = NULL, *first_h1 = NULL;
	const char *role;
	int depth = 0;

	for (n = body->children; n != NULL; n = walk_next(n, body, 1, &depth)) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if ((role = attr(n, "role")) != NULL && strcmp(role, "main") == 0)
			return n;
		if (first_main == NULL && is_element(n, "main"))
			first_main = n;
		else if (first_h1 == NULL && is_element(n, "h1"))
			first_h1 = n;
	}
	if (first_main != NULL)
		return first_main;
	if (first_h1 != NULL) {
		n = is_element(first_h1->parent, "header") ? first_h1->parent
							   : first_h1;
		return n->parent != NULL && n->parent->type == XML_ELEMENT_NODE
			       ? n->parent
			       : body;
	}
	return body;
}

/* n's text, whitespace collapsed; owned by the caller. */
static char *node_text(xmlNode *n)
{
	xmlChar *raw = xmlNodeGetContent(n);
	struct flow f;
	char *s;

	flow_init(&f);
	if (raw != NULL)
		flow_text(&f, (const char *)raw, UI_RENDER_NORMAL);
	xmlFree(raw);
	s = ui_buf_take(&f.text);
	flow_dispose(&f);
	return s;
}

/* Appends the link a (its href and text) to v[0..*n). */
static void add_link(struct ui_link **v, size_t *n, size_t *cap,
		     const char *href, xmlNode *a)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = ui_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[*n].href = ui_xstrdup(href);
	(*v)[*n].text = node_text(a);
	(*n)++;
}

/* Numbers the links below n in document order (not in code blocks,
 * whose text is shown as is), keeping the number in the node. */
static void number_links(struct render *r, xmlNode *n)
{
	struct ui_page *p = r->page;
	const char *href;
	xmlNode *c;

	for (c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || tag_kind(c) == K_PRE)
			continue;
		if (tag_kind(c) == K_LINK && (href = attr(c, "href")) != NULL &&
		    href[0] != '\0') {
			add_link(&p->links, &p->nlinks, &r->links_cap, href, c);
			c->_private = (void *)(uintptr_t)p->nlinks;
		}
		number_links(r, c);
	}
}

/* Blocks -------------------------------------------------------------------- */

static int is_block(const xmlNode *n)
{
	switch (tag_kind(n)) {
	case K_BLOCK: case K_PARA: case K_HEADING: case K_PRE: case K_UL:
	case K_OL: case K_DL: case K_DT: case K_DD: case K_TABLE:
	case K_QUOTE: case K_HR:
		return 1;
	default:
		return 0;
	}
}

/* A list or definition list right inside an item hugs the item's text. */
static void hug_parent_item(struct out *o, const xmlNode *n)
{
	if (is_element(n->parent, "li") || is_element(n->parent, "dd"))
		o->gap = 0;
}

static void heading(struct render *r, struct out *o, xmlNode *n, int width)
{
	int level = n->name[1] - '0';
	enum ui_render_style style =
		(enum ui_render_style)(UI_RENDER_HEADING1 + level - 1);
	char prefix[8];
	struct flow f;
	int widest;

	flow_init(&f);
	f.force = (int)style;
	inline_children(r, o, &f, n, style);
	if (f.text.len == 0)
		goto done;
	o->gap = 1;
	if (level <= 2) {
		struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };

		widest = flow_wrap(o, &f, width);
		lb_repeat(&b, level == 1 ? "=" : "-", widest, style);
		out_push(o, &b);
		lb_dispose(&b);
	} else {
		struct out sub = out_sub(o);
		struct decor d = { prefix, "", style, NULL, 0 };
		char rest[8];

		memset(prefix, '#', (size_t)level);
		prefix[level] = ' ';
		prefix[level + 1] = '\0';
		memset(rest, ' ', (size_t)level + 1);
		rest[level + 1] = '\0';
		d.rest = rest;
		flow_wrap(&sub, &f, inner_width(width, level + 1));
		out_append(o, &sub, &d);
		out_dispose(&sub);
	}
	o->gap = 1;
done:
	flow_dispose(&f);
}

/* A code block: its lines whole, tabs expanded, never wrapped. */
static void code_block(struct out *o, xmlNode *n)
{
	xmlChar *raw = xmlNodeGetContent(n);
	const char *s = raw != NULL ? (const char *)raw : "", *eol;
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	struct ui_buf line = UI_BUF_INIT;
	size_t used;
	int col;

	if (*s == '\n')
		s++; /* HTML drops the newline that opens a <pre> */
	while (*s != '\0') {
		eol = strchr(s, '\n');
		if (eol == NULL)
			eol = s + strlen(s);
		line.len = 0;
		for (col = 0; s < eol; s += used) {
			used = 1;
			if (*s == '\t') {
				do
					ui_buf_add(&line, " ", 1);
				while (++col % TAB_WIDTH != 0);
			} else if (!is_control(*s)) {
				col += char_width(s, (size_t)(eol - s), &used);
				ui_buf_add(&line, s, used);
			}
		}
		lb_repeat(&b, " ", CODE_INDENT, UI_RENDER_NORMAL);
		lb_add(&b, line.ptr, line.len, UI_RENDER_CODE, col);
		if (b.width > o->min_width)
			o->min_width = b.width;
		out_push(o, &b);
		s = *eol == '\n' ? eol + 1 : eol;
	}
	o->gap = 1;
	ui_buf_dispose(&line);
	lb_dispose(&b);
	xmlFree(raw);
}

/* The bullet of a list nested depth lists deep. */
static const char *bullet(struct render *r, const xmlNode *list)
{
	const xmlNode *a;
	int depth = 0;

	for (a = list->parent; a != NULL; a = a->parent)
		if (is_element(a, "ul") || is_element(a, "ol"))
			depth++;
	return r->g[G_BULLET1 + depth % 3];
}

static void list(struct render *r, struct out *o, xmlNode *n, int width)
{
	int ordered = tag_kind(n) == K_OL, lw;
	const char *start = attr(n, "start");
	long long number = 1, last;
	char label[LABEL_MAX], rest[LABEL_MAX];
	size_t items = 0;
	xmlNode *li;

	if (ordered && start != NULL)
		number = strtoll(start, NULL, 10); /* HTML allows a sign */
	if (number > LIST_START_MAX || number < -LIST_START_MAX)
		number = 1;
	for (li = n->children; li != NULL; li = li->next)
		items += li->type == XML_ELEMENT_NODE;
	last = number + (long long)items - 1;
	/* Numbers right-aligned to the widest, first or (by sign) last. */
	lw = ordered ? snprintf(label, sizeof(label), "%lld. ", last)
		     : text_width(bullet(r, n), strlen(bullet(r, n))) + 1;
	if (ordered && snprintf(label, sizeof(label), "%lld. ", number) > lw)
		lw = (int)strlen(label);
	if (lw > LABEL_MAX - 1)
		lw = LABEL_MAX - 1; /* LIST_START_MAX keeps it below; this
				     * bound is what the compiler can see */
	memset(rest, ' ', (size_t)lw);
	rest[lw] = '\0';
	hug_parent_item(o, n);
	for (li = n->children; li != NULL; li = li->next) {
		struct out sub = out_sub(o);
		struct decor d = { label, rest, UI_RENDER_NORMAL, NULL, 0 };

		if (li->type != XML_ELEMENT_NODE)
			continue;
		if (ordered)
			snprintf(label, sizeof(label), "%*lld. ", lw - 2,
				 number++);
		else
			snprintf(label, sizeof(label), "%s ", bullet(r, n));
		out_pending_id(&sub, li);
		layout_children(r, &sub, li, NULL, inner_width(width, lw),
				UI_RENDER_NORMAL);
		if (sub.len == 0) {
			struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };

			lb_puts(&b, label, UI_RENDER_NORMAL);
			out_push(&sub, &b);
			lb_dispose(&b);
			d.first = "";
		}
		out_append(o, &sub, &d);
		out_dispose(&sub);
	}
	o->gap = 1;
}

static void deflist(struct render *r, struct out *o, xmlNode *n, int width)
{
	static const struct decor indent = { "    ", "    ", /* DD_INDENT */
					     UI_RENDER_NORMAL, NULL, 0 };
	int after_dd = 0;
	xmlNode *c;

	hug_parent_item(o, n);
	for (c = n->children; c != NULL; c = c->next) {
		enum kind k = c->type == XML_ELEMENT_NODE ? tag_kind(c) : K_INLINE;

		if (k == K_DT) {
			o->gap = after_dd || o->gap;
			out_pending_id(o, c);
			layout_children(r, o, c, NULL, width, UI_RENDER_STRONG);
			o->gap = 0;
			after_dd = 0;
		} else if (k == K_DD) {
			struct out sub = out_sub(o);

			out_pending_id(&sub, c);
			layout_children(r, &sub, c, NULL,
					inner_width(width, DD_INDENT),
					UI_RENDER_NORMAL);
			o->gap = 0;
			out_append(o, &sub, &indent);
			out_dispose(&sub);
			after_dd = 1;
		} else if (c->type == XML_ELEMENT_NODE) {
			/* HTML5 lets <div> group a term and its description. */
			o->gap = after_dd || o->gap;
			deflist(r, o, c, width);
			after_dd = 1;
		}
	}
	o->gap = 1;
}

static void quote(struct render *r, struct out *o, xmlNode *n, int width)
{
	struct out sub = out_sub(o);
	char bar[16];
	struct decor d = { bar, bar, UI_RENDER_BORDER, NULL, 0 };

	snprintf(bar, sizeof(bar), "%s ", r->g[G_VLINE]);
	layout_children(r, &sub, n, NULL, inner_width(width, 2),
			UI_RENDER_NORMAL);
	out_append(o, &sub, &d);
	out_dispose(&sub);
	o->gap = 1;
}

static void rule(struct render *r, struct out *o, int width)
{
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };

	o->gap = 1;
	lb_repeat(&b, r->g[G_HLINE], width, UI_RENDER_BORDER);
	out_push(o, &b);
	lb_dispose(&b);
	o->gap = 1;
}

/* An admonition's title element: its "admonition-title" child, or a
 * <details>' <summary>. */
static xmlNode *box_title(xmlNode *n)
{
	static const char *const title_class[] = { "admonition-title" };
	xmlNode *c;

	for (c = n->children; c != NULL; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    (HAS_CLASS(c, title_class) || is_element(c, "summary")))
			return c;
	return NULL;
}

/* An admonition, boxed, its title in the top border when it fits there:
 *   ┌─ Note ──────┐
 *   │ Text.       │
 *   └─────────────┘ */
static void box(struct render *r, struct out *o, xmlNode *n, int width)
{
	xmlNode *title = box_title(n);
	int inner = inner_width(width, 4);
	struct out body = out_sub(o), head = out_sub(o);
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	char side[16], right[16];
	struct decor d = { side, side, UI_RENDER_BORDER, right, inner };
	int in_border;

	snprintf(side, sizeof(side), "%s ", r->g[G_VLINE]);
	snprintf(right, sizeof(right), " %s", r->g[G_VLINE]);
	if (title != NULL)
		layout_children(r, &head, title, NULL, inner,
				UI_RENDER_ADMONITION_TITLE);
	in_border = head.len == 1 && head.v[0].width <= inner - 2;
	if (head.len > 0 && !in_border) {
		struct decor plain = { "", "", UI_RENDER_NORMAL, NULL, 0 };

		out_append(&body, &head, &plain);
	}
	body.gap = 0;
	layout_children(r, &body, n, title, inner, UI_RENDER_NORMAL);
	o->gap = 1;
	lb_puts(&b, r->g[G_TOP_LEFT], UI_RENDER_BORDER);
	if (in_border) {
		lb_puts(&b, r->g[G_HLINE], UI_RENDER_BORDER);
		lb_puts(&b, " ", UI_RENDER_BORDER);
		lb_line(&b, &head.v[0]);
		lb_puts(&b, " ", UI_RENDER_BORDER);
	}
	lb_repeat(&b, r->g[G_HLINE], inner + 3 - b.width, UI_RENDER_BORDER);
	lb_puts(&b, r->g[G_TOP_RIGHT], UI_RENDER_BORDER);
	out_push(o, &b);
	if (in_border)
		out_adopt(o, &head, o->len > 0 ? o->len - 1 : 0);
	out_append(o, &body, &d);
	lb_puts(&b, r->g[G_BOTTOM_LEFT], UI_RENDER_BORDER);
	lb_repeat(&b, r->g[G_HLINE], inner + 2, UI_RENDER_BORDER);
	lb_puts(&b, r->g[G_BOTTOM_RIGHT], UI_RENDER_BORDER);
	out_push(o, &b);
	if (body.min_width + 4 > o->min_width)
		o->min_width = body.min_width + 4;
	o->gap = 1;
	lb_dispose(&b);
	out_dispose(&head);
	out_dispose(&body);
}

/* Tables ------------------------------------------------------------------ */

static void table_add_row(struct table *t, xmlNode *tr, int head)
{
	size_t cells = 0;
	xmlNode *c;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->rows = ui_xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	t->rows[t->nrows++] = (struct trow){ tr, head };
	for (c = tr->children; c != NULL; c = c->next)
		cells += is_element(c, "td") || is_element(c, "th");
	if (cells > t->ncols)
		t->ncols = cells;
}

/* Whether every cell of tr is a <th>: a header row without <thead>. */
static int all_th(const xmlNode *tr)
{
	const xmlNode *c;
	int any = 0;

	for (c = tr->children; c != NULL; c = c->next) {
		if (is_element(c, "td"))
			return 0;
		any |= is_element(c, "th");
	}
	return any;
}

/* Finds the rows (in <thead>, <tbody>, <tfoot> or bare), the header rows
 * and the cells; the caption, if any, into *caption. */
static void table_read(struct table *t, xmlNode *n, xmlNode **caption)
{
	xmlNode *c, *tr;
	size_t i, j;
	int thead = 0;

	for (c = n->children; c != NULL; c = c->next) {
		if (is_element(c, "tr"))
			table_add_row(t, c, 0);
		else if (is_element(c, "caption"))
			*caption = c;
		else if (is_element(c, "thead") || is_element(c, "tbody") ||
			 is_element(c, "tfoot"))
			for (tr = c->children; tr != NULL; tr = tr->next)
				if (is_element(tr, "tr")) {
					thead |= is_element(c, "thead");
					table_add_row(t, tr, is_element(c, "thead"));
				}
	}
	if (!thead && t->nrows > 1 && all_th(t->rows[0].tr))
		t->rows[0].head = 1;
	while (t->nhead < t->nrows && t->rows[t->nhead].head)
		t->nhead++;
	t->cells = ui_xcalloc(t->nrows * t->ncols + 1, sizeof(*t->cells));
	for (i = 0; i < t->nrows; i++)
		for (j = 0, c = t->rows[i].tr->children; c != NULL; c = c->next)
			if (is_element(c, "td") || is_element(c, "th"))
				t->cells[i * t->ncols + j++] = c;
}

static enum ui_render_style cell_style(const xmlNode *cell)
{
	return is_element(cell, "th") ? UI_RENDER_STRONG : UI_RENDER_NORMAL;
}

/* Each column's natural (unwrapped) and narrowest widths. */
static void table_measure(struct render *r, struct table *t)
{
	size_t i, j;

	t->nat = ui_xcalloc(t->ncols + 1, sizeof(*t->nat));
	t->min = ui_xcalloc(t->ncols + 1, sizeof(*t->min));
	t->colw = ui_xcalloc(t->ncols + 1, sizeof(*t->colw));
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncols; j++) {
			xmlNode *cell = t->cells[i * t->ncols + j];
			struct out m;
			int w;

			if (cell == NULL)
				continue;
			memset(&m, 0, sizeof(m));
			m.measure = 1;
			layout_children(r, &m, cell, NULL, MEASURE_WIDTH,
					cell_style(cell));
			if ((w = out_widest(&m)) > t->nat[j])
				t->nat[j] = w;
			if (m.min_width > t->min[j])
				t->min[j] = m.min_width;
			out_dispose(&m);
		}
}

/* Picks the column widths for a grid width columns wide; 0 when even the
 * narrowest grid is wider. */
static int table_fit(struct table *t, int width)
{
	long nat = 0, min = 0, slack = 0, extra, given = 0;
	long borders = 3 * (long)t->ncols + 1;
	size_t j;

	for (j = 0; j < t->ncols; j++) {
		if (t->min[j] < 1)
			t->min[j] = 1;
		if (t->nat[j] < t->min[j])
			t->nat[j] = t->min[j];
		nat += t->nat[j];
		min += t->min[j];
	}
	if (nat + borders <= width) {
		memcpy(t->colw, t->nat, t->ncols * sizeof(*t->colw));
		return 1;
	}
	if (min + borders > width)
		return 0;
	/* Share the room above the minimums in proportion to what each
	 * column would need to be unwrapped. */
	extra = width - borders - min;
	slack = nat - min;
	for (j = 0; j < t->ncols; j++) {
		long add = extra * (t->nat[j] - t->min[j]) / slack;

		t->colw[j] = t->min[j] + (int)add;
		given += add;
	}
	for (j = 0; given < extra && j < t->ncols; j++)
		if (t->colw[j] < t->nat[j]) {
			t->colw[j]++;
			given++;
		}
	return 1;
}

/* A border line: left, then each column's run of fill joined by mid. */
static void grid_rule(struct render *r, struct out *o, const struct table *t,
		      enum glyph left, enum glyph fill, enum glyph mid,
		      enum glyph right)
{
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	size_t j;

	lb_puts(&b, r->g[left], UI_RENDER_BORDER);
	for (j = 0; j < t->ncols; j++) {
		lb_repeat(&b, r->g[fill], t->colw[j] + 2, UI_RENDER_BORDER);
		lb_puts(&b, r->g[j + 1 < t->ncols ? mid : right],
			UI_RENDER_BORDER);
	}
	out_push(o, &b);
	lb_dispose(&b);
}

/* One row of the grid, into o: its cells laid out at their column
 * widths, side by side. */
static void grid_row(struct render *r, struct out *o, const struct table *t,
		     size_t i)
{
	struct out *cells = ui_xcalloc(t->ncols, sizeof(*cells));
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	size_t j, k, height = 1;

	for (j = 0; j < t->ncols; j++) {
		xmlNode *cell = t->cells[i * t->ncols + j];

		cells[j].measure = o->measure;
		if (cell != NULL) {
			out_pending_id(&cells[j], cell);
			layout_children(r, &cells[j], cell, NULL, t->colw[j],
					cell_style(cell));
		}
		if (cells[j].len > height)
			height = cells[j].len;
	}
	for (k = 0; k < height; k++) {
		lb_puts(&b, r->g[G_VLINE], UI_RENDER_BORDER);
		for (j = 0; j < t->ncols; j++) {
			int start = b.width;

			lb_puts(&b, " ", UI_RENDER_NORMAL);
			if (k < cells[j].len)
				lb_line(&b, &cells[j].v[k]);
			lb_repeat(&b, " ", start + 1 + t->colw[j] - b.width,
				  UI_RENDER_NORMAL);
			lb_puts(&b, " ", UI_RENDER_NORMAL);
			lb_puts(&b, r->g[G_VLINE], UI_RENDER_BORDER);
		}
		out_push(o, &b);
	}
	for (j = 0; j < t->ncols; j++) {
		out_adopt(o, &cells[j], 0);
		out_dispose(&cells[j]);
	}
	free(cells);
	lb_dispose(&b);
}

/* The table as a grid. Rows are laid out first, since whether body rows
 * need separators depends on whether any of them takes several lines. */
static void grid(struct render *r, struct out *o, const struct table *t)
{
	static const struct decor plain = { "", "", UI_RENDER_NORMAL, NULL, 0 };
	struct out *rows = ui_xcalloc(t->nrows, sizeof(*rows));
	size_t i;
	int tall = 0;

	for (i = 0; i < t->nrows; i++) {
		rows[i].measure = o->measure;
		grid_row(r, &rows[i], t, i);
		tall |= i >= t->nhead && rows[i].len > 1;
	}
	grid_rule(r, o, t, G_TOP_LEFT, G_HLINE, G_TOP_T, G_TOP_RIGHT);
	for (i = 0; i < t->nrows; i++) {
		if (i > 0 && i == t->nhead)
			grid_rule(r, o, t, G_HEAD_LEFT_T, G_HEAD_HLINE,
				  G_HEAD_CROSS, G_HEAD_RIGHT_T);
		else if (i > t->nhead && tall)
			grid_rule(r, o, t, G_LEFT_T, G_HLINE, G_CROSS,
				  G_RIGHT_T);
		out_append(o, &rows[i], &plain);
		out_dispose(&rows[i]);
	}
	grid_rule(r, o, t, G_BOTTOM_LEFT, G_HLINE, G_BOTTOM_T, G_BOTTOM_RIGHT);
	free(rows);
}

/* One cell of a stacked row: "label: value", the value's further lines
 * under its first; a label wider than half the line goes on a line of its
 * own, the value indented under it. */
static void stacked_cell(struct render *r, struct out *o, xmlNode *cell,
			 const char *label, int width)
{
	struct out sub = out_sub(o);
	struct ui_buf first = UI_BUF_INIT, rest = UI_BUF_INIT;
	struct decor d = { "", "", UI_RENDER_STRONG, NULL, 0 };
	int lw = 0;

	if (label != NULL && label[0] != '\0') {
		ui_buf_printf(&first, "%s: ", label);
		lw = text_width(first.ptr, first.len);
	}
	if (lw > width / 2) {
		struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };

		first.ptr[first.len - 1] = '\0'; /* "label:" */
		lb_puts(&b, first.ptr, UI_RENDER_STRONG);
		out_push(o, &b);
		lb_dispose(&b);
		first.len = 0;
		lw = 2;
		ui_buf_puts(&first, "  ");
	}
	ui_buf_printf(&rest, "%*s", lw, "");
	if (lw > 0) {
		d.first = first.ptr;
		d.rest = rest.ptr;
	}
	out_pending_id(&sub, cell);
	layout_children(r, &sub, cell, NULL, inner_width(width, lw),
			UI_RENDER_NORMAL);
	if (sub.len == 0 && lw > 0) {
		struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };

		out_push(&sub, &b); /* an empty value still shows its label */
		lb_dispose(&b);
	}
	out_append(o, &sub, &d);
	out_dispose(&sub);
	ui_buf_dispose(&first);
	ui_buf_dispose(&rest);
}

/* A table too wide for a grid: each body row as "header: value" lines,
 * rows set apart by a blank line. */
static void stacked(struct render *r, struct out *o, const struct table *t,
		    int width)
{
	char **labels = ui_xcalloc(t->ncols + 1, sizeof(*labels));
	size_t i, j;

	for (j = 0; t->nhead > 0 && j < t->ncols; j++)
		if (t->cells[j] != NULL)
			labels[j] = node_text(t->cells[j]);
	for (i = t->nhead; i < t->nrows; i++) {
		o->gap = 1;
		for (j = 0; j < t->ncols; j++)
			if (t->cells[i * t->ncols + j] != NULL)
				stacked_cell(r, o, t->cells[i * t->ncols + j],
					     labels[j], width);
	}
	for (j = 0; j < t->ncols; j++)
		free(labels[j]);
	free(labels);
}

static void table(struct render *r, struct out *o, xmlNode *n, int width)
{
	struct table t;
	xmlNode *caption = NULL;

	memset(&t, 0, sizeof(t));
	table_read(&t, n, &caption);
	o->gap = 1;
	if (caption != NULL) {
		layout_children(r, o, caption, NULL, width, UI_RENDER_NORMAL);
		o->gap = 0;
	}
	if (t.nrows == 0 || t.ncols == 0)
		goto done;
	r->tables++;
	if (t.ncols <= TABLE_MAX_COLS && r->tables <= TABLE_NEST_MAX) {
		table_measure(r, &t);
		if (table_fit(&t, width))
			grid(r, o, &t);
		else
			stacked(r, o, &t, width);
	} else {
		stacked(r, o, &t, width);
	}
	r->tables--;
	o->gap = 1;
done:
	free(t.rows);
	free(t.cells);
	free(t.nat);
	free(t.min);
	free(t.colw);
}

/* Layout ------------------------------------------------------------------ */

static void layout_block(struct render *r, struct out *o, xmlNode *n,
			 int width, enum ui_render_style base)
{
	out_pending_id(o, n);
	if (is_box(n)) {
		box(r, o, n, width);
		return;
	}
	switch (tag_kind(n)) {
	case K_HEADING:
		heading(r, o, n, width);
		break;
	case K_PRE:
		o->gap = 1;
		code_block(o, n);
		break;
	case K_UL:
	case K_OL:
		list(r, o, n, width);
		break;
	case K_DL:
		deflist(r, o, n, width);
		break;
	case K_TABLE:
		table(r, o, n, width);
		break;
	case K_QUOTE:
		quote(r, o, n, width);
		break;
	case K_HR:
		rule(r, o, width);
		break;
	case K_PARA:
		o->gap = 1;
		layout_children(r, o, n, NULL, width, base);
		o->gap = 1;
		break;
	default:
		layout_children(r, o, n, NULL, width, base);
		break;
	}
}

static void inline_node(struct render *r, struct out *o, struct flow *f,
			xmlNode *n, enum ui_render_style style)
{
	uintptr_t number = (uintptr_t)n->_private;
	char label[LABEL_MAX];
	const char *alt;
	size_t before;

	out_pending_id(o, n);
	switch (tag_kind(n)) {
	case K_BR:
		flow_break(f);
		return;
	case K_IMG:
		alt = attr(n, "alt");
		flow_text(f, "[image", UI_RENDER_DIM);
		if (alt != NULL && alt[0] != '\0') {
			flow_glue(f, ":", UI_RENDER_DIM);
			flow_text(f, " ", UI_RENDER_DIM);
			flow_text(f, alt, UI_RENDER_DIM);
		}
		flow_glue(f, "]", UI_RENDER_DIM);
		return;
	case K_INPUT:
		flow_text(f, attr(n, "checked") != NULL ? "[x]" : "[ ]", style);
		f->space = 1;
		f->space_style = style;
		return;
	case K_EM:
		style = UI_RENDER_EMPHASIS;
		break;
	case K_STRONG:
		style = UI_RENDER_STRONG;
		break;
	case K_CODE:
		style = UI_RENDER_CODE;
		break;
	case K_LINK:
		if (number > 0)
			style = UI_RENDER_LINK;
		break;
	default:
		break;
	}
	before = f->text.len;
	inline_children(r, o, f, n, style);
	if (tag_kind(n) == K_LINK && number > 0) {
		snprintf(label, sizeof(label), "[%lu]", (unsigned long)number);
		/* "text[3]", even when the link's text ends in a space; an
		 * empty link (an icon) stands apart as "[3]". */
		if (f->text.len > before)
			flow_glue(f, label, UI_RENDER_LINK);
		else
			flow_text(f, label, UI_RENDER_LINK);
	}
}

static void inline_children(struct render *r, struct out *o, struct flow *f,
			    xmlNode *n, enum ui_render_style style)
{
	xmlNode *c;

	for (c = n->children; c != NULL; c = c->next)
		if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE)
			flow_text(f, (const char *)c->content, style);
		else if (c->type == XML_ELEMENT_NODE)
			inline_node(r, o, f, c, style);
}

/* Lays out parent's children but skip: runs of inline content as
 * paragraphs, blocks as themselves. */
static void layout_children(struct render *r, struct out *o, xmlNode *parent,
			    const xmlNode *skip, int width,
			    enum ui_render_style base)
{
	struct flow f;
	xmlNode *c;

	flow_init(&f);
	for (c = parent->children; c != NULL; c = c->next) {
		if (c == skip)
			continue;
		if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
			flow_text(&f, (const char *)c->content, base);
		} else if (c->type != XML_ELEMENT_NODE) {
			continue;
		} else if (is_block(c) || is_box(c)) {
			flush_para(o, &f, width);
			layout_block(r, o, c, width, base);
		} else {
			inline_node(r, o, &f, c, base);
		}
	}
	flush_para(o, &f, width);
	flow_dispose(&f);
}

/* The page ------------------------------------------------------------------ */

void ui_page_free(struct ui_page *page)
{
	size_t i;

	if (page == NULL)
		return;
	for (i = 0; i < page->nlines; i++)
		line_dispose(&page->lines[i]);
	for (i = 0; i < page->nlinks; i++) {
		free(page->links[i].href);
		free(page->links[i].text);
	}
	for (i = 0; i < page->npages; i++) {
		free(page->pages[i].href);
		free(page->pages[i].text);
	}
	free(page->pages);
	free(page->prev);
	free(page->next);
	free(page->root);
	for (i = 0; i < page->nanchors; i++)
		free(page->anchors[i].id);
	free(page->lines);
	free(page->links);
	free(page->anchors);
	free(page->title);
	free(page);
}

static char *page_title(xmlNode *root, xmlNode *main)
{
	xmlNode *n = find(main, "h1");
	char *title = n != NULL ? node_text(n) : NULL;

	if ((title == NULL || title[0] == '\0') &&
	    (n = find(root, "title")) != NULL) {
		free(title);
		title = node_text(n);
	}
	return title != NULL ? title : ui_xstrdup("");
}

/* Moves the laid-out lines and ids into the page; ids still pending
 * belong to empty elements at the end. */
static void page_take(struct ui_page *page, struct out *o)
{
	struct lb b = { UI_BUF_INIT, NULL, 0, 0, 0 };
	size_t i;

	if (o->truncated) {
		o->gap = 1;
		lb_puts(&b, "[the rest of the page is not shown: it is longer "
			    "than the reader's line limit]",
			UI_RENDER_DIM);
		out_raw(o, lb_finish(&b));
	}
	for (i = 0; i < o->npending; i++)
		out_add_anchor(o, o->pending[i], o->len ? o->len - 1 : 0);
	o->npending = 0;
	page->lines = o->v;
	page->nlines = o->len;
	page->anchors = o->anchors;
	page->nanchors = o->nanchors;
	o->v = NULL;
	o->anchors = NULL;
	o->len = o->nanchors = 0;
	page->width = 0;
	for (i = 0; i < page->nlines; i++)
		if (page->lines[i].width > page->width)
			page->width = page->lines[i].width;
	lb_dispose(&b);
}

/* Whether the space-separated list of words has word. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *w;

	for (w = list; w && (w = strstr(w, word)) != NULL; w += n)
		if ((w == list || is_space(w[-1])) &&
		    (w[n] == '\0' || is_space(w[n])))
			return 1;
	return 0;
}

/* A link to another page of the same site: relative, not an anchor in
 * this page, not a mail or script link. */
static int is_site_page(const char *href)
{
	return href && *href && *href != '#' && strstr(href, "://") == NULL &&
	       strncmp(href, "mailto:", 7) != 0 &&
	       strncmp(href, "javascript:", 11) != 0;
}

/* Adds the page links below nav (a navigation region) to the page list,
 * once each. */
static void nav_pages(struct render *r, xmlNode *nav)
{
	struct ui_page *p = r->page;
	const char *href;
	xmlNode *n;
	size_t i;
	int depth = 0;

	for (n = nav; n != NULL; n = walk_next(n, nav, 1, &depth)) {
		if (!is_element(n, "a") || !is_site_page(href = attr(n, "href")))
			continue;
		for (i = 0; i < p->npages && strcmp(p->pages[i].href, href); i++)
			;
		if (i < p->npages)
			continue;
		add_link(&p->pages, &p->npages, &r->pages_cap, href, n);
	}
}

/* The value of a script's `NAME = "VALUE"` or JSON `"NAME": "VALUE"`
 * (quotes double or single), or NULL; owned. */
static char *script_value(const char *text, const char *name)
{
	const char *at = text, *v, *end;
	size_t n = strlen(name);

	while ((at = strstr(at, name)) != NULL) {
		v = at + n;
		if (*v == '"' || *v == '\'')
			v++;
		while (is_space(*v))
			v++;
		if (*v == '=' || *v == ':') {
			for (v++; is_space(*v); v++)
				;
			if ((*v == '"' || *v == '\'') &&
			    (end = strchr(v + 1, *v)) != NULL)
				return ui_xstrndup(v + 1, (size_t)(end - v - 1));
		}
		at += n;
	}
	return NULL;
}

/* The site's root as n names it, relative to the page: Sphinx's
 * data-content_root (on <html>, 7.2 on) or data-url_root (its options
 * script, before), the directory of its rel="search" page, MkDocs'
 * base_url (its themes' script) or Material's config "base"; owned, or
 * NULL. */
static char *site_root(const xmlNode *n)
{
	const char *v, *rel, *slash;
	const xmlNode *c;
	char *found = NULL;

	if (n->type != XML_ELEMENT_NODE)
		return NULL;
	if ((v = attr(n, "data-content_root")) != NULL ||
	    (v = attr(n, "data-url_root")) != NULL)
		return ui_xstrdup(v);
	if (is_element(n, "link") && (rel = attr(n, "rel")) != NULL &&
	    has_word(rel, "search") && (v = attr(n, "href")) != NULL &&
	    is_site_page(v))
		return (slash = strrchr(v, '/')) != NULL
			       ? ui_xstrndup(v, (size_t)(slash - v + 1))
			       : ui_xstrdup("");
	if (!is_element(n, "script"))
		return NULL;
	for (c = n->children; c != NULL && found == NULL; c = c->next)
		if (c->content != NULL &&
		    (found = script_value((const char *)c->content,
					  "base_url")) == NULL &&
		    (v = attr(n, "id")) != NULL && strcmp(v, "__config") == 0)
			found = script_value((const char *)c->content, "base");
	return found;
}

/* The site around the page, read before the chrome is pruned: the
 * rel="prev"/"next" links, the navigation's page list and the site's
 * root. */
static void site_links(struct render *r, xmlNode *root)
{
	struct ui_page *p = r->page;
	const char *rel, *href;
	xmlNode *n;
	int depth = 0;

	for (n = root; n != NULL; n = walk_next(n, root, 1, &depth)) {
		if (p->root == NULL)
			p->root = site_root(n);
		if (n->type == XML_ELEMENT_NODE &&
		    (is_element(n, "a") || is_element(n, "link")) &&
		    (rel = attr(n, "rel")) != NULL &&
		    is_site_page(href = attr(n, "href"))) {
			if (p->next == NULL && has_word(rel, "next"))
				p->next = ui_xstrdup(href);
			else if (p->prev == NULL && has_word(rel, "prev"))
				p->prev = ui_xstrdup(href);
		}
		/* A navigation nested in another adds nothing new. */
		if (n->type == XML_ELEMENT_NODE &&
		    (is_element(n, "nav") || HAS_CLASS(n, nav_classes)))
			nav_pages(r, n);
	}
}

static void render_doc(struct render *r, htmlDocPtr doc, int width)
{
	xmlNode *root = xmlDocGetRootElement(doc), *body, *main;
	struct out o;

	memset(&o, 0, sizeof(o));
	if (root == NULL) {
		r->page->title = ui_xstrdup("");
		return;
	}
	body = find(root, "body");
	if (body == NULL)
		body = root;
	site_links(r, root);
	prune(body);
	main = main_node(body);
	r->page->title = page_title(root, main);
	number_links(r, main);
	layout_children(r, &o, main, NULL, width, UI_RENDER_NORMAL);
	page_take(r->page, &o);
	out_dispose(&o);
}

int ui_render_html(const char *html, size_t len,
		   const struct ui_render_opts *opts, struct ui_page **out,
		   char *err, size_t errsize)
{
	struct render r;
	htmlDocPtr doc = NULL;
	int width, rc = -1;

	*out = NULL;
	memset(&r, 0, sizeof(r));
	if (len > UI_RENDER_MAX_HTML) {
		snprintf(err, errsize, "the page is larger than %u bytes",
			 UI_RENDER_MAX_HTML);
		goto done;
	}
	width = opts->width < UI_RENDER_MIN_WIDTH   ? UI_RENDER_MIN_WIDTH
		: opts->width > UI_RENDER_MAX_WIDTH ? UI_RENDER_MAX_WIDTH
						    : opts->width;
	r.g = opts->ascii ? glyphs_ascii : glyphs_utf8;
	r.page = ui_xcalloc(1, sizeof(*r.page));
	if (len > 0) {
		pthread_once(&libxml_once, libxml_init);
		/* UTF-8 is what every generator writes; libxml2 alone would
		 * guess Latin-1 for a page without a charset. */
		doc = htmlReadMemory(html, (int)len, NULL, "UTF-8",
				     HTML_OPTIONS);
		if (doc == NULL) {
			snprintf(err, errsize, "the page is not HTML");
			goto done;
		}
		render_doc(&r, doc, width);
	} else {
		r.page->title = ui_xstrdup("");
	}
	*out = r.page;
	r.page = NULL;
	rc = 0;
done:
	ui_page_free(r.page);
	xmlFreeDoc(doc);
	return rc;
}

long ui_page_anchor(const struct ui_page *page, const char *id)
{
	size_t i;

	for (i = 0; page != NULL && id != NULL && i < page->nanchors; i++)
		if (strcmp(page->anchors[i].id, id) == 0)
			return (long)page->anchors[i].line;
	return -1;
}

const struct ui_link *ui_page_link(const struct ui_page *page, size_t n)
{
	if (page == NULL || n == 0 || n > page->nlinks)
		return NULL;
	return &page->links[n - 1];
}
