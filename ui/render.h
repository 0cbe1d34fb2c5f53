/*
 * The reader's renderer: a built documentation page (its HTML as served:
 * Sphinx's alabaster, basic and Read the Docs themes, MkDocs' themes,
 * Lectern's own Markdown builder) laid out for a terminal of a given
 * width. The result is an array of lines, each a sequence of styled
 * spans, plus the page's numbered links, the line each element id starts
 * on (a search hit opens at its section) and the page title. No curses
 * here: the reader view maps the styles to theme slots and draws.
 */
#ifndef LECTERN_UI_RENDER_H
#define LECTERN_UI_RENDER_H

#include <stddef.h>

/* Pages larger than this are refused: no documentation page comes near it,
 * and it bounds the time and memory one page can take. */
#define UI_RENDER_MAX_HTML (16u * 1024u * 1024u)
/* Lines kept of one page; the rest is cut with a note, so a generated
 * monster page cannot exhaust memory. */
#define UI_RENDER_MAX_LINES 200000
/* Element nesting laid out as such; deeper content is read as plain text,
 * which bounds the renderer's recursion whatever libxml2 version parses
 * (2.9's HTML parser itself drops what nests deeper than 256). */
#define UI_RENDER_MAX_DEPTH 256
/* Narrowest and widest layout widths; outside them the width is clamped. */
#define UI_RENDER_MIN_WIDTH 20
#define UI_RENDER_MAX_WIDTH 1000

/* What a span of text is; the reader maps each to a theme colour slot. */
enum ui_render_style {
	UI_RENDER_NORMAL,
	UI_RENDER_HEADING1,
	UI_RENDER_HEADING2,
	UI_RENDER_HEADING3,
	UI_RENDER_HEADING4,
	UI_RENDER_HEADING5,
	UI_RENDER_HEADING6,
	UI_RENDER_CODE,       /* code blocks and inline code */
	UI_RENDER_LINK,       /* link text and its [n] number */
	UI_RENDER_EMPHASIS,
	UI_RENDER_STRONG,     /* also table headers and definition terms */
	UI_RENDER_DIM,        /* image placeholders, the truncation note */
	UI_RENDER_BORDER,     /* box drawing, rules, quote bars, underlines */
	UI_RENDER_ADMONITION_TITLE,
	UI_RENDER_STYLE_COUNT
};

/* Bytes [off, off + len) of the line's text, in one style. */
struct ui_span {
	size_t off;
	size_t len;
	enum ui_render_style style;
};

struct ui_line {
	char *text;            /* UTF-8, NUL-terminated; owned */
	size_t len;            /* bytes */
	int width;             /* terminal columns */
	struct ui_span *spans; /* cover the text in order; owned */
	size_t nspans;
};

/* Link n (shown as "text[n]") is links[n - 1]. */
struct ui_link {
	char *href; /* as written: absolute, relative or "#id"; owned */
	char *text; /* its text, whitespace collapsed; owned */
};

struct ui_anchor {
	char *id;    /* owned */
	size_t line; /* the line its element starts on */
};

struct ui_page {
	char *title;           /* first h1, else <title>, else "" */
	struct ui_line *lines;
	size_t nlines;
	int width;             /* the widest line: code lines may pass the
				* layout width (the view scrolls) */
	struct ui_link *links;
	size_t nlinks;
	struct ui_anchor *anchors; /* document order */
	size_t nanchors;
	/* The site around the page, from the chrome the layout strips: the
	 * previous and next pages in the site's order (rel="prev"/"next"
	 * links, as Sphinx, MkDocs and Lectern's Markdown builder write
	 * them; NULL when none) and the pages its navigation lists. */
	char *prev, *next;
	struct ui_link *pages;
	size_t npages;
	/* The site's root as the page names it, relative to the page ("../",
	 * "" for its own directory; Sphinx's and MkDocs' own markers), where
	 * the site's search index and so its whole page list are; NULL when
	 * the page does not say. */
	char *root;
};

struct ui_render_opts {
	int width; /* terminal columns to lay out in */
	int ascii; /* non-zero: ASCII instead of box drawing and bullets */
};

/*
 * Render one page.
 * @param html the page, read as UTF-8 (what every generator writes); len
 *        bytes (at most UI_RENDER_MAX_HTML)
 * @param out the page; the caller frees it with ui_page_free
 * @return 0, or -1 with a one-line reason in err (too large, not HTML)
 */
int ui_render_html(const char *html, size_t len,
		   const struct ui_render_opts *opts, struct ui_page **out,
		   char *err, size_t errsize);

/* Free a page; NULL is a no-op. */
void ui_page_free(struct ui_page *page);

/* The line element id starts on, or -1 when the page has no such id. */
long ui_page_anchor(const struct ui_page *page, const char *id);

/* Link number n (1-based), or NULL when there is none. */
const struct ui_link *ui_page_link(const struct ui_page *page, size_t n);

#endif
