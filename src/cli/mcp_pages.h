/*
 * Pages for `lectern mcp` (mcp_pages.c): the read_page tool and the
 * resources, every built page as lectern://<context>/<project>/<version>/
 * <path>, read as Markdown.
 */
#ifndef LECTERN_CLI_MCP_PAGES_H
#define LECTERN_CLI_MCP_PAGES_H

#include "mcp.h"

/* The read_page tool. */
cJSON *mcp_read_page(struct mcp *m, const cJSON *args);
/* resources/list, paged by an opaque cursor: 0 with *result, or an MCP
 * error code with *message. */
int mcp_resources_list(struct mcp *m, const cJSON *params, cJSON **result,
		       const char **message);
/* resources/templates/list. */
cJSON *mcp_resource_templates(const struct mcp *m);
/* resources/read: 0 with *result, or an MCP error code with *message. */
int mcp_resources_read(struct mcp *m, const cJSON *params, cJSON **result,
		       const char **message);

#endif
