/*
 * The plumbing under the HTTP commands (see cmd.h): open a session on the
 * chosen context, parse a command's options, print lists as tables or as
 * the API's JSON, report a failed request as one line, and follow a build
 * until it finishes.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmd.h"

/* How often a watched build is polled; the server answers from its cache
 * while nothing changed, so this costs little. */
#define WATCH_POLL_MS 500
/* Slugs a 404 compares the missing one with: a page or five of a
 * person's projects or a project's versions. */
#define NEAR_SCAN_MAX 500

int cli_session_open(struct cli_ctx *ctx, struct cli_session *s)
{
	struct lc_client_options opts = { 0 };
	struct lc_error err;
	int status;

	memset(s, 0, sizeof(*s));
	if ((status = cli_connect(ctx, &s->conn)) != CLI_EXIT_OK)
		return status;
	opts.api_url = s->conn.base_url;
	opts.token = s->conn.token;
	opts.docs_domain = s->conn.docs_url;
	opts.unix_socket = s->conn.unix_socket;
	opts.link_name = s->conn.link_name;
	if (lc_client_new(&s->client, &opts, &err) != LC_OK) {
		status = cli_fail("context '%s': %s", s->conn.name, err.message);
		cli_session_close(s);
		return status;
	}
	return CLI_EXIT_OK;
}

int cli_session_open_project(struct cli_ctx *ctx, struct cli_session *s,
			     const char *slug)
{
	int status = cli_session_open(ctx, s);

	if (status == CLI_EXIT_OK)
		s->project = slug;
	return status;
}

void cli_session_close(struct cli_session *s)
{
	lc_client_free(s->client);
	cli_conn_dispose(&s->conn);
	memset(s, 0, sizeof(*s));
}

int cli_session_writable(const struct cli_session *s)
{
	if (s->conn.readonly)
		return cli_fail("context '%s' is read-only", s->conn.name);
	return CLI_EXIT_OK;
}

int cli_fail_client(const struct lc_error *err)
{
	const char *msg = err->message[0] ? err->message
					  : lc_code_str(err->code);

	if (err->status > 0 && err->code == LC_EHTTP)
		return cli_fail("%s (HTTP %ld)", msg, err->status);
	return cli_fail("%s", msg);
}

/* ---- What is missing ------------------------------------------------------ */

/* Whether err is the service's 404 of a missing `what` ("No Project matches
 * the given query."). */
static int missing(const struct lc_error *err, const char *what)
{
	char detail[64];

	snprintf(detail, sizeof(detail), "No %s matches the given query.",
		 what);
	return err->code == LC_EHTTP && err->status == 404 &&
	       strcmp(err->message, detail) == 0;
}

/* Offer the slugs of the list at path (its first NEAR_SCAN_MAX items) to
 * n; a failure only means no suggestion. */
static void near_slugs(struct cli_session *s, const char *path,
		       struct cli_near *n)
{
	struct lc_iter *it = NULL;
	struct lc_error err;
	const cJSON *item;
	int i = 0;

	if (lc_iter_new(&it, s->client, path, NULL, &err) != LC_OK)
		return;
	while (i++ < NEAR_SCAN_MAX && lc_iter_next(it, &item, &err) == 1)
		cli_near_add(n, cli_json_str(item, "slug"));
	lc_iter_free(it);
}

int cli_fail_request(struct cli_session *s, const struct lc_error *err)
{
	struct cli_near near;
	char path[CLI_PATH_MAX], hint[256], where[128];

	if (s->conn.is_local)
		snprintf(where, sizeof(where), "the local engine");
	else
		snprintf(where, sizeof(where), "context %s", s->conn.name);
	if (s->project && missing(err, "Project")) {
		cli_near_init(&near, s->project);
		near_slugs(s, "/api/v3/projects/", &near);
		return cli_fail("no project '%s' on %s%s", s->project, where,
				cli_near_text(&near, hint, sizeof(hint)));
	}
	if (s->project && s->version && missing(err, "Version")) {
		cli_near_init(&near, s->version);
		snprintf(path, sizeof(path), "/api/v3/projects/%s/versions/",
			 s->project);
		near_slugs(s, path, &near);
		return cli_fail("no version '%s' of project '%s'%s", s->version,
				s->project,
				cli_near_text(&near, hint, sizeof(hint)));
	}
	if (s->build > 0 && missing(err, "Build")) {
		if (s->project)
			return cli_fail("no build %lld of project '%s'",
					s->build, s->project);
		return cli_fail("no build %lld on %s", s->build, where);
	}
	return cli_fail_client(err);
}

/* ---- Arguments ------------------------------------------------------------ */

static const struct cli_opt *find_opt(const struct cli_opt *opts,
				      const char *arg, const char **inline_val)
{
	size_t n;

	*inline_val = NULL;
	for (; opts->name; opts++) {
		n = strlen(opts->name);
		if (strcmp(arg, opts->name) == 0)
			return opts;
		if (opts->value && strncmp(arg, opts->name, n) == 0 &&
		    arg[n] == '=') {
			*inline_val = arg + n + 1;
			return opts;
		}
	}
	return NULL;
}

/* "build: unknown option '--jsn'; did you mean '--json'?" */
static void unknown_option(const char *cmd, const char *arg,
			   const struct cli_opt *opts)
{
	struct cli_near near;
	char name[CLI_NEAR_NAME_MAX], hint[256];

	/* "--jsn=x" is compared as "--jsn". */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	cli_near_init(&near, name);
	for (; opts->name; opts++)
		cli_near_add(&near, opts->name);
	cli_near_add(&near, "--help");
	cli_fail("%s: unknown option '%s'%s", cmd, arg,
		 cli_near_text(&near, hint, sizeof(hint)));
}

int cli_parse_args(const char *cmd, int argc, char **argv,
		   const struct cli_opt *opts, char **pos, int min_pos,
		   int max_pos, int *npos)
{
	const struct cli_opt *opt;
	const char *inline_val;
	int i, n = 0, dashdash = 0;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];

		if (!dashdash && strcmp(arg, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (dashdash || arg[0] != '-' || arg[1] == '\0') {
			if (n >= max_pos) {
				cli_fail("%s: unexpected argument '%s'", cmd, arg);
				return CLI_EXIT_USAGE;
			}
			pos[n++] = argv[i];
			continue;
		}
		if ((opt = find_opt(opts, arg, &inline_val)) == NULL) {
			unknown_option(cmd, arg, opts);
			return CLI_EXIT_USAGE;
		}
		if (opt->flag) {
			*opt->flag = 1;
		} else if (inline_val) {
			*opt->value = inline_val;
		} else if (i + 1 < argc) {
			*opt->value = argv[++i];
		} else {
			cli_fail("%s: %s needs a value", cmd, opt->name);
			return CLI_EXIT_USAGE;
		}
	}
	if (n < min_pos) {
		cli_fail("%s: missing arguments (see 'lectern %s --help')", cmd,
			 cmd);
		return CLI_EXIT_USAGE;
	}
	*npos = n;
	return CLI_EXIT_OK;
}

int cli_check_slug(const char *what, const char *slug)
{
	const char *p;

	for (p = slug; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
			break;
	if (*slug && *p == '\0')
		return CLI_EXIT_OK;
	cli_fail("'%s' is not a %s slug", slug, what);
	return CLI_EXIT_USAGE;
}

int cli_parse_project_args(const char *cmd, int argc, char **argv,
			   const struct cli_opt *opts, char **pos,
			   int min_pos, int max_pos, int *npos)
{
	int status = cli_parse_args(cmd, argc, argv, opts, pos, min_pos,
				    max_pos, npos);

	if (status != CLI_EXIT_OK)
		return status;
	return cli_check_slug("project", pos[0]);
}

int cli_is_build_id(const char *arg)
{
	return *arg && arg[strspn(arg, "0123456789")] == '\0';
}

int cli_parse_build_id(const char *cmd, const char *arg, long long *id)
{
	char *end;

	*id = strtoll(arg, &end, 10);
	if (!cli_is_build_id(arg) || *end != '\0' || *id <= 0) {
		cli_fail("%s: '%s' is not a build id", cmd, arg);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int cli_build_project(struct cli_session *s, long long id, char **project)
{
	struct lc_build *b = NULL;
	struct lc_error err;
	int status = CLI_EXIT_OK;

	*project = NULL;
	s->build = id;
	if (lc_v2_build_get(s->client, id, &b, &err) != LC_OK)
		status = cli_fail_request(s, &err);
	else if (b->project == NULL || (*project = strdup(b->project)) == NULL)
		status = b->project ? cli_fail("out of memory")
				    : cli_fail("build %lld names no project",
					       id);
	lc_build_free(b);
	return status;
}

/* ---- Output --------------------------------------------------------------- */

int cli_print_json(const cJSON *json)
{
	char *text = cJSON_PrintUnformatted(json);

	if (text == NULL)
		return cli_fail("out of memory");
	printf("%s\n", text);
	cJSON_free(text);
	return ferror(stdout) ? cli_fail("cannot write the output")
			      : CLI_EXIT_OK;
}

int cli_print_json_objects(const void *items, size_t n,
			   int (*fill)(const void *items, size_t i, cJSON *o))
{
	cJSON *root = cJSON_CreateArray(), *o;
	size_t i;
	int status;

	for (i = 0; root && i < n; i++) {
		if ((o = cJSON_CreateObject()) == NULL || !fill(items, i, o)) {
			cJSON_Delete(o);
			cJSON_Delete(root);
			return cli_fail("out of memory");
		}
		cJSON_AddItemToArray(root, o);
	}
	status = cli_print_json(root);
	cJSON_Delete(root);
	return status;
}

void cli_response_free_secret(struct lc_response *r)
{
	if (r && r->body)
		memset(r->body, 0, r->body_len);
	lc_response_free(r);
}

int cli_remove_of_project(struct cli_session *s, const char *project,
			  const char *kind, const char *what, const char *id)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	char path[CLI_PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "/api/v3/projects/%s/%s/%s/", project,
		 kind, id);
	rc = lc_request(s->client, "DELETE", path, NULL, &r, &err);
	lc_response_free(r);
	if (rc != LC_OK)
		return cli_fail_request(s, &err);
	cli_print(stdout, "removed %s %s from %s\n", what, id, project);
	return CLI_EXIT_OK;
}

const char *cli_json_str(const cJSON *obj, const char *key)
{
	const char *s = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(obj, key));

	return s ? s : "";
}

/* The envelope the --json output of a whole list has. */
static cJSON *new_envelope(cJSON **results)
{
	cJSON *env = cJSON_CreateObject();

	if (env == NULL || !cJSON_AddNumberToObject(env, "count", 0) ||
	    !cJSON_AddNullToObject(env, "next") ||
	    !cJSON_AddNullToObject(env, "previous") ||
	    (*results = cJSON_AddArrayToObject(env, "results")) == NULL) {
		cJSON_Delete(env);
		return NULL;
	}
	return env;
}

int cli_print_list(struct cli_session *s, const char *path,
		   const struct lc_query *q, int json, struct cli_table *t,
		   cli_row_fn row)
{
	return cli_print_list_with(s, path, q, json, t, row, NULL);
}

int cli_print_list_with(struct cli_session *s, const char *path,
			const struct lc_query *q, int json,
			struct cli_table *t, cli_row_fn row,
			const struct cli_list_opts *opts)
{
	static const struct cli_list_opts whole = { NULL, 0 };
	struct lc_iter *it = NULL;
	struct lc_error err;
	const cJSON *item;
	cJSON *env = NULL, *results = NULL, *copy;
	size_t n = 0;
	int rc = 0, status = CLI_EXIT_OK;

	if (opts == NULL)
		opts = &whole;

	if ((env = new_envelope(&results)) == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	if (lc_iter_new(&it, s->client, path, q, &err) != LC_OK) {
		status = cli_fail_request(s, &err);
		goto done;
	}
	while ((opts->max == 0 || n++ < opts->max) &&
	       (rc = lc_iter_next(it, &item, &err)) == 1) {
		if ((copy = cJSON_Duplicate(item, 1)) == NULL) {
			status = cli_fail("out of memory");
			goto done;
		}
		cJSON_AddItemToArray(results, copy);
	}
	if (rc < 0) {
		status = cli_fail_request(s, &err);
		goto done;
	}
	if (json) { /* the API's own order */
		cJSON_SetNumberValue(cJSON_GetObjectItem(env, "count"),
				     (double)cJSON_GetArraySize(results));
		status = cli_print_json(env);
		goto done;
	}
	if (opts->sort && opts->sort(results) != LC_OK) {
		status = cli_fail("out of memory");
		goto done;
	}
	cJSON_ArrayForEach(item, results)
		if ((status = row(t, item)) != CLI_EXIT_OK)
			goto done;
	status = cli_table_print(t, stdout);
done:
	lc_iter_free(it);
	cJSON_Delete(env);
	cli_table_dispose(t);
	return status;
}

int cli_find_item(struct cli_session *s, struct lc_error *err,
		  cli_match_fn match, void *arg, const char *fmt, ...)
{
	struct lc_iter *it = NULL;
	const cJSON *item;
	char path[CLI_PATH_MAX];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (lc_iter_new(&it, s->client, path, NULL, err) != LC_OK)
		return -1;
	while ((rc = lc_iter_next(it, &item, err)) == 1 && !match(item, arg))
		;
	lc_iter_free(it);
	return rc < 0 ? -1 : rc;
}

int cli_print_project_list(struct cli_session *s, const char *project,
			   const char *resource, int json,
			   struct cli_table *t, cli_row_fn row)
{
	char path[CLI_PATH_MAX];

	snprintf(path, sizeof(path), "/api/v3/projects/%s/%s/", project,
		 resource);
	return cli_print_list(s, path, NULL, json, t, row);
}

int cli_list_command(struct cli_ctx *ctx, const char *name, int argc,
		     char **argv, const char *path, cli_table_fn table,
		     cli_row_fn row)
{
	struct cli_session s;
	struct cli_table t;
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args(name, argc, argv, opts, NULL, 0, 0,
				     &n)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	table(&t, &s, json);
	status = cli_print_list(&s, path, NULL, json, &t, row);
	cli_session_close(&s);
	return status;
}

/* ---- Watching a build ----------------------------------------------------- */

void cli_log_tail_add(struct cli_log_tail *t, const char *data, size_t len)
{
	if (len >= CLI_LOG_TAIL) {
		data += len - CLI_LOG_TAIL;
		len = CLI_LOG_TAIL;
		t->cut = 1;
		t->len = 0;
	}
	if (t->len + len > CLI_LOG_TAIL) {
		size_t drop = t->len + len - CLI_LOG_TAIL;

		memmove(t->text, t->text + drop, t->len - drop);
		t->len -= drop;
		t->cut = 1;
	}
	memcpy(t->text + t->len, data, len);
	t->len += len;
	t->text[t->len] = '\0';
}

/* Whether the line (no line break) is said by error already. */
static int in_error(const char *line, size_t len, const char *error)
{
	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	return error && len > 0 && memmem(error, strlen(error), line, len);
}

void cli_print_log_end(FILE *f, const struct cli_log_tail *t,
		       const char *error, cli_seen_fn seen,
		       const void *payload)
{
	const char *p = t->text, *end = t->text + t->len, *nl;
	size_t len;

	/* A line cut by the dropping starts mid-word: from the next one. */
	if (t->cut) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return;
		p = nl + 1;
		fputs("...\n", f);
	}
	for (; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (len == 0 || in_error(p, len, error) ||
		    (seen && seen(p, len, payload)))
			continue;
		cli_print_output(f, p, len);
		fputc('\n', f);
	}
}

void cli_print_output(FILE *f, const char *text, size_t len)
{
	cli_write(f, text, len,
		  LC_TERMINAL_RETURNS |
			  (cli_use_color(f) ? LC_TERMINAL_COLOURS : 0));
}

void cli_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A spinner line on stderr, redrawn in place. */
static void draw_progress(long long id, const char *state, double elapsed,
			  unsigned tick)
{
	static const char spin[] = "|/-\\";

	fputs("\r\033[K", stderr);
	cli_print(stderr, "%c build %lld: %s (%.0f s)", spin[tick % 4], id,
		  state, elapsed);
	fflush(stderr);
}

int cli_watch_build(struct cli_session *s, const char *project, long long id,
		    enum cli_watch_mode mode, struct lc_build **out)
{
	struct lc_build *b = NULL;
	struct lc_error err;
	char last[64] = "";
	double start = now_s();
	int progress = cli_use_progress();
	unsigned tick = 0;

	*out = NULL;
	for (;;) {
		lc_build_free(b);
		b = NULL;
		if (lc_build_get(s->client, project, id, NULL, &b, &err) !=
		    LC_OK) {
			if (progress)
				fputc('\n', stderr);
			return cli_fail_request(s, &err);
		}
		if (b->state && strcmp(b->state, last) != 0) {
			snprintf(last, sizeof(last), "%s", b->state);
			if (mode == CLI_WATCH_LINES) {
				/* The line goes where the spinner was. */
				if (progress)
					fputs("\r\033[K", stderr);
				cli_print(stdout, "build %lld: %s\n", id,
					  b->state);
				fflush(stdout);
			}
		}
		if (progress)
			draw_progress(id, last, now_s() - start, tick++);
		if (b->state && (strcmp(b->state, "finished") == 0 ||
				 strcmp(b->state, "cancelled") == 0))
			break;
		cli_sleep_ms(WATCH_POLL_MS);
	}
	if (progress)
		fputs("\r\033[K", stderr);
	*out = b;
	return CLI_EXIT_OK;
}
