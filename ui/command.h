/*
 * The command line's `:` commands (command.c): each a COMMAND row of the
 * action table (actions.def), which gives its name, its arguments, what
 * Tab completes them from and its help, so the help screen and
 * lectern-tui(1) list exactly what runs.
 */
#ifndef LECTERN_UI_COMMAND_H
#define LECTERN_UI_COMMAND_H

struct ui_app;

/* Run a `:` command line: its first word names the command, the rest
 * (trimmed) is the argument; an unknown command or a missing argument is
 * said in the status line. */
void ui_command_run(struct ui_app *app, const char *line);
/* Complete the prompt's last word (Tab): a command's name, or its
 * argument as its row says. */
void ui_command_complete(struct ui_app *app);

#endif
