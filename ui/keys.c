/*
 * Keymaps (see keys.h): one flat table of bindings, searched linearly.
 * It holds well under a few hundred entries, so a lookup per key press is
 * cheaper than keeping an index in step with `bind` overrides.
 */
#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "keys.h"

/* Every action's default keys (about 50) plus a config file's worth of
 * overrides; a bind past this is reported, not silently dropped. */
#define MAX_BINDINGS 512

struct binding {
	unsigned keymap; /* UI_VIEW_* bit, or UI_VIEWS_ALL for generic */
	int key;
	enum ui_action action;
};

static struct binding bindings[MAX_BINDINGS];
static size_t binding_count;

static const struct {
	const char *name;
	unsigned bit;
} keymaps[] = {
	{ "generic", UI_VIEWS_ALL },  { "projects", UI_VIEW_PROJECTS },
	{ "project", UI_VIEW_PROJECT }, { "builds", UI_VIEW_BUILDS },
	{ "build", UI_VIEW_BUILD },    { "help", UI_VIEW_HELP },
	{ "search", UI_VIEW_SEARCH },  { "reader", UI_VIEW_READER },
	{ "orgs", UI_VIEW_ORGS },      { "pages", UI_VIEW_PAGES },
	{ "diff", UI_VIEW_DIFF },
	{ "notifications", UI_VIEW_NOTIFICATIONS },
	{ "warnings", UI_VIEW_WARNINGS },
	{ "contexts", UI_VIEW_CONTEXTS },
};

static const struct {
	const char *name;
	int key;
} named_keys[] = {
	{ "Up", UI_KEY_FN | KEY_UP },       { "Down", UI_KEY_FN | KEY_DOWN },
	{ "Left", UI_KEY_FN | KEY_LEFT },   { "Right", UI_KEY_FN | KEY_RIGHT },
	{ "PgUp", UI_KEY_FN | KEY_PPAGE },  { "PgDn", UI_KEY_FN | KEY_NPAGE },
	{ "Home", UI_KEY_FN | KEY_HOME },   { "End", UI_KEY_FN | KEY_END },
	{ "BTab", UI_KEY_FN | KEY_BTAB },   { "Del", UI_KEY_FN | KEY_DC },
	{ "Backspace", UI_KEY_FN | KEY_BACKSPACE },
	{ "Enter", '\n' },                  { "Esc", UI_KEY_ESC },
	{ "Tab", '\t' },                    { "Space", ' ' },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* Function keys <F1>..<F12>. */
#define MAX_FKEY 12

int ui_keymap_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < COUNT(keymaps); i++)
		if (strcmp(keymaps[i].name, name) == 0)
			return (int)keymaps[i].bit;
	return -1;
}

const char *ui_keymap_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < COUNT(keymaps); i++)
		if (keymaps[i].bit == bit)
			return keymaps[i].name;
	return NULL;
}

/* A name between < and >, without them. */
static int parse_named(const char *name, size_t n, int *key)
{
	size_t i;
	int f;

	for (i = 0; i < COUNT(named_keys); i++)
		if (strlen(named_keys[i].name) == n &&
		    strncasecmp(named_keys[i].name, name, n) == 0) {
			*key = named_keys[i].key;
			return 0;
		}
	if ((n == 2 || n == 3) && (name[0] == 'F' || name[0] == 'f') &&
	    sscanf(name + 1, "%d", &f) == 1 && f >= 1 && f <= MAX_FKEY) {
		*key = UI_KEY_FN | KEY_F(f);
		return 0;
	}
	if (n == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-') {
		*key = name[2] & 0x1f;
		return 0;
	}
	return -1;
}

int ui_key_parse(const char *name, int *key)
{
	size_t n = strlen(name);
	mbstate_t st;
	wchar_t wc;
	size_t used;

	if (n >= 3 && name[0] == '<' && name[n - 1] == '>')
		return parse_named(name + 1, n - 2, key);
	if (n == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-') {
		*key = name[2] & 0x1f;
		return 0;
	}
	memset(&st, 0, sizeof(st));
	used = mbrtowc(&wc, name, n, &st);
	if (n == 0 || used != n || wc <= ' ')
		return -1;
	*key = (int)wc;
	return 0;
}

void ui_key_format(int key, char *out, size_t size)
{
	char mb[MB_LEN_MAX + 1];
	mbstate_t st;
	size_t i, n;

	for (i = 0; i < COUNT(named_keys); i++)
		if (named_keys[i].key == key) {
			snprintf(out, size, "<%s>", named_keys[i].name);
			return;
		}
	if ((key & UI_KEY_FN) && (key & ~UI_KEY_FN) >= KEY_F(1) &&
	    (key & ~UI_KEY_FN) <= KEY_F(MAX_FKEY)) {
		snprintf(out, size, "<F%d>", (key & ~UI_KEY_FN) - KEY_F0);
		return;
	}
	if (key > 0 && key < ' ') {
		snprintf(out, size, "C-%c", key | 0x60);
		return;
	}
	memset(&st, 0, sizeof(st));
	n = (key & UI_KEY_FN) ? (size_t)-1 : wcrtomb(mb, (wchar_t)key, &st);
	if (n == (size_t)-1) {
		snprintf(out, size, "<0x%x>", (unsigned)key);
		return;
	}
	mb[n] = '\0';
	snprintf(out, size, "%s", mb);
}

/* Set (or replace) the binding of key in keymap; -1 when the table is
 * full. */
static int set_binding(unsigned keymap, int key, enum ui_action action)
{
	size_t i;

	for (i = 0; i < binding_count; i++)
		if (bindings[i].keymap == keymap && bindings[i].key == key) {
			bindings[i].action = action;
			return 0;
		}
	if (binding_count == MAX_BINDINGS)
		return -1;
	bindings[binding_count].keymap = keymap;
	bindings[binding_count].key = key;
	bindings[binding_count].action = action;
	binding_count++;
	return 0;
}

/* Bind one action's default keys in one keymap. */
static void bind_defaults(unsigned keymap, enum ui_action action,
			  const char *keys)
{
	char name[UI_KEY_NAME_MAX];
	const char *p = keys;
	int key;
	size_t n;

	while (*p) {
		n = strcspn(p, " ");
		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (ui_key_parse(name, &key) == 0)
				set_binding(keymap, key, action);
		}
		p += n;
		p += strspn(p, " ");
	}
}

void ui_keys_reset(void)
{
	const struct ui_action_info *info;
	unsigned bit;
	int a;

	binding_count = 0;
	for (a = 1; a < UI_ACTION_COUNT; a++) {
		info = ui_action_info((enum ui_action)a);
		if (info->views == UI_VIEWS_ALL) {
			bind_defaults(UI_VIEWS_ALL, (enum ui_action)a,
				      info->keys);
			continue;
		}
		for (bit = 1; bit <= UI_VIEW_LAST; bit <<= 1)
			if (info->views & bit)
				bind_defaults(bit, (enum ui_action)a,
					      info->keys);
	}
}

int ui_keys_bind(const char *keymap, const char *key, const char *action,
		 char *err, size_t errsize)
{
	int map = ui_keymap_by_name(keymap);
	int code, act;

	if (map < 0) {
		snprintf(err, errsize, "unknown keymap '%s'", keymap);
		return -1;
	}
	if (ui_key_parse(key, &code) < 0) {
		snprintf(err, errsize, "unknown key '%s'", key);
		return -1;
	}
	if ((act = ui_action_by_name(action)) < 0) {
		snprintf(err, errsize, "unknown action '%s'", action);
		return -1;
	}
	if (set_binding((unsigned)map, code, (enum ui_action)act) < 0) {
		snprintf(err, errsize, "too many bindings (at most %d)",
			 MAX_BINDINGS);
		return -1;
	}
	return 0;
}

/* 1 and *action set when keymap binds key. */
static int find(unsigned keymap, int key, enum ui_action *action)
{
	size_t i;

	for (i = 0; i < binding_count; i++)
		if (bindings[i].keymap == keymap && bindings[i].key == key) {
			*action = bindings[i].action;
			return 1;
		}
	return 0;
}

enum ui_action ui_keys_lookup(unsigned view, int key)
{
	enum ui_action action = UI_ACTION_NONE;

	if (find(view, key, &action) || find(UI_VIEWS_ALL, key, &action))
		return action;
	return UI_ACTION_NONE;
}

size_t ui_keys_of(unsigned view, enum ui_action action, int *keys,
		  size_t max)
{
	size_t i, j, n = 0;
	int seen;

	for (i = 0; i < binding_count; i++) {
		if (bindings[i].action != action ||
		    (bindings[i].keymap != view &&
		     bindings[i].keymap != UI_VIEWS_ALL) ||
		    ui_keys_lookup(view, bindings[i].key) != action)
			continue;
		for (seen = 0, j = 0; j < n && j < max; j++)
			seen |= keys[j] == bindings[i].key;
		if (seen)
			continue;
		if (n < max)
			keys[n] = bindings[i].key;
		n++;
	}
	return n;
}
