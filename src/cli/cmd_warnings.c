/*
 * `lectern warnings (BUILD | PROJECT [BUILD]) [--new] [--json]`: a build's
 * warnings (Lectern's GET .../builds/<id>/warnings/), named by its id alone
 * as `log` and `cancel` name one (its project from the v2 detail), or a
 * project's newest finished build's, one per line in the form editors and
 * CI read ("file:line: kind: message", what `lectern check` prints), new
 * ones first and marked; the totals follow on stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "warnings.h"

/* A build that has ended: its id into *(long long *)id. */
static int finished(const cJSON *item, void *id)
{
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(item, "state");

	if (strcmp(cli_json_str(state, "code"), "finished") != 0)
		return 0;
	*(long long *)id = (long long)cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(item, "id"));
	return 1;
}

/* The project's newest build that has ended (its warnings are known). */
static int newest_finished(struct cli_session *s, const char *project,
			   long long *out)
{
	struct lc_error err;
	int rc = cli_find_item(s, &err, finished, out,
			       "/api/v3/projects/%s/builds/", project);

	if (rc < 0)
		return cli_fail_request(s, &err);
	if (rc == 0)
		return cli_fail("warnings: project %s has no finished build",
				project);
	return CLI_EXIT_OK;
}

int cli_cmd_warnings(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_warning_list list = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	char *pos[2], *project = NULL;
	long long build = -1;
	int json = 0, new_only = 0, n, status;
	size_t i;
	const struct cli_opt opts[] = { { "--new", NULL, &new_only },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("warnings", argc, argv, opts, pos, 1, 2,
				     &n)) != CLI_EXIT_OK)
		return status;
	/* A build's id alone, as `log` and `cancel` take it; else the
	 * project, and maybe which of its builds. */
	if ((n == 1 && cli_is_build_id(pos[0]) &&
	     (status = cli_parse_build_id("warnings", pos[0], &build)) !=
		     CLI_EXIT_OK) ||
	    (build < 0 &&
	     (status = cli_check_slug("project", pos[0])) != CLI_EXIT_OK) ||
	    (n == 2 && (status = cli_parse_build_id("warnings", pos[1],
						    &build)) != CLI_EXIT_OK))
		return status;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	if (n == 1 && build > 0)
		status = cli_build_project(&s, build, &project);
	else if ((project = strdup(pos[0])) == NULL)
		status = cli_fail("out of memory");
	if (status != CLI_EXIT_OK)
		goto done;
	s.project = project;
	s.build = build;
	if (build < 0 && (status = newest_finished(&s, project, &build)) !=
			         CLI_EXIT_OK)
		goto done;
	if (json) {
		char path[CLI_PATH_MAX];
		struct lc_query q = { 0 };
		struct cli_table unused;

		snprintf(path, sizeof(path),
			 "/api/v3/projects/%s/builds/%lld/warnings/", project,
			 build);
		if (new_only && lc_query_add(&q, "new", "true") != LC_OK) {
			status = cli_fail("out of memory");
			goto done;
		}
		cli_table_init(&unused, "FILE", NULL);
		status = cli_print_list(&s, path, &q, 1, &unused, NULL);
		lc_query_dispose(&q);
		goto done;
	}
	if ((status = cli_build_warnings(&s, project, build, new_only,
					 &list)) != CLI_EXIT_OK)
		goto done;
	for (i = 0; i < list.len && status == CLI_EXIT_OK; i++)
		status = cli_print_record(stdout, list.items[i], !new_only);
	/* The totals, where the server keeps them (a Lectern). */
	if (lc_build_get(s.client, project, build, NULL, &b, &err) == LC_OK &&
	    b->warnings.count >= 0)
		fprintf(stderr,
			"build %lld: %lld warning%s, %lld new, %lld fixed since "
			"the last good build%s\n",
			build, b->warnings.count,
			b->warnings.count == 1 ? "" : "s", b->warnings.new_count,
			b->warnings.fixed,
			b->warnings.dropped ? " (only the first are kept)" : "");
	else if (status == CLI_EXIT_OK)
		cli_print(stderr, "build %lld: no warnings recorded\n", build);
done:
	lc_build_free(b);
	cli_warning_list_dispose(&list);
	free(project);
	cli_session_close(&s);
	return status;
}
