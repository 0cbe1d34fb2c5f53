/*
 * Page diffs (docs/api.md "Page diffs"): what changed between two versions
 * or builds of a project's docs. The first screen lists the pages that
 * differ; Enter opens one page's diff inline, its changed sections as
 * unified-diff hunks (the CLI's text, lc_diff_unified), wrapped to the
 * screen and coloured by line.
 *
 * Opened from a build (D: against the previous passed build of its
 * version) or from a version (D: against the project's default version),
 * the screen first learns that other side with one request of its own
 * (the version's builds, or the project),
 * then asks for the diff; every request goes through the app's
 * asynchronous client, so a slow instance never stops the keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../draw.h"
#include "../table.h"
#include "client.h"

/* A version's builds read to find the one before a build: the newest
 * of them, enough for the five outputs an engine keeps by default. */
#define DIFF_BUILDS_PAGE 100

enum { TAG_BASE, TAG_PROJECT, TAG_DIFF };

struct diff {
	char *project, *base, *head;
	char *version;      /* the head build's version, to find a base */
	long long head_build; /* > 0: head is that build */
	struct lc_diff *d;
	struct ui_table table; /* row id: index into d->pages */
};

static const struct ui_column columns[] = {
	{ "Change", 8 }, { "Page", 32 }, { "Title", 0 }, { "Sections", 8 },
};

static void load_diff(struct ui_view *v)
{
	struct diff *df = v->priv;
	struct lc_query q = { 0 };
	char *path = NULL;

	if (lc_diff_request(df->project, df->base, df->head, NULL, &path,
			    &q) != LC_OK) {
		ui_app_error(v->app, "out of memory");
	} else {
		ui_app_get(v->app, v, TAG_DIFF, path, &q, NULL);
	}
	free(path);
	lc_query_dispose(&q);
}

/* The base of a build opened without one: its version's newest passed
 * build before it. */
static void load_base(struct ui_view *v)
{
	struct diff *df = v->priv;
	char *path = ui_xasprintf("/api/v3/projects/%s/versions/%s/builds/"
				  "?limit=%d",
				  df->project, df->version, DIFF_BUILDS_PAGE);

	ui_app_get(v->app, v, TAG_BASE, path, NULL, NULL);
	free(path);
}

/* The base of a version opened without one: the project's default. */
static void load_default(struct ui_view *v)
{
	struct diff *df = v->priv;
	char *path = ui_xasprintf("/api/v3/projects/%s/", df->project);

	ui_app_get(v->app, v, TAG_PROJECT, path, NULL, NULL);
	free(path);
}

static void set_base(struct ui_view *v, const char *base)
{
	struct diff *df = v->priv;

	ui_set_str(&df->base, base);
	free(v->title);
	v->title = ui_xasprintf("Diff %s..%s", df->base, df->head);
	load_diff(v);
}

static void found_default(struct ui_view *v, const cJSON *body)
{
	struct diff *df = v->priv;
	struct lc_project *p = NULL;
	const char *slug;

	if (lc_project_parse(body, &p, NULL) != LC_OK) {
		ui_app_fail(v->app, v, "the project could not be read");
		return;
	}
	slug = p->default_version ? p->default_version : "latest";
	if (strcmp(slug, df->head) == 0)
		ui_app_fail(v->app, v, "%s is the default version: open the "
				       "diff from another version or a build",
			    slug);
	else
		set_base(v, slug);
	lc_project_free(p);
}

static void found_base(struct ui_view *v, const cJSON *body)
{
	struct diff *df = v->priv;
	const cJSON *item;
	struct lc_build *b;
	long long best = 0;

	cJSON_ArrayForEach(item,
			   cJSON_GetObjectItemCaseSensitive(body, "results")) {
		if (lc_build_parse(item, &b, NULL) != LC_OK)
			continue;
		if (b->id < df->head_build && b->id > best && b->success == 1 &&
		    b->state && strcmp(b->state, "finished") == 0)
			best = b->id;
		lc_build_free(b);
	}
	if (best == 0) {
		ui_app_fail(v->app, v, "no earlier passed build of %s to "
				       "compare build %lld with",
			    df->version, df->head_build);
		return;
	}
	{
		char base[32];

		snprintf(base, sizeof(base), "build:%lld", best);
		set_base(v, base);
	}
}

static void fill(struct ui_view *v)
{
	struct diff *df = v->priv;
	size_t i;

	ui_table_clear(&df->table);
	for (i = 0; i < df->d->pages_len; i++) {
		const struct lc_diff_page *p = &df->d->pages[i];
		const char *st = p->status ? p->status : "";
		struct ui_row *row = ui_table_add(&df->table);

		row->id = (long long)i;
		row->key = ui_xstrdup(p->path ? p->path : "");
		ui_row_set(row, 0,
			   strcmp(st, "added") == 0     ? UI_SLOT_STATE_OK
			   : strcmp(st, "removed") == 0 ? UI_SLOT_STATE_FAIL
							: UI_SLOT_STATE_RUNNING,
			   "%s", st);
		ui_row_set(row, 1, UI_SLOT_HEADING, "%s", row->key);
		ui_row_set(row, 2, UI_SLOT_NORMAL, "%s",
			   p->title ? p->title : "");
		ui_row_set(row, 3, UI_SLOT_DIM, "%zu", p->sections_len);
	}
	ui_table_filter(&df->table, df->table.filter);
	v->lines = df->table.nshown;
	ui_view_clamp(v);
}

static void diff_data(struct ui_view *v, int tag, struct lc_response *resp,
		      const struct lc_error *err)
{
	struct diff *df = v->priv;
	struct lc_diff *d = NULL;
	struct lc_error perr;

	if (err->code != LC_OK) {
		ui_app_fail(v->app, v, "%s", err->message);
		return;
	}
	if (tag == TAG_BASE) {
		found_base(v, resp->json);
		return;
	}
	if (tag == TAG_PROJECT) {
		found_default(v, resp->json);
		return;
	}
	if (lc_diff_parse(resp->json, &d, &perr) != LC_OK) {
		ui_app_fail(v->app, v, "%s", perr.message);
		return;
	}
	lc_diff_free(df->d);
	df->d = d;
	fill(v);
	if (d->pages_len == 0)
		ui_app_message(v->app, "no page changed (%lld compared)",
			       d->unchanged);
}

static void diff_open(struct ui_view *v)
{
	struct diff *df = v->priv;

	if (df->base)
		load_diff(v);
	else if (df->head_build > 0)
		load_base(v);
	else
		load_default(v);
}

static void diff_close(struct ui_view *v)
{
	struct diff *df = v->priv;

	ui_table_dispose(&df->table);
	lc_diff_free(df->d);
	free(df->project);
	free(df->base);
	free(df->head);
	free(df->version);
	free(df);
}

static int diff_header(struct ui_view *v, WINDOW *w, int width)
{
	struct diff *df = v->priv;
	char *summary;

	if (df->d == NULL)
		summary = ui_xasprintf("comparing %s with %s...", df->head,
				       df->base ? df->base
				       : df->head_build > 0 ? "the build before"
							    : "the default version");
	else
		summary = ui_xasprintf("%zu %s, %lld the same%s",
				       df->d->pages_len,
				       df->d->pages_len == 1 ? "page differs"
							     : "pages differ",
				       df->d->unchanged,
				       df->d->truncated == 1
					       ? " (more differ than listed)"
					       : "");
	ui_draw_text(w, 0, 0, width, summary, ui_attr(UI_SLOT_DIM));
	free(summary);
	ui_table_draw_header(&df->table, w, 1, width);
	return 2;
}

static void diff_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		     int selected)
{
	struct diff *df = v->priv;

	ui_table_draw_row(&df->table, w, y, width, n, selected);
}

static struct ui_view *page_new(struct ui_app *app, const struct diff *df,
				const struct lc_diff_page *p);

static int diff_action(struct ui_view *v, enum ui_action action)
{
	struct diff *df = v->priv;
	const struct ui_row *row = ui_table_row(&df->table, v->cursor);

	switch (action) {
	case UI_ACTION_OPEN:
		if (row && df->d && (size_t)row->id < df->d->pages_len)
			ui_app_push(v->app,
				    page_new(v->app, df,
					     &df->d->pages[row->id]));
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		if (df->base && !ui_app_pending(v->app, v, TAG_DIFF))
			load_diff(v);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

static void diff_filter(struct ui_view *v, const char *text)
{
	struct diff *df = v->priv;

	ui_table_filter(&df->table, text);
	v->lines = df->table.nshown;
}

static const char *diff_project(struct ui_view *v)
{
	return ((struct diff *)v->priv)->project;
}

static const struct ui_view_ops diff_ops = {
	.name = "diff",
	.kind = UI_VIEW_DIFF,
	.open = diff_open,
	.close = diff_close,
	.draw_header = diff_header,
	.draw_row = diff_row,
	.on_action = diff_action,
	.on_data = diff_data,
	.filter = diff_filter,
	.project = diff_project,
};

struct ui_view *ui_diff_new(struct ui_app *app, const char *project,
			    const char *base, const char *head,
			    const char *version)
{
	struct diff *df = ui_xcalloc(1, sizeof(*df));
	struct ui_view *v;
	char *title;

	df->project = ui_xstrdup(project);
	df->head = ui_xstrdup(head);
	df->base = base ? ui_xstrdup(base) : NULL;
	df->version = version ? ui_xstrdup(version) : NULL;
	if (strncmp(head, "build:", 6) == 0)
		df->head_build = strtoll(head + 6, NULL, 10);
	ui_table_init(&df->table, columns, sizeof(columns) / sizeof(columns[0]));
	title = ui_xasprintf("Diff %s..%s", base ? base : "previous", head);
	v = ui_view_new(app, &diff_ops, title, df);
	free(title);
	return v;
}

/* One page's diff ----------------------------------------------------------- */

struct page_line {
	enum ui_slot slot;
	char *text; /* one screen row; owned */
};

struct page {
	char *project;
	char **raw;            /* the unified text's lines */
	size_t nraw;
	struct page_line *rows; /* raw wrapped to width */
	size_t nrows;
	int width;              /* rows were wrapped to this */
};

static enum ui_slot line_slot(const char *line)
{
	if (strncmp(line, "@@", 2) == 0)
		return UI_SLOT_HEADING;
	if (strncmp(line, "---", 3) == 0 || strncmp(line, "+++", 3) == 0)
		return UI_SLOT_HEADER;
	if (line[0] == '+')
		return UI_SLOT_STATE_OK;
	if (line[0] == '-')
		return UI_SLOT_STATE_FAIL;
	return UI_SLOT_NORMAL;
}

static void rows_free(struct page *pg)
{
	size_t i;

	for (i = 0; i < pg->nrows; i++)
		free(pg->rows[i].text);
	free(pg->rows);
	pg->rows = NULL;
	pg->nrows = 0;
}

/* Wrap every line to width columns; a continuation is indented one column
 * so the +/- column stays clear. */
static void rewrap(struct ui_view *v, int width)
{
	struct page *pg = v->priv;
	size_t i, cap = 0;

	rows_free(pg);
	pg->width = width;
	for (i = 0; i < pg->nraw; i++) {
		const char *s = pg->raw[i];
		enum ui_slot slot = line_slot(s);
		int first = 1;

		do {
			int room = first ? width : width - 1;
			const char *end = ui_text_skip(s, room > 1 ? room : 1);

			if (pg->nrows == cap) {
				cap = cap ? cap * 2 : 64;
				pg->rows = ui_xrealloc(pg->rows,
						       cap * sizeof(*pg->rows));
			}
			pg->rows[pg->nrows].slot = slot;
			pg->rows[pg->nrows].text =
				first ? ui_xstrndup(s, (size_t)(end - s))
				      : ui_xasprintf(" %.*s", (int)(end - s), s);
			pg->nrows++;
			first = 0;
			s = end;
		} while (*s);
	}
	v->lines = pg->nrows;
	ui_view_clamp(v);
}

static int page_header(struct ui_view *v, WINDOW *w, int width)
{
	struct page *pg = v->priv;

	(void)w;
	if (width != pg->width)
		rewrap(v, width);
	return 0;
}

static void page_row(struct ui_view *v, WINDOW *w, int y, int width,
		     size_t n, int selected)
{
	struct page *pg = v->priv;
	int attr;

	if (n >= pg->nrows)
		return;
	attr = ui_attr(selected ? UI_SLOT_CURSOR : pg->rows[n].slot);
	ui_draw_fill(w, y, 0, width, attr);
	ui_draw_text(w, y, 0, width, pg->rows[n].text, attr);
}

static void page_close(struct ui_view *v)
{
	struct page *pg = v->priv;
	size_t i;

	rows_free(pg);
	for (i = 0; i < pg->nraw; i++)
		free(pg->raw[i]);
	free(pg->raw);
	free(pg->project);
	free(pg);
}

static const char *page_project(struct ui_view *v)
{
	return ((struct page *)v->priv)->project;
}

static const struct ui_view_ops page_ops = {
	.name = "diff",
	.kind = UI_VIEW_DIFF,
	.close = page_close,
	.draw_header = page_header,
	.draw_row = page_row,
	.project = page_project,
};

static struct ui_view *page_new(struct ui_app *app, const struct diff *df,
				const struct lc_diff_page *p)
{
	struct page *pg = ui_xcalloc(1, sizeof(*pg));
	char *text = lc_diff_unified(df->d, p), *line, *next;
	struct ui_view *v;
	char *title;

	if (text == NULL)
		text = ui_xstrdup("(out of memory)\n");
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		pg->raw = ui_xrealloc(pg->raw, (pg->nraw + 1) * sizeof(char *));
		pg->raw[pg->nraw++] =
			ui_xstrndup(line, (size_t)(next - line) -
						  (next[-1] == '\n'));
	}
	free(text);
	pg->project = ui_xstrdup(df->project);
	title = ui_xasprintf("%s", p->path ? p->path : "page");
	v = ui_view_new(app, &page_ops, title, pg);
	free(title);
	return v;
}
