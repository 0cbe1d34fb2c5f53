/*
 * `lectern status [--json]` and `lectern stop`: what an engine is doing,
 * and stopping it, on the context the invocation names (docs/cli.md,
 * "Status and stop"). An admin who manages another machine's engine must
 * never be shown, or stop, their own local one instead.
 *
 * - status of the local context: the data directory read engine-direct
 *   (the store, users, whether its engine runs, what builds keep on disk),
 *   then, while the engine runs, what it says through its API: its
 *   version, workers, and the builds waiting and running. It starts no
 *   engine to say so.
 * - status of a remote Lectern (a URL or an ssh context): the same API
 *   part; the hosted service has no status in its API, which is said.
 * - stop of the local context stops the data directory's engine; of an
 *   ssh context, the remote one, through ssh (`lectern stop` there); a URL
 *   context's engine is refused with what to do instead.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "context.h"
#include "lectern/diff.h"
#include "lectern/pipeline.h"
#include "lectern/store.h"
#include "lectern/user.h"

/* The unfinished builds `status` lists: a screenful; the counts say how
 * many there are in all. */
#define STATUS_BUILDS_MAX 20
#define STATUS_PATH "/api/v3/status/"

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* What the instance says of itself: its status, your unfinished builds
 * (newest first) and the queue. Each owned, NULL when not read. */
struct instance {
	cJSON *status;
	cJSON *builds;
	cJSON *queue;
};

static void instance_dispose(struct instance *in)
{
	cJSON_Delete(in->status);
	cJSON_Delete(in->builds);
	cJSON_Delete(in->queue);
	memset(in, 0, sizeof(*in));
}

/* GET path's JSON into *out (owned). */
static int get_json(struct cli_session *s, const char *path, cJSON **out)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	int status = CLI_EXIT_OK;

	*out = NULL;
	if (lc_request(s->client, "GET", path, NULL, &r, &err) != LC_OK)
		status = cli_fail_request(s, &err);
	else if (r->json == NULL)
		status = cli_fail("invalid JSON in response from %s", path);
	else
		*out = cJSON_Duplicate(r->json, 1);
	if (status == CLI_EXIT_OK && *out == NULL)
		status = cli_fail("out of memory");
	lc_response_free(r);
	return status;
}

static int read_instance(struct cli_session *s, struct instance *in)
{
	struct lc_iter *it = NULL;
	struct lc_query q = { 0 };
	struct lc_error err;
	const cJSON *item;
	int rc = 0, n = 0, status;

	memset(in, 0, sizeof(*in));
	if (lc_client_detect(s->client, &err) != LC_OK)
		return cli_fail_client(&err);
	if (lc_client_remote(s->client) != LC_REMOTE_LECTERN)
		return cli_fail("status: context %s is not a Lectern: its API "
				"says nothing of workers or a queue",
				s->conn.name);
	if ((status = get_json(s, STATUS_PATH, &in->status)) != CLI_EXIT_OK ||
	    (status = get_json(s, LC_QUEUE_PATH, &in->queue)) != CLI_EXIT_OK)
		return status;
	if ((in->builds = cJSON_CreateArray()) == NULL ||
	    lc_query_add(&q, "running", "true") != LC_OK) {
		lc_query_dispose(&q);
		return cli_fail("out of memory");
	}
	if (lc_iter_new(&it, s->client, LC_ALL_BUILDS_PATH, &q, &err) != LC_OK)
		status = cli_fail_client(&err);
	while (status == CLI_EXIT_OK && n++ < STATUS_BUILDS_MAX &&
	       (rc = lc_iter_next(it, &item, &err)) == 1)
		cJSON_AddItemToArray(in->builds, cJSON_Duplicate(item, 1));
	if (status == CLI_EXIT_OK && rc < 0)
		status = cli_fail_client(&err);
	lc_iter_free(it);
	lc_query_dispose(&q);
	return status;
}

static double num(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? cJSON_GetNumberValue(v) : -1;
}

/* "  #12 guide/latest: building (since 14:05:09)", one per build. */
static void print_builds(const struct instance *in)
{
	struct lc_queue queue = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	const cJSON *item;
	char state[32], when[CLI_TIME_CELL_MAX];
	const char *shown;

	if (lc_queue_parse(in->queue, &queue) != LC_OK)
		memset(&queue, 0, sizeof(queue));
	cJSON_ArrayForEach(item, in->builds) {
		if (lc_build_parse(item, &b, &err) != LC_OK)
			continue;
		shown = lc_build_state_shown(b, &queue, state, sizeof(state));
		cli_print(stdout, "  #%lld %s/%s: %s (since %s)\n", b->id,
			  b->project ? b->project : "?",
			  b->version ? b->version : "?", shown ? shown : "?",
			  cli_time_cell(b->created, when));
		lc_build_free(b);
		b = NULL;
	}
	lc_queue_dispose(&queue);
}

static void print_instance(const struct instance *in)
{
	const cJSON *builds = cJSON_GetObjectItemCaseSensitive(in->status,
							       "builds");
	double workers = num(in->status, "workers");
	const char *version = cli_json_str(in->status, "version");

	cli_print(stdout, "version:        Lectern %s (%s)\n",
		  *version ? version : "(unknown)",
		  cli_json_str(in->status, "edition"));
	if (workers >= 0)
		printf("workers:        %.0f%s\n", workers,
		       workers == 0 ? " (builds wait: another engine builds "
				      "here, or --workers 0)"
				    : "");
	else
		printf("workers:        starting\n");
	printf("builds:         %.0f running, %.0f waiting%s\n",
	       num(builds, "running"), num(builds, "waiting"),
	       cJSON_GetArraySize(in->builds) > 0 ? "; yours:" : "");
	print_builds(in);
}

/* ---- The local context ------------------------------------------------- */

/* The data directory's own lines (engine-direct); *running set when its
 * engine runs. */
static int print_local(struct cli_ctx *ctx, int *running)
{
	struct lec_store *store;
	struct lec_user_list users = { 0 };
	struct lec_page none = { 1, 0 };
	long pid, port;

	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_user_list(store, &none, &users) < 0)
		return cli_fail_engine("cannot read users");
	printf("context:        %s\n", CLI_CONTEXT_LOCAL);
	printf("data directory: %s\n", cli_data_dir(ctx));
	printf("store:          %s (schema %d)\n", lec_store_path(store),
	       lec_store_schema_version(store));
	printf("users:          %zu\n", users.total);
	lec_user_list_dispose(&users);
	/* Whether commands find an engine or start one: what a newcomer
	 * asks first when a URL stops answering. */
	if ((pid = cli_engine_running(cli_data_dir(ctx), &port)) != 0)
		printf("engine:         running (pid %ld) at "
		       "http://127.0.0.1:%ld\n",
		       pid, port);
	else
		printf("engine:         not running (the next command starts "
		       "it)\n");
	*running = pid != 0;
	return CLI_EXIT_OK;
}

static void print_disk(struct cli_ctx *ctx)
{
	struct lec_diff_usage usage;
	struct lec_pipeline_usage caches;

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
		printf("  repos:        %.1f MiB (repository caches)\n",
		       mib(caches.repos));
		/* What the running engine's pipeline last recorded. */
		printf("warm generators: %llu (%.1f MiB; one per version "
		       "being worked on)\n",
		       (unsigned long long)caches.warm,
		       mib(caches.warm_kib * 1024));
	}
}

/* The local part of --json: the data directory as the lines say it. */
static cJSON *local_json(struct cli_ctx *ctx)
{
	struct lec_store *store = cli_store(ctx);
	struct lec_user_list users = { 0 };
	struct lec_page none = { 1, 0 };
	struct lec_diff_usage usage;
	struct lec_pipeline_usage caches;
	cJSON *o = cJSON_CreateObject(), *e, *c;
	long pid, port;
	char url[64];

	if (o == NULL || store == NULL ||
	    lec_user_list(store, &none, &users) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(o, "data_directory", cli_data_dir(ctx));
	e = cJSON_AddObjectToObject(o, "store");
	cJSON_AddStringToObject(e, "path", lec_store_path(store));
	cJSON_AddNumberToObject(e, "schema", lec_store_schema_version(store));
	cJSON_AddNumberToObject(o, "users", (double)users.total);
	lec_user_list_dispose(&users);
	e = cJSON_AddObjectToObject(o, "engine");
	pid = cli_engine_running(cli_data_dir(ctx), &port);
	cJSON_AddBoolToObject(e, "running", pid != 0);
	if (pid) {
		snprintf(url, sizeof(url), "http://127.0.0.1:%ld", port);
		cJSON_AddNumberToObject(e, "pid", (double)pid);
		cJSON_AddStringToObject(e, "url", url);
	}
	if (lec_diff_usage(cli_data_dir(ctx), &usage) == LEC_OK) {
		c = cJSON_AddObjectToObject(o, "build_outputs");
		cJSON_AddNumberToObject(c, "count", (double)usage.outputs);
		cJSON_AddNumberToObject(c, "bytes", (double)usage.bytes);
	}
	if (lec_pipeline_usage(cli_data_dir(ctx), &caches) == LEC_OK) {
		c = cJSON_AddObjectToObject(o, "build_caches");
		cJSON_AddNumberToObject(c, "trees", (double)caches.trees);
		cJSON_AddNumberToObject(c, "python", (double)caches.python);
		cJSON_AddNumberToObject(c, "mirrors", (double)caches.repos);
		c = cJSON_AddObjectToObject(o, "warm_generators");
		cJSON_AddNumberToObject(c, "count", (double)caches.warm);
		cJSON_AddNumberToObject(c, "bytes",
					(double)caches.warm_kib * 1024);
	}
	return o;
}

/* {"context", "local" (the local context's data directory, else null),
 * "status", "builds" (yours, unfinished), "queue"}: the API's objects as
 * it sent them, null where not read. */
static int print_json(const char *context, cJSON *local,
		      struct instance *in)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *parts[] = { local, in->status, in->builds, in->queue };
	const char *names[] = { "local", "status", "builds", "queue" };
	size_t i;
	int status;

	if (o == NULL) {
		cJSON_Delete(local);
		return cli_fail("out of memory");
	}
	cJSON_AddStringToObject(o, "context", context);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i])
			cJSON_AddItemToObject(o, names[i], parts[i]);
		else
			cJSON_AddNullToObject(o, names[i]);
	memset(in, 0, sizeof(*in)); /* o holds them now */
	status = cli_print_json(o);
	cJSON_Delete(o);
	return status;
}

/* Which context the invocation names, where it is (its URL, or
 * "ssh://TARGET"; NULL for local) and whether it is the local one; *name
 * and *where owned by the caller. */
static int chosen(struct cli_ctx *ctx, char **name, char **where,
		  int *local)
{
	struct cli_config cfg;
	const struct cli_context *c = NULL;
	int status;

	*where = NULL;
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		return status;
	*name = strdup(cli_context_chosen(ctx, &cfg));
	*local = *name && strcmp(*name, CLI_CONTEXT_LOCAL) == 0;
	if (*name && !*local && (c = cli_config_find(&cfg, *name)) == NULL)
		status = cli_fail("no context '%s' (see 'lectern context "
				  "list')", *name);
	else if (c && asprintf(where, "%s%s", c->ssh ? "ssh://" : "",
			       c->ssh ? c->ssh : c->url) < 0)
		*where = NULL;
	cli_config_dispose(&cfg);
	if (status == CLI_EXIT_OK &&
	    (*name == NULL || (c && *where == NULL)))
		status = cli_fail("out of memory");
	if (status != CLI_EXIT_OK) {
		free(*name);
		free(*where);
		*name = *where = NULL;
	}
	return status;
}

int cli_cmd_status(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct instance in = { 0 };
	cJSON *local_part = NULL;
	char *name = NULL, *where = NULL;
	long port;
	int json = 0, local = 0, running = 1, opened = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("status", argc, argv, opts, NULL, 0, 0,
				     &n)) != CLI_EXIT_OK ||
	    (status = chosen(ctx, &name, &where, &local)) != CLI_EXIT_OK)
		return status;
	if (local && json) {
		if ((local_part = local_json(ctx)) == NULL) {
			status = cli_fail_engine("cannot read the data "
						 "directory");
			goto done;
		}
		running = cli_engine_running(cli_data_dir(ctx), &port) != 0;
	} else if (local &&
		   (status = print_local(ctx, &running)) != CLI_EXIT_OK) {
		goto done;
	}
	/* The API part: a remote context's, or the local engine's while it
	 * runs (status starts none). */
	if (running) {
		if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
			goto done;
		opened = 1;
		if (!local && !json)
			cli_print(stdout, "context:        %s (%s)\n", name,
				  where);
		if ((status = read_instance(&s, &in)) != CLI_EXIT_OK)
			goto done;
	}
	if (json) {
		status = print_json(name, local_part, &in);
		local_part = NULL;
		goto done;
	}
	if (running)
		print_instance(&in);
	if (local)
		print_disk(ctx);
done:
	cJSON_Delete(local_part);
	instance_dispose(&in);
	if (opened)
		cli_session_close(&s);
	free(name);
	free(where);
	return status;
}

int cli_cmd_stop(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_config cfg;
	const struct cli_context *c;
	const char *name;
	int status;

	(void)argv;
	if (argc > 0)
		return cli_bad_usage("lectern stop");
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		return status;
	name = cli_context_chosen(ctx, &cfg);
	c = cli_config_find(&cfg, name);
	if (strcmp(name, CLI_CONTEXT_LOCAL) == 0)
		status = cli_local_engine_stop(ctx);
	else if (c == NULL)
		status = cli_fail("no context '%s' (see 'lectern context "
				  "list')", name);
	else if (c->readonly)
		status = cli_fail("context '%s' is read-only", name);
	else if (c->ssh)
		status = cli_ssh_stop(c);
	else
		status = cli_fail("stop: context '%s' is an instance at %s, "
				  "reached by URL: stop its engine on that "
				  "machine (or reach it through an ssh context, "
				  "which stop can stop); 'lectern --context "
				  "local stop' stops this machine's",
				  name, c->url);
	cli_config_dispose(&cfg);
	return status;
}
