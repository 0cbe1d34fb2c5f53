/*
 * The command table and the plumbing every command uses: dispatch by the
 * leading words of the command line, per-command --help, the data directory
 * and the store, and one-line error reporting.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "cmd_tui.h"
#include "context.h"
#include "lectern/errors.h"
#include "lectern/store.h"
#include "serve_options.h"
#include "warnings.h"

static const struct cli_command commands[] = {
	{ "serve",
	  "[--listen HOST:PORT | --socket PATH] [--local-engine] [OPTIONS]",
	  "run the local engine's HTTP server in the foreground",
	  cli_cmd_serve, serve_options_help },
	{ "preview", "[DIR] [--port N (0: any free)] [--cache DIR]",
	  "build DIR as it is on disk, serve it on 127.0.0.1 and rebuild on "
	  "every save",
	  cli_cmd_preview, NULL },
	{ "check", "[DIR] [--new-only] [--json] [--cache DIR]",
	  "build DIR once; print its warnings and broken links, exit 1 if any",
	  cli_cmd_check, NULL },
	{ "status", "", "show the data directory and what it holds",
	  cli_cmd_status, NULL },
	{ "token create", "USER",
	  "create USER if missing and print a new API token",
	  cli_cmd_token_create, NULL },
	{ "user list", "[--json]", "list the users of the local engine",
	  cli_cmd_user_list, NULL },
	{ "reindex", "[PROJECT [VERSION]]",
	  "rebuild search indexes from published HTML", cli_cmd_reindex, NULL },
	{ "org create", CLI_ORG_CREATE_ARGS,
	  "create an organization (and its owner if missing)",
	  cli_cmd_org_create, NULL },
	{ "org list", CLI_ORG_LIST_ARGS,
	  "list the organizations with their owners", cli_cmd_org_list, NULL },
	{ "org owner add", CLI_ORG_OWNER_ADD_ARGS,
	  "make a user an owner of an organization", cli_cmd_org_owner_add, NULL },
	{ "org team create", CLI_ORG_TEAM_CREATE_ARGS,
	  "create a team (readonly by default) and print its slug",
	  cli_cmd_org_team_create, NULL },
	{ "org team add", CLI_ORG_TEAM_ADD_ARGS,
	  "make a user a member of a team", cli_cmd_org_team_add, NULL },
	{ "org project add", CLI_ORG_PROJECT_ADD_ARGS,
	  "put a project into an organization", cli_cmd_org_project_add, NULL },
	{ "org team project add", CLI_ORG_TEAM_PROJECT_ADD_ARGS,
	  "give a team a project of its organization",
	  cli_cmd_org_team_project_add, NULL },
	{ "projects", "[--json]", "list your projects", cli_cmd_projects, NULL },
	{ "import",
	  "URL [--name N] [--language L] [--programming-language P] "
	  "[--organization O] [--no-wait] [--json]",
	  "import a repository and wait for its first build", cli_cmd_import, NULL },
	{ "versions", "PROJECT [--json]", "list a project's versions",
	  cli_cmd_versions, NULL },
	{ "version",
	  "PROJECT VERSION [--active|--inactive] [--hidden|--visible] "
	  "[--json]",
	  "show a version, or change its flags", cli_cmd_version, NULL },
	{ "builds", "PROJECT [--running] [--commit C] [--json]",
	  "list a project's builds", cli_cmd_builds, NULL },
	{ "build", "PROJECT [VERSION] [--watch] [--exit-status] [--fresh] [--json]",
	  "trigger a build (and follow it)", cli_cmd_build, NULL },
	{ "log", "BUILD [--follow] [--json]",
	  "print a build's commands and output", cli_cmd_log, NULL },
	{ "warnings", "PROJECT [BUILD] [--new] [--json]",
	  "print a build's warnings and broken links (default: the newest "
	  "finished build)",
	  cli_cmd_warnings, NULL },
	{ "search", "QUERY --project P [--version V] [--json]",
	  "search a project's documentation", cli_cmd_search, NULL },
	{ "redirects", "PROJECT [add TYPE [FROM [TO]] | remove ID] [--json]",
	  "list, add or remove a project's redirects", cli_cmd_redirects, NULL },
	{ "integrations",
	  "PROJECT [add github|gitlab|bitbucket|generic | remove ID] [--json]",
	  "list, add (prints the webhook URL and secret) or remove incoming "
	  "webhooks",
	  cli_cmd_integrations, NULL },
	{ "notifications",
	  "[read ID | dismiss ID] [--project P [--build N]] [--all] [--json]",
	  "list your notifications (a project's or a build's), or mark one "
	  "read or dismissed",
	  cli_cmd_notifications, NULL },
	{ "webhooks",
	  "PROJECT [add URL [--events E,E] [--payload FILE] | remove ID | "
	  "deliveries ID] [--json]",
	  "list, add (prints the secret once) or remove outgoing webhooks, or "
	  "list a webhook's deliveries",
	  cli_cmd_webhooks, NULL },
	{ "env", "PROJECT [add NAME [--public] | remove NAME] [--json]",
	  "list, add (value from stdin) or remove environment variables",
	  cli_cmd_env, NULL },
	{ "subprojects",
	  "PROJECT [add CHILD [--alias A] | remove CHILD] [--json]",
	  "list, add or remove subprojects", cli_cmd_subprojects, NULL },
	{ "translations", "PROJECT [--json]", "list a project's translations",
	  cli_cmd_translations, NULL },
	{ "orgs", "[--json]", "list your organizations (business edition)",
	  cli_cmd_orgs, NULL },
	{ "diff", "PROJECT BASE HEAD [PAGE] [--json]",
	  "what changed between two versions or builds (build:ID) of the "
	  "docs, as a unified diff",
	  cli_cmd_diff, NULL },
	{ "mirror add", "CONTEXT PROJECT [--version V]... [--interval MS]",
	  "copy a remote project's docs into the local engine, to read and "
	  "search offline",
	  cli_cmd_mirror_add, NULL },
	{ "mirror update", "[--interval MS]",
	  "refresh every mirror, downloading only the pages that changed",
	  cli_cmd_mirror_update, NULL },
	{ "api", "[-X METHOD] PATH [-d JSON]",
	  "send any request to the API and print the answer", cli_cmd_api, NULL },
	{ "tui", "[--theme NAME|FILE] [--readonly]",
	  "browse projects and watch builds full-screen (the default)",
	  cli_cmd_tui, NULL },
	{ "context list", "[--json]",
	  "list the contexts (instances the CLI talks to)",
	  cli_cmd_context_list, NULL },
	{ "context use", "NAME", "make NAME the current context",
	  cli_cmd_context_use, NULL },
	{ "context add",
	  "NAME (--url URL [--docs-domain DOMAIN] "
	  "(--token-env VAR | --token-file FILE) | --ssh [USER@]HOST[:PORT] "
	  "[--remote-command PATH] [--ssh-options 'OPTS']) [--readonly]",
	  "add a remote context", cli_cmd_context_add, NULL },
	{ "context remove", "NAME", "remove a remote context",
	  cli_cmd_context_remove, NULL },
	{ "stop", "", "stop the local engine (started by the CLI or by systemd)",
	  cli_cmd_stop, NULL },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lectern: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

int cli_fail_engine(const char *what)
{
	return cli_fail("%s: %s", what, lec_error_last());
}

int cli_usage(const struct cli_command *cmd)
{
	fprintf(stderr, "usage: lectern %s%s%s\n", cmd->name,
		cmd->args[0] ? " " : "", cmd->args);
	return CLI_EXIT_USAGE;
}

void cli_print_commands(FILE *out)
{
	size_t i;

	for (i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-24s %s\n", commands[i].name,
			commands[i].summary);
}

const char *cli_data_dir(struct cli_ctx *ctx)
{
	const char *env;
	size_t n;

	if (ctx->data_dir)
		return ctx->data_dir;
	if (ctx->data_dir_opt && *ctx->data_dir_opt) {
		ctx->data_dir = strdup(ctx->data_dir_opt);
	} else if ((env = getenv("LECTERN_DATA")) && *env) {
		ctx->data_dir = strdup(env);
	} else if ((env = getenv("XDG_DATA_HOME")) && *env == '/') {
		n = strlen(env) + sizeof("/lectern");
		if ((ctx->data_dir = malloc(n)))
			snprintf(ctx->data_dir, n, "%s/lectern", env);
	} else if ((env = getenv("HOME")) && *env) {
		n = strlen(env) + sizeof("/.local/share/lectern");
		if ((ctx->data_dir = malloc(n)))
			snprintf(ctx->data_dir, n, "%s/.local/share/lectern",
				 env);
	} else {
		cli_fail("no data directory: set --data, LECTERN_DATA or HOME");
		return NULL;
	}
	if (ctx->data_dir == NULL)
		cli_fail("out of memory");
	return ctx->data_dir;
}

struct lec_store *cli_store(struct cli_ctx *ctx)
{
	const char *dir;

	if (ctx->store)
		return ctx->store;
	if ((dir = cli_data_dir(ctx)) == NULL)
		return NULL;
	if (lec_store_open_dir(&ctx->store, dir, NULL) < 0) {
		cli_fail_engine("cannot open the store");
		return NULL;
	}
	return ctx->store;
}

/* How many of the command's words the command line starts with (0 when it
 * does not start with all of them). */
static int match_words(const char *name, int argc, char **argv)
{
	char copy[64];
	char *word, *save = NULL;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", name);
	for (word = strtok_r(copy, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		if (n >= argc || strcmp(argv[n], word) != 0)
			return 0;
		n++;
	}
	return n;
}

static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

static void ctx_dispose(struct cli_ctx *ctx)
{
	lec_store_free(ctx->store);
	free(ctx->data_dir);
}

int cli_dispatch(struct cli_ctx *ctx, int argc, char **argv)
{
	static char tui_word[] = "tui";
	static char *default_argv[] = { tui_word, NULL };
	const struct cli_command *best = NULL;
	int best_words = 0, status;
	size_t i;

	/* No command: the TUI on the current context. It needs a terminal
	 * on both ends; a script or a service manager that runs a bare
	 * `lectern` gets a usage error, not a screen it cannot drive. */
	if (argc == 0) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			cli_fail("the TUI needs a terminal; run 'lectern serve' "
				 "for the engine alone, or a command (see "
				 "'lectern --help')");
			return CLI_EXIT_USAGE;
		}
		argv = default_argv;
		argc = 1;
	}
	for (i = 0; i < COMMAND_COUNT; i++) {
		int n = match_words(commands[i].name, argc, argv);

		if (n > best_words) {
			best = &commands[i];
			best_words = n;
		}
	}
	if (best == NULL) {
		cli_fail("unknown command '%s' (see 'lectern --help')",
			 argv[0]);
		return CLI_EXIT_USAGE;
	}
	argc -= best_words;
	argv += best_words;
	if (wants_help(argc, argv)) {
		printf("usage: lectern %s%s%s\n\n%s\n", best->name,
		       best->args[0] ? " " : "", best->args, best->summary);
		if (best->help)
			best->help(stdout);
		return CLI_EXIT_OK;
	}
	status = best->run(ctx, argc, argv);
	ctx_dispose(ctx);
	return status;
}
