/*
 * What the commands that print build warnings share (warnings.h): one
 * record as "file:line: kind: message", the form editors and CI read,
 * whether it came from the API (`lectern warnings`) or from the engine's
 * preview (`lectern check`, `lectern preview`), and a build's warnings
 * fetched as a list (`lectern check --new-only` compares with them).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "lectern/warning.h"
#include "warnings.h"

int cli_print_record(FILE *out, const struct lc_warning *w, int mark_new)
{
	char *text = lc_warning_format(w), *nl;

	if (text == NULL)
		return cli_fail("out of memory");
	/* The mark goes on the record's first line. */
	nl = strchr(text, '\n');
	if (mark_new && w->is_new == 1)
		cli_print(out, "%.*s [new]%s\n",
			  nl ? (int)(nl - text) : (int)strlen(text), text,
			  nl ? nl : "");
	else
		cli_print(out, "%s\n", text);
	free(text);
	return CLI_EXIT_OK;
}

/* An engine record as the client's, borrowing its texts. */
static void as_client(const struct lec_warning *w, struct lc_warning *out,
		      char *kind, size_t cap)
{
	snprintf(kind, cap, "%s", lec_warning_kind_code(w->kind));
	memset(out, 0, sizeof(*out));
	out->file = w->file;
	out->line = w->line;
	out->kind = kind;
	out->message = w->message;
	out->is_new = w->is_new;
}

int cli_print_engine_record(FILE *out, const struct lec_warning *w)
{
	struct lc_warning cw;
	char kind[16];

	as_client(w, &cw, kind, sizeof(kind));
	return cli_print_record(out, &cw, 0);
}

int cli_build_warnings(struct cli_session *s, const char *project,
		       long long build, int new_only,
		       struct cli_warning_list *out)
{
	struct lc_iter *it = NULL;
	struct lc_query q = { 0 };
	struct lc_error err;
	const cJSON *item;
	char path[CLI_PATH_MAX];
	int rc, status = CLI_EXIT_OK;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/api/v3/projects/%s/builds/%lld/warnings/",
		 project, build);
	if (new_only && lc_query_add(&q, "new", "true") != LC_OK)
		return cli_fail("out of memory");
	if (lc_iter_new(&it, s->client, path, &q, &err) != LC_OK) {
		status = cli_fail_request(s, &err);
		goto done;
	}
	while ((rc = lc_iter_next(it, &item, &err)) == 1) {
		struct lc_warning *w, **grown;

		if (lc_warning_parse(item, &w, &err) != LC_OK) {
			status = cli_fail_request(s, &err);
			goto done;
		}
		grown = realloc(out->items, (out->len + 1) * sizeof(*grown));
		if (grown == NULL) {
			lc_warning_free(w);
			status = cli_fail("out of memory");
			goto done;
		}
		out->items = grown;
		out->items[out->len++] = w;
	}
	if (rc < 0)
		status = cli_fail_request(s, &err);
done:
	if (status != CLI_EXIT_OK)
		cli_warning_list_dispose(out);
	lc_iter_free(it);
	lc_query_dispose(&q);
	return status;
}

void cli_warning_list_dispose(struct cli_warning_list *list)
{
	size_t i;

	for (i = 0; i < list->len; i++)
		lc_warning_free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->len = 0;
}
