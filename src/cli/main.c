/*
 * The lectern binary's entry point: global options (--data, --context,
 * --help, --version) and dispatch to the command table in commands.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lectern/egress.h"
#include "lectern/pipeline.h"
#include "version.h"

int main(int argc, char **argv)
{
	struct cli_ctx ctx = { 0 };
	int i;

	/* The build pipeline's git helper: no options, no data directory. */
	if (argc > 1 && strcmp(argv[1], LEC_PIPELINE_HELPER_WORD) == 0)
		return cli_repo_helper(argc - 2, argv + 2);
	/* Its egress forwarder, the same way. */
	if (argc > 1 && strcmp(argv[1], LEC_EGRESS_HELPER_WORD) == 0)
		return cli_egress_helper(argc - 2, argv + 2);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_print_usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("lectern %s\n", LECTERN_VERSION);
			return 0;
		}
		if (strcmp(argv[i], "--data") == 0) {
			if (i + 1 >= argc)
				return cli_fail("--data needs a directory");
			ctx.data_dir_opt = argv[++i];
			continue;
		}
		if (strncmp(argv[i], "--data=", 7) == 0) {
			ctx.data_dir_opt = argv[i] + 7;
			continue;
		}
		if (strcmp(argv[i], "--context") == 0) {
			if (i + 1 >= argc) {
				cli_fail("--context needs a name");
				return CLI_EXIT_USAGE;
			}
			ctx.context_opt = argv[++i];
			continue;
		}
		if (strncmp(argv[i], "--context=", 10) == 0) {
			ctx.context_opt = argv[i] + 10;
			continue;
		}
		fprintf(stderr, "lectern: unknown option '%s'\n", argv[i]);
		cli_print_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return cli_dispatch(&ctx, argc - i, argv + i);
}
