/*
 * The action table expanded from actions.def, and lookups into it: by
 * name for `bind` lines (the key actions), by name for the command line
 * (the `:` commands).
 */
#include <string.h>

#include "action.h"

static const struct ui_action_info actions[UI_ACTION_COUNT] = {
	[UI_ACTION_NONE] = { "none", "", UI_VIEWS_ALL, "unbind the key", NULL,
			     UI_COMPLETE_NONE },
#define ACTION(id, name, keys, views, help)                                  \
	[UI_ACTION_##id] = { name, keys, views, help, NULL, UI_COMPLETE_NONE },
#define COMMAND(id, name, args, complete, help)                              \
	[UI_ACTION_##id] = { name, "", UI_VIEWS_ALL, help, args, complete },
#include "actions.def"
#undef COMMAND
#undef ACTION
};

const struct ui_action_info *ui_action_info(enum ui_action action)
{
	if ((int)action < 0 || action >= UI_ACTION_COUNT)
		return &actions[UI_ACTION_NONE];
	return &actions[action];
}

/* The row named name among the commands (command) or the others. */
static int find(const char *name, int command)
{
	int i;

	for (i = 0; i < UI_ACTION_COUNT; i++)
		if ((actions[i].args != NULL) == command &&
		    strcmp(actions[i].name, name) == 0)
			return i;
	return -1;
}

int ui_action_by_name(const char *name)
{
	return find(name, 0);
}

int ui_action_by_command(const char *name)
{
	return find(name, 1);
}

int ui_action_needs_arg(enum ui_action action)
{
	const char *args = ui_action_info(action)->args;

	return args != NULL && args[0] != '\0' && args[0] != '[';
}
