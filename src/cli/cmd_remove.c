/*
 * `lectern remove PROJECT [--yes]`: remove a project with everything of it
 * through Lectern's DELETE /api/v3/projects/<slug>/ (docs/api.md). Nothing
 * brings it back, so on a terminal the user types the slug to confirm;
 * elsewhere --yes is needed. While a cancelled build of the project is
 * still stopping the engine answers 409 and removes nothing: the command
 * waits and asks again.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"

/* A cancelled build's sandbox stops within a second or two; a loaded
 * machine gets more. */
#define REMOVE_WAIT_MS 60000
#define REMOVE_POLL_MS 500

/* The user typed the slug; 0 for anything else (or end of input). */
static int confirmed(const struct lc_project *p)
{
	char line[256];

	cli_print(stderr,
		  "Remove project %s (%s) and everything of it: versions, "
		  "builds and logs, published docs, search entries, redirects, "
		  "environment variables, integrations, webhooks, its "
		  "repository cache and build caches? Nothing brings it "
		  "back.\nType %s to remove it: ",
		  p->slug, p->name ? p->name : p->slug, p->slug);
	fflush(stderr);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	line[strcspn(line, "\r\n")] = '\0';
	return strcmp(line, p->slug) == 0;
}

/* DELETE, asked again while a build of the project is still stopping. */
static int delete_waiting(struct cli_session *s, const char *slug)
{
	struct lc_error err;
	int waited = 0;

	while (lc_project_delete(s->client, slug, &err) != LC_OK) {
		if (err.status != 409 || waited >= REMOVE_WAIT_MS)
			return cli_fail_request(s, &err);
		if (waited == 0)
			fprintf(stderr, "waiting for its cancelled builds to "
					"stop...\n");
		cli_sleep_ms(REMOVE_POLL_MS);
		waited += REMOVE_POLL_MS;
	}
	return CLI_EXIT_OK;
}

int cli_cmd_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct lc_project *p = NULL;
	struct lc_error err;
	char *pos[1];
	int yes = 0, n, status;
	const struct cli_opt opts[] = { { "--yes", NULL, &yes },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("remove", argc, argv, opts, pos, 1,
					     1, &n)) != CLI_EXIT_OK)
		return status;
	if (!yes && !isatty(STDIN_FILENO)) {
		cli_fail("remove: not asking without a terminal; add --yes to "
			 "remove %s", pos[0]);
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if ((status = cli_session_writable(&s)) != CLI_EXIT_OK)
		goto done;
	if (lc_project_get(s.client, pos[0], NULL, &p, &err) != LC_OK) {
		status = cli_fail_request(&s, &err);
		goto done;
	}
	if (!yes && !confirmed(p)) {
		status = cli_fail("kept %s: nothing removed", p->slug);
		goto done;
	}
	if ((status = delete_waiting(&s, p->slug)) == CLI_EXIT_OK)
		cli_print(stdout, "removed project %s\n", p->slug);
done:
	lc_project_free(p);
	cli_session_close(&s);
	return status;
}
