/*
 * `lectern tui [--theme NAME|FILE] [--readonly]`: resolve the context
 * (--context, LECTERN_CONTEXT, the config's current one, else local,
 * started in the background if needed) and hand it to the ui library,
 * with a callback that resolves another context for the TUI's `:context
 * NAME`. --readonly (or the context's own readonly setting) makes the TUI
 * refuse every write. A bare `lectern` on a terminal runs this too
 * (commands.c), so this is also a newcomer's first screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_tui.h"
#include "context.h"
#include "ui.h"

/* A context's error message, as the TUI's status line shows it. */
#define MAX_MESSAGE 512

/* The struct ui_conn for a resolved connection (strings moved over). */
static void take_conn(struct cli_conn *from, struct ui_conn *to)
{
	memset(to, 0, sizeof(*to));
	to->name = from->name;
	to->api_url = from->base_url;
	to->docs_domain = from->docs_url;
	to->token = from->token;
	to->unix_socket = from->unix_socket;
	to->remote_socket = from->remote_socket;
	to->link_name = from->link_name;
	to->forward_hint = from->forward_hint;
	to->readonly = from->readonly;
	to->local = from->is_local;
	from->name = from->base_url = from->docs_url = from->token = NULL;
	from->unix_socket = from->remote_socket = from->link_name = NULL;
	from->forward_hint = NULL;
	cli_conn_dispose(from);
}

/* The last line the context code wrote to f (its error). */
static void last_line(FILE *f, char *out, size_t size)
{
	char line[MAX_MESSAGE];

	snprintf(out, size, "cannot connect");
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* Drop the "lectern: " of cli_fail; the status line says who. */
		snprintf(out, size, "%s",
			 strncmp(line, "lectern: ", 9) == 0 ? line + 9 : line);
	}
}

/* Ports the reader's `O` may forward in one TUI session; each stays until
 * the TUI quits. */
#define MAX_FORWARDS 8

/* What the TUI's callbacks share: the CLI's state, the watcher of the
 * current ssh context's link (-1: none), and the ports forwarded so far
 * (ended when the TUI quits). */
struct tui_payload {
	struct cli_ctx *ctx;
	long keeper;
	struct {
		char *context, *remote;
		int port;
	} forwards[MAX_FORWARDS];
	size_t nforwards;
	int used_local; /* the local context was shown: its engine runs on */
};

/* Run fn(arg) with stderr going to a temporary file, so what the CLI's
 * code reports (cli_fail) does not scribble over the screen; its last
 * line comes back in err when fn fails. */
static int captured(int (*fn)(void *arg), void *arg, char *err,
		    size_t errsize)
{
	FILE *capture = tmpfile();
	int old_stderr = -1, status;

	if (capture == NULL || (old_stderr = dup(STDERR_FILENO)) < 0) {
		snprintf(err, errsize, "out of resources");
		if (capture)
			fclose(capture);
		return CLI_EXIT_FAIL;
	}
	fflush(stderr);
	dup2(fileno(capture), STDERR_FILENO);
	status = fn(arg);
	fflush(stderr);
	dup2(old_stderr, STDERR_FILENO);
	close(old_stderr);
	if (status != CLI_EXIT_OK)
		last_line(capture, err, errsize);
	fclose(capture);
	return status;
}

struct connect_call {
	struct cli_ctx *ctx;
	const char *name;
	struct cli_conn conn;
};

static int connect_named(void *arg)
{
	struct connect_call *call = arg;
	const char *saved = call->ctx->context_opt;
	int status;

	call->ctx->context_opt = call->name;
	status = cli_connect(call->ctx, &call->conn);
	call->ctx->context_opt = saved;
	return status;
}

/* `:context NAME`. */
static int connect_context(void *payload, const char *name,
			   struct ui_conn *out, char *err, size_t errsize)
{
	struct tui_payload *tp = payload;
	struct connect_call call = { .ctx = tp->ctx, .name = name };

	if (captured(connect_named, &call, err, errsize) != CLI_EXIT_OK)
		return -1;
	/* The watcher follows the context: the old link's goes, an ssh
	 * context gets its own. */
	cli_ssh_keeper_stop(tp->keeper);
	tp->keeper = call.conn.unix_socket
			     ? cli_ssh_keeper_start(call.conn.name,
						    call.conn.unix_socket)
			     : -1;
	tp->used_local |= call.conn.is_local;
	take_conn(&call.conn, out);
	return 0;
}

struct forward_call {
	const char *context, *remote;
	int port, cancel;
};

/* A forward of call->context's remote engine to a free local port, or
 * (cancel) the end of one; the context is read from the config again. */
static int forward_named(void *arg)
{
	struct forward_call *call = arg;
	struct cli_config cfg;
	const struct cli_context *c;
	int status;

	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		return status;
	if ((c = cli_config_find(&cfg, call->context)) == NULL || !c->ssh)
		status = cli_fail("context '%s' is not an ssh context",
				  call->context);
	else if (call->cancel)
		status = cli_ssh_forward_cancel(c, call->remote, call->port);
	else
		status = cli_ssh_forward_port(c, call->remote, &call->port);
	cli_config_dispose(&cfg);
	return status;
}

/* The reader's `O` (ui_start.forward). */
static int forward_context(void *payload, const struct ui_conn *conn,
			   char *err, size_t errsize)
{
	struct tui_payload *tp = payload;
	struct forward_call call = { conn->name, conn->remote_socket, 0, 0 };
	size_t n = tp->nforwards;

	if (conn->name == NULL || conn->remote_socket == NULL) {
		snprintf(err, errsize, "not an ssh context");
		return -1;
	}
	if (n == MAX_FORWARDS) {
		snprintf(err, errsize, "already %d ports forwarded",
			 MAX_FORWARDS);
		return -1;
	}
	if (captured(forward_named, &call, err, errsize) != CLI_EXIT_OK)
		return -1;
	tp->forwards[n].context = strdup(conn->name);
	tp->forwards[n].remote = strdup(conn->remote_socket);
	tp->forwards[n].port = call.port;
	if (tp->forwards[n].context && tp->forwards[n].remote)
		tp->nforwards++;
	return call.port;
}

/* The TUI quit: its forwards go (quietly; the master may be gone). */
static void end_forwards(struct tui_payload *tp)
{
	struct forward_call call;
	char err[MAX_MESSAGE];
	size_t i;

	for (i = 0; i < MAX_FORWARDS; i++) {
		if (i < tp->nforwards) {
			call = (struct forward_call){ tp->forwards[i].context,
						      tp->forwards[i].remote,
						      tp->forwards[i].port, 1 };
			captured(forward_named, &call, err, sizeof(err));
		}
		free(tp->forwards[i].context);
		free(tp->forwards[i].remote);
	}
}

/* The local engine was stopped on purpose (ui_start.stopped). */
static int local_stopped(void *payload)
{
	struct tui_payload *tp = payload;
	const char *dir = cli_data_dir(tp->ctx);

	return dir != NULL && cli_engine_stopped(dir);
}

/* "local" and every configured context's name, for completion; owned
 * array of borrowed-from-cfg strings. */
static const char **context_names(const struct cli_config *cfg, size_t *n)
{
	const char **names = calloc(cfg->len + 1, sizeof(*names));
	size_t i;

	*n = 0;
	if (names == NULL)
		return NULL;
	names[(*n)++] = CLI_CONTEXT_LOCAL;
	for (i = 0; i < cfg->len; i++)
		names[(*n)++] = cfg->contexts[i].name;
	return names;
}

/* What each of context_names' contexts talks to, for the TUI's
 * `:context` alone: the local engine, a URL or an ssh host, and whether
 * it is read-only; owned array of owned strings (NULL items when out of
 * memory), n of them. */
static char **context_targets(const struct cli_config *cfg, const char *dir,
			      size_t n)
{
	char **targets = calloc(n ? n : 1, sizeof(*targets));
	const struct cli_context *c;
	size_t i;

	if (targets == NULL)
		return NULL;
	if (asprintf(&targets[0], "the local engine (data in %s)",
		     dir ? dir : "?") < 0)
		targets[0] = NULL;
	for (i = 1; i < n; i++) {
		c = &cfg->contexts[i - 1];
		if (asprintf(&targets[i], "%s%s%s", c->ssh ? "ssh " : "",
			     c->ssh ? c->ssh : c->url ? c->url : "",
			     c->readonly ? " (read-only)" : "") < 0)
			targets[i] = NULL;
	}
	return targets;
}

static void free_targets(char **targets, size_t n)
{
	size_t i;

	for (i = 0; targets && i < n; i++)
		free(targets[i]);
	free(targets);
}

int cli_cmd_tui(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct cli_command self = {
		"tui", "[--theme NAME|FILE] [--readonly]", "", NULL, NULL, NULL
	};
	struct tui_payload payload = { .ctx = ctx, .keeper = -1 };
	struct ui_start start;
	struct cli_config cfg;
	struct cli_conn conn;
	const char **names = NULL;
	char **targets = NULL;
	char err[256];
	long port;
	int i, status;

	memset(&start, 0, sizeof(start));
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--theme") == 0 && i + 1 < argc)
			start.theme = argv[++i];
		else if (strncmp(argv[i], "--theme=", 8) == 0)
			start.theme = argv[i] + 8;
		else if (strcmp(argv[i], "--readonly") == 0)
			start.readonly = 1;
		else
			return cli_usage(&self);
	}
	if (ui_terminal_check(err, sizeof(err)) < 0) {
		cli_fail("%s", err);
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_connect(ctx, &conn)) != CLI_EXIT_OK)
		goto done;
	/* Through ssh, a watcher brings the link back when it drops. */
	if (conn.unix_socket)
		payload.keeper = cli_ssh_keeper_start(conn.name,
						      conn.unix_socket);
	payload.used_local = conn.is_local;
	take_conn(&conn, &start.conn);
	names = context_names(&cfg, &start.contexts_len);
	start.contexts = names;
	if (names)
		targets = context_targets(&cfg, cli_data_dir(ctx),
					  start.contexts_len);
	start.context_targets = (const char *const *)targets;
	start.connect = connect_context;
	start.stopped = local_stopped;
	start.forward = forward_context;
	start.payload = &payload;
	start.demo_repo = cli_demo_repo();
	start.data_dir = cli_data_dir(ctx);
	status = ui_main(&start) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	/* Quitting says what it leaves behind: the engine the TUI used
	 * (or started) goes on serving the docs. One line within 80
	 * columns. */
	if (status == CLI_EXIT_OK && payload.used_local &&
	    cli_engine_running(cli_data_dir(ctx), &port) != 0)
		printf("the local engine keeps running at "
		       "http://127.0.0.1:%ld ('lectern stop' stops it)\n",
		       port);
	ui_conn_dispose(&start.conn);
	end_forwards(&payload);
	cli_ssh_keeper_stop(payload.keeper);
done:
	free_targets(targets, start.contexts_len);
	free(names);
	cli_config_dispose(&cfg);
	return status;
}
