/*
 * The Projects screen: every project of the context, with its default
 * version and its last build's state and age (a mirror: where it was
 * copied from, and how long ago). The list is read page by
 * page (following `next`); each project's last build is asked for only
 * once its row is on screen, and again every few seconds while it is, so
 * a long list costs no more requests than a short one.
 *
 * An empty list says what to do next. On the local engine with nothing
 * imported yet (a newcomer's first run) it offers a demo: `d` imports
 * Lectern's own documentation (from the repository the CLI names: the
 * installed one, or the source tree the binary was built from) through the
 * ordinary import API, and opens the live builds of it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../draw.h"
#include "../keys.h"
#include "../table.h"
#include "builds.h"
#include "client.h"
#include "edit.h"
#include "../mirror.h"

/* Projects per list request. */
#define PAGE 100
/* Seconds between asking how many projects there are: one imported or
 * removed elsewhere (the CLI, another user) shows without R. A poll, in
 * the budget all screens share. */
#define LIST_COUNT_EVERY 10
/* Request tags: the list; the demo's import; the list's count; a
 * project's last build is TAG_LAST + index. */
enum { TAG_LIST = 0, TAG_DEMO = 1, TAG_COUNT = 2, TAG_LAST = 1000 };
/* The CLI's name for the local engine's context; a config file cannot
 * declare a context of that name, so it never names a remote instance. */
#define LOCAL_CONTEXT "local"
/* The demo project's name; its repository is file://<ui_start.demo_repo>. */
#define DEMO_NAME "Lectern"
/* An empty-state line: one sentence and a path; and the screen lines each
 * may wrap over. */
#define EMPTY_LINE_MAX 512
#define EMPTY_ROWS 4

struct entry {
	struct lc_project *project;
	struct lc_build *last;  /* NULL: none, or not known yet */
	int last_known;
	char *etag;             /* of the last-build answer */
	time_t asked;           /* when the last build was last asked for */
	int every;              /* seconds to the next ask; 0: not yet */
	int gone;               /* 404: asked no more until a reload */
};

struct projects {
	struct entry *items;
	size_t len, cap;
	/* A reload is under way: the first page replaces the entries, so
	 * a failed reload leaves the old list on screen. */
	int reloading;
	/* Every page of the list has arrived at least once: only then is an
	 * empty list known to be empty. */
	int loaded;
	time_t count_asked; /* when the list's count was last asked for */
	double list_count;  /* the count the list's last load said */
	unsigned activity;  /* the build activity's serial last seen */
	struct ui_table table;
};

static const struct ui_column columns[] = {
	{ "Project", 24 }, { "Name", 0 }, { "Default", 10 },
	{ "Last build", 10 }, { "Result", 7 }, { "Age", 5 },
};

static void clear_entries(struct projects *ps)
{
	size_t i;

	for (i = 0; i < ps->len; i++) {
		lc_project_free(ps->items[i].project);
		lc_build_free(ps->items[i].last);
		free(ps->items[i].etag);
	}
	ps->len = 0;
}

static void fill_row(struct projects *ps, const struct entry *e, time_t now)
{
	struct ui_row *row = ui_table_add(&ps->table);
	const struct lc_build *b = e->last;
	char age[16], state[32];

	row->key = ui_xstrdup(e->project->slug);
	ui_row_set(row, 0, UI_SLOT_HEADING, "%s", e->project->slug);
	ui_row_set(row, 2, UI_SLOT_NORMAL, "%s",
		   e->project->default_version ? e->project->default_version : "");
	if (e->project->mirror_source) {
		/* A mirror is never built: its source and its copy's age. */
		const char *src = strstr(e->project->mirror_source, "://");

		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s (mirror of %s/%s)",
			   e->project->name ? e->project->name : "",
			   src ? src + 3 : e->project->mirror_source,
			   e->project->mirror_project
				   ? e->project->mirror_project
				   : "");
		ui_row_set(row, 3, UI_SLOT_DIM, "mirrored");
		ui_format_age(age, sizeof(age),
			      ui_parse_time(e->project->mirror_updated), now);
		ui_row_set(row, 5, UI_SLOT_DIM, "%s", age);
		return;
	}
	ui_row_set(row, 1, UI_SLOT_NORMAL, "%s",
		   e->project->name ? e->project->name : "");
	if (!e->last_known) {
		ui_row_set(row, 3, UI_SLOT_DIM, "...");
		return;
	}
	if (b == NULL) {
		ui_row_set(row, 3, UI_SLOT_DIM, "none");
		return;
	}
	ui_row_set(row, 3,
		   ui_build_final(b) ? UI_SLOT_NORMAL : UI_SLOT_STATE_RUNNING,
		   "%s", ui_build_state(b, NULL, state, sizeof(state)));
	ui_row_set(row, 4, ui_build_slot(b), "%s", ui_build_result(b));
	ui_format_age(age, sizeof(age), ui_parse_time(b->created), now);
	ui_row_set(row, 5, UI_SLOT_DIM, "%s", age);
}

static void fill_rows(struct ui_view *v)
{
	struct projects *ps = v->priv;
	size_t i;

	ui_table_clear(&ps->table);
	for (i = 0; i < ps->len; i++)
		fill_row(ps, &ps->items[i], v->app->now);
	ui_table_filter(&ps->table, ps->table.filter);
	v->lines = ps->table.nshown;
	ui_view_clamp(v);
}

/* The index in items of shown row n, or -1. */
static long entry_of(struct projects *ps, size_t n)
{
	return n < ps->table.nshown ? (long)ps->table.shown[n] : -1;
}

/* Ask for the last build of every project on screen that is due. */
static void ask_last_builds(struct ui_view *v)
{
	struct projects *ps = v->priv;
	size_t n, rows = v->height > 0 ? (size_t)v->height : 1;
	struct entry *e;
	long i;
	char *path;
	int sent;

	for (n = v->top; n < v->top + rows && n < v->lines; n++) {
		if ((i = entry_of(ps, n)) < 0)
			continue;
		e = &ps->items[i];
		if (e->gone ||
		    e->asked + (e->every ? e->every : ui_pace_last_build.first) >
			    v->app->now ||
		    ui_app_pending(v->app, v, TAG_LAST + (int)i))
			continue;
		/* The default version's: what its docs come from. */
		if ((path = lc_last_build_path(e->project->slug,
					       e->project->default_version)) ==
		    NULL)
			continue;
		/* A row's first answer is what the screen shows; asking again
		 * is a poll, within the budget all screens share. */
		if (!e->last_known)
			sent = ui_app_get(v->app, v, TAG_LAST + (int)i, path,
					  NULL, e->etag) == 0;
		else
			sent = ui_app_poll(v->app, v, TAG_LAST + (int)i, path,
					   NULL, e->etag) == 0;
		free(path);
		if (sent)
			e->asked = v->app->now;
	}
}

static void load(struct ui_view *v)
{
	struct projects *ps = v->priv;
	char *path = ui_xasprintf("/api/v3/projects/?limit=%d", PAGE);

	ui_app_cancel(v->app, v);
	ps->reloading = 1;
	ui_app_get(v->app, v, TAG_LIST, path, NULL, NULL);
	free(path);
}

/* Ask how many projects there are now, when due. */
static void ask_count(struct ui_view *v)
{
	struct projects *ps = v->priv;

	if (!ps->loaded || ps->reloading ||
	    ps->count_asked + LIST_COUNT_EVERY > v->app->now ||
	    ui_app_pending(v->app, v, TAG_COUNT) ||
	    ui_app_pending(v->app, v, TAG_LIST))
		return;
	if (ui_app_poll(v->app, v, TAG_COUNT, "/api/v3/projects/?limit=1",
			NULL, NULL) == 0)
		ps->count_asked = v->app->now;
}

/* Another count than the list's last load said: projects came or went,
 * load it again (compared with that count, not the rows kept, so a row
 * the client cannot read does not reload the list every time). */
static void take_count(struct ui_view *v, const cJSON *page)
{
	struct projects *ps = v->priv;
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(page, "count");

	if (cJSON_IsNumber(count) && !ps->reloading &&
	    count->valuedouble != ps->list_count)
		load(v);
}

/* Hand the slugs to the app for :project completion. */
static void publish_slugs(struct ui_view *v)
{
	struct projects *ps = v->priv;
	char **slugs = ui_xcalloc(ps->len ? ps->len : 1, sizeof(*slugs));
	size_t i;

	for (i = 0; i < ps->len; i++)
		slugs[i] = ui_xstrdup(ps->items[i].project->slug);
	ui_app_set_projects(v->app, slugs, ps->len);
}

static void take_list(struct ui_view *v, const cJSON *page)
{
	struct projects *ps = v->priv;
	const cJSON *item, *next = cJSON_GetObjectItemCaseSensitive(page, "next");
	struct lc_project *p;

	if (ps->reloading) {
		const cJSON *count = cJSON_GetObjectItemCaseSensitive(page, "count");

		/* Last-build answers still coming are for the old indexes. */
		ui_app_cancel(v->app, v);
		clear_entries(ps);
		ps->reloading = 0;
		ps->list_count = cJSON_IsNumber(count) ? count->valuedouble : -1;
	}
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(page, "results")) {
		if (lc_project_parse(item, &p, NULL) != LC_OK || p->slug == NULL) {
			lc_project_free(p);
			continue;
		}
		if (ps->len == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : PAGE;
			ps->items = ui_xrealloc(ps->items,
						ps->cap * sizeof(*ps->items));
		}
		memset(&ps->items[ps->len], 0, sizeof(ps->items[0]));
		ps->items[ps->len++].project = p;
	}
	if (cJSON_IsString(next)) {
		ui_app_get(v->app, v, TAG_LIST, next->valuestring, NULL, NULL);
		return;
	}
	publish_slugs(v);
	ps->loaded = 1;
}

static void take_last(struct ui_view *v, size_t i, struct lc_response *resp)
{
	struct projects *ps = v->priv;
	struct entry *e = &ps->items[i];
	const cJSON *first;

	e->last_known = 1;
	if (!resp->not_modified) {
		ui_set_str(&e->etag, resp->etag);
		lc_build_free(e->last);
		e->last = NULL;
		first = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(resp->json, "results"),
			0);
		if (first)
			lc_build_parse(first, &e->last, NULL);
	}
	/* Fast while a build runs, backing off while nothing moves. */
	e->every = (int)ui_pace_next(&ui_pace_last_build, e->every,
				     e->last && e->last->state &&
					     strcmp(e->last->state,
						    "finished") != 0 &&
					     strcmp(e->last->state,
						    "cancelled") != 0);
}

/* The demo ---------------------------------------------------------------- */

/* The repository to import as the demo, or NULL: none. */
static const char *demo_source(const struct ui_view *v)
{
	return v->app->start->demo_repo;
}

/* The demo is for a newcomer's first run: the local engine, nothing
 * imported yet, and a source tree to import. */
static int demo_offered(const struct ui_view *v)
{
	const struct projects *ps = v->priv;
	const char *context = v->app->conn.name;

	return ps->loaded && ps->len == 0 && context &&
	       strcmp(context, LOCAL_CONTEXT) == 0 && demo_source(v) != NULL;
}

/* The import request's body (owned, cJSON_free), or NULL when out of
 * memory. */
static char *demo_body(const char *dir)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *repo = cJSON_AddObjectToObject(root, "repository");
	char *url = ui_xasprintf("file://%s", dir), *text = NULL;

	if (repo && cJSON_AddStringToObject(root, "name", DEMO_NAME) &&
	    cJSON_AddStringToObject(repo, "url", url) &&
	    cJSON_AddStringToObject(repo, "type", "git"))
		text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	free(url);
	return text;
}

/* `d`: import the demo the ordinary way (POST /api/v3/projects/, which
 * queues the first build); demo_imported takes the answer. */
/* m: copy the selected project of this remote context into the local
 * engine, in the background (mirror.h). */
static void start_mirror(struct ui_view *v)
{
	struct projects *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);
	const char *context = v->app->conn.name;
	char err[256], *log = NULL;

	if (row == NULL)
		return;
	if (context == NULL || strcmp(context, LOCAL_CONTEXT) == 0) {
		ui_app_error(v->app, "these docs are local already: mirror a "
				     "project of a remote context (:context)");
		return;
	}
	if (ui_mirror_start(v->app->start->data_dir, context, row->key, &log,
			    err, sizeof(err)) < 0) {
		ui_app_error(v->app, "%s", err);
		return;
	}
	ui_app_message(v->app, "mirroring %s into the local engine in the "
			       "background (log: %s)",
		       row->key, log ? log : "none");
	free(log);
}

static void start_demo(struct ui_view *v)
{
	const char *dir = demo_source(v);
	char *body;

	if (ui_app_pending(v->app, v, TAG_DEMO)) {
		ui_app_message(v->app, "the demo is being imported");
		return;
	}
	if (!demo_offered(v) || dir == NULL) {
		ui_app_error(v->app, "the demo is only offered on an empty local "
				     "engine with a demo repository");
		return;
	}
	if (!ui_app_can_write(v->app))
		return;
	if ((body = demo_body(dir)) == NULL) {
		ui_app_error(v->app, "the demo: out of memory");
		return;
	}
	ui_app_send(v->app, v, TAG_DEMO, "POST", "/api/v3/projects/", body,
		    NULL);
	cJSON_free(body);
}

/* The demo project exists and its first build is queued: list it here
 * and show that build's progress live on the Builds screen. */
static void demo_imported(struct ui_view *v, const cJSON *project)
{
	const cJSON *slug = cJSON_GetObjectItemCaseSensitive(project, "slug");

	load(v);
	if (!cJSON_IsString(slug)) {
		ui_app_error(v->app, "the demo: the answer names no project");
		return;
	}
	ui_app_message(v->app, "imported %s from %s; building it", DEMO_NAME,
		       demo_source(v));
	ui_app_push(v->app,
		    v->app->screens->builds(v->app, slug->valuestring));
}

/* The body of an empty list: what to do next, under the column header. */
static int draw_empty(struct ui_view *v, WINDOW *w, int y, int width)
{
	char line[EMPTY_LINE_MAX], key[UI_KEY_NAME_MAX];
	int keys[1], rows;

	if (ui_app_pending(v->app, v, TAG_DEMO)) {
		snprintf(line, sizeof(line), "Importing %s's documentation "
			 "from %s ...", DEMO_NAME, demo_source(v));
		ui_draw_text(w, y, 1, width - 1, line, ui_attr(UI_SLOT_NORMAL));
		return 1;
	}
	if (!demo_offered(v))
		return ui_draw_wrapped(w, y, 1, width - 1, EMPTY_ROWS,
				       "No projects yet. Import one with "
				       "`lectern import URL`.",
				       ui_attr(UI_SLOT_NORMAL));
	/* The key as bound now: the config file may have moved it. */
	if (ui_keys_of(UI_VIEW_PROJECTS, UI_ACTION_DEMO, keys, 1) == 0) {
		snprintf(line, sizeof(line), "No projects yet. Bind a key to "
			 "`demo` to import %s's own documentation.", DEMO_NAME);
	} else {
		ui_key_format(keys[0], key, sizeof(key));
		snprintf(line, sizeof(line), "No projects yet. Press %s to "
			 "import a demo: %s's own documentation.", key,
			 DEMO_NAME);
	}
	/* Wrapped, not cut: a newcomer's first screen at 80 columns. */
	rows = ui_draw_wrapped(w, y, 1, width - 1, EMPTY_ROWS, line,
			       ui_attr(UI_SLOT_NORMAL));
	snprintf(line, sizeof(line), "It is imported from %s and built like "
		 "any project; its build shows live.", demo_source(v));
	return rows + ui_draw_wrapped(w, y + rows, 1, width - 1, EMPTY_ROWS,
				      line, ui_attr(UI_SLOT_DIM));
}

static void projects_data(struct ui_view *v, int tag, struct lc_response *resp,
			  const struct lc_error *err)
{
	struct projects *ps = v->priv;

	if (err->code != LC_OK) {
		/* A project gone since the list came: said once, then left. */
		if (tag >= TAG_LAST && (size_t)(tag - TAG_LAST) < ps->len &&
		    err->status == 404)
			ps->items[tag - TAG_LAST].gone = 1;
		ui_app_error(v->app, "%s", err->message);
		return;
	}
	if (tag == TAG_LIST)
		take_list(v, resp->json);
	else if (tag == TAG_DEMO)
		demo_imported(v, resp->json);
	else if (tag == TAG_COUNT)
		take_count(v, resp->json);
	else if (tag >= TAG_LAST && (size_t)(tag - TAG_LAST) < ps->len)
		take_last(v, (size_t)(tag - TAG_LAST), resp);
	fill_rows(v);
	ask_last_builds(v);
}

static void projects_open(struct ui_view *v)
{
	load(v);
}

static void projects_close(struct ui_view *v)
{
	struct projects *ps = v->priv;

	clear_entries(ps);
	free(ps->items);
	ui_table_dispose(&ps->table);
	free(ps);
}

static int projects_header(struct ui_view *v, WINDOW *w, int width)
{
	struct projects *ps = v->priv;

	ui_table_draw_header(&ps->table, w, 0, width);
	/* A blank line, then the empty state, so it reads as a message and
	 * not as a row. */
	if (ps->loaded && ps->len == 0)
		return 2 + draw_empty(v, w, 2, width);
	return 1;
}

static void projects_row(struct ui_view *v, WINDOW *w, int y, int width,
			 size_t n, int selected)
{
	struct projects *ps = v->priv;

	ui_table_draw_row(&ps->table, w, y, width, n, selected);
}

static int projects_action(struct ui_view *v, enum ui_action action)
{
	struct projects *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);

	switch (action) {
	case UI_ACTION_OPEN:
		if (row)
			ui_app_push(v->app, v->app->screens->project(
						    v->app, row->key));
		return UI_HANDLED;
	case UI_ACTION_BUILDS:
		if (row)
			ui_app_push(v->app, v->app->screens->builds(
						    v->app, row->key));
		return UI_HANDLED;
	case UI_ACTION_DEMO:
		start_demo(v);
		return UI_HANDLED;
	case UI_ACTION_ADD:
		ui_edit_import(v);
		return UI_HANDLED;
	case UI_ACTION_ORGS:
		ui_app_push(v->app, v->app->screens->orgs(v->app));
		return UI_HANDLED;
	case UI_ACTION_REMOVE_PROJECT:
		if (row)
			ui_edit_remove_project(v, row->key);
		else
			ui_app_error(v->app, "no project selected");
		return UI_HANDLED;
	case UI_ACTION_MIRROR:
		start_mirror(v);
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		/* A reload cancels the view's requests, the demo's import
		 * among them, whose answer opens its build. */
		if (ui_app_pending(v->app, v, TAG_DEMO))
			ui_app_message(v->app, "the demo is being imported");
		else
			load(v);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

/* A Lectern's build activity moved (a build started or ended anywhere):
 * the shown rows' last builds are due again, whatever their back-off,
 * which otherwise goes up to LAST_BUILD_IDLE_MAX. */
static void watch_activity(struct ui_view *v)
{
	struct projects *ps = v->priv;
	unsigned seen = ui_activity_watch(v->app);
	size_t i;

	if (seen == 0 || seen == ps->activity)
		return;
	ps->activity = seen;
	for (i = 0; i < ps->len; i++)
		ps->items[i].asked = 0;
}

static void projects_tick(struct ui_view *v)
{
	watch_activity(v);
	fill_rows(v);
	ask_last_builds(v);
	ask_count(v);
}

/* Back from a screen where a build may have been triggered or finished:
 * every shown row's last build is due now, not after its backed-off
 * wait (up to ui_pace_last_build.most), and the ages are redrawn at once
 * rather than at the next tick. The asks are polls: against the hosted
 * service they stay within the shared budget. */
static void projects_reveal(struct ui_view *v)
{
	struct projects *ps = v->priv;
	size_t i;

	for (i = 0; i < ps->len; i++) {
		ps->items[i].asked = 0;
		ps->items[i].every = 0;
	}
	v->app->now = time(NULL);
	projects_tick(v);
}

static void projects_filter(struct ui_view *v, const char *text)
{
	struct projects *ps = v->priv;

	ui_table_filter(&ps->table, text);
	v->lines = ps->table.nshown;
}

static const char *projects_project(struct ui_view *v)
{
	struct projects *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);

	return row ? row->key : NULL;
}

/* The demo on an empty local engine only; mirroring from a remote
 * context only. */
static int projects_offers(const struct ui_view *v, enum ui_action action)
{
	const char *context = v->app->conn.name;
	int local = context && strcmp(context, LOCAL_CONTEXT) == 0;

	if (action == UI_ACTION_DEMO)
		return demo_offered(v);
	if (action == UI_ACTION_MIRROR)
		return !local;
	return 1;
}

static const struct ui_view_ops projects_ops = {
	.name = "projects",
	.kind = UI_VIEW_PROJECTS,
	.open = projects_open,
	.close = projects_close,
	.draw_header = projects_header,
	.draw_row = projects_row,
	.on_action = projects_action,
	.on_data = projects_data,
	.reveal = projects_reveal,
	.tick = projects_tick,
	.filter = projects_filter,
	.project = projects_project,
	.offers = projects_offers,
};

struct ui_view *ui_projects_new(struct ui_app *app)
{
	struct projects *ps = ui_xcalloc(1, sizeof(*ps));

	ui_table_init(&ps->table, columns, sizeof(columns) / sizeof(columns[0]));
	return ui_view_new(app, &projects_ops, "Projects", ps);
}
