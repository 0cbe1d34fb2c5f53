/*
 * Engine-direct admin commands: the few commands that open the store itself
 * rather than talking to an instance over HTTP (tokens and users are what
 * make talking over HTTP possible in the first place; the token commands
 * are in tokens.c, `status` in cmd_status.c).
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "context.h"
#include "table.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"

static int print_users_json(const struct lec_user_list *users)
{
	cJSON *root = cJSON_CreateArray();
	char when[LEC_TIME_ISO_MAX];
	size_t i;
	int status;

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
	status = cli_print_json(root);
	cJSON_Delete(root);
	return status;
}

int cli_cmd_user_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user_list users = { 0 };
	char when[LEC_TIME_ISO_MAX], cell[CLI_TIME_CELL_MAX];
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
				  cli_time_cell(when, cell));
		}
	}
	lec_user_list_dispose(&users);
	return status;
}
