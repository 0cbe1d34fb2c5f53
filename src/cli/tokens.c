/*
 * The token commands, engine-direct like the other admin commands
 * (admin.c): `token create` prints a new token once; `token list` names
 * tokens by id, with their user, age and browser sessions, and never
 * prints a secret (the store holds none); `token revoke` deletes tokens,
 * which ends the sessions logged in with them, and a running engine
 * refuses them from its next request (lectern/user.h); `user logout` ends
 * a user's sessions and keeps their tokens.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "context.h"
#include "table.h"
#include "lectern/session.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"

int cli_cmd_token_create(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user *user = NULL;
	char *token = NULL;
	int status = CLI_EXIT_OK;

	if (argc != 1 || argv[0][0] == '-')
		return cli_fail("usage: lectern token create USER");
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_user_ensure(store, argv[0], &user) < 0) {
		status = cli_fail_engine("cannot create the user");
		goto done;
	}
	if (lec_token_create(store, user->id, &token) < 0) {
		status = cli_fail_engine("cannot create a token");
		goto done;
	}
	/* The token alone on stdout, so `$(lectern token create me)` works;
	 * it is not stored anywhere in plain text. */
	printf("%s\n", token);
	memset(token, 0, strlen(token));
done:
	free(token);
	lec_user_free(user);
	return status;
}

/* A wrong command line: said, and status 2 as for every command. */
static int usage(const char *line)
{
	fprintf(stderr, "%s\n", line);
	return CLI_EXIT_USAGE;
}

/* The user named, or NULL after saying there is none. */
static struct lec_user *named_user(struct lec_store *store, const char *name)
{
	struct lec_user *user = NULL;

	if (lec_user_get(store, name, &user) < 0)
		cli_fail_engine("cannot find the user");
	return user;
}

/* ---- token list ------------------------------------------------------- */

/* A token as `token list --json` shows it (never its secret). */
static int token_json(const void *items, size_t i, cJSON *o)
{
	const struct lec_token *t = (const struct lec_token *)items + i;
	char when[LEC_TIME_ISO_MAX];

	lec_time_iso8601(t->created, when);
	return cJSON_AddNumberToObject(o, "id", (double)t->id) &&
	       cJSON_AddStringToObject(o, "username", t->username) &&
	       cJSON_AddStringToObject(o, "created", when) &&
	       cJSON_AddNumberToObject(o, "sessions", (double)t->sessions);
}

static void print_tokens(const struct lec_token_list *tokens)
{
	char when[LEC_TIME_ISO_MAX], cell[CLI_TIME_CELL_MAX];
	size_t i;

	printf("%-8s %-24s %-20s %s\n", "ID", "USER", "CREATED", "SESSIONS");
	for (i = 0; i < tokens->len; i++) {
		const struct lec_token *t = &tokens->items[i];

		lec_time_iso8601(t->created, when);
		printf("%-8lld %-24s %-20s %zu\n", (long long)t->id,
		       t->username, cli_time_cell(when, cell), t->sessions);
	}
}

int cli_cmd_token_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user *user = NULL;
	struct lec_token_list tokens = { 0 };
	const char *name = NULL;
	int json = 0, status = CLI_EXIT_OK, i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (argv[i][0] != '-' && name == NULL)
			name = argv[i];
		else
			return usage("usage: lectern token list [USER] [--json]");
	}
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	if (name && (user = named_user(store, name)) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_token_list(store, user ? user->id : 0, NULL, &tokens) < 0)
		status = cli_fail_engine("cannot list tokens");
	else if (json)
		status = cli_print_json_objects(tokens.items, tokens.len,
						token_json);
	else
		print_tokens(&tokens);
	lec_token_list_dispose(&tokens);
	lec_user_free(user);
	return status;
}

/* ---- token revoke ----------------------------------------------------- */

#define REVOKE_USAGE "usage: lectern token revoke ID... | --all USER"

/* A token id as `token list` prints it; 0 when word is none. */
static int64_t token_id(const char *word)
{
	char *end;
	long long id;

	errno = 0;
	id = strtoll(word, &end, 10);
	if (word[0] < '0' || word[0] > '9' || *end || errno || id <= 0)
		return 0;
	return (int64_t)id;
}

static int revoke_all(struct lec_store *store, const char *name)
{
	struct lec_user *user = named_user(store, name);
	size_t count = 0;
	int status = CLI_EXIT_OK;

	if (user == NULL)
		return CLI_EXIT_FAIL;
	if (lec_token_revoke_all(store, user->id, &count) < 0)
		status = cli_fail_engine("cannot revoke the tokens");
	else
		printf("revoked %zu token%s of %s, with their sessions\n",
		       count, count == 1 ? "" : "s", user->username);
	lec_user_free(user);
	return status;
}

/* The CLI's own token may have been among them. */
static int revoked(struct cli_ctx *ctx, int status)
{
	cli_local_token_recheck(ctx);
	return status;
}

/* Every word is read as an id before any token is revoked: a mistyped
 * one revokes nothing. */
int cli_cmd_token_revoke(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	int status = CLI_EXIT_OK, i;

	if (argc == 2 && strcmp(argv[0], "--all") == 0 && argv[1][0] != '-') {
		if ((store = cli_store(ctx)) == NULL)
			return CLI_EXIT_FAIL;
		return revoked(ctx, revoke_all(store, argv[1]));
	}
	if (argc == 0 || strcmp(argv[0], "--all") == 0)
		return usage(REVOKE_USAGE);
	for (i = 0; i < argc; i++)
		if (token_id(argv[i]) == 0) {
			cli_fail("token revoke: '%s' is no token id (see "
				 "`lectern token list`)",
				 argv[i]);
			return usage(REVOKE_USAGE);
		}
	if ((store = cli_store(ctx)) == NULL)
		return CLI_EXIT_FAIL;
	for (i = 0; i < argc && status == CLI_EXIT_OK; i++) {
		if (lec_token_revoke(store, token_id(argv[i])) < 0)
			status = cli_fail_engine("cannot revoke the token");
		else
			printf("revoked token %s, with its sessions\n",
			       argv[i]);
	}
	return revoked(ctx, status);
}

/* ---- user logout ------------------------------------------------------ */

int cli_cmd_user_logout(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_store *store;
	struct lec_user *user;
	size_t count = 0;
	int status = CLI_EXIT_OK;

	if (argc != 1 || argv[0][0] == '-')
		return usage("usage: lectern user logout USER");
	if ((store = cli_store(ctx)) == NULL ||
	    (user = named_user(store, argv[0])) == NULL)
		return CLI_EXIT_FAIL;
	if (lec_session_end_user(store, user->id, &count) < 0)
		status = cli_fail_engine("cannot end the sessions");
	else
		printf("ended %zu session%s of %s\n", count,
		       count == 1 ? "" : "s", user->username);
	lec_user_free(user);
	return status;
}
