/*
 * What the CLI's files share: the context of one invocation, the command
 * table's shape, exit codes, and the helpers that report errors as one line
 * on stderr.
 */
#ifndef LECTERN_CLI_H
#define LECTERN_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses: 0 success, 1 the operation failed, 2 the command line was
 * wrong. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

struct lec_store;

struct cli_ctx {
	const char *data_dir_opt; /* --data, or NULL */
	const char *context_opt;  /* --context, or NULL */
	char *data_dir;           /* resolved on first use; owned */
	struct lec_store *store;  /* opened on first use; owned */
};

struct cli_command {
	const char *name;    /* words, e.g. "token create" */
	const char *args;    /* argument synopsis for usage */
	const char *summary; /* one line for the command list */
	int (*run)(struct cli_ctx *ctx, int argc, char **argv);
	/* What --help prints after the summary (a command's options), or
	 * NULL. */
	void (*help)(FILE *out);
	/* "SPEC<TAB>WHAT" lines, what each option and argument does, and
	 * "$ EXAMPLE" lines (help.c); NULL: none. */
	const char *detail;
};

/* Text for the terminal (output.c): whatever an instance, a repository or
 * a build chose (a name, a message, an error's detail, a warning, a log)
 * is written with these, through the terminal filter (lc_terminal_text),
 * on a terminal and a pipe alike; the CLI's own escapes and JSON are
 * written as they are. */
/* The formatted text, filtered whole: text, line breaks and tabs. */
void cli_print(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cli_vprint(FILE *out, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* len bytes of text, filtered keeping what keep (enum lc_terminal_keep)
 * adds: a build's output. */
void cli_write(FILE *out, const char *text, size_t len, unsigned keep);
/* A copy of len bytes of text through the filter, its line breaks and
 * tabs made spaces: one line (a table's cell, a search result). Owned by
 * the caller; NULL when out of memory. */
char *cli_line_copy(const char *text, size_t len);

/* Failures (fail.c). Print "lectern: <message>" on stderr, filtered as
 * cli_print filters; returns CLI_EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, for engine errors: appends lec_error_last(). */
int cli_fail_engine(const char *what);
/* The command's usage line on stderr; returns CLI_EXIT_USAGE. */
int cli_usage(const struct cli_command *cmd);
/* "lectern: usage: lectern <synopsis>" on stderr; returns CLI_EXIT_USAGE. */
int cli_bad_usage(const char *synopsis);

/* Near names (suggest.c), for "did you mean": offer each candidate with
 * cli_near_add (it is copied), then cli_near_text gives "; did you mean
 * 'a' or 'b'?" for the nearest few (CLI_NEAR_MAX), or "" when none is
 * near; buf is returned. */
#define CLI_NEAR_MAX 3
#define CLI_NEAR_NAME_MAX 64
struct cli_near {
	const char *word; /* what was typed; not copied */
	char names[CLI_NEAR_MAX][CLI_NEAR_NAME_MAX];
	int dist[CLI_NEAR_MAX];
	size_t len;
};
void cli_near_init(struct cli_near *n, const char *word);
void cli_near_add(struct cli_near *n, const char *name);
const char *cli_near_text(const struct cli_near *n, char *buf, size_t size);

/* The invocation's data directory and store (invocation.c). The data
 * directory (resolved from --data, LECTERN_DATA, XDG, HOME). */
const char *cli_data_dir(struct cli_ctx *ctx);
/* The store of the data directory, opened (and migrated) on first use;
 * NULL after reporting the error. */
struct lec_store *cli_store(struct cli_ctx *ctx);
/* Close the store and free what ctx resolved (not ctx). */
void cli_ctx_dispose(struct cli_ctx *ctx);

/* The command table (commands.c): `lectern --help`, which lists it. */
void cli_print_usage(FILE *out);
int cli_dispatch(struct cli_ctx *ctx, int argc, char **argv);
/* `lectern help [COMMAND]`. */
int cli_cmd_help(struct cli_ctx *ctx, int argc, char **argv);

/* Help texts (help.c). One option: "  SPEC  TEXT", TEXT wrapped to 80
 * columns under itself. */
void cli_help_option(FILE *out, const char *spec, size_t spec_len,
		     const char *text, size_t text_len);
/* A command's --help: usage, summary, options, examples. */
void cli_command_help(FILE *out, const struct cli_command *cmd);
/* The commands whose names start with the words of group, on out (NULL:
 * only whether there are any); -1 when there are none. */
int cli_group_help(FILE *out, const char *group,
		   const struct cli_command *commands, size_t count);

/* `lectern serve` (serve.c). */
int cli_cmd_serve(struct cli_ctx *ctx, int argc, char **argv);
/* `lectern preview [DIR]` (preview.c). */
int cli_cmd_preview(struct cli_ctx *ctx, int argc, char **argv);
/* The activated virtualenv's python ($VIRTUAL_ENV/bin/python) into buf,
 * 1; 0 when there is none (the engine's default then). writer_python.c */
int cli_writer_python(char *buf, size_t size);
/* mcp.c */
int cli_cmd_mcp(struct cli_ctx *ctx, int argc, char **argv);
void cli_mcp_help(FILE *out);

/* The engine-direct admin commands (admin.c; the token commands and
 * `user logout`: tokens.c). */
int cli_cmd_user_list(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_token_create(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_token_list(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_token_revoke(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_user_logout(struct cli_ctx *ctx, int argc, char **argv);
/* `lectern reindex [PROJECT [VERSION]]` (reindex.c). */
int cli_cmd_reindex(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_integrations(struct cli_ctx *ctx, int argc, char **argv);
/* `lectern __repo ...` (LEC_PIPELINE_HELPER_WORD): the pipeline's
 * sandboxed git helper (repo_helper.c). */
int cli_repo_helper(int argc, char **argv);
/* `lectern __egress FD -- COMMAND...` (LEC_EGRESS_HELPER_WORD): the egress
 * proxy's forwarder in the build sandbox (egress_helper.c). */
int cli_egress_helper(int argc, char **argv);

/* The organization commands (org.c). Their argument synopses are shared by
 * the command table and the usage lines the commands print. */
#define CLI_ORG_CREATE_ARGS "SLUG --owner USER [--name NAME] [--email EMAIL]"
#define CLI_ORG_LIST_ARGS "[--json]"
#define CLI_ORG_OWNER_ADD_ARGS "ORG USER"
#define CLI_ORG_TEAM_CREATE_ARGS "ORG TEAM [--access readonly|admin]"
#define CLI_ORG_TEAM_ADD_ARGS "ORG TEAM USER"
#define CLI_ORG_PROJECT_ADD_ARGS "ORG PROJECT"
#define CLI_ORG_TEAM_PROJECT_ADD_ARGS "ORG TEAM PROJECT"
int cli_cmd_org_create(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_list(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_owner_add(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_team_create(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_team_add(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_project_add(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_org_team_project_add(struct cli_ctx *ctx, int argc, char **argv);

#endif
