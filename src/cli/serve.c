/*
 * `lectern serve`: run the engine's HTTP server in the foreground until
 * SIGINT or SIGTERM, then stop cleanly (in-flight requests finish, every
 * store handle closes). The first line on stdout names the address, so a
 * script or test that asked for port 0 learns the port.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "server.h"

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

static int parse_options(int argc, char **argv, struct srv_config *cfg,
			 char **listen_copy)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (val == NULL)
			return cli_fail("serve: %s needs a value", opt);
		if (strcmp(opt, "--listen") == 0) {
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
			char *end;
			unsigned long n = strtoul(val, &end, 10);

			if (*end || n == 0 || n > 256)
				return cli_fail("serve: --threads wants 1 to "
						"256, got '%s'", val);
			cfg->threads = (unsigned)n;
		} else {
			return cli_fail("serve: unknown option '%s'", opt);
		}
		i++;
	}
	return CLI_EXIT_OK;
}

int cli_cmd_serve(struct cli_ctx *ctx, int argc, char **argv)
{
	struct srv_config cfg = { 0 };
	struct srv *srv = NULL;
	char *listen_copy = NULL;
	sigset_t stop_signals;
	int sig, status;

	cfg.listen_host = "127.0.0.1";
	cfg.port = 8000;
	cfg.edition = SRV_EDITION_COMMUNITY;
	if ((status = parse_options(argc, argv, &cfg, &listen_copy)) != 0)
		goto done;
	/* Open (and migrate) the store once up front, so a bad data
	 * directory fails here and not on the first request. */
	if (cli_store(ctx) == NULL) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	cfg.data_dir = cli_data_dir(ctx);

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
	printf("listening on %s/\n", srv_base_url(srv));
	fflush(stdout);
	fprintf(stderr,
		"lectern serve: data in %s; API at %s/api/v3/; "
		"create a token with 'lectern token create USER'; "
		"Ctrl-C stops\n",
		cfg.data_dir, srv_base_url(srv));
	sigwait(&stop_signals, &sig);
	fprintf(stderr, "lectern serve: %s, stopping\n",
		sig == SIGINT ? "interrupted" : "terminated");
	srv_stop(srv);
	status = CLI_EXIT_OK;
done:
	free(listen_copy);
	return status;
}
