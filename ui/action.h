/*
 * The action table (actions.def) as an enum plus lookups by name, and the
 * view kinds an action applies to. Key dispatch, `bind` lines, the `:`
 * command line and the help screen all read this one table.
 */
#ifndef LECTERN_UI_ACTION_H
#define LECTERN_UI_ACTION_H

/* View kinds, as bits, so an action can name several. */
enum {
	UI_VIEW_PROJECTS = 1 << 0,
	UI_VIEW_PROJECT = 1 << 1,
	UI_VIEW_BUILDS = 1 << 2,
	UI_VIEW_BUILD = 1 << 3,
	UI_VIEW_HELP = 1 << 4,
	UI_VIEW_SEARCH = 1 << 5,
	UI_VIEW_READER = 1 << 6,
	UI_VIEW_ORGS = 1 << 7,
	UI_VIEW_PAGES = 1 << 8,
	UI_VIEW_DIFF = 1 << 9,
	UI_VIEW_NOTIFICATIONS = 1 << 10,
	UI_VIEW_WARNINGS = 1 << 11,
	UI_VIEW_CONTEXTS = 1 << 12,
	UI_VIEW_LAST = UI_VIEW_CONTEXTS, /* the highest bit, for loops */
};
/* Every view: the action lives in the generic keymap. */
#define UI_VIEWS_ALL 0

/* What Tab completes a `:` command's argument from. */
enum ui_complete {
	UI_COMPLETE_NONE,
	UI_COMPLETE_PROJECTS, /* the slugs of the projects listed */
	UI_COMPLETE_CONTEXTS, /* the names of the contexts */
	UI_COMPLETE_SCOPE,    /* "project:SLUG" for a search's first word */
	UI_COMPLETE_DIRS,     /* directories on this machine */
};

enum ui_action {
	UI_ACTION_NONE = 0, /* no action: an unbound key, or `bind ... none` */
#define ACTION(id, name, keys, views, help) UI_ACTION_##id,
#define COMMAND(id, name, args, complete, help) UI_ACTION_##id,
#include "actions.def"
#undef COMMAND
#undef ACTION
	UI_ACTION_COUNT
};

struct ui_action_info {
	const char *name;  /* as `bind` lines and the help screen name it; a
			      command's name, typed after the `:` */
	const char *keys;  /* default keys, space-separated ("": none) */
	unsigned views;    /* UI_VIEW_* bits, or UI_VIEWS_ALL */
	const char *help;  /* one line for the help screen */
	/* A `:` command's arguments as the help writes them ("": none);
	 * NULL for an action that is not a command. */
	const char *args;
	enum ui_complete complete; /* a command's argument's completion */
};

/* The row of an action (UI_ACTION_NONE has name "none"). */
const struct ui_action_info *ui_action_info(enum ui_action action);
/* The action bind lines name name (never a command); UI_ACTION_NONE for
 * "none"; -1 when unknown. */
int ui_action_by_name(const char *name);
/* The `:` command named name; -1 when there is none. */
int ui_action_by_command(const char *name);
/* Whether the command action refuses to run without an argument. */
int ui_action_needs_arg(enum ui_action action);

#endif
