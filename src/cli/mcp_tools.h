/*
 * The tools of `lectern mcp` (mcp_tools.c), for the method table of
 * mcp.c.
 */
#ifndef LECTERN_CLI_MCP_TOOLS_H
#define LECTERN_CLI_MCP_TOOLS_H

#include "mcp.h"

/* tools/list's result: the tools this server offers (trigger_build only
 * with --allow-write). */
cJSON *mcp_tools_list(const struct mcp *m);
/* tools/call: 0 with *result set (a tool's failure is a result too), or
 * MCP_INVALID_PARAMS for an unknown tool or arguments that are no
 * object. */
int mcp_tools_call(struct mcp *m, const cJSON *params, cJSON **result);

#endif
