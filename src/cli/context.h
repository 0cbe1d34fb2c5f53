/*
 * Contexts: which Lectern or hosted-service instance a command talks to.
 * The config file ($XDG_CONFIG_HOME/lectern/config) names remote contexts;
 * "local" is always there and means the local engine, started in the
 * background on first use (autostart.c). A context resolves into a
 * connection: the API base URL, the docs domain for search, and a token
 * that is never put on a command line and never printed.
 */
#ifndef LECTERN_CLI_CONTEXT_H
#define LECTERN_CLI_CONTEXT_H

#include <stddef.h>

struct cli_ctx;

/* The implicit context of the local engine; it cannot be added or removed. */
#define CLI_CONTEXT_LOCAL "local"

/* One remote context as the config file declares it. */
struct cli_context {
	char *name;        /* [context NAME] */
	char *url;         /* API base URL, no trailing slash */
	char *docs_domain; /* host[:port] serving docs and search, or NULL */
	char *token_env;   /* token from this environment variable, or NULL */
	char *token_file;  /* token from this 0600 file, or NULL */
	int readonly;      /* refuse every request that is not a GET */
	int line;          /* where the section starts, for error messages */
	/* An ssh context (ssh.c) instead of url and a token: */
	char *ssh;            /* [USER@]HOST[:PORT], or NULL */
	char *remote_command; /* the remote lectern, NULL: on its PATH */
	char *ssh_options;    /* extra ssh arguments, split on spaces */
};

struct cli_config {
	char *path;                    /* the file, existing or not */
	char *current;                 /* current-context, NULL: local */
	/* local-workers: the build workers of the engine the CLI starts for
	 * the local context; -1 when unset (serve's default). */
	int local_workers;
	struct cli_context *contexts;  /* declared remote contexts */
	size_t len;
};

/* What one command talks to, resolved from a context. */
struct cli_conn {
	char *name;     /* the context's name */
	char *base_url; /* API base URL, no trailing slash */
	char *docs_url; /* scheme://docs-domain (docs and search), or NULL
			 * for the client's default (the API's host; for
			 * loopback, localhost:<port>) */
	char *token;    /* API token; wiped on dispose */
	char *unix_socket; /* ssh context: the forwarded engine socket */
	char *remote_socket; /* ssh context: the engine's socket there */
	char *link_name;   /* ssh context: "ssh context NAME", for messages */
	/* ssh context: the ssh command that forwards a local port to the
	 * remote engine, with "PORT" for the port, so a browser here can
	 * open its pages ("ssh -N -L PORT:/run/.../engine.sock host") */
	char *forward_hint;
	int readonly;
	int is_local;
};

/* Read the config file (a missing file is an empty config). On a syntax
 * error reports "PATH:LINE: what" and returns CLI_EXIT_FAIL. */
int cli_config_load(struct cli_config *cfg);
/* Write the config file back (mode 0600, atomically). */
int cli_config_save(const struct cli_config *cfg);
void cli_config_dispose(struct cli_config *cfg);
/* The named remote context, or NULL. */
struct cli_context *cli_config_find(const struct cli_config *cfg,
				    const char *name);

/* The name of the context this invocation uses: --context,
 * LECTERN_CONTEXT, current-context, else local. Valid while ctx, cfg and
 * the environment are. */
const char *cli_context_chosen(const struct cli_ctx *ctx,
			       const struct cli_config *cfg);
/* Resolve the context this invocation uses (cli_context_chosen) into
 * *conn; for local, start the engine if needed. Reports errors itself;
 * returns a CLI_EXIT_* status. */
int cli_connect(struct cli_ctx *ctx, struct cli_conn *conn);
void cli_conn_dispose(struct cli_conn *conn);


/* `lectern context ...` */
int cli_cmd_context_list(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_context_use(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_context_remove(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_context_add(struct cli_ctx *ctx, int argc, char **argv);

/* An ssh context (ssh.c): make sure the remote engine runs (starting it
 * detached), that one shared ssh master connection is up and that it
 * forwards a local unix socket to the engine's; fill conn's unix_socket,
 * base_url and link_name. Reports errors itself in one line; returns a
 * CLI_EXIT_* status. Never waits on a prompt (BatchMode). */
int cli_ssh_connect(const struct cli_context *c, struct cli_conn *conn);
/* `lectern tui` through an ssh context: a child process that watches the
 * link and re-runs cli_ssh_connect when the master or the remote engine
 * is gone, so the TUI's requests work again once the link is back. The
 * pid to stop with cli_ssh_keeper_stop, or -1 when none was started. */
/* The reader's `O`: a free local TCP port (127.0.0.1) forwarded through
 * the context's master to the remote engine's socket (remote), so a
 * browser here opens its pages; only the local master is asked, so it is
 * quick. Errors are reported (cli_fail). */
int cli_ssh_forward_port(const struct cli_context *c, const char *remote,
			 int *port);
/* The end of such a forward (when the TUI quits). */
int cli_ssh_forward_cancel(const struct cli_context *c, const char *remote,
			   int port);
long cli_ssh_keeper_start(const char *name, const char *unix_socket);
/* `lectern stop` through an ssh context: `REMOTE stop` on its host
 * through the master, its line printed as that machine's ("on HOST:
 * stopped the local engine (pid N)"). A CLI_EXIT_* status; errors are
 * reported. */
int cli_ssh_stop(const struct cli_context *c);
void cli_ssh_keeper_stop(long pid);

/* mkdir -p of the directories above a file, each 0700 (the data and
 * config directories hold tokens); the path is restored. 0, or -1 with
 * errno (autostart.c). */
int cli_make_dirs(char *file);

/* The local user an engine's own connections act as: named after $USER, or
 * "local" when $USER is not a valid username; created when missing
 * (autostart.c). *out is the caller's (lec_user_free). */
struct lec_store;
struct lec_user;
int cli_local_user(struct lec_store *store, struct lec_user **out);

/* The local engine (autostart.c): make sure one runs for the data
 * directory and hand back its base URL and the local user's token (both
 * caller-owned). */
int cli_local_engine(struct cli_ctx *ctx, int workers, char **base_url,
		     char **token);
/* After `token revoke`: forget the local user's token (cli-token) when
 * the store no longer knows it, so that the next command makes a new one
 * instead of failing with 401 (autostart.c). */
void cli_local_token_recheck(struct cli_ctx *ctx);
/* `lectern stop` of the local context: stop the background engine of the
 * data directory (autostart.c). */
int cli_local_engine_stop(struct cli_ctx *ctx);

/* The local engine's records in the data directory dir (autostart.c),
 * shared with `lectern serve --local-engine`, which records itself so that
 * an engine systemd started is the one the CLI finds. Lock: take the
 * directory's serve.lock (creating the directory); the fd to close, or -1
 * after reporting why. Running: the pid of the recorded engine when it is
 * alive and its port answers (*port set), else 0. Record and forget write
 * and remove serve.pid, serve.port and serve.socket (the engine's unix
 * socket, beside its port: socket NULL records none); call them under the
 * lock. Socket: the recorded socket path (owned), or NULL. */
int cli_engine_lock(const char *dir);
long cli_engine_running(const char *dir, long *port);
int cli_engine_record(const char *dir, long pid, long port,
		      const char *socket);
char *cli_engine_socket(const char *dir);
void cli_engine_forget(const char *dir);
/* A stop signal is ending the engine pid: when it is the recorded one,
 * note that it was stopped on purpose (serve.stopped), which the next
 * record undoes. Stopped: noted so, and no engine runs now; what an open
 * TUI asks before it would start the engine again on its own. */
void cli_engine_stopping(const char *dir, long pid);
int cli_engine_stopped(const char *dir);
/* DATA/engine.sock, the socket the data directory's local engine serves
 * beside its port; owned, NULL when out of memory or when the path is too
 * long for a unix socket (the engine then has none). */
char *cli_engine_socket_path(const char *dir);
/* The --local-repos value of the local engine: home, the temporary
 * directory and the demo's repository; owned (free()), NULL when out of
 * memory. */
char *cli_local_roots(void);

/* Installed assets (datadir.c): the directory, $LECTERN_DATADIR or
 * ../share/lectern beside the executable's directory, NULL when there is
 * none; the git repository the TUI's demo imports (the installed demo.git,
 * else the one its build made), or NULL. */
const char *cli_assets_dir(void);
const char *cli_demo_repo(void);

#endif
