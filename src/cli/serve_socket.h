/*
 * The engine on a unix socket (serve_socket.c): the default socket path and
 * `lectern serve --detach`, the remote end of an ssh context.
 */
#ifndef LECTERN_CLI_SERVE_SOCKET_H
#define LECTERN_CLI_SERVE_SOCKET_H

struct cli_ctx;

/* $XDG_RUNTIME_DIR/lectern/engine.sock, else DATA/engine.sock; owned by
 * the caller (free), NULL when out of memory or without a data directory
 * (reported). */
char *cli_engine_socket_default(struct cli_ctx *ctx);
/* Whether something accepts connections on the unix socket at path. */
int cli_socket_answers(const char *path);
/* `serve --detach`: unless an engine answers on path, start `lectern serve
 * --socket path` with the serve options argv in a session of its own and
 * wait until it answers; then print "listening on unix:PATH". Reports
 * failures itself; returns a CLI_EXIT_* status. */
int cli_serve_detach(struct cli_ctx *ctx, const char *path, int argc,
		     char **argv);

#endif
