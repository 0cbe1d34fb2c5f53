/*
 * `lectern addons PROJECT [NAME=VALUE ...] [--json]`: a project's reader
 * addons settings (Lectern's /api/v3/projects/<slug>/addons/, issue 39):
 * which of the flyout, notices, search as you type, link previews and the
 * visual diff its docs pages get, and how. Without NAME=VALUE it prints
 * them, one "name value" line each; with them it changes those (the
 * project's admins only) and prints the result. A VALUE of true, false
 * or null is sent as that JSON value, anything else as a string: the
 * server knows each setting's kind and says what is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

/* NAME=VALUE pairs one call takes: the settings are fewer. */
#define ADDONS_MAX_PAIRS 32

/* The JSON body of the NAME=VALUE arguments; NULL after saying what is
 * wrong. Owned by the caller (free). */
static char *patch_body(char **pairs, int n)
{
	cJSON *body = cJSON_CreateObject();
	char *text = NULL;
	int i;

	for (i = 0; body && i < n; i++) {
		char *eq = strchr(pairs[i], '=');
		cJSON *v;

		if (eq == NULL || eq == pairs[i]) {
			cli_fail("addons: expected NAME=VALUE, not '%s'",
				 pairs[i]);
			goto done;
		}
		*eq = '\0';
		if (strcmp(eq + 1, "true") == 0)
			v = cJSON_CreateTrue();
		else if (strcmp(eq + 1, "false") == 0)
			v = cJSON_CreateFalse();
		else if (strcmp(eq + 1, "null") == 0)
			v = cJSON_CreateNull();
		else
			v = cJSON_CreateString(eq + 1);
		cJSON_AddItemToObject(body, pairs[i], v);
	}
	if (body && (text = cJSON_PrintUnformatted(body)) == NULL)
		cli_fail("out of memory");
done:
	cJSON_Delete(body);
	return text;
}

/* One line per setting, in the API's (sorted) order. */
static int print_settings(const cJSON *json)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, json) {
		const char *value = cJSON_IsTrue(item)	    ? "true"
				    : cJSON_IsFalse(item)   ? "false"
				    : cJSON_IsString(item) ? item->valuestring
							    : "null";

		cli_print(stdout, "%-42s %s\n", item->string, value);
	}
	return CLI_EXIT_OK;
}

int cli_cmd_addons(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lc_response *r = NULL;
	struct cli_session s;
	struct lc_error err;
	char path[CLI_PATH_MAX], *pos[1 + ADDONS_MAX_PAIRS], *body = NULL;
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("addons", argc, argv, opts, pos, 1,
					     1 + ADDONS_MAX_PAIRS,
					     &n)) != CLI_EXIT_OK)
		return status;
	if (n > 1 && (body = patch_body(pos + 1, n - 1)) == NULL)
		return CLI_EXIT_USAGE;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK) {
		free(body);
		return status;
	}
	snprintf(path, sizeof(path), "/api/v3/projects/%s/addons/", pos[0]);
	if (lc_request(s.client, body ? "PATCH" : "GET", path, body, &r,
		       &err) != LC_OK)
		status = cli_fail_client(&err);
	else
		status = json ? cli_print_json(r->json)
			      : print_settings(r->json);
	lc_response_free(r);
	free(body);
	cli_session_close(&s);
	return status;
}
