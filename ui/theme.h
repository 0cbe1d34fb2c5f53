/*
 * Themes: named colour slots (colors.def) filled from theme files. The
 * themes shipped in themes/ are compiled in; `--theme` and the config's
 * `theme` key pick one by name, or name a file. A theme with an error is
 * not applied: the default is, and the error names the file and line.
 */
#ifndef LECTERN_UI_THEME_H
#define LECTERN_UI_THEME_H

#include <stddef.h>

enum ui_slot {
#define COLOR(id, name, mono) UI_SLOT_##id,
#include "colors.def"
#undef COLOR
	UI_SLOT_COUNT
};

/* How much colour the terminal gets. */
enum ui_color_mode {
	UI_COLOR_NONE, /* attributes only: NO_COLOR, or no colour support */
	UI_COLOR_8,    /* 8 (or 16) colours: 256-colour numbers approximated */
	UI_COLOR_256,
};

/* A theme built in from themes/NAME.theme (generated at build time). */
struct ui_builtin_theme {
	const char *name;
	const char *text;
};
extern const struct ui_builtin_theme ui_builtin_themes[];
extern const size_t ui_builtin_theme_count;

/* Load theme spec (a built-in name, a name in
 * $XDG_CONFIG_HOME/lectern/themes/, or a file path; NULL: default) and
 * apply it under mode; curses must be started. 0, or -1 with
 * "FILE:LINE: what" in err and the default theme applied. */
int ui_theme_apply(const char *spec, enum ui_color_mode mode, char *err,
		   size_t errsize);
/* The colour mode for this terminal and environment. */
enum ui_color_mode ui_theme_detect_mode(void);
/* The curses attributes of a slot under the applied theme. */
int ui_attr(enum ui_slot slot);

#endif
