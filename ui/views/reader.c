/*
 * The reader: a built documentation page fetched from its docs host and
 * laid out for the terminal by render.c (chrome stripped, headings,
 * unwrapped code, tables, admonitions, numbered links). It opens at the
 * section a search hit named, scrolls sideways for long code lines, and
 * follows links: Tab selects the next one, typing its number selects that
 * one, Enter follows it (a "#id" within the page, any other in a new
 * reader), `o` hands the page to $BROWSER. A resize lays the page out
 * again for the new width. `]` and `[` move to the next and previous
 * page in the site's order and `p` lists the site's pages (its
 * navigation, which the layout strips), so a whole site can be read.
 *
 * A reader on the page of the TUI's running preview (`:preview`) polls the
 * preview's status API every PREVIEW_POLL_MS. When a new build is
 * published it fetches its page again and lays it out where the reader
 * was (the same first line and cursor line, clamped to the new length),
 * so the writer stays on the page being written; a failed build leaves
 * the page as it was and says why in the status line. A change to another
 * page's source does not move the reader: it stays on its page. The
 * header counts the last build's warnings, and `W` lists them.
 *
 * `/` finds text in the page as it is typed (case-insensitive), the
 * matches in the match colour, the cursor on the first line at or after
 * it that has one; n and N go to the next and previous such line,
 * wrapping round.
 *
 * `C` compares the page with the same page of the project's default
 * version through the page-diff API (docs/api.md "Page diffs") and marks
 * the headings of the sections that changed in the left margin: `~`
 * changed, `+` new; the status line counts them and the removed ones.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../addons.h"
#include "../app.h"
#include "../draw.h"
#include "../render.h"
#include "../theme.h"
#include "client.h"
#include "warnings.h"

enum {
	TAG_PAGE = 0,
	TAG_RELOAD,
	TAG_STATUS,
	TAG_CMP_PROJECT,
	TAG_CMP_DIFF,
	TAG_ADDONS
};
/* How often a preview's reader asks whether a new build is out: the
 * issue's target is a save visible within 300 ms, of which the build
 * takes about 100; a loopback status request costs well under 1 ms. */
#define PREVIEW_POLL_MS 100
/* The preview's status API, under its origin. */
#define PREVIEW_STATUS "_/preview/status"
/* Digits of a typed link number. */
#define MAX_DIGITS 6
/* The widest a page is laid out, whatever the screen's width: prose
 * running across a 200-column terminal is hard to follow from one line
 * to the next (a docs theme in a browser keeps about this measure too).
 * Code lines pass it unwrapped, as at any width. */
#define READER_MEASURE 100

struct reader {
	char *url;       /* the page, without its fragment */
	char *anchor;    /* element id to open at, or NULL */
	char *html;      /* kept to lay the page out again on resize */
	size_t html_len;
	struct ui_page *page;
	int width;       /* of the screen at the last draw */
	int laid_out;    /* the width the page was laid out for */
	int hscroll;
	size_t link;     /* the selected link's number, 0: none */
	char digits[MAX_DIGITS + 1];
	char *origin;    /* the preview's URL when on one, else NULL */
	long long published;  /* the preview's build the page came from */
	long long generation; /* the preview's last finished build seen */
	struct ui_warnings warnings; /* the preview's last build's (W) */
	/* `C`: the page as the API names it, and what it found. */
	char *cmp_project, *cmp_version, *cmp_page;
	char *cmp_base;       /* the version compared with */
	struct changed {
		char *id;
		char mark;    /* '~' changed, '+' new */
	} *changed;
	size_t nchanged;
	char *find;           /* the `/` text, or NULL */
	/* What the docs host's /_/addons/ says of the page: its notice (a
	 * header line), `s` and `v` (issue 39). Empty until it answers, and
	 * for a preview or an instance without it. */
	struct ui_addons addons;
};

static enum ui_slot style_slot(enum ui_render_style style)
{
	switch (style) {
	case UI_RENDER_HEADING1:
	case UI_RENDER_HEADING2:
	case UI_RENDER_HEADING3:
	case UI_RENDER_HEADING4:
	case UI_RENDER_HEADING5:
	case UI_RENDER_HEADING6:
	case UI_RENDER_ADMONITION_TITLE:
		return UI_SLOT_HEADING;
	case UI_RENDER_CODE:
		return UI_SLOT_CODE;
	case UI_RENDER_LINK:
		return UI_SLOT_LINK;
	case UI_RENDER_DIM:
		return UI_SLOT_DIM;
	case UI_RENDER_BORDER:
		return UI_SLOT_BORDER;
	default:
		return UI_SLOT_NORMAL;
	}
}

static int style_attr(enum ui_render_style style)
{
	int extra = style == UI_RENDER_STRONG     ? A_BOLD
		    : style == UI_RENDER_EMPHASIS ? A_ITALIC
						  : A_NORMAL;

	return ui_attr(style_slot(style)) | extra;
}

/* `C`'s answers (below). */
static void compare_project(struct ui_view *v, struct lc_response *resp);
static void compare_diff(struct ui_view *v, struct lc_response *resp);
static void addons_fetch(struct ui_view *v);

/* Laying out --------------------------------------------------------------------- */

static void layout(struct ui_view *v)
{
	struct reader *r = v->priv;
	/* Before the first draw the screen's width is the best guess. */
	int width = r->width > 0 ? r->width : COLS;
	/* The first column is the cursor's bar. */
	struct ui_render_opts opts = { width - 1 < READER_MEASURE
					       ? width - 1
					       : READER_MEASURE,
				       !ui_draw_utf8() };
	struct ui_page *page = NULL;
	char err[256];
	long at;

	if (r->html == NULL)
		return;
	if (ui_render_html(r->html, r->html_len, &opts, &page, err,
			   sizeof(err)) < 0) {
		ui_app_error(v->app, "%s: %s", r->url, err);
		return;
	}
	/* Keep the cursor where it was, as a share of the page. */
	at = r->page && r->page->nlines
		     ? (long)(v->cursor * page->nlines / r->page->nlines)
		     : 0;
	ui_page_free(r->page);
	r->page = page;
	r->laid_out = width;
	v->lines = page->nlines;
	ui_view_goto(v, (size_t)at);
}

/* The same page, built again: laid out at the same place (clamped). */
static void reload_data(struct ui_view *v, struct lc_response *resp)
{
	struct reader *r = v->priv;
	size_t top = v->top, cursor = v->cursor;

	free(r->html);
	r->html = resp->body;
	r->html_len = resp->body_len;
	resp->body = NULL;
	layout(v);
	v->top = top;
	v->cursor = cursor;
	ui_view_clamp(v);
	ui_app_message(v->app, "preview: build %lld", r->published);
}

/* The preview's status: fetch the page again once a newer build is
 * published; report a failed build once. */
static void status_data(struct ui_view *v, struct lc_response *resp)
{
	struct reader *r = v->priv;
	cJSON *json = cJSON_ParseWithLength(resp->body, resp->body_len);
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(json, "state");
	const cJSON *published = cJSON_GetObjectItemCaseSensitive(json, "published");
	const cJSON *generation = cJSON_GetObjectItemCaseSensitive(json, "generation");
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
	long long gen, pub;

	if (!cJSON_IsString(state) || !cJSON_IsNumber(published) ||
	    !cJSON_IsNumber(generation)) {
		ui_app_error(v->app, "%s%s: not a preview status", r->origin,
			     PREVIEW_STATUS);
		goto done;
	}
	gen = (long long)generation->valuedouble;
	pub = (long long)published->valuedouble;
	if (gen > r->generation && strcmp(state->valuestring, "failed") == 0)
		ui_app_error(v->app, "preview: build %lld failed: %s", gen,
			     cJSON_IsString(error) ? error->valuestring : "?");
	if (strcmp(state->valuestring, "building") != 0) {
		r->generation = gen;
		ui_warnings_set_counts(&r->warnings,
				       cJSON_GetObjectItemCaseSensitive(
					       json, "warning_counts"));
		ui_warnings_set_records(&r->warnings,
					cJSON_GetObjectItemCaseSensitive(
						json, "warnings"));
	}
	/* A fetch still under way carries the older build: ask again at the
	 * next poll rather than twice at once. */
	if (pub > r->published && !ui_app_pending(v->app, v, TAG_PAGE) &&
	    !ui_app_pending(v->app, v, TAG_RELOAD)) {
		r->published = pub;
		/* The first page opens at its anchor, later ones in place. */
		ui_app_get(v->app, v, r->page ? TAG_RELOAD : TAG_PAGE, r->url,
			   NULL, NULL);
	}
done:
	cJSON_Delete(json);
}

static void reader_data(struct ui_view *v, int tag, struct lc_response *resp,
			const struct lc_error *err)
{
	struct reader *r = v->priv;
	long line;

	/* An instance without the addons (the hosted service's docs hosts
	 * answer them, older Lectern ones do not) leaves the page as it is. */
	if (tag == TAG_ADDONS) {
		ui_addons_dispose(&r->addons);
		if (err->code == LC_OK)
			ui_addons_read(resp->body, resp->body_len, &r->addons);
		return;
	}
	if (err->code != LC_OK) {
		ui_app_error(v->app, "%s: %s",
			     tag == TAG_STATUS ? r->origin : r->url,
			     err->message);
		return;
	}
	if (tag == TAG_STATUS) {
		status_data(v, resp);
		return;
	}
	if (tag == TAG_RELOAD) {
		reload_data(v, resp);
		return;
	}
	if (tag == TAG_CMP_PROJECT) {
		compare_project(v, resp);
		return;
	}
	if (tag == TAG_CMP_DIFF) {
		compare_diff(v, resp);
		return;
	}
	free(r->html);
	r->html = resp->body;
	r->html_len = resp->body_len;
	resp->body = NULL;
	layout(v);
	if (r->page && r->anchor &&
	    (line = ui_page_anchor(r->page, r->anchor)) >= 0) {
		/* The section's heading at the top of the screen. */
		v->top = (size_t)line;
		ui_view_goto(v, (size_t)line);
	}
	if (r->origin == NULL)
		addons_fetch(v);
}

/* Addons ---------------------------------------------------------------------------- */

/* Ask the page's docs host what its addons say of it. */
static void addons_fetch(struct ui_view *v)
{
	struct reader *r = v->priv;
	const char *host = strstr(r->url, "://");
	const char *path = host ? strchr(host + 3, '/') : NULL;
	struct lc_query q = { 0 };
	char *url;

	if (path == NULL)
		return;
	url = ui_xasprintf("%.*s/_/addons/", (int)(path - r->url), r->url);
	if (lc_query_add(&q, "api-version", "1") == 0 &&
	    lc_query_add(&q, "client-version", "lectern-tui") == 0 &&
	    lc_query_add(&q, "url", r->url) == 0)
		ui_app_get(v->app, v, TAG_ADDONS, url, &q, NULL);
	lc_query_dispose(&q);
	free(url);
}

/* `v`: the versions of this page, each at the same page. */
static void list_versions(struct ui_view *v)
{
	struct reader *r = v->priv;
	const struct ui_addons *a = &r->addons;

	if (a->nversions == 0) {
		ui_app_error(v->app, "no other versions known for this page");
		return;
	}
	ui_app_push(v->app, v->app->screens->pages(v->app, "versions",
						   a->titles, a->urls,
						   a->nversions,
						   a->current < a->nversions
							   ? a->urls[a->current]
							   : NULL,
						   NULL));
}

/* `s`: this page in the stable version, in this reader's place. */
static void to_stable(struct ui_view *v)
{
	struct reader *r = v->priv;

	if (r->addons.stable_url == NULL) {
		ui_app_error(v->app, "no stable version to go to");
		return;
	}
	ui_app_replace(v->app, v,
		       ui_reader_new(v->app, r->addons.stable_url, NULL));
}

/* Links ------------------------------------------------------------------------------ */

/* The line link n's "[n]" mark is on, or -1. */
static long link_line(const struct ui_page *page, size_t n)
{
	char mark[32];
	const struct ui_line *l;
	size_t i, j, mlen;
	const char *at;

	snprintf(mark, sizeof(mark), "[%zu]", n);
	mlen = strlen(mark);
	for (i = 0; i < page->nlines; i++) {
		l = &page->lines[i];
		for (j = 0; j < l->nspans; j++) {
			if (l->spans[j].style != UI_RENDER_LINK)
				continue;
			at = memmem(l->text + l->spans[j].off, l->spans[j].len,
				    mark, mlen);
			if (at)
				return (long)i;
		}
	}
	return -1;
}

static void select_link(struct ui_view *v, size_t n)
{
	struct reader *r = v->priv;
	const struct ui_link *link = r->page ? ui_page_link(r->page, n) : NULL;
	long line;

	if (link == NULL) {
		ui_app_error(v->app, "no link %zu", n);
		return;
	}
	r->link = n;
	if ((line = link_line(r->page, n)) >= 0)
		ui_view_goto(v, (size_t)line);
	ui_app_message(v->app, "[%zu] %s (Enter follows)", n, link->href);
}

/* href (relative to the page, absolute, or "/path") as an absolute URL;
 * owned. A base without a path (the reader never has one) leaves href as
 * it is. */
static char *resolve(const char *base, const char *href)
{
	const char *scheme_end = strstr(base, "://");
	const char *path = scheme_end ? strchr(scheme_end + 3, '/') : NULL;
	struct ui_buf b = UI_BUF_INIT;
	char *out, *dots;
	size_t keep;

	if (strstr(href, "://") || path == NULL)
		return ui_xstrdup(href);
	if (href[0] == '/') {
		ui_buf_add(&b, base, (size_t)(path - base));
		ui_buf_puts(&b, href);
		return ui_buf_take(&b);
	}
	keep = (size_t)(strrchr(base, '/') - base) + 1;
	ui_buf_add(&b, base, keep);
	ui_buf_puts(&b, href);
	out = ui_buf_take(&b);
	/* Fold "dir/../" and "./" out of the path part. */
	while ((dots = strstr(out + (path - base), "/../"))) {
		char *prev = dots;

		while (prev > out + (path - base) && *--prev != '/')
			;
		memmove(prev, dots + 3, strlen(dots + 3) + 1);
	}
	while ((dots = strstr(out + (path - base), "/./")))
		memmove(dots, dots + 2, strlen(dots + 2) + 1);
	/* A last "/.." or "/." (MkDocs links its home as ".."). */
	keep = strlen(out);
	if (keep >= 3 && strcmp(out + keep - 3, "/..") == 0 &&
	    keep - 3 > (size_t)(path - base)) {
		out[keep - 3] = '\0';
		if ((dots = strrchr(out + (path - base), '/')) != NULL)
			dots[1] = '\0';
	} else if (keep >= 2 && strcmp(out + keep - 2, "/.") == 0) {
		out[keep - 1] = '\0';
	}
	return out;
}

static void follow(struct ui_view *v, size_t n)
{
	struct reader *r = v->priv;
	const struct ui_link *link = r->page ? ui_page_link(r->page, n) : NULL;
	char *url, *hash;
	long line;

	if (link == NULL) {
		ui_app_error(v->app, "no link selected (Tab selects one)");
		return;
	}
	if (link->href[0] == '#') {
		if ((line = ui_page_anchor(r->page, link->href + 1)) < 0) {
			ui_app_error(v->app, "no %s on this page", link->href);
			return;
		}
		v->top = (size_t)line;
		ui_view_goto(v, (size_t)line);
		return;
	}
	url = resolve(r->url, link->href);
	hash = strchr(url, '#');
	if (hash)
		*hash++ = '\0';
	ui_app_push(v->app, ui_reader_new(v->app, url, hash));
	free(url);
}

/* Read the page at href (relative to this one) in this reader's place,
 * as a browser moves on; "what" names it when there is none. */
static void move_to(struct ui_view *v, const char *href, const char *what)
{
	struct reader *r = v->priv;
	char *url, *hash;

	if (href == NULL) {
		ui_app_error(v->app, "%s", what);
		return;
	}
	url = resolve(r->url, href);
	if ((hash = strchr(url, '#')) != NULL)
		*hash++ = '\0';
	ui_app_replace(v->app, v, ui_reader_new(v->app, url, hash));
	free(url);
}

/* The site's root URL as the page names it, ending in '/'; owned, or
 * NULL when the page does not say. */
static char *site_root(const struct reader *r)
{
	const char *root = r->page->root;
	size_t n;
	char *rel, *url;

	if (root == NULL)
		return NULL;
	n = strlen(root);
	rel = ui_xasprintf("%s%s", root, n == 0 || root[n - 1] == '/' ? "" : "/");
	url = resolve(r->url, *rel ? rel : "./");
	free(rel);
	return url;
}

/* The site's pages from this page's navigation, in a list of their own
 * (which asks the site's own page list when the navigation is thin). */
static void list_pages(struct ui_view *v)
{
	struct reader *r = v->priv;
	const struct ui_page *p = r->page;
	char **titles, **urls, *root;
	size_t i;

	if (p == NULL || (p->npages == 0 && p->root == NULL)) {
		ui_app_error(v->app, "this page has no site navigation, and "
				     "names no site root to list the pages of");
		return;
	}
	titles = ui_xcalloc(p->npages + 1, sizeof(*titles));
	urls = ui_xcalloc(p->npages + 1, sizeof(*urls));
	for (i = 0; i < p->npages; i++) {
		titles[i] = p->pages[i].text;
		urls[i] = resolve(r->url, p->pages[i].href);
	}
	root = site_root(r);
	ui_app_push(v->app, v->app->screens->pages(v->app, p->title, titles,
						   urls, p->npages, r->url,
						   root));
	free(root);
	for (i = 0; i < p->npages; i++)
		free(urls[i]);
	free(urls);
	free(titles);
}

/* url through a forwarded port (lc_url_with_port); owned. */
static char *with_port(const char *url, int port)
{
	char *out = lc_url_with_port(url, port);

	return out ? out : ui_xstrdup(url);
}

/* Through an ssh context the page is on the remote engine, which no
 * browser here reaches: say how to forward a port to it, the page's
 * address through that port, and that `O` does it. */
static void say_forward(struct ui_view *v, const char *hint)
{
	struct reader *r = v->priv;
	char *url, *command;

	if (strstr(hint, "PORT") == NULL)
		return;
	url = lc_url_with_port(r->url, LC_FORWARD_PORT);
	command = lc_forward_command(hint, LC_FORWARD_PORT);
	/* The command first: an 80-column status line may cut the rest. */
	if (url && command)
		ui_app_message(v->app, "%s, then open %s (or O: forward a "
			       "port now)", command, url);
	free(url);
	free(command);
}

/* Hand url to $BROWSER, detached: the TUI neither waits for it nor lets
 * it write on the screen. */
static void launch_browser(struct ui_view *v, const char *url)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) < 0) {
		ui_app_error(v->app, "cannot start $BROWSER");
		return;
	}
	if (pid == 0) {
		/* The middle child exits at once, so the browser is
		 * reparented and never left a zombie of ours. */
		if (fork() != 0)
			_exit(0);
		setsid();
		fd = open("/dev/null", O_RDWR);
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execl("/bin/sh", "sh", "-c", "$BROWSER \"$1\"", "sh", url,
		      (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	ui_app_message(v->app, "opened %s in $BROWSER", url);
}

static int have_browser(void)
{
	const char *browser = getenv("BROWSER");

	return browser && *browser;
}

/* `o`: the page in $BROWSER; through an ssh context, through the port
 * `O` forwarded, else what to forward. */
static void open_browser(struct ui_view *v)
{
	struct reader *r = v->priv;
	const struct ui_conn *conn = &v->app->conn;
	char *url;

	if (conn->forward_hint && conn->forward_port == 0) {
		say_forward(v, conn->forward_hint);
		return;
	}
	if (!have_browser()) {
		ui_app_error(v->app, "set $BROWSER to open pages in a browser");
		return;
	}
	url = conn->forward_port ? with_port(r->url, conn->forward_port)
				 : ui_xstrdup(r->url);
	launch_browser(v, url);
	free(url);
}

/* `O`: through an ssh context, forward a free local port to the remote
 * engine (once; it lasts until the TUI quits), then open the page through
 * it, or say its address when there is no $BROWSER. Only the local ssh
 * master is asked, so this does not wait on the network. */
static void forward_and_open(struct ui_view *v)
{
	struct reader *r = v->priv;
	struct ui_app *app = v->app;
	char err[256], *url;
	int port;

	if (app->conn.forward_hint == NULL || app->start->forward == NULL) {
		ui_app_message(app, "no forward needed here: o opens the page");
		return;
	}
	if (app->conn.forward_port == 0) {
		port = app->start->forward(app->start->payload, &app->conn, err,
					   sizeof(err));
		if (port < 0) {
			ui_app_error(app, "cannot forward a port: %s", err);
			return;
		}
		app->conn.forward_port = port;
	}
	if (have_browser()) {
		open_browser(v);
		return;
	}
	url = with_port(r->url, app->conn.forward_port);
	ui_app_message(app, "forwarded 127.0.0.1:%d to the remote engine; "
		       "open %s", app->conn.forward_port, url);
	free(url);
}

/* Comparing with the default version ------------------------------------------- */

static void changed_clear(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nchanged; i++)
		free(r->changed[i].id);
	free(r->changed);
	r->changed = NULL;
	r->nchanged = 0;
}

/* The project, version and page path of a docs URL
 * (scheme://<project>.<domain>/<lang>/<version>/<page>); 0, or -1 when
 * the URL is not laid out so. */
static int docs_parts(struct reader *r)
{
	const char *host = strstr(r->url, "://"), *dot, *path, *lang_end,
		   *ver_end;

	if (host == NULL)
		return -1;
	host += 3;
	dot = strchr(host, '.');
	path = strchr(host, '/');
	if (dot == NULL || path == NULL || dot > path ||
	    (lang_end = strchr(path + 1, '/')) == NULL ||
	    (ver_end = strchr(lang_end + 1, '/')) == NULL ||
	    ver_end == lang_end + 1)
		return -1;
	free(r->cmp_project);
	r->cmp_project = ui_xstrndup(host, (size_t)(dot - host));
	free(r->cmp_version);
	r->cmp_version = ui_xstrndup(lang_end + 1,
				     (size_t)(ver_end - lang_end - 1));
	free(r->cmp_page);
	/* A directory's page is its index. */
	r->cmp_page = ui_xasprintf("%s%s", ver_end + 1,
				   ver_end[strlen(ver_end) - 1] == '/'
					   ? "index.html"
					   : "");
	return 0;
}

static void compare_start(struct ui_view *v)
{
	struct reader *r = v->priv;
	char *path;

	if (r->page == NULL || r->origin || docs_parts(r) < 0) {
		ui_app_error(v->app, "only a page of a project's docs can be "
				     "compared");
		return;
	}
	path = ui_xasprintf("/api/v3/projects/%s/", r->cmp_project);
	ui_app_get(v->app, v, TAG_CMP_PROJECT, path, NULL, NULL);
	free(path);
}

static void compare_project(struct ui_view *v, struct lc_response *resp)
{
	struct reader *r = v->priv;
	struct lc_project *p = NULL;
	struct lc_query q = { 0 };
	char *path = NULL;

	if (lc_project_parse(resp->json, &p, NULL) != LC_OK ||
	    p->default_version == NULL) {
		ui_app_error(v->app, "%s: no default version to compare with",
			     r->cmp_project);
	} else if (strcmp(p->default_version, r->cmp_version) == 0) {
		ui_app_error(v->app, "this page is of the default version (%s): "
				     "open another version's to compare",
			     p->default_version);
	} else {
		ui_set_str(&r->cmp_base, p->default_version);
		if (lc_diff_request(r->cmp_project, r->cmp_base,
				    r->cmp_version, r->cmp_page, &path,
				    &q) == LC_OK)
			ui_app_get(v->app, v, TAG_CMP_DIFF, path, &q, NULL);
	}
	free(path);
	lc_query_dispose(&q);
	lc_project_free(p);
}

static void compare_diff(struct ui_view *v, struct lc_response *resp)
{
	struct reader *r = v->priv;
	struct lc_diff *d = NULL;
	const struct lc_diff_page *pg;
	size_t i, removed = 0;

	changed_clear(r);
	if (lc_diff_parse(resp->json, &d, NULL) != LC_OK) {
		ui_app_error(v->app, "the diff could not be read");
		return;
	}
	pg = d->pages_len ? &d->pages[0] : NULL;
	if (pg == NULL) {
		ui_app_message(v->app, "no change since %s", r->cmp_base);
	} else if (pg->status && strcmp(pg->status, "added") == 0) {
		ui_app_message(v->app, "this page is new since %s",
			       r->cmp_base);
	} else {
		r->changed = ui_xcalloc(pg->sections_len + 1,
					sizeof(*r->changed));
		for (i = 0; i < pg->sections_len; i++) {
			const struct lc_diff_section *s = &pg->sections[i];

			if (s->status && strcmp(s->status, "removed") == 0) {
				removed++;
				continue;
			}
			r->changed[r->nchanged].id = ui_xstrdup(s->id ? s->id
								      : "");
			r->changed[r->nchanged++].mark =
				s->status && strcmp(s->status, "added") == 0
					? '+'
					: '~';
		}
		ui_app_message(v->app, "%zu sections changed or new since %s "
				       "(~ and + in the margin), %zu removed",
			       r->nchanged, r->cmp_base, removed);
	}
	lc_diff_free(d);
}

/* The margin mark of line n: a changed section's heading, or 0. */
static char line_mark(const struct reader *r, size_t n)
{
	size_t i;

	for (i = 0; i < r->nchanged; i++)
		if (r->changed[i].id[0] &&
		    ui_page_anchor(r->page, r->changed[i].id) == (long)n)
			return r->changed[i].mark;
	return 0;
}

/* Finding -------------------------------------------------------------------------- */

/* Where needle (n bytes) first occurs in hay (len bytes) at or after
 * from, ASCII letters compared without case; -1 when it does not. */
static long find_in(const char *hay, size_t len, size_t from,
		    const char *needle, size_t n)
{
	size_t i;

	for (i = from; n > 0 && i + n <= len; i++)
		if (strncasecmp(hay + i, needle, n) == 0)
			return (long)i;
	return -1;
}

static int line_has(const struct reader *r, size_t n)
{
	const struct ui_line *l = &r->page->lines[n];

	return find_in(l->text, l->len, 0, r->find, strlen(r->find)) >= 0;
}

/* The next (dir 1) or previous (-1) line with a match from the cursor
 * (from: the cursor's own line counts). */
static void find_line(struct ui_view *v, int dir, int from)
{
	struct reader *r = v->priv;
	size_t i, n = r->page ? r->page->nlines : 0, start = v->cursor, at;

	if (r->find == NULL || n == 0)
		return;
	for (i = from ? 0 : 1; i <= n; i++) {
		at = dir > 0 ? (start + i) % n : (start + n - i % n) % n;
		if (!line_has(r, at))
			continue;
		ui_view_goto(v, at);
		if ((dir > 0 && at < start) || (dir < 0 && at > start))
			ui_app_message(v->app, "search wrapped");
		return;
	}
	ui_app_error(v->app, "not found: %s", r->find);
}

/* The `/` text changed (NULL: cleared): the first match from the cursor,
 * and how many lines have one. */
static void reader_filter(struct ui_view *v, const char *text)
{
	struct reader *r = v->priv;
	size_t i, lines = 0;

	ui_set_str(&r->find, text && *text ? text : NULL);
	if (r->find == NULL || r->page == NULL)
		return;
	for (i = 0; i < r->page->nlines; i++)
		lines += line_has(r, i);
	if (lines == 0) {
		ui_app_error(v->app, "not found: %s", r->find);
		return;
	}
	find_line(v, 1, 1);
	ui_app_message(v->app, "%zu line%s with \"%s\" (n next, N previous)",
		       lines, lines == 1 ? "" : "s", r->find);
}

/* Ops -------------------------------------------------------------------------------- */

static int reader_action(struct ui_view *v, enum ui_action action)
{
	struct reader *r = v->priv;
	size_t n = r->page ? r->page->nlinks : 0;

	switch (action) {
	case UI_ACTION_BACK:
		/* Esc undoes a link's selection before it leaves the page. */
		if (r->link == 0)
			return UI_PASS;
		r->link = 0;
		ui_app_message(v->app, "no link selected");
		return UI_HANDLED;
	case UI_ACTION_PREV_PAGE:
		move_to(v, r->page ? r->page->prev : NULL,
			"this is the site's first page (no previous one)");
		return UI_HANDLED;
	case UI_ACTION_NEXT_PAGE:
		move_to(v, r->page ? r->page->next : NULL,
			"this is the site's last page (no next one)");
		return UI_HANDLED;
	case UI_ACTION_PAGES:
		list_pages(v);
		return UI_HANDLED;
	case UI_ACTION_SCROLL_LEFT:
		r->hscroll = r->hscroll > UI_HSCROLL_STEP ? r->hscroll - UI_HSCROLL_STEP
						       : 0;
		return UI_HANDLED;
	case UI_ACTION_SCROLL_RIGHT:
		if (r->page && r->hscroll + UI_HSCROLL_STEP < r->page->width)
			r->hscroll += UI_HSCROLL_STEP;
		return UI_HANDLED;
	case UI_ACTION_NEXT_LINK:
		if (n)
			select_link(v, r->link % n + 1);
		return UI_HANDLED;
	case UI_ACTION_PREV_LINK:
		if (n)
			select_link(v, r->link > 1 ? r->link - 1 : n);
		return UI_HANDLED;
	case UI_ACTION_OPEN:
		if (r->digits[0]) {
			n = strtoul(r->digits, NULL, 10);
			r->digits[0] = '\0';
			follow(v, n);
		} else {
			follow(v, r->link);
		}
		return UI_HANDLED;
	case UI_ACTION_BROWSER:
		open_browser(v);
		return UI_HANDLED;
	case UI_ACTION_FORWARD:
		forward_and_open(v);
		return UI_HANDLED;
	case UI_ACTION_COMPARE:
		compare_start(v);
		return UI_HANDLED;
	case UI_ACTION_VERSIONS:
		list_versions(v);
		return UI_HANDLED;
	case UI_ACTION_STABLE:
		to_stable(v);
		return UI_HANDLED;
	case UI_ACTION_NEXT_MATCH:
	case UI_ACTION_PREV_MATCH:
		if (r->find == NULL)
			ui_app_message(v->app, "nothing to find: / first");
		else
			find_line(v, action == UI_ACTION_NEXT_MATCH ? 1 : -1,
				  0);
		return UI_HANDLED;
	case UI_ACTION_WARNINGS:
		if (r->origin == NULL)
			ui_app_message(v->app, "W lists a preview's warnings; a "
					       "build's are on its screen");
		else if (r->warnings.count <= 0)
			ui_app_message(v->app, "the preview's last build had no "
					       "warnings");
		else
			ui_app_push(v->app, v->app->screens->warnings(
						    v->app, "warnings",
						    &r->warnings));
		return UI_HANDLED;
	case UI_ACTION_REFRESH:
		/* A preview's page reloads in place, as on a new build. */
		ui_app_get(v->app, v, r->origin && r->page ? TAG_RELOAD : TAG_PAGE,
			   r->url, NULL, NULL);
		return UI_HANDLED;
	default:
		r->digits[0] = '\0';
		return UI_PASS;
	}
}

/* Digits type a link number; Enter follows it. */
static void reader_key(struct ui_view *v, int key)
{
	struct reader *r = v->priv;
	size_t len = strlen(r->digits);

	if (key < '0' || key > '9' || len == MAX_DIGITS)
		return;
	r->digits[len] = (char)key;
	r->digits[len + 1] = '\0';
	select_link(v, strtoul(r->digits, NULL, 10));
}

static int reader_header(struct ui_view *v, WINDOW *w, int width)
{
	struct reader *r = v->priv;
	char *text, summary[96];

	r->width = width;
	if (r->page && width != r->laid_out)
		layout(v);
	/* A preview's: what its last build warned about (nothing when all
	 * is well), before the URL that a narrow screen cuts. */
	summary[0] = '\0';
	if (r->origin && r->warnings.count > 0)
		ui_warnings_summary(&r->warnings, 0, summary, sizeof(summary));
	text = ui_xasprintf("%s  %s%s%s", r->page ? r->page->title : "Loading...",
			    summary, *summary ? " (W)  " : "", r->url);
	ui_draw_fill(w, 0, 0, width, ui_attr(UI_SLOT_HEADER));
	ui_draw_text(w, 0, 0, width, text, ui_attr(UI_SLOT_HEADER));
	free(text);
	/* The notice the page's readers get in a browser (the addons). */
	if (r->addons.notice == NULL)
		return 1;
	ui_draw_fill(w, 1, 0, width, ui_attr(UI_SLOT_STATE_RUNNING));
	ui_draw_text(w, 1, 0, width, r->addons.notice,
		     ui_attr(UI_SLOT_STATE_RUNNING));
	return 2;
}

/* Bytes [off, off + len) of the line in attr, after the columns the
 * sideways scroll hides; *x and *col move on. */
static void draw_piece(const struct reader *r, const struct ui_line *l,
		       size_t off, size_t len, int attr, WINDOW *w, int y,
		       int width, int *x, int *col)
{
	char *text = ui_xstrndup(l->text + off, len);
	int sw = ui_text_width(text), skip;

	skip = r->hscroll > *col ? r->hscroll - *col : 0;
	if (skip < sw && *x < width - 1)
		*x += ui_draw_text(w, y, 1 + *x, width - 1 - *x,
				   ui_text_skip(text, skip), attr);
	*col += sw;
	free(text);
}

/* A span in its style, the find's matches in it in the match colour (a
 * match across two spans is coloured in each). */
static void draw_span(const struct reader *r, const struct ui_line *l,
		      const struct ui_span *sp, WINDOW *w, int y, int width,
		      int *x, int *col)
{
	size_t at = sp->off, end = sp->off + sp->len,
	       n = r->find ? strlen(r->find) : 0;
	long m;

	while (at < end) {
		m = n ? find_in(l->text, end, at, r->find, n) : -1;
		if (m < 0) {
			draw_piece(r, l, at, end - at, style_attr(sp->style),
				   w, y, width, x, col);
			return;
		}
		if ((size_t)m > at)
			draw_piece(r, l, at, (size_t)m - at,
				   style_attr(sp->style), w, y, width, x, col);
		draw_piece(r, l, (size_t)m, n, ui_attr(UI_SLOT_MATCH), w, y,
			   width, x, col);
		at = (size_t)m + n;
	}
}

static void reader_row(struct ui_view *v, WINDOW *w, int y, int width, size_t n,
		       int selected)
{
	struct reader *r = v->priv;
	const struct ui_line *l = &r->page->lines[n];
	int x = 0, col = 0, base = ui_attr(UI_SLOT_NORMAL);
	char mark[2];
	const struct ui_span *sp;
	size_t i;

	/* The cursor line is marked by the dim bar at the left edge rather
	 * than reverse video, which would hide the page's own colours. */
	ui_draw_fill(w, y, 0, width, base);
	if (selected) {
		ui_draw_text(w, y, 0, 1, ui_glyph(UI_GLYPH_BULLET),
			     ui_attr(UI_SLOT_CURSOR));
	} else if ((mark[0] = line_mark(r, n)) != 0) {
		mark[1] = '\0';
		ui_draw_text(w, y, 0, 1, mark, ui_attr(UI_SLOT_MATCH));
	}
	for (i = 0; i < l->nspans && x < width - 1; i++) {
		sp = &l->spans[i];
		draw_span(r, l, sp, w, y, width, &x, &col);
	}
}

/* Ask the preview for its status; the page itself is fetched once a
 * build is published (before that it is a "Building" placeholder). */
static void poll_status(struct ui_view *v)
{
	struct reader *r = v->priv;
	char *url;

	if (ui_app_pending(v->app, v, TAG_STATUS))
		return;
	url = ui_xasprintf("%s%s", r->origin, PREVIEW_STATUS);
	ui_app_get(v->app, v, TAG_STATUS, url, NULL, NULL);
	free(url);
}

static void reader_open(struct ui_view *v)
{
	struct reader *r = v->priv;

	if (r->origin) {
		poll_status(v);
		ui_app_tick_within(v->app, PREVIEW_POLL_MS);
	} else {
		ui_app_get(v->app, v, TAG_PAGE, r->url, NULL, NULL);
	}
}

/* While on top: a preview's reader polls, until that preview is replaced
 * or has stopped (its page then stays as it was). */
static void reader_tick(struct ui_view *v)
{
	struct reader *r = v->priv;
	const char *running = ui_app_preview_url(v->app);

	if (r->origin == NULL || running == NULL ||
	    strcmp(running, r->origin) != 0)
		return;
	poll_status(v);
	ui_app_tick_within(v->app, PREVIEW_POLL_MS);
}

static void reader_close(struct ui_view *v)
{
	struct reader *r = v->priv;

	ui_page_free(r->page);
	free(r->html);
	free(r->url);
	free(r->anchor);
	free(r->origin);
	ui_warnings_dispose(&r->warnings);
	changed_clear(r);
	free(r->cmp_project);
	free(r->cmp_version);
	free(r->cmp_page);
	free(r->cmp_base);
	free(r->find);
	ui_addons_dispose(&r->addons);
	free(r);
}

/* `O` forwards a port of an ssh context only. */
static int reader_offers(const struct ui_view *v, enum ui_action action)
{
	if (action == UI_ACTION_FORWARD)
		return v->app->conn.forward_hint && v->app->start->forward;
	return 1;
}

static const char *reader_site(const struct ui_view *v)
{
	const struct reader *r = v->priv;

	return r->url;
}

static const struct ui_view_ops reader_ops = {
	.name = "reader",
	.kind = UI_VIEW_READER,
	.open = reader_open,
	.close = reader_close,
	.draw_header = reader_header,
	.draw_row = reader_row,
	.on_action = reader_action,
	.on_data = reader_data,
	.on_key = reader_key,
	.tick = reader_tick,
	.filter = reader_filter,
	.offers = reader_offers,
	.site = reader_site,
};

struct ui_view *ui_reader_new(struct ui_app *app, const char *url,
			      const char *anchor)
{
	struct reader *r = ui_xcalloc(1, sizeof(*r));
	const char *slash = strrchr(url, '/');
	const char *preview = ui_app_preview_url(app);
	const char *title;

	r->url = ui_xstrdup(url);
	r->anchor = anchor && *anchor ? ui_xstrdup(anchor) : NULL;
	if (preview && strncmp(url, preview, strlen(preview)) == 0)
		r->origin = ui_xstrdup(preview);
	r->warnings.count = -1;
	r->warnings.docs = r->origin ? ui_xstrdup(r->origin) : NULL;
	if (slash && slash[1])
		title = slash + 1;
	else
		title = r->origin ? "preview" : "page";
	return ui_view_new(app, &reader_ops, title, r);
}
