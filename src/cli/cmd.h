/*
 * What the CLI's HTTP commands (cmd_*.c) share: a session (the resolved
 * context and an API client for it), option parsing, the one-line error
 * for a failed request, JSON and list output, and following a build until
 * it finishes. These commands never open the store; they talk to an
 * instance over HTTP, local or remote alike.
 */
#ifndef LECTERN_CLI_CMD_H
#define LECTERN_CLI_CMD_H

#include "client.h"
#include "context.h"
#include "table.h"

struct cli_ctx;

/* API paths built from slugs checked by cli_check_slug fit easily. */
#define CLI_PATH_MAX 512

struct cli_session {
	struct cli_conn conn;
	struct lc_client *client;
	/* What the command is about, set by the command once the session is
	 * open: a 404 of one of them names it, with the near slugs
	 * (cli_fail_request). NULL, 0: none. */
	const char *project;
	const char *version;
	long long build;
};

/* Resolve the context and make a client; reports errors itself. */
int cli_session_open(struct cli_ctx *ctx, struct cli_session *s);
/* The same for a command about one project: the session names `slug`
 * (borrowed) in its errors. */
int cli_session_open_project(struct cli_ctx *ctx, struct cli_session *s,
			     const char *slug);
void cli_session_close(struct cli_session *s);
/* CLI_EXIT_OK, or the failure of writing through a read-only context. */
int cli_session_writable(const struct cli_session *s);

/* One line on stderr for a failed request; returns CLI_EXIT_FAIL. */
int cli_fail_client(const struct lc_error *err);
/* The same for a request of the session: the service's 404 of the
 * session's project, version or build says which one is missing ("no
 * project 'gude' on context far; did you mean 'guide'?"), the near
 * slugs read from the instance (one list, only then). */
int cli_fail_request(struct cli_session *s, const struct lc_error *err);

/* One option: a flag (value NULL) sets *flag; an option with a value
 * stores it in *value. */
struct cli_opt {
	const char *name;    /* "--name" */
	const char **value;  /* an option with a value, else NULL */
	int *flag;           /* a flag, else NULL */
};

/* Split argv into the options (table ends with a NULL name) and between
 * min_pos and max_pos positional arguments (into pos, count in *npos).
 * Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after saying what is wrong. */
int cli_parse_args(const char *cmd, int argc, char **argv,
		   const struct cli_opt *opts, char **pos, int min_pos,
		   int max_pos, int *npos);
/* CLI_EXIT_OK if `slug` can go into a URL path as is, else a usage error
 * naming `what`. */
int cli_check_slug(const char *what, const char *slug);
/* cli_parse_args for a command about one project: min_pos is at least 1
 * and the first positional is the project's slug, checked. */
int cli_parse_project_args(const char *cmd, int argc, char **argv,
			   const struct cli_opt *opts, char **pos,
			   int min_pos, int max_pos, int *npos);

/* Builds are named by their id alone (docs/cli.md, "Builds by id"): `log
 * 14`, `warnings 14`, `cancel 14`. Whether arg is one (digits only); and
 * its value, or a usage error of cmd. */
int cli_is_build_id(const char *arg);
int cli_parse_build_id(const char *cmd, const char *arg, long long *id);
/* The slug of build id's project, from the v2 build detail, which finds a
 * build by its id alone. @param project owned by the caller */
int cli_build_project(struct cli_session *s, long long id, char **project);

/* Print JSON on one line; returns a CLI_EXIT_* status. */
int cli_print_json(const cJSON *json);

/* Print, as one JSON line, the array of n objects fill(items, i, o) fills
 * (0: out of memory); a CLI_EXIT_* status. */
int cli_print_json_objects(const void *items, size_t n,
			   int (*fill)(const void *items, size_t i, cJSON *o));

/* Free a response that carried a secret (NULL: nothing), its body wiped
 * first: the secret leaves this process only on stdout. */
void cli_response_free_secret(struct lc_response *r);

/* DELETE the project's kind/id/ ("webhooks", "integrations") and say
 * "removed <what> <id> from <project>"; a CLI_EXIT_* status. */
int cli_remove_of_project(struct cli_session *s, const char *project,
			  const char *kind, const char *what, const char *id);

/* Adds one table row for a list item; CLI_EXIT_OK or a failure status. */
typedef int (*cli_row_fn)(struct cli_table *t, const cJSON *item);

/* Every item of a paginated list at `path` (all pages): with json, one
 * envelope {count, next: null, previous: null, results: [...]}, else the
 * table `t` (initialised by the caller, disposed here) filled by `row`. */
int cli_print_list(struct cli_session *s, const char *path,
		   const struct lc_query *q, int json, struct cli_table *t,
		   cli_row_fn row);
/* How cli_print_list_with reads and orders a list. */
struct cli_list_opts {
	/* The table's rows in the order sort puts the items in (the JSON
	 * keeps the API's order); NULL: the API's. */
	int (*sort)(cJSON *items);
	/* Only the first max items (the newest, in a list of builds); 0:
	 * all of them. */
	size_t max;
};
/* The same, as opts (may be NULL) say. */
int cli_print_list_with(struct cli_session *s, const char *path,
			const struct lc_query *q, int json,
			struct cli_table *t, cli_row_fn row,
			const struct cli_list_opts *opts);

/* The list of one project's resource ("redirects": the list at
 * /api/v3/projects/<project>/redirects/), as cli_print_list prints it. */
int cli_print_project_list(struct cli_session *s, const char *project,
			   const char *resource, int json,
			   struct cli_table *t, cli_row_fn row);

/* Tests one item of a list; non-zero: it is the one sought (match may
 * keep what it needs of it in arg), and the walk stops. */
typedef int (*cli_match_fn)(const cJSON *item, void *arg);
/* Walk the list at the path fmt makes, page after page, until match finds
 * its item. Returns 1 when it did, 0 when the list ended first, or -1 with
 * *err filled (for cli_fail_request or cli_fail_client). */
int cli_find_item(struct cli_session *s, struct lc_error *err,
		  cli_match_fn match, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Lays out a list command's table; the session is the command's, for rows
 * that ask the instance more (json: the rows are not printed). */
typedef void (*cli_table_fn)(struct cli_table *t, struct cli_session *s,
			     int json);
/* The whole of a command that takes no argument but --json and prints the
 * list at path: name is the command's, for its usage messages. */
int cli_list_command(struct cli_ctx *ctx, const char *name, int argc,
		     char **argv, const char *path, cli_table_fn table,
		     cli_row_fn row);

/* A cJSON string member, or "" when absent or not a string. */
const char *cli_json_str(const cJSON *obj, const char *key);

/* Sleep between polls. */
void cli_sleep_ms(long ms);

/* The end of a build's output, kept as it streams: it holds the error when
 * a build fails (lectern check and preview print it then). */
#define CLI_LOG_TAIL 4096
struct cli_log_tail {
	char text[CLI_LOG_TAIL + 1];
	size_t len;
	int cut; /* older output was dropped */
};
/* Append len bytes of output, dropping the oldest past CLI_LOG_TAIL. */
void cli_log_tail_add(struct cli_log_tail *t, const char *data, size_t len);
/* A line of the tail the reader has seen already (one printed as a
 * record): 1 to leave it out. */
typedef int (*cli_seen_fn)(const char *line, size_t len,
			   const void *payload);
/* After a failed build's one-line error: the end of its output, from the
 * start of a line ("..." first when older output was dropped), without
 * the lines the error already says and those seen says were printed (may
 * be NULL), through the filter of cli_print_output. */
void cli_print_log_end(FILE *f, const struct cli_log_tail *t,
		       const char *error, cli_seen_fn seen,
		       const void *payload);

/* Write a build's raw output to f through the terminal filter: its
 * carriage returns kept, and its colours on a colour terminal
 * (cli_use_color); no other escape or control. */
void cli_print_output(FILE *f, const char *text, size_t len);

/* How cli_watch_build reports progress: quiet (a progress line on a TTY
 * only) or one line per state on stdout. */
enum cli_watch_mode { CLI_WATCH_QUIET, CLI_WATCH_LINES };

/* Poll a build until it finishes. @param out the finished build (caller
 * frees with lc_build_free) */
int cli_watch_build(struct cli_session *s, const char *project, long long id,
		    enum cli_watch_mode mode, struct lc_build **out);

/* The commands (cmd_projects.c, cmd_builds.c, cmd_misc.c). */
int cli_cmd_projects(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_import(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_versions(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_version(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_translations(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_subprojects(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_orgs(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_builds(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_build(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_preview_branch(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_log(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_cancel(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_search(struct cli_ctx *ctx, int argc, char **argv);
/* cmd_addons.c */
int cli_cmd_addons(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_redirects(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_env(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_api(struct cli_ctx *ctx, int argc, char **argv);
/* cmd_diff.c */
int cli_cmd_diff(struct cli_ctx *ctx, int argc, char **argv);
/* cmd_mirror.c */
int cli_cmd_mirror_add(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_mirror_update(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_notifications(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_webhooks(struct cli_ctx *ctx, int argc, char **argv);
/* cmd_status.c: what the context's engine is doing; stopping it. */
int cli_cmd_status(struct cli_ctx *ctx, int argc, char **argv);
int cli_cmd_stop(struct cli_ctx *ctx, int argc, char **argv);
/* cmd_remove.c */
int cli_cmd_remove(struct cli_ctx *ctx, int argc, char **argv);

#endif
