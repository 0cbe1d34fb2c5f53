/*
 * `lectern reindex [PROJECT [VERSION]]`: rebuild search indexes from the
 * published HTML in the data directory (<data>/published/<project>/
 * <version>/html), with the search.ignore and search.ranking rules of each
 * version's last indexing. An engine-direct admin command like `token
 * create`: it opens the store itself. Without VERSION it reindexes every
 * active version that has published output; a named version must have
 * some.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lectern/project.h"
#include "lectern/search.h"
#include "lectern/store.h"
#include "lectern/version.h"

/* The version's published HTML directory, or NULL when it has none. */
static char *published_html(struct cli_ctx *ctx, const char *project,
			    const char *version)
{
	const char *data = cli_data_dir(ctx);
	size_t n = strlen(data) + strlen(project) + strlen(version) + 32;
	char *dir = malloc(n);
	struct stat sb;

	if (dir == NULL)
		return NULL;
	snprintf(dir, n, "%s/published/%s/%s/html", data, project, version);
	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return dir;
	free(dir);
	return NULL;
}

/* Reindex one version. required: a version without published HTML is an
 * error (named on the command line) rather than skipped. */
static int reindex_version(struct cli_ctx *ctx, const struct lec_project *p,
			   const struct lec_version *v, int required)
{
	struct lec_search_index_report r;
	char *dir = published_html(ctx, p->slug, v->slug);
	size_t i;
	int rc;

	if (dir == NULL)
		return required ? cli_fail("%s/%s has no published HTML",
					   p->slug, v->slug)
				: CLI_EXIT_OK;
	rc = lec_search_index_dir(cli_store(ctx), v->id, dir, NULL, &r);
	free(dir);
	if (rc < 0) {
		cli_print(stderr, "lectern: %s/%s: ", p->slug, v->slug);
		return cli_fail_engine("cannot index");
	}
	cli_print(stdout, "%s/%s: %zu pages, %zu sections and domain entries, "
		  "%zu ignored, %zu unparsable\n", p->slug, v->slug, r.pages,
		  r.entries, r.ignored, r.failed);
	for (i = 0; i < r.failures_len; i++)
		cli_print(stdout, "  %s\n", r.failures[i]);
	lec_search_index_report_dispose(&r);
	return CLI_EXIT_OK;
}

/* Every active version of the project, or the one named. */
static int reindex_project(struct cli_ctx *ctx, const struct lec_project *p,
			   const char *version)
{
	struct lec_version_filter filter = { 0 };
	struct lec_version_list list = { 0 };
	struct lec_version *v = NULL;
	int status = CLI_EXIT_OK;
	size_t i;

	if (version) {
		if (lec_version_get(cli_store(ctx), p->id, version, &v) < 0)
			return cli_fail_engine("cannot find the version");
		status = reindex_version(ctx, p, v, 1);
		lec_version_free(v);
		return status;
	}
	filter.active = LEC_FILTER_TRUE;
	if (lec_version_list(cli_store(ctx), p->id, &filter, NULL, &list) < 0)
		return cli_fail_engine("cannot list versions");
	for (i = 0; i < list.len; i++)
		if (reindex_version(ctx, p, &list.items[i], 0) != CLI_EXIT_OK)
			status = CLI_EXIT_FAIL;
	lec_version_list_dispose(&list);
	return status;
}

int cli_cmd_reindex(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_project_list all = { 0 };
	struct lec_project *p = NULL;
	int status = CLI_EXIT_OK;
	size_t i;

	if (argc > 2 || (argc > 0 && argv[0][0] == '-') ||
	    (argc > 1 && argv[1][0] == '-'))
		return cli_fail("usage: lectern reindex [PROJECT [VERSION]]");
	if (cli_store(ctx) == NULL)
		return CLI_EXIT_FAIL;
	if (argc > 0) {
		if (lec_project_get(cli_store(ctx), argv[0], &p) < 0)
			return cli_fail_engine("cannot find the project");
		status = reindex_project(ctx, p, argc > 1 ? argv[1] : NULL);
		lec_project_free(p);
		return status;
	}
	if (lec_project_list(cli_store(ctx), NULL, NULL, &all) < 0)
		return cli_fail_engine("cannot list projects");
	for (i = 0; i < all.len; i++)
		if (reindex_project(ctx, &all.items[i], NULL) != CLI_EXIT_OK)
			status = CLI_EXIT_FAIL;
	lec_project_list_dispose(&all);
	return status;
}
