/*
 * What the parts of `lectern mcp` share (mcp_rpc.c below them): the
 * server's state, its messages on the protocol's channel, and requests to
 * the instance that a cancellation can stop. The Model Context Protocol
 * over standard input and output: JSON-RPC 2.0 messages, one a line.
 *
 *   mcp.c         the command: the session, the loop, the methods
 *   mcp_tools.c   search_docs, list_projects, list_versions, get_build,
 *                 trigger_build
 *   mcp_pages.c   read_page and the resources (every built page)
 *   mcp_rpc.c     messages, the instance's requests, tool results
 *
 * Calls run down that list.
 */
#ifndef LECTERN_CLI_MCP_H
#define LECTERN_CLI_MCP_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "cmd.h"

/* The protocol revisions spoken: the current one first, then the one
 * before, which clients of a year ago still ask for. */
#define MCP_PROTOCOL_LATEST "2025-11-25"
#define MCP_PROTOCOL_PREVIOUS "2025-06-18"

/* JSON-RPC's and MCP's error codes. */
#define MCP_PARSE_ERROR (-32700)
#define MCP_INVALID_REQUEST (-32600)
#define MCP_METHOD_NOT_FOUND (-32601)
#define MCP_INVALID_PARAMS (-32602)
#define MCP_INTERNAL_ERROR (-32603)
#define MCP_RESOURCE_NOT_FOUND (-32002)

/* Longest message line read: a request is a few hundred bytes; a client
 * sending more is refused rather than buffered without end. */
#define MCP_LINE_MAX (1024 * 1024)
/* Messages waiting while a request runs: a client sends a few. */
#define MCP_QUEUE_MAX 64

struct mcp {
	struct cli_ctx *ctx;
	struct cli_session session;
	int out_fd;         /* the protocol's channel (the real stdout) */
	int in_eof;
	char *in;           /* bytes read, not yet a whole line */
	size_t in_len, in_cap;
	cJSON *queue[MCP_QUEUE_MAX]; /* messages read while busy, in order */
	size_t queued;
	cJSON *current_id;  /* the request being handled, or NULL */
	int cancelled;      /* the client cancelled it: no answer goes */
	int allow_write;    /* --allow-write: trigger_build is offered */
	char protocol[16];  /* the revision agreed on at initialize */
};

/* Messages ------------------------------------------------------------------ */

/* Write one message (consumed) as a line on the protocol's channel. */
void mcp_send(struct mcp *m, cJSON *msg);
/* The answer to request id: its result (consumed), or an error. */
void mcp_reply(struct mcp *m, const cJSON *id, cJSON *result);
void mcp_reply_error(struct mcp *m, const cJSON *id, int code,
		     const char *message);

/* The next message from the client (the caller's: cJSON_Delete), from
 * those queued first; NULL at the end of the input. */
cJSON *mcp_next(struct mcp *m);

/* The instance ------------------------------------------------------------- */

/* One request to the instance; path is an API path or an absolute URL. */
struct mcp_call {
	const char *method;          /* NULL: GET */
	const char *path;
	const struct lc_query *query;
	const char *json_body;
	const char *accept;
};

/* Send a request and wait for its answer, reading (and queueing, or
 * acting on: a cancellation, a ping) the client's messages meanwhile. A
 * local engine that stopped answering is found again once (it may have
 * been restarted on another port). LC_OK with *resp (the caller's);
 * LC_ECANCELLED when the client cancelled the request; else the error in
 * err, *resp kept for an HTTP error's body. */
int mcp_call(struct mcp *m, const struct mcp_call *call,
	     struct lc_response **resp, struct lc_error *err);

/* A GET's JSON answer into *out (the caller's): LC_OK, or the error
 * (LC_EJSON for an answer that is no JSON). */
int mcp_get_json(struct mcp *m, const char *path, const struct lc_query *q,
		 cJSON **out, struct lc_error *err);
/* The string member key of o; NULL when absent or not a string. */
const char *mcp_str(const cJSON *o, const char *key);

/* Tool results ---------------------------------------------------------------- */

/* A tool's result: text for the model and the same as structured
 * content (consumed; NULL: none). */
cJSON *mcp_tool_result(const char *text, cJSON *structured);
/* A tool's failure, said to the model (isError): a printf format. */
cJSON *mcp_tool_failure(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* The failure of a request to the instance, with the API's message. */
cJSON *mcp_tool_call_failure(const char *what, const struct lc_error *err);

/* Whether s is a slug (letters, digits, '-', '_', '.'), safe in a path. */
int mcp_is_slug(const char *s);
/* The string argument key of args; NULL when absent or not a string. */
const char *mcp_arg(const cJSON *args, const char *key);
/* The integer argument key of args, within [min, max]; def when absent;
 * -1 when present but not such a number. */
long mcp_arg_int(const cJSON *args, const char *key, long def, long min,
		 long max);

#endif
