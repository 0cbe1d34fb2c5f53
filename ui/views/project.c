/*
 * A project: tabs for its versions, builds (live, as on the Builds
 * screen), subprojects, translations, redirects, environment variables
 * (names only; the API never returns values), settings and integrations
 * (the incoming webhooks; their secrets are never returned). A tab loads
 * when first shown; `R` reloads it. Enter on a built version reads its
 * docs, on a build opens it, on a subproject or translation opens that
 * project.
 *
 * The writes (edit.h) are bound per tab: builds and version flags on the
 * versions tab, retry and cancel on the builds tab, add/edit/move/delete
 * on the redirects, env vars, subprojects and integrations tabs, edit on
 * settings. Each
 * reloads the tab it changed as soon as the server has answered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../draw.h"
#include "../keys.h"
#include "builds.h"
#include "client.h"
#include "edit.h"

/* Items per tab request: the API's maximum page; a project with more
 * redirects or versions than this shows the first ones and says so. */
#define TAB_PAGE 1000

enum tab {
	TAB_VERSIONS,
	TAB_BUILDS,
	TAB_SUBPROJECTS,
	TAB_TRANSLATIONS,
	TAB_REDIRECTS,
	TAB_ENVVARS,
	TAB_SETTINGS,
	TAB_INTEGRATIONS,
	TAB_COUNT
};

static const struct ui_column version_cols[] = {
	{ "Version", 20 }, { "Active", 6 }, { "Hidden", 6 }, { "Built", 5 },
	{ "Type", 7 },     { "Last build", 0 },
};
static const struct ui_column subproject_cols[] = {
	{ "Alias", 20 }, { "Project", 24 }, { "Name", 0 },
};
static const struct ui_column translation_cols[] = {
	{ "Language", 8 }, { "Project", 24 }, { "Name", 0 },
};
static const struct ui_column redirect_cols[] = {
	{ "Type", 16 }, { "From", 28 }, { "To", 0 }, { "Status", 6 },
	{ "Enabled", 7 },
};
static const struct ui_column envvar_cols[] = {
	{ "Name", 0 }, { "Public", 6 },
};
static const struct ui_column setting_cols[] = {
	{ "Setting", 22 }, { "Value", 0 },
};
static const struct ui_column integration_cols[] = {
	{ "Type", 9 }, { "URL", 0 }, { "Created", 8 },
};

struct tab_info {
	const char *title;
	const char *path;   /* below /api/v3/projects/<slug>/ */
	const struct ui_column *cols;
	size_t ncols;
	void (*fill)(struct ui_table *t, const cJSON *body, time_t now);
	/* A Lectern extension: a 404 means the instance has none, not that
	 * the project is gone. */
	int extension;
	/* What an empty tab says in place of rows ("No redirects"); the
	 * key that adds one follows when the tab offers it. */
	const char *empty;
};

struct tab_state {
	struct ui_table table;
	cJSON *json;   /* the last answer: what the edit forms start from */
	int loaded;
	size_t cursor, top;
};

struct project {
	char *slug;
	enum tab tab;
	struct tab_state tabs[TAB_COUNT];
	struct ui_builds builds;
};

/* Filling the tabs ------------------------------------------------------------ */

static const char *yes_no(int flag)
{
	return flag == 1 ? "yes" : flag == 0 ? "no" : "?";
}

static void fill_versions(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item, *last;
	struct lc_version *ver;
	struct lc_build *b;
	struct ui_row *row;
	char age[16], state[32];
	/* As the service's dashboard lists them (latest, stable, then the
	 * newest version first), not in the API's order. */
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(body, "results");
	cJSON *sorted;

	if (results == NULL)
		return;
	if ((sorted = cJSON_Duplicate(results, 1)) == NULL ||
	    lc_versions_sort(sorted) != LC_OK)
		ui_die("out of memory");
	cJSON_ArrayForEach(item, sorted) {
		if (lc_version_parse(item, &ver, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->id = ver->id;
		/* Its docs, which Enter reads, once built. */
		if (ver->built == 1 && ver->documentation_url)
			row->key = ui_xstrdup(ver->documentation_url);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", ver->slug ? ver->slug : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", yes_no(ver->active));
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s", yes_no(ver->hidden));
		ui_row_set(row, 3, UI_SLOT_NORMAL, "%s", yes_no(ver->built));
		ui_row_set(row, 4, UI_SLOT_NORMAL, "%s", ver->type ? ver->type : "");
		last = cJSON_GetObjectItemCaseSensitive(item, "last_build");
		/* expand=last_build is Lectern's: an instance that ignores it
		 * (the hosted service) gets that said, not a blank. */
		if (last == NULL)
			ui_row_set(row, 5, UI_SLOT_DIM,
				   "not given by this instance");
		else if (cJSON_IsObject(last) &&
			 lc_build_parse(last, &b, NULL) == LC_OK) {
			ui_format_age(age, sizeof(age), ui_parse_time(b->created), now);
			ui_row_set(row, 5, ui_build_slot(b), "#%lld %s%s%s, %s ago",
				   b->id, ui_build_state(b, NULL, state,
							 sizeof(state)),
				   *ui_build_result(b) ? " " : "",
				   ui_build_result(b), age);
			lc_build_free(b);
		}
		lc_version_free(ver);
	}
	cJSON_Delete(sorted);
}

static void fill_subprojects(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item;
	struct lc_subproject *s;
	struct ui_row *row;

	(void)now;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_subproject_parse(item, &s, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->key = ui_xstrdup(s->child->slug);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", s->alias ? s->alias : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s",
			   s->child->slug ? s->child->slug : "");
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s",
			   s->child->name ? s->child->name : "");
		lc_subproject_free(s);
	}
}

static void fill_translations(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item;
	struct lc_project *p;
	struct ui_row *row;

	(void)now;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_project_parse(item, &p, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->key = ui_xstrdup(p->slug);
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", p->language ? p->language : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", p->slug ? p->slug : "");
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s", p->name ? p->name : "");
		lc_project_free(p);
	}
}

static void fill_redirects(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item;
	struct lc_redirect *r;
	struct ui_row *row;

	(void)now;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_redirect_parse(item, &r, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->id = r->pk;
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", r->type ? r->type : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", r->from_url ? r->from_url : "");
		ui_row_set(row, 2, UI_SLOT_LINK, "%s", r->to_url ? r->to_url : "");
		if (r->http_status)
			ui_row_set(row, 3, UI_SLOT_NORMAL, "%lld", r->http_status);
		ui_row_set(row, 4, UI_SLOT_NORMAL, "%s", yes_no(r->enabled));
		lc_redirect_free(r);
	}
}

static void fill_envvars(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item;
	struct lc_envvar *e;
	struct ui_row *row;

	(void)now;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_envvar_parse(item, &e, NULL) != LC_OK)
			continue;
		row = ui_table_add(t);
		row->id = e->pk;
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s", e->name ? e->name : "");
		ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", yes_no(e->public_));
		lc_envvar_free(e);
	}
}

static void setting(struct ui_table *t, const char *name, const char *value)
{
	struct ui_row *row = ui_table_add(t);

	ui_row_set(row, 0, UI_SLOT_HEADING, "%s", name);
	ui_row_set(row, 1, UI_SLOT_NORMAL, "%s", value ? value : "-");
}

static void fill_settings(struct ui_table *t, const cJSON *body, time_t now)
{
	struct lc_project *p;
	struct ui_buf tags = UI_BUF_INIT;
	size_t i;

	(void)now;
	if (lc_project_parse(body, &p, NULL) != LC_OK)
		return;
	for (i = 0; i < p->tags_len; i++)
		ui_buf_printf(&tags, "%s%s", i ? ", " : "", p->tags[i]);
	setting(t, "name", p->name);
	setting(t, "slug", p->slug);
	setting(t, "repository", p->repository_url);
	setting(t, "repository type", p->repository_type);
	setting(t, "default version", p->default_version);
	setting(t, "default branch", p->default_branch);
	setting(t, "language", p->language);
	setting(t, "programming language", p->programming_language);
	setting(t, "homepage", p->homepage);
	setting(t, "versioning",
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			body, "versioning_scheme")));
	setting(t, "documentation", p->documentation_url);
	setting(t, "subproject of", p->subproject_of);
	setting(t, "translation of", p->translation_of);
	setting(t, "tags", tags.ptr);
	setting(t, "created", p->created);
	setting(t, "modified", p->modified);
	ui_buf_dispose(&tags);
	lc_project_free(p);
}

/* An item's string field, or "" when it is absent or not a string. */
static const char *item_str(const cJSON *item, const char *key)
{
	const char *s = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(item, key));

	return s ? s : "";
}

static void fill_integrations(struct ui_table *t, const cJSON *body, time_t now)
{
	const cJSON *item;
	struct ui_row *row;
	time_t created;
	char age[16];

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(body, "results")) {
		row = ui_table_add(t);
		row->id = (long long)cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(item, "id"));
		ui_row_set(row, 0, UI_SLOT_HEADING, "%s",
			   ui_edit_forge(item_str(item, "integration_type")));
		ui_row_set(row, 1, UI_SLOT_LINK, "%s", item_str(item, "url"));
		if ((created = ui_parse_time(item_str(item, "created"))) < 0)
			continue;
		ui_format_age(age, sizeof(age), created, now);
		ui_row_set(row, 2, UI_SLOT_DIM, "%s ago", age);
	}
}

#define COLS_OF(a) a, sizeof(a) / sizeof(a[0])

static const struct tab_info tabs[TAB_COUNT] = {
	[TAB_VERSIONS] = { "Versions", "versions/?expand=last_build",
			   COLS_OF(version_cols), fill_versions, 0,
			   "No versions yet: they appear once the repository "
			   "is fetched" },
	[TAB_BUILDS] = { "Builds", NULL, NULL, 0, NULL, 0, "No builds yet" },
	[TAB_SUBPROJECTS] = { "Subprojects", "subprojects/",
			      COLS_OF(subproject_cols), fill_subprojects, 0,
			      "No subprojects" },
	[TAB_TRANSLATIONS] = { "Translations", "translations/",
			       COLS_OF(translation_cols), fill_translations,
			       0, "No translations" },
	[TAB_REDIRECTS] = { "Redirects", "redirects/",
			    COLS_OF(redirect_cols), fill_redirects, 0,
			    "No redirects" },
	[TAB_ENVVARS] = { "Env vars", "environmentvariables/",
			  COLS_OF(envvar_cols), fill_envvars, 0,
			  "No environment variables" },
	[TAB_SETTINGS] = { "Settings", "", COLS_OF(setting_cols),
			   fill_settings, 0, "No settings" },
	[TAB_INTEGRATIONS] = { "Integrations", "integrations/",
			       COLS_OF(integration_cols), fill_integrations, 1,
			       "No integrations" },
};

/* The current tab's table (not the builds tab's: that is the builds
 * model's, drawn a page at a time). */
static struct ui_table *table_of(struct project *pr)
{
	return &pr->tabs[pr->tab].table;
}

/* The current tab's shown rows. */
static size_t tab_lines(struct project *pr)
{
	return pr->tab == TAB_BUILDS ? pr->builds.lines : table_of(pr)->nshown;
}

/* Loading ----------------------------------------------------------------------- */

static void load_tab(struct ui_view *v)
{
	struct project *pr = v->priv;
	struct ui_buf path = UI_BUF_INIT;

	if (pr->tab == TAB_BUILDS) {
		ui_builds_poll(&pr->builds, v);
		return;
	}
	if (ui_app_pending(v->app, v, (int)pr->tab))
		return;
	ui_buf_printf(&path, "/api/v3/projects/%s/%s", pr->slug,
		      tabs[pr->tab].path);
	/* Lists get the big page; the settings tab is the project itself. */
	if (*tabs[pr->tab].path)
		ui_buf_printf(&path, "%climit=%d",
			      strchr(path.ptr, '?') ? '&' : '?', TAB_PAGE);
	ui_app_get(v->app, v, (int)pr->tab, path.ptr, NULL, NULL);
	ui_buf_dispose(&path);
}

static void show_tab(struct ui_view *v, enum tab tab)
{
	struct project *pr = v->priv;

	pr->tabs[pr->tab].cursor = v->cursor;
	pr->tabs[pr->tab].top = v->top;
	pr->tab = tab;
	v->cursor = pr->tabs[tab].cursor;
	v->top = pr->tabs[tab].top;
	v->lines = tab_lines(pr);
	if (tab == TAB_BUILDS || !pr->tabs[tab].loaded)
		load_tab(v);
	ui_view_clamp(v);
}

/* A branch preview was triggered: where it will be served (first, as
 * 80 columns cut it), and its build live on the Builds tab. */
static void preview_started(struct ui_view *v, const cJSON *answer)
{
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(answer, "version");
	const cJSON *urls = cJSON_GetObjectItemCaseSensitive(version, "urls");
	const cJSON *url = cJSON_GetObjectItemCaseSensitive(urls, "documentation");

	if (cJSON_IsString(url))
		ui_app_message(v->app, "preview: %s", url->valuestring);
	show_tab(v, TAB_BUILDS);
}

static void project_data(struct ui_view *v, int tag, struct lc_response *resp,
			 const struct lc_error *err)
{
	struct project *pr = v->priv;
	struct tab_state *ts;
	long long count;
	const cJSON *c;
	size_t cursor = v->cursor, top = v->top;

	if (tag == UI_EDIT_TAG) {
		/* A write of this screen: the app has reported it; show what
		 * it changed. */
		if (err->code == LC_OK)
			load_tab(v);
		return;
	}
	if (tag == UI_EDIT_PREVIEW_TAG) {
		if (err->code == LC_OK)
			preview_started(v, resp->json);
		return;
	}
	if (ui_builds_on_data(&pr->builds, v, tag, resp, err)) {
		/* The model moves the view as if its list were shown; on
		 * another tab that tab's place stays. */
		if (pr->tab != TAB_BUILDS) {
			v->cursor = cursor;
			v->top = top;
			v->lines = tab_lines(pr);
		}
		return;
	}
	if (tag < 0 || tag >= TAB_COUNT)
		return;
	if (err->code != LC_OK && err->status == 404 && tabs[tag].extension) {
		ui_app_error(v->app, "%s: not on this instance (%s)",
			     tabs[tag].title, err->message);
		return;
	}
	if (err->code != LC_OK && err->status == 404) {
		/* The project itself is missing or hidden: stay where the
		 * user was rather than show an empty project. */
		ui_app_fail(v->app, v, "project %s: %s", pr->slug, err->message);
		return;
	}
	if (err->code != LC_OK) {
		ui_app_error(v->app, "%s: %s", tabs[tag].title, err->message);
		return;
	}
	ts = &pr->tabs[tag];
	ts->loaded = 1;
	ui_table_clear(&ts->table);
	tabs[tag].fill(&ts->table, resp->json, v->app->now);
	ui_table_filter(&ts->table, ts->table.filter);
	cJSON_Delete(ts->json);
	ts->json = resp->json;
	resp->json = NULL;
	c = cJSON_GetObjectItemCaseSensitive(ts->json, "count");
	count = cJSON_IsNumber(c) ? (long long)c->valuedouble : 0;
	if (count > (long long)ts->table.len)
		ui_app_message(v->app, "%s: showing the first %zu of %lld",
			       tabs[tag].title, ts->table.len, count);
	if ((enum tab)tag == pr->tab) {
		v->lines = ts->table.nshown;
		ui_view_clamp(v);
	}
}

/* Ops ------------------------------------------------------------------------------- */

static void project_open(struct ui_view *v)
{
	show_tab(v, TAB_VERSIONS);
}

static void project_close(struct ui_view *v)
{
	struct project *pr = v->priv;
	int i;

	for (i = 0; i < TAB_COUNT; i++) {
		ui_table_dispose(&pr->tabs[i].table);
		cJSON_Delete(pr->tabs[i].json);
	}
	ui_builds_dispose(&pr->builds);
	free(pr->slug);
	free(pr);
}

/* Under the column headers of a tab that has loaded and has no rows, a
 * line saying so (and how to add one, with the key as bound now), so an
 * empty tab does not read as one still loading; 1 when drawn. */
static int draw_empty_tab(struct ui_view *v, WINDOW *w, int y, int width)
{
	struct project *pr = v->priv;
	const struct ui_table *t = table_of(pr);
	char line[256], key[UI_KEY_NAME_MAX];
	int keys[1];

	if (pr->tab == TAB_BUILDS) {
		if (pr->builds.count != 0 || pr->builds.lines != 0)
			return 0;
		if (pr->builds.running_only || pr->builds.filter)
			snprintf(line, sizeof(line), "No builds %s.",
				 pr->builds.running_only ? "running"
							 : "match");
		else if (ui_keys_of(UI_VIEW_PROJECT, UI_ACTION_TRIGGER, keys, 1)) {
			ui_key_format(keys[0], key, sizeof(key));
			snprintf(line, sizeof(line), "%s. Press %s on the "
				 "Versions tab to build a version.",
				 tabs[pr->tab].empty, key);
		} else {
			snprintf(line, sizeof(line), "%s.", tabs[pr->tab].empty);
		}
	} else if (!pr->tabs[pr->tab].loaded || t->nshown != 0) {
		return 0;
	} else if (t->len != 0) {
		snprintf(line, sizeof(line), "Nothing here matches '%s'.",
			 t->filter ? t->filter : "");
	} else if (ui_view_offers(v, UI_ACTION_ADD) &&
		   ui_keys_of(UI_VIEW_PROJECT, UI_ACTION_ADD, keys, 1)) {
		ui_key_format(keys[0], key, sizeof(key));
		snprintf(line, sizeof(line), "%s. Press %s to add one.",
			 tabs[pr->tab].empty, key);
	} else {
		snprintf(line, sizeof(line), "%s.", tabs[pr->tab].empty);
	}
	ui_draw_wrapped(w, y, 1, width - 1, 1, line, ui_attr(UI_SLOT_DIM));
	return 1;
}

static int project_header(struct ui_view *v, WINDOW *w, int width)
{
	struct project *pr = v->priv;
	int x = 0, i, first = 0, end = 0;
	char label[32];

	/* The active tab stands out by its colour (reverse without colour),
	 * so no separators. The tabs take 90 columns: on a narrower screen
	 * the first ones give way until the active one is whole, and the
	 * last one seen is cut with an ellipsis. */
	for (i = 0; i <= (int)pr->tab; i++)
		end += snprintf(label, sizeof(label), " %s ", tabs[i].title);
	while (end > width && first < (int)pr->tab)
		end -= snprintf(label, sizeof(label), " %s ",
				tabs[first++].title);
	ui_draw_fill(w, 0, 0, width, ui_attr(UI_SLOT_TAB));
	for (i = first; i < TAB_COUNT && x < width; i++) {
		enum ui_slot slot = i == (int)pr->tab ? UI_SLOT_TAB_ACTIVE
						      : UI_SLOT_TAB;

		snprintf(label, sizeof(label), " %s ", tabs[i].title);
		x += ui_draw_text(w, 0, x, width - x, label, ui_attr(slot));
	}
	if (pr->tab == TAB_BUILDS)
		ui_builds_draw_header(&pr->builds, w, 1, width);
	else
		ui_table_draw_header(table_of(pr), w, 1, width);
	return 2 + draw_empty_tab(v, w, 2, width);
}

static void project_row(struct ui_view *v, WINDOW *w, int y, int width,
			size_t n, int selected)
{
	struct project *pr = v->priv;

	if (pr->tab == TAB_BUILDS)
		ui_builds_draw_row(&pr->builds, v, w, y, width, n, selected);
	else
		ui_table_draw_row(table_of(pr), w, y, width, n, selected);
}

/* On the builds tab, the selected build's error whole when cut. */
static int project_footer(struct ui_view *v, WINDOW *w, int y, int width)
{
	struct project *pr = v->priv;

	return pr->tab == TAB_BUILDS
		       ? ui_builds_draw_footer(&pr->builds, v, w, y, width)
		       : 0;
}

static void open_selected(struct ui_view *v)
{
	struct project *pr = v->priv;
	const struct ui_row *row = ui_table_row(table_of(pr), v->cursor);
	long long id;

	if (pr->tab == TAB_BUILDS) {
		if ((id = ui_builds_id(&pr->builds, v->cursor)) >= 0)
			ui_app_push(v->app, v->app->screens->build(
						    v->app, pr->slug, id));
	} else if (row && row->key &&
		   (pr->tab == TAB_SUBPROJECTS || pr->tab == TAB_TRANSLATIONS)) {
		ui_app_push(v->app, ui_project_new(v->app, row->key));
	} else if (row && pr->tab == TAB_VERSIONS) {
		/* A version's docs in the reader: the first thing a writer
		 * wants after a build. */
		if (row->key)
			ui_app_push(v->app, v->app->screens->reader(
						    v->app, row->key, NULL));
		else
			ui_app_error(v->app, "%s is not built yet",
				     row->cells[0]);
	}
}

/* Writes ------------------------------------------------------------------------------ */

/* The selected row's item in the tab's last answer, matched by its id
 * (a redirect's "pk", a version's "id"). */
static const cJSON *selected_item(struct project *pr, const struct ui_row *row,
				  const char *id)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(
					 pr->tabs[pr->tab].json, "results"))
		if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
			    item, id)) == (double)row->id)
			return item;
	return NULL;
}

/* The build on the builds tab's selected row, or NULL. */
static const struct lc_build *selected_build(struct ui_view *v)
{
	struct project *pr = v->priv;

	return ui_builds_get(&pr->builds, v->cursor);
}

static void add_item(struct ui_view *v)
{
	struct project *pr = v->priv;

	if (pr->tab == TAB_REDIRECTS)
		ui_edit_redirect(v, pr->slug, NULL);
	else if (pr->tab == TAB_ENVVARS)
		ui_edit_envvar(v, pr->slug);
	else if (pr->tab == TAB_SUBPROJECTS)
		ui_edit_subproject(v, pr->slug);
	else if (pr->tab == TAB_INTEGRATIONS)
		ui_edit_integration(v, pr->slug);
	else
		ui_app_error(v->app, "nothing to add here: redirects, env vars, "
				     "subprojects and integrations have their "
				     "tabs");
}

static void edit_item(struct ui_view *v, const struct ui_row *row)
{
	struct project *pr = v->priv;

	if (pr->tab == TAB_SETTINGS)
		ui_edit_settings(v, pr->slug, pr->tabs[TAB_SETTINGS].json);
	else if (pr->tab == TAB_REDIRECTS && row)
		ui_edit_redirect(v, pr->slug, selected_item(pr, row, "pk"));
	else
		ui_app_error(v->app, "nothing to edit here: redirects and "
				     "settings can be edited");
}

static void delete_item(struct ui_view *v, const struct ui_row *row)
{
	struct project *pr = v->priv;
	char *path = NULL, *what = NULL;

	if (row == NULL) {
		ui_app_error(v->app, "nothing selected");
		return;
	}
	if (pr->tab == TAB_REDIRECTS) {
		path = ui_xasprintf("redirects/%lld/", row->id);
		what = ui_xasprintf("redirect %s %s -> %s", row->cells[0],
				    row->cells[1] ? row->cells[1] : "",
				    row->cells[2] ? row->cells[2] : "");
	} else if (pr->tab == TAB_ENVVARS) {
		path = ui_xasprintf("environmentvariables/%lld/", row->id);
		what = ui_xasprintf("env var %s", row->cells[0]);
	} else if (pr->tab == TAB_SUBPROJECTS) {
		path = ui_xasprintf("subprojects/%s/", row->cells[0]);
		what = ui_xasprintf("subproject %s (%s)", row->cells[0],
				    row->key);
	} else if (pr->tab == TAB_INTEGRATIONS) {
		path = ui_xasprintf("integrations/%lld/", row->id);
		/* The id, not the URL: the question must fit 80 columns. */
		what = ui_xasprintf("integration #%lld (%s)", row->id,
				    row->cells[0]);
	}
	if (path)
		ui_edit_delete(v, pr->slug, path, what);
	else
		ui_app_error(v->app, "nothing to delete here");
	free(what);
	free(path);
}

/* t: a version's build, or the selected build's version again. */
static void trigger(struct ui_view *v, const struct ui_row *row, int fresh)
{
	struct project *pr = v->priv;
	const struct lc_build *b;

	if (pr->tab == TAB_VERSIONS && row)
		ui_edit_trigger(v, pr->slug, row->cells[0], fresh);
	else if (pr->tab == TAB_BUILDS && (b = selected_build(v)) && b->version)
		ui_edit_trigger(v, pr->slug, b->version, fresh);
	else
		ui_app_error(v->app, "select a version or a build to build");
}

/* D: a version against the default one, or a build against the one
 * before it (the diff screen finds either). */
static void diff_selected(struct ui_view *v, const struct ui_row *row)
{
	struct project *pr = v->priv;
	const struct lc_build *b;
	char *head;

	if (pr->tab == TAB_VERSIONS && row) {
		ui_app_push(v->app, v->app->screens->diff(v->app, pr->slug,
							  NULL, row->cells[0],
							  NULL));
	} else if (pr->tab == TAB_BUILDS && (b = selected_build(v)) &&
		   b->version && b->success == 1) {
		head = ui_xasprintf("build:%lld", b->id);
		ui_app_push(v->app, v->app->screens->diff(v->app, pr->slug,
							  NULL, head,
							  b->version));
		free(head);
	} else {
		ui_app_error(v->app, "select a version, or a passed build");
	}
}

/* P: the selected branch as a preview, named by the branch's name (its
 * identifier), not the version's slug. An active version (latest among
 * them, whose branch's own version may be inactive) is built with t. */
static void preview_branch(struct ui_view *v, const struct ui_row *row)
{
	struct project *pr = v->priv;
	const cJSON *item = NULL, *type, *branch;

	if (pr->tab == TAB_VERSIONS && row)
		item = selected_item(pr, row, "id");
	type = cJSON_GetObjectItemCaseSensitive(item, "type");
	branch = cJSON_GetObjectItemCaseSensitive(item, "identifier");
	if (!cJSON_IsString(type) || strcmp(type->valuestring, "branch") ||
	    !cJSON_IsString(branch))
		ui_app_error(v->app, "select a branch on the versions tab");
	else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "active")))
		ui_app_error(v->app, "%s is an active version: t builds it",
			     row->cells[0]);
	else
		ui_edit_preview_branch(v, pr->slug, branch->valuestring);
}

static void version_flag(struct ui_view *v, const struct ui_row *row,
			 const char *flag, size_t col)
{
	struct project *pr = v->priv;

	if (pr->tab != TAB_VERSIONS || row == NULL) {
		ui_app_error(v->app, "select a version on the versions tab");
		return;
	}
	ui_edit_version_flag(v, pr->slug, row->cells[0], flag,
			     row->cells[col] && strcmp(row->cells[col], "yes") == 0);
}

static int write_action(struct ui_view *v, enum ui_action action)
{
	struct project *pr = v->priv;
	const struct ui_row *row = ui_table_row(table_of(pr), v->cursor);
	const struct lc_build *b;

	switch (action) {
	case UI_ACTION_ADD:
		add_item(v);
		break;
	case UI_ACTION_EDIT:
		edit_item(v, row);
		break;
	case UI_ACTION_DELETE:
		delete_item(v, row);
		break;
	case UI_ACTION_MOVE_UP:
	case UI_ACTION_MOVE_DOWN:
		if (pr->tab == TAB_REDIRECTS && row)
			ui_edit_redirect_move(v, pr->slug,
					      selected_item(pr, row, "pk"),
					      action == UI_ACTION_MOVE_UP ? -1 : 1);
		break;
	case UI_ACTION_TRIGGER:
	case UI_ACTION_TRIGGER_FRESH:
		trigger(v, row, action == UI_ACTION_TRIGGER_FRESH);
		break;
	case UI_ACTION_CANCEL:
		if (pr->tab == TAB_BUILDS && (b = selected_build(v)))
			ui_edit_cancel(v, b);
		else
			ui_app_error(v->app, "select a build on the builds tab");
		break;
	case UI_ACTION_PREVIEW_BRANCH:
		preview_branch(v, row);
		break;
	case UI_ACTION_TOGGLE_ACTIVE:
		version_flag(v, row, "active", 1);
		break;
	case UI_ACTION_DIFF:
		diff_selected(v, row);
		break;
	case UI_ACTION_TOGGLE_HIDDEN:
		version_flag(v, row, "hidden", 2);
		break;
	default:
		return UI_PASS;
	}
	return UI_HANDLED;
}

static int project_action(struct ui_view *v, enum ui_action action)
{
	struct project *pr = v->priv;

	switch (action) {
	case UI_ACTION_NEXT_TAB:
		show_tab(v, (enum tab)((pr->tab + 1) % TAB_COUNT));
		return UI_HANDLED;
	case UI_ACTION_PREV_TAB:
		show_tab(v, (enum tab)((pr->tab + TAB_COUNT - 1) % TAB_COUNT));
		return UI_HANDLED;
	case UI_ACTION_BUILDS:
		show_tab(v, TAB_BUILDS);
		return UI_HANDLED;
	case UI_ACTION_TOGGLE_RUNNING:
		if (pr->tab == TAB_BUILDS)
			ui_builds_toggle_running(&pr->builds, v);
		return UI_HANDLED;
	case UI_ACTION_OPEN:
		open_selected(v);
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		if (pr->tab == TAB_BUILDS)
			ui_builds_reload(&pr->builds, v);
		else
			load_tab(v);
		return UI_HANDLED;
	default:
		return write_action(v, action);
	}
}

static void project_tick(struct ui_view *v)
{
	struct project *pr = v->priv;

	if (pr->tab != TAB_BUILDS)
		return;
	ui_builds_refresh(&pr->builds, v);
	ui_builds_tick(&pr->builds, v);
}

static void project_filter(struct ui_view *v, const char *text)
{
	struct project *pr = v->priv;

	if (pr->tab == TAB_BUILDS) {
		ui_builds_filter(&pr->builds, v, text);
		return;
	}
	ui_table_filter(table_of(pr), text);
	v->lines = table_of(pr)->nshown;
}

static const char *project_project(struct ui_view *v)
{
	struct project *pr = v->priv;

	return pr->slug;
}

static const struct ui_view_ops project_ops = {
	.name = "project",
	.kind = UI_VIEW_PROJECT,
	.open = project_open,
	.close = project_close,
	.draw_header = project_header,
	.draw_row = project_row,
	.draw_footer = project_footer,
	.on_action = project_action,
	.on_data = project_data,
	.tick = project_tick,
	.filter = project_filter,
	.project = project_project,
};

struct ui_view *ui_project_new(struct ui_app *app, const char *slug)
{
	struct project *pr = ui_xcalloc(1, sizeof(*pr));
	int i;

	pr->slug = ui_xstrdup(slug);
	for (i = 0; i < TAB_COUNT; i++)
		if (tabs[i].cols)
			ui_table_init(&pr->tabs[i].table, tabs[i].cols,
				      tabs[i].ncols);
	ui_builds_init(&pr->builds, slug);
	return ui_view_new(app, &project_ops, slug, pr);
}
