/*
 * A site's pages, as a browser user finds them: the links of the page's
 * navigation (the sidebar, nav bar or toctree the reader's layout strips
 * or shows), so a reader can walk a whole site offline, whether or not a
 * page links to the others in its text. Where that navigation is thin (a
 * Sphinx theme whose sidebar has only the page's own contents, a page
 * with no navigation at all) and the page names its site's root, the
 * list is the site's own page list instead: its search index
 * (searchindex.js, else search/search_index.json), fetched once when the
 * screen opens. Enter reads the selected page in place of this list; `/`
 * filters it. An address is shown from the site's root (the directory the
 * pages share, named above the list), so it fits at 80 columns; one that
 * is still cut is shown whole under the list when selected.
 */
#include <stdlib.h>
#include <string.h>

#include "../app.h"
#include "../docindex.h"
#include "../draw.h"
#include "../table.h"
#include "client.h"

/* A navigation that lists fewer pages than this is a page's neighbours
 * (Sphinx's previous, next and parent links), not its site's: the site's
 * own list is asked for, and used when it has more. */
#define SITE_NAV_MIN 4
/* The site's page lists, from its root. */
#define SPHINX_INDEX "searchindex.js"
#define MKDOCS_INDEX "search/search_index.json"

enum { TAG_SPHINX = 0, TAG_MKDOCS };

struct pages {
	struct ui_table table; /* row key: the page's absolute URL */
	char *root;            /* where the addresses are from; owned */
	char *page;            /* the reader's page (marked); owned */
	char *index_root;      /* the site's root URL, or NULL; owned */
	int fetching;          /* the site's index is on its way */
	int no_list;           /* ... and the site has none */
};

static const struct ui_column columns[] = {
	{ "Page", 34 }, { "Address", 0 },
};

/* Bytes of the directory all n urls share ("http://h/en/latest/"). */
static size_t common_root(char *const *urls, size_t n)
{
	size_t len, i, j;

	if (n == 0)
		return 0;
	len = strlen(urls[0]);
	for (i = 1; i < n; i++) {
		for (j = 0; j < len && urls[i][j] == urls[0][j]; j++)
			;
		len = j;
	}
	while (len > 0 && urls[0][len - 1] != '/')
		len--;
	return len;
}

/* The rows: n pages (titles[i] at urls[i]), the reader's page marked and
 * the cursor on it. */
static void fill(struct ui_view *v, char *const *titles, char *const *urls,
		 size_t n)
{
	struct pages *ps = v->priv;
	struct ui_row *row;
	size_t i, root = common_root(urls, n), current = n;

	ui_table_clear(&ps->table);
	free(ps->root);
	ps->root = ui_xstrndup(n ? urls[0] : "", root);
	for (i = 0; i < n; i++) {
		if (current == n && ps->page && strcmp(urls[i], ps->page) == 0)
			current = i;
		row = ui_table_add(&ps->table);
		row->key = ui_xstrdup(urls[i]);
		ui_row_set(row, 0, i == current ? UI_SLOT_HEADING : UI_SLOT_NORMAL,
			   "%s", titles[i]);
		/* The root's own page is "./". */
		ui_row_set(row, 1, UI_SLOT_DIM, "%s",
			   urls[i][root] ? urls[i] + root : "./");
	}
	ui_table_filter(&ps->table, ps->table.filter);
	v->lines = ps->table.nshown;
	ui_view_goto(v, current < n ? current : 0);
}

/* The site's index: its pages replace a thinner navigation. */
static void take_index(struct ui_view *v, const struct lc_response *resp)
{
	struct pages *ps = v->priv;
	struct ui_docindex *idx = NULL;
	struct ui_docindex_results list = { NULL, 0 };
	char err[256], **titles, **urls;
	size_t i, n;

	if (ui_docindex_parse(resp->body, resp->body_len, &idx, err,
			      sizeof(err)) < 0) {
		ps->no_list = 1;
		ui_app_error(v->app, "the site's page list: %s", err);
		return;
	}
	n = ui_docindex_pages(idx, &list);
	if (n > ps->table.len) {
		titles = ui_xcalloc(n, sizeof(*titles));
		urls = ui_xcalloc(n, sizeof(*urls));
		for (i = 0; i < n; i++) {
			titles[i] = list.items[i].title;
			urls[i] = ui_xasprintf("%s%s", ps->index_root,
					       list.items[i].path);
		}
		fill(v, titles, urls, n);
		for (i = 0; i < n; i++)
			free(urls[i]);
		free(urls);
		free(titles);
		ui_app_message(v->app, "the site's pages, from its search "
				       "index (%zu)", n);
	}
	ui_docindex_results_dispose(&list);
	ui_docindex_free(idx);
}

static void pages_data(struct ui_view *v, int tag, struct lc_response *resp,
		       const struct lc_error *err)
{
	struct pages *ps = v->priv;
	char *url;

	if (err->code == LC_OK) {
		ps->fetching = 0;
		take_index(v, resp);
		return;
	}
	if (tag == TAG_SPHINX) {
		url = ui_xasprintf("%s%s", ps->index_root, MKDOCS_INDEX);
		ui_app_get(v->app, v, TAG_MKDOCS, url, NULL, NULL);
		free(url);
		return;
	}
	ps->fetching = 0;
	ps->no_list = 1;
}

static void pages_open(struct ui_view *v)
{
	struct pages *ps = v->priv;
	char *url;

	if (ps->index_root == NULL || ps->table.len >= SITE_NAV_MIN)
		return;
	ps->fetching = 1;
	url = ui_xasprintf("%s%s", ps->index_root, SPHINX_INDEX);
	ui_app_get(v->app, v, TAG_SPHINX, url, NULL, NULL);
	free(url);
}

static void pages_close(struct ui_view *v)
{
	struct pages *ps = v->priv;

	ui_table_dispose(&ps->table);
	free(ps->root);
	free(ps->page);
	free(ps->index_root);
	free(ps);
}

static int pages_header(struct ui_view *v, WINDOW *w, int width)
{
	struct pages *ps = v->priv;
	char *text;

	if (ps->table.len > 0)
		text = ui_xasprintf("Addresses from %s", ps->root);
	else if (ps->fetching)
		text = ui_xasprintf("Reading the site's page list from %s ...",
				    ps->index_root);
	else
		text = ui_xstrdup("This page has no site navigation, and its "
				  "site no page list (searchindex.js or "
				  "search/search_index.json)");
	ui_draw_text(w, 0, 0, width, text, ui_attr(UI_SLOT_DIM));
	free(text);
	ui_table_draw_header(&ps->table, w, 1, width);
	return 2;
}

static void pages_row(struct ui_view *v, WINDOW *w, int y, int width,
		      size_t n, int selected)
{
	struct pages *ps = v->priv;

	ui_table_draw_row(&ps->table, w, y, width, n, selected);
}

/* The selected page's whole address when its column cuts it. */
static int pages_footer(struct ui_view *v, WINDOW *w, int y, int width)
{
	struct pages *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);
	int lines;

	if (row == NULL || row->cells[1] == NULL ||
	    ui_text_width(row->cells[1]) <=
		    ui_table_col_width(&ps->table, 1, width))
		return 0;
	lines = ui_draw_wrapped(NULL, 0, 0, width, 2, row->key, 0);
	if (w) {
		ui_draw_hline(w, y, 0, width, ui_attr(UI_SLOT_BORDER));
		ui_draw_wrapped(w, y + 1, 0, width, 2, row->key,
				ui_attr(UI_SLOT_DIM));
	}
	return 1 + lines;
}

static int pages_action(struct ui_view *v, enum ui_action action)
{
	struct pages *ps = v->priv;
	const struct ui_row *row = ui_table_row(&ps->table, v->cursor);
	char *url, *hash;

	if (action != UI_ACTION_OPEN)
		return UI_PASS;
	if (row == NULL)
		return UI_HANDLED;
	url = ui_xstrdup(row->key);
	if ((hash = strchr(url, '#')) != NULL)
		*hash++ = '\0';
	ui_app_replace(v->app, v, v->app->screens->reader(v->app, url, hash));
	free(url);
	return UI_HANDLED;
}

static void pages_filter(struct ui_view *v, const char *text)
{
	struct pages *ps = v->priv;

	ui_table_filter(&ps->table, text);
	v->lines = ps->table.nshown;
}

static const char *pages_site(const struct ui_view *v)
{
	const struct pages *ps = v->priv;

	return ps->root;
}

static const struct ui_view_ops pages_ops = {
	.name = "pages",
	.kind = UI_VIEW_PAGES,
	.open = pages_open,
	.close = pages_close,
	.draw_header = pages_header,
	.draw_row = pages_row,
	.draw_footer = pages_footer,
	.on_action = pages_action,
	.on_data = pages_data,
	.filter = pages_filter,
	.site = pages_site,
};

struct ui_view *ui_pages_new(struct ui_app *app, const char *site,
			     char *const *titles, char *const *urls, size_t n,
			     const char *page, const char *index_root)
{
	struct pages *ps = ui_xcalloc(1, sizeof(*ps));
	struct ui_view *v;
	char *title = ui_xasprintf("Pages: %s", site);

	ui_table_init(&ps->table, columns, sizeof(columns) / sizeof(columns[0]));
	ps->page = ui_xstrdup(page);
	ps->index_root = ui_xstrdup(index_root);
	v = ui_view_new(app, &pages_ops, title, ps);
	fill(v, titles, urls, n);
	free(title);
	return v;
}
