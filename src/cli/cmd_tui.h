/*
 * `lectern tui` (cmd_tui.c): the full-screen interface on the chosen
 * context.
 */
#ifndef LECTERN_CLI_CMD_TUI_H
#define LECTERN_CLI_CMD_TUI_H

struct cli_ctx;

int cli_cmd_tui(struct cli_ctx *ctx, int argc, char **argv);

#endif
