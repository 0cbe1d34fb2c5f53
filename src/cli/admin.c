/*
 * Engine-direct admin commands: the few commands that open the store itself
 * rather than talking to an instance over HTTP (tokens and users are what
 * make talking over HTTP possible in the first place; the token commands
 * are in tokens.c).
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "context.h"
#include "lectern/diff.h"
#include "lectern/pipeline.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

int cli_cmd_status(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user_list users = { 0 };
	struct lec_page none = { 1, 0 };
	struct lec_diff_usage usage;
	struct lec_pipeline_usage caches;
	long pid, port;

	(void)argv;
	/* A wrong command line is status 2, as for every command. */
	if (argc > 0) {
		cli_fail("status takes no arguments");
		return CLI_EXIT_USAGE;
	}
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_user_list(store, &none, &users) < 0)
		return cli_fail_engine("cannot read users");
	printf("data directory: %s\n", cli_data_dir(ctx));
	printf("store:          %s (schema %d)\n", lec_store_path(store),
	       lec_store_schema_version(store));
	printf("users:          %zu\n", users.total);
	/* Whether commands find an engine or start one: what a newcomer
	 * asks first when a URL stops answering. */
	if ((pid = cli_engine_running(cli_data_dir(ctx), &port)) != 0)
		printf("engine:         running (pid %ld) at "
		       "http://127.0.0.1:%ld\n",
		       pid, port);
	else
		printf("engine:         not running (the next command starts "
		       "it)\n");
	if (lec_diff_usage(cli_data_dir(ctx), &usage) == LEC_OK)
		printf("build outputs:  %zu (%.1f MiB; published and kept for "
		       "diffs)\n",
		       usage.outputs, mib(usage.bytes));
	/* One line per cache, so the listing fits an 80-column terminal. */
	if (lec_pipeline_usage(cli_data_dir(ctx), &caches) == LEC_OK) {
		printf("build caches:   %.1f MiB\n",
		       mib(caches.trees + caches.python + caches.repos));
		printf("  trees:        %.1f MiB (kept working trees and "
		       "generator state)\n",
		       mib(caches.trees));
		printf("  python:       %.1f MiB (Python environments)\n",
		       mib(caches.python));
		printf("  mirrors:      %.1f MiB (repository mirrors)\n",
		       mib(caches.repos));
		/* What the running engine's pipeline last recorded. */
		printf("warm generators: %llu (%.1f MiB; one per version "
		       "being worked on)\n",
		       (unsigned long long)caches.warm,
		       mib(caches.warm_kib * 1024));
	}
	lec_user_list_dispose(&users);
	return CLI_EXIT_OK;
}

static int print_users_json(const struct lec_user_list *users)
{
	cJSON *root = cJSON_CreateArray();
	char when[LEC_TIME_ISO_MAX];
	char *text;
	size_t i;

	for (i = 0; root && i < users->len; i++) {
		cJSON *u = cJSON_CreateObject();

		lec_time_iso8601(users->items[i].created, when);
		if (u == NULL ||
		    !cJSON_AddStringToObject(u, "username",
					     users->items[i].username) ||
		    !cJSON_AddBoolToObject(u, "is_active",
					   users->items[i].is_active) ||
		    !cJSON_AddStringToObject(u, "created", when)) {
			cJSON_Delete(u);
			cJSON_Delete(root);
			return cli_fail("out of memory");
		}
		cJSON_AddItemToArray(root, u);
	}
	text = root ? cJSON_PrintUnformatted(root) : NULL;
	cJSON_Delete(root);
	if (text == NULL)
		return cli_fail("out of memory");
	printf("%s\n", text);
	cJSON_free(text);
	return CLI_EXIT_OK;
}

int cli_cmd_user_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user_list users = { 0 };
	char when[LEC_TIME_ISO_MAX];
	int json = 0, status = CLI_EXIT_OK;
	size_t i;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "--json") != 0))
		return cli_fail("usage: lectern user list [--json]");
	json = argc == 1;
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_user_list(store, NULL, &users) < 0)
		return cli_fail_engine("cannot list users");
	if (json) {
		status = print_users_json(&users);
	} else {
		printf("%-24s %-8s %s\n", "USERNAME", "ACTIVE", "CREATED");
		for (i = 0; i < users.len; i++) {
			lec_time_iso8601(users.items[i].created, when);
			cli_print(stdout, "%-24s %-8s %s\n",
				  users.items[i].username,
				  users.items[i].is_active ? "yes" : "no",
				  when);
		}
	}
	lec_user_list_dispose(&users);
	return status;
}
