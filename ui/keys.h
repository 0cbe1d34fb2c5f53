/*
 * Keymaps: which key runs which action, per view kind with a generic
 * fallback (tig's model). The defaults come from the action table; `bind
 * KEYMAP KEY ACTION` lines in the config file override them.
 *
 * Key notation (bind lines, the help screen): a single character ("j",
 * "?", "/"), C-x for Control-x, and <Name> for the others: <Up> <Down>
 * <Left> <Right> <PgUp> <PgDn> <Home> <End> <Enter> <Esc> <Tab> <BTab>
 * <Space> <Backspace> <Del> <F1>..<F12>.
 */
#ifndef LECTERN_UI_KEYS_H
#define LECTERN_UI_KEYS_H

#include <stddef.h>

#include "action.h"

/* A key is a character (its code point) or, with this bit, a curses
 * function-key code, so KEY_UP never collides with a character. */
#define UI_KEY_FN 0x40000000
#define UI_KEY_ESC 27

/* The longest key name ui_key_format writes, with its NUL. */
#define UI_KEY_NAME_MAX 16

/* Parse a key name into *key; 0, or -1 when it names no key. */
int ui_key_parse(const char *name, int *key);
/* The key's name in the notation above. */
void ui_key_format(int key, char *out, size_t size);

/* The keymap bit of a keymap name ("generic" is UI_VIEWS_ALL); -1 when
 * unknown. */
int ui_keymap_by_name(const char *name);
/* The name of the keymap of one UI_VIEW_* bit ("generic" for
 * UI_VIEWS_ALL); NULL when unknown. man/tui_keys.c lists keys by it. */
const char *ui_keymap_name(unsigned bit);

/* Reset every keymap to the action table's defaults. */
void ui_keys_reset(void);
/* Bind key in keymap to action (names as in a bind line). 0, or -1 with a
 * message in err. */
int ui_keys_bind(const char *keymap, const char *key, const char *action,
		 char *err, size_t errsize);
/* The action key runs in a view of kind view (its keymap, then the
 * generic one); UI_ACTION_NONE when unbound. */
enum ui_action ui_keys_lookup(unsigned view, int key);
/* The keys that run action in a view of kind view, in binding order; the
 * count found (at most max are stored). */
size_t ui_keys_of(unsigned view, enum ui_action action, int *keys,
		  size_t max);

#endif
