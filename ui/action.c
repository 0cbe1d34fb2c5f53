/*
 * The action table expanded from actions.def, and lookups into it.
 */
#include <string.h>

#include "action.h"

static const struct ui_action_info actions[UI_ACTION_COUNT] = {
	[UI_ACTION_NONE] = { "none", "", UI_VIEWS_ALL, "unbind the key" },
#define ACTION(id, name, keys, views, help)                                  \
	[UI_ACTION_##id] = { name, keys, views, help },
#include "actions.def"
#undef ACTION
};

const struct ui_action_info *ui_action_info(enum ui_action action)
{
	if ((int)action < 0 || action >= UI_ACTION_COUNT)
		return &actions[UI_ACTION_NONE];
	return &actions[action];
}

int ui_action_by_name(const char *name)
{
	int i;

	for (i = 0; i < UI_ACTION_COUNT; i++)
		if (strcmp(actions[i].name, name) == 0)
			return i;
	return -1;
}
