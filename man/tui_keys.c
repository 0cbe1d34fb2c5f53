/*
 * Prints the KEYS section of lectern-tui(1) in scdoc from the TUI's action
 * table (ui/actions.def) and the keymap names of ui/keys.c, so the man
 * page lists exactly the default keys and action names the binary has;
 * with the argument "commands", its COMMANDS section from the `:`
 * commands of the same table. Run by man/CMakeLists.txt at build time.
 */
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "keys.h"

/* n bytes of s with scdoc's formatting characters escaped. */
static void put_text(const char *s, size_t n)
{
	for (; n > 0; n--, s++) {
		if (*s == '*' || *s == '_' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

/* The keymaps an action is bound in: "generic", or the views' names; -1
 * when a view has no keymap name. */
static int put_keymaps(unsigned views)
{
	unsigned bit;
	const char *sep = "", *name;

	if (views == UI_VIEWS_ALL) {
		fputs("generic", stdout);
		return 0;
	}
	for (bit = 1; bit <= (unsigned)UI_VIEW_LAST; bit <<= 1) {
		if (!(views & bit))
			continue;
		if ((name = ui_keymap_name(bit)) == NULL) {
			fprintf(stderr, "tui_keys: view bit %#x has no keymap "
					"name in ui/keys.c\n", bit);
			return -1;
		}
		printf("%s%s", sep, name);
		sep = ", ";
	}
	return 0;
}

/* A command's arguments: their words underlined, the brackets as they are
 * ("[SLUG]" is [_SLUG_]). */
static void put_args(const char *s)
{
	size_t n;

	while (*s) {
		if ((n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) > 0) {
			putchar('_');
			put_text(s, n);
			putchar('_');
		} else {
			put_text(s, n = 1);
		}
		s += n;
	}
}

/* The COMMANDS section: each `:` command, its arguments and help. */
static int put_commands(void)
{
	int a;

	for (a = UI_ACTION_NONE + 1; a < UI_ACTION_COUNT; a++) {
		const struct ui_action_info *info = ui_action_info(a);

		if (info->args == NULL)
			continue;
		printf("*:%s*", info->name);
		if (*info->args) {
			putchar(' ');
			put_args(info->args);
		}
		fputs("\n\t", stdout);
		put_text(info->help, strlen(info->help));
		fputs(".\n\n", stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int a;

	if (argc > 1 && strcmp(argv[1], "commands") == 0)
		return put_commands();
	for (a = UI_ACTION_NONE + 1; a < UI_ACTION_COUNT; a++) {
		const struct ui_action_info *info = ui_action_info(a);
		const char *k = info->keys;

		if (info->args != NULL)
			continue;

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
		if (put_keymaps(info->views) < 0)
			return 1;
		fputs("): ", stdout);
		put_text(info->help, strlen(info->help));
		fputs(".\n\n", stdout);
	}
	return 0;
}
