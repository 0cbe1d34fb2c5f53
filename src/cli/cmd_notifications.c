/*
 * `lectern notifications [read|dismiss ID] [--project P [--build N]]
 * [--all] [--json]`: the user's notifications (the v3 feed), a project's or
 * a build's, and marking one read or dismissed.
 *
 * `lectern webhooks PROJECT [add URL [--events E,E] [--payload FILE] |
 * remove ID | deliveries ID] [--json]`: a project's outgoing webhooks (a
 * Lectern extension of the API). `add` prints the generated secret, shown
 * this once: the engine keeps it sealed and never returns it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

/* The service's template limit is 25000 characters; UTF-8 takes at most
 * four bytes each. */
#define PAYLOAD_FILE_MAX (25000 * 4)

static const char *num(const cJSON *obj, const char *key, char buf[24])
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsNumber(v))
		snprintf(buf, 24, "%.0f", cJSON_GetNumberValue(v));
	else
		snprintf(buf, 24, "-");
	return buf;
}

/* Notifications -------------------------------------------------------------- */

/* ON says what it is about: "guide/latest #12" (lc_notification_about). */
static int notification_row(struct cli_table *t, const cJSON *item)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(item, "message");
	char id[24], about[LC_NOTIFICATION_ABOUT_MAX];

	cli_table_row(t, num(item, "id", id), cli_json_str(item, "state"),
		      lc_notification_about(item, about, sizeof(about)),
		      cli_json_str(msg, "header"), NULL);
	return CLI_EXIT_OK;
}

/* The list path the options name: a build's, a project's or the feed. */
static int notifications_path(const char *project, const char *build,
			      char *path, size_t size)
{
	if (build && project == NULL) {
		cli_fail("notifications: --build needs --project");
		return CLI_EXIT_USAGE;
	}
	if (build && build[strspn(build, "0123456789")] != '\0') {
		cli_fail("notifications: --build wants a build id, not '%s'",
			 build);
		return CLI_EXIT_USAGE;
	}
	if (project && cli_check_slug("project", project) != CLI_EXIT_OK)
		return CLI_EXIT_USAGE;
	if (build)
		snprintf(path, size,
			 "/api/v3/projects/%s/builds/%s/notifications/",
			 project, build);
	else if (project)
		snprintf(path, size, "/api/v3/projects/%s/notifications/",
			 project);
	else
		snprintf(path, size, "/api/v3/notifications/");
	return CLI_EXIT_OK;
}

static int notification_set(struct cli_session *s, const char *list_path,
			    const char *id, const char *state, int json)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	char path[CLI_PATH_MAX], body[48];
	int status = CLI_EXIT_OK;

	if (*id == '\0' || id[strspn(id, "0123456789")] != '\0') {
		cli_fail("notifications: wants a notification's id, not '%s'",
			 id);
		return CLI_EXIT_USAGE;
	}
	if (snprintf(path, sizeof(path), "%s%s/", list_path, id) >=
	    (int)sizeof(path)) {
		cli_fail("notifications: '%s' is too long", id);
		return CLI_EXIT_USAGE;
	}
	snprintf(body, sizeof(body), "{\"state\": \"%s\"}", state);
	if (lc_request(s->client, "PATCH", path, body, &r, &err) != LC_OK) {
		lc_response_free(r);
		return cli_fail_request(s, &err);
	}
	lc_response_free(r);
	r = NULL;
	/* The service answers the change with 204 and no body: --json
	 * shows the notification as it now is. */
	if (!json) {
		cli_print(stdout, "notification %s: %s\n", id, state);
		return status;
	}
	if (lc_request(s->client, "GET", path, NULL, &r, &err) != LC_OK) {
		lc_response_free(r);
		return cli_fail_client(&err);
	}
	status = cli_print_json(r->json);
	lc_response_free(r);
	return status;
}

int cli_cmd_notifications(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *project = NULL, *build = NULL;
	struct lc_query q = { 0 };
	struct cli_session s;
	struct cli_table t;
	char path[CLI_PATH_MAX], *pos[2];
	int json = 0, all = 0, n, status;
	const struct cli_opt opts[] = { { "--project", &project, NULL },
					{ "--build", &build, NULL },
					{ "--all", NULL, &all },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_args("notifications", argc, argv, opts, pos, 0,
				     2, &n)) != CLI_EXIT_OK ||
	    (status = notifications_path(project, build, path,
					 sizeof(path))) != CLI_EXIT_OK)
		return status;
	if (n == 1 || (n == 2 && strcmp(pos[0], "read") != 0 &&
		       strcmp(pos[0], "dismiss") != 0)) {
		cli_fail("notifications: expected 'read ID' or 'dismiss ID'");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK)
		return status;
	s.project = project;
	s.build = build ? strtoll(build, NULL, 10) : 0;
	if (n == 2 && (status = cli_session_writable(&s)) == CLI_EXIT_OK) {
		status = notification_set(&s, path, pos[1],
					  strcmp(pos[0], "read") == 0
						  ? "read"
						  : "dismissed",
					  json);
	} else if (n == 0) {
		/* The feed shows open ones only; a project's and a build's
		 * lists show every state, so ask for the open ones there
		 * too unless --all. */
		if (!all && lc_query_add(&q, "state__in", "unread,read") != LC_OK)
			status = cli_fail("out of memory");
		cli_table_init(&t, "ID", "STATE", "ON", "MESSAGE", NULL);
		if (status == CLI_EXIT_OK)
			status = cli_print_list(&s, path, &q, json, &t,
						notification_row);
	}
	lc_query_dispose(&q);
	cli_session_close(&s);
	return status;
}

/* Webhooks --------------------------------------------------------------------- */

static int webhook_row(struct cli_table *t, const cJSON *item)
{
	const cJSON *events = cJSON_GetObjectItemCaseSensitive(item, "events");
	const cJSON *e;
	char id[24], list[80] = "", when[CLI_TIME_CELL_MAX];
	size_t used = 0;
	int w;

	cJSON_ArrayForEach(e, events) {
		if (!cJSON_IsString(e) || used >= sizeof(list))
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s%s",
			     used ? "," : "", e->valuestring);
		used += w > 0 ? (size_t)w : 0;
	}
	cli_table_row(t, num(item, "id", id), list, cli_json_str(item, "url"),
		      cli_time_cell(cli_json_str(item, "created"), when), NULL);
	return CLI_EXIT_OK;
}

static int delivery_row(struct cli_table *t, const cJSON *item)
{
	char id[24], build[24], attempts[24], code[24];
	char when[CLI_TIME_CELL_MAX];

	cli_table_row(t, num(item, "id", id), cli_json_str(item, "event"),
		      num(item, "build", build), cli_json_str(item, "state"),
		      num(item, "attempts", attempts),
		      num(item, "status_code", code),
		      cli_time_cell(cli_json_str(item, "modified"), when),
		      NULL);
	return CLI_EXIT_OK;
}

/* The whole of a template file, or NULL after saying why. */
static char *read_payload(const char *file)
{
	FILE *f = fopen(file, "rb");
	char *buf = f ? malloc(PAYLOAD_FILE_MAX + 1) : NULL;
	size_t n = 0;

	if (f == NULL) {
		cli_fail("webhooks: cannot read '%s'", file);
		return NULL;
	}
	if (buf)
		n = fread(buf, 1, PAYLOAD_FILE_MAX + 1, f);
	fclose(f);
	if (buf == NULL) {
		cli_fail("out of memory");
		return NULL;
	}
	if (n > PAYLOAD_FILE_MAX) {
		cli_fail("webhooks: '%s' is larger than a template may be",
			 file);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The add request's body: url, events (comma list, default all three)
 * and the template, if any. NULL after saying why. */
static char *add_body(const char *url, const char *events,
		      const char *payload_file)
{
	cJSON *o = cJSON_CreateObject(), *list;
	char *copy = strdup(events ? events
				   : "build:triggered,build:passed,build:failed");
	char *payload = NULL, *body = NULL, *e, *save = NULL;

	if (o == NULL || copy == NULL)
		goto done;
	cJSON_AddStringToObject(o, "url", url);
	list = cJSON_AddArrayToObject(o, "events");
	for (e = strtok_r(copy, ",", &save); e && list;
	     e = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(list, cJSON_CreateString(e));
	if (payload_file) {
		if ((payload = read_payload(payload_file)) == NULL)
			goto done;
		cJSON_AddStringToObject(o, "payload", payload);
	}
	body = cJSON_PrintUnformatted(o);
	if (body == NULL)
		cli_fail("out of memory");
done:
	free(payload);
	free(copy);
	cJSON_Delete(o);
	return body;
}

static int webhook_add(struct cli_session *s, const char *project,
		       const char *url, const char *events,
		       const char *payload_file, int json)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	char path[CLI_PATH_MAX], id[24];
	char *body = add_body(url, events, payload_file);
	int status = CLI_EXIT_OK;

	if (body == NULL)
		return CLI_EXIT_FAIL;
	snprintf(path, sizeof(path), "/api/v3/projects/%s/webhooks/", project);
	if (lc_request(s->client, "POST", path, body, &r, &err) != LC_OK) {
		free(body);
		lc_response_free(r);
		return cli_fail_request(s, &err);
	}
	free(body);
	if (json) {
		status = cli_print_json(r->json);
	} else {
		cli_print(stdout, "webhook %s: %s\nsecret: %s\n",
			  num(r->json, "id", id), cli_json_str(r->json, "url"),
			  cli_json_str(r->json, "secret"));
		printf("Check X-Hub-Signature (the hex HMAC-SHA256 of the body "
		       "under this secret); it is not shown again.\n");
	}
	cli_response_free_secret(r);
	return status;
}

int cli_cmd_webhooks(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *events = NULL, *payload = NULL;
	struct cli_session s;
	struct cli_table t;
	char path[CLI_PATH_MAX], *pos[3];
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--events", &events, NULL },
					{ "--payload", &payload, NULL },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("webhooks", argc, argv, opts, pos,
					     1, 3, &n)) != CLI_EXIT_OK)
		return status;
	if (n == 2 ||
	    (n == 3 && strcmp(pos[1], "add") != 0 &&
	     strcmp(pos[1], "remove") != 0 &&
	     strcmp(pos[1], "deliveries") != 0)) {
		cli_fail("webhooks: expected 'add URL', 'remove ID' or "
			 "'deliveries ID'");
		return CLI_EXIT_USAGE;
	}
	if (n == 3 && strcmp(pos[1], "add") != 0 &&
	    (*pos[2] == '\0' || pos[2][strspn(pos[2], "0123456789")] != '\0')) {
		cli_fail("webhooks: %s wants the webhook's id, not '%s'",
			 pos[1], pos[2]);
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (n == 3 && strcmp(pos[1], "deliveries") == 0) {
		snprintf(path, sizeof(path),
			 "/api/v3/projects/%s/webhooks/%s/deliveries/", pos[0],
			 pos[2]);
		cli_table_init(&t, "ID", "EVENT", "BUILD", "STATE", "TRIES",
			       "HTTP", "WHEN", NULL);
		status = cli_print_list(&s, path, NULL, json, &t,
					delivery_row);
	} else if (n == 3 &&
		   (status = cli_session_writable(&s)) == CLI_EXIT_OK) {
		status = strcmp(pos[1], "add") == 0
				 ? webhook_add(&s, pos[0], pos[2], events,
					       payload, json)
				 : cli_remove_of_project(&s, pos[0], "webhooks",
							 "webhook", pos[2]);
	} else if (n == 1) {
		cli_table_init(&t, "ID", "EVENTS", "URL", "CREATED", NULL);
		status = cli_print_project_list(&s, pos[0], "webhooks", json,
						&t, webhook_row);
	}
	cli_session_close(&s);
	return status;
}
