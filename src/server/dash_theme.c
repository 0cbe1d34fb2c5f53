/*
 * The dashboard's stylesheet from a TUI theme (themes/NAME.theme, compiled in
 * by cmake/EmbedThemes.cmake): each "color SLOT FG BG [ATTRIBUTE...]" line
 * becomes the CSS of the elements that play that slot's part on a page
 * (the title bar is "title", the tabs "tab" and "tab-active", a build's
 * state "state-ok", "state-fail" or "state-running", code "code", table
 * headers "header", ...), after one fixed layout in the terminal's spirit:
 * a monospaced grid of text.
 *
 * Colours are the terminal's: names and the xterm 256-colour palette, as
 * hex; "default" is the browser's own text or background colour (CSS
 * CanvasText and Canvas, which follow the reader's light or dark mode, as
 * the default theme follows the terminal's), and a colour name is a
 * terminal palette's colour tuned for a light page, and another for a
 * dark one (light-dark()), so the default theme reads well in both. A
 * slot's background is only written where it differs from the page's.
 * Attributes: bold, dim, underline, italic, and reverse (or standout) swap the
 * two colours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash.h"

/* Characters of a theme line's word read at most (slot names, colours). */
#define WORD_MAX 32
/* Bytes of a CSS colour written ("light-dark(#rrggbb, #rrggbb)"). */
#define COLOUR_MAX 40

/* Slots and the elements that show them. */
static const struct {
	const char *slot;
	const char *selector;
} slot_selectors[] = {
	{ "normal", "body" },
	{ "title", ".title" },
	{ "status", ".status" },
	{ "status-error", ".error" },
	{ "header", "th" },
	{ "tab", ".tabs a" },
	{ "tab-active", ".tabs a.active" },
	{ "state-ok", ".state-ok" },
	{ "state-fail", ".state-fail" },
	{ "state-running", ".state-running" },
	{ "heading", "h1, h2" },
	{ "code", "pre, code, .command" },
	{ "link", "a" },
	{ "dim", ".dim" },
	{ "cursor", "tbody tr:hover" },
	{ "match", "mark" },
};

/* The layout, the same for every theme. */
static const char layout[] =
	":root { color-scheme: light dark; }\n"
	"* { box-sizing: border-box; }\n"
	"body { margin: 0; font: 15px/1.5 ui-monospace, \"DejaVu Sans Mono\", "
	"Menlo, Consolas, monospace; }\n"
	".title { padding: 0.3rem 1rem; display: flex; gap: 1rem; "
	"align-items: baseline; }\n"
	".title a { color: inherit; text-decoration: none; }\n"
	".tabs { padding: 0 1rem; display: flex; gap: 0.2rem; "
	"border-bottom: 1px solid var(--border); }\n"
	".tabs a { padding: 0.2rem 0.8rem; text-decoration: none; }\n"
	"main { padding: 0.5rem 1rem 2rem; max-width: 110rem; }\n"
	"h1 { font-size: 1.25rem; margin: 0.8rem 0; }\n"
	"h2 { font-size: 1.05rem; margin: 1.4rem 0 0.5rem; }\n"
	"table { border-collapse: collapse; width: 100%; }\n"
	"th, td { text-align: left; padding: 0.15rem 0.8rem 0.15rem 0; "
	"border-bottom: 1px solid var(--border); vertical-align: top; }\n"
	"dl.facts { display: grid; grid-template-columns: max-content auto; "
	"gap: 0.1rem 1.5rem; margin: 0.5rem 0; }\n"
	"dl.facts dt { opacity: 0.75; }\n"
	"dl.facts dd { margin: 0; }\n"
	"pre { margin: 0.2rem 0 0.8rem; padding: 0.4rem 0.6rem; "
	"white-space: pre-wrap; word-break: break-all; "
	"border-left: 2px solid var(--border); }\n"
	".command { font-weight: bold; margin-top: 0.8rem; }\n"
	".pages { margin: 0.8rem 0; display: flex; gap: 1.5rem; }\n"
	"input, select, button { font: inherit; }\n"
	".status { position: sticky; bottom: 0; padding: 0.2rem 1rem; "
	"display: flex; gap: 1rem; background: Canvas; "
	"border-top: 1px solid var(--border); }\n";

/* xterm's first sixteen colours. */
static const char *const ansi16[] = {
	"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd",
	"#00cdcd", "#e5e5e5", "#7f7f7f", "#ff0000", "#00ff00", "#ffff00",
	"#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
};

static const char *const names[] = { "black", "red",	 "green", "yellow",
				     "blue",  "magenta", "cyan",  "white" };
/* The eight names' colours on a light page and on a dark one: a
 * terminal's palette darkened, and brightened, until each reads on its
 * page (xterm's cyan and yellow vanish on white). */
static const char *const on_light[] = { "#000000", "#b3261e", "#1a7f37",
					"#7d6200", "#0550ae", "#8250df",
					"#0a7d8c", "#6e7781" };
static const char *const on_dark[] = { "#8b949e", "#ff7b72", "#7ee787",
				       "#e3b341", "#79c0ff", "#d2a8ff",
				       "#56d4dd", "#f0f6fc" };

/* A theme colour as CSS into out (COLOUR_MAX bytes): fg says which of
 * the browser's own colours "default" is. 0 for a word that is no
 * colour. */
static int css_colour(const char *word, int fg, char *out, size_t cap)
{
	char *end;
	long n;
	size_t i;

	if (strcmp(word, "default") == 0) {
		snprintf(out, cap, "%s", fg ? "CanvasText" : "Canvas");
		return 1;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(word, names[i]) == 0) {
			snprintf(out, cap, "light-dark(%s, %s)", on_light[i],
				 on_dark[i]);
			return 1;
		}
	n = strtol(word, &end, 10);
	if (*word == '\0' || *end != '\0' || n < 0 || n > 255)
		return 0;
	if (n < 16) {
		snprintf(out, cap, "%s", ansi16[n]);
	} else if (n < 232) {
		static const int level[] = { 0, 95, 135, 175, 215, 255 };

		n -= 16;
		snprintf(out, cap, "#%02x%02x%02x", level[n / 36],
			 level[(n / 6) % 6], level[n % 6]);
	} else {
		int g = 8 + 10 * (int)(n - 232);

		snprintf(out, cap, "#%02x%02x%02x", g, g, g);
	}
	return 1;
}

static const char *selector_of(const char *slot)
{
	size_t i;

	for (i = 0; i < sizeof(slot_selectors) / sizeof(slot_selectors[0]);
	     i++)
		if (strcmp(slot, slot_selectors[i].slot) == 0)
			return slot_selectors[i].selector;
	return NULL;
}

/* The next whitespace-separated word of *s on its line into w. */
static int word(const char **s, char *w)
{
	size_t n = 0;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	while (**s && **s != ' ' && **s != '\t' && **s != '\n') {
		if (n + 1 < WORD_MAX)
			w[n++] = **s;
		(*s)++;
	}
	w[n] = '\0';
	return n > 0;
}

/* One "color" line's rule; a line that is no colour line, or names a
 * slot the dashboard does not show, writes nothing. page_bg is the normal
 * slot's background word. */
static void rule(struct srv_text *css, const char *line, const char *page_bg)
{
	char cmd[WORD_MAX], slot[WORD_MAX], fgw[WORD_MAX], bgw[WORD_MAX];
	char fg[COLOUR_MAX], bg[COLOUR_MAX], attr[WORD_MAX];
	const char *sel, *s = line;
	int reverse = 0, bold = 0, dim = 0, underline = 0, italic = 0;

	if (!word(&s, cmd) || strcmp(cmd, "color") != 0 || !word(&s, slot) ||
	    !word(&s, fgw) || !word(&s, bgw) ||
	    !css_colour(fgw, 1, fg, sizeof(fg)) ||
	    !css_colour(bgw, 0, bg, sizeof(bg)))
		return;
	/* Borders are lines, in the slot's foreground. */
	if (strcmp(slot, "border") == 0) {
		srv_text_printf(css, ":root { --border: %s; }\n",
				strcmp(fgw, "default") ? fg : "GrayText");
		return;
	}
	if ((sel = selector_of(slot)) == NULL)
		return;
	while (word(&s, attr)) {
		reverse |=
			!strcmp(attr, "reverse") || !strcmp(attr, "standout");
		bold |= !strcmp(attr, "bold");
		dim |= !strcmp(attr, "dim");
		underline |= !strcmp(attr, "underline");
		italic |= !strcmp(attr, "italic");
	}
	/* "default default" on anything but the page itself changes
	 * nothing: the element keeps its surroundings' colours. */
	srv_text_printf(css, "%s {", sel);
	if (reverse || strcmp(fgw, "default") || !strcmp(slot, "normal"))
		srv_text_printf(css, " color: %s;", reverse ? bg : fg);
	if (reverse || strcmp(bgw, page_bg) || !strcmp(slot, "normal"))
		srv_text_printf(css, " background: %s;", reverse ? fg : bg);
	if (bold)
		srv_text_puts(css, " font-weight: bold;");
	if (dim)
		srv_text_puts(css, " opacity: 0.7;");
	if (italic)
		srv_text_puts(css, " font-style: italic;");
	srv_text_printf(css, " text-decoration: %s; }\n",
			underline ? "underline" : "none");
}

/* The normal slot's background word of a theme's text into bg
 * ("default" when it has none). */
static void page_background(const char *text, char *bg)
{
	const char *s = text;

	snprintf(bg, WORD_MAX, "default");
	while (s && *s) {
		char w[WORD_MAX];
		const char *line = s;

		if (word(&line, w) && strcmp(w, "color") == 0 &&
		    word(&line, w) && strcmp(w, "normal") == 0 &&
		    word(&line, w) && word(&line, w)) {
			snprintf(bg, WORD_MAX, "%s", w);
			return;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
}

const char *dash_theme_name(const char *requested)
{
	size_t i;

	for (i = 0; requested && i < srv_builtin_theme_count; i++)
		if (strcmp(requested, srv_builtin_themes[i].name) == 0)
			return srv_builtin_themes[i].name;
	return "default";
}

char *dash_theme_css(const char *name, size_t *len)
{
	struct srv_text css = { 0 };
	const char *text = NULL, *line;
	char page_bg[WORD_MAX];
	size_t i;

	for (i = 0; i < srv_builtin_theme_count; i++)
		if (strcmp(name, srv_builtin_themes[i].name) == 0)
			text = srv_builtin_themes[i].text;
	srv_text_printf(&css, "/* Lectern's dashboard in the theme \"%s\" "
			      "(themes/%s.theme). */\n",
			name, name);
	srv_text_puts(&css, ":root { --border: GrayText; }\n");
	srv_text_puts(&css, layout);
	page_background(text, page_bg);
	for (line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char buf[256];

		if (n < sizeof(buf)) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			rule(&css, buf, page_bg);
		}
		line += n + (end != NULL);
	}
	return srv_text_take(&css, len);
}
