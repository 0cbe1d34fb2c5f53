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
	to->link_name = from->link_name;
	to->forward_hint = from->forward_hint;
	to->readonly = from->readonly;
	from->name = from->base_url = from->docs_url = from->token = NULL;
	from->unix_socket = from->link_name = from->forward_hint = NULL;
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

/* `:context NAME`. cli_connect reports errors on stderr, which would
 * scribble over the screen, so stderr goes to a temporary file for the
 * call and the message comes back through err. */
static int connect_context(void *payload, const char *name,
			   struct ui_conn *out, char *err, size_t errsize)
{
	struct cli_ctx *ctx = payload;
	struct cli_conn conn;
	const char *saved = ctx->context_opt;
	FILE *capture = tmpfile();
	int old_stderr = -1, status;

	if (capture == NULL || (old_stderr = dup(STDERR_FILENO)) < 0) {
		snprintf(err, errsize, "cannot switch context: out of resources");
		if (capture)
			fclose(capture);
		return -1;
	}
	fflush(stderr);
	dup2(fileno(capture), STDERR_FILENO);
	ctx->context_opt = name;
	status = cli_connect(ctx, &conn);
	ctx->context_opt = saved;
	fflush(stderr);
	dup2(old_stderr, STDERR_FILENO);
	close(old_stderr);
	if (status != CLI_EXIT_OK)
		last_line(capture, err, errsize);
	else
		take_conn(&conn, out);
	fclose(capture);
	return status == CLI_EXIT_OK ? 0 : -1;
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

int cli_cmd_tui(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct cli_command self = { "tui", "[--theme NAME|FILE] [--readonly]",
						 "", NULL };
	struct ui_start start;
	struct cli_config cfg;
	struct cli_conn conn;
	const char **names = NULL;
	long keeper = -1;
	char err[256];
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
		keeper = cli_ssh_keeper_start(conn.name, conn.unix_socket);
	take_conn(&conn, &start.conn);
	names = context_names(&cfg, &start.contexts_len);
	start.contexts = names;
	start.connect = connect_context;
	start.payload = ctx;
	start.demo_repo = cli_demo_repo();
	start.data_dir = cli_data_dir(ctx);
	status = ui_main(&start) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	ui_conn_dispose(&start.conn);
	cli_ssh_keeper_stop(keeper);
done:
	free(names);
	cli_config_dispose(&cfg);
	return status;
}
