/*
 * A build: its commands with exit codes and times, each followed by its
 * output. While the build runs, the v2 build detail (the API that carries
 * commands and their output) is polled with its ETag every tick, so the
 * running command's output streams in. Following keeps the cursor on the
 * last line as lines arrive; moving up stops it and reaching the bottom
 * again resumes it. `/` searches the log (n/N step through matches), `f`
 * jumps to the first failed command, `s` saves the log to a file (in
 * the downloads directory, the message naming it whole). `t`
 * builds the same version again and opens that build; `X` cancels this
 * one (after asking). Long lines are cut and scroll sideways (`h`/`l`),
 * or wrap (`w`). The header says what a running build is doing (its
 * state, time so far, current command and, while it fetches, the v3
 * build's progress, polled beside the v2 detail), how the build started
 * (the v3 build's triggered_by, asked once for a build already ended)
 * and a failed build's whole error, wrapped. Where the v2 detail cannot
 * show the build (the hosted service answers 404 for a private project's
 * builds), the screen falls back to the v3 build detail, found through
 * the project the opener names, and says the log is not given. Once a
 * Lectern says how many warnings the build had, a tab line shows them:
 * `W` switches to the Warnings tab (new ones first; `/` filters them,
 * the selected one's whole message shows under them, Enter opens a page's
 * record in the reader or shows a generator's warning whole, `a` offers a
 * redirect for a removed page) and back to the log where it was left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../app.h"
#include "../draw.h"
#include "../theme.h"
#include "builds.h"
#include "client.h"
#include "edit.h"
#include "warnings.h"

enum { TAG_BUILD = 0, TAG_V3, TAG_WARNINGS };

/* Header lines a failed build's error may take when wrapped: a cause
 * line and its command fit in far fewer on an 80-column screen. */
#define MAX_ERROR_LINES 8
/* Log lines are indented under their command's heading. */
#define OUTPUT_INDENT 2
/* Records asked for at once: every one a build keeps (the engine's
 * LEC_WARNINGS_MAX, the v3 list's largest page). */
#define WARNINGS_PAGE 1000
/* What the v3 fallback cannot show. */
#define V3_ONLY_NOTE "commands and output not given by this instance " \
		     "(its v2 build detail does not show this build)"

struct line {
	char *text;         /* owned */
	enum ui_slot slot;
	int command;        /* 1 on a command's heading line */
	int cont;           /* 1: the wrapped rest of the line before */
};

struct build_view {
	long long id;
	char *project;      /* the opener's, or NULL (`:build N`); owned */
	int v3_only;        /* v2 cannot show it: the v3 detail instead */
	struct lc_build *build;
	char *etag;
	struct line *lines;
	size_t len, cap;
	char *search;       /* the `/` text, or NULL */
	int follow;
	int loaded;
	int wrap;           /* wrap long lines rather than cut them */
	int width;          /* the screen's width at the last draw */
	int left;           /* columns scrolled sideways (not wrapping) */
	struct lc_build_progress progress; /* the v3 build's; owned */
	char *triggered_by; /* the v3 build's; owned, NULL: by hand */
	struct lc_build cache; /* its cache and cache_reason (owned) only */
	int v3_answered;    /* the v3 build has answered (or failed) once */
	int v3_loaded;      /* ... and triggered_by is its answer's */
	int v3_final;       /* ... of the build once it had ended */
	/* The Warnings tab (W): the v3 build's totals, the records asked
	 * for when the tab first opens, and where the log was left. */
	int tab;            /* 0: the log, 1: the warnings */
	struct ui_warnings warnings;
	int warnings_asked;
	size_t log_cursor, log_top;
};

static void push_line(struct build_view *bv, enum ui_slot slot, int command,
		      int cont, char *text)
{
	if (bv->len == bv->cap) {
		bv->cap = bv->cap ? bv->cap * 2 : 256;
		bv->lines = ui_xrealloc(bv->lines, bv->cap * sizeof(*bv->lines));
	}
	bv->lines[bv->len].text = text;
	bv->lines[bv->len].slot = slot;
	bv->lines[bv->len].command = command;
	bv->lines[bv->len].cont = cont;
	bv->len++;
}

/* One line of the log; wrapped into screen-wide pieces when wrapping. */
static void add_line(struct build_view *bv, enum ui_slot slot, int command,
		     const char *text, size_t n)
{
	char *line = ui_xstrndup(text, n);
	int room = bv->width - (command ? 0 : OUTPUT_INDENT);
	const char *p, *end;

	/* Generators colour their output; the screen has its own colours,
	 * and nothing else of a build's escapes may reach the terminal. */
	lc_terminal_text(line, n, LC_TERMINAL_TEXT);
	if (!bv->wrap || room <= 0 || ui_text_width(line) <= room) {
		push_line(bv, slot, command, 0, line);
		return;
	}
	for (p = line; *p; p = end) {
		end = ui_text_skip(p, room);
		push_line(bv, slot, command, p != line,
			  ui_xstrndup(p, (size_t)(end - p)));
	}
	free(line);
}

static void clear_lines(struct build_view *bv)
{
	size_t i;

	for (i = 0; i < bv->len; i++)
		free(bv->lines[i].text);
	bv->len = 0;
}

/* A command's heading: "$ command  [exit 0, 3s]". */
static void add_command(struct build_view *bv, const struct lc_build_command *c,
			time_t now)
{
	int running = c->exit_code < 0 && c->end_time == NULL;
	long long took = c->run_time;
	time_t start = ui_parse_time(c->start_time);
	char dur[16], *text;
	enum ui_slot slot;

	if (running && start >= 0)
		took = (long long)(now - start);
	ui_format_duration(dur, sizeof(dur), took);
	if (running) {
		text = ui_xasprintf("$ %s  [running, %s]", c->command, dur);
		slot = UI_SLOT_STATE_RUNNING;
	} else {
		text = ui_xasprintf("$ %s  [exit %lld, %s]", c->command,
				    c->exit_code, dur);
		slot = c->exit_code == 0 ? UI_SLOT_STATE_OK : UI_SLOT_STATE_FAIL;
	}
	add_line(bv, slot, 1, text, strlen(text));
	free(text);
}

static void make_lines(struct build_view *bv, time_t now)
{
	const struct lc_build_command *c;
	const char *p, *nl;
	size_t i;

	clear_lines(bv);
	if (bv->v3_only && bv->build) {
		add_line(bv, UI_SLOT_DIM, 0, V3_ONLY_NOTE, strlen(V3_ONLY_NOTE));
		return;
	}
	for (i = 0; bv->build && i < bv->build->commands_len; i++) {
		c = &bv->build->commands[i];
		add_command(bv, c, now);
		for (p = c->output ? c->output : ""; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (nl == NULL) {
				add_line(bv, UI_SLOT_CODE, 0, p, strlen(p));
				break;
			}
			add_line(bv, UI_SLOT_CODE, 0, p, (size_t)(nl - p));
		}
	}
}

/* Lines -> the view, keeping the cursor at the bottom when following. */
static void relayout(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	make_lines(bv, v->app->now);
	if (bv->tab) {
		v->lines = bv->warnings.nshown;
		ui_view_clamp(v);
		return;
	}
	v->lines = bv->len;
	if (bv->follow && bv->len)
		ui_view_goto(v, bv->len - 1);
	else
		ui_view_clamp(v);
}

/* The project the v3 build lives under: the v2 answer's, else the
 * opener's. */
static const char *project_of(const struct build_view *bv)
{
	return bv->build && bv->build->project ? bv->build->project
					       : bv->project;
}

/* The fetch's progress and how the build started are the v3 build's
 * (Lectern's extensions): polled while the build runs, asked once for one
 * already ended. In the v3 fallback it is the whole build, polled the
 * same way. v3 needs the project, which the first v2 answer names. */
static void poll_v3(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	char *path;

	/* Once more after the build has ended: its warnings are known then. */
	if (project_of(bv) == NULL ||
	    (bv->build && ui_build_final(bv->build) && bv->v3_answered &&
	     (bv->v3_final || !bv->v3_loaded)) ||
	    (bv->build == NULL && !bv->v3_only) ||
	    ui_app_pending(v->app, v, TAG_V3))
		return;
	path = ui_xasprintf("/api/v3/projects/%s/builds/%lld/", project_of(bv),
			    bv->id);
	ui_app_get(v->app, v, TAG_V3, path, NULL, NULL);
	free(path);
}

static void poll_build(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	char *path;

	if (!bv->v3_only && !ui_build_final(bv->build) &&
	    !ui_app_pending(v->app, v, TAG_BUILD)) {
		path = ui_xasprintf("/api/v2/build/%lld/", bv->id);
		/* The first answer is the screen; then it is a poll. */
		if (bv->build == NULL)
			ui_app_get(v->app, v, TAG_BUILD, path, NULL, bv->etag);
		else
			ui_app_poll(v->app, v, TAG_BUILD, path, NULL, bv->etag);
		free(path);
	}
	poll_v3(v);
}

/* The v3 build's progress (absent: none) and trigger replace the last
 * ones; in the fallback its answer is the build shown. */
static void take_v3(struct ui_view *v, const cJSON *json)
{
	struct build_view *bv = v->priv;
	struct lc_build *b;
	struct lc_error perr;

	if (lc_build_parse(json, &b, &perr) != LC_OK) {
		if (bv->v3_only)
			ui_app_error(v->app, "build %lld: %s", bv->id,
				     perr.message);
		return;
	}
	free(bv->progress.phase);
	bv->progress = b->progress;
	b->progress.phase = NULL;
	free(bv->triggered_by);
	bv->triggered_by = b->triggered_by;
	b->triggered_by = NULL;
	free(bv->cache.cache_reason);
	bv->cache.cache = b->cache;
	bv->cache.cache_reason = b->cache_reason;
	b->cache_reason = NULL;
	ui_warnings_set_counts(&bv->warnings,
			       cJSON_GetObjectItemCaseSensitive(json, "warnings"));
	bv->v3_loaded = 1;
	bv->v3_final = ui_build_final(b);
	if (!bv->v3_only) {
		lc_build_free(b);
		return;
	}
	lc_build_free(bv->build);
	bv->build = b;
	bv->loaded = 1;
	relayout(v);
}

/* The v3 build answered: extra beside v2 (its errors are the v2 poll's
 * to report), or the build itself in the fallback. */
static void v3_data(struct ui_view *v, struct lc_response *resp,
		    const struct lc_error *err)
{
	struct build_view *bv = v->priv;

	bv->v3_answered = 1;
	if (err->code == LC_OK) {
		if (!resp->not_modified)
			take_v3(v, resp->json);
	} else if (bv->v3_only && !bv->loaded) {
		ui_app_fail(v->app, v, "build %lld: %s", bv->id, err->message);
	} else if (bv->v3_only) {
		ui_app_error(v->app, "build %lld: %s", bv->id, err->message);
	}
}

/* The Warnings tab ------------------------------------------------------------ */

/* The records, once: a build's are final when it has ended. */
static void ask_warnings(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	struct lc_query q = { 0 };
	char *path;

	if (bv->warnings_asked || project_of(bv) == NULL)
		return;
	bv->warnings_asked = 1;
	/* Every record a build keeps fits one page of the largest size. */
	lc_query_add_int(&q, "limit", WARNINGS_PAGE);
	path = ui_xasprintf("/api/v3/projects/%s/builds/%lld/warnings/",
			    project_of(bv), bv->id);
	ui_app_get(v->app, v, TAG_WARNINGS, path, &q, NULL);
	lc_query_dispose(&q);
	free(path);
}

static void warnings_data(struct ui_view *v, struct lc_response *resp,
			  const struct lc_error *err)
{
	struct build_view *bv = v->priv;

	if (err->code != LC_OK) {
		bv->warnings_asked = 0;
		ui_app_error(v->app, "build %lld: warnings: %s", bv->id,
			     err->message);
		return;
	}
	ui_warnings_set_records(&bv->warnings,
				cJSON_GetObjectItemCaseSensitive(resp->json,
								 "results"));
	if (bv->tab)
		relayout(v);
}

/* The actions that work on the log's lines. */
static int log_action(enum ui_action action)
{
	static const enum ui_action on_log[] = {
		UI_ACTION_FOLLOW,      UI_ACTION_FIRST_FAILED,
		UI_ACTION_NEXT_MATCH,  UI_ACTION_PREV_MATCH,
		UI_ACTION_SAVE_LOG,    UI_ACTION_WRAP,
		UI_ACTION_SCROLL_LEFT, UI_ACTION_SCROLL_RIGHT,
	};
	size_t i;

	for (i = 0; i < sizeof(on_log) / sizeof(on_log[0]); i++)
		if (on_log[i] == action)
			return 1;
	return 0;
}

/* W: the Warnings tab, or back to the log where it was left. */
static void toggle_tab(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	if (bv->warnings.count < 0) {
		ui_app_message(v->app, bv->build && ui_build_final(bv->build)
					       ? "this instance keeps no "
						 "warnings"
					       : "warnings come when the build "
						 "has ended");
		return;
	}
	bv->tab = !bv->tab;
	/* Each tab has its `/`: the warnings' filter, the log's search. */
	ui_set_str(&v->filter, bv->tab ? bv->warnings.filter : bv->search);
	if (bv->tab) {
		bv->log_cursor = v->cursor;
		bv->log_top = v->top;
		bv->follow = 0;
		v->cursor = v->top = 0;
		ask_warnings(v);
		relayout(v);
	} else {
		relayout(v);
		v->top = bv->log_top;
		ui_view_goto(v, bv->log_cursor);
	}
}

/* A write of this screen went through: a retry (the answer carries the
 * new build) opens the new build; a cancel shows at the next poll, as
 * the build is still running until then. */
static void open_retry(struct ui_view *v, const struct lc_response *resp)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(resp->json, "build"), "id");

	const cJSON *project = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(resp->json, "build"),
		"project");

	if (cJSON_IsNumber(id))
		ui_app_push(v->app,
			    ui_build_new(v->app, cJSON_IsString(project)
						     ? project->valuestring
						     : NULL,
					 (long long)id->valuedouble));
}

static void build_data(struct ui_view *v, int tag, struct lc_response *resp,
		       const struct lc_error *err)
{
	struct build_view *bv = v->priv;
	struct lc_build *b;
	struct lc_error perr;

	if (tag == UI_EDIT_TAG) {
		if (err->code == LC_OK)
			open_retry(v, resp);
		return;
	}
	if (tag == TAG_V3) {
		v3_data(v, resp, err);
		return;
	}
	if (tag == TAG_WARNINGS) {
		warnings_data(v, resp, err);
		return;
	}
	if (err->code != LC_OK && err->status == 404 && !bv->loaded &&
	    bv->project) {
		/* Not a build v2 shows (a private project's on the hosted
		 * service): the v3 detail of the opener's project instead. */
		bv->v3_only = 1;
		poll_v3(v);
		return;
	}
	if (err->code != LC_OK && err->status == 404 && !bv->loaded) {
		/* A mistyped `:build N`: nothing to show, stay where we were. */
		ui_app_fail(v->app, v, "build %lld: %s", bv->id, err->message);
		return;
	}
	if (err->code != LC_OK) {
		ui_app_error(v->app, "build %lld: %s", bv->id, err->message);
		return;
	}
	if (resp->not_modified)
		return;
	if (lc_build_parse(resp->json, &b, &perr) != LC_OK) {
		ui_app_error(v->app, "build %lld: %s", bv->id, perr.message);
		return;
	}
	ui_set_str(&bv->etag, resp->etag);
	lc_build_free(bv->build);
	bv->build = b;
	if (b->docs_url && bv->warnings.docs == NULL)
		bv->warnings.docs = ui_xstrdup(b->docs_url);
	/* A running build opens following its log; a finished one at the
	 * top. */
	if (!bv->loaded)
		bv->follow = !ui_build_final(b);
	bv->loaded = 1;
	relayout(v);
	/* Now that the project is known, at once rather than next tick. */
	poll_v3(v);
}

/* Searching ------------------------------------------------------------------------ */

/* Go to the next (dir 1) or previous (-1) line matching the search from
 * the cursor (from: include the cursor's own line). */
static void find(struct ui_view *v, int dir, int from)
{
	struct build_view *bv = v->priv;
	size_t i, n = bv->len, start = v->cursor;

	if (bv->search == NULL || n == 0)
		return;
	for (i = from ? 0 : 1; i <= n; i++) {
		size_t at = dir > 0 ? (start + i) % n : (start + n - i % n) % n;

		if (ui_contains_nocase(bv->lines[at].text, bv->search)) {
			bv->follow = 0;
			ui_view_goto(v, at);
			if ((dir > 0 && at < start) || (dir < 0 && at > start))
				ui_app_message(v->app, "search wrapped");
			return;
		}
	}
	ui_app_error(v->app, "not found: %s", bv->search);
}

/* `/`: on the Warnings tab a filter of its rows, on the log a search. */
static void build_filter(struct ui_view *v, const char *text)
{
	struct build_view *bv = v->priv;

	if (bv->tab) {
		ui_warnings_filter(&bv->warnings, text);
		v->lines = bv->warnings.nshown;
		ui_view_clamp(v);
		return;
	}
	ui_set_str(&bv->search, text && *text ? text : NULL);
	find(v, 1, 1);
}

static void first_failed(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	size_t i;

	for (i = 0; i < bv->len; i++)
		if (bv->lines[i].command && bv->lines[i].slot == UI_SLOT_STATE_FAIL) {
			bv->follow = 0;
			v->top = i;
			ui_view_goto(v, i);
			return;
		}
	ui_app_message(v->app, "no command failed");
}

/* Whether dir is an absolute path to a directory (NULL: no). */
static int is_dir(const char *dir)
{
	struct stat st;

	return dir && *dir == '/' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where `s` saves a log (owned): the user's downloads directory
 * ($XDG_DOWNLOAD_DIR, else ~/Downloads), else the home directory, else
 * /tmp. Not the TUI's working directory: that is often a repository's
 * work tree, where a stray log would be committed or never found again. */
static char *save_dir(void)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_DOWNLOAD_DIR");
	char *downloads = is_dir(home) ? ui_xasprintf("%s/Downloads", home)
				       : NULL;

	if (is_dir(xdg)) {
		free(downloads);
		return ui_xstrdup(xdg);
	}
	if (is_dir(downloads))
		return downloads;
	free(downloads);
	return ui_xstrdup(is_dir(home) ? home : "/tmp");
}

/* The length of the home directory path starts with, 0 when it does not:
 * the message says ~/Downloads/..., which fits at 80 columns where the
 * whole path may not. */
static size_t home_dir(const char *path)
{
	const char *home = getenv("HOME");
	size_t n = home ? strlen(home) : 0;

	while (n > 1 && home[n - 1] == '/')
		n--;
	return n > 1 && strncmp(path, home, n) == 0 && path[n] == '/' ? n : 0;
}

static void save_log(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	char *dir = save_dir();
	char *path = ui_xasprintf("%s/lectern-build-%lld.log", dir, bv->id);
	FILE *f = fopen(path, "w");
	size_t i, saved = 0;
	int bad;

	if (f == NULL) {
		ui_app_error(v->app, "cannot write %s: %s", path, strerror(errno));
		goto done;
	}
	/* As the log reads unwrapped: a wrapped line is saved whole. */
	for (i = 0; i < bv->len; i++) {
		if (i && !bv->lines[i].cont)
			fputc('\n', f);
		fputs(bv->lines[i].text, f);
		saved += !bv->lines[i].cont;
	}
	if (bv->len)
		fputc('\n', f);
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		ui_app_error(v->app, "cannot write %s: %s", path, strerror(errno));
	else
		ui_app_message(v->app, "saved %zu lines to %s%s", saved,
			       home_dir(path) ? "~" : "", path + home_dir(path));
done:
	free(path);
	free(dir);
}

/* The widest line's columns: how far sideways scrolling goes. */
static int widest(const struct build_view *bv)
{
	int most = 0, cols;
	size_t i;

	for (i = 0; i < bv->len; i++)
		if ((cols = ui_text_width(bv->lines[i].text)) > most)
			most = cols;
	return most;
}

/* Ops ----------------------------------------------------------------------------------- */

/* D: what this build changed against its version's previous passed one. */
static void diff_build(struct ui_view *v)
{
	struct build_view *bv = v->priv;
	const struct lc_build *b = bv->build;
	char *head;

	if (b == NULL || b->project == NULL || b->version == NULL ||
	    b->success != 1 || b->state == NULL ||
	    strcmp(b->state, "finished") != 0) {
		ui_app_error(v->app, "only a passed build has docs to compare");
		return;
	}
	head = ui_xasprintf("build:%lld", b->id);
	ui_app_push(v->app, v->app->screens->diff(v->app, b->project, NULL,
						  head, b->version));
	free(head);
}

static int build_action(struct ui_view *v, enum ui_action action)
{
	struct build_view *bv = v->priv;

	if (bv->tab && action == UI_ACTION_OPEN) {
		ui_warnings_open(&bv->warnings, v, v->cursor);
		return UI_HANDLED;
	}
	/* What works on the log takes the reader back to it first. */
	if (bv->tab && log_action(action))
		toggle_tab(v);
	switch (action) {
	case UI_ACTION_WARNINGS:
		toggle_tab(v);
		return UI_HANDLED;
	case UI_ACTION_ADD:
		if (bv->tab && project_of(bv))
			ui_warnings_redirect(&bv->warnings, v, project_of(bv),
					     v->cursor);
		else
			ui_app_message(v->app, "on the Warnings tab (W), `a` "
					       "redirects a removed page");
		return UI_HANDLED;
	case UI_ACTION_UP:
	case UI_ACTION_DOWN:
	case UI_ACTION_PAGE_UP:
	case UI_ACTION_PAGE_DOWN:
	case UI_ACTION_FIRST:
	case UI_ACTION_LAST:
		ui_view_navigate(v, action);
		if (bv->tab)
			return UI_HANDLED;
		/* Following stops when the reader moves up and resumes when
		 * they reach the bottom again. */
		bv->follow = v->lines > 0 && v->cursor == v->lines - 1;
		return UI_HANDLED;
	case UI_ACTION_FOLLOW:
		bv->follow = !bv->follow;
		if (bv->follow && bv->len)
			ui_view_goto(v, bv->len - 1);
		ui_app_message(v->app, bv->follow ? "following" : "not following");
		return UI_HANDLED;
	case UI_ACTION_NEXT_MATCH:
		find(v, 1, 0);
		return UI_HANDLED;
	case UI_ACTION_PREV_MATCH:
		find(v, -1, 0);
		return UI_HANDLED;
	case UI_ACTION_FIRST_FAILED:
		first_failed(v);
		return UI_HANDLED;
	case UI_ACTION_SAVE_LOG:
		save_log(v);
		return UI_HANDLED;
	case UI_ACTION_TRIGGER:
	case UI_ACTION_TRIGGER_FRESH:
		if (bv->build && bv->build->project && bv->build->version)
			ui_edit_trigger(v, bv->build->project,
					bv->build->version,
					action == UI_ACTION_TRIGGER_FRESH);
		return UI_HANDLED;
	case UI_ACTION_CANCEL:
		if (bv->build)
			ui_edit_cancel(v, bv->build);
		return UI_HANDLED;
	case UI_ACTION_DIFF:
		diff_build(v);
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		ui_set_str(&bv->etag, NULL);
		lc_build_free(bv->build);
		bv->build = NULL;
		bv->v3_answered = 0;
		bv->v3_final = 0;
		bv->warnings_asked = 0;
		if (bv->tab)
			ask_warnings(v);
		bv->loaded = 0;
		bv->v3_only = 0;
		poll_build(v);
		return UI_HANDLED;
	case UI_ACTION_WRAP:
		bv->wrap = !bv->wrap;
		bv->left = 0;
		relayout(v);
		ui_app_message(v->app, bv->wrap ? "wrapping long lines"
						: "long lines cut (h/l scroll)");
		return UI_HANDLED;
	case UI_ACTION_SCROLL_LEFT:
		bv->left = bv->left > UI_HSCROLL_STEP ? bv->left - UI_HSCROLL_STEP
						      : 0;
		return UI_HANDLED;
	case UI_ACTION_SCROLL_RIGHT:
		if (!bv->wrap && bv->left + UI_HSCROLL_STEP < widest(bv))
			bv->left += UI_HSCROLL_STEP;
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

/* The command running now, or NULL. */
static const char *current_command(const struct lc_build *b)
{
	size_t i = b->commands_len;

	while (i > 0) {
		i--;
		if (b->commands[i].exit_code < 0 && b->commands[i].end_time == NULL)
			return b->commands[i].command;
	}
	return NULL;
}

/* Header line 0: the build, its state, and either its result and time
 * or, while it runs, its time so far and what it runs. */
static void draw_summary(struct build_view *bv, WINDOW *w, int width,
			 const struct ui_app *app)
{
	const struct lc_build *b = bv->build;
	time_t now = app->now;
	time_t created = ui_parse_time(b->created);
	int final = ui_build_final(b), x;
	const char *cmd = final ? NULL : current_command(b);
	struct lc_build shown = { 0 };
	const char *how;
	char dur[16], commands[32], state[32], *text;

	if (bv->v3_only)
		snprintf(commands, sizeof(commands), "no log");
	else
		snprintf(commands, sizeof(commands), "%zu commands",
			 b->commands_len);
	ui_format_duration(dur, sizeof(dur),
			   final ? b->duration
				 : (created >= 0 ? (long long)(now - created) : -1));
	text = ui_xasprintf("Build #%lld  %s/%s  ", b->id,
			    b->project ? b->project : "?",
			    b->version ? b->version : "-");
	x = ui_draw_text(w, 0, 0, width, text, ui_attr(UI_SLOT_HEADER));
	free(text);
	text = ui_xasprintf("%s%s%s", ui_build_state(b, NULL, state, sizeof(state)),
			    *ui_build_result(b) ? " " : "", ui_build_result(b));
	x += ui_draw_text(w, 0, x, width - x, text, ui_attr(ui_build_slot(b)));
	free(text);
	shown.triggered_by = bv->triggered_by;
	how = ui_build_trigger(&shown, app);
	/* Nothing to say before the v3 build answers, nor where it is not
	 * known ("-"). */
	if (bv->v3_loaded && strcmp(how, "-") != 0) {
		text = ui_xasprintf("  by %s", how);
		x += ui_draw_text(w, 0, x, width - x, text,
				  ui_attr(UI_SLOT_HEADER));
		free(text);
	}
	if (final)
		text = ui_xasprintf("  %s%s%.7s  %s%s%s", dur,
				    b->commit ? "  " : "", b->commit ? b->commit : "",
				    commands, bv->wrap ? "  [wrap]" : "",
				    bv->follow ? "  [following]" : "");
	else
		text = ui_xasprintf("  %s%s%s%s%s", dur, cmd ? "  $ " : "",
				    cmd ? cmd : "", bv->wrap ? "  [wrap]" : "",
				    bv->follow ? "  [following]" : "");
	ui_draw_text(w, 0, x, width - x, text, ui_attr(UI_SLOT_HEADER));
	free(text);
}

/* Below the summary: the fetch's progress while there is one, else the
 * whole error wrapped, else a rule; the lines used. */
static int draw_detail(struct build_view *bv, WINDOW *w, int width, int y)
{
	struct lc_build shown = { 0 };
	char progress[128];
	int lines, i;

	shown.progress = bv->progress;
	if (!ui_build_final(bv->build) &&
	    ui_build_progress(&shown, progress, sizeof(progress))) {
		ui_draw_fill(w, y, 0, width, ui_attr(UI_SLOT_NORMAL));
		ui_draw_text(w, y, 0, width, progress,
			     ui_attr(UI_SLOT_STATE_RUNNING));
		return 1;
	}
	/* A passed build: what it reused of earlier builds' work, where
	 * the server says (a Lectern), on the rule's line. */
	if (bv->build->error == NULL && ui_build_final(bv->build) &&
	    bv->cache.cache != LC_CACHE_UNKNOWN) {
		char *text = ui_xasprintf("cache %s%s%s",
					  lc_build_cache_word(&bv->cache),
					  bv->cache.cache_reason ? ": " : "",
					  bv->cache.cache_reason
						  ? bv->cache.cache_reason
						  : "");

		ui_draw_fill(w, y, 0, width, ui_attr(UI_SLOT_NORMAL));
		ui_draw_text(w, y, 0, width, text, ui_attr(UI_SLOT_DIM));
		free(text);
		return 1;
	}
	if (bv->build->error == NULL) {
		ui_draw_hline(w, y, 0, width, ui_attr(UI_SLOT_BORDER));
		return 1;
	}
	/* Wrapped at spaces, as a reader breaks it: a word cut at the
	 * edge of an 80-column screen reads as two. The last line allowed
	 * shows what is left, cut. */
	lines = ui_draw_wrapped(NULL, y, 0, width, MAX_ERROR_LINES,
				bv->build->error, 0);
	for (i = 0; i < lines; i++)
		ui_draw_fill(w, y + i, 0, width, ui_attr(UI_SLOT_NORMAL));
	ui_draw_wrapped(w, y, 0, width, MAX_ERROR_LINES, bv->build->error,
			ui_attr(UI_SLOT_STATE_FAIL));
	return lines;
}

/* Once a Lectern says the build's warnings: the log and Warnings tabs,
 * the active one highlighted, with the totals. */
static int draw_tabs(struct build_view *bv, WINDOW *w, int width, int y)
{
	char summary[96], *text;
	int x;

	ui_warnings_summary(&bv->warnings, 1, summary, sizeof(summary));
	ui_draw_fill(w, y, 0, width, ui_attr(UI_SLOT_TAB));
	x = ui_draw_text(w, y, 0, width, " Log ",
			 ui_attr(bv->tab ? UI_SLOT_TAB : UI_SLOT_TAB_ACTIVE));
	text = ui_xasprintf(" Warnings: %s ", summary);
	x += 1 + ui_draw_text(w, y, x + 1, width - x - 1, text,
			      ui_attr(bv->tab ? UI_SLOT_TAB_ACTIVE
					      : UI_SLOT_TAB));
	free(text);
	if (bv->tab)
		ui_draw_text(w, y, x + 1, width - x - 1,
			     "Enter: open  /: filter  a: redirect a removed "
			     "page  W: log",
			     ui_attr(UI_SLOT_DIM));
	return 1;
}

static int build_header(struct ui_view *v, WINDOW *w, int width)
{
	struct build_view *bv = v->priv;
	int lines;

	if (bv->width != width) {
		/* Wrapped lines depend on the width. */
		bv->width = width;
		if (bv->wrap)
			relayout(v);
	}
	ui_draw_fill(w, 0, 0, width, ui_attr(UI_SLOT_HEADER));
	if (bv->build == NULL) {
		ui_draw_text(w, 0, 0, width, bv->loaded ? "" : "Loading...",
			     ui_attr(UI_SLOT_DIM));
		ui_draw_fill(w, 1, 0, width, ui_attr(UI_SLOT_NORMAL));
		return 2;
	}
	draw_summary(bv, w, width, v->app);
	lines = 1 + draw_detail(bv, w, width, 1);
	if (bv->warnings.count >= 0)
		lines += draw_tabs(bv, w, width, lines);
	return lines;
}

static void build_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		      int selected)
{
	struct build_view *bv = v->priv;
	const struct line *l;
	int attr, indent;

	if (bv->tab) {
		ui_warnings_draw_row(&bv->warnings, w, y, width, n, selected);
		return;
	}
	l = &bv->lines[n];
	attr = ui_attr(selected ? UI_SLOT_CURSOR : l->slot);
	indent = l->command ? 0 : OUTPUT_INDENT;

	ui_draw_fill(w, y, 0, width, ui_attr(selected ? UI_SLOT_CURSOR
						      : UI_SLOT_NORMAL));
	ui_draw_match(w, y, indent, width - indent,
		      ui_text_skip(l->text, bv->left), attr, bv->search,
		      ui_attr(UI_SLOT_MATCH));
}

/* On the Warnings tab, the selected warning's whole message when its row
 * cuts it. */
static int build_footer(struct ui_view *v, WINDOW *w, int y, int width)
{
	struct build_view *bv = v->priv;

	return bv->tab ? ui_warnings_draw_footer(&bv->warnings, w, y, width,
						 v->cursor)
		       : 0;
}

static void build_open(struct ui_view *v)
{
	poll_build(v);
}

static void build_tick(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	/* Running commands' times move on between answers. */
	if (bv->build && !ui_build_final(bv->build))
		relayout(v);
	poll_build(v);
}

static void build_close(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	clear_lines(bv);
	free(bv->lines);
	lc_build_free(bv->build);
	free(bv->etag);
	free(bv->search);
	free(bv->progress.phase);
	free(bv->triggered_by);
	free(bv->cache.cache_reason);
	free(bv->project);
	ui_warnings_dispose(&bv->warnings);
	free(bv);
}

static int build_live(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	return bv->build && !ui_build_final(bv->build);
}

static const char *build_project(struct ui_view *v)
{
	struct build_view *bv = v->priv;

	return bv->build ? bv->build->project : NULL;
}

static const struct ui_view_ops build_ops = {
	.name = "build",
	.kind = UI_VIEW_BUILD,
	.open = build_open,
	.close = build_close,
	.draw_header = build_header,
	.draw_row = build_row,
	.draw_footer = build_footer,
	.on_action = build_action,
	.on_data = build_data,
	.tick = build_tick,
	.filter = build_filter,
	.project = build_project,
	.live = build_live,
};

struct ui_view *ui_build_new(struct ui_app *app, const char *project,
			     long long id)
{
	struct build_view *bv = ui_xcalloc(1, sizeof(*bv));
	char title[32];

	bv->id = id;
	bv->project = project ? ui_xstrdup(project) : NULL;
	bv->warnings.count = -1;
	snprintf(title, sizeof(title), "Build #%lld", id);
	return ui_view_new(app, &build_ops, title, bv);
}
