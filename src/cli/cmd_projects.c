/*
 * The project commands: list and import projects, list and flag versions,
 * subprojects, translations and organizations. Each prints a table, or with
 * --json the API's JSON (a whole list as one envelope).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

/* How long an import waits for its first build to be queued; the engine
 * queues it as part of the import, the hosted service within seconds. */
#define FIRST_BUILD_WAIT_MS 30000
#define FIRST_BUILD_POLL_MS 250

static const char *yes_no(int flag)
{
	return flag == LC_UNKNOWN ? "" : flag ? "yes" : "no";
}

/* ---- projects ----------------------------------------------------------- */

/* The default version's newest build (lc_last_build_path) as "#12
 * passed", "#13 queued" or "#13 building" ("none" without one; "?" when
 * the instance did not say): one request per project, a page of one
 * build. */
static void last_build(const struct cli_session *s, const struct lc_project *p,
		       char *buf, size_t size)
{
	struct lc_response *r = NULL;
	struct lc_build *b = NULL;
	struct lc_error err;
	const cJSON *first;
	const char *word;
	char *path = lc_last_build_path(p->slug, p->default_version);

	snprintf(buf, size, "?");
	if (path == NULL ||
	    lc_request(s->client, "GET", path, NULL, &r, &err) != LC_OK) {
		free(path);
		lc_response_free(r);
		return;
	}
	free(path);
	first = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(r->json, "results"), 0);
	if (first == NULL) {
		snprintf(buf, size, "none");
	} else if (lc_build_parse(first, &b, &err) == LC_OK) {
		word = b->state ? b->state : "";
		if (strcmp(word, "finished") == 0)
			word = b->success == 1 ? "passed" : "failed";
		else if (strcmp(word, "triggered") == 0)
			word = "queued";
		snprintf(buf, size, "#%lld %s", b->id, word);
	}
	lc_build_free(b);
	lc_response_free(r);
}

/* The table's columns; the last build's only where it is asked for. */
static void project_table(struct cli_table *t, int last)
{
	if (last)
		cli_table_init(t, "SLUG", "NAME", "LANGUAGE", "DEFAULT",
			       "LAST BUILD", "REPOSITORY", NULL);
	else
		cli_table_init(t, "SLUG", "NAME", "LANGUAGE", "DEFAULT",
			       "REPOSITORY", NULL);
}

static int project_row(struct cli_table *t, const cJSON *item)
{
	const struct cli_session *s = t->payload;
	struct lc_project *p = NULL;
	struct lc_error err;
	char last[48] = "";

	if (lc_project_parse(item, &p, &err) != LC_OK)
		return cli_fail_client(&err);
	/* The last build costs a request per project: a Lectern's, not the
	 * hosted service's (60 requests a minute; issue 31, item 7). What
	 * the instance is, its first answer told. */
	if (s && t->rows == 0 &&
	    lc_client_remote(s->client) != LC_REMOTE_LECTERN) {
		cli_table_dispose(t);
		project_table(t, 0);
		s = NULL;
	}
	if (s && p->slug)
		last_build(s, p, last, sizeof(last));
	if (t->ncols == 6)
		cli_table_row(t, p->slug ? p->slug : "", p->name ? p->name : "",
			      p->language ? p->language : "",
			      p->default_version ? p->default_version : "",
			      last,
			      p->repository_url ? p->repository_url : "",
			      NULL);
	else
		cli_table_row(t, p->slug ? p->slug : "", p->name ? p->name : "",
			      p->language ? p->language : "",
			      p->default_version ? p->default_version : "",
			      p->repository_url ? p->repository_url : "",
			      NULL);
	lc_project_free(p);
	return CLI_EXIT_OK;
}

/* The last build asks the instance again per project (the session, as the
 * table's payload): not for --json, which is the API's list as it is. */
static void projects_table(struct cli_table *t, struct cli_session *s,
			   int json)
{
	project_table(t, !json);
	t->payload = json ? NULL : s;
}

int cli_cmd_projects(struct cli_ctx *ctx, int argc, char **argv)
{
	return cli_list_command(ctx, "projects", argc, argv,
				"/api/v3/projects/", projects_table,
				project_row);
}

/* ---- import ------------------------------------------------------------- */

/* A project name from a repository URL: its last path part without
 * ".git" ("https://h/o/My-Docs.git" gives "My-Docs"). */
static char *name_from_url(const char *url)
{
	const char *end = url + strlen(url), *start;
	char *name;

	while (end > url && end[-1] == '/')
		end--;
	start = end;
	while (start > url && start[-1] != '/' && start[-1] != ':')
		start--;
	if (end - start > 4 && strncmp(end - 4, ".git", 4) == 0)
		end -= 4;
	if (end <= start)
		return NULL;
	if ((name = malloc((size_t)(end - start) + 1)) == NULL)
		return NULL;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = '\0';
	return name;
}

/* The id of the project's first build, waiting for it to be queued. */
static int first_build(struct cli_session *s, const char *slug,
		       long long *id)
{
	struct lc_list *list = NULL;
	struct lc_error err;
	int waited;

	for (waited = 0; waited < FIRST_BUILD_WAIT_MS;
	     waited += FIRST_BUILD_POLL_MS) {
		if (lc_builds_list(s->client, slug, LC_UNKNOWN, NULL, NULL,
				   &list, &err) != LC_OK)
			return cli_fail_request(s, &err);
		if (list->len > 0) {
			/* Newest first: the last item is the first build. */
			*id = ((struct lc_build *)list->items[list->len - 1])
				      ->id;
			lc_list_free(list);
			return CLI_EXIT_OK;
		}
		lc_list_free(list);
		list = NULL;
		cli_sleep_ms(FIRST_BUILD_POLL_MS);
	}
	return cli_fail("no build of '%s' was queued within %d s", slug,
			FIRST_BUILD_WAIT_MS / 1000);
}

/* Follow the import's first build; its failure fails the import. */
static int wait_first_build(struct cli_session *s, const char *slug)
{
	struct lc_build *b = NULL;
	long long id = 0;
	int status;

	if ((status = first_build(s, slug, &id)) != CLI_EXIT_OK ||
	    (status = cli_watch_build(s, slug, id, CLI_WATCH_QUIET, &b)) !=
		    CLI_EXIT_OK)
		return status;
	if (b->success != 1)
		status = cli_fail("the first build of '%s' (build %lld) "
				  "failed: %s", slug, id,
				  b->error ? b->error : b->state);
	lc_build_free(b);
	return status;
}

/* "imported guide: URL"; through an ssh context the URL is the remote
 * engine's, which no browser here reaches (it names no port): how to
 * read it here follows, the port forward and the URL through it. */
static void print_imported(const struct cli_session *s,
			   const struct lc_project *p)
{
	const char *url = p->documentation_url;
	char *command, *here;

	cli_print(stdout, "imported %s%s%s%s%s\n", p->slug, url ? ": " : "",
		  url ? url : "", url && s->conn.forward_hint ? " on " : "",
		  url && s->conn.forward_hint ? s->conn.link_name : "");
	if (url == NULL || s->conn.forward_hint == NULL)
		return;
	command = lc_forward_command(s->conn.forward_hint, LC_FORWARD_PORT);
	here = lc_url_with_port(url, LC_FORWARD_PORT);
	if (command && here)
		cli_print(stdout, "to read it here: %s, then open %s\n",
			  command, here);
	free(command);
	free(here);
}

int cli_cmd_import(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lc_project_import in = { 0 };
	struct lc_project *p = NULL;
	struct lc_error err;
	struct cli_session s = { 0 };
	char *pos[1], *name = NULL, *path_url = NULL;
	int json = 0, no_wait = 0, n, status;
	const struct cli_opt opts[] = {
		{ "--name", &in.name, NULL },
		{ "--language", &in.language, NULL },
		{ "--programming-language", &in.programming_language, NULL },
		{ "--organization", &in.organization, NULL },
		{ "--no-wait", NULL, &no_wait },
		{ "--json", NULL, &json },
		{ NULL, NULL, NULL }
	};

	if ((status = cli_parse_args("import", argc, argv, opts, pos, 1, 1,
				     &n)) != CLI_EXIT_OK)
		return status;
	in.repository_url = pos[0];
	if ((status = cli_session_open(ctx, &s)) != CLI_EXIT_OK ||
	    (status = cli_session_writable(&s)) != CLI_EXIT_OK)
		goto done;
	/* A directory as typed becomes its file:// URL, on the machine
	 * whose engine reads it. */
	if (lc_repository_url(pos[0], s.conn.is_local, &path_url, &err) !=
	    LC_OK) {
		status = cli_fail("import: %s", err.message);
		goto done;
	}
	in.repository_url = path_url;
	if (in.name == NULL) {
		if ((name = name_from_url(in.repository_url)) == NULL) {
			cli_fail("import: cannot name a project after '%s'; "
				 "use --name", pos[0]);
			status = CLI_EXIT_USAGE;
			goto done;
		}
		in.name = name;
	}
	/* The engine, not this machine, reads a file:// repository. */
	if (s.conn.unix_socket && strncmp(in.repository_url, "file://", 7) == 0)
		cli_print(stderr, "lectern: import: %s is a path on the remote "
			  "machine of %s\n", in.repository_url,
			  s.conn.link_name);
	if (lc_project_import(s.client, &in, &p, &err) != LC_OK) {
		status = cli_fail_request(&s, &err);
		goto done;
	}
	if (!no_wait && (status = wait_first_build(&s, p->slug)) != CLI_EXIT_OK)
		goto done;
	if (json)
		status = cli_print_json(p->raw);
	else
		print_imported(&s, p);
done:
	lc_project_free(p);
	cli_session_close(&s);
	free(name);
	free(path_url);
	return status;
}

/* ---- versions and version ------------------------------------------------ */

static int version_row(struct cli_table *t, const cJSON *item)
{
	struct lc_version *v = NULL;
	struct lc_error err;

	if (lc_version_parse(item, &v, &err) != LC_OK)
		return cli_fail_client(&err);
	cli_table_row(t, v->slug ? v->slug : "", v->type ? v->type : "",
		      yes_no(v->active), yes_no(v->hidden), yes_no(v->built),
		      v->identifier ? v->identifier : "", NULL);
	lc_version_free(v);
	return CLI_EXIT_OK;
}

static void version_table(struct cli_table *t)
{
	cli_table_init(t, "SLUG", "TYPE", "ACTIVE", "HIDDEN", "BUILT",
		       "IDENTIFIER", NULL);
}

/* A list below a project: "/api/v3/projects/<p>/<what>/", its rows in
 * the order sort (may be NULL) gives. */
static int project_list(struct cli_ctx *ctx, const char *cmd, int argc,
			char **argv, const char *what, struct cli_table *t,
			cli_row_fn row, int (*sort)(cJSON *items))
{
	struct cli_session s;
	struct cli_list_opts opts = { NULL, 0 };
	char path[CLI_PATH_MAX], *pos[1];
	int json = 0, n, status;
	const struct cli_opt options[] = { { "--json", NULL, &json },
					   { NULL, NULL, NULL } };

	if ((status = cli_parse_project_args(cmd, argc, argv, options, pos, 1,
					     1, &n)) != CLI_EXIT_OK ||
	    (status = cli_session_open_project(ctx, &s, pos[0])) !=
		    CLI_EXIT_OK) {
		cli_table_dispose(t);
		return status;
	}
	snprintf(path, sizeof(path), "/api/v3/projects/%s/%s/", pos[0], what);
	opts.sort = sort;
	status = cli_print_list_with(&s, path, NULL, json, t, row, &opts);
	cli_session_close(&s);
	return status;
}

int cli_cmd_versions(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_table t;

	version_table(&t);
	/* As the service's dashboard lists them: latest, stable, then
	 * the newest version first. */
	return project_list(ctx, "versions", argc, argv, "versions", &t,
			    version_row, lc_versions_sort);
}

/* The flag options of `version`; LC_UNKNOWN leaves a flag as it is. */
static int version_flags(int on, int off, const char *names, int *out)
{
	if (on && off) {
		cli_fail("version: %s contradict each other", names);
		return CLI_EXIT_USAGE;
	}
	*out = on ? 1 : off ? 0 : LC_UNKNOWN;
	return CLI_EXIT_OK;
}

static int show_version(struct cli_session *s, const char *project,
			const char *slug, int json)
{
	struct lc_version *v = NULL;
	struct lc_error err;
	struct cli_table t;
	int status;

	if (lc_version_get(s->client, project, slug, NULL, &v, &err) != LC_OK)
		return cli_fail_request(s, &err);
	if (json) {
		status = cli_print_json(v->raw);
	} else {
		version_table(&t);
		status = version_row(&t, v->raw);
		if (status == CLI_EXIT_OK)
			status = cli_table_print(&t, stdout);
		cli_table_dispose(&t);
	}
	lc_version_free(v);
	return status;
}

int cli_cmd_version(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s = { 0 };
	struct lc_error err;
	char *pos[2];
	int active = 0, inactive = 0, hidden = 0, visible = 0, json = 0;
	int want_active, want_hidden, n, status;
	const struct cli_opt opts[] = {
		{ "--active", NULL, &active },
		{ "--inactive", NULL, &inactive },
		{ "--hidden", NULL, &hidden },
		{ "--visible", NULL, &visible },
		{ "--json", NULL, &json },
		{ NULL, NULL, NULL }
	};

	if ((status = cli_parse_project_args("version", argc, argv, opts, pos,
					     2, 2, &n)) != CLI_EXIT_OK ||
	    (status = cli_check_slug("version", pos[1])) != CLI_EXIT_OK ||
	    (status = version_flags(active, inactive, "--active and --inactive",
				    &want_active)) != CLI_EXIT_OK ||
	    (status = version_flags(hidden, visible, "--hidden and --visible",
				    &want_hidden)) != CLI_EXIT_OK)
		return status;
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	s.version = pos[1];
	if (want_active != LC_UNKNOWN || want_hidden != LC_UNKNOWN) {
		if ((status = cli_session_writable(&s)) != CLI_EXIT_OK)
			goto done;
		if (lc_version_update(s.client, pos[0], pos[1], want_active,
				      want_hidden, &err) != LC_OK) {
			status = cli_fail_request(&s, &err);
			goto done;
		}
	}
	/* Show the version as it now is. */
	status = show_version(&s, pos[0], pos[1], json);
done:
	cli_session_close(&s);
	return status;
}

/* ---- translations, subprojects --------------------------------------------- */

int cli_cmd_translations(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_table t;

	project_table(&t, 0);
	return project_list(ctx, "translations", argc, argv, "translations",
			    &t, project_row, NULL);
}

static int subproject_row(struct cli_table *t, const cJSON *item)
{
	struct lc_subproject *sp = NULL;
	struct lc_error err;

	if (lc_subproject_parse(item, &sp, &err) != LC_OK)
		return cli_fail_client(&err);
	cli_table_row(t, sp->alias ? sp->alias : "",
		      sp->child->slug ? sp->child->slug : "",
		      sp->child->name ? sp->child->name : "", NULL);
	lc_subproject_free(sp);
	return CLI_EXIT_OK;
}

/* What find_alias seeks: a subproject by its child's slug or its alias. */
struct subproject_alias {
	const char *child;
	char *alias; /* found: its alias, caller frees */
};

static int of_child(const cJSON *item, void *arg)
{
	struct subproject_alias *want = arg;
	const char *a = cli_json_str(item, "alias");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(item, "child");

	if (strcmp(a, want->child) != 0 &&
	    strcmp(cli_json_str(c, "slug"), want->child) != 0)
		return 0;
	want->alias = strdup(a);
	return 1;
}

/* The alias under which `child` (a child slug or an alias) is a subproject
 * of `project`; caller frees. */
static int find_alias(struct cli_session *s, const char *project,
		      const char *child, char **alias)
{
	struct subproject_alias want = { child, NULL };
	struct lc_error err;

	*alias = NULL;
	if (cli_find_item(s, &err, of_child, &want,
			  "/api/v3/projects/%s/subprojects/", project) < 0)
		return cli_fail_request(s, &err);
	if ((*alias = want.alias) == NULL)
		return cli_fail("'%s' is not a subproject of '%s'", child,
				project);
	return CLI_EXIT_OK;
}

static int subproject_change(struct cli_session *s, char **pos, int n,
			     const char *alias_opt)
{
	struct lc_error err;
	char *alias = NULL;
	int status;

	if (n != 3 || (strcmp(pos[1], "add") != 0 &&
		       strcmp(pos[1], "remove") != 0)) {
		cli_fail("subprojects: expected 'add CHILD' or 'remove CHILD'");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_check_slug("project", pos[2])) != CLI_EXIT_OK ||
	    (status = cli_session_writable(s)) != CLI_EXIT_OK)
		return status;
	if (strcmp(pos[1], "add") == 0) {
		if (lc_subproject_add(s->client, pos[0], pos[2], alias_opt,
				      &err) != LC_OK)
			return cli_fail_request(s, &err);
		cli_print(stdout, "added %s as a subproject of %s\n", pos[2],
			  pos[0]);
		return CLI_EXIT_OK;
	}
	if ((status = find_alias(s, pos[0], pos[2], &alias)) != CLI_EXIT_OK)
		return status;
	if (lc_subproject_remove(s->client, pos[0], alias, &err) != LC_OK)
		status = cli_fail_request(s, &err);
	else
		cli_print(stdout, "removed subproject %s of %s\n", pos[2],
			  pos[0]);
	free(alias);
	return status;
}

int cli_cmd_subprojects(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_session s;
	struct cli_table t;
	const char *alias = NULL;
	char *pos[3];
	int json = 0, n, status;
	const struct cli_opt opts[] = { { "--alias", &alias, NULL },
					{ "--json", NULL, &json },
					{ NULL, NULL, NULL } };

	if ((status = cli_parse_project_args("subprojects", argc, argv, opts,
					     pos, 1, 3, &n)) != CLI_EXIT_OK)
		return status;
	if (n == 1 && alias) {
		cli_fail("subprojects: --alias goes with 'add CHILD'");
		return CLI_EXIT_USAGE;
	}
	if ((status = cli_session_open_project(ctx, &s, pos[0])) !=
	    CLI_EXIT_OK)
		return status;
	if (n > 1) {
		status = subproject_change(&s, pos, n, alias);
	} else {
		cli_table_init(&t, "ALIAS", "CHILD", "NAME", NULL);
		status = cli_print_project_list(&s, pos[0], "subprojects", json,
						&t, subproject_row);
	}
	cli_session_close(&s);
	return status;
}

/* ---- orgs --------------------------------------------------------------- */

static int org_row(struct cli_table *t, const cJSON *item)
{
	struct lc_organization *o = NULL;
	struct lc_error err;
	char owners[256] = "";
	size_t i, used = 0;

	if (lc_organization_parse(item, &o, &err) != LC_OK)
		return cli_fail_client(&err);
	for (i = 0; i < o->owners_len && used < sizeof(owners); i++)
		used += (size_t)snprintf(owners + used, sizeof(owners) - used,
					 "%s%s", i ? "," : "", o->owners[i]);
	cli_table_row(t, o->slug ? o->slug : "", o->name ? o->name : "",
		      owners, NULL);
	lc_organization_free(o);
	return CLI_EXIT_OK;
}

static void orgs_table(struct cli_table *t, struct cli_session *s, int json)
{
	(void)s;
	(void)json;
	cli_table_init(t, "SLUG", "NAME", "OWNERS", NULL);
}

int cli_cmd_orgs(struct cli_ctx *ctx, int argc, char **argv)
{
	return cli_list_command(ctx, "orgs", argc, argv,
				"/api/v3/organizations/", orgs_table, org_row);
}
