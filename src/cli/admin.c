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

/* A user as `user list --json` shows it. */
static int user_json(const void *items, size_t i, cJSON *o)
{
	const struct lec_user *u = (const struct lec_user *)items + i;
	char when[LEC_TIME_ISO_MAX];

	lec_time_iso8601(u->created, when);
	return cJSON_AddStringToObject(o, "username", u->username) &&
	       cJSON_AddBoolToObject(o, "is_active", u->is_active) &&
	       cJSON_AddStringToObject(o, "created", when);
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
		status = cli_print_json_objects(users.items, users.len,
						user_json);
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
