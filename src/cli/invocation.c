/*
 * What one invocation resolves on first use and releases at its end: the
 * data directory (--data, LECTERN_DATA, XDG, HOME) and the store in it.
 * Commands ask for them through the invocation's struct cli_ctx; dispatch
 * (commands.c) releases them after the command ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lectern/store.h"

const char *cli_data_dir(struct cli_ctx *ctx)
{
	const char *env;
	size_t n;

	if (ctx->data_dir)
		return ctx->data_dir;
	if (ctx->data_dir_opt && *ctx->data_dir_opt) {
		ctx->data_dir = strdup(ctx->data_dir_opt);
	} else if ((env = getenv("LECTERN_DATA")) && *env) {
		ctx->data_dir = strdup(env);
	} else if ((env = getenv("XDG_DATA_HOME")) && *env == '/') {
		n = strlen(env) + sizeof("/lectern");
		if ((ctx->data_dir = malloc(n)))
			snprintf(ctx->data_dir, n, "%s/lectern", env);
	} else if ((env = getenv("HOME")) && *env) {
		n = strlen(env) + sizeof("/.local/share/lectern");
		if ((ctx->data_dir = malloc(n)))
			snprintf(ctx->data_dir, n, "%s/.local/share/lectern",
				 env);
	} else {
		cli_fail("no data directory: set --data, LECTERN_DATA or HOME");
		return NULL;
	}
	if (ctx->data_dir == NULL)
		cli_fail("out of memory");
	return ctx->data_dir;
}

struct lec_store *cli_store(struct cli_ctx *ctx)
{
	const char *dir;

	if (ctx->store)
		return ctx->store;
	if ((dir = cli_data_dir(ctx)) == NULL)
		return NULL;
	if (lec_store_open_dir(&ctx->store, dir, NULL) < 0) {
		cli_fail_engine("cannot open the store");
		return NULL;
	}
	return ctx->store;
}

void cli_ctx_dispose(struct cli_ctx *ctx)
{
	lec_store_free(ctx->store);
	free(ctx->data_dir);
}
