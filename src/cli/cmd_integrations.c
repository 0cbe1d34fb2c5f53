/*
 * `lectern integrations PROJECT [add github|gitlab|bitbucket|generic |
 * remove ID] [--json]`: a project's incoming webhooks (the engine's
 * integrations, a Lectern extension of the API). `add` prints the URL and
 * the secret to paste into the forge's webhook settings: the secret is
 * shown this once (the engine keeps it sealed and never returns it), and a
 * URL on a loopback address gets a warning, since no forge can reach it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

static int integration_row(struct cli_table *t, const cJSON *item)
{
	char id[24], when[CLI_TIME_CELL_MAX];

	snprintf(id, sizeof(id), "%.0f",
		 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(item,
								       "id")));
	cli_table_row(t, id, cli_json_str(item, "integration_type"),
		      cli_json_str(item, "url"),
		      cli_time_cell(cli_json_str(item, "created"), when), NULL);
	return CLI_EXIT_OK;
}

/* A webhook URL no forge on the internet can reach. */
static int loopback_url(const char *url)
{
	const char *host = strstr(url, "://");

	host = host ? host + 3 : url;
	return strncmp(host, "127.", 4) == 0 ||
	       strncmp(host, "localhost", 9) == 0 ||
	       strncmp(host, "[::1]", 5) == 0;
}

static int integration_add(struct cli_session *s, const char *project,
			   const char *forge, int json)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	char path[CLI_PATH_MAX], body[96];
	const char *type = lc_forge_type(forge);
	int status = CLI_EXIT_OK;

	if (type == NULL) {
		cli_fail("integrations: add github, gitlab, bitbucket or "
			 "generic, not '%s'",
			 forge);
		return CLI_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "/api/v3/projects/%s/integrations/",
		 project);
	snprintf(body, sizeof(body), "{\"integration_type\": \"%s\"}", type);
	if (lc_request(s->client, "POST", path, body, &r, &err) != LC_OK) {
		lc_response_free(r);
		return cli_fail_request(s, &err);
	}
	if (json) {
		status = cli_print_json(r->json);
	} else {
		cli_print(stdout, "webhook URL: %s\nsecret:      %s\n",
			  cli_json_str(r->json, "url"),
			  cli_json_str(r->json, "secret"));
		cli_print(stdout,
			  "Paste both into the %s webhook settings; the secret "
			  "is not shown again.\n", forge);
	}
	if (loopback_url(cli_json_str(r->json, "url")))
		fprintf(stderr, "lectern: warning: the URL is on a loopback "
				"address, which no forge can reach; give the "
				"engine a public address\n");
	cli_response_free_secret(r);
	return status;
}

static int integration_remove(struct cli_session *s, const char *project,
			      const char *id)
{
	if (id[strspn(id, "0123456789")] != '\0' || *id == '\0') {
		cli_fail("integrations: remove wants the integration's id, "
			 "not '%s'",
			 id);
		return CLI_EXIT_USAGE;
	}
	return cli_remove_of_project(s, project, "integrations", "integration",
				     id);
}

int cli_cmd_integrations(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_table t;
	char *pos[3];
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("integrations", argc, argv, opts,
					     pos, 1, 3, &n)) != CLI_EXIT_OK)
		return status;
	if (n == 2 || (n == 3 && strcmp(pos[1], "add") != 0 &&
		       strcmp(pos[1], "remove") != 0)) {
		cli_fail("integrations: expected 'add FORGE' or 'remove ID'");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (n == 3 && (status = cli_session_writable(&s)) == CLI_EXIT_OK)
		status = strcmp(pos[1], "add") == 0
				 ? integration_add(&s, pos[0], pos[2], json)
				 : integration_remove(&s, pos[0], pos[2]);
	else if (n == 1) {
		cli_table_init(&t, "ID", "TYPE", "URL", "CREATED", NULL);
		status = cli_print_project_list(&s, pos[0], "integrations", json,
						&t, integration_row);
	}
	cli_session_close(&s);
	return status;
}
