/*
 * The live builds list (see builds.h). Row n of the unfiltered list is
 * build n of the server's newest-first order, so it lives on page
 * n / UI_BUILDS_PAGE at offset n % UI_BUILDS_PAGE; a page is one request
 * with that offset. When the first page's count moves (builds were added
 * or removed), every other cached page has shifted and is dropped; the
 * pages on screen are asked for again at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../draw.h"
#include "builds.h"
#include "client.h"

/* Each as wide as its longest value ("bitbucket", "59m59s", a 7-digit
 * commit, "99+99" warnings), so the error keeps what 80 columns leave. */
static const struct ui_column columns[] = {
	{ "#", 7 },         { "Version", 10 }, { "State", 10 },
	{ "Result", 6 },    { "Started", 7 },  { "By", 7 },
	{ "Time", 6 },      { "Cache", 6 },    { "Commit", 7 },
	{ "Warn", 5 },      { "Error", 0 },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
/* Every project's builds: the project first, how and from what commit
 * left out, so the error keeps as much room. */
static const struct ui_column all_columns[] = {
	{ "#", 7 },      { "Project", 14 }, { "Version", 10 }, { "State", 10 },
	{ "Result", 6 }, { "Started", 7 },  { "Time", 6 },     { "Error", 0 },
};
#define NALL_COLUMNS (sizeof(all_columns) / sizeof(all_columns[0]))

static void table_init(const struct ui_builds *b, struct ui_table *t)
{
	if (b->project)
		ui_table_init(t, columns, NCOLUMNS);
	else
		ui_table_init(t, all_columns, NALL_COLUMNS);
}

/* Pages ------------------------------------------------------------------------ */

static void page_clear(struct ui_builds_page *p)
{
	size_t i;

	for (i = 0; i < p->len; i++)
		lc_build_free(p->items[i]);
	free(p->items);
	ui_table_dispose(&p->table);
	free(p->etag);
	memset(p, 0, sizeof(*p));
	p->no = -1;
}

static void drop_pages(struct ui_builds *b, int keep_first)
{
	size_t i;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		if (!(keep_first && b->pages[i].no == 0))
			page_clear(&b->pages[i]);
}

static struct ui_builds_page *find_page(struct ui_builds *b, long long no)
{
	size_t i;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		if (b->pages[i].no == no)
			return &b->pages[i];
	return NULL;
}

/* A slot for page no: its own, a free one, else the least recently drawn
 * other than the first page (which every tick asks for anyway). */
static struct ui_builds_page *slot_for(struct ui_builds *b, long long no)
{
	struct ui_builds_page *p = find_page(b, no), *old = NULL;
	size_t i;

	if (p == NULL)
		p = find_page(b, -1);
	for (i = 0; p == NULL && i < UI_BUILDS_CACHE; i++)
		if (b->pages[i].no != 0 &&
		    (old == NULL || b->pages[i].used < old->used))
			old = &b->pages[i];
	if (p == NULL) {
		p = old;
		page_clear(p);
	}
	return p;
}

void ui_builds_init(struct ui_builds *b, const char *project)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->project = project ? ui_xstrdup(project) : NULL;
	b->count = -1;
	b->every = (int)ui_pace_builds.moving;
	for (i = 0; i < UI_BUILDS_CACHE; i++)
		b->pages[i].no = -1;
}

void ui_builds_dispose(struct ui_builds *b)
{
	drop_pages(b, 0);
	free(b->project);
	free(b->filter);
	lc_queue_dispose(&b->queue);
	memset(b, 0, sizeof(*b));
}

/* Requests --------------------------------------------------------------------- */

/* Ask for page no; budgeted: a poll of a page already shown (within the
 * budget all screens share), else what the screen needs now. */
static void ask_page(struct ui_builds *b, struct ui_view *v, long long no,
		     int budgeted)
{
	const struct ui_builds_page *p = find_page(b, no);
	char *path;

	if (no < 0 || ui_app_pending(v->app, v, UI_BUILDS_TAG_PAGE + (int)no))
		return;
	if (b->project)
		path = ui_xasprintf("/api/v3/projects/%s/builds/?limit=%d&"
				    "offset=%lld%s",
				    b->project, UI_BUILDS_PAGE,
				    no * UI_BUILDS_PAGE,
				    b->running_only ? "&running=true" : "");
	else
		path = ui_xasprintf("%s?limit=%d&offset=%lld%s",
				    LC_ALL_BUILDS_PATH, UI_BUILDS_PAGE,
				    no * UI_BUILDS_PAGE,
				    b->running_only ? "&running=true" : "");
	if (budgeted && p)
		ui_app_poll(v->app, v, UI_BUILDS_TAG_PAGE + (int)no, path,
			    NULL, p->etag);
	else
		ui_app_get(v->app, v, UI_BUILDS_TAG_PAGE + (int)no, path,
			   NULL, p ? p->etag : NULL);
	free(path);
}

/* Whether a loaded build waits for a worker. */
static int any_waiting(const struct ui_builds *b)
{
	size_t i, j;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		for (j = 0; b->pages[i].no >= 0 && j < b->pages[i].len; j++)
			if (b->pages[i].items[j]->state &&
			    strcmp(b->pages[i].items[j]->state, "triggered") ==
				    0)
				return 1;
	return 0;
}

/* A Lectern says where waiting builds stand: ask with the pages while one
 * is on them (the service has no queue to ask). */
static void ask_queue(struct ui_builds *b, struct ui_view *v)
{
	if (!any_waiting(b)) {
		lc_queue_dispose(&b->queue);
		return;
	}
	if (lc_client_remote(v->app->client) != LC_REMOTE_LECTERN ||
	    ui_app_pending(v->app, v, UI_BUILDS_TAG_QUEUE))
		return;
	ui_app_get(v->app, v, UI_BUILDS_TAG_QUEUE, LC_QUEUE_PATH, NULL, NULL);
}

/* The first page and those on screen, and the queue; budgeted: a tick's
 * poll. */
static void poll_pages(struct ui_builds *b, struct ui_view *v, int budgeted)
{
	size_t first = v->top, last = v->top + (size_t)(v->height > 0 ? v->height : 1);
	long long no;

	b->asked = v->app->now;
	ask_page(b, v, 0, budgeted);
	ask_queue(b, v);
	/* The pages on screen stay live too; with a `/` filter the rows are
	 * the cache's, so no page is on screen by position. */
	if (b->filter || b->count <= 0)
		return;
	if (last > (size_t)b->count)
		last = (size_t)b->count;
	for (no = (long long)(first / UI_BUILDS_PAGE);
	     no * UI_BUILDS_PAGE < (long long)last; no++)
		if (no > 0)
			ask_page(b, v, no, budgeted);
}

void ui_builds_poll(struct ui_builds *b, struct ui_view *v)
{
	poll_pages(b, v, 0);
}

void ui_builds_tick(struct ui_builds *b, struct ui_view *v)
{
	unsigned seen = ui_activity_watch(v->app);

	if (v->app->now >= b->asked + b->every ||
	    (seen != 0 && seen != b->activity)) {
		b->activity = seen;
		poll_pages(b, v, 1);
	}
}

/* Whether a loaded build has not finished: then the list changes within
 * seconds. */
static int any_running(const struct ui_builds *b)
{
	size_t i, j;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		for (j = 0; b->pages[i].no >= 0 && j < b->pages[i].len; j++)
			if (!ui_build_final(b->pages[i].items[j]))
				return 1;
	return 0;
}

/* After an answer for the first page: fast while something runs, backing
 * off while nothing moves. */
static void pace(struct ui_builds *b)
{
	b->every = (int)ui_pace_next(&ui_pace_builds, b->every,
				     any_running(b));
}

void ui_builds_reload(struct ui_builds *b, struct ui_view *v)
{
	size_t i;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		ui_set_str(&b->pages[i].etag, NULL);
	ui_builds_poll(b, v);
}

void ui_builds_toggle_running(struct ui_builds *b, struct ui_view *v)
{
	ui_app_cancel(v->app, v);
	b->running_only = !b->running_only;
	drop_pages(b, 0);
	b->count = -1;
	v->cursor = v->top = 0;
	ui_builds_refresh(b, v);
	ui_builds_poll(b, v);
	ui_app_message(v->app, b->running_only ? "running builds only"
					       : "all builds");
}

/* Rows --------------------------------------------------------------------------- */

int ui_build_progress(const struct lc_build *b, char *out, size_t size)
{
	const struct lc_build_progress *p = &b->progress;
	char objects[48], percent[16];

	if (p->phase == NULL)
		return 0;
	if (p->total >= 0)
		snprintf(objects, sizeof(objects), "%lld/%lld", p->objects,
			 p->total);
	else
		snprintf(objects, sizeof(objects), "%lld", p->objects);
	/* The percentage first: it is what survives a narrow column. */
	snprintf(percent, sizeof(percent), p->percent >= 0 ? " %lld%%," : "",
		 p->percent);
	snprintf(out, size, "%s%s %s objects, %.1f MiB", p->phase, percent,
		 objects, (double)p->bytes / (1024.0 * 1024.0));
	return 1;
}

/* One build's row; all: the table of every project's builds (its own
 * columns, all_columns). */
static void build_row(struct ui_table *t, const struct lc_build *build,
		      const struct ui_app *app, int all,
		      const struct lc_queue *queue)
{
	struct ui_row *row = ui_table_add(t);
	time_t now = app->now;
	time_t created = ui_parse_time(build->created);
	int final = ui_build_final(build);
	size_t c = 1;
	char age[16], took[16], progress[128], state[32], version[64];
	const char *shown = lc_build_version_shown(build, version,
						   sizeof(version));

	row->id = build->id;
	ui_format_age(age, sizeof(age), created, now);
	/* A running build shows how long it has been going, a queued one
	 * how long it has waited. */
	ui_format_duration(took, sizeof(took),
			   final ? build->duration
				 : (created >= 0 ? (long long)(now - created) : -1));
	ui_row_set(row, 0, UI_SLOT_NORMAL, "%lld", build->id);
	if (all)
		ui_row_set(row, c++, UI_SLOT_HEADING, "%s",
			   build->project ? build->project : "-");
	/* A pull request's build marked as such: "#12 (PR)". */
	ui_row_set(row, c++, UI_SLOT_NORMAL, "%s", shown ? shown : "-");
	ui_row_set(row, c++, final ? UI_SLOT_NORMAL : UI_SLOT_STATE_RUNNING,
		   "%s", ui_build_state(build, queue, state, sizeof(state)));
	ui_row_set(row, c++, ui_build_slot(build), "%s", ui_build_result(build));
	ui_row_set(row, c++, UI_SLOT_DIM, "%s", age);
	if (!all)
		ui_row_set(row, c++, UI_SLOT_NORMAL, "%s",
			   ui_build_trigger(build, app));
	ui_row_set(row, c++, UI_SLOT_NORMAL, "%s", took);
	if (!all) {
		ui_row_set(row, c++, UI_SLOT_DIM, "%s",
			   lc_build_cache_word(build));
		ui_row_set(row, c++, UI_SLOT_DIM, "%.7s",
			   build->commit ? build->commit : "");
		/* Its warnings where a Lectern says them: the count, and
		 * "+N" new since the last good build; nothing when there
		 * are none. */
		if (build->warnings.new_count > 0)
			ui_row_set(row, c, UI_SLOT_STATE_FAIL, "%lld+%lld",
				   build->warnings.count,
				   build->warnings.new_count);
		else if (build->warnings.count > 0)
			ui_row_set(row, c, UI_SLOT_NORMAL, "%lld",
				   build->warnings.count);
		c++;
	}
	/* The last column is the error, or a clone's live progress. */
	if (ui_build_progress(build, progress, sizeof(progress)))
		ui_row_set(row, c, UI_SLOT_STATE_RUNNING, "%s", progress);
	else
		ui_row_set(row, c, UI_SLOT_STATE_FAIL, "%s",
			   build->error ? build->error : "");
}

static void page_rows(const struct ui_builds *b, struct ui_builds_page *p,
		      const struct ui_app *app)
{
	size_t i;

	if (p->table.cols == NULL)
		table_init(b, &p->table);
	ui_table_clear(&p->table);
	for (i = 0; i < p->len; i++)
		build_row(&p->table, p->items[i], app, b->project == NULL,
			  &b->queue);
	ui_table_filter(&p->table, b->filter);
}

/* The shown row count: the whole history, or the filter's matches among
 * the cached pages. */
static size_t count_lines(const struct ui_builds *b)
{
	size_t i, n = 0;

	if (b->filter == NULL)
		return b->count > 0 ? (size_t)b->count : 0;
	for (i = 0; i < UI_BUILDS_CACHE; i++)
		if (b->pages[i].no >= 0)
			n += b->pages[i].table.nshown;
	return n;
}

void ui_builds_refresh(struct ui_builds *b, struct ui_view *v)
{
	size_t i;

	for (i = 0; i < UI_BUILDS_CACHE; i++)
		if (b->pages[i].no >= 0)
			page_rows(b, &b->pages[i], v->app);
	v->lines = b->lines = count_lines(b);
	ui_view_clamp(v);
}

void ui_builds_filter(struct ui_builds *b, struct ui_view *v, const char *text)
{
	ui_set_str(&b->filter, text && *text ? text : NULL);
	ui_builds_refresh(b, v);
}

/* The page and its table row of shown row n, or NULL with *no the page
 * it would be on (-1 with a filter: nothing to ask for). */
static struct ui_builds_page *locate(struct ui_builds *b, size_t n,
				     long long *no, size_t *row)
{
	struct ui_builds_page *p, *next;
	size_t i;
	long long after = -1;

	if (b->filter == NULL) {
		*no = (long long)(n / UI_BUILDS_PAGE);
		*row = n % UI_BUILDS_PAGE;
		p = find_page(b, *no);
		return p && *row < p->table.nshown ? p : NULL;
	}
	/* Filtered: the matches of the cached pages in page order. */
	*no = -1;
	for (;;) {
		next = NULL;
		for (i = 0; i < UI_BUILDS_CACHE; i++)
			if (b->pages[i].no > after &&
			    (next == NULL || b->pages[i].no < next->no))
				next = &b->pages[i];
		if (next == NULL)
			return NULL;
		if (n < next->table.nshown) {
			*row = n;
			return next;
		}
		n -= next->table.nshown;
		after = next->no;
	}
}

const struct lc_build *ui_builds_get(struct ui_builds *b, size_t n)
{
	const struct ui_builds_page *p;
	const struct ui_row *r;
	long long no;
	size_t row;

	if ((p = locate(b, n, &no, &row)) == NULL ||
	    (r = ui_table_row(&p->table, row)) == NULL)
		return NULL;
	return p->items[r - p->table.rows];
}

long long ui_builds_id(struct ui_builds *b, size_t n)
{
	const struct lc_build *build = ui_builds_get(b, n);

	return build ? build->id : -1;
}

void ui_builds_draw_header(const struct ui_builds *b, WINDOW *w, int y,
			   int width)
{
	struct ui_table t;

	/* The header is the columns' alone, rows or no rows. */
	table_init(b, &t);
	ui_table_draw_header(&t, w, y, width);
}

void ui_builds_draw_row(struct ui_builds *b, struct ui_view *v, WINDOW *w,
			int y, int width, size_t n, int selected)
{
	struct ui_builds_page *p;
	long long no;
	size_t row;

	if ((p = locate(b, n, &no, &row)) == NULL) {
		/* Not in the cache: ask for its page now, so rows reached by
		 * `G` or a page jump arrive without walking the pages before
		 * them (drawing is the one place that knows what is on
		 * screen after any move). */
		ui_draw_fill(w, y, 0, width, ui_attr(selected ? UI_SLOT_CURSOR
							      : UI_SLOT_NORMAL));
		ui_draw_text(w, y, 0, width, "  ...", ui_attr(UI_SLOT_DIM));
		if (ui_now_ms() >= b->hold_until)
			ask_page(b, v, no, 0);
		return;
	}
	p->used = ++b->clock;
	ui_table_draw_row(&p->table, w, y, width, row, selected);
}

int ui_builds_draw_footer(struct ui_builds *b, struct ui_view *v, WINDOW *w,
			  int y, int width)
{
	const struct lc_build *sel = ui_builds_get(b, v->cursor);
	struct ui_table t;
	char progress[128];
	const char *text;
	enum ui_slot slot = UI_SLOT_STATE_FAIL;
	int room, lines;

	if (sel == NULL)
		return 0;
	if (ui_build_progress(sel, progress, sizeof(progress))) {
		text = progress;
		slot = UI_SLOT_STATE_RUNNING;
	} else if ((text = sel->error) == NULL || *text == '\0') {
		return 0;
	}
	table_init(b, &t);
	room = ui_table_col_width(&t, t.ncols - 1, width);
	if (ui_text_width(text) <= room)
		return 0;
	lines = ui_draw_wrapped(NULL, 0, 0, width, UI_BUILDS_FOOTER_LINES - 1,
				text, 0);
	if (w == NULL)
		return 1 + lines;
	ui_draw_hline(w, y, 0, width, ui_attr(UI_SLOT_BORDER));
	ui_draw_wrapped(w, y + 1, 0, width, UI_BUILDS_FOOTER_LINES - 1, text,
			ui_attr(slot));
	return 1 + lines;
}

/* Answers ---------------------------------------------------------------------- */

/* The results of page no into its slot. */
static void take_page(struct ui_builds *b, long long no, const cJSON *body,
		      const char *etag, const struct ui_app *app)
{
	const cJSON *item, *results = cJSON_GetObjectItemCaseSensitive(body, "results");
	struct ui_builds_page *p = slot_for(b, no);
	struct lc_build *build;
	uint64_t used = p->used;

	page_clear(p);
	p->no = no;
	p->used = used ? used : ++b->clock;
	p->etag = ui_xstrdup(etag);
	p->items = ui_xcalloc(UI_BUILDS_PAGE, sizeof(*p->items));
	cJSON_ArrayForEach(item, results) {
		if (p->len == UI_BUILDS_PAGE ||
		    lc_build_parse(item, &build, NULL) != LC_OK)
			continue;
		/* The list never shows the raw JSON. */
		cJSON_Delete(build->raw);
		build->raw = NULL;
		p->items[p->len++] = build;
	}
	page_rows(b, p, app);
}

/* The queue's places; an error leaves the rows saying "queued" alone. */
static void take_queue(struct ui_builds *b, struct ui_view *v,
		       const struct lc_response *resp,
		       const struct lc_error *err)
{
	lc_queue_dispose(&b->queue);
	if (err->code == LC_OK && lc_queue_parse(resp->json, &b->queue) != LC_OK)
		lc_queue_dispose(&b->queue);
	ui_builds_refresh(b, v);
}

int ui_builds_on_data(struct ui_builds *b, struct ui_view *v, int tag,
		      struct lc_response *resp, const struct lc_error *err)
{
	const cJSON *count;
	long long no = tag - UI_BUILDS_TAG_PAGE, old = b->count, now_count;

	if (tag == UI_BUILDS_TAG_QUEUE) {
		take_queue(b, v, resp, err);
		return 1;
	}
	if (tag < UI_BUILDS_TAG_PAGE)
		return 0;
	if (err->code != LC_OK) {
		/* Every redraw would ask again at once: wait for the tick. */
		b->hold_until = ui_now_ms() + UI_TICK_MS;
		if (err->status == 404 && b->count < 0)
			ui_app_fail(v->app, v, "builds of %s: %s",
				    b->project ? b->project : "every project",
				    err->message);
		else
			ui_app_error(v->app, "builds of %s: %s",
				     b->project ? b->project : "every project",
				     err->message);
		return 1;
	}
	if (resp->not_modified) {
		if (no == 0)
			pace(b);
		return 1;
	}
	count = cJSON_GetObjectItemCaseSensitive(resp->json, "count");
	now_count = cJSON_IsNumber(count) ? (long long)count->valuedouble : old;
	if (old >= 0 && now_count != old) {
		/* Builds came or went: every page but the first has shifted.
		 * New builds arrive on top, so the cursor moves down with the
		 * build it was on. */
		drop_pages(b, 1);
		if (now_count > old && v->cursor > 0) {
			v->cursor += (size_t)(now_count - old);
			v->top += (size_t)(now_count - old);
		}
	}
	b->count = now_count;
	take_page(b, no, resp->json, resp->etag, v->app);
	v->lines = b->lines = count_lines(b);
	ui_view_clamp(v);
	if (no == 0)
		pace(b);
	return 1;
}

/* Outcome ---------------------------------------------------------------------- */

int ui_build_final(const struct lc_build *b)
{
	return b && b->state && (strcmp(b->state, "finished") == 0 ||
				 strcmp(b->state, "cancelled") == 0);
}

const char *ui_build_result(const struct lc_build *b)
{
	if (!ui_build_final(b))
		return "";
	return b->success == 1 ? "passed" : b->success == 0 ? "failed" : "";
}

/* The API's prefix of a forge's delivery ("webhook:github"). */
#define WEBHOOK_PREFIX "webhook:"

const char *ui_build_trigger(const struct lc_build *b,
			     const struct ui_app *app)
{
	const char *how = b->triggered_by;

	/* Only a Lectern leaves the field out for a build started by hand;
	 * the hosted service never sends it, so there it is not known. */
	if (how == NULL)
		return lc_client_remote(app->client) == LC_REMOTE_SERVICE
			       ? "-"
			       : "hand";
	/* The forge alone says it in a narrow column; "commit" and any
	 * value added later are shown as sent. */
	if (strncmp(how, WEBHOOK_PREFIX, strlen(WEBHOOK_PREFIX)) == 0)
		return how + strlen(WEBHOOK_PREFIX);
	return how;
}

const char *ui_build_state(const struct lc_build *b, const struct lc_queue *q,
			   char *buf, size_t size)
{
	const char *shown = lc_build_state_shown(b, q, buf, size);

	return shown ? shown : "?";
}

enum ui_slot ui_build_slot(const struct lc_build *b)
{
	if (!ui_build_final(b))
		return UI_SLOT_STATE_RUNNING;
	return b->success == 1   ? UI_SLOT_STATE_OK
	       : b->success == 0 ? UI_SLOT_STATE_FAIL
				 : UI_SLOT_STATE_RUNNING;
}
