/*
 * Theme files and colour setup (see theme.h). A theme is lines of
 *
 *     color SLOT FG BG [ATTR...]
 *
 * with `#` comments; FG/BG are a colour name, "default" (the terminal's
 * own colour, through use_default_colors) or a number 0-255. Parsing
 * stops at the first bad line, and the theme is then not used at all: a
 * half-applied theme is harder to read than the default.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "theme.h"
#include "util.h"

/* A theme is a couple of dozen lines; a bigger file is not a theme. */
#define MAX_THEME_BYTES (64 * 1024)
/* Words on a color line: keyword, slot, fg, bg and a few attributes. */
#define MAX_WORDS 10
/* "default": the terminal's own colour. */
#define COLOR_DEFAULT -1

struct slot_spec {
	short fg, bg;
	int attrs;
};

static const struct {
	const char *name;
	int mono;
} slots[UI_SLOT_COUNT] = {
#define COLOR(id, name, mono) [UI_SLOT_##id] = { name, mono },
#include "colors.def"
#undef COLOR
};

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	int attr;
} attr_names[] = {
	{ "normal", A_NORMAL },       { "bold", A_BOLD },
	{ "dim", A_DIM },             { "underline", A_UNDERLINE },
	{ "reverse", A_REVERSE },     { "standout", A_STANDOUT },
	{ "italic", A_ITALIC },       { "blink", A_BLINK },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int applied[UI_SLOT_COUNT];

int ui_attr(enum ui_slot slot)
{
	return applied[slot];
}

enum ui_color_mode ui_theme_detect_mode(void)
{
	const char *no_color = getenv("NO_COLOR");

	/* no-color.org: set and not empty means no colour. */
	if ((no_color && *no_color) || !has_colors())
		return UI_COLOR_NONE;
	return COLORS >= 256 ? UI_COLOR_256 : UI_COLOR_8;
}

/* Parsing ----------------------------------------------------------------- */

static int parse_color(const char *s, short *out)
{
	long long n;
	size_t i;

	if (strcasecmp(s, "default") == 0) {
		*out = COLOR_DEFAULT;
		return 0;
	}
	for (i = 0; i < COUNT(color_names); i++)
		if (strcasecmp(s, color_names[i]) == 0) {
			*out = (short)i;
			return 0;
		}
	if (ui_parse_long(s, &n) == 0 && n <= 255) {
		*out = (short)n;
		return 0;
	}
	return -1;
}

static int parse_attr(const char *s, int *out)
{
	size_t i;

	for (i = 0; i < COUNT(attr_names); i++)
		if (strcasecmp(s, attr_names[i].name) == 0) {
			*out |= attr_names[i].attr;
			return 0;
		}
	return -1;
}

static int slot_by_name(const char *name)
{
	int i;

	for (i = 0; i < UI_SLOT_COUNT; i++)
		if (strcmp(slots[i].name, name) == 0)
			return i;
	return -1;
}

/* Split line (modified in place) into at most max words; the count, or
 * max + 1 when there are more. */
static size_t split_words(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		p += strspn(p, " \t\r");
		if (*p == '\0' || *p == '#')
			return n;
		if (n == max)
			return max + 1;
		words[n++] = p;
		p += strcspn(p, " \t\r");
		if (*p)
			*p++ = '\0';
	}
}

/* One line into specs; 0, or -1 with the reason in err. */
static int parse_line(char *line, struct slot_spec *specs, char *err,
		      size_t errsize)
{
	char *w[MAX_WORDS];
	size_t n = split_words(line, w, MAX_WORDS), i;
	struct slot_spec spec = { 0, 0, A_NORMAL };
	int slot;

	if (n == 0)
		return 0;
	if (strcmp(w[0], "color") != 0) {
		snprintf(err, errsize, "unknown keyword '%s' (expected color)",
			 w[0]);
		return -1;
	}
	if (n < 4 || n > MAX_WORDS) {
		snprintf(err, errsize,
			 "expected: color SLOT FG BG [ATTRIBUTE...]");
		return -1;
	}
	if ((slot = slot_by_name(w[1])) < 0) {
		snprintf(err, errsize, "unknown colour slot '%s'", w[1]);
		return -1;
	}
	for (i = 2; i <= 3; i++)
		if (parse_color(w[i], i == 2 ? &spec.fg : &spec.bg) < 0) {
			snprintf(err, errsize, "unknown colour '%s'", w[i]);
			return -1;
		}
	for (i = 4; i < n; i++)
		if (parse_attr(w[i], &spec.attrs) < 0) {
			snprintf(err, errsize, "unknown attribute '%s'", w[i]);
			return -1;
		}
	specs[slot] = spec;
	return 0;
}

/* Parse text (copied; lines split on \n) onto specs; errors are
 * "origin:LINE: what". */
static int parse_theme(const char *origin, const char *text,
		       struct slot_spec *specs, char *err, size_t errsize)
{
	char *copy = ui_xstrdup(text), *line = copy, *nl;
	char why[128];
	int lineno = 0, rc = 0;

	while (line && *line) {
		lineno++;
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (parse_line(line, specs, why, sizeof(why)) < 0) {
			snprintf(err, errsize, "%s:%d: %s", origin, lineno, why);
			rc = -1;
			goto done;
		}
		line = nl ? nl + 1 : NULL;
	}
done:
	free(copy);
	return rc;
}

/* Finding a theme ------------------------------------------------------------ */

static const char *builtin_text(const char *name)
{
	size_t i;

	for (i = 0; i < ui_builtin_theme_count; i++)
		if (strcmp(ui_builtin_themes[i].name, name) == 0)
			return ui_builtin_themes[i].text;
	return NULL;
}

/* The file a theme name means in the user's theme directory; owned. */
static char *user_theme_path(const char *name)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return ui_xasprintf("%s/lectern/themes/%s.theme", xdg, name);
	if (home && *home)
		return ui_xasprintf("%s/.config/lectern/themes/%s.theme", home,
				    name);
	return NULL;
}

/* The whole file as a string (owned), or NULL with err set. */
static char *read_file(const char *path, char *err, size_t errsize)
{
	struct ui_buf b = UI_BUF_INIT;
	char chunk[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL) {
		snprintf(err, errsize, "%s: cannot open the theme: %s", path,
			 strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > MAX_THEME_BYTES) {
			snprintf(err, errsize, "%s: not a theme (over %d KiB)",
				 path, MAX_THEME_BYTES / 1024);
			ui_buf_dispose(&b);
			fclose(f);
			return NULL;
		}
		ui_buf_add(&b, chunk, n);
	}
	fclose(f);
	return ui_buf_take(&b);
}

/* Parse spec onto specs; -1 with err set when it cannot be found or
 * parsed. */
static int load_spec(const char *spec, struct slot_spec *specs, char *err,
		     size_t errsize)
{
	const char *text = NULL;
	char *path = NULL, *owned = NULL, *origin = NULL;
	int rc = -1;

	if (strchr(spec, '/') == NULL && (text = builtin_text(spec))) {
		origin = ui_xasprintf("themes/%s.theme", spec);
	} else {
		path = strchr(spec, '/') ? ui_xstrdup(spec)
					 : user_theme_path(spec);
		/* A bare name that is neither built in nor in the user's
		 * theme directory is simply unknown. */
		if (path == NULL ||
		    (strchr(spec, '/') == NULL && access(path, F_OK) != 0)) {
			snprintf(err, errsize, "unknown theme '%s'", spec);
			goto done;
		}
		if ((text = owned = read_file(path, err, errsize)) == NULL)
			goto done;
		origin = ui_xstrdup(path);
	}
	rc = parse_theme(origin, text, specs, err, errsize);
done:
	free(path);
	free(owned);
	free(origin);
	return rc;
}

/* Applying ------------------------------------------------------------------- */

/* A 256-colour number as the nearest of the 8 basic colours: the xterm
 * colour cube (16-231) and grey ramp (232-255) by channel thresholds, the
 * bright colours (8-15) as their normal twins. */
static short to_basic(short c)
{
	int r, g, b, grey;

	if (c < 8)
		return c;
	if (c < 16)
		return (short)(c - 8);
	if (c >= 232) {
		grey = c - 232;
		return grey < 12 ? COLOR_BLACK : COLOR_WHITE;
	}
	c = (short)(c - 16);
	r = c / 36 >= 3;
	g = (c / 6) % 6 >= 3;
	b = c % 6 >= 3;
	return (short)(r | g << 1 | b << 2);
}

static void apply_specs(const struct slot_spec *specs, enum ui_color_mode mode)
{
	int i, have_default = 0;
	short fg, bg;

	if (mode != UI_COLOR_NONE) {
		start_color();
		have_default = use_default_colors() == OK;
	}
	for (i = 0; i < UI_SLOT_COUNT; i++) {
		if (mode == UI_COLOR_NONE) {
			applied[i] = specs[i].attrs | slots[i].mono;
			continue;
		}
		fg = mode == UI_COLOR_8 && specs[i].fg > 0 ? to_basic(specs[i].fg)
							   : specs[i].fg;
		bg = mode == UI_COLOR_8 && specs[i].bg > 0 ? to_basic(specs[i].bg)
							   : specs[i].bg;
		if (!have_default) {
			fg = fg == COLOR_DEFAULT ? COLOR_WHITE : fg;
			bg = bg == COLOR_DEFAULT ? COLOR_BLACK : bg;
		}
		init_pair((short)(i + 1), fg, bg);
		applied[i] = (int)COLOR_PAIR(i + 1) | specs[i].attrs;
	}
}

int ui_theme_apply(const char *spec, enum ui_color_mode mode, char *err,
		   size_t errsize)
{
	struct slot_spec specs[UI_SLOT_COUNT], chosen[UI_SLOT_COUNT];
	int i, rc = 0;

	for (i = 0; i < UI_SLOT_COUNT; i++) {
		specs[i].fg = specs[i].bg = COLOR_DEFAULT;
		specs[i].attrs = A_NORMAL;
	}
	/* The default theme is built in and tested; it always parses. */
	load_spec("default", specs, err, errsize);
	memcpy(chosen, specs, sizeof(specs));
	if (spec && *spec && strcmp(spec, "default") != 0 &&
	    (rc = load_spec(spec, chosen, err, errsize)) < 0)
		memcpy(chosen, specs, sizeof(specs));
	apply_specs(chosen, mode);
	return rc;
}
