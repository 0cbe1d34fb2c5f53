/*
 * The live builds list (see builds.h). Answers are merged into one array
 * kept in id order, so a poll of the first page and a later page never
 * duplicate a build; when the first page is the whole list it simply
 * replaces the array, which also drops builds that left a running-only
 * list or were deleted.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "builds.h"
#include "client.h"

/* Builds per request: a screenful several times over, and small enough
 * that a poll answer stays a few tens of KiB. */
#define PAGE 100

static const struct ui_column columns[] = {
	{ "#", 7 },         { "Version", 16 }, { "State", 10 },
	{ "Result", 7 },    { "Started", 8 },  { "Time", 8 },
	{ "Commit", 8 },    { "Error", 0 },
};

void ui_builds_init(struct ui_builds *b, const char *project)
{
	memset(b, 0, sizeof(*b));
	b->project = ui_xstrdup(project);
	b->count = -1;
	ui_table_init(&b->table, columns, sizeof(columns) / sizeof(columns[0]));
}

static void clear_items(struct ui_builds *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		lc_build_free(b->items[i]);
	b->len = 0;
}

void ui_builds_dispose(struct ui_builds *b)
{
	clear_items(b);
	free(b->items);
	free(b->project);
	free(b->etag);
	ui_table_dispose(&b->table);
	memset(b, 0, sizeof(*b));
}

static char *list_path(const struct ui_builds *b, size_t offset)
{
	return ui_xasprintf("/api/v3/projects/%s/builds/?limit=%d&offset=%zu%s",
			    b->project, PAGE, offset,
			    b->running_only ? "&running=true" : "");
}

void ui_builds_poll(struct ui_builds *b, struct ui_view *v)
{
	char *path;

	if (!ui_app_pending(v->app, v, UI_BUILDS_TAG_FIRST)) {
		path = list_path(b, 0);
		ui_app_get(v->app, v, UI_BUILDS_TAG_FIRST, path, NULL, b->etag);
		free(path);
	}
	if (b->count > (long long)b->len && v->cursor + PAGE / 2 >= b->len &&
	    !ui_app_pending(v->app, v, UI_BUILDS_TAG_MORE)) {
		path = list_path(b, b->len);
		ui_app_get(v->app, v, UI_BUILDS_TAG_MORE, path, NULL, NULL);
		free(path);
	}
}

void ui_builds_toggle_running(struct ui_builds *b, struct ui_view *v)
{
	ui_app_cancel(v->app, v);
	b->running_only = !b->running_only;
	clear_items(b);
	b->count = -1;
	ui_set_str(&b->etag, NULL);
	ui_builds_refresh(b, v);
	ui_builds_poll(b, v);
	ui_app_message(v->app, b->running_only ? "running builds only"
					       : "all builds");
}

/* Put build (taken over) into the id-ordered array. */
static void merge(struct ui_builds *b, struct lc_build *build)
{
	size_t lo = 0, hi = b->len, mid;

	/* Binary search in descending id order. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (b->items[mid]->id > build->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->len && b->items[lo]->id == build->id) {
		lc_build_free(b->items[lo]);
		b->items[lo] = build;
		return;
	}
	if (b->len == b->cap) {
		b->cap = b->cap ? b->cap * 2 : PAGE;
		b->items = ui_xrealloc(b->items, b->cap * sizeof(*b->items));
	}
	memmove(&b->items[lo + 1], &b->items[lo],
		(b->len - lo) * sizeof(*b->items));
	b->items[lo] = build;
	b->len++;
}

/* The results of a page into the array; whole: the page is the whole
 * list, so it replaces the array. */
static void take_page(struct ui_builds *b, const cJSON *page, int whole)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(page, "results");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(page, "count");
	const cJSON *item;
	struct lc_build *build;

	if (whole)
		clear_items(b);
	if (cJSON_IsNumber(count))
		b->count = (long long)count->valuedouble;
	cJSON_ArrayForEach(item, results) {
		if (lc_build_parse(item, &build, NULL) != LC_OK)
			continue;
		/* The list never shows the raw JSON; with 10,000 builds the
		 * copies would be most of the TUI's memory. */
		cJSON_Delete(build->raw);
		build->raw = NULL;
		merge(b, build);
	}
}

int ui_builds_on_data(struct ui_builds *b, struct ui_view *v, int tag,
		      struct lc_response *resp, const struct lc_error *err)
{
	const cJSON *next;
	long long keep = ui_builds_id(b, v->cursor);
	size_t i;

	if (tag != UI_BUILDS_TAG_FIRST && tag != UI_BUILDS_TAG_MORE)
		return 0;
	if (err->code != LC_OK) {
		ui_app_error(v->app, "builds of %s: %s", b->project,
			     err->message);
		return 1;
	}
	if (resp->not_modified)
		return 1;
	if (tag == UI_BUILDS_TAG_FIRST)
		ui_set_str(&b->etag, resp->etag);
	next = cJSON_GetObjectItemCaseSensitive(resp->json, "next");
	take_page(b, resp->json, tag == UI_BUILDS_TAG_FIRST && !cJSON_IsString(next));
	ui_builds_refresh(b, v);
	/* Stay on the same build when new ones arrive above it. */
	for (i = 0; keep >= 0 && i < v->lines; i++)
		if (ui_builds_id(b, i) == keep) {
			ui_view_goto(v, i);
			break;
		}
	return 1;
}

static void build_row(struct ui_builds *b, const struct lc_build *build,
		      time_t now)
{
	struct ui_row *row = ui_table_add(&b->table);
	time_t created = ui_parse_time(build->created);
	int final = ui_build_final(build);
	char age[16], took[16];

	row->id = build->id;
	ui_format_age(age, sizeof(age), created, now);
	/* A running build shows how long it has been going. */
	ui_format_duration(took, sizeof(took),
			   final ? build->duration
				 : (created >= 0 ? (long long)(now - created) : -1));
	ui_row_set(row, 0, UI_SLOT_NORMAL, "%lld", build->id);
	ui_row_set(row, 1, UI_SLOT_NORMAL, "%s",
		   build->version ? build->version : "-");
	ui_row_set(row, 2, final ? UI_SLOT_NORMAL : UI_SLOT_STATE_RUNNING, "%s",
		   build->state ? build->state : "?");
	ui_row_set(row, 3, ui_build_slot(build), "%s", ui_build_result(build));
	ui_row_set(row, 4, UI_SLOT_DIM, "%s", age);
	ui_row_set(row, 5, UI_SLOT_NORMAL, "%s", took);
	ui_row_set(row, 6, UI_SLOT_DIM, "%.7s", build->commit ? build->commit : "");
	ui_row_set(row, 7, UI_SLOT_STATE_FAIL, "%s", build->error ? build->error : "");
}

void ui_builds_refresh(struct ui_builds *b, struct ui_view *v)
{
	size_t i;

	ui_table_clear(&b->table);
	for (i = 0; i < b->len; i++)
		build_row(b, b->items[i], v->app->now);
	ui_table_filter(&b->table, b->table.filter);
	v->lines = b->table.nshown;
	ui_view_clamp(v);
}

long long ui_builds_id(const struct ui_builds *b, size_t n)
{
	const struct ui_row *row = ui_table_row(&b->table, n);

	return row ? row->id : -1;
}

int ui_build_final(const struct lc_build *b)
{
	return b && b->state && (strcmp(b->state, "finished") == 0 ||
				 strcmp(b->state, "cancelled") == 0);
}

const char *ui_build_result(const struct lc_build *b)
{
	return b->success == 1 ? "passed" : b->success == 0 ? "failed" : "";
}

enum ui_slot ui_build_slot(const struct lc_build *b)
{
	return b->success == 1   ? UI_SLOT_STATE_OK
	       : b->success == 0 ? UI_SLOT_STATE_FAIL
				 : UI_SLOT_STATE_RUNNING;
}
