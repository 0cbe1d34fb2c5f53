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
 * answers (serve_socket.c): the remote end of an ssh context. --trust-forwarded builds links from a
 * reverse proxy's Forwarded / X-Forwarded-* headers.
 */
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"
#include "lectern/pipeline.h"
#include "lectern/user.h"
#include "serve_socket.h"
#include "server.h"

/* Directories --local-repos may list: a home, the temporary directory and
 * a few shared checkouts; a longer list is better served by their common
 * parent. */
#define LOCAL_ROOTS_MAX 16

/* The --local-repos directories, NULL-terminated, split from copies of
 * the option values (argv stays as given, for ps). */
struct local_roots {
	const char *dirs[LOCAL_ROOTS_MAX + 1]; /* into copies */
	char *copies[LOCAL_ROOTS_MAX];         /* owned */
	size_t n, ncopies;
};

static int too_many_roots(void)
{
	return cli_fail("serve: --local-repos lists at most %d directories",
			LOCAL_ROOTS_MAX);
}

/* Add DIR[:DIR...]: absolute directories only, since a relative one would
 * depend on where the server started. */
static int add_local_roots(struct local_roots *roots, const char *val)
{
	char *copy, *dir, *next;

	/* Each value adds a directory, so ncopies <= n < LOCAL_ROOTS_MAX. */
	if (roots->n == LOCAL_ROOTS_MAX)
		return too_many_roots();
	if ((copy = strdup(val)) == NULL)
		return cli_fail("out of memory");
	roots->copies[roots->ncopies++] = copy;
	for (dir = copy; dir; dir = next) {
		if ((next = strchr(dir, ':')) != NULL)
			*next++ = '\0';
		if (dir[0] != '/')
			return cli_fail("serve: --local-repos wants absolute "
					"directories, got '%s'",
					dir);
		if (roots->n == LOCAL_ROOTS_MAX)
			return too_many_roots();
		roots->dirs[roots->n++] = dir;
	}
	return CLI_EXIT_OK;
}

static void local_roots_dispose(struct local_roots *roots)
{
	size_t i;

	for (i = 0; i < roots->ncopies; i++)
		free(roots->copies[i]);
}

/* Split "HOST:PORT" or "[V6]:PORT" in place. */
static int parse_listen(char *spec, const char **host, unsigned short *port)
{
	char *colon, *end;
	unsigned long p;

	if (spec[0] == '[') {
		char *close = strchr(spec, ']');

		if (close == NULL || close[1] != ':')
			return -1;
		*close = '\0';
		*host = spec + 1;
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (colon == NULL)
			return -1;
		*colon = '\0';
		*host = spec;
	}
	p = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || colon[1] == '\0' || p > 65535)
		return -1;
	*port = (unsigned short)p;
	return 0;
}

/* An unsigned option value within [min, max]. */
static int parse_count(const char *opt, const char *val, unsigned long min,
		       unsigned long max, unsigned long *out)
{
	char *end;

	*out = strtoul(val, &end, 10);
	if (*val == '\0' || *end || *out < min || *out > max)
		return cli_fail("serve: %s wants %lu to %lu, got '%s'", opt, min,
				max, val);
	return CLI_EXIT_OK;
}

/* The build limits `lectern serve` sets: one row each, a field of struct
 * lec_runner_limits, its range as typed, and the shift from the typed unit
 * (MiB options: 20). */
struct limit_option {
	const char *name;
	unsigned long min, max;
	unsigned shift;
	size_t offset;
	int is_size; /* size_t field (else unsigned) */
};

#define LIMIT_FIELD(f) offsetof(struct lec_runner_limits, f)
static const struct limit_option limit_options[] = {
	{ "--build-timeout", 1, 24 * 3600, 0, LIMIT_FIELD(time_limit_s), 0 },
	{ "--build-memory", 64, 1024 * 1024, 20, LIMIT_FIELD(memory_bytes), 1 },
	{ "--build-output", 1, 1024, 20, LIMIT_FIELD(output_bytes), 1 },
	{ "--build-processes", 8, 65536, 0, LIMIT_FIELD(nproc), 0 },
	{ "--build-open-files", 64, 1024 * 1024, 0, LIMIT_FIELD(nofile), 0 },
	{ "--build-file-size", 1, 1024 * 1024, 20, LIMIT_FIELD(fsize_bytes), 1 },
	{ "--build-cpu", 1, 24 * 3600, 0, LIMIT_FIELD(cpu_s), 0 },
	{ "--build-tmp", 1, 1024 * 1024, 20, LIMIT_FIELD(tmp_bytes), 1 },
	{ "--build-disk", 1, 16 * 1024 * 1024, 20, LIMIT_FIELD(disk_bytes), 1 },
};

/* A build limit option: 1 when opt is one (and it was set or failed). */
static int parse_limit(const char *opt, const char *val,
		       struct lec_runner_limits *limits, int *status)
{
	size_t i;
	unsigned long n;

	for (i = 0; i < sizeof(limit_options) / sizeof(limit_options[0]); i++) {
		const struct limit_option *o = &limit_options[i];
		char *field = (char *)limits + o->offset;

		if (strcmp(opt, o->name) != 0)
			continue;
		*status = parse_count(opt, val, o->min, o->max, &n);
		if (*status == CLI_EXIT_OK && o->is_size)
			*(size_t *)(void *)field = (size_t)n << o->shift;
		else if (*status == CLI_EXIT_OK)
			*(unsigned *)(void *)field = (unsigned)n;
		return 1;
	}
	return 0;
}

/* --build-user UID:GID (numbers: the build user needs no account). */
static int parse_build_user(const char *val, struct lec_pipeline_config *pcfg)
{
	unsigned long uid, gid;
	char *end;

	uid = strtoul(val, &end, 10);
	if (end == val || *end != ':' || uid == 0 || uid > 0xfffffffeUL)
		return cli_fail("serve: --build-user wants UID:GID (not 0), got "
				"'%s'", val);
	val = end + 1;
	gid = strtoul(val, &end, 10);
	if (end == val || *end || gid == 0 || gid > 0xfffffffeUL)
		return cli_fail("serve: --build-user wants UID:GID (not 0), got "
				"'%s'", val);
	pcfg->build_uid = (unsigned)uid;
	pcfg->build_gid = (unsigned)gid;
	return CLI_EXIT_OK;
}

/* The ways `lectern serve` runs besides the foreground TCP engine. */
struct serve_mode {
	int local_engine;     /* --local-engine */
	int print_socket;     /* --print-socket: print the path, exit */
	int detach;           /* --detach: make sure one runs on the socket */
	int listen;           /* --listen given (not with --socket) */
};

static int parse_options(int argc, char **argv, struct srv_config *cfg,
			 struct lec_pipeline_config *pcfg, int *no_workers,
			 struct serve_mode *mode, char **listen_copy,
			 struct local_roots *roots)
{
	/* The options that take no value. */
	const struct {
		const char *name;
		int *set;
	} flags[] = {
		{ "--offline", &pcfg->offline },
		{ "--no-watch", &pcfg->no_watch },
		{ "--no-inotify", &pcfg->watch_no_inotify },
		{ "--local-engine", &mode->local_engine },
		{ "--print-socket", &mode->print_socket },
		{ "--detach", &mode->detach },
		{ "--trust-forwarded", &cfg->trust_forwarded },
	};
	unsigned long n;
	size_t f;
	int i, status;

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			if (strcmp(opt, flags[f].name) == 0)
				break;
		if (f < sizeof(flags) / sizeof(flags[0])) {
			*flags[f].set = 1;
			continue;
		}
		if (val == NULL)
			return cli_fail("serve: %s needs a value", opt);
		if (parse_limit(opt, val, &pcfg->limits, &status)) {
			if (status != CLI_EXIT_OK)
				return status;
		} else if (strcmp(opt, "--build-user") == 0) {
			if (parse_build_user(val, pcfg))
				return CLI_EXIT_FAIL;
		} else if (strcmp(opt, "--watch-debounce") == 0) {
			if (parse_count(opt, val, 1, 60000, &n))
				return CLI_EXIT_FAIL;
			pcfg->watch_debounce_ms = (unsigned)n;
		} else if (strcmp(opt, "--watch-poll") == 0) {
			if (parse_count(opt, val, 1, 600000, &n))
				return CLI_EXIT_FAIL;
			pcfg->watch_poll_ms = (unsigned)n;
		} else if (strcmp(opt, "--keep-builds") == 0) {
			if (parse_count(opt, val, 1, 1000, &n))
				return CLI_EXIT_FAIL;
			pcfg->keep_builds = (unsigned)n;
			cfg->keep_builds = (unsigned)n;
		} else if (strcmp(opt, "--webhook-backoff") == 0) {
			/* Milliseconds: tests set a few, so retries come
			 * quickly. */
			if (parse_count(opt, val, 1, 3600000, &n))
				return CLI_EXIT_FAIL;
			cfg->webhook_backoff_ms = (unsigned)n;
		} else if (strcmp(opt, "--webhook-timeout") == 0) {
			if (parse_count(opt, val, 100, 600000, &n))
				return CLI_EXIT_FAIL;
			cfg->webhook_timeout_ms = (unsigned)n;
		} else if (strcmp(opt, "--socket") == 0) {
			if (val[0] != '/')
				return cli_fail("serve: --socket wants an "
						"absolute path, got '%s'", val);
			cfg->socket_path = val;
		} else if (strcmp(opt, "--listen") == 0) {
			mode->listen = 1;
			free(*listen_copy);
			*listen_copy = strdup(val);
			if (*listen_copy == NULL ||
			    parse_listen(*listen_copy, &cfg->listen_host,
					 &cfg->port) < 0)
				return cli_fail("serve: --listen wants HOST:PORT, "
						"got '%s'", val);
		} else if (strcmp(opt, "--edition") == 0) {
			if (strcmp(val, "community") == 0)
				cfg->edition = SRV_EDITION_COMMUNITY;
			else if (strcmp(val, "business") == 0)
				cfg->edition = SRV_EDITION_BUSINESS;
			else
				return cli_fail("serve: --edition is community "
						"or business, not '%s'", val);
		} else if (strcmp(opt, "--docs-domain") == 0) {
			cfg->docs_domain = val;
		} else if (strcmp(opt, "--threads") == 0) {
			if (parse_count(opt, val, 1, 256, &n))
				return CLI_EXIT_FAIL;
			cfg->threads = (unsigned)n;
		} else if (strcmp(opt, "--workers") == 0) {
			/* 0: an API-only instance that queues builds and runs
			 * none. */
			if (parse_count(opt, val, 0, LEC_PIPELINE_MAX_WORKERS,
					&n))
				return CLI_EXIT_FAIL;
			pcfg->workers = (unsigned)n;
			*no_workers = n == 0;
		} else if (strcmp(opt, "--local-repos") == 0) {
			if (add_local_roots(roots, val))
				return CLI_EXIT_FAIL;
		} else {
			return cli_fail("serve: unknown option '%s'", opt);
		}
		i++;
	}
	return CLI_EXIT_OK;
}

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
static int socket_mode(struct cli_ctx *ctx, struct srv_config *cfg,
		       const struct serve_mode *mode, char **owned)
{
	if ((mode->print_socket || mode->detach) && cfg->socket_path == NULL) {
		if ((*owned = cli_engine_socket_default(ctx)) == NULL)
			return cli_fail("serve: no socket path (out of memory "
					"or no data directory)");
		cfg->socket_path = *owned;
	}
	if ((mode->print_socket || mode->detach) &&
	    (mode->listen || mode->local_engine))
		return cli_fail("serve: --print-socket and --detach do not go "
				"with --listen or --local-engine");
	if (mode->local_engine && cfg->socket_path == NULL &&
	    cli_data_dir(ctx) != NULL)
		cfg->socket_path = *owned =
			cli_engine_socket_path(cli_data_dir(ctx));
	cfg->socket_and_tcp = cfg->socket_path &&
			      (mode->listen || mode->local_engine);
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
	struct srv_config cfg = { 0 };
	struct lec_pipeline_config pcfg = { 0 };
	struct lec_pipeline *pipeline = NULL;
	struct local_roots roots = { 0 };
	struct srv *srv = NULL;
	struct serve_mode mode = { 0 };
	char *listen_copy = NULL, *default_roots = NULL, *socket_path = NULL;
	sigset_t stop_signals;
	int sig, status, no_workers = 0, lock_fd = -1;

	cfg.listen_host = "127.0.0.1";
	cfg.port = 8000;
	cfg.edition = SRV_EDITION_COMMUNITY;
	pcfg.version = LEC_PIPELINE_CONFIG_VERSION;
	pcfg.limits = (struct lec_runner_limits)LEC_RUNNER_LIMITS_INIT;
	if ((status = parse_options(argc, argv, &cfg, &pcfg, &no_workers,
				    &mode, &listen_copy, &roots)) != 0)
		goto done;
	if ((status = socket_mode(ctx, &cfg, &mode, &socket_path)) != 0 ||
	    mode.print_socket) {
		if (mode.print_socket && status == 0)
			printf("%s\n", cfg.socket_path);
		goto done;
	}
	if (mode.detach) {
		status = detach(ctx, cfg.socket_path, argc, argv);
		goto done;
	}
	/* The local engine, and the owner's engine on a socket, take what the
	 * one the CLI starts would. */
	if ((mode.local_engine || cfg.socket_path) && roots.n == 0 &&
	    ((default_roots = cli_local_roots()) == NULL ||
	     (status = add_local_roots(&roots, default_roots)) != 0)) {
		status = default_roots ? status : cli_fail("out of memory");
		goto done;
	}
	/* Checked at import (the server) and again at clone (the pipeline). */
	cfg.local_roots = roots.dirs;
	pcfg.local_roots = roots.dirs;
	/* Open (and migrate) the store once up front, so a bad data
	 * directory fails here and not on the first request. */
	if (cli_store(ctx) == NULL) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	cfg.data_dir = cli_data_dir(ctx);
	if (cfg.socket_path &&
	    (status = owner_user(ctx, &cfg.owner_user_id)) != CLI_EXIT_OK)
		goto done;
	if (mode.local_engine && (lock_fd = claim_local_engine(cfg.data_dir)) < 0) {
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

	if (srv_start(&srv, &cfg) < 0) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	if (!no_workers &&
	    (status = start_pipeline(&pipeline, &pcfg, srv, cfg.data_dir)) !=
		    0) {
		srv_stop(srv);
		goto done;
	}
	if (mode.local_engine) {
		status = cli_engine_record(cfg.data_dir, (long)getpid(),
					   (long)srv_port(srv), cfg.socket_path);
		close(lock_fd);
		lock_fd = -1;
		if (status != CLI_EXIT_OK) {
			srv_stop(srv);
			lec_pipeline_stop(pipeline);
			goto done;
		}
	}
	if (cfg.socket_and_tcp) {
		printf("listening on %s/\n", srv_base_url(srv));
		fflush(stdout);
		fprintf(stderr, "lectern serve: data in %s; API at %s/api/v3/ "
				"and on the unix socket %s (mode 0600: its "
				"owner's); Ctrl-C stops\n", cfg.data_dir,
			srv_base_url(srv), cfg.socket_path);
	} else if (cfg.socket_path) {
		printf("listening on unix:%s\n", cfg.socket_path);
		fflush(stdout);
		fprintf(stderr, "lectern serve: data in %s; API on the unix "
				"socket %s (mode 0600: its owner's); Ctrl-C "
				"stops\n", cfg.data_dir, cfg.socket_path);
	} else {
		printf("listening on %s/\n", srv_base_url(srv));
		fflush(stdout);
		fprintf(stderr,
			"lectern serve: data in %s; API at %s/api/v3/; "
			"create a token with 'lectern token create USER'; "
			"Ctrl-C stops\n",
			cfg.data_dir, srv_base_url(srv));
	}
	sigwait(&stop_signals, &sig);
	fprintf(stderr, "lectern serve: %s, stopping\n",
		sig == SIGINT ? "interrupted" : "terminated");
	/* Requests first, so nothing queues new work while the workers
	 * stop. */
	srv_stop(srv);
	lec_pipeline_stop(pipeline);
	status = CLI_EXIT_OK;
done:
	if (lock_fd >= 0)
		close(lock_fd);
	free(listen_copy);
	free(default_roots);
	free(socket_path);
	local_roots_dispose(&roots);
	return status;
}
