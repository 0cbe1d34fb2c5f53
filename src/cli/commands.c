/*
 * The command table: dispatch by the leading words of the command line,
 * per-command --help, and `lectern --help`, which lists the table. It sits
 * on top of the CLI: it calls every command, and no command or helper
 * calls it (the helpers every command uses are below: fail.c,
 * invocation.c, output.c, cmd_common.c, ...).
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "cmd_tui.h"
#include "context.h"
#include "serve_options.h"
#include "warnings.h"

/* Each command's words, synopsis, summary, runner, extra help (serve's
 * options table) and detail: "SPEC<TAB>WHAT" lines (options, arguments)
 * and "$ EXAMPLE" lines, which --help prints (help.c). */
static const struct cli_command commands[] = {
	{ "serve",
	  "[--listen HOST:PORT | --socket PATH] [--local-engine] [OPTIONS]",
	  "run the local engine's HTTP server in the foreground",
	  cli_cmd_serve, serve_options_help,
	  "$ lectern serve --listen 127.0.0.1:8000 --workers 2\n"
	  "$ lectern --data /srv/lectern serve --local-repos /srv/git\n" },
	{ "preview", "[DIR] [--port N] [--cache DIR]",
	  "build DIR as it is on disk, serve it on 127.0.0.1 and rebuild on "
	  "every save",
	  cli_cmd_preview, NULL,
	  "DIR\tthe working tree (default: the current directory)\n"
	  "--port N\tthe port on 127.0.0.1 (default 0: any free port, "
	  "printed on the first line)\n"
	  "--cache DIR\twhere builds go (default: under $XDG_RUNTIME_DIR, "
	  "else ~/.cache)\n"
	  "$ lectern preview ~/src/handbook --port 8800\n" },
	{ "mcp", "[--context NAME] [--allow-write]",
	  "serve the context's documentation to coding agents: a Model "
	  "Context Protocol server on standard input and output",
	  cli_cmd_mcp, cli_mcp_help,
	  "--context NAME\tthe context to serve (default: the current one)\n"
	  "--allow-write\toffer trigger_build too (builds a version)\n"
	  "$ lectern mcp --context lab\n" },
	{ "check", "[DIR] [--new-only] [--json] [--cache DIR]",
	  "build DIR once; print its warnings and broken links, exit 1 if any",
	  cli_cmd_check, NULL,
	  "DIR\tthe working tree (default: the current directory)\n"
	  "--new-only\tonly what the current context's last successful "
	  "build of the same project and version did not have\n"
	  "--json\tprint JSON instead of file:line: kind: message lines\n"
	  "--cache DIR\twhere the build goes (as for preview)\n"
	  "$ lectern check && git push\n"
	  "$ lectern check ~/src/handbook --new-only\n" },
	{ "status", "[--json]",
	  "what the context's engine is doing: its version, workers and "
	  "builds (locally: the data directory too)",
	  cli_cmd_status, NULL,
	  "--json\tprint JSON: the data directory, and the API's status, "
	  "builds and queue\n"
	  "$ lectern status\n"
	  "$ lectern --context build1 status --json\n" },
	{ "token create", "USER",
	  "create USER if missing and print a new API token",
	  cli_cmd_token_create, NULL,
	  "USER\tthe user's name (letters, digits, '-', '_', '.')\n"
	  "$ lectern token create alice > alice.token\n"
	  "$ lectern --data /srv/lectern token create alice\n" },
	{ "token list", "[USER] [--json]",
	  "list API tokens by id (never their secrets)", cli_cmd_token_list,
	  NULL,
	  "USER\tonly this user's tokens (default: everyone's)\n"
	  "--json\tprint JSON instead of a table\n"
	  "$ lectern token list alice\n" },
	{ "token revoke", "ID... | --all USER",
	  "revoke tokens and end the browser sessions logged in with them",
	  cli_cmd_token_revoke, NULL,
	  "ID\ta token's id, as `lectern token list` shows it\n"
	  "--all USER\tevery token of USER\n"
	  "$ lectern token revoke 7\n"
	  "$ lectern token revoke --all alice\n" },
	{ "user list", "[--json]", "list the users of the local engine",
	  cli_cmd_user_list, NULL,
	  "--json\tprint JSON instead of a table\n"
	  "$ lectern user list\n" },
	{ "user logout", "USER",
	  "end USER's browser sessions of the docs login; tokens stay",
	  cli_cmd_user_logout, NULL, "$ lectern user logout alice\n" },
	{ "reindex", "[PROJECT [VERSION]]",
	  "rebuild search indexes from published HTML", cli_cmd_reindex, NULL,
	  "PROJECT\tonly this project (default: every project)\n"
	  "VERSION\tonly this version of PROJECT\n"
	  "$ lectern reindex guide latest\n" },
	{ "org create", CLI_ORG_CREATE_ARGS,
	  "create an organization (and its owner if missing)",
	  cli_cmd_org_create, NULL,
	  "--owner USER\tthe organization's first owner (created if missing)\n"
	  "--name NAME\tits display name (default: SLUG)\n"
	  "--email EMAIL\tits contact address\n"
	  "$ lectern org create acme --owner alice --name 'Acme Inc.'\n" },
	{ "org list", CLI_ORG_LIST_ARGS,
	  "list the organizations with their owners", cli_cmd_org_list, NULL,
	  "--json\tprint JSON instead of a table\n"
	  "$ lectern org list\n" },
	{ "org owner add", CLI_ORG_OWNER_ADD_ARGS,
	  "make a user an owner of an organization", cli_cmd_org_owner_add,
	  NULL, "$ lectern org owner add acme bob\n" },
	{ "org team create", CLI_ORG_TEAM_CREATE_ARGS,
	  "create a team (readonly by default) and print its slug",
	  cli_cmd_org_team_create, NULL,
	  "--access readonly|admin\twhat its members may do with the team's "
	  "projects (default readonly)\n"
	  "$ lectern org team create acme writers --access admin\n" },
	{ "org team add", CLI_ORG_TEAM_ADD_ARGS,
	  "make a user a member of a team", cli_cmd_org_team_add, NULL,
	  "$ lectern org team add acme writers bob\n" },
	{ "org project add", CLI_ORG_PROJECT_ADD_ARGS,
	  "put a project into an organization", cli_cmd_org_project_add, NULL,
	  "$ lectern org project add acme guide\n" },
	{ "org team project add", CLI_ORG_TEAM_PROJECT_ADD_ARGS,
	  "give a team a project of its organization",
	  cli_cmd_org_team_project_add, NULL,
	  "$ lectern org team project add acme writers guide\n" },
	{ "projects", "[--json]",
	  "list your projects with their last build", cli_cmd_projects, NULL,
	  "--json\tthe API's JSON, every page in one envelope\n"
	  "$ lectern projects\n"
	  "$ lectern --context rtd projects --json\n" },
	{ "import",
	  "URL [--name N] [--language L] [--programming-language P] "
	  "[--organization O] [--no-wait] [--json]",
	  "import a repository and wait for its first build", cli_cmd_import,
	  NULL,
	  "URL\tthe git repository: https://, ssh, or file:// on the "
	  "engine's machine\n"
	  "--name N\tthe project's name (default: the URL's last part "
	  "without .git)\n"
	  "--language L\tthe docs' language code (default en)\n"
	  "--programming-language P\tthe project's programming language "
	  "(default words)\n"
	  "--organization O\tthe organization it belongs to (business "
	  "edition)\n"
	  "--no-wait\treturn once imported, without waiting for the first "
	  "build\n"
	  "--json\tprint the new project as JSON\n"
	  "$ lectern import https://github.com/acme/handbook.git\n"
	  "$ lectern import file://$HOME/src/guide --name 'User Guide' "
	  "--no-wait\n" },
	{ "remove", "PROJECT [--yes]",
	  "remove a project with everything of it (its versions, builds, "
	  "docs, search entries, settings, repository cache and build caches)",
	  cli_cmd_remove, NULL,
	  "PROJECT\tthe project's slug; on a terminal you type it again to "
	  "confirm\n"
	  "--yes\tremove without asking (needed when stdin is not a "
	  "terminal)\n"
	  "$ lectern remove old-guide\n"
	  "$ lectern --context build1 remove scratch --yes\n" },
	{ "versions", "PROJECT [--json]", "list a project's versions",
	  cli_cmd_versions, NULL,
	  "--json\tthe API's JSON, every page in one envelope\n"
	  "$ lectern versions guide\n" },
	{ "version",
	  "PROJECT VERSION [--active|--inactive] [--hidden|--visible] "
	  "[--json]",
	  "show a version, or change its flags", cli_cmd_version, NULL,
	  "--active\tbuild and serve it\n"
	  "--inactive\tstop building and serving it\n"
	  "--hidden\tkeep it out of the version menu and search\n"
	  "--visible\tlist it again\n"
	  "--json\tprint the version as JSON\n"
	  "$ lectern version guide v2.0 --active\n" },
	{ "builds",
	  "(PROJECT | --all) [--running] [--commit C] [--limit N] [--json]",
	  "list a project's builds, or every project's; a build waiting for "
	  "a worker shows as queued (on a Lectern, with its place in the "
	  "queue)",
	  cli_cmd_builds, NULL,
	  "--all\tthe builds of every project you maintain, newest first (a "
	  "Lectern's)\n"
	  "--running\tonly the builds that have not finished (queued ones "
	  "too)\n"
	  "--commit C\tonly the builds of commit C\n"
	  "--limit N\tonly the newest N\n"
	  "--json\tthe API's JSON, every page in one envelope (with --limit, "
	  "the newest N)\n"
	  "$ lectern builds guide --running\n"
	  "$ lectern builds guide --limit 5\n"
	  "$ lectern builds --all --running\n" },
	{ "build",
	  "PROJECT [VERSION] [--watch] [--exit-status] [--fresh] [--json]",
	  "trigger a build (and follow it)", cli_cmd_build, NULL,
	  "VERSION\tthe version to build (default: the project's default "
	  "version)\n"
	  "--watch\tprint each state as it changes, then the outcome\n"
	  "--exit-status\twait too, and exit 1 unless the build passed\n"
	  "--fresh\treuse nothing earlier builds kept (tree, Python "
	  "environment, generator state)\n"
	  "--json\tprint the triggered build as JSON\n"
	  "$ lectern build guide latest --watch\n"
	  "$ lectern build guide --exit-status && echo published\n" },
	{ "preview-branch", "PROJECT BRANCH [--watch] [--exit-status] [--json]",
	  "build a branch that is not an active version as a preview on its "
	  "own host, as a pull request's (a Lectern's)",
	  cli_cmd_preview_branch, NULL,
	  "BRANCH\ta branch of the project's repository\n"
	  "--watch\tprint each state as it changes, then the outcome\n"
	  "--exit-status\twait too, and exit 1 unless the build passed\n"
	  "--json\tprint the triggered build as JSON\n"
	  "$ lectern preview-branch guide fix-typos --watch\n" },
	{ "log", "BUILD [--follow] [--json]",
	  "print a build's commands and output", cli_cmd_log, NULL,
	  "BUILD\tthe build's number (see 'lectern builds')\n"
	  "--follow\tkeep printing new output until the build finishes\n"
	  "--json\tthe v2 build detail as JSON\n"
	  "$ lectern log 42 --follow\n" },
	{ "cancel", "BUILD [--json]",
	  "stop a queued or running build (a Lectern's)", cli_cmd_cancel, NULL,
	  "BUILD\tthe build's id (see 'lectern builds')\n"
	  "--json\tprint the cancelled build as JSON\n"
	  "$ lectern cancel 42\n" },
	{ "warnings", "(BUILD | PROJECT [BUILD]) [--new] [--json]",
	  "print a build's warnings and broken links (a project's: its newest "
	  "finished build's)",
	  cli_cmd_warnings, NULL,
	  "BUILD\ta build's id alone, as for log and cancel\n"
	  "PROJECT\tthe project: its newest finished build, or BUILD's\n"
	  "--new\tonly those its version's last good build did not have\n"
	  "--json\tprint JSON instead of a table\n"
	  "$ lectern warnings 42\n"
	  "$ lectern warnings guide --new\n" },
	{ "search", "QUERY [--project P [--version V]] [--json]",
	  "search your projects' documentation: each page found with the "
	  "sections that matched and a snippet, matches highlighted",
	  cli_cmd_search, NULL,
	  "QUERY\twords, \"a phrase\", +required, -excluded\n"
	  "--project P\tonly project P (default: every project you "
	  "maintain)\n"
	  "--version V\tP's version (default latest)\n"
	  "--json\tthe search API's JSON\n"
	  "$ lectern search 'install proxy'\n"
	  "$ lectern search Setup --project guide --version v2.0\n" },
	{ "addons", "PROJECT [NAME=VALUE ...] [--json]",
	  "show or change which reader addons (versions menu, notices, "
	  "search as you type, link previews, visual diff) a project's "
	  "pages get",
	  cli_cmd_addons, NULL,
	  "NAME=VALUE\tchange a setting (true, false, null or text)\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern addons guide\n"
	  "$ lectern addons guide flyout_position=top-left "
	  "linkpreviews_enabled=true\n" },
	{ "redirects", "PROJECT [add TYPE [FROM [TO]] | remove ID] [--json]",
	  "list, add or remove a project's redirects", cli_cmd_redirects, NULL,
	  "add TYPE [FROM [TO]]\tadd one: page, exact, clean_url_to_html, "
	  "html_to_clean_url (the last two take no FROM or TO)\n"
	  "remove ID\tremove redirect ID (see the list)\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern redirects guide add page /old.html /new.html\n" },
	{ "integrations",
	  "PROJECT [add github|gitlab|bitbucket|generic | remove ID] [--json]",
	  "list, add (prints the webhook URL and secret) or remove incoming "
	  "webhooks",
	  cli_cmd_integrations, NULL,
	  "add FORGE\tadd one for github, gitlab, bitbucket or generic; its "
	  "URL and secret are printed once\n"
	  "remove ID\tremove integration ID\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern integrations guide add github\n" },
	{ "notifications",
	  "[read ID | dismiss ID] [--project P [--build N]] [--all] [--json]",
	  "list your notifications (a project's or a build's), or mark one "
	  "read or dismissed",
	  cli_cmd_notifications, NULL,
	  "read ID\tmark notification ID read\n"
	  "dismiss ID\tdismiss notification ID\n"
	  "--project P\tproject P's notifications\n"
	  "--build N\tbuild N's (with --project)\n"
	  "--all\tevery state, not only unread and read\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern notifications --project guide --all\n" },
	{ "webhooks",
	  "PROJECT [add URL [--events E,E] [--payload FILE] | remove ID | "
	  "deliveries ID] [--json]",
	  "list, add (prints the secret once) or remove outgoing webhooks, or "
	  "list a webhook's deliveries",
	  cli_cmd_webhooks, NULL,
	  "add URL\tsend the project's build events to URL\n"
	  "--events E,E\tbuild:triggered, build:passed, build:failed (default "
	  "all)\n"
	  "--payload FILE\ta JSON template of the body sent\n"
	  "remove ID\tremove webhook ID\n"
	  "deliveries ID\twebhook ID's latest deliveries\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern webhooks guide add https://chat.example.org/hook "
	  "--events build:failed\n" },
	{ "env", "PROJECT [add NAME [--public] | remove NAME] [--json]",
	  "list, add (value from stdin) or remove environment variables",
	  cli_cmd_env, NULL,
	  "add NAME\tadd variable NAME; its value is read from stdin, or "
	  "typed unseen at a prompt\n"
	  "--public\tshow it in builds of pull requests too\n"
	  "remove NAME\tremove variable NAME\n"
	  "--json\tthe API's JSON\n"
	  "$ printf %s \"$TOKEN\" | lectern env guide add API_TOKEN\n" },
	{ "subprojects",
	  "PROJECT [add CHILD [--alias A] | remove CHILD] [--json]",
	  "list, add or remove subprojects", cli_cmd_subprojects, NULL,
	  "add CHILD\tserve project CHILD under PROJECT's docs\n"
	  "--alias A\tthe path it gets there (default: CHILD)\n"
	  "remove CHILD\tremove it (its slug or alias)\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern subprojects guide add api --alias reference\n" },
	{ "translations", "PROJECT [--json]", "list a project's translations",
	  cli_cmd_translations, NULL,
	  "--json\tthe API's JSON\n"
	  "$ lectern translations guide\n" },
	{ "orgs", "[--json]", "list your organizations (business edition)",
	  cli_cmd_orgs, NULL,
	  "--json\tthe API's JSON\n"
	  "$ lectern orgs\n" },
	{ "diff", "PROJECT BASE HEAD [PAGE] [--json]",
	  "what changed between two versions or builds (build:ID) of the "
	  "docs, as a unified diff",
	  cli_cmd_diff, NULL,
	  "BASE, HEAD\tversion slugs, or build:ID for one build's output\n"
	  "PAGE\tonly this page's changes (its path)\n"
	  "--json\tthe API's JSON\n"
	  "$ lectern diff guide stable latest\n"
	  "$ lectern diff guide build:41 build:42 install.html\n" },
	{ "mirror add", "CONTEXT PROJECT [--version V]... [--interval MS]",
	  "copy a remote project's docs into the local engine, to read and "
	  "search offline",
	  cli_cmd_mirror_add, NULL,
	  "CONTEXT\tthe remote context the project is on\n"
	  "--version V\ta version to copy; repeatable (default: the project's "
	  "default version)\n"
	  "--interval MS\tpause between two requests to the remote (0 to "
	  "60000; default 250)\n"
	  "$ lectern mirror add rtd requests --version latest --version "
	  "stable\n" },
	{ "mirror update", "[--interval MS]",
	  "refresh every mirror, downloading only the pages that changed",
	  cli_cmd_mirror_update, NULL,
	  "--interval MS\tpause between two requests to the remote (0 to "
	  "60000; default 250)\n"
	  "$ lectern mirror update\n" },
	{ "api", "[-X METHOD] PATH [-d JSON]",
	  "send any request to the API and print the answer", cli_cmd_api, NULL,
	  "-X METHOD\tGET, POST, PATCH, PUT or DELETE (default GET, POST with "
	  "-d); also --method\n"
	  "-d JSON\tthe request's body; also --data\n"
	  "$ lectern api /api/v3/projects/guide/versions/\n"
	  "$ lectern api -X PATCH /api/v3/projects/guide/ -d "
	  "'{\"default_branch\": \"main\"}'\n" },
	{ "tui", "[--theme NAME|FILE] [--readonly]",
	  "browse projects and watch builds full-screen (the default)",
	  cli_cmd_tui, NULL,
	  "--theme NAME|FILE\tdefault, dark, light, high-contrast, or a "
	  "theme file\n"
	  "--readonly\trefuse every change (for a look at a live instance)\n"
	  "$ lectern tui --theme dark\n"
	  "$ lectern --context rtd tui --readonly\n" },
	{ "context list", "[--json]",
	  "list the contexts (instances the CLI talks to)",
	  cli_cmd_context_list, NULL,
	  "--json\tprint JSON instead of a table\n"
	  "$ lectern context list\n" },
	{ "context use", "NAME", "make NAME the current context",
	  cli_cmd_context_use, NULL,
	  "NAME\ta context of 'lectern context list', or local\n"
	  "$ lectern context use rtd\n" },
	{ "context add",
	  "NAME (--url URL [--docs-domain DOMAIN] "
	  "(--token-env VAR | --token-file FILE) | --ssh [USER@]HOST[:PORT] "
	  "[--remote-command PATH] [--ssh-options 'OPTS']) [--readonly]",
	  "add a remote context", cli_cmd_context_add, NULL,
	  "--url URL\tthe instance's API base URL (http:// or https://)\n"
	  "--docs-domain DOMAIN\twhere its docs are served (default: the "
	  "API's host)\n"
	  "--token-env VAR\tread the API token from environment variable VAR\n"
	  "--token-file FILE\tread it from FILE (mode 0600)\n"
	  "--ssh [USER@]HOST[:PORT]\ta Lectern engine on another machine, "
	  "reached through ssh\n"
	  "--remote-command PATH\tthe remote lectern, when it is not on the "
	  "remote PATH\n"
	  "--ssh-options 'OPTS'\toptions for ssh (an identity, a port, a "
	  "known-hosts file)\n"
	  "--readonly\trefuse every change through this context\n"
	  "$ lectern context add rtd --url https://app.readthedocs.org "
	  "--token-env RTD_TOKEN\n"
	  "$ lectern context add build1 --ssh admin@build1.example.org\n" },
	{ "context remove", "NAME", "remove a remote context",
	  cli_cmd_context_remove, NULL, "$ lectern context remove build1\n" },
	{ "stop", "",
	  "stop the context's engine: the local one (started by the CLI or "
	  "systemd), or an ssh context's",
	  cli_cmd_stop, NULL,
	  "$ lectern stop\n"
	  "$ lectern --context build1 stop\n" },
	{ "help", "[COMMAND]", "list the commands, or show one's help",
	  cli_cmd_help, NULL,
	  "COMMAND\ta command, or a group of them (context, org, ...)\n"
	  "$ lectern help build\n"
	  "$ lectern help context\n" },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void print_commands(FILE *out)
{
	size_t i;

	for (i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-24s %s\n", commands[i].name,
			commands[i].summary);
}

void cli_print_usage(FILE *out)
{
	fprintf(out,
		"usage: lectern [--data DIR] [--context NAME] [--version] [--help] "
		"[COMMAND [ARGS]]\n"
		"\n"
		"Lectern, a documentation workstation. With no command it opens\n"
		"the TUI on the current context ('lectern tui'); on an empty local\n"
		"engine its Projects screen offers a demo.\n"
		"\n"
		"Global options:\n"
		"  --data DIR      data directory (default: $LECTERN_DATA, then\n"
		"                  $XDG_DATA_HOME/lectern, then ~/.local/share/lectern)\n"
		"  --context NAME  the instance to talk to (default: $LECTERN_CONTEXT,\n"
		"                  then the config's current-context, then local)\n"
		"  --version       print the version and exit\n"
		"  --help          print this help and exit\n"
		"\n"
		"Commands:\n");
	print_commands(out);
	fprintf(out, "\nRun 'lectern COMMAND --help' for a command's usage.\n");
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

/* The command the leading words of argv name (the longest match), with
 * the number of its words in *words; NULL when none does. */
static const struct cli_command *find_command(int argc, char **argv,
					      int *words)
{
	const struct cli_command *best = NULL;
	size_t i;
	int n;

	*words = 0;
	for (i = 0; i < COMMAND_COUNT; i++) {
		n = match_words(commands[i].name, argc, argv);
		if (n > *words) {
			best = &commands[i];
			*words = n;
		}
	}
	return best;
}

/* The group the leading words of argv name ("context", "org team"):
 * the number of its words, its commands printed on out (NULL: not
 * printed); 0 when they name none. */
static int group_help(FILE *out, int argc, char **argv)
{
	char group[64];
	size_t n;
	int k, i;

	for (k = argc < 3 ? argc : 3; k > 0; k--) {
		group[0] = '\0';
		for (i = n = 0; i < k && argv[i][0] != '-' && n < sizeof(group);
		     i++)
			n += (size_t)snprintf(group + n, sizeof(group) - n,
					      "%s%s", i ? " " : "", argv[i]);
		if (i == k && n < sizeof(group) &&
		    cli_group_help(out, group, commands, COMMAND_COUNT) == 0)
			return k;
	}
	return 0;
}

/* The words that may follow the first `words` of argv in a command's
 * name (the first words when 0), offered to n: what a mistyped word
 * might have been. */
static void near_commands(struct cli_near *n, int words, char **argv)
{
	char copy[64];
	char *word, *save = NULL;
	size_t i;
	int k;

	for (i = 0; i < COMMAND_COUNT; i++) {
		snprintf(copy, sizeof(copy), "%s", commands[i].name);
		word = strtok_r(copy, " ", &save);
		for (k = 0; word && k < words && strcmp(word, argv[k]) == 0; k++)
			word = strtok_r(NULL, " ", &save);
		if (word && k == words)
			cli_near_add(n, word);
	}
}

/* "unknown command 'projcts'; did you mean 'projects'?", the word at
 * argv[words], after the group's words when there are any. */
static void unknown_command(int words, char **argv)
{
	struct cli_near near;
	char hint[256];

	cli_near_init(&near, argv[words]);
	near_commands(&near, words, argv);
	cli_near_text(&near, hint, sizeof(hint));
	if (words > 0)
		cli_fail("unknown command '%s' after '%s'%s", argv[words],
			 argv[0], hint);
	else if (*hint)
		cli_fail("unknown command '%s'%s", argv[0], hint);
	else
		cli_fail("unknown command '%s' (see 'lectern --help')",
			 argv[0]);
}

int cli_cmd_help(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *cmd;
	int words;

	(void)ctx;
	if (argc == 0) {
		cli_print_usage(stdout);
		return CLI_EXIT_OK;
	}
	if ((cmd = find_command(argc, argv, &words)) != NULL && words == argc) {
		cli_command_help(stdout, cmd);
		return CLI_EXIT_OK;
	}
	if (group_help(stdout, argc, argv))
		return CLI_EXIT_OK;
	cli_fail("help: no command '%s' (see 'lectern help')", argv[0]);
	return CLI_EXIT_USAGE;
}

int cli_dispatch(struct cli_ctx *ctx, int argc, char **argv)
{
	static char tui_word[] = "tui";
	static char *default_argv[] = { tui_word, NULL };
	const struct cli_command *best;
	int best_words, status;

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
	if ((best = find_command(argc, argv, &best_words)) == NULL) {
		/* A group's word alone (`lectern context`), or with a
		 * subcommand it lacks: the commands it has. */
		if (wants_help(argc, argv) && group_help(stdout, argc, argv))
			return CLI_EXIT_OK;
		if ((best_words = group_help(NULL, argc, argv)) > 0) {
			if (best_words < argc)
				unknown_command(best_words, argv);
			group_help(stderr, argc, argv);
			return CLI_EXIT_USAGE;
		}
		unknown_command(0, argv);
		return CLI_EXIT_USAGE;
	}
	argc -= best_words;
	argv += best_words;
	if (wants_help(argc, argv)) {
		cli_command_help(stdout, best);
		return CLI_EXIT_OK;
	}
	status = best->run(ctx, argc, argv);
	cli_ctx_dispose(ctx);
	return status;
}
