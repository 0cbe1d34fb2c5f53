/*
 * The build commands: list a project's builds, trigger one and follow it
 * (`build --watch --exit-status` makes a script wait for a build and fail
 * with it), and print a build's commands and output, following it live
 * (`log --follow`) from the v2 build detail, the one that carries output.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"

/* Enough of a commit hash to tell builds apart in a table. */
#define SHORT_COMMIT 12
/* The most builds a page of the API holds (the service's max_limit). */
#define BUILDS_PAGE_MAX 100
/* --limit's bound: more than any table a person reads. */
#define BUILDS_LIMIT_MAX 100000
/* How often `log --follow` polls for new output. */
#define FOLLOW_POLL_MS 500

static int is_done(const struct lc_build *b)
{
	return b->state && (strcmp(b->state, "finished") == 0 ||
			    strcmp(b->state, "cancelled") == 0);
}

static const char *outcome(const struct lc_build *b)
{
	if (!is_done(b))
		return "";
	return b->success == 1 ? "passed" : "failed";
}

/* ---- builds --------------------------------------------------------------- */

/* A builds table's payload: the queue, read when the first row is made
 * (the list's answers have told what the instance is by then, so the
 * hosted service gets no request to learn it). */
struct queue_ref {
	struct cli_session *s;
	struct lc_queue *q;
	int *read;
	int json;
};

static void read_queue(struct cli_session *s, int json, struct lc_queue *q);

/* One row; across projects (the table has a PROJECT column) the
 * project comes first. */
static int build_row(struct cli_table *t, const cJSON *item)
{
	const struct queue_ref *ref = t->payload;

	struct lc_build *b = NULL;
	struct lc_error err;
	char id[24], commit[SHORT_COMMIT + 1], duration[24] = "", state[32];
	char created[CLI_TIME_CELL_MAX], version[64];
	const char *shown, *ver;

	if (lc_build_parse(item, &b, &err) != LC_OK)
		return cli_fail_client(&err);
	snprintf(id, sizeof(id), "%lld", b->id);
	snprintf(commit, sizeof(commit), "%s", b->commit ? b->commit : "");
	if (b->duration >= 0)
		snprintf(duration, sizeof(duration), "%llds", b->duration);
	cli_time_cell(b->created, created);
	if (!*ref->read) {
		read_queue(ref->s, ref->json, ref->q);
		*ref->read = 1;
	}
	if ((shown = lc_build_state_shown(b, ref->q, state, sizeof(state))) ==
	    NULL)
		shown = "";
	/* A pull request's build marked as such: "#12 (PR)". */
	if ((ver = lc_build_version_shown(b, version, sizeof(version))) == NULL)
		ver = "";
	if (t->ncols == 9)
		cli_table_row(t, id, b->project ? b->project : "", ver, shown,
			      outcome(b), commit, created, duration,
			      lc_build_cache_word(b), NULL);
	else
		cli_table_row(t, id, ver, shown, outcome(b), commit, created,
			      duration, lc_build_cache_word(b), NULL);
	lc_build_free(b);
	return CLI_EXIT_OK;
}

/* A Lectern's queue, for the places of waiting builds; nothing (and no
 * request) elsewhere or with --json. */
static void read_queue(struct cli_session *s, int json, struct lc_queue *q)
{
	struct lc_error err;

	if (json || lc_client_detect(s->client, &err) != LC_OK ||
	    lc_client_remote(s->client) != LC_REMOTE_LECTERN)
		return;
	if (lc_build_queue(s->client, q, &err) != LC_OK)
		lc_queue_dispose(q);
}

/* --limit N: a count of builds, 1 or more. */
static int parse_limit(const char *arg, size_t *out)
{
	char *end;
	long long n = strtoll(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || n <= 0 || n > BUILDS_LIMIT_MAX) {
		cli_fail("builds: --limit wants a number of builds (1 to %d), "
			 "not '%s'", BUILDS_LIMIT_MAX, arg);
		return CLI_EXIT_USAGE;
	}
	*out = (size_t)n;
	return CLI_EXIT_OK;
}

int cli_cmd_builds(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_table t;
	struct lc_query q = { 0 };
	struct lc_queue queue;
	struct queue_ref ref;
	struct cli_list_opts list = { NULL, 0 };
	const char *commit = NULL, *limit = NULL;
	char path[CLI_PATH_MAX], *pos[1], page[24];
	int json = 0, running = 0, all = 0, read = 0, n, status;
	const struct cli_opt opts[] = { { "--running", NULL, &running },
					{ "--commit", &commit, NULL },
					{ "--limit", &limit, NULL },
					{ "--all", NULL, &all },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("builds", argc, argv, opts, pos, 0, 1,
				     &n)) != CLI_EXIT_OK)
		return status;
	if (all == (n == 1)) {
		cli_fail("builds: give a PROJECT, or --all for every project's");
		return CLI_EXIT_USAGE;
	}
	if (n == 1 && (status = cli_check_slug("project", pos[0])) != CLI_EXIT_OK)
		return status;
	if (limit && (status = parse_limit(limit, &list.max)) != CLI_EXIT_OK)
		return status;
	/* The newest N in one page where a page holds them. */
	snprintf(page, sizeof(page), "%zu", list.max);
	if ((running && lc_query_add(&q, "running", "true") != LC_OK) ||
	    (commit && lc_query_add(&q, "commit", commit) != LC_OK) ||
	    (list.max && list.max <= BUILDS_PAGE_MAX &&
	     lc_query_add(&q, "limit", page) != LC_OK)) {
		lc_query_dispose(&q);
		return cli_fail("out of memory");
	}
	if ((status = cli_session_open(ctx, &s)) == CLI_EXIT_OK) {
		s.project = n == 1 ? pos[0] : NULL;
		if (all)
			snprintf(path, sizeof(path), "%s", LC_ALL_BUILDS_PATH);
		else
			snprintf(path, sizeof(path),
				 "/api/v3/projects/%s/builds/", pos[0]);
		if (all)
			cli_table_init(&t, "ID", "PROJECT", "VERSION", "STATE",
				       "RESULT", "COMMIT", "CREATED",
				       "DURATION", "CACHE", NULL);
		else
			cli_table_init(&t, "ID", "VERSION", "STATE", "RESULT",
				       "COMMIT", "CREATED", "DURATION",
				       "CACHE", NULL);
		memset(&queue, 0, sizeof(queue));
		ref.s = &s;
		ref.q = &queue;
		ref.read = &read;
		ref.json = json;
		t.payload = &ref;
		status = cli_print_list_with(&s, path, &q, json, &t, build_row,
					     &list);
		if (status != CLI_EXIT_OK && all &&
		    lc_client_remote(s.client) == LC_REMOTE_SERVICE)
			cli_fail("builds --all is a Lectern's: this instance "
				 "lists builds one project at a time");
		lc_queue_dispose(&queue);
		cli_session_close(&s);
	}
	lc_query_dispose(&q);
	return status;
}

/* ---- build ---------------------------------------------------------------- */

/* The project's default version (caller frees). */
static int default_version(struct cli_session *s, const char *project,
			   char **out)
{
	struct lc_project *p = NULL;
	struct lc_error err;

	if (lc_project_get(s->client, project, NULL, &p, &err) != LC_OK)
		return cli_fail_request(s, &err);
	*out = strdup(p->default_version ? p->default_version : "latest");
	lc_project_free(p);
	return *out ? CLI_EXIT_OK : cli_fail("out of memory");
}

/* After watching: the result, and with --exit-status its failure. */
static int report_build(const struct lc_build *b, int json, int exit_status)
{
	int status = CLI_EXIT_OK;

	if (json)
		status = cli_print_json(b->raw);
	else if (b->success == 1)
		cli_print(stdout, "build %lld passed\n", b->id);
	else /* "finished" alone would not say how */
		cli_print(stdout, "build %lld %s: %s\n", b->id,
			  b->state && strcmp(b->state, "cancelled") == 0
				  ? "cancelled"
				  : "failed",
			  b->error && *b->error ? b->error : "no error message");
	if (status == CLI_EXIT_OK && exit_status && b->success != 1)
		status = cli_fail("build %lld failed", b->id);
	return status;
}

/* How a command that triggered a build goes on. */
struct trigger_opts {
	int watch, exit_status, json;
};

/* Follow the triggered build b to its end (--watch: each state as a
 * line), then report it. */
static int follow(struct cli_session *s, const char *project,
		  const struct lc_build *b, const struct trigger_opts *o)
{
	struct lc_build *done_build = NULL;
	int status = cli_watch_build(s, project, b->id,
				     o->watch && !o->json ? CLI_WATCH_LINES
							  : CLI_WATCH_QUIET,
				     &done_build);

	if (status == CLI_EXIT_OK)
		status = report_build(done_build, o->json, o->exit_status);
	lc_build_free(done_build);
	return status;
}

/* Say that b was triggered (the line fmt formats, or its JSON), then with
 * --watch or --exit-status follow it: what build and preview-branch do. */
static int triggered(struct cli_session *s, const char *project,
		     const struct lc_build *b, const struct trigger_opts *o,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int triggered(struct cli_session *s, const char *project,
		     const struct lc_build *b, const struct trigger_opts *o,
		     const char *fmt, ...)
{
	int follows = o->watch || o->exit_status;
	va_list ap;

	if (o->json && !follows)
		return cli_print_json(b->raw);
	if (!o->json) {
		va_start(ap, fmt);
		cli_vprint(stdout, fmt, ap);
		va_end(ap);
	}
	return follows ? follow(s, project, b, o) : CLI_EXIT_OK;
}

int cli_cmd_build(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	char *pos[2], *version = NULL;
	struct trigger_opts o = { 0 };
	int fresh = 0, n, status;
	const struct cli_opt opts[] = { { "--watch", NULL, &o.watch },
					{ "--exit-status", NULL, &o.exit_status },
					{ "--json", NULL, &o.json },
					{ "--fresh", NULL, &fresh },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("build", argc, argv, opts, pos, 1,
					     2, &n)) != CLI_EXIT_OK ||
	    (n == 2 &&
	     (status = cli_check_slug("version", pos[1])) != CLI_EXIT_OK))
		return status;
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
		    CLI_EXIT_OK ||
	    (status = cli_session_writable(&s)) != CLI_EXIT_OK)
		goto done;
	s.version = n == 2 ? pos[1] : NULL;
	if (n == 2)
		version = strdup(pos[1]);
	else if ((status = default_version(&s, pos[0], &version)) !=
		 CLI_EXIT_OK)
		goto done;
	if (version == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	s.version = version;
	if (lc_build_trigger_fresh(s.client, pos[0], version, fresh, &b,
				   &err) != LC_OK) {
		status = cli_fail_request(&s, &err);
		goto done;
	}
	status = triggered(&s, pos[0], b, &o,
			   "triggered build %lld of %s/%s\n", b->id, pos[0],
			   version);
done:
	lc_build_free(b);
	free(version);
	cli_session_close(&s);
	return status;
}

/* ---- preview-branch --------------------------------------------------------- */

int cli_cmd_preview_branch(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	char *pos[2], *url = NULL;
	struct trigger_opts o = { 0 };
	int n, status;
	const struct cli_opt opts[] = { { "--watch", NULL, &o.watch },
					{ "--exit-status", NULL, &o.exit_status },
					{ "--json", NULL, &o.json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("preview-branch", argc, argv, opts,
					     pos, 2, 2, &n)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK ||
	    (status = cli_session_writable(&s)) != CLI_EXIT_OK)
		goto done;
	if (lc_preview_branch(s.client, pos[0], pos[1], &b, &url, &err) !=
	    LC_OK) {
		status = cli_fail_client(&err);
		goto done;
	}
	status = triggered(&s, pos[0], b, &o,
			   "triggered build %lld of %s's preview of %s: %s\n",
			   b->id, pos[0], pos[1], url ? url : "");
done:
	lc_build_free(b);
	free(url);
	cli_session_close(&s);
	return status;
}

/* ---- cancel --------------------------------------------------------------- */

int cli_cmd_cancel(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	char *pos[1], *project = NULL;
	long long id;
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("cancel", argc, argv, opts, pos, 1, 1,
				     &n)) != CLI_EXIT_OK ||
	    (status = cli_parse_build_id("cancel", pos[0], &id)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK ||
	    (status = cli_session_writable(&s)) != CLI_EXIT_OK ||
	    (status = cli_build_project(&s, id, &project)) != CLI_EXIT_OK)
		goto done;
	s.project = project;
	if (lc_build_cancel(s.client, project, id, &b, &err) != LC_OK) {
		/* The service has no cancel in its API (its dashboard has). */
		if (lc_client_remote(s.client) == LC_REMOTE_SERVICE &&
		    err.status == 404)
			status = cli_fail("cancel is a Lectern's: this instance's "
					  "API cancels no build");
		/* A Lectern's one refusal: the build ended (the API's detail
		 * names neither the build nor what is left to do). */
		else if (err.status == 400)
			status = cli_fail("build %lld of %s has already "
					  "finished: nothing to cancel",
					  id, project);
		else
			status = cli_fail_request(&s, &err);
		goto done;
	}
	if (json && b)
		status = cli_print_json(b->raw);
	else
		cli_print(stdout, "cancelled build %lld of %s%s%s\n", id,
			  project, b && b->version ? "/" : "",
			  b && b->version ? b->version : "");
done:
	lc_build_free(b);
	free(project);
	cli_session_close(&s);
	return status;
}

/* ---- log ------------------------------------------------------------------ */

/* "cache: kept", or "cache: partly (doctrees: docs/conf.py changed)": the
 * v3 build's, where the server says it (a Lectern); nothing otherwise. */
static void print_cache(struct cli_session *s, const struct lc_build *v2)
{
	struct lc_build *b = NULL;
	struct lc_error err;

	if (v2->project &&
	    lc_build_get(s->client, v2->project, v2->id, NULL, &b, &err) ==
		    LC_OK &&
	    b->cache != LC_CACHE_UNKNOWN)
		cli_print(stdout, "cache: %s%s%s%s\n", lc_build_cache_word(b),
			  b->cache_reason ? " (" : "",
			  b->cache_reason ? b->cache_reason : "",
			  b->cache_reason ? ")" : "");
	lc_build_free(b);
}

/* How much of each command `log` has printed, so following prints only
 * what is new. */
struct log_state {
	size_t *printed;   /* bytes of output printed, per command */
	int *ended;        /* its exit status line printed */
	size_t len;
};

static int log_grow(struct log_state *st, size_t len)
{
	size_t *printed;
	int *ended;

	if (len <= st->len)
		return 0;
	printed = realloc(st->printed, len * sizeof(*printed));
	if (printed)
		st->printed = printed;
	ended = realloc(st->ended, len * sizeof(*ended));
	if (ended)
		st->ended = ended;
	if (printed == NULL || ended == NULL)
		return -1;
	memset(printed + st->len, 0, (len - st->len) * sizeof(*printed));
	memset(ended + st->len, 0, (len - st->len) * sizeof(*ended));
	st->len = len;
	return 0;
}


/* Print what is new in the build's commands since the last call. */
static int log_print(struct log_state *st, const struct lc_build *b)
{
	size_t i, old = st->len;

	if (log_grow(st, b->commands_len) < 0)
		return cli_fail("out of memory");
	for (i = 0; i < b->commands_len; i++) {
		const struct lc_build_command *c = &b->commands[i];
		const char *out = c->output ? c->output : "";
		size_t len = strlen(out);

		if (i >= old)
			cli_print(stdout, "$ %s\n",
				  c->command ? c->command : "");
		if (len > st->printed[i]) {
			cli_print_output(stdout, out + st->printed[i],
					 len - st->printed[i]);
			st->printed[i] = len;
		}
		if (!st->ended[i] && c->exit_code >= 0) {
			if (len > 0 && out[len - 1] != '\n')
				putchar('\n');
			if (c->exit_code != 0)
				cli_print(stdout, "(exit status %lld)\n",
					  c->exit_code);
			st->ended[i] = 1;
		}
	}
	fflush(stdout);
	return ferror(stdout) ? cli_fail("cannot write the output")
			      : CLI_EXIT_OK;
}

/* The log is the v2 build detail's. The hosted service's v2 does not
 * show a private project's builds: say where the build's state is. */
static int log_fail(struct cli_session *s, long long id,
		    const struct lc_error *err)
{
	if (err->status == 404 &&
	    lc_client_remote(s->client) == LC_REMOTE_SERVICE)
		return cli_fail("build %lld: this instance's v2 API does not "
				"show it (a private project's build?), and the "
				"log is v2's; 'lectern builds PROJECT' shows its "
				"state",
				id);
	return cli_fail_request(s, err);
}

int cli_cmd_log(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct log_state st = { 0 };
	struct lc_build *b = NULL;
	struct lc_error err;
	char *pos[1];
	long long id;
	int follow = 0, json = 0, n, status;
	const struct cli_opt opts[] = { { "--follow", NULL, &follow },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("log", argc, argv, opts, pos, 1, 1, &n)) !=
		    CLI_EXIT_OK ||
	    (status = cli_parse_build_id("log", pos[0], &id)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	s.build = id;
	for (;;) {
		lc_build_free(b);
		b = NULL;
		if (lc_v2_build_get(s.client, id, &b, &err) != LC_OK) {
			status = log_fail(&s, id, &err);
			goto done;
		}
		if (!json && (status = log_print(&st, b)) != CLI_EXIT_OK)
			goto done;
		if (!follow || is_done(b))
			break;
		cli_sleep_ms(FOLLOW_POLL_MS);
	}
	if (json) {
		status = cli_print_json(b->raw);
		goto done;
	}
	/* The log ends with why the build failed, as the build's own one
	 * line names it (the last of a long log is rarely the cause), and
	 * with what it reused of earlier builds' work. */
	if (is_done(b) && b->error)
		cli_print(stdout, "error: %s\n", b->error);
	if (is_done(b))
		print_cache(&s, b);
	if (follow)
		cli_print(stdout, "build %lld %s\n", id,
			  b->success == 1 ? "passed" : "failed");
done:
	lc_build_free(b);
	free(st.printed);
	free(st.ended);
	cli_session_close(&s);
	return status;
}
