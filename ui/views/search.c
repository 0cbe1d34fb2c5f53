/*
 * Search: a project's documentation searched through the instance's
 * search API, results as you type. `/` edits the query (it starts with
 * the current one; Esc puts it back), and every change asks again,
 * dropping the answer still on its way. Each page found is a line with
 * its title and path, followed by its section blocks, the words that
 * matched drawn in the theme's match colour (the API marks them with
 * <span> in its highlights). Enter opens the page in the reader, at the
 * section when the line is one of its blocks.
 *
 * When the instance's search finds nothing (or has no search, as a remote
 * project may not), the built docs' own index is fetched once from the
 * version's documentation URL (Sphinx's searchindex.js, else MkDocs'
 * search/search_index.json) and searched instead, and the header says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../app.h"
#include "../docindex.h"
#include "../draw.h"
#include "../theme.h"
#include "client.h"

enum { TAG_SEARCH = 0, TAG_VERSION, TAG_SPHINX_INDEX, TAG_MKDOCS_INDEX };

/* Where the built docs keep their own index, below the version's root. */
#define SPHINX_INDEX "searchindex.js"
#define MKDOCS_INDEX "search/search_index.json"

/* The fallback index: not looked for yet, being fetched, in hand, or
 * found missing (then not asked for again). */
enum index_state { INDEX_NONE, INDEX_FETCHING, INDEX_READY, INDEX_MISSING };
/* Results per answer: a few screens of pages with their sections. */
#define PAGE_SIZE 50

struct line {
	char *text;        /* owned; with html, the API's highlight markup */
	enum ui_slot slot;
	int indent;        /* columns */
	int html;          /* text holds <span> marks and entities */
	char *url;         /* the page it belongs to; owned */
	char *anchor;      /* the section it is, or NULL; owned */
};

struct search {
	char *project;
	char *version;
	char *query;
	long long count;   /* pages found, -1 while asking */
	struct line *lines;
	size_t len, cap;
	char *docs_url;    /* the version's documentation root; owned */
	struct ui_docindex *index;
	enum index_state index_state;
	int from_index;    /* the lines come from the docs' own index */
};

/* The page and section the next lines belong to (owned by the caller). */
struct target {
	const char *url;
	const char *anchor;
};

static void add_line(struct search *s, const struct target *to,
		     enum ui_slot slot, int indent, int html, const char *text)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->lines = ui_xrealloc(s->lines, s->cap * sizeof(*s->lines));
	}
	s->lines[s->len].text = ui_xstrdup(text ? text : "");
	s->lines[s->len].slot = slot;
	s->lines[s->len].indent = indent;
	s->lines[s->len].html = html;
	s->lines[s->len].url = ui_xstrdup(to->url);
	s->lines[s->len].anchor = ui_xstrdup(to->anchor);
	s->len++;
}

static void clear_lines(struct search *s)
{
	size_t i;

	for (i = 0; i < s->len; i++) {
		free(s->lines[i].text);
		free(s->lines[i].url);
		free(s->lines[i].anchor);
	}
	s->len = 0;
}

/* The highlighted form when the API sent one (fragments joined with
 * " ... "), else the plain text. */
static void add_marked(struct search *s, const struct target *to,
		       enum ui_slot slot, int indent,
		       const struct lc_highlights *hl, const char *plain)
{
	struct ui_buf b = UI_BUF_INIT;
	size_t i;

	if (hl->len == 0) {
		add_line(s, to, slot, indent, 0, plain);
		return;
	}
	for (i = 0; i < hl->len; i++)
		ui_buf_printf(&b, "%s%s", i ? " ... " : "", hl->items[i]);
	add_line(s, to, slot, indent, 1, b.ptr);
	ui_buf_dispose(&b);
}

/* A page found: its heading line, then its blocks; each line opens the
 * page (at its section) in the reader. The API gives the page's docs host
 * as "domain" and its path apart. */
static void add_result(struct search *s, const struct lc_search_result *r)
{
	const struct lc_search_block *blk;
	struct target to = { NULL, NULL };
	char *head, *url;
	size_t i;

	url = ui_xasprintf("%s%s", r->domain ? r->domain : "",
			   r->path ? r->path : "");
	to.url = url;
	head = ui_xasprintf("%s  %s", r->title ? r->title : "(untitled)",
			    r->path ? r->path : "");
	add_line(s, &to, UI_SLOT_HEADING, 0, 0, head);
	free(head);
	for (i = 0; i < r->blocks_len; i++) {
		blk = &r->blocks[i];
		to.anchor = blk->id;
		if (blk->name) /* a domain block: an API object */
			add_marked(s, &to, UI_SLOT_CODE, 2, &blk->hl_name,
				   blk->name);
		else
			add_marked(s, &to, UI_SLOT_NORMAL, 2, &blk->hl_title,
				   blk->title);
		if (blk->content && *blk->content)
			add_marked(s, &to, UI_SLOT_DIM, 4, &blk->hl_content,
				   blk->content);
	}
	free(url);
}

static void ask(struct ui_view *v)
{
	struct search *s = v->priv;
	struct lc_query q = { 0 };
	char *path = NULL;

	ui_app_cancel(v->app, v);
	s->count = -1;
	if (s->index_state == INDEX_FETCHING)
		s->index_state = INDEX_NONE;
	/* The hosted service searches on its API host (v3, with the token);
	 * Lectern also answers v2 there, with the token, for private docs. */
	if (lc_client_remote(v->app->client) == LC_REMOTE_SERVICE) {
		if (lc_search_request(v->app->client, s->query, s->project,
				      s->version, 0, PAGE_SIZE, &path, &q) < 0)
			ui_app_error(v->app, "out of memory");
		else
			ui_app_get(v->app, v, TAG_SEARCH, path, &q, NULL);
		goto done;
	}
	if (lc_query_add(&q, "q", s->query) < 0 ||
	    lc_query_add(&q, "project", s->project) < 0 ||
	    lc_query_add(&q, "version", s->version) < 0 ||
	    lc_query_add_int(&q, "page_size", PAGE_SIZE) < 0) {
		ui_app_error(v->app, "out of memory");
		goto done;
	}
	ui_app_get(v->app, v, TAG_SEARCH, "/_/api/v2/search/", &q, NULL);
done:
	free(path);
	lc_query_dispose(&q);
}

/* Lines from the docs' own index for the current query. */
static void search_index(struct ui_view *v)
{
	struct search *s = v->priv;
	struct ui_docindex_results res = { NULL, 0 };
	const struct ui_docindex_result *r;
	const struct ui_docindex_block *blk;
	struct target to = { NULL, NULL };
	char *url, *head;
	size_t i, j;

	clear_lines(s);
	ui_docindex_search(s->index, s->query, PAGE_SIZE, &res);
	for (i = 0; i < res.len; i++) {
		r = &res.items[i];
		url = ui_xasprintf("%s%s", s->docs_url, r->path);
		to.url = url;
		to.anchor = NULL;
		head = ui_xasprintf("%s  %s", r->title ? r->title : "(untitled)",
				    r->path);
		add_line(s, &to, UI_SLOT_HEADING, 0, 0, head);
		free(head);
		for (j = 0; j < r->nblocks; j++) {
			blk = &r->blocks[j];
			to.anchor = blk->id;
			add_line(s, &to, blk->name ? UI_SLOT_CODE : UI_SLOT_NORMAL,
				 2, 0, blk->name ? blk->name : blk->title);
			if (blk->content)
				add_line(s, &to, UI_SLOT_DIM, 4, 0, blk->content);
		}
		free(url);
	}
	s->count = (long long)res.len;
	s->from_index = 1;
	ui_docindex_results_dispose(&res);
	v->lines = s->len;
	ui_view_goto(v, 0);
}

/* The instance found nothing: search the docs' own index, fetching it
 * first (the version's documentation URL, then the index) if need be. */
static void fall_back(struct ui_view *v)
{
	struct search *s = v->priv;
	char *path;

	switch (s->index_state) {
	case INDEX_READY:
		search_index(v);
		return;
	case INDEX_NONE:
		s->index_state = INDEX_FETCHING;
		path = ui_xasprintf("/api/v3/projects/%s/versions/%s/", s->project,
				    s->version);
		ui_app_get(v->app, v, TAG_VERSION, path, NULL, NULL);
		free(path);
		return;
	default:
		return;
	}
}

static void take_version(struct ui_view *v, const cJSON *version)
{
	struct search *s = v->priv;
	const cJSON *urls = cJSON_GetObjectItemCaseSensitive(version, "urls");
	const cJSON *doc = cJSON_GetObjectItemCaseSensitive(urls, "documentation");
	size_t n;
	char *url;

	if (!cJSON_IsString(doc)) {
		s->index_state = INDEX_MISSING;
		return;
	}
	/* The index paths are below the root, which ends in '/'. */
	n = strlen(doc->valuestring);
	free(s->docs_url);
	s->docs_url = ui_xasprintf("%s%s", doc->valuestring,
				   n && doc->valuestring[n - 1] == '/' ? "" : "/");
	url = ui_xasprintf("%s%s", s->docs_url, SPHINX_INDEX);
	ui_app_get(v->app, v, TAG_SPHINX_INDEX, url, NULL, NULL);
	free(url);
}

static void take_index(struct ui_view *v, const struct lc_response *resp)
{
	struct search *s = v->priv;
	char err[256];

	if (ui_docindex_parse(resp->body, resp->body_len, &s->index, err,
			      sizeof(err)) < 0) {
		s->index_state = INDEX_MISSING;
		ui_app_error(v->app, "the docs' own index: %s", err);
		return;
	}
	s->index_state = INDEX_READY;
	search_index(v);
}

static void index_data(struct ui_view *v, int tag, struct lc_response *resp,
		       const struct lc_error *err)
{
	struct search *s = v->priv;
	char *url;

	if (tag == TAG_VERSION && err->code == LC_OK) {
		take_version(v, resp->json);
	} else if (tag == TAG_SPHINX_INDEX && err->code != LC_OK) {
		url = ui_xasprintf("%s%s", s->docs_url, MKDOCS_INDEX);
		ui_app_get(v->app, v, TAG_MKDOCS_INDEX, url, NULL, NULL);
		free(url);
	} else if (tag != TAG_VERSION && err->code == LC_OK) {
		take_index(v, resp);
	} else {
		/* No version to fall back on (an unknown slug, say): why the
		 * search found nothing is worth a line. */
		if (tag == TAG_VERSION)
			ui_app_error(v->app, "%s/%s: %s", s->project, s->version,
				     err->message);
		s->index_state = INDEX_MISSING;
	}
}

static void search_data(struct ui_view *v, int tag, struct lc_response *resp,
			const struct lc_error *err)
{
	struct search *s = v->priv;
	const cJSON *item, *count;
	struct lc_search_result *r;

	if (tag != TAG_SEARCH) {
		index_data(v, tag, resp, err);
		return;
	}
	clear_lines(s);
	s->from_index = 0;
	/* An error is said as one; the docs' own index may still find. */
	if (err->code != LC_OK)
		ui_app_error(v->app, "search: %s", err->message);
	count = err->code == LC_OK
			? cJSON_GetObjectItemCaseSensitive(resp->json, "count")
			: NULL;
	s->count = cJSON_IsNumber(count) ? (long long)count->valuedouble : 0;
	v->lines = 0;
	if (s->count == 0) {
		fall_back(v);
		return;
	}
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(resp->json,
								  "results")) {
		if (lc_search_result_parse(item, &r, NULL) != LC_OK)
			continue;
		add_result(s, r);
		lc_search_result_free(r);
	}
	v->lines = s->len;
	ui_view_goto(v, 0);
}

/* Drawing the API's highlight markup ------------------------------------------ */

static const struct {
	const char *name;
	const char *text;
} entities[] = {
	{ "&amp;", "&" },  { "&lt;", "<" },   { "&gt;", ">" },
	{ "&quot;", "\"" }, { "&#39;", "'" }, { "&#x27;", "'" },
	{ "&#x2F;", "/" },  { "&#47;", "/" },  /* the service escapes '/' too */
};

/* Draw html (text with <span> marks around matches, other tags dropped,
 * the usual entities decoded) from x on line y; the columns used. */
static int draw_marked(WINDOW *w, int y, int x, int width, const char *html,
		       int attr, int match)
{
	struct ui_buf seg = UI_BUF_INIT;
	int used = 0, in_match = 0;
	const char *p = html, *end;
	size_t i, n;

	while (*p && used < width) {
		if (*p == '<' && (end = strchr(p, '>'))) {
			ui_draw_text(w, y, x + used, width - used, seg.ptr ? seg.ptr : "",
				     in_match ? match : attr);
			used += ui_text_width(seg.ptr);
			ui_buf_dispose(&seg);
			if (strncmp(p, "<span", 5) == 0)
				in_match = 1;
			else if (strncmp(p, "</span", 6) == 0)
				in_match = 0;
			p = end + 1;
			continue;
		}
		for (i = 0, n = 0; *p == '&' && i < sizeof(entities) / sizeof(entities[0]); i++)
			if (strncmp(p, entities[i].name, strlen(entities[i].name)) == 0) {
				ui_buf_puts(&seg, entities[i].text);
				n = strlen(entities[i].name);
				break;
			}
		if (n == 0) {
			ui_buf_add(&seg, p, 1);
			n = 1;
		}
		p += n;
	}
	if (seg.ptr && used < width) {
		ui_draw_text(w, y, x + used, width - used, seg.ptr,
			     in_match ? match : attr);
		used += ui_text_width(seg.ptr);
	}
	ui_buf_dispose(&seg);
	return used;
}

/* Ops -------------------------------------------------------------------------------- */

/* What the header says about where the results come from. */
static const char *source(const struct search *s)
{
	if (!s->from_index)
		return "";
	return ui_docindex_format(s->index) == UI_DOCINDEX_SPHINX
		       ? " (the docs' own " SPHINX_INDEX ")"
		       : " (the docs' own " MKDOCS_INDEX ")";
}

static int search_header(struct ui_view *v, WINDOW *w, int width)
{
	struct search *s = v->priv;
	char *text;

	text = s->count < 0
		       ? ui_xasprintf("Searching %s/%s for \"%s\"...", s->project,
				      s->version, s->query)
		       : ui_xasprintf("%lld page%s of %s/%s for \"%s\"%s", s->count,
				      s->count == 1 ? "" : "s", s->project,
				      s->version, s->query, source(s));
	ui_draw_fill(w, 0, 0, width, ui_attr(UI_SLOT_HEADER));
	ui_draw_text(w, 0, 0, width, text, ui_attr(UI_SLOT_HEADER));
	free(text);
	ui_draw_hline(w, 1, 0, width, ui_attr(UI_SLOT_BORDER));
	return 2;
}

static void search_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		       int selected)
{
	struct search *s = v->priv;
	const struct line *l = &s->lines[n];
	int base = ui_attr(selected ? UI_SLOT_CURSOR : UI_SLOT_NORMAL);
	int attr = selected ? base : ui_attr(l->slot);
	int room = width - l->indent;

	ui_draw_fill(w, y, 0, width, base);
	if (room <= 0)
		return;
	if (l->html)
		draw_marked(w, y, l->indent, room, l->text, attr,
			    selected ? base : ui_attr(UI_SLOT_MATCH));
	else
		ui_draw_text(w, y, l->indent, room, l->text, attr);
}

static void search_filter(struct ui_view *v, const char *text)
{
	struct search *s = v->priv;

	/* An emptied query keeps the last one: there is nothing to search
	 * for, and the results stay useful. */
	if (text == NULL || *text == '\0' || strcmp(text, s->query) == 0) {
		ui_set_str(&v->filter, s->query);
		return;
	}
	ui_set_str(&s->query, text);
	ask(v);
}

static void search_open(struct ui_view *v)
{
	struct search *s = v->priv;

	/* `/` starts from the query, and Esc there comes back to it. */
	ui_set_str(&v->filter, s->query);
	ask(v);
}

static int search_action(struct ui_view *v, enum ui_action action)
{
	struct search *s = v->priv;
	const struct line *l;

	switch (action) {
	case UI_ACTION_OPEN:
		if (v->cursor < s->len) {
			l = &s->lines[v->cursor];
			ui_app_push(v->app, v->app->screens->reader(
						    v->app, l->url, l->anchor));
		}
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		ask(v);
		return UI_HANDLED;
	default:
		return UI_PASS;
	}
}

static void search_close(struct ui_view *v)
{
	struct search *s = v->priv;

	clear_lines(s);
	free(s->lines);
	ui_docindex_free(s->index);
	free(s->docs_url);
	free(s->project);
	free(s->version);
	free(s->query);
	free(s);
}

static const char *search_project(struct ui_view *v)
{
	struct search *s = v->priv;

	return s->project;
}

static const struct ui_view_ops search_ops = {
	.name = "search",
	.kind = UI_VIEW_SEARCH,
	.open = search_open,
	.close = search_close,
	.draw_header = search_header,
	.draw_row = search_row,
	.on_action = search_action,
	.on_data = search_data,
	.filter = search_filter,
	.keeps_filter = 1,
	.project = search_project,
};

struct ui_view *ui_search_new(struct ui_app *app, const char *project,
			      const char *version, const char *query)
{
	struct search *s = ui_xcalloc(1, sizeof(*s));
	char title[128];

	s->project = ui_xstrdup(project);
	/* What the service's search calls a project's default. */
	s->version = ui_xstrdup(version ? version : "latest");
	s->query = ui_xstrdup(query);
	s->count = -1;
	snprintf(title, sizeof(title), "Search: %s", project);
	return ui_view_new(app, &search_ops, title, s);
}
