/*
 * Prints the KEYS section of lectern-tui(1) in scdoc from the TUI's action
 * table (ui/actions.def), so the man page lists exactly the default keys
 * and action names the binary has. Run by man/CMakeLists.txt at build
 * time; it links the ui library only to check its keymap names.
 */
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "keys.h"

/* The keymaps as `bind KEYMAP KEY ACTION` names them, in the order of the
 * UI_VIEW_* bits; main() checks each against ui_keymap_by_name(). */
static const char *const keymap_names[] = {
	"projects", "project", "builds", "build",
	"help", "search", "reader", "orgs",
};

/* n bytes of s with scdoc's formatting characters escaped. */
static void put_text(const char *s, size_t n)
{
	for (; n > 0; n--, s++) {
		if (*s == '*' || *s == '_' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

/* The keymaps an action is bound in: "generic", or the views' names. */
static void put_keymaps(unsigned views)
{
	size_t i;
	const char *sep = "";

	if (views == UI_VIEWS_ALL) {
		fputs("generic", stdout);
		return;
	}
	for (i = 0; i < sizeof(keymap_names) / sizeof(keymap_names[0]); i++) {
		if (views & (1u << i)) {
			printf("%s%s", sep, keymap_names[i]);
			sep = ", ";
		}
	}
}

int main(void)
{
	size_t i;
	int a;

	for (i = 0; i < sizeof(keymap_names) / sizeof(keymap_names[0]); i++) {
		if (ui_keymap_by_name(keymap_names[i]) != (int)(1u << i)) {
			fprintf(stderr, "tui_keys: keymap %zu is not '%s' in "
					"ui/keys.c\n", i, keymap_names[i]);
			return 1;
		}
	}
	if ((1u << i) != (unsigned)UI_VIEW_LAST << 1) {
		fprintf(stderr, "tui_keys: ui/action.h has keymaps this "
				"program does not name\n");
		return 1;
	}
	for (a = UI_ACTION_NONE + 1; a < UI_ACTION_COUNT; a++) {
		const struct ui_action_info *info = ui_action_info(a);
		const char *k = info->keys;

		/* *k* *<Up>* ... then the action's name, keymaps and help. */
		while (*k) {
			size_t n = strcspn(k, " ");

			putchar('*');
			put_text(k, n);
			putchar('*');
			k += n + strspn(k + n, " ");
			fputs(*k ? ", " : "\n", stdout);
		}
		if (!*info->keys)
			fputs("(no default key)\n", stdout);
		printf("\t_%s_ (", info->name);
		put_keymaps(info->views);
		fputs("): ", stdout);
		put_text(info->help, strlen(info->help));
		fputs(".\n\n", stdout);
	}
	return 0;
}
