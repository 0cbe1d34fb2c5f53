/*
 * `lectern serve`: run the engine's HTTP server in the foreground until
 * SIGINT or SIGTERM, then stop cleanly (in-flight requests finish, every
 * store handle closes). The first line on stdout names the address, so a
 * script or test that asked for port 0 learns the port.
 *
 * --local-engine makes it the data directory's local engine, the one the
 * CLI and the TUI use (autostart.c): it refuses to start while another
 * runs for the directory and records its pid and port there under the
 * directory's lock, so an engine systemd started (packaging/systemd/) is
 * found and never doubled. It leaves its records behind when it stops;
 * the CLI knows them as stale once the pid is gone.
 *
 * --socket PATH serves on a 0600 unix socket instead of a port, where a
 * connection from the engine's own uid acts as the local user without a
 * token; with --listen or --local-engine it serves on both. A local engine
 * always has a socket (DATA/engine.sock unless --socket names one), so one
 * engine serves a data directory both for the CLI here and for an ssh
 * context. --print-socket names the socket and --detach starts an engine
 * there in the background unless the data directory's engine already
 * answers (serve_socket.c): the remote end of an ssh context.
 * --trust-forwarded builds links from a reverse proxy's Forwarded /
 * X-Forwarded-* headers. Every option is a row of serve_options.c.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"
#include "lectern/pipeline.h"
#include "lectern/user.h"
#include "serve_options.h"
#include "serve_socket.h"
#include "server.h"
#include "version.h"

/* --local-engine: take the data directory's lock; -1 after reporting that
 * it could not, or that an engine already runs there. The caller records
 * itself and closes the lock. */
static int claim_local_engine(const char *dir)
{
	long pid, port;
	int fd = cli_engine_lock(dir);

	if (fd >= 0 && (pid = cli_engine_running(dir, &port)) != 0) {
		cli_fail("serve: the local engine of %s already runs (pid %ld, "
			 "port %ld); 'lectern stop' stops it", dir, pid, port);
		close(fd);
		fd = -1;
	}
	return fd;
}

/* --socket, --print-socket and --detach: the socket path (the default
 * one, owned by *owned, when none is given), and the options they do not
 * go with. */
static int socket_mode(struct cli_ctx *ctx, struct serve_settings *s,
		       char **owned)
{
	struct srv_config *cfg = &s->srv;

	if ((s->print_socket || s->detach) && cfg->socket_path == NULL) {
		if ((*owned = cli_engine_socket_default(ctx)) == NULL)
			return cli_fail("serve: no socket path (out of memory "
					"or no data directory)");
		cfg->socket_path = *owned;
	}
	if ((s->print_socket || s->detach) && (s->listen || s->local_engine))
		return cli_fail("serve: --print-socket and --detach do not go "
				"with --listen or --local-engine");
	if (s->local_engine && cfg->socket_path == NULL &&
	    cli_data_dir(ctx) != NULL)
		cfg->socket_path = *owned =
			cli_engine_socket_path(cli_data_dir(ctx));
	cfg->socket_and_tcp = cfg->socket_path && (s->listen || s->local_engine);
	return CLI_EXIT_OK;
}

/* --detach: the engine started in the background gets every option but
 * --detach and --socket, which it is given. */
static int detach(struct cli_ctx *ctx, const char *path, int argc,
		  char **argv)
{
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int i, n = 0, status;

	if (rest == NULL)
		return cli_fail("out of memory");
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--detach") == 0)
			continue;
		if (strcmp(argv[i], "--socket") == 0) {
			i++;
			continue;
		}
		rest[n++] = argv[i];
	}
	status = cli_serve_detach(ctx, path, n, rest);
	free(rest);
	return status;
}

/* The user the socket's owner acts as: the local user the CLI's engine
 * uses, created if missing. */
/* How long the start may spend checking the store's pages: a few
 * seconds cover stores of a few GB; a larger one is checked in part. */
#define STORE_CHECK_MS 3000

/* A damaged store is refused before anything writes to it. */
static int check_store(struct lec_store *st)
{
	int complete = 0;

	if (lec_store_check(st, STORE_CHECK_MS, &complete) < 0)
		return cli_fail_engine("serve: refusing to start");
	if (!complete)
		fprintf(stderr, "lectern serve: the store is large: its first "
				"%d ms of pages were checked\n",
			STORE_CHECK_MS);
	return CLI_EXIT_OK;
}

static int owner_user(struct cli_ctx *ctx, int64_t *id)
{
	struct lec_user *user = NULL;
	int status = CLI_EXIT_OK;

	if (cli_local_user(cli_store(ctx), &user) < 0)
		status = cli_fail_engine("serve: cannot create the local user");
	else
		*id = user->id;
	lec_user_free(user);
	return status;
}

/* Pipeline messages that belong to no build (a failed version sync). */
static void log_line(void *payload, const char *message)
{
	(void)payload;
	fprintf(stderr, "lectern serve: %s\n", message);
}

static int start_pipeline(struct lec_pipeline **out,
			  struct lec_pipeline_config *pcfg, struct srv *srv,
			  const char *data_dir)
{
	const char *base = srv_base_url(srv);

	pcfg->data_dir = data_dir;
	pcfg->docs_domain = srv_docs_domain_of(srv);
	pcfg->external_domain = srv_external_domain_of(srv);
	pcfg->production_domain =
		strncmp(base, "http://", 7) == 0 ? base + 7 : base;
	pcfg->log = log_line;
	if (lec_pipeline_start(out, pcfg) < 0) {
		/* Another server already builds for this data directory: serve
		 * the API, and let that one run the builds. */
		if (lec_error_last_code() == LEC_EBUSY) {
			fprintf(stderr, "lectern serve: %s; serving the API "
					"without build workers\n",
				lec_error_last());
			return CLI_EXIT_OK;
		}
		return cli_fail_engine("cannot start the build workers");
	}
	fprintf(stderr, "lectern serve: builds use %s\n",
		lec_pipeline_python(*out) ? lec_pipeline_python(*out)
					  : "no Python with Sphinx or MkDocs "
					    "(Markdown builds only)");
	return CLI_EXIT_OK;
}

int cli_cmd_serve(struct cli_ctx *ctx, int argc, char **argv)
{
	struct serve_settings s;
	struct srv_config *cfg = &s.srv;
	struct lec_pipeline_config *pcfg = &s.pipeline;
	struct lec_pipeline *pipeline = NULL;
	struct srv *srv = NULL;
	char *default_roots = NULL, *socket_path = NULL;
	sigset_t stop_signals;
	int sig, status, lock_fd = -1;

	/* What the documentation must list (tests/cli/test_serve_options.sh):
	 * not an option, so on its own. */
	if (argc == 1 && strcmp(argv[0], "--options-table") == 0) {
		serve_options_table(stdout);
		return CLI_EXIT_OK;
	}
	serve_settings_init(&s);
	if ((status = serve_settings_parse(&s, argc, argv)) != 0)
		goto done;
	if ((status = socket_mode(ctx, &s, &socket_path)) != 0 ||
	    s.print_socket) {
		if (s.print_socket && status == 0)
			printf("%s\n", cfg->socket_path);
		goto done;
	}
	if (s.detach) {
		status = detach(ctx, cfg->socket_path, argc, argv);
		goto done;
	}
	/* The local engine, and the owner's engine on a socket, take what the
	 * one the CLI starts would. */
	if ((s.local_engine || cfg->socket_path) && s.roots.n == 0 &&
	    ((default_roots = cli_local_roots()) == NULL ||
	     (status = serve_local_roots_add(&s.roots, default_roots)) != 0)) {
		status = default_roots ? status : cli_fail("out of memory");
		goto done;
	}
	/* Checked at import (the server) and again at clone (the pipeline). */
	cfg->local_roots = s.roots.dirs;
	pcfg->local_roots = s.roots.dirs;
	/* Open (and migrate) the store once up front, so a bad data
	 * directory or a damaged store fails here and not on the first
	 * request, before anything is written. */
	if (cli_store(ctx) == NULL ||
	    (status = check_store(cli_store(ctx))) != CLI_EXIT_OK) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	cfg->data_dir = cli_data_dir(ctx);
	if (cfg->socket_path &&
	    (status = owner_user(ctx, &cfg->owner_user_id)) != CLI_EXIT_OK)
		goto done;
	if (s.local_engine && (lock_fd = claim_local_engine(cfg->data_dir)) < 0) {
		status = CLI_EXIT_FAIL;
		goto done;
	}

	/* Block the stop signals before the server's threads start, so they
	 * inherit the mask and only sigwait below sees them. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	signal(SIGPIPE, SIG_IGN);

	cfg->version = LECTERN_VERSION;
	if (srv_start(&srv, cfg) < 0) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	if (!s.no_workers &&
	    (status = start_pipeline(&pipeline, pcfg, srv, cfg->data_dir)) !=
		    0) {
		srv_stop(srv);
		goto done;
	}
	/* None when another engine builds for the data directory. */
	srv_set_workers(srv, pipeline ? (int)lec_pipeline_workers(pipeline) : 0);
	if (s.local_engine) {
		status = cli_engine_record(cfg->data_dir, (long)getpid(),
					   (long)srv_port(srv), cfg->socket_path);
		close(lock_fd);
		lock_fd = -1;
		if (status != CLI_EXIT_OK) {
			srv_stop(srv);
			lec_pipeline_stop(pipeline);
			goto done;
		}
	}
	if (cfg->socket_and_tcp) {
		printf("listening on %s/\n", srv_base_url(srv));
		fflush(stdout);
		fprintf(stderr, "lectern serve: data in %s; API at %s/api/v3/ "
				"and on the unix socket %s (mode 0600: its "
				"owner's); Ctrl-C stops\n", cfg->data_dir,
			srv_base_url(srv), cfg->socket_path);
	} else if (cfg->socket_path) {
		printf("listening on unix:%s\n", cfg->socket_path);
		fflush(stdout);
		fprintf(stderr, "lectern serve: data in %s; API on the unix "
				"socket %s (mode 0600: its owner's); Ctrl-C "
				"stops\n", cfg->data_dir, cfg->socket_path);
	} else {
		printf("listening on %s/\n", srv_base_url(srv));
		fflush(stdout);
		/* The token goes to this data directory's store, so the
		 * command names it when it is not the default one. */
		fprintf(stderr,
			"lectern serve: data in %s; API at %s/api/v3/; "
			"create a token with 'lectern%s%s%s token create "
			"USER'; Ctrl-C stops\n",
			cfg->data_dir, srv_base_url(srv),
			ctx->data_dir_opt ? " --data '" : "",
			ctx->data_dir_opt ? cfg->data_dir : "",
			ctx->data_dir_opt ? "'" : "");
	}
	sigwait(&stop_signals, &sig);
	fprintf(stderr, "lectern serve: %s, stopping\n",
		sig == SIGINT ? "interrupted" : "terminated");
	/* Requests first, so nothing queues new work while the workers
	 * stop. */
	srv_stop(srv);
	lec_pipeline_stop(pipeline);
	/* The data directory's local engine stopped by someone (`lectern
	 * stop`, systemd, a kill): an open TUI leaves it stopped. */
	cli_engine_stopping(cfg->data_dir, (long)getpid());
	status = CLI_EXIT_OK;
done:
	if (lock_fd >= 0)
		close(lock_fd);
	free(default_roots);
	free(socket_path);
	serve_settings_dispose(&s);
	return status;
}
