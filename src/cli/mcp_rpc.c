/*
 * The protocol's plumbing for `lectern mcp` (mcp.h): messages as lines on
 * the channel the command kept for them (nothing else ever reaches the
 * real standard output), the client's messages read while a request to
 * the instance runs — a cancellation stops that request's HTTP transfer
 * at once, a ping is answered at once, the rest waits its turn — and the
 * shapes of tool results.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "cli.h"
#include "mcp.h"

/* Longest wait between looks at a transfer with no timer of its own. */
#define MCP_IDLE_WAIT_MS 1000

/* Messages ------------------------------------------------------------------ */

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

void mcp_send(struct mcp *m, cJSON *msg)
{
	/* cJSON escapes line breaks inside strings: one message, one line. */
	char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;

	if (text == NULL ||
	    write_all(m->out_fd, text, strlen(text)) < 0 ||
	    write_all(m->out_fd, "\n", 1) < 0)
		fprintf(stderr, "lectern mcp: cannot write a message\n");
	free(text);
	cJSON_Delete(msg);
}

static cJSON *envelope(const cJSON *id)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", id ? cJSON_Duplicate(id, 1)
					    : cJSON_CreateNull());
	return msg;
}

void mcp_reply(struct mcp *m, const cJSON *id, cJSON *result)
{
	cJSON *msg = envelope(id);

	cJSON_AddItemToObject(msg, "result",
			      result ? result : cJSON_CreateObject());
	mcp_send(m, msg);
}

void mcp_reply_error(struct mcp *m, const cJSON *id, int code,
		     const char *message)
{
	cJSON *msg = envelope(id), *error;

	error = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(error, "code", code);
	cJSON_AddStringToObject(error, "message", message);
	mcp_send(m, msg);
}

/* Reading --------------------------------------------------------------------- */

static const char *method_of(const cJSON *msg)
{
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");

	return cJSON_IsString(method) ? method->valuestring : NULL;
}

static int same_id(const cJSON *a, const cJSON *b)
{
	return a && b && cJSON_Compare(a, b, 1);
}

/* A cancellation (notifications/cancelled): of the request running, its
 * transfer is stopped (the caller's cancel); of one queued, it is
 * dropped. Returns 1 when it was the running one's. */
static int cancel(struct mcp *m, const cJSON *msg)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params,
							   "requestId");
	size_t i;

	if (same_id(id, m->current_id)) {
		m->cancelled = 1;
		return 1;
	}
	for (i = 0; i < m->queued; i++)
		if (same_id(id, cJSON_GetObjectItemCaseSensitive(m->queue[i],
								 "id"))) {
			cJSON_Delete(m->queue[i]);
			memmove(&m->queue[i], &m->queue[i + 1],
				(m->queued - i - 1) * sizeof(m->queue[0]));
			m->queued--;
			break;
		}
	return 0;
}

/* One line: what cannot be parsed is answered here, a cancellation or a
 * ping while a request runs is acted on, the rest queued. Returns 1 when
 * the running request was cancelled. */
static int take_line(struct mcp *m, const char *line, size_t n)
{
	cJSON *msg = cJSON_ParseWithLength(line, n);
	const char *method = method_of(msg);

	if (msg == NULL || !cJSON_IsObject(msg)) {
		mcp_reply_error(m, NULL, msg ? MCP_INVALID_REQUEST
					      : MCP_PARSE_ERROR,
				msg ? "Invalid Request: a message is an object"
				    : "Parse error: not JSON");
		cJSON_Delete(msg);
		return 0;
	}
	if (method && strcmp(method, "notifications/cancelled") == 0) {
		int mine = cancel(m, msg);

		cJSON_Delete(msg);
		return mine;
	}
	if (m->current_id && method && strcmp(method, "ping") == 0) {
		mcp_reply(m, cJSON_GetObjectItemCaseSensitive(msg, "id"), NULL);
		cJSON_Delete(msg);
		return 0;
	}
	if (m->queued == MCP_QUEUE_MAX) {
		if (cJSON_GetObjectItemCaseSensitive(msg, "id"))
			mcp_reply_error(m,
					cJSON_GetObjectItemCaseSensitive(msg,
									 "id"),
					MCP_INTERNAL_ERROR,
					"Too many requests waiting");
		cJSON_Delete(msg);
		return 0;
	}
	m->queue[m->queued++] = msg;
	return 0;
}

/* Read what standard input has (it was ready) and take its whole lines;
 * returns 1 when the running request was cancelled. */
static int read_input(struct mcp *m)
{
	char buf[65536];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	size_t start = 0, i;
	int cancelled = 0;

	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		m->in_eof = 1;
		return 0;
	}
	if (m->in_len + (size_t)n > m->in_cap) {
		size_t cap = m->in_cap ? m->in_cap : 4096;
		char *grown;

		while (cap < m->in_len + (size_t)n)
			cap *= 2;
		if (cap > MCP_LINE_MAX + sizeof(buf) ||
		    (grown = realloc(m->in, cap)) == NULL) {
			mcp_reply_error(m, NULL, MCP_INVALID_REQUEST,
					"Invalid Request: a line too long");
			m->in_len = 0;
			return 0;
		}
		m->in = grown;
		m->in_cap = cap;
	}
	memcpy(m->in + m->in_len, buf, (size_t)n);
	m->in_len += (size_t)n;
	for (i = 0; i < m->in_len; i++)
		if (m->in[i] == '\n') {
			if (i > start)
				cancelled |= take_line(m, m->in + start,
						       i - start);
			start = i + 1;
		}
	memmove(m->in, m->in + start, m->in_len - start);
	m->in_len -= start;
	return cancelled;
}

cJSON *mcp_next(struct mcp *m)
{
	cJSON *msg;

	while (m->queued == 0 && !m->in_eof)
		read_input(m);
	if (m->queued == 0)
		return NULL;
	msg = m->queue[0];
	memmove(&m->queue[0], &m->queue[1],
		(m->queued - 1) * sizeof(m->queue[0]));
	m->queued--;
	return msg;
}

/* The instance ---------------------------------------------------------------- */

struct waiting {
	int done;
	struct lc_response *resp;
	struct lc_error err;
};

/* The transfer's end: its response kept (the callback's is lent). */
static void call_done(struct lc_response *resp, const struct lc_error *err,
		      void *data)
{
	struct waiting *w = data;

	w->done = 1;
	w->err = *err;
	if (resp && (w->resp = calloc(1, sizeof(*w->resp))) != NULL) {
		*w->resp = *resp;
		memset(resp, 0, sizeof(*resp));
	}
}

static int call_once(struct mcp *m, const struct mcp_call *call,
		     struct waiting *w)
{
	struct lc_async_request req = { call->method, call->path, call->query,
					call->json_body, NULL, call->accept,
					call_done, w };
	struct lc_client *c = m->session.client;
	uint64_t id = 0;

	if (lc_async_submit(c, &req, &id, &w->err) != LC_OK)
		return w->err.code;
	while (!w->done) {
		fd_set rd, wr, ex;
		struct timeval tv;
		long ms = lc_async_timeout(c);
		int maxfd = m->in_eof ? -1 : STDIN_FILENO;

		FD_ZERO(&rd);
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		if (!m->in_eof)
			FD_SET(STDIN_FILENO, &rd);
		lc_async_fdset(c, &rd, &wr, &ex, &maxfd);
		if (ms < 0 || ms > MCP_IDLE_WAIT_MS)
			ms = MCP_IDLE_WAIT_MS;
		tv.tv_sec = ms / 1000;
		tv.tv_usec = (ms % 1000) * 1000;
		if (select(maxfd + 1, &rd, &wr, &ex, &tv) < 0 && errno != EINTR)
			break;
		if (!m->in_eof && FD_ISSET(STDIN_FILENO, &rd) &&
		    read_input(m))
			lc_async_cancel(c, id);
		lc_async_perform(c);
	}
	return w->done ? w->err.code : LC_ETRANSPORT;
}

int mcp_call(struct mcp *m, const struct mcp_call *call,
	     struct lc_response **resp, struct lc_error *err)
{
	struct waiting w = { 0 };
	int rc = call_once(m, call, &w);

	/* A local engine restarted listens elsewhere: find it again, once
	 * (as the TUI does), and ask again. */
	if (rc == LC_ETRANSPORT && !m->cancelled && m->session.conn.is_local) {
		fprintf(stderr, "lectern mcp: the local engine did not answer; "
				"looking for it again\n");
		cli_session_close(&m->session);
		if (cli_session_open(m->ctx, &m->session) == CLI_EXIT_OK) {
			lc_response_free(w.resp);
			memset(&w, 0, sizeof(w));
			rc = call_once(m, call, &w);
		}
	}
	*resp = w.resp;
	*err = w.err;
	if (m->cancelled)
		rc = LC_ECANCELLED;
	return rc;
}

int mcp_get_json(struct mcp *m, const char *path, const struct lc_query *q,
		 cJSON **out, struct lc_error *err)
{
	struct mcp_call call = { NULL, path, q, NULL, NULL };
	struct lc_response *r = NULL;
	int rc = mcp_call(m, &call, &r, err);

	*out = NULL;
	if (rc == LC_OK && (r == NULL || r->json == NULL)) {
		rc = err->code = LC_EJSON;
		snprintf(err->message, sizeof(err->message),
			 "the answer is not JSON");
	}
	if (rc == LC_OK) {
		*out = r->json;
		r->json = NULL;
	}
	lc_response_free(r);
	return rc;
}

const char *mcp_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Tool results -------------------------------------------------------------------- */

static cJSON *text_content(const char *text)
{
	cJSON *content = cJSON_CreateArray(), *item = cJSON_CreateObject();

	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddStringToObject(item, "text", text);
	cJSON_AddItemToArray(content, item);
	return content;
}

cJSON *mcp_tool_result(const char *text, cJSON *structured)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddItemToObject(r, "content", text_content(text));
	if (structured)
		cJSON_AddItemToObject(r, "structuredContent", structured);
	cJSON_AddBoolToObject(r, "isError", 0);
	return r;
}

cJSON *mcp_tool_failure(const char *fmt, ...)
{
	cJSON *r = cJSON_CreateObject();
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cJSON_AddItemToObject(r, "content", text_content(text));
	cJSON_AddBoolToObject(r, "isError", 1);
	return r;
}

cJSON *mcp_tool_call_failure(const char *what, const struct lc_error *err)
{
	const char *msg = err->message[0] ? err->message
					  : lc_code_str(err->code);

	if (err->code == LC_EHTTP && err->status > 0)
		return mcp_tool_failure("%s: %s (HTTP %ld)", what, msg,
					err->status);
	return mcp_tool_failure("%s: %s", what, msg);
}

int mcp_is_slug(const char *s)
{
	return s && *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_.") == strlen(s);
}

const char *mcp_arg(const cJSON *args, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long mcp_arg_int(const cJSON *args, const char *key, long def, long min,
		 long max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	if (v == NULL || cJSON_IsNull(v))
		return def;
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble ||
	    v->valuedouble < (double)min || v->valuedouble > (double)max)
		return -1;
	return (long)v->valuedouble;
}
