/*
 * `lectern serve`'s options (serve_options.c): one table, the way redis
 * keeps its configuration, from which the parser, `lectern serve --help`
 * and the test of the documentation (tests/cli/test_serve_options.sh, which
 * reads `lectern serve --options-table`) all come. Each row names an
 * option, its kind of value, its bounds and default, its help and the
 * field it sets in struct serve_settings.
 */
#ifndef LECTERN_CLI_SERVE_OPTIONS_H
#define LECTERN_CLI_SERVE_OPTIONS_H

#include <stdio.h>

#include "lectern/netrule.h"
#include "lectern/pipeline.h"
#include "server.h"

/* Directories --local-repos may list: a home, the temporary directory and
 * a few shared checkouts; a longer list is better served by their common
 * parent. */
#define SERVE_LOCAL_ROOTS_MAX 16

/* The --local-repos directories, NULL-terminated, split from copies of
 * the option values (argv stays as given, for ps). */
struct serve_local_roots {
	const char *dirs[SERVE_LOCAL_ROOTS_MAX + 1]; /* into copies */
	char *copies[SERVE_LOCAL_ROOTS_MAX];         /* owned */
	size_t n, ncopies;
};

/* Everything the options set: the server's configuration, the pipeline's,
 * and the ways `lectern serve` runs besides the foreground TCP engine. */
struct serve_settings {
	struct srv_config srv;
	struct lec_pipeline_config pipeline;
	struct serve_local_roots roots;
	struct lec_netrule webhook_allow; /* --webhook-allow's networks */
	int local_engine;     /* --local-engine */
	int print_socket;     /* --print-socket: print the path, exit */
	int detach;           /* --detach: make sure one runs on the socket */
	int listen;           /* --listen given */
	int no_workers;       /* --workers 0: run no builds */
	char *listen_copy;    /* --listen's value, split in place; owned */
};

/* Start s with every default (the listening address, the edition, the
 * engine's build limits). */
void serve_settings_init(struct serve_settings *s);
/* Set s from the command line; an error is reported as one line and gives
 * CLI_EXIT_FAIL. Values are borrowed from argv. */
int serve_settings_parse(struct serve_settings *s, int argc, char **argv);
/* Add DIR[:DIR...] to the --local-repos directories (the local engine's
 * defaults go the same way): absolute directories only. */
int serve_local_roots_add(struct serve_local_roots *roots, const char *val);
/* Free what s owns (not s). */
void serve_settings_dispose(struct serve_settings *s);

/* The options with their values, defaults and help, for --help. */
void serve_options_help(FILE *out);
/* One line per option, "NAME<TAB>VALUE<TAB>DEFAULT" (VALUE and DEFAULT
 * may be empty): what the documentation must list (--options-table). */
void serve_options_table(FILE *out);

#endif
