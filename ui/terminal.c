/*
 * Whether the terminal can show the TUI at all (see ui.h), asked of
 * terminfo before curses starts. It is a file of its own because
 * <term.h> defines capability names such as `lines` and `columns` as
 * macros, which the rest of the TUI uses as field names.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#include "ui.h"

int ui_terminal_check(char *err, size_t errsize)
{
	const char *term = getenv("TERM");
	const char *cup;
	int rc;

	/* No terminal at all is ui_display_init's to report. */
	if (!isatty(STDOUT_FILENO))
		return 0;
	if (setupterm(NULL, STDOUT_FILENO, &rc) != OK) {
		snprintf(err, errsize, "the TUI cannot drive this terminal "
			 "(TERM=%s has no terminfo entry)", term ? term : "");
		return -1;
	}
	/* Without cursor addressing curses can only write line after
	 * line: the screen would be the title and nothing else. */
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (cup == NULL || cup == (char *)-1) {
		snprintf(err, errsize, "the TUI needs a terminal that can move "
			 "the cursor (TERM=%s cannot); try TERM=xterm-256color",
			 term ? term : "");
		return -1;
	}
	return 0;
}
