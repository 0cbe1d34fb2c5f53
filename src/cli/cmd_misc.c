/*
 * The remaining HTTP commands: search, a project's redirects and
 * environment variables, and `api`, a raw request for anything the other
 * commands do not cover. A variable's value is read from stdin or typed at
 * a prompt with echo off, never taken from the command line.
 */
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"

/* A variable's value: the service accepts far less; more is a mistake. */
#define ENV_VALUE_MAX (64 * 1024)

/* ---- search --------------------------------------------------------------- */

/* Section blocks shown under each page: enough to see why it matched. */
#define SEARCH_BLOCKS_SHOWN 3

/* The entities the service's highlighter writes (search.md, "Highlights"). */
static const struct {
	const char *entity, *text;
} entities[] = { { "&amp;", "&" },  { "&lt;", "<" },   { "&gt;", ">" },
		 { "&quot;", "\"" }, { "&#x27;", "'" }, { "&#39;", "'" },
		 { "&#x2F;", "/" } };

/* len bytes of a highlight's text (between its <span> and </span> tags)
 * on one line through the terminal filter, its entities decoded. */
static void print_highlight_text(const char *html, size_t len)
{
	char *text = cli_line_copy(html, len), *out = text;
	const char *p = text;
	size_t i, n;

	if (text == NULL)
		return;
	while (*p) {
		for (i = 0; i < sizeof(entities) / sizeof(entities[0]); i++)
			if (strncmp(p, entities[i].entity,
				    n = strlen(entities[i].entity)) == 0)
				break;
		if (i < sizeof(entities) / sizeof(entities[0])) {
			*out++ = *entities[i].text; /* one character each */
			p += n;
		} else {
			*out++ = *p++;
		}
	}
	*out = '\0';
	fputs(text, stdout);
	free(text);
}

/* A highlight (HTML-escaped text, each match in <span>...</span>) as
 * one line: the matches bold on a colour terminal, plain elsewhere; the
 * text around them passes the terminal filter. */
static void print_highlight(const char *html, int color)
{
	const char *open, *close, *tag;

	while (*html) {
		open = strstr(html, "<span>");
		close = strstr(html, "</span>");
		tag = open && (close == NULL || open < close) ? open : close;
		print_highlight_text(html, tag ? (size_t)(tag - html)
					       : strlen(html));
		if (tag == NULL)
			return;
		if (color)
			fputs(tag == close ? "\033[0m" : "\033[1;33m", stdout);
		html = tag + (tag == close ? 7 : 6);
	}
}

/* The first highlight, else the plain text (on one line through the
 * terminal filter, as a highlight's text). */
static void print_field(const struct lc_highlights *hl, const char *plain,
			int color)
{
	char *line;

	if (hl->len > 0 && hl->items[0]) {
		print_highlight(hl->items[0], color);
		return;
	}
	plain = plain ? plain : "";
	if ((line = cli_line_copy(plain, strlen(plain))) != NULL)
		fputs(line, stdout);
	free(line);
}

/* "guide/latest /en/latest/install.html  Install", then under it the
 * sections (or documentation objects) that matched, each with its
 * snippet: "    Setup: Run it." */
static void print_result(const struct lc_search_result *r, int color)
{
	size_t i, shown = 0;

	cli_print(stdout, "%s/%s %s  ", r->project ? r->project : "",
		  r->version ? r->version : "", r->path ? r->path : "");
	print_field(&r->hl_title, r->title, color);
	putchar('\n');
	for (i = 0; i < r->blocks_len && shown < SEARCH_BLOCKS_SHOWN; i++) {
		const struct lc_search_block *b = &r->blocks[i];
		int domain = b->type && strcmp(b->type, "domain") == 0;

		fputs("    ", stdout);
		if (domain)
			print_field(&b->hl_name, b->name, color);
		else
			print_field(&b->hl_title, b->title, color);
		if (domain && b->role)
			cli_print(stdout, " (%s)", b->role);
		if ((b->hl_content.len > 0) || (b->content && *b->content)) {
			fputs(": ", stdout);
			print_field(&b->hl_content, b->content, color);
		}
		putchar('\n');
		shown++;
	}
}

int cli_cmd_search(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct lc_list *page = NULL;
	struct lc_error err;
	const char *project = NULL, *version = NULL;
	char *pos[1];
	size_t i;
	int json = 0, n, status, color = cli_use_color(stdout);
	const struct cli_opt opts[] = { { "--project", &project, NULL },
					{ "--version", &version, NULL },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("search", argc, argv, opts, pos, 1, 1,
				     &n)) != CLI_EXIT_OK ||
	    (project && (status = cli_check_slug("project", project)) !=
				CLI_EXIT_OK))
		return status;
	if (version && project == NULL) {
		cli_fail("search: --version needs --project");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	/* One page of the best matches, as the service ranks them; without
	 * a project, across every project of the user. */
	if (lc_search(s.client, pos[0], project, version, 0, 0, &page, &err) !=
	    LC_OK) {
		status = cli_fail_request(&s, &err);
		goto done;
	}
	if (json) {
		status = cli_print_json(page->raw);
		goto done;
	}
	for (i = 0; i < page->len; i++)
		print_result(page->items[i], color);
	if (page->len == 0)
		cli_print(stdout, "no page matches '%s'\n", pos[0]);
	else if (page->count > (long long)page->len)
		cli_print(stdout,
			  "(the best %zu of %lld pages; --json for the API's "
			  "answer)\n", page->len, page->count);
	status = ferror(stdout) ? cli_fail("cannot write the output")
				: CLI_EXIT_OK;
done:
	lc_list_free(page);
	cli_session_close(&s);
	return status;
}

/* ---- redirects ------------------------------------------------------------ */

static int redirect_row(struct cli_table *t, const cJSON *item)
{
	struct lc_redirect *r = NULL;
	struct lc_error err;
	char pk[24];

	if (lc_redirect_parse(item, &r, &err) != LC_OK)
		return cli_fail_client(&err);
	snprintf(pk, sizeof(pk), "%lld", r->pk);
	cli_table_row(t, pk, r->type ? r->type : "",
		      r->from_url ? r->from_url : "",
		      r->to_url ? r->to_url : "", NULL);
	lc_redirect_free(r);
	return CLI_EXIT_OK;
}

static int parse_id(const char *cmd, const char *arg, long long *id)
{
	char *end;

	*id = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || *id <= 0) {
		cli_fail("%s: '%s' is not an id", cmd, arg);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

static int redirect_change(struct cli_session *s, char **pos, int n)
{
	struct lc_redirect *r = NULL;
	struct lc_error err;
	long long pk;
	int status;

	if (strcmp(pos[1], "add") == 0 && n >= 3) {
		if ((status = cli_session_writable(s)) != CLI_EXIT_OK)
			return status;
		if (lc_redirect_create(s->client, pos[0], pos[2],
				       n > 3 ? pos[3] : NULL,
				       n > 4 ? pos[4] : NULL, &r,
				       &err) != LC_OK)
			return cli_fail_request(s, &err);
		cli_print(stdout, "added redirect %lld\n", r->pk);
		lc_redirect_free(r);
		return CLI_EXIT_OK;
	}
	if (strcmp(pos[1], "remove") == 0 && n == 3) {
		if ((status = parse_id("redirects", pos[2], &pk)) !=
			    CLI_EXIT_OK ||
		    (status = cli_session_writable(s)) != CLI_EXIT_OK)
			return status;
		if (lc_redirect_delete(s->client, pos[0], pk, &err) != LC_OK)
			return cli_fail_request(s, &err);
		cli_print(stdout, "removed redirect %lld\n", pk);
		return CLI_EXIT_OK;
	}
	cli_fail("redirects: expected 'add TYPE [FROM [TO]]' or 'remove ID'");
	return CLI_EXIT_USAGE;
}

int cli_cmd_redirects(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_table t;
	char *pos[5];
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("redirects", argc, argv, opts, pos,
					     1, 5, &n)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (n > 1) {
		status = redirect_change(&s, pos, n);
	} else {
		cli_table_init(&t, "ID", "TYPE", "FROM", "TO", NULL);
		status = cli_print_project_list(&s, pos[0], "redirects", json,
						&t, redirect_row);
	}
	cli_session_close(&s);
	return status;
}

/* ---- env ------------------------------------------------------------------ */

static int envvar_row(struct cli_table *t, const cJSON *item)
{
	struct lc_envvar *e = NULL;
	struct lc_error err;
	char pk[24], when[CLI_TIME_CELL_MAX];

	if (lc_envvar_parse(item, &e, &err) != LC_OK)
		return cli_fail_client(&err);
	snprintf(pk, sizeof(pk), "%lld", e->pk);
	cli_table_row(t, pk, e->name ? e->name : "",
		      e->public_ == LC_UNKNOWN ? "" : e->public_ ? "yes" : "no",
		      cli_time_cell(e->created, when), NULL);
	lc_envvar_free(e);
	return CLI_EXIT_OK;
}

/* Read a line from the terminal without echoing it. */
static int prompt_secret(const char *name, char *buf, size_t size)
{
	struct termios old, quiet;
	int ok;

	cli_print(stderr, "Value of %s: ", name);
	fflush(stderr);
	if (tcgetattr(STDIN_FILENO, &old) < 0)
		return -1;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
	ok = fgets(buf, (int)size, stdin) != NULL;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
	fputc('\n', stderr);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

/* The whole of stdin, less one final newline (`echo x | lectern env ...`). */
static int read_stdin(char *buf, size_t size)
{
	size_t n = fread(buf, 1, size - 1, stdin);

	if (ferror(stdin) || (n == size - 1 && !feof(stdin) &&
			      fgetc(stdin) != EOF))
		return -1;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '\r')
		buf[--n] = '\0';
	return 0;
}

static int env_add(struct cli_session *s, const char *project,
		   const char *name, int public_)
{
	struct lc_envvar *e = NULL;
	struct lc_error err;
	char *value;
	int status = CLI_EXIT_OK, got;

	if ((value = malloc(ENV_VALUE_MAX + 1)) == NULL)
		return cli_fail("out of memory");
	got = isatty(STDIN_FILENO)
		      ? prompt_secret(name, value, ENV_VALUE_MAX + 1)
		      : read_stdin(value, ENV_VALUE_MAX + 1);
	if (got < 0) {
		status = cli_fail("env: cannot read the value of %s (at most "
				  "%d bytes, from stdin or the terminal)",
				  name, ENV_VALUE_MAX);
		goto done;
	}
	if (lc_envvar_create(s->client, project, name, value,
			     public_ ? 1 : LC_UNKNOWN, &e, &err) != LC_OK) {
		status = cli_fail_request(s, &err);
		goto done;
	}
	cli_print(stdout, "added variable %s to %s\n", e->name ? e->name : name,
		  project);
done:
	memset(value, 0, ENV_VALUE_MAX + 1);
	free(value);
	lc_envvar_free(e);
	return status;
}

/* What envvar_id seeks: a variable by its name (unique in a project). */
struct named_envvar {
	const char *name;
	long long pk;
};

static int named(const cJSON *item, void *arg)
{
	struct named_envvar *want = arg;

	if (strcmp(cli_json_str(item, "name"), want->name) != 0)
		return 0;
	want->pk = (long long)cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(item, "pk"));
	return 1;
}

/* The id of the project's variable called `name`. */
static int envvar_id(struct cli_session *s, const char *project,
		     const char *name, long long *pk)
{
	struct named_envvar want = { name, 0 };
	struct lc_error err;

	*pk = 0;
	if (cli_find_item(s, &err, named, &want,
			  "/api/v3/projects/%s/environmentvariables/",
			  project) < 0)
		return cli_fail_request(s, &err);
	if ((*pk = want.pk) <= 0)
		return cli_fail("'%s' has no variable %s", project, name);
	return CLI_EXIT_OK;
}

static int env_change(struct cli_session *s, char **pos, int n, int public_)
{
	struct lc_error err;
	long long pk;
	int status;

	if (n != 3 ||
	    (strcmp(pos[1], "add") != 0 && strcmp(pos[1], "remove") != 0)) {
		cli_fail("env: expected 'add NAME' or 'remove NAME' (the value "
			 "is read from stdin, never the command line)");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_writable(s)) != CLI_EXIT_OK)
		return status;
	if (strcmp(pos[1], "add") == 0)
		return env_add(s, pos[0], pos[2], public_);
	if ((status = envvar_id(s, pos[0], pos[2], &pk)) != CLI_EXIT_OK)
		return status;
	if (lc_envvar_delete(s->client, pos[0], pk, &err) != LC_OK)
		return cli_fail_request(s, &err);
	cli_print(stdout, "removed variable %s from %s\n", pos[2], pos[0]);
	return CLI_EXIT_OK;
}

int cli_cmd_env(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_table t;
	char *pos[3];
	int json = 0, public_ = 0, n, status;
	const struct cli_opt opts[] = { { "--public", NULL, &public_ },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("env", argc, argv, opts, pos, 1, 3,
					     &n)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (n > 1) {
		status = env_change(&s, pos, n, public_);
	} else {
		cli_table_init(&t, "ID", "NAME", "PUBLIC", "CREATED", NULL);
		status = cli_print_project_list(&s, pos[0],
						"environmentvariables", json,
						&t, envvar_row);
	}
	cli_session_close(&s);
	return status;
}

/* ---- api ------------------------------------------------------------------ */

static int is_read_method(const char *method)
{
	return !strcmp(method, "GET") || !strcmp(method, "HEAD") ||
	       !strcmp(method, "OPTIONS");
}

/* The body as received; JSON is printed on one line, as other --json.
 * Any other body goes to a terminal through the terminal filter (it is
 * the instance's text), and to a file or pipe byte for byte (a download,
 * say). */
static int print_body(const struct lc_response *r)
{
	if (r->json)
		return cli_print_json(r->json);
	if (isatty(STDOUT_FILENO))
		cli_write(stdout, r->body, r->body_len, LC_TERMINAL_TEXT);
	else
		fwrite(r->body, 1, r->body_len, stdout);
	if (r->body_len > 0 && r->body[r->body_len - 1] != '\n')
		putchar('\n');
	return CLI_EXIT_OK;
}

int cli_cmd_api(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct lc_response *r = NULL;
	struct lc_error err;
	const char *method = NULL, *data = NULL;
	char *pos[1];
	int n, status, rc;
	const struct cli_opt opts[] = { { "-X", &method, NULL },
					{ "--method", &method, NULL },
					{ "-d", &data, NULL },
					{ "--data", &data, NULL },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("api", argc, argv, opts, pos, 1, 1, &n)) !=
	    CLI_EXIT_OK)
		return status;
	if (method == NULL)
		method = data ? "POST" : "GET";
	if (pos[0][0] != '/') {
		cli_fail("api: PATH starts with '/' (e.g. /api/v3/projects/)");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	if (!is_read_method(method) &&
	    (status = cli_session_writable(&s)) != CLI_EXIT_OK)
		goto done;
	rc = lc_request(s.client, method, pos[0], data, &r, &err);
	/* An error status still shows its body on stdout, like the API. */
	if (r && (status = print_body(r)) != CLI_EXIT_OK)
		goto done;
	if (rc != LC_OK)
		status = cli_fail_request(&s, &err);
done:
	lc_response_free(r);
	cli_session_close(&s);
	return status;
}
