/*
 * `lectern mcp`: a Model Context Protocol server on standard input and
 * output for coding agents, over one context (the current one, or
 * --context NAME): the local engine (started as the CLI starts it),
 * another Lectern, one over ssh, or the hosted service with a token. It
 * reaches the instance only through its API and docs hosts, as every
 * CLI command does (mcp.h says which part does what).
 *
 * Nothing but protocol messages may reach standard output: the command
 * keeps the real stdout for them and points file descriptor 1 at stderr
 * before anything else runs, so whatever prints, the engine it starts
 * included, lands on stderr. Requests are answered one at a time, in
 * order; while one waits for the instance, a ping is answered and a
 * cancellation stops its transfer (and no answer is sent, as the protocol
 * asks).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mcp.h"
#include "mcp_pages.h"
#include "mcp_tools.h"
#include "version.h"

static const char *const protocols[] = { MCP_PROTOCOL_LATEST,
					 MCP_PROTOCOL_PREVIOUS };

/* What a client is told at initialize, for a model to read. */
#define MCP_INSTRUCTIONS                                                     \
	"Lectern holds documentation built from projects' repositories, "    \
	"in the exact versions built here (offline). search_docs finds "    \
	"sections; read_page reads a page or one section as Markdown "      \
	"(pass a search result's ref); list_projects and list_versions "    \
	"say what exists; get_build says why a docs build failed and "      \
	"lists its warnings."

static cJSON *initialize(struct mcp *m, const cJSON *params)
{
	const char *asked = mcp_arg(params, "protocolVersion");
	cJSON *r = cJSON_CreateObject(), *caps, *info;
	size_t i;

	/* The revision asked for when spoken here, else the latest: the
	 * client then decides whether it can go on. */
	snprintf(m->protocol, sizeof(m->protocol), "%s", protocols[0]);
	for (i = 0; asked && i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (strcmp(asked, protocols[i]) == 0)
			snprintf(m->protocol, sizeof(m->protocol), "%s",
				 protocols[i]);
	cJSON_AddStringToObject(r, "protocolVersion", m->protocol);
	caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"),
			      "listChanged", 0);
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "resources"),
			      "listChanged", 0);
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", "lectern");
	cJSON_AddStringToObject(info, "title", "Lectern documentation");
	cJSON_AddStringToObject(info, "version", LECTERN_VERSION);
	cJSON_AddStringToObject(r, "instructions", MCP_INSTRUCTIONS);
	return r;
}

/* One request: its answer, or an error. */
static void handle(struct mcp *m, const char *method, const cJSON *id,
		   const cJSON *params)
{
	const char *message = "Invalid params";
	cJSON *result = NULL;
	int code = 0;

	if (strcmp(method, "initialize") == 0)
		result = initialize(m, params);
	else if (strcmp(method, "ping") == 0)
		result = cJSON_CreateObject();
	else if (strcmp(method, "tools/list") == 0)
		result = mcp_tools_list(m);
	else if (strcmp(method, "tools/call") == 0) {
		if ((code = mcp_tools_call(m, params, &result)) != 0)
			message = mcp_arg(params, "name")
					  ? "Invalid params: no such tool, or "
					    "arguments that are not an object"
					  : "Invalid params: a tool's name is "
					    "required";
	} else if (strcmp(method, "resources/list") == 0)
		code = mcp_resources_list(m, params, &result, &message);
	else if (strcmp(method, "resources/templates/list") == 0)
		result = mcp_resource_templates(m);
	else if (strcmp(method, "resources/read") == 0)
		code = mcp_resources_read(m, params, &result, &message);
	else {
		code = MCP_METHOD_NOT_FOUND;
		message = "Method not found";
	}
	if (m->cancelled)
		cJSON_Delete(result); /* the client no longer waits for it */
	else if (code)
		mcp_reply_error(m, id, code, message);
	else
		mcp_reply(m, id, result);
}

/* One message from the client. */
static void dispatch(struct mcp *m, cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");

	if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") ||
	    (method && !cJSON_IsString(method)) ||
	    (params && !cJSON_IsObject(params))) {
		if (id)
			mcp_reply_error(m, id, MCP_INVALID_REQUEST,
					"Invalid Request");
		return;
	}
	if (method == NULL || id == NULL)
		return; /* a notification (initialized...), or an answer */
	m->current_id = cJSON_Duplicate(id, 1);
	m->cancelled = 0;
	handle(m, method->valuestring, id, params);
	cJSON_Delete(m->current_id);
	m->current_id = NULL;
}

int cli_cmd_mcp(struct cli_ctx *ctx, int argc, char **argv)
{
	struct mcp m = { 0 };
	int allow_write = 0, status, npos;
	const char *context = NULL;
	const struct cli_opt opts[] = {
		{ "--context", &context, NULL },
		{ "--allow-write", NULL, &allow_write },
		{ NULL, NULL, NULL },
	};
	cJSON *msg;

	if ((status = cli_parse_args("mcp", argc, argv, opts, NULL, 0, 0,
				     &npos)) != CLI_EXIT_OK)
		return status;
	if (context)
		ctx->context_opt = context;
	/* The protocol keeps the real stdout; everything else writes to
	 * stderr from here on, children too. */
	if ((m.out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return cli_fail("mcp: cannot set standard output aside");
	m.ctx = ctx;
	m.allow_write = allow_write;
	if ((status = cli_session_open(ctx, &m.session)) != CLI_EXIT_OK) {
		close(m.out_fd);
		return status;
	}
	fprintf(stderr, "lectern mcp: serving context '%s'%s\n",
		m.session.conn.name, allow_write ? " (writes allowed)" : "");
	while ((msg = mcp_next(&m)) != NULL) {
		dispatch(&m, msg);
		cJSON_Delete(msg);
	}
	cli_session_close(&m.session);
	free(m.in);
	close(m.out_fd);
	return CLI_EXIT_OK;
}

void cli_mcp_help(FILE *out)
{
	fprintf(out,
		"\nAn agent starts it itself. For clients that read an "
		"\"mcpServers\" map\n(Claude Desktop and Code, Cursor, Cline, "
		"Windsurf, and others):\n\n"
		"  {\n"
		"    \"mcpServers\": {\n"
		"      \"lectern\": {\n"
		"        \"command\": \"lectern\",\n"
		"        \"args\": [\"mcp\"]\n"
		"      }\n"
		"    }\n"
		"  }\n\n"
		"Add \"--context\", \"NAME\" to args for another context, and "
		"\"--allow-write\" to let\nthe agent start builds. VS Code's "
		".vscode/mcp.json takes the same entry under\n\"servers\" with "
		"\"type\": \"stdio\".\n");
}
