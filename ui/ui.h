/*
 * The TUI's entry point, as the CLI calls it. The ui library knows
 * nothing of contexts, config files of the CLI or the engine: the caller
 * resolves a context into a connection and hands it over, with a callback
 * that resolves another one when the user types `:context NAME`.
 */
#ifndef LECTERN_UI_H
#define LECTERN_UI_H

#include <stddef.h>

/* What one context resolves to. Strings are owned by the struct; the
 * token is wiped when ui_conn_dispose frees it. */
struct ui_conn {
	char *name;        /* the context's name */
	char *api_url;     /* API base URL */
	char *docs_domain; /* docs host (search, pages), or NULL */
	char *token;       /* API token, or NULL */
	char *unix_socket; /* an ssh context's forwarded socket, or NULL */
	char *remote_socket; /* ... and the engine's socket over there */
	char *link_name;   /* what the socket leads to, for messages */
	/* ssh: the command forwarding a local port ("PORT") to the remote
	 * engine, which the reader's `o` shows; NULL otherwise */
	char *forward_hint;
	int forward_port;  /* the local port the reader's `O` forwarded, 0 */
	int readonly;      /* the context refuses every change */
	/* The CLI's local engine: when it stops answering, connect() is
	 * asked again, which finds it (its port may have changed) or starts
	 * it, as any CLI command would. */
	int local;
};

void ui_conn_dispose(struct ui_conn *conn);

struct ui_start {
	struct ui_conn conn;  /* the first context; the TUI takes it over */
	const char *theme;    /* --theme NAME|FILE, or NULL */
	/* The TUI's config file (theme, key bindings), or NULL for the
	 * default: $LECTERN_TUI_CONFIG, then $XDG_CONFIG_HOME/lectern/tui,
	 * then ~/.config/lectern/tui. */
	const char *config_path;
	int readonly;         /* --readonly: every write key says why not */
	/* The git repository the Projects screen's demo imports (an empty
	 * local engine's first run), or NULL: no demo. */
	const char *demo_repo;
	/* The CLI's data directory (its local engine's), given to the
	 * background `lectern mirror add` that `m` starts; NULL: the
	 * child's default. */
	const char *data_dir;
	const char *const *contexts; /* context names for completion */
	/* What each talks to, for `:context` alone ("the local engine", a
	 * URL, "ssh HOST"; NULL: not said); contexts_len of them, or NULL. */
	const char *const *context_targets;
	size_t contexts_len;
	/* Resolve context name into *out; 0, or -1 with a one-line message
	 * in err. NULL: `:context` is not available. */
	int (*connect)(void *payload, const char *name, struct ui_conn *out,
		       char *err, size_t errsize);
	/* Whether the local context's engine was stopped on purpose (`lectern
	 * stop`, a stop signal) and none runs now: the TUI then says so and
	 * waits for the user's R instead of starting it again itself. NULL:
	 * never. */
	int (*stopped)(void *payload);
	/* Forward a free local port to conn's remote engine (an ssh
	 * context), for a browser here; the port, or -1 with a one-line
	 * message in err. NULL: not offered. */
	int (*forward)(void *payload, const struct ui_conn *conn, char *err,
		       size_t errsize);
	void *payload;
};

/*
 * Run the TUI until the user quits. Takes start->conn over (disposes it).
 * @return 0, or 1 after printing why it could not start (no terminal,
 *         bad API URL)
 */
int ui_main(struct ui_start *start);

/*
 * Whether the terminal on stdout can show the TUI at all: a terminfo entry
 * with cursor addressing (`cup`). TERM=dumb has none. Call it before
 * starting anything the TUI would use.
 * @return 0, or -1 with one line in err
 */
int ui_terminal_check(char *err, size_t errsize);

#endif
