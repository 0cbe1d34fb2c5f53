/*
 * The command line's `:` commands (command.h): the line's first word
 * resolved through the action table (actions.def), whose COMMAND rows
 * say what each takes and what Tab completes; the runners here open
 * screens through app->screens, switch contexts and start previews.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "client.h"
#include "command.h"
#include "context.h"
#include "preview.h"

/* Previews ---------------------------------------------------------------------- */

/* Mark the screens of the preview at url (its readers, their page
 * lists) for ui_app_close_gone: its server is about to stop, and going
 * back to them would show a page that can no longer be fetched. */
static void close_preview_screens(struct ui_app *app, const char *url)
{
	const char *site;
	size_t i;

	for (i = 1; url && i < app->depth; i++)
		if (app->stack[i]->ops->site &&
		    (site = app->stack[i]->ops->site(app->stack[i])) != NULL &&
		    strncmp(site, url, strlen(url)) == 0)
			app->stack[i]->gone = 1;
}

/* `:preview [DIR]`: a new preview replaces the running one; the reader
 * opens on its index page once the child has printed its URL
 * (loop.c's poll_preview). */
static void cmd_preview(struct ui_app *app, const char *dir)
{
	char err[UI_MESSAGE_MAX];

	if (app->preview)
		close_preview_screens(app, ui_preview_url(app->preview));
	ui_preview_stop(app->preview);
	app->preview = NULL;
	if (ui_preview_start(dir, &app->preview, err, sizeof(err)) < 0) {
		ui_app_error(app, "%s", err);
		return;
	}
	ui_app_message(app, "preview: starting on %s",
		       ui_preview_dir(app->preview));
}

/* `:` commands ---------------------------------------------------------------- */

static void cmd_project(struct ui_app *app, const char *arg)
{
	ui_app_push(app, app->screens->project(app, arg));
}

static void cmd_build(struct ui_app *app, const char *arg)
{
	long long id;

	if (ui_parse_long(arg, &id) < 0) {
		ui_app_error(app, "not a build number: %s", arg);
		return;
	}
	ui_app_push(app, app->screens->build(app, NULL, id));
}

/* `:builds [SLUG]`: a project's builds, or every project's. */
static void cmd_builds(struct ui_app *app, const char *arg)
{
	ui_app_push(app,
		    app->screens->builds(app, arg && *arg ? arg : NULL));
}

/* The project of the topmost screen that has one in focus. */
static const char *focused_project(struct ui_app *app)
{
	const char *slug;
	size_t i;

	for (i = app->depth; i > 0; i--)
		if (app->stack[i - 1]->ops->project &&
		    (slug = app->stack[i - 1]->ops->project(app->stack[i - 1])))
			return slug;
	return NULL;
}

/* `:search [project:SLUG[/VERSION]] QUERY`: the scope written as the
 * service's v3 search writes it, else the project in focus and its
 * "latest". */
static void cmd_search(struct ui_app *app, const char *arg)
{
	const char *project = focused_project(app), *query = arg, *slash;
	char *slug = NULL, *version = NULL;
	size_t n;

	if (arg && strncmp(arg, "project:", 8) == 0) {
		n = strcspn(arg + 8, " ");
		slash = memchr(arg + 8, '/', n);
		slug = ui_xstrndup(arg + 8, slash ? (size_t)(slash - arg - 8) : n);
		if (slash && arg + 8 + n > slash + 1)
			version = ui_xstrndup(slash + 1,
					      (size_t)(arg + 8 + n - slash - 1));
		query = arg + 8 + n + strspn(arg + 8 + n, " ");
		project = slug;
	}
	if (project == NULL || *project == '\0')
		ui_app_error(app, ":search needs a project: select or open "
				  "one, or write project:SLUG[/VERSION]");
	else
		ui_app_push(app, app->screens->search(app, project, version,
						      query));
	free(slug);
	free(version);
}

static void cmd_projects(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_pop_all(app);
	ui_app_push(app, app->screens->projects(app));
}

static void cmd_orgs(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_push(app, app->screens->orgs(app));
}

static void cmd_notifications(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_push(app, app->screens->notifications(app));
}

/* `:context NAME`, or alone the contexts to pick one from (k9s' `:ctx`). */
static void cmd_context(struct ui_app *app, const char *arg)
{
	if (arg == NULL || *arg == '\0')
		ui_app_push(app, app->screens->contexts(app));
	else
		ui_context_switch(app, arg);
}

static void cmd_quit(struct ui_app *app, const char *arg)
{
	(void)arg;
	ui_app_request_quit(app, app->quit_asked);
}

/* Each command's runner, by its row in the action table (actions.def). */
static void (*const runners[UI_ACTION_COUNT])(struct ui_app *app,
					      const char *arg) = {
	[UI_ACTION_CMD_BUILD] = cmd_build,
	[UI_ACTION_CMD_BUILDS] = cmd_builds,
	[UI_ACTION_CMD_CONTEXT] = cmd_context,
	[UI_ACTION_CMD_ORGS] = cmd_orgs,
	[UI_ACTION_CMD_NOTIFICATIONS] = cmd_notifications,
	[UI_ACTION_CMD_PREVIEW] = cmd_preview,
	[UI_ACTION_CMD_PROJECT] = cmd_project,
	[UI_ACTION_CMD_PROJECTS] = cmd_projects,
	[UI_ACTION_CMD_Q] = cmd_quit,
	[UI_ACTION_CMD_QUIT] = cmd_quit,
	[UI_ACTION_CMD_SEARCH] = cmd_search,
};

void ui_command_run(struct ui_app *app, const char *line)
{
	char word[UI_PROMPT_MAX], arg[UI_PROMPT_MAX];
	size_t n;
	int action;

	/* The first word names the command; the rest of the line, trimmed,
	 * is its argument (a search query may have several words). */
	line += strspn(line, " ");
	n = strcspn(line, " ");
	if (n == 0)
		return;
	snprintf(word, sizeof(word), "%.*s", (int)n, line);
	line += n;
	line += strspn(line, " ");
	snprintf(arg, sizeof(arg), "%s", line);
	for (n = strlen(arg); n > 0 && arg[n - 1] == ' ';)
		arg[--n] = '\0';
	if ((action = ui_action_by_command(word)) < 0 ||
	    runners[action] == NULL) {
		ui_app_error(app, "unknown command :%s", word);
		return;
	}
	if (ui_action_needs_arg((enum ui_action)action) && arg[0] == '\0') {
		ui_app_error(app, ":%s needs an argument", word);
		return;
	}
	runners[action](app, arg);
}

/* Candidates for Tab ----------------------------------------------------------- */

/* Directories one Tab lists at most: a home directory's, many times over. */
#define MAX_DIR_CANDIDATES 512

struct candidates {
	char **items; /* owned, each owned */
	size_t len;
};

static void add_candidate(struct candidates *c, char *item)
{
	c->items = ui_xrealloc(c->items, (c->len + 1) * sizeof(*c->items));
	c->items[c->len++] = item;
}

static void candidates_dispose(struct candidates *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		free(c->items[i]);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A search's scope, "project:SLUG", for each project listed. */
static void scope_candidates(const struct ui_app *app, struct candidates *c)
{
	size_t i;

	for (i = 0; i < app->projects_len; i++)
		add_candidate(c, ui_xasprintf("project:%s", app->projects[i]));
}

/* The directories word may name: its directory part's (the current
 * directory when it has none) subdirectories, as that part plus the name
 * and a slash; hidden ones only when word's last part starts with a dot. */
static void dir_candidates(const char *word, struct candidates *c)
{
	const char *slash = strrchr(word, '/');
	char *dir = slash ? ui_xstrndup(word, (size_t)(slash - word + 1))
			  : ui_xstrdup("");
	const char *base = slash ? slash + 1 : word;
	struct dirent *e;
	struct stat st;
	char *path;
	DIR *d = opendir(*dir ? dir : ".");

	while (d && c->len < MAX_DIR_CANDIDATES && (e = readdir(d)) != NULL) {
		if ((e->d_name[0] == '.' && base[0] != '.') ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strncmp(e->d_name, base, strlen(base)) != 0)
			continue;
		path = ui_xasprintf("%s%s/", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			add_candidate(c, path);
		else
			free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	if (c->len > 1)
		qsort(c->items, c->len, sizeof(*c->items), by_name);
}

void ui_command_complete(struct ui_app *app)
{
	const char *names[UI_ACTION_COUNT];
	const struct ui_prompt *p = &app->prompt;
	const char *word = ui_prompt_word(p);
	char first[UI_PROMPT_MAX];
	struct candidates c = { NULL, 0 };
	size_t n = 0;
	int a;

	if (word == p->text) {
		for (a = 0; a < UI_ACTION_COUNT; a++)
			if (ui_action_info((enum ui_action)a)->args)
				names[n++] = ui_action_info((enum ui_action)a)->name;
		ui_prompt_complete(&app->prompt, names, n);
		return;
	}
	/* The argument: what the command's row says it is. */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(p->text, " "),
		 p->text);
	if ((a = ui_action_by_command(first)) < 0)
		return;
	switch (ui_action_info((enum ui_action)a)->complete) {
	case UI_COMPLETE_PROJECTS:
		ui_prompt_complete(&app->prompt,
				   (const char *const *)app->projects,
				   app->projects_len);
		break;
	case UI_COMPLETE_CONTEXTS:
		ui_prompt_complete(&app->prompt, app->start->contexts,
				   app->start->contexts_len);
		break;
	case UI_COMPLETE_SCOPE:
		/* The scope is the query's first word only. */
		if (word == p->text + strlen(first) + 1)
			scope_candidates(app, &c);
		break;
	case UI_COMPLETE_DIRS:
		dir_candidates(word, &c);
		break;
	case UI_COMPLETE_NONE:
		break;
	}
	if (c.len > 0)
		ui_prompt_complete(&app->prompt, (const char *const *)c.items,
				   c.len);
	candidates_dispose(&c);
}
